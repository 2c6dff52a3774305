"""The headline of one evaluation: every figure `econ summary --json` prints, as one dict.

It collects what the model (econ.model) and the compute side (econ.compute.tables)
computed for scenario 0 of a result; it derives no number of its own beyond
selecting, summing over months and counting months. The report layer formats
this dict (econ.report.summary) and never recomputes it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from econ.assumptions import AssumptionError, Assumptions, rule_for
from econ.compute import tables
from econ.constants import CHECK_RTOL
from econ.model import Results, evaluate, simple_breakeven
from econ.payback import irr_note_of, mirr_annual_of

# JSON name -> Results field, for the monthly lists
MONTHLY_FIELDS = {
    "mw_online": "mw_online",
    "rent_usd": "rent",
    "subscription_revenue_usd": "subscription_revenue",
    "api_revenue_usd": "api_revenue",
    "revenue_usd": "revenue",
    "gpu_savings_usd": "gpu_savings",
    "backfill_usd": "backfill_usd",
    "net_cash_flow_usd": "net_cash_flow",
    "cumulative_cash_usd": "cumulative_cash",
    "discounted_cash_flow_usd": "discounted_cash_flow",
    "cumulative_discounted_cash_usd": "cumulative_discounted_cash",
    "pro_subscribers": "pro",
    "pro_subscribers_counterfactual": "pro_counterfactual",
    "incremental_pro_subscribers": "incremental_pro",
    "plus_cap_hit_share": "plus_cap_hit",
    "plus_cap_hit_share_counterfactual": "plus_cap_hit_counterfactual",
    "pro_cap_hit_share": "pro_cap_hit",
    "ultrafast_adoption": "ultrafast_adoption",
    "capacity_streams": "capacity_streams",
    "api_tokens_wanted": "api_tokens_wanted",
    "api_tokens_served": "api_tokens_served",
    "api_streams_peak": "api_streams_peak",
    "subscriber_streams_peak": "subscriber_streams_peak",
    "backfill_tokens": "backfill_tokens",
    "tokens_served": "tokens_served",
    "tokens_moved_off_gpus": "tokens_moved_off_gpus",
    "tokens_added_to_gpus": "tokens_added_to_gpus",
    "utilization": "utilization",
    "capacity_utilization": "utilization",  # the name of version 1, kept for scripts that read it
    "pro_subscribers_no_deal": "pro_counterfactual",
    "mw_api": "mw_api",
    "mw_subscriber": "mw_subscriber",
    "mw_backfill_peak": "mw_backfill_peak",
    "mw_backfill_flexible": "mw_backfill_flexible",
    "mw_free": "mw_free",
    "mw_idle": "mw_idle",
    "demand_no_deal_tokens": "demand_no_deal_tokens",
    "credited_tokens": "credited_tokens",
    "moved_demand_cap_tokens": "moved_demand_cap_tokens",
    "moved_flexible_cap_tokens": "moved_flexible_cap_tokens",
    "cash_flow_usd": "cash_flow",
    "cumulative_cash_only_usd": "cumulative_cash_only",
}


# a total of the model -> its name in the JSON, where the two differ: the ultrafast tokens'
# revenue at their price, before the standard and fast revenue they replace, is the gross
# beside api_revenue_usd, the net ultrafast API revenue
TOTAL_NAMES = {"api_ultrafast_revenue_usd": "api_gross_revenue_usd"}


def served_model(a: Assumptions, r: Results) -> dict[str, Any]:
    """The served model's speeds and costs on every platform the money reads (sections 0.1,
    V4.3, V4.4): served speeds by tier, the per-user ceilings, the value of a token crossing the
    GPU-fleet boundary by tier (derived or set) with its parts, and each platform's realisation
    factor by tier on the transferred basis."""
    from econ.compute.transfer import measurements

    plat, gpu = str(a.values["contract.platform"]), str(a.values["capacity.gpu_platform"])
    eta: dict[str, dict[str, float]] = {}
    capped: dict[str, dict[str, bool]] = {}
    for k, v in (r.parts or {}).items():
        if k.startswith("eta."):
            bits = k.split(".")
            if len(bits) == 3:
                eta.setdefault(bits[1], {})[bits[2]] = float(v[0])
            else:  # eta.<platform>.<tier>.raw: the factor before the cap at 1
                capped.setdefault(bits[1], {})[bits[2]] = bool(float(v[0]) > 1.0)
    return {
        "basis": a.values["capacity.basis"],
        "contract_platform": plat,
        "gpu_platform": gpu,
        "served_tokens_per_s": {
            "standard": float(r.served_tokens_per_s_standard[0]),
            "fast": float(r.served_tokens_per_s_fast[0]),
            "ultrafast": float(r.served_tokens_per_s_ultrafast[0]),
        },
        "ultrafast_offered": bool(np.isfinite(r.served_multiplier[0])),
        "ultrafast_multiplier": float(r.served_multiplier[0]),
        "ceiling_contract_tokens_per_s": float(r.ceiling_contract[0]),
        "ceiling_gpu_tokens_per_s": float(r.ceiling_gpu[0]),
        "gpu_cost_per_mtok_usd": {
            "standard": float(r.gpu_cost_standard[0]),
            "fast": float(r.gpu_cost_fast[0]),
            "flexible": float(r.gpu_cost_flexible[0]),
        },
        "gpu_cost_overridden": "capacity.gpu_cost_per_mtok_usd" in a.values,
        # the margin bound is a check printed beside v_standard, never a clamp (section V4.3)
        "margin_bound_per_mtok_usd": {
            i: (1 - a.num("finance.api_gross_margin")) * a.num(f"tiers.{i}.price_per_mtok_usd")
            for i in ("standard", "fast")
        },
        "above_margin_bound": {
            i: float(getattr(r, f"gpu_cost_{i}")[0])
            > (1 - a.num("finance.api_gross_margin")) * a.num(f"tiers.{i}.price_per_mtok_usd")
            for i in ("standard", "fast")
        },
        # the one clamp that remains: a token's value at most its list price
        "gpu_cost_clamped_at_list_price": bool(r.gpu_cost_clamped[0]),
        "gpu_hour": {
            "value_usd": float(r.gpu_hour_value[0]),
            "rent_usd": float(r.gpu_rent_per_hour[0]),
            "energy_usd": float(r.gpu_energy_per_hour[0]),
            "avoidable_share": a.num("fleet.avoidable_share"),
            "sublet_usd": a.num("fleet.sublet_usd_per_gpu_hour"),
            "ops_utilization": a.num("fleet.ops_utilization"),
            "troughs": a.values["fleet.troughs"],
        },
        "gpu_hours_per_mtok": {
            "standard": float(r.gpu_hours_standard[0]),
            "fast": float(r.gpu_hours_fast[0]),
        },
        "gpu_throughput_tokens_per_s_per_mw": {
            "standard": float(r.gpu_throughput_standard[0]),
            "fast": float(r.gpu_throughput_fast[0]),
        },
        "realisation": eta,
        "realisation_points": {
            p_: [m.id for m in measurements(a, p_)] for p_ in sorted({plat, gpu})
        },
        # where the factor's cap at 1 binds (section V4.4)
        "realisation_capped": capped,
    }


def api_market(r: Results) -> dict[str, Any]:
    """The API logit at the run's prices and served speeds (section 0.4)."""
    return {
        "market_tokens_per_month": float(r.api_market_tokens[0]),
        "share": {
            "standard": float(r.api_share_standard[0]),
            "fast": float(r.api_share_fast[0]),
            "ultrafast": float(r.api_share_ultrafast[0]),
            "outside": float(r.api_share_outside[0]),
        },
        "diversion": {
            "standard": float(r.api_diversion_standard[0]),
            "fast": float(r.api_diversion_fast[0]),
        },
        "margin_per_mtok_usd": float(r.api_margin[0]),
        "implied_premium_per_mtok_usd": float(r.api_premium[0]),
    }


