"""Value of information of a decision fixed before the uncertainty resolves (docs/model.md, section 7).

The decision: options d = 0..D, option 0 "no deal" with net benefit 0, options 1..D
evaluated on every Monte Carlo draw (NB_d, e.g. the deal's NPV with and without the
subscriber offer). Deciding now, one takes the option with the best mean.

- EVPI, the expected value of perfect information (every input known before deciding):
  ``mean_draws max_d NB_d - max_d mean(NB_d)``; its standard error is that of the mean
  of ``max_d NB_d - NB_best``.
- EVPPI_k (input k known, the others not): ``mean_draws max_d g_d(x_k) - max_d mean(NB_d)``
  with g_d(x) = E[NB_d | x_k = x] estimated by a penalised cubic regression spline of
  NB_d on x_k (Strong, Oakley and Brennan 2014, "Estimating multiparameter partial
  expected value of perfect information from a probabilistic sensitivity analysis
  sample: a nonparametric regression approach", Med Decis Making 34:311-326):
  cubic B-splines with at most ``MAX_KNOTS`` knots at quantiles of x_k, penalised by
  the integral of the squared second derivative (O'Sullivan's penalised spline), the
  smoothing chosen by generalised cross-validation. The penalty leaves straight lines
  alone, so the fit keeps each option's mean: EVPPI >= 0 by Jensen's inequality, and
  exactly 0 where the same option is best at every value of x_k.
- Standard errors: a 200-replicate bootstrap refit (each replicate data set refitted
  with the smoothing of the full data, the bins and their counts held).

Streaming. The samples are grouped by each input's uniform u_k (before the inverse
CDF, so the groups are equal-count quantile bins of x_k, exact within each
Latin-hypercube block) into ``G`` fine bins (25 samples or more each, at most 200), and
each bin keeps its count and the sums of NB_d and of NB_d NB_e. The spline is fitted to
the bin means at the bin's mean x_k (from the input's inverse CDF), which is the
regression on the samples with x_k rounded to its bin: with at most 20 knots across
200 bins the rounding is far below the estimator's noise. The bins are summed in
fixed blocks of samples in sample order (:class:`Accumulator`), so the result is the
same to the last bit for any chunk size and worker count. The bootstrap draws each
replicate's bin sums from their distribution under resampling each bin's samples with
its count held (the bins are equal-count by design: exactly so in a Latin hypercube;
mean S_b, covariance from the sums of products, normal at 25 or more samples a bin); a
test checks it against resampling the samples themselves.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.interpolate import BSpline

from econ.sensitivity.sample_warnings import SampleWarning, evppi_warnings

MAX_KNOTS = 20  # knots of the regression spline, the two boundary knots included
BOOTSTRAP = 200  # replicates for the standard errors
UNIT = 2**16  # samples summed together, in sample order: the bits do not depend on the chunking
MAX_BINS = 200  # fine bins of each input (their ids are stored as uint8)
MIN_PER_BIN = 25
LAMBDAS = np.logspace(-7, 7, 29)  # smoothing, relative to tr(B'WB) / tr(Omega)
SEED = 20140101  # the bootstrap's own stream (it depends on nothing else)

ZERO_UNREAD = "not read by the model: cannot change the decision"
ZERO_SAME = "the same option is best at every value of this key"
ZERO_FLAT = "does not vary in the samples"


def bin_count(n: int) -> int:
    """Fine bins of each input for n samples: n / 25, between 20 and 200."""
    return int(min(MAX_BINS, max(20, int(n) // MIN_PER_BIN)))


def bin_ids(u: np.ndarray, bins: int) -> np.ndarray:
    """The fine bin (uint8) of every uniform, shape as u."""
    return np.minimum((u * bins).astype(np.intp), bins - 1).astype(np.uint8)


def bin_means(problem, bins: int, points: int = 64) -> np.ndarray:
    """(d, bins) the mean of each input within each of its equal-probability bins, by the
    midpoint rule on ``points`` probabilities per bin through the input's inverse CDF."""
    j = (np.arange(points) + 0.5) / points
    u = (np.arange(bins)[:, None] + j[None, :]).ravel() / bins
    x = problem.transform(np.repeat(u[:, None], problem.d, axis=1))
    return np.stack(
        [np.asarray(x[k], float).reshape(bins, points).mean(axis=1) for k in problem.names]
    )


