"""The physics envelope the Capacity sheet computes live (econ/report/envelope_rows.py): its
closed form per layout against a brute-force search over serving speeds, and the rows the money
reads (their values against the econ run's: LibreOffice's recalculation, test_workbook_recalc)."""

from __future__ import annotations

import numpy as np
import pytest

from econ.compute import physics, tables, transfer
from econ.model import evaluate
from econ.report.capacity_rows import Marked, Table
from econ.report.envelope_rows import envelope_blocks


def _brute_force(a, plat: str, speed: float) -> float:
    """The envelope by search: every candidate layout, serving speeds c >= s on a fine grid up
    to the ceiling and the exact peak, min(bandwidth, memory) streams x c, the best, capped by
    compute, per facility MW (docs/model.md, section V4.5, without its closed form)."""
    m, ch = tables.served_model(a), tables.chip(a, plat)
    hold, read, kv = (float(x) for x in physics.weight_bytes(m))
    _, k_min = (float(x) for x in physics.layout(m, ch))
    cap = max(transfer.stage_cap(a, plat), k_min)
    ks = [k_min] + [float(k) for k in physics.stage_grid(k_min, cap) if k > k_min]
    rate = float(physics.read_rate(ch))
    spec = float(m.speculative_speedup)
    best = 0.0
    for k in ks:
        h = k if k >= 2 else 0.0
        a_k = (h * float(ch.hop_latency_us) + float(m.layers) * float(ch.layer_latency_us)) * 1e-6
        a_k += read / rate
        d_k = kv / rate + h * float(m.d_model) * float(m.bytes_per_param) / (
            float(ch.link_gb_s) * 1e9
        )
        b_k = (k * float(ch.domain_chips) * float(ch.memory_gb) * 1e9 - hold) / (k * kv)
        top = spec / a_k  # the bandwidth line reaches zero here
        cs = np.geomspace(speed, max(top, speed * 1.000001), 200_001)
        bw = (spec - cs * a_k) / d_k  # streams x speed the bandwidth allows
        best = max(best, float(np.max(np.minimum(bw, cs * b_k))))
    return min(best, float(physics.compute_bound(m, ch))) * float(
        physics.per_mw(ch, a.num("facility.pue"))
    )


@pytest.mark.parametrize(
    ("plat", "speed", "changes"),
    [
        ("wse3", 750.0, {}),
        ("b300", 54.0, {}),
        ("b300", 134.0, {"model.kv_bytes_per_token": "1300000"}),
        ("b300", 20.0, {"usage.context_tokens": "32768"}),
        ("wse3", 54.0, {"usage.context_tokens": "4096"}),
    ],
)
def test_econs_envelope_is_the_best_layout_at_its_best_serving_speed(base, plat, speed, changes):
    a = base.with_overrides(list(changes.items()))
    m, ch = tables.served_model(a), tables.chip(a, plat)
    econ = float(physics.envelope(speed, m, ch, a.num("facility.pue"),
                                  k_cap=transfer.stage_cap(a, plat)).throughput)  # fmt: skip
    assert econ > 0
    # the search on a grid of 200,001 speeds lands within a part in 10^4 of the exact peak
    assert econ == pytest.approx(_brute_force(a, plat, speed), rel=1e-4)


def test_the_money_reads_the_envelope_rows_hull_and_realisation_included(base):
    """The throughputs that feed the money are formulas on the envelope's rows: the B300's
    hull (its realisation rises with the regime on the bundled data), the WSE-3's realisation
    at the tier times its envelope (one measurement: eta flat, no hull), each times its
    frontier scale. That they recompute to the run's values is LibreOffice's test
    (test_workbook_recalc: every formula against the value econ wrote, and edits of the KV
    cache, the context and the prefill against econ's NPV)."""
    rows, formulas = envelope_blocks(base, evaluate(base))
    names = {d.name for d in rows if isinstance(d, Table | Marked)}
    assert {"envc_layout", "envg_layout", "envg_hull", "envg_stage_cap"} <= names
    assert "envc_hull" not in names
    assert set(formulas) == {"thr_ultrafast", "thr_standard", "gpu_thr_standard", "gpu_thr_fast"}
    for t in ("standard", "fast"):
        assert "envg_hull_hull" in formulas[f"gpu_thr_{t}"], t
        assert formulas[f"gpu_thr_{t}"].endswith("*hardware_b300_frontier_scale"), t
    assert (
        formulas["thr_standard"]
        == "eta_wse3_standard*envc_env_standard*hardware_wse3_frontier_scale"
    )
    assert formulas["thr_ultrafast"].startswith("IF(ultrafast_offered=1,eta_wse3_ultrafast*")


def test_no_envelope_rows_on_the_data_basis(base):
    a = base.with_overrides([("capacity.basis", "data")])
    assert envelope_blocks(a, evaluate(a)) == ([], {})
