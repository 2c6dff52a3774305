"""The monthly chain as live formulas on one timeline of months 0..120: Revenue (capacity,
demand, adoption, Pro stocks, revenue, backfill, the GPU-fleet boundary), Costs (rent, buying
the same capacity, the lessor's yield) and Payback (cash, NPV, terminal value, IRR, payback).

Each sheet is a list of row declarations (econ/report/rows.py): one formula along months
1..120 and an opening column for month 0, with the Python model's values; flows beyond the
horizon are 0 (the in-horizon flag), so any horizon from the term to 120 months recomputes.
The declarations are tables, one row a line or two: kept out of the formatter's reach.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from xlsxwriter.utility import xl_rowcol_to_cell

from econ.assumptions import Assumptions
from econ.constants import HOURS_PER_MONTH, KW_PER_MW
from econ.model import Results
from econ.payback import BISECTION_STEPS, IRR_GRID, irr_trace, irr_unique, mirr
from econ.report import revenue_rows
from econ.report.revenue_rows import BOTH, ramp_and_tranche, schedule
from econ.report.rows import (
    Check,
    Declaration,
    Result,
    Row,
    Section,
    Solver,
    blank,
    held,
    months,
    render,
    row0,
)
from econ.report.workbook import write_formula
from econ.report.xl import FIRST_COL, MONTHS, Book, Timeline, excel_name, pad_months

SPM = "constant_seconds_per_month"
SPW = "constant_seconds_per_week"


def N(key: str) -> str:
    return excel_name(key)


# fmt: off
def calendar(a: Assumptions) -> list[Declaration]:
    """The flags every timeline sheet carries: in the horizon, in the term (1 = yes)."""
    m = months()
    out: list[Declaration] = []
    for name, label, key in (
        ("in_horizon", "In the horizon (1 = yes)", "horizon.months"),
        ("in_term", "In the term (1 = yes)", "contract.term_months"),
    ):
        flag = f"IF(AND({{m}}>=1,{{m}}<={N(key)}),1,0)"
        value = ((m >= 1) & (m <= int(a.values[key]))).astype(float)
        out.append(Row(name, label, "flag", "num", flag, value, opening=flag))
    return out



def _timeline(book: Book, ws, sheet: str, title: str, note: str, a: Assumptions) -> Timeline:
    """A monthly sheet: its title and note, the timeline from row 4 and the calendar rows."""
    ws.write_string(0, 0, title, book.styles("title"))
    ws.write_string(1, 0, note, book.styles("note"))
    tl = Timeline(book, ws, sheet, 4, sheet.lower())
    render(tl, calendar(a))
    return tl


def revenue_sheet(book: Book, ws, a: Assumptions, r: Results) -> Timeline:
    """Revenue: capacity online, demand per user, the API, the value of a subscriber, the MW by
    use each month, the Pro stocks with and without the deal, revenue, backfill, the GPU fleet."""
    title = "Revenue: capacity, quota burn, the API, MW by use, the Pro stocks, backfill and the GPU fleet (live formulas)"
    tl = _timeline(book, ws, "Revenue", title, NOTE, a)
    for part in revenue_rows.ROWS:
        render(tl, part(a, r))
    return tl


NOTE = "One formula along months 1..120 on the named inputs of Assumptions and the scalars of Capacity and Market; month 0 holds opening values; flows are 0 beyond the horizon."


def costs_sheet(book: Book, ws, a: Assumptions, r: Results, analysis: dict) -> Timeline:
    """Costs: the rent, and buying the same capacity instead (section 7)."""
    title = "Costs: the rent, and buying the same capacity instead (live formulas)"
    tl = _timeline(book, ws, "Costs", title, COSTS_NOTE, a)
    render(tl, rent_rows(a, r))
    render(tl, buy_rows(a, r, analysis))
    render(tl, buy_results(a, r, analysis))
    render(tl, rent_vs_buy_results(a, analysis))
    return tl


COSTS_NOTE = "Buying serves the same months as the rent (the term) on the same facility MW; its capex is spent at the end of the month before the MW come online."
DISCOUNT = "EXP(-{m}/constant_months_per_year*LN(1+finance_discount_rate_annual))"


def rent_rows(a: Assumptions, r: Results) -> list[Declaration]:
    return [
        Section("Rent"),
        Row("mw", "MW scheduled (from Revenue; buying buys the contracted MW)", "MW", "num1",
            "[revenue.mw_sched]", row0(r.parts["online_share"]) * a.num("contract.mw"),
            opening="0"),
        Row("d", "Discount factor, d_t", "-", "num4", f"[in_horizon]*{DISCOUNT}",
            pad_months(r.discount[0], 1.0), opening=DISCOUNT),
        Row("rent", "Rent, R_t (as delivered, or take-or-pay: flat, owed in full)", "USD",
            "usd_m",
            'IF(contract_payment="take_or_pay",[in_term]*contract_value_usd/contract_term_months,'
            "contract_value_usd*contract_delivered_share*[revenue.mw_sched]"
            "/SUM([revenue.mw_sched:]))",
            row0(r.rent)),
    ]


def buy_rows(a: Assumptions, r: Results, analysis: dict) -> list[Declaration]:
    flows = analysis["cost_flows"]
    owner = analysis["owner_flows"]
    ramp, tranche = schedule("({m}+1)")
    ramp_v, tranche_v = ramp_and_tranche(a, ahead=1)

    def ahead(x) -> np.ndarray:  # months 1..120 of the model's row, a month earlier
        return np.append(pad_months(np.asarray(x))[1:], 0.0)

    # the model's share online (0 after the term), and its capex for the MW that come online
    # in month t + 1, which is spent at the end of month t
    online_next = ahead(r.parts["online_share"][0])
    share = ahead(flows["buy_capex_share"])
    capex = ahead(flows["buy_capex_usd_at_previous_month_end"])
    return [
        Section("Buying the same capacity"),
        Row("ramp_next", "Share online next month on a linear ramp", "share", "pct", ramp,
            ramp_v, opening=ramp),
        Row("tranche_next", "Share online next month in tranches (0: no tranches)", "share",
            "pct", tranche, tranche_v, opening=tranche),
        Row("online_next", "Share of the MW online next month (in the term)",
            "share", "pct", NEXT, online_next, opening=NEXT),
        Row("capex_share", "Capex share spent at the month's end",
            "share", "pct", CAPEX_SHARE, share, opening=CAPEX_SHARE),
        Row("capex", "Capex spent at the month's end", "USD", "usd_m", CAPEX, capex,
            opening=CAPEX),
        Row("opex", "Opex: power and maintenance", "USD", "usd_m",
            "[in_term]*([mw]*constant_kw_per_mw*constant_hours_per_month*buy_power_price_usd_per_kwh"
            "+buy_maintenance_share_annual/constant_months_per_year*buy_hardware_usd)",
            pad_months(flows["buy_opex_usd"])),
        Row("residual", "Residual value (at the end of the term)", "USD", "usd_m",
            "IF({m}=contract_term_months,buy_residual_usd,0)",
            pad_months(flows["buy_residual_usd"])),
        Row("owner", "The lessor's cash: - capex, rent - opex, + residual", "USD", "usd_m",
            "-[capex]+[rent]-[opex]+[residual]",
            np.concatenate([owner, np.zeros(MONTHS + 1 - owner.size)]), opening="-[capex]"),
    ]


NEXT = f"IF({{m}}+1<=contract_term_months,IF({BOTH},[tranche_next],[ramp_next]),0)"
CAPEX_SHARE = "MAX([online_next]-[mw]/contract_mw,0)"
CAPEX = "[capex_share]*(buy_hardware_usd+buy_facility_usd)"


D_TERM = "buy_d_term"  # the discount factor at the end of the term (a named result)
LIFE = "MAX(0,1-contract_term_months/(constant_months_per_year*{life}))"
POWER = "constant_kw_per_mw*constant_hours_per_month*buy_power_price_usd_per_kwh"


def buy_results(a: Assumptions, r: Results, analysis: dict) -> list[Declaration]:
    rb = analysis["rent_vs_buy"]
    hw = float(rb["systems"]) * a.num(f"hardware.{a.values['contract.platform']}.price_usd")
    fac_life = LIFE.format(life="buy_facility_life_years")
    v = _buy_values(a, r, analysis)
    return [
        Section("Results", narrow=True),
        Result("buy_systems", "Systems bought", "systems", "num",
               "contract_mw*constant_kw_per_mw/facility_pue/cap_power_kw", rb["systems"]),
        Result("buy_hardware_usd", "Hardware capex", "USD", "usd_b", "buy_systems*cap_price_usd",
               hw),
        Result("buy_facility_usd", "Facility capex", "USD", "usd_b",
               "contract_mw*buy_facility_capex_usd_per_mw",
               a.num("contract.mw") * a.num("buy.facility_capex_usd_per_mw")),
        Result("buy_d_term", "Discount factor at the end of the term", "-", "num4",
               "[d@contract_term_months]", v["d_term"]),
        Result("buy_capex_pv_per_usd", "PV of a dollar of capex on its schedule",
               "USD/USD", "num4", "SUMPRODUCT([capex_share:0],[d:0])", v["capex_pv"]),
        Result("buy_term_discount_months", "Discount factors summed over the term", "months",
               "num2", "SUMPRODUCT([in_term:],[d:])", v["term_d"]),
        Result("buy_power_pv_usd", "Present value of the power bill over the term", "USD",
               "usd_b", f"SUMPRODUCT([mw:],[in_term:],[d:])*{POWER}", v["power_pv"]),
        Result("buy_residual_usd", "Residual value at the end of the term", "USD", "usd_b",
               f"buy_hardware_usd*{LIFE.format(life='cap_life_years')}*buy_resale_share"
               f"+buy_facility_usd*{fac_life}", rb["buy_residual_usd"]),
        Result("rent_npv_usd", "NPV of the rent", "USD", "usd_b", "SUMPRODUCT([rent:],[d:])",
               rb["rent_npv_usd"], match="NPV of the rent [USD]"),
        Result("buy_npv_usd", "NPV of buying", "USD", "usd_b",
               f"SUMPRODUCT([capex:0],[d:0])+SUMPRODUCT([opex:],[d:])-buy_residual_usd*{D_TERM}",
               rb["buy_npv_usd"], match="NPV of buying [USD]"),
        Result("rent_usd_per_mw_month", "Rent per MW-month (contract terms)", "USD/MW-month",
               "usd", "contract_value_usd/(contract_mw*contract_term_months)",
               rb["rent_usd_per_mw_month"]),
        Result("rent_usd_per_delivered_mw_month", "Rent per delivered MW-month", "USD/MW-month",
               "usd", "SUM([rent:])/(SUM([mw:])*contract_delivered_share)",
               rb["rent_usd_per_delivered_mw_month"]),
        Result("buy_usd_per_delivered_mw_month", "Buying per delivered MW-month (levelised)",
               "USD/MW-month", "usd", "buy_npv_usd/SUMPRODUCT([mw:],[d:])",
               rb["buy_usd_per_delivered_mw_month"]),
    ]


def _buy_values(a: Assumptions, r: Results, analysis: dict) -> dict[str, float]:
    """The Python values of the intermediate results of buying, from the rows' own values."""
    flows = analysis["cost_flows"]
    T = int(a.values["contract.term_months"])
    m = months()
    d = pad_months(r.discount[0], 1.0)
    in_term = ((m >= 1) & (m <= T)).astype(float)
    share = pad_months(flows["buy_capex_share"].to_numpy())  # at the end of the month before
    power = KW_PER_MW * HOURS_PER_MONTH * a.num("buy.power_price_usd_per_kwh")
    return {
        "d_term": float(d[T]),
        "capex_pv": float(np.sum(share[1:] * d[:-1])),
        "term_d": float(np.sum(in_term[1:] * d[1:])),
        "power_pv": float(np.sum(row0(r.mw_online)[1:] * in_term[1:] * d[1:])) * power,
    }


