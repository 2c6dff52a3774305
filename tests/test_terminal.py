"""What the command line shows a person: figures formatted by unit, tables that fit the
terminal, the keys of no effect left out unless --all, results on stdout and notes on
stderr, progress bars only on a terminal, and Ctrl-C / SIGTERM ending in one line with no
worker left and nothing half-written."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from conftest import DATA

import econ
from econ.cli import build_parser, main
from econ.report import terminal as t

ECON = str(Path(econ.__file__).resolve().parents[1])


def run(args, capsys, width: int | None = None, monkeypatch=None):
    if width is not None:
        monkeypatch.setenv("COLUMNS", str(width))
    code = main([*args, "--data", str(DATA)])
    out = capsys.readouterr()
    return code, out.out, out.err


def env(**extra) -> dict:
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [ECON, os.environ.get("PYTHONPATH")])),
        **extra,
    }


# ---------------------------------------------------------------------------
# one figure as text (hand-worked)


@pytest.mark.parametrize(
    "x, text",
    [
        (1.234e9, "$1.23B"),
        (456.74e6, "$456.7M"),
        (-2.1e6, "-$2.1M"),
        (12_345.0, "$12.3k"),
        (0.534, "$0.53"),
        (999.996e6, "$1.00B"),  # rounds up into the next unit, never "$1,000.0M"
        (float("nan"), "-"),
    ],
)
def test_money(x, text):
    assert t.money(x) == text


def test_units_by_name_ending_cover_a_field_not_listed_anywhere():
    assert t.fmt(2.5e9, t.kind_of("some_new_field_usd")) == "$2.50B"
    assert t.fmt(0.123, t.kind_of("new_field_share")) == "12.3%"
    assert t.fmt(14.25, t.kind_of("new_lag_months")) == "14.2"
    assert t.fmt(1500.0, t.kind_of("new_tokens_per_s")) == "1,500"
    assert t.fmt(0.1, t.kind_of("contract.growth_annual")) == "10.0%"
    assert t.key_kind("contract.value_usd") == "money"  # the rule's unit decides for a key
    assert t.key_kind("tiers.fast.adoption") == "share"


def test_one_unit_per_sentence():
    m = t.usd_mark
    text = t.one_unit(
        f"NPV {m(433.85e6)}, of which {m(216.52e6)}; over the term alone {m(-1.3e9)}. "
        f"Rent {m(8.55e9)} ({m(720.72e3, 'per MW-month')}), buying {m(64.31e9)} "
        f"({m(5.42e6, 'per MW-month')})."
    )
    assert text == (
        "NPV $0.43B, of which $0.22B; over the term alone -$1.30B. "
        "Rent $8.55B ($0.72M), buying $64.31B ($5.42M)."
    )
    # a small amount beside a large one: the sentence steps down a unit rather than print $0.00B
    assert t.one_unit(f"A {m(10e9)} and {m(4.5e6)}.") == "A $10,000.0M and $4.5M."


def test_a_table_never_cuts_a_figure_and_drops_the_less_telling_columns():
    df = pd.DataFrame(
        {"name": ["a long key name here", "b"], "npv_usd": [1.2e9, -3.25e6], "x": [0.5, 0.25]}
    )
    cols = [t.Column("name", kind="text"), t.Column("npv_usd", "NPV"), t.Column("x", priority=1)]
    wide, dropped = t.table(df, cols, w=60)
    assert dropped == [] and "$1.20B" in wide and "-$3.2M" in wide and "0.25" in wide
    narrow, dropped = t.table(df, cols, w=27)
    assert dropped == ["x"] and "$1.20B" in narrow and "-$3.2M" in narrow
    assert max(len(line) for line in narrow.splitlines()) <= 27
    tiny, _ = t.table(df, cols, w=12)  # too narrow for any table: one figure a line, whole
    assert "NPV: $1.20B" in tiny and "NPV: -$3.2M" in tiny


# ---------------------------------------------------------------------------
# the commands' tables


SCIENTIFIC = re.compile(r"\d[eE][+-]?\d")


def _check_fits(out: str, width: int) -> None:
    lines = out.splitlines()
    assert lines and max(len(line) for line in lines) <= width, max(lines, key=len)
    assert not SCIENTIFIC.search(out), SCIENTIFIC.search(out)
    assert not re.search(r"(?<![\w.])-?(nan|inf)(?![\w])", out, re.IGNORECASE), out


@pytest.mark.parametrize("width", [60, 100])
@pytest.mark.parametrize(
    "args",
    [
        ["summary"],
        ["capacity"],
        ["sensitivity", "tornado"],
        ["sensitivity", "breakeven"],
        ["sensitivity", "grid"],
        ["sensitivity", "montecarlo", "--samples", "2000"],
        ["sensitivity", "sobol", "--samples", "64"],
        ["goal-seek", "tiers.ultrafast.adoption"],
        ["platforms", "--workers", "1"],
        ["sweep", "contract.mw", "--points", "5", "--workers", "1"],
        ["optimize", "contract.mw", "--workers", "1"],
    ],
    ids=lambda a: " ".join(a) if isinstance(a, list) else str(a),
)
def test_every_table_fits_the_width_in_units_never_in_scientific_notation(
    args, width, capsys, monkeypatch
):
    code, out, err = run(args, capsys, width, monkeypatch)
    assert code == 0, err
    _check_fits(out, width)
    assert "econ: wrote" not in out


def test_compare_fits_and_says_what_it_wrote_on_stderr(tmp_path, capsys, monkeypatch):
    args = ["compare", "base", "bear", "bull", "--out", str(tmp_path), "--workers", "1"]
    code, out, err = run(args, capsys, 80, monkeypatch)
    assert code == 0, err
    _check_fits(out, 80)
    assert "econ: wrote" in err and "econ: wrote" not in out
    assert "column(s) left out to fit 80 characters" in err  # 17 columns do not fit in 80


def test_the_tornado_shows_the_json_s_figures_formatted(capsys, monkeypatch):
    _, out, _ = run(["sensitivity", "tornado", "--json"], capsys)
    rows = json.loads(out)
    top = rows[0]  # the largest swing
    _, out, err = run(["sensitivity", "tornado"], capsys, 120, monkeypatch)
    line = next(x for x in out.splitlines() if x.startswith(top["variable"] + " "))
    for figure in ("output_low", "output_high", "swing"):
        assert t.money(top[figure]) in line
    zero = [r["variable"] for r in rows if r["swing"] == 0]
    assert zero, "the bundled data have keys of no effect on NPV"
    assert not any(x.startswith(zero[0] + " ") for x in out.splitlines())
    assert f"{len(zero)} key(s) with no effect on npv_usd not shown (--all shows them)" in err
    _, out, _ = run(["sensitivity", "tornado", "--all"], capsys, 120, monkeypatch)
    assert any(x.startswith(zero[0] + " ") for x in out.splitlines())


def test_sobol_and_breakeven_leave_out_the_keys_not_read_unless_all(capsys, monkeypatch):
    _, out, _ = run(["sensitivity", "sobol", "--samples", "32", "--json"], capsys)
    unread = [r["variable"] for r in json.loads(out) if r["ST"] == 0 and r["S1"] == 0]
    assert unread
    _, out, err = run(["sensitivity", "sobol", "--samples", "32"], capsys, 120, monkeypatch)
    assert unread[0] not in out and f"{len(unread)} key(s) not read" in err
    _, out, _ = run(["sensitivity", "sobol", "--samples", "32", "--all"], capsys, 120, monkeypatch)
    assert unread[0] in out
    _, out, err = run(["sensitivity", "breakeven"], capsys, 120, monkeypatch)
    assert "agent.ttft_s" not in out and "the payback model does not read" in err


def test_summary_wraps_and_keeps_one_unit_per_sentence(capsys, monkeypatch):
    code, out, _ = run(["summary"], capsys, 72, monkeypatch)
    assert code == 0
    _check_fits(out, 72)
    prose = " ".join(out.split())
    # the bundled NPV is $433.85M and its term-only part -$1.30B: one sentence, one unit
    npv = re.search(r"NPV at \d+%: (.*?)\. Profitability", prose)[1]
    assert set(re.findall(r"\$[\d,.]+([BMk])", npv)) == {"B"}, npv
    behind = re.search(r"Behind it: (.*?) per million tokens served", prose)[1]
    assert set(re.findall(r"\$[\d,.]+([BMk])\b", behind)) == {"B"}, behind


# ---------------------------------------------------------------------------
# machine outputs, help, stdout and stderr


def test_csv_outputs_are_complete_unformatted_and_name_their_units(tmp_path, capsys):
    path = tmp_path / "tornado.csv"
    code, out, err = run(["sensitivity", "tornado", "--csv", str(path)], capsys)
    assert code == 0 and out == "" and f"econ: wrote {path}" in err
    df = pd.read_csv(path)
    _, js, _ = run(["sensitivity", "tornado", "--json"], capsys)
    assert len(df) == len(json.loads(js))  # every row, the keys of no effect included
    assert df["swing"].dtype.kind == "f"  # numbers, not text
    units = pd.read_csv(tmp_path / "tornado.units.csv", index_col="column", keep_default_na=False)
    assert list(units.index) == list(df.columns)
    assert units.loc["swing", "unit_column"] == "output_unit"
    assert units.loc["low", "unit_column"] == "unit"
    assert set(df["output_unit"]) == {"USD"}


def test_every_positional_argument_has_help_with_an_example():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, p in sub.choices.items():
        for action in p._actions:
            if not action.option_strings and action.dest != "help":
                assert action.help and "e.g." in action.help, (name, action.dest)


def test_every_command_that_prints_results_has_json():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    quiet = {"report", "init"}  # they write files and say so on stderr
    for name, p in sub.choices.items():
        if name not in quiet:
            assert any("--json" in a.option_strings for a in p._actions), name


def test_validate_json(capsys):
    code, out, _ = run(["validate", "--json"], capsys)
    doc = json.loads(out)
    assert code == 0 and doc["ok"] and doc["keys"] > 100 and doc["files"]


# ---------------------------------------------------------------------------
# progress


def _on_a_terminal(args: list[str], width: int = 120) -> tuple[int, str, str]:
    """Run econ with stderr on a pseudo-terminal; (status, stdout, what the terminal got)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(
        [sys.executable, "-m", "econ", *args, "--data", str(DATA)],
        stdout=subprocess.PIPE,
        stderr=slave,
        env=env(COLUMNS=str(width), TERM="xterm"),
    )
    os.close(slave)
    seen = b""
    while True:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        elif p.poll() is not None:
            break
    os.close(master)
    out = p.stdout.read().decode()
    p.stdout.close()
    p.wait()
    return p.returncode, out, seen.decode(errors="replace")


