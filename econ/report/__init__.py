"""Report generation: the workbook (xlsx) and a markdown summary beside it."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from econ.assumptions import Assumptions
from econ.headline import headline
from econ.model import evaluate
from econ.report import charts, sheets
from econ.report.summary import text
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
    pngs = charts.write_all(r, extra, int(a.values["contract.term_months"]), path.parent)
    md = path.with_name("summary.md")
    tmp = md.with_name(".summary.md.tmp")
    body = [f"# Payback analysis: {a.scenario}", *text(head).splitlines()[1:]]
    if "mc_stats" in extra:
        st = extra["mc_stats"].set_index(["output", "statistic"])["value"]
        body.append(
            f"Monte Carlo ({extra['mc_n']:,} samples): P(payback within the term) "
            f"{st[('payback', 'P(payback <= term)')]:.1%}, P(NPV > 0) {st[('npv', 'P(NPV > 0)')]:.1%}, "
            f"median NPV ${st[('npv', 'P50')] / 1e9:,.2f}B."
        )
    body += [f"![{p.stem}]({p.name})" for p in pngs]
    body.append(f"Details: `{path.name}` (run {info['time']}).")
    tmp.write_text("\n\n".join(body) + "\n")
    tmp.replace(md)
    return path
