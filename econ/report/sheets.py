"""The workbook payback_analysis.xlsx, in FAST order: Cover, Assumptions, Tables, Capacity,
Costs, Revenue, Payback, the analysis sheets, Checks (and hidden Run and Run tables sheets
with the inputs' values in the econ run). docs/model.md, section 8, says what is live and
what is a snapshot."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from xlsxwriter.utility import xl_col_to_name, xl_rowcol_to_cell

from econ.assumptions import Assumptions
from econ.headline import report_tables
from econ.model import Results
from econ.report import capacity_sheet, chain, inputs
from econ.report.annual_sheet import annual_sheet, contents_sheet
from econ.report.checks import CHANGED_FLAG, checks_sheet
from econ.report.cover import cover_sheet
from econ.report.inventory import mark_inputs
from econ.report.market_sheet import market_sheet
from econ.report.workbook import new_workbook
from econ.report.xl import FIRST_COL, MONTHS, Book, Styles, print_setup

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
    book.cells["term_months"] = int(a.num("contract.term_months"))
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
    top = book.cells["annual_print_end"] + 3  # the curve of every month under the years
    _payback_chart(book, ws["Annual"], payback, top)
    book.cells["payback_chart"] = (top, top + 22)
    for tl in timelines:
        tl.next += 1
        for solver in tl.solvers:
            chain.irr_solver(book, tl, *solver)
    capacity_sheet.snapshot_block(book, ws["Capacity"], next_row, a, analysis)

    from econ.report import analysis_sheets

    analysis_sheets.write_all(book, ws, a, analysis)
    if "explain" in analysis:
        from econ.report.explain_view import write_sheet

        write_sheet(book, ws["Explain"], analysis["explain"])
    mark_inputs(book)  # from the formulas written: what no live formula reads needs a rerun
    checks_sheet(book, ws["Checks"], a, head)
    cover_sheet(book, ws["Cover"], a, head, run_info, analysis)
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
PRINTED_PAGES_ACROSS = 2  # a timeline prints months 0..term on two pages across
A3 = 8  # paper: the wide sheets (a timeline's term, every input with its source) on A3
WIDE_SHEETS = ("Cover", "Assumptions", "Capacity")


def print_all(book: Book, ws: dict, timelines: list) -> None:
    """Print set-up of every sheet: readable, nothing cut, charts whole. A timeline prints its
    rows for every month to the term (two pages across, the labels and the months repeated),
    then its results in the month-0 column; Annual prints the horizon by year."""
    term = int(book.cells["term_months"])
    for tl in timelines:
        q = f"'{tl.sheet}'!"  # the rows, then the results under them in the month-0 column
        last = xl_rowcol_to_cell(tl.results_end - 1, FIRST_COL + term, True, True)
        print_setup(ws[tl.sheet], book, "fit")
        ws[tl.sheet].set_paper(A3)  # the term's months at 70 % or more of full size
        ws[tl.sheet].fit_to_pages(PRINTED_PAGES_ACROSS, 0)
        book.wb.define_name(f"{q}_xlnm.Print_Area", f"={q}$A$1:{last}")
        if tl.breaks:
            ws[tl.sheet].set_h_pagebreaks(tl.breaks)
    for name, sheet in ws.items():
        if name.startswith("Run") or name in ("Revenue", "Costs", "Payback", "MC samples"):
            continue
        area = {
            "Assumptions": f"A1:E{book.cells['assumptions_print_end'] + 1}",
            "Tables": f"A1:N{book.cells['tables_print_end'] + 1}",
            "Capacity": f"A1:L{book.cells['capacity_live_end'] + 1}",
            "Annual": f"A1:L{book.cells['payback_chart'][1] + 1}",
            "Market": f"A1:C{book.cells['market_print_end'] + 1}",
            "Cover": f"A1:B{book.cells['cover_print_end'] + 1}",
            "Contents": f"A1:B{book.cells['contents_print_end'] + 1}",
            "Checks": f"A1:E{book.cells['checks_print_end'] + 1}",
        }.get(name)  # None: the sheet set its own (the analysis sheets, econ.report.blocks)
        print_setup(sheet, book, "fit", area=area)
        pages_tall = {"Market": 2, "Cover": 2, "Capacity": 4, "Assumptions": 4}.get(name)
        if pages_tall:
            sheet.fit_to_pages(1, pages_tall)
        if name in WIDE_SHEETS:
            sheet.set_paper(A3)
        if name in ("Tables", "Capacity"):
            sheet.repeat_columns(0)


def _payback_chart(book: Book, ws, tl, at: int) -> None:
    """The payback curve of the Payback sheet's rows, drawn at row ``at`` of ``ws`` (Annual)."""
    H = MONTHS  # every month the book allows: a horizon edit redraws the curve
    chart = book.wb.add_chart({"type": "line"})
    for name, label, color, dash in (
        ("payback.cum", "Cumulative net flow (cash and GPU cost avoided)", "#1F4E79", "solid"),
        ("payback.cum_cash", "Cumulative cash only", "#C55A11", "solid"),
        ("payback.dcum", "Cumulative discounted net flow", "#2E75B6", "dash"),
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
    ws.insert_chart(at, 0, chart)
