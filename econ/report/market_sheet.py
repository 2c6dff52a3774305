"""The Market sheet: the scalars of the monthly chain, one declaration each (econ/report/rows.py)
- plan usage built from queries, the API logit calibrated and evaluated at the run's prices and
served speeds, the calibrated no-deal world, the value of an average MW-month of each use and a
subscriber's terminal value (docs/model.md, sections 0.2, 0.4, 0.5). Live formulas."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from econ.assumptions import TIER_IDS, Assumptions
from econ.model import Results
from econ.report.revenue_rows import UNBOUNDED, offered, parts_of, values
from econ.report.rows import Declaration, Result, Section, expand
from econ.report.workbook import write_formula
from econ.report.xl import Book, absolute

SHEET = "Market"


def _v(x) -> float:
    return float(np.asarray(x, float).reshape(-1)[0])


# fmt: off
def usage_results(a: Assumptions, r: Results) -> list[Declaration]:
    out: list[Declaration] = [Section("Plan usage from queries (section 0.5) and speed factors")]
    lower = "plans.pro_lower.price_usd_month" in a.values
    for plan in ("plus", "pro", *(("pro_lower",) if lower else ())):
        median, quota = _v(r.parts[f"usage_median.{plan}"]), _v(r.parts[f"usage_quota.{plan}"])
        out += [
            Result(f"usage_median_{plan}", f"{plan.capitalize()}: median weekly tokens, mu",
                   "tokens/week", "num",
                   f"plans_{plan}_queries_per_day*constant_days_per_week*usage_output_tokens_per_query"
                   "*EXP(-(usage_demand_sigma^2)/2)", median),
            Result(f"usage_quota_{plan}", f"{plan.capitalize()}: weekly quota, c", "tokens/week",
                   "num", f"plans_{plan}_weekly_quota_queries*usage_output_tokens_per_query", quota),
        ]
    for tier in TIER_IDS:
        out.append(Result(f"phi_{tier}", f"Usage factor of the {tier} tier's served speed, phi",
                          "-", "num4",
                          f"EXP(usage_speed_elasticity*LN(served_{tier}/tiers_standard_tokens_per_s))",
                          _v(r.parts[f"phi.{tier}"])))
    q = "usage_ultrafast_query_share"
    out += [
        Result("mkt_mix_phi", "An adopter's demand factor, q phi_u + (1 - q) phi_s (V4.7)", "-",
               "num4", f"{q}*phi_ultrafast+(1-{q})*phi_standard", _v(r.parts["mix.phi"])),
        Result("mkt_mix_burn", "... the quota units a token burns, mixed", "quota units per token",
               "num4", f"({q}*phi_ultrafast*tiers_ultrafast_usage_multiplier+(1-{q})*phi_standard"
               "*tiers_standard_usage_multiplier)/mkt_mix_phi", _v(r.parts["mix.burn"])),
        Result("mkt_mix_u_share", "... the ultrafast share of their tokens", "share", "pct2",
               f"{q}*phi_ultrafast/mkt_mix_phi", _v(r.parts["mix.ultrafast_share"])),
        Result("mkt_pro_price", "The price an upgrade pays: the Pro tiers' prices mixed (V4.7)",
               "USD/month", "usd2", _mix_price(lower, "price_usd_month"), _pro_price(a, lower)),
        Result("mkt_pro_price_ref", "... at the reference prices", "USD/month", "usd2",
               _mix_price(lower, "price_ref_usd_month"), _pro_price(a, lower, ref=True)),
    ]
    return out


def _mix_price(lower: bool, col: str) -> str:
    if not lower:
        return f"plans_pro_{col}"
    return (f"(1-conversion_lower_pro_share)*plans_pro_{col}"
            f"+conversion_lower_pro_share*plans_pro_lower_{col}")


def _pro_price(a: Assumptions, lower: bool, ref: bool = False) -> float:
    col = "price_ref_usd_month" if ref else "price_usd_month"
    top = a.num(f"plans.pro.{col}")
    if not lower:
        return top
    ls = a.num("conversion.lower_pro_share")
    return (1 - ls) * top + ls * a.num(f"plans.pro_lower.{col}")


def logit_results(a: Assumptions, r: Results) -> list[Declaration]:
    """The logit calibrated at the bundled prices and tier speeds (section 0.4)."""
    lg = _logit(r)
    q = "api_market_tokens"
    return [
        Section("API logit: calibrated at the bundled prices and tier speeds (section 0.4)"),
        Result("api_market_tokens", "Market, M = V_u + (V_s + V_f) / D", "tokens/month", "tok_t",
               "api_ultrafast_tokens_per_month+(api_standard_tokens_per_month"
               "+api_fast_tokens_per_month)/api_diversion_to_lab_tiers", _v(r.api_market_tokens)),
        Result("mkt_q_s", "Calibration share, standard", "share", "pct2",
               f"api_standard_tokens_per_month/{q}", _v(lg.q_s)),
        Result("mkt_q_f", "Calibration share, fast", "share", "pct2",
               f"api_fast_tokens_per_month/{q}", _v(lg.q_f)),
        Result("mkt_q_u", "Calibration share, ultrafast", "share", "pct2",
               f"api_ultrafast_tokens_per_month/{q}", _v(lg.q_u)),
        Result("mkt_q_0", "Calibration share, outside option", "share", "pct2",
               "(1-mkt_q_u)*(1-api_diversion_to_lab_tiers)", _v(lg.q_0)),
        Result("mkt_beta", "Price coefficient, beta", "1 per USD/Mtok", "num4",
               "api_price_elasticity/(api_reference_price_per_mtok_usd*(1-mkt_q_u))", _v(lg.beta)),
        Result("mkt_gamma", "Speed coefficient, gamma", "1 per ln(tokens/s)", "num4",
               "mkt_beta*api_wtp_speed_doubling_usd_per_mtok/LN(2)", _v(lg.gamma)),
        Result("mkt_alpha_s", "Tier constant, standard", "-", "num4",
               "LN(mkt_q_s/mkt_q_0)+mkt_beta*tiers_standard_price_per_mtok_usd"
               "-mkt_gamma*LN(tiers_standard_tokens_per_s)", _v(lg.alpha_s)),
        Result("mkt_inc", "Nest's calibrated inclusive value, I*", "-", "num4",
               "LN((mkt_q_f+mkt_q_u)/mkt_q_0)", _v(lg.inclusive)),
        Result("mkt_alpha_f", "Tier constant, fast", "-", "num4",
               "api_speed_nest_lambda*LN(mkt_q_f/(mkt_q_f+mkt_q_u))+mkt_inc"
               "+mkt_beta*tiers_fast_price_per_mtok_usd-mkt_gamma*LN(tiers_fast_tokens_per_s)",
               _v(lg.alpha_f)),
        Result("mkt_alpha_u", "Tier constant, ultrafast (no ultrafast demand: minus unbounded)",
               "-", "num4",
               "IF(mkt_q_u>0,api_speed_nest_lambda*LN(mkt_q_u/(mkt_q_f+mkt_q_u))+mkt_inc"
               "+mkt_beta*api_reference_price_per_mtok_usd-mkt_gamma*LN(tiers_ultrafast_tokens_per_s),"
               "-constant_unbounded_value)", _finite(lg.alpha_u)),
        Result("api_premium", "Implied premium of ultrafast over standard, (alpha_u - alpha_s) / beta",
               "USD per 1M tokens", "usd2", 'IF(mkt_q_u>0,(mkt_alpha_u-mkt_alpha_s)/mkt_beta,"")',
               _v(r.api_premium)),
    ]


def share_results(a: Assumptions, r: Results) -> list[Declaration]:
    """Shares at the run's prices and served speeds, with and without the ultrafast tier."""
    v_s, v_f, v_u = (_v(r.parts[f"api_utility.{i}"]) for i in TIER_IDS)
    lam = a.num("api.speed_nest_lambda")
    top = max(v_f, v_u)
    e_f, e_u = np.exp((v_f - top) / lam), np.exp((v_u - top) / lam)
    incl = top + lam * np.log(e_f + e_u)
    big = max(v_s, incl, 0.0)
    big0 = max(v_s, v_f, 0.0)
    util = "mkt_alpha_{t}-mkt_beta*tiers_{tier}_price_per_mtok_usd+mkt_gamma*LN(served_{tier})"
    return [
        Section("API shares at the run's prices and served speeds; diversion and margin"),
        *[Result(f"mkt_v_{tier[0]}", f"Utility of the {tier} tier, v", "-", "num4",
                 util.format(t=tier[0], tier=tier), _finite(v))
          for tier, v in zip(TIER_IDS, (v_s, v_f, v_u), strict=True)],
        Result("mkt_top", "max(v_f, v_u)", "-", "num4", "MAX(mkt_v_f,mkt_v_u)", top),
        Result("mkt_e_f", "exp((v_f - top) / lambda)", "-", "num4",
               "EXP((mkt_v_f-mkt_top)/api_speed_nest_lambda)", e_f),
        Result("mkt_e_u", "exp((v_u - top) / lambda)", "-", "num4",
               "EXP((mkt_v_u-mkt_top)/api_speed_nest_lambda)", e_u),
        Result("mkt_incl", "Nest's inclusive value, I", "-", "num4",
               "mkt_top+api_speed_nest_lambda*LN(mkt_e_f+mkt_e_u)", incl),
        Result("mkt_big", "Scale, max(v_s, I, 0)", "-", "num4", "MAX(mkt_v_s,mkt_incl,0)", big),
        Result("mkt_den", "Denominator", "-", "num4",
               "EXP(-mkt_big)+EXP(mkt_v_s-mkt_big)+EXP(mkt_incl-mkt_big)",
               np.exp(-big) + np.exp(v_s - big) + np.exp(incl - big)),
        Result("api_share_standard", "Share of the market, standard", "share", "pct2",
               "EXP(mkt_v_s-mkt_big)/mkt_den", _v(r.api_share_standard)),
        Result("api_share_fast", "... fast", "share", "pct2",
               "EXP(mkt_incl-mkt_big)/mkt_den*mkt_e_f/(mkt_e_f+mkt_e_u)", _v(r.api_share_fast)),
        Result("api_share_ultrafast", "... ultrafast", "share", "pct2",
               "EXP(mkt_incl-mkt_big)/mkt_den*mkt_e_u/(mkt_e_f+mkt_e_u)",
               _v(r.api_share_ultrafast)),
        Result("api_share_outside", "... outside option", "share", "pct2",
               "EXP(-mkt_big)/mkt_den", _v(r.api_share_outside)),
        Result("mkt_big0", "Without the ultrafast tier: scale, max(v_s, v_f, 0)", "-", "num4",
               "MAX(mkt_v_s,mkt_v_f,0)", big0),
        Result("mkt_den0", "... denominator", "-", "num4",
               "EXP(-mkt_big0)+EXP(mkt_v_s-mkt_big0)+EXP(mkt_v_f-mkt_big0)",
               np.exp(-big0) + np.exp(v_s - big0) + np.exp(v_f - big0)),
        Result("mkt_no_deal_standard", "... share, standard", "share", "pct2",
               "EXP(mkt_v_s-mkt_big0)/mkt_den0", np.exp(v_s - big0) / _den0(v_s, v_f, big0)),
        Result("mkt_no_deal_fast", "... share, fast", "share", "pct2",
               "EXP(mkt_v_f-mkt_big0)/mkt_den0", np.exp(v_f - big0) / _den0(v_s, v_f, big0)),
        *margin_results(a, r),
    ]


