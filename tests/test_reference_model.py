"""Hand-worked checks of the reference model itself (the specification, version 3), independent of econ."""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference_model as rm  # noqa: E402

SPM, SPW = 2_629_800, 604_800
PHI_M1 = 0.15865525393145707  # standard normal CDF at -1 (tables)
SQRT_E = math.exp(0.5)


# ------------------------------------------------------------------ 3.2-3.4 layout and envelope


def _layout(**over) -> dict:
    """A dense 2e12-parameter 16-bit model on b300 and wse3, efficiency 1, no latencies."""
    v = {
        "model.params": 2e12,
        "model.bytes_per_param": 2,
        "model.active_param_share": 1.0,
        "model.kv_bytes_per_token": 5.2e5,
        "model.context_tokens": 4096,
        "model.speculative_speedup": 1.0,
        "model.layers": 128,
        "model.d_model": 36000,
        "model.prefill_tokens_per_output": 1.0,
        "facility.pue": 1.2,
    }
    for p, (mem, bw, g, power) in {"b300": (288, 8, 72, 2.17), "wse3": (44, 21_000, 1, 23)}.items():
        v |= {
            f"hardware.{p}.memory_gb": mem,
            f"hardware.{p}.bandwidth_tb_s": bw,
            f"hardware.{p}.domain_chips": g,
            f"hardware.{p}.power_kw": power,
            f"hardware.{p}.tflops": 1e9,  # compute never binds in these examples
            f"hardware.{p}.hop_latency_us": 0.0,
            f"hardware.{p}.layer_latency_us": 0.0,
            f"hardware.{p}.link_gb_s": "",
            f"hardware.{p}.efficiency": 1.0,
        }
    return v | over


def test_layout_examples_of_the_specification():
    v = _layout()
    b, w = rm.envelope(v, "b300", 54), rm.envelope(v, "wse3", 54)
    # b300: 4e12 bytes / 288e9 = 13.9 -> 14 GPUs, one NVL72 stage; 4e12 / (72 x 8e12) = 1/144 s
    assert (b["n_w"], b["k_min"]) == (14, 1)
    assert b["ceiling_tokens_per_s"] == pytest.approx(144, rel=1e-12)
    # wse3: 4e12 / 44e9 = 90.9 -> 91 wafers, 91 single-wafer stages; 4e12 / 21e15 = 1/5250 s
    assert (w["n_w"], w["k_min"]) == (91, 91)
    assert w["ceiling_tokens_per_s"] == pytest.approx(5250, rel=1e-12)
    # twice the parameters: 28 GPUs (still one stage), 182 wafers; both ceilings halve
    v2 = _layout(**{"model.params": 4e12})
    assert rm.envelope(v2, "b300", 54)["n_w"] == 28
    assert rm.envelope(v2, "wse3", 54)["n_w"] == 182
    assert rm.envelope(v2, "b300", 54)["ceiling_tokens_per_s"] == pytest.approx(72, rel=1e-12)
    assert rm.envelope(v2, "wse3", 54)["ceiling_tokens_per_s"] == pytest.approx(2625, rel=1e-12)
    # one byte a parameter: 7 GPUs, 46 wafers; both ceilings double
    v1 = _layout(**{"model.bytes_per_param": 1})
    assert rm.envelope(v1, "b300", 54)["n_w"] == 7
    assert rm.envelope(v1, "wse3", 54)["n_w"] == 46
    assert rm.envelope(v1, "b300", 54)["ceiling_tokens_per_s"] == pytest.approx(288, rel=1e-12)
    assert rm.envelope(v1, "wse3", 54)["ceiling_tokens_per_s"] == pytest.approx(10_500, rel=1e-12)


def test_envelope_bandwidth_bound_b300_by_hand():
    # b300 at 100 tok/s, a 1 us hop (k = 1 has no hop, so it wins over k >= 2).
    # K = {1, 2, 3, 4, 6, 8, 12, 16}. KV = 4096 x 5.2e5 = 2.12992e9 bytes, R = 576e12 B/s.
    # k = 1: B_bw = (0.01 - 4e12 / 576e12) / (2.12992e9 / 576e12) = 0.44 / 144 x 576e12 / 2.12992e9
    #            = 1.76e12 / 2.12992e9 = 826.3 streams (B_mem = 16.736e12 / 2.12992e9 = 7,858)
    # faster s' (125, 150 > 144 excluded) only lowers B_bw x s' = (1 - s' W/R) / (KV/R)
    # Phys = B x 100 x 1000 / (72 x 2.17 x 1.2)
    v = _layout(**{"hardware.b300.hop_latency_us": 1.0})
    e = rm.envelope(v, "b300", 100)
    assert e["physics_tokens_per_s_per_mw"] == pytest.approx(
        1.76e12 / 2.12992e9 * 1e5 / (72 * 2.17 * 1.2), rel=1e-12
    )
    assert (e["stages"], e["physics_speed"]) == (1, 100)
    # above the ceiling: nothing, and no layout reported
    e = rm.envelope(v, "b300", 150)
    assert (e["physics_tokens_per_s_per_mw"], e["stages"], e["physics_speed"]) == (0.0, None, None)


