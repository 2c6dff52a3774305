"""The model on any number of scenarios in blocks of a bounded size (docs/api.md, "Memory").

:func:`econ.model.evaluate` holds every monthly array of every scenario it evaluates at once:
about 156 KB a scenario with ``detail=False`` where it chooses the served speed (six
candidates a scenario), 26 KB where the speed is given. Beyond a block (:data:`BLOCK_SIZE`
scenario evaluations: 2,000 scenarios whose served speeds are chosen, 12,000 otherwise) it
evaluates them here, block after block, and joins the blocks' results as one call would
have returned them: the model is elementwise over scenarios, so each scenario's figures are
the same to the last bit whatever block it is in (tests/test_blocks.py). A block never holds
a single scenario when there are more (one scenario alone sums its months in another order),
so the last block may hold one scenario more than the size.

``monthly`` keeps only some of the (N, H) arrays, or none: the (N,) metrics of 200,000
scenarios take about 55 MB, their monthly arrays 14 KB a scenario (2.8 GB).

The block size is the ``block`` argument of :func:`econ.evaluate` and
:func:`econ.model.evaluate`, else the environment variable ``ECON_BLOCK_SIZE``, else
:data:`BLOCK_SIZE`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection, Iterator
from dataclasses import fields
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from econ.assumptions import AssumptionError

if TYPE_CHECKING:
    from econ.model import Params, Results

# Scenario evaluations a block, a scenario whose served speed is chosen counting one per
# candidate (6): 2,000 such scenarios or 12,000 with the speed given, each about 300 MB at the
# peak. On a 2-core machine, a scenario whose speed is chosen took 0.28 ms in blocks of 2,000,
# 0.31 in blocks of 3,000 or 4,000 and 0.37 in blocks of 1,000 or 8,000; with the speed given,
# 4,000 to 12,000 a block took the same (0.05 to 0.06 ms, within the machine's noise) and
# 48,000 in one call 0.13 ms (docs/api.md, "Memory").
BLOCK_SIZE = 12_000
ENV = "ECON_BLOCK_SIZE"

Monthly = bool | Collection[str]


def block_size(block: int | None = None) -> int:
    """The block size in force, in scenario evaluations: ``block``, else $ECON_BLOCK_SIZE, else
    BLOCK_SIZE; at least 2."""
    source = "block"
    if block is None:
        text = os.environ.get(ENV)
        if text is None:
            return BLOCK_SIZE
        source = f"${ENV}"
        try:
            block = int(text)
        except ValueError:
            raise AssumptionError(
                f"{source}: {text!r} is not a whole number of scenario evaluations"
            ) from None
    if isinstance(block, bool) or not isinstance(block, int | np.integer) or block < 2:
        raise AssumptionError(
            f"{source}: expected a whole number of scenario evaluations >= 2, got {block!r}"
        )
    return int(block)


def per_block(p: Params, served: ArrayLike | None, block: int | None = None) -> int:
    """Scenarios a block: the block size, divided by the candidates of SERVED_GRID where each
    scenario's served speed is chosen (each is evaluated once per candidate); at least 2."""
    from econ.model import SERVED_GRID

    size = block_size(block)
    if served is None and p.a.values["capacity.basis"] != "data":
        size //= len(SERVED_GRID)
    return max(2, size)


def needed(p: Params, served: ArrayLike | None, block: int | None, monthly: Monthly) -> bool:
    """Whether :func:`econ.model.evaluate` of ``p`` goes through :func:`evaluate`: more
    scenarios than a block, or only some monthly arrays kept."""
    return monthly is not True or p.n > per_block(p, served, block)


def spans(n: int, block: int) -> list[tuple[int, int]]:
    """[start, stop) of each block of n scenarios; none of a single scenario (when n > 1)."""
    starts = list(range(0, n, block))
    if len(starts) > 1 and n - starts[-1] == 1:
        starts.pop()  # the last block takes the one scenario left
    return [(s, e) for s, e in zip(starts, [*starts[1:], n], strict=True)]


def monthly_fields(monthly: Monthly) -> frozenset[str] | None:
    """The (N, H) fields and parts to keep: None for all of them."""
    from econ.model import Results

    if monthly is True:
        return None
    if monthly is False:
        return frozenset()
    if isinstance(monthly, str) or not isinstance(monthly, Collection):
        raise AssumptionError(
            f"monthly: expected True, False or names of monthly results, got {monthly!r}"
        )
    units = Results.units()
    names = frozenset(monthly)
    for name in sorted(names, key=str):
        if not isinstance(name, str):
            raise AssumptionError(f"monthly: expected names of monthly results, got {name!r}")
        if name in units and units[name][1] != "(N, H)":
            raise AssumptionError(
                f"monthly: {name!r} is one number a scenario, kept anyway; name only monthly "
                "results (the (N, H) fields of Results, or keys of its parts)"
            )
    return names


def evaluate(
    p: Params,
    detail: bool,
    served: ArrayLike | None,
    block: int | None = None,
    monthly: Monthly = True,
) -> Results:
    """:func:`econ.model.evaluate` of the scenarios of ``p`` (checked), block by block, with
    only the ``monthly`` arrays kept (True: all; False: none; or their names). The same
    numbers as one call; an error in a scenario names its index among all of them."""
    from econ.model import _evaluate, choose_served

    keep = monthly_fields(monthly)
    size = per_block(p, served, block)
    n = p.n
    choose = served is None and p.a.values["capacity.basis"] != "data"
    given = None if served is None else np.asarray(served, float)
    out: _Joined | None = None
    read: set[str] = set(p.read)
    for start, stop in spans(n, size):
        q = _part(p, start, stop)
        try:
            if choose:
                s = choose_served(q)
            elif given is None:
                s = 1.0
            elif given.ndim and given.size == n and n > 1:
                s = given[start:stop]
            else:
                s = given
            r = _evaluate(q, s, detail)
        except AssumptionError as exc:
            raise _renumbered(exc, start) from None
        read |= r.inputs_read
        if out is None and keep:
            _check_names(keep, r)
        _drop(r, keep)
        if out is None:
            out = _Joined(r, n)
        out.put(r, start, stop)
        del r, q
    assert out is not None
    res = out.results()
    res.inputs_read = frozenset(read)
    return res


