"""Break-even: the value of a key at which NPV is zero, or payback equals the term (goal seek)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from econ.assumptions import (
    STRUCTURAL_KEYS,
    AssumptionError,
    Assumptions,
    rule_for,
    unknown_key_message,
)
from econ.model import evaluate, metric
from econ.payback import GoalSeek, goal_seek

TARGETS = {"npv": "npv", "payback": "cumulative_at_term"}


def search_range(
    a: Assumptions, key: str, low: float | None = None, high: float | None = None
) -> tuple[float, float]:
    """The bracket to search: given, else the key's sensitivity range, else the rule's range or 0.1x-10x base."""
    base = a.num(key)
    row = next((s for s in a.sensitivity if s.key == key), None)
    rule = rule_for(key)
    if row is not None:
        lo, hi = row.low, row.high
    else:
        lo, hi = base / 10 if base > 0 else base - 1, base * 10 if base > 0 else base + 1
        if rule is not None and rule.high is not None and rule.low is not None:
            lo, hi = rule.low, rule.high
    lo = lo if low is None else low
    hi = hi if high is None else high
    if rule is not None:  # never search outside the values the key may take
        if rule.low is not None:
            lo = max(lo, rule.low + (1e-9 if rule.low_open else 0.0))
        if rule.high is not None:
            hi = min(hi, rule.high - (1e-9 if rule.high_open else 0.0))
    if not lo < hi:
        raise AssumptionError(f"goal seek {key}: empty search range [{lo:g}, {hi:g}]")
    return float(lo), float(hi)


def goal_seek_key(
    a: Assumptions,
    key: str,
    target: str = "npv",
    low: float | None = None,
    high: float | None = None,
) -> GoalSeek:
    """Value of ``key`` at which NPV = 0 (target npv) or payback = the term (target payback).

    Payback equals the term exactly when cumulative cash at the end of the term
    is zero, which is the smooth function solved for.
    """
    if key not in a.values:
        raise AssumptionError(unknown_key_message(key, a.values))
    if key in STRUCTURAL_KEYS or isinstance(a.values[key], str):
        raise AssumptionError(f"goal seek {key}: an id or month count cannot be solved for")
    if target not in TARGETS:
        raise AssumptionError(f"goal seek: unknown target {target!r}; expected npv or payback")
    lo, hi = search_range(a, key, low, high)
    name = TARGETS[target]
    label = "NPV" if target == "npv" else "cumulative cash at the end of the term"
    if key not in evaluate(a, detail=False).inputs_read:
        return GoalSeek(
            key,
            label,
            None,
            (lo, hi),
            a.num(key),
            f"{label} does not depend on {key}: the payback model does not read it "
            "(it moves the capacity, cost or latency tables only)",
        )
    res = goal_seek(
        lambda xs: metric(a, {key: xs}, name), lo, hi, base=a.num(key), key=key, target=label
    )
    return res


def breakeven_table(a: Assumptions, target: str = "npv") -> pd.DataFrame:
    """Goal seek of every key in sensitivity.csv: key, base, low, high, breakeven, message."""
    rows = []
    for s in a.sensitivity:
        r = goal_seek_key(a, s.key, target)
        rows.append(
            {
                "key": s.key,
                "base": a.num(s.key),
                "searched_low": r.bracket[0],
                "searched_high": r.bracket[1],
                "breakeven": r.value if r.value is not None else math.nan,
                "change_from_base": (r.value / a.num(s.key) - 1)
                if r.value is not None and a.num(s.key)
                else math.nan,
                "message": r.message,
            }
        )
    df = pd.DataFrame(rows)
    df["_o"] = np.abs(df["change_from_base"]).fillna(np.inf)
    return df.sort_values("_o", kind="stable").drop(columns="_o").reset_index(drop=True)
