"""The tables the command line prints, formatted by unit and fitted to the terminal
(econ.report.terminal renders them). Each function returns (text for stdout, notes for
stderr): the notes say what was left out (rows of no effect, columns that did not fit).
Nothing here computes a figure; it formats what the analyses return."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

import numpy as np
import pandas as pd

from econ.constants import IRR_MEANINGFUL_MAX
from econ.report import terminal as t
from econ.report.terminal import Column

Shown = tuple[str, list[str]]

OUTPUT_LABELS = {
    "npv_usd": "NPV",
    "payback_months": "payback [months]",
    "irr_annual": "IRR [a year]",
    "profitability_index": "profitability index",
    "mirr_annual": "MIRR [a year]",
    "npv_without_offer_usd": "NPV without the offer",
}


def irr(x) -> str:
    """An IRR: 12.3%, '>1,000%' beyond the meaningful range (docs/model.md), '-' for none."""
    if not t._finite(x):
        return t.MISSING
    if float(x) > IRR_MEANINGFUL_MAX:
        return f">{IRR_MEANINGFUL_MAX:,.0%}"
    return t.share(x)


def figure(x, name: str) -> str:
    """One output or key value as text, by its name (an output) or its rule (a key)."""
    if name in ("irr_annual",) or name.endswith("irr_annual"):
        return irr(x)
    if "." in name:
        return t.fmt(x, t.key_kind(name))
    return t.fmt(x, t.kind_of(name))


def _notes(dropped: list[str], hidden: int = 0, what: str = "rows") -> list[str]:
    out = []
    if hidden:
        out.append(f"econ: {hidden} {what} not shown (--all shows them)")
    note = t.dropped_note(dropped)
    if note:
        out.append(note)
    return out


def _title(text: str, w: int | None = None) -> str:
    return t.wrap(text, w)


# ---------------------------------------------------------------------------
# econ capacity

# the verdict answers the question (is this price valid at this speed?): never dropped, it
# wraps; the physics and layout columns go first
CAPACITY_COLUMNS = (
    Column("platform", kind="text"),
    Column("tier", kind="text"),
    Column("tokens_per_s_per_user", "tokens/s per user"),
    Column("tokens_per_s_per_mw", "tokens/s per MW"),
    Column("concurrent_users_per_mw", "users per MW", kind="count", priority=2),
    Column("chips_per_replica", "chips per replica", kind="number", priority=5),
    Column("stages", kind="number", priority=6),
    Column("ceiling_tokens_per_s", "ceiling tokens/s", priority=3),
    Column("physics_tokens_per_s_per_mw", "physics tokens/s per MW", priority=4),
    Column("data_over_physics", "data over physics", kind="ratio", priority=4),
    Column("verdict", kind="text"),
    Column("cost_per_mtok_rent_usd", "rent $/Mtok"),
    Column("cost_per_mtok_buy_usd", "buy $/Mtok", priority=1),
)
AUDIT_COLUMNS = (
    Column("point", kind="text"),
    Column("platform", kind="text", priority=2),
    Column("tokens_per_s_per_user", "tokens/s per user"),
    Column("tokens_per_s_per_mw", "tokens/s per MW"),
    Column("ceiling_tokens_per_s", "ceiling tokens/s", priority=1),
    Column("physics_tokens_per_s_per_mw", "physics tokens/s per MW"),
    Column("data_over_physics", "data over physics", kind="ratio", priority=3),
    Column("verdict", kind="text"),
)


def capacity(df: pd.DataFrame, audit: pd.DataFrame) -> Shown:
    cols = [c for c in CAPACITY_COLUMNS if c.key in df.columns]
    main, dropped = t.table(df, cols, "Capacity by platform and per-user speed")
    cols = [c for c in AUDIT_COLUMNS if c.key in audit.columns]
    second, dropped2 = t.table(
        audit, cols, "Frontier points against the physics envelope of the served model"
    )
    return main + "\n\n" + second, _notes(sorted(set(dropped + dropped2)))


# ---------------------------------------------------------------------------
# econ sensitivity


def _by_row(df: pd.DataFrame, value_col: str, name_col: str) -> list[str]:
    return [figure(x, n) for x, n in zip(df[value_col], df[name_col], strict=True)]


def _key_column(df: pd.DataFrame) -> str:
    """The frame's column of keys: ``key`` (the name of every output), else the engine's
    ``variable``."""
    return "key" if "key" in df.columns else "variable"


def tornado(df: pd.DataFrame, show_all: bool = False) -> Shown:
    """One output's tornado: each key's low and high and the output there, largest swing
    first; keys whose swing is zero are left out unless ``show_all``. The key column wraps
    after its dots before a column is dropped (the base value first), so that the table
    stays a table at 80 characters."""
    if df.empty:
        return "No key of sensitivity.csv to vary.", []
    k = _key_column(df)
    out = str(df["output"].iloc[0])
    keep = df if show_all else df[~(df["swing"] == 0)]
    hidden = len(df) - len(keep)
    marked = {e: keep.get(f"ends_on_{e}", pd.Series("", index=keep.index)) for e in ("low", "high")}
    star = lambda e: [" *" if m else "" for m in marked[e]]  # noqa: E731
    shown = pd.DataFrame(
        {
            "key": keep[k],
            "low": _by_row(keep, "low", k),
            "base": _by_row(keep, "base", k),
            "high": _by_row(keep, "high", k),
            "at_low": [
                figure(x, out) + m for x, m in zip(keep["output_low"], star("low"), strict=True)
            ],
            "at_high": [
                figure(x, out) + m for x, m in zip(keep["output_high"], star("high"), strict=True)
            ],
            "swing": [_swing(x, out) for x in keep["swing"]],
        }
    )
    label = OUTPUT_LABELS.get(out, out)
    short = label.split(" [")[0]
    cols = [
        Column("key", kind="key"),
        Column("low"),
        Column("base", priority=1),
        Column("high"),
        Column("at_low", f"{short} at low"),
        Column("at_high", f"{short} at high"),
        Column("swing"),
    ]
    base = figure(df["output_base"].iloc[0], out)
    title = _title(
        f"Tornado of {label} (base {base}): each key at its low and its high, the others at "
        "their base values"
    )
    text, dropped = t.table(shown, cols, title)
    from econ.sensitivity.run import marked_ends

    ends = marked_ends(keep.rename(columns={k: "variable"}))
    if ends:
        text += "\n\n" + t.wrap(
            "* The bar ends past a kink the base does not have: " + "; ".join(ends) + "."
        )
    text += tornado_ranks(df)
    return text, _notes(dropped, hidden, f"key(s) with no effect on {out}")


def tornado_ranks(df: pd.DataFrame) -> str:
    """The one-at-a-time ranking against the variance ranking (section 7): the keys where they
    differ, and why; empty where the frame has no Sobol ranks."""
    info = df.attrs.get("sobol")
    if info is None or "ranks_differ_because" not in df:
        return ""
    k = _key_column(df)
    lead = (
        f"One at a time against the variance (Sobol total indices, {info['samples']:,} base "
        f"samples, seed {info['seed']}, as econ sensitivity sobol ranks them)"
    )
    if info["warnings"]:
        lead += (
            f"; the Sobol sample is too small for {len(info['warnings'])} of its figures "
            "(econ sensitivity sobol names them)"
        )
    diff = df[df["ranks_differ_because"] != ""]
    if diff.empty:
        return "\n\n" + t.wrap(
            lead + ": the two rankings agree within 5 places in the top 10 of each."
        )
    lines = [t.wrap(lead + ": the rankings differ where")]
    for _, r in diff.iterrows():
        lines.append(
            t.wrap(
                f"- {r[k]}: "
                + (
                    f"tornado #{int(r['tornado_rank'])}"
                    if r["swing"] != 0
                    else "no swing one at a time"
                )
                + f", Sobol #{int(r['sobol_rank'])}: "
                f"{r['ranks_differ_because']}"
            )
        )
    return "\n\n" + "\n".join(lines)


def _swing(x, output: str) -> str:
    """A swing: a difference of the output, so a payback's swing is months, not a payback."""
    return t.months(x) if output == "payback_months" else figure(x, output)


