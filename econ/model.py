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

import functools
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, fields, replace

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
from econ.compute import cost, physics, tables, transfer
from econ.constants import (
    HOURS_PER_MONTH,
    KW_PER_MW,
    SECONDS_PER_MONTH,
    SECONDS_PER_WEEK,
    TOKENS_PER_MILLION,
)
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
# The grid of regimes x = s / ceiling on which the transferred curve's hull is taken where a
# platform's realisation rises with x (section V4.5): the hull's values there, interpolated in
# x, never fall as users ask for less speed.
HULL_X = tuple(float(x) for x in np.geomspace(0.01, 1.0, 25))


@dataclass(frozen=True)
class Capacity:
    """What the contract serves and what a token crossing the GPU-fleet boundary is worth
    (sections 0.1, 3.5, V4.3-V4.5), each (N,) unless monthly (H, N).

    t: month numbers (H, 1); term T; mw_online MW_t delivered (H, N) [MW]; mw_scheduled the
    contracted schedule (H, N) [MW]; served {tier: speed} [tokens/s/user] (ultrafast on the
    contract platform, standard and fast on the GPU platform); multiplier: the ultrafast tier's
    served multiplier (NaN where not offered); offered: whether the contract platform serves the
    ultrafast tier; throughput_ultrafast Thr*(s_u) (0 where not offered) and throughput_standard
    Thr*(s_std) on the contract [tokens/s/MW]; ceiling_contract, ceiling_gpu [tokens/s/user];
    gpu_cost {standard, fast}: v_i, the value of a peak-shaped token crossing the GPU-fleet
    boundary [USD per 1M output tokens]; gpu_cost_flexible: v_f of a flexible (trough-filling)
    standard token; gpu_cost_set: the override is in force; eta {platform.tier: realisation
    factor} (transferred basis); streams C_t (H, N) [peak streams at s_u]; fleet: the
    GPU-hour's value and its parts (lambda, rent, energy, GPU-hours per 1M tokens h_i, the GPU
    fleet's throughput at the served speeds, the margin bound, the clamps' flags).
    """

    t: Array
    term: Array
    mw_online: Array
    mw_scheduled: Array
    served: dict[str, Array]
    multiplier: Array
    offered: Array
    throughput_ultrafast: Array
    throughput_standard: Array
    ceiling_contract: Array
    ceiling_gpu: Array
    gpu_cost: dict[str, Array]
    gpu_cost_flexible: Array
    gpu_cost_set: bool
    eta: dict[str, Array]
    streams: Array
    fleet: dict[str, Array]
    monthly: dict[str, Array] = field(default_factory=dict)
    successor: dict[str, Array] = field(default_factory=dict)

    @property
    def succeeds(self) -> bool:
        """Whether a successor of another size is the flagship in some month (V4.6)."""
        return bool(self.successor)


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


def stage_cap(a: Assumptions, plat: str) -> float:
    """k_cap of a platform at the base data (econ.compute.transfer.stage_cap)."""
    return transfer.stage_cap(a, plat)


def measurements(a: Assumptions, plat: str) -> list[transfer.Measurement]:
    """The platform's sourced measurements (econ.compute.transfer.measurements)."""
    return transfer.measurements(a, plat)


def platform_throughput(
    p: Params,
    plat: str,
    speed: Array,
    model: physics.ServedModel,
    eta_out: dict[str, Array] | None = None,
    tier: str = "",
) -> Array:
    """Thr*_p(s) [tokens/s/MW] on the run's basis (sections 3.5, V4.4, V4.5): the data curve,
    the served model's physics envelope, or eta_p(x) x frontier_scale_p x that envelope
    (transferred), x = s / the served model's ceiling on the platform. Never falls as users
    ask for less speed: the envelope serves a slower user faster where that gives more, and
    where eta_p rises with x the transferred curve is replaced by its hull (the largest value
    at any faster regime) on the grid HULL_X, interpolated in x. ``eta_out``, where given,
    receives the factor at s under '<plat>.<tier>'."""
    basis = p.a.values["capacity.basis"]
    if basis == "data":
        return data_throughput(p, plat, speed)
    chip = physics.chip_from(p.get, plat)
    pue = p("facility.pue")
    k_cap = transfer.stage_cap(p.a, plat)
    env = physics.envelope(speed, model, chip, pue, k_cap=k_cap)
    if basis == "physics":
        return env.throughput
    eta = transfer.realisation(p.a, plat)
    scale = p(f"hardware.{plat}.frontier_scale")
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.asarray(speed, float) / env.ceiling
    factor = eta(x)
    if eta_out is not None and tier:
        eta_out[f"{plat}.{tier}"] = np.array(factor, float)
        eta_out[f"{plat}.{tier}.raw"] = np.array(eta.raw(x), float)
    if eta.non_increasing:
        return scale * factor * env.throughput
    return scale * _hull(eta, x, env, model, chip, pue, k_cap)


def _hull(eta, x: Array, env, model, chip, pue, k_cap) -> Array:
    """The transferred curve's hull at regime x (section V4.5): on the grid HULL_X (and eta's
    knots) the largest eta x envelope at that regime or any faster one, interpolated in x
    (flat below the grid, where eta is flat too); never below the curve at s where s is on
    the grid, never rising with s anywhere."""
    grid = np.unique(np.concatenate([np.asarray(HULL_X), np.asarray(eta.x)]))
    grid = grid[grid <= 1.0]
    ceil = np.asarray(env.ceiling, float)
    # every regime of the grid in one call of the envelope: (J, N), element by element the
    # same arithmetic as one call a regime
    at = grid[:, None] * ceil.reshape(1, -1)
    thr = np.asarray(physics.envelope(at, model, chip, pue, k_cap=k_cap).throughput, float)
    vals = np.asarray(eta(grid), float)[:, None] * thr  # (J, N)
    hull = np.maximum.accumulate(vals[::-1], axis=0)[::-1]
    xs = np.broadcast_to(np.nan_to_num(x, nan=np.inf), np.broadcast_shapes(x.shape, ceil.shape))
    n = hull.shape[1]
    xs = np.broadcast_to(xs, (n,)) if xs.size in (1, n) else xs
    # linear interpolation of each scenario's hull at its own x, vectorised
    j = np.clip(np.searchsorted(grid, xs, side="right") - 1, 0, len(grid) - 2)
    w = np.clip((xs - grid[j]) / (grid[j + 1] - grid[j]), 0.0, 1.0)
    cols = np.arange(n)
    h = hull[j, cols] * (1 - w) + hull[j + 1, cols] * w
    below = xs < grid[0]
    here = np.asarray(eta(x) * env.throughput, float)
    return np.where(below, np.maximum(np.broadcast_to(here, h.shape), hull[0, cols]), h)


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


