"""Evaluation in blocks (econ.blocks): the same bits as one call, whatever the block size."""

from __future__ import annotations

import re
from dataclasses import fields

import numpy as np
import pytest

import econ
from econ import blocks
from econ.assumptions import AssumptionError
from econ.model import Params, Results, evaluate
from econ.sensitivity import run as srun
from econ.sensitivity.sampling import sample

N = 41  # blocks of 7: five of 7 and one of 6; of 2: twenty, the last of 3
ONE = 10**6  # a block larger than any design here: one call
# a block counts scenario evaluations: a scenario whose served speed is chosen counts 6
CHOSEN = 6


@pytest.fixture(scope="module")
def design(base) -> dict[str, np.ndarray]:
    """N scenarios drawn from every range of sensitivity.csv (tier speeds, hardware, the term
    and the horizon-long inputs among them)."""
    df = sample(srun.problem_from(base), N, 5)
    out = {k: df[k].to_numpy() for k in df.columns}
    # the term too: without detail the ultrafast tier's months are cut after a block's longest
    h = int(base.values["horizon.months"])
    out["contract.term_months"] = np.random.default_rng(5).integers(6, h + 1, N).astype(float)
    return out


def _arrays(r: Results):
    for f in fields(r):
        v = getattr(r, f.name)
        if isinstance(v, dict):
            yield from ((f"{f.name}.{k}", x) for k, x in v.items())
        elif isinstance(v, np.ndarray) or v is None:
            yield f.name, v


def assert_same_bits(got: Results, want: Results) -> None:
    """Every array equal to the last bit (NaN to NaN), with one call's layout and flags."""
    a, b = dict(_arrays(got)), dict(_arrays(want))
    assert a.keys() == b.keys()
    for name, x in a.items():
        y = b[name]
        if x is None or y is None:
            assert x is None and y is None, name
            continue
        assert x.shape == y.shape and x.dtype == y.dtype, name
        assert x.strides == y.strides and x.flags.writeable == y.flags.writeable, name
        assert np.ascontiguousarray(x).tobytes() == np.ascontiguousarray(y).tobytes(), name
    assert got.inputs_read == want.inputs_read


def test_the_design_varies_what_blocks_could_change(design):
    # the term (the ultrafast terms are cut after the block's longest term) and the inputs of
    # the served speed's choice vary from block to block
    assert "contract.term_months" in design and np.unique(design["contract.term_months"]).size > 1
    assert any(k.startswith("tiers.ultrafast") for k in design)


@pytest.mark.parametrize("detail", [False, True])
@pytest.mark.parametrize("block", [2, 7])
def test_blocks_give_the_bits_of_one_call(base, design, detail, block):
    one = evaluate(base, design, detail=detail, block=ONE)
    got = evaluate(base, design, detail=detail, block=CHOSEN * block)
    assert_same_bits(got, one)


def test_blocks_with_a_held_served_speed(base, design):
    served = np.linspace(0.5, 1.0, N)
    one = evaluate(base, design, detail=False, served=served, block=ONE)
    assert_same_bits(evaluate(base, design, detail=False, served=served, block=5), one)
    one = evaluate(base, design, detail=False, served=0.8, block=ONE)
    assert_same_bits(evaluate(base, design, detail=False, served=0.8, block=5), one)


