"""Value of information: the integer accumulators and their estimators."""

from __future__ import annotations

import numpy as np
import pytest

from econ.sensitivity import voi


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
