"""What the command line shows on a terminal: numbers formatted by their unit, tables that
fit the width, wrapped text, and progress bars on stderr. Rendering is rich's; this module
decides only what each figure looks like.

Units come from a figure's name, generically, so that a new field is formatted without
being listed here: a name ending in ``_usd`` is money, ``_share`` a share, ``_months`` a
number of months, a name with ``tokens_per_s`` a speed, ``_annual`` a rate a year
(:data:`SUFFIX_KINDS`); a unit written out (an assumption's rule, ``Results.units()``)
decides where the name does not (:func:`unit_kind`).

Machine outputs (``--json``, ``--csv``) never pass through here: they stay unformatted
and complete.
"""

from __future__ import annotations

import io
import math
import os
import re
import shutil
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import pandas as pd

# ---------------------------------------------------------------------------
# the kind of a figure, from its name or its unit

# (name ending or part, kind), the first that matches decides; "in:" matches anywhere
SUFFIX_KINDS: tuple[tuple[str, str], ...] = (
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
    ("index", "index"),
)

# a unit as docs/model.md and the rules write it -> kind
UNIT_KINDS: tuple[tuple[str, str], ...] = (
    ("USD", "money"),
    ("share", "share"),
    ("months", "months"),
    ("1/yr", "rate"),
    ("1/month", "rate"),
    ("tokens/s/user", "speed"),
    ("tokens/s", "speed"),
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
    """The kind of a figure: from its unit where one is given and known, else from its name,
    else a plain number."""
    return unit_kind(unit) or name_kind(name) or "number"


def key_kind(key: str) -> str:
    """The kind of an assumption key, from its rule's unit, else its name."""
    from econ.assumptions import rule_for

    rule = rule_for(key)
    return kind_of(key, rule.unit if rule is not None else None)


# ---------------------------------------------------------------------------
# one figure as text

MISSING = "-"
SCALES = (("T", 1e12), ("B", 1e9), ("M", 1e6), ("k", 1e3))


def _finite(x) -> bool:
    try:
        return x is not None and math.isfinite(float(x))
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
    """$1.23B, $456.7M, $12.3k, $0.53; '-' where there is no number."""
    if not _finite(x):
        return MISSING
    x = float(x)
    sign, a = ("-" if x < 0 else ""), abs(x)
    for suffix, div in SCALES[1:]:
        if round(a / div, 2 if suffix == "B" else 1) >= 1:
            return f"{sign}${a / div:,.{2 if suffix == 'B' else 1}f}{suffix}"
    return f"{sign}${a:,.2f}"


def compact(x) -> str:
    """A count: 1,234 below a million, else 1.23M, 4.56B, 7.89T."""
    if not _finite(x):
        return MISSING
    x = float(x)
    a = abs(x)
    for suffix, div in SCALES:
        if a >= div and div >= 1e6:
            return f"{x / div:,.2f}{suffix}"
    if a >= 100 or x == round(x):
        return f"{x:,.0f}"
    return sig(x, 4)


def number(x) -> str:
    """A plain number: 4 significant digits, separators from 1,000; large ones compact."""
    if not _finite(x):
        return MISSING
    x = float(x)
    a = abs(x)
    if a >= 1e6:
        return compact(x)
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


def months(x) -> str:
    """A month count to a tenth: 14.2; '-' where there is none."""
    return f"{float(x):,.1f}" if _finite(x) else MISSING


def speed(x) -> str:
    """tokens/s: 1,000 or 12.5."""
    if not _finite(x):
        return MISSING
    x = float(x)
    return f"{x:,.0f}" if abs(x) >= 100 else sig(x, 3)


def rate(x) -> str:
    """A rate per period as a percentage: 12.3%."""
    return share(x)


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
    "speed": speed,
    "rate": rate,
    "ratio": ratio,
    "mw": mw,
    "count": compact,
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
        return MISSING
    return FORMATS.get(kind, number)(x)


def fmt_named(x, name: str, unit: str | None = None) -> str:
    """One figure as text, its kind from its name or unit."""
    return fmt(x, kind_of(name, unit))


# ---------------------------------------------------------------------------
# money in prose: one unit per sentence

_MARK = re.compile(r"\x00([^\x00]+)\x00")
_SENTENCE = re.compile(r"(?<=[.;:!?])\s+(?=[A-Z(])|\n")


def usd_mark(x: float | None, group: str = "usd") -> str:
    """A money amount to be written in its sentence's unit (see :func:`one_unit`); ``group``
    keeps amounts of another kind (per MW-month, per system) apart."""
    if x is None or not _finite(x):
        return "n/a"
    return f"\x00{group}|{float(x)!r}\x00"


def _scale(values: Sequence[float]) -> tuple[str, float, int]:
    """The unit (suffix, divisor) and decimals every amount of a sentence is written in: the
    largest amount's, one step smaller where that loses the smallest amount's first two
    digits, and more decimals where even that does."""
    vals = [abs(v) for v in values if v != 0]
    if not vals:
        return "", 1.0, 0
    big, small = max(vals), min(vals)
    steps = [("B", 1e9, 2), ("M", 1e6, 1), ("k", 1e3, 1), ("", 1.0, 2)]
    i = next((j for j, (_, d, _) in enumerate(steps) if big >= d * 0.995), len(steps) - 1)
    suffix, div, dec = steps[i]

    def enough(div: float, dec: int) -> bool:
        return small / div >= 10 ** (1 - dec) - 1e-12

    if not enough(div, dec) and enough(div, dec + 1):
        dec += 1
    elif not enough(div, dec) and i + 1 < len(steps) and big / steps[i + 1][1] < 1e5:
        suffix, div, dec = steps[i + 1]
    while not enough(div, dec) and dec < 6:
        dec += 1
    return suffix, div, dec


def one_unit(text: str) -> str:
    """Write the marked amounts (:func:`usd_mark`) of each sentence in one unit per group:
    "$0.43B, of which $0.22B ...; over the term alone -$1.30B", never $M beside $B."""

    def sentence(s: str) -> str:
        marks = [m.group(1).split("|", 1) for m in _MARK.finditer(s)]
        scales = {
            g: _scale([float(v) for gg, v in marks if gg == g]) for g in {g for g, _ in marks}
        }

        def put(m: re.Match) -> str:
            g, v = m.group(1).split("|", 1)
            suffix, div, dec = scales[g]
            x = float(v)
            return f"{'-' if x < 0 else ''}${abs(x) / div:,.{dec}f}{suffix}"

        return _MARK.sub(put, s)

    out, last = [], 0
    for m in _SENTENCE.finditer(text):
        out.append(sentence(text[last : m.start()]) + m.group(0))
        last = m.end()
    out.append(sentence(text[last:]))
    return "".join(out)


# ---------------------------------------------------------------------------
# width, tables and text


def width() -> int:
    """The width to fit: the terminal's (or $COLUMNS), else 120 where output is not a terminal."""
    return max(20, shutil.get_terminal_size((120, 24)).columns)


def _console(w: int):
    from rich.console import Console

    return Console(
        file=io.StringIO(),
        width=w,
        color_system=None,
        force_terminal=False,
        highlight=False,
        markup=False,
        emoji=False,
        soft_wrap=False,
    )


@dataclass(frozen=True)
class Column:
    """A column of a printed table.

    key : the frame's column; header : what the table shows (wrapped on spaces);
    kind : how its figures are formatted ("text" wraps, any other kind never does);
    priority : 0 always shown; columns of higher priority are dropped first where the
    table does not fit; format : a function of one value to text, instead of the kind's.
    Figures already turned to text (a row about one key is in that key's unit) pass as
    they are.
    """

    key: str
    header: str | None = None
    kind: str | None = None
    priority: int = 0
    format: Callable[[object], str] | None = None

    def label(self) -> str:
        return self.header if self.header is not None else self.key.replace("_", " ")


_SCIENTIFIC = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?[eE][+-]?\d+(?![\w.])")


def plain_numbers(text: str) -> str:
    """A text with its numbers in scientific notation written plainly (6.71e+11 -> 671.00B)."""
    return _SCIENTIFIC.sub(lambda m: compact(float(m.group(0))), text)


def cells(df: pd.DataFrame, col: Column) -> list[str]:
    """The column's figures as text (numbers inside text written plainly too)."""
    if col.format is not None:
        return [col.format(x) for x in df[col.key]]
    kind = col.kind or kind_of(col.key)
    if kind == "text":
        return [plain_numbers(x) if isinstance(x, str) else fmt(x, "number") for x in df[col.key]]
    return [fmt(x, kind) for x in df[col.key]]


GAP = 3  # characters between two columns
TEXT_MIN = 16  # a text column is not squeezed below this (or its longest word, or its text)


def _least(col: Column, texts: list[str]) -> int:
    """The narrowest a column may be: its widest figure (a figure is never cut) and the
    longest word of its header; a text column TEXT_MIN, or its longest word where longer."""
    head = max((len(w) for w in col.label().split()), default=1)
    if col.kind == "text":
        longest = max((len(x) for x in texts), default=1)
        word = max((len(w) for x in texts for w in x.split()), default=1)
        return max(head, word, min(longest, TEXT_MIN))
    return max([head, 1] + [len(x) for x in texts])


def _natural(col: Column, texts: list[str]) -> int:
    """The width a column takes with room to spare: its widest cell and its header on a line."""
    return max([len(col.label()), 1] + [len(x) for x in texts])


def _widths(cols: Sequence[Column], texts: Mapping[str, list[str]], w: int) -> dict[str, int]:
    """Each column's width: its least, then the room left given to text columns first (they
    wrap worst), then to headers, up to each column's natural width."""
    width = {c.key: _least(c, texts[c.key]) for c in cols}
    spare = w - sum(width.values()) - GAP * (len(cols) - 1)
    for c in sorted(cols, key=lambda c: c.kind != "text"):
        grow = min(spare, _natural(c, texts[c.key]) - width[c.key])
        if grow > 0:
            width[c.key] += grow
            spare -= grow
    return width


def _build(
    title: str | None,
    cols: Sequence[Column],
    texts: Mapping[str, list[str]],
    n: int,
    width: Mapping[str, int],
):
    from rich import box
    from rich.table import Table

    t = Table(
        title=title,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1),
        header_style="",
        title_style="",
    )
    for c in cols:
        text = c.kind == "text"
        t.add_column(
            c.label(),
            justify="left" if text else "right",
            width=width[c.key],
            no_wrap=False,
            overflow="fold",
        )
    for i in range(n):
        t.add_row(*(texts[c.key][i] for c in cols))
    return t


