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
        (2.3289e13, "$23.29T"),
        (0.0, "$0"),
        (float("nan"), "-"),
    ],
)
def test_money(x, text):
    assert t.money(x) == text


@pytest.mark.parametrize(
    "x, kind, text",
    [
        (0.123, "share", "12.3%"),
        (0.00042, "share", "0.042%"),
        (0.1, "rate", "10.0%"),
        (14.25, "months", "14.2"),
        (0.0, "payback", "never <0"),
        (float("nan"), "payback", "none"),
        (32.61, "payback", "32.6"),
        (2.3289e13, "count", "23.29T"),
        (900_000, "count", "900,000"),
        (750.0, "speed", "750"),
        (432.26, "mw", "432.3"),
        (0.168, "ratio", "0.168x"),
        (1.9712, "index", "1.97"),
        (1.5e-7, "number", "0.00000015"),
        (4.2e20, "number", "420,000,000.00T"),
    ],
)
def test_one_formatter_by_kind_never_in_scientific_notation(x, kind, text):
    assert econ.formatting.fmt(x, kind) == text


def test_a_key_s_value_in_its_unit():
    f = econ.formatting
    assert f.key_value("contract.value_usd", 1e10) == "$10.00B"
    assert f.key_value("api.ultrafast_tokens_per_month", 2.32885e13) == "23.29T"
    assert f.key_value("contract.term_months", 30) == "30"  # a whole-number key
    assert f.key_value("finance.terminal_value", 1) == "yes"  # a 0/1 key
    assert f.key_quantity("contract.mw", 432.26) == "432.3 MW"
    assert f.key_quantity("tiers.ultrafast.price_per_mtok_usd", 120) == "$120.00 per 1M tokens"
    assert f.key_quantity("finance.discount_rate_annual", 0.1) == "10.0% a year"


def test_units_by_name_ending_cover_a_field_not_listed_anywhere():
    assert t.fmt(2.5e9, t.kind_of("some_new_field_usd")) == "$2.50B"
    assert t.fmt(0.123, t.kind_of("new_field_share")) == "12.3%"
    assert t.fmt(14.25, t.kind_of("new_lag_months")) == "14.2"
    assert t.fmt(1500.0, t.kind_of("new_tokens_per_s")) == "1,500"
    assert t.fmt(0.1, t.kind_of("contract.growth_annual")) == "10.0%"
    assert t.key_kind("contract.value_usd") == "money"  # the rule's unit decides for a key
    assert t.key_kind("tiers.fast.adoption") == "share"


def test_an_amount_reads_the_same_in_every_sentence():
    """One precision rule for money: version 3 scaled the amounts of a sentence to one unit,
    so the same NPV read $8.32B in one sentence and $7.445B or $8,320.5M in another."""
    m = t.usd_mark
    assert t.one_unit(f"NPV {m(8.3223e9)}, of which {m(168.0e6)}.") == (
        "NPV $8.32B, of which $168.0M."
    )
    assert t.one_unit(f"A {m(10e9)} and {m(4.5e6)}.") == "A $10.00B and $4.5M."
    assert m(None) == "n/a"


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
    plain = re.sub(r"sha256 [0-9a-f]+", "", out)  # validate names each file's hash
    assert not SCIENTIFIC.search(plain), SCIENTIFIC.search(plain)
    assert not re.search(r"(?<![\w.])-?(nan|inf)(?![\w])", out, re.IGNORECASE), out


