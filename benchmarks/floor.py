"""A bare-numpy floor of the version-4 arithmetic: NPV only.

The irreducible work of docs/model.md (sections V4, 0 and 3.5-6) for n scenarios: the served
speeds and the contract's throughput (0.1, V4.5), the value of a freed GPU-hour and of a token
crossing the GPU-fleet boundary (V4.3), the API logit and the margin of an ultrafast token
(0.4) with prices and costs on their indices (V4.6), the lognormal survival functions and
truncated means per month (5.2; an adopter's mixed burn, V4.7; the ultrafast ones only in the
term's months), the calibrated no-deal world (0.5) and the Pro price response (V4.7), the
value of a Pro convert W_t, the moved traffic's caps (V4.2) and the monthly allocation of the
contract (0.2) stepped with the two Pro stocks, revenue, the GPU-fleet boundary, discounting,
the terminal value and the NPV (6).

Left out, because the floor has no need of them: input checks, the choice of the served speed
(the Monte Carlo holds the base case's; so does the floor), IRR, payback, cumulative cash, the
clamps' flags and the prior predictive, sampling, the fan histograms and the value-of-
information estimates (the benchmark times each of those inside econ).

On the data basis no econ code runs on the hot path (the frontier's PCHIP is scipy's). On the
transferred and physics bases the physics envelope and ceiling are econ.compute.physics's (they
are timed on their own in the benchmark); the realisation curves eta_p(x) and the stage caps are
constants of the data, taken once from econ.compute.transfer. Where a platform's realisation
rises with x, its hull of the transferred curve is built once per chunk and read at every speed
the platform serves. Parameters come from ``g(key)``: an array (m,) for a sampled key, else the
assumption's value. Plain logit only (api.speed_nest_lambda = 1).

    python benchmarks/floor.py                 # the floor against econ on the bundled data
    python benchmarks/floor.py -n 50000 --scenario bear --set fleet.troughs=idle
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from scipy.interpolate import PchipInterpolator
from scipy.special import ndtr

SPM = 2_629_800.0  # seconds per month
SPW = 604_800.0  # seconds per week
GRID = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5)  # served-speed multipliers (0.1)
MARGIN = 0.9  # served at or below 0.9 x the ceiling
TIERS = ("standard", "fast", "ultrafast")
HULL_X = tuple(float(x) for x in np.geomspace(0.01, 1.0, 25))  # the hull's regimes (V4.5)


class Floor:
    """The v4 NPV of chunks of scenarios. ``values``: the assumptions' {key: value};
    ``sampled``: the keys given as arrays; ``a``: the Assumptions (for the constants of the
    data on the bases that use physics, and the served multiplier without the offer);
    ``served``: the largest served multiplier of the ultrafast tier (the base case's, as the
    Monte Carlo holds it); ``decision_set``: also evaluate the deal without the subscriber
    offer, as the Monte Carlo does (``served_without_offer`` its multiplier, by default the
    base case's without the offer)."""

    def __init__(
        self,
        values: dict,
        sampled: set[str],
        a=None,
        served: float = 1.0,
        decision_set: bool = True,
        served_without_offer: float | None = None,
    ):
        v = values
        fixed = ("horizon.months", "contract.term_months", "api.speed_nest_lambda")
        for k in fixed + tuple(f"tiers.{i}.tokens_per_s" for i in TIERS):
            if k in sampled:
                raise ValueError(f"the floor takes {k} as one value")
        if float(v["api.speed_nest_lambda"]) != 1:
            raise ValueError("the floor covers the plain logit (api.speed_nest_lambda = 1) only")
        self.v = v
        self.basis = v["capacity.basis"]
        self.H = int(v["horizon.months"])
        self.T = int(v["contract.term_months"])
        self.plat = v["contract.platform"]
        self.gpu = v["capacity.gpu_platform"]
        self.most = served
        self.s = {i: float(v[f"tiers.{i}.tokens_per_s"]) for i in TIERS}
        self.t = np.arange(1.0, self.H + 1)[:, None]  # (H, 1)
        self.gpu_set = "capacity.gpu_cost_per_mtok_usd" in v
        self.lower = "plans.pro_lower.price_usd_month" in v
        self.idle = v["fleet.troughs"] == "idle"
        self.offer = v["capacity.subscriber_offer"]
        self.decision_set = decision_set
        self.without_offer: np.ndarray | None = None
        if served_without_offer is None and a is not None and self.offer != "off":
            from econ.sensitivity.run import held_served

            served_without_offer = held_served(
                a.with_overrides([("capacity.subscriber_offer", "off")])
            )
        self.most_off = served if served_without_offer is None else served_without_offer
        self.pad = 1.0 if v["contract.payment"] == "pay_as_delivered" else 0.0
        if not self.gpu_set and f"hardware.{self.gpu}.rent_usd_per_hour" not in v:
            raise ValueError(f"the floor needs hardware.{self.gpu}.rent_usd_per_hour")
        if self.basis == "data":
            self.curve = {p: self._curve(p, sampled) for p in {self.plat, self.gpu}}
        else:
            from econ.compute import transfer

            self.k_cap = {q: transfer.stage_cap(a, q) for q in {self.plat, self.gpu}}
            self.eta = {q: transfer.realisation(a, q) for q in {self.plat, self.gpu}}

    def _curve(self, plat: str, sampled: set[str]):
        v = self.v
        pts = sorted(
            (float(v[f"frontier.{i}.tokens_per_s_per_user"]), f"frontier.{i}.tokens_per_s_per_mw")
            for i in {k.split(".")[1] for k in v if k.startswith("frontier.")}
            if v[f"frontier.{i}.platform"] == plat
        )
        if any(key in sampled for _, key in pts):
            raise ValueError("the floor takes the frontier points as given (frontier_scale varies)")
        if len(pts) == 1:
            return lambda s: float(v[pts[0][1]]) + 0.0 * np.asarray(s, float)
        curve = PchipInterpolator(
            np.log([s for s, _ in pts]), np.log([float(v[k]) for _, k in pts])
        )
        return lambda s: np.exp(curve(np.log(s)))

    # ------------------------------------------------------------------ capacity (0.1, V4.3-V4.5)

    def _throughput(self, g, plat: str, speeds: dict, model, chip, pue) -> dict:
        """Thr*_p at each speed {name: (m,)} on the transferred or physics basis: the envelope,
        times eta_p(x) x frontier_scale_p, or the hull where eta_p rises with x (V4.5)."""
        from econ.compute import physics

        k_cap = self.k_cap[plat]
        env = {n: physics.envelope(s, model, chip, pue, k_cap=k_cap) for n, s in speeds.items()}
        if self.basis == "physics":
            return {n: e.throughput for n, e in env.items()}
        eta = self.eta[plat]
        scale = g(f"hardware.{plat}.frontier_scale")
        ceil = next(iter(env.values())).ceiling
        with np.errstate(divide="ignore", invalid="ignore"):
            x = {n: speeds[n] / ceil for n in speeds}
        if eta.non_increasing:
            return {n: scale * eta(x[n]) * env[n].throughput for n in speeds}
        grid = np.unique(np.concatenate([np.asarray(HULL_X), np.asarray(eta.x)]))
        grid = grid[grid <= 1.0]
        vals = np.stack(
            [
                eta(q) * physics.envelope(q * ceil, model, chip, pue, k_cap=k_cap).throughput
                for q in grid
            ]
        )
        hull = np.maximum.accumulate(vals[::-1], axis=0)[::-1]  # (J, m)
        cols = np.arange(hull.shape[1])
        out = {}
        for n in speeds:
            xs = np.nan_to_num(x[n], nan=np.inf) * np.ones(hull.shape[1])
            j = np.clip(np.searchsorted(grid, xs, side="right") - 1, 0, len(grid) - 2)
            w = np.clip((xs - grid[j]) / (grid[j + 1] - grid[j]), 0.0, 1.0)
            h = hull[j, cols] * (1 - w) + hull[j + 1, cols] * w
            here = eta(x[n]) * env[n].throughput
            out[n] = scale * np.where(xs < grid[0], np.maximum(here, hull[0, cols]), h)
        return out

    def _capacity(self, g, m: int, most: float):
        """Served speeds {tier: (m,)}, Thr on the contract at the ultrafast and standard served
        speeds [tokens/s/MW], the value of a standard and a fast token crossing the GPU-fleet
        boundary and of a flexible one [USD per 1M]."""
        s = {i: np.full(m, self.s[i]) for i in TIERS}
        pue = g("facility.pue")
        if self.basis == "data":
            scale = g(f"hardware.{self.plat}.frontier_scale")
            thr_u = self.curve[self.plat](self.s["ultrafast"]) * scale * np.ones(m)
            thr_b = self.curve[self.plat](self.s["standard"]) * scale * np.ones(m)
            gscale = g(f"hardware.{self.gpu}.frontier_scale")
            thr_g = {i: self.curve[self.gpu](self.s[i]) * gscale for i in ("standard", "fast")}
            offered = np.ones(m, bool)
        else:
            from econ.compute import physics

            def get(key):
                return np.atleast_1d(np.asarray(g(key), float)) if key in self.v else None

            model = physics.model_from(get)
            chip_c, chip_g = physics.chip_from(get, self.plat), physics.chip_from(get, self.gpu)
            ceil_c, ceil_g = physics.ceiling(model, chip_c), physics.ceiling(model, chip_g)

            def fastest(speed, ceil, most):
                best = np.full(np.shape(ceil), np.nan)
                for q in GRID[::-1]:
                    best = np.where((q <= most + 1e-12) & (speed * q <= MARGIN * ceil), q, best)
                return best

            for i in ("standard", "fast"):
                q = fastest(self.s[i], ceil_g, 1.0)
                s[i] = np.where(np.isnan(q), MARGIN * ceil_g, self.s[i] * q) * np.ones(m)
            mult = fastest(self.s["ultrafast"], ceil_c, most)
            offered = ~np.isnan(mult) * np.ones(m, bool)
            s["ultrafast"] = np.where(offered, self.s["ultrafast"] * mult, self.s["ultrafast"])
            c = self._throughput(
                g, self.plat, {"u": s["ultrafast"], "b": s["standard"]}, model, chip_c, pue
            )
            thr_u, thr_b = np.where(offered, c["u"], 0.0), c["b"]
            if not self.gpu_set:
                thr_g = self._throughput(
                    g, self.gpu, {i: s[i] for i in ("standard", "fast")}, model, chip_g, pue
                )
        if self.gpu_set:
            gc = {
                i: np.broadcast_to(g("capacity.gpu_cost_per_mtok_usd"), (m,))
                for i in ("standard", "fast")
            }
            flex = gc["standard"]
        else:
            power = g(f"hardware.{self.gpu}.power_kw")
            gpus_per_mw = 1000.0 / (power * pue)
            energy = power * pue * g("buy.power_price_usd_per_kwh")
            avoid = g("fleet.avoidable_share")
            lam = avoid * g(f"hardware.{self.gpu}.rent_usd_per_hour") + (1.0 - avoid) * (
                g("fleet.sublet_usd_per_gpu_hour") + energy
            )
            u_ops = g("fleet.ops_utilization")
            pta = g("usage.peak_to_average")
            gc, h = {}, {}
            with np.errstate(divide="ignore"):
                for i in ("standard", "fast"):
                    h[i] = 1e6 * gpus_per_mw / (thr_g[i] * 3600.0)
                    v = (
                        lam * pta * h[i] / u_ops + energy * h[i]
                        if self.idle
                        else lam * h[i] / u_ops
                    )
                    price = g(f"tiers.{i}.price_per_mtok_usd")
                    gc[i] = np.where(v <= price, v, price) * np.ones(m)  # the clamp at the list
            v_flex = energy * h["standard"] if self.idle else lam * h["standard"] / u_ops
            flex = np.minimum(v_flex, gc["standard"]) * np.ones(m)
        return s, offered, np.broadcast_to(thr_u, (m,)), np.broadcast_to(thr_b, (m,)), gc, flex

    # ------------------------------------------------------------------------------- NPV

    def npv(self, x: dict[str, np.ndarray]) -> np.ndarray:
        """NPV [USD] (m,) of the deal as set for the scenarios whose sampled keys are ``x``
        {key: (m,)}. With ``decision_set`` (the default), the Monte Carlo's other option is
        evaluated too, as econ's Monte Carlo does (section 0.7): its NPV is kept in
        ``without_offer``."""
        out = self.options(x) if self.decision_set else [self._npv(x, self.most, (self.offer,))[0]]
        self.without_offer = out[1] if len(out) > 1 else None
        return out[0]

    def options(self, x: dict[str, np.ndarray]) -> list[np.ndarray]:
        """The NPV [USD] (m,) of each deal option of the Monte Carlo's decision set (section
        0.7): the deal as set and, where its subscriber offer is not off, the deal without it
        (each at its own held served multiplier). What the options share is computed once."""
        if self.offer == "off":
            return self._npv(x, self.most, ("off",))
        if self.most_off == self.most:
            return self._npv(x, self.most, (self.offer, "off"))
        return self._npv(x, self.most, (self.offer,)) + self._npv(x, self.most_off, ("off",))

    def _npv(self, x: dict[str, np.ndarray], most: float, offers: tuple[str, ...]) -> list:
        v = self.v

        def g(key):
            return x[key] if key in x else float(v[key])

        m = len(next(iter(x.values())))
        H, T, t = self.H, self.T, self.t
        tT = t[:T]
        s, offered, thr_u, thr_b, gc, v_flex = self._capacity(g, m, most)
        s_u, s_std = s["ultrafast"], self.s["standard"]
        g_std, g_fast = gc["standard"], gc["fast"]

        # MW delivered and rent (3.5, 0.3, 4.1, V4.5): only the term's months carry MW
        if "contract.tranche_mw" in v:
            k = np.ceil(tT / g("contract.tranche_months") - 1e-12)
            sched = np.minimum(g("contract.mw"), g("contract.tranche_mw") * k) * np.ones((T, m))
        else:
            ramp = np.broadcast_to(g("contract.ramp_months"), (m,))
            sched = g("contract.mw") * tT / np.maximum(ramp, tT)  # (T, m)
        delivered = g("contract.delivered_share")
        mw = sched * delivered
        pad = self.pad
        rent = g("contract.value_usd") * (
            pad * delivered * sched / sched.sum(axis=0) + (1.0 - pad) / T
        )

        # the API logit (0.4), calibrated at the tier speeds, at the served speeds and prices
        vs, vf, vu = (g(f"api.{i}_tokens_per_month") for i in TIERS)
        D = g("api.diversion_to_lab_tiers")
        M = vu + (vs + vf) / D
        q = {"standard": vs / M, "fast": vf / M, "ultrafast": vu / M}
        q0 = (1.0 - q["ultrafast"]) * (1.0 - D)
        p_ref = g("api.reference_price_per_mtok_usd")
        beta = g("api.price_elasticity") / (p_ref * (1.0 - q["ultrafast"]))
        gamma = beta * g("api.wtp_speed_doubling_usd_per_mtok") / np.log(2.0)
        price = {i: g(f"tiers.{i}.price_per_mtok_usd") for i in TIERS}
        with np.errstate(divide="ignore"):
            # exp(v_i) = q_i / q0 x exp(-beta (p_i - p_cal_i) + gamma ln(s_i / S_i))
            ev = {
                i: q[i]
                / q0
                * np.exp(
                    -beta * (price[i] - (p_ref if i == "ultrafast" else price[i]))
                    + gamma * np.log(s[i] / self.s[i])
                )
                for i in TIERS
            }
        den0 = 1.0 + ev["standard"] + ev["fast"]
        den = den0 + ev["ultrafast"]
        x_u = ev["ultrafast"] / den
        no_deal = {i: ev[i] / den0 for i in ("standard", "fast")}
        d_s = np.where(x_u > 0, (no_deal["standard"] - ev["standard"] / den) / x_u, 0.0)
        d_f = np.where(x_u > 0, (no_deal["fast"] - ev["fast"] / den) / x_u, 0.0)
        keep_rev = 1.0 - g("finance.variable_cost_share")
        rev_tok = price["ultrafast"] - d_s * price["standard"] - d_f * price["fast"]
        gpu_tok = d_s * g_std + d_f * g_fast
        lt = (t - 1.0) / 12.0
        pi = np.exp(lt * np.log1p(-g("market.price_decline_per_year")))  # (H, m) or (H, 1)
        ci = np.exp(lt * np.log1p(-g("hardware.gpu_cost_decline_per_year")))
        log_e = lt * np.log1p(-g("usage.token_efficiency_gain_annual"))
        e = np.exp(log_e)
        a_ramp = np.broadcast_to(g("api.ramp_months"), (m,))
        api_ramp = np.where(
            a_ramp > 0, np.minimum(1.0, tT / np.where(a_ramp > 0, a_ramp, 1.0)), 1.0
        )
        wanted = np.where(offered, M * x_u * e[:T] * api_ramp, 0.0)  # (T, m)

        # demand per user (5.2), built from queries (0.5); an adopter's mixed burn (V4.7)
        el = g("usage.speed_elasticity")
        phi = {i: np.exp(el * np.log(s[i] / s_std)) for i in TIERS}
        share_u = g("usage.ultrafast_query_share")
        phi_mix = share_u * phi["ultrafast"] + (1.0 - share_u) * phi["standard"]
        burn_mix = (
            share_u * phi["ultrafast"] * g("tiers.ultrafast.usage_multiplier")
            + (1.0 - share_u) * phi["standard"] * g("tiers.standard.usage_multiplier")
        ) / phi_mix
        u_share = share_u * phi["ultrafast"] / phi_mix
        sig = g("usage.demand_sigma")
        tpq = g("usage.output_tokens_per_query")
        half = np.exp(0.5 * sig * sig)

        def usage(plan, tier, rows):
            """(cap-hit share, tokens served a user-week) of a plan at a tier, months 1..rows."""
            if tier == "ultrafast":
                burn, ph = burn_mix, phi_mix
            else:
                burn, ph = g(f"tiers.{tier}.usage_multiplier"), phi[tier]
            c = g(f"plans.{plan}.weekly_quota_queries") * tpq
            mu = g(f"plans.{plan}.queries_per_day") * 7.0 * tpq / half * ph
            ell = np.log(c / burn) - np.log(mu) - log_e[:rows]
            hit = ndtr(-ell / sig)
            w = mu * e[:rows] * (half * ndtr(ell / sig - sig) + np.exp(ell) * hit)
            return hit, w * u_share if tier == "ultrafast" else w

        sf_std, w_plus_std = usage("plus", "standard", H)
        sf_fast, _ = usage("plus", "fast", H)
        sf_u, w_plus_u = usage("plus", "ultrafast", T)
        _, w_pro_std = usage("pro", "standard", H)
        _, w_pro_u = usage("pro", "ultrafast", T)
        if self.lower:
            ls = g("conversion.lower_pro_share")
            w_pro_std = (1.0 - ls) * w_pro_std + ls * usage("pro_lower", "standard", H)[1]
            w_pro_u = (1.0 - ls) * w_pro_u + ls * usage("pro_lower", "ultrafast", T)[1]
            pro_price = (1.0 - ls) * g("plans.pro.price_usd_month") + ls * g(
                "plans.pro_lower.price_usd_month"
            )
            pro_ref = (1.0 - ls) * g("plans.pro.price_ref_usd_month") + ls * g(
                "plans.pro_lower.price_ref_usd_month"
            )
        else:
            pro_price, pro_ref = g("plans.pro.price_usd_month"), g("plans.pro.price_ref_usd_month")

        # the calibrated no-deal world (0.5) and the subscribers' responses (0.4, V4.7)
        af = g("tiers.fast.adoption")
        h0_1 = (1.0 - af) * sf_std[0] + af * sf_fast[0]
        pool = (
            (g("market.mau") * g("market.plus_share_of_mau"))
            * np.exp((t - 1.0) * np.log1p(g("market.mau_growth_monthly")))
            * np.ones((1, m))
        )
        churn = g("conversion.pro_churn_monthly")
        p_start = g("market.pro_subscribers_start")
        u0 = p_start * (churn + g("market.pro_growth_monthly")) / pool[0]
        with np.errstate(divide="ignore", invalid="ignore"):
            prop = np.where(h0_1 > 0, g("conversion.capped_share_of_upgrades") * u0 / h0_1, 0.0)
        prop = np.minimum(prop, g("conversion.max_capped_propensity"))
        base = u0 - prop * h0_1
        s_r = np.clip(prop, 0.0, 1.0 - 1e-12)  # the Pro price response, a binary logit (V4.7)
        b_pro = g("conversion.pro_price_elasticity") / (pro_ref * (1.0 - s_r))
        pf = 1.0 / (s_r + (1.0 - s_r) * np.exp(b_pro * (pro_price - pro_ref)))
        a_want = np.minimum(
            g("tiers.ultrafast.adoption")
            * np.exp(
                g("usage.adoption_burn_elasticity")
                * np.log(g("usage.adoption_ref_multiplier") / g("tiers.ultrafast.usage_multiplier"))
            ),
            1.0 - af,
        )

        # the value of a Pro convert in month t, in month-t money (0.2); GPU costs on c_t
        step = pro_price - g("plans.plus.price_usd_month")
        extra_usage = (w_pro_std - w_plus_std) * (SPM / SPW)  # tokens a month per upgrader
        g_std_t = g_std * ci  # (H, m)
        margin = step * keep_rev - extra_usage * g_std_t / 1e6  # (H, m)
        extra = g("conversion.extra_churn_after_term_monthly")
        lr = np.log1p(g("finance.discount_rate_annual"))
        d = np.exp(-t / 12.0 * lr)
        surv = np.exp(
            np.cumsum(np.log(1.0 - churn - np.where(t > T, extra, 0.0) * np.ones((1, m))), axis=0)
        )
        r_m = np.expm1(lr / 12.0)
        tv_on = g("finance.terminal_value")
        tv_one = tv_on * margin[-1] * (1.0 - churn - extra) / (r_m + churn + extra)
        tail = np.cumsum((margin * d * surv)[::-1], axis=0)[::-1] + surv[-1] * d[-1] * tv_one
        W = tail / surv / d  # month-t money

        # the other uses' caps and values (0.2, V4.2, V4.3), in the term's months
        pta = g("usage.peak_to_average")
        per_mw_u, per_mw_b = thr_u * SPM, thr_b * SPM
        with np.errstate(divide="ignore", invalid="ignore"):
            cap_a = np.where(per_mw_u > 0, wanted / per_mw_u, 0.0)
            inv_b = np.where(per_mw_b > 0, 1.0 / per_mw_b, 0.0)
            mw_per_stream = np.where(offered, s_u / thr_u, 0.0)
        api_d0 = M * (no_deal["standard"] + no_deal["fast"]) * e[:T]
        api_x = wanted * (d_s + d_f)
        api_net = api_d0 - api_x
        batch = g("capacity.internal_batch_tokens_per_month")
        ms, fs = g("capacity.movable_share"), g("capacity.backfill_flexible_share")
        flex_api = ms * fs * np.maximum(api_net, 0.0) + batch
        alt = g("free.alternative_cost_per_mtok_usd")
        if float(v["free.served"]) or "free.served" in x:
            mau_t = g("market.mau") * np.exp((tT - 1.0) * np.log1p(g("market.mau_growth_monthly")))
            queries = np.minimum(g("free.queries_per_day"), g("free.flagship_queries_per_day"))
            free = (
                g("free.served")
                * np.maximum(mau_t - pool[:T], 0.0)
                * g("free.dau_per_mau")
                * queries
                * tpq
                * (SPM / 86_400.0)
                * e[:T]
            )
            cap_r = ms * free * inv_b
        else:
            cap_r = np.zeros((T, 1))
        rho_a = (keep_rev * pi[:T] * rev_tok + ci[:T] * gpu_tok) * per_mw_u / 1e6
        rho_p = g_std_t[:T] * per_mw_b / 1e6
        rho_r = alt * ci[:T] * per_mw_b / 1e6 * np.ones((1, m))
        rho_f = v_flex * ci[:T] * per_mw_b / 1e6
        moved_value = SPM * thr_u / (phi["ultrafast"] * 1e6)
        lift_raw = sf_u - sf_std[:T]
        lift = lift_raw * g("conversion.voluntary_cap_hit_weight")
        rate = 1.0 / (SPW * s_u)
        w2m = SPM / SPW
        keep = 1.0 - churn
        up_b, up_p = pf * base, pf * prop
        h0 = (1.0 - af) * sf_std + af * sf_fast  # no-deal cap hits, every month

        def deal(offer: str) -> np.ndarray:
            """The NPV of the deal with the subscriber offer as ``offer`` says (auto, on, off)."""
            want = np.where(offered & (offer != "off"), a_want, 0.0) * np.ones(m)
            P = np.empty((H, m))
            P0 = np.empty((H, m))
            y_a, y_s = np.empty((T, m)), np.empty((T, m))
            y_p, y_r, y_f = np.empty((T, m)), np.empty((T, m)), np.empty((T, m))
            a_u, A = np.empty((T, m)), np.empty((T, m))
            p = np.broadcast_to(np.asarray(p_start, float), (m,)).copy()
            p0 = p.copy()
            for k in range(T):
                A[k] = (pool[k] * w_plus_u[k] + p * w_pro_u[k]) * rate
                need = A[k] * mw_per_stream
                cap_s = want * need
                chat = (pool[k] * w_plus_std[k] + p0 * w_pro_std[k]) * w2m
                credited = want * (pool[k] * w_plus_u[k] + p * w_pro_u[k]) * w2m / phi["ultrafast"]
                moved = ms * np.maximum(chat - credited + api_net[k], 0.0) + batch
                flexible = np.minimum(moved, flex_api[k])
                if offer == "on":
                    rho_s = np.full(m, np.inf)
                else:
                    with np.errstate(divide="ignore", invalid="ignore"):
                        per_need = np.where(need > 0, 1.0 / need, 0.0)
                        rho_s = (
                            g_std_t[k] * moved_value + up_p * lift[k] * pool[k] * W[k] * per_need
                        )
                # the LP's greedy optimum: flexible work wants F, the peak-shaped uses fill in order
                # of value up to the peak (or the room flexible work leaves where worth no more)
                mwk, rf = mw[k], rho_f[k]
                f_on = rf > 0
                cap_f = flexible * inv_b
                flex = np.where(f_on, np.minimum(cap_f, mwk), 0.0)
                peak = mwk / pta
                shared = np.minimum(peak, mwk - flex)
                R = np.stack(np.broadcast_arrays(rho_a[k], rho_s, rho_p[k], rho_r[k]))
                Ys = np.stack(
                    np.broadcast_arrays(cap_a[k], cap_s, (moved - flexible) * inv_b, cap_r[k])
                )
                Ls = np.where(R <= 0, 0.0, np.where(R > rf, peak, shared))
                order = np.argsort(-R, axis=0, kind="stable")
                got = np.zeros((4, m))
                S = np.zeros(m)
                for r in range(4):
                    j = order[r][None]
                    take = np.minimum(
                        np.take_along_axis(Ys, j, 0)[0],
                        np.maximum(np.take_along_axis(Ls, j, 0)[0] - S, 0.0),
                    )
                    np.put_along_axis(got, j, take[None], 0)
                    S = S + take
                y_a[k], y_s[k], y_p[k], y_r[k] = got
                y_f[k] = np.where(f_on, np.minimum(cap_f, np.maximum(mwk - S, 0.0)), 0.0)
                a_u[k] = np.divide(y_s[k], need, out=np.zeros(m), where=need > 0)
                p = p * keep + (up_b + up_p * (h0[k] + a_u[k] * lift[k])) * pool[k]
                p0 = p0 * keep + (up_b + up_p * h0[k]) * pool[k]
                P[k], P0[k] = p, p0
            for k in range(T, H):
                up0 = (up_b + up_p * h0[k]) * pool[k]
                p = p * keep - extra * np.maximum(p - p0, 0.0) + up0
                p0 = p0 * keep + up0
                P[k], P0[k] = p, p0
            dP = P - P0

            # revenue and the GPU-fleet boundary (0.4, 5.7-5.9, V4.3, V4.6), cash (6)
            api_tokens = y_a * per_mw_u
            adopter_tokens = a_u * A * s_u * SPM
            moved_usd = (
                y_p * per_mw_b * g_std_t[:T]
                + y_f * per_mw_b * v_flex * ci[:T]
                + y_r * per_mw_b * alt * ci[:T]
            ) / 1e6
            cf = dP * step * keep_rev - dP * extra_usage * g_std_t / 1e6
            cf[:T] += (
                api_tokens * (keep_rev * pi[:T] * rev_tok + ci[:T] * gpu_tok) / 1e6
                + adopter_tokens / phi["ultrafast"] * g_std_t[:T] / 1e6
                + moved_usd
                - rent
            )
            npv = (cf * d).sum(axis=0)
            tv = dP[-1] * margin[-1] * (1.0 - churn - extra) / (r_m + churn + extra)
            return npv + tv_on * tv * d[-1]

        return [deal(o) for o in offers]


def main() -> None:
    """The floor against econ's vectorised model on the Monte Carlo's samples: the largest
    difference of the NPV, and both times."""
    import argparse
    import time

    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root))
    import econ
    from econ.model import evaluate
    from econ.sensitivity import run as srun
    from econ.sensitivity.sampling import iter_uniforms

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=20_000, help="samples (default 20,000)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--scenario", default=None)
    ap.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--chunk", type=int, default=5_000, help="scenarios per pass of the floor")
    args = ap.parse_args()
    a = econ.load(root / "data")
    if args.scenario:
        a = a.with_scenario(args.scenario)
    if args.overrides:
        a = a.with_overrides([tuple(s.split("=", 1)) for s in args.overrides])
    served = srun.held_served(a)
    prob = srun.problem_from(a).subset(evaluate(a, detail=False).inputs_read)
    parts = [prob.transform(u) for u in iter_uniforms(prob, args.n, args.seed, chunk=65_536)]
    x = {k: np.concatenate([q[k] for q in parts]) for k in prob.names}
    floor = Floor(a.values, set(x), a, served=served)

    def chunks(f, size):
        out = np.empty(args.n)
        for s in range(0, args.n, size):
            out[s : s + size] = f({k: v[s : s + size] for k, v in x.items()})
        return out

    options = srun.decision_options(a)  # the Monte Carlo's decision set (section 0.7)
    t0 = time.perf_counter()
    got = [np.empty(args.n) for _ in options]
    for s in range(0, args.n, args.chunk):
        part = floor.options({k: v[s : s + args.chunk] for k, v in x.items()})
        for out, npv in zip(got, part, strict=True):
            out[s : s + args.chunk] = npv
    t_floor = time.perf_counter() - t0
    t0 = time.perf_counter()
    want = [
        chunks(lambda o, b=b: evaluate(b, o, detail=False, served=srun.held_served(b)).npv, 20_000)
        for _, _, b in options
    ]
    t_econ = time.perf_counter() - t0
    print(
        f"{args.n:,} samples of {len(prob.names)} keys ({a.values['capacity.basis']} basis"
        f"{', scenario ' + args.scenario if args.scenario else ''}), {len(options)} deal "
        f"option(s): the floor {t_floor:.2f} s, econ.evaluate {t_econ:.2f} s "
        f"({t_econ / t_floor:.2f}x)"
    )
    for (name, _, _), npv_floor, npv_econ in zip(options, got, want, strict=True):
        ok = np.isfinite(npv_floor) & np.isfinite(npv_econ)
        diff = np.abs(npv_floor - npv_econ)[ok]
        rel = diff / np.maximum(np.abs(npv_econ[ok]), 1.0)
        print(
            f"NPV of the {name}: largest difference {diff.max():.1e} USD (relative to "
            f"max(|NPV|, 1 USD): {rel.max():.1e}); not finite in the floor "
            f"{int((~np.isfinite(npv_floor)).sum())}, in econ {int((~np.isfinite(npv_econ)).sum())}"
        )


if __name__ == "__main__":
    main()
