"""Incremental revenue attributed to the deal (MODEL.md section 5).

Everything attributed to the deal is the difference against the counterfactual
without the ultrafast tier: upgraders pay Pro and stop paying Plus, and the API
sells ultrafast tokens. All arguments broadcast against each other, in any
layout (the model passes months down, scenarios across).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from econ.constants import SECONDS_PER_MONTH

Array = NDArray[np.float64]


def api_tokens(tokens_per_month: ArrayLike, online_share: ArrayLike) -> Array:
    """V_t [tokens/month]: the API's ultrafast tokens, ramping with the contracted capacity."""
    return np.multiply(tokens_per_month, online_share)


def api_streams(tokens: ArrayLike, speed: ArrayLike) -> Array:
    """S_api,t: concurrent streams the API needs, V_t / (s_ultra x SECONDS_PER_MONTH)."""
    return np.asarray(tokens, float) / (np.asarray(speed, float) * SECONDS_PER_MONTH)


def subscription_revenue(
    pro: ArrayLike,
    pro_counterfactual: ArrayLike,
    price_pro: ArrayLike,
    price_plus: ArrayLike,
    out: Array | None = None,
) -> Array:
    """(P_t - P0_t) x (price_pro - price_plus) [USD/month]: upgraders stop paying Plus.

    ``out`` (full shape) lets the caller compute it in place.
    """
    uplift = np.subtract(price_pro, price_plus)
    if out is None:
        return np.subtract(pro, pro_counterfactual) * uplift
    np.subtract(pro, pro_counterfactual, out=out)
    out *= uplift
    return out


def api_revenue(tokens: ArrayLike, price_per_mtok: ArrayLike) -> Array:
    """V_t x price per million tokens / 1e6 [USD/month]."""
    return np.asarray(tokens, float) * (np.asarray(price_per_mtok, float) / 1e6)
