"""Assumption CSVs -> one validated object addressable by dotted keys.

This module is the only reader of ``data/``. Every value of the model is a
dotted key (docs/model.md, section 2):

- a scalar of ``assumptions.csv``: ``contract.value_usd``
- a cell of a table CSV whose first column is the row id:
  ``<table>.<row id>.<column>``, e.g. ``tiers.ultrafast.usage_multiplier``.

Every failure raises :class:`AssumptionError`, whose message names the file,
the row as a spreadsheet numbers it (the header is row 1), the column, the
value found and what was expected.
"""

from __future__ import annotations

import csv
import difflib
import hashlib
import io
import math
import os
import re
import stat
import sys
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from pathlib import Path

SCALAR_FILE = "assumptions.csv"
TABLE_FILES = ("plans", "tiers", "hardware", "frontier", "models")
ANALYSIS_FILES = ("sensitivity.csv", "correlations.csv", "grids.csv")
DISTRIBUTIONS = ("uniform", "triangular", "pert", "normal", "lognormal")

# What the CSV reader accepts (README, "The assumption files"): larger inputs are
# refused with the file and row rather than read slowly or half.
MAX_FILE_BYTES = 16 * 2**20  # a data file of 16 MiB or more is not an assumption file
MAX_ROWS = 10_000  # data rows per file, after the header
MAX_CELL_CHARS = 100_000  # characters in one cell (a note longer than Excel's 32,767 is cut there)

# A scenario is a name, never a path: data/scenarios/NAME.csv
# the points of every grid of grids.csv together (points x points each): about 10 grids
# of 101 x 101, a few seconds of evaluation
MAX_GRID_POINTS = 100_000

SCENARIO_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
BASE_SCENARIO = "base"  # the name of the run without a scenario (and of its report folder)


class AssumptionError(ValueError):
    """Bad assumption data: the message says where and what was expected."""


# ---------------------------------------------------------------------------
# validation rules


@dataclass(frozen=True)
class Rule:
    """What one value must be: its unit, its kind and its range."""

    unit: str
    kind: str = "number"  # number | integer | id
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    optional: bool = False
    choices: tuple[str, ...] = ()  # an id that must be one of these
    # the high end is a sense limit (a unit typed wrong), not a meaningful range: sweeps
    # and goal seeks do not default to it
    sense: bool = False
    note: str = ""  # why the range is what it is, where the range alone would puzzle

    def expected(self) -> str:
        return self._expected() + (f" ({self.note})" if self.note else "")

    def _expected(self) -> str:
        if self.kind == "id":
            return f"one of {', '.join(self.choices)}" if self.choices else "an id"
        what = "a whole number" if self.kind == "integer" else "a number"
        lo, hi = self.low, self.high
        if lo is not None and hi is not None:
            left = "(" if self.low_open else "["
            right = ")" if self.high_open else "]"
            return f"{what} in {left}{_fmt(lo)}, {_fmt(hi)}{right}"
        if lo is not None:
            return f"{what} {'>' if self.low_open else '>='} {_fmt(lo)}"
        if hi is not None:
            return f"{what} {'<' if self.high_open else '<='} {_fmt(hi)}"
        return what

    def check(self, x: float) -> bool:
        if not math.isfinite(x):
            return False
        if self.kind == "integer" and x != int(x):
            return False
        if self.low is not None and (x < self.low or (self.low_open and x == self.low)):
            return False
        if self.high is not None and (x > self.high or (self.high_open and x == self.high)):
            return False
        return True


# The smallest magnitude of a value other than 0 that a file, --set or the API may give any
# key: no quantity of the model is meaningful below it (a value there is a unit typed wrong),
# and products and quotients of values at least this large stay within a double
# (docs/model.md, section 2.2). Values the analyses derive (a search, a scaled size) may go
# below it.
MIN_MAGNITUDE = 1e-30


def too_small(x: float) -> bool:
    """Whether ``x`` is not 0 and smaller in magnitude than MIN_MAGNITUDE."""
    return x != 0 and abs(x) < MIN_MAGNITUDE


def _fmt(x: float) -> str:
    return f"{x:g}"


def _pos(unit: str, high: float | None = None, optional: bool = False) -> Rule:
    return Rule(unit, low=0, high=high, low_open=True, optional=optional, sense=high is not None)


def _share(unit: str = "share", optional: bool = False) -> Rule:
    return Rule(unit, low=0, high=1, optional=optional)


def _nonneg(unit: str, high: float | None = None, optional: bool = False) -> Rule:
    return Rule(unit, low=0, high=high, sense=high is not None, optional=optional)


def _flag(unit: str = "0/1") -> Rule:
    return Rule(unit, "integer", low=0, high=1)


# The longest horizon a run may have: the workbook's timeline is this long, so that any
# horizon from the term up to it recomputes there (docs/model.md, section 1).
HORIZON_MAX_MONTHS = 120

# Upper bounds on sizes, prices and counts are sense limits, about 100x or more beyond any
# plausible value: they catch a value typed in the wrong unit (or 1e308) at load, and keep
# every result within a double (docs/model.md, section 2.2).
SCALARS: dict[str, Rule] = {
    "contract.value_usd": _pos("USD", 1e13),
    "contract.mw": _pos("MW", 1e5),
    "contract.term_months": Rule("months", "integer", low=1, high=HORIZON_MAX_MONTHS),
    "contract.ramp_months": Rule("months", low=0, high=HORIZON_MAX_MONTHS),
    # pay_as_delivered: rent follows the MW delivered; take_or_pay: the full value is owed,
    # flat over the term, whatever is delivered (docs/model.md, section V4.5)
    "contract.payment": Rule(
        "pay_as_delivered/take_or_pay", "id", choices=("pay_as_delivered", "take_or_pay")
    ),
    "contract.delivered_share": Rule("share", low=0, high=1, low_open=True),
    "contract.platform": Rule("id", "id"),
    "capacity.basis": Rule(
        "data/transferred/physics", "id", choices=("data", "transferred", "physics")
    ),
    "capacity.gpu_platform": Rule("id", "id"),
    "capacity.gpu_fleet_utilization": Rule("share", low=0, high=1, low_open=True),
    "capacity.subscriber_offer": Rule("auto/on/off", "id", choices=("auto", "on", "off")),
    "capacity.backfill_flexible_share": _share(),
    # the lab's own fleet plan (docs/model.md, section V4.2-V4.3): scenario axes, not sampled
    "capacity.movable_share": _share(),
    "capacity.internal_batch_tokens_per_month": _nonneg("output tokens/month", 1e18),
    "fleet.avoidable_share": _share(),
    "fleet.sublet_usd_per_gpu_hour": _nonneg("USD/GPU-hour", 1e4),
    "fleet.ops_utilization": Rule("share", low=0, high=1, low_open=True),
    "fleet.troughs": Rule("filled/idle", "id", choices=("filled", "idle")),
    # the free tier's use of the served model (scenario free_tier_served; section V4.2)
    "free.served": _flag(),
    "free.dau_per_mau": Rule("share", low=0, high=1),
    "free.queries_per_day": _nonneg("queries/day", 1e6),
    "free.flagship_queries_per_day": _nonneg("queries/day", 1e6),
    "free.alternative_cost_per_mtok_usd": _nonneg("USD per 1M output tokens", 1e4),
    "contract.tranche_mw": _pos("MW", 1e5, optional=True),
    "contract.tranche_months": Rule(
        "months", low=0, high=HORIZON_MAX_MONTHS, low_open=True, optional=True
    ),
    "finance.api_gross_margin": Rule("share", low=0, high=1, high_open=True),
    "horizon.months": Rule("months", "integer", low=1, high=HORIZON_MAX_MONTHS),
    "finance.discount_rate_annual": Rule("1/yr", low=-0.99, high=10),
    "finance.variable_cost_share": _share("share of revenue"),
    "finance.terminal_value": _flag(),
    "market.mau": _pos("users", 1e10),
    "market.mau_growth_monthly": Rule("1/month", low=-0.1, high=0.1),
    "market.plus_share_of_mau": _share(),
    "market.pro_subscribers_start": _nonneg("users", 1e10),
    # validated >= -conversion.pro_churn_monthly as well (docs/model.md, section 0.5)
    "market.pro_growth_monthly": Rule("1/month", low=-0.5, high=0.5),
    "usage.demand_sigma": Rule("-", low=0, high=5, low_open=True),
    "usage.speed_elasticity": Rule("-", low=0, high=3),
    "usage.token_efficiency_gain_annual": Rule("1/yr", low=0, high=1, high_open=True),
    "usage.peak_to_average": Rule("x", low=1, high=100),
    "usage.adoption_burn_elasticity": Rule("-", low=0, high=5),
    "usage.adoption_ref_multiplier": _pos("quota units per token", 1e6),
    "usage.output_tokens_per_query": _pos("tokens/query", 1e7),
    # the context each active stream holds, on every platform (docs/model.md, section V4.5)
    "usage.context_tokens": _pos("tokens", 1e8),
    # monthly probabilities: each at most 0.5 so that base + propensity and churn + extra
    # churn can never exceed 1 (docs/model.md, section 5.6)
    "conversion.capped_share_of_upgrades": _share(),
    "conversion.max_capped_propensity": Rule("1/month", low=0, high=0.5),
    "conversion.pro_price_elasticity": Rule("-", low=0, high=10),
    # V4.7: the share of upgrades that go to the lower Pro tier (plans.csv row pro_lower) and
    # the weight of cap hits caused by choosing the faster burn
    "conversion.lower_pro_share": _share(),
    "conversion.voluntary_cap_hit_weight": _share(),
    "usage.ultrafast_query_share": Rule("share", low=0, high=1, low_open=True),
    # V4.6: successors lower prices and costs over the term
    "market.price_decline_per_year": Rule("1/yr", low=0, high=1, high_open=True),
    "hardware.gpu_cost_decline_per_year": Rule("1/yr", low=0, high=1, high_open=True),
    "model.succession_months": _pos("months", HORIZON_MAX_MONTHS),
    # successors of another size (scenario successor_2x): the multiple of the served model's
    # parameters at the same active share
    "model.successor_params_multiple": Rule("x", low=0, high=16, low_open=True, sense=True),
    "model.predecessor_decline_per_month": Rule("1/month", low=0, high=1, high_open=True),
    "conversion.pro_churn_monthly": Rule("1/month", low=0, high=0.5),
    "conversion.extra_churn_after_term_monthly": Rule("1/month", low=0, high=0.5),
    "api.ultrafast_tokens_per_month": _nonneg("tokens/month", 1e18),
    "api.reference_price_per_mtok_usd": _pos("USD per 1M tokens", 1e4),
    "api.price_elasticity": Rule("-", low=0, high=5),
    "api.standard_tokens_per_month": _pos("output tokens/month", 1e18),
    "api.fast_tokens_per_month": _nonneg("output tokens/month", 1e18),
    "api.diversion_to_lab_tiers": Rule("share", low=0, high=1, low_open=True, high_open=True),
    "api.wtp_speed_doubling_usd_per_mtok": _nonneg("USD per 1M tokens", 1e4),
    "api.speed_nest_lambda": Rule("-", low=0, high=1, low_open=True),
    "api.ramp_months": Rule("months", low=0, high=HORIZON_MAX_MONTHS),
    "capacity.gpu_cost_per_mtok_usd": _nonneg("USD per 1M output tokens", 1e4, optional=True),
    "capacity.average_utilization": Rule("share", low=0, high=1, low_open=True),
    "agent.calls": Rule("calls", "integer", low=1, high=10_000, sense=True),
    "agent.output_tokens_per_call": _pos("tokens", 1e7),
    "agent.ttft_s": _nonneg("s", 3600),
    "agent.p99_multiplier": Rule("x median", low=1, high=100, sense=True),
    "facility.pue": Rule("-", low=1, high=5),
    "buy.facility_capex_usd_per_mw": _nonneg("USD/MW", 1e9),
    "buy.power_price_usd_per_kwh": _nonneg("USD/kWh", 10),
    "buy.maintenance_share_annual": _share("1/yr"),
    "buy.resale_share": _share(),
    "buy.facility_life_years": _pos("years", 100),
    "model.params": _pos("params", 1e15),
    "model.bytes_per_param": _pos("bytes", 8),
    "model.active_param_share": Rule("share", low=0, high=1, low_open=True),
    "model.kv_bytes_per_token": _pos("bytes/token", 1e9),
    "model.speculative_speedup": Rule("x", low=1, high=20),
    "model.layers": Rule("layers", "integer", low=1, high=10_000, sense=True),
    "model.d_model": _pos("-", 1e6),
    "model.prefill_tokens_per_output": _nonneg("tokens", 1e4),
}


