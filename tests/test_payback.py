"""NPV, IRR and payback against published examples and analytic cases."""

from __future__ import annotations

import numpy as np
import numpy_financial as npf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from econ.payback import annualise, goal_seek, irr, irr_trace, irr_unique, mirr, payback_month


def _npv(rate, flows):
    """Flows at the end of periods 1..n at a per-period rate (the test's own oracle)."""
    flows = np.asarray(flows, float)
    return float(np.sum(flows * (1 + rate) ** -np.arange(1, flows.size + 1)))


def test_irr_published_examples():
    # Excel IRR documentation and numpy-financial: -70000, 12000, 15000, 18000, 21000, 26000 -> 8.66 %
    assert irr(np.array([-70000, 12000, 15000, 18000, 21000, 26000.0])) == pytest.approx(
        0.0866309, abs=1e-7
    )
    # Excel: the first four years: -2.12 %
    assert irr(np.array([-70000, 12000, 15000, 18000, 21000.0])) == pytest.approx(
        -0.021245, abs=1e-6
    )
    # numpy-financial docs: irr([-100, 39, 59, 55, 20]) = 0.28095
    assert irr(np.array([-100, 39, 59, 55, 20.0])) == pytest.approx(0.28094842, abs=1e-8)


def test_irr_vectorised_matches_numpy_financial_row_by_row():
    rng = np.random.default_rng(7)
    flows = rng.normal(1.0, 2.0, size=(300, 36))
    flows[:, 0] -= 20
    ours = irr(flows, unique_only=False)
    ref = np.array([npf.irr(np.r_[0.0, f]) for f in flows])  # a zero at t=0 puts flows at t=1..n
    both = np.isfinite(ref) & np.isfinite(ours)
    assert both.sum() > 100
    np.testing.assert_allclose(ours[both], ref[both], atol=1e-9)


def test_irr_is_nan_without_a_sign_change():
    out = irr(np.array([[1.0, 2, 3], [-1.0, -2, -3], [0.0, 0, 0]]))
    assert np.isnan(out).all()


def test_irr_picks_the_root_nearest_zero():
    # (1+x)^-1 polynomial with roots at x = 0.1 and x = 0.5: -1 at t=0 shifted to t=1..3
    # sum c_t v^t = v(-1 + 2.6v... ) built from (1 - 1.1 v)(1 - 1.5 v) = 1 - 2.6 v + 1.65 v^2
    flows = np.array([1.0, -2.6, 1.65])
    assert irr(flows, unique_only=False) == pytest.approx(0.1, abs=1e-10)
    assert np.isnan(irr(flows))  # two roots: no meaningful IRR


@settings(max_examples=80, deadline=None)
@given(st.lists(st.floats(-100, 100), min_size=3, max_size=36), st.floats(50, 500))
def test_npv_at_the_irr_is_zero(tail, outlay):
    flows = np.array([-outlay, *tail])
    x = irr(flows, unique_only=False)
    if np.isfinite(x):
        # zero relative to the size of the discounted terms (large where x is near -100 %)
        scale = _npv(x, np.abs(flows))
        assert _npv(x, flows) == pytest.approx(0.0, abs=1e-9 * scale)


def test_annualise():
    assert annualise(0.01) == pytest.approx(1.01**12 - 1)


def test_payback_interpolates_linearly():
    # K: -100, -60, -20, +20 -> crosses in month 4 at 3 + 20/40
    assert payback_month(np.array([-100.0, 40, 40, 40, 40])) == pytest.approx(3.5)


@settings(max_examples=60, deadline=None)
@given(st.floats(1, 1e6), st.floats(0.01, 1e5), st.integers(2, 40))
def test_payback_exact_on_a_linear_case(outlay, inflow, horizon):
    flows = np.r_[-outlay, np.full(horizon - 1, inflow)]
    pb = payback_month(flows)[0]
    exact = 1 + outlay / inflow  # K_t = -outlay + (t - 1) inflow = 0
    if exact <= horizon:
        assert pb == pytest.approx(exact, rel=1e-12)
    else:
        assert np.isnan(pb)


