"""Warnings where a sample is too small for the figures an analysis prints.

Three figures cannot occur in the quantities they estimate, only in their estimates:

- a Sobol first-order index above the total index of the same key (S1 <= ST: the variance a
  key explains alone is part of what it explains with its interactions);
- a negative Sobol index (a share of variance);
- a key's EVPPI above the EVPI (knowing one input cannot be worth more than knowing them all),
  that is a share of the EVPI above 1.

A Sobol contradiction is warned of where it lies beyond the 95 % bootstrap interval (the
interval of S1 - ST lies wholly above zero; the index's interval wholly below zero) and is at
least ``MATERIAL`` of the variance: a 95 % interval misses a true zero about once in forty
keys at any sample size, and a contradiction of a fraction of a percentage point changes no
ranking. A share of the EVPI above 1 is warned of as soon as it is printed. Each warning is
carried in the analysis' result (:func:`econ.sensitivity.run.sobol_indices` in
``df.attrs["warnings"]``, :func:`econ.sensitivity.run.monte_carlo` in ``res["warnings"]``),
and the command line prints it under the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from econ.formatting import share

MATERIAL = 0.01  # a Sobol contradiction smaller than this share of the variance is not warned of

FIRST_ORDER_ABOVE_TOTAL = "first_order_above_total"
NEGATIVE_INDEX = "negative_index"
EVPPI_ABOVE_EVPI = "evppi_above_evpi"
KINDS = (FIRST_ORDER_ABOVE_TOTAL, NEGATIVE_INDEX, EVPPI_ABOVE_EVPI)


@dataclass(frozen=True)
class SampleWarning:
    """One figure the sample is too small for.

    kind : ``first_order_above_total`` (Sobol S1 > ST beyond the interval of S1 - ST),
        ``negative_index`` (a Sobol index whose interval lies below zero) or
        ``evppi_above_evpi`` (a key's EVPPI above the EVPI);
    key : the key whose figure it is; index : ``S1`` or ``ST`` (Sobol), ``EVPPI``;
    value : the figure (S1 - ST, the index, the share of the EVPI) [share];
    low, high : its 95 % interval where the analysis gives one (S1 - ST, the index), else NaN;
    message : the sentence the command line prints.
    """

    kind: str
    key: str
    index: str
    value: float
    low: float
    high: float
    message: str

    def as_dict(self) -> dict:
        return asdict(self)


def sobol_warnings(
    names: Sequence[str],
    s1: np.ndarray,
    st: np.ndarray,
    s1_interval: tuple[np.ndarray, np.ndarray],
    st_interval: tuple[np.ndarray, np.ndarray],
    excess_interval: tuple[np.ndarray, np.ndarray],
) -> list[SampleWarning]:
    """The warnings of one Sobol analysis: S1, ST (d,) and the 95 % intervals (low, high) of
    S1, of ST and of S1 - ST (from the same bootstrap resamples), each (d,)."""
    out = []
    for i, key in enumerate(names):
        excess = float(s1[i] - st[i])
        lo, hi = float(excess_interval[0][i]), float(excess_interval[1][i])
        if excess >= MATERIAL and lo > 0:
            out.append(
                SampleWarning(
                    FIRST_ORDER_ABOVE_TOTAL,
                    key,
                    "S1",
                    excess,
                    lo,
                    hi,
                    f"{key}: the first-order index {share(s1[i])} is above the total index "
                    f"{share(st[i])}, by {share(excess)} of the variance (95% interval "
                    f"{share(lo)} to {share(hi)}); a first-order index cannot exceed the total: "
                    "too few samples for these figures",
                )
            )
        for index, x, (low, high) in (("S1", s1, s1_interval), ("ST", st, st_interval)):
            v, lo, hi = float(x[i]), float(low[i]), float(high[i])
            if v <= -MATERIAL and hi < 0:
                what = "first-order" if index == "S1" else "total"
                out.append(
                    SampleWarning(
                        NEGATIVE_INDEX,
                        key,
                        index,
                        v,
                        lo,
                        hi,
                        f"{key}: the {what} index is {share(v)} (95% interval {share(lo)} to "
                        f"{share(hi)}); a share of variance cannot be negative: too few samples "
                        "for this figure",
                    )
                )
    return out


def evppi_warnings(
    keys: Sequence[str],
    shares: np.ndarray,
    se_shares: np.ndarray,
    samples: int,
) -> list[SampleWarning]:
    """The warnings of one value-of-information analysis: each key's EVPPI as a share of the
    EVPI, its standard error as a share of the EVPI, and the samples it rests on."""
    out = []
    for key, s, e in zip(keys, shares, se_shares, strict=True):
        if np.isfinite(s) and s > 1.0:
            out.append(
                SampleWarning(
                    EVPPI_ABOVE_EVPI,
                    key,
                    "EVPPI",
                    float(s),
                    float("nan"),
                    float("nan"),
                    f"{key}: its EVPPI is {share(s)} of the EVPI (standard error {share(e)}); "
                    "knowing one input cannot be worth more than knowing them all: too few "
                    f"samples ({samples:,}) for this figure",
                )
            )
    return out
