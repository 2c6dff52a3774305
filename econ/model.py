"""The model: assumptions -> capacity -> rent -> demand -> adoption and conversion -> revenue ->
cash, in ONE vectorised evaluation (docs/model.md, sections 3-6).

``evaluate(a)`` evaluates the assumptions as they are; ``evaluate(a, {key: array})``
evaluates N scenarios at once, each numeric key either the assumption's value or
an array of shape (N,). Inside, monthly arrays are time-major, (H, N) (or (H, 1)
where nothing varies), so that a month is one contiguous row; the results are
(N, H) views. Each stage below is a function of the parameters and of the stages
before it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields

import numpy as np
from numpy.typing import ArrayLike, NDArray

from econ.assumptions import (
    TIER_IDS,
    AssumptionError,
    Assumptions,
    is_structural,
    rule_for,
    unknown_key_message,
)
from econ.compute import capacity as cap
from econ.compute import cost, physics
from econ.constants import SECONDS_PER_MONTH, SECONDS_PER_WEEK, TOKENS_PER_MILLION
from econ.payback import annualise, irr, payback_month, running_last_negative, terminal_value
from econ.revenue import conversion, quota
from econ.revenue import revenue as rev

Array = NDArray[np.float64]


class Params:
    """Numeric parameters of N scenarios: the assumptions, with some keys replaced by arrays.

    Every override is checked against its key's rule (range, whole numbers), element by
    element, and the cross-key rules that arrays can break are checked too.
    """

    def __init__(self, a: Assumptions, overrides: Mapping[str, ArrayLike] | None = None):
        self.a = a
        self.over: dict[str, Array] = {}
        n = 1
        for k, v in (overrides or {}).items():
            if k not in a.values:
                raise AssumptionError(unknown_key_message(k, a.values))
            if is_structural(k, a.values[k]):
                raise AssumptionError(
                    f"{k!r} takes one value per run (an id, the horizon or a frontier point's "
                    "speed) and cannot be an array of scenarios; set it with --set"
                )
            arr = np.atleast_1d(np.asarray(v, float))
            if arr.ndim != 1:
                raise AssumptionError(f"{k}: expected a scalar or shape (N,), got {arr.shape}")
            if arr.size != 1:
                if n not in (1, arr.size):
                    raise AssumptionError(f"{k}: {arr.size} scenarios where others have {n}")
                n = arr.size
            _check_array(k, arr)
            self.over[k] = arr
        self.n = n
        self.read: set[str] = set()  # the keys the evaluation asked for
        self._check_cross()

    def __call__(self, key: str) -> Array:
        """The key's values, shape (N,) where it varies and (1,) where it does not (broadcasts)."""
        self.read.add(key)
        if key in self.over:
            return self.over[key]
        return np.array([float(self.a.values[key])])

    def get(self, key: str) -> Array | None:
        """Like calling, but None for a blank optional cell (a key absent from the data)."""
        return self(key) if key in self.a.values else None

    def row(self, key: str) -> Array:
        """The key's values as a row (1, N) or (1, 1), to broadcast against months (H, 1)."""
        return self(key)[None, :]

    def _check_cross(self) -> None:
        if not self.over:
            return  # the assumptions themselves passed every rule at load
        H = int(self.a.values["horizon.months"])
        term = self("contract.term_months")
        if np.any(term > H):
            bad = float(term[term > H][0])
            raise AssumptionError(
                f"contract.term_months: {bad:g} is longer than the horizon {H}; expected "
                "contract.term_months <= horizon.months"
            )
        start, mau = self("market.pro_subscribers_start"), self("market.mau")
        over = start > mau
        if np.any(over):
            j = int(np.argmax(np.broadcast_to(over, (max(start.size, mau.size),))))
            raise AssumptionError(
                f"market.pro_subscribers_start: {float(start[min(j, start.size - 1)]):,.0f} Pro "
                f"subscribers at the start exceed the {float(mau[min(j, mau.size - 1)]):,.0f} "
                "monthly active users (market.mau); expected market.pro_subscribers_start <= "
                "market.mau"
            )
        s_std, s_fast, s_u = (self(f"tiers.{t}.tokens_per_s") for t in TIER_IDS)
        disorder = (s_std > s_fast) | (s_fast > s_u)
        if np.any(disorder):
            j = int(np.argmax(np.broadcast_to(disorder, (self.n,))))
            found = ", ".join(f"{float(x[min(j, x.size - 1)]):g}" for x in (s_std, s_fast, s_u))
            raise AssumptionError(
                f"tier speeds must rise standard <= fast <= ultrafast; found {found} in "
                f"scenario {j}"
            )
        total = self("tiers.fast.adoption") + self("tiers.ultrafast.adoption")
        if np.any(total > 1):
            raise AssumptionError(
                f"tiers.fast.adoption + tiers.ultrafast.adoption = {float(total[total > 1][0]):g}; "
                "expected a sum <= 1 (standard takes the rest)"
            )
        self.read.clear()


