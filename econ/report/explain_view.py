"""The explanation of a change in NPV (econ.explain) as text, a waterfall chart and the
Explain sheet: the analysis is in econ.explain, its presentation here."""

from __future__ import annotations

import numpy as np
import pandas as pd

from econ.explain import Explanation
from econ.report.summary import usd


def text(e: Explanation) -> str:
    """The explanation as a table with a headline."""

    def months(x: float) -> str:
        return "none" if not np.isfinite(x) else f"{x:.1f}"

    lines = [
        f"From {e.reference} to {e.case}: NPV {usd(e.npv_before)} -> {usd(e.npv_after)} "
        f"({'+' if e.npv_change >= 0 else ''}{usd(e.npv_change)}); payback month "
        f"{months(e.payback_before)} -> {months(e.payback_after)}.",
        e.note + ".",
    ]
    if e.table.empty:
        return "\n".join(lines)
    rows = []
    for r in e.table.itertuples(index=False):
        share = usd(r.npv_share_usd) + (
            f" +/- {usd(r.npv_share_se_usd)}" if r.npv_share_se_usd > 0 else ""
        )
        rows.append(
            {
                "key": r.key,
                "before": _show(r.before),
                "after": _show(r.after),
                "NPV share": share,
                "one at a time": usd(r.npv_one_at_a_time_usd),
                "payback share [months]": "-"
                if not np.isfinite(r.payback_share_months)
                else f"{r.payback_share_months:+.2f}",
            }
        )
    total = e.table["npv_share_usd"].sum()
    rows.append(
        {
            "key": "total",
            "before": "",
            "after": "",
            "NPV share": usd(total),
            "one at a time": usd(e.table["npv_one_at_a_time_usd"].sum()),
            "payback share [months]": "-"
            if not np.isfinite(e.table["payback_share_months"]).all()
            else f"{e.table['payback_share_months'].sum():+.2f}",
        }
    )
    lines.append(pd.DataFrame(rows).to_string(index=False))
    return "\n".join(lines)


def _show(v: float | str) -> str:
    return v if isinstance(v, str) else f"{float(v):.6g}"


def shares_sentence(e: Explanation, limit: int = 8) -> str:
    """What differs from the reference, with each key's share of the NPV change."""
    if e.table.empty:
        return f"No assumption differs from {e.reference}."
    parts = [
        f"{r.key} {_show(r.before)} -> {_show(r.after)} ({'+' if r.npv_share_usd >= 0 else ''}"
        f"{usd(r.npv_share_usd)})"
        for r in e.table.head(limit).itertuples(index=False)
    ]
    more = f" and {len(e.table) - limit} more" if len(e.table) > limit else ""
    return (
        f"Differs from {e.reference} in {len(e.table)} keys, NPV {usd(e.npv_before)} -> "
        f"{usd(e.npv_after)}, each key's share by Shapley value: " + "; ".join(parts) + more + "."
    )


