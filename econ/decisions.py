"""Decisions on one set of assumptions: scenarios side by side, one budget on every platform,
and one key swept or optimised (docs/model.md, section 7: "Scenarios side by side", "One budget on every platform", "Sweeps and optimisation", "Scenarios").

Everything here evaluates the model (econ.model.evaluate) or collects its headline
(econ.headline); nothing reads a file except through ``Assumptions.with_scenario``, and
nothing prints. The work is cut into items whose results do not depend on how many
processes evaluate them (one scenario, one platform, a fixed-size chunk of a sweep), so
``workers`` changes the speed, never a bit of the answer (econ.parallel.map_ordered).

Readings, where the specification leaves room:

- **A platform's megawatts for a budget** are those whose present cost equals the present
  value of the budget paid as the contract's rent (on the contract's ramp, term and
  payment schedule). The present cost of one facility MW is the contract's rent NPV per
  contracted MW on the contract platform, the hourly rent (rent_usd_per_hour x
  HOURS_PER_MONTH x 1000 / (power_kw x facility.pue) per delivered MW-month, docs/model.md
  4.3) on the MW as they come online where the platform has one, and else the NPV of
  buying the MW (4.2). With rent paid as delivered this is budget / (rate x delivered
  MW-months per contracted MW): budget / (rate x T) with no ramp, budget / (rate x 18.5)
  on the bundled 24-month ramp and 30-month term. The contract platform gets
  contract.mw x budget / contract.value_usd. A bought platform is then charged as that
  equivalent rent, so its payback is the rent's, not that of up-front capex.
- **The fastest speed a platform supports** for the served model is the lower of its
  per-user ceiling (3.3) and, on the data basis, the top of its data curve (on the physics
  basis the ceiling alone). The ultrafast tier is served at the lower of its own speed and
  that one; where that is below the fast tier's speed the platform cannot offer the tier
  (tier speeds must rise, 2.2): the deal is evaluated without it (ultrafast adoption and
  API demand 0), so its megawatts earn by backfill alone. On the physics basis the envelope
  carries nothing at the ceiling itself (a decode step spends all its time reading the
  weights), so there the served speed shows what the ceiling allows, not what pays best
  (``econ sweep tiers.ultrafast.tokens_per_s --set capacity.basis=physics`` shows that).
- **Sweeps** run one vectorised evaluation per chunk of ``SWEEP_CHUNK`` values (a fixed
  size, so the chunks do not depend on the worker count); whole-number keys take whole
  values, 0/1 flags both values, and the horizon (one value per run) is evaluated point by
  point. Ids and frontier points' speeds are refused.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.optimize import brentq, minimize_scalar

from econ.assumptions import (
    BASE_SCENARIO,
    AssumptionError,
    Assumptions,
    check_scenario_name,
    is_structural,
    rule_for,
    unknown_key_message,
)
from econ.compute import capacity as cap
from econ.compute import cost, physics, tables
from econ.headline import headline
from econ.model import SIZE_KEYS, Params, at_rate, evaluate, online_mw
from econ.parallel import map_ordered

# Values evaluated per vectorised call of a sweep or an optimisation grid. Fixed, so that the
# chunks (and with them every bit of the results) do not depend on the number of workers.
SWEEP_CHUNK = 32
SWEEP_POINTS = 21  # default points of a sweep
OPTIMIZE_POINTS = 201  # the grid an optimisation refines
# The default range of a key with no sensitivity range and no two-sided rule: this factor
# below and above its value.
SWEEP_SPAN = 2.0
# Bounded refinement stops within this share of the range searched.
REFINE_XTOL = 1e-10

# ---------------------------------------------------------------------------
# compare: scenarios side by side

# The comparison's columns, each a field of econ.headline's dict ("totals." for its totals).
COMPARE_METRICS = {
    "npv_usd": "npv_usd",
    "npv_without_terminal_value_usd": "npv_without_terminal_value_usd",
    "payback_months": "payback_months",
    "discounted_payback_months": "discounted_payback_months",
    "irr_annual": "irr_annual",
    "mirr_annual": "mirr_annual",
    "profitability_index": "profitability_index",
    "realised_cost_per_mtok_usd": "realised_cost_per_mtok_usd",
    "term_average_utilization": "totals.term_average_utilization",
    "peak_utilization": "totals.peak_utilization",
    "peak_incremental_pro_subscribers": "totals.peak_incremental_pro_subscribers",
    "max_deficit_usd": "max_deficit_usd",
    "ceiling_tokens_per_s": "physics.ceiling_tokens_per_s",
    "served_tokens_per_s": "served_model.served_tokens_per_s.ultrafast",
    "gpu_cost_per_mtok_usd": "served_model.gpu_cost_per_mtok_usd.standard",
    "npv_physics_basis_usd": "npv_physics_basis_usd",
}
# What each row says about its scenario: column -> dotted key
COMPARE_SETTINGS = {
    "platform": "contract.platform",
    "ultrafast_tokens_per_s": "tiers.ultrafast.tokens_per_s",
    "contract_mw": "contract.mw",
    "contract_value_usd": "contract.value_usd",
    "term_months": "contract.term_months",
}


@dataclass(frozen=True)
class Comparison:
    """Scenarios side by side.

    rows : one row per scenario, in the order asked: the scenario, its settings
        (COMPARE_SETTINGS) and its metrics (COMPARE_METRICS), NaN where a metric has no value
        (no payback within the horizon, no IRR).
    cumulative_cash : cumulative cash K_t [USD] by month (index 1..H, the longest horizon),
        one column per scenario, NaN beyond a scenario's horizon.
    """

    rows: pd.DataFrame
    cumulative_cash: pd.DataFrame


def compare_names(a: Assumptions, names: Sequence[str] = ()) -> list[str]:
    """The scenarios to compare: those named, in order ("base" is the run without a
    scenario), or the base and then every scenario of ``data/scenarios/``."""
    if not names:
        return [BASE_SCENARIO, *a.scenario_names()]
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise AssumptionError(f"scenario {n!r} is named twice; name each scenario once")
        seen.add(n)
        if n != BASE_SCENARIO:
            check_scenario_name(n)
    return list(names)


def scenario_assumptions(
    a: Assumptions, names: Sequence[str], overrides: Sequence[tuple[str, str]] = ()
) -> list[Assumptions]:
    """Each scenario applied to ``a`` (the base as it is), then the same KEY=VALUE overrides."""
    out = []
    for n in names:
        s = a if n == BASE_SCENARIO else a.with_scenario(n)
        out.append(s.with_overrides(overrides) if overrides else s)
    return out


def compare_one(a: Assumptions) -> dict:
    """One scenario's row and cumulative cash, from its headline (computed once). Module-level,
    so that worker processes can receive it."""
    h = headline(a)
    row: dict = {"scenario": a.scenario}
    for col, key in COMPARE_SETTINGS.items():
        row[col] = h["assumptions"][key]
    for col, path in COMPARE_METRICS.items():
        v = h
        for part in path.split("."):
            v = v[part]
        row[col] = math.nan if v is None else float(v)
    if not h["served_model"]["ultrafast_offered"]:
        row["served_tokens_per_s"] = math.nan  # the tier is not offered on this platform
    return {"row": row, "cumulative_cash_usd": h["monthly"]["cumulative_cash_usd"]}


def _counted(results, total: int, progress) -> list:
    """The results of a map as a list, calling progress(done, total) as each arrives."""
    out = []
    for r in results:
        out.append(r)
        if progress is not None:
            progress(len(out), total)
    return out


def compare(scenarios: Sequence[Assumptions], workers: int = 1, progress=None) -> Comparison:
    """The headline metrics of each scenario (from econ.headline) and its payback curve.

    ``scenarios`` come from :func:`scenario_assumptions`; each is evaluated by one of
    ``workers`` processes, the rows in the order given. ``progress(done, total)``, if given,
    is called as each scenario's row arrives.
    """
    done = _counted(
        map_ordered(compare_one, scenarios, min(workers, max(1, len(scenarios)))),
        len(scenarios),
        progress,
    )
    rows = pd.DataFrame([d["row"] for d in done])
    H = max((len(d["cumulative_cash_usd"]) for d in done), default=0)
    curves = pd.DataFrame(
        {
            d["row"]["scenario"]: np.pad(
                np.array(d["cumulative_cash_usd"], float),
                (0, H - len(d["cumulative_cash_usd"])),
                constant_values=np.nan,
            )
            for d in done
        },
        index=pd.RangeIndex(1, H + 1, name="month"),
    )
    return Comparison(rows, curves)


# ---------------------------------------------------------------------------
# platforms: one budget on every platform


def _schedule(a: Assumptions, mw: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Months t (H, 1), MW_t (H, 1) of a contract of ``mw`` MW (default contract.mw) on the
    model's schedule (tranches where set, else the ramp) and the discount d_t (H, 1)."""
    t = cap.months(int(a.values["horizon.months"]))[:, None]
    size = a.num("contract.mw") if mw is None else mw
    return t, online_mw(Params(a), t, size), cost.discount(t, a.num("finance.discount_rate_annual"))


