"""Renting versus buying the contracted capacity (docs/model.md, section 4).

Monthly arrays are time-major: months t = 1..H down axis 0, scenarios across,
(H, N) (or (H, 1) where nothing varies); parameters are scalars or (N,).
Costs are reported as positive amounts (what is paid); the payback stage turns
rent into a negative cash flow.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from econ.constants import HOURS_PER_MONTH, KW_PER_MW, MONTHS_PER_YEAR, SECONDS_PER_MONTH

Array = NDArray[np.float64]


def _f(x: ArrayLike) -> Array:
    return np.asarray(x, float)


def discount(t: ArrayLike, rate_annual: ArrayLike) -> Array:
    """d_t = (1 + r)^(-t/12): month t's cash at month end, today [-]. Arguments broadcast."""
    return np.exp(-_f(t) / MONTHS_PER_YEAR * np.log1p(_f(rate_annual)))


def rent(
    t: ArrayLike,
    mw_scheduled: Array,
    value_usd: ArrayLike,
    term_months: ArrayLike,
    pay_as_delivered: ArrayLike,
    delivered_share: ArrayLike = 1.0,
) -> Array:
    """R_t [USD/month] (4.1, V4.5), time-major (H, N).

    Pay as delivered (``pay_as_delivered`` = 1): R_t = value x delivered x MW_t / sum over
    tau <= T of MW_tau, with MW_t the contracted schedule and ``delivered_share`` the share of
    it delivered (rent follows the MW delivered); take-or-pay (0): R_t = value / T (owed in
    full, flat, whatever is delivered). R_t = 0 after T. ``mw_scheduled`` is MW_t (H, N) or
    (H, 1), already 0 after the term; ``pay_as_delivered`` is 0 or 1 and blends the two.
    """
    value, term, pad = _f(value_usd), _f(term_months), _f(pay_as_delivered)
    delivered = _f(delivered_share) * mw_scheduled / mw_scheduled.sum(axis=0, keepdims=True)
    flat = np.where(_f(t) <= term, 1.0 / term, 0.0)
    return value * (pad * delivered + (1.0 - pad) * flat)


PAYMENTS = ("pay_as_delivered", "take_or_pay")


def pays_as_delivered(payment: str) -> float:
    """1.0 where the rent follows the MW delivered (contract.payment = pay_as_delivered), 0.0
    where it is owed in full, flat (take_or_pay): the weight :func:`rent` blends by."""
    return 1.0 if payment == "pay_as_delivered" else 0.0


def hourly_rent_per_mw_month(
    rent_usd_per_hour: ArrayLike, power_kw: ArrayLike, pue: ArrayLike
) -> Array:
    """Rent per facility MW-month [USD/MW-month] of a platform rented by the device-hour:
    rate x HOURS_PER_MONTH x 1000 / (power_kw x pue) (4.3)."""
    return _f(rent_usd_per_hour) * HOURS_PER_MONTH * KW_PER_MW / (_f(power_kw) * _f(pue))


@dataclass(frozen=True)
class BuyCase:
    """Buying the contracted capacity instead of renting it (4.2), time-major.

    systems : devices bought, (N,) [systems].
    hardware_usd, facility_usd : their capex, (N,) [USD].
    capex : capex spent at the end of month t - 1, rows t = 1..H (so row 1 is spent at t = 0),
        (H, N) [USD]: the share (MW_t - MW_(t-1)) / mw of the capex as the MW come online.
    opex : power and maintenance in months t = 1..H, 0 after the term, (H, N) [USD].
    residual : resale and undepreciated facility value at the end of the term, (N,) [USD].
    """

    systems: Array
    hardware_usd: Array
    facility_usd: Array
    capex: Array
    opex: Array
    residual: Array


def buy_case(
    t: Array,
    mw_online: Array,
    mw: ArrayLike,
    pue: ArrayLike,
    power_kw: ArrayLike,
    system_price_usd: ArrayLike,
    facility_capex_usd_per_mw: ArrayLike,
    power_price_usd_per_kwh: ArrayLike,
    maintenance_share_annual: ArrayLike,
    life_years: ArrayLike,
    facility_life_years: ArrayLike,
    resale_share: ArrayLike,
    term_months: ArrayLike,
) -> BuyCase:
    """Cash needed to own the contracted facility MW over the term (4.2).

    systems = mw x 1000 / pue / power_kw; capex = systems x price + mw x facility capex, spent
    as the MW come online; opex_t = MW_t x 1000 x HOURS_PER_MONTH x power price +
    maintenance / 12 x systems x price for t <= T; residual at T = systems x price x
    max(0, 1 - T / (12 life)) x resale + mw x facility capex x max(0, 1 - T / (12 facility life)).
    ``t`` is (H, 1) month numbers and ``mw_online`` MW_t (H, N) or (H, 1), 0 after the term.
    """
    mw_, term = _f(mw), _f(term_months)
    systems = mw_ * KW_PER_MW / _f(pue) / _f(power_kw)
    hw = systems * _f(system_price_usd)
    facility = mw_ * _f(facility_capex_usd_per_mw)
    before = np.vstack([np.zeros((1, mw_online.shape[1])), mw_online[:-1]])
    in_term = t <= term
    added = np.where(in_term, np.maximum(mw_online - before, 0.0), 0.0) / mw_
    capex = added * (hw + facility)
    opex = np.where(
        in_term,
        mw_online * KW_PER_MW * HOURS_PER_MONTH * _f(power_price_usd_per_kwh)
        + _f(maintenance_share_annual) / MONTHS_PER_YEAR * hw,
        0.0,
    )
    years = term / MONTHS_PER_YEAR
    residual = hw * np.maximum(0.0, 1 - years / _f(life_years)) * _f(
        resale_share
    ) + facility * np.maximum(0.0, 1 - years / _f(facility_life_years))
    return BuyCase(
        *np.broadcast_arrays(np.atleast_1d(systems), np.atleast_1d(hw), np.atleast_1d(facility)),
        capex,
        opex,
        np.atleast_1d(residual),
    )


