"""What the capacity is worth (docs/model.md, section V4): the deal as two businesses, the
break-evens of the keys that decide its sign, and the NPV over the lab's own fleet plan.

- The **ultrafast business** is the deal with no traffic moved onto the contract
  (capacity.movable_share = 0 and no internal batch work), the monthly allocation re-solved;
  the **capacity increment** is the NPV less it.
- A **break-even** is the value of a key at which the NPV is zero (or none in the range
  searched, with the reason).
- The **fleet-plan grid** is the NPV over fleet.avoidable_share x capacity.movable_share, the
  two plan keys no public figure pins, with the break-even line (the movable share at which
  the NPV is zero, for each avoidable share).

Every figure is an evaluation of econ.model; nothing here derives a number of its own.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from econ.assumptions import Assumptions, rule_for
from econ.constants import AVOIDABLE_GRID, MOVABLE_GRID, PLAN_KEYS
from econ.model import evaluate
from econ.sensitivity.breakeven import goal_seek_key

# No traffic moved onto the contract: the ultrafast business alone (section V4.1).
NO_MOVED_TRAFFIC = {
    "capacity.movable_share": 0.0,
    "capacity.internal_batch_tokens_per_month": 0.0,
}


def ultrafast_only(a: Assumptions) -> Assumptions:
    """The assumptions of the ultrafast business: no traffic moved onto the contract."""
    return a.with_overrides([(k, repr(v)) for k, v in NO_MOVED_TRAFFIC.items()])


def two_businesses(a: Assumptions, npv: float | None = None) -> dict[str, float]:
    """NPV, the ultrafast business's NPV and the capacity increment (they add up exactly)."""
    total = float(evaluate(a, detail=False, monthly=False).npv[0]) if npv is None else float(npv)
    uf = float(evaluate(ultrafast_only(a), detail=False, monthly=False).npv[0])
    return {
        "npv_usd": total,
        "npv_ultrafast_only_usd": uf,
        "npv_capacity_increment_usd": total - uf,
    }


def breakeven_keys(a: Assumptions) -> tuple[str, ...]:
    """The keys of section V4.1's break-evens on this data: the GPU platform's rent and
    frontier scale, the contract platform's frontier scale, the two fleet-plan keys."""
    gpu, plat = str(a.values["capacity.gpu_platform"]), str(a.values["contract.platform"])
    keys = [
        f"hardware.{gpu}.rent_usd_per_hour",
        f"hardware.{gpu}.frontier_scale",
        f"hardware.{plat}.frontier_scale",
        "fleet.avoidable_share",
        "capacity.movable_share",
    ]
    return tuple(k for k in keys if k in a.values)


def search_bracket(a: Assumptions, key: str) -> tuple[float, float]:
    """Where a break-even is searched: a share over [0, 1]; a rent or a scale from a
    twentieth to twenty times its value, within the key's rule."""
    rule = rule_for(key)
    if key in PLAN_KEYS:
        return 0.0, 1.0
    base = a.num(key)
    lo, hi = base / 20.0, base * 20.0
    if rule is not None:
        if rule.low is not None:
            lo = max(lo, rule.low + (1e-9 if rule.low_open else 0.0))
        if rule.high is not None:
            hi = min(hi, rule.high - (1e-9 if rule.high_open else 0.0))
    if not hi > lo:  # a value at (or next to) its rule's low end: from there to 400 times it
        hi = lo * 400.0
        if rule is not None and rule.high is not None:
            hi = min(hi, rule.high - (1e-9 if rule.high_open else 0.0))
    return lo, hi


def breakevens(a: Assumptions) -> dict[str, dict[str, Any]]:
    """Key -> {value (None where there is none), searched [low, high], reason} (section V4.1):
    the value at which the NPV is zero, everything else as set."""
    out: dict[str, dict[str, Any]] = {}
    for key in breakeven_keys(a):
        lo, hi = search_bracket(a, key)
        res = goal_seek_key(a, key, "npv", lo, hi, hold="value")
        out[key] = {
            "value": res.value,
            "base": a.num(key),
            "searched": [lo, hi],
            "reason": None if res.value is not None else res.message,
        }
    return out


def range_ends_crossing(a: Assumptions, base_npv: float) -> list[dict[str, Any]]:
    """The sampled keys whose plausible range (sensitivity.csv, low to high) turns the NPV's sign
    one at a time, everything else as set (section V4.1): {key, end, value, npv_usd} for each
    end on the other side of zero from ``base_npv``, largest |NPV| first. The tornado's one
    vectorised call (econ.sensitivity.oneway), each scenario choosing its served speeds as the
    answer does."""
    from econ.sensitivity import oneway
    from econ.sensitivity.held import varied
    from econ.sensitivity.run import problem_from

    if not varied(a) or not math.isfinite(base_npv) or base_npv == 0:
        return []
    tor = oneway.tornado(
        lambda p: {"npv_usd": evaluate(a, p, detail=False, monthly=False).npv},
        problem_from(a),
        ["npv_usd"],
    )
    out = [
        {
            "key": r["variable"],
            "end": end,
            "value": float(r[end]),
            "npv_usd": float(r[f"output_{end}"]),
        }
        for _, r in tor.iterrows()
        for end in ("low", "high")
        if r["variable"] not in PLAN_KEYS
        and math.isfinite(r[f"output_{end}"])
        and (r[f"output_{end}"] > 0) != (base_npv > 0)
    ]
    return sorted(out, key=lambda c: -abs(c["npv_usd"]))


def fleet_plan_grid(a: Assumptions) -> dict[str, Any]:
    """The NPV over fleet.avoidable_share x capacity.movable_share (section V4.3), the other
    inputs as set: ``cells`` a list of {both keys, npv_usd}, and ``breakeven_line`` the movable
    share at which the NPV is zero for each avoidable share (None where it stays on one side
    over 0..1, with the side)."""
    av, mv = np.meshgrid(np.asarray(AVOIDABLE_GRID), np.asarray(MOVABLE_GRID), indexing="ij")
    npv = evaluate(
        a, {"fleet.avoidable_share": av.ravel(), "capacity.movable_share": mv.ravel()},
        detail=False, monthly=False,
    ).npv.reshape(av.shape)  # fmt: skip
    cells = [
        {
            "fleet.avoidable_share": float(av[i, j]),
            "capacity.movable_share": float(mv[i, j]),
            "npv_usd": float(npv[i, j]),
        }
        for i in range(av.shape[0])
        for j in range(av.shape[1])
    ]
    line = []
    for x in AVOIDABLE_GRID:
        b = a.with_overrides([("fleet.avoidable_share", repr(x))])
        res = goal_seek_key(b, "capacity.movable_share", "npv", 0.0, 1.0, hold="value")
        line.append(
            {
                "fleet.avoidable_share": x,
                "capacity.movable_share": res.value,
                "reason": None if res.value is not None else res.message,
            }
        )
    return {
        "keys": list(PLAN_KEYS),
        "avoidable_share": list(AVOIDABLE_GRID),
        "movable_share": list(MOVABLE_GRID),
        "cells": cells,
        "breakeven_line": line,
    }


def finite_or_none(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)
