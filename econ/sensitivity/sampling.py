"""Distributions, Latin hypercube sampling and Iman-Conover rank correlation.

The engine works on any vectorised function of named parameters: a
:class:`Problem` names the variables and their distributions; nothing here
knows econ's model.

Reproducibility: samples are generated in fixed blocks of ``BLOCK`` rows, each
from its own child of ``numpy.random.SeedSequence(seed)``. Sample i is the
same whatever chunk size evaluates it; for n <= BLOCK the whole sample is one
Latin hypercube (every stratum of every variable hit exactly once), for larger
n each block is.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pandas as pd
from scipy import special, stats
from scipy.stats import qmc

BLOCK = 65_536
Z95 = stats.norm.ppf(0.95)  # low/high of normal and lognormal are the 5th and 95th percentiles


class ProblemError(ValueError):
    """An invalid sensitivity problem (distribution, range or correlation matrix)."""


_V = np.linspace(-8.5, 8.5, 8193)  # normal scores covering every double-precision uniform in (0, 1)


@lru_cache(maxsize=256)
def _beta_table(a: float, b: float) -> np.ndarray:
    """Exact beta quantiles at the normal scores _V (computed once per shape)."""
    return stats.beta.ppf(special.ndtr(_V), a, b)


def beta_ppf(u: np.ndarray, a: float, b: float) -> np.ndarray:
    """Beta inverse CDF, fast: exact quantiles tabulated against the normal score of u,
    interpolated linearly (the map is smooth in that coordinate; error below 1e-6 of the range).

    scipy.stats.beta.ppf costs about 2.5 us a value; this about 50 ns.
    """
    table = _beta_table(float(a), float(b))
    v = special.ndtri(np.asarray(u, float))
    pos = np.clip((v - _V[0]) / (_V[1] - _V[0]), 0.0, _V.size - 1.000001)
    k = pos.astype(np.intp)
    frac = pos - k
    return table[k] + frac * (table[k + 1] - table[k])


@dataclass(frozen=True)
class Variable:
    """One uncertain input.

    For uniform, triangular and pert, low/high are bounds and base the mode;
    for normal and lognormal, low/high are the 5th and 95th percentiles.
    ``clip`` bounds the sampled values to the variable's valid range.
    """

    name: str
    distribution: str
    low: float
    high: float
    base: float
    clip: tuple[float | None, float | None] = (None, None)

    def __post_init__(self) -> None:
        if not self.low < self.high:
            raise ProblemError(f"{self.name}: low {self.low:g} must be below high {self.high:g}")
        if self.distribution in ("triangular", "pert") and not self.low <= self.base <= self.high:
            raise ProblemError(
                f"{self.name}: the base value {self.base:g} (the mode) lies outside [{self.low:g}, {self.high:g}]"
            )
        if self.distribution == "lognormal" and self.low <= 0:
            raise ProblemError(f"{self.name}: lognormal needs low > 0")
        if self.distribution not in ("uniform", "triangular", "pert", "normal", "lognormal"):
            raise ProblemError(f"{self.name}: unknown distribution {self.distribution!r}")

    def ppf(self, u: np.ndarray) -> np.ndarray:
        """Inverse CDF: uniforms in (0, 1) -> values."""
        lo, hi, mode = self.low, self.high, self.base
        w = hi - lo
        d = self.distribution
        if d == "uniform":
            x = lo + u * w
        elif d == "triangular":
            c = (mode - lo) / w
            x = np.where(
                u < c, lo + np.sqrt(u * w * (mode - lo)), hi - np.sqrt((1 - u) * w * (hi - mode))
            )
        elif d == "pert":
            a = 1 + 4 * (mode - lo) / w
            b = 1 + 4 * (hi - mode) / w
            x = lo + w * beta_ppf(u, a, b)
        elif d == "normal":
            x = (lo + hi) / 2 + w / (2 * Z95) * special.ndtri(u)
        else:  # lognormal
            ml, mh = np.log(lo), np.log(hi)
            x = np.exp((ml + mh) / 2 + (mh - ml) / (2 * Z95) * special.ndtri(u))
        c_lo, c_hi = self.clip
        if c_lo is not None or c_hi is not None:
            x = np.clip(x, c_lo, c_hi)
        return x


@dataclass(frozen=True)
class Problem:
    """Named variables and an optional rank-correlation matrix (identity when None)."""

    variables: tuple[Variable, ...]
    correlation: np.ndarray | None = field(default=None, compare=False)

    @property
    def names(self) -> list[str]:
        return [v.name for v in self.variables]

    @property
    def d(self) -> int:
        return len(self.variables)

    def base(self) -> dict[str, float]:
        return {v.name: v.base for v in self.variables}

    def subset(self, names: set[str] | frozenset[str]) -> Problem:
        """The variables in ``names`` (in this problem's order) and their correlations."""
        keep = [j for j, v in enumerate(self.variables) if v.name in names]
        corr = None if self.correlation is None else self.correlation[np.ix_(keep, keep)]
        return Problem(tuple(self.variables[j] for j in keep), corr)

    def transform(self, u: np.ndarray) -> dict[str, np.ndarray]:
        """Uniforms (n, d) -> {name: values (n,)} through each inverse CDF."""
        return {v.name: v.ppf(u[:, j]) for j, v in enumerate(self.variables)}


def correlation_matrix(
    names: Sequence[str],
    pairs: Sequence[tuple[str, str, float]],
    rows: Sequence[int] | None = None,
) -> np.ndarray:
    """Symmetric matrix from (a, b, rho) pairs; raises ProblemError if it is not positive definite.

    The error names the pairs that cannot hold together (a smallest set whose
    correlations alone already break positive definiteness), by ``rows`` (the
    rows of the file the pairs came from) where given, in one line of bounded
    length, with the nearest valid values of those pairs.
    """
    idx = {n: i for i, n in enumerate(names)}
    c = np.eye(len(names))
    for a, b, rho in pairs:
        if a not in idx or b not in idx:
            raise ProblemError(f"correlation {a} ~ {b}: both keys must be sampled variables")
        c[idx[a], idx[b]] = c[idx[b], idx[a]] = rho
    eig = np.linalg.eigvalsh(c)
    if eig.min() <= PD_TOLERANCE:
        raise ProblemError(_not_pd_message(c, idx, pairs, rows, float(eig.min())))
    return c


PD_TOLERANCE = 1e-10  # smallest eigenvalue a correlation matrix must exceed
_SHOW_PAIRS = 6  # pairs named in a message, at most


def _not_pd_message(
    c: np.ndarray,
    idx: dict[str, int],
    pairs: Sequence[tuple[str, str, float]],
    rows: Sequence[int] | None,
    smallest: float,
) -> str:
    culprits = offending_pairs(c, [(idx[a], idx[b]) for a, b, _ in pairs])
    near = nearest_correlation(c, eps=0.01)  # a margin, so the suggestion is clearly valid
    named = culprits[:_SHOW_PAIRS]
    rest = len(culprits) - len(named)

    def listing(items: list[str]) -> str:
        return f"{', '.join(items)} and {rest} more" if rest else _and(items)

    where = ""
    if rows is not None:
        where = (
            "row" + ("s " if len(culprits) > 1 else " ") + listing([str(rows[k]) for k in named])
        )
        where += ": "
    labels = [f"{_short(pairs[k][0])} ~ {_short(pairs[k][1])} ({pairs[k][2]:g})" for k in named]
    values = [
        f"{_short(pairs[k][0])} ~ {_short(pairs[k][1])} "
        f"{near[idx[pairs[k][0]], idx[pairs[k][1]]]:.2f}"
        for k in named
    ]
    return (
        f"{where}the rank correlations {listing(labels)} cannot hold together (the "
        f"correlation matrix is not positive definite; smallest eigenvalue {smallest:.3g}); "
        f"weaken them, e.g. to the nearest valid values {', '.join(values)}"
    )


def offending_pairs(c: np.ndarray, pairs: Sequence[tuple[int, int]]) -> list[int]:
    """Indices (in file order) of the ``pairs`` (i, j) that make ``c`` fail to be positive definite.

    A pair's share of the smallest eigenvalue is 2 c_ij v_i v_j (v its
    eigenvector); the pairs that pull it down by at least a tenth of the worst
    one are named. If those alone would make a valid matrix, the next most
    harmful pairs are added until they do not.
    """
    w, v = np.linalg.eigh(c)
    u = v[:, 0]
    share = np.array([c[i, j] * u[i] * u[j] for i, j in pairs])
    if share.size == 0:
        return []
    worst = share.min()
    named = {k for k in range(len(pairs)) if share[k] <= 0.1 * worst and share[k] < 0}
    for k in np.argsort(share, kind="stable"):
        m = np.eye(c.shape[0])
        for j in named:
            a, b = pairs[j]
            m[a, b] = m[b, a] = c[a, b]
        if np.linalg.eigvalsh(m).min() <= PD_TOLERANCE:
            break
        named.add(int(k))
    return sorted(named)


def _short(name: str, limit: int = 60) -> str:
    return name if len(name) <= limit else name[: limit - 3] + "..."


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def nearest_correlation(c: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """A nearby valid correlation matrix: eigenvalues clipped at eps, diagonal rescaled to 1."""
    w, v = np.linalg.eigh((c + c.T) / 2)
    m = (v * np.maximum(w, eps)) @ v.T
    s = np.sqrt(np.diag(m))
    return m / np.outer(s, s)


def latin_hypercube(n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """(n, d) uniforms: each column has exactly one point in each of the n strata [k/n, (k+1)/n)."""
    return qmc.LatinHypercube(d=d, rng=rng).random(n)


def iman_conover(x: np.ndarray, target: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Reorder columns of ``x`` (n, d) so that their rank correlation approaches ``target`` (d, d).

    Each column keeps its values (so every marginal is preserved); only their
    order changes (Iman and Conover 1982, with van der Waerden scores). Columns
    that take part in no correlation are left as they are, and so is a sample
    with too few rows to carry a correlation (n <= the number of linked columns).
    """
    n, d = x.shape
    linked = np.flatnonzero((np.abs(target - np.eye(d)) > 0).any(axis=1))
    if linked.size < 2 or n <= linked.size:
        return x
    sub = target[np.ix_(linked, linked)]
    k = linked.size
    scores = special.ndtri(np.arange(1, n + 1) / (n + 1))
    s = np.column_stack([rng.permutation(scores) for _ in range(k)])
    e = np.corrcoef(s, rowvar=False)
    p = np.linalg.cholesky(sub)
    q = np.linalg.cholesky(e)
    t = s @ np.linalg.inv(q).T @ p.T
    out = x.copy()
    ranks = np.empty(n, dtype=np.intp)
    for col, j in enumerate(linked):
        ranks[np.argsort(t[:, col], kind="stable")] = np.arange(n)
        out[:, j] = np.sort(x[:, j])[ranks]
    return out


def _block(problem: Problem, seed: int, k: int, size: int) -> np.ndarray:
    """Uniforms of block k (size rows), independent of how blocks are grouped."""
    child = np.random.SeedSequence(seed).spawn(k + 1)[k]
    rng = np.random.default_rng(child)
    u = latin_hypercube(size, problem.d, rng)
    if problem.correlation is not None:
        u = iman_conover(u, problem.correlation, rng)
    return u


def iter_uniforms(problem: Problem, n: int, seed: int, chunk: int = 50_000) -> Iterator[np.ndarray]:
    """Correlated Latin-hypercube uniforms, (<= chunk, d) at a time; the same rows for any chunk."""
    if seed is None:
        raise ProblemError("a seed is required: every random result must be reproducible")
    nblocks = -(-n // BLOCK)
    sizes = [min(BLOCK, n - k * BLOCK) for k in range(nblocks)]
    pending: list[np.ndarray] = []
    have = 0
    for k, size in enumerate(sizes):
        pending.append(_block(problem, seed, k, size))
        have += size
        while have >= chunk or (k == nblocks - 1 and have > 0):
            buf = np.concatenate(pending) if len(pending) > 1 else pending[0]
            take = min(chunk, have)
            yield buf[:take]
            rest = buf[take:]
            pending = [rest] if rest.shape[0] else []
            have = rest.shape[0]


def sample(problem: Problem, n: int, seed: int) -> pd.DataFrame:
    """All n samples as a DataFrame (one column per variable); for large n use iter_uniforms."""
    u = np.concatenate(list(iter_uniforms(problem, n, seed, chunk=max(n, 1))))
    return pd.DataFrame(problem.transform(u))
