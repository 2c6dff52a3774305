"""Hand-worked checks of the reference model itself (the specification, version 4), independent of econ."""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path
from statistics import NormalDist

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
        "usage.context_tokens": 4096,  # V4.5: one context for every platform
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
    # K = {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16}. KV = 4096 x 5.2e5 = 2.12992e9 bytes,
    # R = 72 x 8e12 = 576e12 B/s, W_read / R = 4e12 / 576e12 = 1/144 s, KV / R = 3.6978e-6 s.
    # k = 1: B_mem = (72 x 288e9 - 4e12) / 2.12992e9 = 16.736e12 / 2.12992e9 = 7,857.6 streams.
    # V4.5: the best speed of the layout is s* = spec / (F(1) + W_read / R + B_mem KV / R)
    # = 1 / (1/144 + 16.736e12 / 576e12) = 1 / (0.0069444 + 0.0290556) = 1 / 0.036 = 27.78 tok/s,
    # below 100: a user asking for 100 is served at max(100, 27.78) = 100, where
    # B_bw = (0.01 - 1/144) / (2.12992e9 / 576e12) = 0.44 / 144 x 576e12 / 2.12992e9
    #      = 1.76e12 / 2.12992e9 = 826.3 streams binds.
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


def test_envelope_memory_bound_wse3_serves_slow_users_at_the_best_speed():
    # wse3 at 100 tok/s, no hop or layer latency (F(k) = 0): R = 21e15 B/s,
    # W_read / R = 4e12 / 21e15 = 1/5250 s, KV / R = 2.12992e9 / 21e15 = 1.0142476e-7 s.
    # On k stages B_mem = (k x 44e9 - 4e12) / (k x 2.12992e9); at the layout's best speed
    # s* = 1 / (W_read / R + B_mem KV / R) the two bounds meet, and the streams' output
    # B_mem s* = 1 / (W_read / (R B_mem) + KV / R) rises with B_mem, so with k: the largest
    # candidate of the grid ceil(2^(j/4)) up to k_cap = 16 x 91 = 1,456 wins, ceil(2^10.5) = 1,449:
    # B_mem = (1449 x 44e9 - 4e12) / (1449 x 2.12992e9) = 5.9756e13 / 3.08625408e12 = 19.36198;
    # s* = 1 / (1.9047619e-4 + 19.36198 x 1.0142476e-7) = 1 / 1.9244e-4 = 5,196.43 tok/s (below
    # the ceiling 5,250); 19.36198 x 5,196.43 = 100,613 tokens/s, x 1000 / (23 x 1.2) per MW
    e = rm.envelope(_layout(), "wse3", 100)
    b_mem = 5.9756e13 / 3.08625408e12
    s_star = 1 / (1 / 5250 + b_mem * 2.12992e9 / 21e15)
    assert s_star == pytest.approx(5196.43, rel=1e-6)
    assert e["stages"] == 1449
    assert e["physics_speed"] == pytest.approx(s_star, rel=1e-12)
    assert e["physics_tokens_per_s_per_mw"] == pytest.approx(
        b_mem * s_star * 1000 / (23 * 1.2), rel=1e-12
    )
    assert e["physics_tokens_per_s_per_mw"] == pytest.approx(100_613.1 * 1000 / 27.6, rel=1e-6)
    # V4.5: throughput never falls as users ask for less speed: every speed up to s* is served
    # at s* (the same figure); just above s* the bandwidth bound binds and it falls
    for slow in (1.0, 54.0, 1000.0, 5196.0):
        assert rm.envelope(_layout(), "wse3", slow) == e
    faster = rm.envelope(_layout(), "wse3", 5200)
    assert faster["physics_speed"] == 5200
    assert faster["physics_tokens_per_s_per_mw"] < e["physics_tokens_per_s_per_mw"]


def test_tflops_at_the_weights_precision_by_hand():
    # V4.4: the 16-, 8- and 4-bit figures at 2, 1 and 0.5 bytes a parameter (b300: 2,500, 5,000
    # and 15,000), geometric in between; outside 0.5-2 bytes, in proportion to 1 / bytes
    v = {"h.tflops": 2500, "h.tflops_fp8": 5000, "h.tflops_fp4": 15000}
    assert rm._tflops(v, "h.", 2.0) == pytest.approx(2500, rel=1e-15)
    assert rm._tflops(v, "h.", 1.0) == pytest.approx(5000, rel=1e-15)
    assert rm._tflops(v, "h.", 0.5) == pytest.approx(15000, rel=1e-15)
    # 12 bits (1.5 bytes): log2(1.5) = 0.585 of the way from 8 to 16 bits:
    # 5000 x (2500 / 5000)^0.585 = 5000 x 0.5^0.585 = 3,333.3 (= 5000 / 1.5: the step halves)
    assert rm._tflops(v, "h.", 1.5) == pytest.approx(5000 * 0.5 ** math.log2(1.5), rel=1e-14)
    # 6 bits (0.75 bytes): 5000 x 3^(log2(1 / 0.75)) = 5000 x 3^0.415 = 5000 x 1.5777 = 7,888.5
    assert rm._tflops(v, "h.", 0.75) == pytest.approx(5000 * 3 ** math.log2(4 / 3), rel=1e-14)
    assert rm._tflops(v, "h.", 0.75) == pytest.approx(7888.5, rel=1e-5)
    # 4 bytes: 2500 x 2 / 4 = 1,250; a quarter byte: 15,000 x 0.5 / 0.25 = 30,000
    assert rm._tflops(v, "h.", 4.0) == pytest.approx(1250, rel=1e-15)
    assert rm._tflops(v, "h.", 0.25) == pytest.approx(30_000, rel=1e-15)
    # blank 8-bit and 4-bit figures: each twice the next wider one (5,000 and 10,000)
    blank = {"h.tflops": 2500, "h.tflops_fp8": "", "h.tflops_fp4": ""}
    assert rm._tflops(blank, "h.", 1.0) == pytest.approx(5000, rel=1e-15)
    assert rm._tflops(blank, "h.", 0.5) == pytest.approx(10_000, rel=1e-15)
    assert rm._tflops({"h.tflops": 2500}, "h.", 0.5) == pytest.approx(10_000, rel=1e-15)


