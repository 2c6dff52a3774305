"""The ordered parallel map: item order, errors, and what it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from econ import parallel
from econ.parallel import map_ordered


def square_slowly_first(i: int) -> int:
    """Early items take longest, so the workers finish out of order."""
    total = 0
    for k in range((10 - i) * 20_000):
        total += k % 3
    return i * i


def fail_at_three(i: int) -> int:
    if i == 3:
        raise ValueError(f"item {i} is bad")
    return i


@pytest.mark.parametrize("workers", [1, 2])
def test_results_come_back_in_item_order(workers):
    assert list(map_ordered(square_slowly_first, range(10), workers)) == [i * i for i in range(10)]


def test_one_worker_is_lazy_and_in_process():
    seen = []

    def record(i):  # a closure: fine in this process
        seen.append(i)
        return i

    it = map_ordered(record, range(5), 1)
    assert next(it) == 0 and seen == [0]


@pytest.mark.parametrize("workers", [1, 2])
def test_an_error_in_an_item_is_raised_to_the_caller(workers):
    with pytest.raises(ValueError, match="item 3 is bad"):
        list(map_ordered(fail_at_three, range(8), workers))


@pytest.mark.parametrize("workers", [0, -1, 1.5, True])
def test_workers_must_be_a_whole_number_of_at_least_one(workers):
    with pytest.raises(ValueError, match="workers must be a whole number >= 1"):
        list(map_ordered(abs, range(3), workers))


def test_an_unpicklable_function_is_refused_up_front_without_fork(monkeypatch):
    monkeypatch.setattr(parallel, "start_method", lambda: "spawn")
    with pytest.raises(TypeError, match="module-level function or an instance of a module-level"):
        list(map_ordered(lambda i: i, range(3), 2))


def test_available_cores_is_at_least_one():
    assert parallel.available_cores() >= 1


def blas_threads(_item) -> list[int]:
    """The thread count of each BLAS library loaded in this process, as threadpoolctl sees it."""
    import numpy  # noqa: F401  (loads numpy's BLAS)
    from threadpoolctl import threadpool_info

    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def test_each_worker_runs_blas_on_its_share_of_the_cores():
    if not blas_threads(0):
        pytest.skip("numpy is built without a BLAS threadpoolctl knows")
    share = max(1, parallel.available_cores() // 2)
    for counts in map_ordered(blas_threads, range(2), 2):
        assert counts and set(counts) == {share}


def test_the_blas_limit_goes_through_threadpoolctl_not_proc_and_ctypes():
    """Portable: the BLAS limit goes through threadpoolctl, not /proc/self/maps and ctypes.
    (Elsewhere econ may read /proc where a fallback covers its absence: the command line's
    once-a-session note does; that is the command line's business, tested with it.)"""
    import econ

    root = Path(econ.__file__).parent
    maps = [p.name for p in root.rglob("*.py") if "/proc/self/maps" in p.read_text("utf-8")]
    assert maps == []
    source = Path(parallel.__file__).read_text(encoding="utf-8")
    assert "threadpoolctl" in source and "ctypes" not in source and "/proc/" not in source


def count_in_chunks(n: int) -> int:
    """An item of n units that reports each unit as it goes."""
    for _ in range(n):
        parallel.tick(1)
    return n


@pytest.mark.parametrize("workers", [1, 2])
def test_workers_report_progress_unit_by_unit(workers):
    seen = []
    out = list(map_ordered(count_in_chunks, [3, 4, 5], workers, progress=seen.append))
    assert out == [3, 4, 5]
    assert seen == [1] * 12  # every tick arrives, in this process, before the map ends


def never_ends(i: int) -> int:
    import time

    time.sleep(3600)
    return i


def test_an_interruption_terminates_the_running_workers_at_once():
    """A KeyboardInterrupt while the workers sleep for an hour: the map ends and no worker is
    left (none is waited for)."""
    import multiprocessing as mp
    import os
    import signal
    import threading
    import time

    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        list(map_ordered(never_ends, range(4), 2))
    deadline = time.monotonic() + 2.0
    while mp.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert mp.active_children() == []


def tick_then_wait(flag: str) -> bool:
    """Report one unit, then wait for the parent to have seen it (True) or give up (False)."""
    import time

    parallel.tick(1)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if Path(flag).exists():
            return True
        time.sleep(0.02)
    return False


def test_a_worker_s_progress_reaches_the_parent_while_its_task_still_runs(tmp_path):
    """Progress moves within a task, not when the task ends: each worker waits, mid-task, for
    the parent to have received its tick."""
    flag = tmp_path / "seen"
    seen = []

    def progress(units: int) -> None:
        seen.append(units)
        flag.touch()

    assert list(map_ordered(tick_then_wait, [str(flag)] * 2, 2, progress=progress)) == [True] * 2
    assert seen == [1, 1]
