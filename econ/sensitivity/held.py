"""Which keys of sensitivity.csv the analyses vary, and which a scenario or --set holds
(docs/model.md, section 7). On its own so that the analyses (run, breakeven) share it without
importing each other."""

from __future__ import annotations

from econ.assumptions import Assumptions


def held(a: Assumptions) -> list[tuple[str, float, str]]:
    """The keys of sensitivity.csv that a scenario or --set gives a value: (key, value, by).

    What a scenario or --set fixes is held at that value and not varied: its range in
    sensitivity.csv describes the uncertainty around the data's value, not around the
    scenario's (docs/model.md, section 7)."""
    out = []
    for s in a.sensitivity:
        e = a.entries[s.key]
        if e.origin != "data":
            out.append((s.key, a.num(s.key), e.origin))
    return out


def varied(a: Assumptions) -> list:
    """The rows of sensitivity.csv the analyses vary: every row but the held keys."""
    fixed = {k for k, _, _ in held(a)}
    return [s for s in a.sensitivity if s.key not in fixed]
