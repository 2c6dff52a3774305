"""Tornado, Grid, Monte Carlo (and its samples), Sobol and Break-even sheets: snapshots of the
run's analyses, each under a banner, declared block by block (econ/report/blocks.py) and
written by one renderer, with native charts.

Each table states once, per column, its heading with the unit and its number format; where a
column holds each key's own value (a low, a base, a break-even), the row carries the key's
unit and one format for all its values, chosen by the key's kind as econ's terminal chooses
it. Figures read as the command line prints them (econ sensitivity ...): the same rows, the
same percentiles, blank where the terminal prints '-'."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
from xlsxwriter.utility import xl_range_abs

from econ.assumptions import rule_for
from econ.constants import IRR_MEANINGFUL_MAX
from econ.report import terminal
from econ.report.blocks import Chart, Charts, Col, Matrix, Note, Series, Sheet, Table, render
from econ.report.labels import label
from econ.report.summary import held_sentence
from econ.report.workbook import write_cell
from econ.report.xl import Book, banner

TOP = 15  # bars in the tornado, Sobol and value-of-information charts
# output -> (label, unit, number format): how every analysis sheet writes an output
OUTPUTS = {
    "npv_usd": ("NPV", "USD", "usd_m"),
    "payback_months": ("Payback month", "month", "num1"),
    "irr_annual": ("IRR", "1/yr", "pct"),
    "profitability_index": ("Profitability index", "-", "num2"),
    "mirr_annual": ("MIRR", "1/yr", "pct"),
    "npv_without_offer_usd": ("NPV without the subscriber offer", "USD", "usd_m"),
}
RED, BLUE, DARK, GREEN = "#C00000", "#2E75B6", "#1F4E79", "#548235"
MONEY_AXIS = '$#,##0,,"M"'
BILLIONS_AXIS = '$#,##0.0,,,"B"'
RATE_NOTE = f"above {IRR_MEANINGFUL_MAX:,.0%} a year: not a meaningful rate (econ prints '-' there)"


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


# --- a key's unit and number format --------------------------------------------------------


def key_unit(key: str) -> str:
    rule = rule_for(key)
    return rule.unit if rule is not None and rule.unit else "-"


def key_format(key: str, values) -> str:
    """One number format for every value of a key in a row: by the key's kind (money, share,
    months, count ...) as econ's terminal reads it, and the size of the values."""
    kind = terminal.key_kind(key)
    v = [abs(float(x)) for x in values if x is not None and math.isfinite(float(x))]
    big = max(v, default=0.0)
    small = min((x for x in v if x), default=0.0)
    if kind == "money":
        return next(f for f, at in (("usd_b", 1e9), ("usd_m", 1e6), ("usd", 100), ("usd2", 0))
                    if big >= at)  # fmt: skip
    if kind in ("share", "rate"):
        return "pct2" if 0 < small < 0.01 else "pct"
    if kind == "months":
        return "num1"
    for f, at in (("num_t", 1e12), ("num_b", 1e9), ("num_m", 1e6)):
        if big >= at:
            return f
    if all(x == round(x) for x in v):
        return "num"
    return "num4" if 0 < small < 0.01 else "num2"


def keyed(df: pd.DataFrame, key: str, values: list[str]) -> tuple[pd.DataFrame, list[str]]:
    """``df`` with the key's label and unit, and each row's number format for ``values``."""
    out = df.reset_index(drop=True).copy()
    out["input"] = out[key].map(label)
    out["unit"] = out[key].map(key_unit)
    fmts = [key_format(k, [r[c] for c in values]) for k, (_, r) in zip(out[key], out.iterrows(),
            strict=True)]  # fmt: skip
    return out, fmts


# --- Tornado ----------------------------------------------------------------------------------


def tornado_sheet(book: Book, ws, df: pd.DataFrame) -> None:
    blocks: list = []
    for output in ("npv_usd", "payback_months", "irr_annual"):
        blocks += tornado_blocks(df[df["output"] == output], output, first=output == "npv_usd")
    render(book, ws, Sheet(
        "One-way sensitivity: each assumption at the low and high of its range, the others at base",
        "Sorted by swing; keys with no effect are listed apart. For payback, no payback within "
        "the horizon counts as the horizon (a blank change). Printed: NPV.",
        "the tornado of data/sensitivity.csv",
        (40, 21) + (11,) * 4,
        tuple(blocks),
        printed=2,
    ))  # fmt: skip


