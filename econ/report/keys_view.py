"""The key table (econ.keys) for a terminal: fitted to its width, each value in its key's unit."""

from __future__ import annotations

import pandas as pd

from econ.keys import valid_text


def text(df: pd.DataFrame, width: int = 48) -> str:
    """The table for a terminal, fitted to its width (econ.report.terminal.table): each value
    in its key's unit, the source cut to ``width`` characters; the key and its value are never
    dropped (keys wrap after their dots), the source, the valid range, the guess flag and the
    sensitivity range go first. Returns the table; :func:`shown` also gives the notes."""
    return shown(df, width)[0]


def shown(df: pd.DataFrame, width: int = 48) -> tuple[str, list[str]]:
    """The table of :func:`text` and its notes for stderr (the columns left out to fit)."""
    from econ.formatting import key_value
    from econ.report import terminal as t
    from econ.report.terminal import Column

    def rng(r) -> str:
        if r.distribution is None or pd.isna(r.sensitivity_low):
            return "-"
        return (
            f"{r.distribution} {key_value(r.key, r.sensitivity_low)} to "
            f"{key_value(r.key, r.sensitivity_high)}"
        )

    def cut(s: str) -> str:
        s = " ".join(str(s).split())
        return s if len(s) <= width else s[: width - 3] + "..."

    table = pd.DataFrame(
        {
            "key": df["key"],
            "value": [
                "(blank)" if v is None else v if isinstance(v, str) else key_value(k, v)
                for k, v in zip(df["key"], df["value"], strict=True)
            ],
            "unit": df["unit"].fillna(""),
            "valid": [valid_text(k) for k in df["key"]],
            "range": [rng(r) for r in df.itertuples(index=False)],
            "guess": ["guess" if g else "" for g in df["guess"]],
            "source": [cut(s) for s in df["source"]],
        }
    )
    cols = [
        Column("key", kind="key"),
        Column("value", kind="text"),
        Column("unit", kind="text", priority=1),
        Column("range", "sensitivity range", kind="text", priority=2),
        Column("guess", kind="text", priority=3),
        Column("source", kind="text", priority=4),
        Column("valid", kind="text", priority=5),
    ]
    text_, dropped = t.table(table, cols)
    note = t.dropped_note(dropped)
    return text_, [note] if note else []
