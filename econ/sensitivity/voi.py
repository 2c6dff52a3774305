"""Value of information of a go / no-go decision, from Monte Carlo samples of its value.

The decision: go (receive the value V, e.g. the deal's NPV) or no-go (receive 0).
Deciding now, one picks the better on average and receives max(E[V], 0).

- EVPI, the expected value of perfect information (knowing every input before
  deciding): ``E[max(V, 0)] - max(E[V], 0)``.
- EVPPI_k, the expected value of partial perfect information on input k
  (knowing x_k only): ``E_k[max(E[V | x_k], 0)] - max(E[V], 0)``. It is estimated
  by sorting the samples into ``B`` equal-count bins of x_k (B = sqrt(N), the
  usual rule) and replacing E[V | x_k] by the mean of V in each bin:
  ``sum_b (n_b / N) max(mean_b, 0) - max(mean, 0)``.

The estimator's bias. A bin mean is the true conditional mean plus sampling
noise, and max(., 0) is convex, so the noise adds to the estimate: an input
with no information at all shows a positive EVPPI. :func:`evppi` reports, for
each key, that noise floor: the EVPPI an input with no information shows with
the same bin counts (each bin mean ~ N(mean, s_b^2), s_b the standard error of
a mean of n_b of the N samples drawn without replacement, so that
E[max(X, 0)] = m Phi(m/s) + s phi(m/s)), its standard deviation (given that
the bin means average to the mean), and a flag for
keys whose EVPPI is within the floor plus three standard deviations: for those
the samples do not show that knowing the key is worth anything. (Coarse bins
bias the other way: a bin mixes values of x_k, which can only lower the
estimate; sqrt(N) bins balance the two.)

Streaming. The samples are binned by their uniform u_k, before the inverse
CDF: the transform is monotone, so u-quantile bins are x_k equal-count bins
(exactly equal within each Latin-hypercube block). Each bin keeps an integer
count and an integer sum of V in units of ``resolution`` (V rounded to whole
USD by default), so bins from any number of chunks and worker processes add up
to the same integers in any order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

NOISE_SIGMAS = (
    3.0  # an EVPPI within the noise floor plus this many of its standard deviations is noise
)
_EXACT = 2.0**53  # float64 sums of integers are exact while they stay below this


def bin_count(n: int) -> int:
    """Bins for EVPPI of n samples: sqrt(n), at least 1."""
    return max(1, math.isqrt(int(n)))


@dataclass
class ValueBins:
    """Integer accumulators of the value V by bin of each input's uniform.

    counts, sums : (d, bins) int64; sums in units of ``resolution`` [units of V].
    n : samples with a finite V; positive, total : sums of max(V, 0) and of V
    (same units). max_abs : the largest |V| seen (same units), to check the sums
    cannot have overflowed.
    """

    keys: tuple[str, ...]
    resolution: float
    counts: np.ndarray
    sums: np.ndarray
    n: int = 0
    positive: int = 0
    total: int = 0
    max_abs: int = 0

    @classmethod
    def empty(cls, keys: Sequence[str], bins: int, resolution: float = 1.0) -> ValueBins:
        if not resolution > 0:
            raise ValueError(f"resolution must be > 0, got {resolution!r}")
        d = len(keys)
        z = np.zeros((d, bins), dtype=np.int64)
        return cls(tuple(keys), float(resolution), z, z.copy())

    @property
    def bins(self) -> int:
        return self.counts.shape[1]

    def add(self, u: np.ndarray, value: np.ndarray) -> None:
        """Add samples: ``u`` (m, d) the uniforms of the keys, ``value`` (m,) V. NaN V is left out."""
        value = np.asarray(value, float)
        ok = np.isfinite(value)
        if not ok.all():
            u, value = u[ok], value[ok]
        m, d = u.shape
        if m == 0:
            return
        q = np.rint(value / self.resolution)
        biggest = float(np.abs(q).max())
        if biggest >= 2.0**62:
            raise OverflowError(
                f"a value of {biggest * self.resolution:g} is too large for integer sums at resolution "
                f"{self.resolution:g}; use a coarser resolution"
            )
        nb = self.bins
        b = np.minimum((u * nb).astype(np.intp), nb - 1) + np.arange(d) * nb  # (m, d) flat bin ids
        self.counts += np.bincount(b.ravel(), minlength=d * nb).reshape(d, nb)
        qi = q.astype(np.int64)
        if biggest * m < _EXACT:  # every partial sum is an exact float64 integer
            w = np.broadcast_to(q[:, None], (m, d)).ravel()
            s = np.bincount(b.ravel(), weights=w, minlength=d * nb).astype(np.int64)
        else:
            s = np.zeros(d * nb, dtype=np.int64)
            np.add.at(s, b.ravel(), np.repeat(qi, d))
        self.sums += s.reshape(d, nb)
        self.n += m
        self.positive += int(np.maximum(qi, 0).sum())
        self.total += int(qi.sum())
        self.max_abs = max(self.max_abs, int(biggest))

    def merge(self, other: ValueBins) -> None:
        """Add another accumulator's samples (same keys, bins and resolution) to this one."""
        if (other.keys, other.resolution, other.bins) != (self.keys, self.resolution, self.bins):
            raise ValueError("value bins of different keys, bins or resolution cannot be merged")
        self.counts += other.counts
        self.sums += other.sums
        self.n += other.n
        self.positive += other.positive
        self.total += other.total
        self.max_abs = max(self.max_abs, other.max_abs)

    def check(self) -> None:
        """Raise OverflowError where an int64 sum may have wrapped around."""
        if self.max_abs * self.n >= 2**63:
            raise OverflowError(
                f"{self.n:,} values up to {self.max_abs * self.resolution:g} overflow integer sums at "
                f"resolution {self.resolution:g}; use a coarser resolution"
            )


