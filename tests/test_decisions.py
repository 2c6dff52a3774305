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
            assert r["key"] in base.values, f"{name}: {r['key']}"
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


def test_compare_base_row_equals_summary_json(base, capsys):
    code, out, _ = run(["summary", "--json", "--data", str(DATA)], capsys)
    assert code == 0
    h = json.loads(out)
    c = D.compare([base], workers=1)
    row = c.rows.iloc[0]
    assert row["scenario"] == "base"
    for col in (
        "npv_usd",
        "npv_without_terminal_value_usd",
        "payback_months",
        "discounted_payback_months",
        "profitability_index",
        "realised_cost_per_mtok_usd",
    ):
        assert row[col] == h[col], col
    assert math.isnan(row["irr_annual"]) and h["irr_annual"] is None
    assert row["term_average_utilization"] == h["totals"]["term_average_utilization"]
    assert (
        row["peak_incremental_pro_subscribers"] == h["totals"]["peak_incremental_pro_subscribers"]
    )
    assert c.cumulative_cash["base"].tolist() == h["monthly"]["cumulative_cash_usd"]


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
            ["sweep", "tiers.ultrafast.tokens_per_s", "--high", "2000"],
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
    assert code == 2 and f"{bad}: cannot write" in err


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


# B300 by the hour: 4.0 USD per GPU-hour x 730.5 hours a month x 1000 kW / (1.9 kW a GPU x
# 1.2 PUE) = 2,922,000 / 2.28 = 1,281,578.95 USD per facility MW-month. With no ramp the
# rent is paid on 30 MW-months per contracted MW: 10e9 / (1,281,578.95 x 30)
# = 2.28e10 / 87,660,000 = 260.0958 MW. On the bundled 24-month ramp a contracted MW delivers
# (1 + 2 + ... + 24) / 24 + 6 = 18.5 MW-months in the 30-month term: 2.28e10 / (2,922,000 x
# 18.5) = 421.7770 MW.
B300_MW_NO_RAMP = 2.28e10 / 87_660_000
B300_MW_RAMP = 2.28e10 / (2_922_000 * 18.5)


def test_platform_mw_of_b300_is_the_budget_over_its_hourly_rent(base):
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


