"""A report never silently replaces one built from other data; it names its data and what
differs from the bundled assumptions."""

from __future__ import annotations

import hashlib

import openpyxl
import pytest

import econ
from econ.report import OutputError, write_report
from econ.report.output import SOURCE


def _hash(a: econ.Assumptions) -> str:
    # the files' SHA-256 as sha256sum lists them, by name, hashed once more (by hand here)
    text = "".join(f"{f.sha256}  {f.name}\n" for f in sorted(a.files, key=lambda f: f.name))
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_a_report_of_other_data_is_refused_unless_replaced(tmp_path, base, data_copy):
    out = tmp_path / "reports"
    path = write_report(base, out)
    summary = path.with_name("summary.md").read_text(encoding="utf-8")
    assert _hash(base)[:16] in summary and "Data:" in summary
    cover = openpyxl.load_workbook(path)["Cover"]
    rows = {r[0]: r[1] for r in cover.iter_rows(values_only=True) if r[0]}
    assert rows["Data SHA-256"] == _hash(base)
    first = path.read_bytes()
    # another data folder (a copy, same content) into the same report folder: one line naming
    # both, nothing replaced
    other = econ.load(data_copy)
    with pytest.raises(OutputError, match="holds the report of data folder .* --replace"):
        write_report(other, out)
    assert path.read_bytes() == first
    # the same data folder again, with other values: replaced without a word
    write_report(base.with_overrides([("plans.pro.price_usd_month", "250")]), out)
    assert path.read_bytes() != first
    # --replace: replaced, and the folder now says it holds the other data
    write_report(other, out, replace=True)
    assert str(data_copy.resolve()) in (path.parent / SOURCE).read_text(encoding="utf-8")
    write_report(other, out)  # and that data again: silent


def test_a_report_from_changed_assumptions_explains_the_change(tmp_path, base):
    case = base.with_overrides([("plans.pro.price_usd_month", "250"), ("contract.mw", "600")])
    path = write_report(case, tmp_path / "reports")
    wb = openpyxl.load_workbook(path)
    assert "Explain" in wb.sheetnames
    rows = {r[0]: r[1] for r in wb["Cover"].iter_rows(values_only=True) if r[0]}
    line = rows["Differs from the bundled data"]
    # each value in its key's unit (econ.formatting)
    assert "plans.pro.price_usd_month $200.00 -> $250.00" in line
    assert "contract.mw 750.0 -> 600.0" in line
    summary = path.with_name("summary.md").read_text(encoding="utf-8")
    assert line in summary and "explain_npv.png" in summary
    assert path.with_name("explain_npv.png").stat().st_size > 0
    # the Explain sheet's shares sum to the change in NPV
    cells = list(wb["Explain"].iter_rows(values_only=True))
    total = next(r for r in cells if r[0] == "total")
    npv = next(r for r in cells if r[0] == "NPV")
    assert total[4] == pytest.approx(npv[2] - npv[1], rel=1e-9)
