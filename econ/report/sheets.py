"""The sheets of payback_analysis.xlsx, in FAST order: Cover, Assumptions, Capacity, Costs,
Revenue, Payback, analysis sheets, Checks."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from econ import __version__
from econ.assumptions import Assumptions
from econ.compute import tables
from econ.constants import HOURS_PER_MONTH, SECONDS_PER_MONTH
from econ.model import Results
from econ.payback import payback_month as crossing_months  # v1 sheet, rewritten for v2
from econ.report.summary import text as summary_text
from econ.report.workbook import (
    QUESTION,
    Formats,
    Timeline,
    new_workbook,
    sheet_header,
    write_cell,
    write_formula,
    write_table,
)

CONSTANTS = (
    ("constant.months_per_year", 12.0, "months", "Unit conversion"),
    ("constant.kw_per_mw", 1000.0, "kW/MW", "Unit conversion"),
    (
        "constant.tokens_per_million",
        1e6,
        "tokens",
        "Unit conversion (prices are per million tokens)",
    ),
    (
        "constant.hours_per_month",
        HOURS_PER_MONTH,
        "hours",
        "MODEL.md conventions: 730.5 hours a month",
    ),
    ("constant.seconds_per_month", SECONDS_PER_MONTH, "s", "MODEL.md conventions: 30.4375 days"),
)


@dataclass
class Context:
    a: Assumptions
    r: Results
    head: dict[str, Any]
    f: Formats
    refs: dict[str, str] = field(default_factory=dict)  # dotted key -> 'Assumptions'!$B$n
    rows: dict[str, str] = field(
        default_factory=dict
    )  # named row -> "Sheet!$C$n:$AL$n" or first cell
    checks: list[tuple[str, float, str]] = field(
        default_factory=list
    )  # label, python value, formula
    charts: list = field(default_factory=list)
    analysis: dict[str, Any] = field(default_factory=dict)
    run_info: dict[str, Any] = field(default_factory=dict)


def build(
    path: Path, a: Assumptions, r: Results, head: dict, analysis: dict | None, run_info: dict
) -> None:
    """Write the whole workbook to ``path`` (a temporary file; the caller renames it)."""
    wb = new_workbook(path)
    ctx = Context(a, r, head, Formats(wb), analysis=analysis or {}, run_info=run_info)
    cover = wb.add_worksheet("Cover")
    assumptions_sheet(wb, ctx)
    capacity_sheet(wb, ctx)
    costs_sheet(wb, ctx)
    revenue_sheet(wb, ctx)
    payback_sheet(wb, ctx)
    from econ.report import analysis_sheets

    analysis_sheets.write_all(wb, ctx)
    checks_sheet(wb, ctx)
    cover_sheet(cover, ctx)
    for ws in wb.worksheets():  # print each sheet one page wide, landscape
        ws.set_landscape()
        ws.fit_to_pages(1, 0)
    wb.close()


# ---------------------------------------------------------------------------


def cover_sheet(ws, ctx: Context) -> None:
    f, h = ctx.f, ctx.head
    ws.set_column(0, 0, 34)
    ws.set_column(1, 1, 70)
    sheet_header(ws, f, "econ: payback analysis of renting ultra-fast inference capacity")
    ws.write_string(1, 0, QUESTION, f("note"))
    row = 3
    ws.write_string(row, 0, "Answer", f("h"))
    ws.write_string(row, 1, "", f("h"))
    row += 1
    for line in summary_text(h).splitlines()[1:]:
        ws.write_string(row, 0, "")
        ws.write_string(row, 1, line, f("wrap"))
        ws.set_row(row, 30)
        row += 1
    row += 1
    ws.write_string(row, 0, "Headline", f("h"))
    ws.write_string(row, 1, "", f("h"))
    row += 1
    for label, key, fmt in (
        ("NPV [USD]", "npv_usd", "usd"),
        ("IRR [annual]", "irr_annual", "pct"),
        ("Payback month", "payback_months", "num2"),
        ("Discounted payback month", "discounted_payback_months", "num2"),
        ("Shortfall at the horizon [USD]", "shortfall_usd", "usd"),
        ("Pro users to pay the contract (articles)", "simple_breakeven_pro_users", "num"),
        ("... as a share of MAU", "simple_breakeven_share_of_mau", "pct3"),
    ):
        ws.write_string(row, 0, label)
        ref = ctx.rows.get(f"headline.{key}")
        value = h[key]
        if value is None:  # no payback within the horizon, or no IRR
            value = "none" if "payback" in key else "undefined"
        if ref:
            write_formula(ws, row, 1, f"={ref}", value, f(fmt))
        else:
            write_cell(ws, row, 1, value, f(fmt))
        row += 1
    row += 1
    info = [
        ("Scenario", ctx.a.scenario),
        ("Overrides", "; ".join(f"{k}={v} ({o})" for k, v, o in ctx.a.overrides) or "none"),
        ("Data folder", str(ctx.a.data_dir) + (" (bundled defaults)" if ctx.a.bundled else "")),
        ("econ version", __version__),
        (
            "Run at (UTC)",
            ctx.run_info.get("time", dt.datetime.now(dt.UTC).isoformat(timespec="seconds")),
        ),
    ]
    for k, v in ctx.run_info.items():
        if k != "time":
            info.append((k, str(v)))
    ws.write_string(row, 0, "Run", f("h"))
    ws.write_string(row, 1, "", f("h"))
    row += 1
    for k, v in info:
        ws.write_string(row, 0, k)
        ws.write_string(row, 1, v, f("wrap"))
        row += 1
    row += 1
    ws.write_string(row, 0, "Input file", f("h"))
    ws.write_string(row, 1, "SHA-256", f("h"))
    row += 1
    for fi in ctx.a.files:
        ws.write_string(row, 0, fi.name)
        ws.write_string(row, 1, fi.sha256)
        row += 1
    row += 1
    ws.write_string(row, 0, "How to read this workbook", f("h"))
    ws.write_string(row, 1, "", f("h"))
    row += 1
    guide = [
        ("Assumptions", "every input with unit and source; blue-on-yellow cells are inputs"),
        (
            "Capacity",
            "users per MW, chips per replica, the roofline audit, agent task times, the frontier chart",
        ),
        ("Costs", "monthly rent and buy flows, their NPVs, cost per million tokens"),
        (
            "Revenue",
            "users, cap hits, Pro stock with and without ultrafast, revenue (Python model values)",
        ),
        ("Payback", "cash flow, cumulative cash, NPV: live formulas on Revenue and Assumptions"),
        (
            "Tornado, Grid, Monte Carlo, Sobol",
            "which assumptions decide the answer, and how likely payback is",
        ),
        ("Checks", "Python values beside the workbook's formulas; the master check must say TRUE"),
    ]
    for k, v in guide:
        ws.write_string(row, 0, k)
        ws.write_string(row, 1, v, f("wrap"))
        row += 1
    ws.activate()


def assumptions_sheet(wb, ctx: Context) -> None:
    ws = wb.add_worksheet("Assumptions")
    f, a = ctx.f, ctx.a
    headers = ["key", "value", "unit", "source", "note", "file", "row", "origin"]
    for j, h in enumerate(headers):
        ws.write_string(0, j, h, f("h"))
    ws.freeze_panes(1, 1)
    ws.set_column(0, 0, 42)
    ws.set_column(1, 1, 18)
    ws.set_column(2, 2, 18)
    ws.set_column(3, 4, 60)
    ws.set_column(5, 7, 14)
    row = 1
    for key, value in a.values.items():
        e = a.entries[key]
        ws.write_string(row, 0, key)
        if isinstance(value, str):
            ws.write_string(row, 1, value, f("in_text"))
        else:
            ws.write_number(
                row,
                1,
                float(value),
                f("usd_in") if e.unit.startswith("USD") and abs(value) >= 1000 else f("in"),
            )
        for j, x in enumerate((e.unit, e.source, e.note, e.file, e.row, e.origin), start=2):
            write_cell(ws, row, j, x)
        ctx.refs[key] = f"Assumptions!$B${row + 1}"
        row += 1
    row += 1
    ws.write_string(row, 0, "Conventions (not inputs)", f("bold"))
    row += 1
    for key, value, unit, source in CONSTANTS:
        ws.write_string(row, 0, key)
        ws.write_number(row, 1, value)
        ws.write_string(row, 2, unit)
        ws.write_string(row, 3, source)
        ctx.refs[key] = f"Assumptions!$B${row + 1}"
        row += 1
    for key in (
        "contract.value_usd",
        "contract.term_months",
        "contract.mw",
        "finance.discount_rate_annual",
        "finance.variable_cost_share",
        "plans.pro.price_usd_month",
        "plans.plus.price_usd_month",
        "market.mau",
    ):
        wb.define_name(key.replace(".", "_"), "=" + ctx.refs[key])
    ws.autofilter(0, 0, row, len(headers) - 1)


def capacity_sheet(wb, ctx: Context) -> None:
    ws = wb.add_worksheet("Capacity")
    f, a = ctx.f, ctx.a
    ws.set_column(0, 10, 20)
    sheet_header(ws, f, "Capacity and physics: what a megawatt serves at each speed")
    row = 2
    ws.write_string(
        row,
        0,
        "Per platform and tier speed (frontier at capacity.average_utilization for cost per token)",
        f("bold"),
    )
    fmt = {
        "tokens_per_s_per_user": "num",
        "tokens_per_s_per_mw": "num",
        "concurrent_users_per_mw": "num2",
        "chips_per_replica": "num",
        "decode_ceiling_tokens_per_s": "num2",
        "cost_per_mtok_rent_usd": "num2",
        "cost_per_mtok_buy_usd": "num2",
    }
    row = write_table(ws, f, row + 1, 0, ctx.analysis["capacity_table"], fmt)
    ws.write_string(
        row,
        0,
        "Roofline audit: each tier's claimed speed against each platform's decode ceiling",
        f("bold"),
    )
    row = write_table(
        ws,
        f,
        row + 1,
        0,
        ctx.analysis["audit_table"],
        {**fmt, "claimed_tokens_per_s": "num", "claim_over_ceiling": "num2"},
    )
    ws.write_string(
        row,
        0,
        f"Agent task: {a.values['agent.calls']} sequential calls of {a.values['agent.output_tokens_per_call']:g} tokens",
        f("bold"),
    )
    row = write_table(
        ws,
        f,
        row + 1,
        0,
        ctx.analysis["agent_table"],
        {"tokens_per_s": "num", "median_s": "num2", "p99_s": "num2"},
    )
    ws.write_string(row, 0, "Frontier curves (PCHIP on log speed, log throughput)", f("bold"))
    curves = ctx.analysis["frontier_curves"]
    top = row + 1
    write_table(
        ws, f, top, 0, curves, {"tokens_per_s_per_user": "num2", "tokens_per_s_per_mw": "num"}
    )
    chart = wb.add_chart({"type": "scatter", "subtype": "smooth"})
    r0 = top + 1
    for p, grp in curves.groupby("platform", sort=False):
        n = len(grp)
        chart.add_series(
            {
                "name": p,
                "categories": ["Capacity", r0, 1, r0 + n - 1, 1],
                "values": ["Capacity", r0, 2, r0 + n - 1, 2],
            }
        )
        r0 += n
    chart.set_title({"name": "Throughput against responsiveness"})
    chart.set_x_axis({"name": "tokens/s per user", "log_base": 10})
    chart.set_y_axis({"name": "tokens/s per MW", "log_base": 10})
    chart.set_size({"width": 720, "height": 420})
    ws.insert_chart(2, 10, chart)


def costs_sheet(wb, ctx: Context) -> None:
    ws = wb.add_worksheet("Costs")
    f, a, ref = ctx.f, ctx.a, ctx.refs
    H = int(a.values["horizon.months"])
    flows = ctx.analysis["cost_flows"]
    rb = ctx.head["rent_vs_buy"]
    plat = rb["platform"]
    sheet_header(ws, f, f"Rent versus buy of {a.values['contract.mw']:g} MW of {plat}")
    tl = Timeline(ws, f, H)
    d_row = tl.formulas(
        "Discount factor",
        "-",
        lambda m, r: (
            f"(1+{ref['finance.discount_rate_annual']})^(-{tl.month_ref(m)}/{ref['constant.months_per_year']})"
        ),
        flows["discount_factor"],
        "num2",
    )
    rent_row = tl.formulas(
        "Rent (take-or-pay)",
        "USD",
        lambda m, r: (
            f"IF({tl.month_ref(m)}<={ref['contract.term_months']},{ref['contract.value_usd']}/{ref['contract.term_months']},0)"
        ),
        flows["rent_usd"],
        "usd",
    )
    tl.section("Buying the same capacity")
    hw = f"hardware.{plat}"
    sys_row = tl.next
    ws.write_string(sys_row, 0, "Systems")
    ws.write_string(sys_row, 1, "systems")
    systems = (
        f"{ref['contract.mw']}*{ref['constant.kw_per_mw']}/{ref['buy.pue']}/{ref[hw + '.power_kw']}"
    )
    write_formula(ws, sys_row, 2, "=" + systems, rb["systems"], f("num"))
    sys_cell = f"Costs!$C${sys_row + 1}"
    tl.next += 1
    capex_row = tl.next
    ws.write_string(capex_row, 0, "Capex at month 0")
    ws.write_string(capex_row, 1, "USD")
    write_formula(
        ws,
        capex_row,
        2,
        f"={sys_cell}*{ref[hw + '.price_usd']}+{ref['contract.mw']}*{ref['buy.facility_capex_usd_per_mw']}",
        rb["buy_capex_usd"],
        f("usd"),
    )
    capex_cell = f"Costs!$C${capex_row + 1}"
    tl.next += 1
    opex_row = tl.formulas(
        "Opex (power and maintenance)",
        "USD",
        lambda m, r: (
            f"{ref['contract.mw']}*{ref['constant.kw_per_mw']}*{ref['constant.hours_per_month']}*{ref['buy.power_price_usd_per_kwh']}"
            f"+{ref['buy.maintenance_share_annual']}/{ref['constant.months_per_year']}*{sys_cell}*{ref[hw + '.price_usd']}"
        ),
        flows["buy_opex_usd"],
        "usd",
    )
    resid_row = tl.formulas(
        "Residual value at the horizon",
        "USD",
        lambda m, r: (
            f"IF({tl.month_ref(m)}={ref['horizon.months']},"
            f"{sys_cell}*{ref[hw + '.price_usd']}*MAX(0,1-{ref['horizon.months']}/({ref['constant.months_per_year']}*{ref[hw + '.life_years']}))*{ref['buy.resale_share']}"
            f"+{ref['contract.mw']}*{ref['buy.facility_capex_usd_per_mw']}*MAX(0,1-{ref['horizon.months']}/({ref['constant.months_per_year']}*{ref['buy.facility_life_years']})),0)"
        ),
        flows["buy_residual_usd"],
        "usd",
    )
    tl.section("Present values")
    out = [
        (
            "NPV of rent",
            "USD",
            f"SUMPRODUCT({tl.span(rent_row)},{tl.span(d_row)})",
            rb["rent_npv_usd"],
            "usd",
        ),
        (
            "NPV of buying",
            "USD",
            f"{capex_cell}+SUMPRODUCT({tl.span(opex_row)},{tl.span(d_row)})-SUMPRODUCT({tl.span(resid_row)},{tl.span(d_row)})",
            rb["buy_npv_usd"],
            "usd",
        ),
        (
            "Rent per MW-month",
            "USD/MW-month",
            f"{ref['contract.value_usd']}/({ref['contract.mw']}*{ref['contract.term_months']})",
            rb["rent_usd_per_mw_month"],
            "usd",
        ),
    ]
    for label, unit, formula, value, fmt in out:
        r = tl.next
        ws.write_string(r, 0, label)
        ws.write_string(r, 1, unit)
        write_formula(ws, r, 2, "=" + formula, value, f(fmt))
        ctx.rows[f"costs.{label}"] = f"Costs!$C${r + 1}"
        tl.next += 1
    for label, unit, value, fmt in (
        (
            "Buy per MW-month (levelised over the horizon)",
            "USD/MW-month",
            rb["buy_usd_per_mw_month"],
            "usd",
        ),
        (
            "System price at which buying equals renting",
            "USD",
            rb["breakeven_system_price_usd"],
            "usd",
        ),
    ):
        r = tl.next
        ws.write_string(r, 0, label)
        ws.write_string(r, 1, unit)
        write_cell(ws, r, 2, value, f(fmt))
        if value is None:
            ws.write_string(r, 3, rb["breakeven_note"])
        tl.next += 1
    ctx.rows["costs.rent"] = tl.span(rent_row)
    ctx.rows["costs.discount"] = tl.span(d_row)
    ctx.rows["costs.rent_row"] = rent_row
    ctx.rows["costs.d_row"] = d_row
    ctx.checks.append(("NPV of rent [USD]", rb["rent_npv_usd"], ctx.rows["costs.NPV of rent"]))
    ctx.checks.append(("NPV of buying [USD]", rb["buy_npv_usd"], ctx.rows["costs.NPV of buying"]))
    tl.next += 1
    ws.write_string(
        tl.next, 0, "Cost per million tokens (see Capacity for every platform)", f("bold")
    )
    cpt = ctx.analysis["capacity_table"][
        [
            "platform",
            "tier",
            "tokens_per_s_per_user",
            "cost_per_mtok_rent_usd",
            "cost_per_mtok_buy_usd",
        ]
    ]
    write_table(
        ws,
        f,
        tl.next + 1,
        0,
        cpt,
        {
            "tokens_per_s_per_user": "num",
            "cost_per_mtok_rent_usd": "num2",
            "cost_per_mtok_buy_usd": "num2",
        },
    )


def revenue_sheet(wb, ctx: Context) -> None:
    """Capacity, users, quota burn, Pro stocks and revenue by month, all live formulas."""
    ws = wb.add_worksheet("Revenue")
    f, a, r, ref = ctx.f, ctx.a, ctx.r, ctx.refs
    parts = r.parts
    H = int(a.values["horizon.months"])
    sheet_header(
        ws,
        f,
        "Revenue: quota burn, Pro conversion and the API (live formulas)",
        "Edit the inputs on Assumptions and these rows recompute; the frontier throughput is interpolated "
        "by econ (rerun `econ report` after changing frontier.csv or a tier speed).",
    )
    # scalars above the timeline
    ws.write_string(3, 0, "Scalars", f("bold"))
    thr_cell, fac = "Revenue!$C$5", {}
    ws.write_string(4, 0, "Throughput per MW at the ultrafast speed (PCHIP of frontier.csv)")
    ws.write_string(4, 1, "tokens/s/MW")
    write_cell(ws, 4, 2, float(r.throughput_per_mw[0]), f("num"))
    for k, tier in enumerate(("standard", "fast", "ultrafast")):
        row = 5 + k
        ws.write_string(row, 0, f"Consumption factor f, {tier}")
        ws.write_string(row, 1, "quota units/token")
        formula = (
            f"={ref[f'tiers.{tier}.usage_multiplier']}*({ref[f'tiers.{tier}.tokens_per_s']}"
            f"/{ref['tiers.standard.tokens_per_s']})^{ref['usage.speed_elasticity']}"
        )
        write_formula(ws, row, 2, formula, float(parts[f"factor.{tier}"][0]), f("num2"))
        fac[tier] = f"Revenue!$C${row + 1}"

    tl = Timeline(ws, f, H, header_row=9)
    ctx.rows["revenue.timeline"] = tl
    layout = [
        ("Capacity", None, None, None),
        ("online", "Share of contracted capacity online", "share", "pct"),
        ("streams", "Contract streams C_t", "streams", "num"),
        ("api_tokens", "API ultrafast tokens V_t", "tokens", "num"),
        ("api_streams", "API streams S_api,t", "streams", "num"),
        ("Users", None, None, None),
        ("pool", "Plus users N_plus,t", "users", "num"),
        ("eligible", "Eligible users E_t = N_plus,t + P_(t-1)", "users", "num"),
        ("adoption", "Ultrafast adoption a_u,t", "share", "pct"),
        ("util", "Capacity utilisation", "share", "pct"),
        ("Quota", None, None, None),
        ("eff", "Token efficiency e_t", "-", "num2"),
        ("plus_std", "Plus cap-hit share on standard", "share", "pct"),
        ("plus_fast", "Plus cap-hit share on fast", "share", "pct"),
        ("plus_ultra", "Plus cap-hit share on ultrafast", "share", "pct"),
        ("h", "Plus cap-hit share, with ultrafast", "share", "pct"),
        ("h0", "Plus cap-hit share, without ultrafast", "share", "pct"),
        ("pro_std", "Pro cap-hit share on standard", "share", "pct"),
        ("pro_fast", "Pro cap-hit share on fast", "share", "pct"),
        ("pro_ultra", "Pro cap-hit share on ultrafast", "share", "pct"),
        ("pro_h", "Pro cap-hit share, with ultrafast", "share", "pct"),
        ("Subscribers", None, None, None),
        ("P", "Pro subscribers, with ultrafast", "users", "num"),
        ("P0", "Pro subscribers, without ultrafast", "users", "num"),
        ("dP", "Incremental Pro subscribers", "users", "num"),
        ("Revenue", None, None, None),
        ("sub", "Subscription revenue (Pro minus Plus)", "USD", "usd"),
        ("api_rev", "API revenue", "USD", "usd"),
    ]
    rows: dict[str, int] = {}
    nxt = tl.next
    for key, _label, unit, _fmt in layout:
        nxt += 2 if unit is None else 0  # a section title takes a blank row and its own
        if unit is not None:
            rows[key] = nxt
            nxt += 1

    def R(name: str, m: int) -> str:
        return tl.ref(rows[name], m)

    def sf(plan: str, tier: str, m: int) -> str:
        q, med = ref[f"plans.{plan}.weekly_quota_tokens"], ref[f"plans.{plan}.median_weekly_tokens"]
        return f"1-NORMSDIST(LN({q}/({med}*{R('eff', m)}*{fac[tier]}))/{ref['usage.demand_sigma']})"

    T, af = ref["contract.term_months"], ref["tiers.fast.adoption"]
    M = tl.month_ref

    def mix(prefix: str, m: int) -> str:
        return (
            f"(1-{af}-{R('adoption', m)})*{R(prefix + '_std', m)}+{af}*{R(prefix + '_fast', m)}"
            f"+{R('adoption', m)}*{R(prefix + '_ultra', m)}"
        )

    def stock(name: str, hit: str, m: int) -> str:
        prev = ref["market.pro_subscribers_start"] if m == 1 else R(name, m - 1)
        return (
            f"{prev}*(1-{ref['conversion.pro_churn_monthly']})+({ref['conversion.plus_to_pro_base_monthly']}"
            f"+{ref['conversion.capped_upgrade_propensity']}*{R(hit, m)})*{R('pool', m)}"
        )

    formulas = {
        "online": lambda m: (
            f"IF({M(m)}<={T},IF({ref['contract.ramp_months']}>0,MIN(1,{M(m)}/{ref['contract.ramp_months']}),1),0)"
        ),
        "streams": lambda m: (
            f"{ref['contract.mw']}*{R('online', m)}*{thr_cell}/{ref['tiers.ultrafast.tokens_per_s']}"
        ),
        "api_tokens": lambda m: f"{ref['api.ultrafast_tokens_per_month']}*{R('online', m)}",
        "api_streams": lambda m: (
            f"{R('api_tokens', m)}/({ref['tiers.ultrafast.tokens_per_s']}*{ref['constant.seconds_per_month']})"
        ),
        "pool": lambda m: (
            f"{ref['market.mau']}*{ref['market.plus_share_of_mau']}*(1+{ref['market.mau_growth_monthly']})^({M(m)}-1)"
        ),
        "eligible": lambda m: (
            f"{R('pool', m)}+" + (ref["market.pro_subscribers_start"] if m == 1 else R("P", m - 1))
        ),
        "adoption": lambda m: (
            f"IF({M(m)}<={T},IF({ref['usage.peak_concurrency']}*{R('eligible', m)}>0,"
            f"MIN({ref['tiers.ultrafast.adoption']},MAX(0,{R('streams', m)}-{R('api_streams', m)})"
            f"/({ref['usage.peak_concurrency']}*{R('eligible', m)})),{ref['tiers.ultrafast.adoption']}),0)"
        ),
        "util": lambda m: (
            f"IF({R('streams', m)}>0,({R('api_streams', m)}+{ref['usage.peak_concurrency']}*{R('adoption', m)}"
            f'*{R("eligible", m)})/{R("streams", m)},"")'
        ),
        "eff": lambda m: (
            f"(1-{ref['usage.token_efficiency_gain_annual']})^(({M(m)}-1)/{ref['constant.months_per_year']})"
        ),
        "plus_std": lambda m: sf("plus", "standard", m),
        "plus_fast": lambda m: sf("plus", "fast", m),
        "plus_ultra": lambda m: sf("plus", "ultrafast", m),
        "h": lambda m: mix("plus", m),
        "h0": lambda m: f"(1-{af})*{R('plus_std', m)}+{af}*{R('plus_fast', m)}",
        "pro_std": lambda m: sf("pro", "standard", m),
        "pro_fast": lambda m: sf("pro", "fast", m),
        "pro_ultra": lambda m: sf("pro", "ultrafast", m),
        "pro_h": lambda m: mix("pro", m),
        "P": lambda m: stock("P", "h", m),
        "P0": lambda m: stock("P0", "h0", m),
        "dP": lambda m: f"{R('P', m)}-{R('P0', m)}",
        "sub": lambda m: (
            f"{R('dP', m)}*({ref['plans.pro.price_usd_month']}-{ref['plans.plus.price_usd_month']})"
        ),
        "api_rev": lambda m: (
            f"{R('api_tokens', m)}*{ref['tiers.ultrafast.price_per_mtok_usd']}/{ref['constant.tokens_per_million']}"
        ),
    }
    values = {
        "online": parts["online_share"][0],
        "streams": r.streams[0],
        "api_tokens": r.api_tokens[0],
        "api_streams": r.api_streams[0],
        "pool": parts["plus_pool"][0],
        "eligible": r.eligible[0],
        "adoption": r.ultrafast_adoption[0],
        "util": r.capacity_utilization[0],
        "eff": parts["token_efficiency"][0],
        "plus_std": parts["plus_hit.standard"][0],
        "plus_fast": parts["plus_hit.fast"][0],
        "plus_ultra": parts["plus_hit.ultrafast"][0],
        "h": r.plus_cap_hit[0],
        "h0": r.plus_cap_hit_counterfactual[0],
        "pro_std": parts["pro_hit.standard"][0],
        "pro_fast": parts["pro_hit.fast"][0],
        "pro_ultra": parts["pro_hit.ultrafast"][0],
        "pro_h": r.pro_cap_hit[0],
        "P": r.pro[0],
        "P0": r.pro_counterfactual[0],
        "dP": r.incremental_pro[0],
        "sub": r.subscription_revenue[0],
        "api_rev": r.api_revenue[0],
    }
    for key, label, unit, fmt in layout:
        if unit is None:
            tl.section(key)
            continue
        if tl.next != rows[key]:  # the planned layout and the written one must agree
            raise RuntimeError(
                f"Revenue sheet layout: {key} planned at row {rows[key]}, written at {tl.next}"
            )
        tl.formulas(label, unit, lambda m, _row, k=key: formulas[k](m), values[key], fmt)
    ctx.rows["revenue.Subscription revenue (Pro minus Plus)"] = rows["sub"]
    ctx.rows["revenue.API revenue"] = rows["api_rev"]
    for name, key in (
        ("Incremental Pro subscribers in the last month", "dP"),
        ("Plus cap-hit share in month 1, with ultrafast", "h"),
    ):
        m = H if key == "dP" else 1
        ctx.checks.append((name, float(values[key][m - 1]), f"Revenue!{tl.ref(rows[key], m)}"))


def payback_sheet(wb, ctx: Context) -> None:
    ws = wb.add_worksheet("Payback")
    f, a, r, ref = ctx.f, ctx.a, ctx.r, ctx.refs
    H = int(a.values["horizon.months"])
    sheet_header(ws, f, "Payback: net cash flow, cumulative cash, NPV (live formulas)")
    tl = Timeline(ws, f, H)
    rev_tl: Timeline = ctx.rows["revenue.timeline"]
    sub_r, api_r = (
        ctx.rows["revenue.Subscription revenue (Pro minus Plus)"],
        ctx.rows["revenue.API revenue"],
    )
    rev_row = tl.formulas(
        "Incremental revenue",
        "USD",
        lambda m, _: f"Revenue!{rev_tl.ref(sub_r, m)}+Revenue!{rev_tl.ref(api_r, m)}",
        r.revenue[0],
        "usd",
    )
    rent_row = tl.formulas(
        "Rent",
        "USD",
        lambda m, _: f"Costs!{tl.ref(ctx.rows['costs.rent_row'], m)}",
        r.rent[0],
        "usd",
    )
    cf_row = tl.formulas(
        "Net cash flow",
        "USD",
        lambda m, row: (
            f"{tl.ref(rev_row, m)}*(1-{ref['finance.variable_cost_share']})-{tl.ref(rent_row, m)}"
        ),
        r.net_cash_flow[0],
        "usd",
    )
    cum_row = tl.formulas(
        "Cumulative cash",
        "USD",
        lambda m, row: tl.ref(cf_row, m) if m == 1 else f"{tl.ref(row, m - 1)}+{tl.ref(cf_row, m)}",
        r.cumulative_cash[0],
        "usd",
    )
    d_row = tl.formulas(
        "Discount factor",
        "-",
        lambda m, _: f"Costs!{tl.ref(ctx.rows['costs.d_row'], m)}",
        r.discount[0],
        "num2",
    )
    dcf = r.discounted_cash_flow[0]
    dcf_row = tl.formulas(
        "Discounted net cash flow",
        "USD",
        lambda m, _: f"{tl.ref(cf_row, m)}*{tl.ref(d_row, m)}",
        dcf,
        "usd",
    )
    cumd_row = tl.formulas(
        "Cumulative discounted cash",
        "USD",
        lambda m, row: (
            tl.ref(dcf_row, m) if m == 1 else f"{tl.ref(row, m - 1)}+{tl.ref(dcf_row, m)}"
        ),
        r.cumulative_discounted_cash[0],
        "usd",
    )

    def crossing(cum: int, flow: int):
        # (t - 1) + (-K_(t-1)) / CF_t where K_(t-1) < 0 <= K_t; K_0 = 0
        def make(m: int, _row: int) -> str:
            prev = "0" if m == 1 else tl.ref(cum, m - 1)
            return f'IF(AND({prev}<0,{tl.ref(cum, m)}>=0),({tl.month_ref(m)}-1)-{prev}/{tl.ref(flow, m)},"")'

        return make

    cross_row = tl.formulas(
        "Payback crossing (the first is the payback month)",
        "month",
        crossing(cum_row, cf_row),
        crossing_months(r.net_cash_flow[:1])[0],
        "num2",
    )
    dcross_row = tl.formulas(
        "Discounted payback crossing",
        "month",
        crossing(cumd_row, dcf_row),
        crossing_months(r.discounted_cash_flow[:1])[0],
        "num2",
    )
    tl.section("Results")
    h = ctx.head
    results = [
        ("NPV", "USD", f"=SUM({tl.span(dcf_row)})", h["npv_usd"], "usd", "npv_usd"),
        (
            "Cumulative cash at the horizon",
            "USD",
            f"={tl.ref(cum_row, H)}",
            float(r.cumulative_cash[0, -1]),
            "usd",
            None,
        ),
        (
            "Pro users to pay the contract (articles)",
            "users",
            f"={ref['contract.value_usd']}/({ref['plans.pro.price_usd_month']}*{ref['contract.term_months']})",
            h["simple_breakeven_pro_users"],
            "num",
            "simple_breakeven_pro_users",
        ),
        (
            "... as a share of MAU",
            "share",
            f"={ref['contract.value_usd']}/({ref['plans.pro.price_usd_month']}*{ref['contract.term_months']})/{ref['market.mau']}",
            h["simple_breakeven_share_of_mau"],
            "pct3",
            "simple_breakeven_share_of_mau",
        ),
    ]
    for label, unit, formula, value, fmt, key in results:
        row = tl.next
        ws.write_string(row, 0, label)
        ws.write_string(row, 1, unit)
        write_formula(ws, row, 2, formula, value, f(fmt))
        cell = f"Payback!$C${row + 1}"
        if key:
            ctx.rows[f"headline.{key}"] = cell
        ctx.checks.append((f"{label} [{unit}]", value, cell))
        tl.next += 1
    for label, key, cum, cross in (
        ("Payback month", "payback_months", cum_row, cross_row),
        ("Discounted payback month", "discounted_payback_months", cumd_row, dcross_row),
    ):
        row = tl.next
        ws.write_string(row, 0, label)
        ws.write_string(row, 1, "month")
        formula = f'=IF(MIN({tl.span(cum)})>=0,0,IF(COUNT({tl.span(cross)})=0,"none",MIN({tl.span(cross)})))'
        value = h[key]
        write_formula(ws, row, 2, formula, "none" if value is None else value, f("num2"))
        ctx.rows[f"headline.{key}"] = f"Payback!$C${row + 1}"
        if value is not None:
            ctx.checks.append((f"{label} [month]", value, f"Payback!$C${row + 1}"))
        tl.next += 1
    row = tl.next
    ws.write_string(row, 0, "Shortfall at the horizon")
    ws.write_string(row, 1, "USD")
    write_formula(ws, row, 2, f"=MAX(0,-{tl.ref(cum_row, H)})", h["shortfall_usd"], f("usd"))
    ctx.rows["headline.shortfall_usd"] = f"Payback!$C${row + 1}"
    ctx.checks.append(
        ("Shortfall at the horizon [USD]", h["shortfall_usd"], f"Payback!$C${row + 1}")
    )
    tl.next += 1
    row = tl.next
    ws.write_string(row, 0, "IRR (annualised)")
    ws.write_string(row, 1, "1/yr")
    write_cell(ws, row, 2, h["irr_annual"], f("pct"))
    ws.write_string(
        row,
        3,
        "econ's IRR: the monthly root nearest zero, annualised (a value: rerun econ report after edits)"
        if h["irr_annual"] is not None
        else "undefined: the flows do not change sign",
        f("note"),
    )
    tl.next += 1
    chart = wb.add_chart({"type": "line"})
    chart.add_series(
        {
            "name": "Cumulative cash",
            "categories": ["Payback", tl.month_row, 2, tl.month_row, 1 + H],
            "values": ["Payback", cum_row, 2, cum_row, 1 + H],
            "line": {"color": "#1F4E79", "width": 2.25},
        }
    )
    chart.set_title({"name": "Cumulative cash (payback curve)"})
    chart.set_x_axis({"name": "month", "label_position": "low"})
    chart.set_y_axis({"name": "USD", "num_format": '$#,##0,,,"B"'})
    chart.set_legend({"none": True})
    chart.set_size({"width": 760, "height": 360})
    ws.insert_chart(tl.next + 2, 0, chart)


def checks_sheet(wb, ctx: Context) -> None:
    ws = wb.add_worksheet("Checks")
    f = ctx.f
    ws.set_column(0, 0, 46)
    ws.set_column(1, 3, 20)
    sheet_header(ws, f, "Checks: the Python model's values beside the workbook's formulas")
    ws.write_string(1, 0, "Relative tolerance")
    ws.write_number(1, 1, 1e-9, f("in"))
    for j, h in enumerate(
        ("figure", "Python value", "workbook value", "relative difference", "ok")
    ):
        ws.write_string(2, j, h, f("h"))
    row = 3
    for label, value, cell in ctx.checks:
        ws.write_string(row, 0, label)
        write_cell(ws, row, 1, value, f("num2"))
        write_formula(ws, row, 2, f"={cell}", value, f("num2"))
        write_formula(ws, row, 3, f"=(C{row + 1}-B{row + 1})/MAX(1,ABS(B{row + 1}))", 0.0, f("g"))
        write_formula(ws, row, 4, f"=ABS(D{row + 1})<=$B$2", True)
        row += 1
    row += 1
    ws.write_string(row, 0, "Master check (every figure agrees)", f("bold"))
    write_formula(ws, row, 4, f"=AND(E4:E{row - 1})", True, f("ok"))
    ctx.rows["checks.master"] = f"Checks!$E${row + 1}"
    ws.freeze_panes(3, 1)


def tables_for(a: Assumptions) -> dict[str, pd.DataFrame]:
    return {
        "capacity_table": tables.capacity_table(a),
        "audit_table": tables.audit_table(a),
        "agent_table": tables.agent_table(a),
        "frontier_curves": tables.frontier_curves(a),
        "cost_flows": tables.cost_flows(a),
    }
