"""Demand per user and the quota (docs/model.md 5.2) against scipy's lognormal distribution."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import integrate, stats

from econ.revenue import quota


@pytest.mark.parametrize(
    ("median", "cap", "sigma"),
    [(5e5, 2e6, 1.2), (1e6, 1e6, 0.5), (3e6, 5e6, 1.6), (1e3, 1e9 / 1e6, 1.0), (2e5, 5e4, 0.8)],
)
def test_cap_hits_and_the_truncated_mean_against_scipy(median, cap, sigma):
    dist = stats.lognorm(s=sigma, scale=median)
    ell = math.log(cap / median)
    hit = quota.cap_hit_share(ell, sigma)
    assert float(hit) == pytest.approx(dist.sf(cap), rel=1e-12, abs=1e-300)
    # E[min(X, c)] by numerical integration, in units of the median
    body, _ = integrate.quad(
        lambda y: y * stats.lognorm(s=sigma).pdf(y), 0, cap / median, limit=200
    )
    want = median * (body + cap / median * dist.sf(cap))
    assert float(quota.tokens_served(median, ell, sigma)) == pytest.approx(want, rel=1e-8)
    assert float(quota.tokens_served(median, ell, sigma, hit)) == pytest.approx(want, rel=1e-8)


def test_quota_equal_to_median_is_hit_by_half():
    assert float(quota.cap_hit_share(0.0, 1.2)) == 0.5


def test_an_unlimited_quota_serves_the_lognormal_mean():
    # c -> infinity: E[X] = median e^(sigma^2 / 2)
    assert float(quota.tokens_served(1.0, 50.0, 1.0)) == pytest.approx(math.exp(0.5), rel=1e-12)


def test_log_quota_over_median():
    # quota 2e6 / multiplier 4 = 5e5 tokens at the tier; median 5e5 x phi 2 x e_t 0.9
    ell = quota.log_quota_over_median(2e6, 4.0, 5e5, 2.0, math.log(0.9))
    assert float(ell) == pytest.approx(math.log(5e5 / (5e5 * 2 * 0.9)), rel=1e-12)


def test_speed_factor_and_token_efficiency():
    assert float(quota.speed_factor(750, 54, 0.3)) == pytest.approx((750 / 54) ** 0.3, rel=1e-14)
    assert np.exp(quota.log_token_efficiency(0.15, 13)) == pytest.approx(
        0.85, rel=1e-14
    )  # a year on
    assert float(quota.log_token_efficiency(0.15, 1)) == 0.0


def test_plan_cap_hit_weights_tiers_by_adoption():
    h = quota.plan_cap_hit([0.65, 0.2, 0.15], [0.1, 0.3, 0.6])
    assert float(h) == pytest.approx(0.65 * 0.1 + 0.2 * 0.3 + 0.15 * 0.6)


@given(st.floats(1.0, 8.0), st.floats(0.01, 2.0))
def test_a_heavier_multiplier_raises_cap_hits(mult, extra):
    def hit(m):
        return float(quota.cap_hit_share(quota.log_quota_over_median(2e6, m, 5e5, 1.0, 0.0), 1.2))

    assert hit(mult + extra) >= hit(mult)


@given(st.floats(0.0, 0.5), st.floats(0.01, 0.4), st.integers(2, 36))
def test_token_efficiency_lowers_cap_hits(gain, extra, t):
    def hit(g):
        log_e = quota.log_token_efficiency(g, t)
        return float(
            quota.cap_hit_share(quota.log_quota_over_median(2e6, 4.0, 5e5, 1.0, log_e), 1.2)
        )

    assert hit(min(gain + extra, 0.99)) <= hit(gain) + 1e-15


def test_an_adopters_mixed_burn_by_hand(base):
    # section V4.7: an adopter uses the ultrafast tier for a share q of their queries and the
    # standard tier for the rest. Speed factors phi_i = (s_i / 54)^0.3 at the served speeds
    # (750 and 54); their demand's speed factor phi_mix = q phi_u + (1 - q) phi_s; a token burns
    # b = (q phi_u x 8 + (1 - q) phi_s x 1) / phi_mix quota units; q phi_u / phi_mix of their
    # tokens are ultrafast. At q = 1 the adopter is all ultrafast: b = 8, share 1.
    from econ.model import evaluate

    r = evaluate(base, {"usage.ultrafast_query_share": np.array([0.5, 0.2, 1.0])}, served=1.0)
    phi_u, phi_s = (750 / 54) ** 0.3, 1.0
    for j, q in enumerate((0.5, 0.2, 1.0)):
        mix = q * phi_u + (1 - q) * phi_s
        assert r.parts["mix.phi"][j] == pytest.approx(mix, rel=1e-14)
        assert r.parts["mix.burn"][j] == pytest.approx(
            (q * phi_u * 8 + (1 - q) * phi_s) / mix, rel=1e-14
        )
        assert r.parts["mix.ultrafast_share"][j] == pytest.approx(q * phi_u / mix, rel=1e-14)
    assert (r.parts["mix.burn"][2], r.parts["mix.ultrafast_share"][2]) == pytest.approx((8, 1))
    # a heavier mixed burn hits the cap more often: the ultrafast cap-hit share rises with q
    hits = r.parts["plus_hit.ultrafast"][:, 0]
    assert hits[1] < hits[0] < hits[2]
