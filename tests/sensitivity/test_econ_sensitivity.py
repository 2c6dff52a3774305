"""The engine on econ's model through the same interface."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from econ.assumptions import AssumptionError, load
from econ.model import evaluate
from econ.sensitivity import run, voi
from econ.sensitivity.breakeven import goal_seek_key


def test_tornado_on_the_model_is_sorted_and_consistent(base):
    df = run.tornado(base)
    npv = df[df.output == "npv_usd"]
    assert (np.diff(npv["swing"].to_numpy()) <= 1e-6).all()
    row = npv.set_index("variable").loc["contract.value_usd"]
    # rent is linear in the contract value: swing = NPV of rent per dollar x range
    per_dollar = evaluate(base).rent_npv[0] / 10e9
    assert row.swing == pytest.approx(per_dollar * 2e9, rel=1e-9)
    assert row.output_base == pytest.approx(evaluate(base).npv[0])


def test_goal_seek_contract_value_gives_zero_npv(base):
    res = goal_seek_key(base, "contract.value_usd")
    assert res.value is not None
    at = evaluate(base, {"contract.value_usd": res.value})
    assert at.npv[0] == pytest.approx(0.0, abs=1.0)


def test_goal_seek_payback_target_makes_payback_equal_the_term(base):
    res = goal_seek_key(base, "contract.value_usd", target="payback", low=5e9, high=10e9)
    assert res.value is not None
    at = evaluate(base, {"contract.value_usd": res.value})
    assert at.payback_months[0] == pytest.approx(30.0, abs=1e-6)


def test_goal_seek_says_clearly_when_no_value_gets_there(base):
    res = goal_seek_key(base, "finance.discount_rate_annual")
    assert res.value is None
    assert res.message.startswith(
        "no value of finance.discount_rate_annual in [0.06, 0.15] brings NPV to zero: it stays above zero"
    )
    res = goal_seek_key(base, "facility.pue")
    assert res.value is None and "does not depend on facility.pue" in res.message


def test_goal_seek_rejects_unknown_and_structural_keys(base):
    with pytest.raises(AssumptionError, match="did you mean contract.value_usd"):
        goal_seek_key(base, "contract.valu_usd")
    with pytest.raises(AssumptionError, match="cannot be solved for; try econ sweep"):
        goal_seek_key(base, "contract.term_months")
    with pytest.raises(AssumptionError, match="cannot be solved for"):
        goal_seek_key(base, "capacity.basis")


def test_monte_carlo_on_the_model_is_the_same_for_any_chunk_size_and_worker_count(base):
    one = run.monte_carlo(base, 5000, seed=9, chunk=700)
    for chunk, workers in ((1000, 1), (5000, 1), (700, 2)):
        other = run.monte_carlo(base, 5000, seed=9, chunk=chunk, workers=workers)
        pd.testing.assert_frame_equal(one["run"].outputs, other["run"].outputs)  # to the last bit
        pd.testing.assert_frame_equal(one["fan"], other["fan"])
        pd.testing.assert_frame_equal(one["evppi"], other["evppi"])
        assert one["evpi_usd"] == other["evpi_usd"]
    stats = one["stats"].set_index(["output", "statistic"])["value"]
    assert 0.0 <= stats[("payback_months", "P(payback <= term)")] <= 1.0
    assert ("irr_annual", "mean") not in stats.index  # an unbounded rate has no mean


def test_the_value_of_information_ranks_the_inputs_that_decide_the_npv(base):
    mc = run.monte_carlo(base, 20_000, seed=3)
    ev = mc["evppi"].set_index("key")
    tornado = run.tornado(base)
    swing = tornado[tornado.output == "npv_usd"].set_index("variable")["swing"]
    # a key worth knowing moves the NPV (EVPPI ranks what decides, the tornado what moves)
    worth = ev.index[ev["evppi"] > 0]
    assert len(worth) and (swing.reindex(worth).fillna(0) > 0).all()
    # partial information is worth at most perfect (within the errors)
    assert (ev["evppi"] <= mc["evpi_usd"] + 3 * np.hypot(ev["evppi_se"], mc["evpi_se_usd"])).all()
    # a key the model does not read is worth 0, and says why
    unread = set(mc["unread"])
    assert unread and (ev.loc[sorted(unread), "reason"] == voi.ZERO_UNREAD).all()
    assert (ev.loc[sorted(unread), "evppi"] == 0).all()


def test_sobol_and_the_tornado_agree_on_what_decides_the_npv(base):
    df = run.sobol_indices(base, 512, seed=2)
    tornado = run.tornado(base)
    top = tornado[tornado.output == "npv_usd"]["variable"].head(2)
    assert set(df["variable"].head(2)) == set(top)
    no_effect = df.set_index("variable").loc["facility.pue"]
    assert no_effect.ST == 0 and "not read" in no_effect.note  # the buy side does not move the NPV
    # a key the model reads but that barely matters gets a small, evaluated index
    assert df.set_index("variable").loc["conversion.plus_to_pro_base_monthly"].note == ""


def test_non_positive_definite_correlations_name_the_file(data_copy):
    (data_copy / "correlations.csv").write_text(
        "key_a,key_b,rank_correlation,note\n"
        "usage.demand_sigma,usage.speed_elasticity,0.9,\n"
        "usage.speed_elasticity,usage.peak_to_average,0.9,\n"
        "usage.demand_sigma,usage.peak_to_average,-0.9,\n"
    )
    with pytest.raises(
        AssumptionError,
        match=r"correlations\.csv: rows 2, 3 and 4: the rank correlations .* cannot hold together "
        r"\(the correlation matrix is not positive definite",
    ):
        run.problem_from(load(data_copy))


def test_a_data_value_outside_its_range_is_explained(data_copy):
    p = data_copy / "sensitivity.csv"
    p.write_text(
        p.read_text().replace(
            "tiers.ultrafast.usage_multiplier,pert,2,6", "tiers.ultrafast.usage_multiplier,pert,5,6"
        )
    )
    a = load(data_copy)
    with pytest.raises(
        AssumptionError,
        match=r"sensitivity\.csv row \d+, columns low/high: .*the base value 4 \(the mode\) lies "
        r"outside \[5, 6\]; widen the range",
    ):
        run.problem_from(a)


def test_what_a_scenario_or_set_fixes_is_held_not_varied(base):
    a = base.with_overrides([("tiers.ultrafast.usage_multiplier", "8")])  # outside [2, 6]
    names = run.problem_from(a).names
    assert "tiers.ultrafast.usage_multiplier" not in names
    assert len(names) == len(base.sensitivity) - 1
    assert run.held(a) == [("tiers.ultrafast.usage_multiplier", 8.0, "--set")]
    mc = run.monte_carlo(a, 256, 1)
    assert mc["held"] == [("tiers.ultrafast.usage_multiplier", 8.0, "--set")]
    # every sample ran at 8: its NPV is the model's at its sampled inputs with the key at 8
    x = mc["run"].inputs
    assert "tiers.ultrafast.usage_multiplier" not in x.columns and len(x) == 256
    at = {k: x[k].to_numpy()[:16] for k in x.columns if k in a.values}
    npv = evaluate(a, at, detail=False).npv
    assert np.array_equal(npv, mc["run"].outputs["npv_usd"].to_numpy()[:16])
    assert not np.array_equal(npv, evaluate(base, at, detail=False).npv)


def test_the_value_of_information_agrees_between_20000_and_100000_samples(base):
    # MODEL.md 0.7: every key worth 5 % of the EVPI or more agrees between the two sample
    # counts within 3 sqrt(SE_20k^2 + SE_100k^2)
    small = run.monte_carlo(base, 20_000, seed=11)
    large = run.monte_carlo(base, 100_000, seed=12)
    s, g = small["evppi"].set_index("key"), large["evppi"].set_index("key")
    keys = set(s.index[s["evppi"] >= 0.05 * small["evpi_usd"]]) | set(
        g.index[g["evppi"] >= 0.05 * large["evpi_usd"]]
    )
    keys |= {s.index[0], g.index[0]}  # and the key worth most in either run, whatever its share
    assert s.loc[s.index[0], "evppi"] > 0  # something is worth knowing
    for k in keys:
        gap = abs(s.loc[k, "evppi"] - g.loc[k, "evppi"])
        assert gap <= 3 * np.hypot(s.loc[k, "evppi_se"], g.loc[k, "evppi_se"]), k
    gap = abs(small["evpi_usd"] - large["evpi_usd"])
    assert gap <= 3 * np.hypot(small["evpi_se_usd"], large["evpi_se_usd"])


def test_the_decision_options_follow_the_subscriber_offer_key_where_the_data_have_it(base):
    # the bundled data (auto): the deal with the offer and the deal without it, the key off
    opts = run.decision_options(base)
    assert [(n, o) for n, o, _ in opts] == [
        ("deal with the subscriber offer (auto)", "npv_usd"),
        ("deal without the subscriber offer", run.WITHOUT_OFFER),
    ]
    assert opts[1][2]["capacity.subscriber_offer"] == "off"

    class WithoutKey:  # data of a model without the key: no deal and the deal as set
        def __contains__(self, key):
            return False

    assert [(n, o) for n, o, _ in run.decision_options(WithoutKey())] == [("deal", "npv_usd")]

    class WithOffer:  # the data of a model that has capacity.subscriber_offer
        def __init__(self, setting):
            self.setting, self.set_to = setting, None

        def __contains__(self, key):
            return key == run.OFFER_KEY

        def __getitem__(self, key):
            return self.setting

        def with_overrides(self, pairs):
            ((key, value),) = pairs
            other = WithOffer(value)
            other.set_to = (key, value)
            return other

    opts = run.decision_options(WithOffer("auto"))
    assert [(n, o) for n, o, _ in opts] == [
        ("deal with the subscriber offer (auto)", "npv_usd"),
        ("deal without the subscriber offer", run.WITHOUT_OFFER),
    ]
    assert opts[1][2].set_to == (run.OFFER_KEY, "off")
    # the offer already off: one deal option
    assert [n for n, _, _ in run.decision_options(WithOffer("off"))] == [
        "deal without the subscriber offer"
    ]
