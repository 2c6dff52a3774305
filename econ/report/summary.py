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


PAYMENT_WORDS = {
    "pay_as_delivered": "rent paid as the MW are delivered",
    "take_or_pay": "take-or-pay rent, owed in full whatever is delivered",
}


def _payback_words(p: float | None, H: int, T: int) -> str:
    if p is None:
        return f"never within {H} months"
    if p == 0:
        return "never negative"
    return f"month {months(p)}" + (" (after the term)" if p > T else "")


def _cash_payback_words(p: float | None) -> str:
    """A payback month in words, with no horizon named."""
    if p is None:
        return "none"
    return "never negative" if p == 0 else f"month {months(p)}"


def verdict(h: dict[str, Any], usd=usd) -> str:
    """Is the deal worth doing on its terms (section V4.1, the first line): the NPV, both
    paybacks with the payment basis, and the value the model does not price where the NPV is
    negative (``usd`` formats an amount)."""
    a = h["assumptions"]
    H, T = a["horizon.months"], a["contract.term_months"]
    npv = h["npv_usd"]
    rate = a["finance.discount_rate_annual"]
    pay = PAYMENT_WORDS.get(h.get("payment", ""), h.get("payment", ""))
    delivered = h.get("delivered_share", 1.0)
    basis = pay + ("" if delivered == 1 else f", {share(delivered)} of the MW delivered")
    head = (
        f"Worth doing on its terms: yes, NPV {usd(npv)} at {share(rate)}."
        if npv >= 0
        else f"Worth doing on its terms: no. NPV {usd(npv)} at {share(rate)}: it needs {usd(-npv)} "
        "of value the model does not price."
    )
    cash, econ = h.get("cash_payback_months"), h["payback_months"]
    return (
        f"{head} Payback counting the GPU cost avoided (economic): "
        f"{_payback_words(econ, H, T)}; on cash alone (revenue less rent): "
        f"{_payback_words(cash, H, T)} ({basis})."
    )


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
    eta = "; ".join(
        f"{plat} " + ", ".join(f"{t} {number(v)}" for t, v in tiers.items())
        for plat, tiers in sm["realisation"].items()
    )
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
        + f" (ceiling {speed(sm['ceiling_contract_tokens_per_s'])}). Value of a token crossing "
        f"the GPU-fleet boundary, per million output tokens: standard {money(g['standard'])}, fast "
        f"{money(g['fast'])}, flexible {money(g['flexible'])}"
        + (
            " (set by capacity.gpu_cost_per_mtok_usd)"
            if sm["gpu_cost_overridden"]
            else " (derived)"
        )
        + (f"; realisation of the physics envelope by regime: {eta}." if eta else ".")
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
                f" (implied premium over standard beyond its speed's worth {_signed_usd(prem)} per "
                "million)."
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


def rests_on(h: dict[str, Any], usd=usd) -> str:
    """What the answer rests on (section V4.1): the two businesses and the break-evens."""
    uf, inc = h["npv_ultrafast_only_usd"], h["npv_capacity_increment_usd"]
    sz = h["ultrafast_business_size_at_rate"]
    out = (
        f"What it rests on: the ultrafast business alone (Pro upgrades and ultrafast API tokens, "
        f"no traffic moved onto the contract) is worth {usd(uf)}; the capacity increment (the "
        f"standard traffic moved onto spare capacity, valued at the GPU-hours it frees) adds "
        f"{usd(inc)}. At the contract's rate the ultrafast business is worth most at "
        f"{mw(sz['best_mw'])} MW ({usd(sz['best_npv_usd'])})."
    )
    return out


def breakeven_sentence(h: dict[str, Any], ranges: dict[str, tuple[float, float]]) -> str:
    """The break-evens of the keys that decide the sign (section V4.1), each marked where the
    key's plausible range crosses it."""
    parts = []
    for key, b in h["breakevens"].items():
        base = b["base"]
        if b["value"] is None:
            parts.append(
                f"{key} none in {key_value(key, b['searched'][0])} to "
                f"{key_value(key, b['searched'][1])}"
            )
            continue
        lo, hi = ranges.get(key, (None, None))
        crosses = lo is not None and lo <= b["value"] <= hi
        parts.append(
            f"{key} {key_value(key, b['value'])} (now {key_value(key, base)}"
            + (
                f"; its range {key_value(key, lo)} to {key_value(key, hi)} crosses it"
                if crosses
                else ""
            )
            + ")"
        )
    return "Break-even (NPV = 0, everything else as set): " + "; ".join(parts) + "."