def test_no_payback_is_nan():
    flows = np.array([[-100.0, 10, 10], [-10.0, 20, 0]])
    np.testing.assert_array_equal(np.isnan(payback_month(flows)), [True, False])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-100, 100), min_size=3, max_size=60), st.floats(50, 500))
def test_the_workbooks_bisection_finds_the_irrs_root(tail, outlay):
    # the workbook solves the IRR by econ's grid, then bisection: the same root as irr()
    flows = np.array([-outlay, *tail])
    trace = irr_trace(flows)
    x = irr(flows, unique_only=False)
    if np.isnan(x):
        assert trace.interval is None
    else:
        assert np.expm1(trace.y) == pytest.approx(x, abs=1e-9)


def test_flows_never_below_zero_pay_back_at_once():
    assert payback_month(np.array([5.0, 1.0])) == 0.0


def test_payback_is_the_lasting_recovery():
    # K = -10, 10, -20, 20: recovers in month 2, dips in month 3, recovers for good in month 4
    assert payback_month(np.array([-10.0, 20, -30, 40])) == pytest.approx(3.5)
    # K = -10, 10, -20, -15: recovers, dips and ends short: no payback
    assert np.isnan(payback_month(np.array([-10.0, 20, -30, 5])))
    # never below zero: 0; never recovers: NaN
    assert payback_month(np.array([0.0, 3.0, -3.0])) == 0.0
    assert np.isnan(payback_month(np.array([-1.0, -1.0])))


def test_goal_seek_finds_the_root_and_reports_none_clearly():
    r = goal_seek(lambda x: x**2 - 2.0, 0.0, 3.0, base=1.0, key="x")
    assert r.value == pytest.approx(np.sqrt(2), abs=1e-10)
    r = goal_seek(lambda x: x**2 + 1.0, -3.0, 3.0, base=0.0, key="x", target="NPV")
    assert (
        r.value is None
        and "no value of x from -3 to 3 brings NPV to zero: it stays above zero ($1.00 to $10.00)"
        in r.message
    )


def test_goal_seek_picks_the_crossing_nearest_base():
    r = goal_seek(lambda x: np.sin(x), 0.5, 10.0, base=6.0)
    assert r.value == pytest.approx(2 * np.pi, abs=1e-9)


@pytest.mark.parametrize("r_neg, r_pos", [(-0.1018, 0.1026), (-0.1030, 0.1022)])
def test_of_two_roots_on_either_side_of_zero_the_nearer_is_the_irr(r_neg, r_pos):
    # flows v (v - v1)(v - v2), v = 1 / (1 + x): roots exactly at r_neg and r_pos a month, one
    # on each side of zero; the interval nearer zero need not hold the nearer root
    v1, v2 = 1 / (1 + r_neg), 1 / (1 + r_pos)
    flows = np.array([v1 * v2, -(v1 + v2), 1.0]) * 1e8
    nearer = r_neg if abs(r_neg) < abs(r_pos) else r_pos
    assert irr(flows, unique_only=False) == pytest.approx(nearer, abs=1e-9)
    assert np.isnan(irr(flows))  # money in, out, in: two roots, no meaningful IRR
    assert npf.irr(np.concatenate([[0.0], flows])) == pytest.approx(nearer, abs=1e-9)
    assert np.expm1(irr_trace(flows).y) == pytest.approx(nearer, abs=1e-9)


def test_the_irr_is_reported_only_where_the_flows_have_one_root_that_is_a_rate_of_return():
    # Descartes: one sign change from out to in
    assert irr_unique(np.array([-100.0, 0, 50, 60]))
    # Norstrom: flows -, +, -, + change sign three times, but their running sum -100, -40,
    # -50, +30 changes once from negative to positive: one root
    f = np.array([-100.0, 60, -10, 80])
    assert irr_unique(f) and np.isfinite(irr(f))
    assert _npv(irr(f), f) == pytest.approx(0.0, abs=1e-9 * 100)
    # a borrowing (money in, then out): one root, but a higher rate is worse
    assert not irr_unique(np.array([100.0, -60, -60])) and np.isnan(
        irr(np.array([100.0, -60, -60]))
    )
    # out, in, out with a running sum -, +, -: two roots (10 % and 50 %): none reported
    two = np.array([-1.0, 2.6, -1.65])
    assert not irr_unique(two) and np.isnan(irr(two))
    np.testing.assert_array_equal(irr_unique(np.array([[-1.0, 2.0], [1.0, 2.0]])), [True, False])


