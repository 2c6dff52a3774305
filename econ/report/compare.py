"""The decision commands' output: the comparison workbook and PNG, and the text the CLI prints
for compare, platforms, sweep and optimize. Formats results of econ.decisions only.

Files are written atomically (a temporary file in the same folder, then renamed over the
old one) and only inside ``<out>/compare/``; a failure names the file.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no screen
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from xlsxwriter.exceptions import XlsxWriterException  # noqa: E402

from econ.constants import IRR_MEANINGFUL_MAX  # noqa: E402
from econ.decisions import Comparison, Optimum, Sweep  # noqa: E402
from econ.report import terminal  # noqa: E402
from econ.report.terminal import Column  # noqa: E402
from econ.report.workbook import new_workbook  # noqa: E402
from econ.tempfiles import clean_stale, temporary  # noqa: E402

FOLDER = "compare"
WORKBOOK = "comparison.xlsx"
PNG = "comparison.png"

# figure -> (label [unit], number format) of the comparison table, a row each, in this order
COLUMNS = {
    "scenario": ("Scenario", None),
    "platform": ("Platform", None),
    "ultrafast_tokens_per_s": ("Ultrafast tier speed [tokens/s/user]", "#,##0"),
    "served_tokens_per_s": ("Ultrafast speed served [tokens/s/user]", "#,##0"),
    "gpu_cost_per_mtok_usd": ("GPU cost of a standard token [USD per 1M]", "0.00"),
    "contract_mw": ("Contract [MW]", "#,##0.0"),
    "contract_value_usd": ("Contract value [USD]", '$#,##0.00,,,"B";-$#,##0.00,,,"B"'),
    "term_months": ("Term [months]", "0"),
    "npv_usd": ("NPV [USD]", '$#,##0.00,,,"B";-$#,##0.00,,,"B"'),
    "npv_without_terminal_value_usd": (
        "NPV without terminal value [USD]",
        '$#,##0.00,,,"B";-$#,##0.00,,,"B"',
    ),
    "payback_months": ("Payback [month]", "0.0"),
    "discounted_payback_months": ("Discounted payback [month]", "0.0"),
    "irr_annual": ("IRR [1/yr]", "0.0%"),
    "mirr_annual": ("MIRR [1/yr]", "0.0%"),
    "profitability_index": ("Profitability index", "0.00"),
    "realised_cost_per_mtok_usd": ("Realised cost [USD per 1M tokens]", "$#,##0.00"),
    "term_average_utilization": ("Utilisation over the term, MW-weighted [share]", "0%"),
    "peak_utilization": ("Peak utilisation, one month [share]", "0%"),
    "peak_incremental_pro_subscribers": ("Peak incremental Pro subscribers", "#,##0"),
    "max_deficit_usd": ("Peak cash need [USD]", '$#,##0.00,,,"B";-$#,##0.00,,,"B"'),
    "ceiling_tokens_per_s": ("Per-user ceiling for the served model [tokens/s]", "#,##0"),
    "npv_physics_basis_usd": (
        "NPV with capacity from the physics envelope [USD]",
        '$#,##0.00,,,"B";-$#,##0.00,,,"B"',
    ),
}
CASH_FORMAT = '$#,##0.00,,,"B";-$#,##0.00,,,"B"'
RATES = ("irr_annual", "mirr_annual")


class CompareOutputError(OSError):
    """A comparison file or folder cannot be written (the message names it)."""


def output_folder(out: Path) -> Path:
    """``<out>/compare``, created if need be; refused where it is not a folder inside ``out``
    (a file, or a link that leads elsewhere)."""
    out = Path(out)
    folder = out / FOLDER
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CompareOutputError(
            f"{folder}: cannot create the folder ({exc.strerror or exc})"
        ) from None
    if folder.is_symlink() or not folder.resolve().is_relative_to(out.resolve()):
        raise CompareOutputError(
            f"{folder}: is a link that leads outside {out}; econ writes only inside --out"
        )
    return folder


def write_atomically(path: Path, write: Callable[[Path], None]) -> Path:
    """Call ``write(tmp)`` on a temporary file beside ``path``, then rename it to ``path``;
    the temporary goes on failure. Raises CompareOutputError naming ``path``."""
    tmp = None
    try:
        clean_stale(path)
        fd, tmp = temporary(path)
        os.close(fd)
        write(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the usual permissions
        os.replace(tmp, path)
    except (OSError, XlsxWriterException) as exc:
        raise CompareOutputError(f"{path}: cannot write ({_why(exc)})") from None
    finally:
        if tmp is not None and tmp.exists():
            tmp.unlink()
    return path


def _why(exc: Exception) -> str:
    """What went wrong, in the system's words: the OSError that XlsxWriter wraps too."""
    inner = exc.args[0] if exc.args and isinstance(exc.args[0], OSError) else exc
    return getattr(inner, "strerror", None) or str(inner)


