"""Tornado, Grid, Monte Carlo (and its samples), Sobol and Break-even sheets: snapshots of the
run's analyses, each under a banner, with native charts."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from econ.report.labels import label
from econ.report.summary import held_sentence, usd
from econ.report.workbook import write_cell
from econ.report.xl import Book, banner

TOP = 15  # bars in the tornado, Sobol and value-of-information charts
OUTPUT_FORMATS = {
    "npv_usd": "usd_m",
    "payback_months": "num1",
    "irr_annual": "pct",
    "mirr_annual": "pct",
    "profitability_index": "num2",
}
OUTPUT_LABELS = {
    "npv_usd": "NPV",
    "payback_months": "payback month",
    "irr_annual": "IRR",
    "mirr_annual": "MIRR",
    "profitability_index": "profitability index",
}


def write_all(book: Book, sheets: dict, a, analysis: dict) -> None:
    """Write every analysis sheet whose results are in ``analysis``."""
    if "Tornado" in sheets:
        tornado_sheet(book, sheets["Tornado"], analysis["tornado"])
    if "Grid" in sheets:
        grid_sheet(book, sheets["Grid"], analysis["grids"])
    if "Monte Carlo" in sheets:
        montecarlo_sheet(book, sheets["Monte Carlo"], a, analysis["mc"])
        samples_sheet(book, sheets["MC samples"], analysis["mc"])
    if "Sobol" in sheets:
        sobol_sheet(book, sheets["Sobol"], analysis["sobol"])
    if "Break-even" in sheets:
        breakeven_sheet(book, sheets["Break-even"], analysis["breakeven"])


def _head(book: Book, ws, title: str, note: str, what: str) -> int:
    s = book.styles
    ws.write_string(0, 0, title, s("title"))
    ws.write_string(1, 0, note, s("note"))
    banner(ws, book, 2, what)
    return 4


def _section(book: Book, ws, row: int, title: str) -> None:
    """A block's title; the printout starts a page there (but for the sheet's first block), so
    that a block's chart is never cut across pages."""
    ws.write_string(row, 0, title, book.styles("section"))
    breaks = book.cells.setdefault("page_breaks", {}).setdefault(ws.name, [])
    if row > 6:
        breaks.append(row)


def _table(
    book: Book,
    ws,
    top: int,
    left: int,
    df: pd.DataFrame,
    formats: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
) -> int:
    """A DataFrame with a header row; returns the next free row."""
    s = book.styles
    formats = formats or {}
    headers = headers or {}
    for j, c in enumerate(df.columns):
        ws.write_string(top, left + j, headers.get(c, str(c).replace("_", " ")), s("h"))
    for i, rec in enumerate(df.itertuples(index=False), start=1):
        for j, (c, x) in enumerate(zip(df.columns, rec, strict=True)):
            name = formats.get(c, "num2")
            if name == "auto":
                name = _auto(x)
            fmt = None if isinstance(x, str | bool) else s(name)
            write_cell(ws, top + i, left + j, x, fmt)
    return top + len(df) + 2


def _auto(x) -> str:
    """A format for a value of any key (a range end, a base value): by its size."""
    try:
        v = abs(float(x))
    except (TypeError, ValueError):
        return "g"
    if not math.isfinite(v):
        return "g"
    if v >= 1e7:
        return "sci"
    if v >= 100 or v == int(v):
        return "num"
    return "num4" if v < 1 else "num2"