def size_at_rate(a: Assumptions, points: int = 41) -> dict[str, Any]:
    """The NPV-maximising contract size at the contract's rate per MW-month (section 0.3): a
    grid over (0, 2 x contract.mw], the value moving with the size, then a bounded refinement."""
    from scipy.optimize import minimize_scalar

    mw0, T = a.num("contract.mw"), a.num("contract.term_months")
    rate = a.num("contract.value_usd") / (mw0 * T)

    def npv(mw: np.ndarray) -> np.ndarray:
        mw = np.atleast_1d(np.asarray(mw, float))
        over = {"contract.mw": mw, "contract.value_usd": rate * mw * T}
        return evaluate(a, over, detail=False, monthly=False).npv

    top = 2 * mw0  # never beyond what contract.mw and contract.value_usd may take
    for key, per_mw in (("contract.mw", 1.0), ("contract.value_usd", rate * T)):
        rule = rule_for(key)
        if rule is not None and rule.high is not None:
            top = min(top, rule.high / per_mw * (1 - 1e-12))  # no rounding past it
    grid = np.linspace(top / points, top, points)
    vals = npv(grid)
    j = int(np.argmax(vals))
    lo, hi = grid[max(j - 1, 0)] if j > 0 else grid[0] / 2, grid[min(j + 1, points - 1)]
    best_mw, best = float(grid[j]), float(vals[j])
    if hi > lo:
        res = minimize_scalar(
            lambda x: -npv(x)[0], bounds=(lo, hi), method="bounded", options={"xatol": 1e-3 * mw0}
        )
        if -res.fun > best:
            best_mw, best = float(res.x), float(-res.fun)
    return {
        "rate_usd_per_mw_month": rate,
        "best_mw": best_mw,
        "best_npv_usd": best,
        "best_value_usd": rate * best_mw * T,
        "searched_up_to_mw": float(top),
        "at_upper_bound": bool(j == points - 1),
    }


