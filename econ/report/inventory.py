"""Which inputs the live sheets read, derived from the formulas written (docs/model.md, section
8): an input no live formula reads is styled "rerun econ" and listed on Checks, with the values
of the run the live model takes as given (marked on Capacity)."""

from __future__ import annotations

import re

from xlsxwriter.worksheet import CellFormulaTuple

from econ.report.xl import Book, excel_name

LIVE_SHEETS = ("Capacity", "Market", "Costs", "Revenue", "Payback")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def names_in_formulas(book: Book) -> set[str]:
    """Every identifier in a formula of the live calculation sheets."""
    out: set[str] = set()
    for ws in book.wb.worksheets():
        if ws.name not in LIVE_SHEETS:
            continue
        for cells in ws.table.values():
            for cell in cells.values():
                if isinstance(cell, CellFormulaTuple):
                    out.update(NAME.findall(cell.formula))
    return out


def is_live(key: str, used: set[str]) -> bool:
    """A key is live where a formula names it, or names its table column (INDEX/MATCH)."""
    parts = key.split(".")
    column = f"{parts[0]}_{parts[2]}" if len(parts) == 3 else None
    return excel_name(key) in used or (column is not None and column in used)


def mark_inputs(book: Book) -> None:
    """Restyle the inputs no live formula reads ("rerun econ") and list them."""
    used = names_in_formulas(book)
    s = book.styles
    for ws, row, col, key, value, fmt in book.input_cells:
        if is_live(key, used):
            continue
        book.rerun_inputs.append(key)
        if value is None:
            ws.write_blank(row, col, None, s("g", "rerun"))
        elif isinstance(value, str):
            ws.write_string(row, col, value, s("text", "rerun"))
        else:
            ws.write_number(row, col, float(value), s(fmt, "rerun"))