def test_envelope_memory_bound_wse3_serves_slow_users_faster():
    # wse3 at 100 tok/s: memory binds, B_mem = (k x 44e9 - 4e12) / (k x 2.12992e9) does not depend on
    # the speed, so the fastest allowed s' = 8 x 100 = 800 and the most stages win: the largest
    # candidate of the grid ceil(2^(j/4)) up to k_cap = 16 x 91 = 1,456 is ceil(2^10.5) = 1,449:
    # B_mem = (1449 x 44e9 - 4e12) / (1449 x 2.12992e9) = 5.9756e13 / 3.08625408e12 = 19.36;
    # B_bw at 800: (1/800 - 4e12 / 21e15) / (2.12992e9 / 21e15) = 10,447 (not binding)
    e = rm.envelope(_layout(), "wse3", 100)
    b_mem = 5.9756e13 / 3.08625408e12
    assert (e["stages"], e["physics_speed"]) == (1449, 800)
    assert e["physics_tokens_per_s_per_mw"] == pytest.approx(
        b_mem * 800 * 1000 / (23 * 1.2), rel=1e-12
    )


# ------------------------------------------------------------------ 5.2 truncated lognormal


@pytest.mark.parametrize(
    ("median", "quota", "sigma"),
    [(5e5, 2e6, 1.2), (3e6, 2e7, 1.2), (5e5, 5e5, 0.8), (2e6, 5e5, 1.6), (1e5, 1e7, 0.5)],
)
def test_truncated_lognormal_mean_against_quadrature(median, quota, sigma):
    from scipy.integrate import quad
    from scipy.stats import lognorm

    # x = median y: E[min(x, c)] = median x integral of min(y, c / median) times the lognormal
    # density of median 1 (quad converges on this scale, not on raw token counts)
    pdf, k = lognorm(s=sigma).pdf, quota / median
    kw = {"epsabs": 0, "epsrel": 1e-11, "limit": 200}
    below, _ = quad(lambda y: min(y, k) * pdf(y), 0, k, **kw)
    above, _ = quad(lambda y: min(y, k) * pdf(y), k, math.inf, **kw)
    sf, w = rm._lognormal_cap(median, quota, sigma)
    assert w == pytest.approx(median * (below + above), rel=1e-10)
    assert sf == pytest.approx(lognorm(s=sigma, scale=median).sf(quota), rel=1e-9, abs=1e-15)


def test_pchip_matches_scipy():
    from scipy.interpolate import PchipInterpolator

    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(2, 7)
        xs = [math.log(x) for x in sorted(rng.sample(range(5, 3000), n))]
        ys = sorted(
            (math.log(rng.choice([rng.uniform(1e3, 1e7), 5e5])) for _ in range(n)), reverse=True
        )
        mine, ref = rm._pchip(xs, ys), PchipInterpolator(xs, ys)
        for x in [*xs, *(rng.uniform(xs[0], xs[-1]) for _ in range(5))]:
            assert mine(x) == pytest.approx(float(ref(x)), rel=1e-14, abs=1e-14)


# ------------------------------------------------------------------ 6. payback and IRR conventions


def test_payback_conventions():
    assert rm._payback([1.0, 0.0, 2.0]) == 0.0  # never negative
    assert rm._payback([-1.0, -1.0, 0.5]) is None  # never recovers
    assert rm._payback([-10.0, 20.0, -15.0]) is None  # recovers, dips, ends short
    assert rm._payback([-10.0, 4.0, 8.0]) == pytest.approx(2 + 6 / 8)  # K = -10, -6, 2
    assert rm._payback([-10.0, 20.0, -15.0, 10.0]) == pytest.approx(
        3 + 5 / 10
    )  # the lasting recovery


def test_irr_root_nearest_zero():
    assert rm._irr([-100.0, 0.0, 121.0]) == pytest.approx(1.1**12 - 1, rel=1e-12)
    # (1 + x) = 1.1 or 1.2 -> 10 % a month
    assert rm._irr([-100.0, 230.0, -132.0]) == pytest.approx(1.1**12 - 1, rel=1e-12)
    # (1 + x) = 0.9 or 1.2 -> -10 % a month
    assert rm._irr([-100.0, 210.0, -108.0]) == pytest.approx(0.9**12 - 1, rel=1e-12)
    assert rm._irr([1.0, 2.0]) is None  # no sign change
    assert rm._irr([1.0, -3.0, 3.0]) is None  # 1 - 3z + 3z^2 > 0 for every z


# ------------------------------------------------------------------ a three-month scenario by hand


