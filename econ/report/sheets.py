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
from econ.report.annual_sheet import annual_sheet, contents_sheet
from econ.report.checks import CHANGED_FLAG, checks_sheet
from econ.report.inventory import mark_inputs
from econ.report.market_sheet import market_sheet
from econ.report.summary import RATE_TEXT, cover_sentences, rate_words
from econ.report.workbook import QUESTION, new_workbook, write_cell, write_formula
from econ.report.xl import FIRST_COL, MONTHS, Book, Styles, banner, print_setup

ANALYSIS_SHEETS = ("Tornado", "Grid", "Monte Carlo", "MC samples", "Sobol", "Break-even")


def sheet_order(analysis: dict) -> list[str]:
    names = ["Cover", "Contents", "Assumptions", "Tables", "Capacity", "Market", "Costs", "Revenue"]
    names += ["Payback"]
    names.append("Annual")  # the monthly chain by year, after the calculations
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
    book.results = r
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
    market_sheet(book, ws["Market"], a, r)
    for tl in timelines:
        tl.flush()
        tl.results_end = tl.next
    header = timelines[0].header  # months 1..120 of the one timeline, for the annual sums
    book.name("timeline_months", f"'Revenue'!${xl_col_to_name(FIRST_COL + 1)}${header + 1}:"
              f"${xl_col_to_name(FIRST_COL + MONTHS)}${header + 1}")  # fmt: skip
    annual_sheet(book, ws["Annual"], a, r)
    payback = timelines[2]
    _payback_chart(book, ws["Payback"], payback, a)
    book.cells["payback_chart"] = (payback.next + 2, payback.next + 24)
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
    mark_inputs(book)  # from the formulas written: what no live formula reads needs a rerun
    checks_sheet(book, ws["Checks"], a, head)
    cover_sheet(book, ws["Cover"], a, head, run_info)
    contents_sheet(book, ws["Contents"], list(ws))
    for name in PROTECTED:  # no password: Review > Unprotect sheet
        ws[name].protect("", {"autofilter": False, "sort": False})
    if "MC samples" in ws:  # for the screen: a hidden sheet does not print
        ws["MC samples"].hide()
    ws["Run"].hide()
    ws["Run tables"].hide()
    print_all(book, ws, timelines)
    wb.close()


PROTECTED = ("Cover", "Contents", "Assumptions", "Tables", "Capacity", "Market", "Costs",
             "Revenue", "Payback", "Annual", "Checks")  # fmt: skip
# blocks of the analysis sheets that print (the rest are for the screen): 35 pages in all
PRINTED_BLOCKS = {"Tornado": 1, "Monte Carlo": 1}
PRINTED_COLUMNS = {"Monte Carlo": "G"}  # the tables; the charts beside them on the screen
PRINTED_MONTHS = 9  # a timeline prints months 0..9 at 70 % or more; Annual prints every year


def print_all(book: Book, ws: dict, timelines: list) -> None:
    """Print set-up of every sheet: readable at 70 % or more, nothing cut, charts whole."""
    for tl in timelines:  # the first year and the results; every month is on Annual
        q = f"'{tl.sheet}'!"  # the rows, then the results under them in the month-0 column
        last = xl_rowcol_to_cell(tl.results_end - 1, FIRST_COL + PRINTED_MONTHS, True, True)
        areas = [f"{q}$A$1:{last}"]
        if tl.sheet == "Payback":
            top, bottom = book.cells["payback_chart"]
            areas.append(f"{q}$A${top + 1}:$I${bottom + 1}")
        print_setup(ws[tl.sheet], book, "fit")
        book.wb.define_name(f"{q}_xlnm.Print_Area", "=" + ",".join(areas))
        if tl.breaks:
            ws[tl.sheet].set_h_pagebreaks(tl.breaks)
    for name, sheet in ws.items():
        if name.startswith("Run") or name in ("Revenue", "Costs", "Payback", "MC samples"):
            continue
        area = {
            "Assumptions": f"A1:E{book.cells['assumptions_print_end'] + 1}",
            "Tables": f"A1:N{book.cells['tables_print_end'] + 1}",
            "Capacity": f"A1:L{book.cells['capacity_live_end'] + 1}",
            "Annual": f"A1:L{book.cells['annual_print_end'] + 1}",
            "Market": f"A1:C{book.cells['market_print_end'] + 1}",
            "Cover": f"A1:B{book.cells['cover_print_end'] + 1}",
            "Contents": f"A1:B{book.cells['contents_print_end'] + 1}",
            "Checks": f"A1:E{book.cells['checks_print_end'] + 1}",
            "Sobol": book.cells.get("sobol_print_area"),
            "Break-even": "A1:F" + _used_area(sheet).split(":")[1].lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
        }.get(name)
        if name in book.cells.get("page_breaks", {}):
            breaks = book.cells["page_breaks"][name]
            area = _used_area(sheet)
            if len(breaks) >= PRINTED_BLOCKS.get(name, 99):  # the first blocks only
                k = PRINTED_BLOCKS[name]
                col = PRINTED_COLUMNS.get(name, "".join(c for c in area.split(":")[1] if c.isalpha()))
                area = f"A1:{col}{breaks[k - 1]}"
                breaks = breaks[: k - 1]
            print_setup(sheet, book, "fit", area=area)
            sheet.set_h_pagebreaks(breaks)
        else:
            print_setup(sheet, book, "fit", area=area)
        if name == "Market":
            sheet.fit_to_pages(1, 2)
        if name in ("Tables", "Capacity"):
            sheet.repeat_columns(0)


