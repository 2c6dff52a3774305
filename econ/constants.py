"""Calendar constants of MODEL.md section 1 (conventions, not assumptions)."""

SECONDS_PER_MONTH = 2_629_800.0  # 30.4375 days
HOURS_PER_MONTH = 730.5
MONTHS_PER_YEAR = 12
