"""API buyers' choice between speed tiers: a multinomial logit per output token over the
standard, fast and ultrafast tiers and an outside option (docs/model.md, section 0.4).

The logit is identified by the observed volumes at the bundled prices and speeds and by the
diversion share D: the market is M = V_u + (V_s + V_f) / D tokens a month, so that without the
ultrafast tier a share D of its tokens would have been bought from the lab's other tiers.
Every argument may be a scalar or an array of scenarios of shape (N,).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

Array = NDArray[np.float64]

LN2 = float(np.log(2.0))


def _f(x: ArrayLike) -> Array:
    return np.asarray(x, float)


@dataclass(frozen=True)
class Logit:
    """A calibrated logit: tier constants alpha [-], price coefficient beta [1 per USD/Mtok],
    speed coefficient gamma [1 per ln(tokens/s)], nest parameter lam [-], market M
    [tokens/month], the calibration shares q_s, q_f, q_u, q_0 [share] and the nest's
    calibrated inclusive value I* [-]."""

    alpha_s: Array
    alpha_f: Array
    alpha_u: Array
    beta: Array
    gamma: Array
    lam: Array
    market: Array
    q_s: Array
    q_f: Array
    q_u: Array
    q_0: Array
    inclusive: Array  # I* = ln((q_f + q_u) / q_0), the nest's calibrated inclusive value

    def premium(self) -> Array:
        """The calibrated premium of the ultrafast tier over standard [USD per 1M tokens]:
        (alpha_u - alpha_s) / beta, what a buyer pays for the tier beyond its speed term."""
        return (self.alpha_u - self.alpha_s) / self.beta


def calibrate(
    v_standard: ArrayLike,
    v_fast: ArrayLike,
    v_ultrafast: ArrayLike,
    diversion: ArrayLike,
    price_standard: ArrayLike,
    price_fast: ArrayLike,
    price_reference: ArrayLike,
    elasticity: ArrayLike,
    wtp_doubling: ArrayLike,
    speed_standard: ArrayLike,
    speed_fast: ArrayLike,
    speed_ultrafast: ArrayLike,
    lam: ArrayLike = 1.0,
) -> Logit:
    """Calibrate the logit so that its shares reproduce the volumes [tokens/month] at the
    bundled prices [USD per 1M tokens] and tier speeds [tokens/s], with the ultrafast tier at
    ``price_reference``.

    M = V_u + (V_s + V_f) / D; q_i = V_i / M; q_0 = 1 - q_s - q_f - q_u = (1 - q_u)(1 - D)
    (the second form: no cancellation as D nears 1);
    beta = elasticity / (price_reference (1 - q_u)) (the ultrafast point elasticity);
    gamma = beta x wtp_doubling / ln 2. Plain logit (lam = 1): alpha_i = ln(q_i / q_0) +
    beta p_i - gamma ln(s_i). Nest {fast, ultrafast} with 0 < lam <= 1: alpha_s as plain;
    with I* = ln((q_f + q_u) / q_0), alpha_j = lam ln(q_j / (q_f + q_u)) + I* + beta p_j -
    gamma ln(s_j) for j in the nest (lam = 1 gives the plain logit).
    """
    vs, vf, vu, d = _f(v_standard), _f(v_fast), _f(v_ultrafast), _f(diversion)
    market = vu + (vs + vf) / d
    q_s, q_f, q_u = vs / market, vf / market, vu / market
    # the outside share in closed form: 1 - q_s - q_f - q_u cancels to rounding noise (0 or
    # below) as D nears 1, where (1 - q_u)(1 - D) stays positive and exact
    q_0 = (1.0 - q_u) * (1.0 - d)
    beta = _f(elasticity) / (_f(price_reference) * (1.0 - q_u))
    gamma = beta * _f(wtp_doubling) / LN2
    lam = _f(lam)
    with np.errstate(divide="ignore"):
        alpha_s = np.log(q_s / q_0) + beta * _f(price_standard) - gamma * np.log(speed_standard)
        inc = np.log((q_f + q_u) / q_0)
        alpha_f = (
            lam * np.log(q_f / (q_f + q_u))
            + inc
            + beta * _f(price_fast)
            - gamma * np.log(speed_fast)
        )
        alpha_u = (
            lam * np.log(q_u / (q_f + q_u))
            + inc
            + beta * _f(price_reference)
            - gamma * np.log(speed_ultrafast)
        )
    return Logit(alpha_s, alpha_f, alpha_u, beta, gamma, lam, market, q_s, q_f, q_u, q_0, inc)


def utilities(
    lg: Logit, prices: tuple[ArrayLike, ArrayLike, ArrayLike], speeds: tuple[ArrayLike, ...]
) -> tuple[Array, Array, Array]:
    """v_i = alpha_i - beta p_i + gamma ln(s_i) for standard, fast, ultrafast (served speeds)."""
    return tuple(  # type: ignore[return-value]
        a - lg.beta * _f(p) + lg.gamma * np.log(_f(s))
        for a, p, s in zip((lg.alpha_s, lg.alpha_f, lg.alpha_u), prices, speeds, strict=True)
    )


def shares(
    lg: Logit,
    prices: tuple[ArrayLike, ArrayLike, ArrayLike],
    speeds: tuple[ArrayLike, ArrayLike, ArrayLike],
    ultrafast: ArrayLike = True,
) -> tuple[Array, Array, Array, Array]:
    """(x_s, x_f, x_u, x_0): the shares of the market [share] with the ultrafast tier offered
    (``ultrafast`` true, per scenario) or not. The nest {fast, ultrafast} has inclusive value
    I = lam ln(exp(v_f / lam) + exp(v_u / lam)); without the ultrafast tier I = v_f."""
    return _shares(utilities(lg, prices, speeds), lg.lam, ultrafast)


def _shares(
    v: tuple[Array, Array, Array], lam: Array, ultrafast: ArrayLike
) -> tuple[Array, Array, Array, Array]:
    """The shares of :func:`shares` from the utilities (v_s, v_f, v_u)."""
    v_s, v_f, v_u = v
    on = np.asarray(ultrafast, bool)
    # the nest's inclusive value, computed stably
    # (a tier without volume has v = -inf: an empty nest has I = -inf and shares 0)
    top = np.maximum(v_f, np.where(on, v_u, -np.inf))
    top = np.where(np.isfinite(top), top, 0.0)
    e_f = np.exp((v_f - top) / lam)
    e_u = np.where(on, np.exp((v_u - top) / lam), 0.0)
    e_nest = e_f + e_u
    with np.errstate(divide="ignore", invalid="ignore"):
        incl = top + lam * np.log(e_nest)
        big = np.maximum(np.maximum(v_s, incl), 0.0)
        den = np.exp(-big) + np.exp(v_s - big) + np.exp(incl - big)
        nest = np.exp(incl - big) / den
        x_s = np.exp(v_s - big) / den
        x_f = np.where(e_nest > 0, nest * e_f / e_nest, 0.0)
        x_u = np.where(e_nest > 0, nest * e_u / e_nest, 0.0)
    x_0 = np.exp(-big) / den
    return x_s, x_f, x_u, x_0


@dataclass(frozen=True)
class Choice:
    """The API market at the run's prices and served speeds (each (N,)).

    share_*: shares with the ultrafast tier [share]; no_deal_*: the standard and fast shares
    without it; diversion_standard / diversion_fast D_j: lab tokens of tier j that one ultrafast
    token replaces [-]; margin m_u [USD per 1M ultrafast tokens]; revenue_per_token
    p_u - sum D_j p_j [USD per 1M] (fee-bearing); gpu_avoided_per_token sum D_j g$_j [USD per
    1M]; lab_margins (standard, fast) p_j (1 - f) - g$_j: the margin of a lab token of each
    tier [USD per 1M]; market M [tokens/month]; premium (alpha_u - alpha_s) / beta [USD per 1M]; logit: the
    calibrated logit; utilities (v_s, v_f, v_u) at the run's prices and served speeds [-].
    """

    share_standard: Array
    share_fast: Array
    share_ultrafast: Array
    share_outside: Array
    no_deal_standard: Array
    no_deal_fast: Array
    diversion_standard: Array
    diversion_fast: Array
    margin: Array
    revenue_per_token: Array
    gpu_avoided_per_token: Array
    lab_margins: tuple[Array, Array]
    market: Array
    premium: Array
    logit: Logit
    utilities: tuple[Array, Array, Array]


def api_margin(
    price_ultrafast: ArrayLike,
    prices_other: tuple[ArrayLike, ArrayLike],
    gpu_costs: tuple[ArrayLike, ArrayLike],
    diversion: tuple[ArrayLike, ArrayLike],
    fees: ArrayLike,
) -> Array:
    """m_u = p_u (1 - f) - sum over j in (standard, fast) of D_j (p_j (1 - f) - g$_j)
    [USD per 1M ultrafast tokens served]: the margin of one ultrafast API token to the lab,
    net of the fees on every revenue change and of the GPU cost the diverted tokens no longer
    take (section 0.4). The one function the capacity allocation and the cash both use."""
    out = _f(price_ultrafast) * (1.0 - _f(fees))
    for p, g, d in zip(prices_other, gpu_costs, diversion, strict=True):
        out = out - _f(d) * token_margin(p, g, fees)
    return out


def token_margin(price: ArrayLike, gpu_cost: ArrayLike, fees: ArrayLike) -> Array:
    """p_j (1 - f) - g$_j [USD per 1M]: the margin of one token the lab sells on its GPUs."""
    return _f(price) * (1.0 - _f(fees)) - _f(gpu_cost)


def choice(
    lg: Logit,
    prices: tuple[ArrayLike, ArrayLike, ArrayLike],
    speeds: tuple[ArrayLike, ArrayLike, ArrayLike],
    gpu_costs: tuple[ArrayLike, ArrayLike],
    fees: ArrayLike,
) -> Choice:
    """Shares with and without the ultrafast tier, the diversion D_j = (x0_j - x_j) / x_u
    (plain logit: x_j / (1 - x_u)), and the margin per ultrafast token."""
    v = utilities(lg, prices, speeds)
    x_s, x_f, x_u, x_0 = _shares(v, lg.lam, True)
    n_s, n_f, _, _ = _shares(v, lg.lam, False)
    with np.errstate(divide="ignore", invalid="ignore"):
        d_s = np.where(x_u > 0, (n_s - x_s) / x_u, 0.0)
        d_f = np.where(x_u > 0, (n_f - x_f) / x_u, 0.0)
    p_u, p_s, p_f = _f(prices[2]), _f(prices[0]), _f(prices[1])
    margin = api_margin(p_u, (p_s, p_f), gpu_costs, (d_s, d_f), fees)
    return Choice(
        share_standard=x_s,
        share_fast=x_f,
        share_ultrafast=x_u,
        share_outside=x_0,
        no_deal_standard=n_s,
        no_deal_fast=n_f,
        diversion_standard=d_s,
        diversion_fast=d_f,
        margin=margin,
        revenue_per_token=p_u - d_s * p_s - d_f * p_f,
        gpu_avoided_per_token=d_s * _f(gpu_costs[0]) + d_f * _f(gpu_costs[1]),
        lab_margins=(token_margin(p_s, gpu_costs[0], fees), token_margin(p_f, gpu_costs[1], fees)),
        market=lg.market,
        premium=lg.premium(),
        logit=lg,
        utilities=v,
    )
