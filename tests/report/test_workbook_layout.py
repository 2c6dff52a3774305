"""FAST layout of the workbook (docs/model.md, section 8): no formula longer than 250 characters
(intermediate cells instead), a horizon of up to 120 months printed on Annual and drawn on the payback
chart, and a Cover whose every sentence is live or under the STALE banner."""

from __future__ import annotations

import os
import re
import zipfile
from pathlib import Path

import openpyxl
import pytest
from conftest import DATA
from soffice import convert, soffice
from xlsx_names import named_cell, named_range, named_value

from econ.cli import main
from econ.report.inventory import moves_served_model
from econ.report.xl import MONTHS, excel_name

LONGEST = 250  # characters of a formula, "=" included (FAST: intermediate rows instead)


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report")
    argv = ["report", "--data", str(DATA), "--out", str(out), "--samples", "500"]
    assert main([*argv, "--sobol-samples", "64"]) == 0
    return out / "base" / "payback_analysis.xlsx"


def test_no_formula_is_longer_than_250_characters(report):
    wb = openpyxl.load_workbook(report)
    long = [
        (ws.title, c.coordinate, len(c.value))
        for ws in wb.worksheets
        for row in ws.iter_rows()
        for c in row
        if isinstance(c.value, str) and c.value.startswith("=") and len(c.value) > LONGEST
    ]
    assert long == []
    assert {"Cover", "Checks", "Costs", "Payback", "Tables", "Monte Carlo"} <= set(wb.sheetnames)


MONTHLY = ("Revenue", "Costs", "Payback")
REF = re.compile(r"(?:'?([A-Za-z ]+)'?!)?(\$?)([A-Z]{1,3})\$?\d+(?![\d(])")


def later_months(formula: str, column: int) -> list[str]:
    """The references of a month's formula (in ``column``) to a later month of a monthly
    sheet: a relative column to the right (an absolute one is a whole-row span, a total)."""
    return [
        f"{sheet or ''}{col}"
        for sheet, absolute, col in REF.findall(formula)
        if (not sheet or sheet in MONTHLY)
        and not absolute
        and openpyxl.utils.column_index_from_string(col) > column
    ]


def test_the_later_month_finder_finds_what_it_must():
    # the lessor's cash of version 2, in month 0 (column C) and month 1 (column D)
    assert later_months("=-D16", 3) == ["D"]
    assert later_months("=-E16+D12-D18+D19", 4) == ["E"]
    assert later_months("='Revenue'!E13*2", 4) == ["RevenueE"]
    # this month, earlier months, whole-row totals and other sheets' scalars are fine
    assert later_months("='Revenue'!D13+C12-SUM('Costs'!$D$10:$DS$10)", 4) == []
    assert later_months("='Market'!F5*D7", 4) == []


def test_the_monthly_sheets_flow_left_to_right(report):
    """FAST: a month's formula reads its own month and earlier ones, on its own sheet and on
    the others, never a later month (a capex for next month's MW is computed from the schedule
    at month + 1, not read from the next column)."""
    wb = openpyxl.load_workbook(report)
    timeline = {}  # sheet -> the rows of its timeline (each has a defined name row_*)
    for n, dn in wb.defined_names.items():
        if n.startswith("row_"):
            for sheet, cells in dn.destinations:
                timeline.setdefault(sheet, set()).add(int(re.findall(r"\d+", cells)[0]))
    assert set(MONTHLY) <= set(timeline)
    later = [
        (name, c.coordinate, c.value[:60])
        for name in MONTHLY
        for row in wb[name].iter_rows(min_col=3, max_col=3 + MONTHS)
        for c in row
        if c.row in timeline[name]  # not the results, nor the IRR solvers below the print area
        and isinstance(c.value, str)
        and c.value.startswith("=")
        and later_months(c.value, c.column)
    ]
    assert later == []