def evpi(value: np.ndarray) -> float:
    """EVPI of go / no-go on V from samples (N,): mean(max(V, 0)) - max(mean(V), 0) [units of V].

    NaN values are left out. NaN when there is no finite value.
    """
    v = np.asarray(value, float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return float("nan")
    return float(np.maximum(v, 0).mean() - max(v.mean(), 0.0))


def evpi_of(bins: ValueBins) -> float:
    """EVPI from the accumulators (V rounded to the resolution) [units of V]."""
    bins.check()
    if bins.n == 0:
        return float("nan")
    return (bins.positive - max(bins.total, 0)) / bins.n * bins.resolution


def _positive_part(m: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For X ~ N(m, s^2) (s = 0: X = m): the mean and variance of max(X, 0) and
    Cov(max(X, 0), X) / s^2 = Phi(m / s) (Stein's lemma)."""
    safe = np.where(s > 0, s, 1.0)
    z = np.clip(m / safe, -40.0, 40.0)
    cdf, pdf = special.ndtr(z), np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi)
    g = z * cdf + pdf
    var = np.maximum((z * z + 1) * cdf + z * pdf - g * g, 0.0)
    mean = np.where(s > 0, safe * g, np.maximum(m, 0.0))
    return mean, np.where(s > 0, safe * safe * var, 0.0), cdf


def evppi(bins: ValueBins, sd: float) -> pd.DataFrame:
    """EVPPI of every key, with its noise floor, from the accumulators.

    Parameters
    ----------
    bins : the accumulated counts and sums by bin of each key's uniform.
    sd : the standard deviation of V over the samples [units of V], for the noise floor.

    Returns a frame sorted by EVPPI, largest first: key, evppi, noise_floor (the
    expected EVPPI of a key with no information, same bin counts), noise_sd (its
    standard deviation), within_noise (evppi <= noise_floor + 3 noise_sd: not
    distinguishable from no information), share_of_evpi. All in units of V.
    """
    bins.check()
    n = bins.n
    res = bins.resolution
    cols = ["key", "evppi", "noise_floor", "noise_sd", "within_noise", "share_of_evpi"]
    if n == 0:
        return pd.DataFrame({"key": list(bins.keys)}).reindex(columns=cols)
    # sum_b (n_b / N) max(S_b / n_b, 0) - max(S / N, 0), in exact integers
    gain = np.maximum(bins.sums, 0).sum(axis=1) - max(bins.total, 0)
    value = gain / n * res
    # the same estimator for a key with no information, each bin mean X_b ~ N(mean, s_b^2): as the
    # X_b average to the mean, it equals sum_b w_b max(Y_b, 0), Y_b = X_b (mean < 0) or -X_b (mean >= 0),
    # i.e. Y_b ~ N(-|mean|, s_b^2); its mean is the floor, its spread the noise
    c = bins.counts.astype(float)
    w = c / n
    nb = np.where(c > 0, c, 1.0)
    s = sd * np.sqrt(np.clip((n - c) / (max(n - 1, 1) * nb), 0.0, None))
    s = np.where(c > 0, s, 0.0)
    mean = bins.total / n * res
    e, var, slope = _positive_part(np.full_like(s, -abs(mean)), s)
    floor = (w * e).sum(axis=1)
    # its variance given that sum_b w_b Y_b = -|mean| exactly (the linear projection on that sum)
    w2s2 = w * w * s * s
    cov, var_sum = (w2s2 * slope).sum(axis=1), w2s2.sum(axis=1)
    given = (w * w * var).sum(axis=1) - np.where(
        var_sum > 0, cov**2 / np.where(var_sum > 0, var_sum, 1.0), 0.0
    )
    noise = np.sqrt(np.maximum(given, 0.0))
    total = evpi_of(bins)
    df = pd.DataFrame(
        {
            "key": list(bins.keys),
            "evppi": value,
            "noise_floor": floor,
            "noise_sd": noise,
            "within_noise": value <= floor + NOISE_SIGMAS * noise,
            "share_of_evpi": value / total if total > 0 else 0.0 * value,
        }
    )
    return df.sort_values("evppi", ascending=False, kind="stable").reset_index(drop=True)
