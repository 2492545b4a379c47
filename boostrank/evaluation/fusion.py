"""Fusion of runs: one ranked list per query from several rankers' lists.

Score fusions combine each document's (normalised) scores: CombSUM, CombMNZ, CombANZ, CombMAX, CombMIN, CombMED
(Fox & Shaw, TREC-2 1994) and the weighted sum; rank fusions combine its ranks: reciprocal rank fusion (Cormack,
Clarke & Büttcher, SIGIR 2009), Borda (Aslam & Montague, SIGIR 2001), ISR and log-ISR (Mourão, Martins &
Magalhães, CMIG 2015).  A run is ranked as trec_eval ranks it (score descending, document id descending); a
document a run did not retrieve adds nothing to its score fusions and its rank fusions, except Borda's, which
shares the points a run did not award among the candidates it left unranked.  Weights are chosen on judgements by
:func:`optimize_fusion`.
"""

from __future__ import annotations

import itertools
import math
from typing import Mapping, Sequence

import numpy as np

from .._kernels.ids import by_hash_within_groups, union_by_hash
from .ids import IdBytes, QueryCodes
from .runs import Run

__all__ = ["fuse", "optimize_fusion", "FUSIONS", "NORMS"]

#: the fusion methods and what each combines: "score" fusions read the normalised scores, "rank" ones the ranks
FUSIONS = {"combsum": "score", "combmnz": "score", "combanz": "score", "combmax": "score", "combmin": "score",
           "combmed": "score", "wsum": "score", "rrf": "rank", "borda": "rank", "isr": "rank", "log_isr": "rank"}
#: the normalisations of each run's scores per query before a score fusion (ranx's definitions)
NORMS = ("min-max", "max", "sum", "zmuv", "rank", None)


def _runs(runs) -> dict:
    named = dict(runs) if isinstance(runs, Mapping) else {r.name: r for r in runs}
    if len(named) < 2 or not all(isinstance(r, Run) for r in named.values()):
        raise ValueError(f"fusion takes two or more Run objects (a dict or a sequence with distinct names), got "
                         f"{len(named)}")
    return named


def _union(runs: Sequence[Run]):
    """Every (query, document) any run retrieves: each run's rows as indices into the union, the union's queries
    (sorted) and documents (:class:`~boostrank.evaluation.ids.IdBytes`), the query (0 … n_queries − 1) of each entry, and
    each run's rank (1-based, trec_eval's order) of its rows."""
    queries = sorted(set().union(*(r.queries for r in runs)))
    where = {q: i for i, q in enumerate(queries)}
    segments = np.zeros((len(queries), len(runs), 2), dtype=np.int64)
    parts, start = [], 0
    for i, r in enumerate(runs):  # each run's rows by (query, hash), numbered across the runs
        parts.append(by_hash_within_groups(r._hash, r._by_query, r.offsets) + start)
        mine = np.array([where[q] for q in r.queries], dtype=np.int64)
        segments[mine, i, 0], segments[mine, i, 1] = start + r.offsets[:-1], start + r.offsets[1:]
        start += len(r)
    ids = IdBytes.concat([r._ids for r in runs])
    inverse, first, entry_query = union_by_hash(segments, np.concatenate(parts), np.concatenate([r._hash for r in runs]),
                                                ids.data, ids.offsets)
    cuts = np.cumsum([0] + [len(r) for r in runs])
    index = [inverse[a:b] for a, b in zip(cuts[:-1], cuts[1:])]
    ranks = []
    for r in runs:
        rank = np.empty(len(r), dtype=np.int64)
        rank[r.order] = np.arange(len(r)) - np.repeat(r.offsets[:-1], np.diff(r.offsets)) + 1
        ranks.append(rank)
    return index, queries, ids.take(first), entry_query, ranks