@dataclass(frozen=True)
class Table:
    columns: dict[str, Rule]
    required_rows: tuple[str, ...] = ()
    # (row id, column) cells that must be filled although the column is optional
    required_cells: tuple[tuple[str, str], ...] = ()
    # the model gives these rows fixed roles: any other row is an error, not ignored
    closed: bool = False
    # rows the model knows that the data may leave out (a closed table accepts them too)
    optional_rows: tuple[str, ...] = ()
    # (row id, column, why) cells the model has no use for: they must stay blank
    unused_cells: tuple[tuple[str, str, str], ...] = ()


# The roles the model's equations give to plans and tiers (docs/model.md, section 2.2): the
# rows of plans.csv and tiers.csv are exactly these, in this order of speed for tiers.
PLAN_IDS = ("plus", "pro")
# plans the model knows but the data may leave out: the lower Pro tier (section V4.7)
OPTIONAL_PLAN_IDS = ("pro_lower",)
TIER_IDS = ("standard", "fast", "ultrafast")

TABLES: dict[str, Table] = {
    "plans": Table(
        {
            "price_usd_month": _pos("USD/month", 1e5),
            "price_ref_usd_month": _pos("USD/month", 1e5),
            "queries_per_day": _pos("queries/day", 1e6),
            "weekly_quota_queries": _pos("queries/week", 1e15),  # 1e14 or so: no cap
        },
        required_rows=PLAN_IDS,
        closed=True,
        optional_rows=OPTIONAL_PLAN_IDS,
    ),
    "tiers": Table(
        {
            "tokens_per_s": _pos("tokens/s/user", 1e5),
            "usage_multiplier": _pos("quota units per token", 1e6),
            "adoption": _share("share of eligible users", optional=True),
            "price_per_mtok_usd": _pos("USD per 1M tokens", 1e4, optional=True),
        },
        required_rows=TIER_IDS,
        required_cells=(
            ("fast", "adoption"),
            ("ultrafast", "adoption"),
            ("standard", "price_per_mtok_usd"),
            ("fast", "price_per_mtok_usd"),
            ("ultrafast", "price_per_mtok_usd"),
        ),
        closed=True,
        unused_cells=(
            (
                "standard",
                "adoption",
                "the standard tier takes the share the faster tiers leave "
                "(1 - tiers.fast.adoption - tiers.ultrafast.adoption)",
            ),
        ),
    ),
    "hardware": Table(
        {
            "memory_gb": _pos("GB", 1e6),
            "bandwidth_tb_s": _pos("TB/s", 1e6),
            "tflops": _pos("TFLOPS", 1e7),
            # dense 8-bit and 4-bit TFLOPS (blank: not published; docs/model.md, V4.4)
            "tflops_fp8": _pos("TFLOPS", 1e7, optional=True),
            "tflops_fp4": _pos("TFLOPS", 1e7, optional=True),
            "power_kw": _pos("kW", 1e4),
            "domain_chips": Rule("chips", "integer", low=1, high=1_000_000, sense=True),
            "hop_latency_us": _nonneg("us", 1e6),
            "layer_latency_us": _nonneg("us", 1e6),
            "link_gb_s": _pos("GB/s", 1e6, optional=True),
            "efficiency": Rule("share", low=0, high=1, low_open=True),
            "frontier_scale": _pos("x", 100),
            "price_usd": _pos("USD", 1e9),
            "life_years": _pos("years", 100),
            "rent_usd_per_hour": _pos("USD/hour", 1e6, optional=True),
        }
    ),
    "frontier": Table(
        {
            "platform": Rule("id", "id"),
            "tokens_per_s_per_user": _pos("tokens/s/user", 1e5),
            "tokens_per_s_per_mw": _pos("tokens/s/MW", 1e10),
            "model": Rule("id", "id", optional=True),
        },
    ),
    # the models that frontier points were measured on (docs/model.md, section 0.1)
    "models": Table(
        {
            "params": _pos("params", 1e15),
            "active_share": Rule("share", low=0, high=1, low_open=True),
            "bytes_per_param": _pos("bytes", 8),
            "layers": Rule("layers", "integer", low=1, high=10_000, sense=True),
            "d_model": _pos("-", 1e6),
            "kv_bytes_per_token": _pos("bytes/token", 1e9),
            "context_tokens": _pos("tokens", 1e8),
            "prefill_tokens_per_output": _nonneg("tokens", 1e4),
            "speculative_speedup": Rule("x", low=1, high=20),
        }
    ),
}

# Columns a table file may leave out entirely (every cell then blank).
OPTIONAL_COLUMNS = {"frontier": ("model",), "hardware": ("tflops_fp8", "tflops_fp4")}

# Keys of earlier versions and what replaced them (setting one is an error naming it): the
# version that retired each (RETIRED_IN; 3 where not listed) and its successor.
RETIRED_IN: dict[str, int] = {
    "capacity.backfill_tokens_per_month": 4,
    "capacity.flexible_value_share": 4,
    "contract.pay_as_delivered": 4,
    "model.context_tokens": 4,
}
RETIRED: dict[str, str] = {
    "capacity.backfill_tokens_per_month": "capacity.movable_share (a share of the served "
    "model's own standard demand) and capacity.internal_batch_tokens_per_month (the lab's own "
    "batch work), docs/model.md section V4.2",
    "capacity.flexible_value_share": "fleet.avoidable_share, fleet.sublet_usd_per_gpu_hour and "
    "fleet.troughs (one value per freed GPU-hour), docs/model.md section V4.3",
    "contract.pay_as_delivered": "contract.payment (pay_as_delivered or take_or_pay) and "
    "contract.delivered_share, docs/model.md section V4.5",
    "model.context_tokens": "usage.context_tokens (one context for every platform), "
    "docs/model.md section V4.5",
    "api.cannibalised_share": "api.diversion_to_lab_tiers (the logit's diversion share, "
    "docs/model.md section 0.4)",
    "api.standard_price_per_mtok_usd": "tiers.standard.price_per_mtok_usd (the public list price)",
    "conversion.plus_to_pro_base_monthly": "conversion.capped_share_of_upgrades (the base rate "
    "is derived from the calibrated no-deal world, section 0.5)",
    "conversion.capped_upgrade_propensity": "conversion.capped_share_of_upgrades (the propensity "
    "is derived from the calibrated no-deal world, section 0.5)",
    "plans.plus.weekly_quota_tokens": "plans.plus.weekly_quota_queries x usage.output_tokens_per_query",
    "plans.pro.weekly_quota_tokens": "plans.pro.weekly_quota_queries x usage.output_tokens_per_query",
    "plans.plus.median_weekly_tokens": "plans.plus.queries_per_day x usage.output_tokens_per_query",
    "plans.pro.median_weekly_tokens": "plans.pro.queries_per_day x usage.output_tokens_per_query",
}