def tornado_blocks(part: pd.DataFrame, output: str, first: bool) -> list:
    """An output's tornado: the keys that move it, each at its low, base and high, and the
    swing, with the chart beside; the output and its change at each end; the keys with no
    effect."""
    name, unit, fmt = OUTPUTS[output]
    swing = part["swing"].to_numpy(float)
    moves = part[np.isfinite(swing) & (swing != 0)]
    base = part["output_base"].iloc[0] if len(part) else math.nan
    at = terminal.fmt(base, terminal.kind_of(output)) if math.isfinite(base) else "none"
    if moves.empty:
        return [Note(f"{name}: no key moves it (base {at}): no tornado.")]
    rows, fmts = keyed(moves, "variable", ["low", "base", "high"])
    if unit == "1/yr":  # a rate above the meaningful range is not a rate: blank, as econ's '-'
        for c in ("output_low", "output_high", "change_low", "change_high", "swing"):
            rows[c] = rows[c].where(~(rows[c].abs() > IRR_MEANINGFUL_MAX))
    key = (Col("variable", "key", "text"), Col("unit", "unit", "text"))
    values = tuple(Col(c, c, "row") for c in ("low", "base", "high"))
    out = [Table(output, f"{name} [{unit}]: base {at}; each key at its low, base and high",
                 rows, (*key, *values, Col("swing", f"swing [{unit}]", fmt)), kink_notes(moves),
                 row_fmt=fmts, page=not first)]  # fmt: skip
    out.append(Charts("", (Chart("bar", f"{output}_levels", f"Change in {name} from base [{unit}]", (
        Series("at low", "variable", "change_low", {"fill": {"color": RED}}),
        Series("at high", "variable", "change_high", {"fill": {"color": BLUE}})),
        x_axis={"num_format": MONEY_AXIS if output == "npv_usd" else "0.0"},
        y_axis={"reverse": True, "label_position": "low", "num_font": {"size": 7}},
        legend={"position": "bottom"}, size=(440, 480), first=TOP),), beside=output))  # fmt: skip
    out.append(Table(f"{output}_levels", f"{name} at each key's low and high [{unit}]", rows, (
        Col("variable", "key", "text"), Col("output_low", f"{name} at low", fmt),
        Col("output_high", f"{name} at high", fmt), Col("change_low", "change at low", fmt),
        Col("change_high", "change at high", fmt)),
        (f"Blank: {RATE_NOTE}.",) if unit == "1/yr" else ()))  # fmt: skip
    still = part[~part.index.isin(moves.index)]
    if len(still):
        rest, rf = keyed(still, "variable", ["low", "base", "high"])
        out.append(Table(f"{output}_none", f"Keys with no effect on {name}", rest,
                         (*key, *values), row_fmt=rf))  # fmt: skip
    return out


def kink_notes(moves: pd.DataFrame) -> tuple[str, ...]:
    """The bar ends that sit past a kink the base does not have (a clamp that binds, a tier
    served below its asked speed; docs/model.md section 7), as a note under the table."""
    from econ.sensitivity.run import marked_ends

    ends = marked_ends(moves)
    return ("Ends past a kink the base does not have: " + "; ".join(ends) + ".",) if ends else ()


# --- Grid -------------------------------------------------------------------------------------


def grid_sheet(book: Book, ws, df: pd.DataFrame) -> None:
    blocks = []
    for gid, g in df.groupby("grid", sort=False):
        for output in ("npv_usd", "payback_months"):
            blocks.append(grid_block(str(gid), g, output))
    render(book, ws, Sheet(
        "Two-way sensitivity: NPV and payback over pairs of assumptions (data/grids.csv)",
        "Red is worse, green better; NPV is yellow at zero, so that a loss is never green. A blank "
        "payback: none within the horizon.",
        "the grids",
        (40,) + (12,) * 7,
        tuple(blocks),
    ))  # fmt: skip


