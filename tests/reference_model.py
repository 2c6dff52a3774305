"""A plain, scalar, one-scenario implementation of the model specification (version 2; docs/model.md).

Written straight from the specification with the standard library only (math,
statistics.NormalDist); the data frontier's PCHIP (3.1) is built here with the
formulas of scipy's PchipInterpolator (the tests check the two agree). It shares
no code with econ. Inputs are {dotted key: value} for one scenario (docs/model.md,
section 2); outputs are plain floats and lists (None where a figure is undefined).
"""

from __future__ import annotations

import math
from statistics import NormalDist

SECONDS_PER_MONTH = 2_629_800.0
SECONDS_PER_WEEK = 604_800.0
HOURS_PER_MONTH = 730.5

_PHI = NormalDist().cdf  # standard normal CDF
_STAGE_MULTIPLES = (1, 1.25, 1.5, 2, 3, 4, 6, 8, 12, 16)  # 3.2: candidate stage counts
_SPEED_MULTIPLES = (1, 1.25, 1.5, 2, 3, 4, 6, 8)  # 3.4: faster feasible speeds
_TIERS = ("standard", "fast", "ultrafast")


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
            return c if min(a, b) <= c <= max(a, b) else 0.5 * (a + b)
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
    """MODEL.md 0.7: the IRR is reported where the flows change sign once from negative to
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
        raise ValueError(f"frontier: no points for platform {platform}")
    pts.sort()
    for (s0, y0, i0), (s1, y1, i1) in zip(pts, pts[1:], strict=False):
        if s1 == s0:
            raise ValueError(
                f"frontier: rows {i0} and {i1} of platform {platform} have the same speed {s0}"
            )
        if y1 > y0:
            raise ValueError(f"frontier: throughput rises with speed from row {i0} to row {i1}")
    return [p[0] for p in pts], [p[1] for p in pts]


def _data_throughput(v: dict, platform: str, speeds: list[float]) -> list[float]:
    """3.1: Thr_p(s) for each s, one interpolator for the platform."""
    xs, ys = _frontier(v, platform)
    for s in speeds:
        if not xs[0] <= s <= xs[-1]:
            raise ValueError(
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


def envelope(v: dict, platform: str, speed: float) -> dict:
    """3.2-3.4: replica layout, per-user ceiling and physics throughput per facility MW."""
    hw = f"hardware.{platform}."
    mem = float(v[hw + "memory_gb"]) * 1e9
    g = float(v[hw + "domain_chips"])
    eff = float(v[hw + "efficiency"])
    R = g * float(v[hw + "bandwidth_tb_s"]) * 1e12 * eff
    link = v.get(hw + "link_gb_s")
    L = None if _blank(link) else float(link) * 1e9
    hop = float(v[hw + "hop_latency_us"]) * 1e-6
    layer_time = float(v["model.layers"]) * float(v[hw + "layer_latency_us"]) * 1e-6
    params = float(v["model.params"])
    bpp = float(v["model.bytes_per_param"])
    active = float(v["model.active_param_share"])
    spec = float(v["model.speculative_speedup"])
    w_hold = params * bpp
    w_read = w_hold * active
    kv = float(v["model.context_tokens"]) * float(v["model.kv_bytes_per_token"])
    act_bytes = float(v["model.d_model"]) * bpp  # activations a stream carries per hop

    n_w = math.ceil(w_hold / mem)
    k_min = math.ceil(n_w / g)
    ks = sorted({math.ceil(m * k_min) for m in _STAGE_MULTIPLES})

    def fixed(k: int) -> float:  # F(k)
        return (k if k >= 2 else 0) * hop + layer_time

    s_ceil = spec / (w_read / R + fixed(k_min))
    flops = g * float(v[hw + "tflops"]) * 1e12 * (2 / bpp) * eff
    prefill = 1 + float(v["model.prefill_tokens_per_output"])
    per_mw = 1000 / (g * float(v[hw + "power_kw"]) * float(v["facility.pue"]))

    best, best_k, best_s = 0.0, None, None
    if speed <= s_ceil:
        for m in _SPEED_MULTIPLES:
            s = speed * m
            if s > s_ceil:
                break
            tau = spec / s
            b_fl = flops / (2 * params * active * s * prefill)
            for k in ks:
                avail = tau - fixed(k)
                if avail <= 0:
                    continue
                h = k if k >= 2 else 0
                den = kv / R + (h * act_bytes / L if L is not None else 0.0)
                num = avail - w_read / R
                # reading: a zero denominator (no KV, no limiting link) or zero KV leaves that bound
                # unlimited where its numerator is positive
                b_bw = num / den if den > 0 else (math.inf if num > 0 else 0.0)
                free = k * g * mem - w_hold
                b_mem = free / (k * kv) if kv > 0 else math.inf
                b = max(0.0, min(b_bw, b_mem, b_fl))
                phys = b * s * per_mw
                if phys > best:  # reading: ties keep the slowest s', then the fewest stages
                    best, best_k, best_s = phys, k, s
    return {
        "n_w": n_w,
        "k_min": k_min,
        "ceiling_tokens_per_s": s_ceil,
        "physics_tokens_per_s_per_mw": best,
        "stages": best_k,
        "physics_speed": best_s,
    }


def _capacity_throughput(v: dict, speeds: list[float]) -> list[float]:
    """3.5: Thr*_platform(s) for the contract platform under capacity.basis."""
    plat = v["contract.platform"]
    if f"hardware.{plat}.power_kw" not in v and f"hardware.{plat}.memory_gb" not in v:
        raise ValueError(
            f"contract.platform {plat} is not a hardware id ({', '.join(_ids(v, 'hardware'))})"
        )
    basis = v["capacity.basis"]
    if basis == "data":
        return _data_throughput(v, plat, speeds)
    if basis == "physics":
        return [envelope(v, plat, s)["physics_tokens_per_s_per_mw"] for s in speeds]
    raise ValueError(f"capacity.basis must be data or physics, not {basis!r}")


def _flag(v: dict, key: str) -> int:
    x = float(v[key])
    if x not in (0.0, 1.0):
        raise ValueError(f"{key} takes 0 or 1, not {x}")
    return int(x)


def _mw_and_rent(v: dict) -> tuple[int, list[float], list[float]]:
    """3.5 and 4.1: MW online and rent for t = 1..T."""
    T = int(v["contract.term_months"])
    mw = float(v["contract.mw"])
    ramp = float(v["contract.ramp_months"])
    mws = [mw * min(1.0, t / ramp) if ramp > 0 else mw for t in range(1, T + 1)]
    value = float(v["contract.value_usd"])
    if _flag(v, "contract.pay_as_delivered"):
        total = sum(mws)
        # reading: nothing delivered (sum of MW = 0) means nothing paid
        rent = [value * m / total if total > 0 else 0.0 for m in mws]
    else:
        rent = [value / T] * T
    return T, mws, rent


# ---------------------------------------------------------------- 4. rent versus buy


def _buy_flows(
    v: dict,
) -> tuple[int, list[float], list[float], list[float], list[float], float, float]:
    """4.2: capex shares (index j = end of month j), opex_t, rent R_t (t = 1..T), residual at T."""
    T, mws, rent = _mw_and_rent(v)
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


# ---------------------------------------------------------------- 5-6. revenue and payback


def run(v: dict) -> dict:
    """v: {dotted key: value} for one scenario; monthly lists (index 0 = month 1) and headline figures."""
    f = lambda k: float(v[k])  # noqa: E731
    H = int(f("horizon.months"))
    T, mws, rent_term = _mw_and_rent(v)
    if H < T:
        raise ValueError("horizon.months must be >= contract.term_months")
    tv_on = _flag(v, "finance.terminal_value")

    # per-scenario constants
    s = {i: f(f"tiers.{i}.tokens_per_s") for i in _TIERS}
    s_u, s_std = s["ultrafast"], s["standard"]
    thr_u, thr_std = _capacity_throughput(v, [s_u, s_std])
    el = f("usage.speed_elasticity")
    phi = {i: (s[i] / s_std) ** el for i in _TIERS}
    mult = {i: f(f"tiers.{i}.usage_multiplier") for i in _TIERS}
    sigma = f("usage.demand_sigma")
    q_plus, m_plus = f("plans.plus.weekly_quota_tokens"), f("plans.plus.median_weekly_tokens")
    q_pro, m_pro = f("plans.pro.weekly_quota_tokens"), f("plans.pro.median_weekly_tokens")
    c_plus = {i: q_plus / mult[i] for i in _TIERS}
    c_pro = {i: q_pro / mult[i] for i in _TIERS}
    a_fast, adopt_u = f("tiers.fast.adoption"), f("tiers.ultrafast.adoption")
    p2a = f("usage.peak_to_average")
    keep = 1 - f("usage.token_efficiency_gain_annual")
    mau, growth, plus_share = (
        f("market.mau"),
        f("market.mau_growth_monthly"),
        f("market.plus_share_of_mau"),
    )
    base, prop = f("conversion.plus_to_pro_base_monthly"), f("conversion.capped_upgrade_propensity")
    churn, xchurn = (
        f("conversion.pro_churn_monthly"),
        f("conversion.extra_churn_after_term_monthly"),
    )
    price_u = f("tiers.ultrafast.price_per_mtok_usd")
    api_full = f("api.ultrafast_tokens_per_month") * (
        price_u / f("api.reference_price_per_mtok_usd")
    ) ** (-f("api.price_elasticity"))
    api_ramp = f("api.ramp_months")
    cann = f("api.cannibalised_share")
    api_margin = (price_u - cann * f("api.standard_price_per_mtok_usd")) / 1e6
    margin_pro = f("plans.pro.price_usd_month") - f("plans.plus.price_usd_month")
    keep_rev = 1 - f("finance.variable_cost_share")
    backfill = f("capacity.backfill_tokens_per_month")
    gpu_cost = f("capacity.gpu_cost_per_mtok_usd") / 1e6
    r = f("finance.discount_rate_annual")
    streams_per_mw = thr_u / s_u  # C_t = Thr*(s_u) MW_t / s_u
    tok_u = s_u * SECONDS_PER_MONTH  # tokens a month of one ultrafast stream
    week_to_month = SECONDS_PER_MONTH / SECONDS_PER_WEEK

    names = (
        "mw_online rent capacity_streams api_tokens_wanted api_tokens_served api_streams_peak "
        "subscriber_streams_peak ultrafast_adoption utilization plus_pool eligible token_efficiency "
        "plus_cap_hit plus_cap_hit_counterfactual pro pro_counterfactual incremental_pro "
        "subscription_revenue api_revenue backfill_tokens backfill_usd tokens_served "
        "tokens_moved_off_gpus tokens_added_to_gpus gpu_savings_usd net_cash_flow cumulative_cash discount"
    ).split()
    rows = []  # one tuple a month, in the order of names

    P = P0 = f("market.pro_subscribers_start")
    K = 0.0
    npv = npv_term = pv_in = 0.0
    w_pro_std = w_plus_std = dP = 0.0
    for t in range(1, H + 1):
        term = t <= T
        MW = mws[t - 1] if term else 0.0
        R = rent_term[t - 1] if term else 0.0
        C = streams_per_mw * MW
        e = keep ** ((t - 1) / 12)
        N = mau * (1 + growth) ** (t - 1) * plus_share
        # 5.2: cap hits and truncated demand (plus: standard, fast, ultrafast; pro: standard, ultrafast)
        sf_std, w_plus_std = _lognormal_cap(m_plus * e * phi["standard"], c_plus["standard"], sigma)
        sf_fast, _ = _lognormal_cap(m_plus * e * phi["fast"], c_plus["fast"], sigma)
        _, w_pro_std = _lognormal_cap(m_pro * e * phi["standard"], c_pro["standard"], sigma)
        if term:
            sf_u, w_plus_u = _lognormal_cap(
                m_plus * e * phi["ultrafast"], c_plus["ultrafast"], sigma
            )
            _, w_pro_u = _lognormal_cap(m_pro * e * phi["ultrafast"], c_pro["ultrafast"], sigma)
            A = (N * w_plus_u + P * w_pro_u) / (SECONDS_PER_WEEK * s_u)  # 5.3, P = P_(t-1)
            ramp_api = min(1.0, t / api_ramp) if api_ramp > 0 else 1.0
            V = api_full * e * ramp_api  # 5.4
            want = V * p2a / tok_u
            if want <= C:
                S_api, V_served = want, V
            else:
                S_api, V_served = C, C * tok_u / p2a
            a_u = min(adopt_u, max(0.0, C - S_api) / (A * p2a)) if A > 0 else 0.0  # 5.5
        else:
            sf_u = 0.0  # multiplied by a_u = 0 after the term
            A = V = S_api = V_served = a_u = 0.0
        E = N + P
        sub_peak = a_u * A * p2a
        # 5.6
        h = (1 - a_fast - a_u) * sf_std + a_fast * sf_fast + a_u * sf_u
        h0 = (1 - a_fast) * sf_std + a_fast * sf_fast
        if term:
            P_new = P * (1 - churn) + (base + prop * h) * N
        else:
            P_new = P * (1 - churn) - xchurn * max(0.0, P - P0) + (base + prop * h) * N
        P0 = P0 * (1 - churn) + (base + prop * h0) * N
        P = P_new
        dP = P - P0
        # 5.7
        sub = dP * margin_pro
        api = V_served * api_margin
        # 5.8: backfill of spare capacity
        if term and MW > 0:
            spare = max(0.0, 1 - (S_api + sub_peak) / C) if C > 0 else 1.0
            cap = spare * MW * thr_std * SECONDS_PER_MONTH / p2a
            Bf = min(backfill * e, cap)
            util = (S_api + sub_peak) / (p2a * C) if C > 0 else 0.0
            std_capacity = MW * thr_std * SECONDS_PER_MONTH
            # reading: the backfill term is 0 where the platform carries nothing at standard speed
            util += Bf / std_capacity if std_capacity > 0 else 0.0
        else:
            Bf = 0.0
            util = None if MW == 0 else 0.0
        subs_tokens = a_u * A * tok_u
        U = V_served + subs_tokens + Bf
        # 5.9: the GPU-fleet boundary
        moved = Bf + cann * V_served + subs_tokens / phi["ultrafast"]
        added = dP * (w_pro_std - w_plus_std) * week_to_month
        gpu = (moved - added) * gpu_cost
        # 6
        cf = (sub + api) * keep_rev + gpu - R
        K += cf
        d = (1 + r) ** (-t / 12)
        npv += cf * d
        if term:
            npv_term = npv
        pv_in += ((sub + api) * keep_rev + gpu) * d
        rows.append(
            (MW, R, C, V, V_served, S_api, sub_peak, a_u, util, N, E, e, h, h0, P, P0, dP, sub, api,
             Bf, Bf * gpu_cost, U, moved, added, gpu, cf, K, d)
        )  # fmt: skip

    out = {k: list(col) for k, col in zip(names, zip(*rows, strict=True), strict=True)}

    # 6: terminal value of the Pro tail after H (w_*_std and dP are month H's)
    r_m = (1 + r) ** (1 / 12) - 1
    c = churn + xchurn
    m_H = margin_pro * keep_rev - (w_pro_std - w_plus_std) * week_to_month * gpu_cost
    tv = dP * m_H * (1 - c) / (r_m + c)
    d_H = out["discount"][-1]
    npv_total = npv + tv_on * tv * d_H
    rent_npv = sum(x * d for x, d in zip(out["rent"], out["discount"], strict=True))
    flows = [0.0, *out["net_cash_flow"]]
    flows[H] += tv_on * tv
    sum_U = sum(out["tokens_served"])
    out.update(
        npv_usd=npv_total,
        npv_without_terminal_value_usd=npv,
        npv_at_term_usd=npv_term,
        terminal_value_usd=tv,  # reading: reported whether or not finance.terminal_value includes it
        payback_months=_payback(out["net_cash_flow"]),
        discounted_payback_months=_payback(
            [x * d for x, d in zip(out["net_cash_flow"], out["discount"], strict=True)]
        ),
        irr_annual=_irr(flows) if _irr_unique(flows) else None,
        # reading: None where the rent's present value is 0
        profitability_index=(pv_in + tv_on * tv * d_H) / rent_npv if rent_npv != 0 else None,
        # reading: None where no token is served
        realised_cost_per_mtok_usd=1e6 * sum(out["rent"]) / sum_U if sum_U > 0 else None,
        rent_npv_usd=rent_npv,
        throughput_per_mw_ultrafast=thr_u,
        throughput_per_mw_standard=thr_std,
    )
    return out