def test_the_annual_sheet_prints_every_year_and_the_chart_draws_every_month(report):
    wb = openpyxl.load_workbook(report)
    annual = wb["Annual"]
    area = annual.print_area[0] if isinstance(annual.print_area, list) else annual.print_area
    last_col = re.findall(r"\$?([A-Z]+)\$?\d+", area)[-1]
    header = [c.value for c in annual[4]]  # Year, Unit, 1..10 (then econ's hidden copies)
    years = header[2 : header.index(None, 2) if None in header[2:] else None]
    assert years == list(range(1, MONTHS // 12 + 1))
    assert openpyxl.utils.column_index_from_string(last_col) == 2 + MONTHS // 12
    # the payback chart: its series run over the timeline's every month 0..120
    month_120 = openpyxl.utils.get_column_letter(3 + MONTHS)
    with zipfile.ZipFile(report) as z:
        charts = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/chart")]
    payback = [c for c in charts if "Payback curve" in c]
    assert len(payback) == 1
    refs = re.findall(r"<c:f>'?Payback'?!([^<]+)</c:f>", payback[0])
    assert refs and all(r.endswith(f"${month_120}${r.split('$')[-1]}") for r in refs if ":" in r)


if soffice() is None and os.environ.get("ECON_REQUIRE_SOFFICE") == "1":
    pytest.fail("LibreOffice (soffice) is required here (ECON_REQUIRE_SOFFICE=1)", pytrace=False)
needs_soffice = pytest.mark.skipif(soffice() is None, reason="LibreOffice not installed")

EDITS = {
    "horizon_84": {"horizon.months": 84},
    "horizon_120": {"horizon.months": 120},
    "rerun_only": {"model.bytes_per_param": 0.5},  # moves only econ's served model: a rerun
    "platform": {
        "contract.platform": "b300"
    },  # the buy case follows at once, the NPV after a rerun
}


@pytest.fixture(scope="module")
def edited(report, tmp_path_factory) -> dict[str, openpyxl.Workbook]:
    folder = tmp_path_factory.mktemp("edits")
    files = []
    for name, values in EDITS.items():
        wb = openpyxl.load_workbook(report)
        for key, value in values.items():
            named_cell(wb, excel_name(key)).value = value
        files.append(folder / f"{name}.xlsx")
        wb.save(files[-1])
    outs = convert(files, folder / "recalc")
    return {n: openpyxl.load_workbook(p, data_only=True) for n, p in zip(EDITS, outs, strict=True)}


def _annual(wb, label: str) -> list[float]:
    ws = wb["Annual"]
    row = next(r for r in ws.iter_rows() if r[0].value == label)
    return [c.value for c in row[2 : 2 + MONTHS // 12]]


@needs_soffice
@pytest.mark.slow
@pytest.mark.parametrize("horizon", [84, 120])
def test_annual_follows_a_horizon_up_to_120_months(edited, horizon):
    wb = edited[f"horizon_{horizon}"]
    assert named_value(wb, "integrity_ok") is True
    cf = [c.value for c in named_range(wb, "row_payback_cf")]  # months 0..120
    years = _annual(wb, "Net flow the NPV counts (cash and value)")
    for y, got in enumerate(years, start=1):
        want = sum(cf[12 * (y - 1) + 1 : 12 * y + 1])
        assert got == pytest.approx(want, rel=1e-9, abs=1e-3), y
    assert years[horizon // 12 - 1] != 0  # the horizon's last year is printed with its flows
    assert all(x == 0 for x in years[horizon // 12 :])
    cum = _annual(wb, "Cumulative net flow at the year's end")
    assert cum[horizon // 12 - 1] == pytest.approx(
        named_value(wb, "cumulative_cash_at_horizon_usd")
    )
    # cash alone: the rent paid and the cash in, without the GPU cost avoided
    cash = [c.value for c in named_range(wb, "row_payback_cash")]
    for y, got in enumerate(_annual(wb, "Cash flow (cash only)"), start=1):
        assert got == pytest.approx(sum(cash[12 * (y - 1) + 1 : 12 * y + 1]), rel=1e-9, abs=1e-3)
    cum_cash = _annual(wb, "Cumulative cash only at the year's end")
    assert cum_cash[horizon // 12 - 1] == pytest.approx(named_value(wb, "cash_only_at_horizon_usd"))
    assert named_value(wb, "cover_answer").startswith(("Pays back", "Does not", "Never"))


@needs_soffice
@pytest.mark.slow
def test_every_cover_sentence_is_live_or_under_the_stale_banner(report, edited):
    """After an edit only a rerun of econ can follow, the sentence of the run is flagged STALE
    while the live sentences still read as sentences."""
    assert moves_served_model("model.bytes_per_param")  # the live sheets cannot follow it
    wb = edited["rerun_only"]
    assert named_value(wb, "inputs_changed_since_run") is True
    assert named_value(wb, "cover_stale").startswith("STALE")
    base = openpyxl.load_workbook(report)
    cover = base["Cover"]
    stale_row = named_cell(base, "cover_stale").row
    printed = [r for r in cover.iter_rows(max_row=stale_row + 3) if r[1].value is not None]
    for r in printed:
        b = r[1]
        live = isinstance(b.value, str) and b.value.startswith("=")
        assert live or b.row > stale_row, (b.coordinate, b.value)
    assert named_value(base, "cover_stale").startswith("=IF(inputs_changed_since_run")
    # the live answer's title says when a purple input changed: the answer is then half-updated
    # (the buy case follows a new platform at once, the NPV only after a rerun)
    for name in ("rerun_only", "platform"):
        assert named_value(edited[name], "rerun_inputs_changed") is True, name
        assert named_value(edited[name], "cover_live").startswith("STALE"), name
    assert named_value(edited["horizon_84"], "rerun_inputs_changed") is False  # a blue input
    assert named_value(edited["horizon_84"], "cover_live") == "live"
    assert named_value(edited["platform"], "integrity_ok") is True


@needs_soffice
@pytest.mark.slow
def test_the_cover_says_the_rate_as_typed_and_one_month(report, tmp_path):
    wb = openpyxl.load_workbook(report)
    named_cell(wb, "finance_discount_rate_annual").value = 0.125
    named_cell(wb, "contract_term_months").value = 1  # the term: 1 month, not "1 months"
    named_cell(wb, "horizon_months").value = 12
    wb.save(tmp_path / "edited.xlsx")
    recalculated = convert([tmp_path / "edited.xlsx"], tmp_path / "r")[0]
    out = openpyxl.load_workbook(recalculated, data_only=True)
    assert named_value(out, "cover_worth").startswith("NPV at 12.5%: ")
    assert named_value(out, "cover_term_words") == "1 month"
    assert "1 months" not in " ".join(str(c.value) for c in out["Cover"]["B"])


def test_inputs_off_the_npv_say_where_they_go(report, base):
    """An input that is live but that econ's model does not read (an agent's task time on
    Capacity, the buy case on Costs) cannot move the NPV: its printed label says so and names
    the sheet that reads it."""
    from econ.model import evaluate

    ws = openpyxl.load_workbook(report)["Assumptions"]
    side = {
        r[1].value: r[0].value.rsplit(" (", 1)[1]
        for r in ws.iter_rows()
        if isinstance(r[0].value, str) and r[0].value.endswith("only: not the NPV)")
    }
    agent = ("agent.calls", "agent.output_tokens_per_call", "agent.ttft_s", "agent.p99_multiplier")
    # the power price moves the NPV since version 4 (the energy of a freed GPU-hour)
    buy = ("buy.facility_capex_usd_per_mw", "buy.facility_life_years",
           "buy.maintenance_share_annual", "buy.resale_share")  # fmt: skip
    assert side == {
        **{k: "Capacity only: not the NPV)" for k in agent},
        **{k: "Costs only: not the NPV)" for k in buy},
    }
    assert not set(side) & set(evaluate(base, detail=False).inputs_read)
