"""Shared fixtures and tolerances (tight for deterministic figures, loose for sampling estimates)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import settings

import econ

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = ROOT / "data"
TINY = HERE / "data" / "tiny"
sys.path.insert(0, str(HERE))  # reference_model, soffice

# property tests draw the same examples on every run (CI must not flake)
settings.register_profile("econ", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("econ")

# the slow tests (LibreOffice's recalculation and print, the range-end sweep) run where
# ECON_SLOW=1 (CI sets it) or when -m selects them; otherwise they are deselected
RUN_SLOW = os.environ.get("ECON_SLOW") == "1"


def pytest_collection_modifyitems(config, items):
    if RUN_SLOW or config.getoption("markexpr"):
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]


TIGHT = {"rtol": 1e-9, "atol": 0.0}  # deterministic results against hand or published values
LOOSE = {"atol": 0.03}  # sampling estimates (Sobol indices and the like)


@pytest.fixture(scope="session")
def base() -> econ.Assumptions:
    """The default data as shipped."""
    return econ.load(DATA)


@pytest.fixture(scope="session")
def tiny() -> econ.Assumptions:
    return econ.load(TINY)


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    """An editable copy of the default data."""
    dest = tmp_path / "data"
    shutil.copytree(DATA, dest)
    return dest
