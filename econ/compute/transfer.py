"""The transferred basis: each platform's measured realisation of the physics envelope, by
serving regime (docs/model.md, sections 0.1 and V4.4).

A sourced frontier point i (frontier.csv, a model of models.csv, a source that is not a
Guesstimate) gives eta_i = Thr_data(s_i) / Env_measured(s_i; base hardware) at its regime
x_i = s_i / ceiling(measured model, base hardware). A platform's realisation eta_p(x) is linear
in x between its points, flat outside them and capped at 1; the served model's tier at speed s
reads eta_p(s / ceiling(served model, current hardware)). Everything here depends on the data
files alone (``a.base``): overrides of a measured point or of the hardware do not move it
(frontier_scale does, in the model), so the basis stays monotone in the hardware.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from econ.assumptions import Assumptions
from econ.compute import physics

Array = NDArray[np.float64]

_DATA_CACHE: dict[tuple, object] = {}


def cached(a: Assumptions, name: str, plat: str, compute):
    """A value that depends on the data files alone (a.base), computed once per data."""
    key = (id(a.base), name, plat)
    hit = _DATA_CACHE.get(key)
    if hit is not None and hit[0] is a.base:
        return hit[1]
    if len(_DATA_CACHE) > 256:
        _DATA_CACHE.clear()
    value = compute()
    _DATA_CACHE[key] = (a.base, value)
    return value


def base_get(a: Assumptions):
    """A getter of the data files' values (before --set and scenarios), None where blank."""
    return lambda k: np.array([float(a.base[k])]) if k in a.base else None


def served_model_base(a: Assumptions) -> physics.ServedModel:
    """The served model at the data files' values."""
    return physics.model_from(base_get(a))


def stage_cap(a: Assumptions, plat: str) -> float:
    """k_cap of a platform: K_CAP_FACTOR x k_min of the served model on it, both at the base
    data (fixed per run, so the stage candidates only grow as k_min falls; section 0.2)."""

    def compute() -> float:
        get = base_get(a)
        _, k_min = physics.layout(served_model_base(a), physics.chip_from(get, plat))
        return float(physics.K_CAP_FACTOR * k_min[0])

    return cached(a, "stage_cap", plat, compute)


def measured_model(a: Assumptions, model_id: str) -> physics.ServedModel:
    """A model of models.csv as a ServedModel (its base values)."""
    v = a.base
    g = lambda c: float(v[f"models.{model_id}.{c}"])  # noqa: E731
    return physics.ServedModel(
        params=g("params"),
        bytes_per_param=g("bytes_per_param"),
        active_param_share=g("active_share"),
        kv_bytes_per_token=g("kv_bytes_per_token"),
        context_tokens=g("context_tokens"),
        speculative_speedup=g("speculative_speedup"),
        layers=g("layers"),
        d_model=g("d_model"),
        prefill_tokens_per_output=g("prefill_tokens_per_output"),
    )


@dataclass(frozen=True)
class Measurement:
    """A sourced frontier point as the transferred basis reads it.

    id : the frontier.csv row; speed s_i [tokens/s/user]; ceiling of the measured model on the
    base hardware [tokens/s/user]; x = s_i / ceiling [-]; envelope Env_measured(s_i)
    [tokens/s/MW]; data Thr_data(s_i) [tokens/s/MW]; ratio eta_i = data / envelope [-].
    """

    id: str
    speed: float
    ceiling: float
    x: float
    envelope: float
    data: float
    ratio: float


def is_sourced(source: str) -> bool:
    """A source that is not a Guesstimate (and not the articles' stated assumption)."""
    return not source.lower().startswith("guesstimate")


def measurements(a: Assumptions, plat: str) -> list[Measurement]:
    """The platform's sourced measurements (section V4.4): frontier points that name a model of
    models.csv and whose source is not a Guesstimate, where the measured model's envelope at the
    point's speed on the base hardware is positive, in order of x; at the data files' values."""
    return cached(a, "measurements", plat, lambda: _measurements(a, plat))


def _measurements(a: Assumptions, plat: str) -> list[Measurement]:
    out = []
    get = base_get(a)
    chip = physics.chip_from(get, plat)
    for i in a.frontier_ids(plat):
        mid = a.base.get(f"frontier.{i}.model")
        entry = a.entries.get(f"frontier.{i}.tokens_per_s_per_mw")
        if mid is None or entry is None or not is_sourced(entry.source):
            continue
        s = float(a.base[f"frontier.{i}.tokens_per_s_per_user"])
        model = measured_model(a, str(mid))
        env = physics.envelope(
            s, model, chip, float(a.base["facility.pue"]), k_cap=stage_cap(a, plat)
        )
        e = float(np.asarray(env.throughput).item())
        if e > 0:
            ceil = float(np.asarray(env.ceiling).item())
            data = float(a.base[f"frontier.{i}.tokens_per_s_per_mw"])
            out.append(Measurement(i, s, ceil, s / ceil, e, data, data / e))
    return sorted(out, key=lambda m: (m.x, m.id))


@dataclass(frozen=True)
class Realisation:
    """eta_p(x) of one platform: knots x (ascending, distinct) and their factors eta (the
    geometric mean where two points share an x), before the cap at 1. No knots: eta = 1
    (physics), and the summary says so."""

    x: tuple[float, ...]
    eta: tuple[float, ...]

    @property
    def measured(self) -> bool:
        return bool(self.x)

    @property
    def non_increasing(self) -> bool:
        """True where eta never rises with x: the transferred curve is then non-increasing in
        speed wherever the envelope is (no hull needed)."""
        return all(b <= c for b, c in zip(self.eta[1:], self.eta[:-1], strict=False))

    def __call__(self, x: ArrayLike) -> Array:
        """eta_p(x), capped at 1 [-]."""
        if not self.x:
            return np.ones(np.shape(x))
        return np.minimum(1.0, np.interp(np.asarray(x, float), self.x, self.eta))

    def raw(self, x: ArrayLike) -> Array:
        """eta_p(x) before the cap at 1 (the cap binds where this exceeds 1)."""
        if not self.x:
            return np.ones(np.shape(x))
        return np.interp(np.asarray(x, float), self.x, self.eta)


def realisation(a: Assumptions, plat: str) -> Realisation:
    """The platform's realisation curve from its sourced measurements (section V4.4)."""

    def compute() -> Realisation:
        pts = measurements(a, plat)
        groups: dict[float, list[float]] = {}
        for m in pts:
            groups.setdefault(m.x, []).append(m.ratio)
        xs = sorted(groups)
        return Realisation(tuple(xs), tuple(float(np.exp(np.mean(np.log(groups[x])))) for x in xs))

    return cached(a, "realisation", plat, compute)