def _normalised(run: Run, ranks: np.ndarray, norm) -> np.ndarray:
    """One run's scores, normalised per query."""
    s, codes = run.score, run._codes
    n_q = len(run.queries)

    def per_query(values, reduce):
        out = np.full(n_q, np.nan)
        order = np.argsort(codes, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(codes[order]) != 0])
        out[codes[order][starts]] = reduce.reduceat(values[order], starts)
        return out[codes]

    if norm is None:
        return s.copy()
    if norm == "rank":  # 1 − (r − 1)/|list|
        return 1.0 - (ranks - 1) / np.bincount(codes, minlength=n_q)[codes]
    if norm == "zmuv":
        count = np.bincount(codes, minlength=n_q)[codes]
        mean = np.bincount(codes, weights=s, minlength=n_q)[codes] / count
        sd = np.sqrt(np.bincount(codes, weights=(s - mean) ** 2, minlength=n_q)[codes] / count)
        return np.where(sd > 0, (s - mean) / np.where(sd > 0, sd, 1.0), 0.0)
    low, high = per_query(s, np.minimum), per_query(s, np.maximum)
    if norm == "max":  # s / max|s|: ranx's s / max on non-negative scores; kept in order when some are negative
        top = np.maximum(high, -low)
        return np.where(top > 0, s / np.where(top > 0, top, 1.0), 0.0)
    if norm == "sum":
        shifted = s - low
        total = np.bincount(codes, weights=shifted, minlength=n_q)[codes]
        return np.where(total > 0, shifted / np.where(total > 0, total, 1.0), 0.0)
    span = high - low  # min-max; one score (or all equal) in a list: 1, as the list's best
    return np.where(span > 0, (s - low) / np.where(span > 0, span, 1.0), 1.0)


