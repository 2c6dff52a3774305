"""The model: assumptions -> capacity and cost -> revenue -> payback, in ONE vectorised evaluation.

``evaluate(a)`` evaluates the assumptions as they are; ``evaluate(a, {key: array})``
evaluates N scenarios at once, each numeric key either the assumption's value
or an array of shape (N,). Monthly results have shape (N, H).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from econ.assumptions import STRUCTURAL_KEYS, AssumptionError, Assumptions, unknown_key_message
from econ.compute import capacity as cap
from econ.compute import cost
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
        self.read: set[str] = set()  # the keys the evaluation asked for

    def __call__(self, key: str) -> Array:
        """The key's values, shape (N,) where it varies and (1,) where it does not (broadcasts)."""
        self.read.add(key)
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
    incremental_pro: Array | None  # None when evaluated with detail=False
    subscription_revenue: Array | None  # None when evaluated with detail=False
    api_revenue: Array
    revenue: Array | None  # None when evaluated with detail=False
    net_cash_flow: Array
    discounted_cash_flow: Array
    cumulative_cash: Array | None  # None when evaluated with detail=False
    cumulative_discounted_cash: Array | None  # None when evaluated with detail=False
    npv: Array
    irr_annual: Array
    payback_months: Array
    discounted_payback_months: Array
    shortfall: Array
    rent_npv: Array
    throughput_per_mw: Array
    pro_cap_hit: Array | None = None
    # intermediate rows the workbook shows as formulas, (N, H) or (N,) (detail only)
    parts: dict[str, Array] | None = None
    # sums over the horizon for the summary, each (N,) (detail only)
    totals: dict[str, Array] | None = None
    # the numeric keys this evaluation read: no other key can move its results
    inputs_read: frozenset[str] = frozenset()

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
    detail : also compute what only reports show: the Pro plan's cap-hit share, capacity
        utilisation and cumulative cash (None / NaN when False, for speed).
    """
    p = Params(a, overrides)
    H = int(a.values["horizon.months"])
    T = int(a.values["contract.term_months"])
    plat = str(a.values["contract.platform"])
    # Internally time-major: monthly arrays are (H, N), month t in one contiguous row,
    # parameters are rows (1, N) (or (1, 1) where they do not vary). Results are (N, H) views.
    t = cap.months(H)[:, None]

    def row(key: str) -> Array:
        return p(key)[None, :]

    d = cost.discount(t, row("finance.discount_rate_annual"))
    rent = cost.rent(t, row("contract.value_usd"), T)

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
    online = cap.online_share(t, row("contract.ramp_months"), T)
    streams = cap.streams(online, row("contract.mw"), thr[None, :], s_u[None, :])
    v = revenue.api_tokens(row("api.ultrafast_tokens_per_month"), online)
    s_api = revenue.api_streams(v, s_u[None, :])

    # users and quota consumption
    # exp/log1p rather than **: numpy's power can differ in the last bit with an element's
    # position in the array, which would make results depend on the chunk size
    plus_pool = (row("market.mau") * row("market.plus_share_of_mau")) * np.exp(
        (t - 1.0) * np.log1p(row("market.mau_growth_monthly"))
    )
    log_e = quota.log_token_efficiency(row("usage.token_efficiency_gain_annual"), t)
    s_std = p("tiers.standard.tokens_per_s")
    factors = {
        i: quota.consumption_factor(
            p(f"tiers.{i}.usage_multiplier"),
            p(f"tiers.{i}.tokens_per_s"),
            s_std,
            p("usage.speed_elasticity"),
        )[None, :]
        for i in TIERS
    }

    def hits(plan: str) -> dict[str, Array]:
        return quota.tier_cap_hits(
            row(f"plans.{plan}.weekly_quota_tokens"),
            row(f"plans.{plan}.median_weekly_tokens"),
            row("usage.demand_sigma"),
            log_e,
            factors,
        )

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
    prices = (row("plans.pro.price_usd_month"), row("plans.plus.price_usd_month"))
    api = revenue.api_revenue(v, row("tiers.ultrafast.price_per_mtok_usd"))
    keep = 1.0 - row("finance.variable_cost_share")
    if detail:
        d_pro = path.pro - path.pro_counterfactual
        sub = revenue.subscription_revenue(path.pro, path.pro_counterfactual, *prices)
        rev = sub + api
        cf = rev * keep - rent
    else:  # the same arithmetic in place: the (H, N) intermediates are not kept
        d_pro = sub = rev = None
        cf = revenue.subscription_revenue(
            path.pro, path.pro_counterfactual, *prices, out=np.empty((H, p.n))
        )
        cf += api
        cf *= keep
        cf -= rent
    disc = cf * d
    shape = (p.n, H)

    def nh(x: Array) -> Array:
        """(H, N) or (H, 1) -> an (N, H) view."""
        return np.broadcast_to(np.asarray(x).T, shape)

    def vec(x: Array) -> Array:
        return np.broadcast_to(x, (p.n,))

    cf_nh = nh(cf)
    pro_hit = util = cum = cum_disc = None
    if detail:
        cum = np.cumsum(cf, axis=0)
        cum_disc = np.cumsum(disc, axis=0)
        hq = hits("pro")
        a_u = path.ultrafast_adoption
        a_f = row("tiers.fast.adoption")
        pro_hit = quota.cap_hit_share(
            [1.0 - a_f - a_u, a_f, a_u], [hq["standard"], hq["fast"], hq["ultrafast"]]
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            util = np.where(
                streams > 0,
                (s_api + row("usage.peak_concurrency") * a_u * path.eligible) / streams,
                np.nan,
            )
    return Results(
        months=cap.months(H),
        rent=nh(rent),
        discount=nh(d),
        streams=nh(streams),
        api_tokens=nh(v),
        api_streams=nh(s_api),
        eligible=nh(path.eligible),
        ultrafast_adoption=nh(path.ultrafast_adoption),
        capacity_utilization=nh(util) if util is not None else np.broadcast_to(np.nan, shape),
        plus_cap_hit=nh(path.plus_cap_hit),
        plus_cap_hit_counterfactual=nh(path.plus_cap_hit_counterfactual),
        pro=nh(path.pro),
        pro_counterfactual=nh(path.pro_counterfactual),
        incremental_pro=nh(d_pro) if d_pro is not None else None,
        subscription_revenue=nh(sub) if sub is not None else None,
        api_revenue=nh(api),
        revenue=nh(rev) if rev is not None else None,
        net_cash_flow=cf_nh,
        discounted_cash_flow=nh(disc),
        cumulative_cash=nh(cum) if cum is not None else None,
        cumulative_discounted_cash=nh(cum_disc) if cum_disc is not None else None,
        npv=vec(disc.sum(axis=0)),
        irr_annual=vec(annualise(irr(cf_nh))),
        payback_months=vec(payback_month(cf_nh)),
        discounted_payback_months=vec(payback_month(nh(disc))),
        shortfall=vec(shortfall(cf_nh)),
        rent_npv=vec((rent * d).sum(axis=0)),
        throughput_per_mw=vec(thr),
        pro_cap_hit=nh(pro_hit) if pro_hit is not None else None,
        inputs_read=frozenset(p.read),
        totals=None
        if not detail
        else {
            "rent_usd": vec(rent.sum(axis=0)),
            "subscription_revenue_usd": vec(sub.sum(axis=0)),
            "api_revenue_usd": vec(api.sum(axis=0)),
            "peak_incremental_pro_subscribers": vec(d_pro.max(axis=0)),
            "peak_ultrafast_adoption": vec(path.ultrafast_adoption.max(axis=0)),
        },
        parts=None
        if not detail
        else {
            "online_share": nh(online),
            "plus_pool": nh(plus_pool),
            "token_efficiency": nh(np.exp(log_e)),
            **{f"factor.{i}": vec(f[0]) for i, f in factors.items()},
            **{f"plus_hit.{i}": nh(x) for i, x in hp.items()},
            **{f"pro_hit.{i}": nh(x) for i, x in hq.items()},
        },
    )


def metric(a: Assumptions, overrides: Mapping[str, ArrayLike], name: str) -> Array:
    """One headline metric of N scenarios: npv, payback, irr, discounted_payback,
    or cumulative_at_term (cumulative cash at the end of the contract)."""
    r = evaluate(a, overrides, detail=False)
    if name == "cumulative_at_term":
        return r.net_cash_flow[:, : int(a.values["contract.term_months"])].sum(axis=1)
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