# every command that prints, the README's examples among them (econ report and econ init
# print notes only)
COMMANDS = [
    ["summary"],
    ["validate"],
    ["capacity"],
    ["capacity", "--speeds", "340,1000"],
    ["sensitivity", "tornado"],
    ["sensitivity", "breakeven"],
    ["sensitivity", "grid"],
    ["sensitivity", "montecarlo", "--samples", "2000"],
    ["sensitivity", "sobol", "--samples", "64"],
    ["goal-seek", "hardware.b300.rent_usd_per_hour", "--high", "40"],
    ["goal-seek", "api.ultrafast_tokens_per_month", "--target", "payback"],
    ["platforms", "--workers", "1"],
    ["sweep", "contract.mw", "--points", "5", "--workers", "1"],
    ["sweep", "tiers.ultrafast.tokens_per_s", "--points", "9", "--workers", "1"],
    ["optimize", "contract.mw", "--workers", "1"],
    ["explain", "--scenario", "bear"],
    ["keys"],
    ["keys", "contract"],
]


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize(
    "args", COMMANDS, ids=lambda a: " ".join(a) if isinstance(a, list) else str(a)
)
def test_every_command_fits_the_width_in_units_never_in_scientific_notation(
    args, width, capsys, monkeypatch
):
    code, out, err = run(args, capsys, width, monkeypatch)
    assert code in (0, 1), err  # 1: a goal seek with no answer, which says so
    _check_fits(out, width)
    assert "econ: wrote" not in out


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
@pytest.mark.parametrize("width", [80, 120])
def test_compare_fits_and_says_what_it_wrote_on_stderr(tmp_path, capsys, monkeypatch, width):
    args = ["compare", "base", "bear", "bull", "--out", str(tmp_path), "--workers", "1"]
    code, out, err = run(args, capsys, width, monkeypatch)
    assert code == 0, err
    _check_fits(out, width)
    assert "econ: wrote" in err and "econ: wrote" not in out
    assert f"column(s) left out to fit {width} characters" in err  # 18 columns do not fit


def test_the_tornado_shows_the_json_s_figures_formatted(capsys, monkeypatch):
    _, out, _ = run(["sensitivity", "tornado", "--json"], capsys)
    rows = json.loads(out)
    top = rows[0]  # the largest swing
    _, out, err = run(["sensitivity", "tornado"], capsys, 120, monkeypatch)
    line = next(x for x in out.splitlines() if x.startswith(top["key"] + " "))
    for figure in ("output_low", "output_high", "swing"):
        assert t.money(top[figure]) in line
    zero = [r["key"] for r in rows if r["swing"] == 0]
    assert zero, "the bundled data have keys of no effect on NPV"
    assert not any(x.startswith(zero[0] + " ") for x in out.splitlines())
    assert f"{len(zero)} key(s) with no effect on npv_usd not shown (--all shows them)" in err
    _, out, _ = run(["sensitivity", "tornado", "--all"], capsys, 120, monkeypatch)
    assert any(x.startswith(zero[0] + " ") for x in out.splitlines())


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_sobol_and_breakeven_leave_out_the_keys_not_read_unless_all(capsys, monkeypatch):
    _, out, _ = run(["sensitivity", "sobol", "--samples", "32", "--json"], capsys)
    unread = [r["key"] for r in json.loads(out) if r["ST"] == 0 and r["S1"] == 0]
    assert unread
    _, out, err = run(["sensitivity", "sobol", "--samples", "32"], capsys, 120, monkeypatch)
    assert unread[0] not in out and f"{len(unread)} key(s) not read" in err
    _, out, _ = run(["sensitivity", "sobol", "--samples", "32", "--all"], capsys, 120, monkeypatch)
    assert unread[0] in out
    _, out, err = run(["sensitivity", "breakeven"], capsys, 120, monkeypatch)
    assert "agent.ttft_s" not in out and "the payback model does not read" in err


def test_summary_in_short_paragraphs_each_figure_as_the_formatter_writes_it(capsys, monkeypatch):
    code, out, _ = run(["summary"], capsys, 80, monkeypatch)
    assert code == 0
    _check_fits(out, 80)
    paragraphs = [p for p in out.split("\n\n") if p.strip()]
    assert len(paragraphs) >= 6 and max(len(p.splitlines()) for p in paragraphs) <= 10
    h = _json(["summary"], capsys)
    assert t.money(h["npv_usd"]) in "\n".join(out.splitlines()[:8])  # the answer comes first
    prose = " ".join(out.split())
    assert f"{t.money(h['totals']['api_revenue_usd'])} of net ultrafast API revenue" in prose
    assert f"{t.money(h['terminal_value_pv_usd'])} is the terminal value's present value" in prose
    assert "API premium" not in prose and "(terminal value, discounted)" not in prose
    assert f"NPV at {t.share(h['assumptions']['finance.discount_rate_annual'])}:" in prose


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_a_narrow_terminal_keeps_the_column_that_answers(capsys, monkeypatch):
    """At 80 characters: capacity keeps the verdict (a row beyond the ceiling must not read
    like a valid price), the Monte Carlo the share undefined beside the percentiles,
    break-even the reason for no value; the tornado stays a table."""
    _, out, err = run(["capacity"], capsys, 80, monkeypatch)
    lines = out.splitlines()
    head = next(x for x in lines if x.startswith("platform"))
    assert "verdict" in head and "rent" in lines[lines.index(head) - 1] + head
    at = next(i for i, x in enumerate(lines) if x.startswith("b300") and "ultrafast" in x)
    # the verdict may wrap within its column onto the row's next line
    row, after = lines[at], lines[at + 1].split()
    assert "above the ceiling" in row or ("above the" in row and after[:1] == ["ceiling"])
    _, out, err = run(["sensitivity", "montecarlo", "--samples", "2000"], capsys, 80, monkeypatch)
    lines = out.splitlines()
    head = next(x for x in lines if x.startswith("output"))
    assert head.split()[:2] == ["output", "undefined"]
    irr = next(x for x in lines if x.startswith("IRR"))
    assert float(irr.split("]")[1].split()[0].rstrip("%")) > 50  # undefined in most samples
    assert "P10" in err  # the less telling percentiles went first, and stderr says so
    _, out, _ = run(["sensitivity", "breakeven"], capsys, 80, monkeypatch)
    assert "why none" in out and "NPV stays below zero (" in " ".join(out.split())
    _, out, _ = run(["sensitivity", "tornado"], capsys, 80, monkeypatch)
    lines = out.splitlines()
    assert any(x.startswith("key ") and x.rstrip().endswith("swing") for x in lines)
    assert not any(x.startswith("key: ") for x in lines)  # rows, not records
    rows = [x for x in lines if x[:1].isalpha() and "." in x.split()[0]]  # a key starts a row
    assert rows and len(lines) <= 3 * len(rows) + 10  # a key wraps onto three lines at most


