"""CSV files as spreadsheets write them: every bundled CSV saved again by LibreOffice with
comma, semicolon and tab separators, in a decimal-point (en-US) and a decimal-comma (de-DE)
locale, loads to the same assumptions; and the number reader's rules on hand-made cells.

LibreOffice is the outside reference here: it opens each file (read as en-US CSV) and saves
it the way a user's copy would, numbers written in the profile's locale (0,066 in de-DE).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import DATA
from soffice import soffice

import econ
from econ.assumptions import AssumptionError

LOCALES = {"en-US": 1033, "de-DE": 1031}  # decimal point; decimal comma
SEPARATORS = {"comma": 44, "semicolon": 59, "tab": 9}

LOCALE_XCU = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Setup/L10N"><prop oor:name="ooSetupSystemLocale" oor:op="fuse"><value>{locale}</value></prop></item>
</oor:items>
"""


def _files() -> list[Path]:
    return sorted(DATA.glob("*.csv")) + sorted((DATA / "scenarios").glob("*.csv"))


def resave(files: list[Path], out: Path, locale: str, separator: int) -> None:
    """Open each CSV in headless LibreOffice as an en-US comma-separated file and save it in
    ``out`` with ``separator`` (a character code) in ``locale``; fails if a file is missing."""
    exe = soffice()
    if exe is None:
        if os.environ.get("ECON_REQUIRE_SOFFICE"):
            pytest.fail("LibreOffice (soffice) is required (ECON_REQUIRE_SOFFICE=1)")
        pytest.skip("LibreOffice (soffice) is not installed")
    with tempfile.TemporaryDirectory() as home:
        profile = Path(home) / "profile"
        (profile / "user").mkdir(parents=True)
        (profile / "user" / "registrymodifications.xcu").write_text(
            LOCALE_XCU.format(locale=locale)
        )
        # CSV filter options: separator, quote ("), UTF-8 (76), start at row 1, column
        # formats (none), language: en-US to read, the locale's own to write
        read = "CSV:44,34,76,1,,1033"
        write = f"csv:Text - txt - csv (StarCalc):{separator},34,76,1,,{LOCALES[locale]}"
        subprocess.run(
            [
                exe,
                f"-env:UserInstallation={profile.as_uri()}",
                "--headless",
                "--norestore",
                "--nolockcheck",
                f"--infilter={read}",
                "--convert-to",
                write,
                "--outdir",
                str(out),
                *map(str, files),
            ],
            env={**os.environ, "HOME": home},
            check=False,
            capture_output=True,
            timeout=600,
        )
    for f in files:
        if not (out / f.name).exists():  # soffice exits 0 even when it could not load a file
            raise RuntimeError(f"LibreOffice wrote no {out / f.name}")


def everything(a: econ.Assumptions) -> dict[str, object]:
    """What loading gives, the provenance included, without the paths and digests."""
    return {
        "values": a.values,
        "text": {k: (e.source, e.note, e.row, e.column) for k, e in a.entries.items()},
        "tables": a.tables,
        "blanks": sorted(a.blanks),
        "sensitivity": a.sensitivity,
        "correlations": a.correlations,
        "grids": a.grids,
        "calibration": a.calibration,
        "speeds": a.speeds,
        "anchors": a.anchors,
        "scenarios": {n: a.with_scenario(n).values for n in a.scenario_names()},
    }


@pytest.fixture(scope="module")
def expected() -> dict[str, object]:
    return everything(econ.load(DATA))


@pytest.mark.parametrize("separator", sorted(SEPARATORS))
@pytest.mark.parametrize("locale", sorted(LOCALES))
def test_every_bundled_csv_saved_by_libreoffice_loads_the_same(
    locale, separator, expected, tmp_path
):
    saved = tmp_path / "saved"
    resave(_files(), saved, locale, SEPARATORS[separator])
    data = tmp_path / "data"
    (data / "scenarios").mkdir(parents=True)
    for f in _files():
        folder = data / "scenarios" if f.parent.name == "scenarios" else data
        shutil.copy(saved / f.name, folder / f.name)
    text = (data / "assumptions.csv").read_text(encoding="utf-8")
    sep = {"comma": ",", "semicolon": ";", "tab": "\t"}[separator]
    assert text.startswith(sep.join(["key", "value", "unit", "source", "note"]))
    if locale == "de-DE":  # the file really has decimal commas (0.10 saved as 0,1)
        assert f"finance.discount_rate_annual{sep}" + ('"0,1"' if sep == "," else "0,1") in text
    assert everything(econ.load(data)) == expected


# ---------------------------------------------------------------------------
# the reader's rules, cell by cell


def _scenario(data: Path, body: str, sep: str = ",") -> econ.Assumptions:
    (data / "scenarios" / "s.csv").write_text(
        f"key{sep}value{sep}note\n" + body, encoding="utf-8", newline=""
    )
    return econ.load(data).with_scenario("s")


