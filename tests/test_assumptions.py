"""Loading and validating the assumption CSVs (issue: the spine)."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

import econ
from econ.assumptions import AssumptionError, load


def rewrite(path: Path, old: str | tuple[str, str], new: str) -> None:
    """Replace text in a data file; ``old`` = (row id, column) sets that cell to ``new``."""
    if isinstance(old, tuple):
        set_cell(path, *old, new)
        return
    text = path.read_text(encoding="utf-8")
    assert old in text, f"fixture text {old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def set_cell(path: Path, row_id: str, column: str, value: str) -> None:
    """Set one cell of a data file (the row whose first cell is ``row_id``), as a user would."""
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    j = rows[0].index(column)
    hits = [r for r in rows[1:] if r and r[0] == row_id]
    assert len(hits) == 1, f"row {row_id!r} not in {path.name}"
    hits[0][j] = value
    with path.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


# the launches of OpenAI's top flagship in 2026 (docs/sources.md, section 4: GPT-5.4, GPT-5.5,
# GPT-5.6, GPT-6 Astra, GPT-6.2), which set model.succession_months
FLAGSHIP_LAUNCHES = ("2026-03-05", "2026-04-23", "2026-06-26", "2026-09-03", "2026-11-17")
DAYS_PER_MONTH = 365.25 / 12


def test_default_data_loads_with_every_specified_key(base):
    """The defaults the contract fixes, each as its source states it: the articles' worked
    case (S), the public figures the data cite, worked from the cited text, and the defaults
    docs/model.md sets for the lab's own plan. Guesses are not pinned here (their value is the
    data's own; the sensitivity ranges carry them)."""
    import datetime as dt

    # S: the articles ("GPT-5.6 Inference at 18x Speed"; "Trust Is a Variable I No Longer
    # Solve For"; "What GPT-5.6 Sol's 750 Tokens/Second Inference Speed Really Means")
    articles = {
        "contract.value_usd": 10e9,  # "a $10 billion agreement with Cerebras"
        "contract.mw": 750,  # "rent 750 megawatts"
        "contract.term_months": 30,  # "roughly 30 months"
        "market.mau": 1e9,  # "its 1 billion monthly active users"
        "plans.pro.price_usd_month": 200,  # "$200/month Pro memberships"
        "plans.pro.price_ref_usd_month": 200,
        "tiers.standard.tokens_per_s": 54,  # Standard mode "approximately 54 tokens per second"
        "tiers.ultrafast.tokens_per_s": 750,  # "up to 750 output tokens per second"
        "tiers.fast.tokens_per_s": 134,  # Ultrafast "5.6x faster than Fast mode": 750 / 5.6
        "model.params": 2e12,  # "at least 2 trillion"
        "model.bytes_per_param": 1,  # "even with FP8 quantization, the weights ... 2TB"
        "model.speculative_speedup": 2,  # "2-3x effective speedup", the low end
        "frontier.wse3_750.tokens_per_s_per_mw": 450_000,  # "assume the same 450,000 tokens/s"
        "frontier.b300_340.tokens_per_s_per_mw": 450_000,  # 1 MW of B300 at 340 tokens/s
        "agent.calls": 10,  # "an agent that makes 10 sequential calls"
        "agent.output_tokens_per_call": 100,  # "a single response of 100 tokens"
        "agent.p99_multiplier": 2.5,  # P99 "typically 2-3x higher"
    }
    assert round(750 / 5.6) == 134 and round(750 / 14) == 54  # the tiers' ratios
    # P: public figures, each worked from the text the data cite (docs/sources.md)
    public = {
        # "What is ChatGPT Plus?": "for $20/month"; the 100 USD Pro tier of 9 April 2026
        "plans.plus.price_usd_month": 20,
        "plans.plus.price_ref_usd_month": 20,
        "plans.pro_lower.price_usd_month": 100,
        # OpenAI's CFO: free users about 7 queries a day, Plus three times, Pro eleven times
        "free.queries_per_day": 7,
        "plans.plus.queries_per_day": 3 * 7,
        "plans.pro.queries_per_day": 11 * 7,
        # 3,000 Thinking messages a week on Plus; Pro 200 and Pro 100 weigh 20 and 10 Plus
        # allowances
        "plans.plus.weekly_quota_queries": 3_000,
        "plans.pro.weekly_quota_queries": 20 * 3_000,
        "plans.pro_lower.weekly_quota_queries": 10 * 3_000,
        # GPT-5.6 Sol lists 30 USD per 1M output tokens; Fast mode 2x the standard rate (60) at
        # "up to 2.5x faster speeds" and 2.5x the credits in Codex
        "tiers.standard.price_per_mtok_usd": 30,
        "tiers.fast.price_per_mtok_usd": 2 * 30,
        "tiers.fast.usage_multiplier": 2.5,
        # Ultrafast "billed at 6x the standard per-token rate" (published for GPT-6 Astra and
        # applied to GPT-5.6 Sol's 30 USD)
        "tiers.ultrafast.price_per_mtok_usd": 6 * 30,
        "api.reference_price_per_mtok_usd": 6 * 30,
        # a compute margin of about 70 % (The Information, December 2025)
        "finance.api_gross_margin": 0.7,
        # SemiAnalysis' AI Cloud TCO Model: a GB300 GPU-hour on a 3-year rental, 3.96 USD
        "hardware.b300.rent_usd_per_hour": 3.96,
        # DeepSeek assumed 2 USD an H800 GPU-hour (the H800 stands for the H100)
        "hardware.h100.rent_usd_per_hour": 2.0,
        # vendor figures: GB300 288 GB, 8 TB/s, NVL72; dense BF16 / FP8 / FP4 TFLOPS 2,500 /
        # 5,000 / 15,000 (InferenceX gpu-specs); WSE-3 44 GB SRAM, 21 PB/s, 125 PFLOPS, a CS-3
        # about 23 kW, one wafer a stage; H100 SXM 80 GB, 3.35 TB/s, 989 / 1,979 TFLOPS, HGX 8
        "hardware.b300.memory_gb": 288,
        "hardware.b300.bandwidth_tb_s": 8,
        "hardware.b300.domain_chips": 72,
        "hardware.b300.tflops": 2_500,
        "hardware.b300.tflops_fp8": 5_000,
        "hardware.b300.tflops_fp4": 15_000,
        "hardware.wse3.memory_gb": 44,
        "hardware.wse3.bandwidth_tb_s": 21_000,
        "hardware.wse3.tflops": 125_000,
        "hardware.wse3.power_kw": 23,
        "hardware.wse3.domain_chips": 1,
        "hardware.h100.memory_gb": 80,
        "hardware.h100.bandwidth_tb_s": 3.35,
        "hardware.h100.tflops": 989,
        "hardware.h100.tflops_fp8": 1_979,
        "hardware.h100.domain_chips": 8,
        # DeepSeek-V3/R1: 671B parameters, 37B active, 61 layers, hidden size 7,168; "the
        # average kvcache length per output token was 4,989 tokens"
        "models.deepseek_v3_fp8.params": 671e9,
        "models.deepseek_v3_fp8.layers": 61,
        "models.deepseek_v3_fp8.d_model": 7_168,
        "models.deepseek_v3_fp8.context_tokens": 4_989,
    }
    for key, value in {**articles, **public}.items():
        assert base[key] == value, key
    # figures derived from the cited text, to the precision the data round them
    worked = {
        # the Sol tier's output price from 30 to 10 USD within 2026
        "market.price_decline_per_year": (1 - 10 / 30, 5e-4),
        # EIA: the 2025 mean US industrial price, 8.61 cents/kWh
        "buy.power_price_usd_per_kwh": (0.0861, 5e-4),
        # Cushman & Wakefield: 11.7 million USD per MW of critical load, per facility MW at
        # PUE 1.2
        "buy.facility_capex_usd_per_mw": (11.7e6 / 1.2, 1.0),
        # DeepSeek: (608B input - 342B cache hits) / 168B output uncached prompt tokens
        "model.prefill_tokens_per_output": ((608 - 342) / 168, 5e-3),
        "models.deepseek_v3_fp8.active_share": (37 / 671, 1e-4),
        # the mean gap between the 2026 flagship launches, in months of 365.25 / 12 days
        "model.succession_months": (
            (
                dt.date.fromisoformat(FLAGSHIP_LAUNCHES[-1])
                - dt.date.fromisoformat(FLAGSHIP_LAUNCHES[0])
            ).days
            / (len(FLAGSHIP_LAUNCHES) - 1)
            / DAYS_PER_MONTH,
            0.05,
        ),
    }
    for key, (value, tol) in worked.items():
        assert base[key] == pytest.approx(value, abs=tol), key
    # InferenceX GB300 NVL72, DeepSeek-R1 FP4 at 1k/1k: 11,951 and 4,793 total tokens/s per GPU
    # at 71 and 128 tokens/s per user, output half of it, times 1,000 / (1.9 kW x PUE 1.2) GPUs
    # per facility MW; DeepSeek's day: 168B output tokens on 226.75 nodes of 8 GPUs, times
    # 1,000 / (1.3 x 1.2) GPUs per MW
    gpus_b300, gpus_h100 = 1000 / (1.9 * 1.2), 1000 / (1.3 * 1.2)
    for fid, want in (
        ("b300_71", 11_951 / 2 * gpus_b300),
        ("b300_128", 4_793 / 2 * gpus_b300),
        ("h100_20", 168e9 / 86_400 / (226.75 * 8) * gpus_h100),
    ):
        assert base[f"frontier.{fid}.tokens_per_s_per_mw"] == pytest.approx(want, rel=1e-3), fid
    (day,) = [x for x in base.anchors if x.id == "deepseek_disclosed"]
    assert day.output_tokens_per_day == 168e9 and day.usd_per_gpu_hour == 2
    assert day.gpu_hours_per_day == 226.75 * 8 * 24  # 43,536 H800-hours

    # docs/model.md's own defaults: the articles' case and the lab's plan where no public figure
    # pins it (sections 2, 0.1-0.5, V4.2-V4.7)
    contract = {
        "contract.ramp_months": 24,
        "contract.delivered_share": 1,  # the articles assume every contracted MW arrives
        "horizon.months": 60,
        "finance.discount_rate_annual": 0.10,
        "finance.variable_cost_share": 0.10,
        "finance.terminal_value": 1,
        "api.diversion_to_lab_tiers": 0.5,
        "api.speed_nest_lambda": 1,  # the plain logit
        "api.price_elasticity": 1.0,
        "api.ramp_months": 12,
        "market.pro_growth_monthly": 0,
        "conversion.max_capped_propensity": 0.05,
        "hardware.wse3.frontier_scale": 1,
        "hardware.b300.frontier_scale": 1,
        "capacity.movable_share": 0.5,  # V4.2
        "capacity.internal_batch_tokens_per_month": 0,
        "fleet.avoidable_share": 0.5,  # V4.3
        "fleet.sublet_usd_per_gpu_hour": 0,
        "free.served": 0,
        "conversion.voluntary_cap_hit_weight": 0.5,  # V4.7
        "usage.ultrafast_query_share": 0.5,
    }
    for key, value in contract.items():
        assert base[key] == value, key
    assert base["contract.platform"] == "wse3" and base["capacity.basis"] == "transferred"
    assert base["contract.payment"] == "pay_as_delivered"  # the articles' default (V4.5)
    assert base["fleet.troughs"] == "filled"  # a constrained lab fills its troughs (V4.3)
    assert base["capacity.gpu_platform"] == "b300" and base["capacity.subscriber_offer"] == "auto"
    assert base["frontier.wse3_750.platform"] == "wse3"
    # blank = derived from the GPU platform; blank tranches = the linear ramp
    for key in ("capacity.gpu_cost_per_mtok_usd", "contract.tranche_mw", "contract.tranche_months"):
        assert key not in base, key


