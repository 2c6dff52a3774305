"""The API, backfill, the GPU-fleet boundary and revenue (docs/model.md 5.4-5.9), by hand."""

from __future__ import annotations

import numpy as np
import pytest

from econ.revenue import conversion
from econ.revenue import revenue as rev

SPM, SPW = 2_629_800, 604_800


def test_api_demand_responds_to_price_ramps_and_stops_after_the_term():
    t = np.array([1.0, 6.0, 12.0, 31.0])
    v = rev.api_tokens_wanted(5e12, 80.0, 40.0, 1.0, 1.0, t, 12, 30)
    np.testing.assert_allclose(v, [5e12 / 2 / 12, 5e12 / 2 / 2, 5e12 / 2, 0.0])
    # elasticity 0.5: (80/40)^-0.5
    assert float(rev.api_tokens_wanted(5e12, 80.0, 40.0, 0.5, 1.0, 12.0, 0, 30)) == pytest.approx(
        5e12 / 2**0.5
    )


def test_api_is_served_first_up_to_the_capacity():
    # 1e12 tokens a month at 750 tokens/s and peak-to-average 3: 1e12 x 3 / (750 SPM) = 1,521 peak streams
    s, v = rev.api_served(10_000.0, 1e12, 3.0, 750.0)
    assert float(s) == pytest.approx(1e12 * 3 / (750 * SPM)) and float(v) == pytest.approx(1e12)
    s, v = rev.api_served(1000.0, 1e12, 3.0, 750.0)  # capped at 1,000 streams
    assert float(s) == 1000 and float(v) == pytest.approx(1000 * 750 * SPM / 3)


def test_revenue_is_the_uplift_and_the_premium():
    assert float(rev.subscription_revenue(1000.0, 200.0, 20.0)) == 180_000
    # 1e12 tokens at 40 USD less half at the 10 USD standard rate: 35 USD a million
    assert float(rev.api_revenue(1e12, 40.0, 0.5, 10.0)) == pytest.approx(35e6)


def test_spare_capacity():
    np.testing.assert_allclose(
        rev.spare_share(
            np.array([100.0, 100.0, 0.0, 0.0]),
            np.array([25.0, 150.0, 0.0, 0.0]),
            np.array([1.0, 1.0, 1.0, 0.0]),
        ),
        [
            0.75,
            0.0,
            1.0,
            0.0,
        ],  # busy 25 of 100; over-full; no ultrafast capacity but MW online; nothing online
    )


def test_backfill_is_the_offer_or_the_spare_room_at_the_standard_speed():
    # 0.5 spare x 10 MW x 700,000 tokens/s x SPM / 3
    room = 0.5 * 10 * 700_000 * SPM / 3
    assert float(rev.backfill_tokens(0.5, 10.0, 700_000, 3.0, 1e20, 1.0, 1.0, 30)) == pytest.approx(
        room
    )
    assert float(rev.backfill_tokens(0.5, 10.0, 700_000, 3.0, 1e12, 0.9, 1.0, 30)) == pytest.approx(
        0.9e12
    )
    assert float(rev.backfill_tokens(0.5, 10.0, 700_000, 3.0, 1e12, 0.9, 31.0, 30)) == 0


def test_the_gpu_fleet_boundary_by_hand():
    # moved: 1e12 backfill + 0.5 x 2e12 cannibalised API + 3e12 adopters' tokens / phi 2
    moved = rev.tokens_moved_off_gpus(1e12, 2e12, 0.5, 3e12, 2.0)
    assert float(moved) == pytest.approx(1e12 + 1e12 + 1.5e12)
    # added: 1,000 upgraders using 3e6 - 5e5 more tokens a week, a month of weeks
    added = rev.tokens_added_to_gpus(1000.0, 3e6, 5e5)
    assert float(added) == pytest.approx(1000 * 2.5e6 * SPM / SPW)
    assert float(rev.gpu_savings(moved, added, 1.0)) == pytest.approx(
        (3.5e12 - 1000 * 2.5e6 * SPM / SPW) / 1e6
    )


def test_adoption_is_capped_by_the_free_streams_and_zero_without_demand():
    a = conversion.adoption(0.15, np.array([100.0, 1.0, 5.0]), np.array([100.0, 100.0, 0.0]), 3.0)
    np.testing.assert_allclose(a, [0.15, 1 / 300, 0.0])


def test_the_pro_tail_loses_the_extra_churn_after_the_term():
    # one month of term, then: dP_2 = dP_1 (1 - churn - extra) with the same upgrades on both sides
    ones = np.ones((3, 1))
    path = conversion.pro_paths(
        plus_pool=100 * ones,
        pro_start=0.0,
        churn=0.1,
        extra_churn_after_term=0.2,
        base_upgrade=0.0,
        capped_propensity=0.5,
        adoption_fast=0.0,
        adoption_ultrafast=0.5,
        peak_to_average=1.0,
        speed_ultrafast=1.0,
        hit_standard=0 * ones,
        hit_fast=0 * ones,
        hit_ultrafast=0.4 * ones,
        w_plus_ultrafast=ones,
        w_pro_ultrafast=ones,
        free_streams=1e9 * ones,
        term_months=1,
    )
    # month 1: h = 0.5 x 0.4 = 0.2, u = 0.1, P = 10; P0 = 0 (nobody hits the cap without the tier)
    np.testing.assert_allclose(
        path.pro[:, 0], [10, 10 * 0.9 - 0.2 * 10, (10 * 0.9 - 2) * 0.9 - 0.2 * 7]
    )
    np.testing.assert_allclose(path.pro_counterfactual[:, 0], [0, 0, 0])
