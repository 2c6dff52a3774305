"""Report generation: the workbook (xlsx) and a markdown summary beside it."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from econ.assumptions import Assumptions
from econ.model import evaluate
from econ.report import sheets
from econ.report.summary import headline, text
from econ.report.workbook import OutputError, atomic_write

__all__ = ["OutputError", "report_path", "write_report"]


def report_path(out_dir: Path, a: Assumptions) -> Path:
    return Path(out_dir) / a.scenario / "payback_analysis.xlsx"


def write_report(
    a: Assumptions,
    out_dir: Path,
    force: bool = False,
    analysis: dict | None = None,
    run_info: dict | None = None,
) -> Path:
    """Evaluate the model and write ``<out_dir>/<scenario>/payback_analysis.xlsx`` and ``summary.md``.

    ``analysis`` carries precomputed sensitivity results for the analysis sheets.
    Nothing is left half-written: both files are written beside their target and
    renamed into place.
    """
    path = report_path(out_dir, a)
    r = evaluate(a)
    head = headline(a, r)
    info = {"time": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), **(run_info or {})}
    extra = {**sheets.tables_for(a), **(analysis or {})}
    atomic_write(path, lambda tmp: sheets.build(tmp, a, r, head, extra, info), force=force)
    md = path.with_name("summary.md")
    tmp = md.with_name(".summary.md.tmp")
    tmp.write_text(
        f"# Payback analysis: {a.scenario}\n\n" + "\n\n".join(text(head).splitlines()[1:]) + "\n"
    )
    tmp.replace(md)
    return path
