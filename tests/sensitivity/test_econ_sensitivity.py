"""The engine on econ's model through the same interface."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from econ.assumptions import AssumptionError, load
from econ.model import evaluate
from econ.report import cli_text
from econ.sensitivity import run, sample_warnings
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


def rent_pv_per_dollar(ramp: float = 24, term: int = 30, rate: float = 0.10) -> float:
    """PV of one dollar of contract value paid as delivered on the linear ramp (docs/model.md
    4.1), by hand: share_t = min(1, t / ramp), discounted (1 + r)^(-t/12)."""
    share = [min(1.0, t / ramp) for t in range(1, term + 1)]
    return sum(s * (1 + rate) ** (-t / 12) for t, s in enumerate(share, start=1)) / sum(share)


def test_goal_seek_contract_value_gives_zero_npv(base):
    """NPV falls linearly with the contract's value (nothing else reads it): the root is the
    base value plus NPV / (PV of rent per dollar). The bundled NPV is negative, so the root lies
    below the base value."""
    npv0 = float(evaluate(base).npv[0])
    assert npv0 < 0
    res = goal_seek_key(base, "contract.value_usd", low=1e9, high=10e9)
    assert res.value is not None
    at = evaluate(base, {"contract.value_usd": res.value})
    assert at.npv[0] == pytest.approx(0.0, abs=1.0)
    assert res.value == pytest.approx(10e9 + npv0 / rent_pv_per_dollar(), rel=1e-9)
    # the default range (the key's sensitivity range, 9e9 to 11e9) holds no root: said so
    res = goal_seek_key(base, "contract.value_usd")
    assert res.value is None and "stays below zero" in res.message


def test_goal_seek_payback_target_makes_payback_equal_the_term(base):
    res = goal_seek_key(base, "contract.value_usd", target="payback", low=1e9, high=10e9)
    assert res.value is not None
    at = evaluate(base, {"contract.value_usd": res.value})
    assert at.payback_months[0] == pytest.approx(30.0, abs=1e-6)


def test_goal_seek_says_clearly_when_no_value_gets_there(base):
    res = goal_seek_key(base, "finance.discount_rate_annual")
    assert res.value is None
    assert res.message.startswith(
        "no value of finance.discount_rate_annual from 6.0% to 15.0% brings NPV to zero: it stays "
        "below zero (-$"
    )
    # the range it quotes is the NPV's over the rates it scanned (33 from 6 % to 15 %)
    npv = evaluate(base, {"finance.discount_rate_annual": np.linspace(0.06, 0.15, 33)}).npv
    assert res.side == "below"
    assert res.target_range == pytest.approx((npv.min(), npv.max()), rel=1e-12)
    assert res.target_range[0] < res.target_range[1] < 0
    res = goal_seek_key(base, "agent.ttft_s")  # agent latency only
    assert res.value is None and "does not depend on agent.ttft_s" in res.message


def test_goal_seek_rejects_unknown_and_structural_keys(base):
    with pytest.raises(AssumptionError, match="did you mean contract.value_usd"):
        goal_seek_key(base, "contract.valu_usd")
    with pytest.raises(AssumptionError, match="cannot be solved for; try econ sweep"):
        goal_seek_key(base, "contract.term_months")
    with pytest.raises(AssumptionError, match="cannot be solved for"):
        goal_seek_key(base, "capacity.basis")


def test_monte_carlo_on_the_model_is_the_same_for_any_chunk_size_and_worker_count(base):
    one = run.monte_carlo(base, 2000, seed=9, chunk=700)
    for chunk, workers in ((1000, 1), (2000, 1), (700, 2)):
        other = run.monte_carlo(base, 2000, seed=9, chunk=chunk, workers=workers)
        pd.testing.assert_frame_equal(one["run"].outputs, other["run"].outputs)  # to the last bit
        pd.testing.assert_frame_equal(one["fan"], other["fan"])
        pd.testing.assert_frame_equal(one["evppi"], other["evppi"])
        assert one["evpi_usd"] == other["evpi_usd"]
    stats = one["stats"].set_index(["output", "statistic"])["value"]
    assert 0.0 <= stats[("payback_months", "P(payback <= term)")] <= 1.0
    assert ("irr_annual", "mean") not in stats.index  # an unbounded rate has no mean


PHYSICS = (  # the physics the transferred basis reads, varied since version 3 (issue 16, item 7)
    "hardware.wse3.layer_latency_us",
    "hardware.wse3.hop_latency_us",
    "hardware.wse3.efficiency",
    "model.speculative_speedup",
    "model.active_param_share",
)
# docs/model.md V4.8: sampled (the B300 and WSE-3 scales, the rent correlated with the B300's,
# context, delivered share, price and cost declines, query share, max propensity)
SAMPLED_V4 = (
    "hardware.b300.frontier_scale",
    "hardware.wse3.frontier_scale",
    "hardware.b300.rent_usd_per_hour",
    "usage.context_tokens",
    "contract.delivered_share",
    "market.price_decline_per_year",
    "hardware.gpu_cost_decline_per_year",
    "usage.ultrafast_query_share",
    "conversion.max_capped_propensity",
)
# V4.3: the lab's own fleet plan is a scenario axis (the grid), never sampled
FLEET_PLAN = (
    "fleet.avoidable_share",
    "capacity.movable_share",
    "capacity.internal_batch_tokens_per_month",
)


@pytest.fixture(scope="module")
def mc20k(base):
    """The Monte Carlo at the sample size of the value of information's tests (section 0.7)."""
    return run.monte_carlo(base, 20_000, seed=3)


