"""Ultrafast adoption and the Pro stock with and without the ultrafast tier (docs/model.md,
sections 5.3, 5.5 and 5.6).

Adoption is capped by the streams the contract leaves after the API, and the
ultrafast demand of the eligible users depends on last month's Pro stock, so the
months are stepped in order; each step is vectorised over scenarios (shape (N,)).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from econ.constants import SECONDS_PER_WEEK

Array = NDArray[np.float64]


@dataclass(frozen=True)
class ProPath:
    """Monthly paths, time-major: each (H, N), month t in one contiguous row.

    pro : P_t, Pro subscribers with the ultrafast tier [users].
    pro_counterfactual : P0_t, without it [users].
    ultrafast_adoption : a_u,t [share of eligible users].
    all_adopt_streams : A_t, the average ultrafast streams if every eligible user adopted [streams].
    plus_cap_hit : h_plus,t with the tier [share].
    plus_cap_hit_counterfactual : h0_plus,t without it [share].
    """

    pro: Array
    pro_counterfactual: Array
    ultrafast_adoption: Array
    all_adopt_streams: Array
    plus_cap_hit: Array
    plus_cap_hit_counterfactual: Array


def adoption(
    max_adoption: ArrayLike,
    free_streams: ArrayLike,
    all_adopt_streams: ArrayLike,
    peak_to_average: ArrayLike,
    out: Array | None = None,
) -> Array:
    """a_u,t = min(adoption, max(0, C_t - S_api,t) / (A_t x peak_to_average)) [share]; 0 where
    A_t = 0 (no ultrafast demand). ``free_streams`` is max(0, C_t - S_api,t)."""
    need = np.multiply(all_adopt_streams, peak_to_average)
    shape = np.broadcast(free_streams, need, max_adoption).shape
    room = np.divide(free_streams, need, out=np.zeros(shape), where=need > 0)
    return np.minimum(np.where(need > 0, max_adoption, 0.0), room, out=out)


def pro_paths(
    plus_pool: Array,
    pro_start: ArrayLike,
    churn: ArrayLike,
    extra_churn_after_term: ArrayLike,
    base_upgrade: ArrayLike,
    capped_propensity: ArrayLike,
    adoption_fast: ArrayLike,
    adoption_ultrafast: ArrayLike,
    peak_to_average: ArrayLike,
    speed_ultrafast: ArrayLike,
    hit_standard: Array,
    hit_fast: Array,
    hit_ultrafast: Array,
    w_plus_ultrafast: Array,
    w_pro_ultrafast: Array,
    free_streams: Array,
    term_months: ArrayLike,
) -> ProPath:
    """Step the Pro stocks month by month.

    P_t = P_(t-1) (1 - churn) + u_t N_t for t <= T, with u_t = base + propensity x h_plus,t;
    after the term the incremental subscribers also leave at the extra churn:
    P_t = P_(t-1) (1 - churn) - extra x max(0, P_(t-1) - P0_(t-1)) + u_t N_t.
    P0_t = P0_(t-1) (1 - churn) + u0_t N_t without the tier (its adopters on standard).

    Parameters are scalars or (N,) [1/month, share, tokens/s/user]. The monthly inputs
    are time-major, (H, N) or (H, 1): ``plus_pool`` N_t [users], the Plus cap-hit shares
    per tier SF_plus,i,t [share], the tokens served per user-week at the ultrafast tier
    w_plus,u,t and w_pro,u,t [tokens/user-week], and ``free_streams`` max(0, C_t - S_api,t)
    [streams]. ``term_months`` T is a scalar or (N,).
    """
    monthly = (plus_pool, hit_standard, hit_fast, hit_ultrafast)
    monthly += (w_plus_ultrafast, w_pro_ultrafast, free_streams)
    params = (
        churn,
        extra_churn_after_term,
        base_upgrade,
        capped_propensity,
        adoption_fast,
        adoption_ultrafast,
        peak_to_average,
        speed_ultrafast,
        pro_start,
        term_months,
    )
    H, N = np.broadcast_shapes(*(np.shape(x) for x in monthly), *((1, np.size(x)) for x in params))
    churn_, extra_, base_, prop_, af, au_max, pta, s_u, p_start, term = (
        np.asarray(x, float).reshape(-1) for x in params
    )
    keep = 1.0 - churn_
    stream_rate = 1.0 / (SECONDS_PER_WEEK * s_u)  # streams per (token/week)

    P = np.empty((H, N))
    P0 = np.empty((H, N))
    A = np.zeros((H, N))
    S = np.empty((H, N))
    Hh = np.empty((H, N))
    # without the ultrafast tier the cap-hit share does not depend on the Pro stock
    h0 = np.broadcast_to((1.0 - af) * hit_standard + af * hit_fast, (H, N))
    lift = np.broadcast_to(hit_ultrafast - hit_standard, (H, N))  # what an adopter adds to h
    pool = np.broadcast_to(plus_pool, (H, N))
    wpu = np.broadcast_to(w_plus_ultrafast, (H, N))
    wru = np.broadcast_to(w_pro_ultrafast, (H, N))
    free = np.broadcast_to(free_streams, (H, N))
    p = np.broadcast_to(p_start, (N,)).astype(float)
    p0 = p.copy()
    tmp = np.empty(N)
    gap = np.empty(N)
    for t in range(H):
        # A_t = (N_t w_plus,u + P_(t-1) w_pro,u) / (SECONDS_PER_WEEK s_u)
        np.multiply(p, wru[t], out=S[t])
        np.multiply(pool[t], wpu[t], out=tmp)
        S[t] += tmp
        S[t] *= stream_rate
        in_term = (t + 1) <= term
        adoption(np.where(in_term, au_max, 0.0), free[t], S[t], pta, out=A[t])
        # h = (1 - a_f - a_u) SF_std + a_f SF_fast + a_u SF_ultra = h0 + a_u (SF_ultra - SF_std)
        np.multiply(A[t], lift[t], out=Hh[t])
        Hh[t] += h0[t]
        # extra churn of the incremental subscribers once the term is over
        np.subtract(p, p0, out=gap)
        np.maximum(gap, 0.0, out=gap)
        gap *= np.where(in_term, 0.0, extra_)
        # P_t = P_(t-1) (1 - churn) - extra gap + (base + propensity h) N_t, in place
        np.multiply(prop_, Hh[t], out=tmp)
        tmp += base_
        tmp *= pool[t]
        p *= keep
        p -= gap
        p += tmp
        np.multiply(prop_, h0[t], out=tmp)
        tmp += base_
        tmp *= pool[t]
        p0 *= keep
        p0 += tmp
        P[t] = p
        P0[t] = p0
    return ProPath(P, P0, A, S, Hh, np.ascontiguousarray(h0))
