"""Renting versus buying the contracted capacity: MODEL.md section 4.

Costs here are reported as positive amounts (the present value of what is
paid); the payback module turns rent into a negative cash flow. Parameters
are scalars or arrays of shape (N,); monthly flows have shape (N, H).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import brentq

from econ.compute.capacity import months
from econ.constants import HOURS_PER_MONTH, SECONDS_PER_MONTH

Array = NDArray[np.float64]


def _col(x: ArrayLike) -> Array:
    return np.atleast_1d(np.asarray(x, float))[:, None]


def discount(t: ArrayLike, rate_annual: ArrayLike) -> Array:
    """d_t = (1 + r)^(-t/12): month t's cash at month end, today. Arguments broadcast (any layout)."""
    return np.exp(-np.asarray(t, float) / 12.0 * np.log1p(np.asarray(rate_annual, float)))


def discount_factors(rate_annual: ArrayLike, horizon: int) -> Array:
    """discount() for t = 1..H, shape (N, H)."""
    return discount(months(horizon)[None, :], _col(rate_annual))


def rent(t: ArrayLike, value_usd: ArrayLike, term_months: ArrayLike) -> Array:
    """R_t [USD] = value / T for t <= T, else 0 (flat take-or-pay). Arguments broadcast (any layout)."""
    term = np.asarray(term_months, float)
    return np.where(np.asarray(t, float) <= term, np.asarray(value_usd, float) / term, 0.0)


def rent_flows(value_usd: ArrayLike, term_months: ArrayLike, horizon: int) -> Array:
    """rent() for t = 1..H, shape (N, H)."""
    return rent(months(horizon)[None, :], _col(value_usd), _col(term_months))


@dataclass(frozen=True)
class BuyCase:
    """Buying the same capacity: capex at t = 0, monthly opex, residual at H. Shapes (N,), (N, H), (N,)."""

    systems: Array
    capex: Array
    opex: Array
    residual: Array


def buy_flows(
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
    horizon: int,
) -> BuyCase:
    """Cash needed to own ``mw`` of a platform instead of renting it.

    systems = mw x 1000 / pue / power_kw; capex = systems x price + mw x facility capex;
    opex_t = mw x 1000 x HOURS_PER_MONTH x power price + maintenance / 12 x systems x price;
    residual_H = systems x price x max(0, 1 - H / (12 life)) x resale
                 + mw x facility capex x max(0, 1 - H / (12 facility life)).
    """
    mw_ = np.atleast_1d(np.asarray(mw, float))
    systems = mw_ * 1000.0 / np.asarray(pue, float) / np.asarray(power_kw, float)
    hw = systems * np.asarray(system_price_usd, float)
    facility = mw_ * np.asarray(facility_capex_usd_per_mw, float)
    capex = hw + facility
    monthly = (
        mw_ * 1000.0 * HOURS_PER_MONTH * np.asarray(power_price_usd_per_kwh, float)
        + np.asarray(maintenance_share_annual, float) / 12.0 * hw
    )
    opex = np.broadcast_to(monthly[:, None], (monthly.shape[0], int(horizon))).copy()
    h = float(horizon)
    residual = hw * np.maximum(0.0, 1 - h / (12 * np.asarray(life_years, float))) * np.asarray(
        resale_share, float
    ) + facility * np.maximum(0.0, 1 - h / (12 * np.asarray(facility_life_years, float)))
    return BuyCase(np.atleast_1d(systems), np.atleast_1d(capex), opex, np.atleast_1d(residual))


def npv_buy(case: BuyCase, d: Array) -> Array:
    """NPV_buy [USD, a cost] = capex + sum opex_t d_t - residual x d_H, shape (N,)."""
    return case.capex + (case.opex * d).sum(axis=1) - case.residual * d[:, -1]


def npv_cost(flows: Array, d: Array) -> Array:
    """Present value [USD] of monthly costs: sum flows_t d_t."""
    return (flows * d).sum(axis=1)


def levelised_per_mw_month(
    npv: ArrayLike, mw: ArrayLike, d: Array, held_months: ArrayLike
) -> Array:
    """Cost per MW-month [USD] that has the same present value as ``npv`` over the months held.

    For the flat contract this is exactly value / (mw x T).
    """
    t = months(d.shape[1])
    pv_months = np.where(t <= _col(held_months), d, 0.0).sum(axis=1)
    return np.asarray(npv, float) / (np.asarray(mw, float) * pv_months)


def hourly_rent_per_mw_month(rent_usd_per_hour: ArrayLike, power_kw: ArrayLike) -> Array:
    """Rent per MW-month [USD] of a platform rented by the hour, per device."""
    return (
        np.asarray(rent_usd_per_hour, float)
        * HOURS_PER_MONTH
        * 1000.0
        / np.asarray(power_kw, float)
    )


def cost_per_mtok(
    usd_per_mw_month: ArrayLike, throughput_per_mw: ArrayLike, utilization: ArrayLike
) -> Array:
    """Cost per million tokens [USD/Mtok] of capacity sold at ``utilization`` of its frontier throughput."""
    tokens = (
        np.asarray(throughput_per_mw, float) * np.asarray(utilization, float) * SECONDS_PER_MONTH
    )
    return np.asarray(usd_per_mw_month, float) / tokens * 1e6


@dataclass(frozen=True)
class Breakeven:
    """The system price at which buying costs what renting costs (None with a reason if none)."""

    price_usd: float | None
    bracket: tuple[float, float]
    reason: str


def breakeven_system_price(npv_rent: float, npv_buy_at, upper: float) -> Breakeven:
    """Solve npv_buy_at(price) = npv_rent for the system price by bracketing root finding.

    ``npv_buy_at`` maps a price [USD] to the buy NPV [USD]; the bracket starts at
    [0, upper] and widens tenfold up to eight times before it gives up.
    """

    def gap(p: float) -> float:
        return float(npv_buy_at(p)) - float(npv_rent)

    lo, hi = 0.0, float(upper)
    if gap(lo) > 0:
        return Breakeven(
            None,
            (lo, hi),
            "buying costs more than renting even with free hardware (facility and power alone exceed the rent)",
        )
    for _ in range(8):
        if gap(hi) >= 0:
            return Breakeven(brentq(gap, lo, hi, xtol=1e-6, rtol=1e-12), (lo, hi), "solved")
        hi *= 10.0
    return Breakeven(
        None, (lo, hi), f"buying stays cheaper than renting at any system price up to {hi:,.0f} USD"
    )
