"""A corpus of bad inputs and faults: each is refused with exit status 2 and one line naming
the culprit, and nothing under the output folder changes.

A case is (id, how to make it, the command, a regex the error line must match). To add one,
append a ``Case`` to the list of its kind; ``make`` edits the copy of the data (``p.data``) or
the output folder (``p.out``, which holds a report written by econ) before the command runs.
In the command, ``{data}``, ``{out}`` and ``{tmp}`` stand for those folders.

A case that econ does not refuse cleanly yet carries ``xfail``, the reason: it runs as a strict
expected failure, so that the fix turns it into a case that must pass (remove ``xfail`` then).
The regex of such a case is what the refusal should say.

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
import stat
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
    xfail: str | None = None  # why econ does not refuse it cleanly yet (a strict xfail)


# ---------------------------------------------------------------------------
# commands


# --replace: the output folder holds a report of the bundled data (written once for every case),
# which a report from the case's copy of the data would otherwise refuse to replace
def report(*extra: str) -> tuple[str, ...]:
    return ("report", "--data", "{data}", "--out", "{out}", "--no-sensitivity", "--replace", *extra)


def report_sampled(*extra: str) -> tuple[str, ...]:
    sampled = ("--samples", "50", "--sobol-samples", "8", "--replace")
    return ("report", "--data", "{data}", "--out", "{out}", *sampled, *extra)


def validate(*extra: str) -> tuple[str, ...]:
    return ("validate", "--data", "{data}", *extra)


def summary(*extra: str) -> tuple[str, ...]:
    return ("summary", "--data", "{data}", *extra)


def sensitivity(analysis: str, *extra: str) -> tuple[str, ...]:
    return ("sensitivity", analysis, "--data", "{data}", *extra)


def goal_seek(*extra: str, key: str = "contract.value_usd") -> tuple[str, ...]:
    return ("goal-seek", key, "--data", "{data}", *extra)


def capacity(*extra: str) -> tuple[str, ...]:
    return ("capacity", "--data", "{data}", *extra)


def init(folder: str, *extra: str) -> tuple[str, ...]:
    return ("init", folder, *extra)


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
        csv.writer(buf, lineterminator=",").writerow(rows[-1][:-1])  # the other cells quoted
        path.write_text(buf.getvalue() + text + "\n", encoding="utf-8", newline="")

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


def _rows(path: Path) -> list[list[str]]:
    return [r for r in csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")) if r]


def _write_rows(path: Path, rows: list[list[str]]) -> None:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8", newline="")


def cell(name: str, row_id: str, column: str, value: str) -> Callable[[Paths], None]:
    """Set one cell of data file ``name``: the row whose first cell is ``row_id`` (an id, or a
    key of assumptions.csv), the column named ``column``."""

    def make(p: Paths) -> None:
        path = p.data / name
        rows = _rows(path)
        j = rows[0].index(column)
        hits = [r for r in rows[1:] if r[0] == row_id]
        assert len(hits) == 1, f"fixture row {row_id!r} not once in {name}"
        hits[0][j] = value
        _write_rows(path, rows)

    return make


def drop_row(name: str, row_id: str) -> Callable[[Paths], None]:
    """Delete the row whose first cell is ``row_id`` from data file ``name``."""

    def make(p: Paths) -> None:
        path = p.data / name
        rows = _rows(path)
        kept = [r for r in rows if r[0] != row_id]
        assert len(kept) == len(rows) - 1, f"fixture row {row_id!r} not once in {name}"
        _write_rows(path, kept)

    return make


def scenario(name: str, *rows: str) -> Callable[[Paths], None]:
    """A scenario file data/scenarios/NAME.csv with the given key,value,note rows."""
    return write(f"scenarios/{name}.csv", "key,value,note\n" + "".join(r + "\n" for r in rows))


def full_device(name: str) -> Callable[[Paths], None]:
    """A device like /dev/full at p.tmp/name: every write fails with ENOSPC.

    Not /dev/full itself: run as root, a program that writes a temporary file beside the
    target and renames it into place would replace the system's device node.
    """

    def make(p: Paths) -> None:
        try:
            os.mknod(p.tmp / name, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
        except OSError as exc:
            pytest.skip(f"cannot make a device node here ({exc.strerror})")

    return make


def both(*makes: Callable[[Paths], None]) -> Callable[[Paths], None]:
    def make(p: Paths) -> None:
        for m in makes:
            m(p)

    return make


def row_of(name: str, first_cell: str) -> int:
    """The row number econ names for the row of bundled data file ``name`` whose first cell is
    ``first_cell`` (the header is row 1): the cases follow the files as they are laid out."""
    rows = _rows(DATA / name)
    hits = [n for n, r in enumerate(rows, 1) if r[0] == first_cell]
    assert len(hits) == 1, f"fixture row {first_cell!r} not once in {name}"
    return hits[0]


def next_row(name: str) -> int:
    """The row number of a row appended to bundled data file ``name``."""
    return len(_rows(DATA / name)) + 1


A = "assumptions.csv"

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
        r"scenario 'nope': no file \S+/scenarios/nope\.csv; known scenarios: "
        + re.escape(", ".join(sorted(f.stem for f in (DATA / "scenarios").glob("*.csv")))),
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
        r"scenarios/broken\.csv row 2 \(contract\.mw\), column value: \"lots\" is not a number",
        write("scenarios/broken.csv", "key,value,note\ncontract.mw,lots,\n"),
    ),
    Case(
        "validate-scenario-file-name",
        validate(),
        r"scenarios/my scenario\.csv: 'my scenario' cannot name a scenario .*; rename the file",
        write("scenarios/my scenario.csv", "key,value,note\ncontract.mw,700,\n"),
    ),
    Case(
        "validate-a-range-without-the-data-value",
        validate(),
        r"sensitivity\.csv row \d+, columns low/high: .*the base value 8 \(the mode\) lies "
        r"outside \[10, 12\]",
        cell("sensitivity.csv", "tiers.ultrafast.usage_multiplier", "low", "10"),
    ),
    Case(
        "capacity-scenario-parent-path",
        capacity("--scenario", "../x"),
        r"--scenario \.\./x: not a scenario name; expected 1 to 64 letters, digits, _ or -",
    ),
    Case(
        "goal-seek-scenario-absolute-path",
        goal_seek("--scenario", "/etc/x"),
        r"--scenario /etc/x: not a scenario name",
    ),
    Case(
        "tornado-scenario-with-slash",
        sensitivity("tornado", "--scenario", "a/b"),
        r"--scenario a/b: not a scenario name",
    ),
    Case(
        "montecarlo-scenario-backslash-path",
        sensitivity("montecarlo", "--samples", "50", "--scenario", "..\\x"),
        r"--scenario \.\.\\x: not a scenario name",
    ),
    Case(
        "scenario-value-of-the-wrong-kind",
        capacity("--scenario", "kind"),
        r'scenarios/kind\.csv row 2 \(capacity\.basis\), column value: "fast"; expected one of data, transferred, physics',
        scenario("kind", "capacity.basis,fast,"),
    ),
    Case(
        "scenario-probability-above-a-half",
        summary("--scenario", "eager"),
        r"scenarios/eager\.csv row 3 \(conversion\.max_capped_propensity\), column value: 0\.6 is out of range; expected a number in "
        r"\[0, 0\.5\] \[1/month\]",
        scenario("eager", "contract.mw,700,", "conversion.max_capped_propensity,0.6,"),
    ),
    Case(
        "scenario-empty-value",
        sensitivity("breakeven", "--scenario", "blank"),
        r'scenarios/blank\.csv row 2 \(contract\.mw\), column value: "" is not a number',
        scenario("blank", "contract.mw,,"),
    ),
    Case(
        "scenario-without-a-value-column",
        validate(),
        r"scenarios/cols\.csv row 1: missing column\(s\) value; found key, val",
        write("scenarios/cols.csv", "key,val\ncontract.mw,700\n"),
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
    Case(
        "montecarlo-workers-zero",
        sensitivity("montecarlo", "--samples", "50", "--workers", "0"),
        r"--workers 0: out of range; expected a whole number from 1 to 256",
    ),
    Case("sobol-workers-zero", sensitivity("sobol", "--workers", "0"), r"--workers 0: out of"),
    Case(
        "breakeven-workers-negative", sensitivity("breakeven", "--workers", "-1"), r"--workers -1"
    ),
    Case(
        "montecarlo-seed-2**32",
        sensitivity("montecarlo", "--seed", "4294967296"),
        r"--seed 4294967296: out of range; expected a whole number from 0 to 4,294,967,295",
    ),
    Case(
        "montecarlo-samples-fraction",
        sensitivity("montecarlo", "--samples", "1.5"),
        r"--samples 1\.5: not a whole number",
    ),
    Case(
        "sensitivity-metric-unknown",
        sensitivity("tornado", "--metric", "irr"),
        r"--metric invalid choice: 'irr' \(choose from 'npv', 'payback'\)",
    ),
    Case(
        "sensitivity-analysis-unknown",
        sensitivity("sweep"),
        r"invalid choice: 'sweep' \(choose from 'tornado', 'grid', 'montecarlo', 'sobol', 'breakeven', 'grid-mc'\)",
    ),
    Case(
        "goal-seek-target-unknown",
        goal_seek("--target", "irr"),
        r"--target invalid choice: 'irr' \(choose from 'npv', 'payback'\)",
    ),
    Case(
        "goal-seek-low-above-high",
        goal_seek("--low", "5", "--high", "1"),
        r"goal seek contract\.value_usd: empty search range \[5, 1\]",
    ),
    Case(
        "goal-seek-range-outside-the-keys-values",
        goal_seek("--low", "2", "--high", "3", key="api.diversion_to_lab_tiers"),
        r"api\.diversion_to_lab_tiers: --low 2\b.*expected .*\(0, 1\)",
    ),
    Case(
        "goal-seek-unknown-key",
        goal_seek(key="contract.valu_usd"),
        r"unknown key 'contract\.valu_usd'; did you mean contract\.value_usd",
    ),
    Case(
        "goal-seek-a-whole-number-key",
        goal_seek(key="horizon.months"),
        r"goal seek horizon\.months: an id, a flag or a whole-number key cannot be solved for",
    ),
    Case(
        "goal-seek-a-flag",
        goal_seek(key="free.served"),
        r"goal seek free\.served: an id, a flag or a whole-number key cannot be solved for",
    ),
    Case(
        "goal-seek-an-id",
        goal_seek(key="contract.payment"),
        r"goal seek contract\.payment: an id, a flag or a whole-number key cannot be solved for",
    ),
    Case(
        "goal-seek-a-retired-key",
        goal_seek(key="contract.pay_as_delivered"),
        r"'contract\.pay_as_delivered' was retired in version 4; use contract\.payment "
        r"\(pay_as_delivered or take_or_pay\) and contract\.delivered_share",
    ),
]
NUMBERS += [
    Case(f"capacity-speeds-{name}", capacity("--speeds", text), f"--speeds {re.escape(why)}")
    for name, text, why in [
        ("text", "fast", "'fast' is not a speed; expected positive numbers separated by commas"),
        ("zero", "0", "'0' is not a speed"),
        ("negative", "340,-5", "'-5' is not a speed"),
        ("empty-item", "340,,1000", "'' is not a speed"),
        ("empty", "", "'' is not a speed"),
        ("nan", "nan", "'nan' is not a speed"),
        ("inf", "750,inf", "'inf' is not a speed"),
        ("overflow", "1e400", "'1e400' is not a speed"),
        ("semicolons", "340;1000", "'340;1000' is not a speed"),
    ]
]

CSV_READER = [
    Case(
        "unclosed-quote-at-the-end",
        validate(),
        rf"plans\.csv row {next_row('plans.csv') - 1}: a quoted cell is never closed \(the file ends inside quotes\)",
        last_cell("plans.csv", '"a note whose quote is never closed'),
    ),
    Case(
        "unclosed-quote-inside",
        validate(),
        r"tiers\.csv row 2: text after the closing quote of a cell",
        edit("tiers.csv", '""approximately 54 tokens per second""', '"approximately 54 tokens'),
    ),
    Case(
        "text-after-a-closing-quote",
        summary(),
        r"plans\.csv row 2: text after the closing quote of a cell; put the whole cell in quotes",
        edit("plans.csv", "plus,20,20,21,3000,", 'plus,20,20,21,"3000" (sic),'),
    ),
    Case(
        "cell-over-the-length-limit",
        validate(),
        rf"plans\.csv row {next_row('plans.csv') - 1}, column note: the cell has 100,001 characters; expected at most 100,000",
        last_cell("plans.csv", "x" * 100_001),
    ),
    Case(
        "cell-over-the-csv-module-limit",
        validate(),
        rf"plans\.csv row {next_row('plans.csv') - 1}: a cell has more than 100,000 characters",
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
        r"frontier\.csv: the file has at least 16,777,216 bytes; expected less than 16,777,216",
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
        "tranches-that-never-deliver-the-contract",
        summary("--set", "contract.tranche_mw=100", "--set", "contract.tranche_months=12"),
        r"--set contract\.tranche_mw=100, column value \(contract\.tranche_mw\): tranches of 100 MW "
        r"every 12 months \(contract\.tranche_months\) bring 300 MW online \(3 tranches\) by the "
        r"end of the 30-month term \(contract\.term_months\), short of the 750 MW contracted "
        r"\(contract\.mw\), whose full value \(contract\.value_usd\) is paid; expected "
        r"contract\.tranche_mw >= 250 MW at this pace",
    ),
    Case(
        "tranches-that-never-deliver-the-contract-in-a-scenario",
        summary("--scenario", "slow_tranches"),
        r"scenarios/slow_tranches\.csv.*tranches of 250 MW every 24 months .* bring 500 MW online "
        r"\(2 tranches\)",
        write(
            "scenarios/slow_tranches.csv",
            "key,value,source\ncontract.tranche_mw,250,test\ncontract.tranche_months,24,test\n",
        ),
    ),
    Case(
        "blank-first-row",
        validate(),
        r"assumptions\.csv row 1: blank; expected the header row \(the column names\) in row 1: "
        r"delete the blank row above it",
        edit_bytes("assumptions.csv", b"key,", b"\r\nkey,"),
    ),
    Case(
        "blank-first-rows-of-separators",
        validate(),
        r"plans\.csv rows 1 to 2: blank; expected the header row .* delete the blank rows above it",
        edit_bytes("plans.csv", b"id,", b",,,\n\nid,"),
    ),
    Case(
        "only-blank-rows",
        validate(),
        r"grids\.csv: the file is empty; expected a header row",
        write("grids.csv", "\n,,\n\n"),
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
        rf"correlations\.csv row {next_row('correlations.csv')}: the pair "
        r"tiers\.ultrafast\.usage_multiplier ~ tiers\.ultrafast\.adoption is given twice, in rows 2 "
        rf"and {next_row('correlations.csv')}; give each pair once",
        append(
            "correlations.csv", "tiers.ultrafast.usage_multiplier,tiers.ultrafast.adoption,0.4,\n"
        ),
    ),
    Case(
        "correlation-pair-reversed",
        validate(),
        rf"correlations\.csv row {next_row('correlations.csv')}: the pair tiers\.ultrafast\.adoption ~ "
        r"tiers\.ultrafast\.usage_multiplier is given twice, in rows 2 and "
        rf"{next_row('correlations.csv')} \(row 2 gives it as "
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
        "tornado-on-a-range-without-the-data-value",
        sensitivity("tornado", "--set", "contract.mw=700"),
        r"sensitivity\.csv row \d+, columns low/high: .*the base value 8 \(the mode\) lies outside",
        cell("sensitivity.csv", "tiers.ultrafast.usage_multiplier", "low", "10"),
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
        r"--csv \S+/missing/mc\.csv: the folder \S+/missing does not exist; create it, or name a "
        r"file in a folder that does$",
    ),
    Case(
        "csv-onto-a-folder",
        sensitivity("montecarlo", "--samples", "20", "--csv", "{out}"),
        r"--csv \S+/reports: is a folder; expected a file name, e\.g\. \S+/reports/table\.csv$",
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
    Case(
        "samples-csv-into-a-missing-folder",
        sensitivity("montecarlo", "--samples", "50", "--samples-csv", "{out}/missing/samples.csv"),
        r"--samples-csv \S+/reports/missing/samples\.csv: the folder \S+/reports/missing does not "
        r"exist",
    ),
    Case(
        "samples-csv-onto-a-folder",
        sensitivity("montecarlo", "--samples", "50", "--samples-csv", "{out}/base"),
        r"--samples-csv \S+/reports/base: is a folder; expected a file name, e\.g\. "
        r"\S+/reports/base/samples\.csv$",
    ),
    Case(
        "samples-csv-to-a-full-device",
        sensitivity("montecarlo", "--samples", "50", "--samples-csv", "{tmp}/full"),
        r"/full: cannot write the samples file \(No space left on device\)$",
        full_device("full"),
    ),
    Case(
        "samples-csv-for-another-analysis",
        sensitivity("tornado", "--samples-csv", "{out}/samples.csv"),
        r"--samples-csv: only econ sensitivity montecarlo writes samples",
    ),
    Case(
        "init-into-the-report-folder",
        init("{out}/base"),
        r"reports/base already has files; choose an empty folder or pass --force",
    ),
    Case(
        "init-onto-a-file",
        init("{out}/base/summary.md"),
        r"base/summary\.md: (Not a directory|not a folder)",
    ),
]

# values of the version-2 keys out of range or of the wrong kind, in the data and by --set
KEYS = [
    Case(
        "payment-flat",
        validate(),
        rf"assumptions\.csv row {row_of(A, 'contract.payment')} \(contract\.payment\), column "
        r'value: "flat"; expected one of pay_as_delivered, take_or_pay',
        cell("assumptions.csv", "contract.payment", "value", "flat"),
    ),
    Case(
        "payment-a-flag-by-set",
        summary("--set", "contract.payment=1"),
        r'--set contract\.payment=1, column value: "1"; expected one of pay_as_delivered, '
        r"take_or_pay",
    ),
    Case(
        "delivered-share-zero",
        validate(),
        rf"assumptions\.csv row {row_of(A, 'contract.delivered_share')} "
        r"\(contract\.delivered_share\), column value: 0 is out of range; expected a number in "
        r"\(0, 1\] \[share\]",
        cell("assumptions.csv", "contract.delivered_share", "value", "0"),
    ),
    Case(
        "terminal-value-half",
        summary("--set", "finance.terminal_value=0.5"),
        r"--set finance\.terminal_value=0\.5, column value: 0\.5 is out of range; expected a whole "
        r"number in \[0, 1\] \[0/1\]",
    ),
    Case(
        "terminal-value-half-in-the-data",
        report(),
        rf"assumptions\.csv row {row_of(A, 'finance.terminal_value')} "
        r"\(finance\.terminal_value\), column value: 0\.5 is out of range",
        cell("assumptions.csv", "finance.terminal_value", "value", "0.5"),
    ),
    Case(
        "capacity-basis-fast",
        validate(),
        rf"assumptions\.csv row {row_of(A, 'capacity.basis')} \(capacity\.basis\), column "
        r'value: "fast"; expected one of data, transferred, physics',
        cell("assumptions.csv", "capacity.basis", "value", "fast"),
    ),
    Case(
        "capacity-basis-fast-by-set",
        capacity("--set", "capacity.basis=fast"),
        r'--set capacity\.basis=fast, column value: "fast"; expected one of data, transferred, physics',
    ),
    Case(
        "capacity-basis-a-number",
        sensitivity("grid", "--set", "capacity.basis=1"),
        r'--set capacity\.basis=1, column value: "1"; expected one of data, transferred, physics',
    ),
    Case(
        "capacity-basis-wrong-unit",
        validate(),
        rf"assumptions\.csv row {row_of(A, 'capacity.basis')} \(capacity\.basis\), column "
        r'unit: "id"; expected "data/transferred/physics"',
        cell("assumptions.csv", "capacity.basis", "unit", "id"),
    ),
    Case(
        "peak-to-average-below-1",
        validate(),
        rf"assumptions\.csv row {row_of(A, 'usage.peak_to_average')} "
        r"\(usage\.peak_to_average\), column value: 0\.5 is out of range; "
        r"expected a number in \[1, 100\] \[x\]",
        cell("assumptions.csv", "usage.peak_to_average", "value", "0.5"),
    ),
    Case(
        "price-elasticity-negative",
        sensitivity("tornado", "--set", "api.price_elasticity=-1"),
        r"--set api\.price_elasticity=-1, column value: -1 is out of range; expected a number in "
        r"\[0, 5\]",
    ),
    Case(
        "base-upgrade-above-a-half",
        validate(),
        rf"assumptions\.csv row {row_of(A, 'conversion.max_capped_propensity')} "
        r"\(conversion\.max_capped_propensity\), column value: 0\.6 is "
        r"out of range; expected a number in \[0, 0\.5\] \[1/month\]",
        cell("assumptions.csv", "conversion.max_capped_propensity", "value", "0.6"),
    ),
    Case(
        "upgrade-propensity-above-a-half",
        goal_seek("--set", "conversion.max_capped_propensity=0.51"),
        r"--set conversion\.max_capped_propensity=0\.51, column value: 0\.51 is out of range; "
        r"expected a number in \[0, 0\.5\]",
    ),
    Case(
        "churn-above-a-half",
        summary("--set", "conversion.pro_churn_monthly=70%"),
        r"--set conversion\.pro_churn_monthly=70%, column value: 70% is out of range; expected a "
        r"number in \[0, 0\.5\]",
    ),
    Case(
        "extra-churn-above-a-half",
        sensitivity(
            "sobol", "--samples", "8", "--set", "conversion.extra_churn_after_term_monthly=0.9"
        ),
        r"--set conversion\.extra_churn_after_term_monthly=0\.9, column value: 0\.9 is out of range",
    ),
    Case(
        # docs/model.md V4.6: a successor is at most 16 times the served model's size
        "successor-of-an-implausible-size",
        summary("--set", "model.successor_params_multiple=17"),
        r"--set model\.successor_params_multiple=17, column value: 17 is out of range; expected "
        r"a number in \(0, 16\]",
    ),
    Case(
        "horizon-above-120",
        validate(),
        rf"assumptions\.csv row {row_of(A, 'horizon.months')} \(horizon\.months\), column "
        r"value: 121 is out of range; expected a "
        r"whole number in \[1, 120\] \[months\]",
        cell("assumptions.csv", "horizon.months", "value", "121"),
    ),
    Case(
        "horizon-shorter-than-the-term",
        summary("--set", "horizon.months=24"),
        r"--set horizon\.months=24, column value \(horizon\.months\): 24 is shorter than the contract term 30; expected "
        r"horizon\.months >= contract\.term_months",
    ),
    Case(
        "term-above-120",
        report("--set", "contract.term_months=121"),
        r"--set contract\.term_months=121, column value: 121 is out of range; expected a whole "
        r"number in \[1, 120\]",
    ),
    Case(
        "layers-fraction",
        validate(),
        rf"assumptions\.csv row {row_of(A, 'model.layers')} \(model\.layers\), column value: "
        r"12\.5 is out of range; expected a "
        r"whole number in \[1, 10000\] \[layers\]",
        cell("assumptions.csv", "model.layers", "value", "12.5"),
    ),
    Case(
        "speculative-speedup-below-1",
        capacity("--set", "model.speculative_speedup=0.5"),
        r"--set model\.speculative_speedup=0\.5, column value: 0\.5 is out of range; expected a "
        r"number in \[1, 20\] \[x\]",
    ),
    Case(
        "domain-chips-zero",
        validate(),
        r"hardware\.csv row 3 \(wse3\), column domain_chips: 0 is out of range; expected a whole "
        r"number in \[1, 1e\+06\] \[chips\]",
        cell("hardware.csv", "wse3", "domain_chips", "0"),
    ),
    Case(
        "efficiency-zero",
        capacity(),
        r"hardware\.csv row 2 \(b300\), column efficiency: 0 is out of range; expected a number in "
        r"\(0, 1\] \[share\]",
        cell("hardware.csv", "b300", "efficiency", "0"),
    ),
    Case(
        "efficiency-above-1",
        capacity("--set", "hardware.b300.efficiency=1.5"),
        r"--set hardware\.b300\.efficiency=1\.5, column value: 1\.5 is out of range; expected a "
        r"number in \(0, 1\]",
    ),
    Case(
        "link-negative",
        validate(),
        r"hardware\.csv row 4 \(h100\), column link_gb_s: -1 is out of range; expected a number in "
        r"\(0, 1e\+06\] \[GB/s\]",
        cell("hardware.csv", "h100", "link_gb_s", "-1"),
    ),
    Case(
        "frontier-scale-zero",
        sensitivity("grid", "--set", "hardware.wse3.frontier_scale=0"),
        r"--set hardware\.wse3\.frontier_scale=0, column value: 0 is out of range; expected a "
        r"number in \(0, 100\] \[x\]",
    ),
    Case(
        "frontier-scale-zero-in-the-data",
        validate(),
        r"hardware\.csv row 3 \(wse3\), column frontier_scale: 0 is out of range",
        cell("hardware.csv", "wse3", "frontier_scale", "0"),
    ),
    Case(
        "contract-platform-unknown",
        validate(),
        rf"assumptions\.csv row {row_of(A, 'contract.platform')}, column value "
        r"\(contract\.platform\): 'tpu' is not in hardware\.csv; "
        r"expected one of b300, wse3, h100, groq_lpu",
        cell("assumptions.csv", "contract.platform", "value", "tpu"),
    ),
    Case(
        "contract-platform-case",
        summary("--set", "contract.platform=WSE3"),
        r"\(contract\.platform\): 'WSE3' is not in hardware\.csv",
    ),
    Case(
        "a-key-missing",
        validate(),
        r"assumptions\.csv: missing key\(s\) model\.layers$",
        drop_row("assumptions.csv", "model.layers"),
    ),
    Case(
        "a-key-misspelt",
        validate(),
        rf"assumptions\.csv row {row_of(A, 'finance.terminal_value')}, column key: unknown key "
        r"'finance\.terminalvalue'; did you mean "
        r"finance\.terminal_value",
        cell("assumptions.csv", "finance.terminal_value", "key", "finance.terminalvalue"),
    ),
    Case(
        "hardware-unknown-column",
        validate(),
        r"hardware\.csv row 1: unknown column\(s\) vendor; expected id, memory_gb, ",
        edit("hardware.csv", "rent_usd_per_hour,source", "rent_usd_per_hour,vendor,source"),
    ),
]

# table rows the model does not know or needs, the frontier's shape, the tiers on the curve
TABLES = [
    Case(
        "a-fourth-tier",
        validate(),
        r"tiers\.csv row 5, column id: 'turbo' is not a row the model knows; expected the rows "
        r"standard, fast, ultrafast \(the model's equations give each a fixed role\)",
        append("tiers.csv", "turbo,1500,6,0.05,60,Guesstimate,\n"),
    ),
    Case(
        "a-third-plan",
        summary(),
        rf"plans\.csv row {next_row('plans.csv')}, column id: 'team' is not a row the model knows; "
        r"expected the rows plus, pro \(and optionally pro_lower\)",
        append("plans.csv", "team,30,30,10,1000,Guesstimate,\n"),
    ),
    Case(
        "a-renamed-plan",
        report(),
        r"plans\.csv row 2, column id: 'plus_plan' is not a row the model knows",
        cell("plans.csv", "plus", "id", "plus_plan"),
    ),
    Case(
        "tier-fast-missing",
        validate(),
        r"tiers\.csv: missing row 'fast'$",
        drop_row("tiers.csv", "fast"),
    ),
    Case(
        "tier-standard-missing",
        capacity(),
        r"tiers\.csv: missing row 'standard'$",
        drop_row("tiers.csv", "standard"),
    ),
    Case(
        "plan-pro-missing",
        sensitivity("sobol", "--samples", "8"),
        r"plans\.csv: missing row 'pro'$",
        drop_row("plans.csv", "pro"),
    ),
    Case(
        "tier-required-cell-blank",
        validate(),
        r"tiers\.csv row 4 \(ultrafast\), column price_per_mtok_usd: empty; expected a number in "
        r"\(0, 10000\]",
        cell("tiers.csv", "ultrafast", "price_per_mtok_usd", ""),
    ),
    Case(
        "tier-speeds-out-of-order",
        validate(),
        r"tiers\.csv row 3, column tokens_per_s \(tiers\.fast\.tokens_per_s\): tier speeds must rise "
        r"standard <= fast <= ultrafast; found 54, 30, 750",
        cell("tiers.csv", "fast", "tokens_per_s", "30"),
    ),
    Case(
        "frontier-throughput-rises-with-speed",
        validate(),
        r"frontier\.csv row 11, column tokens_per_s_per_mw \(frontier\.wse3_1500\.tokens_per_s_per_mw\)"
        r": 500000 tokens/s/MW at 1500 tokens/s/user is more than \S+frontier\.csv row 10, .* gives "
        r"at the slower 750 \(450000\); expected throughput that does not rise with speed",
        cell("frontier.csv", "wse3_1500", "tokens_per_s_per_mw", "500000"),
    ),
    Case(
        "frontier-rises-by-set",
        summary("--set", "frontier.wse3_1500.tokens_per_s_per_mw=9e5"),
        r"--set frontier\.wse3_1500\.tokens_per_s_per_mw=9e5, column value "
        r"\(frontier\.wse3_1500\.tokens_per_s_per_mw\): 900000 "
        r"tokens/s/MW at 1500 tokens/s/user is more than",
    ),
    Case(
        "frontier-rises-in-a-scenario",
        sensitivity("montecarlo", "--samples", "50", "--scenario", "steep"),
        r"scenarios/steep\.csv row 2, column value \(frontier\.b300_750\.tokens_per_s_per_mw\): "
        r"500000 tokens/s/MW at 750 tokens/s/user is more than",
        scenario("steep", "frontier.b300_750.tokens_per_s_per_mw,500000,"),
    ),
    Case(
        "frontier-two-points-at-one-speed",
        validate(),
        r"frontier\.csv row 11, column tokens_per_s_per_user "
        r"\(frontier\.wse3_1500\.tokens_per_s_per_user\): platform 'wse3' has two points at 750 "
        r"tokens/s/user \(wse3_750 and wse3_1500\); expected one point per speed",
        cell("frontier.csv", "wse3_1500", "tokens_per_s_per_user", "750"),
    ),
    Case(
        "frontier-two-points-at-one-speed-by-set",
        capacity("--set", "frontier.h100_54.tokens_per_s_per_user=20"),
        r"platform 'h100' has two points at 20 tokens/s/user \(h100_20 and h100_54\)",
    ),
    Case(
        "frontier-platform-unknown",
        validate(),
        r"frontier\.csv row 12, column platform \(frontier\.h100_20\.platform\): 'tpu' is not in "
        r"hardware\.csv",
        cell("frontier.csv", "h100_20", "platform", "tpu"),
    ),
    Case(
        "platform-without-a-frontier",
        validate(),
        r"frontier\.csv: platform 'tpu' has no frontier point; expected at least one row",
        append("hardware.csv", "tpu,32,1.6,900,,,1,256,5,60,100,0.7,1,20000,5,,Guesstimate,\n"),
    ),
    Case(
        "contract-platform-row-missing",
        validate(),
        rf"assumptions\.csv row {row_of(A, 'contract.platform')}, column value "
        r"\(contract\.platform\): 'wse3' is not in "
        r"hardware\.csv; expected one of b300, h100, groq_lpu",
        drop_row("hardware.csv", "wse3"),
    ),
    Case(
        "sensitivity-on-a-frontier-point",
        validate(),
        rf"sensitivity\.csv row {next_row('sensitivity.csv')}, column key: 'frontier\.wse3_750\.tokens_per_s_per_mw' is one "
        r"point of a curve; the sensitivity engine varies a platform's whole curve through "
        r"hardware\.wse3\.frontier_scale",
        append("sensitivity.csv", "frontier.wse3_750.tokens_per_s_per_mw,pert,1e5,5e5,\n"),
    ),
    Case(
        "sensitivity-on-a-frontier-speed",
        sensitivity("tornado"),
        rf"sensitivity\.csv row {next_row('sensitivity.csv')}, column key: 'frontier\.wse3_750\.tokens_per_s_per_user' takes "
        r"one value per run",
        append("sensitivity.csv", "frontier.wse3_750.tokens_per_s_per_user,pert,600,900,\n"),
    ),
    Case(
        "sensitivity-on-the-horizon",
        validate(),
        rf"sensitivity\.csv row {next_row('sensitivity.csv')}, column key: 'horizon\.months' takes one value per run",
        append("sensitivity.csv", "horizon.months,pert,40,80,\n"),
    ),
    Case(
        "grid-on-a-frontier-point",
        sensitivity("grid"),
        r"grids\.csv row 5, column key_y: 'frontier\.b300_340\.tokens_per_s_per_mw' is one point of "
        r"a curve; .*through hardware\.b300\.frontier_scale",
        append("grids.csv", "g9,market.mau,frontier.b300_340.tokens_per_s_per_mw,5,\n"),
    ),
    Case(
        "goal-seek-on-a-frontier-point",
        goal_seek(key="frontier.wse3_750.tokens_per_s_per_mw"),
        r"frontier\.wse3_750\.tokens_per_s_per_mw.*hardware\.wse3\.frontier_scale",
    ),
    # the data basis reads the curves as measured: they must cover the tier speeds
    Case(
        "ultrafast-tier-beyond-the-contract-curve",
        validate(),
        r"tiers\.csv row 4, column tokens_per_s \(tiers\.ultrafast\.tokens_per_s\): 1600 tokens/s is "
        r"outside the frontier of the contract platform 'wse3' \(54 to 1500 tokens/s in "
        r"frontier\.csv\)",
        both(
            cell("assumptions.csv", "capacity.basis", "value", "data"),
            cell("tiers.csv", "ultrafast", "tokens_per_s", "1600"),
        ),
    ),
    Case(
        "standard-tier-below-the-contract-curve",
        summary("--set", "capacity.basis=data"),
        r"tiers\.csv row 2, column tokens_per_s \(tiers\.standard\.tokens_per_s\): 50 tokens/s is "
        r"outside the frontier of the contract platform 'wse3'",
        cell("tiers.csv", "standard", "tokens_per_s", "50"),
    ),
    Case(
        "contract-platform-whose-curve-misses-the-tier",
        summary("--set", "capacity.basis=data", "--set", "contract.platform=h100"),
        r"\(tiers\.ultrafast\.tokens_per_s\): 750 tokens/s is outside the frontier of the contract "
        r"platform 'h100' \(20 to 340 tokens/s",
    ),
    Case(
        "frontier-moved-away-from-a-tier",
        report(
            "--set", "capacity.basis=data", "--set", "frontier.wse3_54.tokens_per_s_per_user=100"
        ),
        r"\(tiers\.standard\.tokens_per_s\): 54 tokens/s is outside the frontier of the contract "
        r"platform 'wse3' \(100 to 1500",
    ),
]

# calibration.csv and speeds.csv, the reference tables
REFERENCE = [
    Case(
        "calibration-platform-unknown",
        capacity(),
        r"calibration\.csv row 6 \(groq_llama2_70b\), column platform: 'tpu' is not in "
        r"hardware\.csv; expected one of b300, wse3, h100, groq_lpu$",
        cell("calibration.csv", "groq_llama2_70b", "platform", "tpu"),
    ),
    Case(
        "calibration-platform-blank",
        validate(),
        r"calibration\.csv row 6 \(groq_llama2_70b\), column platform: '' is not in hardware\.csv",
        cell("calibration.csv", "groq_llama2_70b", "platform", ""),
    ),
    Case(
        "calibration-id-twice",
        validate(),
        r"calibration\.csv row 7, column id: 'groq_llama2_70b' appears twice",
        cell("calibration.csv", "groq_llama31_70b", "id", "groq_llama2_70b"),
    ),
    Case(
        "calibration-not-a-number",
        sensitivity("breakeven"),
        r'calibration\.csv row 6 \(groq_llama2_70b\), column params: "69B" is not a number',
        cell("calibration.csv", "groq_llama2_70b", "params", "69B"),
    ),
    Case(
        "calibration-source-missing",
        validate(),
        r"calibration\.csv row 6 \(groq_llama2_70b\), column source: empty; every value needs a "
        r"source",
        cell("calibration.csv", "groq_llama2_70b", "source", " "),
    ),
    Case(
        "calibration-fit-2",
        validate(),
        r"calibration\.csv row 6 \(groq_llama2_70b\), column fit: 2 is out of range; expected a "
        r"whole number in \[0, 1\]",
        cell("calibration.csv", "groq_llama2_70b", "fit", "2"),
    ),
    Case(
        "calibration-tolerance-below-1",
        report(),
        r"calibration\.csv row 6 \(groq_llama2_70b\), column tolerance: 0\.5 is out of range; "
        r"expected a number >= 1",
        cell("calibration.csv", "groq_llama2_70b", "tolerance", "0.5"),
    ),
    Case(
        "calibration-layers-fraction",
        validate(),
        r"calibration\.csv row 6 \(groq_llama2_70b\), column layers: 80\.5 is out of range; "
        r"expected a whole number >= 1",
        cell("calibration.csv", "groq_llama2_70b", "layers", "80.5"),
    ),
    Case(
        "calibration-column-missing",
        validate(),
        r"calibration\.csv row 1: missing column\(s\) tolerance; found id, platform, ",
        edit("calibration.csv", "tolerance,fit,", "tol,fit,"),
    ),
    Case(
        "speeds-platform-unknown",
        capacity("--speeds", "340"),
        r"speeds\.csv row 11 \(groq_demo_2024\), column platform: 'lpu' is not in hardware\.csv; "
        r"expected one of b300, wse3, h100, groq_lpu or blank",
        cell("speeds.csv", "groq_demo_2024", "platform", "lpu"),
    ),
    Case(
        "speeds-id-twice",
        validate(),
        r"speeds\.csv row 10, column id: 'gpt4_class_low' appears twice",
        cell("speeds.csv", "gpt4_class_high", "id", "gpt4_class_low"),
    ),
    Case(
        "speeds-not-a-number",
        validate(),
        r'speeds\.csv row 8 \(b300_sla\), column tokens_per_s: "fast" is not a number',
        cell("speeds.csv", "b300_sla", "tokens_per_s", "fast"),
    ),
    Case(
        "speeds-zero",
        summary(),
        r"speeds\.csv row 8 \(b300_sla\), column tokens_per_s: 0 is out of range; expected a number "
        r"> 0",
        cell("speeds.csv", "b300_sla", "tokens_per_s", "0"),
    ),
    Case(
        "speeds-source-missing",
        validate(),
        r"speeds\.csv row 13 \(human_reading\), column source: empty; every value needs a source",
        cell("speeds.csv", "human_reading", "source", ""),
    ),
    Case(
        "speeds-id-with-a-space",
        validate(),
        r'speeds\.csv row 12, column id: "codex spark" is not an id',
        cell("speeds.csv", "codex_spark", "id", "codex spark"),
    ),
]

PRO_RANGE = cell("sensitivity.csv", "market.pro_subscribers_start", "distribution", "uniform")
PRO_RANGE_HIGH = cell("sensitivity.csv", "market.pro_subscribers_start", "high", "2000000000")
PRICE_RANGE = both(
    cell("sensitivity.csv", "plans.pro.price_usd_month", "distribution", "uniform"),
    cell("sensitivity.csv", "plans.pro.price_usd_month", "high", "1e308"),
)
OVERFLOW = "exit 0 with overflow warnings"

# model invariants: Pro subscribers never above the users, results that are numbers
INVARIANTS = [
    Case(
        "pro-subscribers-above-the-users",
        summary(
            "--set",
            "market.plus_share_of_mau=1",
            "--set",
            "market.pro_growth_monthly=0.5",
            "--set",
            "market.pro_subscribers_start=5e8",
            "--set",
            "conversion.pro_churn_monthly=0",
        ),
        r"the Pro subscribers \([\d,]+\) exceed the monthly active users \(1,000,000,000\) in month "
        r"2: the upgrade probabilities \(conversion\.\*\), market\.plus_share_of_mau and "
        r"conversion\.pro_churn_monthly cannot all be right; expected at most one Pro subscriber "
        r"per user$",
    ),
    Case(
        "no-plus-users-to-calibrate-the-no-deal-world-from",
        summary("--set", "market.plus_share_of_mau=0"),
        r"the no-deal world cannot be calibrated: there are no Plus users in month 1 "
        r"\(market\.mau x market\.plus_share_of_mau = 0\) to upgrade, but 1,000,000 Pro subscribers "
        r"\(market\.pro_subscribers_start\) need 30,000 upgrades a month",
    ),
    Case(
        "calibrated-upgrade-rate-above-100-percent",
        summary("--set", "market.plus_share_of_mau=0.00001"),
        r"the no-deal world cannot be calibrated: .* need 30,000 upgrades a month from 10,000 Plus "
        r"users \(market\.mau x market\.plus_share_of_mau\): a monthly upgrade rate of 300\.0%, "
        r"above 100 %",
    ),
    Case(
        "calibration-refused-at-the-end-of-a-range",
        sensitivity("tornado"),
        r"sensitivity\.csv row \d+ \(market\.plus_share_of_mau\), column low: at 1e-05, the no-deal "
        r"world cannot be calibrated",
        cell("sensitivity.csv", "market.plus_share_of_mau", "low", "0.00001"),
    ),
    Case(
        "pro-subscribers-above-the-users-in-a-report",
        report("--scenario", "eager"),
        r"the Pro subscribers \([\d,]+\) exceed the monthly active users \(1,000,000,000\)",
        scenario(
            "eager",
            "market.plus_share_of_mau,0.9,",
            "market.pro_growth_monthly,0.5,",
            "market.pro_subscribers_start,500000000,",
            "conversion.pro_churn_monthly,0,",
        ),
    ),
    Case(
        "pro-subscribers-start-above-the-users",
        summary("--set", "market.pro_subscribers_start=2e9"),
        r"Pro subscribers .*market\.pro_subscribers_start",
    ),
    Case(
        "pro-subscribers-start-one-above-the-users",
        summary("--set", "market.pro_subscribers_start=1000000001"),
        r"market\.pro_subscribers_start.*1,000,000,001.*1,000,000,000",
    ),
    Case(
        "pro-subscribers-above-the-users-within-a-range",
        sensitivity("montecarlo", "--samples", "50", "--samples-csv", "{out}/samples.csv"),
        r"sensitivity\.csv row \d+ \(market\.pro_subscribers_start\), column high: at 2e\+09, "
        r".*exceed the 1,000,000,000 monthly active users",
        both(PRO_RANGE, PRO_RANGE_HIGH),
    ),
    Case(
        "pro-subscribers-above-the-users-within-a-range-named",
        sensitivity("tornado"),
        r"sensitivity\.csv row \d+.*market\.pro_subscribers_start",
        both(PRO_RANGE, PRO_RANGE_HIGH),
    ),
    Case(
        "validate-pro-subscribers-above-the-users-within-a-range",
        validate(),
        r"sensitivity\.csv row \d+.*market\.pro_subscribers_start",
        both(PRO_RANGE, PRO_RANGE_HIGH),
    ),
    Case(
        "price-overflows-the-npv",
        summary("--set", "plans.pro.price_usd_month=1e308"),
        r"--set plans\.pro\.price_usd_month=1e308, column value: 1e308 is out of range; expected a "
        r"number in \(0, 100000\] \[USD/month\]$",
    ),
    Case(
        "price-overflows-the-npv-in-a-report",
        report("--set", "plans.pro.price_usd_month=1e308"),
        r"--set plans\.pro\.price_usd_month=1e308, column value: 1e308 is out of range",
    ),
    Case(
        "plus-price-overflows-in-a-scenario",
        goal_seek("--scenario", "rich"),
        r"scenarios/rich\.csv row 2 \(plans\.plus\.price_usd_month\), column value: 1e308 is out "
        r"of range",
        scenario("rich", "plans.plus.price_usd_month,1e308,"),
    ),
    Case(
        "users-overflow-the-npv",
        sensitivity("breakeven", "--set", "market.mau=1e308"),
        r"--set market\.mau=1e308, column value: 1e308 is out of range; expected a number in "
        r"\(0, 1e\+10\] \[users\]",
    ),
    Case(
        "price-range-overflows-the-npv",
        sensitivity("montecarlo", "--samples", "50"),
        r"sensitivity\.csv row \d+ \(plans\.pro\.price_usd_month\), column high: 1e308 is "
        r"outside the key's valid values; expected a number in \(0, 100000\]",
        PRICE_RANGE,
    ),
    Case(
        "validate-price-range-overflows-the-npv",
        validate(),
        r"sensitivity\.csv row \d+.*plans\.pro\.price_usd_month",
        PRICE_RANGE,
    ),
    Case(
        "contract-value-overflows",
        summary("--set", "contract.value_usd=1e308"),
        r"contract\.value_usd",
    ),
    Case(
        "contract-mw-overflows",
        summary("--set", "contract.mw=1e308"),
        r"contract\.mw",
    ),
    Case(
        "domain-chips-overflow",
        summary("--set", "hardware.wse3.domain_chips=1e308"),
        r"hardware\.wse3\.domain_chips",
    ),
    Case(
        "facility-capex-overflows",
        summary("--set", "buy.facility_capex_usd_per_mw=1e308"),
        r"buy\.facility_capex_usd_per_mw",
    ),
    Case(
        "api-demand-overflows",
        summary("--set", "api.ultrafast_tokens_per_month=1e308"),
        r"api\.ultrafast_tokens_per_month",
    ),
    Case(
        "ultrafast-api-price-zero",
        summary("--set", "tiers.ultrafast.price_per_mtok_usd=0"),
        r"tiers\.ultrafast\.price_per_mtok_usd",
    ),
    Case(
        "model-params-overflow-the-capacity-table",
        capacity("--set", "model.params=1e308"),
        r"model\.params",
    ),
]

# cells the model has no use for, and values beyond the rules' sense limits
UNUSED_AND_LIMITS = [
    Case(
        "set-the-standard-tiers-adoption",
        summary("--set", "tiers.standard.adoption=0.3"),
        r"--set tiers\.standard\.adoption=0\.3: tiers\.standard\.adoption is not an input: the "
        r"standard tier takes the share the faster tiers leave",
    ),
    Case(
        "standard-adoption-filled-in-the-data",
        validate(),
        r'tiers\.csv row 2 \(standard\), column adoption: "0\.3"; leave it blank: the standard '
        r"tier takes the share",
        cell("tiers.csv", "standard", "adoption", "0.3"),
    ),
    Case(
        "fast-api-price-left-blank",
        report(),
        r"tiers\.csv row 3 \(fast\), column price_per_mtok_usd: empty; expected a number in "
        r"\(0, 10000\]",
        cell("tiers.csv", "fast", "price_per_mtok_usd", ""),
    ),
    Case(
        "contract-value-in-cents",
        summary("--set", "contract.value_usd=1e15"),
        r"--set contract\.value_usd=1e15, column value: 1e15 is out of range; expected a number in "
        r"\(0, 1e\+13\] \[USD\]",
    ),
    Case(
        "contract-mw-in-kw",
        validate(),
        r"assumptions\.csv row \d+ \(contract\.mw\), column value: 750000 is out of range; "
        r"expected a number in \(0, 100000\]",
        cell("assumptions.csv", "contract.mw", "value", "750000"),
    ),
    Case(
        "mau-growth-ten-percent-a-month-plus",
        summary("--set", "market.mau_growth_monthly=0.2"),
        r"market\.mau_growth_monthly=0\.2, column value: 0\.2 is out of range; expected a number "
        r"in \[-0\.1, 0\.1\]",
    ),
    Case(
        "goal-seek-high-beyond-the-rule",
        goal_seek("--high", "2", key="tiers.ultrafast.adoption"),
        r"goal seek tiers\.ultrafast\.adoption: --high 2 is outside the values the key may take; "
        r"expected a number in \[0, 1\]",
    ),
    Case(
        "grid-on-a-zero-value-without-a-range",
        sensitivity("grid"),
        r"grids\.csv row 2 \(zero\): capacity\.internal_batch_tokens_per_month is 0 and has no "
        r"range in sensitivity\.csv",
        both(
            write(
                "grids.csv",
                "id,key_x,key_y,points,note\nzero,capacity.internal_batch_tokens_per_month,"
                "contract.mw,3,\n",
            ),
            cell("assumptions.csv", "capacity.internal_batch_tokens_per_month", "value", "0"),
        ),
    ),
]

# ---------------------------------------------------------------------------
# numbers as spreadsheets write them, files econ did not write, bounds, options


def sweep(key: str, *extra: str) -> tuple[str, ...]:
    return ("sweep", key, "--data", "{data}", "--workers", "1", *extra)


def optimize(key: str, *extra: str) -> tuple[str, ...]:
    return ("optimize", key, "--data", "{data}", "--workers", "1", *extra)


def platforms(*extra: str) -> tuple[str, ...]:
    return ("platforms", "--data", "{data}", "--workers", "1", *extra)


def compare(*extra: str) -> tuple[str, ...]:
    return (
        "compare",
        "base",
        "bear",
        "--data",
        "{data}",
        "--out",
        "{out}",
        "--workers",
        "1",
        *extra,
    )


def semicolons(name: str) -> Callable[[Paths], None]:
    """Data file ``name`` saved as European Excel does: semicolons, decimal commas."""

    def make(p: Paths) -> None:
        path = p.data / name
        rows = _rows(path)
        buf = io.StringIO()
        w = csv.writer(buf, delimiter=";", lineterminator="\r\n")
        for r in rows:
            w.writerow([c.replace(".", ",") if re.fullmatch(r"-?\d+\.\d+", c) else c for c in r])
        path.write_text(buf.getvalue(), encoding="utf-8", newline="")

    return make


def special(name: str, kind: str) -> Callable[[Paths], None]:
    """Data file ``name`` replaced by something that is not a regular file."""

    def make(p: Paths) -> None:
        path = p.data / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            path.unlink()
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "zero":
            path.symlink_to("/dev/zero")
        elif kind == "null":
            path.symlink_to("/dev/null")
        elif kind == "folder":
            path.mkdir()
        else:  # a link to nothing
            path.symlink_to(p.tmp / "nowhere.csv")

    return make


def more_sensitivity_rows(count: int) -> Callable[[Paths], None]:
    """``count`` more keys in sensitivity.csv, each a +-10 % range around its data value."""

    def make(p: Paths) -> None:
        a = econ.load(p.data)
        have = {r.key for r in a.sensitivity}
        rows = []
        for key in a.values:
            if len(rows) == count:
                break
            v = a.values[key]
            rule = econ.assumptions.rule_for(key)
            ok = key.startswith("hardware.") and key.endswith(
                ("price_usd", "power_kw", "life_years")
            )
            if key in have or not ok or isinstance(v, str) or not v:
                continue
            lo, hi = 0.9 * v, min(1.1 * v, rule.high or 1.1 * v)
            rows.append(f"{key},uniform,{lo!r},{hi!r},added\n")
        assert len(rows) == count, "fixture: not enough keys to add"
        path = p.data / "sensitivity.csv"
        path.write_text(path.read_text(encoding="utf-8") + "".join(rows), encoding="utf-8")

    return make


BIG_GRIDS = "id,key_x,key_y,points,note\n" + "".join(
    f"g{i},contract.ramp_months,market.mau,101,\n" for i in range(10)
)

SPREADSHEET_NUMBERS = [
    Case(
        "both-decimal-marks-in-one-file",
        validate(),
        r'assumptions\.csv: numbers with a decimal point \(row \d+, column value: "[\d.]+"\) and '
        r'with a decimal comma \(row \d+, column value: "0,03"\); a file uses one decimal mark',
        cell("assumptions.csv", "market.plus_share_of_mau", "value", "0,03"),
    ),
    Case(
        "both-decimal-marks-in-a-scenario",
        summary("--scenario", "mixed"),
        r'scenarios/mixed\.csv: numbers with a decimal point \(row 2, column value: "0\.066"\) '
        r'and with a decimal comma \(row 3, column value: "0,5"\)',
        scenario("mixed", "finance.discount_rate_annual,0.066,", 'usage.speed_elasticity,"0,5",'),
    ),
    Case(
        "both-decimal-marks-in-sensitivity",
        validate(),
        r"sensitivity\.csv: numbers with a decimal point .* and with a decimal comma \(row \d+, "
        r'column high: "0,16"\)',
        cell("sensitivity.csv", "finance.discount_rate_annual", "high", "0,16"),
    ),
    Case(
        "both-decimal-marks-grouped",
        validate(),
        r"hardware\.csv: numbers with a decimal point .* and with a decimal comma \(row \d+, "
        r'column price_usd: "2\.500\.000"\)',
        cell("hardware.csv", "wse3", "price_usd", "2.500.000"),
    ),
    Case(
        "decimal-comma-negative-out-of-range-quoted-as-written",
        summary("--scenario", "eu"),
        r"scenarios/eu\.csv row 2 \(market\.mau_growth_monthly\), column value: -0,5 is out of "
        r"range; expected a number in \[-0\.1, 0\.1\]",
        write("scenarios/eu.csv", "key;value;note\r\nmarket.mau_growth_monthly;-0,5;\r\n"),
    ),
    Case(
        "decimal-comma-percent-out-of-range-quoted-as-written",
        summary("--scenario", "eu"),
        r"scenarios/eu\.csv row 2 \(market\.plus_share_of_mau\), column value: 112,5% is out of "
        r"range; expected a number in \[0, 1\]",
        write("scenarios/eu.csv", "key;value;note\r\nmarket.plus_share_of_mau;112,5%;\r\n"),
    ),
    Case(
        "semicolon-file-out-of-range-quoted-as-written",
        validate(),
        r"assumptions\.csv row \d+ \(usage\.speed_elasticity\), column value: 3,5 is out of "
        r"range; expected a number in \[0, 3\]",
        both(
            cell("assumptions.csv", "usage.speed_elasticity", "value", "3.5"),
            semicolons("assumptions.csv"),
        ),
    ),
    Case(
        "two-decimal-commas",
        summary("--scenario", "eu"),
        r'scenarios/eu\.csv row 2 \(contract\.mw\), column value: "7,0,5" is not a number',
        write("scenarios/eu.csv", "key;value;note\r\ncontract.mw;7,0,5;\r\n"),
    ),
    Case(
        "percent-twice",
        summary("--scenario", "eu"),
        r'scenarios/eu\.csv row 2 \(market\.plus_share_of_mau\), column value: "3%%" is not a '
        r"number",
        write("scenarios/eu.csv", "key;value;note\r\nmarket.plus_share_of_mau;3%%;\r\n"),
    ),
    Case(
        "thousands-group-of-two",
        summary("--scenario", "t"),
        r'scenarios/t\.csv row 3 \(contract\.value_usd\), column value: "10,00,000" is not a '
        r"number",
        scenario("t", "finance.discount_rate_annual,0.08,", 'contract.value_usd,"10,00,000",'),
    ),
    Case(
        "set-ambiguous-thousands",
        summary("--set", "contract.mw=1,500"),
        r'--set contract\.mw=1,500, column value: "1,500" could be 1\.5 \(a decimal comma\) or '
        r"1500 \(commas between thousands\); write it without a thousands separator",
    ),
    Case(
        "set-ambiguous-points",
        report("--set", "contract.value_usd=9.500"),
        r'"9\.500" could be 9\.5 \(a decimal point\) or 9500 \(points between thousands\)',
    ),
    Case(
        "set-subnormal",
        summary("--set", "contract.mw=1e-310"),
        r'--set contract\.mw=1e-310, column value: "1e-310" is too small to compute with',
    ),
    Case(
        "set-underflows-to-zero",
        summary("--set", "usage.speed_elasticity=1e-400"),
        r'"1e-400" is too small to compute with',
    ),
    Case(
        "set-below-the-smallest-magnitude",
        report("--set", "contract.value_usd=1e-31"),
        r'--set contract\.value_usd=1e-31, column value: "1e-31" is too small; expected 0 or a '
        r"magnitude of at least 1e-30",
    ),
    Case(
        "scenario-below-the-smallest-magnitude",
        summary("--scenario", "tiny"),
        r'scenarios/tiny\.csv row 2 \(hardware\.wse3\.power_kw\), column value: "1e-35" is too '
        r"small",
        scenario("tiny", "hardware.wse3.power_kw,1e-35,"),
    ),
    Case(
        "data-below-the-smallest-magnitude",
        validate(),
        r'hardware\.csv row \d+ \(wse3\), column bandwidth_tb_s: "1e-40" is too small',
        cell("hardware.csv", "wse3", "bandwidth_tb_s", "1e-40"),
    ),
    Case(
        "sensitivity-low-below-the-smallest-magnitude",
        validate(),
        r"sensitivity\.csv row \d+ \(contract\.value_usd\), column low: 1e-31 is outside the "
        r"key's valid values",
        cell("sensitivity.csv", "contract.value_usd", "low", "1e-31"),
    ),
    Case(
        "sensitivity-high-quoted-as-written",
        validate(),
        r"sensitivity\.csv row \d+ \(finance\.discount_rate_annual\), column high: 1\.000,5 is "
        r"outside the key's valid values",
        both(semicolons("sensitivity.csv"), edit("sensitivity.csv", "0,06;0,15", "0,06;1.000,5")),
    ),
    Case(
        "grid-points-quoted-as-written",
        validate(),
        r"grids\.csv row 2, column points: 7,5; expected a whole number in \[2, 101\]",
        both(
            semicolons("grids.csv"),
            edit(
                "grids.csv",
                "usage.token_efficiency_gain_annual;7",
                "usage.token_efficiency_gain_annual;7,5",
            ),
        ),
    ),
    Case(
        "correlation-quoted-as-written",
        validate(),
        r"correlations\.csv row 2, column rank_correlation: -1,3; expected a number in \[-1, 1\]",
        both(semicolons("correlations.csv"), edit("correlations.csv", "-0,3", "-1,3")),
    ),
]

FILES_NOT_OURS = [
    Case(
        f"{name.replace('/', '-').removesuffix('.csv')}-is-a-{kind}",
        command,
        rf"{re.escape(name)}: {what}, not a regular file; expected a CSV file",
        special(name, kind),
    )
    for name, kind, what, command in [
        ("scenarios/bear.csv", "fifo", r"a named pipe \(FIFO\)", validate()),
        ("scenarios/bear.csv", "zero", "a device", summary("--scenario", "bear")),
        ("scenarios/other.csv", "null", "a device", validate()),
        ("scenarios/bull.csv", "folder", "a folder", report()),
        ("assumptions.csv", "fifo", r"a named pipe \(FIFO\)", summary()),
        ("tiers.csv", "zero", "a device", report()),
        ("sensitivity.csv", "fifo", r"a named pipe \(FIFO\)", sensitivity("tornado")),
        ("grids.csv", "zero", "a device", sensitivity("grid")),
        ("calibration.csv", "folder", "a folder", capacity()),
        ("speeds.csv", "null", "a device", validate()),
        ("correlations.csv", "fifo", r"a named pipe \(FIFO\)", compare()),
    ]
] + [
    Case(
        "table-is-a-broken-link",
        validate(),
        r"plans\.csv: file missing",
        special("plans.csv", "broken"),
    ),
    Case(
        "optional-file-is-a-broken-link",
        validate(),
        r"grids\.csv: cannot read the file \(No such file or directory\)",
        special("grids.csv", "broken"),
    ),
    Case(
        "init-into-a-file",
        init("{tmp}/afile"),
        r"afile: not a folder; choose a new or empty folder",
        lambda p: (p.tmp / "afile").write_text("x"),
    ),
    Case(
        "init-into-a-folder-with-files",
        init("{data}"),
        r"already has files; choose an empty folder or pass --force",
    ),
]

BOUNDS = [
    Case(
        "grids-too-many-points-together",
        validate(),
        r"grids\.csv row 11, column points: the grids up to this row hold 102,010 points together "
        r"\(points x points each\); expected at most 100,000",
        write("grids.csv", BIG_GRIDS),
    ),
    Case(
        "sobol-too-many-evaluations",
        sensitivity("sobol", "--samples", "65536"),
        r"--samples 65536: 65,536 base samples over \d+ keys take [\d,]+ model evaluations "
        r"\(n x \(keys \+ 2\)\); expected at most 4,194,304: use 32,768 or fewer",
        more_sensitivity_rows(8),
    ),
    Case(
        "report-sobol-too-many-evaluations",
        report_sampled("--sobol-samples", "65536"),
        r"--sobol-samples 65536: 65,536 base samples over \d+ keys take",
        more_sensitivity_rows(8),
    ),
    Case(
        "platforms-budget-buys-too-many-mw",
        platforms("--budget", "2e12"),
        r"--budget 2e\+12: buys 150,000 MW on wse3 at its rent, outside what contract\.mw allows "
        r"\(a number in \(0, 100000\] \[MW\]\); expected a budget of at most 1\.333e\+12 USD",
    ),
    Case(
        "platforms-budget-beyond-the-contract-value-rule",
        platforms("--budget", "2e14"),
        r"--budget 2e\+14: out of range; expected a number in \(0, 1e\+13\] \[USD\]",
    ),
    Case(
        "platforms-budget-subnormal",
        platforms("--budget", "1e-320"),
        r"--budget 1e-320: too small to compute with",
    ),
    Case(
        "platforms-budget-below-the-smallest-magnitude",
        platforms("--budget", "1e-31"),
        r"--budget 1e-31: out of range; expected a number in \(0, 1e\+13\] \[USD\]",
    ),
    Case("goal-seek-low-subnormal", goal_seek("--low", "1e-320"), r"--low 1e-320: too small"),
    Case("goal-seek-high-subnormal", goal_seek("--high=-5e-324"), r"--high -5e-324: too small"),
    Case(
        "sweep-low-subnormal", sweep("contract.mw", "--low", "1e-320"), r"--low 1e-320: too small"
    ),
    Case(
        "optimize-high-subnormal",
        optimize("contract.mw", "--high", "4e-310"),
        r"--high 4e-310: too",
    ),
    Case(
        "speeds-subnormal", capacity("--speeds", "340,1e-320"), r"--speeds '1e-320' is not a speed"
    ),
]

SET_OPTIONS = [
    Case(
        f"set-twice-{name}",
        command,
        r"--set contract\.mw=800: contract\.mw is set twice \(--set contract\.mw=700 and --set "
        r"contract\.mw=800\); keep one",
    )
    for name, command in [
        ("summary", summary("--set", "contract.mw=700", "--set", "contract.mw=800")),
        ("report", report("--set", "contract.mw=700", "--set", "contract.mw=800")),
        ("validate", validate("--set", "contract.mw=700", "--set", "contract.mw=800")),
        ("tornado", sensitivity("tornado", "--set", "contract.mw=700", "--set", "contract.mw=800")),
        ("capacity", capacity("--set", "contract.mw=700", "--set", "contract.mw=800")),
        ("compare", compare("--set", "contract.mw=700", "--set", "contract.mw=800")),
        (
            "sweep",
            sweep("contract.value_usd", "--set", "contract.mw=700", "--set", "contract.mw=800"),
        ),
    ]
] + [
    Case(
        "set-twice-spaces-around",
        summary("--set", "contract.mw=700", "--set", " contract.mw = 800"),
        r"contract\.mw is set twice",
    ),
    Case(
        "set-twice-same-value",
        summary("--set", "contract.mw=700", "--set", "contract.mw=700"),
        r"contract\.mw is set twice",
    ),
    Case(
        "set-cyrillic-look-alike",
        summary("--set", "contr\u0430ct.mw=700"),
        r"--set contr\\u0430ct\.mw=700: unknown key 'contr\\u0430ct\.mw'; did you mean contract\.mw"
        r".* \(the key has characters outside ASCII: \\u0430 CYRILLIC SMALL LETTER A\)",
    ),
    Case(
        "set-greek-look-alike",
        report("--set", "tiers.ultrafast.ad\u03bfption=0.2"),
        r"unknown key 'tiers\.ultrafast\.ad\\u03bfption'; did you mean tiers\.ultrafast\.adoption.*"
        r"\\u03bf GREEK SMALL LETTER OMICRON",
    ),
    Case(
        "set-fullwidth-letters",
        summary("--set", "contract.\uff4d\uff57=700"),
        r"unknown key 'contract\.\\uff4d\\uff57'.*FULLWIDTH LATIN SMALL LETTER M",
    ),
    Case(
        "set-zero-width-inside-a-key",
        summary("--set", "contract.m\u200bw=700"),
        r"unknown key 'contract\.m\\u200bw'; did you mean contract\.mw.*ZERO WIDTH SPACE",
    ),
    Case(
        "scenario-cyrillic-look-alike",
        summary("--scenario", "cyr"),
        r"scenarios/cyr\.csv row 2: unknown key 'contr\\u0430ct\.mw'; did you mean contract\.mw",
        scenario("cyr", "contr\u0430ct.mw,700,"),
    ),
]

CASES = (
    SCENARIO_NAMES
    + NUMBERS
    + CSV_READER
    + OUTPUTS
    + KEYS
    + TABLES
    + REFERENCE
    + INVARIANTS
    + UNUSED_AND_LIMITS
    + SPREADSHEET_NUMBERS
    + FILES_NOT_OURS
    + BOUNDS
    + SET_OPTIONS
)


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
    assert len(CASES) >= 280
    assert len({c.id for c in CASES}) == len(CASES)


def _param(case: Case):
    if case.xfail is None:
        return pytest.param(case, id=case.id)
    return pytest.param(case, id=case.id, marks=pytest.mark.xfail(strict=True, reason=case.xfail))


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
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


def test_a_pro_price_far_below_the_list_keeps_upgrades_within_100_percent(capsys):
    """Version 3 refused a Pro price whose constant-elasticity response pushed the upgrade rate
    above 100 % a month. Version 4's response is a binary logit per cap event (docs/model.md V4.7),
    u = exp(alpha - beta p) / (1 + exp(alpha - beta p)) of the calibrated rate, bounded by
    construction: the same inputs give an answer, never a rate above 100 %."""
    import math

    import econ
    from econ.model import evaluate

    sets = [("plans.pro.price_usd_month", "2"), ("conversion.pro_price_elasticity", "10")]
    r = evaluate(econ.load(DATA).with_overrides(sets))
    assert math.isfinite(r.npv[0])
    # the price far below the list raises the upgrade rate (the response moved), and the rate,
    # price factor x (base + cap-hit propensity), stays a probability: the logit's share of a cap
    # event is at most 1, so the factor is at most 1 / the reference share
    rate = r.pro_price_factor[0] * (r.pro_base_upgrade[0] + r.pro_capped_propensity[0])
    assert r.pro_price_factor[0] > 10 and 0.9 < rate <= 1.0
    code = main(
        ["summary", "--data", str(DATA), *sum((["--set", f"{k}={v}"] for k, v in sets), [])]
    )
    assert code == 0