def gpu_rent_per_hour(p: Params, plat: str) -> Array:
    """r_m [USD per GPU-hour]: the GPU platform's hourly rent, the price of added capacity on
    the deal's term (section V4.3), or the buy-side cost per delivered MW-month per GPU-hour
    where it has none (4.3)."""
    rent = p.get(f"hardware.{plat}.rent_usd_per_hour")
    if rent is not None:
        return rent
    per_mw_month = tables.buy_per_mw_month(p.a, plat)
    gpus_per_mw = KW_PER_MW / (p(f"hardware.{plat}.power_kw") * p("facility.pue"))
    return per_mw_month / (HOURS_PER_MONTH * gpus_per_mw)


def gpu_cost_per_mw_month(p: Params, plat: str) -> Array:
    """The GPU platform's cost per facility MW-month [USD] at its hourly rent r_m (4.3)."""
    return cost.hourly_rent_per_mw_month(
        gpu_rent_per_hour(p, plat), p(f"hardware.{plat}.power_kw"), p("facility.pue")
    )


def fleet_values(p: Params, gpu: str, thr: dict[str, Array]) -> dict[str, Array]:
    """One value per freed GPU-hour and what a token crossing the GPU-fleet boundary is worth
    (section V4.3), each (N,):

    - h_i = 1e6 / (Thr_gpu(s_i) x 3600 / GPUs per facility MW) [GPU-hours per 1M tokens];
    - e = power_kw x pue x buy.power_price_usd_per_kwh [USD per GPU-hour];
    - lambda = a x r_m + (1 - a) x (sublet + e) [USD per GPU-hour];
    - troughs filled: v_i = lambda x h_i / u_ops for every token (peak and trough hours are
      worth the same); troughs idle: peak-shaped v_i = lambda x pta x h_i / u_ops + e x h_i
      and flexible v_f = e x h_std.
    """
    power, pue = p(f"hardware.{gpu}.power_kw"), p("facility.pue")
    gpus_per_mw = KW_PER_MW / (power * pue)
    r_m = gpu_rent_per_hour(p, gpu)
    energy = power * pue * p("buy.power_price_usd_per_kwh")
    a = p("fleet.avoidable_share")
    lam = a * r_m + (1.0 - a) * (p("fleet.sublet_usd_per_gpu_hour") + energy)
    u_ops = p("fleet.ops_utilization")
    out = {"lambda": lam, "rent": r_m, "energy": energy, "gpus_per_mw": gpus_per_mw}
    idle = p.a.values["fleet.troughs"] == "idle"
    pta = p("usage.peak_to_average")
    for i, x in thr.items():
        with np.errstate(divide="ignore"):
            h = TOKENS_PER_MILLION * gpus_per_mw / (x * 3600.0)
        out[f"h.{i}"] = h
        out[f"v.{i}"] = lam * pta * h / u_ops + energy * h if idle else lam * h / u_ops
        # the same at a = 1 (every freed GPU-hour replaces an added one): the prior predictive
        # the anchors are compared with (section V4.8)
        out[f"v_full.{i}"] = r_m * pta * h / u_ops + energy * h if idle else r_m * h / u_ops
    out["v_flexible"] = energy * out["h.standard"] if idle else out["v.standard"]
    return out


def online_mw(p: Params, t: Array, mw: ArrayLike) -> Array:
    """MW_t [MW] of a contract of ``mw`` MW in months ``t`` as scheduled: in tranches where
    contract.tranche_mw is set (section 0.3), else on the linear ramp (section 4.1); 0 after
    the term. The one schedule every command uses (``mw`` broadcasts against ``t``); the MW
    delivered are contract.delivered_share of it (section V4.5)."""
    term = p.row("contract.term_months")
    if "contract.tranche_mw" in p.a.values:
        return cap.tranche_online(
            t, mw, p.row("contract.tranche_mw"), p.row("contract.tranche_months"), term
        )
    return np.asarray(mw, float) * cap.online_share(t, p.row("contract.ramp_months"), term)


def capacity_stage(p: Params, most: ArrayLike = 1.0) -> Capacity:
    """MW online; served speeds; Thr* at the served ultrafast and standard speeds on the
    contract; the value of a token crossing the GPU-fleet boundary, by tier (sections 0.1,
    3.5, V4.3-V4.5); and, where a successor of another size follows the served model
    (model.successor_params_multiple other than 1, section V4.6), each month's values.
    ``most``: the largest served multiplier the ultrafast tier may take, scalar or (N,)."""
    c = _served_capacity(p, most)
    t = c.t
    row = lambda x: np.asarray(x, float).reshape(1, -1)  # noqa: E731
    monthly = {
        "thr_u": row(c.throughput_ultrafast),
        "thr_b": row(c.throughput_standard),
        "g_std": row(c.gpu_cost["standard"]),
        "g_std_c": row(c.gpu_cost["standard"]),
        "g_fast_c": row(c.gpu_cost["fast"]),
        "g_flex_c": row(c.gpu_cost_flexible),
        "demand": np.ones((1, 1)),
        "succession": np.zeros((1, 1)),
        "contract_successor": np.zeros((1, 1)),
    }
    mult = p("model.successor_params_multiple")
    # the successor is the flagship from the first month that starts at or after its launch
    succ = ((t - 1.0) >= p.row("model.succession_months")) & (mult != 1.0)[None, :]
    if not succ.any():
        return replace(c, monthly=monthly)
    q = _SuccessorParams(p, mult)
    # the successor at the predecessor's served ultrafast speed: the contract serves it where
    # that speed stays feasible (0.1's grid), else the predecessor (section V4.6)
    c1 = _served_capacity(q, np.where(c.offered, c.multiplier, 0.0))
    reached = c.offered & c1.offered & (c1.multiplier == c.multiplier)
    on = succ & reached[None, :]
    pick = lambda x1, x0, m: np.where(m, row(x1), row(x0))  # noqa: E731
    decline = p.row("model.predecessor_decline_per_month")
    first = np.ceil(p.row("model.succession_months")) + 1.0  # the successor's first month
    monthly.update(
        thr_u=pick(c1.throughput_ultrafast, c.throughput_ultrafast, on),
        thr_b=pick(c1.throughput_standard, c.throughput_standard, on),
        g_std=pick(c1.gpu_cost["standard"], c.gpu_cost["standard"], succ),
        g_std_c=pick(c1.gpu_cost["standard"], c.gpu_cost["standard"], on),
        g_fast_c=pick(c1.gpu_cost["fast"], c.gpu_cost["fast"], on),
        g_flex_c=pick(c1.gpu_cost_flexible, c.gpu_cost_flexible, on),
        demand=np.where(succ & ~on, np.exp((t - first + 1.0) * np.log1p(-decline)), 1.0),
        succession=succ.astype(float),
        contract_successor=on.astype(float),
    )
    successor = {
        "reached": np.asarray(reached, float),
        "multiplier": c1.multiplier,
        "ceiling_contract": c1.ceiling_contract,
        "ceiling_gpu": c1.ceiling_gpu,
        "throughput_ultrafast": c1.throughput_ultrafast,
        "throughput_standard": c1.throughput_standard,
        "gpu_cost_standard": c1.gpu_cost["standard"],
        "gpu_cost_fast": c1.gpu_cost["fast"],
        "gpu_cost_flexible": c1.gpu_cost_flexible,
        "served_standard": c1.served["standard"],
        "served_fast": c1.served["fast"],
        **{
            f"{k}_{i}": c1.fleet[f"{f}.{i}"]
            for i in ("standard", "fast")
            for k, f in (("gpu_throughput", "thr"), ("gpu_hours", "h"), ("gpu_cost_unclamped", "v"))
        },
    }
    streams = cap.streams(c.mw_online, monthly["thr_u"], c.served["ultrafast"])
    return replace(c, monthly=monthly, successor=successor, streams=streams)