def table(
    df: pd.DataFrame,
    columns: Sequence[Column],
    title: str | None = None,
    w: int | None = None,
) -> tuple[str, list[str]]:
    """The frame as a table that fits ``w`` characters (default :func:`width`): columns of
    the highest priority are dropped until it fits; where even the columns of priority 0 do
    not, each row is shown as lines of "header: value". A figure is never cut: a column is
    never narrower than its widest figure (text wraps at spaces, headers too).

    Returns (the text, the headers of the columns dropped)."""
    w = w or width()
    title = wrap(title, w) if title else title
    texts = {c.key: cells(df, c) for c in columns}
    shown = list(columns)
    dropped: list[str] = []
    while sum(_least(c, texts[c.key]) for c in shown) + GAP * (len(shown) - 1) > w:
        pri = max(c.priority for c in shown)
        if pri == 0:
            return _records(df, shown, texts, title, w), dropped
        victim = [c for c in shown if c.priority == pri][-1]
        shown.remove(victim)
        dropped.append(victim.label())
    console = _console(w)
    console.print(_build(None, shown, texts, len(df), _widths(shown, texts, w)))
    body = _rstrip(console.file.getvalue())
    return (f"{title}\n{body}" if title else body), dropped


def _records(df, cols, texts, title, w) -> str:
    """Each row as "header: value" lines, for a terminal too narrow for the table."""
    lines = [title] if title else []
    for i in range(len(df)):
        lines.append("")
        for c in cols:
            lines.append(wrap(f"{c.label()}: {texts[c.key][i]}", w, indent="  "))
    return "\n".join(lines).strip("\n")


