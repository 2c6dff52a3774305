"""Monte Carlo: sample, evaluate in chunks over worker processes with bounded memory, analyse.

:func:`run` evaluates any vectorised function ``f(params) -> outputs`` (params: name
-> (m,) array; outputs: name -> (m,) scalar outputs or (m, H) path outputs such as
cumulative cash by month) on n correlated Latin-hypercube samples of a
:class:`~econ.sensitivity.sampling.Problem`. It keeps every sample's scalar
outputs, the first few samples with their inputs, a per-month histogram of each
path output (its fan over all samples), and the value-of-information
accumulators (:mod:`econ.sensitivity.voi`); it can stream every sample to a CSV.

The same bits for any chunk size and any worker count: sample i is the same
whatever chunk evaluates it (see :mod:`~econ.sensitivity.sampling`), ``f`` sees
the same chunks, results come back in sample order, and everything accumulated
across chunks is an integer count or an integer sum (the order they are added
in cannot matter); the other statistics are computed at the end from the full
arrays of outputs.

Statistics of the outputs: :func:`analyse` (percentiles, means and standard
errors, P(NPV > 0), P(payback <= term)), :func:`payback_by_month`,
:func:`convergence`, :func:`histogram` and :func:`s_curve`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from econ.parallel import check_workers, map_ordered, tick
from econ.sensitivity import voi as voi_mod
from econ.sensitivity.sampling import BLOCK, Problem, ProblemError, _block
from econ.tempfiles import clean_stale, temporary

Func = Callable[[Mapping[str, np.ndarray]], Mapping[str, np.ndarray]]
PERCENTILES = (5, 10, 25, 50, 75, 90, 95)
FAN = (0.1, 0.5, 0.9)
TASK_ROWS = 2**18  # at most this many samples (whole chunks) per task: bounds per-task memory


class SamplesFileError(OSError):
    """The samples CSV could not be written; the message names the file."""


# --- fan of a path output: per-month histograms on log-spaced bins --------------------------------


@dataclass(frozen=True)
class FanGrid:
    """Bins of a path output's values: log-spaced in |x|, each sign apart.

    tiny : values with |x| < tiny share one zero bin [units of x].
    huge : values with |x| >= huge (rounded up to a bin edge) fall in two overflow bins.
    rel_width : relative width of a bin: edges tiny (1 + rel_width)^k.

    Bin ids run in the order of the values: 0 the negative overflow, 1..K the
    negative bins (largest |x| first), K + 1 the zero bin, K + 2..2K + 1 the
    positive bins, 2K + 2 the positive overflow. Assignment compares |x| with the
    tabulated edges, so it is exact and the same in every process.
    """

    tiny: float = 1.0
    huge: float = 1e15
    rel_width: float = 1e-3

    def __post_init__(self) -> None:
        if not (0 < self.tiny < self.huge and 0 < self.rel_width < 1):
            raise ValueError(f"a fan grid needs 0 < tiny < huge and 0 < rel_width < 1, got {self}")

    @cached_property
    def k(self) -> int:
        """Bins per sign."""
        return max(1, math.ceil(math.log(self.huge / self.tiny) / math.log1p(self.rel_width)))

    @cached_property
    def edges(self) -> np.ndarray:
        """(K + 1,) edges of |x|, tiny to >= huge."""
        return self.tiny * np.exp(np.arange(self.k + 1) * math.log1p(self.rel_width))

    @property
    def bins(self) -> int:
        return 2 * self.k + 3

    def index(self, x: np.ndarray) -> np.ndarray:
        """Bin id of every value (any shape); NaN gets an arbitrary id (callers mask it)."""
        e, k_max = self.edges, self.k
        a = np.abs(x)
        ac = np.fmin(np.fmax(a, self.tiny), e[-1])  # NaN -> tiny: no warning from the log
        k = np.clip(np.floor(np.log(ac / self.tiny) / math.log1p(self.rel_width)), 0, k_max - 1)
        k = k.astype(np.intp)
        k -= ac < e[k]  # the log may be off by one bin at an edge: the table decides
        k += ac >= e[k + 1]
        k = np.clip(k, 0, k_max - 1)
        ids = np.where(x < 0, k_max - k, k_max + 2 + k)
        ids = np.where(a >= e[-1], np.where(x < 0, 0, 2 * k_max + 2), ids)
        return np.where(a < self.tiny, k_max + 1, ids)

    def bounds(self, ids: np.ndarray, low: float, high: float) -> tuple[np.ndarray, np.ndarray]:
        """Value interval of each bin id; the overflow bins end at ``low`` / ``high`` (the extremes)."""
        e, k_max = self.edges, self.k
        ids = np.asarray(ids)
        kn = np.clip(k_max - ids, 0, k_max - 1)  # negative bins
        kp = np.clip(ids - k_max - 2, 0, k_max - 1)  # positive bins
        lo = np.select(
            [ids == 0, ids <= k_max, ids == k_max + 1, ids <= 2 * k_max + 1],
            [low, -e[kn + 1], -e[0], e[kp]],
            e[-1],
        )
        hi = np.select(
            [ids == 0, ids <= k_max, ids == k_max + 1, ids <= 2 * k_max + 1],
            [-e[-1], -e[kn], e[0], e[kp + 1]],
            high,
        )
        return lo, hi


@dataclass
class PathHistogram:
    """Integer counts of a path output's values by bin and month, for its quantiles by month.

    Holds only the range of bins seen: ``counts`` (bins first..first + B - 1, H) int64,
    with ``nan`` (H,) the NaN count, ``low``/``high`` (H,) the extremes by month.
    Adding and merging are exact, so the result does not depend on the order.
    """

    grid: FanGrid = field(default_factory=FanGrid)
    first: int = 0
    counts: np.ndarray | None = None
    nan: np.ndarray | None = None
    low: np.ndarray | None = None
    high: np.ndarray | None = None

    @property
    def months(self) -> int:
        return 0 if self.nan is None else self.nan.shape[0]

    def add(self, x: np.ndarray) -> None:
        """Add the paths ``x`` (m, H)."""
        x = np.asarray(x, float)
        m, h = x.shape
        bad = np.isnan(x)
        ids = self.grid.index(x)
        ok = ids[~bad]
        part = PathHistogram(self.grid, nan=bad.sum(axis=0, dtype=np.int64))
        part.low, part.high = np.fmin.reduce(x, axis=0), np.fmax.reduce(x, axis=0)
        if ok.size:
            b0, b1 = int(ok.min()), int(ok.max())
            flat = ((ids - b0) * h + np.arange(h))[~bad]
            part.first = b0
            part.counts = np.bincount(flat, minlength=(b1 - b0 + 1) * h).reshape(-1, h)
        self.merge(part)

    def merge(self, other: PathHistogram) -> None:
        """Add another histogram's counts (same grid and months) to this one."""
        if other.nan is None:
            return
        if self.nan is None:
            self.first, self.counts = other.first, other.counts
            self.nan, self.low, self.high = other.nan.copy(), other.low.copy(), other.high.copy()
            if self.counts is not None:
                self.counts = self.counts.copy()
            return
        if other.months != self.months or other.grid != self.grid:
            raise ValueError("histograms of different grids or months cannot be merged")
        self.nan = self.nan + other.nan
        self.low, self.high = np.fmin(self.low, other.low), np.fmax(self.high, other.high)
        if other.counts is None:
            return
        if self.counts is None:
            self.first, self.counts = other.first, other.counts.copy()
            return
        lo = min(self.first, other.first)
        hi = max(self.first + len(self.counts), other.first + len(other.counts))
        if (lo, hi) != (self.first, self.first + len(self.counts)):
            grown = np.zeros((hi - lo, self.months), dtype=np.int64)
            grown[self.first - lo : self.first - lo + len(self.counts)] = self.counts
            self.first, self.counts = lo, grown
        s = other.first - self.first
        self.counts[s : s + len(other.counts)] += other.counts

    def quantiles(self, q: Sequence[float] = FAN) -> pd.DataFrame:
        """Quantiles ``q`` of the non-NaN values by month: month (1..H), then P10, P50, ...

        As numpy's default (linear) quantile: the interpolation between the
        order statistics j and j + 1 around q (N - 1), each estimated inside the
        bin that holds it (spread evenly over the bin, within the month's
        extremes, which are kept exactly: P0 and P100 are exact). Accuracy: the error is below ``rel_width`` (1e-3) times the
        larger |x| of those two order statistics where they lie in
        tiny <= |x| < huge, below 2 tiny where one is in the zero bin; in an
        overflow bin it is only bounded by the month's extremes. NaN where a
        month has no value.
        """
        h = self.months
        out = np.full((h, len(q)), np.nan)
        for t in range(h):
            c = self.counts[:, t] if self.counts is not None else np.zeros(0, np.int64)
            n = int(c.sum())
            if n == 0:
                continue
            cum = np.cumsum(c)
            r = np.asarray(q, float) * (n - 1)
            j0 = np.floor(r).astype(np.int64)
            j1 = np.minimum(j0 + 1, n - 1)
            v0, v1 = self._order(c, cum, j0, t), self._order(c, cum, j1, t)
            out[t] = v0 + (r - j0) * (v1 - v0)
        cols = {f"P{100 * p:g}": out[:, i] for i, p in enumerate(q)}
        return pd.DataFrame({"month": np.arange(1, h + 1), **cols})

    def _order(self, c: np.ndarray, cum: np.ndarray, j: np.ndarray, t: int) -> np.ndarray:
        """Estimate of the j-th smallest value (0-based) of month t."""
        low, high = self.low[t], self.high[t]
        b = np.searchsorted(cum, j, side="right")
        inside = j - (cum[b] - c[b])
        lo, hi = self.grid.bounds(self.first + b, low, high)
        lo, hi = np.maximum(lo, low), np.minimum(hi, high)
        v = lo + (inside + 0.5) / c[b] * (hi - lo)
        return np.where(j == 0, low, np.where(j == cum[-1] - 1, high, v))


