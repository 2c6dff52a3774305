"""Warnings where a sample is too small for what an analysis prints (issue 27): a Sobol
first-order index above the total index beyond the interval of their difference, an index whose
interval lies below zero, a key's EVPPI above the EVPI. Each is impossible in the quantity it
estimates, so a tiny sample shows them and a large sample of a case with known answers does
not."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from econ.report import cli_text
from econ.sensitivity import montecarlo, sobol
from econ.sensitivity.sample_warnings import (
    EVPPI_ABOVE_EVPI,
    FIRST_ORDER_ABOVE_TOTAL,
    MATERIAL,
    NEGATIVE_INDEX,
    SampleWarning,
    evppi_warnings,
    sobol_warnings,
)
from econ.sensitivity.sampling import Problem, Variable

Z95 = 1.6448536269514722

# Y = 2 x1 + x2 + 0.5 x3, x uniform on [0, 1]: additive, so S1 = ST = c_i^2 / sum c^2
# (Var c x = c^2 / 12): 4 / 5.25, 1 / 5.25, 0.25 / 5.25
LINEAR = Problem(tuple(Variable(f"x{i}", "uniform", 0, 1, 0.5) for i in (1, 2, 3)))
LINEAR_S = np.array([4.0, 1.0, 0.25]) / 5.25


def linear(p):
    return {"y": 2 * p["x1"] + p["x2"] + 0.5 * p["x3"]}


def sobol_frame(n: int, seed: int):
    a, b = sobol.sample(LINEAR, n, seed)
    fa, fb, fab = sobol.evaluate(linear, LINEAR, a, b, "y")
    return sobol.analyse(fa, fb, fab, LINEAR.names, seed=seed)


def check_sobol(df) -> set[str]:
    """Every warning names a row of the frame and a figure beyond its interval; returns the
    kinds seen."""
    rows = df.set_index("variable")
    for w in df.attrs["warnings"]:
        assert isinstance(w, SampleWarning)
        row = rows.loc[w.key]
        if w.kind == NEGATIVE_INDEX:
            assert row[w.index] == w.value <= -MATERIAL and row[f"{w.index}_high"] == w.high < 0
        else:
            assert w.kind == FIRST_ORDER_ABOVE_TOTAL and w.index == "S1"
            assert w.value == pytest.approx(row.S1 - row.ST, abs=1e-15)
            assert w.value >= MATERIAL and 0 < w.low <= w.high
        assert w.message.startswith(f"{w.key}: ")
    # and every printed negative index beyond its interval is warned of
    for index in ("S1", "ST"):
        beyond = rows[(rows[index] <= -MATERIAL) & (rows[f"{index}_high"] < 0)].index
        warned = {w.key for w in df.attrs["warnings"] if w.kind == NEGATIVE_INDEX}
        assert set(beyond) <= warned
    return {w.kind for w in df.attrs["warnings"]}


def test_eight_sobol_samples_print_indices_the_theory_rules_out_and_say_so():
    kinds = set()
    for seed in range(20):
        kinds |= check_sobol(sobol_frame(8, seed))
    assert kinds == {FIRST_ORDER_ABOVE_TOTAL, NEGATIVE_INDEX}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_large_sobol_sample_of_a_linear_model_has_its_indices_and_no_warning(seed):
    df = sobol_frame(2**12, seed)
    np.testing.assert_allclose(df["S1"], LINEAR_S, atol=0.01)
    np.testing.assert_allclose(df["ST"], LINEAR_S, atol=0.01)
    assert df.attrs["warnings"] == []


def test_the_sobol_rule_by_hand():
    """S1 above ST is warned of where the interval of S1 - ST lies above zero and the excess is
    material; a negative index where its interval lies below zero and it is material."""
    names = ["a", "b", "c", "d"]
    s1 = np.array([0.30, 0.30, -0.05, -0.005])
    st = np.array([0.20, 0.20, 0.10, 0.0])
    s1_ci = (np.array([0.2, 0.2, -0.08, -0.01]), np.array([0.4, 0.4, -0.01, -0.001]))
    st_ci = (st - 0.05, st + 0.05)
    excess_ci = (np.array([0.02, -0.01, -0.2, -0.01]), np.array([0.2, 0.2, -0.1, 0.0]))
    got = sobol_warnings(names, s1, st, s1_ci, st_ci, excess_ci)
    assert [(w.kind, w.key, w.index) for w in got] == [
        (FIRST_ORDER_ABOVE_TOTAL, "a", "S1"),  # b: its interval reaches below zero
        (NEGATIVE_INDEX, "c", "S1"),  # d: below zero by less than MATERIAL
    ]
    assert got[0].message == (
        "a: the first-order index 30.0% is above the total index 20.0%, by 10.0% of the variance "
        "(95% interval 2.0% to 20.0%); a first-order index cannot exceed the total: too few "
        "samples for these figures"
    )
    assert got[1].message == (
        "c: the first-order index is -5.0% (95% interval -8.0% to -1.0%); a share of variance "
        "cannot be negative: too few samples for this figure"
    )


def test_the_command_line_prints_the_sobol_warnings_under_the_table():
    df = next(d for d in (sobol_frame(8, s) for s in range(20)) if d.attrs["warnings"])
    df["note"] = ""
    df.insert(0, "output", "npv_usd")
    text, _ = cli_text.sobol(df)
    table, _, warned = text.partition("Warning: too few samples for ")
    assert warned.startswith(f"{len(df.attrs['warnings'])} figure(s) above")
    for w in df.attrs["warnings"]:
        assert w.key in table and " ".join(w.message.split()) in " ".join(warned.split())
    df.attrs["warnings"] = []
    assert "Warning" not in cli_text.sobol(df)[0]


# --- the value of information -------------------------------------------------------------------


def normal(name: str) -> Variable:
    return Variable(name, "normal", -Z95, Z95, 0.0)


NORMAL2 = Problem((normal("a"), normal("b")))


def skewed(p):
    """NB = exp(2a) - 5 + 3b, a and b standard normal: the deal pays on average (e^2 - 5 > 0);
    knowing a is worth about 94 % of knowing both, and a few dozen draws of the skewed term
    put its estimate above the EVPI."""
    return {"npv": np.exp(2 * p["a"]) - 5 + 3 * p["b"]}


MU, SX, SZ = 1.0e6, 2.0e6, 1.5e6


def linear_normal(p):
    return {"npv": MU + SX * p["a"] + SZ * p["b"]}


def gain(m: float, s: float) -> float:
    """E[max(m + s Z, 0)] - max(m, 0), Z standard normal: the value of learning s Z."""
    return m * stats.norm.cdf(m / s) + s * stats.norm.pdf(m / s) - max(m, 0.0)


def test_forty_samples_put_an_evppi_above_the_evpi_and_say_so():
    seen = 0
    for seed in range(10):
        v = montecarlo.run(skewed, NORMAL2, 40, seed, ["npv"], voi_output="npv")
        res = v.value_of_information()
        table = res.evppi.set_index("key")
        above = set(table.index[table["share_of_evpi"] > 1])
        assert {w.key for w in res.warnings} == above
        for w in res.warnings:
            assert w.kind == EVPPI_ABOVE_EVPI and w.index == "EVPPI"
            assert w.value == table.loc[w.key, "share_of_evpi"] > 1
            assert "too few samples (40) for this figure" in w.message
        seen += bool(res.warnings)
    assert seen


def test_a_large_sample_of_the_linear_normal_case_has_its_closed_form_and_no_warning():
    # EVPPI_a = gain(MU, SX), EVPPI_b = gain(MU, SZ), EVPI = gain(MU, hypot): shares 0.73, 0.41
    v = montecarlo.run(linear_normal, NORMAL2, 20_000, 5, ["npv"], voi_output="npv")
    res = v.value_of_information()
    t = res.evppi.set_index("key")
    evpi = gain(MU, np.hypot(SX, SZ))
    for key, s in (("a", SX), ("b", SZ)):
        assert abs(t.loc[key, "evppi"] - gain(MU, s)) <= 3 * t.loc[key, "evppi_se"]
        assert t.loc[key, "share_of_evpi"] < 1
    assert abs(res.evpi - evpi) <= 3 * res.evpi_se
    assert res.warnings == ()


def test_the_evppi_rule_by_hand():
    got = evppi_warnings(["a", "b", "c"], np.array([1.25, 1.0, np.nan]), np.array([0.1] * 3), 300)
    assert [(w.kind, w.key, w.value) for w in got] == [(EVPPI_ABOVE_EVPI, "a", 1.25)]
    assert got[0].message == (
        "a: its EVPPI is 125.0% of the EVPI (standard error 10.0%); knowing one input cannot be "
        "worth more than knowing them all: too few samples (300) for this figure"
    )
    assert got[0].as_dict()["kind"] == EVPPI_ABOVE_EVPI
