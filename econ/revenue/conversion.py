"""Pro conversion: the Pro stock with and without the ultrafast tier (MODEL.md section 5).

The ultrafast tier's adoption is capped by the streams the rented capacity
leaves after the API, and the number of users eligible for it depends on last
month's Pro stock, so the months are stepped in order; each step is vectorised
over scenarios (shape (N,)).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

Array = NDArray[np.float64]


def ultrafast_adoption(
    adoption: ArrayLike,
    streams: ArrayLike,
    api_streams: ArrayLike,
    peak_concurrency: ArrayLike,
    eligible: ArrayLike,
    out: Array | None = None,
) -> Array:
    """a_u,t = min(adoption, max(0, C_t - S_api,t) / (peak_concurrency x E_t)) [share of eligible users].

    With no eligible users (E_t = 0) the capacity does not bind and a_u,t = adoption.
    """
    free = np.maximum(np.subtract(streams, api_streams), 0.0)
    need = np.multiply(peak_concurrency, eligible)
    room = np.divide(
        free, need, out=np.full(np.broadcast(free, need).shape, np.inf), where=need > 0
    )
    return np.minimum(adoption, room, out=out)


@dataclass(frozen=True)
class ProPath:
    """Monthly paths, time-major: each (H, N), month t in one contiguous row."""

    pro: Array  # P_t with the ultrafast tier
    pro_counterfactual: Array  # P0_t without it
    ultrafast_adoption: Array  # a_u,t
    eligible: Array  # E_t = N_plus,t + P_(t-1)
    plus_cap_hit: Array  # h_plus,t
    plus_cap_hit_counterfactual: Array  # h0_plus,t


def pro_paths(
    plus_pool: Array,
    pro_start: ArrayLike,
    churn: ArrayLike,
    base_upgrade: ArrayLike,
    capped_propensity: ArrayLike,
    adoption_fast: ArrayLike,
    adoption_ultrafast: ArrayLike,
    hit_standard: Array,
    hit_fast: Array,
    hit_ultrafast: Array,
    streams: Array,
    api_streams: Array,
    peak_concurrency: ArrayLike,
    term_months: int,
) -> ProPath:
    """Step the Pro stock P_t = P_(t-1)(1 - churn) + u_t N_plus,t, with u_t = base + propensity x h_plus,t.

    Parameters are (N,) or scalars. The monthly inputs (``plus_pool``, the
    tier cap-hit shares SF_i,t of Plus users, the stream counts) are
    time-major, (H, N) or (H, 1), so that each month is one contiguous row.
    The counterfactual is the same model with the ultrafast tier unavailable:
    its adopters stay on the standard tier.
    """
    monthly = (plus_pool, hit_standard, hit_fast, hit_ultrafast, streams, api_streams)
    params = (
        churn,
        base_upgrade,
        capped_propensity,
        adoption_fast,
        adoption_ultrafast,
        peak_concurrency,
        pro_start,
    )
    H, N = np.broadcast_shapes(*(np.shape(x) for x in monthly), *((1, np.size(x)) for x in params))
    churn_, base_, prop_, af, au_max, pc, p0_start = (
        np.asarray(x, float).reshape(-1) for x in params
    )
    keep = 1.0 - churn_
    s_std, s_fast, s_ultra = hit_standard, hit_fast, hit_ultrafast

    P = np.empty((H, N))
    P0 = np.empty((H, N))
    A = np.zeros((H, N))
    E = np.empty((H, N))
    Hh = np.empty((H, N))
    # without ultrafast the cap-hit share does not depend on the Pro stock
    h0 = (1.0 - af) * s_std + af * s_fast
    h0 = np.broadcast_to(h0, (H, N))
    p = np.broadcast_to(p0_start, (N,)).astype(float)
    p0 = p.copy()
    lift = np.broadcast_to(s_ultra - s_std, (H, N))  # SF_ultra - SF_std: what an adopter adds to h
    tmp = np.empty(N)
    for t in range(H):
        pool = plus_pool[t]
        np.add(pool, p, out=E[t])
        if t + 1 <= term_months:
            ultrafast_adoption(au_max, streams[t], api_streams[t], pc, E[t], out=A[t])
        # h = (1 - a_f - a_u) SF_std + a_f SF_fast + a_u SF_ultra = h0 + a_u (SF_ultra - SF_std)
        np.multiply(A[t], lift[t], out=Hh[t])
        Hh[t] += h0[t]
        # P_t = P_(t-1) (1 - churn) + (base + propensity h) N_plus, in place
        np.multiply(prop_, Hh[t], out=tmp)
        tmp += base_
        tmp *= pool
        p *= keep
        p += tmp
        np.multiply(prop_, h0[t], out=tmp)
        tmp += base_
        tmp *= pool
        p0 *= keep
        p0 += tmp
        P[t] = p
        P0[t] = p0
    return ProPath(P, P0, A, E, Hh, h0)