def rent_vs_buy_results(a: Assumptions, analysis: dict) -> list[Declaration]:
    rb = analysis["rent_vs_buy"]
    trace = irr_trace(analysis["owner_flows"])
    fac_life = LIFE.format(life="buy_facility_life_years")
    hw_life = LIFE.format(life="cap_life_years")
    be = "(rent_npv_usd-buy_npv_at_zero_price_usd)/buy_npv_per_usd_of_price"
    return [
        Result("buy_npv_at_zero_price_usd", "NPV of buying with free hardware", "USD", "usd_b",
               "buy_facility_usd*buy_capex_pv_per_usd+buy_power_pv_usd"
               f"-buy_facility_usd*{fac_life}*{D_TERM}",
               rb["buy_npv_at_zero_price_usd"]),
        Result("buy_npv_per_usd_of_price", "NPV of buying per dollar of system price", "USD/USD",
               "num2",
               "buy_systems*(buy_capex_pv_per_usd+buy_maintenance_share_annual"
               f"/constant_months_per_year*buy_term_discount_months-{hw_life}*buy_resale_share*{D_TERM})",
               rb["buy_npv_per_usd_of_price"]),
        Result("breakeven_system_price_usd",
               "Break-even system price (blank: none)", "USD", "usd",
               f'IF(AND(buy_npv_per_usd_of_price>0,{be}>0),{be},"")',
               blank(rb["breakeven_system_price_usd"]), match="Break-even system price [USD]"),
        Result("lessor_yield_annual",
               "The lessor's yield, IRR (blank: none)",
               "1/yr", "pct",
               'IF(lessor_irr_root="","",(1+IRR([owner:0],EXP(lessor_irr_root)-1))^constant_months_per_year-1)',
               "" if trace.interval is None else float(np.expm1(12 * trace.y)),
               match="Lessor's yield [1/yr]"),
        Solver("lessor_irr_root", "The lessor's cash", "[owner:0]", 1, trace),
        Result("rent_and_price_consistent", "Finding: rent covers buying (yield >= 0)",
               "TRUE/FALSE", "bool", "AND(ISNUMBER(lessor_yield_annual),N(lessor_yield_annual)>=0)",
               bool(rb["rent_and_price_consistent"])),
    ]


