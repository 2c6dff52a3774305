"""The headline as readable text: the answer first, then the figures behind it. Formats the
dict of econ.headline; derives nothing."""

from __future__ import annotations

from typing import Any

from econ.constants import IRR_MEANINGFUL_MAX
from econ.formatting import count, index, key_value, months, mw, number, ratio, share, sig, speed
from econ.report.terminal import money, one_unit, usd_mark

LEVER_WORDS = {
    "speculative_speedup": lambda x: f"speculative decoding of {ratio(x)}",
    "bytes_per_param": lambda x: (
        "8-bit weights" if x >= 1 else "4-bit weights" if x >= 0.5 else f"{sig(x, 2)}-byte weights"
    ),
    "active_param_share": lambda x: f"a mixture of experts reading {share(x)} of its weights",
}


def usd(x: float | None) -> str:
    """$1.23B, $456.7M, $7.9k or $12.00 (econ.report.terminal.money); 'n/a' for None."""
    if x is None:
        return "n/a"
    return money(x)


usd_plain = usd


def verdict(h: dict[str, Any], usd=usd) -> str:
    """The answer in one sentence (``usd`` formats an amount)."""
    a = h["assumptions"]
    H, T = a["horizon.months"], a["contract.term_months"]
    p = h["payback_months"]
    need = (
        f"; cash need peaks at {usd(h['max_deficit_usd'])} in month {h['max_deficit_month']}."
        if h["max_deficit_month"] is not None
        else "."
    )
    if p is None:
        return (
            f"Does not pay back within {H} months: cumulative cash ends {usd(h['shortfall_usd'])} "
            f"short{need}"
        )
    if p == 0:
        return "Never cash-negative: cumulative cash stays at or above zero every month (payback month 0)."
    when = "within the term" if p <= T else f"after the {T}-month term"
    return f"Pays back for good in month {months(p)} ({when}){need}"


IRR_UNDEFINED = "IRR undefined (no rate brings the present value of the flows to zero)"


def irr_words(irr: float | None, note: str | None = None) -> str:
    """'IRR 12.3% a year', 'IRR above 1,000% a year (...)', or why there is none: ``note``
    (econ.payback: no meaningful IRR, flows that never change sign) or undefined."""
    if irr is None:
        return note if note and note.startswith("no ") else IRR_UNDEFINED
    if irr > IRR_MEANINGFUL_MAX:
        return (
            f"IRR above {IRR_MEANINGFUL_MAX:,.0%} a year (outflows tiny against the inflows after "
            "them: not a meaningful rate)"
        )
    return f"IRR {share(irr)} a year"


def mirr_words(mirr: float | None) -> str:
    """'MIRR 12.3% a year (at the discount rate)' or none."""
    if mirr is None:
        return "no MIRR (no money out or no money in)"
    return f"MIRR {share(mirr)} a year (at the discount rate)"


def utilization_sentence(h: dict[str, Any]) -> str:
    """How the contract's MW were used over the term (section 0.2: allocated by value)."""
    a, tot = h["assumptions"], h["totals"]
    mwm = {
        k: tot[f"mw_months_{k}"]
        for k in ("api", "subscriber", "backfill_peak", "backfill_flexible", "idle")
    }
    total = sum(mwm.values()) or 1.0
    parts = ", ".join(
        f"{name} {share(mwm[k] / total)}"
        for k, name in (
            ("api", "API"),
            ("subscriber", "subscriber streams"),
            ("backfill_peak", "peak-shaped backfill"),
            ("backfill_flexible", "flexible backfill"),
            ("idle", "idle"),
        )
    )
    return (
        f"The contract's MW over the term (average MW-months, allocated each month by value): "
        f"{parts}; {share(tot['term_average_utilization'])} utilised, MW-weighted "
        f"({a['contract.term_months']} months)."
    )


