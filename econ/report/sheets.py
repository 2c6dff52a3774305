"""The workbook payback_analysis.xlsx, in FAST order: Cover, Assumptions, Tables, Capacity,
Costs, Revenue, Payback, the analysis sheets, Checks (and hidden Run and Run tables sheets
with the inputs' values in the econ run). docs/model.md, section 8, says what is live and
what is a snapshot."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from xlsxwriter.utility import xl_col_to_name, xl_rowcol_to_cell

from econ import __version__
from econ.assumptions import Assumptions, path_text
from econ.headline import report_tables
from econ.model import Results
from econ.report import capacity_sheet, chain, inputs
from econ.report.summary import cover_sentences
from econ.report.workbook import QUESTION, new_workbook, write_cell, write_formula
from econ.report.xl import FIRST_COL, Book, Styles, banner, excel_name, print_setup

ANALYSIS_SHEETS = ("Tornado", "Grid", "Monte Carlo", "MC samples", "Sobol", "Break-even")
CHANGED_FLAG = "'Checks'!$C$3"  # where the "inputs changed since the run" flag lives


def sheet_order(analysis: dict) -> list[str]:
    names = ["Cover", "Assumptions", "Tables", "Capacity", "Costs", "Revenue", "Payback"]
    if "tornado" in analysis:
        names.append("Tornado")
    if "grids" in analysis and len(analysis["grids"]):
        names.append("Grid")
    if "mc_stats" in analysis:
        names += ["Monte Carlo", "MC samples"]
    if "sobol" in analysis:
        names.append("Sobol")
    if "breakeven" in analysis:
        names.append("Break-even")
    if "explain" in analysis:
        names.append("Explain")
    return [*names, "Checks", "Run", "Run tables"]


def build(
    path: Path, a: Assumptions, r: Results, head: dict, analysis: dict | None, run_info: dict
) -> None:
    """Write the whole workbook to ``path`` (a temporary file; the caller puts it in place)."""
    analysis = dict(analysis or {})
    if "rent_vs_buy" not in analysis:
        analysis.update(report_tables(a, head))
    wb = new_workbook(path)
    run_time = run_info.get("time", dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
    book = Book(wb, Styles(wb), run_time, a.scenario)
    ws = {name: wb.add_worksheet(name) for name in sheet_order(analysis)}
    book.name("inputs_changed_since_run", CHANGED_FLAG)

    changed = inputs.assumptions_sheet(book, ws["Assumptions"], ws["Run"], a)
    inputs.tables_sheet(book, ws["Tables"], ws["Run tables"], a, changed, ws["Assumptions"])
    next_row = capacity_sheet.contract_platform_block(book, ws["Capacity"], a, r)
    timelines = [
        chain.revenue_sheet(book, ws["Revenue"], a, r),
        chain.costs_sheet(book, ws["Costs"], a, r, analysis),
        chain.payback_sheet(book, ws["Payback"], a, r, head),
    ]
    for tl in timelines:
        tl.flush()
    H = int(a.values["horizon.months"])
    areas = {}
    for tl in timelines:  # the months across as many pages as they need; results narrow
        end = (tl.narrow_from - 1) if tl.narrow_from is not None else tl.next
        sheet = f"'{tl.sheet}'!"
        areas[tl.sheet] = [f"{sheet}$A$1:{xl_rowcol_to_cell(end, FIRST_COL + H, True, True)}"]
        if tl.narrow_from is not None:
            areas[tl.sheet].append(f"{sheet}$A${tl.narrow_from + 1}:$C${tl.next}")
    payback = timelines[2]
    _payback_chart(book, ws["Payback"], payback, a)
    areas["Payback"].append(f"'Payback'!$A${payback.next + 2}:$I${payback.next + 24}")
    payback.next += 25
    for tl in timelines:
        tl.next += 1
        for solver in tl.solvers:
            chain.irr_solver(book, tl, *solver)
    capacity_sheet.snapshot_block(book, ws["Capacity"], next_row, a, analysis)

    from econ.report import analysis_sheets

    analysis_sheets.write_all(book, ws, a, analysis)
    if "explain" in analysis:
        from econ.explain import write_sheet

        write_sheet(book, ws["Explain"], analysis["explain"])
    checks_sheet(book, ws["Checks"], a, head)
    cover_sheet(book, ws["Cover"], a, head, run_info)
    ws["Run"].hide()
    ws["Run tables"].hide()
    for name, sheet in ws.items():
        if name.startswith("Run"):
            continue
        if name in areas:
            print_setup(sheet, book, "timeline")
            # several ranges (XlsxWriter's print_area takes one): the sheet's own Print_Area name
            wb.define_name(f"'{name}'!_xlnm.Print_Area", "=" + ",".join(areas[name]))
        elif name == "Assumptions":
            # the "changed since the run" flags (column G) are for the screen
            end = book.cells["assumptions_print_end"]
            print_setup(sheet, book, "wide", area=f"A1:F{end + 1}")
        elif name == "Capacity":
            print_setup(sheet, book, "wide", area=f"A1:T{book.cells['capacity_print_end'] + 1}")
            sheet.repeat_columns(0)
            sheet.set_h_pagebreaks([book.cells["capacity_chart_row"]])
        elif name == "Tables":
            print_setup(sheet, book, "wide")
            sheet.repeat_columns(0)  # the row ids beside the sources printed on later pages
        elif name in book.cells.get("page_breaks", {}):
            print_setup(sheet, book, "fit", area=_used_area(sheet))
            sheet.set_h_pagebreaks(book.cells["page_breaks"][name])
        else:
            print_setup(sheet, book, "narrow" if name in ("Cover", "Checks") else "wide")
    for tl in timelines:
        if tl.breaks:
            ws[tl.sheet].set_h_pagebreaks(tl.breaks)
    wb.close()


def _payback_chart(book: Book, ws, tl, a: Assumptions) -> None:
    H = int(a.values["horizon.months"])
    chart = book.wb.add_chart({"type": "line"})
    for name, label, color, dash in (
        ("payback.cum", "Cumulative cash", "#1F4E79", "solid"),
        ("payback.dcum", "Cumulative discounted cash", "#2E75B6", "dash"),
    ):
        row = book.rows[name].row
        chart.add_series(
            {
                "name": label,
                "categories": ["Payback", tl.header, FIRST_COL, tl.header, FIRST_COL + H],
                "values": ["Payback", row, FIRST_COL, row, FIRST_COL + H],
                "line": {"color": color, "width": 2.25, "dash_type": dash},
            }
        )
    chart.set_title(
        {
            "name": f"Payback curve: cumulative cash by month (live; months 0 to {H}, the run's horizon)"
        }
    )
    chart.set_x_axis({"name": "month", "label_position": "low", "interval_unit": 6})
    chart.set_y_axis({"name": "USD", "num_format": '$#,##0.0,,,"B"'})
    chart.set_legend({"position": "bottom"})
    chart.set_size({"width": 900, "height": 380})
    ws.insert_chart(tl.next + 2, 0, chart)


CHART_PX_PER_COLUMN = 100  # a chart's width in columns, at about the analysis sheets' widths


def _used_area(sheet) -> str:
    """The cells and charts of a sheet, as a print range: long notes that run on to the
    right of their cell would otherwise widen the page that 'fit to width' scales."""
    last_col = sheet.dim_colmax or 0
    for _row, col, chart, *_ in sheet.charts:
        last_col = max(last_col, col + -(-chart.width // CHART_PX_PER_COLUMN))
    return f"A1:{xl_col_to_name(last_col)}{(sheet.dim_rowmax or 0) + 1}"


def checks_sheet(book: Book, ws, a: Assumptions, head: dict) -> None:
    s = book.styles
    ws.set_column(0, 0, 70)
    ws.set_column(1, 4, 18)
    ws.write_string(
        0, 0, "Checks: integrity of the live model, and its match with the econ run", s("title")
    )
    ws.write_string(
        2, 0, "Inputs changed since the run (Assumptions differs from the run's values)", s("bold")
    )
    write_formula(ws, 2, 2, "=inputs_changed_count>0", False, s("bold"))
    rows = book.rows
    span = lambda name, first=1: rows[name].span(first)  # noqa: E731
    tol = "constant_check_tolerance"
    H, T = excel_name("horizon.months"), excel_name("contract.term_months")
    n = lambda key: excel_name(key)  # noqa: E731
    integrity = [
        (
            "Total rent equals the contract value",
            f"ABS(SUM({span('costs.rent')})-{n('contract.value_usd')})<={tol}*{n('contract.value_usd')}",
        ),
        (
            "Cumulative cash at the horizon equals the sum of the cash flows",
            f"ABS(cumulative_cash_at_horizon_usd-SUM({span('payback.cf')}))<={tol}*MAX(1,ABS(cumulative_cash_at_horizon_usd))",
        ),
        (
            "The streams' present values (Payback, bridge) sum to the NPV",
            f"ABS(bridge_npv_usd-npv_usd)<={tol}*MAX(1,ABS(npv_usd),bridge_rent_usd*-1)",
        ),
        (
            "Utilisation never above 1 / peak-to-average (the capacity is sized for the peaks)",
            f"MAX({span('revenue.util')})<=(1+{tol})/{n('usage.peak_to_average')}",
        ),
        (
            "MW online never above the contracted MW",
            f"MAX({span('revenue.mw')})<={n('contract.mw')}*(1+{tol})",
        ),
        (
            "Adoption, cap-hit and spare shares within [0, 1]",
            f"AND(MIN({span('revenue.adoption')})>=0,MAX({span('revenue.adoption')})<=1,MIN({span('revenue.h')})>=0,MAX({span('revenue.h')})<=1,MIN({span('revenue.spare')})>=0,MAX({span('revenue.spare')})<=1)",
        ),
        (
            "Never more Pro subscribers than monthly active users",
            f"SUMPRODUCT(--({span('revenue.pro')}>{n('market.mau')}*EXP(({_months_span('Revenue', book)}-1)*LN(1+{n('market.mau_growth_monthly')}))))=0",
        ),
        (
            "API tokens served never above the tokens wanted",
            f"SUMPRODUCT(--({span('revenue.api_served')}>{span('revenue.api_wanted')}*(1+{tol})))=0",
        ),
        (
            "Horizon a whole number of months from the term to the timeline's end",
            f"AND({H}=INT({H}),{H}>={T},{H}<=constant_horizon_max_months)",
        ),
        (
            "Fast plus ultrafast adoption at most 1",
            f"{n('tiers.fast.adoption')}+{n('tiers.ultrafast.adoption')}<=1",
        ),
        (
            "Tier speeds rise standard <= fast <= ultrafast",
            f"AND({n('tiers.standard.tokens_per_s')}<={n('tiers.fast.tokens_per_s')},{n('tiers.fast.tokens_per_s')}<={n('tiers.ultrafast.tokens_per_s')})",
        ),
        (
            "The contract platform's curve covers the ultrafast and standard speeds (data basis)",
            f'OR({n("capacity.basis")}="physics",AND(cap_covers_ultrafast,cap_covers_standard))',
        ),
        ("Frontier speeds rise within each platform", _frontier_check(book, "speed")),
        ("Frontier throughput does not rise with speed", _frontier_check(book, "throughput")),
        (
            "Monthly probabilities at most 1 (base + propensity, churn + extra churn)",
            f"AND({n('conversion.plus_to_pro_base_monthly')}+{n('conversion.capped_upgrade_propensity')}<=1,{n('conversion.pro_churn_monthly')}+{n('conversion.extra_churn_after_term_monthly')}<=1)",
        ),
    ]
    row = 4
    ws.write_string(
        row, 0, "Integrity of the live model (hold after any edit of the inputs)", s("section")
    )
    row += 1
    for j, h in enumerate(("check", "", "holds")):
        ws.write_string(row, j, h, s("h"))
    first = row + 1
    for label, formula in integrity:
        row += 1
        ws.write_string(row, 0, label, s("label"))
        write_formula(ws, row, 2, "=" + formula, True)
    last = row
    row += 1
    ws.write_string(row, 0, "Every integrity check holds", s("bold"))
    write_formula(ws, row, 2, f"=AND(C{first + 1}:C{last + 1})", True, s("bold"))
    book.name("integrity_ok", f"'Checks'!$C${row + 1}")
    _true_false_colours(book, ws, first, row, 2)
    row += 3
    ws.write_string(
        row,
        0,
        "Physical plausibility of the contract platform (findings of the live model, not "
        "integrity: FALSE says the answer rests on figures the physics does not support)",
        s("section"),
    )
    plausible = [
        (
            "The ultrafast speed is within the per-user ceiling for the served model",
            f"{n('tiers.ultrafast.tokens_per_s')}<=phys_ceiling",
        ),
        (
            "The throughput that feeds the money at the ultrafast speed is within the physics envelope",
            f"thr_ultrafast<=phys_envelope_ultrafast*(1+{tol})",
        ),
        (
            "... and at the standard speed (the backfill)",
            f"thr_standard<=phys_envelope_standard*(1+{tol})",
        ),
    ]
    row += 1
    p_first = row + 1
    for (label, formula), value in zip(plausible, _plausibility_values(a, head), strict=True):
        row += 1
        ws.write_string(row, 0, label, s("label"))
        write_formula(ws, row, 2, "=" + formula, value)
    _true_false_colours(book, ws, p_first, row, 2)
    row += 3
    ws.write_string(
        row,
        0,
        "Matches the econ run (valid while no input has changed since the run)",
        s("section"),
    )
    row += 1
    for j, h in enumerate(("figure", "econ run", "workbook", "difference", "matches")):
        ws.write_string(row, j, h, s("h"))
    first = row + 1
    for label, value, name, fmt in book.matches:
        row += 1
        ws.write_string(row, 0, label, s("label"))
        write_cell(ws, row, 1, "" if value is None else value, s(fmt))
        write_formula(ws, row, 2, f"={name}", "" if value is None else value, s(fmt))
        diff = f'IF(AND(ISNUMBER(B{row + 1}),ISNUMBER(C{row + 1})),(C{row + 1}-B{row + 1})/MAX(1,ABS(B{row + 1})),IF(AND(B{row + 1}="",C{row + 1}=""),0,1))'
        write_formula(ws, row, 3, "=" + diff, 0.0, s("sci"))
        write_formula(ws, row, 4, f"=ABS(D{row + 1})<=constant_match_tolerance", True)
    last = row
    row += 1
    ws.write_string(
        row, 0, "The workbook matches the econ run (n/a once an input changed)", s("bold")
    )
    write_formula(
        ws,
        row,
        4,
        f'=IF(inputs_changed_since_run,"n/a: inputs changed",AND(E{first + 1}:E{last + 1}))',
        True,
        s("bold"),
    )
    book.name("matches_run", f"'Checks'!$E${row + 1}")
    _true_false_colours(book, ws, first, row, 4)
    _true_false_colours(book, ws, 2, 2, 2, invert=True)
    ws.freeze_panes(3, 1)


def _plausibility_values(a: Assumptions, head: dict) -> list[bool]:
    """The run's answers to the plausibility checks of the Checks sheet (cached values)."""
    from econ.compute import tables

    ph = head["physics"]
    plat = str(a.values["contract.platform"])
    s_std = a.num("tiers.standard.tokens_per_s")
    if a.values["capacity.basis"] == "physics":
        thr_std = float(tables.envelope(a, plat, s_std).throughput[0])
    else:
        thr_std = tables.data_throughput(a, plat, s_std)
    env_std = float(tables.envelope(a, plat, s_std).throughput[0])
    return [
        bool(ph["within_ceiling"]),
        ph["claimed_tokens_per_s_per_mw"] <= ph["physics_tokens_per_s_per_mw"] * (1 + 1e-9),
        thr_std <= env_std * (1 + 1e-9),
    ]


