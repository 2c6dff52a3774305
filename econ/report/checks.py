"""The Checks sheet (docs/model.md, section 8): whether the live model can compute the choices
made, integrity checks that hold after any edit of the inputs, physical plausibility findings,
and the match with the econ run.

Every line is a declaration ``Check(label, formula, value)``. The integrity list takes the row
declarations' second routes (``rows.Row.check``), NPV() beside the row sums, the discount
factors against the rate, the terminal value re-derived and the conventions against their
fixed values, so that a hard-coded cell, a row pasted as values or an edited constant turns a
check FALSE whatever the inputs are.

It also takes the verdicts of detail blocks below the printed checks, each line naming what
fails first: every input against the rule econ refuses it by (``inputs.rule_formula``) and
econ's rules across keys (``CROSS_RULES``); every formula of the monthly sheets against a copy
of it in hidden columns of its sheet (FORMULATEXT, so that both are rendered by the same
application: along each timeline row month by month, every other cell exactly); each Annual
row's total against its monthly row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from xlsxwriter.utility import xl_rowcol_to_cell
from xlsxwriter.worksheet import CellFormulaTuple, CellStringTuple

from econ.assumptions import Assumptions, rule_for
from econ.report.annual_sheet import YEARS
from econ.report.inputs import rule_formula
from econ.report.rows import Row
from econ.report.workbook import write_cell, write_formula
from econ.report.xl import FIRST_COL, LABEL_COL, MONTHS, Book

TOL = "constant_check_tolerance"
COMPUTABLE = "model_computable"
CHANGED_FLAG = "'Checks'!$C$3"  # where the "inputs changed since the run" flag lives
H, T = "horizon_months", "contract_term_months"
RM = "(EXP(LN(1+finance_discount_rate_annual)/constant_months_per_year)-1)"  # the monthly rate


@dataclass(frozen=True)
class Check:
    """One line of the Checks sheet: ``formula`` is TRUE when the check holds (for a finding:
    when the figure is plausible); ``value`` the run's answer (the cached value); ``message``
    (computability only): what a FALSE means and what to do."""

    label: str
    formula: str
    value: bool = True
    message: str = ""
    failing: str = ""  # a formula naming what fails (": Pro upgrades"), "" while it holds


@dataclass(frozen=True)
class Route:
    """An integrity check by a second route: ``figure`` (a formula) equals ``route`` (another
    formula) within the check tolerance; both are shown, in ``unit`` and number format
    ``fmt``; ``amount`` the figure in the run (the route's too: the check holds in the run)."""

    label: str
    figure: str
    route: str
    unit: str
    fmt: str
    amount: float


def close(a: str, b: str) -> str:
    """Two figures equal within the check tolerance (relative, at least 1 absolute)."""
    return f"ABS(({a})-({b}))<={TOL}*MAX(1,ABS({a}),ABS({b}))"


def _declared(book: Book) -> dict[str, object]:
    """Every declared row and result by its name (rows as "sheet.name", results by name)."""
    out: dict[str, object] = {}
    for sheet, d in book.declared:
        out[f"{sheet.lower()}.{d.name}" if isinstance(d, Row) else d.name] = d
    return out


def _total(book: Book, name: str) -> float:
    """A declared row's total over months 1..120 in the run."""
    return float(np.sum(np.asarray(_declared(book)[name].value, float)[1:]))


def _result(book: Book, name: str) -> float:
    return float(_declared(book)[name].value)


def computability(a: Assumptions, head: dict) -> list[Check]:
    """The choices the live model cannot compute (econ refuses them): each a FALSE check with
    what to do, and blank results, never an error value."""
    return [
        Check(
            "The contract platform's curve covers the ultrafast and standard speeds (data basis)",
            'OR(capacity_basis<>"data",AND(cap_covers_ultrafast,cap_covers_standard))',
            True,
            "The data basis needs both tier speeds on the contract platform's frontier curve "
            "(Tables, frontier): pick another platform, change the speed, or the physics basis.",
        ),
        Check(
            "The GPU platform's curve covers the standard and fast speeds (data basis)",
            'OR(capacity_basis<>"data",ISNUMBER(capacity_gpu_cost_per_mtok_usd),gpu_covers)',
            True,
            "The data basis prices a GPU token from the GPU platform's frontier curve (Tables, "
            "frontier), which must cover the standard and fast speeds: pick another GPU platform, "
            "set capacity.gpu_cost_per_mtok_usd, or another basis.",
        ),
        Check(
            "The contract serves the run's ultrafast speed (or the run did not offer it, or an "
            "input that needs a rerun changed)",
            "OR(rerun_inputs_changed,ultrafast_offered<>1,thr_ultrafast>0)",
            True,
            "The contract platform serves nothing at the run's ultrafast served speed after this "
            "edit (the KV cache or the prefill grew): econ would choose a slower served speed or "
            "not offer the tier; rerun econ.",
        ),
    ]


def integrity(book: Book) -> list[Check | Route]:
    """Rules the live model keeps, each recomputed by a second route."""
    span = lambda name: book.rows[name].span()  # noqa: E731
    sn = lambda name: f"SUM({span(name)})"  # noqa: E731
    dsum = f"IF(finance_discount_rate_annual=0,{H},check_v*(1-check_v^{H})/(1-check_v))"
    tv = "finance_terminal_value*terminal_value_usd*check_v^horizon_months"
    c = "check_tail_churn"
    dpro_h = f"INDEX({book.rows['revenue.dpro'].span(0)},{H}+1)"
    npv = _result(book, "npv_usd")
    return [
        *inputs_and_formulas(book),
        Route("Total rent equals the value owed (the delivered share of it, paid as delivered)",
              sn("costs.rent"), 'IF(contract_payment="take_or_pay",contract_value_usd,contract_value_usd*contract_delivered_share)',
              "USD", "usd_b", _total(book, "costs.rent")),
        Route("Cumulative net flow at the horizon equals the sum of the net flows",
              "cumulative_cash_at_horizon_usd", sn("payback.cf"), "USD", "usd_b",
              _result(book, "cumulative_cash_at_horizon_usd")),
        Route("Cumulative cash only at the horizon equals cash in plus rent",
              "cash_only_at_horizon_usd", f'{sn("payback.cash_in")}+{sn("payback.rent")}', "USD",
              "usd_b", _result(book, "cash_only_at_horizon_usd")),
        Route("The streams' present values (Payback, bridge) sum to the NPV", "bridge_npv_usd",
              "npv_usd", "USD", "usd_b", _result(book, "bridge_npv_usd")),
        *[Route(label, total, other, d.unit, _total_format(d.fmt), _row_total(book, d))
          for label, total, other, d in book.second_routes],
        Route("Discount factors (Costs) against the rate: their sum over the horizon",
              sn("costs.d"), dsum, "months", "num4", _total(book, "costs.d")),
        Route("Discount factors (Payback) against the rate: their sum over the horizon",
              sn("payback.d"), dsum, "months", "num4", _total(book, "payback.d")),
        Route("NPV without the terminal value equals NPV() of the cash flows at the monthly rate",
              "npv_without_terminal_value_usd", f"NPV(check_monthly_rate,{span('payback.cf')})",
              "USD", "usd_b", _result(book, "npv_without_terminal_value_usd")),
        Route("NPV equals NPV() of the cash flows plus the discounted terminal value", "npv_usd",
              f"NPV(check_monthly_rate,{span('payback.cf')})+{tv}", "USD", "usd_b", npv),
        Route("Terminal value re-derived: dP_H x m_H x (1 - c) / (r_m + c)", "terminal_value_usd",
              f"{dpro_h}*terminal_margin_usd*(1-{c})/(check_monthly_rate+{c})", "USD", "usd_b",
              _result(book, "terminal_value_usd")),
        conventions(),
        *bounds(book),
        *formulas_intact(book),
    ]  # fmt: skip


FORMULA_SHEETS = ("Capacity", "Market", "Costs", "Revenue", "Payback", "Annual")


def formulas_intact(book: Book) -> list[Route]:
    """A value typed or pasted over any formula of a live sheet: each sheet's cells that hold
    a formula (ISFORMULA over its used range, with the prefix Excel 2013's functions carry in
    a file) against the number written."""
    out = []
    for ws in book.wb.worksheets():
        if ws.name not in FORMULA_SHEETS:
            continue
        cells = [(r, c) for r, row in ws.table.items() for c, x in row.items()
                 if isinstance(x, CellFormulaTuple)]  # fmt: skip
        if not cells:
            continue
        last = xl_rowcol_to_cell(max(r for r, _ in cells), max(c for _, c in cells), True, True)
        out.append(Route(f"Formulas intact ({ws.name}): cells holding one, against those written",
                         f"SUMPRODUCT(--_xlfn.ISFORMULA('{ws.name}'!$A$1:{last}))", str(len(cells)),
                         "cells", "num", float(len(cells))))  # fmt: skip
    return out


# A copy of each formula of the monthly sheets, written beside it in hidden columns, lets the
# sheet compare what a cell holds with what econ wrote there (FORMULATEXT), in the spreadsheet
# application's own rendering of both: a value pasted over a formula, a formula edited or a
# constant typed into one shows, whatever the inputs are.
ROW_SHEETS = ("Costs", "Revenue", "Payback")  # one formula along months 1..120 of each row
OPEN_COPY = FIRST_COL + MONTHS + 1  # a copy of month 0's formula (an opening or a result)
LAST_COPY = FIRST_COL + MONTHS + 2  # a copy of month 120's formula
SOLVER_COPY = LAST_COPY + 1  # an IRR solver's row: a copy of each formula, this far right
COPIED_SHEETS = ("Capacity", "Market", "Annual")  # each formula copied, the block to the right
HELPER_COL = 7  # Checks: the first column of the per-month comparisons (H), right of the print
FT = "_xlfn.FORMULATEXT"


@dataclass(frozen=True)
class Along:
    """A timeline row: months 1..120 each compared with the copy of month 120 by the length of
    the formula text (``extra[m - 1]``: the characters month m's column letters lack against
    month 120's), month 0 with its copy exactly (``opening``)."""

    sheet: str
    row: int
    label: str
    extra: tuple[int, ...]
    opening: bool


@dataclass(frozen=True)
class Written:
    """The formulas of one row of a sheet (``cols``), each compared exactly with its copy
    ``offset`` columns to the right."""

    sheet: str
    row: int
    label: str
    cols: tuple[int, ...]
    offset: int


def copy_formulas(book: Book) -> tuple[list[Along], list[Written]]:
    """Write the copies (hidden columns of each monthly sheet); return what to compare."""
    sheets = {w.name: w for w in book.wb.worksheets()}
    strings = {i: t for t, i in book.wb.str_table.string_table.items()}
    along: list[Along] = []
    written: list[Written] = []
    for name in ROW_SHEETS:
        if name not in sheets:
            continue
        ws = sheets[name]
        for r in sorted(ws.table):
            cells = ws.table[r]
            months = [cells.get(FIRST_COL + m) for m in range(1, MONTHS + 1)]
            opening = isinstance(cells.get(FIRST_COL), CellFormulaTuple)
            label = _label(cells, strings, r)
            if all(isinstance(x, CellFormulaTuple) for x in months):
                _copy(ws, r, LAST_COPY, months[-1])
                if opening:
                    _copy(ws, r, OPEN_COPY, cells[FIRST_COL])
                n = len(months[-1].formula)
                extra = tuple(n - len(x.formula) for x in months)
                along.append(Along(name, r, "Month numbers" if label == "Month" else label,
                                   extra, opening))  # fmt: skip
            else:  # a result in the month-0 column (its copy there too), or a solver's row
                cols = tuple(sorted(c for c, x in cells.items() if isinstance(x, CellFormulaTuple)))
                if not cols:
                    continue
                offset = OPEN_COPY - FIRST_COL if cols == (FIRST_COL,) else SOLVER_COPY
                for c in cols:
                    _copy(ws, r, c + offset, cells[c])
                written.append(Written(name, r, label, cols, offset))
        last = max([LAST_COPY] + [c + u.offset for u in written if u.sheet == name for c in u.cols])
        ws.set_column(OPEN_COPY, last, None, None, {"hidden": True})
    for name in COPIED_SHEETS:
        if name not in sheets:
            continue
        ws = sheets[name]
        width = max(c for row in ws.table.values() for c in row) + 1
        offset = width + 1  # a blank column, then the copies
        for r in sorted(ws.table):
            cells = ws.table[r]
            cols = tuple(sorted(c for c, x in cells.items() if isinstance(x, CellFormulaTuple)))
            if not cols:
                continue
            for c in cols:
                _copy(ws, r, c + offset, cells[c])
            written.append(Written(name, r, _label(cells, strings, r), cols, offset))
        ws.set_column(offset, offset + width - 1, None, None, {"hidden": True})
    return along, written


def _copy(ws, row: int, col: int, cell: CellFormulaTuple) -> None:
    if ws.table.get(row, {}).get(col) is not None:
        raise ValueError(f"{ws.name}!{xl_rowcol_to_cell(row, col)}: taken; no room for a copy")
    ws.write_formula(row, col, "=" + cell.formula, cell.format, cell.value)


def _label(cells: dict, strings: dict, row: int) -> str:
    """A row's label (column A's text), for a check to name; its number where it has none."""
    x = cells.get(LABEL_COL)
    text = strings.get(x.string, "") if isinstance(x, CellStringTuple) else ""
    text = " ".join(text.split()).replace('"', "'")
    return text[:60] if text else f"row {row + 1}"


def _ref(sheet: str, row: int, col: int) -> str:
    return f"'{sheet}'!{xl_rowcol_to_cell(row, col, True, True)}"


def _along_line(ws, row: int, u: Along) -> None:
    """Columns: label, sheet, holds, months holding a formula, month 0 as written, then each
    month's length against the copy's (H ...)."""
    sh = u.sheet
    span = f"{_ref(sh, u.row, FIRST_COL + 1)}:{xl_rowcol_to_cell(u.row, FIRST_COL + MONTHS, True, True)}"
    write_formula(ws, row, 3, f"=SUMPRODUCT(--_xlfn.ISFORMULA({span}))", MONTHS)
    if u.opening:
        write_formula(ws, row, 4, f"={FT}({_ref(sh, u.row, FIRST_COL)})="
                      f"{FT}({_ref(sh, u.row, OPEN_COPY)})", True)  # fmt: skip
    copy = f"LEN({FT}({_ref(sh, u.row, LAST_COPY)}))"
    for m in range(1, MONTHS + 1):
        k = u.extra[m - 1]
        cell = _ref(sh, u.row, FIRST_COL + m).replace("$", "")
        plus = f"+{k}" if k > 0 else (f"{k}" if k < 0 else "")
        write_formula(ws, row, HELPER_COL + m - 1, f"=LEN({FT}({cell})){plus}={copy}", True)
    helpers = (
        f"{xl_rowcol_to_cell(row, HELPER_COL)}:{xl_rowcol_to_cell(row, HELPER_COL + MONTHS - 1)}"
    )
    r1 = row + 1
    parts = [f"D{r1}={MONTHS}", *([f"E{r1}"] if u.opening else []), f"AND({helpers})"]
    write_formula(ws, row, 2, f"=IFERROR(AND({','.join(parts)}),FALSE)", True)


def _written_line(ws, row: int, u: Written) -> None:
    """Columns: label, sheet, holds, formulas, then each formula against its copy (H ...)."""
    for j, c in enumerate(u.cols):
        a = _ref(u.sheet, u.row, c).replace("$", "")
        b = _ref(u.sheet, u.row, c + u.offset).replace("$", "")
        write_formula(ws, row, HELPER_COL + j, f"={FT}({a})={FT}({b})", True)
    write_formula(ws, row, 3, f"={len(u.cols)}", len(u.cols))
    last = xl_rowcol_to_cell(row, HELPER_COL + len(u.cols) - 1)
    write_formula(ws, row, 2, f"=IFERROR(AND({xl_rowcol_to_cell(row, HELPER_COL)}:{last}),FALSE)",
                  True)  # fmt: skip


# Where the workbook checks each of econ's rules across keys (econ.assumptions.CROSS_CHECKS):
# "inputs": in the input's own rule (inputs.ACROSS, inputs.KNOWN); "computable": the check
# whether the live model can compute the choices made; else a line of the integrity checks.
CROSS_RULES: dict[str, str | tuple[str, str | Callable[[Book], str]]] = {
    "check_horizon_covers_term": "inputs",
    "check_gpu_platform_known": "inputs",  # its curve covering the tiers: "computable"
    "check_frontier_models_known": "inputs",
    "check_tranches": (
        "Tranche MW and tranche months both set or both blank",
        "ISBLANK(contract_tranche_mw)=ISBLANK(contract_tranche_months)",
    ),
    "check_tranches_deliver": (
        "Tranches bring the contracted MW online within the term",
        "IF(OR(ISBLANK(contract_tranche_mw),ISBLANK(contract_tranche_months)),TRUE,"
        "contract_tranche_mw*ROUNDUP(contract_term_months/contract_tranche_months"
        "-constant_ceiling_slack,0)"
        ">=contract_mw)",
    ),
    "check_pro_growth": "inputs",
    "check_pro_start_within_users": "inputs",
    "check_contract_platform_known": "inputs",
    "check_frontier_platforms_known": "inputs",
    "check_frontier_points": (
        "Every platform has a frontier point, one per speed",
        "AND(SUMPRODUCT(--(COUNTIF(frontier_platform,hardware_ids)=0))=0,SUMPRODUCT(--(COUNTIFS("
        "frontier_platform,frontier_platform,frontier_tokens_per_s_per_user,"
        "frontier_tokens_per_s_per_user)>1))=0)",
    ),
    "check_frontier_monotone": (
        "Frontier throughput does not rise with speed",
        lambda book: _frontier_check(book, "throughput"),
    ),
    "check_contract_curve_covers_tiers": "computable",
    "check_adoption_sum": (
        "Fast plus ultrafast adoption at most 1",
        "tiers_fast_adoption+tiers_ultrafast_adoption<=1",
    ),
    "check_tier_speed_order": (
        "Tier speeds rise standard <= fast <= ultrafast",
        "AND(tiers_standard_tokens_per_s<=tiers_fast_tokens_per_s,"
        "tiers_fast_tokens_per_s<=tiers_ultrafast_tokens_per_s)",
    ),
}


def cross_rules(book: Book) -> list[Check]:
    """The lines of CROSS_RULES (a formula, or a function of the book giving one)."""
    rules = [r for r in CROSS_RULES.values() if isinstance(r, tuple)]
    return [Check(label, f if isinstance(f, str) else f(book)) for label, f in rules]


def _first_failing(name: str) -> str:
    """The label of the first FALSE of the detail range ``name`` (its labels: ``name_labels``)."""
    return f'IFERROR(": "&INDEX({name}_labels,MATCH(FALSE,{name},0)),"")'


def inputs_and_formulas(book: Book) -> list[Check]:
    """The verdicts of the detail blocks below the printed checks, each naming what fails
    first: every input against its rules, econ's rules across keys, each monthly row's
    formulas as written, Annual against the monthly rows."""
    along, written = book.cells["formula_copies"]
    out = [
        Check("Every input within its rules (as econ refuses)", "AND(checks_inputs)",
              failing=_first_failing("checks_inputs")),
        *cross_rules(book),
    ]  # fmt: skip
    for sheet in (*ROW_SHEETS, *COPIED_SHEETS):
        name = f"checks_rows_{sheet.lower()}"
        if any(u.sheet == sheet for u in along):
            out.append(Check(f"One formula along each row ({sheet})", f"AND({name})",
                             failing=_first_failing(name)))  # fmt: skip
        name = f"checks_written_{sheet.lower()}"
        if any(u.sheet == sheet for u in written):
            what = "results, solvers" if sheet in ROW_SHEETS else "every cell"
            out.append(Check(f"Formulas as written ({sheet}, {what})", f"AND({name})",
                             failing=_first_failing(name)))  # fmt: skip
    if book.cells.get("annual_rows"):
        out.append(Check("Annual rows sum the monthly rows", "AND(checks_annual)",
                         failing=_first_failing("checks_annual")))  # fmt: skip
    return out


def _details(book: Book, ws, row: int) -> int:
    """The detail blocks the verdicts above read (for the screen); returns the next free row."""
    along, written = book.cells["formula_copies"]
    row = _input_rules(book, ws, row)
    row = _annual_rows(book, ws, row + 2)
    s = book.styles
    ws.write_string(row + 2, 0, "Each row's formulas against econ's copy of them (hidden "
                    "columns of each sheet), month by month from column H", s("section"))  # fmt: skip
    row += 3
    head = ("row", "sheet", "holds", "formulas", "month 0 as written")
    for j, h in enumerate(head):
        ws.write_string(row, j, h, s("h"))
    top = row + 1
    for sheet in (*ROW_SHEETS, *COPIED_SHEETS):
        for kind, units in (("rows", along), ("written", written)):
            mine = [u for u in units if u.sheet == sheet]
            if not mine:
                continue
            first = row + 1
            for u in mine:
                row += 1
                ws.write_string(row, 0, u.label, s("label"))
                ws.write_string(row, 1, u.sheet, s("unit"))
                (_along_line if kind == "rows" else _written_line)(ws, row, u)
            name = f"checks_{kind}_{sheet.lower()}"
            book.name(name, f"'Checks'!$C${first + 1}:$C${row + 1}")
            book.name(f"{name}_labels", f"'Checks'!$A${first + 1}:$A${row + 1}")
    _true_false_colours(book, ws, top, row, 2)
    return row + 1


def _input_rules(book: Book, ws, row: int) -> int:
    """Every input against the rule econ refuses it by (inputs.rule_formula): its key, its
    value, what is allowed, whether it holds."""
    s = book.styles
    ws.write_string(row, 0, "Every input against its rules (econ refuses a value outside "
                    "them; data validation does not stop a pasted one)", s("section"))  # fmt: skip
    row += 1
    for j, h in enumerate(("input (key)", "value", "holds", "allowed")):
        ws.write_string(row, j, h, s("h"))
    first = row + 1
    for w, r, c, key, value, _fmt in book.input_cells:
        row += 1
        ws.write_string(row, 0, key, s("label"))
        cell = _ref(w.name, r, c)
        shown = "" if value is None else value
        write_formula(ws, row, 1, f'=IF(ISBLANK({cell}),"",{cell})', shown, s("g"))
        write_formula(ws, row, 2, "=" + rule_formula(key, f"B{row + 1}"), True, s("bool"))
        rule = rule_for(key)
        ws.write_string(row, 3, rule.expected() if rule else "", s("note"))
    book.name("checks_inputs", f"'Checks'!$C${first + 1}:$C${row + 1}")
    book.name("checks_inputs_labels", f"'Checks'!$A${first + 1}:$A${row + 1}")
    _true_false_colours(book, ws, first, row, 2)
    return row + 1


def _annual_rows(book: Book, ws, row: int) -> int:
    """Each Annual row's total over the years against its monthly row: the sum over months
    1..120, or (a value at each year's end) the months that end a year within the horizon and
    the horizon's month once for each year from the horizon on."""
    s = book.styles
    rows = book.cells.get("annual_rows", [])
    if not rows:
        return row
    ws.write_string(row, 0, "Annual against the monthly rows: each row's total over the years",
                    s("section"))  # fmt: skip
    horizon = rows[0][1].values.size  # the run's: the months of a row's values
    row += 1
    ws.write_string(row, 0, "Years that end at or after the horizon (a value at the year's end: "
                    "the horizon's)", s("label"))  # fmt: skip
    ws.write_string(row, 1, "years", s("unit"))
    write_formula(ws, row, 2, f"=COLUMNS({_years(rows[0][0])})-INT(({H}-1)/constant_months_per_year)",
                  YEARS - (horizon - 1) // 12, s("num"))  # fmt: skip
    book.name("check_years_from_horizon", f"'Checks'!$C${row + 1}")
    row += 1
    for j, h in enumerate(("Annual row", "unit", "holds", "total of the years", "monthly row")):
        ws.write_string(row, j, h, s("h"))
    first = row + 1
    per, tm = "constant_months_per_year", "timeline_months"
    for r, item, total in rows:
        row += 1
        ws.write_string(row, 0, item.label.replace('"', "'"), s("label"))
        ws.write_string(row, 1, item.unit, s("unit"))
        years = _years(r)
        src = book.rows[item.source]
        if item.how == "sum":
            route = f"SUM({src.span()})"
        else:
            route = (f"SUMPRODUCT((MOD({tm},{per})=0)*({tm}<{H})*{src.span()})"
                     f"+check_years_from_horizon*INDEX({src.span(0)},{H}+1)")  # fmt: skip
        write_formula(ws, row, 3, f"=IFERROR(SUM({years}),0)", total, s(_total_format(item.fmt)))
        write_formula(ws, row, 4, f"=IFERROR({route},0)", total, s(_total_format(item.fmt)))
        write_formula(ws, row, 2, f"=IFERROR({close(f'D{row + 1}', f'E{row + 1}')},FALSE)", True,
                      s("bool"))  # fmt: skip
    book.name("checks_annual", f"'Checks'!$C${first + 1}:$C${row + 1}")
    book.name("checks_annual_labels", f"'Checks'!$A${first + 1}:$A${row + 1}")
    _true_false_colours(book, ws, first, row, 2)
    return row + 1


def _years(row: int) -> str:
    """An Annual row's years 1..10 (columns C..L)."""
    a, b = xl_rowcol_to_cell(row, 2, True, True), xl_rowcol_to_cell(row, 1 + YEARS, True, True)
    return f"'Annual'!{a}:{b}"


def _row_total(book: Book, d: Row) -> float:
    return float(np.sum(np.asarray(d.value, float)[1:]))


def _total_format(fmt: str) -> str:
    """A row's total in a format that shows it (monthly millions: billions in total)."""
    return {"usd_m": "usd_b"}.get(fmt, fmt)


# the rate the second routes discount at, re-derived from the input (not read from Payback)
RATE_CELLS = (
    ("check_monthly_rate", "Monthly discount rate, re-derived from the annual rate", "1/month",
     "pct3", "EXP(LN(1+finance_discount_rate_annual)/constant_months_per_year)-1"),
    ("check_v", "Monthly discount factor, re-derived: 1 / (1 + monthly rate)", "-", "num4",
     "1/(1+check_monthly_rate)"),
    ("check_tail_churn", "Monthly churn of the Pro tail after the horizon, c", "1/month", "pct2",
     "conversion_pro_churn_monthly+conversion_extra_churn_after_term_monthly"),
)  # fmt: skip


def conventions() -> Check:
    """Every convention (months per year, seconds per month, ...) at its fixed value: each
    compares itself with the value on the Assumptions sheet (column G)."""
    return Check(
        "Every convention holds its fixed value (Assumptions, grey)",
        "COUNTIF(constants_changed_flags,TRUE)=0",
    )


def bounds(book: Book) -> list[Check]:
    span = lambda name: book.rows[name].span()  # noqa: E731
    shares = ",".join(
        f"MIN({span(f'revenue.{x}')})>=0,MAX({span(f'revenue.{x}')})<=1" for x in ("adoption", "h")
    )
    months = _months_span(book)
    peak = "+".join(span(f"revenue.mw_{u}") for u in ("api", "subscriber", "backfill_peak"))
    return [
        Check(
            "Utilisation never above 1 (the uses' average MW within the MW online)",
            f"MAX({span('revenue.util')})<=1+{TOL}",
        ),
        Check(
            "Peak-shaped uses within the peak: peak-to-average x (API + subscribers + peak backfill) <= MW",
            f"SUMPRODUCT(--(usage_peak_to_average*({peak})>{span('revenue.mw')}*(1+{TOL})+{TOL}))=0",
        ),
        Check(
            "MW online never above the contracted MW",
            f"MAX({span('revenue.mw')})<=contract_mw*(1+{TOL})",
        ),
        Check("Adoption and cap-hit shares within [0, 1]", f"AND({shares})"),
        Check(
            "Never more Pro subscribers than monthly active users",
            f"SUMPRODUCT(--({span('revenue.pro')}>market_mau*EXP(({months}-1)*LN(1+market_mau_growth_monthly))))=0",
        ),
        Check(
            "API tokens served never above the tokens wanted",
            f"SUMPRODUCT(--({span('revenue.api_served')}>{span('revenue.api_wanted')}*(1+{TOL})))=0",
        ),
        Check(
            "Horizon a whole number of months from the term to the timeline's end",
            f"AND({H}=INT({H}),{H}>={T},{H}<=constant_horizon_max_months)",
        ),
        Check("Frontier speeds rise within each platform", _frontier_check(book, "speed")),
        Check(
            "Monthly probabilities at most 1 (price factor x (base + propensity), churn + extra churn)",
            "AND(pro_price_factor*(pro_base_upgrade+pro_capped_propensity)<=1,"
            "conversion_pro_churn_monthly+conversion_extra_churn_after_term_monthly<=1)",
        ),
    ]


def plausibility(a: Assumptions, r) -> list[Check]:
    """Findings of the live model: the answer rests on figures the physics does not support, or
    the contract serves the ultrafast tier below its promised speed (not errors of the workbook)."""
    s_u = a.num("tiers.ultrafast.tokens_per_s")
    ceiling = float(np.asarray(r.ceiling_contract).reshape(-1)[0])
    served = float(np.asarray(r.served_tokens_per_s_ultrafast).reshape(-1)[0])
    served = served if np.isfinite(served) else s_u  # not offered: the sheet shows the tier speed
    return [
        Check(
            "The ultrafast tier's speed is within the per-user ceiling for the served model",
            "tiers_ultrafast_tokens_per_s<=phys_ceiling",
            bool(s_u <= ceiling),
        ),
        Check(
            "The contract serves the ultrafast tier at its promised speed (served = tier speed)",
            f"served_ultrafast>=tiers_ultrafast_tokens_per_s*(1-{TOL})",
            bool(served >= s_u * (1 - 1e-9)),
        ),
    ]


def checks_sheet(book: Book, ws, a: Assumptions, head: dict) -> None:
    s = book.styles
    for first, last, width in ((0, 0, 70), (1, 4, 18)):
        ws.set_column(first, last, width)
    title = "Checks: can the live model compute the choices, its integrity, findings, the match with econ"
    ws.write_string(0, 0, title, s("title"))
    label = "Inputs changed since the run (Assumptions differs from the run's values)"
    ws.write_string(2, 0, label, s("bold"))
    write_formula(ws, 2, 2, "=inputs_changed_count>0", False, s("bold"))
    book.cells["formula_copies"] = copy_formulas(book)  # before the counts of formulas
    row = _computability(book, ws, computability(a, head), 4)
    row = _rates(book, ws, a, row + 2)
    row = _integrity(book, ws, integrity(book), row + 2)
    title = (
        "Physical plausibility of the contract platform: findings, not integrity (a finding says "
        "the answer rests on figures the physics does not support)"
    )
    checks = plausibility(a, book.results)
    f_first, f_last, row = _block(book, ws, row + 2, title, checks, finding=True)
    _amber(book, ws, f_first, f_last, 2)
    row = _matches(book, ws, row + 2)
    row = _inventory(book, ws, row + 2)
    _details(book, ws, row + 2)
    _true_false_colours(book, ws, 2, 2, 2, invert=True)
    ws.freeze_panes(3, 1)


def _computability(book: Book, ws, comp: list[Check], row: int) -> int:
    """Whether the live model can compute the choices made, each FALSE with its message in
    column D; returns the row of the verdict (named ``model_computable``)."""
    s = book.styles
    title = "Can the live model compute the choices made? (econ refuses what it cannot)"
    first, last, row = _block(book, ws, row, title, comp)
    ws.write_string(row, 0, "The live model can compute the choices made", s("bold"))
    write_formula(ws, row, 2, f"=AND(C{first + 1}:C{last + 1})", True, s("bool", bold=True))
    book.name(COMPUTABLE, f"'Checks'!$C${row + 1}")
    book.name("checks_computable_area", f"'Checks'!$C${first + 1}:$C${last + 1}")
    msgs = '&" "&'.join(f"D{r + 1}" for r in range(first, last + 1))  # each blank or its message
    write_formula(ws, row, 3, f"=TRIM({msgs})", "", s("note"))
    book.name("model_problem", f"'Checks'!$D${row + 1}")
    _true_false_colours(book, ws, first, row, 2)
    return row


def _integrity(book: Book, ws, checks: list, row: int) -> int:
    """The integrity checks and their verdict (named ``integrity_ok``); returns its row."""
    s = book.styles
    title = "Integrity of the live model (hold after any edit of the inputs)"
    first, last, row = _block(book, ws, row, title, checks)
    ws.write_string(
        row, 0, "Every integrity check holds (and the choices are computable)", s("bold")
    )
    write_formula(
        ws, row, 2, f"=AND({COMPUTABLE},C{first + 1}:C{last + 1})", True, s("bool", bold=True)
    )
    book.name("integrity_ok", f"'Checks'!$C${row + 1}")
    book.name("checks_integrity_area", f"'Checks'!$C${first + 1}:$C${last + 1}")
    book.name("checks_integrity_labels", f"'Checks'!$A${first + 1}:$A${last + 1}")
    _true_false_colours(book, ws, first, row, 2)
    return row


def _rates(book: Book, ws, a: Assumptions, row: int) -> int:
    """The rates the second routes discount at, re-derived from the inputs; returns the last row."""
    s = book.styles
    ws.write_string(row, 0, "The second routes' rates, from the inputs", s("section"))
    v = float(book.results.parts["monthly_rate"][0])
    churn = a.num("conversion.pro_churn_monthly") + a.num(
        "conversion.extra_churn_after_term_monthly"
    )
    values = {"check_monthly_rate": v, "check_v": 1.0 / (1.0 + v), "check_tail_churn": churn}
    for name, label, unit, fmt, formula in RATE_CELLS:
        row += 1
        ws.write_string(row, 0, label, s("label"))
        ws.write_string(row, 1, unit, s("unit"))
        write_formula(ws, row, 2, "=" + formula, values[name], s(fmt))
        book.name(name, f"'Checks'!$C${row + 1}")
    return row


def _block(book: Book, ws, row: int, title: str, checks: list, finding: bool = False):
    """A titled block of checks from ``row``; returns (first row, last row, next free row).
    Integrity checks read TRUE/FALSE; findings "plausible" or "FINDING: ..." (amber); a check
    by a second route shows its figure and the route (columns D, E) with their unit."""
    s = book.styles
    ws.write_string(row, 0, title, s("section"))
    row += 1
    head = ("check", "unit", "finding") if finding else ("check", "unit", "holds")
    if any(isinstance(c, Route) for c in checks):
        head += ("figure", "second route")
    for j, h in enumerate(head):
        ws.write_string(row, j, h, s("h"))
    first = row + 1
    for c in checks:
        row += 1
        if isinstance(c, Check) and c.failing:  # the label names what fails first
            write_formula(ws, row, 0, f'="{c.label}"&{c.failing}', c.label, s("label"))
        else:
            ws.write_string(row, 0, c.label, s("label"))
        if isinstance(c, Route):
            _route(book, ws, row, c)
        elif finding:
            no = "FINDING: not supported by the physics"
            value = "plausible" if c.value else no
            write_formula(ws, row, 2, f'=IF({c.formula},"plausible","{no}")', value)
        elif c.message:
            write_formula(ws, row, 2, "=" + c.formula, bool(c.value), s("bool"))
            shown = "" if c.value else c.message
            write_formula(ws, row, 3, f'=IF(C{row + 1},"","{c.message}")', shown, s("note"))
        else:  # one FALSE only when the choices cannot be computed: the others wait
            write_formula(
                ws, row, 2, f"=IF({COMPUTABLE},{c.formula},TRUE)", bool(c.value), s("bool")
            )
    return first, row, row + 1


def _route(book: Book, ws, row: int, c: Route) -> None:
    """A check by a second route: the figure (D) and the route (E), each 0 where it is an
    error value (the check then fails, unless the live model cannot compute the choices made,
    which is the one FALSE check above); the check (C) compares them."""
    s = book.styles
    ws.write_string(row, 1, c.unit, s("unit"))
    write_formula(ws, row, 3, f"=IFERROR({c.figure},0)", c.amount, s(c.fmt))
    write_formula(ws, row, 4, f"=IFERROR({c.route},0)", c.amount, s(c.fmt))
    d, e = f"D{row + 1}", f"E{row + 1}"
    write_formula(ws, row, 2, f"=IF({COMPUTABLE},{close(d, e)},TRUE)", True, book.styles("bool"))


def _matches(book: Book, ws, row: int) -> int:
    """The figures econ also computed, against the workbook's (valid until an input changes)."""
    s = book.styles
    ws.write_string(
        row,
        0,
        "Matches the econ run (valid while no input has changed since the run)",
        s("section"),
    )
    row += 1
    for j, h in enumerate(("figure", "econ run", "workbook", "difference", "matches")):
        ws.write_string(row, j, h, s("h"))
    first = row + 1
    for label, value, name, fmt in book.matches:
        row += 1
        ws.write_string(row, 0, label, s("label"))
        write_cell(ws, row, 1, "" if value is None else value, s(fmt))
        write_formula(ws, row, 2, f"={name}", "" if value is None else value, s(fmt))
        b, c = f"B{row + 1}", f"C{row + 1}"
        diff = f'IF(AND(ISNUMBER({b}),ISNUMBER({c})),({c}-{b})/MAX(1,ABS({b})),IF(AND({b}="",{c}=""),0,1))'
        write_formula(ws, row, 3, "=" + diff, 0.0, s("sci"))
        write_formula(ws, row, 4, f"=ABS(D{row + 1})<=constant_match_tolerance", True)
    last = row
    row += 1
    ws.write_string(
        row, 0, "The workbook matches the econ run (n/a once an input changed)", s("bold")
    )
    formula = f'=IF(inputs_changed_since_run,"n/a: inputs changed",AND(E{first + 1}:E{last + 1}))'
    write_formula(ws, row, 4, formula, True, s("bold"))
    book.name("matches_run", f"'Checks'!$E${row + 1}")
    _true_false_colours(book, ws, first, row, 4)
    return row + 1


def _amber(book: Book, ws, first: int, last: int, col: int) -> None:
    fmt = book.wb.add_format({"bg_color": "#FFEB9C", "font_color": "#9C5700"})
    rule = {"type": "text", "criteria": "begins with", "value": "FINDING", "format": fmt}
    ws.conditional_format(first, col, last, col, rule)


def _true_false_colours(
    book: Book, ws, first: int, last: int, col: int, invert: bool = False
) -> None:
    red = book.wb.add_format({"bg_color": "#FFC7CE", "font_color": "#9C0006"})
    green = book.wb.add_format({"bg_color": "#C6EFCE", "font_color": "#006100"})
    bad, good = ("TRUE", "FALSE") if invert else ("FALSE", "TRUE")
    for value, fmt in ((bad, red), (good, green)):
        rule = {"type": "cell", "criteria": "==", "value": value, "format": fmt}
        ws.conditional_format(first, col, last, col, rule)


def _months_span(book: Book) -> str:
    header = book.rows["revenue.in_horizon"].row - 1
    a = xl_rowcol_to_cell(header, FIRST_COL + 1, row_abs=True, col_abs=True)
    b = xl_rowcol_to_cell(header, FIRST_COL + MONTHS, row_abs=True, col_abs=True)
    return f"'Revenue'!{a}:{b}"


def _frontier_check(book: Book, what: str) -> str:
    """No two consecutive frontier rows of one platform where speed does not rise (or where
    throughput rises), over the Capacity sheet's PCHIP block."""
    sheet, rng = book.cells["pchip_platform"].split("!")
    a, b = rng.replace("$", "").split(":")
    col_p = "".join(ch for ch in a if ch.isalpha())
    r1 = int("".join(ch for ch in a if ch.isdigit()))
    r2 = int("".join(ch for ch in b if ch.isdigit()))
    if r2 <= r1:
        return "TRUE"
    col = {"speed": chr(ord(col_p) + 1), "throughput": chr(ord(col_p) + 2)}[what]
    same = f"({sheet}!{col_p}{r1}:{col_p}{r2 - 1}={sheet}!{col_p}{r1 + 1}:{col_p}{r2})"
    op = "<=" if what == "speed" else ">"
    bad = f"({sheet}!{col}{r1 + 1}:{col}{r2}{op}{sheet}!{col}{r1}:{col}{r2 - 1})"
    return f"SUMPRODUCT({same}*{bad})=0"


def _inventory(book: Book, ws, row: int) -> int:
    """What is live and what needs a rerun of econ (derived from the formulas written);
    returns its last row."""
    s = book.styles
    n = len(book.rerun_inputs)
    ws.write_string(
        row, 0, f"Inputs marked 'rerun econ' ({n}, listed below on screen): one changed", s("label")
    )
    ws.write_string(row, 1, "TRUE/FALSE", s("unit"))
    write_formula(ws, row, 2, "=rerun_inputs_changed", False, s("bool"))
    book.cells["checks_print_end"] = row  # the lists below are for the screen
    row += 2
    title = (
        "Inputs the money follows only after a rerun of econ: read by no live formula, or moving "
        f"the served model of the run (Capacity) ({n})"
    )
    ws.write_string(row, 0, title, s("section"))
    ws.write_string(row, 2, "changed since the run", s("h"))
    run_of = dict(book.inputs)  # an input's cell -> its copy on the Run sheets
    where = {key: f"'{w.name}'!{xl_rowcol_to_cell(r, c)}" for w, r, c, key, *_ in book.input_cells}
    first = row + 1
    for key in book.rerun_inputs:
        row += 1
        ws.write_string(row, 0, key, s("g", "rerun"))
        write_formula(ws, row, 2, f"={where[key]}<>{run_of[where[key]]}", False, s("bool"))
    changed = f"OR(C{first + 1}:C{row + 1})" if book.rerun_inputs else "FALSE"
    write_formula(ws, first - 1, 3, "=" + changed, False, s("bool"))
    book.name("rerun_inputs_changed", f"'Checks'!$D${first}")
    row += 2
    title = f"Values of the econ run the live sheets take as given (Capacity, purple; {len(book.marked)})"
    ws.write_string(row, 0, title, s("section"))
    for name, label, unit in book.marked:
        row += 1
        ws.write_string(row, 0, f"{label} [{unit}]", s("label"))
        write_formula(ws, row, 2, f"={name}", _marked_value(book, name), s("g", "rerun"))
    book.cells["checks_rerun_count"] = len(book.rerun_inputs)
    return row


def _marked_value(book: Book, name: str) -> float:
    return book.marked_values.get(name, 0.0)
