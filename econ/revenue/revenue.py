"""The API, backfill, the GPU-fleet boundary and incremental revenue (docs/model.md, sections
5.4, 5.7, 5.8 and 5.9).

Everything attributed to the deal is a difference against the counterfactual
without the ultrafast tier. All arguments broadcast against each other, in any
layout (the model passes months down and scenarios across, (H, N)).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from econ.constants import SECONDS_PER_MONTH, SECONDS_PER_WEEK, TOKENS_PER_MILLION

Array = NDArray[np.float64]


def _f(x: ArrayLike) -> Array:
    return np.asarray(x, float)


def ramp_share(t: ArrayLike, ramp_months: ArrayLike) -> Array:
    """min(1, t / ramp) [share]; a ramp of 0 is full from month 1."""
    t, ramp = _f(t), _f(ramp_months)
    return np.where(ramp > 0, np.minimum(1.0, t / np.where(ramp > 0, ramp, 1.0)), 1.0)


def api_tokens_wanted(
    tokens_per_month: ArrayLike,
    price: ArrayLike,
    reference_price: ArrayLike,
    price_elasticity: ArrayLike,
    efficiency: ArrayLike,
    t: ArrayLike,
    ramp_months: ArrayLike,
    term_months: ArrayLike,
) -> Array:
    """V_t [tokens/month]: ultrafast API demand at the tier's price, with token efficiency
    e_t and a ramp, during the term (5.4).

    V_t = tokens x (price / reference)^(-elasticity) x e_t x min(1, t / ramp) for t <= T.
    """
    response = np.exp(-_f(price_elasticity) * np.log(_f(price) / _f(reference_price)))
    wanted = _f(tokens_per_month) * response * _f(efficiency) * ramp_share(t, ramp_months)
    return np.where(_f(t) <= _f(term_months), wanted, 0.0)


def api_served(
    capacity_streams: ArrayLike,
    wanted: ArrayLike,
    peak_to_average: ArrayLike,
    speed: ArrayLike,
) -> tuple[Array, Array]:
    """(S_api,t [streams], V*_t [tokens/month]): the API is served first, up to the capacity.

    S_api = min(C_t, V_t x peak_to_average / (s_u x SECONDS_PER_MONTH));
    V* = S_api x s_u x SECONDS_PER_MONTH / peak_to_average.
    """
    per_stream = (
        _f(speed) * SECONDS_PER_MONTH / _f(peak_to_average)
    )  # tokens/month a peak stream carries
    s_api = np.minimum(_f(capacity_streams), _f(wanted) / per_stream)
    return s_api, s_api * per_stream


def subscription_revenue(
    incremental_pro: ArrayLike, price_pro: ArrayLike, price_plus: ArrayLike
) -> Array:
    """sub_t = dP_t x (price_pro - price_plus) [USD/month]: upgraders stop paying Plus."""
    return _f(incremental_pro) * (_f(price_pro) - _f(price_plus))


def api_revenue(
    tokens_served: ArrayLike,
    price: ArrayLike,
    cannibalised_share: ArrayLike,
    standard_price: ArrayLike,
) -> Array:
    """api_t = V*_t x (price_u - cannibalised_share x standard_price) / 1e6 [USD/month]: the
    premium over what the cannibalised tokens would have paid at the standard rate."""
    margin = _f(price) - _f(cannibalised_share) * _f(standard_price)
    return _f(tokens_served) * margin / TOKENS_PER_MILLION


def spare_share(
    capacity_streams: ArrayLike, busy_streams: ArrayLike, mw_online: ArrayLike
) -> Array:
    """spare_t [share of the contract's peak capacity] = max(0, 1 - busy / C_t); 1 where the
    platform cannot run the ultrafast speed (C_t = 0) but MW are online; 0 where none are."""
    c, busy, mw = _f(capacity_streams), _f(busy_streams), _f(mw_online)
    with np.errstate(divide="ignore", invalid="ignore"):
        spare = np.maximum(0.0, 1.0 - busy / c)
    return np.where(c > 0, spare, np.where(mw > 0, 1.0, 0.0))


def backfill_tokens(
    spare: ArrayLike,
    mw_online: ArrayLike,
    throughput_standard: ArrayLike,
    peak_to_average: ArrayLike,
    backfill_tokens_per_month: ArrayLike,
    efficiency: ArrayLike,
    t: ArrayLike,
    term_months: ArrayLike,
) -> Array:
    """Bf_t [tokens/month]: standard-speed traffic moved onto the spare capacity (5.8).

    cap_t = spare_t x MW_t x Thr*(s_standard) x SECONDS_PER_MONTH / peak_to_average;
    Bf_t = min(backfill x e_t, cap_t) for t <= T, else 0.
    """
    room = (
        _f(spare)
        * _f(mw_online)
        * _f(throughput_standard)
        * SECONDS_PER_MONTH
        / _f(peak_to_average)
    )
    bf = np.minimum(_f(backfill_tokens_per_month) * _f(efficiency), room)
    return np.where(_f(t) <= _f(term_months), bf, 0.0)


def tokens_moved_off_gpus(
    backfill: ArrayLike,
    api_served_tokens: ArrayLike,
    cannibalised_share: ArrayLike,
    adopter_tokens: ArrayLike,
    speed_factor_ultrafast: ArrayLike,
) -> Array:
    """moved_t [tokens/month] = Bf_t + cannibalised x V*_t + adopters' tokens / phi_u (5.9):
    the backfill, the API tokens that would have run at the standard rate, and the
    ultrafast adopters' usage at its standard-speed volume."""
    return (
        _f(backfill)
        + _f(cannibalised_share) * _f(api_served_tokens)
        + _f(adopter_tokens) / _f(speed_factor_ultrafast)
    )


def tokens_added_to_gpus(
    incremental_pro: ArrayLike, w_pro_standard: ArrayLike, w_plus_standard: ArrayLike
) -> Array:
    """added_t [tokens/month] = dP_t x (w_pro,std - w_plus,std) x SECONDS_PER_MONTH /
    SECONDS_PER_WEEK: the incremental Pro subscribers' extra usage on the standard tier."""
    per_week = _f(w_pro_standard) - _f(w_plus_standard)
    return _f(incremental_pro) * per_week * (SECONDS_PER_MONTH / SECONDS_PER_WEEK)


def gpu_savings(moved: ArrayLike, added: ArrayLike, gpu_cost_per_mtok: ArrayLike) -> Array:
    """gpu_t [USD/month] = (moved - added) x gpu_cost_per_mtok / 1e6: a cost avoided (cash in
    where positive), not a sale, so no revenue fees apply."""
    return (_f(moved) - _f(added)) * _f(gpu_cost_per_mtok) / TOKENS_PER_MILLION
