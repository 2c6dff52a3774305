"""Every assumption key with its value, unit, ranges and source (``econ keys``)."""

from __future__ import annotations

import fnmatch

import pandas as pd

from econ.assumptions import Assumptions, rule_for

GUESS = "Guesstimate"  # a source that starts so is a guess, not a published figure


def _bound(x: float | None) -> float | None:
    return None if x is None else float(x)


def key_table(a: Assumptions, pattern: str | None = None) -> pd.DataFrame:
    """One row per key (in file order) whose name contains ``pattern`` or matches it as a shell
    pattern (``plans.*.price*``), case-insensitive: key, value, unit, valid (the rule's range
    in words), valid_low/valid_high (the sense limits, None where open-ended), sensitivity_low/
    sensitivity_high and distribution (from sensitivity.csv; None where the key has no range
    there), guess (the source starts with "Guesstimate"), source, origin (data, scenario or
    --set)."""
    sens = {s.key: s for s in a.sensitivity}
    rows = []
    p = (pattern or "").lower()
    for key, value in a.values.items():
        k = key.lower()
        if p and p not in k and not fnmatch.fnmatchcase(k, p):
            continue
        rule = rule_for(key)
        e = a.entries.get(key)
        s = sens.get(key)
        rows.append(
            {
                "key": key,
                "value": value,
                "unit": (e.unit if e is not None and e.unit else rule.unit if rule else ""),
                "valid": rule.expected() if rule else "",
                "valid_low": _bound(rule.low) if rule else None,
                "valid_high": _bound(rule.high) if rule else None,
                "distribution": s.distribution if s else None,
                "sensitivity_low": s.low if s else None,
                "sensitivity_high": s.high if s else None,
                "guess": bool(e is not None and e.source.strip().startswith(GUESS)),
                "source": e.source if e is not None else "",
                "origin": e.origin if e is not None else "data",
            }
        )
    return pd.DataFrame(
        rows,
        columns=[
            "key",
            "value",
            "unit",
            "valid",
            "valid_low",
            "valid_high",
            "distribution",
            "sensitivity_low",
            "sensitivity_high",
            "guess",
            "source",
            "origin",
        ],
    )


def valid_text(key: str) -> str:
    """The values a key may take, its bounds in its unit: "(0, $10.00T]", "whole, [1, 120]",
    ">= 0", "one of data, transferred, physics"."""
    from econ.formatting import fmt, key_kind

    rule = rule_for(key)
    if rule is None:
        return ""
    if rule.kind == "id":
        return rule.expected()
    kind = key_kind(key)
    if kind == "flag":
        return "0 or 1"
    if kind not in ("money", "share", "rate", "ratio"):
        kind = "number"  # a bound in months, MW or tokens: 120, 100,000

    def v(x: float) -> str:
        return fmt(x, kind)

    whole = "whole, " if rule.kind == "integer" else ""
    lo, hi = rule.low, rule.high
    if lo is not None and hi is not None:
        return (
            f"{whole}{'(' if rule.low_open else '['}{v(lo)}, {v(hi)}"
            f"{')' if rule.high_open else ']'}"
        )
    if lo is not None:
        return f"{whole}{'>' if rule.low_open else '>='} {v(lo)}"
    if hi is not None:
        return f"{whole}{'<' if rule.high_open else '<='} {v(hi)}"
    return "any whole number" if whole else "any number"


def text(df: pd.DataFrame, width: int = 48) -> str:
    """The table for a terminal, fitted to its width (econ.report.terminal.table): each value
    in its key's unit, the source cut to ``width`` characters; the key and its value are never
    dropped (keys wrap after their dots), the source, the valid range, the guess flag and the
    sensitivity range go first. Returns the table; :func:`shown` also gives the notes."""
    return shown(df, width)[0]


def shown(df: pd.DataFrame, width: int = 48) -> tuple[str, list[str]]:
    """The table of :func:`text` and its notes for stderr (the columns left out to fit)."""
    from econ.formatting import key_value
    from econ.report import terminal as t
    from econ.report.terminal import Column

    def rng(r) -> str:
        if r.distribution is None or pd.isna(r.sensitivity_low):
            return "-"
        return (
            f"{r.distribution} {key_value(r.key, r.sensitivity_low)} to "
            f"{key_value(r.key, r.sensitivity_high)}"
        )

    def cut(s: str) -> str:
        s = " ".join(str(s).split())
        return s if len(s) <= width else s[: width - 3] + "..."

    table = pd.DataFrame(
        {
            "key": df["key"],
            "value": [
                v if isinstance(v, str) else key_value(k, v)
                for k, v in zip(df["key"], df["value"], strict=True)
            ],
            "unit": df["unit"].fillna(""),
            "valid": [valid_text(k) for k in df["key"]],
            "range": [rng(r) for r in df.itertuples(index=False)],
            "guess": ["guess" if g else "" for g in df["guess"]],
            "source": [cut(s) for s in df["source"]],
        }
    )
    cols = [
        Column("key", kind="key"),
        Column("value", kind="text"),
        Column("unit", kind="text", priority=1),
        Column("range", "sensitivity range", kind="text", priority=2),
        Column("guess", kind="text", priority=3),
        Column("source", kind="text", priority=4),
        Column("valid", kind="text", priority=5),
    ]
    text_, dropped = t.table(table, cols)
    note = t.dropped_note(dropped)
    return text_, [note] if note else []