def wrong_sentence(h: dict[str, Any], ranges: dict[str, tuple[float, float]]) -> str:
    """What would make it wrong (section V4.1): the keys whose plausible range crosses a
    break-even, and the fleet plan's break-even line."""
    crossing = [
        k
        for k, b in h["breakevens"].items()
        if b["value"] is not None and k in ranges and ranges[k][0] <= b["value"] <= ranges[k][1]
    ]
    g = h["fleet_plan_grid"]
    line = [
        f"a {number(c['fleet.avoidable_share'])}: movable {number(c['capacity.movable_share'])}"
        for c in g["breakeven_line"]
        if c["capacity.movable_share"] is not None
    ]
    none = [
        c["fleet.avoidable_share"]
        for c in g["breakeven_line"]
        if c["capacity.movable_share"] is None
    ]
    cells = {
        (c["fleet.avoidable_share"], c["capacity.movable_share"]): c["npv_usd"] for c in g["cells"]
    }
    side = {}
    for x in none:
        row = [cells[(x, m)] for m in g["movable_share"]]
        side[x] = "above" if min(row) > 0 else "below"
    ends = [
        f"{c['key']} at the {c['end']} end of its range ({key_value(c['key'], c['value'])}: NPV "
        f"{usd(c['npv_usd'])})"
        for c in h.get("range_ends_crossing", [])
        if c["key"] not in crossing
    ]
    found = (
        ["the plausible ranges of " + ", ".join(crossing) + " cross their break-evens"]
        if crossing
        else []
    ) + (["one at a time, " + "; ".join(ends) + " turns the NPV's sign"] if ends else [])
    return (
        "What would make it wrong: "
        + ("; ".join(found) if found else "no sampled key's plausible range crosses its break-even")
        + "; the lab's own fleet plan decides the rest (the share of the term its GPU fleet is "
        "constrained, fleet.avoidable_share = a, and the share of its standard traffic it would "
        "move, capacity.movable_share): NPV = 0 at "
        + ("; ".join(line) if line else "no grid row")
        + (
            "; the NPV stays " + ", ".join(f"{side[x]} zero at a {number(x)}" for x in none)
            if none
            else ""
        )
        + " (`econ summary --json`: fleet_plan_grid)"
        + evppi_clause(h.get("value_of_information"))
        + "."
    )


def voi_brief(mc: dict[str, Any]) -> dict[str, Any]:
    """The Monte Carlo's value of information as the third line reads it (section V4.8): the
    EVPI, and the sampled key most worth resolving first with its EVPPI (None where no single
    key, known alone, would change the decision)."""
    ev = mc["evppi"]
    real = ev[ev["evppi"] > 0]
    top = real.iloc[0] if mc["evpi_usd"] > 0 and not real.empty else None
    return {
        "samples": int(mc["n"]),
        "evpi_usd": float(mc["evpi_usd"]),
        "evpi_se_usd": float(mc["evpi_se_usd"]),
        "key": None if top is None else str(top["key"]),
        "evppi_usd": None if top is None else float(top["evppi"]),
        "evppi_se_usd": None if top is None else float(top["evppi_se"]),
        "share_of_evpi": None if top is None else float(top["share_of_evpi"]),
    }


def evppi_clause(v: dict[str, Any] | None) -> str:
    """'; of the sampled uncertainties ...' from voi_brief, or where to find it."""
    if v is None:
        return "; which sampled uncertainty is worth resolving first: econ sensitivity montecarlo"
    n = v["samples"]
    if v["key"] is None:
        return (
            "; no sampled uncertainty, known alone, would change the decision (EVPI "
            f"{about(v['evpi_usd'], v['evpi_se_usd'], n)})"
        )
    return (
        f"; of the sampled uncertainties, {v['key']} is the one most worth resolving first, its "
        f"EVPPI {about(v['evppi_usd'], v['evppi_se_usd'], n)} or {share(v['share_of_evpi'])} of "
        "the EVPI"
    )