@pytest.mark.parametrize(
    ("body", "key", "value"),
    [
        # one file, one mark: the comma is the decimal mark of a semicolon file with 0,066
        ("finance.discount_rate_annual;0,066;\nmarket.mau;1.000.000.000;\n", "market.mau", 1e9),
        (
            "finance.discount_rate_annual;0,066;\nmarket.mau;1.000.000.000;\n",
            "finance.discount_rate_annual",
            0.066,
        ),
        # LibreOffice in a decimal-point locale saving with semicolons: 0.066 is not 66
        (
            "finance.discount_rate_annual;0.066;\nmarket.plus_share_of_mau;0.01;\n",
            "finance.discount_rate_annual",
            0.066,
        ),
        (
            "finance.discount_rate_annual;0.066;\nmarket.plus_share_of_mau;0.01;\n",
            "market.plus_share_of_mau",
            0.01,
        ),
        ("market.plus_share_of_mau;0.002;\n", "market.plus_share_of_mau", 0.002),
        # negative decimals and percentages with a comma
        ("market.mau_growth_monthly;-0,005;\n", "market.mau_growth_monthly", -0.005),
        ("market.plus_share_of_mau;12,5%;\n", "market.plus_share_of_mau", 0.125),
        ("market.plus_share_of_mau;3%;\n", "market.plus_share_of_mau", 0.03),
        # nothing else in the file shows the mark: one separator then 3 digits is a decimal
        ("contract.mw;421,777;\n", "contract.mw", 421.777),
        ("contract.mw;421.777;\n", "contract.mw", 421.777),
        # a point file: commas between thousands (several groups read one way only)
        ("contract.value_usd;10,000,000,000;\n", "contract.value_usd", 1e10),
        ("contract.value_usd;9.000.000.000;\n", "contract.value_usd", 9e9),
        ("contract.value_usd;9 000 000 000;\n", "contract.value_usd", 9e9),
        ("contract.value_usd;1,5E+10;\n", "contract.value_usd", 1.5e10),
    ],
)
def test_a_file_is_read_with_one_decimal_mark(data_copy, body, key, value):
    assert _scenario(data_copy, body, sep=";")[key] == value


def test_a_quoted_decimal_comma_in_a_comma_file(data_copy):
    a = _scenario(data_copy, 'finance.discount_rate_annual,"0,066",\nmarket.mau,"1,5E+9",\n')
    assert a["finance.discount_rate_annual"] == 0.066 and a["market.mau"] == 1.5e9


def test_a_tab_separated_file_loads(data_copy):
    a = _scenario(data_copy, "contract.mw\t700,5\tnote, with a comma\n", sep="\t")
    assert a["contract.mw"] == 700.5


def test_a_file_with_both_decimal_marks_is_refused_naming_both(data_copy):
    with pytest.raises(
        AssumptionError,
        match=r"s\.csv: numbers with a decimal point \(row 2, column value: \"0\.066\"\) and "
        r"with a decimal comma \(row 3, column value: \"0,5\"\); a file uses one decimal mark",
    ):
        _scenario(data_copy, 'finance.discount_rate_annual,0.066,\nusage.speed_elasticity,"0,5",\n')


def test_a_thousands_separator_in_a_decimal_point_file_is_read_as_such(data_copy):
    a = _scenario(data_copy, 'finance.discount_rate_annual,0.066,\ncontract.mw,"1,000",\n')
    assert a["contract.mw"] == 1000


def test_messages_quote_the_cell_as_written(data_copy):
    with pytest.raises(
        AssumptionError,
        match=r"s\.csv row 2 \(market\.mau_growth_monthly\), column value: -0,5 is out of range; "
        r"expected a number in \[-0\.1, 0\.1\]",
    ):
        _scenario(data_copy, "market.mau_growth_monthly;-0,5;\n", sep=";")
    with pytest.raises(AssumptionError, match=r'column value: "0,0,5" is not a number'):
        _scenario(data_copy, "contract.mw;0,0,5;\n", sep=";")


def test_the_command_line_refuses_what_reads_two_ways(base):
    with pytest.raises(
        AssumptionError,
        match=r'--set contract\.mw=1,500, column value: "1,500" could be 1\.5 \(a decimal comma\) '
        r"or 1500 \(commas between thousands\); write it without a thousands separator",
    ):
        base.with_overrides([("contract.mw", "1,500")])
    a = base.with_overrides([("market.plus_share_of_mau", "12,5%"), ("contract.mw", "0,5")])
    assert a["market.plus_share_of_mau"] == 0.125 and a["contract.mw"] == 0.5


@pytest.mark.parametrize("text", ["1e-310", "-4e-320", "1e-400"])
def test_a_number_too_small_for_a_double_is_named(base, text):
    with pytest.raises(AssumptionError, match=rf'"{text}" is too small to compute with'):
        base.with_overrides([("usage.speed_elasticity", text)])
