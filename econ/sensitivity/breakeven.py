"""Break-even: the value of a key at which NPV is zero, or payback equals the term (goal seek)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from econ.assumptions import (
    AssumptionError,
    Assumptions,
    is_structural,
    rule_for,
    unknown_key_message,
)
from econ.model import at_rate, evaluate
from econ.payback import GoalSeek, goal_seek
from econ.sensitivity.held import varied

TARGETS = ("npv", "payback")


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
        if rule is not None and rule.high is not None and rule.low is not None and not rule.sense:
            lo, hi = rule.low, rule.high
    for option, given in (("--low", low), ("--high", high)):
        if given is not None and rule is not None and not rule.check(given):
            raise AssumptionError(
                f"goal seek {key}: {option} {given:g} is outside the values the key may take; "
                f"expected {rule.expected()}"
            )
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


def target_function(a: Assumptions, key: str, target: str, hold: str = "rate"):
    """The function of the key's values (M,) whose zero goal seek finds: NPV, or payback minus
    the term (no payback within the horizon counts as later than any month)."""
    H = float(a.values["horizon.months"])

    def over(xs: np.ndarray) -> dict:
        return at_rate(a, key, xs) if hold == "rate" else {key: xs}

    def npv(xs: np.ndarray) -> np.ndarray:
        return evaluate(a, over(xs), detail=False, monthly=False).npv

    def payback(xs: np.ndarray) -> np.ndarray:
        r = evaluate(a, over(xs), detail=False, monthly=False)
        term = np.broadcast_to(
            np.asarray(
                xs if key == "contract.term_months" else a.num("contract.term_months"), float
            ),
            r.payback_months.shape,
        )
        return np.where(np.isnan(r.payback_months), H + 1.0, r.payback_months) - term

    return npv if target == "npv" else payback


def goal_seek_key(
    a: Assumptions,
    key: str,
    target: str = "npv",
    low: float | None = None,
    high: float | None = None,
    hold: str = "rate",
) -> GoalSeek:
    """Value of ``key`` at which NPV = 0 (target npv) or the payback month equals the term
    (target payback), by bracketing root finding (docs/model.md, section 6).

    Payback is the lasting recovery, which can jump where cumulative cash dips below zero again;
    a root found at such a jump is reported as one, not as an answer.
    """
    if key not in a.values:
        raise AssumptionError(unknown_key_message(key, a.values))
    rule = rule_for(key)
    if key.startswith("frontier.") and not is_structural(key, a.values[key]):
        plat = a.values[f"frontier.{key.split('.')[1]}.platform"]
        raise AssumptionError(
            f"goal seek {key}: one point of a curve cannot be solved for alone (the curve would "
            f"rise with speed); vary the whole curve through hardware.{plat}.frontier_scale"
        )
    if is_structural(key, a.values[key]) or (rule is not None and rule.kind == "integer"):
        raise AssumptionError(
            f"goal seek {key}: an id, a flag or a whole-number key cannot be solved for; "
            f"try econ sweep {key}"
        )
    if target not in TARGETS:
        raise AssumptionError(f"goal seek: unknown target {target!r}; expected npv or payback")
    lo, hi = search_range(a, key, low, high)
    label = "NPV" if target == "npv" else "payback month minus the term"
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
    f = target_function(a, key, target, hold)
    res = goal_seek(f, lo, hi, base=a.num(key), key=key, target=label)
    if res.value is not None and abs(float(f(np.array([res.value]))[0])) > 1e-6 * max(
        1.0, abs(float(f(np.array([lo]))[0]))
    ):
        return GoalSeek(
            key,
            label,
            None,
            (lo, hi),
            a.num(key),
            f"{label} jumps across zero at {key} = {res.value:.6g} (cumulative cash dips below "
            "zero again there) rather than passing through it",
        )
    return res


def breakeven_table(a: Assumptions, target: str = "npv", progress=None) -> pd.DataFrame:
    """Goal seek of every key in sensitivity.csv: key, base, low, high, breakeven, message.

    A key that a scenario or --set fixes is held, as in every other analysis, and has no row
    (docs/model.md, section 7). ``progress(done, total)``, if given, is called after each key."""
    rows = []
    keys = varied(a)
    for i, s in enumerate(keys, start=1):
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
        if progress is not None:
            progress(i, len(keys))
    columns = ["key", "base", "searched_low", "searched_high", "breakeven"]
    df = pd.DataFrame(rows, columns=[*columns, "change_from_base", "message"])
    df["_o"] = np.abs(df["change_from_base"]).fillna(np.inf)
    return df.sort_values("_o", kind="stable").drop(columns="_o").reset_index(drop=True)
