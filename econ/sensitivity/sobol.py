"""Global sensitivity: Sobol first-order and total indices with bootstrap confidence intervals.

Saltelli's scheme: matrices A and B (n x d) from a scrambled Sobol sequence,
and AB_i (A with column i from B): n (d + 2) evaluations. First-order indices
by Saltelli (2010), total indices by Jansen (1999). Confidence intervals from a
vectorised bootstrap over resampled row indices (all resamples in one array
operation). Inputs are treated as independent (rank correlations are not used).

An output that does not vary has indices of exactly 0 with intervals of zero
width (as SALib and scipy report), without a warning. The evaluations can be
spread over worker processes with the same result for any worker count.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import qmc

from econ.parallel import check_workers, map_ordered, tick
from econ.sensitivity.sample_warnings import sobol_warnings
from econ.sensitivity.sampling import Problem

Func = Callable[[Mapping[str, np.ndarray]], Mapping[str, np.ndarray]]
# a variance below this share of the mean square is rounding, not variation: the output does not vary
ZERO_VARIANCE = 1e-10


def sample(problem: Problem, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Uniform matrices A and B, each (n, d); warns where n is not a power of two."""
    if n < 2 or n & (n - 1):
        warnings.warn(
            f"Sobol sample size n={n} is not a power of two; the sequence loses its balance properties",
            UserWarning,
            stacklevel=2,
        )
    d = problem.d
    m = max(1, int(np.ceil(np.log2(n))))
    u = qmc.Sobol(d=2 * d, scramble=True, rng=np.random.default_rng(seed)).random_base2(m)[:n]
    return u[:, :d], u[:, d:]


@dataclass
class _Rows:
    """Evaluates rows start..stop - 1 of the stacked design [A; B; AB_1; ...; AB_d] (whole chunks)."""

    f: Func
    problem: Problem
    a: np.ndarray
    b: np.ndarray
    output: str
    chunk: int

    def design(self, start: int, stop: int) -> np.ndarray:
        """Uniforms of rows start..stop - 1: row r is row r mod n of A (r < n), of B (r < 2n),
        or of A with column i from B (AB_i, i = r // n - 2)."""
        n = self.a.shape[0]
        r = np.arange(start, stop)
        blk, row = r // n, r % n
        u = np.where((blk == 1)[:, None], self.b[row], self.a[row])
        ab = blk >= 2
        u[ab, blk[ab] - 2] = self.b[row[ab], blk[ab] - 2]
        return u

    def __call__(self, span: tuple[int, int]) -> np.ndarray:
        start, stop = span
        y = np.empty(stop - start)
        for s in range(start, stop, self.chunk):
            e = min(s + self.chunk, stop)
            x = self.problem.transform(self.design(s, e))
            y[s - start : e - start] = np.asarray(self.f(x)[self.output], float)
            tick(e - s)  # progress, chunk by chunk, from a worker too
        return y