def _fused(method, index, values, n, weights, k, entry_query, list_sizes):
    """The fused score of each union entry from each run's per-row values (normalised scores or ranks)."""
    present = sum(np.bincount(i, minlength=n) for i in index).astype(np.float64)
    if method in ("combsum", "combmnz", "combanz", "wsum"):
        total = sum(w * np.bincount(i, weights=v, minlength=n) for i, v, w in zip(index, values, weights))
        return total * present if method == "combmnz" else total / present if method == "combanz" else total
    if method in ("combmax", "combmin", "combmed"):
        at, v = np.concatenate(index), np.concatenate(values)
        order = np.lexsort((v, at))
        at, v = at[order], v[order]
        starts = np.flatnonzero(np.r_[True, np.diff(at) != 0])
        if method == "combmax":
            return v[np.r_[starts[1:], at.size] - 1]
        if method == "combmin":
            return v[starts]
        size = np.diff(np.r_[starts, at.size])
        return (v[starts + (size - 1) // 2] + v[starts + size // 2]) / 2.0
    if method == "rrf":
        return sum(w * np.bincount(i, weights=1.0 / (k + r), minlength=n) for i, r, w in zip(index, values, weights))
    if method in ("isr", "log_isr"):
        total = sum(w * np.bincount(i, weights=1.0 / r.astype(np.float64) ** 2, minlength=n)
                    for i, r, w in zip(index, values, weights))
        return total * (present if method == "isr" else np.log(present))
    # Borda: c − r + 1 points at rank r among c candidates; the rest, shared by the candidates a run left out
    candidates = np.bincount(entry_query)[entry_query].astype(np.float64)
    total = np.zeros(n)
    for i, r, w, sizes in zip(index, values, weights, list_sizes):
        mine = np.zeros(n, dtype=bool)
        mine[i] = True
        total[i] += w * (candidates[i] - r + 1)
        left = ~mine
        total[left] += w * (candidates[left] - sizes[entry_query[left]] + 1) / 2.0
    return total


def fuse(runs, method: str = "rrf", *, norm: str | None = "min-max", weights: Sequence[float] | None = None,
         k: float = 60.0, name: str | None = None) -> Run:
    """One run from several: each query's documents ranked by their fused score.

    Parameters
    ----------
    runs : dict of name to Run, or sequence of Run
    method : str, default="rrf"
        ``"combsum"``, ``"combmnz"``, ``"combanz"``, ``"combmax"``, ``"combmin"``, ``"combmed"`` (Fox &
        Shaw: the sum of a document's scores, times or over the number of runs that retrieved it, their
        maximum, minimum, median), ``"wsum"`` (Σ wᵢ sᵢ), ``"rrf"`` (Cormack et al.: Σ wᵢ / (k + rᵢ)),
        ``"borda"`` (Aslam & Montague: Σ wᵢ (c − rᵢ + 1) among c candidates, the points a run did not
        award shared evenly by the candidates it did not rank), ``"isr"`` and ``"log_isr"`` (Mourão et al.:
        Σ wᵢ / rᵢ² times the number of runs that retrieved the document, or its logarithm).
    norm : {"min-max", "max", "sum", "zmuv", "rank", None}, default="min-max"
        Of each run's scores per query, before a score fusion (ranx's definitions; rank fusions use the
        ranks), except ``"max"``: s / max|s|, which is ranx's s / max on non-negative scores and keeps the
        order of a run with negative ones (log-probabilities, negative distances), which s / max reverses.
    weights : sequence of float, default=None
        One per run (all 1); they multiply each run's term.
    k : float, default=60.0
        RRF's constant.
    name : str, default=None
        The fused run's name (default: the method's).

    Returns
    -------
    Run
    """
    named = _runs(runs)
    if method not in FUSIONS:
        raise ValueError(f"method must be one of {sorted(FUSIONS)}, got {method!r}")
    if norm not in NORMS:
        raise ValueError(f"norm must be one of {list(NORMS)}, got {norm!r}")
    w = np.ones(len(named)) if weights is None else np.asarray(weights, dtype=np.float64).ravel()
    if w.shape[0] != len(named) or not np.isfinite(w).all() or (w < 0).any():
        raise ValueError(f"weights: one non-negative number per run ({len(named)}), got {weights!r}")
    if weights is not None and method in ("combmax", "combmin", "combmed"):
        raise ValueError(f"{method} takes no weights: it picks one run's score per document")
    if not (math.isfinite(k) and k >= 0):
        raise ValueError(f"k must be a non-negative number, got {k!r}")
    rs = list(named.values())
    index, queries, docids, entry_query, ranks = _union(rs)
    n = entry_query.shape[0]
    if FUSIONS[method] == "score":
        values = [_normalised(r, rank, norm) for r, rank in zip(rs, ranks)]
    else:
        values = ranks
    sizes = [np.bincount(entry_query[i], minlength=len(queries)).astype(np.float64) for i in index]
    score = _fused(method, index, values, n, w, float(k), entry_query, sizes)
    return Run(QueryCodes(queries, entry_query), docids, score, name=name or method)


def optimize_fusion(truth, runs, metric: str = "ndcg_cut_10", method: str = "wsum", *, norm: str | None = "min-max",
                    step: float = 0.1, k: float = 60.0, **evaluate_options) -> tuple[np.ndarray, list]:
    """The weights of ``method`` that maximise ``metric`` on ``truth``: a grid over the simplex.

    Every weight vector with entries in multiples of ``step`` that sum to 1 is tried, so the budget is
    stated up front: C(1/step + n − 1, n − 1) fusions for n runs (66 for 3 runs at 0.1, 1 001 for 5).

    Parameters
    ----------
    truth
        Judgements, as :func:`boostrank.evaluate` takes them.
    runs
        As :func:`fuse` takes them.
    metric : str, default="ndcg_cut_10"
    method, norm, k
        As in :func:`fuse`.
    step : float, default=0.1
        The grid's spacing; 1/step must be a whole number.
    **evaluate_options
        Passed to :func:`boostrank.evaluate` (``relevance_level``, ``depth``, ...).

    Returns
    -------
    weights : ndarray
        The best weights (the first found, in the grid's order, on a tie).
    trials : list of (weights, value)
        Every point of the grid and its metric.
    """
    from .evaluate import evaluate

    named = _runs(runs)
    parts = round(1.0 / step)
    if parts < 1 or abs(parts * step - 1.0) > 1e-9:
        raise ValueError(f"step must divide 1 into a whole number of parts, got {step!r}")
    trials = []
    for cut in itertools.combinations(range(parts + len(named) - 1), len(named) - 1):  # stars and bars
        counts = np.diff(np.r_[-1, cut, parts + len(named) - 1]) - 1
        w = counts / parts
        fused = fuse(named, method, norm=norm, weights=w, k=k)
        trials.append((w, evaluate(truth, fused, metric, **evaluate_options)[metric]))
    best = max(range(len(trials)), key=lambda t: trials[t][1])
    return trials[best][0], trials