def tornado_sheet(book: Book, ws, df: pd.DataFrame) -> None:
    row = _head(
        book,
        ws,
        "One-way sensitivity: each assumption at the low and high of its range, the others at base",
        "Sorted by swing; for payback, no payback within the horizon counts as the horizon (a "
        "blank change). A swing of zero: the payback model does not read the key on these "
        "assumptions (physics, buy-side and agent keys with capacity.basis=data).",
        "the tornado of data/sensitivity.csv",
    )
    ws.set_column(0, 0, 44)
    ws.set_column(1, 10, 15)
    for output in ("npv_usd", "payback_months", "irr_annual"):
        part = df[df["output"] == output].reset_index(drop=True)
        fmt = OUTPUT_FORMATS[output]
        _section(book, ws, row, f"Output: {OUTPUT_LABELS[output]}")
        top = row + 1
        shown = part[
            [
                "variable",
                "low",
                "high",
                "base",
                "output_low",
                "output_high",
                "change_low",
                "change_high",
                "swing",
            ]
        ]
        row = _table(
            book,
            ws,
            top,
            0,
            shown,
            {
                "low": "auto",
                "high": "auto",
                "base": "auto",
                **{
                    c: fmt
                    for c in ("output_low", "output_high", "change_low", "change_high", "swing")
                },
            },
        )
        if output != "irr_annual":
            n = min(TOP, len(part))
            chart = book.wb.add_chart({"type": "bar"})
            for col_name, color, name in (
                ("change_low", "#C00000", "at low"),
                ("change_high", "#2E75B6", "at high"),
            ):
                j = list(shown.columns).index(col_name)
                chart.add_series(
                    {
                        "name": name,
                        "categories": ["Tornado", top + 1, 0, top + n, 0],
                        "values": ["Tornado", top + 1, j, top + n, j],
                        "fill": {"color": color},
                    }
                )
            chart.set_title({"name": f"Tornado: change in {OUTPUT_LABELS[output]} from base"})
            chart.set_y_axis({"reverse": True, "label_position": "low", "num_font": {"size": 8}})
            chart.set_x_axis({"num_format": '$#,##0,,"M"' if output == "npv_usd" else "0.0"})
            chart.set_legend({"position": "bottom"})
            chart.set_size({"width": 820, "height": 480})
            ws.insert_chart(row, 0, chart)
            row += 26


def grid_sheet(book: Book, ws, df: pd.DataFrame) -> None:
    s = book.styles
    row = _head(
        book,
        ws,
        "Two-way sensitivity: NPV and payback over pairs of assumptions (data/grids.csv)",
        "Red is worse, green better.",
        "the grids",
    )
    ws.set_column(0, 0, 40)
    ws.set_column(1, 30, 13)
    for gid, g in df.groupby("grid", sort=False):
        xk, yk = g["x_key"].iloc[0], g["y_key"].iloc[0]
        for output, fmt in (("npv_usd", "usd_m"), ("payback_months", "num1")):
            mat = g.pivot(index="y", columns="x", values=output).sort_index(ascending=False)
            _section(
                book,
                ws,
                row,
                f"{gid}: {OUTPUT_LABELS[output]} (rows {label(yk)}, columns {label(xk)})",
            )
            row += 1
            ws.write_string(row, 0, f"rows: {yk}; columns: {xk}", s("h"))
            for j, x in enumerate(mat.columns, start=1):
                ws.write_number(row, j, float(x), s(_auto(x)))
            for i, (y, vals) in enumerate(mat.iterrows(), start=1):
                ws.write_number(row + i, 0, float(y), s(_auto(y)))
                for j, v in enumerate(vals, start=1):
                    write_cell(ws, row + i, j, float(v), s(fmt))
            first, last = row + 1, row + len(mat)
            colour = {
                "type": "3_color_scale",
                "min_color": "#F8696B",
                "mid_color": "#FFEB84",
                "max_color": "#63BE7B",
            }
            if output == "payback_months":  # earlier payback is better
                colour = {**colour, "min_color": "#63BE7B", "max_color": "#F8696B"}
            else:  # NPV: yellow at zero, so that a loss is never green
                colour = {**colour, "mid_type": "num", "mid_value": 0}
            ws.conditional_format(first, 1, last, len(mat.columns), colour)
            if output == "payback_months":
                ws.write_string(last + 1, 0, "blank: no payback within the horizon", s("note"))
            row = last + 3