def waterfall_png(e: Explanation, path) -> None:
    """A waterfall chart: the reference's NPV, each key's share, this case's NPV."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = e.table
    labels = [e.reference, *t["key"], e.case]
    vals = t["npv_share_usd"].to_numpy() / 1e9
    starts = e.npv_before / 1e9 + np.concatenate([[0.0], np.cumsum(vals)[:-1]])
    fig, ax = plt.subplots(figsize=(max(6.0, 0.7 * len(labels) + 2), 4.5))
    ax.bar(0, e.npv_before / 1e9, color="#7F7F7F")
    ax.bar(
        np.arange(1, len(vals) + 1),
        vals,
        bottom=starts,
        color=np.where(vals >= 0, "#2E75B6", "#C00000"),
    )
    ax.bar(len(vals) + 1, e.npv_after / 1e9, color="#7F7F7F")
    ax.axhline(0, color="black", linewidth=0.6)
    tops = np.r_[e.npv_before, starts * 1e9 + vals * 1e9, e.npv_after] / 1e9
    shown_ = np.r_[e.npv_before / 1e9, vals, e.npv_after / 1e9]
    for x, (y, v) in enumerate(zip(tops, shown_, strict=True)):
        ax.annotate(
            f"{v:+.2f}" if 0 < x <= len(vals) else f"{v:.2f}",
            (x, y),
            ha="center",
            va="bottom" if v >= 0 else "top",
            fontsize=7,
        )
    ends = np.r_[0.0, tops, starts]
    lo, hi = float(ends.min()), float(ends.max())
    pad = 0.12 * max(hi - lo, 1e-9)
    ax.set_ylim(lo - (pad if lo < 0 else 0.0), hi + pad)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=35, ha="right", fontsize=8)
    ax.set_ylabel("NPV [USD billion]")
    ax.set_title(
        f"NPV from {e.reference} to {e.case}:\neach changed key's Shapley share", fontsize=10
    )
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_sheet(book, ws, e: Explanation) -> None:
    """The Explain sheet (a snapshot of the run): the NPV and payback of the reference and this
    case, each changed key's Shapley share of the change, its one-at-a-time change, the total."""
    from econ.report.analysis_sheets import _head, _table
    from econ.report.labels import label
    from econ.report.workbook import write_cell

    s = book.styles
    row = _head(
        book,
        ws,
        f"Explain: from {e.reference} to {e.case}",
        "Each changed key's Shapley share of the change in NPV (and payback): its marginal "
        "change averaged over every order in which the changes could be made. The shares sum to "
        "the whole change; where keys' effects add, a share is the key's one-at-a-time change.",
        "the run (rerun econ after changing inputs)",
    )
    ws.set_column(0, 0, 44)
    ws.set_column(1, 10, 16)
    for i, (name, before, after, fmt) in enumerate(
        (
            ("NPV", e.npv_before, e.npv_after, "usd_m"),
            ("Payback month (blank: none)", e.payback_before, e.payback_after, "num1"),
        )
    ):
        ws.write_string(row + i, 0, name, s("label"))
        write_cell(ws, row + i, 1, before, s(fmt))
        write_cell(ws, row + i, 2, after, s(fmt))
    ws.write_string(row - 1, 1, e.reference, s("h"))
    ws.write_string(row - 1, 2, e.case, s("h"))
    row += 3
    ws.write_string(row, 0, e.note + ".", s("note"))
    row += 2
    if e.table.empty:
        return
    t = e.table.copy()
    t.insert(1, "input", t["key"].map(label))
    for c in ("before", "after"):
        t[c] = [v if isinstance(v, str) else float(v) for v in t[c]]
    total = {
        "key": "total",
        "input": "",
        "before": "",
        "after": "",
        "npv_share_usd": float(t["npv_share_usd"].sum()),
        "npv_share_se_usd": np.nan,
        "npv_one_at_a_time_usd": float(t["npv_one_at_a_time_usd"].sum()),
        "payback_share_months": float(np.sum(t["payback_share_months"].to_numpy())),
        "payback_one_at_a_time_months": float(np.sum(t["payback_one_at_a_time_months"].to_numpy())),
    }
    t = pd.concat([t, pd.DataFrame([total])], ignore_index=True)
    _table(
        book,
        ws,
        row,
        0,
        t,
        {
            "npv_share_usd": "usd_m",
            "npv_share_se_usd": "usd_m",
            "npv_one_at_a_time_usd": "usd_m",
            "payback_share_months": "num2",
            "payback_one_at_a_time_months": "num2",
        },
        {
            "npv_share_usd": "NPV share (Shapley)",
            "npv_share_se_usd": "its standard error (sampled)",
            "npv_one_at_a_time_usd": "NPV change alone",
            "payback_share_months": "payback share [months]",
            "payback_one_at_a_time_months": "payback change alone [months]",
        },
    )
