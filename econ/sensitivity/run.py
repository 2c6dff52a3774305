"""econ's model through the sensitivity engine: problem from sensitivity.csv, runs for the CLI and report."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from econ.assumptions import TIER_IDS, AssumptionError, Assumptions, rule_for
from econ.constants import AVOIDABLE_GRID, IRR_MEANINGFUL_MAX, MOVABLE_GRID, PLAN_KEYS
from econ.model import evaluate
from econ.payback import mirr_annual_of
from econ.sensitivity import grid as grid_mod
from econ.sensitivity import montecarlo, oneway, sobol
from econ.sensitivity.breakeven import breakeven_table
from econ.sensitivity.held import held, varied  # noqa: F401 - callers read them here too
from econ.sensitivity.sampling import Problem, ProblemError, Variable, correlation_matrix

# A progress callback, progress(done, total), and a factory of them by phase: phase(what,
# unit) gives the callback of one phase ("Sobol", "model evaluations"), or None for none.
Progress = Callable[[int, int], None]
Phase = Callable[[str, str], Progress | None]


def _no_phase(what: str, unit: str) -> None:
    return None


# the outputs the analyses report, named as `econ summary --json` names them
OUTPUTS = ["npv_usd", "payback_months", "irr_annual", "profitability_index", "mirr_annual"]
# per draw, beside the outputs: the prior predictive of the GPU cost of a standard token at
# fleet.avoidable_share = 1, and where each clamp binds (docs/model.md, sections V4.3, V4.8)
PRIOR_PREDICTIVE = "gpu_cost_at_avoidable_1"
CLAMPS = {
    "clamp_gpu_cost_at_list_price": (
        "gpu_cost_clamped",
        "the value of a standard or fast token crossing the GPU-fleet boundary at most its list "
        "price",
    ),
    "clamp_realisation_at_1": (
        "realisation_capped",
        "a platform's realisation of the physics envelope at most 1",
    ),
    "clamp_max_capped_propensity": (
        "propensity_capped",
        "the derived cap-hit upgrade propensity at most conversion.max_capped_propensity",
    ),
}
DIAGNOSTICS = [PRIOR_PREDICTIVE, *CLAMPS]
# the kinks a tornado bar can end on (section 7): each clamp, and a tier served below the speed
# it asks for (its speed at the end of its own range: the fastest grid speed under 0.9 x the
# platform's ceiling)
SERVED_BELOW = "served_below_asked"
MARKS = {
    "clamp_gpu_cost_at_list_price": "clamp: the GPU cost of a standard or fast token at its list "
    "price",
    "clamp_realisation_at_1": "clamp: a platform's realisation of the envelope at 1",
    "clamp_max_capped_propensity": "clamp: the upgrade propensity at its ceiling",
    SERVED_BELOW: "a tier served below the speed it asks for, where the platform's ceiling binds",
}
METRICS = {"npv": "npv_usd", "payback": "payback_months", "irr": "irr_annual"}
PATH = "cumulative_cash_usd"  # the path output whose fan the Monte Carlo draws
OFFER_KEY = "capacity.subscriber_offer"  # auto | on | off (off: no subscriber streams)
WITHOUT_OFFER = "npv_without_offer_usd"  # the Monte Carlo output of the deal without the offer


def decision_options(a: Assumptions) -> list[tuple[str, str, Assumptions]]:
    """The deal options fixed before the uncertainty resolves (docs/model.md, section 7), besides
    "no deal" (NPV 0): (name, the Monte Carlo output holding its NPV, its assumptions).

    With the key ``capacity.subscriber_offer`` in the data: the deal with the offer (the key
    as set) and the deal without it (the key off); where the key is off already, or where the
    data have no such key, the one deal as set."""
    if OFFER_KEY not in a:
        return [("deal", "npv_usd", a)]
    setting = str(a[OFFER_KEY])
    if setting == "off":
        return [("deal without the subscriber offer", "npv_usd", a)]
    off = a.with_overrides([(OFFER_KEY, "off")])
    return [
        (f"deal with the subscriber offer ({setting})", "npv_usd", a),
        ("deal without the subscriber offer", WITHOUT_OFFER, off),
    ]


def check_range_ends(a: Assumptions) -> None:
    """The model at each end of each range of sensitivity.csv, one key at a time (the
    tornado's scenarios): an end that breaks an invariant or overflows is refused naming
    its row, before any sampling. One evaluation of all ends; the row is looked for only
    when it fails."""
    rows = varied(a)
    n = 2 * len(rows)
    over = {}
    for i, s in enumerate(rows):
        x = np.full(n, float(a.num(s.key)))
        x[2 * i : 2 * i + 2] = (s.low, s.high)
        over[s.key] = x
    try:
        evaluate(a, over, detail=False)
        return
    except AssumptionError:
        pass
    path = a.data_dir / "sensitivity.csv"
    for s in rows:
        for column, x in (("low", s.low), ("high", s.high)):
            try:
                evaluate(a, {s.key: np.array([x])}, detail=False)
            except AssumptionError as exc:
                raise AssumptionError(
                    f"{path} row {s.row} ({s.key}), column {column}: at {x:g}, {exc}"
                ) from None
    evaluate(a, over, detail=False)  # pragma: no cover - the ends fail only together


def _clip(rule) -> tuple[float | None, float | None]:
    """The closed range sampled values are clipped to: the rule's, an open end moved to the
    nearest double inside it (a value of 0 for a key that must be > 0 would be refused)."""
    if rule is None:
        return (None, None)
    lo, hi = rule.low, rule.high
    if lo is not None and rule.low_open:
        lo = float(np.nextafter(lo, np.inf))
    if hi is not None and rule.high_open:
        hi = float(np.nextafter(hi, -np.inf))
    return (lo, hi)


def problem_from(a: Assumptions) -> Problem:
    """The uncertain inputs of sensitivity.csv (base = the current value) and correlations.csv;
    each range's ends are checked first (check_range_ends)."""
    if not a.sensitivity:
        raise AssumptionError(
            f"{a.data_dir / 'sensitivity.csv'}: no uncertain inputs (the file is missing or has no rows); "
            "expected key,distribution,low,high,note rows"
        )
    rows = varied(a)
    if not rows:
        raise AssumptionError(
            f"{a.data_dir / 'sensitivity.csv'}: every uncertain input is held at the value the "
            "scenario or --set gives it; nothing is left to vary"
        )
    check_range_ends(a)
    variables = []
    for s in rows:
        rule = rule_for(s.key)
        clip = _clip(rule)
        try:
            variables.append(Variable(s.key, s.distribution, s.low, s.high, a.num(s.key), clip))
        except ProblemError as exc:
            raise AssumptionError(
                f"{a.data_dir / 'sensitivity.csv'} row {s.row}, columns low/high: {exc}; widen the range "
                "there (or leave the sensitivity out: econ report --no-sensitivity)"
            ) from None
    names = [v.name for v in variables]
    corr = None
    pairs = [c for c in a.correlations if c.key_a in names and c.key_b in names]
    if pairs:
        try:
            corr = correlation_matrix(
                names,
                [(c.key_a, c.key_b, c.rho) for c in pairs],
                rows=[c.row for c in pairs],
            )
        except ProblemError as exc:
            raise AssumptionError(f"{a.data_dir / 'correlations.csv'}: {exc}") from None
    return Problem(tuple(variables), corr)


def held_served(a: Assumptions) -> float:
    """The base case's served multiplier of the ultrafast tier (1 on the data basis, and where
    the base case cannot offer the tier)."""
    if a.values["capacity.basis"] == "data":
        return 1.0
    m = float(evaluate(a, detail=False).served_multiplier[0])
    return m if np.isfinite(m) else 1.0


class ModelFunction:
    """The model as a vectorised function of named parameters -> the OUTPUTS (N,), and with
    ``paths`` cumulative cash by month (N, H). A class (not a closure) so that worker
    processes can receive it."""

    def __init__(
        self,
        a: Assumptions,
        paths: bool = False,
        options: bool = False,
        diagnostics: bool = False,
        marks: bool = False,
    ):
        self.a = a
        self.paths = paths
        self.diagnostics = diagnostics
        self.marks = marks  # the flags of MARKS, for the tornado
        # the other deal options' NPVs (the Monte Carlo's decision set)
        self.others = (
            [(o, b, held_served(b)) for _, o, b in decision_options(a)[1:]] if options else []
        )
        # the strategic choice is made before uncertainty resolves: every draw serves the
        # ultrafast tier at the base case's multiplier or, where a draw's physics cannot, the
        # fastest feasible speed below it (docs/model.md, section 0.7)
        self.served = held_served(a)
        # the monthly arrays it reads (the MIRR's flows, the fan's path): no others are kept
        self.monthly = ("net_cash_flow", "discount", *(("cumulative_cash",) if paths else ()))

    def __call__(self, params: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        # the other deal options first: only their NPV is kept (memory of one evaluation)
        others = {
            name: np.array(evaluate(b, params, detail=False, served=served, monthly=False).npv)
            for name, b, served in self.others
        }
        r = evaluate(self.a, params, detail=False, served=self.served, monthly=self.monthly)
        out = {
            "npv_usd": r.npv,
            "payback_months": r.payback_months,
            "irr_annual": r.irr_annual,
            "profitability_index": r.profitability_index,
            "mirr_annual": mirr_annual_of(r),
        }
        if self.diagnostics:
            out[PRIOR_PREDICTIVE] = r.gpu_cost_at_avoidable_1
        if self.diagnostics or self.marks:
            out.update({name: getattr(r, field) for name, (field, _) in CLAMPS.items()})
        if self.marks:
            below = np.zeros(np.shape(r.npv), bool)
            for tier in TIER_IDS:
                key = f"tiers.{tier}.tokens_per_s"
                asked = np.asarray(params.get(key, self.a.num(key)), float)
                served = np.asarray(getattr(r, f"served_tokens_per_s_{tier}"), float)
                below |= served < asked * (1 - 1e-9)
            out[SERVED_BELOW] = below.astype(float)
        if self.paths:
            out[PATH] = r.cumulative_cash
        out.update(others)
        return out


def model_function(
    a: Assumptions,
    paths: bool = False,
    options: bool = False,
    diagnostics: bool = False,
    marks: bool = False,
) -> ModelFunction:
    return ModelFunction(a, paths, options, diagnostics, marks)


class GridModelFunction:
    """The NPV of every cell of the fleet-plan grid (docs/model.md, section V4.3) for each draw:
    the draw's inputs with fleet.avoidable_share and capacity.movable_share set to the cell's.
    Outputs "npv_usd" (the run's own plan) and one column a cell, "cell_<i>"."""

    def __init__(self, a: Assumptions, cells: list[tuple[float, float]]):
        self.a = a
        self.cells = cells
        self.served = held_served(a)

    def __call__(self, params: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        out = {
            "npv_usd": evaluate(self.a, params, detail=False, served=self.served, monthly=False).npv
        }
        for i, (av, mv) in enumerate(self.cells):
            cell = {**params, "fleet.avoidable_share": av, "capacity.movable_share": mv}
            out[f"cell_{i}"] = evaluate(
                self.a, cell, detail=False, served=self.served, monthly=False
            ).npv
        return out


def grid_monte_carlo(
    a: Assumptions,
    samples: int,
    seed: int,
    chunk: int = 8_192,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
) -> pd.DataFrame:
    """P(NPV > 0) in each cell of the fleet-plan grid over one sample set (section V4.3): the
    plan keys are the grid's axes, never sampled; the physics and market quantities are drawn
    once and every cell evaluated on the same draws. A frame with both keys, the NPV at the
    inputs as set (npv_usd), P(NPV > 0) with its standard error and the median NPV."""
    full = problem_from(a)
    prob = full.subset(frozenset(evaluate(a, detail=False).inputs_read) - set(PLAN_KEYS))
    cells = [(x, y) for x in AVOIDABLE_GRID for y in MOVABLE_GRID]
    names = ["npv_usd", *[f"cell_{i}" for i in range(len(cells))]]
    res = montecarlo.run(
        GridModelFunction(a, cells), prob, samples, seed, names, chunk=chunk,
        progress=progress, workers=workers,
    )  # fmt: skip
    base = evaluate(
        a,
        {
            "fleet.avoidable_share": np.array([x for x, _ in cells]),
            "capacity.movable_share": np.array([y for _, y in cells]),
        },
        detail=False,
    ).npv
    rows = []
    for i, (x, y) in enumerate(cells):
        v = res.outputs[f"cell_{i}"].to_numpy(float)
        p = float(np.mean(v > 0))
        rows.append(
            {
                "fleet.avoidable_share": x,
                "capacity.movable_share": y,
                "npv_usd": float(base[i]),
                "p_npv_positive": p,
                "p_npv_positive_se": float(np.sqrt(p * (1 - p) / len(v))),
                "npv_p50_usd": float(np.median(v)),
            }
        )
    return pd.DataFrame(rows)


def prior_predictive(out: pd.DataFrame) -> dict:
    """P5, P50 and P95 over the draws of the GPU cost of a standard token at
    fleet.avoidable_share = 1 (section V4.8) [USD per 1M output tokens]."""
    v = out[PRIOR_PREDICTIVE].to_numpy(float)
    v = v[np.isfinite(v)]
    q = np.percentile(v, [5, 50, 95]) if v.size else [np.nan] * 3
    return {"P5": float(q[0]), "P50": float(q[1]), "P95": float(q[2]), "samples": int(v.size)}


def clamps(out: pd.DataFrame) -> list[dict]:
    """Every clamp the model keeps, with the share of draws in which it binds (section V4.3)."""
    return [
        {"clamp": name, "what": what, "share_binding": float(np.mean(out[name].to_numpy() > 0))}
        for name, (_, what) in CLAMPS.items()
        if name in out
    ]


def tornado(a: Assumptions) -> pd.DataFrame:
    """The one-way tornado (section 7), each bar's ends marked where they sit past a kink the
    base does not (MARKS: ends_on_low, ends_on_high)."""
    return oneway.tornado(
        model_function(a, marks=True),
        problem_from(a),
        OUTPUTS[:3],
        nan_as={"payback_months": float(a.values["horizon.months"])},
        marks=MARKS,
    )


def grids(a: Assumptions, progress: Progress | None = None) -> pd.DataFrame:
    """The two-way grids of grids.csv: each key across its range in sensitivity.csv (a key
    a scenario holds included: a grid is a map, and the scenario's value is its base), else
    0.5x to 1.5x its value (docs/model.md, section 7). ``progress(done, total)`` counts
    grid points."""
    problem_from(a)  # the same checks as every analysis
    ranges = {s.key: (s.low, s.high) for s in a.sensitivity}
    frames = []
    total, done = sum(g.points**2 for g in a.grids), 0
    for g in a.grids:
        axes = []
        for k in (g.key_x, g.key_y):
            lo, hi = ranges.get(k, (0.5 * a.num(k), 1.5 * a.num(k)))
            if not lo < hi:
                raise AssumptionError(
                    f"{a.data_dir / 'grids.csv'} row {g.row} ({g.id}): {k} is {a.num(k):g} and "
                    "has no range in sensitivity.csv, so the grid has no span; give it a range "
                    "there"
                )
            axes.append(np.linspace(lo, hi, g.points))
        base = {k: a.num(k) for k in (g.key_x, g.key_y)}
        df = grid_mod.grid(model_function(a), base, g.key_x, axes[0], g.key_y, axes[1], OUTPUTS[:3])
        df.insert(0, "grid", g.id)
        frames.append(df)
        done += g.points**2
        if progress is not None:
            progress(done, total)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def monte_carlo(
    a: Assumptions,
    samples: int,
    seed: int,
    chunk: int = 8_192,  # an eighth of a sampling block (tasks hold whole blocks); about a
    # second of work, so that progress moves often
    keep: int = 2_000,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
    samples_csv: str | None = None,
) -> dict:
    """A Monte Carlo of NPV, payback, IRR and profitability index over sensitivity.csv, and
    everything reported from it (docs/model.md, section 7).

    Only the uncertain inputs that the payback model reads are sampled: the others (buy
    side, agent latency, physics on the data basis) cannot move the outputs, and drawing
    them would only cost time; the value of information lists them at zero.
    Returns: "run" (the MonteCarloResult), "stats", "payback_by_month", "convergence",
    "hist_npv", "hist_payback", "s_npv", "s_payback", "fan", "voi" (the value of information,
    econ.sensitivity.voi.Result), "evpi_usd", "evpi_se_usd", "evppi" (its table), "options"
    (each decision option's mean NPV, no deal 0), "best_option", "n",
    "problem" (the variables sampled), "unread" (the keys not sampled) and "warnings" (the
    figures the sample is too small for: a key's EVPPI above the EVPI, a list of
    :class:`econ.sensitivity.sample_warnings.SampleWarning`, empty where there are none).
    """
    full = problem_from(a)
    options = decision_options(a)
    read = set(evaluate(a, detail=False).inputs_read)
    for _, _, b in options[1:]:
        read |= set(evaluate(b, detail=False).inputs_read)
    prob = full.subset(frozenset(read))
    option_outputs = [o for _, o, _ in options]
    res = montecarlo.run(
        model_function(a, paths=True, options=True, diagnostics=True),
        prob,
        samples,
        seed,
        OUTPUTS + option_outputs[1:] + DIAGNOSTICS,
        paths=(PATH,),
        chunk=chunk,
        keep_inputs=keep,
        progress=progress,
        workers=workers,
        samples_csv=samples_csv,
        voi_output=option_outputs,
    )
    out = res.outputs[OUTPUTS]
    H = int(a.values["horizon.months"])
    unread = [v for v in full.names if v not in set(prob.names)]
    voi = res.value_of_information(unread, [name for name, _, _ in options])
    return {
        "run": res,
        "n": samples,
        "stats": montecarlo.analyse(
            out,
            term=float(a.values["contract.term_months"]),
            payback="payback_months",
            npv="npv_usd",
            rates=("irr_annual", "mirr_annual"),
            rate_max=IRR_MEANINGFUL_MAX,
        ),
        "payback_by_month": montecarlo.payback_by_month(out["payback_months"].to_numpy(), H),
        "convergence": montecarlo.convergence(out["npv_usd"].to_numpy()),
        "hist_npv": montecarlo.histogram(out["npv_usd"].to_numpy()),
        "hist_payback": montecarlo.histogram(out["payback_months"].to_numpy()),
        "s_npv": montecarlo.s_curve(out["npv_usd"].to_numpy()),
        "s_payback": montecarlo.s_curve(out["payback_months"].to_numpy()),
        "fan": res.fans[PATH],
        "voi": voi,
        "evpi_usd": voi.evpi,
        "evpi_se_usd": voi.evpi_se,
        "evppi": voi.evppi,
        "options": {n: m for n, m in zip(voi.options, voi.means, strict=True)},
        "best_option": voi.best,
        "problem": prob,
        "full_problem": full,
        "unread": unread,
        "held": held(a),
        "gpu_cost_prior_predictive": prior_predictive(res.outputs),
        "clamps": clamps(res.outputs),
        "warnings": list(voi.warnings),
    }


def sobol_indices(
    a: Assumptions,
    n: int,
    seed: int,
    metric: str = "npv",
    workers: int = 1,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Sobol indices of every key in sensitivity.csv; keys the payback model does not read are
    listed with indices of exactly zero instead of being evaluated. No payback counts as the
    horizon; where no sample pays back, every index is 0 and the note says so.
    ``df.attrs["warnings"]``: the figures the sample is too small for, a list of
    :class:`econ.sensitivity.sample_warnings.SampleWarning` (empty where there are none).
    ``progress(done, total)`` counts model evaluations (n (d + 2))."""
    full = problem_from(a)
    prob = full.subset(evaluate(a, detail=False).inputs_read)
    A, B = sobol.sample(prob, n, seed)
    output = METRICS.get(metric, metric)
    nan_as = float(a.values["horizon.months"]) if output == "payback_months" else None
    fa, fb, fab = sobol.evaluate(
        model_function(a), prob, A, B, output, nan_as=nan_as, workers=workers, progress=progress
    )
    df = sobol.analyse(fa, fb, fab, prob.names, seed=seed)
    small = list(df.attrs.get("warnings", []))
    df["note"] = ""
    if output == "payback_months" and np.all(np.concatenate([fa, fb, fab.ravel()]) == nan_as):
        df["note"] = "no sample pays back within the horizon: payback does not vary"
    unread = [v for v in full.names if v not in set(prob.names)]
    zeros = pd.DataFrame(
        {"variable": unread, "note": "not read by the payback model: zero by construction"}
    )
    for c in ("S1", "S1_low", "S1_high", "ST", "ST_low", "ST_high"):
        zeros[c] = 0.0
    df = pd.concat([df, zeros[df.columns]], ignore_index=True)
    df.insert(0, "output", output)
    df = df.sort_values("ST", ascending=False, kind="stable").reset_index(drop=True)
    row = {k: i for i, k in enumerate(df["variable"])}  # the warnings in the table's order
    df.attrs["warnings"] = sorted(small, key=lambda w: row[w.key])
    return df


def run_cli(
    a: Assumptions,
    analysis: str,
    samples: int | None,
    seed: int,
    metric: str = "npv",
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
    samples_csv: str | None = None,
) -> pd.DataFrame | dict:
    """One analysis for the CLI: a table, or (Monte Carlo) the dict of monte_carlo().
    ``progress(done, total)`` follows the analysis: samples, model evaluations, grid points
    or keys."""
    problem_from(a)  # a clear error where there is nothing to vary
    if analysis == "tornado":
        df = tornado(a)
        df = df[df["output"] == METRICS[metric]].reset_index(drop=True)
        return with_sobol_ranks(a, df, samples or 1024, seed, workers)
    if analysis == "grid":
        return grids(a, progress=progress)
    if analysis == "montecarlo":
        return monte_carlo(
            a, samples or 20_000, seed, progress=progress, workers=workers, samples_csv=samples_csv
        )
    if analysis == "sobol":
        return sobol_indices(a, samples or 1024, seed, metric, workers=workers, progress=progress)
    if analysis == "grid-mc":
        return grid_monte_carlo(a, samples or 4_000, seed, progress=progress, workers=workers)
    return breakeven_table(a, "npv" if metric == "npv" else "payback", progress=progress)


def report_analysis(
    a: Assumptions,
    samples: int,
    sobol_n: int,
    seed: int,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
    phase: Phase | None = None,
) -> tuple[dict, dict]:
    """Everything the analysis sheets show, and the run facts for the Cover.
    ``phase(what, unit)`` gives the progress callback of each phase (``progress``, if given,
    is the Monte Carlo's)."""
    if not a.sensitivity:
        return {}, {"Sensitivity": f"none: {a.data_dir / 'sensitivity.csv'} is missing or empty"}
    phase = phase or _no_phase
    mc = monte_carlo(
        a, samples, seed, progress=progress or phase("Monte Carlo", "samples"), workers=workers
    )
    one = phase("Tornado", "analysis")
    tor = tornado(a)
    if one is not None:
        one(1, 1)
    analysis = {
        "tornado": tor,
        "grids": grids(a, progress=phase("Grids", "points")),
        "mc": mc,
        "mc_stats": mc["stats"],
        "sobol": sobol_indices(
            a, sobol_n, seed, workers=workers, progress=phase("Sobol", "evaluations")
        ),
        "breakeven": breakeven_table(a, progress=phase("Break-even", "keys")),
    }
    info = {
        "Seed": seed,
        "Monte Carlo samples": f"{samples:,} (Latin hypercube, Iman-Conover rank correlations)",
        "Sobol base samples": f"{sobol_n:,} ({sobol_n * (len(mc['problem'].names) + 2):,} model evaluations)",
        "Worker processes": workers,
    }
    return analysis, info


def with_sobol_ranks(
    a: Assumptions, df: pd.DataFrame, n: int, seed: int, workers: int = 1
) -> pd.DataFrame:
    """The tornado ``df`` with, beside each bar, the variance ranking of the same output
    (section 7): tornado_rank (the bar's place, swing_places), sobol_rank (the key's place
    by Sobol total index, n base samples) and
    ranks_differ_because (ranking_contrast's reason, "" where the rankings agree). Outputs
    Sobol does not rank (the IRR) get no rank. ``attrs["sobol"]``: samples, seed and the
    sample-size warnings of the last output ranked."""
    out = df.copy()
    out["tornado_rank"] = np.nan
    out["sobol_rank"] = np.nan
    out["ranks_differ_because"] = ""
    dists = {v.name: v.distribution for v in problem_from(a).variables}
    info = None
    for metric in ("npv", "payback"):
        rows = out["output"] == METRICS[metric]
        if not rows.any():
            continue
        sob = sobol_indices(a, n, seed, metric, workers=workers)
        part = out[rows].reset_index(drop=True)
        why = ranking_contrast(part, sob, dists).set_index("key")["why"]
        place = {k: i + 1 for i, k in enumerate(sob["variable"])}
        out.loc[rows, "tornado_rank"] = swing_places(part)
        out.loc[rows, "sobol_rank"] = out.loc[rows, "variable"].map(place).to_numpy()
        out.loc[rows, "ranks_differ_because"] = (
            out.loc[rows, "variable"].map(why).fillna("").to_numpy()
        )
        info = {"samples": n, "seed": seed, "warnings": sob.attrs.get("warnings", [])}
    out.attrs = {**df.attrs, **({"sobol": info} if info else {})}
    return out


def swing_places(tor: pd.DataFrame) -> list[int]:
    """Each bar's place in a tornado of one output: 1 + the bars that swing more (bars that
    swing alike share a place; no swing, NaN, comes last)."""
    sw = tor["swing"].fillna(-1.0).to_numpy(float)
    return [1 + int(np.sum(sw > x)) for x in sw]


def marked_ends(tor: pd.DataFrame) -> list[str]:
    """'key at end, kink' for every bar end the tornado marks (ends_on_low, ends_on_high), in
    the frame's order: what the terminal and the Tornado sheet print under the table."""
    return [
        f"{r['variable']} at {e}, {r[f'ends_on_{e}']}"
        for _, r in tor.iterrows()
        for e in ("low", "high")
        if r.get(f"ends_on_{e}")
    ]


def ranking_contrast(
    tor: pd.DataFrame,
    sob: pd.DataFrame,
    dists: Mapping[str, str] | None = None,
    top: int = 10,
    gap: int = 5,
) -> pd.DataFrame:
    """Where the one-at-a-time ranking (the tornado's swings, one output) and the variance
    ranking (Sobol total indices of the same output) disagree (section 7): the keys in the top
    ``top`` of either whose places differ by ``gap`` or more (keys that swing alike share a
    place; a key with no swing at all is listed where Sobol ranks it in the top ``top``), each
    with why. The reasons read
    the figures: a bar that ends past a kink (ends_on_low, ends_on_high), a response steeper
    on one side of the base than the other (non-linear), a total index well above the
    first-order one (interactions), else where the range's ends sit in the key's distribution
    (``dists``: its name by key). Columns: key, tornado_rank, sobol_rank, swing, S1, ST, why."""
    t = tor.reset_index(drop=True)
    s = sob.reset_index(drop=True)
    place_t = dict(zip(t["variable"], swing_places(t), strict=True))
    place_s = {k: i + 1 for i, k in enumerate(s["variable"])}
    s_by = s.set_index("variable")
    rows = []
    for _, b in t.iterrows():
        k = b["variable"]
        if k not in place_s:
            continue
        rt, rs = place_t[k], place_s[k]
        if b["swing"] == 0:  # no swing one at a time: listed where the variance ranks it high
            if rs > top:
                continue
        elif min(rt, rs) > top or abs(rt - rs) < gap:
            continue
        s1, st = float(s_by.at[k, "S1"]), float(s_by.at[k, "ST"])
        why = []
        for end in ("low", "high"):
            if b.get(f"ends_on_{end}"):
                why.append(f"its bar's {end} end sits past a kink ({b[f'ends_on_{end}']})")
        lo_w, hi_w = b["base"] - b["low"], b["high"] - b["base"]
        if lo_w > 0 and hi_w > 0:
            sl_lo, sl_hi = abs(b["change_low"]) / lo_w, abs(b["change_high"]) / hi_w
            if min(sl_lo, sl_hi) > 0 and max(sl_lo, sl_hi) / min(sl_lo, sl_hi) > 3:
                side = "high" if sl_hi > sl_lo else "low"
                ratio = max(sl_lo, sl_hi) / min(sl_lo, sl_hi)
                why.append(
                    f"non-linear: a unit moves the output {ratio:,.0f}x more toward its {side}"
                )
        if st > 0.01 and st - max(s1, 0.0) > st / 3:
            why.append(
                f"interactions: {st - max(s1, 0.0):.0%} of the variance comes with other keys "
                f"(first-order {s1:.1%}, total {st:.1%})"
            )
        dist = (dists or {}).get(k, "")
        if not why and rt > rs and dist in ("normal", "lognormal"):
            why.append(
                f"its low and high are the 5th and 95th percentiles of a {dist}: a tenth of its "
                "draws lie beyond the bar's ends"
            )
        if not why and rt < rs:
            why.append(
                f"its range's ends are rare draws (a {dist} puts most of its mass near the base)"
                if dist in ("pert", "triangular")
                else "its range's ends are rare draws"
            )
        if not why:
            why.append("its draws spread its effect more widely than its two ends show")
        rows.append(
            {"key": k, "tornado_rank": rt, "sobol_rank": rs, "swing": float(b["swing"]),
             "S1": s1, "ST": st, "why": "; ".join(why)}
        )  # fmt: skip
    cols = ["key", "tornado_rank", "sobol_rank", "swing", "S1", "ST", "why"]
    return pd.DataFrame(rows, columns=cols)
