"""Loading and validating the assumption CSVs (issue: the spine)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import econ
from econ.assumptions import AssumptionError, load


def rewrite(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"fixture text {old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_default_data_loads_with_every_specified_key(base):
    for key, value in {
        "contract.value_usd": 10e9,
        "contract.mw": 750,
        "contract.term_months": 30,
        "contract.ramp_months": 24,
        "contract.pay_as_delivered": 1,
        "horizon.months": 60,
        "finance.variable_cost_share": 0.10,
        "finance.terminal_value": 1,
        "usage.peak_to_average": 3,
        "api.reference_price_per_mtok_usd": 40,
        "api.price_elasticity": 1.0,
        "api.standard_price_per_mtok_usd": 10,
        "api.cannibalised_share": 0.5,
        "api.ramp_months": 12,
        "capacity.backfill_tokens_per_month": 1e14,
        "capacity.gpu_cost_per_mtok_usd": 1.0,
        "conversion.extra_churn_after_term_monthly": 0.03,
        "facility.pue": 1.2,
        "model.kv_bytes_per_token": 5.2e5,
        "model.context_tokens": 4096,
        "model.speculative_speedup": 1.0,
        "model.layers": 128,
        "model.d_model": 36000,
        "model.prefill_tokens_per_output": 1.0,
        "hardware.b300.domain_chips": 72,
        "hardware.wse3.domain_chips": 1,
        "hardware.wse3.frontier_scale": 1,
        "finance.discount_rate_annual": 0.10,
        "market.mau": 1e9,
        "market.plus_share_of_mau": 0.03,
        "plans.pro.price_usd_month": 200,
        "plans.plus.price_usd_month": 20,
        "tiers.standard.tokens_per_s": 54,
        "tiers.fast.tokens_per_s": 134,
        "tiers.ultrafast.tokens_per_s": 750,
        "tiers.ultrafast.usage_multiplier": 4,
        "tiers.ultrafast.adoption": 0.15,
        "tiers.ultrafast.price_per_mtok_usd": 40,
        "usage.demand_sigma": 1.2,
        "usage.token_efficiency_gain_annual": 0.15,
        "agent.calls": 10,
        "hardware.wse3.memory_gb": 44,
        "hardware.b300.rent_usd_per_hour": 4.0,
        "model.params": 2e12,
        "frontier.b300_340.tokens_per_s_per_mw": 450_000,
        "frontier.wse3_750.tokens_per_s_per_mw": 450_000,
        "buy.facility_capex_usd_per_mw": 12e6,
    }.items():
        assert base[key] == value, key
    assert base["contract.platform"] == "wse3" and base["capacity.basis"] == "data"
    assert base["frontier.wse3_750.platform"] == "wse3"


def test_every_row_has_a_source_and_guesses_say_so(base):
    for key, e in base.entries.items():
        assert e.source, key
    guessed = [k for k, e in base.entries.items() if "Guesstimate" in e.source]
    assert "conversion.capped_upgrade_propensity" in guessed and "usage.demand_sigma" in guessed


def test_wse3_sensitivity_range_reaches_the_chip_count_estimate(base):
    # the whole curve scales: 450,000 tokens/s per MW at 750 x the low end <= 30,000
    row = next(s for s in base.sensitivity if s.key == "hardware.wse3.frontier_scale")
    assert 450_000 * row.low <= 30_000


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
            "tiers.csv",
            "ultrafast,750,",
            "ultrafast,2000,",
            r"tiers\.ultrafast\.tokens_per_s\): 2000 tokens/s is outside the frontier of the contract platform 'wse3' \(54 to 1500",
        ),
        (
            "assumptions.csv",
            "horizon.months,60",
            "horizon.months,24",
            r"24 is shorter than the contract term 30",
        ),
        ("tiers.csv", "fast,134,2,0.20", "fast,134,2,0.90", r"adoption exceeds 1"),
        (
            "plans.csv",
            '"Public figure: ChatGPT Plus price; quota and median usage are Guesstimates"',
            "",
            r"plans\.csv row 2 \(plus\), column source: empty; every value needs a source",
        ),
        (
            "tiers.csv",
            "ultrafast,750,4,0.15,40",
            "ultrafast,750,4,,40",
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
    rewrite(data_copy / "plans.csv", "pro,200,", "pro,200,5,")
    with pytest.raises(
        AssumptionError,
        match=r"plans\.csv row 3: 7 cells but the header has 6 columns \(a decimal comma",
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
    assert base["tiers.ultrafast.usage_multiplier"] == 4  # the original is untouched
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
    with pytest.raises(
        AssumptionError,
        match=r"scenario 'nope'.*known scenarios: bear, bull, codex_spark, efficient_tokens, gpu_b300, "
        r"groq_lpu, low_throughput, standard_only, strong_upgrade, token_efficient",
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


def test_every_guesstimate_that_can_vary_has_a_sensitivity_range(base):
    """Every guessed number of assumptions.csv that can take a range of values (not an id, a
    flag or a whole number) has one, and the contract platform's guessed curve is varied
    through its frontier_scale."""
    from econ.assumptions import is_structural, rule_for

    ranged = {s.key for s in base.sensitivity}
    missing = [
        k
        for k, e in base.entries.items()
        if "Guesstimate" in e.source
        and e.file == "assumptions.csv"
        and not is_structural(k, base[k])
        and rule_for(k).kind != "integer"
        and k not in ranged
    ]
    assert missing == []
    plat = base["contract.platform"]
    guessed = [
        f
        for f in base.frontier_ids(plat)
        if "Guesstimate" in base.entries[f"frontier.{f}.tokens_per_s_per_mw"].source
    ]
    assert guessed and f"hardware.{plat}.frontier_scale" in ranged
