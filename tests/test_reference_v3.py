"""Hand-worked checks of version 3's mechanisms (docs/model.md section 0) as version 4 (section V4)
keeps or replaces them, on the standard-library reference model and, where the mechanism has
an interface of its own or the figure is one of the bundled data, on econ too; and the
agreement of econ with the reference (version 4) on the defaults, every basis, offer and
scenario, and random override sets that draw version 4's keys too.

Every expected number below is worked by hand in the comments (or is an analytic identity,
the optimum of a linear programme solved by scipy's linprog, which shares nothing with
either implementation, or the reference model's figure)."""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference_model as rm  # noqa: E402
from test_reference_model import _layout, _tiny  # noqa: E402

# True: every check runs on econ too (False: the reference alone, as before econ had version 4).
ECON = True

SPM, SPW = 2_629_800, 604_800
econ_only = pytest.mark.skipif(not ECON, reason="econ does not implement version 4 yet")


# V4.2: the peak-shaped uses, in the order that breaks ties of value: the API, subscriber
# streams, moved standard traffic and the free tier's moved traffic
PEAK = ("api", "subscriber", "backfill_peak", "free")


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

        y = allocate(
            mw, pta, tuple(uses[n][0] for n in PEAK), tuple(uses[n][1] for n in PEAK),
            uses["flexible"][0], uses["flexible"][1],
        )  # fmt: skip
        return dict(zip((*PEAK, "flexible"), map(float, y), strict=True))


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

    names = (*PEAK, "flexible")
    c = [-min(uses[n][1], 1e9) for n in names]  # +inf ("on"): a value above every other
    a_ub = [[pta] * len(PEAK) + [0.0], [1.0] * (len(PEAK) + 1)]
    res = linprog(
        c, A_ub=a_ub, b_ub=[mw, mw], bounds=[(0, uses[n][0]) for n in names], method="highs"
    )
    assert res.status == 0
    return -res.fun


def _value(uses, y):
    return sum(min(uses[n][1], 1e9) * y[n] for n in uses)


def _uses(**given) -> dict:
    """Every use at (cap 0, value 0) but those given."""
    return {n: (0, 0) for n in (*PEAK, "flexible")} | given


