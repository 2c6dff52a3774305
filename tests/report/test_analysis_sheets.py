"""The analysis sheets: the Monte Carlo's percentiles read as econ's terminal prints them, from
the Monte Carlo's own frame of samples; every analysis sheet declared block by block, one
number format a row, no text among numbers."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from xlsx_names import named_range

from econ.constants import IRR_MEANINGFUL_MAX
from econ.report import analysis_sheets, cli_text
from econ.report.workbook import new_workbook
from econ.report.xl import Book, Styles
from econ.sensitivity import run

SAMPLES = 2000
QS = (5, 10, 25, 50, 75, 90, 95)


@pytest.fixture(scope="module")
def analysis(base) -> dict:
    return run.report_analysis(base, samples=SAMPLES, sobol_n=64, seed=12345)[0]


@pytest.fixture(scope="module")
def mc(analysis) -> dict:
    return analysis["mc"]


@pytest.fixture(scope="module")
def sheet(base, analysis, tmp_path_factory) -> openpyxl.Workbook:
    """Every analysis sheet, written alone."""
    path = tmp_path_factory.mktemp("analysis") / "analysis.xlsx"
    wb = new_workbook(path)
    book = Book(wb, Styles(wb), "2026-01-01T00:00:00+00:00", "base")
    names = ("Tornado", "Grid", "Monte Carlo", "MC samples", "Sobol", "Break-even")
    analysis_sheets.write_all(book, {n: wb.add_worksheet(n) for n in names}, base, analysis)
    wb.close()
    return openpyxl.load_workbook(path)


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile by linear interpolation between order statistics (rank q/100 (n-1),
    numpy's default, as econ's documentation states), by hand."""
    v = sorted(values)
    rank = q / 100 * (len(v) - 1)
    lo = math.floor(rank)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (rank - lo) * (v[hi] - v[lo])


def rows_of(wb, name: str) -> dict[str, dict[str, object]]:
    cells = named_range(wb, name)
    width = len([c for c in cells if c.row == cells[0].row])
    grid = [cells[i : i + width] for i in range(0, len(cells), width)]
    head = [c.value for c in grid[0]]
    return {r[0].value: {h: c for h, c in zip(head, r, strict=True)} for r in grid[1:]}


@pytest.mark.parametrize("output, label", [("irr_annual", "IRR"), ("mirr_annual", "MIRR")])
def test_rate_percentiles_are_the_samples_that_have_one_blank_above_the_meaningful_range(
    sheet, mc, output, label
):
    """Each IRR / MIRR percentile cell equals the percentile of the samples that have a rate
    (computed here from the Monte Carlo's frame), a rate; blank where that percentile is above
    1,000 % a year. Samples without a rate never enter as numbers."""
    y = mc["run"].outputs[output].tolist()
    defined = [x for x in y if not math.isnan(x)]
    assert 0 < len(defined) < len(y)  # the base case has samples without an IRR
    row = rows_of(sheet, "mc_percentiles")[label]
    assert row["unit"].value == "1/yr"
    for q in QS:
        cell, want = row[f"P{q}"], percentile(defined, q)
        assert cell.number_format == "0.0%"
        if want > IRR_MEANINGFUL_MAX:
            assert cell.value is None, (q, cell.value)
        else:
            assert cell.value == pytest.approx(want, rel=1e-12, abs=1e-15), q
        assert cell.value is None or abs(cell.value) <= IRR_MEANINGFUL_MAX
    assert row["mean"].value is None  # a rate has no mean (unbounded near a sign change)
    shares = rows_of(sheet, "mc_shares")
    without = shares[f"{label}: share without a value"]["value"].value
    assert without == pytest.approx(1 - len(defined) / len(y), rel=1e-12)
    above = shares[f"{label}: share above the meaningful range"]["value"].value
    assert above == pytest.approx(
        sum(x > IRR_MEANINGFUL_MAX for x in defined) / len(defined), rel=1e-12
    )


def test_percentiles_read_as_the_terminal_prints_them(sheet, mc, monkeypatch):
    """The row of each output on the sheet, written with its number format, is the row of
    econ sensitivity montecarlo's table (after its share undefined; a rate has no mean): a
    blank cell here is '-' there, or '>1,000%' above the meaningful range."""
    monkeypatch.setenv("COLUMNS", "250")  # every column of the terminal's table
    text, _ = cli_text.montecarlo(mc)
    rows = rows_of(sheet, "mc_percentiles")
    for output, label in (("irr_annual", "IRR"), ("mirr_annual", "MIRR")):
        line = next(x for x in text.splitlines() if x.startswith(cli_text.OUTPUT_LABELS[output]))
        printed = line[len(cli_text.OUTPUT_LABELS[output]) :].split()[1 : 1 + len(QS)]
        for q, words in zip(QS, printed, strict=True):
            v = rows[label][f"P{q}"].value
            if v is None:
                assert words in ("-", f">{IRR_MEANINGFUL_MAX:,.0%}"), (label, q)
                continue
            shown = f"{v:,.1%}" if abs(v) >= 0.01 else words
            assert shown == words, (label, q)
    npv = rows["NPV"]
    assert npv["P50"].number_format.startswith("$#,##0.0,,")
    assert npv["P50"].value == pytest.approx(
        percentile(mc["run"].outputs["npv_usd"].tolist(), 50), rel=1e-12
    )