def _tiny(**over) -> dict:
    """A three-month scenario on the data basis, small enough to work by hand (version 3)."""
    v = {
        "contract.value_usd": 60_000,
        "contract.mw": 3,
        "contract.term_months": 2,
        "contract.ramp_months": 2,
        "contract.pay_as_delivered": 1,
        "contract.platform": "x",
        "contract.tranche_mw": "",
        "contract.tranche_months": "",
        "capacity.basis": "data",
        "capacity.gpu_platform": "x",
        "capacity.gpu_fleet_utilization": 0.5,
        "capacity.gpu_cost_per_mtok_usd": 10.0,
        "capacity.flexible_value_share": 0.5,
        "capacity.backfill_flexible_share": 0.5,
        "capacity.subscriber_offer": "on",
        "horizon.months": 3,
        "finance.discount_rate_annual": 0.10,
        "finance.variable_cost_share": 0.10,
        "finance.terminal_value": 1,
        "finance.api_gross_margin": 0.5,
        "market.mau": 1000,
        "market.mau_growth_monthly": 0.0,
        "market.plus_share_of_mau": 0.1,
        "market.pro_subscribers_start": 10,
        "market.pro_growth_monthly": 0.0,
        "plans.plus.price_usd_month": 20,
        "plans.pro.price_usd_month": 200,
        "plans.pro.price_ref_usd_month": 200,
        # one output token a query: quotas and demand in tokens; a plan's mean weekly demand
        # 7 x queries a day is the lognormal's mean, its median the mean / exp(sigma^2 / 2):
        # medians 1e3 (Plus) and 1e7 (Pro) at sigma = 1
        "usage.output_tokens_per_query": 1,
        "plans.plus.weekly_quota_queries": math.e * 1e3,
        "plans.plus.queries_per_day": 1e3 * SQRT_E / 7,
        "plans.pro.weekly_quota_queries": 1e19,
        "plans.pro.queries_per_day": 1e7 * SQRT_E / 7,
        "tiers.standard.tokens_per_s": 10,
        "tiers.fast.tokens_per_s": 20,
        "tiers.ultrafast.tokens_per_s": 100,
        "tiers.standard.usage_multiplier": 1,
        "tiers.fast.usage_multiplier": 1,
        "tiers.ultrafast.usage_multiplier": math.e,
        "tiers.fast.adoption": 0.2,
        "tiers.ultrafast.adoption": 0.1,
        "tiers.standard.price_per_mtok_usd": 10,
        "tiers.fast.price_per_mtok_usd": 20,
        "tiers.ultrafast.price_per_mtok_usd": 40,
        "usage.demand_sigma": 1.0,
        "usage.speed_elasticity": 0.0,
        "usage.token_efficiency_gain_annual": 0.0,
        "usage.peak_to_average": 2,
        "usage.adoption_burn_elasticity": 0.5,
        "usage.adoption_ref_multiplier": "",
        "conversion.pro_churn_monthly": 0.5,
        "conversion.extra_churn_after_term_monthly": 0.25,
        "conversion.pro_price_elasticity": 1.0,
        "conversion.capped_share_of_upgrades": 0.5,
        "conversion.max_capped_propensity": 1.0,
        "api.ultrafast_tokens_per_month": 250 * SPM,
        "api.standard_tokens_per_month": 750 * SPM,
        "api.fast_tokens_per_month": 250 * SPM,
        "api.reference_price_per_mtok_usd": 40,
        "api.price_elasticity": 1.0,
        "api.diversion_to_lab_tiers": 0.5,
        "api.wtp_speed_doubling_usd_per_mtok": 0.0,
        "api.speed_nest_lambda": 1.0,
        "api.ramp_months": 2,
        "capacity.backfill_tokens_per_month": 1e10,
        "capacity.average_utilization": 0.6,
        "facility.pue": 1.25,
        "buy.facility_capex_usd_per_mw": 1000,
        "buy.power_price_usd_per_kwh": 0.1,
        "buy.maintenance_share_annual": 0.12,
        "buy.resale_share": 0.5,
        "buy.facility_life_years": 20,
        "hardware.x.power_kw": 10,
        "hardware.x.price_usd": 1000,
        "hardware.x.life_years": 1,
        "hardware.x.frontier_scale": 1,
        "frontier.x_10.platform": "x",
        "frontier.x_10.tokens_per_s_per_user": 10,
        "frontier.x_10.tokens_per_s_per_mw": 2000,
        "frontier.x_100.platform": "x",
        "frontier.x_100.tokens_per_s_per_user": 100,
        "frontier.x_100.tokens_per_s_per_mw": 1000,
        "frontier.y_50.platform": "y",  # another platform's point: ignored
        "frontier.y_50.tokens_per_s_per_user": 50,
        "frontier.y_50.tokens_per_s_per_mw": 99_999,
    }
    return v | over


def _run(**over) -> dict:
    return rm.run(_tiny(**over), base=_tiny())