def grid_block(gid: str, g: pd.DataFrame, output: str) -> Matrix:
    xk, yk = str(g["x_key"].iloc[0]), str(g["y_key"].iloc[0])
    name, unit, fmt = OUTPUTS[output]
    mat = g.pivot(index="y", columns="x", values=output).sort_index(ascending=False)
    colour = {"type": "3_color_scale", "min_color": "#F8696B", "mid_color": "#FFEB84",
              "max_color": "#63BE7B"}  # fmt: skip
    if output == "payback_months":  # earlier payback is better
        colour = {**colour, "min_color": "#63BE7B", "max_color": "#F8696B"}
    else:
        colour = {**colour, "mid_type": "num", "mid_value": 0}
    notes = (f"Rows: {yk} [{key_unit(yk)}]; columns: {xk} [{key_unit(xk)}].",)
    return Matrix(f"{gid}: {name} [{unit}]", mat, "rows \\ columns", key_format(xk, mat.columns),
                  key_format(yk, mat.index), fmt, colour, notes)  # fmt: skip


# --- Monte Carlo ------------------------------------------------------------------------------


def montecarlo_sheet(book: Book, ws, a, mc: dict) -> None:
    n = mc["n"]
    voi, evppi, zero = voi_blocks(mc)
    blocks = [percentiles_block(mc["stats"]), shares_block(mc["stats"]), voi, evppi, mc_charts(),
              zero, *mc_data(mc)]  # fmt: skip
    where = render(book, ws, Sheet(
        f"Monte Carlo: {n:,} Latin-hypercube samples of data/sensitivity.csv",
        "Rank correlations of data/correlations.csv imposed (Iman-Conover); seeded (see Cover). "
        "Every statistic uses all samples, as econ sensitivity montecarlo prints it.",
        "the Monte Carlo",
        (44, 9) + (11,) * 9,
        tuple(blocks),
        printed=5,
    ))  # fmt: skip
    for name in ("percentiles", "shares"):  # for scripts and tests: the tables by name
        top, cols = where[name]
        last = top + len(blocks[0 if name == "percentiles" else 1].frame) - 1
        book.name(f"mc_{name}", f"'{ws.name}'!{xl_range_abs(top - 1, 0, last, len(cols) - 1)}")


def _is_percentile(statistic: str) -> bool:
    return re.fullmatch(r"P\d+(\.\d+)?", statistic) is not None


def percentiles_block(stats: pd.DataFrame) -> Table:
    """One row an output, in its unit: mean, its standard error and the percentiles, as the
    terminal's table (blank where it prints '-')."""
    qs = list(dict.fromkeys(s for s in stats["statistic"] if _is_percentile(s)))
    rows, fmts = [], []
    for o, g in stats.groupby("output", sort=False):
        v = dict(zip(g["statistic"], g["value"], strict=True))
        name, unit, fmt = OUTPUTS.get(str(o), (str(o), "-", "num2"))
        rows.append({"output": name, "unit": unit, "mean": v.get("mean", math.nan),
                     "se": v.get("standard error of the mean", math.nan),
                     **{q: v.get(q, math.nan) for q in qs}})  # fmt: skip
        fmts.append(fmt)
    cols = (Col("output", "output", "text"), Col("unit", "unit", "text"), Col("mean", "mean", "row"),
            Col("se", "standard error of the mean", "row"), *(Col(q, q, "row") for q in qs))  # fmt: skip
    notes = (
        "Payback: 0 = cumulative cash never negative (pays back from the start); blank = no "
        "payback within the horizon at that percentile. No mean of payback, IRR or MIRR.",
        "IRR, MIRR: percentiles of the samples that have one (the share without one is below); "
        f"blank: {RATE_NOTE}.",
    )
    return Table("percentiles", "Percentiles of each output", pd.DataFrame(rows), cols, notes,
                 fmts)  # fmt: skip


