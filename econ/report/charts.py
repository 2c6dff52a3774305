"""PNG charts beside the workbook (for summary.md and for slides). Formats results only."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no screen
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from econ.model import Results  # noqa: E402
from econ.report.labels import label  # noqa: E402

TOP = 12
COLORS = ["#1F4E79", "#C00000", "#548235", "#7030A0", "#BF8F00", "#2E75B6"]


def _save(fig, path: Path) -> Path:
    tmp = path.with_name(f".{path.name}.tmp")
    fig.savefig(tmp, dpi=110, bbox_inches="tight", format="png")
    plt.close(fig)
    os.replace(tmp, path)
    return path


def payback_curve(r: Results, term: int, folder: Path) -> Path:
    """Cumulative cash and cumulative discounted cash by month, the end of the term marked."""
    fig, ax = plt.subplots(figsize=(8, 4))
    m = r.months
    ax.plot(m, r.cumulative_cash[0] / 1e9, label="cumulative cash", color="#1F4E79", lw=2)
    ax.plot(
        m,
        r.cumulative_discounted_cash[0] / 1e9,
        label="cumulative discounted cash",
        color="#2E75B6",
        lw=1.5,
        ls="--",
    )
    ax.axhline(0, color="black", lw=0.8)
    ax.axvline(term, color="#C00000", lw=0.8, ls=":", label=f"end of the {term}-month term")
    ax.set_xlabel("month")
    ax.set_ylabel("USD billion")
    ax.set_title("Payback curve")
    ax.legend(frameon=False)
    return _save(fig, folder / "payback_curve.png")


def tornado(df: pd.DataFrame, folder: Path, output: str = "npv_usd") -> Path:
    """Horizontal bars of the change in an output at each variable's low and high."""
    part = df[df["output"] == output].head(TOP).iloc[::-1]
    scale, unit = (1e9, "USD billion") if output == "npv_usd" else (1.0, "months")
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(part) + 1.2))
    y = np.arange(len(part))
    ax.barh(y, part["change_low"] / scale, color="#C00000", label="at low")
    ax.barh(y, part["change_high"] / scale, color="#2E75B6", label="at high")
    ax.set_yticks(y, [label(v) for v in part["variable"]], fontsize=8)
    ax.axvline(0, color="black", lw=0.8)
    ax.set_xlabel(f"change from base [{unit}]")
    ax.set_title("Tornado: NPV" if output == "npv_usd" else f"Tornado: {output}")
    ax.legend(frameon=False, loc="lower right")
    return _save(fig, folder / "tornado_npv.png")


def histogram(hist: pd.DataFrame, folder: Path) -> Path:
    """Monte Carlo histogram of NPV between P1 and P99, its S-curve on a second axis."""
    fig, ax = plt.subplots(figsize=(8, 4))
    width = (hist["bin_high"] - hist["bin_low"]).to_numpy() / 1e9
    ax.bar(hist["bin_mid"] / 1e9, hist["count"], width=width, color="#9DC3E6", edgecolor="white")
    ax.set_xlabel("NPV [USD billion]")
    ax.set_ylabel("samples")
    ax2 = ax.twinx()
    ax2.plot(hist["bin_high"] / 1e9, hist["cumulative_share"], color="#1F4E79")
    ax2.set_ylim(0, 1)
    ax2.set_ylabel("share at or below")
    at = hist.attrs
    ax.set_title(
        f"Monte Carlo: NPV, P1 to P99 ({at.get('below', 0):,} below, {at.get('above', 0):,} above)"
    )
    return _save(fig, folder / "montecarlo_npv.png")


