"""Monte Carlo runs over worker processes: the same bits for any chunk and worker count, fans of
path outputs, the samples CSV, and the statistics of the outputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from econ.model import evaluate
from econ.sensitivity import montecarlo
from econ.sensitivity import run as econ_run
from econ.sensitivity.montecarlo import FanGrid, PathHistogram, SamplesFileError
from econ.sensitivity.sampling import BLOCK, Problem, Variable, correlation_matrix, sample

Z95 = 1.6448536269514722  # the 95th percentile of the standard normal


def problem() -> Problem:
    return Problem(
        (
            Variable("deal.a", "normal", -1, 1, 0),
            Variable("deal.b", "uniform", 0, 1, 0.5),
            Variable("deal.c", "pert", 0, 3, 1),
            Variable("deal.unused", "lognormal", 1, 10, 3),
        ),
        correlation_matrix(
            ["deal.a", "deal.b", "deal.c", "deal.unused"], [("deal.a", "deal.b", 0.5)]
        ),
    )


def toy(p):
    """Scalar outputs and a cumulative-cash-like path over 12 months that crosses zero."""
    a, b, c = p["deal.a"], p["deal.b"], p["deal.c"]
    months = np.arange(1, 13)
    flow = 1e6 * (a[:, None] + 2 * b[:, None] * months / 12 - c[:, None] / 2)
    cum = np.cumsum(flow, axis=1)
    npv = cum[:, -1]
    payback = np.where(b > 0.4, 24 * (1 - b), np.nan)
    return {"npv": npv, "payback": payback, "irr": npv / 1e7, "cum": cum}


def _same(r1, r2):
    np.testing.assert_array_equal(r1.outputs.to_numpy(), r2.outputs.to_numpy())
    pd.testing.assert_frame_equal(r1.inputs, r2.inputs, check_exact=True)
    pd.testing.assert_frame_equal(r1.fans["cum"], r2.fans["cum"], check_exact=True)
    h1, h2 = r1.histograms["cum"], r2.histograms["cum"]
    assert h1.first == h2.first
    for x, y in ((h1.counts, h2.counts), (h1.nan, h2.nan), (h1.low, h2.low), (h1.high, h2.high)):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(r1.voi.counts, r2.voi.counts)
    np.testing.assert_array_equal(r1.voi.sums, r2.voi.sums)
    np.testing.assert_array_equal(r1.voi.products, r2.voi.products)
    v1, v2 = r1.value_of_information(), r2.value_of_information()
    assert (v1.evpi, v1.evpi_se) == (v2.evpi, v2.evpi_se)
    pd.testing.assert_frame_equal(v1.evppi, v2.evppi, check_exact=True)


def test_one_or_two_workers_and_any_chunk_give_the_same_bits():
    n = BLOCK + 4_321  # two sampling blocks, the second partial
    common = dict(
        outputs=["npv", "payback", "irr"], paths=["cum"], keep_inputs=70, voi_output="npv"
    )
    ref = montecarlo.run(toy, problem(), n, 17, chunk=7_000, workers=1, **common)
    for chunk, workers in ((7_000, 2), (2_999, 2), (50_000, 1)):
        r = montecarlo.run(toy, problem(), n, 17, chunk=chunk, workers=workers, **common)
        _same(ref, r)
        assert r.workers == workers and r.chunks == -(-n // chunk)
    assert ref.n == n and len(ref.outputs) == n and len(ref.inputs) == 70
    assert ref.undefined["payback"] == int(ref.outputs["payback"].isna().sum()) > 0


def test_the_samples_are_those_of_the_sampler_in_sample_order():
    n = 3_000
    r = montecarlo.run(toy, problem(), n, 5, ["npv", "payback"], chunk=1_000, keep_inputs=n)
    x = sample(problem(), n, 5)
    expected = toy({k: x[k].to_numpy() for k in x})
    np.testing.assert_array_equal(r.outputs["npv"], expected["npv"])
    np.testing.assert_array_equal(r.outputs["payback"], expected["payback"])
    pd.testing.assert_frame_equal(r.inputs[x.columns], x, check_exact=True)


class ModelFunction:
    """econ's model as a picklable callable: NPV, payback, IRR and cumulative cash by month."""

    def __init__(self, a):
        self.a = a

    def __call__(self, params):
        r = evaluate(self.a, params, detail=True)
        return {
            "npv": r.npv,
            "payback": r.payback_months,
            "irr": r.irr_annual,
            "cum": r.cumulative_cash,
        }