def test_allocation_by_hand(impl):
    # MW 10, peak-to-average 2: peak room 5 average MW, average room 10.
    # api Y 3 rho 5; subscribers Y 4 rho 3; peak-shaped moved traffic Y 10 rho 1; free tier's
    # Y 2 rho 0.5; flexible Y 4 rho 2. Flexible (rho 2) is worth more than the peak-shaped moved
    # traffic (rho 1): it keeps its 4 average MW. api 3, subscribers 2 (peak room 5 - 3), moved
    # peak 0 (room min(5, 10 - 4) - 5 = 0), free 0, flexible min(4, 10 - 5) = 4.
    # Value 15 + 6 + 0 + 0 + 8 = 29.
    uses = _uses(
        api=(3, 5), subscriber=(4, 3), backfill_peak=(10, 1), free=(2, 0.5), flexible=(4, 2)
    )
    y = impl.allocate(10, 2, uses)
    assert y == pytest.approx(
        {"api": 3, "subscriber": 2, "backfill_peak": 0, "free": 0, "flexible": 4}
    )
    assert _value(uses, y) == pytest.approx(29) == pytest.approx(_lp_optimum(10, 2, uses))
    # flexible volume larger than the MW: it takes all 10 and peak backfill nothing (5 x 1 + 5 x 2 = 15 < 20)
    uses = _uses(backfill_peak=(10, 1), flexible=(20, 2))
    y = impl.allocate(10, 2, uses)
    assert y == pytest.approx(
        {"api": 0, "subscriber": 0, "backfill_peak": 0, "free": 0, "flexible": 10}
    )
    # peak backfill worth more than flexible: 5 at peak (the peak room), flexible the other 5
    uses = _uses(backfill_peak=(10, 3), flexible=(20, 2))
    assert impl.allocate(10, 2, uses) == pytest.approx(
        {"api": 0, "subscriber": 0, "backfill_peak": 5, "free": 0, "flexible": 5}
    )
    # the free tier's moved traffic worth more than the lab's (rho 4 against 3): it fills the
    # peak room first, 2 of the 5, the lab's the other 3, flexible the rest (5)
    uses = _uses(backfill_peak=(10, 3), free=(2, 4), flexible=(20, 2))
    assert impl.allocate(10, 2, uses) == pytest.approx(
        {"api": 0, "subscriber": 0, "backfill_peak": 3, "free": 2, "flexible": 5}
    )
    # equal values keep the order api, subscriber, moved, free: 2 + 2 + 1 of the peak room 5
    uses = _uses(api=(2, 1), subscriber=(2, 1), backfill_peak=(2, 1), free=(2, 1))
    assert impl.allocate(10, 2, uses) == pytest.approx(
        {"api": 2, "subscriber": 2, "backfill_peak": 1, "free": 0, "flexible": 0}
    )
    # a use of negative value (subscribers worth less than nothing) gets nothing
    uses = _uses(api=(1, 5), subscriber=(4, -1))
    assert impl.allocate(10, 2, uses)["subscriber"] == 0
    # subscribers "on" (value +inf) are served first, before a dearer API
    uses = _uses(api=(4, 5), subscriber=(4, math.inf))
    assert impl.allocate(10, 2, uses) == pytest.approx(
        {"api": 1, "subscriber": 4, "backfill_peak": 0, "free": 0, "flexible": 0}
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
        # moved traffic is worth a share of a GPU cost (>= 0): the free tier's and the flexible
        uses["free"] = (rng.choice([0.0, rng.uniform(0, 4)]), rng.choice([0.0, rng.uniform(0, 6)]))
        uses["flexible"] = (
            rng.choice([0.0, rng.uniform(0, 12)]),
            rng.choice([0.0, rng.uniform(0, 6), uses["backfill_peak"][1]]),
        )
        y = impl.allocate(mw, pta, uses)
        # feasible
        assert pta * sum(y[n] for n in PEAK) <= mw * (1 + 1e-12)
        assert sum(y.values()) <= mw * (1 + 1e-12)
        for n in uses:
            assert -1e-15 <= y[n] <= uses[n][0] * (1 + 1e-15) + 1e-15
        # optimal
        assert _value(uses, y) == pytest.approx(_lp_optimum(mw, pta, uses), rel=1e-9, abs=1e-9)


# ------------------------------------------------------------------ capacity: grids, envelope, eta


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


def test_envelope_never_falls_as_users_ask_for_less_speed():
    # V4.5: on every layout the best speed s' >= s is max(s, s*) (s* where the bandwidth and
    # memory bounds meet), so the envelope is flat below the best s* and falls above it.
    # b300 of the layout example with a 1 us hop: k = 1 has s* = 1 / (1/144 + 16.736e12 / 576e12)
    # = 27.78 tok/s; on more stages B_mem grows and s* falls (k = 16: 9,618 streams,
    # s* = 1 / (16e-6 + 1/144 + 9,618 x 3.6978e-6) = 23.5), their output B_mem s* =
    # 1 / ((F(k) + W_read / R) / B_mem + KV / R) grows: 226,100 tokens/s against 218,270 at k = 1
    v = _layout(**{"hardware.b300.hop_latency_us": 1.0})
    slow = rm.envelope(v, "b300", 5)
    free16 = 16 * 72 * 288e9 - 4e12
    b16 = free16 / (16 * 2.12992e9)
    s16 = 1 / (16e-6 + 1 / 144 + b16 * 2.12992e9 / 576e12)
    assert (slow["stages"], slow["physics_speed"]) == (16, pytest.approx(s16, rel=1e-12))
    assert s16 == pytest.approx(23.51, rel=1e-3)
    per_mw = 1000 / (72 * 2.17 * 1.2)
    assert slow["physics_tokens_per_s_per_mw"] == pytest.approx(b16 * s16 * per_mw, rel=1e-12)
    # every speed up to s16 gives the same; faster ones never more (a property on a grid of
    # speeds, the wse3 example and a compute-bound 4-bit model too)
    cases = [
        (v, "b300"),
        (_layout(), "wse3"),
        (_layout(**{"model.bytes_per_param": 0.5, "hardware.b300.tflops": 100}), "b300"),
    ]
    for lay, plat in cases:
        ceiling = rm.envelope(lay, plat, 1)["ceiling_tokens_per_s"]
        speeds = [ceiling * 0.999 * (j / 60) ** 2 for j in range(1, 61)]
        thr = [rm.envelope(lay, plat, s)["physics_tokens_per_s_per_mw"] for s in speeds]
        assert all(b <= a * (1 + 1e-12) for a, b in zip(thr, thr[1:], strict=False)), plat
        assert thr[-1] < thr[0]
    assert rm.envelope(v, "b300", 1)["physics_tokens_per_s_per_mw"] == pytest.approx(
        b16 * s16 * per_mw, rel=1e-12
    )


def _measured_as_served(v: dict) -> dict:
    """models.csv row m holding the served model's parameters (its context: usage.context_tokens)."""
    return {
        f"models.m.{rm.MODEL_COLUMNS[k]}": v[
            "usage.context_tokens" if k == "context_tokens" else f"model.{k}"
        ]
        for k in rm.MODEL_FIELDS
    }


def _eta_data(ratios: list[float], guess_last: bool = False) -> dict:
    """Platform b300 of the layout example with frontier points at 20, 40, 60 tok/s whose
    throughputs are the given multiples of the envelope of a measured model m (the served one)."""
    v = _layout(**{"hardware.b300.hop_latency_us": 1.0, "hardware.b300.frontier_scale": 1.0})
    v |= _measured_as_served(v)
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


def _eta(v: dict) -> rm.Capacity:
    return rm.Capacity(v, v, "b300", "transferred")


def test_realisation_is_linear_in_the_regime_between_sourced_points():
    # V4.4: eta_i = Thr_data(s_i) / Env(s_i) at the regime x_i = s_i / ceiling (144 tok/s: the
    # measured model is the served one, the hardware the base): ratios 0.25 and 1 at x = 20/144
    # and 40/144
    v = _eta_data([0.25, 1.0])
    # flat pairs: pytest.approx compares no nested sequences (refused from pytest 9.2)
    got = [x for point in rm.realisation_points(v, "b300") for x in point]
    assert got == pytest.approx([20 / 144, 0.25, 40 / 144, 1.0], rel=1e-12)
    cap = _eta(v)
    # linear in x between them: at 30 tok/s halfway, 0.625; at 25, 0.25 + 0.75 / 4 = 0.4375;
    # flat outside: 0.25 at 10, 1 at 60
    assert cap.eta(30) == pytest.approx(0.625, rel=1e-12)
    assert cap.eta(25) == pytest.approx(0.4375, rel=1e-12)
    assert (cap.eta(10), cap.eta(60)) == pytest.approx((0.25, 1.0), rel=1e-12)
    # a Guesstimate point does not count: 0.25 and 1 with a guessed 100 at 60 -> eta(60) = 1
    v = _eta_data([0.25, 1.0, 100.0], guess_last=True)
    assert len(rm.realisation_points(v, "b300")) == 2
    assert _eta(v).eta(60) == pytest.approx(1.0, rel=1e-12)
    # capped at 1: ratios 0.5 and 2 -> at 30 tok/s 1.25 uncapped, 1 capped; at 25: 0.875
    cap = _eta(_eta_data([0.5, 2.0]))
    assert (cap.eta_raw(30), cap.eta(30)) == pytest.approx((1.25, 1.0), rel=1e-12)
    assert cap.eta(25) == pytest.approx(0.875, rel=1e-12)
    # falling with x (0.8, 0.4, 0.2): 0.6 at 30 tok/s, 0.3 at 50; the transferred curve is then
    # eta x frontier_scale x the envelope, with no hull
    v = _eta_data([0.8, 0.4, 0.2])
    cap = _eta(v)
    assert (cap.eta(30), cap.eta(50)) == pytest.approx((0.6, 0.3), rel=1e-12)
    env = rm.envelope(v, "b300", 50)["physics_tokens_per_s_per_mw"]
    assert cap.thr(50) == pytest.approx(0.3 * env, rel=1e-12)
    # two points at one regime merge by their geometric mean: 0.8 and a second measurement
    # of 0.2 at 20 tok/s -> sqrt(0.16) = 0.4
    v["frontier.p20b.platform"] = "b300"
    v["frontier.p20b.tokens_per_s_per_user"] = 20
    v["frontier.p20b.tokens_per_s_per_mw"] = v["frontier.p20.tokens_per_s_per_mw"] / 4
    v["frontier.p20b.model"] = "m"
    v["frontier.p20b.source"] = "Vendor page"
    assert rm.realisation_points(v, "b300")[0] == pytest.approx((20 / 144, 0.4), rel=1e-12)
    # no sourced point: eta = 1 (physics)
    v = _eta_data([0.5], guess_last=True)
    assert rm.realisation_points(v, "b300") == []
    assert _eta(v).eta(30) == 1.0


def test_a_rising_realisation_is_replaced_by_its_hull():
    # V4.5: where eta rises with x (0.25 -> 1 between 20 and 40 tok/s) eta x envelope may rise
    # with speed; the transferred curve is the largest value at that regime or any faster one
    # (on a fixed grid of x), so it never rises with speed and never falls below the curve at
    # the grid's regimes
    v = _eta_data([0.25, 1.0])
    cap = _eta(v)
    speeds = [144 * x for x in rm._HULL_X if x < 0.9]
    thr = [cap.thr(s) for s in speeds]
    assert all(b <= a * (1 + 1e-12) for a, b in zip(thr, thr[1:], strict=False))
    curve = [cap.eta(s) * rm.envelope(v, "b300", s)["physics_tokens_per_s_per_mw"] for s in speeds]
    assert all(t >= c * (1 - 1e-12) for t, c in zip(thr, curve, strict=True))
    # the curve itself rises (0.25 x Env(20) < Env(40): the hull is needed)
    env = {s: rm.envelope(v, "b300", s)["physics_tokens_per_s_per_mw"] for s in (20, 40)}
    assert 0.25 * env[20] < 1.0 * env[40]
    # at and above 40 tok/s eta is flat (1) and the envelope falls: the hull is the curve at the
    # grid's regimes there
    fast = [s for s in speeds if s >= 40]
    assert [cap.thr(s) for s in fast] == pytest.approx(
        [rm.envelope(v, "b300", s)["physics_tokens_per_s_per_mw"] for s in fast], rel=1e-12
    )


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


def _pf_tiny3(price: float, elasticity: float = 1.0) -> float:
    """The binary logit's price factor by hand at s_r = 0.05 (tiny3's capped propensity) and the
    reference price 200: pf = 1 / (s_r + (1 - s_r) exp(beta (p - 200))),
    beta = elasticity / (200 (1 - s_r))."""
    beta = elasticity / (200 * 0.95)
    return 1 / (0.05 + 0.95 * math.exp(beta * (price - 200)))


def test_pro_price_factor_is_a_binary_logit_by_hand():
    # V4.7: the propensity at the reference price is s_r = 0.05 (tiny3: the cap binds). Pro at 250,
    # elasticity 1: beta = 1 / (200 x 0.95) = 1/190; pf = 1 / (0.05 + 0.95 e^(50/190))
    # = 1 / (0.05 + 0.95 x 1.30103) = 0.77762, in both worlds:
    # P0_1 = 10 x 0.5 + pf x (base + prop h0_1) x 100 = 5 + 5 pf (at g = 0, u0_1 = 0.05)
    r = rm.run(_tiny3(**{"plans.pro.price_usd_month": 250}), base=_tiny3())
    assert _pf_tiny3(250) == pytest.approx(0.77762, rel=1e-5)
    assert r["pro_price_factor"] == pytest.approx(_pf_tiny3(250), rel=1e-14)
    assert r["pro_counterfactual"][0] == pytest.approx(5 + 5 * _pf_tiny3(250), rel=1e-14)
    # elasticity 2 at 100: pf = 1 / (0.05 + 0.95 e^(-200/190)) = 1 / (0.05 + 0.95 x 0.34902)
    # = 2.6207, and never above 1 / s_r = 20 however low the price (version 3's constant
    # elasticity gave (100/200)^-2 = 4 and had no bound)
    r = rm.run(
        _tiny3(**{"plans.pro.price_usd_month": 100, "conversion.pro_price_elasticity": 2}),
        base=_tiny3(),
    )
    assert r["pro_price_factor"] == pytest.approx(_pf_tiny3(100, 2.0), rel=1e-14)
    assert _pf_tiny3(100, 2.0) == pytest.approx(2.6207, rel=1e-4)
    # the point elasticity at the reference price is the key: d ln pf / d ln p = -beta p_r
    # (1 - s_r) = -1 (a central difference on the reference's factor)
    step = 1e-5
    lo, hi = (
        rm.run(_tiny3(**{"plans.pro.price_usd_month": 200 * (1 + k)}), base=_tiny3())[
            "pro_price_factor"
        ]
        for k in (-step, step)
    )
    assert (math.log(hi) - math.log(lo)) / (math.log(1 + step) - math.log(1 - step)) == (
        pytest.approx(-1.0, rel=1e-6)
    )


def test_the_deal_has_an_interior_optimum_in_the_pro_price():
    # V4.7: the deal's extra Pro subscribers dP scale with pf (both worlds' upgrade flows do), so
    # its subscription revenue (p - 20) dP is (p - 20) pf(p) x a constant: its maximum is where
    # 1 = (p - 20) beta (1 - s_r pf(p)) (d pf / dp = -beta pf (1 - s_r pf)); at 200 the right side
    # is 180 / 190 x 0.95 = 0.9 < 1, at 250 it is 230 / 190 x 0.961 = 1.163 > 1: an interior p*
    def foc(p: float) -> float:
        return (p - 20) / 190 * (1 - 0.05 * _pf_tiny3(p)) - 1

    lo, hi = 200.0, 250.0
    for _ in range(60):  # bisection
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if foc(mid) < 0 else (lo, mid)
    p_star = 0.5 * (lo + hi)

    def revenue(p: float) -> float:
        return rm.run(_tiny3(**{"plans.pro.price_usd_month": p}), base=_tiny3())[
            "subscription_revenue"
        ][0]

    at = revenue(p_star)
    assert at > 0
    for p in (150, 200, 0.98 * p_star, 1.02 * p_star, 250, 400, 1000):
        assert revenue(p) < at
    # revenue / ((p - 20) pf) is one constant
    per = [revenue(p) / ((p - 20) * _pf_tiny3(p)) for p in (150, p_star, 400)]
    assert per == pytest.approx([per[0]] * 3, rel=1e-10)
    # 100,000 USD a month no longer "improves" anything: pf = 1 / (0.05 + 0.95 e^(99,800 / 190)),
    # about 1e-228, and the revenue with it
    assert abs(revenue(1e5)) < 1e-200


def test_burn_elasticity_of_adoption_by_hand():
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
    # a multiplier far below the reference: 0.1 x (1e6 / 1)^0.5 = 100, capped at 1 - 0.2 (fast
    # keeps its adoption, standard takes 1 - a_fast - a_u >= 0)
    r = rm.run(
        _tiny3(**{"tiers.ultrafast.usage_multiplier": 1, "usage.adoption_burn_elasticity": 0.5}),
        base=_tiny3(),
    )
    assert r["adoption_wanted"] == pytest.approx(0.8, rel=1e-15)


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


# ------------------------------------------------------------------ the data: v4 keys, retired keys


def test_version_three_data_is_refused_naming_the_missing_keys():
    v3 = {k: x for k, x in _tiny().items() if k not in rm.V4_KEYS}
    v3 |= {"capacity.backfill_tokens_per_month": 1e10, "model.context_tokens": 4096}
    with pytest.raises(
        ValueError, match="version 4 key.*capacity.movable_share.*fleet.avoidable_share"
    ):
        rm.run(v3, base=_tiny())
    # version 2's keys are missing too
    v2 = {k: x for k, x in _tiny().items() if k not in rm.V3_KEYS}
    with pytest.raises(ValueError, match="version 4 key.*api.diversion_to_lab_tiers"):
        rm.run(v2, base=_tiny())
    # each retired key, set, is refused naming what replaces it
    for old, new in (
        ("capacity.backfill_tokens_per_month", "capacity.movable_share"),
        ("capacity.flexible_value_share", "fleet.avoidable_share"),
        ("contract.pay_as_delivered", "contract.payment"),
        ("model.context_tokens", "usage.context_tokens"),
        ("api.cannibalised_share", "api.diversion_to_lab_tiers"),
    ):
        with pytest.raises(ValueError, match=f"{old} is retired.*{new}"):
            rm.run(_tiny3(**{old: 1}), base=_tiny3())
    # a version 4 key left blank
    with pytest.raises(ValueError, match="version 4 key.*fleet.ops_utilization"):
        rm.run(_tiny3(**{"fleet.ops_utilization": ""}), base=_tiny3())


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
    # version 4: the free tier's moved traffic, D0_t, X_t, B_t and its flexible part, cash alone
    "mw_free": "mw_free",
    "demand_no_deal_tokens": "demand_no_deal_tokens",
    "credited_tokens": "credited_tokens",
    "moved_demand_cap_tokens": "moved_demand_cap_tokens",
    "moved_flexible_cap_tokens": "moved_flexible_cap_tokens",
    "cash_flow": "cash_flow",
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
    # version 4: the payback on cash alone, one value per freed GPU-hour and its parts, the
    # GPU fleet's throughput and hours per token at the served speeds, the flexible token's value
    "cash_payback_months": "cash_payback_months",
    "gpu_hour_value": "gpu_hour_value_usd",
    "gpu_rent_per_hour": "gpu_rent_usd_per_hour",
    "gpu_energy_per_hour": "gpu_energy_usd_per_hour",
    "gpu_hours_standard": lambda r: r["gpu_hours_per_mtok"]["standard"],
    "gpu_hours_fast": lambda r: r["gpu_hours_per_mtok"]["fast"],
    "gpu_throughput_standard": lambda r: r["gpu_throughput_per_mw"]["standard"],
    "gpu_throughput_fast": lambda r: r["gpu_throughput_per_mw"]["fast"],
    "gpu_cost_flexible": "gpu_cost_flexible_per_mtok_usd",
}

