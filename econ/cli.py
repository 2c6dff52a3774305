"""Command line: argument parsing and printing only."""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import warnings
from pathlib import Path

from econ import __version__
from econ.assumptions import AssumptionError, Assumptions, bundled_data_dir, load

EXIT_BAD_INPUT = 2


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--data",
        metavar="DIR",
        help="folder of assumption CSVs (default: ./data, else the bundled defaults)",
    )
    p.add_argument(
        "--scenario", metavar="NAME", help="apply data/scenarios/NAME.csv before any --set"
    )
    p.add_argument(
        "--set",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        dest="overrides",
        help="override one assumption by its dotted key (repeatable)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="econ",
        description="Does renting ultra-fast inference capacity pay for itself, how fast, and under which assumptions?",
    )
    parser.add_argument("--version", action="version", version=f"econ {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("validate", help="load and validate the assumption data")
    _common(p)

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
        help="overwrite a workbook that was edited since econ wrote it",
    )
    p.add_argument(
        "--samples", type=int, default=20_000, help="Monte Carlo samples (default 20000)"
    )
    p.add_argument(
        "--sobol-samples", type=int, default=1024, help="Sobol base samples n (default 1024)"
    )
    p.add_argument("--seed", type=int, default=12345, help="random seed (default 12345)")
    p.add_argument(
        "--no-sensitivity",
        action="store_true",
        help="skip the Tornado, Grid, Monte Carlo and Sobol sheets",
    )

    p = sub.add_parser("init", help="write an editable copy of the default data")
    p.add_argument("dir", metavar="DIR")
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
    p.add_argument("--json", action="store_true")

    p = sub.add_parser(
        "goal-seek", help="the value of KEY at which NPV is zero (or payback equals the term)"
    )
    _common(p)
    p.add_argument("key")
    p.add_argument("--target", choices=("npv", "payback"), default="npv")
    p.add_argument(
        "--low", type=float, help="lower end of the search (default: the key's sensitivity range)"
    )
    p.add_argument("--high", type=float, help="upper end of the search")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser(
        "sensitivity", help="tornado, grid, Monte Carlo, Sobol or break-even analysis"
    )
    _common(p)
    p.add_argument("analysis", choices=("tornado", "grid", "montecarlo", "sobol", "breakeven"))
    p.add_argument(
        "--samples", type=int, help="samples (Monte Carlo default 20000; Sobol base n default 1024)"
    )
    p.add_argument("--seed", type=int, default=12345)
    p.add_argument(
        "--metric", choices=("npv", "payback"), default="npv", help="tornado/grid/Sobol output"
    )
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true")
    out.add_argument("--csv", metavar="FILE")
    return parser


def _speeds(text: str) -> tuple[float, ...]:
    """--speeds: positive numbers separated by commas."""
    out = []
    for part in text.split(","):
        try:
            x = float(part)
        except ValueError:
            x = float("nan")
        if not (x > 0 and x < float("inf")):
            raise argparse.ArgumentTypeError(
                f"{part.strip()!r} is not a speed; expected positive numbers separated by commas"
            )
        out.append(x)
    return tuple(out)


def _number(x: float) -> str:
    """A table cell: a number with thousands separators, '-' where there is none (never nan/inf)."""
    return f"{x:,.2f}" if math.isfinite(x) else "-"


