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
import os
import re
import shutil
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import pandas as pd

# one figure as text: econ.formatting, the one formatter (re-exported here for the callers
# that format through this module, the workbook's sheets among them)
from econ.formatting import (
    FORMATS,
    MISSING,
    SCALES,
    SUFFIX_KINDS,
    UNIT_KINDS,
    _finite,
    by_name,
    compact,
    count,
    flag,
    fmt,
    index,
    key_kind,
    key_quantity,
    key_value,
    kind_of,
    money,
    months,
    mw,
    name_kind,
    number,
    payback,
    plain_numbers,
    quantity,
    rate,
    ratio,
    share,
    sig,
    speed,
    unit_kind,
)

# what other modules import from here (the figures' formats are econ.formatting's)
__all__ = [
    "FORMATS",
    "MISSING",
    "SCALES",
    "SUFFIX_KINDS",
    "UNIT_KINDS",
    "Bars",
    "Column",
    "by_name",
    "bars",
    "cells",
    "compact",
    "count",
    "dropped_note",
    "flag",
    "fmt",
    "fmt_named",
    "index",
    "key_kind",
    "key_quantity",
    "key_value",
    "kind_of",
    "money",
    "months",
    "mw",
    "name_kind",
    "number",
    "one_unit",
    "payback",
    "plain_numbers",
    "quantity",
    "rate",
    "ratio",
    "share",
    "sig",
    "speed",
    "stderr_is_terminal",
    "table",
    "unit_kind",
    "usd_mark",
    "width",
    "wrap",
]

fmt_named = by_name  # the name of version 3

# ---------------------------------------------------------------------------
# money in prose


def usd_mark(x: float | None, group: str = "usd") -> str:
    """A money amount in prose: :func:`money` (the one rule, so that a figure reads the same in
    every sentence and every command); 'n/a' where there is none. ``group`` is ignored: it
    named the unit group of version 3's one-unit-per-sentence rule."""
    if x is None or not _finite(x):
        return "n/a"
    return money(x)


def one_unit(text: str) -> str:
    """``text`` as it is: every amount is written by :func:`money` already (version 3 scaled
    the amounts of a sentence to one unit, which wrote one figure two ways)."""
    return text


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
    kind : how its figures are formatted ("text" wraps at spaces, "key" (a dotted key) after
    its dots and underscores, any other kind never wraps);
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


def cells(df: pd.DataFrame, col: Column) -> list[str]:
    """The column's figures as text (numbers inside text written plainly too)."""
    if col.format is not None:
        return [col.format(x) for x in df[col.key]]
    kind = col.kind or kind_of(col.key)
    if kind in ("text", "key"):
        return [plain_numbers(x) if isinstance(x, str) else fmt(x, "number") for x in df[col.key]]
    return [fmt(x, kind) for x in df[col.key]]


GAP = 3  # characters between two columns
TEXT_MIN = 16  # a text column is not squeezed below this (or its longest word, or its text)
KEY_MIN = 18  # nor a column of dotted keys below this (or its longest part, or its key)
_KEY_BREAK = re.compile(r"(?<=[._])")  # a dotted key may wrap after a dot or an underscore


def _key_parts(text: str) -> list[str]:
    return [p for p in _KEY_BREAK.split(text) if p]


def _wrap_key(text: str, w: int) -> str:
    """A dotted key on lines of at most ``w`` characters, broken after its dots, else after
    its underscores (contract.\nvalue_usd); a part longer than a line stays whole."""
    lines: list[str] = []
    for part in re.split(r"(?<=\.)", text):
        if lines and len(lines[-1]) + len(part) <= w:
            lines[-1] += part
            continue
        if len(part) > w:  # a long part: on lines of its own, broken after its underscores
            lines.append("")
            for bit in _key_parts(part):
                if lines[-1] == "" or len(lines[-1]) + len(bit) <= w:
                    lines[-1] += bit
                else:
                    lines.append(bit)
            continue
        lines.append(part)
    return "\n".join(lines)


def _least(col: Column, texts: list[str]) -> int:
    """The narrowest a column may be: its widest figure (a figure is never cut) and the
    longest word of its header; a text column TEXT_MIN, or its longest word where longer; a
    column of keys KEY_MIN, or its longest part between dots and underscores."""
    head = max((len(w) for w in col.label().split()), default=1)
    longest = max((len(x) for x in texts), default=1)
    if col.kind == "text":
        word = max((len(w) for x in texts for w in x.split()), default=1)
        return max(head, word, min(longest, TEXT_MIN))
    if col.kind == "key":
        part = max((len(p) for x in texts for p in _key_parts(x)), default=1)
        return max(head, part, min(longest, KEY_MIN))
    return max([head, 1] + [len(x) for x in texts])


