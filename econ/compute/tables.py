"""The compute side's tables for one set of assumptions: capacity and the physics audit, agent
latency, the frontier and envelope curves, rent versus buy (docs/model.md, sections 3 and 4).

These wire assumptions into capacity.py, physics.py and cost.py and return tidy
pandas DataFrames and dicts for the CLI, the API and the report.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pandas as pd

from econ.assumptions import Assumptions
from econ.compute import capacity as cap
from econ.compute import cost, physics


def _get(a: Assumptions):
    """A getter of dotted keys for physics.chip_from / model_from (None for a blank cell)."""
    return lambda key: a.values.get(key)


def served_model(a: Assumptions, **changes: float) -> physics.ServedModel:
    """The model served (model.*), with some fields changed (e.g. a frontier point's model)."""
    base = physics.model_from(lambda k: a.num(k))
    return physics.ServedModel(**{**base.__dict__, **changes})


def chip(a: Assumptions, platform: str) -> physics.Chip:
    return physics.chip_from(_get(a), platform)


def data_throughput(a: Assumptions, platform: str, speed: float) -> float:
    """Thr_p(s) of frontier.csv x frontier_scale [tokens/s/MW]; NaN where the curve does not cover s."""
    xs, ys = a.frontier_points(platform)
    if not a.covers(platform, speed):
        return math.nan
    scale = a.num(f"hardware.{platform}.frontier_scale")
    return float(cap.throughput_per_mw(speed, xs, ys, scale, platform))


def envelope(a: Assumptions, platform: str, speed: float, model=None) -> physics.Envelope:
    """Phys_p(s) with what attains it, for the served model (or another)."""
    from econ.compute.transfer import stage_cap

    m = model if model is not None else served_model(a)
    k_cap = stage_cap(a, platform) if model is None else None
    env = physics.envelope(
        speed, m, chip(a, platform), a.num("facility.pue"), detail=True, k_cap=k_cap
    )
    return physics.Envelope(*(np.atleast_1d(x) for x in env.__dict__.values()))


def _months(a: Assumptions) -> tuple[np.ndarray, np.ndarray, float]:
    H = int(a.values["horizon.months"])
    t = cap.months(H)[:, None]
    T = a.num("contract.term_months")
    share = cap.online_share(t, a.num("contract.ramp_months"), T)
    return t, share, T


def buy_case(a: Assumptions, platform: str, mw: float, price: float | None = None) -> cost.BuyCase:
    """Buying ``mw`` facility MW of a platform on the contract's ramp and term."""
    t, share, T = _months(a)
    return cost.buy_case(
        t,
        mw * share,
        mw=mw,
        pue=a.num("facility.pue"),
        power_kw=a.num(f"hardware.{platform}.power_kw"),
        system_price_usd=a.num(f"hardware.{platform}.price_usd") if price is None else price,
        facility_capex_usd_per_mw=a.num("buy.facility_capex_usd_per_mw"),
        power_price_usd_per_kwh=a.num("buy.power_price_usd_per_kwh"),
        maintenance_share_annual=a.num("buy.maintenance_share_annual"),
        life_years=a.num(f"hardware.{platform}.life_years"),
        facility_life_years=a.num("buy.facility_life_years"),
        resale_share=a.num("buy.resale_share"),
        term_months=T,
    )


def _discount(a: Assumptions) -> np.ndarray:
    t, _, _ = _months(a)
    return cost.discount(t, a.num("finance.discount_rate_annual"))


def buy_npv(a: Assumptions, platform: str, mw: float, price: float | None = None) -> float:
    t, _, T = _months(a)
    case = buy_case(a, platform, mw, price)
    return float(cost.npv_buy(case, t, _discount(a), a.num("finance.discount_rate_annual"), T)[0])


def rent_flows(a: Assumptions) -> np.ndarray:
    """The contract's rent R_t, (H, 1) [USD]."""
    t, share, T = _months(a)
    return cost.rent(
        t,
        a.num("contract.mw") * share,
        a.num("contract.value_usd"),
        T,
        cost.pays_as_delivered(str(a.values["contract.payment"])),
        a.num("contract.delivered_share"),
    )


def rent_per_mw_month(a: Assumptions, platform: str) -> float | None:
    """Rent per facility MW-month, levelised like buying (NPV / sum MW_t d_t): the contract's
    for the contract platform (value / sum MW_t when paid as delivered), the hourly rent for a
    platform that has a rate, None otherwise."""
    if platform == a.values["contract.platform"]:
        _, share, _ = _months(a)
        npv = float((rent_flows(a) * _discount(a)).sum())
        return float(
            cost.per_delivered_mw_month(
                npv, a.num("contract.mw") * a.num("contract.delivered_share") * share, _discount(a)
            )[0]
        )
    rate = a.get(f"hardware.{platform}.rent_usd_per_hour")
    if rate is None:
        return None
    return float(
        cost.hourly_rent_per_mw_month(
            rate, a.num(f"hardware.{platform}.power_kw"), a.num("facility.pue")
        )
    )


def buy_per_mw_month(a: Assumptions, platform: str) -> float:
    """Levelised cost per delivered MW-month of owning 1 MW of a platform on the contract's
    ramp and term."""
    _, share, _ = _months(a)
    return float(cost.per_delivered_mw_month(buy_npv(a, platform, 1.0), share, _discount(a))[0])


def _verdict(s: float, ceiling: float, ratio: float) -> str:
    if s > ceiling:
        return "above the ceiling"
    if math.isnan(ratio):
        return "within the ceiling (no data point)"
    if math.isinf(ratio):  # a data point, but the envelope carries nothing at this speed
        return "at the ceiling: the envelope carries no throughput"
    return "plausible" if ratio <= 1 else f"exceeds the envelope by {ratio:.1f}x"


def served_throughput(a: Assumptions, platform: str, speeds: Iterable[float]) -> np.ndarray:
    """Thr*_p(s) [tokens/s/MW] at each speed on the run's basis (capacity.basis; sections 3.5,
    V4.4, V4.5): the throughput the money reads, which never falls as users ask for less
    speed; on the data basis NaN where the curve does not cover s."""
    from econ import model  # econ.model imports this module

    s = np.asarray(list(speeds), float)
    if a.values["capacity.basis"] == "data":
        return np.array([data_throughput(a, platform, x) for x in s])
    p = model.Params(a)
    return np.asarray(
        np.broadcast_to(model.platform_throughput(p, platform, s, physics.model_from(p)), s.shape),
        float,
    )


def capacity_table(a: Assumptions, speeds: Iterable[float] = ()) -> pd.DataFrame:
    """One row per platform and speed (the tier speeds, then any others asked for).

    Columns: data throughput and users per MW (frontier.csv), the throughput per MW on the
    run's basis (the one the money reads), the layout, the per-user ceiling, the physics
    envelope and what attains it, data / physics, a verdict, and the cost per million tokens
    rented and bought at capacity.average_utilization of each basis (data curve and envelope).
    """
    util = a.num("capacity.average_utilization")
    m = served_model(a)
    asked = [(t, a.num(f"tiers.{t}.tokens_per_s")) for t in a.tier_ids()]
    asked += [("", float(s)) for s in speeds if float(s) not in {x for _, x in asked}]
    rows = []
    for p in a.platforms():
        ch = chip(a, p)
        n_w, k_min = (float(x) for x in physics.layout(m, ch))
        rent_mw = rent_per_mw_month(a, p)
        buy_mw = buy_per_mw_month(a, p)
        served = served_throughput(a, p, [s for _, s in asked])
        for (tier, s), thr_served in zip(asked, served, strict=True):
            thr = data_throughput(a, p, s)
            env = envelope(a, p, s)
            phys = float(env.throughput[0])
            ceiling = float(env.ceiling[0])
            ratio = thr / phys if phys > 0 else math.inf if math.isfinite(thr) else math.nan
            row = {
                "platform": p,
                "tier": tier,
                "tokens_per_s_per_user": s,
                "tokens_per_s_per_mw": thr,
                "concurrent_users_per_mw": thr / s,
                "tokens_per_s_per_mw_served": float(thr_served),
                "chips_per_replica": n_w,
                "stages": k_min,
                "chips_per_stage": float(ch.domain_chips),
                "ceiling_tokens_per_s": ceiling,
                "physics_tokens_per_s_per_mw": phys,
                "physics_users_per_mw": phys / s,
                "physics_stages": float(env.stages[0]),
                "physics_speed": float(env.speed[0]),
                "physics_bound": str(env.bound[0]),
                "data_over_physics": ratio,
                "verdict": _verdict(s, ceiling, ratio),
            }
            for basis, x in (("", thr), ("_physics", phys)):
                row[f"cost_per_mtok_rent_usd{basis}"] = (
                    float(cost.cost_per_mtok(rent_mw, x, util)) if rent_mw and x > 0 else math.nan
                )
                row[f"cost_per_mtok_buy_usd{basis}"] = (
                    float(cost.cost_per_mtok(buy_mw, x, util)) if x > 0 else math.nan
                )
            rows.append(row)
    return pd.DataFrame(rows)


def frontier_audit(a: Assumptions) -> pd.DataFrame:
    """Every frontier point against its platform's envelope: for the served model, and for the
    model the point was measured on (models.csv) at the base hardware, whose ratio is the point's
    realisation; the sourced ones set the transferred basis's factor (docs/model.md, 0.1)."""
    from econ.compute.transfer import measured_model, measurements

    served = served_model(a)
    rows = []
    for p in a.platforms():
        used = {m.id: m for m in measurements(a, p)}
        for fid in a.frontier_ids(p):
            s = a.num(f"frontier.{fid}.tokens_per_s_per_user")
            raw = a.num(f"frontier.{fid}.tokens_per_s_per_mw")
            thr = raw * a.num(f"hardware.{p}.frontier_scale")
            env = envelope(a, p, s)
            phys = float(env.ceiling[0]) and float(env.throughput[0])
            ratio = thr / phys if phys > 0 else math.inf
            mid = a.values.get(f"frontier.{fid}.model")
            measured = (
                float(envelope(a, p, s, measured_model(a, str(mid))).throughput[0])
                if mid is not None
                else math.nan
            )
            verdict = _verdict(s, float(env.ceiling[0]), ratio)
            if mid is not None and _differs(measured_model(a, str(mid)), served):
                verdict = f"measured on {mid}"
            rows.append(
                {
                    "point": fid,
                    "platform": p,
                    "model": mid or "",
                    "tokens_per_s_per_user": s,
                    "tokens_per_s_per_mw": thr,
                    "ceiling_tokens_per_s": float(env.ceiling[0]),
                    "physics_tokens_per_s_per_mw": phys,
                    "data_over_physics": ratio,
                    "measured_model_physics_tokens_per_s_per_mw": measured,
                    "realisation": raw / measured if measured and measured > 0 else math.nan,
                    # the point's regime x = s / the measured model's ceiling (section V4.4)
                    "regime_x": used[fid].x if fid in used else math.nan,
                    "sets_realisation": fid in used,
                    "verdict": verdict,
                }
            )
    return pd.DataFrame(rows)


def _differs(measured: physics.ServedModel, served: physics.ServedModel) -> bool:
    """Whether a measured model differs from the served one in what sets its speed and size."""
    fields = ("params", "active_param_share", "bytes_per_param", "layers")
    return any(float(getattr(measured, f)) != float(getattr(served, f)) for f in fields)


def calibration_table(a: Assumptions) -> pd.DataFrame:
    """Each published speed of calibration.csv against the per-user ceiling the platform's
    figures predict for that model on that many chips per stage (section 3.3)."""
    rows = []
    for c in a.calibration:
        ch = physics.Chip(**{**chip(a, c.platform).__dict__, "domain_chips": c.chips_per_stage})
        m = served_model(
            a,
            params=c.params,
            active_param_share=c.active_share,
            bytes_per_param=c.bytes_per_param,
            layers=c.layers,
            speculative_speedup=c.speculative_speedup,
        )
        predicted = float(physics.ceiling(m, ch))
        ratio = predicted / c.tokens_per_s
        rows.append(
            {
                "point": c.id,
                "platform": c.platform,
                "model": c.model,
                "chips": float(physics.layout(m, ch)[0]),
                "measured_tokens_per_s": c.tokens_per_s,
                "predicted_tokens_per_s": predicted,
                "predicted_over_measured": ratio,
                "tolerance": c.tolerance,
                "within_tolerance": bool(1 / c.tolerance <= ratio <= c.tolerance),
                "used_for_fit": c.fit,
                "note": c.note,
            }
        )
    return pd.DataFrame(rows)


# Levers of "what it would take" for a claim at a speed, each alone over its physical range:
# (model field, the value that helps most, the value that helps least).
LEVERS = (
    ("speculative_speedup", 4.0, 1.0),
    ("bytes_per_param", 0.5, 2.0),
    ("active_param_share", 0.01, 1.0),
)


def _solve_lever(ok, current: float, best: float) -> float | None:
    """The value nearest ``current`` on the way to ``best`` at which ``ok`` holds (bisection;
    ``ok`` is monotone along the way), None where even ``best`` fails."""
    if ok(current):
        return current
    if not ok(best):
        return None
    good, bad = best, current
    for _ in range(60):
        mid = 0.5 * (good + bad)
        good, bad = (mid, bad) if ok(mid) else (good, mid)
    return good


def what_it_would_take(a: Assumptions, platform: str, speed: float, target: float) -> dict:
    """For a claim of ``target`` tokens/s/MW at ``speed`` tokens/s/user on a platform: for each
    lever alone (speculative speed-up, bytes per parameter, active share), the value at which
    the speed is within the ceiling, and the value at which the envelope reaches the target;
    None where the lever's range does not get there. Also the envelope and ceiling today."""
    env = envelope(a, platform, speed)
    out = {
        "platform": platform,
        "speed": speed,
        "target_tokens_per_s_per_mw": target,
        "ceiling_tokens_per_s": float(env.ceiling[0]),
        "physics_tokens_per_s_per_mw": float(env.throughput[0]),
        "physics_stages": float(env.stages[0]),
        "speed_levers": {},
        "throughput_levers": {},
    }
    for name, best, least in LEVERS:
        current = float(getattr(served_model(a), name))
        best = best if (best - current) * (best - least) > 0 or best == current else current

        def env_at(x: float, name=name) -> physics.Envelope:
            return envelope(a, platform, speed, served_model(a, **{name: x}))

        out["speed_levers"][name] = _solve_lever(
            lambda x, f=env_at: float(f(x).ceiling[0]) >= speed, current, best
        )
        out["throughput_levers"][name] = _solve_lever(
            lambda x, f=env_at: float(f(x).throughput[0]) >= target, current, best
        )
    # where no lever alone gets there: pairs at the values the articles name
    out["combinations"] = [
        {
            "changes": ch,
            "physics_tokens_per_s_per_mw": float(
                envelope(a, platform, speed, served_model(a, **ch)).throughput[0]
            ),
        }
        for ch in COMBINATIONS
    ]
    return out


# Pairs of levers at the values the articles name: speculative decoding "2-3x", FP8 (and
# INT4) weights, a mixture-of-experts model reading a tenth of its weights.
COMBINATIONS = (
    {"bytes_per_param": 1.0, "speculative_speedup": 3.0},
    {"active_param_share": 0.1, "speculative_speedup": 3.0},
    {"active_param_share": 0.1, "bytes_per_param": 1.0},
)


def agent_table(a: Assumptions) -> pd.DataFrame:
    """Agent task time per tier: agent.calls sequential calls, median and P99 [s]."""
    rows = []
    for tier in a.tier_ids():
        s = a.num(f"tiers.{tier}.tokens_per_s")
        med, p99 = cap.agent_task_time(
            a.num("agent.calls"),
            a.num("agent.output_tokens_per_call"),
            s,
            a.num("agent.ttft_s"),
            a.num("agent.p99_multiplier"),
        )
        rows.append({"tier": tier, "tokens_per_s": s, "median_s": float(med), "p99_s": float(p99)})
    return pd.DataFrame(rows)


def frontier_curves(a: Assumptions, points: int = 40) -> pd.DataFrame:
    """Each platform's data frontier on a log grid across its points, and its physics
    envelope from 10 tokens/s to 4x the fastest point (for the chart)."""
    rows = []
    m = served_model(a)
    for p in a.platforms():
        xs, ys = a.frontier_points(p)
        scale = a.num(f"hardware.{p}.frontier_scale")
        grid = np.geomspace(min(xs), max(xs), points) if len(xs) > 1 else np.array(xs)
        thr = cap.throughput_per_mw(grid, xs, ys, scale, p)
        rows += [
            {"platform": p, "curve": "data", "tokens_per_s_per_user": x, "tokens_per_s_per_mw": y}
            for x, y in zip(grid, thr, strict=True)
        ]
        speeds = np.geomspace(10.0, 4 * max(xs), points)
        env = physics.envelope(speeds, m, chip(a, p), a.num("facility.pue")).throughput
        rows += [
            {
                "platform": p,
                "curve": "physics",
                "tokens_per_s_per_user": x,
                "tokens_per_s_per_mw": y,
            }
            for x, y in zip(speeds, env, strict=True)
            if y > 0
        ]
    return pd.DataFrame(rows)


def rent_vs_buy(a: Assumptions) -> dict:
    """Renting against buying the contracted facility MW over the term, on one MW basis:
    both NPVs, per MW-month, the break-even system price, and the lessor's yield."""
    plat = str(a.values["contract.platform"])
    mw = a.num("contract.mw")
    t, share, T = _months(a)
    d = _discount(a)
    rate = a.num("finance.discount_rate_annual")
    rent = rent_flows(a)
    npv_rent = float((rent * d).sum())
    case = buy_case(a, plat, mw)
    npv_buy = float(cost.npv_buy(case, t, d, rate, T)[0])
    at_zero = buy_npv(a, plat, mw, 0.0)
    per_usd = buy_npv(a, plat, mw, 1.0) - at_zero
    be = cost.breakeven_system_price(npv_rent, at_zero, per_usd)
    yield_ = float(cost.lessor_yield(case, rent, t, T)[0])
    delivered = float((mw * share).sum()) * a.num("contract.delivered_share")
    return {
        "platform": plat,
        "buy_npv_at_zero_price_usd": at_zero,
        "buy_npv_per_usd_of_price": per_usd,
        "rent_npv_usd": npv_rent,
        "buy_npv_usd": npv_buy,
        "rent_usd_per_mw_month": a.num("contract.value_usd") / (mw * T),
        "rent_usd_per_delivered_mw_month": float(rent.sum()) / delivered,
        "buy_usd_per_delivered_mw_month": npv_buy / float((mw * share * d).sum()),
        "breakeven_system_price_usd": be.price_usd,
        "breakeven_note": be.reason,
        "systems": float(case.systems[0]),
        "buy_capex_usd": float(case.hardware_usd[0] + case.facility_usd[0]),
        "buy_residual_usd": float(case.residual[0]),
        "lessor_yield_annual": yield_ if math.isfinite(yield_) else None,
        "rent_and_price_consistent": bool(math.isfinite(yield_) and yield_ >= 0),
    }


def cost_flows(a: Assumptions) -> pd.DataFrame:
    """Monthly rent and buy flows of the contracted capacity (positive = paid), with discount
    factors; the buy capex is shown in the month whose end it is spent at (month 0 = now)."""
    plat = str(a.values["contract.platform"])
    t, share, T = _months(a)
    H = t.shape[0]
    case = buy_case(a, plat, a.num("contract.mw"))
    return pd.DataFrame(
        {
            "month": np.arange(1, H + 1),
            "mw_online": (a.num("contract.mw") * share)[:, 0],
            "discount_factor": _discount(a)[:, 0],
            "rent_usd": rent_flows(a)[:, 0],
            "buy_capex_share": case.capex[:, 0]
            / float(case.hardware_usd[0] + case.facility_usd[0]),
            "buy_capex_usd_at_previous_month_end": case.capex[:, 0],
            "buy_opex_usd": case.opex[:, 0],
            "buy_residual_usd": np.where(t[:, 0] == T, case.residual[0], 0.0),
        }
    )


def owner_flows(a: Assumptions) -> np.ndarray:
    """The lessor's cash at the end of months 0..H for the contract, (H + 1,) [USD]."""
    t, _, T = _months(a)
    case = buy_case(a, str(a.values["contract.platform"]), a.num("contract.mw"))
    return cost.owner_flows(case, rent_flows(a), t, T)[:, 0]


def gpu_cost_anchor(a: Assumptions, anchor, speed: float, v_model: float | None = None) -> dict:
    """A disclosed day of production inference transferred to the served model on the GPU
    platform (section V4.4): the disclosed output per GPU-second at full use, times the ratio of
    the served model's envelope per GPU at ``speed`` on the GPU platform to the disclosed
    model's envelope per GPU at its own speed on its own hardware (the same realisation on
    both), priced at the GPU platform's rent r_m [USD per 1M output tokens]. Also the
    disclosed cost itself and the simpler transfer by active parameters alone."""
    from econ.compute.transfer import measured_model, stage_cap

    gpu = str(a.values["capacity.gpu_platform"])
    per_gpu = anchor.output_tokens_per_day / (anchor.gpu_hours_per_day * 3600.0)
    disclosed = anchor.usd_per_gpu_hour * 1e6 / (per_gpu * 3600.0)
    m = measured_model(a, anchor.model)
    pue = a.num("facility.pue")

    def per_gpu_env(model, platform: str, s: float, k_cap=None) -> float:
        c = chip(a, platform)
        env = physics.envelope(s, model, c, pue, k_cap=k_cap).throughput
        gpus_per_mw = 1000.0 / (a.num(f"hardware.{platform}.power_kw") * pue)
        return float(np.asarray(env).item()) / gpus_per_mw

    env_m = per_gpu_env(m, anchor.platform, anchor.tokens_per_s_per_user)
    env_s = per_gpu_env(served_model(a), gpu, speed, stage_cap(a, gpu))
    rent = a.get(f"hardware.{gpu}.rent_usd_per_hour")
    transferred = math.nan
    if env_m > 0 and env_s > 0 and rent is not None:
        transferred = float(rent) * 1e6 / (per_gpu * env_s / env_m * 3600.0)
    active_served = a.num("model.params") * a.num("model.active_param_share")
    active_m = float(m.params) * float(m.active_param_share)
    return {
        "id": anchor.id,
        "disclosed_usd_per_mtok": disclosed,
        "disclosed_output_tokens_per_s_per_gpu": per_gpu,
        "disclosed_tokens_per_s_per_user": anchor.tokens_per_s_per_user,
        "envelope_ratio": env_s / env_m if env_m > 0 else math.nan,
        "by_active_parameters_usd_per_mtok": disclosed * active_served / active_m,
        "transferred_usd_per_mtok": transferred,
        "speed_tokens_per_s": speed,
        "source": anchor.source,
    }
