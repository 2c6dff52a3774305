"""The data frontier and the capacity table against the source articles' figures and analytic facts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.interpolate import PchipInterpolator

from econ.assumptions import AssumptionError
from econ.compute import capacity as cap
from econ.compute import tables


def _points(a, platform):
    xs, ys = a.frontier_points(platform)
    return np.array(xs), np.array(ys)


def test_one_mw_of_b300_at_340_serves_1324_users(base):
    # GPT-5.6 Inference at 18x Speed: "roughly 450,000 tokens/s ... approximately 1,324 concurrent users"
    df = tables.capacity_table(base, speeds=[340])
    row = df[(df.platform == "b300") & (df.tokens_per_s_per_user == 340)].iloc[0]
    assert row.concurrent_users_per_mw == pytest.approx(1323.5, abs=0.05)


def test_wse3_at_750_serves_600_users_per_mw(base):
    # the same article: the same 450,000 tokens/s at 750 tokens/s each leaves "just ~600" users
    xs, ys = _points(base, "wse3")
    assert cap.users_per_mw(cap.throughput_per_mw(750, xs, ys), 750) == pytest.approx(600)


def test_agent_task_time_of_ten_calls():
    # Trust Is a Variable...: 10 sequential calls of 100 tokens; at 50 tokens/s, 2 s each -> 20 s
    med, p99 = cap.agent_task_time(10, 100, 50, 0.0, 2.5)
    assert med == pytest.approx(20.0) and p99 == pytest.approx(50.0)
    med, _ = cap.agent_task_time(10, 100, np.array([750.0, 54.0]), 0.5, 2.5)
    np.testing.assert_allclose(med, [10 * (0.5 + 100 / 750), 10 * (0.5 + 100 / 54)])


def test_interpolation_matches_scipy_pchip_in_log_space(base):
    xs, ys = _points(base, "b300")
    s = np.geomspace(xs.min(), xs.max(), 57)
    ref = np.exp(PchipInterpolator(np.log(xs), np.log(ys))(np.log(s)))
    np.testing.assert_allclose(cap.throughput_per_mw(s, xs, ys), ref, rtol=1e-12)


def test_interpolation_broadcasts_speeds_scales_and_scenario_points(base):
    xs, ys = _points(base, "wse3")
    # an array of speeds against one curve (version 1 broadcast this wrongly)
    out = cap.throughput_per_mw(np.array([340.0, 750.0, 1500.0]), xs, ys[None, :])
    np.testing.assert_allclose(out, [560_000, 450_000, 250_000], rtol=1e-12)
    # the scale multiplies the whole curve; per-scenario points too
    np.testing.assert_allclose(
        cap.throughput_per_mw(750, xs, ys, np.array([1.0, 0.1])), [450_000, 45_000]
    )
    two = cap.throughput_per_mw(np.array([200.0, 200.0]), xs, np.vstack([ys, 2 * ys]))
    assert two[1] == pytest.approx(2 * two[0])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(1.0, 5000.0), min_size=2, max_size=7, unique=True),
    st.lists(st.floats(1e3, 1e7), min_size=7, max_size=7),
)
def test_interpolation_is_monotone_and_exact_at_points(speeds, thr):
    xs = np.sort(np.array(speeds))
    ys = np.sort(np.array(thr[: len(xs)]))[::-1]  # throughput falls as speed rises
    np.testing.assert_allclose(cap.throughput_per_mw(xs, xs, ys), ys, rtol=1e-9)
    grid = np.geomspace(xs[0], xs[-1], 200)
    vals = cap.throughput_per_mw(grid, xs, ys)
    assert np.all(np.diff(vals) <= 1e-9 * vals[:-1])


def test_speed_outside_the_frontier_is_an_error_naming_platform_and_range(base):
    xs, ys = _points(base, "h100")
    with pytest.raises(
        cap.FrontierRangeError,
        match=r"h100: 750 tokens/s/user is outside its frontier points \(20 to 340 tokens/s\)",
    ):
        cap.throughput_per_mw(750, xs, ys, platform="h100")


def test_single_point_is_used_only_at_its_speed():
    assert cap.throughput_per_mw(750, [750], [450_000]) == 450_000
    with pytest.raises(
        cap.FrontierRangeError,
        match=r"wse9: 700 tokens/s/user is outside its frontier points \(750 tokens/s only\)",
    ):
        cap.throughput_per_mw(700, [750], [450_000], platform="wse9")


def test_one_function_answers_whether_a_curve_covers_a_speed(base):
    assert cap.covers([54, 750], 54) and cap.covers([54, 750], 750)
    assert not cap.covers([54, 750], 53.9) and not cap.covers([54, 750], 751)
    assert cap.covers([54, 750], 750 * (1 + 1e-12))  # rounding of a typed speed
    np.testing.assert_array_equal(cap.covers([54, 750], np.array([10.0, 100.0])), [False, True])
    assert base.covers("wse3", 1500) and not base.covers("h100", 750)


def test_capacity_comes_online_then_stops_after_the_term():
    t = np.arange(1, 37, dtype=float)[:, None]
    share = cap.online_share(t, 6.0, 30.0)[:, 0]
    assert share[0] == pytest.approx(1 / 6) and share[5] == 1 and share[29] == 1
    assert share[30] == 0 and share[35] == 0
    assert cap.online_share(t, 0.0, 30.0)[0, 0] == 1  # ramp 0: everything online at once
    # C_t = Thr x MW_t / s: 750 MW at 450,000 tokens/s per MW and 750 tokens/s -> 450,000 streams
    assert cap.streams(750.0, 450_000, 750) == pytest.approx(450_000)


def test_capacity_table_has_every_platform_and_speed(base):
    df = tables.capacity_table(base, speeds=[340, 1000])
    assert set(df.platform) == {"b300", "wse3", "h100", "groq_lpu"}
    assert len(df) == 4 * 5  # three tiers and two speeds asked for
    h100_ultra = df[(df.platform == "h100") & (df.tier == "ultrafast")].iloc[0]
    assert np.isnan(
        h100_ultra.tokens_per_s_per_mw
    )  # outside the H100 curve: unknown, not extrapolated


def test_a_frontier_whose_throughput_rises_with_speed_is_an_error_naming_both_rows(data_copy):
    p = data_copy / "frontier.csv"
    p.write_text(p.read_text().replace("wse3_1500,wse3,1500,250000", "wse3_1500,wse3,1500,500000"))
    with pytest.raises(
        AssumptionError,
        match=r"frontier\.csv row 11, column tokens_per_s_per_mw \(frontier\.wse3_1500\.tokens_per_s_per_mw\): "
        r"500000 tokens/s/MW at 1500 tokens/s/user is more than .*frontier\.csv row 10.*wse3_750.*450000",
    ):
        from econ import load

        load(data_copy)


def test_two_points_at_one_speed_are_an_error_naming_both(data_copy):
    p = data_copy / "frontier.csv"
    p.write_text(p.read_text().replace("wse3_1500,wse3,1500,", "wse3_1500,wse3,750,"))
    from econ import load

    with pytest.raises(
        AssumptionError, match=r"two points at 750 tokens/s/user \(wse3_750 and wse3_1500\)"
    ):
        load(data_copy)


def test_a_frontier_point_cannot_be_varied_by_the_sensitivity_engine(data_copy):
    p = data_copy / "sensitivity.csv"
    p.write_text(
        p.read_text() + "frontier.wse3_750.tokens_per_s_per_mw,pert,30000,500000,a point\n"
    )
    from econ import load

    with pytest.raises(
        AssumptionError, match=r"one point of a curve.*hardware\.wse3\.frontier_scale"
    ):
        load(data_copy)
