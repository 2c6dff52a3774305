"""Hand-worked checks of version 3's mechanisms (docs/model.md section 0) on the standard-library
reference model, and the same figures asked of econ once ECON is True.

Every expected number below is worked by hand in the comments (or is an analytic identity,
or the optimum of a linear programme solved by scipy's linprog, which shares nothing with
either implementation)."""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference_model as rm  # noqa: E402
from test_reference_model import _layout, _tiny  # noqa: E402

# True: every check runs on econ too (False: the reference alone, as before econ had version 3).
ECON = True

SPM, SPW = 2_629_800, 604_800
econ_only = pytest.mark.skipif(not ECON, reason="econ does not implement version 3 yet")


class _Reference:
    """The mechanisms of tests/reference_model.py behind one small interface."""

    name = "reference"

    def calibrate(self, vol, D, eps, p_ref, wtp, lam, prices, speeds):
        return rm.logit_calibrate(vol, D, eps, p_ref, wtp, lam, prices, speeds)

    def figures(self, c) -> dict:
        """M, q_0, beta and the implied premium (alpha_u - alpha_s) / beta of a calibration."""
        premium = (c["alpha"]["ultrafast"] - c["alpha"]["standard"]) / c["beta"]
        return {
            "M": c["M"], "q0": c["q0"], "beta": c["beta"], "gamma": c["gamma"],
            "alpha": dict(c["alpha"]), "premium": premium,
        }  # fmt: skip

    def shares(self, c, prices, speeds, with_ultrafast=True) -> dict:
        x = rm.logit_shares(c, prices, speeds, with_ultrafast)
        return {k: x[k] for k in ("standard", "fast", "ultrafast", "outside")}

    def diversion(self, c, prices, speeds) -> dict:
        return rm.diversion_shares(c, prices, speeds)[0]

    def allocate(self, mw, pta, uses) -> dict:
        return rm.allocate(mw, pta, uses)


class _Econ:
    """The same mechanisms in econ (econ.revenue.choice, econ.revenue.allocation)."""

    name = "econ"

    def calibrate(self, vol, D, eps, p_ref, wtp, lam, prices, speeds):
        from econ.revenue import choice

        return choice.calibrate(
            vol["standard"], vol["fast"], vol["ultrafast"], D, prices["standard"], prices["fast"],
            p_ref, eps, wtp, speeds["standard"], speeds["fast"], speeds["ultrafast"], lam,
        )  # fmt: skip

    def figures(self, c) -> dict:
        alpha = {"standard": c.alpha_s, "fast": c.alpha_f, "ultrafast": c.alpha_u}
        return {
            "M": float(c.market), "q0": float(c.q_0), "beta": float(c.beta), "gamma": float(c.gamma),
            "alpha": {k: float(x) for k, x in alpha.items()}, "premium": float(c.premium()),
        }  # fmt: skip

    @staticmethod
    def _tuple(d, keys=("standard", "fast", "ultrafast")):
        return tuple(d[k] for k in keys)

    def shares(self, c, prices, speeds, with_ultrafast=True) -> dict:
        from econ.revenue import choice

        x = choice.shares(c, self._tuple(prices), self._tuple(speeds), with_ultrafast)
        return dict(zip(("standard", "fast", "ultrafast", "outside"), map(float, x), strict=True))

    def diversion(self, c, prices, speeds) -> dict:
        from econ.revenue import choice

        ch = choice.choice(c, self._tuple(prices), self._tuple(speeds), (0.0, 0.0), 0.0)
        return {"standard": float(ch.diversion_standard), "fast": float(ch.diversion_fast)}

    def allocate(self, mw, pta, uses) -> dict:
        from econ.revenue.allocation import allocate

        peak = ("api", "subscriber", "backfill_peak")
        y = allocate(
            mw, pta, tuple(uses[n][0] for n in peak), tuple(uses[n][1] for n in peak),
            uses["flexible"][0], uses["flexible"][1],
        )  # fmt: skip
        return dict(zip((*peak, "flexible"), map(float, y), strict=True))


IMPLS = [_Reference()] + ([_Econ()] if ECON else [])


@pytest.fixture(params=IMPLS, ids=lambda i: i.name)
def impl(request):
    return request.param


# ------------------------------------------------------------------ 0.4 the logit by hand

# Three tiers: V_s = 30, V_f = 10, V_u = 10 (tokens a month, any unit), D = 0.5.
# M = V_u + (V_s + V_f) / D = 10 + 40 / 0.5 = 90; q_s = 1/3, q_f = 1/9, q_u = 1/9;
# q_0 = 1 - 5/9 = 4/9 = (1 - q_u)(1 - D) = (8/9)(1/2).
# Elasticity 1 at p_ref = 40: beta = 1 / (40 x 8/9) = 9/320 per USD/Mtok.
# exp(v_i) at calibration = q_i / q_0: 3/4, 1/4, 1/4 (the outside option's 1), sum 2 + outside 1... :
# denominator 1 + 3/4 + 1/4 + 1/4 = 9/4, so x_u = (1/4) / (9/4) = 1/9 as it must.
VOL = {"standard": 30.0, "fast": 10.0, "ultrafast": 10.0}
PRICES = {"standard": 10.0, "fast": 20.0, "ultrafast": 40.0}
SPEEDS = {"standard": 54.0, "fast": 134.0, "ultrafast": 750.0}


def _cal(impl, lam: float = 1.0, wtp: float = 0.0, D: float = 0.5, eps: float = 1.0):
    return impl.calibrate(VOL, D, eps, 40.0, wtp, lam, PRICES, SPEEDS)