def test_econ_model_over_two_workers_matches_one(base):
    prob = econ_run.problem_from(base).subset(evaluate(base, detail=False).inputs_read)
    f = ModelFunction(base)
    common = dict(outputs=["npv", "payback", "irr"], paths=["cum"], keep_inputs=5, voi_output="npv")
    r1 = montecarlo.run(f, prob, 2_000, 3, chunk=700, workers=1, **common)
    r2 = montecarlo.run(f, prob, 2_000, 3, chunk=300, workers=2, **common)
    _same(r1, r2)
    assert r1.histograms["cum"].months == int(base.values["horizon.months"])


def test_every_output_of_econs_monte_carlo_is_the_same_bits_for_any_chunk_and_workers(base):
    """The IRR and the MIRR included (docs/model.md, section 7: identical bits for a seed).

    The IRR is a rate of return only where the flows are an investment (money out, then in:
    one sign change of the flows or of their running sum). Paid as delivered (the bundled
    data) the first months of the ramp bring in more than the rent, so the flows go in, out,
    then in, and most draws have no IRR. Take-or-pay owes the rent in full, flat over the term
    from month 1 (docs/model.md, V4.5): money out over the term, the Pro tail in after it, so
    most draws have one."""
    a = base.with_overrides([("contract.payment", "take_or_pay")])
    r1 = econ_run.monte_carlo(a, 1_500, 11, chunk=1_500)
    r2 = econ_run.monte_carlo(a, 1_500, 11, chunk=333, workers=2)
    o1, o2 = r1["run"].outputs, r2["run"].outputs
    assert {"irr_annual", "mirr_annual"} <= set(o1.columns)
    assert np.isfinite(o1["mirr_annual"]).sum() > 100 and np.isfinite(o1["irr_annual"]).sum() > 100
    pd.testing.assert_frame_equal(o1, o2, check_exact=True)
    pd.testing.assert_frame_equal(r1["stats"], r2["stats"], check_exact=True)
    pd.testing.assert_frame_equal(r1["fan"], r2["fan"], check_exact=True)
    assert (r1["evpi_usd"], r1["evpi_se_usd"]) == (r2["evpi_usd"], r2["evpi_se_usd"])


