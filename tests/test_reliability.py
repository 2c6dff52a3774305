"""A report is one unit: concurrent runs, kills at every step, recovery, stamps, full disks.

The kill tests run econ in a subprocess whose ``econ.report.output.checkpoint``
SIGKILLs the process at a named step of the write, then check that the report
folder holds one complete report (the old or the new one), and that the next
run cleans up and writes a complete report again.
"""

from __future__ import annotations

import fcntl
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import openpyxl
import pytest
from conftest import DATA, ROOT
from xlsx_names import named_value, row_texts

from econ.cli import main
from econ.report import output
from econ.report.output import LEGACY_GENERATED, MANIFEST, SOURCE, WORKBOOK, digest, read_manifest
from econ.report.workbook import EXCEL_CELL_CHARS, TextCutWarning

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
QUICK = ["--data", str(DATA), "--no-sensitivity"]

# runs econ's CLI with checkpoint() killing the process at argv[1] ("-": never), and with the
# atomic folder exchange switched off when argv[2] is "fallback"; argv[3] is the lock wait
DRIVER = """
import os, signal, sys
import econ.report.output as o
point, mode, wait = sys.argv[1], sys.argv[2], float(sys.argv[3])
def checkpoint(step):
    if step == point:
        os.kill(os.getpid(), signal.SIGKILL)
o.checkpoint = checkpoint
o.LOCK_WAIT_S = wait
if mode == "fallback":
    o.exchange = lambda a, b: False
from econ.cli import main
sys.exit(main(sys.argv[4:]))
"""


def econ(out: Path, value: float, kill: str = "-", mode: str = "exchange", wait: float = 30.0):
    """Start `econ report` into ``out`` with contract.value_usd = value (a Popen)."""
    args = ["report", *QUICK, "--out", str(out), "--set", f"contract.value_usd={value:g}"]
    return subprocess.Popen(
        [sys.executable, "-c", DRIVER, kill, mode, str(wait), *args],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run(out: Path, value: float, **kw) -> subprocess.CompletedProcess:
    p = econ(out, value, **kw)
    stdout, stderr = p.communicate(timeout=300)
    return subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr)


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def temporaries(out: Path) -> list[str]:
    return sorted(p.name for p in out.iterdir() if p.name.startswith(".econ-"))


def report_value(folder: Path) -> float:
    """contract.value_usd of one report, checked to be the same in the workbook and summary.md."""
    value = named_value(
        openpyxl.load_workbook(folder / "payback_analysis.xlsx"), "contract_value_usd"
    )
    summary = (folder / "summary.md").read_text()
    assert f"${value / 1e9:,.2f}B of rent" in summary, "summary.md and workbook from different runs"
    return value


def assert_one_report(folder: Path, user_files: set[str] = frozenset()) -> float:
    """``folder`` holds one complete report: every generated file stamped and unchanged,
    nothing else but the user's own files; returns its contract value."""
    manifest = read_manifest(folder)
    assert manifest, f"{folder}: no manifest"
    names = {p.name for p in folder.iterdir()} - {MANIFEST} - set(user_files)
    assert names == set(manifest)
    assert {"payback_analysis.xlsx", "summary.md", "payback_curve.png"} <= names
    for name, d in manifest.items():
        assert digest(folder / name) == d, name
    return report_value(folder)


@pytest.fixture(scope="module")
def old_report(tmp_path_factory) -> Path:
    """An output folder holding one report (contract value 9e9), to copy."""
    out = tmp_path_factory.mktemp("old") / "reports"
    res = run(out, 9e9)
    assert res.returncode == 0, res.stderr
    return out


@pytest.fixture
def out(old_report, tmp_path) -> Path:
    dest = tmp_path / "reports"
    shutil.copytree(old_report, dest)
    return dest


# ---------------------------------------------------------------------------
# kills


BEFORE_SWAP = ["created", "payback_analysis.xlsx", "charts", "summary.md", "manifest"]


# the default suite kills at one step of each kind; the slow suite (CI) at every step
QUICK_KILLS = {("payback_analysis.xlsx", "exchange"), ("swapped", "fallback")}


