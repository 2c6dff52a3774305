"""Demand per user and the weekly quota (docs/model.md, section 5.2).

A plan-p user's weekly demand at tier i is lognormal with median
mu_p,i,t = median_weekly_tokens_p x e_t x phi_i and shape sigma; the quota allows
c_p,i = weekly_quota_tokens_p / usage_multiplier_i tokens at tier i. Everything is
computed from l = ln(c / mu), which the model builds once per plan, tier and month.

All arguments may be scalars or arrays that broadcast (the model passes months
down and scenarios across, (H, N)).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import ndtr

Array = NDArray[np.float64]


def speed_factor(speed: ArrayLike, speed_standard: ArrayLike, elasticity: ArrayLike) -> Array:
    """phi_i = (s_i / s_standard)^elasticity [-]: how much more a user asks for at tier i."""
    ratio = np.asarray(speed, float) / np.asarray(speed_standard, float)
    # exp/log rather than **: numpy's power can differ in the last bit with an element's
    # position in an array, which would make results depend on the chunk size
    return np.exp(np.asarray(elasticity, float) * np.log(ratio))


def log_token_efficiency(gain_annual: ArrayLike, t: ArrayLike) -> Array:
    """ln e_t = ((t - 1) / 12) ln(1 - gain): tokens a task takes in month t relative to month 1."""
    return (np.asarray(t, float) - 1.0) / 12.0 * np.log1p(-np.asarray(gain_annual, float))


def log_quota_over_median(
    quota: ArrayLike,
    usage_multiplier: ArrayLike,
    median: ArrayLike,
    phi: ArrayLike,
    log_efficiency: ArrayLike,
) -> Array:
    """l = ln(c / mu) = ln(quota / usage_multiplier) - ln(median x phi) - ln e_t [-]."""
    return (
        np.log(np.asarray(quota, float) / np.asarray(usage_multiplier, float))
        - np.log(np.asarray(median, float) * np.asarray(phi, float))
        - np.asarray(log_efficiency, float)
    )


def cap_hit_share(log_c_over_mu: ArrayLike, sigma: ArrayLike) -> Array:
    """SF(c / mu) = 1 - Phi(l / sigma) [share]: users whose weekly demand exceeds the quota."""
    return ndtr(-np.asarray(log_c_over_mu, float) / np.asarray(sigma, float))


def tokens_served(
    median: ArrayLike,
    log_c_over_mu: ArrayLike,
    sigma: ArrayLike,
    hit_share: ArrayLike | None = None,
) -> Array:
    """w [tokens/user-week]: demand truncated at the quota, E[min(X, c)] for X lognormal.

    w = mu e^(sigma^2/2) Phi((l - sigma^2) / sigma) + c (1 - Phi(l / sigma)), l = ln(c / mu),
    with ``median`` the month's mu. ``hit_share`` (the cap-hit share SF, if already
    computed) saves one normal CDF.
    """
    mu = np.asarray(median, float)
    l = np.asarray(log_c_over_mu, float)  # noqa: E741
    sig = np.asarray(sigma, float)
    sf = cap_hit_share(l, sig) if hit_share is None else np.asarray(hit_share, float)
    return mu * (np.exp(0.5 * sig * sig) * ndtr(l / sig - sig) + np.exp(l) * sf)


def plan_cap_hit(adoptions: list[ArrayLike], tier_hits: list[ArrayLike]) -> Array:
    """h_p,t = sum over tiers of a_i,t x SF_p,i,t [share]: the plan's users who hit the cap."""
    total = np.zeros(
        np.broadcast_shapes(*(np.shape(a) for a in adoptions), *(np.shape(s) for s in tier_hits))
    )
    for a, s in zip(adoptions, tier_hits, strict=True):
        total = total + np.asarray(a, float) * np.asarray(s, float)
    return total
