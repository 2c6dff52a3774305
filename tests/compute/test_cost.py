"""Rent versus buy (docs/model.md, section 4) against the articles and cases worked by hand."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq

from econ.compute import cost, tables


def test_the_contract_costs_444444_per_mw_month(base):
    # GPT-5.6 Inference at 18x Speed: $10B for 750 MW over about 30 months
    rb = tables.rent_vs_buy(base)
    assert rb["rent_usd_per_mw_month"] == pytest.approx(444_444.44, abs=0.01)
    # paid as delivered over a 24-month ramp: 13,875 delivered MW-months, not 22,500
    assert rb["rent_usd_per_delivered_mw_month"] == pytest.approx(10e9 / 13_875, rel=1e-12)


def test_rent_as_delivered_and_flat():
    t = np.arange(1, 5, dtype=float)[:, None]
    mw = np.array([[1.0], [2.0], [3.0], [0.0]])  # a 3-month term ramping 1, 2, 3 MW
    r = cost.rent(t, mw, 600.0, 3, 1.0)[:, 0]
    np.testing.assert_allclose(r, [100, 200, 300, 0])
    np.testing.assert_allclose(cost.rent(t, mw, 600.0, 3, 0.0)[:, 0], [200, 200, 200, 0])


def test_rent_follows_delivery_or_is_owed_in_full():
    # section V4.5: half the contracted MW delivered (a 3-month term ramping 1, 2, 3 MW, value
    # 600): paid as delivered, the rent follows the MW delivered, 50, 100, 150; take-or-pay owes
    # it in full, 200 a month
    t = np.arange(1, 5, dtype=float)[:, None]
    mw = np.array([[1.0], [2.0], [3.0], [0.0]])
    np.testing.assert_allclose(cost.rent(t, mw, 600.0, 3, 1.0, 0.5)[:, 0], [50, 100, 150, 0])
    np.testing.assert_allclose(cost.rent(t, mw, 600.0, 3, 0.0, 0.5)[:, 0], [200, 200, 200, 0])
    assert cost.pays_as_delivered("pay_as_delivered") == 1.0
    assert cost.pays_as_delivered("take_or_pay") == 0.0


def test_the_model_pays_for_the_mw_delivered_on_its_payment_basis(base):
    # the bundled $10B over a 24-month ramp and a 30-month term: 60 % delivered costs $6B paid as
    # delivered and the full $10B take-or-pay ($333.3M a month), with 60 % of the MW online
    from econ.model import evaluate

    share = {"contract.delivered_share": np.array([1.0, 0.6])}
    r = evaluate(base, share, detail=False)
    np.testing.assert_allclose(r.rent.sum(axis=1), [10e9, 6e9], rtol=1e-12)
    np.testing.assert_allclose(r.mw_online[1], 0.6 * r.mw_online[0], rtol=1e-15)
    top = evaluate(base.with_overrides([("contract.payment", "take_or_pay")]), share, detail=False)
    np.testing.assert_allclose(top.rent.sum(axis=1), [10e9, 10e9], rtol=1e-12)
    np.testing.assert_allclose(top.rent[:, :30], 10e9 / 30, rtol=1e-12)
    assert np.all(top.rent[:, 30:] == 0)


def test_discount_factors_at_month_end():
    d = cost.discount(np.array([12.0, 6.0]), 0.10)
    np.testing.assert_allclose(d, [1 / 1.1, 1.1**-0.5])


def test_buy_case_worked_by_hand(tiny):
    # the hand case of tests/test_reference_model.py: IT kW = 3 x 1000 / 1.25 = 2,400, 240 systems
    # of 10 kW; capex 240 x 1,000 + 3 x 1,000 = 243,000, half at t = 0 (month 1's 1.5 MW) and half
    # at the end of month 1; opex = MW x 1000 x 730.5 x 0.1 + 0.12 / 12 x 240,000 = 111,975 and
    # 221,550; residual at T = 2: 240,000 x (1 - 2/12) x 0.5 + 3,000 x (1 - 2/240) = 102,975
    d1, d2 = 1.1 ** (-1 / 12), 1.1 ** (-2 / 12)
    want = 121_500 + 121_500 * d1 + 111_975 * d1 + 221_550 * d2 - 102_975 * d2
    assert tables.buy_npv(tiny, "x", 3.0) == pytest.approx(want, rel=1e-12)
    case = tables.buy_case(tiny, "x", 3.0)
    assert float(case.systems[0]) == pytest.approx(240)
    np.testing.assert_allclose(case.capex[:, 0], [121_500, 121_500, 0])
    np.testing.assert_allclose(case.opex[:, 0], [111_975, 221_550, 0])
    assert float(case.residual[0]) == pytest.approx(102_975)


def test_the_lessors_yield_by_hand(tiny):
    # rent of 1.2M paid as delivered: 400,000 and 800,000; the owner's flows at months 0, 1, 2:
    # -121,500; -121,500 + 400,000 - 111,975; 800,000 - 221,550 + 102,975
    a = tiny.with_overrides([("contract.value_usd", "1.2e6")])
    y = tables.rent_vs_buy(a)["lessor_yield_annual"]
    x = (1 + y) ** (1 / 12) - 1
    flows = [-121_500, -121_500 + 400_000 - 111_975, 800_000 - 221_550 + 102_975]
    assert abs(sum(f * (1 + x) ** -j for j, f in enumerate(flows))) < 1e-6
    # a rent that never covers the costs: no yield, and the summary says the two cannot both be right
    rb = tables.rent_vs_buy(tiny)
    assert rb["lessor_yield_annual"] is None and rb["rent_and_price_consistent"] is False


def test_hourly_rent_per_facility_mw_month():
    # 4 USD a GPU-hour x 730.5 hours x 1000 kW / (1.9 kW a GPU x PUE 1.2)
    assert float(cost.hourly_rent_per_mw_month(4.0, 1.9, 1.2)) == pytest.approx(
        4 * 730.5 * 1000 / (1.9 * 1.2), rel=1e-12
    )


def test_cost_per_million_tokens():
    # $444,444 per MW-month over 450,000 tokens/s at 60 % for 2,629,800 s: $0.626 per Mtok
    got = float(cost.cost_per_mtok(444_444.44, 450_000, 0.6))
    assert got == pytest.approx(444_444.44 / (450_000 * 0.6 * 2_629_800) * 1e6, rel=1e-12)


def test_breakeven_price_makes_buying_cost_what_renting_costs(base):
    rb = tables.rent_vs_buy(base)
    price = rb["breakeven_system_price_usd"]
    # an independent root finder on the buy NPV as a function of the price
    root = brentq(
        lambda p: tables.buy_npv(base, "wse3", 750.0, p) - rb["rent_npv_usd"], 0, 3e6, xtol=1e-6
    )
    assert price == pytest.approx(root, rel=1e-9)


def test_breakeven_says_so_when_even_free_hardware_costs_more(base):
    dear = base.with_overrides([("buy.facility_capex_usd_per_mw", "1e9")])
    rb = tables.rent_vs_buy(dear)
    assert rb["breakeven_system_price_usd"] is None
    assert "even with free hardware" in rb["breakeven_note"]


def test_cost_functions_broadcast_over_scenarios():
    t = np.arange(1, 4, dtype=float)[:, None]
    mw = np.ones((3, 1))
    r = cost.rent(t, mw, np.array([[300.0, 600.0]]), 3, 1.0)
    assert r.shape == (3, 2) and r[:, 1].sum() == pytest.approx(600)