def physics_sentence(h: dict[str, Any], usd=usd) -> str:
    """Whether the ultrafast speed is physically plausible, and what it would take if not
    (``usd`` formats an amount)."""
    ph = h["physics"]
    a = h["assumptions"]
    s, plat = ph["speed"], ph["platform"]
    bpp = a["model.bytes_per_param"]
    model = (
        f"a {sig(a['model.params'] / 1e12, 3)}T-parameter model at {sig(bpp, 3)} "
        f"byte{'' if bpp == 1 else 's'} a parameter"
    )
    basis = _physics_basis(h, usd)
    if not ph["within_ceiling"]:
        levers = [LEVER_WORDS[k](v) for k, v in ph["speed_levers"].items() if v is not None]
        claim = ph["claimed_tokens_per_s_per_mw"]
        pair = [c for c in ph["combinations"] if c["physics_tokens_per_s_per_mw"] >= claim]
        throughput = (
            ""
            if not claim
            else " Those raise the speed one user sees, not the throughput per MW: the physics "
            f"envelope reaches the curve's {count(claim)} tokens/s per MW at that speed "
            + (
                "only with "
                + " and ".join(LEVER_WORDS[k](v) for k, v in pair[0]["changes"].items())
                + " together."
                if pair
                else "with no pair of levers."
            )
        )
        return (
            f"Physics: {speed(s)} tokens/s on {plat} is above the per-user ceiling of "
            f"{speed(ph['ceiling_tokens_per_s'])} tokens/s for {model}"
            + (
                f"; it would take {' or '.join(levers)}."
                if levers
                else "; no single lever gets there."
            )
            + throughput
            + basis
        )
    if ph["within_envelope"]:
        return (
            f"Physics: {speed(s)} tokens/s on {plat} is within the ceiling ({speed(ph['ceiling_tokens_per_s'])}) "
            f"and the curve's {count(ph['claimed_tokens_per_s_per_mw'])} tokens/s per MW within the "
            f"physics envelope ({count(ph['physics_tokens_per_s_per_mw'])}) for {model}: plausible."
            + basis
        )
    levers = [LEVER_WORDS[k](v) for k, v in ph["throughput_levers"].items() if v is not None]
    pair = [
        c
        for c in ph["combinations"]
        if c["physics_tokens_per_s_per_mw"] >= ph["claimed_tokens_per_s_per_mw"]
    ]
    fix = (
        f"it would take {' or '.join(levers)}"
        if levers
        else "no single lever gets there"
        + (
            "; "
            + " and ".join(LEVER_WORDS[k](v) for k, v in pair[0]["changes"].items())
            + " together would"
            if pair
            else ""
        )
    )
    return (
        f"Physics: {speed(s)} tokens/s on {plat} is within the ceiling ({speed(ph['ceiling_tokens_per_s'])}), but "
        f"the curve's {count(ph['claimed_tokens_per_s_per_mw'])} tokens/s per MW exceeds the physics envelope "
        f"({count(ph['physics_tokens_per_s_per_mw'])}) {ratio(ph['claim_over_physics'])} for {model}; {fix}."
        + basis
    )


