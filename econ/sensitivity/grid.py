"""Two-way sensitivity: a grid over two variables, the others at base."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

Func = Callable[[Mapping[str, np.ndarray]], Mapping[str, np.ndarray]]


def grid(
    f: Func,
    base: Mapping[str, float],
    x_name: str,
    xs: Sequence[float],
    y_name: str,
    ys: Sequence[float],
    outputs: list[str],
) -> pd.DataFrame:
    """Tidy frame with one row per (x, y) point: x, y and each output, from one vectorised call."""
    gx, gy = np.meshgrid(np.asarray(xs, float), np.asarray(ys, float), indexing="ij")
    n = gx.size
    params = {k: np.full(n, v, dtype=float) for k, v in base.items()}
    params[x_name] = gx.ravel()
    params[y_name] = gy.ravel()
    out = f(params)
    df = pd.DataFrame({"x_key": x_name, "x": gx.ravel(), "y_key": y_name, "y": gy.ravel()})
    for o in outputs:
        df[o] = np.asarray(out[o], float)
    return df


def pivot(df: pd.DataFrame, output: str) -> pd.DataFrame:
    """The grid of one output as a matrix: rows y, columns x."""
    return df.pivot(index="y", columns="x", values=output).sort_index(ascending=False)
