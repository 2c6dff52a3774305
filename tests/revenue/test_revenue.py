"""The revenue pieces the model uses beside the logit and the allocation (docs/model.md 0.4,
5.7 and 5.9), by hand."""

from __future__ import annotations

import numpy as np
import pytest

from econ.revenue import revenue as rev

SPM, SPW = 2_629_800, 604_800


def test_the_api_ramp():
    t = np.array([1.0, 6.0, 12.0, 31.0])
    np.testing.assert_allclose(rev.ramp_share(t, 12), [1 / 12, 0.5, 1.0, 1.0])
    np.testing.assert_allclose(rev.ramp_share(t, 0), 1.0)  # no ramp: full from month 1


def test_subscription_revenue_is_the_price_step():
    # upgraders stop paying Plus: 1,000 x (200 - 20)
    assert float(rev.subscription_revenue(1000.0, 200.0, 20.0)) == 180_000


def test_the_tokens_incremental_pro_subscribers_add_to_the_gpus():
    # 1,000 upgraders using 3e6 - 5e5 more tokens a week, a month of weeks
    added = rev.tokens_added_to_gpus(1000.0, 3e6, 5e5)
    assert float(added) == pytest.approx(1000 * 2.5e6 * SPM / SPW, rel=1e-15)
