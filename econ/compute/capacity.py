"""Capacity and physics of serving one model: MODEL.md section 3.

All arguments may be scalars or arrays of scenarios of shape (N,); monthly
results have shape (N, H). Nothing here reads files.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

Array = NDArray[np.float64]


class FrontierRangeError(ValueError):
    """A per-user speed outside the speeds a platform's frontier points cover."""


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


def pchip_eval(x: Array, y: Array, xq: Array) -> Array:
    """Evaluate the PCHIP interpolant through (x, y) at xq, vectorised over scenarios.

    y has shape (k,) or (N, k); xq is scalar or (N,); xq must lie in [x[0], x[-1]].
    """
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    xq = np.asarray(xq, float)
    d = pchip_slopes(x, y)
    i = np.clip(np.searchsorted(x, xq, side="right") - 1, 0, x.shape[0] - 2)
    h = x[i + 1] - x[i]
    t = (xq - x[i]) / h

    def take(a: Array, j: Array) -> Array:
        if a.ndim == 1:
            return a[j]
        jj = np.broadcast_to(j, a.shape[:-1])
        return np.take_along_axis(a, jj[..., None], axis=-1)[..., 0]

    y0, y1, d0, d1 = take(y, i), take(y, i + 1), take(d, i), take(d, i + 1)
    t2, t3 = t * t, t * t * t
    return (
        (2 * t3 - 3 * t2 + 1) * y0
        + (t3 - 2 * t2 + t) * h * d0
        + (-2 * t3 + 3 * t2) * y1
        + (t3 - t2) * h * d1
    )


def throughput_per_mw(
    speed: ArrayLike,
    point_speeds: ArrayLike,
    point_throughputs: ArrayLike,
    platform: str = "platform",
) -> Array:
    """Total output per MW at a per-user speed, from a platform's frontier points.

    Parameters
    ----------
    speed : per-user speed [tokens/s/user], scalar or (N,).
    point_speeds : (k,) the frontier points' per-user speeds [tokens/s/user], any order.
    point_throughputs : (k,) or (N, k) their throughput [tokens/s/MW].
    platform : name used in the error message.

    Monotone interpolation (PCHIP on log speed, log throughput), exact at the
    points. A speed outside the points' range raises :class:`FrontierRangeError`.
    """
    xs = np.asarray(point_speeds, float)
    ys = np.asarray(point_throughputs, float)
    order = np.argsort(xs)
    xs, ys = xs[order], ys[..., order]
    s = np.asarray(speed, float)
    lo, hi = xs[0], xs[-1]
    tol = 1e-9 * hi
    outside = (s < lo - tol) | (s > hi + tol)
    if np.any(outside):
        bad = s[outside] if s.ndim else s
        rng = f"{lo:g} tokens/s only" if xs.size == 1 else f"{lo:g} to {hi:g} tokens/s"
        raise FrontierRangeError(
            f"{platform}: {np.ravel(bad)[0]:g} tokens/s/user is outside its frontier points "
            f"({rng}); add a point to frontier.csv rather than extrapolate"
        )
    if xs.size == 1:
        return np.broadcast_to(ys[..., 0], np.broadcast_shapes(s.shape, ys.shape[:-1])).astype(
            float
        )
    return np.exp(pchip_eval(np.log(xs), np.log(ys), np.log(np.clip(s, lo, hi))))


def users_per_mw(throughput: ArrayLike, speed: ArrayLike) -> Array:
    """Concurrent active users per MW [users/MW] = throughput [tokens/s/MW] / speed [tokens/s/user]."""
    return np.asarray(throughput, float) / np.asarray(speed, float)


def chips_per_replica(params: ArrayLike, bytes_per_param: ArrayLike, memory_gb: ArrayLike) -> Array:
    """Chips needed to hold one copy of the weights: ceil(params x bytes / memory)."""
    need = np.asarray(params, float) * np.asarray(bytes_per_param, float)
    # a relative guard so that 91.0000000001 from float rounding is not 92
    return np.ceil(need / (np.asarray(memory_gb, float) * 1e9) * (1 - 1e-12))


def decode_ceiling(
    chips: ArrayLike,
    bandwidth_tb_s: ArrayLike,
    params: ArrayLike,
    active_param_share: ArrayLike,
    bytes_per_param: ArrayLike,
) -> Array:
    """Per-user decode speed ceiling [tokens/s/user] of the memory-bandwidth roofline.

    Every generated token reads the active weights once: chips x bandwidth
    [bytes/s] / (params x active share x bytes per param).
    """
    read_per_token = (
        np.asarray(params, float)
        * np.asarray(active_param_share, float)
        * np.asarray(bytes_per_param, float)
    )
    return np.asarray(chips, float) * np.asarray(bandwidth_tb_s, float) * 1e12 / read_per_token


def agent_task_time(
    calls: ArrayLike,
    output_tokens: ArrayLike,
    speed: ArrayLike,
    ttft_s: ArrayLike,
    p99_multiplier: ArrayLike,
) -> tuple[Array, Array]:
    """Median and P99 time [s] of an agent task of ``calls`` sequential calls.

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
    """Share of the contracted capacity online in month t: min(1, t / ramp) while t <= T, else 0.

    All arguments broadcast against each other (any layout); ramp 0 means all online at once.
    """
    t = np.asarray(t, float)
    ramp = np.asarray(ramp_months, float)
    safe = np.where(ramp > 0, ramp, 1.0)
    share = np.where(ramp > 0, np.minimum(1.0, t / safe), 1.0)
    return np.where(t <= np.asarray(term_months, float), share, 0.0)


def ramp_share(t: Array, ramp_months: ArrayLike, term_months: ArrayLike) -> Array:
    """online_share with months t (H,) across and scenarios down: shape (N, H) ((1, H) for scalars)."""
    ramp = np.atleast_1d(np.asarray(ramp_months, float))[:, None]
    term = np.atleast_1d(np.asarray(term_months, float))[:, None]
    return online_share(np.asarray(t, float)[None, :], ramp, term)


def streams(online: ArrayLike, mw: ArrayLike, throughput: ArrayLike, speed: ArrayLike) -> Array:
    """C_t = Thr(s_ultra) x MW_t / s_ultra, with MW_t = mw x the share online. Arguments broadcast."""
    return np.asarray(online, float) * (np.asarray(mw, float) * users_per_mw(throughput, speed))


def contract_streams(
    mw: ArrayLike,
    ramp_months: ArrayLike,
    term_months: ArrayLike,
    throughput: ArrayLike,
    speed: ArrayLike,
    horizon: int,
) -> Array:
    """streams() for months 1..H across and scenarios down, shape (N, H)."""
    col = lambda x: np.atleast_1d(np.asarray(x, float))[:, None]  # noqa: E731
    return streams(
        ramp_share(months(horizon), ramp_months, term_months), col(mw), col(throughput), col(speed)
    )
