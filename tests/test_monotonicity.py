"""Better capacity never lowers the NPV (docs/model.md, section 0.2), property-tested on every
basis over random draws of the sensitivity ranges.

Each example draws N scenarios uniformly within every range of sensitivity.csv (the test's own
sampler, seeded by hypothesis), improves ONE lever by a drawn factor in every scenario and
evaluates both sets with the served speed chosen as the model chooses it (the NPV-maximising
grid speed). The improved NPV must not be lower, scenario by scenario. The levers: the contract
platform's hardware (more bandwidth, memory, compute or efficiency; less hop or layer latency;
less power; a larger frontier_scale), more MW at the same contract value, the served model's
levers with the GPU cost per token held by override, and more backfill. (Improving the GPU
platform rightly lowers the deal's NPV: the alternative got cheaper; it is not a lever here.)
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import DATA
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import econ
from econ.assumptions import rule_for
from econ.model import evaluate

BASE = econ.load(DATA)
N = 16  # scenarios per example
TOL = 10.0  # USD: rounding on NPVs of billions
PLATFORM = str(BASE.values["contract.platform"])
BASES = ("data", "transferred", "physics")

# (key, how the improvement moves it)
HARDWARE = [
    (f"hardware.{PLATFORM}.bandwidth_tb_s", "up"),
    (f"hardware.{PLATFORM}.memory_gb", "up"),
    (f"hardware.{PLATFORM}.tflops", "up"),
    (f"hardware.{PLATFORM}.efficiency", "share_up"),
    (f"hardware.{PLATFORM}.hop_latency_us", "down"),
    (f"hardware.{PLATFORM}.layer_latency_us", "down"),
    (f"hardware.{PLATFORM}.power_kw", "down"),
    (f"hardware.{PLATFORM}.frontier_scale", "up"),
    ("contract.mw", "up"),  # contract.value_usd as drawn: more MW at the same value
]
MODEL = [
    ("model.bytes_per_param", "down"),
    ("model.active_param_share", "down"),
    ("model.params", "down"),
    ("model.kv_bytes_per_token", "down"),
    ("model.context_tokens", "down"),
    ("model.speculative_speedup", "up"),
]
BACKFILL = [
    ("capacity.backfill_tokens_per_month", "up_from_zero"),
    ("capacity.backfill_flexible_share", "share_up"),
]


def _draws(seed: int) -> dict[str, np.ndarray]:
    """N scenarios uniform within every sensitivity range (whole numbers where the key takes
    them), with the no-deal growth kept at or above minus the churn (its cross-key rule)."""
    rng = np.random.default_rng(seed)
    out = {}
    for s in BASE.sensitivity:
        x = rng.uniform(s.low, s.high, N)
        out[s.key] = np.round(x) if rule_for(s.key).kind == "integer" else x
    churn = out["conversion.pro_churn_monthly"]
    out["market.pro_growth_monthly"] = np.maximum(out["market.pro_growth_monthly"], -churn)
    return out


def _improved(value: np.ndarray, how: str, factor: float) -> np.ndarray:
    if how == "up":
        return value * factor
    if how == "down":
        return value / factor
    if how == "share_up":  # closer to 1 by the factor's share of the gap
        return value + (1.0 - value) * (1.0 - 1.0 / factor)
    if how == "up_from_zero":
        return value * factor + 1e12
    raise AssertionError(how)


def _check(basis: str, key: str, how: str, seed: int, factor: float, fixed_gpu: bool) -> None:
    pairs = [("capacity.basis", basis)]
    if fixed_gpu:  # the model's levers also move the GPU cost; hold it (section 0.2)
        pairs.append(("capacity.gpu_cost_per_mtok_usd", "1"))
    a = BASE.with_overrides(pairs)
    over = _draws(seed)
    if fixed_gpu:
        over["capacity.gpu_cost_per_mtok_usd"] = np.random.default_rng(seed + 1).uniform(0.2, 9, N)
    better = dict(over)
    better[key] = _improved(np.broadcast_to(over.get(key, a.num(key)), (N,)), how, factor)
    before = evaluate(a, over, detail=False).npv
    after = evaluate(a, better, detail=False).npv
    fell = after < before - TOL
    if fell.any():
        j = int(np.argmax(before - after))
        raise AssertionError(
            f"{basis}: NPV fell from {before[j]:,.0f} to {after[j]:,.0f} USD when {key} moved "
            f"from {float(np.broadcast_to(over.get(key, a.num(key)), (N,))[j]):g} to "
            f"{float(better[key][j]):g} (seed {seed}, scenario {j})"
        )


FAST = settings(
    max_examples=2,
    phases=(Phase.explicit, Phase.generate),  # a seed has nothing to shrink
    suppress_health_check=[HealthCheck.too_slow],
)
SEEDS = st.integers(0, 2**31 - 1)
FACTORS = st.floats(1.05, 3.0)


@pytest.mark.parametrize("basis", BASES)
@pytest.mark.parametrize(("key", "how"), HARDWARE, ids=[k for k, _ in HARDWARE])
@FAST
@given(seed=SEEDS, factor=FACTORS)
def test_a_better_contract_platform_never_lowers_the_npv(basis, key, how, seed, factor):
    _check(basis, key, how, seed, factor, fixed_gpu=False)


@pytest.mark.parametrize("basis", BASES)
@pytest.mark.parametrize(("key", "how"), MODEL, ids=[k for k, _ in MODEL])
@FAST
@given(seed=SEEDS, factor=FACTORS)
def test_a_lighter_or_faster_model_never_lowers_the_npv_at_a_fixed_gpu_cost(
    basis, key, how, seed, factor
):
    _check(basis, key, how, seed, factor, fixed_gpu=True)


@pytest.mark.parametrize("basis", BASES)
@pytest.mark.parametrize(
    ("key", "how"),
    BACKFILL,
    ids=[k for k, _ in BACKFILL],
)
@FAST
@given(seed=SEEDS, factor=FACTORS)
def test_more_backfill_never_lowers_the_npv(basis, key, how, seed, factor):
    _check(basis, key, how, seed, factor, fixed_gpu=False)


def test_a_larger_flexible_share_adds_batch_work_by_hand(base):
    # flexible backfill is batch work on top of the standard traffic (a share of its volume),
    # worth half of g$ a token. Data basis, no API and no subscribers, 1e13 tokens a month:
    # the peak room (31.25 MW x 700,000 tokens/s x SPM / 3 = 1.9e13 tokens in month 1) holds the
    # traffic, the average room the batch work, so the share 0 -> 1 adds exactly
    # 0.5 x g$ x 1e13 sum_t e_t d_t / 1e6 with e_t = 0.85^((t-1)/12), d_t = 1.1^(-t/12), t <= 30.
    # (Read as a SPLIT of one volume, the share would lower the NPV by as much: a flexible token
    # is worth less than a peak-shaped one.)
    quiet = [
        ("capacity.basis", "data"),
        ("api.ultrafast_tokens_per_month", "0"),
        ("tiers.ultrafast.adoption", "0"),
        ("capacity.backfill_tokens_per_month", "1e13"),
    ]
    r = evaluate(
        base.with_overrides(quiet), {"capacity.backfill_flexible_share": np.array([0.0, 1.0])}
    )
    g = 4 * 730.5 * 1000 / (1.9 * 1.2) / (1.5e6 * 2_629_800 * 0.6) * 1e6  # b300 at 54 tokens/s
    t = np.arange(1, 31)
    gain = 0.5 * g * 1e13 * float(np.sum(0.85 ** ((t - 1) / 12) * 1.1 ** (-t / 12))) / 1e6
    assert r.npv[1] - r.npv[0] == pytest.approx(gain, rel=1e-9)
    assert math.isclose(gain, 60.03e6, rel_tol=1e-3)


def test_the_speculative_speedup_sweep_of_version_2_no_longer_falls(base):
    # version 2: on the physics basis the NPV fell from -7.34 to -8.36 B USD as the speculative
    # speed-up went from 1.2 to 1.3 (750 tokens/s became feasible, the API took the MW first and
    # backfill fell to zero). With the GPU cost held, the sweep 1 -> 2 never falls now
    a = base.with_overrides(
        [("capacity.basis", "physics"), ("capacity.gpu_cost_per_mtok_usd", "5")]
    )
    r = evaluate(a, {"model.speculative_speedup": np.linspace(1, 2, 11)}, detail=False)
    assert np.all(np.diff(r.npv) >= -TOL)
    assert r.npv[-1] > r.npv[0]
