"""The exported workbook (docs/model.md, section 8): XlsxWriter for writing, live formulas with cached values.

The report layer formats results; it derives no numbers of its own except the
Excel formulas, each of which stores the value the Python model computed so
that viewers that never recalculate still show numbers (and a test checks
that LibreOffice's recalculation agrees).
"""

from __future__ import annotations

import io
import math
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import xlsxwriter
from xlsxwriter.exceptions import FileCreateError
from xlsxwriter.utility import xl_rowcol_to_cell
from xlsxwriter.worksheet import Worksheet

from econ.report.output import OutputError  # noqa: F401 (where callers have imported it from)

QUESTION = "Does renting ultra-fast inference capacity pay for itself, how fast, and under which assumptions?"


EXCEL_CELL_CHARS = 32_767  # Excel's limit on the text of one cell (UTF-16 code units)


class TextCutWarning(UserWarning):
    """Text longer than a spreadsheet cell holds was cut (the cell ends with a visible marker)."""


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


# the dynamic-array functions XlsxWriter prefixes with _xlfn. in every formula (its
# _prepare_formula, one regular expression each); "INGLE(" covers its pattern for SINGLE
_DYNAMIC = re.compile(
    r"ANCHORARRAY\(|BYCOL\(|BYROW\(|CHOOSECOLS\(|CHOOSEROWS\(|DROP\(|EXPAND\(|FILTER\(|"
    r"HSTACK\(|LAMBDA\(|MAKEARRAY\(|MAP\(|RANDARRAY\(|REDUCE\(|SCAN\(|INGLE\(|SEQUENCE\(|"
    r"SORT\(|SORTBY\(|SWITCH\(|TAKE\(|TEXTSPLIT\(|TOCOL\(|TOROW\(|UNIQUE\(|VSTACK\(|"
    r"WRAPCOLS\(|WRAPROWS\(|XLOOKUP\(|_xlfn\."
)


class CellTextWorksheet(Worksheet):
    """A worksheet whose text cells keep to Excel's limit: longer text is cut, ending in
    ``... [cut: N characters]``, with a TextCutWarning naming the sheet and cell.

    Every way of writing text (write_string, write, write_row, ...) goes through
    ``_write_string``; XlsxWriter itself would cut without a word.
    """

    def _prepare_formula(self, formula, expand_future_functions=False):
        """XlsxWriter's, without its thirty regular expressions where none can match: a
        workbook has tens of thousands of formulas and none of econ's uses a dynamic-array
        function (the same text either way; a formula that might need a prefix takes
        XlsxWriter's own path)."""
        if self.use_future_functions or expand_future_functions or _DYNAMIC.search(formula):
            return super()._prepare_formula(formula, expand_future_functions)
        if formula.startswith("{"):
            formula = formula[1:]
        if formula.startswith("="):
            formula = formula[1:]
        if formula.endswith("}"):
            formula = formula[:-1]
        return formula

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
    """An XlsxWriter workbook zipped in memory, then written to its file in one write.

    XlsxWriter zips straight into the file and leaves its zip writer open when a write fails
    (a full disk): collected later, the writer tries to close the file again and prints a
    traceback after econ's one-line error. In memory the zip cannot fail that way, and the
    one write to the file is econ's own, closed whatever happens. A failure still raises
    XlsxWriter's FileCreateError wrapping the OSError, as before.
    """

    worksheet_class = CellTextWorksheet

    def __init__(self, filename, options=None):
        self._target = filename
        self._zipped = io.BytesIO()
        super().__init__(self._zipped, options)

    def close(self) -> None:
        if self.fileclosed:
            return super().close()  # XlsxWriter's warning
        super().close()
        try:
            with open(self._target, "wb") as f:
                f.write(self._zipped.getbuffer())
        except OSError as exc:
            raise FileCreateError(exc) from None
        finally:
            self._zipped = io.BytesIO()


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


def new_workbook(path: Path, **options):
    """A workbook to write to ``path`` that never reads a text as a formula, link or number
    (``options``: more of XlsxWriter's)."""
    return _Workbook(
        str(path),
        {
            "strings_to_formulas": False,
            "strings_to_urls": False,
            "strings_to_numbers": False,
            **options,
        },
    )
