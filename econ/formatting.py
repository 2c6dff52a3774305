"""One formatter for every figure, by its unit: what a number looks like wherever econ shows
it to a person (the command line's tables and prose, the summary, the workbook's text labels,
the Python API's display). Machine outputs (``--json``, ``--csv``, the API's values) are never
formatted.

The rules, one per kind of figure:

=========  ===============================================================================
kind       written as
=========  ===============================================================================
money      ``$8.32B``, ``$456.7M``, ``$12.3k``, ``$5.53``, ``-$3.2M``, ``$1.20T``: always
           with ``$``; two decimals in T and B, one in M and k, two below $1,000
share      ``12.3%``; under 1 % two significant digits (``0.042%``); ``<0.001%``
rate       a share a period (``1/yr``, ``1/month``): ``10.0%``; prose adds "a year"
months     ``14.2``
payback    ``14.2``, ``never <0`` (cumulative cash never below zero), ``none`` (no payback
           within the horizon)
count      tokens, users, chips: ``900,000`` below a million, then ``1.50M``, ``23.29B``,
           ``2.50T``
speed      tokens/s per user: ``750``, ``12.5``
mw         ``432.3``
ratio      ``1.5x``, ``0.168x``
index      ``1.97`` (the profitability index)
flag       ``yes`` / ``no``
number     four significant digits with separators (``0.000123``, ``1,234``), large ones as
           counts; never scientific notation
=========  ===============================================================================

A missing figure (None, NaN, an infinity) is ``-``. The kind of a figure comes from its unit
where one is written (an assumption's rule, ``Results.units()``, ``df.attrs["units"]``), else
from its name's ending (``_usd`` money, ``_share`` a share, ``_months`` months, ...), so a new
field is formatted without being listed here.

The API's frames display formatted with :func:`style` (a pandas Styler) or :func:`formatted`
(a frame of text); both leave the frame's values as they are.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping

# ---------------------------------------------------------------------------
# the kind of a figure, from its name or its unit

# (name ending or part, kind), the first that matches decides; "in:" matches anywhere
SUFFIX_KINDS: tuple[tuple[str, str], ...] = (
    ("payback_months", "payback"),
    ("_usd_month", "money"),
    ("_usd", "money"),
    ("usd_per_", "money"),
    ("_share", "share"),
    ("share_of_evpi", "share"),
    ("_months", "months"),
    ("in:tokens_per_s_per_mw", "count"),
    ("in:tokens_per_s", "speed"),
    ("_annual", "rate"),
    ("_monthly", "rate"),
    ("utilization", "share"),
    ("adoption", "share"),
    ("_mw", "mw"),
    ("_per_mw", "count"),
    ("in:tokens", "count"),
    ("in:subscribers", "count"),
    ("index", "index"),
)

# a unit as docs/model.md and the rules write it -> kind (USD... and share... by prefix)
UNIT_KINDS: tuple[tuple[str, str], ...] = (
    ("USD", "money"),
    ("share", "share"),
    ("months", "months"),
    ("1/yr", "rate"),
    ("1/month", "rate"),
    ("tokens/s/user", "speed"),
    ("tokens/s", "speed"),
    ("tokens/s/MW", "count"),
    ("tokens/month", "count"),
    ("tokens", "count"),
    ("users", "count"),
    ("users/MW", "count"),
    ("samples", "count"),
    ("x", "ratio"),
    ("MW", "mw"),
    ("0/1", "flag"),
)


def name_kind(name: str) -> str | None:
    """The kind of a figure from its name (the last part of a dotted key), or None."""
    n = name.rsplit(".", 1)[-1].lower()
    for pattern, kind in SUFFIX_KINDS:
        if pattern.startswith("in:"):
            if pattern[3:] in n:
                return kind
        elif n.endswith(pattern):
            return kind
    return None


def unit_kind(unit: str | None) -> str | None:
    """The kind of a unit as written (``USD``, ``USD/month``, ``share of revenue``, ``1/yr``)."""
    if not unit:
        return None
    for prefix, kind in UNIT_KINDS:
        if unit == prefix or (prefix in ("USD", "share") and unit.startswith(prefix)):
            return kind
    return None


def kind_of(name: str, unit: str | None = None) -> str:
    """The kind of a figure: a payback by its name, else from its unit where one is given and
    known, else from its name, else a plain number."""
    by_name = name_kind(name)
    if by_name == "payback":
        return by_name
    return unit_kind(unit) or by_name or "number"


def key_kind(key: str) -> str:
    """The kind of an assumption key, from its rule's unit, else its name; a whole-number key
    is a plain number (30, not 30.0), a 0/1 key a flag."""
    from econ.assumptions import rule_for

    rule = rule_for(key)
    if rule is not None and rule.kind == "integer":
        return "flag" if (rule.low, rule.high) == (0, 1) else "number"
    return kind_of(key, rule.unit if rule is not None else None)


# ---------------------------------------------------------------------------
# one figure as text

MISSING = "-"
SCALES = (("T", 1e12), ("B", 1e9), ("M", 1e6), ("k", 1e3))


def _finite(x) -> bool:
    try:
        return x is not None and not isinstance(x, str) and math.isfinite(float(x))
    except (TypeError, ValueError):
        return False


def sig(x: float, digits: int = 4) -> str:
    """``x`` to ``digits`` significant digits, written plainly (0.000123, never 1.23e-04)."""
    if x == 0 or not math.isfinite(x):
        return "0" if x == 0 else MISSING
    places = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    text = f"{x:,.{min(places, 15)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def money(x) -> str:
    """$1.20T, $8.32B, $456.7M, $12.3k, $5.53; '-' where there is no number."""
    if not _finite(x):
        return MISSING
    x = float(x)
    if x == 0:
        return "$0"
    sign, a = ("-" if x < 0 else ""), abs(x)
    for suffix, div in SCALES:
        places = 2 if suffix in ("T", "B") else 1
        if round(a / div, places) >= 1:
            return f"{sign}${a / div:,.{places}f}{suffix}"
    return f"{sign}${a:,.2f}"


def count(x) -> str:
    """A count (tokens, users, chips): 1,234 below a million, else 1.50M, 4.56B, 7.89T."""
    if not _finite(x):
        return MISSING
    x = float(x)
    a = abs(x)
    for suffix, div in SCALES:
        if div >= 1e6 and round(a / div, 2) >= 1:
            return f"{x / div:,.2f}{suffix}"
    if a >= 100 or x == round(x):
        return f"{x:,.0f}"
    return sig(x, 4)


compact = count  # the name of version 3


def number(x) -> str:
    """A plain number: 4 significant digits, separators from 1,000; large ones as counts."""
    if not _finite(x):
        return MISSING
    x = float(x)
    a = abs(x)
    if a >= 1e6:
        return count(x)
    if a >= 1000 or (x == round(x) and a >= 1):
        return f"{x:,.0f}" if x == round(x) else f"{x:,.1f}"
    return sig(x, 4)


def share(x) -> str:
    """12.3%; shares under 1% keep two significant digits (0.042%)."""
    if not _finite(x):
        return MISSING
    p = 100 * float(x)
    if p != 0 and abs(p) < 0.001:
        return "<0.001%" if p > 0 else ">-0.001%"
    if p != 0 and abs(p) < 1:
        return f"{sig(p, 2)}%"
    return f"{p:,.1f}%"


def rate(x) -> str:
    """A rate per period as a percentage: 12.3% (the words say which period)."""
    return share(x)


def months(x) -> str:
    """A number of months to a tenth: 14.2."""
    return f"{float(x):,.1f}" if _finite(x) else MISSING


def payback(x) -> str:
    """A payback month: 14.2; 'never <0' where cumulative cash never goes below zero (month 0);
    'none' where it does not pay back within the horizon (NaN, None)."""
    if not _finite(x):
        return "none"
    return "never <0" if float(x) == 0 else months(x)


def speed(x) -> str:
    """tokens/s: 1,000 or 12.5."""
    if not _finite(x):
        return MISSING
    x = float(x)
    return f"{x:,.0f}" if abs(x) >= 100 else sig(x, 3)


def ratio(x) -> str:
    return f"{sig(float(x), 3)}x" if _finite(x) else MISSING


def mw(x) -> str:
    return f"{float(x):,.1f}" if _finite(x) else MISSING


def index(x) -> str:
    """An index or a ratio of two amounts to two decimals: 1.05."""
    return f"{float(x):,.2f}" if _finite(x) else MISSING


def flag(x) -> str:
    return ("yes" if float(x) else "no") if _finite(x) else MISSING


FORMATS: dict[str, Callable[[object], str]] = {
    "money": money,
    "share": share,
    "months": months,
    "payback": payback,
    "speed": speed,
    "rate": rate,
    "ratio": ratio,
    "mw": mw,
    "count": count,
    "flag": flag,
    "index": index,
    "number": number,
}


def fmt(x, kind: str) -> str:
    """One figure as text, by kind; text stays text, booleans read yes/no."""
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, str):
        return x
    if x is None:
        return "none" if kind == "payback" else MISSING
    return FORMATS.get(kind, number)(x)


def by_name(x, name: str, unit: str | None = None) -> str:
    """One figure as text, its kind from its name or unit (``npv_usd`` -> $8.32B)."""
    return fmt(x, kind_of(name, unit))


def by_unit(x, unit: str | None) -> str:
    """One figure as text, its kind from its unit as written (``USD``, ``share``, ``1/yr``)."""
    return fmt(x, unit_kind(unit) or "number")


def key_value(key: str, x) -> str:
    """A value of an assumption key, in its rule's unit (contract.value_usd -> $10.00B)."""
    return fmt(x, key_kind(key))