def test_the_environment_sets_the_block_size(base, design, monkeypatch):
    one = evaluate(base, design, detail=False, block=ONE)
    calls = []
    real = blocks.evaluate
    monkeypatch.setattr(blocks, "evaluate", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setenv(blocks.ENV, "6")
    assert blocks.block_size() == 6
    assert_same_bits(evaluate(base, design, detail=False), one)
    assert calls  # the evaluation went through the blocks
    monkeypatch.setenv(blocks.ENV, "six")
    with pytest.raises(ValueError, match="ECON_BLOCK_SIZE"):
        evaluate(base, design, detail=False)


def test_monthly_keeps_the_paths_named(base, design):
    one = evaluate(base, design, detail=True, block=ONE)
    none = evaluate(base, design, detail=True, block=9, monthly=False)
    some = evaluate(base, design, detail=True, block=9, monthly=["net_cash_flow", "inflow"])
    for name, (_, shape, _) in Results.units().items():
        x, y, z = getattr(one, name), getattr(none, name), getattr(some, name)
        if shape == "(N, H)":
            assert y is None
            assert (z is None) == (name != "net_cash_flow")
        else:
            assert np.array_equal(x, y, equal_nan=True) and np.array_equal(x, z, equal_nan=True)
    assert np.array_equal(some.net_cash_flow, one.net_cash_flow)
    assert some.parts.keys() == {k for k, v in one.parts.items() if v.ndim == 1} | {"inflow"}
    assert none.totals.keys() == one.totals.keys()
    with pytest.raises(ValueError, match="net_cashflow"):
        evaluate(base, design, detail=False, monthly=["net_cashflow"])
    with pytest.raises(ValueError, match="one number a scenario"):
        evaluate(base, design, detail=False, monthly=["npv"])


def test_the_public_evaluate_in_blocks(base, design):
    one = econ.evaluate(base, design, detail=False, block=ONE)
    got = econ.evaluate(base, design, detail=False, block=4, monthly=["net_cash_flow_usd"])
    assert got.metrics.equals(one.metrics)
    assert got.monthly.equals(one.monthly[["net_cash_flow_usd"]])
    assert econ.evaluate(base, design, detail=False, monthly=False).monthly.empty
    with pytest.raises(AssumptionError, match="block"):
        econ.evaluate(base, design, detail=False, block=1)
    with pytest.raises(TypeError, match="monthly"):
        econ.evaluate(base, design, detail=False, monthly="net_cash_flow_usd")


def test_an_analysis_in_blocks(base, design, monkeypatch):
    f = srun.model_function(base, paths=True, options=True)
    want = f(design)
    monkeypatch.setenv(blocks.ENV, "3")
    got = f(design)
    assert want.keys() == got.keys()
    for k in want:
        assert np.asarray(got[k]).tobytes() == np.asarray(want[k]).tobytes(), k


def test_an_error_in_a_later_block_names_the_scenario_among_all(base):
    start = np.full(10, base.num("market.pro_subscribers_start"))
    start[7] = base.num("market.mau")  # block [4, 8): its scenario 3
    growth = np.full(10, base.num("market.pro_growth_monthly"))
    growth[7] = 0.05  # the no-deal world cannot be calibrated: an upgrade rate above 100 %
    over = {"market.pro_subscribers_start": start, "market.pro_growth_monthly": growth}
    want = "in scenario 7 (market.pro_subscribers_start=1e+09, market.pro_growth_monthly=0.05)"
    with pytest.raises(AssumptionError, match=re.escape(want)) as one:
        evaluate(base, over, detail=False, block=ONE)
    with pytest.raises(AssumptionError) as blocked:
        evaluate(base, over, detail=False, block=4 * CHOSEN)
    assert str(blocked.value) == str(one.value)


def test_a_block_counts_the_served_speeds_candidates(base, design):
    p = Params(base, design)
    assert blocks.per_block(p, None, 60) == 10  # each scenario evaluated at 6 speeds
    assert blocks.per_block(p, 0.8, 60) == 60
    assert blocks.per_block(p, None, 7) == 2  # never one scenario alone
    assert blocks.per_block(p, None) == blocks.BLOCK_SIZE // CHOSEN


def test_spans_never_leave_one_scenario_alone():
    assert blocks.spans(10, 4) == [(0, 4), (4, 8), (8, 10)]
    assert blocks.spans(9, 4) == [(0, 4), (4, 9)]
    assert blocks.spans(1, 4) == [(0, 1)]
    assert blocks.spans(3, 2) == [(0, 3)]
    for n in range(1, 40):
        for b in range(2, 9):
            s = blocks.spans(n, b)
            assert s[0][0] == 0 and s[-1][1] == n
            assert all(e - st >= min(2, n) and e - st <= b + 1 for st, e in s)
            assert all(s[i][1] == s[i + 1][0] for i in range(len(s) - 1))


@pytest.mark.parametrize("bad", [0, 1, -5, 2.5, True, "4"])
def test_a_block_size_is_a_whole_number_of_at_least_two(bad):
    with pytest.raises(ValueError, match="block"):
        blocks.block_size(bad)
