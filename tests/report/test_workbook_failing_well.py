"""The workbook fails well (docs/model.md, section 8): every dropdown choice recalculates in
LibreOffice without an error value, a choice econ refuses shows one FALSE check with a message
and blank results, and errors injected into the calculations are caught by the integrity
checks after an input was edited (the match with the run has lapsed by then)."""

from __future__ import annotations

import os

import openpyxl
import pytest
from conftest import DATA
from soffice import convert, soffice
from xlsx_names import named_cell, named_range, named_value

from econ.assumptions import AssumptionError
from econ.cli import main
from econ.headline import headline

ERRORS = ("#NAME?", "#DIV/0!", "#REF!", "#VALUE!", "#N/A", "#NUM!", "#NULL!", "Err:")

pytestmark = pytest.mark.slow  # LibreOffice: runs with ECON_SLOW=1, as in CI

if soffice() is None:
    if os.environ.get("ECON_REQUIRE_SOFFICE") == "1":
        pytest.fail(
            "LibreOffice (soffice) is required here (ECON_REQUIRE_SOFFICE=1)", pytrace=False
        )
    pytest.skip("LibreOffice not installed", allow_module_level=True)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    assert main(["report", "--data", str(DATA), "--out", str(out), "--no-sensitivity"]) == 0
    return out / "base" / "payback_analysis.xlsx"


def _variants(report, folder, variants):
    """Save one copy of the workbook per variant (a function editing the loaded workbook and
    returning an undo) and recalculate them all in one LibreOffice."""
    wb = openpyxl.load_workbook(report)
    files = []
    for name, edit in variants:
        undo = edit(wb)
        path = folder / f"{name}.xlsx"
        wb.save(path)
        files.append(path)
        undo()
    return dict(zip([n for n, _ in variants], convert(files, folder / "recalc"), strict=True))


def _set(**values):
    """An edit of named inputs (names with underscores)."""

    def edit(wb):
        old = {k: named_cell(wb, k).value for k in values}
        for k, v in values.items():
            named_cell(wb, k).value = v

        def undo():
            for k, v in old.items():
                named_cell(wb, k).value = v

        return undo

    return edit


def _errors(wb) -> list:
    return [
        (ws.title, c.coordinate, c.value)
        for ws in wb.worksheets
        for row in ws.iter_rows()
        for c in row
        if isinstance(c.value, str) and c.value.startswith(ERRORS)
    ]


PLATFORMS = ("b300", "wse3", "h100", "groq_lpu")
# every value of every dropdown: the platforms and the basis (values of the run: a choice shows
# as a changed input and, where econ refuses it, as one FALSE check), the subscriber offer (live)
CHOICES = [
    *[(f"{p}_{b}", {"contract_platform": p, "capacity_basis": b})
      for p in PLATFORMS for b in ("data", "transferred", "physics")],
    *[(f"gpu_{p}_data", {"capacity_gpu_platform": p, "capacity_basis": "data"}) for p in PLATFORMS],
    *[(f"gpu_{p}", {"capacity_gpu_platform": p}) for p in PLATFORMS],
    *[(f"offer_{o}", {"capacity_subscriber_offer": o}) for o in ("auto", "on", "off")],
]  # fmt: skip
LIVE = ("capacity_subscriber_offer",)  # dropdowns the live model follows


@pytest.fixture(scope="module")
def choices(report, tmp_path_factory):
    variants = [(name, _set(**values)) for name, values in CHOICES]
    return _variants(report, tmp_path_factory.mktemp("choices"), variants)