def margin_results(a: Assumptions, r: Results) -> list[Declaration]:
    keep = "(1-finance_variable_cost_share)"
    div = "IF(api_share_ultrafast>0,(mkt_no_deal_{t}-api_share_{t})/api_share_ultrafast,0)"
    return [
        Result("api_diversion_standard", "Standard tokens one ultrafast token replaces, D_s", "-",
               "num4", div.format(t="standard"), _v(r.api_diversion_standard)),
        Result("api_diversion_fast", "Fast tokens one ultrafast token replaces, D_f", "-", "num4",
               div.format(t="fast"), _v(r.api_diversion_fast)),
        *[Result(f"mkt_margin_{t}", f"Margin of one {t} token the lab sells on its GPUs",
                 "USD per 1M tokens", "usd2",
                 f"tiers_{t}_price_per_mtok_usd*{keep}-gpu_cost_{t}",
                 _v(r.parts[f"token_margin.{t}"]))
          for t in ("standard", "fast")],
        Result("api_margin", "Margin of one ultrafast API token, m_u", "USD per 1M tokens", "usd2",
               f"tiers_ultrafast_price_per_mtok_usd*{keep}"
               "-api_diversion_standard*mkt_margin_standard-api_diversion_fast*mkt_margin_fast",
               _v(r.api_margin)),
        Result("mkt_revenue_per_token", "Revenue of an ultrafast token less the revenue it takes",
               "USD per 1M tokens", "usd2",
               "tiers_ultrafast_price_per_mtok_usd-api_diversion_standard*tiers_standard_price_per_mtok_usd"
               "-api_diversion_fast*tiers_fast_price_per_mtok_usd",
               _v(r.parts["api_revenue_per_token"])),
        Result("mkt_gpu_avoided_per_token", "GPU cost a diverted ultrafast token avoids",
               "USD per 1M tokens", "usd2",
               "api_diversion_standard*gpu_cost_standard+api_diversion_fast*gpu_cost_fast",
               _v(r.parts["api_gpu_avoided_per_token"])),
    ]