def test_envelope_compute_bound_reads_the_precision_tflops():
    # a 4-bit model (0.5 bytes a parameter) on b300 with 1,000 / 2,000 / 6,000 TFLOPS (16/8/4 bit):
    # weights 1e12 bytes, 4 GPUs, one stage, ceiling 576e12 / 1e12 = 576 tok/s. At 100 tok/s:
    # B_fl = 72 x 6,000e12 / (2 x 2e12 x 100 x (1 + 1)) = 4.32e17 / 8e14 = 540 streams, below
    # B_bw = (0.01 - 1/576) / 3.6978e-6 = 2,235 and B_mem = 19.736e12 / 2.12992e9 = 9,266.
    # Compute-bound output B_fl x s = 54,000 tokens/s whatever the layout and speed: the tie keeps
    # the fewest stages and the slowest speed, k = 1 at 100
    over = {
        "model.bytes_per_param": 0.5,
        "hardware.b300.tflops": 1000,
        "hardware.b300.tflops_fp8": 2000,
        "hardware.b300.tflops_fp4": 6000,
    }
    e = rm.envelope(_layout(**over), "b300", 100)
    per_mw = 1000 / (72 * 2.17 * 1.2)
    assert e["ceiling_tokens_per_s"] == pytest.approx(576, rel=1e-12)
    assert e["physics_tokens_per_s_per_mw"] == pytest.approx(54_000 * per_mw, rel=1e-12)
    assert (e["stages"], e["physics_speed"]) == (1, 100)
    # the 4-bit figure left blank: twice the 8-bit one, 4,000: B_fl x s = 36,000
    e = rm.envelope(_layout(**(over | {"hardware.b300.tflops_fp4": ""})), "b300", 100)
    assert e["physics_tokens_per_s_per_mw"] == pytest.approx(36_000 * per_mw, rel=1e-12)
    # 16-bit weights read the 16-bit figure: 72 x 1,000e12 / (2 x 2e12 x 2) = 9,000 tokens/s
    # (at 54 tok/s: B_bw = (1/54 - 1/144) / 3.6978e-6 = 3,130 streams x 54 = 169,000 > 9,000)
    over16 = {k: x for k, x in over.items() if k != "model.bytes_per_param"}
    e = rm.envelope(_layout(**over16), "b300", 54)
    assert e["physics_tokens_per_s_per_mw"] == pytest.approx(9_000 * per_mw, rel=1e-12)


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


# the flows (TV at H included) of a bundled-data run whose IRR the reference once got wrong: its
# bracketing regula falsi stepped outside a bracket narrowed to rounding and returned the
# bracket's midpoint, 2e-8 from the root (present value 21,590 USD instead of 0.001)
IRR_FLOWS = [
    0.0,
    -139184355.01655072,
    -84814224.15756458,
    -109742630.02834821,
    -132012031.23303047,
    -151892677.98321348,
    -169629139.62461936,
    -185442506.6950666,
    -199532440.7782349,
    -212079076.30475387,
    -223244779.71556342,
    -233175772.2966275,
    -242003623.5898056,
    -251103375.97834778,
    -259010225.43303508,
    -265878520.72221294,
    -271842954.6234899,
    -277021057.0959636,
    -281515371.9850685,
    -285415357.51951504,
    -288799045.7238351,
    -291734491.39139473,
    -294281037.3569505,
    -296490419.4013849,
    -298407731.1500859,
    -300072266.73474324,
    -301518256.7274728,
    -302775510.88379836,
    -303869979.51017845,
    -304824243.7702853,
    -305657943.93408203,
    19355948.323910687,
    18201346.828607474,
    17114805.430303507,
    16092459.414352886,
    15130636.54456858,
    14225852.608380059,
    13374805.952124827,
    12574371.297013871,
    11821593.067475878,
    11113678.415732713,
    10447990.087592795,
    9822039.24292647,
    9233478.318765737,
    8680094.002350137,
    8159800.364819844,
    7670632.192899662,
    7210738.545217098,
    6778376.551365114,
    6371905.465045494,
    5989780.977285708,
    5630549.791540014,
    5292844.459240611,
    4975378.471880954,
    4676941.6038400885,
    4396395.498776181,
    4132669.4914304214,
    3884756.6560100857,
    3651710.0718961353,
    3432639.29719524,
    47848155.71224961,
]


def test_irr_zeroes_the_present_value_to_rounding():
    # the annualised IRR y of the flows above: at the monthly rate (1 + y)^(1/12) - 1 the present
    # value is zero to rounding (about 1e-13 of the flows' discounted size), not 2e-6 of it
    y = rm._irr(IRR_FLOWS)
    x = (1 + y) ** (1 / 12) - 1
    pv = sum(f * (1 + x) ** -j for j, f in enumerate(IRR_FLOWS))
    size = sum(abs(f) * (1 + x) ** -j for j, f in enumerate(IRR_FLOWS))
    assert abs(pv) <= 1e-12 * size
    assert y == pytest.approx(-0.73280239706385, rel=1e-12)  # mpmath's root at 40 digits


# ------------------------------------------------------------------ a three-month scenario by hand