def _hand() -> dict:
    """The tiny scenario worked by hand (contract value aside: incomes I_t before rent)."""
    # MW: 3 x min(1, t/2) = 1.5, 3 in the term, 0 after. Data basis: every tier at its speed;
    # Thr(100) = 1000 and Thr(10) = 2000 tokens/s per MW; C_t = 1000 MW / 100 = 15, 30, 0 streams.
    # Speed elasticity 0, no efficiency gain: phi_i = 1, e_t = 1. Plus pool N = 1000 x 0.1 = 100.
    # Plus: median 1e3, quota e x 1e3. Standard and fast (multiplier 1): ln(c / mu) = 1, so
    # SF = 1 - Phi(1) = Phi(-1) and w = mu (e^(1/2) Phi(0) + e Phi(-1)). Ultrafast (multiplier e):
    # c = 1e3 = mu, SF = 0.5 and w = mu (e^(1/2) Phi(-1) + 0.5). Pro: median 1e7, quota 1e19:
    # never capped, w = 1e7 e^(1/2) at every tier.
    k1 = SQRT_E * PHI_M1 + 0.5
    w_plus_u, w_pro_u = 1e3 * k1, 1e7 * SQRT_E
    w_plus_std, w_pro_std = 1e3 * (SQRT_E * 0.5 + math.e * PHI_M1), 1e7 * SQRT_E
    # No-deal calibration: h0_1 = 0.8 Phi(-1) + 0.2 Phi(-1) = Phi(-1); u0_1 = P_0 (churn + 0) / N_1
    # = 10 x 0.5 / 100 = 0.05; propensity = min(0.5 x 0.05 / Phi(-1), 1) = 0.025 / Phi(-1);
    # base = 0.05 - 0.025 = 0.025. The price is the reference price: factor 1.
    prop, base = 0.025 / PHI_M1, 0.025
    # Cap hits with a_u = 0.1 adopters (moved from standard): h = Phi(-1) + 0.1 (0.5 - Phi(-1));
    # u = 0.025 + prop h = 0.05 + 0.0025 (0.5 / Phi(-1) - 1); without the tier u0 = 0.05.
    h = PHI_M1 + 0.1 * (0.5 - PHI_M1)
    u = base + prop * h
    # P_t = 0.5 P_(t-1) + 100 u in the term; after it (a = 0, u = u0 = 0.05)
    # P_3 = 0.5 P_2 - 0.25 (P_2 - P0_2) + 5. P0_t = 0.5 x 10 + 5 = 10 throughout (steady).
    p1 = 5 + 100 * u
    p2 = 0.5 * p1 + 100 * u
    p3 = 0.5 * p2 - 0.25 * (p2 - 10) + 5
    pro, pro0 = [p1, p2, p3], [10.0, 10.0, 10.0]
    dp = [p - 10 for p in pro]
    # API logit: V_s, V_f, V_u = 750, 250, 250 SPM, D = 0.5: M = 250 + 1000 / 0.5 = 2,250 SPM,
    # x_u = 1/9 at the reference price (M x_u = 250 SPM), D_s = (1/3) / (8/9) = 3/8, D_f = 1/8.
    # m_u = 40 x 0.9 - 3/8 (10 x 0.9 - 10) - 1/8 (20 x 0.9 - 10) = 36 + 0.375 - 1 = 35.375 USD/Mtok.
    # Fee-bearing API revenue 40 - 3/8 x 10 - 1/8 x 20 = 33.75 USD/Mtok; GPU cost avoided
    # (3/8 + 1/8) x 10 = 5 USD/Mtok (33.75 x 0.9 + 5 = 35.375).
    V = [125 * SPM, 250 * SPM, 0.0]  # ramp 2 months
    # Allocation (average MW; peak room MW / 2 = 0.75, 1.5). Subscribers "on" come first, then the
    # API (35.375 x SPM x 1000 / 1e6 = 93,029 USD a MW-month), then peak-shaped backfill
    # (1e-5 x SPM x 2000 = 52,596) over flexible backfill (half that).
    # A_t = (100 w_plus_u + P_(t-1) w_pro_u) / (604,800 x 100), P_0 = 10, P_1 = p1 (about 2.7);
    # subscribers' cap 0.1 A_t x 100 / 1000 = 0.01 A_t average MW; API 0.125 and 0.25;
    # backfill: the standard traffic 1e10 a month, peak-shaped: 1e10 / (SPM x 2000) = 1.9013
    # average MW; batch work on top of it, half of that: 0.9506 average MW, flexible.
    A = [(100 * w_plus_u + p * w_pro_u) / (SPW * 100) for p in (10, p1)]
    y_backfill = 5e9 / (SPM * 2000)
    # month 1: subscribers 0.01 A_1, API 0.125, peak backfill the rest of the peak room
    # 0.75 - 0.125 - 0.01 A_1, flexible min(0.9506, 1.5 - 0.75) = 0.75: every MW used.
    # month 2: peak backfill the rest of the peak room 1.5 - 0.25 - 0.01 A_2 (< 1.9013), flexible
    # min(0.9506, 3 - 1.5) = 0.9506: 2.4506 of the 3 MW used.
    y_sub = [0.01 * A[0], 0.01 * A[1], 0.0]
    y_api = [0.125, 0.25, 0.0]
    y_peak = [0.75 - 0.125 - y_sub[0], 1.5 - 0.25 - y_sub[1], 0.0]
    y_flex = [0.75, y_backfill, 0.0]
    a_u = [0.1, 0.1, 0.0]
    util = [1.0, (1.5 + y_backfill) / 3, None]
    s_api = [2.5, 5.0, 0.0]  # API streams at peak: V x 2 / (100 SPM)
    sub_peak = [0.1 * A[0] * 2, 0.1 * A[1] * 2, 0.0]
    bp = [y * SPM * 2000 for y in y_peak]
    bf = [y * SPM * 2000 for y in y_flex]
    subs_tokens = [0.1 * A[0] * 100 * SPM, 0.1 * A[1] * 100 * SPM, 0.0]
    served = [V[t] + subs_tokens[t] + bp[t] + bf[t] for t in range(3)]
    sub = [180 * d for d in dp]  # (200 - 20) dP
    api = [x * 33.75e-6 for x in V]
    added = [d * (w_pro_std - w_plus_std) * SPM / SPW for d in dp]
    backfill_usd = [(bp[t] + 0.5 * bf[t]) * 1e-5 for t in range(3)]
    gpu = [
        backfill_usd[t] + 5e-6 * V[t] + subs_tokens[t] * 1e-5 - added[t] * 1e-5 for t in range(3)
    ]
    income = [(sub[t] + api[t]) * 0.9 + gpu[t] for t in range(3)]  # CF_t + R_t
    # terminal value: c = 0.75, m_H = 180 x 0.9 - (w_pro_std - w_plus_std) SPM / SPW x 10 / 1e6 (< 0)
    r_m = 1.1 ** (1 / 12) - 1
    m_h = 162 - (w_pro_std - w_plus_std) * SPM / SPW * 1e-5
    tv = dp[2] * m_h * 0.25 / (r_m + 0.75)
    d = [1.1 ** (-t / 12) for t in (1, 2, 3)]
    # the value of a Pro convert (W_t, backward from H): W_3 = m_3 d_3 (1 + 0.25 / (r_m + 0.75));
    # W_2 = m_2 d_2 + (1 - 0.5 - 0.25) W_3 (month 3 is after the term); W_1 = m_1 d_1 + 0.5 W_2
    w3 = m_h * d[2] * (1 + 0.25 / (r_m + 0.75))
    w2 = m_h * d[1] + 0.25 * w3
    w1 = m_h * d[0] + 0.5 * w2
    W = [w1, w2, w3]
    # a unit of adoption share in month 1: adopters' usage off the GPUs g$ A_1 100 SPM / 1e6,
    # plus prop x (0.5 - Phi(-1)) x N x W_1 / d_1 extra Pro value (W_1 is worth at month 0; the
    # uses are compared in month-1 money)
    v_s1 = 1e-5 * A[0] * 100 * SPM + prop * (0.5 - PHI_M1) * 100 * w1 / d[0]
    return locals()