@pytest.mark.parametrize("name", ["Tornado", "Grid", "Monte Carlo", "Sobol", "Break-even"])
def test_no_row_puts_text_among_its_numbers(sheet, name):
    """A row of an analysis sheet: its labels (key, unit ...), then numbers or blanks, never
    text after the first number (but the Break-even's remark why there is none, in its last
    column, which does not print)."""
    ws = sheet[name]
    last = ws.max_column if name == "Break-even" else ws.max_column + 1
    for row in ws.iter_rows(min_row=5, max_col=last - 1):
        first = next((j for j, c in enumerate(row) if isinstance(c.value, int | float)), None)
        if first is None:
            continue
        late = [c.coordinate for c in row[first:] if isinstance(c.value, str)]
        assert late == [], late


def test_a_keys_values_share_one_format_and_a_unit(sheet):
    """Tornado and Break-even: a key's low, base, high (and break-even) in one format, by the
    key's unit (a share as a percentage, money in dollars)."""
    for name, cols in (("Tornado", "CDE"), ("Break-even", "CDEF")):
        ws = sheet[name]
        for r in range(7, 40):
            if not isinstance(ws[f"C{r}"].value, int | float):
                continue
            formats = {ws[f"{c}{r}"].number_format for c in cols if ws[f"{c}{r}"].value is not None}
            assert len(formats) == 1 and ws[f"B{r}"].value, (name, r, formats)
            if ws[f"B{r}"].value.startswith("share"):
                assert formats.pop().endswith("%")
            elif ws[f"B{r}"].value.startswith("USD"):
                assert formats.pop().startswith("$")


def test_a_row_of_the_monte_carlos_tables_has_one_unit_and_one_format(sheet):
    for name in ("mc_percentiles", "mc_shares"):  # a row an output: one unit, one format
        for label, row in rows_of(sheet, name).items():
            formats = {c.number_format for h, c in row.items() if h not in (None, "unit")
                       and not isinstance(c.value, str)}  # fmt: skip
            assert len(formats) == 1 and row["unit"].value, (label, formats)


LONGEST = 80  # lines a function of the snapshot sheets may take


@pytest.mark.parametrize("module", ["analysis_sheets.py", "blocks.py", "compare.py", "charts.py"])
def test_no_function_of_the_snapshot_sheets_is_longer_than_80_lines(module):
    path = Path(analysis_sheets.__file__).with_name(module)
    tree = ast.parse(path.read_text())
    long = {
        f.name: f.end_lineno - f.lineno + 1
        for f in ast.walk(tree)
        if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
        and f.end_lineno - f.lineno + 1 > LONGEST
    }
    assert long == {}, long


def test_the_tornado_of_a_rate_blanks_what_is_above_the_meaningful_range():
    """An IRR of 1,839,081,408.2 % at a key's high (flows that barely go negative) is not a
    rate: blank, as econ prints it; the rest as the rates they are."""
    df = pd.DataFrame(
        {
            "output": ["irr_annual"] * 2,
            "variable": ["contract.value_usd", "finance.discount_rate_annual"],
            "low": [9e9, 0.06],
            "high": [11e9, 0.15],
            "base": [10e9, 0.10],
            "output_base": [0.25, 0.25],
            "output_low": [0.40, 0.25],
            "output_high": [18_390_814.082, 0.25],
            "change_low": [0.15, 0.0],
            "change_high": [18_390_813.832, 0.0],
            "swing": [18_390_813.682, 0.0],
        }
    )
    blocks = analysis_sheets.tornado_blocks(df, "irr_annual", first=False)
    table = next(b for b in blocks if getattr(b, "name", "") == "irr_annual")
    levels = next(b for b in blocks if getattr(b, "name", "") == "irr_annual_levels")
    row = levels.frame.iloc[0]
    assert row["output_low"] == 0.40 and row["change_low"] == 0.15
    assert math.isnan(row["output_high"]) and math.isnan(row["change_high"])
    assert math.isnan(table.frame["swing"].iloc[0])
    assert list(table.frame["variable"]) == ["contract.value_usd"]  # no effect: listed apart
    assert table.row_fmt == ["usd_b"]  # the key's values in its unit
    none = next(b for b in blocks if getattr(b, "name", "") == "irr_annual_none")
    assert none.row_fmt == ["pct"]


def test_shares_are_never_negative(sheet):
    """The shares' number format writes two decimals below 1 % with a condition, which drops
    a minus sign in LibreOffice: every value it formats is a share, never negative."""
    for row in rows_of(sheet, "mc_shares").values():
        for h in ("value", "standard error"):
            assert row[h].value is None or row[h].value >= 0


def test_the_tornado_sheet_names_the_ends_past_a_kink(sheet, analysis):
    """Under the printed NPV tornado, the bar ends the engine marks (docs/model.md section 7):
    on the bundled data the B300's layer latency at its high end, where the B300 serves the
    fast tier below its asked speed."""
    texts = [
        c.value for row in sheet["Tornado"].iter_rows() for c in row if isinstance(c.value, str)
    ]
    (note,) = [t for t in texts if t.startswith("Ends past a kink")]
    npv = analysis["tornado"][analysis["tornado"]["output"] == "npv_usd"]
    marked = [
        f"{r['variable']} at {e}, {r[f'ends_on_{e}']}"
        for _, r in npv.iterrows()
        for e in ("low", "high")
        if r[f"ends_on_{e}"] and r["swing"] != 0
    ]
    assert marked and all(m in note for m in marked)
    assert "hardware.b300.layer_latency_us at high, a tier served below the speed" in note