@pytest.mark.parametrize(
    ("point", "mode"),
    [
        pytest.param(p, m, marks=() if (p, m) in QUICK_KILLS else pytest.mark.slow)
        for p, m in [(p, "exchange") for p in BEFORE_SWAP]
        + [("swapped", "exchange"), ("cleaned", "exchange")]
        + [("renamed-old", "fallback"), ("swapped", "fallback")]
    ],
)
def test_a_kill_at_any_step_leaves_one_complete_report(out, point, mode):
    folder = out / "base"
    before = snapshot(folder)
    res = run(out, 11e9, kill=point, mode=mode)
    assert res.returncode == -signal.SIGKILL, res.stderr
    if point in BEFORE_SWAP:
        assert snapshot(folder) == before  # the old report, untouched
    elif point == "renamed-old":
        assert not folder.exists()  # between the two renames: the next run finishes the swap
        kinds = sorted(re.match(r"\.econ-(new|old)\.", n)[1] for n in temporaries(out))
        assert kinds == ["new", "old"]
        with pytest.warns(output.RecoveredWarning, match="put back the report"):
            output.recover(out)
        assert assert_one_report(folder) == 11e9 and temporaries(out) == []
    else:
        assert assert_one_report(folder) == 11e9  # the new report, complete
    res = run(out, 12e9, mode=mode)  # the next run cleans up and writes
    assert res.returncode == 0, res.stderr
    assert assert_one_report(folder) == 12e9
    assert temporaries(out) == []


@pytest.mark.slow
def test_kills_at_random_moments_never_mix_two_reports(out):
    folder = out / "base"
    for delay in (0.8, 1.4, 2.0, 2.4):
        p = econ(out, 11e9)
        time.sleep(delay)
        p.send_signal(signal.SIGKILL)
        p.communicate(timeout=60)
        if folder.exists():
            assert assert_one_report(folder) in (9e9, 11e9, 12e9)
        res = run(out, 12e9)
        assert res.returncode == 0, res.stderr
        assert assert_one_report(folder) == 12e9 and temporaries(out) == []


def test_recover_puts_back_the_old_report_when_the_new_one_is_incomplete(out):
    folder = out / "base"
    before = snapshot(folder)
    os.rename(folder, out / ".econ-old.base.abc123")
    (out / ".econ-new.base.def456").mkdir()
    (out / ".econ-new.base.def456" / "payback_analysis.xlsx").write_bytes(b"half")  # no manifest
    with pytest.warns(output.RecoveredWarning):
        output.recover(out)
    assert snapshot(folder) == before and temporaries(out) == []


# ---------------------------------------------------------------------------
# concurrency