@pytest.mark.parametrize(("name", "values"), CHOICES, ids=[n for n, _ in CHOICES])
def test_every_dropdown_choice_recalculates_without_an_error_value(choices, base, name, values):
    wb = openpyxl.load_workbook(choices[name], data_only=True)
    assert _errors(wb) == []
    keys = [(k.replace("_", ".", 1), v) for k, v in values.items()]
    try:
        want = headline(base.with_overrides(keys))
    except AssumptionError:
        want = None
    if want is not None:  # econ computes it: the workbook too, with every check holding
        assert named_value(wb, "model_computable") is True
        assert named_value(wb, "integrity_ok") is True
        if all(k in LIVE for k in values):  # live: the same NPV as econ's
            assert named_value(wb, "npv_usd") == pytest.approx(want["npv_usd"], rel=1e-9)
        return
    # econ refuses it: one FALSE check with a message, blank results, the Cover says why
    assert named_value(wb, "model_computable") is False
    assert named_value(wb, "integrity_ok") is False
    flags = [c.value for c in named_range(wb, "checks_computable_area")]
    flags += [c.value for c in named_range(wb, "checks_integrity_area")]
    assert flags.count(False) == 1 and flags.count(True) == len(flags) - 1
    assert "frontier curve" in named_value(wb, "model_problem")
    for result in ("npv_usd", "payback_months", "irr_annual", "terminal_value_usd"):
        assert named_value(wb, result) in ("", None), result
    answer = named_value(wb, "cover_answer")
    assert answer.startswith("The live model cannot compute the choices made: The data basis")


def _inject(name: str, months: range | None = None, value: float = 0.0):
    """Overwrite a named cell, or months of a named timeline row, with a typed value."""

    def edit(wb):
        cells = named_range(wb, name)
        cells = [cells[m] for m in months] if months is not None else cells[:1]
        old = [c.value for c in cells]
        for c in cells:
            c.value = value

        def undo():
            for c, v in zip(cells, old, strict=True):
                c.value = v

        return undo

    return edit


def _paste_value(name: str):
    """A formula replaced by the value it had (its cached value in the run)."""

    def edit(wb):
        cell = named_cell(wb, name)
        old = cell.value
        cell.value = INJECT_CACHE[name]

        def undo():
            cell.value = old

        return undo

    return edit


INJECT_CACHE: dict[str, float] = {}
EDIT = {"plans_pro_price_usd_month": 250}  # a legitimate edit first: the run match lapses
INJECTED = [
    ("revenue_cell_hard_coded", _inject("row_revenue_sub", range(10, 11), 5e8)),
    ("discount_factor_set_to_1", _inject("row_costs_d", range(12, 13), 1.0)),
    ("payback_discount_factor_set_to_1", _inject("row_payback_d", range(20, 21), 1.0)),
    ("revenue_cell_pasted_month_20", _inject("row_revenue_sub", range(20, 21), 1e7)),
    ("gpu_row_set_to_0", _inject("row_revenue_gpu", range(1, 121), 0.0)),
    ("subscription_row_set_to_0", _inject("row_revenue_sub", range(1, 121), 0.0)),
    ("terminal_value_set_to_0", _inject("terminal_value_usd")),
    ("months_per_year_13", _inject("constant_months_per_year", value=13.0)),
    ("seconds_per_month_edited", _inject("constant_seconds_per_month", value=2.6e6)),
    ("npv_pasted_as_value", _paste_value("npv_usd")),
    ("npv_without_tv_pasted", _paste_value("npv_without_terminal_value_usd")),
    ("cash_flow_cell_hard_coded", _inject("row_payback_cf", range(5, 6), 1e8)),
    ("cash_in_cell_hard_coded", _inject("row_payback_cash_in", range(7, 8), 1e8)),
    ("gpu_value_cell_hard_coded", _inject("row_payback_gpu", range(8, 9), 1e8)),
    ("rent_cell_hard_coded", _inject("row_costs_rent", range(3, 4), 0.0)),
    ("payback_rent_cell_hard_coded", _inject("row_payback_rent", range(3, 4), 0.0)),
    ("discounted_cash_cell_hard_coded", _inject("row_payback_dcf", range(9, 10), 0.0)),
    ("mw_online_cell_hard_coded", _inject("row_revenue_mw", range(7, 8), 10.0)),
    ("market_scalar_hard_coded", _inject("ultrafast_adoption_wanted", value=0.5)),
    ("capacity_result_hard_coded", _inject("gpu_cost_standard", value=0.01)),
]