class _SuccessorParams(Params):
    """The run's parameters with the served model's parameters times
    model.successor_params_multiple (the same active share; section V4.6). Shares the run's
    record of the keys read; not validated again (the multiple's rule bounds it)."""

    def __init__(self, p: Params, mult: Array):
        self.a = p.a
        self.over = {**p.over, "model.params": p("model.params") * mult}
        self.n = p.n
        self.read = p.read


def _served_capacity(p: Params, most: ArrayLike = 1.0) -> Capacity:
    """The served model's capacity stage (capacity_stage without a successor)."""
    a = p.a
    H = int(a.values["horizon.months"])
    t = cap.months(H)[:, None]
    term = p.row("contract.term_months")
    scheduled = online_mw(p, t, p.row("contract.mw"))
    mw_online = scheduled * p.row("contract.delivered_share")
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
        for i in ("standard", "fast"):  # the GPU side follows the served model (0.1)
            m, ok = fastest_feasible(tier_speed[i], ceil_g)
            served[i] = np.where(ok, tier_speed[i] * m, CEILING_MARGIN * ceil_g)
        mult, offered = fastest_feasible(tier_speed["ultrafast"], ceil_c, most)
        served["ultrafast"] = np.where(
            offered, tier_speed["ultrafast"] * mult, tier_speed["ultrafast"]
        )
    eta: dict[str, Array] = {}
    thr_u = np.where(
        offered, platform_throughput(p, plat, served["ultrafast"], model, eta, "ultrafast"), 0.0
    )
    thr_b = platform_throughput(p, plat, served["standard"], model, eta, "standard")
    # the GPU fleet's throughput at the served speeds (not needed where the override sets the
    # value of a token: NaN there)
    thr_g = {
        i: np.full(1, np.nan)
        if gpu_set is not None
        else platform_throughput(p, gpu, served[i], model, eta, i)
        for i in ("standard", "fast")
    }
    fleet = fleet_values(p, gpu, thr_g)
    fleet.update({f"thr.{i}": x for i, x in thr_g.items()})
    margin = 1.0 - p("finance.api_gross_margin")
    g_cost, clamped = {}, {}
    for i in ("standard", "fast"):
        price = p(f"tiers.{i}.price_per_mtok_usd")
        fleet[f"margin_bound.{i}"] = margin * price  # a check printed beside v_i, not a clamp
        if gpu_set is not None:
            g_cost[i] = gpu_set
            continue
        # the one clamp that remains: a token's value to the fleet is at most its list price
        # (a lab would turn away demand that costs more to serve); its binding share is reported
        v = fleet[f"v.{i}"]
        clamped[i] = ~(v <= price)
        g_cost[i] = np.where(clamped[i], price, v)
    if gpu_set is not None:
        v_flex = gpu_set
    else:
        v_flex = np.minimum(fleet["v_flexible"], g_cost["standard"])
        fleet.update({f"clamped.{i}": f.astype(float) for i, f in clamped.items()})
    streams = cap.streams(mw_online, thr_u, served["ultrafast"])
    return Capacity(
        t,
        term,
        mw_online,
        scheduled,
        served,
        mult,
        offered,
        thr_u,
        thr_b,
        ceil_c,
        ceil_g,
        g_cost,
        v_flex,
        gpu_set is not None,
        eta,
        streams,
        fleet,
    )


def rent_stage(p: Params, c: Capacity) -> Array:
    """R_t [USD] (H, N): as delivered or take-or-pay (4.1, V4.5)."""
    pad = cost.pays_as_delivered(str(p.a.values["contract.payment"]))
    return cost.rent(
        c.t,
        c.mw_scheduled,
        p.row("contract.value_usd"),
        c.term,
        pad,
        p.row("contract.delivered_share"),
    )


