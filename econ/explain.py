"""Where a change in NPV (and payback) comes from: Shapley values over the changed keys.

Between a reference case (default: the bundled data) and this one, every key whose value
differs is a player; the value of a coalition S is the NPV with the keys of S at this
case's values and every other key at the reference's. A key's Shapley value is its
marginal contribution averaged over every order in which the changes could be made:
phi_i = sum over S not holding i of |S|! (k - |S| - 1)! / k! (v(S + i) - v(S)). The values
sum to the whole change (efficiency); where the keys' effects add, each equals its
one-at-a-time change; where they interact, the interaction is shared between them.

Exact (all 2^k coalitions) up to ``EXACT_MAX`` changed keys; beyond, ``PERMUTATIONS``
random orders (seeded), each giving every key's marginal contribution along it, with the
standard error of each mean. Numeric keys enter the model as arrays (one evaluation for
every coalition that shares its structural keys); structural keys (platform, basis,
horizon, ids) cannot be arrays, so the coalitions are grouped by which of them they
change, one evaluation per group.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from econ.assumptions import AssumptionError, Assumptions, is_structural
from econ.model import evaluate

EXACT_MAX = 12  # changed keys up to which every coalition is evaluated
PERMUTATIONS = 2_000  # random orders beyond, at most ...
EVALUATIONS = 200_000  # ... and at most about this many model evaluations (k + 1 an order)
SEED = 20_260_101
# coalitions per model evaluation at most: a coalition is one scenario of the model, about
# 0.1 MB while it evaluates (the served speed chosen among six), so about 0.2 GB at a time
# however many keys differ; the coalitions themselves are made chunk by chunk too
CHUNK = 2_048
MAX_EVALUATIONS = 2 * EVALUATIONS  # beyond, refused: explain against a closer case


@dataclass(frozen=True)
class Change:
    key: str
    before: float | str
    after: float | str


@dataclass
class Explanation:
    """The change from ``reference`` to ``case`` attributed to each changed key.

    table : key, before, after, npv_share_usd, npv_share_se_usd (0 where exact),
        npv_one_at_a_time_usd, payback_share_months, payback_one_at_a_time_months
        (NaN where some combination does not pay back), largest |NPV share| first.
    method : "exact" or "sampled"; orders : permutations sampled (0 where exact).
    not_compared : keys present in only one of the two cases (not attributed).
    """

    reference: str
    case: str
    npv_before: float
    npv_after: float
    payback_before: float
    payback_after: float
    table: pd.DataFrame
    method: str
    orders: int
    note: str
    not_compared: tuple[str, ...] = ()

    @property
    def npv_change(self) -> float:
        return self.npv_after - self.npv_before

    def to_dict(self) -> dict:
        return {
            "reference": self.reference,
            "case": self.case,
            "npv_before_usd": self.npv_before,
            "npv_after_usd": self.npv_after,
            "npv_change_usd": self.npv_change,
            "payback_before_months": self.payback_before,
            "payback_after_months": self.payback_after,
            "method": self.method,
            "permutations": self.orders,
            "note": self.note,
            "not_compared": list(self.not_compared),
            "keys": self.table.to_dict(orient="records"),
        }


def changes(case: Assumptions, reference: Assumptions) -> tuple[list[Change], list[str]]:
    """The keys whose values differ (in key order of the case), and the keys only one has."""
    out = []
    for k, v in case.values.items():
        if k in reference.values:
            w = reference.values[k]
            if isinstance(v, str) or isinstance(w, str):
                same = str(v) == str(w)
            else:
                same = float(v) == float(w)
            if not same:
                out.append(Change(k, w, v))
    only = sorted(set(case.values) ^ set(reference.values))
    return out, only


def _text(v: float | str) -> str:
    return v if isinstance(v, str) else repr(float(v))


def _evaluate(
    reference: Assumptions, keys: Sequence[Change], masks_of, total: int
) -> tuple[np.ndarray, np.ndarray]:
    """NPV and payback of ``total`` coalitions; ``masks_of(rows)`` gives the bool matrix
    (rows x keys) of the coalitions numbered ``rows``, made a chunk at a time. Numeric keys
    enter as arrays, one model evaluation per chunk and combination of structural keys."""
    npv = np.empty(total)
    payback = np.empty(total)
    structural = [j for j, c in enumerate(keys) if is_structural(c.key, c.after)]
    numeric = [j for j, c in enumerate(keys) if j not in structural]
    groups = np.zeros(total, np.int64)
    if structural:
        bits = 1 << np.arange(len(structural))
        for s in range(0, total, CHUNK):
            rows = np.arange(s, min(s + CHUNK, total))
            groups[rows] = masks_of(rows)[:, structural] @ bits
    for g in np.unique(groups):
        rows = np.flatnonzero(groups == g)
        pairs = [
            (keys[j].key, _text(keys[j].after))
            for b, j in enumerate(structural)
            if (int(g) >> b) & 1
        ]
        try:
            a = reference.with_overrides(pairs, origin="explain") if pairs else reference
        except AssumptionError as exc:
            raise AssumptionError(
                f"econ explain: the changes {', '.join(k for k, _ in pairs)} together with the "
                f"reference's other values are not a valid case: {exc}"
            ) from None
        for s in range(0, len(rows), CHUNK):
            part = rows[s : s + CHUNK]
            masks = masks_of(part)
            over = {
                keys[j].key: np.where(masks[:, j], float(keys[j].after), float(keys[j].before))
                for j in numeric
            }
            try:
                r = evaluate(a, over, detail=False)
            except AssumptionError as exc:
                raise AssumptionError(
                    "econ explain: a mix of this case's and the reference's values is not a "
                    f"valid case ({exc}); compare cases closer to each other"
                ) from None
            npv[part] = r.npv
            payback[part] = r.payback_months
    return npv, payback


def _weights(k: int) -> np.ndarray:
    """|S|! (k - |S| - 1)! / k! for |S| = 0..k-1."""
    s = np.arange(k)
    return np.exp(
        np.array([math.lgamma(x + 1) + math.lgamma(k - x) - math.lgamma(k + 1) for x in s])
    )


def shapley_exact(v: np.ndarray, k: int) -> np.ndarray:
    """Shapley values of k players from v over every coalition, indexed by bitmask (2^k,)."""
    masks = np.arange(1 << k)
    size = np.array([bin(m).count("1") for m in masks])
    w = _weights(k) if k else np.zeros(0)
    out = np.empty(k)
    for i in range(k):
        without = masks[(masks >> i) & 1 == 0]
        out[i] = np.sum(w[size[without]] * (v[without | (1 << i)] - v[without]))
    return out


def explain(
    case: Assumptions,
    reference: Assumptions,
    reference_name: str = "the bundled data",
    case_name: str | None = None,
    exact_max: int = EXACT_MAX,
    permutations: int | None = None,
    seed: int = SEED,
) -> Explanation:
    """Attribute NPV(case) - NPV(reference), and the change in payback, to the changed keys."""
    from econ.report.summary import usd

    keys, only = changes(case, reference)
    k = len(keys)
    base = evaluate(reference, detail=False)
    new = evaluate(case, detail=False)
    npv0, npv1 = float(base.npv[0]), float(new.npv[0])
    pb0, pb1 = float(base.payback_months[0]), float(new.payback_months[0])
    cols = [
        "key",
        "before",
        "after",
        "npv_share_usd",
        "npv_share_se_usd",
        "npv_one_at_a_time_usd",
        "payback_share_months",
        "payback_one_at_a_time_months",
    ]
    name = case_name or case.scenario
    if k == 0:
        note = "no key differs from " + reference_name
        return Explanation(
            reference_name,
            name,
            npv0,
            npv1,
            pb0,
            pb1,
            pd.DataFrame(columns=cols),
            "exact",
            0,
            note,
            tuple(only),
        )
    if k <= exact_max:

        def bitmasks(rows: np.ndarray) -> np.ndarray:
            return ((rows[:, None] >> np.arange(k)) & 1).astype(bool)

        v, p = _evaluate(reference, keys, bitmasks, 1 << k)
        share = shapley_exact(v, k)
        se = np.zeros(k)
        p_share = shapley_exact(p, k) if np.isfinite(p).all() else np.full(k, np.nan)
        single = 1 << np.arange(k)
        one, p_one = v[single] - v[0], p[single] - p[0]
        method, orders = "exact", 0
        note = f"Shapley values over all {1 << k:,} combinations of the {k} changed keys (exact)"
    else:
        if permutations is None:
            permutations = max(100, min(PERMUTATIONS, EVALUATIONS // (k + 1)))
        n_flat = permutations * (k + 1)
        if n_flat + k + 1 > MAX_EVALUATIONS:
            raise AssumptionError(
                f"econ explain: {k:,} keys differ from {reference_name}; sharing the change "
                f"between them takes {n_flat + k + 1:,} model evaluations, expected at most "
                f"{MAX_EVALUATIONS:,}: explain against a case closer to this one (--against)"
            )
        rng = np.random.default_rng(seed)
        order = np.argsort(rng.random((permutations, k)), axis=1)  # (M, k) key order
        pos = np.argsort(order, axis=1)  # where each key comes in each order

        def along_orders(rows: np.ndarray) -> np.ndarray:
            """Coalition r < M (k + 1): the first r % (k + 1) keys of order r // (k + 1);
            then none, and each key alone."""
            out = np.zeros((rows.size, k), bool)
            on = rows < n_flat
            m, j = np.divmod(rows[on], k + 1)
            out[on] = pos[m] < j[:, None]
            alone = rows[~on] - n_flat  # 0: none; i: key i - 1 alone
            out[np.flatnonzero(~on)[alone > 0], alone[alone > 0] - 1] = True
            return out

        v_all, p_all = _evaluate(reference, keys, along_orders, n_flat + k + 1)
        v = v_all[:n_flat].reshape(permutations, k + 1)
        p = p_all[:n_flat].reshape(permutations, k + 1)
        gain = np.diff(v, axis=1)  # (M, k): the marginal contribution of order[:, j]
        contrib = np.empty_like(gain)
        np.put_along_axis(contrib, order, gain, axis=1)
        share = contrib.mean(axis=0)
        se = contrib.std(axis=0, ddof=1) / math.sqrt(permutations)
        if np.isfinite(p).all():
            pg = np.empty_like(gain)
            np.put_along_axis(pg, order, np.diff(p, axis=1), axis=1)
            p_share = pg.mean(axis=0)
        else:
            p_share = np.full(k, np.nan)
        v0, vs = v_all[n_flat], v_all[n_flat + 1 :]
        q0, qs = p_all[n_flat], p_all[n_flat + 1 :]
        one, p_one = vs - v0, qs - q0
        method, orders = "sampled", permutations
        note = (
            f"Shapley values from {permutations:,} random orders of the {k} changed keys "
            f"(more than {exact_max}: sampled; each share's standard error is given, the largest "
            f"{usd(float(se.max()))}); the shares still sum to the whole change"
        )
    if not np.isfinite(p_share).all():
        note += "; payback is not attributed: some combination of the changes does not pay back"
    table = pd.DataFrame(
        {
            "key": [c.key for c in keys],
            "before": [c.before for c in keys],
            "after": [c.after for c in keys],
            "npv_share_usd": share,
            "npv_share_se_usd": se,
            "npv_one_at_a_time_usd": one,
            "payback_share_months": p_share,
            "payback_one_at_a_time_months": p_one,
        }
    )
    order_ = np.argsort(-np.abs(table["npv_share_usd"].to_numpy()), kind="stable")
    table = table.iloc[order_].reset_index(drop=True)
    if only:
        note += f"; {len(only)} keys exist in only one of the two cases and are not compared"
    return Explanation(
        reference_name, name, npv0, npv1, pb0, pb1, table, method, orders, note, tuple(only)
    )


def text(e: Explanation) -> str:
    """The explanation as a table with a headline."""
    from econ.report.summary import usd

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
    from econ.report.summary import usd

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
