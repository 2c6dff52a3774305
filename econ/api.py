"""The Python API for notebooks and scripts (docs/api.md): load the data, evaluate one or many
scenarios, and get the monthly paths, the metrics, the compute side's tables and every
sensitivity analysis as pandas DataFrames.

This module computes nothing of the model's own: each function calls the model
(:func:`econ.model.evaluate`), the headline (:func:`econ.headline.headline`), the compute
side's tables (:mod:`econ.compute.tables`) or the sensitivity engine
(:mod:`econ.sensitivity.run`, :mod:`econ.sensitivity.breakeven`) and shapes what they return.

Conventions of every frame:

- one name per figure: a column is named as ``econ ... --json`` and the CSV outputs name
  it (``npv_usd``, ``payback_months``, ``rent_usd``, ``cumulative_cash_usd``): a Python
  identifier, so ``df.npv_usd`` and ``df.query("npv_usd > 0")`` work; an assumption key keeps
  its dotted name (``contract.value_usd``), its one name in the data files and ``--set``;
- ``df.attrs["units"]`` maps every column to its unit as docs/model.md writes it ("-" for a
  pure number, "x" for a ratio; None for ids, text and yes/no);
- where the unit changes from row to row (a tornado or break-even row is about one key), a
  column gives it (``unit``, ``output_unit``, ``x_unit``, ``y_unit``), and
  ``df.attrs["unit_columns"]`` maps each column so measured to the column holding its unit.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from econ import assumptions as _assumptions
from econ import headline as _headline
from econ import model as _model
from econ.assumptions import MIN_MAGNITUDE, AssumptionError, Assumptions, rule_for
from econ.compute import tables as _tables
from econ.limits import (
    MAX_SAMPLES,
    MAX_SEED,
    MAX_SOBOL_SAMPLES,
    MAX_WORKERS,
    kept_size_error,
    sobol_size_error,
)
from econ.payback import GoalSeek

# The sensitivity engine is imported inside the functions that use it: econ.sensitivity's
# __init__ imports this module, so a top-level import here would be circular.

# the seed and sample counts of the command line's defaults, so that the API and
# `econ sensitivity ...` give the same numbers when neither is given
SEED = 12345
MONTE_CARLO_SAMPLES = 20_000
SOBOL_SAMPLES = 1024

# the analyses' outputs, named as `econ summary --json` names them
OUTPUT_NAMES = (
    "npv_usd",
    "payback_months",
    "irr_annual",
    "profitability_index",
    "mirr_annual",
    # the Monte Carlo's second deal option (docs/model.md, section 7)
    "npv_without_offer_usd",
)


def _field_names() -> dict[str, str]:
    """Results field -> its name in the JSON and CSV outputs: the headline's name where it has
    one (``npv`` -> ``npv_usd``, ``pro`` -> ``pro_subscribers``), else the field's name with
    ``_usd`` added where its unit is in USD (``rent_npv`` -> ``rent_npv_usd``,
    ``api_margin`` -> ``api_margin_usd``), else the field's."""
    names = {
        "npv": "npv_usd",
        "npv_without_terminal_value": "npv_without_terminal_value_usd",
        "npv_at_term": "npv_at_term_usd",
        "terminal_value": "terminal_value_usd",
        "shortfall": "shortfall_usd",
        "realised_cost_per_mtok": "realised_cost_per_mtok_usd",
        "months": "month",
    }
    for json_name, field_ in _headline.MONTHLY_FIELDS.items():
        names.setdefault(field_, json_name)  # the first name (utilization, not the old one)
    for field_, (unit, _, _) in _model.Results.units().items():
        if field_ not in names:
            usd = unit.startswith("USD") and not field_.endswith("_usd")
            names[field_] = f"{field_}_usd" if usd else field_
    return names


FIELD_NAMES = _field_names()
# the other way: a name of the outputs -> (unit, meaning) of its Results field
NAME_UNITS = {FIELD_NAMES[f]: (unit, doc) for f, (unit, _, doc) in _model.Results.units().items()}
# computed from the results by econ.payback, not a Results field
NAME_UNITS["mirr_annual"] = ("1/yr", "the modified internal rate of return, a year")
NAME_UNITS.setdefault("npv_without_offer_usd", ("USD", "the NPV of the deal without the offer"))
# the Monte Carlo's per-draw diagnostics beside the outputs (sections V4.3, V4.8): the GPU cost of
# a standard token at fleet.avoidable_share = 1, and 1 where each clamp binds
DIAGNOSTIC_UNITS = {
    "gpu_cost_at_avoidable_1": "USD per 1M tokens",
    "clamp_gpu_cost_at_list_price": "0/1",
    "clamp_realisation_at_1": "0/1",
    "clamp_max_capped_propensity": "0/1",
}

CAPACITY_UNITS: dict[str, str | None] = {
    "platform": None,
    "tier": None,
    "tokens_per_s_per_user": "tokens/s/user",
    "tokens_per_s_per_mw": "tokens/s/MW",
    "concurrent_users_per_mw": "users/MW",
    "tokens_per_s_per_mw_served": "tokens/s/MW",
    "chips_per_replica": "chips",
    "stages": "stages",
    "chips_per_stage": "chips",
    "ceiling_tokens_per_s": "tokens/s/user",
    "physics_tokens_per_s_per_mw": "tokens/s/MW",
    "physics_users_per_mw": "users/MW",
    "physics_stages": "stages",
    "physics_speed": "tokens/s/user",
    "physics_bound": None,
    "data_over_physics": "x",
    "verdict": None,
    "cost_per_mtok_rent_usd": "USD per 1M tokens",
    "cost_per_mtok_buy_usd": "USD per 1M tokens",
    "cost_per_mtok_rent_usd_physics": "USD per 1M tokens",
    "cost_per_mtok_buy_usd_physics": "USD per 1M tokens",
}
AUDIT_UNITS: dict[str, str | None] = {
    "point": None,
    "platform": None,
    "model": None,
    "tokens_per_s_per_user": "tokens/s/user",
    "tokens_per_s_per_mw": "tokens/s/MW",
    "ceiling_tokens_per_s": "tokens/s/user",
    "physics_tokens_per_s_per_mw": "tokens/s/MW",
    "data_over_physics": "x",
    "measured_model_physics_tokens_per_s_per_mw": "tokens/s/MW",
    "realisation": "x",
    "regime_x": "x",  # the speed over the measured model's ceiling (section V4.4)
    "sets_realisation": None,
    "verdict": None,
}
CALIBRATION_UNITS: dict[str, str | None] = {
    "point": None,
    "platform": None,
    "model": None,
    "chips": "chips",
    "measured_tokens_per_s": "tokens/s/user",
    "predicted_tokens_per_s": "tokens/s/user",
    "predicted_over_measured": "x",
    "tolerance": "x",
    "within_tolerance": None,
    "used_for_fit": None,
    "note": None,
}
RENT_VS_BUY_UNITS: dict[str, str | None] = {
    "platform": None,
    "buy_npv_at_zero_price_usd": "USD",
    "buy_npv_per_usd_of_price": "-",
    "rent_npv_usd": "USD",
    "buy_npv_usd": "USD",
    "rent_usd_per_mw_month": "USD/MW-month",
    "rent_usd_per_delivered_mw_month": "USD/MW-month",
    "buy_usd_per_delivered_mw_month": "USD/MW-month",
    "breakeven_system_price_usd": "USD",
    "breakeven_note": None,
    "systems": "systems",
    "buy_capex_usd": "USD",
    "buy_residual_usd": "USD",
    "lessor_yield_annual": "1/yr",
    "rent_and_price_consistent": None,
}
SOBOL_UNITS: dict[str, str | None] = {
    "output": None,
    "key": None,
    **{c: "-" for c in ("S1", "S1_low", "S1_high", "ST", "ST_low", "ST_high")},
    "note": None,
}
# the engine's key column -> the name of every table's key column (breakeven's and the value
# of information's already)
KEY_COLUMN = {"variable": "key"}


