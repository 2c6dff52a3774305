"""The monthly chain as live formulas on one timeline of months 0..120: Revenue (capacity,
demand, adoption, Pro stocks, revenue, backfill, the GPU-fleet boundary), Costs (rent, buying
the same capacity, the lessor's yield) and Payback (cash, NPV, terminal value, IRR, payback).

Every row has one formula along months 1..120 and an opening column for month 0; flows
beyond the horizon are 0 (the in-horizon flag), so any horizon from the term to 120 months
recomputes. Each formula stores the Python model's value.
"""

from __future__ import annotations

import math

import numpy as np

from econ.assumptions import Assumptions
from econ.model import Results
from econ.payback import BISECTION_STEPS, irr_trace, irr_unique, mirr
from econ.report.workbook import write_formula
from econ.report.xl import FIRST_COL, MONTHS, Book, Timeline, absolute, excel_name, pad_months

SPM = "constant_seconds_per_month"
SPW = "constant_seconds_per_week"


def N(key: str) -> str:
    return excel_name(key)


def calendar(tl: Timeline, a: Assumptions) -> None:
    """The flags every timeline sheet carries: in the horizon, in the term (1 = yes)."""
    H = int(a.values["horizon.months"])
    T = int(a.values["contract.term_months"])
    m = np.arange(MONTHS + 1)
    for name, label, key, upto in (
        ("in_horizon", "In the horizon (1 = yes)", "horizon.months", H),
        ("in_term", "In the term (1 = yes)", "contract.term_months", T),
    ):
        make = lambda k, key=key: f"IF(AND({tl.month(k)}>=1,{tl.month(k)}<={N(key)}),1,0)"  # noqa: E731
        tl.row(
            name,
            label,
            "flag",
            make,
            ((m >= 1) & (m <= upto)).astype(float),
            "num",
            opening=lambda make=make: make(0),
        )