def v3_sentences(h: dict[str, Any], usd=usd) -> list[str]:
    """The served model on every platform, the API market, the no-deal world and the size at the
    contract's rate (docs/model.md, version 3); ``usd`` formats an amount."""
    sm, api, nd, sz = h["served_model"], h["api_market"], h["no_deal"], h["size_at_rate"]
    sp = sm["served_tokens_per_s"]
    eta = ", ".join(f"{k} {number(v)}" for k, v in sm["realisation"].items())
    g = sm["gpu_cost_per_mtok_usd"]
    out = [
        f"Served model on the {sm['basis']} basis: standard {speed(sp['standard'])} and fast "
        f"{speed(sp['fast'])} tokens/s on {sm['gpu_platform']} (ceiling "
        f"{speed(sm['ceiling_gpu_tokens_per_s'])}), ultrafast "
        + (
            f"{speed(sp['ultrafast'])} tokens/s on {sm['contract_platform']}"
            if sm["ultrafast_offered"]
            else f"not offered on {sm['contract_platform']}"
        )
        + f" (ceiling {speed(sm['ceiling_contract_tokens_per_s'])}). GPU cost per million output "
        f"tokens: standard {money(g['standard'])}, fast {money(g['fast'])}"
        + (
            " (set by capacity.gpu_cost_per_mtok_usd)"
            if sm["gpu_cost_overridden"]
            else " (derived)"
        )
        + (f"; realisation of the physics envelope: {eta}." if eta else ".")
    ]
    sh = api["share"]
    if sm["ultrafast_offered"] and api["margin_per_mtok_usd"] is not None:
        prem = api["implied_premium_per_mtok_usd"]
        out.append(
            f"API market (logit over speed tiers): ultrafast takes {share(sh['ultrafast'])} of "
            f"{count(api['market_tokens_per_month'])} tokens a month; each ultrafast token "
            f"replaces {number(api['diversion']['standard'])} standard and "
            f"{number(api['diversion']['fast'])} fast tokens and earns a margin of "
            f"{money(api['margin_per_mtok_usd'])} per million"
            + (
                f" (implied premium over standard {_signed_usd(prem)} per million)."
                if prem is not None
                else "."
            )
        )
    else:
        out.append(
            "API market: the ultrafast tier is not offered, so no API token earns a margin on "
            f"the contract; standard and fast keep {share(sh['standard'])} and {share(sh['fast'])} of "
            f"{count(api['market_tokens_per_month'])} tokens a month."
        )
    out.append(
        f"No-deal world: the Pro stock grows {share(nd['pro_growth_monthly'])} a month at first "
        f"(calibrated: base upgrade rate {share(nd['base_upgrade_monthly'])} a month, cap-hit "
        f"propensity {share(nd['capped_upgrade_propensity'])})."
    )
    out.append(
        f"At the contract's rate ({money(h['contract_rate_usd_per_mw_month'])} per MW-month) "
        f"the NPV is highest at {mw(sz['best_mw'])} MW: {usd(sz['best_npv_usd'])}"
        + (" (the top of the search)" if sz["at_upper_bound"] else "")
        + "."
    )
    return out


def _physics_basis(h: dict[str, Any], usd=usd) -> str:
    """' NPV by basis ...' : the answer on the data curves, transferred, and pure physics."""
    nb = h.get("npv_by_basis_usd") or {}
    parts = [f"{k} {usd(v)}" for k, v in nb.items() if v is not None]
    return f" NPV by capacity basis: {', '.join(parts)}." if parts else ""