def test_every_row_has_a_source_and_guesses_say_so(base):
    for key, e in base.entries.items():
        assert e.source, key
    guessed = [k for k, e in base.entries.items() if "Guesstimate" in e.source]
    for key in (
        "conversion.capped_share_of_upgrades",
        "api.diversion_to_lab_tiers",
        "capacity.gpu_fleet_utilization",
        "usage.demand_sigma",
    ):
        assert key in guessed, key


def test_wse3_sensitivity_range_reaches_the_chip_count_estimate(base):
    # the whole curve scales: the chip-count estimate (~91 CS-3 per 2T replica) gives about
    # 45,000 tokens/s per MW at 750 tokens/s, a tenth of the articles' 450,000
    row = next(s for s in base.sensitivity if s.key == "hardware.wse3.frontier_scale")
    assert 450_000 * row.low <= 45_000
    assert base.with_scenario("low_throughput")["hardware.wse3.frontier_scale"] >= row.low


def test_every_guesstimate_that_moves_npv_has_a_sensitivity_range(base):
    ranged = {s.key for s in base.sensitivity}
    for key in (
        "contract.ramp_months",
        "usage.demand_sigma",
        "usage.speed_elasticity",
        "conversion.pro_churn_monthly",
        "tiers.ultrafast.usage_multiplier",
        "api.ultrafast_tokens_per_month",
        "market.plus_share_of_mau",
    ):
        assert key in ranged