def _rstrip(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.rstrip("\n").splitlines())


def wrap(text: str, w: int | None = None, indent: str = "") -> str:
    """Prose wrapped to ``w`` characters at spaces (a word longer than a line stays whole,
    never split); each line of ``text`` is a paragraph, continued with ``indent``."""
    w = w or width()
    return "\n".join(
        textwrap.fill(
            p,
            w,
            subsequent_indent=indent,
            break_long_words=False,
            break_on_hyphens=False,
        )
        if p.strip()
        else ""
        for p in text.split("\n")
    )


def dropped_note(dropped: Sequence[str], w: int | None = None) -> str | None:
    """The note naming the columns left out to fit the width (None where none was)."""
    if not dropped:
        return None
    return (
        f"econ: {len(dropped)} column(s) left out to fit {w or width()} characters: "
        f"{', '.join(dropped)} (widen the terminal, or --json for every figure)"
    )


# ---------------------------------------------------------------------------
# progress on stderr


def stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):
        return False


class Bars:
    """Progress bars on stderr, one per phase, shown only where stderr is a terminal.

    ``with Bars() as bars: run(progress=bars("Monte Carlo", "samples"))``: each call gives
    the ``progress(done, total)`` callback of a new bar (None where no bar is shown), with
    the rate and the time left. The bars vanish when the block ends.
    """

    def __init__(self, enabled: bool | None = None):
        self.enabled = stderr_is_terminal() if enabled is None else enabled
        self._progress = None
        self._tasks: list = []

    def __enter__(self) -> Bars:
        if self.enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[unit]}"),
                _RateColumn(),
                TimeElapsedColumn(),
                TextColumn("left"),
                TimeRemainingColumn(),
                console=Console(stderr=True, highlight=False, markup=False),
                transient=True,
                refresh_per_second=5,
                speed_estimate_period=10.0,
            )
            self._progress.start()
        return self

    def __exit__(self, *exc) -> bool:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
        return False

    def __call__(self, what: str, unit: str) -> Callable[[int, int], None] | None:
        if self._progress is None:
            return None
        p = self._progress
        for earlier in self._tasks:  # a new phase: the earlier ones are over
            p.update(earlier, visible=False)
        task = p.add_task(what, total=None, unit=unit)
        self._tasks.append(task)

        def update(done: int, total: int) -> None:
            p.update(task, completed=done, total=total)

        return update


def _rate_column_class():
    from rich.progress import ProgressColumn
    from rich.text import Text

    class RateColumn(ProgressColumn):
        """Units a second, as the bar's unit says."""

        def render(self, task) -> Text:
            s = task.finished_speed or task.speed
            if s is None:
                return Text("", style="progress.data.speed")
            return Text(f"{compact(s)}/s", style="progress.data.speed")

    return RateColumn


class _RateColumn:
    """Built on first use, so that importing this module does not import rich."""

    def __new__(cls):
        return _rate_column_class()()


@contextmanager
def bars(enabled: bool | None = None) -> Iterator[Bars]:
    with Bars(enabled) as b:
        yield b
