"""Rent versus buy: hand-worked figures and the article's contract arithmetic."""

from __future__ import annotations

import numpy as np
import pytest

from econ.compute import cost, tables


def test_contract_costs_444444_per_mw_month(base):
    # $10B / (750 MW x 30 months)
    assert tables.rent_per_mw_month(base, "wse3") == pytest.approx(444_444.44, abs=0.01)
    rb = tables.rent_vs_buy(base)
    assert rb["rent_usd_per_mw_month"] == pytest.approx(444_444.44, abs=0.01)


def test_rent_flows_are_flat_take_or_pay():
    r = cost.rent_flows(300.0, 3, 5)
    assert r.tolist() == [[100.0, 100.0, 100.0, 0.0, 0.0]]


def test_discount_factors_at_month_end():
    d = cost.discount_factors(0.10, 24)
    assert d[0, 11] == pytest.approx(1 / 1.1) and d[0, 23] == pytest.approx(1 / 1.21)


def test_levelised_rent_equals_value_over_mw_and_term():
    d = cost.discount_factors(0.10, 36)
    npv = cost.npv_cost(cost.rent_flows(10e9, 30, 36), d)
    assert cost.levelised_per_mw_month(npv, 750, d, 30)[0] == pytest.approx(10e9 / (750 * 30))


def test_buy_case_worked_by_hand():
    # 1 MW, PUE 1.25 -> 800 kW IT; 20 kW systems -> 40 systems at 1M USD = 40M; facility 10M/MW
    case = cost.buy_flows(
        mw=1,
        pue=1.25,
        power_kw=20,
        system_price_usd=1e6,
        facility_capex_usd_per_mw=10e6,
        power_price_usd_per_kwh=0.1,
        maintenance_share_annual=0.06,
        life_years=5,
        facility_life_years=20,
        resale_share=0.5,
        horizon=12,
    )
    assert case.systems[0] == pytest.approx(40)
    assert case.capex[0] == pytest.approx(50e6)
    # power 1000 kW x 730.5 h x 0.1 = 73,050; maintenance 0.06/12 x 40M = 200,000
    assert case.opex[0, 0] == pytest.approx(273_050) and case.opex.shape == (1, 12)
    # residual: 40M x (1 - 12/60) x 0.5 = 16M; facility 10M x (1 - 12/240) = 9.5M
    assert case.residual[0] == pytest.approx(25.5e6)
    d = cost.discount_factors(0.0, 12)
    assert cost.npv_buy(case, d)[0] == pytest.approx(50e6 + 12 * 273_050 - 25.5e6)


def test_hourly_rent_per_mw_month():
    # 3.48 USD/h per 2.17 kW GPU: 3.48 x 730.5 x 1000 / 2.17
    assert cost.hourly_rent_per_mw_month(3.48, 2.17) == pytest.approx(3.48 * 730.5 * 1000 / 2.17)


def test_cost_per_million_tokens():
    # 1M USD per MW-month for 1M tokens/s at 50% -> 1e6 / (0.5e6 x 2,629,800) x 1e6
    assert cost.cost_per_mtok(1e6, 1e6, 0.5) == pytest.approx(1e6 / (0.5e6 * 2_629_800) * 1e6)


def test_breakeven_price_makes_buying_cost_what_renting_costs(base):
    rb = tables.rent_vs_buy(base)
    price = rb["breakeven_system_price_usd"]
    assert price is not None and 0 < price < base["hardware.wse3.price_usd"]
    at = base.with_overrides([("hardware.wse3.price_usd", repr(price))])
    assert tables.rent_vs_buy(at)["buy_npv_usd"] == pytest.approx(rb["rent_npv_usd"], rel=1e-9)


def test_breakeven_says_so_when_even_free_hardware_costs_more(base):
    a = base.with_overrides([("buy.facility_capex_usd_per_mw", "400000000")])
    rb = tables.rent_vs_buy(a)
    assert rb["breakeven_system_price_usd"] is None
    assert "even with free hardware" in rb["breakeven_note"]


def test_breakeven_root_finder_reports_no_crossing():
    be = cost.breakeven_system_price(100.0, lambda p: 1.0 + 0.0 * p, upper=10.0)
    assert be.price_usd is None and "stays cheaper" in be.reason
    be = cost.breakeven_system_price(100.0, lambda p: 20.0 + 2 * p, upper=10.0)
    assert be.price_usd == pytest.approx(40.0)


def test_cost_functions_broadcast_over_scenarios():
    d = cost.discount_factors(np.array([0.0, 0.1]), 12)
    assert d.shape == (2, 12) and d[0, -1] == 1.0
    r = cost.rent_flows(np.array([120.0, 240.0]), 12, 12)
    assert cost.npv_cost(r, d)[0] == pytest.approx(120.0)
