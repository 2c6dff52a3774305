"""The tornado beside the variance ranking (docs/model.md section 7, issue 27 item 6): bars
that end past a kink are marked, and where the one-at-a-time and Sobol rankings differ the
reason is read from the figures. Expected values: an analytic function whose Sobol indices
are known in closed form, hand-made frames for each reason, and each marked end re-evaluated
on its own against the tier speeds as data/tiers.csv lists them."""

from __future__ import annotations

import csv

import numpy as np
import pandas as pd
import pytest
from conftest import DATA

import econ
from econ.model import evaluate
from econ.sensitivity import oneway, run, sobol
from econ.sensitivity.sampling import Problem, Variable

# f = x1 + 10 x2 x3 + sum_k c_k y_k, every input uniform on [-1, 1] with its base at 0. One at a
# time, x2 and x3 do nothing (the other is 0 at the base): their swing is 0. Their variance is
# all interaction: Var(10 x2 x3) = 100 x 1/3 x 1/3 = 100/9, so S1 = 0 and ST = (100/9) / V,
# V = 1/3 + 100/9 + sum c_k^2 / 3.
C = [0.9, 0.8, 0.7, 0.6, 0.5]
NAMES = ["x1", "x2", "x3", *[f"y{k}" for k in range(len(C))]]


def analytic(params):
    x = {k: np.asarray(v, float) for k, v in params.items()}
    y = x["x1"] + 10 * x["x2"] * x["x3"] + sum(c * x[f"y{k}"] for k, c in enumerate(C))
    return {"y": y}


def test_interactions_explain_a_key_the_tornado_puts_last_and_sobol_first():
    prob = Problem(tuple(Variable(n, "uniform", -1.0, 1.0, 0.0) for n in NAMES))
    tor = oneway.tornado(analytic, prob, ["y"])
    assert list(tor["variable"][:6]) == ["x1", "y0", "y1", "y2", "y3", "y4"]
    assert tor.set_index("variable").loc[["x2", "x3"], "swing"].tolist() == [0, 0]
    A, B = sobol.sample(prob, 2**12, 7)
    sob = sobol.analyse(*sobol.evaluate(analytic, prob, A, B, "y"), NAMES, seed=7)
    sob = sob.sort_values("ST", ascending=False, kind="stable").reset_index(drop=True)
    v = 1 / 3 + 100 / 9 + sum(c * c for c in C) / 3
    st = sob.set_index("variable")["ST"]
    assert st["x2"] == pytest.approx(100 / 9 / v, rel=0.05)
    assert set(sob["variable"][:2]) == {"x2", "x3"}
    c = run.ranking_contrast(tor, sob, dict.fromkeys(NAMES, "uniform")).set_index("key")
    # x2 and x3: 7th and 8th one at a time, 1st and 2nd by variance: interactions
    assert set(c.index) == {"x2", "x3"}
    for k in ("x2", "x3"):
        assert c.at[k, "tornado_rank"] in (7, 8) and c.at[k, "sobol_rank"] in (1, 2)
        assert c.at[k, "why"].startswith("interactions: ")


def _frames(**bar):
    """One key 'k' placed 1st by the tornado and 12th by Sobol (11 others between)."""
    others = [f"o{i}" for i in range(11)]
    row = {"variable": "k", "low": 0.0, "base": 1.0, "high": 2.0, "change_low": -1.0,
           "change_high": 1.0, "swing": 2.0, "ends_on_low": "", "ends_on_high": ""}  # fmt: skip
    row.update(bar)
    tor = pd.DataFrame(
        [row] + [{**row, "variable": o, "swing": 1.0 - 0.01 * i} for i, o in enumerate(others)]
    )
    sob = pd.DataFrame(
        {"variable": [*others, "k"], "S1": [0.05] * 11 + [0.02], "ST": [0.06] * 11 + [0.02]}
    )
    return tor, sob


