"""Sobol indices: an output that does not vary, and evaluation over worker processes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from econ.sensitivity import sobol
from econ.sensitivity.sampling import Problem, Variable


def problem() -> Problem:
    return Problem(
        (
            Variable("x1", "uniform", 0, 1, 0.5),
            Variable("x2", "pert", 0, 2, 0.5),
            Variable("x3", "lognormal", 1, 4, 2),
        )
    )


def outputs(p):
    x1, x2, x3 = p["x1"], p["x2"], p["x3"]
    return {
        "y": np.sin(6 * x1) + x2 * x3,
        "flat": np.full_like(x1, 0.1),  # 0.1 is not exact in binary: its mean is not 0.1 to the bit
        "never": np.full_like(
            x1, np.nan
        ),  # e.g. a payback that never comes, counted as the horizon
    }


@pytest.mark.parametrize(("output", "nan_as"), [("flat", None), ("never", 36.0)])
def test_an_output_that_does_not_vary_has_indices_of_zero_without_warnings(output, nan_as):
    a, b = sobol.sample(problem(), 2**9, seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fa, fb, fab = sobol.evaluate(outputs, problem(), a, b, output, nan_as=nan_as)
        df = sobol.analyse(fa, fb, fab, problem().names, n_resamples=200)
    cols = ["S1", "S1_low", "S1_high", "ST", "ST_low", "ST_high"]
    np.testing.assert_array_equal(df[cols].to_numpy(), np.zeros((3, 6)))


def test_a_varying_output_keeps_its_indices():
    a, b = sobol.sample(problem(), 2**10, seed=4)
    fa, fb, fab = sobol.evaluate(outputs, problem(), a, b, "y")
    s1, st = sobol.indices(fa, fb, fab)
    assert (st > 0.01).all() and np.isfinite(s1).all()


def test_evaluation_is_the_same_for_any_worker_count_and_chunk():
    prob = problem()
    a, b = sobol.sample(prob, 2**11, seed=9)
    d = prob.d
    # the design written out independently: A, B, then A with column i from B
    u = np.concatenate([a, b] + [np.where(np.arange(d) == i, b, a) for i in range(d)])
    y = outputs(prob.transform(u))["y"]
    expected = (y[: 2**11], y[2**11 : 2**12], y[2**12 :].reshape(d, 2**11))
    for workers, chunk in ((1, 50_000), (2, 1_000), (2, 777), (1, 333)):
        got = sobol.evaluate(outputs, prob, a, b, "y", chunk=chunk, workers=workers)
        for g, e in zip(got, expected, strict=True):
            np.testing.assert_array_equal(g, e)
