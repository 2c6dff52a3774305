"""The data frontier, users per MW, capacity online and agent latency (docs/model.md, sections 3.1,
3.5 and 3.6).

All arguments may be scalars or arrays of scenarios of shape (N,); monthly
results keep the layout of their arguments (the model passes months down and
scenarios across, (H, N)). Nothing here reads files.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

Array = NDArray[np.float64]

# A speed this close to a frontier end (relatively) counts as on the curve: it absorbs the
# rounding of a speed typed with fewer digits than the point it means.
COVER_RTOL = 1e-9


class FrontierRangeError(ValueError):
    """A per-user speed outside the speeds a platform's frontier points cover."""


def covers(point_speeds: ArrayLike, speed: ArrayLike) -> Array:
    """Whether a frontier with these points' speeds covers each speed (no extrapolation).

    The one definition of "does this platform's curve cover this speed": used by
    validation, the capacity tables and the interpolation itself.

    Parameters
    ----------
    point_speeds : (k,) the frontier points' per-user speeds [tokens/s/user], any order.
    speed : per-user speed [tokens/s/user], scalar or (N,).
    """
    xs = np.asarray(point_speeds, float)
    s = np.asarray(speed, float)
    lo, hi = xs.min(), xs.max()
    return (s >= lo * (1 - COVER_RTOL)) & (s <= hi * (1 + COVER_RTOL))