def grid_table(h: dict[str, Any]) -> list[str]:
    """The fleet-plan grid as a compact table: NPV [$B] by avoidable share (rows) and movable
    share (columns)."""
    g = h["fleet_plan_grid"]
    cells = {
        (c["fleet.avoidable_share"], c["capacity.movable_share"]): c["npv_usd"] for c in g["cells"]
    }
    head = "  NPV $B    movable " + "".join(f"{m:>7.1f}" for m in g["movable_share"])
    rows = [head]
    for x in g["avoidable_share"]:
        rows.append(
            f"  avoidable {x:>4.1f}   "
            + "".join(f"{cells[(x, m)] / 1e9:>7.2f}" for m in g["movable_share"])
        )
    return rows


def terms_sentence(h: dict[str, Any], usd=usd) -> str | None:
    """The articles' terms beside the publicly reported ones (section V4.1)."""
    rt = h.get("reported_terms")
    if not rt:
        return None
    a_, b_ = rt["this_run"], rt["reported"]

    def one(t: dict[str, Any], name: str) -> str:
        return (
            f"{name} ({usd(t['value_usd'])} for {mw(t['mw'])} MW over {number(t['term_months'])} months, "
            f"{PAYMENT_WORDS.get(t['payment'], t['payment'])}): NPV {usd(t['npv_usd'])}, the "
            f"ultrafast business {usd(t['npv_ultrafast_only_usd'])}, cash payback "
            + _cash_payback_words(t["cash_payback_months"])
        )

    if b_ is None:
        return (
            "Both sets of terms: "
            + one(a_, "the articles' terms")
            + "; the reported terms (scenario reported_terms) cannot apply to this run's "
            + f"settings: {rt['reason']}"
        )
    return (
        "Both sets of terms: "
        + one(a_, "the articles' terms")
        + "; the reported terms (scenario reported_terms) "
        + one(b_, "")
        + "."
    ).replace("reported_terms)  (", "reported_terms) (")


def gpu_value_sentence(h: dict[str, Any]) -> str:
    """What a standard token freed on the GPU fleet is worth, beside the public anchors
    (sections V4.3, V4.4)."""
    sm, an = h["served_model"], h["gpu_cost_anchors"]
    gh, g = sm["gpu_hour"], sm["gpu_cost_per_mtok_usd"]
    ds = an.get("deepseek_disclosed")
    return (
        f"A standard token freed on the {sm['gpu_platform']} fleet is worth {money(g['standard'])} "
        f"per million (one value per freed GPU-hour: {money(gh['value_usd'])} = a x rent "
        f"{money(gh['rent_usd'])} + (1 - a) x (sublet {money(gh['sublet_usd'])} + energy "
        f"{money(gh['energy_usd'])}), a = {number(gh['avoidable_share'])}, over "
        f"{number(sm['gpu_hours_per_mtok']['standard'])} GPU-hours a million at full use and "
        f"{share(gh['ops_utilization'])} operational use; troughs {gh['troughs']}). At a = 1: "
        f"{money(an['model_at_avoidable_share_1'])}"
        + (
            f", against DeepSeek's disclosed day of inference transferred to the served model "
            f"{money(ds)}"
            if ds is not None
            else ""
        )
        + f" and the margin bound {money(an['margin_bound'])} (a check, not a clamp)"
        + (
            " (the value is clamped at the list price)"
            if sm["gpu_cost_clamped_at_list_price"]
            else ""
        )
        + "."
    )


def decline_sentence(h: dict[str, Any], usd=usd) -> str:
    """Successors lower prices and costs over the term (section V4.6)."""
    return (
        f"Successor models lower the served tier's API prices {share(h['price_decline_per_year'])} "
        f"and its GPU cost per token {share(h['gpu_cost_decline_per_year'])} a year (subscription "
        f"prices and the rent stay as listed): NPV {usd(h['npv_usd'])}, against "
        f"{usd(h['npv_no_decline_usd'])} with both held flat."
        + successor_words(h.get("successor"), h["npv_usd"], usd)
    )