def test_a_sample_within_one_block_is_shared_by_two_workers_and_identical():
    """Chunks that divide a sampling block make tasks of whole blocks, but a sample of one
    block would then be one task and leave the second worker idle: it is split, each task
    drawing the block and keeping its own rows, and the result does not change by a bit."""
    common = dict(outputs=["npv", "payback"], paths=["cum"], keep_inputs=7, voi_output="npv")
    n, chunk = 20_000, BLOCK // 8
    r1 = montecarlo.run(toy, problem(), n, 5, chunk=chunk, workers=1, **common)
    r2 = montecarlo.run(toy, problem(), n, 5, chunk=chunk, workers=2, **common)
    assert (r1.tasks, r2.tasks) == (1, -(-n // chunk))
    _same(r1, r2)
    # two blocks or more: whole blocks per task, as before
    r3 = montecarlo.run(toy, problem(), 2 * BLOCK, 5, chunk=chunk, workers=2, **common)
    assert r3.tasks == 2


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_reaches_n_with_one_and_two_workers(workers):
    calls = []
    montecarlo.run(
        toy,
        problem(),
        5_000,
        1,
        ["npv"],
        chunk=1_000,
        workers=workers,
        progress=lambda d, n: calls.append((d, n)),
    )
    done = [d for d, _ in calls]
    assert done == sorted(done) and done[-1] == 5_000 and {n for _, n in calls} == {5_000}


def test_missing_outputs_and_bad_shapes_are_clear_errors():
    with pytest.raises(KeyError, match="returned no output 'profit'"):
        montecarlo.run(toy, problem(), 10, 1, ["profit"])
    with pytest.raises(ValueError, match=r"path output 'npv': expected shape \(10, H\)"):
        montecarlo.run(toy, problem(), 10, 1, ["irr"], paths=["npv"])
    with pytest.raises(ValueError, match="voi_output 'irr' must be one of the outputs"):
        montecarlo.run(toy, problem(), 10, 1, ["npv"], voi_output="irr")


# --- the fan of a path output --------------------------------------------------------------------


def test_every_value_lies_in_the_bin_it_is_given():
    grid = FanGrid(tiny=1e-2, huge=1e9)
    rng = np.random.default_rng(4)
    mags = np.exp(rng.uniform(np.log(1e-4), np.log(1e11), 20_000))
    x = np.concatenate([mags, -mags, grid.edges, -grid.edges, [0.0, -0.0, 1e-2, 1e300, -1e300]])
    ids = grid.index(x)
    lo, hi = grid.bounds(ids, x.min(), x.max())
    assert ((lo <= x) & (x <= hi)).all()
    # ordered: a larger value never gets a smaller bin id
    order = np.argsort(x, kind="stable")
    assert (np.diff(ids[order]) >= 0).all()
    inner = (np.abs(x) >= grid.tiny) & (np.abs(x) < grid.edges[-1])
    np.testing.assert_allclose(
        (hi - lo)[inner] / np.minimum(np.abs(lo), np.abs(hi))[inner], 1e-3, rtol=1e-9
    )


def test_fan_quantiles_are_within_a_thousandth_of_numpy_quantile():
    n = 4_000
    r = montecarlo.run(toy, problem(), n, 9, ["npv"], paths=["cum"], chunk=900)
    x = sample(problem(), n, 9)
    cum = toy({k: x[k].to_numpy() for k in x})["cum"]
    fan = r.fans["cum"]
    assert list(fan.columns) == ["month", "P10", "P50", "P90"]
    tiny = FanGrid().tiny
    for q, col in ((0.1, "P10"), (0.5, "P50"), (0.9, "P90")):
        exact = np.quantile(cum, q, axis=0)
        s = np.sort(cum, axis=0)
        j = int(np.floor(q * (n - 1)))
        scale = np.maximum(np.abs(s[j]), np.abs(s[j + 1]))  # the two order statistics interpolated
        err = np.abs(fan[col].to_numpy() - exact)
        assert (err <= 1e-3 * scale + 2 * tiny).all(), (col, err / scale)
        same_sign = np.sign(s[j]) == np.sign(s[j + 1])
        np.testing.assert_allclose(fan[col][same_sign], exact[same_sign], rtol=1e-3)
    assert (np.sign(cum[:, 0]) != np.sign(cum[:, -1])).any()  # the test paths do cross zero


def test_fan_quantiles_of_nan_and_overflow_values_stay_within_the_extremes():
    h = PathHistogram(FanGrid(tiny=1.0, huge=1e3))
    x = np.array([[np.nan, 5.0], [1e6, 6.0], [2e6, np.nan], [3e6, 7.0]])
    h.add(x[:2])
    h.add(x[2:])
    fan = h.quantiles([0.0, 0.5, 1.0])
    np.testing.assert_array_equal(h.nan, [1, 1])
    np.testing.assert_allclose(fan[["P0", "P100"]].to_numpy(), [[1e6, 3e6], [5.0, 7.0]])
    assert 1e6 <= fan["P50"][0] <= 3e6 and fan["P50"][1] == pytest.approx(6.0, rel=1e-3)


# --- the samples CSV -----------------------------------------------------------------------------


@pytest.mark.parametrize("workers", [1, 2])
def test_samples_csv_holds_every_sample_to_the_last_digit(tmp_path, workers):
    dest = tmp_path / "samples.csv"
    r = montecarlo.run(
        toy, problem(), 2_500, 8, ["npv", "payback"], chunk=600, workers=workers, samples_csv=dest
    )
    back = pd.read_csv(dest)
    x = sample(problem(), 2_500, 8)
    assert list(back.columns) == [*x.columns, "npv", "payback"]
    pd.testing.assert_frame_equal(back[x.columns], x, check_exact=True)
    pd.testing.assert_frame_equal(back[["npv", "payback"]], r.outputs, check_exact=True)
    assert back["payback"].isna().any() and r.samples_csv == dest
    assert [p.name for p in tmp_path.iterdir()] == ["samples.csv"]  # no temporary file left


def test_a_samples_csv_that_cannot_be_written_names_the_file(tmp_path):
    dest = tmp_path / "missing" / "samples.csv"
    with pytest.raises(
        SamplesFileError, match=r"missing/samples\.csv: cannot write the samples file"
    ):
        montecarlo.run(toy, problem(), 100, 1, ["npv"], samples_csv=dest)
    assert isinstance(SamplesFileError("x"), OSError)


def test_a_failed_run_leaves_neither_the_csv_nor_its_temporary_file(tmp_path):
    def broken(p):
        if p["deal.a"].size < 100:
            raise RuntimeError("model failed")
        return toy(p)

    with pytest.raises(RuntimeError, match="model failed"):
        montecarlo.run(
            broken, problem(), 250, 1, ["npv"], chunk=100, samples_csv=tmp_path / "s.csv"
        )
    assert list(tmp_path.iterdir()) == []


# --- statistics ----------------------------------------------------------------------------------


def _normal_run(n=20_000):
    """npv = x ~ N(0, 1); payback = 10 |x| where x < 1, else never; irr = x."""
    prob = Problem((Variable("x", "normal", -Z95, Z95, 0.0),))

    def f(p):
        x = p["x"]
        return {"npv": x, "payback": np.where(x < 1, 10 * np.abs(x), np.nan), "irr": x}

    return montecarlo.run(f, prob, n, 1, ["npv", "payback", "irr"])


def test_statistics_of_a_known_distribution():
    out = _normal_run().outputs
    s = montecarlo.analyse(out, term=10.0).set_index(["output", "statistic"])["value"]
    n = len(out)
    assert s[("npv", "P(NPV > 0)")] == pytest.approx(0.5, abs=0.01)
    assert s[("npv", "standard error of P(NPV > 0)")] == pytest.approx(np.sqrt(0.25 / n), rel=0.02)
    assert s[("npv", "share undefined")] == 0.0
    # P(payback <= 10) = P(-1 <= x < 1) = 0.6827; never pays back: P(x >= 1) = 0.1587
    assert s[("payback", "P(payback <= term)")] == pytest.approx(0.6827, abs=0.01)
    assert s[("payback", "share with no payback within the horizon")] == pytest.approx(
        0.1587, abs=0.01
    )
    assert np.isnan(s[("payback", "P95")]) and not np.isnan(s[("payback", "P75")])
    # IRR is a rate: percentiles and the share undefined, never a mean or a standard deviation
    irr = s.loc["irr"]
    assert "mean" not in irr.index and "standard error of the mean" not in irr.index
    assert irr["P50"] == pytest.approx(0.0, abs=0.01)


def test_paid_back_by_month_over_all_samples():
    out = _normal_run().outputs
    df = montecarlo.payback_by_month(out["payback"].to_numpy(), horizon=12)
    assert df["month"].tolist() == list(range(1, 13))
    t = df["month"].to_numpy()
    # P(10 |x| <= t and x < 1) = Phi(min(t / 10, 1)) - Phi(-t / 10)
    expected = stats.norm.cdf(np.minimum(t / 10, 1)) - stats.norm.cdf(-t / 10)
    np.testing.assert_allclose(df["share"], expected, atol=0.01)
    assert df["share"].iloc[-1] == pytest.approx(1 - 0.1587 - stats.norm.cdf(-1.2), abs=0.01)
    p = df["share"].to_numpy()
    np.testing.assert_allclose(df["standard_error"], np.sqrt(p * (1 - p) / len(out)))


def test_convergence_table_at_powers_of_two_and_at_n():
    y = _normal_run(5_000).outputs["npv"].to_numpy()
    df = montecarlo.convergence(y)
    assert df["n"].tolist() == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 5000]
    last = df.iloc[-1]
    assert last["mean"] == pytest.approx(y.mean(), rel=1e-12, abs=1e-15)
    assert last["standard_error"] == pytest.approx(y.std(ddof=1) / np.sqrt(5_000), rel=1e-12)
    se = df.set_index("n")["standard_error"]
    assert se[4096] == pytest.approx(se[256] / 4, rel=0.25)  # the 1 / sqrt(n) law


def test_histogram_bins_span_p1_to_p99_with_the_tails_counted_apart():
    rng = np.random.default_rng(2)
    y = np.concatenate([rng.normal(size=10_000), [1e6, 2e6, -5e5], [np.nan] * 7])
    df = montecarlo.histogram(y, bins=40)
    a = df.attrs
    lo, hi = np.percentile(y[np.isfinite(y)], [1, 99])
    assert df["bin_low"].iloc[0] == lo and df["bin_high"].iloc[-1] == hi
    assert a["below"] == np.sum(y < lo) and a["above"] == np.sum(y > hi)
    assert a["below"] + df["count"].sum() + a["above"] + a["undefined"] == y.size == a["n"]
    assert (df["count"] > 0).sum() >= 35  # not crammed into a few bins by the outliers
    assert df["cumulative_share"].iloc[-1] == pytest.approx(
        (a["below"] + df["count"].sum()) / y.size
    )


def test_payback_s_curve_ends_at_the_share_that_pays_back():
    payback = np.array([3.0, 5.0, np.nan, 8.0, np.nan, 12.0, np.nan, np.nan, 20.0, np.nan])
    df = montecarlo.s_curve(payback, points=11)
    assert df["share"].iloc[-1] == 0.5 and df["value"].iloc[-1] == 20.0
    assert df["share"].iloc[0] == 0.1 and (np.diff(df["share"]) >= 0).all()
