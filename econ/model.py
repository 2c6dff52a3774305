"""The model: assumptions -> capacity and cost -> revenue -> payback, in ONE vectorised evaluation.

``evaluate(a)`` evaluates the assumptions as they are; ``evaluate(a, {key: array})``
evaluates N scenarios at once, each numeric key either the assumption's value
or an array of shape (N,). Monthly results have shape (N, H).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from econ.assumptions import STRUCTURAL_KEYS, AssumptionError, Assumptions, unknown_key_message
from econ.compute import capacity as cap
from econ.compute import cost
from econ.constants import SECONDS_PER_MONTH
from econ.payback import annualise, irr, payback_month, shortfall
from econ.revenue import conversion, quota, revenue

Array = NDArray[np.float64]

TIERS = ("standard", "fast", "ultrafast")


class Params:
    """Numeric parameters of N scenarios: the assumptions, with some keys replaced by arrays."""

    def __init__(self, a: Assumptions, overrides: Mapping[str, ArrayLike] | None = None):
        self.a = a
        self.over: dict[str, Array] = {}
        n = 1
        for k, v in (overrides or {}).items():
            if k not in a.values:
                raise AssumptionError(unknown_key_message(k, a.values))
            if k in STRUCTURAL_KEYS or isinstance(a.values[k], str):
                raise AssumptionError(
                    f"{k!r} takes one value per run and cannot be an array of scenarios"
                )
            arr = np.atleast_1d(np.asarray(v, float))
            if arr.ndim != 1:
                raise ValueError(f"{k}: expected a scalar or shape (N,), got {arr.shape}")
            if arr.size != 1:
                if n not in (1, arr.size):
                    raise ValueError(f"{k}: {arr.size} scenarios where others have {n}")
                n = arr.size
            self.over[k] = arr
        self.n = n

    def __call__(self, key: str) -> Array:
        """The key's values, shape (N,) where it varies and (1,) where it does not (broadcasts)."""
        if key in self.over:
            return self.over[key]
        return np.array([float(self.a.values[key])])


@dataclass
class Results:
    """Monthly paths (N, H) and headline metrics (N,) of N scenarios."""

    months: Array
    rent: Array
    discount: Array
    streams: Array
    api_tokens: Array
    api_streams: Array
    eligible: Array
    ultrafast_adoption: Array
    capacity_utilization: Array
    plus_cap_hit: Array
    plus_cap_hit_counterfactual: Array
    pro: Array
    pro_counterfactual: Array
    incremental_pro: Array
    subscription_revenue: Array
    api_revenue: Array
    revenue: Array
    net_cash_flow: Array
    cumulative_cash: Array
    npv: Array
    irr_annual: Array
    payback_months: Array
    discounted_payback_months: Array
    shortfall: Array
    rent_npv: Array
    throughput_per_mw: Array
    pro_cap_hit: Array | None = None
    extra: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return self.npv.shape[0]


