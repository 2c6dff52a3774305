"""The wired model: the case worked by hand, hand-worked mechanisms on the bundled data, the
independent reference implementation, arrays for every key, invariants."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import reference_model
from conftest import TIGHT
from test_reference_model import SPM, _hand

from econ.assumptions import TABLES, AssumptionError, Rule, is_structural
from econ.model import evaluate, simple_breakeven

# ---------------------------------------------------------------------- the tiny case by hand


def test_tiny_case_equals_the_figures_worked_by_hand(tiny):
    h = _hand()
    r = evaluate(tiny)
    close = {"rtol": 1e-12, "atol": 1e-9}
    np.testing.assert_allclose(r.mw_online[0], [1.5, 3.0, 0.0], **close)
    np.testing.assert_allclose(r.rent[0], [20_000, 40_000, 0], **close)
    np.testing.assert_allclose(r.capacity_streams[0], [15, 30, 0], **close)
    np.testing.assert_allclose(r.api_tokens_wanted[0], h["V"], **close)
    np.testing.assert_allclose(r.api_streams_peak[0], h["s_api"], **close)
    np.testing.assert_allclose(r.ultrafast_adoption[0], h["a_u"], **close)
    np.testing.assert_allclose(r.subscriber_streams_peak[0], h["sub_peak"], **close)
    np.testing.assert_allclose(r.plus_cap_hit[0], [0.05, 0.05, 0.0], **close)
    np.testing.assert_allclose(r.pro[0], h["pro"], **close)
    np.testing.assert_allclose(r.pro_counterfactual[0], h["pro0"], **close)
    np.testing.assert_allclose(r.incremental_pro[0], h["dp"], **close)
    np.testing.assert_allclose(r.subscription_revenue[0], [180, 270, 67.5], **close)
    np.testing.assert_allclose(r.backfill_tokens[0], h["bf"], **close)
    np.testing.assert_allclose(r.utilization[0, :2], h["util"][:2], **close)
    assert np.isnan(r.utilization[0, 2])  # no MW online after the term
    np.testing.assert_allclose(r.tokens_served[0], h["served"], **close)
    np.testing.assert_allclose(r.tokens_moved_off_gpus[0], h["moved"], **close)
    np.testing.assert_allclose(r.tokens_added_to_gpus[0], h["added"], **close)
    np.testing.assert_allclose(r.gpu_savings[0], h["gpu"], **close)
    cf = [h["income"][0] - 20_000, h["income"][1] - 40_000, h["income"][2]]
    np.testing.assert_allclose(r.net_cash_flow[0], cf, **close)
    assert r.terminal_value[0] == pytest.approx(h["tv"], rel=1e-12)
    npv0 = sum(c * d for c, d in zip(cf, h["d"], strict=True))
    assert r.npv_without_terminal_value[0] == pytest.approx(npv0, rel=1e-12)
    assert r.npv[0] == pytest.approx(npv0 + h["tv"] * h["d"][2], rel=1e-12)
    # recovers in month 1, then month 2's rent drives it below zero for good: no payback
    assert np.isnan(r.payback_months[0]) and r.shortfall[0] == pytest.approx(-sum(cf), rel=1e-12)
    assert r.realised_cost_per_mtok[0] == pytest.approx(1e6 * 60_000 / sum(h["served"]), rel=1e-12)


def test_flat_rent_pays_back_at_the_lasting_recovery(tiny):
    inc = _hand()["income"]
    cf = [inc[0] - 25_000, inc[1] - 25_000, inc[2]]
    r = evaluate(tiny.with_scenario("flat"))
    np.testing.assert_allclose(r.rent[0], [25_000, 25_000, 0], **TIGHT)
    assert r.payback_months[0] == pytest.approx(1 + (-cf[0]) / cf[1], rel=1e-12)


def test_capacity_caps_the_api(tiny):
    # a twentieth of the curve: 50 tokens/s per MW at 100 tokens/s, 0.75 and 1.5 streams
    r = evaluate(tiny.with_scenario("tight"))
    np.testing.assert_allclose(r.capacity_streams[0], [0.75, 1.5, 0.0], rtol=1e-12)
    np.testing.assert_allclose(r.api_streams_peak[0], [0.75, 1.5, 0.0], rtol=1e-12)
    # what the capped streams carry: S x 100 tokens/s x SPM / peak-to-average 2
    np.testing.assert_allclose(
        r.api_tokens_served[0], [0.75 * 50 * SPM, 1.5 * 50 * SPM, 0], rtol=1e-12
    )
    np.testing.assert_allclose(r.ultrafast_adoption[0], [0.0, 0.0, 0.0])  # nothing left


# ---------------------------------------------------------------- mechanisms on the bundled data


def test_one_megawatt_serves_at_most_its_capacity(base):
    r = evaluate(base.with_overrides([("contract.mw", "1")]))
    # 1 MW of wse3 at 750 tokens/s: 450,000 / 750 = 600 peak streams at full ramp (month 24 on)
    assert r.capacity_streams[0, 23] == pytest.approx(600, rel=1e-12)
    carried = r.capacity_streams[0] * 750 * SPM / 3  # peak streams -> tokens a month
    assert np.all(r.api_tokens_served[0] <= carried * (1 + 1e-12))
    assert np.all(r.utilization[0, :30] <= 1 + 1e-12)
    assert r.api_tokens_served[0, 23] == pytest.approx(carried[23], rel=1e-12)  # capped


def test_doubling_the_price_halves_the_api_tokens_wanted_at_elasticity_one(base):
    r1 = evaluate(base)
    r2 = evaluate(base.with_overrides([("tiers.ultrafast.price_per_mtok_usd", "80")]))
    np.testing.assert_allclose(r2.api_tokens_wanted[0], 0.5 * r1.api_tokens_wanted[0], rtol=1e-12)
    # month 6 by hand: 5e12 x (40/40)^-1 x 0.85^(5/12) x min(1, 6/12)
    assert r1.api_tokens_wanted[0, 5] == pytest.approx(5e12 * 0.85 ** (5 / 12) * 0.5, rel=1e-12)


def test_pay_as_delivered_rent_follows_the_ramp_and_sums_to_the_contract(base):
    r = evaluate(base)
    rent = r.rent[0]
    assert rent.sum() == pytest.approx(10e9, rel=1e-12)
    # MW online 750 t/24 for t <= 24, then 750 until month 30: sum = 750 (300/24 + 6) = 13,875 MW-months
    assert rent[0] == pytest.approx(10e9 * (750 / 24) / 13_875, rel=1e-12)
    assert rent[29] == pytest.approx(10e9 * 750 / 13_875, rel=1e-12)
    assert np.all(rent[30:] == 0)
    flat = evaluate(base.with_overrides([("contract.pay_as_delivered", "0")])).rent[0]
    np.testing.assert_allclose(flat[:30], 10e9 / 30, rtol=1e-12)


def test_backfill_fills_the_spare_capacity_up_to_the_offer(base):
    quiet = [("api.ultrafast_tokens_per_month", "0"), ("tiers.ultrafast.adoption", "0")]
    r = evaluate(base.with_overrides(quiet))
    e = 0.85 ** (np.arange(30) / 12)  # token efficiency, months 1..30
    # every MW is spare: it carries MW_t x 700,000 tokens/s per MW at the standard speed, a third
    # of it on average (peak-to-average 3); the offer of 1e14 e_t binds once enough MW are online
    mw = 750 * np.minimum(1, np.arange(1, 31) / 24)
    room = mw * 700_000 * SPM / 3
    assert room[0] < 1e14 < room[5]
    np.testing.assert_allclose(r.backfill_tokens[0, :30], np.minimum(1e14 * e, room), rtol=1e-12)
    assert np.all(r.backfill_tokens[0, 30:] == 0)
    big = evaluate(base.with_overrides([*quiet, ("capacity.backfill_tokens_per_month", "1e18")]))
    np.testing.assert_allclose(big.backfill_tokens[0, :30], room, rtol=1e-12)
    np.testing.assert_allclose(
        big.utilization[0, :30], 1 / 3, rtol=1e-12
    )  # the average of a peak of 3


def test_gpu_savings_pay_no_revenue_fees(base):
    r0 = evaluate(base.with_overrides([("finance.variable_cost_share", "0")]))
    r2 = evaluate(base.with_overrides([("finance.variable_cost_share", "0.2")]))
    np.testing.assert_allclose(
        r2.net_cash_flow[0] - r0.net_cash_flow[0], -0.2 * r0.revenue[0], rtol=1e-9, atol=1e-3
    )
    np.testing.assert_allclose(r2.gpu_savings[0], r0.gpu_savings[0], rtol=1e-12)


def test_the_incremental_subscribers_leave_faster_after_the_term(base):
    r = evaluate(base)
    d = r.incremental_pro[0]
    # after the term both stocks gain the same upgrades: dP_t = dP_(t-1) (1 - 0.03 - 0.03)
    np.testing.assert_allclose(d[30:] / d[29:-1], 0.94, rtol=1e-9)
    slow = evaluate(base.with_overrides([("conversion.extra_churn_after_term_monthly", "0")]))
    np.testing.assert_allclose(
        slow.incremental_pro[0, 30:] / slow.incremental_pro[0, 29:-1], 0.97, rtol=1e-9
    )


def test_the_terminal_value_makes_npv_independent_of_the_horizon(base):
    # with constant margins after the term (no efficiency gain, no growth) the Pro tail's value at
    # month 60 is what months 61..120 and the tail after them are worth: NPV does not depend on H
    flat = [("usage.token_efficiency_gain_annual", "0")]
    r60 = evaluate(base.with_overrides(flat))
    r120 = evaluate(base.with_overrides([*flat, ("horizon.months", "120")]))
    assert r120.npv[0] == pytest.approx(r60.npv[0], rel=1e-9)
    assert r120.npv_without_terminal_value[0] != pytest.approx(
        r60.npv_without_terminal_value[0], rel=1e-3
    )


def test_simple_breakeven_matches_the_articles(base):
    # GPT-5.6 Inference at 18x Speed: $10B / ($200 x 30 months) ~ 1.6 million users, ~0.16 % of MAU
    s = simple_breakeven(base)
    assert s["pro_users"] == pytest.approx(1_666_667, abs=1)
    assert s["share_of_mau"] == pytest.approx(0.00167, abs=5e-6)


# ---------------------------------------------------------------- the independent reference model

MONTHLY = {
    "mw_online": "mw_online",
    "rent": "rent",
    "capacity_streams": "capacity_streams",
    "api_tokens_wanted": "api_tokens_wanted",
    "api_tokens_served": "api_tokens_served",
    "api_streams_peak": "api_streams_peak",
    "subscriber_streams_peak": "subscriber_streams_peak",
    "ultrafast_adoption": "ultrafast_adoption",
    "utilization": "utilization",
    "eligible": "eligible",
    "plus_cap_hit": "plus_cap_hit",
    "pro": "pro",
    "pro_counterfactual": "pro_counterfactual",
    "subscription_revenue": "subscription_revenue",
    "api_revenue": "api_revenue",
    "backfill_tokens": "backfill_tokens",
    "tokens_served": "tokens_served",
    "tokens_moved_off_gpus": "tokens_moved_off_gpus",
    "tokens_added_to_gpus": "tokens_added_to_gpus",
    "gpu_savings": "gpu_savings_usd",
    "net_cash_flow": "net_cash_flow",
}
SCALAR = {
    "npv": "npv_usd",
    "npv_without_terminal_value": "npv_without_terminal_value_usd",
    "npv_at_term": "npv_at_term_usd",
    "terminal_value": "terminal_value_usd",
    "payback_months": "payback_months",
    "discounted_payback_months": "discounted_payback_months",
    "irr_annual": "irr_annual",
    "profitability_index": "profitability_index",
    "realised_cost_per_mtok": "realised_cost_per_mtok_usd",
    "rent_npv": "rent_npv_usd",
}


def _agree(a, rel: float = 1e-9) -> None:
    r = evaluate(a)
    ref = reference_model.run(dict(a.values))
    scale = max(1.0, float(np.max(np.abs(r.net_cash_flow[0]))))
    for ours, theirs in MONTHLY.items():
        want = np.array([np.nan if x is None else x for x in ref[theirs]], float)
        got = getattr(r, ours)[0]
        # absolute tolerance on the row's own scale: 1 - busy / C can leave 1e-16 of spare capacity
        floor = max(1e-12, float(np.nanmax(np.abs(want))) if np.isfinite(want).any() else 0.0)
        if "usd" in theirs or ours in ("rent", "net_cash_flow"):
            floor = max(floor, scale)
        np.testing.assert_allclose(got, want, rtol=rel, atol=rel * floor, err_msg=ours)
    for ours, theirs in SCALAR.items():
        want = ref[theirs]
        got = float(getattr(r, ours)[0])
        if want is None:
            assert math.isnan(got), ours
        else:
            assert got == pytest.approx(
                want, rel=rel, abs=rel * scale if "npv" in ours else 1e-12
            ), ours


def test_defaults_agree_with_the_reference_model(base):
    _agree(base)


def test_the_tiny_case_agrees_with_the_reference_model(tiny):
    _agree(tiny)
    _agree(tiny.with_scenario("flat"))
    _agree(tiny.with_scenario("tight"))


def test_random_override_sets_agree_with_the_reference_model(base):
    rng = random.Random(20261129)
    rows = [s for s in base.sensitivity if s.distribution in ("uniform", "triangular", "pert")]
    for case in range(12):
        pairs = []
        for s in rng.sample(rows, 8):
            pairs.append((s.key, repr(rng.uniform(s.low, s.high))))
        if case % 3 == 1:
            pairs.append(("contract.pay_as_delivered", "0"))
        if case % 4 == 2:
            pairs.append(("finance.terminal_value", "0"))
        if case % 5 == 3:
            pairs.append(("tiers.ultrafast.tokens_per_s", repr(rng.uniform(340, 1500))))
        _agree(base.with_overrides(pairs), rel=1e-8)


def test_the_physics_basis_agrees_with_the_reference_model(base):
    phys = base.with_overrides(
        [
            ("capacity.basis", "physics"),
            ("model.speculative_speedup", "3"),
            ("model.bytes_per_param", "1"),
        ]
    )
    _agree(phys)


# ---------------------------------------------------------------- arrays, invariants


def test_every_varied_key_and_every_tier_speed_evaluates_as_an_array(base):
    keys = [s.key for s in base.sensitivity]
    keys += [f"tiers.{t}.tokens_per_s" for t in base.tier_ids()]
    for key in keys:
        v = base.num(key)
        lo, hi = next(((s.low, s.high) for s in base.sensitivity if s.key == key), (v, v))
        if key == "tiers.standard.tokens_per_s":
            lo, hi = 54, 60
        elif key.startswith("tiers.") and key.endswith("tokens_per_s"):
            lo, hi = v, min(1500, 2 * v)
        if base.sensitivity and any(
            s.key == key and s.distribution in ("normal", "lognormal") for s in base.sensitivity
        ):
            lo, hi = lo, hi  # percentiles: inside the valid range already
        arr = np.array([lo, v, hi], float)
        r = evaluate(base, {key: arr}, detail=False)
        assert r.npv.shape == (3,) and r.net_cash_flow.shape == (3, 60), key
        assert np.isfinite(r.npv).all(), key
        assert r.npv[1] == pytest.approx(evaluate(base).npv[0], rel=1e-12), key


def test_a_tier_speed_array_moves_capacity_the_right_way(base):
    r = evaluate(base, {"tiers.ultrafast.tokens_per_s": np.array([340, 750, 1500])}, detail=False)
    assert r.throughput_per_mw[0] > r.throughput_per_mw[1] > r.throughput_per_mw[2]
    np.testing.assert_allclose(r.throughput_per_mw, [560_000, 450_000, 250_000], rtol=1e-12)


def test_model_size_moves_npv_on_the_physics_basis(base):
    phys = base.with_overrides(
        [
            ("capacity.basis", "physics"),
            ("model.speculative_speedup", "3"),
            ("model.bytes_per_param", "1"),
        ]
    )
    r = evaluate(phys, {"model.params": np.array([2e12, 4e12])}, detail=False)
    assert r.throughput_per_mw[1] < r.throughput_per_mw[0]
    assert r.npv[1] < r.npv[0]
    # and on the data basis the model size does not reach the money
    d = evaluate(base, {"model.params": np.array([2e12, 4e12])}, detail=False)
    assert d.npv[0] == d.npv[1]


def test_structural_keys_refuse_arrays(base):
    for key in (
        "horizon.months",
        "contract.platform",
        "capacity.basis",
        "frontier.wse3_750.tokens_per_s_per_user",
    ):
        assert is_structural(key, base.values[key])
        with pytest.raises(AssumptionError, match="one value per run"):
            evaluate(base, {key: np.array([1.0, 2.0])})


def test_an_override_outside_its_rule_is_refused(base):
    with pytest.raises(AssumptionError, match=r"tiers.ultrafast.adoption: 1.5 is out of range"):
        evaluate(base, {"tiers.ultrafast.adoption": np.array([0.1, 1.5])})
    with pytest.raises(
        AssumptionError, match="contract.term_months: 70 is longer than the horizon 60"
    ):
        evaluate(base, {"contract.term_months": np.array([30, 70])})


def test_more_pro_subscribers_than_users_is_an_error(base):
    crazy = [
        ("conversion.plus_to_pro_base_monthly", "0.5"),
        ("conversion.pro_churn_monthly", "0"),
        ("market.plus_share_of_mau", "1"),
    ]
    with pytest.raises(AssumptionError, match="exceed the monthly active users"):
        evaluate(base.with_overrides(crazy))


def test_a_result_that_is_not_a_number_is_an_error_naming_the_input(base, monkeypatch):
    # the rules' sense limits refuse 1e308 first; without the limit the result check still
    # refuses the overflow and names the input
    with pytest.raises(AssumptionError, match=r"1e308 is out of range; expected a number in"):
        base.with_overrides([("plans.pro.price_usd_month", "1e308")])
    monkeypatch.setitem(TABLES["plans"].columns, "price_usd_month", Rule("USD/month", low=0))
    with pytest.raises(
        AssumptionError,
        match=r"NPV is not a finite number: inputs too large "
        r"\(plans\.pro\.price_usd_month=1e\+308\)",
    ):
        evaluate(base.with_overrides([("plans.pro.price_usd_month", "1e308")]))


def test_more_pro_subscribers_than_users_in_one_scenario_names_its_inputs(base):
    a = base.with_overrides(
        [("conversion.pro_churn_monthly", "0"), ("market.plus_share_of_mau", "1")]
    )
    with pytest.raises(
        AssumptionError,
        match=r"in month \d+ of scenario 1 \(conversion\.plus_to_pro_base_monthly=0\.5\):",
    ):
        evaluate(a, {"conversion.plus_to_pro_base_monthly": np.array([0.002, 0.5])})


def test_a_starting_pro_stock_above_the_users_is_named(base):
    with pytest.raises(
        AssumptionError,
        match=r"market\.pro_subscribers_start: 2,000,000 Pro subscribers at the start exceed the "
        r"1,000,000 monthly active users",
    ):
        evaluate(base, {"market.mau": np.array([1e9, 1e6]), "market.pro_subscribers_start": 2e6})