def clean(x: Any) -> Any:
    """NaN and infinities become None; numpy scalars become Python numbers."""
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [clean(v) for v in x]
    if isinstance(x, np.ndarray):
        return clean(x.tolist())
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def capacity_limits(a: Assumptions, r: Results) -> dict[str, Any]:
    """Months in which the contract's capacity, not demand, limits revenue: the API gets
    fewer tokens than it wants, or ultrafast adoption is held below its share."""
    term = int(a.values["contract.term_months"])
    wanted, served = r.api_tokens_wanted[0, :term], r.api_tokens_served[0, :term]
    api_capped = served < wanted * (1 - CHECK_RTOL)
    adoption_capped = r.ultrafast_adoption[0, :term] < a.num("tiers.ultrafast.adoption") * (
        1 - CHECK_RTOL
    )
    months = np.flatnonzero(api_capped | adoption_capped) + 1
    # moved traffic within its cap (section V4.2) but not carried for lack of spare capacity
    offered = r.moved_demand_cap_tokens[0, :term]
    backfill_capped = r.backfill_tokens[0, :term] < offered * (1 - CHECK_RTOL)
    return {
        "api_capped_months": int(api_capped.sum()),
        "adoption_capped_months": int(adoption_capped.sum()),
        "backfill_capped_months": int(backfill_capped.sum()),
        "backfill_capped_last_month": int(np.flatnonzero(backfill_capped)[-1] + 1)
        if backfill_capped.any()
        else None,
        "first_capped_month": int(months[0]) if months.size else None,
        "capacity_limits_revenue": bool(months.size),
        # turned away for lack of capacity; rounding of served = wanted is not a loss
        "api_tokens_lost": lost
        if (lost := float(wanted.sum() - served.sum())) > CHECK_RTOL * float(wanted.sum())
        else 0.0,
    }


def physics_check(a: Assumptions, r: Results) -> dict[str, Any]:
    """Is the ultrafast speed physically plausible on the contract platform for the served
    model, and what would it take (tables.what_it_would_take at the curve's throughput)."""
    plat = str(a.values["contract.platform"])
    s_u = a.num("tiers.ultrafast.tokens_per_s")
    claim = float(r.throughput_per_mw[0])
    take = tables.what_it_would_take(a, plat, s_u, claim)
    above = s_u > take["ceiling_tokens_per_s"]
    ratio = (
        claim / take["physics_tokens_per_s_per_mw"]
        if take["physics_tokens_per_s_per_mw"] > 0
        else math.inf
    )
    return {
        **take,
        "claimed_tokens_per_s_per_mw": claim,
        "within_ceiling": not above,
        "within_envelope": bool(ratio <= 1),
        "claim_over_physics": ratio,
    }


def physics_basis_npv(a: Assumptions) -> float:
    """The NPV with capacity from the physics envelope instead of frontier.csv (the same as
    the NPV when capacity.basis is physics already; docs/model.md, section 3.5)."""
    if a.values["capacity.basis"] == "physics":
        return float(evaluate(a, detail=False).npv[0])
    return float(evaluate(a.with_overrides([("capacity.basis", "physics")]), detail=False).npv[0])