# the words after a number, by unit, where its format does not say it
UNIT_WORDS = {
    "months": "months",
    "MW": "MW",
    "tokens/s/user": "tokens/s",
    "tokens/s": "tokens/s",
    "tokens/s/MW": "tokens/s per MW",
    "tokens/month": "tokens a month",
    "users": "users",
    "1/yr": "a year",
    "1/month": "a month",
}


def quantity(x, unit: str | None, name: str = "") -> str:
    """A figure with its unit in words, for prose: $10.00B, $120.00 per 1M tokens, 15.0%,
    10.0% a year, 24.0 months, 432.3 MW, 750 tokens/s, 500.00B tokens a month."""
    text = fmt(x, unit_kind(unit) or name_kind(name) or "number")
    if not unit or not _finite(x) or unit in ("-", "0/1") or unit.startswith("share"):
        return text
    if unit.startswith("USD"):
        tail = unit[3:].strip()
        if tail.startswith("/"):
            tail = "per " + tail[1:].strip()
        return f"{text} {tail}" if tail else text
    if unit == "x":
        return text
    return f"{text} {UNIT_WORDS.get(unit, unit)}"


def key_quantity(key: str, x) -> str:
    """A value of an assumption key with its unit in words (contract.mw -> 432.3 MW)."""
    from econ.assumptions import rule_for

    rule = rule_for(key)
    return quantity(x, rule.unit if rule is not None else None, key)


