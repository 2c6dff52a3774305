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


def test_default_data_loads_with_every_specified_key(base):
    for key, value in {
        # the seeds' worked case
        "contract.value_usd": 10e9,
        "contract.mw": 750,
        "contract.term_months": 30,
        "contract.ramp_months": 24,
        "contract.pay_as_delivered": 1,
        "horizon.months": 60,
        "market.mau": 1e9,
        "plans.pro.price_usd_month": 200,
        "plans.pro.price_ref_usd_month": 200,
        "plans.plus.price_usd_month": 20,
        "plans.plus.price_ref_usd_month": 20,
        "tiers.standard.tokens_per_s": 54,
        "tiers.ultrafast.tokens_per_s": 750,
        "model.params": 2e12,
        "frontier.b300_340.tokens_per_s_per_mw": 450_000,
        "frontier.wse3_750.tokens_per_s_per_mw": 450_000,
        "agent.calls": 10,
        # public figures (docs/model.md section 0.6): list prices of output tokens, Fast mode 2x the
        # standard price at up to 2.5x the speed, Ultrafast billed at 6x the standard rate,
        # Batch at half the price, a ~70% compute margin
        "tiers.standard.price_per_mtok_usd": 30,
        "tiers.fast.price_per_mtok_usd": 60,
        "tiers.fast.tokens_per_s": 134,  # 54 x 2.5 = 135, the articles' 134
        "tiers.fast.usage_multiplier": 2.5,
        "tiers.ultrafast.price_per_mtok_usd": 180,
        "api.reference_price_per_mtok_usd": 180,
        "capacity.flexible_value_share": 0.5,
        "finance.api_gross_margin": 0.7,
        "hardware.b300.rent_usd_per_hour": 4.0,
        "hardware.b300.domain_chips": 72,
        "hardware.wse3.domain_chips": 1,
        "hardware.wse3.memory_gb": 44,
        # version 3's defaults (docs/model.md section 0.1-0.5)
        "capacity.gpu_fleet_utilization": 0.6,
        "capacity.backfill_flexible_share": 0.5,
        "api.diversion_to_lab_tiers": 0.5,
        "api.speed_nest_lambda": 1,
        "market.pro_growth_monthly": 0,
        "conversion.capped_share_of_upgrades": 0.5,
        "conversion.max_capped_propensity": 0.05,
        "hardware.wse3.frontier_scale": 1,
        "api.price_elasticity": 1.0,
        "api.ramp_months": 12,
        "finance.variable_cost_share": 0.10,
        "finance.terminal_value": 1,
        "finance.discount_rate_annual": 0.10,
        "usage.peak_to_average": 3,
        "facility.pue": 1.2,
        "buy.facility_capex_usd_per_mw": 12e6,
    }.items():
        assert base[key] == value, key
    assert base["contract.platform"] == "wse3" and base["capacity.basis"] == "transferred"
    assert base["capacity.gpu_platform"] == "b300" and base["capacity.subscriber_offer"] == "auto"
    assert base["frontier.wse3_750.platform"] == "wse3"
    # blank = derived from the GPU platform; blank tranches = the linear ramp
    for key in ("capacity.gpu_cost_per_mtok_usd", "contract.tranche_mw", "contract.tranche_months"):
        assert key not in base, key
    # Ultrafast is billed at 6x the standard rate; Fast mode at 2x
    assert (
        base["tiers.ultrafast.price_per_mtok_usd"] == 6 * base["tiers.standard.price_per_mtok_usd"]
    )
    assert base["tiers.fast.price_per_mtok_usd"] == 2 * base["tiers.standard.price_per_mtok_usd"]


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


# ---------------------------------------------------------------------------
# version 3: retired keys, the keys every file names, the GPU cost per token

# each key of version 2 that version 3 retired, and the key that replaced it (docs/model.md section 0.4,
# 0.5; usage per user is built from queries, issue 17 item 5)
RETIRED_BY = {
    "api.cannibalised_share": "api.diversion_to_lab_tiers",
    "api.standard_price_per_mtok_usd": "tiers.standard.price_per_mtok_usd",
    "conversion.plus_to_pro_base_monthly": "conversion.capped_share_of_upgrades",
    "conversion.capped_upgrade_propensity": "conversion.capped_share_of_upgrades",
    "plans.plus.weekly_quota_tokens": "plans.plus.weekly_quota_queries",
    "plans.pro.weekly_quota_tokens": "plans.pro.weekly_quota_queries",
    "plans.plus.median_weekly_tokens": "plans.plus.queries_per_day",
    "plans.pro.median_weekly_tokens": "plans.pro.queries_per_day",
}


