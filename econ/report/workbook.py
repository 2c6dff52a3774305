"""The exported workbook (WORKBOOK.md): XlsxWriter for writing, live formulas with cached values.

The report layer formats results; it derives no numbers of its own except the
Excel formulas, each of which stores the value the Python model computed so
that viewers that never recalculate still show numbers (and a test checks
that LibreOffice's recalculation agrees).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xlsxwriter
from xlsxwriter.utility import xl_col_to_name, xl_rowcol_to_cell
from xlsxwriter.worksheet import Worksheet

from econ.report.output import OutputError  # noqa: F401 (where callers have imported it from)

QUESTION = "Does renting ultra-fast inference capacity pay for itself, how fast, and under which assumptions?"
FIRST_MONTH_COL = 2  # column C: A label, B unit, C.. months


EXCEL_CELL_CHARS = 32_767  # Excel's limit on the text of one cell (UTF-16 code units)


class TextCutWarning(UserWarning):
    """Text longer than a spreadsheet cell holds was cut (the cell ends with a visible marker)."""


@dataclass
class Formats:
    wb: Any
    cache: dict = field(default_factory=dict)

    def __call__(self, name: str):
        if name not in self.cache:
            spec = {
                "title": {"bold": True, "font_size": 14},
                "h": {"bold": True, "bottom": 1, "bg_color": "#DDEBF7"},
                "bold": {"bold": True},
                "text": {},
                "wrap": {"text_wrap": True, "valign": "top"},
                "usd": {"num_format": "$#,##0"},
                "usd_in": {"num_format": "$#,##0", "font_color": "#0000FF", "bg_color": "#FFF2CC"},
                "num": {"num_format": "#,##0"},
                "num2": {"num_format": "#,##0.00"},
                "pct": {"num_format": "0.0%"},
                "pct3": {"num_format": "0.000%"},
                "g": {"num_format": "General"},
                "in": {"font_color": "#0000FF", "bg_color": "#FFF2CC", "num_format": "General"},
                "in_text": {"font_color": "#0000FF", "bg_color": "#FFF2CC"},
                "ok": {"bold": True, "font_color": "#006100", "bg_color": "#C6EFCE"},
                "note": {"italic": True, "font_color": "#595959"},
            }[name]
            self.cache[name] = self.wb.add_format(spec)
        return self.cache[name]


def _is_blank(x: Any) -> bool:
    return x is None or (isinstance(x, float) and not math.isfinite(x))


def write_cell(ws, row: int, col: int, x: Any, fmt=None) -> None:
    """A value: numbers as numbers, NaN/None blank, every string as text (never a formula).

    Text longer than a cell holds is cut visibly, with a warning (see CellTextWorksheet).
    """
    if isinstance(x, np.generic):
        x = x.item()
    if _is_blank(x):
        ws.write_blank(row, col, None, fmt)
    elif isinstance(x, bool):
        ws.write_boolean(row, col, x, fmt)
    elif isinstance(x, int | float):
        ws.write_number(row, col, float(x), fmt)
    else:
        ws.write_string(row, col, str(x), fmt)


class CellTextWorksheet(Worksheet):
    """A worksheet whose text cells keep to Excel's limit: longer text is cut, ending in
    ``... [cut: N characters]``, with a TextCutWarning naming the sheet and cell.

    Every way of writing text (write_string, write, write_row, ...) goes through
    ``_write_string``; XlsxWriter itself would cut without a word.
    """

    def _write_string(self, row, col, string, cell_format=None):
        text, removed = fit_cell_text(string)
        if removed:
            warnings.warn(
                f"{self.name}!{xl_rowcol_to_cell(row, col)}: a text of {len(string):,} characters "
                f"is longer than a spreadsheet cell holds ({EXCEL_CELL_CHARS:,}); cut, ending in "
                f'"... [cut: {removed:,} characters]"',
                TextCutWarning,
                stacklevel=4,
            )
        return super()._write_string(row, col, text, cell_format)


class _Workbook(xlsxwriter.Workbook):
    worksheet_class = CellTextWorksheet


def fit_cell_text(text: str, limit: int = EXCEL_CELL_CHARS) -> tuple[str, int]:
    """``text`` cut to fit ``limit`` UTF-16 code units, with a marker; and the characters removed."""
    if len(text) <= limit // 2 or _utf16_len(text) <= limit:
        return text, 0
    keep = 0
    for _ in range(2):  # the marker's length depends on the count it shows
        budget = limit - len(f"... [cut: {len(text) - keep:,} characters]")
        keep, used = 0, 0
        for c in text:
            w = 2 if ord(c) > 0xFFFF else 1
            if used + w > budget:
                break
            used += w
            keep += 1
    removed = len(text) - keep
    return f"{text[:keep]}... [cut: {removed:,} characters]", removed


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def write_formula(ws, row: int, col: int, formula: str, value: Any, fmt=None) -> None:
    """A live formula that also stores the Python model's value for it."""
    v = value.item() if isinstance(value, np.generic) else value
    ws.write_formula(row, col, formula, fmt, "" if _is_blank(v) else v)


