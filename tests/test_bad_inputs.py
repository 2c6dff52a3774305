"""A corpus of bad inputs and faults: each is refused with exit status 2 and one line naming
the culprit, and nothing under the output folder changes.

A case is (id, how to make it, the command, a regex the error line must match). To add one,
append a ``Case`` to the list of its kind; ``make`` edits the copy of the data (``p.data``) or
the output folder (``p.out``, which holds a report written by econ) before the command runs.
In the command, ``{data}``, ``{out}`` and ``{tmp}`` stand for those folders.

At the end, a hypothesis fuzzer feeds random bytes and random mutations of the bundled CSVs
to econ.load: a clean load or an AssumptionError, never another exception.
"""

from __future__ import annotations

import csv
import fcntl
import io
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import DATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import econ
from econ.assumptions import AssumptionError
from econ.cli import main
from econ.report import output


@dataclass
class Paths:
    data: Path
    out: Path
    tmp: Path
    monkeypatch: pytest.MonkeyPatch
    finally_: list[Callable[[], None]] = field(default_factory=list)


@dataclass(frozen=True)
class Case:
    id: str
    argv: tuple[str, ...]
    message: str  # re.search on the one error line
    make: Callable[[Paths], None] | None = None


# ---------------------------------------------------------------------------
# commands


def report(*extra: str) -> tuple[str, ...]:
    return ("report", "--data", "{data}", "--out", "{out}", "--no-sensitivity", *extra)


def report_sampled(*extra: str) -> tuple[str, ...]:
    sampled = ("--samples", "50", "--sobol-samples", "8")
    return ("report", "--data", "{data}", "--out", "{out}", *sampled, *extra)


def validate(*extra: str) -> tuple[str, ...]:
    return ("validate", "--data", "{data}", *extra)


def summary(*extra: str) -> tuple[str, ...]:
    return ("summary", "--data", "{data}", *extra)


def sensitivity(analysis: str, *extra: str) -> tuple[str, ...]:
    return ("sensitivity", analysis, "--data", "{data}", *extra)


def goal_seek(*extra: str) -> tuple[str, ...]:
    return ("goal-seek", "contract.value_usd", "--data", "{data}", *extra)


# ---------------------------------------------------------------------------
# ways to make a bad input


def edit(name: str, old: str, new: str) -> Callable[[Paths], None]:
    """Replace the first ``old`` in data file ``name`` by ``new``."""

    def make(p: Paths) -> None:
        path = p.data / name
        text = path.read_text(encoding="utf-8")
        assert old in text, f"fixture text {old!r} not in {name}"
        path.write_text(text.replace(old, new, 1), encoding="utf-8", newline="")

    return make


def edit_bytes(name: str, old: bytes, new: bytes) -> Callable[[Paths], None]:
    def make(p: Paths) -> None:
        path = p.data / name
        raw = path.read_bytes()
        assert old in raw, f"fixture bytes {old!r} not in {name}"
        path.write_bytes(raw.replace(old, new, 1))

    return make


def append(name: str, text: str) -> Callable[[Paths], None]:
    def make(p: Paths) -> None:
        path = p.data / name
        body = path.read_text(encoding="utf-8")
        path.write_text(body.rstrip("\n") + "\n" + text, encoding="utf-8", newline="")

    return make


def write(name: str, text: str | bytes) -> Callable[[Paths], None]:
    def make(p: Paths) -> None:
        path = p.data / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8", newline="")

    return make


def last_cell(name: str, text: str) -> Callable[[Paths], None]:
    """Put ``text`` as the last cell (the note) of the last row of data file ``name``."""

    def make(p: Paths) -> None:
        path = p.data / name
        rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))
        rows = [r for r in rows if r]
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(rows[:-1])
        path.write_text(
            buf.getvalue() + ",".join(rows[-1][:-1]) + "," + text + "\n",
            encoding="utf-8",
            newline="",
        )

    return make


def in_report(name: str, change: Callable[[Path], None]) -> Callable[[Paths], None]:
    def make(p: Paths) -> None:
        change(p.out / "base" / name)

    return make


