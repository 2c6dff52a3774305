"""The Assumptions sheet (every input, named, validated, with its source) and its hidden mirror
"Run" (every input's value in the econ run, so that the workbook knows when it was edited)."""

from __future__ import annotations

import math
import textwrap

from xlsxwriter.utility import xl_rowcol_to_cell

from econ.assumptions import (
    MIN_MAGNITUDE,
    OPTIONAL_COLUMNS,
    SCALARS,
    TABLES,
    Assumptions,
    rule_for,
)
from econ.compute.capacity import COVER_RTOL
from econ.compute.physics import _CHIP_ROUNDING
from econ.constants import (
    CHECK_RTOL,
    HOURS_PER_MONTH,
    IRR_MEANINGFUL_MAX,
    KW_PER_MW,
    MONTHS_PER_YEAR,
    SECONDS_PER_MONTH,
    SECONDS_PER_WEEK,
    TOKENS_PER_MILLION,
)
from econ.payback import IRR_GRID
from econ.report.inventory import SIDE_NOTE, off_the_npv
from econ.report.labels import COLUMN_LABELS, label
from econ.report.workbook import write_cell
from econ.report.xl import (
    MONTHS,
    Book,
    absolute,
    column_range,
    custom_rule_formula,
    excel_name,
    format_for_input,
    validation_for,
)

SHEET = "Assumptions"  # the scalar inputs and the conventions
TABLES_SHEET = "Tables"  # plans, tiers, hardware, frontier
RUN = "Run"  # hidden: each input's value in the econ run, at the input's own address
VALUE_COL = 2  # scalars: A label, B key, C value, D unit, E source, F note, G changed

# Conventions the formulas use (docs/model.md, section 1): named, never typed into a formula.
CONVENTIONS = (
    ("constant.seconds_per_month", SECONDS_PER_MONTH, "s", "30.4375 days"),
    ("constant.seconds_per_week", SECONDS_PER_WEEK, "s", "7 days"),
    ("constant.hours_per_month", HOURS_PER_MONTH, "hours", "30.4375 days"),
    ("constant.months_per_year", float(MONTHS_PER_YEAR), "months", ""),
    ("constant.days_per_week", 7.0, "days", "plan usage from queries a day"),
    ("constant.seconds_per_day", 86_400.0, "s", "the free tier's queries a day"),
    ("constant.seconds_per_hour", 3_600.0, "s", "GPU-hours per token"),
    (
        "constant.share_below_one",
        1e-12,
        "-",
        "the Pro logit's reference probability is at most 1 minus this",
    ),
    (
        "constant.ceiling_slack",
        1e-12,
        "-",
        "tranches: a month this close to a tranche's end is in it",
    ),
    ("constant.unbounded_value", 1e300, "USD/MW-month", "subscriber streams offered first ('on')"),
    ("constant.kw_per_mw", KW_PER_MW, "kW/MW", ""),
    ("constant.tokens_per_million", TOKENS_PER_MILLION, "tokens", "prices are per million tokens"),
    ("constant.bytes_per_gb", 1e9, "bytes", ""),
    ("constant.bytes_per_tb", 1e12, "bytes", ""),
    ("constant.flops_per_tflops", 1e12, "flop/s", ""),
    ("constant.seconds_per_us", 1e-6, "s", ""),
    (
        "constant.chip_rounding",
        _CHIP_ROUNDING,
        "-",
        "share of a chip below which n_w does not round up",
    ),
    (
        "constant.cover_rtol",
        1e-9 if COVER_RTOL == 1e-9 else COVER_RTOL,
        "-",
        "a speed this close to a curve's end is on it",
    ),
    ("constant.horizon_max_months", float(MONTHS), "months", "the timeline's length"),
    ("constant.usd_per_billion", 1e9, "USD", "for sentences in $B"),
    ("constant.tokens_per_trillion", 1e12, "tokens", "for sentences in T tokens"),
    ("constant.check_tolerance", CHECK_RTOL, "-", "relative tolerance of the integrity checks"),
    (
        "constant.irr_meaningful_max",
        IRR_MEANINGFUL_MAX,
        "1/yr",
        "a higher IRR reads 'above 1,000% a year', not a rate",
    ),
    (
        "constant.match_tolerance",
        CHECK_RTOL,
        "-",
        "relative tolerance of the match with the econ run",
    ),
)