def _rent_pv(a: Assumptions, budget: float, mw: float | None = None) -> float:
    """PV [USD] of ``budget`` paid as the contract's rent on the MW schedule of ``mw`` MW."""
    t, online, d = _schedule(a, mw)
    rent = cost.rent(
        t,
        online,
        budget,
        a.num("contract.term_months"),
        cost.pays_as_delivered(str(a.values["contract.payment"])),
        a.num("contract.delivered_share"),
    )
    return float((rent * d).sum())


def budget_present_value(a: Assumptions, budget: float) -> float:
    """PV [USD] of ``budget`` paid as the contract's rent (its MW schedule, term and payment)."""
    return _rent_pv(a, budget)


def per_delivered_mw_month(a: Assumptions, platform: str) -> tuple[str, float]:
    """How a platform is priced and its cost per delivered facility MW-month [USD]: ("contract
    rate", the contract's rent levelised over its own MW schedule, value / sum MW_t when paid
    as delivered), ("hourly rent", the rate per MW-month), else ("bought", the levelised cost
    of buying, docs/model.md 4.2-4.3)."""
    if platform == a.values["contract.platform"]:
        _, online, d = _schedule(a)
        return "contract rate", _rent_pv(a, a.num("contract.value_usd")) / float((online * d).sum())
    rate = a.get(f"hardware.{platform}.rent_usd_per_hour")
    if rate is not None:
        per_month = cost.hourly_rent_per_mw_month(
            rate, a.num(f"hardware.{platform}.power_kw"), a.num("facility.pue")
        )
        return "hourly rent", float(per_month)
    return "bought", tables.buy_per_mw_month(a, platform)


