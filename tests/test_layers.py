"""The package's imports run one way: from the command line down to the assumptions, never
back up, and no two modules import each other (at module level or inside a function).

The layers, lowest first: the assumptions and the leaf helpers (constants, limits, temporary
files, and econ/payback.py, the finance arithmetic that the model and the buy case compute
with, which imports nothing of econ); compute and revenue; the model; the analyses on top of
it (sensitivity, decisions, explain, the headline, keys, worker processes); the report; the
command line and the Python API (econ/cli.py, econ/api.py, the package itself).
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "econ"

LAYERS = {
    0: ("assumptions", "constants", "limits", "tempfiles", "payback", "formatting", "names"),
    1: ("compute", "revenue"),
    2: ("model", "blocks"),
    3: ("sensitivity", "decisions", "explain", "headline", "keys", "parallel", "worth"),
    4: ("report",),
    5: ("cli", "api", "__main__", ""),
}

# the imports from a lower layer up that remain, each with its reason
ALLOWED_UP = {
    # Assumptions.covers asks the one definition of "a frontier covers this speed", which the
    # interpolation in econ/compute/capacity.py uses too (imported inside the method);
    # moving that definition down means editing econ/compute/capacity.py
    ("econ.assumptions", "econ.compute.capacity"),
    # econ/compute/tables.py imports the model for its tables: version 4 removes this import
    ("econ.compute.tables", "econ.model"),
}
ALLOWED_CIRCLES = {
    frozenset(("econ.compute.tables", "econ.model")),  # the same, version 4
    # econ.model.evaluate hands a design larger than a block to econ.blocks, which evaluates
    # each block with the model's own stages: one mechanism in two modules (inside functions)
    frozenset(("econ.blocks", "econ.model")),
}


def _layer(module: str) -> int:
    parts = module.split(".")
    name = parts[1] if len(parts) > 1 else ""
    for layer, names in LAYERS.items():
        if name in names:
            return layer
    raise AssertionError(f"{module}: in no layer; add it to LAYERS")


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> set[tuple[str, str]]:
    """(importer, imported) for every import of an econ module, wherever it is written."""
    edges = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        me = _module(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("econ"):
                for alias in node.names:
                    if (node.module, alias.name) == ("econ", "__version__"):
                        continue  # the installed version: metadata, not the API
                    sub = f"{node.module}.{alias.name}"
                    is_module = (ROOT / Path(*sub.split("."))).with_suffix(".py").exists()
                    targets.append(sub if is_module else node.module)
            elif isinstance(node, ast.Import):
                targets += [a.name for a in node.names if a.name.split(".")[0] == "econ"]
            edges |= {(me, t) for t in targets if t != me}
    return edges


def test_no_import_runs_from_a_lower_layer_up_but_those_explained():
    edges = _imports()
    assert len(edges) > 150  # the scan sees the package
    up = {(a, b) for a, b in edges if _layer(b) > _layer(a)}
    assert up <= ALLOWED_UP, sorted(up - ALLOWED_UP)
    assert len(up - {("econ.compute.tables", "econ.model")}) <= 1


def test_no_two_modules_import_each_other():
    edges = _imports()
    circles = {frozenset((a, b)) for a, b in edges if (b, a) in edges}
    assert circles <= ALLOWED_CIRCLES, sorted(map(sorted, circles - ALLOWED_CIRCLES))


def test_the_finance_arithmetic_is_a_leaf():
    # the one formatter writes a goal seek's answer in its unit (econ.formatting, layer 0)
    assert {b for a, b in _imports() if a == "econ.payback"} <= {"econ.formatting"}
