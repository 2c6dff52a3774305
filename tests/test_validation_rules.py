"""Each consistency rule of the data (econ.assumptions.CROSS_CHECKS) is one named function, and
each has a case here that breaks it and checks its message: a new rule needs a new case."""

from __future__ import annotations

import pytest

from econ.assumptions import CROSS_CHECKS, AssumptionError, load

DATA_BASIS = ("assumptions.csv", "capacity.basis,transferred", "capacity.basis,data")

# rule -> cases (file, old text, new text, message[, edits made first: (file, old, new), ...])
CASES = {
    "check_horizon_covers_term": [
        (
            "assumptions.csv",
            "horizon.months,60",
            "horizon.months,24",
            r"horizon\.months\): 24 is shorter than the contract term 30",
        ),
    ],
    "check_gpu_platform_known": [
        (
            "assumptions.csv",
            "capacity.gpu_platform,b300",
            "capacity.gpu_platform,tpu",
            r"capacity\.gpu_platform\): 'tpu' is not in hardware\.csv; expected one of b300, wse3, "
            r"h100, groq_lpu",
        ),
        (  # on the data basis the GPU curve prices the standard tier: it must cover its speed
            "tiers.csv",
            "standard,54,",
            "standard,10,",
            r"tiers\.standard\.tokens_per_s\): 10 tokens/s is outside the frontier of the GPU "
            r"platform 'b300' \(20 to 750 tokens/s in frontier\.csv\)",
            [DATA_BASIS],
        ),
    ],
    "check_frontier_models_known": [
        (
            "frontier.csv",
            'deepseek_r1_fp4,"GPT-5.6',
            'deepseek_v9,"GPT-5.6',
            r"frontier\.b300_340\.model\): 'deepseek_v9' is not in models\.csv; expected one of "
            r"deepseek_r1_fp4, gpt56_sol",
        ),
    ],
    "check_tranches": [
        (
            "assumptions.csv",
            "contract.tranche_mw,,",
            "contract.tranche_mw,250,",
            r"contract\.tranche_mw\): set without contract\.tranche_months; expected both",
        ),
        (
            "assumptions.csv",
            "contract.tranche_months,,",
            "contract.tranche_months,12,",
            r"contract\.tranche_months\): set without contract\.tranche_mw; expected both",
        ),
    ],
    "check_tranches_deliver": [
        (
            "assumptions.csv",
            "contract.tranche_mw,250,",
            "contract.tranche_mw,100,",
            r"contract\.tranche_mw\): tranches of 100 MW every 12 months \(contract\.tranche_months\) "
            r"bring 300 MW online \(3 tranches\) by the end of the 30-month term",
            [
                ("assumptions.csv", "contract.tranche_mw,,", "contract.tranche_mw,250,"),
                ("assumptions.csv", "contract.tranche_months,,", "contract.tranche_months,12,"),
            ],
        ),
    ],
    "check_pro_growth": [
        (
            "assumptions.csv",
            "market.pro_growth_monthly,0,",
            "market.pro_growth_monthly,-0.04,",
            r"market\.pro_growth_monthly\): -0\.04 is below minus the churn \(-0\.03\); expected "
            r"market\.pro_growth_monthly >= -conversion\.pro_churn_monthly",
        ),
    ],
    "check_pro_start_within_users": [
        (
            "assumptions.csv",
            "market.pro_subscribers_start,1000000,",
            "market.pro_subscribers_start,1000000001,",
            r"market\.pro_subscribers_start\): 1,000,000,001 Pro subscribers at the start exceed "
            r"the 1,000,000,000 monthly active users",
        ),
    ],
    "check_contract_platform_known": [
        (
            "assumptions.csv",
            "contract.platform,wse3",
            "contract.platform,tpu",
            r"'tpu' is not in hardware\.csv; expected one of b300, wse3, h100, groq_lpu",
        ),
    ],
    "check_frontier_platforms_known": [
        (
            "frontier.csv",
            "h100_20,h100,",
            "h100_20,h200,",
            r"frontier\.h100_20\.platform\): 'h200' is not in hardware\.csv",
        ),
    ],
    "check_frontier_points": [
        (
            "frontier.csv",
            "wse3_1500,wse3,1500,",
            "wse3_1500,wse3,750,",
            r"platform 'wse3' has two points at 750 tokens/s/user \(wse3_750 and wse3_1500\)",
        ),
        ("frontier.csv", "groq_lpu_134,groq_lpu,", "", None),  # a platform left without points
    ],
    "check_frontier_monotone": [
        (
            "frontier.csv",
            "wse3_1500,wse3,1500,250000",
            "wse3_1500,wse3,1500,500000",
            r"500000 tokens/s/MW at 1500 tokens/s/user is more than",
        ),
    ],
    "check_contract_curve_covers_tiers": [
        (  # only the data basis reads the curve at the tier speeds (docs/model.md section 0.1)
            "tiers.csv",
            "ultrafast,750,",
            "ultrafast,2000,",
            r"2000 tokens/s is outside the frontier of the contract platform 'wse3' \(54 to 1500",
            [DATA_BASIS],
        ),
        (  # backfill runs at the standard tier's speed on the contract platform
            "tiers.csv",
            "standard,54,",
            "standard,40,",
            r"tiers\.standard\.tokens_per_s\): 40 tokens/s is outside the frontier of the contract "
            r"platform 'wse3'",
            [DATA_BASIS],
        ),
    ],
    "check_adoption_sum": [
        (
            "tiers.csv",
            "fast,134,2.5,0.20",
            "fast,134,2.5,0.90",
            r"fast \(0\.9\) plus ultrafast \(0\.15\) adoption exceeds 1",
        ),
    ],
    "check_tier_speed_order": [
        (
            "tiers.csv",
            "fast,134,",
            "fast,800,",
            r"tier speeds must rise standard <= fast <= ultrafast; found 54, 800, 750",
        ),
    ],
}