def text(h: dict[str, Any]) -> str:
    """The readable summary in short paragraphs, a blank line between them: the answer first,
    then the figures behind it; every figure by econ.formatting (one rule: $8.32B reads the
    same in every sentence and command)."""
    usd = usd_mark
    a = h["assumptions"]
    H, T = a["horizon.months"], a["contract.term_months"]
    tot = h["totals"]
    lines = [
        f"econ: scenario {h['scenario']}"
        + (" (bundled default data)" if h["bundled_data"] else "")
        + "".join(
            f"; --set {o['key']}={o['value']}" for o in h["overrides"] if o["origin"] == "--set"
        ),
        "",
        verdict(h, usd),
    ]
    irr = h["irr_annual"]
    tv_pv = h.get("terminal_value_pv_usd", h["npv_usd"] - h["npv_without_terminal_value_usd"])
    tv = (
        f", of which {usd(tv_pv)} is the terminal value's present value (the Pro tail after "
        f"month {H})"
        if h["terminal_value_included"]
        else " (terminal value left out)"
    )
    dp = h["discounted_payback_months"]
    lines.append(
        f"NPV at {share(a['finance.discount_rate_annual'])}: {usd(h['npv_usd'])}{tv}; over the "
        f"{T}-month term alone {usd(h['npv_at_term_usd'])}. Profitability index {index(h['profitability_index'])}; "
        + irr_words(irr, h.get("irr_note"))
        + "; "
        + mirr_words(h.get("mirr_annual"))
        + "; discounted payback "
        + (f"month {months(dp)}" if dp is not None else "none")
        + "."
    )
    lines.append("")
    lines.append(
        f"Behind it: {usd(tot['rent_usd'])} of rent against {usd(tot['subscription_revenue_usd'])} of Pro "
        f"upgrades (up to {count(tot['peak_incremental_pro_subscribers'])} extra Pro subscribers, "
        f"{count(tot['incremental_pro_subscribers_at_horizon'])} left in month {H}), "
        f"{usd(tot['api_revenue_usd'])} of net ultrafast API revenue (after the standard and fast "
        f"revenue it replaces) and {usd(tot['gpu_savings_usd'])} of GPU "
        f"cost avoided, net (tokens moved off GPUs save {usd(tot['gpu_cost_of_moved_usd'])}, "
        f"{usd(tot['backfill_usd'])} of it by backfilling spare capacity; the upgraders' extra "
        f"usage costs the GPU fleet {usd(tot['gpu_cost_of_added_usd'])}), less "
        f"{usd(tot['variable_costs_usd'])} of variable costs "
        f"({share(a['finance.variable_cost_share'])} of revenue); realised cost "
        f"{usd_plain(h['realised_cost_per_mtok_usd'])} per million tokens served."
    )
    lim = h["capacity_limits"]
    if lim["capacity_limits_revenue"]:
        lines.append(
            f"Capacity, not demand, limits revenue in {max(lim['api_capped_months'], lim['adoption_capped_months'])} "
            f"of the {T} months: the API is capped in {lim['api_capped_months']} "
            f"({count(lim['api_tokens_lost'])} tokens turned away), ultrafast adoption in "
            f"{lim['adoption_capped_months']}."
        )
    else:
        lines.append(utilization_sentence(h))
    v3 = v3_sentences(h, usd)
    lines += ["", physics_sentence(h, usd), "", *v3[:2], "", *v3[2:], ""]
    m = h["monthly"]
    lines.append(
        f"Cap hits among Plus users: {share(m['plus_cap_hit_share'][0])} in month 1 with ultrafast against "
        f"{share(m['plus_cap_hit_share_counterfactual'][0])} without; ultrafast adoption peaks at "
        f"{share(tot['peak_ultrafast_adoption'])} of eligible users."
    )
    lines.append(
        f"The articles' back-of-the-envelope: {count(h['simple_breakeven_pro_users'])} Pro users "
        f"({share(h['simple_breakeven_share_of_mau'])} of MAU) for {T} months pay the contract."
    )
    rb = h["rent_vs_buy"]
    be = rb["breakeven_system_price_usd"]
    y = rb["lessor_yield_annual"]
    lines.append("")
    lines.append(
        f"Rent vs buy ({rb['platform']}, {T} months, facility MW): present cost of renting "
        f"{usd(rb['rent_npv_usd'])} ({usd(rb['rent_usd_per_delivered_mw_month'], 'per MW-month')} per delivered MW-month), "
        f"of buying {usd(rb['buy_npv_usd'])} ({usd(rb['buy_usd_per_delivered_mw_month'], 'per MW-month')}); buying matches renting at a "
        "system price of "
        + (usd(be, "per system") if be is not None else f"none ({rb['breakeven_note']})")
        + ". The lessor's yield on this rent at this hardware price: "
        + (
            f"{share(y)} a year"
            if y is not None
            else "none (the rent and resale never recover the capex)"
        )
        + (
            ""
            if rb["rent_and_price_consistent"]
            else ", far below any cost of capital: the rent and the hardware price cannot both be right."
        )
        + ("." if rb["rent_and_price_consistent"] else "")
    )
    return one_unit("\n".join(lines))


def markdown(
    h: dict[str, Any], analysis: dict[str, Any], pngs, workbook: str, run_time: str
) -> str:
    """summary.md: the answer, the Monte Carlo and the value of information, the charts."""
    body = [f"# Payback analysis: {h['scenario']}", *(x for x in text(h).splitlines()[1:] if x)]
    body.append(
        f"Data: {'the bundled defaults' if h['bundled_data'] else '`' + str(h['data']) + '`'} "
        f"(SHA-256 of its files {h['data_sha256'][:16]})."
    )
    if analysis.get("differs"):
        body.append(analysis["differs"])
    if "mc" in analysis:
        mc = analysis["mc"]
        st = mc["stats"].set_index(["output", "statistic"])["value"]
        body.append(
            f"Monte Carlo ({mc['n']:,} samples): P(payback within the term) "
            f"{share(st[('payback_months', 'P(payback <= term)')])} (never cash-negative "
            f"{share(st[('payback_months', 'share never cash-negative')])}), P(NPV > 0) "
            f"{share(st[('npv_usd', 'P(NPV > 0)')])}, median NPV {usd(st[('npv_usd', 'P50')])}, "
            f"median profitability index {index(st[('profitability_index', 'P50')])}"
            + _mirr_percentiles(st)
            + "."
        )
        body.append(voi_sentence(mc))
        if mc.get("held"):
            body.append(held_sentence(mc["held"]))
    body += [f"![{p.stem}]({p.name})" for p in pngs]
    body.append(f"Details: `{workbook}` (run {run_time}).")
    return "\n\n".join(body) + "\n"