def revenue_sheet(book: Book, ws, a: Assumptions, r: Results) -> Timeline:
    s = book.styles
    P = r.parts
    ws.write_string(
        0,
        0,
        "Revenue: capacity, quota burn, Pro conversion, the API, backfill and the GPU fleet (live formulas)",
        s("title"),
    )
    ws.write_string(
        1,
        0,
        "One formula along months 1..120 on the named inputs of Assumptions; month 0 holds opening values; flows are 0 beyond the horizon.",
        s("note"),
    )
    tl = Timeline(book, ws, "Revenue", 4, "revenue")
    calendar(tl, a)
    row0 = lambda x: pad_months(x[0])  # noqa: E731 (scenario 0, months 0..120)
    R = lambda name, k: tl.ref(f"revenue.{name}", k)  # noqa: E731
    M = tl.month
    gate = lambda k, expr: f"IF({R('in_horizon', k)}=1,{expr},0)"  # noqa: E731
    s_u, s_std = N("tiers.ultrafast.tokens_per_s"), N("tiers.standard.tokens_per_s")
    pta = N("usage.peak_to_average")
    sigma = N("usage.demand_sigma")

    # the speed factors phi_i, above the timeline
    ws.write_string(
        2,
        0,
        "Usage factor of each tier's speed, phi = (speed / standard speed) ^ speed elasticity:",
        s("bold"),
    )
    for j, tier in enumerate(a.tier_ids()):
        ws.write_string(2, 3 + 2 * j, f"phi {tier}", s("bold", align="right"))
        formula = (
            f"=EXP({N('usage.speed_elasticity')}*LN({N(f'tiers.{tier}.tokens_per_s')}/{s_std}))"
        )
        write_formula(ws, 2, 4 + 2 * j, formula, float(P[f"phi.{tier}"][0]), s("num4"))
        book.name(f"phi_{tier}", absolute("Revenue", 2, 4 + 2 * j))

    tl.section("Capacity")
    tl.row(
        "online",
        "Share of the contracted MW online",
        "share",
        lambda k: gate(
            k,
            f"{R('in_term', k)}*IF({N('contract.ramp_months')}>0,MIN(1,{M(k)}/{N('contract.ramp_months')}),1)",
        ),
        row0(P["online_share"]),
        "pct",
    )
    tl.row(
        "mw",
        "MW online, MW_t",
        "MW",
        lambda k: f"{N('contract.mw')}*{R('online', k)}",
        row0(r.mw_online),
        "num1",
        opening=lambda: "0",
    )
    tl.row(
        "streams",
        "Peak ultrafast streams the contract serves, C_t",
        "streams",
        lambda k: f"{R('mw', k)}*thr_ultrafast/{s_u}",
        row0(r.capacity_streams),
        "num",
    )

    tl.section("Demand per user: lognormal weekly demand truncated at the quota")
    tl.row(
        "eff",
        "Token efficiency, e_t",
        "-",
        lambda k: gate(
            k,
            f"EXP(({M(k)}-1)/constant_months_per_year*LN(1-{N('usage.token_efficiency_gain_annual')}))",
        ),
        row0(r.token_efficiency),
        "num4",
    )
    tl.row(
        "pool",
        "Plus users, N_t",
        "users",
        lambda k: gate(
            k,
            f"{N('market.mau')}*{N('market.plus_share_of_mau')}*EXP(({M(k)}-1)*LN(1+{N('market.mau_growth_monthly')}))",
        ),
        row0(r.plus_pool),
        "num",
    )
    for plan in ("plus", "pro"):
        for tier in a.tier_ids():
            l_make = lambda k, plan=plan, tier=tier: gate(  # noqa: E731
                k,
                f"LN({N(f'plans.{plan}.weekly_quota_tokens')}/{N(f'tiers.{tier}.usage_multiplier')})"
                f"-LN({N(f'plans.{plan}.median_weekly_tokens')}*phi_{tier})-LN({R('eff', k)})",
            )
            tl.row(
                f"l_{plan}_{tier}",
                f"{plan.capitalize()} on {tier}: l = ln(quota at the tier / median)",
                "-",
                l_make,
                row0(P[f"log_c_over_mu.{plan}.{tier}"]),
                "num4",
            )
            tl.row(
                f"sf_{plan}_{tier}",
                f"{plan.capitalize()} on {tier}: share who hit the cap",
                "share",
                lambda k, plan=plan, tier=tier: gate(
                    k, f"NORMSDIST(-{R(f'l_{plan}_{tier}', k)}/{sigma})"
                ),
                row0(P[f"{plan}_hit.{tier}"]),
                "pct",
            )
    for plan, tier in (
        ("plus", "ultrafast"),
        ("pro", "ultrafast"),
        ("plus", "standard"),
        ("pro", "standard"),
    ):
        tl.row(
            f"w_{plan}_{tier}",
            f"{plan.capitalize()} on {tier}: tokens served a user-week, w",
            "tokens/week",
            lambda k, plan=plan, tier=tier: gate(
                k,
                f"{N(f'plans.{plan}.median_weekly_tokens')}*phi_{tier}*{R('eff', k)}*(EXP({sigma}^2/2)"
                f"*NORMSDIST({R(f'l_{plan}_{tier}', k)}/{sigma}-{sigma})+EXP({R(f'l_{plan}_{tier}', k)})*{R(f'sf_{plan}_{tier}', k)})",
            ),
            row0(P[f"w_{plan}_{tier}"]),
            "num",
        )

    tl.section("The API: served first, up to the capacity", new_page=True)
    tl.row(
        "api_wanted",
        "API tokens wanted, V_t",
        "tokens/month",
        lambda k: gate(
            k,
            f"{R('in_term', k)}*{N('api.ultrafast_tokens_per_month')}*EXP(-{N('api.price_elasticity')}"
            f"*LN({N('tiers.ultrafast.price_per_mtok_usd')}/{N('api.reference_price_per_mtok_usd')}))*{R('eff', k)}"
            f"*IF({N('api.ramp_months')}>0,MIN(1,{M(k)}/{N('api.ramp_months')}),1)",
        ),
        row0(r.api_tokens_wanted),
        "tok_t",
    )
    tl.row(
        "api_streams",
        "API peak streams, S_api,t",
        "streams",
        lambda k: f"MIN({R('streams', k)},{R('api_wanted', k)}/({s_u}*{SPM}/{pta}))",
        row0(r.api_streams_peak),
        "num",
    )
    tl.row(
        "api_served",
        "API tokens served, V*_t",
        "tokens/month",
        lambda k: f"{R('api_streams', k)}*{s_u}*{SPM}/{pta}",
        row0(r.api_tokens_served),
        "tok_t",
    )
    tl.row(
        "free",
        "Peak streams left for subscribers",
        "streams",
        lambda k: f"MAX({R('streams', k)}-{R('api_streams', k)},0)",
        row0(P["free_streams"]),
        "num",
    )

    tl.section("Ultrafast adoption and the Pro stocks")
    start = float(a.num("market.pro_subscribers_start"))
    churn, extra = N("conversion.pro_churn_monthly"), N("conversion.extra_churn_after_term_monthly")
    base_u, prop = (
        N("conversion.plus_to_pro_base_monthly"),
        N("conversion.capped_upgrade_propensity"),
    )
    af = N("tiers.fast.adoption")
    tl.row(
        "all_adopt",
        "Average ultrafast streams if every eligible user adopted, A_t",
        "streams",
        lambda k: gate(
            k,
            f"({R('pool', k)}*{R('w_plus_ultrafast', k)}+{R('pro', k - 1)}*{R('w_pro_ultrafast', k)})/({SPW}*{s_u})",
        ),
        row0(P["all_adopt_streams"]),
        "num",
    )
    tl.row(
        "adoption",
        "Ultrafast adoption, a_u,t",
        "share",
        lambda k: (
            f"IF({R('all_adopt', k)}*{pta}>0,MIN({R('in_term', k)}*{N('tiers.ultrafast.adoption')},{R('free', k)}/({R('all_adopt', k)}*{pta})),0)"
        ),
        row0(r.ultrafast_adoption),
        "pct",
    )
    tl.row(
        "h0",
        "Plus cap-hit share without the tier, h0_t",
        "share",
        lambda k: gate(k, f"(1-{af})*{R('sf_plus_standard', k)}+{af}*{R('sf_plus_fast', k)}"),
        row0(r.plus_cap_hit_counterfactual),
        "pct",
    )
    tl.row(
        "h",
        "Plus cap-hit share with the tier, h_t",
        "share",
        lambda k: gate(
            k,
            f"{R('adoption', k)}*({R('sf_plus_ultrafast', k)}-{R('sf_plus_standard', k)})+{R('h0', k)}",
        ),
        row0(r.plus_cap_hit),
        "pct",
    )
    tl.row(
        "pro",
        "Pro subscribers with the tier, P_t",
        "users",
        lambda k: gate(
            k,
            f"{R('pro', k - 1)}*(1-{churn})-(1-{R('in_term', k)})*{extra}*MAX({R('pro', k - 1)}-{R('pro0', k - 1)},0)"
            f"+({base_u}+{prop}*{R('h', k)})*{R('pool', k)}",
        ),
        pad_months(r.pro[0], start),
        "num",
        opening=lambda: N("market.pro_subscribers_start"),
    )
    tl.row(
        "pro0",
        "Pro subscribers without it, P0_t",
        "users",
        lambda k: gate(
            k, f"{R('pro0', k - 1)}*(1-{churn})+({base_u}+{prop}*{R('h0', k)})*{R('pool', k)}"
        ),
        pad_months(r.pro_counterfactual[0], start),
        "num",
        opening=lambda: N("market.pro_subscribers_start"),
    )
    tl.row(
        "dpro",
        "Incremental Pro subscribers, dP_t",
        "users",
        lambda k: f"{R('pro', k)}-{R('pro0', k)}",
        pad_months(r.incremental_pro[0]),
        "num",
        opening=lambda: f"{R('pro', 0)}-{R('pro0', 0)}",
    )
    tl.row(
        "eligible",
        "Users eligible for the faster tiers, E_t = N_t + P_(t-1)",
        "users",
        lambda k: gate(k, f"{R('pool', k)}+{R('pro', k - 1)}"),
        row0(r.eligible),
        "num",
    )
    tl.row(
        "pro_h",
        "Pro cap-hit share with the tier",
        "share",
        lambda k: gate(
            k,
            f"(1-{af}-{R('adoption', k)})*{R('sf_pro_standard', k)}+{af}*{R('sf_pro_fast', k)}+{R('adoption', k)}*{R('sf_pro_ultrafast', k)}",
        ),
        row0(r.pro_cap_hit),
        "pct",
    )

    tl.section("Incremental revenue")
    tl.row(
        "sub",
        "Pro upgrades (Pro minus Plus price), sub_t",
        "USD",
        lambda k: (
            f"{R('dpro', k)}*({N('plans.pro.price_usd_month')}-{N('plans.plus.price_usd_month')})"
        ),
        row0(r.subscription_revenue),
        "usd_m",
    )
    tl.row(
        "api",
        "Ultrafast API premium, api_t",
        "USD",
        lambda k: (
            f"{R('api_served', k)}*({N('tiers.ultrafast.price_per_mtok_usd')}-{N('api.cannibalised_share')}*{N('api.standard_price_per_mtok_usd')})/constant_tokens_per_million"
        ),
        row0(r.api_revenue),
        "usd_m",
    )

    tl.section("Spare capacity, backfill and the GPU fleet")
    tl.row(
        "sub_streams",
        "Subscribers' peak ultrafast streams",
        "streams",
        lambda k: f"{R('adoption', k)}*{R('all_adopt', k)}*{pta}",
        row0(r.subscriber_streams_peak),
        "num",
    )
    tl.row(
        "spare",
        "Spare share of the contract's peak capacity",
        "share",
        lambda k: (
            f"IF({R('streams', k)}>0,MAX(0,1-({R('api_streams', k)}+{R('sub_streams', k)})/{R('streams', k)}),IF({R('mw', k)}>0,1,0))"
        ),
        row0(P["spare"]),
        "pct",
    )
    tl.row(
        "backfill",
        "Standard tokens backfilled, Bf_t",
        "tokens/month",
        lambda k: (
            f"{R('in_term', k)}*MIN({N('capacity.backfill_tokens_per_month')}*{R('eff', k)},{R('spare', k)}*{R('mw', k)}*thr_standard*{SPM}/{pta})"
        ),
        row0(r.backfill_tokens),
        "tok_t",
    )
    g_cost = N("capacity.gpu_cost_per_mtok_usd")
    tl.row(
        "backfill_usd",
        "GPU cost the backfill saves",
        "USD",
        lambda k: f"{R('backfill', k)}*{g_cost}/constant_tokens_per_million",
        row0(r.backfill_usd),
        "usd_m",
    )
    tl.row(
        "adopter_tokens",
        "Ultrafast adopters' tokens",
        "tokens/month",
        lambda k: f"{R('sub_streams', k)}/{pta}*{s_u}*{SPM}",
        row0(P["adopter_tokens"]),
        "tok_t",
    )
    tl.row(
        "moved",
        "Tokens moved off the GPU fleet",
        "tokens/month",
        lambda k: (
            f"{R('backfill', k)}+{N('api.cannibalised_share')}*{R('api_served', k)}+{R('adopter_tokens', k)}/phi_ultrafast"
        ),
        row0(r.tokens_moved_off_gpus),
        "tok_t",
    )
    tl.row(
        "added",
        "Tokens the incremental Pro add to the GPU fleet",
        "tokens/month",
        lambda k: (
            f"{R('dpro', k)}*({R('w_pro_standard', k)}-{R('w_plus_standard', k)})*({SPM}/{SPW})"
        ),
        row0(r.tokens_added_to_gpus),
        "tok_t",
    )
    tl.row(
        "gpu",
        "GPU cost avoided, net, gpu_t",
        "USD",
        lambda k: f"({R('moved', k)}-{R('added', k)})*{g_cost}/constant_tokens_per_million",
        row0(r.gpu_savings),
        "usd_m",
    )
    tl.row(
        "tokens_served",
        "Tokens served on the contract, U_t",
        "tokens/month",
        lambda k: f"{R('api_served', k)}+{R('adopter_tokens', k)}+{R('backfill', k)}",
        row0(r.tokens_served),
        "tok_t",
    )
    util = pad_months(r.utilization[0])
    util[r.utilization.shape[1] + 1 :] = np.nan  # no MW online beyond the horizon either
    util[0] = np.nan
    tl.row(
        "util",
        "Average utilisation of the contract (blank with no MW online)",
        "share",
        lambda k: (
            f"IF({R('mw', k)}>0,IF({R('streams', k)}>0,({R('api_streams', k)}+{R('sub_streams', k)})/({pta}*{R('streams', k)}),0)"
            f'+IF({R("mw", k)}*thr_standard>0,{R("backfill", k)}/({R("mw", k)}*thr_standard*{SPM}),0),"")'
        ),
        util,
        "pct",
    )
    return tl