def payback_sheet(book: Book, ws, a: Assumptions, r: Results, head: dict) -> Timeline:
    """Payback: cash flow, cumulative cash, NPV with the Pro tail, IRR, payback (section 6)."""
    title = "Payback: cash flow, cumulative cash, NPV with the Pro tail, IRR, payback (live formulas)"
    tl = _timeline(book, ws, "Payback", title, PAYBACK_NOTE, a)
    render(tl, cash_rows(a, r))
    for part in (payback_results(a, r, head), npv_results(a, r, head),
                 capacity_results(a, r, head), bridge(a, r, head)):
        # blank when the live model cannot compute the choices made (Checks)
        render(tl, [replace(d, guard=True) if isinstance(d, Result) else d for d in part])
    return tl


PAYBACK_NOTE = "Payback is the lasting recovery: the month after the last month with cumulative cash below zero, interpolated; blank where cash ends short."
KEEP = "(1-finance_variable_cost_share)"
USES = ("api", "subscriber", "backfill_peak", "backfill_flexible", "free", "idle")
H = "horizon_months"


def cash_rows(a: Assumptions, r: Results) -> list[Declaration]:
    P = r.parts
    last_neg = "IF(AND([in_horizon]=1,[{cum}]<0),{{m}},[{name}-1])"
    return [
        Section("Cash (money out negative)"),
        Row("cash_in", "Cash in: Pro and API, after variable costs", "USD",
            "usd_m", f"([revenue.sub]+[revenue.api])*{KEEP}",
            row0(np.asarray(r.cash_flow) + np.asarray(r.rent)),
            check=Check("Cash in: its total against the streams' totals (Revenue)",
                        f"(SUM([revenue.sub:])+SUM([revenue.api:]))*{KEEP}")),
        Row("rent", "Rent paid (money out; from Costs)", "USD", "usd_m", "-[costs.rent]",
            row0(-np.asarray(r.rent)),
            check=Check("Rent on Payback: its total against minus the value owed",
                        'IF(contract_payment="take_or_pay",-contract_value_usd,-contract_value_usd*contract_delivered_share)')),
        Row("cash", "Cash flow (cash only): cash in + rent", "USD", "usd_m",
            "[cash_in]+[rent]", row0(r.cash_flow)),
        Row("cum_cash", "Cumulative cash only", "USD", "usd_m", "[cum_cash-1]+[cash]",
            held(r.cumulative_cash_only), opening="0"),
        Row("last_neg_cash", "Last month cash only below zero so far", "month",
            "num", last_neg.format(cum="cum_cash", name="last_neg_cash"),
            held(P["last_negative_month_cash"]), opening="0"),
        Section("Value: the GPU cost avoided (not cash: GPU-hours the lab need not pay for)"),
        Row("gpu", "GPU cost avoided, net (from Revenue)", "USD", "usd_m", "[revenue.gpu]",
            row0(r.gpu_savings)),
        Row("cf", "Net flow the NPV counts, CF_t: cash + value", "USD",
            "usd_m", "[cash]+[gpu]", row0(r.net_cash_flow),
            check=Check("Net flow: its total against cash in, rent and GPU cost avoided",
                        "SUM([cash_in:])+SUM([rent:])+SUM([gpu:])")),
        Row("cum", "Cumulative net flow, K_t", "USD", "usd_m", "[cum-1]+[cf]",
            held(r.cumulative_cash), opening="0"),
        Row("d", "Discount factor (from Costs)", "-", "num4", "[costs.d]",
            pad_months(r.discount[0], 1.0), opening="[costs.d]"),
        Row("dcf", "Discounted cash flow", "USD", "usd_m", "[cf]*[d]",
            row0(r.discounted_cash_flow),
            check=Check("Discounted cash flow: its total against SUMPRODUCT of cash and factors",
                        "SUMPRODUCT([cf:],[d:])")),
        Row("dcum", "Cumulative discounted cash", "USD", "usd_m", "[dcum-1]+[dcf]",
            held(r.cumulative_discounted_cash), opening="0"),
        Row("last_neg", "Last month with cumulative cash below zero so far", "month", "num",
            last_neg.format(cum="cum", name="last_neg"), held(P["last_negative_month"]),
            opening="0"),
        Row("dlast_neg", "... of cumulative discounted cash", "month", "num",
            last_neg.format(cum="dcum", name="dlast_neg"),
            held(P["last_negative_month_discounted"]), opening="0"),
        Row("irr_flows", "IRR flows: CF_t, terminal value at H", "USD",
            "usd_m", f"[cf]+IF({{m}}={H},finance_terminal_value*N(terminal_value_usd),0)",
            row0(P["irr_flows"]), opening="0"),  # MIRR's first value: nothing at month 0
    ]


