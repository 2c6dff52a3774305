"""Speed and memory of the engine, printed (never asserted). Ratios come from one run.

    python benchmarks/engine.py            # full run (a few minutes)
    python benchmarks/engine.py --quick    # smaller sizes, for a smoke test

Needs the bench extra (SALib, numpy-financial): pip install '.[bench]'.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the per-scenario reference model lives with the tests

import econ  # noqa: E402
from econ.model import evaluate  # noqa: E402
from econ.payback import irr  # noqa: E402
from econ.sensitivity import run as srun  # noqa: E402
from econ.sensitivity.sampling import Problem, Variable  # noqa: E402


def timed(fn, *args, repeat: int = 1, **kw):
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn(*args, **kw)
        best = min(best, time.perf_counter() - t)
    return best, out


def scenario_overrides(a, n: int, seed: int = 0) -> dict[str, np.ndarray]:
    """n scenarios drawn from sensitivity.csv (the Monte Carlo's own sampler)."""
    from econ.sensitivity.sampling import sample

    df = sample(srun.problem_from(a), n, seed)
    return {k: df[k].to_numpy() for k in df.columns}


def bench_model_vs_loop(a, n_vec: int, n_loop: int) -> None:
    """One vectorised call against two per-scenario loops: econ's own model called with one
    scenario at a time, and a lean pure-Python (standard library) implementation of MODEL.md."""
    import reference_model

    over = scenario_overrides(a, n_vec)
    chunk = 20_000  # the chunk size the Monte Carlo uses

    def chunked():
        return np.concatenate(
            [
                evaluate(a, {k: v[s : s + chunk] for k, v in over.items()}, detail=False).npv
                for s in range(0, n_vec, chunk)
            ]
        )

    t_vec, npv_vec = timed(chunked, repeat=2)
    loop_over = {k: v[:n_loop] for k, v in over.items()}
    t0 = time.perf_counter()
    one = np.array(
        [
            evaluate(a, {k: v[i] for k, v in loop_over.items()}, detail=False).npv[0]
            for i in range(n_loop)
        ]
    )
    t_one = time.perf_counter() - t0
    t0 = time.perf_counter()
    ref = [
        reference_model.run({**a.values, **{k: float(v[i]) for k, v in loop_over.items()}})
        for i in range(n_loop)
    ]
    t_ref = time.perf_counter() - t0
    npv_ref = np.array([x["npv"] for x in ref])
    err = max(
        np.max(np.abs(npv_vec[:n_loop] - npv_ref) / np.maximum(1.0, np.abs(npv_ref))),
        np.max(np.abs(npv_vec[:n_loop] - one) / np.maximum(1.0, np.abs(one))),
    )
    vec_rate = n_vec / t_vec
    print(
        f"model, vectorised, 20k a call:     {n_vec:>9,} scenarios in {t_vec:7.3f} s = {vec_rate:11,.0f} scenarios/s"
    )
    print(
        f"model, loop of one-scenario calls:  {n_loop:>9,} scenarios in {t_one:7.3f} s = {n_loop / t_one:11,.0f} scenarios/s"
        f"  -> speed-up {vec_rate / (n_loop / t_one):,.0f}x (goal >= 300x)"
    )
    print(
        f"model, lean pure-Python loop:       {n_loop:>9,} scenarios in {t_ref:7.3f} s = {n_loop / t_ref:11,.0f} scenarios/s"
        f"  -> speed-up {vec_rate / (n_loop / t_ref):,.0f}x"
    )
    print(f"  all three agree: largest relative NPV difference {err:.1e}")


def bench_irr(a, n: int, n_ref: int) -> None:
    import numpy_financial as npf

    cf = np.ascontiguousarray(evaluate(a, scenario_overrides(a, n, 1), detail=False).net_cash_flow)
    t_vec, x = timed(irr, cf, repeat=2)
    t0 = time.perf_counter()
    ref = np.array([npf.irr(np.r_[0.0, row]) for row in cf[:n_ref]])
    t_ref = time.perf_counter() - t0
    ok = np.isfinite(ref) & np.isfinite(x[:n_ref])
    err = np.max(np.abs(ref[ok] - x[:n_ref][ok])) if ok.any() else np.nan
    print(f"IRR, vectorised:           {n:>10,} rows in {t_vec:7.3f} s = {n / t_vec:12,.0f} rows/s")
    print(
        f"IRR, numpy-financial:      {n_ref:>10,} rows in {t_ref:7.3f} s = {n_ref / t_ref:12,.0f} rows/s"
    )
    print(
        f"  speed-up {(n / t_vec) / (n_ref / t_ref):,.0f}x (goal >= 100x); largest difference {err:.1e}"
    )


def bench_sobol(m: int) -> None:
    from SALib.analyze import sobol as sa
    from SALib.sample import sobol as ss
    from SALib.test_functions import Ishigami

    from econ.sensitivity import sobol

    n = 2**m
    pi = np.pi
    prob = Problem(tuple(Variable(f"x{i}", "uniform", -pi, pi, 0.0) for i in (1, 2, 3)))

    def f(p):
        return {
            "y": np.sin(p["x1"]) + 7 * np.sin(p["x2"]) ** 2 + 0.1 * p["x3"] ** 4 * np.sin(p["x1"])
        }

    def ours():
        A, B = sobol.sample(prob, n, 1)
        fa, fb, fab = sobol.evaluate(f, prob, A, B, "y")
        return sobol.analyse(fa, fb, fab, prob.names, n_resamples=1000)

    def salib():
        problem = {"num_vars": 3, "names": ["x1", "x2", "x3"], "bounds": [[-pi, pi]] * 3}
        X = ss.sample(problem, n, calc_second_order=False, seed=1)
        return sa.analyze(
            problem, Ishigami.evaluate(X), calc_second_order=False, num_resamples=1000, seed=1
        )

    t_ours, df = timed(ours, repeat=2)
    t_salib, si = timed(salib, repeat=2)
    exact = np.array([0.3139, 0.4424, 0.0, 0.5576, 0.4424, 0.2437])
    e_ours = np.max(np.abs(np.r_[df["S1"], df["ST"]] - exact))
    e_salib = np.max(np.abs(np.r_[si["S1"], si["ST"]] - exact))
    print(
        f"Sobol, Ishigami n=2^{m}, 1,000 bootstrap resamples: econ {t_ours:.3f} s (error {e_ours:.4f}), "
        f"SALib {t_salib:.3f} s (error {e_salib:.4f}); econ is {t_salib / t_ours:.1f}x SALib's speed"
    )


def floor(n: int, h: int = 36) -> float:
    """Bare numpy: the irreducible arithmetic of MODEL.md for n scenarios x h months
    (5 lognormal survival evaluations a month, the two Pro stocks, discounting)."""
    from scipy.special import ndtr

    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    z = rng.standard_normal((n, 5))
    t = np.arange(h)
    eff = t * np.log(0.85) / 12
    P = np.full(n, 1e6)
    P0 = P.copy()
    npv = np.zeros(n)
    for m in range(h):
        s = ndtr(z + eff[m])  # five survival evaluations
        h1 = 0.65 * s[:, 0] + 0.2 * s[:, 1] + 0.15 * s[:, 2]
        h0 = 0.8 * s[:, 3] + 0.2 * s[:, 4]
        P = P * 0.97 + (0.002 + 0.02 * h1) * 3e7
        P0 = P0 * 0.97 + (0.002 + 0.02 * h0) * 3e7
        npv += ((P - P0) * 180 - 3.3e8) * 1.1 ** (-(m + 1) / 12)
    return time.perf_counter() - t0


def bench_montecarlo(a, n: int) -> None:
    import econ.model as model_mod

    t_floor = floor(n)
    t_mc, _ = timed(srun.monte_carlo, a, n, 7)
    spent = {"irr": 0.0}
    real_irr = model_mod.irr

    def counted(cf):
        t = time.perf_counter()
        out = real_irr(cf)
        spent["irr"] += time.perf_counter() - t
        return out

    model_mod.irr = counted
    try:
        t_mc2, _ = timed(srun.monte_carlo, a, n, 7)
    finally:
        model_mod.irr = real_irr
    print(
        f"Monte Carlo, {n:,} samples (sampling, model, NPV, payback, IRR, statistics): {min(t_mc, t_mc2):.2f} s; "
        f"bare-numpy floor {t_floor:.2f} s; ratio {min(t_mc, t_mc2) / t_floor:.2f} (goal <= 2); "
        f"of which IRR {spent['irr']:.2f} s (the floor has none)"
    )


def bench_memory(n: int) -> None:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, __file__, "--mc-child", str(n)], check=True)
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(
        f"Monte Carlo, {n:,} samples in chunks: {time.perf_counter() - t0:.1f} s, peak memory {peak_mb:,.0f} MB "
        "(goal <= 2,048 MB)"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--mc-child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    a = econ.load(ROOT / "data")
    if args.mc_child:
        srun.monte_carlo(a, args.mc_child, 11)
        return
    q = args.quick
    print(
        f"econ {econ.__version__}; numpy {np.__version__}; the machine is shared: compare ratios within this run"
    )
    bench_model_vs_loop(a, n_vec=20_000 if q else 200_000, n_loop=100 if q else 1_000)
    bench_irr(a, n=20_000 if q else 200_000, n_ref=200 if q else 2_000)
    bench_sobol(10 if q else 14)
    bench_montecarlo(a, 50_000 if q else 1_000_000)
    bench_memory(200_000 if q else 10_000_000)


if __name__ == "__main__":
    main()
