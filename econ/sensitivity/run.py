"""econ's model through the sensitivity engine: problem from sensitivity.csv, runs for the CLI and report."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from econ.assumptions import AssumptionError, Assumptions, rule_for
from econ.model import evaluate
from econ.sensitivity import grid as grid_mod
from econ.sensitivity import montecarlo, oneway, sobol
from econ.sensitivity.breakeven import breakeven_table
from econ.sensitivity.sampling import Problem, ProblemError, Variable, correlation_matrix

OUTPUTS = ["npv", "payback", "irr"]


def problem_from(a: Assumptions) -> Problem:
    """The uncertain inputs of sensitivity.csv (base = the current value) and correlations.csv."""
    if not a.sensitivity:
        raise AssumptionError(
            f"{a.data_dir / 'sensitivity.csv'}: no uncertain inputs (the file is missing or has no rows); "
            "expected key,distribution,low,high,note rows"
        )
    variables = []
    for s in a.sensitivity:
        rule = rule_for(s.key)
        clip = (rule.low, rule.high) if rule is not None else (None, None)
        try:
            variables.append(Variable(s.key, s.distribution, s.low, s.high, a.num(s.key), clip))
        except ProblemError as exc:
            raise AssumptionError(
                f"{a.data_dir / 'sensitivity.csv'} row {s.row}, columns low/high: {exc}; widen the range "
                "there (or leave the sensitivity out: econ report --no-sensitivity)"
            ) from None
    names = [v.name for v in variables]
    corr = None
    if a.correlations:
        try:
            corr = correlation_matrix(
                names,
                [(c.key_a, c.key_b, c.rho) for c in a.correlations],
                rows=[c.row for c in a.correlations],
            )
        except ProblemError as exc:
            raise AssumptionError(f"{a.data_dir / 'correlations.csv'}: {exc}") from None
    return Problem(tuple(variables), corr)


def model_function(a: Assumptions) -> Callable[[Mapping[str, np.ndarray]], dict[str, np.ndarray]]:
    """The model as a vectorised function of named parameters -> {npv, payback, irr}."""

    def f(params: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        r = evaluate(a, params, detail=False)
        return {"npv": r.npv, "payback": r.payback_months, "irr": r.irr_annual}

    return f


def tornado(a: Assumptions) -> pd.DataFrame:
    return oneway.tornado(
        model_function(a),
        problem_from(a),
        OUTPUTS,
        nan_as={"payback": float(a.values["horizon.months"])},
    )


def grids(a: Assumptions) -> pd.DataFrame:
    prob = problem_from(a)
    by = {v.name: v for v in prob.variables}
    frames = []
    for g in a.grids:
        axes = []
        for k in (g.key_x, g.key_y):
            if k in by:
                axes.append(np.linspace(by[k].low, by[k].high, g.points))
            else:
                base = a.num(k)
                axes.append(np.linspace(0.5 * base, 1.5 * base, g.points))
        base = {k: a.num(k) for k in (g.key_x, g.key_y)}
        df = grid_mod.grid(model_function(a), base, g.key_x, axes[0], g.key_y, axes[1], OUTPUTS)
        df.insert(0, "grid", g.id)
        frames.append(df)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def monte_carlo(
    a: Assumptions,
    samples: int,
    seed: int,
    chunk: int = 20_000,
    keep: int = 2_000,
    progress: Callable[[int, int], None] | None = None,
):
    """Samples' outputs, the first ``keep`` samples with inputs, and the statistics.

    Only the uncertain inputs that the payback model reads are sampled: the others
    (buy side, other platforms' frontiers, agent latency) cannot move NPV,
    payback or IRR, and drawing them would only cost time.
    """
    prob = problem_from(a).subset(evaluate(a, detail=False).inputs_read)
    out, kept = montecarlo.evaluate(
        model_function(a), prob, samples, seed, OUTPUTS, chunk, keep, progress
    )
    stats = montecarlo.analyse(out, term=float(a.values["contract.term_months"]))
    return out, kept, stats


def sobol_indices(a: Assumptions, n: int, seed: int, metric: str = "npv") -> pd.DataFrame:
    """Sobol indices of every key in sensitivity.csv; keys the payback model does not read are
    listed with indices of exactly zero instead of being evaluated."""
    full = problem_from(a)
    prob = full.subset(evaluate(a, detail=False).inputs_read)
    A, B = sobol.sample(prob, n, seed)
    nan_as = float(a.values["horizon.months"]) if metric == "payback" else None
    fa, fb, fab = sobol.evaluate(model_function(a), prob, A, B, metric, nan_as=nan_as)
    df = sobol.analyse(fa, fb, fab, prob.names, seed=seed)
    df["note"] = ""
    unread = [v for v in full.names if v not in set(prob.names)]
    zeros = pd.DataFrame(
        {"variable": unread, "note": "not read by the payback model: zero by construction"}
    )
    for c in ("S1", "S1_low", "S1_high", "ST", "ST_low", "ST_high"):
        zeros[c] = 0.0
    df = pd.concat([df, zeros[df.columns]], ignore_index=True)
    df.insert(0, "output", metric)
    return df.sort_values("ST", ascending=False, kind="stable").reset_index(drop=True)


def run_cli(
    a: Assumptions,
    analysis: str,
    samples: int | None,
    seed: int,
    metric: str = "npv",
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,  # processes to use (not used yet: the engine runs in this process)
) -> pd.DataFrame:
    problem_from(a)  # a clear error where there is nothing to vary
    if analysis == "tornado":
        df = tornado(a)
        return df[df["output"] == metric].reset_index(drop=True)
    if analysis == "grid":
        return grids(a)
    if analysis == "montecarlo":
        return monte_carlo(a, samples or 20_000, seed, progress=progress)[2]
    if analysis == "sobol":
        return sobol_indices(a, samples or 1024, seed, metric)
    return breakeven_table(a, "npv" if metric == "npv" else "payback")


def report_analysis(
    a: Assumptions,
    samples: int,
    sobol_n: int,
    seed: int,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,  # processes to use (not used yet: the engine runs in this process)
) -> tuple[dict, dict]:
    """Everything the analysis sheets show, and the run facts for the Cover."""
    if not a.sensitivity:
        return {}, {"Sensitivity": f"none: {a.data_dir / 'sensitivity.csv'} is missing or empty"}
    out, kept, stats = monte_carlo(a, samples, seed, progress=progress)
    analysis = {
        "tornado": tornado(a),
        "grids": grids(a),
        "mc_stats": stats,
        "mc_hist_npv": montecarlo.histogram(out["npv"].to_numpy()),
        "mc_hist_payback": montecarlo.histogram(out["payback"].to_numpy()),
        "mc_samples": kept,
        "mc_n": samples,
        "sobol": sobol_indices(a, sobol_n, seed),
        "breakeven": breakeven_table(a),
    }
    info = {
        "Seed": seed,
        "Monte Carlo samples": f"{samples:,} (Latin hypercube, Iman-Conover rank correlations)",
        "Sobol base samples": f"{sobol_n:,} ({sobol_n * (len(a.sensitivity) + 2):,} model evaluations)",
    }
    return analysis, info
