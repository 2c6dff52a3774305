"""The served model's physics envelope on the contract and GPU platforms, as econ computes it
(docs/model.md, sections 3.4, V4.4 and V4.5), live on the Capacity sheet.

econ's envelope takes, for each candidate layout of k stages (k_min, then the stage grid up to
the run's cap), the best serving speed c >= s: a stage group's output min((spec - c a_k) / D_k,
c b_k) is the minimum of a falling and a rising line in c, so its maximum over c >= s is the
peak c*_k b_k where s <= c*_k = spec / (a_k + b_k D_k), and (spec - s a_k) / D_k beyond it; a
layout whose memory cannot hold a stream (b_k <= 0) serves nothing. The envelope is the largest
of these, capped by the compute limit, in tokens/s per facility MW. The sheet writes that
maximum over the layouts' rows as SUMPRODUCT(MAX(...)): SUMPRODUCT makes MAX read them as an
array in Excel and LibreOffice alike, without an array entry.

The layouts' stage counts, the realisation eta at each regime and the stage cap are values of
the run (they follow the served model's size and the hardware's memory, which take a rerun);
what the envelope reads from the KV cache (the context and the KV bytes a token), the prefill
and the frontier scale is live, and so is the throughput that feeds the money. Where a
platform's realisation rises with the regime x = s / ceiling, econ replaces the transferred
curve by its hull (the largest eta x envelope at any faster regime on a grid of x,
interpolated); the sheet does the same on the same grid.
"""

from __future__ import annotations

import re

import numpy as np

from econ.assumptions import Assumptions
from econ.compute import physics, tables, transfer
from econ.model import HULL_X, Results
from econ.report.capacity_rows import (
    PHYSICS,
    Column,
    Marked,
    Note,
    Table,
    chip_cells,
    f,
    physics_values,
    platform_row,
)
from econ.report.rows import Result, Section

# the roles: (the chip's cells, the physics rows, this block's names)
ROLES = {"contract": ("cap_", "phys_", "envc_"), "gpu": ("ghw_", "gphys_", "envg_")}
# the tiers whose served speed reads each platform's curve (the money, section 0.1)
TIERS = {"contract": ("ultrafast", "standard"), "gpu": ("standard", "fast")}
SPEC = "model_speculative_speedup"


def env_formula(speed: str, e: str, ph: str) -> str:
    """The envelope at ``speed`` [tokens/s/MW]: the best layout's output at its best serving
    speed, capped by compute, per facility MW."""
    return (f"MIN(SUMPRODUCT(MAX(({e}layout_b>0)*(({speed}<={e}layout_cs)*{e}layout_pk"
            f"+({speed}>{e}layout_cs)*({SPEC}-{speed}*{e}layout_a)/{e}layout_d))),"
            f"{ph}compute)*{ph}per_mw")  # fmt: skip


def _rename(formula: str, hw: str, ph: str) -> str:
    """A physics formula of the contract platform, on another chip's cells and rows."""
    return re.sub(r"\bphys_", ph, re.sub(r"\bcap_", hw, formula))


def gpu_physics_rows(a: Assumptions) -> list:
    gpu = str(a.values["capacity.gpu_platform"])
    v = physics_values(a, gpu)
    return [
        Section(f"The physics of the served model on the GPU platform ({gpu}; live)"),
        *platform_row(a, gpu, "ghw_row", "capacity_gpu_platform"),
        *chip_cells(a, gpu, "ghw_", "ghw_row"),
        *[
            Result(f"gphys_{k}", label, unit, fmt, _rename(formula, "ghw_", "gphys_"), v[k])
            for k, label, unit, fmt, formula in PHYSICS
        ],  # fmt: skip
    ]


def _layouts(a: Assumptions, plat: str) -> dict[str, tuple]:
    """The candidate layouts of econ's envelope on the platform (k_min, then the stage grid up
    to the run's cap) and their terms, each a tuple down the layouts."""
    m, ch = tables.served_model(a), tables.chip(a, plat)
    hold, read, kv = (float(x) for x in physics.weight_bytes(m))
    _, k_min = (float(x) for x in physics.layout(m, ch))
    cap = max(transfer.stage_cap(a, plat), k_min)
    ks = [k_min] + [float(k) for k in physics.stage_grid(k_min, cap) if k > k_min]
    rate, link = float(physics.read_rate(ch)), float(ch.link_gb_s) * 1e9
    x_hop = float(m.d_model) * float(m.bytes_per_param)
    layers = float(m.layers) * float(ch.layer_latency_us) * 1e-6
    hop = float(ch.hop_latency_us) * 1e-6
    spec = float(m.speculative_speedup)
    cols: dict[str, list] = {n: [] for n in ("label", "k", "hops", "a", "d", "b", "cs", "pk")}
    for i, k in enumerate(ks):
        k_, a_k, d_k, b_k = (float(x) for x in physics.layout_terms(
            k, hop, layers, read / rate, kv / rate, x_hop, link, float(ch.domain_chips),
            float(ch.memory_gb) * 1e9, hold, kv))  # fmt: skip
        with np.errstate(all="ignore"):
            cs = spec / (a_k + b_k * d_k)
        cs = float(np.nan_to_num(cs, nan=0.0, posinf=0.0, neginf=0.0))
        for n, x in (
            ("label", f"{plat} layout {i + 1}"),
            ("k", k_),
            ("hops", k_ if k_ >= 2 else 0.0),
            ("a", a_k),
            ("d", d_k),
            ("b", b_k),
            ("cs", cs),
            ("pk", cs * b_k),
        ):
            cols[n].append(x)
    return {n: tuple(v) for n, v in cols.items()}