def costs_sheet(book: Book, ws, a: Assumptions, r: Results, analysis: dict) -> Timeline:
    s = book.styles
    rb = analysis["rent_vs_buy"]
    flows = analysis["cost_flows"]
    ws.write_string(
        0, 0, "Costs: the rent, and buying the same capacity instead (live formulas)", s("title")
    )
    ws.write_string(
        1,
        0,
        "Buying serves the same months as the rent (the term) on the same facility MW; its capex is spent as the MW come online, at the end of the month before.",
        s("note"),
    )
    tl = Timeline(book, ws, "Costs", 4, "costs")
    calendar(tl, a)
    R = lambda name, k: tl.ref(f"costs.{name}", k)  # noqa: E731
    M = tl.month
    H = int(a.values["horizon.months"])
    T = int(a.values["contract.term_months"])
    hw_price = "cap_price_usd"
    tl.section("Rent")
    tl.row(
        "mw",
        "MW online (from Revenue)",
        "MW",
        lambda k: tl.ref("revenue.mw", k),
        pad_months(r.mw_online[0]),
        "num1",
        opening=lambda: "0",
    )
    d_pad = pad_months(r.discount[0], 1.0)
    tl.row(
        "d",
        "Discount factor, d_t",
        "-",
        lambda k: (
            f"{R('in_horizon', k)}*EXP(-{M(k)}/constant_months_per_year*LN(1+{N('finance.discount_rate_annual')}))"
        ),
        d_pad,
        "num4",
        opening=lambda: (
            f"EXP(-{M(0)}/constant_months_per_year*LN(1+{N('finance.discount_rate_annual')}))"
        ),
    )
    pad_, value, term = (
        N("contract.pay_as_delivered"),
        N("contract.value_usd"),
        N("contract.term_months"),
    )
    mw_span = book.rows["costs.mw"].span()
    tl.row(
        "rent",
        "Rent, R_t (as delivered or flat)",
        "USD",
        lambda k: (
            f"{pad_}*{value}*{R('mw', k)}/SUM({mw_span})+(1-{pad_})*{R('in_term', k)}*{value}/{term}"
        ),
        pad_months(r.rent[0]),
        "usd_m",
    )
    tl.section("Buying the same capacity")
    pue = N("facility.pue")
    share = flows["buy_capex_share"].to_numpy()
    tl.row(
        "capex_share",
        "Share of the capex spent at the end of the month before",
        "share",
        lambda k: f"{R('in_term', k)}*MAX({R('mw', k)}-{R('mw', k - 1)},0)/{N('contract.mw')}",
        pad_months(share),
        "pct",
    )
    tl.row(
        "capex",
        "Capex spent at the end of the month before",
        "USD",
        lambda k: f"{R('capex_share', k)}*(buy_hardware_usd+buy_facility_usd)",
        pad_months(flows["buy_capex_usd_at_previous_month_end"]),
        "usd_m",
    )
    tl.row(
        "d_before",
        "Discount factor at the end of the month before",
        "-",
        lambda k: f"{R('in_horizon', k)}*{R('d', k - 1)}",
        pad_months(np.concatenate([[1.0], r.discount[0][:-1]])),
        "num4",
    )
    tl.row(
        "opex",
        "Opex: power and maintenance",
        "USD",
        lambda k: (
            f"{R('in_term', k)}*({R('mw', k)}*constant_kw_per_mw*constant_hours_per_month*{N('buy.power_price_usd_per_kwh')}+{N('buy.maintenance_share_annual')}/constant_months_per_year*buy_hardware_usd)"
        ),
        pad_months(flows["buy_opex_usd"]),
        "usd_m",
    )
    tl.row(
        "residual",
        "Residual value (at the end of the term)",
        "USD",
        lambda k: f"IF({M(k)}={term},buy_residual_usd,0)",
        pad_months(flows["buy_residual_usd"]),
        "usd_m",
    )
    owner = analysis["owner_flows"]
    tl.row(
        "owner",
        "The lessor's cash: - capex, rent - opex, + residual",
        "USD",
        lambda k: f"-{R('capex', k + 1)}+{R('rent', k)}-{R('opex', k)}+{R('residual', k)}",
        np.concatenate([owner, np.zeros(MONTHS + 1 - owner.size)]),
        "usd_m",
        opening=lambda: f"-{R('capex', 1)}",
    )
    span = lambda name, first=1: book.rows[f"costs.{name}"].span(first)  # noqa: E731
    dT = f"INDEX({span('d', 0)},{term}+1)"
    tl.section("Results", narrow=True)
    tl.scalar(
        "buy_systems",
        "Systems bought",
        "systems",
        f"{N('contract.mw')}*constant_kw_per_mw/{pue}/cap_power_kw",
        rb["systems"],
        "num",
    )
    hw = float(rb["systems"]) * a.num(f"hardware.{a.values['contract.platform']}.price_usd")
    tl.scalar("buy_hardware_usd", "Hardware capex", "USD", f"buy_systems*{hw_price}", hw, "usd_b")
    fac = a.num("contract.mw") * a.num("buy.facility_capex_usd_per_mw")
    tl.scalar(
        "buy_facility_usd",
        "Facility capex",
        "USD",
        f"{N('contract.mw')}*{N('buy.facility_capex_usd_per_mw')}",
        fac,
        "usd_b",
    )
    tl.scalar(
        "buy_residual_usd",
        "Residual value at the end of the term",
        "USD",
        f"buy_hardware_usd*MAX(0,1-{term}/(constant_months_per_year*cap_life_years))*{N('buy.resale_share')}"
        f"+buy_facility_usd*MAX(0,1-{term}/(constant_months_per_year*{N('buy.facility_life_years')}))",
        rb["buy_residual_usd"],
        "usd_b",
    )
    tl.scalar(
        "rent_npv_usd",
        "NPV of the rent",
        "USD",
        f"SUMPRODUCT({span('rent')},{span('d')})",
        rb["rent_npv_usd"],
        "usd_b",
    )
    tl.scalar(
        "buy_npv_usd",
        "NPV of buying",
        "USD",
        f"SUMPRODUCT({span('capex')},{span('d_before')})+SUMPRODUCT({span('opex')},{span('d')})-buy_residual_usd*{dT}",
        rb["buy_npv_usd"],
        "usd_b",
    )
    tl.scalar(
        "rent_usd_per_mw_month",
        "Rent per MW-month (contract terms)",
        "USD/MW-month",
        f"{value}/({N('contract.mw')}*{term})",
        rb["rent_usd_per_mw_month"],
        "usd",
    )
    tl.scalar(
        "rent_usd_per_delivered_mw_month",
        "Rent per delivered MW-month",
        "USD/MW-month",
        f"{value}/SUM({span('mw')})",
        rb["rent_usd_per_delivered_mw_month"],
        "usd",
    )
    tl.scalar(
        "buy_usd_per_delivered_mw_month",
        "Buying per delivered MW-month (levelised)",
        "USD/MW-month",
        f"buy_npv_usd/SUMPRODUCT({span('mw')},{span('d')})",
        rb["buy_usd_per_delivered_mw_month"],
        "usd",
    )
    tl.scalar(
        "buy_npv_at_zero_price_usd",
        "NPV of buying with free hardware",
        "USD",
        f"buy_facility_usd*SUMPRODUCT({span('capex_share')},{span('d_before')})+SUMPRODUCT({span('mw')},{span('in_term')},{span('d')})*constant_kw_per_mw*constant_hours_per_month*{N('buy.power_price_usd_per_kwh')}"
        f"-buy_facility_usd*MAX(0,1-{term}/(constant_months_per_year*{N('buy.facility_life_years')}))*{dT}",
        rb["buy_npv_at_zero_price_usd"],
        "usd_b",
    )
    tl.scalar(
        "buy_npv_per_usd_of_price",
        "NPV of buying per dollar of system price",
        "USD/USD",
        f"buy_systems*(SUMPRODUCT({span('capex_share')},{span('d_before')})+{N('buy.maintenance_share_annual')}/constant_months_per_year*SUMPRODUCT({span('in_term')},{span('d')})"
        f"-MAX(0,1-{term}/(constant_months_per_year*cap_life_years))*{N('buy.resale_share')}*{dT})",
        rb["buy_npv_per_usd_of_price"],
        "num2",
    )
    be = rb["breakeven_system_price_usd"]
    tl.scalar(
        "breakeven_system_price_usd",
        "System price at which buying equals renting (blank: none)",
        "USD",
        'IF(AND(buy_npv_per_usd_of_price>0,(rent_npv_usd-buy_npv_at_zero_price_usd)/buy_npv_per_usd_of_price>0),(rent_npv_usd-buy_npv_at_zero_price_usd)/buy_npv_per_usd_of_price,"")',
        "" if be is None else be,
        "usd",
    )
    trace = irr_trace(analysis["owner_flows"])
    y_cached = "" if trace.interval is None else float(np.expm1(12 * trace.y))
    tl.scalar(
        "lessor_yield_annual",
        "The lessor's yield: IRR() from the root the solver below the print area brackets (blank: none)",
        "1/yr",
        f'IF(lessor_irr_root="","",(1+IRR({span("owner", 0)},EXP(lessor_irr_root)-1))^constant_months_per_year-1)',
        y_cached,
        "pct",
    )
    tl.solvers.append(("lessor_irr_root", "The lessor's cash", span("owner", 0), 1, trace))
    tl.scalar(
        "rent_and_price_consistent",
        "Rent and hardware price consistent (yield >= 0)",
        "TRUE/FALSE",
        "AND(ISNUMBER(lessor_yield_annual),N(lessor_yield_annual)>=0)",
        bool(rb["rent_and_price_consistent"]),
        "bool",
    )
    for name, label_, fmt in (
        ("rent_npv_usd", "NPV of the rent [USD]", "usd"),
        ("buy_npv_usd", "NPV of buying [USD]", "usd"),
        ("breakeven_system_price_usd", "Break-even system price [USD]", "usd"),
        ("lessor_yield_annual", "Lessor's yield [1/yr]", "pct"),
    ):
        book.matches.append((label_, rb[name], name, fmt))
    _ = (H, T)
    return tl


