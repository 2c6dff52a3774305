"""The API buyers' logit (docs/model.md, section 0.4) worked by hand.

A three-tier case with round numbers: V_s = 600, V_f = 200, V_u = 200 tokens a month at the
reference price, diversion D = 0.8: the market is M = 200 + 800 / 0.8 = 1,200 and the shares
(q_s, q_f, q_u, q_0) = (1/2, 1/6, 1/6, 1/6), the outside share (1 - 1/6)(1 - 0.8) = 1/6. Prices
10, 20 and 60 (the reference) per 1M tokens; elasticity 1 at the reference: beta = 1 / (60 x 5/6)
= 0.02; no willingness to pay for speed (gamma = 0) unless a test says so.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from econ.revenue import choice

PRICES = (10.0, 20.0, 60.0)
SPEEDS = (50.0, 125.0, 750.0)
FEES = 0.1


def _cal(lam: float = 1.0, wtp: float = 0.0) -> choice.Logit:
    return choice.calibrate(600, 200, 200, 0.8, 10, 20, 60, 1.0, wtp, *SPEEDS, lam=lam)


def _shares(lg, prices=PRICES, speeds=SPEEDS, on=True):
    return np.array([float(x) for x in choice.shares(lg, prices, speeds, on)])


def test_market_shares_and_constants_by_hand():
    lg = _cal()
    assert float(lg.market) == pytest.approx(1200, rel=1e-15)
    assert (float(lg.q_s), float(lg.q_f), float(lg.q_u), float(lg.q_0)) == pytest.approx(
        (0.5, 1 / 6, 1 / 6, 1 / 6), rel=1e-14
    )
    assert float(lg.beta) == pytest.approx(0.02, rel=1e-14)
    # alpha_i = ln(q_i / q_0) + beta p_i: ln 3 + 0.2, 0 + 0.4, 0 + 1.2
    assert float(lg.alpha_s) == pytest.approx(math.log(3) + 0.2, rel=1e-14)
    assert float(lg.alpha_f) == pytest.approx(0.4, rel=1e-14)
    assert float(lg.alpha_u) == pytest.approx(1.2, rel=1e-14)
    assert float(lg.premium()) == pytest.approx((1.2 - math.log(3) - 0.2) / 0.02, rel=1e-14)
    np.testing.assert_allclose(_shares(lg), [0.5, 1 / 6, 1 / 6, 1 / 6], rtol=1e-14)


def _elasticity(lg, target: int, price_of: int, h: float = 1e-6) -> float:
    """d ln x_target / d ln p, by central differences (the test's own derivative)."""
    up, down = list(PRICES), list(PRICES)
    up[price_of] *= 1 + h
    down[price_of] *= 1 - h
    return (
        math.log(_shares(lg, tuple(up))[target]) - math.log(_shares(lg, tuple(down))[target])
    ) / (math.log(1 + h) - math.log(1 - h))


def test_own_and_cross_price_elasticities_by_hand():
    # own: -beta p_i (1 - x_i); cross: beta p_j x_j
    lg = _cal()
    s, f, u = 0, 1, 2
    assert _elasticity(lg, u, u) == pytest.approx(-0.02 * 60 * 5 / 6, rel=1e-7)  # -1
    assert _elasticity(lg, s, s) == pytest.approx(-0.02 * 10 * 0.5, rel=1e-7)  # -0.1
    assert _elasticity(lg, s, u) == pytest.approx(0.02 * 60 / 6, rel=1e-7)  # 0.2
    assert _elasticity(lg, f, u) == pytest.approx(0.02 * 60 / 6, rel=1e-7)  # IIA: the same
    assert _elasticity(lg, u, s) == pytest.approx(0.02 * 10 * 0.5, rel=1e-7)  # 0.1


def test_a_price_step_of_one_over_beta_by_hand():
    # p_u = 110: beta x 50 = 1, so x_u = (1/6) e^-1 / (5/6 + (1/6) e^-1) = e^-1 / (5 + e^-1)
    lg = _cal()
    x = _shares(lg, (10.0, 20.0, 110.0))
    k = math.exp(-1)
    np.testing.assert_allclose(x, np.array([3, 1, k, 1]) / (5 + k), rtol=1e-13)


def test_diversion_and_the_margin_by_hand():
    # without the ultrafast tier: x0_s = 3/5, x0_f = 1/5; D_s = (3/5 - 1/2) / (1/6) = 0.6,
    # D_f = (1/5 - 1/6) / (1/6) = 0.2, their sum the diversion share 0.8.
    # m_u = 60 x 0.9 - 0.6 (10 x 0.9 - 2) - 0.2 (20 x 0.9 - 4) = 54 - 4.2 - 2.8 = 47
    c = choice.choice(_cal(), PRICES, SPEEDS, (2.0, 4.0), FEES)
    assert (float(c.no_deal_standard), float(c.no_deal_fast)) == pytest.approx(
        (0.6, 0.2), rel=1e-13
    )
    assert float(c.diversion_standard) == pytest.approx(0.6, rel=1e-13)
    assert float(c.diversion_fast) == pytest.approx(0.2, rel=1e-13)
    assert float(c.margin) == pytest.approx(47.0, rel=1e-13)
    assert float(c.revenue_per_token) == pytest.approx(60 - 6 - 4, rel=1e-13)
    assert float(c.gpu_avoided_per_token) == pytest.approx(0.6 * 2 + 0.2 * 4, rel=1e-13)
    # the one margin function: the fees apply to every revenue change, GPU cost carries none
    assert float(choice.api_margin(60, (10, 20), (2, 4), (0.6, 0.2), 0.1)) == pytest.approx(47.0)
    assert float(choice.api_margin(60, (10, 20), (0, 0), (0.6, 0.2), 0.0)) == pytest.approx(50.0)


def test_no_fast_volume_diverts_everything_to_standard():
    # V_f = 0: M = 200 + 600 / 0.8 = 950; the fast tier has no share with or without the deal
    # and D_s = D = 0.8
    lg = choice.calibrate(600, 0, 200, 0.8, 10, 20, 60, 1.0, 0.0, *SPEEDS)
    c = choice.choice(lg, PRICES, SPEEDS, (2.0, 4.0), FEES)
    assert float(c.market) == pytest.approx(950, rel=1e-15)
    assert float(c.share_fast) == 0 and float(c.no_deal_fast) == 0
    assert float(c.diversion_standard) == pytest.approx(0.8, rel=1e-13)
    assert float(c.diversion_fast) == 0
    assert float(c.margin) == pytest.approx(54 - 0.8 * 7, rel=1e-13)


def test_a_halved_speed_costs_the_willingness_to_pay_for_a_doubling():
    # gamma = beta w / ln 2: serving the ultrafast tier at half its speed lowers its utility by
    # beta w, exactly what a price w higher does
    lg = _cal(wtp=30.0)
    slow = _shares(lg, PRICES, (50.0, 125.0, 375.0))
    dear = _shares(lg, (10.0, 20.0, 90.0), SPEEDS)
    np.testing.assert_allclose(slow, dear, rtol=1e-13)
    # at the tier speeds the speed term cancels in the calibration
    np.testing.assert_allclose(_shares(lg), [0.5, 1 / 6, 1 / 6, 1 / 6], rtol=1e-13)


def test_the_nest_at_lambda_one_is_the_plain_logit():
    lg1, plain = _cal(lam=1.0), _cal()
    for prices in (PRICES, (12.0, 25.0, 90.0), (8.0, 30.0, 40.0)):
        v = [1.2, 0.4]  # alpha_u, alpha_f
        e = np.exp(
            [math.log(3) + 0.2 - 0.02 * prices[0], v[1] - 0.02 * prices[1], v[0] - 0.02 * prices[2]]
        )
        want = np.r_[e, 1.0] / (1 + e.sum())
        np.testing.assert_allclose(_shares(lg1, prices), want, rtol=1e-13)
        np.testing.assert_allclose(_shares(plain, prices), want, rtol=1e-13)


def test_a_nest_reproduces_the_calibration_and_diverts_more_to_fast():
    lg = _cal(lam=0.5)
    np.testing.assert_allclose(_shares(lg), [0.5, 1 / 6, 1 / 6, 1 / 6], rtol=1e-13)
    nested = choice.choice(lg, PRICES, SPEEDS, (2.0, 4.0), FEES)
    plain = choice.choice(_cal(), PRICES, SPEEDS, (2.0, 4.0), FEES)
    assert float(nested.diversion_fast) > float(plain.diversion_fast)
    assert float(nested.diversion_standard) < float(plain.diversion_standard)


def test_the_logit_broadcasts_over_scenarios():
    lg = choice.calibrate(
        np.array([600.0, 600.0]), 200, 200, np.array([0.8, 0.5]), 10, 20, 60, 1.0, 0.0, *SPEEDS
    )
    np.testing.assert_allclose(lg.market, [1200, 200 + 800 / 0.5], rtol=1e-15)
    x_s, x_f, x_u, x_0 = choice.shares(lg, PRICES, SPEEDS)
    np.testing.assert_allclose(x_s + x_f + x_u + x_0, 1.0, rtol=1e-14)


def test_a_diversion_next_to_one_keeps_the_logit_finite():
    """D just below 1 (the top of its range): M = 200 + 800 / D -> 1,000, q -> (3/5, 1/5, 1/5)
    and the outside share (1 - q_u)(1 - D) = 4/5 x 2^-53 by hand, where 1 - q_s - q_f - q_u
    cancels to rounding noise. Every buyer of an ultrafast token then comes from the lab's
    tiers: at the calibration point D_s + D_f = 1 - x_0 / (1 - x_u) = D."""
    d = float(np.nextafter(1.0, 0.0))
    lg = choice.calibrate(600, 200, 200, d, 10, 20, 60, 1.0, 0.0, *SPEEDS)
    assert float(lg.q_0) == pytest.approx(0.8 * 2.0**-53, rel=1e-12)
    assert all(math.isfinite(float(x)) for x in (lg.alpha_s, lg.alpha_f, lg.alpha_u))
    np.testing.assert_allclose(_shares(lg)[:3], [0.6, 0.2, 0.2], rtol=1e-12)
    c = choice.choice(lg, PRICES, SPEEDS, (1.0, 2.0), FEES)
    assert float(c.diversion_standard + c.diversion_fast) == pytest.approx(1.0, rel=1e-12)
    assert float(c.diversion_standard) == pytest.approx(0.75, rel=1e-12)  # 0.6 / (1 - 0.2)
