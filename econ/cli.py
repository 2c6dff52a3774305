"""Command line: argument parsing and printing only."""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import signal
import stat
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path

from econ import __version__
from econ.assumptions import (
    MIN_MAGNITUDE,
    AssumptionError,
    Assumptions,
    bundled_data_dir,
    check_scenario_name,
    load,
    path_text,
    shown,
    too_small,
    unknown_key_message,
)
from econ.limits import (
    MAX_POINTS,
    MAX_SAMPLES,
    MAX_SEED,
    MAX_SOBOL_SAMPLES,
    MAX_WORKERS,
    MIN_POINTS,
)

EXIT_BAD_INPUT = 2
EXIT_NO_ANSWER = 1  # goal-seek or optimize: no value in the range reaches the target

# Bounds of the numeric options (README, "Commands"): econ/limits.py
MESSAGE_CHARS = 2_000  # an error line is cut beyond this


class OutputFailure(OSError):
    """Writing to standard output failed (the message says so)."""


def whole_number(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number in [low, high] (``1e6`` and ``20_000`` are accepted)."""
    expected = f"expected a whole number from {low:,} to {high:,}"

    def parse(text: str) -> int:
        s = text.strip()
        try:
            x = int(s)
        except ValueError:
            x = _integral_float(s)
            if x is None:
                raise argparse.ArgumentTypeError(
                    f"{shown(text)}: not a whole number; {expected}"
                ) from None
        if not low <= x <= high:
            raise argparse.ArgumentTypeError(f"{shown(text)}: out of range; {expected}")
        return x

    parse.__name__ = "whole number"
    return parse


def _integral_float(s: str) -> int | float | None:
    """``1e6`` -> 1000000; an infinity stays infinite (out of any range); else None."""
    try:
        f = float(s)
    except ValueError:
        return None
    if math.isinf(f):
        return f
    if math.isnan(f) or f != int(f):
        return None
    return int(f)


def finite_number(text: str) -> float:
    """An argparse type: a finite number."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{shown(text)}: not a number; expected a finite number"
        ) from None
    if not math.isfinite(x):
        raise argparse.ArgumentTypeError(f"{shown(text)}: not finite; expected a finite number")
    if x != 0 and abs(x) < sys.float_info.min:
        raise argparse.ArgumentTypeError(
            f"{shown(text)}: too small to compute with (a subnormal double, below "
            f"{sys.float_info.min:.1e}); expected 0 or a larger magnitude"
        )
    return x


def scenario_name(text: str) -> str:
    """An argparse type: a scenario name (letters, digits, _ and -), never a path."""
    try:
        return check_scenario_name(text)
    except AssumptionError as exc:
        raise argparse.ArgumentTypeError(f"{shown(text)}: {str(exc).split(': ', 1)[1]}") from None


def compare_name(text: str) -> str:
    """An argparse type: a scenario name, or "base" (the run without a scenario)."""
    from econ.assumptions import BASE_SCENARIO

    return text if text == BASE_SCENARIO else scenario_name(text)


def positive_number(text: str) -> float:
    """An argparse type: a finite number > 0."""
    x = finite_number(text)
    if not x > 0:
        raise argparse.ArgumentTypeError(f"{shown(text)}: out of range; expected a number > 0")
    return x


SAMPLES = whole_number(1, MAX_SAMPLES)
SOBOL_SAMPLES = whole_number(1, MAX_SOBOL_SAMPLES)
SEED = whole_number(0, MAX_SEED)
WORKERS = whole_number(1, MAX_WORKERS)
POINTS = whole_number(MIN_POINTS, MAX_POINTS)


class Parser(argparse.ArgumentParser):
    """argparse that reports a bad argument in one line on stderr (status 2), without the usage."""

    def error(self, message: str) -> None:  # type: ignore[override]
        usage_error(did_you_mean(message), self.prog)


def did_you_mean(message: str) -> str:
    """argparse's "invalid choice: 'sumary' (choose from ...)" with the nearest choice named."""
    import difflib

    m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message, flags=re.S)
    if not m:
        return message
    choices = re.findall(r"'([^']*)'", m[2]) or [c.strip() for c in m[2].split(",")]
    close = difflib.get_close_matches(m[1], choices, n=2, cutoff=0.5)
    return message + (f"; did you mean {' or '.join(close)}?" if close else "")


def usage_error(message: str, prog: str = "econ") -> None:
    """Print a bad command line in one line on stderr and exit with status 2."""
    m = re.fullmatch(r"argument (-[^:]*): (.*)", message, flags=re.S)
    if m:  # "argument --samples: 0: out of range" -> "--samples 0: out of range"
        message = f"{m[1].split('/')[0]} {m[2]}"
    print(f"econ: error: {_one_line(message)} (see {prog} --help)", file=sys.stderr)
    sys.exit(EXIT_BAD_INPUT)


def _one_line(message: str) -> str:
    """A message as one line: invisible characters escaped, cut beyond MESSAGE_CHARS."""
    return shown(message, MESSAGE_CHARS)


def _verbose(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--verbose",
        action="store_true",
        help="say on stderr which data folder is used every time (without it, the note that "
        "the bundled data is used comes once per shell session)",
    )


def _common(p: argparse.ArgumentParser) -> None:
    _verbose(p)
    p.add_argument(
        "--data",
        metavar="DIR",
        help="folder of assumption CSVs (default: ./data, else the bundled defaults)",
    )
    p.add_argument(
        "--scenario",
        metavar="NAME",
        type=scenario_name,
        help="apply data/scenarios/NAME.csv before any --set (NAME: letters, digits, _ and -)",
    )
    p.add_argument(
        "--set",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        dest="overrides",
        help="override one assumption by its dotted key (repeatable)",
    )


def _samples(p: argparse.ArgumentParser, help: str, **kw) -> None:
    p.add_argument("--samples", type=SAMPLES, metavar="N", help=help, **kw)


def _seed(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--seed",
        type=SEED,
        default=12345,
        metavar="S",
        help=f"random seed, 0 to {MAX_SEED:,} (default 12345)",
    )


