"""Calendar and unit constants of docs/model.md section 1 (conventions, not assumptions)."""

SECONDS_PER_MONTH = 2_629_800.0  # 30.4375 days
SECONDS_PER_WEEK = 604_800.0
HOURS_PER_MONTH = 730.5
MONTHS_PER_YEAR = 12
TOKENS_PER_MILLION = 1e6
KW_PER_MW = 1000.0

# Relative tolerance of the checks that compare computed amounts (the workbook's integrity and
# match checks, "the API was turned away" in the headline): far above rounding, far below any
# amount that matters.
CHECK_RTOL = 1e-9

# An annual IRR above this (1,000 % a year) is reported as "above" it, not as a figure: such a
# root comes from outflows that are tiny against the inflows after them, and means nothing
# as a rate of return (docs/model.md, section 6).
IRR_MEANINGFUL_MAX = 10.0

# The fleet-plan grid (docs/model.md, section V4.3): the lab's own plan, which no public figure
# pins, as two scenario axes: fleet.avoidable_share x capacity.movable_share.
AVOIDABLE_GRID = (0.1, 0.3, 0.5, 0.7, 1.0)
MOVABLE_GRID = (0.1, 0.3, 0.5, 0.7, 0.9)
PLAN_KEYS = ("fleet.avoidable_share", "capacity.movable_share")