# --- the run -------------------------------------------------------------------------------------


@dataclass
class MonteCarloResult:
    """What :func:`run` returns.

    outputs : (n, k) DataFrame of the scalar outputs, in sample order.
    inputs : the first ``keep_inputs`` samples: their inputs, then their scalar outputs.
    fans : path output -> DataFrame month, P10, P50, P90 over all samples (see
        :meth:`PathHistogram.quantiles` for the accuracy).
    histograms : path output -> its :class:`PathHistogram` (for other quantiles).
    voi : the value-of-information accumulator (bins of each input), or None (see
        :mod:`econ.sensitivity.voi`).
    n, chunks, tasks, workers : samples, chunks evaluated, tasks, worker processes.
    undefined : scalar output -> the number of samples where it is NaN.
    samples_csv : where every sample was written, or None.
    voi_output : the scalar outputs that are the net benefits of the decision's options
        (besides "no deal", 0), or None.
    problem : what was sampled.
    """

    outputs: pd.DataFrame
    inputs: pd.DataFrame
    fans: dict[str, pd.DataFrame]
    histograms: dict[str, PathHistogram]
    voi: voi_mod.Accumulator | None
    n: int
    chunks: int
    tasks: int
    workers: int
    undefined: dict[str, int]
    samples_csv: Path | None = None
    voi_output: tuple[str, ...] | None = None
    problem: Problem | None = None

    def value_of_information(
        self, unread: Sequence[str] = (), names: Sequence[str] | None = None
    ) -> voi_mod.Result:
        """EVPI and EVPPI by key, with standard errors, of the decision between no deal (0)
        and the options ``voi_output`` [their units]; see :func:`econ.sensitivity.voi.analyse`.
        ``unread`` keys are listed at zero; ``names`` names the options (default: the outputs)."""
        if self.voi is None or self.voi_output is None or self.problem is None:
            raise ValueError("no value of information was accumulated: pass voi_output to run()")
        xbar = voi_mod.bin_means(self.problem, self.voi.bins)
        values = self.outputs[list(self.voi_output)].to_numpy(float)
        return voi_mod.analyse(self.voi, xbar, names or self.voi_output, values, unread)