def evaluate(
    f: Func,
    problem: Problem,
    a: np.ndarray,
    b: np.ndarray,
    output: str,
    chunk: int = 8_192,
    nan_as: float | None = None,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """f(A), f(B) and f(AB_i) for every i: shapes (n,), (n,), (d, n). NaN outputs become ``nan_as``.

    The n (d + 2) rows are evaluated ``chunk`` at a time, the chunks spread over
    ``workers`` processes (see :func:`econ.parallel.map_ordered`: with more than one
    worker, ``f`` must be picklable where the fork start method is not used); the
    result is the same to the last bit for any worker count. ``progress(done, total)`` is
    called in this process after each chunk (rows evaluated, of n (d + 2)).
    """
    check_workers(workers)
    n, d = a.shape
    total = n * (d + 2)
    n_chunks = -(-total // chunk)
    per = n_chunks if workers == 1 else max(1, -(-n_chunks // (4 * workers)))
    step = per * chunk
    spans = [(s, min(s + step, total)) for s in range(0, total, step)]
    done = 0

    def advance(units: int) -> None:
        nonlocal done
        done += units
        progress(done, total)

    rows = _Rows(f, problem, a, b, output, chunk)
    y = np.concatenate(
        list(map_ordered(rows, spans, workers, progress=advance if progress else None))
    )
    if nan_as is not None:
        y = np.where(np.isnan(y), nan_as, y)
    return y[:n], y[n : 2 * n], y[2 * n :].reshape(d, n)


def indices(fa: np.ndarray, fb: np.ndarray, fab: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """S1 and ST of each variable from fa, fb (n,) and fab (d, n)."""
    w = np.ones((1, fa.shape[0]))
    s1, st = _weighted(w, fa, fb, fab)
    return s1[:, 0], st[:, 0]


def _weighted(
    w: np.ndarray, fa: np.ndarray, fb: np.ndarray, fab: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Indices under row weights w (R, n): each row of w is one (re)sample's counts.

    Every estimator is a weighted mean of a per-row statistic, so all R
    resamples come from one matrix product w @ M, without gathering rows.
    """
    c = 0.5 * (fa.mean() + fb.mean())  # centre the output, as SALib does
    a, b, ab = fa - c, fb - c, fab - c
    d = ab.shape[0]
    m = np.column_stack([a, b, a * a, b * b, (b * (ab - a)).T, ((a - ab) ** 2).T])  # (n, 4 + 2d)
    n_w = w.sum(axis=1, keepdims=True)
    e = (w @ m) / n_w  # (R, 4 + 2d) weighted means
    mean = 0.5 * (e[:, 0] + e[:, 1])
    square = 0.5 * (e[:, 2] + e[:, 3])
    var = square - mean**2
    # an output that does not vary (within the rounding of this formula) has indices of 0
    varies = (var > ZERO_VARIANCE * square)[:, None]
    scale = np.where(varies, 1 / np.where(varies[:, 0], var, 1.0)[:, None], 0.0)
    s1 = e[:, 4 : 4 + d] * scale
    st = 0.5 * e[:, 4 + d :] * scale
    return s1.T, st.T  # (d, R)


def analyse(
    fa: np.ndarray,
    fb: np.ndarray,
    fab: np.ndarray,
    names: list[str],
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> pd.DataFrame:
    """Tidy frame: variable, S1, S1_low, S1_high, ST, ST_low, ST_high (percentile bootstrap).

    The bootstrap draws ``n_resamples`` resamples of the n rows; each is a row
    of counts, and all are evaluated in one matrix product. ``attrs["warnings"]`` lists the
    figures the sample is too small for (:mod:`econ.sensitivity.sample_warnings`: S1 above ST
    beyond the interval of S1 - ST, an index whose interval lies below zero), else [].
    """
    s1, st = indices(fa, fb, fab)
    rng = np.random.default_rng(seed)
    n = fa.shape[0]
    d = fab.shape[0]
    b1 = np.empty((d, n_resamples))
    bt = np.empty((d, n_resamples))
    batch = max(
        1, min(n_resamples, 2**21 // n)
    )  # resamples per batch: bounded, cache-friendly memory
    offsets = np.arange(batch)[:, None] * n
    for s in range(0, n_resamples, batch):
        k = min(batch, n_resamples - s)
        idx = rng.integers(0, n, size=(k, n), dtype=np.int64) + offsets[:k]
        w = np.bincount(idx.ravel(), minlength=k * n).reshape(k, n).astype(float)
        b1[:, s : s + k], bt[:, s : s + k] = _weighted(w, fa, fb, fab)
    lo_q, hi_q = 50 * (1 - confidence), 50 * (1 + confidence)
    df = pd.DataFrame(
        {
            "variable": names,
            "S1": s1,
            "S1_low": np.percentile(b1, lo_q, axis=1),
            "S1_high": np.percentile(b1, hi_q, axis=1),
            "ST": st,
            "ST_low": np.percentile(bt, lo_q, axis=1),
            "ST_high": np.percentile(bt, hi_q, axis=1),
        }
    )
    excess = np.percentile(b1 - bt, [lo_q, hi_q], axis=1)  # S1 - ST, on the same resamples
    df.attrs["warnings"] = sobol_warnings(
        list(names),
        s1,
        st,
        (df["S1_low"].to_numpy(), df["S1_high"].to_numpy()),
        (df["ST_low"].to_numpy(), df["ST_high"].to_numpy()),
        (excess[0], excess[1]),
    )
    return df