# the GPU fleet's throughput and hours per token are not read where
# capacity.gpu_cost_per_mtok_usd sets every token's value: econ reports NaN, the reference the figure
UNUSED_WHEN_OVERRIDDEN = {
    "gpu_hours_standard",
    "gpu_hours_fast",
    "gpu_throughput_standard",
    "gpu_throughput_fast",
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
        if ref["gpu_cost_overridden"] and ours in UNUSED_WHEN_OVERRIDDEN:
            continue  # econ does not compute what the override makes unused (NaN)
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
def _v4_draws(rng: random.Random) -> dict[str, str]:
    """Version 4's keys, each within its rule: the fleet plan (movable share, internal batch,
    avoidable share, sublet, operations' utilisation, troughs), the terms (payment, delivered
    share), successors' declines, the subscribers' keys (lower Pro share, voluntary cap-hit
    weight, ultrafast query share), the free tier, the precision TFLOPS and the GPU rent;
    a random half of them in each set."""
    u = rng.uniform
    draws = {
        "capacity.movable_share": lambda: {"capacity.movable_share": u(0, 1)},
        "capacity.internal_batch_tokens_per_month": lambda: {
            "capacity.internal_batch_tokens_per_month": u(0, 5e13)
        },
        "fleet.avoidable_share": lambda: {"fleet.avoidable_share": u(0, 1)},
        "fleet.sublet_usd_per_gpu_hour": lambda: {"fleet.sublet_usd_per_gpu_hour": u(0, 2)},
        "fleet.ops_utilization": lambda: {"fleet.ops_utilization": u(0.5, 1)},
        "fleet.troughs": lambda: {"fleet.troughs": "idle"},
        "contract.payment": lambda: {"contract.payment": "take_or_pay"},
        "contract.delivered_share": lambda: {"contract.delivered_share": u(0.4, 1)},
        "usage.context_tokens": lambda: {"usage.context_tokens": u(4096, 32768)},
        "market.price_decline_per_year": lambda: {"market.price_decline_per_year": u(0, 0.9)},
        "hardware.gpu_cost_decline_per_year": lambda: {
            "hardware.gpu_cost_decline_per_year": u(0, 0.7)
        },
        "conversion.lower_pro_share": lambda: {"conversion.lower_pro_share": u(0, 1)},
        "conversion.voluntary_cap_hit_weight": lambda: {
            "conversion.voluntary_cap_hit_weight": u(0, 1)
        },
        "usage.ultrafast_query_share": lambda: {"usage.ultrafast_query_share": u(0.1, 1)},
        "free.served": lambda: {
            "free.served": "1",
            "free.dau_per_mau": u(0.1, 0.7),
            "free.queries_per_day": u(1, 15),
            "free.flagship_queries_per_day": u(1, 10),
            "free.alternative_cost_per_mtok_usd": u(0, 3),
        },
        "hardware.b300.tflops": lambda: {
            "hardware.b300.tflops_fp8": u(2500, 10_000),
            "hardware.b300.tflops_fp4": u(5000, 20_000),
            "hardware.wse3.tflops_fp8": u(125_000, 500_000),
        },
        "hardware.b300.rent_usd_per_hour": lambda: {
            "hardware.b300.rent_usd_per_hour": u(2.5, 7.25)
        },
        "capacity.gpu_cost_per_mtok_usd": lambda: {"capacity.gpu_cost_per_mtok_usd": u(0.5, 10)},
    }
    out: dict = {}
    for k in rng.sample(sorted(draws), len(draws) // 2):
        out |= draws[k]()
    return {k: x if isinstance(x, str) else repr(x) for k, x in out.items()}


@econ_only
def test_random_override_sets_agree_with_the_reference_model():
    import econ

    base = econ.load(DATA)
    rng = random.Random(20261201)
    rows = [s for s in base.sensitivity if s.distribution in ("uniform", "triangular", "pert")]
    for case in range(16):
        over = {s.key: repr(rng.uniform(s.low, s.high)) for s in rng.sample(rows, 8)}
        over |= _v4_draws(rng)
        over["capacity.basis"] = ("transferred", "physics", "data", "transferred")[case % 4]
        over["capacity.subscriber_offer"] = rng.choice(["auto", "on", "off"])
        if case % 4 == 2:
            over["finance.terminal_value"] = "0"
        if case % 5 == 3:
            over["api.speed_nest_lambda"] = repr(rng.uniform(0.3, 1))
        if case % 6 == 4:
            over |= {"contract.tranche_mw": "150", "contract.tranche_months": "6"}
        if case % 4 == 1:  # another GPU fleet (H100: no 4-bit figure, its own rent)
            over["capacity.gpu_platform"] = "h100"
        if case % 7 == 5:  # the wanted adoption capped at 1 - fast adoption (0.3 x 8/4 ^ 2 = 1.2)
            over |= {
                "tiers.ultrafast.adoption": "0.3",
                "tiers.ultrafast.usage_multiplier": "4",
                "usage.adoption_burn_elasticity": "2",
            }
        pairs = sorted(over.items())
        assert _disagreements(pairs, rel=1e-8) == [], pairs


@econ_only
@pytest.mark.parametrize(
    "pairs",
    [
        # 300 us a b300 layer: the GPU ceiling (about 52 tok/s) puts the standard tier below its
        # speed (0.9 x 54) and fast below the grid; with a speed elasticity the served speeds
        # move demand (phi_i = (s_i / the standard tier's speed)^elasticity, 5.2) and month 1's
        # no-deal cap hits (h0_1, 0.5)
        [("hardware.b300.layer_latency_us", "300"), ("usage.speed_elasticity", "0.6")],
        # the same with the token value set: the GPU tiers keep the grid's speeds (0.1)
        [("hardware.b300.layer_latency_us", "300"), ("capacity.gpu_cost_per_mtok_usd", "4")],
        # the wanted adoption capped at 1 - fast adoption: 0.3 x (8 / 4)^2 = 1.2 > 0.8
        [
            ("tiers.ultrafast.adoption", "0.3"),
            ("tiers.ultrafast.usage_multiplier", "4"),
            ("usage.adoption_burn_elasticity", "2"),
            ("capacity.subscriber_offer", "on"),
        ],
        # the troughs idle and token values clamped at the list prices
        [("fleet.troughs", "idle"), ("hardware.b300.rent_usd_per_hour", "60")],
        # more internal batch work than the contract can carry
        [("capacity.internal_batch_tokens_per_month", "1e15"), ("fleet.troughs", "idle")],
        # the free tier served, its moved traffic worth more than the lab's
        [
            ("free.served", "1"),
            ("free.alternative_cost_per_mtok_usd", "5"),
            ("free.flagship_queries_per_day", "20"),
        ],
        # delivery risk on either payment basis
        [("contract.delivered_share", "0.4"), ("contract.payment", "take_or_pay")],
        [("contract.delivered_share", "0.4"), ("capacity.basis", "physics")],
        # a compute-bound 4-bit model
        [
            ("capacity.basis", "physics"),
            ("model.bytes_per_param", "0.5"),
            ("hardware.b300.tflops_fp4", "100"),
        ],
        # V4.6: a successor of another size, served on the contract from month 2
        [("model.successor_params_multiple", "3"), ("model.succession_months", "0.5")],
        # one the contract cannot serve at 750 tokens/s (16x): the predecessor's demand declines
        [
            ("model.successor_params_multiple", "16"),
            ("model.predecessor_decline_per_month", "0.3"),
            ("model.succession_months", "7"),
        ],
        [
            ("model.successor_params_multiple", "16"),
            ("fleet.troughs", "idle"),
            ("free.served", "1"),
            ("capacity.internal_batch_tokens_per_month", "1e13"),
        ],
        # the data basis has no model size: only the fleet's values follow it (none here)
        [("model.successor_params_multiple", "2"), ("capacity.basis", "data")],
        [("model.successor_params_multiple", "0.5"), ("capacity.basis", "physics")],
    ],
    ids=[
        "slow-gpu-fleet",
        "slow-gpu-fleet-value-set",
        "adoption-cap",
        "troughs-idle-clamped",
        "batch-beyond-capacity",
        "free-tier",
        "take-or-pay-delivery",
        "delivery-physics",
        "compute-bound",
        "successor-reached-from-month-2",
        "successor-not-reached-declining",
        "successor-not-reached-idle-troughs",
        "successor-data-basis",
        "successor-smaller-physics",
    ],
)
def test_version_four_edge_cases_agree_with_the_reference_model(pairs):
    assert _disagreements(pairs) == []


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


# ------------------------------------------------------------------ served speeds, bases, token values in a run


def _physics3(**over) -> dict:
    """The tiny scenario on platform x given the b300 example's physics (ceiling 144 tok/s, so
    a tier is served at or below 129.6 tok/s), x also the GPU platform, its token values derived
    (rent 2 USD a GPU-hour, the fleet constrained half the term)."""
    from test_reference_model import _physics

    v = _physics(
        **{
            "capacity.gpu_cost_per_mtok_usd": "",
            "hardware.x.rent_usd_per_hour": 2.0,
            "fleet.avoidable_share": 0.5,
        }
    )
    return v | over


def test_gpu_tiers_take_the_fastest_feasible_grid_speed_and_their_value():
    # standard 10 and fast 140 tok/s: 10 <= 129.6 (m = 1); 140 > 129.6, 0.9 x 140 = 126 (m = 0.9)
    v = _physics3(**{"tiers.fast.tokens_per_s": 140})
    r = rm.run(v, base=v)
    assert r["served_tokens_per_s"]["standard"] == 10.0
    assert r["served_tokens_per_s"]["fast"] == pytest.approx(126.0, rel=1e-15)
    assert r["below_grid"] == []
    # V4.3: e = 2.17 kW x 1.2 x 0.1 USD/kWh = 0.2604 USD a GPU-hour; lambda = 0.5 x 2 + 0.5 x
    # (0 + 0.2604) = 1.1302; h_i = 1e6 x 1000 / (2.17 x 1.2) GPUs a MW / (Env(s_i) x 3600);
    # v_i = lambda h_i / u_ops (u_ops 1)
    lam = 0.5 * 2 + 0.5 * 2.17 * 1.2 * 0.1
    assert r["gpu_hour_value_usd"] == pytest.approx(1.1302, rel=1e-12)
    assert lam == pytest.approx(1.1302, rel=1e-12)
    gpus_per_mw = 1000 / (2.17 * 1.2)
    for tier in ("standard", "fast"):
        env = rm.envelope(v, "x", r["served_tokens_per_s"][tier])["physics_tokens_per_s_per_mw"]
        h = 1e6 * gpus_per_mw / (env * 3600)
        assert r["gpu_hours_per_mtok"][tier] == pytest.approx(h, rel=1e-12)
        assert r["gpu_cost_per_mtok_usd"][tier] == pytest.approx(lam * h, rel=1e-12)
    # fast at 300: even 0.5 x 300 = 150 > 129.6: served at 0.9 x 144 = 129.6 and flagged
    v = _physics3(**{"tiers.fast.tokens_per_s": 300})
    r = rm.run(v, base=v)
    assert r["served_tokens_per_s"]["fast"] == pytest.approx(129.6, rel=1e-12)
    assert r["below_grid"] == ["fast"]
    # an override sets the value of every token, not a speed: the GPU tiers keep the grid's
    # speeds (0.1: only the data basis keeps the tier speeds)
    v = _physics3(**{"tiers.fast.tokens_per_s": 300, "capacity.gpu_cost_per_mtok_usd": 3.0})
    r = rm.run(v, base=v)
    assert r["served_tokens_per_s"]["fast"] == pytest.approx(129.6, rel=1e-12)
    assert r["below_grid"] == ["fast"]
    assert r["gpu_cost_per_mtok_usd"] == {"standard": 3.0, "fast": 3.0}
    assert r["gpu_cost_flexible_per_mtok_usd"] == 3.0
    assert r["gpu_cost_overridden"] is True


def test_gpu_rent_without_an_hourly_rent_is_the_levelised_buy_cost():
    # rent blank: the buy NPV of the GPU platform on the contract's ramp and term over
    # sum MW_t d_t, per GPU-hour: / (730.5 hours x 1000 / (10 kW x 1.25) = 80 GPUs a MW)
    v = _tiny()
    d = [1.1 ** (-t / 12) for t in (1, 2)]
    want = rm.buy_npv(v) / (1.5 * d[0] + 3 * d[1]) / (730.5 * 80)
    assert rm._gpu_rent_per_hour(v, "x") == pytest.approx(want, rel=1e-14)
    # in a run with the value derived and a = 1: lambda = r_m
    r = rm.run(_tiny(**{"capacity.gpu_cost_per_mtok_usd": ""}), base=_tiny())
    assert r["gpu_rent_usd_per_hour"] == pytest.approx(want, rel=1e-14)
    assert r["gpu_hour_value_usd"] == pytest.approx(want, rel=1e-14)
    # a delivered share below 1 does not change it (buying delivers what it buys)
    half = _tiny(**{"contract.delivered_share": 0.5})
    assert rm._gpu_rent_per_hour(half, "x") == pytest.approx(want, rel=1e-14)


def test_transferred_basis_reads_eta_at_the_regime_and_frontier_scale():
    # the two frontier points of x measured on model m (= the served model) from a vendor page,
    # 2000 tokens/s per MW at 10 tok/s and 500 at 100: eta_1 = 2000 / Env(10) at x_1 = 10 / 144
    # and eta_2 = 500 / Env(100) at x_2 = 100 / 144, falling (no hull)
    v = _physics3(**{"frontier.x_100.tokens_per_s_per_mw": 500})
    v |= _measured_as_served(v)
    v |= {f"frontier.{i}.model": "m" for i in ("x_10", "x_100")}
    v |= {f"frontier.{i}.source": "Vendor page" for i in ("x_10", "x_100")}
    v["capacity.basis"] = "transferred"
    env = {s: rm.envelope(v, "x", s)["physics_tokens_per_s_per_mw"] for s in (10, 70, 100)}
    eta1, eta2 = 2000 / env[10], 500 / env[100]
    assert eta2 < eta1 < 1
    # at the measured regimes the transferred curve IS the measurement: 2000 and 500
    r = rm.run(v, base=v, max_multiplier=1.0)
    assert r["realisation_factor"]["contract"] == pytest.approx(eta2, rel=1e-12)
    assert r["realisation_factor"]["contract_standard"] == pytest.approx(eta1, rel=1e-12)
    assert r["throughput_per_mw_ultrafast"] == pytest.approx(500, rel=1e-12)
    assert r["throughput_per_mw_standard"] == pytest.approx(2000, rel=1e-12)
    # at 70 tok/s (multiplier 0.7): two thirds of the way from x_1 to x_2,
    # eta = eta1 + (eta2 - eta1) x 60 / 90
    r = rm.run(v, base=v, max_multiplier=0.7)
    eta70 = eta1 + (eta2 - eta1) * 60 / 90
    assert r["realisation_factor"]["contract"] == pytest.approx(eta70, rel=1e-12)
    assert r["throughput_per_mw_ultrafast"] == pytest.approx(eta70 * env[70], rel=1e-12)
    # frontier_scale 2 (an override, not the base data): doubles the throughput, eta stays
    w = v | {"hardware.x.frontier_scale": 2.0}
    r2 = rm.run(w, base=v, max_multiplier=1.0)
    assert r2["realisation_factor"]["contract"] == pytest.approx(eta2, rel=1e-12)
    assert r2["throughput_per_mw_ultrafast"] == pytest.approx(1000, rel=1e-12)
    # a hardware override moves the envelope and the ceiling (288 tok/s at 16 TB/s), not the
    # points (a constant of the data): 100 tok/s is the regime 100 / 288, between x_1 = 20 / 288
    # and x_2 = 200 / 288: eta = eta1 + (eta2 - eta1) x 80 / 180
    w = v | {"hardware.x.bandwidth_tb_s": 16}
    r3 = rm.run(w, base=v, max_multiplier=1.0)
    eta16 = eta1 + (eta2 - eta1) * 80 / 180
    assert r3["realisation_factor"]["contract"] == pytest.approx(eta16, rel=1e-12)
    env16 = rm.envelope(w, "x", 100)["physics_tokens_per_s_per_mw"]
    assert env16 > env[100]
    assert r3["throughput_per_mw_ultrafast"] == pytest.approx(eta16 * env16, rel=1e-12)


# ------------------------------------------------------------------ hand figures on the bundled data


BUNDLED_PATHS = ("mw_online", "rent", "pro_counterfactual", "ultrafast_adoption")


def _bundled_run(impl, pairs) -> dict:
    """A few monthly paths and figures of the bundled data with overrides, from either side."""
    if impl.name == "reference":
        r = rm.run(rm.load(DATA, None, pairs), base=rm.bundled())
        out = {k: r[k] for k in BUNDLED_PATHS}
        return out | {"gpu_hour_value": r["gpu_hour_value_usd"]}
    import numpy as np

    import econ
    from econ.model import evaluate

    r = evaluate(econ.load(DATA).with_overrides(list(pairs)))
    out = {k: [float(x) for x in np.asarray(getattr(r, k))[0]] for k in BUNDLED_PATHS}
    return out | {"gpu_hour_value": float(np.asarray(r.gpu_hour_value)[0])}


def _num(key: str) -> float:
    return float(rm.load(DATA)[key])


def _pro_price(column: str, top: float | None = None) -> float:
    """V4.7: the price an upgrade pays (or its reference), the Pro tiers mixed by the lower
    tier's share where the data have the lower tier; ``top`` replaces the top tier's."""
    p = _num(f"plans.pro.{column}") if top is None else top
    data = rm.load(DATA)
    if rm._blank(data.get(f"plans.pro_lower.{column}")):
        return p
    share = _num("conversion.lower_pro_share")
    return (1 - share) * p + share * _num(f"plans.pro_lower.{column}")


@econ_only
@pytest.mark.parametrize(
    ("growth", "price", "elasticity"),
    [(0.0, None, None), (0.01, None, None), (0.0, 250, 1.0), (-0.01, 150, 2.0)],
)
def test_no_deal_month_one_on_the_bundled_data(impl, growth, price, elasticity):
    # P0_1 = P_0 (1 - churn) + pf x u0_1 x N_1 with u0_1 N_1 = P_0 (churn + g), whatever the cap
    # hits: P0_1 = P_0 (1 - c + pf (c + g)). V4.7: pf = 1 / (s_r + (1 - s_r) exp(beta (p - p_r)))
    # with beta = elasticity / (p_r (1 - s_r)), p and p_r the mixed prices of the Pro tiers.
    # A repriced case sets the cap on the propensity to 1e-4: it binds, since the derived
    # propensity share x u0_1 / h0_1 >= share x u0_1 (h0_1 <= 1), so s_r = 1e-4
    pairs = [("market.pro_growth_monthly", repr(growth))]
    p0, c = _num("market.pro_subscribers_start"), _num("conversion.pro_churn_monthly")
    pf = 1.0
    if price is not None:
        pairs += [
            ("plans.pro.price_usd_month", repr(price)),
            ("conversion.pro_price_elasticity", repr(elasticity)),
            ("conversion.max_capped_propensity", "1e-4"),
        ]
        n1 = _num("market.mau") * _num("market.plus_share_of_mau")
        assert _num("conversion.capped_share_of_upgrades") * p0 * (c + growth) / n1 > 1e-4
        s_r = 1e-4
        p, p_r = _pro_price("price_usd_month", price), _pro_price("price_ref_usd_month")
        beta = elasticity / (p_r * (1 - s_r))
        pf = 1 / (s_r + (1 - s_r) * math.exp(beta * (p - p_r)))
    got = _bundled_run(impl, pairs)["pro_counterfactual"][0]
    assert got == pytest.approx(p0 * (1 - c + pf * (c + growth)), rel=1e-12)


@econ_only
def test_tranches_delivery_and_burn_on_the_bundled_data(impl):
    # 750 MW in tranches of 250 MW every 12 months: 250 (months 1-12), 500 (13-24), 750 (25-30),
    # 60 % of it delivered; paid as delivered: the value x 0.6 in proportion to the MW
    pairs = [
        ("contract.tranche_mw", "250"),
        ("contract.tranche_months", "12"),
        ("contract.delivered_share", "0.6"),
        ("contract.payment", "pay_as_delivered"),
    ]
    r = _bundled_run(impl, pairs)
    T = int(_num("contract.term_months"))
    want = [250.0] * 12 + [500.0] * 12 + [750.0] * (T - 24)
    value = _num("contract.value_usd")
    assert r["mw_online"][:T] == pytest.approx([0.6 * m for m in want], rel=1e-15)
    assert r["rent"][:T] == pytest.approx([value * 0.6 * m / sum(want) for m in want], rel=1e-12)
    # take-or-pay: the value / T every month whatever is delivered
    r = _bundled_run(impl, [*pairs[:3], ("contract.payment", "take_or_pay")])
    assert r["mw_online"][:T] == pytest.approx([0.6 * m for m in want], rel=1e-15)
    assert r["rent"][:T] == pytest.approx([value / T] * T, rel=1e-12)
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
def test_gpu_hour_value_on_the_bundled_data(impl):
    # V4.3: lambda = a r_m + (1 - a)(sublet + e), e = power_kw x PUE x power price, on the GPU
    # platform's keys: a = 0.3, sublet 0.8 USD a GPU-hour
    gpu = rm.load(DATA)["capacity.gpu_platform"]
    pairs = [("fleet.avoidable_share", "0.3"), ("fleet.sublet_usd_per_gpu_hour", "0.8")]
    e = (
        _num(f"hardware.{gpu}.power_kw")
        * _num("facility.pue")
        * _num("buy.power_price_usd_per_kwh")
    )
    lam = 0.3 * _num(f"hardware.{gpu}.rent_usd_per_hour") + 0.7 * (0.8 + e)
    assert _bundled_run(impl, pairs)["gpu_hour_value"] == pytest.approx(lam, rel=1e-12)


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
