"""The compute side's tables for one set of assumptions: capacity, audit, agent latency, rent vs buy.

These wire assumptions into the functions of capacity.py and cost.py; they
return tidy pandas DataFrames and dicts for the CLI and the report.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from econ.assumptions import Assumptions
from econ.compute import capacity as cap
from econ.compute import cost

TIERS = ("standard", "fast", "ultrafast")


def frontier_points(a: Assumptions, platform: str) -> tuple[np.ndarray, np.ndarray]:
    ids = a.frontier_ids(platform)
    xs = np.array([a.values[f"frontier.{i}.tokens_per_s_per_user"] for i in ids], float)
    ys = np.array([a.values[f"frontier.{i}.tokens_per_s_per_mw"] for i in ids], float)
    return xs, ys


def covers(a: Assumptions, platform: str, speed: float) -> bool:
    xs, _ = frontier_points(a, platform)
    return bool(xs.min() - 1e-9 * xs.max() <= speed <= xs.max() * (1 + 1e-9))


def replica(a: Assumptions, platform: str) -> tuple[float, float]:
    """(chips per replica, per-user decode ceiling [tokens/s]) of the served model on a platform."""
    chips = float(
        cap.chips_per_replica(
            a.num("model.params"),
            a.num("model.bytes_per_param"),
            a.num(f"hardware.{platform}.memory_gb"),
        )
    )
    ceiling = float(
        cap.decode_ceiling(
            chips,
            a.num(f"hardware.{platform}.bandwidth_tb_s"),
            a.num("model.params"),
            a.num("model.active_param_share"),
            a.num("model.bytes_per_param"),
        )
    )
    return chips, ceiling


def buy_case(a: Assumptions, platform: str, mw: float, price: float | None = None) -> cost.BuyCase:
    return cost.buy_flows(
        mw=mw,
        pue=a.num("buy.pue"),
        power_kw=a.num(f"hardware.{platform}.power_kw"),
        system_price_usd=a.num(f"hardware.{platform}.price_usd") if price is None else price,
        facility_capex_usd_per_mw=a.num("buy.facility_capex_usd_per_mw"),
        power_price_usd_per_kwh=a.num("buy.power_price_usd_per_kwh"),
        maintenance_share_annual=a.num("buy.maintenance_share_annual"),
        life_years=a.num(f"hardware.{platform}.life_years"),
        facility_life_years=a.num("buy.facility_life_years"),
        resale_share=a.num("buy.resale_share"),
        horizon=int(a.values["horizon.months"]),
    )


def _discount(a: Assumptions) -> np.ndarray:
    return cost.discount_factors(
        a.num("finance.discount_rate_annual"), int(a.values["horizon.months"])
    )


def rent_per_mw_month(a: Assumptions, platform: str) -> float | None:
    """Contract rent per MW-month for the contract platform, hourly rent where the platform has one."""
    if platform == a.values["contract.platform"]:
        return a.num("contract.value_usd") / (a.num("contract.mw") * a.num("contract.term_months"))
    rate = a.get(f"hardware.{platform}.rent_usd_per_hour")
    if rate is None:
        return None
    return float(cost.hourly_rent_per_mw_month(rate, a.num(f"hardware.{platform}.power_kw")))


def buy_per_mw_month(a: Assumptions, platform: str) -> float:
    """Levelised cost per MW-month of owning a platform over the horizon."""
    d = _discount(a)
    npv = cost.npv_buy(buy_case(a, platform, 1.0), d)
    return float(cost.levelised_per_mw_month(npv, 1.0, d, d.shape[1])[0])


def capacity_table(a: Assumptions) -> pd.DataFrame:
    """One row per platform and tier speed: throughput, users, replica, ceiling and cost per token."""
    util = a.num("capacity.average_utilization")
    rows = []
    for p in a.platforms():
        xs, ys = frontier_points(a, p)
        chips, ceiling = replica(a, p)
        rent_mw = rent_per_mw_month(a, p)
        buy_mw = buy_per_mw_month(a, p)
        for tier in TIERS:
            s = a.num(f"tiers.{tier}.tokens_per_s")
            thr = float(cap.throughput_per_mw(s, xs, ys, p)) if covers(a, p, s) else math.nan
            rows.append(
                {
                    "platform": p,
                    "tier": tier,
                    "tokens_per_s_per_user": s,
                    "tokens_per_s_per_mw": thr,
                    "concurrent_users_per_mw": thr / s,
                    "chips_per_replica": chips,
                    "decode_ceiling_tokens_per_s": ceiling,
                    "cost_per_mtok_rent_usd": float(cost.cost_per_mtok(rent_mw, thr, util))
                    if rent_mw
                    else math.nan,
                    "cost_per_mtok_buy_usd": float(cost.cost_per_mtok(buy_mw, thr, util)),
                }
            )
    return pd.DataFrame(rows)


def audit_table(a: Assumptions) -> pd.DataFrame:
    """Every tier's claimed speed against every platform's roofline ceiling."""
    rows = []
    for tier in TIERS:
        s = a.num(f"tiers.{tier}.tokens_per_s")
        for p in a.platforms():
            chips, ceiling = replica(a, p)
            ratio = s / ceiling
            rows.append(
                {
                    "tier": tier,
                    "platform": p,
                    "claimed_tokens_per_s": s,
                    "chips_per_replica": chips,
                    "decode_ceiling_tokens_per_s": ceiling,
                    "claim_over_ceiling": ratio,
                    "verdict": "plausible" if ratio <= 1 else f"exceeds the ceiling {ratio:.1f}x",
                }
            )
    return pd.DataFrame(rows)


def agent_table(a: Assumptions) -> pd.DataFrame:
    """Agent task time per tier: agent.calls sequential calls, median and P99 [s]."""
    rows = []
    for tier in TIERS:
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
    """Each platform's interpolated frontier on a log grid across its points (for the chart)."""
    rows = []
    for p in a.platforms():
        xs, ys = frontier_points(a, p)
        grid = np.geomspace(xs.min(), xs.max(), points) if xs.size > 1 else xs
        thr = cap.throughput_per_mw(grid, xs, ys, p)
        rows += [
            {"platform": p, "tokens_per_s_per_user": x, "tokens_per_s_per_mw": y}
            for x, y in zip(grid, thr, strict=True)
        ]
    return pd.DataFrame(rows)


