"""docs/extending.md followed on toy examples, so that its checklists stay true when the code moves.

- A fourth platform needs data only: a copy of data/ gets a hardware row and its frontier
  points, and the platform loads, evaluates as the contract platform, fills the capacity
  table and goes into the workbook with named inputs.
- A revenue stream, a sheet and a sensitivity method need code: the package (econ/), the
  data and the reference model are copied to tmp_path, the checklist's steps are applied as
  small text edits at named anchors, and the patched copy runs in a subprocess.

Each check is against a value worked out here by hand, an identity, or the independent
reference model, never one read back from econ's own formula. When an anchor is no longer in the code, the test fails saying which checklist and
which file to update: change the checklist in docs/extending.md and the edit here together.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import openpyxl
import pytest
from conftest import DATA, HERE, ROOT, TIGHT
from openpyxl.utils import get_column_letter
from xlsx_names import named_cell, named_value

import econ
from econ.cli import main
from econ.compute.tables import capacity_table
from econ.model import evaluate
from econ.report import write_report

GUIDE = ROOT / "docs" / "extending.md"
PLATFORM = "A platform"
STREAM = "A revenue stream"
SHEET = "A sheet"
METHOD = "A sensitivity method"

APPROX = {"rel": TIGHT["rtol"], "abs": TIGHT["atol"]}  # the same tolerance for pytest.approx
MONTH_1_COLUMN = 4  # openpyxl column of month 1 on a timeline sheet: label, unit, month 0, month 1
TIMELINE_MONTHS = 120  # months across every timeline sheet (docs/model.md, section 8.1)


# ---------------------------------------------------------------- edits at named anchors


@dataclass(frozen=True)
class Edit:
    """One step of a checklist as a text edit of a file of the copy.

    ``anchor`` is a regular expression (multi-line mode) that must match ``count`` times; the
    text goes ``before`` or ``after`` each match, or ``replace``s it (``\\g<name>`` allowed).
    ``create`` writes a new file. ``names`` are the functions or tables the step touches: the
    checklist must name them and the file.
    """

    checklist: str
    file: str
    names: tuple[str, ...]
    anchor: str
    text: str
    how: str = "after"
    count: int = 1


def _stale(e: Edit, what: str) -> None:
    pytest.fail(
        f"docs/extending.md, checklist '{e.checklist}', {e.file}"
        + (f" ({', '.join(e.names)})" if e.names else "")
        + f": {what}; "
        "the code has moved: update the checklist and its edit in tests/test_extending.py",
        pytrace=False,
    )


def apply(root: Path, edits: list[Edit]) -> None:
    for e in edits:
        path = root / e.file
        if e.how == "create":
            if path.exists():
                _stale(e, "the file already exists (pick another toy name)")
            path.write_text(e.text, encoding="utf-8")
            continue
        src = path.read_text(encoding="utf-8")
        found = len(re.findall(e.anchor, src, flags=re.M))
        if found != e.count:
            _stale(e, f"the anchor {e.anchor!r} matches {found} time(s), expected {e.count}")

        def edit(m: re.Match, e: Edit = e) -> str:
            if e.how == "before":
                return e.text + m.group(0)
            if e.how == "after":
                return m.group(0) + e.text
            return m.expand(e.text)

        path.write_text(re.sub(e.anchor, edit, src, flags=re.M), encoding="utf-8")


def add_row(checklist: str, path: Path, row: dict[str, str]) -> None:
    """Append a row to a data CSV by column name; a column the checklist does not fill (or one
    the file no longer has) means the checklist needs updating."""
    with path.open(newline="", encoding="utf-8-sig") as f:
        header = next(csv.reader(f))
    if set(header) != set(row):
        pytest.fail(
            f"docs/extending.md, checklist '{checklist}', {path.name}: the file's columns "
            f"{header} are not the row's {list(row)}; update the checklist and this row",
            pytrace=False,
        )
    text = path.read_text(encoding="utf-8")
    with path.open("a", newline="", encoding="utf-8") as f:
        if not text.endswith("\n"):
            f.write("\n")
        csv.writer(f, lineterminator="\n").writerow([row[c] for c in header])


def copy_project(tmp_path: Path) -> Path:
    """The package, the data and the reference model, as a tree the edits may change."""
    root = tmp_path / "project"
    shutil.copytree(ROOT / "econ", root / "econ", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(DATA, root / "data")
    (root / "tests").mkdir()
    shutil.copy(HERE / "reference_model.py", root / "tests" / "reference_model.py")
    return root


# Runs econ.cli.main for each job in ONE process of the patched copy (imports once), and the
# reference model for {"reference": [data folder, [[key, value], ...]]}.
RUNNER = """
import contextlib, io, json, sys
import econ
from econ.cli import main