def platform_cost(a: Assumptions, platform: str) -> tuple[str, float]:
    """How a platform is priced and the present cost [USD] of one contracted MW of it on the
    contract's MW schedule: its cost per delivered MW-month x sum MW_t / mw x d_t."""
    kind, per_month = per_delivered_mw_month(a, platform)
    _, online, d = _schedule(a)
    return kind, per_month * float((online * d).sum()) / a.num("contract.mw")


def delivered_most(a: Assumptions) -> float:
    """The most MW the contract's schedule can deliver in the term [MW]: the tranches' total
    by the last month of the term; unbounded on the ramp."""
    if "contract.tranche_mw" not in a.values:
        return math.inf
    return float(_schedule(a, math.inf)[1].max())


def platform_mw(a: Assumptions, platform: str, budget: float) -> float:
    """Facility MW X of a platform whose cost, its cost per delivered MW-month on the model's
    MW schedule of X MW, has the present value of the budget paid as the contract's rent on
    that schedule: the MW `econ summary --set contract.platform=... --set contract.mw=X --set
    contract.value_usd=budget` charges at the platform's own price. On the ramp MW_t is
    proportional to X (the root in closed form); in tranches it is not (paid as delivered:
    sum MW_t(X) = budget / cost per MW-month). Capped at what the tranches deliver."""
    per_month = per_delivered_mw_month(a, platform)[1]

    def cost_and_rent(x: float) -> tuple[float, float]:
        _, online, d = _schedule(a, x)
        return per_month * float((online * d).sum()), _rent_pv(a, budget, x)

    def proportional(x: float) -> float:
        """The root where MW_t is proportional to X (the ramp; tranches below the first)."""
        c, r = cost_and_rent(x)
        return x * r / c

    most = delivered_most(a)
    if math.isinf(most):
        return proportional(1.0)
    low = most * 1e-9
    if proportional(low) <= low:
        return proportional(low)
    c, r = cost_and_rent(most)
    if c <= r:
        return most

    def gap(x: float) -> float:
        c, r = cost_and_rent(x)
        return c - r

    return float(brentq(gap, low, most, xtol=1e-12 * most, rtol=4 * np.finfo(float).eps))