def _payback_chart(book: Book, ws, tl, a: Assumptions) -> None:
    H = MONTHS  # every month the book allows: a horizon edit redraws the curve
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
            "name": "Payback curve: cumulative cash by month (live; months 0 to 120, flat beyond the horizon)"
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
    ws.write_formula(3, 3, "=" + RATE_TEXT, s("note"), rate_words(a.num("finance.discount_rate_annual")))
    book.name("cover_rate_text", "'Cover'!$D$4")  # a helper beside the print area
    cannot = '"The live model cannot compute the choices made: "&model_problem'
    for label, formula, value in cover_sentences(head):
        row += 1
        ws.write_string(row, 0, label, s("label"))
        write_formula(ws, row, 1, f"=IF(model_computable,{formula},{cannot})", value, s("wrap"))
        if label == "Does the deal pay back?":
            book.name("cover_answer", f"'Cover'!$B${row + 1}")
    row += 2
    ws.write_string(row, 0, "From the run (rerun econ after changing inputs)", s("section"))
    from econ.report.summary import physics_sentence

    row += 1
    ws.write_string(row, 0, "Physics of the ultrafast claim", s("label"))
    ws.write_string(row, 1, physics_sentence(head), s("wrap", "rerun"))
    stale = '=IF(inputs_changed_since_run,"STALE: inputs changed since the run; rerun econ","current")'
    write_formula(ws, row, 2, stale, "current", s("banner"))
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
    book.cells["cover_print_end"] = row  # the guide (and the Contents sheet) for the screen
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
            "the contract platform's curve (PCHIP) and physics, live; the served model of the run (purple); every platform as a snapshot.",
        ),
        (
            "Market",
            "the API logit, the no-deal world and the value of an average MW of each use, live.",
        ),
        (
            "Costs, Revenue, Payback",
            "the monthly chain, live, on one timeline of 120 months; zero beyond the horizon; the first year prints.",
        ),
        (
            "Annual",
            "the monthly chain summed by year, live: the printed overview of every month.",
        ),
        (
            "Tornado, Grid, Monte Carlo, Sobol, Break-even",
            "which assumptions decide the answer, how likely payback is, what is worth knowing before signing.",
        ),
        (
            "Checks",
            "whether the live model can compute the choices, integrity checks (FALSE is red), findings (amber), the match with the econ run, what needs a rerun.",
        ),
    ]
    for k, v in guide:
        row += 1
        ws.write_string(row, 0, k, s("label"))
        ws.write_string(row, 1, v, s("wrap"))
    ws.write_string(row + 2, 0, "Legend", s("bold"))
    ws.write_string(row + 3, 0, "an input", s("g", "input"))
    ws.write_string(row + 4, 0, "an econ input: rerun econ after changing", s("g", "rerun"))
    row += 4
    row += 2
    ws.write_string(row, 0, "Input file", s("h"))
    ws.write_string(row, 1, "SHA-256", s("h"))
    for fi in a.files:
        row += 1
        ws.write_string(row, 0, fi.name, s("label"))
        ws.write_string(row, 1, fi.sha256, s("key"))

    ws.activate()
    _ = banner