@pytest.fixture(scope="module")
def injected(report, tmp_path_factory):
    cached = openpyxl.load_workbook(report, data_only=True)
    for name in ("npv_usd", "npv_without_terminal_value_usd"):
        INJECT_CACHE[name] = named_value(cached, name)
    edit = _set(**EDIT)

    def both(inject):
        def run(wb):
            undo_edit, undo_inject = edit(wb), inject(wb)
            return lambda: (undo_inject(), undo_edit())

        return run

    variants = [("edit_only", edit)] + [(n, both(f)) for n, f in INJECTED]
    return _variants(report, tmp_path_factory.mktemp("injected"), variants)


def test_a_legitimate_edit_keeps_every_check_true(injected):
    wb = openpyxl.load_workbook(injected["edit_only"], data_only=True)
    assert named_value(wb, "inputs_changed_since_run") is True
    assert named_value(wb, "matches_run") == "n/a: inputs changed"
    assert named_value(wb, "integrity_ok") is True


@pytest.mark.parametrize("name", [n for n, _ in INJECTED])
def test_an_injected_error_fails_an_integrity_check_after_an_edit(injected, name):
    wb = openpyxl.load_workbook(injected[name], data_only=True)
    assert named_value(wb, "matches_run") == "n/a: inputs changed"
    assert named_value(wb, "integrity_ok") is False, name


# Edits of a key that spans another (econ.assumptions.CROSS_CHECKS): whether econ refuses each
# (found by econ's own validation below) must be what the cell's data validation says.
ACROSS_EDITS = [
    ("horizon_short", {"horizon_months": 24}),
    ("horizon_term", {"horizon_months": 30}),
    ("term_long", {"contract_term_months": 61}),
    ("term_horizon", {"contract_term_months": 60}),
    ("pro_start_above_mau", {"market_pro_subscribers_start": 2e9}),
    ("mau_below_pro", {"market_mau": 5e5}),
    ("growth_below_churn", {"market_pro_growth_monthly": -0.2}),
    ("churn_below_growth", {"conversion_pro_churn_monthly": 0.001, "market_pro_growth_monthly": -0.005}),
    ("growth_fine", {"market_pro_growth_monthly": 0.01}),
]  # fmt: skip


def _validation_probe(values):
    """Set the inputs, and write each edited cell's own data-validation formula into a spare
    cell of its row (column Z), where LibreOffice evaluates it."""

    def edit(wb):
        undo = _set(**values)(wb)
        probes = []
        for k in values:
            cell = named_cell(wb, k)
            ws = cell.parent
            rule = next(
                dv for dv in ws.data_validations.dataValidation if cell.coordinate in dv.sqref
            )
            assert rule.type == "custom", k
            probe = ws[f"Z{cell.row}"]
            probe.value = "=" + rule.formula1
            probes.append(probe)

        def both():
            for p in probes:
                p.value = None
            undo()

        return both

    return edit


def test_an_edit_econ_refuses_across_two_keys_is_refused_by_data_validation(report, base, tmp_path):
    """A horizon shorter than the term (and the other two-key rules) is refused as the user
    types it: each cell's validation formula, evaluated by LibreOffice, is FALSE exactly where
    econ refuses the edit."""
    got = _variants(report, tmp_path, [(n, _validation_probe(v)) for n, v in ACROSS_EDITS])
    refused = []
    for name, values in ACROSS_EDITS:
        keys = [(k.replace("_", ".", 1), v) for k, v in values.items()]
        try:
            headline(base.with_overrides(keys))
            econ_ok = True
        except AssumptionError:
            econ_ok = False
        wb = openpyxl.load_workbook(got[name], data_only=True)
        cells = [named_cell(wb, k) for k in values]
        ok = all(c.parent[f"Z{c.row}"].value is True for c in cells)
        assert ok == econ_ok, name
        refused += [name] if not ok else []
    assert refused == [
        n for n, _ in ACROSS_EDITS if n not in ("horizon_term", "term_horizon", "growth_fine")
    ]
