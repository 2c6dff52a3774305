"""The Assumptions sheet (every input, named, validated, with its source) and its hidden mirror
"Run" (every input's value in the econ run, so that the workbook knows when it was edited)."""

from __future__ import annotations

import math

from xlsxwriter.utility import xl_rowcol_to_cell

from econ.assumptions import OPTIONAL_COLUMNS, SCALARS, TABLES, Assumptions, rule_for
from econ.compute.capacity import COVER_RTOL
from econ.compute.physics import _CHIP_ROUNDING, SPEED_MULTIPLIERS
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

# the version-2 layouts the Capacity sheet still shows (the model's grid is physics.stage_grid)
STAGE_MULTIPLIERS = (1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0)

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
    ("constant.ceiling_slack", 1e-12, "-", "tranches: a month this close to a tranche's end is in it"),
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
        "an IRR above this is shown as 'above 1,000% a year', not as a rate",
    ),
    (
        "constant.match_tolerance",
        CHECK_RTOL,
        "-",
        "relative tolerance of the match with the econ run",
    ),
)


def _run_copy(book: Book, run_ws, row: int, col: int, value) -> str:
    """The run's value of an input at the same address on its hidden mirror sheet."""
    write_cell(run_ws, row, col, value)
    return f"'{run_ws.name}'!{xl_rowcol_to_cell(row, col)}"


def _input(
    book: Book, ws, run_ws, row: int, col: int, key: str, a: Assumptions, choices: str | None = None
) -> str:
    """One input cell: its value (blank where the data leave it blank), input style, the
    defined name of its key, data validation with the unit, and its copy on Run."""
    s = book.styles
    rule = rule_for(key)
    value = a.values.get(key)
    unit = rule.unit if rule else ""
    fmt = (
        "text"
        if isinstance(value, str)
        else format_for_input(
            unit, rule.kind if rule else "number", None if value is None else float(value)
        )
    )
    write_cell(ws, row, col, value, s(fmt, "input"))
    book.input_cells.append((ws, row, col, key, value, fmt))
    cell = xl_rowcol_to_cell(row, col)
    book.name(excel_name(key), absolute(ws.name, row, col))
    if rule is not None:
        v = validation_for(rule, unit, label(key), choices)
        if v["validate"] == "custom":
            v["value"] = custom_rule_formula(rule, cell)
        if rule.optional:
            v["ignore_blank"] = True
        ws.data_validation(row, col, row, col, v)
    run = _run_copy(book, run_ws, row, col, value)
    book.inputs.append((f"'{ws.name}'!{cell}", run))
    return cell


def assumptions_sheet(book: Book, ws, run_ws, a: Assumptions) -> list[str]:
    """The scalar inputs and the conventions; returns the counts of changed inputs."""
    s = book.styles
    ws.write_string(
        0, 0, "Assumptions: every scalar input of the model, with its source", s("title")
    )
    ws.write_string(1, 0, LEGEND, s("note"))
    ws.set_column(0, 0, 40)
    ws.set_column(1, 1, 36, s("key"))
    ws.set_column(2, 2, 15)
    ws.set_column(3, 3, 17)
    ws.set_column(4, 4, 56, s("wrap"))
    ws.set_column(5, 5, 44, s("wrap"))
    ws.set_column(6, 6, 11)
    changed: list[str] = []
    row = 3
    for j, h in enumerate(
        (
            "Input",
            "Key (defined name: dots as underscores)",
            "Value",
            "Unit",
            "Source",
            "Note",
            "Changed since the run",
        )
    ):
        ws.write_string(row, j, h, s("h"))
    ws.set_row(row, 30)
    first = row + 1
    for key in SCALARS:
        row += 1
        e = a.entries[key] if key in a.entries else a.blanks[key]
        ws.write_string(row, 0, label(key), s("label"))
        ws.write_string(row, 1, key, s("key"))
        choices = "=hardware_ids" if key in ("contract.platform", "capacity.gpu_platform") else None
        cell = _input(book, ws, run_ws, row, VALUE_COL, key, a, choices)
        ws.write_string(row, 3, e.unit, s("unit"))
        write_cell(ws, row, 4, e.source, s("wrap"))
        write_cell(ws, row, 5, e.note, s("wrap"))
        fit_row(ws, row, (e.source, 56))
        ws.write_formula(row, 6, f"={cell}<>{book.inputs[-1][1]}", s("bool"), False)
    changed.append(f"COUNTIF({xl_rowcol_to_cell(first, 6)}:{xl_rowcol_to_cell(row, 6)},TRUE)")
    row += 2
    ws.write_string(
        row, 0, "Conventions (not inputs): the constants the formulas use", s("section")
    )
    row += 1
    for j, h in enumerate(("Constant", "Name", "Value", "Unit", "Meaning", "", "Changed")):
        ws.write_string(row, j, h, s("h"))
    const_first = row + 1
    for key, value, unit, meaning in CONVENTIONS:
        row += 1
        ws.write_string(row, 0, key.removeprefix("constant.").replace("_", " "), s("label"))
        ws.write_string(row, 1, excel_name(key), s("key"))
        ws.write_number(row, 2, value, s("g", "const"))
        ws.write_formula(row, 6, f"={xl_rowcol_to_cell(row, 2)}<>{value!r}", s("bool"), False)
        ws.write_string(row, 3, unit, s("unit"))
        ws.write_string(row, 4, meaning, s("note"))
        book.name(excel_name(key), absolute(SHEET, row, 2))
    book.name("constants_changed_flags", f"'{SHEET}'!$G${const_first + 1}:$G${row + 1}")
    changed.append("COUNTIF(constants_changed_flags,TRUE)")
    row += 2
    ws.write_string(row, 0, "Inputs changed since the run", s("bold"))
    book.cells["inputs_changed_row"] = row
    book.cells["assumptions_print_end"] = row
    row += 2
    ws.write_string(
        row,
        0,
        "Candidate layouts, serving speeds and IRR grid (conventions; not printed)",
        s("section"),
    )
    row += 1
    for j, (name, mults) in enumerate(
        (
            ("constant_stage_multipliers", STAGE_MULTIPLIERS),
            ("constant_speed_multipliers", SPEED_MULTIPLIERS),
            ("constant_irr_grid", IRR_GRID),
        )
    ):
        ws.write_string(row, 2 + j, name, s("key"))
        for i, m in enumerate(mults, start=1):
            ws.write_number(row + i, 2 + j, float(m), s("g", "const"))
        top = xl_rowcol_to_cell(row + 1, 2 + j, row_abs=True, col_abs=True)
        bottom = xl_rowcol_to_cell(row + len(mults), 2 + j, row_abs=True, col_abs=True)
        book.name(name, f"'{SHEET}'!{top}:{bottom}")
    ws.freeze_panes(4, 3)
    ws.hide_gridlines(2)
    return changed


