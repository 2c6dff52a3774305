"""The Capacity sheet's rows, one declaration each (docs/extending.md, "A row of the workbook").

Each row states once its defined name, label, unit, number format, formula (on the workbook's
defined names) and the Python model's value; ``econ/report/capacity_sheet.py`` renders the list.
Besides the declarations of ``econ/report/rows.py`` (``Section``, ``Result``), the sheet has:

- ``Note``: an italic line under a block title;
- ``Across``: one row with a named cell per key (a tier): ``{key}`` in the name and formula;
- ``Table``: one row per item (a frontier point, a layout), one ``Column`` declaration each;
  ``[col]`` in a column's formula is the same row's cell of column ``col``, ``[col+1]`` the next
  row's, ``{i}`` the item's number (1, 2, ...); each column is the defined name
  ``<table>_<col>``;
- ``Marked``: a value of the econ run that cannot be a live formula, styled "rerun econ" and
  listed on Checks (docs/model.md, section 8).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from econ.assumptions import TABLES, Assumptions
from econ.compute import capacity as cap
from econ.compute import physics, tables
from econ.model import Results
from econ.report.labels import COLUMN_LABELS
from econ.report.rows import Result, Section

HW_FIELDS = ("memory_gb", "bandwidth_tb_s", "tflops", "tflops_fp8", "tflops_fp4", "power_kw",
             "domain_chips",
             "hop_latency_us", "layer_latency_us", "link_gb_s", "efficiency", "frontier_scale",
             "price_usd", "life_years")  # fmt: skip
CURVE_TIERS = ("ultrafast", "standard")  # the tier speeds whose throughput feeds the money


@dataclass(frozen=True)
class Note:
    text: str


@dataclass(frozen=True)
class Header:
    """The header of the ``Across`` rows below it: a title in the label column, then the keys."""

    title: str
    keys: tuple[str, ...]


@dataclass(frozen=True)
class Across:
    """One row, a named cell per key (``values``: key -> the Python value)."""

    name: str
    label: str
    unit: str
    fmt: str
    formula: str
    values: dict[str, Any]


@dataclass(frozen=True)
class Column:
    """A column of a ``Table``: ``formula`` None writes ``values`` as text (a row label), or
    with ``run`` as numbers of the econ run (styled "rerun econ", like ``Marked``)."""

    name: str
    header: str
    unit: str
    fmt: str
    formula: str | None
    values: tuple
    run: bool = False


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[Column, ...]


@dataclass(frozen=True)
class Marked:
    name: str
    label: str
    unit: str
    fmt: str
    value: float
    match: str | None = None


def f(x: Any) -> float:
    """A scalar of the run (scenario 0 of an array) as a float."""
    return float(np.asarray(x, float).reshape(-1)[0])


# fmt: off
def platform_rows(a: Assumptions) -> list:
    plat = str(a.values["contract.platform"])
    out: list = [
        Section("The contract platform"),
        Result("cap_platform", "Contract platform", "id", "text", "contract_platform", plat),
        *platform_row(a, plat, "cap_hw_row", "cap_platform"),
    ]
    return out + chip_cells(a, plat, "cap_", "cap_hw_row")


def platform_row(a: Assumptions, plat: str, name: str, platform: str) -> list:
    """A platform's row in hardware.csv, by MATCH; the run's row while the platform typed is
    not a row (the input's own rule then fails on Checks and the model is not live), so that
    no error value reaches the money."""
    row = float(a.platforms().index(plat) + 1)
    return [
        Marked(f"{name}_run", "Its row in the run", "row", "num", row),
        Result(name, "Its row in hardware.csv (the run's if not a row)", "row", "num",
               f"IFERROR(MATCH({platform},hardware_ids,0),{name}_run)", row),
    ]


def chip_cells(a: Assumptions, plat: str, prefix: str, row: str) -> list:
    """A platform's row of hardware.csv, a cell a column (blank: 0), read by INDEX at ``row``."""
    out = []
    for c in HW_FIELDS:
        v = a.values.get(f"hardware.{plat}.{c}")
        blank = " (0: none)" if c in ("link_gb_s", "tflops_fp8", "tflops_fp4") else ""
        unit = TABLES["hardware"].columns[c].unit + blank
        out.append(Result(f"{prefix}{c}", f"  {COLUMN_LABELS[c]}", unit,
                          "usd" if c == "price_usd" else "g",
                          f"N(INDEX(hardware_{c},{row}))", 0.0 if v is None else float(v)))
    return out


FIRST, LAST = "[platform]<>[platform-1]", "[platform]<>[platform+1]"
# the three-point estimate at a curve's ends (section 3.1; scipy's PchipInterpolator)
END3 = (f"IF(OR([n]<3,AND(NOT({FIRST}),NOT({LAST}))),0,IF({FIRST},"
        "((2*[h]+[h+1])*[m]-[h]*[m+1])/([h]+[h+1]),((2*[h-1]+[h-2])*[m-1]-[h-1]*[m-2])/([h-1]+[h-2])))")
M0, M1 = f"IF({FIRST},[m],[m-1])", f"IF({FIRST},[m+1],[m-2])"
END = (f"IF([end3]=0,0,IF(SIGN([end3])<>SIGN({M0}),0,"
       f"IF(AND(SIGN({M0})<>SIGN({M1}),ABS([end3])>3*ABS({M0})),3*{M0},[end3])))")
W1, W2 = "(2*[h]+[h-1])", "([h]+2*[h-1])"
SLOPE = (f"IF([n]=1,0,IF([n]=2,IF({LAST},[m-1],[m]),IF(OR({FIRST},{LAST}),[end],"
         f"IF(OR(SIGN([m-1])<>SIGN([m]),[m-1]=0,[m]=0),0,({W1}+{W2})/({W1}/[m-1]+{W2}/[m])))))")


def knot_table(a: Assumptions) -> list:
    """The frontier's PCHIP in log-log space, one row per point of frontier.csv (as on Tables)."""
    cols: dict[str, list] = {k: [] for k in ("id", "platform", "speed", "throughput", "x", "y",
                                             "n", "h", "m", "end3", "end", "d")}
    for p in a.platforms():
        xs, ys = a.frontier_points(p)
        k = cap.pchip_knots(xs, ys)
        n = len(xs)
        for i, fid in enumerate(a.frontier_ids(p)):
            inner = i < n - 1
            end3 = _end3(k, i) if n >= 3 and i in (0, n - 1) else 0.0
            for key, v in (("id", fid), ("platform", p), ("speed", xs[i]), ("throughput", ys[i]),
                           ("x", k["x"][i]), ("y", k["y"][i]), ("n", n),
                           ("h", k["h"][i] if inner else 0), ("m", k["m"][i] if inner else 0),
                           ("end3", end3), ("end", k["d"][i] if end3 else 0), ("d", k["d"][i])):
                cols[key].append(v if isinstance(v, str) else float(v))
    C = lambda name, head, unit, fmt, formula: Column(name, head, unit, fmt, formula,  # noqa: E731
                                                      tuple(cols[name]))
    return [
        Section("Frontier curves in log-log space (PCHIP knots; rows as on Tables)"),
        Note("h, m: to the platform's next point (0 at its last); end slopes: at a platform's "
             "first and last points (0 inside); a platform starts where the one above differs."),
        Table("pchip", (
            C("id", "Point", "id", "text", "INDEX(frontier_ids,{i})"),
            C("platform", "Platform", "id", "text", "INDEX(frontier_platform,{i})"),
            C("speed", "Speed", "tokens/s/user", "num", "INDEX(frontier_tokens_per_s_per_user,{i})"),
            C("throughput", "Throughput", "tokens/s/MW", "num",
              "INDEX(frontier_tokens_per_s_per_mw,{i})"),
            C("x", "x = ln speed", "ln", "num4", "LN([speed])"),
            C("y", "y = ln thr", "ln", "num4", "LN([throughput])"),
            C("n", "Points n", "points", "num", "COUNTIF(pchip_platform,[platform])"),
            C("h", "h = next x - x", "ln", "num4", f"IF({LAST},0,[x+1]-[x])"),
            C("m", "m = secant slope", "-", "num4", f"IF({LAST},0,([y+1]-[y])/[h])"),
            C("end3", "End slope, 3-point", "-", "num4", END3),
            C("end", "End slope, limited", "-", "num4", END),
            C("d", "Slope d (PCHIP)", "-", "num4", SLOPE),
        )),
    ]
# fmt: on


def _end3(k: dict, i: int) -> float:
    h, m = k["h"], k["m"]
    j, s = (0, 1) if i == 0 else (i - 1, -1)  # the end interval, then the next one inwards
    return ((2 * h[j] + h[j + s]) * m[j] - h[j] * m[j + s]) / (h[j] + h[j + s])


def _segment(a: Assumptions, plat: str, speed: float) -> dict[str, float]:
    """The Python values of a tier's rows of the curve block (cap.pchip_segment, hermite)."""
    xs, ys = a.frontier_points(plat)
    kn = cap.pchip_knots(xs, ys)
    n = len(xs)
    i, t = (0, 0.0)
    if n > 1:
        si, st = cap.pchip_segment(kn["x"], np.log(np.clip(speed, min(xs), max(xs))))
        i, t = int(si), float(st)
    first = [p for p in a.platforms() for _ in a.frontier_ids(p)].index(plat) + 1
    out = {"speed": speed, "first": first, "points": n, "lo": min(xs), "hi": max(xs),
           "covers": bool(cap.covers(xs, speed)), "index": first + i, "t": t,
           "h": kn["h"][i] if n > 1 else 0.0, "y0": kn["y"][i],
           "y1": kn["y"][i + 1] if n > 1 else kn["y"][i], "d0": kn["d"][i],
           "d1": kn["d"][i + 1] if n > 1 else 0.0,
           "w00": 2 * t**3 - 3 * t**2 + 1, "w10": t**3 - 2 * t**2 + t,
           "w01": -2 * t**3 + 3 * t**2, "w11": t**3 - t**2}  # fmt: skip
    out["lny"] = (out["w00"] * out["y0"] + out["w10"] * out["h"] * out["d0"]
                  + out["w01"] * out["y1"] + out["w11"] * out["h"] * out["d1"])  # fmt: skip
    data = tables.data_throughput(a, plat, speed)
    out["data"] = float(data) if np.isfinite(data) else 0.0
    return {k: v if isinstance(v, bool) else float(v) for k, v in out.items()}


# fmt: off
CURVE = (  # name, label, unit, format, formula; {key}: the tier
    ("speed", "Speed", "tokens/s/user", "num", "tiers_{key}_tokens_per_s"),
    ("first", "First point of the platform", "row", "num", "MATCH(cap_platform,pchip_platform,0)"),
    ("points", "Points", "points", "num", "COUNTIF(pchip_platform,cap_platform)"),
    ("lo", "Slowest point", "tokens/s/user", "num", "INDEX(pchip_speed,cap_first_{key})"),
    ("hi", "Fastest point", "tokens/s/user", "num",
     "INDEX(pchip_speed,cap_first_{key}+cap_points_{key}-1)"),
    ("covers", "The curve covers the speed", "TRUE/FALSE", "bool",
     "AND(cap_speed_{key}>=cap_lo_{key}*(1-constant_cover_rtol),"
     "cap_speed_{key}<=cap_hi_{key}*(1+constant_cover_rtol))"),
    ("index", "Interval: its first point", "row", "num",
     'cap_first_{key}+MIN(MAX(COUNTIFS(pchip_platform,cap_platform,pchip_speed,"<="&cap_speed_{key}),'
     "1),MAX(cap_points_{key}-1,1))-1"),
    ("t", "Position in the interval, t", "-", "num4",
     "IF(cap_points_{key}=1,0,(LN(MIN(MAX(cap_speed_{key},cap_lo_{key}),cap_hi_{key}))"
     "-INDEX(pchip_x,cap_index_{key}))/INDEX(pchip_h,cap_index_{key}))"),
    ("h", "Interval width, h", "ln", "num4", "INDEX(pchip_h,cap_index_{key})"),
    ("y0", "ln throughput at the interval's start, y0", "ln", "num4",
     "INDEX(pchip_y,cap_index_{key})"),
    ("y1", "ln throughput at the interval's end, y1", "ln", "num4",
     "IF(cap_points_{key}=1,cap_y0_{key},INDEX(pchip_y,cap_index_{key}+1))"),
    ("d0", "Slope at the interval's start, d0", "-", "num4", "INDEX(pchip_d,cap_index_{key})"),
    ("d1", "Slope at the interval's end, d1", "-", "num4",
     "IF(cap_points_{key}=1,0,INDEX(pchip_d,cap_index_{key}+1))"),
    ("w00", "Hermite weight of y0, 2t^3 - 3t^2 + 1", "-", "num4",
     "2*cap_t_{key}^3-3*cap_t_{key}^2+1"),
    ("w10", "Hermite weight of h d0, t^3 - 2t^2 + t", "-", "num4",
     "cap_t_{key}^3-2*cap_t_{key}^2+cap_t_{key}"),
    ("w01", "Hermite weight of y1, -2t^3 + 3t^2", "-", "num4", "-2*cap_t_{key}^3+3*cap_t_{key}^2"),
    ("w11", "Hermite weight of h d1, t^3 - t^2", "-", "num4", "cap_t_{key}^3-cap_t_{key}^2"),
    ("lny", "ln throughput on the curve (cubic Hermite)", "ln", "num4",
     "cap_w00_{key}*cap_y0_{key}+cap_w10_{key}*cap_h_{key}*cap_d0_{key}"
     "+cap_w01_{key}*cap_y1_{key}+cap_w11_{key}*cap_h_{key}*cap_d1_{key}"),
    ("data", "Data-curve throughput x scale (0: not covered)", "tokens/s/MW", "num",
     "IF(cap_covers_{key},cap_frontier_scale*IF(cap_points_{key}=1,"
     "INDEX(pchip_throughput,cap_first_{key}),EXP(cap_lny_{key})),0)"),
)
# fmt: on


def curve_rows(a: Assumptions) -> list:
    """The contract platform's curve at the tier speeds that feed the money (data basis)."""
    plat = str(a.values["contract.platform"])
    seg = {t: _segment(a, plat, a.num(f"tiers.{t}.tokens_per_s")) for t in CURVE_TIERS}
    return [
        Section("The curve at the ultrafast and standard tier speeds (data basis)"),
        Header("Tier speed", CURVE_TIERS),
        *[
            Across(
                f"cap_{k}_{{key}}", label, unit, fmt, formula, {t: seg[t][k] for t in CURVE_TIERS}
            )
            for k, label, unit, fmt, formula in CURVE
        ],
    ]


# fmt: off
def gpu_rows(a: Assumptions) -> list:
    """Whether the GPU platform's curve covers the standard and fast speeds (the data basis
    prices a GPU token from it; section 0.1)."""
    gpu = str(a.values["capacity.gpu_platform"])
    xs, _ = a.frontier_points(gpu)
    ids = [i for p in a.platforms() for i in a.frontier_ids(p)]
    speeds = [a.num(f"tiers.{t}.tokens_per_s") for t in ("standard", "fast")]
    both = "tiers_standard_tokens_per_s,tiers_fast_tokens_per_s"
    return [
        Section("The GPU platform's curve (data basis: the GPU cost per token)"),
        Result("gpu_first", "First point of the GPU platform", "row", "num",
               "MATCH(capacity_gpu_platform,pchip_platform,0)",
               float(ids.index(a.frontier_ids(gpu)[0]) + 1) if xs else 0.0),
        Result("gpu_points", "Points", "points", "num",
               "COUNTIF(pchip_platform,capacity_gpu_platform)", float(len(xs))),
        Result("gpu_lo", "Slowest point", "tokens/s/user", "num", "INDEX(pchip_speed,gpu_first)",
               min(xs) if xs else 0.0),
        Result("gpu_hi", "Fastest point", "tokens/s/user", "num",
               "INDEX(pchip_speed,gpu_first+gpu_points-1)", max(xs) if xs else 0.0),
        Result("gpu_covers", "The curve covers the standard and fast speeds", "TRUE/FALSE", "bool",
               f"IF(gpu_points>0,AND(MIN({both})>=gpu_lo*(1-constant_cover_rtol),"
               f"MAX({both})<=gpu_hi*(1+constant_cover_rtol)),FALSE)",
               bool(xs) and all(bool(cap.covers(xs, s)) for s in speeds)),
    ]
# fmt: on


def _precision(ch, bytes_per_param: float) -> dict[str, float]:
    """The 8- and 4-bit TFLOPS (blank: twice the next wider) and the clipped log2 of the bytes."""
    t16 = float(ch.tflops)
    t8 = float(ch.tflops_fp8) if np.isfinite(float(ch.tflops_fp8)) else 2 * t16
    t4 = float(ch.tflops_fp4) if np.isfinite(float(ch.tflops_fp4)) else 2 * t8
    return {"t8": t8, "t4": t4, "z": min(1.0, max(-1.0, math.log2(bytes_per_param)))}


def physics_values(a: Assumptions, plat: str) -> dict[str, float]:
    """The Python values of the physics rows (sections 3.2-3.4) on a platform."""
    m, ch = tables.served_model(a), tables.chip(a, plat)
    hold, read, kv = (float(x) for x in physics.weight_bytes(m))
    n_w, k_min = (float(x) for x in physics.layout(m, ch))
    rate, link = float(physics.read_rate(ch)), float(ch.link_gb_s) * 1e9
    return {"w_hold": hold, "w_read": read, "kv": kv, "n_w": n_w, "k_min": k_min,
            "rate": rate, "x_hop": float(m.d_model) * float(m.bytes_per_param),
            "link": link if np.isfinite(link) else 0.0,
            "w_time": read / rate, "kv_time": kv / rate,
            "layers_time": float(m.layers) * float(ch.layer_latency_us) * 1e-6,
            "hop_time": float(ch.hop_latency_us) * 1e-6,
            "compute": float(physics.compute_bound(m, ch)),
            "tflops": float(physics.precision_tflops(ch, m.bytes_per_param)),
            **_precision(ch, float(m.bytes_per_param)),
            "per_mw": float(physics.per_mw(ch, a.num("facility.pue"))),
            "ceiling": float(physics.ceiling(m, ch))}  # fmt: skip


P = "model_"  # the served model's inputs (models.csv through the model.* keys)
# the precision rule of physics.precision_tflops: the published 16-, 8- and 4-bit figures at
# 2, 1 and 0.5 bytes a parameter (8 and 4 bits blank: twice the next wider), log-linear in
# between, 1 / bytes outside
TFLOPS = (
    "IF(phys_z<=0,phys_t8*(phys_t4/phys_t8)^(-phys_z),phys_t8*(cap_tflops/phys_t8)^phys_z)"
    f"*2^(phys_z-LOG({P}bytes_per_param,2))"
)

# fmt: off
PHYSICS = (  # name, label, unit, format, formula
    ("w_hold", "Weights held, W_hold", "bytes", "sci", f"{P}params*{P}bytes_per_param"),
    ("w_read", "Weights read a step, W_read", "bytes", "sci", f"phys_w_hold*{P}active_param_share"),
    ("kv", "KV cache of a stream", "bytes", "sci", f"usage_context_tokens*{P}kv_bytes_per_token"),
    ("n_w", "Chips to hold the weights, n_w", "chips", "num",
     "MAX(ROUNDUP(phys_w_hold/(cap_memory_gb*constant_bytes_per_gb)*(1-constant_chip_rounding),0),1)"),
    ("k_min", "Fewest stages, k_min", "stages", "num", "ROUNDUP(phys_n_w/cap_domain_chips,0)"),
    ("rate", "Achieved bandwidth of a stage, R", "bytes/s", "sci",
     "cap_domain_chips*cap_bandwidth_tb_s*constant_bytes_per_tb*cap_efficiency"),
    ("x_hop", "Bytes a stream sends a hop", "bytes", "num", f"{P}d_model*{P}bytes_per_param"),
    ("link", "Link bandwidth (0 = not limiting)", "bytes/s", "sci",
     "cap_link_gb_s*constant_bytes_per_gb"),
    ("w_time", "Weights' read time, W_read / R", "s", "sci", "phys_w_read/phys_rate"),
    ("kv_time", "A stream's KV read time, KV / R", "s", "sci", "phys_kv/phys_rate"),
    ("layers_time", "Layers' fixed time a step", "s", "sci",
     f"{P}layers*cap_layer_latency_us*constant_seconds_per_us"),
    ("hop_time", "Hop latency", "s", "sci", "cap_hop_latency_us*constant_seconds_per_us"),
    ("t8", "Dense 8-bit TFLOPS (blank: twice the 16-bit)", "TFLOPS", "num",
     "IF(cap_tflops_fp8>0,cap_tflops_fp8,2*cap_tflops)"),
    ("t4", "Dense 4-bit TFLOPS (blank: twice the 8-bit)", "TFLOPS", "num",
     "IF(cap_tflops_fp4>0,cap_tflops_fp4,2*phys_t8)"),
    ("z", "log2 of the bytes a parameter, within -1 (4 bits) and 1 (16 bits)", "-", "num4",
     f"MIN(1,MAX(-1,LOG({P}bytes_per_param,2)))"),
    ("tflops", "Dense TFLOPS at the weights' precision (16, 8 or 4 bits; log-linear between)",
     "TFLOPS", "num", TFLOPS),
    ("compute", "Compute limit of a stage group, B_fl x s", "tokens/s", "num",
     "cap_domain_chips*phys_tflops*constant_flops_per_tflops*cap_efficiency"
     f"/(2*{P}params*{P}active_param_share*(1+{P}prefill_tokens_per_output))"),
    ("per_mw", "Facility MW factor, 1000 / (g power_kw PUE)", "1/MW", "num4",
     "constant_kw_per_mw/(cap_domain_chips*cap_power_kw*facility_pue)"),
    ("ceiling", "Per-user ceiling, s_ceil", "tokens/s/user", "num1",
     f"{P}speculative_speedup/(phys_w_time+IF(phys_k_min>=2,phys_k_min,0)*phys_hop_time"
     "+phys_layers_time)"),
)
# fmt: on


def physics_rows(a: Assumptions) -> list:
    v = physics_values(a, str(a.values["contract.platform"]))
    return [
        Section("The physics of the served model on the contract platform (sections 3.2-3.4)"),
        Note(
            "Speculative decoding is taken to cost no extra compute and a mixture of experts to "
            "read its active share whatever the batch: both optimistic."
        ),  # fmt: skip
        *[
            Result(f"phys_{k}", label, unit, fmt, formula, v[k])
            for k, label, unit, fmt, formula in PHYSICS
        ],  # fmt: skip
    ]


MARKED_NOTE = (
    "Values of the econ run (purple on grey: rerun econ after changing the platforms, the basis, "
    "hardware, the served model's size, speed-up or layers, the frontier or the tier speeds):",
    "the served speed that maximises the NPV over the candidates and the realisation factor eta "
    "of the transferred basis are computed by econ, not by the sheet.",
    "The context, the KV bytes a token and the prefill move neither (they leave the ceiling "
    "alone): the envelope below follows them live.",
)


# fmt: off
def served_rows(a: Assumptions, r: Results, envelope: tuple[list, dict[str, str]]) -> list:
    """The served model of the run (sections 0.1, V4.3-V4.5): served speeds, ceilings and
    realisations as the run computed them (marked: they take a rerun), then ``envelope`` (the
    physics envelope's live rows, econ.report.envelope_rows, and the formulas of the
    throughputs by row name; none on the data basis), each curve's value at the served speeds
    (live, or of the run on the data basis); the frontier
    scales, the GPU rent and the value of a freed GPU-hour act on them live, and the value of a
    token crossing the GPU-fleet boundary follows."""
    served_u = f(r.served_tokens_per_s_ultrafast)
    if not np.isfinite(served_u):  # not offered: no ultrafast use; the tier speed keeps units
        served_u = a.num("tiers.ultrafast.tokens_per_s")
    plat, gpu = str(a.values["contract.platform"]), str(a.values["capacity.gpu_platform"])
    physics = a.values["capacity.basis"] == "physics"  # the envelope alone: no scale
    data = a.values["capacity.basis"] == "data"  # the curves of frontier.csv: values of the run

    def scale(p_: str) -> tuple[str, float]:
        if physics:
            return "", 1.0
        return f"*hardware_{p_}_frontier_scale", a.num(f"hardware.{p_}.frontier_scale")

    sc_c, k_c = scale(plat)
    sc_g, k_g = scale(gpu)
    etas = sorted((k.removeprefix("eta."), x) for k, x in r.parts.items()
                  if k.startswith("eta.") and not k.endswith(".raw"))
    fl = {k.removeprefix("fleet."): f(v) for k, v in r.parts.items() if k.startswith("fleet.")}
    set_ = "capacity.gpu_cost_per_mtok_usd" in a.values
    override = "IF(ISNUMBER(capacity_gpu_cost_per_mtok_usd),capacity_gpu_cost_per_mtok_usd,{x})"
    hw = f"hardware_{gpu}_"
    rent = (f"{hw}rent_usd_per_hour" if f"hardware.{gpu}.rent_usd_per_hour" in a.values
            else "gpu_rent_run")
    v_raw = ('IF(fleet_troughs="idle",gpu_lambda*usage_peak_to_average*gpu_h_{t}'
             "/fleet_ops_utilization+gpu_energy*gpu_h_{t},gpu_lambda*gpu_h_{t}/fleet_ops_utilization)")
    gpu_thr = {t: f(getattr(r, f"gpu_throughput_{t}")) for t in ("standard", "fast")}
    out = [
        Section("The served model of the econ run: what feeds the money (section 0.1)"),
        *[Note(text) for text in MARKED_NOTE],
        Marked("served_standard", "Standard tier's served speed", "tokens/s/user", "num1",
               f(r.served_tokens_per_s_standard)),
        Marked("served_fast", "Fast tier's served speed", "tokens/s/user", "num1",
               f(r.served_tokens_per_s_fast)),
        Marked("served_ultrafast", "Ultrafast served speed (none: the tier speed)", "tokens/s/user", "num1", served_u),
        Marked("ultrafast_offered", "The contract serves ultrafast (1 = yes)", "flag",
               "num", 1.0 if np.isfinite(f(r.served_multiplier)) else 0.0),
        Marked("ceiling_contract", "Per-user ceiling on the contract platform", "tokens/s/user",
               "num", f(r.ceiling_contract)),
        Marked("ceiling_gpu", "Per-user ceiling on the GPU platform", "tokens/s/user", "num",
               f(r.ceiling_gpu)),
        *[Marked(f"eta_{k.replace('.', '_')}", f"Realisation eta of {k} (transferred basis)", "-",
                 "num4", f(x)) for k, x in etas],
        *envelope[0],
        Section("The throughput that feeds the money (section 0.1)"),
    ]
    if data:
        out += [
            Marked("thr_ultrafast_run", f"{plat} curve at the ultrafast served speed, scale 1 "
                   "(0: none)", "tokens/s/MW", "num", f(r.throughput_per_mw) / k_c),
            Marked("thr_standard_run", f"{plat} curve at the standard served speed, scale 1",
                   "tokens/s/MW", "num", f(r.throughput_per_mw_standard) / k_c),
        ]
    thr = (envelope[1] if not data else
           {"thr_ultrafast": f"thr_ultrafast_run{sc_c}", "thr_standard": f"thr_standard_run{sc_c}",
            **{f"gpu_thr_{t}": f"gpu_thr_{t}_run{sc_g}" for t in ("standard", "fast")}})
    out += [
        Result("thr_ultrafast", "Thr* at the ultrafast served speed (0: none)",
               "tokens/s/MW", "num", thr["thr_ultrafast"], f(r.throughput_per_mw),
               match="Throughput at the served ultrafast speed [tokens/s/MW]"),
        Result("thr_standard", "Thr* at the standard served speed (moved traffic)", "tokens/s/MW",
               "num", thr["thr_standard"], f(r.throughput_per_mw_standard),
               match="Throughput at the standard served speed [tokens/s/MW]"),
        Section(f"One value per freed GPU-hour on {gpu} (section V4.3; live)"),
    ]
    if not set_:
        if data:
            out += [Marked(f"gpu_thr_{t}_run", f"{gpu} curve at the {t} served speed, scale 1",
                           "tokens/s/MW", "num", gpu_thr[t] / k_g) for t in ("standard", "fast")]
        out += [Result(f"gpu_thr_{t}", f"{gpu} throughput at the {t} served speed",
                       "tokens/s/MW", "num", thr[f"gpu_thr_{t}"], gpu_thr[t])
                for t in ("standard", "fast")]
        if rent == "gpu_rent_run":
            out.append(Marked("gpu_rent_run", f"{gpu}'s cost per GPU-hour (buy side; no rent)",
                              "USD/GPU-hour", "usd2", fl["rent"]))
        out += [
            Result("gpu_gpus_per_mw", "GPUs per facility MW", "GPUs/MW", "num1",
                   f"constant_kw_per_mw/({hw}power_kw*facility_pue)", fl["gpus_per_mw"]),
            *[Result(f"gpu_h_{t}", f"GPU-hours per 1M {t} tokens at full use, h", "GPU-hours",
                     "num4", f"IF(gpu_thr_{t}>0,constant_tokens_per_million*gpu_gpus_per_mw"
                     f"/(gpu_thr_{t}*constant_seconds_per_hour),constant_unbounded_value)",
                     min(fl[f"h.{t}"], 1e300)) for t in ("standard", "fast")],
            Result("gpu_energy", "Energy of a GPU-hour, e = power x PUE x price",
                   "USD/GPU-hour", "usd2", f"{hw}power_kw*facility_pue*buy_power_price_usd_per_kwh",
                   fl["energy"]),
            Result("gpu_lambda", "lambda = a x rent + (1 - a) x (sublet + e)", "USD/GPU-hour", "usd2",
                   f"fleet_avoidable_share*{rent}+(1-fleet_avoidable_share)"
                   "*(fleet_sublet_usd_per_gpu_hour+gpu_energy)", fl["lambda"]),
        ]
        for t in ("standard", "fast"):
            out.append(Result(f"gpu_cost_{t}_unclamped", f"v of a {t} token before the list-price clamp",
                              "USD per 1M tokens",
                              "usd2", v_raw.format(t=t), min(fl[f"v.{t}"], 1e300)))
        values = {t: f"MIN(gpu_cost_{t}_unclamped,tiers_{t}_price_per_mtok_usd)"
                  for t in ("standard", "fast")}
        flex = ('MIN(IF(fleet_troughs="idle",gpu_energy*gpu_h_standard,gpu_cost_standard_unclamped),'
                "gpu_cost_standard)")
    else:
        values = {t: "capacity_gpu_cost_per_mtok_usd" for t in ("standard", "fast")}
        flex = "capacity_gpu_cost_per_mtok_usd"
    out += [
        *[Result(f"gpu_cost_{t}", f"v of a {t} token off the GPU fleet (input if set)", "USD per 1M tokens", "usd2", override.format(x=values[t]),
                 f(getattr(r, f"gpu_cost_{t}"))) for t in ("standard", "fast")],
        Result("gpu_cost_flexible", "Value of a flexible moved token, v_f", "USD per 1M tokens",
               "usd2", override.format(x=flex), f(r.gpu_cost_flexible)),
        *[Result(f"gpu_margin_bound_{t}", f"Check, not a clamp: (1 - margin) x the {t} list "
                 "price", "USD per 1M tokens", "usd2",
                 f"(1-finance_api_gross_margin)*tiers_{t}_price_per_mtok_usd",
                 (1 - a.num("finance.api_gross_margin")) * a.num(f"tiers.{t}.price_per_mtok_usd"))
          for t in ("standard", "fast")],
    ]
    return out + successor_rows(a, r, (sc_c, k_c), (sc_g, k_g), set_, v_raw)


SUCCESSOR_NOTE = (
    "From the first month that starts at or after model.succession_months the flagship has "
    "model.successor_params_multiple x the parameters (1: no successor of another size).",
    "The contract serves it where it reaches the served ultrafast speed, else the predecessor, "
    "whose demand declines (Revenue, rows succ to api_gpu_c).",
    "Purple: values of the run (its physics envelope is econ's); the frontier scales, the GPU "
    "rent and the fleet's keys act on them live.",
    "Without a successor of another size they are the served model's own.",
)


def successor_rows(a: Assumptions, r: Results, contract: tuple[str, float],
                   fleet: tuple[str, float], set_: bool, v_raw: str) -> list:
    """The successor of another size (section V4.6): its throughputs on the contract and the
    GPU fleet (values of the run at scale 1, times the live frontier scales) and the value of
    its tokens off the fleet, by the served model's formulas."""
    got = {k.removeprefix("successor."): f(v) for k, v in r.parts.items()
           if k.startswith("successor.")}
    (sc_c, k_c), (sc_g, k_g) = contract, fleet
    mine = {"reached": 1.0, "throughput_ultrafast": f(r.throughput_per_mw),
            "throughput_standard": f(r.throughput_per_mw_standard),
            "gpu_throughput_standard": f(r.gpu_throughput_standard),
            "gpu_throughput_fast": f(r.gpu_throughput_fast),
            **{f"gpu_hours_{t}": f(r.parts[f"fleet.h.{t}"]) for t in ("standard", "fast")},
            **{f"gpu_cost_unclamped_{t}": f(r.parts[f"fleet.v.{t}"]) for t in ("standard", "fast")},
            "gpu_cost_standard": f(r.gpu_cost_standard), "gpu_cost_fast": f(r.gpu_cost_fast),
            "gpu_cost_flexible": f(r.gpu_cost_flexible)}
    v = {k: got.get(k, x) for k, x in mine.items()}
    gpu = str(a.values["capacity.gpu_platform"])
    override = "IF(ISNUMBER(capacity_gpu_cost_per_mtok_usd),capacity_gpu_cost_per_mtok_usd,{x})"
    out = [
        Section("The successor of another size (section V4.6; scenario successor_2x)"),
        *[Note(text) for text in SUCCESSOR_NOTE],
        Marked("successor_reached", "Contract serves the successor (1 = yes)", "flag", "num", v["reached"]),
        *[Marked(f"successor_thr_{t}_run", f"Successor's Thr* at {t}, scale 1", "tokens/s/MW", "num", v[f"throughput_{t}"] / k_c)
          for t in ("ultrafast", "standard")],
        *[Result(f"successor_thr_{t}", f"Successor's Thr* at the {t} speed",
                 "tokens/s/MW", "num", f"successor_thr_{t}_run{sc_c}", v[f"throughput_{t}"])
          for t in ("ultrafast", "standard")],
    ]
    if set_:
        return out + [
            *[Result(f"successor_gpu_cost_{t}", f"Successor's v of a {t} token (the input)",
                     "USD per 1M tokens", "usd2", "capacity_gpu_cost_per_mtok_usd",
                     v[f"gpu_cost_{t}"]) for t in ("standard", "fast", "flexible")],
        ]
    h = "successor_gpu_h_{t}"
    for t in ("standard", "fast"):
        thr = v[f"gpu_throughput_{t}"]
        out += [
            Marked(f"successor_gpu_thr_{t}_run", f"Successor's {gpu} thr. at {t}, scale 1", "tokens/s/MW", "num", thr / k_g),
            Result(f"successor_gpu_thr_{t}", f"Successor's {gpu} throughput at {t}",
                   "tokens/s/MW", "num", f"successor_gpu_thr_{t}_run{sc_g}", thr),
            Result(h.format(t=t), f"Successor's GPU-hours per 1M {t}, h", "GPU-hours",
                   "num4", f"IF(successor_gpu_thr_{t}>0,constant_tokens_per_million"
                   f"*gpu_gpus_per_mw/(successor_gpu_thr_{t}*constant_seconds_per_hour),"
                   "constant_unbounded_value)",
                   min(v[f"gpu_hours_{t}"], 1e300)),
            Result(f"successor_gpu_cost_{t}_unclamped", f"Successor's v of a {t} token, unclamped", "USD per 1M tokens", "usd2",
                   v_raw.replace("gpu_h_{t}", h).format(t=t),
                   min(v[f"gpu_cost_unclamped_{t}"], 1e300)),
            Result(f"successor_gpu_cost_{t}", f"Successor's v of a {t} token",
                   "USD per 1M tokens", "usd2",
                   override.format(x=f"MIN(successor_gpu_cost_{t}_unclamped,"
                                   f"tiers_{t}_price_per_mtok_usd)"), v[f"gpu_cost_{t}"]),
        ]
    flex = ('MIN(IF(fleet_troughs="idle",gpu_energy*successor_gpu_h_standard,'
            "successor_gpu_cost_standard_unclamped),successor_gpu_cost_standard)")
    return out + [
        Result("successor_gpu_cost_flexible", "Successor's v_f of a flexible token",
               "USD per 1M tokens", "usd2", override.format(x=flex), v["gpu_cost_flexible"]),
    ]


def agent_rows(a: Assumptions) -> list:
    """An agent's task: sequential calls at each tier's speed (live)."""
    tiers = a.tier_ids()
    times = {t: cap.agent_task_time(a.num("agent.calls"), a.num("agent.output_tokens_per_call"),
                                    a.num(f"tiers.{t}.tokens_per_s"), a.num("agent.ttft_s"),
                                    a.num("agent.p99_multiplier")) for t in tiers}
    return [
        Section("Agent task: sequential calls at each tier's speed (live)"),
        Header("Tier", tiers),
        Across("agent_median_{key}", "Median task time", "s", "num2",
               "agent_calls*(agent_ttft_s+agent_output_tokens_per_call/tiers_{key}_tokens_per_s)",
               {t: f(times[t][0]) for t in tiers}),
        Across("agent_p99_{key}", "P99 task time", "s", "num2",
               "agent_median_{key}*agent_p99_multiplier", {t: f(times[t][1]) for t in tiers}),
    ]
# fmt: on