# The consistency rules of econ.assumptions.CROSS_CHECKS between two scalar inputs, as the
# data validation of each: a spreadsheet refuses the edit as econ does (the other rules span
# tables and are Checks of the live model).
ACROSS = {
    "horizon.months": (
        "{c}>=contract_term_months",
        "at least the contract term (contract.term_months)",
    ),
    "contract.term_months": ("{c}<=horizon_months", "at most the horizon (horizon.months)"),
    "market.pro_growth_monthly": (
        "{c}>=-conversion_pro_churn_monthly",
        "at least minus the churn (conversion.pro_churn_monthly)",
    ),
    "conversion.pro_churn_monthly": (
        "{c}>=-market_pro_growth_monthly",
        "at least minus the Pro growth of the no-deal world (market.pro_growth_monthly)",
    ),
    "market.pro_subscribers_start": (
        "{c}<=market_mau",
        "at most the monthly active users (market.mau)",
    ),
    "market.mau": (
        "{c}>=market_pro_subscribers_start",
        "at least the Pro subscribers at the start",
    ),
}
# The ids econ.assumptions.CROSS_CHECKS requires to name a row of a table (a table column as
# "<table>.*.<column>"), by the defined name of that table's ids
KNOWN = {
    "contract.platform": "hardware_ids",
    "capacity.gpu_platform": "hardware_ids",
    "frontier.*.platform": "hardware_ids",
    "frontier.*.model": "models_ids",
}


def _known(key: str) -> str | None:
    parts = key.split(".")
    return KNOWN.get(key) or (KNOWN.get(f"{parts[0]}.*.{parts[2]}") if len(parts) == 3 else None)


def rule_formula(key: str, c: str) -> str:
    """Whether ``c`` (a cell holding the input of ``key``, "" where the input is blank) is a
    value econ accepts: its rule (econ.assumptions.rule_for, the one its data validation is
    built from), econ's smallest magnitude, the rules across keys of ACROSS and KNOWN; a blank
    only where the key is optional. The Checks sheet evaluates it, so that a value pasted past
    the data validation shows."""
    rule = rule_for(key)
    if rule is None:
        return "TRUE"
    if rule.kind == "id":
        if rule.choices:
            parts = ["OR(" + ",".join(f'EXACT({c},"{x}")' for x in rule.choices) + ")"]
        else:
            parts = [f"ISTEXT({c})"]
        if (names := _known(key)) is not None:
            parts.append(f"SUMPRODUCT(--EXACT({c},{names}))>0")
    else:
        parts = [f"ISNUMBER({c})"]
        if rule.kind == "integer":
            parts.append(f"{c}=INT({c})")
        if rule.low is not None:
            parts.append(f"{c}{'>' if rule.low_open else '>='}{_literal(rule.low)}")
        if rule.high is not None:
            parts.append(f"{c}{'<' if rule.high_open else '<='}{_literal(rule.high)}")
        if rule.low is None or rule.low < MIN_MAGNITUDE:  # 0 or at least the smallest magnitude
            parts.append(f"OR({c}=0,ABS({c})>={_literal(MIN_MAGNITUDE)})")
    if key in ACROSS:
        parts.append(ACROSS[key][0].format(c=c))
    body = parts[0] if len(parts) == 1 else f"AND({','.join(parts)})"
    return f'IFERROR(IF({c}="",{"TRUE" if rule.optional else "FALSE"},{body}),FALSE)'


def _literal(x: float) -> str:
    """A bound as a spreadsheet number (1E+18, 0.5, 100)."""
    return repr(x).upper() if isinstance(x, float) else str(x)


def _run_copy(book: Book, run_ws, row: int, col: int, value) -> str:
    """The run's value of an input at the same address on its hidden mirror sheet."""
    write_cell(run_ws, row, col, value)
    return f"'{run_ws.name}'!{xl_rowcol_to_cell(row, col)}"


def _input(
    book: Book,
    ws,
    run_ws,
    row: int,
    col: int,
    key: str,
    a: Assumptions,
    choices: str | None = None,
    widest: float | None = None,
) -> str:
    """One input cell: its value (blank where the data leave it blank), input style, the
    defined name of its key, data validation with the unit, and its copy on Run. ``widest``:
    the largest value of its table column, whose number format the column shares."""
    s = book.styles
    rule = rule_for(key)
    value = a.values.get(key)
    unit = rule.unit if rule else ""
    fmt = (
        "text"
        if isinstance(value, str)
        else format_for_input(
            unit,
            rule.kind if rule else "number",
            widest if widest is not None else None if value is None else float(value),
        )
    )
    write_cell(ws, row, col, value, s(fmt, "input", valign="top"))
    book.input_cells.append((ws, row, col, key, value, fmt))
    cell = xl_rowcol_to_cell(row, col)
    book.name(excel_name(key), absolute(ws.name, row, col))
    if rule is not None:
        v = validation_for(rule, unit, label(key), choices)
        if key in ACROSS:  # a rule spanning two keys (econ.assumptions.CROSS_CHECKS)
            extra, what = ACROSS[key]
            for bound in ("criteria", "minimum", "maximum"):
                v.pop(bound, None)  # XlsxWriter reads a custom rule's formula from "minimum" too
            v["validate"] = "custom"
            v["value"] = custom_rule_formula(rule, cell)[:-1] + "," + extra.format(c=cell) + ")"
            v["error_message"] = f"{v['error_message'][:-1]}, and {what}."[:255]
            v["input_message"] = v["error_message"]
        elif v["validate"] == "custom":
            v["value"] = custom_rule_formula(rule, cell)
        if rule.optional:
            v["ignore_blank"] = True
        ws.data_validation(row, col, row, col, v)
    run = _run_copy(book, run_ws, row, col, value)
    book.inputs.append((f"'{ws.name}'!{cell}", run))
    return cell