def fastest_speed(a: Assumptions, platform: str) -> tuple[float, float, float]:
    """(per-user ceiling for the served model, top of the data curve, the fastest speed the
    platform supports) [tokens/s/user]; on the physics basis the fastest is the ceiling."""
    ceiling = float(physics.ceiling(tables.served_model(a), tables.chip(a, platform)))
    top = a.frontier_range(platform)[1]
    if a.values["capacity.basis"] == "physics":
        return ceiling, top, ceiling
    return ceiling, top, min(ceiling, top)


def throughput_on_basis(a: Assumptions, platform: str, speed: float) -> float:
    """Thr*_p(s) [tokens/s/MW]: the data curve (NaN where it does not cover s) or the physics
    envelope, as capacity.basis says."""
    if a.values["capacity.basis"] == "physics":
        return float(tables.envelope(a, platform, speed).throughput[0])
    return tables.data_throughput(a, platform, speed)


class PlatformRow:
    """One platform's row of :func:`platforms` (a callable, so that worker processes can
    receive it)."""

    def __init__(self, a: Assumptions, budget: float):
        self.a = a
        self.budget = budget

    def __call__(self, platform: str) -> dict:
        a, budget = self.a, self.budget
        basis, per_month = per_delivered_mw_month(a, platform)
        mw = platform_mw(a, platform, budget)
        ceiling, top, fastest = fastest_speed(a, platform)
        s_u = a.num("tiers.ultrafast.tokens_per_s")
        row = {
            "platform": platform,
            "rent_basis": basis,
            "usd_per_delivered_mw_month": per_month,
            "mw": mw,
            "ceiling_tokens_per_s": ceiling,
            "curve_top_tokens_per_s": top,
            "fastest_tokens_per_s": fastest,
            "served_tokens_per_s": math.nan,
            "users_per_mw": math.nan,
            "ultrafast_offered": False,
            "npv_usd": math.nan,
            "payback_months": math.nan,
            "discounted_payback_months": math.nan,
            "term_average_utilization": math.nan,
            "note": "",
        }
        data = a.values["capacity.basis"] == "data"
        s_std = a.num("tiers.standard.tokens_per_s")
        if data and not (a.covers(platform, s_std) and a.covers(platform, s_u)):
            lo, hi = a.frontier_range(platform)
            row["note"] = (
                f"its data curve ({lo:g} to {hi:g} tokens/s) does not cover both the standard "
                f"tier's {s_std:g} tokens/s and the ultrafast tier's {s_u:g}: it cannot carry "
                "this deal on the data basis"
            )
            return row
        # the same rule as every command: `econ summary --set contract.platform=... --set
        # contract.mw=... --set contract.value_usd=...` gives this row's NPV
        b = a.with_overrides([("contract.platform", platform)], origin="econ platforms")
        r = evaluate(b, {"contract.mw": mw, "contract.value_usd": budget})
        offered = bool(np.isfinite(r.served_multiplier[0]))
        served = float(r.served_tokens_per_s_ultrafast[0])
        row.update(
            served_tokens_per_s=served if offered else math.nan,
            users_per_mw=float(r.throughput_per_mw[0]) / served if offered else math.nan,
            ultrafast_offered=offered,
            npv_usd=float(r.npv[0]),
            payback_months=float(r.payback_months[0]),
            discounted_payback_months=float(r.discounted_payback_months[0]),
            term_average_utilization=float(r.totals["term_average_utilization"][0]),
        )
        if not offered:
            row["note"] = (
                f"the served model's ceiling here ({ceiling:,.4g} tokens/s) leaves no grid speed "
                f"from {s_u:g} down to half of it below 0.9 x the ceiling: no ultrafast tier, "
                "the MW earn by backfill alone"
            )
        elif served < s_u:
            row["note"] = (
                f"served at {served:,.4g} tokens/s, {served / s_u:.0%} of the tier's speed"
            )
        if mw >= delivered_most(a):
            row["note"] = (row["note"] + "; " if row["note"] else "") + (
                f"the budget buys more than the tranches deliver ({mw:,.0f} MW by the end of "
                "the term): the MW stop there"
            )
        return row