def successor_words(sc: dict[str, Any] | None, npv: float, usd=usd) -> str:
    """A successor of another size (section V4.6), or nothing."""
    if not sc:
        return ""
    where = (
        f"the contract serves it (its ceiling {sc['ceiling_contract_tokens_per_s']:,.0f} tokens/s) "
        f"at {sc['throughput_per_mw_ultrafast']:,.0f} tokens/s per MW instead of "
        f"{sc['throughput_per_mw_ultrafast_served_model']:,.0f}"
        if sc["served_on_contract"]
        else f"the contract cannot serve it at {sc['served_ultrafast_tokens_per_s']:,.0f} tokens/s "
        f"(its ceiling {sc['ceiling_contract_tokens_per_s']:,.0f}) and serves the predecessor, "
        f"whose demand falls {share(sc['predecessor_decline_per_month'])} a month"
    )
    return (
        f" A successor with {sc['params_multiple']:g}x the parameters is the flagship from month "
        f"{sc['first_month']}: {where}; a standard token off the GPU fleet is worth "
        f"{money(sc['gpu_cost_standard'])} instead of {money(sc['gpu_cost_standard_served_model'])} "
        f"per million; NPV {usd(npv)}, against {usd(sc['npv_same_size_usd'])} with successors of "
        "the served model's size."
    )


def moved_sentence(h: dict[str, Any], usd=usd) -> str:
    """How much standard traffic can move (section V4.2)."""
    mt = h["moved_traffic"]
    return (
        f"Moved traffic is bounded by the served model's own demand: in month 1 the no-deal "
        f"standard demand (Plus, Pro and API) is {count(mt['demand_no_deal_tokens_month_1'])} "
        f"output tokens, of which the deal already credits "
        f"{count(mt['credited_tokens_month_1'])} (adopters and diverted API tokens); "
        f"{share(mt['movable_share'])} of the rest may move, "
        f"{count(mt['moved_demand_cap_tokens_month_1'])} a month"
        + (
            f", plus {count(mt['internal_batch_tokens_per_month'])} of internal batch work"
            if mt["internal_batch_tokens_per_month"]
            else ""
        )
        + "."
    )


def text(h: dict[str, Any]) -> str:
    """The readable summary in short paragraphs: is it worth doing on its terms, what it rests
    on, what would make it wrong (section V4.1), then the figures behind it. The amounts of one
    sentence in one unit ($0.43B beside -$1.30B, never $433.85M beside $1.30B); the plausible
    ranges are the headline's (sensitivity.csv and the fleet-plan grid)."""
    usd = usd_mark
    ranges = {k: tuple(v) for k, v in (h.get("plausible_ranges") or {}).items()}
    a = h["assumptions"]
    H, T = a["horizon.months"], a["contract.term_months"]
    tot = h["totals"]
    title = (
        f"econ: scenario {h['scenario']}"
        + (" (bundled default data)" if h["bundled_data"] else "")
        + "".join(
            f"; --set {o['key']}={o['value']}" for o in h["overrides"] if o["origin"] == "--set"
        )
    )
    first = [verdict(h, usd), rests_on(h, usd), breakeven_sentence(h, ranges)]
    wrong = [wrong_sentence(h, ranges)]
    terms = terms_sentence(h, usd)
    irr = h["irr_annual"]
    tv_pv = h.get("terminal_value_pv_usd", h["npv_usd"] - h["npv_without_terminal_value_usd"])
    tv = (
        f", of which {usd(tv_pv)} is the terminal value's present value (the Pro tail after "
        f"month {H})"
        if h["terminal_value_included"]
        else " (terminal value left out)"
    )
    dp = h["discounted_payback_months"]
    figures = [
        f"NPV at {share(a['finance.discount_rate_annual'])}: {usd(h['npv_usd'])}{tv}; over the "
        f"{T}-month term alone {usd(h['npv_at_term_usd'])}. Profitability index {index(h['profitability_index'])}; "
        + irr_words(irr, h.get("irr_note"))
        + "; "
        + mirr_words(h.get("mirr_annual"))
        + "; discounted payback "
        + (f"month {months(dp)}" if dp is not None else "none")
        + ".",
        f"Behind it: {usd(tot['rent_usd'])} of rent against {usd(tot['subscription_revenue_usd'])} of Pro "
        f"upgrades (up to {count(tot['peak_incremental_pro_subscribers'])} extra Pro subscribers, "
        f"{count(tot['incremental_pro_subscribers_at_horizon'])} left in month {H}), "
        f"{usd(tot['api_revenue_usd'])} of net ultrafast API revenue (after the standard and fast revenue it replaces) and "
        f"{usd(tot['gpu_savings_usd'])} of GPU cost avoided, net (tokens moved off GPUs save "
        f"{usd(tot['gpu_cost_of_moved_usd'])}, {usd(tot['backfill_usd'])} of it by moving standard "
        f"traffic onto spare capacity; the upgraders' extra usage costs the GPU fleet "
        f"{usd(tot['gpu_cost_of_added_usd'])}), less {usd(tot['variable_costs_usd'])} of variable "
        f"costs ({share(a['finance.variable_cost_share'])} of revenue); realised cost "
        f"{usd_plain(h['realised_cost_per_mtok_usd'])} per million tokens served.",
    ]
    lim = h["capacity_limits"]
    if lim["capacity_limits_revenue"]:
        figures.append(
            f"Capacity, not demand, limits revenue in {max(lim['api_capped_months'], lim['adoption_capped_months'])} "
            f"of the {T} months: the API is capped in {lim['api_capped_months']} "
            f"({count(lim['api_tokens_lost'])} tokens turned away), ultrafast adoption in "
            f"{lim['adoption_capped_months']}."
        )
    else:
        figures.append(utilization_sentence(h))
    value = [moved_sentence(h, usd), gpu_value_sentence(h), decline_sentence(h, usd)]
    m = h["monthly"]
    rb = h["rent_vs_buy"]
    be = rb["breakeven_system_price_usd"]
    y = rb["lessor_yield_annual"]
    rest = [
        f"Cap hits among Plus users: {share(m['plus_cap_hit_share'][0])} in month 1 with ultrafast against "
        f"{share(m['plus_cap_hit_share_counterfactual'][0])} without; ultrafast adoption peaks at "
        f"{share(tot['peak_ultrafast_adoption'])} of eligible users. The articles' "
        f"back-of-the-envelope: {count(h['simple_breakeven_pro_users'])} Pro users "
        f"({share(h['simple_breakeven_share_of_mau'])} of MAU) for {T} months pay the contract.",
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
        + ("." if rb["rent_and_price_consistent"] else ""),
    ]
    paragraphs = [
        [title],
        first,
        wrong,
        grid_table(h),  # a table of its own under the sentence that reads it
        *([[terms]] if terms else []),
        figures,
        value,
        [physics_sentence(h, usd)],
        v3_sentences(h, usd),
        rest,
    ]
    return one_unit("\n\n".join("\n".join(p) for p in _short(paragraphs)))