def payback_results(a: Assumptions, r: Results, head: dict) -> list[Declaration]:
    P = r.parts
    pay = ('IF(last_negative_month=0,0,IF(cumulative_cash_at_horizon_usd<0,"",'
           "last_negative_month-[cum@last_negative_month]/[cf@last_negative_month+1]))")
    cash_pay = ('IF(last_negative_month_cash=0,0,IF(cash_only_at_horizon_usd<0,"",'
                "last_negative_month_cash-[cum_cash@last_negative_month_cash]"
                "/[cash@last_negative_month_cash+1]))")
    dpay = ('IF(last_negative_month_discounted=0,0,IF(discounted_cash_at_horizon_usd<0,"",'
            "last_negative_month_discounted-dcum_at_last_negative_usd/dcf_after_last_negative_usd))")
    ld = int(P["last_negative_month_discounted"][0][-1])
    H_ = int(a.values["horizon.months"])
    dcum, dcf = held(r.cumulative_discounted_cash), row0(r.discounted_cash_flow)
    return [
        Section("Results", narrow=True),
        Result("cash_only_at_horizon_usd", "Cumulative cash only at the horizon", "USD",
               "usd_b", f"[cum_cash@{H}]", float(np.asarray(r.cumulative_cash_only)[0][-1])),
        Result("last_negative_month_cash", "Last month cash only below zero",
               "month", "num", f"[last_neg_cash@{H}]",
               float(P["last_negative_month_cash"][0][-1])),
        Result("cash_payback_months", "Cash payback month (blank: none)", "month",
               "num1", cash_pay, blank(head["cash_payback_months"]),
               match="Cash payback month"),
        Result("cumulative_cash_at_horizon_usd",
               "Cumulative net flow at the horizon", "USD",
               "usd_b", f"[cum@{H}]", head["cumulative_cash_at_horizon_usd"]),
        Result("cumulative_cash_at_term_usd", "... at the end of the term", "USD",
               "usd_b", "[cum@contract_term_months]", head["cumulative_cash_at_term_usd"]),
        Result("shortfall_usd", "Shortfall at the horizon", "USD", "usd_b",
               "MAX(0,-cumulative_cash_at_horizon_usd)", head["shortfall_usd"],
               match="Shortfall [USD]"),
        Result("last_negative_month", "Last month with cumulative cash below zero", "month",
               "num", f"[last_neg@{H}]", float(P["last_negative_month"][0][-1])),
        Result("payback_months",
               "Economic payback month (blank: none)", "month",
               "num1",
               pay, blank(head["payback_months"]), match="Payback month"),
        Result("pays_back", "Pays back within the horizon", "TRUE/FALSE", "bool",
               "ISNUMBER(payback_months)", head["payback_months"] is not None),
        Result("max_deficit_usd", "Peak cash need: the deepest point of cumulative cash", "USD",
               "usd_b", "MAX(0,-MIN([cum:]))", head["max_deficit_usd"]),
        Result("max_deficit_month", "... in month (blank: never below zero)", "month", "num",
               'IF(max_deficit_usd=0,"",MATCH(MIN([cum:]),[cum:],0))',
               "" if head["max_deficit_month"] is None else float(head["max_deficit_month"])),
        Result("last_negative_month_discounted", "... of discounted cash", "month", "num",
               f"[dlast_neg@{H}]", float(P["last_negative_month_discounted"][0][-1])),
        Result("discounted_cash_at_horizon_usd", "Cumulative discounted cash at the horizon",
               "USD", "usd_b", f"[dcum@{H}]", float(dcum[H_])),
        Result("dcum_at_last_negative_usd", "Cumulative discounted cash in that month", "USD",
               "usd_b", "[dcum@last_negative_month_discounted]", float(dcum[ld])),
        Result("dcf_after_last_negative_usd",
               "Discounted cash flow the month after (0 at H)", "USD",
               "usd_b", f"IF(last_negative_month_discounted<{H},"
               "[dcf@last_negative_month_discounted+1],0)", float(dcf[ld + 1]) if ld < H_ else 0.0),
        Result("discounted_payback_months", "Discounted payback month (blank: none)", "month",
               "num1", dpay, blank(head["discounted_payback_months"]),
               match="Discounted payback month"),
    ]