def platforms(
    a: Assumptions, budget: float | None = None, workers: int = 1, progress=None
) -> pd.DataFrame:
    """The same budget and term on every platform of hardware.csv: its price basis, MW, the
    fastest speed it supports for the served model, users per MW at the speed served, and
    the deal's NPV and payback served on it (see the module's readings).

    budget : USD, default contract.value_usd; > 0.
    Returns one row per platform, in hardware.csv's order; attrs: budget_usd, term_months.
    """
    budget = a.num("contract.value_usd") if budget is None else float(budget)
    if not (math.isfinite(budget) and budget > 0):
        raise AssumptionError(f"budget: {budget:g} USD; expected a number > 0")
    ids = list(a.platforms())
    rows = _counted(
        map_ordered(PlatformRow(a, budget), ids, min(workers, len(ids))), len(ids), progress
    )
    df = pd.DataFrame(rows)
    df.attrs.update(
        budget_usd=budget,
        term_months=int(a.num("contract.term_months")),
        contract_platform=str(a.values["contract.platform"]),
        ultrafast_tokens_per_s=a.num("tiers.ultrafast.tokens_per_s"),
        basis=str(a.values["capacity.basis"]),
    )
    return df


# ---------------------------------------------------------------------------
# sweep and optimise one key

# Tier speeds the contract platform's data curve is evaluated at (docs/model.md, 3.5 and 5.8).
CURVE_SPEEDS = ("tiers.standard.tokens_per_s", "tiers.ultrafast.tokens_per_s")


@dataclass(frozen=True)
class KeyRange:
    """The values a sweep or an optimisation covers.

    kind : "number" (any value in [low, high]), "whole" (whole numbers), "flag" (0 and 1) or
        "per run" (one value per run, evaluated point by point: the horizon).
    how : where the range came from ("given", "its sensitivity range", "its valid range",
        "0.5x to 2x its value"), clipped to what the key may take.
    """

    key: str
    low: float
    high: float
    kind: str
    how: str
    base: float


def key_kind(a: Assumptions, key: str) -> str:
    """How a key can be swept; AssumptionError for a key that cannot (an unknown key, an id, a
    frontier point's speed)."""
    if key not in a.values:
        raise AssumptionError(unknown_key_message(key, a.values))
    v = a.values[key]
    if isinstance(v, str):
        hint = (
            "compare platforms with econ platforms"
            if key == "contract.platform"
            else f"set it with --set {key}=..."
        )
        raise AssumptionError(f"{key} is an id ({v!r}), not a number to sweep; {hint}")
    if key.startswith("frontier.") and key.endswith(".tokens_per_s_per_user"):
        platform = a.values[key.rsplit(".", 1)[0] + ".platform"]
        raise AssumptionError(
            f"{key} is a knot of {platform}'s curve (one value per run), not a number to sweep; "
            f"sweep hardware.{platform}.frontier_scale or the point's tokens_per_s_per_mw"
        )
    if is_structural(key, v):
        return "per run"
    rule = rule_for(key)
    if rule is not None and rule.kind == "integer":
        return "flag" if (rule.low, rule.high) == (0, 1) else "whole"
    return "number"


