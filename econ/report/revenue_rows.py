"""The Revenue sheet's rows, one declaration each (econ/report/rows.py): capacity online, demand
per user, the API's demand, the value of a subscriber, the allocation of the contract's MW by
value each month, the Pro stocks with and without the deal, revenue, backfill and the GPU fleet
(docs/model.md, sections 0.2-0.5, 5, 6).

The scalars these rows read (the served speeds, throughputs and GPU costs of the econ run; the
API logit, the no-deal calibration and the value of an average MW of each use, live) are on the
Capacity and Market sheets, by name.
"""

from __future__ import annotations

import numpy as np

from econ.assumptions import Assumptions
from econ.constants import SECONDS_PER_MONTH
from econ.model import Results
from econ.report.rows import Check, Declaration, Row, Section, row0
from econ.report.xl import MONTHS, pad_months

SPM, SPW = "constant_seconds_per_month", "constant_seconds_per_week"
PER_M = "constant_tokens_per_million"
PTA = "usage_peak_to_average"
KEEP = "(1-finance_variable_cost_share)"
RAMP = "IF({r}>0,MIN(1,{{m}}/{r}),1)"


BOTH = "AND(ISNUMBER(contract_tranche_mw),ISNUMBER(contract_tranche_months))"  # tranches set


def schedule(month: str) -> tuple[str, str]:
    """The share of the contracted MW online at ``month`` (a formula of the month's number) on
    a linear ramp and in tranches (0: no tranches): one template for this month (Revenue) and
    for the next (Costs, where the capex for the next month's MW is spent)."""
    ramp = RAMP.format(r="contract_ramp_months").replace("{m}", month)
    tranche = (
        f"MIN(contract_mw,contract_tranche_mw*CEILING({month}/contract_tranche_months"
        "-constant_ceiling_slack,1))/contract_mw"
    )
    return ramp, f"IF({BOTH},{tranche},0)"


# fmt: off
def capacity_rows(a: Assumptions, r: Results) -> list[Declaration]:
    """MW online (a linear ramp, or tranches when both tranche inputs are set; section 0.3)."""
    ramp, tranche = schedule("{m}")
    ramp_v, tranche_v = ramp_and_tranche(a)
    return [
        Section("Capacity online"),
        Row("ramp", "Share online on a linear ramp", "share", "pct", ramp, ramp_v),
        Row("tranche", "Share online in tranches (0: no tranches)", "share", "pct", tranche,
            tranche_v),
        Row("online", "Share of the contracted MW online", "share", "pct",
            f"[in_term]*IF({BOTH},[tranche],[ramp])", row0(r.parts["online_share"]), gated=True),
        Row("mw_sched", "MW scheduled, the contract's MW x the share online", "MW", "num1",
            "contract_mw*[online]", row0(r.parts["online_share"]) * a.num("contract.mw"),
            opening="0"),
        Row("mw", "MW delivered and online, MW_t (the delivered share of the schedule)", "MW",
            "num1", "[mw_sched]*contract_delivered_share", row0(r.mw_online), opening="0",
            check=Check("MW online against the contracted MW x the share online x the share "
                        "delivered", "contract_mw*SUM([online:])*contract_delivered_share")),
        Row("pi", "Price index of API prices, pi_t (successors)", "-", "num4",
            "EXP(({m}-1)/constant_months_per_year*LN(1-market_price_decline_per_year))",
            row0(r.parts["price_index"]), gated=True),
        Row("ci", "Cost index of GPU costs, c_t (successors)", "-", "num4",
            "EXP(({m}-1)/constant_months_per_year*LN(1-hardware_gpu_cost_decline_per_year))",
            row0(r.parts["cost_index"]), gated=True),
        *succession_rows(r),
        Row("streams", "Peak ultrafast streams the contract serves, C_t", "streams", "num",
            "[mw]*[thr_u_t]/served_ultrafast", row0(r.capacity_streams)),
    ]


