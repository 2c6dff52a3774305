"""The bounds of the analyses' sizes, shared by the command line and the Python API
(README, "Commands"): a request beyond them is refused up front, naming the option or
argument, rather than run for hours or out of memory."""

# Monte Carlo: 3 outputs x 8 bytes kept a sample; about 0.7 GB peak, 2 minutes, at the maximum
MAX_SAMPLES = 10_000_000
# Sobol base n: n (d + 2) model evaluations held; about 1.4 GB peak, 16 s, at the maximum
MAX_SOBOL_SAMPLES = 65_536
MAX_SEED = 2**32 - 1
MAX_WORKERS = 256
MIN_POINTS, MAX_POINTS = 2, 101  # grid points per axis, as in grids.csv
