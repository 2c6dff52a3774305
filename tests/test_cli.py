"""The command line: exit codes, JSON, report files, safety of outputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import openpyxl
import pytest
from conftest import DATA, ROOT

from econ.cli import main

SHEETS = [
    "Cover",
    "Assumptions",
    "Capacity",
    "Costs",
    "Revenue",
    "Payback",
    "Tornado",
    "Grid",
    "Monte Carlo",
    "Sobol",
    "Break-even",
    "Checks",
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
    assert h["simple_breakeven_pro_users"] == pytest.approx(1_666_666.67, abs=0.01)
    assert h["simple_breakeven_share_of_mau"] == pytest.approx(0.0016667, abs=1e-7)
    assert (
        h["payback_months"] is None and h["shortfall_usd"] > 0
    )  # the default case does not pay back in 36 months
    for key in ("discounted_payback_months", "npv_usd", "irr_annual", "rent_vs_buy", "monthly"):
        assert key in h
    assert set(h["rent_vs_buy"]) >= {
        "rent_npv_usd",
        "buy_npv_usd",
        "rent_usd_per_mw_month",
        "buy_usd_per_mw_month",
        "breakeven_system_price_usd",
    }
    m = h["monthly"]
    assert m["month"] == list(range(1, 37))
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
    ):
        assert len(m[key]) == 36, key
    assert m["rent_usd"][0] == pytest.approx(10e9 / 30) and m["rent_usd"][30] == 0
    assert m["capacity_utilization"][35] is None
    assert h["cumulative_cash_at_term_usd"] == pytest.approx(m["cumulative_cash_usd"][29])


def test_summary_text_explains_the_headline(capsys):
    code, out, _ = run(
        ["summary", "--data", str(DATA), "--set", "conversion.capped_upgrade_propensity=0.04"],
        capsys,
    )
    assert code == 0
    assert "Pays back in month" in out and "NPV at 10%" in out and "1,666,667 Pro users" in out


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
    assert h["assumptions"]["frontier.wse3_750.tokens_per_s_per_mw"] == 45_000
    assert h["assumptions"]["contract.value_usd"] == 9e9


def test_capacity_json_rows(capsys):
    code, out, _ = run(["capacity", "--json", "--data", str(DATA)], capsys)
    rows = json.loads(out)
    b300 = next(r for r in rows if r["platform"] == "b300" and r["tier"] == "ultrafast")
    assert set(b300) == {
        "platform",
        "tier",
        "tokens_per_s_per_user",
        "tokens_per_s_per_mw",
        "concurrent_users_per_mw",
        "chips_per_replica",
        "decode_ceiling_tokens_per_s",
        "cost_per_mtok_rent_usd",
        "cost_per_mtok_buy_usd",
    }
    h100 = next(r for r in rows if r["platform"] == "h100" and r["tier"] == "ultrafast")
    assert h100["tokens_per_s_per_mw"] is None


def test_goal_seek_command(capsys):
    code, out, _ = run(["goal-seek", "contract.value_usd", "--data", str(DATA), "--json"], capsys)
    res = json.loads(out)
    assert code == 0 and 9e9 < res["value"] < 1e10 and res["bracket"] == [9e9, 11e9]
    code, out, _ = run(["goal-seek", "buy.pue", "--data", str(DATA)], capsys)
    assert "NPV does not depend on buy.pue" in out
    code, out, _ = run(["goal-seek", "finance.discount_rate_annual", "--data", str(DATA)], capsys)
    assert code == 0 and "no value of finance.discount_rate_annual in [0.06, 0.15]" in out


def test_sensitivity_commands(capsys, tmp_path):
    code, out, _ = run(["sensitivity", "tornado", "--data", str(DATA), "--json"], capsys)
    rows = json.loads(out)
    assert code == 0 and rows[0]["output"] == "npv" and rows[0]["swing"] >= rows[-1]["swing"]
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
    ws = openpyxl.load_workbook(tmp_path / "base" / "payback_analysis.xlsx")["Assumptions"]
    cell = next(r[4] for r in ws.iter_rows(min_row=2) if r[0].value == "agent.ttft_s")
    assert cell.value == '=HYPERLINK("http://example.com","x")'
    assert cell.data_type == "s"  # a string, not a formula


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


def test_bundled_defaults_used_outside_a_data_folder(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    res = subprocess.run(
        [sys.executable, "-m", "econ", "summary", "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    assert res.returncode == 0, res.stderr
    assert "using the bundled default data" in res.stderr
    assert json.loads(res.stdout)["bundled_data"] is True


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
    for cmd in (
        "econ report",
        "econ summary",
        "econ validate",
        "econ init",
        "econ capacity",
        "econ goal-seek",
        "econ sensitivity",
    ):
        assert cmd in text, cmd
    assert Path(ROOT / ".ci" / "run").exists()


def test_data_without_sensitivity_files_still_reports(data_copy, tmp_path, capsys):
    for name in ("sensitivity.csv", "correlations.csv", "grids.csv"):
        (data_copy / name).unlink()
    code, _, _ = run(["report", "--data", str(data_copy), "--out", str(tmp_path)], capsys)
    assert code == 0
    wb = openpyxl.load_workbook(tmp_path / "base" / "payback_analysis.xlsx")
    analysis = {"Tornado", "Grid", "Monte Carlo", "Sobol", "Break-even"}
    assert wb.sheetnames == [s for s in SHEETS if s not in analysis]
    code, _, err = run(["sensitivity", "breakeven", "--data", str(data_copy)], capsys)
    assert code == 2 and "sensitivity.csv: no uncertain inputs" in err