def grid(df: pd.DataFrame, show_all: bool = False) -> Shown:
    """Each grid of grids.csv as a table: the two keys' values and the outputs there."""
    if df.empty:
        return "No grid in grids.csv.", []
    parts, dropped = [], []
    outputs = [o for o in OUTPUT_LABELS if o in df.columns]
    for gid, g in df.groupby("grid", sort=False):
        xk, yk = str(g["x_key"].iloc[0]), str(g["y_key"].iloc[0])
        shown = pd.DataFrame(
            {
                "x": [figure(x, xk) for x in g["x"]],
                "y": [figure(y, yk) for y in g["y"]],
                **{o: [figure(v, o) for v in g[o]] for o in outputs},
            }
        )
        cols = [Column("x"), Column("y")] + [
            Column(o, OUTPUT_LABELS[o], priority=1 if o == "irr_annual" else 0) for o in outputs
        ]
        text, d = t.table(shown, cols, t.wrap(f"Grid {gid}: x = {xk}, y = {yk}"))
        parts.append(text)
        dropped += d
    return "\n\n".join(parts), _notes(sorted(set(dropped)))


def grid_mc(df: pd.DataFrame) -> Shown:
    """The fleet-plan grid's Monte Carlo: P(NPV > 0) by avoidable share (rows) and movable
    share (columns), each cell on the same draws (section V4.3)."""
    xs = sorted(df["fleet.avoidable_share"].unique())
    ys = sorted(df["capacity.movable_share"].unique())
    cell = {(r["fleet.avoidable_share"], r["capacity.movable_share"]): r for _, r in df.iterrows()}
    shown = pd.DataFrame(
        [
            {
                "avoidable": f"{x:g}",
                **{f"{y:g}": t.share(cell[(x, y)]["p_npv_positive"]) for y in ys},
            }
            for x in xs
        ]
    )
    cols = [Column("avoidable", "fleet.avoidable_share", kind="text")]
    cols += [Column(f"{y:g}", f"movable {y:g}") for y in ys]
    title = (
        "P(NPV > 0) on the fleet-plan grid: fleet.avoidable_share (rows) x "
        "capacity.movable_share (columns), every cell on the same draws"
    )
    return t.table(shown, cols, title)


