"""Each workbook row is declared once (docs/extending.md, "A row of the workbook"): a stable name,
a label, a unit, one number format, a formula template and the Python values of every month."""

from __future__ import annotations

import numpy as np

from econ.headline import headline, report_tables
from econ.model import evaluate
from econ.report import chain, market_sheet, revenue_rows
from econ.report.rows import Result, Row
from econ.report.xl import MONTHS, NUMBER_FORMATS


def _declarations(a):
    r = evaluate(a)
    head = headline(a, r)
    analysis = report_tables(a, head)
    sheets = {
        "revenue": [d for part in revenue_rows.ROWS for d in part(a, r)],
        "costs": chain.rent_rows(a, r)
        + chain.buy_rows(a, r, analysis)
        + chain.buy_results(a, r, analysis)
        + chain.rent_vs_buy_results(a, analysis),
        "payback": chain.cash_rows(a, r)
        + chain.payback_results(a, r, head)
        + chain.npv_results(a, r, head)
        + chain.capacity_results(a, r, head)
        + chain.bridge(a, r, head),
        "market": [
            d
            for part in (
                market_sheet.usage_results,
                market_sheet.logit_results,
                market_sheet.share_results,
                market_sheet.no_deal_results,
                market_sheet.value_results,
            )
            for d in part(a, r)
        ],
    }
    return {k: [d for d in v if isinstance(d, Row | Result)] for k, v in sheets.items()}


def test_every_declared_row_has_a_label_a_unit_and_one_format(base):
    for sheet, decls in _declarations(base).items():
        names = [d.name for d in decls]
        assert len(names) == len(set(names)), sheet
        for d in decls:
            assert d.label and d.unit, (sheet, d.name)
            assert d.fmt in NUMBER_FORMATS, (sheet, d.name, d.fmt)
            assert "{m}" not in d.formula or isinstance(d, Row), (sheet, d.name)
            if isinstance(d, Row):  # every month 0..120 has its Python value
                assert np.asarray(d.value, float).shape == (MONTHS + 1,), (sheet, d.name)


def test_no_row_returns_text_into_a_numeric_row(base):
    """A timeline row holds numbers (0, or a flag in a row of its own), never "" among them."""
    text = {
        (sheet, d.name)
        for sheet, decls in _declarations(base).items()
        for d in decls
        if isinstance(d, Row) and ('""' in d.formula or '""' in (d.opening or ""))
    }
    assert text == set()