ASSUMPTION_HEADERS = (
    "Input",
    "Key (defined name: dots as underscores)",
    "Value",
    "Unit",
    "Source",
    "Note",
    "Changed since the run",
)
SOURCE_WIDTH = 100  # wide enough that a long source takes a few lines, not a page
ASSUMPTION_WIDTHS = ((0, 40, None), (1, 36, "key"), (2, 15, None), (3, 14, None),
                     (4, SOURCE_WIDTH, "wrap"), (5, 44, "wrap"), (6, 11, None))  # fmt: skip
# the columns that hold the conventions' lists, below the printed area
CONVENTION_LISTS = (("constant_irr_grid", IRR_GRID),)


def assumptions_sheet(book: Book, ws, run_ws, a: Assumptions) -> list[str]:
    """The scalar inputs and the conventions; returns the counts of changed inputs."""
    s = book.styles
    title = "Assumptions: every scalar input of the model, with its source"
    ws.write_string(0, 0, title, s("title"))
    ws.write_string(1, 0, LEGEND, s("note"))
    for col, width, style in ASSUMPTION_WIDTHS:
        ws.set_column(col, col, width, s(style) if style else None)
    row = _header(book, ws, 3, ASSUMPTION_HEADERS, height=30)
    changed = [_scalar_inputs(book, ws, run_ws, a, row)]
    row += len(SCALARS) + 2
    row = _conventions(book, ws, row)
    changed.append("COUNTIF(constants_changed_flags,TRUE)")
    row += 2
    ws.write_string(row, 0, "Inputs changed since the run", s("bold"))
    book.cells["inputs_changed_row"] = row
    book.cells["assumptions_print_end"] = row
    _convention_lists(book, ws, row + 2)
    ws.freeze_panes(4, 3)
    ws.hide_gridlines(2)
    return changed


def _header(book: Book, ws, row: int, headers, height: float | None = None) -> int:
    """A header row; returns the row."""
    for j, h in enumerate(headers):
        ws.write_string(row, j, h, book.styles("h"))
    if height:
        ws.set_row(row, height)
    return row


def _scalar_inputs(book: Book, ws, run_ws, a: Assumptions, header: int) -> str:
    """One row per scalar input below ``header``; returns the count of those changed."""
    s = book.styles
    row = header
    for key in SCALARS:
        row += 1
        e = a.entries[key] if key in a.entries else a.blanks[key]
        ws.write_string(row, 0, label(key), s("label", text_wrap=True, valign="top"))
        ws.write_string(row, 1, key, s("key", valign="top"))
        choices = "=hardware_ids" if key in ("contract.platform", "capacity.gpu_platform") else None
        cell = _input(book, ws, run_ws, row, VALUE_COL, key, a, choices)
        ws.write_string(row, 3, e.unit, s("unit", text_wrap=True, valign="top"))
        write_cell(ws, row, 4, e.source, s("wrap"))
        write_cell(ws, row, 5, e.note, s("wrap"))
        # as tall as the longest printed text (a label that says it is off the NPV included)
        side = off_the_npv(key, a.values.get(key), book.results)
        fit_row(ws, row, (e.source, SOURCE_WIDTH),
                (label(key) + SIDE_NOTE.format("Capacity") * side, 41), (e.unit, 14))  # fmt: skip
        ws.write_formula(row, 6, f"={cell}<>{book.inputs[-1][1]}", s("bool"), False)
    return f"COUNTIF({xl_rowcol_to_cell(header + 1, 6)}:{xl_rowcol_to_cell(row, 6)},TRUE)"