def payback_sheet(book: Book, ws, a: Assumptions, r: Results, head: dict) -> Timeline:
    s = book.styles
    P = r.parts
    ws.write_string(
        0,
        0,
        "Payback: cash flow, cumulative cash, NPV with the Pro tail, IRR, payback (live formulas)",
        s("title"),
    )
    ws.write_string(
        1,
        0,
        "Payback is the lasting recovery: the month after the last month with cumulative cash below zero, interpolated; blank where cash ends short.",
        s("note"),
    )
    tl = Timeline(book, ws, "Payback", 4, "payback")
    calendar(tl, a)
    R = lambda name, k: tl.ref(f"payback.{name}", k)  # noqa: E731
    RV = lambda name, k: tl.ref(f"revenue.{name}", k)  # noqa: E731
    M = tl.month
    row0 = lambda x: pad_months(x[0])  # noqa: E731
    hold = lambda x: pad_months(x[0], 0.0, hold=True)  # noqa: E731
    keep = f"(1-{N('finance.variable_cost_share')})"
    tl.section("Cash")
    tl.row(
        "inflow",
        "Revenue net of variable costs, plus GPU cost avoided",
        "USD",
        lambda k: f"({RV('sub', k)}+{RV('api', k)})*{keep}+{RV('gpu', k)}",
        row0(P["inflow"]),
        "usd_m",
    )
    tl.row(
        "rent", "Rent (from Costs)", "USD", lambda k: tl.ref("costs.rent", k), row0(r.rent), "usd_m"
    )
    tl.row(
        "cf",
        "Net cash flow, CF_t",
        "USD",
        lambda k: f"{R('inflow', k)}-{R('rent', k)}",
        row0(r.net_cash_flow),
        "usd_m",
    )
    tl.row(
        "cum",
        "Cumulative cash, K_t",
        "USD",
        lambda k: f"{R('cum', k - 1)}+{R('cf', k)}",
        hold(r.cumulative_cash),
        "usd_m",
        opening=lambda: "0",
    )
    tl.row(
        "d",
        "Discount factor (from Costs)",
        "-",
        lambda k: tl.ref("costs.d", k),
        pad_months(r.discount[0], 1.0),
        "num4",
        opening=lambda: tl.ref("costs.d", 0),
    )
    tl.row(
        "dcf",
        "Discounted cash flow",
        "USD",
        lambda k: f"{R('cf', k)}*{R('d', k)}",
        row0(r.discounted_cash_flow),
        "usd_m",
    )
    tl.row(
        "dcum",
        "Cumulative discounted cash",
        "USD",
        lambda k: f"{R('dcum', k - 1)}+{R('dcf', k)}",
        hold(r.cumulative_discounted_cash),
        "usd_m",
        opening=lambda: "0",
    )
    tl.row(
        "last_neg",
        "Last month with cumulative cash below zero so far",
        "month",
        lambda k: f"IF(AND({R('in_horizon', k)}=1,{R('cum', k)}<0),{M(k)},{R('last_neg', k - 1)})",
        hold(P["last_negative_month"]),
        "num",
        opening=lambda: "0",
    )
    tl.row(
        "dlast_neg",
        "... of cumulative discounted cash",
        "month",
        lambda k: (
            f"IF(AND({R('in_horizon', k)}=1,{R('dcum', k)}<0),{M(k)},{R('dlast_neg', k - 1)})"
        ),
        hold(P["last_negative_month_discounted"]),
        "num",
        opening=lambda: "0",
    )
    H = N("horizon.months")
    span = lambda name, first=1: book.rows[f"payback.{name}"].span(first)  # noqa: E731
    rspan = lambda name, first=1: book.rows[f"revenue.{name}"].span(first)  # noqa: E731
    at = lambda name, month, rows=span: f"INDEX({rows(name, 0)},{month}+1)"  # noqa: E731
    tv_on = N("finance.terminal_value")
    tl.row(
        "irr_flows",
        "Flows for the IRR: CF_t, with the terminal value at the horizon",
        "USD",
        lambda k: f"{R('cf', k)}+IF({M(k)}={H},{tv_on}*terminal_value_usd,0)",
        row0(P["irr_flows"]),
        "usd_m",
        opening=lambda: "0",  # MIRR's first value: nothing at month 0
    )
    tl.section("Results", narrow=True)
    nan = lambda x: "" if x is None or (isinstance(x, float) and math.isnan(x)) else x  # noqa: E731
    tl.scalar(
        "cumulative_cash_at_horizon_usd",
        "Cumulative cash at the horizon",
        "USD",
        at("cum", H),
        head["cumulative_cash_at_horizon_usd"],
        "usd_b",
    )
    tl.scalar(
        "cumulative_cash_at_term_usd",
        "Cumulative cash at the end of the term",
        "USD",
        at("cum", N("contract.term_months")),
        head["cumulative_cash_at_term_usd"],
        "usd_b",
    )
    tl.scalar(
        "shortfall_usd",
        "Shortfall at the horizon",
        "USD",
        "MAX(0,-cumulative_cash_at_horizon_usd)",
        head["shortfall_usd"],
        "usd_b",
    )
    last = float(P["last_negative_month"][0][-1])
    tl.scalar(
        "last_negative_month",
        "Last month with cumulative cash below zero",
        "month",
        at("last_neg", H),
        last,
        "num",
    )
    tl.scalar(
        "payback_months",
        "Payback month (lasting recovery; blank: none)",
        "month",
        f'IF(last_negative_month=0,0,IF(cumulative_cash_at_horizon_usd<0,"",last_negative_month-{at("cum", "last_negative_month")}/{at("cf", "last_negative_month+1")}))',
        nan(head["payback_months"]),
        "num1",
    )
    tl.scalar(
        "pays_back",
        "Pays back within the horizon",
        "TRUE/FALSE",
        "ISNUMBER(payback_months)",
        head["payback_months"] is not None,
        "bool",
    )
    tl.scalar(
        "max_deficit_usd",
        "Peak cash need: the deepest point of cumulative cash",
        "USD",
        f"MAX(0,-MIN({span('cum')}))",
        head["max_deficit_usd"],
        "usd_b",
    )
    tl.scalar(
        "max_deficit_month",
        "... in month (blank: never below zero)",
        "month",
        f'IF(max_deficit_usd=0,"",MATCH(MIN({span("cum")}),{span("cum")},0))',
        "" if head["max_deficit_month"] is None else float(head["max_deficit_month"]),
        "num",
    )
    dlast = float(P["last_negative_month_discounted"][0][-1])
    tl.scalar(
        "last_negative_month_discounted",
        "... of discounted cash",
        "month",
        at("dlast_neg", H),
        dlast,
        "num",
    )
    tl.scalar(
        "discounted_payback_months",
        "Discounted payback month (blank: none)",
        "month",
        f'IF(last_negative_month_discounted=0,0,IF({at("dcum", H)}<0,"",last_negative_month_discounted-{at("dcum", "last_negative_month_discounted")}/{at("dcf", "last_negative_month_discounted+1")}))',
        nan(head["discounted_payback_months"]),
        "num1",
    )
    tl.scalar(
        "monthly_rate",
        "Monthly discount rate, r_m",
        "1/month",
        f"EXP(LN(1+{N('finance.discount_rate_annual')})/constant_months_per_year)-1",
        float(P["monthly_rate"][0]),
        "pct3",
    )
    tl.scalar(
        "terminal_margin_usd",
        "Monthly margin of a Pro upgrade at the horizon, m_H",
        "USD/month",
        f"({N('plans.pro.price_usd_month')}-{N('plans.plus.price_usd_month')})*{keep}-({at('w_pro_standard', H, rspan)}-{at('w_plus_standard', H, rspan)})"
        f"*{SPM}/{SPW}*{N('capacity.gpu_cost_per_mtok_usd')}/constant_tokens_per_million",
        float(P["terminal_margin"][0]),
        "usd2",
    )
    c = f"({N('conversion.pro_churn_monthly')}+{N('conversion.extra_churn_after_term_monthly')})"
    tl.scalar(
        "terminal_value_usd",
        "Terminal value of the Pro tail at the horizon, TV",
        "USD",
        f"{at('dpro', H, rspan)}*terminal_margin_usd*(1-{c})/(monthly_rate+{c})",
        head["terminal_value_usd"],
        "usd_b",
    )
    tl.scalar(
        "npv_without_terminal_value_usd",
        "NPV without the terminal value",
        "USD",
        f"SUM({span('dcf')})",
        head["npv_without_terminal_value_usd"],
        "usd_b",
    )
    tl.scalar(
        "npv_usd",
        "NPV",
        "USD",
        f"npv_without_terminal_value_usd+{tv_on}*terminal_value_usd*{at('d', H)}",
        head["npv_usd"],
        "usd_b",
    )
    tl.scalar(
        "npv_at_term_usd",
        "NPV of the term alone",
        "USD",
        f"SUMPRODUCT({span('dcf')},{span('in_term')})",
        head["npv_at_term_usd"],
        "usd_b",
    )
    trace = irr_trace(P["irr_flows"][0])
    flows0 = np.asarray(P["irr_flows"][0], float)
    criterion = (
        -1 if not ((flows0 > 0).any() and (flows0 < 0).any()) else 1 if irr_unique(flows0) else 0
    )
    from xlsxwriter.utility import xl_rowcol_to_cell

    # the IRR's criterion, live: the flows (Descartes) or their running sum up to the horizon
    # (Norstrom) change sign once, from negative to positive (every negative month before
    # every positive one)
    months = (
        f"'{tl.sheet}'!{xl_rowcol_to_cell(tl.header, FIRST_COL + 1, True, True)}:"
        f"{xl_rowcol_to_cell(tl.header, FIRST_COL + MONTHS, True, True)}"
    )
    f_, k_ = span("irr_flows"), f"({span('cum')}+({months}={H})*{tv_on}*terminal_value_usd)"

    def once(x: str) -> str:
        last_neg = f"SUMPRODUCT(MAX(({x}<0)*({months}<={H})*{months}))"
        first_pos = f"SUMPRODUCT(MIN({months}+1E9*(1-({x}>0)*({months}<={H}))))"
        return f"AND({last_neg}>0,{first_pos}<1E9,{last_neg}<{first_pos})"

    tl.scalar(
        "irr_criterion",
        "IRR criterion: 1 a unique rate of return (the flows, or their running sum, change sign "
        "once, from out to in); 0 no meaningful IRR (financing-type or multiple-root flows); "
        "-1 the flows never change sign",
        "-",
        f'IF(OR(COUNTIF({f_},"<0")=0,COUNTIF({f_},">0")=0),-1,IF(OR({once(f_)},{once(k_)}),1,0))',
        criterion,
        "num",
    )
    irr_cached = "" if trace.interval is None or criterion != 1 else float(np.expm1(12 * trace.y))
    tl.scalar(
        "irr_annual",
        "IRR, annualised (blank: none or not meaningful; solver below)",
        "1/yr",
        f'IF(OR(irr_root="",irr_criterion<>1),"",(1+IRR({span("irr_flows")},EXP(irr_root)-1))'
        "^constant_months_per_year-1)",
        irr_cached,
        "pct",
    )
    rm = "monthly_rate"
    mirr0 = mirr(flows0, float(P["monthly_rate"][0]))
    tl.scalar(
        "mirr_annual",
        "MIRR, annualised: MIRR of 0 and the flows for the IRR at the monthly discount rate "
        "(blank: no money out or no money in)",
        "1/yr",
        f"IFERROR((1+MIRR(INDEX({span('irr_flows', 0)},1):INDEX({span('irr_flows', 0)},{H}+1),"
        f'{rm},{rm}))^constant_months_per_year-1,"")',
        "" if not np.isfinite(mirr0) else float(np.expm1(12 * np.log1p(mirr0))),
        "pct",
    )
    tl.solvers.append(("irr_root", "The flows for the IRR", span("irr_flows"), 0, trace))
    tl.scalar(
        "profitability_index",
        "Profitability index (1 = break-even)",
        "-",
        f"(SUMPRODUCT({span('inflow')},{span('d')})+{tv_on}*terminal_value_usd*{at('d', H)})/rent_npv_usd",
        head["profitability_index"],
        "num2",
    )
    tl.scalar(
        "realised_cost_per_mtok_usd",
        "Realised cost per million tokens served",
        "USD per 1M tokens",
        # blank where nothing is served, as the model's NaN (no #DIV/0!)
        f'IF(SUM({rspan("tokens_served")})=0,"",'
        f"constant_tokens_per_million*SUM({span('rent')})/SUM({rspan('tokens_served')}))",
        head["realised_cost_per_mtok_usd"],
        "usd2",
    )
    tl.scalar(
        "simple_breakeven_pro_users",
        "Pro users to pay the contract (the articles)",
        "users",
        f"{N('contract.value_usd')}/({N('plans.pro.price_usd_month')}*{N('contract.term_months')})",
        head["simple_breakeven_pro_users"],
        "num",
    )
    tl.scalar(
        "simple_breakeven_share_of_mau",
        "... as a share of monthly active users",
        "share",
        f"simple_breakeven_pro_users/{N('market.mau')}",
        head["simple_breakeven_share_of_mau"],
        "pct3",
    )
    lim = head["capacity_limits"]
    tl.scalar(
        "cap_api_tokens_wanted",
        "API tokens wanted over the term",
        "tokens",
        f"SUM({rspan('api_wanted')})",
        head["totals"]["api_tokens_wanted"],
        "tok_t",
    )
    tl.scalar(
        "cap_api_tokens_lost",
        "API tokens turned away for lack of capacity",
        "tokens",
        f"IF(SUM({rspan('api_wanted')})-SUM({rspan('api_served')})>constant_check_tolerance*SUM({rspan('api_wanted')}),SUM({rspan('api_wanted')})-SUM({rspan('api_served')}),0)",
        lim["api_tokens_lost"],
        "tok_t",
    )
    tl.scalar(
        "cap_adoption_capped_months",
        "Months the capacity holds adoption below its share",
        "months",
        f"SUMPRODUCT({span('in_term')}*({rspan('adoption')}<{N('tiers.ultrafast.adoption')}*(1-constant_check_tolerance)))",
        lim["adoption_capped_months"],
        "num",
    )
    tl.scalar(
        "cap_peak_utilization",
        "Peak utilisation of the contract",
        "share",
        f"MAX({rspan('util')})",
        head["totals"]["peak_utilization"],
        "pct",
    )
    tl.scalar(
        "cap_term_average_utilization",
        "Average utilisation over the term, MW-weighted",
        "share",
        f"SUMPRODUCT({rspan('util')},{rspan('mw')},{span('in_term')})/SUMPRODUCT({rspan('mw')},{span('in_term')})",
        head["totals"]["term_average_utilization"],
        "pct",
    )
    tl.scalar(
        "cap_backfill_capped_months",
        "Months spare capacity limits the backfill",
        "months",
        f"SUMPRODUCT({span('in_term')}*({rspan('backfill')}<{N('capacity.backfill_tokens_per_month')}"
        f"*{rspan('eff')}*(1-constant_check_tolerance)))",
        lim["backfill_capped_months"],
        "num",
    )
    _bridge(tl, a, r, head, span, rspan, at)
    for name, label_, fmt in (
        ("npv_usd", "NPV [USD]", "usd"),
        ("npv_without_terminal_value_usd", "NPV without the terminal value [USD]", "usd"),
        ("terminal_value_usd", "Terminal value [USD]", "usd"),
        ("payback_months", "Payback month", "num2"),
        ("discounted_payback_months", "Discounted payback month", "num2"),
        ("irr_annual", "IRR [1/yr]", "pct"),
        ("mirr_annual", "MIRR [1/yr]", "pct"),
        ("profitability_index", "Profitability index", "num2"),
        ("shortfall_usd", "Shortfall [USD]", "usd"),
    ):
        book.matches.append((label_, head[name], name, fmt))
    return tl


