"""Snapshot sheets declared block by block (docs/extending.md, "A block of a snapshot sheet").

A snapshot sheet (an analysis of the run, the comparison of scenarios) is a ``Sheet``: its
title, a note, the banner, its columns' widths and a list of blocks, each under its own
title. A ``Table`` shows a frame's columns, each declared once (``Col``: heading with its
unit, number format); a ``Matrix`` a two-way grid with a colour scale; ``Charts`` native
charts over a table's cells, side by side; a ``Note`` a line of text. One renderer
(``render``) lays the blocks out top to bottom, writes them and sets the printout: the first
``printed`` blocks, one page wide, each block marked ``page`` starting a printed page (a
block of charts always does, so that no chart is cut across pages).

Every value cell is a number or blank, in its column's format, or in its row's format where
a column holds each row's own unit (``Col(fmt="row")`` and ``Table.row_fmt``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from xlsxwriter.utility import xl_rowcol_to_cell

from econ.report.workbook import write_cell, write_formula
from econ.report.xl import Book

# number formats beside NUMBER_FORMATS: large counts, and a share (never negative: a
# probability, a share of the samples, their standard errors) as econ's terminal writes it, one
# decimal, two below 1 % (LibreOffice drops the minus sign in a section with a condition, so
# this format is for values >= 0 only)
MORE_FORMATS = {
    "num_m": '#,##0.00,,"M"',
    "num_b": '#,##0.00,,,"B"',
    "num_t": '#,##0.00,,,,"T"',
    "share": "[=0]0.0%;[<0.01]0.00%;0.0%",
}
DEFAULT_WIDTH = 12
ROW_PX = 20  # a row of the default height, in pixels
CHART_GAP_PX = 16  # between charts side by side
CHARS_A_LINE = 1.1  # a note's characters per character of column width (italic 11 pt)


@dataclass(frozen=True)
class Col:
    """A column of a table: the frame's column ``key``, its heading (with the unit), and its
    number format: a name of NUMBER_FORMATS or MORE_FORMATS, ``text``, or ``row`` (each row's
    own format, from ``Table.row_fmt``: a column of values in each row's unit)."""

    key: str
    head: str
    fmt: str = "num2"


@dataclass(frozen=True)
class Table:
    """A frame under its title; ``name`` lets a chart read its cells; ``notes`` are printed
    under it; ``row_fmt`` gives each row's format for the ``row`` columns."""

    name: str
    title: str
    frame: pd.DataFrame
    cols: tuple[Col, ...]
    notes: tuple[str, ...] = ()
    row_fmt: Sequence[str] | None = None
    page: bool = False

    def height(self) -> int:
        return 2 + len(self.frame) + len(self.notes) + 1


@dataclass(frozen=True)
class Matrix:
    """A two-way table: ``values`` indexed by the row key's values, its columns the column
    key's; ``corner`` says which key is which; a 3-colour scale where ``colour`` is given."""

    title: str
    values: pd.DataFrame
    corner: str
    x_fmt: str
    y_fmt: str
    fmt: str
    colour: dict | None = None
    notes: tuple[str, ...] = ()
    page: bool = False

    def height(self) -> int:
        return 2 + len(self.values) + len(self.notes) + 1


@dataclass(frozen=True)
class Series:
    """One series of a chart: legend ``name``, the table columns of its categories (``x``)
    and values (``y``), and its look (fill, line, gap) as XlsxWriter takes them."""

    name: str
    x: str
    y: str
    look: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Chart:
    """A native chart over the cells of the table ``table`` (its first ``first`` rows only,
    where given: the largest bars)."""

    kind: str
    table: str
    title: str
    series: tuple[Series, ...]
    x_axis: dict = field(default_factory=dict)
    y_axis: dict = field(default_factory=dict)
    legend: dict = field(default_factory=lambda: {"none": True})
    size: tuple[int, int] = (540, 300)
    subtype: str | None = None
    first: int | None = None


@dataclass(frozen=True)
class Charts:
    """Charts side by side, ``across`` a line, under their title; a block of charts starts a
    printed page. ``beside``: the charts stand to the right of that table, at its top, and
    take no rows of their own (a long table and its chart on one printed page)."""

    title: str
    charts: tuple[Chart, ...]
    across: int = 2
    page: bool = True
    beside: str | None = None

    def lines(self) -> list[tuple[Chart, ...]]:
        return [self.charts[i : i + self.across] for i in range(0, len(self.charts), self.across)]

    def height(self) -> int:
        if self.beside is not None:
            return 0
        return 1 + sum(_rows(max(c.size[1] for c in line)) + 1 for line in self.lines())


@dataclass(frozen=True)
class Note:
    """A line of text across the printed width (wrapped, never cut)."""

    text: str
    page: bool = False

    def height(self) -> int:
        return 2


Block = Table | Matrix | Charts | Note


@dataclass(frozen=True)
class Sheet:
    """A snapshot sheet: title, a note under it, the banner's words (``what``: the snapshot
    of the run; or ``banner``, a sentence of its own), column widths from column A (the rest
    DEFAULT_WIDTH), and its blocks; the first ``printed`` blocks print (None: all)."""

    title: str
    note: str
    what: str
    widths: tuple[float, ...]
    blocks: tuple[Block, ...]
    printed: int | None = None
    banner: str | None = None
    last_col: int | None = None  # the printed width, where the printout fixes it elsewhere


HEAD_ROWS = 4  # title, note, banner, a blank row
# a printed page, fit to its width: about 0.045 rows of the default height a pixel of the area's
# width (LibreOffice, landscape A4, the margins of xl.print_setup; measured, taken a little
# lower), and no fewer rows than at full size, which an area of about 880 pixels fills
ROWS_A_PAGE_PX = 0.042
PAGE_PX_AT_FULL_SIZE = 880
KEEP_ROWS = 20  # a table this short is never cut across pages


def render(book: Book, ws, sheet: Sheet) -> dict[str, tuple[int, dict[str, int]]]:
    """Write ``sheet`` on ``ws`` and set its printout; returns each table's first data row and
    column by key (what a chart or a test reads)."""
    for j, w in enumerate(sheet.widths):
        ws.set_column(j, j, w)
    printed = sheet.blocks[: sheet.printed]
    last_col = sheet.last_col
    if last_col is None:
        last_col = max(_last_col(b, sheet) for b in printed)
    tops, breaks, end = _layout(sheet, last_col)
    _head(book, ws, sheet, last_col)
    where = {b.name: (top + 2, b) for b, top in zip(sheet.blocks, tops, strict=True)
             if isinstance(b, Table)}  # fmt: skip
    for block, top in zip(sheet.blocks, tops, strict=True):
        _write(book, ws, block, top, last_col, where, sheet)
    ws.print_area(0, 0, max(end - 2, HEAD_ROWS), last_col)
    if breaks:
        ws.set_h_pagebreaks(breaks)
    return {
        name: (top, {c.key: j for j, c in enumerate(t.cols)}) for name, (top, t) in where.items()
    }


def _layout(sheet: Sheet, last_col: int) -> tuple[list[int], list[int], int]:
    """Each block's first row, the printed page breaks, the row after the printed blocks.

    A printed page holds about ROWS_A_PAGE_PX of rows a pixel of printed width (fit to the
    page's width: the wider the area, the smaller the print and the more rows a page); a block
    that should not be cut (charts, a matrix, a short table, a table with charts beside it)
    starts a new page where the rest of the page would not hold it."""
    px = sum(_px(sheet.widths, j) for j in range(last_col + 1))
    page = max(px, PAGE_PX_AT_FULL_SIZE) * ROWS_A_PAGE_PX
    tops, breaks, row, used = [], [], HEAD_ROWS, HEAD_ROWS + 1.0
    n = len(sheet.blocks) if sheet.printed is None else sheet.printed
    for i, block in enumerate(sheet.blocks):
        tall = _tall(block, sheet, last_col)
        whole = _keep(block, sheet) and tall <= page
        if (
            i < n
            and block.height()
            and row > HEAD_ROWS
            and (block.page or (whole and used + tall > page))
        ):
            breaks.append(row)
            used = 0.0
        tops.append(row)
        row += block.height()
        used += tall if block.height() else 0
        while used > page:  # a long table runs on to the next pages
            used -= page
    end = tops[n] if n < len(tops) else row
    return tops, breaks, end


def _tall(block: Block, sheet: Sheet, last_col: int) -> float:
    """A block's printed height in rows of the default height (wrapped notes count their
    lines; a table with charts beside it, the charts' rows where they are taller)."""
    notes = getattr(block, "notes", ()) or ((block.text,) if isinstance(block, Note) else ())
    extra = sum(_lines(t, sheet.widths, last_col) - 1 for t in notes)
    rows = block.height() + extra
    if isinstance(block, Table):
        beside = [b for b in sheet.blocks if isinstance(b, Charts) and b.beside == block.name]
        for b in beside:
            rows = max(rows, 1 + sum(_rows(max(c.size[1] for c in line)) for line in b.lines()))
    return rows


def _keep(block: Block, sheet: Sheet) -> bool:
    if isinstance(block, Table):
        return len(block.frame) <= KEEP_ROWS or any(
            isinstance(b, Charts) and b.beside == block.name for b in sheet.blocks
        )
    return not isinstance(block, Note)


def _write(book: Book, ws, block: Block, top: int, last_col: int, where: dict, sheet) -> None:
    if isinstance(block, Note):
        note(book, ws, top, block.text, last_col, sheet.widths)
        return
    if not (isinstance(block, Charts) and block.beside is not None):
        ws.write_string(top, 0, block.title, book.styles("section"))
    if isinstance(block, Table):
        _table(book, ws, block, top + 1, last_col, sheet.widths)
    elif isinstance(block, Matrix):
        _matrix(book, ws, block, top + 1, last_col, sheet.widths)
    elif block.beside is not None:
        first, _ = where[block.beside]
        _charts(book, ws, block, first - 2, where, _beside(sheet, block) + 1)
    else:
        _charts(book, ws, block, top + 1, where, 0)


def style(book: Book, name: str):
    """The cell format of a number format's name (NUMBER_FORMATS or MORE_FORMATS)."""
    if name in MORE_FORMATS:
        return book.styles("g", num_format=MORE_FORMATS[name])
    return book.styles(name)


def _head(book: Book, ws, sheet: Sheet, last_col: int) -> None:
    s = book.styles
    ws.write_string(0, 0, sheet.title, s("title"))
    note(book, ws, 1, sheet.note, last_col, sheet.widths)
    text = sheet.banner or (
        f"Snapshot of the econ run at {book.run_time}: {sheet.what}. Stale when 'inputs "
        "changed since the run' (Checks) is TRUE: rerun econ report."
    )
    stale = book.cells.get("inputs_changed_since_run")
    flag = last_col - 1 if stale and last_col >= 3 else last_col + 1
    ws.merge_range(2, 0, 2, flag - 1, text, s("banner", text_wrap=True, valign="top"))
    ws.set_row(2, 15 * _lines(text, sheet.widths, flag - 1))
    if stale and flag <= last_col:
        ws.merge_range(2, flag, 2, last_col, "", s("banner"))
        write_formula(ws, 2, flag, f'=IF({stale},"STALE: inputs changed since the run","current")',
                      "current", s("banner"))  # fmt: skip


def note(book: Book, ws, row: int, text: str, last_col: int, widths) -> None:
    """``text`` across columns A to ``last_col``, wrapped, its row as tall as its lines."""
    if not text:
        return
    fmt = book.styles("note", text_wrap=True, valign="top")
    if last_col > 0:
        ws.merge_range(row, 0, row, last_col, text, fmt)
    else:
        ws.write_string(row, 0, text, fmt)
    ws.set_row(row, 15 * _lines(text, widths, last_col))


def _lines(text: str, widths, last_col: int) -> int:
    chars = sum(_width(widths, j) for j in range(last_col + 1)) * CHARS_A_LINE
    return max(1, math.ceil(len(text) / max(chars, 1)))


def _width(widths, j: int) -> float:
    return widths[j] if j < len(widths) else DEFAULT_WIDTH


def _px(widths, j: int) -> int:
    return int(_width(widths, j) * 7 + 0.5) + 5


def _rows(px: int) -> int:
    return math.ceil(px / ROW_PX)


def _last_col(block: Block, sheet: Sheet) -> int:
    """The last column a block fills (a chart's right edge, from the column widths)."""
    if isinstance(block, Table):
        return len(block.cols) - 1
    if isinstance(block, Matrix):
        return len(block.values.columns)
    if isinstance(block, Note):
        return 0
    right = max(sum(c.size[0] + CHART_GAP_PX for c in line) for line in block.lines())
    if block.beside is not None:
        right += sum(_px(sheet.widths, j) for j in range(_beside(sheet, block) + 1))
    j, edge = 0, _px(sheet.widths, 0)
    while edge < right:
        j += 1
        edge += _px(sheet.widths, j)
    return j


def _beside(sheet: Sheet, block: Charts) -> int:
    """The last column of the table a block of charts stands beside."""
    table = next(b for b in sheet.blocks if isinstance(b, Table) and b.name == block.beside)
    return len(table.cols) - 1


def _table(book: Book, ws, t: Table, top: int, last_col: int, widths) -> None:
    s = book.styles
    for j, c in enumerate(t.cols):  # a number's header over it, to the right
        ws.write_string(top, j, c.head, s("h", align="left" if c.fmt == "text" else "right"))
    lines = max(
        _lines(c.head, widths[j : j + 1] or (DEFAULT_WIDTH,), 0) for j, c in enumerate(t.cols)
    )
    if lines > 1:
        ws.set_row(top, 15 * min(lines, 3))
    formats = [None if c.fmt in ("text", "row") else style(book, c.fmt) for c in t.cols]
    for i, rec in enumerate(t.frame[[c.key for c in t.cols]].itertuples(index=False)):
        mine = style(book, t.row_fmt[i]) if t.row_fmt is not None else None
        for j, (c, x) in enumerate(zip(t.cols, rec, strict=True)):
            if c.fmt == "text":
                ws.write_string(top + 1 + i, j, "" if _blank(x) else str(x))
            else:
                write_cell(ws, top + 1 + i, j, x, mine if c.fmt == "row" else formats[j])
    for k, text in enumerate(t.notes):
        note(book, ws, top + 1 + len(t.frame) + k, text, last_col, widths)


def _blank(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _matrix(book: Book, ws, m: Matrix, top: int, last_col: int, widths) -> None:
    s = book.styles
    for k, text in enumerate(m.notes):
        note(book, ws, top + k, text, last_col, widths)
    head = top + len(m.notes)
    ws.write_string(head, 0, m.corner, s("h"))
    for j, x in enumerate(m.values.columns, start=1):
        _axis(book, ws, head, j, x, m.x_fmt)
    for i, (y, vals) in enumerate(m.values.iterrows(), start=1):
        _axis(book, ws, head + i, 0, y, m.y_fmt)
        for j, v in enumerate(vals, start=1):
            write_cell(ws, head + i, j, float(v), style(book, m.fmt))
    if m.colour is not None:
        ws.conditional_format(head + 1, 1, head + len(m.values), len(m.values.columns), m.colour)


def _axis(book: Book, ws, row: int, col: int, x, fmt: str) -> None:
    if fmt == "text":
        ws.write_string(row, col, str(x), book.styles("h"))
    else:
        write_cell(ws, row, col, float(x), style(book, fmt))


def _charts(book: Book, ws, block: Charts, top: int, where: dict, col: int) -> None:
    row = top
    for line in block.lines():
        x = CHART_GAP_PX if col else 0
        for c in line:
            ws.insert_chart(
                row, col, _chart(book, ws.name, c, where), {"x_offset": x, "y_offset": 4}
            )
            x += c.size[0] + CHART_GAP_PX
        row += _rows(max(c.size[1] for c in line)) + 1


def _chart(book: Book, sheet: str, c: Chart, where: dict):
    first, table = where[c.table]
    cols = {col.key: j for j, col in enumerate(table.cols)}
    n = len(table.frame) if c.first is None else min(c.first, len(table.frame))
    chart = book.wb.add_chart({"type": c.kind, **({"subtype": c.subtype} if c.subtype else {})})
    for sr in c.series:
        x, y = cols[sr.x], cols[sr.y]
        chart.add_series({
            "name": sr.name,
            "categories": [sheet, first, x, first + n - 1, x],
            "values": [sheet, first, y, first + n - 1, y],
            **sr.look,
        })  # fmt: skip
    chart.set_title({"name": c.title, "name_font": {"size": 11}})
    chart.set_x_axis(c.x_axis)
    chart.set_y_axis(c.y_axis)
    chart.set_legend(c.legend)
    chart.set_size({"width": c.size[0], "height": c.size[1]})
    return chart


def cell(table: tuple[int, dict[str, int]], i: int, key: str) -> str:
    """The address of row ``i`` (0-based) of a rendered table's column ``key``."""
    top, cols = table
    return xl_rowcol_to_cell(top + i, cols[key])