@dataclass(frozen=True)
class Demand:
    """Per-user demand and the API market (5.1, 5.2, 0.4), time-major (H, N).

    efficiency e_t [-]; phi {tier: (N,)} [-] at the served speeds; plus_pool N_t [users];
    plus_hits / pro_hits {tier: SF} [share] (ultrafast: an adopter's mixed burn); w_*
    [tokens/user-week] (ultrafast: the adopter's ultrafast tokens; Pro: the mix of the Pro
    tiers); api the logit's market (choice.Choice); api_wanted V_t [tokens/month]; usage
    {plan: (median weekly tokens mu, weekly quota c)} at the standard tier [tokens/week], rows
    (1, N); mix the adopter's mixed burn (:func:`ultrafast_mix`); lower_logs / lower_hits the
    lower Pro tier's (None without it); price_index pi_t and cost_index c_t (H, 1) or (H, N).
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
    mix: dict[str, Array]
    lower_logs: dict[str, Array] | None
    lower_hits: dict[str, Array] | None
    pro_tiers_w: dict[str, Array]
    price_index: Array
    cost_index: Array


def plan_usage(p: Params, plan: str) -> tuple[Array, Array]:
    """(median weekly tokens mu, weekly quota c) of a plan at the standard tier, built from
    queries: mu = queries a day x 7 x tokens a query x exp(-sigma^2 / 2) (the public figure is
    a mean; the lognormal's median is below it); c = weekly quota in queries x tokens a query
    (section 0.5). Rows (1, N)."""
    tpq = p.row("usage.output_tokens_per_query")
    sigma = p.row("usage.demand_sigma")
    mean = p.row(f"plans.{plan}.queries_per_day") * 7.0 * tpq
    return mean * np.exp(-0.5 * sigma * sigma), p.row(f"plans.{plan}.weekly_quota_queries") * tpq


def has_lower_pro(a: Assumptions) -> bool:
    """Whether the data have the lower Pro tier (plans.csv row pro_lower; section V4.7)."""
    return "plans.pro_lower.price_usd_month" in a.values


def ultrafast_mix(p: Params, phi: dict[str, Array]) -> dict[str, Array]:
    """An adopter's mixed burn (section V4.7): usage.ultrafast_query_share q of their queries
    at the ultrafast tier, the rest at standard. Rows (1, N): the speed factor of their demand
    phi_mix = q phi_u + (1 - q) phi_s; the quota units a token burns, b = (q phi_u m_u + (1 - q)
    phi_s m_s) / phi_mix; the ultrafast share of their tokens, q phi_u / phi_mix."""
    q = p.row("usage.ultrafast_query_share")
    phi_u, phi_s = phi["ultrafast"][None, :], phi["standard"][None, :]
    mix = q * phi_u + (1.0 - q) * phi_s
    burn = (
        q * phi_u * p.row("tiers.ultrafast.usage_multiplier")
        + (1.0 - q) * phi_s * p.row("tiers.standard.usage_multiplier")
    ) / mix
    return {"phi": mix, "burn": burn, "ultrafast_share": q * phi_u / mix}


def demand_stage(p: Params, c: Capacity, detail: bool) -> Demand:
    t, row = c.t, p.row
    log_e = quota.log_token_efficiency(row("usage.token_efficiency_gain_annual"), t)
    e = np.exp(log_e)
    s_std = p("tiers.standard.tokens_per_s")
    el = p("usage.speed_elasticity")
    tiers = p.a.tier_ids()
    phi = {i: quota.speed_factor(c.served[i], s_std, el) for i in tiers}
    sigma = row("usage.demand_sigma")
    lower = has_lower_pro(p.a)
    plans = ("plus", "pro", "pro_lower") if lower else ("plus", "pro")
    usage = {plan: plan_usage(p, plan) for plan in plans}
    mix = ultrafast_mix(p, phi)

    def burn_and_phi(tier: str) -> tuple[Array, Array]:
        """The quota units a token burns and the demand's speed factor at a tier; the
        ultrafast 'tier' is an adopter's mixed burn."""
        if tier == "ultrafast":
            return mix["burn"], mix["phi"]
        return row(f"tiers.{tier}.usage_multiplier"), phi[tier][None, :]

    def logs(plan: str, tier: str) -> Array:
        median, quota_tokens = usage[plan]
        burn, ph = burn_and_phi(tier)
        return quota.log_quota_over_median(quota_tokens, burn, median, ph, log_e)

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
        """Tokens a user-week at the tier; at ultrafast, the adopter's ultrafast tokens (their
        mixed demand truncated at the quota, times the ultrafast share)."""
        mu = usage[plan][0] * burn_and_phi(tier)[1] * e
        if not cut(tier, ell.shape[0]):
            w = quota.tokens_served(mu, ell, sigma, hit)
        else:
            w = np.zeros(np.broadcast_shapes(mu.shape, ell.shape, sigma.shape))
            w[:in_term] = quota.tokens_served(mu[:in_term], ell[:in_term], sigma, hit[:in_term])
        return w * mix["ultrafast_share"] if tier == "ultrafast" else w

    plus_l = {i: logs("plus", i) for i in tiers}
    plus_hits = {i: hit_share(plus_l[i], i) for i in tiers}
    pro_tiers = tiers if detail else ("standard", "ultrafast")
    pro_l = {i: logs("pro", i) for i in pro_tiers}
    pro_hits = {i: hit_share(pro_l[i], i) for i in pro_tiers}
    w_pro_u = served("pro", "ultrafast", pro_l["ultrafast"], pro_hits["ultrafast"])
    w_pro_s = served("pro", "standard", pro_l["standard"], pro_hits["standard"])
    lower_l = lower_hits = None
    each: dict[str, Array] = {}
    if lower:
        # the Pro stock is a mix of the two Pro tiers (section V4.7): their usage mixed by
        # conversion.lower_pro_share
        ls = row("conversion.lower_pro_share")
        lower_l = {i: logs("pro_lower", i) for i in pro_tiers}
        lower_hits = {i: hit_share(lower_l[i], i) for i in pro_tiers}
        w_low_u = served("pro_lower", "ultrafast", lower_l["ultrafast"], lower_hits["ultrafast"])
        w_low_s = served("pro_lower", "standard", lower_l["standard"], lower_hits["standard"])
        each = {
            "pro.ultrafast": w_pro_u,
            "pro.standard": w_pro_s,
            "pro_lower.ultrafast": w_low_u,
            "pro_lower.standard": w_low_s,
        }
        w_pro_u = (1.0 - ls) * w_pro_u + ls * w_low_u
        w_pro_s = (1.0 - ls) * w_pro_s + ls * w_low_s
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
    if c.succeeds:  # the predecessor's declining demand where the contract serves it (V4.6)
        wanted = wanted * c.monthly["demand"]
    return Demand(
        efficiency=e,
        phi=phi,
        plus_pool=plus_pool,
        plus_logs=plus_l,
        pro_logs=pro_l,
        plus_hits=plus_hits,
        pro_hits=pro_hits,
        w_plus_ultrafast=served("plus", "ultrafast", plus_l["ultrafast"], plus_hits["ultrafast"]),
        w_pro_ultrafast=w_pro_u,
        w_plus_standard=served("plus", "standard", plus_l["standard"], plus_hits["standard"]),
        w_pro_standard=w_pro_s,
        api=api,
        api_wanted=wanted,
        usage=usage,
        mix=mix,
        lower_logs=lower_l,
        lower_hits=lower_hits,
        pro_tiers_w=each,
        price_index=price_index(p, t),
        cost_index=cost_index(p, t),
    )


def price_index(p: Params, t: Array) -> Array:
    """pi_t = (1 - market.price_decline_per_year)^((t - 1) / 12): the served tier's public
    price path as successors replace it (section V4.6), (H, 1) or (H, N)."""
    return np.exp((t - 1.0) / 12.0 * np.log1p(-p.row("market.price_decline_per_year")))


def cost_index(p: Params, t: Array) -> Array:
    """c_t = (1 - hardware.gpu_cost_decline_per_year)^((t - 1) / 12): the GPU cost of a token
    of the served model as hardware generations and software improve (section V4.6)."""
    return np.exp((t - 1.0) / 12.0 * np.log1p(-p.row("hardware.gpu_cost_decline_per_year")))


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
    free_moved: Array
    propensity_capped: Array
    parts: dict[str, Array] | None = None


def subscriber_margin(p: Params, c: Capacity, dem: Demand) -> Array:
    """m_t [USD/month]: the net margin of one incremental Pro subscriber in month t, the price
    step net of fees less the GPU cost of the extra standard-tier usage (section 6)."""
    keep = 1.0 - p.row("finance.variable_cost_share")
    extra_tokens = (dem.w_pro_standard - dem.w_plus_standard) * (
        SECONDS_PER_MONTH / SECONDS_PER_WEEK
    )
    step = pro_price(p) - p.row("plans.plus.price_usd_month")
    g_std = c.monthly["g_std"] * dem.cost_index  # the month's flagship on the fleet (V4.6)
    return step * keep - extra_tokens * g_std / TOKENS_PER_MILLION


def pro_price(p: Params, ref: bool = False) -> Array:
    """The price an upgrade pays (section V4.7): the two Pro tiers' prices mixed by
    conversion.lower_pro_share (the Pro price alone without the lower tier), a row (1, N);
    ``ref`` the reference prices at which today's flows are observed."""
    col = "price_ref_usd_month" if ref else "price_usd_month"
    top = p.row(f"plans.pro.{col}")
    if not has_lower_pro(p.a):
        return top
    share = p.row("conversion.lower_pro_share")
    return (1.0 - share) * top + share * p.row(f"plans.pro_lower.{col}")


def price_factor(p: Params, propensity: Array) -> Array:
    """pf, the upgrade flows at the Pro price relative to the reference price (section V4.7):
    a binary logit per cap event, s(p) = 1 / (1 + exp(-(alpha - beta p))), at the reference
    price the derived propensity s_r; its point elasticity there beta p_r (1 - s_r) is
    conversion.pro_price_elasticity. pf = s(p) / s_r = 1 / (s_r + (1 - s_r) exp(beta (p - p_r)))
    (p the mix price of the Pro tiers), (N,)."""
    p_now, p_ref = pro_price(p)[0], pro_price(p, ref=True)[0]
    s_r = np.clip(propensity, 0.0, 1.0 - 1e-12)
    beta = p("conversion.pro_price_elasticity") / (p_ref * (1.0 - s_r))
    return 1.0 / (s_r + (1.0 - s_r) * np.exp(beta * (p_now - p_ref)))


def uses(p: Params, c: Capacity, dem: Demand) -> dict[str, Array]:
    """The other uses' demand [average MW or tokens/month] (H, N) and values [USD per average
    MW-month] (H, N), and the tokens a month one average MW carries at the ultrafast and
    standard speeds, per_mw_u and per_mw_b (N,, the served model's) and per_mw_u_t and
    per_mw_b_t (each month's, the model the contract serves then: section V4.6) (sections 0.2,
    V4.2, V4.3).

    The API's part of the moved traffic: its standard and fast demand without the deal
    (the logit's market at the no-deal shares, times e_t) and the lab tokens the ultrafast
    tier diverts (V_t x (D_s + D_f)); the free tier's use of the served model where served;
    the lab's internal batch work I_t in the term. Where the contract serves a predecessor
    whose demand declines (section V4.6), the served model's demand is the month's share of it."""
    row = p.row
    m = c.monthly
    per_mw_u = m["thr_u"] * SECONDS_PER_MONTH  # at s_u
    per_mw_b = m["thr_b"] * SECONDS_PER_MONTH
    api_cap = np.divide(
        dem.api_wanted,
        per_mw_u,
        out=np.zeros(np.broadcast_shapes(dem.api_wanted.shape, per_mw_u.shape)),
        where=per_mw_u > 0,
    )
    api = dem.api
    api_demand = (api.market * (api.no_deal_standard + api.no_deal_fast))[None, :] * (
        dem.efficiency
    )
    free = free_demand(p, c, dem)
    if c.succeeds:
        api_demand, free = api_demand * m["demand"], free * m["demand"]
    api_credited = dem.api_wanted * (api.diversion_standard + api.diversion_fast)[None, :]
    in_term = c.t <= c.term
    batch = np.where(in_term, row("capacity.internal_batch_tokens_per_month"), 0.0)
    margin = api_margin_monthly(p, c, dem)
    ci = dem.cost_index
    return {
        "per_mw_u": c.throughput_ultrafast * SECONDS_PER_MONTH,
        "per_mw_b": c.throughput_standard * SECONDS_PER_MONTH,
        "per_mw_u_t": per_mw_u,
        "per_mw_b_t": per_mw_b,
        "api_cap": api_cap,
        "api_demand": api_demand,
        "api_credited": api_credited,
        "free_demand": free,
        "internal_batch": batch,
        # each month's values (section V4.6): API prices follow pi_t, GPU costs c_t
        "api_margin": margin,
        "rho_api": margin * per_mw_u / TOKENS_PER_MILLION,
        "rho_backfill": m["g_std_c"] * ci * per_mw_b / TOKENS_PER_MILLION,
        "rho_free": row("free.alternative_cost_per_mtok_usd") * ci * per_mw_b / TOKENS_PER_MILLION,
        "rho_flexible": m["g_flex_c"] * ci * per_mw_b / TOKENS_PER_MILLION,
    }


def api_gpu_avoided(c: Capacity, api: choice.Choice) -> Array:
    """sum D_j v_j,t [USD per 1M] (1, N) or (H, N): the GPU cost an ultrafast API token saves,
    at the values of the model the contract serves that month (section V4.6)."""
    if not c.succeeds:
        return api.gpu_avoided_per_token[None, :]
    m = c.monthly
    return (
        api.diversion_standard[None, :] * m["g_std_c"] + api.diversion_fast[None, :] * m["g_fast_c"]
    )


def api_margin_monthly(p: Params, c: Capacity, dem: Demand) -> Array:
    """m_u,t [USD per 1M tokens] (H, N): the margin of an ultrafast token in month t with every
    API price at pi_t of its list and every GPU cost at c_t (section V4.6):
    (1 - f) pi_t (p_u - sum D_j p_j) + c_t sum D_j v_j."""
    keep = 1.0 - p.row("finance.variable_cost_share")
    api = dem.api
    return keep * dem.price_index * api.revenue_per_token[
        None, :
    ] + dem.cost_index * api_gpu_avoided(c, api)


def free_users(p: Params, c: Capacity, dem: Demand) -> Array:
    """Free users [users] (H, N): MAU_t less the Plus pool, at least 0."""
    row = p.row
    mau = row("market.mau") * np.exp((c.t - 1.0) * np.log1p(row("market.mau_growth_monthly")))
    return np.maximum(mau - dem.plus_pool, 0.0)


def free_demand(p: Params, c: Capacity, dem: Demand) -> Array:
    """The free tier's use of the served model [output tokens/month] (H, N) (section V4.2):
    free users (MAU_t less the Plus pool) x DAU/MAU x min(queries a day, the flagship
    allowance) x tokens a query x days a month x e_t, where free.served is 1; else 0."""
    row = p.row
    users = free_users(p, c, dem)
    queries = np.minimum(row("free.queries_per_day"), row("free.flagship_queries_per_day"))
    days = SECONDS_PER_MONTH / 86_400.0
    tokens = row("free.dau_per_mau") * queries * row("usage.output_tokens_per_query") * days
    return row("free.served") * users * tokens * dem.efficiency


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
    # where the cap on the derived propensity binds (a clamp the Monte Carlo reports: V4.3)
    prop_capped = np.asarray(prop >= p("conversion.max_capped_propensity"), float) * np.asarray(
        prop > 0, float
    )
    pf = price_factor(p, prop)
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
    per_mw_u, per_mw_b = u["per_mw_u_t"], u["per_mw_b_t"]
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
        throughput_ultrafast=c.monthly["thr_u"],
        phi_ultrafast=dem.phi["ultrafast"],
        lift_weight=p("conversion.voluntary_cap_hit_weight"),
        gpu_cost_standard=c.monthly["g_std_c"] * dem.cost_index,
        hit_standard=dem.plus_hits["standard"],
        hit_fast=dem.plus_hits["fast"],
        hit_ultrafast=dem.plus_hits["ultrafast"],
        w_plus_ultrafast=dem.w_plus_ultrafast,
        w_pro_ultrafast=dem.w_pro_ultrafast,
        w_plus_standard=dem.w_plus_standard,
        w_pro_standard=dem.w_pro_standard,
        mw_online=c.mw_online,
        api_cap=u["api_cap"],
        api_value=u["rho_api"],
        api_demand=u["api_demand"],
        api_credited=u["api_credited"],
        free_demand=u["free_demand"],
        internal_batch=u["internal_batch"],
        movable_share=p("capacity.movable_share"),
        flexible_share=p("capacity.backfill_flexible_share"),
        per_mw_standard=per_mw_b,
        backfill_value=u["rho_backfill"],
        free_value=u["rho_free"],
        flexible_value=u["rho_flexible"],
        # W_t is at month 0; the other uses' values are month-t money: compare them in month t
        pro_value=W / d,
        term_months=c.term[0],
        demand_factor=c.monthly["demand"] if c.succeeds else None,
        detail=detail,
    )
    if path.parts is not None:  # the served model's (the workbook's scalars; V4.6)
        thr_u, s_u = c.throughput_ultrafast, c.served["ultrafast"]
        path.parts["moved_per_value"] = np.broadcast_to(
            SECONDS_PER_MONTH * thr_u / (dem.phi["ultrafast"] * TOKENS_PER_MILLION), (p.n,)
        )
        path.parts["mw_per_stream"] = np.broadcast_to(
            np.divide(s_u, thr_u, out=np.zeros(np.shape(thr_u)), where=thr_u > 0), (p.n,)
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
        api_served=path.mw_api * per_mw_u,
        backfill_peak=path.mw_backfill_peak * per_mw_b,
        backfill_flexible=path.mw_backfill_flexible * per_mw_b,
        free_moved=path.mw_free * per_mw_b,
        propensity_capped=prop_capped,
        parts=parts,
    )


