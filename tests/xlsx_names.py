"""Find workbook cells by defined name, never by address or display label (docs/model.md, section 8)."""

from __future__ import annotations

import openpyxl


def named_cell(wb: openpyxl.Workbook, name: str):
    """The cell a workbook-level defined name refers to."""
    sheet, ref = wb.defined_names[name].attr_text.split("!")
    return wb[sheet.strip("'")][ref.replace("$", "")]


def named_value(wb: openpyxl.Workbook, name: str):
    return named_cell(wb, name).value


def row_texts(wb: openpyxl.Workbook, name: str) -> list:
    """Every value on the row of a named cell (its label, unit, source, note ...)."""
    c = named_cell(wb, name)
    return [x.value for x in c.parent[c.row]]


def named_range(wb: openpyxl.Workbook, name: str) -> list:
    """The cells a defined name refers to, row by row (a timeline row: months 0..120)."""
    sheet, ref = wb.defined_names[name].attr_text.split("!")
    cells = wb[sheet.strip("'")][ref.replace("$", "")]
    if not isinstance(cells, tuple):  # one cell
        return [cells]
    return [c for row in cells for c in (row if isinstance(row, tuple) else (row,))]
