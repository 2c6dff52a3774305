"""Sensitivity analyses of the model; the functions below are the Python API's (econ.api),
returning pandas DataFrames with units, and the engine is in the submodules (run, sampling,
oneway, grid, montecarlo, sobol, voi, breakeven)."""

from econ.api import MonteCarlo, breakeven_table, grids, monte_carlo, sobol_indices, tornado

__all__ = ["MonteCarlo", "breakeven_table", "grids", "monte_carlo", "sobol_indices", "tornado"]