def succession_rows(r: Results) -> list[Declaration]:
    """Each month's model (section V4.6): the successor of another size is the flagship from
    the first month that starts at or after model.succession_months; the contract serves it
    where it reaches the served ultrafast speed (Capacity, successor_reached), else the
    predecessor, whose demand declines; the contract's throughputs and the values of the tokens
    it carries are the model's it serves, the fleet's value of a standard token the flagship's.
    With model.successor_params_multiple = 1 every month is the served model's."""
    P = r.parts
    succ = "IF([succ_c]=1,successor_{x},{x})"
    return [
        Row("succ", "Successor of another size is the flagship", "flag", "num",
            "IF(AND(model_successor_params_multiple<>1,{m}-1>=model_succession_months),1,0)",
            row0(P["succession"]), gated=True),
        Row("succ_c", "The contract serves the successor (1 = yes)", "flag", "num",
            "[succ]*successor_reached", row0(P["contract_successor"]), gated=True),
        Row("dem_f", "Predecessor's demand left on the contract", "share", "pct",
            "IF([succ]>[succ_c],(1-model_predecessor_decline_per_month)^({m}"
            "-CEILING(model_succession_months-constant_ceiling_slack,1)),1)",
            row0(P["demand"]), gated=True),
        Row("thr_u_t", "Contract's Thr* at ultrafast (month's model)",
            "tokens/s/MW", "num", succ.format(x="thr_ultrafast"), row0(P["thr_u_t"]),
            gated=True),
        Row("thr_b_t", "Contract's Thr* at standard (month's model)",
            "tokens/s/MW", "num", succ.format(x="thr_standard"), row0(P["thr_b_t"]),
            gated=True),
        Row("per_mw_u_t", "Tokens an average MW carries at ultrafast",
            "tokens/month", "tok_b", f"[thr_u_t]*{SPM}",
            row0(np.asarray(P["thr_u_t"]) * SECONDS_PER_MONTH), gated=True),
        Row("per_mw_b_t", "... at standard (moved traffic)", "tokens/month", "tok_b",
            f"[thr_b_t]*{SPM}", row0(np.asarray(P["thr_b_t"]) * SECONDS_PER_MONTH),
            gated=True),
        Row("moved_per_value_t", "Std tokens a subscriber MW moves off GPUs", "1M tokens/MW-month", "num",
            f"{SPM}*[thr_u_t]/(phi_ultrafast*{PER_M})",
            row0(P["allocation.moved_per_value_t"]), gated=True),
        Row("g_std_t", "v of a standard token on the fleet (flagship)",
            "USD per 1M tokens", "usd2",
            "IF([succ]=1,successor_gpu_cost_standard,gpu_cost_standard)", row0(P["g_std_t"]),
            gated=True),
        Row("g_std_c", "v of a standard token the contract carries",
            "USD per 1M tokens", "usd2", succ.format(x="gpu_cost_standard"),
            row0(P["g_std_c_t"]), gated=True),
        Row("g_flex_c", "v_f of a flexible token the contract carries", "USD per 1M tokens",
            "usd2", succ.format(x="gpu_cost_flexible"), row0(P["g_flex_c_t"]), gated=True),
        Row("api_gpu_c", "GPU cost an ultrafast API token saves", "USD per 1M tokens", "usd2",
            "IF([succ_c]=1,api_diversion_standard*successor_gpu_cost_standard"
            "+api_diversion_fast*successor_gpu_cost_fast,mkt_gpu_avoided_per_token)",
            row0(P["api_gpu_c_t"]), gated=True),
    ]


