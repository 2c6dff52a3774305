"""Tornado, Grid, Monte Carlo, Sobol and Break-even sheets with native charts."""

from __future__ import annotations

import pandas as pd

from econ.report.workbook import sheet_header, write_cell, write_table

TOP = 15  # bars in the tornado chart


def write_all(book, sheets, a, analysis) -> None:
    """Write every analysis sheet whose results are in ``analysis`` (to be reworked)."""
    return
    if "tornado" in an:
        tornado_sheet(wb, ctx, an["tornado"])
    if "grids" in an and len(an["grids"]):
        grid_sheet(wb, ctx, an["grids"])
    if "mc_stats" in an:
        montecarlo_sheet(wb, ctx)
    if "sobol" in an:
        sobol_sheet(wb, ctx, an["sobol"])
    if "breakeven" in an:
        breakeven_sheet(wb, ctx, an["breakeven"])


def tornado_sheet(wb, ctx, df: pd.DataFrame) -> None:
    ws = wb.add_worksheet("Tornado")
    f = ctx.f
    sheet_header(
        ws,
        f,
        "One-way sensitivity: each assumption at its low and high, the others at base",
        "Sorted by swing; for payback, no payback within the horizon counts as the horizon.",
    )
    ws.set_column(0, 0, 12)
    ws.set_column(1, 1, 40)
    ws.set_column(2, 10, 16)
    row = 3
    for output, fmt in (("npv", "usd"), ("payback", "num2"), ("irr", "pct")):
        part = df[df["output"] == output].reset_index(drop=True)
        ws.write_string(row, 0, f"Output: {output}", f("bold"))
        top = row + 1
        row = write_table(
            ws,
            f,
            top,
            0,
            part,
            {
                "low": "g",
                "high": "g",
                "base": "g",
                "output_base": fmt,
                "output_low": fmt,
                "output_high": fmt,
                "swing": fmt,
                "change_low": fmt,
                "change_high": fmt,
            },
        )
        if output in ("npv", "payback"):
            n = min(TOP, len(part))
            chart = wb.add_chart({"type": "bar"})
            for col_name, color, label in (
                ("change_low", "#C00000", "at low"),
                ("change_high", "#2E75B6", "at high"),
            ):
                j = list(part.columns).index(col_name)
                chart.add_series(
                    {
                        "name": label,
                        "categories": ["Tornado", top + 1, 1, top + n, 1],
                        "values": ["Tornado", top + 1, j, top + n, j],
                        "fill": {"color": color},
                    }
                )
            chart.set_title({"name": f"Tornado: change in {output} from base"})
            chart.set_y_axis({"reverse": True, "label_position": "low"})
            chart.set_x_axis({"num_format": '$#,##0,,"M"' if output == "npv" else "0.0"})
            chart.set_legend({"position": "bottom"})
            chart.set_size({"width": 820, "height": 520})
            ws.insert_chart(top, 12, chart, {"y_offset": 0})
            row = max(row, top + 28)


def grid_sheet(wb, ctx, df: pd.DataFrame) -> None:
    ws = wb.add_worksheet("Grid")
    f = ctx.f
    sheet_header(
        ws, f, "Two-way sensitivity: NPV and payback over pairs of assumptions (data/grids.csv)"
    )
    ws.set_column(0, 0, 34)
    ws.set_column(1, 30, 15)
    row = 2
    for gid, g in df.groupby("grid", sort=False):
        xk, yk = g["x_key"].iloc[0], g["y_key"].iloc[0]
        for output, fmt in (("npv", "usd"), ("payback", "num2")):
            mat = g.pivot(index="y", columns="x", values=output).sort_index(ascending=False)
            ws.write_string(row, 0, f"{gid}: {output} (rows {yk}, columns {xk})", f("bold"))
            row += 1
            ws.write_string(row, 0, f"{yk} \\ {xk}", f("h"))
            for j, x in enumerate(mat.columns, start=1):
                ws.write_number(row, j, float(x), f("h"))
            for i, (y, vals) in enumerate(mat.iterrows(), start=1):
                ws.write_number(row + i, 0, float(y), f("h"))
                for j, v in enumerate(vals, start=1):
                    write_cell(ws, row + i, j, float(v), f(fmt))
            first, last = row + 1, row + len(mat)
            colour = {
                "type": "3_color_scale",
                "min_color": "#F8696B",
                "mid_color": "#FFEB84",
                "max_color": "#63BE7B",
            }
            if output == "payback":  # earlier payback is better
                colour = {**colour, "min_color": "#63BE7B", "max_color": "#F8696B"}
            ws.conditional_format(first, 1, last, len(mat.columns), colour)
            if output == "payback":
                ws.write_string(last + 1, 0, "blank: no payback within the horizon", f("note"))
            row = last + 3


