"""The Cover sheet: the answer in sentences, the headline figures, the run and how to read the
workbook (docs/model.md, section 8).

Each sentence is a declaration ``Sentence(name, label, formula, text, stale)``: a live
sentence is a formula on the workbook's defined names (blank results when the live model
cannot compute the choices made give the reason instead), ``text`` the same sentence in this
run; a sentence of the run (``formula`` None, ``stale`` True) is text that only a rerun of
econ can update, under the STALE banner. A live sentence is put together from ``Part``
cells (each a label, a unit and a formula of at most 250 characters), named ``cover_<name>``
and written below the printed area.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from econ import __version__
from econ.assumptions import Assumptions, path_text
from econ.constants import CHECK_RTOL, IRR_MEANINGFUL_MAX
from econ.formatting import key_value
from econ.payback import NO_IRR, NO_SIGN_CHANGE
from econ.report import summary
from econ.report.rows import Result
from econ.report.summary import IRR_UNDEFINED, physics_sentence
from econ.report.workbook import QUESTION, write_cell, write_formula
from econ.report.xl import STYLE_GUIDE, Book

COMPUTABLE = "model_computable"
SENTENCE_WIDTH = 110  # characters of column B: a sentence's row is as tall as its lines
BILLION = "constant_usd_per_billion"
USES = (
    ("api", "API"),
    ("subscriber", "subscriber streams"),
    ("backfill_peak", "peak-shaped backfill"),
    ("backfill_flexible", "flexible backfill"),
    ("free", "free tier"),
    ("idle", "idle"),
)
NEVER_NEGATIVE = (
    "Never negative: the cumulative net flow (cash and the GPU cost avoided) stays at or above "
    "zero every month (payback month 0)."
)
IRR_ABOVE = (
    f"above {IRR_MEANINGFUL_MAX:,.0%} a year (outflows tiny against the inflows after them: "
    "not a meaningful rate)"
)
NO_MIRR = "no MIRR (no money out or no money in)"
CANNOT = "The live model cannot compute the choices made: "
STALE = '=IF(inputs_changed_since_run,"STALE: inputs changed since the run; rerun econ","current")'
# the live answer, half-updated once an input it follows only after a rerun has changed
# the model's status (defined name model_status): "live" when the live model computes the
# choices made, every integrity check holds and no input it follows only after a rerun changed;
# otherwise what is wrong, in a few words
FAILING = (
    'IFERROR(INDEX(checks_integrity_labels,MATCH(FALSE,checks_integrity_area,0)),"see Checks")'
)
STATUS = (
    '=IF(IFERROR(NOT(model_computable),TRUE),"NOT LIVE: cannot compute the choices made '
    '(Checks)",IF(IFERROR(NOT(integrity_ok),TRUE),"NOT LIVE: check fails: "'
    '&cover_failing,IF(rerun_inputs_changed,"STALE: a purple input (rerun econ) changed",'
    '"live")))'
)
LIVE = 'model_status="live"'
SIGN_CONVENTION = (
    "Sign convention: money in positive, money out (rent, variable costs) negative, on every "
    "sheet; the GPU cost avoided is value (GPU-hours the lab need not pay for), not cash, and "
    "sits on its own rows."
)


def Part(name: str, label: str, unit: str, fmt: str, formula: str, value: Any,  # noqa: N802
         guard: bool = True) -> Result:  # fmt: skip
    """An intermediate cell of the Cover's sentences (a ``rows.Result``, named ``cover_<name>``
    on the Cover); ``guard``: blank (or FALSE) when the live model cannot compute the choices."""
    return Result(name, label, unit, fmt, formula, value, guard=guard)


@dataclass(frozen=True)
class Sentence:
    """A sentence of the answer: ``formula`` live (None: text of the run, ``stale`` True)."""

    name: str
    label: str
    formula: str | None
    text: str
    stale: bool = False


def _b(x: float) -> str:
    """Like TEXT(x / 1e9, "$0.00") & "B" in a spreadsheet."""
    return f"{'-' if x < 0 else ''}${abs(x) / 1e9:.2f}B"


def rate_decimals(rate: float) -> int:
    """Decimals of a per cent that show a rate as typed, up to two: 10%, 12.5%, 12.25%."""
    if round(rate * 100, 6) == round(rate * 100):
        return 0
    return 1 if round(rate * 1000, 6) == round(rate * 1000) else 2


# API tokens turned away, in trillions or (below one) billions
LOST = (
    "IF(cap_api_tokens_lost>=constant_tokens_per_trillion,TEXT(cap_api_tokens_lost/"
    'constant_tokens_per_trillion,"0.0")&"T",TEXT(cap_api_tokens_lost*1000/'
    'constant_tokens_per_trillion,"0.0")&"B")'
)


def _pct(x: float) -> str:
    """A share as a whole percentage; a use that has some MW but under half a per cent: <1%."""
    return "<1%" if 0 < x < 0.005 else f"{x:.0%}"


def plural(n: int | float, word: str) -> str:
    """'1 month', '36 months' (a spreadsheet's n & " months", with the singular for 1)."""
    return f"{n:g} {word}" if n == 1 else f"{n:g} {word}s"


def parts(h: dict[str, Any]) -> list[Result]:
    """The intermediate cells, with their values in this run."""
    v = _values(h)
    return _words(h) + _answer_parts(h, v) + _return_parts(v) + _capacity_parts(h, v)


def _words(h: dict[str, Any]) -> list[Result]:
    """The reason a sentence cannot be computed, the rate, the term and horizon in words, and
    the amounts in $B."""
    a = h["assumptions"]
    H, T = a["horizon.months"], a["contract.term_months"]
    rate = a["finance.discount_rate_annual"]
    dec = rate_decimals(rate)
    r = "finance_discount_rate_annual"
    return [
        Part("cannot", "What a live sentence says when the live model cannot compute the choices",
             "text", "text", f'"{CANNOT}"&model_problem', CANNOT, guard=False),
        Part("rate_decimals", "Decimals of a per cent that show the discount rate as typed",
             "decimals", "num",
             f"IF(ROUND({r}*100,6)=ROUND({r}*100,0),0,IF(ROUND({r}*1000,6)=ROUND({r}*1000,0),1,2))",
             dec, guard=False),
        Part("rate_text", "The discount rate as typed", "text", "text",
             f'TEXT({r},CHOOSE(cover_rate_decimals+1,"0%","0.0%","0.00%"))',
             f"{rate:.{dec}%}", guard=False),
        Part("term_words", "The term in months", "text", "text",
             'contract_term_months&IF(contract_term_months=1," month"," months")',
             plural(T, "month"), guard=False),
        Part("horizon_words", "The horizon in months", "text", "text",
             'horizon_months&IF(horizon_months=1," month"," months")', plural(H, "month"),
             guard=False),
        *[Part(f"{k}_b", f"{label} in $B", "text", "text",
               f'TEXT({x}/{BILLION},"$0.00")&"B"', _b(value))
          for k, label, x, value in (
              ("npv", "NPV", "npv_usd", h["npv_usd"]),
              ("tail", "The Pro tail's share of the NPV",
               "(npv_usd-npv_without_terminal_value_usd)",
               h["npv_usd"] - h["npv_without_terminal_value_usd"]),
              ("term", "NPV of the term alone", "npv_at_term_usd", h["npv_at_term_usd"]),
              ("shortfall", "Shortfall at the horizon", "shortfall_usd", h["shortfall_usd"]),
              ("deficit", "Peak cash need", "max_deficit_usd", h["max_deficit_usd"]))],
    ]  # fmt: skip


def _answer_parts(h: dict[str, Any], v: dict[str, Any]) -> list[Result]:
    """Whether the deal pays back, and what it is worth."""
    p = h["payback_months"]
    return [
        Part("need", "The peak cash need, if any", "text", "text",
             'IF(max_deficit_usd>0,"; at its deepest "&cover_deficit_b&" in month "'
             '&max_deficit_month&".",".")', v["need"]),
        Part("never", "The answer when cash never goes below zero", "text", "text",
             f'"{NEVER_NEGATIVE}"', NEVER_NEGATIVE, guard=False),
        Part("when", "Payback within or after the term (blank: no payback)", "text", "text",
             'IF(pays_back,IF(payback_months<=contract_term_months," (within the term)",'
             '" (after the "&contract_term_months&"-month term)"),"")', v["when"]),
        Part("pays", "The answer when the deal pays back (blank: it does not)", "text", "text",
             'IF(pays_back,IF(payback_months=0,cover_never,"Pays back for good in month "'
             '&TEXT(payback_months,"0.0")&cover_when&cover_need),"")', v["pays"]),
        Part("short", "The answer when it does not pay back (blank: it does)", "text", "text",
             'IF(pays_back,"","Does not pay back within "&cover_horizon_words&": the cumulative '
             'net flow ends "&cover_shortfall_b&" short"&cover_need)',
             "" if p is not None else v["short"]),
        Part("failing", "The first integrity check that fails (Checks)", "text", "text",
             FAILING, "see Checks", guard=False),
        Part("need_b", "Value the model does not price that a negative NPV needs, in $B", "text",
             "text", f'TEXT(MAX(0,-npv_usd)/{BILLION},"$0.00")&"B"',
             _b(max(0.0, -h["npv_usd"]))),
        Part("verdict", "Worth doing on its terms: yes or no, with the NPV", "text", "text",
             'IF(npv_usd>=0,"Yes: NPV "&cover_npv_b&" at "&cover_rate_text&".","No: NPV "'
             '&cover_npv_b&" at "&cover_rate_text&"; it needs "&cover_need_b&" of value the '
             'model does not price.")', v["verdict"]),
        Part("cash_b", "Cumulative cash only at the horizon, in $B", "text", "text",
             f'TEXT(cash_only_at_horizon_usd/{BILLION},"$0.00")&"B"',
             _b(h["cash_only_at_horizon_usd"])),
        Part("cash_none", "No payback on cash alone", "text", "text",
             '"Does not pay back on cash alone within "&cover_horizon_words&": cumulative cash '
             'only ends at "&cover_cash_b&"."', v["cash_none"]),
        Part("cash_pays", "Payback on cash alone", "text", "text",
             'IF(ISNUMBER(cash_payback_months),IF(cash_payback_months=0,"Never negative on cash '
             'alone.","Pays back on cash alone in month "&TEXT(cash_payback_months,"0.0")&"."),'
             'cover_cash_none)', v["cash_pays"]),
        Part("payment_words", "The rent's payment basis", "text", "text",
             '" Rent "&IF(contract_payment="take_or_pay","take-or-pay: owed in full whatever is '
             'delivered","paid as the MW are delivered ("&TEXT(contract_delivered_share,"0%")'
             '&" of them)")&"; the GPU cost avoided is not cash."', v["payment_words"]),
        Part("npv_words", "The NPV and its Pro tail", "text", "text",
             '"NPV at "&cover_rate_text&": "&cover_npv_b&", of which "&cover_tail_b'
             '&" is the Pro tail after month "&horizon_months', v["npv_words"]),
    ]  # fmt: skip


def _return_parts(v: dict[str, Any]) -> list[Result]:
    """The IRR and the MIRR in words."""
    return [
        Part("irr_above", "An IRR above the meaningful maximum", "text", "text",
             '"above "&TEXT(constant_irr_meaningful_max,"#,##0%")&" a year (outflows tiny against '
             'the inflows after them: not a meaningful rate)"', IRR_ABOVE, guard=False),
        Part("irr_none", "Why there is no IRR, by the IRR criterion (Payback)", "text", "text",
             f'IF(irr_criterion=-1,"{NO_SIGN_CHANGE}",IF(irr_criterion=0,"{NO_IRR}",'
             f'"{IRR_UNDEFINED}"))', v["irr_none"], guard=False),
        Part("irr_words", "The IRR", "text", "text",
             'IF(ISNUMBER(irr_annual),"IRR "&IF(irr_annual>constant_irr_meaningful_max,'
             'cover_irr_above,TEXT(irr_annual,"0.0%")&" a year"),cover_irr_none)',
             v["irr_words"], guard=False),
        Part("mirr_words", "The MIRR", "text", "text",
             'IF(ISNUMBER(mirr_annual),"MIRR "&TEXT(mirr_annual,"0.0%")&" a year (at the '
             f'discount rate)","{NO_MIRR}")', v["mirr_words"], guard=False),
    ]  # fmt: skip


def _capacity_parts(h: dict[str, Any], v: dict[str, Any]) -> list[Result]:
    """Capacity or demand: what capacity holds back, or the MW by use; the lessor's yield."""
    lim = h["capacity_limits"]
    return [
        Part("capped", "Capacity limits revenue (API tokens turned away or adoption held)",
             "TRUE/FALSE", "bool",
             'OR(cover_capped_tokens<>"",cover_capped_adoption<>"")', v["capped"]),
        Part("capped_amount", "API tokens turned away, in T (B below one T)", "text", "text",
             LOST, v["capped_amount"]),
        Part("capped_tokens", "API tokens turned away (blank: none)", "text", "text",
             'IF(cap_api_tokens_lost>constant_check_tolerance*cap_api_tokens_wanted,'
             'cover_capped_amount&" API tokens turned away","")', v["capped_tokens"]),
        Part("capped_adoption", "Adoption held by capacity (blank: never)", "text", "text",
             'IF(cap_adoption_capped_months>0,"ultrafast adoption held below its share in "'
             '&cover_capped_months,"")', v["capped_adoption"]),
        Part("capped_words", "What capacity holds back (blank: capacity does not limit)", "text",
             "text",
             'IF(cover_capped,"Capacity, not demand, limits revenue: "&cover_capped_tokens&IF(AND('
             'cover_capped_tokens<>"",cover_capped_adoption<>""),"; ","")&cover_capped_adoption'
             '&".","")', v["capped_words"]),
        Part("capped_months", "Months the capacity holds adoption below its share", "text",
             "text",
             'cap_adoption_capped_months&IF(cap_adoption_capped_months=1," month"," months")',
             plural(lim["adoption_capped_months"], "month")),
        Part("uses_shown", "The sentence shows the MW by use (capacity does not limit)",
             "TRUE/FALSE", "bool", f"AND({COMPUTABLE},NOT(cover_capped))", not v["capped"],
             guard=False),
        *[Part(f"share_{k}", f"Share of the term's MW-months: {label}", "text", "text",
               f'IF(AND(cap_mw_months_{k}>0,cap_mw_months_{k}<0.005*cap_mw_months_total),"<1%",'
               f'TEXT(cap_mw_months_{k}/cap_mw_months_total,"0%"))', _pct(share))
          for (k, label), share in zip(USES, v["shares"], strict=True)],
        Part("uses_words", "The MW by use, first part (blank: capacity limits)", "text", "text",
             'IF(cover_uses_shown,"The contract\'s MW over the term (average MW-months, '
             'allocated each month by value): API "&cover_share_api&", subscriber streams "'
             '&cover_share_subscriber,"")', v["uses_words"], guard=False),
        Part("uses_words2", "The MW by use, second part (blank: capacity limits)", "text",
             "text",
             'IF(cover_uses_shown,", peak-shaped backfill "&cover_share_backfill_peak&", '
             'flexible backfill "&cover_share_backfill_flexible&", free tier "&cover_share_free'
             ',"")', v["uses_words2"], guard=False),
        Part("uses_words3", "The MW by use, third part (blank: capacity limits)", "text",
             "text",
             'IF(cover_uses_shown,", idle "&cover_share_idle&"; "&cover_utilised&" utilised, '
             'MW-weighted ("&cover_term_words&").","")', v["uses_words3"], guard=False),
        Part("utilised", "Average utilisation over the term, MW-weighted", "text", "text",
             'TEXT(cap_term_average_utilization,"0%")', v["utilised"]),
        Part("yield_words", "The lessor's yield", "text", "text",
             'IF(ISNUMBER(lessor_yield_annual),TEXT(lessor_yield_annual,"0.0%")&" a year",'
             '"none")', v["yield_words"], guard=False),
    ]  # fmt: skip


def _values(h: dict[str, Any]) -> dict[str, Any]:
    """The parts' values in this run, as the spreadsheet puts them together."""
    a, tot, lim, rb = h["assumptions"], h["totals"], h["capacity_limits"], h["rent_vs_buy"]
    H, T, p = a["horizon.months"], a["contract.term_months"], h["payback_months"]
    dec = rate_decimals(a["finance.discount_rate_annual"])
    v: dict[str, Any] = {}
    md = h["max_deficit_month"]
    v["need"] = (
        f"; at its deepest {_b(h['max_deficit_usd'])} in month {md}." if md is not None else "."
    )
    v["when"] = (
        "" if p is None else " (within the term)" if p <= T else f" (after the {T}-month term)"
    )
    v["pays"] = (
        "" if p is None
        else NEVER_NEGATIVE if p == 0
        else f"Pays back for good in month {p:.1f}{v['when']}{v['need']}"
    )  # fmt: skip
    v["short"] = (
        f"Does not pay back within {plural(H, 'month')}: the cumulative net flow ends "
        f"{_b(h['shortfall_usd'])} short{v['need']}"
    )
    rate_text = f"{a['finance.discount_rate_annual']:.{dec}%}"
    npv = h["npv_usd"]
    v["verdict"] = (
        f"Yes: NPV {_b(npv)} at {rate_text}." if npv >= 0
        else f"No: NPV {_b(npv)} at {rate_text}; it needs {_b(max(0.0, -npv))} of value the "
        "model does not price."
    )  # fmt: skip
    cp = h["cash_payback_months"]
    v["cash_none"] = (
        f"Does not pay back on cash alone within {plural(H, 'month')}: cumulative cash only ends "
        f"at {_b(h['cash_only_at_horizon_usd'])}."
    )
    v["cash_pays"] = (
        v["cash_none"] if cp is None
        else "Never negative on cash alone." if cp == 0
        else f"Pays back on cash alone in month {cp:.1f}."
    )  # fmt: skip
    v["payment_words"] = (
        " Rent "
        + (
            "take-or-pay: owed in full whatever is delivered"
            if h["payment"] == "take_or_pay"
            else f"paid as the MW are delivered ({h['delivered_share']:.0%} of them)"
        )
        + "; the GPU cost avoided is not cash."
    )
    tail = _b(h["npv_usd"] - h["npv_without_terminal_value_usd"])
    v["npv_words"] = (
        f"NPV at {a['finance.discount_rate_annual']:.{dec}%}: {_b(h['npv_usd'])}, of which "
        f"{tail} is the Pro tail after month {H}"
    )
    note = h.get("irr_note")
    v["irr_none"] = {NO_SIGN_CHANGE: NO_SIGN_CHANGE, NO_IRR: NO_IRR}.get(note, IRR_UNDEFINED)
    irr = h["irr_annual"]
    v["irr_words"] = (
        v["irr_none"] if irr is None
        else f"IRR {IRR_ABOVE}" if irr > IRR_MEANINGFUL_MAX
        else f"IRR {irr:.1%} a year"
    )  # fmt: skip
    mirr = h.get("mirr_annual")
    v["mirr_words"] = NO_MIRR if mirr is None else f"MIRR {mirr:.1%} a year (at the discount rate)"
    lost, n = lim["api_tokens_lost"], lim["adoption_capped_months"]
    v["capped"] = bool(lost > CHECK_RTOL * tot["api_tokens_wanted"] or n > 0)
    v["capped_amount"] = f"{lost / 1e12:.1f}T" if lost >= 1e12 else f"{lost / 1e9:.1f}B"
    v["capped_tokens"] = (
        f"{v['capped_amount']} API tokens turned away"
        if lost > CHECK_RTOL * tot["api_tokens_wanted"]
        else ""
    )
    v["capped_adoption"] = (
        f"ultrafast adoption held below its share in {plural(n, 'month')}" if n > 0 else ""
    )
    held = "; ".join(x for x in (v["capped_tokens"], v["capped_adoption"]) if x)
    v["capped_words"] = f"Capacity, not demand, limits revenue: {held}." if v["capped"] else ""
    mwm = [tot[f"mw_months_{k}"] for k, _ in USES]
    total = max(1.0, sum(mwm))
    v["shares"] = [x / total for x in mwm]
    pct = [_pct(x) for x in v["shares"]]
    v["utilised"] = f"{tot['term_average_utilization']:.0%}"
    shown = not v["capped"]
    v["uses_words"] = (
        "The contract's MW over the term (average MW-months, allocated each month by value): "
        f"API {pct[0]}, subscriber streams {pct[1]}"
        if shown
        else ""
    )
    v["uses_words2"] = (
        f", peak-shaped backfill {pct[2]}, flexible backfill {pct[3]}, free tier {pct[4]}"
        if shown
        else ""
    )
    v["uses_words3"] = (
        f", idle {pct[5]}; {v['utilised']} utilised, MW-weighted ({plural(T, 'month')})."
        if shown
        else ""
    )
    y = rb["lessor_yield_annual"]
    v["yield_words"] = "none" if y is None else f"{y:.1%} a year"
    return v


def sentences(h: dict[str, Any]) -> list[Sentence]:
    """The answer: live sentences on the parts, then the sentence of the run."""
    a, rb = h["assumptions"], h["rent_vs_buy"]
    T = a["contract.term_months"]
    v = _values(h)
    dp = h["discounted_payback_months"]
    term_words = plural(T, "month")
    return [
        Sentence("worth_doing", "Worth doing on its terms?", "cover_verdict", v["verdict"]),
        Sentence("answer", "Payback counting the GPU cost avoided (economic)",
                 "cover_pays&cover_short", v["pays"] or v["short"]),
        Sentence("cash", "Payback on cash alone",
                 "cover_cash_pays&cover_payment_words", v["cash_pays"] + v["payment_words"]),
        Sentence("worth", "What is it worth?",
                 'cover_npv_words&"; over the term alone "&cover_term_b&". Profitability index "'
                 '&TEXT(profitability_index,"0.00")&"."',
                 f"{v['npv_words']}; over the term alone {_b(h['npv_at_term_usd'])}. "
                 f"Profitability index {h['profitability_index']:.2f}."),
        Sentence("returns", "Rates of return",
                 'cover_irr_words&"; "&cover_mirr_words&"; discounted payback "&IF(ISNUMBER('
                 'discounted_payback_months),"month "&TEXT(discounted_payback_months,"0.0"),'
                 '"none")&"."',
                 f"{v['irr_words']}; {v['mirr_words']}; discounted payback "
                 + (f"month {dp:.1f}" if dp is not None else "none") + "."),
        Sentence("capacity", "Capacity or demand?",
                 "cover_capped_words&cover_uses_words&cover_uses_words2&cover_uses_words3",
                 v["capped_words"] + v["uses_words"] + v["uses_words2"] + v["uses_words3"]),
        Sentence("renting", "Renting or buying?",
                 '"The lessor\'s yield on this rent at this hardware price: "&cover_yield_words&'
                 'IF(rent_and_price_consistent,".",": the rent and the hardware price cannot both '
                 'be right.")',
                 f"The lessor's yield on this rent at this hardware price: {v['yield_words']}"
                 + ("." if rb["rent_and_price_consistent"]
                    else ": the rent and the hardware price cannot both be right.")),
        Sentence("articles", "The articles' check",
                 'TEXT(simple_breakeven_pro_users,"#,##0")&" Pro users ("&TEXT('
                 'simple_breakeven_share_of_mau,"0.000%")&" of monthly active users) for "'
                 '&cover_term_words&" pay the contract."',
                 f"{h['simple_breakeven_pro_users']:,.0f} Pro users "
                 f"({h['simple_breakeven_share_of_mau']:.3%} of monthly active users) for "
                 f"{term_words} pay the contract."),
        *[Sentence(name, label, None, text, stale=True) for name, label, text in run_sentences(h)],
    ]  # fmt: skip


def run_sentences(h: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The sentences only a rerun of econ updates (section V4.1): what the answer rests on,
    the break-evens, what would make it wrong, both sets of terms, moved traffic, the value of
    a freed GPU-hour, successors and the physics."""
    ranges = {k: tuple(x) for k, x in (h.get("plausible_ranges") or {}).items()}
    out = [
        ("rests_on", "What it rests on", summary.rests_on(h)),
        ("breakevens", "Break-evens", summary.breakeven_sentence(h, ranges)),
        ("wrong", "What would make it wrong", summary.wrong_sentence(h, ranges)),
        ("terms", "Both sets of terms", summary.terms_sentence(h)),
        ("moved", "Moved traffic", summary.moved_sentence(h)),
        ("gpu_hour", "A freed GPU-hour", summary.gpu_value_sentence(h)),
        ("successors", "Successor models", summary.decline_sentence(h)),
        ("physics", "Physics of the ultrafast claim", physics_sentence(h)),
    ]
    return [(n, lab, t) for n, lab, t in out if t]


HEADLINE = (
    ("NPV", "npv_usd", "usd_b"),
    ("NPV without the terminal value", "npv_without_terminal_value_usd", "usd_b"),
    ("Terminal value of the Pro tail (at the horizon)", "terminal_value_usd", "usd_b"),
    ("NPV of the term alone", "npv_at_term_usd", "usd_b"),
    ("IRR, annualised (blank: none or not meaningful)", "irr_annual", "pct"),
    ("MIRR, annualised (at the discount rate)", "mirr_annual", "pct"),
    ("Profitability index", "profitability_index", "num2"),
    ("Economic payback month (blank: none)", "payback_months", "num1"),
    ("Cash payback month (blank: none)", "cash_payback_months", "num1"),
    ("Cumulative cash only at the horizon", "cash_only_at_horizon_usd", "usd_b"),
    ("Discounted payback month (blank: none)", "discounted_payback_months", "num1"),
    ("Shortfall at the horizon", "shortfall_usd", "usd_b"),
    ("Realised cost per million tokens", "realised_cost_per_mtok_usd", "usd2"),
    ("Lessor's yield (blank: none)", "lessor_yield_annual", "pct"),
    ("Pro users to pay the contract (the articles)", "simple_breakeven_pro_users", "num"),
    ("... as a share of monthly active users", "simple_breakeven_share_of_mau", "pct3"),
    ("Inputs changed since the run", "inputs_changed_since_run", "bool"),
    ("Every integrity check holds (Checks)", "integrity_ok", "bool"),
    ("The workbook matches the econ run (Checks)", "matches_run", "bool"),
)
# the value in the run of the flags the headline shows (the run is unchanged, checked, matched)
RUN_FLAGS = {"inputs_changed_since_run": False, "integrity_ok": True, "matches_run": True}

GUIDE = (
    *STYLE_GUIDE,
    ("Assumptions",
     "every input with its unit, source and defined name (its key, dots as underscores)."),
    ("Capacity",
     "the contract platform's curve (PCHIP), the physics envelope on the contract and GPU "
     "platforms and the throughputs that feed the money, live; the served speeds of the run "
     "(purple); every platform as a snapshot."),
    ("Market", "the API logit, the no-deal world and the value of an average MW of each use, live."),
    ("Costs, Revenue, Payback",
     "the monthly chain, live, on one timeline of 120 months; zero beyond the horizon; every "
     "month to the term prints, two pages across (the horizon prints by year on Annual)."),
    ("Annual", "the monthly chain summed by year, live, and the payback curve of every month."),
    ("Tornado, Grid, Monte Carlo, Sobol, Break-even",
     "which assumptions decide the answer, how likely payback is, what is worth knowing before signing."),
    ("Checks",
     "whether the live model can compute the choices, integrity checks (FALSE is red), findings "
     "(amber), the match with the econ run, what needs a rerun."),
)  # fmt: skip


def cover_sheet(
    book: Book, ws, a: Assumptions, head: dict, run_info: dict, analysis: dict | None = None
) -> None:
    """The Cover: the model's status, the answer, the headline figures, the run's tables (the
    two businesses, both sets of terms, the fleet-plan grid, the drivers that need a rerun) and
    the run (printed); the guide, the input files' hashes and the sentences' intermediate cells
    below, for the screen."""
    s = book.styles
    ws.set_column(0, 0, 46)
    ws.set_column(1, 1, SENTENCE_WIDTH)
    ws.set_column(2, 2, 12)
    title = "econ: payback analysis of renting ultra-fast inference capacity"
    ws.write_string(0, 0, title, s("title"))
    ws.write_string(1, 0, QUESTION, s("note"))
    ws.write_string(2, 0, "Model status (live, or what is wrong)", s("bold"))
    write_formula(ws, 2, 1, STATUS, "live", s("banner"))
    book.name("model_status", "'Cover'!$B$3")
    ws.write_string(3, 0, SIGN_CONVENTION, s("note"))
    first = 5
    row = _sentences(book, ws, sentences(head), first)
    row = _headline(book, ws, head, row + 1)
    _not_live(book, ws, first, row)
    row = _run_tables(book, ws, head, (analysis or {}).get("tornado"), row + 1)
    row = _run(book, ws, a, run_info, row + 1)
    book.cells["cover_print_end"] = row  # the rest (and the Contents sheet) for the screen
    row = _guide(book, ws, row + 2)
    row = _files(book, ws, a, row + 2)
    _parts(book, ws, parts(head), row + 2)
    ws.activate()


def _not_live(book: Book, ws, first: int, last: int) -> None:
    """Where the model is not live, the status and the banners red and the live sentences and
    headline figures struck through in grey: no figure sits under a 'live' label that is not."""
    red = book.wb.add_format({"bg_color": "#FFC7CE", "font_color": "#9C0006", "bold": True})
    struck = book.wb.add_format({"font_color": "#808080", "font_strikeout": True})
    rule = {"type": "formula", "criteria": f"=NOT({LIVE})"}
    ws.conditional_format(2, 1, 2, 1, {**rule, "format": red})
    for r in book.cells["cover_banners"]:
        ws.conditional_format(r, 1, r, 1, {**rule, "format": red})
    ws.conditional_format(first, 1, last, 1, {**rule, "format": struck})


def _sentences(book: Book, ws, said: list[Sentence], row: int) -> int:
    """The live sentences under one title, then the sentences of the run under the STALE
    banner (beside their title, within the printed columns); returns the last row."""
    s = book.styles
    write_formula(
        ws,
        row,
        0,
        f'=IF({LIVE},"The answer (live: recomputes when an input '
        'changes)","The answer (NOT live: see the status above)")',
        "The answer (live: recomputes when an input changes)",
        s("section"),
    )
    write_formula(ws, row, 1, "=model_status", "live", s("banner"))
    book.name("cover_live", f"'Cover'!$B${row + 1}")
    banners = [row]
    for d in (d for d in said if not d.stale):
        row += 1
        ws.write_string(row, 0, d.label, s("label", valign="top"))
        formula = f"=IF({COMPUTABLE},{d.formula},cover_cannot)"
        write_formula(ws, row, 1, formula, d.text, s("wrap"))
        _fit(ws, row, d.text)
        book.name(f"cover_{d.name}", f"'Cover'!$B${row + 1}")
    row += 2
    ws.write_string(row, 0, "From the run (rerun econ after changing inputs)", s("section"))
    write_formula(ws, row, 1, STALE, "current", s("banner"))
    book.name("cover_stale", f"'Cover'!$B${row + 1}")
    book.cells["cover_stale_banner"] = row
    for d in (d for d in said if d.stale):
        row += 1
        ws.write_string(row, 0, d.label, s("label", valign="top"))
        ws.write_string(row, 1, d.text, s("wrap", "rerun"))
        _fit(ws, row, d.text)
    book.cells["cover_banners"] = banners
    return row


def _fit(ws, row: int, text: str) -> None:
    """A sentence's row as tall as its lines: about 1.15 characters of a proportional font to
    a unit of column width (spreadsheet applications do not all grow a row for wrapped text
    when they open a file)."""
    lines = math.ceil(len(text) / (SENTENCE_WIDTH * CHARS_PER_WIDTH))
    if lines > 1:
        ws.set_row(row, 15 * lines)


CHARS_PER_WIDTH = 1.15


def _headline(book: Book, ws, head: dict, row: int) -> int:
    """The headline figures, each the named result itself."""
    s = book.styles
    row += 1
    write_formula(
        ws,
        row,
        0,
        f'=IF({LIVE},"Headline figures (live)","Headline figures (NOT '
        'live: see the status above)")',
        "Headline figures (live)",
        s("section"),
    )
    for label, name, fmt in HEADLINE:
        row += 1
        ws.write_string(row, 0, label, s("label"))
        value = head["rent_vs_buy"][name] if name == "lessor_yield_annual" else head.get(name)
        value = RUN_FLAGS.get(name, value)
        write_formula(ws, row, 1, f"={name}", "" if value is None else value, s(fmt, align="left"))
    return row


def _run_tables(book: Book, ws, head: dict, tornado, row: int) -> int:
    """Tables of the run (rerun econ to update them): the two businesses, both sets of terms,
    the fleet-plan grid and the NPV across the ranges of the drivers the workbook follows only
    after a rerun; returns the last row."""
    s = book.styles
    row += 1
    ws.write_string(row, 0, "Tables of the run (rerun econ after changing inputs)", s("section"))
    write_formula(ws, row, 1, STALE, "current", s("banner"))
    row += 1
    ws.write_string(row, 0, "The two businesses (section V4.1)", s("bold"))
    sz = head["ultrafast_business_size_at_rate"]
    items = [
        ("The ultrafast business alone (no moved traffic)", head["npv_ultrafast_only_usd"]),
        ("The capacity increment (moved traffic)", head["npv_capacity_increment_usd"]),
        ("NPV (their sum)", head["npv_usd"]),
        (f"The ultrafast business alone at {sz['best_mw']:,.1f} MW", sz["best_npv_usd"]),
    ]
    for label, x in items:
        row += 1
        ws.write_string(row, 0, label, s("label"))
        ws.write_number(row, 1, float(x), s("usd_b", "rerun", align="left"))
    rt = head.get("reported_terms")
    if rt and rt["reported"]:
        row += 2
        ws.write_string(row, 0, "Both sets of terms", s("bold"))
        head_ = f"{'the articles (this run)':<28}{'reported (scenario reported_terms)'}"
        ws.write_string(row, 1, head_, s("mono", "h"))
        for label, key, kind in TERMS_ROWS:
            row += 1
            ws.write_string(row, 0, label, s("label"))
            a_, b_ = (_term_text(t.get(key), kind) for t in (rt["this_run"], rt["reported"]))
            ws.write_string(row, 1, f"{a_:<28}{b_}", s("mono", "rerun"))
    g = head["fleet_plan_grid"]
    cells = {
        (c["fleet.avoidable_share"], c["capacity.movable_share"]): c["npv_usd"] for c in g["cells"]
    }
    row += 2
    ws.write_string(row, 0, "The fleet plan: NPV [$B]", s("bold"))
    lead = "avoidable share (rows), movable share:"
    ws.write_string(
        row, 1, f"{lead:<40}" + "".join(f"{m:>8.1f}" for m in g["movable_share"]), s("mono", "h")
    )
    for x in g["avoidable_share"]:
        row += 1
        ws.write_string(row, 0, f"avoidable share {x:.1f}", s("label"))
        line = "".join(f"{cells[(x, m)] / 1e9:>8.2f}" for m in g["movable_share"])
        ws.write_string(row, 1, " " * 40 + line, s("mono", "rerun"))
    return _rerun_drivers(book, ws, tornado, row)


TERMS_ROWS = (
    ("Contract value", "value_usd", "usd"),
    ("MW", "mw", "mw"),
    ("Term, months", "term_months", "n"),
    ("Rent basis", "payment", "text"),
    ("NPV", "npv_usd", "usd"),
    ("The ultrafast business alone", "npv_ultrafast_only_usd", "usd"),
    ("Cash payback month", "cash_payback_months", "pay"),
)


def _term_text(x, kind: str) -> str:
    if kind == "text":
        return {"pay_as_delivered": "paid as delivered", "take_or_pay": "take-or-pay"}.get(
            x, str(x)
        )
    if kind == "pay":
        return "none" if x is None or x != x else "never negative" if x == 0 else f"{x:.1f}"
    if kind == "usd":
        return _b(float(x))
    if kind == "mw":
        return f"{float(x):,.0f} MW"
    return f"{float(x):g}"


TOP = 16  # the tornado's largest keys the Cover accounts for


def _rerun_drivers(book: Book, ws, tornado, row: int) -> int:
    """Of the tornado's largest keys, those the workbook follows only after a rerun (the
    physics envelope and the realisation behind the served model): the NPV at the low and high
    of each one's range, from the run's tornado."""
    if tornado is None or not len(tornado):
        return row
    s = book.styles
    npv = tornado[tornado["output"] == "npv_usd"].copy()
    npv = npv[np.isfinite(npv["swing"].to_numpy(float))].sort_values("swing", ascending=False)
    top = npv.head(TOP)
    rerun = [rec for rec in top.itertuples(index=False) if rec.variable in book.rerun_inputs]
    live = len(top) - len(rerun)
    book.cells["cover_top_live"] = (live, len(top))
    if not rerun:
        return row
    row += 2
    ws.write_string(row, 0, "Drivers that need a rerun", s("bold", valign="top"))
    text = (
        f"Of the tornado's {len(top)} largest keys, {live} are live here; these "
        f"{len(rerun)} move the served model of the run (its served speeds, stage counts or "
        "realisation: values of the run on Capacity): the NPV at the low and high of each one's "
        "range, the others as set."
    )
    ws.write_string(row, 1, text, s("wrap"))
    _fit(ws, row, text)
    for rec in rerun:
        row += 1
        k = rec.variable
        ws.write_string(row, 0, k, s("key"))
        ws.write_string(
            row,
            1,
            f"{key_value(k, rec.low)} to {key_value(k, rec.high)} (base {key_value(k, rec.base)}):"
            f" NPV {_b(rec.output_low)} to {_b(rec.output_high)}",
            s("text", "rerun"),
        )
    return row


def _run(book: Book, ws, a: Assumptions, run_info: dict, row: int) -> int:
    """The run: scenario, overrides, data folder, version, time and the run's facts."""
    s = book.styles
    row += 1
    ws.write_string(row, 0, "The run", s("section"))
    info = [
        ("Scenario", a.scenario),
        ("Overrides", "; ".join(f"{k}={v} ({o})" for k, v, o in a.overrides) or "none"),
        ("Data folder", path_text(a.data_dir) + (" (bundled defaults)" if a.bundled else "")),
        ("econ version", __version__),
        ("Run at (UTC)", book.run_time),
        *[(k, str(v)) for k, v in run_info.items() if k != "time"],
    ]
    for k, v in info:
        row += 1
        ws.write_string(row, 0, k, s("label"))
        write_cell(ws, row, 1, v, s("wrap"))
    return row


def _guide(book: Book, ws, row: int) -> int:
    """How to read this workbook, and the legend of the input styles."""
    s = book.styles
    ws.write_string(row, 0, "How to read this workbook", s("section"))
    for k, v in GUIDE:
        row += 1
        ws.write_string(row, 0, k, s("label"))
        ws.write_string(row, 1, v, s("wrap"))
    ws.write_string(row + 2, 0, "Legend", s("bold"))
    ws.write_string(row + 3, 0, "an input", s("g", "input"))
    ws.write_string(row + 4, 0, "the answer follows it after a rerun of econ", s("g", "rerun"))
    return row + 4


def _files(book: Book, ws, a: Assumptions, row: int) -> int:
    """Each input file with its SHA-256."""
    s = book.styles
    ws.write_string(row, 0, "Input file", s("h"))
    ws.write_string(row, 1, "SHA-256", s("h"))
    for fi in a.files:
        row += 1
        ws.write_string(row, 0, fi.name, s("label"))
        ws.write_string(row, 1, fi.sha256, s("key"))
    return row


def _parts(book: Book, ws, declared: list[Result], row: int) -> None:
    """The sentences' intermediate cells: label, value, unit; each named ``cover_<name>``."""
    s = book.styles
    title = "Parts of the sentences above (live; not printed)"
    ws.write_string(row, 0, title, s("section"))
    row += 1
    for j, h in enumerate(("part", "value", "unit")):
        ws.write_string(row, j, h, s("h"))
    for d in declared:
        row += 1
        formula = d.formula
        if d.guard:
            formula = f"IF({COMPUTABLE},{formula},{'FALSE' if d.fmt == 'bool' else chr(34) * 2})"
        ws.write_string(row, 0, d.label, s("label"))
        write_formula(ws, row, 1, "=" + formula, d.value, s(d.fmt, align="left"))
        ws.write_string(row, 2, d.unit, s("unit"))
        book.name(f"cover_{d.name}", f"'Cover'!$B${row + 1}")
