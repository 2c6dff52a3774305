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
from econ.revenue import allocation, choice, quota
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

# Served speeds (docs/model.md, section 0.1): a tier is served at its speed times one of these,
# at or below CEILING_MARGIN x the platform's per-user ceiling (the envelope is 0 AT the ceiling).
SERVED_GRID = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5)
CEILING_MARGIN = 0.9


@dataclass(frozen=True)
class Capacity:
    """What the contract serves and what the GPU fleet costs (sections 0.1, 3.5), each (N,)
    unless monthly (H, N).

    t: month numbers (H, 1); term T; mw_online MW_t (H, N) [MW]; served {tier: speed}
    [tokens/s/user] (ultrafast on the contract platform, standard and fast on the GPU
    platform); multiplier: the ultrafast tier's served multiplier (NaN where not offered);
    offered: whether the contract platform serves the ultrafast tier; throughput_ultrafast
    Thr*(s_u) (0 where not offered) and throughput_standard Thr*(s_std) on the contract
    [tokens/s/MW]; ceiling_contract, ceiling_gpu [tokens/s/user]; gpu_cost {standard, fast}
    g$ [USD per 1M output tokens]; gpu_cost_set: the override is in force; eta {platform:
    realisation factor} (transferred basis); streams C_t (H, N) [peak streams at s_u].
    """

    t: Array
    term: Array
    mw_online: Array
    served: dict[str, Array]
    multiplier: Array
    offered: Array
    throughput_ultrafast: Array
    throughput_standard: Array
    ceiling_contract: Array
    ceiling_gpu: Array
    gpu_cost: dict[str, Array]
    gpu_cost_set: bool
    eta: dict[str, Array]
    streams: Array


def data_throughput(p: Params, plat: str, speed: Array) -> Array:
    """Thr_p(s) from the platform's data curve (3.1): frontier_scale x the log-log PCHIP."""
    a = p.a
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


def _base_get(a: Assumptions):
    """A getter of the data files' values (before --set and scenarios), None where blank."""
    return lambda k: np.array([float(a.base[k])]) if k in a.base else None


_DATA_CACHE: dict[tuple, object] = {}


def _cached(a: Assumptions, name: str, plat: str, compute):
    """A value that depends on the data files alone (a.base), computed once per data."""
    key = (id(a.base), name, plat)
    hit = _DATA_CACHE.get(key)
    if hit is not None and hit[0] is a.base:
        return hit[1]
    if len(_DATA_CACHE) > 256:
        _DATA_CACHE.clear()
    value = compute()
    _DATA_CACHE[key] = (a.base, value)
    return value


def stage_cap(a: Assumptions, plat: str) -> float:
    """k_cap of a platform: K_CAP_FACTOR x k_min of the served model on it, both at the base
    data (fixed per run, so the stage candidates only grow as k_min falls; section 0.2)."""

    def compute() -> float:
        get = _base_get(a)
        _, k_min = physics.layout(physics.model_from(get), physics.chip_from(get, plat))
        return float(physics.K_CAP_FACTOR * k_min[0])

    return _cached(a, "stage_cap", plat, compute)


def measured_model(a: Assumptions, model_id: str) -> physics.ServedModel:
    """A model of models.csv as a ServedModel (its base values)."""
    v = a.base
    g = lambda c: float(v[f"models.{model_id}.{c}"])  # noqa: E731
    return physics.ServedModel(
        params=g("params"),
        bytes_per_param=g("bytes_per_param"),
        active_param_share=g("active_share"),
        kv_bytes_per_token=g("kv_bytes_per_token"),
        context_tokens=g("context_tokens"),
        speculative_speedup=g("speculative_speedup"),
        layers=g("layers"),
        d_model=g("d_model"),
        prefill_tokens_per_output=g("prefill_tokens_per_output"),
    )


def measurements(a: Assumptions, plat: str) -> list[tuple[str, float]]:
    """The platform's sourced measurements (section 0.1): frontier points that name a model of
    models.csv and whose source is not a Guesstimate, where the measured model's envelope at the
    point's speed on the base hardware is positive: [(point id, Thr_data / Env_measured)], all
    at the data files' values."""
    return _cached(a, "measurements", plat, lambda: _measurements(a, plat))


def _measurements(a: Assumptions, plat: str) -> list[tuple[str, float]]:
    out = []
    get = _base_get(a)
    chip = physics.chip_from(get, plat)
    for i in a.frontier_ids(plat):
        mid = a.base.get(f"frontier.{i}.model")
        src = a.entries[f"frontier.{i}.tokens_per_s_per_mw"].source
        if mid is None or src.lower().startswith("guesstimate"):
            continue
        s = float(a.base[f"frontier.{i}.tokens_per_s_per_user"])
        env = physics.envelope(
            s,
            measured_model(a, str(mid)),
            chip,
            float(a.base["facility.pue"]),
            k_cap=stage_cap(a, plat),
        ).throughput.item()
        if env > 0:
            out.append((i, float(a.base[f"frontier.{i}.tokens_per_s_per_mw"]) / env))
    return out


def realisation(p: Params, plat: str) -> Array:
    """eta_p = min(1, geometric mean of Thr_data(s_i) / Env_measured(s_i; base hardware)) over
    the platform's sourced measurements; 1 where it has none (section 0.1). A constant of the
    data files (overrides of a measured point do not move it; frontier_scale does), (1,)."""
    pts = measurements(p.a, plat)
    if not pts:
        return np.array([1.0])
    return np.array([min(1.0, float(np.exp(np.mean([np.log(r) for _, r in pts]))))])