def test_the_value_of_information_is_that_of_the_decision_between_the_options(mc20k):
    """EVPI over the decision set {no deal, deal with the offer, deal without it} (section 0.7)
    worked from every sample's two NPVs: mean of the best option per draw less the best mean;
    each key's EVPPI between 0 and the EVPI, largest first."""
    mc = mc20k
    out = mc["run"].outputs
    nb = np.column_stack(
        [np.zeros(len(out)), out["npv_usd"], out[run.WITHOUT_OFFER]]
    )  # no deal, deal with the offer, deal without it
    nb = nb[np.isfinite(nb).all(axis=1)]
    evpi = nb.max(axis=1).mean() - nb.mean(axis=0).max()
    assert mc["evpi_usd"] == pytest.approx(evpi, rel=1e-9)
    options = dict(zip(["no deal", *list(mc["options"])[1:]], nb.mean(axis=0), strict=True))
    assert list(mc["options"].values()) == pytest.approx(list(options.values()), rel=1e-9)
    ev = mc["evppi"].set_index("key")
    assert (np.diff(ev["evppi"].to_numpy()) <= 0).all()  # largest first
    assert (ev["evppi"] >= 0).all()
    assert (ev["evppi"] <= mc["evpi_usd"] + 1).all()  # partial information is worth at most perfect
    assert mc["warnings"] == []  # so no share of the EVPI above 1 to warn of
    assert ev.loc["agent.ttft_s", "evppi"] == 0  # not read by the payback model
    # a key of positive EVPPI changes the best option somewhere in its range; one at zero
    # because the same option is best everywhere says so
    assert (ev["evppi"] > 0).any()
    assert (ev.loc[ev["evppi"] > 0, "reason"] == "").all()


def test_the_monte_carlo_text_prints_the_warnings_it_carries(mc20k):
    """The EVPPI above the EVPI is warned of under the value of information (issue 27): none at
    20,000 samples here; one carried in the result is printed."""
    text, _ = cli_text.montecarlo(mc20k)
    assert "Warning" not in text
    top = mc20k["evppi"]["key"].iloc[0]
    w = sample_warnings.evppi_warnings([top], np.array([1.2]), np.array([0.1]), 20_000)
    text, _ = cli_text.montecarlo({**mc20k, "warnings": w})
    voi, _, warned = text.partition("Warning: too few samples for 1 figure(s) above")
    assert "Value of information" in voi and " ".join(w[0].message.split()) in " ".join(
        warned.split()
    )