def demand_rows(a: Assumptions, r: Results) -> list[Declaration]:
    """Demand per user: lognormal weekly demand truncated at the quota (sections 0.5, 5.1); at
    the ultrafast tier an adopter's mixed burn (section V4.7: usage.ultrafast_query_share of
    the queries at ultrafast), the Pro stock mixed over the two Pro tiers where the data have
    the lower one."""
    P = r.parts
    lower = "plans.pro_lower.price_usd_month" in a.values
    out: list[Declaration] = [
        Section("Demand per user: lognormal weekly demand truncated at the quota"),
        Row("eff", "Token efficiency, e_t", "-", "num4",
            "EXP(({m}-1)/constant_months_per_year*LN(1-usage_token_efficiency_gain_annual))",
            row0(r.token_efficiency), gated=True),
        Row("pool", "Plus users, N_t", "users", "num",
            "market_mau*market_plus_share_of_mau*EXP(({m}-1)*LN(1+market_mau_growth_monthly))",
            row0(r.plus_pool), gated=True),
    ]
    sigma = "usage_demand_sigma"
    # the quota units a token burns and the demand's speed factor at each tier; the
    # ultrafast "tier" is an adopter's mixed burn (Market: mkt_mix_burn, mkt_mix_phi)
    burn = {t: f"tiers_{t}_usage_multiplier" for t in a.tier_ids()} | {"ultrafast": "mkt_mix_burn"}
    phi = {t: f"phi_{t}" for t in a.tier_ids()} | {"ultrafast": "mkt_mix_phi"}
    plans = (("plus", "plus", "Plus"), ("pro", "pro", "Pro"))
    if lower:
        plans += (("pro_lower", "low", "Lower Pro"),)
    for plan, tag, Plan in plans:
        for tier in a.tier_ids():
            pt = f"{tag}_{tier}"
            key = "pro_lower" if plan == "pro_lower" else plan
            out += [
                Row(f"l_{pt}", f"{Plan} on {tier}: l = ln(quota at the tier / median)", "-",
                    "num4",
                    f"LN(usage_quota_{plan}/{burn[tier]})"
                    f"-LN(usage_median_{plan}*{phi[tier]})-LN([eff])",
                    row0(P[f"log_c_over_mu.{key}.{tier}"]), gated=True),
                Row(f"sf_{pt}", f"{Plan} on {tier}: share who hit the cap", "share", "pct",
                    f"NORMSDIST(-[l_{pt}]/{sigma})",
                    row0(P[f"{'pro_lower' if plan == 'pro_lower' else plan}_hit.{tier}"]),
                    gated=True),
            ]
    raw = "usage_median_{plan}*{phi}*[eff]*(EXP({s}^2/2)*NORMSDIST([l_{pt}]/{s}-{s})+EXP([l_{pt}])*[sf_{pt}])"
    for plan, tier in (("plus", "ultrafast"), ("pro", "ultrafast"), ("plus", "standard"),
                       ("pro", "standard")):
        pt = f"{plan}_{tier}"
        share = "*mkt_mix_u_share" if tier == "ultrafast" else ""
        w = raw.format(plan=plan, phi=phi[tier], s=sigma, pt=pt)
        label = (f"{plan.capitalize()} on {tier}: tokens served a user-week, w"
                 + (" (the ultrafast share of the adopter's tokens)" if tier == "ultrafast" else ""))
        if plan == "pro" and lower:  # each Pro tier's, then the Pro stock's mix of them
            low = raw.format(plan="pro_lower", phi=phi[tier], s=sigma, pt=f"low_{tier}")
            mix = np.asarray(P[f"w_{pt}"])
            each = (P[f"w_tier.pro.{tier}"], P[f"w_tier.pro_lower.{tier}"])
            out += [
                Row(f"wt_{pt}", label.replace("Pro", "The 200 USD Pro tier", 1), "tokens/week",
                    "num", f"({w}){share}", row0(each[0]), gated=True),
                Row(f"wt_low_{tier}", label.replace("Pro", "The lower Pro tier", 1),
                    "tokens/week", "num", f"({low}){share}", row0(each[1]), gated=True),
                Row(f"w_{pt}", label + " (both Pro tiers)", "tokens/week", "num",
                    f"(1-conversion_lower_pro_share)*[wt_{pt}]+conversion_lower_pro_share"
                    f"*[wt_low_{tier}]", row0(mix), gated=True),
            ]
            continue
        out.append(
            Row(f"w_{pt}", label, "tokens/week", "num", f"({w}){share}", row0(P[f"w_{pt}"]),
                gated=True))
    return out


def api_rows(a: Assumptions, r: Results) -> list[Declaration]:
    """The API's demand for ultrafast tokens (section 0.4) and the MW it would take."""
    ramp = RAMP.format(r="api_ramp_months")
    return [
        Section("The API: ultrafast tokens wanted (logit share of the market, Market sheet)",
                new_page=True),
        Row("api_wanted", "API tokens wanted, V_t", "tokens/month", "tok_t",
            f"[in_term]*ultrafast_offered*api_market_tokens*api_share_ultrafast*[eff]*{ramp}"
            "*[dem_f]",
            row0(r.api_tokens_wanted), gated=True),
        Row("api_cap", "Average MW the API wants, Y_a", "MW", "num1",
            "IF([per_mw_u_t]>0,[api_wanted]/[per_mw_u_t],0)", row0(r.parts["api_cap"])),
        Row("api_d0", "The API's standard and fast tokens without the deal", "tokens/month",
            "tok_t", "api_market_tokens*(mkt_no_deal_standard+mkt_no_deal_fast)*[eff]*[dem_f]",
            row0(r.parts["api_demand"]), gated=True),
        Row("api_x", "Lab tokens the ultrafast API diverts (already credited)", "tokens/month",
            "tok_t", "[api_wanted]*(api_diversion_standard+api_diversion_fast)",
            row0(r.parts["api_credited"]), gated=True),
        Row("free_users", "Free users, MAU_t less the Plus pool", "users", "num",
            "MAX(market_mau*EXP(({m}-1)*LN(1+market_mau_growth_monthly))-[pool],0)",
            row0(r.parts["free_users"]), gated=True),
        Row("free_d0", "The free tier's use of the served model (where served)", "tokens/month",
            "tok_t",
            "free_served*[free_users]*free_dau_per_mau*MIN(free_queries_per_day,"
            "free_flagship_queries_per_day)*usage_output_tokens_per_query"
            "*constant_seconds_per_month/constant_seconds_per_day*[eff]*[dem_f]",
            row0(r.parts["free_demand"]), gated=True),
        Row("batch", "The lab's own batch work, I_t (in the term)", "tokens/month", "tok_t",
            "[in_term]*capacity_internal_batch_tokens_per_month", row0(r.parts["internal_batch"]),
            gated=True),
    ]


