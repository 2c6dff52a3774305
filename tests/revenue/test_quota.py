"""Cap-hit shares against scipy.stats.lognorm and analytic values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import lognorm

from econ.revenue import quota


@pytest.mark.parametrize(
    ("q", "m", "sigma", "e", "f"),
    [(2e6, 5e5, 1.2, 1.0, 1.0), (2e6, 5e5, 1.2, 0.85, 8.8), (1e6, 1e6, 0.5, 1.0, 2.0)],
)
def test_tier_cap_hit_is_the_lognormal_survival_function(q, m, sigma, e, f):
    # weekly demand ~ lognormal(median m e f, shape sigma): P(demand > q)
    ref = lognorm(s=sigma, scale=m * e * f).sf(q)
    assert quota.tier_cap_hit(q, m, sigma, e, f) == pytest.approx(ref, rel=1e-12)


def test_quota_equal_to_median_is_hit_by_half():
    assert quota.tier_cap_hit(5e5, 5e5, 1.2, 1.0, 1.0) == pytest.approx(0.5)


def test_consumption_factor():
    assert quota.consumption_factor(4, 750, 54, 0.0) == 4
    assert quota.consumption_factor(4, 750, 54, 1.0) == pytest.approx(4 * 750 / 54)


def test_token_efficiency_compounds_annually():
    e = quota.token_efficiency(0.15, np.array([1, 13, 25]))
    np.testing.assert_allclose(e, [1.0, 0.85, 0.85**2])


def test_cap_hit_share_weights_tiers_by_adoption():
    h = quota.cap_hit_share([0.65, 0.2, 0.15], [0.1, 0.3, 0.7])
    assert h == pytest.approx(0.65 * 0.1 + 0.2 * 0.3 + 0.15 * 0.7)


@settings(max_examples=50, deadline=None)
@given(st.floats(1.0, 6.0), st.floats(0.01, 3.0))
def test_higher_usage_multiplier_raises_cap_hits(mult, extra):
    lo = quota.tier_cap_hit(2e6, 5e5, 1.2, 1.0, quota.consumption_factor(mult, 750, 54, 0.3))
    hi = quota.tier_cap_hit(
        2e6, 5e5, 1.2, 1.0, quota.consumption_factor(mult + extra, 750, 54, 0.3)
    )
    assert hi > lo


@settings(max_examples=50, deadline=None)
@given(st.floats(0.0, 0.5), st.floats(0.01, 0.4), st.integers(2, 36))
def test_faster_token_efficiency_gains_lower_cap_hits(gain, extra, t):
    slow = quota.tier_cap_hit(2e6, 5e5, 1.2, quota.token_efficiency(gain, t), 4.0)
    fast = quota.tier_cap_hit(
        2e6, 5e5, 1.2, quota.token_efficiency(min(gain + extra, 0.99), t), 4.0
    )
    assert fast < slow


def test_lognormal_sf_matches_the_normal_cdf():
    assert quota.lognormal_sf(math.exp(1.2), 1.2) == pytest.approx(1 - 0.8413447460685429)
