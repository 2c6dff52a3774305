"""A plain, scalar, one-scenario implementation of the model specification (version 4).

Written straight from the specification (docs/model.md; version 3 with its readings) with
the standard library only (csv, math, statistics.NormalDist); the data frontier's PCHIP
(3.1) is built here with the formulas of scipy's PchipInterpolator (the tests check the two
agree). It shares no code with econ: it reads the data folder itself (``load``) and works
on {dotted key: value} for one scenario; outputs are plain floats and lists (None where a
figure is undefined).

Version 3 in brief (each step is named after its part of the specification):
- one served model on every platform; the capacity basis ``transferred`` (default: a
  realisation factor eta per platform times the physics envelope), ``physics`` or ``data``;
- served speeds from the fixed grid below 0.9 x the ceiling (GPU tiers: the fastest feasible;
  the contract's ultrafast tier: the candidate with the largest NPV, each candidate a whole run);
- the GPU cost per output token of each tier derived from the GPU platform (or overridden);
- API demand from a multinomial logit (optionally nesting fast and ultrafast), the margin m_u
  of an ultrafast token;
- each month's capacity allocated by a small linear programme (solved greedily, exactly);
- the burn elasticity of adoption, the Pro price factor and the calibrated no-deal world;
- tranches; cash, terminal value, NPV, payback and IRR as in version 2.

Version 4 (docs/model.md, section V4) in brief:
- the envelope serves a user at the best feasible speed s' >= s of each layout (exactly);
  its compute term reads the TFLOPS of the weights' precision;
- each platform's realisation eta_p(x) is linear in the regime x = s / ceiling between its
  sourced points (flat outside, capped at 1); where it rises with x the transferred curve is
  its hull on a fixed grid of x, interpolated;
- moved traffic is bounded by the served model's own demand without the deal (D0) less what
  the deal already credits (X), times capacity.movable_share, plus internal batch work;
- every token crossing the GPU-fleet boundary is worth lambda x h / u_ops (one value per freed
  GPU-hour), or the troughs-idle values; the one clamp left is a token's list price;
- the contract may deliver a share of its MW and pay as delivered or take-or-pay; the payback
  on cash alone is reported beside the one with the GPU cost avoided.
"""

from __future__ import annotations

import csv
import functools
import math
from pathlib import Path
from statistics import NormalDist

SECONDS_PER_MONTH = 2_629_800.0
SECONDS_PER_WEEK = 604_800.0
HOURS_PER_MONTH = 730.5

_PHI = NormalDist().cdf  # standard normal CDF
# V4.5: the grid of regimes x on which a rising realisation's hull is taken (25 points from
# 0.01 to 1, geometric)
_HULL_X = tuple(0.01 * 100.0 ** (j / 24) for j in range(25))
_SERVED_GRID = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5)  # 0.1: served speed = tier speed x m
_CEILING_SHARE = 0.9  # 0.1: a tier is served at or below 0.9 x the ceiling
_K_CAP_MULTIPLE = 16  # 0.2: k_cap = 16 x k_min at the base data
_TIERS = ("standard", "fast", "ultrafast")
_LAB_TIERS = ("standard", "fast")  # the tiers served on the GPU fleet
BASES = ("data", "transferred", "physics")
OFFERS = ("auto", "on", "off")

# the measured models (data/models.csv): the served model's parameter set, one row a model.
# Column j of models.csv plays the part of key model.j of the served model.
MODEL_FIELDS = (
    "params",
    "active_param_share",
    "bytes_per_param",
    "layers",
    "d_model",
    "kv_bytes_per_token",
    "context_tokens",
    "prefill_tokens_per_output",
    "speculative_speedup",
)
# models.csv names the served model's model.active_param_share "active_share"
MODEL_COLUMNS = {k: ("active_share" if k == "active_param_share" else k) for k in MODEL_FIELDS}
FRONTIER_MODEL_COLUMN = "model"  # frontier.csv: the id in models.csv of the model measured
TABLES = ("plans", "tiers", "hardware", "frontier", "models")

# keys version 3 adds (without them the data is version 2's); the blank-able ones
# (capacity.gpu_cost_per_mtok_usd, contract.tranche_*, usage.adoption_ref_multiplier) are not here
V3_KEYS = (
    "capacity.gpu_platform",
    "capacity.backfill_flexible_share",
    "capacity.subscriber_offer",
    "finance.api_gross_margin",
    "api.standard_tokens_per_month",
    "api.fast_tokens_per_month",
    "api.diversion_to_lab_tiers",
    "api.wtp_speed_doubling_usd_per_mtok",
    "api.speed_nest_lambda",
    "usage.adoption_burn_elasticity",
    "conversion.pro_price_elasticity",
    "market.pro_growth_monthly",
    "conversion.capped_share_of_upgrades",
    "conversion.max_capped_propensity",
    "plans.pro.price_ref_usd_month",
    "tiers.standard.price_per_mtok_usd",
    "tiers.fast.price_per_mtok_usd",
    "usage.output_tokens_per_query",
    "plans.plus.queries_per_day",
    "plans.pro.queries_per_day",
    "plans.plus.weekly_quota_queries",
    "plans.pro.weekly_quota_queries",
)
# the keys version 4 adds (without them the data is version 3's)
V4_KEYS = (
    "capacity.movable_share",
    "capacity.internal_batch_tokens_per_month",
    "fleet.avoidable_share",
    "fleet.sublet_usd_per_gpu_hour",
    "fleet.ops_utilization",
    "fleet.troughs",
    "contract.payment",
    "contract.delivered_share",
    "usage.context_tokens",
    "free.served",
)
# keys of earlier versions that are retired, and what replaces each
RETIRED = {
    "capacity.backfill_tokens_per_month": "capacity.movable_share",
    "capacity.flexible_value_share": "fleet.avoidable_share",
    "contract.pay_as_delivered": "contract.payment",
    "model.context_tokens": "usage.context_tokens",
    "api.cannibalised_share": "api.diversion_to_lab_tiers",
    "api.standard_price_per_mtok_usd": "tiers.standard.price_per_mtok_usd",
    "conversion.plus_to_pro_base_monthly": "conversion.capped_share_of_upgrades",
    "conversion.capped_upgrade_propensity": "conversion.capped_share_of_upgrades",
    "plans.plus.weekly_quota_tokens": "plans.plus.weekly_quota_queries",
    "plans.pro.weekly_quota_tokens": "plans.pro.weekly_quota_queries",
    "plans.plus.median_weekly_tokens": "plans.plus.queries_per_day",
    "plans.pro.median_weekly_tokens": "plans.pro.queries_per_day",
}


class DataError(ValueError):
    """The data cannot be read as version 3: the message names the key or file."""


# ---------------------------------------------------------------- reading the data folder


def _cell(text: str):
    """A CSV cell: a float where it reads as one, else the stripped text ('' = blank)."""
    t = text.strip()
    if not t:
        return ""
    try:
        return float(t)
    except ValueError:
        return t