def allowed_range(a: Assumptions, key: str) -> tuple[float, float, str]:
    """The closed range of values ``key`` may take with everything else as it is, and what it
    is, for messages: its rule, the tier order, the contract platform's data curve for the
    standard and ultrafast speeds (data basis), term <= horizon. Open bounds are nudged inside."""
    rule = rule_for(key)
    lo, hi = -math.inf, math.inf
    why = []
    if rule is not None:
        lo = -math.inf if rule.low is None else rule.low
        hi = math.inf if rule.high is None else rule.high
        lo = _inside(lo, +1) if rule.low_open else lo
        hi = _inside(hi, -1) if rule.high_open else hi
        why.append(f"{rule.expected()} [{rule.unit}]")
    tiers = a.tier_ids()  # in order of speed
    speed_keys = [f"tiers.{t}.tokens_per_s" for t in tiers]
    if key in speed_keys:
        i = speed_keys.index(key)
        speeds = [a.num(k) for k in speed_keys]
        lo = max(lo, speeds[i - 1]) if i > 0 else lo
        hi = min(hi, speeds[i + 1]) if i < len(speeds) - 1 else hi
        why.append(
            f"tier speeds rising {' <= '.join(tiers)} ({', '.join(f'{s:g}' for s in speeds)})"
        )
        if key in CURVE_SPEEDS and a.values["capacity.basis"] == "data":
            plat = str(a.values["contract.platform"])
            c_lo, c_hi = a.frontier_range(plat)
            lo, hi = max(lo, c_lo), min(hi, c_hi)
            why.append(
                f"within {plat}'s data curve, {c_lo:g} to {c_hi:g} tokens/s (any speed works "
                "with --set capacity.basis=physics)"
            )
    if key == "contract.term_months":
        hi = min(hi, a.num("horizon.months"))
        why.append("at most the horizon")
    if key == "horizon.months":
        lo = max(lo, a.num("contract.term_months"))
        why.append("at least the term")
    what = "; ".join(why)
    if math.isfinite(lo) and math.isfinite(hi) and len(why) > 1:
        what = f"a value from {lo:,.6g} to {hi:,.6g} ({what})"
    return lo, hi, what


def _inside(bound: float, direction: int) -> float:
    """A value just inside an open bound (relatively, or absolutely near 0)."""
    return bound + direction * 1e-9 * max(abs(bound), 1.0)


def key_range(
    a: Assumptions, key: str, low: float | None = None, high: float | None = None
) -> KeyRange:
    """The range of a sweep or an optimisation: given (checked, never clipped), else the key's
    sensitivity range, else its valid range where the rule has both ends, else 0.5x to 2x its
    value; defaults are clipped to :func:`allowed_range`."""
    kind = key_kind(a, key)
    base = a.num(key)
    lo_ok, hi_ok, what = allowed_range(a, key)
    sens = next((s for s in a.sensitivity if s.key == key), None)
    rule = rule_for(key)
    if sens is not None:
        d_lo, d_hi, how = sens.low, sens.high, "its sensitivity range"
    elif rule is not None and rule.low is not None and rule.high is not None and not rule.sense:
        d_lo, d_hi, how = rule.low, rule.high, "its valid range"
    elif base != 0:
        d_lo, d_hi = sorted((base / SWEEP_SPAN, base * SWEEP_SPAN))
        how = f"{1 / SWEEP_SPAN:g}x to {SWEEP_SPAN:g}x its value"
    elif low is None or high is None:
        raise AssumptionError(
            f"{key} is 0 and has no sensitivity range or bounded rule; give --low and --high"
        )
    else:
        d_lo = d_hi = 0.0
        how = "given"
    d_lo, d_hi = max(d_lo, lo_ok), min(d_hi, hi_ok)
    for name, x in (("--low", low), ("--high", high)):
        if x is not None and not (lo_ok <= x <= hi_ok):
            raise AssumptionError(f"{key}: {name} {x:g} is out of range; expected {what}")
    if low is not None or high is not None:
        how = "given" if low is not None and high is not None else f"given, else {how}"
    lo = d_lo if low is None else float(low)
    hi = d_hi if high is None else float(high)
    if kind in ("whole", "flag", "per run"):
        lo, hi = float(math.ceil(lo - 1e-9)), float(math.floor(hi + 1e-9))
    if not lo < hi:
        raise AssumptionError(f"{key}: empty range [{lo:g}, {hi:g}]; expected --low below --high")
    return KeyRange(key, lo, hi, kind, how, base)


def range_values(r: KeyRange, points: int) -> np.ndarray:
    """The values of a range: ``points`` evenly spaced, whole numbers for whole-number keys (every
    one where there are at most ``points``), 0 and 1 for a flag. Shape (M,)."""
    if r.kind == "flag":
        return np.array([0.0, 1.0])
    xs = np.linspace(r.low, r.high, points)
    if r.kind in ("whole", "per run"):
        xs = np.unique(np.round(xs))
    return xs


