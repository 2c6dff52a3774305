"""Building blocks of the workbook (docs/model.md, section 8): styles by unit, defined names, the one
timeline of months 0..120, data validation, print set-up, banners.

Every cell the sheets write through these helpers is either an input (named after its
dotted key, validated, styled as an input), a live formula that stores the Python model's
value for it, or a snapshot value of the econ run (styled plainly, under a banner).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xlsxwriter.utility import xl_col_to_name, xl_rowcol_to_cell

from econ.assumptions import HORIZON_MAX_MONTHS, Rule
from econ.report.workbook import write_formula

LABEL_COL, UNIT_COL, FIRST_COL = 0, 1, 2  # a timeline row: label, unit, month 0, months 1..120
MONTHS = HORIZON_MAX_MONTHS

INPUT = {"font_color": "#0000FF", "bg_color": "#FFF2CC", "border": 1, "border_color": "#BFBFBF"}
RERUN = {
    "font_color": "#7030A0",
    "bg_color": "#EDEDED",
    "italic": True,
    "border": 1,
    "border_color": "#BFBFBF",
}

# number formats by unit: what a cell shows, never ### at 100 % in the widths the sheets set
NUMBER_FORMATS = {
    "usd": "$#,##0",
    "usd_m": '$#,##0.0,,"M";-$#,##0.0,,"M"',
    "usd_b": '$#,##0.00,,,"B";-$#,##0.00,,,"B"',
    "usd2": "$#,##0.00",
    "usd_in": "$#,##0.00##",
    "num": "#,##0",
    "num_feasible": '#,##0;"infeasible";0',  # a negative output: the layout cannot serve it
    "num1": "#,##0.0",
    "num2": "#,##0.00",
    "num4": "0.0000",
    "sci": "0.00E+00",
    "pct": "0.0%",
    "pct2": "0.00%",
    "pct3": "0.000%",
    "tok_b": '#,##0.0,,,"B"',
    "tok_t": '#,##0.00,,,,"T"',
    "g": "General",
    "bool": '"TRUE";"TRUE";"FALSE"',
    "text": "@",
}


def format_for_input(unit: str, kind: str, value: float | None = None) -> str:
    """The number format of an input cell: by its unit and kind, not by the value it holds
    now, so that an edit shows as typed (1.25, not 1; $0.08, not $0)."""
    if kind == "integer":
        return "num"
    u = unit.strip()
    big = value is not None and math.isfinite(value) and abs(value) >= 1e6
    if u.startswith("USD"):
        return ("usd_b" if abs(value) >= 1e9 else "usd") if big else "usd_in"
    if u in ("share", "share of revenue", "share of eligible users", "1/month", "1/yr"):
        return "pct2"
    if big:
        return "sci" if u in ("params", "bytes/token") or abs(value) >= 1e12 else "num"
    return "g"


class Styles:
    """Cell formats, built once: ``styles("usd_m")``, ``styles("usd_m", "input")`` ..."""

    def __init__(self, wb):
        self.wb = wb
        self.cache: dict[tuple, Any] = {}

    def __call__(self, name: str = "g", role: str = "calc", **extra) -> Any:
        key = (name, role, tuple(sorted(extra.items())))
        if key not in self.cache:
            spec: dict[str, Any] = {}
            if name in NUMBER_FORMATS:
                spec["num_format"] = NUMBER_FORMATS[name]
            else:
                spec.update(
                    {
                        "title": {"bold": True, "font_size": 14},
                        "h": {
                            "bold": True,
                            "bottom": 1,
                            "bg_color": "#DDEBF7",
                            "text_wrap": True,
                            "valign": "top",
                        },
                        "section": {"bold": True, "font_size": 11, "bottom": 1},
                        "bold": {"bold": True},
                        "wrap": {"text_wrap": True, "valign": "top"},
                        "note": {"italic": True, "font_color": "#595959"},
                        "banner": {  # a snapshot's banner: neither inputs' nor headers' colour
                            "italic": True,
                            "bold": True,
                            "font_color": "#375623",
                            "bg_color": "#E2EFDA",
                        },
                        "label": {},
                        "unit": {"font_color": "#595959"},
                        "key": {"font_color": "#595959", "font_size": 9},
                        "mono": {"font_name": "Courier New", "font_size": 9},
                        "month": {
                            "bold": True,
                            "bottom": 1,
                            "bg_color": "#DDEBF7",
                            "align": "center",
                        },
                    }.get(name, {})
                )
            if role == "input":
                spec.update(INPUT, locked=False)
            elif role == "rerun":
                spec.update(RERUN, locked=False)
            elif role == "const":
                spec.update({"font_color": "#595959", "bg_color": "#F2F2F2"})
            spec.update(extra)
            self.cache[key] = self.wb.add_format(spec)
        return self.cache[key]


def excel_name(key: str) -> str:
    """The workbook-level defined name of a dotted key: dots become underscores."""
    return key.replace(".", "_").replace("-", "_")


def absolute(sheet: str, row: int, col: int) -> str:
    return f"'{sheet}'!{xl_rowcol_to_cell(row, col, row_abs=True, col_abs=True)}"


def column_range(sheet: str, col: int, first: int, last: int) -> str:
    c = xl_col_to_name(col)
    return f"'{sheet}'!${c}${first + 1}:${c}${last + 1}"


def validation_for(rule: Rule, unit: str, label: str, choices: str | None = None) -> dict:
    """XlsxWriter data validation of an input cell: its rule's bounds, whole numbers, or a list,
    with an input message giving the unit."""
    msg = f"{label} [{unit}]. Allowed: {rule.expected()}."[:255]
    base = {
        "input_title": "econ input"[:32],
        "input_message": msg,
        "error_title": "Not allowed",
        "error_message": msg,
    }
    if rule.kind == "id":
        src = choices if choices else ",".join(rule.choices)
        return {
            **base,
            "validate": "list",
            "source": src if src.startswith("=") else [s for s in src.split(",")],
        }
    kind = "integer" if rule.kind == "integer" else "decimal"
    lo = rule.low if rule.low is not None else -1e300
    hi = rule.high if rule.high is not None else 1e300
    if (rule.low_open and rule.low is not None) or (rule.high_open and rule.high is not None):
        # open bounds: a custom rule; XlsxWriter's decimal criteria are inclusive
        return {
            **base,
            "validate": "custom",
            "value": None,
        }  # value filled by the caller (needs the cell)
    return {**base, "validate": kind, "criteria": "between", "minimum": lo, "maximum": hi}


def custom_rule_formula(rule: Rule, cell: str) -> str:
    """A custom validation formula for a rule with an open bound."""
    parts = [f"ISNUMBER({cell})"]
    if rule.kind == "integer":
        parts.append(f"{cell}=INT({cell})")
    if rule.low is not None:
        parts.append(f"{cell}{'>' if rule.low_open else '>='}{rule.low!r}")
    if rule.high is not None:
        parts.append(f"{cell}{'<' if rule.high_open else '<='}{rule.high!r}")
    return "=AND(" + ",".join(parts) + ")"


@dataclass
class RowRef:
    """A named row of a timeline: its sheet and 0-based row; month m is column FIRST_COL + m."""

    sheet: str
    row: int

    def cell(
        self, m: int, absolute_row: bool = False, absolute_col: bool = False, external: bool = True
    ) -> str:
        ref = xl_rowcol_to_cell(self.row, FIRST_COL + m, row_abs=absolute_row, col_abs=absolute_col)
        return f"'{self.sheet}'!{ref}" if external else ref

    def span(self, first: int = 1, last: int = MONTHS) -> str:
        a = xl_rowcol_to_cell(self.row, FIRST_COL + first, row_abs=True, col_abs=True)
        b = xl_rowcol_to_cell(self.row, FIRST_COL + last, row_abs=True, col_abs=True)
        return f"'{self.sheet}'!{a}:{b}"


@dataclass
class Book:
    """What the sheets share: the workbook, styles, the cell of every named thing, checks."""

    wb: Any
    styles: Styles
    run_time: str
    scenario: str
    rows: dict[str, RowRef] = field(default_factory=dict)  # stable row name -> timeline row
    cells: dict[str, str] = field(default_factory=dict)  # stable name -> absolute cell
    integrity: list[tuple[str, str, bool]] = field(default_factory=list)  # label, formula, value
    matches: list[tuple[str, float | None, str, str]] = field(
        default_factory=list
    )  # label, econ value, cell, format
    inputs: list[tuple[str, str]] = field(default_factory=list)  # input cell, run copy cell
    declared: list[tuple[str, Any]] = field(default_factory=list)  # sheet, rows.Row / Result
    second_routes: list[tuple[str, str, str, Any]] = field(
        default_factory=list
    )  # label, total, other, the rows.Row
    marked: list[tuple[str, str, str]] = field(
        default_factory=list
    )  # run values: name, label, unit
    results: Any = None  # the econ run's Results (scenario 0)
    input_cells: list[tuple] = field(default_factory=list)  # ws, row, col, key, value, format
    rerun_inputs: list[str] = field(default_factory=list)  # keys no live formula reads
    # live keys econ's model does not read (key, the sheets that read them): off the NPV
    side_inputs: list[tuple[str, list[str]]] = field(default_factory=list)
    unread_inputs: list[str] = field(default_factory=list)
    marked_values: dict[str, float] = field(default_factory=dict)  # name -> the run's value

    def name(self, name: str, ref: str) -> None:
        """A workbook-level defined name (each defined once: a second would silently win)."""
        if name in self.cells:
            raise ValueError(f"defined name {name!r} twice: {self.cells[name]} and {ref}")
        self.wb.define_name(name, "=" + ref)
        self.cells[name] = ref


def pad_months(
    values: Sequence[float] | np.ndarray, opening: float = 0.0, hold: bool = False
) -> np.ndarray:
    """Months 1..H of a row -> months 0..120: the opening value first, then zeros after H (a
    flow), or the value at H held (a running total such as cumulative cash)."""
    v = np.asarray(values, float)
    out = np.zeros(MONTHS + 1)
    out[0] = opening
    out[1 : 1 + v.size] = v
    if hold and v.size:
        out[1 + v.size :] = v[-1]
    return out


class Timeline:
    """A monthly sheet: label, unit, month 0 (the opening column), months 1..120 across.

    Rows are declared first (``row``) and written later (``flush``), so that a formula may
    refer to a row declared after it (A_t needs P_(t-1)). Each row is registered in
    ``book.rows`` under a stable name (``"revenue.pro"``): formulas on any sheet address rows
    by name, never by display label.
    """

    def __init__(self, book: Book, ws, sheet: str, header_row: int, prefix: str):
        self.book, self.ws, self.sheet, self.prefix = book, ws, sheet, prefix
        self.header = header_row
        self.next = header_row + 1
        self.pending: list[tuple] = []
        self.solvers: list[tuple] = []  # IRR solvers written below the print area
        self.narrow_from: int | None = None  # first row of the results block, if any
        self.results_end: int | None = None  # the row after the last result
        s = book.styles
        ws.write_string(header_row, LABEL_COL, "Month", s("month"))
        ws.write_string(header_row, UNIT_COL, "Unit", s("month"))
        ws.write_number(header_row, FIRST_COL, 0, s("month"))
        for m in range(1, MONTHS + 1):
            prev = xl_rowcol_to_cell(header_row, FIRST_COL + m - 1)
            ws.write_formula(header_row, FIRST_COL + m, f"={prev}+1", s("month"), m)
        ws.freeze_panes(header_row + 1, FIRST_COL + 1)
        ws.set_column(LABEL_COL, LABEL_COL, 46)
        ws.set_column(UNIT_COL, UNIT_COL, 12)
        ws.set_column(FIRST_COL, FIRST_COL + MONTHS, 10)
        ws.repeat_columns(LABEL_COL, UNIT_COL)
        ws.repeat_rows(header_row)
        self.breaks: list[int] = []

    def month(self, m: int) -> str:
        """The month-number cell of column m (row-absolute), e.g. D$4."""
        return xl_rowcol_to_cell(self.header, FIRST_COL + m, row_abs=True)

    def ref(self, name: str, m: int) -> str:
        """Month m of a named row: on this sheet without the sheet name, else with it."""
        rr = self.book.rows[name]
        return rr.cell(m, external=rr.sheet != self.sheet)

    def section(self, title: str, new_page: bool = False, narrow: bool = False) -> None:
        """A block title; ``new_page`` starts a printed page with it (a block one page tall);
        ``narrow``: the rows from here on are results in the month-0 column, printed as a
        narrow block of their own rather than across every month's page."""
        self.next += 1
        if new_page:
            self.breaks.append(self.next)
        if narrow and self.narrow_from is None:
            self.narrow_from = self.next
        self.ws.write_string(self.next, LABEL_COL, title, self.book.styles("section"))
        self.next += 1

    def row(
        self,
        name: str,
        label: str,
        unit: str,
        make: Callable[[int], str],
        values: np.ndarray,
        fmt: str,
        opening: Callable[[], str] | None = None,
    ) -> RowRef:
        """Declare one row: ``make(m)`` gives month m's formula (m = 1..120, one formula along
        the row), ``opening()`` month 0's (blank when None); ``values`` are the Python values,
        months 0..120. Written by ``flush``."""
        ref = RowRef(self.sheet, self.next)
        self.book.rows[f"{self.prefix}.{name}"] = ref
        self.book.name(f"row_{self.prefix}_{name}", ref.span(0))  # months 0..120, for scripts
        self.pending.append((self.next, label, unit, make, np.asarray(values, float), fmt, opening))
        self.next += 1
        return ref

    def flush(self) -> None:
        """Write every declared row."""
        s = self.book.styles
        for r, label, unit, make, values, fmt, opening in self.pending:
            self.ws.write_string(r, LABEL_COL, label, s("label"))
            self.ws.write_string(r, UNIT_COL, unit, s("unit"))
            if opening is not None:
                write_formula(self.ws, r, FIRST_COL, "=" + opening(), cached(values[0]), s(fmt))
            for m in range(1, MONTHS + 1):
                write_formula(self.ws, r, FIRST_COL + m, "=" + make(m), cached(values[m]), s(fmt))
        self.pending = []

    def scalar(self, name: str, label: str, unit: str, formula: str, value: Any, fmt: str) -> str:
        """A single named result in the month-0 column (written at once; refer to rows only)."""
        r = self.next
        s = self.book.styles
        self.ws.write_string(r, LABEL_COL, label, s("label"))
        self.ws.write_string(r, UNIT_COL, unit, s("unit"))
        write_formula(self.ws, r, FIRST_COL, "=" + formula, cached(value), s(fmt))
        ref = absolute(self.sheet, r, FIRST_COL)
        self.book.name(name, ref)
        self.next += 1
        return name