def _check_array(key: str, arr: Array) -> None:
    """Every element of an override within the key's rule."""
    rule = rule_for(key)
    if rule is None:  # pragma: no cover - every loaded key has a rule
        return
    ok = np.array([rule.check(float(x)) for x in arr]) if arr.size < 64 else _check_fast(rule, arr)
    if not ok.all():
        bad = float(arr[~ok][0])
        raise AssumptionError(
            f"{key}: {bad:g} is out of range; expected {rule.expected()} [{rule.unit}]"
        )


def _check_fast(rule, arr: Array) -> Array:
    ok = np.isfinite(arr)
    if rule.kind == "integer":
        ok &= arr == np.round(arr)
    if rule.low is not None:
        ok &= (arr > rule.low) if rule.low_open else (arr >= rule.low)
    if rule.high is not None:
        ok &= (arr < rule.high) if rule.high_open else (arr <= rule.high)
    return ok


# ---------------------------------------------------------------------------
# stages


@dataclass(frozen=True)
class Capacity:
    """What the contract serves (3.5). t: month numbers (H, 1); mw_online MW_t (H, N) [MW];
    throughput_ultrafast / throughput_standard Thr*(s) (N,) [tokens/s/MW]; streams C_t
    (H, N) [peak streams at the ultrafast speed]."""

    t: Array
    term: Array
    mw_online: Array
    throughput_ultrafast: Array
    throughput_standard: Array
    streams: Array


def throughput(p: Params, speed: Array) -> Array:
    """Thr*_platform(s) [tokens/s/MW] (N,): the data frontier or the physics envelope, as
    capacity.basis says (3.5)."""
    a = p.a
    plat = str(a.values["contract.platform"])
    if a.values["capacity.basis"] == "physics":
        chip = physics.chip_from(p.get, plat)
        return physics.envelope(speed, physics.model_from(p), chip, p("facility.pue")).throughput
    ids = a.frontier_ids(plat)
    xs = [float(a.values[f"frontier.{i}.tokens_per_s_per_user"]) for i in ids]
    ys = np.stack(np.broadcast_arrays(*(p(f"frontier.{i}.tokens_per_s_per_mw") for i in ids)), 1)
    rising = np.diff(ys, axis=1) > 0
    if rising.any():
        j = int(np.argmax(rising.any(axis=0)))
        raise AssumptionError(
            f"frontier.{ids[j + 1]}.tokens_per_s_per_mw rises above frontier.{ids[j]}."
            "tokens_per_s_per_mw at a faster speed; expected throughput that does not rise "
            "with speed"
        )
    try:
        return cap.throughput_per_mw(speed, xs, ys, p(f"hardware.{plat}.frontier_scale"), plat)
    except cap.FrontierRangeError as exc:
        raise AssumptionError(f"tier speed: {exc}") from None


def capacity_stage(p: Params) -> Capacity:
    """MW online, Thr* at the ultrafast and standard speeds, and the contract's peak streams."""
    H = int(p.a.values["horizon.months"])
    t = cap.months(H)[:, None]
    term = p.row("contract.term_months")
    mw_online = p.row("contract.mw") * cap.online_share(t, p.row("contract.ramp_months"), term)
    s_u = p("tiers.ultrafast.tokens_per_s")
    thr_u = throughput(p, s_u)
    thr_std = throughput(p, p("tiers.standard.tokens_per_s"))
    return Capacity(t, term, mw_online, thr_u, thr_std, cap.streams(mw_online, thr_u, s_u))


def rent_stage(p: Params, c: Capacity) -> Array:
    """R_t [USD] (H, N): pay as delivered or flat (4.1)."""
    return cost.rent(
        c.t,
        c.mw_online,
        p.row("contract.value_usd"),
        c.term,
        p.row("contract.pay_as_delivered"),
    )


@dataclass(frozen=True)
class Demand:
    """Per-user demand and the API's wanted tokens (5.1, 5.2, 5.4), time-major (H, N).

    efficiency e_t [-]; phi {tier: (N,)} [-]; plus_pool N_t [users]; plus_hits {tier: SF} and
    pro_hits {tier: SF} [share] (pro_hits has the fast tier only with detail); w_plus_ultrafast,
    w_pro_ultrafast, w_plus_standard, w_pro_standard [tokens/user-week]; api_wanted V_t
    [tokens/month].
    """

    efficiency: Array
    phi: dict[str, Array]
    plus_pool: Array
    plus_logs: dict[str, Array]
    pro_logs: dict[str, Array]
    plus_hits: dict[str, Array]
    pro_hits: dict[str, Array]
    w_plus_ultrafast: Array
    w_pro_ultrafast: Array
    w_plus_standard: Array
    w_pro_standard: Array
    api_wanted: Array