def pchip_slopes(x: Array, y: Array) -> Array:
    """Derivatives of the monotone piecewise-cubic Hermite interpolant (Fritsch-Carlson).

    Parameters
    ----------
    x : (k,) strictly increasing knots.
    y : (..., k) values at the knots; leading axes are scenarios.

    The same slopes as ``scipy.interpolate.PchipInterpolator`` (weighted
    harmonic mean inside, the three-point shape-preserving formula at the ends).
    """
    h = np.diff(x)
    m = np.diff(y, axis=-1) / h
    k = x.shape[0]
    if k == 2:
        return np.concatenate([m, m], axis=-1)
    d = np.zeros_like(y)
    sm = np.sign(m)
    flat = (sm[..., 1:] != sm[..., :-1]) | (m[..., 1:] == 0) | (m[..., :-1] == 0)
    w1 = 2 * h[1:] + h[:-1]
    w2 = h[1:] + 2 * h[:-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        whmean = (w1 / m[..., :-1] + w2 / m[..., 1:]) / (w1 + w2)
        d[..., 1:-1] = np.where(flat, 0.0, 1.0 / whmean)
    d[..., 0] = _pchip_edge(h[0], h[1], m[..., 0], m[..., 1])
    d[..., -1] = _pchip_edge(h[-1], h[-2], m[..., -1], m[..., -2])
    return d


def _pchip_edge(h0: float, h1: float, m0: Array, m1: Array) -> Array:
    d = ((2 * h0 + h1) * m0 - h0 * m1) / (h0 + h1)
    d = np.where(np.sign(d) != np.sign(m0), 0.0, d)
    return np.where((np.sign(m0) != np.sign(m1)) & (np.abs(d) > 3 * np.abs(m0)), 3 * m0, d)


def pchip_knots(point_speeds: ArrayLike, point_throughputs: ArrayLike) -> dict[str, Array]:
    """A frontier's knots in log-log space, sorted by speed: x = ln s, y = ln throughput, the
    interval widths h and secant slopes m to the next knot (NaN at the last), and the PCHIP
    slopes d. What the workbook's frontier block shows."""
    xs = np.asarray(point_speeds, float)
    order = np.argsort(xs)
    x = np.log(xs[order])
    y = np.log(np.asarray(point_throughputs, float)[order])
    pad = np.full(1, np.nan)
    if x.size == 1:
        return {"x": x, "y": y, "h": pad, "m": pad, "d": np.zeros(1)}
    h = np.diff(x)
    return {
        "x": x,
        "y": y,
        "h": np.concatenate([h, pad]),
        "m": np.concatenate([np.diff(y) / h, pad]),
        "d": pchip_slopes(x, y),
    }


def pchip_segment(x: Array, xq: ArrayLike) -> tuple[Array, Array]:
    """(i, t): the knot interval of each query, i = the last knot <= xq (the one before the
    last at the top end), and the position t = (xq - x_i) / (x_(i+1) - x_i) in it."""
    xq = np.asarray(xq, float)
    i = np.clip(np.searchsorted(x, xq, side="right") - 1, 0, x.shape[0] - 2)
    return i, (xq - x[i]) / (x[i + 1] - x[i])


def hermite(t: Array, h: Array, y0: Array, y1: Array, d0: Array, d1: Array) -> Array:
    """The cubic Hermite interpolant on one interval of width h at position t in [0, 1]."""
    t2 = t * t
    t3 = t2 * t
    return (
        (2 * t3 - 3 * t2 + 1) * y0
        + (t3 - 2 * t2 + t) * h * d0
        + (-2 * t3 + 3 * t2) * y1
        + (t3 - t2) * h * d1
    )


def pchip_eval(x: Array, y: Array, xq: ArrayLike) -> Array:
    """Evaluate the PCHIP interpolant through (x, y) at xq, vectorised over scenarios.

    x is (k,) increasing; y has shape (k,) or (N, k); xq is scalar or (N,) and must
    lie in [x[0], x[-1]]. The result broadcasts y's scenarios against xq's.
    """
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    d = pchip_slopes(x, y)
    i, t = pchip_segment(x, xq)

    def take(a: Array, j: Array) -> Array:
        if a.ndim == 1:
            return a[j]
        lead = np.broadcast_shapes(a.shape[:-1], np.shape(j))
        aa = np.broadcast_to(a, (*lead, a.shape[-1]))
        jj = np.broadcast_to(j, lead)
        return np.take_along_axis(aa, jj[..., None], axis=-1)[..., 0]

    return hermite(t, x[i + 1] - x[i], take(y, i), take(y, i + 1), take(d, i), take(d, i + 1))


def throughput_per_mw(
    speed: ArrayLike,
    point_speeds: ArrayLike,
    point_throughputs: ArrayLike,
    scale: ArrayLike = 1.0,
    platform: str = "platform",
) -> Array:
    """Thr_p(s): total output per facility MW at a per-user speed, from a platform's frontier.

    Parameters
    ----------
    speed : per-user speed [tokens/s/user], scalar or (N,).
    point_speeds : (k,) the frontier points' per-user speeds [tokens/s/user], any order.
    point_throughputs : (k,) or (N, k) their throughput [tokens/s/MW].
    scale : hardware.<p>.frontier_scale, multiplies the whole curve [x], scalar or (N,).
    platform : name used in the error message.

    Monotone interpolation (PCHIP on log speed, log throughput), exact at the
    points. A speed the points do not cover raises :class:`FrontierRangeError`.
    """
    xs = np.asarray(point_speeds, float)
    ys = np.asarray(point_throughputs, float)
    order = np.argsort(xs)
    xs, ys = xs[order], ys[..., order]
    s = np.asarray(speed, float)
    inside = covers(xs, s)
    if not np.all(inside):
        bad = np.ravel(s[~inside] if s.ndim else s)[0]
        rng = f"{xs[0]:g} tokens/s only" if xs.size == 1 else f"{xs[0]:g} to {xs[-1]:g} tokens/s"
        raise FrontierRangeError(
            f"{platform}: {bad:g} tokens/s/user is outside its frontier points "
            f"({rng}); add a point to frontier.csv rather than extrapolate"
        )
    if xs.size == 1:
        curve = np.broadcast_to(ys[..., 0], np.broadcast_shapes(s.shape, ys.shape[:-1]))
    else:
        curve = np.exp(pchip_eval(np.log(xs), np.log(ys), np.log(np.clip(s, xs[0], xs[-1]))))
    return np.asarray(scale, float) * curve


def users_per_mw(throughput: ArrayLike, speed: ArrayLike) -> Array:
    """Concurrent active users per MW [users/MW] = throughput [tokens/s/MW] / speed [tokens/s/user]."""
    return np.asarray(throughput, float) / np.asarray(speed, float)


def agent_task_time(
    calls: ArrayLike,
    output_tokens: ArrayLike,
    speed: ArrayLike,
    ttft_s: ArrayLike,
    p99_multiplier: ArrayLike,
) -> tuple[Array, Array]:
    """Median and P99 time [s] of an agent task of ``calls`` sequential calls (section 3.6).

    median = calls x (ttft + output_tokens / speed); P99 = median x multiplier.
    """
    median = np.asarray(calls, float) * (
        np.asarray(ttft_s, float) + np.asarray(output_tokens, float) / np.asarray(speed, float)
    )
    return median, median * np.asarray(p99_multiplier, float)


def months(horizon: int) -> Array:
    """Month numbers 1..H as floats, shape (H,)."""
    return np.arange(1, int(horizon) + 1, dtype=float)


def online_share(t: ArrayLike, ramp_months: ArrayLike, term_months: ArrayLike) -> Array:
    """Share of the contracted MW online in month t: min(1, t / ramp) while t <= T, else 0
    (section 3.5). Arguments broadcast (any layout); ramp 0 means all online from month 1."""
    t = np.asarray(t, float)
    ramp = np.asarray(ramp_months, float)
    # t / max(ramp, t): 1 from month ramp on (and for ramp 0), t / ramp before; never a
    # division by a ramp shorter than the month (months t >= 1)
    share = t / np.maximum(ramp, t)
    return np.where(t <= np.asarray(term_months, float), share, 0.0)


def streams(mw_online: ArrayLike, throughput: ArrayLike, speed: ArrayLike) -> Array:
    """C_t = Thr*(s) x MW_t / s: the peak streams the online capacity serves at speed s
    [streams]. Arguments broadcast (any layout)."""
    return np.asarray(mw_online, float) * users_per_mw(throughput, speed)


def tranche_online(
    t: ArrayLike,
    mw: ArrayLike,
    tranche_mw: ArrayLike,
    tranche_months: ArrayLike,
    term_months: ArrayLike,
) -> Array:
    """MW online when capacity comes in tranches (section 0.3): a tranche of ``tranche_mw``
    every ``tranche_months`` from month 1, up to the contract's MW, while t <= T, else 0:
    MW_t = min(mw, tranche_mw x ceil(t / tranche_months)) [MW]. Arguments broadcast."""
    t = np.asarray(t, float)
    n = np.ceil(t / np.asarray(tranche_months, float) - 1e-12)
    online = np.minimum(np.asarray(mw, float), np.asarray(tranche_mw, float) * n)
    return np.where(t <= np.asarray(term_months, float), online, 0.0)
