"""Value of information against closed forms, against resampling the samples, and between
sample counts."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from econ.sensitivity import montecarlo, voi
from econ.sensitivity.sampling import Problem, Variable

Z95 = 1.6448536269514722
MU = 1.0e6  # the deal's mean net benefit [USD]
SX, SZ = 2.0e6, 1.5e6  # NB = MU + SX a + SZ b, a and b standard normal: the linear-normal case


def normal(name: str) -> Variable:
    """A standard normal key (given by its 5th and 95th percentiles)."""
    return Variable(name, "normal", -Z95, Z95, 0.0)


def linear_normal(unread: int = 1) -> Problem:
    return Problem(
        (
            normal("a"),
            normal("b"),
            *(Variable(f"noise{i}", "uniform", 0, 1, 0.5) for i in range(unread)),
        )
    )


def deal(p):
    return {"npv": MU + SX * p["a"] + SZ * p["b"]}


def gain(m: float, s: float) -> float:
    """E[max(m + s Z, 0)] - max(m, 0), Z standard normal: the value of learning s Z."""
    return m * stats.norm.cdf(m / s) + s * stats.norm.pdf(m / s) - max(m, 0.0)


@pytest.mark.parametrize("n", [20_000, 100_000])
def test_linear_normal_evppi_is_within_three_standard_errors_of_its_closed_form(n):
    # knowing a alone: E[NB | a] = MU + SX a, so EVPPI_a = gain(MU, SX); knowing b: gain(MU, SZ);
    # knowing both: EVPI = gain(MU, sqrt(SX^2 + SZ^2)); a key the NPV does not read: 0
    r = montecarlo.run(deal, linear_normal(), n, 5, ["npv"], voi_output="npv")
    v = r.value_of_information()
    t = v.evppi.set_index("key")
    for key, s in (("a", SX), ("b", SZ)):
        exact = gain(MU, s)
        assert abs(t.loc[key, "evppi"] - exact) <= 3 * t.loc[key, "evppi_se"], key
        assert t.loc[key, "evppi_se"] < 0.05 * exact  # an error worth the name
    exact = gain(MU, np.hypot(SX, SZ))
    assert abs(v.evpi - exact) <= 3 * v.evpi_se
    assert t.loc["noise0", "evppi"] == 0 and t.loc["noise0", "reason"] == voi.ZERO_SAME
    assert v.samples == n and v.best == "npv"
    assert v.warnings == ()  # shares of the EVPI 0.73 and 0.41: nothing above 1 to warn of


def test_three_options_have_the_closed_form_of_the_best_of_them():
    # options: no deal 0, deal 1 = MU + SX a + SZ b, deal 2 = a constant C > MU: knowing a,
    # E[max(0, MU + SX a, C)] - C = E[max(0, MU - C + SX a)] = gain(MU - C, SX) + 0
    c = 1.5e6

    def two(p):
        return {"one": MU + SX * p["a"] + SZ * p["b"], "two": np.full(len(p["a"]), c)}

    r = montecarlo.run(two, linear_normal(0), 50_000, 8, ["one", "two"], voi_output=["one", "two"])
    v = r.value_of_information(names=["deal", "sure thing"])
    t = v.evppi.set_index("key")
    exact = gain(MU - c, SX)
    assert abs(t.loc["a", "evppi"] - exact) <= 3 * t.loc["a", "evppi_se"]
    assert v.best == "sure thing" and v.means[2] == pytest.approx(c)
    assert abs(v.evpi - gain(MU - c, np.hypot(SX, SZ))) <= 3 * v.evpi_se


def test_the_bootstrap_error_matches_the_spread_over_seeds():
    # the standard error of one run against the spread of the estimates over independent runs
    # (Latin hypercube, as the Monte Carlo samples): calibrated within the spread's own noise
    est, se = [], []
    for seed in range(24):
        r = montecarlo.run(deal, linear_normal(0), 5_000, 1000 + seed, ["npv"], voi_output="npv")
        t = r.value_of_information().evppi.set_index("key")
        est.append(t.loc[["a", "b"], "evppi"].to_numpy())
        se.append(t.loc[["a", "b"], "evppi_se"].to_numpy())
    ratio = np.mean(se, axis=0) / np.std(est, axis=0, ddof=1)
    assert ((ratio > 0.6) & (ratio < 1.6)).all(), ratio


def test_a_key_that_cannot_change_the_decision_shows_zero_and_says_why():
    rng = np.random.default_rng(2)
    n = 20_000
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    # the deal is worth 10 sd of b above zero whatever b is: knowing b never changes the decision
    nb = 10 * SZ + SX * np.minimum(a, 0) + SZ * b
    r = voi.from_samples({"a": a, "b": b, "flat": np.ones(n)}, nb)
    t = r.evppi.set_index("key")
    assert t.loc["b", "evppi"] == 0 and t.loc["b", "reason"] == voi.ZERO_SAME
    assert t.loc["flat", "evppi"] == 0 and t.loc["flat", "reason"] == voi.ZERO_FLAT
    acc = voi.Accumulator(("a",), 20, 1)
    acc.add(np.zeros((1, 1), np.uint8), np.ones((1, 1)))
    acc.finish()
    res = voi.analyse(acc, np.zeros((1, 20)), ["deal"], np.ones(1), unread=["u"])
    assert res.evppi.set_index("key").loc["u", "reason"] == voi.ZERO_UNREAD


def test_the_sums_do_not_depend_on_how_the_samples_are_split():
    rng = np.random.default_rng(1)
    n = 3 * voi.UNIT + 123
    ids = rng.integers(0, 50, (n, 3)).astype(np.uint8)
    vals = rng.normal(0, 1e9, (n, 2))
    whole = voi.Accumulator(("a", "b", "c"), 50, 2)
    whole.add(ids, vals)
    whole.finish()
    parts = voi.Accumulator(("a", "b", "c"), 50, 2)
    cuts = np.sort(rng.choice(n, 40, replace=False))
    for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, n], strict=True):
        parts.add(ids[lo:hi], vals[lo:hi])
    parts.finish()
    for x, y in ((whole.counts, parts.counts), (whole.sums, parts.sums)):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(whole.products, parts.products)
    # and the sums are the sums
    assert whole.counts[0].sum() == n
    np.testing.assert_allclose(whole.sums[1].sum(axis=0), vals.sum(axis=0), rtol=1e-12)


def test_nan_rows_are_left_out_and_no_value_gives_nan():
    assert voi.evpi(np.array([np.nan, 1.0, -1.0])) == pytest.approx(0.5)
    acc = voi.Accumulator(("a",), 20, 1)
    acc.add(np.zeros((2, 1), np.uint8), np.array([[np.nan], [np.nan]]))
    acc.finish()
    assert acc.dropped == 2 and acc.counts.sum() == 0
    res = voi.analyse(acc, np.zeros((1, 20)), ["deal"], np.array([np.nan, np.nan]))
    assert np.isnan(res.evpi) and res.evppi["evppi"].isna().all()


def test_value_of_information_needs_a_decision_output():
    r = montecarlo.run(deal, linear_normal(), 100, 1, ["npv"])
    with pytest.raises(ValueError, match="pass voi_output"):
        r.value_of_information()
