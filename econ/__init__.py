"""econ: does renting ultra-fast inference capacity pay for itself, how fast, and under which assumptions?"""

from importlib.metadata import PackageNotFoundError as _NotInstalled
from importlib.metadata import version as _version

try:
    __version__ = _version("econ")
except _NotInstalled:  # running from a source tree that is not installed
    __version__ = "0+unknown"

from econ import api, sensitivity
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

# econ.sensitivity's API functions are econ.api's (the package does not import the API)
for _name in ("MonteCarlo", "breakeven_table", "grids", "monte_carlo", "sobol_indices", "tornado"):
    setattr(sensitivity, _name, getattr(api, _name))
sensitivity.__all__ = [
    "MonteCarlo",
    "breakeven_table",
    "grids",
    "monte_carlo",
    "sobol_indices",
    "tornado",
]
del _name

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
