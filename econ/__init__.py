"""econ: does renting ultra-fast inference capacity pay for itself, how fast, and under which assumptions?"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("econ")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"

from econ.assumptions import AssumptionError, Assumptions, load

__all__ = ["AssumptionError", "Assumptions", "load", "__version__"]