@pytest.mark.slow
def test_two_concurrent_reports_into_one_folder_end_as_one_report(out):
    folder = out / "base"
    for attempt in range(3):  # retried to catch the race
        wait = 30.0 if attempt < 2 else 0.0  # the last round: the second run refuses at once
        runs = [econ(out, v, wait=wait) for v in (11e9, 13e9)]
        results = [(p, *p.communicate(timeout=300)) for p in runs]
        codes = [p.returncode for p, _, _ in results]
        assert 0 in codes, [e for _, _, e in results]
        for p, _, err in results:
            if p.returncode != 0:
                assert p.returncode == 2
                assert len(err.strip().splitlines()) == 1
                assert re.fullmatch(
                    r"econ: error: .*base: another econ run is writing a report into .* "
                    r"\(waited 0 s\); try again when it has finished, or write elsewhere with --out",
                    err.strip(),
                )
        assert assert_one_report(folder) in (11e9, 13e9)
        assert temporaries(out) == []


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_a_held_lock_makes_a_run_wait_then_go_on(out, capsys, monkeypatch):
    fd = os.open(out, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    p = econ(out, 11e9, wait=60.0)
    time.sleep(4.0)  # long enough to reach the lock
    assert p.poll() is None  # waiting
    os.close(fd)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    assert assert_one_report(out / "base") == 11e9


# ---------------------------------------------------------------------------
# stamps, user files, earlier versions


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_stale_temporaries_of_killed_runs_are_cleaned(out):
    (out / ".econ-new.base.k1ll3d").mkdir()
    (out / ".econ-new.base.k1ll3d" / "payback_analysis.xlsx").write_bytes(b"partial")
    (out / ".econ-old.base.0ld").mkdir()
    (out / ".econ-new.other.x1").mkdir()  # another scenario's, killed too
    (out / "base" / ".payback_analysis-abc.xlsx.tmp").write_bytes(b"from an earlier version")
    (out / "base" / ".summary.md.tmp").write_text("x")
    res = run(out, 11e9)
    assert res.returncode == 0, res.stderr
    assert temporaries(out) == []
    assert assert_one_report(out / "base") == 11e9


def test_an_edited_summary_is_protected_like_the_workbook(out, capsys):
    md = out / "base" / "summary.md"
    md.write_text(md.read_text() + "\nMy conclusion: sign it.\n")
    before = snapshot(out)
    args = ["report", *QUICK, "--out", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"{md}: this file was changed after econ wrote it" in err and "--force" in err
    assert snapshot(out) == before
    assert main([*args, "--force"]) == 0
    assert "My conclusion" not in md.read_text()
    assert_one_report(out / "base")


def test_an_edited_chart_is_protected(out, capsys):
    png = out / "base" / "payback_curve.png"
    png.write_bytes(png.read_bytes() + b"annotated")
    before = snapshot(out)
    assert main(["report", *QUICK, "--out", str(out)]) == 2
    assert f"{png}: this file was changed after econ wrote it" in capsys.readouterr().err
    assert snapshot(out) == before


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_the_users_own_files_in_the_report_folder_are_kept(out, capsys):
    folder = out / "base"
    (folder / "my notes.txt").write_text("keep me")
    (folder / "drafts").mkdir()
    (folder / "drafts" / "v1.md").write_text("draft")
    assert main(["report", "--data", str(DATA), "--out", str(out), "--samples", "200"]) == 0
    assert (folder / "my notes.txt").read_text() == "keep me"
    assert (folder / "drafts" / "v1.md").read_text() == "draft"
    assert_one_report(folder, user_files={"my notes.txt", "drafts"})
    assert (folder / "tornado_npv.png").exists()
    assert set(read_manifest(folder)) <= {WORKBOOK, SOURCE, *LEGACY_GENERATED}
    assert main(["report", *QUICK, "--out", str(out)]) == 0  # without the analysis charts
    assert not (folder / "tornado_npv.png").exists()  # the old report's charts go with it
    assert (folder / "my notes.txt").read_text() == "keep me"


def test_a_report_folder_written_by_an_earlier_version_is_replaced(out, capsys):
    """The old report (another contract value) has the explain chart; the new one does not.
    Without a manifest, a file named like one econ writes is econ's and goes with the old
    report, not carried over as the user's."""
    folder = out / "base"
    assert (folder / "explain_npv.png").exists()
    assert set(read_manifest(folder)) <= {WORKBOOK, SOURCE, *LEGACY_GENERATED}
    (folder / MANIFEST).unlink()  # earlier versions stamped the workbook alone
    (folder / ".econ-data").unlink()  # and did not name their data folder
    wb = folder / "payback_analysis.xlsx"
    (folder / ".payback_analysis.xlsx.sha256").write_text(digest(wb) + "\n")
    assert main(["report", *QUICK, "--out", str(out)]) == 0
    assert not (folder / ".payback_analysis.xlsx.sha256").exists()
    assert_one_report(folder)
    assert not (folder / "explain_npv.png").exists()
    # and an earlier version's workbook edited since is refused
    (folder / MANIFEST).unlink()
    (folder / ".econ-data").unlink()
    (folder / ".payback_analysis.xlsx.sha256").write_text("0" * 64 + "\n")
    before = snapshot(out)
    assert main(["report", *QUICK, "--out", str(out)]) == 2
    assert "this workbook was changed after econ wrote it" in capsys.readouterr().err
    assert snapshot(out) == before


# ---------------------------------------------------------------------------
# output failures


def _small_files():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
    resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))


def test_a_full_disk_while_writing_names_the_file_and_keeps_the_old_report(out):
    before = snapshot(out)
    res = subprocess.run(
        [sys.executable, "-m", "econ", "report", *QUICK, "--out", str(out), "--force"],
        env=ENV,
        capture_output=True,
        text=True,
        preexec_fn=_small_files,
    )
    assert res.returncode == 2
    assert re.fullmatch(
        r"econ: error: \S+/base/payback_analysis\.xlsx: cannot write \(File too large\); "
        r"the previous report is unchanged",
        res.stderr.strip(),
    )
    assert snapshot(out) == before and temporaries(out) == []


def test_no_space_left_while_writing_the_summary(out, capsys, monkeypatch):
    real = Path.write_text

    def full(self, *args, **kwargs):
        if self.name == "summary.md":
            raise OSError(28, "No space left on device")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", full)
    before = snapshot(out)
    assert main(["report", *QUICK, "--out", str(out), "--force"]) == 2
    err = capsys.readouterr().err
    assert f"{out / 'base' / 'summary.md'}: cannot write (No space left on device)" in err
    assert snapshot(out) == before and temporaries(out) == []


