"""One-way sensitivity: each variable at its low and its high, the others at base (tornado)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from econ.sensitivity.sampling import Problem

Func = Callable[[Mapping[str, np.ndarray]], Mapping[str, np.ndarray]]


def tornado(
    f: Func,
    problem: Problem,
    outputs: list[str],
    nan_as: Mapping[str, float] | None = None,
    marks: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Evaluate base, then every variable at low and high, in ONE vectorised call.

    Returns a tidy frame: output, variable, low, high, base, output_base,
    output_low, output_high, change_low and change_high (each minus the base
    output), swing (|output_high - output_low|), sorted by
    swing within each output, largest first. ``nan_as`` gives the value a NaN
    output counts as when measuring the swing (e.g. no payback = the horizon).
    ``marks`` names outputs of ``f`` that flag a kink (a clamp that binds, a quantity at the
    end of its own range; > 0 where it does) with what each means: the columns ends_on_low and
    ends_on_high list ("; ") those that hold at that end of the bar and not at the base.
    """
    names = problem.names
    d = len(names)
    base = problem.base()
    params = {k: np.full(2 * d + 1, v, dtype=float) for k, v in base.items()}
    for j, v in enumerate(problem.variables):
        params[v.name][1 + 2 * j] = v.low
        params[v.name][2 + 2 * j] = v.high
    out = f(params)
    flags = {m: np.asarray(out[m], float) > 0 for m in (marks or {})}

    def ends_on(i: int) -> str:
        return "; ".join(
            text for m, text in (marks or {}).items() if flags[m][i] and not flags[m][0]
        )

    rows = []
    for o in outputs:
        y = np.asarray(out[o], float)
        fill = (nan_as or {}).get(o)
        ys = np.where(np.isnan(y), fill, y) if fill is not None else y
        for j, v in enumerate(problem.variables):
            lo_y, hi_y = y[1 + 2 * j], y[2 + 2 * j]
            rows.append(
                {
                    "output": o,
                    "variable": v.name,
                    "low": v.low,
                    "high": v.high,
                    "base": v.base,
                    "output_base": y[0],
                    "output_low": lo_y,
                    "output_high": hi_y,
                    "change_low": lo_y - y[0],
                    "change_high": hi_y - y[0],
                    "swing": abs(ys[2 + 2 * j] - ys[1 + 2 * j]),
                    **(
                        {"ends_on_low": ends_on(1 + 2 * j), "ends_on_high": ends_on(2 + 2 * j)}
                        if marks is not None
                        else {}
                    ),
                }
            )
    df = pd.DataFrame(rows)
    df["_order"] = df["swing"].fillna(-1.0)
    df = df.sort_values(["output", "_order"], ascending=[True, False], kind="stable").drop(
        columns="_order"
    )
    return df.reset_index(drop=True)