def test_logit_market_size_and_outside_share_from_the_diversion_share(impl):
    c = _cal(impl)
    fig = impl.figures(c)
    assert fig["M"] == pytest.approx(90, rel=1e-15)
    assert fig["q0"] == pytest.approx(4 / 9, rel=1e-14)
    assert fig["beta"] == pytest.approx(9 / 320, rel=1e-15)
    x = impl.shares(c, PRICES, SPEEDS)
    assert [x["standard"], x["fast"], x["ultrafast"], x["outside"]] == pytest.approx(
        [1 / 3, 1 / 9, 1 / 9, 4 / 9], rel=1e-13
    )
    # the share that ultrafast takes from the lab's tiers is D: D_s = (1/3) / (8/9) = 3/8,
    # D_f = (1/9) / (8/9) = 1/8, D_s + D_f = 1/2 (IIA: x_j / (1 - x_u))
    d = impl.diversion(c, PRICES, SPEEDS)
    assert (d["standard"], d["fast"]) == pytest.approx((3 / 8, 1 / 8), rel=1e-12)
    x0 = impl.shares(c, PRICES, SPEEDS, False)
    # without ultrafast: exp(v) 3/4 and 1/4 over 1 + 3/4 + 1/4 = 2 -> 3/8 and 1/8 of M
    assert (x0["standard"], x0["fast"], x0["ultrafast"]) == pytest.approx(
        (3 / 8, 1 / 8, 0), rel=1e-13
    )
    # (alpha_u - alpha_s) / beta with gamma = 0: (ln(q_u / q_s) + beta (40 - 10)) / beta
    # = ln(1/3) x 320/9 + 30 = -39.0618 + 30 = -9.0618 USD per 1M tokens
    assert fig["premium"] == pytest.approx(-9.061770263755015, rel=1e-12)


def _elasticity(impl, c, target: str, price_of: str, lam_prices=PRICES, h: float = 1e-4) -> float:
    """d ln x_target / d ln p_price_of by a central difference (relative step h)."""

    def share(p):
        prices = dict(lam_prices)
        prices[price_of] = p
        return impl.shares(c, prices, SPEEDS)[target]

    p = lam_prices[price_of]
    return (math.log(share(p * (1 + h))) - math.log(share(p * (1 - h)))) / (
        math.log(1 + h) - math.log(1 - h)
    )


def test_logit_own_and_cross_price_elasticities_by_hand(impl):
    c = _cal(impl)
    # own: -beta p_u (1 - x_u) = -(9/320)(40)(8/9) = -1 (the point elasticity it was calibrated on)
    assert _elasticity(impl, c, "ultrafast", "ultrafast") == pytest.approx(-1.0, rel=1e-7)
    # cross: beta p_u x_u = (9/320)(40)(1/9) = 1/8 for every other tier and the outside option
    for j in ("standard", "fast", "outside"):
        assert _elasticity(impl, c, j, "ultrafast") == pytest.approx(0.125, rel=1e-7)
    # the standard price: own -beta p_s (1 - x_s) = -(9/320)(10)(2/3) = -0.1875;
    # cross on ultrafast beta p_s x_s = (9/320)(10)(1/3) = 0.09375
    assert _elasticity(impl, c, "standard", "standard") == pytest.approx(-0.1875, rel=1e-7)
    assert _elasticity(impl, c, "ultrafast", "standard") == pytest.approx(0.09375, rel=1e-7)
    # elasticity 2: beta doubles, the own elasticity at p_ref is -2
    assert _elasticity(impl, _cal(impl, eps=2.0), "ultrafast", "ultrafast") == pytest.approx(
        -2.0, rel=1e-7
    )


def test_logit_share_at_twice_the_reference_price_by_hand(impl):
    # p_u = 80: v_u falls by beta x 40 = 9/8. x_u = (1/4) e^(-9/8) / (2 + (1/4) e^(-9/8))
    # = 0.0811631 / 2.0811631 = 0.0389989
    x = impl.shares(_cal(impl), PRICES | {"ultrafast": 80.0}, SPEEDS)
    assert x["ultrafast"] == pytest.approx(0.03899892141219575, rel=1e-13)
    # the others keep their ratios (IIA): standard / fast = 3
    assert x["standard"] / x["fast"] == pytest.approx(3, rel=1e-13)


def test_a_halved_speed_costs_the_willingness_to_pay_for_a_doubling(impl):
    # gamma = beta w / ln 2: serving at half the tier speed lowers v_u by gamma ln 2 = beta w,
    # exactly what a price w higher does
    c = _cal(impl, wtp=10.0)
    slow = impl.shares(c, PRICES, SPEEDS | {"ultrafast": 375.0})
    dear = impl.shares(c, PRICES | {"ultrafast": 50.0}, SPEEDS)
    for k in ("standard", "fast", "ultrafast", "outside"):
        assert slow[k] == pytest.approx(dear[k], rel=1e-13)
    # and at the tier speeds the calibration holds whatever gamma is
    x = impl.shares(c, PRICES, SPEEDS)
    assert x["ultrafast"] == pytest.approx(1 / 9, rel=1e-13)


def _plain_logit(alpha, beta, gamma, prices, speeds, with_u=True):
    """An independent plain logit: exp(v_i) / (1 + sum exp(v_j))."""
    tiers = ("standard", "fast", "ultrafast") if with_u else ("standard", "fast")
    e = {i: math.exp(alpha[i] - beta * prices[i] + gamma * math.log(speeds[i])) for i in tiers}
    den = 1 + sum(e.values())
    return {i: e.get(i, 0.0) / den for i in ("standard", "fast", "ultrafast")}


def test_nest_with_lambda_one_is_the_plain_logit(impl):
    rng = random.Random(3)
    for _ in range(50):
        vol = {k: rng.uniform(1, 100) for k in VOL}
        prices = {k: rng.uniform(1, 100) for k in PRICES}
        speeds = {k: rng.uniform(20, 1500) for k in SPEEDS}
        c = impl.calibrate(
            vol,
            rng.uniform(0.2, 0.9),
            rng.uniform(0.3, 2),
            40.0,
            rng.uniform(0, 20),
            1.0,
            prices,
            speeds,
        )
        at = {k: rng.uniform(1, 100) for k in PRICES}
        sp = {k: rng.uniform(20, 1500) for k in SPEEDS}
        fig = impl.figures(c)
        want = _plain_logit(fig["alpha"], fig["beta"], fig["gamma"], at, sp)
        got = impl.shares(c, at, sp)
        for k in want:
            assert got[k] == pytest.approx(want[k], rel=1e-12)
        want0 = _plain_logit(fig["alpha"], fig["beta"], fig["gamma"], at, sp, with_u=False)
        got0 = impl.shares(c, at, sp, False)
        for k in want0:
            assert got0[k] == pytest.approx(want0[k], rel=1e-12, abs=1e-300)