def npv_results(a: Assumptions, r: Results, head: dict) -> list[Declaration]:
    P = r.parts
    c = "(conversion_pro_churn_monthly+conversion_extra_churn_after_term_monthly)"
    tv = f"finance_terminal_value*terminal_value_usd*[d@{H}]"
    trace = irr_trace(P["irr_flows"][0])
    return [
        Result("monthly_rate", "Monthly discount rate, r_m", "1/month", "pct3",
               "EXP(LN(1+finance_discount_rate_annual)/constant_months_per_year)-1",
               float(P["monthly_rate"][0])),
        Result("terminal_margin_usd", "Monthly margin of a Pro upgrade at the horizon, m_H",
               "USD/month", "usd2", f"[revenue.margin@{H}]", float(P["terminal_margin"][0])),
        Result("terminal_value_usd", "Terminal value of the Pro tail at the horizon, TV", "USD",
               "usd_b", f"[revenue.dpro@{H}]*terminal_margin_usd*(1-{c})/(monthly_rate+{c})",
               head["terminal_value_usd"], match="Terminal value [USD]"),
        Result("npv_without_terminal_value_usd", "NPV without the terminal value", "USD",
               "usd_b", "SUM([dcf:])", head["npv_without_terminal_value_usd"],
               match="NPV without the terminal value [USD]"),
        Result("npv_usd", "NPV", "USD", "usd_b", f"npv_without_terminal_value_usd+{tv}",
               head["npv_usd"], match="NPV [USD]"),
        Result("npv_at_term_usd", "NPV of the term alone", "USD", "usd_b",
               "SUMPRODUCT([dcf:],[in_term:])", head["npv_at_term_usd"]),
        *irr_results(a, r),
        Solver("irr_root", "The flows for the IRR", "[irr_flows:]", 0, trace),
        Result("profitability_index", "Profitability index (1 = break-even)", "-", "num2",
               f"(SUMPRODUCT([cash_in:],[d:])+SUMPRODUCT([gpu:],[d:])+{tv})/rent_npv_usd", head["profitability_index"],
               match="Profitability index"),
        Result("realised_cost_per_mtok_usd", "Realised cost per million tokens served",
               "USD/M tokens", "usd2",
               'IF(SUM([revenue.tokens_served:])>0,-constant_tokens_per_million*SUM([rent:])'
               '/SUM([revenue.tokens_served:]),"")',
               head["realised_cost_per_mtok_usd"]),
        Result("simple_breakeven_pro_users", "Pro users to pay the contract (the articles)",
               "users", "num",
               "contract_value_usd/(plans_pro_price_usd_month*contract_term_months)",
               head["simple_breakeven_pro_users"]),
        Result("simple_breakeven_share_of_mau", "... as a share of monthly active users", "share",
               "pct3", "simple_breakeven_pro_users/market_mau",
               head["simple_breakeven_share_of_mau"]),
    ]


