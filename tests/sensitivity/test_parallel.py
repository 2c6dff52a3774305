"""The ordered parallel map: item order, errors, and what it refuses."""

from __future__ import annotations

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
    """The thread count of each OpenBLAS loaded in this process (Linux)."""
    import ctypes
    import os

    import numpy  # noqa: F401  (loads numpy's OpenBLAS)

    counts = []
    with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
        paths = {
            f[-1]
            for f in (ln.split() for ln in fh)
            if len(f) >= 6 and "openblas" in os.path.basename(f[-1]).lower()
        }
    for path in sorted(paths):
        lib = ctypes.CDLL(path)
        for name in (
            "openblas_get_num_threads",
            "scipy_openblas_get_num_threads64_",
            "scipy_openblas_get_num_threads",
        ):
            getter = getattr(lib, name, None)
            if getter is not None:
                counts.append(getter())
                break
    return counts


def test_each_worker_runs_openblas_on_its_share_of_the_cores():
    import os

    if not os.path.exists("/proc/self/maps") or not blas_threads(0):
        pytest.skip("needs Linux and numpy built with OpenBLAS")
    share = max(1, parallel.available_cores() // 2)
    for counts in map_ordered(blas_threads, range(2), 2):
        assert counts and set(counts) == {share}
