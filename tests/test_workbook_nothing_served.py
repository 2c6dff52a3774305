"""A deal that serves nothing: the workbook, recalculated by LibreOffice, shows blanks where
the model has no number (the realised cost per token), never an error value."""

from __future__ import annotations

import openpyxl
import pytest
from conftest import DATA
from soffice import convert, soffice
from xlsx_names import named_cell

from econ.cli import main

NOTHING_SERVED = [
    "tiers.fast.adoption=0",
    "tiers.ultrafast.adoption=0",
    "api.ultrafast_tokens_per_month=0",
    "capacity.movable_share=0",  # no standard traffic moved (section V4.2)
    "capacity.internal_batch_tokens_per_month=0",
    "free.served=0",
]
ERRORS = ("#NAME?", "#DIV/0!", "#REF!", "#VALUE!", "#N/A", "#NUM!", "#NULL!", "Err:")

pytestmark = pytest.mark.slow  # LibreOffice: runs with ECON_SLOW=1, as in CI


def test_nothing_served_leaves_the_realised_cost_blank(tmp_path):
    if soffice() is None:
        pytest.skip("LibreOffice not installed")  # ECON_REQUIRE_SOFFICE: the recalc tests fail
    sets = [a for s in NOTHING_SERVED for a in ("--set", s)]
    assert (
        main(["report", "--data", str(DATA), "--out", str(tmp_path), "--no-sensitivity", *sets])
        == 0
    )
    book = tmp_path / "base" / "payback_analysis.xlsx"
    recalc = openpyxl.load_workbook(convert([book], tmp_path / "recalc")[0], data_only=True)
    cell = named_cell(openpyxl.load_workbook(book), "realised_cost_per_mtok_usd")
    assert recalc[cell.parent.title][cell.coordinate].value in (None, "")
    errors = [
        f"{sheet.title}!{c.coordinate}"
        for sheet in recalc.worksheets
        for row in sheet.iter_rows()
        for c in row
        if isinstance(c.value, str) and c.value.startswith(ERRORS)
    ]
    assert errors == []
