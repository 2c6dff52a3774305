"""Cash flows, payback, NPV, IRR and goal seek (MODEL.md section 6).

Cash flows have shape (N, H) (a 1-D array is one scenario); each falls at the
end of its period t = 1..H. Failure the caller may expect is a value: no
payback within the horizon is NaN, an IRR of flows that do not change sign is
NaN.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import brentq

Array = NDArray[np.float64]


def npv(rate: ArrayLike, flows: ArrayLike) -> Array:
    """Net present value of flows at the END of periods 1..n, like Excel's NPV.

    Parameters
    ----------
    rate : per-period rate, scalar or (N,).
    flows : (n,) or (N, n).

    Excel's NPV(10%, -10000, 3000, 4200, 6800) = 1188.44 uses this timing;
    numpy-financial's ``npv`` discounts its first value at t = 0 instead.
    """
    f = np.atleast_2d(np.asarray(flows, float))
    r = np.atleast_1d(np.asarray(rate, float))[:, None]
    t = np.arange(1, f.shape[1] + 1)
    out = (f * (1 + r) ** (-t)).sum(axis=1)
    return out if np.ndim(flows) > 1 or np.ndim(rate) > 0 else out[0]


def payback_month(flows: ArrayLike) -> Array:
    """The first month t with K_(t-1) < 0 <= K_t, interpolated: (t - 1) + (-K_(t-1)) / CF_t.

    K is the cumulative sum of ``flows`` (N, H), K_0 = 0. NaN where cumulative
    cash never recovers within the horizon; 0 where it is never negative.
    """
    f = np.atleast_2d(np.asarray(flows, float))
    k = np.cumsum(f, axis=1)
    k_prev = np.concatenate([np.zeros((f.shape[0], 1)), k[:, :-1]], axis=1)
    cross = (k_prev < 0) & (k >= 0)
    has = cross.any(axis=1)
    i = np.argmax(cross, axis=1)
    rows = np.arange(f.shape[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        pb = i + (-k_prev[rows, i]) / f[rows, i]
    pb = np.where(has, pb, np.nan)
    return np.where((k >= 0).all(axis=1), 0.0, pb)


def shortfall(flows: ArrayLike) -> Array:
    """How far cumulative cash is below zero at the horizon [USD]; 0 where it is not."""
    return np.maximum(0.0, -np.atleast_2d(np.asarray(flows, float)).sum(axis=1))


# a grid of monthly rates on which to look for sign changes of the NPV
_IRR_GRID = np.unique(
    np.concatenate([-np.geomspace(0.95, 1e-5, 40), [0.0], np.geomspace(1e-5, 5.0, 60)])
)


def irr(flows: ArrayLike, tol: float = 1e-12, max_iter: int = 60) -> Array:
    """Per-period internal rate of return x with sum CF_t (1 + x)^(-t) = 0, vectorised.

    Parameters
    ----------
    flows : (n,) or (N, n), cash at the end of periods 1..n.

    Returns (N,) (a float for 1-D input): NaN where the flows do not change
    sign or no root lies in (-95 %, +500 %) per period; where there are several
    roots, the one nearest zero. The NPV is tabulated on a grid of rates (one
    matrix product for all scenarios), the sign change nearest zero brackets the
    root, and a safeguarded Newton/bisection iteration polishes it.
    """
    f = np.atleast_2d(np.asarray(flows, float))
    n_s, n = f.shape
    out = np.full(n_s, np.nan)
    changes = (f > 0).any(axis=1) & (f < 0).any(axis=1)
    if not changes.any():
        return out if np.ndim(flows) > 1 else out[0]
    fs = f[changes]
    scale = np.abs(fs).max(axis=1, keepdims=True)
    fs = fs / scale
    t = np.arange(1, n + 1, dtype=float)
    g = _IRR_GRID
    vals = fs @ ((1.0 + g[None, :]) ** (-t[:, None]))  # (M, G)
    sgn = np.sign(vals)
    brk = (sgn[:, :-1] * sgn[:, 1:] <= 0) & ~((sgn[:, :-1] == 0) & (sgn[:, 1:] == 0))
    # distance of each bracket from zero; pick the nearest
    dist = np.minimum(np.abs(g[:-1]), np.abs(g[1:]))
    dist = np.where((g[:-1] <= 0) & (g[1:] >= 0), 0.0, dist)
    score = np.where(brk, dist[None, :], np.inf)
    j = np.argmin(score, axis=1)
    ok = np.isfinite(score[np.arange(len(j)), j])
    fs, j = fs[ok], j[ok]
    lo, hi = g[j].copy(), g[j + 1].copy()
    f_lo = vals[ok][np.arange(len(j)), j]
    x = 0.5 * (lo + hi)
    act = np.arange(len(j))  # rows still iterating
    res_ok = np.empty(len(j))
    for _ in range(max_iter):
        xa, v = x[act], 1.0 / (1.0 + x[act])
        # Horner on Q(v) = c_1 + c_2 v + ... + c_n v^(n-1); NPV = v Q(v)
        q = np.zeros_like(xa)
        dq = np.zeros_like(xa)
        for c in fs[act][:, ::-1].T:
            dq = dq * v + q
            q = q * v + c
        p = v * q
        # d NPV / dx = (Q + v Q') dv/dx, with dv/dx = -v^2
        dval = -(q + v * dq) * v * v
        same = np.sign(p) == np.sign(f_lo[act])
        lo[act] = np.where(same, xa, lo[act])
        f_lo[act] = np.where(same, p, f_lo[act])
        hi[act] = np.where(same, hi[act], xa)
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = xa - p / dval
        inside = (newton > lo[act]) & (newton < hi[act]) & np.isfinite(newton)
        x_new = np.where(inside, newton, 0.5 * (lo[act] + hi[act]))
        done = (np.abs(x_new - xa) <= tol * (1 + np.abs(xa))) | (p == 0)
        x[act] = np.where(p == 0, xa, x_new)
        act = act[~done]
        if act.size == 0:
            break
    res_ok = x
    res = np.full(ok.shape, np.nan)
    res[ok] = res_ok
    out[changes] = res
    return out if np.ndim(flows) > 1 else out[0]


def annualise(monthly_rate: ArrayLike) -> Array:
    """(1 + x)^12 - 1."""
    return (1.0 + np.asarray(monthly_rate, float)) ** 12 - 1.0


@dataclass(frozen=True)
class GoalSeek:
    """The value of a key at which a target function crosses zero."""

    key: str
    target: str
    value: float | None
    bracket: tuple[float, float]
    base: float
    message: str


def goal_seek(
    f: Callable[[Array], Array],
    lo: float,
    hi: float,
    base: float,
    key: str = "x",
    target: str = "npv",
    points: int = 33,
) -> GoalSeek:
    """Find x in [lo, hi] with f(x) = 0 by bracketing root finding.

    ``f`` maps an array of candidate values (M,) to target values (M,) in one
    vectorised call. The range is scanned on ``points`` values; the sign change
    nearest ``base`` brackets the root, which Brent's method then solves.
    Where no sign change exists, the answer says so (value None).
    """
    xs = np.linspace(lo, hi, points)
    ys = np.asarray(f(xs), float)
    finite = np.isfinite(ys)
    if not finite.any():
        return GoalSeek(
            key, target, None, (lo, hi), base, "the target is undefined across the range"
        )
    sgn = np.sign(np.where(finite, ys, np.nan))
    exact = np.flatnonzero(sgn == 0)
    cands = [(abs(xs[i] - base), xs[i], xs[i]) for i in exact]
    for i in range(points - 1):
        if finite[i] and finite[i + 1] and sgn[i] * sgn[i + 1] < 0:
            cands.append((min(abs(xs[i] - base), abs(xs[i + 1] - base)), xs[i], xs[i + 1]))
    if not cands:
        side = "above" if np.nanmin(ys) > 0 else "below"
        return GoalSeek(
            key,
            target,
            None,
            (lo, hi),
            base,
            f"no value of {key} in [{lo:g}, {hi:g}] brings {target} to zero: it stays {side} zero "
            f"(from {np.nanmin(ys):,.4g} to {np.nanmax(ys):,.4g})",
        )
    _, a, b = min(cands)
    if a == b:
        root = float(a)
    else:
        root = brentq(
            lambda x: float(f(np.array([x]))[0]), a, b, xtol=1e-12 * max(1.0, abs(a)), rtol=1e-10
        )
    return GoalSeek(key, target, root, (lo, hi), base, f"{target} is zero at {key} = {root:.6g}")
