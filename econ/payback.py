"""Cash flows, payback, NPV, IRR and goal seek (MODEL.md section 6).

Cash flows have shape (N, H) (a 1-D array is one scenario); each falls at the
end of its period t = 1..H. Failure the caller may expect is a value: no
payback within the horizon is NaN, an IRR of flows that do not change sign is
NaN.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

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


def _crossings(f: Array) -> tuple[Array, Array]:
    """Time-major flows (H, N) -> (crossing months (H, N), NaN where none; cumulative cash K (H, N))."""
    k = np.cumsum(f, axis=0)
    out = np.empty_like(f)
    out[0] = np.nan  # K_0 = 0 is not below zero: month 1 never crosses
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(k[:-1], f[1:], out=out[1:])
        np.subtract(
            np.arange(1, f.shape[0], dtype=float)[:, None], out[1:], out=out[1:]
        )  # (t-1) - K/CF
    out[1:][~((k[:-1] < 0) & (k[1:] >= 0))] = np.nan
    return out, k


def crossing_months(flows: ArrayLike) -> Array:
    """For each month t with K_(t-1) < 0 <= K_t, the interpolated crossing (t - 1) + (-K_(t-1)) / CF_t;
    NaN in every other month. Shape (N, H), like ``flows``; K_0 = 0, so month 1 never crosses.

    The crossings of a row increase with t, so the first one is the smallest.
    """
    return _crossings(np.atleast_2d(np.asarray(flows, float)).T)[0].T


def payback_month(flows: ArrayLike) -> Array:
    """The first month t with K_(t-1) < 0 <= K_t, interpolated: (t - 1) + (-K_(t-1)) / CF_t.

    K is the cumulative sum of ``flows`` (N, H), K_0 = 0. NaN where cumulative
    cash never recovers within the horizon; 0 where it is never negative.
    """
    crossings, k = _crossings(np.atleast_2d(np.asarray(flows, float)).T)  # time-major
    first = np.fmin.reduce(crossings, axis=0)  # NaN only where no month crosses
    return np.where((k >= 0).all(axis=0), 0.0, first)


def shortfall(flows: ArrayLike) -> Array:
    """How far cumulative cash is below zero at the horizon [USD]; 0 where it is not."""
    return np.maximum(0.0, -np.atleast_2d(np.asarray(flows, float)).sum(axis=1))


# The IRR is solved in y = ln(1 + x), where the NPV is a sum of exponentials
# sum c_t e^(-t y) that Newton's method handles well. A grid uniform in y covers
# per-period rates from -95 % to +10,000 % and includes y = 0 (a zero rate).
_Y = np.concatenate([np.linspace(np.log(0.05), 0.0, 31), np.linspace(0.0, np.log(101.0), 47)[1:]])
# grid intervals ordered by how far their rates lie from zero (the interval at zero first)
_Y_ORDER = np.argsort(
    np.minimum(np.abs(np.expm1(_Y[:-1])), np.abs(np.expm1(_Y[1:]))), kind="stable"
)


@lru_cache(maxsize=16)
def _discount_table(n: int) -> Array:
    """e^(-t y) for t = 1..n and every grid point y: shape (n, G)."""
    t = np.arange(1, n + 1, dtype=float)[:, None]
    return np.exp(-t * _Y[None, :])


def irr(flows: ArrayLike, tol: float = 1e-10, max_iter: int = 60) -> Array:
    """Per-period internal rate of return x with sum CF_t (1 + x)^(-t) = 0, vectorised.

    Parameters
    ----------
    flows : (n,) or (N, n), cash at the end of periods 1..n.
    tol : convergence of y = ln(1 + x), absolute.

    Returns (N,) (a float for 1-D input): NaN where the flows do not change
    sign or no root lies in (-95 %, +10,000 %) per period; where there are
    several roots, the one nearest zero. The NPV is tabulated on a grid of rates
    (one matrix product for all scenarios), the sign change nearest zero
    brackets the root, and Newton's method in ln(1 + x), kept inside the bracket
    by Illinois false position, polishes it.
    """
    f = np.atleast_2d(np.asarray(flows, float))
    n_s, n = f.shape
    out = np.full(n_s, np.nan)
    rows = np.flatnonzero((f > 0).any(axis=1) & (f < 0).any(axis=1))
    if rows.size:
        fs = f if rows.size == n_s else f[rows]
        vals = fs @ _discount_table(n)  # (M, G)
        pos = vals > 0
        change = (pos[:, 1:] != pos[:, :-1]) | (vals[:, :-1] == 0)
        ordered = change[:, _Y_ORDER]
        k = np.argmax(ordered, axis=1)
        m = np.arange(rows.size)
        ok = ordered[m, k]
        j = _Y_ORDER[k[ok]]
        mo = m[ok]
        f0, f1 = vals[mo, j], vals[mo, j + 1]
        # a third grid point beside the bracket for an inverse quadratic first guess
        j2 = np.where(j + 2 < _Y.size, j + 2, j - 1)
        start = _inverse_quadratic(_Y[j], _Y[j + 1], _Y[j2], f0, f1, vals[mo, j2])
        y = _polish(fs[ok], f0, f1, _Y[j], _Y[j + 1], start, tol, max_iter)
        out[rows[ok]] = np.expm1(y)
    return out if np.ndim(flows) > 1 else out[0]


def _npv_and_slope(fs: Array, y: Array) -> tuple[Array, Array]:
    """sum_t c_t e^(-t y) and its derivative in y for each row of fs (M, n), by Horner's scheme.

    Only additions and multiplications per row, so a row's result never depends on
    the other rows it is computed with (chunk sizes do not change the numbers).
    """
    v = np.exp(-y)
    coef = np.ascontiguousarray(fs[:, ::-1].T)  # (n, M): c_n .. c_1, one contiguous row per period
    # Q(v) = c_1 + c_2 v + ... + c_n v^(n-1); NPV = v Q(v), dNPV/dy = -v (Q + v Q')
    q = coef[0].copy()
    dq = np.zeros_like(y)
    for c in coef[1:]:  # in place: two arrays, no temporaries
        dq *= v
        dq += q
        q *= v
        q += c
    return v * q, -v * (q + v * dq)


def _inverse_quadratic(y0: Array, y1: Array, y2: Array, f0: Array, f1: Array, f2: Array) -> Array:
    """The y where the quadratic through (f_i, y_i) meets f = 0; the secant of the first two
    points where that falls outside [y0, y1]."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        iq = (
            y0 * f1 * f2 / ((f0 - f1) * (f0 - f2))
            + y1 * f0 * f2 / ((f1 - f0) * (f1 - f2))
            + y2 * f0 * f1 / ((f2 - f0) * (f2 - f1))
        )
        secant = np.where(f1 != f0, (y0 * f1 - y1 * f0) / (f1 - f0), 0.5 * (y0 + y1))
    return np.where((iq > y0) & (iq < y1), iq, secant)