def test_nest_reproduces_the_calibration_and_diverts_more_to_fast(impl):
    c = _cal(impl, lam=0.5)
    x = impl.shares(c, PRICES, SPEEDS)
    assert [x["standard"], x["fast"], x["ultrafast"]] == pytest.approx(
        [1 / 3, 1 / 9, 1 / 9], rel=1e-13
    )
    # nested logit elasticities w.r.t. p_u at lambda = 1/2, P(u | nest) = 1/2, x_u = 1/9:
    # fast (same nest): beta p_u (x_u + (1 - lam)/lam P(u|nest)) = (9/8)(1/9 + 1/2) = 0.6875
    # standard (other nest): beta p_u x_u = 0.125
    # own: -beta p_u (1/lam - (1 - lam)/lam P(u|nest) - x_u) = -(9/8)(2 - 1/2 - 1/9) = -1.5625
    assert _elasticity(impl, c, "fast", "ultrafast") == pytest.approx(0.6875, rel=1e-7)
    assert _elasticity(impl, c, "standard", "ultrafast") == pytest.approx(0.125, rel=1e-7)
    assert _elasticity(impl, c, "ultrafast", "ultrafast") == pytest.approx(-1.5625, rel=1e-7)
    # diversion: without ultrafast the nest holds fast alone, I = v_f; exp(v_f) = q_f/q_0 ... the
    # fast tier regains more than IIA's 1/8 of an ultrafast token
    # without ultrafast the nest holds fast alone (I = v_f); at calibration
    # v_f = lam ln(q_f / (q_f + q_u)) + ln((q_f + q_u) / q_0) = 0.5 ln(1/2) + ln(1/2), exp(v_f) = 0.5^1.5
    # = 0.353553, exp(v_s) = 3/4: x0_f = 0.353553 / 2.103553 = 0.168074, x0_s = 0.75 / 2.103553
    # = 0.356540. D_f = 9 x 0.168074 - 1 = 0.512669 (IIA: 1/8), D_s = 9 x 0.356540 - 3 = 0.208856
    d = impl.diversion(c, PRICES, SPEEDS)
    assert d["fast"] == pytest.approx(0.5126692431809572, rel=1e-12)
    assert d["standard"] == pytest.approx(0.2088560386367324, rel=1e-12)


# ------------------------------------------------------------------ 0.2 the monthly allocation


def _lp_optimum(mw, pta, uses):
    """The same LP solved by scipy's HiGHS: max sum rho y."""
    from scipy.optimize import linprog

    names = ("api", "subscriber", "backfill_peak", "flexible")
    c = [-min(uses[n][1], 1e9) for n in names]  # +inf ("on"): a value above every other
    a_ub = [[pta, pta, pta, 0.0], [1.0, 1.0, 1.0, 1.0]]
    res = linprog(
        c, A_ub=a_ub, b_ub=[mw, mw], bounds=[(0, uses[n][0]) for n in names], method="highs"
    )
    assert res.status == 0
    return -res.fun


def _value(uses, y):
    return sum(min(uses[n][1], 1e9) * y[n] for n in uses)


def test_allocation_by_hand(impl):
    # MW 10, peak-to-average 2: peak room 5 average MW, average room 10.
    # api Y 3 rho 5; subscribers Y 4 rho 3; peak-shaped backfill Y 10 rho 1; flexible Y 4 rho 2.
    # Flexible (rho 2) is worth more than peak backfill (rho 1): it keeps its 4 average MW.
    # api 3, subscribers 2 (peak room 5 - 3), peak backfill 0 (room min(5, 10 - 4) - 5 = 0),
    # flexible min(4, 10 - 5) = 4. Value 15 + 6 + 0 + 8 = 29.
    uses = {"api": (3, 5), "subscriber": (4, 3), "backfill_peak": (10, 1), "flexible": (4, 2)}
    y = impl.allocate(10, 2, uses)
    assert y == pytest.approx({"api": 3, "subscriber": 2, "backfill_peak": 0, "flexible": 4})
    assert _value(uses, y) == pytest.approx(29) == pytest.approx(_lp_optimum(10, 2, uses))
    # flexible volume larger than the MW: it takes all 10 and peak backfill nothing (5 x 1 + 5 x 2 = 15 < 20)
    uses = {"api": (0, 5), "subscriber": (0, 3), "backfill_peak": (10, 1), "flexible": (20, 2)}
    y = impl.allocate(10, 2, uses)
    assert y == pytest.approx({"api": 0, "subscriber": 0, "backfill_peak": 0, "flexible": 10})
    # peak backfill worth more than flexible: 5 at peak (the peak room), flexible the other 5
    uses = {"api": (0, 5), "subscriber": (0, 3), "backfill_peak": (10, 3), "flexible": (20, 2)}
    assert impl.allocate(10, 2, uses) == pytest.approx(
        {"api": 0, "subscriber": 0, "backfill_peak": 5, "flexible": 5}
    )
    # a use of negative value (subscribers worth less than nothing) gets nothing
    uses = {"api": (1, 5), "subscriber": (4, -1), "backfill_peak": (0, 1), "flexible": (0, 2)}
    assert impl.allocate(10, 2, uses)["subscriber"] == 0
    # subscribers "on" (value +inf) are served first, before a dearer API
    uses = {"api": (4, 5), "subscriber": (4, math.inf), "backfill_peak": (0, 1), "flexible": (0, 2)}
    assert impl.allocate(10, 2, uses) == pytest.approx(
        {"api": 1, "subscriber": 4, "backfill_peak": 0, "flexible": 0}
    )