def irr_results(a: Assumptions, r: Results) -> list[Declaration]:
    """The IRR where a live criterion finds one root that is a rate of return (docs/model.md, section 0.7:
    the flows, or their running sum up to H, change sign once from out to in), and MIRR."""
    P = r.parts
    flows0 = np.asarray(P["irr_flows"][0], float)
    trace = irr_trace(flows0)
    both = (flows0 > 0).any() and (flows0 < 0).any()
    criterion = -1 if not both else 1 if irr_unique(flows0) else 0
    k_ = f"([cum:]+(timeline_months={H})*finance_terminal_value*terminal_value_usd)"
    cum = np.asarray(r.cumulative_cash[0], float).copy()  # months 1..H, the TV at H
    cum[-1] += a.num("finance.terminal_value") * float(np.asarray(r.terminal_value).reshape(-1)[0])
    f_ = "[irr_flows:]"
    mirr0 = mirr(flows0, float(P["monthly_rate"][0]))
    return [
        *sign_changes("irr", "IRR flows", f_, flows0),
        *sign_changes("irr_cum", "Their running sum", k_, cum),
        Result("irr_criterion", "IRR criterion (1 unique, 0 none, -1 no sign change)", "-", "num",
               f'IF(OR(COUNTIF({f_},"<0")=0,COUNTIF({f_},">0")=0),-1,'
               "IF(OR(irr_changes_once,irr_cum_changes_once),1,0))",
               float(criterion)),
        Result("irr_annual", "IRR, annualised (blank: none or not meaningful)",
               "1/yr", "pct",
               'IF(OR(irr_root="",irr_criterion<>1),"",(1+IRR([irr_flows:],EXP(irr_root)-1))'
               "^constant_months_per_year-1)",
               "" if trace.interval is None or criterion != 1 else float(np.expm1(12 * trace.y)),
               match="IRR [1/yr]"),
        Result("mirr_annual", "MIRR, annualised, at the discount rate (blank: none)", "1/yr", "pct",
               "IFERROR((1+MIRR([irr_flows@0]:[irr_flows@horizon_months],monthly_rate,"
               'monthly_rate))^constant_months_per_year-1,"")',
               "" if not np.isfinite(mirr0) else float(np.expm1(12 * np.log1p(mirr0))),
               match="MIRR [1/yr]"),
    ]


def sign_changes(name: str, what: str, x: str, values: np.ndarray) -> list[Declaration]:
    """The last month within the horizon where ``x`` (a span template) is below zero (0: none)
    and the first where it is above zero (above the horizon: none); ``values`` months 1..H."""
    m = "timeline_months"
    v = np.asarray(values, float)
    t = np.arange(1, v.size + 1)
    out = t[v < 0]
    into = t[v > 0]
    last_out = int(out.max()) if out.size else 0
    first_in = int(into.min()) if into.size else int(1 + MONTHS)
    return [
        Result(f"{name}_last_out", f"{what}: last month below zero (0: none)", "month", "num",
               f"SUMPRODUCT(MAX(({x}<0)*({m}<={H})*{m}))", float(last_out)),
        Result(f"{name}_first_in",
               f"{what}: first month above zero (>H: none)", "month", "num",
               f"SUMPRODUCT(MIN({m}+constant_horizon_max_months*(1-({x}>0)*({m}<={H}))))",
               float(first_in)),
        Result(f"{name}_changes_once", f"{what}: one sign change, out to in",
               "TRUE/FALSE", "bool",
               f"AND({name}_last_out>0,{name}_first_in<={H},{name}_last_out<{name}_first_in)",
               bool(0 < last_out < first_in <= int(v.size))),
    ]