def platform_throughput(
    p: Params, plat: str, speed: Array, model: physics.ServedModel, eta: dict[str, Array]
) -> Array:
    """Thr*_p(s) [tokens/s/MW] on the run's basis: the data curve, the served model's physics
    envelope, or eta_p x frontier_scale_p x that envelope (transferred)."""
    basis = p.a.values["capacity.basis"]
    if basis == "data":
        return data_throughput(p, plat, speed)
    chip = physics.chip_from(p.get, plat)
    env = physics.envelope(speed, model, chip, p("facility.pue"), k_cap=stage_cap(p.a, plat))
    if basis == "physics":
        return env.throughput
    if plat not in eta:
        eta[plat] = realisation(p, plat)
    return eta[plat] * p(f"hardware.{plat}.frontier_scale") * env.throughput


def fastest_feasible(speed: Array, ceiling: Array, most: ArrayLike = 1.0) -> tuple[Array, Array]:
    """(multiplier, feasible): the largest m of SERVED_GRID with m <= ``most`` and
    speed x m <= CEILING_MARGIN x ceiling, per scenario; NaN and False where none is."""
    m_best = np.full(
        np.broadcast_shapes(np.shape(speed), np.shape(ceiling), np.shape(most)), np.nan
    )
    for m in SERVED_GRID[::-1]:  # slowest first, so that faster feasible ones overwrite
        ok = (m <= np.asarray(most) + 1e-12) & (speed * m <= CEILING_MARGIN * ceiling)
        m_best = np.where(ok, m, m_best)
    return m_best, ~np.isnan(m_best)


def gpu_cost_per_mw_month(p: Params, plat: str) -> Array:
    """The GPU platform's cost per facility MW-month [USD]: its hourly rent (the opportunity cost
    of freed GPUs), or the buy-side cost per delivered MW-month where it has none (4.3)."""
    rent = p.get(f"hardware.{plat}.rent_usd_per_hour")
    if rent is not None:
        return cost.hourly_rent_per_mw_month(
            rent, p(f"hardware.{plat}.power_kw"), p("facility.pue")
        )
    from econ.compute import tables

    return np.array([tables.buy_per_mw_month(p.a, plat)])


def online_mw(p: Params, t: Array, mw: ArrayLike) -> Array:
    """MW_t [MW] of a contract of ``mw`` MW in months ``t``: in tranches where
    contract.tranche_mw is set (section 0.3), else on the linear ramp (section 4.1); 0 after
    the term. The one schedule every command uses (``mw`` broadcasts against ``t``)."""
    term = p.row("contract.term_months")
    if "contract.tranche_mw" in p.a.values:
        return cap.tranche_online(
            t, mw, p.row("contract.tranche_mw"), p.row("contract.tranche_months"), term
        )
    return np.asarray(mw, float) * cap.online_share(t, p.row("contract.ramp_months"), term)


