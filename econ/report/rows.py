"""One declaration per workbook row (docs/extending.md, "A row of the workbook").

A monthly sheet is a list of declarations: ``Section`` (a block title), ``Row`` (one formula
along months 1..120, an opening formula for month 0, the Python values of months 0..120),
``Result`` (a named value in the month-0 column) and ``Solver`` (an IRR solver written below
the print area). One renderer (``render``) writes them; the number format, the unit, the
print blocks, the second-route integrity checks and the inputs each row reads all come from
the same declaration.

Formula templates are Excel formulas on the workbook's defined names, with row references in
square brackets:

- ``[mw]``: this month of the row ``mw`` of the same sheet; ``[revenue.mw]``: of another sheet;
- ``[pro-1]``: the month before (never a later month: FAST flows left to right, and a test
  reads every timeline formula for it);
- ``[cum:]``: the row over months 1..120 (``[cum:0]``: months 0..120), for SUM and SUMPRODUCT;
- ``[cum@horizon_months]``: the row at month ``horizon_months`` (any expression), by INDEX;
- ``{m}``: this month's number (the header cell).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from econ.report.xl import MONTHS, Timeline, pad_months

REF = re.compile(r"\[([A-Za-z_][\w.]*)(?:([+-]\d+)|(:0?)|@([^\]]+))?\]")


@dataclass(frozen=True)
class Section:
    """A block title. ``new_page``: the block starts a printed page; ``narrow``: from here on
    the rows are results in the month-0 column, printed as a narrow block of their own."""

    title: str
    new_page: bool = False
    narrow: bool = False


@dataclass(frozen=True)
class Check:
    """A second route to a row's total: ``formula`` (a template over the row's months, e.g.
    ``SUM([api_served:])*...``) must equal ``SUM`` of the row over months 1..120; the Checks
    sheet lists it under ``label`` among the integrity checks."""

    label: str
    formula: str


@dataclass(frozen=True)
class Row:
    """A timeline row: label, unit, number format, one formula along months 1..120.

    ``value``: the Python model's values for months 0..120 (``pad_months``); ``opening``: month
    0's formula (None: blank); ``gated``: 0 beyond the horizon; ``check``: a second route."""

    name: str
    label: str
    unit: str
    fmt: str
    formula: str
    value: Any
    opening: str | None = None
    gated: bool = False
    check: Check | None = None


@dataclass(frozen=True)
class Result:
    """A named result in the month-0 column (a workbook-level name, ``npv_usd``).

    ``match``: the label under which the Checks sheet compares it with the econ run;
    ``guard``: blank when the live model cannot compute the choices made (Checks)."""

    name: str
    label: str
    unit: str
    fmt: str
    formula: str
    value: Any
    match: str | None = None
    guard: bool = False


@dataclass(frozen=True)
class Solver:
    """An IRR solver below the print area: the root ``name`` of the flows ``flows`` (a
    template span such as ``[irr_flows:]``); ``shift`` 1 when the span starts at month 0."""

    name: str
    what: str
    flows: str
    shift: int
    trace: Any


Declaration = Section | Row | Result | Solver


def row0(x) -> np.ndarray:
    """Scenario 0 of a (scenarios, H) array as months 0..120 (0 in month 0 and after H)."""
    return pad_months(np.asarray(x)[0])


def held(x) -> np.ndarray:
    """A running total: its value at H held after the horizon."""
    return pad_months(np.asarray(x)[0], 0.0, hold=True)


def blank(x) -> Any:
    """A Python value that may be missing (None or NaN): blank in the workbook."""
    if x is None or (isinstance(x, float) and np.isnan(x)):
        return ""
    return x


def expand(template: str, tl: Timeline, k: int | None = None) -> str:
    """The Excel formula of a template at month ``k`` (None: a result, spans and INDEX only)."""
    rows = tl.book.rows

    def full(name: str) -> str:
        return name if "." in name else f"{tl.prefix}.{name}"

    def sub(mt: re.Match) -> str:
        name, shift, span, at = mt.groups()
        key = full(name)
        if key not in rows:
            raise KeyError(f"formula template {template!r}: no row {key!r}")
        rr = rows[key]
        whole = f"row_{key.replace('.', '_')}"  # the row's defined name, months 0..120
        if span is not None:
            return whole if span == ":0" else rr.span(1)
        if at is not None:
            return f"INDEX({whole},{at}+1)"
        if k is None:
            raise ValueError(f"formula template {template!r}: [{name}] needs a month")
        return tl.ref(key, k + int(shift or 0))

    out = REF.sub(sub, template)
    return out if k is None else out.replace("{m}", tl.month(k))


def render(tl: Timeline, decls: Iterable[Declaration]) -> None:
    """Declare every row of a sheet on its timeline (written by ``tl.flush``); results are
    written at once, solvers are queued below the print area."""
    book = tl.book
    for d in decls:
        if isinstance(d, Section):
            tl.section(d.title, new_page=d.new_page, narrow=d.narrow)
        elif isinstance(d, Row):
            make = _month_formula(tl, d)
            opening = None if d.opening is None else (lambda d=d: expand(d.opening, tl, 0))
            tl.row(d.name, d.label, d.unit, make, d.value, d.fmt, opening=opening)
            book.declared.append((tl.sheet, d))
            if d.check is not None:
                total = f"SUM({book.rows[f'{tl.prefix}.{d.name}'].span()})"
                route = expand(d.check.formula, tl)
                book.second_routes.append((d.check.label, total, route, d))
        elif isinstance(d, Result):
            formula = expand(d.formula, tl)
            if d.guard:
                formula = f'IF(model_computable,{formula},"")'
            tl.scalar(d.name, d.label, d.unit, formula, d.value, d.fmt)
            book.declared.append((tl.sheet, d))
            if d.match is not None:
                fmt = {"usd_b": "usd", "num1": "num2"}.get(d.fmt, d.fmt)
                book.matches.append((d.match, d.value, d.name, fmt))
        elif isinstance(d, Solver):
            tl.solvers.append((d.name, d.what, expand(d.flows, tl), d.shift, d.trace))
        else:  # pragma: no cover - a declaration of an unknown kind
            raise TypeError(f"not a workbook declaration: {d!r}")


def _month_formula(tl: Timeline, d: Row):
    def make(k: int) -> str:
        body = expand(d.formula, tl, k)
        if d.gated:
            return f"IF({tl.ref(f'{tl.prefix}.in_horizon', k)}=1,{body},0)"
        return body

    return make


def months() -> np.ndarray:
    """Month numbers 0..120."""
    return np.arange(MONTHS + 1)
