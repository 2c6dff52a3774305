"""The wired model: a case worked by hand, the article's figures, row-by-row equality, properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
import reference_model
from conftest import TIGHT
from hypothesis import given, settings
from hypothesis import strategies as st

from econ.model import evaluate, simple_breakeven

PHI1 = 0.8413447460685429  # standard normal CDF at 1 (tables)
S_API = 1e6 / (750 * 2_629_800)  # API streams of the tiny case: 1M tokens a month at 750 tokens/s


def test_hand_worked_three_month_case(tiny):
    # tiny data: 100 Plus users, 10 Pro, quota = median (standard and fast hit the cap with p = 0.5);
    # sigma = ln 2 and an ultrafast multiplier of 2 give SF(1/2) = Phi(1). Fast 20 %, ultrafast 50 %.
    h = 0.3 * 0.5 + 0.2 * 0.5 + 0.5 * PHI1
    h0 = 0.5
    # P_t = 0.5 P_(t-1) + 0.1 h_t 100; months 1-2 with ultrafast, month 3 after the term without
    p = [5 + 10 * h]
    p.append(0.5 * p[0] + 10 * h)
    p.append(0.5 * p[1] + 10 * h0)
    p0 = [10.0, 10.0, 10.0]
    d_pro = [a - b for a, b in zip(p, p0, strict=True)]
    rev = [180 * d_pro[0] + 40, 180 * d_pro[1] + 40, 180 * d_pro[2]]
    cf = [rev[0] - 500, rev[1] - 500, rev[2]]
    npv = sum(c * 1.12 ** (-(t + 1) / 12) for t, c in enumerate(cf))
    k = np.cumsum(cf)
    assert k[1] < 0 <= k[2]
    payback = 2 + (-k[1]) / cf[2]

    r = evaluate(tiny)
    np.testing.assert_allclose(r.plus_cap_hit[0], [h, h, h0], **TIGHT)
    np.testing.assert_allclose(r.plus_cap_hit_counterfactual[0], [h0] * 3, **TIGHT)
    np.testing.assert_allclose(r.pro[0], p, **TIGHT)
    np.testing.assert_allclose(r.pro_counterfactual[0], p0, **TIGHT)
    np.testing.assert_allclose(r.revenue[0], rev, **TIGHT)
    np.testing.assert_allclose(r.rent[0], [500, 500, 0], **TIGHT)
    np.testing.assert_allclose(r.net_cash_flow[0], cf, **TIGHT)
    assert r.npv[0] == pytest.approx(npv, rel=1e-12)
    assert r.payback_months[0] == pytest.approx(payback, rel=1e-12)
    np.testing.assert_allclose(r.ultrafast_adoption[0], [0.5, 0.5, 0.0])
    # utilisation: (API streams + peak concurrency x adopters) / 600 streams
    assert r.capacity_utilization[0, 0] == pytest.approx((S_API + 0.1 * 0.5 * 110) / 600, rel=1e-12)
    assert np.isnan(r.capacity_utilization[0, 2])  # no capacity after the term


def test_capacity_limits_ultrafast_adoption(tiny):
    # 2,250 tokens/s per MW at 750 tokens/s: 3 streams for 1 MW
    r = evaluate(tiny.with_scenario("tight"))
    a1 = (3 - S_API) / (0.1 * 110)
    assert r.ultrafast_adoption[0, 0] == pytest.approx(a1, rel=1e-12)
    h1 = (1 - 0.2 - a1) * 0.5 + 0.2 * 0.5 + a1 * PHI1
    p1 = 5 + 10 * h1
    assert r.pro[0, 0] == pytest.approx(p1, rel=1e-12)
    a2 = (3 - S_API) / (0.1 * (100 + p1))
    assert r.ultrafast_adoption[0, 1] == pytest.approx(a2, rel=1e-12)
    np.testing.assert_allclose(r.capacity_utilization[0, :2], [1.0, 1.0], rtol=1e-12)


def test_articles_back_of_the_envelope(base):
    # seed 002: $10B / ($200 x 30 months) ~ 1.6 million users, ~0.16 % of 1 billion
    s = simple_breakeven(base)
    assert s["pro_users"] == pytest.approx(1_666_667, abs=1)
    assert s["share_of_mau"] == pytest.approx(0.00167, abs=5e-6)


def test_default_case_matches_the_reference_implementation(base):
    r = evaluate(base)
    ref = reference_model.run(base.values)
    np.testing.assert_allclose(r.net_cash_flow[0], ref["cf"], rtol=1e-10)
    np.testing.assert_allclose(r.pro[0], ref["pro"], rtol=1e-12)
    assert r.npv[0] == pytest.approx(ref["npv"], rel=1e-10)


def test_vectorised_result_equals_row_by_row(base):
    rng = np.random.default_rng(3)
    n = 25
    over = {
        "tiers.ultrafast.usage_multiplier": rng.uniform(2, 6, n),
        "usage.token_efficiency_gain_annual": rng.uniform(0, 0.4, n),
        "frontier.wse3_750.tokens_per_s_per_mw": rng.uniform(30_000, 500_000, n),
        "contract.ramp_months": rng.uniform(0, 12, n),
        "market.mau_growth_monthly": rng.uniform(-0.005, 0.02, n),
        "tiers.ultrafast.tokens_per_s": rng.uniform(400, 1400, n),
    }
    r = evaluate(base, over)
    assert r.net_cash_flow.shape == (n, 36)
    for i in range(n):
        ref = reference_model.run({**base.values, **{k: float(v[i]) for k, v in over.items()}})
        np.testing.assert_allclose(r.net_cash_flow[i], ref["cf"], rtol=1e-9, atol=1e-3)
        assert r.npv[i] == pytest.approx(ref["npv"], rel=1e-9)
        one = evaluate(base, {k: v[i] for k, v in over.items()})
        np.testing.assert_allclose(one.net_cash_flow[0], r.net_cash_flow[i], rtol=1e-12)
        assert math.isclose(one.payback_months[0], ref["payback"], rel_tol=1e-9) or (
            np.isnan(one.payback_months[0]) and np.isnan(ref["payback"])
        )


@settings(max_examples=25, deadline=None)
@given(st.floats(1e9, 2e10), st.floats(1.01, 2.0))
def test_a_dearer_contract_lowers_npv(base, value, factor):
    r = evaluate(base, {"contract.value_usd": np.array([value, value * factor])})
    assert r.npv[1] < r.npv[0]
    assert r.payback_months[1] >= r.payback_months[0] or np.isnan(r.payback_months[1])


def test_higher_usage_multiplier_raises_cap_hits_in_the_model(base):
    r = evaluate(base, {"tiers.ultrafast.usage_multiplier": np.array([2.0, 4.0, 6.0])})
    assert np.all(np.diff(r.plus_cap_hit[:, 6]) > 0)


def test_faster_token_efficiency_lowers_cap_hits_in_the_model(base):
    r = evaluate(base, {"usage.token_efficiency_gain_annual": np.array([0.0, 0.15, 0.4])})
    assert np.all(np.diff(r.plus_cap_hit[:, 24]) < 0)


def test_zero_ultrafast_adoption_gives_zero_increments(base):
    a = base.with_overrides(
        [("tiers.ultrafast.adoption", "0"), ("api.ultrafast_tokens_per_month", "0")]
    )
    r = evaluate(a)
    np.testing.assert_array_equal(r.incremental_pro[0], 0.0)
    np.testing.assert_array_equal(r.revenue[0], 0.0)
    assert r.npv[0] == pytest.approx(-r.rent_npv[0])


def test_unknown_override_key_is_an_assumption_error(base):
    from econ.assumptions import AssumptionError

    with pytest.raises(AssumptionError, match="did you mean tiers.ultrafast.usage_multiplier"):
        evaluate(base, {"tiers.ultrafast.usage_multiplyer": np.array([1.0])})
    with pytest.raises(AssumptionError, match="takes one value per run"):
        evaluate(base, {"horizon.months": np.array([24.0, 36.0])})


def test_fast_path_without_detail_gives_the_same_headline(base):
    over = {
        "plans.pro.price_usd_month": np.array([150.0, 200.0, 250.0]),
        "finance.variable_cost_share": np.array([0.0, 0.1, 0.05]),
    }
    full = evaluate(base, over)
    fast = evaluate(base, over, detail=False)
    for name in ("npv", "irr_annual", "payback_months", "discounted_payback_months", "shortfall"):
        np.testing.assert_array_equal(getattr(fast, name), getattr(full, name))
    np.testing.assert_allclose(fast.net_cash_flow, full.net_cash_flow, rtol=1e-13)
    assert fast.cumulative_cash is None and fast.revenue is None


def test_no_eligible_users_leaves_adoption_at_its_share(base):
    from econ.revenue.conversion import ultrafast_adoption

    np.testing.assert_array_equal(
        ultrafast_adoption(0.15, [10.0, 0.0], 1.0, 0.05, [0.0, 0.0]), [0.15, 0.15]
    )
    a = base.with_overrides(
        [("market.plus_share_of_mau", "0"), ("market.pro_subscribers_start", "0")]
    )
    r = evaluate(a)
    assert np.isfinite(r.npv[0]) and np.all(r.ultrafast_adoption[0, :30] == 0.15)