def load(folder, scenario: str | None = None, overrides=()) -> dict:
    """{dotted key: value} from a data folder (2: assumptions.csv key,value; the tables
    plans, tiers, hardware, frontier, models as <table>.<row id>.<column>, sources included),
    then the scenario's key,value rows (data/scenarios/NAME.csv), then the (key, text) overrides."""
    folder = Path(folder)
    v: dict = {}
    with open(folder / "assumptions.csv", newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            v[row["key"].strip()] = _cell(row["value"])
    for table in TABLES:
        path = folder / f"{table}.csv"
        if not path.exists():
            continue  # reading: an absent table has no keys (run() names what it needs)
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.reader(fh)
            header = [h.strip() for h in next(reader)]
            for row in reader:
                if not any(c.strip() for c in row):
                    continue
                rid = row[0].strip()
                for col, cell in zip(header[1:], row[1:], strict=False):
                    v[f"{table}.{rid}.{col}"] = (
                        _cell(cell) if col not in ("source", "note") else cell.strip()
                    )
    if scenario is not None:
        with open(folder / "scenarios" / f"{scenario}.csv", newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                v[row["key"].strip()] = _cell(row["value"])
    for key, text in overrides:
        v[key] = _cell(str(text))
    return v


@functools.cache
def bundled() -> dict:
    """The bundled data (data/ of the repository), without scenario or override; read once
    (callers do not modify it)."""
    return load(Path(__file__).resolve().parent.parent / "data")


# ---------------------------------------------------------------- helpers


def _blank(x) -> bool:
    return (
        x is None
        or (isinstance(x, str) and not x.strip())
        or (isinstance(x, float) and math.isnan(x))
    )


def _ids(v: dict, table: str) -> list[str]:
    """Row ids of a table, discovered from the keys present (ids never contain a dot)."""
    p = table + "."
    return sorted({k.split(".")[1] for k in v if k.startswith(p)})


def _lognormal_cap(mu: float, c: float, sigma: float) -> tuple[float, float]:
    """5.2: share of a lognormal(median mu, shape sigma) demand above the quota c, SF(c / mu),
    and the mean demand truncated at c, w."""
    x = math.log(c / mu)
    sf = 1.0 - _PHI(x / sigma)
    w = mu * math.exp(sigma * sigma / 2) * _PHI((x - sigma * sigma) / sigma) + c * sf
    return sf, w


def _payback(cf: list[float]) -> float | None:
    """6: the lasting recovery. 0 if the cumulative flow is never negative, None if it ends
    negative, else (t* - 1) + (-K_(t*-1)) / CF_t* with t* the month after the last K_t < 0."""
    k = 0.0
    last_neg, k_last_neg = 0, 0.0
    for t, c in enumerate(cf, start=1):
        k += c
        if k < 0:
            last_neg, k_last_neg = t, k
    if last_neg == 0:
        return 0.0
    if last_neg == len(cf):
        return None
    return last_neg + (-k_last_neg) / cf[last_neg]  # cf[last_neg] is CF of month t* = last_neg + 1


def _npv_at(flows: list[float], y: float) -> float:
    """Present value of flows[j] (end of month j = 0..n) at the continuous monthly rate y
    (Horner in z = exp(-y) = 1 / (1 + x))."""
    z = math.exp(-y)
    p = 0.0
    for f in reversed(flows):
        p = p * z + f
    return p


def _root(flows: list[float], a: float, b: float, pa: float, pb: float) -> float:
    """A root in y of the present value between a and b, where it takes the signs of pa and pb
    (bracketing regula falsi, Illinois variant: the bracket always holds the root)."""
    side = 0
    for _ in range(200):
        c = (a * pb - b * pa) / (pb - pa)
        if not min(a, b) < c < max(a, b) or abs(b - a) <= 1e-15 * max(1.0, abs(a)):
            if min(a, b) <= c <= max(a, b):
                return c
            # rounding put c outside the bracket: the bracket is as narrow as the arithmetic
            # allows; its end nearer the root (the smaller present value) is the root
            return min((a, b), key=lambda y: abs(_npv_at(flows, y)))
        pc = _npv_at(flows, c)
        if pc == 0:
            return c
        if (pc > 0) == (pb > 0):
            b, pb = c, pc
            if side == -1:
                pa *= 0.5
            side = -1
        else:
            a, pa = c, pc
            if side == 1:
                pb *= 0.5
            side = 1
    return 0.5 * (a + b)


def _irr_unique(flows: list[float]) -> bool:
    """docs/model.md section 0.7: the IRR is reported where the flows change sign once from negative to
    positive (Descartes), or their running sum does (Norstrom); zeros are skipped."""

    def once(xs: list[float]) -> bool:
        signs = [x > 0 for x in xs if x != 0]
        return (
            bool(signs) and not signs[0] and signs[-1] and signs.index(True) == signs.count(False)
        )

    running, total = [], 0.0
    for f in flows:
        total += f
        running.append(total)
    return once(list(flows)) or once(running)


def _irr(flows: list[float]) -> float | None:
    """Annualised IRR of monthly flows (flows[j] at the end of month j), the root nearest zero;
    None where the present value never changes sign."""
    if all(f >= 0 for f in flows) or all(f <= 0 for f in flows):
        return None
    # reading: "the root nearest zero" is the monthly rate x with the smallest |x|. Roots are
    # sought in the continuous monthly rate y = ln(1 + x) within [-y_max, y_max],
    # y_max = min(3, 690 / n) (x from about -95 % to +1,900 % a month; the bound keeps
    # exp(y n) finite): a scan outward from 0 over nodes 1e-3 x 1.3^j on both sides at once
    # finds the first sign change on each side, a bracketing regula falsi refines it. A root
    # where the present value touches zero without changing sign, or two roots between
    # adjacent nodes, are not found.
    n = max(1, len(flows) - 1)
    y_max = min(3.0, 690.0 / n)
    p0 = _npv_at(flows, 0.0)
    if p0 == 0:
        return 0.0
    best = None  # monthly rate x
    side = {1.0: (0.0, p0), -1.0: (0.0, p0)}  # sign -> (last node y, PV there), while scanning
    d = 1e-3
    while side:
        for sign, (lo, p_lo) in list(side.items()):
            if best is not None and abs(math.expm1(lo)) >= abs(best):
                del side[sign]  # every root further out on this side is farther from zero
                continue
            hi = sign * min(d, y_max)
            p_hi = _npv_at(flows, hi)
            if p_hi == 0 or (p_hi > 0) != (p_lo > 0):
                x = math.expm1(hi if p_hi == 0 else _root(flows, lo, hi, p_lo, p_hi))
                if best is None or abs(x) < abs(best):
                    best = x
                del side[sign]
            elif d >= y_max:
                del side[sign]
            else:
                side[sign] = (hi, p_hi)
        d *= 1.3
    return None if best is None else (1.0 + best) ** 12 - 1.0


# ---------------------------------------------------------------- 3. capacity and physics


def _frontier(v: dict, platform: str) -> tuple[list[float], list[float]]:
    """3.1: the platform's frontier points sorted by speed, validated."""
    pts = []
    for key in v:
        if key.startswith("frontier.") and key.endswith(".platform") and v[key] == platform:
            i = key[9:-9]  # the row id
            pts.append(
                (
                    float(v[f"frontier.{i}.tokens_per_s_per_user"]),
                    float(v[f"frontier.{i}.tokens_per_s_per_mw"]),
                    i,
                )
            )
    if not pts:
        raise DataError(f"frontier: no points for platform {platform}")
    pts.sort()
    for (s0, y0, i0), (s1, y1, i1) in zip(pts, pts[1:], strict=False):
        if s1 == s0:
            raise DataError(
                f"frontier: rows {i0} and {i1} of platform {platform} have the same speed {s0}"
            )
        if y1 > y0:
            raise DataError(f"frontier: throughput rises with speed from row {i0} to row {i1}")
    return [p[0] for p in pts], [p[1] for p in pts]


def _data_throughput(v: dict, platform: str, speeds: list[float]) -> list[float]:
    """3.1: Thr_p(s) for each s, one interpolator for the platform."""
    xs, ys = _frontier(v, platform)
    for s in speeds:
        if not xs[0] <= s <= xs[-1]:
            raise DataError(
                f"frontier: speed {s} is outside platform {platform}'s range {xs[0]}-{xs[-1]} tokens/s"
            )
    sc = v.get(f"hardware.{platform}.frontier_scale")
    # reading: an absent or blank frontier_scale is 1 (its default)
    scale = 1.0 if _blank(sc) else float(sc)
    if len(xs) == 1:
        return [scale * ys[0] for _ in speeds]
    f = _pchip([math.log(x) for x in xs], [math.log(y) for y in ys])
    return [scale * math.exp(f(math.log(s))) for s in speeds]


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def _pchip_edge(h0: float, h1: float, m0: float, m1: float) -> float:
    """End slope of the PCHIP: the one-sided three-point estimate, shape-preserving."""
    d = ((2 * h0 + h1) * m0 - h0 * m1) / (h0 + h1)
    if _sign(d) != _sign(m0):
        return 0.0
    if _sign(m0) != _sign(m1) and abs(d) > 3 * abs(m0):
        return 3 * m0
    return d


def _pchip(x: list[float], y: list[float]):
    """Piecewise cubic Hermite interpolating polynomial (Fritsch-Carlson slopes, the
    construction of scipy.interpolate.PchipInterpolator, same formulas and evaluation order)
    through at least two points with increasing x; evaluated inside [x_0, x_n] only."""
    n = len(x) - 1
    h = [x[k + 1] - x[k] for k in range(n)]
    m = [(y[k + 1] - y[k]) / h[k] for k in range(n)]
    if n == 1:
        d = [m[0], m[0]]  # two points: a straight line
    else:
        d = [0.0] * (n + 1)
        for k in range(1, n):
            if _sign(m[k]) != _sign(m[k - 1]) or m[k] == 0 or m[k - 1] == 0:
                continue
            w1, w2 = 2 * h[k] + h[k - 1], h[k] + 2 * h[k - 1]
            d[k] = 1.0 / ((w1 / m[k - 1] + w2 / m[k]) / (w1 + w2))  # weighted harmonic mean
        d[0] = _pchip_edge(h[0], h[1], m[0], m[1])
        d[n] = _pchip_edge(h[n - 1], h[n - 2], m[n - 1], m[n - 2])
    coef = []  # per interval: y_k + d_k t + c2 t^2 + c3 t^3, t = x - x_k
    for k in range(n):
        tk = (d[k] + d[k + 1] - 2 * m[k]) / h[k]
        coef.append((y[k], d[k], (m[k] - d[k]) / h[k] - tk, tk / h[k]))

    def f(v: float) -> float:
        k = 0
        while k < n - 1 and v >= x[k + 1]:  # the interval [x_k, x_(k+1)), the last one closed
            k += 1
        c0, c1, c2, c3 = coef[k]
        t = v - x[k]
        return c0 + c1 * t + c2 * (t * t) + c3 * (t * t * t)

    return f


def _num(v: dict, key: str) -> float:
    """A required number: a clear error where the key is absent or blank."""
    x = v.get(key)
    if _blank(x):
        raise DataError(f"key {key} is missing or blank (version 3 data needs it)")
    try:
        return float(x)
    except (TypeError, ValueError):
        raise DataError(f"key {key}: expected a number, found {x!r}") from None


def _opt(v: dict, key: str) -> float | None:
    """An optional number: None where absent or blank."""
    x = v.get(key)
    return None if _blank(x) else float(x)


def _served_model(v: dict) -> dict:
    """The served model's parameters (model.* keys; its context is usage.context_tokens, the
    same on every platform: V4.5)."""
    return {
        k: _num(v, "usage.context_tokens" if k == "context_tokens" else f"model.{k}")
        for k in MODEL_FIELDS
    }


def _measured_model(v: dict, mid: str) -> dict:
    """A measured model's parameters (models.<id>.* of data/models.csv)."""
    return {k: _num(v, f"models.{mid}.{MODEL_COLUMNS[k]}") for k in MODEL_FIELDS}


def _stage_candidates(k_min: int, k_cap: int) -> list[int]:
    """0.2: K = {k_min} and the fixed grid {ceil(2^(j/4)) : j = 0, 1, ...} between k_min and k_cap."""
    ks = {k_min}
    j = 0
    while True:
        k = math.ceil(2 ** (j / 4))
        if k > k_cap:
            break
        if k >= k_min:
            ks.add(k)
        j += 1
    # reading: k_min is a candidate even above k_cap (a served model larger than the bundled one
    # keeps its one layout; the ceiling uses k_min anyway)
    return sorted(ks)


def _k_min(hw: dict, platform: str, model: dict) -> int:
    """3.2: the fewest stages of whole fast domains that hold the weights."""
    n_w = math.ceil(
        model["params"]
        * model["bytes_per_param"]
        / (_num(hw, f"hardware.{platform}.memory_gb") * 1e9)
    )
    return math.ceil(n_w / _num(hw, f"hardware.{platform}.domain_chips"))


def k_cap(base: dict, platform: str) -> int:
    """0.2 (B): k_cap = 16 x k_min of the platform with the base data's served model and hardware."""
    return _K_CAP_MULTIPLE * _k_min(base, platform, _served_model(base))


def envelope(
    v: dict, platform: str, speed: float, model: dict | None = None, cap: int | None = None
) -> dict:
    """3.2-3.4 with version 3's stage candidates: replica layout, per-user ceiling and physics
    throughput per facility MW of ``model`` (default: the served model, model.*) on the platform's
    hardware as in v (hardware.* and facility.pue). ``cap`` is k_cap (default: 16 x this k_min)."""
    if model is None:
        model = _served_model(v)
    hw = f"hardware.{platform}."
    mem = _num(v, hw + "memory_gb") * 1e9
    g = _num(v, hw + "domain_chips")
    eff = _num(v, hw + "efficiency")
    R = g * _num(v, hw + "bandwidth_tb_s") * 1e12 * eff
    L = None if _blank(v.get(hw + "link_gb_s")) else float(v[hw + "link_gb_s"]) * 1e9
    hop = _num(v, hw + "hop_latency_us") * 1e-6
    layer_time = model["layers"] * _num(v, hw + "layer_latency_us") * 1e-6
    params, bpp = model["params"], model["bytes_per_param"]
    active, spec = model["active_param_share"], model["speculative_speedup"]
    w_hold = params * bpp
    w_read = w_hold * active
    kv = model["context_tokens"] * model["kv_bytes_per_token"]
    act_bytes = model["d_model"] * bpp  # activations a stream carries per hop

    n_w = math.ceil(w_hold / mem)
    k_min = math.ceil(n_w / g)
    ks = _stage_candidates(k_min, _K_CAP_MULTIPLE * k_min if cap is None else cap)

    def fixed(k: int) -> float:  # F(k)
        return (k if k >= 2 else 0) * hop + layer_time

    s_ceil = spec / (w_read / R + fixed(k_min))
    flops = g * _tflops(v, hw, bpp) * 1e12 * eff
    prefill = 1 + model["prefill_tokens_per_output"]
    per_mw = 1000 / (g * _num(v, hw + "power_kw") * _num(v, "facility.pue"))

    best, best_k, best_s = 0.0, None, None
    found = []  # (throughput, k, s') of every feasible layout
    if speed <= s_ceil:
        for k in ks:
            h = k if k >= 2 else 0
            den = kv / R + (h * act_bytes / L if L is not None else 0.0)
            free = k * g * mem - w_hold
            b_mem = free / (k * kv) if kv > 0 else math.inf
            # V4.5: a slower user may be served faster. On layout k the streams' output at
            # speed s' is min(s' B_bw, s' B_mem): s' B_bw = (spec - s' (F(k) + W_read / R)) / den
            # falls with s', s' B_mem rises; their minimum peaks where they meet, at
            # s* = spec / (F(k) + W_read / R + B_mem den). The best s' >= speed is max(speed, s*).
            a_k = fixed(k) + w_read / R
            s_star = spec / (a_k + b_mem * den) if math.isfinite(b_mem) and den > 0 else speed
            s = max(speed, s_star)
            tau = spec / s
            avail = tau - fixed(k)
            if avail <= 0:
                continue
            num = avail - w_read / R
            # reading: a zero denominator (no KV, no limiting link) leaves that bound unlimited
            # where its numerator is positive
            b_bw = num / den if den > 0 else (math.inf if num > 0 else 0.0)
            b_fl = flops / (2 * params * active * s * prefill)
            b = max(0.0, min(b_bw, b_mem, b_fl))
            phys = b * s * per_mw
            if phys > 0:
                found.append((phys, k, s))
    if found:
        # reading: layouts within 1e-12 of the largest throughput tie (a compute-bound plateau
        # is flat up to rounding); ties keep the fewest stages, then the slowest s'
        best = max(x[0] for x in found)
        best_k, best_s, _ = min(
            ((k, s, phys) for phys, k, s in found if phys >= best * (1 - 1e-12)),
            key=lambda x: (x[0], x[1]),
        )
    return {
        "n_w": n_w,
        "k_min": k_min,
        "stage_candidates": ks,
        "ceiling_tokens_per_s": s_ceil,
        "physics_tokens_per_s_per_mw": best,
        "stages": best_k,
        "physics_speed": best_s,
    }


def _tflops(v: dict, hw: str, bpp: float) -> float:
    """V4.4: dense TFLOPS at the weights' precision: the 16-bit, 8-bit and 4-bit figures of
    hardware.csv at 2, 1 and 0.5 bytes a parameter, geometric in between (linear in log2 of
    the bytes); an 8-bit or 4-bit figure left blank is twice the next wider one; outside 0.5-2
    bytes, in proportion to 1 / bytes."""
    t16 = _num(v, hw + "tflops")
    t8 = _opt(v, hw + "tflops_fp8")
    t8 = 2 * t16 if t8 is None else t8
    t4 = _opt(v, hw + "tflops_fp4")
    t4 = 2 * t8 if t4 is None else t4
    z = math.log2(bpp)
    zc = min(1.0, max(-1.0, z))
    if zc <= 0:
        inner = t8 * (t4 / t8) ** (-zc)
    else:
        inner = t8 * (t16 / t8) ** zc
    return inner * 2.0 ** (zc - z)


def _is_sourced(source) -> bool:
    """0.1: a sourced measurement (its source is not a Guesstimate)."""
    return (
        isinstance(source, str)
        and bool(source.strip())
        and not source.strip().lower().startswith("guesstimate")
    )


def realisation_points(base: dict, platform: str) -> list[tuple[float, float]]:
    """V4.4: [(x_i, eta_i)] of the platform's sourced frontier points with a measured model,
    ascending in x: eta_i = Thr_data_i / Env_p(s_i; measured model i, base hardware) and the
    regime x_i = s_i / that model's ceiling on the base hardware; points at one x are merged by
    their geometric mean. Empty where no point qualifies (eta = 1)."""
    cap = k_cap(base, platform)
    scale = _opt(base, f"hardware.{platform}.frontier_scale")
    scale = 1.0 if scale is None else scale
    by_x: dict[float, list[float]] = {}
    for key in sorted(base):
        if not (
            key.startswith("frontier.") and key.endswith(".platform") and base[key] == platform
        ):
            continue
        i = key[len("frontier.") : -len(".platform")]
        mid = base.get(f"frontier.{i}.{FRONTIER_MODEL_COLUMN}")
        # reading: without a source column (an Assumptions' values) no point counts as sourced
        if _blank(mid) or not _is_sourced(base.get(f"frontier.{i}.source")):
            continue
        mid = str(mid).strip()
        if f"models.{mid}.params" not in base:
            raise DataError(f"frontier row {i}: model {mid} is not a row of models.csv")
        s_i = _num(base, f"frontier.{i}.tokens_per_s_per_user")
        env = envelope(base, platform, s_i, _measured_model(base, mid), cap)
        phys = env["physics_tokens_per_s_per_mw"]
        if phys > 0:
            x = s_i / env["ceiling_tokens_per_s"]
            by_x.setdefault(x, []).append(
                math.log(scale * _num(base, f"frontier.{i}.tokens_per_s_per_mw") / phys)
            )
    return [(x, math.exp(sum(ls) / len(ls))) for x, ls in sorted(by_x.items())]


def _interp(points: list[tuple[float, float]], x: float) -> float:
    """Linear between the points, flat outside them."""
    if x <= points[0][0]:
        return points[0][1]
    for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return points[-1][1]


class Capacity:
    """Throughput per facility MW of one platform at any speed on the run's basis, with its
    ceiling and the served-speed grid (0.1, B)."""

    def __init__(self, v: dict, base: dict, platform: str, basis: str):
        if f"hardware.{platform}.power_kw" not in v:
            raise DataError(
                f"platform {platform} is not a hardware id ({', '.join(_ids(v, 'hardware'))})"
            )
        self.v, self.platform, self.basis = v, platform, basis
        self.points: list[tuple[float, float]] = []
        if basis == "transferred":
            self.points = realisation_points(base, platform)
        fs = _opt(v, f"hardware.{platform}.frontier_scale")
        self.scale = 1.0 if fs is None else fs
        self.cap = self.ceiling = None  # the data basis serves the tier speeds and needs neither
        if basis != "data":
            self.cap = k_cap(base, platform)
            self.ceiling = envelope(v, platform, 1.0, cap=self.cap)["ceiling_tokens_per_s"]

    def eta(self, s: float) -> float:
        """V4.4: eta_p at the regime of speed s on the served model, capped at 1 (1 with no
        sourced point)."""
        if not self.points:
            return 1.0
        return min(1.0, _interp(self.points, s / self.ceiling))

    def eta_raw(self, s: float) -> float:
        return _interp(self.points, s / self.ceiling) if self.points else 1.0

    def _curve(self, s: float) -> float:
        env = envelope(self.v, self.platform, s, cap=self.cap)["physics_tokens_per_s_per_mw"]
        return self.eta(s) * env

    def thr(self, s: float) -> float:
        if self.basis == "data":
            return _data_throughput(self.v, self.platform, [s])[0]
        if self.basis == "physics":
            return envelope(self.v, self.platform, s, cap=self.cap)["physics_tokens_per_s_per_mw"]
        etas = [e for _, e in self.points]
        if all(b <= a for a, b in zip(etas, etas[1:], strict=False)):
            return self.scale * self._curve(s)
        # V4.5: eta rises with x somewhere: the hull of eta x envelope over faster regimes, on
        # the grid of x (and eta's knots), linear in x between grid points; below the grid the
        # larger of the curve and the hull at the grid's start
        grid = sorted({*_HULL_X, *(x for x, _ in self.points if x <= 1.0)})
        grid = [g for g in grid if g <= 1.0]
        vals = [self._curve(g * self.ceiling) for g in grid]
        hull = list(vals)
        for j in range(len(hull) - 2, -1, -1):
            hull[j] = max(hull[j], hull[j + 1])
        x = s / self.ceiling
        if x < grid[0]:
            return self.scale * max(self._curve(s), hull[0])
        for j in range(len(grid) - 1):
            if x <= grid[j + 1] or j == len(grid) - 2:
                w = min(1.0, max(0.0, (x - grid[j]) / (grid[j + 1] - grid[j])))
                return self.scale * (hull[j] * (1 - w) + hull[j + 1] * w)
        raise AssertionError("unreachable")

    def feasible(self, tier_speed: float, m: float) -> bool:
        return tier_speed * m <= _CEILING_SHARE * self.ceiling

    def grid(self, tier_speed: float) -> list[float]:
        """The grid multipliers feasible on this platform, fastest first."""
        return [m for m in _SERVED_GRID if self.feasible(tier_speed, m)]


# ---------------------------------------------------------------- 0.4 API demand: a logit over tiers


def logit_calibrate(
    volumes: dict,
    diversion: float,
    elasticity: float,
    p_ref: float,
    wtp: float,
    lam: float,
    prices: dict,
    tier_speeds: dict,
) -> dict:
    """0.4 (C): market size, calibration shares, beta, gamma and the alphas that reproduce the
    volumes {standard, fast, ultrafast} at the calibration prices (ultrafast at p_ref) and the tier
    speeds; nest {fast, ultrafast} with parameter lam in (0, 1] (1 = plain logit)."""
    if not 0 < lam <= 1:
        raise DataError(f"api.speed_nest_lambda must be in (0, 1], not {lam}")
    V_s, V_f, V_u = volumes["standard"], volumes["fast"], volumes["ultrafast"]
    M = V_u + (V_s + V_f) / diversion
    q = {"standard": V_s / M, "fast": V_f / M, "ultrafast": V_u / M}
    q0 = 1 - q["standard"] - q["fast"] - q["ultrafast"]  # = (1 - q_u)(1 - D)
    beta = elasticity / (p_ref * (1 - q["ultrafast"]))
    gamma = beta * wtp / math.log(2)
    p_cal = {"standard": prices["standard"], "fast": prices["fast"], "ultrafast": p_ref}
    v_cal = {"standard": math.log(q["standard"] / q0)}
    i_star = math.log((q["fast"] + q["ultrafast"]) / q0)  # inclusive value of the nest
    for j in ("fast", "ultrafast"):
        # reading: no calibrated ultrafast volume (V_u = 0) leaves the tier without utility
        v_cal[j] = (
            lam * math.log(q[j] / (q["fast"] + q["ultrafast"])) + i_star if q[j] > 0 else None
        )
    alpha = {
        i: None
        if v_cal[i] is None
        else v_cal[i] + beta * p_cal[i] - gamma * math.log(tier_speeds[i])
        for i in _TIERS
    }
    return {"M": M, "q": q, "q0": q0, "beta": beta, "gamma": gamma, "lam": lam, "alpha": alpha}


def logit_shares(cal: dict, prices: dict, speeds: dict, with_ultrafast: bool = True) -> dict:
    """0.4 (C): shares of the market M by tier at the given prices and served speeds, with the
    ultrafast tier offered or not (its share 0 then); the outside option takes the rest."""
    b, g, lam = cal["beta"], cal["gamma"], cal["lam"]
    util = {}
    for i in _TIERS:
        if (
            cal["alpha"][i] is None
            or (i == "ultrafast" and not with_ultrafast)
            or speeds.get(i) is None
        ):
            continue
        util[i] = cal["alpha"][i] - b * prices[i] + g * math.log(speeds[i])
    nest = [util[j] / lam for j in ("fast", "ultrafast") if j in util]
    e_s = math.exp(util["standard"]) if "standard" in util else 0.0
    e_nest = 0.0
    if nest:
        top = max(nest)
        inclusive = lam * (top + math.log(sum(math.exp(x - top) for x in nest)))
        e_nest = math.exp(inclusive)
    denom = 1 + e_s + e_nest
    x = {"standard": e_s / denom, "fast": 0.0, "ultrafast": 0.0}
    for j in ("fast", "ultrafast"):
        if j in util:
            x[j] = math.exp(util[j] / lam - inclusive / lam) * e_nest / denom
    x["outside"] = 1 - x["standard"] - x["fast"] - x["ultrafast"]
    return x


def diversion_shares(cal: dict, prices: dict, speeds: dict) -> tuple[dict, dict, dict]:
    """0.4 (C): D_j = (x0_j - x_j) / x_u, the share of an ultrafast token taken from tier j
    (0 where the ultrafast share is 0), with the shares with and without the ultrafast tier."""
    x = logit_shares(cal, prices, speeds, True)
    x0 = logit_shares(cal, prices, speeds, False)
    d = {j: (x0[j] - x[j]) / x["ultrafast"] if x["ultrafast"] > 0 else 0.0 for j in _LAB_TIERS}
    return d, x, x0


# ---------------------------------------------------------------- 0.2 the monthly allocation


ALLOCATION_ORDER = ("api", "subscriber", "backfill_peak", "free")  # ties keep this order


def allocate(mw: float, pta: float, uses: dict) -> dict:
    """0.2 (D): average MW given to each use in one month. uses: {name: (cap Y, value rho)} for
    the peak-shaped api, subscriber, backfill_peak and free (moved traffic: the lab's and the
    free tier's) and the flexible moved traffic "flexible".
    max sum rho_j y_j s.t. 0 <= y_j <= Y_j, pta (y_api + y_sub + y_peak + y_free) <= mw,
    y_api + y_sub + y_peak + y_free + y_flex <= mw. Greedy (exact: every peak-shaped use takes one unit of
    both constraints per unit, the flexible use one of the average constraint only)."""
    y_cap_f, rho_f = uses["flexible"]
    flex_first = min(y_cap_f, mw) if rho_f > 0 else 0.0
    order = sorted(ALLOCATION_ORDER, key=lambda n: -uses[n][1])  # stable: ties keep the order
    peak_room = min(mw / pta, mw)  # reading: with pta < 1 the average constraint bounds them too
    out, S = {}, 0.0
    for n in order:
        y_cap, rho = uses[n]
        if rho <= 0:
            limit = 0.0
        elif rho > rho_f:
            limit = peak_room
        else:
            limit = min(peak_room, mw - flex_first)
        out[n] = max(0.0, min(y_cap, limit - S))
        S += out[n]
    out["flexible"] = max(0.0, min(y_cap_f, mw - S)) if rho_f > 0 else 0.0
    return out


# ---------------------------------------------------------------- 3.5 and 4.1: MW online, rent


def _flag(v: dict, key: str) -> int:
    x = _num(v, key)
    if x not in (0.0, 1.0):
        raise DataError(f"{key} takes 0 or 1, not {x}")
    return int(x)


def _mw_and_rent(v: dict) -> tuple[int, list[float], list[float]]:
    """3.5, 0.3 (B) and 4.1: MW online and rent for t = 1..T (linear ramp, or tranches)."""
    T = int(_num(v, "contract.term_months"))
    mw = _num(v, "contract.mw")
    t_mw, t_months = _opt(v, "contract.tranche_mw"), _opt(v, "contract.tranche_months")
    if (t_mw is None) != (t_months is None):
        raise DataError(
            "contract.tranche_mw and contract.tranche_months are set together or both left blank"
        )
    if t_mw is not None:
        # B: the first tranche online in month 1, one more every tranche_months
        mws = [min(mw, t_mw * math.ceil(t / t_months)) for t in range(1, T + 1)]
    else:
        ramp = _num(v, "contract.ramp_months")
        mws = [mw * min(1.0, t / ramp) if ramp > 0 else mw for t in range(1, T + 1)]
    value = _num(v, "contract.value_usd")
    delivered = _num(v, "contract.delivered_share")
    payment = str(v["contract.payment"])
    if payment not in ("pay_as_delivered", "take_or_pay"):
        raise DataError(
            f"contract.payment must be pay_as_delivered or take_or_pay, not {payment!r}"
        )
    if payment == "pay_as_delivered":
        total = sum(mws)
        # V4.5: the rent follows the MW delivered, delivered_share of the schedule;
        # reading: nothing scheduled (sum of MW = 0) means nothing paid
        rent = [value * delivered * m / total if total > 0 else 0.0 for m in mws]
    else:  # take-or-pay: owed in full, flat, whatever is delivered
        rent = [value / T] * T
    return T, [m * delivered for m in mws], rent


# ---------------------------------------------------------------- 0. one scenario, version 3


def _check_version3(v: dict) -> None:
    missing = [k for k in (*V3_KEYS, *V4_KEYS) if k not in v or _blank(v[k])]
    if missing or "capacity.basis" not in v:
        raise DataError(
            "the data lack version 4 key(s): " + ", ".join(missing or ["capacity.basis"])
        )
    for old, new in RETIRED.items():
        if old in v and not _blank(v[old]):
            raise DataError(f"key {old} is retired; set {new} instead")
    if str(v["capacity.basis"]) not in BASES:
        raise DataError(
            f"capacity.basis must be one of {', '.join(BASES)}, not {v['capacity.basis']!r}"
        )
    if str(v["capacity.subscriber_offer"]) not in OFFERS:
        raise DataError(
            f"capacity.subscriber_offer must be one of {', '.join(OFFERS)}, not {v['capacity.subscriber_offer']!r}"
        )
    if _num(v, "market.pro_growth_monthly") < -_num(v, "conversion.pro_churn_monthly"):
        raise DataError("market.pro_growth_monthly must be >= -conversion.pro_churn_monthly")


def _gpu_rent_per_hour(v: dict, gpu: str) -> float:
    """V4.3: r_m, the GPU platform's hourly rent per chip where set, else the levelised cost of
    buying it on the contract's ramp and term (4.3) per chip-hour."""
    rent = _opt(v, f"hardware.{gpu}.rent_usd_per_hour")
    if rent is not None:
        return rent
    w = dict(v)
    w["contract.platform"] = gpu
    w["contract.delivered_share"] = 1.0  # reading: buying delivers what it buys
    T, mws, _ = _mw_and_rent(w)
    r = _num(v, "finance.discount_rate_annual")
    per_mw_month = buy_npv(w) / sum(m * (1 + r) ** (-t / 12) for t, m in enumerate(mws, start=1))
    chips_per_mw = 1000 / (_num(v, f"hardware.{gpu}.power_kw") * _num(v, "facility.pue"))
    return per_mw_month / (HOURS_PER_MONTH * chips_per_mw)


def _lower_pro(v: dict) -> bool:
    """V4.7: whether the data have the lower Pro tier (plans.csv row pro_lower)."""
    return not _blank(v.get("plans.pro_lower.price_usd_month"))


def _pro_price(v: dict, column: str = "price_usd_month") -> float:
    """V4.7: the price an upgrade pays, the Pro tiers' prices mixed by the lower tier's share."""
    top = _num(v, f"plans.pro.{column}")
    if not _lower_pro(v):
        return top
    share = _num(v, "conversion.lower_pro_share")
    return (1 - share) * top + share * _num(v, f"plans.pro_lower.{column}")


def _plan_usage_of(v: dict, plan: str) -> tuple[float, float]:
    """(weekly quota, median weekly demand) of one plan in standard-tier tokens (5.2, 0.5)."""
    per_query = _num(v, "usage.output_tokens_per_query")
    sigma = _num(v, "usage.demand_sigma")
    p = f"plans.{plan}."
    mean = _num(v, p + "queries_per_day") * 7 * per_query
    return _num(v, p + "weekly_quota_queries") * per_query, mean / math.exp(sigma * sigma / 2)


def _plan_usage(v: dict) -> tuple[tuple[float, float], tuple[float, float]]:
    """5.2 with 0.5: each plan's weekly quota and median weekly demand in standard-tier tokens,
    ((quota, median) of plus, (quota, median) of pro), built from public quantities: quota =
    weekly_quota_queries x usage.output_tokens_per_query; the mean weekly demand queries_per_day
    x 7 x tokens per query is a lognormal's mean, whose median is the mean / exp(sigma^2 / 2)."""
    per_query = _num(v, "usage.output_tokens_per_query")
    sigma = _num(v, "usage.demand_sigma")
    out = []
    for plan in ("plus", "pro"):
        p = f"plans.{plan}."
        mean = _num(v, p + "queries_per_day") * 7 * per_query
        out.append(
            (_num(v, p + "weekly_quota_queries") * per_query, mean / math.exp(sigma * sigma / 2))
        )
    return out[0], out[1]


def _gpu_side(v: dict, gc: Capacity, tier_speed: dict, basis: str) -> dict:
    """0.1 (B), V4.3: the GPU tiers' served speeds on the GPU platform and the value of a token
    crossing the GPU-fleet boundary, for the served model of ``v``."""
    f = lambda k: _num(v, k)  # noqa: E731
    gpu = str(v["capacity.gpu_platform"])
    c: dict = {}
    # 0.1 (B): the GPU tiers' served speeds and GPU cost per output token
    override = _opt(v, "capacity.gpu_cost_per_mtok_usd")
    served, below = {}, []
    for i in _LAB_TIERS:
        # 0.1: on the transferred and physics bases the served speed comes from the grid below
        # 0.9 x the ceiling whether or not capacity.gpu_cost_per_mtok_usd sets the cost (the
        # override sets a cost, not a speed); only the data basis keeps the tier speeds
        if basis == "data":
            served[i] = tier_speed[i]
        else:
            ms = gc.grid(tier_speed[i])
            if ms:
                served[i] = tier_speed[i] * ms[0]
            else:
                served[i] = _CEILING_SHARE * gc.ceiling
                below.append(i)
    c["served"], c["below_grid"] = served, below
    capped: list[str] = []
    # V4.3: one value per freed GPU-hour, lambda = a r_m + (1 - a)(sublet + e)
    chips_per_mw = 1000 / (f(f"hardware.{gpu}.power_kw") * f("facility.pue"))
    r_m = _gpu_rent_per_hour(v, gpu)
    energy = f(f"hardware.{gpu}.power_kw") * f("facility.pue") * f("buy.power_price_usd_per_kwh")
    a_share = f("fleet.avoidable_share")
    lam = a_share * r_m + (1 - a_share) * (f("fleet.sublet_usd_per_gpu_hour") + energy)
    u_ops = f("fleet.ops_utilization")
    troughs = str(v["fleet.troughs"])
    if troughs not in ("filled", "idle"):
        raise DataError(f"fleet.troughs must be filled or idle, not {troughs!r}")
    pta = f("usage.peak_to_average")
    c["gpu_hours"], c["gpu_thr"] = {}, {}
    for i in _LAB_TIERS:
        thr = gc.thr(served[i])
        c["gpu_thr"][i] = thr
        c["gpu_hours"][i] = 1e6 * chips_per_mw / (thr * 3600) if thr > 0 else math.inf
    c["lambda"], c["energy"], c["gpu_rent"] = lam, energy, r_m
    if override is not None:
        g_cost = {i: override for i in _LAB_TIERS}
        g_flex = override
    else:
        g_cost = {}
        for i in _LAB_TIERS:
            h = c["gpu_hours"][i]
            val = lam * pta * h / u_ops + energy * h if troughs == "idle" else lam * h / u_ops
            # V4.3: the one clamp left: a token's value to the fleet is at most its list price
            price = f(f"tiers.{i}.price_per_mtok_usd")
            g_cost[i] = min(val, price)
            if not val <= price:
                capped.append(i)
        flex = energy * c["gpu_hours"]["standard"] if troughs == "idle" else g_cost["standard"]
        g_flex = min(flex, g_cost["standard"])
    c["g"], c["g_flex"], c["gpu_cost_capped"] = g_cost, g_flex, capped
    c["gpu_cost_override"] = override is not None
    return c


def _setup(v: dict, base: dict) -> dict:
    """Everything of one scenario that does not depend on the ultrafast tier's served speed."""
    _check_version3(v)
    c = {"v": v}
    f = lambda k: _num(v, k)  # noqa: E731
    c["H"] = H = int(f("horizon.months"))
    T, c["mws"], c["rent"] = _mw_and_rent(v)
    c["T"] = T
    if H < T:
        raise DataError("horizon.months must be >= contract.term_months")
    c["tv_on"] = _flag(v, "finance.terminal_value")
    c["basis"] = basis = str(v["capacity.basis"])
    contract, gpu = str(v["contract.platform"]), str(v["capacity.gpu_platform"])
    c["contract"] = cc = Capacity(v, base, contract, basis)
    c["gpu"] = gc = cc if gpu == contract else Capacity(v, base, gpu, basis)
    tier_speed = {i: f(f"tiers.{i}.tokens_per_s") for i in _TIERS}
    c["tier_speed"] = tier_speed
    # V4.6: the price index of API prices and the cost index of GPU costs, month t
    dp, dg = f("market.price_decline_per_year"), f("hardware.gpu_cost_decline_per_year")
    c["price_index"] = lambda t: (1 - dp) ** ((t - 1) / 12)
    c["cost_index"] = lambda t: (1 - dg) ** ((t - 1) / 12)

    c.update(_gpu_side(v, gc, tier_speed, basis))
    served = c["served"]
    # backfill runs on the contract at the standard tier's served speed
    c["thr_b"] = cc.thr(served["standard"])
    # V4.6: a successor of another size (the same active share) is the flagship from the first
    # month t with t - 1 >= model.succession_months; its capacity on both platforms, its GPU
    # tiers' speeds and token values as the served model's are found (k_cap and eta from the
    # bundled data, as for the served model)
    c["succ"] = None
    multiple = _opt(v, "model.successor_params_multiple")  # absent: the same size
    multiple = 1.0 if multiple is None else multiple
    if multiple != 1:
        v2 = {**v, "model.params": f("model.params") * multiple}
        cc2 = Capacity(v2, base, contract, basis)
        gc2 = cc2 if gpu == contract else Capacity(v2, base, gpu, basis)
        side = _gpu_side(v2, gc2, tier_speed, basis)
        c["succ"] = {
            "contract": cc2,
            "g": side["g"],
            "g_flex": side["g_flex"],
            "thr_b": cc2.thr(side["served"]["standard"]),
            "start": f("model.succession_months"),
            "decline": f("model.predecessor_decline_per_month"),
        }

    # 0.4 (C): the logit, calibrated at the tier speeds with ultrafast at the reference price
    prices = {i: f(f"tiers.{i}.price_per_mtok_usd") for i in _TIERS}
    c["prices"] = prices
    c["logit"] = logit_calibrate(
        {
            "standard": f("api.standard_tokens_per_month"),
            "fast": f("api.fast_tokens_per_month"),
            "ultrafast": f("api.ultrafast_tokens_per_month"),
        },
        f("api.diversion_to_lab_tiers"),
        f("api.price_elasticity"),
        f("api.reference_price_per_mtok_usd"),
        f("api.wtp_speed_doubling_usd_per_mtok"),
        f("api.speed_nest_lambda"),
        prices,
        tier_speed,
    )

    # 0.4, 0.5 (E): adoption, the price factor, the calibrated no-deal world
    m_ref = _opt(v, "usage.adoption_ref_multiplier")
    if m_ref is None:  # default: the data's ultrafast usage multiplier
        m_ref = _num(base, "tiers.ultrafast.usage_multiplier")
    # 5.5: fast keeps its adoption and standard takes 1 - a_fast - a_u, so the demanded ultrafast
    # adoption is at most 1 - a_fast (a share of users; the standard share never negative)
    c["adoption_wanted"] = min(
        f("tiers.ultrafast.adoption")
        * (m_ref / f("tiers.ultrafast.usage_multiplier")) ** f("usage.adoption_burn_elasticity"),
        1 - f("tiers.fast.adoption"),
    )
    c["price_factor"] = None  # set below, after the calibrated propensity (V4.7)
    el = f("usage.speed_elasticity")
    # 5.2: phi_i = (s_i / the standard tier's speed)^elasticity, s_i the served speed (the
    # reading of _run_at; the denominator is the tier speed, not the standard tier's served one)
    c["phi_fast"] = (served["fast"] / tier_speed["standard"]) ** el
    phi_std = (served["standard"] / tier_speed["standard"]) ** el
    sigma = f("usage.demand_sigma")
    a_f = f("tiers.fast.adoption")
    (q_plus, m_plus), _ = _plan_usage(v)
    mult = {i: f(f"tiers.{i}.usage_multiplier") for i in _TIERS}
    N1 = f("market.mau") * f("market.plus_share_of_mau")
    # 0.5: h0_1 is month 1's no-deal cap-hit share (e_1 = 1), the standard tier's demand at its
    # served speed as in the run, so that month 1 holds u0_1 N_1 = P0_0 (churn + growth)
    sf_std1, _ = _lognormal_cap(m_plus * phi_std, q_plus / mult["standard"], sigma)
    sf_fast1, _ = _lognormal_cap(m_plus * c["phi_fast"], q_plus / mult["fast"], sigma)
    h0_1 = (1 - a_f) * sf_std1 + a_f * sf_fast1
    u0_1 = (
        f("market.pro_subscribers_start")
        * (f("conversion.pro_churn_monthly") + f("market.pro_growth_monthly"))
        / N1
    )
    share = f("conversion.capped_share_of_upgrades")
    prop = min(share * u0_1 / h0_1, f("conversion.max_capped_propensity")) if h0_1 > 0 else 0.0
    c["propensity"], c["base_rate"], c["h0_1"], c["u0_1"] = prop, u0_1 - prop * h0_1, h0_1, u0_1
    # V4.7: a binary logit per cap event: at the reference price the propensity s_r, the point
    # elasticity beta p_r (1 - s_r); pf = s(p) / s_r = 1 / (s_r + (1 - s_r) e^(beta (p - p_r)))
    p_now, p_ref = _pro_price(v), _pro_price(v, "price_ref_usd_month")
    s_r = min(max(prop, 0.0), 1 - 1e-12)
    beta = f("conversion.pro_price_elasticity") / (p_ref * (1 - s_r))
    c["price_factor"] = 1 / (s_r + (1 - s_r) * math.exp(beta * (p_now - p_ref)))
    return c


def _successor_month(c: dict, t: int) -> bool:
    """V4.6: whether the successor of another size is the flagship in month t."""
    succ = c["succ"]
    return succ is not None and t - 1 >= succ["start"]


def _fleet_g(c: dict, t: int) -> float:
    """V4.6: the GPU fleet's value of a standard token in month t (the month's flagship)."""
    return (c["succ"]["g"] if _successor_month(c, t) else c["g"])["standard"]


def _value_of_a_subscriber(c: dict, w_gap: list[float]) -> list[float]:
    """0.2 (D): W_t, the value at month 0 of one extra Pro subscriber converted in month t
    (t = 1..H; index t - 1), its survival stepped backward from H. w_gap[t - 1] is
    (w_pro,std,t - w_plus,std,t) in tokens a week."""
    v, H, T = c["v"], c["H"], c["T"]
    f = lambda k: _num(v, k)  # noqa: E731
    churn, xchurn = (
        f("conversion.pro_churn_monthly"),
        f("conversion.extra_churn_after_term_monthly"),
    )
    keep_rev = 1 - f("finance.variable_cost_share")
    margin_pro = _pro_price(v) - f("plans.plus.price_usd_month")
    r = f("finance.discount_rate_annual")
    r_m = (1 + r) ** (1 / 12) - 1
    cc = churn + xchurn
    cost = [c["cost_index"](t) * _fleet_g(c, t) / 1e6 for t in range(1, H + 1)]
    m = [
        margin_pro * keep_rev - gap * SECONDS_PER_MONTH / SECONDS_PER_WEEK * g_ci
        for gap, g_ci in zip(w_gap, cost, strict=True)
    ]
    d = [(1 + r) ** (-t / 12) for t in range(1, H + 1)]
    W = [0.0] * H
    W[H - 1] = m[H - 1] * d[H - 1] + c["tv_on"] * m[H - 1] * (1 - cc) / (r_m + cc) * d[H - 1]
    for t in range(H - 1, 0, -1):  # month t (index t - 1) from month t + 1
        survive = 1 - churn - (xchurn if t + 1 > T else 0.0)
        W[t - 1] = m[t - 1] * d[t - 1] + survive * W[t]
    return W


def _run_at(c: dict, m_u_grid: float | None) -> dict:
    """The whole model with the ultrafast tier served at tier speed x m_u_grid on the contract
    (None: the tier is not offered)."""
    v = c["v"]
    f = lambda k: _num(v, k)  # noqa: E731
    H, T, mws, rent_term = c["H"], c["T"], c["mws"], c["rent"]
    served = dict(c["served"])
    offered = m_u_grid is not None
    s_u = c["tier_speed"]["ultrafast"] * m_u_grid if offered else None
    served["ultrafast"] = s_u
    thr_u = c["contract"].thr(s_u) if offered else 0.0
    thr_b = c["thr_b"]
    g = c["g"]
    # V4.6: a successor of another size; the contract serves it where it reaches the served
    # ultrafast speed (0.1's grid: the same multiplier stays feasible), else the predecessor
    succ = c["succ"]
    reached = (
        offered
        and succ is not None
        and (
            c["basis"] == "data"
            or succ["contract"].feasible(c["tier_speed"]["ultrafast"], m_u_grid)
        )
    )
    thr_u2 = succ["contract"].thr(s_u) if reached else 0.0
    prices = c["prices"]
    fee = f("finance.variable_cost_share")
    keep_rev = 1 - fee

    # 0.4: shares, diversion, the margin of an ultrafast token
    if offered:
        D, x, x0 = diversion_shares(c["logit"], prices, served)
    else:
        x = x0 = logit_shares(c["logit"], prices, served, False)
        D = {j: 0.0 for j in _LAB_TIERS}
    m_u = prices["ultrafast"] * keep_rev - sum(
        D[j] * (prices[j] * keep_rev - g[j]) for j in _LAB_TIERS
    )
    api_rev_per_tok = (prices["ultrafast"] - sum(D[j] * prices[j] for j in _LAB_TIERS)) / 1e6
    pi_of, ci_of = c["price_index"], c["cost_index"]
    M = c["logit"]["M"]
    api_ramp = f("api.ramp_months")

    el = f("usage.speed_elasticity")
    phi_f = c["phi_fast"]
    # reading: phi_i = (s_i / the standard tier's speed)^elasticity, s_i the served speed
    phi_u = (s_u / c["tier_speed"]["standard"]) ** el if offered else 1.0
    phi_s = (served["standard"] / c["tier_speed"]["standard"]) ** el
    sigma = f("usage.demand_sigma")
    mult = {i: f(f"tiers.{i}.usage_multiplier") for i in _TIERS}
    (q_plus, m_plus), (q_pro, m_pro) = _plan_usage(v)
    lower = _lower_pro(v)
    q_low, m_low = _plan_usage_of(v, "pro_lower") if lower else (q_pro, m_pro)
    low_share = f("conversion.lower_pro_share") if lower else 0.0
    # V4.7: an adopter sends a share q of queries at ultrafast, the rest at standard
    q_share = f("usage.ultrafast_query_share")
    phi_mix = q_share * phi_u + (1 - q_share) * phi_s
    burn = (
        q_share * phi_u * mult["ultrafast"] + (1 - q_share) * phi_s * mult["standard"]
    ) / phi_mix
    u_share = q_share * phi_u / phi_mix
    lift_weight = f("conversion.voluntary_cap_hit_weight")
    a_f = f("tiers.fast.adoption")
    pta = f("usage.peak_to_average")
    keep = 1 - f("usage.token_efficiency_gain_annual")
    mau, growth, plus_share = (
        f("market.mau"),
        f("market.mau_growth_monthly"),
        f("market.plus_share_of_mau"),
    )
    churn, xchurn = (
        f("conversion.pro_churn_monthly"),
        f("conversion.extra_churn_after_term_monthly"),
    )
    base_rate, prop, pf = c["base_rate"], c["propensity"], c["price_factor"]
    margin_pro = _pro_price(v) - f("plans.plus.price_usd_month")
    movable = f("capacity.movable_share")
    batch = f("capacity.internal_batch_tokens_per_month")
    flex_share = f("capacity.backfill_flexible_share")
    free_on = _flag(v, "free.served")
    g_free = f("free.alternative_cost_per_mtok_usd") / 1e6
    free_tokens_per_user = (
        f("free.dau_per_mau")
        * min(f("free.queries_per_day"), f("free.flagship_queries_per_day"))
        * f("usage.output_tokens_per_query")
        * SECONDS_PER_MONTH
        / 86_400
    )
    offer = str(v["capacity.subscriber_offer"])
    r = f("finance.discount_rate_annual")
    week_to_month = SECONDS_PER_MONTH / SECONDS_PER_WEEK

    # the standard tier's demand (never capped differently by the deal): W_t first
    e_of = [keep ** ((t - 1) / 12) for t in range(1, H + 1)]

    def pro_mix(pro: tuple[float, float], low: tuple[float, float]) -> tuple[float, float]:
        """V4.7: the Pro stock's (SF, w) mixed over the two Pro tiers."""
        return tuple((1 - low_share) * a_ + low_share * b_ for a_, b_ in zip(pro, low, strict=True))

    std = [
        (
            _lognormal_cap(m_plus * e * phi_s, q_plus / mult["standard"], sigma),
            pro_mix(
                _lognormal_cap(m_pro * e * phi_s, q_pro / mult["standard"], sigma),
                _lognormal_cap(m_low * e * phi_s, q_low / mult["standard"], sigma),
            ),
        )
        for e in e_of
    ]
    W = _value_of_a_subscriber(c, [pro[1] - plus[1] for plus, pro in std])

    names = (
        "mw_online rent capacity_streams api_tokens_wanted api_tokens_served api_streams_peak "
        "subscriber_streams_peak ultrafast_adoption ultrafast_adoption_wanted utilization plus_pool eligible "
        "token_efficiency plus_cap_hit plus_cap_hit_counterfactual pro pro_counterfactual incremental_pro "
        "subscription_revenue api_revenue api_ultrafast_revenue api_revenue_lost api_gpu_cost_avoided "
        "backfill_tokens backfill_peak_tokens backfill_flexible_tokens backfill_usd tokens_served "
        "tokens_moved_off_gpus tokens_added_to_gpus gpu_savings_usd net_cash_flow cumulative_cash discount "
        "mw_api mw_subscriber mw_backfill_peak mw_backfill_flexible mw_idle subscriber_value "
        "value_per_mw_api value_per_mw_subscriber mw_free free_tier_moved_tokens "
        "demand_no_deal_tokens credited_tokens moved_demand_cap_tokens moved_flexible_cap_tokens "
        "cash_flow"
    ).split()
    rows = []
    P = P0 = f("market.pro_subscribers_start")
    K = npv = npv_term = pv_in = 0.0
    w_pro_std = w_plus_std = dP = 0.0
    for t in range(1, H + 1):
        term = t <= T
        MW = mws[t - 1] if term else 0.0
        R = rent_term[t - 1] if term else 0.0
        e = e_of[t - 1]
        N = mau * (1 + growth) ** (t - 1) * plus_share
        (sf_std, w_plus_std), (_, w_pro_std) = std[t - 1]
        sf_fast, _ = _lognormal_cap(m_plus * e * phi_f, q_plus / mult["fast"], sigma)
        pi_t, ci_t = pi_of(t), ci_of(t)
        # V4.6: the model the contract serves this month and the values of its tokens; where
        # it serves a predecessor, that model's demand declines from the successor's first month
        succ_t = _successor_month(c, t)
        on_t = succ_t and reached
        thr_u_t, thr_b_t = (thr_u2, succ["thr_b"]) if on_t else (thr_u, thr_b)
        g_c = succ["g"] if on_t else g
        g_std_c, g_flex_c = g_c["standard"] / 1e6, (succ["g_flex"] if on_t else c["g_flex"]) / 1e6
        g_fleet = _fleet_g(c, t) / 1e6
        api_gpu_t = sum(D[j] * g_c[j] for j in _LAB_TIERS) / 1e6
        delta = 1.0
        if succ_t and not on_t:
            delta = (1 - succ["decline"]) ** (t - math.ceil(succ["start"]))
        if term and offered:
            # V4.7: the adopter's mixed burn; w counts their ultrafast tokens
            sf_u, w_plus_u = _lognormal_cap(m_plus * e * phi_mix, q_plus / burn, sigma)
            _, w_pro_u = pro_mix(
                _lognormal_cap(m_pro * e * phi_mix, q_pro / burn, sigma),
                _lognormal_cap(m_low * e * phi_mix, q_low / burn, sigma),
            )
            w_plus_u, w_pro_u = w_plus_u * u_share, w_pro_u * u_share
            A = (N * w_plus_u + P * w_pro_u) / (SECONDS_PER_WEEK * s_u)  # P = P_(t-1)
            ramp = min(1.0, t / api_ramp) if api_ramp > 0 else 1.0
            V = M * x["ultrafast"] * e * ramp * delta
            a_dem = c["adoption_wanted"]
        else:
            sf_u = A = V = a_dem = 0.0
        # V4.2: the served model's own demand without the deal (chat at the standard tier, the
        # API's standard and fast tokens, the free tier's where served), what the deal already
        # credits (the adopters' standard-equivalent volume, the API tokens diverted to
        # ultrafast) and the cap on moved traffic
        chat = (N * w_plus_std + P0 * w_pro_std) * week_to_month * delta  # P0 = P0_(t-1)
        api_d0 = M * (x0["standard"] + x0["fast"]) * e * delta
        want = a_dem * delta if (offered and thr_u_t > 0 and offer != "off") else 0.0
        credited_chat = credited_api = 0.0
        if term and offered:
            credited_chat = want * (N * w_plus_u + P * w_pro_u) * week_to_month / phi_u
            credited_api = V * (D["standard"] + D["fast"])
        mau_t = mau * (1 + growth) ** (t - 1)
        free_d0 = free_on * max(mau_t - N, 0.0) * free_tokens_per_user * e * delta
        if term:
            api_net = api_d0 - credited_api
            moved_cap = movable * max(0.0, chat - credited_chat + api_net) + batch
            moved_flex = min(moved_cap, movable * flex_share * max(0.0, api_net) + batch)
            free_cap = movable * free_d0
        else:
            moved_cap = moved_flex = free_cap = 0.0
        # 0.2 (D): values per average MW-month and caps in average MW
        v_s = 0.0
        uses = {"api": (0.0, 0.0), "subscriber": (0.0, 0.0)}
        # V4.6: API prices at pi_t of their list, GPU costs at c_t
        m_u_t = keep_rev * pi_t * api_rev_per_tok * 1e6 + ci_t * api_gpu_t * 1e6
        if offered and thr_u_t > 0:
            uses["api"] = (
                V / (SECONDS_PER_MONTH * thr_u_t),
                m_u_t * SECONDS_PER_MONTH * thr_u_t / 1e6,
            )
            if A > 0:
                # V4.7: the deal's extra cap hits weigh lift_weight in the upgrades
                lift = (sf_u - sf_std) * lift_weight
                # W is worth at month 0; the other uses' values are month-t cash: W / d_t
                d_t = (1 + r) ** (-t / 12)
                v_s = (
                    g_std_c * ci_t * A * s_u * SECONDS_PER_MONTH / phi_u
                    + prop * lift * N * pf * W[t - 1] / d_t
                )
                mw_per_share = A * s_u / thr_u_t
                if offer != "off":
                    rho_s = math.inf if offer == "on" else v_s / mw_per_share
                    uses["subscriber"] = (a_dem * delta * mw_per_share, rho_s)
        if thr_b_t > 0:
            # V4.2-V4.3: moved traffic, peak-shaped and flexible, at the value of the GPU
            # capacity it frees; the free tier's at the smaller model's cost
            per_mw_b = SECONDS_PER_MONTH * thr_b_t
            uses["backfill_peak"] = ((moved_cap - moved_flex) / per_mw_b, g_std_c * ci_t * per_mw_b)
            uses["free"] = (free_cap / per_mw_b, g_free * ci_t * per_mw_b)
            uses["flexible"] = (moved_flex / per_mw_b, g_flex_c * ci_t * per_mw_b)
        else:
            uses["backfill_peak"] = uses["free"] = uses["flexible"] = (0.0, 0.0)
        y = (
            allocate(MW, pta, uses)
            if MW > 0
            else dict.fromkeys(("api", "subscriber", "backfill_peak", "free", "flexible"), 0.0)
        )
        V_served = y["api"] * SECONDS_PER_MONTH * thr_u_t
        a_u = y["subscriber"] * thr_u_t / (A * s_u) if A > 0 else 0.0
        bp_tok = y["backfill_peak"] * SECONDS_PER_MONTH * thr_b_t
        bf_tok = y["flexible"] * SECONDS_PER_MONTH * thr_b_t
        fr_tok = y["free"] * SECONDS_PER_MONTH * thr_b_t
        used = y["api"] + y["subscriber"] + y["backfill_peak"] + y["free"] + y["flexible"]
        util = used / MW if MW > 0 else None
        # 5.6 with 0.5 (E)
        h = (1 - a_f - a_u) * sf_std + a_f * sf_fast + a_u * sf_u
        h0 = (1 - a_f) * sf_std + a_f * sf_fast
        h_up = h0 + a_u * (sf_u - sf_std) * lift_weight  # V4.7: the cap hits upgrades see
        u, u0 = pf * (base_rate + prop * h_up), pf * (base_rate + prop * h0)
        if term:
            P_new = P * (1 - churn) + u * N
        else:
            P_new = P * (1 - churn) - xchurn * max(0.0, P - P0) + u * N
        E = N + P
        P0 = P0 * (1 - churn) + u0 * N
        P = P_new
        dP = P - P0
        # G: cash
        sub = dP * margin_pro
        api = V_served * pi_t * api_rev_per_tok
        api_gpu = V_served * ci_t * api_gpu_t
        subs_tokens = a_u * A * s_u * SECONDS_PER_MONTH if offered else 0.0
        added = dP * (w_pro_std - w_plus_std) * week_to_month
        backfill_usd = (bp_tok * g_std_c + bf_tok * g_flex_c + fr_tok * g_free) * ci_t
        # V4.6: the adopters' tokens save the contract's model, the added ones cost the flagship
        gpu = backfill_usd + api_gpu + (subs_tokens / phi_u * g_std_c - added * g_fleet) * ci_t
        cash_only = (sub + api) * keep_rev - R
        cf = cash_only + gpu
        K += cf
        d = (1 + r) ** (-t / 12)
        npv += cf * d
        if term:
            npv_term = npv
        pv_in += ((sub + api) * keep_rev + gpu) * d
        moved = bp_tok + bf_tok + fr_tok + sum(D.values()) * V_served + subs_tokens / phi_u
        streams_per_mw = thr_u_t / s_u if offered else 0.0
        rows.append(
            (MW, R, streams_per_mw * MW, V, V_served, V_served * pta / (s_u * SECONDS_PER_MONTH) if offered else 0.0,
             a_u * A * pta, a_u, a_dem, util, N, E, e, h, h0, P, P0, dP,
             sub, api, V_served * pi_t * prices["ultrafast"] / 1e6,
             V_served * pi_t * sum(D[j] * prices[j] for j in _LAB_TIERS) / 1e6,
             api_gpu, bp_tok + bf_tok + fr_tok, bp_tok, bf_tok, backfill_usd,
             V_served + subs_tokens + bp_tok + bf_tok + fr_tok,
             moved, added, gpu, cf, K, d,
             y["api"], y["subscriber"], y["backfill_peak"], y["flexible"], MW - used if MW > 0 else 0.0, v_s,
             uses["api"][1], uses["subscriber"][1], y["free"], fr_tok,
             chat + api_d0 + free_d0, credited_chat + credited_api if term else 0.0,
             moved_cap + free_cap, moved_flex, cash_only)
        )  # fmt: skip
    out = {k: list(col) for k, col in zip(names, zip(*rows, strict=True), strict=True)}
    out["pro_subscribers_no_deal"] = out["pro_counterfactual"]
    out["subscriber_value_of_a_convert"] = W

    # 6: terminal value (w_*_std and dP of month H), NPV, payback, IRR
    r_m = (1 + r) ** (1 / 12) - 1
    cc = churn + xchurn
    m_H = margin_pro * keep_rev - (w_pro_std - w_plus_std) * week_to_month * _fleet_g(
        c, H
    ) / 1e6 * ci_of(H)
    tv = dP * m_H * (1 - cc) / (r_m + cc)
    tv_on = c["tv_on"]
    d_H = out["discount"][-1]
    npv_total = npv + tv_on * tv * d_H
    rent_npv = sum(x_ * d_ for x_, d_ in zip(out["rent"], out["discount"], strict=True))
    flows = [0.0, *out["net_cash_flow"]]
    flows[H] += tv_on * tv
    sum_U = sum(out["tokens_served"])
    lam_cal = c["logit"]
    premium = None
    if lam_cal["alpha"]["ultrafast"] is not None:
        premium = (lam_cal["alpha"]["ultrafast"] - lam_cal["alpha"]["standard"]) / lam_cal["beta"]
    out.update(
        npv_usd=npv_total,
        npv_without_terminal_value_usd=npv,
        npv_at_term_usd=npv_term,
        terminal_value_usd=tv,
        payback_months=_payback(out["net_cash_flow"]),
        cash_payback_months=_payback(out["cash_flow"]),
        discounted_payback_months=_payback(
            [x_ * d_ for x_, d_ in zip(out["net_cash_flow"], out["discount"], strict=True)]
        ),
        irr_annual=_irr(flows) if _irr_unique(flows) else None,
        profitability_index=(pv_in + tv_on * tv * d_H) / rent_npv if rent_npv != 0 else None,
        realised_cost_per_mtok_usd=1e6 * sum(out["rent"]) / sum_U if sum_U > 0 else None,
        rent_npv_usd=rent_npv,
        throughput_per_mw_ultrafast=thr_u,
        throughput_per_mw_standard=thr_b,
        served_tokens_per_s=served,
        served_multiplier_ultrafast=m_u_grid,
        ultrafast_offered=offered,
        gpu_cost_per_mtok_usd=dict(g),
        gpu_cost_flexible_per_mtok_usd=c["g_flex"],
        gpu_hour_value_usd=c["lambda"],
        gpu_rent_usd_per_hour=c["gpu_rent"],
        gpu_energy_usd_per_hour=c["energy"],
        gpu_hours_per_mtok=dict(c["gpu_hours"]),
        gpu_throughput_per_mw=dict(c["gpu_thr"]),
        gpu_cost_overridden=c["gpu_cost_override"],
        gpu_cost_capped_by_margin=list(c["gpu_cost_capped"]),
        below_grid=list(c["below_grid"]),
        realisation_factor={
            "contract": c["contract"].eta(s_u) if offered and c["basis"] == "transferred" else None,
            "contract_standard": c["contract"].eta(c["served"]["standard"])
            if c["basis"] == "transferred"
            else None,
            "gpu": {i: c["gpu"].eta(c["served"][i]) for i in _LAB_TIERS}
            if c["basis"] == "transferred"
            else None,
        },
        realisation_points={
            "contract": len(c["contract"].points),
            "gpu": len(c["gpu"].points),
        },
        # reading: a tier that is not offered has no margin per token and diverts nothing
        api_margin_per_mtok_usd=m_u if offered else None,
        diversion=D if offered else {j: None for j in _LAB_TIERS},
        shares=x,
        shares_without_ultrafast=x0,
        market_tokens_per_month=M,
        logit_beta=lam_cal["beta"],
        logit_gamma=lam_cal["gamma"],
        implied_premium_per_mtok_usd=premium,
        plus_to_pro_base_monthly=c["base_rate"],
        capped_upgrade_propensity=c["propensity"],
        pro_price_factor=c["price_factor"],
        adoption_wanted=c["adoption_wanted"],
        contract_rate_usd_per_mw_month=f("contract.value_usd") / (f("contract.mw") * T),
    )
    return out


def candidates(v: dict, base: dict | None = None) -> list[float | None]:
    """0.1: the ultrafast tier's served-speed multipliers on the contract platform, fastest first
    (data basis: [1]; none feasible: [None], the tier not offered)."""
    c = _setup(v, bundled() if base is None else base)
    return _candidates(c)


def _candidates(c: dict) -> list[float | None]:
    if c["basis"] == "data":
        return [1.0]
    ms = c["contract"].grid(c["tier_speed"]["ultrafast"])
    return ms or [None]


def run(v: dict, base: dict | None = None, max_multiplier: float | None = None) -> dict:
    """One scenario. v: {dotted key: value}; base: the data as bundled, before scenario and
    overrides (eta_p and k_cap come from it; default: this repository's data/).

    The ultrafast tier's served speed on the transferred and physics bases is the grid candidate
    with the largest NPV (ties: the faster), each candidate a whole run; with max_multiplier
    (the Monte Carlo's fixed strategic choice m*) the fastest feasible candidate with m <= m*.
    The result carries every candidate's NPV (``candidate_npv_usd``: {multiplier: NPV})."""
    c = _setup(v, bundled() if base is None else base)
    ms = _candidates(c)
    if max_multiplier is not None and c["basis"] != "data":
        ms = [m for m in ms if m is not None and m <= max_multiplier + 1e-12] or [None]
        best = _run_at(c, ms[0])
        best["candidate_npv_usd"] = {ms[0]: best["npv_usd"]}
        return best
    best, npvs = None, {}
    for m in ms:  # fastest first: a tie keeps the faster
        out = _run_at(c, m)
        npvs[m] = out["npv_usd"]
        if best is None or out["npv_usd"] > best["npv_usd"]:
            best = out
    best["candidate_npv_usd"] = npvs
    return best


# ---------------------------------------------------------------- 4. rent versus buy


def _buy_flows(
    v: dict,
) -> tuple[int, list[float], list[float], list[float], list[float], float, float]:
    """4.2: capex shares (index j = end of month j), opex_t, rent R_t (t = 1..T), residual at T.
    Reading (V4.5): buying serves the contracted schedule (it delivers what it buys); the rent
    is the contract's, on its payment basis and delivered share."""
    _, _, rent = _mw_and_rent(v)
    T, mws, _ = _mw_and_rent({**v, "contract.delivered_share": 1.0})
    plat = v["contract.platform"]
    mw = float(v["contract.mw"])
    pue = float(v["facility.pue"])
    price = float(v[f"hardware.{plat}.price_usd"])
    systems = mw * 1000 / pue / float(v[f"hardware.{plat}.power_kw"])
    fac = float(v["buy.facility_capex_usd_per_mw"])
    capex = systems * price + mw * fac
    # reading: capex shares only for t = 1..T (MW falling to 0 after T is no negative capex);
    # where ramp_months > T only the share that came online is spent, while maintenance and the
    # residual still use the full system count, as written
    capex_at = [0.0] * (T + 1)
    prev = 0.0
    for t, m in enumerate(mws, start=1):
        capex_at[t - 1] += capex * (m - prev) / mw
        prev = m
    power = float(v["buy.power_price_usd_per_kwh"])
    maint = float(v["buy.maintenance_share_annual"]) / 12 * systems * price
    opex = [m * 1000 * HOURS_PER_MONTH * power + maint for m in mws]
    life, fac_life = float(v[f"hardware.{plat}.life_years"]), float(v["buy.facility_life_years"])
    residual = systems * price * max(0.0, 1 - T / (12 * life)) * float(v["buy.resale_share"])
    residual += mw * fac * max(0.0, 1 - T / (12 * fac_life))
    r = float(v["finance.discount_rate_annual"])
    return T, capex_at, opex, rent, mws, residual, r


def buy_npv(v: dict) -> float:
    """4.2: NPV of buying (a cost, positive)."""
    T, capex_at, opex, _, _, residual, r = _buy_flows(v)
    npv = sum(c * (1 + r) ** (-j / 12) for j, c in enumerate(capex_at))
    npv += sum(o * (1 + r) ** (-t / 12) for t, o in enumerate(opex, start=1))
    return npv - residual * (1 + r) ** (-T / 12)


def lessor_yield(v: dict) -> float | None:
    """4.3: annualised IRR of the owner's flows (root nearest zero), None where undefined."""
    T, capex_at, opex, rent, _, residual, _ = _buy_flows(v)
    flows = [-c for c in capex_at]
    for t in range(1, T + 1):
        flows[t] += rent[t - 1] - opex[t - 1]
    flows[T] += residual
    return _irr(flows)


def simple_breakeven(v: dict) -> tuple[float, float]:
    """6: the articles' back-of-the-envelope, value / (price_pro x T) Pro users and their share of MAU."""
    users = float(v["contract.value_usd"]) / (
        float(v["plans.pro.price_usd_month"]) * float(v["contract.term_months"])
    )
    # reading: the share is a decimal (0.00167, not 0.167 %) of market.mau (month 1's MAU)
    return users, users / float(v["market.mau"])
