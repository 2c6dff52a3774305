"""The Capacity sheet: the contract platform's curve and physics as live formulas (the
frontier's PCHIP, the physics envelope at the ultrafast and standard speeds, the throughput
that feeds the money, agent task times), then snapshot tables of every platform and a chart.

The live rows are declared in ``econ/report/capacity_rows.py``; ``render`` writes them, one
writer a kind of declaration.
"""

from __future__ import annotations

import re

import numpy as np
from xlsxwriter.utility import xl_rowcol_to_cell

from econ.assumptions import Assumptions
from econ.model import Results
from econ.report import capacity_rows as cr
from econ.report.capacity_rows import Across, Header, Marked, Note, Table
from econ.report.envelope_rows import envelope_blocks
from econ.report.rows import Result, Section
from econ.report.workbook import write_cell, write_formula
from econ.report.xl import Book, absolute, banner, cached, column_range

SHEET = "Capacity"
CELL = re.compile(r"\[([a-z_]\w*)(?:([+-]\d+))?\]")  # [col], [col+1]: a Table's cell


def contract_platform_block(book: Book, ws, a: Assumptions, r: Results) -> int:
    """The live block; returns the next free row."""
    s = book.styles
    ws.write_string(0, 0, "Capacity and physics: what a megawatt serves at each speed", s("title"))
    ws.write_string(
        1,
        0,
        "Live: the contract platform (chosen on Assumptions) through INDEX/MATCH, its curve's PCHIP "
        "in log-log space, the physics envelope, and the throughput that feeds the money.",
        s("note"),
    )
    ws.set_column(0, 0, 45)
    ws.set_column(1, 1, 15)  # USD per 1M tokens
    ws.set_column(2, 3, 13)  # [tokens/s/user]
    ws.set_column(4, 13, 9)
    _ = book.cells["frontier.rows"]  # Tables is written first: the knots are read from it
    return render(book, ws, 2, declarations(a, r)) + 1


def declarations(a: Assumptions, r: Results) -> list:
    """Every live row of the Capacity sheet, top to bottom."""
    return [*cr.platform_rows(a), *cr.knot_table(a), *cr.curve_rows(a), *cr.gpu_rows(a),
            *cr.physics_rows(a), *cr.served_rows(a, r, envelope_blocks(a, r)),
            *cr.agent_rows(a)]  # fmt: skip


def render(book: Book, ws, row: int, decls) -> int:
    """Write the declarations from ``row`` down; returns the row after the last."""
    for d in decls:
        row = WRITERS[type(d)](book, ws, row, d)
    return row


def _row(book: Book, ws, row: int, label: str, unit: str) -> None:
    ws.write_string(row, 0, label, book.styles("label"))
    ws.write_string(row, 1, unit, book.styles("unit"))


def _section(book: Book, ws, row: int, d: Section) -> int:
    ws.write_string(row + 1, 0, d.title, book.styles("section"))
    return row + 2


def _note(book: Book, ws, row: int, d: Note) -> int:
    ws.write_string(row, 0, d.text, book.styles("note"))
    return row + 1


def _result(book: Book, ws, row: int, d: Result) -> int:
    _row(book, ws, row, d.label, d.unit)
    write_formula(ws, row, 2, "=" + d.formula, cached(d.value), book.styles(d.fmt))
    book.name(d.name, absolute(SHEET, row, 2))
    book.declared.append((SHEET, d))
    if d.match is not None:
        book.matches.append((d.match, d.value, d.name, d.fmt))
    return row + 1


def _header(book: Book, ws, row: int, d: Header) -> int:
    s = book.styles
    ws.write_string(row, 0, d.title, s("h"))
    ws.write_string(row, 1, "Unit", s("h"))
    for j, key in enumerate(d.keys):
        ws.write_string(row, 2 + j, key, s("h"))
    return row + 1


