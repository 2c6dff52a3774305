"""A bare-numpy floor of the version-3 arithmetic: NPV only.

The irreducible work of docs/model.md (sections 0 and 3.5-6) for n scenarios: the served
speeds and the throughput and GPU cost per token they give (0.1), the API logit and the margin
of an ultrafast token (0.4), the lognormal survival functions and truncated means per month
(5.2; the ultrafast ones only in the term's months), the calibrated no-deal world (0.5), the
value of a Pro convert W_t, the monthly allocation of the contract (0.2) stepped with the two
Pro stocks, revenue, the GPU-fleet boundary, discounting, the terminal value and the NPV (6).
Left out, because the floor has no need of them: input checks, the choice of the served speed
(the Monte Carlo holds the base case's; so does the floor), IRR, payback, cumulative cash,
sampling, the fan histograms and the value-of-information estimates (the benchmark times each
of those inside econ).

On the data basis no econ code runs on the hot path (the frontier's PCHIP is scipy's). On the
transferred and physics bases the physics envelope and ceiling are econ.compute.physics's (they
are timed on their own in the benchmark); the realisation factors and stage caps are constants
of the data, computed once. Parameters come from ``g(key)``: an array (m,) for a sampled key,
else the assumption's value. Plain logit only (api.speed_nest_lambda = 1).
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np
from scipy.interpolate import PchipInterpolator
from scipy.special import ndtr

SPM = 2_629_800.0  # seconds per month
SPW = 604_800.0  # seconds per week
HPM = 730.5  # hours per month
GRID = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5)  # served-speed multipliers (0.1)
MARGIN = 0.9  # served at or below 0.9 x the ceiling
TIERS = ("standard", "fast", "ultrafast")


class Floor:
    """The v3 NPV of chunks of scenarios. ``values``: the assumptions' {key: value}; ``a``:
    the Assumptions (for the constants of the data on the bases that use physics)."""

    def __init__(self, values: dict, sampled: set[str], a=None, served: float = 1.0):
        v = values
        for k in ("horizon.months", "contract.term_months") + tuple(
            f"tiers.{i}.tokens_per_s" for i in TIERS
        ):
            if k in sampled:
                raise ValueError(f"the floor takes {k} as one value")
        if float(v["api.speed_nest_lambda"]) != 1 or "api.speed_nest_lambda" in sampled:
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
        if self.basis == "data":
            self.curve = {p: self._curve(p, sampled) for p in {self.plat, self.gpu}}
        else:
            from econ.model import Params, realisation, stage_cap

            p = Params(a)
            self.k_cap = {q: stage_cap(a, q) for q in {self.plat, self.gpu}}
            self.eta = {q: float(realisation(p, q)[0]) for q in {self.plat, self.gpu}}

    def _curve(self, plat: str, sampled: set[str]):
        v = self.v
        pts = sorted(
            (float(v[f"frontier.{i}.tokens_per_s_per_user"]), f"frontier.{i}.tokens_per_s_per_mw")
            for i in {k.split(".")[1] for k in v if k.startswith("frontier.")}
            if v[f"frontier.{i}.platform"] == plat
        )
        if any(key in sampled for _, key in pts):
            raise ValueError("the floor takes the frontier points as given (frontier_scale varies)")
        curve = PchipInterpolator(
            np.log([s for s, _ in pts]), np.log([float(v[k]) for _, k in pts])
        )
        return lambda s: float(np.exp(curve(np.log(s))))

    # ------------------------------------------------------------------ capacity (0.1, 3.5)

    def _physics(self, g, plat: str):
        from econ.compute import physics

        model = physics.ServedModel(
            **{f.name: g(f"model.{f.name}") for f in fields(physics.ServedModel)}
        )
        chip = physics.Chip(
            **{
                f.name: (
                    np.inf
                    if f"hardware.{plat}.{f.name}" not in self.v
                    else g(f"hardware.{plat}.{f.name}")
                )
                for f in fields(physics.Chip)
            }
        )
        return physics, model, chip

    def _capacity(self, g, m: int):
        """Served speeds {tier: (m,)}, Thr on the contract at the ultrafast and standard served
        speeds [tokens/s/MW] and the GPU cost of a standard and a fast token [USD per 1M]."""
        s = {i: np.full(m, self.s[i]) for i in TIERS}
        pue = g("facility.pue")
        if self.basis == "data":
            scale = g(f"hardware.{self.plat}.frontier_scale")
            thr_u = self.curve[self.plat](self.s["ultrafast"]) * scale * np.ones(m)
            thr_b = self.curve[self.plat](self.s["standard"]) * scale * np.ones(m)
            gscale = g(f"hardware.{self.gpu}.frontier_scale")
            thr_g = {i: self.curve[self.gpu](self.s[i]) * gscale for i in ("standard", "fast")}
        else:
            phys, model, chip_c = self._physics(g, self.plat)
            _, _, chip_g = self._physics(g, self.gpu)
            ceil_c = phys.ceiling(model, chip_c)
            ceil_g = phys.ceiling(model, chip_g)

            def fastest(speed, ceil, most):
                best = np.full(np.shape(ceil), np.nan)
                for x in GRID[::-1]:
                    best = np.where((x <= most + 1e-12) & (speed * x <= MARGIN * ceil), x, best)
                return best

            mult = fastest(self.s["ultrafast"], ceil_c, self.most)
            s["ultrafast"] = np.where(
                np.isnan(mult), self.s["ultrafast"], self.s["ultrafast"] * mult
            )
            if not self.gpu_set:
                for i in ("standard", "fast"):
                    x = fastest(self.s[i], ceil_g, 1.0)
                    s[i] = np.where(np.isnan(x), MARGIN * ceil_g, self.s[i] * x)

            def thr(plat, chip, speed):
                env = phys.envelope(speed, model, chip, pue, k_cap=self.k_cap[plat]).throughput
                if self.basis == "physics":
                    return env
                return self.eta[plat] * g(f"hardware.{plat}.frontier_scale") * env

            thr_u = np.where(np.isnan(mult), 0.0, thr(self.plat, chip_c, s["ultrafast"]))
            thr_b = thr(self.plat, chip_c, s["standard"])
            thr_g = {i: thr(self.gpu, chip_g, s[i]) for i in ("standard", "fast")}
        if self.gpu_set:
            gc = {
                i: np.broadcast_to(g("capacity.gpu_cost_per_mtok_usd"), (m,))
                for i in ("standard", "fast")
            }
        else:
            per_mw = (
                g(f"hardware.{self.gpu}.rent_usd_per_hour")
                * HPM
                * 1000.0
                / (g(f"hardware.{self.gpu}.power_kw") * pue)
            )
            keep = 1.0 - g("finance.api_gross_margin")
            with np.errstate(divide="ignore"):
                gc = {
                    i: np.minimum(
                        per_mw * 1e6 / (thr_g[i] * SPM * g("capacity.gpu_fleet_utilization")),
                        keep * g(f"tiers.{i}.price_per_mtok_usd"),
                    )
                    * np.ones(m)
                    for i in ("standard", "fast")
                }
        return s, np.broadcast_to(thr_u, (m,)), np.broadcast_to(thr_b, (m,)), gc

    # ------------------------------------------------------------------------------- NPV

    def npv(self, x: dict[str, np.ndarray]) -> np.ndarray:
        """NPV [USD] (m,) of the scenarios whose sampled keys are ``x`` {key: (m,)}."""
        v = self.v

        def g(key):
            return x[key] if key in x else float(v[key])

        m = len(next(iter(x.values())))
        H, T, t = self.H, self.T, self.t
        tT = t[:T]
        s, thr_u, thr_b, gc = self._capacity(g, m)
        s_u, s_std = s["ultrafast"], self.s["standard"]
        g_std, g_fast = gc["standard"], gc["fast"]
        offered = thr_u > 0

        # MW online and rent (3.5, 0.3, 4.1): only the term's months carry MW
        if "contract.tranche_mw" in v:
            k = np.ceil(tT / g("contract.tranche_months") - 1e-12)
            mw = np.minimum(g("contract.mw"), g("contract.tranche_mw") * k) * np.ones((T, m))
        else:
            ramp = np.broadcast_to(g("contract.ramp_months"), (m,))
            mw = g("contract.mw") * tT / np.maximum(ramp, tT)  # (T, m)
        pad = g("contract.pay_as_delivered")
        rent = g("contract.value_usd") * (pad * mw / mw.sum(axis=0) + (1.0 - pad) / T)

        # the API logit (0.4), calibrated at the tier speeds, at the served speeds and prices
        vs, vf, vu = (g(f"api.{i}_tokens_per_month") for i in TIERS)
        D = g("api.diversion_to_lab_tiers")
        M = vu + (vs + vf) / D
        q = {"standard": vs / M, "fast": vf / M, "ultrafast": vu / M}
        q0 = 1.0 - q["standard"] - q["fast"] - q["ultrafast"]
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
        den = 1.0 + ev["standard"] + ev["fast"] + ev["ultrafast"]
        x_u = ev["ultrafast"] / den
        div = {
            i: ev[i] / (1.0 + ev["standard"] + ev["fast"]) - ev[i] / den
            for i in ("standard", "fast")
        }
        d_s = np.where(x_u > 0, div["standard"] / x_u, 0.0)
        d_f = np.where(x_u > 0, div["fast"] / x_u, 0.0)
        fee = g("finance.variable_cost_share")
        keep_rev = 1.0 - fee
        rev_tok = price["ultrafast"] - d_s * price["standard"] - d_f * price["fast"]
        gpu_tok = d_s * g_std + d_f * g_fast
        m_u = rev_tok * keep_rev + gpu_tok  # the margin of one ultrafast token
        a_ramp = np.broadcast_to(g("api.ramp_months"), (m,))
        log_e = (t - 1.0) / 12.0 * np.log1p(-g("usage.token_efficiency_gain_annual"))  # (H, m)
        e = np.exp(log_e)
        wanted = np.where(
            offered,
            M
            * x_u
            * e[:T]
            * np.where(a_ramp > 0, np.minimum(1.0, tT / np.where(a_ramp > 0, a_ramp, 1.0)), 1.0),
            0.0,
        )

        # demand per user (5.2), built from queries (0.5)
        el = g("usage.speed_elasticity")
        phi = {i: np.exp(el * np.log(s[i] / s_std)) for i in TIERS}
        sig = g("usage.demand_sigma")
        tpq = g("usage.output_tokens_per_query")
        half = np.exp(0.5 * sig * sig)

        def usage(plan, tier, rows):
            c = g(f"plans.{plan}.weekly_quota_queries") * tpq / g(f"tiers.{tier}.usage_multiplier")
            mu0 = g(f"plans.{plan}.queries_per_day") * 7.0 * tpq / half * phi[tier]
            z = (np.log(c / mu0) - log_e[:rows]) / sig  # l / sigma
            hit = ndtr(-z)
            return hit, mu0 * e[:rows] * half * ndtr(z - sig) + c * hit

        sf_std, w_plus_std = usage("plus", "standard", H)
        sf_fast, _ = usage("plus", "fast", H)
        sf_u, w_plus_u = usage("plus", "ultrafast", T)
        _, w_pro_std = usage("pro", "standard", H)
        _, w_pro_u = usage("pro", "ultrafast", T)

        # the calibrated no-deal world (0.5) and the subscribers' responses (0.4)
        af = g("tiers.fast.adoption")
        h0 = (1.0 - af) * sf_std + af * sf_fast  # (H, m)
        pool = (
            (g("market.mau") * g("market.plus_share_of_mau"))
            * np.exp((t - 1.0) * np.log1p(g("market.mau_growth_monthly")))
            * np.ones((1, m))
        )
        churn = g("conversion.pro_churn_monthly")
        p_start = g("market.pro_subscribers_start")
        u0 = p_start * (churn + g("market.pro_growth_monthly")) / pool[0]
        with np.errstate(divide="ignore", invalid="ignore"):
            prop = np.where(h0[0] > 0, g("conversion.capped_share_of_upgrades") * u0 / h0[0], 0.0)
        prop = np.minimum(prop, g("conversion.max_capped_propensity"))
        base = u0 - prop * h0[0]
        pf = np.exp(
            -g("conversion.pro_price_elasticity")
            * np.log(g("plans.pro.price_usd_month") / g("plans.pro.price_ref_usd_month"))
        )
        a_want = np.minimum(
            g("tiers.ultrafast.adoption")
            * np.exp(
                g("usage.adoption_burn_elasticity")
                * np.log(g("usage.adoption_ref_multiplier") / g("tiers.ultrafast.usage_multiplier"))
            ),
            1.0 - af,
        )

        # the value of a Pro convert in month t, in month-t money (0.2)
        step = g("plans.pro.price_usd_month") - g("plans.plus.price_usd_month")
        extra_usage = (w_pro_std - w_plus_std) * (SPM / SPW)  # tokens a month per upgrader
        margin = step * keep_rev - extra_usage * g_std / 1e6  # (H, m)
        extra = g("conversion.extra_churn_after_term_monthly")
        lr = np.log1p(g("finance.discount_rate_annual"))
        d = np.exp(-t / 12.0 * lr)
        surv = np.exp(
            np.cumsum(np.log(1.0 - churn - np.where(t > T, extra, 0.0) * np.ones((1, m))), axis=0)
        )
        r_m = np.expm1(lr / 12.0)
        tv_one = (
            g("finance.terminal_value") * margin[-1] * (1.0 - churn - extra) / (r_m + churn + extra)
        )
        tail = np.cumsum((margin * d * surv)[::-1], axis=0)[::-1] + surv[-1] * d[-1] * tv_one
        W = tail / surv / d  # month-t money

        # the monthly allocation (0.2) and the two Pro stocks (5.6)
        pta = g("usage.peak_to_average")
        per_mw_u, per_mw_b = thr_u * SPM, thr_b * SPM
        vol = g("capacity.backfill_tokens_per_month") * e[:T]
        flex_share = g("capacity.backfill_flexible_share")
        with np.errstate(divide="ignore", invalid="ignore"):
            cap_a = np.where(per_mw_u > 0, wanted / per_mw_u, 0.0)
            cap_p = np.where(per_mw_b > 0, vol / per_mw_b, 0.0)  # the standard traffic
            cap_f = np.where(per_mw_b > 0, vol * flex_share / per_mw_b, 0.0)  # batch on top
            mw_per_stream = np.where(offered, s_u / thr_u, 0.0)
        rho_a = m_u * per_mw_u / 1e6
        rho_p = g_std * per_mw_b / 1e6
        rho_f = g("capacity.flexible_value_share") * rho_p
        moved_value = g_std * per_mw_u / (phi["ultrafast"] * 1e6)
        offer = v["capacity.subscriber_offer"]
        lift = sf_u - sf_std[:T]
        rate = 1.0 / (SPW * s_u)
        keep = 1.0 - churn
        up_b, up_p = pf * base, pf * prop
        P = np.empty((H, m))
        P0 = np.empty((H, m))
        y_a = np.empty((T, m))
        y_p = np.empty((T, m))
        y_f = np.empty((T, m))
        a_u = np.empty((T, m))
        A = np.empty((T, m))
        p = np.broadcast_to(np.asarray(p_start, float), (m,)).copy()
        p0 = p.copy()
        f_on = rho_f > 0
        for k in range(T):
            A[k] = (pool[k] * w_plus_u[k] + p * w_pro_u[k]) * rate
            need = A[k] * mw_per_stream
            cap_s = np.where(offered & (offer != "off"), a_want, 0.0) * need
            if offer == "on":
                rho_s = np.full(m, np.inf)
            else:
                with np.errstate(divide="ignore", invalid="ignore"):
                    rho_s = moved_value + up_p * lift[k] * pool[k] * W[k] * np.where(
                        need > 0, 1.0 / need, 0.0
                    )
            # the LP's greedy optimum: flexible work wants F, the peak-shaped uses fill in order
            # of value up to the peak (or the room flexible work leaves where worth no more)
            mwk = mw[k]
            flex = np.where(f_on, np.minimum(cap_f[k], mwk), 0.0)
            peak = mwk / pta
            shared = np.minimum(peak, mwk - flex)
            R = (rho_a, rho_s, rho_p)
            Y = (cap_a[k], cap_s, cap_p[k])
            lim = [np.where(r <= 0, 0.0, np.where(r > rho_f, peak, shared)) for r in R]
            order = np.argsort(-np.stack(np.broadcast_arrays(*R)), axis=0, kind="stable")
            Ys = np.stack(np.broadcast_arrays(*Y))
            Ls = np.stack(np.broadcast_arrays(*lim))
            got = np.zeros((3, m))
            S = np.zeros(m)
            for r in range(3):
                j = order[r]
                take = np.minimum(
                    np.take_along_axis(Ys, j[None], 0)[0],
                    np.maximum(np.take_along_axis(Ls, j[None], 0)[0] - S, 0.0),
                )
                np.put_along_axis(got, j[None], take[None], 0)
                S = S + take
            y_a[k], y_s, y_p[k] = got
            y_f[k] = np.where(f_on, np.minimum(cap_f[k], np.maximum(mwk - S, 0.0)), 0.0)
            a_u[k] = np.divide(y_s, need, out=np.zeros(m), where=need > 0)
            p = p * keep + (up_b + up_p * (h0[k] + a_u[k] * lift[k])) * pool[k]
            p0 = p0 * keep + (up_b + up_p * h0[k]) * pool[k]
            P[k], P0[k] = p, p0
        for k in range(T, H):
            up0 = (up_b + up_p * h0[k]) * pool[k]
            p = p * keep - extra * np.maximum(p - p0, 0.0) + up0
            p0 = p0 * keep + up0
            P[k], P0[k] = p, p0
        dP = P - P0

        # revenue and the GPU-fleet boundary (0.4, 5.7-5.9), cash (6)
        api_tokens = y_a * per_mw_u
        adopter_tokens = a_u * A * s_u * SPM
        saved = y_p * per_mw_b + g("capacity.flexible_value_share") * y_f * per_mw_b
        saved = saved + adopter_tokens / phi["ultrafast"]
        cf = dP * step * keep_rev - dP * extra_usage * g_std / 1e6
        cf[:T] += api_tokens * (rev_tok * keep_rev + gpu_tok) / 1e6 + saved * g_std / 1e6 - rent
        npv = (cf * d).sum(axis=0)
        tv = dP[-1] * margin[-1] * (1.0 - churn - extra) / (r_m + churn + extra)
        return npv + g("finance.terminal_value") * tv * d[-1]
