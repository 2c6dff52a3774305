"""An ordered map over worker processes, for commands that evaluate independent chunks.

``map_ordered(fn, items, workers)`` yields ``fn(item)`` for every item, in the
order of ``items``, whatever order the workers finish in. With ``workers == 1``
it runs in this process, lazily, with no pickling at all. With more, the items
go to a :class:`concurrent.futures.ProcessPoolExecutor`; ``fn`` is handed to each
worker once (as its initializer argument), not with every item.

What goes to a worker:

- under the ``fork`` start method (used on POSIX with Python < 3.12), ``fn`` is
  inherited by the forked workers and need not be picklable; every item and
  every result is pickled;
- elsewhere (``forkserver``, ``spawn``: Python >= 3.12 warns that ``fork`` in a
  multi-threaded process may deadlock, and numpy's BLAS runs threads), ``fn``
  is pickled as well: make it a module-level function or an instance of a
  module-level class (not a lambda or a closure). This is checked up front.

Each worker limits the threads of the OpenBLAS libraries loaded in it (numpy's
and scipy's, found by name in ``/proc/self/maps`` on Linux) to its share of the
cores: a matrix product inside ``fn`` would otherwise start a thread per core in
every worker and the workers would contend for the same cores.

The results do not depend on ``workers``: each item is evaluated by the same
function on the same data, and the results come back in item order. Anything
a caller accumulates from them in that order is therefore the same for any
worker count.
"""

from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import pickle
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sized
from concurrent.futures import Future, ProcessPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

_FN: Callable | None = None  # the function of this worker process, set by _install


def available_cores() -> int:
    """The number of cores this process may run on (its CPU affinity where the OS tells it)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not every OS has sched_getaffinity
        return max(1, os.cpu_count() or 1)


def start_method() -> str:
    """``fork`` on POSIX before Python 3.12, else ``forkserver`` where available, else ``spawn``."""
    methods = mp.get_all_start_methods()
    if "fork" in methods and sys.version_info < (3, 12):
        return "fork"
    return "forkserver" if "forkserver" in methods else "spawn"


def check_workers(workers: int) -> int:
    """``workers`` as an int >= 1, or a ValueError that says what was expected."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a whole number >= 1, got {workers!r}")
    return workers


_SET_THREADS = (
    "openblas_set_num_threads",
    "openblas_set_num_threads64_",
    "scipy_openblas_set_num_threads64_",
    "scipy_openblas_set_num_threads",
)


def limit_blas_threads(threads: int) -> int:
    """Set the thread count of every OpenBLAS library loaded in this process.

    Linux only (the libraries are found in ``/proc/self/maps``); elsewhere, or where
    none is loaded, nothing happens. Returns the number of libraries set.
    """
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
            paths = {
                f[-1]
                for f in (line.split() for line in fh)
                if len(f) >= 6 and "openblas" in os.path.basename(f[-1]).lower()
            }
    except OSError:
        return 0
    done = 0
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in _SET_THREADS:
            setter = getattr(lib, name, None)
            if setter is not None:
                setter(ctypes.c_int(threads))
                done += 1
                break
    return done


def _install(fn: Callable, blas_threads: int) -> None:
    global _FN
    _FN = fn
    limit_blas_threads(blas_threads)


def _call(item):
    return _FN(item)


def map_ordered(
    fn: Callable[[T], R],
    items: Iterable[T],
    workers: int = 1,
    ahead: int | None = None,
) -> Iterator[R]:
    """Yield ``fn(item)`` for each item, in item order, evaluated by ``workers`` processes.

    Parameters
    ----------
    fn : the function of one item; see the module docstring for when it must be picklable.
    items : the work, consumed lazily (at most ``ahead`` items are in flight).
    workers : 1 evaluates in this process; more start that many worker processes.
    ahead : items submitted beyond the one being waited for (default ``2 * workers``);
        it bounds the results held in memory while an earlier item is still running.

    An exception raised by ``fn`` is raised here, at the item that raised it;
    the items not yet started are then cancelled. Stopping the iteration early
    also cancels them.
    """
    check_workers(workers)
    if isinstance(items, Sized):  # never more processes than items
        workers = min(workers, max(1, len(items)))
    if workers == 1:
        for item in items:
            yield fn(item)
        return
    method = start_method()
    if method != "fork":
        try:
            pickle.dumps(fn)
        except Exception as exc:
            raise TypeError(
                f"{fn!r} cannot be sent to worker processes ({exc}); pass a module-level "
                "function or an instance of a module-level class, or use workers=1"
            ) from None
    ahead = 2 * workers if ahead is None else max(1, ahead)
    it = iter(items)
    pending: deque[Future] = deque()
    with ProcessPoolExecutor(
        max_workers=workers,
        mp_context=mp.get_context(method),
        initializer=_install,
        initargs=(fn, max(1, available_cores() // workers)),
    ) as pool:
        try:
            for item in it:
                pending.append(pool.submit(_call, item))
                if len(pending) > ahead:
                    break
            while pending:
                result = pending.popleft().result()
                for item in it:  # keep the workers busy while the caller uses this result
                    pending.append(pool.submit(_call, item))
                    break
                yield result
        finally:
            for fut in pending:
                fut.cancel()