_SCIENTIFIC = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?[eE][+-]?\d+(?![\w.])")


def plain_numbers(text: str) -> str:
    """A text with its numbers in scientific notation written plainly (6.71e+11 -> 671.00B)."""
    return _SCIENTIFIC.sub(lambda m: number(float(m.group(0))), text)


# ---------------------------------------------------------------------------
# the API's frames, displayed by unit


def _cell_kind(column: str, unit: str | None) -> str:
    if unit is None and "." in column:  # a dotted key: its rule's unit
        return key_kind(column)
    return kind_of(column, unit)


def _formatters(df) -> dict:
    """Column -> a function of one value, from ``df.attrs["units"]`` and the names."""
    units: Mapping[str, str | None] = df.attrs.get("units", {}) or {}
    by_row = df.attrs.get("unit_columns", {}) or {}
    out = {}
    for c in df.columns:
        if c in by_row or df[c].dtype.kind not in "fiub":
            continue
        kind = _cell_kind(str(c), units.get(c))
        out[c] = lambda x, kind=kind: fmt(x, kind)
    return out


def formatted(df):
    """``df`` as a frame of text, each figure formatted by its unit (``df.attrs["units"]``,
    the column giving each row's unit in ``df.attrs["unit_columns"]``, else the name): for a
    plain console, ``print(formatted(df))``. The index is kept; ``df`` is unchanged."""
    out = df.copy()
    for c, f in _formatters(df).items():
        out[c] = [f(x) for x in df[c]]
    for c, unit_col in (df.attrs.get("unit_columns", {}) or {}).items():
        if c in df.columns and unit_col in df.columns:
            out[c] = [_row_figure(x, u, str(c)) for x, u in zip(df[c], df[unit_col], strict=True)]
    return out


def _row_figure(x, unit, column: str) -> str:
    if isinstance(x, str):
        return x
    return fmt(
        x, unit_kind(unit if isinstance(unit, str) else None) or name_kind(column) or "number"
    )


def style(df):
    """A pandas Styler of ``df`` that shows each figure formatted by its unit ($8.32B, 12.3%,
    1.50M) while the frame's values stay as they are: in a notebook,
    ``econ.style(mc.cumulative_cash_fan)`` or ``df.econ.style()``. Needs jinja2 (every
    Jupyter installation has it); :func:`formatted` does not."""
    styler = df.style.format(_formatters(df), na_rep=MISSING)
    for c, unit_col in (df.attrs.get("unit_columns", {}) or {}).items():
        if c not in df.columns or unit_col not in df.columns:
            continue
        for u in df[unit_col].drop_duplicates():
            rows = (df[unit_col] == u) if u is not None else df[unit_col].isna()
            styler = styler.format(
                lambda x, u=u, c=c: _row_figure(x, u, str(c)),
                subset=(rows.to_numpy(), [c]),
            )
    return styler