def _months_span(sheet: str, book: Book) -> str:
    from xlsxwriter.utility import xl_rowcol_to_cell

    from econ.report.xl import FIRST_COL, MONTHS

    header = book.rows["revenue.in_horizon"].row - 1
    a = xl_rowcol_to_cell(header, FIRST_COL + 1, row_abs=True, col_abs=True)
    b = xl_rowcol_to_cell(header, FIRST_COL + MONTHS, row_abs=True, col_abs=True)
    return f"'{sheet}'!{a}:{b}"


def _frontier_check(book: Book, what: str) -> str:
    """No two consecutive frontier rows of one platform where speed does not rise (or where
    throughput rises), over the Capacity sheet's PCHIP block."""
    ref = book.cells["pchip_platform"]
    sheet, rng = ref.split("!")
    a, b = rng.replace("$", "").split(":")
    col_p = "".join(ch for ch in a if ch.isalpha())
    r1, r2 = (
        int("".join(ch for ch in a if ch.isdigit())),
        int("".join(ch for ch in b if ch.isdigit())),
    )
    if r2 <= r1:
        return "TRUE"
    col = {"speed": chr(ord(col_p) + 1), "throughput": chr(ord(col_p) + 2)}[what]
    same = f"({sheet}!{col_p}{r1}:{col_p}{r2 - 1}={sheet}!{col_p}{r1 + 1}:{col_p}{r2})"
    bad = (
        f"({sheet}!{col}{r1 + 1}:{col}{r2}<={sheet}!{col}{r1}:{col}{r2 - 1})"
        if what == "speed"
        else f"({sheet}!{col}{r1 + 1}:{col}{r2}>{sheet}!{col}{r1}:{col}{r2 - 1})"
    )
    return f"SUMPRODUCT({same}*{bad})=0"