def test_no_answer_reads_as_one_and_exits_1(capsys, monkeypatch):
    """The README's goal seek: no value of the API volume makes payback equal the term, since
    no value pays back within the horizon; said in words, status 1. Optimize on the
    contract's size names the contract's value at that size."""
    args = ["goal-seek", "api.ultrafast_tokens_per_month", "--target", "payback"]
    code, out, _ = run(args, capsys, 120, monkeypatch)
    prose = " ".join(out.split())
    assert code == 1
    assert prose.startswith(
        "No answer: no value of api.ultrafast_tokens_per_month from 100.00B to 2.50T makes "
        "payback equal the 30-month term: no value pays back within the 60-month horizon"
    )
    assert "-30" not in prose
    code, out, _ = run([*args, "--json"], capsys)
    assert code == 1 and json.loads(out)["reached"] is False
    code, out, _ = run(
        ["goal-seek", "hardware.b300.rent_usd_per_hour", "--high", "40"], capsys, 120, monkeypatch
    )
    assert code == 0 and out.startswith("NPV is zero at hardware.b300.rent_usd_per_hour = $")
    args = ["optimize", "contract.mw", "--workers", "1"]
    code, out, _ = run(args, capsys, 120, monkeypatch)
    doc = _json(args, capsys)
    prose = " ".join(out.split())
    assert code == 0 and doc["found"] is True
    rate = 10e9 / (750 * 30)  # the contract's rate per MW-month, held by default
    assert doc["contract_value_at_optimum_usd"] == pytest.approx(rate * doc["value"] * 30)
    assert (
        f"the contract is worth {t.money(doc['contract_value_at_optimum_usd'])} (now $10.00B)"
        in prose
    )
    code, out, _ = run(["optimize", "agent.ttft_s", "--workers", "1"], capsys, 120, monkeypatch)
    assert code == 1 and out.splitlines()[1].startswith("No answer: ")


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


