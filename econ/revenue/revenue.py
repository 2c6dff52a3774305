"""Incremental revenue attributed to the deal (MODEL.md section 5).

Everything attributed to the deal is the difference against the counterfactual
without the ultrafast tier: upgraders pay Pro and stop paying Plus, and the API
sells ultrafast tokens.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from econ.constants import SECONDS_PER_MONTH

Array = NDArray[np.float64]


def api_tokens(tokens_per_month: ArrayLike, ramp: Array) -> Array:
    """V_t [tokens/month] = api tokens x min(1, t/ramp) for t <= T, else 0; ``ramp`` is the (N, H) ramp share."""
    return np.atleast_1d(np.asarray(tokens_per_month, float))[:, None] * ramp


def api_streams(tokens: Array, speed: ArrayLike) -> Array:
    """S_api,t: concurrent streams the API needs, V_t / (s_ultra x SECONDS_PER_MONTH)."""
    return tokens / (np.atleast_1d(np.asarray(speed, float))[:, None] * SECONDS_PER_MONTH)


def subscription_revenue(
    incremental_pro: Array, price_pro: ArrayLike, price_plus: ArrayLike
) -> Array:
    """dP_t x (price_pro - price_plus) [USD/month]: upgraders stop paying Plus."""
    uplift = np.atleast_1d(np.asarray(price_pro, float) - np.asarray(price_plus, float))[:, None]
    return incremental_pro * uplift


def api_revenue(tokens: Array, price_per_mtok: ArrayLike) -> Array:
    """V_t x price per million tokens / 1e6 [USD/month]."""
    return tokens * np.atleast_1d(np.asarray(price_per_mtok, float))[:, None] / 1e6