def test_tiny_scenario_by_hand():
    h = _hand()
    r = _run()
    approx = lambda xs: pytest.approx(xs, rel=1e-12, abs=1e-9)  # noqa: E731
    assert r["mw_online"] == [1.5, 3.0, 0.0]
    # pay as delivered: 60,000 x 1.5 / 4.5 and x 3 / 4.5; it sums to the contract value
    assert r["rent"] == approx([20_000, 40_000, 0])
    assert sum(r["rent"]) == pytest.approx(60_000, rel=1e-15)
    assert r["capacity_streams"] == approx([15, 30, 0])
    assert r["plus_pool"] == [100.0] * 3
    assert r["eligible"] == approx([110, 100 + h["p1"], 100 + h["p2"]])  # N + P_(t-1)
    assert r["token_efficiency"] == [1.0] * 3
    assert r["served_tokens_per_s"] == {"standard": 10.0, "fast": 20.0, "ultrafast": 100.0}
    assert r["gpu_cost_per_mtok_usd"] == {"standard": 10.0, "fast": 10.0}
    assert r["capped_upgrade_propensity"] == pytest.approx(h["prop"], rel=1e-14)
    assert r["plus_to_pro_base_monthly"] == pytest.approx(0.025, rel=1e-14)
    assert r["market_tokens_per_month"] == pytest.approx(2250 * SPM, rel=1e-14)
    assert r["diversion"] == pytest.approx({"standard": 3 / 8, "fast": 1 / 8}, rel=1e-12)
    assert r["api_margin_per_mtok_usd"] == pytest.approx(35.375, rel=1e-12)
    assert r["adoption_wanted"] == pytest.approx(0.1, rel=1e-15)
    assert r["api_tokens_wanted"] == approx(h["V"])
    assert r["api_tokens_served"] == approx(h["V"])
    assert r["api_streams_peak"] == approx(h["s_api"])
    assert r["mw_subscriber"] == approx(h["y_sub"])
    assert r["mw_api"] == approx(h["y_api"])
    assert r["mw_backfill_peak"] == approx(h["y_peak"])
    assert r["mw_backfill_flexible"] == approx(h["y_flex"])
    assert r["ultrafast_adoption"] == approx(h["a_u"])
    assert r["subscriber_streams_peak"] == approx(h["sub_peak"])
    assert r["plus_cap_hit"] == approx([h["h"], h["h"], PHI_M1])
    assert r["plus_cap_hit_counterfactual"] == approx([PHI_M1] * 3)
    assert r["pro"] == approx(h["pro"])
    assert r["pro_counterfactual"] == approx(h["pro0"])
    assert r["incremental_pro"] == approx(h["dp"])
    assert r["subscription_revenue"] == approx(h["sub"])
    assert r["api_revenue"] == approx(h["api"])
    assert r["api_ultrafast_revenue"] == approx([x * 40e-6 for x in h["V"]])
    assert r["api_revenue_lost"] == approx([x * 6.25e-6 for x in h["V"]])
    assert r["api_gpu_cost_avoided"] == approx([x * 5e-6 for x in h["V"]])
    assert r["backfill_peak_tokens"] == approx(h["bp"])
    assert r["backfill_flexible_tokens"] == approx(h["bf"])
    assert r["backfill_usd"] == approx(h["backfill_usd"])
    assert r["utilization"][:2] == approx(h["util"][:2])
    assert r["utilization"][2] is None
    assert r["tokens_served"] == approx(h["served"])
    assert r["tokens_added_to_gpus"] == approx(h["added"])
    assert r["gpu_savings_usd"] == approx(h["gpu"])
    assert r["subscriber_value_of_a_convert"] == approx(h["W"])
    assert r["subscriber_value"][0] == pytest.approx(h["v_s1"], rel=1e-12)
    cf = [h["income"][0] - 20_000, h["income"][1] - 40_000, h["income"][2]]
    assert r["net_cash_flow"] == approx(cf)
    assert r["cumulative_cash"] == approx([cf[0], cf[0] + cf[1], sum(cf)])
    assert r["discount"] == approx(h["d"])
    assert r["terminal_value_usd"] == pytest.approx(h["tv"], rel=1e-12)
    assert h["tv"] < 0  # an incremental Pro user costs more GPU time than the margin brings
    npv0 = sum(c * d for c, d in zip(cf, h["d"], strict=True))
    assert r["npv_without_terminal_value_usd"] == pytest.approx(npv0, rel=1e-12)
    assert r["npv_at_term_usd"] == pytest.approx(cf[0] * h["d"][0] + cf[1] * h["d"][1], rel=1e-12)
    assert r["npv_usd"] == pytest.approx(npv0 + h["tv"] * h["d"][2], rel=1e-12)
    rent_pv = 20_000 * h["d"][0] + 40_000 * h["d"][1]
    assert r["rent_npv_usd"] == pytest.approx(rent_pv, rel=1e-12)
    pv_in = sum(i * d for i, d in zip(h["income"], h["d"], strict=True)) + h["tv"] * h["d"][2]
    assert r["profitability_index"] == pytest.approx(pv_in / rent_pv, rel=1e-12)
    assert r["realised_cost_per_mtok_usd"] == pytest.approx(
        1e6 * 60_000 / sum(h["served"]), rel=1e-12
    )
    assert r["throughput_per_mw_ultrafast"] == pytest.approx(1000, rel=1e-14)
    assert r["throughput_per_mw_standard"] == pytest.approx(2000, rel=1e-14)
    # K_t > 0 throughout at this contract value: payback 0
    assert min(r["cumulative_cash"]) > 0 and r["payback_months"] == 0.0
    # the IRR where the flows change sign: see the payback paths below
    # without the terminal value the NPV drops it and the TV is still reported
    r0 = _run(**{"finance.terminal_value": 0})
    assert r0["npv_usd"] == pytest.approx(npv0, rel=1e-12)
    assert r0["terminal_value_usd"] == pytest.approx(h["tv"], rel=1e-12)


