"""Value of information against closed forms and a brute-force estimator."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from econ.sensitivity import montecarlo, voi
from econ.sensitivity.sampling import Problem, Variable, sample

Z95 = 1.6448536269514722
MU, SIGMA, COST = 1.0e6, 2.0e6, 1.5e6  # x ~ N(MU, SIGMA^2) [USD]; NPV = x - COST


def deal(unread: int = 1) -> Problem:
    """x normal (given by its 5th and 95th percentiles) and keys NPV does not read."""
    x = Variable("x", "normal", MU - Z95 * SIGMA, MU + Z95 * SIGMA, MU)
    return Problem((x, *(Variable(f"noise{i}", "uniform", 0, 1, 0.5) for i in range(unread))))


def npv_of_x(p):
    return {"npv": p["x"] - COST}


def test_evpi_of_a_normal_value_has_its_closed_form():
    # E[max(x - c, 0)] = (mu - c) Phi((mu - c)/sigma) + sigma phi((mu - c)/sigma); deciding now: max(mu - c, 0)
    m = MU - COST
    expected = m * stats.norm.cdf(m / SIGMA) + SIGMA * stats.norm.pdf(m / SIGMA) - max(m, 0.0)
    r = montecarlo.run(npv_of_x, deal(), 2**16, 3, ["npv"], voi_output="npv")
    evpi, _ = r.value_of_information()
    assert evpi == pytest.approx(expected, rel=1e-3)
    assert voi.evpi(r.outputs["npv"].to_numpy()) == pytest.approx(expected, rel=1e-3)
    assert evpi == pytest.approx(voi.evpi(r.outputs["npv"].to_numpy()), abs=1.0)  # rounding to USD


def test_evppi_of_the_only_input_approaches_evpi_and_an_unread_key_is_noise():
    gaps = []
    for n in (2**10, 2**16):
        r = montecarlo.run(npv_of_x, deal(), n, 3, ["npv"], voi_output="npv")
        evpi, table = r.value_of_information()
        t = table.set_index("key")
        gaps.append((evpi - t.loc["x", "evppi"]) / evpi)
        assert not t.loc["x", "within_noise"]
        assert t.loc["noise0", "within_noise"]
        assert t.loc["noise0", "evppi"] < 0.05 * evpi
    assert 0 <= gaps[1] < gaps[0] and gaps[1] < 0.005


def test_the_noise_floor_matches_keys_without_information():
    # 40 keys that NPV does not read: their EVPPI scatter around the floor, with the stated spread.
    # NPV centred on zero: the case where the floor is largest.
    prob = deal(unread=40)
    r = montecarlo.run(lambda p: {"npv": p["x"] - MU}, prob, 4_096, 11, ["npv"], voi_output="npv")
    _, table = r.value_of_information()
    t = table.set_index("key").drop("x")
    floor, spread = t["noise_floor"].iloc[0], t["noise_sd"].iloc[0]
    # 64 bins of 64 samples: s = sigma sqrt((N - 64) / ((N - 1) 64)); floor = s phi(0) at mean 0
    s = SIGMA * np.sqrt((4_096 - 64) / (4_095 * 64))
    assert floor == pytest.approx(s / np.sqrt(2 * np.pi), rel=0.02)  # the sample mean is near 0
    assert t["evppi"].mean() == pytest.approx(floor, rel=0.1)
    assert t["evppi"].std() == pytest.approx(spread, rel=0.35)
    assert t["within_noise"].mean() >= 0.95


def test_streamed_evppi_equals_sorting_the_samples_into_equal_count_bins():
    # n = 4096: 64 bins of exactly 64 samples each, the same as sorting by x_k and splitting
    n = 4_096
    prob = Problem(
        (
            Variable("a", "pert", 0, 10, 2),
            Variable("b", "lognormal", 1, 5, 2),
            Variable("c", "triangular", -1, 1, 0.5),
        )
    )

    def f(p):
        return {"npv": 1e5 * (p["a"] * p["b"] - 10 * p["c"] - 8)}

    r = montecarlo.run(f, prob, n, 21, ["npv"], chunk=1_000, voi_output="npv")
    _, table = r.value_of_information()
    x = sample(prob, n, 21)
    v = np.rint(f({k: x[k].to_numpy() for k in x})["npv"])  # whole USD, as accumulated
    for key in prob.names:
        groups = np.array_split(v[np.argsort(x[key].to_numpy(), kind="stable")], 64)
        brute = np.mean([max(g.mean(), 0.0) for g in groups]) - max(v.mean(), 0.0)
        got = table.set_index("key").loc[key, "evppi"]
        assert got == pytest.approx(brute, rel=1e-9, abs=1e-6)


def test_value_bins_from_chunks_add_up_to_the_same_integers():
    rng = np.random.default_rng(0)
    u = rng.random((1_000, 3))
    v = rng.normal(0, 1e9, 1_000)
    whole = voi.ValueBins.empty(["a", "b", "c"], 31)
    whole.add(u, v)
    parts = voi.ValueBins.empty(["a", "b", "c"], 31)
    for s in (slice(700, None), slice(0, 300), slice(300, 700)):  # any order
        chunk = voi.ValueBins.empty(["a", "b", "c"], 31)
        chunk.add(u[s], v[s])
        parts.merge(chunk)
    np.testing.assert_array_equal(whole.sums, parts.sums)
    np.testing.assert_array_equal(whole.counts, parts.counts)
    assert (
        whole.sums.dtype == np.int64 and whole.sums.sum() == 3 * np.rint(v).astype(np.int64).sum()
    )


def test_nan_values_are_left_out_and_an_empty_table_is_nan():
    bins = voi.ValueBins.empty(["a"], 4)
    bins.add(np.array([[0.1], [0.6]]), np.array([np.nan, 5.0]))
    assert bins.n == 1 and bins.total == 5
    assert np.isnan(voi.evpi(np.array([np.nan])))
    empty = voi.evppi(voi.ValueBins.empty(["a"], 4), sd=1.0)
    assert empty["key"].tolist() == ["a"] and empty["evppi"].isna().all()


def test_a_value_too_large_for_the_resolution_is_a_clear_error():
    bins = voi.ValueBins.empty(["a"], 4, resolution=1e-9)
    with pytest.raises(OverflowError, match="coarser resolution"):
        bins.add(np.array([[0.5]]), np.array([1e10]))


def test_value_of_information_needs_a_decision_output():
    r = montecarlo.run(npv_of_x, deal(), 64, 1, ["npv"])
    with pytest.raises(ValueError, match="pass voi_output"):
        r.value_of_information()
    assert isinstance(pd.DataFrame(), pd.DataFrame)
