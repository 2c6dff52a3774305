"""Where a change in NPV (and payback) comes from: Shapley values over the changed keys.

Between a reference case (default: the bundled data) and this one, every key whose value
differs is a player; the value of a coalition S is the NPV with the keys of S at this
case's values and every other key at the reference's. A key's Shapley value is its
marginal contribution averaged over every order in which the changes could be made:
phi_i = sum over S not holding i of |S|! (k - |S| - 1)! / k! (v(S + i) - v(S)). The values
sum to the whole change (efficiency); where the keys' effects add, each equals its
one-at-a-time change; where they interact, the interaction is shared between them.

Exact (all 2^k coalitions) up to ``EXACT_MAX`` changed keys; beyond, ``PERMUTATIONS``
random orders (seeded), each giving every key's marginal contribution along it, with the
standard error of each mean. Numeric keys enter the model as arrays (one evaluation for
every coalition that shares its structural keys); structural keys (platform, basis,
horizon, ids) cannot be arrays, so the coalitions are grouped by which of them they
change, one evaluation per group.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from econ.assumptions import AssumptionError, Assumptions, is_structural
from econ.model import evaluate

EXACT_MAX = 12  # changed keys up to which every coalition is evaluated
PERMUTATIONS = 2_000  # random orders beyond, at most ...
EVALUATIONS = 200_000  # ... and at most about this many model evaluations (k + 1 an order)
SEED = 20_260_101
# coalitions per model evaluation at most: a coalition is one scenario of the model, about
# 0.1 MB while it evaluates (the served speed chosen among six), so about 0.2 GB at a time
# however many keys differ; the coalitions themselves are made chunk by chunk too
CHUNK = 2_048
MAX_EVALUATIONS = 2 * EVALUATIONS  # beyond, refused: explain against a closer case


@dataclass(frozen=True)
class Change:
    key: str
    before: float | str
    after: float | str


@dataclass
class Explanation:
    """The change from ``reference`` to ``case`` attributed to each changed key.

    table : key, before, after, npv_share_usd, npv_share_se_usd (0 where exact),
        npv_one_at_a_time_usd, payback_share_months, payback_one_at_a_time_months
        (NaN where some combination does not pay back), largest |NPV share| first.
    method : "exact" or "sampled"; orders : permutations sampled (0 where exact).
    not_compared : keys present in only one of the two cases (not attributed).
    """

    reference: str
    case: str
    npv_before: float
    npv_after: float
    payback_before: float
    payback_after: float
    table: pd.DataFrame
    method: str
    orders: int
    note: str
    not_compared: tuple[str, ...] = ()

    @property
    def npv_change(self) -> float:
        return self.npv_after - self.npv_before

    def to_dict(self) -> dict:
        return {
            "reference": self.reference,
            "case": self.case,
            "npv_before_usd": self.npv_before,
            "npv_after_usd": self.npv_after,
            "npv_change_usd": self.npv_change,
            "payback_before_months": self.payback_before,
            "payback_after_months": self.payback_after,
            "method": self.method,
            "permutations": self.orders,
            "note": self.note,
            "not_compared": list(self.not_compared),
            "keys": self.table.to_dict(orient="records"),
        }


def changes(case: Assumptions, reference: Assumptions) -> tuple[list[Change], list[str]]:
    """The keys whose values differ (in key order of the case), and the keys only one has."""
    out = []
    for k, v in case.values.items():
        if k in reference.values:
            w = reference.values[k]
            if isinstance(v, str) or isinstance(w, str):
                same = str(v) == str(w)
            else:
                same = float(v) == float(w)
            if not same:
                out.append(Change(k, w, v))
    only = sorted(set(case.values) ^ set(reference.values))
    return out, only


def _text(v: float | str) -> str:
    return v if isinstance(v, str) else repr(float(v))


def _evaluate(
    reference: Assumptions, keys: Sequence[Change], masks_of, total: int
) -> tuple[np.ndarray, np.ndarray]:
    """NPV and payback of ``total`` coalitions; ``masks_of(rows)`` gives the bool matrix
    (rows x keys) of the coalitions numbered ``rows``, made a chunk at a time. Numeric keys
    enter as arrays, one model evaluation per chunk and combination of structural keys."""
    npv = np.empty(total)
    payback = np.empty(total)
    structural = [j for j, c in enumerate(keys) if is_structural(c.key, c.after)]
    numeric = [j for j, c in enumerate(keys) if j not in structural]
    groups = np.zeros(total, np.int64)
    if structural:
        bits = 1 << np.arange(len(structural))
        for s in range(0, total, CHUNK):
            rows = np.arange(s, min(s + CHUNK, total))
            groups[rows] = masks_of(rows)[:, structural] @ bits
    for g in np.unique(groups):
        rows = np.flatnonzero(groups == g)
        pairs = [
            (keys[j].key, _text(keys[j].after))
            for b, j in enumerate(structural)
            if (int(g) >> b) & 1
        ]
        try:
            a = reference.with_overrides(pairs, origin="explain") if pairs else reference
        except AssumptionError as exc:
            raise AssumptionError(
                f"econ explain: the changes {', '.join(k for k, _ in pairs)} together with the "
                f"reference's other values are not a valid case: {exc}"
            ) from None
        for s in range(0, len(rows), CHUNK):
            part = rows[s : s + CHUNK]
            masks = masks_of(part)
            over = {
                keys[j].key: np.where(masks[:, j], float(keys[j].after), float(keys[j].before))
                for j in numeric
            }
            try:
                r = evaluate(a, over, detail=False, monthly=False)
            except AssumptionError as exc:
                raise AssumptionError(
                    "econ explain: a mix of this case's and the reference's values is not a "
                    f"valid case ({exc}); compare cases closer to each other"
                ) from None
            npv[part] = r.npv
            payback[part] = r.payback_months
    return npv, payback


def _weights(k: int) -> np.ndarray:
    """|S|! (k - |S| - 1)! / k! for |S| = 0..k-1."""
    s = np.arange(k)
    return np.exp(
        np.array([math.lgamma(x + 1) + math.lgamma(k - x) - math.lgamma(k + 1) for x in s])
    )


def shapley_exact(v: np.ndarray, k: int) -> np.ndarray:
    """Shapley values of k players from v over every coalition, indexed by bitmask (2^k,)."""
    masks = np.arange(1 << k)
    size = np.array([bin(m).count("1") for m in masks])
    w = _weights(k) if k else np.zeros(0)
    out = np.empty(k)
    for i in range(k):
        without = masks[(masks >> i) & 1 == 0]
        out[i] = np.sum(w[size[without]] * (v[without | (1 << i)] - v[without]))
    return out


def explain(
    case: Assumptions,
    reference: Assumptions,
    reference_name: str = "the bundled data",
    case_name: str | None = None,
    exact_max: int = EXACT_MAX,
    permutations: int | None = None,
    seed: int = SEED,
) -> Explanation:
    """Attribute NPV(case) - NPV(reference), and the change in payback, to the changed keys."""
    keys, only = changes(case, reference)
    k = len(keys)
    base = evaluate(reference, detail=False)
    new = evaluate(case, detail=False)
    npv0, npv1 = float(base.npv[0]), float(new.npv[0])
    pb0, pb1 = float(base.payback_months[0]), float(new.payback_months[0])
    cols = [
        "key",
        "before",
        "after",
        "npv_share_usd",
        "npv_share_se_usd",
        "npv_one_at_a_time_usd",
        "payback_share_months",
        "payback_one_at_a_time_months",
    ]
    name = case_name or case.scenario
    if k == 0:
        note = "no key differs from " + reference_name
        return Explanation(
            reference_name,
            name,
            npv0,
            npv1,
            pb0,
            pb1,
            pd.DataFrame(columns=cols),
            "exact",
            0,
            note,
            tuple(only),
        )
    if k <= exact_max:

        def bitmasks(rows: np.ndarray) -> np.ndarray:
            return ((rows[:, None] >> np.arange(k)) & 1).astype(bool)

        v, p = _evaluate(reference, keys, bitmasks, 1 << k)
        share = shapley_exact(v, k)
        se = np.zeros(k)
        p_share = shapley_exact(p, k) if np.isfinite(p).all() else np.full(k, np.nan)
        single = 1 << np.arange(k)
        one, p_one = v[single] - v[0], p[single] - p[0]
        method, orders = "exact", 0
        note = f"Shapley values over all {1 << k:,} combinations of the {k} changed keys (exact)"
    else:
        if permutations is None:
            permutations = max(100, min(PERMUTATIONS, EVALUATIONS // (k + 1)))
        n_flat = permutations * (k + 1)
        if n_flat + k + 1 > MAX_EVALUATIONS:
            raise AssumptionError(
                f"econ explain: {k:,} keys differ from {reference_name}; sharing the change "
                f"between them takes {n_flat + k + 1:,} model evaluations, expected at most "
                f"{MAX_EVALUATIONS:,}: explain against a case closer to this one (--against)"
            )
        rng = np.random.default_rng(seed)
        order = np.argsort(rng.random((permutations, k)), axis=1)  # (M, k) key order
        pos = np.argsort(order, axis=1)  # where each key comes in each order

        def along_orders(rows: np.ndarray) -> np.ndarray:
            """Coalition r < M (k + 1): the first r % (k + 1) keys of order r // (k + 1);
            then none, and each key alone."""
            out = np.zeros((rows.size, k), bool)
            on = rows < n_flat
            m, j = np.divmod(rows[on], k + 1)
            out[on] = pos[m] < j[:, None]
            alone = rows[~on] - n_flat  # 0: none; i: key i - 1 alone
            out[np.flatnonzero(~on)[alone > 0], alone[alone > 0] - 1] = True
            return out

        v_all, p_all = _evaluate(reference, keys, along_orders, n_flat + k + 1)
        v = v_all[:n_flat].reshape(permutations, k + 1)
        p = p_all[:n_flat].reshape(permutations, k + 1)
        gain = np.diff(v, axis=1)  # (M, k): the marginal contribution of order[:, j]
        contrib = np.empty_like(gain)
        np.put_along_axis(contrib, order, gain, axis=1)
        share = contrib.mean(axis=0)
        se = contrib.std(axis=0, ddof=1) / math.sqrt(permutations)
        if np.isfinite(p).all():
            pg = np.empty_like(gain)
            np.put_along_axis(pg, order, np.diff(p, axis=1), axis=1)
            p_share = pg.mean(axis=0)
        else:
            p_share = np.full(k, np.nan)
        v0, vs = v_all[n_flat], v_all[n_flat + 1 :]
        q0, qs = p_all[n_flat], p_all[n_flat + 1 :]
        one, p_one = vs - v0, qs - q0
        method, orders = "sampled", permutations
        note = (
            f"Shapley values from {permutations:,} random orders of the {k} changed keys "
            f"(more than {exact_max}: sampled; each share's standard error is given); the shares "
            "still sum to the whole change"
        )
    if not np.isfinite(p_share).all():
        note += "; payback is not attributed: some combination of the changes does not pay back"
    table = pd.DataFrame(
        {
            "key": [c.key for c in keys],
            "before": [c.before for c in keys],
            "after": [c.after for c in keys],
            "npv_share_usd": share,
            "npv_share_se_usd": se,
            "npv_one_at_a_time_usd": one,
            "payback_share_months": p_share,
            "payback_one_at_a_time_months": p_one,
        }
    )
    order_ = np.argsort(-np.abs(table["npv_share_usd"].to_numpy()), kind="stable")
    table = table.iloc[order_].reset_index(drop=True)
    if only:
        note += f"; {len(only)} keys exist in only one of the two cases and are not compared"
    return Explanation(
        reference_name, name, npv0, npv1, pb0, pb1, table, method, orders, note, tuple(only)
    )