def _across(book: Book, ws, row: int, d: Across) -> int:
    _row(book, ws, row, d.label, d.unit)
    for j, (key, value) in enumerate(d.values.items()):
        formula = "=" + d.formula.replace("{key}", key)
        write_formula(ws, row, 2 + j, formula, cached(value), book.styles(d.fmt))
        book.name(d.name.replace("{key}", key), absolute(SHEET, row, 2 + j))
    book.declared.append((SHEET, d))
    return row + 1


def _marked(book: Book, ws, row: int, d: Marked) -> int:
    """A value of the run: styled "rerun econ", named, listed on Checks (inventory)."""
    _row(book, ws, row, d.label, d.unit)
    style = book.styles(d.fmt, "rerun")
    if np.isfinite(d.value):
        ws.write_number(row, 2, d.value, style)
    else:  # none in the run (a tier not offered has no served speed)
        ws.write_blank(row, 2, None, style)
    book.name(d.name, absolute(SHEET, row, 2))
    book.marked.append((d.name, d.label, d.unit))
    book.marked_values[d.name] = d.value
    if d.match is not None:
        book.matches.append((d.match, d.value, d.name, d.fmt))
    return row + 1


def _table(book: Book, ws, row: int, d: Table) -> int:
    """A header (with units), then one row per item; each column a defined name."""
    s = book.styles
    for j, c in enumerate(d.columns):
        ws.write_string(row, j, f"{c.header} [{c.unit}]" if c.unit else c.header, s("h"))
    ws.set_row(row, 58)  # four lines of header (a long unit wraps to the fourth)
    top, where = row + 1, {c.name: j for j, c in enumerate(d.columns)}
    for i in range(len(d.columns[0].values)):
        r_ = top + i

        def cell(mt: re.Match, r_=r_) -> str:
            return xl_rowcol_to_cell(r_ + int(mt.group(2) or 0), where[mt.group(1)])

        for j, c in enumerate(d.columns):
            if c.formula is None and c.run:  # a value of the econ run
                ws.write_number(r_, j, c.values[i], s(c.fmt, "rerun"))
                continue
            if c.formula is None:
                ws.write_string(r_, j, c.values[i], s("label"))
                continue
            formula = "=" + CELL.sub(cell, c.formula).replace("{i}", str(i + 1))
            write_formula(ws, r_, j, formula, cached(c.values[i]), s(c.fmt))
    bottom = top + len(d.columns[0].values) - 1
    for j, c in enumerate(d.columns):
        if c.formula is not None or c.run:
            book.name(f"{d.name}_{c.name}", column_range(SHEET, j, top, bottom))

    return bottom + 1


WRITERS = {Section: _section, Note: _note, Result: _result, Header: _header, Across: _across,
           Marked: _marked, Table: _table}  # fmt: skip


SNAPSHOTS = (  # title, key of the analysis: values of the run, under a banner
    ("Every platform at every tier speed (capacity table of econ capacity)", "capacity_table"),
    ("Each frontier point against the physics envelope of the served model", "frontier_audit"),
    ("Calibration: published speeds of named models against the per-user ceiling the hardware "
     "figures predict (data/calibration.csv)", "calibration"),
    ("Public model speeds the articles quote (data/speeds.csv; marked on the chart)", "speeds"),
)  # fmt: skip


def snapshot_block(book: Book, ws, row: int, a: Assumptions, analysis: dict) -> None:
    """Every platform at every tier speed, the frontier audit, the calibration and the public
    speeds: values of the run, under a banner."""
    book.cells["capacity_live_end"] = row  # the snapshots below are for the screen
    banner(ws, book, row + 1, "the tables below (every platform, the audit, the calibration)")
    row += 3
    for title, key in SNAPSHOTS:
        row = _snapshot_table(book, ws, row, title, analysis[key])
    _frontier_chart(book, ws, a, analysis["frontier_curves"], analysis["speeds"], row)


