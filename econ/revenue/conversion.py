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
) -> Array:
    """a_u,t = min(adoption, max(0, C_t - S_api,t) / (peak_concurrency x E_t)) [share of eligible users]."""
    free = np.maximum(0.0, np.asarray(streams, float) - np.asarray(api_streams, float))
    return np.minimum(
        np.asarray(adoption, float),
        free / (np.asarray(peak_concurrency, float) * np.asarray(eligible, float)),
    )


@dataclass(frozen=True)
class ProPath:
    """Monthly paths, each (N, H)."""

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
    term_months: ArrayLike,
) -> ProPath:
    """Step the Pro stock P_t = P_(t-1)(1 - churn) + u_t N_plus,t, with u_t = base + propensity x h_plus,t.

    Parameters are (N,) or scalars; ``plus_pool``, the tier cap-hit shares
    SF_i,t of Plus users and the stream counts are (N, H) (or broadcast to it).
    The counterfactual is the same model with the ultrafast tier unavailable:
    its adopters stay on the standard tier.
    """
    params = (
        churn,
        base_upgrade,
        capped_propensity,
        adoption_fast,
        adoption_ultrafast,
        peak_concurrency,
        pro_start,
        term_months,
    )
    n = np.broadcast_shapes(
        *(
            np.shape(x)
            for x in (plus_pool, hit_standard, hit_fast, hit_ultrafast, streams, api_streams)
        ),
        *((np.size(x), 1) for x in params),
    )
    N, H = n
    col = lambda x: np.broadcast_to(np.asarray(x, float).reshape(-1), (N,))  # noqa: E731
    churn_, base_, prop_, af, au_max, pc, term = (
        col(churn),
        col(base_upgrade),
        col(capped_propensity),
        col(adoption_fast),
        col(adoption_ultrafast),
        col(peak_concurrency),
        col(term_months),
    )
    pool = np.broadcast_to(plus_pool, n)
    s_std, s_fast, s_ultra = (
        np.broadcast_to(x, n) for x in (hit_standard, hit_fast, hit_ultrafast)
    )
    c, api = np.broadcast_to(streams, n), np.broadcast_to(api_streams, n)

    out = {k: np.empty(n) for k in ("P", "P0", "a", "E", "h", "h0")}
    p = col(pro_start).copy()
    p0 = p.copy()
    # the counterfactual cap-hit share does not depend on the Pro stock
    h0_all = (1.0 - af)[:, None] * s_std + af[:, None] * s_fast
    for t in range(H):
        e = pool[:, t] + p
        a_u = np.where(t + 1 <= term, ultrafast_adoption(au_max, c[:, t], api[:, t], pc, e), 0.0)
        h = (1.0 - af - a_u) * s_std[:, t] + af * s_fast[:, t] + a_u * s_ultra[:, t]
        p = p * (1.0 - churn_) + (base_ + prop_ * h) * pool[:, t]
        p0 = p0 * (1.0 - churn_) + (base_ + prop_ * h0_all[:, t]) * pool[:, t]
        out["P"][:, t], out["P0"][:, t], out["a"][:, t], out["E"][:, t], out["h"][:, t] = (
            p,
            p0,
            a_u,
            e,
            h,
        )
    return ProPath(out["P"], out["P0"], out["a"], out["E"], out["h"], h0_all)