def test_allocation_equals_the_lp_optimum_on_random_cases(impl):
    rng = random.Random(11)
    for _ in range(400):
        mw, pta = rng.uniform(0.1, 10), rng.choice([1.0, 1.5, 2.0, 3.0, rng.uniform(1, 5)])
        uses = {
            n: (
                rng.choice([0.0, rng.uniform(0, 12)]),
                rng.choice(
                    [rng.uniform(-2, 6), rng.uniform(0, 6), math.inf if n == "subscriber" else 1.0]
                ),
            )
            for n in ("api", "subscriber", "backfill_peak")
        }
        # flexible backfill is worth flexible_value_share x g$ >= 0 (a share of a cost)
        uses["flexible"] = (
            rng.choice([0.0, rng.uniform(0, 12)]),
            rng.choice([0.0, rng.uniform(0, 6)]),
        )
        y = impl.allocate(mw, pta, uses)
        # feasible
        assert pta * (y["api"] + y["subscriber"] + y["backfill_peak"]) <= mw * (1 + 1e-12)
        assert sum(y.values()) <= mw * (1 + 1e-12)
        for n in uses:
            assert -1e-15 <= y[n] <= uses[n][0] * (1 + 1e-15) + 1e-15
        # optimal
        assert _value(uses, y) == pytest.approx(_lp_optimum(mw, pta, uses), rel=1e-9, abs=1e-9)


# ------------------------------------------------------------------ capacity: grids, eta, g$


def test_stage_candidates_from_the_fixed_grid():
    # ceil(2^(j/4)), j = 0..16: 1, 2, 2, 2, 2, 3, 3, 4, 4, 5, 6, 7, 8, 10, 12, 14, 16
    assert rm._stage_candidates(1, 16) == [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16]
    # 91 wafers: 2^6.5 = 90.5 -> 91, 2^6.75 = 107.6 -> 108, 128, 152.2 -> 153, ... 2^10.5 = 1448.2 -> 1449
    assert rm._stage_candidates(91, 1456) == [
        91, 108, 128, 153, 182, 216, 256, 305, 363, 431, 512, 609, 725, 862, 1024, 1218, 1449,
    ]  # fmt: skip
    # k_min off the grid is a candidate; the set only grows as k_min falls
    assert rm._stage_candidates(9, 144)[:3] == [9, 10, 12]
    assert set(rm._stage_candidates(20, 144)) <= set(rm._stage_candidates(19, 144))


def test_envelope_memory_bound_wse3_with_the_v3_stage_grid():
    # wse3 at 100 tok/s: memory binds, B_mem = (k x 44e9 - 4e12) / (k x 2.12992e9) rises with k, so the
    # largest candidate 1,449 (not 16 x 91 = 1,456, off the grid) and the fastest s' = 800 win:
    # B_mem = (1449 x 44e9 - 4e12) / (1449 x 2.12992e9) = 5.9756e13 / 3.08625408e12 = 19.362
    e = rm.envelope(_layout(), "wse3", 100)
    assert (e["stages"], e["physics_speed"]) == (1449, 800)
    b_mem = (1449 * 44e9 - 4e12) / (1449 * 2.12992e9)
    assert e["physics_tokens_per_s_per_mw"] == pytest.approx(
        b_mem * 800 * 1000 / (23 * 1.2), rel=1e-12
    )


def _eta_data(ratios: list[float], guess_last: bool = False) -> dict:
    """Platform b300 of the layout example with frontier points at 20, 40, 60 tok/s whose
    throughputs are the given multiples of the envelope of a measured model m (the served one)."""
    v = _layout(**{"hardware.b300.hop_latency_us": 1.0, "hardware.b300.frontier_scale": 1.0})
    v |= {f"models.m.{rm.MODEL_COLUMNS[k]}": v[f"model.{k}"] for k in rm.MODEL_FIELDS}
    for n, (s, ratio) in enumerate(zip((20, 40, 60), ratios, strict=False)):
        env = rm.envelope(v, "b300", s)["physics_tokens_per_s_per_mw"]
        v |= {
            f"frontier.p{s}.platform": "b300",
            f"frontier.p{s}.tokens_per_s_per_user": s,
            f"frontier.p{s}.tokens_per_s_per_mw": ratio * env,
            f"frontier.p{s}.model": "m",
            f"frontier.p{s}.source": "Guesstimate: a shape"
            if guess_last and n == len(ratios) - 1
            else "Vendor page",
        }
    return v


def test_realisation_factor_is_the_capped_geometric_mean_of_sourced_points():
    # ratios 0.25 and 1: geometric mean sqrt(0.25) = 0.5
    eta, n, capped = rm.realisation_factor(_eta_data([0.25, 1.0]), "b300")
    assert (eta, n, capped) == (pytest.approx(0.5, rel=1e-12), 2, False)
    # a Guesstimate point does not count: 0.25 and 1 with a guessed 100 -> still 0.5
    eta, n, _ = rm.realisation_factor(_eta_data([0.25, 1.0, 100.0], guess_last=True), "b300")
    assert (eta, n) == (pytest.approx(0.5, rel=1e-12), 2)
    # 2 and 8: the mean 4 is capped at 1 and flagged
    assert rm.realisation_factor(_eta_data([2.0, 8.0]), "b300") == (1.0, 2, True)
    # no sourced point: eta = 1 (physics)
    assert rm.realisation_factor(_eta_data([0.5], guess_last=True), "b300") == (1.0, 0, False)


def test_gpu_cost_per_token_from_the_gpu_platform_by_hand():
    # b300 rented at 4.0 USD per GPU-hour, 1.9 kW a GPU, PUE 1.2:
    # 4 x 730.5 x 1000 / (1.9 x 1.2) = 1,281,578.95 USD per facility MW-month
    v = {"hardware.b300.rent_usd_per_hour": 4.0, "hardware.b300.power_kw": 1.9, "facility.pue": 1.2}
    assert rm._gpu_cost_per_mw_month(v, "b300") == pytest.approx(2_922_000 / 2.28, rel=1e-14)
    # at 1.5e6 tokens/s per MW and G = 0.6: 1,281,578.95 / (1.5e6 x 2,629,800 x 0.6) x 1e6 = 0.5415 USD/Mtok
    per = 2_922_000 / 2.28 / (1.5e6 * SPM * 0.6) * 1e6
    assert per == pytest.approx(0.541477, rel=1e-5)