@dataclass(frozen=True)
class Revenue:
    """Incremental revenue and the GPU-fleet boundary (0.4, 5.7-5.9), (H, N).

    incremental_pro dP_t [users]; subscription sub_t and api api_t (fee-bearing) [USD];
    api_gpu: the GPU cost the diverted API tokens no longer take [USD]; subscriber_streams
    a_u A_t peak_to_average [peak streams]; adopter_tokens a_u A_t s_u SECONDS_PER_MONTH
    [tokens/month]; backfill Bf_t, the moved traffic carried (peak-shaped, flexible and the
    free tier's) [tokens/month]; moved / added [tokens/month]; gpu gpu_t [USD]; backfill_usd
    the GPU cost the moved traffic saves (part of gpu_t) [USD]; added_usd the GPU cost of the
    tokens added (gpu_t nets it out) [USD].
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
    backfill_usd: Array
    added_usd: Array


def revenue_stage(p: Params, c: Capacity, dem: Demand, ado: Adoption) -> Revenue:
    row = p.row
    path = ado.path
    d_pro = path.pro - path.pro_counterfactual
    sub = rev.subscription_revenue(d_pro, pro_price(p), row("plans.plus.price_usd_month"))
    # API prices at pi_t of their list, GPU costs at c_t (section V4.6)
    pi, ci = dem.price_index, dem.cost_index
    api = ado.api_served * pi * dem.api.revenue_per_token[None, :] / TOKENS_PER_MILLION
    api_gpu = ado.api_served * ci * api_gpu_avoided(c, dem.api) / TOKENS_PER_MILLION
    pta = row("usage.peak_to_average")
    subscriber = path.ultrafast_adoption * path.all_adopt_streams * pta
    s_u = c.served["ultrafast"][None, :]
    adopter_tokens = subscriber / pta * s_u * SECONDS_PER_MONTH
    phi_u = dem.phi["ultrafast"][None, :]
    m = c.monthly
    # the tokens the contract carries are worth the model it serves that month; the tokens
    # new Pro subscribers add to the fleet, the month's flagship (section V4.6)
    g_c, g_fleet = m["g_std_c"] * ci, m["g_std"] * ci
    added = rev.tokens_added_to_gpus(d_pro, dem.w_pro_standard, dem.w_plus_standard)
    # every token crossing the GPU-fleet boundary at one value per freed GPU-hour (V4.3); the
    # free tier's tokens save the smaller model it would otherwise get
    moved_usd = (
        ado.backfill_peak * g_c
        + ado.backfill_flexible * m["g_flex_c"] * ci
        + ado.free_moved * row("free.alternative_cost_per_mtok_usd") * ci
    ) / TOKENS_PER_MILLION
    if c.succeeds:
        adopter_gpu = adopter_tokens / phi_u * g_c - added * g_fleet
    else:
        adopter_gpu = (adopter_tokens / phi_u - added) * g_c
    gpu = adopter_gpu / TOKENS_PER_MILLION + moved_usd + api_gpu
    diverted = ado.api_served * (dem.api.diversion_standard + dem.api.diversion_fast)[None, :]
    backfill = ado.backfill_peak + ado.backfill_flexible + ado.free_moved
    moved = backfill + adopter_tokens / phi_u + diverted
    return Revenue(
        d_pro,
        sub,
        api,
        api_gpu,
        subscriber,
        adopter_tokens,
        backfill,
        moved,
        added,
        gpu,
        moved_usd,
        added * g_fleet / TOKENS_PER_MILLION,
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
    cash_flow: Array  # cash only: (sub_t + api_t)(1 - variable costs) - R_t (H, N) [USD]
    cumulative_cash_only: Array  # its running sum (H, N) [USD]
    cash_payback_months: Array  # lasting-recovery payback of the cash-only flows (N,)
    terminal_margin: Array  # m_H [USD/month]
    monthly_rate: Array  # r_m [1/month]


def cash_stage(
    p: Params, c: Capacity, rent: Array, ado: Adoption, r: Revenue, irr_on: bool = True
) -> Cash:
    row = p.row
    keep = 1.0 - row("finance.variable_cost_share")
    inflow = (r.subscription + r.api) * keep + r.gpu
    cf = inflow - rent
    cash_only = (r.subscription + r.api) * keep - rent
    k_cash = np.cumsum(cash_only, axis=0)
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
        cash_flow=cash_only,
        cumulative_cash_only=k_cash,
        cash_payback_months=payback_month(cash_only.T, k_cash.T),
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
    mw_backfill_flexible: Array = _f("MW", "(N, H)", "average MW of flexible moved traffic")
    mw_free: Array = _f("MW", "(N, H)", "average MW of the free tier's moved traffic")
    demand_no_deal_tokens: Array = _f(
        "tokens/month", "(N, H)", "D0_t, the served model's standard demand without the deal"
    )
    credited_tokens: Array = _f("tokens/month", "(N, H)", "X_t, what the deal already credits")
    moved_demand_cap_tokens: Array = _f(
        "tokens/month", "(N, H)", "B_t, the cap on moved traffic (free tier included)"
    )
    moved_flexible_cap_tokens: Array = _f("tokens/month", "(N, H)", "flexible part of B_t")
    cash_flow: Array = _f(
        "USD",
        "(N, H)",
        "cash only: (sub_t + api_t)(1 - variable costs) - R_t (no GPU cost avoided)",
    )
    cumulative_cash_only: Array = _f("USD", "(N, H)", "cumulative cash only")
    cash_payback_months: Array = _f(
        "months", "(N,)", "lasting-recovery payback on cash only (no GPU cost avoided); NaN if none"
    )
    gpu_hour_value: Array = _f("USD/GPU-hour", "(N,)", "lambda, the value of a freed GPU-hour")
    gpu_rent_per_hour: Array = _f("USD/GPU-hour", "(N,)", "r_m, the GPU platform's rent")
    gpu_energy_per_hour: Array = _f("USD/GPU-hour", "(N,)", "e, the energy of a GPU-hour")
    gpu_hours_standard: Array = _f(
        "GPU-hours per 1M tokens", "(N,)", "h_std at the standard tier's served speed"
    )
    gpu_hours_fast: Array = _f("GPU-hours per 1M tokens", "(N,)", "h_fast")
    gpu_throughput_standard: Array = _f(
        "tokens/s/MW", "(N,)", "the GPU platform's throughput at the standard served speed"
    )
    gpu_throughput_fast: Array = _f(
        "tokens/s/MW", "(N,)", "the GPU platform's throughput at the fast served speed"
    )
    gpu_cost_flexible: Array = _f(
        "USD per 1M tokens", "(N,)", "v_f, the value of a flexible moved token"
    )
    gpu_cost_unclamped_standard: Array = _f(
        "USD per 1M tokens", "(N,)", "v_std before the clamp at the list price"
    )
    gpu_cost_clamped: Array = _f(
        "0/1", "(N,)", "1 where v_std or v_fast is clamped at its list price"
    )
    gpu_cost_at_avoidable_1: Array = _f(
        "USD per 1M tokens", "(N,)", "v_std at fleet.avoidable_share = 1 (before the clamp)"
    )
    realisation_capped: Array = _f(
        "0/1", "(N,)", "1 where a realisation factor the run reads is capped at 1"
    )
    propensity_capped: Array = _f(
        "0/1", "(N,)", "1 where conversion.max_capped_propensity binds on the derived propensity"
    )
    margin_bound_standard: Array = _f(
        "USD per 1M tokens", "(N,)", "(1 - finance.api_gross_margin) x the standard list price"
    )
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
    *,
    block: int | None = None,
    monthly: bool | Collection[str] = True,
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
    block : scenario evaluations at once, a scenario whose served speed is chosen counting 6
        (default econ.blocks.BLOCK_SIZE, 12,000, or $ECON_BLOCK_SIZE); more are evaluated
        block by block (econ.blocks), with the same results to the last bit.
    monthly : the (N, H) arrays to keep: True all, False none (the (N,) metrics only), or
        their names; the others are None (docs/api.md, "Memory").

    Raises AssumptionError for an override outside its key's rule, and for a result that
    breaks an invariant (more Pro subscribers than users) or is not a number.
    """
    p = Params(a, overrides)
    from econ import blocks

    if blocks.needed(p, served, block, monthly):
        return blocks.evaluate(p, detail, served, block, monthly)
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
    used = (
        path.mw_api
        + path.mw_subscriber
        + path.mw_backfill_peak
        + path.mw_free
        + path.mw_backfill_flexible
    )
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
        backfill_usd=nh(r.backfill_usd) if detail else None,
        demand_no_deal_tokens=nh(path.demand_no_deal),
        credited_tokens=nh(path.credited),
        moved_demand_cap_tokens=nh(path.moved_cap),
        moved_flexible_cap_tokens=nh(path.moved_flexible_cap),
        cash_flow=nh(cash.cash_flow),
        cumulative_cash_only=nh(cash.cumulative_cash_only),
        cash_payback_months=vec(cash.cash_payback_months),
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
        gpu_cost_flexible=vec(c.gpu_cost_flexible),
        gpu_hour_value=vec(c.fleet["lambda"]),
        gpu_rent_per_hour=vec(c.fleet["rent"]),
        gpu_energy_per_hour=vec(c.fleet["energy"]),
        gpu_hours_standard=vec(c.fleet["h.standard"]),
        gpu_hours_fast=vec(c.fleet["h.fast"]),
        gpu_throughput_standard=vec(c.fleet["thr.standard"]),
        gpu_throughput_fast=vec(c.fleet["thr.fast"]),
        gpu_cost_unclamped_standard=vec(
            c.gpu_cost["standard"] if c.gpu_cost_set else c.fleet["v.standard"]
        ),
        gpu_cost_clamped=vec(
            np.maximum(c.fleet.get("clamped.standard", 0.0), c.fleet.get("clamped.fast", 0.0))
        ),
        margin_bound_standard=vec(c.fleet["margin_bound.standard"]),
        gpu_cost_at_avoidable_1=vec(
            c.gpu_cost["standard"] if c.gpu_cost_set else c.fleet["v_full.standard"]
        ),
        realisation_capped=vec(
            functools.reduce(
                np.maximum,
                [np.asarray(v > 1.0, float) for k, v in c.eta.items() if k.endswith(".raw")],
                np.zeros(1),
            )
        ),
        propensity_capped=vec(ado.propensity_capped),
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
        mw_free=nh(path.mw_free),
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
    used = (
        path.mw_api
        + path.mw_subscriber
        + path.mw_backfill_peak
        + path.mw_free
        + path.mw_backfill_flexible
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        util = np.where(c.mw_online > 0, used / c.mw_online, np.nan)
    out.utilization = nh(util)
    a_u = path.ultrafast_adoption
    a_f = p.row("tiers.fast.adoption")
    ph = dem.pro_hits
    if dem.lower_hits is not None:  # the Pro stock mixes the two Pro tiers (section V4.7)
        ls = p.row("conversion.lower_pro_share")
        ph = {i: (1.0 - ls) * ph[i] + ls * dem.lower_hits[i] for i in ph}
    out.pro_cap_hit = nh(
        quota.plan_cap_hit(
            [1.0 - a_f - a_u, a_f, a_u], [ph["standard"], ph["fast"], ph["ultrafast"]]
        )
    )
    out.cumulative_discounted_cash = nh(np.cumsum(cash.discounted_cash_flow, axis=0))
    in_term = c.t <= p.row("contract.term_months")
    api = dem.api
    served = ado.api_served.sum(axis=0)
    served_at_price = (ado.api_served * dem.price_index).sum(axis=0)  # tokens x pi_t
    online = np.where(in_term, c.mw_online, 0.0)
    out.totals = {
        "rent_usd": vec(rent.sum(axis=0)),
        "subscription_revenue_usd": vec(r.subscription.sum(axis=0)),
        "api_revenue_usd": vec(r.api.sum(axis=0)),
        "api_ultrafast_revenue_usd": vec(
            served_at_price * p("tiers.ultrafast.price_per_mtok_usd") / TOKENS_PER_MILLION
        ),
        "api_revenue_lost_usd": vec(
            served_at_price
            * (api.revenue_per_token - p("tiers.ultrafast.price_per_mtok_usd"))
            / -TOKENS_PER_MILLION
        ),
        "api_gpu_cost_avoided_usd": vec(r.api_gpu.sum(axis=0)),
        "backfill_usd": vec(out.backfill_usd.sum(axis=1)),
        "gpu_savings_usd": vec(r.gpu.sum(axis=0)),
        # each month's tokens at that month's values (c_t and the flagship: V4.6)
        "gpu_cost_of_moved_usd": vec(r.gpu.sum(axis=0) + r.added_usd.sum(axis=0)),
        "gpu_cost_of_added_usd": vec(r.added_usd.sum(axis=0)),
        "tokens_moved_off_gpus": vec(r.moved.sum(axis=0)),
        "tokens_added_to_gpus": vec(r.added.sum(axis=0)),
        "tokens_served": vec(out.tokens_served.sum(axis=1)),
        "api_tokens_wanted": vec(dem.api_wanted.sum(axis=0)),
        "api_tokens_served": vec(served),
        "backfill_peak_tokens": vec(ado.backfill_peak.sum(axis=0)),
        "backfill_flexible_tokens": vec(ado.backfill_flexible.sum(axis=0)),
        "free_tier_moved_tokens": vec(ado.free_moved.sum(axis=0)),
        "moved_demand_cap_tokens": vec(path.moved_cap.sum(axis=0)),
        "demand_no_deal_tokens_at_term": vec(
            np.take_along_axis(
                np.broadcast_to(path.demand_no_deal, (c.t.shape[0], p.n)),
                (np.broadcast_to(c.term, (1, p.n)).astype(int) - 1),
                0,
            )[0]
        ),
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
                ("free", path.mw_free),
                ("idle", np.maximum(c.mw_online - used, 0.0)),
            )
        },
        "variable_costs_usd": vec(
            ((r.subscription + r.api) * p.row("finance.variable_cost_share")).sum(axis=0)
        ),
    }
    t = c.t[:, 0]
    out.parts = {
        "online_share": nh(c.mw_scheduled / p.row("contract.mw")),
        "irr_flows": nh(cash.irr_flows),
        "inflow": nh(cash.inflow),
        "terminal_margin": vec(cash.terminal_margin),
        "monthly_rate": vec(cash.monthly_rate),
        "last_negative_month": nh(running_last_negative(cash.cumulative_cash, t)),
        "last_negative_month_cash": nh(running_last_negative(cash.cumulative_cash_only, t)),
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
        "free_moved": nh(ado.free_moved),
        "price_index": nh(dem.price_index),
        "free_users": nh(free_users(p, c, dem)),
        **{f"w_tier.{k}": nh(v) for k, v in dem.pro_tiers_w.items()},
        "cost_index": nh(dem.cost_index),
        **{f"mix.{k}": vec(v[0]) for k, v in dem.mix.items()},
        **{f"log_c_over_mu.pro_lower.{i}": nh(x) for i, x in (dem.lower_logs or {}).items()},
        **{f"pro_lower_hit.{i}": nh(x) for i, x in (dem.lower_hits or {}).items()},
        **{f"fleet.{k}": vec(v) for k, v in c.fleet.items()},
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
        **_succession_parts(c, dem, nh, vec),
    }