def test_the_monte_carlo_samples_what_version_4_samples_and_holds_the_fleet_plan(mc20k, base):
    names = set(mc20k["problem"].names)
    assert set(PHYSICS) <= names and set(SAMPLED_V4) <= names
    assert not set(FLEET_PLAN) & set(mc20k["full_problem"].names)
    assert not set(FLEET_PLAN) & set(mc20k["evppi"]["key"])
    # the rent tracks the B300's productivity (V4.4): the rank correlation of correlations.csv,
    # reached by Iman-Conover on the kept samples within its sampling noise
    x = mc20k["run"].inputs
    rho = stats.spearmanr(x["hardware.b300.rent_usd_per_hour"], x["hardware.b300.frontier_scale"])
    target = next(
        c.rho
        for c in base.correlations
        if {c.key_a, c.key_b} == {"hardware.b300.rent_usd_per_hour", "hardware.b300.frontier_scale"}
    )
    assert target > 0 and rho.statistic == pytest.approx(target, abs=0.05)


@pytest.fixture(scope="module")
def sobol512(base):
    return run.sobol_indices(base, 512, seed=2, workers=2)


def test_sobol_reads_the_keys_the_model_reads_and_agrees_with_the_tornado_on_what_matters(
    sobol512, base
):
    """The tornado (one key at a time, the others at base) and the Sobol indices (every key
    drawn) may rank keys differently, through interactions, non-linearity and clamps (issue
    27); what must hold for both: a key that swings the NPV widely alone is not inert jointly,
    and the key of the largest total index moves the NPV alone too."""
    df = sobol512
    tornado = run.tornado(base)
    tornado = tornado[tornado.output == "npv_usd"].set_index("variable")
    by_key = df.set_index("variable")
    top = tornado.index[0]
    assert by_key.loc[top, "ST_low"] > 0 and by_key.loc[top, "note"] == ""
    assert tornado.loc[df["variable"].iloc[0], "swing"] > 0
    assert (np.diff(df["ST"].to_numpy()) <= 0).all()  # largest total index first
    for key in ("agent.ttft_s", "buy.resale_share"):  # not read by the payback model
        assert by_key.loc[key].ST == 0 and "not read" in by_key.loc[key].note
        assert tornado.loc[key, "swing"] == 0
    # a key the model reads but that barely matters gets a small, evaluated index
    assert by_key.loc["market.pro_growth_monthly"].note == ""
    # the physics is varied and evaluated (issue 16, item 7)
    for key in PHYSICS:
        assert by_key.loc[key].note == "", key
    # one context for both platforms (V4.5): the wafer's SRAM holds fewer streams as it grows
    assert by_key.loc["usage.context_tokens", "ST_low"] > 0
    assert "model.context_tokens" not in by_key.index  # retired (the key moved to usage.)


def test_sobol_warnings_are_carried_in_the_frame_and_name_figures_it_shows(sobol512, base):
    """Every warning names a key of the table and a figure the theory rules out, beyond its
    interval; eight samples are too few for some of the model's indices (issue 27)."""
    tiny = run.sobol_indices(base, 8, seed=2)
    for df in (sobol512, tiny):
        by_key = df.set_index("variable")
        for w in df.attrs["warnings"]:
            row = by_key.loc[w.key]
            if w.kind == sample_warnings.NEGATIVE_INDEX:
                assert row[w.index] == w.value <= -sample_warnings.MATERIAL
                assert row[f"{w.index}_high"] < 0
            else:
                assert w.kind == sample_warnings.FIRST_ORDER_ABOVE_TOTAL
                assert row.S1 - row.ST == pytest.approx(w.value, abs=1e-15)
                assert w.value >= sample_warnings.MATERIAL and 0 < w.low <= w.high
            assert w.message.startswith(f"{w.key}: ")
        # the warnings follow the table's order
        order = list(df["variable"])
        assert [order.index(w.key) for w in df.attrs["warnings"]] == sorted(
            order.index(w.key) for w in df.attrs["warnings"]
        )
    assert tiny.attrs["warnings"]
    text, _ = cli_text.sobol(tiny)
    assert "Warning: too few samples for" in text
    for w in tiny.attrs["warnings"]:
        assert w.key in text


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
            "tiers.ultrafast.usage_multiplier,pert,4,12",
            "tiers.ultrafast.usage_multiplier,pert,9,12",
        )
    )
    a = load(data_copy)
    with pytest.raises(
        AssumptionError,
        match=r"sensitivity\.csv row \d+, columns low/high: .*the base value 8 \(the mode\) lies "
        r"outside \[9, 12\]; widen the range",
    ):
        run.problem_from(a)