def demand_stage(p: Params, c: Capacity, detail: bool) -> Demand:
    t, row = c.t, p.row
    log_e = quota.log_token_efficiency(row("usage.token_efficiency_gain_annual"), t)
    e = np.exp(log_e)
    s_std = p("tiers.standard.tokens_per_s")
    el = p("usage.speed_elasticity")
    tiers = p.a.tier_ids()
    phi = {i: quota.speed_factor(p(f"tiers.{i}.tokens_per_s"), s_std, el) for i in tiers}
    sigma = row("usage.demand_sigma")

    def logs(plan: str, tier: str) -> Array:
        return quota.log_quota_over_median(
            row(f"plans.{plan}.weekly_quota_tokens"),
            row(f"tiers.{tier}.usage_multiplier"),
            row(f"plans.{plan}.median_weekly_tokens"),
            phi[tier][None, :],
            log_e,
        )

    def served(plan: str, tier: str, ell: Array, hit: Array) -> Array:
        mu = row(f"plans.{plan}.median_weekly_tokens") * phi[tier][None, :] * e
        if in_term is None or tier != "ultrafast" or in_term >= ell.shape[0]:
            return quota.tokens_served(mu, ell, sigma, hit)
        out = np.zeros(np.broadcast_shapes(mu.shape, ell.shape, sigma.shape))
        k = in_term
        out[:k] = quota.tokens_served(mu[:k], ell[:k], sigma, hit[:k])
        return out

    # The ultrafast tier exists only in the term: without detail (the Monte Carlo, goal seek)
    # its normal CDFs are evaluated for the term's months alone, zero after (where its
    # adoption is zero); reports keep every month for their tables.
    in_term = None if detail else int(np.max(c.term))

    def hit_share(ell: Array, tier: str) -> Array:
        if in_term is None or tier != "ultrafast" or in_term >= ell.shape[0]:
            return quota.cap_hit_share(ell, sigma)
        out = np.zeros(np.broadcast_shapes(ell.shape, sigma.shape))
        out[:in_term] = quota.cap_hit_share(ell[:in_term], sigma)
        return out

    plus_l = {i: logs("plus", i) for i in tiers}
    plus_hits = {i: hit_share(plus_l[i], i) for i in tiers}
    pro_tiers = tiers if detail else ("standard", "ultrafast")
    pro_l = {i: logs("pro", i) for i in pro_tiers}
    pro_hits = {i: hit_share(pro_l[i], i) for i in pro_tiers}
    plus_pool = (row("market.mau") * row("market.plus_share_of_mau")) * np.exp(
        (t - 1.0) * np.log1p(row("market.mau_growth_monthly"))
    )
    wanted = rev.api_tokens_wanted(
        row("api.ultrafast_tokens_per_month"),
        row("tiers.ultrafast.price_per_mtok_usd"),
        row("api.reference_price_per_mtok_usd"),
        row("api.price_elasticity"),
        e,
        t,
        row("api.ramp_months"),
        c.term,
    )
    return Demand(
        efficiency=e,
        phi=phi,
        plus_pool=plus_pool,
        plus_logs=plus_l,
        pro_logs=pro_l,
        plus_hits=plus_hits,
        pro_hits=pro_hits,
        w_plus_ultrafast=served("plus", "ultrafast", plus_l["ultrafast"], plus_hits["ultrafast"]),
        w_pro_ultrafast=served("pro", "ultrafast", pro_l["ultrafast"], pro_hits["ultrafast"]),
        w_plus_standard=served("plus", "standard", plus_l["standard"], plus_hits["standard"]),
        w_pro_standard=served("pro", "standard", pro_l["standard"], pro_hits["standard"]),
        api_wanted=wanted,
    )


@dataclass(frozen=True)
class Adoption:
    """The API served first, then ultrafast adoption and the Pro stocks (5.3-5.6), (H, N).

    api_streams S_api,t [peak streams]; api_served V*_t [tokens/month]; path: the Pro stocks,
    adoption and cap-hit shares (conversion.ProPath)."""

    api_streams: Array
    api_served: Array
    path: conversion.ProPath


def adoption_stage(p: Params, c: Capacity, dem: Demand) -> Adoption:
    pta = p.row("usage.peak_to_average")
    s_u = p("tiers.ultrafast.tokens_per_s")
    s_api, v_served = rev.api_served(c.streams, dem.api_wanted, pta, s_u[None, :])
    path = conversion.pro_paths(
        plus_pool=dem.plus_pool,
        pro_start=p("market.pro_subscribers_start"),
        churn=p("conversion.pro_churn_monthly"),
        extra_churn_after_term=p("conversion.extra_churn_after_term_monthly"),
        base_upgrade=p("conversion.plus_to_pro_base_monthly"),
        capped_propensity=p("conversion.capped_upgrade_propensity"),
        adoption_fast=p("tiers.fast.adoption"),
        adoption_ultrafast=p("tiers.ultrafast.adoption"),
        peak_to_average=p("usage.peak_to_average"),
        speed_ultrafast=s_u,
        hit_standard=dem.plus_hits["standard"],
        hit_fast=dem.plus_hits["fast"],
        hit_ultrafast=dem.plus_hits["ultrafast"],
        w_plus_ultrafast=dem.w_plus_ultrafast,
        w_pro_ultrafast=dem.w_pro_ultrafast,
        free_streams=np.maximum(c.streams - s_api, 0.0),
        term_months=c.term[0],
    )
    return Adoption(s_api, v_served, path)