out = {"econ": econ.__file__, "runs": []}
for job in json.loads(sys.argv[1]):
    if "reference" in job:
        sys.path.insert(0, "tests")
        import reference_model
        folder, pairs = job["reference"]
        a = econ.load(folder).with_overrides([tuple(p) for p in pairs])
        out["runs"].append(reference_model.run(dict(a.values)))
        continue
    o, e = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
        code = main(job["econ"])
    out["runs"].append({"code": code, "stdout": o.getvalue(), "stderr": e.getvalue()})
print(json.dumps(out))
"""


def run_copy(root: Path, jobs: list[dict]) -> list[dict]:
    res = subprocess.run(
        [sys.executable, "-W", "error", "-c", RUNNER, json.dumps(jobs)],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert res.returncode == 0, f"the patched copy failed:\n{res.stderr[-6000:]}"
    out = json.loads(res.stdout)
    assert Path(out["econ"]).resolve().is_relative_to(root.resolve()), out["econ"]
    for run in out["runs"]:
        if "code" in run:
            assert run["code"] == 0 and "warning" not in run["stderr"], run["stderr"]
    return out["runs"]


def _sets(pairs: dict[str, str]) -> list[str]:
    return [x for k, v in pairs.items() for x in ("--set", f"{k}={v}")]


# ---------------------------------------------------------------- a platform (data only)

TOY_PLATFORM = {
    "id": "toy",
    "memory_gb": "96",
    "bandwidth_tb_s": "4",
    "tflops": "1000",
    "tflops_fp8": "2000",
    "tflops_fp4": "",  # not published: the loader takes twice the 8-bit figure
    "power_kw": "1.5",
    "domain_chips": "8",
    "hop_latency_us": "5",
    "layer_latency_us": "60",
    "link_gb_s": "400",
    "efficiency": "0.7",
    "frontier_scale": "1",
    "price_usd": "30000",
    "life_years": "5",
    "rent_usd_per_hour": "",
    "source": "Guesstimate: a made-up accelerator for the test of docs/extending.md",
    "note": "Per chip; a stage is a board of 8",
}
# speed [tokens/s/user] -> throughput [tokens/s per facility MW]; covers the standard (54) and
# ultrafast (750) tier speeds, and falls with speed
TOY_FRONTIER = {54: 600_000, 340: 300_000, 750: 150_000}


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_a_fourth_platform_needs_data_only(data_copy, tmp_path, capsys):
    add_row(PLATFORM, data_copy / "hardware.csv", TOY_PLATFORM)
    for speed, thr in TOY_FRONTIER.items():
        add_row(
            PLATFORM,
            data_copy / "frontier.csv",
            {
                "id": f"toy_{speed}",
                "platform": "toy",
                "tokens_per_s_per_user": str(speed),
                "tokens_per_s_per_mw": str(thr),
                "model": "",
                "source": "Guesstimate: the toy platform's curve",
                "note": "",
            },
        )
    add_row(
        PLATFORM,
        data_copy / "sensitivity.csv",
        {
            "key": "hardware.toy.frontier_scale",
            "distribution": "pert",
            "low": "0.5",
            "high": "1.5",
            "note": "Guesstimate: the toy curve within a factor of two",
        },
    )
    assert main(["validate", "--data", str(data_copy)]) == 0, capsys.readouterr().err
    a = econ.load(data_copy)
    assert "toy" in a.platforms()
    assert "hardware.toy.frontier_scale" in {s.key for s in a.sensitivity}

    toy = a.with_overrides([("contract.platform", "toy"), ("capacity.basis", "data")])
    r = evaluate(toy)
    # by hand: a point of the curve is met exactly; 150,000 tokens/s/MW at 750 tokens/s/user is
    # 200 users a MW, so the 750 MW once online (month 24, the ramp) carry 150,000 streams
    assert r.throughput_per_mw[0] == pytest.approx(150_000, **APPROX)
    assert r.throughput_per_mw_standard[0] == pytest.approx(600_000, **APPROX)
    assert r.capacity_streams[0, 23] == pytest.approx(150_000, **APPROX)

    table = capacity_table(toy)
    rows = table[table["platform"] == "toy"].set_index("tier")
    assert set(rows.index) == set(a.tier_ids())
    assert rows.loc["ultrafast", "concurrent_users_per_mw"] == pytest.approx(200, **APPROX)
    assert rows.loc["standard", "concurrent_users_per_mw"] == pytest.approx(600_000 / 54, **APPROX)
    # on the transferred basis (the default) a platform without a sourced point measured on a
    # model of models.csv realises its physics envelope in full: eta = 1 (docs/model.md 0.1)
    tr = evaluate(toy.with_overrides([("capacity.basis", "transferred")]))
    ph = evaluate(toy.with_overrides([("capacity.basis", "physics")]))
    assert tr.throughput_per_mw[0] == pytest.approx(ph.throughput_per_mw[0], rel=1e-12)
    assert tr.throughput_per_mw_standard[0] == pytest.approx(
        ph.throughput_per_mw_standard[0], rel=1e-12
    )
    assert tr.throughput_per_mw_standard[0] > 0

    path = write_report(toy, tmp_path / "reports")
    wb = openpyxl.load_workbook(path, data_only=True)
    assert named_value(wb, "contract_platform") == "toy"
    assert named_value(wb, "hardware_toy_memory_gb") == 96
    assert named_value(wb, "hardware_toy_power_kw") == 1.5
    assert named_value(wb, "frontier_toy_750_tokens_per_s_per_mw") == 150_000
    assert named_value(wb, "cap_memory_gb") == 96  # the Capacity sheet's MATCH picked its row
    # by hand: a blank 4-bit figure is twice the 8-bit one (docs/model.md, V4.4): 2 x 2,000
    assert named_value(wb, "phys_t8") == 2000
    assert named_value(wb, "phys_t4") == 4000
    assert named_value(wb, "thr_ultrafast") == pytest.approx(150_000, **APPROX)


# ---------------------------------------------------------------- a revenue stream

KEY = "toy.usd_per_month"
TOY_LABEL = "Toy stream, toy_t"

REVENUE_STREAM = [
    Edit(
        STREAM,
        "econ/assumptions.py",
        ("SCALARS",),
        r'^    "api\.ramp_months": .*\n',
        f'    "{KEY}": _nonneg("USD/month"),\n',
    ),
    Edit(
        STREAM,
        "econ/report/labels.py",
        ("SCALAR_LABELS",),
        r'^    "api\.ramp_months": .*\n',
        f'    "{KEY}": "Toy stream a month",\n',
    ),
    Edit(
        STREAM,
        "econ/revenue/revenue.py",
        (),
        r"^def tokens_added_to_gpus\(",
        '''def toy_revenue(usd_per_month: ArrayLike, t: ArrayLike, term_months: ArrayLike) -> Array:
    """toy_t [USD/month] = the toy stream's amount in each month of the term, else 0."""
    return np.where(_f(t) <= _f(term_months), _f(usd_per_month), 0.0)