def npv_by_basis(a: Assumptions) -> dict[str, float | None]:
    """The NPV on each capacity basis (None where the data curves cannot serve the speeds)."""

    out: dict[str, float | None] = {}
    for basis in ("data", "transferred", "physics"):
        try:
            b = (
                a
                if a.values["capacity.basis"] == basis
                else a.with_overrides([("capacity.basis", basis)])
            )
            out[basis] = float(evaluate(b, detail=False).npv[0])
        except AssumptionError:
            out[basis] = None
    return out


def headline(a: Assumptions, r: Results | None = None) -> dict[str, Any]:
    """Everything `econ summary --json` prints, for scenario 0 of ``r`` (default: evaluate ``a``)."""
    r = r if r is not None else evaluate(a)
    simple = simple_breakeven(a)
    term = int(a.values["contract.term_months"])
    monthly: dict[str, list] = {"month": [int(m) for m in r.months]}
    for name, attr in MONTHLY_FIELDS.items():
        monthly[name] = getattr(r, attr)[0].tolist()
    rb = tables.rent_vs_buy(a)
    out = {
        "scenario": a.scenario,
        "data": str(a.data_dir),
        "bundled_data": a.bundled,
        "data_sha256": data_sha256(a),
        "overrides": [{"key": k, "value": v, "origin": o} for k, v, o in a.overrides],
        "assumptions": a.effective(),
        "payback_months": float(r.payback_months[0]),
        # the same lasting recovery on cash alone: revenue, variable costs and rent, without
        # the GPU cost avoided (section V4.5)
        "cash_payback_months": float(r.cash_payback_months[0]),
        "payment": a.values["contract.payment"],
        "delivered_share": a.num("contract.delivered_share"),
        "never_cash_negative": bool(r.cumulative_cash_only[0].min() >= 0),
        "cash_only_at_horizon_usd": float(r.cumulative_cash_only[0][-1]),
        "never_negative_with_gpu_cost_avoided": bool(r.cumulative_cash[0].min() >= 0),
        "discounted_payback_months": float(r.discounted_payback_months[0]),
        "npv_usd": float(r.npv[0]),
        "npv_without_terminal_value_usd": float(r.npv_without_terminal_value[0]),
        "npv_at_term_usd": float(r.npv_at_term[0]),
        # the terminal value at the horizon (undiscounted), and as the NPV counts it: its
        # present value, 0 where finance.terminal_value = 0 (named apart: docs/api.md)
        "terminal_value_usd": float(r.terminal_value[0]),
        "terminal_value_pv_usd": float(r.npv[0] - r.npv_without_terminal_value[0]),
        "terminal_value_included": bool(a.num("finance.terminal_value")),
        "irr_annual": float(r.irr_annual[0]),
        # why there is no IRR (None where there is one): docs/model.md, section 6
        "irr_note": irr_note_of(r)[0],
        "mirr_annual": float(mirr_annual_of(r)[0]),
        "profitability_index": float(r.profitability_index[0]),
        "realised_cost_per_mtok_usd": float(r.realised_cost_per_mtok[0]),
        "lessor_yield_annual": rb["lessor_yield_annual"],
        "shortfall_usd": float(r.shortfall[0]),
        "cumulative_cash_at_term_usd": float(r.cumulative_cash[0, term - 1]),
        "cumulative_cash_at_horizon_usd": float(r.cumulative_cash[0, -1]),
        # the most cash the deal ever needs: the deepest point of cumulative cash
        "max_deficit_usd": max(0.0, -float(r.cumulative_cash[0].min())),
        "max_deficit_month": int(np.argmin(r.cumulative_cash[0]) + 1)
        if r.cumulative_cash[0].min() < 0
        else None,
        "npv_physics_basis_usd": physics_basis_npv(a),
        "npv_by_basis_usd": npv_by_basis(a),
        "served_model": (sm := served_model(a, r)),
        "served_tokens_per_s": sm["served_tokens_per_s"],
        "api_market": api_market(r),
        "contract_rate_usd_per_mw_month": a.num("contract.value_usd")
        / (a.num("contract.mw") * a.num("contract.term_months")),
        "size_at_rate": size_at_rate(a),
        **worth_sections(a, r),
        "no_deal": {
            "pro_growth_monthly": a.num("market.pro_growth_monthly"),
            "base_upgrade_monthly": float(r.pro_base_upgrade[0]),
            "capped_upgrade_propensity": float(r.pro_capped_propensity[0]),
            "pro_price_factor": float(r.pro_price_factor[0]),
        },
        "ultrafast_adoption_wanted": float(r.ultrafast_adoption_wanted[0]),
        "simple_breakeven_pro_users": simple["pro_users"],
        "simple_breakeven_share_of_mau": simple["share_of_mau"],
        "totals": {TOTAL_NAMES.get(k, k): float(v[0]) for k, v in r.totals.items()},
        "capacity_limits": capacity_limits(a, r),
        "physics": physics_check(a, r),
        "rent_vs_buy": rb,
        "monthly": monthly,
    }
    return clean(out)