@dataclass(frozen=True)
class Revenue:
    """Incremental revenue, backfill and the GPU-fleet boundary (5.5, 5.7-5.9), (H, N).

    incremental_pro dP_t [users]; subscription sub_t and api api_t [USD]; subscriber_streams
    a_u A_t peak_to_average [peak streams]; adopter_tokens a_u A_t s_u SECONDS_PER_MONTH
    [tokens/month]; backfill Bf_t [tokens/month]; moved / added [tokens/month]; gpu gpu_t [USD].
    """

    incremental_pro: Array
    subscription: Array
    api: Array
    subscriber_streams: Array
    adopter_tokens: Array
    backfill: Array
    moved: Array
    added: Array
    gpu: Array


def revenue_stage(p: Params, c: Capacity, dem: Demand, ado: Adoption) -> Revenue:
    row = p.row
    path = ado.path
    d_pro = path.pro - path.pro_counterfactual
    sub = rev.subscription_revenue(
        d_pro, row("plans.pro.price_usd_month"), row("plans.plus.price_usd_month")
    )
    cannibalised = row("api.cannibalised_share")
    api = rev.api_revenue(
        ado.api_served,
        row("tiers.ultrafast.price_per_mtok_usd"),
        cannibalised,
        row("api.standard_price_per_mtok_usd"),
    )
    pta = row("usage.peak_to_average")
    subscriber = path.ultrafast_adoption * path.all_adopt_streams * pta
    spare = rev.spare_share(c.streams, ado.api_streams + subscriber, c.mw_online)
    backfill = rev.backfill_tokens(
        spare,
        c.mw_online,
        c.throughput_standard[None, :],
        pta,
        row("capacity.backfill_tokens_per_month"),
        dem.efficiency,
        c.t,
        c.term,
    )
    s_u = row("tiers.ultrafast.tokens_per_s")
    adopter_tokens = subscriber / pta * s_u * SECONDS_PER_MONTH
    moved = rev.tokens_moved_off_gpus(
        backfill, ado.api_served, cannibalised, adopter_tokens, dem.phi["ultrafast"][None, :]
    )
    added = rev.tokens_added_to_gpus(d_pro, dem.w_pro_standard, dem.w_plus_standard)
    gpu = rev.gpu_savings(moved, added, row("capacity.gpu_cost_per_mtok_usd"))
    return Revenue(d_pro, sub, api, subscriber, adopter_tokens, backfill, moved, added, gpu)


@dataclass(frozen=True)
class Cash:
    """Cash flows and the headline metrics (section 6). Monthly (H, N) [USD], metrics (N,)."""

    net_cash_flow: Array
    discount: Array
    discounted_cash_flow: Array
    cumulative_cash: Array
    npv: Array
    npv_without_terminal_value: Array
    npv_at_term: Array
    terminal_value: Array
    irr_annual: Array
    payback_months: Array
    discounted_payback_months: Array
    shortfall: Array
    rent_npv: Array
    profitability_index: Array
    inflow: Array  # (sub_t + api_t)(1 - variable costs) + gpu_t (H, N) [USD]
    irr_flows: Array  # CF_t with the terminal value added at H when included (H, N) [USD]
    terminal_margin: Array  # m_H [USD/month]
    monthly_rate: Array  # r_m [1/month]


def cash_stage(p: Params, c: Capacity, rent: Array, dem: Demand, r: Revenue) -> Cash:
    row = p.row
    keep = 1.0 - row("finance.variable_cost_share")
    inflow = (r.subscription + r.api) * keep + r.gpu
    cf = inflow - rent
    rate = row("finance.discount_rate_annual")
    d = cost.discount(c.t, rate)
    disc = cf * d
    k = np.cumsum(cf, axis=0)
    npv_h = disc.sum(axis=0)
    in_term = c.t <= c.term
    # the Pro tail after H: the net margin of one incremental subscriber at H
    extra_tokens = (dem.w_pro_standard[-1] - dem.w_plus_standard[-1]) * (
        SECONDS_PER_MONTH / SECONDS_PER_WEEK
    )
    margin = (row("plans.pro.price_usd_month") - row("plans.plus.price_usd_month"))[0] * keep[
        0
    ] - extra_tokens * row("capacity.gpu_cost_per_mtok_usd")[0] / TOKENS_PER_MILLION
    tv = terminal_value(
        r.incremental_pro[-1],
        margin,
        p("conversion.pro_churn_monthly"),
        p("conversion.extra_churn_after_term_monthly"),
        p("finance.discount_rate_annual"),
    )
    tv_on = p("finance.terminal_value")
    npv = npv_h + tv_on * tv * d[-1]
    flows = np.array(np.broadcast_to(cf, (cf.shape[0], p.n)))
    flows[-1] += tv_on * tv
    rent_npv = (rent * d).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        pi = ((inflow * d).sum(axis=0) + tv_on * tv * d[-1]) / rent_npv
    return Cash(
        net_cash_flow=cf,
        discount=d,
        discounted_cash_flow=disc,
        cumulative_cash=k,
        npv=npv,
        npv_without_terminal_value=npv_h,
        npv_at_term=np.where(in_term, disc, 0.0).sum(axis=0),
        terminal_value=np.broadcast_to(tv, npv.shape),
        irr_annual=annualise(irr(np.ascontiguousarray(flows.T))),
        payback_months=payback_month(cf.T, k.T),
        discounted_payback_months=payback_month(disc.T),
        shortfall=np.maximum(0.0, -k[-1]),
        rent_npv=rent_npv,
        profitability_index=pi,
        inflow=inflow,
        irr_flows=flows,
        terminal_margin=np.broadcast_to(margin, npv.shape),
        monthly_rate=np.broadcast_to(
            np.expm1(np.log1p(p("finance.discount_rate_annual")) / 12.0), npv.shape
        ),
    )