def montecarlo_sheet(book: Book, ws, a, mc: dict) -> None:
    s = book.styles
    n = mc["n"]
    row = _head(
        book,
        ws,
        f"Monte Carlo: {n:,} Latin-hypercube samples of data/sensitivity.csv",
        "Rank correlations of data/correlations.csv imposed (Iman-Conover); seeded (see Cover). "
        "Every statistic uses all samples; a NaN payback means none within the horizon.",
        "the Monte Carlo",
    )
    ws.set_column(0, 0, 40)
    ws.set_column(1, 1, 40)
    ws.set_column(2, 12, 15)
    # statistics (no mean or standard deviation of the IRR: it is unbounded)
    _section(book, ws, row, "Statistics")
    stats = mc["stats"].copy()
    stats["output"] = stats["output"].map(lambda o: OUTPUT_LABELS.get(o, o))
    top = row + 1
    for j, h in enumerate(("output", "statistic", "value", "what it means")):
        ws.write_string(top, j, h, s("h"))
    for i, rec in enumerate(mc["stats"].itertuples(index=False), start=1):
        ws.write_string(top + i, 0, OUTPUT_LABELS.get(rec.output, rec.output))
        ws.write_string(top + i, 1, rec.statistic)
        if rec.statistic.startswith(("P(", "share", "standard error of P")):
            fmt = "pct"
        else:
            fmt = OUTPUT_FORMATS.get(rec.output, "num2")
        write_cell(ws, top + i, 2, rec.value, s(fmt))
        if getattr(rec, "note", ""):
            ws.write_string(top + i, 3, rec.note)
    row = top + len(stats) + 2
    ws.write_string(
        row - 1,
        0,
        "Payback percentile 0: cumulative cash never negative at that percentile; blank: no "
        "payback within the horizon at that percentile. A rate percentile above 1,000% a year "
        "is blank: not a meaningful rate.",
        s("note"),
    )
    # value of information
    row += 1
    _section(
        book, ws, row, "Value of information: what resolving an uncertainty before signing is worth"
    )
    row += 1
    from econ.report.summary import about

    n = mc["n"]
    ws.write_string(row, 0, "EVPI: perfect information on every input", s("label"))
    write_cell(ws, row, 1, mc["evpi_usd"], s("usd_m"))
    ws.write_string(row, 2, "standard error", s("label"))
    write_cell(ws, row, 3, mc["evpi_se_usd"], s("usd_m"))
    ws.write_string(row, 4, about(mc["evpi_usd"], mc["evpi_se_usd"], n), s("label"))
    if mc.get("best_option") in mc.get("options", {}):
        row += 1
        ws.write_string(
            row,
            0,
            "Decision options fixed before the uncertainty resolves (mean NPV over the samples): "
            + "; ".join(f"{k} {usd(v)}" for k, v in mc["options"].items())
            + f". Best on average: {mc['best_option']}.",
            s("note"),
        )
    row += 1
    ws.write_string(
        row,
        0,
        "EVPPI of one input: each option's NPV regressed on the input by a penalised cubic "
        "regression spline (at most 20 knots at its quantiles, smoothing by generalised "
        "cross-validation); standard error from 200 bootstrap refits. 0: known alone, the input "
        "would not change the decision (reason given).",
        s("note"),
    )
    evppi = mc["evppi"].drop(columns=["edf"], errors="ignore").copy()
    evppi.insert(1, "input", evppi["key"].map(label))
    evppi["estimate"] = [
        about(v, e, n) for v, e in zip(evppi["evppi"], evppi["evppi_se"], strict=True)
    ]
    top = row + 1
    row = _table(
        book,
        ws,
        top,
        0,
        evppi,
        {"evppi": "usd_m", "evppi_se": "usd_m", "share_of_evpi": "pct"},
        {"evppi": "EVPPI", "evppi_se": "standard error", "share_of_evpi": "share of EVPI"},
    )
    k = min(TOP, len(evppi))
    chart = book.wb.add_chart({"type": "bar"})
    chart.add_series(
        {
            "name": "EVPPI",
            "categories": ["Monte Carlo", top + 1, 0, top + k, 0],
            "values": ["Monte Carlo", top + 1, 2, top + k, 2],
            "fill": {"color": "#2E75B6"},
        }
    )
    chart.set_title({"name": "The uncertainties most worth resolving before signing (EVPPI)"})
    chart.set_y_axis({"reverse": True, "num_font": {"size": 8}})
    chart.set_x_axis({"num_format": '$#,##0,,"M"'})
    chart.set_legend({"none": True})
    chart.set_size({"width": 760, "height": 420})
    ws.insert_chart(top, 8, chart)
    row = max(row, top + 24)
    # NPV histogram, bins over P1..P99 with the tails counted, and the S-curve over all samples
    hist = mc["hist_npv"]
    _section(
        book, ws, row, "NPV: histogram between its 1st and 99th percentiles (tails counted apart)"
    )
    row += 1
    at = hist.attrs
    ws.write_string(
        row,
        0,
        f"below the first bin: {at.get('below', 0):,}; above the last: {at.get('above', 0):,}; undefined: {at.get('undefined', 0):,} of {at.get('n', n):,}",
        s("note"),
    )
    top = row + 1
    row = _table(
        book,
        ws,
        top,
        0,
        hist,
        {
            "bin_low": "usd_m",
            "bin_high": "usd_m",
            "bin_mid": "usd_m",
            "count": "num",
            "cumulative_share": "pct",
        },
    )
    m = len(hist)
    chart = book.wb.add_chart({"type": "column"})
    chart.add_series(
        {
            "name": "samples",
            "categories": ["Monte Carlo", top + 1, 2, top + m, 2],
            "values": ["Monte Carlo", top + 1, 3, top + m, 3],
            "gap": 10,
        }
    )
    chart.set_title({"name": "NPV: histogram (P1 to P99)"})
    chart.set_legend({"none": True})
    chart.set_x_axis({"num_format": '$#,##0.0,,,"B"', "num_font": {"rotation": -45}})
    chart.set_size({"width": 620, "height": 320})
    ws.insert_chart(top, 6, chart)
    sc = mc["s_npv"]
    _section(book, ws, row, "NPV: share of all samples at or below each value (S-curve)")
    top = row + 1
    row = _table(book, ws, top, 0, sc, {"value": "usd_m", "share": "pct"})
    chart = book.wb.add_chart({"type": "scatter", "subtype": "straight"})
    chart.add_series(
        {
            "name": "share at or below",
            "categories": ["Monte Carlo", top + 1, 0, top + len(sc), 0],
            "values": ["Monte Carlo", top + 1, 1, top + len(sc), 1],
        }
    )
    chart.set_title({"name": "NPV: S-curve over all samples"})
    chart.set_legend({"none": True})
    chart.set_y_axis({"num_format": "0%", "min": 0, "max": 1})
    chart.set_x_axis({"num_format": '$#,##0.0,,,"B"'})
    chart.set_size({"width": 620, "height": 320})
    ws.insert_chart(top, 6, chart)
    # P(paid back by month t) over all samples, and the fan of cumulative cash
    pb = mc["payback_by_month"]
    fan = mc["fan"]
    both = pb.merge(fan, on="month", how="left")
    _section(
        book,
        ws,
        row,
        "P(paid back by month t) over all samples, and the fan of cumulative cash (P10, P50, P90)",
    )
    top = row + 1
    row = _table(
        book,
        ws,
        top,
        0,
        both,
        {
            "month": "num",
            "share": "pct",
            "standard_error": "pct2",
            "P10": "usd_m",
            "P50": "usd_m",
            "P90": "usd_m",
        },
        {"share": "P(paid back by month)"},
    )
    h = len(both)
    chart = book.wb.add_chart({"type": "line"})
    chart.add_series(
        {
            "name": "P(paid back by month)",
            "categories": ["Monte Carlo", top + 1, 0, top + h, 0],
            "values": ["Monte Carlo", top + 1, 1, top + h, 1],
            "line": {"color": "#1F4E79", "width": 2.25},
        }
    )
    chart.set_title({"name": "P(paid back by month t): ends at the share that pays back"})
    chart.set_y_axis({"num_format": "0%", "min": 0, "max": 1})
    chart.set_x_axis({"name": "month", "interval_unit": 6, "interval_tick": 6})
    chart.set_legend({"none": True})
    chart.set_size({"width": 620, "height": 320})
    ws.insert_chart(top, 7, chart)
    chart = book.wb.add_chart({"type": "line"})
    for col, color, dash in (
        (3, "#C00000", "dash"),
        (4, "#1F4E79", "solid"),
        (5, "#548235", "dash"),
    ):
        chart.add_series(
            {
                "name": ["Monte Carlo", top, col],
                "categories": ["Monte Carlo", top + 1, 0, top + h, 0],
                "values": ["Monte Carlo", top + 1, col, top + h, col],
                "line": {"color": color, "dash_type": dash},
            }
        )
    chart.set_title({"name": "Fan of cumulative cash: P10, P50, P90 by month"})
    chart.set_y_axis({"num_format": '$#,##0.0,,,"B"'})
    chart.set_x_axis({"name": "month", "interval_unit": 6, "interval_tick": 6})
    chart.set_legend({"position": "bottom"})
    chart.set_size({"width": 620, "height": 320})
    ws.insert_chart(top + 17, 7, chart)
    # convergence of the NPV mean
    conv = mc["convergence"]
    _section(
        book, ws, row, "Convergence of the NPV mean: its standard error against the samples used"
    )
    top = row + 1
    row = _table(
        book,
        ws,
        top,
        0,
        conv,
        {"n": "num", "defined": "num", "mean": "usd_m", "standard_error": "usd_m"},
    )
    chart = book.wb.add_chart({"type": "scatter", "subtype": "straight_with_markers"})
    chart.add_series(
        {
            "name": "standard error of the mean",
            "categories": ["Monte Carlo", top + 1, 0, top + len(conv), 0],
            "values": ["Monte Carlo", top + 1, 3, top + len(conv), 3],
        }
    )
    chart.set_title({"name": "NPV mean: standard error against samples"})
    chart.set_x_axis({"log_base": 10, "name": "samples"})
    chart.set_y_axis({"log_base": 10, "num_format": '$#,##0,,"M"'})
    chart.set_legend({"none": True})
    chart.set_size({"width": 620, "height": 320})
    ws.insert_chart(top, 6, chart)
    row = max(row, top + 18)
    # the input distributions and correlations
    _section(book, ws, row, "Input distributions (data/sensitivity.csv; the sampled ones)")
    prob = mc["problem"]
    dist = pd.DataFrame(
        [
            {
                "key": v.name,
                "input": label(v.name),
                "distribution": v.distribution,
                "low": v.low,
                "base": v.base,
                "high": v.high,
            }
            for v in prob.variables
        ]
    )
    row = _table(book, ws, row + 1, 0, dist, {"low": "auto", "base": "auto", "high": "auto"})
    ws.write_string(
        row - 1,
        0,
        "uniform, triangular, pert: low and high are bounds; normal, lognormal: the 5th and 95th percentiles.",
        s("note"),
    )
    if prob.correlation is not None:
        _section(book, ws, row, "Rank correlation matrix imposed (data/correlations.csv)")
        names = prob.names
        linked = [
            j
            for j in range(len(names))
            if np.any(np.abs(prob.correlation[j] - np.eye(len(names))[j]) > 0)
        ]
        row += 1
        for jj, j in enumerate(linked, start=1):
            ws.write_string(row, jj, names[j], s("h"))
        for ii, i in enumerate(linked, start=1):
            ws.write_string(row + ii, 0, names[i], s("h"))
            for jj, j in enumerate(linked, start=1):
                ws.write_number(row + ii, jj, float(prob.correlation[i, j]), s("num2"))
        row += len(linked) + 2
    if mc["unread"]:
        ws.write_string(
            row,
            0,
            "Not sampled: the model does not read them on these assumptions (EVPPI 0): "
            + ", ".join(mc["unread"]),
            s("note"),
        )
        row += 1
    if mc.get("held"):
        ws.write_string(row, 0, held_sentence(mc["held"]), s("note"))