def write_together(files: list[tuple[Path, Callable[[Path], None]]]) -> list[Path]:
    """Call each ``write(tmp)`` on a temporary file beside its path, then rename them all into
    place: a failure while writing (a full disk) leaves every earlier file untouched, and no
    temporary. Raises CompareOutputError naming the file that could not be written."""
    temps: list[Path] = []
    try:
        for path, write in files:
            try:
                clean_stale(path)  # what a killed run left
                fd, name = temporary(path)
                os.close(fd)
                temps.append(name)
                write(temps[-1])
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(temps[-1], 0o666 & ~umask)  # mkstemp makes 0600
            except (OSError, XlsxWriterException) as exc:
                raise CompareOutputError(
                    f"{path}: cannot write ({_why(exc)}); the previous files are unchanged"
                ) from None
        for (path, _), tmp in zip(files, temps, strict=True):
            try:
                os.replace(tmp, path)
            except OSError as exc:
                raise CompareOutputError(f"{path}: cannot write ({exc.strerror or exc})") from None
    finally:
        for tmp in temps:
            if tmp.exists():
                tmp.unlink()
    return [path for path, _ in files]


def write_comparison(c: Comparison, out: Path, run_time: str, facts: str = "") -> list[Path]:
    """Write ``<out>/compare/comparison.xlsx`` and ``comparison.png`` as one unit (both, or
    neither where writing fails); return their paths."""
    folder = output_folder(out)
    return write_together(
        [
            (folder / WORKBOOK, lambda p: workbook(c, p, run_time, facts)),
            (folder / PNG, lambda p: chart(c, p, run_time)),
        ]
    )


def _cell(ws, row: int, col: int, x, fmt) -> None:
    if isinstance(x, str):
        ws.write_string(row, col, x)
    elif x is None or (isinstance(x, float) and not math.isfinite(x)):
        ws.write_blank(row, col, None, fmt)
    else:
        ws.write_number(row, col, float(x), fmt)


def workbook(c: Comparison, path: Path, run_time: str, facts: str = "") -> None:
    """The comparison workbook: the table on "Comparison" (a row each figure of COLUMNS, with
    its label, unit and number format, a column each scenario) with the payback curves
    overlaid as a native chart of "Cumulative cash" (cumulative cash by month, a column per
    scenario)."""
    wb = new_workbook(path, nan_inf_to_errors=True)
    look = {
        "title": wb.add_format({"bold": True, "font_size": 14}),
        "banner": wb.add_format({"italic": True, "font_color": "#7030A0"}),
        "head": wb.add_format({"bold": True, "text_wrap": True, "valign": "top", "bottom": 1}),
        "bold": wb.add_format({"bold": True}),
    }
    snapshot = (
        f"Snapshot of the econ compare run at {run_time}: values, not formulas; "
        "rerun econ compare to refresh them."
    )
    ws = wb.add_worksheet("Comparison")
    cs = wb.add_worksheet("Cumulative cash")
    end = _comparison_sheet(wb, ws, look, c.rows, snapshot, facts)
    last = _cash_sheet(wb, cs, look, c.cumulative_cash, snapshot)
    ws.write_string(end + 3, 0, "Payback curves (data: sheet Cumulative cash)", look["bold"])
    months = c.cumulative_cash.index
    top = int(months[-1]) if len(months) else 1
    ws.insert_chart(end + 4, 0, _cash_chart(wb, list(c.cumulative_cash.columns), last, top))
    wb.close()