@pytest.mark.parametrize(
    ("bar", "s1", "st", "dist", "why"),
    [
        # a bar end past a kink names it
        ({"ends_on_high": "a clamp"}, 0.02, 0.02, "pert", "its bar's high end sits past a kink (a clamp)"),
        # per unit, 1 toward the low side and 4 toward the high: 4x more toward its high
        ({"change_high": 4.0, "swing": 5.0}, 0.02, 0.02, "pert", "non-linear: a unit moves the output 4x more toward its high"),
        # total 3 %, first-order 1 %: 2 % only with other keys (more than a third of 3 %)
        ({}, 0.01, 0.03, "pert", "interactions: 2% of the variance comes with other keys (first-order 1.0%, total 3.0%)"),
        # none of those: a PERT's ends are rare draws
        ({}, 0.02, 0.02, "pert", "its range's ends are rare draws (a pert puts most of its mass near the base)"),
    ],
)  # fmt: skip
def test_each_reason_is_read_from_the_figures(bar, s1, st, dist, why):
    tor, sob = _frames(**bar)
    sob.loc[sob["variable"] == "k", ["S1", "ST"]] = [s1, st]
    c = run.ranking_contrast(tor, sob, {"k": dist})
    assert c["key"].tolist() == ["k"]
    assert c["tornado_rank"].iloc[0] == 1 and c["sobol_rank"].iloc[0] == 12
    assert c["why"].iloc[0] == why


def test_a_lognormal_ranked_higher_by_variance_has_draws_beyond_its_ends():
    tor, sob = _frames()
    # now 'k' is the tornado's last (12th) and Sobol's first
    tor.loc[tor["variable"] == "k", "swing"] = 0.5
    tor = tor.sort_values("swing", ascending=False, kind="stable").reset_index(drop=True)
    sob = pd.concat([sob[sob["variable"] == "k"], sob[sob["variable"] != "k"]], ignore_index=True)
    c = run.ranking_contrast(tor, sob, {"k": "lognormal"})
    assert c["key"].tolist() == ["k"]
    assert (c["tornado_rank"].iloc[0], c["sobol_rank"].iloc[0]) == (12, 1)
    assert c["why"].iloc[0].startswith("its low and high are the 5th and 95th percentiles")
    # places within 4 of each other, or outside both top tens, are not listed
    assert run.ranking_contrast(tor, sob, {"k": "lognormal"}, gap=12).empty
    assert run.ranking_contrast(tor, sob, {"k": "lognormal"}, top=0).empty


def _tier_speeds() -> dict[str, float]:
    with open(DATA / "tiers.csv", newline="", encoding="utf-8") as fh:
        return {r["id"]: float(r["tokens_per_s"]) for r in csv.DictReader(fh)}


def test_the_bundled_tornado_marks_exactly_the_ends_past_a_kink():
    """Every end of every bar re-evaluated on its own (the base case's served multiplier held,
    as the tornado holds it): an end is marked where a clamp binds or a tier is served below the
    speed data/tiers.csv lists, and the base does neither."""
    a = econ.load(DATA)
    tor = run.tornado(a)
    tor = tor[tor["output"] == "npv_usd"].reset_index(drop=True)
    asked = _tier_speeds()
    served = run.held_served(a)

    def kinks(over):
        r = evaluate(a, over, detail=False, served=served)
        below = np.zeros(len(r.npv), bool)
        for tier, s in asked.items():
            below |= getattr(r, f"served_tokens_per_s_{tier}") < s * (1 - 1e-9)
        return {
            "gpu": r.gpu_cost_clamped > 0,
            "eta": r.realisation_capped > 0,
            "prop": r.propensity_capped > 0,
            "below": below,
        }

    base = {k: v[0] for k, v in kinks({}).items()}
    keys = tor["variable"].tolist()
    for end in ("low", "high"):
        # scenario i: key i at this end, every other key at its value
        got = kinks(
            {
                key: np.where(np.arange(len(keys)) == i, x, a.num(key))
                for i, (key, x) in enumerate(zip(keys, tor[end], strict=True))
            }
        )
        want = np.zeros(len(keys), bool)
        for k, flags in got.items():
            want |= flags & ~base[k]
        assert (tor[f"ends_on_{end}"] != "").to_numpy().tolist() == want.tolist(), end
    # the B300's layer latency at its high end: the fast tier (134 tokens/s asked) is served
    # below its speed, and one at a time the NPV turns positive there
    row = tor.set_index("variable").loc["hardware.b300.layer_latency_us"]
    assert "served below the speed it asks for" in row["ends_on_high"]
    assert row["output_high"] > 0 > row["output_base"]