# ---------------------------------------------------------------------------
# naming


def output_unit(output: str) -> str:
    """The unit of an output as the JSON names it (``npv_usd`` -> ``USD``)."""
    return NAME_UNITS[output][0]


# a figure's unit from its name where it is no Results field: (ending, unit), first match
SUFFIX_UNITS = (
    ("_usd", "USD"),
    ("_share", "share"),
    ("utilization", "share"),
    ("adoption", "share"),
    ("_months", "months"),
    ("_annual", "1/yr"),
    ("tokens_per_s_per_mw", "tokens/s/MW"),
    ("tokens_per_s", "tokens/s/user"),
    ("_mw", "MW"),
)


def unit_of(name: str) -> str | None:
    """The unit of a figure or key by its name: a dotted key's rule, a Results field's unit
    (``npv_usd`` -> USD), else by its ending (``_usd``, ``_share``, ``_months``, ...)."""
    if "." in name:
        return key_unit(name)
    if name in NAME_UNITS:
        return NAME_UNITS[name][0]
    for end, unit in SUFFIX_UNITS:
        if name.endswith(end):
            return unit
    return None


def key_unit(key: str) -> str | None:
    """The unit of a dotted key as its rule declares it (``contract.value_usd`` -> ``USD``)."""
    rule = rule_for(key)
    return rule.unit if rule is not None else None


def _with_units(df: pd.DataFrame, units: Mapping[str, str | None]) -> pd.DataFrame:
    """``df`` (its columns named as the JSON names them) with attrs["units"] mapping every
    column to its unit, None for the others."""
    out = df.copy()
    out.attrs = {**df.attrs, "units": {c: units.get(c) for c in df.columns}}
    return out


# ---------------------------------------------------------------------------
# display: every frame formatted by its units, its values left as they are


def style(df: pd.DataFrame):
    """A pandas Styler of ``df`` showing each figure by its unit ($8.32B, 12.3%, 1.50M,
    econ.formatting) while the values stay raw: the last line of a notebook cell,
    ``econ.style(mc.cumulative_cash_fan)``, or ``df.econ.style()``."""
    from econ import formatting

    return formatting.style(df)