def _succession_parts(c: Capacity, dem: Demand, nh, vec) -> dict[str, Array]:
    """Each month's model on the fleet and on the contract (section V4.6): the months the
    successor is the flagship and those the contract serves it, the factor on the demand the
    contract serves, the contract's throughputs and the values of its tokens (the month's), and
    the successor's figures (``successor.*``, only where a successor of another size comes)."""
    m = c.monthly
    N, H = nh(c.t).shape  # nh broadcasts (H, .) to the run's (N, H)

    def full(x: Array) -> Array:
        """(H, N) time-major, as the other monthly parts (blocks keep the layout)."""
        return nh(np.ascontiguousarray(np.broadcast_to(x, (H, N))))

    out = {k: full(m[k]) for k in ("succession", "contract_successor", "demand")}
    out.update({f"{k}_t": full(m[k]) for k in ("thr_u", "thr_b", "g_std", "g_std_c", "g_flex_c")})
    out["api_gpu_c_t"] = full(api_gpu_avoided(c, dem.api))
    out.update({f"successor.{k}": vec(v) for k, v in c.successor.items()})
    return out


LOGIT_PARTS = ("q_s", "q_f", "q_u", "q_0", "beta", "gamma", "alpha_s", "alpha_f", "alpha_u")
MONTHLY_PARTS = ("survival_step", "survival", "discounted_margin", "api_cap", "api_demand")
MONTHLY_PARTS += ("api_credited", "free_demand", "internal_batch", "api_margin", "rho_api")
MONTHLY_PARTS += ("rho_backfill", "rho_flexible", "rho_free")
SCALAR_PARTS = ("adoption_burn", "subscriber_tv", "per_mw_u", "per_mw_b")


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