# ------------------------------------------------------------------ 0.5, 0.4 subscribers


def _tiny3(**over) -> dict:
    """The tiny scenario of tests/test_reference_model.py with month-1 cap hits of the no-deal
    world of SF = 0.5 on standard (quota = median) and 0 on fast (a quota 1e6 times larger)."""
    v = _tiny(
        **{
            "plans.plus.weekly_quota_queries": 1e3,
            "tiers.fast.usage_multiplier": 1e-6,
            "tiers.ultrafast.usage_multiplier": 1e6,
            "conversion.max_capped_propensity": 0.05,
            "usage.adoption_burn_elasticity": 0.0,
        }
    )
    return v | over


def test_calibrated_no_deal_world_month_one_by_hand():
    # N_1 = 1000 x 0.1 = 100 Plus users, P_0 = 10, churn 0.5.
    # h0_1 = (1 - 0.2) x SF(1e3 / 1e3) + 0.2 x SF(1e9 / 1e3) = 0.8 x 0.5 + 0 = 0.4
    # growth g = 0.1: u0_1 = 10 x (0.5 + 0.1) / 100 = 0.06;
    # propensity = min(0.5 x 0.06 / 0.4, 0.05) = min(0.075, 0.05) = 0.05; base = 0.06 - 0.05 x 0.4 = 0.04
    r = rm.run(_tiny3(**{"market.pro_growth_monthly": 0.1}), base=_tiny3())
    assert r["capped_upgrade_propensity"] == pytest.approx(0.05, rel=1e-14)
    assert r["plus_to_pro_base_monthly"] == pytest.approx(0.04, rel=1e-14)
    # P0_1 = 10 x 0.5 + (0.04 + 0.05 x 0.4) x 100 = 5 + 6 = 11 = P_0 (1 + g)
    assert r["pro_counterfactual"][0] == pytest.approx(11, rel=1e-14)
    # share 0.25: propensity 0.25 x 0.06 / 0.4 = 0.0375 (under the cap); base 0.06 - 0.015 = 0.045
    r = rm.run(
        _tiny3(**{"market.pro_growth_monthly": 0.1, "conversion.capped_share_of_upgrades": 0.25}),
        base=_tiny3(),
    )
    assert (r["capped_upgrade_propensity"], r["plus_to_pro_base_monthly"]) == pytest.approx(
        (0.0375, 0.045)
    )
    assert r["pro_counterfactual"][0] == pytest.approx(11, rel=1e-14)
    # steady (g = 0): P0_1 = P_0
    assert rm.run(_tiny3(), base=_tiny3())["pro_counterfactual"][0] == pytest.approx(10, rel=1e-14)
    # growth below -churn is refused
    with pytest.raises(ValueError, match="pro_growth_monthly"):
        rm.run(_tiny3(**{"market.pro_growth_monthly": -0.6}), base=_tiny3())


def test_pro_price_factor_and_burn_elasticity_by_hand():
    # Pro at 250 against the reference 200, elasticity 1: flows x (250/200)^-1 = 0.8 in both worlds:
    # P0_1 = 10 x 0.5 + 0.8 x (base + prop h0_1) x 100 = 5 + 0.8 x 5 = 9 (at g = 0, u0_1 = 0.05)
    r = rm.run(_tiny3(**{"plans.pro.price_usd_month": 250}), base=_tiny3())
    assert r["pro_price_factor"] == pytest.approx(0.8, rel=1e-15)
    assert r["pro_counterfactual"][0] == pytest.approx(9, rel=1e-14)
    # elasticity 2 at 100: (100/200)^-2 = 4
    r = rm.run(
        _tiny3(**{"plans.pro.price_usd_month": 100, "conversion.pro_price_elasticity": 2}),
        base=_tiny3(),
    )
    assert r["pro_price_factor"] == pytest.approx(4, rel=1e-15)
    # burn: multiplier 4e6 against the reference 1e6 (the data's), elasticity 0.5:
    # adoption 0.1 x (1e6 / 4e6)^0.5 = 0.05; the reference key set to 2e6: 0.1 x 0.5^0.5 = 0.0707107
    r = rm.run(
        _tiny3(**{"tiers.ultrafast.usage_multiplier": 4e6, "usage.adoption_burn_elasticity": 0.5}),
        base=_tiny3(),
    )
    assert r["adoption_wanted"] == pytest.approx(0.05, rel=1e-14)
    r = rm.run(
        _tiny3(
            **{
                "tiers.ultrafast.usage_multiplier": 4e6,
                "usage.adoption_burn_elasticity": 0.5,
                "usage.adoption_ref_multiplier": 2e6,
            }
        ),
        base=_tiny3(),
    )
    assert r["adoption_wanted"] == pytest.approx(0.1 * 0.5**0.5, rel=1e-14)


# ------------------------------------------------------------------ 0.3 tranches, rate


def test_tranches_and_the_contract_rate():
    # 3 MW in tranches of 1 MW every month: 1, 2 in the 2-month term; rent 60,000 x 1/3 and 2/3
    r = rm.run(_tiny3(**{"contract.tranche_mw": 1, "contract.tranche_months": 1}), base=_tiny3())
    assert r["mw_online"] == [1.0, 2.0, 0.0]
    assert r["rent"] == pytest.approx([20_000, 40_000, 0], rel=1e-14)
    # tranches of 2 MW every 2 months: 2, 2; of 5 MW: capped at 3
    assert rm.run(
        _tiny3(**{"contract.tranche_mw": 2, "contract.tranche_months": 2}), base=_tiny3()
    )["mw_online"] == [2.0, 2.0, 0.0]
    assert rm.run(
        _tiny3(**{"contract.tranche_mw": 5, "contract.tranche_months": 2}), base=_tiny3()
    )["mw_online"] == [3.0, 3.0, 0.0]
    # rate = 60,000 / (3 MW x 2 months) = 10,000 USD per MW-month
    assert r["contract_rate_usd_per_mw_month"] == pytest.approx(10_000, rel=1e-15)
    with pytest.raises(ValueError, match="tranche"):
        rm.run(_tiny3(**{"contract.tranche_mw": 1}), base=_tiny3())


