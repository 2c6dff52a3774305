"""Monte Carlo: sample, evaluate in chunks with bounded memory, analyse."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from econ.sensitivity.sampling import Problem, iter_uniforms

Func = Callable[[Mapping[str, np.ndarray]], Mapping[str, np.ndarray]]
PERCENTILES = (5, 10, 25, 50, 75, 90, 95)


def evaluate(
    f: Func,
    problem: Problem,
    n: int,
    seed: int,
    outputs: list[str],
    chunk: int = 50_000,
    keep_inputs: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Evaluate ``f`` on n correlated Latin-hypercube samples, ``chunk`` at a time.

    Returns (outputs: n rows, one column per output; inputs: the first
    ``keep_inputs`` samples with their outputs). Only the outputs of all n
    samples are held, so memory is bounded by the chunk. ``progress(done, n)``
    is called after each chunk. The numbers do not depend on ``chunk``.
    """
    block = np.empty((n, len(outputs)))  # one array, wrapped by the DataFrame without a copy
    res = {o: block[:, j] for j, o in enumerate(outputs)}
    kept: list[pd.DataFrame] = []
    done = 0
    for u in iter_uniforms(problem, n, seed, chunk):
        x = problem.transform(u)
        y = f(x)
        m = u.shape[0]
        for o in outputs:
            res[o][done : done + m] = np.asarray(y[o], float)
        if done < keep_inputs:
            k = min(m, keep_inputs - done)
            part = pd.DataFrame({name: v[:k] for name, v in x.items()})
            for o in outputs:
                part[o] = np.asarray(y[o], float)[:k]
            kept.append(part)
        done += m
        if progress is not None:
            progress(done, n)
    inputs = pd.concat(kept, ignore_index=True) if kept else pd.DataFrame()
    return pd.DataFrame(block, columns=list(outputs), copy=False), inputs


def analyse(out: pd.DataFrame, term: float, payback: str = "payback") -> pd.DataFrame:
    """Percentiles, mean and standard error of each output, and P(payback <= term).

    A NaN payback means no payback within the horizon and counts as later than
    any month (its percentiles are then None); a NaN IRR is undefined and is
    left out of the IRR statistics (the share undefined is reported).
    Tidy frame: output, statistic, value.
    """
    rows = []
    n = len(out)
    for o in out.columns:
        y = out[o].to_numpy(float)
        if o == payback:
            never = (
                np.finfo(float).max / 4
            )  # no payback: later than any month, finite for the arithmetic
            z = np.where(np.isnan(y), never, y)
            p = float(np.mean(z <= term))
            rows += [
                (o, "P(payback <= term)", p),
                (o, "standard error of P(payback <= term)", float(np.sqrt(p * (1 - p) / n))),
                (o, "share with no payback within the horizon", float(np.mean(np.isnan(y)))),
            ]
            for q, v in zip(PERCENTILES, np.percentile(z, PERCENTILES), strict=True):
                rows.append((o, f"P{q}", float(v) if v < never / 2 else np.nan))
            continue
        ok = y[np.isfinite(y)]
        if o != "npv":
            rows.append((o, "share undefined", float(1 - ok.size / n)))
        rows.append((o, "mean", float(ok.mean()) if ok.size else np.nan))
        rows.append(
            (
                o,
                "standard error of the mean",
                float(ok.std(ddof=1) / np.sqrt(ok.size)) if ok.size > 1 else np.nan,
            )
        )
        if o == "npv":
            rows.append((o, "P(NPV > 0)", float(np.mean(ok > 0))))
        pct = np.percentile(ok, PERCENTILES) if ok.size else np.full(len(PERCENTILES), np.nan)
        rows += [(o, f"P{q}", float(v)) for q, v in zip(PERCENTILES, pct, strict=True)]
    return pd.DataFrame(rows, columns=["output", "statistic", "value"])


def histogram(y: np.ndarray, bins: int = 40) -> pd.DataFrame:
    """Counts and cumulative share of finite values: the histogram and S-curve of the workbook."""
    y = y[np.isfinite(y)]
    counts, edges = np.histogram(y, bins=bins)
    mid = (edges[:-1] + edges[1:]) / 2
    return pd.DataFrame(
        {
            "bin_low": edges[:-1],
            "bin_high": edges[1:],
            "bin_mid": mid,
            "count": counts,
            "cumulative_share": np.cumsum(counts) / max(1, y.size),
        }
    )
