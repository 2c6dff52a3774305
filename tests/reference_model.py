"""A plain, scalar, per-scenario implementation of MODEL.md sections 3, 5 and 6.

Written straight from the specification with the standard library (math,
statistics.NormalDist) and scipy's PchipInterpolator, sharing no code with
econ's vectorised model. Tests compare the two; benchmarks/engine.py times it
as the per-scenario Python loop.
"""

from __future__ import annotations

import math
from statistics import NormalDist

from scipy.interpolate import PchipInterpolator

SECONDS_PER_MONTH = 2_629_800.0
_PHI = NormalDist().cdf


def run(v: dict) -> dict:
    """v: {dotted key: value} for one scenario; returns monthly lists and headline figures."""
    H = int(v["horizon.months"])
    T = int(v["contract.term_months"])
    plat = v["contract.platform"]
    pts = sorted(
        (v[f"frontier.{i}.tokens_per_s_per_user"], v[f"frontier.{i}.tokens_per_s_per_mw"])
        for i in {k.split(".")[1] for k in v if k.startswith("frontier.")}
        if v[f"frontier.{i}.platform"] == plat
    )
    s_u = v["tiers.ultrafast.tokens_per_s"]
    exact = [y for x, y in pts if x == s_u]
    if exact:
        thr = exact[0]
    else:
        xs, ys = [math.log(x) for x, _ in pts], [math.log(y) for _, y in pts]
        thr = math.exp(float(PchipInterpolator(xs, ys)(math.log(s_u))))
    s_std = v["tiers.standard.tokens_per_s"]
    el = v["usage.speed_elasticity"]
    f = {
        i: v[f"tiers.{i}.usage_multiplier"] * (v[f"tiers.{i}.tokens_per_s"] / s_std) ** el
        for i in ("standard", "fast", "ultrafast")
    }
    sigma = v["usage.demand_sigma"]
    q, m = v["plans.plus.weekly_quota_tokens"], v["plans.plus.median_weekly_tokens"]
    a_f, a_u_max = v["tiers.fast.adoption"], v["tiers.ultrafast.adoption"]
    pc = v["usage.peak_concurrency"]
    churn = v["conversion.pro_churn_monthly"]
    base, prop = v["conversion.plus_to_pro_base_monthly"], v["conversion.capped_upgrade_propensity"]
    r = v["finance.discount_rate_annual"]
    P = P0 = v["market.pro_subscribers_start"]
    out = {k: [] for k in ("rent", "revenue", "cf", "pro", "pro0", "h", "h0", "a_u", "util")}
    for t in range(1, H + 1):
        ramp = v["contract.ramp_months"]
        share = (min(1.0, t / ramp) if ramp > 0 else 1.0) if t <= T else 0.0
        C = thr * v["contract.mw"] * share / s_u
        V = v["api.ultrafast_tokens_per_month"] * share
        S_api = V / (s_u * SECONDS_PER_MONTH)
        n_plus = (
            v["market.mau"]
            * (1 + v["market.mau_growth_monthly"]) ** (t - 1)
            * v["market.plus_share_of_mau"]
        )
        E = n_plus + P
        a_u = min(a_u_max, max(0.0, C - S_api) / (pc * E)) if t <= T else 0.0
        e = (1 - v["usage.token_efficiency_gain_annual"]) ** ((t - 1) / 12)

        def sf(i: str, e: float = e) -> float:
            return 1 - _PHI(math.log(q / (m * e * f[i])) / sigma)

        h = (1 - a_f - a_u) * sf("standard") + a_f * sf("fast") + a_u * sf("ultrafast")
        h0 = (1 - a_f) * sf("standard") + a_f * sf("fast")
        P = P * (1 - churn) + (base + prop * h) * n_plus
        P0 = P0 * (1 - churn) + (base + prop * h0) * n_plus
        rent = v["contract.value_usd"] / T if t <= T else 0.0
        rev = (P - P0) * (v["plans.pro.price_usd_month"] - v["plans.plus.price_usd_month"]) + V * v[
            "tiers.ultrafast.price_per_mtok_usd"
        ] / 1e6
        cf = rev * (1 - v["finance.variable_cost_share"]) - rent
        for k, x in zip(
            out,
            (
                rent,
                rev,
                cf,
                P,
                P0,
                h,
                h0,
                a_u,
                (S_api + pc * a_u * E) / C if C > 0 else float("nan"),
            ),
            strict=True,
        ):
            out[k].append(x)
    d = [(1 + r) ** (-t / 12) for t in range(1, H + 1)]
    npv = sum(c * dt for c, dt in zip(out["cf"], d, strict=True))
    return {
        **out,
        "npv": npv,
        "payback": _payback(out["cf"]),
        "discounted_payback": _payback([c * dt for c, dt in zip(out["cf"], d, strict=True)]),
    }


def _payback(cf: list[float]) -> float:
    k_prev = 0.0
    if all(sum(cf[: i + 1]) >= 0 for i in range(len(cf))):
        return 0.0
    for t, c in enumerate(cf, start=1):
        k = k_prev + c
        if k_prev < 0 <= k:
            return (t - 1) + (-k_prev) / c
        k_prev = k
    return float("nan")
