"""The second half of the range-end sweep (every other end from the second): a file of its
own so that pytest-xdist, which gives each file to one worker, runs the two halves at once.
The ends and the checks: tests/range_ends.py.
"""

from __future__ import annotations

import pytest
from range_ends import half, runs_every_analysis


@pytest.mark.slow
@pytest.mark.parametrize(("key", "x"), half(1))
def test_a_range_end_runs_every_analysis(key, x):
    runs_every_analysis(key, x)