def capacity_results(a: Assumptions, r: Results, head: dict) -> list[Declaration]:
    lim, tot = head["capacity_limits"], head["totals"]
    tol = "constant_check_tolerance"
    lost = "SUM([revenue.api_wanted:])-SUM([revenue.api_served:])"
    return [
        Result("cap_api_tokens_wanted", "API tokens wanted over the term", "tokens", "tok_t",
               "SUM([revenue.api_wanted:])", tot["api_tokens_wanted"]),
        Result("cap_api_tokens_lost", "API tokens turned away for lack of capacity", "tokens",
               "tok_t", f"IF({lost}>{tol}*SUM([revenue.api_wanted:]),{lost},0)",
               lim["api_tokens_lost"]),
        Result("cap_adoption_capped_months", "Months the capacity holds adoption below its share",
               "months", "num",
               f"SUMPRODUCT([in_term:]*([revenue.adoption:]<tiers_ultrafast_adoption*(1-{tol})))",
               lim["adoption_capped_months"]),
        Result("cap_peak_utilization", "Peak utilisation of the contract", "share", "pct",
               "MAX([revenue.util:])", tot["peak_utilization"]),
        Result("cap_term_average_utilization", "Average utilisation over the term, MW-weighted",
               "share", "pct",
               "SUMPRODUCT([revenue.util:],[revenue.mw:],[in_term:])/SUMPRODUCT([revenue.mw:],[in_term:])",
               tot["term_average_utilization"]),
        Result("cap_mw_months_api", "MW-months of the term: api", "MW-months", "num",
               "SUMPRODUCT([revenue.mw_api:],[in_term:])", float(tot["mw_months_api"])),
        Result("cap_mw_months_subscriber", "MW-months of the term: subscriber", "MW-months", "num",
               "SUMPRODUCT([revenue.mw_subscriber:],[in_term:])", float(tot["mw_months_subscriber"])),
        Result("cap_mw_months_backfill_peak", "MW-months of the term: backfill peak", "MW-months", "num",
               "SUMPRODUCT([revenue.mw_backfill_peak:],[in_term:])", float(tot["mw_months_backfill_peak"])),
        Result("cap_mw_months_backfill_flexible", "MW-months of the term: backfill flexible", "MW-months", "num",
               "SUMPRODUCT([revenue.mw_backfill_flexible:],[in_term:])", float(tot["mw_months_backfill_flexible"])),
        Result("cap_mw_months_free", "MW-months of the term: the free tier", "MW-months", "num",
               "SUMPRODUCT([revenue.mw_free:],[in_term:])", float(tot["mw_months_free"])),
        Result("cap_mw_months_idle", "MW-months of the term: idle", "MW-months", "num",
               "SUMPRODUCT([revenue.mw_idle:],[in_term:])", float(tot["mw_months_idle"])),
        Result("cap_mw_months_total", "MW-months of the term by use, in all (1 if none)", "MW-months",
               "num", "MAX(1,cap_mw_months_api+cap_mw_months_subscriber+cap_mw_months_backfill_peak"
               "+cap_mw_months_backfill_flexible+cap_mw_months_free+cap_mw_months_idle)",
               max(1.0, sum(float(tot[f"mw_months_{u}"]) for u in USES))),
        Result("cap_backfill_capped_months", "Months spare capacity limits the moved traffic",
               "months", "num",
               "SUMPRODUCT([in_term:]*([revenue.backfill:]<([revenue.moved_cap:]"
               f"+[revenue.in_term:]*capacity_movable_share*[revenue.free_d0:])*(1-{tol})))",
               lim["backfill_capped_months"]),
    ]


def bridge(a: Assumptions, r: Results, head: dict) -> list[Declaration]:
    """From revenue to the NPV in present values: each stream discounted, summing to the NPV
    (a reader can reconcile the answer line by line)."""
    d = r.discount[0]
    pv = lambda x: float(np.sum(np.asarray(x)[0] * d))  # noqa: E731
    v = a.num("finance.variable_cost_share")
    items = (
        ("bridge_subscription_usd", "Pro upgrades (subscription revenue)",
         "SUMPRODUCT([revenue.sub:],[d:])", pv(r.subscription_revenue)),
        ("bridge_api_usd", "Net ultrafast API revenue", "SUMPRODUCT([revenue.api:],[d:])",
         pv(r.api_revenue)),
        ("bridge_variable_costs_usd", "Variable costs (money out)",
         "-finance_variable_cost_share*(bridge_subscription_usd+bridge_api_usd)",
         -v * (pv(r.subscription_revenue) + pv(r.api_revenue))),
        ("bridge_gpu_usd", "GPU cost avoided, net", "SUMPRODUCT([revenue.gpu:],[d:])",
         pv(r.gpu_savings)),
        ("bridge_rent_usd", "Rent (money out)", "SUMPRODUCT([rent:],[d:])", -pv(r.rent)),
        ("bridge_terminal_value_usd", "Terminal value's present value (the Pro tail)",
         f"finance_terminal_value*terminal_value_usd*[d@{H}]",
         head["npv_usd"] - head["npv_without_terminal_value_usd"]),
    )
    return [
        Section("Bridge to the NPV: each stream in present value", narrow=True),
        *(Result(name, label, "USD", "usd_b", f, value) for name, label, f, value in items),
        Result("bridge_npv_usd", "NPV (the sum: equals the NPV above)", "USD", "usd_b",
               "+".join(name for name, *_ in items), sum(value for *_, value in items)),
    ]

# fmt: on


def irr_solver(
    book: Book, tl: Timeline, name: str, what: str, flows: str, shift: int, trace
) -> None:
    """The root IRR() is started at: the present value at each rate of econ's grid, the first
    interval below zero and the first above it where it changes sign, each bisected, and the
    nearer root to zero (payback.irr_trace, step by step). Spreadsheet IRR() alone starts
    Newton's method from a guess and can return a rate that is no root at all; started at
    this root it returns the root.
    ``flows`` is a row span; ``shift`` 1 when its first value is month 0 (periods start at 1)."""
    s = book.styles
    ws, r0 = tl.ws, tl.next + 1
    first_col = FIRST_COL + (0 if shift else 1)
    t = f"({_span(tl, tl.header, first_col, FIRST_COL + MONTHS)}+{shift})"  # the periods
    title = (
        f"IRR solver: {what}. Present value at each rate of the grid; the first sign change "
        "below zero and the first above it, each bisected; the root nearer zero."
    )
    ws.write_string(r0, 0, title, s("section"))
    sv = _IrrSolver(book, tl, flows, t, r0 + 2)
    sv.grid(trace)
    rr = r0 + 2 + len(IRR_GRID) + 1
    roots = []
    for side, bis in (("below", trace.below), ("above", trace.above)):
        rr, root = sv.bisection(rr, side, bis)
        roots.append(root)
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