def shares_block(stats: pd.DataFrame) -> Table:
    """The probabilities and shares of the samples, each with its standard error if any."""
    v = stats.set_index(["output", "statistic"])["value"]
    rows = []
    for o, s in zip(stats["output"], stats["statistic"], strict=True):
        if (
            _is_percentile(s)
            or s in ("mean", "standard error of the mean")
            or s.startswith("standard error of ")
        ):
            continue
        what = "share without a value" if s == "share undefined" else s
        name = "Payback" if o == "payback_months" else OUTPUTS.get(o, (o,))[0]
        rows.append({"what": f"{name}: {what.replace('within the horizon', 'in the horizon')}",
                     "unit": "share",
                     "value": v[(o, s)], "se": v.get((o, f"standard error of {s}"), math.nan)})  # fmt: skip
    cols = (Col("what", "probability or share of the samples", "text"), Col("unit", "unit", "text"),
            Col("value", "value", "share"), Col("se", "standard error", "share"))  # fmt: skip
    return Table("shares", "Probabilities and shares of the samples", pd.DataFrame(rows), cols,
                 ("Never negative (cash and the GPU cost avoided): the samples with payback month 0.",))  # fmt: skip


def voi_blocks(mc: dict) -> list:
    """EVPI and each decision option's mean NPV; the inputs whose EVPPI is not 0 (printed),
    and those whose EVPPI is 0 with the reason (on the screen)."""
    rows = [{"what": "EVPI: perfect information on every input", "value": mc["evpi_usd"],
             "se": mc["evpi_se_usd"]}]  # fmt: skip
    rows += [{"what": f"Mean NPV: {k}", "value": x, "se": math.nan}
             for k, x in mc.get("options", {}).items()]  # fmt: skip
    frame = pd.DataFrame(rows).assign(unit="USD")
    best = mc.get("best_option")
    voi = Table("voi", "Value of information: what resolving an uncertainty before signing is worth",
                frame, (Col("what", "what", "text"), Col("unit", "unit", "text"),
                        Col("value", "estimate", "usd_m"), Col("se", "standard error", "usd_m")),
                ((f"Decision options fixed before the uncertainty resolves; best on average: "
                  f"{best}. " if best else "") + "EVPPI of one input: each option's NPV regressed on "
                 "the input by a penalised cubic regression spline (at most 20 knots at its "
                 "quantiles, smoothing by generalised cross-validation); standard error from 200 "
                 "bootstrap refits.",))  # fmt: skip
    ev = mc["evppi"].reset_index(drop=True)
    ev = ev.assign(input=ev["key"].map(label))
    cols = (Col("key", "key", "text"), Col("evppi", "EVPPI [USD]", "usd_m"),
            Col("evppi_se", "standard error [USD]", "usd_m"),
            Col("share_of_evpi", "share of EVPI", "pct"))  # fmt: skip
    some = ev[ev["evppi"] > 0]
    none = ev[~(ev["evppi"] > 0)]
    zero_cols = (Col("key", "key", "text"), Col("input", "input", "text"),
                 Col("reason", "why 0", "text"))  # fmt: skip
    return [voi, Table("evppi", "EVPPI: the inputs whose value of information is not 0", some, cols,
                       () if len(some) else ("None: no single input, known alone, would change "
                                             "the decision.",)),
            Table("evppi_zero", "Inputs whose EVPPI is 0: known alone, they would not change the "
                  "decision", none.assign(reason=none.get("reason", "").fillna("")), zero_cols)]  # fmt: skip


def mc_charts() -> Charts:
    """The printed charts: NPV's histogram and S-curve, P(paid back by month), the fan."""
    pct = {"num_format": "0%", "min": 0, "max": 1}
    months = {"name": "month", "interval_unit": 12, "interval_tick": 12}
    return Charts("NPV and payback over the samples", (
        Chart("column", "hist", "NPV: histogram between its 1st and 99th percentiles", (
            Series("samples", "bin_mid", "count", {"gap": 10}),),
            x_axis={"num_format": BILLIONS_AXIS, "num_font": {"rotation": -45}}),
        Chart("scatter", "s_curve", "NPV: share of all samples at or below each value", (
            Series("share at or below", "value", "share"),),
            x_axis={"num_format": BILLIONS_AXIS}, y_axis=pct, subtype="straight"),
        Chart("line", "paid", "P(paid back by month t): ends at the share that pays back", (
            Series("P(paid back by month)", "month", "share", {"line": {"color": DARK,
                                                                         "width": 2.25}}),),
            x_axis=months, y_axis=pct),
        Chart("line", "paid", "Fan of cumulative cash: P10, P50, P90 by month [USD]", tuple(
            Series(q, "month", q, {"line": {"color": c, "dash_type": d}})
            for q, c, d in (("P10", RED, "dash"), ("P50", DARK, "solid"), ("P90", GREEN, "dash"))),
            x_axis=months, y_axis={"num_format": BILLIONS_AXIS}, legend={"position": "bottom"}),
    ))  # fmt: skip


