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
    --set). An optional key left blank is listed too, with the value None."""
    sens = {s.key: s for s in a.sensitivity}
    rows = []
    p = (pattern or "").lower()
    for key, value in _with_blanks(a):
        k = key.lower()
        if p and p not in k and not fnmatch.fnmatchcase(k, p):
            continue
        rule = rule_for(key)
        e = a.entries.get(key) or a.blanks.get(key)
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


def _with_blanks(a: Assumptions) -> list[tuple[str, object]]:
    """(key, value) of every key in file order, the optional keys left blank included (value
    None: contract.tranche_mw and the like, which --set or a scenario may fill), each after
    the keys of its file above its row."""
    out: list[tuple[str, object]] = list(a.values.items())
    where = {k: (e.file, e.row) for k, e in a.entries.items()}
    for key, e in sorted(a.blanks.items(), key=lambda kv: (kv[1].file, kv[1].row)):
        if key in a.values:
            continue
        after = [i for i, (k, _) in enumerate(out) if k in where and where[k][0] == e.file]
        above = [i for i in after if where[out[i][0]][1] <= e.row]
        at = (above[-1] + 1) if above else (after[0] if after else len(out))
        out.insert(at, (key, None))
        where[key] = (e.file, e.row)
    return out


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
