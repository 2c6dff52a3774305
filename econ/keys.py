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


def text(df: pd.DataFrame, width: int = 60) -> str:
    """The table for a terminal: the source cut to ``width`` characters."""

    def value(v) -> str:
        return v if isinstance(v, str) else f"{float(v):.6g}"

    def rng(r) -> str:
        if r.distribution is None or pd.isna(r.sensitivity_low):
            return "-"
        return f"{r.distribution} {r.sensitivity_low:.4g} to {r.sensitivity_high:.4g}"

    def cut(s: str) -> str:
        s = " ".join(str(s).split())
        return s if len(s) <= width else s[: width - 3] + "..."

    shown = pd.DataFrame(
        {
            "key": df["key"],
            "value": [value(v) for v in df["value"]],
            "unit": df["unit"],
            "valid": df["valid"],
            "sensitivity range": [rng(r) for r in df.itertuples(index=False)],
            "guess": ["guess" if g else "" for g in df["guess"]],
            "source": [cut(s) for s in df["source"]],
        }
    )
    return shown.to_string(index=False)
