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
# Sobol: n (d + 2) model evaluations held for d keys: 2^22 of them, about 1.5 GB
MAX_SOBOL_EVALUATIONS = 2**22
# samples whose inputs are kept in memory (the API's Monte Carlo keeps them all by default):
# kept x (keys + 4 outputs) values of 8 bytes, at most 2e8 (1.6 GB)
MAX_KEPT_VALUES = 200_000_000
# the points of every grid of grids.csv together: econ.assumptions.MAX_GRID_POINTS


def sobol_size_error(n: int, keys: int) -> str | None:
    """Why a Sobol base sample ``n`` over ``keys`` keys is too large, or None."""
    evaluations = n * (keys + 2)
    if evaluations <= MAX_SOBOL_EVALUATIONS:
        return None
    most = 2 ** ((MAX_SOBOL_EVALUATIONS // (keys + 2)).bit_length() - 1)
    return (
        f"{n:,} base samples over {keys} keys take {evaluations:,} model evaluations "
        f"(n x (keys + 2)); expected at most {MAX_SOBOL_EVALUATIONS:,}: use {most:,} or fewer"
    )


def kept_size_error(kept: int, keys: int) -> str | None:
    """Why keeping ``kept`` samples' inputs over ``keys`` keys is too large, or None."""
    values = kept * (keys + 4)
    if values <= MAX_KEPT_VALUES:
        return None
    return (
        f"keeping {kept:,} samples of {keys} keys and 4 outputs holds {values:,} values; "
        f"expected at most {MAX_KEPT_VALUES:,} ({MAX_KEPT_VALUES // (keys + 4):,} samples): "
        "keep fewer"
    )
