"""Quota consumption: who hits the weekly cap under each speed tier (MODEL.md section 5).

Weekly demand of a plan-p user on the standard tier is lognormal with median
m_p and shape sigma; on tier i it is scaled by the consumption factor f_i and
by token efficiency e_t. All arguments may be scalars or arrays that broadcast
to (N, H).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import ndtr

Array = NDArray[np.float64]


def consumption_factor(
    usage_multiplier: ArrayLike,
    speed: ArrayLike,
    speed_standard: ArrayLike,
    speed_elasticity: ArrayLike,
) -> Array:
    """f_i = usage_multiplier_i x (s_i / s_standard)^elasticity [quota units per standard token]."""
    ratio = np.asarray(speed, float) / np.asarray(speed_standard, float)
    return np.asarray(usage_multiplier, float) * np.exp(
        np.asarray(speed_elasticity, float) * np.log(ratio)
    )


def token_efficiency(gain_annual: ArrayLike, t: ArrayLike) -> Array:
    """e_t = (1 - gain)^((t - 1) / 12): tokens a task takes in month t relative to month 1."""
    return np.exp(log_token_efficiency(gain_annual, t))


def lognormal_sf(x: ArrayLike, sigma: ArrayLike) -> Array:
    """SF(x) = 1 - Phi(ln(x) / sigma): share of a median-1 lognormal above x."""
    return ndtr(-np.log(np.asarray(x, float)) / np.asarray(sigma, float))


def tier_cap_hit(
    quota: ArrayLike, median: ArrayLike, sigma: ArrayLike, efficiency: ArrayLike, factor: ArrayLike
) -> Array:
    """Share of a plan's users on one tier who exceed the weekly quota: SF(q / (m e_t f_i))."""
    return tier_cap_hits(
        quota, median, sigma, np.log(np.asarray(efficiency, float)), {"tier": factor}
    )["tier"]


def cap_hit_share(adoptions: list[ArrayLike], tier_hits: list[ArrayLike]) -> Array:
    """h_p,t = sum_i a_i,t x SF_i,t: the plan's share of users who hit the cap."""
    total = np.zeros(
        np.broadcast_shapes(*(np.shape(a) for a in adoptions), *(np.shape(s) for s in tier_hits))
    )
    for a, s in zip(adoptions, tier_hits, strict=True):
        total = total + np.asarray(a, float) * np.asarray(s, float)
    return total


def log_token_efficiency(gain_annual: ArrayLike, t: ArrayLike) -> Array:
    """ln e_t = ((t - 1) / 12) ln(1 - gain): cheaper to combine than e_t itself."""
    return (np.asarray(t, float) - 1.0) / 12.0 * np.log1p(-np.asarray(gain_annual, float))


def tier_cap_hits(
    quota: ArrayLike,
    median: ArrayLike,
    sigma: ArrayLike,
    log_efficiency: ArrayLike,
    factors: dict[str, ArrayLike],
) -> dict[str, Array]:
    """SF(q / (m e_t f_i)) for every tier i at once, sharing the terms that do not depend on the tier.

    All arguments broadcast; pass time-major shapes ((H, 1) efficiency, (1, N)
    parameters) to get (H, N) results.
    """
    inv_sigma = 1.0 / np.asarray(sigma, float)
    base = (
        np.log(np.asarray(median, float))
        - np.log(np.asarray(quota, float))
        + np.asarray(log_efficiency, float)
    )
    return {i: ndtr((base + np.log(np.asarray(f, float))) * inv_sigma) for i, f in factors.items()}