def no_deal_results(a: Assumptions, r: Results) -> list[Declaration]:
    """The calibrated no-deal world and the adoption wanted (section 0.5)."""
    h0_1 = _v(r.plus_cap_hit_counterfactual[:, 0])
    # the month-1 upgrades the calibration matched: base + propensity x h0_1 (section 0.5)
    u0 = _v(r.pro_base_upgrade) + _v(r.pro_capped_propensity) * h0_1
    return [
        Section("The no-deal world, calibrated at month 1 (section 0.5)"),
        Result("mkt_h0_1", "Plus cap-hit share without the tier in month 1, h0_1", "share", "pct2",
               "[revenue.h0@1]", h0_1),
        Result("mkt_u0_1", "Month-1 upgrades a Plus user, u0_1 = P_0 (churn + growth) / N_1",
               "1/month", "pct3",
               "IF([revenue.pool@1]>0,market_pro_subscribers_start*(conversion_pro_churn_monthly"
               "+market_pro_growth_monthly)/[revenue.pool@1],0)", u0),
        Result("pro_capped_propensity", "Cap-hit upgrade propensity (derived)", "1/month", "pct3",
               "MIN(IF(mkt_h0_1>0,conversion_capped_share_of_upgrades*mkt_u0_1/mkt_h0_1,0),"
               "conversion_max_capped_propensity)", _v(r.pro_capped_propensity)),
        Result("pro_base_upgrade", "Base Plus-to-Pro upgrade rate (derived)", "1/month", "pct3",
               "mkt_u0_1-pro_capped_propensity*mkt_h0_1", _v(r.pro_base_upgrade)),
        Result("mkt_s_r", "Upgrade probability at a cap event at the reference price, s_r",
               "share", "pct3", "MIN(MAX(pro_capped_propensity,0),1-constant_share_below_one)",
               min(max(_v(r.pro_capped_propensity), 0.0), 1 - 1e-12)),
        Result("mkt_pro_beta", "Price coefficient of the Pro logit, beta", "1 per USD/month",
               "num4", "conversion_pro_price_elasticity/(mkt_pro_price_ref*(1-mkt_s_r))",
               a.num("conversion.pro_price_elasticity")
               / (_pro_price(a, "plans.pro_lower.price_usd_month" in a.values, ref=True)
                  * (1 - min(max(_v(r.pro_capped_propensity), 0.0), 1 - 1e-12)))),
        Result("pro_price_factor", "Price factor, s(p) / s_r of a binary logit per cap event",
               "-", "num4",
               "1/(mkt_s_r+(1-mkt_s_r)*EXP(mkt_pro_beta*(mkt_pro_price-mkt_pro_price_ref)))",
               _v(r.pro_price_factor)),
        Result("mkt_burn", "Adoption response to the quota burn, (m_ref / m_u)^elasticity", "-",
               "num4", "EXP(usage_adoption_burn_elasticity*LN(usage_adoption_ref_multiplier"
               "/tiers_ultrafast_usage_multiplier))", _v(r.parts["adoption_burn"])),
        Result("ultrafast_adoption_wanted", "Ultrafast adoption wanted", "share", "pct2",
               "MIN(tiers_ultrafast_adoption*mkt_burn,1-tiers_fast_adoption)",
               _v(r.ultrafast_adoption_wanted)),
    ]