def montecarlo_sheet(wb, ctx) -> None:
    an = ctx.analysis
    ws = wb.add_worksheet("Monte Carlo")
    f = ctx.f
    sheet_header(
        ws,
        f,
        f"Monte Carlo: {an['mc_n']:,} Latin-hypercube samples of data/sensitivity.csv",
        "Rank correlations of data/correlations.csv imposed (Iman-Conover); seeded, see Cover.",
    )
    ws.set_column(0, 1, 40)
    ws.set_column(2, 40, 15)
    stats = an["mc_stats"]
    ws.write_string(3, 0, "output", f("h"))
    ws.write_string(3, 1, "statistic", f("h"))
    ws.write_string(3, 2, "value", f("h"))
    for i, rec in enumerate(stats.itertuples(index=False), start=4):
        ws.write_string(i, 0, rec.output)
        ws.write_string(i, 1, rec.statistic)
        fmt = "usd" if rec.output == "npv" and not rec.statistic.startswith("P(") else "num2"
        if (
            rec.statistic.startswith("P(")
            or rec.statistic.startswith("share")
            or rec.output == "irr"
            or "P(payback" in rec.statistic
        ):
            fmt = "pct"
        if (
            rec.output == "payback"
            and rec.statistic.startswith("P")
            and not rec.statistic.startswith("P(")
        ):
            fmt = "num2"
        write_cell(ws, i, 2, rec.value, f(fmt))
    row = 4 + len(stats) + 1
    ws.write_string(
        row,
        0,
        "blank payback percentiles: no payback within the horizon at that percentile",
        f("note"),
    )
    row += 2
    for name, key, numfmt in (
        ("NPV", "mc_hist_npv", "usd"),
        ("Payback month", "mc_hist_payback", "num2"),
    ):
        hist = an[key]
        ws.write_string(row, 0, f"Histogram of {name} (finite values)", f("bold"))
        top = row + 1
        write_table(
            ws,
            f,
            top,
            0,
            hist,
            {
                "bin_low": numfmt,
                "bin_high": numfmt,
                "bin_mid": numfmt,
                "count": "num",
                "cumulative_share": "pct",
            },
        )
        n = len(hist)
        col_chart = wb.add_chart({"type": "column"})
        col_chart.add_series(
            {
                "name": "samples",
                "categories": ["Monte Carlo", top + 1, 2, top + n, 2],
                "values": ["Monte Carlo", top + 1, 3, top + n, 3],
                "gap": 5,
            }
        )
        col_chart.set_title({"name": f"{name}: histogram"})
        col_chart.set_legend({"none": True})
        col_chart.set_x_axis(
            {
                "num_format": '$#,##0,,,"B"' if key == "mc_hist_npv" else "0",
                "num_font": {"rotation": -45},
            }
        )
        col_chart.set_size({"width": 620, "height": 320})
        ws.insert_chart(top, 6, col_chart)
        s_chart = wb.add_chart({"type": "scatter", "subtype": "straight"})
        s_chart.add_series(
            {
                "name": "cumulative share",
                "categories": ["Monte Carlo", top + 1, 1, top + n, 1],
                "values": ["Monte Carlo", top + 1, 4, top + n, 4],
            }
        )
        s_chart.set_title({"name": f"{name}: S-curve (share at or below)"})
        s_chart.set_legend({"none": True})
        s_chart.set_y_axis({"num_format": "0%", "max": 1})
        s_chart.set_x_axis({"num_format": '$#,##0,,,"B"' if key == "mc_hist_npv" else "0"})
        s_chart.set_size({"width": 620, "height": 320})
        ws.insert_chart(top, 16, s_chart)
        row = top + max(n, 16) + 3
    kept: pd.DataFrame = an["mc_samples"]
    if len(kept):
        ws.write_string(
            row,
            0,
            f"The first {len(kept):,} of {an['mc_n']:,} samples (capped; the statistics above use all)",
            f("bold"),
        )
        write_table(ws, f, row + 1, 0, kept, {c: "g" for c in kept.columns})


def sobol_sheet(wb, ctx, df: pd.DataFrame) -> None:
    ws = wb.add_worksheet("Sobol")
    f = ctx.f
    sheet_header(
        ws,
        f,
        "Global sensitivity: Sobol indices of NPV (first order S1, total ST, 95% bootstrap intervals)",
        "Inputs sampled independently from data/sensitivity.csv; sorted by total index.",
    )
    ws.set_column(0, 0, 8)
    ws.set_column(1, 1, 40)
    ws.set_column(2, 8, 12)
    top = 3
    write_table(
        ws,
        f,
        top,
        0,
        df,
        {c: "num2" for c in ("S1", "S1_low", "S1_high", "ST", "ST_low", "ST_high")},
    )
    n = min(TOP, len(df))
    chart = wb.add_chart({"type": "bar"})
    for name, j, color in (("first order S1", 2, "#2E75B6"), ("total ST", 5, "#C00000")):
        chart.add_series(
            {
                "name": name,
                "categories": ["Sobol", top + 1, 1, top + n, 1],
                "values": ["Sobol", top + 1, j, top + n, j],
                "fill": {"color": color},
            }
        )
    chart.set_title({"name": "Sobol indices of NPV"})
    chart.set_y_axis({"reverse": True})
    chart.set_legend({"position": "bottom"})
    chart.set_size({"width": 760, "height": 480})
    ws.insert_chart(top, 10, chart)


def breakeven_sheet(wb, ctx, df: pd.DataFrame) -> None:
    ws = wb.add_worksheet("Break-even")
    f = ctx.f
    sheet_header(
        ws,
        f,
        "Break-even: the value of each assumption at which NPV is zero (goal seek)",
        "Searched over each key's sensitivity range; the others at base. Sorted by how far from base.",
    )
    ws.set_column(0, 0, 40)
    ws.set_column(1, 5, 16)
    ws.set_column(6, 6, 100)
    write_table(
        ws,
        f,
        3,
        0,
        df,
        {
            "base": "g",
            "searched_low": "g",
            "searched_high": "g",
            "breakeven": "g",
            "change_from_base": "pct",
        },
    )