def test_what_a_scenario_or_set_fixes_is_held_not_varied(base):
    a = base.with_overrides([("tiers.ultrafast.usage_multiplier", "13")])  # outside [4, 12]
    names = run.problem_from(a).names
    assert "tiers.ultrafast.usage_multiplier" not in names
    assert len(names) == len(base.sensitivity) - 1
    assert run.held(a) == [("tiers.ultrafast.usage_multiplier", 13.0, "--set")]
    mc = run.monte_carlo(a, 256, 1)
    assert mc["held"] == [("tiers.ultrafast.usage_multiplier", 13.0, "--set")]
    # every sample ran at 13: its NPV is the model's at its sampled inputs with the key at 13,
    # the ultrafast tier served at the base case's multiplier (the strategic choice is fixed)
    x = mc["run"].inputs
    assert "tiers.ultrafast.usage_multiplier" not in x.columns and len(x) == 256
    at = {k: x[k].to_numpy()[:16] for k in x.columns if k in a.values}
    npv = evaluate(a, at, detail=False, served=run.held_served(a)).npv
    assert np.array_equal(npv, mc["run"].outputs["npv_usd"].to_numpy()[:16])
    held = run.held_served(base)
    assert not np.array_equal(npv, evaluate(base, at, detail=False, served=held).npv)


def test_the_analyses_hold_the_base_case_served_multiplier(base):
    """docs/model.md section 0.7: the served speed is a strategic choice made before uncertainty resolves.
    A 2,000 tokens/s tier fits on the wafer at m <= 0.9 x 1,866.5 / 2,000 = 0.84 of its speed
    (the ceiling by hand in tests/test_decisions.py): the base case picks the m of the grid
    that maximises NPV, and every draw of the Monte Carlo and every end of the tornado is
    served at that m (or the fastest below it that the draw's physics allows)."""
    a = base.with_overrides([("tiers.ultrafast.tokens_per_s", "2000")])
    feasible = [m for m in (1.0, 0.9, 0.8, 0.7, 0.6, 0.5) if 2000 * m <= 0.9 * 1866.5]
    assert feasible == [0.8, 0.7, 0.6, 0.5]
    npv = {m: float(evaluate(a, served=[m]).npv[0]) for m in feasible}
    held = run.held_served(a)
    assert held == max(feasible, key=lambda m: (npv[m], m))
    assert float(evaluate(a).npv[0]) == npv[held]
    assert run.held_served(base.with_overrides([("capacity.basis", "data")])) == 1.0

    mc = run.monte_carlo(a, 256, seed=4)
    x = mc["run"].inputs
    at = {k: x[k].to_numpy() for k in x.columns if k in a.values}
    r = evaluate(a, at, detail=False, served=held)
    assert np.array_equal(r.npv, mc["run"].outputs["npv_usd"].to_numpy())
    m = r.served_multiplier[np.isfinite(r.served_multiplier)]
    assert m.size and (m <= held).all()

    t = run.tornado(a)
    row = t[t.output == "npv_usd"].set_index("variable").loc["model.speculative_speedup"]
    assert row.output_base == pytest.approx(npv[held], rel=1e-12)
    ends = evaluate(a, {"model.speculative_speedup": [row.low, row.high]}, served=held).npv
    np.testing.assert_allclose([row.output_low, row.output_high], ends, rtol=1e-12)
