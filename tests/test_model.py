"""The wired model: the case worked by hand, hand-worked mechanisms on the bundled data, arrays
for every key, invariants. (The agreement with the independent stdlib reference lives in
tests/test_reference_v3.py.)"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import DATA, TIGHT

from econ.assumptions import TABLES, AssumptionError, Rule, is_structural
from econ.model import evaluate, simple_breakeven

SPM, SPW = 2_629_800.0, 604_800.0  # seconds a month (365.25 / 12 days) and a week


def _phi(x: float) -> float:
    """The standard normal CDF (the test's own, from math.erfc)."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


# ---------------------------------------------------------------------- the tiny case by hand


def _hand() -> dict:
    """tests/data/tiny worked by hand (version 4, data basis, prices at the reference; the
    value of a token crossing the GPU-fleet boundary set at 10 USD per 1M; every traffic of the
    served model movable, no internal batch work, no price or cost decline, adopters at the
    ultrafast tier for all their queries, every cap hit counted, one Pro tier)."""
    # MW online: 3 x min(1, t/2) = 1.5, 3 in the term of 2 months, 0 after; all delivered, paid
    # as delivered: 60,000 x 1.5 / 4.5 and x 3 / 4.5. Data basis: every tier served at its
    # speed; the curve of x gives Thr(100) = 1,000 and Thr(10) = 2,000 tokens/s per MW: C_t =
    # 10 MW_t streams.
    mw, rent = [1.5, 3.0, 0.0], [20_000.0, 40_000.0, 0.0]
    # Plus (sigma 1): 10 queries a day x 100 tokens -> mean 7,000 tokens a week, median
    # 7,000 e^-0.5; quota 70 queries = 7,000 tokens: ln(c / mu) = 0.5, SF = Phi(-0.5) at
    # standard and fast (multiplier 1, speed elasticity 0), w = E[min(X, c)] = mu (e^0.5
    # Phi(-0.5) + e^0.5 Phi(-0.5)) = 14,000 Phi(-0.5). Ultrafast (multiplier e^0.5): the quota
    # c / e^0.5 equals the median, SF = 1/2, w = 7,000 Phi(-1) + 3,500 e^-0.5.
    # Pro: 100 queries a day, never capped: w = the mean, 70,000 tokens a week at every tier.
    sf = _phi(-0.5)
    w_plus_std = 14_000 * sf
    w_plus_u = 7_000 * _phi(-1.0) + 3_500 * math.exp(-0.5)
    w_pro = 70_000.0
    # No-deal calibration: N = 1000 x 0.1 = 100 Plus users, P_0 = 10, churn 0.5, growth 0:
    # u0_1 = 10 x 0.5 / 100 = 0.05; h0_1 = 0.8 SF + 0.2 SF = Phi(-0.5); propensity
    # = min(0.5 x 0.05 / Phi(-0.5), 0.5) = 0.025 / Phi(-0.5) = 0.0810; base = 0.05 - 0.025.
    # At the reference Pro price the binary logit's factor is 1.
    prop, base = 0.025 / sf, 0.025
    # Adoption wanted 0.1 x (e^0.5 / e^0.5)^0.5 = 0.1 (moved from standard), served in full
    # (offer "on"): h = Phi(-0.5) + 0.1 (0.5 - Phi(-0.5)); u = base + prop h; u0 = 0.05.
    h = sf + 0.1 * (0.5 - sf)
    u = base + prop * h
    # P_t = 0.5 P_(t-1) + 100 u in the term; month 3 (after it, no tier): u = 0.05 and the extra
    # churn 0.25 on P - P0; P0 = 0.5 x 10 + 5 = 10 throughout (steady).
    p1 = 5 + 100 * u
    p2 = 0.5 * p1 + 100 * u
    p3 = 0.5 * p2 - 0.25 * (p2 - 10) + 5
    pro = [p1, p2, p3]
    dp = [p - 10 for p in pro]
    # API: V_s = 1e9, V_f = 0, V_u = 250 SPM = 657.45M tokens a month, D = 0.5: M = V_u + V_s / D
    # = 2.65745e9; with no fast volume D_s = D = 0.5, D_f = 0. g$ = 10 (override). m_u =
    # 40 x 0.9 - 0.5 (10 x 0.9 - 10) = 36.5 USD per 1M; fee-bearing 40 - 0.5 x 10 = 35; GPU cost
    # avoided 0.5 x 10 = 5. Wanted: V_u x min(1, t / 2) in the term.
    V = [125 * SPM, 250 * SPM, 0.0]
    # Allocation in average MW, peak room MW / 2 = 0.75, 1.5. Subscribers first (offer on):
    # A_t = (100 w_plus_u + P_(t-1) w_pro) / (SPW x 100) streams if all adopted; served 0.1 A_t
    # x 100 / 1000 = 0.01 A_t MW. API 0.125, 0.25 MW (V / (SPM x 1000)), its value per MW
    # (36.5 x 1,000) above the moved traffic's (10 x 2,000).
    A = [(100 * w_plus_u + p * w_pro) / (SPW * 100) for p in (10.0, p1)]
    y_sub = [0.01 * A[0], 0.01 * A[1], 0.0]
    y_api = [0.125, 0.25, 0.0]
    adopters = [0.1 * A[0] * 100 * SPM, 0.1 * A[1] * 100 * SPM, 0.0]  # a A s_u SPM
    # Moved traffic (section V4.2): the served model's own standard demand without the deal,
    # D0 = (N w_plus_std + P0 w_pro) SPM / SPW + the API's standard tokens without the ultrafast
    # tier; the logit without it splits the market between standard and the outside option as
    # q_s : q_0 = 1e9 : 1e9, so M / 2. The deal already credits the adopters' standard tokens
    # (0.1 A_t s_u SPM) and the API tokens it diverts (0.5 V_t). Movable share 1: B_t = D0 - X.
    d0 = (100 * w_plus_std + 10 * w_pro) * SPM / SPW + 2.65745e9 / 2
    moved = [d0 - adopters[0] - 0.5 * V[0], d0 - adopters[1] - 0.5 * V[1], 0.0]
    # peak-shaped at 2,000 tokens/s per MW; the peak room left is far larger: carried in full
    y_peak = [b / (SPM * 2000) for b in moved]
    assert all(y_peak[t] < mw[t] / 2 - y_api[t] - y_sub[t] for t in range(2))
    bp = list(moved)
    served = [V[t] + adopters[t] + bp[t] for t in range(3)]
    sub = [180 * d for d in dp]  # (200 - 20) dP
    api = [35e-6 * v for v in V]
    added = [d * (w_pro - w_plus_std) * SPM / SPW for d in dp]
    gpu = [(bp[t] + adopters[t] - added[t]) * 1e-5 + 5e-6 * V[t] for t in range(3)]
    income = [(sub[t] + api[t]) * 0.9 + gpu[t] for t in range(3)]  # CF_t + R_t
    cash = [(sub[t] + api[t]) * 0.9 - rent[t] for t in range(3)]  # without the GPU cost avoided
    cf = [income[t] - rent[t] for t in range(3)]
    # terminal value: c = 0.5 + 0.25; m_H = 180 x 0.9 - (w_pro - w_plus_std) SPM / SPW x 1e-5
    r_m = 1.1 ** (1 / 12) - 1
    m_h = 162 - (w_pro - w_plus_std) * SPM / SPW * 1e-5
    tv = dp[2] * m_h * 0.25 / (r_m + 0.75)
    d = [1.1 ** (-t / 12) for t in (1, 2, 3)]
    return locals()


def test_tiny_case_equals_the_figures_worked_by_hand(tiny):
    h = _hand()
    r = evaluate(tiny)
    close = {"rtol": 1e-12, "atol": 1e-9}
    np.testing.assert_allclose(r.mw_online[0], h["mw"], **close)
    np.testing.assert_allclose(r.rent[0], h["rent"], **close)
    np.testing.assert_allclose(r.capacity_streams[0], [15, 30, 0], **close)
    assert r.served_tokens_per_s_ultrafast[0] == 100 and r.served_tokens_per_s_standard[0] == 10
    assert r.gpu_cost_standard[0] == 10 and r.gpu_cost_fast[0] == 10
    assert r.api_market_tokens[0] == pytest.approx(2.65745e9, rel=1e-14)
    assert r.api_diversion_standard[0] == pytest.approx(0.5, rel=1e-12)
    assert r.api_diversion_fast[0] == 0
    assert r.api_margin[0] == pytest.approx(36.5, rel=1e-12)
    assert r.pro_capped_propensity[0] == pytest.approx(h["prop"], rel=1e-12)
    assert r.pro_base_upgrade[0] == pytest.approx(0.025, rel=1e-12)
    assert r.pro_price_factor[0] == pytest.approx(1.0, rel=1e-14)
    assert r.ultrafast_adoption_wanted[0] == pytest.approx(0.1, rel=1e-14)
    np.testing.assert_allclose(r.api_tokens_wanted[0], h["V"], **close)
    np.testing.assert_allclose(r.api_tokens_served[0], h["V"], **close)
    np.testing.assert_allclose(r.mw_api[0], h["y_api"], **close)
    np.testing.assert_allclose(r.mw_subscriber[0], h["y_sub"], **close)
    np.testing.assert_allclose(r.demand_no_deal_tokens[0], h["d0"], **close)
    np.testing.assert_allclose(r.moved_demand_cap_tokens[0], h["moved"], **close)
    np.testing.assert_allclose(r.mw_backfill_peak[0], h["y_peak"], **close)
    np.testing.assert_allclose(r.mw_backfill_flexible[0], 0, **close)
    used = [h["y_api"][t] + h["y_sub"][t] + h["y_peak"][t] for t in range(3)]
    np.testing.assert_allclose(r.mw_idle[0], [h["mw"][t] - used[t] for t in range(3)], **close)
    np.testing.assert_allclose(
        r.utilization[0, :2], [used[t] / h["mw"][t] for t in range(2)], **close
    )
    assert np.isnan(r.utilization[0, 2])  # no MW online after the term
    np.testing.assert_allclose(r.ultrafast_adoption[0], [0.1, 0.1, 0.0], **close)
    np.testing.assert_allclose(r.plus_cap_hit[0], [h["h"], h["h"], h["sf"]], **close)
    np.testing.assert_allclose(r.plus_cap_hit_counterfactual[0], h["sf"], **close)
    np.testing.assert_allclose(r.pro[0], h["pro"], **close)
    np.testing.assert_allclose(r.pro_counterfactual[0], [10, 10, 10], **close)
    np.testing.assert_allclose(r.incremental_pro[0], h["dp"], **close)
    np.testing.assert_allclose(r.subscription_revenue[0], h["sub"], **close)
    np.testing.assert_allclose(r.api_revenue[0], h["api"], **close)
    np.testing.assert_allclose(r.backfill_tokens[0], h["bp"], **close)
    np.testing.assert_allclose(r.tokens_served[0], h["served"], **close)
    np.testing.assert_allclose(r.tokens_added_to_gpus[0], h["added"], **close)
    np.testing.assert_allclose(r.gpu_savings[0], h["gpu"], **close)
    np.testing.assert_allclose(r.net_cash_flow[0], h["cf"], **close)
    np.testing.assert_allclose(r.cash_flow[0], h["cash"], **close)
    assert r.terminal_value[0] == pytest.approx(h["tv"], rel=1e-12)
    npv0 = sum(c * d for c, d in zip(h["cf"], h["d"], strict=True))
    assert r.npv_without_terminal_value[0] == pytest.approx(npv0, rel=1e-12)
    assert r.npv[0] == pytest.approx(npv0 + h["tv"] * h["d"][2], rel=1e-12)
    # the economic payback (with the GPU cost avoided) and the one on cash alone
    assert min(h["cf"][:2]) < 0 or r.payback_months[0] == 0
    assert r.realised_cost_per_mtok[0] == pytest.approx(1e6 * 60_000 / sum(h["served"]), rel=1e-12)
    assert r.totals["api_ultrafast_revenue_usd"][0] == pytest.approx(40e-6 * sum(h["V"]), rel=1e-12)
    assert r.totals["api_revenue_lost_usd"][0] == pytest.approx(5e-6 * sum(h["V"]), rel=1e-12)
    assert r.totals["api_gpu_cost_avoided_usd"][0] == pytest.approx(5e-6 * sum(h["V"]), rel=1e-12)


def test_internal_batch_work_fills_the_average_room_the_peak_leaves(tiny):
    # 1e10 tokens a month of the lab's own batch work (flexible, worth the same 10 USD per 1M as
    # a moved standard token): it claims the average room first (1e10 / (SPM x 2000) = 1.90 MW,
    # more than the 1.5 and 3 MW online), so the peak-shaped moved traffic, worth no more per
    # MW, keeps only the average room flexible work leaves: min(MW / 2, MW - F) = 0 in month 1
    h = _hand()
    r = evaluate(tiny.with_overrides([("capacity.internal_batch_tokens_per_month", "1e10")]))
    f_want = 1e10 / (SPM * 2000)
    flex, peak = [], []
    for t in range(2):
        m = h["mw"][t]
        f = min(f_want, m)
        shared = min(m / 2, m - f)
        taken = h["y_sub"][t] + h["y_api"][t]  # subscribers (on) and the API come first
        y_p = min(h["y_peak"][t], max(shared - taken, 0.0))
        peak.append(y_p)
        flex.append(min(f_want, max(m - taken - y_p, 0.0)))
    np.testing.assert_allclose(r.mw_backfill_peak[0, :2], peak, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r.mw_backfill_flexible[0, :2], flex, rtol=1e-12, atol=1e-12)
    used = [h["y_sub"][t] + h["y_api"][t] + peak[t] + flex[t] for t in range(2)]
    assert used[0] == pytest.approx(h["mw"][0], rel=1e-12)  # month 1: every MW used
    np.testing.assert_allclose(r.utilization[0, :2], [used[0] / 1.5, used[1] / 3], rtol=1e-12)
    carried = [(peak[t] + flex[t]) * SPM * 2000 for t in range(2)] + [0.0]
    np.testing.assert_allclose(r.backfill_usd[0], [x * 1e-5 for x in carried], rtol=1e-12)


def test_take_or_pay_rent_is_flat_and_owed_whatever_is_delivered(tiny):
    inc = _hand()["income"]
    # take-or-pay 120,000 over 2 months: 60,000 a month; the payback is the lasting recovery
    cf = [inc[0] - 60_000, inc[1] - 60_000, inc[2]]
    r = evaluate(tiny.with_scenario("flat"))
    np.testing.assert_allclose(r.rent[0], [60_000, 60_000, 0], **TIGHT)
    np.testing.assert_allclose(r.net_cash_flow[0], cf, rtol=1e-12)
    k = np.cumsum(cf)
    if k.min() >= 0:
        assert r.payback_months[0] == 0
    elif k[-1] < 0:
        assert np.isnan(r.payback_months[0])
    # half delivered: take-or-pay still owes it all; paid as delivered, half of it
    half = [("contract.delivered_share", "0.5")]
    r = evaluate(tiny.with_scenario("flat").with_overrides(half))
    np.testing.assert_allclose(r.rent[0], [60_000, 60_000, 0], **TIGHT)
    np.testing.assert_allclose(r.mw_online[0], [0.75, 1.5, 0.0], **TIGHT)
    r = evaluate(tiny.with_overrides(half))
    np.testing.assert_allclose(r.rent[0], [10_000, 20_000, 0], **TIGHT)


def test_capacity_caps_the_api(tiny):
    # a twentieth of the curve: 50 tokens/s per MW at 100 tokens/s (0.75 and 1.5 peak streams a
    # month), 100 at 10 tokens/s. The API wants 125 SPM / (SPM x 50) = 2.5 average MW in month 1,
    # more than the peak room 0.75 less the subscribers' 0.1 A_1 x 100 / 50 = 0.2 A_1
    h = _hand()
    r = evaluate(tiny.with_scenario("tight"))
    np.testing.assert_allclose(r.capacity_streams[0], [0.75, 1.5, 0.0], rtol=1e-12)
    y_sub = [0.2 * h["A"][0], 0.2 * h["A"][1]]
    np.testing.assert_allclose(r.mw_subscriber[0, :2], y_sub, rtol=1e-12)
    served = [(0.75 - y_sub[0]) * 50 * SPM, (1.5 - y_sub[1]) * 50 * SPM, 0.0]
    np.testing.assert_allclose(r.api_tokens_served[0], served, rtol=1e-12)
    assert np.all(r.api_tokens_served[0, :2] < r.api_tokens_wanted[0, :2])
    # rationed demand falls back to the other tiers: cash only on what is served
    np.testing.assert_allclose(r.api_revenue[0], [35e-6 * s for s in served], rtol=1e-12)
    np.testing.assert_allclose(r.mw_backfill_peak[0], 0, atol=1e-15)  # nothing left at the peak


# ---------------------------------------------------------------- mechanisms on the bundled data

DATA_BASIS = [("capacity.basis", "data")]


def test_one_megawatt_serves_at_most_its_capacity(base):
    # data basis: 1 MW of wse3 at 750 tokens/s carries the articles' 450,000 tokens/s, 600 peak
    # streams at full ramp (month 24 on); every month keeps the peak and the average constraint
    # (a peak three times the average)
    pta = [("usage.peak_to_average", "3")]
    r = evaluate(base.with_overrides([*DATA_BASIS, *pta, ("contract.mw", "1")]))
    assert r.capacity_streams[0, 23] == pytest.approx(600, rel=1e-12)
    peak = 3 * (r.mw_api[0] + r.mw_subscriber[0] + r.mw_backfill_peak[0])
    avg = r.mw_api[0] + r.mw_subscriber[0] + r.mw_backfill_peak[0] + r.mw_backfill_flexible[0]
    assert np.all(peak <= r.mw_online[0] * (1 + 1e-12))
    assert np.all(avg <= r.mw_online[0] * (1 + 1e-12))
    # month 24: the API wants 5e11 x 0.85^(23/12) = 3.66e11 tokens, below the peak room's
    # 450,000 / 3 x SPM = 3.94e11: served in full; the backfill fills the rest of the peak
    wanted = 5e11 * 0.85 ** (23 / 12)
    assert r.api_tokens_wanted[0, 23] == pytest.approx(wanted, rel=1e-12)
    assert wanted < 450_000 / 3 * SPM
    assert r.api_tokens_served[0, 23] == pytest.approx(wanted, rel=1e-12)
    assert peak[23] == pytest.approx(1.0, rel=1e-12)


def _logit_share_ultrafast(price: float) -> float:
    """The ultrafast share of the bundled logit at ``price`` (other tiers at their prices and
    every tier at its speed), by hand: with every other tier at its calibration point, x_i is
    proportional to q_i and x_u to q_u exp(-beta (price - 180))."""
    v_s, v_f, v_u, D = 5e12, 5e11, 5e11, 0.5
    m = v_u + (v_s + v_f) / D  # 1.15e13 tokens a month
    q_u = v_u / m
    beta = 1.0 / (180 * (1 - q_u))  # elasticity 1 at the reference price 180
    k = q_u * math.exp(-beta * (price - 180))
    return m * k / (1 - q_u + k)


def test_the_api_responds_to_price_by_the_logit(base):
    # the default served speeds are the tier speeds (750 <= 0.9 x the wse3 ceiling, 54 and 134
    # <= 0.9 x the b300 ceiling), so the speed terms cancel and the logit is at its calibration
    r1 = evaluate(base)
    assert r1.served_tokens_per_s_ultrafast[0] == 750
    assert r1.api_market_tokens[0] == pytest.approx(1.15e13, rel=1e-12)
    # month 6 by hand: 5e11 x 0.85^(5/12) x min(1, 6/12)
    assert r1.api_tokens_wanted[0, 5] == pytest.approx(5e11 * 0.85 ** (5 / 12) * 0.5, rel=1e-12)
    for price in (90.0, 360.0, 1000.0):
        r2 = evaluate(base.with_overrides([("tiers.ultrafast.price_per_mtok_usd", repr(price))]))
        ratio = _logit_share_ultrafast(price) / 5e11
        np.testing.assert_allclose(
            r2.api_tokens_wanted[0], ratio * r1.api_tokens_wanted[0], rtol=1e-9
        )
    # a choke: at $10,000 per 1M the tier sells almost nothing (constant elasticity would sell
    # 1.8 % of the reference volume)
    assert _logit_share_ultrafast(10_000) / 5e11 < 1e-20


def test_ultrafast_revenue_has_an_interior_optimum_in_its_price(base):
    # p x_u(p) is highest where beta p (1 - x_u) = 1 (d/dp of p x_u = x_u (1 - beta p (1 - x_u)));
    # scipy's brentq on that condition, and the model's p x V wanted falls on either side
    from scipy.optimize import brentq

    q_u = 5e11 / 1.15e13
    beta = 1.0 / (180 * (1 - q_u))
    p_star = brentq(lambda p: beta * p * (1 - _logit_share_ultrafast(p) / 1.15e13) - 1, 50, 5000)
    prices = np.array([0.8 * p_star, p_star, 1.25 * p_star])
    r = evaluate(base, {"tiers.ultrafast.price_per_mtok_usd": prices}, detail=False)
    revenue = prices * r.api_tokens_wanted[:, 29]
    assert revenue[1] > revenue[0] and revenue[1] > revenue[2]
    assert 150 < p_star < 250


def test_pay_as_delivered_rent_follows_the_ramp_and_sums_to_the_contract(base):
    r = evaluate(base)
    rent = r.rent[0]
    assert rent.sum() == pytest.approx(10e9, rel=1e-12)
    # MW online 750 t/24 for t <= 24, then 750 until month 30: sum = 750 (300/24 + 6) = 13,875 MW-months
    assert rent[0] == pytest.approx(10e9 * (750 / 24) / 13_875, rel=1e-12)
    assert rent[29] == pytest.approx(10e9 * 750 / 13_875, rel=1e-12)
    assert np.all(rent[30:] == 0)
    flat = evaluate(base.with_overrides([("contract.payment", "take_or_pay")])).rent[0]
    np.testing.assert_allclose(flat[:30], 10e9 / 30, rtol=1e-12)
    # 60 % delivered: paid as delivered, 60 % of the value; take-or-pay, all of it
    part = evaluate(base.with_overrides([("contract.delivered_share", "0.6")]))
    assert part.rent[0].sum() == pytest.approx(6e9, rel=1e-12)
    np.testing.assert_allclose(part.mw_online[0, 29], 450, rtol=1e-12)
    owed = evaluate(
        base.with_overrides(
            [("contract.delivered_share", "0.6"), ("contract.payment", "take_or_pay")]
        )
    )
    assert owed.rent[0].sum() == pytest.approx(10e9, rel=1e-12)


def test_tranches_come_online_and_are_paid_as_delivered(base):
    # 250 MW every 6 months from month 1: 250 (1-6), 500 (7-12), 750 (13-30): 18,000 MW-months
    r = evaluate(
        base.with_overrides([("contract.tranche_mw", "250"), ("contract.tranche_months", "6")])
    )
    want = np.r_[[250] * 6, [500] * 6, [750] * 18, [0] * 30]
    np.testing.assert_allclose(r.mw_online[0], want, rtol=0, atol=0)
    np.testing.assert_allclose(r.rent[0], 10e9 * want / 18_000, rtol=1e-12)
    # a tranche larger than the contract delivers the contract at once
    r = evaluate(
        base.with_overrides([("contract.tranche_mw", "1000"), ("contract.tranche_months", "6")])
    )
    np.testing.assert_allclose(r.mw_online[0, :30], 750, rtol=0)


def test_moved_traffic_fills_the_peak_room_and_flexible_work_the_average_room(base):
    # data basis: no API, no subscribers; the standard speed 54 carries 700,000 tokens/s per MW
    # (frontier point wse3_54, set so), the peak three times the average. The moved traffic's cap B_t comes from the independent reference
    # model; its peak-shaped part is at most the peak room MW / 3, and the lab's own batch work
    # (flexible) takes the average room left, MW - the traffic's average MW
    import reference_model as rm

    quiet = [
        *DATA_BASIS,
        ("api.ultrafast_tokens_per_month", "0"),
        ("tiers.ultrafast.adoption", "0"),
        ("frontier.wse3_54.tokens_per_s_per_mw", "700000"),
        ("usage.peak_to_average", "3"),
    ]
    mw = 750 * np.minimum(1, np.arange(1, 31) / 24)
    carried = mw * 700_000 * SPM  # tokens a month if every MW ran all month
    for batch in (0.0, 1e14, 1e16):
        over = [*quiet, ("capacity.internal_batch_tokens_per_month", repr(batch))]
        ref = rm.run(rm.load(DATA, overrides=over))
        cap = np.array(ref["moved_demand_cap_tokens"][:30])
        flex_cap = np.array(ref["moved_flexible_cap_tokens"][:30])
        traffic = np.minimum(cap - flex_cap, carried / 3)
        batch_carried = np.minimum(flex_cap, carried - traffic)
        r = evaluate(base.with_overrides(over))
        np.testing.assert_allclose(r.moved_demand_cap_tokens[0, :30], cap, rtol=1e-12)
        np.testing.assert_allclose(r.backfill_tokens[0, :30], traffic + batch_carried, rtol=1e-12)
        assert np.all(r.backfill_tokens[0, 30:] == 0)
    # the served model's own demand is far below the contract's capacity: moved standard
    # traffic alone fills a sliver of the peak; batch work of 1e16 tokens fills the rest
    r = evaluate(base.with_overrides(quiet))
    assert np.all(r.utilization[0, 23:30] < 0.02)  # at full ramp
    r = evaluate(
        base.with_overrides([*quiet, ("capacity.internal_batch_tokens_per_month", "1e16")])
    )
    np.testing.assert_allclose(r.utilization[0, :30], 1.0, rtol=1e-12)


def test_the_value_of_a_freed_gpu_hour_on_the_data_basis_by_hand(base):
    # b300 rents at 3.96 USD an hour, 1.9 kW a GPU, PUE 1.2; energy 1.9 x 1.2 x the power price
    # an hour. lambda = a x 3.96 + (1 - a) x energy; with the tier speeds at measured points of
    # its curve (71 and 128 tokens/s: 2,620,900 and 1,051,000 tokens/s per MW), h = 1e6 x
    # (1000 / (1.9 x 1.2)) / (Thr x 3600) GPU-hours per 1M tokens, and v = lambda x h / u_ops
    over = [*DATA_BASIS, ("tiers.standard.tokens_per_s", "71"), ("tiers.fast.tokens_per_s", "128")]
    a = base.with_overrides(over)
    price = a.num("buy.power_price_usd_per_kwh")
    energy = 1.9 * 1.2 * price
    gpus = 1000 / (1.9 * 1.2)
    for share in (0.0, 0.5, 1.0):
        r = evaluate(a.with_overrides([("fleet.avoidable_share", repr(share))]))
        lam = share * 3.96 + (1 - share) * energy
        assert r.gpu_hour_value[0] == pytest.approx(lam, rel=1e-12)
        for thr, v in ((2_620_900, r.gpu_cost_standard[0]), (1_051_000, r.gpu_cost_fast[0])):
            h = 1e6 * gpus / (thr * 3600)
            assert v == pytest.approx(lam * h / 0.85, rel=1e-12)
    # at a = 1 a standard token is worth 3.96 x 1e6 x 438.6 / (2,620,900 x 3600) / 0.85
    assert evaluate(a.with_overrides([("fleet.avoidable_share", "1")])).gpu_cost_standard[
        0
    ] == pytest.approx(0.2166, abs=1e-4)
    # the troughs left idle: peak-shaped tokens free lambda x 3 (the peak) and cost the energy,
    # flexible ones only the energy
    r = evaluate(a.with_overrides([("fleet.troughs", "idle"), ("usage.peak_to_average", "3")]))
    lam = 0.5 * 3.96 + 0.5 * energy
    h = 1e6 * gpus / (2_620_900 * 3600)
    assert r.gpu_cost_standard[0] == pytest.approx(lam * 3 * h / 0.85 + energy * h, rel=1e-12)
    assert r.gpu_cost_flexible[0] == pytest.approx(energy * h, rel=1e-12)
    # a number in capacity.gpu_cost_per_mtok_usd overrides both tiers
    r = evaluate(base.with_overrides([("capacity.gpu_cost_per_mtok_usd", "3")]))
    assert r.gpu_cost_standard[0] == 3 and r.gpu_cost_fast[0] == 3


def _uniform_draws(a, n: int, seed: int) -> dict[str, np.ndarray]:
    """n draws of every numeric key of the sensitivity ranges, uniform between low and high
    (whole numbers where the key takes them): the test's own sampler."""
    from econ.assumptions import rule_for

    rng = np.random.default_rng(seed)
    out = {}
    for s in a.sensitivity:
        x = rng.uniform(s.low, s.high, n)
        if rule_for(s.key).kind == "integer":
            x = np.round(x)
        out[s.key] = x
    return out


def test_the_no_deal_stock_follows_the_stated_growth_in_month_one_for_every_draw(base):
    # P0_1 = P0_0 (1 - churn) + pf u0_1 N_1 with u0_1 N_1 = P0_0 (churn + g): at the reference
    # Pro price P0_1 = P0_0 (1 + g); at another, P0_0 (1 - churn + pf (churn + g)) with
    # pf = (price / 200)^(-elasticity)
    draws = _uniform_draws(base, 400, 20261201)
    draws["market.pro_growth_monthly"] = np.maximum(
        draws["market.pro_growth_monthly"], -draws["conversion.pro_churn_monthly"]
    )
    for at_ref in (True, False):
        over = dict(draws)
        if at_ref:
            over["plans.pro.price_usd_month"] = np.full(400, 200.0)
        r = evaluate(base, over, detail=False, served=1.0)
        p0, g, c = (
            over[k]
            for k in (
                "market.pro_subscribers_start",
                "market.pro_growth_monthly",
                "conversion.pro_churn_monthly",
            )
        )
        # the binary logit per cap event (section V4.7): at the mix price of the two Pro tiers,
        # s_r the propensity of the draw, beta = elasticity / (p_ref (1 - s_r))
        ls = over["conversion.lower_pro_share"]  # drawn too
        price = (1 - ls) * over["plans.pro.price_usd_month"] + ls * 100.0
        ref = (1 - ls) * 200.0 + ls * 100.0
        s_r = r.pro_capped_propensity
        beta = over["conversion.pro_price_elasticity"] / (ref * (1 - s_r))
        pf = 1 / (s_r + (1 - s_r) * np.exp(beta * (price - ref)))
        np.testing.assert_allclose(
            r.pro_counterfactual[:, 0], p0 * (1 - c + pf * (c + g)), rtol=1e-12
        )
        if at_ref:
            np.testing.assert_allclose(r.pro_counterfactual[:, 0], p0 * (1 + g), rtol=1e-12)


def test_the_bundled_no_deal_world_holds_its_pro_stock_in_month_one(base):
    # growth 0: 1,000,000 Pro subscribers, churn 3 %: 30,000 upgrades replace 30,000 leavers
    r = evaluate(base)
    assert r.pro_counterfactual[0, 0] == pytest.approx(1e6, rel=1e-12)
    plus_pool = 1e9 * 0.03
    assert (
        r.pro_base_upgrade[0] + r.pro_capped_propensity[0] * r.plus_cap_hit_counterfactual[0, 0]
    ) * plus_pool == pytest.approx(30_000, rel=1e-12)


def test_the_v4_7_subscriber_keys_move_the_npv_as_the_specification_implies(base):
    """Issue 27, item 4 (V4.7), on the bundled data. The weight of the cap hits caused by choosing
    the faster burn scales the deal's extra upgrades (the extra cap hits are weighed by it, so
    the deal's extra Pro subscribers are proportional to it, none at 0); a higher ceiling on the
    derived propensity raises the upgrades until it no longer binds; adopters who send more of
    their queries at ultrafast burn their quota faster and hit the cap more. Each upgrade is
    worth more than its GPU cost, so the NPV rises with each key."""
    w = [0.0, 0.25, 0.5, 0.75, 1.0]
    r = evaluate(base, {"conversion.voluntary_cap_hit_weight": w})
    assert np.all(np.diff(r.npv) > 0)
    d_pro = r.incremental_pro.sum(axis=1)
    assert d_pro[0] == 0
    np.testing.assert_allclose(d_pro, d_pro[2] * np.array(w) / 0.5, rtol=1e-12)
    # the propensity derived from the no-deal world (12.1 %) is capped at 5 % in the data: the
    # NPV rises with the cap while it binds and stops once it no longer does
    cap = [0.01, 0.03, 0.05, 0.1, 0.2, 0.5]
    r = evaluate(base, {"conversion.max_capped_propensity": cap})
    derived = r.pro_capped_propensity[-1]
    assert 0.1 < derived < 0.2
    np.testing.assert_allclose(r.pro_capped_propensity, np.minimum(cap, derived), rtol=1e-14)
    assert np.all(np.diff(r.npv[:5]) > 0) and r.npv[5] == r.npv[4]
    q = [0.1, 0.3, 0.5, 0.7, 1.0]
    r = evaluate(base, {"usage.ultrafast_query_share": q})
    assert np.all(np.diff(r.npv) > 0) and np.all(np.diff(r.incremental_pro.sum(axis=1)) > 0)


def test_the_pro_price_factor_by_hand(base):
    # one Pro tier, 250 USD at elasticity 1: a binary logit per cap event with, at 200 USD, the
    # propensity 5 % (the cap binds): beta = 1 / (200 x 0.95); the flows x 1 / (0.05 + 0.95
    # e^(50 beta)) = 0.7755; month 1 of the no-deal world: 1e6 x 0.97 + pf x 30,000
    one = [("conversion.lower_pro_share", "0"), ("plans.pro.price_usd_month", "250")]
    r = evaluate(base.with_overrides(one))
    pf = 1 / (0.05 + 0.95 * math.exp(50 / 190))
    assert r.pro_capped_propensity[0] == pytest.approx(0.05, rel=1e-14)
    assert r.pro_price_factor[0] == pytest.approx(pf, rel=1e-14)
    assert r.pro_counterfactual[0, 0] == pytest.approx(970_000 + pf * 30_000, rel=1e-12)
    r = evaluate(base.with_overrides([*one, ("conversion.pro_price_elasticity", "2")]))
    assert r.pro_price_factor[0] == pytest.approx(
        1 / (0.05 + 0.95 * math.exp(100 / 190)), rel=1e-14
    )
    # half the upgrades at the 100 USD tier: the price the logit reads is the mix, 175 against
    # 150 at the references
    r = evaluate(base.with_overrides([("plans.pro.price_usd_month", "250")]))
    assert r.pro_price_factor[0] == pytest.approx(
        1 / (0.05 + 0.95 * math.exp(25 / (150 * 0.95))), rel=1e-14
    )


def test_ultrafast_adoption_falls_with_its_quota_burn(base):
    # adoption 0.15 x (8 / m)^0.5: m = 16 -> 0.15 / sqrt(2); m = 2 -> 0.3
    ms = np.array([2.0, 8.0, 16.0])
    r = evaluate(base, {"tiers.ultrafast.usage_multiplier": ms}, detail=False, served=1.0)
    np.testing.assert_allclose(r.ultrafast_adoption_wanted, 0.15 * (8 / ms) ** 0.5, rtol=1e-12)
    r = evaluate(
        base,
        {
            "usage.adoption_burn_elasticity": np.array([0.0, 2.0]),
            "tiers.ultrafast.usage_multiplier": 16.0,
        },
        detail=False,
        served=1.0,
    )
    np.testing.assert_allclose(r.ultrafast_adoption_wanted, [0.15, 0.15 / 4], rtol=1e-12)


def test_gpu_savings_pay_no_revenue_fees(base):
    r0 = evaluate(base.with_overrides([("finance.variable_cost_share", "0")]))
    r2 = evaluate(base.with_overrides([("finance.variable_cost_share", "0.2")]))
    # fees change the API's margin, so hold the allocation: compare at equal API tokens served
    np.testing.assert_allclose(r2.api_tokens_served[0], r0.api_tokens_served[0], rtol=1e-9)
    np.testing.assert_allclose(
        r2.net_cash_flow[0] - r0.net_cash_flow[0], -0.2 * r0.revenue[0], rtol=1e-9, atol=1e-3
    )
    np.testing.assert_allclose(r2.gpu_savings[0], r0.gpu_savings[0], rtol=1e-9)


def test_the_incremental_subscribers_leave_faster_after_the_term(base):
    r = evaluate(base)
    d = r.incremental_pro[0]
    # after the term both stocks gain the same upgrades: dP_t = dP_(t-1) (1 - 0.03 - 0.03)
    np.testing.assert_allclose(d[30:] / d[29:-1], 0.94, rtol=1e-9)
    slow = evaluate(base.with_overrides([("conversion.extra_churn_after_term_monthly", "0")]))
    np.testing.assert_allclose(
        slow.incremental_pro[0, 30:] / slow.incremental_pro[0, 29:-1], 0.97, rtol=1e-9
    )


def test_the_terminal_value_makes_npv_independent_of_the_horizon(base):
    # with constant margins after the term (no efficiency gain, no growth) the Pro tail's value at
    # month 60 is what months 61..120 and the tail after them are worth: NPV does not depend on H
    flat = [
        ("usage.token_efficiency_gain_annual", "0"),
        ("hardware.gpu_cost_decline_per_year", "0"),
    ]
    r60 = evaluate(base.with_overrides(flat))
    r120 = evaluate(base.with_overrides([*flat, ("horizon.months", "120")]))
    assert r120.npv[0] == pytest.approx(r60.npv[0], rel=1e-9)
    assert r120.npv_without_terminal_value[0] != pytest.approx(
        r60.npv_without_terminal_value[0], rel=1e-3
    )


def test_simple_breakeven_matches_the_articles(base):
    # GPT-5.6 Inference at 18x Speed: $10B / ($200 x 30 months) ~ 1.6 million users, ~0.16 % of MAU
    s = simple_breakeven(base)
    assert s["pro_users"] == pytest.approx(1_666_667, abs=1)
    assert s["share_of_mau"] == pytest.approx(0.00167, abs=5e-6)


# ---------------------------------------------------------------- arrays, invariants


def test_every_varied_key_and_every_tier_speed_evaluates_as_an_array(base):
    keys = [s.key for s in base.sensitivity]
    keys += [f"tiers.{t}.tokens_per_s" for t in base.tier_ids()]
    npv = evaluate(base).npv[0]
    for key in keys:
        v = base.num(key)
        lo, hi = next(((s.low, s.high) for s in base.sensitivity if s.key == key), (v, v))
        if key == "tiers.standard.tokens_per_s":
            lo, hi = 40, 60
        elif key == "tiers.fast.tokens_per_s":
            lo, hi = 100, 200
        elif key == "tiers.ultrafast.tokens_per_s":
            lo, hi = 500, 1000
        arr = np.array([lo, v, hi], float)
        r = evaluate(base, {key: arr}, detail=False)
        assert r.npv.shape == (3,) and r.net_cash_flow.shape == (3, 60), key
        assert np.isfinite(r.npv).all(), key
        assert r.npv[1] == pytest.approx(npv, rel=1e-12), key


def test_a_tier_speed_array_moves_capacity_the_right_way(base):
    # data basis: the wse3 curve's points at 340, 750 and 1,500 tokens/s
    r = evaluate(
        base.with_overrides(DATA_BASIS),
        {"tiers.ultrafast.tokens_per_s": np.array([340, 750, 1500])},
        detail=False,
    )
    np.testing.assert_allclose(r.throughput_per_mw, [560_000, 450_000, 250_000], rtol=1e-12)


def test_model_size_moves_npv_on_the_physics_basis_at_a_fixed_gpu_cost(base):
    phys = base.with_overrides(
        [("capacity.basis", "physics"), ("capacity.gpu_cost_per_mtok_usd", "5")]
    )
    r = evaluate(phys, {"model.params": np.array([2e12, 4e12])}, detail=False)
    assert r.ceiling_contract[1] < r.ceiling_contract[0]
    assert r.npv[1] < r.npv[0]
    # and on the data basis with the cost set the model size does not reach the money
    d = evaluate(
        base.with_overrides([*DATA_BASIS, ("capacity.gpu_cost_per_mtok_usd", "5")]),
        {"model.params": np.array([2e12, 4e12])},
        detail=False,
    )
    assert d.npv[0] == d.npv[1]


def test_structural_keys_refuse_arrays(base):
    for key in (
        "horizon.months",
        "contract.platform",
        "capacity.basis",
        "capacity.gpu_platform",
        "capacity.subscriber_offer",
        "frontier.wse3_750.tokens_per_s_per_user",
    ):
        assert is_structural(key, base.values[key])
        with pytest.raises(AssumptionError, match="one value per run"):
            evaluate(base, {key: np.array([1.0, 2.0])})


def test_an_override_outside_its_rule_is_refused(base):
    with pytest.raises(AssumptionError, match=r"tiers.ultrafast.adoption: 1.5 is out of range"):
        evaluate(base, {"tiers.ultrafast.adoption": np.array([0.1, 1.5])})
    with pytest.raises(
        AssumptionError, match="contract.term_months: 70 is longer than the horizon 60"
    ):
        evaluate(base, {"contract.term_months": np.array([30, 70])})


# a no-deal world calibrated to grow 40 % in month 1 from 100M Pro and every user on Plus:
# upgrades of 1e8 x (0.03 + 0.4) a month against 3 % churn head for 1.4e9 Pro, above 1e9 users
CRAZY = [
    ("market.pro_growth_monthly", "0.4"),
    ("market.pro_subscribers_start", "100000000"),
    ("market.plus_share_of_mau", "1"),
]


def test_more_pro_subscribers_than_users_is_an_error(base):
    with pytest.raises(AssumptionError, match="exceed the monthly active users"):
        evaluate(base.with_overrides(CRAZY))


def test_a_result_that_is_not_a_number_is_an_error_naming_the_input(base, monkeypatch):
    # the rules' sense limits refuse 1e308 first; without the limit the result check still
    # refuses the overflow and names the input (with the subscriber offer on, so that the
    # incremental subscribers exist and meet the price step of -1e308)
    with pytest.raises(AssumptionError, match=r"1e308 is out of range; expected a number in"):
        base.with_overrides([("plans.plus.price_usd_month", "1e308")])
    monkeypatch.setitem(TABLES["plans"].columns, "price_usd_month", Rule("USD/month", low=0))
    pairs = [("plans.plus.price_usd_month", "1e308"), ("capacity.subscriber_offer", "on")]
    with pytest.raises(
        AssumptionError,
        match=r"is not a finite number: inputs too large \(plans\.plus\.price_usd_month=1e\+308\)",
    ):
        evaluate(base.with_overrides(pairs))


def test_more_pro_subscribers_than_users_in_one_scenario_names_its_inputs(base):
    a = base.with_overrides(CRAZY[1:])
    with pytest.raises(
        AssumptionError,
        match=r"in month \d+ of scenario 1 \(.*market\.pro_growth_monthly=0\.4.*\):",
    ):
        evaluate(a, {"market.pro_growth_monthly": np.array([0.0, 0.4])})


def test_a_starting_pro_stock_above_the_users_is_named(base):
    with pytest.raises(
        AssumptionError,
        match=r"market\.pro_subscribers_start: 2,000,000 Pro subscribers at the start exceed the "
        r"1,000,000 monthly active users",
    ):
        evaluate(base, {"market.mau": np.array([1e9, 1e6]), "market.pro_subscribers_start": 2e6})


def test_the_subscriber_value_in_auto_is_the_converts_worth_in_month_t_money(tiny):
    # offer auto, month 1: a unit of adoption share is worth the adopters' usage moved off the
    # GPUs plus the extra Pro converts, each worth W_1 / d_1 in month-1 money. Per average MW
    # (need_1 = A_1 x 100 / 1000 MW if all adopted):
    # rho_s = 10e-6 x SPM x 1000 + prop x (0.5 - Phi(-0.5)) x 100 x (W_1 / d_1) / need_1,
    # W_t backward from H with the margin m = 162 - (70,000 - 14,000 Phi(-0.5)) SPM / SPW x 1e-5,
    # survival 0.5 a month in the term and 0.25 after it, the tail m 0.25 / (r_m + 0.75) at H:
    # W_3 = m d_3 (1 + 0.25 / (r_m + 0.75)); W_2 = m d_2 + 0.25 W_3; W_1 = m d_1 + 0.5 W_2
    h = _hand()
    m, d, r_m = h["m_h"], h["d"], h["r_m"]
    w3 = m * d[2] * (1 + 0.25 / (r_m + 0.75))
    w1 = m * d[0] + 0.5 * (m * d[1] + 0.25 * w3)
    need = h["A"][0] * 0.1
    rho = 10e-6 * SPM * 1000 + h["prop"] * (0.5 - h["sf"]) * 100 * (w1 / d[0]) / need
    r = evaluate(tiny.with_overrides([("capacity.subscriber_offer", "auto")]))
    assert r.parts["subscriber_value"][0, 0] == pytest.approx(rho, rel=1e-12)
    # worth more a MW than the API (36.5e-6 x SPM x 1000 = 95,990 USD): served first, as with "on"
    assert rho > 36.5e-6 * SPM * 1000
    np.testing.assert_allclose(r.mw_subscriber[0], h["y_sub"], rtol=1e-12)
    assert r.npv[0] == pytest.approx(evaluate(tiny).npv[0], rel=1e-12)