def mc_data(mc: dict) -> list:
    """What the charts read and the inputs sampled (on the screen)."""
    hist, at = mc["hist_npv"], mc["hist_npv"].attrs
    both = mc["payback_by_month"].merge(mc["fan"], on="month", how="left")
    ev = mc["evppi"][mc["evppi"]["evppi"] > 0].reset_index(drop=True)
    charts = [Chart("scatter", "convergence", "NPV mean: standard error against samples [USD]", (
        Series("standard error of the mean", "n", "standard_error"),),
        x_axis={"log_base": 10, "name": "samples"},
        y_axis={"log_base": 10, "num_format": MONEY_AXIS}, subtype="straight_with_markers")]  # fmt: skip
    if len(ev):
        charts.insert(0, Chart("bar", "evppi", "The uncertainties most worth resolving (EVPPI) [USD]",
                               (Series("EVPPI", "key", "evppi", {"fill": {"color": BLUE}}),),
                               x_axis={"num_format": MONEY_AXIS},
                               y_axis={"reverse": True, "num_font": {"size": 8}}, first=TOP))  # fmt: skip
    usd, share, num = "usd_m", "pct", "num"
    return [
        Charts("Value of information and convergence", tuple(charts)),
        Table("hist", "NPV: histogram between its 1st and 99th percentiles [USD]", hist, (
            Col("bin_low", "bin from", usd), Col("bin_high", "bin to", usd),
            Col("bin_mid", "bin middle", usd), Col("count", "samples", num),
            Col("cumulative_share", "share at or below the bin", share)),
            (f"Below the first bin: {at.get('below', 0):,}; above the last: "
             f"{at.get('above', 0):,}; undefined: {at.get('undefined', 0):,} of "
             f"{at.get('n', mc['n']):,} samples.",), page=True),
        Table("s_curve", "NPV: share of all samples at or below each value (S-curve)",
              mc["s_npv"], (Col("value", "NPV [USD]", usd), Col("share", "share at or below", share))),
        Table("paid", "P(paid back by month t) over all samples, and the fan of cumulative cash",
              both, (Col("month", "month", num), Col("share", "P(paid back by month)", share),
                     Col("standard_error", "standard error", "pct2"),
                     *(Col(q, f"cumulative cash {q} [USD]", usd) for q in ("P10", "P50", "P90")))),
        Table("convergence", "Convergence of the NPV mean: its standard error against the samples",
              mc["convergence"], (Col("n", "samples", num), Col("defined", "with an NPV", num),
                                  Col("mean", "mean NPV [USD]", usd),
                                  Col("standard_error", "standard error [USD]", usd))),
        *inputs_blocks(mc),
    ]  # fmt: skip


def inputs_blocks(mc: dict) -> list:
    """The input distributions, the correlations imposed, the keys not sampled or held."""
    prob = mc["problem"]
    dist = pd.DataFrame([{"key": v.name, "distribution": v.distribution, "low": v.low,
                          "base": v.base, "high": v.high} for v in prob.variables])  # fmt: skip
    dist, fmts = keyed(dist, "key", ["low", "base", "high"])
    out: list = [Table("inputs", "Input distributions (data/sensitivity.csv; the sampled ones)", dist, (
        Col("key", "key", "text"), Col("input", "input", "text"), Col("unit", "unit", "text"),
        Col("distribution", "distribution", "text"), Col("low", "low", "row"),
        Col("base", "base", "row"), Col("high", "high", "row")),
        ("uniform, triangular, pert: low and high are bounds; normal, lognormal: the 5th and "
         "95th percentiles.",), fmts)]  # fmt: skip
    if prob.correlation is not None:
        c = np.asarray(prob.correlation, float)
        linked = [j for j in range(len(prob.names)) if np.any(np.abs(c[j] - np.eye(len(c))[j]) > 0)]
        names = [prob.names[j] for j in linked]
        mat = pd.DataFrame(c[np.ix_(linked, linked)], index=names, columns=names)
        out.append(Matrix("Rank correlation matrix imposed (data/correlations.csv) [-]", mat,
                          "key", "text", "text", "num2"))  # fmt: skip
    if mc["unread"]:
        out.append(Note("Not sampled: the model does not read them on these assumptions (EVPPI 0): "
                        + ", ".join(mc["unread"])))  # fmt: skip
    if mc.get("held"):
        out.append(Note(held_sentence(mc["held"])))
    return out


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
    # for the screen: the workbook hides the sheet, so it does not print