def _tiny(**over) -> dict:
    """A three-month scenario on the data basis, small enough to work by hand (version 4, with
    neutral values for version 4's keys: no price or cost decline, every adopter's query at the
    ultrafast tier, voluntary cap hits weighed in full, no lower Pro tier, the MW delivered in
    full and paid as delivered, the GPU fleet's troughs filled, the free tier not served)."""
    v = {
        "contract.value_usd": 60_000,
        "contract.mw": 3,
        "contract.term_months": 2,
        "contract.ramp_months": 2,
        "contract.payment": "pay_as_delivered",
        "contract.delivered_share": 1.0,
        "contract.platform": "x",
        "contract.tranche_mw": "",
        "contract.tranche_months": "",
        "capacity.basis": "data",
        "capacity.gpu_platform": "x",
        "capacity.gpu_fleet_utilization": 0.5,
        "capacity.gpu_cost_per_mtok_usd": 10.0,
        "capacity.backfill_flexible_share": 0.5,
        "capacity.movable_share": 0.5,
        "capacity.internal_batch_tokens_per_month": 6e9,
        "capacity.subscriber_offer": "on",
        "fleet.avoidable_share": 1.0,
        "fleet.sublet_usd_per_gpu_hour": 0.0,
        "fleet.ops_utilization": 1.0,
        "fleet.troughs": "filled",
        "free.served": 0,
        "free.dau_per_mau": 0.5,
        "free.queries_per_day": 10,
        "free.flagship_queries_per_day": 4,
        "free.alternative_cost_per_mtok_usd": 2.0,
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
        "market.price_decline_per_year": 0.0,
        "hardware.gpu_cost_decline_per_year": 0.0,
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
        "usage.context_tokens": 4096,
        "usage.ultrafast_query_share": 1.0,
        "conversion.pro_churn_monthly": 0.5,
        "conversion.extra_churn_after_term_monthly": 0.25,
        "conversion.pro_price_elasticity": 1.0,
        "conversion.capped_share_of_upgrades": 0.5,
        "conversion.max_capped_propensity": 1.0,
        "conversion.lower_pro_share": 0.0,  # no plans.pro_lower row: the one Pro tier
        "conversion.voluntary_cap_hit_weight": 1.0,
        "api.ultrafast_tokens_per_month": 250 * SPM,
        "api.standard_tokens_per_month": 750 * SPM,
        "api.fast_tokens_per_month": 250 * SPM,
        "api.reference_price_per_mtok_usd": 40,
        "api.price_elasticity": 1.0,
        "api.diversion_to_lab_tiers": 0.5,
        "api.wtp_speed_doubling_usd_per_mtok": 0.0,
        "api.speed_nest_lambda": 1.0,
        "api.ramp_months": 2,
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


PER_MW_B = 2000 * SPM  # standard-speed tokens one average MW carries in a month (Thr(10) = 2000)


def _hand() -> dict:
    """The tiny scenario worked by hand (contract value aside: incomes I_t before rent)."""
    # MW: 3 x min(1, t/2) = 1.5, 3 in the term, 0 after. Data basis: every tier at its speed;
    # Thr(100) = 1000 and Thr(10) = 2000 tokens/s per MW; C_t = 1000 MW / 100 = 15, 30, 0 streams.
    # Speed elasticity 0, no efficiency gain: phi_i = 1, e_t = 1. Plus pool N = 1000 x 0.1 = 100.
    # Plus: median 1e3, quota e x 1e3. Standard and fast (multiplier 1): ln(c / mu) = 1, so
    # SF = 1 - Phi(1) = Phi(-1) and w = mu (e^(1/2) Phi(0) + e Phi(-1)). Ultrafast (multiplier e;
    # every query of an adopter at ultrafast: the mixed burn is e, the ultrafast share 1):
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
    # A_t = (100 w_plus_u + P_(t-1) w_pro_u) / (604,800 x 100), P_0 = 10, P_1 = p1 (about 10.54)
    A = [(100 * w_plus_u + p * w_pro_u) / (SPW * 100) for p in (10, p1)]
    # V4.2, the moved traffic. D0_t, the served model's standard demand without the deal: chat
    # (100 w_plus_std + P0_(t-1) w_pro_std) SPM / SPW = 7.1745e8 tokens (P0 = 10 throughout) and
    # the API's standard and fast tokens without the ultrafast tier, M (3/8 + 1/8) = 1,125 SPM
    # = 2.9585e9 (reported in month 3 too). X_t, what the deal credits in the term: the adopters'
    # standard-equivalent volume a_want A_t s_u SPM / phi_u = 0.1 x A_t x 100 x SPM = 10 A_t SPM
    # and the API tokens diverted to ultrafast, (3/8 + 1/8) V_t = 62.5 and 125 SPM.
    chat = (100 * w_plus_std + 10 * w_pro_std) * SPM / SPW
    d0 = chat + 1125 * SPM
    X = [10 * A[0] * SPM + 0.5 * V[0], 10 * A[1] * SPM + 0.5 * V[1], 0.0]
    # B_t = movable (0.5) x max(0, D0 - X_t) + internal batch 6e9; its flexible part: the Batch
    # API's share (0.5) of the movable API traffic left, 0.5 x 0.5 x (1,125 SPM - 0.5 V_t), plus
    # the internal batch; nothing after the term
    B = [0.5 * (d0 - X[t]) + 6e9 for t in (0, 1)] + [0.0]
    F = [0.25 * (1125 * SPM - 0.5 * V[t]) + 6e9 for t in (0, 1)] + [0.0]
    y_cap_p = [(B[t] - F[t]) / PER_MW_B for t in range(3)]  # 0.1942, 0.1860 average MW
    y_cap_f = [F[t] / PER_MW_B for t in range(3)]  # 1.2736, 1.2658 average MW
    # Allocation (average MW; peak room MW / 2 = 0.75, 1.5). Values per average MW-month:
    # subscribers "on" +inf, the API 35.375 x SPM x 1000 / 1e6 = 93,029, moved traffic at the
    # GPU value 10 USD/Mtok, 1e-5 x SPM x 2000 = 52,596, peak-shaped and flexible alike (troughs
    # filled). Flexible work takes its 1.2736 average MW first; the peak-shaped moved traffic
    # (worth no more than flexible work) may use only the average room it leaves,
    # 1.5 - 1.2736 = 0.2264 < 0.75. Month 1: subscribers 0.01 A_1 (A_1 x 0.1 x 100 / 1000),
    # API 0.125, peak-shaped moved traffic 0.2264 - 0.125 - 0.01 A_1 = 0.0741 (< its 0.1942):
    # every MW used. Month 2: room for everything (1.5 - 0.25 - 0.01 A_2 > 0.1860, and
    # 3 - 1.2658 > 1.5): the caps.
    y_sub = [0.01 * A[0], 0.01 * A[1], 0.0]
    y_api = [0.125, 0.25, 0.0]
    y_peak = [1.5 - y_cap_f[0] - 0.125 - y_sub[0], y_cap_p[1], 0.0]
    y_flex = [y_cap_f[0], y_cap_f[1], 0.0]
    assert 0 < y_peak[0] < y_cap_p[0] and y_cap_f[0] < 1.5  # month 1 binds as described
    a_u = [0.1, 0.1, 0.0]
    util = [1.0, (0.25 + y_sub[1] + y_cap_p[1] + y_cap_f[1]) / 3, None]
    s_api = [2.5, 5.0, 0.0]  # API streams at peak: V x 2 / (100 SPM)
    sub_peak = [0.1 * A[0] * 2, 0.1 * A[1] * 2, 0.0]
    bp = [y * PER_MW_B for y in y_peak]
    bf = [y * PER_MW_B for y in y_flex]
    subs_tokens = [0.1 * A[0] * 100 * SPM, 0.1 * A[1] * 100 * SPM, 0.0]
    served = [V[t] + subs_tokens[t] + bp[t] + bf[t] for t in range(3)]
    sub = [180 * d for d in dp]  # (200 - 20) dP
    api = [x * 33.75e-6 for x in V]
    added = [d * (w_pro_std - w_plus_std) * SPM / SPW for d in dp]
    backfill_usd = [(bp[t] + bf[t]) * 1e-5 for t in range(3)]
    # tokens off the GPU fleet: moved traffic, the API's diverted tokens, the adopters' usage
    moved = [bp[t] + bf[t] + 0.5 * V[t] + subs_tokens[t] for t in range(3)]
    gpu = [
        backfill_usd[t] + 5e-6 * V[t] + subs_tokens[t] * 1e-5 - added[t] * 1e-5 for t in range(3)
    ]
    income = [(sub[t] + api[t]) * 0.9 + gpu[t] for t in range(3)]  # CF_t + R_t
    cash_in = [(sub[t] + api[t]) * 0.9 for t in range(3)]  # the same without the GPU cost avoided
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
    # a unit of adoption share in month 1: adopters' usage off the GPUs v_std A_1 100 SPM / 1e6
    # (v_std = 10 USD/Mtok),
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
    assert r["gpu_cost_flexible_per_mtok_usd"] == 10.0  # the override sets every token's value
    assert r["capped_upgrade_propensity"] == pytest.approx(h["prop"], rel=1e-14)
    assert r["plus_to_pro_base_monthly"] == pytest.approx(0.025, rel=1e-14)
    assert r["pro_price_factor"] == pytest.approx(1.0, rel=1e-15)
    assert r["market_tokens_per_month"] == pytest.approx(2250 * SPM, rel=1e-14)
    assert r["diversion"] == pytest.approx({"standard": 3 / 8, "fast": 1 / 8}, rel=1e-12)
    assert r["api_margin_per_mtok_usd"] == pytest.approx(35.375, rel=1e-12)
    assert r["adoption_wanted"] == pytest.approx(0.1, rel=1e-15)
    assert r["api_tokens_wanted"] == approx(h["V"])
    assert r["api_tokens_served"] == approx(h["V"])
    assert r["api_streams_peak"] == approx(h["s_api"])
    assert r["demand_no_deal_tokens"] == approx([h["d0"]] * 3)
    assert h["d0"] == pytest.approx(3.67597e9, rel=1e-5)
    assert r["credited_tokens"] == approx(h["X"])
    assert r["moved_demand_cap_tokens"] == approx(h["B"])
    assert r["moved_flexible_cap_tokens"] == approx(h["F"])
    assert r["mw_subscriber"] == approx(h["y_sub"])
    assert r["mw_api"] == approx(h["y_api"])
    assert r["mw_backfill_peak"] == approx(h["y_peak"])
    assert r["mw_backfill_flexible"] == approx(h["y_flex"])
    assert r["mw_free"] == [0.0, 0.0, 0.0]
    assert r["mw_idle"] == approx([0.0, 3 - 3 * h["util"][1], 0.0])
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
    assert r["backfill_tokens"] == approx([h["bp"][t] + h["bf"][t] for t in range(3)])
    assert r["backfill_usd"] == approx(h["backfill_usd"])
    assert r["utilization"][:2] == approx(h["util"][:2])
    assert r["utilization"][2] is None
    assert r["tokens_served"] == approx(h["served"])
    assert r["tokens_moved_off_gpus"] == approx(h["moved"])
    assert r["tokens_added_to_gpus"] == approx(h["added"])
    assert r["gpu_savings_usd"] == approx(h["gpu"])
    assert r["subscriber_value_of_a_convert"] == approx(h["W"])
    assert r["subscriber_value"][0] == pytest.approx(h["v_s1"], rel=1e-12)
    cf = [h["income"][0] - 20_000, h["income"][1] - 40_000, h["income"][2]]
    assert r["net_cash_flow"] == approx(cf)
    assert r["cumulative_cash"] == approx([cf[0], cf[0] + cf[1], sum(cf)])
    # the cash alone (no GPU cost avoided): (sub + api) x 0.9 - R_t, about -9,928, -19,899 and
    # +33: the running sum ends negative, never recovered
    cash = [h["cash_in"][0] - 20_000, h["cash_in"][1] - 40_000, h["cash_in"][2]]
    assert r["cash_flow"] == approx(cash)
    assert cash[0] < 0 and cash[1] < 0 < cash[2] and sum(cash) < 0
    assert r["cash_payback_months"] is None
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
    # v_s / (A_1 x 100 / 1000) = 8,137 USD: below the moved traffic's 52,596 (1e-5 x SPM x 2000),
    # peak-shaped or flexible. Month 1: flexible work takes its 1.2736 average MW, the API 0.125,
    # and the peak-shaped moved traffic the rest of the room flexible work leaves,
    # 1.5 - 1.2736 - 0.125 = 0.1014 (< its cap 0.1942): the subscribers yield. Month 2 has room:
    # they are served in full, with P_1 = P0_1 = 10 and so A_2 = A_1.
    assert h["v_s1"] > 0
    r = _run(**{"capacity.subscriber_offer": "auto"})
    assert r["subscriber_value"][0] == pytest.approx(h["v_s1"], rel=1e-12)
    assert r["value_per_mw_subscriber"][0] == pytest.approx(
        h["v_s1"] / (h["A"][0] * 100 / 1000), rel=1e-12
    )
    assert r["value_per_mw_subscriber"][0] == pytest.approx(8137, rel=1e-3)
    assert r["value_per_mw_subscriber"][0] < 1e-5 * SPM * 2000
    peak1 = 1.5 - h["y_cap_f"][0] - 0.125
    assert r["mw_subscriber"] == pytest.approx([0, 0.01 * h["A"][0], 0], rel=1e-12, abs=1e-15)
    assert r["mw_backfill_peak"][0] == pytest.approx(peak1, rel=1e-12)
    assert r["ultrafast_adoption"] == pytest.approx([0, 0.1, 0], abs=1e-15)
    # the cap on moved traffic credits the WANTED adopters (a_want A_t s_u SPM / phi_u) whether
    # or not they are served: month 1's X_1 is the one of the hand working
    assert r["credited_tokens"][0] == pytest.approx(h["X"][0], rel=1e-12)
    # off: no subscriber streams, no extra Pro subscribers, and nothing credited for adopters:
    # X_t = 0.5 V_t only, B_1 = 0.5 (D0 - 62.5 SPM) + 6e9; month 1 binds as before
    r = _run(**{"capacity.subscriber_offer": "off"})
    assert r["ultrafast_adoption"] == [0.0, 0.0, 0.0]
    assert r["incremental_pro"] == pytest.approx([0, 0, 0], abs=1e-12)
    assert r["credited_tokens"] == pytest.approx([62.5 * SPM, 125 * SPM, 0], rel=1e-12)
    assert r["moved_demand_cap_tokens"][0] == pytest.approx(
        0.5 * (h["d0"] - 62.5 * SPM) + 6e9, rel=1e-12
    )
    assert r["mw_backfill_peak"][0] == pytest.approx(peak1, rel=1e-12)


def test_tiny_scenario_payback_paths():
    inc = _hand()["income"]
    assert inc[0] > 0 and inc[1] > 0
    # a dear contract: never recovers
    dear = _run(**{"contract.value_usd": 1e7})
    assert dear["payback_months"] is None
    # take-or-pay: flat rent value / 2 whatever is delivered; K_1 < 0 <= K_2 -> a lasting
    # recovery if K_3 >= 0
    flat = {"contract.payment": "take_or_pay"}
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


def test_delivered_share_pay_as_delivered_and_take_or_pay():
    # V4.5: half the contracted MW delivered: 0.75 and 1.5 MW online, 7.5 and 15 streams at
    # 1000 tokens/s per MW / 100 tok/s. Pay as delivered: the rent follows the MW delivered,
    # 60,000 x 0.5 x 1.5 / 4.5 = 10,000 and 60,000 x 0.5 x 3 / 4.5 = 20,000 (30,000 in all)
    half = {"contract.delivered_share": 0.5}
    r = _run(**half)
    assert r["mw_online"] == pytest.approx([0.75, 1.5, 0.0], rel=1e-15)
    assert r["capacity_streams"] == pytest.approx([7.5, 15, 0], rel=1e-14)
    assert r["rent"] == pytest.approx([10_000, 20_000, 0], rel=1e-14)
    # month 1 (0.375 average MW of peak room): flexible work (1.2736 wanted) would take all 0.75 MW,
    # so the peak-shaped moved traffic (worth no more) gets nothing; the subscribers (0.01 A_1 =
    # 0.0273) and the API (0.125), worth more, take their share of the peak room; flexible work
    # the rest, 0.75 - 0.125 - 0.0273
    h = _hand()
    assert r["mw_subscriber"][0] == pytest.approx(h["y_sub"][0], rel=1e-12)
    assert r["mw_api"][0] == pytest.approx(0.125, rel=1e-12)
    assert r["mw_backfill_peak"][0] == 0.0
    assert r["mw_backfill_flexible"][0] == pytest.approx(0.75 - 0.125 - h["y_sub"][0], rel=1e-12)
    # take-or-pay: owed in full, flat, 60,000 / 2 a month, whatever is delivered
    r = _run(**half, **{"contract.payment": "take_or_pay"})
    assert r["mw_online"] == pytest.approx([0.75, 1.5, 0.0], rel=1e-15)
    assert r["rent"] == pytest.approx([30_000, 30_000, 0], rel=1e-15)
    with pytest.raises(ValueError, match="contract.payment"):
        _run(**{"contract.payment": "as_invoiced"})
    # buying delivers what it buys: the buy case does not read the delivered share
    assert rm.buy_npv(_tiny(**half)) == pytest.approx(rm.buy_npv(_tiny()), rel=1e-15)


def test_moved_traffic_cap_by_hand():
    # V4.2 with the subscribers off (nothing credited for adopters): X_t = (3/8 + 1/8) V_t;
    # movable share 0.3, internal batch 1e9, the Batch API's share 0.4:
    # B_t = 0.3 x (D0 - 0.5 V_t) + 1e9, its flexible part 0.3 x 0.4 x (1,125 SPM - 0.5 V_t) + 1e9
    h = _hand()
    over = {
        "capacity.subscriber_offer": "off",
        "capacity.movable_share": 0.3,
        "capacity.internal_batch_tokens_per_month": 1e9,
        "capacity.backfill_flexible_share": 0.4,
    }
    r = _run(**over)
    V = h["V"]
    B = [0.3 * (h["d0"] - 0.5 * V[t]) + 1e9 for t in (0, 1)] + [0.0]
    F = [0.12 * (1125 * SPM - 0.5 * V[t]) + 1e9 for t in (0, 1)] + [0.0]
    assert r["demand_no_deal_tokens"] == pytest.approx([h["d0"]] * 3, rel=1e-12)
    assert r["moved_demand_cap_tokens"] == pytest.approx(B, rel=1e-12)
    assert r["moved_flexible_cap_tokens"] == pytest.approx(F, rel=1e-12)
    # month 2 has room for all of it (0.25 MW of API, (B_2 - F_2) / PER_MW_B = 0.1309 peak-shaped
    # and F_2 / PER_MW_B = 0.2501 flexible of 3 MW): the moved tokens are the cap B_2
    assert r["backfill_peak_tokens"][1] == pytest.approx(B[1] - F[1], rel=1e-12)
    assert r["backfill_flexible_tokens"][1] == pytest.approx(F[1], rel=1e-12)
    assert r["backfill_tokens"][1] == pytest.approx(B[1], rel=1e-12)
    # every figure a cap: nothing movable and no internal batch, no moved traffic at all
    r = _run(
        **over | {"capacity.movable_share": 0.0, "capacity.internal_batch_tokens_per_month": 0}
    )
    assert r["moved_demand_cap_tokens"] == [0.0, 0.0, 0.0]
    assert r["backfill_tokens"] == [0.0, 0.0, 0.0]
    # the internal batch alone is flexible work: B_t = F_t = 1e9
    r = _run(**over | {"capacity.movable_share": 0.0})
    assert r["moved_demand_cap_tokens"] == pytest.approx([1e9, 1e9, 0], rel=1e-15)
    assert r["moved_flexible_cap_tokens"] == pytest.approx([1e9, 1e9, 0], rel=1e-15)
    assert r["backfill_flexible_tokens"][:2] == pytest.approx([1e9, 1e9], rel=1e-12)
    assert r["backfill_peak_tokens"][:2] == pytest.approx([0, 0], abs=1e-6)
    # all the API's movable traffic flexible (share 1), movable share 1:
    # B_t = D0 - 0.5 V_t + 1e9 and F_t = 1,125 SPM - 0.5 V_t + 1e9: the chat stays peak-shaped
    r = _run(**over | {"capacity.movable_share": 1.0, "capacity.backfill_flexible_share": 1.0})
    assert r["moved_demand_cap_tokens"][1] == pytest.approx(h["d0"] - 125 * SPM + 1e9, rel=1e-12)
    assert r["moved_flexible_cap_tokens"][1] == pytest.approx(1000 * SPM + 1e9, rel=1e-12)
    assert r["moved_demand_cap_tokens"][1] - r["moved_flexible_cap_tokens"][1] == pytest.approx(
        h["chat"], rel=1e-9
    )


def test_free_tier_served_by_hand():
    # V4.2 scenario free_tier_served: DAU/MAU 0.5 x min(10, 4 flagship) queries x 1 token a query
    # x SPM / 86,400 days a month = 2 x 30.4375 = 60.875 tokens a month per free user, over
    # 1000 - 100 = 900 free users: 54,787.5 tokens a month, added to D0 in every month; the cap
    # on their moved traffic is movable share 0.5 of it, 27,393.75 tokens, valued at the smaller
    # model's cost, 2 USD/Mtok
    h = _hand()
    free = 900 * 0.5 * 4 * SPM / 86_400
    assert free == pytest.approx(54_787.5, rel=1e-15)
    r = _run(**{"free.served": 1})
    assert r["demand_no_deal_tokens"] == pytest.approx([h["d0"] + free] * 3, rel=1e-12)
    assert r["moved_demand_cap_tokens"][:2] == pytest.approx(
        [h["B"][0] + 0.5 * free, h["B"][1] + 0.5 * free], rel=1e-12
    )
    # month 1 is full (every average MW used, the free tier's value 2e-6 x PER_MW_B = 10,519 below
    # the rest): nothing; month 2 has room: all of it, 27,393.75 / PER_MW_B average MW
    assert r["mw_free"][0] == pytest.approx(0, abs=1e-15)
    assert r["mw_free"][1] == pytest.approx(0.5 * free / PER_MW_B, rel=1e-12)
    assert r["free_tier_moved_tokens"][1] == pytest.approx(0.5 * free, rel=1e-12)
    assert r["backfill_usd"][1] == pytest.approx(
        h["backfill_usd"][1] + 0.5 * free * 2e-6, rel=1e-12
    )
    assert r["tokens_moved_off_gpus"][1] == pytest.approx(h["moved"][1] + 0.5 * free, rel=1e-12)
    assert r["mw_backfill_peak"][0] == pytest.approx(h["y_peak"][0], rel=1e-12)


def test_gpu_hour_value_and_token_values_by_hand():
    # V4.3 on the data basis with the value derived (no override): platform x is the GPU fleet,
    # 10 kW a chip, PUE 1.25: 1000 / 12.5 = 80 chips a facility MW; Thr(10) = 2000 and, on the
    # two-point curve (a straight line in log-log), Thr(20) = 2000 x 2^(log10(1/2)) = 1,623.345
    # tokens/s per MW. h = 1e6 x 80 / (Thr x 3600): 11.111 and 13.689 GPU-hours per 1M tokens.
    # e = 10 x 1.25 x 0.01 = 0.125 USD a GPU-hour; lambda = a r_m + (1 - a)(sublet + e)
    # = 0.25 x 0.8 + 0.75 x (0.2 + 0.125) = 0.2 + 0.24375 = 0.44375 USD a GPU-hour.
    # Troughs filled: v = lambda h / u_ops = 0.44375 x 11.111 / 0.8 = 6.163 (standard, below its
    # list price 10) and 0.44375 x 13.689 / 0.8 = 7.593 (fast, below 20); flexible work the same.
    over = {
        "capacity.gpu_cost_per_mtok_usd": "",
        "hardware.x.rent_usd_per_hour": 0.8,
        "fleet.avoidable_share": 0.25,
        "fleet.sublet_usd_per_gpu_hour": 0.2,
        "fleet.ops_utilization": 0.8,
        "buy.power_price_usd_per_kwh": 0.01,
    }
    thr_f = 2000 * 2 ** -math.log10(2)
    assert thr_f == pytest.approx(1623.345, rel=1e-6)
    h_s, h_f = 80e6 / (2000 * 3600), 80e6 / (thr_f * 3600)
    lam = 0.25 * 0.8 + 0.75 * (0.2 + 0.125)
    v_s, v_f = lam * h_s / 0.8, lam * h_f / 0.8
    assert (v_s, v_f) == pytest.approx((6.1632, 7.5932), rel=1e-4)
    r = _run(**over)
    assert r["gpu_rent_usd_per_hour"] == pytest.approx(0.8, rel=1e-15)
    assert r["gpu_energy_usd_per_hour"] == pytest.approx(0.125, rel=1e-14)
    assert r["gpu_hour_value_usd"] == pytest.approx(0.44375, rel=1e-14)
    assert r["gpu_throughput_per_mw"] == pytest.approx({"standard": 2000, "fast": thr_f}, rel=1e-12)
    assert r["gpu_hours_per_mtok"] == pytest.approx({"standard": h_s, "fast": h_f}, rel=1e-12)
    assert r["gpu_cost_per_mtok_usd"] == pytest.approx({"standard": v_s, "fast": v_f}, rel=1e-12)
    assert r["gpu_cost_flexible_per_mtok_usd"] == pytest.approx(v_s, rel=1e-12)
    assert r["gpu_cost_capped_by_margin"] == []
    # the API's margin with the derived values: 36 - 3/8 (9 - v_s) - 1/8 (18 - v_f)
    m_u = 36 - 3 / 8 * (9 - v_s) - 1 / 8 * (18 - v_f)
    assert r["api_margin_per_mtok_usd"] == pytest.approx(m_u, rel=1e-12)
    # month 2 has room for all the moved traffic (B_2 of the hand working: it does not depend on
    # the values), each token worth v_s
    h = _hand()
    assert r["backfill_tokens"][1] == pytest.approx(h["B"][1], rel=1e-12)
    assert r["backfill_usd"][1] == pytest.approx(h["B"][1] * v_s * 1e-6, rel=1e-12)
    # troughs idle, no sublet, u_ops 1: lambda = 0.2 + 0.75 x 0.125 = 0.29375; peak-shaped
    # v_p = lambda x pta x h + e x h = (0.5875 + 0.125) x 11.111 = 7.917 (fast: 0.7125 x 13.689
    # = 9.754), flexible v_f = e x h_std = 1.389; month 2: (B_2 - F_2) v_p + F_2 v_f
    idle = over | {
        "fleet.troughs": "idle",
        "fleet.sublet_usd_per_gpu_hour": 0.0,
        "fleet.ops_utilization": 1.0,
    }
    r = _run(**idle)
    assert r["gpu_hour_value_usd"] == pytest.approx(0.29375, rel=1e-14)
    v_p = {"standard": 0.7125 * h_s, "fast": 0.7125 * h_f}
    assert v_p["standard"] == pytest.approx(7.9167, rel=1e-4)
    assert r["gpu_cost_per_mtok_usd"] == pytest.approx(v_p, rel=1e-12)
    assert r["gpu_cost_flexible_per_mtok_usd"] == pytest.approx(0.125 * h_s, rel=1e-12)
    want = ((h["B"][1] - h["F"][1]) * v_p["standard"] + h["F"][1] * 0.125 * h_s) * 1e-6
    assert r["backfill_usd"][1] == pytest.approx(want, rel=1e-12)
    with pytest.raises(ValueError, match="fleet.troughs"):
        _run(**over, **{"fleet.troughs": "empty"})
    # the one clamp left, a token's list price: rent 2, a = 1: lambda = 2, v = 2 x 11.111 / 0.8
    # = 27.8 > 10 and 2 x 13.689 / 0.8 = 34.2 > 20: each at its list price, flexible at the
    # standard one, both listed
    r = _run(**over | {"hardware.x.rent_usd_per_hour": 2.0, "fleet.avoidable_share": 1.0})
    assert r["gpu_hour_value_usd"] == pytest.approx(2.0, rel=1e-15)
    assert r["gpu_cost_per_mtok_usd"] == {"standard": 10.0, "fast": 20.0}
    assert r["gpu_cost_flexible_per_mtok_usd"] == 10.0
    assert r["gpu_cost_capped_by_margin"] == ["standard", "fast"]


def test_price_and_cost_indices_by_hand():
    # V4.6: declines of 1 - 0.5^12 and 1 - 0.75^12 a year: month t's price index
    # pi_t = 0.5^(t - 1) (1, 0.5, 0.25) and cost index c_t = 0.75^(t - 1) (1, 0.75, 0.5625).
    # API prices at pi_t of their list, every GPU value at c_t; the logit reads p_t / pi_t: the
    # shares stay put; subscriptions stay as listed, so the Pro paths are the hand working's.
    # Month 2's values per average MW: API (0.9 x 0.5 x 33.75 + 0.75 x 5) x SPM / 1000 = 18.9375
    # x 2,629.8 = 49,802, above the moved traffic's 0.75 x 52,596 = 39,447: the same allocation
    # (month 2 has room for all), and month 1's indices are 1.
    h = _hand()
    r = _run(
        **{
            "market.price_decline_per_year": 1 - 0.5**12,
            "hardware.gpu_cost_decline_per_year": 1 - 0.75**12,
        }
    )
    approx = lambda xs: pytest.approx(xs, rel=1e-12, abs=1e-9)  # noqa: E731
    assert r["shares"]["ultrafast"] == pytest.approx(1 / 9, rel=1e-13)
    assert r["api_tokens_served"] == approx(h["V"])
    assert r["pro"] == approx(h["pro"])
    assert r["value_per_mw_api"][1] == pytest.approx(18.9375 * SPM / 1000, rel=1e-12)
    V = h["V"]
    assert r["api_revenue"] == approx([V[0] * 33.75e-6, V[1] * 0.5 * 33.75e-6, 0])
    assert r["api_ultrafast_revenue"][1] == pytest.approx(V[1] * 0.5 * 40e-6, rel=1e-12)
    assert r["api_revenue_lost"][1] == pytest.approx(V[1] * 0.5 * 6.25e-6, rel=1e-12)
    assert r["api_gpu_cost_avoided"][1] == pytest.approx(V[1] * 0.75 * 5e-6, rel=1e-12)
    assert r["subscription_revenue"] == approx(h["sub"])
    assert r["backfill_usd"] == approx([h["backfill_usd"][0], 0.75 * h["backfill_usd"][1], 0])
    assert r["gpu_savings_usd"] == approx([h["gpu"][0], 0.75 * h["gpu"][1], 0.5625 * h["gpu"][2]])
    # the terminal value's margin at c_H: m_H = 162 - (w_pro_std - w_plus_std) SPM / SPW x 1e-5
    # x 0.5625
    m_h = 162 - (h["w_pro_std"] - h["w_plus_std"]) * SPM / SPW * 1e-5 * 0.5625
    assert r["terminal_value_usd"] == pytest.approx(
        h["dp"][2] * m_h * 0.25 / (h["r_m"] + 0.75), rel=1e-12
    )


def _mixed_burn(q: float) -> dict:
    """An adopter's figures at the mixed burn with a share q of queries at ultrafast (phi = 1):
    the quota units a token burns b = q e + (1 - q), the ultrafast share of their tokens q."""
    burn = q * math.e + (1 - q)
    c = math.e * 1e3 / burn  # the Plus quota in tokens at that burn; median 1e3
    ell = math.log(c / 1e3)
    sf = 1 - NormalDist().cdf(ell)
    w = 1e3 * (SQRT_E * NormalDist().cdf(ell - 1) + c / 1e3 * sf)  # demand truncated at c
    return {"sf": sf, "w_plus_u": q * w, "w_pro_u": q * 1e7 * SQRT_E}


def test_mixed_burn_by_hand():
    # V4.7: adopters send half their queries at ultrafast (multiplier e), half at standard (1):
    # a token burns b = (e + 1) / 2 = 1.859 quota units; the Plus quota e x 1e3 allows
    # c = 2e x 1e3 / (e + 1) = 1,462 tokens, ln(c / 1e3) = 1 + ln 2 - ln(e + 1) = 0.37989:
    # SF = 1 - Phi(0.37989) = 0.35202 (0.5 with every query at ultrafast). Their ultrafast tokens
    # are half their (truncated) demand; Pro: never capped, 0.5 x 1e7 e^(1/2)
    m = _mixed_burn(0.5)
    assert m["sf"] == pytest.approx(0.352015, rel=1e-5)
    # the hand figures at q = 1 are the tiny scenario's
    one = _mixed_burn(1.0)
    assert (one["sf"], one["w_plus_u"]) == pytest.approx((0.5, _hand()["w_plus_u"]), rel=1e-14)
    r = _run(**{"usage.ultrafast_query_share": 0.5})
    prop = 0.025 / PHI_M1
    h1 = PHI_M1 + 0.1 * (m["sf"] - PHI_M1)
    assert r["plus_cap_hit"][0] == pytest.approx(h1, rel=1e-12)
    assert r["pro"][0] == pytest.approx(5 + 100 * (0.025 + prop * h1), rel=1e-12)
    # A_1 = (100 w_plus_u + 10 w_pro_u) / (SPW x 100); subscribers "on": 0.01 A_1 average MW;
    # the credited adopters' volume 0.1 A_1 x 100 x SPM = 10 A_1 SPM, plus the API's 62.5 SPM
    a1 = (100 * m["w_plus_u"] + 10 * m["w_pro_u"]) / (SPW * 100)
    assert r["mw_subscriber"][0] == pytest.approx(0.01 * a1, rel=1e-12)
    assert r["credited_tokens"][0] == pytest.approx(10 * a1 * SPM + 62.5 * SPM, rel=1e-12)


def test_voluntary_cap_hit_weight_by_hand():
    # V4.7: the deal's extra cap hits (0.1 adopters x (0.5 - Phi(-1))) weigh w in the upgrades;
    # the cap-hit share reported stays h = Phi(-1) + 0.1 (0.5 - Phi(-1))
    h = _hand()
    prop = h["prop"]
    r = _run(**{"conversion.voluntary_cap_hit_weight": 0.5})
    assert r["plus_cap_hit"][0] == pytest.approx(h["h"], rel=1e-12)
    up = 0.025 + prop * (PHI_M1 + 0.5 * 0.1 * (0.5 - PHI_M1))
    assert r["pro"][0] == pytest.approx(5 + 100 * up, rel=1e-12)
    # weight 0: no extra upgrades at all (the Pro path is the no-deal one), and a subscriber
    # stream is worth only the adopters' usage off the GPUs, v_std A_1 x 100 x SPM / 1e6
    r = _run(**{"conversion.voluntary_cap_hit_weight": 0.0})
    assert r["incremental_pro"] == pytest.approx([0, 0, 0], abs=1e-12)
    assert r["subscriber_value"][0] == pytest.approx(1e-5 * h["A"][0] * 100 * SPM, rel=1e-12)


def test_lower_pro_tier_by_hand():
    # V4.7: a lower Pro tier at 100 USD (reference 100), median 1e5 tokens a week, never capped,
    # with half of the upgrades: the upgrade pays 0.5 x 200 + 0.5 x 100 = 150 against the mixed
    # reference 150 (factor 1), the margin 150 - 20 = 130; the Pro stock's usage is the mix,
    # w = 0.5 x 1e7 e^(1/2) + 0.5 x 1e5 e^(1/2) = 5.05e6 e^(1/2). The upgrades follow the Plus
    # cap hits: the Pro paths are the hand working's
    h = _hand()
    lower = {
        "plans.pro_lower.price_usd_month": 100,
        "plans.pro_lower.price_ref_usd_month": 100,
        "plans.pro_lower.queries_per_day": 1e5 * SQRT_E / 7,
        "plans.pro_lower.weekly_quota_queries": 1e19,
        "conversion.lower_pro_share": 0.5,
    }
    r = _run(**lower)
    w_mix = 5.05e6 * SQRT_E
    assert r["pro_price_factor"] == pytest.approx(1.0, rel=1e-15)
    assert r["incremental_pro"] == pytest.approx(h["dp"], rel=1e-12)
    assert r["subscription_revenue"] == pytest.approx([130 * d for d in h["dp"]], rel=1e-12)
    chat = (100 * h["w_plus_std"] + 10 * w_mix) * SPM / SPW
    assert r["demand_no_deal_tokens"][0] == pytest.approx(chat + 1125 * SPM, rel=1e-12)
    assert r["tokens_added_to_gpus"] == pytest.approx(
        [d * (w_mix - h["w_plus_std"]) * SPM / SPW for d in h["dp"]], rel=1e-12
    )
    a1 = (100 * h["w_plus_u"] + 10 * w_mix) / (SPW * 100)
    assert r["mw_subscriber"][0] == pytest.approx(0.01 * a1, rel=1e-12)
    # the top tier repriced to 300: the upgrade pays 0.5 x 300 + 50 = 200 against 150. The binary
    # logit at s_r = 0.025 / Phi(-1) = 0.15757, beta = 1 / (150 (1 - s_r)):
    # pf = 1 / (s_r + (1 - s_r) exp(50 beta)) = 1 / (0.15757 + 0.84243 e^0.39567) = 0.70977;
    # month 1 without the deal: P0_1 = 10 x 0.5 + pf x 0.05 x 100
    r = _run(**lower | {"plans.pro.price_usd_month": 300})
    s_r = 0.025 / PHI_M1
    pf = 1 / (s_r + (1 - s_r) * math.exp(50 / (150 * (1 - s_r))))
    assert pf == pytest.approx(0.70977, rel=1e-5)
    assert r["pro_price_factor"] == pytest.approx(pf, rel=1e-12)
    assert r["pro_counterfactual"][0] == pytest.approx(5 + 5 * pf, rel=1e-12)
    assert r["subscription_revenue"][0] == pytest.approx(180 * r["incremental_pro"][0], rel=1e-12)


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
    # adopters, nothing credited (X = 0): the moved traffic is 0.5 x D0 + 6e9 a month, 1.83799e9 +
    # 6e9 (D0 as in the data-basis hand working: every GPU tier at its tier speed), far below
    # the MW at Thr(10) of the physics basis; its flexible part 0.25 x 1,125 SPM + 6e9
    v = _physics(**{"tiers.ultrafast.tokens_per_s": 300})
    r = rm.run(v, base=v)
    assert r["ultrafast_offered"] is False and r["served_tokens_per_s"]["ultrafast"] is None
    assert r["throughput_per_mw_ultrafast"] == 0.0
    assert r["capacity_streams"] == [0.0, 0.0, 0.0]
    assert r["api_tokens_wanted"] == [0.0] * 3 and r["api_tokens_served"] == [0.0] * 3
    assert r["ultrafast_adoption"] == [0.0] * 3 and r["incremental_pro"] == [0.0] * 3
    assert r["credited_tokens"] == [0.0] * 3
    moved = 0.5 * _hand()["d0"] + 6e9
    assert r["backfill_tokens"] == pytest.approx([moved, moved, 0.0], rel=1e-12)
    assert r["backfill_flexible_tokens"][:2] == pytest.approx(
        [0.25 * 1125 * SPM + 6e9] * 2, rel=1e-12
    )
    y = moved / (SPM * thr_std)
    assert r["utilization"][:2] == pytest.approx([y / 1.5, y / 3], rel=1e-12)