def formatted(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` as a frame of text, each figure by its unit, for a console:
    ``print(econ.formatted(ev.metrics))`` or ``df.econ.formatted()``."""
    from econ import formatting

    return formatting.formatted(df)


@pd.api.extensions.register_dataframe_accessor("econ")
class EconAccessor:
    """``df.econ.style()`` and ``df.econ.formatted()`` on every frame (econ's frames carry
    their units in ``attrs``; others are formatted by their columns' names)."""

    def __init__(self, df: pd.DataFrame):
        self._df = df

    def style(self):
        return style(self._df)

    def formatted(self) -> pd.DataFrame:
        return formatted(self._df)


# ---------------------------------------------------------------------------
# the arguments: the API refuses what the command line refuses, naming the argument or key


class ArgumentTypeError(AssumptionError, TypeError):
    """An argument of the wrong type (an AssumptionError and a TypeError)."""


def _what(value: object) -> str:
    """A value for a message: its type and a short repr."""
    text = repr(value)
    return f"the {type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


def _check_assumptions(a: object, function: str) -> Assumptions:
    if not isinstance(a, Assumptions):
        hint = ""
        if isinstance(a, str | Path):
            hint = f"; load the folder first: econ.{function}(econ.load({str(a)!r}), ...)"
        raise ArgumentTypeError(
            f"{function}: a: expected the assumptions econ.load() returns, got {_what(a)}{hint}"
        )
    return a


def _whole(name: str, value: object, low: int, high: int) -> int:
    """A whole number argument in [low, high] (as the command line's option of that name)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise ArgumentTypeError(
            f"{name}: expected a whole number from {low:,} to {high:,}, got {_what(value)}"
        )
    if not low <= int(value) <= high:
        raise AssumptionError(
            f"{name}: {int(value)} is out of range; expected a whole number from {low:,} to "
            f"{high:,}"
        )
    return int(value)


def _finite(name: str, value: object) -> float:
    """A finite real number argument (not a boolean, not text, not a subnormal)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | float | np.number):
        raise ArgumentTypeError(f"{name}: expected a number, got {_what(value)}")
    if isinstance(value, complex | np.complexfloating):
        raise ArgumentTypeError(f"{name}: expected a real number, got {_what(value)}")
    x = float(value)
    if not np.isfinite(x):
        raise AssumptionError(f"{name}: {x} is not finite; expected a finite number")
    if x != 0 and abs(x) < np.finfo(float).tiny:
        raise AssumptionError(
            f"{name}: {x!r} is too small to compute with (a subnormal double); expected 0 or a "
            "larger magnitude"
        )
    return x


def _is_flag(key: str) -> bool:
    """Whether a key is a 0/1 flag (the one kind of key a boolean may give); a retired key is
    refused first, naming its replacement, whatever the value's type."""
    if key in _assumptions.RETIRED:
        raise AssumptionError(_assumptions.unknown_key_message(key, ()))
    rule = rule_for(key)
    return rule is not None and rule.kind == "integer" and (rule.low, rule.high) == (0, 1)


def _override(key: object, value: object) -> np.ndarray:
    """One override of :func:`evaluate` as a float array (N,) or a scalar array, or a refusal
    naming the key: text, booleans, empty or nested arrays are no scenarios."""
    if not isinstance(key, str):
        raise ArgumentTypeError(f"evaluate: a key must be a dotted key (text), got {_what(key)}")
    if isinstance(value, str | bytes):
        raise ArgumentTypeError(
            f"{key}: expected a number or an array of numbers, got the text {value!r}; set a "
            f"text value (an id) with econ.load(set={{{key!r}: {value!r}}})"
        )
    if isinstance(value, bool | np.bool_) and not _is_flag(key):
        raise ArgumentTypeError(
            f"{key}: expected a number, got the boolean {value!r} (a boolean sets a 0/1 flag only)"
        )
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):  # ragged sequences and the like
        raise ArgumentTypeError(
            f"{key}: expected a number or a flat array of numbers, got {_what(value)}"
        ) from None
    if arr.dtype.kind == "O":
        items = arr.reshape(-1)
        bad = next((x for x in items if isinstance(x, str | bytes) or x is None), None)
        if bad is not None or any(not isinstance(x, int | float | np.number) for x in items):
            bad = (
                bad
                if bad is not None
                else next(x for x in items if not isinstance(x, int | float | np.number))
            )
            raise ArgumentTypeError(f"{key}: expected numbers, found {_what(bad)}")
    elif arr.dtype.kind in "US":
        raise ArgumentTypeError(
            f"{key}: expected numbers, got an array of text ({arr.reshape(-1)[:1].tolist()[0]!r}"
            f"{', ...' if arr.size > 1 else ''})"
            if arr.size
            else f"{key}: an empty array of text"
        )
    elif arr.dtype.kind == "b" and not _is_flag(key):
        raise ArgumentTypeError(
            f"{key}: expected numbers, got booleans (a boolean sets a 0/1 flag only)"
        )
    elif arr.dtype.kind not in "iufb":
        raise ArgumentTypeError(f"{key}: expected real numbers, got an array of {arr.dtype}")
    if arr.ndim > 1:
        raise AssumptionError(f"{key}: expected a scalar or values shape (N,), got {arr.shape}")
    if arr.size == 0:
        raise AssumptionError(
            f"{key}: an empty array; expected a scalar or values shape (N,), N >= 1"
        )
    arr = arr.astype(float)
    tiny = (arr != 0) & (np.abs(arr) < MIN_MAGNITUDE)
    if tiny.any():
        raise AssumptionError(
            f"{key}: {float(arr[tiny][0])!r} is too small; expected 0 or a magnitude of at least "
            f"{MIN_MAGNITUDE:g}"
        )
    return arr


def _set_pairs(set_: object) -> list[tuple[str, object]]:
    """``load(set=...)`` as (key, value) pairs: a mapping, or pairs, or "KEY=VALUE" texts."""
    if isinstance(set_, Mapping):
        return list(set_.items())
    if isinstance(set_, str | bytes) or not isinstance(set_, Iterable):
        raise ArgumentTypeError(
            f"set: expected {{dotted key: value}}, (key, value) pairs or 'KEY=VALUE' texts, got "
            f"{_what(set_)}"
        )
    pairs = []
    for item in set_:
        if isinstance(item, str):
            if "=" not in item:
                raise AssumptionError(f"set {item!r}: expected KEY=VALUE, e.g. 'contract.mw=700'")
            k, v = item.split("=", 1)
            pairs.append((k.strip(), v.strip()))
        elif isinstance(item, tuple | list) and len(item) == 2:
            pairs.append((item[0], item[1]))
        else:
            raise ArgumentTypeError(
                f"set: expected (key, value) pairs or 'KEY=VALUE' texts, found {_what(item)}"
            )
    return pairs


def _value_text(key: str, value: object) -> str:
    """One value of ``load(set=...)`` as the text an override takes (exact for a float)."""
    if not isinstance(key, str):
        raise ArgumentTypeError(f"set: a key must be a dotted key (text), got {_what(key)}")
    if isinstance(value, str):
        return value
    if isinstance(value, bool | np.bool_):
        if not _is_flag(key):
            raise ArgumentTypeError(
                f"set {key}: expected a number, got the boolean {value!r} (a boolean sets a 0/1 "
                "flag only)"
            )
        return "1" if value else "0"
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        raise ArgumentTypeError(
            f"set {key}: expected a number or text, got {_what(value)}"
        ) from None
    if arr.ndim != 0:
        raise AssumptionError(
            f"set {key}: one value expected, got an array of shape {arr.shape}; "
            f"pass arrays of scenarios to econ.evaluate(a, {{{key!r}: values}})"
        )
    x = arr.item()
    if isinstance(x, bool) or not isinstance(x, int | float):
        raise ArgumentTypeError(f"set {key}: expected a number or text, got {_what(value)}")
    if isinstance(x, float):
        return repr(x)  # the shortest text that reads back as the same float
    return str(x)


# ---------------------------------------------------------------------------
# assumptions and one evaluation


def load(
    data: str | Path | None = None,
    scenario: str | None = None,
    set: Mapping[str, object] | None = None,  # noqa: A002 - the CLI's --set
) -> Assumptions:
    """Load and validate the assumptions (docs/model.md, section 2).

    Parameters
    ----------
    data : a folder of assumption CSVs; default the bundled data.
    scenario : the name of a file of ``data/scenarios/`` (without ``.csv``), applied first.
    set : {dotted key: value} overrides applied after the scenario, as ``--set KEY=VALUE``:
        a number, or text such as ``"physics"`` or ``"3%"``; one value per key (arrays of
        scenarios go to :func:`evaluate`).

    Returns the :class:`~econ.assumptions.Assumptions`. Raises
    :class:`~econ.assumptions.AssumptionError` naming the file, row, key or value at fault
    (an unknown key suggests the nearest known ones).
    """
    if data is not None and not isinstance(data, str | os.PathLike):
        raise ArgumentTypeError(f"load: data: expected a folder (a path), got {_what(data)}")
    if scenario is not None and not isinstance(scenario, str):
        raise ArgumentTypeError(f"load: scenario: expected a scenario name, got {_what(scenario)}")
    pairs = _set_pairs(set) if set is not None else []
    texts = [(k, _value_text(k, v)) for k, v in pairs]
    a = _assumptions.load(data)
    if scenario is not None:
        a = a.with_scenario(scenario)
    if texts:
        a = a.with_overrides(texts, origin="set")
    return a


class Evaluation:
    """N scenarios evaluated at once: the model's results shaped as pandas frames.

    Attributes
    ----------
    assumptions : the assumptions evaluated (with ``overrides`` on top).
    results : the model's :class:`~econ.model.Results`: arrays (N, H) and (N,) with their
        units in ``Results.units()``.
    overrides : {dotted key: values (N,)} of the keys given to :func:`evaluate`.
    scenarios : the scenario labels (N,): the index of a pandas Series or DataFrame given,
        else 0..N-1.
    monthly, metrics, headline : see each property.
    """

    def __init__(
        self,
        assumptions: Assumptions,
        results: _model.Results,
        overrides: Mapping[str, np.ndarray],
        scenarios: pd.Index,
    ):
        self.assumptions = assumptions
        self.results = results
        self.overrides = dict(overrides)
        self.scenarios = scenarios

    def __repr__(self) -> str:
        return (
            f"<Evaluation of {self.n} scenario{'s' * (self.n != 1)} over {self.results.months.size} "
            f"months, data scenario {self.assumptions.scenario!r}, "
            f"varying {', '.join(self.overrides) or 'nothing'}>"
        )

    @property
    def n(self) -> int:
        """The number of scenarios, N."""
        return self.results.n

    @cached_property
    def monthly(self) -> pd.DataFrame:
        """Every monthly path, (N x H) rows indexed by (scenario, month), month 1..H.

        One column per (N, H) field of :class:`~econ.model.Results`, named as ``econ summary
        --json`` names its monthly lists: ``mw_online``, ``rent_usd``, ``revenue_usd``,
        ``gpu_savings_usd``, ``net_cash_flow_usd``, ``cumulative_cash_usd``, ``utilization``,
        ``pro_subscribers``, ``incremental_pro_subscribers``, ``ultrafast_adoption``, ...
        (docs/model.md, sections 3-6). attrs: "units" and "meaning" by column. Fields only a
        detailed evaluation computes are absent with ``detail=False``. Memory: 8 bytes x N x H
        x about 35 columns; for a large N read ``results`` instead.
        """
        r = self.results
        cols: dict[str, np.ndarray] = {}
        units: dict[str, str] = {}
        meaning: dict[str, str] = {}
        for name, (unit, shape, doc) in _model.Results.units().items():
            x = getattr(r, name)
            if shape != "(N, H)" or x is None:
                continue
            c = FIELD_NAMES[name]
            cols[c] = np.asarray(x, float).reshape(-1)
            units[c], meaning[c] = unit, doc
        index = pd.MultiIndex.from_product(
            [self.scenarios, r.months.astype(int)], names=["scenario", "month"]
        )
        df = pd.DataFrame(cols, index=index)
        df.attrs = {"units": units, "meaning": meaning, "data_scenario": self.assumptions.scenario}
        return df

    @cached_property
    def metrics(self) -> pd.DataFrame:
        """One row per scenario: the keys given to :func:`evaluate` (by their dotted names), then
        every (N,) field of :class:`~econ.model.Results`, named as ``econ summary --json``
        names it: ``npv_usd``, ``npv_without_terminal_value_usd``, ``npv_at_term_usd``,
        ``terminal_value_usd``, ``irr_annual``, ``payback_months``,
        ``discounted_payback_months``, ``shortfall_usd``, ``rent_npv_usd``,
        ``profitability_index``, ``realised_cost_per_mtok_usd``, ``throughput_per_mw``, ...
        (docs/model.md, section 6). No payback within the horizon and an undefined IRR are
        NaN. attrs: "units" and "meaning" by column."""
        r = self.results
        cols: dict[str, np.ndarray] = {}
        units: dict[str, str | None] = {}
        meaning: dict[str, str] = {}
        for key, values in self.overrides.items():
            c = key
            cols[c] = np.broadcast_to(values, (self.n,))
            units[c], meaning[c] = key_unit(key), f"the input {key}"
        for name, (unit, shape, doc) in _model.Results.units().items():
            x = getattr(r, name)
            if shape != "(N,)" or x is None:
                continue
            c = FIELD_NAMES[name]
            cols[c] = np.asarray(x, float)
            units[c], meaning[c] = unit, doc
        if "npv_usd" in cols and "npv_without_terminal_value_usd" in cols:
            # the terminal value as the NPV counts it, named apart from its value at the
            # horizon (terminal_value_usd), as `econ summary --json` names it
            c = "terminal_value_pv_usd"
            cols[c] = cols["npv_usd"] - cols["npv_without_terminal_value_usd"]
            units[c], meaning[c] = "USD", "the terminal value's present value in the NPV"
        df = pd.DataFrame(cols, index=self.scenarios)
        df.attrs = {"units": units, "meaning": meaning, "data_scenario": self.assumptions.scenario}
        return df

    @property
    def _every_path(self) -> bool:
        """Every monthly path kept (evaluated with ``monthly=True``)."""
        return all(
            getattr(self.results, k) is not None
            for k, (_, shape, _) in _model.Results.units().items()
            if shape == "(N, H)"
        )

    def scenario(self, i: int = 0) -> Assumptions:
        """The assumptions of scenario ``i`` (a position 0..N-1): the evaluated assumptions
        with that scenario's values of the keys given to :func:`evaluate`, as ``--set`` would
        give them; for the functions that take one set of assumptions (the headline, the
        capacity table, goal seek)."""
        if not self.overrides:
            return self.assumptions
        pairs = [
            (k, _value_text(k, float(np.broadcast_to(v, (self.n,))[i])))
            for k, v in self.overrides.items()
        ]
        return self.assumptions.with_overrides(
            pairs, origin=f"evaluate, scenario {self.scenarios[i]}"
        )

    @cached_property
    def headline(self) -> dict[str, Any]:
        """The dict ``econ summary --json`` prints, for scenario 0: ``npv_usd``,
        ``payback_months``, ``irr_annual``, ``profitability_index``, ``totals``,
        ``capacity_limits``, ``physics``, ``rent_vs_buy``, ``monthly``, ... (NaN as None)."""
        if not self.overrides and self.results.totals is not None and self._every_path:
            h = _headline.headline(self.assumptions, self.results)
        else:
            h = _headline.headline(self.scenario(0))
        if isinstance(h.get("totals"), dict):  # the names before version 4 still read
            h["totals"] = _Renamed(h["totals"], _headline.TOTAL_NAMES)
        return h


class _Renamed(dict):
    """A dict that also answers to the names a figure had before (old name -> new name), while
    holding and printing the new names only."""

    def __init__(self, items, old: Mapping[str, str]):
        super().__init__(items)
        self._old = dict(old)

    def __missing__(self, key):
        if key in self._old and self._old[key] in self:
            return self[self._old[key]]
        raise KeyError(key)


def evaluate(
    a: Assumptions,
    overrides: Mapping[str, ArrayLike] | pd.DataFrame | None = None,
    /,
    *,
    detail: bool = True,
    monthly: bool | Iterable[str] = True,
    block: int | None = None,
    **keys: ArrayLike,
) -> Evaluation:
    """Evaluate N scenarios in one vectorised call (docs/model.md, sections 3-6).

    Parameters
    ----------
    a : the assumptions (:func:`load`).
    overrides : {dotted key: scalar or values shape (N,)}, or a DataFrame with one column per
        key and one row per scenario (its index labels the scenarios). Every numeric key may
        vary, tier speeds and hardware figures included; a structural key (the horizon, the
        platform, the capacity basis, a frontier point's speed) takes one value: set it with
        :func:`load`.
    detail : also compute what only reports show (utilisation, the Pro plan's cap hits,
        cumulative discounted cash); False is faster for a large N.
    monthly : the monthly paths to keep: True all (``.monthly`` has every column), False none
        (``.metrics`` only: about 0.4 KB a scenario instead of 20 KB), or their names as
        ``.monthly`` names its columns (``"net_cash_flow_usd"``) or as the Results fields
        (``"net_cash_flow"``).
    block : scenario evaluations at once, a scenario whose served speed is chosen counting 6
        (default ``econ.blocks.BLOCK_SIZE``, 12,000: 2,000 scenarios; or the environment
        variable ECON_BLOCK_SIZE): more are evaluated block by block, with the same results
        to the last bit and memory bounded by the block (docs/api.md, "Memory").
    **keys : more overrides by keyword, e.g. ``**{"contract.value_usd": values}``.

    Returns an :class:`Evaluation` with ``.monthly``, ``.metrics`` and ``.headline``.
    All arguments may be scalars or arrays; scalars broadcast to the N of the arrays.
    Raises :class:`~econ.assumptions.AssumptionError` for an unknown key, a value outside its
    key's rule, arrays of different lengths or a key given twice.
    """
    _check_assumptions(a, "evaluate")
    if not isinstance(detail, bool):
        raise ArgumentTypeError(f"evaluate: detail: expected True or False, got {_what(detail)}")
    given: dict[str, Any] = {}
    if isinstance(overrides, pd.DataFrame):
        if overrides.columns.empty:
            raise AssumptionError(
                f"evaluate: a DataFrame with no columns ({len(overrides)} row"
                f"{'s' * (len(overrides) != 1)}) varies no key; expected one column per key and "
                "one row per scenario (evaluate(a) alone evaluates the assumptions as they are)"
            )
        dupes = overrides.columns[overrides.columns.duplicated()].unique().tolist()
        if dupes:
            raise AssumptionError(
                f"evaluate: the column(s) {', '.join(map(str, dupes))} appear twice in the "
                "DataFrame; give each key once"
            )
        given.update({k: overrides[k] for k in overrides.columns})
    elif isinstance(overrides, Mapping):
        given.update(overrides)
    elif overrides is not None:
        raise ArgumentTypeError(
            f"evaluate: overrides: expected {{dotted key: values}} or a DataFrame, got "
            f"{_what(overrides)}"
        )
    for k, v in keys.items():
        if k in given:
            raise AssumptionError(
                f"{k}: given twice (in the mapping and as a keyword); give it once"
            )
        given[k] = v
    checked = {k: _override(k, v) for k, v in given.items()}
    blank = [k for k in checked if k not in a.values and k in a.blanks]
    if blank:
        # optional keys left blank in the data (contract.tranche_mw and contract.tranche_months):
        # set to their first values, so that the rules between keys apply (both tranche keys or
        # neither), then varied as given
        first = [(k, repr(float(checked[k].reshape(-1)[0]))) for k in blank]
        a = a.with_overrides(first, origin="evaluate")
    results = _model.evaluate(
        a, checked, detail=detail, monthly=_monthly_fields(monthly), block=_block(block)
    )
    n = results.n
    scenarios: pd.Index = pd.RangeIndex(n, name="scenario")
    if isinstance(overrides, pd.DataFrame) and len(overrides) == n:
        scenarios = overrides.index.rename("scenario")
    else:
        labelled = [v for v in given.values() if isinstance(v, pd.Series) and len(v) == n]
        if labelled:
            scenarios = labelled[0].index.rename("scenario")
    arrays = {k: np.atleast_1d(np.asarray(v, float)) for k, v in given.items()}
    return Evaluation(a, results, arrays, scenarios)


def _monthly_fields(monthly: object) -> bool | frozenset[str]:
    """evaluate's ``monthly``: True, False, or Results fields from names of either kind."""
    if isinstance(monthly, bool):
        return monthly
    if isinstance(monthly, str | bytes) or not isinstance(monthly, Iterable):
        raise ArgumentTypeError(
            f"evaluate: monthly: expected True, False or names of monthly paths, got "
            f"{_what(monthly)}"
        )
    fields_ = {FIELD_NAMES[k]: k for k, (_, shape, _) in _model.Results.units().items()}
    out = set()
    for name in monthly:
        if not isinstance(name, str):
            raise ArgumentTypeError(f"evaluate: monthly: expected names, got {_what(name)}")
        out.add(fields_.get(name, name))
    return frozenset(out)


def _block(block: object) -> int | None:
    if block is None:
        return None
    return _whole("evaluate: block", block, 2, 2**62)


# ---------------------------------------------------------------------------
# the compute side's tables


def capacity_table(a: Assumptions, speeds: Iterable[float] = ()) -> pd.DataFrame:
    """One row per platform and per-user speed (the tier speeds, then ``speeds``
    [tokens/s/user]), as ``econ capacity``: data throughput and users per MW, the replica
    layout, the per-user ceiling, the physics envelope and what attains it, data over
    physics, the verdict ("plausible", "above the ceiling", ...), and the cost per million
    tokens rented and bought on each basis (docs/model.md, sections 3.1-3.4, 4.3).
    A speed a platform's curve does not cover has NaN data columns."""
    _check_assumptions(a, "capacity_table")
    if isinstance(speeds, str | bytes) or not isinstance(speeds, Iterable):
        raise ArgumentTypeError(f"capacity_table: speeds: expected numbers, got {_what(speeds)}")
    checked = []
    for x in speeds:
        v = _finite("capacity_table: speeds", x)
        if not v > 0:
            raise AssumptionError(
                f"capacity_table: speeds: {x!r} is not a speed; expected positive numbers "
                "[tokens/s/user]"
            )
        checked.append(v)
    return _with_units(_tables.capacity_table(a, tuple(checked)), CAPACITY_UNITS)


def frontier_audit(a: Assumptions) -> pd.DataFrame:
    """Every frontier point against its platform's physics envelope for the served model, with
    the verdict; a point measured on another model says so (docs/model.md, section 3.4)."""
    _check_assumptions(a, "frontier_audit")
    return _with_units(_tables.frontier_audit(a), AUDIT_UNITS)


def calibration(a: Assumptions) -> pd.DataFrame:
    """Each published speed of calibration.csv against the per-user ceiling the platform's
    figures predict for that model, and whether it is within the row's tolerance
    (docs/model.md, section 3.3). Empty where the data have no calibration.csv."""
    _check_assumptions(a, "calibration")
    return _with_units(_tables.calibration_table(a), CALIBRATION_UNITS)


def rent_vs_buy(a: Assumptions) -> pd.DataFrame:
    """Renting against buying the contracted MW over the term, one row (index: the data
    scenario): both NPVs, per MW-month, the break-even system price (NaN where none), the
    lessor's yield (NaN where undefined) and whether rent and price can both be right
    (docs/model.md, section 4.3). ``.T`` reads it as a list."""
    _check_assumptions(a, "rent_vs_buy")
    d = _tables.rent_vs_buy(a)
    row = {
        k: (np.nan if v is None else float(v)) if RENT_VS_BUY_UNITS.get(k) else v
        for k, v in d.items()
    }
    return _with_units(
        pd.DataFrame([row], index=pd.Index([a.scenario], name="scenario")), RENT_VS_BUY_UNITS
    )


def goal_seek(
    a: Assumptions,
    key: str,
    target: str = "npv",
    low: float | None = None,
    high: float | None = None,
) -> GoalSeek:
    """The value of ``key`` [its unit] at which NPV is zero (``target="npv"``) or the payback
    month equals the term (``target="payback"``), as ``econ goal-seek`` (docs/model.md,
    section 6). The search range is [low, high] (an end outside the key's rule is refused),
    else the key's sensitivity range, else its rule's range where the upper bound is not a
    sense limit, else 0.1x to 10x its value. Returns a GoalSeek: ``value`` (None where no value in the range gets there, with
    the reason in ``message``), ``bracket`` (the range searched), ``base`` and ``message``."""
    _check_assumptions(a, "goal_seek")
    if not isinstance(key, str):
        raise ArgumentTypeError(f"goal_seek: key: expected a dotted key, got {_what(key)}")
    if target not in ("npv", "payback"):
        raise AssumptionError(f"goal_seek: target {target!r}; expected 'npv' or 'payback'")
    low = None if low is None else _finite("goal_seek: low", low)
    high = None if high is None else _finite("goal_seek: high", high)
    from econ.sensitivity.breakeven import goal_seek_key

    return goal_seek_key(a, key, target, low, high)


# ---------------------------------------------------------------------------
# sensitivity (exported as econ.sensitivity.tornado, grids, monte_carlo, sobol_indices,
# breakeven_table)


def _outputs(df: pd.DataFrame, col: str = "output") -> pd.DataFrame:
    """``df`` with an output_unit column after the output's name."""
    df = df.copy()
    df.insert(df.columns.get_loc(col) + 1, "output_unit", df[col].map(output_unit))
    return df


def tornado(a: Assumptions, sobol_samples: int | None = None, seed: int = 12345) -> pd.DataFrame:
    """One-way sensitivity (docs/model.md, section 7): every key of sensitivity.csv at its
    low and at its high with the others at base, for npv, payback_months and irr_annual.

    Columns: output, output_unit, key, unit (of low, high and base), low, high, base,
    output_base, output_low, output_high, change_low, change_high and swing (in output_unit;
    no payback counts as the horizon in the swing), ends_on_low and ends_on_high (text: the
    kinks a bar's end sits past and the base does not, "" for none; section 7), sorted by swing
    within each output. With ``sobol_samples`` (as ``econ sensitivity tornado``, whose
    ``--samples`` it is, default 1,024 there): tornado_rank (the bar's place; bars that swing
    alike share one), sobol_rank (the key's place by the Sobol total index of that output, NPV
    and payback; both blank for the IRR) and ranks_differ_because (text,
    "" where the rankings agree). (The key column was named ``variable`` before version 4.)"""
    _check_assumptions(a, "tornado")
    from econ.sensitivity import run

    df = run.tornado(a)
    if sobol_samples is not None:
        df = run.with_sobol_ranks(a, df, sobol_samples, seed)
    return tornado_frame(df)


def tornado_frame(engine: pd.DataFrame) -> pd.DataFrame:
    """The engine's tornado as :func:`tornado` returns it (and ``econ sensitivity tornado
    --csv`` writes it): with its units, the key column named ``key`` as in every table."""
    df = _outputs(engine).rename(columns=KEY_COLUMN)
    df.insert(df.columns.get_loc("key") + 1, "unit", df["key"].map(key_unit))
    df = _with_units(df, {"tornado_rank": "-", "sobol_rank": "-"})
    out = ("output_base", "output_low", "output_high", "change_low", "change_high", "swing")
    df.attrs["unit_columns"] = {
        **dict.fromkeys(("low", "high", "base"), "unit"),
        **dict.fromkeys(out, "output_unit"),
    }
    return df


def grids(a: Assumptions) -> pd.DataFrame:
    """The two-way grids of grids.csv (docs/model.md, section 7): one row per grid point,
    columns grid, x_key, x_unit, x, y_key, y_unit, y, npv_usd, payback_months, irr_annual."""
    _check_assumptions(a, "grids")
    from econ.sensitivity import run

    return grids_frame(run.grids(a))


def grids_frame(engine: pd.DataFrame) -> pd.DataFrame:
    """The engine's grids as :func:`grids` returns them, with their units."""
    df = engine.copy()
    if df.empty:
        return df
    df.insert(df.columns.get_loc("x_key") + 1, "x_unit", df["x_key"].map(key_unit))
    df.insert(df.columns.get_loc("y_key") + 1, "y_unit", df["y_key"].map(key_unit))
    units = {o: output_unit(o) for o in OUTPUT_NAMES if o in df.columns}
    df = _with_units(df, units)
    df.attrs["unit_columns"] = {"x": "x_unit", "y": "y_unit"}
    return df


@dataclass(frozen=True)
class MonteCarlo:
    """A Monte Carlo of the deal over sensitivity.csv, as frames (docs/model.md, section 7).

    Attributes
    ----------
    statistics : index (output, statistic), columns value and unit: the percentiles
        "P5".."P95" of npv_usd, payback_months, irr_annual and profitability_index, the mean and
        its standard error (not of IRR), "P(NPV > 0)", "P(payback <= term)" and their
        standard errors, "share undefined", "share with no payback within the horizon".
    value_of_information : one row per key of sensitivity.csv: key, evppi_usd (the
        penalised-spline regression estimator), its bootstrap standard error evppi_se_usd,
        share_of_evpi, reason (why an EVPPI is exactly 0: the same option is best at every
        value of the key, or the model does not read it), edf (the spline's effective degrees
        of freedom); largest first. attrs: ``evpi_usd``, ``evpi_se_usd``, ``samples``,
        ``decision_options_usd`` (each decision option's mean NPV), ``best_option``.
    evpi_usd : the expected value of perfect information on every input [USD];
        evpi_se_usd its standard error.
    decision_options_usd : each decision option's mean NPV [USD]; best_option the best.
    cumulative_cash_fan : index month, P10, P50, P90 [USD]: cumulative cash by month over
        all samples.
    Each is named as ``econ sensitivity montecarlo --json`` names it; ``evpi`` and ``fan``
    (the names before version 4) still work.
    payback_by_month : index month, share (P(payback <= month)) and its standard_error.
    convergence : the mean NPV over the first 1, 2, 4, ... samples and all: n, defined
        [samples], mean, standard_error [USD].
    histograms, s_curves : {"npv_usd", "payback_months": frame} (histogram bins over P1-P99
        with the tails in attrs; share of all samples at or below each value).
    samples : the first ``keep`` samples, index sample: every sampled key (its dotted name)
        and the outputs (npv_usd, ..., mirr_annual and npv_without_offer_usd, the deal without
        the subscriber offer), then the diagnostics: gpu_cost_at_avoidable_1 [USD per 1M
        tokens] and clamp_gpu_cost_at_list_price, clamp_realisation_at_1,
        clamp_max_capped_propensity [0/1: 1 where the clamp binds in the draw].
    n, seed : samples and seed. sampled : the keys sampled; unread : the keys of
        sensitivity.csv that the payback model does not read (not sampled; zero value of
        information). raw : the engine's dict (econ.sensitivity.run.monte_carlo).
    """

    statistics: pd.DataFrame
    value_of_information: pd.DataFrame
    evpi_usd: float
    cumulative_cash_fan: pd.DataFrame
    payback_by_month: pd.DataFrame
    convergence: pd.DataFrame
    histograms: dict[str, pd.DataFrame]
    s_curves: dict[str, pd.DataFrame]
    samples: pd.DataFrame
    n: int
    seed: int
    sampled: tuple[str, ...]
    unread: tuple[str, ...]
    raw: dict
    evpi_se_usd: float = float("nan")
    decision_options_usd: dict = field(default_factory=dict)
    best_option: str | None = None

    @property
    def evpi(self) -> float:
        """The name of :attr:`evpi_usd` before version 4."""
        return self.evpi_usd

    @property
    def fan(self) -> pd.DataFrame:
        """The name of :attr:`cumulative_cash_fan` before version 4."""
        return self.cumulative_cash_fan

    @property
    def probability_npv_positive(self) -> float:
        """P(NPV > 0) over all samples [share]."""
        return float(self.statistics.loc[("npv_usd", "P(NPV > 0)"), "value"])

    @property
    def probability_payback_within_term(self) -> float:
        """P(payback <= term) over all samples, no payback counting as never [share]."""
        return float(self.statistics.loc[("payback_months", "P(payback <= term)"), "value"])


def _statistic_unit(statistic: str, unit: str) -> str:
    """A probability or share is a share; a percentile, mean or its error has the output's unit."""
    shares = ("P(", "standard error of P(", "share")
    return "share" if statistic.startswith(shares) else unit


def monte_carlo(
    a: Assumptions,
    samples: int = MONTE_CARLO_SAMPLES,
    seed: int = SEED,
    workers: int = 1,
    keep: int | None = None,
) -> MonteCarlo:
    """A Monte Carlo of NPV, payback, IRR and profitability index over the ranges of
    sensitivity.csv with the rank correlations of correlations.csv, as ``econ sensitivity
    montecarlo`` (docs/model.md, section 7).

    Parameters
    ----------
    samples : Latin-hypercube samples (the statistics use all of them).
    seed : the seed; the same seed gives the same results to the last bit, for any
        ``workers``.
    workers : processes evaluating the samples (1: this one).
    keep : samples to return with their inputs in ``.samples`` (default all: 8 bytes x
        (sampled keys + 6) each).

    Returns a :class:`MonteCarlo`. Raises AssumptionError where sensitivity.csv is missing
    or has no rows.
    """
    _check_assumptions(a, "monte_carlo")
    samples = _whole("monte_carlo: samples", samples, 1, MAX_SAMPLES)
    seed = _whole("monte_carlo: seed", seed, 0, MAX_SEED)
    workers = _whole("monte_carlo: workers", workers, 1, MAX_WORKERS)
    if keep is not None:
        keep = _whole("monte_carlo: keep", keep, 0, samples)
    from econ.sensitivity import run

    keep = samples if keep is None else keep
    why = kept_size_error(keep, len(run.varied(a)))
    if why:
        raise AssumptionError(f"monte_carlo: keep={keep}: {why} (pass keep=)")
    mc = run.monte_carlo(a, samples, seed, keep=keep, workers=workers)
    f = monte_carlo_frames(mc)
    return MonteCarlo(
        statistics=f["statistics"],
        value_of_information=f["value_of_information"],
        evpi_usd=float(mc["evpi_usd"]),
        cumulative_cash_fan=f["cumulative_cash_fan"],
        payback_by_month=f["payback_by_month"],
        convergence=f["convergence"],
        histograms=f["histograms"],
        s_curves=f["s_curves"],
        samples=f["samples"],
        n=int(mc["n"]),
        seed=seed,
        sampled=tuple(mc["problem"].names),
        unread=tuple(mc["unread"]),
        raw=mc,
        evpi_se_usd=float(mc["evpi_se_usd"]),
        decision_options_usd=dict(mc["options"]),
        best_option=mc.get("best_option"),
    )


VOI_NAMES = {
    "evppi": "evppi_usd",
    "evppi_se": "evppi_se_usd",
    "noise_floor": "noise_floor_usd",
    "noise_sd": "noise_sd_usd",
}


def voi_frame(evppi: pd.DataFrame) -> pd.DataFrame:
    """The engine's value of information by key, its amounts named as the JSON names them
    (evppi_usd, evppi_se_usd), with units."""
    usd = output_unit("npv_usd")
    units = {v: usd for v in VOI_NAMES.values()}
    return _with_units(
        evppi.rename(columns=VOI_NAMES),
        {**units, "share_of_evpi": "share", "edf": "degrees of freedom"},
    )


def statistics_frame(stats: pd.DataFrame) -> pd.DataFrame:
    """The engine's Monte Carlo statistics (output, statistic, value) with each row's unit."""
    out = stats.copy()
    out["unit"] = [
        _statistic_unit(s, output_unit(o))
        for o, s in zip(out["output"], out["statistic"], strict=True)
    ]
    out = _with_units(out, {})
    out.attrs["unit_columns"] = {"value": "unit"}
    return out


def monte_carlo_frames(mc: dict) -> dict[str, Any]:
    """The frames of a :class:`MonteCarlo` from the engine's dict
    (econ.sensitivity.run.monte_carlo), named as ``econ sensitivity montecarlo --json``
    names them, with their units."""
    stats = statistics_frame(mc["stats"]).set_index(["output", "statistic"])
    usd = output_unit("npv_usd")
    voi = voi_frame(mc["evppi"])
    voi.attrs["evpi_usd"] = float(mc["evpi_usd"])
    voi.attrs["evpi_se_usd"] = float(mc["evpi_se_usd"])
    voi.attrs["samples"] = int(mc["n"])
    voi.attrs["decision_options_usd"] = dict(mc["options"])
    voi.attrs["best_option"] = mc.get("best_option")
    # the names before version 4
    voi.attrs["evpi"] = voi.attrs["evpi_usd"]
    voi.attrs["evpi_se"] = voi.attrs["evpi_se_usd"]
    voi.attrs["options_usd"] = voi.attrs["decision_options_usd"]
    fan = _with_units(mc["fan"], {"P10": usd, "P50": usd, "P90": usd, "month": None}).set_index(
        "month"
    )
    fan.attrs["path"] = "cumulative_cash_usd"
    by_month = _with_units(
        mc["payback_by_month"], {"share": "share", "standard_error": "share"}
    ).set_index("month")
    conv = _with_units(
        mc["convergence"],
        {"n": "samples", "defined": "samples", "mean": usd, "standard_error": usd},
    )
    months = output_unit("payback_months")
    hist_units = {"count": "samples", "cumulative_share": "share"}
    histograms = {
        "npv_usd": _with_units(
            mc["hist_npv"], {**hist_units, **dict.fromkeys(("bin_low", "bin_high", "bin_mid"), usd)}
        ),
        "payback_months": _with_units(
            mc["hist_payback"],
            {**hist_units, **dict.fromkeys(("bin_low", "bin_high", "bin_mid"), months)},
        ),
    }
    s_curves = {
        "npv_usd": _with_units(mc["s_npv"], {"value": usd, "share": "share"}),
        "payback_months": _with_units(mc["s_payback"], {"value": months, "share": "share"}),
    }
    raw_samples = mc["run"].inputs
    units = samples_units(raw_samples.columns)
    kept = _with_units(raw_samples, units)
    kept.index.name = "sample"
    return {
        "statistics": stats,
        "value_of_information": voi,
        "cumulative_cash_fan": fan,
        "payback_by_month": by_month,
        "convergence": conv,
        "histograms": histograms,
        "s_curves": s_curves,
        "samples": kept,
    }


def samples_units(columns: Iterable[str]) -> dict[str, str | None]:
    """The unit of each column of a samples CSV (dotted keys, then the outputs)."""
    return {
        c: output_unit(c) if c in OUTPUT_NAMES else DIAGNOSTIC_UNITS.get(c) or key_unit(c)
        for c in columns
    }


def sobol_indices(
    a: Assumptions,
    n: int = SOBOL_SAMPLES,
    seed: int = SEED,
    metric: str = "npv",
    workers: int = 1,
) -> pd.DataFrame:
    """Sobol first-order and total indices of every key of sensitivity.csv, with 95 %
    bootstrap intervals, as ``econ sensitivity sobol`` (docs/model.md, section 7).

    Parameters
    ----------
    n : the base sample size, a power of two (n x (d + 2) evaluations, d the keys read).
    seed : the seed of the scrambled Sobol sequence and of the bootstrap.
    metric : "npv" or "payback" (no payback counts as the horizon).
    workers : processes evaluating the samples.

    Columns: output, key, S1, S1_low, S1_high, ST, ST_low, ST_high (shares of the
    output's variance, unit "-"), note; largest total index first (the key column was named
    ``variable`` before version 4). A key the payback model
    does not read has indices of exactly 0 and says so in note.
    """
    _check_assumptions(a, "sobol_indices")
    n = _whole("sobol_indices: n", n, 1, MAX_SOBOL_SAMPLES)
    seed = _whole("sobol_indices: seed", seed, 0, MAX_SEED)
    workers = _whole("sobol_indices: workers", workers, 1, MAX_WORKERS)
    from econ.sensitivity import run

    if metric not in ("npv", "payback"):
        raise AssumptionError(f"sobol_indices: metric {metric!r}; expected 'npv' or 'payback'")
    why = sobol_size_error(n, len(run.varied(a)))
    if why:
        raise AssumptionError(f"sobol_indices: n={n}: {why}")
    return sobol_frame(run.sobol_indices(a, n, seed, metric, workers=workers))


def sobol_frame(engine: pd.DataFrame) -> pd.DataFrame:
    """The engine's Sobol indices with their units, the key column named ``key``."""
    return _with_units(engine.rename(columns=KEY_COLUMN), SOBOL_UNITS)


def breakeven_table(a: Assumptions, target: str = "npv") -> pd.DataFrame:
    """Goal seek (:func:`goal_seek`) of every key of sensitivity.csv, nearest break-even first.

    Columns: key, unit (of base, searched_low, searched_high and breakeven), base,
    searched_low, searched_high, breakeven (NaN where the range holds none),
    change_from_base (breakeven / base - 1) and message."""
    _check_assumptions(a, "breakeven_table")
    if target not in ("npv", "payback"):
        raise AssumptionError(f"breakeven_table: target {target!r}; expected 'npv' or 'payback'")
    from econ.sensitivity.breakeven import breakeven_table as table

    return breakeven_frame(table(a, target))


def breakeven_frame(engine: pd.DataFrame) -> pd.DataFrame:
    """The engine's break-even table with each row's unit (the key's)."""
    df = engine.copy()
    df.insert(df.columns.get_loc("key") + 1, "unit", df["key"].map(key_unit))
    df = _with_units(df, {"change_from_base": "share"})
    df.attrs["unit_columns"] = dict.fromkeys(
        ("base", "searched_low", "searched_high", "breakeven"), "unit"
    )
    return df
