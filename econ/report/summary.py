"""Headline figures as a dict (for JSON) and as readable text. Formats results; derives nothing."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from econ.assumptions import Assumptions
from econ.compute import tables
from econ.model import Results, evaluate, simple_breakeven

MONTHLY_FIELDS = {
    "rent_usd": "rent",
    "subscription_revenue_usd": "subscription_revenue",
    "api_revenue_usd": "api_revenue",
    "revenue_usd": "revenue",
    "net_cash_flow_usd": "net_cash_flow",
    "cumulative_cash_usd": "cumulative_cash",
    "pro_subscribers": "pro",
    "pro_subscribers_counterfactual": "pro_counterfactual",
    "incremental_pro_subscribers": "incremental_pro",
    "plus_cap_hit_share": "plus_cap_hit",
    "plus_cap_hit_share_counterfactual": "plus_cap_hit_counterfactual",
    "ultrafast_adoption": "ultrafast_adoption",
    "capacity_utilization": "capacity_utilization",
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


def headline(a: Assumptions, r: Results | None = None) -> dict[str, Any]:
    """Everything `econ summary --json` prints, for scenario 0 of ``r`` (default: evaluate ``a``)."""
    r = r if r is not None else evaluate(a)
    simple = simple_breakeven(a)
    monthly = {"month": [int(m) for m in r.months]}
    for name, attr in MONTHLY_FIELDS.items():
        monthly[name] = getattr(r, attr)[0].tolist()
    out = {
        "scenario": a.scenario,
        "data": str(a.data_dir),
        "bundled_data": a.bundled,
        "overrides": [{"key": k, "value": v, "origin": o} for k, v, o in a.overrides],
        "assumptions": a.effective(),
        "payback_months": float(r.payback_months[0]),
        "discounted_payback_months": float(r.discounted_payback_months[0]),
        "npv_usd": float(r.npv[0]),
        "irr_annual": float(r.irr_annual[0]),
        "shortfall_usd": float(r.shortfall[0]),
        "cumulative_cash_at_term_usd": float(
            r.cumulative_cash[0, int(a.values["contract.term_months"]) - 1]
        ),
        "simple_breakeven_pro_users": simple["pro_users"],
        "simple_breakeven_share_of_mau": simple["share_of_mau"],
        "totals": {k: float(v[0]) for k, v in r.totals.items()},
        "rent_vs_buy": tables.rent_vs_buy(a),
        "monthly": monthly,
    }
    return clean(out)


def _usd(x: float | None) -> str:
    if x is None:
        return "n/a"
    sign = "-" if x < 0 else ""
    x = abs(x)
    for unit, div in (("B", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= div:
            return f"{sign}${x / div:,.2f}{unit}"
    return f"{sign}${x:,.0f}"


def text(h: dict[str, Any]) -> str:
    """The readable summary: the answer first, then the figures behind it."""
    a = h["assumptions"]
    H = a["horizon.months"]
    T = a["contract.term_months"]
    m = h["monthly"]
    lines = [
        f"econ: scenario {h['scenario']}" + (" (bundled default data)" if h["bundled_data"] else "")
    ]
    if h["payback_months"] is not None:
        verdict = f"Pays back in month {h['payback_months']:.1f}"
        verdict += (
            " (within the term)" if h["payback_months"] <= T else f" (after the {T}-month term)"
        )
    else:
        verdict = (
            f"Does not pay back within {H} months: cumulative cash ends {_usd(-h['shortfall_usd'])}"
        )
    lines.append(verdict + ".")
    irr = h["irr_annual"]
    lines.append(
        f"NPV at {a['finance.discount_rate_annual']:.0%}: {_usd(h['npv_usd'])}; IRR: "
        + (f"{irr:.1%} a year" if irr is not None else "undefined (the flows do not change sign)")
        + "; discounted payback: "
        + (
            f"month {h['discounted_payback_months']:.1f}"
            if h["discounted_payback_months"] is not None
            else "none"
        )
        + "."
    )
    tot = h["totals"]
    rent_total, sub_total, api_total = (
        tot["rent_usd"],
        tot["subscription_revenue_usd"],
        tot["api_revenue_usd"],
    )
    peak = tot["peak_incremental_pro_subscribers"]
    lines.append(
        f"Behind it: {_usd(rent_total)} of rent over {T} months against {_usd(sub_total)} of Pro upgrades "
        f"(up to {peak:,.0f} extra Pro subscribers) and {_usd(api_total)} of ultrafast API tokens."
    )
    lines.append(
        f"Cap hits among Plus users: {m['plus_cap_hit_share'][0]:.1%} in month 1 with ultrafast against "
        f"{m['plus_cap_hit_share_counterfactual'][0]:.1%} without; ultrafast adoption peaks at "
        f"{tot['peak_ultrafast_adoption']:.1%} of eligible users."
    )
    lines.append(
        f"The articles' back-of-the-envelope: {h['simple_breakeven_pro_users']:,.0f} Pro users "
        f"({h['simple_breakeven_share_of_mau']:.3%} of MAU) for {T} months pay the contract."
    )
    rb = h["rent_vs_buy"]
    be = rb["breakeven_system_price_usd"]
    lines.append(
        f"Rent vs buy ({rb['platform']}): rent NPV {_usd(rb['rent_npv_usd'])} "
        f"({_usd(rb['rent_usd_per_mw_month'])}/MW-month), buy NPV {_usd(rb['buy_npv_usd'])} "
        f"({_usd(rb['buy_usd_per_mw_month'])}/MW-month); buying matches renting at a system price of "
        + (_usd(be) if be is not None else f"none ({rb['breakeven_note']})")
        + "."
    )
    return "\n".join(lines)
