"""The Python API refuses what the command line refuses, in one message naming the argument
or key (an AssumptionError; a wrong type is also a TypeError), and assumption values are
read-only once validated."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
from conftest import DATA

import econ
from econ.api import ArgumentTypeError
from econ.assumptions import AssumptionError

MW = "contract.mw"

CASES = [
    (
        "evaluate-a-frame-without-columns",
        lambda a: econ.evaluate(a, pd.DataFrame(index=range(3))),
        False,
        r"evaluate: a DataFrame with no columns \(3 rows\) varies no key; expected one column per "
        r"key and one row per scenario",
    ),
    (
        "evaluate-an-empty-frame",
        lambda a: econ.evaluate(a, pd.DataFrame()),
        False,
        r"evaluate: a DataFrame with no columns \(0 rows\) varies no key",
    ),
    (
        "evaluate-one-tranche-key-of-the-pair",
        lambda a: econ.evaluate(a, {"contract.tranche_mw": [250, 300]}),
        False,
        r"evaluate contract\.tranche_mw=250\.0, column value \(contract\.tranche_mw\): set without "
        r"contract\.tranche_months; expected both \(delivery in tranches\) or neither",
    ),
    (
        "evaluate-tranches-that-never-deliver",
        lambda a: econ.evaluate(a, {"contract.tranche_mw": 10, "contract.tranche_months": 12}),
        False,
        r"tranches of 10 MW every 12 months \(contract\.tranche_months\) bring 30 MW online \(3 "
        r"tranches\) by the end of the 30-month term \(contract\.term_months\), short of the 750 MW",
    ),
    (
        "evaluate-a-path",
        lambda a: econ.evaluate("data/"),
        True,
        r"evaluate: a: expected the assumptions econ\.load\(\) returns, got the str 'data/'; "
        r"load the folder first",
    ),
    (
        "evaluate-empty-array",
        lambda a: econ.evaluate(a, {MW: []}),
        False,
        r"contract\.mw: an empty array; expected a scalar or values shape \(N,\)",
    ),
    (
        "evaluate-text-array",
        lambda a: econ.evaluate(a, {MW: ["700", "800"]}),
        True,
        r"contract\.mw: expected numbers, got an array of text \('700', \.\.\.\)",
    ),
    (
        "evaluate-text",
        lambda a: econ.evaluate(a, {MW: "700"}),
        True,
        r"contract\.mw: expected a number or an array of numbers, got the text '700'",
    ),
    (
        "evaluate-boolean",
        lambda a: econ.evaluate(a, {MW: True}),
        True,
        r"contract\.mw: expected a number, got the boolean True",
    ),
    (
        "evaluate-boolean-array",
        lambda a: econ.evaluate(a, {MW: np.array([True])}),
        True,
        r"contract\.mw: expected numbers, got booleans",
    ),
    (
        "evaluate-none-inside",
        lambda a: econ.evaluate(a, {MW: [700, None]}),
        True,
        r"contract\.mw: expected numbers, found the NoneType None",
    ),
    (
        "evaluate-ragged",
        lambda a: econ.evaluate(a, {MW: [[1, 2], [3]]}),
        True,
        r"contract\.mw: expected a number or a flat array of numbers",
    ),
    (
        "evaluate-2d",
        lambda a: econ.evaluate(a, {MW: np.ones((2, 2))}),
        False,
        r"contract\.mw: expected a scalar or values shape \(N,\), got \(2, 2\)",
    ),
    (
        "evaluate-complex",
        lambda a: econ.evaluate(a, {MW: np.array([1j])}),
        True,
        r"contract\.mw: expected real numbers, got an array of complex128",
    ),
    (
        "evaluate-subnormal",
        lambda a: econ.evaluate(a, {MW: 1e-310}),
        False,
        r"contract\.mw: 1e-310 is too small; expected 0 or a magnitude of at least 1e-30",
    ),
    (
        "evaluate-negative-speed",
        lambda a: econ.evaluate(a, {"tiers.ultrafast.tokens_per_s": -750}),
        False,
        r"tiers\.ultrafast\.tokens_per_s: -750 is out of range; expected a number in \(0, 100000\]",
    ),
    (
        "evaluate-duplicate-columns",
        lambda a: econ.evaluate(a, pd.DataFrame([[1, 2]], columns=[MW, MW])),
        False,
        r"evaluate: the column\(s\) contract\.mw appear twice in the DataFrame",
    ),
    (
        "evaluate-key-twice",
        lambda a: econ.evaluate(a, {MW: 700}, **{MW: 800}),
        False,
        r"contract\.mw: given twice \(in the mapping and as a keyword\)",
    ),
    (
        "evaluate-overrides-a-list",
        lambda a: econ.evaluate(a, [(MW, 700)]),
        True,
        r"evaluate: overrides: expected \{dotted key: values\} or a DataFrame, got the list",
    ),
    (
        "evaluate-key-not-text",
        lambda a: econ.evaluate(a, {3: 700}),
        True,
        r"evaluate: a key must be a dotted key \(text\), got the int 3",
    ),
    (
        "evaluate-detail-not-bool",
        lambda a: econ.evaluate(a, detail="no"),
        True,
        r"evaluate: detail: expected True or False, got the str 'no'",
    ),
    (
        "load-set-a-list-of-numbers",
        lambda a: econ.load(DATA, set=[1, 2]),
        True,
        r"set: expected \(key, value\) pairs or 'KEY=VALUE' texts, found the int 1",
    ),
    (
        "load-set-a-text",
        lambda a: econ.load(DATA, set="contract.mw=700"),
        True,
        r"set: expected \{dotted key: value\}, \(key, value\) pairs or 'KEY=VALUE' texts, got the str",
    ),
    (
        "load-set-twice",
        lambda a: econ.load(DATA, set=[f"{MW}=700", f"{MW}=800"]),
        False,
        r"set contract\.mw=800: contract\.mw is set twice \(set contract\.mw=700 and set "
        r"contract\.mw=800\); keep one",
    ),
    (
        "load-set-boolean",
        lambda a: econ.load(DATA, set={MW: True}),
        True,
        r"set contract\.mw: expected a number, got the boolean True \(a boolean sets a 0/1 flag",
    ),
    (
        "load-set-array",
        lambda a: econ.load(DATA, set={MW: [1, 2]}),
        False,
        r"set contract\.mw: one value expected, got an array of shape \(2,\)",
    ),
    (
        "load-set-ambiguous",
        lambda a: econ.load(DATA, set={MW: "1,500"}),
        False,
        r'set contract\.mw=1,500, column value: "1,500" could be 1\.5 \(a decimal comma\) or 1500',
    ),
    (
        "load-data-a-number",
        lambda a: econ.load(5),
        True,
        r"load: data: expected a folder \(a path\), got the int 5",
    ),
    (
        "load-scenario-a-number",
        lambda a: econ.load(DATA, scenario=3),
        True,
        r"load: scenario: expected a scenario name, got the int 3",
    ),
    (
        "capacity-negative-speed",
        lambda a: econ.capacity_table(a, [340, -5]),
        False,
        r"capacity_table: speeds: -5 is not a speed; expected positive numbers",
    ),
    (
        "capacity-speed-text",
        lambda a: econ.capacity_table(a, "340"),
        True,
        r"capacity_table: speeds: expected numbers, got the str '340'",
    ),
    (
        "capacity-speed-boolean",
        lambda a: econ.capacity_table(a, [True]),
        True,
        r"capacity_table: speeds: expected a number, got the bool True",
    ),
    (
        "capacity-speed-nan",
        lambda a: econ.capacity_table(a, [float("nan")]),
        False,
        r"capacity_table: speeds: nan is not finite",
    ),
    (
        "goal-seek-low-text",
        lambda a: econ.goal_seek(a, MW, low="1"),
        True,
        r"goal_seek: low: expected a number, got the str '1'",
    ),
    (
        "goal-seek-low-subnormal",
        lambda a: econ.goal_seek(a, MW, low=1e-320),
        False,
        r"goal_seek: low: 1e-320 is too small to compute with",
    ),
    (
        "goal-seek-target",
        lambda a: econ.goal_seek(a, MW, target="irr"),
        False,
        r"goal_seek: target 'irr'; expected 'npv' or 'payback'",
    ),
    (
        "sobol-n-zero",
        lambda a: econ.sensitivity.sobol_indices(a, n=0),
        False,
        r"sobol_indices: n: 0 is out of range; expected a whole number from 1 to 65,536",
    ),
    (
        "sobol-metric",
        lambda a: econ.sensitivity.sobol_indices(a, n=8, metric="irr"),
        False,
        r"sobol_indices: metric 'irr'; expected 'npv' or 'payback'",
    ),
    (
        "sobol-workers-zero",
        lambda a: econ.sensitivity.sobol_indices(a, n=8, workers=0),
        False,
        r"sobol_indices: workers: 0 is out of range; expected a whole number from 1 to 256",
    ),
    (
        "montecarlo-samples-bool",
        lambda a: econ.sensitivity.monte_carlo(a, samples=True),
        True,
        r"monte_carlo: samples: expected a whole number from 1 to 10,000,000, got the bool True",
    ),
    (
        "montecarlo-samples-float",
        lambda a: econ.sensitivity.monte_carlo(a, samples=50.0),
        True,
        r"monte_carlo: samples: expected a whole number",
    ),
    (
        "montecarlo-seed-negative",
        lambda a: econ.sensitivity.monte_carlo(a, 50, seed=-1),
        False,
        r"monte_carlo: seed: -1 is out of range; expected a whole number from 0 to 4,294,967,295",
    ),
    (
        "montecarlo-keep-over",
        lambda a: econ.sensitivity.monte_carlo(a, 50, keep=51),
        False,
        r"monte_carlo: keep: 51 is out of range; expected a whole number from 0 to 50",
    ),
    (
        "breakeven-target",
        lambda a: econ.sensitivity.breakeven_table(a, "irr"),
        False,
        r"breakeven_table: target 'irr'; expected 'npv' or 'payback'",
    ),
    (
        "tornado-a-dict",
        lambda a: econ.sensitivity.tornado({}),
        True,
        r"tornado: a: expected the assumptions econ\.load\(\) returns, got the dict \{\}",
    ),
]


@pytest.mark.parametrize(
    ("make", "is_type", "message"), [pytest.param(m, t, r, id=i) for i, m, t, r in CASES]
)
def test_the_api_refuses_naming_the_argument(base, make, is_type, message):
    with pytest.raises(AssumptionError, match=message) as info:
        make(base)
    assert isinstance(info.value, TypeError) == is_type
    assert isinstance(info.value, ArgumentTypeError) == is_type
    assert "\n" not in str(info.value)


def test_a_boolean_sets_a_flag(base):
    a = econ.load(DATA, set={"finance.terminal_value": False})
    assert a["finance.terminal_value"] == 0
    e = econ.evaluate(base, {"free.served": [True, False]})
    column = next(c for c in e.metrics.columns if c.startswith("free.served"))
    assert e.metrics[column].tolist() == [1.0, 0.0]


def test_a_boolean_for_a_retired_flag_is_refused_naming_its_replacement(base):
    # contract.pay_as_delivered was a 0/1 flag until version 4 (now contract.payment)
    key = "contract.pay_as_delivered"
    said = rf"'{key}' was retired in version 4; use contract\.payment \(pay_as_delivered or take_or_pay\)"
    with pytest.raises(AssumptionError, match=said):
        econ.evaluate(base, {key: [True, False]})
    with pytest.raises(AssumptionError, match=said):
        econ.evaluate(base, {key: True})
    with pytest.raises(AssumptionError, match=said):
        econ.load(DATA, set={key: True})


def test_set_takes_pairs_and_key_value_texts():
    assert econ.load(DATA, set=[(MW, 710)])[MW] == 710
    assert econ.load(DATA, set=[f"{MW} = 720"])[MW] == 720


def test_assumption_values_are_read_only(base):
    for mapping in (base.values, base.entries, base.tables):
        with pytest.raises(TypeError, match="read-only once validated"):
            mapping[MW] = -5
        with pytest.raises(TypeError, match="read-only"):
            mapping.update({MW: -5})
        with pytest.raises(TypeError, match="read-only"):
            del mapping[next(iter(mapping))]
    assert base[MW] == 750
    copy = dict(base.values)
    copy[MW] = -5  # a copy is an ordinary dict; the assumptions are unchanged
    assert base[MW] == 750
    again = pickle.loads(pickle.dumps(base))  # worker processes get the same read-only values
    assert again.values == base.values
    with pytest.raises(TypeError, match="read-only"):
        again.values[MW] = -5


def test_both_tranche_keys_blank_in_the_data_may_vary_as_arrays(base):
    """Optional keys blank in the data take arrays like any other key, once both of the pair
    are given: the same figures as the data with them set."""
    e = econ.evaluate(base, {"contract.tranche_mw": [250.0, 375.0], "contract.tranche_months": 6})
    one = econ.evaluate(
        base.with_overrides([("contract.tranche_mw", "375"), ("contract.tranche_months", "6")])
    )
    assert e.n == 2
    assert e.metrics["npv_usd"].iloc[1] == pytest.approx(one.metrics["npv_usd"].iloc[0], rel=1e-12)
