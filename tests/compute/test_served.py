"""One served model on every platform (docs/model.md, sections 0.1, V4.3 and V4.4): the stage
grid, the realisation factor by serving regime, the served speeds, the value of a token
crossing the GPU-fleet boundary per tier and the calibration guards."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import reference_model
from conftest import DATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import econ
from econ.compute import physics, tables, transfer
from econ.model import CEILING_MARGIN, SERVED_GRID, evaluate

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


def _env(a: econ.Assumptions, platform: str, point: str) -> tuple[float, float]:
    """(envelope, ceiling) of the measured model of a frontier point at its speed on the base
    hardware."""
    s = a.num(f"frontier.{point}.tokens_per_s_per_user")
    model = transfer.measured_model(a, str(a.values[f"frontier.{point}.model"]))
    k_cap = transfer.stage_cap(a, platform)
    env = physics.envelope(s, model, tables.chip(a, platform), a.num("facility.pue"), k_cap=k_cap)
    return float(env.throughput.item()), float(env.ceiling.item())


def _point(a: econ.Assumptions, platform: str, point: str) -> tuple[float, float]:
    """(x_i, eta_i) of a sourced point (section V4.4): x_i = s_i / ceiling(measured model, base
    hardware), eta_i = Thr_data(s_i) / Env_measured(s_i)."""
    env, ceil = _env(a, platform, point)
    s = a.num(f"frontier.{point}.tokens_per_s_per_user")
    return s / ceil, a.num(f"frontier.{point}.tokens_per_s_per_mw") / env


def test_the_realisation_factor_by_regime_on_the_bundled_data(base):
    # wse3: one sourced point (the articles' 450,000 tokens/s at 750, on the served model): one
    # factor at every regime. h100: one (DeepSeek's disclosed day at 20 tokens/s). groq_lpu:
    # none (every point a Guesstimate): eta = 1, physics. b300: three sourced points (InferenceX
    # at 71 and 128 tokens/s, the NVIDIA chart at 340), linear in x between them, flat outside.
    xs = np.array([0.001, 0.05, 0.3, 0.7, 1.0])
    x750, e750 = _point(base, "wse3", "wse3_750")
    assert e750 == pytest.approx(450_000 / _env(base, "wse3", "wse3_750")[0], rel=1e-15)
    np.testing.assert_allclose(transfer.realisation(base, "wse3")(xs), e750, rtol=1e-12)
    _, e20 = _point(base, "h100", "h100_20")
    np.testing.assert_allclose(transfer.realisation(base, "h100")(xs), e20, rtol=1e-12)
    groq = transfer.realisation(base, "groq_lpu")
    assert not groq.measured
    np.testing.assert_array_equal(groq(xs), 1.0)
    pts = [_point(base, "b300", i) for i in ("b300_71", "b300_128", "b300_340")]
    (x1, e1), (x2, e2), (x3, e3) = sorted(pts)
    eta = transfer.realisation(base, "b300")
    got = eta(np.array([x1 / 2, x1, (x1 + x2) / 2, x2, 0.25 * x2 + 0.75 * x3, x3, 0.95]))
    want = [e1, e1, (e1 + e2) / 2, e2, 0.25 * e2 + 0.75 * e3, e3, e3]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # the same points as the reference model finds them
    ref = reference_model.realisation_points(reference_model.bundled(), "b300")
    np.testing.assert_allclose(np.array(ref), np.array(sorted(pts)), rtol=1e-12)


def test_a_second_sourced_point_makes_the_factor_linear_between_them(base, tmp_path):
    # wse3_1500 marked sourced: two regimes, x750 and x1500 (the same measured model, so
    # x1500 = 2 x750); eta is linear in x between them and flat outside
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
    (x1, e1), (x2, e2) = _point(a, "wse3", "wse3_750"), _point(a, "wse3", "wse3_1500")
    assert x2 == pytest.approx(2 * x1, rel=1e-12) and e2 != e1
    eta = transfer.realisation(a, "wse3")
    got = eta(np.array([x1 / 2, x1, 1.5 * x1, x2, 0.99]))
    np.testing.assert_allclose(got, [e1, e1, (e1 + e2) / 2, e2, e2], rtol=1e-12)
    assert eta.non_increasing == (e2 <= e1)


def test_the_realisation_factor_is_capped_at_one(data_copy):
    # ten times the articles' figure on the served model: above its envelope, capped at 1 (the
    # Guesstimates at slower speeds raised with it so that the curve does not rise with speed)
    path = data_copy / "frontier.csv"
    text = path.read_text()
    for point, old, new in (
        ("wse3_54", "612000", "9000000"),
        ("wse3_134", "612000", "8000000"),
        ("wse3_340", "560000", "7000000"),
        ("wse3_750", "450000", "4500000"),
    ):
        text = text.replace(f"{point},wse3,{point[5:]},{old},", f"{point},wse3,{point[5:]},{new},")
    path.write_text(text)
    a = econ.load(data_copy)
    raw = 4_500_000 / _env(a, "wse3", "wse3_750")[0]
    assert raw > 1
    eta = transfer.realisation(a, "wse3")
    assert float(eta(0.4)) == 1.0 and float(eta.raw(0.4)) == pytest.approx(raw, rel=1e-12)
    # the run reports where the cap binds
    assert evaluate(a).realisation_capped[0] == 1


def test_the_transferred_basis_is_eta_times_scale_times_the_envelope(base):
    # at the served 750 tokens/s on wse3 the transferred basis gives back the articles' figure
    # (the one sourced point is on the served model), and frontier_scale multiplies it; at the
    # standard tier's 54 tokens/s the same factor (one point: flat in x) times the envelope there
    r = evaluate(base, {"hardware.wse3.frontier_scale": np.array([1.0, 1.5])}, served=1.0)
    np.testing.assert_allclose(r.throughput_per_mw, [450_000, 675_000], rtol=1e-12)
    m, c = tables.served_model(base), tables.chip(base, "wse3")
    env54 = float(
        physics.envelope(54.0, m, c, 1.2, k_cap=16 * physics.layout(m, c)[1]).throughput.item()
    )
    eta = _point(base, "wse3", "wse3_750")[1]
    assert r.throughput_per_mw_standard[0] == pytest.approx(eta * env54, rel=1e-12)
    # section V4.5: a slower user is never served with less throughput (version 3: 244,166 at
    # 54 against 450,000 at 750)
    assert r.throughput_per_mw_standard[0] >= r.throughput_per_mw[0] * (1 - 1e-12)


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


def test_the_value_of_a_freed_gpu_hour_by_hand(base):
    # section V4.3 with the bundled b300: rent r_m 3.96 USD a GPU-hour, 1.9 kW a GPU, PUE 1.2,
    # power at 0.086 USD/kWh: e = 1.9 x 1.2 x 0.086 = 0.19608 USD a GPU-hour; a = 0.5, sublet 0:
    # lambda = 0.5 x 3.96 + 0.5 x (0 + 0.19608) = 2.07804 USD a GPU-hour
    r = evaluate(base)
    assert r.gpu_energy_per_hour[0] == pytest.approx(0.19608, rel=1e-12)
    assert r.gpu_hour_value[0] == pytest.approx(2.07804, rel=1e-12)
    # one freed hour replaces an added one (a = 1): lambda = r_m; none does (a = 0): e + sublet
    r = evaluate(
        base,
        {
            "fleet.avoidable_share": np.array([1.0, 0.0, 0.0]),
            "fleet.sublet_usd_per_gpu_hour": np.array([0.0, 0.0, 1.0]),
        },
    )
    np.testing.assert_allclose(r.gpu_hour_value, [3.96, 0.19608, 1.19608], rtol=1e-12)


def test_the_value_of_a_token_per_tier_by_hand(base):
    # v_i = lambda x h_i / u_ops, h_i = 1e6 / (Thr_i x 3600 / GPUs per facility MW) GPU-hours
    # per 1M tokens; GPUs per facility MW = 1000 / (1.9 x 1.2) = 438.6; standard (54) and fast
    # (134) served at their speeds (<= 0.9 x 252.3); Thr_i the transferred b300 throughput there
    # (the reference model's); u_ops 0.85; lambda 2.07804 (above)
    v = reference_model.bundled()
    thr = reference_model.Capacity(v, v, "b300", "transferred").thr
    gpus = 1000 / (1.9 * 1.2)
    r = evaluate(base)
    for tier, s in (("standard", 54.0), ("fast", 134.0)):
        h = 1e6 * gpus / (thr(s) * 3600)
        assert getattr(r, f"gpu_hours_{tier}")[0] == pytest.approx(h, rel=1e-12), tier
        assert getattr(r, f"gpu_cost_{tier}")[0] == pytest.approx(2.07804 * h / 0.85, rel=1e-12)


def test_the_value_of_a_token_is_clamped_only_at_its_list_price(base):
    # the margin bound (1 - 0.7) x 30 = 9 is a check, not a clamp (section V4.3): at a rent of
    # 12 USD, lambda = 6 + 0.09804 = 6.09804 and v_std = 6.09804 x h_std / 0.85, above 9 and
    # below the 30 USD list price, is kept; at 396 USD (100 x the rent) both tiers are clamped at
    # their list prices, 30 and 60
    v = reference_model.bundled()
    h_std = (
        1e6
        * (1000 / (1.9 * 1.2))
        / (reference_model.Capacity(v, v, "b300", "transferred").thr(54.0) * 3600)
    )
    r = evaluate(base, {"hardware.b300.rent_usd_per_hour": np.array([12.0, 396.0])})
    want = 6.09804 * h_std / 0.85
    assert 9 < want < 30
    assert r.gpu_cost_standard[0] == pytest.approx(want, rel=1e-12)
    assert r.margin_bound_standard[0] == pytest.approx(9.0, rel=1e-15)
    assert (r.gpu_cost_standard[1], r.gpu_cost_fast[1]) == (30.0, 60.0)
    np.testing.assert_array_equal(r.gpu_cost_clamped, [0.0, 1.0])


# ------------------------------------------------------------------- calibration guards (0.1)


def test_guard_the_gpu_ceiling_is_at_least_1_2_times_the_fast_tier(base):
    r = evaluate(base)
    assert r.ceiling_gpu[0] >= 1.2 * base.num("tiers.fast.tokens_per_s")


def test_guard_the_standard_gpu_cost_is_within_the_public_gross_margin(base):
    # the value as derived (no clamp binds), against (1 - 0.7) x 30 = 9 (a check: section V4.3)
    bound = (1 - base.num("finance.api_gross_margin")) * base.num(
        "tiers.standard.price_per_mtok_usd"
    )
    assert bound == pytest.approx(9.0)
    r = evaluate(base)
    assert r.gpu_cost_clamped[0] == 0
    assert r.gpu_cost_unclamped_standard[0] <= bound


def test_guard_the_published_750_tokens_per_s_is_reachable_on_wse3(base):
    # 'Previewing Ultrafast': up to 750 output tokens a second on Cerebras: within 0.9 x the
    # ceiling (served at its speed) with positive throughput, on the bases that use physics
    for basis in ("transferred", "physics"):
        r = evaluate(base.with_overrides([("capacity.basis", basis)]))
        assert r.ceiling_contract[0] * CEILING_MARGIN >= 750
        assert r.served_tokens_per_s_ultrafast[0] == 750 and r.throughput_per_mw[0] > 0