def _workers(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--workers",
        type=WORKERS,
        default=1,
        metavar="N",
        help=f"processes for the sampling, 1 to {MAX_WORKERS} (default 1)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="econ",
        description="Does renting ultra-fast inference capacity pay for itself, how fast, and under which assumptions?",
    )
    parser.add_argument("--version", action="version", version=f"econ {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("validate", help="load and validate the assumption data")
    _common(p)
    p.add_argument("--json", action="store_true", help="one JSON object instead of text")

    p = sub.add_parser("summary", help="headline figures")
    _common(p)
    p.add_argument("--json", action="store_true", help="one JSON object instead of text")

    p = sub.add_parser("report", help="write the workbook reports/<scenario>/payback_analysis.xlsx")
    _common(p)
    p.add_argument(
        "--out", metavar="DIR", default="reports", help="output folder (default: ./reports)"
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="overwrite a workbook, summary.md or chart that was edited since econ wrote it",
    )
    _samples(p, f"Monte Carlo samples, 1 to {MAX_SAMPLES:,} (default 20,000)", default=20_000)
    p.add_argument(
        "--sobol-samples",
        type=SOBOL_SAMPLES,
        default=1024,
        metavar="N",
        help=f"Sobol base samples n, 1 to {MAX_SOBOL_SAMPLES:,} (default 1024; a power of two)",
    )
    _seed(p)
    _workers(p)
    p.add_argument(
        "--no-sensitivity",
        action="store_true",
        help="skip the Tornado, Grid, Monte Carlo and Sobol sheets",
    )
    p.add_argument(
        "--replace",
        action="store_true",
        help="replace a report folder that holds the report of another data folder",
    )
    p.add_argument(
        "--explain",
        action="store_true",
        help="add the Explain sheet even where nothing differs from the bundled data (it is "
        "added by itself where something does)",
    )

    p = sub.add_parser("init", help="write an editable copy of the default data")
    p.add_argument(
        "dir", metavar="DIR", help="the folder to write the CSVs into, e.g. econ init mydata"
    )
    p.add_argument(
        "--force", action="store_true", help="write into a folder that already has files"
    )

    p = sub.add_parser(
        "capacity",
        help="throughput, users, layout, ceiling, physics envelope and cost per token by platform and speed",
    )
    _common(p)
    p.add_argument(
        "--speeds",
        metavar="S1,S2,...",
        type=_speeds,
        default=(),
        help="per-user speeds [tokens/s] to add to the tier speeds, e.g. --speeds 340,1000",
    )
    p.add_argument("--json", action="store_true", help="one JSON object instead of a table")

    p = sub.add_parser(
        "goal-seek", help="the value of KEY at which NPV is zero (or payback equals the term)"
    )
    _common(p)
    p.add_argument(
        "key",
        metavar="KEY",
        help="the dotted key to solve for, e.g. econ goal-seek tiers.ultrafast.adoption",
    )
    p.add_argument(
        "--target",
        choices=("npv", "payback"),
        default="npv",
        help="NPV zero, or payback at the end of the term (default npv)",
    )
    _hold(p)
    p.add_argument(
        "--low",
        type=finite_number,
        help="lower end of the search (default: the key's sensitivity range)",
    )
    p.add_argument("--high", type=finite_number, help="upper end of the search")
    p.add_argument("--json", action="store_true", help="one JSON object instead of text")

    p = sub.add_parser(
        "sensitivity", help="tornado, grid, Monte Carlo, Sobol or break-even analysis"
    )
    _common(p)
    p.add_argument(
        "analysis",
        choices=("tornado", "grid", "montecarlo", "sobol", "breakeven", "grid-mc"),
        metavar="ANALYSIS",
        help="tornado, grid, montecarlo, sobol, breakeven or grid-mc (P(NPV > 0) in each cell of "
        "the fleet-plan grid), e.g. econ sensitivity montecarlo --samples 50000",
    )
    _samples(
        p,
        f"samples: Monte Carlo 1 to {MAX_SAMPLES:,} (default 20,000); Sobol base n 1 to "
        f"{MAX_SOBOL_SAMPLES:,} (default 1024; also the tornado's, which it ranks against)",
    )
    _seed(p)
    _workers(p)
    p.add_argument(
        "--metric", choices=("npv", "payback"), default="npv", help="tornado/grid/Sobol output"
    )
    p.add_argument(
        "--samples-csv",
        metavar="FILE",
        help="montecarlo: write every sample (its inputs by key, npv_usd, payback_months, "
        "irr_annual, profitability_index) to FILE",
    )
    p.add_argument(
        "--all",
        action="store_true",
        help="also show the keys of no effect (zero swing, zero index, not read, within the "
        "noise), which the tables leave out",
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="one JSON object instead of tables")
    out.add_argument(
        "--csv",
        metavar="FILE",
        help="write the table to FILE (every row, unformatted; units in FILE.units.csv)",
    )

    p = sub.add_parser(
        "compare",
        help="scenarios side by side (NPV, payback, IRR, ...) and their payback curves, "
        "written to DIR/compare/comparison.xlsx and .png",
    )
    p.add_argument(
        "scenarios",
        nargs="*",
        metavar="SCENARIO",
        type=compare_name,
        help="scenario names, base for the run without one, e.g. econ compare base "
        "strong_upgrade (default: base, then every scenario of data/scenarios)",
    )
    _data_and_set(p)
    p.add_argument(
        "--out", metavar="DIR", default="reports", help="output folder (default: ./reports)"
    )
    p.add_argument("--json", action="store_true", help="one JSON object instead of text")
    _workers_all(p)

    p = sub.add_parser(
        "platforms",
        help="the same budget and term on every platform: MW, fastest speed, users per MW, "
        "NPV and payback",
    )
    _common(p)
    p.add_argument(
        "--budget",
        type=positive_number,
        metavar="USD",
        help="the budget to spend (default: contract.value_usd)",
    )
    p.add_argument("--json", action="store_true", help="one JSON object instead of text")
    _workers_all(p)

    p = sub.add_parser(
        "sweep", help="NPV, payback, discounted payback and utilisation over the term over one key"
    )
    _common(p)
    p.add_argument(
        "key",
        metavar="KEY",
        help="the dotted key to sweep, e.g. econ sweep tiers.ultrafast.tokens_per_s",
    )
    _key_range(p)
    p.add_argument(
        "--points",
        type=POINTS,
        default=21,
        metavar="N",
        help=f"values of the key, {MIN_POINTS} to {MAX_POINTS} (default 21)",
    )
    _hold(p)
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    out.add_argument(
        "--csv",
        metavar="FILE",
        help="write the table to FILE (unformatted; units in FILE.units.csv)",
    )
    _workers_all(p)

    p = sub.add_parser(
        "optimize", help="the value of KEY that maximises NPV (or another metric) in a range"
    )
    _common(p)
    p.add_argument(
        "key",
        metavar="KEY",
        help="the dotted key to choose, e.g. econ optimize contract.mw --low 300 --high 900",
    )
    _key_range(p)
    p.add_argument(
        "--metric",
        choices=("npv", "profitability_index", "payback", "discounted_payback"),
        default="npv",
        help="what to make best: NPV or the profitability index highest, a payback earliest "
        "(default npv)",
    )
    _hold(p)
    p.add_argument("--json", action="store_true", help="one JSON object instead of text")
    _workers_all(p)

    p = sub.add_parser(
        "explain",
        help="where the change in NPV (and payback) from the bundled data (or --against) comes "
        "from, key by key (Shapley values)",
    )
    _common(p)
    p.add_argument(
        "--against",
        metavar="DIR|SCENARIO",
        help="the case to explain the change from: a data folder, or a scenario of this data "
        "(default: the bundled data)",
    )
    p.add_argument("--png", metavar="FILE", help="write the waterfall chart of the change to FILE")
    p.add_argument("--json", action="store_true", help="one JSON object instead of text")

    p = sub.add_parser(
        "keys",
        help="every assumption key: value, unit, valid range, sensitivity range, guess or "
        "sourced, and its source",
    )
    _common(p)
    p.add_argument(
        "pattern",
        nargs="?",
        metavar="PATTERN",
        help="only keys containing PATTERN, or matching it as a shell pattern, e.g. econ keys "
        "'plans.*.price*'",
    )
    p.add_argument("--json", action="store_true", help="one JSON list instead of text")
    return parser


def _data_and_set(p: argparse.ArgumentParser) -> None:
    """--data and --set (for a command that names its scenarios itself)."""
    _verbose(p)
    p.add_argument(
        "--data",
        metavar="DIR",
        help="folder of assumption CSVs (default: ./data, else the bundled defaults)",
    )
    p.add_argument(
        "--set",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        dest="overrides",
        help="override one assumption by its dotted key in every scenario (repeatable)",
    )


def _workers_all(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--workers",
        type=WORKERS,
        default=None,
        metavar="N",
        help=f"processes, 1 to {MAX_WORKERS} (default: all cores)",
    )


def _hold(p: argparse.ArgumentParser) -> None:
    """--hold rate|value, for the commands that move one key (section 0.3)."""
    p.add_argument(
        "--hold",
        choices=("rate", "value"),
        default="rate",
        help="for contract.mw and contract.term_months: move the contract's value with its size "
        "at its rate per MW-month (rate, the default) or keep the value (value)",
    )


def _key_range(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--low",
        type=finite_number,
        help="lower end (default: the key's sensitivity range, else its valid range, else "
        "half its value)",
    )
    p.add_argument("--high", type=finite_number, help="upper end (default: as --low, or twice)")


def _speeds(text: str) -> tuple[float, ...]:
    """--speeds: positive numbers separated by commas."""
    out = []
    for part in text.split(","):
        try:
            x = float(part)
        except ValueError:
            x = float("nan")
        if not (x >= MIN_MAGNITUDE and x < float("inf")):
            raise argparse.ArgumentTypeError(
                f"{part.strip()!r} is not a speed; expected positive numbers separated by commas"
            )
        out.append(x)
    return tuple(out)


def _number(x: float) -> str:
    """A table cell: a number with thousands separators, '-' where there is none (never nan/inf)."""
    return f"{x:,.2f}" if math.isfinite(x) else "-"


def bars():
    """Progress bars on stderr, shown only where stderr is a terminal (econ.report.terminal)."""
    from econ.report.terminal import Bars

    return Bars()


def show(text: str, notes: list[str] = ()) -> None:
    """A result on stdout; its notes (what was left out to fit) on stderr."""
    print(text)
    for n in notes:
        note(n)


def note(text: str) -> None:
    """A note for the person at the terminal, on stderr (never mixed with results)."""
    print(text, file=sys.stderr)


def wrote(path) -> None:
    note(f"econ: wrote {path}")


def units_path(path: Path) -> Path:
    """Where a CSV's units go: ``out.csv`` -> ``out.units.csv`` (docs/api.md)."""
    stem = path.name[:-4] if path.name.lower().endswith(".csv") else path.name
    return path.with_name(f"{stem}.units.csv")


def write_csv(path: Path, df, units=None, unit_columns=None) -> list[Path]:
    """``df`` to ``path`` as CSV (unformatted, every row) and its units to the file beside it
    (:func:`units_path`): one row per column, with its unit, or the column that gives each
    row's unit. Returns the paths written."""
    import pandas as pd

    from econ.api import unit_of

    units = dict(units if units is not None else df.attrs.get("units", {}))
    unit_columns = dict(
        unit_columns if unit_columns is not None else df.attrs.get("unit_columns", {})
    )
    table = pd.DataFrame(
        {
            "column": [str(c) for c in df.columns],
            "unit": [
                "" if c in unit_columns else (units.get(c, unit_of(str(c))) or "")
                for c in df.columns
            ],
            "unit_column": [unit_columns.get(c, "") for c in df.columns],
        }
    )
    write_text(path, df.to_csv(index=False))
    side = units_path(path)
    if side != path and path.exists() and path.is_file():
        write_text(side, table.to_csv(index=False))
        return [path, side]
    return [path]


def _same_file(p: Path, q: Path) -> bool:
    """Whether two paths name one file: the same path once links are followed, or one file
    under two names (a hard link)."""
    if os.path.realpath(p) == os.path.realpath(q):
        return True
    try:
        return os.path.samefile(p, q)
    except OSError:  # one of them does not exist yet
        return False


def check_outputs(named: list[tuple[str, Path, bool]], *data: Assumptions) -> None:
    """Refuse, before any work, output files of one command line that would overwrite each
    other or a file of the ``data`` the run reads: ``named`` holds (option, path, with a units
    file beside it). A folder is no output file either."""
    files: list[tuple[str, Path]] = []
    for option, path, units in named:
        if path.is_dir():
            example = path / {"--png": "explain.png", "--samples-csv": "samples.csv"}.get(
                option, "table.csv"
            )
            raise AssumptionError(
                f"{option} {path}: is a folder; expected a file name, e.g. {example}"
            )
        if not path.parent.is_dir():
            raise AssumptionError(
                f"{option} {path}: the folder {path.parent} does not exist; create it, or name "
                "a file in a folder that does"
            )
        files.append((f"{option} {path}", path))
        if units and units_path(path) != path:
            files.append((f"the units file of {option} ({units_path(path)})", units_path(path)))
    for i, (what, path) in enumerate(files):
        for other, q in files[:i]:
            if _same_file(path, q):
                raise AssumptionError(
                    f"{what} and {other} are one file: one would overwrite the other; "
                    "name outputs apart"
                )
    for what, path in files:
        for fi in (fi for a in data for fi in a.files):
            if _same_file(path, fi.path):
                raise AssumptionError(
                    f"{what}: is {fi.name}, a data file this run reads; write elsewhere"
                )


def resolve(args: argparse.Namespace) -> Assumptions:
    """Load the data the flags name, then the scenario, then the --set overrides."""
    return _apply(_load_data(args), args.scenario, args.overrides)


def _load_data(args: argparse.Namespace) -> Assumptions:
    verbose = getattr(args, "verbose", False)
    if args.data:
        if verbose:
            note(f"econ: using the data in {args.data}")
        return load(args.data)
    if (Path("data") / "assumptions.csv").is_file():
        if verbose:
            note("econ: using the data in ./data")
        return load(Path("data"))
    if verbose or _first_in_session("bundled-data"):
        note(f"econ: no ./data here; using the bundled default data ({bundled_data_dir()})")
    return load(None)


def _first_in_session(what: str) -> bool:
    """True the first time this shell session asks (then never again in it): a marker file
    per session (its leader's process id and start time) in a folder of this user's under
    the temporary folder. Where there is no session to tell (no os.getsid) or the marker
    cannot be written, always True: the note is shown rather than lost."""
    try:
        sid = os.getsid(0)
    except (AttributeError, OSError):
        return True
    try:
        with open(f"/proc/{sid}/stat", encoding="ascii") as fh:  # the leader's start time
            started = fh.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        started = "0"
    uid = os.getuid() if hasattr(os, "getuid") else 0
    folder = Path(tempfile.gettempdir()) / f"econ-{uid}"
    marker = folder / f"{what}-{sid}-{started}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        if folder.is_symlink() or folder.stat().st_uid != uid:
            return True
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        os.close(fd)
    except FileExistsError:
        return False
    except OSError:
        return True
    return True


def _apply(a: Assumptions, scenario: str | None, overrides: list[str]) -> Assumptions:
    if scenario:
        a = a.with_scenario(scenario)
    pairs = []
    for item in overrides:
        if "=" not in item:
            raise AssumptionError(
                f"--set {item}: expected KEY=VALUE, e.g. --set contract.value_usd=12e9"
            )
        k, v = item.split("=", 1)
        pairs.append((k.strip(), v.strip()))
    return a.with_overrides(pairs) if pairs else a


def _warning_line(message, category, filename, lineno, line=None) -> str:
    return f"econ: warning: {_one_line(str(message))}\n"


class _NamedStdout:
    """sys.stdout whose write failures name "standard output" (BrokenPipeError passes through)."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            try:
                return self._stream.write(text)
            except UnicodeEncodeError:  # a file name that is not UTF-8, or a terminal's charset
                enc = getattr(self._stream, "encoding", None) or "utf-8"
                safe = path_text(text).encode(enc, "backslashreplace").decode(enc)
                return self._stream.write(safe)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputFailure(_stdout_message(exc)) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputFailure(_stdout_message(exc)) from None

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _stdout_message(exc: OSError) -> str:
    return f"standard output: cannot write ({exc.strerror or exc})"


def _drop_stdout(stream) -> None:
    """Point a failed stdout at /dev/null, so that the flush at exit does not fail again."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, stream.fileno())
        os.close(fd)
    except (OSError, ValueError, AttributeError):
        pass


EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a Ctrl-C
EXIT_TERMINATED = 143  # 128 + SIGTERM


class Terminated(BaseException):
    """SIGTERM arrived (``timeout``, CI, a process manager): stop as on Ctrl-C."""


def _on_sigterm(signum, frame) -> None:
    raise Terminated


def _stopped(why: str, code: int) -> int:
    """After SIGINT or SIGTERM: no second signal interrupts the cleanup; the workers are
    stopped; one line says why. What was being written was removed by the writers' own
    cleanup (a temporary beside the output, never the output)."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            signal.signal(sig, signal.SIG_IGN)
        except (ValueError, OSError):
            pass
    from econ.parallel import stop_all

    stop_all()
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    print(f"econ: {why}", file=sys.stderr)
    return code


def main(argv: list[str] | None = None) -> int:
    """The command line: a result or one line saying what is wrong (status 2); Ctrl-C and
    SIGTERM end it with one line and status 130 or 143, leaving no worker behind."""
    before = None
    try:
        before = {
            signal.SIGINT: signal.getsignal(signal.SIGINT),
            signal.SIGTERM: signal.signal(signal.SIGTERM, _on_sigterm),
        }
    except ValueError:  # not the main thread (called from a thread): leave signals alone
        pass
    try:
        return _main(argv)
    except KeyboardInterrupt:
        return _stopped("interrupted", EXIT_INTERRUPTED)
    except Terminated:
        return _stopped("terminated", EXIT_TERMINATED)
    finally:
        if before is not None and argv is not None:  # called from Python: put them back
            for sig, handler in before.items():
                signal.signal(sig, handler)


def _main(argv: list[str] | None = None) -> int:
    warnings.formatwarning = _warning_line  # one plain line per warning, no source paths
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "analysis", None) == "sobol" and args.samples is not None:
        try:
            SOBOL_SAMPLES(str(args.samples))
        except argparse.ArgumentTypeError as exc:
            usage_error(f"--samples {exc} (Sobol base samples)", "econ sensitivity")
    real = sys.stdout
    closed = real is None
    if closed:  # started with standard output closed (econ ... >&-)
        if _prints_result(args):
            print(
                "econ: error: standard output is closed, and econ prints its result there; "
                "redirect it to a file (or to /dev/null)",
                file=sys.stderr,
            )
            return EXIT_BAD_INPUT
        real = open(os.devnull, "w")  # noqa: SIM115 - closed below
    sys.stdout = _NamedStdout(real)
    try:
        code = COMMANDS[args.command](args)
        sys.stdout.flush()
        return code
    except AssumptionError as exc:
        print(f"econ: error: {_one_line(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # output piped into head & co.
        _drop_stdout(real)
        return 0
    except OSError as exc:  # OutputError and friends: the message names the file
        if isinstance(exc, OutputFailure):
            _drop_stdout(real)
        print(f"econ: error: {_one_line(_os_message(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    finally:
        sys.stdout = None if closed else real
        if closed:
            real.close()


def _prints_result(args: argparse.Namespace) -> bool:
    """Whether the command prints its result on standard output (report and init write
    files, --csv writes the table to a file)."""
    return args.command not in ("report", "init") and not getattr(args, "csv", None)


def _os_message(exc: OSError) -> str:
    """An OSError as "<file>: <what>" (econ's own errors already read so)."""
    if exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror}"
    return str(exc)


def cmd_validate(args) -> int:
    """Every check `econ report` runs, on the data, and on each scenario when none is named."""
    base = _load_data(args)
    a = _apply(base, args.scenario, args.overrides)
    names = [] if args.scenario else base.scenario_names()
    with bars() as phase:
        done = phase("Checking the data and each scenario", "cases", total=len(names) + 1)
        _check_like_report(a)
        for i, name in enumerate(names, start=1):
            if done is not None:
                done(i, len(names) + 1)
            path = base.data_dir / "scenarios" / f"{name}.csv"
            try:
                check_scenario_name(name)
            except AssumptionError:
                raise AssumptionError(
                    f"{path}: {name!r} cannot name a scenario (1 to 64 letters, digits, _ or -; "
                    "not 'base'); rename the file"
                ) from None
            try:
                _check_like_report(_apply(base, name, args.overrides))
            except AssumptionError as exc:
                raise AssumptionError(f"scenario {name}: {exc}") from None
        if done is not None:
            done(len(names) + 1, len(names) + 1)
    if not args.json:
        from econ.report.terminal import wrap

        print(wrap(f"econ: loaded {a.data_dir}" + (" (bundled defaults)" if a.bundled else "")))
        for fi in a.files:
            print(f"  {fi.name:<32} {fi.rows:>4} rows  sha256 {fi.sha256[:12]}")
        print(f"  {len(a.values)} keys; scenario {a.scenario}; {len(a.overrides)} override(s)")
        if names:
            print(wrap(f"  scenarios checked: {', '.join(names)}", indent="    "))
    if args.json:
        doc = {
            "ok": True,
            "data": str(a.data_dir),
            "bundled_data": a.bundled,
            "files": [{"name": f.name, "rows": f.rows, "sha256": f.sha256} for f in a.files],
            "keys": len(a.values),
            "scenario": a.scenario,
            "overrides": len(a.overrides),
            "scenarios_checked": names,
        }
        print(json.dumps(doc, indent=1))
        return 0
    print("OK")
    return 0


def _check_like_report(a: Assumptions) -> None:
    """The checks `econ report` makes beyond loading: the model evaluates, and the
    sensitivity problem is valid (each range holds its base value, the rank
    correlations form a positive definite matrix)."""
    from econ.model import evaluate
    from econ.sensitivity.run import problem_from

    evaluate(a)
    if a.sensitivity:
        problem_from(a)


def cmd_summary(args) -> int:
    from econ.headline import headline
    from econ.report.summary import text

    with bars() as phase:
        phase("Checking the data", "")
        a = resolve(args)
        phase("The headline: the NPV on each basis and the best size at the rate", "")
        h = headline(a)
    if args.json:
        print(json.dumps(h, indent=1))
    else:
        from econ.report.terminal import wrap

        print(wrap(text(h)))
    return 0


def _check_sobol_size(a: Assumptions, n: int, option: str) -> None:
    """The Sobol sample over the keys the analyses vary within the bounds of econ/limits.py."""
    from econ.limits import sobol_size_error
    from econ.sensitivity.run import varied

    why = sobol_size_error(n, len(varied(a)))
    if why:
        raise AssumptionError(f"{option} {n}: {why}")


def cmd_report(args) -> int:
    from econ.report import check_report, write_report

    a = resolve(args)
    if not args.no_sensitivity:
        _check_sobol_size(a, args.sobol_samples, "--sobol-samples")
    out = Path(args.out)
    check_report(out, a, force=args.force, replace=args.replace)  # before minutes of sampling
    analysis, info = {}, {}
    with bars() as phase:
        phase("Checking the data", "")
        if not args.no_sensitivity:
            from econ.sensitivity.run import report_analysis

            analysis, info = report_analysis(
                a,
                samples=args.samples,
                sobol_n=args.sobol_samples,
                seed=args.seed,
                workers=args.workers,
                phase=_phases(phase, args.samples),
            )
        phase("Writing the workbook", "")
        path = write_report(
            a,
            out,
            force=args.force,
            analysis=analysis,
            run_info=info,
            replace=args.replace,
            explain=args.explain,
        )
    wrote(path)
    wrote(path.with_name("summary.md"))
    return 0


def cmd_init(args) -> int:
    dest = Path(args.dir)
    if dest.exists() and not dest.is_dir():
        raise AssumptionError(f"{dest}: not a folder; choose a new or empty folder")
    try:
        has_files = dest.exists() and any(dest.iterdir())
    except OSError as exc:
        raise OutputFailure(f"{dest}: cannot read the folder ({exc.strerror or exc})") from None
    if has_files and not args.force:
        raise AssumptionError(f"{dest} already has files; choose an empty folder or pass --force")
    copy_as_one_unit(bundled_data_dir(), dest)
    note(f"econ: wrote an editable copy of the default data to {dest}")
    note(f"       use it with: econ report --data {dest}")
    return 0


def copy_as_one_unit(src: Path, dest: Path) -> None:
    """Copy the folder ``src`` to ``dest`` as one unit: staged in a temporary folder beside
    ``dest``, then renamed into place (a new or empty ``dest``) or each file renamed over its
    old copy (``--force``). A failure while copying (a full disk) leaves ``dest`` as it was
    and no temporary; OutputFailure names the file."""
    if dest.name in ("", ".", ".."):
        dest = dest.absolute()  # a folder with a name to stage beside
    parent = dest.parent  # relative as given: an absolute path can be too long (a deep folder)
    try:
        parent.mkdir(parents=True, exist_ok=True)
        made = tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".tmp", dir=parent)
        stage = parent / os.path.basename(made)  # mkdtemp returns the absolute path
    except OSError as exc:
        raise OutputFailure(f"{dest}: cannot write ({exc.strerror or exc})") from None
    try:
        for path in sorted(src.rglob("*")):
            rel = path.relative_to(src)
            if "__pycache__" in rel.parts:
                continue
            try:
                if path.is_dir():
                    (stage / rel).mkdir(exist_ok=True)
                else:
                    shutil.copy2(path, stage / rel)
            except OSError as exc:
                raise OutputFailure(
                    f"{dest / rel}: cannot write ({exc.strerror or exc}); {dest} is unchanged"
                ) from None
        umask = os.umask(0)
        os.umask(umask)
        try:
            os.chmod(stage, 0o777 & ~umask)  # mkdtemp makes 0700
            if not dest.exists() or not any(dest.iterdir()):
                os.replace(stage, dest)  # replaces an empty folder too
                return
            for path in sorted(stage.rglob("*")):  # --force: each file over its old copy
                target = dest / path.relative_to(stage)
                if path.is_dir():
                    target.mkdir(exist_ok=True)
                else:
                    os.replace(path, target)
        except OSError as exc:
            raise OutputFailure(f"{dest}: cannot write ({exc.strerror or exc})") from None
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def cmd_capacity(args) -> int:

    from econ.compute import tables
    from econ.headline import clean

    a = resolve(args)
    df = tables.capacity_table(a, args.speeds)
    if args.json:
        out = {
            "capacity": df.to_dict(orient="records"),
            "frontier_audit": tables.frontier_audit(a).to_dict(orient="records"),
            "calibration": tables.calibration_table(a).to_dict(orient="records"),
        }
        print(json.dumps(clean(out), indent=1))
        return 0
    from econ.report import cli_text

    show(*cli_text.capacity(df, tables.frontier_audit(a)))
    return 0