# ---------------------------------------------------------------------------
# results


def _f(unit: str, shape: str, doc: str):
    return field(default=None, metadata={"unit": unit, "shape": shape, "doc": doc})


@dataclass
class Results:
    """Monthly paths (N, H) and headline metrics (N,) of N scenarios.

    Each field's unit and shape are in its metadata (``Results.units()``); fields marked
    "detail" are None when evaluated with detail=False.
    """

    months: Array = _f("month", "(H,)", "month numbers 1..H")
    mw_online: Array = _f("MW", "(N, H)", "facility MW online, MW_t")
    rent: Array = _f("USD", "(N, H)", "rent R_t")
    discount: Array = _f("-", "(N, H)", "discount factor d_t")
    capacity_streams: Array = _f(
        "streams", "(N, H)", "peak ultrafast streams the contract serves, C_t"
    )
    api_tokens_wanted: Array = _f("tokens/month", "(N, H)", "API tokens wanted, V_t")
    api_tokens_served: Array = _f("tokens/month", "(N, H)", "API tokens served, V*_t")
    api_streams_peak: Array = _f("streams", "(N, H)", "API peak streams, S_api,t")
    subscriber_streams_peak: Array = _f("streams", "(N, H)", "subscribers' peak ultrafast streams")
    ultrafast_adoption: Array = _f("share", "(N, H)", "ultrafast adoption a_u,t")
    utilization: Array = _f("share", "(N, H)", "average utilisation of the contract (detail)")
    plus_pool: Array = _f("users", "(N, H)", "Plus users N_t")
    eligible: Array = _f("users", "(N, H)", "users eligible for the faster tiers, E_t (detail)")
    token_efficiency: Array = _f("-", "(N, H)", "token efficiency e_t")
    plus_cap_hit: Array = _f("share", "(N, H)", "Plus cap-hit share with the tier, h_plus,t")
    plus_cap_hit_counterfactual: Array = _f("share", "(N, H)", "Plus cap-hit share without it")
    pro_cap_hit: Array = _f("share", "(N, H)", "Pro cap-hit share with the tier (detail)")
    pro: Array = _f("users", "(N, H)", "Pro subscribers with the tier, P_t")
    pro_counterfactual: Array = _f("users", "(N, H)", "Pro subscribers without it, P0_t")
    incremental_pro: Array = _f("users", "(N, H)", "incremental Pro subscribers dP_t")
    subscription_revenue: Array = _f("USD", "(N, H)", "sub_t")
    api_revenue: Array = _f("USD", "(N, H)", "api_t")
    revenue: Array = _f("USD", "(N, H)", "sub_t + api_t (detail)")
    backfill_tokens: Array = _f("tokens/month", "(N, H)", "backfilled standard tokens, Bf_t")
    backfill_usd: Array = _f("USD", "(N, H)", "GPU cost the backfill saves (part of gpu_t; detail)")
    tokens_served: Array = _f(
        "tokens/month", "(N, H)", "tokens served on the contract, U_t (detail)"
    )
    tokens_moved_off_gpus: Array = _f("tokens/month", "(N, H)", "moved_t")
    tokens_added_to_gpus: Array = _f("tokens/month", "(N, H)", "added_t")
    gpu_savings: Array = _f("USD", "(N, H)", "gpu_t")
    net_cash_flow: Array = _f("USD", "(N, H)", "CF_t")
    discounted_cash_flow: Array = _f("USD", "(N, H)", "CF_t d_t")
    cumulative_cash: Array = _f("USD", "(N, H)", "K_t")
    cumulative_discounted_cash: Array = _f("USD", "(N, H)", "cumulative CF_t d_t (detail)")
    npv: Array = _f("USD", "(N,)", "NPV, terminal value included when finance.terminal_value = 1")
    npv_without_terminal_value: Array = _f("USD", "(N,)", "sum CF_t d_t")
    npv_at_term: Array = _f("USD", "(N,)", "sum over t <= T of CF_t d_t")
    terminal_value: Array = _f("USD", "(N,)", "TV at H (undiscounted)")
    irr_annual: Array = _f("1/yr", "(N,)", "annualised IRR, root nearest zero; NaN if none")
    payback_months: Array = _f("months", "(N,)", "lasting-recovery payback; NaN if none")
    discounted_payback_months: Array = _f("months", "(N,)", "the same on discounted cash")
    shortfall: Array = _f("USD", "(N,)", "max(0, -K_H)")
    rent_npv: Array = _f("USD", "(N,)", "NPV of the rent")
    profitability_index: Array = _f("-", "(N,)", "PV of inflows (and TV) / NPV of rent")
    realised_cost_per_mtok: Array = _f("USD per 1M tokens", "(N,)", "1e6 sum R_t / sum U_t")
    throughput_per_mw: Array = _f("tokens/s/MW", "(N,)", "Thr* at the ultrafast speed")
    throughput_per_mw_standard: Array = _f("tokens/s/MW", "(N,)", "Thr* at the standard speed")
    # intermediate rows the workbook shows as formulas (detail only): name -> (N, H) or (N,)
    parts: dict[str, Array] | None = None
    # sums over the horizon for the summary, each (N,) (detail only)
    totals: dict[str, Array] | None = None
    # the numeric keys this evaluation read: no other key can move its results
    inputs_read: frozenset[str] = frozenset()

    @property
    def n(self) -> int:
        return self.npv.shape[0]

    @classmethod
    def units(cls) -> dict[str, tuple[str, str, str]]:
        """{field: (unit, shape, meaning)} of every array field."""
        return {
            f.name: (f.metadata["unit"], f.metadata["shape"], f.metadata["doc"])
            for f in fields(cls)
            if "unit" in f.metadata
        }