def _snapshot_table(book: Book, ws, row: int, title: str, df) -> int:
    """A table of the run: one number format a column (two decimals under 1,000)."""
    s = book.styles
    ws.write_string(row, 0, title, s("section"))
    row += 1
    for j, c in enumerate(df.columns):
        ws.write_string(row, j, c.replace("_", " "), s("h"))
    ws.set_row(row, 45)  # three lines: "cost per mtok / rent data / usd"
    for j, c in enumerate(df.columns):
        values = list(df[c])
        real = [abs(x) for x in values if isinstance(x, float) and np.isfinite(x)]
        fmt = s("num2") if real and max(real) < 1000 else s("num")
        for i, x in enumerate(values, start=1):
            write_cell(ws, row + i, j, x, None if isinstance(x, str | bool) else fmt)
    return row + len(df) + 2


COLORS = ("#1F4E79", "#C00000", "#548235", "#7030A0", "#BF8F00", "#2E75B6")


def _chart_series(a: Assumptions, curves, speeds) -> list[tuple[str, list[tuple]]]:
    """The chart's series, in blocks: (title, [(name, points (label, x, y), XlsxWriter style)])."""
    out = []
    for (p, kind), g in curves.groupby(["platform", "curve"], sort=False):
        color = COLORS[list(a.platforms()).index(p) % len(COLORS)]
        width, dash = (2.0, "solid") if kind == "data" else (1.0, "dash")
        points = [
            (f"{p} {kind}", float(x), float(y))
            for x, y in zip(g.iloc[:, 2], g.iloc[:, 3], strict=True)
        ]
        out.append((f"{p} {kind}", points,
                    {"line": {"color": color, "width": width, "dash_type": dash}}))  # fmt: skip
    public = ("public speeds",
              [(m, float(x), 10_000.0) for m, x in zip(speeds["model"], speeds["tokens_per_s"], strict=True)],
              {"marker": {"type": "diamond", "size": 7}, "line": {"none": True},
               "data_labels": {"custom": [{"value": m} for m in speeds["model"]],
                               "position": "above", "font": {"size": 7, "rotation": -45}}})  # fmt: skip
    tiers = [(f"{t} tier", [(t, a.num(f"tiers.{t}.tokens_per_s"), y) for y in (1_000.0, 1e7)],
              {"line": {"color": "#7F7F7F", "width": 0.75, "dash_type": "round_dot"},
               "marker": {"type": "none"}}) for t in a.tier_ids()]  # fmt: skip
    return [("Chart data (values of the run): the curves", out),
            ("Public speeds (marked at 10,000 tokens/s per MW)", [public]),
            ("Tier speeds (vertical lines)", tiers)]  # fmt: skip


def _frontier_chart(book: Book, ws, a: Assumptions, curves, speeds, row: int) -> None:
    """Throughput against speed per platform: data curve, physics envelope, public speeds."""
    s = book.styles
    chart_row = row
    book.cells["capacity_chart_row"] = chart_row  # a page break keeps the chart whole
    row += 32  # the chart sits above its data, which does not print
    book.cells["capacity_print_end"] = row - 1
    chart = book.wb.add_chart({"type": "scatter", "subtype": "straight"})
    for title, block in _chart_series(a, curves, speeds):
        ws.write_string(row, 0, title, s("section"))
        for j, h in enumerate(("series", "", "tokens/s per user", "tokens/s per MW")):
            ws.write_string(row + 1, j, h, s("h"))
        row += 2
        for name, points, style in block:
            for i, (label, x, y) in enumerate(points):
                write_cell(ws, row + i, 0, label)
                write_cell(ws, row + i, 2, x)
                write_cell(ws, row + i, 3, y)
            last = row + len(points) - 1
            chart.add_series({"name": name, "categories": [SHEET, row, 2, last, 2],
                              "values": [SHEET, row, 3, last, 3], **style})  # fmt: skip
            row = last + 1
        row += 1
    chart.set_title(
        {"name": "Throughput against responsiveness (data curves solid, physics envelopes dashed)"}
    )
    chart.set_x_axis({"name": "tokens/s per user", "log_base": 10, "min": 10, "max": 10_000})
    chart.set_y_axis({"name": "tokens/s per facility MW", "log_base": 10, "min": 1_000})
    chart.set_legend({"position": "bottom"})
    chart.set_size({"width": 900, "height": 560})
    ws.insert_chart(chart_row, 0, chart)
