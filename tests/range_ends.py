"""The range-end sweep's ends and checks, shared by tests/test_range_ends.py and
tests/test_range_ends_other_half.py (one file per half, so that both cores run the sweep).

Every value inside a key's documented range runs every analysis: each numeric key of the
bundled data is set to each end of its rule's range (an open end: the nearest value inside
it; an open 0: the smallest magnitude econ takes, 1e-30) and goes through the summary, a Monte
Carlo, Sobol indices, the tornado and the grids at small sample counts, with every warning
an error (no numpy overflow may leak).

An end that breaks a rule spanning keys (a term longer than the horizon, adoption summing
over 1, tier speeds out of order, a frontier that rises with speed) is refused by validation
already, as ``econ validate --set`` refuses it; such ends are counted, not run. The report
(workbook and analysis sheets) runs at the ends of the keys whose arithmetic is the most
fragile: rates, growth and the sizes at their sense limits.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from conftest import DATA

import econ
from econ.assumptions import MIN_MAGNITUDE, AssumptionError, is_structural, rule_for
from econ.headline import headline
from econ.model import evaluate
from econ.sensitivity import run

BASE = econ.load(DATA)


def _ends(key: str) -> list[tuple[str, float]]:
    rule = rule_for(key)
    out = []
    if rule.low is not None:
        lo = float(rule.low)
        if rule.low_open:
            lo = MIN_MAGNITUDE if lo == 0 else float(np.nextafter(lo, math.inf))
        out.append(("low", lo))
    if rule.high is not None:
        hi = float(rule.high)
        out.append(("high", float(np.nextafter(hi, -math.inf)) if rule.high_open else hi))
    return out


def _text(key: str, x: float) -> str:
    return str(int(x)) if rule_for(key).kind == "integer" else repr(x)


ENDS = [
    (key, end, x)
    for key, v in BASE.values.items()
    if not is_structural(key, v)
    for end, x in _ends(key)
]


# ends the model does not run yet, with why: a strict expected failure, so that the fix
# turns it into an end that must pass
KNOWN: dict[tuple[str, str], str] = {}


def param(key: str, end: str, x: float):
    marks = []
    if (key, end) in KNOWN:
        marks = [pytest.mark.xfail(strict=True, raises=AssumptionError, reason=KNOWN[key, end])]
    return pytest.param(key, x, id=f"{key}={end}", marks=marks)


def set_end(key: str, x: float) -> econ.Assumptions | None:
    """The bundled data with ``key`` at ``x``, or None where validation refuses it (a rule
    spanning keys), as `econ validate --set` does."""
    try:
        a = BASE.with_overrides([(key, _text(key, x))])
        evaluate(a)
        run.problem_from(a) if a.sensitivity and run.varied(a) else None
    except AssumptionError:
        return None
    return a


def half(which: int) -> list:
    """Every other end from ``which`` (0 or 1): the two halves of the sweep."""
    return [param(k, e, x) for k, e, x in ENDS[which::2]]


def runs_every_analysis(key: str, x: float) -> None:
    a = set_end(key, x)
    if a is None:
        pytest.skip("refused by validation: a rule spanning keys")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h = headline(a)
        assert math.isfinite(h["npv_usd"])
        if run.varied(a):
            mc = run.monte_carlo(a, 64, 1, keep=0)
            assert mc["n"] == 64
            s = run.sobol_indices(a, 2, 1)
            assert not s.empty
            run.tornado(a)
        run.grids(a)