# Keys whose value fixes an array's shape or picks a table row: they take one
# value per run, never an array of scenarios. Frontier points' speeds are the
# knots of a curve and are fixed per run too (a curve varies through
# hardware.<p>.frontier_scale).
STRUCTURAL_KEYS = frozenset(
    {
        "horizon.months",
        "contract.platform",
        "capacity.basis",
        "contract.payment",
        "fleet.troughs",
    }
)


def is_structural(key: str, value: object = 0.0) -> bool:
    """Whether a key takes one value per run (an id, the horizon or a frontier point's speed)."""
    return (
        isinstance(value, str)
        or key in STRUCTURAL_KEYS
        or (key.startswith("frontier.") and key.endswith(".tokens_per_s_per_user"))
    )


def rule_for(key: str) -> Rule | None:
    """The validation rule of a dotted key, or None if the key is unknown in form."""
    if key in SCALARS:
        return SCALARS[key]
    parts = key.split(".")
    if len(parts) == 3 and parts[0] in TABLES:
        return TABLES[parts[0]].columns.get(parts[2])
    return None


# ---------------------------------------------------------------------------
# data classes


@dataclass(frozen=True)
class Entry:
    """Where a value came from."""

    file: str
    row: int
    column: str
    unit: str
    source: str
    note: str
    origin: str = "data"  # data | scenario NAME | --set
    where: str = ""  # for an override: the scenario file and row, or the --set KEY=VALUE


@dataclass(frozen=True)
class SensitivityRow:
    key: str
    distribution: str
    low: float
    high: float
    note: str
    row: int


@dataclass(frozen=True)
class Correlation:
    key_a: str
    key_b: str
    rho: float
    row: int


@dataclass(frozen=True)
class GridSpec:
    id: str
    key_x: str
    key_y: str
    points: int
    note: str
    row: int


@dataclass(frozen=True)
class CalibrationPoint:
    """A published per-user speed of a named model on a named system (calibration.csv)."""

    id: str
    platform: str
    model: str
    params: float
    active_share: float
    bytes_per_param: float
    layers: float
    chips_per_stage: float
    speculative_speedup: float
    tokens_per_s: float
    tolerance: float  # the predicted ceiling is within [measured / tolerance, measured x tolerance]
    fit: bool  # used to set the platform's figures (else shown for comparison)
    source: str
    note: str
    row: int


@dataclass(frozen=True)
class PublicSpeed:
    """A public per-user speed of a model the articles mention (speeds.csv)."""

    id: str
    model: str
    system: str
    platform: str  # a hardware.csv id, or "" where the system is not one of them
    tokens_per_s: float
    source: str
    note: str
    row: int


@dataclass(frozen=True)
class CostAnchor:
    """A disclosed day of production inference (anchors.csv): the output tokens a fleet of
    GPUs served in a day at a per-user speed, and what a GPU-hour cost (section V4.4)."""

    id: str
    platform: str  # the hardware.csv row that stands for the fleet's GPUs
    model: str  # the models.csv row of the model served
    tokens_per_s_per_user: float
    output_tokens_per_day: float
    gpu_hours_per_day: float
    usd_per_gpu_hour: float
    source: str
    note: str
    row: int


@dataclass(frozen=True)
class FileInfo:
    name: str
    path: Path
    rows: int
    sha256: str


class ReadOnlyDict(dict):
    """A dict that refuses every change: assumption values are read-only once validated
    (a change would bypass every rule). Copies (``dict(d)``) are ordinary dicts."""

    def _refuse(self, *args, **kwargs):
        raise TypeError(
            "assumption values are read-only once validated; change one with "
            "a.with_overrides([(key, text)]) or econ.load(set={key: value})"
        )

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self):
        return (ReadOnlyDict, (dict(self),))