def test_mirr_is_excels_mirr():
    # the flows of Excel's MIRR documentation (-120000, 39000, 30000, 21000, 37000, 46000) at
    # periods 1..6 after a 0 at period 0, as econ passes them: numpy-financial's mirr agrees
    flows = np.array([-120000.0, 39000, 30000, 21000, 37000, 46000])
    for r in (0.1, 0.12, 0.0):
        assert mirr(flows, r) == pytest.approx(npf.mirr(np.r_[0.0, flows], r, r), rel=1e-12)
    # with the outlay at period 1 (our flows start at 1): by hand
    r = 0.1
    fv = sum(c * (1 + r) ** (6 - t) for t, c in enumerate(flows, start=1) if c > 0)
    pv = -flows[0] / (1 + r)
    assert mirr(flows, r) == pytest.approx((fv / pv) ** (1 / 6) - 1, rel=1e-12)
    # MIRR > r exactly when the NPV at r is > 0
    rng = np.random.default_rng(3)
    many = rng.normal(1.0, 3.0, (400, 24))
    rate = 0.01
    m = mirr(many, rate)
    npv = (many * (1 + rate) ** -np.arange(1, 25)).sum(axis=1)
    ok = np.isfinite(m)
    np.testing.assert_array_equal(m[ok] > rate, npv[ok] > 0)
    assert np.isnan(mirr(np.array([1.0, 2.0]), 0.1))  # no money out: Excel's #DIV/0!


def test_the_irr_zeroes_the_present_value_to_numpy_financials_tolerance():
    # numpy-financial's tests ask npv(irr(x), x) = 0 to 1e-9 of the flows' scale; large flows
    # (a deal in USD over 60 months) included
    rng = np.random.default_rng(21)
    flows = rng.normal(1.0, 2.0, (500, 60)) * 1e9
    flows[:, 0] -= 40e9
    x = irr(flows, unique_only=False)
    ok = np.isfinite(x)
    assert ok.sum() > 400
    resid = np.array([npf.npv(r, np.r_[0.0, f]) for r, f in zip(x[ok], flows[ok], strict=True)])
    assert (np.abs(resid) <= 1e-9 * np.abs(flows[ok]).max(axis=1)).all()


def test_the_irr_meets_numpy_financials_congruence_test():
    # numpy-financial's test_npv_irr_congruence: npv(irr(x), x) = 0 to an absolute 1e-10
    flows = np.array([-40000, 5000, 8000, 12000, 30000.0])
    assert abs(npf.npv(irr(flows), np.r_[0.0, flows])) <= 1e-10
    # and on its published values
    for v in ([-150000, 15000, 25000, 35000, 45000, 60000], [-100, 39, 59, 55, 20]):
        v = np.array(v, float)
        assert abs(npf.npv(irr(v), np.r_[0.0, v])) <= 1e-9


def test_the_irr_and_mirr_of_a_row_do_not_depend_on_the_rows_beside_it():
    # the Monte Carlo evaluates its samples in chunks: a sample's IRR and MIRR must be the
    # same bits whatever chunk it falls in
    rng = np.random.default_rng(5)
    flows = rng.normal(1.0, 2.0, (1000, 60)) * 1e8
    flows[:, :6] -= 1e9
    whole_irr, whole_mirr = irr(flows), mirr(flows, 0.008)
    for size in (1, 7, 333, 512):
        parts = [flows[s : s + size] for s in range(0, len(flows), size)]
        np.testing.assert_array_equal(np.concatenate([irr(p) for p in parts]), whole_irr)
        np.testing.assert_array_equal(np.concatenate([mirr(p, 0.008) for p in parts]), whole_mirr)
    assert np.isfinite(whole_irr).sum() > 300