def _conventions(book: Book, ws, row: int) -> int:
    """The conventions block from ``row``, each named and flagged when edited; returns its
    last row."""
    s = book.styles
    title = "Conventions (not inputs): the constants the formulas use"
    ws.write_string(row, 0, title, s("section"))
    row = _header(
        book, ws, row + 1, ("Constant", "Name", "Value", "Unit", "Meaning", "", "Changed")
    )
    first = row + 1
    for key, value, unit, meaning in CONVENTIONS:
        row += 1
        ws.write_string(row, 0, key.removeprefix("constant.").replace("_", " "), s("label"))
        ws.write_string(row, 1, excel_name(key), s("key"))
        ws.write_number(row, 2, value, s("g", "const"))
        ws.write_formula(row, 6, f"={xl_rowcol_to_cell(row, 2)}<>{value!r}", s("bool"), False)
        ws.write_string(row, 3, unit, s("unit"))
        ws.write_string(row, 4, meaning, s("note"))
        book.name(excel_name(key), absolute(SHEET, row, 2))
    book.name("constants_changed_flags", f"'{SHEET}'!$G${first + 1}:$G${row + 1}")
    return row


def _convention_lists(book: Book, ws, row: int) -> None:
    """The IRR grid (conventions), one named column each."""
    s = book.styles
    title = "The IRR solver's grid of rates (conventions; not printed)"
    ws.write_string(row, 0, title, s("section"))
    row += 1
    for j, (name, mults) in enumerate(CONVENTION_LISTS):
        ws.write_string(row, 2 + j, name, s("key"))
        for i, m in enumerate(mults, start=1):
            ws.write_number(row + i, 2 + j, float(m), s("g", "const"))
        top = xl_rowcol_to_cell(row + 1, 2 + j, row_abs=True, col_abs=True)
        bottom = xl_rowcol_to_cell(row + len(mults), 2 + j, row_abs=True, col_abs=True)
        book.name(name, f"'{SHEET}'!{top}:{bottom}")


# Tables: source, note and changed at the same columns for every table, right of the widest
# table's inputs (the id in column A, then one column per field)
SRC = 1 + max(len(spec.columns) for spec in TABLES.values())
# the source and note on one line each, beyond the printed columns (a wrapped source would make
# the printed rows as tall as its lines)
TABLE_WIDTHS = ((0, 0, 16, None), (1, SRC - 1, 11, None), (SRC, SRC, 110, None),
                (SRC + 1, SRC + 1, 70, None), (SRC + 2, SRC + 2, 11, None))  # fmt: skip
HEADER_CHARS = 9  # characters of a bold header on a line of a column 11 wide


def tables_sheet(
    book: Book, ws, run_ws, a: Assumptions, changed: list[str], assumptions_ws
) -> None:
    """Plans, tiers, hardware and frontier: a row per id, a column per field; each cell named
    <table>_<id>_<column>; each column named <table>_<column> for INDEX/MATCH."""
    s = book.styles
    title = "Tables: plans, tiers, hardware, the throughput curves and the measured models, with their sources"
    ws.write_string(0, 0, title, s("title"))
    ws.write_string(1, 0, LEGEND, s("note"))
    for first, last, width, style in TABLE_WIDTHS:
        ws.set_column(first, last, width, s(style) if style else None)
    row = 3
    for table in ("plans", "tiers", "hardware", "frontier", "models"):
        if table == "frontier":  # the curves and the models they were measured on: page 2
            ws.set_h_pagebreaks([row])
        top, row = _table(book, ws, run_ws, a, table, row)
        flags = f"{xl_rowcol_to_cell(top, SRC + 2)}:{xl_rowcol_to_cell(row, SRC + 2)}"
        changed.append(f"COUNTIF('{TABLES_SHEET}'!{flags},TRUE)")
        row += 2
    ws.freeze_panes(3, 1)
    ws.hide_gridlines(2)
    book.cells["tables_print_end"] = row  # sources and notes (right of the inputs) on the screen
    book.cells["tables_last_input_col"] = SRC - 1
    r = book.cells["inputs_changed_row"]
    assumptions_ws.write_formula(r, 2, "=" + "+".join(changed), s("num"), 0)
    book.name("inputs_changed_count", absolute(SHEET, r, 2))


def _table_columns(a: Assumptions, table: str) -> list[str]:
    """The columns of a table the data use (an optional column only where some row sets it)."""
    spec = TABLES[table]
    return [
        c
        for c in spec.columns
        if c not in OPTIONAL_COLUMNS.get(table, ())
        or any(f"{table}.{i}.{c}" in a.values for i in a.tables[table])
    ]