def value_rows(a: Assumptions, r: Results) -> list[Declaration]:
    """W_t, the value at month 0 of one extra Pro subscriber converted in month t (section
    0.2): its margins while it survives, discounted, and the terminal value at H."""
    P = r.parts
    margin = ("(mkt_pro_price-plans_plus_price_usd_month)*" + KEEP
              + f"-([w_pro_standard]-[w_plus_standard])*({SPM}/{SPW})*[g_std_t]*[ci]"
              f"/{PER_M}")
    churn = ("1-conversion_pro_churn_monthly"
             "-IF({m}>contract_term_months,conversion_extra_churn_after_term_monthly,0)")
    tail = "SUM([flow_w:])-[cum_w-1]+[surv@horizon_months]*[costs.d@horizon_months]*mkt_tv_sub"
    flow = np.asarray(P["discounted_margin"])
    return [
        Section("The value of one extra Pro subscriber, W_t"),
        Row("margin", "Monthly margin of an incremental Pro subscriber, m_t", "USD/month",
            "usd2", margin, row0(P["subscriber_margin"]), gated=True),
        Row("surv_step", "Share of a month's Pro subscribers kept", "share", "pct2", churn,
            row0(P["survival_step"]), gated=True),
        Row("surv", "Survival since month 0, S_t", "share", "pct2", "[surv-1]*[surv_step]",
            pad_months(np.asarray(P["survival"])[0], 1.0), opening="1", gated=True),
        Row("flow_w", "Discounted margin while surviving, m_t d_t S_t", "USD", "usd2",
            "[margin]*[costs.d]*[surv]", row0(flow)),
        Row("cum_w", "... cumulative", "USD", "usd2", "[cum_w-1]+[flow_w]",
            pad_months(np.cumsum(flow[0]), 0.0, hold=True), opening="0"),
        Row("W", "Value of a Pro subscriber converted in month t, W_t", "USD", "usd2",
            f"IF([surv]>0,({tail})/[surv],0)", row0(P["pro_value"]), gated=True),
    ]
# fmt: on