def _mirr_percentiles(st) -> str:
    """', MIRR P10/P50/P90 a year ...' from the Monte Carlo statistics (blank ones: above the
    meaningful range or undefined), or nothing where the run has no MIRR."""
    import math

    if ("mirr_annual", "P50") not in st.index:
        return ""

    def pct(q: str) -> str:
        x = st[("mirr_annual", q)]
        return "n/a" if not math.isfinite(x) else share(x)

    return (
        f", MIRR P10 {pct('P10')}, median {pct('P50')}, P90 {pct('P90')} a year "
        f"(undefined in {share(st[('mirr_annual', 'share undefined')])} of samples: no money out)"
    )


def held_sentence(held: list[tuple[str, float, str]]) -> str:
    """The uncertain inputs a scenario or --set holds fixed, with their values."""
    return (
        "Held at the value the scenario or --set gives, not varied: "
        + ", ".join(f"{k} = {key_value(k, v)} ({by})" for k, v, by in held)
        + "."
    )


def about(x: float, se: float, n: int) -> str:
    """'about $X (+/- $Y, N samples)': an estimate with its standard error."""
    return f"about {usd(x)} (+/- {usd(se)}, {n:,} samples)"


def voi_lines(mc: dict[str, Any]) -> list[str]:
    """The value of information key by key: each key worth something first, then the keys at 0
    grouped by why."""
    ev, n = mc["evppi"], mc["n"]
    out = [f"EVPI (every input known): {about(mc['evpi_usd'], mc['evpi_se_usd'], n)}"]
    for rec in ev[ev["evppi"] > 0].itertuples(index=False):
        out.append(
            f"EVPPI {rec.key}: {about(rec.evppi, rec.evppi_se, n)}, {share(rec.share_of_evpi)} of the EVPI"
        )
    zero = ev[ev["evppi"] == 0]
    for reason, keys in zero.groupby("reason", sort=False)["key"]:
        out.append(f"EVPPI 0 for {len(keys)} keys ({reason}): " + ", ".join(keys))
    return out


def voi_sentence(mc: dict[str, Any]) -> str:
    """The decision made now and the uncertainty most worth resolving before it, from the value
    of information (EVPI and EVPPI with their standard errors)."""
    ev, n = mc["evppi"], mc["n"]
    opts = mc.get("options", {})
    best = mc.get("best_option")
    decided = (
        f"Deciding now, the best option on average is {best} (mean NPV {usd(opts[best])}"
        + "; ".join([""] + [f"{k} {usd(v)}" for k, v in opts.items() if k != best])
        + "). "
        if best in opts
        else ""
    )
    evpi = f"{about(mc['evpi_usd'], mc['evpi_se_usd'], n)} (EVPI)"
    real = ev[ev["evppi"] > 0]
    if not mc["evpi_usd"] > 0 or real.empty:
        return (
            f"{decided}Value of information: perfect information on every input would be worth "
            f"{evpi}; no single uncertainty, known alone, would "
            "change the decision."
        )
    top = real.iloc[0]
    zero = int((ev["evppi"] == 0).sum())
    return (
        f"{decided}Value of information: perfect information on every input would be worth "
        f"{evpi}; the uncertainty most worth resolving first is {top['key']} (EVPPI "
        f"{about(top['evppi'], top['evppi_se'], n)}, {share(top['share_of_evpi'])} of the EVPI)"
        + (
            f", then {real.iloc[1]['key']} ({about(real.iloc[1]['evppi'], real.iloc[1]['evppi_se'], n)})"
            if len(real) > 1
            else ""
        )
        + (
            f". {zero} keys show 0: known alone, they would not change the decision "
            "(the same option is best at every value, or the model does not read them)."
            if zero
            else "."
        )
    )


def _signed_usd(x: float) -> str:
    """-$360.00 rather than $-360 (econ.formatting.money)."""
    return money(x)
