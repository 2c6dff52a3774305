"""Model invariants under any values the rules allow: a clean result or one AssumptionError.

A clean result keeps the invariants of docs/model.md (section 5.6): Pro subscribers between
zero and the monthly active users, shares within [0, 1], the API served no more than it
wants, and every headline figure a finite number (payback and IRR may be undefined: NaN,
never infinite). No overflow passes silently: a RuntimeWarning is a failure.

Hypothesis draws 1 to 4 of the keys the payback model reads and gives each a value its rule
allows, applied as ``--set`` applies it (so that every cross-key rule runs too).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from conftest import DATA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import econ
from econ.assumptions import AssumptionError, Rule, rule_for
from econ.headline import headline
from econ.model import Results, evaluate

BASE = econ.load(DATA)
READ = sorted(evaluate(BASE, detail=False).inputs_read)


def _moderate(key: str, rule: Rule, u: float) -> float:
    """A value within the rule: across [low, high] where both are finite; else the base
    value times 10^-3 to 10^3, kept within the rule."""
    base = float(BASE.num(key))
    if rule.low is not None and rule.high is not None:
        x = rule.low + u * (rule.high - rule.low)
    else:
        x = (base if base > 0 else 1.0) * 10 ** (6 * u - 3)
        if rule.low is not None:
            x = max(x, rule.low)
        if rule.high is not None:
            x = min(x, rule.high)
    if rule.kind == "integer":
        x = float(math.floor(x)) if rule.high is not None and x > rule.high - 1 else float(round(x))
    if rule.low_open and x == rule.low:
        x = rule.low + 1e-9
    if rule.high_open and x == rule.high:
        x = rule.high - 1e-9
    return x


@st.composite
def moderate_sets(draw) -> list[tuple[str, str]]:
    keys = draw(st.lists(st.sampled_from(READ), min_size=1, max_size=4, unique=True))
    pairs = []
    for k in keys:
        x = _moderate(k, rule_for(k), draw(st.floats(0, 1)))
        pairs.append((k, str(int(x)) if rule_for(k).kind == "integer" else repr(x)))
    return pairs


EXTREMES = ["1e308", "1.7976931348623157e308", "1e200", "1e-300", "5e-324", "0"]


@st.composite
def extreme_sets(draw) -> list[tuple[str, str]]:
    """One key of the payback model at a value far from any sense, that its rule allows."""
    key = draw(st.sampled_from(READ))
    rule = rule_for(key)
    texts = [t for t in EXTREMES if rule.check(float(t))]
    if rule.low is not None and rule.check(rule.low):
        texts.append(repr(float(rule.low)))
    if rule.high is not None and rule.check(rule.high):
        texts.append(repr(float(rule.high)))
    if not texts:
        texts = [repr(float(BASE.num(key)))]
    return [(key, draw(st.sampled_from(texts)))]


def check_invariants(r: Results, a: econ.Assumptions) -> None:
    H = int(a.values["horizon.months"])
    for name in ("npv", "npv_without_terminal_value", "npv_at_term", "terminal_value", "rent_npv"):
        assert np.all(np.isfinite(getattr(r, name))), name
    for name in ("net_cash_flow", "cumulative_cash", "rent", "revenue", "gpu_savings", "pro"):
        assert np.all(np.isfinite(getattr(r, name))), name
    for name in ("payback_months", "discounted_payback_months"):
        x = getattr(r, name)
        assert np.all(np.isnan(x) | ((x >= 0) & (x <= H))), (name, x)
    assert not np.any(np.isinf(r.irr_annual)), r.irr_annual
    mau = a.num("market.mau") * (1 + a.num("market.mau_growth_monthly")) ** (r.months - 1.0)
    assert np.all(r.pro >= 0) and np.all(r.pro_counterfactual >= 0)
    assert np.all(r.pro <= mau * (1 + 1e-12)), "more Pro subscribers than users"
    for name in ("ultrafast_adoption", "plus_cap_hit", "plus_cap_hit_counterfactual"):
        x = getattr(r, name)
        assert np.all((x >= -1e-12) & (x <= 1 + 1e-12)), name
    assert np.all(r.api_tokens_served <= r.api_tokens_wanted * (1 + 1e-9) + 1e-6)


def clean_or_refused(pairs: list[tuple[str, str]], with_headline: bool = False) -> None:
    """Apply the pairs as --set does and evaluate: an AssumptionError, or a result that keeps
    every invariant, with no overflow warning on the way."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        try:
            a = BASE.with_overrides(pairs)
            r = evaluate(a)
            if with_headline:
                headline(a, r)
        except AssumptionError:
            return
    check_invariants(r, a)


def test_the_default_data_keeps_the_invariants():
    check_invariants(evaluate(BASE), BASE)


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(pairs=moderate_sets())
def test_values_within_the_rules_give_a_clean_result_or_a_refusal(pairs):
    clean_or_refused(pairs)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(pairs=extreme_sets())
def test_extreme_values_give_a_clean_result_or_a_refusal(pairs):
    clean_or_refused(pairs)


# the headline (version 4: the two businesses, the break-evens, the fleet-plan grid, the best
# size at the contract's rate) evaluates the model dozens of times: fewer examples, and the
# range-end sweep (tests/range_ends.py) runs it at both ends of every key
@pytest.mark.slow
@settings(max_examples=12, suppress_health_check=[HealthCheck.too_slow])
@given(pairs=extreme_sets())
def test_extreme_values_give_a_clean_headline_or_a_refusal(pairs):
    clean_or_refused(pairs, with_headline=True)