def _head(ws, look: dict, title: str, snapshot: str) -> None:
    ws.write_string(0, 0, title, look["title"])
    ws.write_string(1, 0, snapshot, look["banner"])


def _comparison_sheet(wb, ws, look: dict, rows: pd.DataFrame, snapshot: str, facts: str) -> int:
    """The comparison: a row each figure of COLUMNS (its label, its unit, one number format),
    a column each scenario; returns the last row."""
    _head(ws, look, "Scenarios compared", snapshot)
    if facts:
        ws.write_string(2, 0, facts)
    top = 4
    keys = [k for k in COLUMNS if k in rows.columns and k != "scenario"]
    for j, text in enumerate(("Figure", "Unit", *map(str, rows["scenario"]))):
        ws.write_string(top, j, text, look["head"])
        ws.set_column(j, j, (46, 16)[j] if j < 2 else 14)
    for i, k in enumerate(keys, start=top + 1):
        head, number = COLUMNS[k]
        name, unit = _label_unit(head)
        ws.write_string(i, 0, name)
        ws.write_string(i, 1, unit)
        fmt = wb.add_format({"num_format": number}) if number else None
        for j, x in enumerate(rows[k], start=2):
            if k in RATES and isinstance(x, float) and x > IRR_MEANINGFUL_MAX:
                x = math.nan  # not a meaningful rate: blank, as econ prints '>1,000%'
            _cell(ws, i, j, x, fmt)
    end = top + len(keys)
    ws.write_string(
        end + 2,
        0,
        "Blank payback: none within the horizon. Blank IRR or MIRR: no rate brings the flows' "
        f"present value to zero, or a rate above {IRR_MEANINGFUL_MAX:,.0%} a year (not a "
        "meaningful rate). Every figure as econ summary prints it for the scenario.",
    )
    ws.freeze_panes(top + 1, 2)
    ws.set_landscape()
    ws.fit_to_pages(1, 0)  # one page wide, as many tall as the figures need
    return end


def _label_unit(head: str) -> tuple[str, str]:
    """'Contract [MW]' -> ('Contract', 'MW'); a heading without a unit: a count or a ratio."""
    m = re.fullmatch(r"(.*) \[(.*)\]", head)
    if m:
        return m.group(1), m.group(2)
    return head, "id" if head == "Platform" else "-"


def _cash_sheet(wb, cs, look: dict, cash: pd.DataFrame, snapshot: str) -> int:
    """Cumulative cash by month, a column a scenario; returns the last row."""
    _head(cs, look, "Cumulative cash by month [USD]", snapshot)
    cs.write_string(3, 0, "Month", look["head"])
    cash_fmt = wb.add_format({"num_format": CASH_FORMAT})
    for j, n in enumerate(cash.columns, start=1):
        cs.write_string(3, j, str(n), look["head"])
        cs.set_column(j, j, 14)
    months = cash.index.to_numpy()
    for i, m in enumerate(months, start=4):
        cs.write_number(i, 0, int(m))
        for j, n in enumerate(cash.columns, start=1):
            _cell(cs, i, j, float(cash[n].iloc[i - 4]), cash_fmt)
    cs.freeze_panes(4, 1)
    cs.set_landscape()
    cs.fit_to_pages(1, 0)
    cs.repeat_rows(3)
    return 3 + len(months)


def _cash_chart(wb, names: list, last: int, top: int):
    """The payback curves: each scenario's cumulative cash over the months of its sheet."""
    ch = wb.add_chart({"type": "scatter", "subtype": "straight"})
    for j in range(1, len(names) + 1):
        ch.add_series(
            {
                "name": ["Cumulative cash", 3, j],
                "categories": ["Cumulative cash", 4, 0, last, 0],
                "values": ["Cumulative cash", 4, j, last, j],
                "line": {"width": 1.75},
            }
        )
    ch.set_title({"name": "Payback curves: cumulative cash by month"})
    ch.set_x_axis({"name": "month", "min": 0, "max": top, "label_position": "low"})
    ch.set_y_axis(
        {"name": "cumulative cash [USD]", "num_format": CASH_FORMAT, "major_gridlines": {}}
    )
    ch.set_legend({"position": "right"})
    ch.set_size({"width": 900, "height": 420})
    return ch