def test_tiny_scenario_subscriber_offer_auto_and_off():
    h = _hand()
    # auto: a unit of adoption in month 1 is worth v_s = 2,219 USD (positive), or per average MW
    # v_s / (A_1 x 100 / 1000) = 8,137 USD: below the flexible backfill's 26,298 (0.5 x 1e-5 x SPM
    # x 2000). With 5e9 tokens of standard traffic (0.9506 average MW, peak-shaped, and 0.4753 of
    # batch work): in month 1 the peak room is taken (0.75: API 0.125, peak backfill 0.625), so
    # the subscribers yield; in month 2 room is left (1.5 - 0.25 - 0.9506) and they are served in
    # full, with P_1 = P0_1 = 10 and so A_2 = A_1.
    assert h["v_s1"] > 0
    less = {"capacity.backfill_tokens_per_month": 5e9}
    r = _run(**less, **{"capacity.subscriber_offer": "auto"})
    assert r["subscriber_value"][0] == pytest.approx(h["v_s1"], rel=1e-12)
    assert r["value_per_mw_subscriber"][0] == pytest.approx(
        h["v_s1"] / (h["A"][0] * 100 / 1000), rel=1e-12
    )
    assert r["value_per_mw_subscriber"][0] < 0.5 * 1e-5 * SPM * 2000
    assert r["mw_subscriber"] == pytest.approx([0, 0.01 * h["A"][0], 0], rel=1e-12, abs=1e-15)
    assert r["mw_backfill_peak"][0] == pytest.approx(0.625, rel=1e-12)
    assert r["ultrafast_adoption"] == pytest.approx([0, 0.1, 0], abs=1e-15)
    # off: no subscriber streams, no extra Pro subscribers
    r = _run(**less, **{"capacity.subscriber_offer": "off"})
    assert r["ultrafast_adoption"] == [0.0, 0.0, 0.0]
    assert r["incremental_pro"] == pytest.approx([0, 0, 0], abs=1e-12)
    assert r["mw_backfill_peak"][0] == pytest.approx(0.625, rel=1e-12)