def test_every_platform_frontier_covers_the_speeds_it_serves(base):
    for p in base.platforms():
        speeds = [base[f"frontier.{i}.tokens_per_s_per_user"] for i in base.frontier_ids(p)]
        assert len(speeds) >= 3, p
    wse = [base[f"frontier.{i}.tokens_per_s_per_user"] for i in base.frontier_ids("wse3")]
    assert min(wse) <= 54 and max(wse) >= 750


@pytest.mark.parametrize(
    ("file", "old", "new", "message"),
    [
        (
            "plans.csv",
            "pro,200,",
            "pro,abc,",
            r'plans\.csv row 3 \(pro\), column price_usd_month: "abc" is not a number',
        ),
        (
            "plans.csv",
            "pro,200,",
            "pro,-5,",
            r"plans\.csv row 3 \(pro\), column price_usd_month: -5 is out of range; expected a number in \(0, 100000\]",
        ),
        (
            "assumptions.csv",
            "market.plus_share_of_mau,0.03",
            "market.plus_share_of_mau,1.7",
            r"assumptions\.csv row \d+ \(market\.plus_share_of_mau\), column value: 1\.7 is out of range; expected a number in \[0, 1\]",
        ),
        (
            "assumptions.csv",
            "contract.term_months,30",
            "contract.term_months,0",
            r"contract\.term_months\), column value: 0 is out of range; expected a whole number in \[1, 120\]",
        ),
        (
            "assumptions.csv",
            "contract.term_months,30",
            "contract.term_months,30.5",
            r"expected a whole number in \[1, 120\]",
        ),
        (
            "assumptions.csv",
            "contract.mw,750,MW",
            "contract.mw,750,kW",
            r'contract\.mw\), column unit: "kW"; expected "MW"',
        ),
        (
            "assumptions.csv",
            "contract.mw,750",
            "contract.mwx,750",
            r"unknown key 'contract\.mwx'; did you mean contract\.mw",
        ),
        (
            "hardware.csv",
            "h100,80",
            "b300,80",
            r"hardware\.csv row 4, column id: 'b300' appears twice",
        ),
        (
            "assumptions.csv",
            "contract.platform,wse3",
            "contract.platform,tpu",
            r"contract\.platform\): 'tpu' is not in hardware\.csv; expected one of b300, wse3, h100, groq_lpu",
        ),
        (
            "frontier.csv",
            "h100_20,h100,",
            "h100_20,h200,",
            r"frontier\.h100_20\.platform\): 'h200' is not in hardware\.csv",
        ),
        (
            "assumptions.csv",
            "horizon.months,60",
            "horizon.months,24",
            r"24 is shorter than the contract term 30",
        ),
        ("tiers.csv", ("fast", "adoption"), "0.90", r"adoption exceeds 1"),
        (
            "plans.csv",
            ("plus", "source"),
            "",
            r"plans\.csv row 2 \(plus\), column source: empty; every value needs a source",
        ),
        (
            "tiers.csv",
            ("ultrafast", "adoption"),
            "",
            r"tiers\.csv row 4 \(ultrafast\), column adoption: empty",
        ),
        (
            "sensitivity.csv",
            "usage.demand_sigma,pert",
            "usage.demand_sigma,beta",
            r'sensitivity\.csv row \d+ \(usage\.demand_sigma\), column distribution: "beta"; expected one of uniform',
        ),
        (
            "sensitivity.csv",
            "usage.demand_sigma,pert,0.8,1.6",
            "usage.demand_sigma,pert,1.6,0.8",
            r"column high: 0\.8 must exceed low 1\.6",
        ),
        (
            "sensitivity.csv",
            "contract.ramp_months,triangular",
            "horizon.months,triangular",
            r"'horizon\.months' takes one value per run",
        ),
        (
            "correlations.csv",
            "-0.3,",
            "-1.3,",
            r"correlations\.csv row 2, column rank_correlation: -1\.3; expected a number in \[-1, 1\]",
        ),
        (
            "grids.csv",
            "usage.token_efficiency_gain_annual,7",
            "usage.token_efficency_gain_annual,7",
            r"grids\.csv row 2, column key_y: unknown key 'usage\.token_efficency_gain_annual'; did you mean usage\.token_efficiency_gain_annual",
        ),
    ],
)
def test_each_validation_rule_names_file_row_column_and_expectation(
    data_copy, file, old, new, message
):
    rewrite(data_copy / file, old, new)
    with pytest.raises(AssumptionError, match=message):
        load(data_copy)


