"""The workbook fails well (docs/model.md, section 8): every dropdown choice recalculates in
LibreOffice without an error value, a choice econ refuses shows one FALSE check with a message
and blank results, and errors injected into the calculations are caught by the integrity
checks after an input was edited (the match with the run has lapsed by then)."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import openpyxl
import pytest
from conftest import DATA
from soffice import convert, soffice
from xlsx_names import named_cell, named_range, named_value

from econ.assumptions import CROSS_CHECKS, AssumptionError
from econ.cli import main
from econ.headline import headline
from econ.report.checks import CROSS_RULES
from econ.report.inputs import ACROSS, KNOWN
from econ.report.xl import excel_name

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
    returning an undo) and recalculate them all, in as many LibreOffices at once as there are
    processors (two at most; each with its own profile)."""
    wb = openpyxl.load_workbook(report)
    files = []
    for name, edit in variants:
        undo = edit(wb)
        path = folder / f"{name}.xlsx"
        wb.save(path)
        files.append(path)
        undo()
    n = max(1, min(2, os.cpu_count() or 1, len(files)))
    batches = [files[i::n] for i in range(n)]
    with ThreadPoolExecutor(n) as pool:
        done = list(pool.map(lambda b: convert(b, folder / "recalc"), batches))
    out = {f: o for b, d in zip(batches, done, strict=True) for f, o in zip(b, d, strict=True)}
    return {name: out[f] for (name, _), f in zip(variants, files, strict=True)}


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


def _cells(wb, name: str, months: range | None):
    cells = named_range(wb, name)
    return [cells[m] for m in months] if months is not None else cells[:1]


def _change(name: str, months: range | None, new):
    """An edit of a named cell, or of months of a named row: each cell's content becomes
    ``new(cell)``; returns the undo."""

    def edit(wb):
        cells = _cells(wb, name, months)
        old = [c.value for c in cells]
        for c in cells:
            c.value = new(c)

        def undo():
            for c, v in zip(cells, old, strict=True):
                c.value = v

        return undo

    return edit


def _paste_value(name: str, months: range | None = None):
    """Formulas replaced by the values they had in the run (pasted as values: the same number)."""
    return _change(name, months, lambda c: CACHED[0][c.parent.title][c.coordinate].value)


def _typed(name: str, months: range | None, old: str, new: str | None = None):
    """A constant typed into formulas: ``old`` replaced by ``new``, or by the value of the
    input ``old`` names in the run (the formula's result does not change until that input does)."""

    def text(c):
        assert isinstance(c.value, str) and old in c.value, (name, c.coordinate, c.value)
        typed = new if new is not None else repr(named_value(CACHED[0], old))
        return c.value.replace(old, typed)

    return _change(name, months, text)


def _formula(name: str, months: range | None, formula: str):
    return _change(name, months, lambda c: formula.format(row=c.row))


