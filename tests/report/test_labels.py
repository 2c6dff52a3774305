"""Every scalar key has a reader's label: the workbook and the analysis sheets never show a
bare dotted key where a label is expected."""

from econ.assumptions import SCALARS
from econ.report.labels import SCALAR_LABELS


def test_every_scalar_key_has_a_label():
    missing = sorted(set(SCALARS) - set(SCALAR_LABELS))
    assert not missing, f"add labels to econ/report/labels.py: {missing}"


def test_no_label_is_left_for_a_key_that_is_gone():
    stale = sorted(set(SCALAR_LABELS) - set(SCALARS))
    assert not stale, f"labels of keys that no longer exist: {stale}"