def test_missing_column_is_named(data_copy):
    rewrite(data_copy / "hardware.csv", "power_kw", "power_w")
    with pytest.raises(AssumptionError, match=r"hardware\.csv row 1: missing column\(s\) power_kw"):
        load(data_copy)


def test_missing_key_is_named(data_copy):
    p = data_copy / "assumptions.csv"
    p.write_text(
        "\n".join(
            line for line in p.read_text().splitlines() if not line.startswith("facility.pue")
        )
        + "\n"
    )
    with pytest.raises(AssumptionError, match=r"missing key\(s\) facility\.pue"):
        load(data_copy)


def test_excel_saved_csv_with_bom_and_crlf_loads(data_copy, base):
    for name in ("assumptions.csv", "plans.csv", "tiers.csv"):
        p = data_copy / name
        p.write_bytes(
            b"\xef\xbb\xbf" + p.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
        )
    a = load(data_copy)
    assert a.values == base.values


def test_european_excel_semicolons_and_decimal_commas_load(data_copy, base):
    p = data_copy / "assumptions.csv"
    import csv
    import io

    rows = list(csv.reader(io.StringIO(p.read_text())))
    out = io.StringIO()
    w = csv.writer(out, delimiter=";", lineterminator="\r\n")
    for r in rows:
        w.writerow([c.replace(".", ",") if re.fullmatch(r"-?\d+\.\d+", c) else c for c in r])
    text = out.getvalue().replace(
        "contract.value_usd;10000000000", "contract.value_usd;10.000.000.000"
    )
    assert "10.000.000.000" in text  # points as thousands separators, as European Excel writes them
    p.write_bytes(b"\xef\xbb\xbf" + text.encode())
    a = load(data_copy)
    assert a["market.plus_share_of_mau"] == 0.03
    assert a.values == base.values


def test_non_utf8_file_gets_a_clear_error(data_copy):
    p = data_copy / "plans.csv"
    p.write_bytes(p.read_bytes().replace(b"Public figure", b"Public figur\xe9"))
    with pytest.raises(
        AssumptionError, match=r"plans\.csv row 2: the file is not UTF-8 text.*CSV UTF-8"
    ):
        load(data_copy)


def test_decimal_comma_in_a_comma_file_gets_a_hint(data_copy):
    columns = (data_copy / "plans.csv").read_text().splitlines()[0].count(",") + 1
    rewrite(data_copy / "plans.csv", "pro,200,", "pro,200,5,")
    with pytest.raises(
        AssumptionError,
        match=rf"plans\.csv row 3: {columns + 1} cells but the header has {columns} columns "
        r"\(a decimal comma",
    ):
        load(data_copy)


def test_percent_and_thousands_separators_parse(data_copy):
    rewrite(
        data_copy / "assumptions.csv",
        "market.plus_share_of_mau,0.03",
        "market.plus_share_of_mau,3%",
    )
    rewrite(
        data_copy / "assumptions.csv",
        "contract.value_usd,10000000000",
        'contract.value_usd,"10,000,000,000"',
    )
    a = load(data_copy)
    assert a["market.plus_share_of_mau"] == pytest.approx(0.03)
    assert a["contract.value_usd"] == 10e9


