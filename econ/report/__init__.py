"""Report generation: the workbook (xlsx) and a markdown summary beside it."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from econ.assumptions import Assumptions
from econ.headline import headline, report_tables
from econ.model import evaluate
from econ.report import charts, sheets
from econ.report.output import (
    SOURCE,
    OutputError,
    ReportFolder,
    check_folder,
    check_name,
    check_source,
    source_text,
)
from econ.report.summary import markdown

__all__ = ["OutputError", "check_report", "report_path", "write_report"]


def report_path(out_dir: Path, a: Assumptions) -> Path:
    return Path(out_dir) / check_name(a.scenario) / "payback_analysis.xlsx"


def _source(a: Assumptions) -> str:
    from econ.headline import data_sha256

    return source_text(str(Path(a.data_dir).resolve()), a.bundled, data_sha256(a))


def check_report(out_dir: Path, a: Assumptions, force: bool = False, replace: bool = False) -> None:
    """Refuse early (before minutes of sampling) what write_report would refuse: see output.py."""
    folder = report_path(out_dir, a).parent
    check_folder(folder, force)
    check_source(folder, _source(a), replace)


def explanation(a: Assumptions):
    """The change from the bundled data to ``a``, key by key (econ.explain), or None where no
    key differs."""
    from econ.assumptions import load
    from econ.explain import changes, explain

    bundled = load(None)
    if not changes(a, bundled)[0]:
        return None
    return explain(a, bundled, case_name="this case")


def _explained(a: Assumptions, asked: bool) -> tuple[object | None, str | None]:
    """(the explanation, or None; the Cover's line on what differs from the bundled data, or
    None). A difference that cannot be attributed (a mix of the two cases is not a valid case)
    is said, not fatal."""
    from econ.assumptions import AssumptionError, load
    from econ.explain import changes, explain
    from econ.report.explain_view import shares_sentence

    try:
        e = explanation(a)
        if e is None and asked:
            e = explain(a, a, case_name="this case")  # nothing differs: a sheet that says so
    except AssumptionError as exc:
        n = len(changes(a, load(None))[0])
        return None, f"{n} keys differ from the bundled data; not attributed key by key: {exc}"
    return e, (shares_sentence(e) if e is not None else None)


def write_report(
    a: Assumptions,
    out_dir: Path,
    force: bool = False,
    analysis: dict | None = None,
    run_info: dict | None = None,
    replace: bool = False,
    explain: bool = False,
) -> Path:
    """Evaluate the model and write ``<out_dir>/<scenario>/payback_analysis.xlsx`` and ``summary.md``.

    ``analysis`` carries precomputed sensitivity results for the analysis sheets.
    The report is one unit (econ.report.output): the workbook, summary.md, the
    charts and their SHA-256 manifest are written into a new folder that then
    replaces the report folder at once, under a lock on ``out_dir``.

    A report folder that holds the report of another data folder is not replaced unless
    ``replace`` (econ.report.output.check_source). Where the assumptions differ from the
    bundled data (or ``explain``), the change in NPV is attributed to each changed key
    (econ.explain): an Explain sheet, a waterfall chart, and the shares on the Cover and in
    summary.md.
    """
    from econ.report.explain_view import waterfall_png
    from econ.report.summary import voi_brief

    path = report_path(out_dir, a)
    source = _source(a)
    check_source(path.parent, source, replace)
    r = evaluate(a)
    head = headline(a, r)
    info = {"time": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), **(run_info or {})}
    info["Data SHA-256"] = head["data_sha256"]
    extra = {**report_tables(a, head), **(analysis or {})}
    if "mc" in extra:  # the third line reads the value of information (section V4.8)
        head = {**head, "value_of_information": voi_brief(extra["mc"])}
    e, line = _explained(a, explain)
    if e is not None:
        extra["explain"] = e
    if line is not None:
        info["Differs from the bundled data"] = line
        extra["differs"] = line
    with ReportFolder(path.parent, force=force) as unit:
        unit.write(path.name, lambda tmp: sheets.build(tmp, a, r, head, extra, info))
        pngs = unit.write_many("charts", lambda folder: charts.write_all(r, extra, a, folder))
        if e is not None and not e.table.empty:
            unit.write("explain_npv.png", lambda png: waterfall_png(e, png))
            pngs.append(path.parent / "explain_npv.png")
        body = markdown(head, extra, pngs, path.name, info["time"])
        unit.write(
            "summary.md",
            lambda md: md.write_text(body, encoding="utf-8", errors="backslashreplace"),
        )
        unit.write(SOURCE, lambda f: f.write_text(source, encoding="utf-8"))
    return path