@dataclass
class _Part:
    """One task's results, sent back to the parent."""

    start: int
    stop: int
    outputs: np.ndarray
    kept: pd.DataFrame | None
    csv: str | None
    histograms: dict[str, PathHistogram]
    voi: np.ndarray | None  # (m, d) uint8: each sample's fine bin of each input


@dataclass
class _Evaluator:
    """Evaluates the samples of one task (whole chunks) in a worker or in this process."""

    f: Func
    problem: Problem
    n: int
    seed: int
    outputs: tuple[str, ...]
    paths: tuple[str, ...]
    chunk: int
    keep_inputs: int
    write_csv: bool
    grid: FanGrid
    voi_output: tuple[str, ...] | None
    voi_bins: int
    _cache: tuple[int, np.ndarray] | None = field(default=None, repr=False)

    def _block(self, k: int) -> np.ndarray:
        if self._cache is None or self._cache[0] != k:
            self._cache = (k, _block(self.problem, self.seed, k, min(BLOCK, self.n - k * BLOCK)))
        return self._cache[1]

    def uniforms(self, start: int, stop: int) -> np.ndarray:
        """Uniforms (stop - start, d) of samples start..stop - 1."""
        parts = []
        for k in range(start // BLOCK, (stop - 1) // BLOCK + 1):
            lo = max(start, k * BLOCK) - k * BLOCK
            hi = min(stop, (k + 1) * BLOCK) - k * BLOCK
            parts.append(self._block(k)[lo:hi])
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def __call__(self, span: tuple[int, int]) -> _Part:
        start, stop = span
        outs = np.empty((stop - start, len(self.outputs)))
        hists = {p: PathHistogram(self.grid) for p in self.paths}
        ids = (
            np.empty((stop - start, self.problem.d), np.uint8)
            if self.voi_output is not None
            else None
        )
        kept, lines = [], []
        for s in range(start, stop, self.chunk):
            e = min(s + self.chunk, stop)
            m = e - s
            u = self.uniforms(s, e)
            x = self.problem.transform(u)
            y = self.f(x)
            cols = [_scalar(y, o, m) for o in self.outputs]
            for j, col in enumerate(cols):
                outs[s - start : e - start, j] = col
            for p in self.paths:
                hists[p].add(_path(y, p, m))
            if ids is not None:
                ids[s - start : e - start] = voi_mod.bin_ids(u, self.voi_bins)
            if s < self.keep_inputs:
                k = min(m, self.keep_inputs - s)
                part = pd.DataFrame({name: v[:k] for name, v in x.items()})
                for o, col in zip(self.outputs, cols, strict=True):
                    part[o] = col[:k]
                kept.append(part)
            if self.write_csv:
                rows = np.column_stack([x[name] for name in self.problem.names] + cols)
                lines.append("".join(",".join(map(repr, r)) + "\n" for r in rows.tolist()))
            tick(m)  # progress, chunk by chunk, from a worker too
        return _Part(
            start,
            stop,
            outs,
            pd.concat(kept, ignore_index=True) if kept else None,
            "".join(lines) if self.write_csv else None,
            hists,
            ids,
        )


def _scalar(y: Mapping[str, np.ndarray], name: str, m: int) -> np.ndarray:
    if name not in y:
        raise KeyError(f"the function returned no output {name!r} (it returned {sorted(y)})")
    v = np.asarray(y[name], float)
    if v.shape != (m,):
        v = np.broadcast_to(v, (m,))
    return v


def _path(y: Mapping[str, np.ndarray], name: str, m: int) -> np.ndarray:
    if name not in y:
        raise KeyError(f"the function returned no path output {name!r} (it returned {sorted(y)})")
    v = np.asarray(y[name], float)
    if v.ndim != 2 or v.shape[0] != m:
        raise ValueError(f"path output {name!r}: expected shape ({m}, H), got {v.shape}")
    return v


@contextmanager
def _naming(path: Path) -> Iterator[None]:
    """Turn an OSError into a SamplesFileError that names the file."""
    try:
        yield
    except SamplesFileError:
        raise
    except OSError as exc:
        raise SamplesFileError(
            f"{path}: cannot write the samples file ({exc.strerror or exc})"
        ) from exc


class _SamplesCsv:
    """Every sample's inputs and outputs, written to a temporary file and renamed into place.

    A target that exists and is not a regular file (a device, a pipe) is written directly:
    renaming a temporary file over it would replace the device with a file.
    """

    def __init__(self, path: str | os.PathLike, columns: Sequence[str]) -> None:
        self.path = Path(path)
        special = self.path.exists() and not self.path.is_file()
        self.tmp = None
        self.fh = None
        with _naming(self.path):
            if special:
                self.fh = open(self.path, "w", encoding="utf-8", newline="")
            else:
                clean_stale(self.path)  # what a killed run left
                fd, self.tmp = temporary(self.path)
                self.fh = os.fdopen(fd, "w", encoding="utf-8", newline="")
            self.fh.write(",".join(columns) + "\n")

    def write(self, text: str) -> None:
        with _naming(self.path):
            self.fh.write(text)

    def commit(self) -> None:
        with _naming(self.path):
            self.fh.close()
            if self.tmp is not None:
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(self.tmp, 0o666 & ~umask)  # mkstemp makes 0600; the usual permissions
                os.replace(self.tmp, self.path)

    def abort(self) -> None:
        if self.fh is not None:
            try:
                self.fh.close()
            except OSError:
                pass  # the error being raised already names the file
        if self.tmp is not None:
            self.tmp.unlink(missing_ok=True)


def _spans(n: int, chunk: int, workers: int) -> list[tuple[int, int]]:
    """Tasks of whole chunks: about 4 per worker (one worker: as large as allowed), each at most
    TASK_ROWS samples (or one chunk), and whole sampling blocks where a chunk divides one,
    unless that would leave a worker idle (a sample of fewer blocks than workers: each task
    then draws the block and keeps its own rows, which costs far less than evaluating them)."""
    n_chunks = -(-n // chunk)
    most = max(1, TASK_ROWS // chunk)
    per = most if workers == 1 else min(most, max(1, -(-n_chunks // (4 * workers))))
    if BLOCK % chunk == 0:  # whole sampling blocks per task: no block drawn by two tasks
        unit = BLOCK // chunk
        whole = max(unit, per - per % unit)
        if workers == 1 or -(-n_chunks // whole) >= workers:
            per = whole
    step = per * chunk
    return [(s, min(s + step, n)) for s in range(0, n, step)]


def run(
    f: Func,
    problem: Problem,
    n: int,
    seed: int,
    outputs: Sequence[str],
    paths: Sequence[str] = (),
    chunk: int = 50_000,
    keep_inputs: int = 0,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
    samples_csv: str | os.PathLike | None = None,
    voi_output: str | Sequence[str] | None = None,
    fan_grid: FanGrid | None = None,
) -> MonteCarloResult:
    """Evaluate ``f`` on n correlated Latin-hypercube samples of ``problem``.

    Parameters
    ----------
    f : vectorised function, params {name: (m,) array} -> {output: (m,) or (m, H) array}.
        With ``workers > 1`` it is sent to worker processes: under the fork start method
        (POSIX, Python < 3.12) any callable works; elsewhere it must be picklable (a
        module-level function or an instance of a module-level class), see econ.parallel.
    problem, n, seed : what to sample, how many samples, the seed (required).
    outputs : the scalar outputs to keep for every sample.
    paths : outputs that f returns as (m, H) arrays (e.g. cumulative cash by month):
        their fan (P10/P50/P90 by month over all samples) is accumulated in histograms.
    chunk : samples per call of f (memory is bounded by it).
    keep_inputs : the first samples to return with their inputs.
    progress : called as progress(done, n) in this process after each chunk, with any
        number of workers.
    workers : processes evaluating the chunks (1: this process).
    samples_csv : if given, every sample's inputs (by name) and scalar outputs are
        written there in sample order (NaN as ``nan``, floats to the last digit),
        through a temporary file renamed into place at the end; an OSError becomes a
        :class:`SamplesFileError` naming the file.
    voi_output : the scalar output(s) that are the net benefits of the decision's options
        besides "no deal" (e.g. "npv"), to accumulate the value-of-information bins
        (:func:`econ.sensitivity.voi.bin_count` bins of each input).
    fan_grid : bins of the path histograms (default :class:`FanGrid`: zero bin below
        1, overflow at 1e15, relative width 1e-3).

    The result is identical to the last bit for any ``chunk`` and ``workers``
    (given an f whose value for one sample does not depend on the others).
    """
    if seed is None:
        raise ProblemError("a seed is required: every random result must be reproducible")
    if n < 1 or chunk < 1 or keep_inputs < 0:
        raise ValueError(
            f"need n >= 1, chunk >= 1, keep_inputs >= 0; got {n}, {chunk}, {keep_inputs}"
        )
    check_workers(workers)
    outputs, paths = tuple(outputs), tuple(paths)
    if isinstance(voi_output, str):
        voi_output = (voi_output,)
    if voi_output is not None:
        voi_output = tuple(voi_output)
        for o in voi_output:
            if o not in outputs:
                raise ValueError(f"voi_output {o!r} must be one of the outputs {list(outputs)}")
    grid = fan_grid or FanGrid()
    ev = _Evaluator(
        f,
        problem,
        n,
        seed,
        outputs,
        paths,
        chunk,
        keep_inputs,
        samples_csv is not None,
        grid,
        voi_output,
        voi_mod.bin_count(n),
    )
    spans = _spans(n, chunk, workers)
    block = np.empty((n, len(outputs)))  # one array, wrapped by the DataFrame without a copy
    hists = {p: PathHistogram(grid) for p in paths}
    bins = (
        voi_mod.Accumulator(tuple(problem.names), voi_mod.bin_count(n), len(voi_output))
        if voi_output is not None
        else None
    )
    option_cols = [outputs.index(o) for o in voi_output] if voi_output is not None else []
    kept: list[pd.DataFrame] = []
    csv = _SamplesCsv(samples_csv, [*problem.names, *outputs]) if samples_csv is not None else None
    done = 0

    def advance(units: int) -> None:
        nonlocal done
        done += units
        progress(done, n)

    try:
        for part in map_ordered(ev, spans, workers, progress=advance if progress else None):
            block[part.start : part.stop] = part.outputs
            for p in paths:
                hists[p].merge(part.histograms[p])
            if bins is not None:
                bins.add(part.voi, block[part.start : part.stop][:, option_cols])
            if part.kept is not None:
                kept.append(part.kept)
            if csv is not None:
                csv.write(part.csv)
        if csv is not None:
            csv.commit()
        if bins is not None:
            bins.finish()
    except BaseException:
        if csv is not None:
            csv.abort()
        raise
    out = pd.DataFrame(block, columns=list(outputs), copy=False)
    res = MonteCarloResult(
        outputs=out,
        inputs=pd.concat(kept, ignore_index=True) if kept else pd.DataFrame(),
        fans={p: h.quantiles(FAN) for p, h in hists.items()},
        histograms=hists,
        voi=bins,
        n=n,
        chunks=-(-n // chunk),
        tasks=len(spans),
        workers=workers,
        undefined={o: int(np.isnan(block[:, j]).sum()) for j, o in enumerate(outputs)},
        samples_csv=Path(samples_csv) if samples_csv is not None else None,
        voi_output=voi_output,
        problem=problem,
    )
    return res


def evaluate(
    f: Func,
    problem: Problem,
    n: int,
    seed: int,
    outputs: list[str],
    chunk: int = 50_000,
    keep_inputs: int = 0,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(outputs: n rows, one column per output; inputs: the first ``keep_inputs`` samples
    with their outputs): :func:`run` without paths or value of information."""
    r = run(f, problem, n, seed, outputs, (), chunk, keep_inputs, progress, workers)
    return r.outputs, r.inputs


# --- statistics ----------------------------------------------------------------------------------


_NEVER = np.finfo(float).max / 4  # no payback: later than any month, finite for the arithmetic


def _never(payback: np.ndarray) -> np.ndarray:
    """Payback with NaN (no payback within the horizon) as later than any month."""
    return np.where(np.isnan(payback), _NEVER, payback)


PAYBACK_ZERO = "0 = cumulative cash never negative (pays back from the start)"
PAYBACK_NONE = "blank = no payback within the horizon at this percentile"


def analyse(
    out: pd.DataFrame,
    term: float,
    payback: str = "payback",
    npv: str = "npv",
    rates: Sequence[str] = ("irr",),
    percentiles: Sequence[float] = PERCENTILES,
    rate_max: float | None = None,
) -> pd.DataFrame:
    """Statistics of every scalar output. Tidy frame: output, statistic, value, note.

    Every output: "share undefined" (NaN), its percentiles "P5".."P95" of the
    defined values. Outputs that are not rates: "mean" and "standard error of
    the mean" of the defined values (a rate such as IRR is unbounded near a
    sign change of the flows: it gets no mean or standard deviation, only
    percentiles). ``rate_max``: a rate percentile above it is not a meaningful rate: NaN,
    with a note, and "share above the meaningful range" counts them. ``npv``: "P(NPV > 0)"
    and its standard error. ``payback``: NaN means no payback within the horizon and counts
    as later than any month: "P(payback <= term)" with its standard error, "share with no
    payback within the horizon", "share never cash-negative" (payback month 0), and
    percentiles over all samples (NaN where that percentile does not pay back); no mean.
    A payback percentile of 0 or NaN says in ``note`` what it means.
    """
    rows = []
    n = len(out)
    pct = list(percentiles)
    for o in out.columns:
        y = out[o].to_numpy(float)
        if o == payback:
            z = _never(y)
            p = float(np.mean(z <= term))
            rows += [
                (o, "P(payback <= term)", p, ""),
                (o, "standard error of P(payback <= term)", math.sqrt(p * (1 - p) / n), ""),
                (o, "share with no payback within the horizon", float(np.mean(np.isnan(y))), ""),
                # payback month 0: cumulative cash never below zero (counted in P(<= term))
                (
                    o,
                    "share never cash-negative",
                    float(np.mean(y == 0)),
                    "the samples with payback month 0 (cumulative cash never negative)",
                ),
            ]
            v = np.percentile(z, pct)  # huge where the percentile does not pay back
            for q, x in zip(pct, v, strict=True):
                value = float(x) if x < _NEVER / 2 else np.nan
                note = PAYBACK_ZERO if value == 0 else PAYBACK_NONE if np.isnan(value) else ""
                rows.append((o, f"P{q:g}", value, note))
            continue
        ok = y[~np.isnan(y)]
        rows.append((o, "share undefined", float(1 - ok.size / n) if n else np.nan, ""))
        if o not in rates:
            rows.append((o, "mean", float(ok.mean()) if ok.size else np.nan, ""))
            se = float(ok.std(ddof=1) / math.sqrt(ok.size)) if ok.size > 1 else np.nan
            rows.append((o, "standard error of the mean", se, ""))
        if o == npv:
            p = float(np.mean(ok > 0)) if ok.size else np.nan
            rows.append((o, "P(NPV > 0)", p, ""))
            rows.append(
                (o, "standard error of P(NPV > 0)", math.sqrt(p * (1 - p) / max(ok.size, 1)), "")
            )
        v = np.percentile(ok, pct) if ok.size else np.full(len(pct), np.nan)
        if o in rates and rate_max is not None:
            rows.append(
                (
                    o,
                    "share above the meaningful range",
                    float(np.mean(ok > rate_max)) if ok.size else np.nan,
                    f"above {rate_max:,.0%} a year: not a meaningful rate",
                ),
            )
            for q, x in zip(pct, v, strict=True):
                above = x > rate_max
                rows.append(
                    (
                        o,
                        f"P{q:g}",
                        np.nan if above else float(x),
                        f"above {rate_max:,.0%} a year: not a meaningful rate" if above else "",
                    )
                )
            continue
        rows += [(o, f"P{q:g}", float(x), "") for q, x in zip(pct, v, strict=True)]
    return pd.DataFrame(rows, columns=["output", "statistic", "value", "note"])


def payback_by_month(payback: np.ndarray, horizon: int) -> pd.DataFrame:
    """P(payback <= t) for every month t = 1..horizon over ALL samples (NaN: never).

    Tidy frame: month, share, standard_error (binomial, sqrt(p (1 - p) / n)).
    """
    y = np.sort(_never(np.asarray(payback, float)))
    t = np.arange(1, int(horizon) + 1)
    p = np.searchsorted(y, t, side="right") / max(y.size, 1)
    return pd.DataFrame(
        {"month": t, "share": p, "standard_error": np.sqrt(p * (1 - p) / max(y.size, 1))}
    )


def convergence(y: np.ndarray) -> pd.DataFrame:
    """Running mean and its standard error over the first n = 1, 2, 4, ... 2^k samples and all.

    Defined (non-NaN) values only; frame n (samples considered), defined, mean,
    standard_error: the convergence plot of a Monte Carlo mean.
    """
    y = np.asarray(y, float)
    total = y.size
    ns = [2**k for k in range(max(total, 1).bit_length()) if 2**k < total] + [total]
    rows = []
    for k in ns:
        v = y[:k]
        v = v[~np.isnan(v)]
        mean = float(v.mean()) if v.size else np.nan
        se = float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else np.nan
        rows.append((k, v.size, mean, se))
    return pd.DataFrame(rows, columns=["n", "defined", "mean", "standard_error"])


def histogram(y: np.ndarray, bins: int = 40, tails: tuple[float, float] = (1, 99)) -> pd.DataFrame:
    """Histogram of the finite values between their ``tails`` percentiles (P1..P99).

    Outliers would otherwise stretch the bins until a few hold every sample.
    Frame bin_low, bin_high, bin_mid, count, cumulative_share, where
    cumulative_share is the share of ALL samples at or below bin_high (the
    tail below counted in, NaN never). The tails, counted apart, are in
    ``df.attrs``: below (finite values under the first bin), above (over the
    last), undefined (NaN or infinite), n (all samples), low/high (the range).
    """
    y = np.asarray(y, float)
    n = y.size
    ok = y[np.isfinite(y)]
    if ok.size == 0:
        df = pd.DataFrame(columns=["bin_low", "bin_high", "bin_mid", "count", "cumulative_share"])
        df.attrs.update(below=0, above=0, undefined=n, n=n, low=np.nan, high=np.nan)
        return df
    lo, hi = np.percentile(ok, tails)
    counts, edges = np.histogram(ok, bins=bins, range=(lo, hi))
    below = int((ok < edges[0]).sum())
    above = int((ok > edges[-1]).sum())
    df = pd.DataFrame(
        {
            "bin_low": edges[:-1],
            "bin_high": edges[1:],
            "bin_mid": (edges[:-1] + edges[1:]) / 2,
            "count": counts,
            "cumulative_share": (below + np.cumsum(counts)) / n,
        }
    )
    df.attrs.update(
        below=below, above=above, undefined=n - ok.size, n=n, low=float(lo), high=float(hi)
    )
    return df


def s_curve(y: np.ndarray, points: int = 101) -> pd.DataFrame:
    """Share of ALL samples at or below each value: value, share.

    The values are ``points`` quantiles of the non-NaN values (min to max). NaN
    counts as never at or below (a NaN payback never pays back), so a payback
    S-curve ends at the share that pays back, not at 100 %.
    """
    y = np.asarray(y, float)
    s = np.sort(y[~np.isnan(y)])
    if s.size == 0:
        return pd.DataFrame({"value": [], "share": []})
    v = np.unique(np.quantile(s, np.linspace(0, 1, points)))
    return pd.DataFrame({"value": v, "share": np.searchsorted(s, v, side="right") / y.size})