def _frames(tty: str) -> list[str]:
    """What the terminal showed, one redrawn line at a time, without escape sequences."""
    plain = re.split(r"\r|\x1b\[2K|\n", tty)
    return [re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", x).strip() for x in plain if x.strip()]


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_progress_shows_each_figure_labelled_a_bar_where_the_total_is_known():
    code, out, tty = _on_a_terminal(
        ["sensitivity", "montecarlo", "--samples", "40000", "--workers", "2"]
    )
    assert code == 0
    frames = _frames(tty)
    bars = [x for x in frames if x.startswith("Monte Carlo")]
    assert bars and all(re.search(r"[\d,]+/40,000 samples", x) for x in bars)  # from the start
    assert any(re.search(r"[\d.,]+[kM]? samples/s", x) for x in bars), "a rate"
    assert all(re.search(r"elapsed \d+:\d\d:\d\d", x) for x in bars), "the time elapsed"
    assert any(re.search(r"left \d+:\d\d:\d\d", x) for x in bars), "the time left"
    assert any(re.search(r"elapsed \d+:\d\d:\d\d · left \d+:\d\d:\d\d", x) for x in bars)
    assert not any(re.search(r"\d:\d\d left", x) for x in frames)  # never after a time
    assert "/?" not in tty
    # what follows the count has no total: a spinner with its label, never a time left
    after = [x for x in frames if "Statistics and value of information" in x]
    assert after and all("left" not in x and "elapsed" in x for x in after)
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


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
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
        # 0 and 1 are too common to tell a second name from a coincidence (a served multiplier
        # of 1 and a delivered share of 1 are two figures)
        k: v
        for k, v in h.items()
        if isinstance(v, float) and v not in (0.0, 1.0) and np.isfinite(v)
    }
    for c, x in metrics.items():
        twins = [k for k, v in scalars.items() if np.isclose(v, x, rtol=1e-12)]
        assert not twins or c in twins or c in h, (c, twins)
    assert {"npv_usd", "payback_months", "irr_annual", "profitability_index"} <= set(
        ev.metrics.columns
    )
    # the analyses: JSON records, CSV header and API frame name the same columns
    frames = {
        "tornado": econ.sensitivity.tornado(a, sobol_samples=16, seed=3),
        "grid": econ.sensitivity.grids(a),
        "sobol": econ.sensitivity.sobol_indices(a, 16, 3),
        "breakeven": econ.sensitivity.breakeven_table(a),
    }
    for analysis, api in frames.items():
        extra = ["--samples", "16", "--seed", "3"] if analysis in ("sobol", "tornado") else []
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
    assert set(doc["value_of_information"][0]) == set(mc.value_of_information.columns)
    assert set(doc["evppi_usd"]) == set(mc.value_of_information["key"])
    assert set(doc["cumulative_cash_fan"][0]) == set(mc.cumulative_cash_fan.reset_index().columns)
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


@pytest.fixture(scope="module")
def workbook_texts(tmp_path_factory) -> dict[str, list[str]]:
    """Every text cell of a small report's workbook, by sheet, and its defined names."""
    import openpyxl

    out = tmp_path_factory.mktemp("report")
    args = ["report", "--out", str(out), "--samples", "256", "--sobol-samples", "8"]
    assert main([*args, "--data", str(DATA)]) == 0
    wb = openpyxl.load_workbook(out / "base" / "payback_analysis.xlsx")
    texts = {
        ws.title: [
            c.value
            for row in ws.iter_rows()
            for c in row
            if isinstance(c.value, str) and not c.value.startswith("=")
        ]
        for ws in wb.worksheets
    }
    texts["defined names"] = list(wb.defined_names.keys())
    return texts


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_one_name_per_figure_on_every_surface(capsys, tmp_path, workbook_texts):
    """The figures easy to take for one another (econ.names) by the one name every surface
    gives them: the summary's words, --json, --csv, the Python API, the workbook."""
    from econ.names import FIGURES, RENAMED

    a = econ.load(DATA)
    h = _json(["summary"], capsys)
    _, out, _ = run(["summary"], capsys)
    summary = " ".join(out.split())
    ev = econ.evaluate(a)
    # the API's cash: net (api_revenue_usd) and gross named apart, in JSON, API and text
    assert {"api_revenue_usd", "api_gross_revenue_usd", "api_revenue_lost_usd"} <= set(h["totals"])
    assert "api_revenue_usd" in ev.monthly.columns and "api_revenue_usd" in h["monthly"]
    assert f"{t.money(h['totals']['api_revenue_usd'])} of {FIGURES['api_revenue_usd']}" in summary
    assert (
        ev.headline["totals"]["api_ultrafast_revenue_usd"] == h["totals"]["api_gross_revenue_usd"]
    )
    # the terminal value: at the horizon and its present value, named apart
    tv_pv = h["npv_usd"] - h["npv_without_terminal_value_usd"]
    assert h["terminal_value_pv_usd"] == pytest.approx(tv_pv, rel=1e-12)
    assert ev.metrics.terminal_value_pv_usd.iloc[0] == pytest.approx(tv_pv, rel=1e-12)
    assert ev.metrics.terminal_value_usd.iloc[0] == pytest.approx(h["terminal_value_usd"])
    assert f"{t.money(tv_pv)} is the {FIGURES['terminal_value_pv_usd']}" in summary
    # the Monte Carlo: JSON and API name the fan, the value of information and the EVPI alike
    args = ["sensitivity", "montecarlo", "--samples", "256", "--seed", "5"]
    doc = _json(args, capsys)
    mc = econ.sensitivity.monte_carlo(a, samples=256, seed=5)
    for name in ("cumulative_cash_fan", "value_of_information", "evpi_usd", "evpi_se_usd"):
        assert name in doc and hasattr(mc, name), name
    for name in ("decision_options_usd", "best_option"):
        assert doc[name] == getattr(mc, name) == mc.value_of_information.attrs[name]
    assert doc["evpi_usd"] == mc.evpi_usd == mc.value_of_information.attrs["evpi_usd"]
    _, out, _ = run(args, capsys)
    assert "Value of information (EVPI " in out and "EVPPI" in out
    # the key column of every table: JSON, CSV and API frames
    frames = {
        "tornado": econ.sensitivity.tornado(a, sobol_samples=16, seed=3),
        "sobol": econ.sensitivity.sobol_indices(a, 16, 3),
        "breakeven": econ.sensitivity.breakeven_table(a),
    }
    for analysis, frame in frames.items():
        extra = ["--samples", "16", "--seed", "3"] if analysis in ("sobol", "tornado") else []
        records = _json(["sensitivity", analysis, *extra], capsys)
        path = tmp_path / f"{analysis}.csv"
        run(["sensitivity", analysis, *extra, "--csv", str(path)], capsys)
        for columns in (frame.columns, records[0], _header(path)):
            assert "key" in columns and "variable" not in columns, analysis
    assert "key" in mc.value_of_information.columns and "key" in doc["value_of_information"][0]
    # no surface answers to a name of before version 4 (the API keeps them as aliases)
    assert not set(RENAMED) & (set(doc) | set(h) | set(h["totals"]))
    # the workbook: the same names and words
    wb = workbook_texts
    assert {"npv_usd", "terminal_value_usd", "npv_without_terminal_value_usd"} <= set(
        wb["defined names"]
    )
    assert any("terminal value" in x.lower() and "at the horizon" in x for x in wb["Payback"])
    assert any(x.lower().startswith(FIGURES["api_revenue_usd"].lower()) for x in wb["Revenue"])
    for sheet in ("Tornado", "Sobol", "Break-even", "Monte Carlo"):
        assert "key" in wb[sheet] and "variable" not in wb[sheet], sheet
    mc_sheet = " ".join(wb["Monte Carlo"]).lower()
    for words in ("value of information", "evpi", "fan of cumulative cash"):
        assert words in mc_sheet, words