def value_results(a: Assumptions, r: Results) -> list[Declaration]:
    """The value of an average MW-month of each use, and a subscriber's terminal value."""
    v = values(r)
    spm, per_m = "constant_seconds_per_month", "constant_tokens_per_million"
    r_m = _v(r.parts["monthly_rate"])
    cc = a.num("conversion.pro_churn_monthly") + a.num("conversion.extra_churn_after_term_monthly")
    tv = _v(r.parts["subscriber_tv"])
    return [
        Section("The value of an average MW-month of each use (section 0.2)"),
        Result("mkt_per_mw_u", "Tokens a month one average MW carries at the ultrafast speed",
               "tokens/month", "tok_b", f"thr_ultrafast*{spm}", v["per_mw_u"]),
        Result("mkt_per_mw_b", "... at the standard speed (backfill)", "tokens/month", "tok_b",
               f"thr_standard*{spm}", v["per_mw_b"]),
        Result("mkt_moved_per_value", "Subscriber streams: standard tokens an average MW moves "
               "off the fleet, in millions", "1M tokens/MW-month", "num",
               f"{spm}*thr_ultrafast/(phi_ultrafast*{per_m})", v["moved_per_value"]),
        Result("mkt_mw_per_stream", "Average MW a stream takes, s_u / Thr_u", "MW", "sci",
               "IF(thr_ultrafast>0,served_ultrafast/thr_ultrafast,0)", v["mw_per_stream"]),
        Result("mkt_r_m", "Monthly discount rate, r_m", "1/month", "pct3",
               "EXP(LN(1+finance_discount_rate_annual)/constant_months_per_year)-1", r_m),
        Result("mkt_cc", "Churn after the term, c", "1/month", "pct2",
               "conversion_pro_churn_monthly+conversion_extra_churn_after_term_monthly", cc),
        Result("mkt_tv_sub", "Terminal value of one Pro subscriber at H", "USD", "usd2",
               "finance_terminal_value*[revenue.margin@horizon_months]*(1-mkt_cc)/(mkt_r_m+mkt_cc)",
               tv),
    ]