# ------------------------------------------------------------------ the data: v3 keys, retired keys


def test_version_two_data_is_refused_naming_the_missing_keys():
    v2 = {k: x for k, x in _tiny().items() if k not in rm.V3_KEYS}
    v2 |= {"api.cannibalised_share": 0.5, "api.standard_price_per_mtok_usd": 10}
    with pytest.raises(ValueError, match="version 3 key.*api.diversion_to_lab_tiers"):
        rm.run(v2, base=_tiny())
    with pytest.raises(
        ValueError, match="api.cannibalised_share is retired.*api.diversion_to_lab_tiers"
    ):
        rm.run(_tiny3(**{"api.cannibalised_share": 0.5}), base=_tiny3())


# ------------------------------------------------------------------ econ against the reference

DATA = Path(__file__).resolve().parent.parent / "data"

# econ's result attribute -> the reference's output (monthly lists, then scalars). Attributes that
# econ's result does not have are reported by name (test_econ_reports_every_compared_figure).
MONTHLY = {
    "mw_online": "mw_online",
    "rent": "rent",
    "discount": "discount",
    "capacity_streams": "capacity_streams",
    "api_tokens_wanted": "api_tokens_wanted",
    "api_tokens_served": "api_tokens_served",
    "api_streams_peak": "api_streams_peak",
    "subscriber_streams_peak": "subscriber_streams_peak",
    "ultrafast_adoption": "ultrafast_adoption",
    "utilization": "utilization",
    "plus_pool": "plus_pool",
    "eligible": "eligible",
    "token_efficiency": "token_efficiency",
    "plus_cap_hit": "plus_cap_hit",
    "plus_cap_hit_counterfactual": "plus_cap_hit_counterfactual",
    "pro": "pro",
    "pro_counterfactual": "pro_counterfactual",
    "incremental_pro": "incremental_pro",
    "subscription_revenue": "subscription_revenue",
    "api_revenue": "api_revenue",
    "backfill_tokens": "backfill_tokens",
    "backfill_usd": "backfill_usd",
    "tokens_served": "tokens_served",
    "tokens_moved_off_gpus": "tokens_moved_off_gpus",
    "tokens_added_to_gpus": "tokens_added_to_gpus",
    "gpu_savings": "gpu_savings_usd",
    "net_cash_flow": "net_cash_flow",
    "cumulative_cash": "cumulative_cash",
    "mw_api": "mw_api",
    "mw_subscriber": "mw_subscriber",
    "mw_backfill_peak": "mw_backfill_peak",
    "mw_backfill_flexible": "mw_backfill_flexible",
    "mw_idle": "mw_idle",
}
SCALAR = {
    "npv": "npv_usd",
    "npv_without_terminal_value": "npv_without_terminal_value_usd",
    "npv_at_term": "npv_at_term_usd",
    "terminal_value": "terminal_value_usd",
    "payback_months": "payback_months",
    "discounted_payback_months": "discounted_payback_months",
    "irr_annual": "irr_annual",
    "profitability_index": "profitability_index",
    "realised_cost_per_mtok": "realised_cost_per_mtok_usd",
    "rent_npv": "rent_npv_usd",
    "throughput_per_mw": "throughput_per_mw_ultrafast",
    "throughput_per_mw_standard": "throughput_per_mw_standard",
    "served_tokens_per_s_standard": lambda r: r["served_tokens_per_s"]["standard"],
    "served_tokens_per_s_fast": lambda r: r["served_tokens_per_s"]["fast"],
    "served_tokens_per_s_ultrafast": lambda r: r["served_tokens_per_s"]["ultrafast"],
    "served_multiplier": "served_multiplier_ultrafast",
    "gpu_cost_standard": lambda r: r["gpu_cost_per_mtok_usd"]["standard"],
    "gpu_cost_fast": lambda r: r["gpu_cost_per_mtok_usd"]["fast"],
    "api_margin": "api_margin_per_mtok_usd",
    "api_share_standard": lambda r: r["shares"]["standard"],
    "api_share_fast": lambda r: r["shares"]["fast"],
    "api_share_ultrafast": lambda r: r["shares"]["ultrafast"],
    "api_share_outside": lambda r: r["shares"]["outside"],
    "api_diversion_standard": lambda r: r["diversion"]["standard"],
    "api_diversion_fast": lambda r: r["diversion"]["fast"],
    "api_market_tokens": "market_tokens_per_month",
    "api_premium": "implied_premium_per_mtok_usd",
    "pro_base_upgrade": "plus_to_pro_base_monthly",
    "pro_capped_propensity": "capped_upgrade_propensity",
    "pro_price_factor": "pro_price_factor",
    "ultrafast_adoption_wanted": "adoption_wanted",
}


def _disagreements(pairs=(), scenario=None, rel: float = 1e-9, served=None) -> list[str]:
    """Every figure where econ and the reference differ by more than rel: 'name month: econ vs
    reference' (months from 1). The reference reads the data itself, with the same overrides."""
    import numpy as np

    import econ
    from econ.model import evaluate

    a = econ.load(DATA)
    if scenario is not None:
        a = a.with_scenario(scenario)
    a = a.with_overrides(list(pairs))
    r = evaluate(a, served=served)
    ref = rm.run(rm.load(DATA, scenario, pairs), base=rm.bundled(), max_multiplier=served)
    scale = max(1.0, max(abs(x) for x in ref["net_cash_flow"]))
    bad = []
    for ours, theirs in MONTHLY.items():
        if not hasattr(r, ours):
            bad.append(f"{ours}: not in econ's result")
            continue
        got = np.asarray(getattr(r, ours))[0]
        want = [math.nan if x is None else x for x in ref[theirs]]
        floor = max([abs(x) for x in want if math.isfinite(x)] + [1e-12])
        if "usd" in theirs or ours in ("rent", "net_cash_flow"):
            floor = max(floor, scale)
        for t, (g, w) in enumerate(zip(got, want, strict=True), start=1):
            if math.isnan(w) and math.isnan(g):
                continue
            if not abs(g - w) <= rel * max(abs(w), floor * 1e-3):
                bad.append(f"{ours} month {t}: econ {g!r} reference {w!r}")
    for ours, theirs in SCALAR.items():
        if not hasattr(r, ours):
            bad.append(f"{ours}: not in econ's result")
            continue
        g = float(np.asarray(getattr(r, ours))[0])
        w = theirs(ref) if callable(theirs) else ref[theirs]
        if w is None:
            if not math.isnan(g):
                bad.append(f"{ours}: econ {g!r} reference None")
        elif not abs(g - w) <= rel * max(abs(w), scale if "npv" in ours else 1e-3):
            bad.append(f"{ours}: econ {g!r} reference {w!r}")
    return bad