# inputs pasted past the data validation, and rules across keys (econ.assumptions.CROSS_CHECKS);
# the last field: whether econ refuses the same values (a number stored as text, a blank: the
# CSV has no such thing)
INPUTS = [
    ("input_out_of_range", {"contract.delivered_share": 1.5}, True),
    ("input_negative_share", {"finance.variable_cost_share": -0.1}, True),
    ("input_above_sense_limit", {"contract.value_usd": 2e13}, True),
    ("input_too_small", {"usage.demand_sigma": 1e-40}, True),
    ("input_not_whole", {"contract.term_months": 30.5}, True),
    ("input_not_a_choice", {"contract.payment": "prepaid"}, True),
    ("input_as_text", {"market.mau": "1000000000"}, False),
    ("input_blank", {"contract.mw": None}, False),
    ("horizon_below_term", {"horizon.months": 24}, True),
    ("pro_start_above_users", {"market.pro_subscribers_start": 2e9}, True),
    ("adoption_above_1", {"tiers.fast.adoption": 0.9}, True),
    ("tranche_without_months", {"contract.tranche_mw": 100}, True),
    ("frontier_speed_twice", {"frontier.b300_71.tokens_per_s_per_user": 128}, True),
    ("gpu_platform_unknown", {"capacity.gpu_platform": "tpu_v5"}, True),
]
CACHED: list = []  # the workbook as econ wrote it, read for its cached values
EDIT = {"plans_pro_price_usd_month": 250}  # a legitimate edit first: the run match lapses
LATE = range(100, 101)  # month 100: beyond the first printed pages and the horizon of the run
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
    # values pasted over formulas with the very values they had: only the formulas tell
    ("late_month_pasted_as_value", _paste_value("row_revenue_util", LATE)),
    ("late_cumulative_pasted_as_value", _paste_value("row_payback_cum_cash", range(118, 119))),
    ("costs_late_month_pasted_as_value", _paste_value("row_costs_rent", range(119, 120))),
    ("opening_pasted_as_value", _paste_value("row_revenue_pro", range(0, 1))),
    ("month_number_typed", _paste_value("timeline_months", range(29, 30))),
    ("annual_cell_pasted_as_value", _paste_value("annual_revenue_sub", range(2, 3))),
    ("annual_cell_typed", _inject("annual_payback_cf", range(4, 5), 1e9)),
    ("market_scalar_pasted_as_value", _paste_value("ultrafast_adoption_wanted")),
    # constants typed into formulas: at the input's value in the run (wrong after its next
    # edit, not after this one), or a number where a formula of inputs was
    ("revenue_constant_typed_month_40",
     _typed("row_revenue_sub", range(40, 41), "plans_plus_price_usd_month")),
    ("revenue_constant_typed_late", _typed("row_revenue_pro", LATE, "conversion_pro_churn_monthly")),
    ("payback_constant_typed_every_month",
     _typed("row_payback_cash_in", range(1, 121), "finance_variable_cost_share")),
    ("payback_share_typed_month_7",
     _typed("row_payback_cash_in", range(7, 8), "(1-finance_variable_cost_share)", "0.9")),
    ("npv_formula_constant_typed", _typed("npv_usd", None, "finance_terminal_value")),
    ("market_formula_constant_typed", _typed("ultrafast_adoption_wanted", None, "tiers_fast_adoption")),
    ("capacity_formula_constant_typed",
     _typed("gpu_cost_standard", None, "tiers_standard_price_per_mtok_usd")),
    ("annual_skips_a_month", _formula("annual_revenue_sub", range(0, 1), "=SUM('Revenue'!E{row}:O{row})")),
    *[(n, _set(**{excel_name(k): v for k, v in values.items()})) for n, values, _ in INPUTS],
]  # fmt: skip
# the check that must name the error (the Cover shows the first failing label): its label,
# then the row's (the label of a named row, in braces) or the input's key
NAMED = {
    "late_month_pasted_as_value": "One formula along each row (Revenue): {row_revenue_util}",
    "costs_late_month_pasted_as_value": "One formula along each row (Costs): {row_costs_rent}",
    "month_number_typed": "One formula along each row (Revenue): Month numbers",
    "opening_pasted_as_value": "One formula along each row (Revenue): {row_revenue_pro}",
    "annual_cell_pasted_as_value": "Formulas as written (Annual, every cell): Pro upgrades",
    "revenue_constant_typed_month_40": "One formula along each row (Revenue): {row_revenue_sub}",
    "revenue_constant_typed_late": "One formula along each row (Revenue): {row_revenue_pro}",
    "payback_constant_typed_every_month":
        "One formula along each row (Payback): {row_payback_cash_in}",
    "payback_share_typed_month_7": "One formula along each row (Payback): {row_payback_cash_in}",
    "npv_formula_constant_typed": "Formulas as written (Payback, results, solvers): ",
    "market_formula_constant_typed": "Formulas as written (Market, every cell): ",
    "capacity_formula_constant_typed": "Formulas as written (Capacity, every cell): ",
    "annual_skips_a_month": "Annual rows sum the monthly rows: Pro upgrades",
    "input_out_of_range": "Every input within its rules (as econ refuses): contract.delivered_share",
    "input_as_text": "Every input within its rules (as econ refuses): market.mau",
    "input_blank": "Every input within its rules (as econ refuses): contract.mw",
    "horizon_below_term": "Every input within its rules (as econ refuses): contract.term_months",
    "tranche_without_months": "Tranche MW and tranche months both set or both blank",
    "adoption_above_1": "Fast plus ultrafast adoption at most 1",
    "frontier_speed_twice": "Every platform has a frontier point, one per speed",
}  # fmt: skip


