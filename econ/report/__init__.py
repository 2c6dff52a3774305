"""Report generation: the workbook (xlsx) and a markdown summary beside it."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from econ.assumptions import Assumptions
from econ.headline import headline, report_tables
from econ.model import evaluate
from econ.report import charts, sheets
from econ.report.output import OutputError, ReportFolder, check_folder, check_name
from econ.report.summary import markdown

__all__ = ["OutputError", "check_report", "report_path", "write_report"]


def report_path(out_dir: Path, a: Assumptions) -> Path:
    return Path(out_dir) / check_name(a.scenario) / "payback_analysis.xlsx"


def check_report(out_dir: Path, a: Assumptions, force: bool = False) -> None:
    """Refuse early (before minutes of sampling) what write_report would refuse: see output.py."""
    check_folder(report_path(out_dir, a).parent, force)


def write_report(
    a: Assumptions,
    out_dir: Path,
    force: bool = False,
    analysis: dict | None = None,
    run_info: dict | None = None,
) -> Path:
    """Evaluate the model and write ``<out_dir>/<scenario>/payback_analysis.xlsx`` and ``summary.md``.

    ``analysis`` carries precomputed sensitivity results for the analysis sheets.
    The report is one unit (econ.report.output): the workbook, summary.md, the
    charts and their SHA-256 manifest are written into a new folder that then
    replaces the report folder at once, under a lock on ``out_dir``.
    """
    path = report_path(out_dir, a)
    r = evaluate(a)
    head = headline(a, r)
    info = {"time": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), **(run_info or {})}
    extra = {**report_tables(a, head), **(analysis or {})}
    with ReportFolder(path.parent, force=force) as unit:
        unit.write(path.name, lambda tmp: sheets.build(tmp, a, r, head, extra, info))
        pngs = unit.write_many("charts", lambda folder: charts.write_all(r, extra, a, folder))
        body = markdown(head, extra, pngs, path.name, info["time"])
        unit.write("summary.md", lambda md: md.write_text(body, encoding="utf-8"))
    return path
