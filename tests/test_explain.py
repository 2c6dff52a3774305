"""Shapley attribution of an NPV change (econ explain) against games solved by hand."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from econ.assumptions import AssumptionError, load
from econ.cli import main
from econ.explain import explain, shapley_exact


@pytest.fixture(scope="module")
def base():
    return load(None)


def test_shapley_of_small_games_by_hand():
    # v(S) = 10 [a in S] + 4 [b in S]: additive, each player gets its own effect
    v = np.array([0.0, 10.0, 4.0, 14.0])  # bitmask: 0 none, 1 a, 2 b, 3 both
    np.testing.assert_allclose(shapley_exact(v, 2), [10.0, 4.0])
    # v(S) = 12 only when both are in: pure interaction, shared equally
    np.testing.assert_allclose(shapley_exact(np.array([0.0, 0, 0, 12]), 2), [6.0, 6.0])
    # glove game with three players (a, b left; c right): v = 1 when c and a left glove meet:
    # phi_c = 2/3, phi_a = phi_b = 1/6
    v = np.array([0, 0, 0, 0, 0, 1, 1, 1], float)
    np.testing.assert_allclose(shapley_exact(v, 3), [1 / 6, 1 / 6, 2 / 3])


def test_keys_whose_effects_add_get_their_one_at_a_time_changes(base):
    # the contract value moves only the rent, the Pro price only the revenue: their effects on
    # the NPV add, so each key's Shapley share is its one-at-a-time change
    case = base.with_overrides(
        [("contract.value_usd", "12e9"), ("plans.pro.price_usd_month", "230")]
    )
    e = explain(case, base)
    t = e.table.set_index("key")
    for k in ("contract.value_usd", "plans.pro.price_usd_month"):
        one = t.loc[k, "npv_one_at_a_time_usd"]
        assert t.loc[k, "npv_share_usd"] == pytest.approx(one, rel=1e-9, abs=1.0)
    assert t["npv_share_usd"].sum() == pytest.approx(e.npv_change, rel=1e-12, abs=1.0)
    # and each one-at-a-time change is what a single --set gives
    alone = explain(base.with_overrides([("contract.value_usd", "12e9")]), base)
    assert alone.npv_change == pytest.approx(t.loc["contract.value_usd", "npv_share_usd"], rel=1e-9)


def test_interacting_keys_share_the_whole_change(base):
    # price and token efficiency interact (the efficiency scales the usage that the price
    # converts): the shares differ from the one-at-a-time changes but sum to the total
    case = base.with_overrides(
        [
            ("plans.pro.price_usd_month", "250"),
            ("usage.token_efficiency_gain_annual", "0.5"),
            ("contract.platform", "b300"),  # structural: evaluated by grouping
        ]
    )
    e = explain(case, base)
    t = e.table.set_index("key")
    assert e.method == "exact" and len(t) == 3
    assert t["npv_share_usd"].sum() == pytest.approx(e.npv_change, rel=1e-12)
    assert (t["npv_share_usd"] - t["npv_one_at_a_time_usd"]).abs().max() > 1e6
    # sampled orders agree with the exact values within their errors, and sum to the total
    s = explain(case, base, exact_max=2, permutations=400)
    assert s.method == "sampled"
    ts = s.table.set_index("key")
    assert ts["npv_share_usd"].sum() == pytest.approx(e.npv_change, rel=1e-9)
    for k in t.index:
        err = max(ts.loc[k, "npv_share_se_usd"], 1.0)
        assert abs(ts.loc[k, "npv_share_usd"] - t.loc[k, "npv_share_usd"]) <= 4 * err, k


def test_explain_from_the_command_line(tmp_path, capsys):
    png = tmp_path / "w.png"
    code = main(["explain", "--set", "plans.pro.price_usd_month=250", "--png", str(png), "--json"])
    assert code == 0 and png.stat().st_size > 0
    doc = json.loads(capsys.readouterr().out)
    assert [k["key"] for k in doc["keys"]] == ["plans.pro.price_usd_month"]
    assert doc["keys"][0]["npv_share_usd"] == pytest.approx(doc["npv_change_usd"], rel=1e-12)
    assert main(["explain", "--against", "bear"]) == 0  # a scenario as the reference
    out = capsys.readouterr().out
    assert "From scenario bear to this case" in out and "total" in out


def _many_changes(base, n: int):
    """A case that moves ``n`` numeric keys of the sensitivity ranges to their upper ends."""
    ranges = [s for s in base.sensitivity if s.high != base.num(s.key)][:n]
    assert len(ranges) == n
    return base.with_overrides([(s.key, repr(float(s.high))) for s in ranges])


def test_many_changed_keys_are_evaluated_in_pieces_of_bounded_size(base, monkeypatch):
    """A case that changes many keys once made every coalition at once (9 GB): now at most
    CHUNK coalitions are made and evaluated at a time, and the shares are the same bits
    whatever the piece size."""
    import econ.explain as ex

    case = _many_changes(base, 14)  # beyond EXACT_MAX: sampled orders
    sizes = []
    real = ex.evaluate

    def counting(a, overrides=None, **kw):
        sizes.append(max((np.size(v) for v in (overrides or {}).values()), default=1))
        return real(a, overrides, **kw)

    monkeypatch.setattr(ex, "evaluate", counting)
    monkeypatch.setattr(ex, "CHUNK", 500)
    small = explain(case, base, permutations=150)
    assert max(sizes) <= 500 and sum(sizes) >= 150 * 15
    monkeypatch.setattr(ex, "CHUNK", 10_000)
    whole = explain(case, base, permutations=150)
    assert small.method == "sampled"
    pd.testing.assert_frame_equal(small.table, whole.table, check_exact=True)  # NaN = NaN
    assert small.table["npv_share_usd"].sum() == pytest.approx(small.npv_change, rel=1e-9)


def test_too_many_changed_keys_are_refused_with_the_way_out(base, monkeypatch):
    import econ.explain as ex

    monkeypatch.setattr(ex, "MAX_EVALUATIONS", 1_000)
    with pytest.raises(
        AssumptionError,
        match=r"econ explain: 14 keys differ from the bundled data; "
        r"sharing the change between them takes 1,515 model evaluations, "
        r"expected at most 1,000: explain against a case closer",
    ):
        explain(_many_changes(base, 14), base, permutations=100)
