"""The physics of serving one model on one platform (docs/model.md, sections 3.2-3.4).

A replica of the model is a pipeline of k stages; a stage is one fast domain of
g chips (an NVL72 rack, one wafer, ...). The per-user ceiling is the fastest a
single stream can decode; the physics envelope is the most output per facility
MW a platform can deliver to users who each want at least a given speed, over
the candidate layouts and over serving them at a faster feasible speed.

Every argument may be a scalar or an array of scenarios of shape (N,); results
have shape (N,) (or broadcast shape). Nothing here reads files.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
from numpy.typing import ArrayLike, NDArray

Array = NDArray[np.float64]

# Candidate layouts: k_min and the fixed grid k = ceil(2^(j/4)) between k_min and a fixed
# cap k_cap per platform (more stages leave room for KV cache at the price of more hops);
# the grid does not move with k_min, so the candidates only grow as k_min falls (section 0.2).
# The cap is K_CAP_FACTOR x k_min of the platform at the base data. A user who wants s may be
# served at any faster feasible speed s' >= s (section V4.5): the best s' of each layout has a
# closed form, so the envelope never falls as users ask for less speed.
K_CAP_FACTOR = 16.0


def stage_grid(k_min: ArrayLike, k_cap: ArrayLike) -> Array:
    """The grid's stage counts ceil(2^(j/4)) that can lie between the smallest k_min and the
    largest k_cap [stages], ascending, without repeats."""
    lo_all, hi_all = np.asarray(k_min, float), np.asarray(k_cap, float)
    lo_all, hi_all = lo_all[np.isfinite(lo_all)], hi_all[np.isfinite(hi_all)]
    if lo_all.size == 0 or hi_all.size == 0:  # no layout holds the weights: no candidates
        return np.empty(0)
    lo, hi = float(np.min(lo_all)), float(np.max(hi_all))
    j_lo = max(0, int(np.floor(4 * np.log2(max(lo, 1.0)))) - 1)
    j_hi = int(np.ceil(4 * np.log2(max(hi, 1.0)))) + 1
    ks = np.unique(np.ceil(2.0 ** (np.arange(j_lo, j_hi + 1) / 4.0) - 1e-9))
    return ks[(ks >= lo) & (ks <= hi)]


# Extreme inputs (1e-300 bytes of KV, say) overflow to inf or underflow to 0 on the way; the
# envelope's min and max take those in their stride, and a result that is not a number is
# refused by the model's own check: no warning from here.
def _quiet() -> np.errstate:
    """A context (and decorator) that silences floating-point warnings; one per function."""
    return np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore")


# 4e12 / 44e9 = 90.9090... must give 91, and an exact multiple must not give one more
# because of rounding: the share of a chip below which it does not count.
_CHIP_ROUNDING = 1e-12


@dataclass(frozen=True)
class Chip:
    """One platform's device (hardware.csv), each field scalar or (N,).

    memory_gb [GB], bandwidth_tb_s [TB/s], tflops [dense 16-bit TFLOPS], power_kw [kW per
    device, IT], domain_chips [chips per stage], hop_latency_us [us per pipeline hop],
    layer_latency_us [us per layer per decode step], link_gb_s [GB/s per hop; inf = not
    limiting], efficiency [achieved share of peak bandwidth and compute], tflops_fp8 and
    tflops_fp4 [dense 8-bit and 4-bit TFLOPS; NaN = not published, twice the next wider
    precision's].
    """

    memory_gb: ArrayLike
    bandwidth_tb_s: ArrayLike
    tflops: ArrayLike
    power_kw: ArrayLike
    domain_chips: ArrayLike
    hop_latency_us: ArrayLike
    layer_latency_us: ArrayLike
    link_gb_s: ArrayLike
    efficiency: ArrayLike
    tflops_fp8: ArrayLike = np.nan
    tflops_fp4: ArrayLike = np.nan


@dataclass(frozen=True)
class ServedModel:
    """The model served (model.* keys), each field scalar or (N,).

    params [params], bytes_per_param [bytes], active_param_share [share read per step],
    kv_bytes_per_token [bytes/token], context_tokens [tokens held per stream],
    speculative_speedup [x], layers [layers], d_model [-], prefill_tokens_per_output [tokens].
    """

    params: ArrayLike
    bytes_per_param: ArrayLike
    active_param_share: ArrayLike
    kv_bytes_per_token: ArrayLike
    context_tokens: ArrayLike
    speculative_speedup: ArrayLike
    layers: ArrayLike
    d_model: ArrayLike
    prefill_tokens_per_output: ArrayLike


def _f(x: ArrayLike) -> Array:
    return np.asarray(x, float)


def weight_bytes(model: ServedModel) -> tuple[Array, Array, Array]:
    """(W_hold, W_read, KV) [bytes]: weights held, weights read per decode step, and the KV
    cache of one active stream (read every step)."""
    hold = _f(model.params) * _f(model.bytes_per_param)
    return (
        hold,
        hold * _f(model.active_param_share),
        _f(model.context_tokens) * _f(model.kv_bytes_per_token),
    )


@_quiet()
def layout(model: ServedModel, chip: Chip) -> tuple[Array, Array]:
    """(n_w, k_min): chips to hold the weights, ceil(W_hold / memory), and the fewest stages,
    ceil(n_w / domain_chips). Section 3.2."""
    hold, _, _ = weight_bytes(model)
    n_w = np.ceil(hold / (_f(chip.memory_gb) * 1e9) * (1 - _CHIP_ROUNDING))
    n_w = np.maximum(n_w, 1.0)
    return n_w, np.ceil(n_w / _f(chip.domain_chips))


def hops(k: ArrayLike) -> Array:
    """h(k): pipeline hops per token, k for k >= 2 (the sampled token returns to the first
    stage), 0 for one stage."""
    k = _f(k)
    return np.where(k >= 2, k, 0.0)


def fixed_time(k: ArrayLike, model: ServedModel, chip: Chip) -> Array:
    """F(k) [s]: the time a decode step takes whatever the batch, h(k) hops plus every layer's
    fixed latency."""
    return (hops(k) * _f(chip.hop_latency_us) + _f(model.layers) * _f(chip.layer_latency_us)) * 1e-6


def read_rate(chip: Chip) -> Array:
    """R [bytes/s]: the achieved memory bandwidth of one stage, g x bandwidth x efficiency."""
    return _f(chip.domain_chips) * _f(chip.bandwidth_tb_s) * 1e12 * _f(chip.efficiency)


@_quiet()
def ceiling(model: ServedModel, chip: Chip) -> Array:
    """s_ceil [tokens/s/user]: the per-user ceiling, speculative_speedup / tau_min with
    tau_min = W_read / R + F(k_min). Section 3.3."""
    _, read, _ = weight_bytes(model)
    _, k_min = layout(model, chip)
    tau = read / read_rate(chip) + fixed_time(k_min, model, chip)
    return _f(model.speculative_speedup) / tau


@_quiet()
def precision_tflops(chip: Chip, bytes_per_param: ArrayLike) -> Array:
    """Dense TFLOPS at the precision of the weights [TFLOPS] (section V4.4): the published
    16-bit, 8-bit and 4-bit figures at 2, 1 and 0.5 bytes a parameter, log-linear in between;
    an 8-bit or 4-bit figure not published is twice the next wider one (version 3's scaling);
    beyond 2 bytes or below 0.5, proportional to 1 / bytes."""
    b16 = _f(chip.tflops)
    b8 = np.where(np.isnan(_f(chip.tflops_fp8)), 2.0 * b16, _f(chip.tflops_fp8))
    b4 = np.where(np.isnan(_f(chip.tflops_fp4)), 2.0 * b8, _f(chip.tflops_fp4))
    lb = np.log2(_f(bytes_per_param))  # -1 at 4 bits, 0 at 8, 1 at 16
    lo = np.clip(lb, -1.0, 1.0)
    inner = np.where(
        lo <= 0,
        np.exp(np.log(b8) + (-lo) * (np.log(b4) - np.log(b8))),
        np.exp(np.log(b8) + lo * (np.log(b16) - np.log(b8))),
    )
    return inner * np.exp2(lo - lb)  # 1 / bytes beyond the published precisions


@_quiet()
def compute_bound(model: ServedModel, chip: Chip) -> Array:
    """B_fl x s [tokens/s per stage group]: the decode output a stage's compute sustains,
    prefill included, at the TFLOPS of the weights' precision (:func:`precision_tflops`). It
    does not depend on the speed or the layout."""
    flops = _f(chip.domain_chips) * precision_tflops(chip, model.bytes_per_param) * 1e12
    per_token = (
        2.0
        * _f(model.params)
        * _f(model.active_param_share)
        * (1.0 + _f(model.prefill_tokens_per_output))
    )
    return flops * _f(chip.efficiency) / per_token


def per_mw(chip: Chip, pue: ArrayLike) -> Array:
    """Facility MW per stage group's streams: 1000 / (g x power_kw x pue) [1/MW per kW...],
    the factor that turns a stage group's output [tokens/s] into tokens/s per facility MW."""
    return 1000.0 / (_f(chip.domain_chips) * _f(chip.power_kw) * _f(pue))


@dataclass(frozen=True)
class Envelope:
    """Phys_p(s) and what attains it, each (N,).

    throughput : tokens/s per facility MW [tokens/s/MW] (0 where s > s_ceil).
    ceiling : s_ceil [tokens/s/user].
    stages : the k attaining it (NaN where 0).
    speed : the s' attaining it [tokens/s/user] (NaN where 0).
    bound : which limit binds there: 'bandwidth', 'link', 'memory', 'compute' or '' (detail only).
    """

    throughput: Array
    ceiling: Array
    stages: Array | None = None
    speed: Array | None = None
    bound: NDArray[np.str_] | None = None


ENVELOPE_BLOCK = 16_384  # scenarios per block of the envelope's passes

# Envelopes of one scenario (every input a scalar), by their inputs: analyses that evaluate the
# same physics many times (goal seeks, sweeps of a money key, the hull of a transferred curve)
# compute each once. The same numbers as computing them again.
_ONE: dict[tuple, tuple[float, float]] = {}
_ONE_MAX = 4096


def _key_of(speed, model: ServedModel, chip: Chip, pue, k_cap) -> tuple | None:
    """(the inputs of a one-scenario envelope as a tuple of floats, the shape of its results);
    None where any input holds more than one scenario."""
    vals = [speed, pue, np.nan if k_cap is None else k_cap]
    vals += [getattr(model, name) for name in _fields(ServedModel)]
    vals += [getattr(chip, name) for name in _fields(Chip)]
    out = []
    shapes = []
    for v in vals:
        if isinstance(v, float | int):
            out.append(float(v))
            continue
        v = np.asarray(v, float)
        if v.size != 1:
            return None
        out.append(float(v.reshape(-1)[0]))
        shapes.append(v.shape)
    return tuple(out), np.broadcast_shapes(*shapes)


_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(cls: type) -> tuple[str, ...]:
    """The field names of a dataclass, looked up once."""
    if cls not in _FIELDS:
        _FIELDS[cls] = tuple(f.name for f in fields(cls))
    return _FIELDS[cls]


def envelope(
    speed: ArrayLike,
    model: ServedModel,
    chip: Chip,
    pue: ArrayLike,
    detail: bool = False,
    k_cap: ArrayLike | None = None,
) -> Envelope:
    """Phys_p(s): the physics envelope at per-user speed s (section 3.4); see
    :func:`_envelope`. One scenario's envelope is computed once per set of inputs."""
    found = None if detail else _key_of(speed, model, chip, pue, k_cap)
    if found is None:
        return _envelope(speed, model, chip, pue, detail, k_cap)
    key, shape = found
    hit = _ONE.get(key)
    if hit is None:
        if len(_ONE) >= _ONE_MAX:
            _ONE.clear()
        env = _envelope(speed, model, chip, pue, detail, k_cap)
        hit = _ONE[key] = (float(np.asarray(env.throughput).reshape(-1)[0]),
                           float(np.asarray(env.ceiling).reshape(-1)[0]))  # fmt: skip
    return Envelope(np.full(shape, hit[0]), np.full(shape, hit[1]))


@_quiet()
def _envelope(
    speed: ArrayLike,
    model: ServedModel,
    chip: Chip,
    pue: ArrayLike,
    detail: bool = False,
    k_cap: ArrayLike | None = None,
) -> Envelope:
    """Phys_p(s): the physics envelope at per-user speed s (section 3.4).

    For each layout k in K and serving speed s' >= s (a slower user can be served faster;
    section V4.5), with tau = speculative_speedup / s' the time one step may take:

    - bandwidth: B_bw = (tau - F(k) - W_read / R) / (KV / R + h(k) x d_model x bytes / L)
    - memory: B_mem = (k g memory - W_hold) / (k KV)
    - compute: B_fl = compute_bound / s'
    - B = max(0, min(B_bw, B_mem, B_fl)) streams per stage group; k groups are in flight,
      on k g chips, so the output per facility MW is B x s' x 1000 / (g power_kw pue).

    The maximum over k and s' is taken in the form s' B_bw = (spec - s' a_k) / D_k and
    s' B_mem = s' b_k (a_k = F(k) + W_read / R, D_k = KV / R + h(k) x d_model x bytes / L,
    b_k = B_mem): the minimum of a falling and a rising line in s', so its maximum over
    s' >= s is at s' = max(s, spec / (a_k + b_k D_k)), exactly. The compute limit does not
    depend on k or s', so it caps the maximum once. The envelope is therefore non-increasing
    in s. A serving speed above s_ceil makes s' B_bw negative for every k, so such speeds give 0.
    ``detail`` also returns the k and s' that attain it and the binding limit.
    """
    s = _f(speed)
    hold, read, kv = weight_bytes(model)
    n_w, k_min = layout(model, chip)
    g = _f(chip.domain_chips)
    rate = read_rate(chip)
    spec = _f(model.speculative_speedup)
    link = _f(chip.link_gb_s) * 1e9
    x_hop = _f(model.d_model) * _f(model.bytes_per_param)  # bytes a stream sends per hop
    mem = _f(chip.memory_gb) * 1e9
    w_time = read / rate
    kv_time = kv / rate
    layers_time = _f(model.layers) * _f(chip.layer_latency_us) * 1e-6
    hop_s = _f(chip.hop_latency_us) * 1e-6
    shape = np.broadcast_shapes(
        s.shape, hold.shape, kv.shape, g.shape, rate.shape, spec.shape, link.shape, mem.shape
    )
    best = np.zeros(shape)
    best_k = np.full(shape, np.nan) if detail else None
    best_s = np.full(shape, np.nan) if detail else None
    # many scenarios: blocks of ENVELOPE_BLOCK along the scenario axis keep the 80 passes
    # in cache instead of allocating arrays of every scenario on each (the same numbers)
    blocks = (
        [slice(lo, lo + ENVELOPE_BLOCK) for lo in range(0, shape[0], ENVELOPE_BLOCK)]
        if not detail and len(shape) == 1 and shape[0] > ENVELOPE_BLOCK
        else [slice(None)]
    )
    cut = lambda x, b: x if np.ndim(x) == 0 or x.size == 1 else x[b]  # noqa: E731
    cap_k = K_CAP_FACTOR * k_min if k_cap is None else np.maximum(_f(k_cap), k_min)
    # k_min itself, then the grid's counts above it up to the cap (each scenario its own)
    for kk in (None, *stage_grid(k_min, cap_k)):
        k = k_min if kk is None else np.full(np.shape(k_min), kk)
        k, a_k, d_k, b_k = layout_terms(
            k, hop_s, layers_time, w_time, kv_time, x_hop, link, g, mem, hold, kv
        )
        inv_d = 1.0 / d_k
        if kk is not None:  # outside (k_min, k_cap]: not a candidate of this scenario
            b_k = np.where((kk > k_min) & (kk <= cap_k), b_k, -np.inf)
        for b in blocks:
            sb, spec_b, a_b, inv_b, b_b = (cut(x, b) for x in (s, spec, a_k, inv_d, b_k))
            # min((spec - c a_k) / D_k, c b_k) is concave in the serving speed c: its largest
            # value over c >= s lies at c = max(s, c*), c* = spec / (a_k + b_k D_k) its peak
            with np.errstate(divide="ignore", invalid="ignore"):
                c_star = spec_b / (a_b + b_b / inv_b)
            c = np.fmax(sb, np.nan_to_num(c_star, nan=0.0, posinf=0.0, neginf=0.0))
            val = group_output(c, spec_b, a_b, inv_b, b_b)
            if detail:
                better = val > best
                best_k = np.where(better, k, best_k)
                best_s = np.where(better, c, best_s)
                best = np.fmax(best, val)  # a layout that cannot exist (NaN) adds nothing
            elif len(blocks) == 1:
                best = np.fmax(best, val)  # NaN (no such layout) adds nothing
            else:
                np.fmax(best[b], val, out=best[b])
    cap = compute_bound(model, chip)
    throughput = np.minimum(best, cap) * per_mw(chip, pue)
    s_ceil = ceiling(model, chip)
    if not detail:
        return Envelope(throughput, s_ceil)
    zero = ~(throughput > 0)
    best_k = np.where(zero, np.nan, best_k)
    best_s = np.where(zero, np.nan, best_s)
    bound = _binding(best_k, best_s, cap, model, chip, hold, kv, mem, g, rate, link, x_hop)
    return Envelope(throughput, s_ceil, best_k, best_s, np.where(zero, "", bound))


def layout_terms(k, hop_s, layers_time, w_time, kv_time, x_hop, link, g, mem, hold, kv):
    """For the layout of k stages: (k, a_k, D_k, b_k) with a_k = F(k) + W_read / R [s],
    D_k = KV / R + h(k) x d_model x bytes / L [s per stream], b_k = B_mem [streams]."""
    k = _f(k)
    h = hops(k)
    a_k = h * hop_s + layers_time + w_time
    d_k = kv_time + h * x_hop / link
    b_k = (k * g * mem - hold) / (k * kv)
    return k, a_k, d_k, b_k


def group_output(c, spec, a_k, inv_d, b_k):
    """A stage group's output [tokens/s] served at speed c on layout k, before the compute
    cap: min(c B_bw, c B_mem) = min((spec - c a_k) / D_k, c b_k) (negative = infeasible)."""
    return np.minimum((spec - c * a_k) * inv_d, c * b_k)


def _binding(k, s, cap, model, chip, hold, kv, mem, g, rate, link, x_hop) -> NDArray[np.str_]:
    """Which limit binds at the attaining layout: bandwidth (weights and KV), link, memory
    or compute."""
    with np.errstate(divide="ignore", invalid="ignore"):
        h = hops(k)
        avail = _f(model.speculative_speedup) / s - fixed_time(k, model, chip)
        link_part = h * x_hop / link
        b_bw = (avail - hold * _f(model.active_param_share) / rate) / (kv / rate + link_part)
        b_mem = (k * g * mem - hold) / (k * kv)
        b_fl = cap / s
    limits = np.stack(np.broadcast_arrays(b_bw, b_mem, b_fl))
    which = np.argmin(np.where(np.isnan(limits), np.inf, limits), axis=0)
    bw_or_link = np.where(link_part > kv / rate, "link", "bandwidth")
    return np.where(which == 0, bw_or_link, np.where(which == 1, "memory", "compute"))


def chip_from(get, platform: str) -> Chip:
    """A Chip from a getter of dotted keys (``get(key)`` -> value or array); a blank link is
    not limiting (inf), a blank 8-bit or 4-bit figure not published (NaN)."""
    vals = {}
    for fld in fields(Chip):
        key = f"hardware.{platform}.{fld.name}"
        v = get(key)
        vals[fld.name] = (np.nan if fld.name.startswith("tflops_") else np.inf) if v is None else v
    return Chip(**vals)


# the served model's fields read from another key than model.<field>: the context a stream
# holds is a property of the traffic, the same on every platform (docs/model.md, section V4.5)
MODEL_KEYS = {"context_tokens": "usage.context_tokens"}


def model_key(name: str) -> str:
    """The dotted key of a ServedModel field of the served model."""
    return MODEL_KEYS.get(name, f"model.{name}")


def model_from(get) -> ServedModel:
    """A ServedModel from a getter of dotted keys (model.*, usage.context_tokens)."""
    return ServedModel(**{fld.name: get(model_key(fld.name)) for fld in fields(ServedModel)})