def test_set_overrides_a_key_and_validates_it(base):
    a = base.with_overrides(
        [("tiers.ultrafast.usage_multiplier", "5"), ("hardware.wse3.memory_gb", "48")]
    )
    assert a["tiers.ultrafast.usage_multiplier"] == 5 and a["hardware.wse3.memory_gb"] == 48
    assert base["tiers.ultrafast.usage_multiplier"] == 8  # the original is untouched
    with pytest.raises(
        AssumptionError,
        match=r"--set tiers\.ultrafast\.adoption=1\.5, column value: 1\.5 is out of range",
    ):
        base.with_overrides([("tiers.ultrafast.adoption", "1.5")])


def test_set_fills_a_blank_optional_cell_and_refuses_a_cell_without_use(base):
    assert "hardware.wse3.rent_usd_per_hour" not in base  # blank in hardware.csv
    a = base.with_overrides([("hardware.wse3.rent_usd_per_hour", "100")])
    assert a["hardware.wse3.rent_usd_per_hour"] == 100
    assert a.entries["hardware.wse3.rent_usd_per_hour"].file == "hardware.csv"
    with pytest.raises(
        AssumptionError,
        match=r"--set tiers\.standard\.adoption=0\.5: tiers\.standard\.adoption is not an "
        r"input: the standard tier takes the share the faster tiers leave",
    ):
        base.with_overrides([("tiers.standard.adoption", "0.5")])


def test_unknown_key_names_the_nearest_known_keys(base):
    with pytest.raises(
        AssumptionError,
        match=r"unknown key 'tiers\.ultrafst\.adoption'; did you mean tiers\.ultrafast\.adoption",
    ):
        base.with_overrides([("tiers.ultrafst.adoption", "0.1")])


def test_scenario_applies_its_file_then_set_wins(base):
    a = base.with_scenario("low_throughput")
    assert a.scenario == "low_throughput"
    assert a["hardware.wse3.frontier_scale"] == 0.1
    b = a.with_overrides([("hardware.wse3.frontier_scale", "0.2")])
    assert b["hardware.wse3.frontier_scale"] == 0.2


def test_unknown_scenario_lists_the_known_ones(base):
    from conftest import DATA

    known = sorted(p.stem for p in (DATA / "scenarios").glob("*.csv"))
    assert {"bear", "bull", "gpu_b300", "reported_terms"} <= set(known)
    with pytest.raises(
        AssumptionError, match=rf"scenario 'nope'.*known scenarios: {re.escape(', '.join(known))}$"
    ):
        base.with_scenario("nope")


def test_bad_scenario_row_is_named(data_copy):
    (data_copy / "scenarios" / "bad.csv").write_text(
        "key,value,note\ncontract.mw,750,\ncontract.mw,lots,\n"
    )
    a = load(data_copy)
    with pytest.raises(
        AssumptionError,
        match=r"scenarios/bad\.csv row 3 \(contract\.mw\), column value: \"lots\" is not a number",
    ):
        a.with_scenario("bad")


def test_the_installed_package_ships_the_repository_data(tmp_path):
    """Outside this checkout, the econ that Python imports (the wheel, in CI) carries data/ as it is here."""
    import os
    import subprocess
    import sys

    from conftest import DATA

    code = "import econ.assumptions as a; print(a.bundled_data_dir())"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    res = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env
    )
    assert res.returncode == 0, res.stderr
    shipped = Path(res.stdout.strip())
    if shipped.resolve() == DATA.resolve():
        pytest.skip("an editable install: the package's data are this checkout's data/")
    if (shipped.parent / "pyproject.toml").is_file():
        pytest.skip(f"an editable install of another checkout ({shipped.parent.name})")
    for p in sorted(DATA.rglob("*.csv")):
        assert (shipped / p.relative_to(DATA)).read_bytes() == p.read_bytes(), p.name
    assert econ.load(shipped).values == econ.load(DATA).values


# guessed keys docs/model.md leaves out of the sampling on purpose: the lab's own fleet plan, the
# scenario axes of the fleet-plan grid (section V4.3)
SCENARIO_AXES = frozenset(
    {"fleet.avoidable_share", "capacity.movable_share", "capacity.internal_batch_tokens_per_month"}
)
# guessed keys the bundled NPV does not read: a figure reported only (V4.3), the free tier's
# use with free.served = 0 (V4.2), the predecessor's decline where successors keep the model's
# size (V4.6); the test holds that each indeed leaves the NPV unchanged
NOT_READ_BY_THE_BUNDLED_NPV = {
    "capacity.gpu_fleet_utilization": "0.4",
    "free.dau_per_mau": "0.9",
    "free.flagship_queries_per_day": "10",
    "free.alternative_cost_per_mtok_usd": "1",
    "model.predecessor_decline_per_month": "0.5",
}
# the price a ranged volume is stated at (api.ultrafast_tokens_per_month "at
# api.reference_price_per_mtok_usd", docs/model.md section 2): the volume's range carries it
CALIBRATION_LABELS = frozenset({"api.reference_price_per_mtok_usd"})