def at_term(x: Array, t: Array, term_months: ArrayLike) -> Array:
    """Row t = T of a time-major (H, N) array, per scenario: (N,)."""
    return np.where(t == _f(term_months), x, 0.0).sum(axis=0)


def npv_buy(
    case: BuyCase, t: Array, d: Array, rate_annual: ArrayLike, term_months: ArrayLike
) -> Array:
    """NPV_buy [USD, a cost] = sum of the capex shares, each discounted from the end of month
    t - 1, + sum over t <= T of opex_t d_t - residual x d_T, shape (N,)."""
    d_before = discount(t - 1.0, rate_annual)
    return (
        (case.capex * d_before).sum(axis=0)
        + (case.opex * d).sum(axis=0)
        - case.residual * at_term(d, t, term_months)
    )


def owner_flows(case: BuyCase, rent_flows: Array, t: Array, term_months: ArrayLike) -> Array:
    """The lessor's cash at the end of months 0..H, (H + 1, N) [USD]: - capex shares, rent
    minus opex during the term, + the residual at T (4.3)."""
    H, N = np.broadcast_shapes(case.opex.shape, rent_flows.shape, case.capex.shape)
    flows = np.zeros((H + 1, N))
    flows[:-1] -= case.capex
    flows[1:] += rent_flows - case.opex
    flows[1:] += np.where(t == _f(term_months), case.residual, 0.0)
    return flows


def lessor_yield(case: BuyCase, rent_flows: Array, t: Array, term_months: ArrayLike) -> Array:
    """The lessor's annualised yield [1/yr]: the IRR of owner_flows (root nearest zero), NaN
    where none. A yield far below any cost of capital says the rent and the hardware price
    cannot both be right."""
    from econ.payback import annualise, irr

    flows = owner_flows(case, rent_flows, t, term_months)
    # flows at months 0..H have the same roots as the same flows at periods 1..H+1
    return annualise(irr(np.ascontiguousarray(flows.T), unique_only=False))


def per_delivered_mw_month(cost_npv: ArrayLike, mw_online: Array, d: Array) -> Array:
    """Levelised cost per delivered MW-month [USD/MW-month]: NPV / sum MW_t d_t. For rent that
    follows delivery it is exactly value / sum MW_t."""
    return _f(cost_npv) / (mw_online * d).sum(axis=0)


def cost_per_mtok(
    usd_per_mw_month: ArrayLike, throughput_per_mw: ArrayLike, utilization: ArrayLike
) -> Array:
    """Cost per million tokens [USD/Mtok] of capacity sold at ``utilization`` of its throughput."""
    tokens = _f(throughput_per_mw) * _f(utilization) * SECONDS_PER_MONTH
    with np.errstate(divide="ignore", invalid="ignore"):
        return _f(usd_per_mw_month) / tokens * 1e6


@dataclass(frozen=True)
class Breakeven:
    """The system price at which buying costs what renting costs (None with a reason if none)."""

    price_usd: float | None
    reason: str


def breakeven_system_price(
    npv_rent: float, npv_buy_at_zero: float, npv_buy_per_usd: float
) -> Breakeven:
    """The system price p with NPV_buy(p) = NPV_rent. NPV_buy is linear in the price,
    NPV_buy(p) = NPV_buy(0) + p x dNPV/dp, so the root is solved exactly; none where it would
    be <= 0 (free hardware already costs more than the rent)."""
    if npv_buy_per_usd <= 0:
        return Breakeven(None, "the system price does not raise the cost of buying")
    price = (npv_rent - npv_buy_at_zero) / npv_buy_per_usd
    if price <= 0:
        return Breakeven(
            None,
            "buying costs more than renting even with free hardware (facility and power alone "
            "exceed the rent)",
        )
    return Breakeven(float(price), "solved")