def _chunks(xs: np.ndarray) -> list[np.ndarray]:
    return [xs[i : i + SWEEP_CHUNK] for i in range(0, xs.size, SWEEP_CHUNK)]


# the sweep's outputs, named as `econ summary --json` names them
SWEEP_OUTPUTS = (
    "npv_usd",
    "payback_months",
    "discounted_payback_months",
    "term_average_utilization",
)


def _outputs(r) -> dict[str, np.ndarray]:
    out = {
        "npv_usd": r.npv,
        "payback_months": r.payback_months,
        "discounted_payback_months": r.discounted_payback_months,
        "profitability_index": r.profitability_index,
    }
    if r.totals is not None:
        out["term_average_utilization"] = r.totals["term_average_utilization"]
    return {k: np.array(v, float) for k, v in out.items()}


class KeyChunk:
    """The model's outputs for a chunk of one key's values (M,), in one vectorised evaluation
    (a callable, so that worker processes can receive it)."""

    def __init__(self, a: Assumptions, key: str, detail: bool = True, hold: str = "rate"):
        self.a, self.key, self.detail, self.hold = a, key, detail, hold

    def __call__(self, xs: np.ndarray) -> dict[str, np.ndarray]:
        over = at_rate(self.a, self.key, xs) if self.hold == "rate" else {self.key: xs}
        return _outputs(evaluate(self.a, over, detail=self.detail, monthly=False))


class KeyPoint:
    """The model's outputs at one value of a key that takes one value per run (evaluated with
    the value set as by --set)."""

    def __init__(self, a: Assumptions, key: str, detail: bool = True, hold: str = "rate"):
        self.a, self.key, self.detail, self.hold = a, key, detail, hold

    def __call__(self, x: float) -> dict[str, np.ndarray]:
        pairs = [(self.key, f"{x:.17g}")]
        if self.hold == "rate" and self.key in SIZE_KEYS:
            value = float(at_rate(self.a, self.key, [x])["contract.value_usd"][0])
            pairs.append(("contract.value_usd", f"{value:.17g}"))
        b = self.a.with_overrides(pairs, origin="econ sweep")
        return _outputs(evaluate(b, detail=self.detail))


def evaluate_values(
    a: Assumptions,
    key: str,
    xs: np.ndarray,
    workers: int = 1,
    detail: bool = True,
    progress=None,
    hold: str = "rate",
) -> dict[str, np.ndarray]:
    """The outputs of ``_outputs`` at each value of ``key`` (M,), spread over ``workers``;
    ``hold`` 'rate' moves the contract's value with its size (contract.mw, term), 'value'
    keeps it (docs/model.md, section 0.3); ``progress(done, M)``, if given, is called as each
    chunk of values arrives."""
    if key_kind(a, key) == "per run":
        fn, items = KeyPoint(a, key, detail, hold), [float(x) for x in xs]
    else:
        fn, items = KeyChunk(a, key, detail, hold), _chunks(np.asarray(xs, float))
    parts, done = [], 0
    for p in map_ordered(fn, items, min(workers, max(1, len(items)))):
        parts.append(p)
        done += len(np.atleast_1d(next(iter(p.values()))))
        if progress is not None:
            progress(done, len(xs))
    return {k: np.concatenate([np.atleast_1d(p[k]) for p in parts]) for k in parts[0]}


def reads(a: Assumptions, key: str) -> bool:
    """Whether the payback model reads ``key`` (else no output of a sweep can move with it)."""
    return key == "horizon.months" or key in evaluate(a, detail=False).inputs_read


@dataclass(frozen=True)
class Sweep:
    """One key swept: the range and a table of the key's values (first column, named by the
    key) with NPV [USD], payback and discounted payback [months, NaN = none within the
    horizon] and utilisation over the term [share]. ``read`` is False where the model does not read
    the key (the outputs are then flat)."""

    range: KeyRange
    table: pd.DataFrame
    read: bool


def sweep(
    a: Assumptions,
    key: str,
    low: float | None = None,
    high: float | None = None,
    points: int = SWEEP_POINTS,
    workers: int = 1,
    progress=None,
    hold: str = "rate",
) -> Sweep:
    """NPV, payback, discounted payback and utilisation over the term over one key (docs/model.md 7).
    ``progress(done, total)``, if given, counts the values evaluated."""
    r = key_range(a, key, low, high)
    xs = range_values(r, points)
    out = evaluate_values(a, key, xs, workers, detail=True, hold=hold, progress=progress)
    table = pd.DataFrame({key: xs, **{k: out[k] for k in SWEEP_OUTPUTS}})
    return Sweep(r, table, reads(a, key))