def test_tiny_scenario_payback_paths():
    inc = _hand()["income"]
    assert inc[0] > 0 and inc[1] > 0
    # a dear contract: never recovers
    dear = _run(**{"contract.value_usd": 1e7})
    assert dear["payback_months"] is None
    # flat rent value / 2 (pay_as_delivered = 0): K_1 < 0 <= K_2 -> a lasting recovery if K_3 >= 0
    flat = {"contract.pay_as_delivered": 0}
    value = 2 * inc[0] + 0.5 * (inc[1] - inc[0])  # K_1 = inc_1 - value / 2 < 0 when inc_1 < inc_2
    cf = [inc[0] - value / 2, inc[1] - value / 2, inc[2]]
    assert cf[0] < 0 <= cf[0] + cf[1] and sum(cf) >= 0
    r = _run(**flat, **{"contract.value_usd": value})
    assert r["rent"] == [value / 2, value / 2, 0.0]
    assert r["payback_months"] == pytest.approx(1 + (-cf[0]) / cf[1], rel=1e-12)
    d = _hand()["d"]
    assert r["discounted_payback_months"] == pytest.approx(
        1 + (-cf[0] * d[0]) / (cf[1] * d[1]), rel=1e-12
    )
    # the IRR zeroes the present value with the TV at month 3
    x = (1 + r["irr_annual"]) ** (1 / 12) - 1
    tv = _hand()["tv"]
    pv = sum(c * (1 + x) ** -(t + 1) for t, c in enumerate(cf)) + tv * (1 + x) ** -3
    assert abs(pv) < 1e-9 * max(abs(c) for c in cf)


def test_tiny_buy_side_by_hand():
    # IT kW = 3 x 1000 / 1.25 = 2,400; systems = 240 of 10 kW; capex = 240 x 1,000 + 3 x 1,000 = 243,000,
    # half at t = 0 (month 1's 1.5 MW) and half at the end of month 1.
    # opex = MW x 1000 x 730.5 x 0.1 + 0.12 / 12 x 240,000 = 111,975 and 221,550.
    # residual at T = 2: 240,000 x (1 - 2/12) x 0.5 + 3,000 x (1 - 2/240) = 100,000 + 2,975.
    v = _tiny()
    d1, d2 = 1.1 ** (-1 / 12), 1.1 ** (-2 / 12)
    npv = 121_500 + 121_500 * d1 + 111_975 * d1 + 221_550 * d2 - 102_975 * d2
    assert rm.buy_npv(v) == pytest.approx(npv, rel=1e-12)
    assert (
        rm.lessor_yield(v) is None
    )  # rent 20,000 and 40,000 never covers the costs: every flow < 0
    v = _tiny(**{"contract.value_usd": 1.2e6})  # rent 400,000 and 800,000
    flows = [-121_500, -121_500 + 400_000 - 111_975, 800_000 - 221_550 + 102_975]
    y = rm.lessor_yield(v)
    x = (1 + y) ** (1 / 12) - 1
    assert abs(sum(f * (1 + x) ** -j for j, f in enumerate(flows))) < 1e-6
    assert rm.simple_breakeven(v) == pytest.approx((1.2e6 / (200 * 2), 1.2e6 / (200 * 2) / 1000))