def _table(book: Book, ws, run_ws, a: Assumptions, table: str, row: int) -> tuple[int, int]:
    """One table from ``row``: its title, header and a row per id; each column named. Returns
    (first row, last row) of its ids."""
    s = book.styles
    spec = TABLES[table]
    cols = _table_columns(a, table)
    ids = list(a.tables[table])
    if table == "frontier":  # sorted by platform (hardware.csv order) and speed
        ids = [i for p in a.platforms() for i in a.frontier_ids(p)]
    ws.write_string(row, 0, f"{table}.csv", s("section"))
    header = [table.rstrip("s").capitalize() if table != "hardware" else "Platform"]
    header += [f"{COLUMN_LABELS.get(c, c)} [{spec.columns[c].unit}]" for c in cols]
    header += [""] * (SRC - len(header)) + ["Source", "Note", "Changed since the run"]
    lines = max(len(textwrap.wrap(h, HEADER_CHARS)) for h in header[1:SRC])
    row = _header(book, ws, row + 1, header, height=15 * lines + 3)
    top = row + 1
    widest = {  # one number format per column, from its widest value
        c: max(
            (
                abs(v)
                for i in ids
                if isinstance(v := a.values.get(f"{table}.{i}.{c}"), float | int)
                and not isinstance(v, bool)
            ),
            default=None,
        )
        for c in cols
    }
    for rid in ids:
        row += 1
        _table_row(book, ws, run_ws, a, table, rid, cols, row, widest)
    book.name(f"{table}_ids", column_range(TABLES_SHEET, 0, top, row))
    for j, c in enumerate(cols, start=1):
        book.name(f"{table}_{c}", column_range(TABLES_SHEET, j, top, row))
    book.cells[f"{table}.rows"] = (top, row)
    return top, row


def _table_row(
    book: Book, ws, run_ws, a, table: str, rid: str, cols: list[str], row: int, widest: dict
) -> None:
    """One id of a table: its inputs, source, note and whether any input changed since the run
    (the row against its copy on Run tables, where a note such as "the rest" is copied too)."""
    s = book.styles
    spec = TABLES[table]
    ws.write_string(row, 0, rid, s("bold"))
    for j, c in enumerate(cols, start=1):
        key = f"{table}.{rid}.{c}"
        if table == "tiers" and key not in a.values:
            text = "the rest" if c == "adoption" else ""
            ws.write_string(row, j, text, s("note"))
            run_ws.write_string(row, j, text)
        elif key not in a.values:  # a blank optional cell: still an input, named
            _blank_input(book, ws, run_ws, row, j, key, spec.columns[c])
        else:
            choices = "=hardware_ids" if c == "platform" else None
            _input(book, ws, run_ws, row, j, key, a, choices, widest[c])
    e = a.entries[f"{table}.{rid}.{cols[0]}"]
    write_cell(ws, row, SRC, e.source, s("label"))
    write_cell(ws, row, SRC + 1, e.note, s("note"))
    span = f"{xl_rowcol_to_cell(row, 1)}:{xl_rowcol_to_cell(row, len(cols))}"
    diff = f"SUMPRODUCT(--({span}<>'{run_ws.name}'!{span}))>0"
    ws.write_formula(row, SRC + 2, "=" + diff, s("bool"), False)


def fit_row(ws, row: int, *texts: tuple[str, float]) -> None:
    """A row tall enough for its wrapped texts (text, column width): spreadsheet applications
    do not all grow a row for wrapped text when they open a file."""
    lines = max((math.ceil(len(t) / max(1.0, w - 2)) for t, w in texts if t), default=1)
    if lines > 1:
        ws.set_row(row, 15 * lines)


LEGEND = (
    "Blue on yellow: an input the live sheets use. Purple on grey: the answer follows it only "
    "after a rerun of econ (see Checks). Names: the key with dots as underscores."
)


def _blank_input(book: Book, ws, run_ws, row: int, col: int, key: str, rule) -> None:
    """A blank optional input (a platform rented by the hour only, a link that does not limit)."""
    s = book.styles
    ws.write_blank(row, col, None, s("g", "input"))
    book.input_cells.append((ws, row, col, key, None, "g"))
    book.name(excel_name(key), absolute(ws.name, row, col))
    cell = xl_rowcol_to_cell(row, col)
    v = validation_for(rule, rule.unit, label(key))
    if v["validate"] == "custom":
        v["value"] = custom_rule_formula(rule, cell)
    v["ignore_blank"] = True
    ws.data_validation(row, col, row, col, v)
    run_ws.write_blank(row, col, None)
    book.inputs.append((f"'{ws.name}'!{cell}", f"'{run_ws.name}'!{cell}"))
