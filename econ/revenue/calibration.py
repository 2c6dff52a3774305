"""The calibrated no-deal world, checked (docs/model.md, section 0.5): calibrated, or the data
refused in one line naming the inputs, never "calibrated" in words and drifting in numbers.

The model derives the base upgrade rate and the cap-hit propensity from the Pro stock, its
churn and growth and the month-1 Plus users (econ.revenue.allocation.calibrate_no_deal).
Some data admits no such world: no Plus users to upgrade while the stock must replace its
churn, or more upgrades a month than there are Plus users. :func:`check_no_deal` refuses
those, and validates every derived rate as an input is validated: the base rate and the
month-1 upgrade rate (scaled by the Pro price) are probabilities a month, in [0, 1]; the
propensity keeps to conversion.max_capped_propensity's rule; and month 1 of the no-deal
world grows at market.pro_growth_monthly as the summary says.

Arrays broadcast over N scenarios, (N,) or (1,); ``p`` is the model's parameters (called
with a key, it returns that key's values (N,) or (1,); ``p.n`` is N; ``p.over`` the keys
given as arrays).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from econ.assumptions import AssumptionError

# the inputs of the calibration, named where a scenario of many breaks it
INPUTS = (
    "market.pro_subscribers_start",
    "conversion.pro_churn_monthly",
    "market.pro_growth_monthly",
    "market.mau",
    "market.plus_share_of_mau",
    "conversion.capped_share_of_upgrades",
    "conversion.max_capped_propensity",
    "plans.pro.price_usd_month",
    "plans.pro.price_ref_usd_month",
    "conversion.pro_price_elasticity",
)
RELATIVE = 1e-9  # how closely month 1 must reproduce the growth asked for


def check_no_deal(
    p,
    base: ArrayLike,
    propensity: ArrayLike,
    price_factor: ArrayLike,
    plus_pool_1: ArrayLike,
    hit_no_deal_1: ArrayLike,
) -> None:
    """Raise AssumptionError unless the no-deal world of every scenario is calibrated: its
    base rate and propensity (what calibrate_no_deal returned), the price factor pf, the
    month-1 Plus users N_1 and the month-1 no-deal cap-hit share h0_1, each (N,) or (1,)."""
    n = max(int(getattr(p, "n", 1)), 1)

    def full(x) -> np.ndarray:
        return np.broadcast_to(np.asarray(x, float).reshape(-1), (n,))

    start, churn, growth = (
        full(p(k))
        for k in (
            "market.pro_subscribers_start",
            "conversion.pro_churn_monthly",
            "market.pro_growth_monthly",
        )
    )
    base, prop, pf, pool, h0 = (
        full(x) for x in (base, propensity, price_factor, plus_pool_1, hit_no_deal_1)
    )
    flow = start * (churn + growth)  # upgrades month 1 needs [users/month]
    with np.errstate(divide="ignore", invalid="ignore"):
        needed = np.where(pool > 0, flow / pool, np.where(flow > 0, np.inf, 0.0))

    def first(bad: np.ndarray) -> int | None:
        return int(np.argmax(bad)) if bad.any() else None

    j = first(~(pool > 0) & (flow > 0))
    if j is not None:
        raise AssumptionError(
            f"the no-deal world cannot be calibrated{_scenario(p, j)}: there are no Plus users "
            "in month 1 (market.mau x market.plus_share_of_mau = 0) to upgrade, but "
            f"{start[j]:,.0f} Pro subscribers (market.pro_subscribers_start) need "
            f"{flow[j]:,.0f} upgrades a month to replace their churn ({churn[j]:.2%}, "
            f"conversion.pro_churn_monthly) and grow {growth[j]:.2%} "
            "(market.pro_growth_monthly); expected Plus users to upgrade from "
            "(market.plus_share_of_mau > 0), or market.pro_growth_monthly = "
            "-conversion.pro_churn_monthly"
        )
    j = first(needed > 1)
    if j is not None:
        raise AssumptionError(
            f"the no-deal world cannot be calibrated{_scenario(p, j)}: {start[j]:,.0f} Pro "
            f"subscribers (market.pro_subscribers_start) losing {churn[j]:.2%} a month "
            f"(conversion.pro_churn_monthly) and growing {growth[j]:.2%} "
            f"(market.pro_growth_monthly) need {flow[j]:,.0f} upgrades a month from "
            f"{pool[j]:,.0f} Plus users (market.mau x market.plus_share_of_mau): a monthly "
            f"upgrade rate of {_percent(needed[j])}, above 100 %; expected market.pro_subscribers_start "
            "x (conversion.pro_churn_monthly + market.pro_growth_monthly) <= the Plus users"
        )
    most = full(p("conversion.max_capped_propensity"))
    for name, rate, high, what in (
        ("base upgrade rate", base, np.ones(n), "[0, 1]"),
        ("cap-hit propensity", prop, most, "[0, conversion.max_capped_propensity]"),
    ):
        j = first(~((rate >= -1e-15) & (rate <= high * (1 + 1e-12))))
        if j is not None:
            raise AssumptionError(
                f"the calibrated {name} of the no-deal world{_scenario(p, j)} is {rate[j]:g} a "
                f"month, outside {what}: the calibration's inputs cannot all be right"
            )
    month_1 = base + prop * h0
    j = first(np.abs(month_1 - needed) > RELATIVE * np.maximum(needed, 1e-300))
    if j is not None:
        raise AssumptionError(
            f"the no-deal world is not calibrated{_scenario(p, j)}: its month-1 upgrade rate "
            f"{month_1[j]:.6%} differs from the {needed[j]:.6%} that growing "
            f"{growth[j]:.2%} a month (market.pro_growth_monthly) needs"
        )
    scaled = pf * month_1
    j = first(~(scaled <= 1))
    if j is not None:
        get = getattr(p, "get", None)  # None where a key is not in the data
        price, ref = (
            get(k) if get is not None else None
            for k in ("plans.pro.price_usd_month", "plans.pro.price_ref_usd_month")
        )
        at = (
            f" at the Pro price ${full(price)[j]:,.2f} (plans.pro.price_usd_month)"
            if price is not None
            else ""
        )
        against = (
            f" at the reference price ${full(ref)[j]:,.2f} (plans.pro.price_ref_usd_month)"
            if ref is not None
            else ""
        )
        raise AssumptionError(
            f"the no-deal world's upgrade rate{_scenario(p, j)}{at} is {_percent(scaled[j])} a "
            f"month, above 100 %: the calibrated {month_1[j]:.4%}{against} times the price "
            f"factor {pf[j]:.4g} (conversion.pro_price_elasticity); expected a Pro price nearer "
            "its reference, or a smaller conversion.pro_price_elasticity"
        )


def _scenario(p, j: int) -> str:
    """' in scenario j (key=value, ...)' naming the scenario and the inputs of the calibration
    that vary between the scenarios evaluated together (nothing for one case, or when none varies)."""
    over = getattr(p, "over", {})
    named = ", ".join(
        f"{k}={float(np.asarray(over[k]).reshape(-1)[min(j, np.size(over[k]) - 1)]):g}"
        for k in INPUTS
        if k in over and np.size(over[k]) > 1
    )
    if int(getattr(p, "n", 1)) <= 1 or not named:
        return ""  # one case, or the calibration's inputs alike in every scenario evaluated
    return f" in scenario {j} ({named})"


def _percent(x: float) -> str:
    """A rate a month as a percentage, legible however large."""
    return f"{x:.1%}" if abs(x) < 100 else f"{x * 100:.3g} %"