@econ_only
def test_defaults_agree_with_the_reference_model():
    assert _disagreements() == []


@econ_only
@pytest.mark.parametrize("basis", ["data", "transferred", "physics"])
@pytest.mark.parametrize("offer", ["auto", "on", "off"])
def test_every_basis_and_offer_agrees_with_the_reference_model(basis, offer):
    pairs = [("capacity.basis", basis), ("capacity.subscriber_offer", offer)]
    assert _disagreements(pairs) == []


@econ_only
def test_random_override_sets_agree_with_the_reference_model():
    import econ

    base = econ.load(DATA)
    rng = random.Random(20261201)
    rows = [s for s in base.sensitivity if s.distribution in ("uniform", "triangular", "pert")]
    for case in range(12):
        pairs = [(s.key, repr(rng.uniform(s.low, s.high))) for s in rng.sample(rows, 8)]
        if case % 3 == 1:
            pairs.append(("contract.pay_as_delivered", "0"))
        if case % 4 == 2:
            pairs.append(("finance.terminal_value", "0"))
        if case % 5 == 3:
            pairs.append(("api.speed_nest_lambda", repr(rng.uniform(0.3, 1))))
        if case % 6 == 4:
            pairs += [("contract.tranche_mw", "150"), ("contract.tranche_months", "6")]
        assert _disagreements(pairs, rel=1e-8) == [], pairs


@econ_only
@pytest.mark.parametrize("scenario", sorted(p.stem for p in (DATA / "scenarios").glob("*.csv")))
def test_every_bundled_scenario_agrees_with_the_reference_model(scenario):
    assert _disagreements(scenario=scenario, rel=1e-8) == []


@econ_only
@pytest.mark.parametrize("basis", ["transferred", "physics"])
@pytest.mark.parametrize("served", [1.0, 0.85, 0.6])
def test_a_held_served_multiplier_agrees_with_the_reference_model(basis, served):
    # the strategic choice held (0.7): the fastest feasible grid speed at or below the multiplier
    assert _disagreements([("capacity.basis", basis)], served=served) == []


@econ_only
def test_a_tier_that_cannot_be_served_agrees_with_the_reference_model():
    # 40 us a layer: the WSE-3 ceiling falls below 0.5 x 750 / 0.9, the tier is not offered
    assert _disagreements([("hardware.wse3.layer_latency_us", "40")]) == []


# ------------------------------------------------------------------ served speeds, bases, g$ in a run


def _physics3(**over) -> dict:
    """The tiny scenario on platform x given the b300 example's physics (ceiling 144 tok/s, so
    a tier is served at or below 129.6 tok/s), x also the GPU platform, its GPU cost derived."""
    from test_reference_model import _physics

    v = _physics(**{"capacity.gpu_cost_per_mtok_usd": "", "hardware.x.rent_usd_per_hour": 2.0})
    return v | over


def test_gpu_tiers_take_the_fastest_feasible_grid_speed_and_their_cost():
    # standard 10 and fast 140 tok/s: 10 <= 129.6 (m = 1); 140 > 129.6, 0.9 x 140 = 126 (m = 0.9)
    v = _physics3(**{"tiers.fast.tokens_per_s": 140})
    r = rm.run(v, base=v)
    assert r["served_tokens_per_s"]["standard"] == 10.0
    assert r["served_tokens_per_s"]["fast"] == pytest.approx(126.0, rel=1e-15)
    assert r["below_grid"] == []
    # g$_i = 2 x 730.5 x 1000 / (2.17 x 1.2) / (Env(s_i) x SPM x 0.5) x 1e6
    per_mw_month = 2 * 730.5 * 1000 / (2.17 * 1.2)
    for tier in ("standard", "fast"):
        env = rm.envelope(v, "x", r["served_tokens_per_s"][tier])["physics_tokens_per_s_per_mw"]
        want = per_mw_month / (env * SPM * 0.5) * 1e6
        assert r["gpu_cost_per_mtok_usd"][tier] == pytest.approx(want, rel=1e-12)
    # fast at 300: even 0.5 x 300 = 150 > 129.6: served at 0.9 x 144 = 129.6 and flagged
    v = _physics3(**{"tiers.fast.tokens_per_s": 300})
    r = rm.run(v, base=v)
    assert r["served_tokens_per_s"]["fast"] == pytest.approx(129.6, rel=1e-12)
    assert r["below_grid"] == ["fast"]
    # an override: every GPU tier at its tier speed and the stated cost
    v = _physics3(**{"tiers.fast.tokens_per_s": 300, "capacity.gpu_cost_per_mtok_usd": 3.0})
    r = rm.run(v, base=v)
    assert r["served_tokens_per_s"]["fast"] == 300.0 and r["below_grid"] == []
    assert r["gpu_cost_per_mtok_usd"] == {"standard": 3.0, "fast": 3.0}
    assert r["gpu_cost_overridden"] is True


def test_gpu_cost_without_an_hourly_rent_is_the_levelised_buy_cost():
    # rent blank: the buy NPV of the GPU platform on the contract's ramp and term over sum MW_t d_t
    v = _tiny()
    w = dict(v)
    d = [1.1 ** (-t / 12) for t in (1, 2)]
    assert rm._gpu_cost_per_mw_month(v, "x") == pytest.approx(
        rm.buy_npv(w) / (1.5 * d[0] + 3 * d[1]), rel=1e-14
    )