@pytest.fixture(scope="module")
def injected(report, tmp_path_factory):
    CACHED[:] = [openpyxl.load_workbook(report, data_only=True)]
    edit = _set(**EDIT)

    def both(inject):
        def run(wb):
            undo_edit, undo_inject = edit(wb), inject(wb)
            return lambda: (undo_inject(), undo_edit())

        return run

    variants = [("base", lambda wb: lambda: None), ("edit_only", edit)]
    variants += [(n, both(f)) for n, f in INJECTED]
    return _variants(report, tmp_path_factory.mktemp("injected"), variants)


DETAILS = ("checks_inputs", "checks_annual", "checks_rows_costs", "checks_rows_revenue",
           "checks_rows_payback", "checks_written_costs", "checks_written_payback",
           "checks_written_capacity", "checks_written_market", "checks_written_annual")  # fmt: skip


def test_the_base_workbook_keeps_every_check_true_in_libreoffice(injected):
    """Recalculated as econ wrote it: every integrity check and every line of the detail
    blocks they read (each input, each row's formulas, each Annual row) holds."""
    wb = openpyxl.load_workbook(injected["base"], data_only=True)
    assert named_value(wb, "integrity_ok") is True
    assert named_value(wb, "matches_run") is True
    assert named_value(wb, "model_status") == "live"
    for name in ("checks_integrity_area", *DETAILS):
        flags = [_bool(c) for c in named_range(wb, name)]
        assert flags and all(f is True for f in flags), name
    labels = [c.value for c in named_range(wb, "checks_integrity_labels")]
    assert not [x for x in labels if ": " in x and x.startswith(("One formula", "Formulas as"))]


def _bool(cell):
    return bool(cell.value) if cell.value in (0, 1) else cell.value


def test_a_legitimate_edit_keeps_every_check_true(injected):
    wb = openpyxl.load_workbook(injected["edit_only"], data_only=True)
    assert named_value(wb, "inputs_changed_since_run") is True
    assert named_value(wb, "matches_run") == "n/a: inputs changed"
    assert named_value(wb, "integrity_ok") is True
    assert named_value(wb, "model_status") == "live"  # a live input: the model follows it
    for name in DETAILS:
        assert all(_bool(c) is True for c in named_range(wb, name)), name


@pytest.mark.parametrize("name", [n for n, _ in INJECTED])
def test_an_injected_error_fails_an_integrity_check_after_an_edit(injected, name):
    wb = openpyxl.load_workbook(injected[name], data_only=True)
    assert named_value(wb, "matches_run") == "n/a: inputs changed"
    assert named_value(wb, "integrity_ok") is False, name
    # the Cover's status says so, naming the first failing check
    pairs = zip(named_range(wb, "checks_integrity_labels"),
                named_range(wb, "checks_integrity_area"), strict=True)  # fmt: skip
    first = next(a.value for a, f in pairs if _bool(f) is False)
    assert named_value(wb, "model_status") == f"NOT LIVE: check fails: {first}", name
    if name in NAMED:  # the failing check names the row, the cell or the input
        want = NAMED[name].format_map(_RowLabels(CACHED[0]))
        pairs = zip(named_range(wb, "checks_integrity_labels"),
                    named_range(wb, "checks_integrity_area"), strict=True)  # fmt: skip
        failing = [a.value for a, f in pairs if _bool(f) is False]
        assert any(x.startswith(want) for x in failing), (want, failing)


class _RowLabels(dict):
    """{row_revenue_sub} -> the label of that named row (column A of its sheet)."""

    def __init__(self, wb):
        super().__init__()
        self.wb = wb

    def __missing__(self, name):
        c = named_range(self.wb, name)[0]
        return c.parent.cell(c.row, 1).value


@pytest.mark.parametrize(("name", "values"), [(n, v) for n, v, refused in INPUTS if refused])
def test_the_injected_inputs_are_values_econ_refuses(base, name, values):
    with pytest.raises(AssumptionError):
        headline(base.with_overrides([(k, str(v)) for k, v in values.items()]))


def test_every_rule_across_keys_is_checked_in_the_workbook():
    """Each of econ's rules across keys is a line of the Checks sheet, a part of the input's
    own rule, or the check whether the live model can compute the choices made."""
    assert set(CROSS_RULES) == {f.__name__ for f in CROSS_CHECKS}
    keys = set(ACROSS) | set(KNOWN)
    assert {"horizon.months", "contract.term_months", "market.pro_growth_monthly",
            "market.pro_subscribers_start", "contract.platform", "capacity.gpu_platform",
            "frontier.*.platform", "frontier.*.model"} <= keys  # fmt: skip


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