def samples_sheet(book: Book, ws, mc: dict) -> None:
    """The first samples with their inputs and outputs, on a sheet that does not print."""
    kept = mc["run"].inputs
    s = book.styles
    ws.write_string(
        0,
        0,
        f"The first {len(kept):,} of {mc['n']:,} Monte Carlo samples: inputs by key, then outputs",
        s("title"),
    )
    ws.write_string(
        1,
        0,
        "Not printed. The statistics use every sample; econ sensitivity montecarlo --samples-csv FILE writes them all.",
        s("note"),
    )
    banner(ws, book, 2, "the Monte Carlo samples")
    ws.set_column(0, len(kept.columns), 16)
    for j, c in enumerate(kept.columns):
        ws.write_string(4, j, c, s("h"))
    values = kept.to_numpy(float)
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            write_cell(ws, 5 + i, j, values[i, j], s("g"))
    ws.freeze_panes(5, 0)
    ws.print_area(0, 0, 2, 6)  # the title only: the rows are for reading on screen


def sobol_sheet(book: Book, ws, df: pd.DataFrame) -> None:
    row = _head(
        book,
        ws,
        "Global sensitivity: Sobol indices of NPV (first order S1, total ST, 95 % bootstrap intervals)",
        "Inputs sampled independently from data/sensitivity.csv; sorted by total index.",
        "the Sobol indices",
    )
    ws.set_column(0, 0, 14)
    ws.set_column(1, 1, 44)
    ws.set_column(2, 8, 12)
    ws.set_column(9, 9, 60)
    top = row
    _table(
        book,
        ws,
        top,
        0,
        df,
        {c: "num2" for c in ("S1", "S1_low", "S1_high", "ST", "ST_low", "ST_high")},
    )
    n = min(TOP, len(df))
    chart = book.wb.add_chart({"type": "bar"})
    cols = list(df.columns)
    for name, col, color in (("first order S1", "S1", "#2E75B6"), ("total ST", "ST", "#C00000")):
        j = cols.index(col)
        chart.add_series(
            {
                "name": name,
                "categories": ["Sobol", top + 1, 1, top + n, 1],
                "values": ["Sobol", top + 1, j, top + n, j],
                "fill": {"color": color},
            }
        )
    chart.set_title({"name": "Sobol indices of NPV"})
    chart.set_y_axis({"reverse": True, "num_font": {"size": 8}})
    chart.set_legend({"position": "bottom"})
    chart.set_size({"width": 760, "height": 480})
    ws.insert_chart(top + len(df) + 2, 0, chart)


def breakeven_sheet(book: Book, ws, df: pd.DataFrame) -> None:
    row = _head(
        book,
        ws,
        "Break-even: the value of each assumption at which NPV is zero (goal seek)",
        "Searched over each key's sensitivity range, the others at base; sorted by how far from base.",
        "the break-even table",
    )
    ws.set_column(0, 0, 44)
    ws.set_column(1, 5, 16)
    ws.set_column(6, 6, 100)
    _table(
        book,
        ws,
        row,
        0,
        df,
        {
            "base": "auto",
            "searched_low": "auto",
            "searched_high": "auto",
            "breakeven": "auto",
            "change_from_base": "pct",
        },
    )
