"""The Annual sheet (the printed summary of the monthly chain) and the Contents sheet.

Annual: one declaration per row (label, unit, format, the timeline row it sums or reads at
each year's end, the Python values), years 1..10 across (the 120 months the timeline allows),
live formulas on the named rows. Contents: every sheet with a HYPERLINK() to it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xlsxwriter.utility import xl_rowcol_to_cell

from econ.assumptions import Assumptions
from econ.model import Results
from econ.report.workbook import write_formula
from econ.report.xl import MONTHS, STYLE_GUIDE, Book, absolute, pad_months

SHEET = "Annual"
YEARS = MONTHS // 12
HEADER = 3  # the row of the years


@dataclass(frozen=True)
class AnnualRow:
    """A row of the Annual sheet: ``source`` a timeline row (``"payback.cf"``); ``how`` "sum"
    (the year's months) or "end" (the value at the year's last month within the horizon);
    ``values`` the Python values of months 1..H."""

    label: str
    unit: str
    fmt: str
    source: str
    how: str
    values: np.ndarray


def rows(r: Results) -> list[AnnualRow | str]:
    f = lambda x: np.asarray(x)[0]  # noqa: E731
    return [
        "Cash and value (Payback; money out negative)",
        AnnualRow("Cash in: Pro upgrades and ultrafast API, net of variable costs", "USD",
                  "usd_m", "payback.cash_in", "sum", f(r.cash_flow) + f(r.rent)),
        AnnualRow("Rent paid", "USD", "usd_m", "payback.rent", "sum", -f(r.rent)),
        AnnualRow("Cash flow (cash only)", "USD", "usd_m", "payback.cash", "sum", f(r.cash_flow)),
        AnnualRow("Cumulative cash only at the year's end", "USD", "usd_m", "payback.cum_cash",
                  "end", f(r.cumulative_cash_only)),
        AnnualRow("GPU cost avoided, net (value, not cash)", "USD", "usd_m", "payback.gpu", "sum",
                  f(r.gpu_savings)),
        AnnualRow("Net flow the NPV counts (cash and value)", "USD", "usd_m", "payback.cf", "sum",
                  f(r.net_cash_flow)),
        AnnualRow("Cumulative net flow at the year's end", "USD", "usd_m", "payback.cum", "end",
                  f(r.cumulative_cash)),
        AnnualRow("Discounted net flow", "USD", "usd_m", "payback.dcf", "sum",
                  f(r.discounted_cash_flow)),
        "Revenue streams (Revenue)",
        AnnualRow("Pro upgrades", "USD", "usd_m", "revenue.sub", "sum", f(r.subscription_revenue)),
        AnnualRow("Net ultrafast API revenue", "USD", "usd_m",
                  "revenue.api", "sum", f(r.api_revenue)),
        AnnualRow("GPU cost avoided, net", "USD", "usd_m", "revenue.gpu", "sum", f(r.gpu_savings)),
        "The contract's MW and the Pro stocks",
        AnnualRow("MW-months online", "MW-months", "num", "revenue.mw", "sum", f(r.mw_online)),
        AnnualRow("MW-months serving the API", "MW-months", "num", "revenue.mw_api", "sum",
                  f(r.mw_api)),
        AnnualRow("MW-months serving subscriber streams", "MW-months", "num",
                  "revenue.mw_subscriber", "sum", f(r.mw_subscriber)),
        AnnualRow("MW-months of peak-shaped backfill", "MW-months", "num",
                  "revenue.mw_backfill_peak", "sum", f(r.mw_backfill_peak)),
        AnnualRow("MW-months of flexible backfill", "MW-months", "num", "revenue.mw_backfill_flexible", "sum",
                  f(r.mw_backfill_flexible)),
        AnnualRow("MW-months idle", "MW-months", "num", "revenue.mw_idle", "sum", f(r.mw_idle)),
        AnnualRow("Pro subscribers with the deal at the year's end", "users", "num",
                  "revenue.pro", "end", f(r.pro)),
        AnnualRow("... on the no-deal path", "users", "num", "revenue.pro0", "end",
                  f(r.pro_counterfactual)),
        AnnualRow("Incremental Pro subscribers at the year's end", "users", "num", "revenue.dpro",
                  "end", f(r.incremental_pro)),
    ]  # fmt: skip


PER_YEAR = "constant_months_per_year"


def _python(row: AnnualRow) -> list[float]:
    """The year's sum (0 past the horizon), or the value at its last month within the horizon
    (held past it, as the monthly sheets hold a running total)."""
    H = row.values.size
    v = pad_months(row.values)[1:]
    out = []
    for y in range(1, YEARS + 1):
        if (y - 1) * 12 >= H and row.how == "sum":
            out.append(0.0)
        elif row.how == "sum":
            out.append(float(np.sum(v[(y - 1) * 12 : y * 12])))
        else:
            out.append(float(v[min(y * 12, H) - 1]))
    return out


def annual_sheet(book: Book, ws, a: Assumptions, r: Results) -> None:
    s = book.styles
    ws.write_string(
        0, 0, "Annual summary of the monthly chain (live; years of 12 months)", s("title")
    )
    note = "Sums of each year's months, or the value at the year's last month within the horizon; years beyond the horizon in grey (flows 0, values at a year's end held)."
    ws.write_string(1, 0, note, s("note"))
    ws.set_column(0, 0, 48)
    ws.set_column(1, 1, 11)
    ws.set_column(2, 1 + YEARS, 10)
    ws.write_string(HEADER, 0, "Year", s("month"))
    ws.write_string(HEADER, 1, "Unit", s("month"))
    for y in range(1, YEARS + 1):
        ws.write_number(HEADER, 1 + y, y, s("month"))
    months = "timeline_months"
    row = HEADER + 1
    for item in rows(r):
        row += 1
        if isinstance(item, str):
            row += 1
            ws.write_string(row, 0, item, s("section"))
            continue
        ws.write_string(row, 0, item.label, s("label"))
        ws.write_string(row, 1, item.unit, s("unit"))
        span = book.rows[item.source].span()
        span0 = book.rows[item.source].span(0)
        years = _python(item)
        book.cells.setdefault("annual_rows", []).append((row, item, sum(years)))  # for Checks
        first, last = (
            xl_rowcol_to_cell(row, 2, True, True),
            xl_rowcol_to_cell(row, 1 + YEARS, True, True),
        )
        book.name(f"annual_{item.source.replace('.', '_')}", f"'{SHEET}'!{first}:{last}")
        for y, value in enumerate(years, start=1):
            year = xl_rowcol_to_cell(HEADER, 1 + y, row_abs=True)
            if item.how == "sum":
                f = f"SUMPRODUCT((ROUNDUP({months}/{PER_YEAR},0)={year})*{span})"
            else:
                f = f"INDEX({span0},MIN({year}*{PER_YEAR},horizon_months)+1)"
            write_formula(ws, row, 1 + y, "=" + f, value, s(item.fmt))
    book.cells["annual_print_end"] = row
    # the years beyond the horizon in grey: flows 0 there, values at a year's end held
    first = xl_rowcol_to_cell(HEADER, 2, row_abs=True)
    ws.conditional_format(
        HEADER + 1, 2, row, 1 + YEARS,
        {"type": "formula", "criteria": f"=({first}-1)*{PER_YEAR}>=horizon_months",
         "format": book.wb.add_format({"font_color": "#A6A6A6"})},
    )  # fmt: skip
    ws.freeze_panes(HEADER + 1, 2)
    _ = absolute


CONTENTS = (
    ("Cover", "the answer, the headline figures, the run and how to read the workbook"),
    ("Assumptions", "every scalar input with its unit, source and defined name; the conventions"),
    ("Tables", "plans, tiers, hardware and the frontier, with their sources"),
    ("Capacity", "the contract platform, its curve and physics; the served model of the run"),
    ("Market", "plan usage, the API logit, the no-deal world, the value of each use"),
    ("Costs", "the rent, and buying the same capacity instead (monthly)"),
    ("Revenue", "capacity, demand, the API, MW by use, the Pro stocks, the GPU fleet (monthly)"),
    ("Payback", "cash, NPV with the Pro tail, IRR, payback, the bridge to the NPV (monthly)"),
    ("Annual", "the monthly chain summed by year and the payback curve: every month printed"),
    ("Tornado", "which assumptions move the NPV most (snapshot of the run)"),
    ("Grid", "NPV over two inputs at a time (snapshot)"),
    ("Monte Carlo", "how likely payback is, the NPV's spread, the value of information (snapshot)"),
    ("Sobol", "the NPV's variance by input (snapshot)"),
    ("Break-even", "the value of each input at which NPV is zero (snapshot)"),
    (
        "Checks",
        "what the live model can compute, integrity, findings, the match with econ, the inventory",
    ),
)


def contents_sheet(book: Book, ws, names: list[str]) -> None:
    s = book.styles
    ws.set_column(0, 0, 22)
    ws.set_column(1, 1, 100)
    ws.write_string(0, 0, "Contents", s("title"))
    row = 2
    for name, what in CONTENTS:
        if name not in names:
            continue
        write_formula(ws, row, 0, f'=HYPERLINK("#\'{name}\'!A1","{name}")', name, s("bold"))
        ws.write_string(row, 1, what, s("label"))
        row += 1
    row += 1
    ws.write_string(row, 0, "The colours", s("section"))
    styles = (("g", "input"), ("g", "rerun"), ("banner",))
    for (name, what), style in zip(STYLE_GUIDE, styles, strict=True):
        row += 1
        ws.write_string(row, 0, name.split(" (")[0], s(*style, valign="top"))
        text = f"{name.split(' (')[1].rstrip(')')}: {what}"
        ws.write_string(row, 1, text, s("wrap"))
        ws.set_row(row, 15 * -(-len(text) // 125))  # as tall as its lines (125 a line)
    book.cells["contents_print_end"] = row