def cmd_goal_seek(args) -> int:
    from econ.sensitivity.breakeven import goal_seek_key

    with bars() as phase:
        phase("Checking the data", "")
        a = resolve(args)
        phase(f"Goal seek of {args.key}", "")
        res = goal_seek_key(
            a, args.key, target=args.target, low=args.low, high=args.high, hold=args.hold
        )
    if args.json:
        from econ.headline import clean

        print(json.dumps(clean({**res.__dict__, "reached": res.reached}), indent=1))
    else:
        from econ.report import cli_text

        print(
            cli_text.goal_seek(
                res, args.key, a.num("contract.term_months"), a.num("horizon.months")
            )
        )
    return 0 if res.reached else EXIT_NO_ANSWER


# each analysis's phase on the terminal: (label, what it counts, the label of what follows
# the count)
PHASES = {
    "montecarlo": ("Monte Carlo", "samples", "Statistics and value of information"),
    "sobol": ("Sobol", "evaluations", "Sobol indices and their intervals"),
    "grid": ("Grids", "points", None),
    "breakeven": ("Break-even", "keys", None),
    "tornado": ("Tornado", "", None),
    "grid-mc": ("Fleet-plan grid Monte Carlo", "samples", None),
}


def _phases(bars, samples: int | None = None):
    """The progress factory of the analyses: each phase by its label, the Monte Carlo's bar
    with its total from the start (the samples asked for) and a spinner for what follows."""
    follow = {label: then for label, _, then in PHASES.values()}

    def phase(what: str, unit: str):
        total = samples if what == "Monte Carlo" else None
        return bars(what, unit, total=total, then=follow.get(what))

    return phase