def fan(fan_df: pd.DataFrame, paid: pd.DataFrame, term: int, folder: Path) -> Path:
    """The fan of cumulative cash (P10/P50/P90) and P(paid back by month)."""
    fig, ax = plt.subplots(figsize=(8, 4))
    m = fan_df["month"]
    ax.fill_between(
        m, fan_df["P10"] / 1e9, fan_df["P90"] / 1e9, color="#9DC3E6", alpha=0.6, label="P10 to P90"
    )
    ax.plot(m, fan_df["P50"] / 1e9, color="#1F4E79", lw=2, label="median")
    ax.axhline(0, color="black", lw=0.8)
    ax.axvline(term, color="#C00000", lw=0.8, ls=":")
    ax.set_xlabel("month")
    ax.set_ylabel("cumulative cash [USD billion]")
    ax2 = ax.twinx()
    ax2.plot(paid["month"], paid["share"], color="#548235", lw=1.5, label="P(paid back by month)")
    ax2.set_ylim(0, 1)
    ax2.set_ylabel("P(paid back by month)")
    ax.set_title("Monte Carlo: the fan of cumulative cash and the chance of having paid back")
    lines = ax.get_legend_handles_labels()
    lines2 = ax2.get_legend_handles_labels()
    ax.legend(
        lines[0] + lines2[0], lines[1] + lines2[1], frameon=False, loc="upper left", fontsize=8
    )
    return _save(fig, folder / "montecarlo_fan.png")


def frontier(
    curves: pd.DataFrame, speeds: pd.DataFrame, tier_speeds: dict[str, float], folder: Path
) -> Path:
    """Each platform's data curve and physics envelope (log-log), the tier speeds and the public
    model speeds the articles quote."""
    fig, ax = plt.subplots(figsize=(8, 5.6))
    for n, (p, g) in enumerate(curves.groupby("platform", sort=False)):
        c = COLORS[n % len(COLORS)]
        d = g[g["curve"] == "data"]
        e = g[g["curve"] == "physics"]
        ax.plot(
            d["tokens_per_s_per_user"], d["tokens_per_s_per_mw"], color=c, lw=2, label=f"{p}: data"
        )
        if len(e):
            ax.plot(
                e["tokens_per_s_per_user"],
                e["tokens_per_s_per_mw"],
                color=c,
                lw=1,
                ls="--",
                label=f"{p}: physics",
            )
    ax.set_xscale("log")  # before the limits below are read
    ax.set_yscale("log")
    for t, s in tier_speeds.items():
        ax.axvline(s, color="grey", lw=0.6, ls=":")
        ax.text(s, ax.get_ylim()[1], f" {t}", rotation=90, va="top", fontsize=7, color="grey")
    if len(speeds):
        y0 = ax.get_ylim()[0]
        ax.scatter(
            speeds["tokens_per_s"],
            [y0 * 1.5] * len(speeds),
            marker="^",
            color="black",
            s=18,
            zorder=3,
        )
        for x, name in zip(speeds["tokens_per_s"], speeds["model"], strict=True):
            ax.annotate(
                name,
                (x, y0 * 1.5),
                rotation=60,
                fontsize=6,
                xytext=(0, 4),
                textcoords="offset points",
            )
    ax.set_xlabel("tokens/s per user")
    ax.set_ylabel("tokens/s per facility MW")
    ax.set_title("Throughput against responsiveness: data curves, physics envelopes, public speeds")
    ax.legend(frameon=False, fontsize=7, ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.12))
    return _save(fig, folder / "frontier.png")


def write_all(r: Results, analysis: dict, a, folder: Path) -> list[Path]:
    """Every chart whose data is present; returns the files written."""
    term = int(a.values["contract.term_months"])
    tiers = {t: a.num(f"tiers.{t}.tokens_per_s") for t in a.tier_ids()}
    out = [
        payback_curve(r, term, folder),
        frontier(analysis["frontier_curves"], analysis["speeds"], tiers, folder),
    ]
    if "tornado" in analysis:
        out.append(tornado(analysis["tornado"], folder))
    if "mc" in analysis:
        mc = analysis["mc"]
        out.append(histogram(mc["hist_npv"], folder))
        out.append(fan(mc["fan"], mc["payback_by_month"], term, folder))
    return out
