"""One served model on every platform (docs/model.md, section 0.1): the stage grid, the
realisation factor, the served speeds, the GPU cost per tier and the calibration guards."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from conftest import DATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import econ
from econ.compute import physics, tables
from econ.model import CEILING_MARGIN, SERVED_GRID, Params, evaluate, realisation

SPM = 2_629_800.0
HPM = 730.5  # hours a month


# ------------------------------------------------------------------------------ stage grid


def test_the_stage_grid_by_hand():
    # ceil(2^(j/4)), j = 0, 1, ...: 1, 2, 2, 2, 2, 3, 3, 4, 4, 5, 6, 7, 8, 10, 12, 14, 16, 20, 23
    np.testing.assert_array_equal(physics.stage_grid(3, 16), [3, 4, 5, 6, 7, 8, 10, 12, 14, 16])
    np.testing.assert_array_equal(physics.stage_grid(1, 8), [1, 2, 3, 4, 5, 6, 7, 8])
    np.testing.assert_array_equal(physics.stage_grid(17, 23), [20, 23])
    # the grid does not move with k_min: a smaller k_min only adds candidates
    assert set(physics.stage_grid(3, 16)) <= set(physics.stage_grid(2, 16))


def test_a_larger_stage_cap_never_lowers_the_envelope(base):
    m, c = tables.served_model(base), tables.chip(base, "wse3")
    speeds = np.array([54.0, 134.0, 340.0, 750.0, 1500.0])
    _, k_min = physics.layout(m, c)
    low = physics.envelope(speeds, m, c, 1.2, k_cap=k_min).throughput
    high = physics.envelope(speeds, m, c, 1.2, k_cap=16 * k_min).throughput
    assert np.all(high >= low) and np.any(high > low)


# ------------------------------------------------------------------------ realisation factor


def _eta(a: econ.Assumptions, platform: str) -> float:
    return float(realisation(Params(a), platform)[0])


def _env(a: econ.Assumptions, platform: str, point: str) -> float:
    """The measured model's envelope at a frontier point's speed on the base hardware."""
    from econ.model import measured_model

    s = a.num(f"frontier.{point}.tokens_per_s_per_user")
    model = measured_model(a, str(a.values[f"frontier.{point}.model"]))
    return float(
        physics.envelope(
            s, model, tables.chip(a, platform), a.num("facility.pue")
        ).throughput.item()
    )


def test_the_realisation_factor_is_the_geometric_mean_over_sourced_points(base, tmp_path):
    # bundled: wse3's one sourced point (the articles' 450,000 tokens/s at 750) sets it alone;
    # b300's (340 tokens/s, measured on DeepSeek-R1 FP4) its own; h100 names no model: 1
    assert _eta(base, "wse3") == pytest.approx(450_000 / _env(base, "wse3", "wse3_750"), rel=1e-12)
    assert _eta(base, "b300") == pytest.approx(450_000 / _env(base, "b300", "b300_340"), rel=1e-12)
    assert _eta(base, "h100") == 1.0
    # a second sourced point: the geometric mean of the two ratios
    dest = tmp_path / "data"
    shutil.copytree(DATA, dest)
    path = dest / "frontier.csv"
    path.write_text(
        path.read_text().replace(
            "wse3_1500,wse3,1500,250000,gpt56_sol,Guesstimate",
            "wse3_1500,wse3,1500,250000,gpt56_sol,Test",
        )
    )
    a = econ.load(dest)
    r750 = 450_000 / _env(a, "wse3", "wse3_750")
    r1500 = 250_000 / _env(a, "wse3", "wse3_1500")
    assert _eta(a, "wse3") == pytest.approx(np.sqrt(r750 * r1500), rel=1e-12)


def test_the_realisation_factor_is_capped_at_one(data_copy):
    # ten times the articles' figure on the served model: above its envelope, capped at 1
    path = data_copy / "frontier.csv"
    text = path.read_text()
    for point, old, new in (
        ("wse3_54", "700000", "9000000"),
        ("wse3_134", "650000", "8000000"),
        ("wse3_340", "560000", "7000000"),
        ("wse3_750", "450000", "4500000"),
    ):
        text = text.replace(f"{point},wse3,{point[5:]},{old},", f"{point},wse3,{point[5:]},{new},")
    path.write_text(text)
    a = econ.load(data_copy)
    assert 4_500_000 / _env(a, "wse3", "wse3_750") > 1
    assert _eta(a, "wse3") == 1.0


def test_the_transferred_basis_is_eta_times_scale_times_the_envelope(base):
    # at the served 750 tokens/s on wse3 the transferred basis gives back the articles' figure
    # (the one sourced point is on the served model), and frontier_scale multiplies it
    r = evaluate(base, {"hardware.wse3.frontier_scale": np.array([1.0, 1.5])}, served=1.0)
    np.testing.assert_allclose(r.throughput_per_mw, [450_000, 675_000], rtol=1e-12)
    env54 = float(
        physics.envelope(
            54.0,
            tables.served_model(base),
            tables.chip(base, "wse3"),
            1.2,
            k_cap=16 * physics.layout(tables.served_model(base), tables.chip(base, "wse3"))[1],
        ).throughput.item()
    )
    assert r.throughput_per_mw_standard[0] == pytest.approx(_eta(base, "wse3") * env54, rel=1e-12)


# ----------------------------------------------------------------------------- served speeds


def test_served_speeds_from_the_grid_by_hand(base):
    # wse3's ceiling for the served model is 1,866.5 tokens/s: 0.9 x 1,866.5 = 1,679.9. An
    # ultrafast tier of 1,900: 1,900 x 0.9 = 1,710 is above, 1,900 x 0.8 = 1,520 below; one of
    # 4,000 has no grid speed below it (x 0.5 = 2,000): not offered, no API tokens, no streams.
    # b300's ceiling is 252.3 (0.9 x = 227.0): a fast tier of 300 is served at 300 x 0.7 = 210.
    r = evaluate(
        base,
        {
            "tiers.ultrafast.tokens_per_s": np.array([1900.0, 4000.0]),
            "tiers.fast.tokens_per_s": np.array([300.0, 134.0]),
        },
        served=1.0,
    )
    assert r.ceiling_contract[0] == pytest.approx(1866.50, abs=0.01)
    assert r.ceiling_gpu[0] == pytest.approx(252.27, abs=0.01)
    np.testing.assert_array_equal(r.served_tokens_per_s_ultrafast[:1], [1520.0])
    assert r.served_multiplier[0] == 0.8 and np.isnan(r.served_multiplier[1])
    np.testing.assert_array_equal(r.served_tokens_per_s_fast, [210.0, 134.0])
    assert r.api_tokens_served[1].sum() == 0 and r.mw_subscriber[1].sum() == 0
    assert r.api_tokens_served[0].sum() > 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    u=st.floats(300, 5000),
    f=st.floats(60, 600),
    basis=st.sampled_from(["transferred", "physics"]),
    spec=st.floats(1, 3),
)
def test_served_speeds_lie_on_the_grid_below_ninety_percent_of_the_ceiling(u, f, basis, spec):
    a = BASE.with_overrides([("capacity.basis", basis)])
    over = {
        "tiers.ultrafast.tokens_per_s": np.array([max(u, f)]),
        "tiers.fast.tokens_per_s": np.array([f]),
        "model.speculative_speedup": np.array([spec]),
    }
    r = evaluate(a, over, detail=False)
    m = r.served_multiplier[0]
    if np.isnan(m):  # not offered: no grid speed fits
        assert max(u, f) * min(SERVED_GRID) > CEILING_MARGIN * r.ceiling_contract[0]
        assert r.api_tokens_served.sum() == 0
    else:
        assert m in SERVED_GRID
        assert r.served_tokens_per_s_ultrafast[0] == max(u, f) * m
        assert r.served_tokens_per_s_ultrafast[0] <= CEILING_MARGIN * r.ceiling_contract[0] * (
            1 + 1e-12
        )
    for tier, speed in (("standard", 54.0), ("fast", f)):
        served = getattr(r, f"served_tokens_per_s_{tier}")[0]
        assert served <= CEILING_MARGIN * r.ceiling_gpu[0] * (1 + 1e-12)
        if speed * min(SERVED_GRID) <= CEILING_MARGIN * r.ceiling_gpu[0]:
            # the fastest grid speed that fits
            fits = [x for x in SERVED_GRID if speed * x <= CEILING_MARGIN * r.ceiling_gpu[0]]
            assert served == pytest.approx(speed * max(fits), rel=1e-15)


BASE = econ.load(DATA)


def test_the_served_speed_maximises_the_npv_among_feasible_grid_speeds(base):
    a = base.with_overrides([("capacity.basis", "physics")])
    r = evaluate(a)
    npvs = [evaluate(a, served=m).npv[0] for m in SERVED_GRID]
    assert r.npv[0] == pytest.approx(max(npvs), rel=1e-12)
    assert r.served_multiplier[0] == SERVED_GRID[int(np.argmax(npvs))]


# ------------------------------------------------------------------------ GPU cost per tier


def test_the_gpu_cost_per_tier_from_the_hourly_rent_by_hand(base):
    # transferred basis: b300 at 4 USD an hour, 1.9 kW a GPU, PUE 1.2 costs 4 x 730.5 x 1000 /
    # (1.9 x 1.2) = 1,281,579 USD per facility MW-month; standard (54) and fast (134) are
    # served at their speeds (<= 0.9 x 252.3); Thr = eta_b300 x the envelope there; a fleet
    # 60 % busy: g$_i = per_mw / (Thr_i x SPM x 0.6) x 1e6
    per_mw = 4 * HPM * 1000 / (1.9 * 1.2)
    assert per_mw == pytest.approx(1_281_578.95, abs=0.01)
    m, c = tables.served_model(base), tables.chip(base, "b300")
    k_cap = 16 * physics.layout(m, c)[1]
    eta = _eta(base, "b300")
    r = evaluate(base)
    for tier, s in (("standard", 54.0), ("fast", 134.0)):
        thr = eta * float(physics.envelope(s, m, c, 1.2, k_cap=k_cap).throughput.item())
        want = per_mw / (thr * SPM * 0.6) * 1e6
        assert getattr(r, f"gpu_cost_{tier}")[0] == pytest.approx(want, rel=1e-12), tier
    # the public gross margin bounds it: at 100 times the rent the cost is (1 - 0.7) x the list
    # price, 0.3 x 30 = 9 and 0.3 x 60 = 18 USD per 1M tokens
    r = evaluate(base.with_overrides([("hardware.b300.rent_usd_per_hour", "400")]))
    assert (r.gpu_cost_standard[0], r.gpu_cost_fast[0]) == pytest.approx((9.0, 18.0), rel=1e-15)


# ------------------------------------------------------------------- calibration guards (0.1)


def test_guard_the_gpu_ceiling_is_at_least_1_2_times_the_fast_tier(base):
    r = evaluate(base)
    assert r.ceiling_gpu[0] >= 1.2 * base.num("tiers.fast.tokens_per_s")


def test_guard_the_standard_gpu_cost_is_within_the_public_gross_margin(base):
    # the cost as derived (the margin's bound lifted: margin 0), against (1 - 0.7) x 30 = 9
    bound = (1 - base.num("finance.api_gross_margin")) * base.num(
        "tiers.standard.price_per_mtok_usd"
    )
    assert bound == pytest.approx(9.0)
    r = evaluate(base.with_overrides([("finance.api_gross_margin", "0")]))
    assert r.gpu_cost_standard[0] <= bound


def test_guard_the_published_750_tokens_per_s_is_reachable_on_wse3(base):
    # 'Previewing Ultrafast': up to 750 output tokens a second on Cerebras: within 0.9 x the
    # ceiling (served at its speed) with positive throughput, on the bases that use physics
    for basis in ("transferred", "physics"):
        r = evaluate(base.with_overrides([("capacity.basis", basis)]))
        assert r.ceiling_contract[0] * CEILING_MARGIN >= 750
        assert r.served_tokens_per_s_ultrafast[0] == 750 and r.throughput_per_mw[0] > 0