def test_progress_shows_on_a_terminal_with_rate_and_time_left():
    code, out, tty = _on_a_terminal(
        ["sensitivity", "montecarlo", "--samples", "40000", "--workers", "2"]
    )
    assert code == 0
    assert "Monte Carlo" in tty and "samples" in tty
    assert re.search(r"[\d.,]+[kM]?/s", tty), "a rate"
    assert "left" in tty and re.search(r"\d+:\d\d:\d\d", tty), "the time left"
    assert "━" in tty and "━" not in out and " left" not in out  # the bar: never on stdout


def test_no_progress_where_stderr_is_not_a_terminal(capsys):
    code, _, err = run(["sensitivity", "montecarlo", "--samples", "20000"], capsys)
    assert code == 0 and "Monte Carlo" not in err and "\r" not in err


# ---------------------------------------------------------------------------
# Ctrl-C and SIGTERM


def _children(pid: int) -> list[int]:
    res = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return [int(x) for x in res.stdout.split()]


def _running(pid: int) -> bool:
    """A process that exists and is not a zombie waiting to be reaped."""
    res = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True)
    return bool(res.stdout.strip()) and not res.stdout.strip().startswith("Z")


needs_ps = pytest.mark.skipif(
    not (shutil.which("pgrep") and shutil.which("ps")), reason="needs pgrep and ps"
)