# a paragraph's sentences are packed up to this many characters (about eight lines of 80)
PARAGRAPH_CHARS = 640


def _short(paragraphs: list[list[str]]) -> list[list[str]]:
    """Each paragraph of sentences cut into paragraphs of at most PARAGRAPH_CHARS characters
    (a longer sentence stands alone); a table (lines indented by two spaces) stays whole."""
    out: list[list[str]] = []
    for p in paragraphs:
        if any(x.startswith("  ") for x in p):
            out.append(p)
            continue
        group: list[str] = []
        for x in p:
            if group and sum(len(y) + 1 for y in group) + len(x) > PARAGRAPH_CHARS:
                out.append(group)
                group = []
            group.append(x)
        if group:
            out.append(group)
    return out


def markdown(
    h: dict[str, Any], analysis: dict[str, Any], pngs, workbook: str, run_time: str
) -> str:
    """summary.md: the answer, the Monte Carlo and the value of information, the charts."""
    body = [f"# Payback analysis: {h['scenario']}"]
    for para in text(h).split("\n\n")[1:]:  # the title is the heading
        lines = para.splitlines()
        prose = [x for x in lines if not x.startswith("  ")]
        table = [x[2:] for x in lines if x.startswith("  ")]
        body += prose + (["```\n" + "\n".join(table) + "\n```"] if table else [])
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
            f"{share(st[('payback_months', 'P(payback <= term)')])} (never negative "
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
    top = voi_brief(mc)
    if top["key"] is None:
        return (
            f"{decided}Value of information: perfect information on every input would be worth "
            f"{evpi}; no single uncertainty, known alone, would "
            "change the decision."
        )
    real = ev[ev["evppi"] > 0]
    zero = int((ev["evppi"] == 0).sum())
    return (
        f"{decided}Value of information: perfect information on every input would be worth "
        f"{evpi}; the uncertainty most worth resolving first is {top['key']} (EVPPI "
        f"{about(top['evppi_usd'], top['evppi_se_usd'], n)}, {share(top['share_of_evpi'])} of "
        "the EVPI)"
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
