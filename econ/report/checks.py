"""The Checks sheet (docs/model.md, section 8): whether the live model can compute the choices
made, integrity checks that hold after any edit of the inputs, physical plausibility findings,
and the match with the econ run.

Every line is a declaration ``Check(label, formula, value)``. The integrity list takes the row
declarations' second routes (``rows.Row.check``), NPV() beside the row sums, the discount
factors against the rate, the terminal value re-derived and the conventions against their
fixed values, so that a hard-coded cell, a row pasted as values or an edited constant turns a
check FALSE whatever the inputs are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xlsxwriter.utility import xl_rowcol_to_cell
from xlsxwriter.worksheet import CellFormulaTuple

from econ.assumptions import Assumptions
from econ.report.rows import Row
from econ.report.workbook import write_cell, write_formula
from econ.report.xl import FIRST_COL, MONTHS, Book

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
        Check(
            "Fast plus ultrafast adoption at most 1",
            "tiers_fast_adoption+tiers_ultrafast_adoption<=1",
        ),
        Check(
            "Tier speeds rise standard <= fast <= ultrafast",
            "AND(tiers_standard_tokens_per_s<=tiers_fast_tokens_per_s,"
            "tiers_fast_tokens_per_s<=tiers_ultrafast_tokens_per_s)",
        ),
        Check("Frontier speeds rise within each platform", _frontier_check(book, "speed")),
        Check("Frontier throughput does not rise with speed", _frontier_check(book, "throughput")),
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
    _inventory(book, ws, row + 2)
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


def _inventory(book: Book, ws, row: int) -> None:
    """What is live and what needs a rerun of econ (derived from the formulas written)."""
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


def _marked_value(book: Book, name: str) -> float:
    return book.marked_values.get(name, 0.0)