def chart(c: Comparison, path: Path, run_time: str) -> None:
    """The payback curves overlaid (left) and each scenario's NPV (right), as a PNG."""
    names = list(c.cumulative_cash.columns)
    colors = plt.get_cmap("tab20")(np.linspace(0, 1, 20))
    fig, (ax, bx) = plt.subplots(
        1, 2, figsize=(13, 5), gridspec_kw={"width_ratios": [2.2, 1]}, layout="constrained"
    )
    m = c.cumulative_cash.index.to_numpy()
    for j, n in enumerate(names):
        ax.plot(m, c.cumulative_cash[n] / 1e9, lw=1.8, color=colors[j % 20], label=n)
    ax.axhline(0, color="black", lw=0.8)
    ax.set_xlabel("month")
    ax.set_ylabel("cumulative cash [USD billion]")
    ax.set_title("Payback curves")
    ax.legend(frameon=False, fontsize=8, ncols=2)
    npv = c.rows["npv_usd"].to_numpy() / 1e9
    y = np.arange(len(npv))[::-1]
    bx.barh(y, npv, color=[colors[j % 20] for j in range(len(npv))])
    bx.set_yticks(y, list(c.rows["scenario"]), fontsize=8)
    bx.axvline(0, color="black", lw=0.8)
    bx.set_xlabel("NPV [USD billion]")
    bx.set_title("NPV")
    fig.suptitle(f"Scenarios compared (econ run {run_time})", fontsize=10)
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)


# ---------------------------------------------------------------------------
# text for the CLI


# every figure through the one formatter (econ.formatting), by its unit
def _months(x: float) -> str:
    """A payback month; 0 is cash that never goes negative, NaN none within the horizon."""
    return terminal.payback(x)


def _pct(x: float) -> str:
    return terminal.share(x)


def _irr(x: float) -> str:
    """A rate of return; above the meaningful range not as a rate (docs/model.md, section 6)."""
    if math.isfinite(x) and x > IRR_MEANINGFUL_MAX:
        return f">{IRR_MEANINGFUL_MAX:,.0%}"  # as econ summary: >1,000%
    return _pct(x)


def _usd(x: float) -> str:
    return terminal.money(x)


def _value(x: float, key: str | None = None) -> str:
    """A key's value in its unit (contract.mw -> 432.3, a price -> $120.00)."""
    return terminal.key_value(key, x) if key else terminal.number(x)


def _table(df: pd.DataFrame, cols, title=None) -> tuple[str, list[str]]:
    """A table fitted to the terminal, with the note of the columns left out."""
    text, dropped = terminal.table(df, cols, title)
    note = terminal.dropped_note(dropped)
    return text, [note] if note else []


def comparison_text(c: Comparison) -> tuple[str, list[str]]:
    """The comparison as a table fitted to the terminal (less telling columns dropped first),
    and the notes for stderr."""
    r = c.rows
    shown = pd.DataFrame(
        {
            "scenario": r["scenario"],
            "platform": r["platform"],
            "tok/s": r["served_tokens_per_s"].map(terminal.speed),
            "MW": r["contract_mw"].map(terminal.mw),
            "NPV": r["npv_usd"].map(_usd),
            "NPV w/o TV": r["npv_without_terminal_value_usd"].map(_usd),
            "payback": r["payback_months"].map(_months),
            "disc. payback": r["discounted_payback_months"].map(_months),
            "IRR": r["irr_annual"].map(_irr),
            "MIRR": r["mirr_annual"].map(_irr),
            "PI": r["profitability_index"].map(terminal.index),
            "$/Mtok": r["realised_cost_per_mtok_usd"].map(_usd),
            "util. (term)": r["term_average_utilization"].map(_pct),
            "util. (peak)": r["peak_utilization"].map(_pct),
            "peak +Pro": r["peak_incremental_pro_subscribers"].map(terminal.count),
            "cash need": r["max_deficit_usd"].map(_usd),
            "ceiling": r["ceiling_tokens_per_s"].map(terminal.speed),
            "NPV physics": r["npv_physics_basis_usd"].map(_usd),
        }
    )
    priority = {
        "scenario": 0,
        "NPV": 0,
        "payback": 0,
        "IRR": 1,
        "MIRR": 3,
        "platform": 1,
        "disc. payback": 2,
        "PI": 2,
        "cash need": 2,
        "tok/s": 3,
        "MW": 3,
        "NPV w/o TV": 4,
        "util. (term)": 4,
        "$/Mtok": 5,
        "util. (peak)": 5,
        "peak +Pro": 6,
        "ceiling": 6,
        "NPV physics": 6,
    }
    cols = [
        Column(k, k, kind="text" if k in ("scenario", "platform") else None, priority=priority[k])
        for k in shown.columns
    ]
    return _table(shown, cols)


