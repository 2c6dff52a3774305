"""Every value inside a key's documented range runs every analysis: the first half of the
range-end sweep (every other end from the first), the sweep's coverage and the report at the
ends of the keys whose arithmetic is the most fragile. The ends, the checks and why they are
what they are: tests/range_ends.py; the other half: tests/test_range_ends_other_half.py.
"""

from __future__ import annotations

import warnings

import pytest
from range_ends import ENDS, half, runs_every_analysis, set_end

from econ.report import write_report
from econ.sensitivity import run


def test_the_sweep_covers_every_numeric_key():
    keys = {k for k, _, _ in ENDS}
    assert len(keys) > 140 and "finance.discount_rate_annual" in keys
    assert ("finance.discount_rate_annual", "low", -0.99) in ENDS
    assert ("contract.value_usd", "low", 1e-30) in ENDS
    # the two halves are the whole sweep, each end once
    ids = [p.id for p in half(0) + half(1)]
    assert len(ids) == len(set(ids)) == len(ENDS)


@pytest.mark.slow
@pytest.mark.parametrize(("key", "x"), half(0))
def test_a_range_end_runs_every_analysis(key, x):
    runs_every_analysis(key, x)


REPORT_KEYS = [
    "finance.discount_rate_annual",
    "market.mau_growth_monthly",
    "usage.token_efficiency_gain_annual",
    "contract.value_usd",
    "market.mau",
    "api.ultrafast_tokens_per_month",
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("key", "x"),
    [pytest.param(k, x, id=f"{k}={end}") for k, end, x in ENDS if k in REPORT_KEYS],
)
def test_a_range_end_writes_the_report(key, x, tmp_path):
    a = set_end(key, x)
    if a is None:
        pytest.skip("refused by validation: a rule spanning keys")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        analysis, info = {}, {}
        if key == "finance.discount_rate_annual":  # the analysis sheets too, at tiny samples
            analysis, info = run.report_analysis(a, 16, 2, 1)
        path = write_report(a, tmp_path, analysis=analysis, run_info=info)
    assert path.exists() and path.with_name("summary.md").exists()
