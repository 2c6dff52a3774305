"""The Capacity sheet: the contract platform's curve and physics as live formulas (the
frontier's PCHIP, the physics envelope at the ultrafast and standard speeds, the throughput
that feeds the money, agent task times), then snapshot tables of every platform and a chart.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from xlsxwriter.utility import xl_rowcol_to_cell

from econ.assumptions import Assumptions
from econ.compute import capacity as cap
from econ.compute import physics, tables
from econ.model import Results
from econ.report.inputs import STAGE_MULTIPLIERS as LEGACY_STAGE_MULTIPLIERS
from econ.report.workbook import write_cell, write_formula
from econ.report.xl import Book, absolute, banner, column_range, excel_name

SHEET = "Capacity"
FRONTIER_COLUMNS = (
    "frontier_ids",
    "frontier_platform",
    "frontier_tokens_per_s_per_user",
    "frontier_tokens_per_s_per_mw",
)

HW_FIELDS = (
    "memory_gb",
    "bandwidth_tb_s",
    "tflops",
    "power_kw",
    "domain_chips",
    "hop_latency_us",
    "layer_latency_us",
    "link_gb_s",
    "efficiency",
    "frontier_scale",
    "price_usd",
    "life_years",
)


def _n(key: str) -> str:
    return excel_name(key)


class Block:
    """Label / unit / value rows in columns A, B, C of the Capacity sheet, each value named."""

    def __init__(self, book: Book, ws, row: int):
        self.book, self.ws, self.row = book, ws, row

    def title(self, text: str) -> None:
        self.row += 1
        self.ws.write_string(self.row, 0, text, self.book.styles("section"))
        self.row += 1

    def put(
        self, name: str, label: str, unit: str, formula: str, value: Any, fmt: str = "g"
    ) -> str:
        s = self.book.styles
        self.ws.write_string(self.row, 0, label, s("label"))
        self.ws.write_string(self.row, 1, unit, s("unit"))
        write_formula(self.ws, self.row, 2, "=" + formula, _v(value), s(fmt))
        ref = absolute(SHEET, self.row, 2)
        self.book.name(name, ref)
        self.row += 1
        return name


def _v(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        x = x.reshape(-1)[0]
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not np.isfinite(x):
        return ""
    return x


def contract_platform_block(book: Book, ws, a: Assumptions, r: Results) -> int:
    """The live block; returns the next free row."""
    s = book.styles
    plat = str(a.values["contract.platform"])
    ws.write_string(0, 0, "Capacity and physics: what a megawatt serves at each speed", s("title"))
    ws.write_string(
        1,
        0,
        "Live: the contract platform (chosen on Assumptions) through INDEX/MATCH, its curve's PCHIP "
        "in log-log space, the physics envelope, and the throughput that feeds the money.",
        s("note"),
    )
    ws.set_column(0, 0, 46)
    ws.set_column(1, 1, 13)
    ws.set_column(2, 13, 10)
    b = Block(book, ws, 2)
    b.title("The contract platform")
    b.put("cap_platform", "Contract platform", "id", _n("contract.platform"), plat, "text")
    b.put(
        "cap_hw_row",
        "Its row in hardware.csv",
        "row",
        "MATCH(cap_platform,hardware_ids,0)",
        float(a.platforms().index(plat) + 1),
        "num",
    )
    for f in HW_FIELDS:
        v = a.values.get(f"hardware.{plat}.{f}")
        b.put(
            f"cap_{f}",
            f"  {f.replace('_', ' ')}",
            "",
            f"N(INDEX(hardware_{f},cap_hw_row))",
            0.0 if v is None else float(v),
            "g",
        )

    # ---- the frontier's PCHIP, one row per point of frontier.csv (all platforms)
    b.title("Frontier curves in log-log space (PCHIP knots; rows as on Tables)")
    _ = book.cells["frontier.rows"]  # Tables is written first
    ids = [i for p in a.platforms() for i in a.frontier_ids(p)]
    head = [
        "Point",
        "Platform",
        "Speed",
        "Throughput",
        "x = ln speed",
        "y = ln thr",
        "Points",
        "First",
        "Last",
        "h",
        "m",
        "Slope d",
    ]
    for j, h in enumerate(head):
        ws.write_string(b.row, j, h, s("h"))
    top = b.row + 1
    knots = {p: cap.pchip_knots(*a.frontier_points(p)) for p in a.platforms()}
    pos = {p: 0 for p in a.platforms()}
    for n_row, fid in enumerate(ids):
        r_ = top + n_row
        p = a.values[f"frontier.{fid}.platform"]
        k = knots[p]
        i = pos[p]
        pos[p] += 1
        npts = len(k["x"])
        n_at = n_row + 1  # the point's place in frontier.csv's columns on Tables (by name)
        A = lambda col, n_at=n_at: f"INDEX({FRONTIER_COLUMNS[col]},{n_at})"  # noqa: E731
        c = lambda col, dr=0, r_=r_: xl_rowcol_to_cell(r_ + dr, col)  # noqa: E731
        write_formula(ws, r_, 0, f"={A(0)}", fid, s("key"))
        write_formula(ws, r_, 1, f"={A(1)}", p, s("key"))
        write_formula(
            ws,
            r_,
            2,
            f"={A(2)}",
            float(a.values[f"frontier.{fid}.tokens_per_s_per_user"]),
            s("num"),
        )
        write_formula(
            ws, r_, 3, f"={A(3)}", float(a.values[f"frontier.{fid}.tokens_per_s_per_mw"]), s("num")
        )
        write_formula(ws, r_, 4, f"=LN({c(2)})", float(k["x"][i]), s("num4"))
        write_formula(ws, r_, 5, f"=LN({c(3)})", float(k["y"][i]), s("num4"))
        write_formula(ws, r_, 6, f"=COUNTIF(pchip_platform,{c(1)})", float(npts), s("num"))
        first = "TRUE" if n_row == 0 else f"{c(1)}<>{c(1, -1)}"
        last = "TRUE" if n_row == len(ids) - 1 else f"{c(1)}<>{c(1, 1)}"
        write_formula(ws, r_, 7, f"={first}" if first == "TRUE" else f"={first}", i == 0, None)
        write_formula(ws, r_, 8, f"={last}" if last == "TRUE" else f"={last}", i == npts - 1, None)
        write_formula(
            ws,
            r_,
            9,
            f'=IF({c(8)},"",{c(4, 1)}-{c(4)})',
            _v(k["h"][i]) if i < npts - 1 else "",
            s("num4"),
        )
        write_formula(
            ws,
            r_,
            10,
            f'=IF({c(8)},"",({c(5, 1)}-{c(5)})/{c(9)})',
            _v(k["m"][i]) if i < npts - 1 else "",
            s("num4"),
        )
        write_formula(ws, r_, 11, "=" + _slope_formula(c), float(k["d"][i]), s("num4"))
    bottom = top + len(ids) - 1
    for j, nm in (
        (1, "pchip_platform"),
        (2, "pchip_speed"),
        (3, "pchip_throughput"),
        (4, "pchip_x"),
        (5, "pchip_y"),
        (9, "pchip_h"),
        (11, "pchip_d"),
    ):
        book.name(nm, column_range(SHEET, j, top, bottom))
    b.row = bottom + 1

    # ---- the curve at the tier speeds of the money
    xs, ys = a.frontier_points(plat)
    kn = knots[plat]
    for tier in ("ultrafast", "standard"):
        s_t = a.num(f"tiers.{tier}.tokens_per_s")
        b.title(f"The curve at the {tier} speed (data basis)")
        speed = b.put(
            f"cap_speed_{tier}",
            "Speed",
            "tokens/s/user",
            _n(f"tiers.{tier}.tokens_per_s"),
            s_t,
            "num",
        )
        first = b.put(
            f"cap_first_{tier}",
            "First point of the platform",
            "row",
            "MATCH(cap_platform,pchip_platform,0)",
            float(ids.index(a.frontier_ids(plat)[0]) + 1),
            "num",
        )
        n = b.put(
            f"cap_points_{tier}",
            "Points",
            "points",
            "COUNTIF(pchip_platform,cap_platform)",
            float(len(xs)),
            "num",
        )
        lo = b.put(
            f"cap_lo_{tier}",
            "Slowest point",
            "tokens/s/user",
            f"INDEX(pchip_speed,{first})",
            min(xs),
            "num",
        )
        hi = b.put(
            f"cap_hi_{tier}",
            "Fastest point",
            "tokens/s/user",
            f"INDEX(pchip_speed,{first}+{n}-1)",
            max(xs),
            "num",
        )
        covers = b.put(
            f"cap_covers_{tier}",
            "The curve covers the speed",
            "TRUE/FALSE",
            f"AND({speed}>={lo}*(1-constant_cover_rtol),{speed}<={hi}*(1+constant_cover_rtol))",
            bool(cap.covers(xs, s_t)),
            "bool",
        )
        seg_i, seg_t = (
            cap.pchip_segment(kn["x"], np.log(np.clip(s_t, min(xs), max(xs))))
            if len(xs) > 1
            else (np.array(0), np.array(0.0))
        )
        idx = b.put(
            f"cap_index_{tier}",
            "Interval: its first point",
            "row",
            f'{first}+MIN(MAX(COUNTIFS(pchip_platform,cap_platform,pchip_speed,"<="&{speed}),1),MAX({n}-1,1))-1',
            float(ids.index(a.frontier_ids(plat)[0]) + 1 + int(seg_i)),
            "num",
        )
        t = b.put(
            f"cap_t_{tier}",
            "Position in the interval",
            "-",
            f"IF({n}=1,0,(LN(MIN(MAX({speed},{lo}),{hi}))-INDEX(pchip_x,{idx}))/INDEX(pchip_h,{idx}))",
            float(seg_t),
            "num4",
        )
        h = f"INDEX(pchip_h,{idx})"
        herm = (
            f"(2*{t}^3-3*{t}^2+1)*INDEX(pchip_y,{idx})+({t}^3-2*{t}^2+{t})*{h}*INDEX(pchip_d,{idx})"
            f"+(-2*{t}^3+3*{t}^2)*INDEX(pchip_y,{idx}+1)+({t}^3-{t}^2)*{h}*INDEX(pchip_d,{idx}+1)"
        )
        data_thr = tables.data_throughput(a, plat, s_t)
        b.put(
            f"cap_data_{tier}",
            "Throughput on the data curve x curve scale (blank: off the curve)",
            "tokens/s/MW",
            f'IF({covers},cap_frontier_scale*IF({n}=1,INDEX(pchip_throughput,{first}),EXP({herm})),"")',
            data_thr if np.isfinite(data_thr) else "",
            "num",
        )
    _gpu_curve(book, b, a)
    return _physics_block(book, ws, b, a, r)


def _gpu_curve(book: Book, b: Block, a: Assumptions) -> None:
    """Whether the GPU platform's curve covers the standard and fast speeds (the data basis
    prices a GPU token from it; section 0.1)."""
    gpu = str(a.values["capacity.gpu_platform"])
    xs = [float(a.values[f"frontier.{i}.tokens_per_s_per_user"]) for i in a.frontier_ids(gpu)]
    ids = [i for p in a.platforms() for i in a.frontier_ids(p)]
    b.title("The GPU platform's curve (data basis: the GPU cost per token)")
    b.put("gpu_first", "First point of the GPU platform", "row",
          "MATCH(capacity_gpu_platform,pchip_platform,0)",
          float(ids.index(a.frontier_ids(gpu)[0]) + 1) if xs else "", "num")  # fmt: skip
    b.put("gpu_points", "Points", "points", "COUNTIF(pchip_platform,capacity_gpu_platform)",
          float(len(xs)), "num")  # fmt: skip
    b.put("gpu_lo", "Slowest point", "tokens/s/user", "INDEX(pchip_speed,gpu_first)",
          min(xs) if xs else "", "num")  # fmt: skip
    b.put("gpu_hi", "Fastest point", "tokens/s/user", "INDEX(pchip_speed,gpu_first+gpu_points-1)",
          max(xs) if xs else "", "num")  # fmt: skip
    s_std, s_fast = (a.num(f"tiers.{t}.tokens_per_s") for t in ("standard", "fast"))
    covers = bool(xs) and all(cap.covers(xs, x) for x in (s_std, s_fast))
    rng = "{s}>=gpu_lo*(1-constant_cover_rtol),{s}<=gpu_hi*(1+constant_cover_rtol)"
    both = ",".join(rng.format(s=f"tiers_{t}_tokens_per_s") for t in ("standard", "fast"))
    b.put("gpu_covers", "The curve covers the standard and fast speeds", "TRUE/FALSE",
          f"IF(gpu_points>0,AND({both}),FALSE)", covers, "bool")  # fmt: skip


def _slope_formula(c) -> str:
    """PCHIP slope at a knot (scipy's Fritsch-Carlson rules), from the h and m columns."""
    H, M = lambda dr: c(9, dr), lambda dr: c(10, dr)  # noqa: E731

    def edge(h0: str, h1: str, m0: str, m1: str) -> str:
        d = f"((2*{h0}+{h1})*{m0}-{h0}*{m1})/({h0}+{h1})"
        return f"IF(SIGN({d})<>SIGN({m0}),0,IF(AND(SIGN({m0})<>SIGN({m1}),ABS({d})>3*ABS({m0})),3*{m0},{d}))"

    w1 = f"(2*{H(0)}+{H(-1)})"
    w2 = f"({H(0)}+2*{H(-1)})"
    inner = (
        f"IF(OR(SIGN({M(-1)})<>SIGN({M(0)}),{M(-1)}=0,{M(0)}=0),0,"
        f"({w1}+{w2})/({w1}/{M(-1)}+{w2}/{M(0)}))"
    )
    n, first, last = c(6), c(7), c(8)
    return (
        f"IF({n}=1,0,IF({n}=2,IF({last},{M(-1)},{M(0)}),"
        f"IF({first},{edge(H(0), H(1), M(0), M(1))},"
        f"IF({last},{edge(H(-1), H(-2), M(-1), M(-2))},{inner}))))"
    )


def _physics_block(book: Book, ws, b: Block, a: Assumptions, r: Results) -> int:
    s = book.styles
    plat = str(a.values["contract.platform"])
    m = tables.served_model(a)
    ch = tables.chip(a, plat)
    hold, read, kv = (float(x) for x in physics.weight_bytes(m))
    n_w, k_min = (float(x) for x in physics.layout(m, ch))
    g = float(ch.domain_chips)
    rate = float(physics.read_rate(ch))
    link = float(ch.link_gb_s) * 1e9
    b.title("The physics of the served model on the contract platform (sections 3.2-3.4)")
    b.ws.write_string(
        b.row,
        0,
        "Speculative decoding is taken to cost no extra compute and a mixture of experts to read its "
        "active share whatever the batch: both optimistic.",
        s("note"),
    )
    b.row += 1
    P = lambda k: _n(f"model.{k}")  # noqa: E731
    b.put(
        "phys_w_hold",
        "Weights held, W_hold",
        "bytes",
        f"{P('params')}*{P('bytes_per_param')}",
        hold,
        "sci",
    )
    b.put(
        "phys_w_read",
        "Weights read a step, W_read",
        "bytes",
        f"phys_w_hold*{P('active_param_share')}",
        read,
        "sci",
    )
    b.put(
        "phys_kv",
        "KV cache of a stream",
        "bytes",
        f"{P('context_tokens')}*{P('kv_bytes_per_token')}",
        kv,
        "sci",
    )
    b.put(
        "phys_n_w",
        "Chips to hold the weights, n_w",
        "chips",
        "MAX(ROUNDUP(phys_w_hold/(cap_memory_gb*constant_bytes_per_gb)*(1-constant_chip_rounding),0),1)",
        n_w,
        "num",
    )
    b.put(
        "phys_k_min",
        "Fewest stages, k_min",
        "stages",
        "ROUNDUP(phys_n_w/cap_domain_chips,0)",
        k_min,
        "num",
    )
    b.put(
        "phys_rate",
        "Achieved bandwidth of a stage, R",
        "bytes/s",
        "cap_domain_chips*cap_bandwidth_tb_s*constant_bytes_per_tb*cap_efficiency",
        rate,
        "sci",
    )
    b.put(
        "phys_x_hop",
        "Bytes a stream sends a hop",
        "bytes",
        f"{P('d_model')}*{P('bytes_per_param')}",
        float(m.d_model) * float(m.bytes_per_param),
        "num",
    )
    b.put(
        "phys_link",
        "Link bandwidth (0 = not limiting)",
        "bytes/s",
        "cap_link_gb_s*constant_bytes_per_gb",
        link if np.isfinite(link) else 0.0,
        "sci",
    )
    b.put(
        "phys_w_time",
        "Weights' read time, W_read / R",
        "s",
        "phys_w_read/phys_rate",
        read / rate,
        "sci",
    )
    b.put(
        "phys_kv_time",
        "A stream's KV read time, KV / R",
        "s",
        "phys_kv/phys_rate",
        kv / rate,
        "sci",
    )
    layers_time = float(m.layers) * float(ch.layer_latency_us) * 1e-6
    hop_s = float(ch.hop_latency_us) * 1e-6
    b.put(
        "phys_layers_time",
        "Layers' fixed time a step",
        "s",
        f"{P('layers')}*cap_layer_latency_us*constant_seconds_per_us",
        layers_time,
        "sci",
    )
    b.put(
        "phys_hop_time",
        "Hop latency",
        "s",
        "cap_hop_latency_us*constant_seconds_per_us",
        hop_s,
        "sci",
    )
    b.put(
        "phys_compute",
        "Compute limit of a stage group, B_fl x s",
        "tokens/s",
        f"cap_domain_chips*cap_tflops*constant_flops_per_tflops*(2/{P('bytes_per_param')})*cap_efficiency/(2*{P('params')}*{P('active_param_share')}*(1+{P('prefill_tokens_per_output')}))",
        float(physics.compute_bound(m, ch)),
        "num",
    )
    b.put(
        "phys_per_mw",
        "Facility MW factor, 1000 / (g power_kw PUE)",
        "1/MW",
        f"constant_kw_per_mw/(cap_domain_chips*cap_power_kw*{_n('facility.pue')})",
        float(physics.per_mw(ch, a.num("facility.pue"))),
        "num4",
    )
    b.put(
        "phys_ceiling",
        "Per-user ceiling, s_ceil",
        "tokens/s/user",
        f"{P('speculative_speedup')}/(phys_w_time+IF(phys_k_min>=2,phys_k_min,0)*phys_hop_time+phys_layers_time)",
        float(physics.ceiling(m, ch)),
        "num1",
    )
    # the layouts
    b.row += 1
    head = [
        "Layout",
        "Multiple of k_min",
        "Stages k",
        "Hops h(k)",
        "a_k = F(k) + W/R [s]",
        "D_k [s a stream]",
        "Memory room b_k [streams]",
    ]
    for j, h in enumerate(head):
        ws.write_string(b.row, j, h, s("h"))
    top = b.row + 1
    terms = []
    for j, mk in enumerate(LEGACY_STAGE_MULTIPLIERS):
        rr = top + j
        k, a_k, d_k, b_k = (
            float(x)
            for x in physics.layout_terms(
                math.ceil(mk * k_min),
                hop_s,
                layers_time,
                read / rate,
                kv / rate,
                float(m.d_model) * float(m.bytes_per_param),
                link,
                g,
                float(ch.memory_gb) * 1e9,
                hold,
                kv,
            )
        )
        terms.append((k, a_k, d_k, b_k))
        c = lambda col, rr=rr: xl_rowcol_to_cell(rr, col)  # noqa: E731
        ws.write_string(rr, 0, f"layout {j + 1}", s("label"))
        write_formula(ws, rr, 1, f"=INDEX(constant_stage_multipliers,{j + 1})", mk, s("num2"))
        write_formula(ws, rr, 2, f"=ROUNDUP({c(1)}*phys_k_min,0)", k, s("num"))
        write_formula(ws, rr, 3, f"=IF({c(2)}>=2,{c(2)},0)", k if k >= 2 else 0.0, s("num"))
        write_formula(
            ws, rr, 4, f"={c(3)}*phys_hop_time+phys_layers_time+phys_w_time", a_k, s("sci")
        )
        write_formula(
            ws, rr, 5, f"=phys_kv_time+IF(phys_link>0,{c(3)}*phys_x_hop/phys_link,0)", d_k, s("sci")
        )
        write_formula(
            ws,
            rr,
            6,
            f"=({c(2)}*cap_domain_chips*cap_memory_gb*constant_bytes_per_gb-phys_w_hold)/({c(2)}*phys_kv)",
            b_k,
            s("num1"),
        )
    b.row = top + len(LEGACY_STAGE_MULTIPLIERS)
    spec = float(m.speculative_speedup)
    for tier in ("ultrafast", "standard"):
        s_t = a.num(f"tiers.{tier}.tokens_per_s")
        b.row += 1
        ws.write_string(
            b.row,
            0,
            f"Output of a stage group [tokens/s] at the {tier} speed, by layout (rows) and serving speed (columns)",
            s("bold"),
        )
        b.row += 1
        ws.write_string(b.row, 0, "serving speed s' = s x", s("h"))
        hrow = b.row
        for jj, ms in enumerate(physics.SPEED_MULTIPLIERS):
            write_formula(
                ws,
                hrow,
                1 + jj,
                f"=INDEX(constant_speed_multipliers,{jj + 1})*cap_speed_{tier}",
                s_t * ms,
                s("num"),
            )
        best = 0.0
        for j, (_k, a_k, d_k, b_k) in enumerate(terms):
            rr = hrow + 1 + j
            ws.write_string(rr, 0, f"layout {j + 1}", s("label"))
            for jj, ms in enumerate(physics.SPEED_MULTIPLIERS):
                cval = s_t * ms
                val = float(physics.group_output(cval, spec, a_k, 1.0 / d_k, b_k))
                best = max(best, val)
                cc = xl_rowcol_to_cell(hrow, 1 + jj, row_abs=True)
                lr = top + j
                formula = f"=MIN(({P('speculative_speedup')}-{cc}*$E${lr + 1})/$F${lr + 1},{cc}*$G${lr + 1})"
                write_formula(ws, rr, 1 + jj, formula, val, s("num_feasible"))
        grid = f"{xl_rowcol_to_cell(hrow + 1, 1)}:{xl_rowcol_to_cell(hrow + len(terms), len(physics.SPEED_MULTIPLIERS))}"
        b.row = hrow + len(terms) + 1
        # the envelope over the layouts shown (version 2's multiples of k_min): an illustration;
        # econ's envelope takes the stage candidates of section 0.1 (Capacity snapshot below)
        compute = float(physics.compute_bound(m, ch))
        phys = min(max(0.0, best), compute) * float(physics.per_mw(ch, a.num("facility.pue")))
        b.put(
            f"phys_envelope_{tier}",
            f"Physics envelope at the {tier} tier speed over the layouts above (illustration)",
            "tokens/s/MW",
            f"MIN(MAX(0,MAX({grid})),phys_compute)*phys_per_mw",
            phys,
            "num",
        )
    served_block(book, b, a, r)
    # agent task time, live
    b.title("Agent task: sequential calls at each tier's speed (live)")
    for tier in a.tier_ids():
        s_t = a.num(f"tiers.{tier}.tokens_per_s")
        med, p99 = cap.agent_task_time(
            a.num("agent.calls"),
            a.num("agent.output_tokens_per_call"),
            s_t,
            a.num("agent.ttft_s"),
            a.num("agent.p99_multiplier"),
        )
        b.put(
            f"agent_median_{tier}",
            f"{tier}: median task time",
            "s",
            f"{_n('agent.calls')}*({_n('agent.ttft_s')}+{_n('agent.output_tokens_per_call')}/{_n(f'tiers.{tier}.tokens_per_s')})",
            float(med),
            "num2",
        )
        b.put(
            f"agent_p99_{tier}",
            f"{tier}: P99 task time",
            "s",
            f"agent_median_{tier}*{_n('agent.p99_multiplier')}",
            float(p99),
            "num2",
        )
    return b.row + 1


def snapshot_block(book: Book, ws, row: int, a: Assumptions, analysis: dict) -> None:
    """Every platform at every tier speed, the frontier audit, the calibration and the public
    speeds: values of the run, under a banner."""
    s = book.styles
    book.cells["capacity_live_end"] = row  # the snapshots below are for the screen
    row += 1
    banner(ws, book, row, "the tables below (every platform, the audit, the calibration)")
    row += 2
    sections = (
        (
            "Every platform at every tier speed (capacity table of econ capacity)",
            analysis["capacity_table"],
        ),
        (
            "Each frontier point against the physics envelope of the served model",
            analysis["frontier_audit"],
        ),
        (
            "Calibration: published speeds of named models against the per-user ceiling the hardware figures predict (data/calibration.csv)",
            analysis["calibration"],
        ),
        (
            "Public model speeds the articles quote (data/speeds.csv; marked on the chart)",
            analysis["speeds"],
        ),
    )
    for title, df in sections:
        ws.write_string(row, 0, title, s("section"))
        row += 1
        for j, c in enumerate(df.columns):
            ws.write_string(row, j, c.replace("_", " "), s("h"))
        ws.set_row(row, 45)  # three lines: "cost per mtok / rent data / usd"
        for i, rec in enumerate(df.itertuples(index=False), start=1):
            for j, x in enumerate(rec):
                fmt = s("num2") if isinstance(x, float) and abs(x) < 1000 else s("num")
                write_cell(ws, row + i, j, x, fmt if not isinstance(x, str | bool) else None)
        row += len(df) + 2
    _frontier_chart(book, ws, a, analysis["frontier_curves"], analysis["speeds"], row)


def _frontier_chart(book: Book, ws, a: Assumptions, curves, speeds, row: int) -> None:
    """Throughput against speed per platform: data curve, physics envelope, public speeds."""
    s = book.styles
    chart_row = row
    book.cells["capacity_chart_row"] = chart_row  # a page break keeps the chart whole
    row += 32  # the chart sits above its data, which does not print
    book.cells["capacity_print_end"] = row - 1
    ws.write_string(row, 0, "Chart data (values of the run)", s("section"))
    row += 1
    top = row
    for j, c in enumerate(("platform", "curve", "tokens/s per user", "tokens/s per MW")):
        ws.write_string(row, j, c, s("h"))
    for i, rec in enumerate(curves.itertuples(index=False), start=1):
        for j, x in enumerate(rec):
            write_cell(ws, row + i, j, x)
    chart = book.wb.add_chart({"type": "scatter", "subtype": "straight"})
    r0 = top + 1
    colors = ["#1F4E79", "#C00000", "#548235", "#7030A0", "#BF8F00", "#2E75B6"]
    for (p, kind), g in curves.groupby(["platform", "curve"], sort=False):
        k = len(g)
        color = colors[list(a.platforms()).index(p) % len(colors)]
        chart.add_series(
            {
                "name": f"{p} {kind}",
                "categories": [SHEET, r0, 2, r0 + k - 1, 2],
                "values": [SHEET, r0, 3, r0 + k - 1, 3],
                "line": {
                    "color": color,
                    "width": 2.0 if kind == "data" else 1.0,
                    "dash_type": "solid" if kind == "data" else "dash",
                },
            }
        )
        r0 += k
    row = r0 + 1
    ws.write_string(row, 0, "Public speeds (marked at 10,000 tokens/s per MW)", s("bold"))
    srow = row + 1
    for i, rec in enumerate(speeds.itertuples(index=False)):
        write_cell(ws, srow + i, 0, rec.model)
        write_cell(ws, srow + i, 2, float(rec.tokens_per_s))
        write_cell(ws, srow + i, 3, 10_000.0)
    chart.add_series(
        {
            "name": "public speeds",
            "categories": [SHEET, srow, 2, srow + len(speeds) - 1, 2],
            "values": [SHEET, srow, 3, srow + len(speeds) - 1, 3],
            "marker": {"type": "diamond", "size": 7},
            "line": {"none": True},
            "data_labels": {
                "custom": [{"value": m} for m in speeds["model"]],
                "position": "above",
                "font": {"size": 7, "rotation": -45},
            },
        }
    )
    # the tier speeds as vertical lines (two points each)
    trow = srow + len(speeds) + 1
    ws.write_string(trow, 0, "Tier speeds (vertical lines)", s("bold"))
    for i, tier in enumerate(a.tier_ids()):
        r_ = trow + 1 + 2 * i
        speed = a.num(f"tiers.{tier}.tokens_per_s")
        for j, y in enumerate((1_000.0, 1e7)):
            write_cell(ws, r_ + j, 0, tier)
            write_cell(ws, r_ + j, 2, speed)
            write_cell(ws, r_ + j, 3, y)
        chart.add_series(
            {
                "name": f"{tier} tier",
                "categories": [SHEET, r_, 2, r_ + 1, 2],
                "values": [SHEET, r_, 3, r_ + 1, 3],
                "line": {"color": "#7F7F7F", "width": 0.75, "dash_type": "round_dot"},
                "marker": {"type": "none"},
            }
        )
    chart.set_title(
        {"name": "Throughput against responsiveness (data curves solid, physics envelopes dashed)"}
    )
    chart.set_x_axis({"name": "tokens/s per user", "log_base": 10, "min": 10, "max": 10_000})
    chart.set_y_axis({"name": "tokens/s per facility MW", "log_base": 10, "min": 1_000})
    chart.set_legend({"position": "bottom"})
    chart.set_size({"width": 900, "height": 560})
    ws.insert_chart(chart_row, 0, chart)


MARKED_NOTE = (
    "Values of the econ run (purple on grey: rerun econ after changing the platforms, the basis, "
    "hardware, the served model, the frontier or the tier speeds): the served speed that "
    "maximises the NPV over the candidates and the realisation factor eta of the transferred "
    "basis are computed by econ, not by the sheet."
)


def served_block(book: Book, b: Block, a: Assumptions, r: Results) -> None:
    """The served model of the run (section 0.1): served speeds, throughputs that feed the money,
    GPU cost per output token, ceilings and realisation factors. Marked values, each named and
    listed in the inventory (Checks); the GPU cost follows capacity.gpu_cost_per_mtok_usd live."""
    s = book.styles
    b.title("The served model of the econ run: what feeds the money (section 0.1)")
    b.ws.write_string(b.row, 0, MARKED_NOTE, s("note"))
    b.row += 1
    v = lambda x: float(np.asarray(x, float).reshape(-1)[0])  # noqa: E731
    offered = 1.0 if np.isfinite(v(r.served_multiplier)) else 0.0
    served_u = v(r.served_tokens_per_s_ultrafast)
    if not np.isfinite(served_u):  # not offered: no ultrafast use; the tier speed keeps units
        served_u = a.num("tiers.ultrafast.tokens_per_s")
    marked = [
        ("served_standard", "Standard tier's served speed", "tokens/s/user", v(r.served_tokens_per_s_standard), "num1"),
        ("served_fast", "Fast tier's served speed", "tokens/s/user", v(r.served_tokens_per_s_fast), "num1"),
        ("served_ultrafast", "Ultrafast tier's served speed on the contract platform (not offered: the tier speed)", "tokens/s/user", served_u, "num1"),
        ("ultrafast_offered", "The contract serves the ultrafast tier (1 = yes)", "flag", offered, "num"),
        ("thr_ultrafast", "Thr* at the served ultrafast speed (0: not offered)", "tokens/s/MW", v(r.throughput_per_mw), "num"),
        ("thr_standard", "Thr* at the standard tier's served speed (backfill)", "tokens/s/MW", v(r.throughput_per_mw_standard), "num"),
        ("gpu_cost_standard_run", "GPU cost of a standard output token, g$_std (the run)", "USD per 1M tokens", v(r.gpu_cost_standard), "usd2"),
        ("gpu_cost_fast_run", "GPU cost of a fast output token, g$_fast (the run)", "USD per 1M tokens", v(r.gpu_cost_fast), "usd2"),
        ("ceiling_contract", "Per-user ceiling on the contract platform", "tokens/s/user", v(r.ceiling_contract), "num"),
        ("ceiling_gpu", "Per-user ceiling on the GPU platform", "tokens/s/user", v(r.ceiling_gpu), "num"),
        *[(f"eta_{k}", f"Realisation factor eta of {k} (transferred basis)", "-", v(x), "num4")
          for k, x in sorted((k.removeprefix("eta."), x) for k, x in r.parts.items() if k.startswith("eta."))],
    ]  # fmt: skip
    for name, label, unit, value, fmt in marked:
        b.ws.write_string(b.row, 0, label, s("label"))
        b.ws.write_string(b.row, 1, unit, s("unit"))
        if np.isfinite(value):
            b.ws.write_number(b.row, 2, value, s(fmt, "rerun"))
        else:  # none in the run (a tier not offered has no served speed)
            b.ws.write_blank(b.row, 2, None, s(fmt, "rerun"))
        book.name(name, absolute(SHEET, b.row, 2))
        book.marked.append((name, label, unit))
        book.marked_values[name] = value
        b.row += 1
    for tier in ("standard", "fast"):
        b.put(
            f"gpu_cost_{tier}",
            f"GPU cost of a {tier} output token, g$ (capacity.gpu_cost_per_mtok_usd when set)",
            "USD per 1M tokens",
            f"IF(ISNUMBER(capacity_gpu_cost_per_mtok_usd),capacity_gpu_cost_per_mtok_usd,gpu_cost_{tier}_run)",
            v(getattr(r, f"gpu_cost_{tier}")),
            "usd2",
        )
    for name, label in (("thr_ultrafast", "Throughput at the served ultrafast speed [tokens/s/MW]"),
                        ("thr_standard", "Throughput at the standard served speed [tokens/s/MW]")):
        book.matches.append((label, v(getattr(r, "throughput_per_mw" if name == "thr_ultrafast" else "throughput_per_mw_standard")), name, "num"))