def _anchors(a) -> dict:
    """The public anchors of the GPU cost of a standard token (section V4.4), USD per 1M."""
    from econ.headline import gpu_cost_anchors
    from econ.model import evaluate

    an = gpu_cost_anchors(a, evaluate(a))
    return {k: v for k, v in an.items() if not k.endswith("_detail")}


def cmd_sensitivity(args) -> int:
    from econ import api
    from econ.headline import clean
    from econ.sensitivity.run import run_cli

    with bars() as phase:
        phase("Checking the data", "")
        a = resolve(args)
        if args.samples_csv and args.analysis != "montecarlo":
            raise AssumptionError("--samples-csv: only econ sensitivity montecarlo writes samples")
        check_outputs(
            [
                (o, Path(f), True)
                for o, f in (("--samples-csv", args.samples_csv), ("--csv", args.csv))
                if f
            ],
            a,
        )
        if args.analysis in ("sobol", "tornado"):  # the tornado ranks against Sobol
            _check_sobol_size(a, args.samples or 1024, "--samples")
        res = run_cli(
            a,
            args.analysis,
            samples=args.samples,
            seed=args.seed,
            metric=args.metric,
            progress=_phases(phase, args.samples or 20_000)(
                *PHASES.get(args.analysis, (args.analysis, "", None))[:2]
            ),
            workers=args.workers,
            samples_csv=args.samples_csv,
        )
    if isinstance(res, dict):  # the Monte Carlo: statistics, value of information, fans
        voi = api.voi_frame(res["evppi"])
        doc = {
            "samples": res["n"],
            "seed": args.seed,
            "statistics": res["stats"].to_dict(orient="records"),
            "evpi_usd": res["evpi_usd"],
            "evpi_se_usd": res["evpi_se_usd"],
            "evppi_usd": dict(zip(voi["key"], voi["evppi_usd"], strict=True)),
            "evppi_se_usd": dict(zip(voi["key"], voi["evppi_se_usd"], strict=True)),
            "value_of_information": voi.to_dict(orient="records"),
            "decision_options_usd": res["options"],
            "best_option": res["best_option"],
            "payback_by_month": res["payback_by_month"].to_dict(orient="records"),
            "cumulative_cash_fan": res["fan"].to_dict(orient="records"),
            "convergence": res["convergence"].to_dict(orient="records"),
            "held": {k: v for k, v, _ in res["held"]},
            "gpu_cost_prior_predictive": {
                **res["gpu_cost_prior_predictive"],
                "anchors": _anchors(a),
            },
            "clamps": res["clamps"],
        }
        frame = api.statistics_frame(res["stats"])
    else:
        frame = {
            "tornado": api.tornado_frame,
            "grid": api.grids_frame,
            "sobol": api.sobol_frame,
            "breakeven": api.breakeven_frame,
        }.get(args.analysis, lambda df: df)(res)  # an added analysis prints its own frame
        # the JSON names its columns as the API and the CSV do, without the units by row
        units = set(frame.attrs.get("unit_columns", {}).values())
        doc = frame.drop(columns=[c for c in units if c in frame.columns]).to_dict(orient="records")
    if args.samples_csv:
        path = Path(args.samples_csv)
        if path.is_file():
            with open(path, encoding="utf-8") as fh:
                cols = fh.readline().strip().split(",")  # the header econ wrote
            side = units_path(path)
            if side != path:
                import pandas as pd

                units = api.samples_units(cols)
                write_text(
                    side,
                    pd.DataFrame(
                        {"column": cols, "unit": [units[c] or "" for c in cols], "unit_column": ""}
                    ).to_csv(index=False),
                )
        wrote(args.samples_csv)
    if args.csv:
        for p in write_csv(Path(args.csv), frame):
            wrote(p)
    elif args.json:
        print(json.dumps(clean(doc), indent=1))
    else:
        from econ.report import cli_text
        from econ.sensitivity.run import held

        if args.analysis == "montecarlo":
            show(*cli_text.montecarlo(res, args.all))
        elif args.analysis == "tornado":
            show(*cli_text.tornado(res, args.all))
        elif args.analysis == "grid":
            show(*cli_text.grid(res, args.all))
        elif args.analysis == "sobol":
            show(*cli_text.sobol(res, args.all))
        elif args.analysis == "grid-mc":
            show(*cli_text.grid_mc(res))
        else:
            from econ.model import evaluate

            show(*cli_text.breakeven(res, evaluate(a, detail=False).inputs_read, args.all))
        fixed = held(a)
        if fixed and args.analysis != "montecarlo":
            from econ.report.summary import held_sentence
            from econ.report.terminal import wrap

            print(wrap(held_sentence(fixed)))
    return 0


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path``: a regular file atomically (a temporary beside it, renamed),
    anything else (a device, a pipe) directly. Failures raise OutputFailure naming the file."""
    write_bytes(path, text.encode("utf-8"))


def write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` as :func:`write_text` writes text."""
    try:
        special = path.exists() and not stat.S_ISREG(path.stat().st_mode) and not path.is_dir()
    except OSError:
        special = False
    try:
        if special:
            with open(path, "wb") as f:
                f.write(data)
            return
        from econ.tempfiles import clean_stale, temporary

        clean_stale(path)
        fd, tmp = temporary(path)
    except OSError as exc:
        raise OutputFailure(f"{path}: cannot write ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the usual permissions
        os.replace(tmp, path)
    except OSError as exc:
        raise OutputFailure(f"{path}: cannot write ({exc.strerror or exc})") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _all_workers(args) -> int:
    """--workers, or every core this process may use."""
    from econ.parallel import available_cores

    return args.workers or min(available_cores(), MAX_WORKERS)


def cmd_compare(args) -> int:
    import datetime as dt

    from econ.assumptions import BASE_SCENARIO
    from econ.decisions import compare, compare_names
    from econ.headline import clean
    from econ.report.compare import comparison_text, output_folder, write_comparison

    base = _load_data(args)
    names = compare_names(base, args.scenarios)
    scenarios = [_apply(base, None if n == BASE_SCENARIO else n, args.overrides) for n in names]
    output_folder(Path(args.out))  # refuse a bad --out before evaluating
    with bars() as phase:
        c = compare(
            scenarios,
            workers=_all_workers(args),
            progress=phase("Scenarios", "scenarios", total=len(scenarios)),
        )
    run_time = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    facts = f"Data: {path_text(base.data_dir)}" + (" (bundled defaults)" if base.bundled else "")
    if args.overrides:
        facts += "; on every scenario: " + ", ".join(f"--set {o}" for o in args.overrides)
    paths = write_comparison(c, Path(args.out), run_time, facts + f"; econ {__version__}")
    if args.json:
        doc = {
            "run_time": run_time,
            "scenarios": c.rows.to_dict(orient="records"),
            "cumulative_cash_usd": {n: c.cumulative_cash[n].tolist() for n in c.cumulative_cash},
            "files": [str(p) for p in paths],
        }
        print(json.dumps(clean(doc), indent=1))
    else:
        show(*comparison_text(c))
    for path in paths:
        wrote(path)
    return 0


def cmd_platforms(args) -> int:
    from econ.decisions import platforms
    from econ.headline import clean
    from econ.report.compare import platforms_sentence, platforms_text

    a = resolve(args)
    if args.budget is not None:
        _check_budget(a, args.budget)
    with bars() as phase:
        df = platforms(
            a,
            args.budget,
            workers=_all_workers(args),
            progress=phase("Platforms", "platforms", total=len(a.platforms())),
        )
    answer = platforms_sentence(df)
    if args.json:
        doc = {**df.attrs, "platforms": df.to_dict(orient="records"), "answer": answer}
        print(json.dumps(clean(doc), indent=1))
    else:
        from econ.report.terminal import wrap

        text, notes = platforms_text(df)
        show(text + "\n\n" + wrap(answer), notes)
    return 0


def _check_budget(a: Assumptions, budget: float) -> None:
    """--budget within what the model may take: as contract.value_usd, and buying on every
    platform a number of MW that contract.mw allows."""
    from econ.assumptions import rule_for
    from econ.decisions import platform_mw

    value_rule, mw_rule = rule_for("contract.value_usd"), rule_for("contract.mw")
    if too_small(budget) or not value_rule.check(budget):
        raise AssumptionError(
            f"--budget {budget:g}: out of range; expected {value_rule.expected()} [USD] "
            "(the values contract.value_usd may take)"
        )
    for platform in a.platforms():
        mw = platform_mw(a, platform, budget)
        if not mw_rule.check(mw):
            most = budget * mw_rule.high / mw if mw_rule.high and mw > mw_rule.high else None
            raise AssumptionError(
                f"--budget {budget:g}: buys {f'{mw:,.0f}' if mw >= 1 else f'{mw:.3g}'} MW on {platform} at its rent, outside what "
                f"contract.mw allows ({mw_rule.expected()} [MW])"
                + (f"; expected a budget of at most {most:.4g} USD" if most else "")
            )


def cmd_sweep(args) -> int:
    from econ.decisions import sweep
    from econ.headline import clean
    from econ.report.compare import sweep_text

    a = resolve(args)
    if args.csv:
        check_outputs([("--csv", Path(args.csv), True)], a)
    with bars() as phase:
        s = sweep(
            a,
            args.key,
            args.low,
            args.high,
            args.points,
            workers=_all_workers(args),
            hold=args.hold,
            progress=phase("Sweep", "values"),
        )
    if args.csv:
        for p in write_csv(Path(args.csv), s.table):
            wrote(p)
    elif args.json:
        doc = {**s.range.__dict__, "read": s.read, "points": s.table.to_dict(orient="records")}
        print(json.dumps(clean(doc), indent=1))
    else:
        show(*sweep_text(s))
    return 0


def cmd_optimize(args) -> int:
    from econ.decisions import optimize
    from econ.headline import clean
    from econ.report.compare import optimum_found, optimum_text

    a = resolve(args)
    with bars() as phase:
        o = optimize(
            a,
            args.key,
            args.low,
            args.high,
            args.metric,
            workers=_all_workers(args),
            hold=args.hold,
            progress=phase("Optimisation grid", "values"),
        )
    contract = _contract_at(a, args.key, o.value, args.hold)
    if args.json:
        doc = {
            **o.range.__dict__,
            **{k: v for k, v in o.__dict__.items() if k not in ("range", "curve")},
            "found": optimum_found(o),
            **contract,
            "curve": o.curve.to_dict(orient="records"),
        }
        print(json.dumps(clean(doc), indent=1))
    else:
        show(*optimum_text(o, contract))
    return 0 if optimum_found(o) else EXIT_NO_ANSWER


def _contract_at(a: Assumptions, key: str, value: float, hold: str) -> dict:
    """Where ``key`` sizes the contract (contract.mw, contract.term_months): the contract's
    value and its rate per MW-month at ``value`` (the value moving with the size at the rate,
    or held with --hold value), and the current ones; else nothing."""
    from econ.model import SIZE_KEYS, at_rate

    if key not in SIZE_KEYS or not math.isfinite(value):
        return {}
    mw = value if key == "contract.mw" else a.num("contract.mw")
    term = value if key == "contract.term_months" else a.num("contract.term_months")
    if hold == "rate":
        worth = float(at_rate(a, key, [value])["contract.value_usd"][0])
    else:
        worth = a.num("contract.value_usd")
    return {
        "hold": hold,
        "contract_value_at_optimum_usd": worth,
        "contract_rate_at_optimum_usd_per_mw_month": worth / (mw * term),
        "contract_value_usd": a.num("contract.value_usd"),
        "contract_rate_usd_per_mw_month": a.num("contract.value_usd")
        / (a.num("contract.mw") * a.num("contract.term_months")),
    }


def cmd_explain(args) -> int:
    from econ.explain import explain
    from econ.headline import clean
    from econ.report.explain_view import shown, waterfall_png

    a = resolve(args)
    if args.against and Path(args.against).is_dir():
        ref, name = load(args.against), f"data folder {args.against}"
    elif args.against:
        ref, name = _load_data(args).with_scenario(args.against), f"scenario {args.against}"
    else:
        ref, name = load(None), "the bundled data"
    if args.png:
        check_outputs([("--png", Path(args.png), False)], a, ref)
    case = "this case" + (f" (scenario {a.scenario})" if a.scenario != "base" else "")
    with bars() as phase:
        phase("Shapley values of the changed keys", "")
        e = explain(a, ref, reference_name=name, case_name=case)
    if args.png:
        import io

        chart = io.BytesIO()
        waterfall_png(e, chart)  # in memory, then to the file named exactly, atomically
        write_bytes(Path(args.png), chart.getvalue())
    if args.json:
        print(json.dumps(clean(e.to_dict()), indent=1))
    else:
        show(*shown(e))
    if args.png:
        print(f"econ: wrote {args.png}", file=sys.stderr)
    return 0


def cmd_keys(args) -> int:
    from econ.headline import clean
    from econ.keys import key_table
    from econ.report.keys_view import shown

    a = resolve(args)
    df = key_table(a, args.pattern)
    if df.empty:
        raise AssumptionError(
            f"econ keys {args.pattern}: no key contains or matches it ("
            + unknown_key_message(args.pattern, a.values)
            + ")"
        )
    if args.json:
        print(json.dumps(clean(df.to_dict(orient="records")), indent=1))
    else:
        show(*shown(df))
    return 0


COMMANDS = {
    "validate": cmd_validate,
    "summary": cmd_summary,
    "report": cmd_report,
    "init": cmd_init,
    "capacity": cmd_capacity,
    "goal-seek": cmd_goal_seek,
    "sensitivity": cmd_sensitivity,
    "compare": cmd_compare,
    "platforms": cmd_platforms,
    "sweep": cmd_sweep,
    "optimize": cmd_optimize,
    "explain": cmd_explain,
    "keys": cmd_keys,
}