def _stat(stats: pd.DataFrame, output: str, statistic: str) -> float:
    s = stats[(stats["output"] == output) & (stats["statistic"] == statistic)]["value"]
    return float(s.iloc[0]) if len(s) else math.nan


MC_COLUMNS = (
    ("mean", 1),
    ("P5", 0),
    ("P10", 3),
    ("P25", 2),
    ("P50", 0),
    ("P75", 2),
    ("P90", 3),
    ("P95", 0),
)


def montecarlo(res: dict, show_all: bool = False) -> Shown:
    """The Monte Carlo: percentiles and means by output over the samples where each output is
    defined, beside the share where it is not (never dropped: an IRR's percentiles over the
    few samples that have one read otherwise like the answer), the probabilities, and the
    value of information by key (keys within the estimator's noise left out unless
    ``show_all``)."""
    stats = res["stats"]
    outputs = list(dict.fromkeys(stats["output"]))
    rows = []
    for o in outputs:
        row = {"output": OUTPUT_LABELS.get(o, o)}
        u = _stat(stats, o, "share undefined")
        if math.isnan(u) and o == "payback_months":
            u = _stat(stats, o, "share with no payback within the horizon")
        row["undefined"] = t.share(u) if not math.isnan(u) else ""
        for s, _ in MC_COLUMNS:
            v = _stat(stats, o, s)
            if s == "mean" and math.isnan(v):
                row[s] = ""
            elif math.isnan(v) and o.endswith("rr_annual") and not u >= 1:
                row[s] = f">{IRR_MEANINGFUL_MAX:,.0%}"  # above the meaningful range
            else:
                row[s] = figure(v, o)
        rows.append(row)
    shown = pd.DataFrame(rows)
    cols = [Column("output", kind="text"), Column("undefined")]
    cols += [Column(s, priority=p) for s, p in MC_COLUMNS]
    title = t.wrap(
        f"Monte Carlo: {res['n']:,} samples. Percentiles over the samples where each output is "
        "defined (payback over all: none = no payback within the horizon); undefined: the share "
        "of samples without a value"
    )
    text, dropped = t.table(shown, cols, title)

    def pm(o: str, s: str) -> str:
        v, e = _stat(stats, o, s), _stat(stats, o, f"standard error of {s}")
        return f"{t.share(v)} (standard error {t.share(e)})"

    lines = [
        f"P(NPV > 0) {pm('npv_usd', 'P(NPV > 0)')}; P(payback <= term) "
        f"{pm('payback_months', 'P(payback <= term)')}; no payback within the horizon "
        f"{t.share(_stat(stats, 'payback_months', 'share with no payback within the horizon'))}"
        f"; cash never negative "
        f"{t.share(_stat(stats, 'payback_months', 'share never cash-negative'))}."
    ]
    pp = res.get("gpu_cost_prior_predictive")
    if pp:
        lines.append(
            "GPU cost of a standard token at fleet.avoidable_share = 1 over the draws: P5 "
            f"${pp['P5']:.2f}, P50 ${pp['P50']:.2f}, P95 ${pp['P95']:.2f} per million."
        )
    if res.get("clamps"):
        lines.append(
            "Clamps and where they bind: "
            + "; ".join(
                f"{c['what']}: {t.share(c['share_binding'])} of draws" for c in res["clamps"]
            )
            + "."
        )
    voi, hidden = _voi(res, show_all)
    from econ.report.summary import held_sentence, voi_sentence

    prose = [t.wrap(x) for x in lines] + ["", voi[0], "", t.wrap(voi_sentence(res))]
    if res.get("held"):
        prose.append(t.wrap(held_sentence(res["held"])))
    if res.get("warnings"):
        prose += ["", sample_warnings(res["warnings"])]
    notes = _notes(
        sorted(set(dropped + voi[1])),
        hidden,
        "key(s) whose value of information is zero",
    )
    return text + "\n\n" + "\n".join(prose), notes


