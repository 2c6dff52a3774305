"""The decision commands: scenario files, compare, platforms, sweep and optimize (econ.decisions,
econ.report.compare and their CLI)."""

from __future__ import annotations

import csv
import json
import math
import pickle
import re
import zipfile

import numpy as np
import pandas as pd
import pytest
from conftest import DATA, TIGHT

from econ import decisions as D
from econ.assumptions import AssumptionError
from econ.cli import main
from econ.model import evaluate
from econ.sensitivity.run import problem_from, tornado

REL = TIGHT["rtol"]  # deterministic figures against hand-worked values
ARTICLES = (
    "What GPT-5.6 Sol's 750 Tokens/Second Inference Speed Really Means",
    "GPT-5.6 Inference at 18x Speed",  # "...: OpenAI's Compute Gamble and Business Logic"
    "Trust Is a Variable I No Longer Solve For",
)
NEW_SCENARIOS = (
    "gpu_b300",
    "groq_lpu",
    "codex_spark",
    "token_efficient",
    "standard_only",
    "bear",
    "bull",
)


def run(args, capsys):
    try:
        code = main(args)
    except SystemExit as exc:  # argparse's errors exit from inside
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def rows_of(name: str) -> list[dict]:
    with open(DATA / "scenarios" / f"{name}.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


# ---------------------------------------------------------------------------
# scenario files


def test_every_scenario_loads_names_existing_keys_and_passes_validate(base):
    names = base.scenario_names()
    assert set(NEW_SCENARIOS) <= set(names)
    for name in names:
        for r in rows_of(name):
            # a key with a value, or an optional one left blank in the data (contract.tranche_mw)
            assert r["key"] in base.values or r["key"] in base.blanks, f"{name}: {r['key']}"
        a = base.with_scenario(name)
        evaluate(a)  # what econ validate checks beyond loading
        problem_from(a)


@pytest.mark.parametrize("name", NEW_SCENARIOS)
def test_new_scenarios_give_a_note_and_a_source_per_override(name):
    for r in rows_of(name):
        assert r["note"].strip(), f"{name} {r['key']}: no note"
        src = r["source"].strip()
        assert src.startswith(("Guesstimate", "Derived")) or any(t in src for t in ARTICLES), (
            f"{name} {r['key']}: source {src!r}"
        )
        assert "Seed" not in src and ".txt" not in src


def test_bear_and_bull_are_the_ends_of_the_ranges_that_matter_most(base):
    """The keys whose tornado swing in NPV is at least a third of the largest, each at the end
    of its sensitivity range that lowers (bear) or raises (bull) NPV."""
    t = tornado(base)
    t = t[t["output"] == "npv_usd"]
    top = t[t["swing"] >= t["swing"].max() / 3]
    sens = {s.key: s for s in base.sensitivity}
    for name, worse in (("bear", True), ("bull", False)):
        got = {r["key"]: float(r["value"]) for r in rows_of(name)}
        assert set(got) == set(top["variable"])
        for row in top.itertuples():
            low_is_worse = row.output_low < row.output_high
            end = sens[row.variable].low if low_is_worse == worse else sens[row.variable].high
            assert got[row.variable] == end
    npv = {n: float(evaluate(base.with_scenario(n)).npv[0]) for n in ("bear", "bull")}
    assert npv["bear"] < float(evaluate(base).npv[0]) < npv["bull"]


@pytest.mark.parametrize("name, platform", [("gpu_b300", "b300"), ("groq_lpu", "groq_lpu")])
def test_platform_scenarios_spend_the_budget_as_econ_platforms_does(base, name, platform):
    a = base.with_scenario(name)
    assert a.values["contract.platform"] == platform
    assert a.num("contract.value_usd") == base.num("contract.value_usd")
    assert a.num("contract.mw") == pytest.approx(
        D.platform_mw(base, platform, base.num("contract.value_usd")), rel=1e-6
    )


def test_standard_only_earns_by_backfill_alone(base):
    """No ultrafast tier for subscribers, no API, no upgrades: no revenue at all, and the
    only inflow is the GPU cost the backfill avoids (docs/model.md, section 5)."""
    a = base.with_scenario("standard_only")
    r = evaluate(a)
    assert float(r.totals["subscription_revenue_usd"][0]) == 0.0
    assert float(r.totals["api_revenue_usd"][0]) == 0.0
    assert not np.any(r.incremental_pro)
    assert np.array_equal(r.gpu_savings, r.backfill_usd)


# ---------------------------------------------------------------------------
# compare


def same_or_both_missing(row_value, json_value) -> bool:
    """A comparison row's figure against the summary's: equal, or NaN in the row where the
    summary's JSON has null (a payback or a rate that does not exist)."""
    if json_value is None:
        return math.isnan(row_value)
    return row_value == json_value


def assert_compare_row_is_the_summary(row, h, cumulative_cash):
    for col in (
        "npv_usd",
        "npv_without_terminal_value_usd",
        "payback_months",
        "discounted_payback_months",
        "profitability_index",
        "realised_cost_per_mtok_usd",
        "irr_annual",
    ):
        assert same_or_both_missing(row[col], h[col]), col
    assert row["term_average_utilization"] == h["totals"]["term_average_utilization"]
    assert (
        row["peak_incremental_pro_subscribers"] == h["totals"]["peak_incremental_pro_subscribers"]
    )
    assert cumulative_cash.tolist() == h["monthly"]["cumulative_cash_usd"]


def test_compare_base_row_equals_summary_json(base, capsys):
    code, out, _ = run(["summary", "--json", "--data", str(DATA)], capsys)
    assert code == 0
    h = json.loads(out)
    c = D.compare([base], workers=1)
    row = c.rows.iloc[0]
    assert row["scenario"] == "base"
    assert_compare_row_is_the_summary(row, h, c.cumulative_cash["base"])
    assert math.isnan(row["irr_annual"]) and h["irr_annual"] is None
    # the bundled deal ends the horizon below zero (K_H < 0), so it has no payback month
    # (docs/model.md section 6: null if K_H < 0): NaN in the row, null in the JSON
    assert c.cumulative_cash["base"].iloc[-1] < 0
    assert h["payback_months"] is None and math.isnan(row["payback_months"])


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_compare_row_equals_summary_json_where_the_deal_pays_back(base, capsys):
    """A contract that pays back within the horizon, so that both commands' payback months are
    numbers: 100 MW at the contract's rate (444,444.44 USD per MW-month x 100 MW x 30 months
    = 1.333e9 USD), owed in full from month 1 while the capacity ramps (take-or-pay), so that
    the cumulative cash starts below zero and recovers."""
    sets = [
        ("contract.mw", "100"),
        ("contract.value_usd", repr(10e9 / (750 * 30) * 100 * 30)),
        ("contract.payment", "take_or_pay"),
    ]
    args = ["summary", "--json", "--data", str(DATA)]
    code, out, err = run([*args, *(x for k, v in sets for x in ("--set", f"{k}={v}"))], capsys)
    assert code == 0, err
    h = json.loads(out)
    c = D.compare([base.with_overrides(sets)], workers=1)
    cash = c.cumulative_cash.iloc[:, 0]
    assert cash.iloc[0] < 0 < cash.iloc[-1]  # below zero, then recovered
    assert 0 < h["payback_months"] < 30 and h["discounted_payback_months"] is not None
    assert_compare_row_is_the_summary(c.rows.iloc[0], h, cash)


def test_the_comparison_workbook_has_a_row_a_figure_with_its_unit(base, tmp_path):
    """Comparison: a row each figure (label, unit, one number format), a column a scenario,
    the values those of the comparison; a rate above the meaningful range is blank."""
    import openpyxl

    from econ.constants import IRR_MEANINGFUL_MAX
    from econ.report import compare as C

    c = D.compare([base, base.with_scenario("bull")], workers=1)
    c.rows.loc[1, "irr_annual"] = 18_390_814.082  # flows that barely go negative
    C.workbook(c, tmp_path / "c.xlsx", "2026-01-01T00:00:00+00:00")
    ws = openpyxl.load_workbook(tmp_path / "c.xlsx")["Comparison"]
    assert [ws.cell(5, j).value for j in (1, 2, 3, 4)] == ["Figure", "Unit", "base", "bull"]
    rows = {ws.cell(i, 1).value: i for i in range(6, ws.max_row + 1) if ws.cell(i, 1).value}
    npv = rows["NPV"]
    assert ws.cell(npv, 2).value == "USD"
    assert [ws.cell(npv, j).value for j in (3, 4)] == pytest.approx(
        list(c.rows["npv_usd"]), rel=1e-15
    )
    assert len({ws.cell(npv, j).number_format for j in (3, 4)}) == 1
    irr = rows["IRR"]
    assert ws.cell(irr, 2).value == "1/yr" and ws.cell(irr, 4).value is None
    assert IRR_MEANINGFUL_MAX < 18_390_814.082
    assert ws.cell(rows["Platform"], 3).value == c.rows["platform"].iloc[0]


def test_compare_names_base_first_then_every_scenario(base):
    assert D.compare_names(base) == ["base", *base.scenario_names()]
    assert D.compare_names(base, ["bull", "base"]) == ["bull", "base"]
    with pytest.raises(AssumptionError, match="scenario 'bull' is named twice"):
        D.compare_names(base, ["bull", "bull"])


def test_compare_writes_workbook_and_png_only_under_out(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = ["compare", "base", "gpu_b300", "--data", str(DATA), "--out", "o", "--workers", "1"]
    code, out, err = run(args, capsys)
    assert code == 0, err
    files = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert files == ["o/compare/comparison.png", "o/compare/comparison.xlsx"]
    assert "econ: wrote o/compare/comparison.xlsx" in err and "gpu_b300" in out
    assert "econ: wrote" not in out  # notes on stderr, results on stdout
    with zipfile.ZipFile(tmp_path / "o/compare/comparison.xlsx") as z:
        names = z.namelist()
        strings = z.read("xl/sharedStrings.xml").decode()
        chart = z.read("xl/charts/chart1.xml").decode()
    assert "xl/charts/chart1.xml" in names
    assert "Snapshot of the econ compare run at" in strings
    assert chart.count("<c:ser>") == 2 and "'Cumulative cash'!" in chart
    assert (tmp_path / "o/compare/comparison.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_compare_json_and_set_on_every_scenario(tmp_path, capsys):
    args = ["compare", "base", "bear", "--data", str(DATA), "--out", str(tmp_path), "--json"]
    code, out, err = run([*args, "--set", "contract.value_usd=9e9", "--workers", "1"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert [r["scenario"] for r in doc["scenarios"]] == ["base", "bear"]
    assert all(r["contract_value_usd"] == 9e9 for r in doc["scenarios"])
    assert len(doc["cumulative_cash_usd"]["bear"]) == 60
    assert "econ: wrote" in err and "econ: wrote" not in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["compare", "../x"], r"\.\./x: not a scenario name"),
        (["compare", "nope"], r"scenario 'nope': no file \S+nope\.csv; known scenarios: bear, "),
        (["compare", "bull", "bull"], r"scenario 'bull' is named twice"),
        (["compare", "base", "--workers", "0"], r"--workers 0: out of range"),
        (["platforms", "--budget", "-1"], r"--budget -1: out of range; expected a number > 0"),
        (["platforms", "--budget", "inf"], r"--budget inf: not finite"),
        (["sweep", "contract.value_usd", "--points", "1"], r"--points 1: out of range"),
        (["sweep", "contract.platform"], r"contract\.platform is an id .*econ platforms"),
        (["sweep", "contract.mwx"], r"unknown key 'contract\.mwx'; did you mean contract\.mw"),
        (
            ["sweep", "frontier.wse3_750.tokens_per_s_per_user"],
            r"is a knot of wse3's curve .* sweep hardware\.wse3\.frontier_scale",
        ),
        (
            [
                "sweep",
                "tiers.ultrafast.tokens_per_s",
                "--high",
                "2000",
                "--set",
                "capacity.basis=data",
            ],
            r"--high 2000 is out of range; expected a value from 134 to 1,500 .*within wse3's "
            r"data curve, 54 to 1500 tokens/s",
        ),
        (["sweep", "contract.mw", "--low", "900", "--high", "800"], r"empty range \[900, 800\]"),
        (
            ["sweep", "contract.mw", "--low", "0"],
            r"--low 0 is out of range; expected a number in \(0, 100000\]",
        ),
        (["optimize", "horizon.months"], r"takes one value per run .*try econ sweep horizon"),
        (["optimize", "contract.mw", "--metric", "irr"], r"--metric invalid choice: 'irr'"),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_exit_2(args, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # anything written by mistake would land here
    code, out, err = run([*args, "--data", str(DATA)], capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("econ: error: ")
    assert re.search(message, err), err
    assert not list(tmp_path.iterdir())


def test_output_errors_name_the_file(tmp_path, capsys):
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    code, _, err = run(["compare", "base", "--data", str(DATA), "--out", str(blocker)], capsys)
    assert code == 2 and f"{blocker}/compare: cannot create the folder" in err
    out = tmp_path / "o"
    out.mkdir()
    (out / "compare").symlink_to(tmp_path)
    code, _, err = run(["compare", "base", "--data", str(DATA), "--out", str(out)], capsys)
    assert code == 2 and "leads outside" in err and "econ writes only inside --out" in err
    assert not (tmp_path / "comparison.xlsx").exists()
    bad = tmp_path / "missing" / "s.csv"
    code, _, err = run(["sweep", "contract.mw", "--data", str(DATA), "--csv", str(bad)], capsys)
    assert code == 2 and f"--csv {bad}: the folder {bad.parent} does not exist" in err


def test_an_unwritable_file_leaves_no_temporary(tmp_path):
    from econ.report.compare import CompareOutputError, write_atomically

    def fail(p):
        p.write_text("half")
        raise OSError(28, "No space left on device")

    with pytest.raises(CompareOutputError, match=r"x\.png: cannot write \(No space left"):
        write_atomically(tmp_path / "x.png", fail)
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------
# platforms


# B300 by the hour (hardware.csv: 3.96 USD per GPU-hour, 1.9 kW a GPU; facility.pue 1.2):
# 3.96 x 730.5 hours a month x 1000 kW / (1.9 x 1.2) = 2,892,780 / 2.28 = 1,268,763.16 USD per
# facility MW-month. Paid as delivered, the budget's present value equals the hourly cost's
# exactly when the nominal MW-months match (both follow MW_t). With no ramp the rent is paid on
# 30 MW-months per contracted MW: 10e9 / (1,268,763.16 x 30) = 2.28e10 / 86,783,400
# = 262.7231 MW. On the bundled 24-month ramp a contracted MW delivers (1 + 2 + ... + 24) / 24
# + 6 = 18.5 MW-months in the 30-month term: 2.28e10 / (2,892,780 x 18.5) = 426.0374 MW.
B300_RENT = 3.96  # USD per GPU-hour
B300_PER_MW_MONTH = B300_RENT * 730.5 * 1000 / (1.9 * 1.2)
B300_MW_NO_RAMP = 2.28e10 / (B300_RENT * 730.5 * 1000 * 30)
B300_MW_RAMP = 2.28e10 / (B300_RENT * 730.5 * 1000 * 18.5)


def test_platform_mw_of_b300_is_the_budget_over_its_hourly_rent(base):
    assert base.num("hardware.b300.rent_usd_per_hour") == B300_RENT
    assert B300_MW_NO_RAMP == pytest.approx(262.7231, abs=1e-4)
    assert B300_MW_RAMP == pytest.approx(426.0374, abs=1e-4)
    budget = 10e9
    flat = base.with_overrides([("contract.ramp_months", "0")])
    assert D.platform_mw(flat, "b300", budget) == pytest.approx(B300_MW_NO_RAMP, rel=REL)
    assert D.platform_mw(base, "b300", budget) == pytest.approx(B300_MW_RAMP, rel=REL)
    assert D.platform_cost(base, "b300")[0] == "hourly rent"
    # the contract platform: its own MW in proportion to the budget
    assert D.platform_mw(base, "wse3", 5e9) == pytest.approx(375.0, rel=REL)
    # bought: the MW whose purchase NPV equals the budget's present value as rent
    kind, pv = D.platform_cost(base, "groq_lpu")
    assert kind == "bought"
    pv_rent = D.budget_present_value(base, budget)
    assert D.platform_mw(base, "groq_lpu", budget) * pv == pytest.approx(pv_rent, rel=REL)


def ceiling_by_hand(memory_gb, bandwidth_tb_s, domain_chips, hop_us, layer_us, efficiency):
    """The served model's per-user ceiling on a platform (docs/model.md 3.2-3.3), by hand: the
    bundled model.* keys, 2e12 parameters at 1 byte, 5% active, 128 layers, speculative
    speed-up 2. Chips to hold the weights n = ceil(2e12 / memory), stages k = ceil(n / g),
    a decode step reads 1e11 bytes at g x bandwidth x efficiency and waits k hops (none for
    one stage) plus 128 layer latencies; ceiling = 2 / step time."""
    chips = math.ceil(2e12 / (memory_gb * 1e9))
    k = math.ceil(chips / domain_chips)
    read = 1e11 / (domain_chips * bandwidth_tb_s * 1e12 * efficiency)
    fixed = ((k if k >= 2 else 0) * hop_us + 128 * layer_us) * 1e-6
    return 2 / (read + fixed)


# hardware.csv's rows, by hand: memory GB, TB/s, chips per domain, hop and layer latency in us,
# efficiency
CEILINGS = {
    "b300": ceiling_by_hand(288, 8, 72, 5, 60, 0.7),  # 7 GPUs, one NVL72 stage: 252.27
    "wse3": ceiling_by_hand(44, 21_000, 1, 5, 6.5, 0.5),  # 46 wafers, 46 stages: 1,866.5
    "h100": ceiling_by_hand(80, 3.35, 8, 5, 60, 0.7),  # 25 GPUs, 4 stages: 153.49
    "groq_lpu": ceiling_by_hand(0.23, 80, 8, 2, 38, 0.7),  # 8,696 chips, 1,087 stages: 275.44
}
GRID = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5)  # served speeds: tier speed x m at or below 0.9 x ceiling


def test_the_ceilings_by_hand():
    for p, want in (("b300", 252.27), ("wse3", 1866.5), ("h100", 153.49), ("groq_lpu", 275.44)):
        assert CEILINGS[p] == pytest.approx(want, abs=0.01), p


def test_platforms_on_the_bundled_data(base, capsys):
    code, out, err = run(["platforms", "--data", str(DATA), "--json", "--workers", "1"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    rows = {r["platform"]: r for r in doc["platforms"]}
    assert doc["budget_usd"] == 10e9 and doc["term_months"] == 30
    assert doc["basis"] == "transferred"
    assert rows["b300"]["mw"] == pytest.approx(B300_MW_RAMP, rel=REL)
    assert rows["wse3"]["mw"] == pytest.approx(750.0, rel=REL)
    for p, ceiling in CEILINGS.items():
        assert rows[p]["ceiling_tokens_per_s"] == pytest.approx(ceiling, rel=1e-12), p
        # the ultrafast tier is offered where 750 x some grid multiplier <= 0.9 x the ceiling:
        # only on the wafer (0.5 x 750 = 375 is above 0.9 x 275.4 = 247.9 on the LPU)
        feasible = [750 * m for m in GRID if 750 * m <= 0.9 * ceiling]
        assert rows[p]["ultrafast_offered"] is bool(feasible), p
        assert rows[p]["npv_usd"] is not None, p  # every platform is valued on this basis
    assert rows["wse3"]["served_tokens_per_s"] == 750.0  # the tier's speed is feasible
    assert rows["wse3"]["users_per_mw"] == pytest.approx(600.0, abs=1.0)  # 450,000 / 750
    assert rows["b300"]["served_tokens_per_s"] is None and "no grid speed" in rows["b300"]["note"]
    assert rows["b300"]["npv_usd"] < rows["wse3"]["npv_usd"]
    assert doc["answer"].startswith("No: with $10.00B over 30 months the contract platform wse3")


def platform_overrides(row, budget: float) -> list[tuple[str, str]]:
    """What `econ summary --set ...` is given to value one row of `econ platforms`."""
    return [
        ("contract.platform", row["platform"]),
        ("contract.mw", repr(float(row["mw"]))),
        ("contract.value_usd", repr(float(budget))),
    ]


@pytest.mark.parametrize(
    "basis, budget, term",
    [
        ("transferred", None, None),
        ("physics", None, None),
        ("data", None, None),
        ("transferred", 4e9, 24),
        ("physics", 25e9, 48),
    ],
)
def test_every_platform_npv_equals_the_summary_with_its_overrides(base, basis, budget, term):
    """Issue 16, item 2: the NPV `econ platforms` gives a platform is `econ summary`'s with
    contract.platform, contract.mw and contract.value_usd set to that row's, at the same
    budget, term and basis (the same served-speed rule on every command)."""
    sets = [("capacity.basis", basis)] + ([("contract.term_months", str(term))] if term else [])
    a = base.with_overrides(sets)
    df = D.platforms(a, budget=budget, workers=1)
    budget = budget or a.num("contract.value_usd")
    assert df.attrs["budget_usd"] == budget and df.attrs["basis"] == basis
    valued = 0
    for row in df.to_dict("records"):
        if math.isnan(row["npv_usd"]):  # the data basis: the curve does not cover the tiers
            assert basis == "data" and "does not cover" in row["note"], row["platform"]
            with pytest.raises(AssumptionError, match="outside the frontier"):
                a.with_overrides(platform_overrides(row, budget))
            continue
        b = a.with_overrides(platform_overrides(row, budget))
        r = evaluate(b)
        assert float(r.npv[0]) == pytest.approx(row["npv_usd"], rel=1e-12), row["platform"]
        served = float(r.served_tokens_per_s_ultrafast[0])
        assert row["ultrafast_offered"] is bool(np.isfinite(r.served_multiplier[0]))
        if row["ultrafast_offered"]:
            assert row["served_tokens_per_s"] == served
        valued += 1
    assert valued >= (2 if basis == "data" else 4)


def test_platforms_and_summary_agree_through_the_command_line(base, capsys):
    code, out, err = run(["platforms", "--data", str(DATA), "--json", "--workers", "1"], capsys)
    assert code == 0, err
    rows = {r["platform"]: r for r in json.loads(out)["platforms"]}
    for p in ("b300", "wse3"):
        sets = [f"{k}={v}" for k, v in platform_overrides(rows[p], 10e9)]
        args = ["summary", "--json", "--data", str(DATA)]
        code, out, err = run([*args, *(x for kv in sets for x in ("--set", kv))], capsys)
        assert code == 0, err
        h = json.loads(out)
        assert h["npv_usd"] == pytest.approx(rows[p]["npv_usd"], rel=1e-12), p
        assert h["served_tokens_per_s"]["ultrafast"] == rows[p]["served_tokens_per_s"], p


def test_compare_gpu_b300_and_platforms_agree_on_b300(base, capsys, tmp_path):
    """`econ compare gpu_b300` and `econ platforms` value the same budget on B300 at its hourly
    rent: the scenario's MW are the platforms row's (to the 6 significant figures of the file)
    and so are the NPV, the ceiling and the ultrafast tier's absence."""
    args = ["--data", str(DATA), "--json", "--workers", "1"]
    code, out, err = run(["platforms", *args], capsys)
    assert code == 0, err
    row = {r["platform"]: r for r in json.loads(out)["platforms"]}["b300"]
    code, out, err = run(["compare", "gpu_b300", *args, "--out", str(tmp_path)], capsys)
    assert code == 0, err
    c = json.loads(out)["scenarios"][0]
    assert c["scenario"] == "gpu_b300" and c["platform"] == "b300"
    assert c["contract_value_usd"] == 10e9
    assert c["contract_mw"] == pytest.approx(row["mw"], rel=1e-6)
    assert c["contract_mw"] == pytest.approx(B300_MW_RAMP, rel=1e-6)
    assert c["npv_usd"] == pytest.approx(row["npv_usd"], rel=1e-6)
    assert c["ceiling_tokens_per_s"] == pytest.approx(row["ceiling_tokens_per_s"], rel=1e-12)
    assert c["served_tokens_per_s"] is None and row["served_tokens_per_s"] is None
    assert not row["ultrafast_offered"]
    # at the platforms row's exact MW the two are one evaluation
    exact = base.with_scenario("gpu_b300").with_overrides([("contract.mw", repr(row["mw"]))])
    npv = D.compare([exact], workers=1).rows.iloc[0]["npv_usd"]
    assert npv == pytest.approx(row["npv_usd"], rel=1e-12)


def test_a_platform_without_the_tier_earns_by_backfill_alone(base):
    """Where the ultrafast tier is not offered (B300: no grid speed below 0.9 x its ceiling) the
    contract earns only by the standard traffic moved onto it (docs/model.md V4.2): no
    subscription or API revenue, no API or subscriber MW, every GPU-fleet saving moved traffic."""
    df = D.platforms(base, workers=1).set_index("platform")
    assert not df.loc["b300", "ultrafast_offered"]
    on_b300 = base.with_overrides([("contract.platform", "b300")])
    at = {"contract.mw": B300_MW_RAMP, "contract.value_usd": 10e9}
    r = evaluate(on_b300, at)
    assert df.loc["b300", "npv_usd"] == pytest.approx(float(r.npv[0]), rel=REL)
    assert float(r.totals["subscription_revenue_usd"][0]) == 0.0
    assert float(r.totals["api_revenue_usd"][0]) == 0.0
    assert not np.any(r.mw_api) and not np.any(r.mw_subscriber)
    assert np.array_equal(r.gpu_savings, r.backfill_usd)
    # The tier's demand still shapes the no-deal world: without an ultrafast tier, a share D =
    # 0.5 of the 5e11 ultrafast tokens a month buys the standard and fast tiers instead (the
    # logit's market M = V_u + (V_s + V_f) / D, section 0.4), so the no-deal demand D0 is
    # D x V_u x e_t = 2.5e11 x e_t larger than in a market without that demand, and the
    # moved-traffic cap movable share (0.5) x that = 1.25e11 x e_t larger over the term. More
    # movable traffic never lowers the NPV (V4.2).
    no_demand = on_b300.with_overrides(
        [("tiers.ultrafast.adoption", "0"), ("api.ultrafast_tokens_per_month", "0")]
    )
    r0 = evaluate(no_demand, at)
    t = np.arange(1, 61)
    e = (1 - 0.15) ** ((t - 1) / 12)  # token efficiency e_t (section 5.2), 15 % a year
    np.testing.assert_allclose(
        (r.demand_no_deal_tokens - r0.demand_no_deal_tokens)[0], 0.5 * 5e11 * e, rtol=1e-9
    )
    np.testing.assert_allclose(
        (r.moved_demand_cap_tokens - r0.moved_demand_cap_tokens)[0],
        np.where(t <= 30, 0.5 * 0.5 * 5e11 * e, 0.0),
        rtol=1e-9,
        atol=1e-3,
    )
    assert float(r.npv[0]) >= float(r0.npv[0])
    assert float(r0.totals["subscription_revenue_usd"][0]) == 0.0
    # a 400 tokens/s tier fits on B300 only at half speed: 0.5 x 400 = 200 <= 0.9 x 252.27 =
    # 227.0 < 0.6 x 400 = 240
    slow = D.platforms(base.with_overrides([("tiers.ultrafast.tokens_per_s", "400")]), workers=1)
    b300 = slow.set_index("platform").loc["b300"]
    assert b300["ultrafast_offered"] and b300["served_tokens_per_s"] == 200.0


# ---------------------------------------------------------------------------
# sweep and optimize


def rent_pv_per_dollar(ramp: float = 24, term: int = 30, rate: float = 0.10) -> float:
    """Present value of one dollar of contract value paid as delivered (docs/model.md 4.1):
    month t pays share_t / sum(share), share_t = min(1, t / ramp), discounted (1 + r)^(-t/12)."""
    share = [min(1.0, t / ramp) for t in range(1, term + 1)]
    return sum(s * (1 + rate) ** (-t / 12) for t, s in enumerate(share, start=1)) / sum(share)


def test_sweep_of_the_contract_value_is_linear_with_minus_the_rent_pv_per_dollar(base):
    s = D.sweep(base, "contract.value_usd", points=5, workers=1)
    assert s.range.how == "its sensitivity range" and (s.range.low, s.range.high) == (9e9, 11e9)
    v, npv = s.table["contract.value_usd"].to_numpy(), s.table["npv_usd"].to_numpy()
    slopes = np.diff(npv) / np.diff(v)
    np.testing.assert_allclose(slopes, -rent_pv_per_dollar(), rtol=1e-9)
    assert s.table.loc[2, "npv_usd"] == pytest.approx(float(evaluate(base).npv[0]), rel=REL)


def test_sweep_kinds(base):
    term = D.sweep(base, "contract.term_months", points=7, workers=1)
    assert (term.range.low, term.range.high) == (1, 60)  # its rule, up to the horizon
    assert np.all(term.table["contract.term_months"] % 1 == 0)
    flag = D.sweep(base, "finance.terminal_value", workers=1)
    assert flag.table["finance.terminal_value"].tolist() == [0.0, 1.0]
    h = D.sweep(base, "horizon.months", low=36, high=60, points=3, workers=1)
    assert h.table["horizon.months"].tolist() == [36.0, 48.0, 60.0]
    assert h.table["npv_usd"].iloc[-1] == pytest.approx(float(evaluate(base).npv[0]), rel=REL)
    mw = D.sweep(base, "contract.mw", points=3, workers=1)
    assert (mw.range.low, mw.range.high) == (375, 1500) and mw.range.how.startswith("0.5x")
    unread = D.sweep(base, "agent.ttft_s", points=3, workers=1)
    assert not unread.read and unread.table["npv_usd"].nunique() == 1


def test_tier_speeds_on_the_three_bases(base):
    s = D.sweep(base, "tiers.ultrafast.tokens_per_s", points=3, workers=1)
    assert (s.range.low, s.range.high) == (375, 1500)  # 0.5x-2x
    std = D.sweep(base, "tiers.standard.tokens_per_s", points=3, workers=1)
    assert (std.range.low, std.range.high) == (27, 108)  # 0.5x-2x: any speed off the data basis
    data = base.with_overrides([("capacity.basis", "data")])
    std = D.sweep(data, "tiers.standard.tokens_per_s", points=3, workers=1)
    assert (std.range.low, std.range.high) == (54, 108)  # the wafer's curve starts at 54
    with pytest.raises(AssumptionError, match=r"--low 40 is out of range.*54 to 1500"):
        D.sweep(data, "tiers.standard.tokens_per_s", low=40, high=100)
    prices = D.sweep(base, "tiers.ultrafast.price_per_mtok_usd", points=3, workers=1)
    assert (prices.range.low, prices.range.high) == (120, 240)  # its sensitivity range


@pytest.mark.parametrize("basis", ["transferred", "physics"])
def test_the_served_ultrafast_speed_comes_from_the_grid_below_the_ceiling(base, basis):
    """docs/model.md section 0.1: on the transferred and physics bases the ultrafast tier is served at
    tier speed x m, m in (1, 0.9, ..., 0.5), at or below 0.9 x the wafer's ceiling (1,866.5
    tokens/s by hand), at the m that maximises NPV; with no such m it is not offered."""
    a = base.with_overrides([("capacity.basis", basis)])
    cap = 0.9 * CEILINGS["wse3"]  # 1,679.9
    for speed in (750, 1800, 2500, 3300, 3400, 4000):
        b = a.with_overrides([("tiers.ultrafast.tokens_per_s", str(speed))])
        r = evaluate(b)
        feasible = [speed * m for m in GRID if speed * m <= cap]
        served = float(r.served_tokens_per_s_ultrafast[0])
        if not feasible:  # 0.5 x 3,400 = 1,700 > 1,679.9
            assert speed >= 3400 and not np.isfinite(r.served_multiplier[0])
            assert not np.any(r.mw_api) and not np.any(r.mw_subscriber)
            continue
        assert served in feasible, (speed, served)
        best = max(float(evaluate(b, served=[m]).npv[0]) for m in GRID if speed * m <= cap)
        assert float(r.npv[0]) == pytest.approx(best, rel=1e-12), speed
    # 1,800 x 0.9 = 1,620 is the fastest that fits; 3,300 only at half speed (1,650)
    assert 1800 * 0.9 <= cap < 1800 and 3300 * 0.5 <= cap < 3300 * 0.6


def logit_optimal_price(gpu_cost: float, movable_share: float = 0.0) -> float:
    """The ultrafast price that maximises the API's cash, by hand (docs/model.md section 0.4) on the bundled
    figures: V_u = 5e11 ultrafast tokens at the reference price 180, V_s = 5e12 and V_f = 5e11
    at 30 and 60 USD per 1M, diversion D = 0.5, point elasticity 1 at 180, fees f = 0.1, every
    tier at its tier speed (the speed terms cancel) and a GPU cost g for both GPU tiers.

    Market M = V_u + (V_s + V_f) / D, shares q_i = V_i / M, q_0 = 1 - sum q; beta = e / (p_ref
    (1 - q_u)); alpha_i = ln(q_i / q_0) + beta p_i. Under the plain logit the diversion
    D_j = x_j / (1 - x_u) does not move with p_u (IIA), so the margin is m(p) = p (1 - f) - c,
    c = sum_j D_j (p_j (1 - f) - k g), and cash x_u(p) m(p) peaks where m = (1 - f) / (beta (1 -
    x_u)): the logit monopolist's markup, solved by fixed-point iteration.

    k = 1 - movable_share: a token diverted from the standard and fast tiers leaves the GPU
    fleet (g saved), but it also leaves the no-deal demand D0 - X that bounds the moved traffic
    (docs/model.md V4.2: B = movable_share x max(0, D0 - X), X counting the diverted API
    tokens), so where the contract has room for the moved traffic it takes movable_share x g of
    moved traffic's saving with it."""
    v_u, v_s, v_f, d, eps, p_ref, p_s, p_f, f = 5e11, 5e12, 5e11, 0.5, 1.0, 180, 30, 60, 0.1
    m = v_u + (v_s + v_f) / d
    q_u, q_s, q_f = v_u / m, v_s / m, v_f / m
    q_0 = 1 - q_u - q_s - q_f
    beta = eps / (p_ref * (1 - q_u))
    e_s, e_f = q_s / q_0, q_f / q_0  # exp(alpha_j - beta p_j) at the bundled prices
    d_s, d_f = e_s / (1 + e_s + e_f), e_f / (1 + e_s + e_f)
    assert d_s + d_f == pytest.approx(d) and d_s / d_f == pytest.approx(10)
    k = 1 - movable_share
    c = d_s * (p_s * (1 - f) - k * gpu_cost) + d_f * (p_f * (1 - f) - k * gpu_cost)
    alpha_u = math.log(q_u / q_0) + beta * p_ref

    def x_u(p: float) -> float:
        e_u = math.exp(alpha_u - beta * p)
        return e_u / (1 + e_s + e_f + e_u)

    p = p_ref
    for _ in range(200):
        p = c / (1 - f) + 1 / (beta * (1 - x_u(p)))
    return p


# Issue 17, item 2's case: no ramp (the contract's MW from month 1, so capacity does not bind),
# a GPU cost of 5 USD per 1M, and prices and GPU costs falling at one rate (docs/model.md V4.6:
# API prices p_i x pi_t, GPU costs g x c_t; with pi_t = c_t every month's margin is pi_t times
# month 1's, so the same price is best in every month and the optimum is month 1's by hand)
PRICE_CASE = [
    ("contract.ramp_months", "0"),
    ("capacity.gpu_cost_per_mtok_usd", "5"),
    ("market.price_decline_per_year", "0.4"),
    ("hardware.gpu_cost_decline_per_year", "0.4"),
]


def test_the_ultrafast_price_has_an_interior_optimum_at_the_logit_markup(base, capsys):
    """Issue 17, item 2: `econ optimize tiers.ultrafast.price_per_mtok_usd --low 10 --high
    10000` finds an interior optimum where capacity does not bind, and raising the price past
    it lowers the NPV. Every figure of the optimum is known by hand: p* = 193.016 where no
    traffic moves (capacity.movable_share 0), 194.349 at the bundled movable share of 0.5."""
    a = base.with_overrides(PRICE_CASE)
    assert a.num("capacity.movable_share") == 0.5
    p_star = logit_optimal_price(5.0, movable_share=0.5)
    assert p_star == pytest.approx(194.349, abs=1e-3)
    o = D.optimize(a, "tiers.ultrafast.price_per_mtok_usd", low=10, high=10000, workers=1)
    assert o.on_bound is None and o.refined and not o.flat and 10 < o.value < 10000
    assert o.value == pytest.approx(p_star, rel=1e-6)
    # without moved traffic the diverted tokens save the whole GPU cost: version 3's optimum
    still = a.with_overrides([("capacity.movable_share", "0")])
    assert logit_optimal_price(5.0) == pytest.approx(193.016, abs=1e-3)
    o0 = D.optimize(still, "tiers.ultrafast.price_per_mtok_usd", low=10, high=10000, workers=1)
    assert o0.on_bound is None and o0.value == pytest.approx(logit_optimal_price(5.0), rel=1e-6)
    # capacity does not bind: every month of the term the API gets all it wants, and the
    # peak-shaped loads leave MW free at the peak
    r = evaluate(a, {"tiers.ultrafast.price_per_mtok_usd": [o.value]})
    np.testing.assert_allclose(r.api_tokens_served, r.api_tokens_wanted, rtol=1e-12)
    T, pta = 30, a.num("usage.peak_to_average")
    peak = pta * (r.mw_api + r.mw_subscriber + r.mw_backfill_peak)[0, :T]
    assert np.all(peak < r.mw_online[0, :T])
    # past the optimum the NPV falls, all the way to the world without an ultrafast API
    prices = [p_star, 250, 400, 1000, 3000, 10000]
    npv = evaluate(a, {"tiers.ultrafast.price_per_mtok_usd": prices}).npv
    assert np.all(np.diff(npv) < 0)
    assert npv[0] == pytest.approx(o.best, rel=1e-9)
    args = ["optimize", "tiers.ultrafast.price_per_mtok_usd", "--low", "10", "--high", "10000"]
    sets_cli = [x for k, v in PRICE_CASE for x in ("--set", f"{k}={v}")]
    code, out, err = run([*args, *sets_cli, "--data", str(DATA), "--workers", "1"], capsys)
    assert code == 0, err
    assert "NPV is highest at tiers.ultrafast.price_per_mtok_usd = $194.35 per 1M" in out
    assert "sits on" not in out and "still improving" not in out


def test_the_pro_price_has_an_interior_optimum(base, capsys):
    """Issue 27, item 3 (V4.7): over 50..5,000 USD a month the NPV's best Pro price lies strictly
    inside (version 3: on the upper bound, and 100,000 USD still "improved" it). By hand on the
    bundled data: the propensity at the reference price is 5 % (the cap binds), the elasticity
    1, half the upgrades take the 100 USD tier, so the logit reads the mix m = p / 2 + 50
    against 150 with beta = 1 / (150 x 0.95). The deal's extra Pro subscribers scale with
    pf(p) (both worlds' upgrade flows do), so its subscription revenue is (m - 20) pf(p) times
    one constant, highest where 1 = (p / 2 + 30) beta (1 - 0.05 pf(p)): p = 238.12."""
    beta = 1 / (150 * 0.95)

    def pf(p: float) -> float:
        return 1 / (0.05 + 0.95 * math.exp(beta * (p / 2 + 50 - 150)))

    lo, hi = 50.0, 5000.0
    for _ in range(100):  # bisection on the first-order condition
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if (mid / 2 + 30) * beta * (1 - 0.05 * pf(mid)) < 1 else (lo, mid)
    p_sub = 0.5 * (lo + hi)
    assert p_sub == pytest.approx(238.12, abs=0.01)
    prices = [p_sub, 0.98 * p_sub, 1.02 * p_sub, 100.0]
    r = evaluate(base, {"plans.pro.price_usd_month": prices})
    assert r.pro_price_factor == pytest.approx([pf(p) for p in prices], rel=1e-12)
    sub = r.subscription_revenue.sum(axis=1)
    per = sub / np.array([(p / 2 + 30) * pf(p) for p in prices])
    assert per == pytest.approx([per[0]] * len(prices), rel=1e-12)
    assert sub[0] > sub[1] and sub[0] > sub[2]
    # the NPV's optimum: interior, near the subscription revenue's (the other flows of an extra
    # subscriber, its GPU cost, its streams and the Pro tail, move it by a few percent)
    o = D.optimize(base, "plans.pro.price_usd_month", low=50, high=5000, workers=1)
    assert o.on_bound is None and o.refined and not o.flat and 50 < o.value < 5000
    assert o.value == pytest.approx(p_sub, rel=0.05)
    npv = evaluate(base, {"plans.pro.price_usd_month": [o.value, 50, 200, 5000, 1e5]}).npv
    assert npv[0] == pytest.approx(o.best, rel=1e-9)
    assert npv[0] > max(npv[1:])
    assert npv[4] < npv[2]  # 100,000 USD a month no longer improves on the list price
    args = ["optimize", "plans.pro.price_usd_month", "--low", "50", "--high", "5000"]
    code, out, err = run([*args, "--data", str(DATA), "--workers", "1"], capsys)
    assert code == 0, err
    assert "NPV is highest at plans.pro.price_usd_month" in out
    assert "sits on" not in out and "still improving" not in out


def test_optimize_says_when_the_optimum_sits_on_a_bound(base, capsys):
    # at the contract's rate the NPV peaks well below 1,000 MW (the summary's size at the rate):
    # over 1,000-1,500 MW the optimum sits on the lower end
    from econ.headline import size_at_rate

    assert size_at_rate(base)["best_mw"] < 1000
    o = D.optimize(base, "contract.mw", low=1000, high=1500, workers=1)
    assert o.on_bound == "low" and o.value == 1000 and not o.refined
    # holding the value, more MW for the same money never lower the NPV (docs/model.md section
    # 0.2): the NPV over 375-1,500 MW never falls, and the upper end is as good as the optimum.
    # Once the contract carries every use the model prices (moved traffic is bounded by the
    # served model's demand, V4.2), more MW add nothing: the curve is flat up to the upper end,
    # and the optimum is where it flattens (any value there is as good), not on a bound.
    o = D.optimize(base, "contract.mw", hold="value", workers=1)
    curve = o.curve["npv_usd"].to_numpy()
    assert np.all(np.diff(curve) >= -1e-6 * np.abs(curve[:-1]))
    top = npv_at(base, contract__mw=1500, contract__value_usd=10e9)
    assert o.best == pytest.approx(top, rel=1e-12) and curve[-1] == pytest.approx(top, rel=1e-12)
    assert o.best > o.base_metric and 750 < o.value <= 1500 and not o.flat
    assert o.on_bound in (None, "high")
    args = ["optimize", "contract.mw", "--low", "1000", "--data", str(DATA), "--workers", "1"]
    code, out, _ = run(args, capsys)
    assert code == 0 and "sits on the lower end of the range" in out
    args = ["optimize", "contract.mw", "--hold", "value", "--data", str(DATA), "--workers", "1"]
    code, out, _ = run(args, capsys)
    assert code == 0 and f"NPV is highest at contract.mw = {o.value:,.1f} MW" in out
    assert "sits on the lower end" not in out
    code, out, _ = run(["optimize", "agent.ttft_s", "--data", str(DATA), "--workers", "1"], capsys)
    assert code == 1 and "No answer: the payback model does not read agent.ttft_s" in out
    o = D.optimize(base, "contract.term_months", metric="payback", workers=1)
    assert o.value == int(o.value) and not o.refined
    args = ["optimize", "tiers.ultrafast.adoption", "--metric", "payback", "--scenario", "bear"]
    code, out, _ = run([*args, "--data", str(DATA), "--workers", "1"], capsys)
    assert code == 1 and "No answer: no value in this range pays back within the horizon." in out


# the contract's rate: 10e9 USD / (750 MW x 30 months) = 444,444.44 USD per MW-month
RATE = 10e9 / (750 * 30)


def npv_at(a, **over) -> float:
    """NPV of one scenario with overrides given as keyword arguments (dots as __)."""
    return float(evaluate(a, {k.replace("__", "."): [v] for k, v in over.items()}).npv[0])


def test_sweeps_of_the_size_hold_the_rate_by_default(base):
    """Issue 16, item 6: the value moves as rate x MW x T (docs/model.md section 0.3); `--hold value` keeps
    it. By hand: 375 MW at the rate cost 444,444.44 x 375 x 30 = 5e9 USD; 24 months of 750 MW,
    8e9 USD; 1,500 MW, 20e9."""
    mw = D.sweep(base, "contract.mw", low=375, high=1500, points=4, workers=1).table
    assert mw["contract.mw"].tolist() == [375, 750, 1125, 1500]
    for x, value in ((375, 5e9), (750, 10e9), (1125, 15e9), (1500, 20e9)):
        assert RATE * x * 30 == pytest.approx(value, rel=1e-12)
        want = npv_at(base, contract__mw=x, contract__value_usd=value)
        got = float(mw.loc[mw["contract.mw"] == x, "npv_usd"].iloc[0])
        assert got == pytest.approx(want, rel=1e-12), x
    held = D.sweep(base, "contract.mw", low=375, high=1500, points=4, hold="value", workers=1)
    for x, got in zip(held.table["contract.mw"], held.table["npv_usd"], strict=True):
        want = npv_at(base, contract__mw=x, contract__value_usd=10e9)
        assert got == pytest.approx(want, rel=1e-12), x
    # a smaller contract at the rate is worth more than at the whole value, a larger one less
    assert mw["npv_usd"].iloc[0] > held.table["npv_usd"].iloc[0]
    assert mw["npv_usd"].iloc[-1] < held.table["npv_usd"].iloc[-1]

    term = D.sweep(base, "contract.term_months", low=24, high=36, points=3, workers=1).table
    assert term["contract.term_months"].tolist() == [24, 30, 36]
    for t, value in ((24, 8e9), (30, 10e9), (36, 12e9)):
        a = base.with_overrides([("contract.term_months", str(t))])
        got = float(term.loc[term["contract.term_months"] == t, "npv_usd"].iloc[0])
        assert got == pytest.approx(npv_at(a, contract__value_usd=value), rel=1e-12), t
    fixed = D.sweep(
        base, "contract.term_months", low=24, high=36, points=3, hold="value", workers=1
    ).table
    a = base.with_overrides([("contract.term_months", "24")])
    assert fixed["npv_usd"].iloc[0] == pytest.approx(npv_at(a, contract__value_usd=10e9), rel=1e-12)


def test_optimize_and_goal_seek_on_the_size_hold_the_rate(base):
    from econ.sensitivity.breakeven import goal_seek_key

    o = D.optimize(base, "contract.mw", low=1, high=1500, workers=1)
    assert o.on_bound is None
    assert o.best == pytest.approx(
        npv_at(base, contract__mw=o.value, contract__value_usd=RATE * o.value * 30), rel=1e-12
    )
    at_rate = goal_seek_key(base, "contract.mw").value
    npv = npv_at(base, contract__mw=at_rate, contract__value_usd=RATE * at_rate * 30)
    assert abs(npv) < 1e3  # USD, against NPVs of billions
    # at the rate the NPV is positive at its best size and falls below zero before 750 MW: the
    # root lies between the two
    from econ.headline import size_at_rate

    best = size_at_rate(base)
    assert best["best_npv_usd"] > 0 > npv_at(base, contract__mw=750, contract__value_usd=10e9)
    assert best["best_mw"] < at_rate < 750
    # holding the value (10e9 USD whatever the size) the NPV never falls with the MW (section
    # 0.2), and at the top of goal seek's range (10 x 750 MW) it is still below zero: no size
    # brings it to zero, and goal seek says so rather than giving a value
    held = goal_seek_key(base, "contract.mw", hold="value")
    lo, hi = held.bracket
    assert (lo, hi) == (75, 7500)
    assert npv_at(base, contract__mw=hi, contract__value_usd=10e9) < 0
    assert held.value is None and not held.reached and held.side == "below"
    assert "brings NPV to zero: it stays below zero" in held.message


def test_the_summary_names_the_npv_maximising_size_at_the_rate(base, capsys):
    """docs/model.md section 0.3: the size that maximises NPV with the value at the contract's rate,
    searched over (0, 2 x 750] MW: no size on a fine grid of its own does better."""
    from econ.headline import size_at_rate

    s = size_at_rate(base)
    assert s["rate_usd_per_mw_month"] == pytest.approx(RATE, rel=1e-12)
    assert s["searched_up_to_mw"] == 1500 and not s["at_upper_bound"]
    best = s["best_mw"]
    assert 0 < best < 1500 and s["best_value_usd"] == pytest.approx(RATE * best * 30, rel=1e-12)
    at = npv_at(base, contract__mw=best, contract__value_usd=RATE * best * 30)
    assert s["best_npv_usd"] == pytest.approx(at, rel=1e-12)
    grid = np.linspace(5, 1500, 300)
    npv = evaluate(base, {"contract.mw": grid, "contract.value_usd": RATE * grid * 30}).npv
    assert s["best_npv_usd"] >= npv.max() - 1e-6 * abs(npv.max())
    assert abs(grid[np.argmax(npv)] - best) <= 1500 / 299
    code, out, err = run(["summary", "--data", str(DATA)], capsys)
    assert code == 0, err
    m = re.search(  # the summary wraps to the terminal's width: any space may be a newline
        r"At\s+the\s+contract's\s+rate\s+\(\$([\d.]+)k\s+per\s+MW-month\)\s+the\s+NPV\s+is\s+"
        r"highest\s+at\s+([\d,.]+)\s+MW:\s+\$([\d.]+)B",
        out,
    )
    assert m, out
    assert float(m.group(1)) == round(RATE / 1e3, 1)
    assert float(m.group(2).replace(",", "")) == round(best, 1)
    assert float(m.group(3)) == round(s["best_npv_usd"] / 1e9, 2)
    code, out, err = run(["summary", "--json", "--data", str(DATA)], capsys)
    h = json.loads(out)
    assert h["contract_rate_usd_per_mw_month"] == pytest.approx(RATE, rel=1e-12)
    assert h["size_at_rate"]["best_mw"] == pytest.approx(best, rel=1e-12)


def test_the_reported_terms_deliver_250_mw_a_year(base):
    """The reported_terms scenario: 20e9 USD for 750 MW over 36 months, delivered in tranches
    of 250 MW every 12 months from month 1. By hand: 250 MW in months 1-12, 500 in 13-24, 750
    in 25-36, none after; 12 x (250 + 500 + 750) = 18,000 MW-months. The scenario's payment is
    take-or-pay (docs/model.md V4.5: the rent is owed in full), so the rent is flat, 20e9 / 36
    = 555,555,555.56 USD a month over the term (section 4.1); paid as delivered instead it is
    20e9 / 18,000 = 1,111,111.11 USD per MW-month online. The contract's rate is 20e9 / (750 x
    36) = 740,740.74 USD per MW-month either way."""
    from econ.headline import headline

    a = base.with_scenario("reported_terms")
    assert (a["contract.tranche_mw"], a["contract.tranche_months"]) == (250, 12)
    assert a.values["contract.payment"] == "take_or_pay"
    r = evaluate(a)
    t = np.arange(1, 67)
    want = np.select([t <= 12, t <= 24, t <= 36], [250.0, 500.0, 750.0], 0.0)
    np.testing.assert_array_equal(r.mw_online[0], want)
    np.testing.assert_allclose(r.rent[0], np.where(t <= 36, 20e9 / 36, 0.0), rtol=1e-12)
    assert float(r.rent[0].sum()) == pytest.approx(20e9, rel=1e-12)
    delivered = evaluate(a.with_overrides([("contract.payment", "pay_as_delivered")]))
    np.testing.assert_allclose(delivered.rent[0], want * 20e9 / 18_000, rtol=1e-12)
    assert float(delivered.rent[0].sum()) == pytest.approx(20e9, rel=1e-12)
    h = headline(a)
    assert h["contract_rate_usd_per_mw_month"] == pytest.approx(20e9 / (750 * 36), rel=1e-12)
    for row in rows_of("reported_terms"):
        assert row["source"].strip() and row["key"].startswith(("contract.", "horizon."))


def test_platforms_buy_b300_at_its_hourly_rent_under_tranches(base):
    """At its hourly rent a B300 MW-month costs 1,268,763.16 USD; the budget buys the MW X whose
    delivered MW-months (the same tranches of 250 MW a year) cost what the budget does, in
    present value. Paid as delivered the rent follows the MW, so the nominal MW-months match:
    20e9 = 1,268,763.16 x (12 x 250 + 12 x 500 + 12 X) gives X = 563.62 MW. Take-or-pay (the
    scenario's payment) owes 20e9 / 36 in each of the 36 months whatever is delivered:
    20e9 / 36 x sum_1^36 d_t = 1,268,763.16 x (250 sum_1^12 d_t + 500 sum_13^24 d_t + X
    sum_25^36 d_t), d_t = 1.1^(-t / 12). (Without tranches this reading is the one
    test_platform_mw_of_b300_... checks: 426.04 MW.)"""
    a = base.with_scenario("reported_terms")
    delivered = a.with_overrides([("contract.payment", "pay_as_delivered")])
    x = (20e9 / B300_PER_MW_MONTH - 12 * 250 - 12 * 500) / 12
    assert x == pytest.approx(563.62, abs=0.01)
    assert D.platform_mw(delivered, "b300", 20e9) == pytest.approx(x, rel=1e-9)
    d = [1.1 ** (-t / 12) for t in range(1, 37)]
    s1, s2, s3 = sum(d[:12]), sum(d[12:24]), sum(d[24:])
    x = (20e9 / 36 * sum(d) / B300_PER_MW_MONTH - 250 * s1 - 500 * s2) / s3
    assert x == pytest.approx(596.86, abs=0.01)
    assert D.platform_mw(a, "b300", 20e9) == pytest.approx(x, rel=1e-9)


def test_platforms_stop_at_what_the_tranches_deliver(base):
    """40e9 USD at the B300's 1,268,763.16 USD per MW-month pays 31,527 MW-months; the tranches
    deliver at most 12 x (250 + 500 + 750) = 18,000 in the 36-month term (750 MW from month 25
    on), so the B300 row stops at 750 MW and says so. In present value, as take-or-pay reads
    it: 40e9 / 36 a month is worth 34.7e9 USD, 750 MW on the tranches cost 19.2e9."""
    a = base.with_scenario("reported_terms")
    assert 40e9 / B300_PER_MW_MONTH > 18_000
    d = [1.1 ** (-t / 12) for t in range(1, 37)]
    most = B300_PER_MW_MONTH * (250 * sum(d[:12]) + 500 * sum(d[12:24]) + 750 * sum(d[24:]))
    assert 40e9 / 36 * sum(d) > most
    assert D.platform_mw(a, "b300", 40e9) == 750.0
    row = D.PlatformRow(a, 40e9)("b300")
    assert row["mw"] == 750.0 and "more than the tranches deliver (750 MW" in row["note"]


def test_sweep_csv_and_json(tmp_path, capsys):
    path = tmp_path / "s.csv"
    args = ["sweep", "contract.value_usd", "--data", str(DATA), "--points", "3", "--workers", "1"]
    code, out, err = run([*args, "--csv", str(path)], capsys)
    assert code == 0 and f"econ: wrote {path}" in err and out == ""
    df = pd.read_csv(path)
    assert list(df.columns) == ["contract.value_usd", *D.SWEEP_OUTPUTS] and len(df) == 3
    units = pd.read_csv(tmp_path / "s.units.csv", index_col="column", keep_default_na=False)
    assert units.loc["contract.value_usd", "unit"] == "USD"
    assert units.loc["npv_usd", "unit"] == "USD" and units.loc["payback_months", "unit"] == "months"
    assert units.loc["term_average_utilization", "unit"] == "share"
    code, out, _ = run([*args, "--json"], capsys)
    doc = json.loads(out)
    assert doc["key"] == "contract.value_usd" and len(doc["points"]) == 3 and doc["read"]


# ---------------------------------------------------------------------------
# worker processes


def test_worker_functions_can_be_sent_to_processes(base):
    for fn in (D.compare_one, D.PlatformRow(base, 1e9), D.KeyChunk(base, "contract.mw")):
        pickle.loads(pickle.dumps(fn))
    pickle.loads(pickle.dumps(D.KeyPoint(base, "horizon.months")))


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_one_and_two_workers_give_identical_bits(base):
    kw = {"points": 101}  # 101 values: four chunks of at most SWEEP_CHUNK
    one = D.sweep(base, "tiers.ultrafast.adoption", workers=1, **kw).table
    two = D.sweep(base, "tiers.ultrafast.adoption", workers=2, **kw).table
    pd.testing.assert_frame_equal(one, two, check_exact=True)
    h1 = D.sweep(base, "horizon.months", low=30, high=33, workers=1).table
    h2 = D.sweep(base, "horizon.months", low=30, high=33, workers=2).table
    pd.testing.assert_frame_equal(h1, h2, check_exact=True)
    scenarios = D.scenario_assumptions(base, ["base", "bear", "gpu_b300"])
    c1, c2 = D.compare(scenarios, workers=1), D.compare(scenarios, workers=2)
    pd.testing.assert_frame_equal(c1.rows, c2.rows, check_exact=True)
    pd.testing.assert_frame_equal(c1.cumulative_cash, c2.cumulative_cash, check_exact=True)
    p1, p2 = D.platforms(base, workers=1), D.platforms(base, workers=2)
    pd.testing.assert_frame_equal(p1, p2, check_exact=True)
    o1 = D.optimize(base, "tiers.ultrafast.price_per_mtok_usd", workers=1)
    o2 = D.optimize(base, "tiers.ultrafast.price_per_mtok_usd", workers=2)
    assert (o1.value, o1.best) == (o2.value, o2.best)


def test_default_workers_are_all_cores(monkeypatch, capsys):
    seen = []
    real = D.map_ordered

    def spy(fn, items, workers=1, ahead=None):
        seen.append(workers)
        return real(fn, items, 1)

    monkeypatch.setattr(D, "map_ordered", spy)
    monkeypatch.setattr("econ.parallel.available_cores", lambda: 7)
    code, _, err = run(["sweep", "contract.mw", "--data", str(DATA), "--points", "101"], capsys)
    assert code == 0, err
    assert seen[0] == 4  # all 7 cores asked for, capped at the sweep's four chunks


def _optimum(x, y, best_at) -> D.Optimum:
    """An optimisation's result on a curve given by hand (NPV in USD over contract.mw)."""
    i = int(np.argmax(y))
    rng = D.KeyRange("contract.mw", float(x[0]), float(x[-1]), "number", "given", 750.0)
    curve = pd.DataFrame({"contract.mw": x, "npv_usd": y})
    return D.Optimum(rng, "npv", "npv_usd", float(best_at), float(y[i]), float(y[5]), None,
                     False, True, False, curve)  # fmt: skip


def test_an_optimum_on_a_plateau_says_how_flat_the_curve_is_around_it():
    from econ.report.compare import optimum_text

    # NPV rises from -10 to -1 ($B) by 1 a point, then holds at -1 +- $1M (within a thousandth
    # of the $9B range: $9M) from the 10th point to the 21st of 21
    x = np.linspace(100.0, 2100.0, 21)
    y = np.minimum(-10e9 + 1e9 * np.arange(21), -1e9) + np.where(np.arange(21) % 2, 1e6, 0.0)
    o = _optimum(x, y, x[int(np.argmax(y))])
    text = " ".join(optimum_text(o)[0].split())
    assert "stays within $9.0M of it from 1,000.0 MW to 2,100.0 MW" in text, text
    # a sharp peak: no plateau sentence
    y2 = -np.abs(np.arange(21) - 10.0) * 1e9
    text2 = " ".join(optimum_text(_optimum(x, y2, x[10]))[0].split())
    assert "stays within" not in text2
