"""One name per figure: the name every machine output gives a figure (``--json``, ``--csv``,
the Python API's columns and attributes, the workbook's defined names) and the words every
text uses for it (the summary, the tables' headers, the workbook's labels).

Where two figures are easy to take for one another, both are here with the words that tell
them apart; ``tests/test_terminal.py`` reads the names from every surface and compares them
with this table.
"""

from __future__ import annotations

# name -> the words for it in text (lower case; a text may capitalise them)
FIGURES: dict[str, str] = {
    # the API's cash: ultrafast tokens at their price less the standard and fast revenue
    # they replace (api_t), and the gross before that
    "api_revenue_usd": "net ultrafast API revenue",
    "api_gross_revenue_usd": "gross ultrafast API revenue",
    "api_revenue_lost_usd": "standard and fast API revenue the ultrafast tokens replace",
    # the terminal value: at the horizon (undiscounted) and as the NPV counts it
    "terminal_value_usd": "terminal value at the horizon",
    "terminal_value_pv_usd": "terminal value's present value",
    # the Monte Carlo
    "cumulative_cash_fan": "fan of cumulative cash",
    "value_of_information": "value of information",
    "evpi_usd": "EVPI",
    "evppi_usd": "EVPPI",
    # the column of keys of every table (tornado, Sobol, break-even, value of information,
    # explain, keys)
    "key": "key",
}

# a name before version 4 -> its one name now (docs/api.md lists them; the Python API still
# answers to the old ones where it cheaply can: MonteCarlo.evpi and .fan, the headline's
# totals)
RENAMED: dict[str, str] = {
    "variable": "key",  # tornado and Sobol frames, their JSON and CSV
    "evppi": "value_of_information",  # econ sensitivity montecarlo --json
    "fan": "cumulative_cash_fan",  # MonteCarlo attribute
    "evpi": "evpi_usd",  # MonteCarlo attribute, value_of_information.attrs
    "evpi_se": "evpi_se_usd",  # value_of_information.attrs
    "options_usd": "decision_options_usd",  # value_of_information.attrs
    "api_ultrafast_revenue_usd": "api_gross_revenue_usd",  # summary --json totals
}
