"""Capacity and physics against the source articles' figures and analytic facts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.interpolate import PchipInterpolator

from econ.compute import capacity as cap
from econ.compute import tables


def test_one_mw_of_b300_at_340_serves_1324_users(base):
    xs, ys = tables.frontier_points(base, "b300")
    thr = cap.throughput_per_mw(340, xs, ys, "b300")
    users = cap.users_per_mw(thr, 340)
    assert users == pytest.approx(
        1323.5, abs=0.05
    )  # seed 002: "approximately 1,324 concurrent active users"
    assert round(float(users)) == 1324


def test_wse3_at_750_serves_600_users_per_mw(base):
    xs, ys = tables.frontier_points(base, "wse3")
    assert cap.users_per_mw(cap.throughput_per_mw(750, xs, ys), 750) == pytest.approx(
        600
    )  # seed 002: "just ~600"


def test_2t_parameters_at_16_bits_need_14_b300_and_91_wse3():
    # seed 002: "you'd only need 14 B300 NVIDIA chips ... versus 90 WSE3" (4 TB / 44 GB = 90.9 -> 91)
    assert cap.chips_per_replica(2e12, 2, 288) == 14
    assert cap.chips_per_replica(2e12, 2, 44) == 91
    assert cap.chips_per_replica(np.array([2e12, 4e12]), 2, 288).tolist() == [14, 28]


def test_chips_exactly_filling_memory_do_not_round_up():
    assert cap.chips_per_replica(1e12, 1, 100) == 10


def test_b300_roofline_for_dense_2t_at_16_bits_is_28_tokens_per_s():
    # 14 chips x 8 TB/s / (2e12 x 2 bytes) = 112e12 / 4e12
    assert cap.decode_ceiling(14, 8, 2e12, 1.0, 2) == pytest.approx(28.0)
    # mixture of experts with a quarter of the weights active: four times the ceiling
    assert cap.decode_ceiling(14, 8, 2e12, 0.25, 2) == pytest.approx(112.0)


def test_audit_flags_claims_above_the_ceiling(base):
    audit = tables.audit_table(base)
    row = audit[(audit.tier == "ultrafast") & (audit.platform == "b300")].iloc[0]
    assert row.claim_over_ceiling == pytest.approx(750 / 28)
    assert row.verdict.startswith("exceeds the ceiling 26.8x")
    assert (
        audit[(audit.tier == "ultrafast") & (audit.platform == "wse3")].iloc[0].verdict
        == "plausible"
    )


def test_agent_task_time_of_ten_calls():
    # seed 004: 10 sequential calls of 100 tokens; at 50 tokens/s each takes 2 s of decoding -> 20 s
    med, p99 = cap.agent_task_time(10, 100, 50, 0.0, 2.5)
    assert med == pytest.approx(20.0) and p99 == pytest.approx(50.0)
    med, _ = cap.agent_task_time(10, 100, np.array([750.0, 54.0]), 0.5, 2.5)
    np.testing.assert_allclose(med, [10 * (0.5 + 100 / 750), 10 * (0.5 + 100 / 54)])


def test_interpolation_matches_scipy_pchip_in_log_space(base):
    xs, ys = tables.frontier_points(base, "b300")
    s = np.geomspace(xs.min(), xs.max(), 57)
    ref = np.exp(PchipInterpolator(np.log(xs), np.log(ys))(np.log(s)))
    np.testing.assert_allclose(cap.throughput_per_mw(s, xs, ys), ref, rtol=1e-12)


def test_interpolation_vectorised_over_scenario_points(base):
    xs, ys = tables.frontier_points(base, "wse3")
    y2 = np.vstack([ys, ys * 2])
    out = cap.throughput_per_mw(np.array([200.0, 200.0]), xs, y2)
    assert out[1] == pytest.approx(2 * out[0])


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
    xs, ys = tables.frontier_points(base, "h100")
    with pytest.raises(
        cap.FrontierRangeError,
        match=r"h100: 750 tokens/s/user is outside its frontier points \(20 to 340 tokens/s\)",
    ):
        cap.throughput_per_mw(750, xs, ys, "h100")


def test_single_point_is_used_only_at_its_speed():
    assert cap.throughput_per_mw(750, [750], [450_000]) == 450_000
    with pytest.raises(
        cap.FrontierRangeError,
        match=r"wse9: 700 tokens/s/user is outside its frontier points \(750 tokens/s only\)",
    ):
        cap.throughput_per_mw(700, [750], [450_000], "wse9")


def test_contract_streams_ramp_then_stop_after_the_term():
    c = cap.contract_streams(
        mw=750, ramp_months=6, term_months=30, throughput=450_000, speed=750, horizon=36
    )
    assert c.shape == (1, 36)
    assert c[0, 0] == pytest.approx(750 * 600 / 6)  # month 1: a sixth of the MW online
    assert c[0, 5] == pytest.approx(450_000) and c[0, 29] == pytest.approx(450_000)
    assert c[0, 30] == 0 and c[0, 35] == 0
    c2 = cap.contract_streams(
        np.array([750.0, 375.0]), 0, 30, 450_000, 750, 36
    )  # ramp 0: all online at once
    assert c2[:, 0].tolist() == pytest.approx([450_000, 225_000])


def test_capacity_table_has_every_platform_and_tier(base):
    df = tables.capacity_table(base)
    assert set(df.platform) == {"b300", "wse3", "h100", "groq_lpu"}
    assert list(df.columns[:3]) == ["platform", "tier", "tokens_per_s_per_user"]
    h100_ultra = df[(df.platform == "h100") & (df.tier == "ultrafast")].iloc[0]
    assert np.isnan(
        h100_ultra.tokens_per_s_per_mw
    )  # outside the H100 curve: unknown, not extrapolated
