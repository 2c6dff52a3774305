"""Which inputs the live sheets read, derived from the formulas written (docs/model.md, section
8): an input no live formula reads is styled "rerun econ" and listed on Checks, with the values
of the run the live model takes as given (marked on Capacity)."""

from __future__ import annotations

import re

from xlsxwriter.worksheet import CellFormulaTuple

from econ.report.labels import label
from econ.report.xl import Book, excel_name

LIVE_SHEETS = ("Capacity", "Market", "Costs", "Revenue", "Payback")
# Inputs that move econ's served model (section 0.1: the served speeds, the stage candidates and
# the realisation behind the throughputs that feed the money), which the workbook holds as
# values of the run (Capacity): whatever live rows they also feed, the money follows them only
# after a rerun of econ. The frontier scales, the GPU rent and the successors' cost decline act
# on those values live (sections V4.3, V4.6), and the KV cache (context, KV bytes a token) and
# the prefill enter only the physics envelope, which is live (econ/report/envelope_rows.py):
# none of them is in the list.
SERVED_MODEL = re.compile(
    r"^(contract\.platform|capacity\.gpu_platform|capacity\.basis|capacity\.gpu_fleet_utilization"
    r"|finance\.api_gross_margin|facility\.pue|frontier\..*"
    r"|model\.(?!kv_bytes_per_token$|prefill_tokens_per_output$).*"
    r"|tiers\.[a-z_]+\.tokens_per_s"
    r"|hardware\.(?!gpu_cost_decline_per_year$)(?![a-z0-9_]+\.(frontier_scale|rent_usd_per_hour)$).*)$"
)


def moves_served_model(key: str) -> bool:
    """Whether econ's served model (values of the run on Capacity) depends on the key."""
    return SERVED_MODEL.match(key) is not None


NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def names_in_formulas(book: Book) -> set[str]:
    """Every identifier in a formula of the live calculation sheets."""
    return set().union(*names_by_sheet(book).values())


def names_by_sheet(book: Book) -> dict[str, set[str]]:
    """The identifiers in the formulas of each live calculation sheet."""
    out: dict[str, set[str]] = {}
    for ws in book.wb.worksheets():
        if ws.name not in LIVE_SHEETS:
            continue
        names = out.setdefault(ws.name, set())
        for cells in ws.table.values():
            for cell in cells.values():
                if isinstance(cell, CellFormulaTuple):
                    names.update(NAME.findall(cell.formula))
    return out


# An input a live formula reads but econ's model does not (the agent's task time on Capacity,
# the buy case on Costs) cannot move the NPV: its label names the sheets that read it.
SIDE_NOTE = " ({} only: not the NPV)"
# An input neither econ's model nor a live formula reads changes nothing in this case (another
# platform's figures, a tier not offered): its label says so.
UNREAD_NOTE = " (read by nothing in this case: changes nothing)"


def off_the_npv(key: str, value, results) -> bool:
    """Whether econ's model reads the numeric key: ``Results.inputs_read`` lists every numeric
    key an evaluation read, the horizon (the shape of the run) aside."""
    numeric = isinstance(value, float | int) and not isinstance(value, bool)
    return numeric and key != "horizon.months" and key not in results.inputs_read


def is_live(key: str, used: set[str]) -> bool:
    """A key is live where a formula names it, or names its table column (INDEX/MATCH)."""
    parts = key.split(".")
    column = f"{parts[0]}_{parts[2]}" if len(parts) == 3 else None
    return excel_name(key) in used or (column is not None and column in used)


def mark_inputs(book: Book) -> None:
    """Restyle the inputs no live formula reads, and those that move the served model of the
    run, as "rerun econ", and list them (Checks)."""
    by_sheet = names_by_sheet(book)
    used = set().union(*by_sheet.values())
    s = book.styles
    for ws, row, col, key, value, fmt in book.input_cells:
        if is_live(key, used) and not moves_served_model(key):
            if ws.name == "Assumptions" and off_the_npv(key, value, book.results):
                read_by = [sh for sh, names in by_sheet.items() if is_live(key, names)]
                book.side_inputs.append((key, read_by))
                text = label(key) + SIDE_NOTE.format(", ".join(read_by))
                ws.write_string(row, 0, text, s("label", text_wrap=True, valign="top"))
            continue
        if ws.name == "Assumptions" and off_the_npv(key, value, book.results):
            book.unread_inputs.append(key)
            text = label(key) + UNREAD_NOTE
            ws.write_string(row, 0, text, s("label", text_wrap=True, valign="top"))
            _restyle(ws, row, col, value, fmt, s)  # not an input of the live model either
            continue
        book.rerun_inputs.append(key)
        _restyle(ws, row, col, value, fmt, s)


def _restyle(ws, row: int, col: int, value, fmt: str, s) -> None:
    """An input cell in the "rerun econ" style (purple on grey): not one the live sheets read."""
    if value is None:
        ws.write_blank(row, col, None, s("g", "rerun", valign="top"))
    elif isinstance(value, str):
        ws.write_string(row, col, value, s("text", "rerun", valign="top"))
    else:
        ws.write_number(row, col, float(value), s(fmt, "rerun", valign="top"))