@dataclass
class Accumulator:
    """Counts, sums and sums of products of the options' net benefits by fine bin of each input.

    Feed :meth:`add` the samples in sample order (any split); it sums them in fixed
    blocks of ``UNIT`` samples, so the floating-point sums are the same for any split.
    counts (d, G) int64; sums (d, G, D); products (d, G, D, D); total (D,), n, best_total
    (sum of max(0, max_d NB_d)), rows dropped for a NaN net benefit in ``dropped``.
    """

    keys: tuple[str, ...]
    bins: int
    options: int
    counts: np.ndarray = field(init=False)
    sums: np.ndarray = field(init=False)
    products: np.ndarray = field(init=False)
    _ids: list = field(default_factory=list, repr=False)
    _vals: list = field(default_factory=list, repr=False)
    _held: int = 0
    dropped: int = 0

    def __post_init__(self) -> None:
        d, g, o = len(self.keys), self.bins, self.options
        self.counts = np.zeros((d, g), np.int64)
        self.sums = np.zeros((d, g, o))
        self.products = np.zeros((d, g, o, o))

    def add(self, ids: np.ndarray, values: np.ndarray) -> None:
        """The next samples: bin ids (m, d) and net benefits (m, D)."""
        self._ids.append(np.asarray(ids, np.uint8))
        self._vals.append(np.asarray(values, float).reshape(len(ids), self.options))
        self._held += len(ids)
        if self._held >= UNIT:
            ids, vals = np.concatenate(self._ids), np.concatenate(self._vals)
            full = (len(ids) // UNIT) * UNIT
            for s in range(0, full, UNIT):
                self._fold(ids[s : s + UNIT], vals[s : s + UNIT])
            self._ids, self._vals = [ids[full:]], [vals[full:]]
            self._held = len(ids) - full

    def finish(self) -> Accumulator:
        """Sum the samples still held (call once, after the last add)."""
        if self._held:
            self._fold(np.concatenate(self._ids), np.concatenate(self._vals))
        self._ids, self._vals, self._held = [], [], 0
        return self

    def _fold(self, ids: np.ndarray, vals: np.ndarray) -> None:
        ok = np.isfinite(vals).all(axis=1)
        self.dropped += int((~ok).sum())
        ids, vals = ids[ok], vals[ok]
        m, d = ids.shape
        if m == 0:
            return
        g, o = self.bins, self.options
        flat = (ids.astype(np.intp) + np.arange(d) * g).ravel()
        self.counts += np.bincount(flat, minlength=d * g).reshape(d, g)
        for a in range(o):
            w = np.broadcast_to(vals[:, a : a + 1], (m, d)).ravel()
            self.sums[:, :, a] += np.bincount(flat, weights=w, minlength=d * g).reshape(d, g)
            for b in range(a, o):
                p = vals[:, a] * vals[:, b]
                w = np.broadcast_to(p[:, None], (m, d)).ravel()
                s = np.bincount(flat, weights=w, minlength=d * g).reshape(d, g)
                self.products[:, :, a, b] += s
                if b != a:
                    self.products[:, :, b, a] += s


# --- the penalised regression spline -------------------------------------------------------------


def _spline_basis(x: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Cubic B-spline design matrix at x (G,) with knots at quantiles of x, and its penalty
    Omega_ij = integral B_i'' B_j'' dx. None where x takes fewer than 2 distinct values."""
    lo, hi = float(x.min()), float(x.max())
    if not hi > lo:
        return None
    inner = np.unique(np.quantile(x, np.linspace(0, 1, MAX_KNOTS)[1:-1]))
    inner = inner[(inner > lo) & (inner < hi)]
    t = np.concatenate([[lo] * 4, inner, [hi] * 4])
    nb = len(t) - 4
    basis = BSpline.design_matrix(np.clip(x, lo, hi), t, 3).toarray()
    # B'' is linear on each knot interval: two Gauss-Legendre points per interval are exact
    edges = np.concatenate([[lo], inner, [hi]])
    gp, gw = np.polynomial.legendre.leggauss(2)
    mid, half = (edges[1:] + edges[:-1]) / 2, (edges[1:] - edges[:-1]) / 2
    pts = (mid[:, None] + half[:, None] * gp[None, :]).ravel()
    wts = (half[:, None] * gw[None, :]).ravel()
    d2 = BSpline(t, np.eye(nb), 3).derivative(2)(pts)  # (P, nb)
    omega = d2.T @ (wts[:, None] * d2)
    return basis, omega


@dataclass
class _Fit:
    basis: np.ndarray  # (G, nb)
    omega: np.ndarray  # (nb, nb)
    lam: np.ndarray  # (D,) chosen smoothing of each option
    fitted: np.ndarray  # (G, D) g_d at each bin's mean x
    edf: np.ndarray  # (D,)


def _fit(x: np.ndarray, n: np.ndarray, s: np.ndarray, q: np.ndarray) -> _Fit | None:
    """Fit each option's spline to the bins of one key by GCV. x (G,) bin means of the key,
    n (G,) counts, s (G, D) sums, q (G, D) sums of squares. None where x does not vary."""
    keep = n > 0
    made = _spline_basis(x[keep])
    if made is None:
        return None
    b, omega = made
    n, s, q = n[keep].astype(float), s[keep], q[keep]
    total = n.sum()
    a = b.T @ (n[:, None] * b)  # B'WB
    r = b.T @ s  # B'W ybar = B'S, (nb, D)
    scale = np.trace(a) / max(np.trace(omega), 1e-300)
    lams = LAMBDAS * scale
    m = a[None] + lams[:, None, None] * omega[None]  # (L, nb, nb)
    beta = np.linalg.solve(m, np.broadcast_to(r, (len(lams), *r.shape)))  # (L, nb, D)
    edf = np.trace(np.linalg.solve(m, np.broadcast_to(a, m.shape)), axis1=1, axis2=2)  # (L,)
    # RSS over the samples = sum y^2 - 2 beta'r + beta'A beta (the within-bin part included)
    rss = (
        q.sum(axis=0)[None]
        - 2 * (beta * r[None]).sum(axis=1)
        + (beta * np.matmul(a[None], beta)).sum(axis=1)
    )
    rss = np.maximum(rss, 0.0)
    gcv = total * rss / np.maximum(total - edf[:, None], 1.0) ** 2  # (L, D)
    best = np.argmin(gcv, axis=0)  # (D,)
    cols = np.arange(s.shape[1])
    fitted = np.full((len(x), s.shape[1]), np.nan)
    fitted[keep] = b @ beta[best, :, cols].T
    return _Fit(b, omega, lams[best], fitted, edf[best])


def _gain(w: np.ndarray, g: np.ndarray, means: np.ndarray) -> np.ndarray:
    """sum_b w_b max(0, max_d g_bd) - max(0, max_d means_d); w (..., G), g (..., G, D),
    means (..., D)."""
    top = np.maximum(g.max(axis=-1), 0.0)
    return (w * top).sum(axis=-1) - np.maximum(means.max(axis=-1), 0.0)


def _draw_sums(
    n: np.ndarray, s: np.ndarray, p: np.ndarray, reps: int, rng: np.random.Generator
) -> np.ndarray:
    """Replicate bin sums (R, G, D) under resampling each bin's samples with its count held
    (the bins are equal-count by design), normal approximation: mean S_b, covariance
    n_b Cov_b = P_b - S_b S_b' / n_b (P_b the sums of products)."""
    cov = p - s[:, :, None] * s[:, None, :] / n[:, None, None]
    val, vec = np.linalg.eigh(cov)
    root = vec * np.sqrt(np.clip(val, 0.0, None))[:, None, :]  # (G, D, D)
    z = rng.standard_normal((reps, *s.shape))
    return s[None] + (root[None] * z[:, :, None, :]).sum(axis=-1)


@dataclass
class Result:
    """EVPI and per-key EVPPI with standard errors, in units of the net benefits.

    evppi : frame key, evppi, evppi_se, share_of_evpi, best_option (the option best on
    average), reason (why an EVPPI is exactly 0, else ""), edf (the spline's effective
    degrees of freedom, largest over options); largest EVPPI first.
    warnings : each key whose EVPPI is above the EVPI (a share of the EVPI above 1, which only
    an estimate can show), as :class:`econ.sensitivity.sample_warnings.SampleWarning`.
    """

    evpi: float
    evpi_se: float
    evppi: pd.DataFrame
    samples: int
    options: tuple[str, ...]
    means: tuple[float, ...]  # mean net benefit of each option (no deal included, 0)
    # the figures the sample is too small for: each key whose EVPPI is above the EVPI
    warnings: tuple[SampleWarning, ...] = ()

    @property
    def best(self) -> str:
        return self.options[int(np.argmax(self.means))]


def analyse(
    acc: Accumulator,
    xbar: np.ndarray,
    options: Sequence[str],
    values: np.ndarray,
    unread: Sequence[str] = (),
    reps: int = BOOTSTRAP,
) -> Result:
    """EVPI and EVPPI from the accumulated bins.

    acc : the bins (finished); xbar (d, G) each key's mean within each bin (:func:`bin_means`);
    options : names of the options 1..D (option 0, "no deal", is added); values (N, D) every
    sample's net benefits (for the EVPI); unread : keys listed at zero (not read by the model).
    """
    v = np.asarray(values, float).reshape(-1, acc.options)
    v = v[np.isfinite(v).all(axis=1)]
    names = ("no deal", *options)
    total = len(v)
    cols = ["key", "evppi", "evppi_se", "share_of_evpi", "reason", "edf"]
    if total == 0:
        df = pd.DataFrame({"key": [*acc.keys, *unread]}).reindex(columns=cols)
        return Result(np.nan, np.nan, df, 0, names, (0.0,) * len(names))
    means = v.mean(axis=0)
    full = np.concatenate([np.zeros((total, 1)), v], axis=1)
    best = int(np.argmax(np.r_[0.0, means]))
    regret = full.max(axis=1) - full[:, best]
    evpi = float(regret.mean())
    evpi_se = float(regret.std(ddof=1) / np.sqrt(total)) if total > 1 else np.nan
    rng = np.random.default_rng(SEED)
    rows = []
    for i, key in enumerate(acc.keys):
        n, s, p = acc.counts[i], acc.sums[i], acc.products[i]
        q = np.diagonal(p, axis1=1, axis2=2)
        fit = _fit(xbar[i], n, s, q)
        if fit is None:
            rows.append((key, 0.0, 0.0, ZERO_FLAT, 0.0))
            continue
        keep = n > 0
        w = n[keep] / n.sum()
        g = fit.fitted[keep]
        value = float(_gain(w, g, means))
        same = np.unique(np.argmax(np.concatenate([np.zeros((len(g), 1)), g], axis=1), axis=1))
        # bootstrap refit with the smoothing chosen on the full data: the design (bins, their
        # counts and basis) is held, so each option's refit is one solve for every replicate
        nk = n[keep].astype(float)
        cs = _draw_sums(nk, s[keep], p[keep], reps, rng)  # (R, G, D)
        b = fit.basis
        a = b.T @ (nk[:, None] * b)
        gb = np.empty_like(cs)
        for d, lam in enumerate(fit.lam):
            beta = np.linalg.solve(a + lam * fit.omega, b.T @ cs[:, :, d].T)  # (nb, R)
            gb[:, :, d] = (b @ beta).T
        reps_value = _gain(w[None], gb, cs.sum(axis=1) / nk.sum())
        se = float(np.std(reps_value, ddof=1))
        if same.size == 1:
            rows.append((key, 0.0, se, ZERO_SAME, float(fit.edf.max())))
        else:
            rows.append((key, max(value, 0.0), se, "", float(fit.edf.max())))
    rows += [(k, 0.0, 0.0, ZERO_UNREAD, 0.0) for k in unread]
    df = pd.DataFrame(rows, columns=["key", "evppi", "evppi_se", "reason", "edf"])
    df.insert(3, "share_of_evpi", df["evppi"] / evpi if evpi > 0 else 0.0 * df["evppi"])
    df = df[cols].sort_values("evppi", ascending=False, kind="stable").reset_index(drop=True)
    se_share = df["evppi_se"] / evpi if evpi > 0 else 0.0 * df["evppi_se"]
    small = evppi_warnings(df["key"], df["share_of_evpi"].to_numpy(), se_share.to_numpy(), total)
    means_all = tuple(float(x) for x in np.r_[0.0, means])
    return Result(evpi, evpi_se, df, total, names, means_all, tuple(small))


def evpi(values: np.ndarray) -> float:
    """EVPI of options {no deal (0), columns of ``values``} from samples (N,) or (N, D):
    mean max_d NB_d - max_d mean NB_d. Rows with a NaN are left out; NaN if none is left."""
    v = np.asarray(values, float)
    v = v.reshape(len(v), -1)
    v = v[np.isfinite(v).all(axis=1)]
    if len(v) == 0:
        return float("nan")
    full = np.concatenate([np.zeros((len(v), 1)), v], axis=1)
    return float(full.max(axis=1).mean() - max(0.0, v.mean(axis=0).max()))


def from_samples(
    x: Mapping[str, np.ndarray],
    values: np.ndarray,
    options: Sequence[str] = ("deal",),
    bins: int | None = None,
) -> Result:
    """EVPI and EVPPI of samples held in memory: ``x`` {key: (N,) values}, ``values`` (N,) or
    (N, D). The bins are equal-count by rank of each key, their means the keys' bin means."""
    v = np.asarray(values, float).reshape(len(values), -1)
    keys = list(x)
    n = len(v)
    g = bins or bin_count(n)
    xs = np.column_stack([np.asarray(x[k], float) for k in keys])
    ranks = xs.argsort(axis=0, kind="stable").argsort(axis=0, kind="stable")
    ids = np.minimum(ranks * g // n, g - 1).astype(np.uint8)
    acc = Accumulator(tuple(keys), g, v.shape[1])
    acc.add(ids, v)
    acc.finish()
    xbar = np.stack(
        [
            np.bincount(ids[:, j], weights=xs[:, j], minlength=g)
            / np.maximum(np.bincount(ids[:, j], minlength=g), 1)
            for j in range(len(keys))
        ]
    )
    return analyse(acc, xbar, options, v)