def sample_warnings(warnings) -> str:
    """The figures above that the sample is too small for (econ.sensitivity.sample_warnings),
    one paragraph each under a heading; "" where there are none."""
    if not warnings:
        return ""
    head = t.wrap(
        f"Warning: too few samples for {len(warnings)} figure(s) above, each impossible in "
        "what it estimates (take more samples):"
    )
    return "\n".join([head, *(t.wrap(f"- {w.message}", indent="  ") for w in warnings)])


def _voi(res: dict, show_all: bool) -> tuple[tuple[str, list[str]], int]:
    """The value of information by key: EVPPI with its standard error and share of the EVPI,
    and why one is zero; keys of zero EVPPI left out unless ``show_all``."""
    ev = res["evppi"]
    keep = ev if show_all else ev[ev["evppi"] > 0]
    se = keep["evppi_se"] if "evppi_se" in keep else [math.nan] * len(keep)
    shown = pd.DataFrame(
        {
            "key": keep["key"],
            "evppi_usd": [t.money(x) for x in keep["evppi"]],
            "evppi_se_usd": [t.money(x) for x in se],
            "share_of_evpi": [t.share(x) for x in keep["share_of_evpi"]],
            "reason": keep["reason"].fillna("") if "reason" in keep else "",
        }
    )
    cols = [
        Column("key", kind="key"),
        Column("evppi_usd", "EVPPI"),
        Column("evppi_se_usd", "standard error", priority=1),
        Column("share_of_evpi", "share of EVPI"),
    ]
    if show_all and shown["reason"].astype(str).str.len().gt(0).any():
        cols.append(Column("reason", "why zero", kind="text", priority=2))
    title = (
        f"Value of information (EVPI {t.money(res['evpi_usd'])}): what knowing each input "
        "before deciding would be worth"
    )
    if shown.empty:
        return (
            t.wrap(title)
            + "\nNo single input, known alone, would change the decision (every EVPPI is zero).",
            [],
        ), len(ev)
    text, dropped = t.table(shown, cols, title)
    return (text, dropped), len(ev) - len(keep)


def sobol(df: pd.DataFrame, show_all: bool = False) -> Shown:
    """Sobol indices as shares of the output's variance with their 95 % intervals; keys whose
    indices are zero (not read) are left out unless ``show_all``; under them, the figures the
    sample is too small for (``df.attrs["warnings"]``)."""
    zero = (df["S1"] == 0) & (df["ST"] == 0)
    keep = df if show_all else df[~zero]
    hidden = len(df) - len(keep)
    k = _key_column(df)

    def ci(lo, hi) -> list[str]:
        return [f"{t.share(a)} to {t.share(b)}" for a, b in zip(lo, hi, strict=True)]

    shown = pd.DataFrame(
        {
            "key": keep[k],
            "ST": [t.share(x) for x in keep["ST"]],
            "ST_ci": ci(keep["ST_low"], keep["ST_high"]),
            "S1": [t.share(x) for x in keep["S1"]],
            "S1_ci": ci(keep["S1_low"], keep["S1_high"]),
            "note": keep["note"].fillna(""),
        }
    )
    cols = [
        Column("key", kind="key"),
        Column("ST", "total index"),
        Column("ST_ci", "its 95% interval", priority=1),
        Column("S1", "first-order index"),
        Column("S1_ci", "first-order 95% interval", priority=2),
    ]
    if shown["note"].str.len().gt(0).any():
        cols.append(Column("note", kind="text", priority=3))
    out = str(df["output"].iloc[0]) if len(df) else ""
    title = _title(
        f"Sobol indices of {OUTPUT_LABELS.get(out, out)}: the share of its variance each key explains alone "
        "(first-order) and with its interactions (total)"
    )
    text, dropped = t.table(shown, cols, title)
    if df.attrs.get("warnings"):
        text += "\n\n" + sample_warnings(df.attrs["warnings"])
    return text, _notes(dropped, hidden, "key(s) not read by the payback model (indices 0)")