def _polish(
    fs: Array,
    f_lo: Array,
    f_hi: Array,
    lo: Array,
    hi: Array,
    start: Array,
    tol: float,
    max_iter: int,
) -> Array:
    """Root in y of sum c_t e^(-t y) inside [lo, hi]: Newton steps that stay in the bracket,
    Illinois false position otherwise; rows leave the iteration once converged."""
    res = np.empty(fs.shape[0])
    idx = np.arange(fs.shape[0])
    side = np.zeros(fs.shape[0])  # which end moved last: -1 lo, +1 hi (Illinois)
    y = start
    for _ in range(max_iter):
        p, dp = _npv_and_slope(fs, y)
        low_side = (p > 0) == (f_lo > 0)
        f_hi = np.where(low_side & (side < 0), 0.5 * f_hi, f_hi)
        f_lo = np.where(~low_side & (side > 0), 0.5 * f_lo, f_lo)
        lo, f_lo = np.where(low_side, y, lo), np.where(low_side, p, f_lo)
        hi, f_hi = np.where(low_side, hi, y), np.where(low_side, f_hi, p)
        side = np.where(low_side, -1.0, 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            newton = y - p / dp
            false_pos = (lo * f_hi - hi * f_lo) / (f_hi - f_lo)
        false_pos = np.where((false_pos > lo) & (false_pos < hi), false_pos, 0.5 * (lo + hi))
        use_newton = (newton > lo) & (newton < hi)
        y_new = np.where(use_newton, newton, false_pos)
        step = np.abs(y_new - y)
        # Newton converges quadratically: after a step of s the error is about (g''/2g') s^2,
        # and |g''/g'| stays near the number of periods, so a Newton step below sqrt(tol / n)
        # already lands within tol: accept it without another evaluation.
        done = (
            (step <= tol)
            | (use_newton & (step * step * fs.shape[1] <= tol))
            | (p == 0)
            | (hi - lo <= tol)
        )
        y_new = np.where(p == 0, y, y_new)
        if done.any():
            res[idx[done]] = y_new[done]
            keep = ~done
            if not keep.any():
                return res
            idx, y_new, lo, hi, f_lo, f_hi, side, fs = (
                idx[keep],
                y_new[keep],
                lo[keep],
                hi[keep],
                f_lo[keep],
                f_hi[keep],
                side[keep],
                fs[keep],
            )
        y = y_new
    res[idx] = y
    return res


def annualise(monthly_rate: ArrayLike) -> Array:
    """(1 + x)^12 - 1."""
    return np.expm1(12.0 * np.log1p(np.asarray(monthly_rate, float)))


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