def progress_bar():
    """A progress bar on stderr when it is a terminal (None otherwise)."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, n: int) -> None:
        width = 30
        k = int(width * done / n)
        sys.stderr.write(f"\r  [{'#' * k}{'.' * (width - k)}] {done:,}/{n:,} samples")
        if done >= n:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


def resolve(args: argparse.Namespace) -> Assumptions:
    """Load the data the flags name, then the scenario, then the --set overrides."""
    if args.data:
        a = load(args.data)
    elif (Path("data") / "assumptions.csv").is_file():
        a = load(Path("data"))
    else:
        print(
            f"econ: no ./data here; using the bundled default data ({bundled_data_dir()})",
            file=sys.stderr,
        )
        a = load(None)
    if args.scenario:
        a = a.with_scenario(args.scenario)
    pairs = []
    for item in args.overrides:
        if "=" not in item:
            raise AssumptionError(
                f"--set {item}: expected KEY=VALUE, e.g. --set contract.value_usd=12e9"
            )
        k, v = item.split("=", 1)
        pairs.append((k.strip(), v.strip()))
    return a.with_overrides(pairs) if pairs else a


def _warning_line(message, category, filename, lineno, line=None) -> str:
    return f"econ: warning: {message}\n"


def main(argv: list[str] | None = None) -> int:
    warnings.formatwarning = _warning_line  # one plain line per warning, no source paths
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except AssumptionError as exc:
        print(f"econ: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # output piped into head & co.
        return 0
    except OSError as exc:  # OutputError and friends: the message names the file
        print(f"econ: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


def cmd_validate(args) -> int:
    a = resolve(args)
    print(f"econ: loaded {a.data_dir}" + (" (bundled defaults)" if a.bundled else ""))
    for fi in a.files:
        print(f"  {fi.name:<32} {fi.rows:>4} rows  sha256 {fi.sha256[:12]}")
    print(f"  {len(a.values)} keys; scenario {a.scenario}; {len(a.overrides)} override(s)")
    print("OK")
    return 0


def cmd_summary(args) -> int:
    from econ.headline import headline
    from econ.report.summary import text

    a = resolve(args)
    h = headline(a)
    print(json.dumps(h, indent=1) if args.json else text(h))
    return 0


def cmd_report(args) -> int:
    from econ.report import write_report

    a = resolve(args)
    analysis, info = {}, {}
    if not args.no_sensitivity:
        from econ.sensitivity.run import report_analysis

        analysis, info = report_analysis(
            a,
            samples=args.samples,
            sobol_n=args.sobol_samples,
            seed=args.seed,
            progress=progress_bar(),
        )
    path = write_report(a, Path(args.out), force=args.force, analysis=analysis, run_info=info)
    print(f"econ: wrote {path}")
    print(f"econ: wrote {path.with_name('summary.md')}")
    return 0


def cmd_init(args) -> int:
    dest = Path(args.dir)
    if dest.exists() and any(dest.iterdir()) and not args.force:
        print(
            f"econ: error: {dest} already has files; choose an empty folder or pass --force",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    src = bundled_data_dir()
    shutil.copytree(src, dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    print(f"econ: wrote an editable copy of the default data to {dest}")
    print(f"       use it with: econ report --data {dest}")
    return 0


def cmd_capacity(args) -> int:
    import pandas as pd

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
    shown = [
        "platform",
        "tier",
        "tokens_per_s_per_user",
        "tokens_per_s_per_mw",
        "concurrent_users_per_mw",
        "chips_per_replica",
        "stages",
        "ceiling_tokens_per_s",
        "physics_tokens_per_s_per_mw",
        "data_over_physics",
        "verdict",
        "cost_per_mtok_rent_usd",
        "cost_per_mtok_buy_usd",
    ]
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(df[shown].to_string(index=False, float_format=_number, na_rep="-"))
        print()
        print("Frontier points against the physics envelope of the served model:")
        print(tables.frontier_audit(a).to_string(index=False, float_format=_number, na_rep="-"))
    return 0


def cmd_goal_seek(args) -> int:
    from econ.sensitivity.breakeven import goal_seek_key

    a = resolve(args)
    res = goal_seek_key(a, args.key, target=args.target, low=args.low, high=args.high)
    if args.json:
        from econ.headline import clean

        print(json.dumps(clean(res.__dict__), indent=1))
    else:
        print(
            f"searched {args.key} in [{res.bracket[0]:g}, {res.bracket[1]:g}] (base {res.base:g})"
        )
        print(res.message)
    return 0


def cmd_sensitivity(args) -> int:
    import pandas as pd

    from econ.sensitivity.run import run_cli

    a = resolve(args)
    df = run_cli(
        a,
        args.analysis,
        samples=args.samples,
        seed=args.seed,
        metric=args.metric,
        progress=progress_bar(),
    )
    if args.csv:
        df.to_csv(args.csv, index=False)
        print(f"econ: wrote {args.csv}")
    elif args.json:
        from econ.headline import clean

        print(json.dumps(clean(df.to_dict(orient="records")), indent=1))
    else:
        with pd.option_context(
            "display.width", 200, "display.max_columns", 30, "display.max_rows", 200
        ):
            print(df.to_string(index=False))
    return 0


COMMANDS = {
    "validate": cmd_validate,
    "summary": cmd_summary,
    "report": cmd_report,
    "init": cmd_init,
    "capacity": cmd_capacity,
    "goal-seek": cmd_goal_seek,
    "sensitivity": cmd_sensitivity,
}