def test_every_guesstimate_that_can_vary_has_a_sensitivity_range(base):
    """Every guessed number of assumptions.csv that can take a range of values (not an id, a
    flag or a whole number) has one, save the lab's own plan (a scenario axis) and keys the
    bundled NPV does not read; and the contract platform's guessed curve is varied through its
    frontier_scale."""
    from econ.assumptions import is_structural, rule_for
    from econ.model import evaluate

    npv = evaluate(base).npv[0]
    for key, value in NOT_READ_BY_THE_BUNDLED_NPV.items():
        assert float(value) != base[key], key
        assert evaluate(base.with_overrides([(key, value)])).npv[0] == npv, key
    exempt = SCENARIO_AXES | set(NOT_READ_BY_THE_BUNDLED_NPV) | CALIBRATION_LABELS
    ranged = {s.key for s in base.sensitivity}
    assert not (ranged & SCENARIO_AXES)  # the fleet plan is a grid, never sampled
    missing = [
        k
        for k, e in base.entries.items()
        if "Guesstimate" in e.source
        and e.file == "assumptions.csv"
        and not is_structural(k, base[k])
        and rule_for(k).kind != "integer"
        and k not in ranged
        and k not in exempt
    ]
    assert missing == []
    plat = base["contract.platform"]
    guessed = [
        f
        for f in base.frontier_ids(plat)
        if "Guesstimate" in base.entries[f"frontier.{f}.tokens_per_s_per_mw"].source
    ]
    assert guessed and f"hardware.{plat}.frontier_scale" in ranged


# ---------------------------------------------------------------------------
# retired keys, the keys every file names, the GPU cost per token

# each key of version 2 that version 3 retired, and the key that replaced it (docs/model.md section 0.4,
# 0.5; usage per user is built from queries, issue 17 item 5)
RETIRED_IN_3 = {
    "api.cannibalised_share": ("api.diversion_to_lab_tiers",),
    "api.standard_price_per_mtok_usd": ("tiers.standard.price_per_mtok_usd",),
    "conversion.plus_to_pro_base_monthly": ("conversion.capped_share_of_upgrades",),
    "conversion.capped_upgrade_propensity": ("conversion.capped_share_of_upgrades",),
    "plans.plus.weekly_quota_tokens": ("plans.plus.weekly_quota_queries",),
    "plans.pro.weekly_quota_tokens": ("plans.pro.weekly_quota_queries",),
    "plans.plus.median_weekly_tokens": ("plans.plus.queries_per_day",),
    "plans.pro.median_weekly_tokens": ("plans.pro.queries_per_day",),
}
# each key of version 3 that version 4 retired, and the keys that replaced it: the moved
# traffic bounded by the served model's own demand (V4.2), one value per freed GPU-hour
# (V4.3: "setting either is an error naming the new keys"), the payment terms and the delivered
# share (V4.5), one context for every platform (V4.5)
RETIRED_IN_4 = {
    "capacity.backfill_tokens_per_month": (
        "capacity.movable_share",
        "capacity.internal_batch_tokens_per_month",
    ),
    "capacity.flexible_value_share": ("fleet.avoidable_share",),
    "contract.pay_as_delivered": ("contract.payment", "contract.delivered_share"),
    "model.context_tokens": ("usage.context_tokens",),
}
RETIRED_BY = {**RETIRED_IN_3, **RETIRED_IN_4}


def test_the_retired_keys_are_the_ones_versions_3_and_4_retired(base):
    from econ.assumptions import RETIRED, RETIRED_IN

    assert set(RETIRED) == set(RETIRED_BY)
    assert {k for k in RETIRED if RETIRED_IN.get(k, 3) == 4} == set(RETIRED_IN_4)
    for old, new in RETIRED_BY.items():
        assert old not in base, old
        for key in new:
            assert key in base, key  # the replacement exists and has a value


@pytest.mark.parametrize(("old", "new"), RETIRED_BY.items())
def test_a_retired_key_set_on_the_command_line_names_its_replacement(base, old, new):
    with pytest.raises(AssumptionError) as exc:
        base.with_overrides([(old, "0.5")])
    msg = str(exc.value)
    version = 4 if old in RETIRED_IN_4 else 3
    assert f"--set {old}=0.5" in msg and f"retired in version {version}" in msg, msg
    assert all(key in msg for key in new), msg
    assert "\n" not in msg


@pytest.mark.parametrize(
    "old",
    [
        "api.cannibalised_share",
        "conversion.capped_upgrade_propensity",
        "capacity.backfill_tokens_per_month",
        "contract.pay_as_delivered",
    ],
)
def test_a_retired_key_in_a_scenario_file_names_its_replacement(data_copy, old):
    (data_copy / "scenarios" / "old.csv").write_text(
        f"key,value,note\ncontract.mw,700,\n{old},0,an earlier version's scenario\n"
    )
    a = load(data_copy)
    with pytest.raises(AssumptionError) as exc:
        a.with_scenario("old")
    msg = str(exc.value)
    assert re.search(rf"scenarios/old\.csv row 3.*'{re.escape(old)}' was retired", msg), msg
    assert all(key in msg for key in RETIRED_BY[old]) and "\n" not in msg, msg


