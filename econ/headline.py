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

from econ.assumptions import Assumptions, rule_for
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
    "mw_idle": "mw_idle",
}


# a total of the model -> its name in the JSON, where the two differ: the ultrafast tokens'
# revenue at their price, before the standard and fast revenue they replace, is the gross
# beside api_revenue_usd, the net ultrafast API revenue
TOTAL_NAMES = {"api_ultrafast_revenue_usd": "api_gross_revenue_usd"}


def served_model(a: Assumptions, r: Results) -> dict[str, Any]:
    """The served model's speeds and costs on every platform the money reads (section 0.1):
    served speeds by tier, the per-user ceilings, the GPU cost per token by tier (derived or set)
    and each platform's realisation factor on the transferred basis."""
    plat, gpu = str(a.values["contract.platform"]), str(a.values["capacity.gpu_platform"])
    eta = {
        k.split(".", 1)[1]: float(v[0]) for k, v in (r.parts or {}).items() if k.startswith("eta.")
    }
    from econ.model import measurements

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
        },
        "gpu_cost_overridden": "capacity.gpu_cost_per_mtok_usd" in a.values,
        # where the physics gives more than the public gross margin allows, the margin wins
        "gpu_cost_capped_by_margin": {
            i: "capacity.gpu_cost_per_mtok_usd" not in a.values
            and float(getattr(r, f"gpu_cost_{i}")[0])
            >= (1 - a.num("finance.api_gross_margin"))
            * a.num(f"tiers.{i}.price_per_mtok_usd")
            * (1 - 1e-12)
            for i in ("standard", "fast")
        },
        "realisation": eta,
        "realisation_points": {
            p_: [i for i, _ in measurements(a, p_)] for p_ in sorted({plat, gpu})
        },
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
        return evaluate(a, over, detail=False).npv

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
    # standard traffic offered for backfill but not carried for lack of spare capacity
    offered = a.num("capacity.backfill_tokens_per_month") * r.token_efficiency[0, :term]
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
    from econ.assumptions import AssumptionError

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