def tables_sheet(
    book: Book, ws, run_ws, a: Assumptions, changed: list[str], assumptions_ws
) -> None:
    """Plans, tiers, hardware and frontier: a row per id, a column per field; each cell named
    <table>_<id>_<column>; each column named <table>_<column> for INDEX/MATCH."""
    s = book.styles
    ws.write_string(
        0,
        0,
        "Tables: plans, tiers, hardware, the throughput curves and the measured models, with their sources",
        s("title"),
    )
    ws.write_string(1, 0, LEGEND, s("note"))
    ws.set_column(0, 0, 16)
    ws.set_column(1, 13, 11)
    ws.set_column(14, 14, 60, s("wrap"))
    ws.set_column(15, 15, 40, s("wrap"))
    ws.set_column(16, 16, 11)
    row = 3
    SRC = 14  # source, note and changed at the same columns for every table
    for table in ("plans", "tiers", "hardware", "frontier", "models"):
        spec = TABLES[table]
        cols = [
            c
            for c in spec.columns
            if c not in OPTIONAL_COLUMNS.get(table, ())
            or any(f"{table}.{i}.{c}" in a.values for i in a.tables[table])
        ]
        ids = list(a.tables[table])
        if table == "frontier":  # sorted by platform (hardware.csv order) and speed
            ids = [i for p in a.platforms() for i in a.frontier_ids(p)]
        ws.write_string(row, 0, f"{table}.csv", s("section"))
        row += 1
        header = [table.rstrip("s").capitalize() if table != "hardware" else "Platform"]
        header += [f"{COLUMN_LABELS.get(c, c)} [{spec.columns[c].unit}]" for c in cols]
        header += [""] * (SRC - len(header)) + ["Source", "Note", "Changed since the run"]
        for j, h in enumerate(header):
            ws.write_string(row, j, h, s("h"))
        ws.set_row(row, 42)
        top = row + 1
        for rid in ids:
            row += 1
            ws.write_string(row, 0, rid, s("bold"))
            cells = []
            for j, c in enumerate(cols, start=1):
                key = f"{table}.{rid}.{c}"
                if table == "tiers" and key not in a.values:
                    ws.write_string(row, j, "the rest" if c == "adoption" else "", s("note"))
                    continue
                if key not in a.values:  # a blank optional cell: still an input, named
                    _blank_input(book, ws, run_ws, row, j, key, spec.columns[c])
                else:
                    _input(
                        book,
                        ws,
                        run_ws,
                        row,
                        j,
                        key,
                        a,
                        "=hardware_ids" if c == "platform" else None,
                    )
                cells.append((xl_rowcol_to_cell(row, j), book.inputs[-1][1]))
            e = a.entries[f"{table}.{rid}.{cols[0]}"]
            write_cell(ws, row, SRC, e.source, s("wrap"))
            write_cell(ws, row, SRC + 1, e.note, s("wrap"))
            fit_row(ws, row, (e.source, 60), (e.note, 40))
            diff = ",".join(f"{c}<>{r}" for c, r in cells)
            ws.write_formula(row, SRC + 2, f"=OR({diff})", s("bool"), False)
        changed.append(
            f"COUNTIF('{TABLES_SHEET}'!{xl_rowcol_to_cell(top, SRC + 2)}:{xl_rowcol_to_cell(row, SRC + 2)},TRUE)"
        )
        book.name(f"{table}_ids", column_range(TABLES_SHEET, 0, top, row))
        for j, c in enumerate(cols, start=1):
            book.name(f"{table}_{c}", column_range(TABLES_SHEET, j, top, row))
        book.cells[f"{table}.rows"] = (top, row)
        row += 2
    ws.freeze_panes(3, 1)
    ws.hide_gridlines(2)
    book.cells["tables_print_end"] = row  # sources and notes (columns O, P) on the screen
    r = book.cells["inputs_changed_row"]
    assumptions_ws.write_formula(r, 2, "=" + "+".join(changed), s("num"), 0)
    book.name("inputs_changed_count", absolute(SHEET, r, 2))


def fit_row(ws, row: int, *texts: tuple[str, float]) -> None:
    """A row tall enough for its wrapped texts (text, column width): spreadsheet applications
    do not all grow a row for wrapped text when they open a file."""
    lines = max((math.ceil(len(t) / max(1.0, w - 2)) for t, w in texts if t), default=1)
    if lines > 1:
        ws.set_row(row, 15 * lines)


LEGEND = (
    "Blue on yellow: an input the live sheets use (edit it and the workbook recalculates). "
    "Purple on grey: an econ input the sheets do not use: rerun econ after changing. Each "
    "input has a defined name, its key with dots as underscores (contract_value_usd)."
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
