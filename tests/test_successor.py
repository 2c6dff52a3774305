"""A successor of another size (docs/model.md, section V4.6; scenario successor_2x): hand-worked
months, identities with a run of the larger model, and the direction of each key's effect. The
month-by-month agreement with an independent implementation is in tests/test_reference_v3.py
(edge cases and every bundled scenario)."""

from __future__ import annotations

import numpy as np
import pytest

import econ
from econ.model import evaluate

# the WSE-3 serves a 32T successor (16 x 2T) at no grid speed reachable at 750 tokens/s x 1.0
# (its ceiling is about 432 tokens/s against 750 / 0.9); a 4T one at 1,531 tokens/s
NOT_REACHED = {"model.successor_params_multiple": 16.0}


@pytest.fixture(scope="module")
def a():
    return econ.load()


def test_a_successor_of_the_same_size_changes_nothing(a):
    """model.successor_params_multiple = 1 (the bundled data): the succession's month and the
    predecessor's decline are read by nothing; the NPV is the bundled one to the last bit."""
    r0 = evaluate(a, detail=False)
    r1 = evaluate(
        a,
        {"model.succession_months": 1.0, "model.predecessor_decline_per_month": 0.9},
        detail=False,
    )
    assert r1.npv[0] == r0.npv[0]
    assert np.array_equal(r1.net_cash_flow, r0.net_cash_flow)


def test_a_successor_after_the_horizon_changes_nothing(a):
    """The first successor month is the first t with t - 1 >= model.succession_months: with 60
    months (the horizon) there is none."""
    r0 = evaluate(a)
    r1 = evaluate(a, {"model.successor_params_multiple": 2.0, "model.succession_months": 60.0})
    assert r1.npv[0] == r0.npv[0]
    assert not np.asarray(r1.parts["succession"]).any()


def test_the_successors_first_month_and_the_decline_by_hand(a):
    """Bundled model.succession_months 2.1: months 1-3 (starting 0, 1, 2 months in) are the served
    model's, month 4 (3 months in) the successor's. Where the contract cannot serve it (16x), the
    predecessor's demand on the contract is (1 - d)^(t - 3) from month 4: 0.8, 0.64, 0.512 at
    d = 0.2; where it can (2x), the contract serves the successor and nothing declines."""
    r = evaluate(a, {**NOT_REACHED, "model.predecessor_decline_per_month": 0.2}, served=1.0)
    assert np.asarray(r.parts["succession"])[0, :6].tolist() == [0, 0, 0, 1, 1, 1]
    assert np.asarray(r.parts["contract_successor"])[0, :6].tolist() == [0] * 6
    assert np.asarray(r.parts["demand"])[0, :6] == pytest.approx([1, 1, 1, 0.8, 0.64, 0.512])
    r2 = evaluate(a, {"model.successor_params_multiple": 2.0}, served=1.0)
    assert np.asarray(r2.parts["contract_successor"])[0, :6].tolist() == [0, 0, 0, 1, 1, 1]
    assert np.asarray(r2.parts["demand"])[0] == pytest.approx(1.0)


def test_the_successor_is_the_served_model_doubled(a):
    """The successor's throughputs and token values are those of a run whose served model has
    twice the parameters at the same active share (served at the same ultrafast speed), and the
    contract's and the fleet's months switch to them from month 4."""
    r = evaluate(a, {"model.successor_params_multiple": 2.0}, served=1.0)
    big = evaluate(a, {"model.params": 2.0 * a.num("model.params")}, served=1.0)
    small = evaluate(a, served=1.0)
    P = r.parts
    pairs = (
        ("successor.throughput_ultrafast", big.throughput_per_mw),
        ("successor.throughput_standard", big.throughput_per_mw_standard),
        ("successor.gpu_cost_standard", big.gpu_cost_standard),
        ("successor.gpu_cost_flexible", big.gpu_cost_flexible),
    )
    for key, want in pairs:
        assert float(np.asarray(P[key])[0]) == float(want[0]), key
    thr = np.asarray(P["thr_u_t"])[0]
    assert thr[:3] == pytest.approx(small.throughput_per_mw[0], rel=0)
    assert thr[3:] == pytest.approx(big.throughput_per_mw[0], rel=0)
    g = np.asarray(P["g_std_t"])[0]
    assert g[3:] == pytest.approx(big.gpu_cost_standard[0], rel=0)
    # a larger model: fewer tokens a MW on the contract, dearer tokens on the fleet
    assert big.throughput_per_mw[0] < small.throughput_per_mw[0]
    assert big.gpu_cost_standard[0] > small.gpu_cost_standard[0]


def test_the_predecessors_decline_lowers_the_npv(a):
    """Where the contract serves the predecessor, the faster its demand declines the less the
    contract carries and the lower the NPV (V4.6); where it serves the successor the decline
    reads nothing."""
    d = np.array([0.0, 0.1, 0.3, 0.6, 0.9])
    r = evaluate(
        a, {**NOT_REACHED, "model.predecessor_decline_per_month": d}, served=1.0, detail=False
    )
    assert np.all(np.diff(r.npv) < 0)
    served = np.asarray(r.api_tokens_served).sum(axis=1) + np.asarray(r.backfill_tokens).sum(axis=1)
    assert np.all(np.diff(served) < 0)
    r2 = evaluate(
        a,
        {"model.successor_params_multiple": 2.0, "model.predecessor_decline_per_month": d},
        served=1.0,
        detail=False,
    )
    assert np.all(r2.npv == r2.npv[0])


def test_an_earlier_successor_that_the_contract_cannot_serve_lowers_the_npv(a):
    """A successor the contract cannot serve, arriving earlier, leaves the contract the
    predecessor's declining demand for longer: the NPV rises with model.succession_months."""
    s = np.array([1.0, 6.0, 12.0, 24.0, 59.0])
    r = evaluate(a, {**NOT_REACHED, "model.succession_months": s}, served=1.0, detail=False)
    assert np.all(np.diff(r.npv) > 0)


def test_the_scenario_successor_2x_is_bundled(a):
    """data/scenarios/successor_2x.csv doubles the served model from the first succession on;
    the bundled WSE-3 serves the 4T successor at 750 tokens/s (ceiling above 750 / 0.9)."""
    s = a.with_scenario("successor_2x")
    assert s.num("model.successor_params_multiple") == 2.0
    r = evaluate(s)
    assert float(np.asarray(r.parts["successor.reached"])[0]) == 1.0
    assert float(np.asarray(r.parts["successor.ceiling_contract"])[0]) > 750 / 0.9
    assert r.npv[0] != evaluate(a).npv[0]