def test_the_retired_keys_are_the_ones_version_3_retired(base):
    from econ.assumptions import RETIRED

    assert set(RETIRED) == set(RETIRED_BY)
    for old, new in RETIRED_BY.items():
        assert old not in base, old
        assert new in base, new  # the replacement exists and has a value


@pytest.mark.parametrize(("old", "new"), RETIRED_BY.items())
def test_a_retired_key_set_on_the_command_line_names_its_replacement(base, old, new):
    with pytest.raises(AssumptionError) as exc:
        base.with_overrides([(old, "0.5")])
    msg = str(exc.value)
    assert f"--set {old}=0.5" in msg and "retired" in msg and new in msg, msg
    assert "\n" not in msg


@pytest.mark.parametrize("old", ["api.cannibalised_share", "conversion.capped_upgrade_propensity"])
def test_a_retired_key_in_a_scenario_file_names_its_replacement(data_copy, old):
    (data_copy / "scenarios" / "old.csv").write_text(
        f"key,value,note\ncontract.mw,700,\n{old},0.02,a version-2 scenario\n"
    )
    a = load(data_copy)
    with pytest.raises(
        AssumptionError,
        match=rf"scenarios/old\.csv row 3.*'{re.escape(old)}' was retired.*"
        rf"{re.escape(RETIRED_BY[old])}",
    ):
        a.with_scenario("old")


@pytest.mark.parametrize(
    ("file", "line"),
    [
        ("sensitivity.csv", "api.cannibalised_share,pert,0.2,0.8,a version-2 range"),
        ("assumptions.csv", "api.cannibalised_share,0.5,share,Guesstimate,"),
        ("grids.csv", "old_grid,api.cannibalised_share,api.price_elasticity,5,"),
    ],
)
def test_a_retired_key_in_a_data_file_names_its_replacement(data_copy, file, line):
    p = data_copy / file
    p.write_text(p.read_text() + line + "\n")
    rows = len(p.read_text().splitlines())
    with pytest.raises(
        AssumptionError,
        match=rf"{re.escape(file)} row {rows}, column key.*'api\.cannibalised_share' was "
        r"retired.*api\.diversion_to_lab_tiers",
    ):
        load(data_copy)


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


# the GPU platform's cost of one facility MW-month at its hourly rent (docs/model.md section 0.1):
# 4.0 USD per GPU-hour x 730.5 hours a month x 1000 kW / (1.9 kW a GPU x PUE 1.2)
B300_USD_PER_MW_MONTH = 4.0 * 730.5 * 1000 / (1.9 * 1.2)
SECONDS_PER_MONTH = 2_629_800


def test_the_gpu_cost_per_token_is_derived_when_blank_and_a_number_overrides_it(base):
    """On the data basis the GPU platform's throughput at a tier speed is its frontier point:
    B300 gives 1,500,000 tokens/s per MW at 54 tokens/s and 900,000 at 134 (frontier.csv), so
    g$ = cost per MW-month / (throughput x seconds a month x fleet utilisation 0.6) x 1e6."""
    from econ.headline import headline

    a = base.with_overrides([("capacity.basis", "data")])
    assert "capacity.gpu_cost_per_mtok_usd" not in a
    g = headline(a)["served_model"]
    for tier, thr in (("standard", 1_500_000), ("fast", 900_000)):
        want = B300_USD_PER_MW_MONTH / (thr * SECONDS_PER_MONTH * 0.6) * 1e6
        assert g["gpu_cost_per_mtok_usd"][tier] == pytest.approx(want, rel=1e-9), tier
    assert g["gpu_cost_per_mtok_usd"]["standard"] == pytest.approx(0.541477, abs=1e-6)
    assert g["gpu_cost_overridden"] is False

    b = a.with_overrides([("capacity.gpu_cost_per_mtok_usd", "2.5")])
    h = headline(b)["served_model"]
    assert h["gpu_cost_per_mtok_usd"] == {"standard": 2.5, "fast": 2.5}
    assert h["gpu_cost_overridden"] is True


def test_the_summary_says_when_the_gpu_cost_is_set(capsys):
    from conftest import DATA

    from econ.cli import main

    def summary(*args: str) -> str:
        assert main(["summary", "--data", str(DATA), *args]) == 0
        return " ".join(capsys.readouterr().out.split())  # the text is wrapped to the terminal

    derived = summary()
    assert "(derived)" in derived and "set by capacity.gpu_cost_per_mtok_usd" not in derived
    text = summary("--set", "capacity.gpu_cost_per_mtok_usd=2.5")
    assert "standard $2.50, fast $2.50 (set by capacity.gpu_cost_per_mtok_usd)" in text