# fmt: on


def _finite(x) -> float:
    """A value the sheet writes as minus unbounded where the model has minus infinity."""
    v = _v(x)
    return -UNBOUNDED if v == -np.inf else v


def _den0(v_s: float, v_f: float, big0: float) -> float:
    return float(np.exp(-big0) + np.exp(v_s - big0) + np.exp(v_f - big0))


def _logit(r: Results) -> SimpleNamespace:
    """The calibrated logit's constants as the model computed them (Results.parts)."""
    return SimpleNamespace(**parts_of(r, "logit."))


def market_sheet(book: Book, ws, a: Assumptions, r: Results) -> None:
    """Every declared scalar in columns A (label), B (unit), C (live formula, named)."""
    s = book.styles
    ws.set_column(0, 0, 70)
    ws.set_column(1, 1, 18)
    ws.set_column(2, 2, 18)
    title = "Market: plan usage, the API logit, the no-deal world, the value of each use (live)"
    ws.write_string(0, 0, title, s("title"))
    ctx = SimpleNamespace(book=book, prefix="market", sheet=SHEET)
    row = 2
    parts = (usage_results, logit_results, share_results, no_deal_results, value_results)
    for part in parts:
        for d in part(a, r):
            if isinstance(d, Section):
                row += 1
                ws.write_string(row, 0, d.title, s("section"))
                row += 1
                continue
            ws.write_string(row, 0, d.label, s("label"))
            ws.write_string(row, 1, d.unit, s("unit"))
            value = d.value.item() if isinstance(d.value, np.generic) else d.value
            formula = "=" + expand(d.formula, ctx)
            write_formula(ws, row, 2, formula, value, s(d.fmt))
            book.name(d.name, absolute(SHEET, row, 2))
            book.declared.append((SHEET, d))
            row += 1
    book.cells["market_print_end"] = row
    _ = offered