def test_transferred_basis_scales_the_envelope_by_eta_and_frontier_scale():
    # the two frontier points of x measured on model m (= the served model) from a vendor page:
    # eta = sqrt(2000 / Env(10) x 1000 / Env(100)), capped at 1
    v = _physics3()
    v |= {f"models.m.{rm.MODEL_COLUMNS[k]}": v[f"model.{k}"] for k in rm.MODEL_FIELDS}
    v |= {f"frontier.{i}.model": "m" for i in ("x_10", "x_100")}
    v |= {f"frontier.{i}.source": "Vendor page" for i in ("x_10", "x_100")}
    v["capacity.basis"] = "transferred"
    env = {s: rm.envelope(v, "x", s)["physics_tokens_per_s_per_mw"] for s in (10, 100)}
    eta = math.sqrt(2000 / env[10] * 1000 / env[100])
    assert eta < 1
    r = rm.run(v, base=v, max_multiplier=1.0)
    assert r["realisation_factor"]["contract"] == pytest.approx(eta, rel=1e-12)
    assert r["throughput_per_mw_ultrafast"] == pytest.approx(eta * env[100], rel=1e-12)
    assert r["throughput_per_mw_standard"] == pytest.approx(eta * env[10], rel=1e-12)
    # frontier_scale 2 (an override, not the base data): doubles the throughput, eta stays
    w = v | {"hardware.x.frontier_scale": 2.0}
    r2 = rm.run(w, base=v, max_multiplier=1.0)
    assert r2["realisation_factor"]["contract"] == pytest.approx(eta, rel=1e-12)
    assert r2["throughput_per_mw_ultrafast"] == pytest.approx(2 * eta * env[100], rel=1e-12)
    # a hardware override moves the envelope, not eta (eta is a constant of the data)
    w = v | {"hardware.x.bandwidth_tb_s": 16}
    r3 = rm.run(w, base=v, max_multiplier=1.0)
    assert r3["realisation_factor"]["contract"] == pytest.approx(eta, rel=1e-12)
    env16 = rm.envelope(w, "x", 100)["physics_tokens_per_s_per_mw"]
    assert env16 > env[100]
    assert r3["throughput_per_mw_ultrafast"] == pytest.approx(eta * env16, rel=1e-12)


# ------------------------------------------------------------------ hand figures on the bundled data


def _bundled_run(impl, pairs) -> dict:
    """A few monthly paths and figures of the bundled data with overrides, from either side."""
    if impl.name == "reference":
        r = rm.run(rm.load(DATA, None, pairs), base=rm.bundled())
        return {k: r[k] for k in ("mw_online", "rent", "pro_counterfactual", "ultrafast_adoption")}
    import numpy as np

    import econ
    from econ.model import evaluate

    r = evaluate(econ.load(DATA).with_overrides(list(pairs)))
    names = ("mw_online", "rent", "pro_counterfactual", "ultrafast_adoption")
    return {k: [float(x) for x in np.asarray(getattr(r, k))[0]] for k in names}


def _num(key: str) -> float:
    return float(rm.load(DATA)[key])


@econ_only
@pytest.mark.parametrize(
    ("growth", "price", "elasticity"),
    [(0.0, None, None), (0.01, None, None), (0.0, 250, 1.0), (-0.01, 150, 2.0)],
)
def test_no_deal_month_one_on_the_bundled_data(impl, growth, price, elasticity):
    # P0_1 = P_0 (1 - churn) + pf x u0_1 x N_1 with u0_1 N_1 = P_0 (churn + g), whatever the cap
    # hits: P0_1 = P_0 (1 - c + pf (c + g)), pf = (price / reference)^(-elasticity)
    pairs = [("market.pro_growth_monthly", repr(growth))]
    if price is not None:
        pairs += [
            ("plans.pro.price_usd_month", repr(price)),
            ("conversion.pro_price_elasticity", repr(elasticity)),
        ]
    p0, c = _num("market.pro_subscribers_start"), _num("conversion.pro_churn_monthly")
    pf = 1.0 if price is None else (price / _num("plans.pro.price_ref_usd_month")) ** -elasticity
    got = _bundled_run(impl, pairs)["pro_counterfactual"][0]
    assert got == pytest.approx(p0 * (1 - c + pf * (c + growth)), rel=1e-12)


@econ_only
def test_tranches_and_burn_on_the_bundled_data(impl):
    # 750 MW in tranches of 250 MW every 12 months: 250 (months 1-12), 500 (13-24), 750 (25-30)
    r = _bundled_run(impl, [("contract.tranche_mw", "250"), ("contract.tranche_months", "12")])
    T = int(_num("contract.term_months"))
    want = [250.0] * 12 + [500.0] * 12 + [750.0] * (T - 24)
    assert r["mw_online"][:T] == pytest.approx(want, rel=1e-15)
    assert r["rent"][:T] == pytest.approx(
        [_num("contract.value_usd") * m / sum(want) for m in want], rel=1e-12
    )
    # subscribers "on" with ample capacity take the wanted adoption x (m_ref / m)^eta:
    # multiplier twice the reference, elasticity 0.5 -> adoption / sqrt(2)
    m_ref = _num("usage.adoption_ref_multiplier")
    pairs = [
        ("capacity.subscriber_offer", "on"),
        ("tiers.ultrafast.usage_multiplier", repr(2 * m_ref)),
        ("usage.adoption_burn_elasticity", "0.5"),
        ("contract.ramp_months", "0"),
    ]
    r = _bundled_run(impl, pairs)
    assert r["ultrafast_adoption"][0] == pytest.approx(
        _num("tiers.ultrafast.adoption") / math.sqrt(2), rel=1e-12
    )


@econ_only
@pytest.mark.parametrize(
    "pairs",
    [
        [("frontier.wse3_750.tokens_per_s_per_mw", "300000")],
        [("frontier.b300_340.tokens_per_s_per_mw", "600000")],
    ],
)
def test_an_override_of_a_measured_point_leaves_eta(pairs):
    assert _disagreements(pairs) == []