def _bridge(tl: Timeline, a: Assumptions, r: Results, head: dict, span, rspan, at) -> None:
    """From revenue to the NPV in present values: each stream discounted, summing to the NPV
    (a reader can reconcile the answer line by line)."""
    d = r.discount[0]
    v = a.num("finance.variable_cost_share")
    pv = lambda x: float(np.sum(np.asarray(x)[0] * d))  # noqa: E731
    H = N("horizon.months")
    tl.section("Bridge to the NPV: each stream in present value", narrow=True)
    dsum = lambda row: f"SUMPRODUCT({row},{span('d')})"  # noqa: E731
    items = (
        (
            "bridge_subscription_usd",
            "Pro upgrades (subscription revenue)",
            dsum(rspan("sub")),
            pv(r.subscription_revenue),
        ),
        ("bridge_api_usd", "Ultrafast API premium", dsum(rspan("api")), pv(r.api_revenue)),
        (
            "bridge_variable_costs_usd",
            "less variable costs",
            f"-{N('finance.variable_cost_share')}*(bridge_subscription_usd+bridge_api_usd)",
            -v * (pv(r.subscription_revenue) + pv(r.api_revenue)),
        ),
        ("bridge_gpu_usd", "GPU cost avoided, net", dsum(rspan("gpu")), pv(r.gpu_savings)),
        ("bridge_rent_usd", "less rent", f"-{dsum(span('rent'))}", -pv(r.rent)),
        (
            "bridge_terminal_value_usd",
            "Terminal value of the Pro tail",
            f"{N('finance.terminal_value')}*terminal_value_usd*{at('d', H)}",
            head["npv_usd"] - head["npv_without_terminal_value_usd"],
        ),
    )
    for name, label_, formula, value in items:
        tl.scalar(name, label_, "USD", formula, value, "usd_b")
    tl.scalar(
        "bridge_npv_usd",
        "NPV (the sum: equals the NPV above)",
        "USD",
        "+".join(name for name, *_ in items),
        sum(value for *_, value in items),
        "usd_b",
    )


