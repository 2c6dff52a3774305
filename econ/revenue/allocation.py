"""Capacity allocated by value each month, and the Pro stocks it drives (docs/model.md,
sections 0.2, 0.5, 5.3 and 5.6).

Each month the lab splits the contract between four uses, in "average MW" y (the MW a use
occupies on average; a peak-shaped use occupies peak_to_average x y at the peak): API tokens
(y_a), subscriber streams (y_s), peak-shaped backfill (y_p) and flexible backfill (y_f):

    maximise   rho_a y_a + rho_s y_s + rho_p y_p + rho_f y_f
    subject to peak_to_average (y_a + y_s + y_p) <= MW      (the peak)
               y_a + y_s + y_p + y_f <= MW                  (the average)
               0 <= y_j <= Y_j                              (demand)

with rho the value of a use per average MW-month [USD/MW-month]. ``allocate`` solves it
exactly in closed form (a greedy fill, see its docstring). The subscriber use's value moves
month by month with the Pro stock, so ``pro_paths`` steps the months in order.
Every array is time-major where monthly: (H, N) or broadcastable; scenarios (N,).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from econ.constants import SECONDS_PER_MONTH, SECONDS_PER_WEEK, TOKENS_PER_MILLION

Array = NDArray[np.float64]

USES = ("api", "subscriber", "backfill_peak", "free", "backfill_flexible")
# the peak-shaped uses in the order that breaks ties of value, and their letters in ``parts``
PEAK_USES = ("api", "subscriber", "backfill_peak", "free")
PEAK_LETTERS = "aspr"


def allocate(
    mw: ArrayLike,
    peak_to_average: ArrayLike,
    caps: tuple[ArrayLike, ...],
    values: tuple[ArrayLike, ...],
    flexible_cap: ArrayLike,
    flexible_value: ArrayLike,
    parts: dict[str, Array] | None = None,
) -> tuple[Array, ...]:
    """The LP's optimum (y_1, ..., y_n, y_f) [average MW] for one month, each (N,).

    ``caps`` and ``values`` are (Y, rho) of the n peak-shaped uses in the order of PEAK_USES
    (api, subscriber, moved peak-shaped traffic, the free tier). Closed form: flexible work
    wants F = min(Y_f, MW) where rho_f > 0. The peak-shaped uses are filled in order of rho
    (ties: the order above), the running total S of their average MW at most
    MW / peak_to_average; a use whose rho beats rho_f may fill up to that peak limit, one with
    0 < rho <= rho_f only the average room flexible work leaves, min(MW / pta, MW - F), and one
    with rho <= 0 nothing. Flexible work takes what is left, min(Y_f, MW - S). (A unit of
    peak-shaped use costs the flexible value of the average MW it occupies only once flexible
    work fills the rest: exact for this LP.) ``parts``, where given, receives the fill's steps:
    flex F, peak, shared, lim_<u>, rank_<u> (each use's place, 0 first; u a letter of
    PEAK_LETTERS) and got<j> (the MW of the use in place j) [MW or place].
    """
    mw = np.asarray(mw, float)
    pta = np.asarray(peak_to_average, float)
    rho_f = np.asarray(flexible_value, float)
    f_on = rho_f > 0
    fcap = np.asarray(flexible_cap, float)
    flex = np.where(f_on, np.minimum(fcap, mw), 0.0)
    peak = mw / pta
    shared = np.minimum(peak, mw - flex)
    n = len(caps)
    arrays = (mw, pta, rho_f, fcap, *caps, *values)
    shape = np.shape(mw)
    if (
        not all(isinstance(x, np.ndarray) and x.shape == shape for x in arrays[1:])
        or len(shape) != 1
    ):  # the general case: broadcast everything to one flat shape
        shape = np.broadcast_shapes(*(np.shape(x) for x in arrays))
    N = int(np.prod(shape)) if shape else 1

    def flat(x) -> Array:
        x = np.asarray(x, float)
        return x if x.shape == (N,) else np.broadcast_to(x, shape).reshape(N)

    Y = np.stack([flat(c) for c in caps])
    R = np.stack([flat(v) for v in values])
    rf, pk, sh = flat(rho_f), flat(peak), flat(shared)
    lim = np.where(R <= 0, 0.0, np.where(R > rf, pk, sh))  # (n, N)
    # the uses in order of value, ties in the order of PEAK_USES: a stable sort of -rho (a
    # NaN value sorts last, as a use that is worth nothing)
    order = np.argsort(-R, axis=0, kind="stable")
    cols = np.arange(N)
    y = np.zeros((n, N))
    S = np.zeros(N)
    for pos in range(n):
        j = order[pos]
        got = np.minimum(Y[j, cols], np.maximum(lim[j, cols] - S, 0.0))
        S = S + got
        y[j, cols] = got
        if parts is not None:
            parts[f"got{pos}"] = got.reshape(shape)
    if parts is not None:
        parts.update(flex=flex, peak=peak, shared=shared)
        rank = np.empty((n, N), int)
        rank[order, cols] = np.arange(n)[:, None]
        for k, u in enumerate(PEAK_LETTERS[:n]):
            parts[f"lim_{u}"], parts[f"rank_{u}"] = lim[k].reshape(shape), rank[k].reshape(shape)
    S = S.reshape(shape)
    y = [y[k].reshape(shape) for k in range(n)]
    y_f = np.where(f_on, np.minimum(fcap, np.maximum(mw - S, 0.0)), 0.0)
    return (*y, y_f if y_f.shape == shape else np.broadcast_to(y_f, shape))


def subscriber_value_per_adopter(
    margin: Array,
    discount: Array,
    survival_step: Array,
    tv_per_subscriber: ArrayLike,
    parts: dict[str, Array] | None = None,
) -> Array:
    """W_t [USD at month 0]: the present value of one extra Pro subscriber converted in month t
    (section 0.2), W_t = sum over tau >= t of m_tau d_tau S_tau / S_t + S_H / S_t x TV d_H, with
    S_tau = prod_{k <= tau} survival_step_k. ``margin`` m_t [USD/month], ``discount`` d_t and
    ``survival_step`` (1 - churn_t) are (H, N) or broadcastable; ``tv_per_subscriber`` is the
    terminal value of one subscriber at H (0 when excluded), (N,) [USD]. ``parts``, where given,
    receives the survival S_t [share] and the discounted margin m_t d_t S_t [USD], (H, N)."""
    shape = np.broadcast_shapes(np.shape(margin), np.shape(discount), np.shape(survival_step))
    log_s = np.cumsum(np.log(np.broadcast_to(survival_step, shape)), axis=0)
    s = np.exp(log_s)
    flow = np.broadcast_to(margin, shape) * np.broadcast_to(discount, shape) * s
    if parts is not None:
        parts.update(survival=s, discounted_margin=flow)
    tail = np.cumsum(flow[::-1], axis=0)[::-1]  # sum over tau >= t
    tail = tail + s[-1] * np.broadcast_to(discount, shape)[-1] * np.asarray(tv_per_subscriber)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(s > 0, tail / s, 0.0)


@dataclass(frozen=True)
class Allocation:
    """Monthly paths, time-major (H, N).

    pro, pro_counterfactual : P_t with the deal, P0_t without it [users].
    ultrafast_adoption : a_t served [share of eligible users]; adoption_wanted its demand cap.
    all_adopt_streams : A_t [average streams if every eligible user adopted].
    plus_cap_hit, plus_cap_hit_counterfactual : h_plus,t with and without [share].
    mw_api, mw_subscriber, mw_backfill_peak, mw_free, mw_backfill_flexible : average MW by use
    [MW] (moved traffic: peak-shaped, the free tier's, flexible).
    subscriber_value : rho_s [USD per average MW-month] (NaN where no subscriber demand).
    demand_no_deal : D0_t, the served model's standard output demand without the deal (Plus
    and Pro at the standard tier, the API's standard and fast tokens, the free tier's where
    served) [tokens/month]; credited : X_t, what the deal already credits [tokens/month];
    moved_cap : B_t, the moved traffic's cap (section V4.2) [tokens/month]; moved_flexible_cap
    its flexible part [tokens/month].
    parts : with ``detail``, each month's steps of the fill (see :func:`allocate`) and need
    (average MW if every eligible user adopted), sub_cap Y_s, rho_s (unmasked) and the caps of
    moved traffic in average MW, (H, N), and moved_value [USD per average MW-month] and
    mw_per_stream [MW], (N,); else None.
    """

    pro: Array
    pro_counterfactual: Array
    ultrafast_adoption: Array
    all_adopt_streams: Array
    plus_cap_hit: Array
    plus_cap_hit_counterfactual: Array
    mw_api: Array
    mw_subscriber: Array
    mw_backfill_peak: Array
    mw_free: Array
    mw_backfill_flexible: Array
    subscriber_value: Array
    demand_no_deal: Array
    credited: Array
    moved_cap: Array
    moved_flexible_cap: Array
    parts: dict[str, Array] | None = None


def pro_paths(
    *,
    plus_pool: Array,
    pro_start: ArrayLike,
    churn: ArrayLike,
    extra_churn_after_term: ArrayLike,
    base_upgrade: ArrayLike,
    capped_propensity: ArrayLike,
    price_factor: ArrayLike,
    adoption_fast: ArrayLike,
    adoption_wanted: ArrayLike,
    offer: str,
    peak_to_average: ArrayLike,
    speed_ultrafast: ArrayLike,
    throughput_ultrafast: ArrayLike,
    phi_ultrafast: ArrayLike,
    lift_weight: ArrayLike,
    gpu_cost_standard: ArrayLike,
    hit_standard: Array,
    hit_fast: Array,
    hit_ultrafast: Array,
    w_plus_ultrafast: Array,
    w_pro_ultrafast: Array,
    w_plus_standard: Array,
    w_pro_standard: Array,
    mw_online: Array,
    api_cap: Array,
    api_value: ArrayLike,
    api_demand: Array,
    api_credited: Array,
    free_demand: Array,
    internal_batch: Array,
    movable_share: ArrayLike,
    flexible_share: ArrayLike,
    per_mw_standard: ArrayLike,
    backfill_value: ArrayLike,
    free_value: ArrayLike,
    flexible_value: ArrayLike,
    pro_value: Array,
    term_months: ArrayLike,
    demand_factor: Array | None = None,
    detail: bool = False,
) -> Allocation:
    """Step the months: A_t from last month's Pro stock, the month's caps of moved traffic,
    the month's allocation, then the stocks.

    u_t = price_factor x (base + propensity x h_plus,t) in both worlds (section 0.5);
    P_t = P_(t-1)(1 - churn) - extra x max(0, P_(t-1) - P0_(t-1)) [after the term] + u_t N_t;
    P0_t = P0_(t-1)(1 - churn) + u0_t N_t, the tier unavailable.
    Moved traffic (section V4.2), in the term: D0_t = (N_t w_plus,std + P0_(t-1) w_pro,std)
    SECONDS_PER_MONTH / SECONDS_PER_WEEK + the API's standard and fast demand; X_t = the
    adopters' standard-equivalent volume a_want A_t s_u SECONDS_PER_MONTH / phi_u + the API
    tokens diverted to the ultrafast tier; B_t = movable_share x max(0, D0_t - X_t) + I_t
    (``api_demand`` and ``api_credited`` are the API's parts of D0 and X, ``internal_batch``
    I_t, 0 after the term),
    of which flexible min(B_t, movable_share x flexible_share x max(0, api D0 - X) + I_t); the
    free tier's demand (``free_demand``, where served) adds movable_share x it, peak-shaped.
    The value of a unit of adoption share in month t (section 0.2), per average MW:
    rho_s = g$_t SECONDS_PER_MONTH Thr_u / (phi_u 1e6) + propensity x pf x lift_t x N_t x W_t x
    Thr_u / (A_t s_u), with lift_t = w (SF_plus,u,t - SF_plus,std,t) and W_t = ``pro_value``
    (``lift_weight`` w: the weight of cap hits caused by choosing the faster burn, V4.7). The
    values of the uses and the GPU cost per token g$_t are monthly (section V4.6), (H, N) or
    broadcastable, and so are ``throughput_ultrafast`` and ``per_mw_standard`` (the model the
    contract serves that month). ``demand_factor`` (H, N) or None: the share of the served
    model's demand left where the contract serves a predecessor (section V4.6); it scales the
    adoption wanted, the Plus and Pro standard demand, the free tier's (already scaled in
    ``free_demand`` with the API's) and not the lab's batch work.
    ``offer``: 'auto' (that value), 'on' (first claim on the peak), 'off' (no streams).
    """
    monthly = (plus_pool, hit_standard, hit_fast, hit_ultrafast, w_plus_ultrafast)
    monthly += (w_pro_ultrafast, w_plus_standard, w_pro_standard, mw_online, api_cap)
    monthly += (api_demand, api_credited, free_demand, internal_batch, pro_value)
    monthly += (gpu_cost_standard, api_value, backfill_value, free_value, flexible_value)
    thr_u = np.asarray(throughput_ultrafast, float)
    per_b = np.asarray(per_mw_standard, float)
    thr_u, per_b = (x.reshape(1, -1) if x.ndim < 2 else x for x in (thr_u, per_b))
    monthly += (thr_u, per_b)
    scalars = (pro_start, churn, extra_churn_after_term, base_upgrade, capped_propensity)
    scalars += (price_factor, adoption_fast, adoption_wanted, peak_to_average, speed_ultrafast)
    scalars += (phi_ultrafast, lift_weight)
    scalars += (term_months, movable_share, flexible_share)
    H = max(np.shape(x)[0] for x in monthly)
    N = max([np.shape(x)[1] for x in monthly] + [np.size(x) for x in scalars])
    row = lambda x: np.broadcast_to(np.asarray(x, float).reshape(-1), (N,))  # noqa: E731
    (p_start, churn_, extra_, base_, prop_, pf, af, a_want, pta, s_u, phi_u, lw) = (
        row(x) for x in scalars[:12]
    )
    term, ms, fs = (row(x) for x in scalars[12:])
    full = lambda x: np.broadcast_to(np.asarray(x, float), (H, N))  # noqa: E731
    (pool, h_std, h_fast, h_u, wpu, wru, wps, wrs, mw, y_api, api_d0, api_x, free, batch, W) = (
        full(x) for x in monthly[:15]
    )
    g_std, rho_a, rho_p, rho_r, rho_f = (full(x) for x in monthly[15:20])
    dem_f = None if demand_factor is None else full(demand_factor)
    keep = 1.0 - churn_
    upgrade_base = pf * base_
    upgrade_prop = pf * prop_
    h0 = (1.0 - af) * h_std + af * h_fast  # no-deal cap hits: no dependence on the Pro stock
    lift_raw = h_u - h_std
    lift = lift_raw * lw  # the deal's extra cap hits as upgrades see them (section V4.7)
    stream_rate = 1.0 / (SECONDS_PER_WEEK * s_u)
    week_to_month = SECONDS_PER_MONTH / SECONDS_PER_WEEK
    # each month's (the model the contract serves then), computed on the shape given
    shape = np.broadcast_shapes(thr_u.shape, (1, N))
    offered_t = np.broadcast_to(thr_u > 0, (H, N))
    mw_per_stream_t = full(np.divide(s_u, thr_u, out=np.zeros(shape), where=thr_u > 0))
    moved_per_value_t = full(SECONDS_PER_MONTH * thr_u / (phi_u * TOKENS_PER_MILLION))
    inv_b_t = full(np.divide(1.0, per_b, out=np.zeros(per_b.shape), where=per_b > 0))

    names = ("P", "P0", "a", "A", "h", "ya", "ys", "yp", "yr", "yf", "rs", "d0", "x", "b", "bf")
    out = {k: np.empty((H, N)) for k in names}
    steps: dict[str, Array] | None = {} if detail else None
    kept: dict[str, Array] = {}
    p = p_start.astype(float).copy()
    p0 = p.copy()
    for t in range(H):
        in_term = (t + 1) <= term
        offered, inv_b = offered_t[t], inv_b_t[t]
        mw_per_stream, moved_per_value = mw_per_stream_t[t], moved_per_value_t[t]
        A = (pool[t] * wpu[t] + p * wru[t]) * stream_rate
        need = A * mw_per_stream  # average MW if every eligible user adopted
        want = np.where(in_term & offered & (offer != "off"), a_want, 0.0)
        # the served model's own demand without the deal, and what the deal already credits
        chat = (pool[t] * wps[t] + p0 * wrs[t]) * week_to_month
        if dem_f is not None:
            want, chat = want * dem_f[t], chat * dem_f[t]
        cap_s = want * need
        credited = want * (pool[t] * wpu[t] + p * wru[t]) * week_to_month / phi_u
        api_net = api_d0[t] - api_x[t]
        moved = np.where(in_term, ms * np.maximum(chat - credited + api_net, 0.0), 0.0)
        moved = moved + batch[t]
        flexible = np.minimum(
            moved, np.where(in_term, ms * fs * np.maximum(api_net, 0.0), 0.0) + batch[t]
        )
        free_t = np.where(in_term, ms * free[t], 0.0)
        cap_p, cap_f, cap_r = (moved - flexible) * inv_b, flexible * inv_b, free_t * inv_b
        with np.errstate(divide="ignore", invalid="ignore"):
            rho_s = g_std[t] * moved_per_value + upgrade_prop * lift[t] * pool[t] * W[t] * np.where(
                need > 0, 1.0 / need, 0.0
            )
        if offer == "on":
            rho_s = np.full(N, np.inf)
        y_a, y_s, y_p, y_r, y_f = allocate(
            mw[t],
            pta,
            (y_api[t], cap_s, cap_p, cap_r),
            (rho_a[t], rho_s, rho_p[t], rho_r[t]),
            cap_f,
            rho_f[t],
            steps,
        )
        if steps is not None:
            steps.update(
                need=need, sub_cap=cap_s, rho_s=rho_s, moved_peak_cap=cap_p,
                moved_flexible_cap=cap_f, free_cap=cap_r, moved_tokens=moved,
                free_tokens=free_t,
            )  # fmt: skip
            for k, v in steps.items():
                kept.setdefault(k, np.empty((H, N)))[t] = v
        a = np.divide(y_s, need, out=np.zeros(N), where=need > 0)
        h = h0[t] + a * lift_raw[t]  # the cap-hit share
        gap = np.where(in_term, 0.0, extra_ * np.maximum(p - p0, 0.0))
        d0 = chat + api_d0[t] + free[t]
        x_t = np.where(in_term, credited + api_x[t], 0.0)
        p = p * keep - gap + (upgrade_base + upgrade_prop * (h0[t] + a * lift[t])) * pool[t]
        p0 = p0 * keep + (upgrade_base + upgrade_prop * h0[t]) * pool[t]
        for k, v in (("P", p), ("P0", p0), ("a", a), ("A", A), ("h", h), ("ya", y_a)):
            out[k][t] = v
        for k, v in (
            ("ys", y_s),
            ("yp", y_p),
            ("yr", y_r),
            ("yf", y_f),
            ("rs", np.where(need > 0, rho_s, np.nan)),
            ("d0", d0),
            ("x", x_t),
            ("b", moved + free_t),
            ("bf", flexible),
        ):
            out[k][t] = v
    return Allocation(
        pro=out["P"],
        pro_counterfactual=out["P0"],
        ultrafast_adoption=out["a"],
        all_adopt_streams=out["A"],
        plus_cap_hit=out["h"],
        plus_cap_hit_counterfactual=np.ascontiguousarray(h0),
        mw_api=out["ya"],
        mw_subscriber=out["ys"],
        mw_backfill_peak=out["yp"],
        mw_free=out["yr"],
        mw_backfill_flexible=out["yf"],
        subscriber_value=out["rs"],
        demand_no_deal=out["d0"],
        credited=out["x"],
        moved_cap=out["b"],
        moved_flexible_cap=out["bf"],
        parts={
            **kept,
            "moved_per_value": moved_per_value_t[0],
            "mw_per_stream": mw_per_stream_t[0],
            "moved_per_value_t": np.ascontiguousarray(moved_per_value_t),
            "mw_per_stream_t": np.ascontiguousarray(mw_per_stream_t),
        }
        if detail
        else None,
    )


def calibrate_no_deal(
    pro_start: ArrayLike,
    churn: ArrayLike,
    growth: ArrayLike,
    plus_pool_1: ArrayLike,
    hit_no_deal_1: ArrayLike,
    capped_share: ArrayLike,
    max_propensity: ArrayLike,
) -> tuple[Array, Array]:
    """(base, propensity) [1/month] of the calibrated no-deal world (section 0.5): month-1
    upgrades u0_1 = P_0 (churn + growth) / N_1; propensity = min(share x u0_1 / h0_1, cap)
    (0 where h0_1 = 0); base = u0_1 - propensity x h0_1. At the reference Pro price the no-deal
    stock then grows at ``growth`` in month 1 exactly."""
    n1 = np.asarray(plus_pool_1, float)
    h0 = np.asarray(hit_no_deal_1, float)
    flow = np.asarray(pro_start, float) * (np.asarray(churn, float) + np.asarray(growth, float))
    shape = np.broadcast_shapes(n1.shape, flow.shape)
    u0 = np.divide(flow, n1, out=np.zeros(shape), where=np.broadcast_to(n1 > 0, shape))
    with np.errstate(divide="ignore", invalid="ignore"):
        prop = np.where(h0 > 0, np.asarray(capped_share, float) * u0 / h0, 0.0)
    prop = np.minimum(prop, max_propensity)
    return u0 - prop * h0, prop
