"""econ: does renting ultra-fast inference capacity pay for itself, how fast, and under which assumptions?"""

from importlib.metadata import PackageNotFoundError as _NotInstalled
from importlib.metadata import version as _version

try:
    __version__ = _version("econ")
except _NotInstalled:  # running from a source tree that is not installed
    __version__ = "0+unknown"

from econ import sensitivity
from econ.api import (
    Evaluation,
    MonteCarlo,
    calibration,
    capacity_table,
    evaluate,
    formatted,
    frontier_audit,
    goal_seek,
    load,
    rent_vs_buy,
    style,
)
from econ.assumptions import AssumptionError, Assumptions

__all__ = [
    "AssumptionError",
    "Assumptions",
    "Evaluation",
    "MonteCarlo",
    "__version__",
    "calibration",
    "capacity_table",
    "evaluate",
    "formatted",
    "frontier_audit",
    "goal_seek",
    "load",
    "rent_vs_buy",
    "sensitivity",
    "style",
]