def _envelope(a: Assumptions, plat: str, speeds) -> list[float]:
    """econ's envelope of the served model on the platform at each speed [tokens/s/MW]."""
    m, ch = tables.served_model(a), tables.chip(a, plat)
    env = physics.envelope(np.asarray(speeds, float), m, ch, a.num("facility.pue"),
                           k_cap=transfer.stage_cap(a, plat))  # fmt: skip
    return [float(x) for x in np.asarray(env.throughput, float).reshape(-1)]


def envelope_rows(a: Assumptions, r: Results, role: str, formulas: dict[str, str]) -> list:
    """The envelope block of one platform: its layouts, the hull where its realisation rises
    with the regime, and the envelope at each tier's served speed. ``formulas`` receives, by
    tier, the formula of the throughput there that feeds the money (the rows thr_<tier> and
    gpu_thr_<tier> of econ/report/capacity_rows.py, which carry the run's values)."""
    hw, ph, e = ROLES[role]
    plat = str(a.values["contract.platform" if role == "contract" else "capacity.gpu_platform"])
    basis = a.values["capacity.basis"]
    lay = _layouts(a, plat)
    L = lambda n, head, unit, fmt, formula: Column(n, head, unit, fmt, formula, lay[n])  # noqa: E731
    out: list = [
        Section(f"The physics envelope on {plat}, as econ computes it (sections 3.4, V4.5; live)"),
        Note(
            "Each candidate layout of econ's envelope: k stages (values of the run), its fixed "
            "time a_k, time per stream D_k and memory room b_k;"
        ),
        Note(
            "c*_k: the serving speed where the bandwidth and memory limits meet; c*_k b_k: the "
            "most the layout serves to users asking for c*_k or less."
        ),
        Table(
            f"{e}layout",
            (
                L("label", "Layout", "", "text", None),
                Column("k", "Stages k", "stages", "num", None, lay["k"], run=True),
                L("hops", "Hops h(k)", "hops", "num", "IF([k]>=2,[k],0)"),
                L(
                    "a",
                    "a_k = F(k) + W/R",
                    "s",
                    "sci",
                    f"[hops]*{ph}hop_time+{ph}layers_time+{ph}w_time",
                ),
                L(
                    "d",
                    "D_k",
                    "s a stream",
                    "sci",
                    f"{ph}kv_time+IF({ph}link>0,[hops]*{ph}x_hop/{ph}link,0)",
                ),
                L(
                    "b",
                    "Memory room b_k",
                    "streams",
                    "num1",
                    f"([k]*{hw}domain_chips*{hw}memory_gb*constant_bytes_per_gb-{ph}w_hold)/([k]*{ph}kv)",
                ),
                L("cs", "c*_k", "tokens/s/user", "num1", f"IFERROR({SPEC}/([a]+[b]*[d]),0)"),
                L("pk", "Peak output c*_k b_k", "tokens/s", "num", "[cs]*[b]"),
            ),
        ),  # fmt: skip
        Marked(
            f"{e}stage_cap",
            "Stage cap of the run (16 x k_min, data values)",
            "stages",
            "num",
            transfer.stage_cap(a, plat),
        ),
    ]
    tiers = TIERS[role]
    speeds = {t: f(getattr(r, f"served_tokens_per_s_{t}")) for t in tiers}
    if not np.isfinite(speeds.get("ultrafast", 0.0)):
        speeds["ultrafast"] = a.num("tiers.ultrafast.tokens_per_s")
    env_t = dict(zip(tiers, _envelope(a, plat, [speeds[t] for t in tiers]), strict=True))
    eta = transfer.realisation(a, plat)
    ceiling = float(physics.ceiling(tables.served_model(a), tables.chip(a, plat)))
    hull = basis == "transferred" and not eta.non_increasing
    scale = f"*hardware_{plat}_frontier_scale" if basis == "transferred" else ""
    if hull:
        grid = np.unique(np.concatenate([np.asarray(HULL_X), np.asarray(eta.x)]))
        grid = grid[grid <= 1.0]
        env_g = _envelope(a, plat, grid * ceiling)
        eta_g = [float(x) for x in eta(grid)]
        vals = [x * y for x, y in zip(eta_g, env_g, strict=True)]
        acc = list(np.maximum.accumulate(vals[::-1])[::-1])
        H = lambda n, head, unit, fmt, formula, v: Column(n, head, unit, fmt, formula, tuple(v))  # noqa: E731
        out += [
            Note(f"{plat}'s realisation rises with the regime x: econ takes the hull, the largest "
                 "eta x envelope at x or any faster regime,"),
            Note("on the grid of regimes below, interpolated in x at each tier's served speed."),
            Table(f"{e}hull", (
                H("label", "Regime", "", "text", None, [f"{plat} regime {j + 1}" for j in range(len(grid))]),
                Column("x", "x = s / s_ceil", "-", "num4", None, tuple(float(g) for g in grid),
                       run=True),
                Column("eta", "Realisation eta(x)", "-", "num4", None, tuple(eta_g), run=True),
                H("speed", "Speed x s_ceil", "tokens/s/user", "num1", f"[x]*{ph}ceiling",
                  grid * ceiling),
                H("env", "Envelope", "tokens/s/MW", "num", env_formula("[speed]", e, ph), env_g),
                H("val", "eta x envelope", "tokens/s/MW", "num", "[eta]*[env]", vals),
                H("hull", "Hull, x or faster", "tokens/s/MW", "num",
                  f"MAX(INDEX({e}hull_val,{{i}}):INDEX({e}hull_val,ROWS({e}hull_val)))", acc),
            )),
        ]  # fmt: skip
    for t in tiers:
        s_name = f"served_{t}"
        out.append(
            Result(
                f"{e}env_{t}",
                f"Envelope at the {t} served speed",
                "tokens/s/MW",
                "num",
                env_formula(s_name, e, ph),
                env_t[t],
            )
        )
        if basis == "physics":
            formula = f"{e}env_{t}"
        elif not hull:
            formula = f"eta_{plat}_{t}*{e}env_{t}{scale}"
        else:
            x_g, hl = f"{e}hull_x", f"{e}hull_hull"
            x_t = speeds[t] / ceiling
            j = int(np.clip(np.searchsorted(grid, x_t, side="right") - 1, 0, len(grid) - 2))
            w = float(np.clip((x_t - grid[j]) / (grid[j + 1] - grid[j]), 0.0, 1.0))
            out += [
                Result(f"{e}x_{t}", f"Regime x of the {t} served speed", "-", "num4",
                       f"{s_name}/{ph}ceiling", x_t),
                Result(f"{e}j_{t}", "  its interval on the grid", "row", "num",
                       f"MIN(IFERROR(MATCH({e}x_{t},{x_g},1),1),ROWS({x_g})-1)", float(j + 1)),
                Result(f"{e}w_{t}", "  its position in the interval", "-", "num4",
                       f"MIN(MAX(({e}x_{t}-INDEX({x_g},{e}j_{t}))/(INDEX({x_g},{e}j_{t}+1)"
                       f"-INDEX({x_g},{e}j_{t})),0),1)", w),
            ]  # fmt: skip
            formula = (
                f"IF({e}x_{t}<INDEX({x_g},1),MAX(eta_{plat}_{t}*{e}env_{t},INDEX({hl},1)),"
                f"INDEX({hl},{e}j_{t})*(1-{e}w_{t})+INDEX({hl},{e}j_{t}+1)*{e}w_{t}){scale}"
            )
        formulas[t] = formula
    return out


def envelope_blocks(a: Assumptions, r: Results) -> tuple[list, dict[str, str]]:
    """The envelope's live rows of the contract and GPU platforms (none on the data basis; no
    GPU block where capacity.gpu_cost_per_mtok_usd sets the value of a GPU token), and the
    formulas of the throughputs that feed the money by row name (thr_ultrafast, thr_standard,
    gpu_thr_standard, gpu_thr_fast)."""
    if a.values["capacity.basis"] == "data":
        return [], {}
    contract: dict[str, str] = {}
    gpu: dict[str, str] = {}
    out = envelope_rows(a, r, "contract", contract)
    if "capacity.gpu_cost_per_mtok_usd" not in a.values:
        out += gpu_physics_rows(a) + envelope_rows(a, r, "gpu", gpu)
    formulas = {f"thr_{t}": x for t, x in contract.items()}
    formulas["thr_ultrafast"] = f"IF(ultrafast_offered=1,{formulas['thr_ultrafast']},0)"
    return out, {**formulas, **{f"gpu_thr_{t}": x for t, x in gpu.items()}}
