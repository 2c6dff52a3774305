"""Calendar and unit constants of docs/model.md section 1 (conventions, not assumptions)."""

SECONDS_PER_MONTH = 2_629_800.0  # 30.4375 days
SECONDS_PER_WEEK = 604_800.0
HOURS_PER_MONTH = 730.5
MONTHS_PER_YEAR = 12
TOKENS_PER_MILLION = 1e6
KW_PER_MW = 1000.0
