"""PNG charts beside the workbook (for the markdown summary and for slides). Formats results only."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no screen
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from econ.model import Results  # noqa: E402

TOP = 12


def _save(fig, path: Path) -> Path:
    tmp = path.with_name(f".{path.name}.tmp")
    fig.savefig(tmp, dpi=110, bbox_inches="tight", format="png")
    plt.close(fig)
    os.replace(tmp, path)
    return path


def payback_curve(r: Results, term: int, folder: Path) -> Path:
    """Cumulative cash and cumulative discounted cash by month, with the end of the term marked."""
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


def tornado(df: pd.DataFrame, folder: Path, output: str = "npv") -> Path:
    """Horizontal bars of the change in an output at each variable's low and high."""
    part = df[df["output"] == output].head(TOP).iloc[::-1]
    scale, unit = (1e9, "USD billion") if output == "npv" else (1.0, "months")
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(part) + 1.2))
    y = np.arange(len(part))
    ax.barh(y, part["change_low"] / scale, color="#C00000", label="at low")
    ax.barh(y, part["change_high"] / scale, color="#2E75B6", label="at high")
    ax.set_yticks(y, part["variable"])
    ax.axvline(0, color="black", lw=0.8)
    ax.set_xlabel(f"change in {output} from base [{unit}]")
    ax.set_title(f"Tornado: {output}")
    ax.legend(frameon=False, loc="lower right")
    return _save(fig, folder / f"tornado_{output}.png")


def histogram(hist: pd.DataFrame, folder: Path, name: str = "npv") -> Path:
    """Monte Carlo histogram with its S-curve on a second axis."""
    scale = 1e9 if name == "npv" else 1.0
    fig, ax = plt.subplots(figsize=(8, 4))
    width = (hist["bin_high"] - hist["bin_low"]).to_numpy() / scale
    ax.bar(hist["bin_mid"] / scale, hist["count"], width=width, color="#9DC3E6", edgecolor="white")
    ax.set_xlabel("NPV [USD billion]" if name == "npv" else "payback month")
    ax.set_ylabel("samples")
    ax2 = ax.twinx()
    ax2.plot(hist["bin_high"] / scale, hist["cumulative_share"], color="#1F4E79")
    ax2.set_ylim(0, 1)
    ax2.set_ylabel("share at or below")
    ax.set_title(f"Monte Carlo: {name}")
    return _save(fig, folder / f"montecarlo_{name}.png")


def frontier(curves: pd.DataFrame, folder: Path) -> Path:
    """Each platform's throughput per MW against per-user speed (log-log)."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for p, g in curves.groupby("platform", sort=False):
        ax.plot(g["tokens_per_s_per_user"], g["tokens_per_s_per_mw"], label=p, lw=2)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("tokens/s per user")
    ax.set_ylabel("tokens/s per MW")
    ax.set_title("Throughput against responsiveness")
    ax.legend(frameon=False)
    return _save(fig, folder / "frontier.png")


def write_all(r: Results, analysis: dict, term: int, folder: Path) -> list[Path]:
    """Every chart whose data is present; returns the files written."""
    out = [payback_curve(r, term, folder), frontier(analysis["frontier_curves"], folder)]
    if "tornado" in analysis:
        out.append(tornado(analysis["tornado"], folder, "npv"))
    if "mc_hist_npv" in analysis:
        out.append(histogram(analysis["mc_hist_npv"], folder, "npv"))
    return out