# fmt: off
def allocation_rows(a: Assumptions, r: Results) -> list[Declaration]:
    """Each use's demand for average MW and its value per average MW-month (sections 0.2,
    V4.2, V4.3, V4.6): the moved traffic bounded by the served model's own demand without the
    deal less what the deal already credits; each month's values at the price and cost indices."""
    P = r.parts
    off = 'IF(capacity_subscriber_offer="off",0,1)'
    inv = "IF([need]>0,1/[need],0)"
    # W_t is money at month 0, the other uses' values money of month t: W_t / d_t
    rho = ("[ci]*[g_std_c]*[moved_per_value_t]+pro_price_factor*pro_capped_propensity"
           f"*[lift]*conversion_voluntary_cap_hit_weight*[pool]*[W]/[costs.d]*{inv}")
    want = f"[in_term]*ultrafast_offered*{off}*ultrafast_adoption_wanted*[dem_f]"
    per_b = "IF([per_mw_b_t]>0,{x}/[per_mw_b_t],0)"
    g = parts_of(r, "allocation.")
    return [
        Section("Each use's demand for the contract's MW (average MW) and its value"),
        Row("all_adopt", "Ultrafast streams if all eligible adopted, A_t",
            "streams", "num",
            f"([pool]*[w_plus_ultrafast]+[pro-1]*[w_pro_ultrafast])/({SPW}*served_ultrafast)",
            row0(P["all_adopt_streams"]), gated=True),
        Row("need", "Average MW if every eligible user adopted", "MW", "num1",
            "[all_adopt]*IF([thr_u_t]>0,served_ultrafast/[thr_u_t],0)",
            row0(P["allocation.need"])),
        Row("sub_cap", "Average MW subscribers want, Y_s", "MW", "num1",
            f"{want}*[need]", row0(P["allocation.sub_cap"]), gated=True),
        Row("lift", "Plus cap-hit lift on ultrafast, SF_u - SF_std", "share", "pct",
            "[sf_plus_ultrafast]-[sf_plus_standard]", row0(_lift(r)), gated=True),
        Row("rho_s", "Value of an average MW of subscriber streams, rho_s", "USD/MW-month",
            "usd_m", f'IF(capacity_subscriber_offer="on",constant_unbounded_value,{rho})',
            row0(_rho_s(r)), gated=True),
        Section("Moved traffic: the served model's own standard demand, less what the deal "
                "credits (section V4.2)"),
        Row("chat_d0", "Plus and Pro standard demand without the deal", "tokens/month", "tok_t",
            f"([pool]*[w_plus_standard]+[pro0-1]*[w_pro_standard])*({SPM}/{SPW})*[dem_f]",
            row0(r.demand_no_deal_tokens - P["api_demand"] - P["free_demand"]), gated=True),
        Row("chat_x", "Adopters' standard-equivalent tokens (already credited)", "tokens/month",
            "tok_t",
            f"{want}*([pool]*[w_plus_ultrafast]+[pro-1]*[w_pro_ultrafast])*({SPM}/{SPW})"
            "/phi_ultrafast", row0(r.credited_tokens - P["api_credited"]), gated=True),
        Row("d0", "The served model's standard demand without the deal, D0_t", "tokens/month",
            "tok_t", "[chat_d0]+[api_d0]+[free_d0]", row0(r.demand_no_deal_tokens)),
        Row("x", "What the deal already credits, X_t", "tokens/month", "tok_t",
            "[in_term]*([chat_x]+[api_x])", row0(r.credited_tokens)),
        Row("moved_cap", "Moved traffic's cap, movable share x max(0, D0 - X) + I_t", "tokens/month",
            "tok_t",
            "[in_term]*capacity_movable_share*MAX([chat_d0]-[chat_x]+[api_d0]-[api_x],0)+[batch]",
            row0(g["moved_tokens"])),
        Row("moved_flex", "... of it flexible (Batch share of the API part, and I_t)",
            "tokens/month", "tok_t",
            "MIN([moved_cap],[in_term]*capacity_movable_share*capacity_backfill_flexible_share"
            "*MAX([api_d0]-[api_x],0)+[batch])", row0(r.moved_flexible_cap_tokens)),
        Row("bp_cap", "Average MW of peak-shaped moved traffic, Y_p", "MW", "num1",
            per_b.format(x="([moved_cap]-[moved_flex])"), row0(g["moved_peak_cap"])),
        Row("bf_cap", "Average MW of flexible moved traffic, Y_f", "MW", "num1",
            per_b.format(x="[moved_flex]"), row0(g["moved_flexible_cap"])),
        Row("fr_cap", "Average MW of the free tier's moved traffic, Y_r", "MW", "num1",
            per_b.format(x="[in_term]*capacity_movable_share*[free_d0]"),
            row0(g["free_cap"])),
        Section("Each month's value of an average MW-month of each use (sections 0.2, V4.6)"),
        Row("rho_a", "API, rho_a = m_u,t x tokens / 1e6", "USD/MW-month", "usd_m",
            f"({KEEP}*[pi]*mkt_revenue_per_token+[ci]*[api_gpu_c])*[per_mw_u_t]/{PER_M}",
            row0(P["rho_api"]), gated=True),
        Row("rho_p", "Peak-shaped moved traffic, rho_p = v_std c_t x tokens / 1e6",
            "USD/MW-month", "usd_m", f"[g_std_c]*[ci]*[per_mw_b_t]/{PER_M}",
            row0(P["rho_backfill"]), gated=True),
        Row("rho_f", "Flexible moved traffic, rho_f = v_f c_t x tokens / 1e6", "USD/MW-month",
            "usd_m", f"[g_flex_c]*[ci]*[per_mw_b_t]/{PER_M}", row0(P["rho_flexible"]),
            gated=True),
        Row("rho_r", "The free tier's moved traffic, at the smaller model's cost",
            "USD/MW-month", "usd_m",
            f"free_alternative_cost_per_mtok_usd*[ci]*[per_mw_b_t]/{PER_M}",
            row0(P["rho_free"]), gated=True),
    ]


def greedy_rows(a: Assumptions, r: Results) -> list[Declaration]:
    """The month's allocation, the LP's optimum by a greedy fill in order of value (section
    0.2, econ/revenue/allocation.py): flexible work first wants F; the peak-shaped uses in
    order of rho, each up to the peak (rho above the flexible value) or the room F leaves."""
    g = parts_of(r, "allocation.")
    uses = (("a", "[rho_a]", "[api_cap]"), ("s", "[rho_s]", "[sub_cap]"),
            ("p", "[rho_p]", "[bp_cap]"), ("r", "[rho_r]", "[fr_cap]"))
    lim = "IF({rho}>[rho_f],[peak],IF({rho}>0,[shared],0))"

    def pick(k: int, col: int) -> str:
        """The cap (col 2) or limit (col 3) of the use in place k."""
        expr = "0"
        for u, _, cap in reversed(uses):
            val = cap if col == 2 else f"[lim_{u}]"
            expr = f"IF([rank_{u}]={k},{val},{expr})"
        return expr

    def rank(j: int) -> str:
        u, rho_j, _ = uses[j]
        terms = [f"({rho_k}>{'=' if k < j else ''}{rho_j})" for k, (_, rho_k, _) in enumerate(uses)
                 if k != j]
        return "+".join(terms)

    got = []
    before = "0"
    for k in range(len(uses)):
        got.append(Row(f"got{k}", f"Average MW to the use in place {k + 1}", "MW", "num1",
                       f"MIN({pick(k, 2)},MAX({pick(k, 3)}-{before},0))", row0(g[f"got{k}"])))
        before = "(" + "+".join(f"[got{j}]" for j in range(k + 1)) + ")"
    names = {"a": "the API", "s": "subscriber streams", "p": "peak-shaped moved traffic",
             "r": "the free tier's moved traffic"}
    return [
        Section("The allocation of the month's MW by value (greedy fill of the LP)"),
        Row("flex_want", "Flexible moved traffic's claim on the average, F", "MW", "num1",
            "IF([rho_f]>0,MIN([bf_cap],[mw]),0)", row0(g["flex"])),
        Row("peak", "Peak room, MW / peak-to-average", "MW", "num1", f"[mw]/{PTA}",
            row0(g["peak"])),
        Row("shared", "Room flexible work leaves, min(peak room, MW - F)", "MW", "num1",
            "MIN([peak],[mw]-[flex_want])", row0(g["shared"])),
        *[Row(f"lim_{u}", f"Limit of {names[u]}", "MW", "num1", lim.format(rho=rho),
              row0(g[f"lim_{u}"])) for u, rho, _ in uses],
        *[Row(f"rank_{u}", f"Place of {names[u]} in the order of value (0 first)", "place",
              "num", rank(j), row0(g[f"rank_{u}"]), gated=True)
          for j, (u, _, _) in enumerate(uses)],
        *got,
    ]