_NO_VALUE = re.compile(r"^no value of \S+ from .*? brings (.*?) to zero: it ")


def why_none(message: str) -> str:
    """A goal seek's reason for no value, without what the row says already (the key and
    the range searched): "NPV stays above zero, from $5.91B to $11.87B"."""
    return _NO_VALUE.sub(r"\1 ", t.plain_numbers(str(message)))


def breakeven(df: pd.DataFrame, read: Iterable[str], show_all: bool = False) -> Shown:
    """The break-even table: each key's value where the target is met, nearest first, and
    why there is none (never dropped: it wraps); keys the model does not read are left out
    unless ``show_all``."""
    read = set(read)
    zero = df["key"].map(lambda k: k not in read) & df["breakeven"].isna()
    keep = df if show_all else df[~zero]
    hidden = len(df) - len(keep)
    shown = pd.DataFrame(
        {
            "key": keep["key"],
            "base": _by_row(keep, "base", "key"),
            "breakeven": _by_row(keep, "breakeven", "key"),
            "change": [t.share(x) for x in keep["change_from_base"]],
            "searched": [
                f"{figure(lo, k)} to {figure(hi, k)}"
                for lo, hi, k in zip(
                    keep["searched_low"], keep["searched_high"], keep["key"], strict=True
                )
            ],
            "message": [
                "" if np.isfinite(b) else why_none(m)
                for b, m in zip(keep["breakeven"], keep["message"], strict=True)
            ],
        }
    )
    cols = [
        Column("key", kind="key"),
        Column("base"),
        Column("breakeven", "break-even"),
        Column("change", "change from base", priority=1),
        Column("searched", "range searched", priority=2),
        Column("message", "why none", kind="text"),
    ]
    title = "Break-even: the value of each key at which the target is met, the others at base"
    text, dropped = t.table(shown, cols, _title(title))
    return text, _notes(dropped, hidden, "key(s) the payback model does not read")


def goal_seek(res, key: str, term: float | None = None, horizon: float | None = None) -> str:
    """The goal seek's answer in words, in the key's unit; where no value in the range gets
    there, "No answer:" and why (the target's range over the search, a payback target in
    months of the term). ``term`` and ``horizon`` [months] word a payback target."""
    lo, hi = res.bracket
    v = t.key_value
    searched = f"searched {v(key, lo)} to {v(key, hi)}"
    base = v(key, res.base)
    payback = not str(res.target).lower().startswith("npv")
    if res.value is not None:
        change = res.value / res.base - 1 if res.base else math.nan
        where = (
            f", {t.share(abs(change))} {'below' if change < 0 else 'above'} its base ({base})"
            if math.isfinite(change) and change != 0
            else f" (its base {base})"
        )
        what = (
            f"Payback equals the {_months(term)}-month term"
            if payback and term is not None
            else f"{res.target[0].upper()}{res.target[1:]} is zero"
        )
        return t.wrap(f"{what} at {key} = {t.key_quantity(key, res.value)}{where}; {searched}.")
    span = getattr(res, "target_range", None)
    side = getattr(res, "side", None)
    if span is None or side is None:  # not read, or a jump: the engine's words
        return t.wrap(
            f"No answer: {t.plain_numbers(res.message)}. Searched {v(key, lo)} to "
            f"{v(key, hi)}; base {base}."
        )
    widen = "Widen the range with --low and --high where the key's rule allows."
    if not payback:
        return t.wrap(
            f"No answer: no value of {key} from {v(key, lo)} to {v(key, hi)} brings NPV to "
            f"zero. NPV stays {side} zero over the whole range, from {t.money(span[0])} to "
            f"{t.money(span[1])} (base {base}). {widen}"
        )
    T = term if term is not None else 0.0
    first, last = span[0] + T, span[1] + T
    if side == "below":
        how = (
            "the deal never goes cash-negative at any value, payback month 0"
            if last <= 0
            else "payback comes before the end of the term at every value, month "
            f"{t.months(max(first, 0))} to {t.months(last)}"
        )
    elif horizon is not None and first > horizon:
        how = f"no value pays back within the {_months(horizon)}-month horizon"
    else:
        how = (
            f"payback comes after the end of the term at every value, month {t.months(first)} "
            "or later (or none within the horizon)"
        )
    return t.wrap(
        f"No answer: no value of {key} from {v(key, lo)} to {v(key, hi)} makes payback equal "
        f"the {_months(T)}-month term: {how} (base {base}). {widen}"
    )


def _months(x) -> str:
    return f"{float(x):g}" if x is not None else "?"