''',
        how="before",
    ),
    Edit(
        STREAM,
        "econ/model.py",
        ("Revenue", "revenue_stage"),
        # after the last field, whichever it is (the call below is positional)
        r"^    \w+: Array\n(?=\n\ndef revenue_stage\()",
        "    toy: Array\n",
    ),
    Edit(
        STREAM,
        "econ/model.py",
        ("Revenue", "revenue_stage"),
        r"^    return Revenue\((?P<args>[^)]*?),?\s*\)",
        f'    toy = rev.toy_revenue(row("{KEY}"), c.t, c.term)\n'
        r"    return Revenue(\g<args>, toy)",
        how="replace",
    ),
    Edit(
        STREAM,
        "econ/model.py",
        ("cash_stage", "inflow"),
        r"^    inflow = \((?P<sum>[^)]*)\) \* keep",
        r"    inflow = (\g<sum> + r.toy) * keep",
        how="replace",
    ),
    Edit(
        STREAM,
        "econ/model.py",
        ("cash_stage", "cash_only"),
        r"^    cash_only = \((?P<sum>[^)]*)\) \* keep",
        r"    cash_only = (\g<sum> + r.toy) * keep",
        how="replace",
    ),
    Edit(
        STREAM,
        "econ/model.py",
        ("Results",),
        r"^    api_revenue: Array = .*\n",
        '    toy_revenue: Array = _f("USD", "(N, H)", "toy_t")\n',
    ),
    Edit(
        STREAM,
        "econ/model.py",
        ("evaluate",),
        r"^        api_revenue=nh\(r\.api\),\n",
        "        toy_revenue=nh(r.toy),\n",
    ),
    Edit(
        STREAM,
        "econ/model.py",
        ("evaluate", "revenue"),
        r"^        revenue=nh\((?P<sum>[^)]*)\)(?P<rest>.*),",
        r"        revenue=nh(\g<sum> + r.toy)\g<rest>,",
        how="replace",
    ),
    Edit(
        STREAM,
        "econ/model.py",
        ("_add_detail", "totals"),
        r'^        "api_revenue_usd": .*\n',
        '        "toy_revenue_usd": vec(r.toy.sum(axis=0)),\n',
    ),
    Edit(
        STREAM,
        "econ/headline.py",
        ("MONTHLY_FIELDS",),
        r'^    "api_revenue_usd": "api_revenue",\n',
        '    "toy_revenue_usd": "toy_revenue",\n',
    ),
    Edit(
        STREAM,
        "econ/report/revenue_rows.py",
        ("stream_rows", "Row"),
        r'^        Section\("Incremental revenue"\),\n',
        f"""        Row("toy", "{TOY_LABEL}", "USD", "usd_m", "[in_term]*{KEY.replace(".", "_")}",
            row0(r.toy_revenue)),
""",
    ),
    Edit(
        STREAM,
        "econ/report/chain.py",
        ("cash_rows", "inflow"),
        r"\[revenue\.api\]\)\*\{KEEP\}",
        r"[revenue.api]+[revenue.toy])*{KEEP}",
        how="replace",
    ),
    Edit(
        STREAM,
        "econ/report/chain.py",
        ("cash_rows", "Check"),
        r"SUM\(\[revenue\.api:\]\)\)\*\{KEEP\}",
        r"SUM([revenue.api:])+SUM([revenue.toy:]))*{KEEP}",
        how="replace",
    ),
    Edit(
        STREAM,
        "tests/reference_model.py",
        ("run",),
        r"^        cash_only = \(sub \+ api\)",
        f'        toy = f("{KEY}") if term else 0.0\n',
        how="before",
    ),
    Edit(
        STREAM,
        "tests/reference_model.py",
        ("run",),
        r"\(sub \+ api\) \* keep_rev",
        "(sub + api + toy) * keep_rev",
        how="replace",
        count=2,  # the cash flow (cash_only) and the present value of the inflows
    ),
]

X = 1_000_000.0  # the toy stream [USD/month]
RATE, VARIABLE, TERM = 0.08, 0.2, 24  # pinned so that the hand value below needs nothing else
PINNED = {
    "finance.discount_rate_annual": str(RATE),
    "finance.variable_cost_share": str(VARIABLE),
    "contract.term_months": str(TERM),
}


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_a_toy_revenue_stream_follows_the_checklist(tmp_path):
    root = copy_project(tmp_path)
    apply(root, REVENUE_STREAM)
    add_row(
        STREAM,
        root / "data" / "assumptions.csv",
        {
            "key": KEY,
            "value": "0",
            "unit": "USD/month",
            "source": "Guesstimate: a toy stream for the test of docs/extending.md",
            "note": "Paid in each month of the term",
        },
    )
    add_row(
        STREAM,
        root / "data" / "sensitivity.csv",
        {
            "key": KEY,
            "distribution": "pert",
            "low": "0",
            "high": "2000000",
            "note": "Guesstimate: the toy stream's range",
        },
    )
    data = ["--data", str(root / "data")]
    out = tmp_path / "reports"
    with_toy = {**PINNED, KEY: f"{X:.0f}"}
    runs = run_copy(
        root,
        [
            {"econ": ["summary", "--json", *data, *_sets(with_toy)]},
            {"econ": ["summary", "--json", *data, *_sets({**PINNED, KEY: "0"})]},
            {"econ": ["report", "--no-sensitivity", *data, *_sets(with_toy), "--out", str(out)]},
            {"reference": [str(root / "data"), list(with_toy.items())]},
        ],
    )
    on, off = (json.loads(x["stdout"]) for x in runs[:2])
    reference = runs[3]

    # by hand: X a month, less variable costs, in months 1..T, each discounted by q^t with
    # q = (1 + r)^(-1/12); the geometric sum of q^t over t = 1..T is q (1 - q^T) / (1 - q)
    q = (1 + RATE) ** (-1 / 12)
    gain = X * (1 - VARIABLE) * q * (1 - q**TERM) / (1 - q)
    assert on["npv_usd"] - off["npv_usd"] == pytest.approx(gain, **APPROX)
    assert on["npv_usd"] == pytest.approx(reference["npv_usd"], **APPROX)
    assert on["monthly"]["toy_revenue_usd"] == [X] * TERM + [0.0] * (
        len(on["monthly"]["month"]) - TERM
    )
    assert on["totals"]["toy_revenue_usd"] == pytest.approx(X * TERM, **APPROX)

    book = out / "base" / "payback_analysis.xlsx"
    formulas = openpyxl.load_workbook(book)
    values = openpyxl.load_workbook(book, data_only=True)
    assert named_value(values, KEY.replace(".", "_")) == X
    rows = [c.row for c in formulas["Revenue"]["A"] if c.value == TOY_LABEL]
    assert len(rows) == 1, f"no row labelled {TOY_LABEL!r} on Revenue"
    row = rows[0]
    assert KEY.replace(".", "_") in formulas["Revenue"].cell(row, MONTH_1_COLUMN).value
    cached = [values["Revenue"].cell(row, MONTH_1_COLUMN + m).value for m in range(TIMELINE_MONTHS)]
    assert cached == [X] * TERM + [0] * (TIMELINE_MONTHS - TERM)
    # by hand: the cash-only flow gains X (1 - variable costs) in each month of the term
    gained = [
        x - y
        for x, y in zip(
            on["monthly"]["cash_flow_usd"], off["monthly"]["cash_flow_usd"], strict=True
        )
    ]
    assert gained == pytest.approx(
        [X * (1 - VARIABLE)] * TERM + [0.0] * (len(gained) - TERM), **APPROX
    )
    # Payback's cash in takes the toy row, and caches the model's cash in: cash only plus rent
    toy_cell = f"'Revenue'!{get_column_letter(MONTH_1_COLUMN)}{row}"
    inflow = [
        c.row
        for c in formulas["Payback"][get_column_letter(MONTH_1_COLUMN)]
        if isinstance(c.value, str) and toy_cell in c.value
    ]
    assert len(inflow) == 1, f"no formula on Payback refers to {toy_cell}"
    m = on["monthly"]
    for t, (cash, rent) in enumerate(zip(m["cash_flow_usd"], m["rent_usd"], strict=True)):
        got = values["Payback"].cell(inflow[0], MONTH_1_COLUMN + t).value
        assert got == pytest.approx(cash + rent, rel=1e-9, abs=1e-6), f"month {t + 1}"


# ---------------------------------------------------------------- a sheet

NEW_SHEET = "Key figures"

EXTRA_SHEET = [
    Edit(
        SHEET,
        "econ/report/sheets.py",
        (),
        r"^def _payback_chart\(",
        f'''def key_figures_sheet(book: Book, ws, head: dict) -> None:
    """NPV and payback on one printed page: live formulas on the named results."""
    s = book.styles
    ws.set_column(0, 0, 40)
    ws.set_column(1, 1, 18)
    ws.write_string(0, 0, "{NEW_SHEET} (live)", s("title"))
    figures = (("NPV", "npv_usd", "usd_b"), ("Payback month (blank: none)", "payback_months", "num1"))
    for row, (label, name, fmt) in enumerate(figures, start=2):
        ws.write_string(row, 0, label, s("label"))
        value = head[name]
        write_formula(ws, row, 1, f"={{name}}", "" if value is None else value, s(fmt))
        book.name(f"key_{{name}}", f"'{NEW_SHEET}'!$B${{row + 1}}")