def test_every_rule_has_a_case():
    assert [rule.__name__ for rule in CROSS_CHECKS] == list(CASES)


def _cases():
    for rule, cases in CASES.items():
        for i, case in enumerate(cases):
            file, old, new, message, *first = case
            yield pytest.param(
                rule, file, old, new, message, first[0] if first else [], id=f"{rule}-{i}"
            )


def _edit(path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"fixture text {old!r} not in {path.name}"
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize(("rule", "file", "old", "new", "message", "first"), list(_cases()))
def test_each_rule_refuses_with_its_message(data_copy, rule, file, old, new, message, first):
    for f, o, n in first:
        _edit(data_copy / f, o, n)
    if first:
        load(data_copy)  # the edits made first leave valid data: the case's own edit breaks it
    p = data_copy / file
    text = p.read_text()
    assert old in text, f"fixture text {old!r} not in {file}"
    if message is None:  # every groq_lpu point removed: the platform has none left
        text = "".join(
            line for line in text.splitlines(keepends=True) if not line.startswith("groq_lpu_")
        )
        old = new = ""
        message = r"platform 'groq_lpu' has no frontier point"
    p.write_text(text.replace(old, new, 1) if old else text)
    with pytest.raises(AssumptionError, match=message) as exc:
        load(data_copy)
    assert "\n" not in str(exc.value)


def test_the_rule_names_what_was_set(base):
    with pytest.raises(
        AssumptionError, match=r"--set tiers\.ultrafast\.tokens_per_s=100.*tier speeds must rise"
    ):
        base.with_overrides([("tiers.ultrafast.tokens_per_s", "100")])


def test_off_the_data_basis_a_tier_beyond_the_curve_loads(data_copy):
    """The transferred and physics bases read the served model's envelope, not the curve at the
    tier speeds (docs/model.md section 0.1): a 2,000 tokens/s tier is valid data there (and is not offered
    where it lies above 0.9 x the ceiling)."""
    _edit(data_copy / "tiers.csv", "ultrafast,750,", "ultrafast,2000,")
    a = load(data_copy)
    assert a["capacity.basis"] == "transferred" and a["tiers.ultrafast.tokens_per_s"] == 2000