def use_rows(a: Assumptions, r: Results) -> list[Declaration]:
    """Average MW by use, idle MW and utilisation; adoption from the subscribers' MW."""
    used = "([mw_api]+[mw_subscriber]+[mw_backfill_peak]+[mw_free]+[mw_backfill_flexible])"
    util = np.nan_to_num(row0(r.utilization))  # 0 where no MW is online
    util[r.utilization.shape[1] + 1 :] = 0.0  # beyond the horizon either
    util[0] = np.nan  # month 0: no formula
    pick = "CHOOSE([rank_{u}]+1,[got0],[got1],[got2],[got3])"
    return [
        Section("MW by use each month (average MW)"),
        Row("mw_api", "API", "MW", "num1", pick.format(u="a"), row0(r.mw_api)),
        Row("mw_subscriber", "Subscriber streams", "MW", "num1", pick.format(u="s"),
            row0(r.mw_subscriber)),
        Row("mw_backfill_peak", "Peak-shaped moved traffic", "MW", "num1", pick.format(u="p"),
            row0(r.mw_backfill_peak)),
        Row("mw_free", "The free tier's moved traffic", "MW", "num1", pick.format(u="r"),
            row0(r.mw_free)),
        Row("mw_backfill_flexible", "Flexible moved traffic", "MW", "num1",
            "IF([rho_f]>0,MIN([bf_cap],MAX([mw]-([got0]+[got1]+[got2]+[got3]),0)),0)",
            row0(r.mw_backfill_flexible)),
        Row("mw_idle", "Idle", "MW", "num1", f"MAX([mw]-{used},0)", row0(r.mw_idle)),
        Row("util", "Utilisation of the contract (0: no MW online)", "share",
            "pct", f"IF([mw]>0,{used}/[mw],0)", util),
    ]


def adoption_rows(a: Assumptions, r: Results) -> list[Declaration]:
    """Ultrafast adoption and the Pro stocks with and without the deal (sections 0.5, 5.6)."""
    start = float(a.num("market.pro_subscribers_start"))
    af, churn = "tiers_fast_adoption", "conversion_pro_churn_monthly"
    lower = "plans.pro_lower.price_usd_month" in a.values
    hits = "(1-{af}-[adoption])*[sf_{t}_standard]+{af}*[sf_{t}_fast]+[adoption]*[sf_{t}_ultrafast]"
    pro_h = hits.format(af=af, t="pro")
    if lower:  # the Pro stock mixes the two Pro tiers (section V4.7)
        pro_h = (f"(1-conversion_lower_pro_share)*({pro_h})"
                 f"+conversion_lower_pro_share*({hits.format(af=af, t='low')})")
    conv = "(pro_price_factor*pro_base_upgrade+pro_price_factor*pro_capped_propensity*[{h}])*[pool]"
    return [
        Section("Ultrafast adoption and the Pro stocks: with the deal and the no-deal path"),
        Row("adoption", "Ultrafast adoption, a_u,t", "share", "pct",
            "IF([need]>0,[mw_subscriber]/[need],0)", row0(r.ultrafast_adoption)),
        Row("h0", "Plus cap-hit share without the tier, h0_t", "share", "pct",
            f"(1-{af})*[sf_plus_standard]+{af}*[sf_plus_fast]",
            row0(r.plus_cap_hit_counterfactual), gated=True),
        Row("h", "Plus cap-hit share with the tier, h_t", "share", "pct", "[h0]+[adoption]*[lift]",
            row0(r.plus_cap_hit), gated=True),
        Row("h_up", "... as upgrades see it: the deal's extra cap hits weighted (V4.7)", "share",
            "pct", "[h0]+[adoption]*[lift]*conversion_voluntary_cap_hit_weight",
            row0(r.plus_cap_hit_counterfactual + r.ultrafast_adoption * _lift(r)
                 * a.num("conversion.voluntary_cap_hit_weight")), gated=True),
        Row("pro", "Pro subscribers with the deal, P_t", "users", "num",
            f"[pro-1]*(1-{churn})-(1-[in_term])*conversion_extra_churn_after_term_monthly"
            f"*MAX([pro-1]-[pro0-1],0)+{conv.format(h='h_up')}",
            pad_months(r.pro[0], start), opening="market_pro_subscribers_start", gated=True),
        Row("pro0", "Pro subscribers without the deal, P0_t", "users",
            "num", f"[pro0-1]*(1-{churn})+{conv.format(h='h0')}",
            pad_months(r.pro_counterfactual[0], start), opening="market_pro_subscribers_start",
            gated=True),
        Row("dpro", "Incremental Pro subscribers, dP_t", "users", "num", "[pro]-[pro0]",
            row0(r.incremental_pro), opening="[pro]-[pro0]"),
        Row("eligible", "Eligible for faster tiers, E_t = N_t + P_(t-1)", "users",
            "num", "[pool]+[pro-1]", row0(r.eligible), gated=True),
        Row("pro_h", "Pro cap-hit share with the tier" + (" (both Pro tiers)" if lower else ""),
            "share", "pct", pro_h, row0(r.pro_cap_hit), gated=True),
    ]