def cached(x: Any) -> Any:
    """A formula's stored value: a plain number, blank where it is not finite."""
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return ""
    return x


# what the cell styles say, on the Cover's guide and printed on the Contents page
STYLE_GUIDE = (
    ("Input (blue on yellow)",
     "drives the live model: edit it and every live sheet recalculates (Excel, LibreOffice)."),
    ("econ input (purple on grey)",
     "the answer follows it only after a rerun of econ: no live formula reads it, or it moves "
     "the served model of the run; rows that read it directly (the buy case, Capacity's "
     "physics) recompute at once, and the answer's title then says STALE."),
    ("Snapshot (a green banner says so)",
     "values of the econ run: the capacity tables, the analysis sheets; stale once an input changed."),
)  # fmt: skip


WIDE_PRINT_SCALE = 50  # per cent: the widest sheets' columns on a landscape A4 page
TIMELINE_PRINT_SCALE = 55  # per cent: about 55 rows a landscape A4 page, a year of months across


def print_setup(ws, book: Book, kind: str = "wide", area: str | None = None) -> None:
    """Paper, margins, header and footer with the scenario and the run time.

    kind: "timeline" (each block of rows one page tall, as many pages across as the months
    need; the month row and label columns repeat), "wide" (the widest sheets' columns on one
    page across) or "narrow" (two columns of text: the Cover, Checks). Landscape A4."""
    ws.set_paper(9)  # A4
    ws.set_margins(left=0.4, right=0.4, top=0.7, bottom=0.6)
    ws.set_header(f"&L&8econ: {book.scenario}&C&8&A&R&8run {book.run_time}")
    ws.set_footer("&C&8page &P of &N")
    ws.set_landscape()
    if kind == "fit":  # one page wide, as many tall as the blocks need (their page breaks)
        ws.fit_to_pages(1, 0)
    else:
        ws.set_print_scale(
            {"timeline": TIMELINE_PRINT_SCALE, "wide": WIDE_PRINT_SCALE}.get(kind, 70)
        )
    if area:
        ws.print_area(area)


def banner(ws, book: Book, row: int, what: str) -> None:
    """The line a value-only sheet carries: it is a snapshot of the run, stale once inputs change."""
    stale = book.cells.get("inputs_changed_since_run")
    text = f"Snapshot of the econ run at {book.run_time}: {what}. Stale when 'inputs changed since the run' (Checks) is TRUE: rerun econ report."
    ws.write_string(row, 0, text, book.styles("banner"))
    if stale:
        write_formula(
            ws,
            row,
            8,
            f'=IF({stale},"STALE: inputs changed since the run","current")',
            "current",
            book.styles("banner"),
        )
