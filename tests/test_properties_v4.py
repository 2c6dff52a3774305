"""Version 4's properties (docs/model.md, section V4) over random draws of plausible ranges.

- The NPV never falls as more traffic may move (capacity.movable_share, the internal batch work
  I_t: caps the allocation may leave unused, V4.2) or as more freed GPU-hours replace added ones
  (fleet.avoidable_share, V4.3), and never rises with the contract's rent.
- The two businesses (V4.1): the ultrafast business (no moved traffic) and the capacity
  increment add up to the NPV; both agree with the reference model.
- Throughput per MW never falls as users ask for less speed, on every platform and every basis
  (V4.5), and `econ capacity --json` carries the throughput the money reads, which does not
  either.

Each seed draws N scenarios uniformly within the ranges of sensitivity.csv and over the spans of
the fleet-plan grid and the other fleet keys; every check evaluates the draws and the changed
draws in one vectorised call.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import reference_model
from conftest import DATA

import econ
from econ import worth
from econ.assumptions import AssumptionError, rule_for
from econ.cli import main
from econ.compute import physics
from econ.model import Params, evaluate, platform_throughput

BASE = econ.load(DATA)
N = 24  # scenarios a seed draws
SEEDS = (3, 4)
TOL = 10.0  # USD: rounding on NPVs of billions
BASES = ("data", "transferred", "physics")
GPU = str(BASE.values["capacity.gpu_platform"])
PLATFORM = str(BASE.values["contract.platform"])


def draws(seed: int, n: int = N) -> dict[str, np.ndarray]:
    """n scenarios: uniform within every sensitivity range (whole numbers where the key takes
    them; the no-deal growth at or above minus the churn, its cross-key rule); the fleet-plan
    keys over their grid's spans (avoidable share 0.1-1, movable share 0.1-0.9); the sublet
    price 0-0.5 x the GPU rent and u_ops 0.8-0.9 (section V4.3); internal batch work 0-5e13
    tokens a month (about the served model's own demand, section V4)."""
    rng = np.random.default_rng(seed)
    out = {}
    for s in BASE.sensitivity:
        x = rng.uniform(s.low, s.high, n)
        out[s.key] = np.round(x) if rule_for(s.key).kind == "integer" else x
    churn = out["conversion.pro_churn_monthly"]
    out["market.pro_growth_monthly"] = np.maximum(out["market.pro_growth_monthly"], -churn)
    out["fleet.avoidable_share"] = rng.uniform(0.1, 1.0, n)
    out["capacity.movable_share"] = rng.uniform(0.1, 0.9, n)
    rent = out[f"hardware.{GPU}.rent_usd_per_hour"]
    out["fleet.sublet_usd_per_gpu_hour"] = rng.uniform(0.0, 0.5, n) * rent
    out["fleet.ops_utilization"] = rng.uniform(0.8, 0.9, n)
    out["capacity.internal_batch_tokens_per_month"] = rng.uniform(0.0, 5e13, n)
    return out


def _col(a: econ.Assumptions, over: dict, key: str, n: int) -> np.ndarray:
    return np.broadcast_to(np.asarray(over.get(key, a.num(key)), float), (n,))


def evaluate_arms(a: econ.Assumptions, arms: list[dict]):
    """The N scenarios of every arm in one call: the results, arm after arm."""
    keys = set().union(*arms)
    stacked = {k: np.concatenate([_col(a, arm, k, N) for arm in arms]) for k in keys}
    return evaluate(a, stacked, detail=False, monthly=False)


def npv_of_arms(a: econ.Assumptions, arms: list[dict]) -> np.ndarray:
    """The NPV of each arm's N scenarios, (arms, N)."""
    return evaluate_arms(a, arms).npv.reshape(len(arms), N)


def monotone(a: econ.Assumptions, over: dict, changes: dict, sign: int, seed: int):
    """For each key of ``changes`` moved to its new values (one arm a key), the NPV is not
    below (sign +1) / not above (sign -1) the NPV of the draws, scenario by scenario; else an
    error naming the scenario. Returns the results, (1 + len(changes)) arms of N."""
    r = evaluate_arms(a, [over, *({**over, k: x} for k, x in changes.items())])
    npv = r.npv.reshape(1 + len(changes), N)
    for i, (key, new) in enumerate(changes.items(), start=1):
        worse = sign * (npv[0] - npv[i])
        if np.any(worse > TOL):
            j = int(np.argmax(worse))
            raise AssertionError(
                f"{a.values['capacity.basis']}: NPV went from {npv[0, j]:,.0f} to "
                f"{npv[i, j]:,.0f} USD when {key} moved from {_col(a, over, key, N)[j]:g} to "
                f"{new[j]:g} (seed {seed}, scenario {j})"
            )
    return r


def raised_share(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A share moved toward 1 by a drawn part (5-70 %) of its gap."""
    return x + (1.0 - x) * rng.uniform(0.05, 0.7, x.shape)


# settings of the fleet under which the moved traffic's invariants must hold: the troughs
# filled (default) or idle (section V4.3), the free tier served (V4.2)
FLEET = {
    "troughs filled": [],
    "troughs idle": [("fleet.troughs", "idle")],
    "free tier served": [("free.served", "1")],
}


# ----------------------------------------------------------------- the NPV's monotone keys


@pytest.mark.parametrize("fleet", FLEET)
@pytest.mark.parametrize("basis", BASES)
def test_the_npv_never_falls_as_more_traffic_may_move(basis, fleet):
    # section V4.2: capacity.movable_share and I_t are caps the allocation may leave unused
    a = BASE.with_overrides([("capacity.basis", basis), *FLEET[fleet]])
    for seed in SEEDS:
        over = draws(seed)
        rng = np.random.default_rng(seed + 100)
        batch = over["capacity.internal_batch_tokens_per_month"]
        changes = {
            "capacity.movable_share": raised_share(over["capacity.movable_share"], rng),
            "capacity.internal_batch_tokens_per_month": batch * rng.uniform(1.05, 3.0, N) + 1e13,
        }
        npv = monotone(a, over, changes, 1, seed).npv.reshape(3, N)
        for i, key in enumerate(changes, start=1):
            assert np.any(npv[i] > npv[0] + TOL), f"no scenario gained from more {key}"


@pytest.mark.parametrize("fleet", FLEET)
@pytest.mark.parametrize("basis", BASES)
def test_the_npv_never_falls_as_more_freed_gpu_hours_replace_added_ones(basis, fleet):
    # section V4.3: lambda = a x r_m + (1 - a) x (sublet + e) rises with a where the rent is
    # above the sublet price and the energy (every draw: sublet <= 0.5 r_m, e about 0.2 USD)
    a = BASE.with_overrides([("capacity.basis", basis), *FLEET[fleet]])
    for seed in SEEDS:
        over = draws(seed)
        rng = np.random.default_rng(seed + 200)
        more = raised_share(over["fleet.avoidable_share"], rng)
        monotone(a, over, {"fleet.avoidable_share": more}, 1, seed)


@pytest.mark.parametrize("payment", ["pay_as_delivered", "take_or_pay"])
@pytest.mark.parametrize("basis", BASES)
def test_the_npv_never_rises_with_the_contracts_rent(basis, payment):
    # the rent is a cost: more of it never raises the NPV, and the NPV falls by exactly the
    # present value of the extra rent (it moves no decision: every served-speed candidate pays
    # the same rent). The contract platform's system price is a buy-side figure (section 4.2):
    # it does not move the NPV at all.
    a = BASE.with_overrides([("capacity.basis", basis), ("contract.payment", payment)])
    for seed in SEEDS:
        over = draws(seed)
        rng = np.random.default_rng(seed + 300)
        price = f"hardware.{PLATFORM}.price_usd"
        factor = rng.uniform(1.05, 2.0, N)
        changes = {
            "contract.value_usd": over["contract.value_usd"] * factor,
            price: _col(a, over, price, N) * 2.0,
        }
        r = monotone(a, over, changes, -1, seed)
        npv, rent = r.npv.reshape(3, N), r.rent_npv.reshape(3, N)
        # the rent is proportional to the contract's value on either payment basis (4.1, V4.5)
        np.testing.assert_allclose(rent[1], rent[0] * factor, rtol=1e-12)
        np.testing.assert_allclose(npv[0] - npv[1], rent[1] - rent[0], rtol=1e-9)
        assert np.all(npv[1] < npv[0])
        np.testing.assert_array_equal(npv[2], npv[0])


def test_the_retired_backfill_key_is_refused_naming_its_replacements():
    # version 3's backfill volume retires (section V4.2): the moved traffic is now a share of the
    # served model's own demand plus the lab's internal batch work
    with pytest.raises(AssumptionError) as exc:
        BASE.with_overrides([("capacity.backfill_tokens_per_month", "1e14")])
    msg = str(exc.value)
    assert "retired in version 4" in msg
    assert "capacity.movable_share" in msg and "capacity.internal_batch_tokens_per_month" in msg


# ---------------------------------------------------------------------- the two businesses


CASES = {
    "bundled": [],
    "a lab whose fleet is always constrained": [
        ("fleet.avoidable_share", "1"),
        ("capacity.movable_share", "0.9"),
        ("capacity.internal_batch_tokens_per_month", "2e13"),
    ],
    "physics, take-or-pay, 60 % delivered": [
        ("capacity.basis", "physics"),
        ("contract.payment", "take_or_pay"),
        ("contract.delivered_share", "0.6"),
    ],
}


@pytest.mark.parametrize("case", CASES)
def test_the_two_businesses_add_up_to_the_npv_and_agree_with_the_reference(case):
    # section V4.1: the ultrafast business is the deal with no traffic moved (B_t = 0: movable
    # share 0, no internal batch work), the allocation re-solved; the capacity increment is the
    # rest. The reference model (tests/reference_model.py) computes both NPVs on its own.
    pairs = CASES[case]
    a = BASE.with_overrides(pairs)
    two = worth.two_businesses(a)
    v = reference_model.load(DATA, overrides=pairs)
    none_moved = [
        ("capacity.movable_share", "0"),
        ("capacity.internal_batch_tokens_per_month", "0"),
    ]
    ref_uf = reference_model.run(reference_model.load(DATA, overrides=[*pairs, *none_moved]))
    assert two["npv_usd"] == pytest.approx(reference_model.run(v)["npv_usd"], rel=1e-9)
    assert two["npv_ultrafast_only_usd"] == pytest.approx(ref_uf["npv_usd"], rel=1e-9)
    assert two["npv_ultrafast_only_usd"] + two["npv_capacity_increment_usd"] == pytest.approx(
        two["npv_usd"], rel=1e-12
    )
    assert two["npv_usd"] == pytest.approx(float(evaluate(a).npv[0]), rel=1e-12)
    # moved traffic only adds (the invariant of section V4.2 from a share of 0)
    assert two["npv_capacity_increment_usd"] >= -TOL


@pytest.mark.parametrize("basis", BASES)
def test_the_capacity_increment_is_never_negative_over_the_draws(basis):
    # for every draw, the ultrafast business (no moved traffic) is worth no more than the deal,
    # and no less than it where nothing can move
    a = BASE.with_overrides([("capacity.basis", basis)])
    for seed in SEEDS:
        over = draws(seed)
        none = {**over, "capacity.movable_share": np.zeros(N)}
        none["capacity.internal_batch_tokens_per_month"] = np.zeros(N)
        npv = npv_of_arms(a, [over, none])
        assert np.all(npv[0] - npv[1] >= -TOL), (seed, npv[0] - npv[1])
        assert np.any(npv[0] - npv[1] > TOL), "no draw gained from moved traffic"
    # the scalar route (worth.two_businesses) gives the same split on one drawn scenario
    j = 5
    text = lambda k, x: str(int(x)) if rule_for(k).kind == "integer" else repr(float(x))  # noqa: E731
    two = worth.two_businesses(a.with_overrides([(k, text(k, x[j])) for k, x in over.items()]))
    assert two["npv_usd"] == pytest.approx(npv[0, j], rel=1e-12)
    assert two["npv_ultrafast_only_usd"] == pytest.approx(npv[1, j], rel=1e-12)


# ----------------------------------------------------- throughput never falls with less speed


SPEEDS = np.geomspace(5.0, 3000.0, 40)
HW_RANGES = {  # ranges where sensitivity.csv has none: the base value times these factors
    "bandwidth_tb_s": (0.5, 2.0),
    "memory_gb": (0.5, 2.0),
    "tflops": (0.5, 2.0),
    "hop_latency_us": (0.25, 4.0),
    "layer_latency_us": (0.25, 4.0),
    "efficiency": (0.5, 1.2),
    "frontier_scale": (0.3, 3.0),
}


def hardware_and_model_draws(platform: str, seed: int) -> dict[str, np.ndarray]:
    """N scenarios of the served model (its sensitivity ranges) and the platform's hardware
    (its sensitivity ranges; else the base value times HW_RANGES, shares at most 1)."""
    rng = np.random.default_rng(seed)
    ranges = {s.key: (s.low, s.high) for s in BASE.sensitivity}
    out = {}
    for key, (lo, hi) in ranges.items():
        if key.startswith("model.") or key == "usage.context_tokens":
            out[key] = rng.uniform(lo, hi, N)
    for col, (f_lo, f_hi) in HW_RANGES.items():
        key = f"hardware.{platform}.{col}"
        if key in ranges:
            out[key] = rng.uniform(*ranges[key], N)
        else:
            out[key] = BASE.num(key) * rng.uniform(f_lo, f_hi, N)
        if col == "efficiency":
            out[key] = np.minimum(out[key], 1.0)
    return out


@pytest.mark.parametrize("basis", BASES)
@pytest.mark.parametrize("platform", BASE.platforms())
def test_throughput_never_falls_as_users_ask_for_less_speed(platform, basis):
    # section V4.5: Thr_p(s) on every platform and basis is non-increasing in s (the data curve
    # where it covers s; the physics envelope; the transferred curve, hull included)
    a = BASE.with_overrides([("capacity.basis", basis)])
    for seed in SEEDS:
        over = hardware_and_model_draws(platform, seed)
        if basis == "data":
            xs, _ = a.frontier_points(platform)
            speeds = np.geomspace(min(xs), max(xs), 40)
            over = {
                f"hardware.{platform}.frontier_scale": over[f"hardware.{platform}.frontier_scale"]
            }
        else:
            speeds = SPEEDS
        # speed-major: row i holds every scenario at speeds[i]
        tiled = {k: np.tile(v, speeds.size) for k, v in over.items()}
        p = Params(a, tiled)
        thr = platform_throughput(p, platform, np.repeat(speeds, N), physics.model_from(p))
        thr = np.broadcast_to(thr, (speeds.size * N,)).reshape(speeds.size, N)
        assert np.all(np.isfinite(thr)) and np.all(thr >= 0)
        assert np.any(thr[0] > 0), "no scenario carries anything at the slowest speed"
        rise = thr[1:] - thr[:-1]
        bad = rise > 1e-9 * thr[:-1]
        if bad.any():
            i, j = (int(x[0]) for x in np.nonzero(bad))
            raise AssertionError(
                f"{platform}, {basis}: {thr[i, j]:,.1f} tokens/s per MW at {speeds[i]:g} "
                f"tokens/s but {thr[i + 1, j]:,.1f} at {speeds[i + 1]:g} (seed {seed}, "
                f"scenario {j}: " + ", ".join(f"{k}={float(v[j]):g}" for k, v in over.items()) + ")"
            )


CAPACITY_SPEEDS = "10,20,40,71,100,128,200,340,500,1000,1500,2000"


@pytest.mark.parametrize("basis", BASES)
def test_econ_capacity_json_carries_the_served_throughput(basis, capsys):
    # each row of `econ capacity --json` carries tokens_per_s_per_mw_served, Thr*_p(s) on the
    # run's basis: non-increasing in speed on every platform, the reference model's value, and
    # at the tier speeds the figure the money reads
    args = ["capacity", "--json", "--speeds", CAPACITY_SPEEDS, "--data", str(DATA)]
    code = main([*args, "--set", f"capacity.basis={basis}"])
    rows = json.loads(capsys.readouterr().out)["capacity"]
    assert code == 0
    v = reference_model.load(DATA, overrides=[("capacity.basis", basis)])
    base = reference_model.bundled()
    for platform in BASE.platforms():
        mine = sorted(
            (r for r in rows if r["platform"] == platform), key=lambda r: r["tokens_per_s_per_user"]
        )
        assert len(mine) == 3 + len(CAPACITY_SPEEDS.split(","))
        served = np.array(
            [np.nan if r["tokens_per_s_per_mw_served"] is None else r["tokens_per_s_per_mw_served"]
             for r in mine]
        )  # fmt: skip
        known = served[np.isfinite(served)]
        assert known.size >= 2
        assert np.all(np.diff(known) <= 1e-9 * known[:-1]), (platform, known)
        ref = reference_model.Capacity(v, base, platform, basis)
        for r, x in zip(mine, served, strict=True):
            s = r["tokens_per_s_per_user"]
            if basis == "data":
                # the data curve where it covers the speed, as the plain throughput column
                if r["tokens_per_s_per_mw"] is None:
                    assert np.isnan(x)
                else:
                    assert x == pytest.approx(r["tokens_per_s_per_mw"], rel=1e-12)
                    assert x == pytest.approx(ref.thr(s), rel=1e-9)
            else:
                assert x == pytest.approx(ref.thr(s), rel=1e-9, abs=1e-6), (platform, s)
    # the figures the money reads at the served tier speeds (54, 134 and 750 tokens/s)
    res = evaluate(BASE.with_overrides([("capacity.basis", basis)]))
    by = {(r["platform"], r["tier"]): r["tokens_per_s_per_mw_served"] for r in rows}
    assert by[(PLATFORM, "ultrafast")] == pytest.approx(res.throughput_per_mw[0], rel=1e-12)
    assert by[(PLATFORM, "standard")] == pytest.approx(res.throughput_per_mw_standard[0], rel=1e-12)
    assert by[(GPU, "standard")] == pytest.approx(res.gpu_throughput_standard[0], rel=1e-12)
    assert by[(GPU, "fast")] == pytest.approx(res.gpu_throughput_fast[0], rel=1e-12)
    if basis == "transferred":
        # the articles' 450,000 tokens/s per MW at 750 (the one sourced wse3 point)
        assert by[(PLATFORM, "ultrafast")] == pytest.approx(450_000, rel=1e-12)
