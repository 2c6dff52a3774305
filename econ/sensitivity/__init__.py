"""Sensitivity analyses of the model: the engine is in the submodules (run, sampling, oneway,
grid, montecarlo, sobol, voi, breakeven). The Python API's functions that return pandas
DataFrames with units (econ.sensitivity.monte_carlo, tornado, grids, sobol_indices,
breakeven_table and MonteCarlo) are econ.api's, attached here by the package econ itself, so
that this lower layer never imports the API above it."""
