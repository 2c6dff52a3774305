"""A bare-numpy floor of the version-2 arithmetic: NPV only, no econ code on the hot path.

The irreducible work of docs/model.md sections 3.5-6 on the data basis for n scenarios:
the lognormal survival functions and truncated means per month (5.2; the ultrafast ones
only in the term's months), the API cap (5.4), adoption and the two Pro stocks stepped by
month (5.5, 5.6), revenue, backfill (5.8), the GPU-fleet boundary (5.9), discounting, the
terminal value and the NPV (6). Left out, because the floor has no need of them: input
checks, IRR, payback, cumulative cash, sampling, the fan histograms and the value-of-
information bins (the benchmark times each of those inside econ).

Parameters come from ``get(key)``: an array (m,) for a sampled key, else the assumption's
value. The PCHIP of the frontier is evaluated once (the tier speeds are not sampled).
"""

from __future__ import annotations

import numpy as np
from scipy.interpolate import PchipInterpolator
from scipy.special import ndtr

SPM = 2_629_800.0  # seconds per month
SPW = 604_800.0  # seconds per week


class Floor:
    """The v2 NPV of chunks of scenarios. ``values``: the assumptions' {key: value}."""

    def __init__(self, values: dict, sampled: set[str]):
        v = values
        if v["capacity.basis"] != "data":
            raise ValueError("the floor covers capacity.basis = data only")
        for k in ("horizon.months", "contract.term_months") + tuple(
            f"tiers.{i}.tokens_per_s" for i in ("standard", "fast", "ultrafast")
        ):
            if k in sampled:
                raise ValueError(f"the floor takes {k} as one value")
        self.v = v
        self.H = int(v["horizon.months"])
        self.T = int(v["contract.term_months"])
        plat = v["contract.platform"]
        self.plat = plat
        pts = sorted(
            (float(v[f"frontier.{i}.tokens_per_s_per_user"]), f"frontier.{i}.tokens_per_s_per_mw")
            for i in {k.split(".")[1] for k in v if k.startswith("frontier.")}
            if v[f"frontier.{i}.platform"] == plat
        )
        self.frontier = [(s, key) for s, key in pts]
        if any(key in sampled for _, key in pts):
            raise ValueError("the floor takes the frontier points as given (frontier_scale varies)")
        xs = np.log([s for s, _ in pts])
        ys = np.log([float(v[key]) for _, key in pts])
        curve = PchipInterpolator(xs, ys)
        s = {i: float(v[f"tiers.{i}.tokens_per_s"]) for i in ("standard", "fast", "ultrafast")}
        self.s = s
        self.thr_u = float(np.exp(curve(np.log(s["ultrafast"]))))
        self.thr_std = float(np.exp(curve(np.log(s["standard"]))))
        self.t = np.arange(1.0, self.H + 1)[:, None]  # (H, 1)

    def npv(self, x: dict[str, np.ndarray]) -> np.ndarray:
        """NPV [USD] (m,) of the scenarios whose sampled keys are ``x`` {key: (m,)}."""
        v = self.v

        def g(key):
            return x[key] if key in x else float(v[key])

        m = len(next(iter(x.values())))
        H, T, t, s = self.H, self.T, self.t, self.s
        tT = t[:T]
        s_u, s_std = s["ultrafast"], s["standard"]

        # capacity and rent (3.5, 4.1): only the term's months carry MW
        ramp = np.broadcast_to(g("contract.ramp_months"), (m,))
        safe = np.where(ramp > 0, ramp, 1.0)
        mw = g("contract.mw") * np.where(ramp > 0, np.minimum(1.0, tT / safe), 1.0)  # (T, m)
        pad = g("contract.pay_as_delivered")
        rent = g("contract.value_usd") * (pad * mw / mw.sum(axis=0) + (1.0 - pad) / T)
        scale = g(f"hardware.{self.plat}.frontier_scale")
        thr_u = self.thr_u * scale
        C = mw * (thr_u / s_u)  # peak streams (T, m)

        # demand (5.2): ln(c / mu) = ln(c / (median phi)) - ln e_t
        log_e = (t - 1.0) / 12.0 * np.log1p(-g("usage.token_efficiency_gain_annual"))  # (H, m)
        e = np.exp(log_e)
        el = g("usage.speed_elasticity")
        phi = {i: np.exp(el * np.log(s[i] / s_std)) for i in s}
        sig = g("usage.demand_sigma")
        half = np.exp(0.5 * sig * sig)

        def hits(plan, tier, rows):
            c = g(f"plans.{plan}.weekly_quota_tokens") / g(f"tiers.{tier}.usage_multiplier")
            mu0 = g(f"plans.{plan}.median_weekly_tokens") * phi[tier]
            z = (np.log(c / mu0) - log_e[:rows]) / sig  # l / sigma
            return z, c, mu0

        def sf(z):
            return ndtr(-z)

        def served(z, c, mu0, hit, rows):  # E[min(X, c)], tokens per user-week
            return mu0 * e[:rows] * half * ndtr(z - sig) + c * hit

        z, c, mu0 = hits("plus", "standard", H)
        sf_std = sf(z)
        w_plus_std = served(z, c, mu0, sf_std, H)
        z, _, _ = hits("plus", "fast", H)
        sf_fast = sf(z)
        z, c, mu0 = hits("plus", "ultrafast", T)
        sf_u = sf(z)
        w_plus_u = served(z, c, mu0, sf_u, T)
        z, c, mu0 = hits("pro", "standard", H)
        w_pro_std = served(z, c, mu0, sf(z), H)
        z, c, mu0 = hits("pro", "ultrafast", T)
        w_pro_u = served(z, c, mu0, sf(z), T)

        # the API, capped by capacity (5.4)
        a_ramp = np.broadcast_to(g("api.ramp_months"), (m,))
        a_safe = np.where(a_ramp > 0, a_ramp, 1.0)
        price_u = g("tiers.ultrafast.price_per_mtok_usd")
        wanted = (
            g("api.ultrafast_tokens_per_month")
            * np.exp(
                -g("api.price_elasticity") * np.log(price_u / g("api.reference_price_per_mtok_usd"))
            )
            * e[:T]
            * np.where(a_ramp > 0, np.minimum(1.0, tT / a_safe), 1.0)
        )
        pta = g("usage.peak_to_average")
        per_stream = s_u * SPM / pta
        s_api = np.minimum(C, wanted / per_stream)
        v_served = s_api * per_stream
        free = np.maximum(C - s_api, 0.0)

        # adoption and the two Pro stocks, month by month (5.5, 5.6)
        af = g("tiers.fast.adoption")
        h0 = (1.0 - af) * sf_std + af * sf_fast  # (H, m)
        lift = sf_u - sf_std[:T]
        pool = (g("market.mau") * g("market.plus_share_of_mau")) * np.exp(
            (t - 1.0) * np.log1p(g("market.mau_growth_monthly"))
        )
        pool = np.broadcast_to(pool, (H, m))
        keep = 1.0 - g("conversion.pro_churn_monthly")
        base = g("conversion.plus_to_pro_base_monthly")
        prop = g("conversion.capped_upgrade_propensity")
        extra = g("conversion.extra_churn_after_term_monthly")
        au_max = g("tiers.ultrafast.adoption")
        rate = 1.0 / (SPW * s_u)
        P = np.empty((H, m))
        P0 = np.empty((H, m))
        A = np.empty((T, m))
        a_u = np.empty((T, m))
        p = np.broadcast_to(np.asarray(g("market.pro_subscribers_start"), float), (m,)).copy()
        p0 = p.copy()
        for k in range(T):
            A[k] = (pool[k] * w_plus_u[k] + p * w_pro_u[k]) * rate
            need = A[k] * pta
            a_u[k] = np.minimum(au_max, free[k] / need)  # need > 0: every user has demand
            p = p * keep + (base + prop * (h0[k] + a_u[k] * lift[k])) * pool[k]
            p0 = p0 * keep + (base + prop * h0[k]) * pool[k]
            P[k], P0[k] = p, p0
        for k in range(T, H):
            up0 = (base + prop * h0[k]) * pool[k]
            p = p * keep - extra * np.maximum(p - p0, 0.0) + up0
            p0 = p0 * keep + up0
            P[k], P0[k] = p, p0
        dP = P - P0

        # revenue, backfill and the GPU-fleet boundary (5.7-5.9)
        sub = dP * (g("plans.pro.price_usd_month") - g("plans.plus.price_usd_month"))
        cann = g("api.cannibalised_share")
        api = v_served * ((price_u - cann * g("api.standard_price_per_mtok_usd")) / 1e6)
        busy = a_u * A * pta
        spare = np.maximum(0.0, 1.0 - (s_api + busy) / C)
        room = spare * mw * (self.thr_std * scale * SPM) / pta
        bf = np.minimum(g("capacity.backfill_tokens_per_month") * e[:T], room)
        moved = bf + cann * v_served + a_u * A * (s_u * SPM) / phi["ultrafast"]
        gpu_cost = g("capacity.gpu_cost_per_mtok_usd") / 1e6
        extra_usage = (w_pro_std - w_plus_std) * (SPM / SPW)  # tokens a month per upgrader
        keep_rev = 1.0 - g("finance.variable_cost_share")
        cf = sub * keep_rev - dP * extra_usage * gpu_cost
        cf[:T] += api * keep_rev + moved * gpu_cost - rent

        # discounting, the terminal value and the NPV (6)
        r = g("finance.discount_rate_annual")
        lr = np.log1p(r)
        d = np.exp(-t / 12.0 * lr)
        npv = (cf * d).sum(axis=0)
        churn_all = g("conversion.pro_churn_monthly") + extra
        margin = (
            g("plans.pro.price_usd_month") - g("plans.plus.price_usd_month")
        ) * keep_rev - extra_usage[-1] * gpu_cost
        tv = dP[-1] * margin * (1.0 - churn_all) / (np.expm1(lr / 12.0) + churn_all)
        return npv + g("finance.terminal_value") * tv * d[-1]