@dataclass(frozen=True)
class Assumptions:
    """Every effective value, addressable by dotted key, with its provenance. ``values``,
    ``entries``, ``tables`` and ``blanks`` are read-only (:class:`ReadOnlyDict`)."""

    values: dict[str, float | str]
    entries: dict[str, Entry]
    tables: dict[str, tuple[str, ...]]  # table -> row ids in file order
    sensitivity: tuple[SensitivityRow, ...]
    correlations: tuple[Correlation, ...]
    grids: tuple[GridSpec, ...]
    files: tuple[FileInfo, ...]
    data_dir: Path
    bundled: bool = False
    scenario: str = "base"
    calibration: tuple[CalibrationPoint, ...] = ()
    speeds: tuple[PublicSpeed, ...] = ()
    anchors: tuple[CostAnchor, ...] = ()
    overrides: tuple[tuple[str, str, str], ...] = field(default=())  # (key, value, origin)
    # blank optional cells that --set or a scenario may fill: key -> where the cell is
    blanks: dict[str, Entry] = field(default_factory=dict)
    # the values as the data files give them, before --set and scenarios: the base that the
    # transferred basis freezes its measured envelopes at (docs/model.md, section 0.1)
    base: dict[str, float | str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("values", "entries", "tables", "blanks"):
            d = getattr(self, name)
            if type(d) is not ReadOnlyDict:
                object.__setattr__(self, name, ReadOnlyDict(d))

    # -- access -----------------------------------------------------------
    def __getitem__(self, key: str) -> float | str:
        try:
            return self.values[key]
        except KeyError:
            raise AssumptionError(unknown_key_message(key, self.values)) from None

    def __contains__(self, key: object) -> bool:
        return key in self.values

    def get(self, key: str, default=None):
        return self.values.get(key, default)

    def num(self, key: str) -> float:
        v = self[key]
        if isinstance(v, str):
            raise AssumptionError(f"{key} is the id {v!r}, not a number")
        return float(v)

    def rows(self, table: str) -> tuple[str, ...]:
        return self.tables[table]

    def platforms(self) -> tuple[str, ...]:
        return self.tables["hardware"]

    def frontier_ids(self, platform: str) -> list[str]:
        """Frontier row ids of a platform, sorted by per-user speed."""
        ids = [
            i for i in self.tables["frontier"] if self.values[f"frontier.{i}.platform"] == platform
        ]
        return sorted(ids, key=lambda i: self.values[f"frontier.{i}.tokens_per_s_per_user"])

    def tier_ids(self) -> tuple[str, ...]:
        return self.tables["tiers"]

    def frontier_points(self, platform: str) -> tuple[list[float], list[float]]:
        """A platform's frontier as (speeds [tokens/s/user], throughputs [tokens/s/MW]),
        sorted by speed; the throughputs are the file's, before hardware.<p>.frontier_scale."""
        ids = self.frontier_ids(platform)
        return (
            [float(self.values[f"frontier.{i}.tokens_per_s_per_user"]) for i in ids],
            [float(self.values[f"frontier.{i}.tokens_per_s_per_mw"]) for i in ids],
        )

    def frontier_range(self, platform: str) -> tuple[float, float]:
        """The slowest and fastest per-user speed of a platform's frontier points."""
        xs, _ = self.frontier_points(platform)
        return min(xs), max(xs)

    def covers(self, platform: str, speed: float) -> bool:
        """Whether a platform's data frontier covers a per-user speed (no extrapolation)."""
        from econ.compute.capacity import covers

        return bool(covers(self.frontier_points(platform)[0], speed))

    def with_overrides(
        self, pairs: Iterable[tuple[str, str]], origin: str = "--set"
    ) -> Assumptions:
        """A copy with KEY=VALUE text pairs applied and validated; a key given twice is
        refused, as in a scenario file."""
        pairs = list(pairs)
        first: dict[str, str] = {}
        for k, t in pairs:
            if k in first:
                raise AssumptionError(
                    f"{origin} {_ascii(k)}={shown(t)}: {_ascii(k)} is set twice ({origin} "
                    f"{_ascii(k)}={shown(first[k])} and {origin} {_ascii(k)}={shown(t)}); keep one"
                )
            first[k] = t
        return self._apply([(k, t, f"{origin} {_ascii(k)}={t}") for k, t in pairs], origin)

    def _apply(self, triples: list[tuple[str, str, str]], origin: str) -> Assumptions:
        values = dict(self.values)
        entries = dict(self.entries)
        applied = list(self.overrides)
        for key, text, where in triples:
            if key not in values and key not in self.blanks:
                raise AssumptionError(f"{where}: {_not_a_key(key, values)}")
            rule = rule_for(key)
            if rule is None:  # pragma: no cover - every loaded key has a rule
                raise AssumptionError(f"{where}: {key!r} has no validation rule")
            label = where if key in where else f"{where} ({key})"
            values[key] = parse_value(text, rule, label, column="value")
            entry = entries[key] if key in entries else self.blanks[key]
            entries[key] = replace(entry, origin=origin, where=where)
            applied.append((key, str(text).strip(), origin))
        new = replace(self, values=values, entries=entries, overrides=tuple(applied))
        _cross_check(new)
        return new

    def with_scenario(self, name: str) -> Assumptions:
        """A copy with ``data/scenarios/<name>.csv`` applied; ``name`` is a name, never a path."""
        check_scenario_name(name)
        folder = self.data_dir / "scenarios"
        path = folder / f"{name}.csv"
        if not path.exists():
            known = [p.stem for p in scenario_files(folder) if SCENARIO_NAME.fullmatch(p.stem)]
            raise AssumptionError(
                f"scenario {name!r}: no file {path}; known scenarios: {', '.join(known) or 'none'}"
            )
        header, rows = read_csv(path, required=("key", "value"))
        triples = [(r["key"].strip(), r["value"], f"{path} row {n}") for n, r in rows]
        new = self._apply(triples, origin=f"scenario {name}")  # each row's value first
        first: dict[str, int] = {}
        for n, r in rows:
            key = r["key"].strip()
            if key in first:
                raise AssumptionError(
                    f"{path} row {n}, column key: {key!r} is set twice in this scenario "
                    f"(rows {first[key]} and {n}); keep one"
                )
            first[key] = n
        return replace(new, scenario=name)

    def scenario_names(self) -> list[str]:
        """The scenarios of ``data/scenarios/`` (every ``*.csv`` there), sorted."""
        folder = self.data_dir / "scenarios"
        return [p.stem for p in scenario_files(folder)]

    def effective(self) -> dict[str, float | str]:
        """Every effective value as {dotted key: number or string}."""
        return dict(self.values)


def check_scenario_name(name: str) -> str:
    """``name`` if it can name a scenario (letters, digits, _ and -); else AssumptionError."""
    if not SCENARIO_NAME.fullmatch(name):
        raise AssumptionError(
            f'scenario "{shown(name)}": not a scenario name; expected 1 to 64 letters, digits, '
            "_ or - (the file data/scenarios/NAME.csv), not a path"
        )
    if name == BASE_SCENARIO:
        raise AssumptionError(
            f"scenario {name!r}: the name is reserved for the run without a scenario "
            "(its report folder is base/); rename the scenario file"
        )
    return name


def shown(text: object, limit: int = 80) -> str:
    """Text for a message: invisible characters escaped, long text cut.

    NUL, control characters, the byte-order mark, zero-width and non-breaking
    spaces print as nothing (or as a space); here they appear as Python escapes
    (``"7\\x0050"``), so that a message names what is really in the cell.
    """
    s = str(text)
    cut = len(s) > limit
    if cut:
        s = s[:limit]
    out = "".join(c if c == " " or c.isprintable() else _escape(c) for c in s)
    return out + (f"... ({len(str(text)):,} characters)" if cut else "")


def path_text(text: object) -> str:
    """A path (or any text) that files and terminals can take: a byte of a file name that is
    not UTF-8 (held by Python as a lone surrogate) written as ``\\xff``, as ``shown`` does."""
    s = str(text)
    try:
        return s.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate that is no escaped byte
        return s.encode("utf-8", "backslashreplace").decode("utf-8")


def _escape(c: str) -> str:
    o = ord(c)
    if 0xDC80 <= o <= 0xDCFF:  # a byte of a name that is not UTF-8 (surrogateescape)
        return f"\\x{o - 0xDC00:02x}"
    if c in "\t\n\r":
        return {"\t": "\\t", "\n": "\\n", "\r": "\\r"}[c]
    if o < 0x100:
        return f"\\x{o:02x}"
    if o < 0x10000:
        return f"\\u{o:04x}"
    return f"\\U{o:08x}"


def unknown_key_message(key: str, known: Iterable[str]) -> str:
    """The message for an unknown key, with the nearest known keys; a character outside ASCII
    is escaped and named, so that a look-alike letter (a Cyrillic a for a Latin a) shows."""
    if key in RETIRED:
        return f"{key!r} was retired in version {RETIRED_IN.get(key, 3)}; use {RETIRED[key]}"
    close = difflib.get_close_matches(key, list(known), n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(close)}?" if close else ""
    odd = sorted({c for c in key if not c.isascii()})
    if odd:
        names = ", ".join(f"{_ascii(c)} {unicodedata.name(c, 'unnamed')}" for c in odd[:3])
        hint += f" (the key has characters outside ASCII: {names})"
    return f"unknown key '{_ascii(key)}'{hint}"


def _ascii(text: str, limit: int = 80) -> str:
    """``text`` with every character outside printable ASCII escaped (``\u0430``)."""
    s = shown(text, limit)
    return "".join(c if c.isascii() else _escape(c) for c in s)


# ---------------------------------------------------------------------------
# reading CSVs

# Numbers as spreadsheets write them. A file uses one decimal mark: a point (0.066, with
# commas between thousands: 10,000,000) or a comma (0,066, with points between thousands:
# 10.000.000), as Excel and LibreOffice write the whole file in one locale. Each pattern
# reads a number under one mark; a grouped number starts with 1-9 (0,066 is never 66).
_PLAIN = {
    ".": re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?"),
    ",": re.compile(r"[+-]?(\d+,?\d*|,\d+)([eE][+-]?\d+)?"),
}
_GROUPED = {
    ".": re.compile(r"[+-]?[1-9]\d{0,2}(,\d{3})+(\.\d*)?"),  # 10,000,000.5
    ",": re.compile(r"[+-]?[1-9]\d{0,2}(\.\d{3})+(,\d*)?"),  # 10.000.000,5
}
# spaces between thousands (1 000 000): ordinary, no-break and narrow no-break spaces
_SPACES = str.maketrans("", "", " \u00a0\u202f")
_DELIMITERS = (",", ";", "\t")


class Cell(str):
    """A cell's text as written, with the decimal mark its file uses: "." or ",", or ""
    where no number in the file shows it (a number such as 1,500 is then a decimal: 1.5).
    ``strip`` keeps the mark."""

    decimal: str | None

    def __new__(cls, text: str = "", decimal: str | None = None) -> Cell:
        obj = super().__new__(cls, text)
        obj.decimal = decimal
        return obj

    def strip(self, chars: str | None = None) -> Cell:
        return Cell(str.strip(self, chars), self.decimal)


def _canonical(s: str, decimal: str) -> str | None:
    """``s`` (compact: no spaces, no %) read with ``decimal`` as its decimal mark, as the
    text Python reads (a point, no separators); None where it is no number so written."""
    if _PLAIN[decimal].fullmatch(s):
        return s.replace(",", ".")
    if _GROUPED[decimal].fullmatch(s):
        sep = "," if decimal == "." else "."
        return s.replace(sep, "").replace(",", ".")
    return None


def _compact(text: str) -> tuple[str, bool]:
    """The text of a number without spaces and without a trailing %, and whether it had one."""
    s = str(text).strip().translate(_SPACES)
    return (s[:-1], True) if s.endswith("%") else (s, False)


def _readings(text: str) -> tuple[str | None, str | None]:
    """The number ``text`` is with a decimal point and with a decimal comma (None: not one)."""
    s, _ = _compact(text)
    return _canonical(s, "."), _canonical(s, ",")


def _number(text: str, decimal: str | None) -> float | str:
    """``text`` as a float, or why it is not one (a phrase for a message).

    ``decimal`` is the decimal mark of the file: "." or ","; "" where the file's numbers do
    not show it: a lone mark followed by three digits (1,500 or 1.500) is then a decimal
    mark, never a thousands separator, since spreadsheets write numbers without them; None
    for text without a file (``--set``, the API): the single reading the text allows, and
    1,500 is refused as ambiguous.
    """
    s, pct = _compact(text)
    if decimal == "":
        decimal = "," if "," in s else "."
    if decimal is not None:
        canon = _canonical(s, decimal)
        if canon is None:
            return "is not a number"
    else:
        point, comma = _canonical(s, "."), _canonical(s, ",")
        if point is not None and comma is not None and Decimal(point) != Decimal(comma):
            # 1,500 or 1.500: a decimal mark or a thousands separator; nothing tells which
            sep = "," if "," in s else "."
            dec_value, group_value = (comma, point) if sep == "," else (point, comma)
            return (
                f"could be {_plain(dec_value, pct)} (a decimal {'comma' if sep == ',' else 'point'}) "
                f"or {_plain(group_value, pct)} ({'commas' if sep == ',' else 'points'} between "
                "thousands); write it without a thousands separator"
            )
        canon = point if point is not None else comma
        if canon is None:
            return "is not a number"
    exact = Decimal(canon) / 100 if pct else Decimal(canon)
    x = float(exact)
    if exact != 0 and math.isfinite(x) and abs(x) < sys.float_info.min:
        return (
            f"is too small to compute with (its magnitude is below {sys.float_info.min:.1e}, the "
            "smallest normal double); expected 0 or a larger magnitude"
        )
    return x


def _plain(canon: str, pct: bool) -> str:
    """A reading of a number for a message: 1.5, 1500 (x100 shown as a % again)."""
    d = Decimal(canon).normalize()
    return f"{d:f}%" if pct else f"{d:f}"


def _read_bytes(path: Path) -> bytes:
    """The bytes of a regular file, at most ``MAX_FILE_BYTES - 1`` of them: the size is what is
    read, not what the file claims. A FIFO, a device, a folder are refused without reading."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise AssumptionError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise AssumptionError(
                f"{path}: {_file_kind(mode)}, not a regular file; expected a CSV file"
            )
        os.set_blocking(fd, True)
        chunks, size = [], 0
        while size < MAX_FILE_BYTES:
            chunk = os.read(fd, min(2**20, MAX_FILE_BYTES - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise AssumptionError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if size >= MAX_FILE_BYTES:
        raise AssumptionError(
            f"{path}: the file has at least {MAX_FILE_BYTES:,} bytes; expected less than "
            f"{MAX_FILE_BYTES:,} (is this an assumption file?)"
        )
    return b"".join(chunks)


def _file_kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"


def _delimiter(text: str) -> str:
    """The separator of a CSV: the one of comma, semicolon and tab that splits its header
    row (the first line) into the most cells; a comma where none does."""
    first = re.split(r"\r\n|\r|\n", text, maxsplit=1)[0]
    counts = {}
    for d in _DELIMITERS:
        try:
            counts[d] = len(next(csv.reader([first], delimiter=d), []))
        except csv.Error:  # a NUL or a stray quote: the reader names the row later
            counts[d] = 0
    best = max(_DELIMITERS, key=lambda d: counts[d])  # the first of equals: comma
    return best if counts[best] > 1 else ","


def _decimal_mark(path: Path, header: list[str], rows: list[tuple[int, list[str]]]) -> str | None:
    """The decimal mark of a file: the one its numbers show ("." or ","), None where none
    shows it (whole numbers only, or numbers such as 1,500 that read either way). Numbers
    that show both marks are refused, naming one of each."""
    first: dict[str, tuple[int, int, str]] = {}
    for n, cells in rows:
        for j, c in enumerate(cells):
            point, comma = _readings(c)
            if (point is None) == (comma is None):
                continue  # not a number, or one either way (750, 1,500)
            mark = "." if point is not None else ","
            first.setdefault(mark, (n, j, c))
            if len(first) == 2:
                (n1, j1, c1), (n2, j2, c2) = first["."], first[","]

                def col(j: int) -> str:
                    return shown(header[j], 40) if j < len(header) else str(j + 1)

                raise AssumptionError(
                    f"{path}: numbers with a decimal point (row {n1}, column {col(j1)}: "
                    f'"{shown(c1.strip())}") and with a decimal comma (row {n2}, column '
                    f'{col(j2)}: "{shown(c2.strip())}"); a file uses one decimal mark: '
                    "save it again from the spreadsheet, or write every number one way"
                )
    return next(iter(first), None)


def read_csv(path: Path, required: Iterable[str] = ()) -> tuple[list[str], list[tuple[int, dict]]]:
    """Rows of a CSV as (spreadsheet row number, {column: text}).

    Accepts what Excel and LibreOffice write: UTF-8 with or without a byte-order mark, CRLF
    line ends, cells separated by commas, semicolons or tabs (the header row shows which),
    numbers with a decimal point or a decimal comma (the file's numbers show which; one mark
    a file). Each cell is a :class:`Cell`: its text as written, with the file's decimal mark.

    Refuses, naming the file and row, what it cannot read faithfully: anything but a regular
    file, a quote that is never closed, text after a closing quote, a file of
    ``MAX_FILE_BYTES`` or more, more than ``MAX_ROWS`` data rows, a cell of more than
    ``MAX_CELL_CHARS`` characters, numbers with both decimal marks.
    """
    path = Path(path)
    raw = _read_bytes(path)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise AssumptionError(
            f"{path} row {line}: the file is not UTF-8 text (byte {raw[exc.start]:#x}); "
            "in Excel save it as 'CSV UTF-8 (Comma delimited)'"
        ) from None
    delimiter = _delimiter(text)
    lines = _records(path, text, delimiter)
    if not any(any(c.strip() for c in cells) for cells in lines):
        raise AssumptionError(f"{path}: the file is empty; expected a header row")
    if not any(c.strip() for c in lines[0]):
        blank = next(n for n, cells in enumerate(lines) if any(c.strip() for c in cells))
        raise AssumptionError(
            f"{path} {f'rows 1 to {blank}' if blank > 1 else 'row 1'}: blank; expected the header row "
            f"(the column names) in row 1: delete the blank row{'s' if blank > 1 else ''} above it"
        )
    header = [c.strip() for c in lines[0]]
    while header and header[-1] == "":  # Excel pads rows to its used range with empty columns
        header.pop()
    missing = [c for c in required if c not in header]
    if missing:
        raise AssumptionError(
            f"{path} row 1: missing column(s) {', '.join(missing)}; "
            f"found {shown(', '.join(header), 200)}"
        )
    dupes = {c for c in header if header.count(c) > 1 and c}
    if dupes:
        raise AssumptionError(
            f"{path} row 1: duplicate column(s) {shown(', '.join(sorted(dupes)), 200)}"
        )
    records: list[tuple[int, list[str]]] = []
    for n, cells in enumerate(lines[1:], start=2):
        if not any(c.strip() for c in cells):
            continue  # blank line (Excel leaves them at the end)
        while len(cells) > len(header) and cells[-1].strip() == "" and len(lines[0]) >= len(cells):
            cells = cells[:-1]  # padding that the header row has too
        if len(cells) > len(header):
            raise AssumptionError(
                f"{path} row {n}: {len(cells)} cells but the header has {len(header)} columns"
                + (" (a decimal comma in a comma-separated file?)" if delimiter == "," else "")
            )
        records.append((n, cells + [""] * (len(header) - len(cells))))
    decimal = _decimal_mark(path, header, records) or ""
    rows = [
        (n, {h: Cell(c, decimal) for h, c in zip(header, cells, strict=False)})
        for n, cells in records
    ]
    return header, rows


def _records(path: Path, text: str, delimiter: str) -> list[list[str]]:
    """The CSV records of ``text``, read strictly; errors name the row (the header is row 1)."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    lines: list[list[str]] = []
    while True:
        n = len(lines) + 1  # the spreadsheet row of the record being read
        try:
            cells = next(reader)
        except StopIteration:
            return lines
        except csv.Error as exc:
            raise AssumptionError(_csv_error(path, n, str(exc), delimiter)) from None
        if n > MAX_ROWS + 1:
            raise AssumptionError(
                f"{path} row {n}: more than {MAX_ROWS:,} rows after the header; expected at most "
                f"{MAX_ROWS:,} (is this an assumption file?)"
            )
        for j, c in enumerate(cells):
            if len(c) > MAX_CELL_CHARS:
                col = lines[0][j].strip() if lines and j < len(lines[0]) else f"{j + 1}"
                raise AssumptionError(
                    f"{path} row {n}, column {shown(col, 40)}: the cell has {len(c):,} characters; "
                    f"expected at most {MAX_CELL_CHARS:,}"
                )
        lines.append(cells)


def _csv_error(path: Path, n: int, what: str, delimiter: str) -> str:
    """The csv module's complaint about row ``n`` as a message a spreadsheet user can act on."""
    if "unexpected end of data" in what:
        return (
            f"{path} row {n}: a quoted cell is never closed (the file ends inside quotes); "
            'close the quote, or write a quote inside a quoted cell as two ("")'
        )
    if "expected after" in what:
        return (
            f"{path} row {n}: text after the closing quote of a cell; put the whole cell in "
            f'quotes and write each quote inside it as two (""), or remove the quotes'
        )
    if "field larger than field limit" in what:
        return (
            f"{path} row {n}: a cell has more than {MAX_CELL_CHARS:,} characters; "
            f"expected at most {MAX_CELL_CHARS:,}"
        )
    return f"{path} row {n}: cannot read the CSV ({shown(what)})"


def parse_value(text: str, rule: Rule, where: str, column: str) -> float | str:
    """Parse and range-check one cell; ``where`` names the file and row. A :class:`Cell` is
    read with its file's decimal mark; plain text (``--set``, the API) with the one mark its
    number allows (``0,5`` and ``12,5%`` with a comma, ``10,000,000`` with a point)."""
    decimal = getattr(text, "decimal", None)
    s = str(text).strip()
    if rule.kind == "id":
        if rule.choices and s not in rule.choices:
            raise AssumptionError(
                f'{where}, column {column}: "{shown(s)}"; expected {rule.expected()}'
            )
        if not re.fullmatch(r"[A-Za-z0-9_]+", s):
            raise AssumptionError(
                f'{where}, column {column}: "{shown(s)}" is not an id (letters, digits and _)'
            )
        return s
    x = _number(s, decimal)
    if isinstance(x, str):
        raise AssumptionError(f'{where}, column {column}: "{shown(s)}" {x}')
    if too_small(x):
        raise AssumptionError(
            f'{where}, column {column}: "{shown(s)}" is too small; expected 0 or a magnitude of '
            f"at least {MIN_MAGNITUDE:g} (a smaller value is a unit typed wrong, and its products "
            "leave the range of a double)"
        )
    if not rule.check(x):
        raise AssumptionError(
            f"{where}, column {column}: {shown(s)} is out of range; "
            f"expected {rule.expected()} [{rule.unit}]"
        )
    return int(x) if rule.kind == "integer" else x


def parse_number(s: str, decimal: str | None = None) -> float | None:
    """``s`` as a number (``decimal``: the file's mark, else the single reading the text
    allows), or None where it is none."""
    x = _number(s, getattr(s, "decimal", decimal))
    return None if isinstance(x, str) else x


def _sha256(path: Path) -> str:
    return hashlib.sha256(_read_bytes(path)).hexdigest()


def scenario_files(folder: Path) -> list[Path]:
    """The scenario files of ``folder`` (data/scenarios): every ``*.csv`` but the files other
    programs leave beside them, Excel's owner file of an open workbook (``~$NAME.csv``) and
    macOS's resource forks (``._NAME.csv``) or any other hidden file; sorted."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.csv") if not p.name.startswith(("~$", ".")))


# ---------------------------------------------------------------------------
# loading


def bundled_data_dir() -> Path:
    """The default data shipped with the package (or the checkout's data/)."""
    here = Path(__file__).resolve().parent
    packaged = here / "_data"
    if (packaged / SCALAR_FILE).is_file():
        return packaged
    return here.parent / "data"


def load(data_dir: str | Path | None = None) -> Assumptions:
    """Load and validate every CSV of ``data_dir`` (default: the bundled data)."""
    bundled = data_dir is None
    d = Path(data_dir) if data_dir is not None else bundled_data_dir()
    if not (d / SCALAR_FILE).exists():
        raise AssumptionError(f"{d}: no {SCALAR_FILE} here; is this an econ data folder?")
    values: dict[str, float | str] = {}
    entries: dict[str, Entry] = {}
    files: list[FileInfo] = []
    blanks: dict[str, Entry] = {}
    seen_blank: set[str] = set()

    # scalars
    path = d / SCALAR_FILE
    _, rows = read_csv(path, required=("key", "value", "unit", "source", "note"))
    for n, r in rows:
        key = r["key"].strip()
        where = f"{path} row {n} ({key})"
        if key in values:
            raise AssumptionError(f"{path} row {n}, column key: {key!r} appears twice")
        rule = SCALARS.get(key)
        if rule is None:
            raise AssumptionError(
                f"{path} row {n}, column key: {unknown_key_message(key, SCALARS)}"
            )
        unit = r["unit"].strip()
        if unit != rule.unit:
            raise AssumptionError(f'{where}, column unit: "{unit}"; expected "{rule.unit}"')
        _require_source(r, where)
        entry = Entry(SCALAR_FILE, n, "value", unit, r["source"].strip(), r["note"].strip())
        if rule.optional and r["value"].strip() == "":
            blanks[key] = entry  # a blank optional value: --set or a scenario may fill it
            seen_blank.add(key)
            continue
        values[key] = parse_value(r["value"], rule, where, "value")
        entries[key] = entry
    missing = [k for k in SCALARS if k not in values and k not in seen_blank]
    if missing:
        raise AssumptionError(f"{path}: missing key(s) {', '.join(missing)}")
    files.append(FileInfo(SCALAR_FILE, path, len(rows), _sha256(path)))

    # tables
    tables: dict[str, tuple[str, ...]] = {}
    for name in TABLE_FILES:
        spec = TABLES[name]
        path = d / f"{name}.csv"
        if not path.exists():
            raise AssumptionError(f"{path}: file missing")
        may_lack = OPTIONAL_COLUMNS.get(name, ())
        needed = [c for c in spec.columns if c not in may_lack]
        header, rows = read_csv(path, required=("id", *needed, "source", "note"))
        extra = [c for c in header if c not in ("id", "source", "note", *spec.columns)]
        if extra:
            raise AssumptionError(
                f"{path} row 1: unknown column(s) {', '.join(extra)}; "
                f"expected id, {', '.join(spec.columns)}, source, note"
            )
        ids: list[str] = []
        for n, r in rows:
            rid = r["id"].strip()
            where = f"{path} row {n} ({rid})"
            if not re.fullmatch(r"[A-Za-z0-9_]+", rid):
                raise AssumptionError(f'{path} row {n}, column id: "{rid}" is not an id')
            if rid in ids:
                raise AssumptionError(f"{path} row {n}, column id: {rid!r} appears twice")
            if spec.closed and rid not in spec.required_rows + spec.optional_rows:
                raise AssumptionError(
                    f"{path} row {n}, column id: {rid!r} is not a row the model knows; "
                    f"expected the rows {', '.join(spec.required_rows)}"
                    + (
                        f" (and optionally {', '.join(spec.optional_rows)})"
                        if spec.optional_rows
                        else ""
                    )
                    + " (the model's equations give each a fixed role)"
                )
            _require_source(r, where)
            unused = {(u, c): why for u, c, why in spec.unused_cells}
            for col, rule in spec.columns.items():
                cell = r.get(col, "").strip()
                if (rid, col) in unused:
                    if cell != "":
                        raise AssumptionError(
                            f'{where}, column {col}: "{shown(cell)}"; leave it blank: '
                            f"{unused[rid, col]}"
                        )
                    continue
                if cell == "" and rule.optional and (rid, col) not in spec.required_cells:
                    blanks[f"{name}.{rid}.{col}"] = Entry(f"{name}.csv", n, col, rule.unit, "", "")
                    continue
                if cell == "":
                    raise AssumptionError(
                        f"{where}, column {col}: empty; expected {rule.expected()}"
                    )
                key = f"{name}.{rid}.{col}"
                values[key] = parse_value(cell, rule, where, col)
                entries[key] = Entry(
                    f"{name}.csv", n, col, rule.unit, r["source"].strip(), r["note"].strip()
                )
            ids.append(rid)
        for req in spec.required_rows:
            if req not in ids:
                raise AssumptionError(f"{path}: missing row {req!r}")
        tables[name] = tuple(ids)
        files.append(FileInfo(f"{name}.csv", path, len(rows), _sha256(path)))

    a = Assumptions(
        values=values,
        entries=entries,
        tables=tables,
        sensitivity=(),
        correlations=(),
        grids=(),
        files=tuple(files),
        data_dir=d,
        bundled=bundled,
        blanks=blanks,
        base=dict(values),
    )
    _cross_check(a)
    a = _load_analysis(a)
    return _load_reference(a)


def _require_source(r: Mapping[str, str], where: str) -> None:
    if not r.get("source", "").strip():
        raise AssumptionError(
            f"{where}, column source: empty; every value needs a source "
            "(write 'Guesstimate: <reasoning>' for a guess)"
        )


def _load_analysis(a: Assumptions) -> Assumptions:
    d = a.data_dir
    files = list(a.files)
    sens: list[SensitivityRow] = []
    path = d / "sensitivity.csv"
    if os.path.lexists(path):
        _, rows = read_csv(path, required=("key", "distribution", "low", "high", "note"))
        seen: dict[str, int] = {}
        for n, r in rows:
            key = r["key"].strip()
            where = f"{path} row {n} ({key})"
            _check_varying_key(a, key, f"{path} row {n}, column key")
            if key in seen:
                raise AssumptionError(
                    f"{path} row {n}, column key: {key!r} appears twice (rows {seen[key]} and {n}); "
                    "keep one range per key"
                )
            seen[key] = n
            dist = r["distribution"].strip().lower()
            if dist not in DISTRIBUTIONS:
                raise AssumptionError(
                    f'{where}, column distribution: "{dist}"; expected one of {", ".join(DISTRIBUTIONS)}'
                )
            lo, hi = (_cell_number(r[c], where, c) for c in ("low", "high"))
            written = {c: shown(r[c].strip()) for c in ("low", "high")}
            if not lo < hi:
                raise AssumptionError(
                    f"{where}, column high: {written['high']} must exceed low {written['low']}"
                )
            if dist == "lognormal" and lo <= 0:
                raise AssumptionError(
                    f"{where}, column low: {written['low']}; lognormal needs low > 0"
                )
            rule = rule_for(key)
            for c, x in (("low", lo), ("high", hi)):
                if rule is not None and (too_small(x) or not rule.check(x)):
                    raise AssumptionError(
                        f"{where}, column {c}: {written[c]} is outside the key's valid values; "
                        f"expected {rule.expected()}"
                    )
            sens.append(SensitivityRow(key, dist, lo, hi, r["note"].strip(), n))
        files.append(FileInfo("sensitivity.csv", path, len(rows), _sha256(path)))

    corr: list[Correlation] = []
    path = d / "correlations.csv"
    if os.path.lexists(path):
        _, rows = read_csv(path, required=("key_a", "key_b", "rank_correlation"))
        sens_keys = {s.key for s in sens}
        pairs: dict[frozenset[str], tuple[int, str, str]] = {}
        for n, r in rows:
            ka, kb = r["key_a"].strip(), r["key_b"].strip()
            for col, k in (("key_a", ka), ("key_b", kb)):
                if k not in sens_keys:
                    raise AssumptionError(
                        f"{path} row {n}, column {col}: {k!r} is not in sensitivity.csv; "
                        f"{unknown_key_message(k, sens_keys).split(';', 1)[-1].strip() or 'add it there first'}"
                    )
            if ka == kb:
                raise AssumptionError(f"{path} row {n}, column key_b: a key correlated with itself")
            pair = frozenset((ka, kb))
            if pair in pairs:
                m, fa, fb = pairs[pair]
                how = "" if (fa, fb) == (ka, kb) else f" (row {m} gives it as {fa} ~ {fb})"
                raise AssumptionError(
                    f"{path} row {n}: the pair {ka} ~ {kb} is given twice, in rows {m} and {n}"
                    f"{how}; give each pair once"
                )
            pairs[pair] = (n, ka, kb)
            rho = _cell_number(r["rank_correlation"], f"{path} row {n}", "rank_correlation")
            if not -1 <= rho <= 1:
                raise AssumptionError(
                    f"{path} row {n}, column rank_correlation: {shown(r['rank_correlation'].strip())}; "
                    "expected a number in [-1, 1]"
                )
            corr.append(Correlation(ka, kb, rho, n))
        files.append(FileInfo("correlations.csv", path, len(rows), _sha256(path)))

    grids: list[GridSpec] = []
    path = d / "grids.csv"
    if os.path.lexists(path):
        _, rows = read_csv(path, required=("id", "key_x", "key_y", "points", "note"))
        grid_rows: dict[str, int] = {}
        total = 0  # the points of the grids so far
        for n, r in rows:
            gid = r["id"].strip()
            if gid in grid_rows:
                raise AssumptionError(
                    f"{path} row {n}, column id: {gid!r} appears twice (rows {grid_rows[gid]} and "
                    f"{n}); give each grid its own id"
                )
            grid_rows[gid] = n
            for col in ("key_x", "key_y"):
                _check_varying_key(a, r[col].strip(), f"{path} row {n}, column {col}")
            pts = _cell_number(r["points"], f"{path} row {n}", "points")
            if pts != int(pts) or not 2 <= pts <= 101:
                raise AssumptionError(
                    f"{path} row {n}, column points: {shown(r['points'].strip())}; expected a whole "
                    "number in [2, 101]"
                )
            total += int(pts) ** 2
            if total > MAX_GRID_POINTS:
                raise AssumptionError(
                    f"{path} row {n}, column points: the grids up to this row hold {total:,} "
                    f"points together (points x points each); expected at most "
                    f"{MAX_GRID_POINTS:,}: fewer grids or fewer points"
                )
            grids.append(
                GridSpec(
                    r["id"].strip(),
                    r["key_x"].strip(),
                    r["key_y"].strip(),
                    int(pts),
                    r["note"].strip(),
                    n,
                )
            )
        files.append(FileInfo("grids.csv", path, len(rows), _sha256(path)))

    scen_dir = d / "scenarios"
    if scen_dir.is_dir():
        for p in scenario_files(scen_dir):
            _, srows = read_csv(p, required=("key", "value"))
            files.append(FileInfo(f"scenarios/{p.name}", p, len(srows), _sha256(p)))
    return replace(
        a, sensitivity=tuple(sens), correlations=tuple(corr), grids=tuple(grids), files=tuple(files)
    )


REFERENCE_FILES = ("calibration.csv", "speeds.csv", "anchors.csv")

# anchors.csv: a disclosed day of production inference, the GPU cost per token it implies
# (docs/model.md, section V4.4)
_ANCHOR_NUMBERS = {
    "tokens_per_s_per_user": _pos("tokens/s/user"),
    "output_tokens_per_day": _pos("tokens/day"),
    "gpu_hours_per_day": _pos("GPU-hours/day"),
    "usd_per_gpu_hour": _pos("USD/GPU-hour"),
}

_CALIBRATION_NUMBERS = {
    "params": _pos("params"),
    "active_share": Rule("share", low=0, high=1, low_open=True),
    "bytes_per_param": _pos("bytes"),
    "layers": Rule("layers", "integer", low=1),
    "chips_per_stage": Rule("chips", "integer", low=1),
    "speculative_speedup": Rule("x", low=1),
    "tokens_per_s": _pos("tokens/s/user"),
    "tolerance": Rule("x", low=1),
    "fit": _flag(),
}


def _load_reference(a: Assumptions) -> Assumptions:
    """The optional reference tables: calibration.csv (published speeds the physics is
    calibrated against) and speeds.csv (public model speeds the report marks)."""
    d = a.data_dir
    files = list(a.files)
    cal: list[CalibrationPoint] = []
    path = d / "calibration.csv"
    if os.path.lexists(path):
        cols = ("id", "platform", "model", *_CALIBRATION_NUMBERS, "source", "note")
        _, rows = read_csv(path, required=cols)
        seen: set[str] = set()
        for n, r in rows:
            rid = r["id"].strip()
            where = f"{path} row {n} ({rid})"
            _check_reference_row(a, rid, r["platform"].strip(), seen, path, n, required=True)
            _require_source(r, where)
            x = {c: parse_value(r[c], rule, where, c) for c, rule in _CALIBRATION_NUMBERS.items()}
            cal.append(
                CalibrationPoint(
                    rid,
                    r["platform"].strip(),
                    r["model"].strip(),
                    **{c: float(v) for c, v in x.items() if c != "fit"},
                    fit=bool(x["fit"]),
                    source=r["source"].strip(),
                    note=r["note"].strip(),
                    row=n,
                )
            )
        files.append(FileInfo("calibration.csv", path, len(rows), _sha256(path)))
    speeds: list[PublicSpeed] = []
    path = d / "speeds.csv"
    if os.path.lexists(path):
        cols = ("id", "model", "system", "platform", "tokens_per_s", "source", "note")
        _, rows = read_csv(path, required=cols)
        seen = set()
        for n, r in rows:
            rid = r["id"].strip()
            where = f"{path} row {n} ({rid})"
            plat = r["platform"].strip()
            _check_reference_row(a, rid, plat, seen, path, n, required=False)
            _require_source(r, where)
            speed = parse_value(r["tokens_per_s"], _pos("tokens/s/user"), where, "tokens_per_s")
            speeds.append(
                PublicSpeed(
                    rid,
                    r["model"].strip(),
                    r["system"].strip(),
                    plat,
                    float(speed),
                    r["source"].strip(),
                    r["note"].strip(),
                    n,
                )
            )
        files.append(FileInfo("speeds.csv", path, len(rows), _sha256(path)))
    anchors: list[CostAnchor] = []
    path = d / "anchors.csv"
    if os.path.lexists(path):
        cols = ("id", "platform", "model", *_ANCHOR_NUMBERS, "source", "note")
        _, rows = read_csv(path, required=cols)
        seen = set()
        for n, r in rows:
            rid = r["id"].strip()
            where = f"{path} row {n} ({rid})"
            _check_reference_row(a, rid, r["platform"].strip(), seen, path, n, required=True)
            _require_source(r, where)
            mid = r["model"].strip()
            if mid not in a.tables["models"]:
                raise AssumptionError(
                    f"{where}, column model: {mid!r} is not in models.csv; expected one of "
                    f"{', '.join(a.tables['models'])}"
                )
            x = {c: float(parse_value(r[c], rule, where, c)) for c, rule in _ANCHOR_NUMBERS.items()}
            anchors.append(
                CostAnchor(
                    rid, r["platform"].strip(), mid, **x, source=r["source"].strip(),
                    note=r["note"].strip(), row=n,
                )
            )  # fmt: skip
        files.append(FileInfo("anchors.csv", path, len(rows), _sha256(path)))
    return replace(
        a,
        calibration=tuple(cal),
        speeds=tuple(speeds),
        anchors=tuple(anchors),
        files=tuple(files),
    )


def _check_reference_row(
    a: Assumptions, rid: str, platform: str, seen: set[str], path: Path, n: int, required: bool
) -> None:
    """An id that is an id and appears once; a platform of hardware.csv (or blank if allowed)."""
    if not re.fullmatch(r"[A-Za-z0-9_]+", rid):
        raise AssumptionError(f'{path} row {n}, column id: "{rid}" is not an id')
    if rid in seen:
        raise AssumptionError(f"{path} row {n}, column id: {rid!r} appears twice")
    seen.add(rid)
    if (platform or required) and platform not in a.tables["hardware"]:
        raise AssumptionError(
            f"{path} row {n} ({rid}), column platform: {platform!r} is not in hardware.csv; "
            f"expected one of {', '.join(a.tables['hardware'])}" + ("" if required else " or blank")
        )


def _not_a_key(key: str, values: Mapping[str, object]) -> str:
    """Why ``key`` cannot be set: a table cell the model has no use for, or an unknown key."""
    parts = key.split(".")
    if len(parts) == 3 and parts[0] in TABLES:
        for rid, col, why in TABLES[parts[0]].unused_cells:
            if (rid, col) == (parts[1], parts[2]):
                return f"{key} is not an input: {why}"
    return unknown_key_message(key, values)


def _check_varying_key(a: Assumptions, key: str, where: str) -> None:
    """A key the sensitivity engine may vary: known, numeric, not structural, not a frontier point."""
    if key not in a.values:
        raise AssumptionError(f"{where}: {unknown_key_message(key, a.values)}")
    if is_structural(key, a.values[key]):
        raise AssumptionError(
            f"{where}: {key!r} takes one value per run (an id, the horizon or a frontier point's "
            "speed) and cannot be varied across scenarios"
        )
    if key.startswith("frontier."):
        plat = a.values[f"frontier.{key.split('.')[1]}.platform"]
        raise AssumptionError(
            f"{where}: {key!r} is one point of a curve; the sensitivity engine varies a platform's "
            f"whole curve through hardware.{plat}.frontier_scale (varying points one by one would "
            "make curves whose throughput rises with speed)"
        )


def _cell_number(text: str, where: str, column: str) -> float:
    """A cell that must be a number, read with its file's decimal mark."""
    x = _number(text, getattr(text, "decimal", None))
    if isinstance(x, str):
        raise AssumptionError(f'{where}, column {column}: "{shown(str(text).strip())}" {x}')
    return x


# ---------------------------------------------------------------------------
# consistency rules that span rows or files: one named function per rule, run in
# order after loading and after every override (docs/model.md, section 2)


def _loc(a: Assumptions, key: str) -> str:
    """Where a value was set: the file and row, or the scenario / --set that overrode it."""
    e = a.entries[key]
    if e.origin == "data":
        return f"{a.data_dir / e.file} row {e.row}, column {e.column} ({key})"
    return f"{e.where or e.origin}, column value ({key})"


def check_horizon_covers_term(a: Assumptions) -> None:
    """horizon.months >= contract.term_months."""
    v = a.values
    if v["horizon.months"] < v["contract.term_months"]:
        raise AssumptionError(
            f"{_loc(a, 'horizon.months')}: {v['horizon.months']} is shorter than the contract term "
            f"{v['contract.term_months']}; expected horizon.months >= contract.term_months"
        )


def check_contract_platform_known(a: Assumptions) -> None:
    """contract.platform is a row of hardware.csv."""
    plat = a.values["contract.platform"]
    if plat not in a.tables["hardware"]:
        raise AssumptionError(
            f"{_loc(a, 'contract.platform')}: {plat!r} is not in hardware.csv; "
            f"expected one of {', '.join(a.tables['hardware'])}"
        )


def check_frontier_platforms_known(a: Assumptions) -> None:
    """Every frontier point names a platform of hardware.csv."""
    for fid in a.tables["frontier"]:
        p = a.values[f"frontier.{fid}.platform"]
        if p not in a.tables["hardware"]:
            raise AssumptionError(
                f"{_loc(a, f'frontier.{fid}.platform')}: {p!r} is not in hardware.csv; "
                f"expected one of {', '.join(a.tables['hardware'])}"
            )


def check_frontier_points(a: Assumptions) -> None:
    """Every platform has a frontier point, and no two of its points share a speed."""
    for p in a.tables["hardware"]:
        ids = a.frontier_ids(p)
        if not ids:
            raise AssumptionError(
                f"{a.data_dir / 'frontier.csv'}: platform {p!r} has no frontier point; "
                "expected at least one row with this platform"
            )
        for lo, hi in zip(ids, ids[1:], strict=False):
            s = a.values[f"frontier.{lo}.tokens_per_s_per_user"]
            if a.values[f"frontier.{hi}.tokens_per_s_per_user"] == s:
                raise AssumptionError(
                    f"{_loc(a, f'frontier.{hi}.tokens_per_s_per_user')}: platform {p!r} has two "
                    f"points at {s:g} tokens/s/user ({lo} and {hi}); expected one point per speed"
                )


def check_frontier_monotone(a: Assumptions) -> None:
    """A platform's throughput per MW does not rise with per-user speed (equal is allowed)."""
    for p in a.tables["hardware"]:
        ids = a.frontier_ids(p)
        for lo, hi in zip(ids, ids[1:], strict=False):
            y_lo = a.values[f"frontier.{lo}.tokens_per_s_per_mw"]
            y_hi = a.values[f"frontier.{hi}.tokens_per_s_per_mw"]
            if y_hi > y_lo:
                s_lo = a.values[f"frontier.{lo}.tokens_per_s_per_user"]
                s_hi = a.values[f"frontier.{hi}.tokens_per_s_per_user"]
                raise AssumptionError(
                    f"{_loc(a, f'frontier.{hi}.tokens_per_s_per_mw')}: {y_hi:g} tokens/s/MW at "
                    f"{s_hi:g} tokens/s/user is more than {_loc(a, f'frontier.{lo}.tokens_per_s_per_mw')} "
                    f"gives at the slower {s_lo:g} ({y_lo:g}); expected throughput that does not "
                    "rise with speed"
                )


def check_contract_curve_covers_tiers(a: Assumptions) -> None:
    """With capacity.basis = data, the contract platform's curve covers the standard and
    ultrafast tier speeds (the ultrafast tier runs on it; spare capacity backfills standard)."""
    if a.values["capacity.basis"] != "data":
        return
    plat = a.values["contract.platform"]
    lo, hi = a.frontier_range(plat)
    for tier in ("ultrafast", "standard"):
        s = a.values[f"tiers.{tier}.tokens_per_s"]
        if not a.covers(plat, s):
            raise AssumptionError(
                f"{_loc(a, f'tiers.{tier}.tokens_per_s')}: {s:g} tokens/s is outside the frontier "
                f"of the contract platform {plat!r} ({lo:g} to {hi:g} tokens/s in frontier.csv); "
                "add a frontier point, change the speed, or set capacity.basis=physics"
            )


def check_adoption_sum(a: Assumptions) -> None:
    """Fast plus ultrafast adoption leaves a non-negative share on standard."""
    v = a.values
    if v["tiers.fast.adoption"] + v["tiers.ultrafast.adoption"] > 1:
        raise AssumptionError(
            f"{_loc(a, 'tiers.ultrafast.adoption')}: fast ({v['tiers.fast.adoption']:g}) plus "
            f"ultrafast ({v['tiers.ultrafast.adoption']:g}) adoption exceeds 1; expected a sum <= 1"
        )


def check_tier_speed_order(a: Assumptions) -> None:
    """Tier speeds rise standard <= fast <= ultrafast."""
    keys = [f"tiers.{t}.tokens_per_s" for t in TIER_IDS]
    order = [a.values[k] for k in keys]
    if not order[0] <= order[1] <= order[2]:
        changed = [k for k in keys if a.entries[k].origin != "data"]  # name what was set, if any
        raise AssumptionError(
            f"{_loc(a, (changed or keys[1:2])[-1])}: tier speeds must rise standard <= fast <= "
            f"ultrafast; found {order[0]:g}, {order[1]:g}, {order[2]:g}"
        )


def check_pro_start_within_users(a: Assumptions) -> None:
    """The starting stock of Pro subscribers is at most the monthly active users."""
    v = a.values
    if v["market.pro_subscribers_start"] > v["market.mau"]:
        raise AssumptionError(
            f"{_loc(a, 'market.pro_subscribers_start')}: {v['market.pro_subscribers_start']:,.0f} "
            f"Pro subscribers at the start exceed the {v['market.mau']:,.0f} monthly active users "
            "(market.mau); expected market.pro_subscribers_start <= market.mau"
        )


def check_gpu_platform_known(a: Assumptions) -> None:
    """capacity.gpu_platform is a row of hardware.csv; on the data basis its curve covers the
    standard and fast tiers (their GPU cost per token reads it), unless the cost is set."""
    plat = a.values["capacity.gpu_platform"]
    if plat not in a.tables["hardware"]:
        raise AssumptionError(
            f"{_loc(a, 'capacity.gpu_platform')}: {plat!r} is not in hardware.csv; "
            f"expected one of {', '.join(a.tables['hardware'])}"
        )
    if a.values["capacity.basis"] != "data" or "capacity.gpu_cost_per_mtok_usd" in a.values:
        return
    lo, hi = a.frontier_range(plat)
    for tier in ("standard", "fast"):
        s = a.values[f"tiers.{tier}.tokens_per_s"]
        if not a.covers(plat, s):
            raise AssumptionError(
                f"{_loc(a, f'tiers.{tier}.tokens_per_s')}: {s:g} tokens/s is outside the frontier "
                f"of the GPU platform {plat!r} ({lo:g} to {hi:g} tokens/s in frontier.csv), which "
                "prices the tier's GPU cost per token; add a frontier point, set "
                "capacity.gpu_cost_per_mtok_usd, or use another capacity.basis"
            )


def check_frontier_models_known(a: Assumptions) -> None:
    """A frontier point's model is a row of models.csv."""
    for fid in a.tables["frontier"]:
        m = a.values.get(f"frontier.{fid}.model")
        if m is not None and m not in a.tables["models"]:
            raise AssumptionError(
                f"{_loc(a, f'frontier.{fid}.model')}: {m!r} is not in models.csv; "
                f"expected one of {', '.join(a.tables['models']) or 'the ids there'}"
            )


def check_tranches(a: Assumptions) -> None:
    """contract.tranche_mw and contract.tranche_months are both blank or both set."""
    has = ["contract.tranche_mw" in a.values, "contract.tranche_months" in a.values]
    if has[0] != has[1]:
        given, other = (
            ("contract.tranche_mw", "contract.tranche_months")
            if has[0]
            else ("contract.tranche_months", "contract.tranche_mw")
        )
        raise AssumptionError(
            f"{_loc(a, given)}: set without {other}; expected both (delivery in tranches) or "
            "neither (the linear ramp of contract.ramp_months)"
        )


def check_tranches_deliver(a: Assumptions) -> None:
    """Tranches deliver the contracted MW within the term: tranche_mw x the tranches begun by
    month T >= contract.mw (section 0.3). Otherwise part of the contract never comes online
    while its full value is paid."""
    v = a.values
    if "contract.tranche_mw" not in v or "contract.tranche_months" not in v:
        return
    size, every = float(v["contract.tranche_mw"]), float(v["contract.tranche_months"])
    term, mw = float(v["contract.term_months"]), float(v["contract.mw"])
    begun = math.ceil(term / every - 1e-12)  # as the model counts them (tranche_online)
    if size * begun < mw:
        raise AssumptionError(
            f"{_loc(a, 'contract.tranche_mw')}: tranches of {size:,.4g} MW every {every:g} months "
            f"(contract.tranche_months) bring {size * begun:,.4g} MW online ({begun} tranche"
            f"{'s' * (begun != 1)}) by the end of the {term:g}-month term (contract.term_months), "
            f"short of the {mw:,.4g} MW contracted (contract.mw), whose full value "
            f"(contract.value_usd) is paid; expected contract.tranche_mw >= {mw / begun:,.4g} MW "
            "at this pace, tranches more often, or a smaller contract.mw"
        )


def check_pro_growth(a: Assumptions) -> None:
    """market.pro_growth_monthly >= -conversion.pro_churn_monthly: the no-deal world cannot
    need negative upgrades (docs/model.md, section 0.5)."""
    g, c = a.values["market.pro_growth_monthly"], a.values["conversion.pro_churn_monthly"]
    if g < -c:
        raise AssumptionError(
            f"{_loc(a, 'market.pro_growth_monthly')}: {g:g} is below minus the churn "
            f"({-c:g}); expected market.pro_growth_monthly >= -conversion.pro_churn_monthly "
            "(a steeper decline would need negative upgrades)"
        )


CROSS_CHECKS = (
    check_horizon_covers_term,
    check_gpu_platform_known,
    check_frontier_models_known,
    check_tranches,
    check_tranches_deliver,
    check_pro_growth,
    check_pro_start_within_users,
    check_contract_platform_known,
    check_frontier_platforms_known,
    check_frontier_points,
    check_frontier_monotone,
    check_contract_curve_covers_tiers,
    check_adoption_sum,
    check_tier_speed_order,
)


def _cross_check(a: Assumptions) -> None:
    """Every consistency rule, in order; the first that fails raises AssumptionError."""
    for rule in CROSS_CHECKS:
        rule(a)
