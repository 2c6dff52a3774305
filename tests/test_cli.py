"""The command line: exit codes, JSON, report files, safety of outputs."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import openpyxl
import pytest
from conftest import DATA, ROOT
from xlsx_names import named_cell

from econ.cli import build_parser, main

SHEETS = [
    "Cover",
    "Contents",
    "Assumptions",
    "Tables",
    "Capacity",
    "Market",
    "Costs",
    "Revenue",
    "Payback",
    "Annual",
    "Tornado",
    "Grid",
    "Monte Carlo",
    "MC samples",
    "Sobol",
    "Break-even",
    "Checks",
    "Run",
    "Run tables",
]
FAST = ["--samples", "500", "--sobol-samples", "64"]


def run(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_validate_reports_files_and_rows(capsys):
    code, out, _ = run(["validate", "--data", str(DATA)], capsys)
    assert code == 0
    assert "frontier.csv" in out and "17 rows" in out and out.strip().endswith("OK")


def test_bad_data_exits_2_with_the_message_and_no_traceback(data_copy, capsys):
    p = data_copy / "plans.csv"
    p.write_text(p.read_text().replace("pro,200,", "pro,abc,"))
    code, out, err = run(["validate", "--data", str(data_copy)], capsys)
    assert code == 2
    assert 'plans.csv row 3 (pro), column price_usd_month: "abc" is not a number' in err
    assert "Traceback" not in err


def test_unknown_set_key_exits_2_naming_the_nearest(capsys):
    code, _, err = run(
        ["summary", "--data", str(DATA), "--set", "tiers.ultrafst.adoption=0.1"], capsys
    )
    assert code == 2 and "did you mean tiers.ultrafast.adoption" in err


def test_set_without_equals_is_explained(capsys):
    code, _, err = run(["summary", "--data", str(DATA), "--set", "contract.value_usd"], capsys)
    assert code == 2 and "expected KEY=VALUE" in err


def test_summary_json_carries_the_headline_and_every_assumption(capsys):
    code, out, _ = run(["summary", "--json", "--data", str(DATA)], capsys)
    assert code == 0
    h = json.loads(out)
    assert h["scenario"] == "base"
    assert h["assumptions"]["contract.value_usd"] == 10e9
    assert h["assumptions"]["frontier.wse3_750.platform"] == "wse3"
    # GPT-5.6 Inference at 18x Speed: about 1.6 million Pro users, 0.16 % of 1 billion
    assert h["simple_breakeven_pro_users"] == pytest.approx(1_666_666.67, abs=0.01)
    assert h["simple_breakeven_share_of_mau"] == pytest.approx(0.0016667, abs=1e-7)
    for key in (
        "payback_months",
        "discounted_payback_months",
        "npv_usd",
        "irr_annual",
        "shortfall_usd",
        "cumulative_cash_at_term_usd",
        "npv_without_terminal_value_usd",
        "terminal_value_usd",
        "npv_at_term_usd",
        "profitability_index",
        "realised_cost_per_mtok_usd",
        "lessor_yield_annual",
        "rent_vs_buy",
        "totals",
        "monthly",
    ):
        assert key in h, key
    assert h["npv_usd"] == pytest.approx(
        h["npv_without_terminal_value_usd"] + h["terminal_value_usd"] * 1.1**-5, rel=1e-12
    )
    assert set(h["totals"]) >= {"rent_usd", "backfill_usd", "gpu_savings_usd"}
    assert set(h["rent_vs_buy"]) >= {
        "rent_npv_usd",
        "buy_npv_usd",
        "rent_usd_per_mw_month",
        "breakeven_system_price_usd",
        "lessor_yield_annual",
    }
    m = h["monthly"]
    assert m["month"] == list(range(1, 61))
    for key in (
        "rent_usd",
        "subscription_revenue_usd",
        "api_revenue_usd",
        "revenue_usd",
        "net_cash_flow_usd",
        "cumulative_cash_usd",
        "pro_subscribers",
        "pro_subscribers_counterfactual",
        "incremental_pro_subscribers",
        "plus_cap_hit_share",
        "plus_cap_hit_share_counterfactual",
        "ultrafast_adoption",
        "capacity_utilization",
        "api_tokens_wanted",
        "api_tokens_served",
        "backfill_tokens",
        "backfill_usd",
        "tokens_served",
        "subscriber_streams_peak",
        "api_streams_peak",
        "utilization",
        "gpu_savings_usd",
        "tokens_moved_off_gpus",
        "tokens_added_to_gpus",
    ):
        assert len(m[key]) == 60, key
    assert sum(m["rent_usd"]) == pytest.approx(10e9) and m["rent_usd"][30] == 0
    assert m["utilization"][35] is None  # no MW online after the term: blank, not 0
    assert h["cumulative_cash_at_term_usd"] == pytest.approx(m["cumulative_cash_usd"][29])


def test_summary_text_explains_the_headline(capsys):
    code, out, _ = run(["summary", "--data", str(DATA)], capsys)
    assert code == 0
    out = " ".join(out.split())  # the text is wrapped to the terminal; read it as prose
    # 10e9 USD / (200 USD x 30 months) Pro users pay the contract
    assert "NPV at 10.0%" in out and "1.67M Pro users (0.17% of MAU)" in out
    # the wafer's ceiling for the served model by hand (tests/test_decisions.py): 1,866.5
    assert "Physics: 750 tokens/s on wse3 is within the ceiling (1,867)" in out
    assert "the rent and the hardware price cannot both be right" in out
    # version 3: the served model, the API market, the no-deal world, the MW by use and the
    # size at the contract's rate (10e9 / (750 x 30) = 444,444 USD per MW-month)
    assert "Served model on the transferred basis: standard 54 and fast 134 tokens/s on b300" in out
    assert "ultrafast 750 tokens/s on wse3 (ceiling 1,867)" in out
    # M = 5e11 + (5e12 + 5e11) / 0.5 = 11.5e12 tokens; 5e11 / 11.5e12 = 4.3%; each ultrafast
    # token replaces 0.5 x 5e12 / 5.5e12 = 0.4545 standard and 0.04545 fast tokens
    assert (
        "ultrafast takes 4.3% of 11.50T tokens a month; each ultrafast token replaces 0.4545 "
        "standard and 0.04545 fast tokens" in out
    )
    assert "No-deal world: the Pro stock grows 0.0% a month at first (calibrated" in out
    assert "At the contract's rate ($444.4k per MW-month) the NPV is highest at" in out
    shares = re.search(
        r"API ([\d.]+)%, subscriber streams ([\d.]+)%, peak-shaped backfill ([\d.]+)%, "
        r"flexible backfill ([\d.]+)%, idle ([\d.]+)%",
        out,
    )
    assert shares and abs(sum(float(x) for x in shares.groups()) - 100) <= 0.5  # rounded


def test_summary_text_on_payback(capsys):
    """Each payback reading in words, the economic one (counting the GPU cost avoided) and the
    one on cash alone side by side: not paying back, never negative, paying back after the
    term."""
    code, out, _ = run(["summary", "--data", str(DATA)], capsys)
    assert code == 0 and out.splitlines()[1] == ""  # a paragraph of its own
    prose = " ".join(out.split())
    assert out.splitlines()[2].startswith("Worth doing on its terms: no.")
    assert (
        "Payback counting the GPU cost avoided (economic): never within 60 months; on cash "
        "alone (revenue less rent): never within 60 months (rent paid as the MW are delivered)"
    ) in prose
    import numpy as np

    import econ
    from econ.model import evaluate

    # a contract cheap enough that the net flow is never negative: pay-as-delivered rent
    # scales with the value, so NPV falls linearly in it and turns positive below about $3B
    values = np.linspace(0.5e9, 3e9, 11)
    res = evaluate(econ.load(DATA), {"contract.value_usd": values})
    never = values[res.payback_months == 0]
    assert never.size and (res.npv[res.payback_months == 0] > 0).all()
    sets = ["--set", f"contract.value_usd={float(never[0])!r}"]
    code, out, _ = run(["summary", "--data", str(DATA), *sets], capsys)
    prose = " ".join(out.split())
    assert code == 0 and "Worth doing on its terms: yes" in prose
    assert "Payback counting the GPU cost avoided (economic): never negative;" in prose
    # a smaller contract dear enough to pay back only after the 30-month term
    small = econ.load(DATA).with_overrides([("contract.mw", 50)])
    values = np.linspace(1e9, 3e9, 41)
    payback = evaluate(small, {"contract.value_usd": values}).payback_months
    late = values[(payback > 30) & np.isfinite(payback)]
    assert late.size
    sets = ["--set", "contract.mw=50", "--set", f"contract.value_usd={float(late[0])!r}"]
    code, out, _ = run(["summary", "--data", str(DATA), *sets], capsys)
    prose = " ".join(out.split())
    assert code == 0 and re.search(
        r"Payback counting the GPU cost avoided \(economic\): month \d+\.\d \(after the term\)",
        prose,
    )


def test_summary_says_when_capacity_limits_revenue(capsys):
    code, out, _ = run(["summary", "--data", str(DATA), "--set", "contract.mw=10"], capsys)
    assert code == 0 and "Capacity, not demand, limits revenue" in out


def test_scenario_and_set_reach_the_json(capsys):
    code, out, _ = run(
        [
            "summary",
            "--json",
            "--data",
            str(DATA),
            "--scenario",
            "low_throughput",
            "--set",
            "contract.value_usd=9e9",
        ],
        capsys,
    )
    h = json.loads(out)
    assert h["scenario"] == "low_throughput"
    assert h["assumptions"]["hardware.wse3.frontier_scale"] == 0.1
    assert h["assumptions"]["contract.value_usd"] == 9e9


def test_capacity_speeds_and_json(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")  # wide enough to keep every column of the text table
    code, out, _ = run(["capacity", "--json", "--speeds", "340", "--data", str(DATA)], capsys)
    res = json.loads(out)
    rows = res["capacity"]
    b300 = next(r for r in rows if r["platform"] == "b300" and r["tokens_per_s_per_user"] == 340)
    assert b300["concurrent_users_per_mw"] == pytest.approx(
        1323.5, abs=0.05
    )  # the articles' figure
    for col in (
        "ceiling_tokens_per_s",
        "physics_tokens_per_s_per_mw",
        "physics_stages",
        "physics_speed",
        "data_over_physics",
        "verdict",
    ):
        assert col in b300
    h100 = next(r for r in rows if r["platform"] == "h100" and r["tier"] == "ultrafast")
    assert h100["tokens_per_s_per_mw"] is None
    assert {r["point"] for r in res["frontier_audit"]} >= {"wse3_750", "b300_340"}
    assert all(r["within_tolerance"] for r in res["calibration"])
    code, out, _ = run(["capacity", "--speeds", "340", "--data", str(DATA)], capsys)
    assert code == 0 and "1,324" in out and "nan" not in out.lower() and " inf" not in out


def test_capacity_refuses_a_speed_that_is_not_one(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["capacity", "--speeds", "340,fast", "--data", str(DATA)])
    assert exc.value.code == 2
    assert "'fast' is not a speed" in capsys.readouterr().err


def test_goal_seek_command(capsys):
    code, out, _ = run(
        ["goal-seek", "contract.value_usd", "--data", str(DATA), "--json", "--low", "1e9"], capsys
    )
    res = json.loads(out)
    # pay-as-delivered rent scales with the value: NPV is linear in it, zero near $3B
    assert code == 0 and 2e9 < res["value"] < 4e9 and res["bracket"] == [1e9, 11e9]
    code, out, _ = run(["goal-seek", "agent.ttft_s", "--data", str(DATA)], capsys)
    assert code == 1 and "No answer: NPV does not depend on agent.ttft_s" in out
    code, out, _ = run(["goal-seek", "finance.discount_rate_annual", "--data", str(DATA)], capsys)
    prose = " ".join(out.split())
    assert code == 1 and "no value of finance.discount_rate_annual from 6.0% to 15.0%" in prose
    code, out, _ = run(
        [
            "goal-seek",
            "tiers.ultrafast.tokens_per_s",
            "--low",
            "340",
            "--high",
            "1500",
            "--data",
            str(DATA),
        ],
        capsys,
    )
    assert code == 1 and out.startswith("No answer: no value of tiers.ultrafast.tokens_per_s")


def test_sensitivity_commands(capsys, tmp_path):
    code, out, _ = run(["sensitivity", "tornado", "--data", str(DATA), "--json"], capsys)
    rows = json.loads(out)
    assert code == 0 and rows[0]["output"] == "npv_usd" and rows[0]["swing"] >= rows[-1]["swing"]
    target = tmp_path / "mc.csv"
    code, out, _ = run(
        [
            "sensitivity",
            "montecarlo",
            "--samples",
            "400",
            "--seed",
            "1",
            "--data",
            str(DATA),
            "--csv",
            str(target),
        ],
        capsys,
    )
    assert code == 0 and "P(payback <= term)" in target.read_text()


def test_montecarlo_json_carries_the_value_of_information_and_the_samples(capsys, tmp_path):
    samples = tmp_path / "samples.csv"
    argv = ["sensitivity", "montecarlo", "--samples", "600", "--seed", "2", "--data", str(DATA)]
    code, out, _ = run([*argv, "--json", "--samples-csv", str(samples)], capsys)
    assert code == 0
    doc = json.loads(out)
    assert doc["evpi_usd"] > 0 and "api.ultrafast_tokens_per_month" in doc["evppi_usd"]
    assert len(doc["payback_by_month"]) == 60 and len(doc["cumulative_cash_fan"]) == 60
    assert not any(
        r["output"] == "irr_annual" and r["statistic"] == "mean" for r in doc["statistics"]
    )
    import pandas as pd

    rows = pd.read_csv(samples)
    assert len(rows) == 600
    assert {
        "npv_usd",
        "payback_months",
        "irr_annual",
        "conversion.capped_share_of_upgrades",
    } <= set(rows)
    # version 3 varies the physics the transferred basis reads (issue 16, item 7)
    physics = {
        "hardware.wse3.layer_latency_us",
        "hardware.wse3.hop_latency_us",
        "hardware.wse3.efficiency",
        "model.speculative_speedup",
        "model.active_param_share",
    }
    assert physics <= set(rows) and physics <= set(doc["evppi_usd"])
    assert all(rows[k].nunique() > 500 for k in physics)
    # any statistic can be checked from the samples: P(NPV > 0)
    p = next(r["value"] for r in doc["statistics"] if r["statistic"] == "P(NPV > 0)")
    assert p == pytest.approx((rows["npv_usd"] > 0).mean(), abs=1e-12)


def test_report_writes_the_workbook_with_every_sheet(tmp_path, capsys):
    code, out, _ = run(["report", "--data", str(DATA), "--out", str(tmp_path), *FAST], capsys)
    path = tmp_path / "base" / "payback_analysis.xlsx"
    assert code == 0 and path.exists() and (tmp_path / "base" / "summary.md").exists()
    wb = openpyxl.load_workbook(path)
    assert wb.sheetnames == SHEETS
    assert [p.name for p in (tmp_path / "base").iterdir() if p.name.endswith(".tmp")] == []


def test_report_per_scenario_folder(tmp_path, capsys):
    code, _, _ = run(
        [
            "report",
            "--data",
            str(DATA),
            "--scenario",
            "efficient_tokens",
            "--out",
            str(tmp_path),
            "--no-sensitivity",
        ],
        capsys,
    )
    assert code == 0 and (tmp_path / "efficient_tokens" / "payback_analysis.xlsx").exists()


def test_formula_like_note_lands_as_text(data_copy, tmp_path, capsys):
    p = data_copy / "assumptions.csv"
    p.write_text(
        p.read_text().replace(
            "agent.ttft_s,0.5,s,Guesstimate: time to first token per call,",
            'agent.ttft_s,0.5,s,Guesstimate: time to first token per call,"=HYPERLINK(""http://example.com"",""x"")"',
        )
    )
    code, _, _ = run(
        ["report", "--data", str(data_copy), "--out", str(tmp_path), "--no-sensitivity"], capsys
    )
    assert code == 0
    wb = openpyxl.load_workbook(tmp_path / "base" / "payback_analysis.xlsx")
    value = named_cell(wb, "agent_ttft_s")
    cell = next(
        c for c in value.parent[value.row] if c.value == '=HYPERLINK("http://example.com","x")'
    )
    assert cell.data_type == "s"  # a string, not a formula


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_edited_workbook_is_not_overwritten_without_force(tmp_path, capsys):
    args = ["report", "--data", str(DATA), "--out", str(tmp_path), "--no-sensitivity"]
    assert run(args, capsys)[0] == 0
    path = tmp_path / "base" / "payback_analysis.xlsx"
    assert run(args, capsys)[0] == 0  # unchanged since econ wrote it: replaced
    wb = openpyxl.load_workbook(path)
    wb["Assumptions"]["B2"] = 12e9  # the user edits an input and saves
    wb.save(path)
    edited = path.read_bytes()
    code, _, err = run(args, capsys)
    assert code == 2 and "changed after econ wrote it" in err and "--force" in err
    assert path.read_bytes() == edited
    assert run([*args, "--force"], capsys)[0] == 0
    assert path.read_bytes() != edited


def test_open_workbook_is_refused(tmp_path, capsys):
    args = ["report", "--data", str(DATA), "--out", str(tmp_path), "--no-sensitivity"]
    assert run(args, capsys)[0] == 0
    (tmp_path / "base" / ".~lock.payback_analysis.xlsx#").write_text("someone")
    code, _, err = run(args, capsys)
    assert code == 2 and "open in a spreadsheet application" in err


def test_read_only_output_folder_exits_2(tmp_path, capsys, monkeypatch):
    out = tmp_path / "ro"
    (out / "base").mkdir(parents=True)
    real_access = os.access

    def access(path, mode):  # what a read-only folder answers (root would be let through)
        if Path(path) == out / "base" and mode & os.W_OK:
            return False
        return real_access(path, mode)

    monkeypatch.setattr(os, "access", access)
    code, _, err = run(
        ["report", "--data", str(DATA), "--out", str(out), "--no-sensitivity"], capsys
    )
    assert code == 2 and f"{out / 'base'}: the output folder is read-only" in err
    assert list((out / "base").iterdir()) == []


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_locked_workbook_exits_2_and_keeps_the_old_file(tmp_path, capsys, monkeypatch):
    args = ["report", "--data", str(DATA), "--out", str(tmp_path), "--no-sensitivity"]
    assert run(args, capsys)[0] == 0
    path = tmp_path / "base" / "payback_analysis.xlsx"
    before = path.read_bytes()

    def locked(src, dst):  # what Windows does while Excel holds the file open
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", locked)
    code, _, err = run(args, capsys)
    assert code == 2 and "cannot replace the file" in err
    assert path.read_bytes() == before
    assert not [p.name for p in path.parent.iterdir() if ".tmp" in p.name]


def test_unwritable_output_exits_2_and_leaves_nothing(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    code, _, err = run(
        ["report", "--data", str(DATA), "--out", str(blocker), "--no-sensitivity"], capsys
    )
    assert code == 2 and "cannot create the output folder" in err


def test_init_writes_an_editable_copy(tmp_path, capsys):
    dest = tmp_path / "mydata"
    code, out, _ = run(["init", str(dest)], capsys)
    assert (
        code == 0
        and (dest / "assumptions.csv").exists()
        and (dest / "scenarios" / "low_throughput.csv").exists()
    )
    assert run(["validate", "--data", str(dest)], capsys)[0] == 0
    code, _, err = run(["init", str(dest)], capsys)
    assert code == 2 and "already has files" in err


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_bundled_defaults_used_outside_a_data_folder(tmp_path):
    """Outside a data folder econ uses the bundled data and says so on stderr once per shell
    session (every time with --verbose); its summary says so in its first line anyway."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    econ_ = f"{shlex.quote(sys.executable)} -m econ"
    script = (
        f"{econ_} summary --json > first.json; {econ_} validate > /dev/null; "
        f"{econ_} keys contract.mw --verbose > /dev/null"
    )
    res = subprocess.run(
        ["sh", "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        start_new_session=True,  # a session of its own, as a new shell
    )
    assert res.returncode == 0, res.stderr
    note = "econ: no ./data here; using the bundled default data"
    assert res.stderr.count(note) == 2, res.stderr  # the first run, and --verbose
    assert res.stderr.startswith(note)
    assert json.loads((tmp_path / "first.json").read_text())["bundled_data"] is True


def test_python_m_econ_exit_status_on_bad_input(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    res = subprocess.run(
        [sys.executable, "-m", "econ", "validate", "--data", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert res.returncode == 2 and "no assumptions.csv here" in res.stderr


def test_readme_names_only_commands_that_exist():
    text = (ROOT / "README.md").read_text()
    parser = build_parser()
    commands = set(parser._subparsers._group_actions[0].choices)
    named = set(re.findall(r"`econ ([a-z-]+)", text)) | set(
        re.findall(r"^econ ([a-z-]+)", text, flags=re.M)
    )
    assert named and named <= commands, named - commands
    assert commands <= named, f"commands the README does not mention: {commands - named}"
    assert Path(ROOT / ".ci" / "run").exists()


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_the_readme_examples_run(tmp_path, capsys, monkeypatch):
    """Every line of the README's Examples block runs and exits 0 (the Monte Carlo with
    fewer samples, to keep the test fast)."""
    text = (ROOT / "README.md").read_text()
    block = text.split("Examples:", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    lines = [ln.strip() for ln in block.strip().splitlines()]
    assert len(lines) >= 5
    monkeypatch.chdir(tmp_path)
    for line in lines:
        argv = shlex.split(line)[1:] + ["--data", str(DATA)]
        if argv[0] == "report":
            argv += ["--no-sensitivity", "--out", str(tmp_path / "reports")]
        argv = [
            "2000" if prev == "--samples" else x
            for prev, x in zip(["", *argv[:-1]], argv, strict=True)
        ]
        code, out, err = run(argv, capsys)
        # 1: a goal seek with no answer, which says so (README, "Commands")
        assert code == 0 or (code == 1 and out.startswith("No answer: ")), (line, err)


def test_data_without_sensitivity_files_still_reports(data_copy, tmp_path, capsys):
    for name in ("sensitivity.csv", "correlations.csv", "grids.csv"):
        (data_copy / name).unlink()
    code, _, _ = run(["report", "--data", str(data_copy), "--out", str(tmp_path)], capsys)
    assert code == 0
    wb = openpyxl.load_workbook(tmp_path / "base" / "payback_analysis.xlsx")
    analysis = {"Tornado", "Grid", "Monte Carlo", "MC samples", "Sobol", "Break-even"}
    assert wb.sheetnames == [s for s in SHEETS if s not in analysis]
    code, _, err = run(["sensitivity", "breakeven", "--data", str(data_copy)], capsys)
    assert code == 2 and "sensitivity.csv: no uncertain inputs" in err


def test_keys_lists_every_key_with_its_ranges_and_source(capsys):
    from econ.cli import main

    assert main(["keys", "plans.pro.price_usd", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["key"] for r in rows] == ["plans.pro.price_usd_month"]
    r = rows[0]
    assert (r["unit"], r["valid_low"], r["valid_high"]) == ("USD/month", 0.0, 100000.0)
    assert r["distribution"] and r["sensitivity_low"] < r["value"] < r["sensitivity_high"]
    assert r["guess"] is False and r["source"]
    assert main(["keys", "contract.ramp_months", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["guess"] is True  # a Guesstimate
    assert main(["keys"]) == 0
    out = capsys.readouterr().out
    assert "contract.value_usd" in out and "horizon.months" in out


def test_keys_lists_the_optional_keys_left_blank_in_their_place(capsys, monkeypatch):
    from econ.cli import main

    monkeypatch.setenv("COLUMNS", "250")  # wide enough that no key wraps after its dot
    assert main(["keys", "contract.*", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    keys = [r["key"] for r in rows]
    assert keys.index("contract.ramp_months") + 1 == keys.index("contract.tranche_mw")
    assert keys.index("contract.tranche_mw") + 1 == keys.index("contract.tranche_months")
    blank = {r["key"]: r for r in rows if r["value"] is None}
    assert set(blank) == {"contract.tranche_mw", "contract.tranche_months"}
    assert blank["contract.tranche_mw"]["unit"] == "MW" and blank["contract.tranche_mw"]["source"]
    assert main(["keys", "tranche"]) == 0
    out = capsys.readouterr().out
    assert "contract.tranche_months" in out and "(blank)" in out
    assert main(["keys", "gpu_cost_per_mtok"]) == 0  # a blank that means "derived"
    assert "capacity.gpu_cost_per_mtok_usd" in capsys.readouterr().out


def test_a_mistyped_command_or_analysis_gets_a_did_you_mean(capsys):
    from econ.cli import main

    for argv, hint in (
        (["sumary"], "did you mean summary?"),
        (["sensitivity", "montecarl"], "did you mean montecarlo?"),
    ):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        assert hint in capsys.readouterr().err
