"""Incremental revenue: hand-worked values."""

from __future__ import annotations

import numpy as np
import pytest

from econ.revenue import revenue


def test_subscription_revenue_is_the_uplift_on_incremental_subscribers():
    # 1,200 with ultrafast against 1,000 without, Pro 200 against Plus 20: 200 x 180
    assert revenue.subscription_revenue(1200.0, 1000.0, 200.0, 20.0) == pytest.approx(36_000.0)
    out = np.empty((2, 3))
    got = revenue.subscription_revenue(
        np.array([[10.0], [20.0]]), 0.0, np.array([[30.0, 40.0, 50.0]]), 20.0, out=out
    )
    assert got is out
    np.testing.assert_allclose(out, [[100, 200, 300], [200, 400, 600]])


def test_api_revenue_and_streams():
    # 5e12 tokens at 40 USD per million: 200M USD; at 750 tokens/s over 2,629,800 s: 2,535 streams
    assert revenue.api_revenue(5e12, 40.0) == pytest.approx(2e8)
    assert revenue.api_streams(5e12, 750.0) == pytest.approx(5e12 / (750 * 2_629_800))
    np.testing.assert_allclose(
        revenue.api_tokens(5e12, np.array([1 / 6, 1.0, 0.0])), [5e12 / 6, 5e12, 0.0]
    )