def _true_false_colours(
    book: Book, ws, first: int, last: int, col: int, invert: bool = False
) -> None:
    red = book.wb.add_format({"bg_color": "#FFC7CE", "font_color": "#9C0006"})
    green = book.wb.add_format({"bg_color": "#C6EFCE", "font_color": "#006100"})
    bad, good = ("TRUE", "FALSE") if invert else ("FALSE", "TRUE")
    ws.conditional_format(
        first, col, last, col, {"type": "cell", "criteria": "==", "value": bad, "format": red}
    )
    ws.conditional_format(
        first, col, last, col, {"type": "cell", "criteria": "==", "value": good, "format": green}
    )


def cover_sheet(book: Book, ws, a: Assumptions, head: dict, run_info: dict) -> None:
    s = book.styles
    ws.set_column(0, 0, 46)
    ws.set_column(1, 1, 110)
    ws.write_string(
        0, 0, "econ: payback analysis of renting ultra-fast inference capacity", s("title")
    )
    ws.write_string(1, 0, QUESTION, s("note"))
    row = 3
    ws.write_string(row, 0, "The answer (live: recomputes when an input changes)", s("section"))
    for label, formula, value in cover_sentences(head):
        row += 1
        ws.write_string(row, 0, label, s("label"))
        write_formula(ws, row, 1, "=" + formula, value, s("wrap"))
    row += 2
    ws.write_string(row, 0, "From the run (rerun econ after changing inputs)", s("section"))
    from econ.report.summary import physics_sentence

    row += 1
    ws.write_string(row, 0, "Physics of the ultrafast claim", s("label"))
    ws.write_string(row, 1, physics_sentence(head), s("wrap", "rerun"))
    row += 2
    ws.write_string(row, 0, "Headline figures (live)", s("section"))
    for label, name, fmt in (
        ("NPV", "npv_usd", "usd_b"),
        ("NPV without the terminal value", "npv_without_terminal_value_usd", "usd_b"),
        ("Terminal value of the Pro tail (at the horizon)", "terminal_value_usd", "usd_b"),
        ("NPV of the term alone", "npv_at_term_usd", "usd_b"),
        ("IRR, annualised (blank: none or not meaningful)", "irr_annual", "pct"),
        ("MIRR, annualised (at the discount rate)", "mirr_annual", "pct"),
        ("Profitability index", "profitability_index", "num2"),
        ("Payback month (blank: none)", "payback_months", "num1"),
        ("Discounted payback month (blank: none)", "discounted_payback_months", "num1"),
        ("Shortfall at the horizon", "shortfall_usd", "usd_b"),
        ("Realised cost per million tokens", "realised_cost_per_mtok_usd", "usd2"),
        ("Lessor's yield (blank: none)", "lessor_yield_annual", "pct"),
        ("Pro users to pay the contract (the articles)", "simple_breakeven_pro_users", "num"),
        ("... as a share of monthly active users", "simple_breakeven_share_of_mau", "pct3"),
        ("Inputs changed since the run", "inputs_changed_since_run", "g"),
        ("Every integrity check holds (Checks)", "integrity_ok", "g"),
        ("The workbook matches the econ run (Checks)", "matches_run", "g"),
    ):
        row += 1
        ws.write_string(row, 0, label, s("label"))
        value = head.get(name)
        if name == "lessor_yield_annual":
            value = head["rent_vs_buy"]["lessor_yield_annual"]
        if name in ("inputs_changed_since_run",):
            value = False
        if name in ("integrity_ok", "matches_run"):
            value = True
        write_formula(ws, row, 1, f"={name}", "" if value is None else value, s(fmt, align="left"))
    row += 2
    ws.write_string(row, 0, "The run", s("section"))
    info = [
        ("Scenario", a.scenario),
        ("Overrides", "; ".join(f"{k}={v} ({o})" for k, v, o in a.overrides) or "none"),
        ("Data folder", path_text(a.data_dir) + (" (bundled defaults)" if a.bundled else "")),
        ("econ version", __version__),
        ("Run at (UTC)", book.run_time),
        *[(k, str(v)) for k, v in run_info.items() if k != "time"],
    ]
    for k, v in info:
        row += 1
        ws.write_string(row, 0, k, s("label"))
        write_cell(ws, row, 1, v, s("wrap"))
    row += 2
    ws.write_string(row, 0, "Input file", s("h"))
    ws.write_string(row, 1, "SHA-256", s("h"))
    for fi in a.files:
        row += 1
        ws.write_string(row, 0, fi.name, s("label"))
        ws.write_string(row, 1, fi.sha256, s("key"))
    row += 2
    ws.write_string(row, 0, "How to read this workbook", s("section"))
    guide = [
        (
            "Input (blue on yellow)",
            "drives the live model: edit it and every live sheet recalculates (Excel, LibreOffice).",
        ),
        (
            "econ input (purple on grey)",
            "econ uses it, the live sheets do not: rerun econ after changing it.",
        ),
        (
            "Snapshot (a green banner says so)",
            "values of the econ run: the capacity tables, the analysis sheets; stale once an input changed.",
        ),
        (
            "Assumptions",
            "every input with its unit, source and defined name (its key, dots as underscores).",
        ),
        (
            "Capacity",
            "the contract platform's curve (PCHIP) and physics envelope, live; every platform as a snapshot.",
        ),
        (
            "Costs, Revenue, Payback",
            "the monthly chain, live, on one timeline of 120 months; zero beyond the horizon.",
        ),
        (
            "Tornado, Grid, Monte Carlo, Sobol, Break-even",
            "which assumptions decide the answer, how likely payback is, what is worth knowing before signing.",
        ),
        (
            "Checks",
            "integrity checks of the live model, and the match with the econ run; FALSE is red.",
        ),
    ]
    for k, v in guide:
        row += 1
        ws.write_string(row, 0, k, s("label"))
        ws.write_string(row, 1, v, s("wrap"))
    ws.write_string(row + 2, 0, "Legend", s("bold"))
    ws.write_string(row + 3, 0, "an input", s("g", "input"))
    ws.write_string(row + 4, 0, "an econ input: rerun econ after changing", s("g", "rerun"))
    ws.activate()
    _ = banner