def evaluate(
    a: Assumptions, overrides: Mapping[str, ArrayLike] | None = None, detail: bool = True
) -> Results:
    """Evaluate MODEL.md sections 3, 5 and 6 for every scenario at once.

    Parameters
    ----------
    a : the validated assumptions (structural keys: horizon, term, platform).
    overrides : {dotted key: scalar or (N,) array} replacing numeric assumptions.
    detail : also compute the Pro plan's cap-hit share (reporting only).
    """
    p = Params(a, overrides)
    H = int(a.values["horizon.months"])
    T = int(a.values["contract.term_months"])
    plat = str(a.values["contract.platform"])
    t = cap.months(H)

    d = cost.discount_factors(p("finance.discount_rate_annual"), H)
    rent = cost.rent_flows(p("contract.value_usd"), T, H)

    # capacity of the contract at the ultrafast speed
    ids = a.frontier_ids(plat)
    xs = np.array([a.values[f"frontier.{i}.tokens_per_s_per_user"] for i in ids], float)
    ys = np.stack(
        np.broadcast_arrays(*(p(f"frontier.{i}.tokens_per_s_per_mw") for i in ids)), axis=1
    )
    s_u = p("tiers.ultrafast.tokens_per_s")
    try:
        thr = cap.throughput_per_mw(s_u, xs, ys, plat)
    except cap.FrontierRangeError as exc:
        raise AssumptionError(f"tiers.ultrafast.tokens_per_s: {exc}") from None
    ramp = cap.ramp_share(t, p("contract.ramp_months"), T)
    streams = p("contract.mw")[:, None] * ramp * cap.users_per_mw(thr, s_u)[:, None]
    v = revenue.api_tokens(p("api.ultrafast_tokens_per_month"), ramp)
    s_api = revenue.api_streams(v, s_u)

    # users and quota consumption
    g = p("market.mau_growth_monthly")[:, None]
    plus_pool = (
        p("market.mau")[:, None] * (1.0 + g) ** (t - 1.0) * p("market.plus_share_of_mau")[:, None]
    )
    eff = quota.token_efficiency(p("usage.token_efficiency_gain_annual")[:, None], t)
    sigma = p("usage.demand_sigma")[:, None]
    s_std = p("tiers.standard.tokens_per_s")
    factors = {
        i: quota.consumption_factor(
            p(f"tiers.{i}.usage_multiplier"),
            p(f"tiers.{i}.tokens_per_s"),
            s_std,
            p("usage.speed_elasticity"),
        )[:, None]
        for i in TIERS
    }

    def hits(plan: str) -> dict[str, Array]:
        q = p(f"plans.{plan}.weekly_quota_tokens")[:, None]
        m = p(f"plans.{plan}.median_weekly_tokens")[:, None]
        return {i: quota.tier_cap_hit(q, m, sigma, eff, factors[i]) for i in TIERS}

    hp = hits("plus")
    path = conversion.pro_paths(
        plus_pool=plus_pool,
        pro_start=p("market.pro_subscribers_start"),
        churn=p("conversion.pro_churn_monthly"),
        base_upgrade=p("conversion.plus_to_pro_base_monthly"),
        capped_propensity=p("conversion.capped_upgrade_propensity"),
        adoption_fast=p("tiers.fast.adoption"),
        adoption_ultrafast=p("tiers.ultrafast.adoption"),
        hit_standard=hp["standard"],
        hit_fast=hp["fast"],
        hit_ultrafast=hp["ultrafast"],
        streams=streams,
        api_streams=s_api,
        peak_concurrency=p("usage.peak_concurrency"),
        term_months=T,
    )
    pro_hit = None
    if detail:
        hq = hits("pro")
        a_f = p("tiers.fast.adoption")[:, None]
        pro_hit = quota.cap_hit_share(
            [1.0 - a_f - path.ultrafast_adoption, a_f, path.ultrafast_adoption],
            [hq["standard"], hq["fast"], hq["ultrafast"]],
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        util = np.where(
            streams > 0,
            (s_api + p("usage.peak_concurrency")[:, None] * path.ultrafast_adoption * path.eligible)
            / streams,
            np.nan,
        )

    d_pro = path.pro - path.pro_counterfactual
    sub = revenue.subscription_revenue(
        d_pro, p("plans.pro.price_usd_month"), p("plans.plus.price_usd_month")
    )
    api = revenue.api_revenue(v, p("tiers.ultrafast.price_per_mtok_usd"))
    rev = sub + api
    cf = rev * (1.0 - p("finance.variable_cost_share")[:, None]) - rent
    disc = cf * d
    shape = (p.n, H)
    full = lambda x: np.broadcast_to(x, shape)  # noqa: E731
    vec = lambda x: np.broadcast_to(x, (p.n,))  # noqa: E731
    return Results(
        months=t,
        rent=full(rent),
        discount=full(d),
        streams=full(streams),
        api_tokens=full(v),
        api_streams=full(s_api),
        eligible=path.eligible,
        ultrafast_adoption=path.ultrafast_adoption,
        capacity_utilization=full(util),
        plus_cap_hit=path.plus_cap_hit,
        plus_cap_hit_counterfactual=full(path.plus_cap_hit_counterfactual),
        pro=path.pro,
        pro_counterfactual=path.pro_counterfactual,
        incremental_pro=d_pro,
        subscription_revenue=full(sub),
        api_revenue=full(api),
        revenue=full(rev),
        net_cash_flow=full(cf),
        cumulative_cash=full(np.cumsum(cf, axis=1)),
        npv=vec(disc.sum(axis=1)),
        irr_annual=vec(annualise(irr(cf))),
        payback_months=vec(payback_month(cf)),
        discounted_payback_months=vec(payback_month(disc)),
        shortfall=vec(shortfall(cf)),
        rent_npv=vec(cost.npv_cost(rent, d)),
        throughput_per_mw=vec(thr),
        pro_cap_hit=None if pro_hit is None else full(pro_hit),
    )


def metric(a: Assumptions, overrides: Mapping[str, ArrayLike], name: str) -> Array:
    """One headline metric of N scenarios: npv, payback, irr, discounted_payback,
    or cumulative_at_term (cumulative cash at the end of the contract)."""
    r = evaluate(a, overrides, detail=False)
    if name == "cumulative_at_term":
        return r.cumulative_cash[:, int(a.values["contract.term_months"]) - 1]
    return {
        "npv": r.npv,
        "payback": r.payback_months,
        "irr": r.irr_annual,
        "discounted_payback": r.discounted_payback_months,
    }[name]


def simple_breakeven(a: Assumptions) -> dict[str, float]:
    """The articles' back-of-the-envelope: Pro users needed = value / (price_pro x T)."""
    users = a.num("contract.value_usd") / (
        a.num("plans.pro.price_usd_month") * a.num("contract.term_months")
    )
    return {"pro_users": users, "share_of_mau": users / a.num("market.mau")}


def api_streams_full(a: Assumptions) -> float:
    """Streams the API needs at full ramp (for the Capacity sheet)."""
    return a.num("api.ultrafast_tokens_per_month") / (
        a.num("tiers.ultrafast.tokens_per_s") * SECONDS_PER_MONTH
    )