def appended(extra: bytes) -> Callable[[Path], None]:
    return lambda path: path.write_bytes(path.read_bytes() + extra)


def write_into(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def no_write_access(relative: str) -> Callable[[Paths], None]:
    """os.access says p.out/relative is not writable (what a read-only file system answers)."""

    def make(p: Paths) -> None:
        target = p.out / relative
        real = os.access

        def access(path, mode, *args, **kwargs):
            if Path(path) == target and mode & os.W_OK:
                return False
            return real(path, mode, *args, **kwargs)

        p.monkeypatch.setattr(os, "access", access)

    return make


def hold_lock(p: Paths) -> None:
    """Another run holds the output folder's lock; this one waits a moment only."""
    fd = os.open(p.out, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    p.finally_.append(lambda: os.close(fd))
    p.monkeypatch.setattr(output, "LOCK_WAIT_S", 0.3)


def replace_report_folder(kind: str) -> Callable[[Paths], None]:
    def make(p: Paths) -> None:
        folder = p.out / "base"
        shutil.rmtree(folder)
        if kind == "symlink":
            (p.tmp / "elsewhere").mkdir()
            folder.symlink_to(p.tmp / "elsewhere")
        else:
            folder.write_text("a file where the report folder goes")

    return make


def both(*makes: Callable[[Paths], None]) -> Callable[[Paths], None]:
    def make(p: Paths) -> None:
        for m in makes:
            m(p)

    return make


NON_PD = (
    "key_a,key_b,rank_correlation,note\n"
    "usage.demand_sigma,usage.speed_elasticity,0.9,\n"
    "usage.speed_elasticity,usage.peak_to_average,0.9,\n"
    "usage.demand_sigma,usage.peak_to_average,-0.9,\n"
)
MANY_GRID_ROWS = "".join(
    f"g{i},tiers.ultrafast.usage_multiplier,usage.token_efficiency_gain_annual,3,\n"
    for i in range(10_001)
)

# ---------------------------------------------------------------------------
# the corpus

SCENARIO_NAMES = [
    Case(
        "scenario-parent-path",
        report("--scenario", "../../x"),
        r"--scenario \.\./\.\./x: not a scenario name; expected 1 to 64 letters, digits, _ or -",
    ),
    Case("scenario-absolute-path", report("--scenario", "/etc/passwd"), r"/etc/passwd: not a "),
    Case("scenario-with-dot", report("--scenario", "low_throughput.csv"), r"\.csv: not a scenario"),
    Case("scenario-with-slash", report("--scenario", "sub/x"), r"--scenario sub/x: not a scenario"),
    Case("scenario-dotdot", summary("--scenario", ".."), r"--scenario \.\.: not a scenario name"),
    Case("scenario-empty", report("--scenario", ""), r"--scenario : not a scenario name"),
    Case("scenario-space", report("--scenario", "low throughput"), r"low throughput: not a"),
    Case("scenario-too-long", validate("--scenario", "a" * 65), r"--scenario a{65}: not a"),
    Case("scenario-non-ascii", report("--scenario", "débit"), r"--scenario débit: not a"),
    Case("scenario-nul", report("--scenario", "x\x00y"), r"--scenario x\\x00y: not a scenario"),
    Case(
        "scenario-base-reserved",
        report("--scenario", "base"),
        r"--scenario base: the name is reserved for the run without a scenario",
    ),
    Case(
        "scenario-unknown",
        report("--scenario", "nope"),
        r"scenario 'nope': no file \S+/scenarios/nope\.csv; known scenarios: bear, bull, "
        r"codex_spark, efficient_tokens, gpu_b300, groq_lpu, low_throughput, standard_only, "
        r"strong_upgrade, token_efficient",
    ),
    Case(
        "scenario-key-set-twice",
        report("--scenario", "twice"),
        r"scenarios/twice\.csv row 3, column key: 'contract\.mw' is set twice in this scenario "
        r"\(rows 2 and 3\); keep one",
        write("scenarios/twice.csv", "key,value,note\ncontract.mw,700,\ncontract.mw,800,\n"),
    ),
    Case(
        "scenario-unknown-key",
        summary("--scenario", "typo"),
        r"scenarios/typo\.csv row 2: unknown key 'contract\.mwx'; did you mean contract\.mw",
        write("scenarios/typo.csv", "key,value,note\ncontract.mwx,700,\n"),
    ),
    Case(
        "validate-checks-every-scenario",
        validate(),
        r"scenarios/broken\.csv row 2, column value: \"lots\" is not a number",
        write("scenarios/broken.csv", "key,value,note\ncontract.mw,lots,\n"),
    ),
    Case(
        "validate-scenario-file-name",
        validate(),
        r"scenarios/my scenario\.csv: 'my scenario' cannot name a scenario .*; rename the file",
        write("scenarios/my scenario.csv", "key,value,note\ncontract.mw,700,\n"),
    ),
    Case(
        "validate-scenario-breaks-a-range",
        validate(),
        r"scenario steep: \S+/sensitivity\.csv row \d+, columns low/high: .*the base value 8 "
        r"\(the mode\) lies outside \[2, 6\]",
        write("scenarios/steep.csv", "key,value,note\ntiers.ultrafast.usage_multiplier,8,\n"),
    ),
]

NUMBERS = [
    Case(f"report-samples-{name}", report("--samples", text), f"--samples {re.escape(text)}: {why}")
    for name, text, why in [
        ("zero", "0", "out of range; expected a whole number from 1 to 10,000,000"),
        ("negative", "-1", "out of range"),
        ("1e12", "1e12", "out of range"),
        ("over-max", "10000001", "out of range"),
        ("text", "abc", "not a whole number"),
        ("fraction", "1.5", "not a whole number"),
        ("nan", "nan", "not a whole number"),
        ("inf", "inf", "out of range"),
        ("empty", "", "not a whole number"),
        ("hex", "0x10", "not a whole number"),
    ]
] + [
    Case(
        "report-sobol-zero",
        report("--sobol-samples", "0"),
        r"--sobol-samples 0: out of range; expected a whole number from 1 to 65,536",
    ),
    Case("report-sobol-negative", report("--sobol-samples", "-8"), r"--sobol-samples -8: out of"),
    Case(
        "report-sobol-over-max", report("--sobol-samples", "65537"), r"--sobol-samples 65537: out"
    ),
    Case(
        "report-seed-negative",
        report("--seed", "-1"),
        r"--seed -1: out of range; expected a whole number from 0 to 4,294,967,295",
    ),
    Case("report-seed-2**32", report("--seed", "4294967296"), r"--seed 4294967296: out of range"),
    Case("report-seed-fraction", report("--seed", "1.5"), r"--seed 1\.5: not a whole number"),
    Case("report-seed-text", report("--seed", "lucky"), r"--seed lucky: not a whole number"),
    Case(
        "report-workers-zero",
        report("--workers", "0"),
        r"--workers 0: out of range; expected a whole number from 1 to 256",
    ),
    Case("report-workers-negative", report("--workers", "-2"), r"--workers -2: out of range"),
    Case("report-workers-too-many", report("--workers", "257"), r"--workers 257: out of range"),
    Case("report-workers-text", report("--workers", "all"), r"--workers all: not a whole number"),
    Case(
        "montecarlo-samples-zero",
        sensitivity("montecarlo", "--samples", "0"),
        r"--samples 0: out of range; expected a whole number from 1 to 10,000,000",
    ),
    Case(
        "sobol-samples-over-max",
        sensitivity("sobol", "--samples", "65537"),
        r"--samples 65537: out of range; expected a whole number from 1 to 65,536 \(Sobol base",
    ),
    Case("sobol-samples-zero", sensitivity("sobol", "--samples", "0"), r"--samples 0: out of"),
    Case("sensitivity-seed-negative", sensitivity("tornado", "--seed", "-5"), r"--seed -5: out"),
    Case("sensitivity-workers-zero", sensitivity("grid", "--workers", "0"), r"--workers 0: out"),
    Case("goal-seek-low-nan", goal_seek("--low", "nan"), r"--low nan: not finite"),
    Case("goal-seek-high-inf", goal_seek("--high", "inf"), r"--high inf: not finite"),
    Case("goal-seek-low-text", goal_seek("--low", "cheap"), r"--low cheap: not a number"),
]

CSV_READER = [
    Case(
        "unclosed-quote-at-the-end",
        validate(),
        r"plans\.csv row 3: a quoted cell is never closed \(the file ends inside quotes\)",
        last_cell("plans.csv", '"a note whose quote is never closed'),
    ),
    Case(
        "unclosed-quote-inside",
        validate(),
        r"tiers\.csv row 2: text after the closing quote of a cell",
        edit("tiers.csv", '""approximately 54 tokens per second"""', '""approximately 54'),
    ),
    Case(
        "text-after-a-closing-quote",
        summary(),
        r"plans\.csv row 2: text after the closing quote of a cell; put the whole cell in quotes",
        edit("plans.csv", 'are Guesstimates",', 'are Guesstimates" (sic),'),
    ),
    Case(
        "cell-over-the-length-limit",
        validate(),
        r"plans\.csv row 3, column note: the cell has 100,001 characters; expected at most 100,000",
        last_cell("plans.csv", "x" * 100_001),
    ),
    Case(
        "cell-over-the-csv-module-limit",
        validate(),
        r"plans\.csv row 3: a cell has more than 100,000 characters",
        last_cell("plans.csv", "x" * 200_000),
    ),
    Case(
        "too-many-rows",
        validate(),
        r"grids\.csv row 10002: more than 10,000 rows after the header",
        append("grids.csv", MANY_GRID_ROWS),
    ),
    Case(
        "file-too-large",
        validate(),
        r"frontier\.csv: the file has [\d,]+ bytes; expected less than 16,777,216",
        append("frontier.csv", "\n" * (16 * 2**20)),
    ),
    Case(
        "nul-inside-a-number",
        validate(),
        r'plans\.csv row 3 \(pro\), column price_usd_month: "2\\x0000" is not a number',
        edit("plans.csv", "pro,200,", "pro,2\x0000,"),
    ),
    Case(
        "bom-inside-a-number",
        report(),
        r'column price_usd_month: "\\ufeff200" is not a number',
        edit("plans.csv", "pro,200,", "pro,\ufeff200,"),
    ),
    Case(
        "zero-width-space-in-a-number",
        validate(),
        r'column price_usd_month: "2\\u200b00" is not a number',
        edit("plans.csv", "pro,200,", "pro,2\u200b00,"),
    ),
    Case(
        "control-character-in-a-number",
        validate(),
        r'column price_usd_month: "2\\x0700" is not a number',
        edit("plans.csv", "pro,200,", "pro,2\x0700,"),
    ),
    Case(
        "tab-in-a-number",
        validate(),
        r'column price_usd_month: "2\\t00" is not a number',
        edit("plans.csv", "pro,200,", "pro,2\t00,"),
    ),
    Case(
        "no-break-space-in-an-id",
        validate(),
        r'column value: "wse\\xa03" is not an id',
        edit("assumptions.csv", "contract.platform,wse3,", "contract.platform,wse\xa03,"),
    ),
    Case(
        "bom-in-a-header",
        validate(),
        r"assumptions\.csv row 1: missing column\(s\) value; found key, \\ufeffvalue, unit",
        edit("assumptions.csv", "key,value,", "key,\ufeffvalue,"),
    ),
    Case(
        "nul-in-a-set-value",
        summary("--set", "contract.mw=7\x0050"),
        r'--set contract\.mw=7\\x0050, column value: "7\\x0050" is not a number',
    ),
    Case(
        "not-utf8",
        validate(),
        r"plans\.csv row 2: the file is not UTF-8 text \(byte 0xe9\)",
        edit_bytes("plans.csv", b"Public figure", b"Public figur\xe9"),
    ),
    Case(
        "empty-file",
        validate(),
        r"grids\.csv: the file is empty; expected a header row",
        write("grids.csv", ""),
    ),
    Case(
        "duplicate-grid-id",
        validate(),
        r"grids\.csv row 5, column id: 'burn_vs_efficiency' appears twice \(rows 2 and 5\)",
        append("grids.csv", "burn_vs_efficiency,contract.ramp_months,market.mau,5,\n"),
    ),
    Case(
        "correlation-pair-twice",
        validate(),
        r"correlations\.csv row 5: the pair tiers\.ultrafast\.usage_multiplier ~ "
        r"tiers\.ultrafast\.adoption is given twice, in rows 2 and 5; give each pair once",
        append(
            "correlations.csv", "tiers.ultrafast.usage_multiplier,tiers.ultrafast.adoption,0.4,\n"
        ),
    ),
    Case(
        "correlation-pair-reversed",
        validate(),
        r"correlations\.csv row 5: the pair tiers\.ultrafast\.adoption ~ "
        r"tiers\.ultrafast\.usage_multiplier is given twice, in rows 2 and 5 \(row 2 gives it as "
        r"tiers\.ultrafast\.usage_multiplier ~ tiers\.ultrafast\.adoption\)",
        append(
            "correlations.csv", "tiers.ultrafast.adoption,tiers.ultrafast.usage_multiplier,-0.3,\n"
        ),
    ),
    Case(
        "sensitivity-key-twice",
        validate(),
        r"sensitivity\.csv row \d+, column key: 'contract\.ramp_months' appears twice "
        r"\(rows 3 and \d+\)",
        append("sensitivity.csv", "contract.ramp_months,uniform,4,10,again\n"),
    ),
    Case(
        "hardware-id-twice",
        validate(),
        r"hardware\.csv row \d+, column id: 'b300' appears twice",
        edit("hardware.csv", "h100,80", "b300,80"),
    ),
    Case(
        "validate-non-positive-definite",
        validate(),
        r"correlations\.csv: rows 2, 3 and 4: the rank correlations usage\.demand_sigma ~ "
        r"usage\.speed_elasticity \(0\.9\), .* cannot hold together \(the correlation matrix is not "
        r"positive definite; smallest eigenvalue -0\.8\); weaken them",
        write("correlations.csv", NON_PD),
    ),
    Case(
        "report-non-positive-definite",
        report_sampled(),
        r"correlations\.csv: rows 2, 3 and 4: the rank correlations .* cannot hold together",
        write("correlations.csv", NON_PD),
    ),
    Case(
        "validate-base-outside-its-range",
        validate(),
        r"sensitivity\.csv row 3, columns low/high: contract\.ramp_months: the base value 24 "
        r"\(the mode\) lies outside \[7, 12\]",
        edit(
            "sensitivity.csv",
            "contract.ramp_months,triangular,6,30",
            "contract.ramp_months,triangular,7,12",
        ),
    ),
    Case(
        "validate-set-outside-its-range",
        validate("--set", "tiers.ultrafast.usage_multiplier=8"),
        r"sensitivity\.csv row \d+, columns low/high: .*the base value 8 \(the mode\) lies outside",
    ),
    Case(
        "set-without-equals", summary("--set", "contract.mw"), r"--set contract\.mw: expected KEY"
    ),
    Case(
        "set-unknown-key",
        report("--set", "tiers.ultrafst.adoption=0.1"),
        r"unknown key 'tiers\.ultrafst\.adoption'; did you mean tiers\.ultrafast\.adoption",
    ),
]


def _edit_manifest(p: Paths) -> None:
    """The manifest's digest of summary.md no longer matches the file."""
    m = p.out / "base" / output.MANIFEST
    lines = [
        ("0" * 64 + x[64:]) if x.endswith("summary.md") else x for x in m.read_text().split("\n")
    ]
    m.write_text("\n".join(lines))


OUTPUTS = [
    Case(
        "csv-to-a-full-device",
        sensitivity("montecarlo", "--samples", "20", "--csv", "/dev/full"),
        r"^econ: error: /dev/full: cannot write \(No space left on device\)$",
    ),
    Case(
        "csv-into-a-missing-folder",
        sensitivity("montecarlo", "--samples", "20", "--csv", "{tmp}/missing/mc.csv"),
        r"missing/mc\.csv: cannot write \(No such file or directory\)",
    ),
    Case(
        "csv-onto-a-folder",
        sensitivity("montecarlo", "--samples", "20", "--csv", "{out}"),
        r"reports: cannot write \(Is a directory\)",
    ),
    Case(
        "out-is-a-file",
        report("--out", "{out}/base/summary.md"),
        r"summary\.md: cannot create the output folder \(it is a file\)",
    ),
    Case(
        "out-under-a-file",
        report("--out", "{out}/base/summary.md/deeper"),
        r"deeper: cannot create the output folder \(Not a directory\)",
    ),
    Case(
        "report-folder-read-only",
        report(),
        r"/base: the output folder is read-only",
        no_write_access("base"),
    ),
    Case(
        "output-folder-read-only",
        report(),
        r"reports: the output folder is read-only",
        no_write_access("."),
    ),
    Case(
        "workbook-read-only",
        report(),
        r"payback_analysis\.xlsx: the workbook is read-only; make it writable",
        no_write_access("base/payback_analysis.xlsx"),
    ),
    Case(
        "edited-workbook",
        report(),
        r"base/payback_analysis\.xlsx: this workbook was changed after econ wrote it .*--force",
        in_report("payback_analysis.xlsx", appended(b"edited")),
    ),
    Case(
        "edited-workbook-before-sampling",
        report_sampled(),
        r"base/payback_analysis\.xlsx: this workbook was changed after econ wrote it",
        in_report("payback_analysis.xlsx", appended(b"edited")),
    ),
    Case(
        "edited-summary",
        report(),
        r"base/summary\.md: this file was changed after econ wrote it \(or econ did not write "
        r"it\); not overwriting it\. Move it away, write elsewhere with --out, or pass --force$",
        in_report("summary.md", appended(b"\nMy conclusion.\n")),
    ),
    Case(
        "edited-chart",
        report(),
        r"base/frontier\.png: this file was changed after econ wrote it",
        in_report("frontier.png", appended(b"x")),
    ),
    Case(
        "deleted-manifest",
        report(),
        r"base/payback_analysis\.xlsx: this workbook was changed after econ wrote it \(or econ did "
        r"not write it\) \(and \d+ more\)",
        in_report(output.MANIFEST, lambda path: path.unlink()),
    ),
    Case(
        "tampered-manifest",
        report(),
        r"base/summary\.md: this file was changed after econ wrote it",
        _edit_manifest,
    ),
    Case(
        "summary-econ-did-not-write",
        report("--scenario", "low_throughput"),
        r"low_throughput/summary\.md: this file was changed after econ wrote it \(or econ did not",
        lambda p: write_into(p.out / "low_throughput" / "summary.md", "my own summary"),
    ),
    Case(
        "workbook-open-elsewhere",
        report(),
        r"base/payback_analysis\.xlsx: the workbook is open in a spreadsheet application "
        r"\(lock file \.~lock\.payback_analysis\.xlsx#\)",
        in_report(".~lock.payback_analysis.xlsx#", lambda path: path.write_text("user,host")),
    ),
    Case(
        "report-folder-is-a-symlink",
        report(),
        r"/base: the report folder is a symbolic link",
        replace_report_folder("symlink"),
    ),
    Case(
        "report-folder-is-a-file",
        report(),
        r"/base: not a folder; move it away or write elsewhere with --out",
        replace_report_folder("file"),
    ),
    Case(
        "another-run-holds-the-lock",
        report(),
        r"/base: another econ run is writing a report into \S+ \(waited 0\.3 s\); try again",
        hold_lock,
    ),
]

CASES = SCENARIO_NAMES + NUMBERS + CSV_READER + OUTPUTS


# ---------------------------------------------------------------------------
# the runner


@pytest.fixture(scope="module")
def report_template(tmp_path_factory) -> Path:
    """An output folder holding the report econ writes for the default data."""
    out = tmp_path_factory.mktemp("template") / "reports"
    assert main(["report", "--data", str(DATA), "--out", str(out), "--no-sensitivity"]) == 0
    return out


def snapshot(folder: Path) -> dict[str, object]:
    """Everything under ``folder``: files' bytes, folders, symbolic links' targets."""
    if not folder.exists():
        return {}
    out: dict[str, object] = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = Path(root) / name
            rel = str(p.relative_to(folder))
            if p.is_symlink():
                out[rel] = ("link", os.readlink(p))
            elif p.is_dir():
                out[rel] = "dir"
            else:
                out[rel] = p.read_bytes()
    return out


def test_the_corpus_is_large_and_its_ids_unique():
    assert len(CASES) >= 60
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_refused_in_one_line_and_changes_nothing(
    case: Case, report_template, tmp_path, capsys, monkeypatch
):
    p = Paths(tmp_path / "data", tmp_path / "reports", tmp_path, monkeypatch)
    shutil.copytree(DATA, p.data)
    shutil.copytree(report_template, p.out, symlinks=True)
    try:
        if case.make is not None:
            case.make(p)
        before = snapshot(p.out)
        argv = [a.format(data=p.data, out=p.out, tmp=p.tmp) for a in case.argv]
        capsys.readouterr()
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse
            code = exc.code
        err = capsys.readouterr().err
    finally:
        for f in p.finally_:
            f()
    assert code == 2, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("econ: error: "), err
    assert re.search(case.message, lines[0]), lines[0]
    assert "Traceback" not in err
    assert snapshot(p.out) == before


# ---------------------------------------------------------------------------
# the fuzzer

FILES = sorted(p.relative_to(DATA).as_posix() for p in DATA.rglob("*.csv"))
SPECIALS = ['"', '""', "\x00", "\ufeff", ";", ",", "\n", "\r", "\u200b", "\xa0", "%", "e", "-"]
VALUES = ["", "nan", "inf", "-inf", "1e309", "-0", "0", "-1", "1,5", "1.000,5", "3%", "x", '"']


@pytest.fixture(scope="module")
def fuzz_data(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("fuzz") / "data"
    shutil.copytree(DATA, dest)
    return dest


def _load_or_refuse(data: Path, name: str, content: bytes) -> None:
    """Load data with ``name`` replaced by ``content``: a clean load or one AssumptionError."""
    path = data / name
    original = path.read_bytes()
    path.write_bytes(content)
    try:
        a = econ.load(data)
        if name.startswith("scenarios/"):
            a.with_scenario(Path(name).stem)
    except AssumptionError:
        pass
    finally:
        path.write_bytes(original)


@st.composite
def mutated(draw) -> tuple[str, bytes]:
    name = draw(st.sampled_from(FILES))
    text = (DATA / name).read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["swap", "delete", "duplicate", "value", "row-", "row+", "rows"]))
        if not rows:
            break
        i = draw(st.integers(0, len(rows) - 1))
        row = rows[i]
        if op == "row-":
            del rows[i]
        elif op == "row+":
            rows.insert(draw(st.integers(0, len(rows))), list(row))
        elif op == "rows":
            j = draw(st.integers(0, len(rows) - 1))
            rows[i], rows[j] = rows[j], rows[i]
        elif row:
            j = draw(st.integers(0, len(row) - 1))
            if op == "swap":
                k = draw(st.integers(0, len(row) - 1))
                row[j], row[k] = row[k], row[j]
            elif op == "delete":
                del row[j]
            elif op == "duplicate":
                row.insert(j, row[j])
            else:
                row[j] = draw(st.sampled_from(VALUES))
    buf = io.StringIO()
    csv.writer(buf, lineterminator=draw(st.sampled_from(["\n", "\r\n"]))).writerows(rows)
    out = buf.getvalue()
    for _ in range(draw(st.integers(0, 3))):  # raw characters anywhere, quotes included
        at = draw(st.integers(0, len(out)))
        out = out[:at] + draw(st.sampled_from(SPECIALS)) + out[at:]
    data = out.encode("utf-8")
    if draw(st.booleans()) and draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    return name, data


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=mutated())
def test_fuzz_mutated_csvs_load_or_raise_assumption_error(fuzz_data, case):
    _load_or_refuse(fuzz_data, *case)


@settings(max_examples=100, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(FILES), content=st.binary(max_size=2_000))
def test_fuzz_random_bytes_load_or_raise_assumption_error(fuzz_data, name, content):
    _load_or_refuse(fuzz_data, name, content)