def stream_rows(a: Assumptions, r: Results) -> list[Declaration]:
    """Incremental revenue (sections 0.4, 6): Pro upgrades and the API's fee-bearing revenue."""
    P = r.parts
    return [
        Section("Incremental revenue"),
        Row("sub", "Pro upgrades (the Pro tiers' mix price minus Plus), sub_t", "USD", "usd_m",
            "[dpro]*(mkt_pro_price-plans_plus_price_usd_month)",
            row0(r.subscription_revenue),
            check=Check("Pro upgrade revenue against added Pro x the price step",
                        "SUM([dpro:])*(mkt_pro_price-plans_plus_price_usd_month)")),
        Row("api_served", "API tokens served, V*_t", "tokens/month", "tok_t",
            "[mw_api]*[per_mw_u_t]", row0(r.api_tokens_served)),
        Row("api_streams", "API peak streams, S_api,t", "streams", "num",
            f"[api_served]*{PTA}/(served_ultrafast*{SPM})", row0(r.api_streams_peak)),
        Row("api", "Net ultrafast API revenue at the month's prices, api_t",
            "USD", "usd_m", f"[api_served]*[pi]*mkt_revenue_per_token/{PER_M}", row0(r.api_revenue),
            check=Check("API revenue against tokens served x the price index x net revenue a token",
                        f"SUMPRODUCT([api_served:],[pi:])*mkt_revenue_per_token/{PER_M}")),
        Row("api_gpu", "GPU cost the diverted API tokens no longer take", "USD", "usd_m",
            f"[api_served]*[ci]*[api_gpu_c]/{PER_M}", row0(P["api_gpu"])),
    ]