@pytest.mark.parametrize(
    ("file", "old", "line"),
    [
        ("sensitivity.csv", "api.cannibalised_share", "{old},pert,0.2,0.8,an old range"),
        ("assumptions.csv", "api.cannibalised_share", "{old},0.5,share,Guesstimate,"),
        ("grids.csv", "api.cannibalised_share", "old_grid,{old},api.price_elasticity,5,"),
        ("sensitivity.csv", "capacity.flexible_value_share", "{old},pert,0.2,0.8,an old range"),
        (
            "assumptions.csv",
            "capacity.backfill_tokens_per_month",
            "{old},1e14,output tokens/month,Guesstimate,",
        ),
        ("assumptions.csv", "contract.pay_as_delivered", "{old},1,0/1,Modelling choice,"),
        ("sensitivity.csv", "model.context_tokens", "{old},pert,4096,32768,an old range"),
        ("grids.csv", "model.context_tokens", "old_grid,market.mau,{old},5,"),
    ],
)
def test_a_retired_key_in_a_data_file_names_its_replacement(data_copy, file, old, line):
    p = data_copy / file
    p.write_text(p.read_text() + line.format(old=old) + "\n")
    rows = len(p.read_text().splitlines())
    with pytest.raises(AssumptionError) as exc:
        load(data_copy)
    msg = str(exc.value)
    assert re.search(
        rf"{re.escape(file)} row {rows}, column key(_[xy])?: .*'{re.escape(old)}' was retired", msg
    ), msg
    assert all(key in msg for key in RETIRED_BY[old]) and "\n" not in msg, msg


def _keys_in_the_files(data: Path) -> set[str]:
    """Every key the data files define, read with the csv module: the rows of assumptions.csv
    and every (row, column) cell of the table files, blank cells included."""
    keys = set()
    with (data / "assumptions.csv").open(encoding="utf-8-sig", newline="") as f:
        keys |= {row["key"] for row in csv.DictReader(f)}
    for table in ("plans", "tiers", "hardware", "frontier", "models"):
        with (data / f"{table}.csv").open(encoding="utf-8-sig", newline="") as f:
            reader = csv.DictReader(f)
            cols = [c for c in reader.fieldnames if c not in ("id", "source", "note")]
            keys |= {f"{table}.{row['id']}.{c}" for row in reader for c in cols}
    return keys


def test_every_scenario_override_and_every_range_names_a_key_that_exists(base):
    """Issue 17, item 7: no bundled file names a retired or unknown key."""
    from conftest import DATA

    keys = _keys_in_the_files(DATA)
    assert "capacity.gpu_cost_per_mtok_usd" in keys and "api.cannibalised_share" not in keys
    named = {}
    for p in sorted((DATA / "scenarios").glob("*.csv")):
        with p.open(encoding="utf-8-sig", newline="") as f:
            for row in csv.DictReader(f):
                named[row["key"]] = f"scenarios/{p.name}"
        base.with_scenario(p.stem)  # and each loads
    with (DATA / "sensitivity.csv").open(encoding="utf-8-sig", newline="") as f:
        named |= {row["key"]: "sensitivity.csv" for row in csv.DictReader(f)}
    with (DATA / "correlations.csv").open(encoding="utf-8-sig", newline="") as f:
        for row in csv.DictReader(f):
            named |= {row["key_a"]: "correlations.csv", row["key_b"]: "correlations.csv"}
    with (DATA / "grids.csv").open(encoding="utf-8-sig", newline="") as f:
        for row in csv.DictReader(f):
            named |= {row["key_x"]: "grids.csv", row["key_y"]: "grids.csv"}
    unknown = {k: where for k, where in named.items() if k not in keys}
    assert unknown == {}
    assert len(named) > 60  # the files were read


def test_tranches_are_both_set_or_both_blank(base):
    for key, value in (("contract.tranche_mw", "250"), ("contract.tranche_months", "12")):
        with pytest.raises(
            AssumptionError,
            match=rf"--set {re.escape(key)}={value}.*set without contract\.tranche_",
        ):
            base.with_overrides([(key, value)])
    a = base.with_overrides([("contract.tranche_mw", "250"), ("contract.tranche_months", "12")])
    assert a["contract.tranche_mw"] == 250 and a["contract.tranche_months"] == 12


def test_pro_growth_may_fall_to_minus_the_churn_and_no_further(base):
    churn = base["conversion.pro_churn_monthly"]
    a = base.with_overrides([("market.pro_growth_monthly", repr(-churn))])  # no upgrades at all
    assert a["market.pro_growth_monthly"] == -churn
    with pytest.raises(
        AssumptionError,
        match=r"market\.pro_growth_monthly.*expected market\.pro_growth_monthly "
        r">= -conversion\.pro_churn_monthly",
    ):
        base.with_overrides([("market.pro_growth_monthly", repr(-churn - 0.001))])
    # and the churn moved below it is named too
    with pytest.raises(AssumptionError, match=r"market\.pro_growth_monthly"):
        base.with_overrides(
            [("market.pro_growth_monthly", "-0.02"), ("conversion.pro_churn_monthly", "0.01")]
        )


def test_models_and_the_frontier_model_column(data_copy):
    a = load(data_copy)
    # every sourced point of a platform's curve names the model it was measured on
    assert a["frontier.b300_340.model"] == "deepseek_r1_fp4"
    assert a["frontier.wse3_750.model"] == "gpt56_sol"
    assert a["models.deepseek_r1_fp4.params"] == 671e9  # DeepSeek-R1: 671B total, 37B active
    assert a["models.deepseek_r1_fp4.active_share"] == pytest.approx(37 / 671, abs=1e-4)
    assert a["models.deepseek_r1_fp4.layers"] == 61
    set_cell(data_copy / "frontier.csv", "b300_340", "model", "deepseek_v9")
    with pytest.raises(
        AssumptionError,
        match=r"frontier\.csv row \d+, column model \(frontier\.b300_340\.model\): 'deepseek_v9' "
        r"is not in models\.csv; expected one of deepseek_r1_fp4, gpt56_sol",
    ):
        load(data_copy)


