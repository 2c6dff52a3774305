"""Find workbook cells by defined name, never by address or display label (docs/model.md, section 8)."""

from __future__ import annotations

import openpyxl


def named_cell(wb: openpyxl.Workbook, name: str):
    """The cell a workbook-level defined name refers to."""
    sheet, ref = wb.defined_names[name].attr_text.split("!")
    return wb[sheet.strip("'")][ref.replace("$", "")]


BOOL_FORMAT = '"TRUE";"TRUE";"FALSE"'  # econ's TRUE/FALSE cells (printed so before a recalculation)


def named_value(wb: openpyxl.Workbook, name: str):
    """The value as shown: a TRUE/FALSE cell that LibreOffice saved as 1/0 under econ's
    TRUE/FALSE number format reads as a boolean (Excel saves the boolean itself)."""
    c = named_cell(wb, name)
    if c.number_format == BOOL_FORMAT and c.value in (0, 1) and not isinstance(c.value, bool):
        return bool(c.value)
    return c.value


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
