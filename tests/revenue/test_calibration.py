"""The calibrated no-deal world is calibrated or refused (docs/model.md, section 0.5): the
guard on its own, and through the model."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import DATA

import econ
from econ.assumptions import AssumptionError
from econ.revenue import allocation
from econ.revenue.calibration import check_no_deal


class Params:
    """What the guard reads of the model's parameters: values by key, N, the arrays given."""

    def __init__(self, **values):
        self.values = {
            k.replace("__", "."): np.atleast_1d(np.asarray(v, float)) for k, v in values.items()
        }
        self.n = max(v.size for v in self.values.values())
        self.over = {k: v for k, v in self.values.items() if v.size > 1}

    def __call__(self, key):
        return self.values[key]

    def get(self, key):
        return self.values.get(key)


def _params(**changed):
    keys = {
        "market__pro_subscribers_start": 1e6,
        "conversion__pro_churn_monthly": 0.03,
        "market__pro_growth_monthly": 0.0,
        "conversion__capped_share_of_upgrades": 0.5,
        "conversion__max_capped_propensity": 0.05,
        "plans__pro__price_usd_month": 200.0,
        "plans__pro__price_ref_usd_month": 200.0,
    }
    return Params(**{**keys, **changed})


def _calibrated(p, pool, h0):
    return allocation.calibrate_no_deal(
        p("market.pro_subscribers_start"),
        p("conversion.pro_churn_monthly"),
        p("market.pro_growth_monthly"),
        pool,
        h0,
        p("conversion.capped_share_of_upgrades"),
        p("conversion.max_capped_propensity"),
    )


def test_a_calibrated_world_passes():
    p = _params(market__pro_growth_monthly=[0.0, 0.02, -0.03])
    pool, h0 = np.array([3e7]), np.array([0.0041])
    base, prop = _calibrated(p, pool, h0)
    check_no_deal(p, base, prop, np.array([1.0]), pool, h0)


def test_no_plus_users_to_upgrade_from_is_refused_not_calibrated_at_zero():
    # the calibration returns a zero rate here: the stock would fall by the churn while the
    # summary said it grows at market.pro_growth_monthly
    p = _params()
    pool, h0 = np.array([0.0]), np.array([0.0])
    base, prop = _calibrated(p, pool, h0)
    assert float(base[0]) == 0.0
    with pytest.raises(
        AssumptionError, match=r"^the no-deal world cannot be calibrated: there are no Plus users"
    ):
        check_no_deal(p, base, prop, np.array([1.0]), pool, h0)


def test_an_upgrade_rate_above_100_percent_is_refused_naming_the_scenario():
    p = _params(market__pro_subscribers_start=[1e6, 2e9])
    pool, h0 = np.array([3e7]), np.array([0.0041])
    base, prop = _calibrated(p, pool, h0)
    with pytest.raises(
        AssumptionError,
        match=r"^the no-deal world cannot be calibrated in scenario 1 "
        r"\(market\.pro_subscribers_start=2e\+09\): "
        r"2,000,000,000 Pro subscribers .* need 60,000,000 upgrades a month from 30,000,000 Plus "
        r"users .*: a monthly upgrade rate of 200\.0%, above 100 %",
    ):
        check_no_deal(p, base, prop, np.array([1.0]), pool, h0)


def test_derived_rates_are_validated_like_inputs():
    p = _params()
    pool, h0 = np.array([3e7]), np.array([0.0041])
    base, prop = _calibrated(p, pool, h0)
    with pytest.raises(AssumptionError, match=r"cap-hit propensity of the no-deal world is 0\.06"):
        check_no_deal(p, base, prop + 0.01, np.array([1.0]), pool, h0)
    with pytest.raises(AssumptionError, match=r"base upgrade rate of the no-deal world is -0\.01"):
        check_no_deal(p, np.array([-0.01]), prop, np.array([1.0]), pool, h0)
    with pytest.raises(AssumptionError, match=r"not calibrated: its month-1 upgrade rate"):
        check_no_deal(p, base * 1.5, prop, np.array([1.0]), pool, h0)
    with pytest.raises(
        AssumptionError,
        match=r"upgrade rate at the Pro price \$200\.00 .* is 1000\.0% a month, above 100 %",
    ):
        check_no_deal(p, base, prop, np.array([1e4]), pool, h0)


def test_the_model_refuses_data_it_cannot_calibrate():
    a = econ.load(DATA)
    for key, value, message in (
        ("market.plus_share_of_mau", "0", r"no Plus users in month 1"),
        ("market.plus_share_of_mau", "0.00001", r"a monthly upgrade rate of 300\.0%, above 100 %"),
    ):
        with pytest.raises(AssumptionError, match=message):
            econ.evaluate(a.with_overrides([(key, value)]))


def test_the_no_deal_stock_grows_as_calibrated_in_month_1_in_every_scenario():
    a = econ.load(DATA)
    rng = np.random.default_rng(4)
    n = 40
    start = rng.uniform(2e5, 3e6, n)
    churn = rng.uniform(0.0, 0.1, n)
    growth = rng.uniform(-churn, 0.05)
    e = econ.evaluate(
        a,
        {
            "market.pro_subscribers_start": start,
            "conversion.pro_churn_monthly": churn,
            "market.pro_growth_monthly": growth,
        },
    )
    month_1 = np.asarray(e.results.pro_counterfactual)[:, 0]
    np.testing.assert_allclose(month_1, start * (1 + growth), rtol=1e-12)