def evaluate(
    a: Assumptions, overrides: Mapping[str, ArrayLike] | None = None, detail: bool = True
) -> Results:
    """Evaluate the model for every scenario at once (docs/model.md, sections 3-6).

    Parameters
    ----------
    a : the validated assumptions (structural keys: horizon, platform, capacity basis).
    overrides : {dotted key: scalar or (N,) array} replacing numeric assumptions.
    detail : also compute what only reports show (utilisation, the Pro plan's cap hits,
        cumulative discounted cash, totals, the workbook's intermediate rows); None when False.

    Raises AssumptionError for an override outside its key's rule, and for a result that
    breaks an invariant (more Pro subscribers than users) or is not a number.
    """
    p = Params(a, overrides)
    with np.errstate(all="ignore"):  # results that are not numbers are refused below
        c = capacity_stage(p)
        rent = rent_stage(p, c)
        dem = demand_stage(p, c, detail)
        ado = adoption_stage(p, c, dem)
        r = revenue_stage(p, c, dem, ado)
        cash = cash_stage(p, c, rent, dem, r)
    _check_pro_within_users(p, dem, ado)
    N, H = p.n, c.t.shape[0]

    def nh(x: Array) -> Array:
        """(H, N) or (H, 1) -> an (N, H) view."""
        return np.broadcast_to(np.asarray(x).T, (N, H))

    def vec(x: ArrayLike) -> Array:
        return np.broadcast_to(np.asarray(x, float), (N,))

    path = ado.path
    served_t = ado.api_served + r.adopter_tokens + r.backfill  # U_t
    out = Results(
        months=cap.months(H),
        mw_online=nh(c.mw_online),
        rent=nh(rent),
        discount=nh(cash.discount),
        capacity_streams=nh(c.streams),
        api_tokens_wanted=nh(dem.api_wanted),
        api_tokens_served=nh(ado.api_served),
        api_streams_peak=nh(ado.api_streams),
        subscriber_streams_peak=nh(r.subscriber_streams),
        ultrafast_adoption=nh(path.ultrafast_adoption),
        plus_pool=nh(dem.plus_pool),
        eligible=nh(dem.plus_pool + _previous(path.pro, p("market.pro_subscribers_start")))
        if detail
        else None,
        token_efficiency=nh(dem.efficiency),
        plus_cap_hit=nh(path.plus_cap_hit),
        plus_cap_hit_counterfactual=nh(path.plus_cap_hit_counterfactual),
        pro=nh(path.pro),
        pro_counterfactual=nh(path.pro_counterfactual),
        incremental_pro=nh(r.incremental_pro),
        subscription_revenue=nh(r.subscription),
        api_revenue=nh(r.api),
        revenue=nh(r.subscription + r.api) if detail else None,
        backfill_tokens=nh(r.backfill),
        backfill_usd=nh(r.backfill * p.row("capacity.gpu_cost_per_mtok_usd") / TOKENS_PER_MILLION)
        if detail
        else None,
        tokens_served=nh(served_t) if detail else None,
        tokens_moved_off_gpus=nh(r.moved),
        tokens_added_to_gpus=nh(r.added),
        gpu_savings=nh(r.gpu),
        net_cash_flow=nh(cash.net_cash_flow),
        discounted_cash_flow=nh(cash.discounted_cash_flow),
        cumulative_cash=nh(cash.cumulative_cash),
        npv=vec(cash.npv),
        npv_without_terminal_value=vec(cash.npv_without_terminal_value),
        npv_at_term=vec(cash.npv_at_term),
        terminal_value=vec(cash.terminal_value),
        irr_annual=vec(cash.irr_annual),
        payback_months=vec(cash.payback_months),
        discounted_payback_months=vec(cash.discounted_payback_months),
        shortfall=vec(cash.shortfall),
        rent_npv=vec(cash.rent_npv),
        profitability_index=vec(cash.profitability_index),
        throughput_per_mw=vec(c.throughput_ultrafast),
        throughput_per_mw_standard=vec(c.throughput_standard),
    )
    served = served_t.sum(axis=0)
    with np.errstate(all="ignore"):
        cost = TOKENS_PER_MILLION * rent.sum(axis=0) / served
        out.realised_cost_per_mtok = vec(np.where(served > 0, cost, np.nan))  # none served: none
        _check_finite(p, out)
        if detail:
            _add_detail(out, p, c, rent, dem, ado, r, cash, nh, vec)
    out.inputs_read = frozenset(p.read)
    return out