''',
        how="before",
    ),
    Edit(
        SHEET,
        "econ/report/sheets.py",
        ("sheet_order",),
        r'^    names \+= \["Payback"\]\n',
        f'    names.append("{NEW_SHEET}")\n',
    ),
    Edit(
        SHEET,
        "econ/report/sheets.py",
        ("build",),
        r'^    checks_sheet\(book, ws\["Checks"\], a, head\)\n',
        f'    key_figures_sheet(book, ws["{NEW_SHEET}"], head)\n',
        how="before",
    ),
    Edit(
        SHEET,
        "econ/report/sheets.py",
        ("print_all", "PROTECTED"),
        r'^PROTECTED = \("Cover",',
        f'PROTECTED = ("{NEW_SHEET}", "Cover",',
        how="replace",
    ),
    Edit(
        SHEET,
        "econ/report/sheets.py",
        (),
        r"^from econ.report.workbook import new_workbook\n",
        "from econ.report.workbook import new_workbook, write_formula\n",
        how="replace",
    ),
    Edit(
        SHEET,
        "econ/report/cover.py",
        ("GUIDE",),
        r"^GUIDE = \(\n",
        f'    ("{NEW_SHEET}", "NPV and payback on one page, live."),\n',
    ),
]


@pytest.mark.slow  # an end-to-end run of the commands: the full suite (ECON_SLOW=1)
def test_an_extra_sheet_follows_the_checklist(tmp_path):
    root = copy_project(tmp_path)
    apply(root, EXTRA_SHEET)
    data = ["--data", str(root / "data")]
    out = tmp_path / "reports"
    runs = run_copy(
        root,
        [
            {"econ": ["summary", "--json", *data]},
            {"econ": ["report", "--no-sensitivity", *data, "--out", str(out)]},
        ],
    )
    head = json.loads(runs[0]["stdout"])
    book = out / "base" / "payback_analysis.xlsx"
    formulas = openpyxl.load_workbook(book)
    values = openpyxl.load_workbook(book, data_only=True)
    names = formulas.sheetnames
    # FAST order: after the calculations it reads, before Checks and the hidden Run sheets
    assert names.index(NEW_SHEET) == names.index("Payback") + 1 < names.index("Checks")
    cell = named_cell(formulas, "key_npv_usd")
    assert (cell.parent.title, cell.value) == (NEW_SHEET, "=npv_usd")
    assert named_value(values, "key_npv_usd") == pytest.approx(head["npv_usd"], **APPROX)
    assert named_value(values, "key_payback_months") == pytest.approx(
        head["payback_months"], **APPROX
    )
    assert formulas[NEW_SHEET].page_setup.orientation == "landscape"  # build's print set-up
    cover = [c.value for c in formulas["Cover"]["A"]]
    assert NEW_SHEET in cover  # the Cover's guide to the sheets


# ---------------------------------------------------------------- a sensitivity method

STEP = 0.01  # the toy method moves each input by +-1 %

SENSITIVITY_METHOD = [
    Edit(
        METHOD,
        "econ/sensitivity/elasticity.py",
        (),
        "",
        '''"""Elasticities: each input one at a time at +-step of its value, the others at base."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd

from econ.sensitivity.sampling import Problem

Func = Callable[[Mapping[str, np.ndarray]], Mapping[str, np.ndarray]]


def elasticities(f: Func, problem: Problem, outputs: list[str], step: float = 0.01) -> pd.DataFrame:
    """(dy / y) / (dx / x) by central differences at x (1 +- step), clipped to each variable's
    valid range, in ONE vectorised call; NaN where x or y is 0. Tidy: output, variable, base,
    output_base, elasticity."""
    names = problem.names
    base = problem.base()
    params = {k: np.full(2 * len(names) + 1, v, dtype=float) for k, v in base.items()}
    xs = {}
    for j, v in enumerate(problem.variables):
        lo, hi = v.clip
        x = np.array([v.base * (1 - step), v.base * (1 + step)])
        x = np.maximum(x, lo) if lo is not None else x
        x = np.minimum(x, hi) if hi is not None else x
        params[v.name][1 + 2 * j : 3 + 2 * j] = x
        xs[v.name] = x
    out = f(params)
    rows = []
    for o in outputs:
        y = np.asarray(out[o], float)
        for j, n in enumerate(names):
            dx = (xs[n][1] - xs[n][0]) / base[n] if base[n] != 0 else np.nan
            dy = (y[2 + 2 * j] - y[1 + 2 * j]) / y[0] if y[0] != 0 else np.nan
            e = dy / dx if dx != 0 else np.nan
            rows.append({"output": o, "variable": n, "base": base[n], "output_base": y[0], "elasticity": e})
    return pd.DataFrame(rows)
''',
        how="create",
    ),
    Edit(
        METHOD,
        "econ/sensitivity/run.py",
        (),
        r"^from econ\.sensitivity\.sampling import .*\n",
        "from econ.sensitivity import elasticity as elasticity_method\n",
        how="before",
    ),
    Edit(
        METHOD,
        "econ/sensitivity/run.py",
        ("run_cli",),
        r"^def run_cli\(",
        '''def elasticities(a: Assumptions) -> pd.DataFrame:
    """Elasticity of every output to every key of sensitivity.csv."""
    return elasticity_method.elasticities(model_function(a), problem_from(a), OUTPUTS)


''',
        how="before",
    ),
    Edit(
        METHOD,
        "econ/sensitivity/run.py",
        ("run_cli",),
        r'^    if analysis == "tornado":\n',
        '    if analysis == "elasticity":\n        return elasticities(a)\n',
        how="before",
    ),
    Edit(
        METHOD,
        "econ/cli.py",
        ("sensitivity", "choices"),
        r'choices=\((?P<names>"tornado", [^)]*)\)',
        r'choices=(\g<names>, "elasticity")',
        how="replace",
    ),
]


def test_a_toy_sensitivity_method_follows_the_checklist(tmp_path):
    root = copy_project(tmp_path)
    apply(root, SENSITIVITY_METHOD)
    runs = run_copy(
        root, [{"econ": ["sensitivity", "elasticity", "--json", "--data", str(root / "data")]}]
    )
    rows = {(r["output"], r["variable"]): r for r in json.loads(runs[0]["stdout"])}
    keys = [s.key for s in econ.load(root / "data").sensitivity]
    assert {v for _, v in rows} == set(keys)
    # by hand: the profitability index is the inflows' present value over the rent's, and the
    # rent is proportional to the contract value V, so the index is c / V; its central
    # difference at V (1 +- 0.01) gives (1/1.01 - 1/0.99) / 0.02 = -1 / 0.9999
    pi = rows[("profitability_index", "contract.value_usd")]["elasticity"]
    assert pi == pytest.approx(-1 / (1 - STEP**2), **APPROX)
    # agent latency does not enter the cash flows: NPV does not move at all
    assert rows[("npv_usd", "agent.ttft_s")]["elasticity"] == 0.0


# ---------------------------------------------------------------- the guide names what the tests edit


def _sections(text: str) -> dict[str, str]:
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    return {title.strip(): body for title, body in zip(parts[1::2], parts[2::2], strict=True)}


@pytest.mark.parametrize(
    ("checklist", "edits", "files"),
    [
        (PLATFORM, [], ("data/hardware.csv", "data/frontier.csv", "data/sensitivity.csv")),
        (STREAM, REVENUE_STREAM, ("data/assumptions.csv", "data/sensitivity.csv")),
        (SHEET, EXTRA_SHEET, ()),
        (METHOD, SENSITIVITY_METHOD, ()),
    ],
)
def test_each_checklist_names_the_files_and_functions_its_test_edits(checklist, edits, files):
    sections = _sections(GUIDE.read_text(encoding="utf-8"))
    assert checklist in sections, f"docs/extending.md has no section '## {checklist}'"
    body = sections[checklist]
    # a file the checklist creates is named by its folder (econ/sensitivity/<method>.py)
    named = {e.file if e.how != "create" else f"{Path(e.file).parent}/" for e in edits}
    named |= set(files) | {"docs/model.md"}
    for name in sorted(named | {n for e in edits for n in e.names}):
        assert name in body, f"docs/extending.md, '{checklist}' does not name {name}"
