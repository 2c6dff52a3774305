"""The revenue pieces beside the logit (choice.py) and the monthly allocation (allocation.py):
the API ramp, the Pro price step and the Pro upgraders' extra GPU usage (docs/model.md,
sections 0.4, 5.7 and 5.9).

Everything attributed to the deal is a difference against the counterfactual
without the ultrafast tier. All arguments broadcast against each other, in any
layout (the model passes months down and scenarios across, (H, N)).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from econ.constants import SECONDS_PER_MONTH, SECONDS_PER_WEEK
from econ.revenue.calibration import check_no_deal  # noqa: F401 - the model calls rev.check_no_deal

Array = NDArray[np.float64]


def _f(x: ArrayLike) -> Array:
    return np.asarray(x, float)


def ramp_share(t: ArrayLike, ramp_months: ArrayLike) -> Array:
    """min(1, t / ramp) [share]; a ramp of 0 is full from month 1."""
    t, ramp = _f(t), _f(ramp_months)
    return np.where(ramp > 0, np.minimum(1.0, t / np.where(ramp > 0, ramp, 1.0)), 1.0)


def subscription_revenue(
    incremental_pro: ArrayLike, price_pro: ArrayLike, price_plus: ArrayLike
) -> Array:
    """sub_t = dP_t x (price_pro - price_plus) [USD/month]: upgraders stop paying Plus."""
    return _f(incremental_pro) * (_f(price_pro) - _f(price_plus))


def tokens_added_to_gpus(
    incremental_pro: ArrayLike, w_pro_standard: ArrayLike, w_plus_standard: ArrayLike
) -> Array:
    """added_t [tokens/month] = dP_t x (w_pro,std - w_plus,std) x SECONDS_PER_MONTH /
    SECONDS_PER_WEEK: the incremental Pro subscribers' extra usage on the standard tier."""
    per_week = _f(w_pro_standard) - _f(w_plus_standard)
    return _f(incremental_pro) * per_week * (SECONDS_PER_MONTH / SECONDS_PER_WEEK)