def test_standard_output_that_cannot_be_written_is_named():
    with open("/dev/full", "w") as full:
        res = subprocess.run(
            [sys.executable, "-m", "econ", "summary", "--json", "--data", str(DATA)],
            env=ENV,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert res.returncode == 2
    assert res.stderr == "econ: error: standard output: cannot write (No space left on device)\n"


def test_output_piped_into_head_is_not_an_error():
    res = subprocess.run(
        f"'{sys.executable}' -m econ summary --json --data '{DATA}' | head -1",
        shell=True,
        env=ENV,
        capture_output=True,
        text=True,
    )
    assert res.stdout == "{\n" and res.stderr == ""


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_text_over_the_cell_limit_is_cut_visibly_with_a_warning(data_copy, tmp_path):
    note = "Long note. " * 4000  # 44,000 characters; the reader strips the last space
    p = data_copy / "assumptions.csv"
    lines = p.read_text().splitlines()
    lines = [line + note if line.startswith("agent.ttft_s,") else line for line in lines]
    p.write_text("\n".join(lines) + "\n")
    res = subprocess.run(
        [sys.executable, "-m", "econ", "report", "--data", str(data_copy), "--out", str(tmp_path)]
        + ["--no-sensitivity"],
        env=ENV,
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, res.stderr
    warning = [line for line in res.stderr.splitlines() if line.startswith("econ: warning:")]
    assert len(warning) == 1
    assert re.fullmatch(
        r"econ: warning: Assumptions!F\d+: a text of 43,999 characters is longer than a "
        r'spreadsheet cell holds \(32,767\); cut, ending in "\.\.\. \[cut: 11,2\d\d characters\]"',
        warning[0],
    )
    wb = openpyxl.load_workbook(tmp_path / "base" / "payback_analysis.xlsx")
    cell = next(
        t for t in row_texts(wb, "agent_ttft_s") if isinstance(t, str) and t.startswith("Long note")
    )
    assert len(cell) == EXCEL_CELL_CHARS
    assert cell.startswith("Long note. ") and re.search(r"\.\.\. \[cut: [\d,]+ characters\]$", cell)


def test_every_text_cell_keeps_to_the_limit_the_cover_too(tmp_path, capsys):
    padded = "0" * 40_000 + "750"  # still the number 750
    with pytest.warns(TextCutWarning, match=r"Cover!B\d+: a text of 40,\d{3} characters"):
        code = main(["report", *QUICK, "--out", str(tmp_path), "--set", f"contract.mw={padded}"])
    assert code == 0
    ws = openpyxl.load_workbook(tmp_path / "base" / "payback_analysis.xlsx")["Cover"]
    row = next(r for r in ws.iter_rows() if r[0].value == "Overrides")
    assert len(row[1].value) == EXCEL_CELL_CHARS and row[1].value.endswith(" characters]")


def test_cutting_counts_what_excel_counts():
    from econ.report.workbook import fit_cell_text

    assert fit_cell_text("x" * EXCEL_CELL_CHARS) == ("x" * EXCEL_CELL_CHARS, 0)
    text, removed = fit_cell_text("\U0001f600" * 20_000)  # 40,000 UTF-16 code units
    assert len(text.encode("utf-16-le")) // 2 <= EXCEL_CELL_CHARS
    assert text.endswith(f"... [cut: {removed:,} characters]") and removed == 20_000 - text.count(
        "\U0001f600"
    )


def test_write_cell_warns_with_the_sheet_and_cell(tmp_path):
    from econ.report.workbook import new_workbook, write_cell

    wb = new_workbook(tmp_path / "x.xlsx")
    ws = wb.add_worksheet("Notes")
    with pytest.warns(TextCutWarning, match=r"Notes!C4: a text of 40,000 characters"):
        write_cell(ws, 3, 2, "y" * 40_000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write_cell(ws, 4, 2, "y" * EXCEL_CELL_CHARS)  # fits: no warning
    wb.close()


# ---------------------------------------------------------------------------
# outputs named on one command line, odd standard outputs and folders


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


@pytest.mark.parametrize(
    ("samples", "table", "culprit"),
    [
        ("x.csv", "x.csv", r"--csv \S*x\.csv and --samples-csv \S*x\.csv are one file"),
        ("a.units.csv", "a.csv", r"the units file of --csv \(\S*a\.units\.csv\) and --samples-csv"),
        ("a.csv", "sub/../a.units.csv", r"--csv \S*a\.units\.csv and the units file of --samples"),
        ("s.csv", "DATA", r"--csv \S+assumptions\.csv: is assumptions\.csv, a data file this run"),
    ],
)
def test_outputs_of_one_command_line_never_overwrite_each_other(
    tmp_path, capsys, monkeypatch, samples, table, culprit
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "x.csv").write_text("mine\n")
    (tmp_path / "a.units.csv").write_text("mine too\n")
    before = _files(tmp_path)
    table = str(DATA / "assumptions.csv") if table == "DATA" else table
    args = ["sensitivity", "montecarlo", "--data", str(DATA), "--samples", "10"]
    assert main([*args, "--samples-csv", samples, "--csv", table]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and re.search(culprit, err), err
    assert "name outputs apart" in err or "write elsewhere" in err
    assert _files(tmp_path) == before and temporaries(tmp_path) == []


def test_a_table_and_its_units_beside_a_samples_file_apart_are_written(tmp_path, capsys):
    args = ["sensitivity", "montecarlo", "--data", str(DATA), "--samples", "10"]
    assert (
        main([*args, "--samples-csv", str(tmp_path / "s.csv"), "--csv", str(tmp_path / "t.csv")])
        == 0
    )
    assert sorted(_files(tmp_path)) == ["s.csv", "s.units.csv", "t.csv", "t.units.csv"]


def test_explain_png_into_a_folder_is_refused_and_a_name_is_written_exactly(tmp_path, capsys):
    folder = tmp_path / "charts"
    folder.mkdir()
    args = ["explain", *QUICK[:2], "--set", "contract.mw=700"]
    assert main([*args, "--png", str(folder)]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"econ: error: --png {folder}: is a folder; expected a file name, e.g. "
        f"{folder / 'explain.png'}\n"
    )
    assert list(folder.iterdir()) == []
    # a name without .png is the file written, not NAME.png beside it
    assert main([*args, "--png", str(tmp_path / "chart")]) == 0
    assert (tmp_path / "chart").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chart", "charts"]
    assert capsys.readouterr().err.endswith(f"econ: wrote {tmp_path / 'chart'}\n")


def _close_stdout():
    os.close(1)


def test_a_closed_standard_output_is_one_line_or_not_needed(tmp_path):
    res = subprocess.run(
        [sys.executable, "-m", "econ", "summary", "--data", str(DATA)],
        env=ENV,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_close_stdout,
    )
    assert res.returncode == 2
    assert res.stderr == (
        "econ: error: standard output is closed, and econ prints its result there; redirect it "
        "to a file (or to /dev/null)\n"
    )
    # a command whose results are files does not need it
    res = subprocess.run(
        [sys.executable, "-m", "econ", "sweep", "contract.mw", "--points", "3", "--workers", "1"]
        + ["--data", str(DATA), "--csv", str(tmp_path / "s.csv")],
        env=ENV,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_close_stdout,
    )
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr and (tmp_path / "s.csv").exists()


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_outputs_in_a_working_folder_deeper_than_the_longest_path(tmp_path, monkeypatch):
    """The absolute path of the working folder is longer than the system takes (4,096
    bytes): every output is named relative to it, as the user gave it."""
    monkeypatch.chdir(tmp_path)
    for _ in range(22):
        os.mkdir("d" * 200)
        os.chdir("d" * 200)
    assert len(str(tmp_path)) + 22 * 201 > 4096
    for args in (
        ["compare", "base", "--workers", "1"],
        ["sweep", "contract.mw", "--points", "3", "--workers", "1", "--csv", "s.csv"],
        ["init", "mydata"],
    ):
        res = subprocess.run(
            [sys.executable, "-m", "econ", *args]
            + (["--data", str(DATA)] if args[0] != "init" else []),
            env=ENV,
            capture_output=True,
            text=True,
        )
        assert res.returncode == 0, (args, res.stderr)
    assert {"reports", "s.csv", "s.units.csv", "mydata"} <= set(os.listdir("."))
    assert sorted(os.listdir("reports/compare")) == ["comparison.png", "comparison.xlsx"]


def test_a_full_disk_leaves_no_zip_writer_to_complain_later(monkeypatch):
    """XlsxWriter leaves its zip writer open when a write fails; collected later it printed
    a traceback after econ's one-line error. econ's workbooks zip in memory."""
    import gc

    from xlsxwriter.exceptions import FileCreateError

    from econ.report.workbook import new_workbook

    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    wb = new_workbook(Path("/dev/full"))  # every write: No space left on device
    wb.add_worksheet().write(0, 0, "x")
    with pytest.raises(FileCreateError, match="No space left on device"):
        wb.close()
    del wb
    gc.collect()
    assert unraisable == []