def _evaluated(df: pd.DataFrame, col: str) -> pd.Series:
    """A payback column: the month, "none" within the horizon, "-" where nothing was evaluated."""
    return pd.Series(
        [
            _months(x) if math.isfinite(n) else "-"
            for x, n in zip(df[col], df["npv_usd"], strict=True)
        ]
    )


def platforms_text(df: pd.DataFrame) -> tuple[str, list[str]]:
    """The platforms table fitted to the terminal, with the notes under it."""
    shown = pd.DataFrame(
        {
            "platform": df["platform"],
            "priced by": df["rent_basis"],
            "$/delivered MW-month": df["usd_per_delivered_mw_month"].map(_usd),
            "MW": df["mw"].map(terminal.mw),
            "ceiling tok/s": df["ceiling_tokens_per_s"].map(terminal.speed),
            "curve top": df["curve_top_tokens_per_s"].map(terminal.speed),
            "served tok/s": df["served_tokens_per_s"].map(terminal.speed),
            "users/MW": df["users_per_mw"].map(terminal.count),
            "ultrafast": df["ultrafast_offered"].map(lambda x: "yes" if x else "no"),
            "NPV": df["npv_usd"].map(_usd),
            "payback": _evaluated(df, "payback_months"),
            "disc. payback": _evaluated(df, "discounted_payback_months"),
        }
    )
    priority = {
        "platform": 0,
        "NPV": 0,
        "payback": 0,
        "MW": 1,
        "served tok/s": 1,
        "ultrafast": 2,
        "priced by": 2,
        "$/delivered MW-month": 3,
        "disc. payback": 3,
        "users/MW": 4,
        "ceiling tok/s": 5,
        "curve top": 5,
    }
    cols = [
        Column(k, k, kind="text" if k in ("platform", "priced by") else None, priority=priority[k])
        for k in shown.columns
    ]
    text, notes = _table(shown, cols)
    extra = [
        terminal.wrap(f"{p}: {n}", indent="  ")
        for p, n in zip(df["platform"], df["note"], strict=True)
        if n
    ]
    return text + ("\nNotes:\n" + "\n".join(extra) if extra else ""), notes


def _payback_phrase(x: float) -> str:
    if not math.isfinite(x):
        return "with no payback in the horizon"
    return "never negative" if x == 0 else f"paying back in month {terminal.months(x)}"


def platforms_sentence(df: pd.DataFrame) -> str:
    """The table's answer in one sentence: which platform earns most with the budget, and
    what the best alternative would give."""
    usd = terminal.usd_mark
    at = df.attrs
    budget, term = usd(at["budget_usd"]), at["term_months"]
    ok = df[np.isfinite(df["npv_usd"])].sort_values("npv_usd", ascending=False, kind="stable")
    if ok.empty:
        return terminal.one_unit(
            f"With {budget} over {term} months no platform can carry this deal."
        )
    best = ok.iloc[0]
    contract = at["contract_platform"]

    def said(r, comma: str = "") -> str:
        if not r["ultrafast_offered"]:
            how = (
                f"without an ultrafast tier (the served model tops out at "
                f"{r['fastest_tokens_per_s']:,.3g} tokens/s there)"
            )
        elif r["served_tokens_per_s"] < at["ultrafast_tokens_per_s"]:
            how = (
                f"with the ultrafast tier at {r['served_tokens_per_s']:,.0f} tokens/s (its ceiling "
                f"for the served model, below the tier's {at['ultrafast_tokens_per_s']:,.0f})"
            )
        else:
            how = f"with the ultrafast tier at {r['served_tokens_per_s']:,.0f} tokens/s"
        return (
            f"{r['platform']} ({r['rent_basis']}, {r['mw']:,.0f} MW){comma} gives NPV "
            f"{usd(r['npv_usd'])}, {_payback_phrase(r['payback_months'])}, {how}"
        )

    lead = (
        f"No: with {budget} over {term} months the contract platform {said(best)}"
        if best["platform"] == contract
        else f"Yes: with {budget} over {term} months {said(best)}"
    )
    rest = ok.iloc[1:]
    tail = f"; the best alternative, {said(rest.iloc[0], ',')}" if not rest.empty else ""
    if best["platform"] != contract and contract in set(ok["platform"]):
        tail = f"; the contract platform {said(ok[ok['platform'] == contract].iloc[0])}"
    cannot = list(df.loc[~np.isfinite(df["npv_usd"]), "platform"])
    if cannot:
        tail += f"; {', '.join(cannot)} cannot carry it on the {at['basis']} basis"
    return terminal.one_unit(lead + tail + ".")