# metric -> (output, +1 to maximise or -1 to minimise)
OPTIMIZE_METRICS = {
    "npv": ("npv_usd", 1),
    "profitability_index": ("profitability_index", 1),
    "payback": ("payback_months", -1),
    "discounted_payback": ("discounted_payback_months", -1),
}


@dataclass(frozen=True)
class Optimum:
    """The value of a key that gives the best metric in a range.

    value, best : the key's value and the metric there (NaN where the metric has no value
        anywhere); base_metric : the metric at the key's current value.
    on_bound : "low" or "high" where the optimum sits on an end of the range, else None.
    flat : the metric does not vary over the range (or the model does not read the key).
    refined : the grid's best was refined by bounded minimisation.
    curve : the grid: the key's values and the metric's output.
    """

    range: KeyRange
    metric: str
    output: str
    value: float
    best: float
    base_metric: float
    on_bound: str | None
    flat: bool
    read: bool
    refined: bool
    curve: pd.DataFrame = field(repr=False)


def optimize(
    a: Assumptions,
    key: str,
    low: float | None = None,
    high: float | None = None,
    metric: str = "npv",
    points: int = OPTIMIZE_POINTS,
    workers: int = 1,
    progress=None,
    hold: str = "rate",
) -> Optimum:
    """The value of ``key`` in a range at which ``metric`` is best (largest NPV or
    profitability index, earliest payback): a vectorised grid of ``points`` values, then
    bounded refinement (scipy.optimize.minimize_scalar, method "bounded") between the grid
    best's neighbours. Whole-number keys and flags take the grid's best; no payback counts as
    later than the horizon. Keys that take one value per run are refused.
    ``progress(done, total)``, if given, counts the grid's values evaluated."""
    if metric not in OPTIMIZE_METRICS:
        raise AssumptionError(
            f"optimize: unknown metric {metric!r}; expected one of {', '.join(OPTIMIZE_METRICS)}"
        )
    r = key_range(a, key, low, high)
    if r.kind == "per run":
        raise AssumptionError(
            f"{key} takes one value per run and is not a decision to optimise; try econ sweep {key}"
        )
    output, sign = OPTIMIZE_METRICS[metric]
    worst = float(a.num("horizon.months")) + 1.0  # no payback: later than any month

    def score(y: np.ndarray) -> np.ndarray:
        """Larger is better; NaN (no payback, no value) is worst."""
        y = np.asarray(y, float)
        if sign < 0:
            return -np.where(np.isnan(y), worst, y)
        return np.where(np.isnan(y), -np.inf, y)

    xs = range_values(r, points)
    ys = evaluate_values(a, key, xs, workers, detail=False, hold=hold, progress=progress)[output]
    base_y = float(KeyChunk(a, key, detail=False, hold=hold)(np.array([r.base]))[output][0])
    s = score(ys)
    j = int(np.argmax(s))
    value, best, refined = float(xs[j]), float(ys[j]), False
    flat = bool(np.all(s == s[0]))
    if r.kind == "number" and not flat and xs.size > 2:
        lo, hi = float(xs[max(j - 1, 0)]), float(xs[min(j + 1, xs.size - 1)])
        one = KeyChunk(a, key, detail=False, hold=hold)

        def f(x: float) -> float:
            return -float(score(one(np.array([x]))[output])[0])

        res = minimize_scalar(
            f, bounds=(lo, hi), method="bounded", options={"xatol": REFINE_XTOL * (r.high - r.low)}
        )
        if res.success and -res.fun > s[j]:
            value = float(res.x)
            best = float(one(np.array([value]))[output][0])
            refined = True
    on_bound = None
    if not flat and value == r.low:
        on_bound = "low"
    elif not flat and value == r.high:
        on_bound = "high"
    curve = pd.DataFrame({key: xs, output: ys})
    return Optimum(
        r, metric, output, value, best, base_y, on_bound, flat, reads(a, key), refined, curve
    )
