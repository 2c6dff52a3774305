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

Each worker limits the threads of the BLAS libraries loaded in it (numpy's and scipy's,
through threadpoolctl, on every platform) to its share of the cores: a matrix product
inside ``fn`` would otherwise start a thread per core in every worker and the workers
would contend for the same cores.

Progress: ``fn`` may call :func:`tick` as it goes (after each chunk of a task, say); the
units reach the ``progress`` callback of :func:`map_ordered` in this process, from a worker
through a queue read by a thread, so a bar moves within one chunk whatever the number of
workers.

Interruption: workers ignore SIGINT (a Ctrl-C on the terminal reaches the whole process
group; this process alone decides) and take SIGTERM's default action. When the caller stops
early, or an exception (a KeyboardInterrupt included) leaves :func:`map_ordered`, the
workers still running are terminated, not waited for; :func:`stop_all` does the same for
every pool of this process (the command line calls it on SIGINT and SIGTERM).

The results do not depend on ``workers``: each item is evaluated by the same
function on the same data, and the results come back in item order. Anything
a caller accumulates from them in that order is therefore the same for any
worker count.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import signal
import sys
import threading
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sized
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

# how long terminated workers get before they are killed, and killed ones before giving up [s]
STOP_WAIT_S = 0.5

_FN: Callable | None = None  # the function of this worker process, set by _install
_QUEUE = None  # in a worker: where tick() sends its units
_SINK: Callable[[int], None] | None = None  # in this process: where tick() sends its units
_LIMITS = None  # in a worker: threadpoolctl's limits, kept for the worker's life
_POOLS: weakref.WeakSet = weakref.WeakSet()  # the pools running in this process


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


def limit_blas_threads(threads: int):
    """Limit the BLAS libraries loaded in this process (OpenBLAS, MKL, BLIS, ...) to
    ``threads`` threads each, through threadpoolctl. Returns threadpoolctl's limiter (its
    ``restore_original_limits()`` undoes it); where none is loaded nothing changes."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=threads, user_api="blas")


def tick(units: int = 1) -> None:
    """Report ``units`` of work done to the progress callback of the :func:`map_ordered`
    running this function (nothing happens where there is none)."""
    if _QUEUE is not None:
        _QUEUE.put(units)
    elif _SINK is not None:
        _SINK(units)


@contextmanager
def _sink(progress: Callable[[int], None] | None) -> Iterator[None]:
    """tick() in this process goes to ``progress`` inside the block."""
    global _SINK
    before, _SINK = _SINK, progress
    try:
        yield
    finally:
        _SINK = before


def _install(fn: Callable, blas_threads: int, queue) -> None:
    global _FN, _QUEUE, _LIMITS
    # the parent decides about interruptions: a terminal's Ctrl-C reaches the whole process
    # group, and a handler inherited through fork must not outlive it here
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _FN, _QUEUE = fn, queue
    _LIMITS = limit_blas_threads(blas_threads)


def _call(item):
    return _FN(item)


def _listen(queue, progress: Callable[[int], None], stop: threading.Event) -> None:
    """Hand the units the workers report to ``progress``; return once ``stop`` is set and the
    queue is empty (polled, so that a worker terminated mid-task cannot block this thread)."""
    while True:
        try:
            if queue.empty():
                if stop.is_set():
                    return
                stop.wait(0.05)
                continue
            units = queue.get()
        except (EOFError, OSError):
            return
        try:
            progress(units)
        except Exception:  # a display that fails must not stop the work
            pass


def _stop(pool: ProcessPoolExecutor) -> None:
    """Terminate the pool's workers now (SIGTERM, then SIGKILL), without waiting for tasks."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for p in procs:
        try:
            p.terminate()
        except (OSError, ValueError, AttributeError):
            pass
    for p in procs:
        p.join(STOP_WAIT_S)
    for p in procs:
        if p.is_alive():
            try:
                p.kill()
            except (OSError, ValueError, AttributeError):
                pass
            p.join(STOP_WAIT_S)
    pool.shutdown(wait=False, cancel_futures=True)


def stop_all() -> None:
    """Terminate the workers of every pool of this process (on an interruption)."""
    for pool in list(_POOLS):
        _stop(pool)


def map_ordered(
    fn: Callable[[T], R],
    items: Iterable[T],
    workers: int = 1,
    ahead: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> Iterator[R]:
    """Yield ``fn(item)`` for each item, in item order, evaluated by ``workers`` processes.

    Parameters
    ----------
    fn : the function of one item; see the module docstring for when it must be picklable.
    items : the work, consumed lazily (at most ``ahead`` items are in flight).
    workers : 1 evaluates in this process; more start that many worker processes.
    ahead : items submitted beyond the one being waited for (default ``2 * workers``);
        it bounds the results held in memory while an earlier item is still running.
    progress : called in this process with the units each :func:`tick` of ``fn`` reports
        (from a thread of this process where there are workers).

    An exception raised by ``fn`` is raised here, at the item that raised it;
    the items not yet started are then cancelled. Stopping the iteration early, or any
    exception here, terminates the workers still running.
    """
    check_workers(workers)
    if isinstance(items, Sized):  # never more processes than items
        workers = min(workers, max(1, len(items)))
    if workers == 1:
        for item in items:
            with _sink(progress):
                result = fn(item)
            yield result
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
    ctx = mp.get_context(method)
    queue = ctx.SimpleQueue() if progress is not None else None
    listener, stop = None, threading.Event()
    if queue is not None:
        listener = threading.Thread(target=_listen, args=(queue, progress, stop), daemon=True)
        listener.start()
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=ctx,
        initializer=_install,
        initargs=(fn, max(1, available_cores() // workers), queue),
    )
    _POOLS.add(pool)
    finished = False
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
        finished = True
    finally:
        if finished:
            pool.shutdown(wait=True)
        else:  # an error, an interruption or an early stop: the running tasks are not needed
            _stop(pool)
        _POOLS.discard(pool)
        if listener is not None:
            stop.set()  # after every tick of a finished map: its workers have exited
            listener.join(None if finished else 1.0)