def rent_vs_buy(a: Assumptions) -> dict:
    """NPVs of renting and of buying the contracted capacity, per MW-month, and the break-even system price."""
    plat = str(a.values["contract.platform"])
    mw = a.num("contract.mw")
    T = a.num("contract.term_months")
    d = _discount(a)
    rent = cost.rent_flows(a.num("contract.value_usd"), T, d.shape[1])
    npv_rent = float(cost.npv_cost(rent, d)[0])
    case = buy_case(a, plat, mw)
    npv_buy = float(cost.npv_buy(case, d)[0])
    be = cost.breakeven_system_price(
        npv_rent,
        lambda price: cost.npv_buy(buy_case(a, plat, mw, price), d)[0],
        upper=10 * a.num(f"hardware.{plat}.price_usd"),
    )
    return {
        "platform": plat,
        "rent_npv_usd": npv_rent,
        "buy_npv_usd": npv_buy,
        "rent_usd_per_mw_month": float(rent_per_mw_month(a, plat)),
        "buy_usd_per_mw_month": buy_per_mw_month(a, plat),
        "breakeven_system_price_usd": be.price_usd,
        "breakeven_note": be.reason,
        "systems": float(case.systems[0]),
        "buy_capex_usd": float(case.capex[0]),
        "buy_residual_usd": float(case.residual[0]),
    }


def cost_flows(a: Assumptions) -> pd.DataFrame:
    """Monthly rent and buy flows of the contracted capacity (positive = paid), with discount factors."""
    plat = str(a.values["contract.platform"])
    H = int(a.values["horizon.months"])
    d = _discount(a)[0]
    rent = cost.rent_flows(a.num("contract.value_usd"), a.num("contract.term_months"), H)[0]
    case = buy_case(a, plat, a.num("contract.mw"))
    return pd.DataFrame(
        {
            "month": np.arange(1, H + 1),
            "discount_factor": d,
            "rent_usd": rent,
            "buy_opex_usd": case.opex[0],
            "buy_residual_usd": np.where(np.arange(1, H + 1) == H, case.residual[0], 0.0),
        }
    )