def _part(p: Params, start: int, stop: int) -> Params:
    from econ.model import Params

    if start == 0 and stop == p.n:
        return p
    return Params(p.a, {k: v if v.size == 1 else v[start:stop] for k, v in p.over.items()})


_INDEX = re.compile(r"(?<=scenario )(\d+)")


def _renumbered(exc: AssumptionError, start: int) -> AssumptionError:
    """The error with 'scenario j' of a block as the scenario's index among all of them."""
    if not start:
        return exc
    text = _INDEX.sub(lambda m: str(int(m.group(1)) + start), str(exc))
    new = type(exc)(text)
    new.__cause__ = exc.__cause__
    return new


def _check_names(keep: frozenset[str], r: Results) -> None:
    monthly = {k for k, (_, shape, _) in r.units().items() if shape == "(N, H)"}
    parts = {k for k, v in (r.parts or {}).items() if np.ndim(v) == 2}
    unknown = sorted(keep - monthly - parts)
    if unknown:
        raise AssumptionError(
            f"monthly: {', '.join(map(repr, unknown))} not the name of a monthly result; "
            f"expected some of {', '.join(sorted(monthly))}"
            + (", or of the parts" if parts else " (or of the parts, with detail=True)")
        )


def _drop(r: Results, keep: frozenset[str] | None) -> None:
    """Set the monthly arrays not in ``keep`` to None (parts: remove them)."""
    if keep is None:
        return
    for name, (_, shape, _) in r.units().items():
        if shape == "(N, H)" and name not in keep:
            setattr(r, name, None)
    if r.parts is not None:
        r.parts = {k: v for k, v in r.parts.items() if np.ndim(v) < 2 or k in keep}


class _Joined:
    """The results of all blocks, gathered into arrays allocated once, laid out as one call
    lays them out (monthly arrays time-major, their (N, H) transposes), read-only as its are."""

    def __init__(self, first: Results, n: int):
        self.n = n
        self.first = first
        self.arrays: dict[tuple[str, str | None], _Column] = {}
        for name, x in _arrays(first):
            self.arrays[name] = _Column(x, n)

    def put(self, r: Results, start: int, stop: int) -> None:
        got = dict(_arrays(r))
        if got.keys() != self.arrays.keys():  # pragma: no cover - the model's shapes are fixed
            raise RuntimeError("econ.blocks: two blocks returned different results")
        for name, x in got.items():
            self.arrays[name].put(x, start, stop)

    def results(self) -> Results:
        r = self.first
        done = {name: col.value() for name, col in self.arrays.items()}
        kw = {}
        for f in fields(r):
            v = getattr(r, f.name)
            if isinstance(v, dict):
                kw[f.name] = {k: done[(f.name, k)] for k in v}
            elif (f.name, None) in done:
                kw[f.name] = done[(f.name, None)]
            else:
                kw[f.name] = v
        return type(r)(**kw)


def _arrays(r: Results) -> Iterator[tuple[tuple[str, str | None], np.ndarray]]:
    """Every per-scenario array of r: ((field, key in a dict field or None), array)."""
    for f in fields(r):
        v = getattr(r, f.name)
        if f.name == "months" or v is None:
            continue
        if isinstance(v, dict):
            for k, x in v.items():
                yield (f.name, k), x
        elif isinstance(v, np.ndarray):
            yield (f.name, None), v


class _Column:
    """One result's array over all N scenarios, filled block by block. A result that no
    scenario moves (a broadcast row) stays one row while every block gives the same."""

    def __init__(self, x: np.ndarray, n: int):
        self.n = n
        self.writeable = x.flags.writeable
        self.shape = (n, *x.shape[1:])
        self.row = x[:1].copy() if x.strides[0] == 0 else None
        self.data: np.ndarray | None = None
        # one call returns the (N, H) transpose of a time-major (H, N) array
        self.time_major = x.ndim == 2 and x.strides[0] < x.strides[1]
        self.dtype = x.dtype

    def _alloc(self) -> np.ndarray:
        if self.time_major:
            return np.empty(self.shape[::-1], self.dtype).T
        return np.empty(self.shape, self.dtype)

    def put(self, x: np.ndarray, start: int, stop: int) -> None:
        if self.row is not None:
            if x.strides[0] == 0 and _same(x[:1], self.row):
                return
            # a block that differs: from now on a full array, the blocks before it filled in
            self.data = self._alloc()
            self.data[:start] = self.row
            self.row = None
        if self.data is None:
            self.data = self._alloc()
        self.data[start:stop] = x

    def value(self) -> np.ndarray:
        if self.row is not None:
            return np.broadcast_to(self.row, self.shape)  # read-only, as one call's
        assert self.data is not None
        if not self.writeable:
            self.data.flags.writeable = False
        return self.data


def _same(x: np.ndarray, y: np.ndarray) -> bool:
    """Equal to the last bit (NaN equal to NaN)."""
    return x.shape == y.shape and x.dtype == y.dtype and x.tobytes() == y.tobytes()
