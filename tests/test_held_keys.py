"""What a scenario or --set fixes is held by every analysis, the break-even table included:
fixing two keys whose ranges together could break a rule (adoption summing over 1) must not
make an analysis vary one of them into that break."""

from __future__ import annotations

import json

import pytest
from conftest import DATA

import econ
from econ.cli import main
from econ.sensitivity import run

SETS = ["tiers.fast.adoption=0", "tiers.ultrafast.adoption=1"]


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_breakeven_holds_what_set_fixes(capsys):
    argv = ["sensitivity", "breakeven", "--data", str(DATA), "--json"]
    assert main([*argv, *(a for s in SETS for a in ("--set", s))]) == 0
    rows = json.loads(capsys.readouterr().out)
    keys = {r["key"] for r in rows}
    assert "tiers.fast.adoption" not in keys and "tiers.ultrafast.adoption" not in keys
    a = econ.load(DATA)
    varied = {s.key for s in a.sensitivity} - {"tiers.fast.adoption", "tiers.ultrafast.adoption"}
    assert keys == varied  # every other key keeps its row


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_breakeven_of_a_scenario_matches_the_other_analyses_held_keys():
    a = econ.load(DATA, set=dict(s.split("=") for s in SETS))
    held = {k for k, _, _ in run.held(a)}
    assert held == {"tiers.fast.adoption", "tiers.ultrafast.adoption"}
    table = econ.sensitivity.breakeven_table(a)
    assert held.isdisjoint(table["key"])
    assert set(table["key"]) == {s.key for s in run.varied(a)}


def test_breakeven_with_every_key_held_is_an_empty_table():
    a = econ.load(DATA)
    pairs = [(s.key, repr(a.num(s.key))) for s in a.sensitivity]
    held = a.with_overrides(pairs)
    table = econ.sensitivity.breakeven_table(held)
    assert table.empty and "breakeven" in table.columns