# --- Sobol and break-even ---------------------------------------------------------------------


def sobol_sheet(book: Book, ws, df: pd.DataFrame) -> None:
    """The indices of the keys the model reads, largest total first, the chart beside them;
    the keys it does not read (indices 0) apart."""
    zero = (df["S1"] == 0) & (df["ST"] == 0)
    read = df[~zero].reset_index(drop=True)
    cols = (Col("variable", "key", "text"),
            *(Col(c, h, "pct") for c, h in (("S1", "first order S1"), ("S1_low", "S1 low"),
                                            ("S1_high", "S1 high"), ("ST", "total ST"),
                                            ("ST_low", "ST low"), ("ST_high", "ST high"))))  # fmt: skip
    out = str(df["output"].iloc[0]) if len(df) else "npv_usd"
    name = OUTPUTS.get(out, (out,))[0]
    chart = Chart("bar", "sobol", f"Sobol indices of {name}", tuple(
        Series(h, "variable", c, {"fill": {"color": col}})
        for h, c, col in (("first order S1", "S1", BLUE), ("total ST", "ST", RED))),
        y_axis={"reverse": True, "num_font": {"size": 8}}, x_axis={"num_format": "0%"},
        legend={"position": "bottom"}, size=(420, 480), first=TOP)  # fmt: skip
    unread = df[zero].reset_index(drop=True)
    render(book, ws, Sheet(
        f"Global sensitivity: Sobol indices of {name} (share of its variance, 95 % bootstrap "
        "intervals)",
        "Inputs sampled independently from data/sensitivity.csv; sorted by total index. First "
        "order: the share of the variance a key explains alone; total: with its interactions.",
        "the Sobol indices",
        (40,) + (11,) * 6,
        (Table("sobol", f"Sobol indices of {name} [share of its variance]", read, cols),
         Charts("", (chart,), beside="sobol"),
         Table("sobol_zero", "Keys the payback model does not read (indices 0)", unread,
               (Col("variable", "key", "text"), Col("note", "note", "text")))),
        printed=2,
    ))  # fmt: skip


def breakeven_sheet(book: Book, ws, df: pd.DataFrame) -> None:
    """Each key's break-even with its searched range, in the key's unit; why there is none,
    apart (text never among the numbers)."""
    rows, fmts = keyed(df, "key", ["base", "searched_low", "searched_high", "breakeven"])
    rows["why"] = np.where(np.isfinite(rows["breakeven"].to_numpy(float)), "", rows["message"])
    render(book, ws, Sheet(
        "Break-even: the value of each assumption at which NPV is zero (goal seek)",
        "Searched over each key's sensitivity range, the others at base; sorted by how far from "
        "base. Blank: no value in the range brings NPV to zero (column H says why).",
        "the break-even table",
        (44, 22, 18, 18, 18, 18, 14, 100),
        (Table("breakeven", "Break-even of NPV", rows, (
            Col("key", "key", "text"), Col("unit", "unit", "text"),
            Col("searched_low", "searched from", "row"), Col("base", "base", "row"),
            Col("searched_high", "searched to", "row"),
            Col("breakeven", "break-even", "row"),
            Col("change_from_base", "change from base [share]", "pct"),
            Col("why", "why none (a remark; not printed)", "text")), row_fmt=fmts),),
        last_col=5,  # the printout shows columns A to F
    ))  # fmt: skip


# --- for other snapshot sheets (Explain) ---------------------------------------------------------


def _head(book: Book, ws, title: str, note: str, what: str) -> int:
    s = book.styles
    ws.write_string(0, 0, title, s("title"))
    ws.write_string(1, 0, note, s("note"))
    banner(ws, book, 2, what)
    return 4


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