def irr_solver(
    book: Book, tl: Timeline, name: str, what: str, flows: str, shift: int, trace
) -> None:
    """The root IRR() is started at: the present value at each rate of econ's grid, the first
    interval below zero and the first above it where it changes sign, each bisected, and the
    nearer root to zero (payback.irr_trace, step by step). Spreadsheet IRR() alone starts
    Newton's method from a guess and can return a rate that is no root at all; started at
    this root it returns the root.
    ``flows`` is a row span; ``shift`` 1 when its first value is month 0 (periods start at 1)."""
    from xlsxwriter.utility import xl_rowcol_to_cell

    from econ.payback import IRR_GRID

    s = book.styles
    ws, r0 = tl.ws, tl.next + 1
    hdr = tl.header  # its cells hold the month numbers
    first_col = 2 + (0 if shift else 1)
    m_span = f"'{tl.sheet}'!{xl_rowcol_to_cell(hdr, first_col, True, True)}:{xl_rowcol_to_cell(hdr, 2 + MONTHS, True, True)}"
    t = f"({m_span}+{shift})"
    ws.write_string(
        r0,
        0,
        f"IRR solver: {what}. Present value at each rate of the grid; the first sign change "
        "below zero and the first above it, each bisected; the root nearer zero.",
        s("section"),
    )
    head = [
        "grid point",
        "ln(1 + x)",
        "present value",
        "changes sign to the next",
        "below zero",
        "above zero",
    ]
    for j, h in enumerate(head):
        ws.write_string(r0 + 1, j, h, s("h"))
    top = r0 + 2
    n = len(IRR_GRID)
    pv = trace.pv
    pos = pv > 0
    for j in range(n):
        rr = top + j
        c = lambda col, dr=0, rr=rr: xl_rowcol_to_cell(rr + dr, col)  # noqa: E731
        ws.write_number(rr, 0, j + 1)
        write_formula(ws, rr, 1, f"=INDEX(constant_irr_grid,{c(0)})", float(IRR_GRID[j]), s("num4"))
        write_formula(ws, rr, 2, f"=SUMPRODUCT({flows},EXP(-{t}*{c(1)}))", float(pv[j]), s("sci"))
        if j < n - 1:
            change = bool((pos[j] != pos[j + 1]) or pv[j] == 0)
            write_formula(ws, rr, 3, f"=OR(({c(2)}>0)<>({c(2, 1)}>0),{c(2)}=0)", change)
            below = change and IRR_GRID[j + 1] <= 0
            above = change and IRR_GRID[j] >= 0
            write_formula(
                ws,
                rr,
                4,
                f'=IF(AND({c(3)},{c(1, 1)}<=0),{c(0)},"")',
                j + 1 if below else "",
                s("num"),
            )
            write_formula(
                ws, rr, 5, f'=IF(AND({c(3)},{c(1)}>=0),{c(0)},"")', j + 1 if above else "", s("num")
            )
        else:
            write_formula(ws, rr, 3, "=FALSE()", False)
    col = lambda k: f"'{tl.sheet}'!${chr(ord('A') + k)}${top + 1}:${chr(ord('A') + k)}${top + n}"  # noqa: E731
    rr = top + n + 1
    one_sign = f'OR(COUNTIF({flows},">0")=0,COUNTIF({flows},"<0")=0)'
    roots = []
    for side, bis, pick, label_ in (
        ("below", trace.below, f"MAX({col(4)})", "first interval below zero"),
        ("above", trace.above, f"MIN({col(5)})", "first interval above zero"),
    ):
        cidx = 4 if side == "below" else 5
        ws.write_string(rr, 0, f"{label_} (blank: none)", s("bold"))
        write_formula(
            ws,
            rr,
            1,
            f'=IF(OR({one_sign},COUNT({col(cidx)})=0),"",{pick})',
            "" if bis is None else bis.interval + 1,
            s("num"),
        )
        best = f"$B${rr + 1}"
        rr += 1
        for j, h in enumerate(("step", "lo", "hi", "PV at lo", "mid", "PV at mid")):
            ws.write_string(rr, j, h, s("h"))
        b0 = rr + 1
        steps = BISECTION_STEPS
        for k in range(steps):
            r_ = b0 + k
            c = lambda cc, dr=0, r_=r_: xl_rowcol_to_cell(r_ + dr, cc)  # noqa: E731
            ws.write_number(r_, 0, k + 1)
            v = lambda arr, k=k, bis=bis: 0.0 if bis is None else float(arr(bis)[k])  # noqa: E731
            if k == 0:
                lo = f'IF({best}="",0,INDEX({col(1)},{best}))'
                hi = f'IF({best}="",0,INDEX({col(1)},{best}+1))'
                flo = f'IF({best}="",0,INDEX({col(2)},{best}))'
            else:
                same = f"(({c(5, -1)}>0)=({c(3, -1)}>0))"
                lo = f"IF({same},{c(4, -1)},{c(1, -1)})"
                hi = f"IF({same},{c(2, -1)},{c(4, -1)})"
                flo = f"IF({same},{c(5, -1)},{c(3, -1)})"
            write_formula(ws, r_, 1, "=" + lo, v(lambda b: b.lo), s("num4"))
            write_formula(ws, r_, 2, "=" + hi, v(lambda b: b.hi), s("num4"))
            write_formula(ws, r_, 3, "=" + flo, v(lambda b: b.f_lo), s("usd_m"))
            write_formula(ws, r_, 4, f"=({c(1)}+{c(2)})/2", v(lambda b: b.mid), s("num4"))
            write_formula(
                ws,
                r_,
                5,
                f'=IF({best}="",0,SUMPRODUCT({flows},EXP(-{t}*{c(4)})))',
                v(lambda b: b.f_mid),
                s("usd_m"),
            )
        last = b0 + steps - 1
        rr = last + 1
        L = lambda cc, last=last: xl_rowcol_to_cell(last, cc)  # noqa: E731
        ws.write_string(rr, 0, f"root {side} zero, ln(1 + x) (blank: none)", s("bold"))
        root = f'IF({best}="","",IF(({L(5)}>0)=({L(3)}>0),({L(4)}+{L(2)})/2,({L(1)}+{L(4)})/2))'
        write_formula(ws, rr, 1, "=" + root, "" if bis is None else bis.y, s("num4"))
        roots.append(f"$B${rr + 1}")
        rr += 2
    b, a_ = roots
    ws.write_string(rr, 0, "the root nearer zero, ln(1 + x) (blank: none)", s("bold"))
    final = (
        f'IF(AND({b}="",{a_}=""),"",IF({b}="",{a_},IF({a_}="",{b},'
        f"IF(ABS(EXP({b})-1)<=ABS(EXP({a_})-1),{b},{a_}))))"
    )
    write_formula(ws, rr, 1, "=" + final, "" if trace.interval is None else trace.y, s("num4"))
    book.name(name, f"'{tl.sheet}'!$B${rr + 1}")
    book.name(f"{name}_solver_area", f"'{tl.sheet}'!$A${r0 + 1}:$F${rr + 1}")
    tl.next = rr + 2
