"""The Python API (econ.api): against the command line's figures, the shapes and units of its
frames, scalar and array inputs, its error messages, and the example notebook run end to end."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, ROOT, TIGHT

import econ
from econ.compute import tables
from econ.model import Results

NOTEBOOK = ROOT / "docs" / "examples" / "payback_walkthrough.ipynb"
VALUE = "contract.value_usd"


def econ_json(*args: str, cwd: Path) -> dict:
    """`python -m econ ARGS` in a fresh process importing this econ; its JSON output."""
    here = str(Path(econ.__file__).resolve().parents[1])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])),
    }
    res = subprocess.run(
        [sys.executable, "-m", "econ", *args], cwd=cwd, capture_output=True, text=True, env=env
    )
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def none_as_nan(x: float | None) -> float:
    return math.nan if x is None else x


def check_units(df: pd.DataFrame, text: set[str] = frozenset()) -> None:
    """Every column is named as the JSON names it: an identifier (so ``df.<name>`` and
    ``df.query("<name> ...")`` work), or an assumption's dotted key; attrs["units"] gives
    every column's unit, or attrs["unit_columns"] the column holding each row's, or it is a
    named text column; so every numeric column has a unit."""
    units = df.attrs["units"]
    by_row = df.attrs.get("unit_columns", {})
    for c in df.columns:
        assert c.isidentifier() or all(part.isidentifier() for part in c.split(".")), c
        if c.isidentifier() and len(df):
            assert getattr(df, c) is not None
            assert len(df.query(f"{c} == {c} or {c} != {c}")) == len(df), c
        if c in by_row:
            assert by_row[c] in df.columns and df[by_row[c]].notna().all(), c
        elif c in text:
            assert units.get(c) is None and not pd.api.types.is_float_dtype(df[c]), c
        else:
            assert units.get(c), f"{c!r} has no unit"


# ---------------------------------------------------------------------------
# against the command line


@pytest.fixture(scope="module")
def cli_base(tmp_path_factory) -> dict:
    return econ_json("summary", "--json", "--data", str(DATA), cwd=tmp_path_factory.mktemp("cli"))


def test_evaluate_gives_the_npv_payback_and_paths_of_econ_summary(cli_base):
    ev = econ.evaluate(econ.load(DATA))
    row = ev.metrics.iloc[0]
    np.testing.assert_allclose(row["npv_usd"], cli_base["npv_usd"], **TIGHT)
    np.testing.assert_allclose(
        row["payback_months"], none_as_nan(cli_base["payback_months"]), **TIGHT
    )
    np.testing.assert_allclose(row["irr_annual"], none_as_nan(cli_base["irr_annual"]), **TIGHT)
    np.testing.assert_allclose(row["profitability_index"], cli_base["profitability_index"], **TIGHT)
    m = ev.monthly.loc[0]
    assert m.index.tolist() == cli_base["monthly"]["month"]
    np.testing.assert_allclose(
        m["cumulative_cash_usd"], cli_base["monthly"]["cumulative_cash_usd"], **TIGHT
    )
    np.testing.assert_allclose(m["rent_usd"], cli_base["monthly"]["rent_usd"], **TIGHT)
    assert ev.headline == cli_base | {"data": ev.headline["data"]}


def test_rent_vs_buy_is_the_summary_s(cli_base):
    rb = econ.rent_vs_buy(econ.load(DATA)).iloc[0]
    cli = cli_base["rent_vs_buy"]
    assert rb["platform"] == cli["platform"] == "wse3"
    np.testing.assert_allclose(rb["rent_npv_usd"], cli["rent_npv_usd"], **TIGHT)
    np.testing.assert_allclose(rb["buy_npv_usd"], cli["buy_npv_usd"], **TIGHT)
    np.testing.assert_allclose(
        rb["lessor_yield_annual"], none_as_nan(cli["lessor_yield_annual"]), **TIGHT
    )
    assert rb["rent_and_price_consistent"] == cli["rent_and_price_consistent"]


def test_load_with_a_scenario_and_set_is_the_command_line_s(tmp_path):
    cli = econ_json(
        "summary",
        "--json",
        "--data",
        str(DATA),
        "--scenario",
        "strong_upgrade",
        "--set",
        f"{VALUE}=12e9",
        "--set",
        "finance.discount_rate_annual=8%",
        cwd=tmp_path,
    )
    a = econ.load(
        DATA,
        scenario="strong_upgrade",
        set={VALUE: 12e9, "finance.discount_rate_annual": "8%"},
    )
    assert a.scenario == "strong_upgrade" and a[VALUE] == 12e9
    assert a["finance.discount_rate_annual"] == 0.08
    np.testing.assert_allclose(econ.evaluate(a).metrics["npv_usd"].iloc[0], cli["npv_usd"], **TIGHT)


def test_an_array_scenario_is_the_command_line_s_with_that_value(tmp_path):
    cli = econ_json(
        "summary", "--json", "--data", str(DATA), "--set", f"{VALUE}=12e9", cwd=tmp_path
    )
    ev = econ.evaluate(econ.load(DATA), {VALUE: [12e9, 8e9]})
    np.testing.assert_allclose(ev.metrics["npv_usd"].iloc[0], cli["npv_usd"], **TIGHT)
    # the headline is scenario 0's, as `econ summary --set` gives it
    np.testing.assert_allclose(ev.headline["npv_usd"], cli["npv_usd"], **TIGHT)
    assert ev.headline["assumptions"][VALUE] == 12e9


# ---------------------------------------------------------------------------
# shapes and units


def test_monthly_frame_shape_index_and_units(base):
    speeds = [500.0, 750.0, 1000.0]
    ev = econ.evaluate(base, {"tiers.ultrafast.tokens_per_s": speeds})
    H = int(base["horizon.months"])
    m = ev.monthly
    assert m.shape[0] == 3 * H and m.index.names == ["scenario", "month"]
    assert m.index.get_level_values("month")[:H].tolist() == list(range(1, H + 1))
    check_units(m)
    for c in ("rent_usd", "utilization", "cumulative_cash_usd", "pro_subscribers"):
        assert c in m.columns
    paths = {k for k, (_, shape, _) in Results.units().items() if shape == "(N, H)"}
    assert set(m.columns) == {econ.api.FIELD_NAMES[k] for k in paths}
    assert m.attrs["meaning"]["rent_usd"] == Results.units()["rent"][2]
    # the frame holds the model's arrays, scenario by scenario
    np.testing.assert_array_equal(
        m.loc[2, "cumulative_cash_usd"].to_numpy(), ev.results.cumulative_cash[2]
    )


def test_metrics_frame_one_row_per_scenario_with_the_inputs_first(base):
    ev = econ.evaluate(base, {"tiers.ultrafast.tokens_per_s": [500.0, 750.0, 1000.0]})
    df = ev.metrics
    assert df.shape[0] == 3 and df.index.name == "scenario"
    assert df.columns[0] == "tiers.ultrafast.tokens_per_s"
    check_units(df)
    for c in (
        "npv_usd",
        "payback_months",
        "irr_annual",
        "profitability_index",
    ):
        assert c in df.columns
    # the bundled speed gives the bundled answer
    np.testing.assert_allclose(
        df["npv_usd"].iloc[1], econ.evaluate(base).metrics["npv_usd"].iloc[0], **TIGHT
    )


def test_without_detail_the_report_only_paths_are_absent(base):
    m = econ.evaluate(base, detail=False).monthly
    assert "utilization" not in m.columns and "rent_usd" in m.columns


def test_capacity_frontier_and_calibration_tables_carry_units(base):
    cap = econ.capacity_table(base, speeds=[1000.0])
    check_units(cap, {"platform", "tier", "physics_bound", "verdict"})
    assert len(cap) == len(base.platforms()) * (len(base.tier_ids()) + 1)
    raw = tables.capacity_table(base, [1000.0])
    np.testing.assert_array_equal(cap["tokens_per_s_per_mw"], raw["tokens_per_s_per_mw"])
    # the served model's ceilings by hand (docs/model.md 3.3; tests/test_decisions.py): wse3
    # 1,866.5 tokens/s, b300 252.3: 750 and 1,000 are within the first, above the second
    verdict = cap.set_index(["platform", "tokens_per_s_per_user"])["verdict"]
    assert verdict[("wse3", 750.0)] == verdict[("wse3", 1000.0)] == "plausible"
    assert verdict[("b300", 750.0)] == verdict[("b300", 1000.0)] == "above the ceiling"
    assert verdict[("b300", 134.0)] == "plausible"
    check_units(
        econ.frontier_audit(base), {"point", "platform", "model", "sets_realisation", "verdict"}
    )
    check_units(
        econ.calibration(base),
        {"point", "platform", "model", "within_tolerance", "used_for_fit", "note"},
    )


def test_rent_vs_buy_is_one_row_with_units(base):
    rb = econ.rent_vs_buy(base)
    assert rb.shape[0] == 1 and rb.index.tolist() == ["base"]
    check_units(rb, {"platform", "breakeven_note", "rent_and_price_consistent"})
    # docs/model.md 4.1: $444,444 per MW-month on the contract's terms, $720,721 per delivered
    assert round(rb["rent_usd_per_mw_month"].iloc[0]) == 444_444
    assert round(rb["rent_usd_per_delivered_mw_month"].iloc[0]) == 720_721


# ---------------------------------------------------------------------------
# scalar and array inputs (pvlib's input matrix)


@pytest.mark.parametrize(
    "value",
    [12e9, np.float64(12e9), 12_000_000_000, [12e9], np.array([12e9]), pd.Series([12e9])],
    ids=["float", "numpy scalar", "int", "list", "array", "series"],
)
def test_one_scenario_from_a_scalar_or_a_one_element_array(base, value):
    ev = econ.evaluate(base, {VALUE: value})
    expected = econ.evaluate(econ.load(DATA, set={VALUE: 12e9})).metrics["npv_usd"].iloc[0]
    assert ev.n == 1
    np.testing.assert_allclose(ev.metrics["npv_usd"].iloc[0], expected, **TIGHT)
    assert ev.metrics[VALUE].iloc[0] == 12e9


@pytest.mark.parametrize("kind", ["list", "array", "series", "dataframe", "keyword"])
def test_many_scenarios_from_an_array(base, kind):
    values = [8e9, 10e9, 12e9]
    labels = ["low", "base", "high"]
    arg = {
        "list": {VALUE: values},
        "array": {VALUE: np.array(values)},
        "series": {VALUE: pd.Series(values, index=labels)},
        "dataframe": pd.DataFrame({VALUE: values}, index=labels),
    }
    ev = (
        econ.evaluate(base, **{VALUE: values})
        if kind == "keyword"
        else econ.evaluate(base, arg[kind])
    )
    npv = ev.metrics["npv_usd"]
    assert ev.n == 3
    assert npv.index.tolist() == (labels if kind in ("series", "dataframe") else [0, 1, 2])
    for v, got in zip(values, npv, strict=True):
        alone = econ.evaluate(econ.load(DATA, set={VALUE: v})).metrics["npv_usd"].iloc[0]
        np.testing.assert_allclose(got, alone, rtol=1e-12)
    # NPV falls by the rent's present value per dollar of contract, whatever else holds
    rent_per_usd = ev.metrics["rent_npv_usd"].iloc[1] / values[1]
    np.testing.assert_allclose(np.diff(npv), -np.diff(values) * rent_per_usd, rtol=1e-9)


def test_a_scalar_broadcasts_against_an_array(base):
    ev = econ.evaluate(base, {VALUE: [8e9, 12e9], "contract.mw": 600.0})
    assert ev.n == 2
    np.testing.assert_array_equal(ev.metrics["contract.mw"], [600.0, 600.0])
    assert ev.scenario(1)[VALUE] == 12e9 and ev.scenario(1)["contract.mw"] == 600.0


# ---------------------------------------------------------------------------
# errors the API's users see


def test_load_refuses_an_unknown_key_naming_the_nearest():
    with pytest.raises(
        econ.AssumptionError,
        match=r"set tiers.ultrafst.tokens_per_s=800: unknown key .*did you mean tiers.ultrafast.tokens_per_s",
    ):
        econ.load(DATA, set={"tiers.ultrafst.tokens_per_s": 800})


def test_load_refuses_an_array_for_set():
    with pytest.raises(
        econ.AssumptionError,
        match=r"set contract.value_usd: one value expected, got an array of shape \(2,\); "
        r"pass arrays of scenarios to econ.evaluate",
    ):
        econ.load(DATA, set={VALUE: [1e9, 2e9]})


def test_load_refuses_a_value_that_is_not_a_number():
    with pytest.raises(
        econ.AssumptionError, match=r'set contract.value_usd=nan.*"nan" is not a number'
    ):
        econ.load(DATA, set={VALUE: float("nan")})


def test_load_takes_flags_and_ids():
    a = econ.load(DATA, set={"finance.terminal_value": False, "capacity.basis": "physics"})
    assert a["finance.terminal_value"] == 0 and a["capacity.basis"] == "physics"


def test_evaluate_refuses_a_key_given_twice(base):
    with pytest.raises(econ.AssumptionError, match="contract.value_usd: given twice"):
        econ.evaluate(base, {VALUE: 1e9}, **{VALUE: 2e9})


def test_evaluate_refuses_arrays_of_different_lengths_and_structural_keys(base):
    with pytest.raises(econ.AssumptionError, match="3 scenarios where others have 2"):
        econ.evaluate(base, {VALUE: [1e9, 2e9], "contract.mw": [1.0, 2.0, 3.0]})
    with pytest.raises(econ.AssumptionError, match="horizon.months.*takes one value per run"):
        econ.evaluate(base, {"horizon.months": [48, 60]})


def test_sobol_indices_refuses_an_unknown_metric(base):
    with pytest.raises(
        ValueError, match="sobol_indices: metric 'irr'; expected 'npv' or 'payback'"
    ):
        econ.sensitivity.sobol_indices(base, 8, 1, metric="irr")


# ---------------------------------------------------------------------------
# sensitivity


def test_tornado_and_grids(base):
    t = econ.sensitivity.tornado(base)
    assert set(t["output"]) == {"npv_usd", "payback_months", "irr_annual"}
    check_units(t, {"output", "output_unit", "key", "unit", "ends_on_low", "ends_on_high"})
    assert (
        t["output_unit"]
        == t["output"].map({"npv_usd": "USD", "payback_months": "months", "irr_annual": "1/yr"})
    ).all()
    row = t[(t["output"] == "npv_usd") & (t["key"] == VALUE)].iloc[0]
    assert row["unit"] == "USD" and row["base"] == 10e9
    g = econ.sensitivity.grids(base)
    check_units(g, {"grid", "x_key", "x_unit", "y_key", "y_unit"})
    assert {"npv_usd", "payback_months", "irr_annual"} <= set(g.columns)


def test_monte_carlo_frames_agree_with_the_command_line(base, tmp_path):
    mc = econ.sensitivity.monte_carlo(base, samples=512, seed=7)
    cli = econ_json(
        "sensitivity",
        "montecarlo",
        "--samples",
        "512",
        "--seed",
        "7",
        "--json",
        "--data",
        str(DATA),
        cwd=tmp_path,
    )
    stat = {(s["output"], s["statistic"]): s["value"] for s in cli["statistics"]}
    assert mc.probability_npv_positive == stat[("npv_usd", "P(NPV > 0)")]
    assert mc.probability_payback_within_term == stat[("payback_months", "P(payback <= term)")]
    np.testing.assert_allclose(mc.evpi_usd, cli["evpi_usd"], **TIGHT)
    assert mc.evpi == mc.evpi_usd and mc.fan is mc.cumulative_cash_fan  # the names before v4
    assert mc.statistics.loc[("npv_usd", "P50"), "unit"] == "USD"
    assert mc.statistics.loc[("npv_usd", "P(NPV > 0)"), "unit"] == "share"
    H = int(base["horizon.months"])
    assert mc.cumulative_cash_fan.index.tolist() == list(range(1, H + 1))
    check_units(mc.cumulative_cash_fan)
    check_units(mc.payback_by_month)
    check_units(mc.convergence)
    check_units(mc.value_of_information, {"key", "reason"})
    assert set(mc.value_of_information["key"]) == {s.key for s in base.sensitivity}
    # every sample kept, with its inputs, the six outputs (the deal without the offer too), the
    # GPU cost per standard token at a = 1 (V4.3) and whether each clamp binds (V4.8)
    s = mc.samples
    outputs = ["npv_usd", "payback_months", "irr_annual", "profitability_index", "mirr_annual",
               "npv_without_offer_usd", "gpu_cost_at_avoidable_1", "clamp_gpu_cost_at_list_price",
               "clamp_realisation_at_1", "clamp_max_capped_propensity"]  # fmt: skip
    assert s.columns.tolist() == [*mc.sampled, *outputs] and s.index.name == "sample"
    assert s.shape == (512, len(mc.sampled) + 10)
    check_units(s)
    assert mc.probability_npv_positive == (s["npv_usd"] > 0).mean()
    for name, h in mc.histograms.items():
        check_units(h)
        assert (
            h["count"].sum() + h.attrs["below"] + h.attrs["above"] + h.attrs["undefined"] == 512
        ), name


def test_sobol_and_breakeven_tables(base):
    s = econ.sensitivity.sobol_indices(base, 16, 3)
    check_units(s, {"output", "key", "note"})
    assert set(s["output"]) == {"npv_usd"} and set(s["key"]) == {x.key for x in base.sensitivity}
    b = econ.sensitivity.breakeven_table(base)
    check_units(b, {"key", "unit", "message"})
    assert b.attrs["unit_columns"]["breakeven"] == "unit"
    assert b.set_index("key").loc[VALUE, "unit"] == "USD"


def test_goal_seek_finds_a_value_where_npv_is_zero(base):
    key = "hardware.b300.rent_usd_per_hour"  # what a freed GPU-hour saves (V4.3)
    res = econ.goal_seek(base, key, low=1, high=40)  # the break-even is above the sampled range
    assert res.value is not None and res.bracket[0] <= res.value <= res.bracket[1]
    npv = econ.evaluate(base, {key: res.value}).metrics["npv_usd"].iloc[0]
    assert abs(npv) < 1e-6 * base[VALUE]


def test_the_engine_submodules_stay_importable_beside_the_api():
    from econ.sensitivity import grid, montecarlo, sobol

    assert callable(montecarlo.run) and callable(grid.grid) and callable(sobol.analyse)
    assert econ.sensitivity.monte_carlo is econ.api.monte_carlo


# ---------------------------------------------------------------------------
# the example notebook


def _require(what: str) -> None:
    """Skip where a notebook tool is missing, except in CI, which installs the test extra."""
    if os.environ.get("CI") or os.environ.get("ECON_REQUIRE_KERNEL") == "1":
        pytest.fail(f"{what} is required here (CI): python3 -m pip install '.[test]'")
    pytest.skip(f"{what} is not installed (python3 -m pip install '.[test]')")


def test_the_notebook_is_stored_without_outputs():
    cells = json.loads(NOTEBOOK.read_text())["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    assert code and all(c["outputs"] == [] and c["execution_count"] is None for c in code)


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_the_example_notebook_runs_top_to_bottom_with_jupyter_nbconvert(tmp_path):
    """`jupyter nbconvert --execute`, as a reader runs it from the command line, with what the
    test extra installs (nbconvert, nbclient, ipykernel)."""
    for module in ("nbformat", "nbclient", "ipykernel", "nbconvert", "jupyter_core"):
        if importlib.util.find_spec(module) is None:
            _require(module)
    import nbformat
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        KernelSpecManager().get_kernel_spec("python3")
    except NoSuchKernel:
        _require("a python3 Jupyter kernel (ipykernel)")
    here = str(Path(econ.__file__).resolve().parents[1])  # the kernel imports this econ
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [here, os.environ.get("PYTHONPATH")])),
    }
    done = tmp_path / "executed.ipynb"
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "jupyter",
            "nbconvert",
            "--to",
            "notebook",
            "--execute",
            "--ExecutePreprocessor.timeout=300",
            "--ExecutePreprocessor.kernel_name=python3",
            "--output",
            str(done),
            str(NOTEBOOK),
        ],
        cwd=NOTEBOOK.parent,
        env=env,
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, res.stderr[-3000:]  # names the cell and its error
    nb = nbformat.read(done, as_version=4)
    text = "\n".join(
        o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs
    )
    stderr = [
        o["text"]
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.get("name") == "stderr"
    ]
    assert not [s for s in stderr if "Warning" in s], stderr
    assert "P(NPV > 0) = " in text and "NPV is zero at hardware.b300.rent_usd_per_hour" in text
    images = [
        o
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if "image/png" in o.get("data", {})
    ]
    assert len(images) == 3  # cumulative cash, the speed sweep, the fan
