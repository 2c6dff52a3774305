"""Faults of real machines: a full disk during init and compare, file names that are not
UTF-8, files other programs leave in the data folder, files that are not regular files.

Each either works or ends in one line on stderr with exit status 2, and leaves what was
there before untouched, with no temporary behind.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import openpyxl
import pytest
from conftest import DATA, ROOT

import econ
from econ.assumptions import AssumptionError
from econ.cli import main

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}  # strict stdout


def econ_cli(*args: str, limit: int | None = None) -> subprocess.CompletedProcess:
    """Run econ in a subprocess; with ``limit``, no file it writes may exceed that many bytes
    (as on a disk that fills up: a write past it fails)."""

    def small_files():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return subprocess.run(
        [sys.executable, "-m", "econ", *args],
        env=ENV,
        capture_output=True,
        text=True,
        preexec_fn=small_files if limit else None,
        timeout=600,
    )


def snapshot(folder: Path) -> dict[str, bytes | str]:
    if not folder.exists():
        return {}
    return {
        str(p.relative_to(folder)): p.read_bytes() if p.is_file() else "dir"
        for p in sorted(folder.rglob("*"))
    }


def one_error_line(res: subprocess.CompletedProcess, pattern: str) -> None:
    assert res.returncode == 2, res.stderr
    assert "Traceback" not in res.stderr
    lines = res.stderr.splitlines()
    assert len(lines) == 1, res.stderr
    assert re.fullmatch(pattern, lines[0]), lines[0]


# ---------------------------------------------------------------------------
# init and compare write as one unit


def test_init_on_a_full_disk_writes_nothing_and_a_rerun_works(tmp_path):
    dest = tmp_path / "copy"
    res = econ_cli("init", str(dest), limit=3_000)  # assumptions.csv has 7.7 kB
    one_error_line(
        res,
        rf"econ: error: {re.escape(str(dest))}/\S+\.csv: cannot write \(File "
        rf"too large\); {re.escape(str(dest))} is unchanged",
    )
    assert "[" not in res.stderr  # no Python list of errors
    assert sorted(os.listdir(tmp_path)) == []  # neither the folder nor a temporary
    res = econ_cli("init", str(dest))
    assert res.returncode == 0, res.stderr
    assert econ.load(dest).values == econ.load(DATA).values


def test_init_force_on_a_full_disk_leaves_the_old_files(tmp_path):
    dest = tmp_path / "copy"
    assert econ_cli("init", str(dest)).returncode == 0
    (dest / "assumptions.csv").write_text("edited by the user\n")
    (dest / "mine.txt").write_text("the user's own file\n")
    before = snapshot(dest)
    res = econ_cli("init", str(dest), "--force", limit=3_000)
    one_error_line(res, r"econ: error: \S+: cannot write \(File too large\); \S+ is unchanged")
    assert snapshot(dest) == before and sorted(os.listdir(tmp_path)) == ["copy"]
    res = econ_cli("init", str(dest), "--force")
    assert res.returncode == 0, res.stderr
    assert (dest / "assumptions.csv").read_bytes() == (DATA / "assumptions.csv").read_bytes()
    assert (dest / "mine.txt").exists()


def test_init_refuses_a_file_in_one_line(tmp_path):
    (tmp_path / "f").write_text("x")
    res = econ_cli("init", str(tmp_path / "f"))
    one_error_line(res, r"econ: error: \S+/f: not a folder; choose a new or empty folder")


COMPARE = ("compare", "base", "bear", "--data", str(DATA), "--workers", "1")


@pytest.fixture(scope="module")
def compared(tmp_path_factory) -> Path:
    """An output folder holding one comparison (contract.mw = 700 in every scenario)."""
    out = tmp_path_factory.mktemp("compare") / "reports"
    res = econ_cli(*COMPARE, "--out", str(out), "--set", "contract.mw=700")
    assert res.returncode == 0, res.stderr
    return out


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_compare_on_a_full_disk_keeps_the_old_pair(compared, tmp_path):
    out = tmp_path / "reports"
    shutil.copytree(compared, out)
    before = snapshot(out)
    # a limit between the two files' sizes: the smaller one fits, the larger one does not,
    # and neither may replace its old copy
    sizes = {p.name: p.stat().st_size for p in (out / "compare").iterdir()}
    small, large = sorted(sizes, key=sizes.get)
    assert sizes[large] > 1.2 * sizes[small], sizes
    res = econ_cli(*COMPARE, "--out", str(out), limit=(sizes[small] + sizes[large]) // 2)
    one_error_line(
        res,
        rf"econ: error: \S+/compare/{re.escape(large)}: cannot write \(File too large\); the "
        r"previous files are unchanged",
    )
    assert snapshot(out) == before  # no temporary, no new file beside an old one


def test_compare_with_no_space_left_in_process(compared, tmp_path, capsys, monkeypatch):
    from econ.report import compare

    out = tmp_path / "reports"
    shutil.copytree(compared, out)
    before = snapshot(out)

    def full(c, path, run_time):
        Path(path).write_bytes(b"\x89PNG half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(compare, "chart", full)
    assert main([*COMPARE, "--out", str(out)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"econ: error: {out}/compare/comparison.png: cannot write (No space left on device); "
        "the previous files are unchanged"
    ]
    assert snapshot(out) == before


# ---------------------------------------------------------------------------
# names that are not UTF-8


@pytest.fixture(scope="module")
def odd_names(tmp_path_factory) -> tuple[str, str]:
    """A copy of the data in a folder whose name has the byte 0xff, and an output folder
    whose name has 0xfe: names a Linux file system holds and UTF-8 cannot spell."""
    root = os.fsencode(tmp_path_factory.mktemp("names"))
    data, out = root + b"/d\xffta", root + b"/out\xfe"
    shutil.copytree(os.fsencode(DATA), data)
    return os.fsdecode(data), os.fsdecode(out)


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
@pytest.mark.parametrize(
    "command",
    [
        ("validate",),
        ("summary", "--json"),
        ("capacity",),
        ("report", "--no-sensitivity", "--out", "{out}"),
        ("compare", "base", "bear", "--workers", "1", "--out", "{out}"),
        ("sensitivity", "tornado", "--csv", "{out}/tornado.csv"),
    ],
    ids=lambda c: c[0] if len(c) == 1 or c[0] != "sensitivity" else "tornado-csv",
)
def test_file_names_that_are_not_utf8_work(odd_names, command):
    data, out = odd_names
    os.makedirs(os.fsencode(out), exist_ok=True)
    args = [a.format(out=out) for a in command]
    res = econ_cli(*args, "--data", data)
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_the_workbook_names_a_folder_that_is_not_utf8_by_its_bytes(odd_names):
    data, out = odd_names
    assert econ_cli("report", "--no-sensitivity", "--data", data, "--out", out).returncode == 0
    with open(os.fsencode(out) + b"/base/payback_analysis.xlsx", "rb") as f:
        wb = openpyxl.load_workbook(f)
    cells = [c.value for row in wb["Cover"].iter_rows() for c in row if isinstance(c.value, str)]
    assert any(v.endswith("/d\\xffta") for v in cells)


def test_an_error_about_a_name_that_is_not_utf8_is_one_line(odd_names):
    data, _ = odd_names
    res = econ_cli("summary", "--data", data, "--scenario", "nope")
    one_error_line(
        res, r"econ: error: scenario 'nope': no file \S+/d\\xffta/scenarios/nope\.csv; .*"
    )


# ---------------------------------------------------------------------------
# files other programs leave, files that are not files


@pytest.mark.slow
def test_spreadsheet_owner_files_and_macos_side_files_are_skipped(data_copy, tmp_path, capsys):
    scenarios = data_copy / "scenarios"
    (scenarios / "~$bear.csv").write_bytes(b"\x0bExcel owner\x00\x00\xff")  # binary, as Excel's
    (scenarios / "._bull.csv").write_bytes(b"\x00\x05\x16\x07Mac OS X        \x00\x02")
    (scenarios / ".~lock.bear.csv#").write_text(",user,host,01.12.2026 10:00,user;")
    a = econ.load(data_copy)
    assert a.scenario_names() == econ.load(DATA).scenario_names()
    assert main(["validate", "--data", str(data_copy)]) == 0
    out = tmp_path / "reports"
    assert main(["compare", "--data", str(data_copy), "--out", str(out), "--workers", "1"]) == 0
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines() if line[:1].isalpha()]
    assert not any(n.startswith(("~", ".")) for n in names)


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_only_regular_files_are_read(data_copy, kind):
    path = data_copy / "scenarios" / "odd.csv"
    if kind == "fifo":
        os.mkfifo(path)  # reading it would wait for a writer forever
        what = "a named pipe \\(FIFO\\)"
    elif kind == "device":
        path.symlink_to("/dev/zero")  # reading it would never end
        what = "a device"
    else:
        path.mkdir()
        what = "a folder"
    with pytest.raises(
        AssumptionError, match=rf"scenarios/odd\.csv: {what}, not a regular file; expected a CSV"
    ):
        econ.load(data_copy)