def _range_line(r) -> str:
    """ "contract.mw from 375.0 MW to 1,500.0 MW (0.5x to 2x its value; base 750.0 MW)"."""
    q = terminal.key_quantity
    return (
        f"{r.key} from {q(r.key, r.low)} to {q(r.key, r.high)} ({r.how}; base {q(r.key, r.base)})"
    )


def sweep_text(s: Sweep) -> tuple[str, list[str]]:
    """The sweep's table and its summary line, every value in its unit."""
    key, t = s.range.key, s.table
    shown = pd.DataFrame(
        {
            key: t[key].map(lambda x: _value(x, key)),
            "NPV": t["npv_usd"].map(_usd),
            "payback": t["payback_months"].map(_months),
            "disc. payback": t["discounted_payback_months"].map(_months),
            "util. (term)": t["term_average_utilization"].map(_pct),
        }
    )
    r = s.range
    q = terminal.key_quantity
    j = int(np.argmax(t["npv_usd"].to_numpy()))
    if not s.read:
        foot = f"The payback model does not read {key}: NPV, payback and utilisation do not depend on it."
    else:
        foot = (
            f"NPV {_usd(t['npv_usd'].iloc[0])} at {q(key, r.low)} and "
            f"{_usd(t['npv_usd'].iloc[-1])} at {q(key, r.high)}; highest on these points "
            f"{_usd(t['npv_usd'].iloc[j])} at {q(key, t[key].iloc[j])} (econ optimize {key} "
            "refines it)."
        )
    cols = [Column(key, key, kind=None)] + [
        Column(k, k, priority=1 if k in ("disc. payback", "util. (term)") else 0)
        for k in shown.columns[1:]
    ]
    text, notes = _table(shown, cols)
    return "\n".join([terminal.wrap(_range_line(r)), text, terminal.wrap(foot)]), notes


METRIC_WORDS = {
    "npv": ("NPV", "highest"),
    "profitability_index": ("the profitability index", "highest"),
    "payback": ("payback", "earliest"),
    "discounted_payback": ("discounted payback", "earliest"),
}


def _metric_value(o: Optimum, x: float, prose: bool = False) -> str:
    if o.metric == "npv":
        return _usd(x)
    if o.metric == "profitability_index":
        return terminal.index(x)
    if prose:
        return f"month {terminal.months(x)}" if math.isfinite(x) else "none within the horizon"
    return _months(x)


PLATEAU = 1e-3  # a grid point within this share of the metric's range of the best is "as good"


def _plateau(o: Optimum) -> tuple[float, float, float] | None:
    """(first, last value of the key, tolerance) of the contiguous run of grid points around
    the optimum whose NPV or profitability index is within PLATEAU of the metric's range of
    the best, where that run spans more than a tenth of the grid; else None."""
    if o.metric not in ("npv", "profitability_index"):
        return None
    x = o.curve.iloc[:, 0].to_numpy(float)
    y = o.curve[o.output].to_numpy(float)
    fin = np.isfinite(y)
    if fin.sum() < 3:
        return None
    tol = PLATEAU * float(np.max(y[fin]) - np.min(y[fin]))
    near = fin & (y >= max(float(np.max(y[fin])), o.best) - tol)
    i = int(np.argmin(np.abs(x - o.value)))
    if not near[i]:
        return None
    lo = i
    while lo > 0 and near[lo - 1]:
        lo -= 1
    hi = i
    while hi < len(x) - 1 and near[hi + 1]:
        hi += 1
    if hi - lo + 1 <= len(x) // 10:
        return None
    return float(x[lo]), float(x[hi]), tol


