"""Readable labels for the dotted keys and table columns (what the workbook shows beside a key)."""

from __future__ import annotations

SCALAR_LABELS = {
    "contract.value_usd": "Contract value",
    "contract.mw": "Contracted capacity (facility MW)",
    "contract.term_months": "Contract term",
    "contract.ramp_months": "Months for the capacity to come online",
    "contract.pay_as_delivered": "Rent follows the MW online (1) or is flat (0)",
    "contract.platform": "Contract platform",
    "capacity.basis": "Curve that feeds the money: data or physics",
    "horizon.months": "Horizon",
    "finance.discount_rate_annual": "Discount rate",
    "finance.variable_cost_share": "Variable costs (fees, support) on revenue",
    "finance.terminal_value": "Include the Pro tail after the horizon (1) or not (0)",
    "market.mau": "Monthly active users",
    "market.mau_growth_monthly": "Growth of monthly active users",
    "market.plus_share_of_mau": "Plus subscribers as a share of users",
    "market.pro_subscribers_start": "Pro subscribers at the start",
    "usage.demand_sigma": "Spread of weekly demand (lognormal sigma)",
    "usage.speed_elasticity": "Demand elasticity to speed",
    "usage.token_efficiency_gain_annual": "Token efficiency gain a year",
    "usage.peak_to_average": "Peak-hour streams over the average",
    "conversion.plus_to_pro_base_monthly": "Plus to Pro upgrades, organic",
    "conversion.capped_upgrade_propensity": "Extra upgrades of users who hit the cap",
    "conversion.pro_churn_monthly": "Pro churn",
    "conversion.extra_churn_after_term_monthly": "Extra churn of the incremental Pro after the term",
    "api.ultrafast_tokens_per_month": "Ultrafast API demand at the reference price",
    "api.reference_price_per_mtok_usd": "Price at which that demand was guessed",
    "api.price_elasticity": "API price elasticity",
    "api.standard_price_per_mtok_usd": "Standard API price",
    "api.cannibalised_share": "Ultrafast API tokens that would have run at the standard rate",
    "api.ramp_months": "Months for API demand to build up",
    "capacity.backfill_tokens_per_month": "Standard traffic offered to the spare capacity",
    "capacity.gpu_cost_per_mtok_usd": "GPU cost of a standard output token",
    "capacity.average_utilization": "Utilisation for cost per token (capacity table)",
    "agent.calls": "Agent: sequential calls",
    "agent.output_tokens_per_call": "Agent: output tokens a call",
    "agent.ttft_s": "Agent: time to first token",
    "agent.p99_multiplier": "Agent: P99 over the median",
    "facility.pue": "Power usage effectiveness",
    "buy.facility_capex_usd_per_mw": "Facility capex a MW",
    "buy.power_price_usd_per_kwh": "Power price",
    "buy.maintenance_share_annual": "Maintenance a year, share of system price",
    "buy.resale_share": "Resale value of undepreciated hardware",
    "buy.facility_life_years": "Facility life",
    "model.params": "Model parameters",
    "model.bytes_per_param": "Bytes a parameter (2 = 16-bit, 1 = FP8)",
    "model.active_param_share": "Share of weights read a step (MoE)",
    "model.kv_bytes_per_token": "KV cache a token of context",
    "model.context_tokens": "Context held a stream",
    "model.speculative_speedup": "Speculative decoding speed-up",
    "model.layers": "Layers",
    "model.d_model": "Model width (activation bytes a hop / bytes)",
    "model.prefill_tokens_per_output": "Prefill tokens an output token",
}

COLUMN_LABELS = {
    "price_usd_month": "Price",
    "weekly_quota_tokens": "Weekly quota",
    "median_weekly_tokens": "Median weekly use",
    "tokens_per_s": "Speed",
    "usage_multiplier": "Quota units a token",
    "adoption": "Adoption",
    "price_per_mtok_usd": "API price",
    "memory_gb": "Memory",
    "bandwidth_tb_s": "Bandwidth",
    "tflops": "Dense 16-bit compute",
    "power_kw": "Power (IT)",
    "domain_chips": "Chips a stage",
    "hop_latency_us": "Hop latency",
    "layer_latency_us": "Per-layer latency",
    "link_gb_s": "Link bandwidth",
    "efficiency": "Efficiency",
    "frontier_scale": "Curve scale",
    "price_usd": "Price",
    "life_years": "Life",
    "rent_usd_per_hour": "Rent an hour",
    "platform": "Platform",
    "tokens_per_s_per_user": "Speed a user",
    "tokens_per_s_per_mw": "Throughput a MW",
    "model_params": "Measured on: parameters",
    "model_active_share": "Measured on: active share",
    "model_bytes_per_param": "Measured on: bytes a parameter",
}


def label(key: str) -> str:
    """A readable label of a dotted key."""
    if key in SCALAR_LABELS:
        return SCALAR_LABELS[key]
    parts = key.split(".")
    if len(parts) == 3:
        return f"{parts[1]}: {COLUMN_LABELS.get(parts[2], parts[2])}"
    return key