def gpu_cost_anchors(a: Assumptions, r: Results) -> dict[str, Any]:
    """The value of a standard token beside public anchors (section V4.4), each in USD per
    million output tokens: each disclosed day of inference transferred to the served model on
    the GPU platform (anchors.csv), the margin bound, and the model's own value at
    fleet.avoidable_share = 1 (every freed GPU-hour replaces an added one)."""
    speed = float(r.served_tokens_per_s_standard[0])
    out: dict[str, Any] = {}
    for anchor in a.anchors:
        t = tables.gpu_cost_anchor(a, anchor, speed)
        out[anchor.id] = t["transferred_usd_per_mtok"]
        out[f"{anchor.id}_detail"] = t
    out["margin_bound"] = (1 - a.num("finance.api_gross_margin")) * a.num(
        "tiers.standard.price_per_mtok_usd"
    )
    full = a.with_overrides([("fleet.avoidable_share", "1")])
    out["model_at_avoidable_share_1"] = float(evaluate(full, detail=False).gpu_cost_standard[0])
    out["model"] = float(r.gpu_cost_standard[0])
    return out


REPORTED_TERMS = "reported_terms"


def terms_of(a: Assumptions) -> dict[str, Any]:
    """A contract's terms and the answer on them: value, MW, term, rate, payment basis,
    delivered share; NPV, the ultrafast business's NPV, both paybacks."""
    r = evaluate(a, detail=False)
    uf = evaluate(a.with_overrides([(k, "0") for k in NO_MOVED]), detail=False)
    v, mw, T = (a.num(k) for k in ("contract.value_usd", "contract.mw", "contract.term_months"))
    return {
        "scenario": a.scenario,
        "value_usd": v,
        "mw": mw,
        "term_months": T,
        "rate_usd_per_mw_month": v / (mw * T),
        "payment": a.values["contract.payment"],
        "delivered_share": a.num("contract.delivered_share"),
        "tranche_mw": a.values.get("contract.tranche_mw"),
        "npv_usd": float(r.npv[0]),
        "npv_ultrafast_only_usd": float(uf.npv[0]),
        "payback_months": float(r.payback_months[0]),
        "cash_payback_months": float(r.cash_payback_months[0]),
        "never_cash_negative": bool(r.cumulative_cash_only[0].min() >= 0),
    }


NO_MOVED = ("capacity.movable_share", "capacity.internal_batch_tokens_per_month")


def reported_terms(a: Assumptions) -> dict[str, Any] | None:
    """The articles' terms (this run) beside the publicly reported ones (scenario
    reported_terms applied to this run's data and settings; section V4.1); None where the data
    have no such scenario or this run is it."""
    if REPORTED_TERMS not in a.scenario_names() or a.scenario == REPORTED_TERMS:
        return None
    this_run = terms_of(a)
    try:  # the scenario on top of this run's settings, which may contradict it
        reported = terms_of(a.with_scenario(REPORTED_TERMS))
    except AssumptionError as exc:
        return {"this_run": this_run, "reported": None, "reason": str(exc)}
    return {"this_run": this_run, "reported": reported, "reason": None}