def optimum_found(o: Optimum) -> bool:
    """Whether the optimisation names a best value: the model reads the key, the metric has a
    value somewhere in the range and changes over it (an optimum on an end of the range is
    one, with a warning)."""
    return bool(o.read and np.isfinite(o.curve[o.output].to_numpy()).any() and not o.flat)


def optimum_text(o: Optimum, contract: dict | None = None, rows: int = 11) -> tuple[str, list[str]]:
    """The optimum in a sentence or two (on contract.mw and contract.term_months, with the
    contract's value at the size it names: ``contract``, from the command line), or why there
    is none, then the curve's summary: a few of its grid points."""
    r, key = o.range, o.range.key
    q = terminal.key_quantity
    what, best_word = METRIC_WORDS[o.metric]
    What = what[0].upper() + what[1:]
    lines = [_range_line(r)]
    if not o.read:
        lines.append(
            f"No answer: the payback model does not read {key}, so {what} does not depend on it."
        )
    elif not np.isfinite(o.curve[o.output].to_numpy()).any():
        lines.append(
            "No answer: no value in this range pays back within the horizon."
            if o.metric in ("payback", "discounted_payback")
            else f"No answer: {what} has no value anywhere in this range."
        )
    elif o.flat:
        lines.append(
            f"No answer: {what} does not change over this range, so no value of {key} is best."
        )
    else:
        lines.append(
            f"{What} is {best_word} at {key} = {q(key, o.value)}: "
            f"{_metric_value(o, o.best, True)} (at the current {q(key, r.base)}: "
            f"{_metric_value(o, o.base_metric, True)})"
            + (" [grid, then bounded refinement]." if o.refined else " [on the grid].")
        )
        if contract:
            rate = terminal.money(contract["contract_rate_at_optimum_usd_per_mw_month"])
            worth = terminal.money(contract["contract_value_at_optimum_usd"])
            now = terminal.money(contract["contract_value_usd"])
            lines.append(
                f"At {q(key, o.value)} the contract is worth {worth} (now {now}): "
                + (
                    f"its value moves with the size at the contract's rate, {rate} per MW-month "
                    "(--hold value keeps the value instead)."
                    if contract["hold"] == "rate"
                    else f"the value is held (--hold value), so the rate is {rate} per MW-month "
                    "at that size."
                )
            )
        plateau = _plateau(o)
        if plateau is not None:
            lo, hi, tol = plateau
            lines.append(
                f"{What} stays within {_metric_value(o, tol, True)} of it from {q(key, lo)} to "
                f"{q(key, hi)} (a thousandth of its range over the grid): nearly flat there, so "
                "where in that span the best lies says little."
            )
        if o.on_bound:
            end, opt = ("lower", "--low") if o.on_bound == "low" else ("upper", "--high")
            lines.append(
                f"The optimum sits on the {end} end of the range: {what} is still improving "
                f"there; widen the range ({opt}) to look further, where {key}'s rule allows."
            )
    c = o.curve
    y = c[o.output].to_numpy()
    fin = np.isfinite(y)
    if fin.any():
        lines.append(
            f"Over the {len(c)} grid points {what} runs from "
            f"{_metric_value(o, float(np.min(y[fin])), True)} to "
            f"{_metric_value(o, float(np.max(y[fin])), True)}"
            + (f"; {int((~fin).sum())} point(s) have none" if (~fin).any() else "")
            + "."
        )
    pick = np.unique(np.linspace(0, len(c) - 1, min(rows, len(c))).round().astype(int))
    shown = pd.DataFrame(
        {
            key: c[key].iloc[pick].map(lambda x: _value(x, key)),
            what: c[o.output].iloc[pick].map(lambda x: _metric_value(o, x)),
        }
    )
    text, notes = _table(shown, [Column(key, key), Column(what, what)])
    return "\n".join([terminal.wrap(x) for x in lines] + [text]), notes
