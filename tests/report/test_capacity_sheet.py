"""The Capacity sheet to the FAST standard (docs/extending.md, "A row of the workbook"): formulas
within 250 characters, Tables read by defined name and never by cell address, no empty text
returned into a number, a unit on every row and one number format for each row or column of
the declarations."""

from __future__ import annotations

import re

import openpyxl
import pytest

from econ.model import evaluate
from econ.report import write_report
from econ.report.capacity_rows import Across, Marked, Table
from econ.report.capacity_sheet import declarations
from econ.report.rows import Result
from econ.report.xl import NUMBER_FORMATS

LONGEST = 250  # characters of a formula (FAST: a helper row instead)
TABLES_BY_ADDRESS = re.compile(r"Tables'?!\$?[A-Z]{1,3}\$?\d", re.IGNORECASE)


@pytest.fixture(scope="module")
def capacity(base, tmp_path_factory):
    path = write_report(base, tmp_path_factory.mktemp("report"))
    return openpyxl.load_workbook(path)["Capacity"]


def _formulas(ws) -> list[tuple[str, str]]:
    return [
        (c.coordinate, c.value)
        for row in ws.iter_rows()
        for c in row
        if isinstance(c.value, str) and c.value.startswith("=")
    ]


def test_capacity_formulas_are_short_and_read_tables_by_name(capacity):
    formulas = _formulas(capacity)
    assert len(formulas) > 400  # the knots, the curve, the physics, the layouts, the grids
    assert [(at, len(f)) for at, f in formulas if len(f) > LONGEST] == []
    assert [(at, f) for at, f in formulas if TABLES_BY_ADDRESS.search(f)] == []
    # the knots read frontier.csv's columns on Tables by their names
    assert any("INDEX(frontier_tokens_per_s_per_mw," in f for _, f in formulas)


def test_no_capacity_formula_returns_empty_text(capacity):
    assert [(at, f) for at, f in _formulas(capacity) if '""' in f] == []


def test_every_labelled_capacity_value_has_a_unit(capacity):
    live = []  # the live rows, above the snapshots' banner
    for row in capacity.iter_rows(max_col=3):
        if str(row[0].value).startswith("Snapshot of the econ run"):
            break
        live.append(row)
    assert len(live) > 150
    missing = [
        row[0].value
        for row in live
        if isinstance(row[0].value, str)
        and not row[0].value.startswith("=")
        and isinstance(row[2].value, int | float | str)
        and not str(row[1].value or "").strip()
        and (not isinstance(row[2].value, str) or row[2].value.startswith("="))
        and row[0].font.b is not True  # a header or title
    ]
    assert missing == []


def test_every_capacity_declaration_has_a_unit_and_one_format(base):
    r = evaluate(base)
    names: list[str] = []
    for d in declarations(base, r):
        if isinstance(d, Result | Marked | Across):
            assert d.label and d.unit and d.fmt in NUMBER_FORMATS, d
            keys = d.values if isinstance(d, Across) else [""]
            names += [d.name.replace("{key}", k) for k in keys]
        elif isinstance(d, Table):
            for c in d.columns:
                assert c.formula is None or (c.unit and c.fmt in NUMBER_FORMATS), (d.name, c)
                assert len(c.values) == len(d.columns[0].values), (d.name, c.name)
                names.append(f"{d.name}_{c.name}")
    assert len(names) == len(set(names))
    # the names other sheets read (Checks, Market, Revenue, Payback)
    assert {"cap_covers_ultrafast", "gpu_covers", "pchip_platform", "thr_ultrafast",
            "served_ultrafast", "gpu_cost_standard"} <= set(names)  # fmt: skip
