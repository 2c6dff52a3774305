"""The workbook in LibreOffice: it recalculates to the Python model's values, edits of its inputs
recompute NPV, payback and IRR as econ does for the same --set, its checks hold, and it prints
(docs/model.md, section 8)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import openpyxl
import pytest
from conftest import DATA
from soffice import convert, soffice
from xlsx_names import named_cell, named_value

from econ.cli import main
from econ.headline import clean
from econ.model import evaluate
from econ.payback import irr_note_of, mirr_annual_of
from econ.report.inventory import moves_served_model
from econ.report.xl import excel_name

ERRORS = ("#NAME?", "#DIV/0!", "#REF!", "#VALUE!", "#N/A", "#NUM!", "#NULL!", "Err:")
RTOL = 1e-9  # LibreOffice's arithmetic against numpy's, on every formula cell
PAGES = 40  # the printed base case (PDF) at most this many pages
READABLE = 0.70  # every page printed at 70 % or more of full size

pytestmark = pytest.mark.slow  # LibreOffice: runs with ECON_SLOW=1, as in CI

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
    argv = [
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
    assert main(argv) == 0
    return out / "base" / "payback_analysis.xlsx"


@pytest.fixture(scope="module")
def recalculated(report, tmp_path_factory) -> Path:
    return convert([report], tmp_path_factory.mktemp("recalc"))[0]


def _solver_cells(wb) -> dict[str, set[str]]:
    """The IRR solvers' present values: sums of many terms near their root, compared on the
    scale of the sums (their exact zero is what the bisection looks for); with econ's copies
    of their formulas in the hidden columns of the same rows (Checks compares them)."""
    out: dict[str, set[str]] = {}
    for name in wb.defined_names:
        if name.endswith("_solver_area"):
            sheet, ref = wb.defined_names[name].attr_text.split("!")
            ws = wb[sheet.strip("'")]
            rows = {c.row for row in ws[ref.replace("$", "")] for c in row}
            out.setdefault(ws.title, set()).update(
                c.coordinate for r in rows for c in ws[r] if c.value is not None
            )
    return out


def test_every_formula_recalculates_to_the_python_value(report, recalculated):
    count, bad = _differences(report, recalculated)
    assert count > 9000  # the chain, the frontier, the physics and the IRR solvers are live
    assert bad == []


def _differences(report: Path, recalculated: Path) -> tuple[int, list]:
    """(formula cells, those whose LibreOffice value differs from econ's cached value): within
    RTOL, the IRR solvers' present values on the scale of their sums."""
    formulas = openpyxl.load_workbook(report)
    cached = openpyxl.load_workbook(report, data_only=True)
    recalc = openpyxl.load_workbook(recalculated, data_only=True)
    solver = _solver_cells(formulas)
    scale = {
        sheet: max(
            abs(cached[sheet][c].value)
            for c in cells
            if isinstance(cached[sheet][c].value, int | float)
            and not isinstance(cached[sheet][c].value, bool)
        )
        for sheet, cells in solver.items()
    }
    count, bad = 0, []
    for ws in formulas.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if not (isinstance(c.value, str) and c.value.startswith("=")):
                    continue
                count += 1
                want, got = (
                    cached[ws.title][c.coordinate].value,
                    recalc[ws.title][c.coordinate].value,
                )
                if isinstance(want, bool) or not isinstance(want, int | float):
                    ok = want == got or (want in ("", None) and got in ("", None))
                else:
                    room = RTOL * (
                        scale[ws.title]
                        if c.coordinate in solver.get(ws.title, ())
                        else max(1.0, abs(want))
                    )
                    ok = (
                        isinstance(got, int | float)
                        and not isinstance(got, bool)
                        and abs(got - want) <= room
                    )
                if not ok:
                    bad.append((ws.title, c.coordinate, c.value[:70], want, got))
    return count, bad


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


def test_the_checks_hold_after_recalculation(recalculated):
    wb = openpyxl.load_workbook(recalculated, data_only=True)
    assert named_value(wb, "model_computable") is True
    assert named_value(wb, "integrity_ok") is True
    assert named_value(wb, "matches_run") is True
    assert named_value(wb, "inputs_changed_since_run") is False


def test_every_input_is_named_validated_and_styled(report, base):
    wb = openpyxl.load_workbook(report)
    validated: dict[str, set[str]] = {}
    for ws in wb.worksheets:
        for dv in ws.data_validations.dataValidation:
            validated.setdefault(ws.title, set()).update(str(r) for r in dv.sqref.ranges)
    text = "\n".join(  # the live calculation sheets: what moves the results
        f"{ws.title}!{c.value}"
        for ws in wb.worksheets
        if ws.title in ("Capacity", "Market", "Costs", "Revenue", "Payback")
        for row in ws.iter_rows()
        for c in row
        if isinstance(c.value, str) and c.value.startswith("=")
    )
    names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
    direct = set(re.findall(r"'Tables'!\$?([A-Z]+\$?\d+)", text))
    for key in base.values:
        cell = named_cell(wb, excel_name(key))
        assert cell.coordinate in validated[cell.parent.title], key
        column = key.split(".")[2] if key.count(".") == 2 else ""
        used = (
            excel_name(key) in names
            or (
                cell.parent.title == "Tables"
                and cell.coordinate in {d.replace("$", "") for d in direct}
            )
            or (column and f"{key.split('.')[0]}_{column}" in names)
        )
        # an input either drives the live sheets (the input style) or says it does not
        # ("econ input: rerun econ after changing", purple on grey)
        used = used and not moves_served_model(key)  # a value of the run on Capacity
        style = cell.fill.fgColor.rgb
        assert style.endswith("FFF2CC" if used else "EDEDED"), (key, style)
    for name in (
        "npv_usd",
        "npv_without_terminal_value_usd",
        "payback_months",
        "discounted_payback_months",
        "irr_annual",
    ):
        assert name in wb.defined_names
    assert wb["Assumptions"].auto_filter.ref is None  # sorting cannot rewire the model


# One input at a time (held out: none of them shaped the code): LibreOffice's NPV, payback and IRR
# equal econ's for the same --set. Each leaves the served model of the run as it was (econ's
# served-speed choice and the throughputs are values of the run on Capacity; the test checks).
EDITS = [
    ("horizon.months", 120),
    ("conversion.pro_churn_monthly", 0.05),
    ("plans.pro.price_usd_month", 250),
    ("contract.ramp_months", 6),
    ("contract.payment", "take_or_pay"),
    ("contract.delivered_share", 0.6),
    ("finance.terminal_value", 0),
    ("contract.mw", 20),
    ("tiers.ultrafast.price_per_mtok_usd", 120),
    ("market.pro_growth_monthly", 0.01),
    ("api.diversion_to_lab_tiers", 0.8),
    ("finance.discount_rate_annual", 0.125),
    ("capacity.backfill_flexible_share", 0.2),
    ("usage.demand_sigma", 1.0),
    ("capacity.gpu_cost_per_mtok_usd", 4),
    ("api.speed_nest_lambda", 0.5),
    ("usage.peak_to_average", 3),
    ("plans.plus.queries_per_day", 30),
    ("contract.value_usd", 6e9),
    # version 4: the drivers of the sign, live
    ("fleet.avoidable_share", 0.9),
    ("capacity.movable_share", 0.8),
    ("capacity.internal_batch_tokens_per_month", 1e13),
    ("hardware.b300.rent_usd_per_hour", 3.0),
    ("hardware.b300.frontier_scale", 2.0),
    ("hardware.wse3.frontier_scale", 0.9),
    ("fleet.troughs", "idle"),
    ("fleet.ops_utilization", 0.9),
    ("market.price_decline_per_year", 0.3),
    ("hardware.gpu_cost_decline_per_year", 0.6),
    ("conversion.voluntary_cap_hit_weight", 1.0),
    ("usage.ultrafast_query_share", 0.8),
    ("conversion.lower_pro_share", 0.2),
    # the physics envelope, live (the tornado's ends of three of its largest keys)
    ("model.kv_bytes_per_token", 1.3e6),
    ("usage.context_tokens", 4096),
    ("model.prefill_tokens_per_output", 15),
]
# a frontier scale, the KV cache and the prefill move the throughput that feeds the money, not
# the served speeds
SCALES = (
    "hardware.b300.frontier_scale",
    "hardware.wse3.frontier_scale",
    "model.kv_bytes_per_token",
    "usage.context_tokens",
    "model.prefill_tokens_per_output",
)


@pytest.fixture(scope="module")
def edited(report, tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("edits")
    files = []
    for key, value in EDITS:
        wb = openpyxl.load_workbook(report)
        named_cell(wb, excel_name(key)).value = value
        path = folder / f"{excel_name(key)}.xlsx"
        wb.save(path)
        files.append(path)
    outs = convert(files, folder / "recalc")  # one LibreOffice for all the edits
    return {key: out for (key, _), out in zip(EDITS, outs, strict=True)}


@pytest.mark.parametrize(("key", "value"), EDITS, ids=[k for k, _ in EDITS])
def test_an_edited_input_recomputes_npv_payback_and_irr_as_econ_does(edited, base, key, value):
    wb = openpyxl.load_workbook(edited[key], data_only=True)
    edited_a = base.with_overrides([(key, str(value))])
    r0, r1 = evaluate(base), evaluate(edited_a)
    want = {
        "npv_usd": float(r1.npv[0]),
        "payback_months": clean(float(r1.payback_months[0])),
        "discounted_payback_months": clean(float(r1.discounted_payback_months[0])),
        "irr_annual": clean(float(r1.irr_annual[0])),
        "mirr_annual": clean(float(mirr_annual_of(r1)[0])),
        "irr_note": irr_note_of(r1)[0],
    }
    # it matters (the horizon moves the NPV without its tail: the tail's value makes the NPV
    # itself nearly independent of the horizon)
    moved = "npv_without_terminal_value" if key == "horizon.months" else "npv"
    assert getattr(r1, moved)[0] != pytest.approx(float(getattr(r0, moved)[0]), rel=1e-4)
    held_fields = ["served_tokens_per_s_ultrafast", "served_tokens_per_s_standard"]
    if key not in SCALES:
        held_fields.append("throughput_per_mw")
    for served in held_fields:
        assert getattr(r1, served)[0] == getattr(r0, served)[0], (
            served
        )  # the run's served model holds
    assert named_value(wb, "npv_usd") == pytest.approx(want["npv_usd"], rel=1e-9)
    for name, rel in (
        ("payback_months", 1e-9),
        ("discounted_payback_months", 1e-9),
        ("irr_annual", 1e-8),
        ("mirr_annual", 1e-9),
    ):
        got, expected = named_value(wb, name), want[name]
        if expected is None:
            assert got in ("", None), name
        else:
            assert got == pytest.approx(expected, rel=rel), name
    # the IRR's criterion, live (docs/model.md, section 0.7): 1 exactly where econ reports an IRR
    assert (named_value(wb, "irr_criterion") == 1) == (want["irr_note"] is None)
    assert named_value(wb, "integrity_ok") is True
    assert named_value(wb, "inputs_changed_since_run") is True
    assert named_value(wb, "matches_run") == "n/a: inputs changed"


# A successor of another size (docs/model.md V4.6): the scenario successor_2x (the contract
# serves the 4T successor from month 4) and a 32T one it cannot serve (the predecessor's demand
# declines), each recalculated as written and with inputs edited that act on the successor's
# values live (the GPU rent, the avoidable share, the contract platform's frontier scale).
SUCCESSORS = {
    "successor_2x": ["--scenario", "successor_2x"],
    "successor_16x": [
        "--set",
        "model.successor_params_multiple=16",
        "--set",
        "model.predecessor_decline_per_month=0.3",
    ],
}
SUCCESSOR_EDITS = [
    ("hardware.b300.rent_usd_per_hour", 3.0),
    ("fleet.avoidable_share", 0.9),
    ("hardware.wse3.frontier_scale", 0.9),
]


@pytest.fixture(scope="module")
def successors(tmp_path_factory) -> dict:
    """{case: (workbook, its overrides, its recalculation, {edited key: recalculation})}, every
    workbook through one LibreOffice."""
    folder = tmp_path_factory.mktemp("successors")
    files, made = [], {}
    for case, argv in SUCCESSORS.items():
        out = folder / case
        assert (
            main(["report", "--data", str(DATA), "--out", str(out), "--no-sensitivity", *argv]) == 0
        )
        (written,) = out.glob("*/payback_analysis.xlsx")
        book = folder / f"{case}.xlsx"  # LibreOffice names its outputs by the file's name
        shutil.copyfile(written, book)
        files.append(book)
        for key, value in SUCCESSOR_EDITS:
            wb = openpyxl.load_workbook(book)
            named_cell(wb, excel_name(key)).value = value
            path = folder / f"{case}-{excel_name(key)}.xlsx"
            wb.save(path)
            files.append(path)
        made[case] = book
    outs = iter(convert(files, folder / "recalc"))
    got = {}
    for case, book in made.items():
        recalc = next(outs)
        got[case] = (book, recalc, {key: next(outs) for key, _ in SUCCESSOR_EDITS})
    return got


def _successor_case(base, case: str):
    argv = SUCCESSORS[case]
    a = base.with_scenario(argv[1]) if argv[0] == "--scenario" else base
    pairs = [tuple(x.split("=")) for x in argv[1::2]] if argv[0] == "--set" else []
    return a.with_overrides(pairs)


@pytest.mark.parametrize("case", sorted(SUCCESSORS))
def test_a_successor_of_another_size_recalculates_and_its_edits_follow(successors, base, case):
    book, recalc, edited = successors[case]
    count, bad = _differences(book, recalc)
    assert count > 9000
    assert bad == []
    wb = openpyxl.load_workbook(recalc, data_only=True)
    assert named_value(wb, "model_status") == "live"
    a = _successor_case(base, case)
    r = evaluate(a)
    reached = float(r.parts["successor.reached"][0])
    assert reached == (1.0 if case == "successor_2x" else 0.0)  # both branches of V4.6
    assert named_value(wb, "npv_usd") == pytest.approx(float(r.npv[0]), rel=1e-9)
    for key, value in SUCCESSOR_EDITS:
        r1 = evaluate(a.with_overrides([(key, str(value))]))
        assert r1.npv[0] != pytest.approx(float(r.npv[0]), rel=1e-4), key
        assert float(r1.parts["successor.reached"][0]) == reached, key
        got = openpyxl.load_workbook(edited[key], data_only=True)
        assert named_value(got, "integrity_ok") is True, key
        assert named_value(got, "npv_usd") == pytest.approx(float(r1.npv[0]), rel=1e-9), key


def test_the_workbook_prints_readably_in_few_pages(report, tmp_path):
    """The base case prints in at most 40 pages (LibreOffice's PDF), every page at 70 % of full
    size or more, none cut to ###, none a bare banner; the header and footer on each."""
    if shutil.which("pdftotext") is None:
        if os.environ.get("ECON_REQUIRE_SOFFICE") == "1":
            pytest.fail("pdftotext (poppler-utils) is required here (ECON_REQUIRE_SOFFICE=1)")
        pytest.skip("pdftotext not installed")
    pdf = convert([report], tmp_path, "pdf")[0]
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    pages = text.count("\f")
    assert 10 < pages <= PAGES
    assert "###" not in text  # a number too wide for its column
    assert "page 1 of" in text and "econ: base" in text  # the footer and the header
    assert "Contents" in text and "Annual summary" in text
    box = subprocess.run(
        ["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    # the footer's 8-point "page" on each page: its height is the page's print scale; the
    # Contents page (two narrow columns) prints at full size
    word = re.compile(r'yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)</word>')
    heights, words = [], []
    for page in box.split("<page ")[1:]:
        found = [(float(b) - float(a), w) for a, b, w in word.findall(page)]
        heights.append(next(h for h, w in found if w == "page"))
        words.append(len(found))
    contents = text.split("\f").index(next(p for p in text.split("\f") if "Contents" in p[:400]))
    full = heights[contents]
    small = [i + 1 for i, h in enumerate(heights) if h < READABLE * full * (1 - 1e-3)]
    assert small == [], f"pages printed below {READABLE:.0%}: {small}"
    assert min(words) > 20  # no page holds only a banner