KEY_LINES = 2  # where the width allows, a key takes at most this many lines
TEXT_COMFORT = 36  # and a text column this many characters (or its text, where shorter)


def _comfortable(col: Column, texts: list[str]) -> int:
    """The width a column wants before the table drops a column for it: a column of keys
    wide enough that each key takes at most KEY_LINES lines, a text column TEXT_COMFORT
    characters; any other its least."""
    if col.kind == "text":
        return max(_least(col, texts), min(_natural(col, texts), TEXT_COMFORT))
    return _keys_comfortable(col, texts)


def _keys_comfortable(col: Column, texts: list[str]) -> int:
    """A column of keys wide enough that each key takes at most KEY_LINES lines; any other
    column its least."""
    least = _least(col, texts)
    if col.kind != "key":
        return least
    need = least
    for x in texts:
        while need < len(x) and _wrap_key(x, need).count("\n") >= KEY_LINES:
            need += 1
    return need


def _natural(col: Column, texts: list[str]) -> int:
    """The width a column takes with room to spare: its widest cell and its header on a line."""
    return max([len(col.label()), 1] + [len(x) for x in texts])


def _widths(cols: Sequence[Column], texts: Mapping[str, list[str]], w: int) -> dict[str, int]:
    """Each column's width: its least, then the room left given to keys up to two lines, to
    text columns up to a comfortable width, then to keys, text and headers up to each
    column's natural width."""
    width = {c.key: _least(c, texts[c.key]) for c in cols}
    spare = w - sum(width.values()) - GAP * (len(cols) - 1)
    stages = (
        ("key", _keys_comfortable),
        ("text", _comfortable),
        ("key", _natural),
        ("text", _natural),
        (None, _natural),
    )
    for kind, size in stages:
        for c in cols:
            if (c.kind if c.kind in ("text", "key") else None) != kind:
                continue
            grow = min(spare, size(c, texts[c.key]) - width[c.key])
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
        text = c.kind in ("text", "key")
        t.add_column(
            c.label(),
            justify="left" if text else "right",
            width=width[c.key],
            no_wrap=False,
            overflow="fold",
        )
    for i in range(n):
        t.add_row(
            *(
                _wrap_key(texts[c.key][i], width[c.key]) if c.kind == "key" else texts[c.key][i]
                for c in cols
            )
        )
    return t