def _previous(x: Array, start: Array) -> Array:
    """x_(t-1) for t = 1..H, time-major, with x_0 = start: (H, N)."""
    H, N = x.shape[0], max(x.shape[1], start.size)
    out = np.empty((H, N))
    out[0] = start
    out[1:] = x[:-1]
    return out


def _add_detail(out: Results, p, c, rent, dem, ado, r, cash, nh, vec) -> None:
    """The fields only reports show: utilisation, the Pro plan's cap hits, totals, parts."""
    path = ado.path
    pta = p.row("usage.peak_to_average")
    with np.errstate(divide="ignore", invalid="ignore"):
        contract = np.where(
            c.streams > 0, (ado.api_streams + r.subscriber_streams) / (pta * c.streams), 0.0
        )
        std_cap = c.mw_online * c.throughput_standard[None, :] * SECONDS_PER_MONTH
        backfill = np.where(std_cap > 0, r.backfill / std_cap, 0.0)
    out.utilization = nh(np.where(c.mw_online > 0, contract + backfill, np.nan))
    a_u = path.ultrafast_adoption
    a_f = p.row("tiers.fast.adoption")
    ph = dem.pro_hits
    out.pro_cap_hit = nh(
        quota.plan_cap_hit(
            [1.0 - a_f - a_u, a_f, a_u], [ph["standard"], ph["fast"], ph["ultrafast"]]
        )
    )
    out.cumulative_discounted_cash = nh(np.cumsum(cash.discounted_cash_flow, axis=0))
    in_term = c.t <= p.row("contract.term_months")
    out.totals = {
        "rent_usd": vec(rent.sum(axis=0)),
        "subscription_revenue_usd": vec(r.subscription.sum(axis=0)),
        "api_revenue_usd": vec(r.api.sum(axis=0)),
        "backfill_usd": vec(out.backfill_usd.sum(axis=1)),
        "gpu_savings_usd": vec(r.gpu.sum(axis=0)),
        "gpu_cost_of_moved_usd": vec(
            r.moved.sum(axis=0) * p("capacity.gpu_cost_per_mtok_usd") / TOKENS_PER_MILLION
        ),
        "gpu_cost_of_added_usd": vec(
            r.added.sum(axis=0) * p("capacity.gpu_cost_per_mtok_usd") / TOKENS_PER_MILLION
        ),
        "tokens_moved_off_gpus": vec(r.moved.sum(axis=0)),
        "tokens_added_to_gpus": vec(r.added.sum(axis=0)),
        "tokens_served": vec(out.tokens_served.sum(axis=1)),
        "api_tokens_wanted": vec(dem.api_wanted.sum(axis=0)),
        "api_tokens_served": vec(ado.api_served.sum(axis=0)),
        "peak_incremental_pro_subscribers": vec(r.incremental_pro.max(axis=0)),
        "incremental_pro_subscribers_at_horizon": vec(r.incremental_pro[-1]),
        "peak_ultrafast_adoption": vec(a_u.max(axis=0)),
        "peak_utilization": vec(
            np.nanmax(np.where(c.mw_online > 0, contract + backfill, -np.inf), axis=0)
        ),
        # the term's average, each month weighted by its MW online
        "term_average_utilization": vec(
            np.where(in_term & (c.mw_online > 0), (contract + backfill) * c.mw_online, 0.0).sum(
                axis=0
            )
            / np.where(in_term, c.mw_online, 0.0).sum(axis=0)
        ),
        "variable_costs_usd": vec(
            ((r.subscription + r.api) * p.row("finance.variable_cost_share")).sum(axis=0)
        ),
    }
    t = c.t[:, 0]
    out.parts = {
        "online_share": nh(c.mw_online / p.row("contract.mw")),
        "free_streams": nh(np.maximum(c.streams - ado.api_streams, 0.0)),
        "irr_flows": nh(cash.irr_flows),
        "inflow": nh(cash.inflow),
        "terminal_margin": vec(cash.terminal_margin),
        "monthly_rate": vec(cash.monthly_rate),
        "last_negative_month": nh(running_last_negative(cash.cumulative_cash, t)),
        "last_negative_month_discounted": nh(
            running_last_negative(np.cumsum(cash.discounted_cash_flow, axis=0), t)
        ),
        **{f"log_c_over_mu.plus.{i}": nh(x) for i, x in dem.plus_logs.items()},
        **{f"log_c_over_mu.pro.{i}": nh(x) for i, x in dem.pro_logs.items()},
        "all_adopt_streams": nh(path.all_adopt_streams),
        "spare": nh(
            rev.spare_share(c.streams, ado.api_streams + r.subscriber_streams, c.mw_online)
        ),
        "adopter_tokens": nh(r.adopter_tokens),
        "w_plus_ultrafast": nh(dem.w_plus_ultrafast),
        "w_pro_ultrafast": nh(dem.w_pro_ultrafast),
        "w_plus_standard": nh(dem.w_plus_standard),
        "w_pro_standard": nh(dem.w_pro_standard),
        **{f"phi.{i}": vec(f) for i, f in dem.phi.items()},
        **{f"plus_hit.{i}": nh(x) for i, x in dem.plus_hits.items()},
        **{f"pro_hit.{i}": nh(x) for i, x in dem.pro_hits.items()},
    }


