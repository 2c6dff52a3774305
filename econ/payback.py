"""Cash flows, payback, NPV, IRR, terminal value and goal seek (docs/model.md, section 6).

Cash flows have shape (N, H) (a 1-D array is one scenario); each falls at the
end of its period t = 1..H. Failure the caller may expect is a value: no
payback within the horizon is NaN, an IRR of flows without a unique root (or
that do not change sign) is NaN.

The IRR is reported only where the flows have a unique root by one of two criteria
(docs/model.md, section 6): Descartes' rule of signs (the flows change sign once, from
money out to money in) or Norstrom's (their cumulative sum changes sign once, from
negative to positive); elsewhere "no meaningful IRR (financing-type or multiple-root
flows)". The MIRR (Excel's MIRR at the discount rate) is reported beside it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import brentq

Array = NDArray[np.float64]


def payback_month(flows: ArrayLike, cumulative: ArrayLike | None = None) -> Array:
    """Payback month as the lasting recovery (docs/model.md, section 6), shape (N,).

    With K the cumulative sum of ``flows`` (N, H) (K_0 = 0): 0 where K_t >= 0 in every month;
    NaN where K_H < 0 (cumulative cash ends short); otherwise, with L the last month with
    K_L < 0, the interpolated crossing L + (-K_L) / CF_(L+1). A path that recovers, dips
    again and ends short has no payback; one that dips after its first recovery but ends
    recovered pays back at its last crossing. ``cumulative`` is K where already computed.
    Computed with months down (the transposes are views of the model's time-major arrays).
    """
    f = np.atleast_2d(np.asarray(flows, float)).T
    k = (
        np.cumsum(f, axis=0)
        if cumulative is None
        else np.atleast_2d(np.asarray(cumulative, float)).T
    )
    h, n = k.shape
    neg = k < 0
    last = h - 1 - np.argmax(neg[::-1], axis=0)  # 0-based index of the last K_t < 0
    cols = np.arange(n)
    nxt = np.minimum(last + 1, h - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        crossing = (last + 1) + (-k[last, cols]) / f[nxt, cols]
    return np.where(~neg.any(axis=0), 0.0, np.where(k[-1] < 0, np.nan, crossing))


def running_last_negative(k: Array, t: Array) -> Array:
    """L_t: the last month up to t in which cumulative cash K is below zero (0 if none yet),
    time-major (H, N); ``t`` holds the month numbers (H,). Payback uses L_H."""
    return np.maximum.accumulate(np.where(k < 0, t[:, None], 0.0), axis=0)


def terminal_value(
    incremental_pro: ArrayLike,
    margin: ArrayLike,
    churn: ArrayLike,
    extra_churn: ArrayLike,
    rate_annual: ArrayLike,
) -> Array:
    """TV [USD at H]: the Pro tail after the horizon, dP_H x m_H x (1 - c) / (r_m + c).

    ``margin`` is m_H, the net monthly margin of one incremental subscriber at H [USD/month];
    c = churn + extra churn [1/month] (the tier is gone by then); r_m = (1 + r)^(1/12) - 1.
    """
    c = np.asarray(churn, float) + np.asarray(extra_churn, float)
    r_m = np.expm1(np.log1p(np.asarray(rate_annual, float)) / 12.0)
    return np.asarray(incremental_pro, float) * np.asarray(margin, float) * (1.0 - c) / (r_m + c)


# The IRR is solved in y = ln(1 + x), where the NPV is a sum of exponentials
# sum c_t e^(-t y) that Newton's method handles well. A grid in y covers per-period
# rates from -95 % to +10,000 % and includes y = 0 (a zero rate); it is 0.01 fine
# within +-0.2 of zero, where monthly rates of real deals lie and where two roots
# close to each other (a deal whose flows change sign twice) must both be seen.
# Roots closer than one grid step to each other can still be missed.
_Y = np.unique(
    np.round(
        np.concatenate(
            [
                np.linspace(np.log(0.05), -0.2, 16),
                np.linspace(-0.2, 0.2, 41),
                np.linspace(0.2, np.log(101.0), 40),
            ]
        ),
        12,
    )
)
# The root nearest zero is the nearer of two: the first sign change below zero (intervals
# whose rates are all <= 0, nearest first) and the first above it (all >= 0, nearest first).
_BELOW = np.flatnonzero(_Y[1:] <= 0)[::-1]
_ABOVE = np.flatnonzero(_Y[:-1] >= 0)
# how far each interval's nearer end lies from a rate of zero, as a rate
_NEAR = np.minimum(np.abs(np.expm1(_Y[:-1])), np.abs(np.expm1(_Y[1:])))


IRR_GRID = _Y  # the rates ln(1 + x) at which the IRR's present value is tabulated
BISECTION_STEPS = 40  # the spreadsheet's IRR: from a grid interval <= 0.11 wide to < 1e-13


@dataclass(frozen=True)
class Bisection:
    """Bisection of one grid interval: its index j, and at each step lo, hi, the present value
    at lo, mid and the present value at mid; y, the root's ln(1 + x)."""

    interval: int
    lo: Array
    hi: Array
    f_lo: Array
    mid: Array
    f_mid: Array
    y: float


@dataclass(frozen=True)
class IrrTrace:
    """The IRR as the workbook solves it, for one row of flows: the present value on the
    grid; the first interval below zero and the first above it whose ends differ in sign,
    each bisected; the nearer of the two roots to zero.

    pv : sum c_t e^(-t y) at each grid rate y [USD]; below, above : the two bisections (None
    where that side has no sign change); y : the root's ln(1 + x) (NaN: none).
    """

    pv: Array
    below: Bisection | None
    above: Bisection | None
    y: float

    @property
    def interval(self) -> int | None:
        """The grid interval of the root (None: no root)."""
        chosen = self.chosen
        return None if chosen is None else chosen.interval

    @property
    def chosen(self) -> Bisection | None:
        sides = [b for b in (self.below, self.above) if b is not None]
        if not sides:
            return None
        return min(sides, key=lambda b: abs(np.expm1(b.y)))


def _bisect(f: Array, pv: Array, j: int, steps: int) -> Bisection:
    t = np.arange(1, f.size + 1, dtype=float)
    lo, hi, f_lo = _Y[j], _Y[j + 1], pv[j]
    out = np.empty((5, steps))
    for k in range(steps):
        mid = 0.5 * (lo + hi)
        f_mid = float(np.sum(f * np.exp(-t * mid)))
        out[:, k] = (lo, hi, f_lo, mid, f_mid)
        if (f_mid > 0) == (f_lo > 0):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
    return Bisection(j, *out, y=float(0.5 * (lo + hi)))


def irr_trace(flows: ArrayLike, steps: int = BISECTION_STEPS) -> IrrTrace:
    """The workbook's IRR algorithm for one row of flows (periods 1..n), step by step. It finds
    the same root as :func:`irr` (the nearer to zero of the first roots below and above zero)
    by bisection; tests check that the two agree."""
    f = np.asarray(flows, float)
    pv = f @ _discount_table(f.size)
    pos = pv > 0
    change = (pos[1:] != pos[:-1]) | (pv[:-1] == 0)
    if not ((f > 0).any() and (f < 0).any()):
        return IrrTrace(pv, None, None, np.nan)
    sides = []
    for order in (_BELOW, _ABOVE):
        hits = order[change[order]]
        sides.append(_bisect(f, pv, int(hits[0]), steps) if hits.size else None)
    trace = IrrTrace(pv, sides[0], sides[1], np.nan)
    chosen = trace.chosen
    return IrrTrace(pv, sides[0], sides[1], np.nan if chosen is None else chosen.y)


@lru_cache(maxsize=16)
def _discount_table(n: int) -> Array:
    """e^(-t y) for t = 1..n and every grid point y: shape (n, G)."""
    t = np.arange(1, n + 1, dtype=float)[:, None]
    return np.exp(-t * _Y[None, :])


NO_IRR = "no meaningful IRR (financing-type or multiple-root flows)"
NO_MIRR = "no MIRR (the flows have no money out or no money in)"
NO_SIGN_CHANGE = "no IRR (the flows never change sign)"


def _once_negative_to_positive(x: Array) -> Array:
    """Rows of x (N, n) whose nonzero entries change sign exactly once, from negative to
    positive: some negative, some positive, every negative before every positive."""
    n = x.shape[1]
    t = np.arange(1, n + 1)
    last_neg = np.where(x < 0, t, 0).max(axis=1)
    first_pos = np.where(x > 0, t, n + 1).min(axis=1)
    return (last_neg > 0) & (first_pos <= n) & (last_neg < first_pos)


def irr_unique(flows: ArrayLike) -> Array:
    """Where the IRR of ``flows`` (n,) or (N, n) is unique and means a rate of return:
    the flows change sign once, from money out to money in (Descartes' rule of signs: one
    root), or their cumulative sum changes sign once, from negative to positive (Norstrom
    1972: one root). Flows that take money in first and pay it back later (a borrowing)
    have a unique root too, but a higher rate is worse there: not a rate of return.
    Returns a bool (N,) (a bool for 1-D input)."""
    f = np.atleast_2d(np.asarray(flows, float))
    ok = _once_negative_to_positive(f) | _once_negative_to_positive(np.cumsum(f, axis=1))
    return ok if np.ndim(flows) > 1 else bool(ok[0])


def mirr(flows: ArrayLike, rate: ArrayLike) -> Array:
    """Excel's MIRR({0, CF_1, ..., CF_n}, r, r) per period, vectorised: the inflows
    compounded to n at r, the outflows discounted to 0 at r,
    (FV(inflows) / -PV(outflows))^(1/n) - 1. MIRR > r exactly when the NPV at r is > 0.

    flows : (n,) or (N, n), at the end of periods 1..n; rate : per period, scalar or (N,).
    NaN where the flows have no outflow or no inflow (Excel: #DIV/0!)."""
    f = np.atleast_2d(np.asarray(flows, float))
    n = f.shape[1]
    r = np.broadcast_to(np.asarray(rate, float), (f.shape[0],))[:, None]
    t = np.arange(1, n + 1)[None, :]
    lr = np.log1p(r)
    pv_out = -_row_sums(np.where(f < 0, f, 0.0) * np.exp(-t * lr))
    fv_in = _row_sums(np.where(f > 0, f, 0.0) * np.exp((n - t) * lr))
    with np.errstate(divide="ignore", invalid="ignore"):
        x = np.expm1((np.log(fv_in) - np.log(pv_out)) / n)
    x = np.where((pv_out > 0) & (fv_in > 0), x, np.nan)
    return x if np.ndim(flows) > 1 else float(x[0])


def _row_sums(x: Array) -> Array:
    """Each row's sum, added column by column: a row's sum never depends on the other rows
    it is computed with (numpy's ``sum(axis=1)`` orders the additions by the array's shape,
    so the last bits would change with the chunk size)."""
    total = np.zeros(x.shape[0])
    for column in x.T:
        total += column
    return total


def irr(
    flows: ArrayLike, tol: float = 1e-10, max_iter: int = 60, unique_only: bool = True
) -> Array:
    """Per-period internal rate of return x with sum CF_t (1 + x)^(-t) = 0, vectorised.

    Parameters
    ----------
    flows : (n,) or (N, n), cash at the end of periods 1..n.
    tol : convergence of y = ln(1 + x), absolute.

    unique_only : NaN unless the root is unique and a rate of return (:func:`irr_unique`);
        False: any flows, the root nearest zero.

    Returns (N,) (a float for 1-D input): NaN where the flows do not change
    sign or no root lies in (-95 %, +10,000 %) per period; where there are
    several roots (unique_only=False), the one nearest zero. The present value at
    the returned rate is within 1e-9 of the flows' scale (max |CF_t|), the tolerance
    numpy-financial's own tests ask of its IRR. The NPV is tabulated on a grid of rates
    (one matrix product for all scenarios); the first sign change below zero and
    the first above it bracket the two candidates, and Newton's method in
    ln(1 + x), kept inside the bracket by Illinois false position, polishes the
    nearer one (and the other where it may be nearer still).
    """
    f = np.atleast_2d(np.asarray(flows, float))
    n_s, n = f.shape
    out = np.full(n_s, np.nan)
    eligible = (f > 0).any(axis=1) & (f < 0).any(axis=1)
    if unique_only:
        eligible &= irr_unique(f)
    rows = np.flatnonzero(eligible)
    if rows.size:
        fs = f if rows.size == n_s else f[rows]
        vals = _tabulate(fs)  # (M, G)
        pos = vals > 0
        change = (pos[:, 1:] != pos[:, :-1]) | (vals[:, :-1] == 0)
        m = np.arange(rows.size)
        # the first sign change on each side of zero (-1: none on that side)
        first = []
        for order in (_BELOW, _ABOVE):
            hit = change[:, order]
            k = np.argmax(hit, axis=1)
            first.append(np.where(hit[m, k], order[k], -1))
        below, above = first
        # polish the side whose interval starts nearer zero ...
        near_b = np.where(below >= 0, _NEAR[below], np.inf)
        near_a = np.where(above >= 0, _NEAR[above], np.inf)
        j = np.where(near_b <= near_a, below, above)
        ok = j >= 0
        x = np.full(rows.size, np.nan)
        x[ok] = np.expm1(_root_in(fs[ok], j[ok], tol, max_iter))
        # ... and the other where its interval starts nearer zero than that root
        other = np.where(near_b <= near_a, above, below)
        near_o = np.where(other >= 0, _NEAR[other], np.inf)
        again = ok & (near_o < np.abs(x))
        if again.any():
            x2 = np.expm1(_root_in(fs[again], other[again], tol, max_iter))
            x[again] = np.where(np.abs(x2) < np.abs(x[again]), x2, x[again])
        out[rows] = _refine(fs, x)
    return out if np.ndim(flows) > 1 else out[0]


def _refine(fs: Array, x: Array, rounds: int = 8) -> Array:
    """Newton steps in y = ln(1 + x), row by row, for as long as each lowers the row's |PV|
    (at most ``rounds``): the root is polished to the rounding of the present value itself,
    as numpy-financial's tests ask of an IRR. A row stops at its first step that does not
    help, whatever the other rows do, so that its result never depends on them."""
    ok = np.isfinite(x)
    if not ok.any():
        return x
    x = x.copy()
    idx = np.flatnonzero(ok)
    y = np.log1p(x[idx])
    f = fs[idx]
    p, dp = _npv_and_slope(f, y)
    for _ in range(rounds):
        with np.errstate(divide="ignore", invalid="ignore"):
            y_new = y - p / dp
        live = (p != 0) & np.isfinite(y_new)
        p_new, dp_new = _npv_and_slope(f, np.where(live, y_new, y))
        better = live & (np.abs(p_new) < np.abs(p))
        x[idx[better]] = np.expm1(y_new[better])
        if not better.all():
            keep = better
            idx, y, p, dp, f = idx[keep], y_new[keep], p_new[keep], dp_new[keep], f[keep]
            if not idx.size:
                break
        else:
            y, p, dp = y_new, p_new, dp_new
    return x


# e^(-y) at the grid's points, for Horner's scheme there
_V = np.exp(-_Y)
# |present value| below this share of sum |c_t| e^(-t y) may have the other sign in a matrix
# product (BLAS rounds differently by the rows around; its error is below 60 x 1.1e-16)
_UNSURE = 1e-12


def _tabulate(fs: Array) -> Array:
    """The present value of each row of fs (M, n) at every grid point (M, G), its signs
    (where it changes sign) the same whatever other rows it is tabulated with: a matrix
    product, and Horner's scheme (:func:`_pv_grid`) for the rows where the product is too
    close to zero to be sure of a sign."""
    table = _discount_table(fs.shape[1])
    vals = fs @ table
    unsure = (np.abs(vals) <= _UNSURE * (np.abs(fs) @ table)).any(axis=1)
    if unsure.any():
        few = fs[unsure]
        g = np.broadcast_to(np.arange(_Y.size), (few.shape[0], _Y.size))
        vals[unsure] = _pv_grid(np.repeat(few, _Y.size, axis=0), g.reshape(-1)).reshape(g.shape)
    return vals


def _pv_grid(fs: Array, j: Array) -> Array:
    """sum_t c_t e^(-t y) of each row of fs (M, n) at the grid's point j (M,), by Horner's
    scheme: additions and multiplications in the row alone (the same bits in any chunk)."""
    v = _V[j]
    coef = np.ascontiguousarray(fs[:, ::-1].T)
    q = coef[0].copy()
    for c in coef[1:]:
        q *= v
        q += c
    return v * q


def _root_in(fs: Array, j: Array, tol: float, max_iter: int) -> Array:
    """The root y of each row's present value in its grid interval j (its ends differ in sign)."""
    # a third grid point beside the bracket for an inverse quadratic first guess
    j2 = np.where(j + 2 < _Y.size, j + 2, j - 1)
    # the present values at the three points again, by Horner's scheme: the matrix product
    # that found the bracket may differ in the last bits with the number of rows
    f0, f1, f2 = (_npv_and_slope(fs, _Y[k])[0] for k in (j, j + 1, j2))
    start = _inverse_quadratic(_Y[j], _Y[j + 1], _Y[j2], f0, f1, f2)
    return _polish(fs, f0, f1, _Y[j], _Y[j + 1], start, tol, max_iter)


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


def irr_flows_of(r) -> Array:
    """The flows of the IRR and the MIRR (N, H) from model results ``r`` (any detail): CF_t,
    with the terminal value at H where it is included (read off NPV - NPV without it)."""
    f = np.array(r.net_cash_flow, float)
    d_h = np.asarray(r.discount, float)[:, -1]
    with np.errstate(divide="ignore", invalid="ignore"):
        tv = (np.asarray(r.npv, float) - np.asarray(r.npv_without_terminal_value, float)) / d_h
    f[:, -1] += np.where(np.isfinite(tv), tv, 0.0)
    return f


def mirr_annual_of(r) -> Array:
    """The annualised MIRR (N,) of model results ``r``: Excel's MIRR({0, CF_1, ..., CF_H + TV},
    r_m, r_m) with r_m the monthly discount rate, as (1 + x)^12 - 1 (docs/model.md, section 6)."""
    rate = 1.0 / np.asarray(r.discount, float)[:, 0] - 1.0  # d_1 = (1 + r_m)^-1
    return annualise(mirr(irr_flows_of(r), rate))


def irr_note_of(r) -> list[str | None]:
    """Why each scenario of ``r`` has no IRR (None where it has one)."""
    f = irr_flows_of(r)
    ok = irr_unique(f)
    has = np.isfinite(np.asarray(r.irr_annual, float))
    sign = (f > 0).any(axis=1) & (f < 0).any(axis=1)
    out: list[str | None] = []
    for h, u, s in zip(has, ok, sign, strict=True):
        if h:
            out.append(None)
        elif not s:
            out.append(NO_SIGN_CHANGE)
        elif not u:
            out.append(NO_IRR)
        else:
            out.append(
                "no IRR: no rate from -95 % to +10,000 % a month brings the present value to zero"
            )
    return out


@dataclass(frozen=True)
class GoalSeek:
    """The value of a key at which a target function crosses zero.

    value : None where no value in the range gets there (``message`` says why); then
    ``side`` is "above" or "below" where the target stays on one side of zero over the range,
    and ``target_range`` the lowest and highest target values found (in the target's unit:
    USD for NPV, months for payback minus the term)."""

    key: str
    target: str
    value: float | None
    bracket: tuple[float, float]
    base: float
    message: str
    side: str | None = None
    target_range: tuple[float, float] | None = None

    @property
    def reached(self) -> bool:
        """Whether a value in the range reaches the target."""
        return self.value is not None

    def __str__(self) -> str:
        return self.message


def _target_text(target: str, x: float) -> str:
    """A value of the goal seek's target, by its unit: NPV in money, a payback in months."""
    from econ.formatting import money, months

    return money(x) if target.lower().startswith("npv") else f"{months(x)} months"


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
        from econ.formatting import key_value

        side = "above" if np.nanmin(ys) > 0 else "below"
        y0, y1 = float(np.nanmin(ys)), float(np.nanmax(ys))
        return GoalSeek(
            key,
            target,
            None,
            (lo, hi),
            base,
            f"no value of {key} from {key_value(key, lo)} to {key_value(key, hi)} brings "
            f"{target} to zero: it stays {side} zero ({_target_text(target, y0)} to "
            f"{_target_text(target, y1)})",
            side,
            (y0, y1),
        )
    _, a, b = min(cands)
    if a == b:
        root = float(a)
    else:
        root = brentq(
            lambda x: float(f(np.array([x]))[0]), a, b, xtol=1e-12 * max(1.0, abs(a)), rtol=1e-10
        )
    from econ.formatting import key_value

    return GoalSeek(
        key, target, root, (lo, hi), base, f"{target} is zero at {key} = {key_value(key, root)}"
    )