def test_the_workbook_s_bridge_uses_the_one_name(workbook_texts):
    from econ.names import FIGURES

    texts = [x.lower() for sheet in ("Payback", "Annual") for x in workbook_texts[sheet]]
    assert not any("api premium" in x for x in texts)
    assert sum(x.startswith(FIGURES["api_revenue_usd"].lower()) for x in texts) >= 2
    assert any(FIGURES["terminal_value_pv_usd"] in x for x in texts)


def test_the_api_s_frames_display_formatted_their_values_raw():
    a = econ.load(DATA)
    ev = econ.evaluate(a)
    m = ev.metrics
    text = m.econ.formatted()
    assert text.loc[0, "npv_usd"] == t.money(m.loc[0, "npv_usd"])
    assert text.loc[0, "payback_months"] == "none"  # the bundled deal does not pay back
    cheap = econ.evaluate(a, {"contract.value_usd": 1e9}).metrics  # never negative: month 0
    assert cheap.loc[0, "payback_months"] == 0
    assert cheap.econ.formatted().loc[0, "payback_months"] == "never <0"
    assert m["npv_usd"].dtype.kind == "f"  # the frame itself is unchanged
    html = econ.style(m).to_html()
    assert t.money(m.loc[0, "npv_usd"]) in html and "e+09" not in html
    tor = econ.sensitivity.tornado(a)  # units by row: each row in its key's unit
    row = tor[(tor["key"] == "contract.value_usd") & (tor["output"] == "npv_usd")].index[0]
    shown = tor.econ.formatted()
    assert shown.loc[row, "base"] == "$10.00B" and shown.loc[row, "swing"].startswith("$")
    assert "$10.00B" in tor.econ.style().to_html()
    found = econ.goal_seek(a, "hardware.b300.rent_usd_per_hour", low=1, high=40)
    assert (
        found.message == f"NPV is zero at hardware.b300.rent_usd_per_hour = {t.money(found.value)}"
    )