# Results that must be numbers whatever the inputs (payback and IRR may be undefined: NaN).
FINITE = (
    "npv",
    "npv_without_terminal_value",
    "npv_at_term",
    "terminal_value",
    "rent_npv",
    "profitability_index",
    "mw_online",
    "rent",
    "capacity_streams",
    "api_tokens_wanted",
    "api_tokens_served",
    "ultrafast_adoption",
    "plus_pool",
    "pro",
    "pro_counterfactual",
    "subscription_revenue",
    "api_revenue",
    "gpu_savings",
    "net_cash_flow",
    "cumulative_cash",
    "throughput_per_mw",
    "throughput_per_mw_standard",
)
# Magnitudes beyond which an input is named as the likely cause of a result that overflowed.
EXTREME_HIGH, EXTREME_LOW = 1e30, 1e-30
PRO_INPUTS = (
    "market.mau",
    "market.mau_growth_monthly",
    "market.plus_share_of_mau",
    "market.pro_subscribers_start",
    "conversion.plus_to_pro_base_monthly",
    "conversion.capped_upgrade_propensity",
    "conversion.pro_churn_monthly",
    "conversion.extra_churn_after_term_monthly",
)


def _scenario(p: Params, j: int, keys) -> str:
    """' of scenario j (key=value, ...)' naming the varying inputs among ``keys``."""
    if p.n == 1:
        return ""
    named = ", ".join(
        f"{k}={float(p.over[k][min(j, p.over[k].size - 1)]):g}" for k in keys if k in p.over
    )
    return f" of scenario {j}" + (f" ({named})" if named else "")


def _check_pro_within_users(p: Params, dem: Demand, ado: Adoption) -> None:
    """Pro subscribers never above the users there are (docs/model.md, sections 2.2 and 5.6)."""
    mau = p.row("market.mau") * np.exp(
        (np.arange(dem.plus_pool.shape[0])[:, None]) * np.log1p(p.row("market.mau_growth_monthly"))
    )
    over = ado.path.pro > mau
    if over.any():
        j = int(np.argmax(over.any(axis=0)))
        t = int(np.argmax(over[:, j])) + 1
        raise AssumptionError(
            f"the Pro subscribers ({float(ado.path.pro[t - 1, j]):,.0f}) exceed the monthly active "
            f"users ({float(mau[t - 1, min(j, mau.shape[1] - 1)]):,.0f}) in month {t}"
            + _scenario(p, j, PRO_INPUTS)
            + ": the upgrade probabilities (conversion.*), market.plus_share_of_mau and "
            "conversion.pro_churn_monthly cannot all be right; expected at most one Pro "
            "subscriber per user"
        )


def _check_finite(p: Params, out: Results) -> None:
    """Every figure of FINITE a number; else an error naming the inputs of extreme magnitude
    (a result that is not a number is never printed as one)."""
    for name in FINITE:
        x = np.asarray(getattr(out, name))
        bad = ~np.isfinite(x)
        if not bad.any():
            continue
        j = (
            int(np.argmax(bad.reshape(-1, x.shape[-1]).any(axis=-1)))
            if x.ndim == 2
            else int(np.argmax(bad))
        )
        values = {k: float(p(k)[min(j, p(k).size - 1)]) for k in sorted(p.read)}
        big = [f"{k}={v:g}" for k, v in values.items() if abs(v) > EXTREME_HIGH]
        tiny = [f"{k}={v:g}" for k, v in values.items() if 0 < abs(v) < EXTREME_LOW]
        what = "NPV" if name == "npv" else name.replace("_", " ")
        cause = (
            (f": inputs too large ({', '.join(big)})" if big else "")
            + (f"{';' if big else ':'} inputs too small ({', '.join(tiny)})" if tiny else "")
        ) or ": an input overflowed"
        raise AssumptionError(
            f"{what} is not a finite number"
            + (f" in scenario {j}" if p.n > 1 else "")
            + cause
            + "; expected inputs whose results fit in a double"
        )


def simple_breakeven(a: Assumptions) -> dict[str, float]:
    """The articles' back-of-the-envelope: Pro users needed = value / (price_pro x T)."""
    users = a.num("contract.value_usd") / (
        a.num("plans.pro.price_usd_month") * a.num("contract.term_months")
    )
    return {"pro_users": users, "share_of_mau": users / a.num("market.mau")}