def gpu_rows(a: Assumptions, r: Results) -> list[Declaration]:
    """Moved traffic and the GPU fleet (sections 0.2, 5.7-5.9, V4.3): every token crossing the
    boundary at one value per freed GPU-hour, at the month's cost index."""
    P = r.parts
    gr = "free_alternative_cost_per_mtok_usd"
    value = (f"([backfill_peak]*[g_std_c]+[backfill_flexible]*[g_flex_c]+[free_moved]*{gr})"
             f"*[ci]/{PER_M}")
    return [
        Section("Moved traffic and the GPU fleet"),
        Row("sub_streams", "Subscribers' peak ultrafast streams", "streams", "num",
            f"[adoption]*[all_adopt]*{PTA}", row0(r.subscriber_streams_peak)),
        Row("adopter_tokens", "Ultrafast adopters' tokens", "tokens/month", "tok_t",
            f"[sub_streams]/{PTA}*served_ultrafast*{SPM}", row0(P["adopter_tokens"])),
        Row("backfill_peak", "Peak-shaped standard tokens moved onto the contract",
            "tokens/month", "tok_t", "[mw_backfill_peak]*[per_mw_b_t]", row0(P["backfill_peak"])),
        Row("backfill_flexible", "Flexible tokens moved onto the contract", "tokens/month",
            "tok_t", "[mw_backfill_flexible]*[per_mw_b_t]", row0(P["backfill_flexible"])),
        Row("free_moved", "The free tier's tokens moved onto the contract", "tokens/month",
            "tok_t", "[mw_free]*[per_mw_b_t]", row0(P["free_moved"])),
        Row("backfill", "Moved traffic carried, Bf_t", "tokens/month", "tok_t",
            "[backfill_peak]+[backfill_flexible]+[free_moved]", row0(r.backfill_tokens)),
        Row("backfill_usd", "GPU cost the moved traffic saves", "USD", "usd_m", value,
            row0(r.backfill_usd),
            check=Check("GPU cost the moved traffic saves: its total against the tokens moved",
                        f"SUMPRODUCT([backfill_peak:]*[g_std_c:]+[backfill_flexible:]"
                        f"*[g_flex_c:]+[free_moved:]*{gr},[ci:])/{PER_M}")),
        Row("added", "Tokens the incremental Pro add to the GPU fleet", "tokens/month", "tok_t",
            f"[dpro]*([w_pro_standard]-[w_plus_standard])*({SPM}/{SPW})",
            row0(r.tokens_added_to_gpus)),
        Row("moved", "Tokens moved off the GPU fleet", "tokens/month", "tok_t",
            "[backfill]+[adopter_tokens]/phi_ultrafast"
            "+[api_served]*(api_diversion_standard+api_diversion_fast)",
            row0(r.tokens_moved_off_gpus)),
        Row("gpu", "GPU cost avoided, net, gpu_t", "USD", "usd_m",
            f"([adopter_tokens]/phi_ultrafast*[g_std_c]-[added]*[g_std_t])*[ci]/{PER_M}"
            "+[backfill_usd]+[api_gpu]",
            row0(r.gpu_savings),
            check=Check("GPU cost avoided: its total against the tokens it counts",
                        "SUMPRODUCT([adopter_tokens:]/phi_ultrafast*[g_std_c:]-[added:]"
                        f"*[g_std_t:],[ci:])/{PER_M}+SUM([backfill_usd:])+SUM([api_gpu:])")),
        Row("tokens_served", "Tokens served on the contract, U_t", "tokens/month", "tok_t",
            "[api_served]+[adopter_tokens]+[backfill]", row0(r.tokens_served)),
    ]
# fmt: on


ROWS = (capacity_rows, demand_rows, api_rows, value_rows, allocation_rows, greedy_rows,
        use_rows, adoption_rows, stream_rows, gpu_rows)  # fmt: skip


# The cached values come from the model's results (Results and Results.parts): the figures of
# the allocation loop, the subscriber's value and the uses' values are the model's own.


def _v(x) -> float:
    return float(np.asarray(x, float).reshape(-1)[0])


def parts_of(r: Results, prefix: str) -> dict[str, np.ndarray]:
    """The parts named ``prefix``<name>, by <name>."""
    return {k.removeprefix(prefix): v for k, v in r.parts.items() if k.startswith(prefix)}


def offered(r: Results) -> float:
    """1 where the contract serves the ultrafast tier (a feasible served speed), else 0."""
    return 1.0 if np.isfinite(_v(r.served_multiplier)) else 0.0


def _lift(r: Results) -> np.ndarray:
    return np.asarray(r.parts["plus_hit.ultrafast"]) - np.asarray(r.parts["plus_hit.standard"])


def values(r: Results) -> dict[str, float]:
    """The value of an average MW-month of each use [USD] and the MW one stream takes, as the
    model's allocation used them."""
    P = r.parts
    out = {k: _v(P[k]) for k in ("per_mw_u", "per_mw_b")}
    out["moved_per_value"] = _v(P["allocation.moved_per_value"])
    out["mw_per_stream"] = _v(P["allocation.mw_per_stream"])
    return out


UNBOUNDED = 1e300  # the value of subscriber streams when they are offered first ('on')


def _rho_s(r: Results) -> np.ndarray:
    """rho_s as the allocation used it; offered first ('on'): unbounded, written as UNBOUNDED."""
    rho = np.asarray(r.parts["allocation.rho_s"])
    return np.where(np.isposinf(rho), UNBOUNDED, rho)


def ramp_and_tranche(a: Assumptions, ahead: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The two ways MW come online, at months 0..120 (month 0 blank) or, ``ahead`` = 1, at
    the month after each of them."""
    from econ.compute import capacity as cap

    t = np.arange(MONTHS + 1, dtype=float) + ahead
    t1 = np.maximum(t, 1.0)
    ramp = a.num("contract.ramp_months")
    ramp_v = np.where(ramp > 0, np.minimum(1.0, t1 / (ramp if ramp > 0 else 1.0)), 1.0)
    if "contract.tranche_mw" in a.values and "contract.tranche_months" in a.values:
        mw = a.num("contract.mw")
        online = cap.tranche_online(t1, mw, a.num("contract.tranche_mw"),
                                    a.num("contract.tranche_months"), np.inf)  # fmt: skip
        tranche_v = online / mw
    else:
        tranche_v = np.zeros(MONTHS + 1)
    if not ahead:
        ramp_v[0] = tranche_v[0] = np.nan  # no formula in month 0
    return ramp_v, tranche_v