def test_frontier_validation():
    with pytest.raises(ValueError, match="x_10.*x_100"):  # throughput rises with speed
        _run(**{"frontier.x_100.tokens_per_s_per_mw": 3000})
    with pytest.raises(ValueError, match="same speed"):
        _run(**{"frontier.x_100.tokens_per_s_per_user": 10})
    with pytest.raises(ValueError, match="outside platform x's range"):  # ultrafast above the curve
        _run(**{"tiers.ultrafast.tokens_per_s": 150})
    with pytest.raises(ValueError, match="outside"):  # one point: usable only at exactly its speed
        _run(**{"contract.platform": "y", "hardware.y.power_kw": 1})
    # frontier_scale multiplies the whole curve
    r = _run(**{"hardware.x.frontier_scale": 0.5})
    assert r["capacity_streams"][:2] == pytest.approx([7.5, 15], rel=1e-14)


def _physics(**over) -> dict:
    """Platform x given the b300 example's physics (1 us hop) on the physics basis."""
    lay = _layout(**{"hardware.b300.hop_latency_us": 1.0})
    phys = {k.replace("hardware.b300.", "hardware.x."): x for k, x in lay.items()}
    phys |= {"capacity.basis": "physics", "facility.pue": 1.2}
    return _tiny(**phys, **over)


def test_physics_basis_feeds_the_money():
    # ceiling 144 tok/s (one NVL72 stage, no layer latency), so a tier is served at or below
    # 0.9 x 144 = 129.6 tok/s: ultrafast at 100 may take any multiplier 1 ... 0.5, and the run
    # takes the one with the largest NPV, each candidate a whole run
    v = _physics()
    r = rm.run(v, base=v)
    npvs = r["candidate_npv_usd"]
    assert list(npvs) == [1.0, 0.9, 0.8, 0.7, 0.6, 0.5]
    m = r["served_multiplier_ultrafast"]
    assert npvs[m] == max(npvs.values()) == r["npv_usd"]
    assert all(npvs[k] < npvs[m] for k in npvs if k > m)  # ties keep the faster
    s_u = 100 * m
    assert r["served_tokens_per_s"] == {"standard": 10.0, "fast": 20.0, "ultrafast": s_u}
    thr_u = rm.envelope(v, "x", s_u)["physics_tokens_per_s_per_mw"]
    thr_std = rm.envelope(v, "x", 10)["physics_tokens_per_s_per_mw"]
    assert (r["throughput_per_mw_ultrafast"], r["throughput_per_mw_standard"]) == (thr_u, thr_std)
    assert r["capacity_streams"] == pytest.approx([thr_u * 1.5 / s_u, thr_u * 3 / s_u, 0])
    # at 100 tok/s exactly: the k = 1 layout of the bandwidth-bound example,
    # 1.76e12 / 2.12992e9 streams x 100 x 1000 / (72 x 2.17 x 1.2)
    at_1 = rm.run(v, base=v, max_multiplier=1.0)
    assert at_1["throughput_per_mw_ultrafast"] == pytest.approx(
        1.76e12 / 2.12992e9 * 1e5 / (72 * 2.17 * 1.2), rel=1e-12
    )
    assert at_1["npv_usd"] == npvs[1.0]
    # a fixed maximum multiplier: the fastest feasible candidate at or below it
    assert rm.run(v, base=v, max_multiplier=0.75)["served_multiplier_ultrafast"] == 0.7
    # ultrafast at 150: 150 > 129.6 and 135 > 129.6, so the fastest feasible is 0.8 x 150 = 120
    v = _physics(**{"tiers.ultrafast.tokens_per_s": 150})
    assert rm.candidates(v, base=v) == [0.8, 0.7, 0.6, 0.5]
    # at 300 even 0.5 x 300 = 150 is above 129.6: the tier is not offered; no API demand, no
    # adopters, every MW for backfill at the standard speed (all of it fits: the 1e10 tokens of
    # standard traffic, 1e10 / (SPM Thr(10)) average MW, far below the peak room of 0.75 MW, and
    # the batch work on top of it, half that, flexible)
    v = _physics(**{"tiers.ultrafast.tokens_per_s": 300})
    r = rm.run(v, base=v)
    assert r["ultrafast_offered"] is False and r["served_tokens_per_s"]["ultrafast"] is None
    assert r["throughput_per_mw_ultrafast"] == 0.0
    assert r["capacity_streams"] == [0.0, 0.0, 0.0]
    assert r["api_tokens_wanted"] == [0.0] * 3 and r["api_tokens_served"] == [0.0] * 3
    assert r["ultrafast_adoption"] == [0.0] * 3 and r["incremental_pro"] == [0.0] * 3
    assert r["backfill_tokens"] == pytest.approx([1.5e10, 1.5e10, 0.0], rel=1e-12)
    y = 5e9 / (SPM * thr_std)
    assert r["utilization"][:2] == pytest.approx([3 * y / 1.5, 3 * y / 3], rel=1e-12)