@pytest.mark.parametrize(
    ("row", "column", "value", "message"),
    [
        ("deepseek_r1_fp4", "active_share", "0", r"column active_share: 0 is out of range"),
        ("deepseek_r1_fp4", "active_share", "1.5", r"column active_share: 1\.5 is out of range"),
        ("gpt56_sol", "layers", "61.5", r"column layers: 61\.5 is out of range; expected a whole"),
        ("gpt56_sol", "params", "", r"column params: empty"),
        ("gpt56_sol", "source", "", r"column source: empty; every value needs a source"),
    ],
)
def test_a_bad_model_row_is_named(data_copy, row, column, value, message):
    set_cell(data_copy / "models.csv", row, column, value)
    with pytest.raises(AssumptionError, match=rf"models\.csv row \d+ \({row}\), {message}"):
        load(data_copy)


def test_the_frontier_model_column_may_be_left_out(data_copy):
    p = data_copy / "frontier.csv"
    with p.open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    j = rows[0].index("model")
    with p.open("w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([r[:j] + r[j + 1 :] for r in rows])
    a = load(data_copy)
    assert "frontier.b300_340.model" not in a
    assert a["frontier.b300_340.tokens_per_s_per_mw"] == 450_000


# GPUs per facility MW on the GPU platform: 1,000 kW / (1.9 kW a GB300 GPU all-in x PUE 1.2)
B300_GPUS_PER_MW = 1000 / (1.9 * 1.2)


def test_the_gpu_cost_per_token_is_derived_when_blank_and_a_number_overrides_it(base):
    """docs/model.md V4.3: a token crossing the GPU-fleet boundary is worth lambda x h / u_ops, with
    lambda = a x rent + (1 - a) x (sublet + energy) the value of a freed GPU-hour and h the
    GPU-hours per million output tokens at full use. On the data basis with the tier speeds at
    measured points of the B300 curve (InferenceX: 2,620,900 tokens/s per MW at 71 tokens/s,
    1,051,000 at 128), h = 1e6 x GPUs per MW / (throughput x 3,600 s)."""
    from econ.headline import served_model
    from econ.model import evaluate

    def headline(a):  # the served model's part of the headline (summary --json: served_model)
        return {"served_model": served_model(a, evaluate(a))}

    a = base.with_overrides(
        [
            ("capacity.basis", "data"),
            ("tiers.standard.tokens_per_s", "71"),
            ("tiers.fast.tokens_per_s", "128"),
        ]
    )
    assert "capacity.gpu_cost_per_mtok_usd" not in a
    # a = 0.5, rent 3.96 USD a GPU-hour, no sublet, energy 1.9 kW x 1.2 x 0.086 USD/kWh;
    # u_ops 0.85
    lam = 0.5 * 3.96 + 0.5 * (0 + 1.9 * 1.2 * 0.086)
    g = headline(a)["served_model"]
    for tier, thr in (("standard", 2_620_900), ("fast", 1_051_000)):
        h = 1e6 * B300_GPUS_PER_MW / (thr * 3600)
        assert g["gpu_cost_per_mtok_usd"][tier] == pytest.approx(lam * h / 0.85, rel=1e-9), tier
    # the troughs filled: a freed trough hour is worth a freed peak hour
    assert g["gpu_cost_per_mtok_usd"]["flexible"] == g["gpu_cost_per_mtok_usd"]["standard"]
    assert g["gpu_cost_overridden"] is False
    # the GPU fleet's utilisation is a reported figure only: it no longer sets the cost
    other = headline(a.with_overrides([("capacity.gpu_fleet_utilization", "0.4")]))
    assert other["served_model"]["gpu_cost_per_mtok_usd"] == g["gpu_cost_per_mtok_usd"]

    b = a.with_overrides([("capacity.gpu_cost_per_mtok_usd", "2.5")])
    h = headline(b)["served_model"]
    assert h["gpu_cost_per_mtok_usd"] == {"standard": 2.5, "fast": 2.5, "flexible": 2.5}
    assert h["gpu_cost_overridden"] is True


def test_the_summary_says_when_the_gpu_cost_is_set(base):
    """The summary's text (what econ summary prints) says whether the value of a token
    crossing the GPU-fleet boundary is derived or set, and the set value for every tier."""
    from econ.headline import headline, served_model
    from econ.model import evaluate
    from econ.report.summary import text

    def words(h) -> str:
        return " ".join(text(h).split())  # the text is wrapped to the terminal

    h = headline(base.with_overrides([("capacity.gpu_cost_per_mtok_usd", "2.5")]))
    set_ = words(h)
    assert "--set capacity.gpu_cost_per_mtok_usd=2.5" in set_
    want = "standard $2.50, fast $2.50, flexible $2.50 (set by capacity.gpu_cost_per_mtok_usd)"
    assert want in set_ and "(derived)" not in set_
    # the same headline with the served model as derived from the bundled data
    derived = words({**h, "served_model": served_model(base, evaluate(base))})
    assert "(derived)" in derived and "set by capacity.gpu_cost_per_mtok_usd" not in derived