def test_platforms_on_the_bundled_data(base, capsys):
    code, out, err = run(["platforms", "--data", str(DATA), "--json", "--workers", "1"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    rows = {r["platform"]: r for r in doc["platforms"]}
    assert doc["budget_usd"] == 10e9 and doc["term_months"] == 30
    assert rows["b300"]["mw"] == pytest.approx(B300_MW_RAMP, rel=REL)
    assert rows["wse3"]["mw"] == pytest.approx(750.0, rel=REL)
    # per-user ceilings of the dense 2T model (docs/model.md 3.3: b300 56.8, wse3 599.5,
    # h100 4.5, groq_lpu 55.1 tokens/s): only the wafer can run a tier above the fast 134
    for p, ceiling in (("b300", 56.8), ("wse3", 599.5), ("h100", 4.5), ("groq_lpu", 55.1)):
        assert rows[p]["fastest_tokens_per_s"] == pytest.approx(ceiling, abs=0.05)
        assert rows[p]["ultrafast_offered"] is (p == "wse3")
    assert rows["wse3"]["served_tokens_per_s"] == pytest.approx(599.5, abs=0.05)
    # the wafer's users per MW on its data curve at that speed: between 560,000 / 340 and
    # 450,000 / 750 tokens/s per MW over the speed
    assert 450_000 / 750 < rows["wse3"]["users_per_mw"] < 560_000 / 340
    assert rows["groq_lpu"]["npv_usd"] is None and "does not cover" in rows["groq_lpu"]["note"]
    assert rows["b300"]["npv_usd"] < rows["wse3"]["npv_usd"]
    assert doc["answer"].startswith("No: with $10.00B over 30 months the contract platform wse3")


def test_a_platform_without_the_tier_earns_by_backfill_alone(base):
    df = D.platforms(base.with_overrides([("tiers.fast.tokens_per_s", "54")]), workers=1)
    b300 = df.set_index("platform").loc["b300"]
    assert b300["ultrafast_offered"]  # 56.8 tokens/s is above a 54 tokens/s fast tier
    df = D.platforms(base, workers=1).set_index("platform")
    a = base.with_overrides(
        [
            ("contract.platform", "b300"),
            ("tiers.ultrafast.adoption", "0"),
            ("api.ultrafast_tokens_per_month", "0"),
        ]
    )
    r = evaluate(a, {"contract.mw": B300_MW_RAMP, "contract.value_usd": 10e9})
    assert df.loc["b300", "npv_usd"] == pytest.approx(float(r.npv[0]), rel=REL)
    assert float(r.totals["subscription_revenue_usd"][0]) == 0.0


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


def test_tier_speeds_on_the_data_and_physics_bases(base):
    s = D.sweep(base, "tiers.ultrafast.tokens_per_s", points=3, workers=1)
    assert (s.range.low, s.range.high) == (375, 1500)  # 0.5x-2x, within wse3's curve
    std = D.sweep(base, "tiers.standard.tokens_per_s", points=3, workers=1)
    assert (std.range.low, std.range.high) == (54, 108)  # its curve starts at 54
    with pytest.raises(AssumptionError, match=r"--low 40 is out of range.*54 to 1500"):
        D.sweep(base, "tiers.standard.tokens_per_s", low=40, high=100)
    phys = base.with_overrides([("capacity.basis", "physics")])
    s = D.sweep(phys, "tiers.ultrafast.tokens_per_s", low=400, high=2000, points=3, workers=1)
    # above the wafer's 599.5 tokens/s ceiling the envelope carries no ultrafast stream
    assert s.table["npv_usd"].iloc[1] == s.table["npv_usd"].iloc[2]
    assert s.table["npv_usd"].iloc[0] > s.table["npv_usd"].iloc[1]
    prices = D.sweep(base, "tiers.ultrafast.price_per_mtok_usd", points=3, workers=1)
    assert (prices.range.low, prices.range.high) == (20, 60)


def test_optimize_finds_the_known_optimum_of_a_concave_case(base):
    """API cash per month is V0 (p / ref)^-e x ((1 - f)(p - c s) + c g) with c the cannibalised
    share, s the standard price, g the GPU cost and f the variable costs, maximised at
    p* = e K / (e - 1), K = c s - c g / (1 - f). With e = 2, c = 0.5, s = 10, g = 1, f = 0.1:
    K = 5 - 0.5 / 0.9 = 4.444..., p* = 8.888... USD per 1M tokens (capacity never binds here:
    no ramp, no backfill, a small API)."""
    a = base.with_overrides(
        [
            ("contract.ramp_months", "0"),
            ("capacity.backfill_tokens_per_month", "0"),
            ("api.ultrafast_tokens_per_month", "1e12"),
            ("api.price_elasticity", "2"),
        ]
    )
    o = D.optimize(a, "tiers.ultrafast.price_per_mtok_usd", low=5, high=40, workers=1)
    assert o.value == pytest.approx(2 * (5 - 0.5 / 0.9), rel=1e-6)
    assert o.refined and o.on_bound is None and not o.flat and o.read
    at = evaluate(a, {"tiers.ultrafast.price_per_mtok_usd": [o.value]})
    np.testing.assert_allclose(at.api_tokens_served, at.api_tokens_wanted, rtol=1e-12)  # no cap
    assert o.best >= o.curve["npv_usd"].max()


def test_optimize_says_when_the_optimum_sits_on_a_bound(base, capsys):
    o = D.optimize(base, "contract.mw", workers=1)
    assert o.on_bound == "high" and o.value == 1500 and not o.refined
    code, out, _ = run(["optimize", "contract.mw", "--data", str(DATA), "--workers", "1"], capsys)
    assert code == 0 and "sits on the upper end of the range" in out
    code, out, _ = run(["optimize", "agent.ttft_s", "--data", str(DATA), "--workers", "1"], capsys)
    assert code == 0 and "does not read agent.ttft_s" in out
    o = D.optimize(base, "contract.term_months", metric="payback", workers=1)
    assert o.value == int(o.value) and not o.refined
    args = ["optimize", "tiers.ultrafast.adoption", "--metric", "payback", "--scenario", "bear"]
    code, out, _ = run([*args, "--data", str(DATA), "--workers", "1"], capsys)
    assert code == 0 and "No value in this range pays back within the horizon." in out


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
