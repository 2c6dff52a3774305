"""The workbook recalculated in LibreOffice equals the Python model (WORKBOOK.md)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import openpyxl
import pytest
from conftest import DATA
from soffice import recalculate, soffice

from econ.cli import main
from econ.model import evaluate

ERRORS = ("#NAME?", "#DIV/0!", "#REF!", "#VALUE!", "#N/A", "#NUM!", "#NULL!", "Err:")

if soffice() is None:
    if os.environ.get("ECON_REQUIRE_SOFFICE") == "1":
        pytest.fail(
            "LibreOffice (soffice) is required here (ECON_REQUIRE_SOFFICE=1) but not installed",
            pytrace=False,
        )
    pytest.skip("LibreOffice not installed", allow_module_level=True)


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report")
    assert (
        main(
            [
                "report",
                "--data",
                str(DATA),
                "--out",
                str(out),
                "--samples",
                "500",
                "--sobol-samples",
                "64",
            ]
        )
        == 0
    )
    return out / "base" / "payback_analysis.xlsx"


@pytest.fixture(scope="module")
def recalculated(report, tmp_path_factory) -> Path:
    return recalculate(report, tmp_path_factory.mktemp("recalc"))


def _formula_cells(path: Path):
    wb = openpyxl.load_workbook(path)
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if isinstance(c.value, str) and c.value.startswith("="):
                    yield ws.title, c.coordinate, c.value


def test_every_formula_recalculates_to_the_python_value(report, recalculated):
    cached = openpyxl.load_workbook(report, data_only=True)
    recalc = openpyxl.load_workbook(recalculated, data_only=True)
    cells = list(_formula_cells(report))
    assert len(cells) > 300  # the monthly chain is live
    bad = []
    for sheet, coord, formula in cells:
        want = cached[sheet][coord].value
        got = recalc[sheet][coord].value
        if isinstance(want, bool) or not isinstance(want, int | float):
            ok = want == got
        else:
            ok = isinstance(got, int | float) and abs(got - want) <= 1e-9 * max(1.0, abs(want))
        if not ok:
            bad.append((sheet, coord, formula[:60], want, got))
    assert bad == []


def test_no_error_values_after_recalculation(recalculated):
    wb = openpyxl.load_workbook(recalculated, data_only=True)
    found = [
        (ws.title, c.coordinate, c.value)
        for ws in wb.worksheets
        for row in ws.iter_rows()
        for c in row
        if isinstance(c.value, str) and c.value.startswith(ERRORS)
    ]
    assert found == []


def test_master_check_is_true_after_recalculation(recalculated):
    ws = openpyxl.load_workbook(recalculated, data_only=True)["Checks"]
    master = [
        r for r in ws.iter_rows() if r[0].value and str(r[0].value).startswith("Master check")
    ][0]
    assert master[4].value is True


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("contract.value_usd", 12e9),
        (
            "tiers.ultrafast.usage_multiplier",
            5.5,
        ),  # through quota burn, cap hits and the Pro stocks
        ("usage.token_efficiency_gain_annual", 0.3),
        ("contract.ramp_months", 9),  # through capacity, adoption and API tokens
        ("conversion.capped_upgrade_propensity", 0.04),  # pays back within the horizon
    ],
)
def test_editing_an_input_cell_recomputes_the_payback(report, tmp_path, base, key, value):
    wb = openpyxl.load_workbook(report)
    ws = wb["Assumptions"]
    row = next(r for r in ws.iter_rows(min_row=2) if r[0].value == key)
    row[1].value = value
    edited = tmp_path / "edited.xlsx"
    wb.save(edited)
    out = recalculate(edited, tmp_path / "out")
    pay = openpyxl.load_workbook(out, data_only=True)["Payback"]
    npv_row = next(r for r in pay.iter_rows() if r[0].value == "NPV")
    r = evaluate(base.with_overrides([(key, repr(value))]))
    assert r.npv[0] != pytest.approx(evaluate(base).npv[0], rel=1e-3)  # the edit matters
    assert npv_row[2].value == pytest.approx(r.npv[0], rel=1e-9)
    for label, want in (
        ("Payback month", r.payback_months[0]),
        ("Discounted payback month", r.discounted_payback_months[0]),
    ):
        got = next(row for row in pay.iter_rows() if row[0].value == label)[2].value
        assert got == "none" if np.isnan(want) else got == pytest.approx(want, rel=1e-9)