def _interrupt(args: list[str], sig: int, cwd: Path, children: int = 2):
    """Start econ, wait until its worker processes run, send ``sig`` to econ alone (not its
    process group); return (status, stdout, stderr, the workers)."""
    p = subprocess.Popen(
        [sys.executable, "-m", "econ", *args, "--data", str(DATA)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=env(),
        start_new_session=True,  # its own group: the signal reaches econ alone
    )
    workers: list[int] = []
    for _ in range(1200):  # wait for the workers (a deadline on the wait, not on econ)
        workers = _children(p.pid)
        if len(workers) >= children or p.poll() is not None:
            break
        time.sleep(0.05)
    assert len(workers) >= children, "the workers never started"
    time.sleep(0.5)  # let them work
    os.kill(p.pid, sig)
    out, err = p.communicate(timeout=60)
    return p.returncode, out.decode(), err.decode(), workers


def _gone_within_2_s(pids: list[int]) -> list[int]:
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        left = [w for w in pids if _running(w)]
        if not left:
            return []
        time.sleep(0.05)
    return [w for w in pids if _running(w)]


@needs_ps
@pytest.mark.parametrize(
    "sig, code, line",
    [(signal.SIGINT, 130, "econ: interrupted"), (signal.SIGTERM, 143, "econ: terminated")],
    ids=["SIGINT", "SIGTERM"],
)
def test_a_signal_during_a_monte_carlo_with_2_workers(tmp_path, sig, code, line):
    samples = tmp_path / "samples.csv"
    earlier = "an earlier run's samples\n"
    samples.write_text(earlier)  # an output from before: must stay as it was
    args = ["sensitivity", "montecarlo", "--samples", "3000000", "--workers", "2"]
    status, out, err, workers = _interrupt([*args, "--samples-csv", str(samples)], sig, tmp_path)
    assert status == code
    assert err.strip() == line  # one line, no traceback
    assert out == ""
    assert _gone_within_2_s(workers) == []
    assert samples.read_text() == earlier  # not replaced by a partial file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["samples.csv"]  # no temporary


@needs_ps
@pytest.mark.parametrize(
    "sig, code, line",
    [(signal.SIGINT, 130, "econ: interrupted"), (signal.SIGTERM, 143, "econ: terminated")],
    ids=["SIGINT", "SIGTERM"],
)
def test_a_signal_during_compare(tmp_path, sig, code, line):
    status, out, err, workers = _interrupt(
        ["compare", "--out", str(tmp_path / "out"), "--workers", "2"], sig, tmp_path
    )
    assert status == code and err.strip() == line and out == ""
    assert _gone_within_2_s(workers) == []
    written = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert written == []  # nothing half-written


def test_a_temporary_left_by_a_killed_run_is_removed_by_the_next(tmp_path, capsys):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f".samples.csv.econ-{dead.pid}-abc123.tmp"
    stale.write_text("half of a run killed outright\n")
    live = tmp_path / f".samples.csv.econ-{os.getpid()}-def456.tmp"  # a run still going
    live.write_text("being written\n")
    path = tmp_path / "samples.csv"
    code, _, err = run(
        ["sensitivity", "montecarlo", "--samples", "100", "--samples-csv", str(path)], capsys
    )
    assert code == 0, err
    assert not stale.exists() and live.exists()
    assert len(pd.read_csv(path)) == 100
    units = pd.read_csv(tmp_path / "samples.units.csv", index_col="column", keep_default_na=False)
    assert units.loc["npv_usd", "unit"] == "USD"
    assert units.loc["contract.value_usd", "unit"] == "USD"


# ---------------------------------------------------------------------------
# one name per figure, everywhere


def _json(args, capsys) -> object:
    code, out, err = run([*args, "--json"], capsys)
    assert code == 0, err
    return json.loads(out)


def _header(path: Path) -> list[str]:
    return list(pd.read_csv(path, nrows=0).columns)


UNIT_COLUMNS = {"unit", "output_unit", "x_unit", "y_unit"}  # the API's units by row


def test_each_figure_has_one_name_in_json_csv_and_api_frames(tmp_path, capsys):
    """Walk every output: the JSON of summary, the analyses, sweep and capacity; their CSVs;
    and the API's frames. A figure found in two of them (by its values) has one name."""
    import numpy as np

    a = econ.load(DATA)
    h = _json(["summary"], capsys)
    ev = econ.evaluate(a)
    # monthly paths: every JSON list is an API column of the same name and values, and no API
    # column holds a JSON list's values under another name
    monthly = ev.monthly.loc[0]
    # the JSON keeps an older name beside some lists (capacity_utilization of version 1) for
    # scripts that read it: the API takes one name of the group
    from econ.headline import MONTHLY_FIELDS

    group = {j: {k for k, f in MONTHLY_FIELDS.items() if f == g} for j, g in MONTHLY_FIELDS.items()}
    for name, values in h["monthly"].items():
        if name == "month":
            continue
        v = np.array([np.nan if x is None else x for x in values], float)
        same = [c for c in monthly.columns if np.allclose(monthly[c], v, equal_nan=True)]
        assert group.get(name, {name}) & set(same), (name, same)
        # another column with these values is another JSON figure that happens to be equal
        # (API tokens served = wanted when nothing is turned away), never a second name
        assert all(c in h["monthly"] or not np.any(v) for c in same), (name, same)
    # the metrics: a column whose value is a JSON figure's is named as that figure
    metrics = ev.metrics.iloc[0]
    scalars = {
        k: v for k, v in h.items() if isinstance(v, float) and v not in (0.0,) and np.isfinite(v)
    }
    for c, x in metrics.items():
        twins = [k for k, v in scalars.items() if np.isclose(v, x, rtol=1e-12)]
        assert not twins or c in twins or c in h, (c, twins)
    assert {"npv_usd", "payback_months", "irr_annual", "profitability_index"} <= set(
        ev.metrics.columns
    )
    # the analyses: JSON records, CSV header and API frame name the same columns
    frames = {
        "tornado": econ.sensitivity.tornado(a),
        "grid": econ.sensitivity.grids(a),
        "sobol": econ.sensitivity.sobol_indices(a, 16, 3),
        "breakeven": econ.sensitivity.breakeven_table(a),
    }
    for analysis, api in frames.items():
        extra = ["--samples", "16", "--seed", "3"] if analysis == "sobol" else []
        records = _json(["sensitivity", analysis, *extra], capsys)
        path = tmp_path / f"{analysis}.csv"
        code, _, err = run(["sensitivity", analysis, *extra, "--csv", str(path)], capsys)
        assert code == 0, err
        assert _header(path) == list(api.columns), analysis
        assert set(records[0]) == set(api.columns) - UNIT_COLUMNS, analysis
    # the Monte Carlo: statistics, value of information, fan, samples
    mc = econ.sensitivity.monte_carlo(a, samples=256, seed=5)
    doc = _json(["sensitivity", "montecarlo", "--samples", "256", "--seed", "5"], capsys)
    stats = mc.statistics.reset_index()
    assert set(doc["statistics"][0]) == set(stats.columns) - UNIT_COLUMNS
    assert set(doc["statistics"][0]) | {"unit"} == set(stats.columns)
    path = tmp_path / "stats.csv"
    run(
        ["sensitivity", "montecarlo", "--samples", "256", "--seed", "5", "--csv", str(path)], capsys
    )
    assert _header(path) == list(stats.columns)
    assert set(doc["evppi"][0]) == set(mc.value_of_information.columns)
    assert set(doc["evppi_usd"]) == set(mc.value_of_information["key"])
    assert set(doc["cumulative_cash_fan"][0]) == set(mc.fan.reset_index().columns)
    assert set(doc["payback_by_month"][0]) == set(mc.payback_by_month.reset_index().columns)
    assert set(doc["convergence"][0]) == set(mc.convergence.columns)
    samples = tmp_path / "samples.csv"
    args = ["sensitivity", "montecarlo", "--samples", "256", "--seed", "5"]
    code, _, err = run([*args, "--samples-csv", str(samples)], capsys)
    assert code == 0, err
    assert _header(samples) == list(mc.samples.columns)
    np.testing.assert_array_equal(pd.read_csv(samples)["npv_usd"], mc.samples["npv_usd"])
    # sweep: JSON points and CSV; capacity: JSON and the API's table
    sweep = tmp_path / "sweep.csv"
    args = ["sweep", "contract.mw", "--points", "3", "--workers", "1"]
    points = _json(args, capsys)["points"]
    run([*args, "--csv", str(sweep)], capsys)
    assert _header(sweep) == list(points[0])
    cap = _json(["capacity"], capsys)
    assert list(cap["capacity"][0]) == list(econ.capacity_table(a).columns)
    assert list(cap["frontier_audit"][0]) == list(econ.frontier_audit(a).columns)
    # every CSV names its units beside it, column for column
    for p in tmp_path.glob("*.csv"):
        if p.name.endswith(".units.csv"):
            continue
        units = pd.read_csv(p.with_name(p.stem + ".units.csv"), keep_default_na=False)
        assert list(units["column"]) == _header(p), p.name
        for col, unit, by in zip(units["column"], units["unit"], units["unit_column"], strict=True):
            numeric = pd.read_csv(p)[col].dtype.kind in "fi"
            assert not numeric or unit or by, (p.name, col)