def test_the_summary_names_a_range_end_that_turns_the_sign():
    """The summary's third line (section V4.1): besides the break-even keys, every sampled key
    whose range's end turns the NPV's sign one at a time; on the bundled data the B300's layer
    latency at 250 us only, each end checked on its own here."""
    from econ import worth
    from econ.headline import headline
    from econ.report.summary import voi_brief, wrong_sentence

    a = econ.load(DATA)
    base = float(evaluate(a, detail=False).npv[0])
    got = worth.range_ends_crossing(a, base)
    assert [(c["key"], c["end"], c["value"]) for c in got] == [
        ("hardware.b300.layer_latency_us", "high", 250.0)
    ]
    one = evaluate(a.with_overrides([("hardware.b300.layer_latency_us", "250")]), detail=False)
    assert got[0]["npv_usd"] == pytest.approx(float(one.npv[0]), rel=1e-12)
    assert got[0]["npv_usd"] > 0 > base
    # every other end keeps the sign
    ends = [(s.key, x) for s in a.sensitivity for x in (s.low, s.high)]
    npv = evaluate(a, {k: np.array([x if k == key else a.num(k) for key, x in ends])
                       for k in {k for k, _ in ends}}, detail=False).npv  # fmt: skip
    assert int(np.sum(npv > 0)) == 1
    h = headline(a)
    ranges = {s.key: (s.low, s.high) for s in a.sensitivity}
    text = wrong_sentence(h, ranges)
    assert "one at a time, hardware.b300.layer_latency_us at the high end of its range" in text
    assert "no sampled key's plausible range" not in text
    # without a Monte Carlo it says where the value of information is; with one (the report),
    # the key most worth resolving first, from the EVPPI (section V4.8)
    assert text.endswith(
        "; which sampled uncertainty is worth resolving first: econ sensitivity montecarlo."
    )
    ev = pd.DataFrame({"key": ["a.b", "c.d"], "evppi": [0.0, 3e7], "evppi_se": [0.0, 4.8e6],
                       "share_of_evpi": [0.0, 0.068]})  # fmt: skip
    mc = {"n": 4000, "evpi_usd": 4.4e8, "evpi_se_usd": 2.6e7, "evppi": ev}
    with_voi = wrong_sentence({**h, "value_of_information": voi_brief(mc)}, ranges)
    assert with_voi.endswith(
        "; of the sampled uncertainties, c.d is the one most worth resolving first, its EVPPI "
        "about $30.0M (+/- $4.8M, 4,000 samples) or 6.8% of the EVPI."
    )
    nothing = voi_brief({**mc, "evppi": ev.assign(evppi=0.0)})
    assert nothing["key"] is None
    assert "; no sampled uncertainty, known alone, would change the decision (EVPI about" in (
        wrong_sentence({**h, "value_of_information": nothing}, ranges)
    )


def test_keys_without_a_swing_are_listed_where_the_variance_ranks_them_high():
    """Nothing moves the output one at a time (the bundled payback: none within the horizon
    at any single end), yet draws that move together do: the keys Sobol ranks in its top 10 are
    listed, and only those, whatever their tied place in the tornado."""
    names = [f"k{i}" for i in range(15)]
    tor = pd.DataFrame({"variable": names, "low": 0.0, "base": 1.0, "high": 2.0,
                        "change_low": 0.0, "change_high": 0.0, "swing": 0.0,
                        "ends_on_low": "", "ends_on_high": ""})  # fmt: skip
    st = np.linspace(0.3, 0.01, 15)
    sob = pd.DataFrame({"variable": names[::-1], "S1": 0.0, "ST": st})
    c = run.ranking_contrast(tor, sob, dict.fromkeys(names, "pert"))
    assert set(c["key"]) == set(names[::-1][:10])
    assert sorted(c["sobol_rank"]) == list(range(1, 11))
    assert all(w.startswith("interactions: ") for w in c["why"])