def table(
    df: pd.DataFrame,
    columns: Sequence[Column],
    title: str | None = None,
    w: int | None = None,
) -> tuple[str, list[str]]:
    """The frame as a table that fits ``w`` characters (default :func:`width`): columns of
    the highest priority are dropped until it fits, after text has wrapped (at spaces, keys
    after their dots) as far as it can; where even the columns of priority 0 do not fit, each
    row is shown as lines of "header: value". A figure is never cut: a column is never
    narrower than its widest figure (headers wrap at spaces).

    Returns (the text, the headers of the columns dropped)."""
    w = w or width()
    title = wrap(title, w) if title else title
    texts = {c.key: cells(df, c) for c in columns}

    def fit(size) -> tuple[list[Column], list[str], bool]:
        shown, dropped = list(columns), []
        while sum(size(c, texts[c.key]) for c in shown) + GAP * (len(shown) - 1) > w:
            pri = max(c.priority for c in shown)
            if pri == 0:
                return shown, dropped, False
            victim = [c for c in shown if c.priority == pri][-1]
            shown.remove(victim)
            dropped.append(victim.label())
        return shown, dropped, True

    # text and keys at ease where dropping less telling columns allows it, else keys on at
    # most two lines and text narrower, else both as narrow as they go
    for size in (_comfortable, _keys_comfortable, _least):
        shown, dropped, ok = fit(size)
        if ok:
            break
    else:
        return _records(df, shown, texts, title, w), dropped
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
    """Progress on stderr, one line per phase, shown only where stderr is a terminal.

    ``with Bars() as bars: run(progress=bars("Monte Carlo", "samples"))``: each call gives
    the ``progress(done, total)`` callback of a new phase (None where nothing is shown).
    Until the phase reports a total, a spinner with its label and the time elapsed
    ("Writing the workbook · elapsed 0:00:04"); once it does, a bar with the count, the
    rate, the time elapsed and the time left, each labelled ("Monte Carlo ━━━━━╸━━━
    12,000/40,000 samples · 2,820 samples/s · elapsed 0:00:03 · left 0:00:05"). The lines
    vanish when the block ends.
    """

    def __init__(self, enabled: bool | None = None):
        self.enabled = stderr_is_terminal() if enabled is None else enabled
        self._progress = None
        self._tasks: list = []

    def __enter__(self) -> Bars:
        if self.enabled:
            from rich.console import Console
            from rich.progress import Progress, TextColumn

            self._progress = Progress(
                _column("spinner"),
                TextColumn("{task.description}"),
                _column("bar"),
                _column("count"),
                _column("rate"),
                _column("elapsed"),
                _column("left"),
                console=Console(stderr=True, highlight=False, markup=False),
                transient=True,
                refresh_per_second=5,
            )
            self._progress.start()
        return self

    def __exit__(self, *exc) -> bool:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
        return False

    def __call__(
        self, what: str, unit: str, total: int | None = None, then: str | None = None
    ) -> Callable[[int, int], None] | None:
        """A new phase ``what`` counting ``unit``: a bar from the start where ``total`` is
        given, else a spinner until the first report; ``then``: the label of the spinner that
        follows once the count is complete (the work after the counted part)."""
        if self._progress is None:
            return None
        p = self._progress
        for earlier in self._tasks:  # a new phase: the earlier ones are over
            p.update(earlier, visible=False)
        task = p.add_task(what, total=total or None, unit=unit)
        self._tasks.append(task)
        after: list[str] = [then] if then else []

        def update(done: int, total: int) -> None:
            p.update(task, completed=done, total=total if total else None)
            if after and total and done >= total:
                self(after.pop(), "")

        return update


def _hms(seconds: float | None) -> str:
    """0:01:05: a duration as hours, minutes and seconds."""
    s = max(0, int(seconds or 0))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def progress_fields(task) -> dict[str, str]:
    """What one phase's line shows, each figure with its label: where the total is known, the
    bar, "done/total unit", "rate unit/s", "elapsed h:mm:ss" and "left h:mm:ss" (once a rate
    is known); where it is not, a spinner and the time elapsed, never a time left."""
    unit = task.fields.get("unit", "")
    elapsed = f"elapsed {_hms(task.finished_time if task.finished else task.elapsed)}"
    if task.total is None:
        return {"spinner": "yes", "elapsed": elapsed}
    out = {
        "bar": "yes",
        "count": f"{task.completed:,.0f}/{task.total:,.0f}" + (f" {unit}" if unit else ""),
        "elapsed": elapsed,
    }
    # the average since the phase began: the work arrives in chunks, so a rate over the last
    # seconds would swing from a burst to nothing
    spent = task.finished_time if task.finished else task.elapsed
    if task.completed and spent:
        speed = task.completed / spent
        rate = compact(speed) if speed >= 100 else sig(speed, 3)
        out["rate"] = rate + (f" {unit}" if unit else "") + "/s"
        if not task.finished:
            out["left"] = f"left {_hms((task.total - task.completed) / speed)}"
    return out


def _column(part: str):
    """A column of the progress line: ``part`` of :func:`progress_fields` (built on first
    use, so that importing this module does not import rich)."""
    from rich.progress import BarColumn, ProgressColumn, SpinnerColumn
    from rich.text import Text

    class Part(ProgressColumn):
        def __init__(self):
            super().__init__()
            self.spinner = SpinnerColumn("dots", finished_text=" ")
            self.bar = BarColumn(bar_width=30)

        def render(self, task):
            fields = progress_fields(task)
            if part not in fields:
                return Text("")
            if part == "spinner":
                return self.spinner.render(task)
            if part == "bar":
                return self.bar.render(task)
            # a separator before every labelled figure but the count: "elapsed 0:00:08 ·
            # left 0:00:11", never a time that reads as followed by "left"
            return Text(fields[part] if part == "count" else f"· {fields[part]}")

    return Part()


@contextmanager
def bars(enabled: bool | None = None) -> Iterator[Bars]:
    with Bars(enabled) as b:
        yield b