def capacity_stage(p: Params, most: ArrayLike = 1.0) -> Capacity:
    """MW online; served speeds; Thr* at the served ultrafast and standard speeds on the
    contract; the GPU cost per token of the standard and fast tiers (sections 0.1, 3.5).
    ``most``: the largest served multiplier the ultrafast tier may take, scalar or (N,)."""
    a = p.a
    H = int(a.values["horizon.months"])
    t = cap.months(H)[:, None]
    term = p.row("contract.term_months")
    mw_online = online_mw(p, t, p.row("contract.mw"))
    basis = a.values["capacity.basis"]
    plat, gpu = str(a.values["contract.platform"]), str(a.values["capacity.gpu_platform"])
    model = physics.model_from(p)
    ceil_c = physics.ceiling(model, physics.chip_from(p.get, plat))
    ceil_g = physics.ceiling(model, physics.chip_from(p.get, gpu))
    tier_speed = {i: p(f"tiers.{i}.tokens_per_s") for i in TIER_IDS}
    gpu_set = p.get("capacity.gpu_cost_per_mtok_usd")
    served = dict(tier_speed)
    if basis == "data":
        mult, offered = np.ones(1), np.ones(1, bool)
    else:
        if gpu_set is None:  # the GPU side follows the served model (0.1)
            for i in ("standard", "fast"):
                m, ok = fastest_feasible(tier_speed[i], ceil_g)
                served[i] = np.where(ok, tier_speed[i] * m, CEILING_MARGIN * ceil_g)
        mult, offered = fastest_feasible(tier_speed["ultrafast"], ceil_c, most)
        served["ultrafast"] = np.where(
            offered, tier_speed["ultrafast"] * mult, tier_speed["ultrafast"]
        )
    eta: dict[str, Array] = {}
    thr_u = np.where(offered, platform_throughput(p, plat, served["ultrafast"], model, eta), 0.0)
    thr_b = platform_throughput(p, plat, served["standard"], model, eta)
    if gpu_set is not None:
        g_cost = {"standard": gpu_set, "fast": gpu_set}
    else:
        per_mw = gpu_cost_per_mw_month(p, gpu) * TOKENS_PER_MILLION
        util = p("capacity.gpu_fleet_utilization")
        g_cost = {}
        keep = 1.0 - p("finance.api_gross_margin")
        for i in ("standard", "fast"):
            thr = platform_throughput(p, gpu, served[i], model, eta)
            with np.errstate(divide="ignore"):
                derived = per_mw / (thr * SECONDS_PER_MONTH * util)
            # the public gross margin bounds what a token can cost the lab: where the physics
            # of a draw says more, the public figure wins (section 0.1)
            g_cost[i] = np.minimum(derived, keep * p(f"tiers.{i}.price_per_mtok_usd"))
    streams = cap.streams(mw_online, thr_u, served["ultrafast"])
    return Capacity(
        t,
        term,
        mw_online,
        served,
        mult,
        offered,
        thr_u,
        thr_b,
        ceil_c,
        ceil_g,
        g_cost,
        gpu_set is not None,
        eta,
        streams,
    )


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
    """Per-user demand and the API market (5.1, 5.2, 0.4), time-major (H, N).

    efficiency e_t [-]; phi {tier: (N,)} [-] at the served speeds; plus_pool N_t [users];
    plus_hits / pro_hits {tier: SF} [share]; w_* [tokens/user-week]; api the logit's market
    (choice.Choice); api_wanted V_t [tokens/month]; usage {plan: (median weekly tokens mu,
    weekly quota c)} at the standard tier [tokens/week], rows (1, N).
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
    api: choice.Choice
    api_wanted: Array
    usage: dict[str, tuple[Array, Array]]


def plan_usage(p: Params, plan: str) -> tuple[Array, Array]:
    """(median weekly tokens mu, weekly quota c) of a plan at the standard tier, built from
    queries: mu = queries a day x 7 x tokens a query x exp(-sigma^2 / 2) (the public figure is
    a mean; the lognormal's median is below it); c = weekly quota in queries x tokens a query
    (section 0.5). Rows (1, N)."""
    tpq = p.row("usage.output_tokens_per_query")
    sigma = p.row("usage.demand_sigma")
    mean = p.row(f"plans.{plan}.queries_per_day") * 7.0 * tpq
    return mean * np.exp(-0.5 * sigma * sigma), p.row(f"plans.{plan}.weekly_quota_queries") * tpq


def demand_stage(p: Params, c: Capacity, detail: bool) -> Demand:
    t, row = c.t, p.row
    log_e = quota.log_token_efficiency(row("usage.token_efficiency_gain_annual"), t)
    e = np.exp(log_e)
    s_std = p("tiers.standard.tokens_per_s")
    el = p("usage.speed_elasticity")
    tiers = p.a.tier_ids()
    phi = {i: quota.speed_factor(c.served[i], s_std, el) for i in tiers}
    sigma = row("usage.demand_sigma")
    usage = {plan: plan_usage(p, plan) for plan in ("plus", "pro")}

    def logs(plan: str, tier: str) -> Array:
        median, quota_tokens = usage[plan]
        return quota.log_quota_over_median(
            quota_tokens, row(f"tiers.{tier}.usage_multiplier"), median, phi[tier][None, :], log_e
        )

    # The ultrafast tier exists only in the term: without detail (the Monte Carlo, goal seek)
    # its normal CDFs are evaluated for the term's months alone, zero after (where its
    # adoption is zero); reports keep every month for their tables.
    in_term = None if detail else int(np.max(c.term))

    def cut(tier: str, n: int) -> bool:
        return in_term is not None and tier == "ultrafast" and in_term < n

    def hit_share(ell: Array, tier: str) -> Array:
        if not cut(tier, ell.shape[0]):
            return quota.cap_hit_share(ell, sigma)
        out = np.zeros(np.broadcast_shapes(ell.shape, sigma.shape))
        out[:in_term] = quota.cap_hit_share(ell[:in_term], sigma)
        return out

    def served(plan: str, tier: str, ell: Array, hit: Array) -> Array:
        mu = usage[plan][0] * phi[tier][None, :] * e
        if not cut(tier, ell.shape[0]):
            return quota.tokens_served(mu, ell, sigma, hit)
        out = np.zeros(np.broadcast_shapes(mu.shape, ell.shape, sigma.shape))
        out[:in_term] = quota.tokens_served(mu[:in_term], ell[:in_term], sigma, hit[:in_term])
        return out

    plus_l = {i: logs("plus", i) for i in tiers}
    plus_hits = {i: hit_share(plus_l[i], i) for i in tiers}
    pro_tiers = tiers if detail else ("standard", "ultrafast")
    pro_l = {i: logs("pro", i) for i in pro_tiers}
    pro_hits = {i: hit_share(pro_l[i], i) for i in pro_tiers}
    plus_pool = (row("market.mau") * row("market.plus_share_of_mau")) * np.exp(
        (t - 1.0) * np.log1p(row("market.mau_growth_monthly"))
    )
    api = api_market(p, c)
    ramp = rev.ramp_share(t, row("api.ramp_months"))
    wanted = np.where(
        (t <= c.term) & c.offered[None, :],
        (api.market * api.share_ultrafast)[None, :] * e * ramp,
        0.0,
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
        api=api,
        api_wanted=wanted,
        usage=usage,
    )


def api_market(p: Params, c: Capacity) -> choice.Choice:
    """The API logit calibrated at the bundled prices and tier speeds, evaluated at the run's
    prices and served speeds, with the margin per ultrafast token (section 0.4)."""
    lg = choice.calibrate(
        p("api.standard_tokens_per_month"),
        p("api.fast_tokens_per_month"),
        p("api.ultrafast_tokens_per_month"),
        p("api.diversion_to_lab_tiers"),
        p("tiers.standard.price_per_mtok_usd"),
        p("tiers.fast.price_per_mtok_usd"),
        p("api.reference_price_per_mtok_usd"),
        p("api.price_elasticity"),
        p("api.wtp_speed_doubling_usd_per_mtok"),
        *(p(f"tiers.{i}.tokens_per_s") for i in TIER_IDS),
        lam=p("api.speed_nest_lambda"),
    )
    prices = tuple(p(f"tiers.{i}.price_per_mtok_usd") for i in TIER_IDS)
    speeds = tuple(c.served[i] for i in TIER_IDS)
    return choice.choice(
        lg,
        prices,
        speeds,
        (c.gpu_cost["standard"], c.gpu_cost["fast"]),
        p("finance.variable_cost_share"),
    )


@dataclass(frozen=True)
class Adoption:
    """The monthly allocation and the Pro stocks (0.2, 0.5, 5.3-5.6), (H, N).

    path: allocation.Allocation; base_upgrade, capped_propensity: the derived no-deal rates
    [1/month] (N,); price_factor pf [-] (N,); pro_value W_t [USD] (H, N); parts: with detail,
    the figures the workbook shows beside them (survival S_t, the discounted margin, the
    adoption's burn factor, a subscriber's terminal value, each use's cap and value per average
    MW), else None."""

    path: allocation.Allocation
    base_upgrade: Array
    capped_propensity: Array
    price_factor: Array
    pro_value: Array
    adoption_wanted: Array
    subscriber_margin: Array
    api_served: Array
    backfill_peak: Array
    backfill_flexible: Array
    parts: dict[str, Array] | None = None


def subscriber_margin(p: Params, c: Capacity, dem: Demand) -> Array:
    """m_t [USD/month]: the net margin of one incremental Pro subscriber in month t, the price
    step net of fees less the GPU cost of the extra standard-tier usage (section 6)."""
    keep = 1.0 - p.row("finance.variable_cost_share")
    extra_tokens = (dem.w_pro_standard - dem.w_plus_standard) * (
        SECONDS_PER_MONTH / SECONDS_PER_WEEK
    )
    step = p.row("plans.pro.price_usd_month") - p.row("plans.plus.price_usd_month")
    return step * keep - extra_tokens * c.gpu_cost["standard"][None, :] / TOKENS_PER_MILLION


def uses(p: Params, c: Capacity, dem: Demand) -> dict[str, Array]:
    """The other uses' caps [average MW] (H, N) and values [USD per average MW-month] (N,) in
    the monthly allocation, and the tokens a month one average MW carries at the ultrafast
    and standard speeds, per_mw_u and per_mw_b (N,) (section 0.2)."""
    row = p.row
    per_mw_u = c.throughput_ultrafast * SECONDS_PER_MONTH  # at s_u
    per_mw_b = c.throughput_standard * SECONDS_PER_MONTH
    api_cap = np.divide(
        dem.api_wanted,
        per_mw_u[None, :],
        out=np.zeros(np.broadcast_shapes(dem.api_wanted.shape, (1, per_mw_u.size))),
        where=per_mw_u[None, :] > 0,
    )
    g_std = c.gpu_cost["standard"]
    volume = np.where(
        c.t <= c.term, row("capacity.backfill_tokens_per_month") * dem.efficiency, 0.0
    )
    # peak-shaped: the standard traffic itself; flexible: batch work (evaluations, synthetic data,
    # offline inference) on top of it, a share of its volume (section 0.2's reading)
    flex = row("capacity.backfill_flexible_share")
    with np.errstate(divide="ignore", invalid="ignore"):
        bp_cap = np.where(per_mw_b > 0, volume / per_mw_b, 0.0)
        bf_cap = np.where(per_mw_b > 0, volume * flex / per_mw_b, 0.0)
    return {
        "per_mw_u": per_mw_u,
        "per_mw_b": per_mw_b,
        "api_cap": api_cap,
        "backfill_peak_cap": bp_cap,
        "flexible_cap": bf_cap,
        "rho_api": dem.api.margin * per_mw_u / TOKENS_PER_MILLION,
        "rho_backfill": g_std * per_mw_b / TOKENS_PER_MILLION,
        "rho_flexible": p("capacity.flexible_value_share") * g_std * per_mw_b / TOKENS_PER_MILLION,
    }


def adoption_stage(p: Params, c: Capacity, dem: Demand, detail: bool = False) -> Adoption:
    row = p.row
    a_f = p("tiers.fast.adoption")
    h0_1 = (1.0 - a_f) * dem.plus_hits["standard"][0] + a_f * dem.plus_hits["fast"][0]
    base, prop = allocation.calibrate_no_deal(
        p("market.pro_subscribers_start"),
        p("conversion.pro_churn_monthly"),
        p("market.pro_growth_monthly"),
        dem.plus_pool[0],
        h0_1,
        p("conversion.capped_share_of_upgrades"),
        p("conversion.max_capped_propensity"),
    )
    pf = np.exp(
        -p("conversion.pro_price_elasticity")
        * np.log(p("plans.pro.price_usd_month") / p("plans.pro.price_ref_usd_month"))
    )
    rev.check_no_deal(p, base, prop, pf, dem.plus_pool[0], h0_1)
    burn = np.exp(
        p("usage.adoption_burn_elasticity")
        * np.log(p("usage.adoption_ref_multiplier") / p("tiers.ultrafast.usage_multiplier"))
    )
    a_want = np.minimum(p("tiers.ultrafast.adoption") * burn, 1.0 - a_f)
    # W_t: the value of one extra Pro subscriber converted in month t (0.2)
    churn, extra = (
        row("conversion.pro_churn_monthly"),
        row("conversion.extra_churn_after_term_monthly"),
    )
    step = 1.0 - churn - np.where(c.t > c.term, extra, 0.0)
    d = cost.discount(c.t, row("finance.discount_rate_annual"))
    margin = subscriber_margin(p, c, dem)
    r_m = np.expm1(np.log1p(p("finance.discount_rate_annual")) / 12.0)
    cc = p("conversion.pro_churn_monthly") + p("conversion.extra_churn_after_term_monthly")
    tv_sub = p("finance.terminal_value") * margin[-1] * (1.0 - cc) / (r_m + cc)
    parts: dict[str, Array] | None = {} if detail else None
    W = allocation.subscriber_value_per_adopter(margin, d, step, tv_sub, parts)
    u = uses(p, c, dem)
    per_mw_u, per_mw_b = u["per_mw_u"], u["per_mw_b"]
    path = allocation.pro_paths(
        plus_pool=dem.plus_pool,
        pro_start=p("market.pro_subscribers_start"),
        churn=p("conversion.pro_churn_monthly"),
        extra_churn_after_term=p("conversion.extra_churn_after_term_monthly"),
        base_upgrade=base,
        capped_propensity=prop,
        price_factor=pf,
        adoption_fast=a_f,
        adoption_wanted=a_want,
        offer=str(p.a.values["capacity.subscriber_offer"]),
        peak_to_average=p("usage.peak_to_average"),
        speed_ultrafast=c.served["ultrafast"],
        throughput_ultrafast=c.throughput_ultrafast,
        phi_ultrafast=dem.phi["ultrafast"],
        gpu_cost_standard=c.gpu_cost["standard"],
        hit_standard=dem.plus_hits["standard"],
        hit_fast=dem.plus_hits["fast"],
        hit_ultrafast=dem.plus_hits["ultrafast"],
        w_plus_ultrafast=dem.w_plus_ultrafast,
        w_pro_ultrafast=dem.w_pro_ultrafast,
        mw_online=c.mw_online,
        api_cap=u["api_cap"],
        api_value=u["rho_api"],
        backfill_peak_cap=u["backfill_peak_cap"],
        backfill_value=u["rho_backfill"],
        flexible_cap=u["flexible_cap"],
        flexible_value=u["rho_flexible"],
        # W_t is at month 0; the other uses' values are month-t money: compare them in month t
        pro_value=W / d,
        term_months=c.term[0],
        detail=detail,
    )
    if parts is not None:
        parts.update(u, survival_step=step, adoption_burn=burn, subscriber_tv=tv_sub)
    return Adoption(
        path=path,
        base_upgrade=base,
        capped_propensity=prop,
        price_factor=pf,
        pro_value=W,
        adoption_wanted=a_want,
        subscriber_margin=margin,
        api_served=path.mw_api * per_mw_u[None, :],
        backfill_peak=path.mw_backfill_peak * per_mw_b[None, :],
        backfill_flexible=path.mw_backfill_flexible * per_mw_b[None, :],
        parts=parts,
    )


@dataclass(frozen=True)
class Revenue:
    """Incremental revenue and the GPU-fleet boundary (0.4, 5.7-5.9), (H, N).

    incremental_pro dP_t [users]; subscription sub_t and api api_t (fee-bearing) [USD];
    api_gpu: the GPU cost the diverted API tokens no longer take [USD]; subscriber_streams
    a_u A_t peak_to_average [peak streams]; adopter_tokens a_u A_t s_u SECONDS_PER_MONTH
    [tokens/month]; backfill Bf_t (peak-shaped + flexible) [tokens/month]; moved / added
    [tokens/month]; gpu gpu_t [USD].
    """

    incremental_pro: Array
    subscription: Array
    api: Array
    api_gpu: Array
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
    api = ado.api_served * dem.api.revenue_per_token[None, :] / TOKENS_PER_MILLION
    api_gpu = ado.api_served * dem.api.gpu_avoided_per_token[None, :] / TOKENS_PER_MILLION
    pta = row("usage.peak_to_average")
    subscriber = path.ultrafast_adoption * path.all_adopt_streams * pta
    s_u = c.served["ultrafast"][None, :]
    adopter_tokens = subscriber / pta * s_u * SECONDS_PER_MONTH
    phi_u = dem.phi["ultrafast"][None, :]
    g_std = c.gpu_cost["standard"][None, :]
    added = rev.tokens_added_to_gpus(d_pro, dem.w_pro_standard, dem.w_plus_standard)
    flex_value = row("capacity.flexible_value_share")
    saved = ado.backfill_peak + flex_value * ado.backfill_flexible + adopter_tokens / phi_u - added
    gpu = saved * g_std / TOKENS_PER_MILLION + api_gpu
    diverted = ado.api_served * (dem.api.diversion_standard + dem.api.diversion_fast)[None, :]
    moved = ado.backfill_peak + ado.backfill_flexible + adopter_tokens / phi_u + diverted
    backfill = ado.backfill_peak + ado.backfill_flexible
    return Revenue(
        d_pro, sub, api, api_gpu, subscriber, adopter_tokens, backfill, moved, added, gpu
    )


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


def cash_stage(
    p: Params, c: Capacity, rent: Array, ado: Adoption, r: Revenue, irr_on: bool = True
) -> Cash:
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
    margin = ado.subscriber_margin[-1]
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
    irr_val = (
        annualise(irr(np.ascontiguousarray(flows.T))) if irr_on else np.full(npv.shape, np.nan)
    )
    return Cash(
        net_cash_flow=cf,
        discount=d,
        discounted_cash_flow=disc,
        cumulative_cash=k,
        npv=npv,
        npv_without_terminal_value=npv_h,
        npv_at_term=np.where(in_term, disc, 0.0).sum(axis=0),
        terminal_value=np.broadcast_to(tv, npv.shape),
        irr_annual=irr_val,
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
    throughput_per_mw: Array = _f("tokens/s/MW", "(N,)", "Thr* at the served ultrafast speed")
    throughput_per_mw_standard: Array = _f("tokens/s/MW", "(N,)", "Thr* at the standard speed")
    served_tokens_per_s_standard: Array = _f(
        "tokens/s/user", "(N,)", "standard tier's served speed"
    )
    served_tokens_per_s_fast: Array = _f("tokens/s/user", "(N,)", "fast tier's served speed")
    served_tokens_per_s_ultrafast: Array = _f(
        "tokens/s/user", "(N,)", "ultrafast tier's served speed on the contract platform"
    )
    served_multiplier: Array = _f(
        "x", "(N,)", "ultrafast served speed / tier speed (NaN: not offered)"
    )
    ceiling_contract: Array = _f(
        "tokens/s/user", "(N,)", "per-user ceiling on the contract platform"
    )
    ceiling_gpu: Array = _f("tokens/s/user", "(N,)", "per-user ceiling on the GPU platform")
    gpu_cost_standard: Array = _f("USD per 1M tokens", "(N,)", "g$ of a standard output token")
    gpu_cost_fast: Array = _f("USD per 1M tokens", "(N,)", "g$ of a fast output token")
    api_margin: Array = _f(
        "USD per 1M tokens", "(N,)", "m_u, the margin of one ultrafast API token"
    )
    api_share_standard: Array = _f("share", "(N,)", "logit share of the standard tier")
    api_share_fast: Array = _f("share", "(N,)", "logit share of the fast tier")
    api_share_ultrafast: Array = _f("share", "(N,)", "logit share of the ultrafast tier")
    api_share_outside: Array = _f("share", "(N,)", "logit share of the outside option")
    api_diversion_standard: Array = _f(
        "-", "(N,)", "D_s, standard tokens one ultrafast token replaces"
    )
    api_diversion_fast: Array = _f("-", "(N,)", "D_f, fast tokens one ultrafast token replaces")
    api_market_tokens: Array = _f("tokens/month", "(N,)", "the logit's market M")
    api_premium: Array = _f(
        "USD per 1M tokens", "(N,)", "calibrated premium (alpha_u - alpha_s) / beta"
    )
    pro_base_upgrade: Array = _f("1/month", "(N,)", "derived base Plus-to-Pro upgrade rate")
    pro_capped_propensity: Array = _f("1/month", "(N,)", "derived cap-hit upgrade propensity")
    pro_price_factor: Array = _f("-", "(N,)", "(price / reference price)^(-elasticity)")
    ultrafast_adoption_wanted: Array = _f("share", "(N,)", "adoption after the burn response")
    mw_api: Array = _f("MW", "(N, H)", "average MW serving the API")
    mw_subscriber: Array = _f("MW", "(N, H)", "average MW serving subscriber streams")
    mw_backfill_peak: Array = _f("MW", "(N, H)", "average MW of peak-shaped backfill")
    mw_backfill_flexible: Array = _f("MW", "(N, H)", "average MW of flexible backfill")
    mw_idle: Array = _f("MW", "(N, H)", "average MW left idle")
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
    a: Assumptions,
    overrides: Mapping[str, ArrayLike] | None = None,
    detail: bool = True,
    served: ArrayLike | None = None,
) -> Results:
    """Evaluate the model for every scenario at once (docs/model.md, sections 0 and 3-6).

    Parameters
    ----------
    a : the validated assumptions (structural keys: horizon, platforms, capacity basis).
    overrides : {dotted key: scalar or (N,) array} replacing numeric assumptions.
    detail : also compute what only reports show (utilisation, the Pro plan's cap hits,
        cumulative discounted cash, totals, the workbook's intermediate rows); None when False.
    served : the largest multiplier of the ultrafast tier's speed the contract may serve it at
        (scalar or (N,)); each scenario then serves the fastest feasible grid speed at or below
        it. None (the default): each scenario serves the feasible grid speed that maximises its
        NPV (section 0.1). The sensitivity analyses hold the base case's choice.

    Raises AssumptionError for an override outside its key's rule, and for a result that
    breaks an invariant (more Pro subscribers than users) or is not a number.
    """
    p = Params(a, overrides)
    if served is None and a.values["capacity.basis"] != "data":
        served = choose_served(p)
    return _evaluate(p, 1.0 if served is None else served, detail)


def choose_served(p: Params) -> Array:
    """Per scenario, the multiplier of SERVED_GRID whose fastest feasible speed maximises the
    NPV (ties: the faster), (N,) (section 0.1). Every candidate of every scenario is evaluated
    in one vectorised call (the scenarios repeated once per candidate)."""
    k = len(SERVED_GRID)
    n = p.n
    tiled = {key: np.tile(np.broadcast_to(v, (n,)), k) for key, v in p.over.items()}
    tiled["contract.mw"] = np.tile(np.broadcast_to(p("contract.mw"), (n,)), k)
    q = Params(p.a, tiled)
    most = np.repeat(np.asarray(SERVED_GRID, float), n)
    with np.errstate(all="ignore"):
        c = capacity_stage(q, most)
        npv = _cash(q, c, detail=False, irr_on=False)[-1].npv
    p.read |= q.read
    npv = np.where(np.isfinite(npv), npv, -np.inf).reshape(k, n)
    best = np.argmax(npv, axis=0)  # the first (fastest) of equal NPVs
    return np.asarray(SERVED_GRID, float)[best]


def _cash(p: Params, c: Capacity, detail: bool, irr_on: bool = True):
    rent = rent_stage(p, c)
    dem = demand_stage(p, c, detail)
    ado = adoption_stage(p, c, dem, detail)
    r = revenue_stage(p, c, dem, ado)
    return rent, dem, ado, r, cash_stage(p, c, rent, ado, r, irr_on)


def _evaluate(p: Params, served: ArrayLike, detail: bool) -> Results:
    with np.errstate(all="ignore"):  # results that are not numbers are refused below
        c = capacity_stage(p, served)
        rent, dem, ado, r, cash = _cash(p, c, detail)
    _check_pro_within_users(p, dem, ado)
    N, H = p.n, c.t.shape[0]

    def nh(x: Array) -> Array:
        """(H, N) or (H, 1) -> an (N, H) view."""
        return np.broadcast_to(np.asarray(x).T, (N, H))

    def vec(x: ArrayLike) -> Array:
        return np.broadcast_to(np.asarray(x, float), (N,))

    path = ado.path
    served_t = ado.api_served + r.adopter_tokens + r.backfill  # U_t
    api = dem.api
    used = path.mw_api + path.mw_subscriber + path.mw_backfill_peak + path.mw_backfill_flexible
    out = Results(
        months=cap.months(H),
        mw_online=nh(c.mw_online),
        rent=nh(rent),
        discount=nh(cash.discount),
        capacity_streams=nh(c.streams),
        api_tokens_wanted=nh(dem.api_wanted),
        api_tokens_served=nh(ado.api_served),
        api_streams_peak=nh(
            ado.api_served
            * p.row("usage.peak_to_average")
            / (c.served["ultrafast"][None, :] * SECONDS_PER_MONTH)
        ),
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
        backfill_usd=nh(
            (ado.backfill_peak + p.row("capacity.flexible_value_share") * ado.backfill_flexible)
            * c.gpu_cost["standard"][None, :]
            / TOKENS_PER_MILLION
        )
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
        served_tokens_per_s_standard=vec(c.served["standard"]),
        served_tokens_per_s_fast=vec(c.served["fast"]),
        served_tokens_per_s_ultrafast=vec(np.where(c.offered, c.served["ultrafast"], np.nan)),
        served_multiplier=vec(c.multiplier),
        ceiling_contract=vec(c.ceiling_contract),
        ceiling_gpu=vec(c.ceiling_gpu),
        gpu_cost_standard=vec(c.gpu_cost["standard"]),
        gpu_cost_fast=vec(c.gpu_cost["fast"]),
        # where the tier is not offered: the market without it, no margin and no diversion
        api_margin=vec(np.where(c.offered, api.margin, np.nan)),
        api_share_standard=vec(np.where(c.offered, api.share_standard, api.no_deal_standard)),
        api_share_fast=vec(np.where(c.offered, api.share_fast, api.no_deal_fast)),
        api_share_ultrafast=vec(np.where(c.offered, api.share_ultrafast, 0.0)),
        api_share_outside=vec(
            np.where(c.offered, api.share_outside, 1.0 - api.no_deal_standard - api.no_deal_fast)
        ),
        api_diversion_standard=vec(np.where(c.offered, api.diversion_standard, np.nan)),
        api_diversion_fast=vec(np.where(c.offered, api.diversion_fast, np.nan)),
        api_market_tokens=vec(api.market),
        api_premium=vec(np.where(np.isfinite(api.premium), api.premium, np.nan)),
        pro_base_upgrade=vec(ado.base_upgrade),
        pro_capped_propensity=vec(ado.capped_propensity),
        pro_price_factor=vec(ado.price_factor),
        ultrafast_adoption_wanted=vec(ado.adoption_wanted),
        mw_api=nh(path.mw_api),
        mw_subscriber=nh(path.mw_subscriber),
        mw_backfill_peak=nh(path.mw_backfill_peak),
        mw_backfill_flexible=nh(path.mw_backfill_flexible),
        mw_idle=nh(np.maximum(c.mw_online - used, 0.0)),
    )
    served_sum = served_t.sum(axis=0)
    with np.errstate(all="ignore"):
        cost_ = TOKENS_PER_MILLION * rent.sum(axis=0) / served_sum
        out.realised_cost_per_mtok = vec(np.where(served_sum > 0, cost_, np.nan))
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
    used = path.mw_api + path.mw_subscriber + path.mw_backfill_peak + path.mw_backfill_flexible
    with np.errstate(divide="ignore", invalid="ignore"):
        util = np.where(c.mw_online > 0, used / c.mw_online, np.nan)
    out.utilization = nh(util)
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
    g_std = c.gpu_cost["standard"]
    api = dem.api
    served = ado.api_served.sum(axis=0)
    online = np.where(in_term, c.mw_online, 0.0)
    out.totals = {
        "rent_usd": vec(rent.sum(axis=0)),
        "subscription_revenue_usd": vec(r.subscription.sum(axis=0)),
        "api_revenue_usd": vec(r.api.sum(axis=0)),
        "api_ultrafast_revenue_usd": vec(
            served * p("tiers.ultrafast.price_per_mtok_usd") / TOKENS_PER_MILLION
        ),
        "api_revenue_lost_usd": vec(
            served
            * (api.revenue_per_token - p("tiers.ultrafast.price_per_mtok_usd"))
            / -TOKENS_PER_MILLION
        ),
        "api_gpu_cost_avoided_usd": vec(r.api_gpu.sum(axis=0)),
        "backfill_usd": vec(out.backfill_usd.sum(axis=1)),
        "gpu_savings_usd": vec(r.gpu.sum(axis=0)),
        "gpu_cost_of_moved_usd": vec(
            r.gpu.sum(axis=0) + r.added.sum(axis=0) * g_std / TOKENS_PER_MILLION
        ),
        "gpu_cost_of_added_usd": vec(r.added.sum(axis=0) * g_std / TOKENS_PER_MILLION),
        "tokens_moved_off_gpus": vec(r.moved.sum(axis=0)),
        "tokens_added_to_gpus": vec(r.added.sum(axis=0)),
        "tokens_served": vec(out.tokens_served.sum(axis=1)),
        "api_tokens_wanted": vec(dem.api_wanted.sum(axis=0)),
        "api_tokens_served": vec(served),
        "backfill_peak_tokens": vec(ado.backfill_peak.sum(axis=0)),
        "backfill_flexible_tokens": vec(ado.backfill_flexible.sum(axis=0)),
        "peak_incremental_pro_subscribers": vec(r.incremental_pro.max(axis=0)),
        "incremental_pro_subscribers_at_horizon": vec(r.incremental_pro[-1]),
        "pro_subscribers_no_deal_at_term": vec(
            np.take_along_axis(
                np.broadcast_to(path.pro_counterfactual, (c.t.shape[0], p.n)),
                (np.broadcast_to(c.term, (1, p.n)).astype(int) - 1),
                0,
            )[0]
        ),
        "peak_ultrafast_adoption": vec(a_u.max(axis=0)),
        "peak_utilization": vec(np.nanmax(np.where(c.mw_online > 0, util, -np.inf), axis=0)),
        # the term's average, each month weighted by its MW online
        "term_average_utilization": vec(
            np.where(in_term & (c.mw_online > 0), used, 0.0).sum(axis=0) / online.sum(axis=0)
        ),
        # MW-months of the term by use
        **{
            f"mw_months_{k}": vec(np.where(in_term, x, 0.0).sum(axis=0))
            for k, x in (
                ("api", path.mw_api),
                ("subscriber", path.mw_subscriber),
                ("backfill_peak", path.mw_backfill_peak),
                ("backfill_flexible", path.mw_backfill_flexible),
                ("idle", np.maximum(c.mw_online - used, 0.0)),
            )
        },
        "variable_costs_usd": vec(
            ((r.subscription + r.api) * p.row("finance.variable_cost_share")).sum(axis=0)
        ),
    }
    t = c.t[:, 0]
    out.parts = {
        "online_share": nh(c.mw_online / p.row("contract.mw")),
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
        "subscriber_value": nh(path.subscriber_value),
        "pro_value": nh(ado.pro_value),
        "adopter_tokens": nh(r.adopter_tokens),
        "backfill_peak": nh(ado.backfill_peak),
        "backfill_flexible": nh(ado.backfill_flexible),
        "api_gpu": nh(r.api_gpu),
        "w_plus_ultrafast": nh(dem.w_plus_ultrafast),
        "w_pro_ultrafast": nh(dem.w_pro_ultrafast),
        "w_plus_standard": nh(dem.w_plus_standard),
        "w_pro_standard": nh(dem.w_pro_standard),
        "api_revenue_per_token": vec(api.revenue_per_token),
        "api_gpu_avoided_per_token": vec(api.gpu_avoided_per_token),
        "token_margin.standard": vec(api.lab_margins[0]),
        "token_margin.fast": vec(api.lab_margins[1]),
        **{f"eta.{k}": vec(v) for k, v in c.eta.items()},
        **{f"phi.{i}": vec(f) for i, f in dem.phi.items()},
        **{f"plus_hit.{i}": nh(x) for i, x in dem.plus_hits.items()},
        **{f"pro_hit.{i}": nh(x) for i, x in dem.pro_hits.items()},
        **_chain_parts(dem, ado, nh, vec),
    }


LOGIT_PARTS = ("q_s", "q_f", "q_u", "q_0", "beta", "gamma", "alpha_s", "alpha_f", "alpha_u")
MONTHLY_PARTS = ("survival_step", "survival", "discounted_margin", "api_cap", "backfill_peak_cap")
MONTHLY_PARTS += ("flexible_cap",)
SCALAR_PARTS = ("adoption_burn", "subscriber_tv", "per_mw_u", "per_mw_b", "rho_api")
SCALAR_PARTS += ("rho_backfill", "rho_flexible")


def _chain_parts(dem: Demand, ado: Adoption, nh, vec) -> dict[str, Array]:
    """The figures of the workbook's chain as the model computed them (Results.parts): plan
    usage, the logit's constants and utilities, the subscriber's margin, survival and
    discounted margin, each use's cap and value, and the allocation's steps month by month."""
    lg, path = dem.api.logit, ado.path
    out = {
        **{f"usage_median.{k}": vec(u[0][0]) for k, u in dem.usage.items()},
        **{f"usage_quota.{k}": vec(u[1][0]) for k, u in dem.usage.items()},
        **{f"logit.{k}": vec(getattr(lg, k)) for k in LOGIT_PARTS},
        "logit.inclusive": vec(lg.inclusive),
        **{f"api_utility.{i}": vec(v) for i, v in zip(TIER_IDS, dem.api.utilities, strict=True)},
        "subscriber_margin": nh(ado.subscriber_margin),
    }
    parts = ado.parts or {}
    out.update({k: nh(parts[k]) for k in MONTHLY_PARTS if k in parts})
    out.update({k: vec(parts[k]) for k in SCALAR_PARTS if k in parts})
    for k, v in (path.parts or {}).items():
        out[f"allocation.{k}"] = nh(v) if np.ndim(v) == 2 else vec(v)
    return out


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
    "market.pro_growth_monthly",
    "conversion.capped_share_of_upgrades",
    "conversion.max_capped_propensity",
    "conversion.pro_price_elasticity",
    "plans.pro.price_usd_month",
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


SIZE_KEYS = ("contract.mw", "contract.term_months")


def at_rate(a: Assumptions, key: str, xs: ArrayLike) -> dict[str, Array]:
    """Overrides that set ``key`` to ``xs`` and, where it sizes the contract (contract.mw or
    contract.term_months), move contract.value_usd with it at the contract's rate per
    MW-month, value / (mw x T) (section 0.3: a lessee negotiates the size, not the total)."""
    xs = np.asarray(xs, float)
    if key not in SIZE_KEYS:
        return {key: xs}
    rate = a.num("contract.value_usd") / (a.num("contract.mw") * a.num("contract.term_months"))
    mw = xs if key == "contract.mw" else a.num("contract.mw")
    term = xs if key == "contract.term_months" else a.num("contract.term_months")
    return {key: xs, "contract.value_usd": rate * np.asarray(mw) * np.asarray(term)}


def simple_breakeven(a: Assumptions) -> dict[str, float]:
    """The articles' back-of-the-envelope: Pro users needed = value / (price_pro x T)."""
    users = a.num("contract.value_usd") / (
        a.num("plans.pro.price_usd_month") * a.num("contract.term_months")
    )
    return {"pro_users": users, "share_of_mau": users / a.num("market.mau")}