def worth_sections(a: Assumptions, r: Results) -> dict[str, Any]:
    """What the capacity is worth (section V4): the two businesses, the break-evens, the
    ultrafast business's best size at the contract's rate, the fleet-plan grid and the GPU
    cost's anchors."""
    from econ import worth

    two = worth.two_businesses(a, float(r.npv[0]))
    uf = worth.ultrafast_only(a)
    return {
        "reported_terms": reported_terms(a),
        "npv_ultrafast_only_usd": two["npv_ultrafast_only_usd"],
        "npv_capacity_increment_usd": two["npv_capacity_increment_usd"],
        "breakevens": worth.breakevens(a),
        "range_ends_crossing": worth.range_ends_crossing(a, float(r.npv[0])),
        # the plausible range of each break-even key: its sensitivity range where sampled, the
        # fleet-plan grid's span for the plan keys (section V4.3)
        "plausible_ranges": {
            **{s_.key: [s_.low, s_.high] for s_ in a.sensitivity},
            "fleet.avoidable_share": [min(worth.AVOIDABLE_GRID), max(worth.AVOIDABLE_GRID)],
            "capacity.movable_share": [min(worth.MOVABLE_GRID), max(worth.MOVABLE_GRID)],
        },
        "ultrafast_business_size_at_rate": size_at_rate(uf),
        "fleet_plan_grid": worth.fleet_plan_grid(a),
        "gpu_cost_anchors": gpu_cost_anchors(a, r),
        # V4.6: the NPV with prices and GPU costs held flat, beside the default
        "npv_no_decline_usd": float(
            evaluate(
                a.with_overrides(
                    [
                        ("market.price_decline_per_year", "0"),
                        ("hardware.gpu_cost_decline_per_year", "0"),
                    ]
                ),
                detail=False,
            ).npv[0]
        ),
        "price_decline_per_year": a.num("market.price_decline_per_year"),
        "gpu_cost_decline_per_year": a.num("hardware.gpu_cost_decline_per_year"),
        "successor": successor_figures(a, r),
        "moved_traffic": {
            "movable_share": a.num("capacity.movable_share"),
            "internal_batch_tokens_per_month": a.num("capacity.internal_batch_tokens_per_month"),
            "flexible_share_of_api": a.num("capacity.backfill_flexible_share"),
            "free_tier_served": bool(a.num("free.served")),
            "demand_no_deal_tokens_month_1": float(r.demand_no_deal_tokens[0, 0]),
            "credited_tokens_month_1": float(r.credited_tokens[0, 0]),
            "moved_demand_cap_tokens_month_1": float(r.moved_demand_cap_tokens[0, 0]),
        },
    }


def data_sha256(a: Assumptions) -> str:
    """One SHA-256 of the data folder: of every file econ read (name and SHA-256, by name)."""
    import hashlib

    h = hashlib.sha256()
    for f in sorted(a.files, key=lambda f: f.name):
        h.update(f"{f.sha256}  {f.name}\n".encode())
    return h.hexdigest()


def report_tables(a: Assumptions, head: dict[str, Any]) -> dict[str, Any]:
    """The compute side's tables the report shows, computed once (the rent-versus-buy figures
    are the headline's)."""
    import pandas as pd

    return {
        "capacity_table": tables.capacity_table(a),
        "frontier_audit": tables.frontier_audit(a),
        "calibration": tables.calibration_table(a),
        "speeds": pd.DataFrame(
            [
                {
                    "model": x.model,
                    "system": x.system,
                    "tokens_per_s": x.tokens_per_s,
                    "source": x.source,
                }
                for x in a.speeds
            ]
        ),
        "agent_table": tables.agent_table(a),
        "frontier_curves": tables.frontier_curves(a),
        "cost_flows": tables.cost_flows(a),
        "owner_flows": tables.owner_flows(a),
        "rent_vs_buy": head["rent_vs_buy"],
    }


def successor_figures(a: Assumptions, r: Results) -> dict[str, Any] | None:
    """A successor of another size (section V4.6; scenario successor_2x): its multiple, its first
    month, whether the contract serves it and at what throughput, the value of a standard token
    off the fleet, and the NPV with successors of the served model's size; None where no
    successor of another size comes within the horizon."""
    P = r.parts or {}
    if "successor.reached" not in P:
        return None
    first = np.asarray(P["succession"])[0]
    if not first.any():
        return None
    f = lambda k: float(np.asarray(P[f"successor.{k}"]).reshape(-1)[0])  # noqa: E731
    same = evaluate(a.with_overrides([("model.successor_params_multiple", "1")]), detail=False)
    return {
        "params_multiple": a.num("model.successor_params_multiple"),
        "first_month": int(np.argmax(first)) + 1,
        "served_on_contract": bool(f("reached")),
        "ceiling_contract_tokens_per_s": f("ceiling_contract"),
        "served_ultrafast_tokens_per_s": float(r.served_tokens_per_s_ultrafast[0]),
        "throughput_per_mw_ultrafast": f("throughput_ultrafast"),
        "throughput_per_mw_ultrafast_served_model": float(r.throughput_per_mw[0]),
        "gpu_cost_standard": f("gpu_cost_standard"),
        "gpu_cost_standard_served_model": float(r.gpu_cost_standard[0]),
        "predecessor_decline_per_month": a.num("model.predecessor_decline_per_month"),
        "npv_same_size_usd": float(same.npv[0]),
    }