def sheet_header(ws, f: Formats, title: str, note: str | None = None) -> None:
    """A sheet's title in A1 and an optional note in A2."""
    ws.write_string(0, 0, title, f("title"))
    if note:
        ws.write_string(1, 0, note, f("note"))


def write_table(
    ws, f: Formats, top: int, left: int, df: pd.DataFrame, formats: dict[str, str] | None = None
) -> int:
    """A DataFrame with a header row; returns the next free row."""
    formats = formats or {}
    for j, c in enumerate(df.columns):
        ws.write_string(top, left + j, str(c), f("h"))
    for i, rec in enumerate(df.itertuples(index=False), start=1):
        for j, (c, x) in enumerate(zip(df.columns, rec, strict=True)):
            write_cell(
                ws, top + i, left + j, x, f(formats.get(c, "g")) if not isinstance(x, str) else None
            )
    return top + len(df) + 2


class Timeline:
    """A monthly sheet: label, unit, then months 1..H across the columns, one formula per row."""

    def __init__(self, ws, f: Formats, horizon: int, header_row: int = 2):
        self.ws, self.f, self.H = ws, f, horizon
        self.month_row = header_row
        self.next = header_row + 1
        ws.write_string(header_row, 0, "Month", f("h"))
        ws.write_string(header_row, 1, "Unit", f("h"))
        for m in range(1, horizon + 1):
            ws.write_number(header_row, FIRST_MONTH_COL + m - 1, m, f("h"))
        ws.freeze_panes(header_row + 1, FIRST_MONTH_COL)
        ws.set_column(0, 0, 44)
        ws.set_column(1, 1, 16)
        ws.set_column(FIRST_MONTH_COL, FIRST_MONTH_COL + horizon, 14)

    def month_ref(self, m: int) -> str:
        """Reference to the month number's header cell, row-absolute (e.g. C$3)."""
        return xl_rowcol_to_cell(self.month_row, FIRST_MONTH_COL + m - 1, row_abs=True)

    def ref(self, row: int, m: int) -> str:
        return xl_rowcol_to_cell(row, FIRST_MONTH_COL + m - 1)

    def span(self, row: int, absolute: bool = True) -> str:
        a = xl_rowcol_to_cell(row, FIRST_MONTH_COL, row_abs=absolute, col_abs=absolute)
        b = xl_rowcol_to_cell(row, FIRST_MONTH_COL + self.H - 1, row_abs=absolute, col_abs=absolute)
        return f"{a}:{b}"

    def section(self, title: str) -> None:
        self.next += 1
        self.ws.write_string(self.next, 0, title, self.f("bold"))
        self.next += 1

    def values(self, label: str, unit: str, values: Sequence[float], fmt: str = "num") -> int:
        r = self.next
        self.ws.write_string(r, 0, label)
        self.ws.write_string(r, 1, unit)
        for m, x in enumerate(values, start=1):
            write_cell(self.ws, r, FIRST_MONTH_COL + m - 1, float(x), self.f(fmt))
        self.next += 1
        return r

    def formulas(
        self, label: str, unit: str, make, values: Sequence[float], fmt: str = "num"
    ) -> int:
        """``make(m, row)`` returns month m's formula (without '='); values are the cached Python values."""
        r = self.next
        self.ws.write_string(r, 0, label)
        self.ws.write_string(r, 1, unit)
        for m, x in enumerate(values, start=1):
            write_formula(
                self.ws, r, FIRST_MONTH_COL + m - 1, "=" + make(m, r), float(x), self.f(fmt)
            )
        self.next += 1
        return r


def new_workbook(path: Path):
    return _Workbook(
        str(path),
        {"strings_to_formulas": False, "strings_to_urls": False, "strings_to_numbers": False},
    )


def col(c: int) -> str:
    return xl_col_to_name(c)