def _span(tl: Timeline, row: int, first: int, last: int) -> str:
    a, b = (xl_rowcol_to_cell(row, c, True, True) for c in (first, last))
    return f"'{tl.sheet}'!{a}:{b}"


GRID_HEADER = ("grid point", "ln(1 + x)", "present value", "changes sign to the next",
               "below zero", "above zero")  # fmt: skip
STEP_HEADER = ("step", "lo", "hi", "PV at lo", "mid", "PV at mid")


class _IrrSolver:
    """The cells of one IRR solver: the grid of present values, then each side's bisection."""

    def __init__(self, book: Book, tl: Timeline, flows: str, t: str, top: int):
        self.book, self.tl, self.ws, self.s = book, tl, tl.ws, book.styles
        self.flows, self.t, self.top = flows, t, top

    def col(self, k: int) -> str:
        """Column k of the grid, every grid point."""
        return (
            _span(self.tl, self.top, k, k).split(":")[0]
            + ":"
            + xl_rowcol_to_cell(self.top + len(IRR_GRID) - 1, k, True, True)
        )

    def grid(self, trace) -> None:
        ws, s, n, pv = self.ws, self.s, len(IRR_GRID), trace.pv
        for j, h in enumerate(GRID_HEADER):
            ws.write_string(self.top - 1, j, h, s("h"))
        pos = pv > 0
        for j in range(n):
            rr = self.top + j
            c = lambda col, dr=0, rr=rr: xl_rowcol_to_cell(rr + dr, col)  # noqa: E731
            ws.write_number(rr, 0, j + 1)
            write_formula(
                ws, rr, 1, f"=INDEX(constant_irr_grid,{c(0)})", float(IRR_GRID[j]), s("num4")
            )
            write_formula(
                ws,
                rr,
                2,
                f"=SUMPRODUCT({self.flows},EXP(-{self.t}*{c(1)}))",
                float(pv[j]),
                s("sci"),
            )
            if j == n - 1:
                write_formula(ws, rr, 3, "=FALSE()", False)
                continue
            change = bool((pos[j] != pos[j + 1]) or pv[j] == 0)
            write_formula(ws, rr, 3, f"=OR(({c(2)}>0)<>({c(2, 1)}>0),{c(2)}=0)", change)
            below, above = change and IRR_GRID[j + 1] <= 0, change and IRR_GRID[j] >= 0
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

    def bisection(self, rr: int, side: str, bis) -> tuple[int, str]:
        """The first interval on ``side`` of zero and its bisection from row ``rr``; returns
        the next row and the cell of the root."""
        ws, s = self.ws, self.s
        cidx, pick = (4, "MAX") if side == "below" else (5, "MIN")
        one_sign = f'OR(COUNTIF({self.flows},">0")=0,COUNTIF({self.flows},"<0")=0)'
        ws.write_string(rr, 0, f"first interval {side} zero (blank: none)", s("bold"))
        write_formula(
            ws,
            rr,
            1,
            f'=IF(OR({one_sign},COUNT({self.col(cidx)})=0),"",{pick}({self.col(cidx)}))',
            "" if bis is None else bis.interval + 1,
            s("num"),
        )
        best = f"$B${rr + 1}"
        for j, h in enumerate(STEP_HEADER):
            ws.write_string(rr + 1, j, h, s("h"))
        for k in range(BISECTION_STEPS):
            self.step(rr + 2 + k, k, best, bis)
        last = rr + 1 + BISECTION_STEPS
        L = lambda cc: xl_rowcol_to_cell(last, cc)  # noqa: E731
        ws.write_string(last + 1, 0, f"root {side} zero, ln(1 + x) (blank: none)", s("bold"))
        root = f'IF({best}="","",IF(({L(5)}>0)=({L(3)}>0),({L(4)}+{L(2)})/2,({L(1)}+{L(4)})/2))'
        write_formula(ws, last + 1, 1, "=" + root, "" if bis is None else bis.y, s("num4"))
        return last + 3, f"$B${last + 2}"

    def step(self, r_: int, k: int, best: str, bis) -> None:
        """Bisection step k + 1: lo, hi, PV at lo, mid, PV at mid."""
        ws, s = self.ws, self.s
        c = lambda cc, dr=0: xl_rowcol_to_cell(r_ + dr, cc)  # noqa: E731
        v = lambda arr: 0.0 if bis is None else float(arr(bis)[k])  # noqa: E731
        ws.write_number(r_, 0, k + 1)
        if k == 0:
            lo = f'IF({best}="",0,INDEX({self.col(1)},{best}))'
            hi = f'IF({best}="",0,INDEX({self.col(1)},{best}+1))'
            flo = f'IF({best}="",0,INDEX({self.col(2)},{best}))'
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
            f'=IF({best}="",0,SUMPRODUCT({self.flows},EXP(-{self.t}*{c(4)})))',
            v(lambda b: b.f_mid),
            s("usd_m"),
        )
