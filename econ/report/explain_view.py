"""The explanation of a change in NPV (econ.explain) as text, a waterfall chart and the
Explain sheet: the analysis is in econ.explain, its presentation here."""

from __future__ import annotations

import numpy as np
import pandas as pd

from econ.explain import Explanation
from econ.report.summary import usd


def text(e: Explanation) -> str:
    """The explanation as a headline and a table fitted to the terminal, every figure in its
    unit (econ.formatting): before and after in the key's unit, shares in money, payback in
    months. The notes (columns left out) are :func:`shown`'s."""
    return shown(e)[0]


def shown(e: Explanation) -> tuple[str, list[str]]:
    """The text of :func:`text` and its notes for stderr (the columns left out to fit)."""
    from econ.formatting import money, months
    from econ.report import terminal as t
    from econ.report.terminal import Column

    def signed(x: float) -> str:
        return ("+" if x >= 0 else "") + money(x)

    def when(x: float) -> str:
        if not np.isfinite(x):
            return "none within the horizon"
        return "never negative (month 0)" if x == 0 else f"month {months(x)}"

    def months_change(x: float) -> str:
        return "-" if not np.isfinite(x) else ("+" if x >= 0 else "") + months(x)

    lines = [
        t.wrap(
            f"From {e.reference} to {e.case}: NPV {money(e.npv_before)} -> {money(e.npv_after)} "
            f"({signed(e.npv_change)}); payback {when(e.payback_before)} -> "
            f"{when(e.payback_after)}."
        ),
        t.wrap(e.note + "."),
    ]
    if e.table.empty:
        return "\n".join(lines), []
    rows = []
    for r in e.table.itertuples(index=False):
        rows.append(
            {
                "key": r.key,
                "before": _show(r.before, r.key),
                "after": _show(r.after, r.key),
                "share": signed(r.npv_share_usd)
                + (f" +/- {money(r.npv_share_se_usd)}" if r.npv_share_se_usd > 0 else ""),
                "alone": signed(r.npv_one_at_a_time_usd),
                "payback": months_change(r.payback_share_months),
            }
        )
    rows.append(
        {
            "key": "total",
            "before": "",
            "after": "",
            "share": signed(e.table["npv_share_usd"].sum()),
            "alone": signed(e.table["npv_one_at_a_time_usd"].sum()),
            "payback": months_change(
                e.table["payback_share_months"].sum()
                if np.isfinite(e.table["payback_share_months"]).all()
                else np.nan
            ),
        }
    )
    cols = [
        Column("key", kind="key"),
        Column("before", priority=2),
        Column("after", priority=1),
        Column("share", "NPV share"),
        Column("alone", "NPV one at a time", priority=3),
        Column("payback", "payback share [months]", priority=4),
    ]
    table, dropped = t.table(pd.DataFrame(rows), cols)
    note = t.dropped_note(dropped)
    return "\n".join([*lines, table]), [note] if note else []


def _show(v: float | str, key: str | None = None) -> str:
    """A key's value as text: in its unit (econ.formatting) where the key is known."""
    if isinstance(v, str):
        return v
    if key is not None:
        from econ.formatting import key_value

        return key_value(key, float(v))
    return f"{float(v):.6g}"


def shares_sentence(e: Explanation, limit: int = 8) -> str:
    """What differs from the reference, with each key's share of the NPV change."""

    if e.table.empty:
        return f"No assumption differs from {e.reference}."
    parts = [
        f"{r.key} {_show(r.before, r.key)} -> {_show(r.after, r.key)} "
        f"({'+' if r.npv_share_usd >= 0 else ''}"
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
