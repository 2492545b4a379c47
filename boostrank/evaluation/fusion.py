"""Fusion of runs: one ranked list per query from several rankers' lists.

Score fusions combine each document's (normalised) scores: CombSUM, CombMNZ, CombANZ, CombMAX, CombMIN, CombMED
(Fox & Shaw, TREC-2 1994) and the weighted sum; rank fusions combine its ranks: reciprocal rank fusion (Cormack,
Clarke & Büttcher, SIGIR 2009), Borda (Aslam & Montague, SIGIR 2001), ISR and log-ISR (Mourão, Martins &
Magalhães, CMIG 2015), their log-N variant, rank-biased centroids (Bailey, Moffat, Scholer & Thomas, SIGIR 2017)
and Condorcet fusion (Montague & Aslam, CIKM 2002); WMNZ and Mixed (Wu & Crestani, CIKM 2002) and GMNZ (Lee, SIGIR
1997) weigh the sum by the runs that retrieved a document; ProbFuse, SegFuse, PosFuse, SlideFuse, MAPFuse and
BayesFuse learn from judged training runs (:mod:`boostrank.evaluation.learned_fusion`).  A run is ranked as
trec_eval ranks it (score descending, document id descending); a document a run did not retrieve adds nothing to
its score fusions and its rank fusions, except Borda's, which shares the points a run did not award among the
candidates it left unranked.  Weights are chosen on judgements by :func:`optimize_fusion`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from typing import Sequence

import numpy as np

from .._kernels.ids import by_hash_within_groups, union_by_hash
from .ids import IdBytes, QueryCodes
from .learned_fusion import (
    LEARNED,
    MIN_LOG_ODDS,
    TrainedFusion,
    learned_values,
    runs_to_fuse,
    train_fusion,
)
from .runs import Run

__all__ = ["fuse", "optimize_fusion", "train_fusion", "method_of", "FUSIONS", "ALIASES", "NORMS", "PARAMETERS"]

#: the fusion methods and what each combines: "score" fusions read the normalised scores, "rank" ones the ranks,
#: "learned" ones what train_fusion learned of each rank (segfuse: and the normalised scores)
FUSIONS = {**dict.fromkeys(LEARNED, "learned"),
           "combsum": "score", "combmnz": "score", "combanz": "score", "combmax": "score", "combmin": "score",
           "combmed": "score", "wsum": "score", "wmnz": "score", "gmnz": "score", "mixed": "score",
           "rrf": "rank", "borda": "rank", "w_bordafuse": "rank", "isr": "rank", "log_isr": "rank",
           "logn_isr": "rank", "rbc": "rank", "condorcet": "rank", "w_condorcet": "rank"}
#: ranx's names of the fusions it spells otherwise (``ranx.fuse(method="mnz")``), taken as they are
ALIASES = {"sum": "combsum", "mnz": "combmnz", "anz": "combanz", "max": "combmax", "min": "combmin",
           "med": "combmed", "bordafuse": "borda", "weighted_bordafuse": "w_bordafuse",
           "weighted_condorcet": "w_condorcet"}
#: the normalisations of each run's scores per query before a score fusion (ranx's definitions)
NORMS = ("min-max", "max", "sum", "zmuv", "rank", "borda", None)
#: each method's own parameter, its name in fuse() (train_fusion() for the learned ones) and the grid
#: optimize_fusion searches (ranx's ranges)
PARAMETERS = {"probfuse": ("n_segments", tuple(range(1, 101))), "slidefuse": ("w", tuple(range(1, 101))),
              "rrf": ("k", tuple(range(10, 101, 10))), "gmnz": ("gamma", tuple(np.round(np.arange(1, 101) / 100, 2))),
              "logn_isr": ("sigma", tuple(np.round(np.arange(1, 101) / 100, 2))),
              "rbc": ("phi", tuple(np.round(np.arange(1, 100) / 100, 2)))}


def _union(runs: Sequence[Run], need_ranks: bool = True):
    """Every (query, document) any run retrieves: each run's rows as indices into the union, the union's queries
    (sorted) and documents (:class:`~boostrank.evaluation.ids.IdBytes`), the query (0 … n_queries − 1) of each entry, and
    each run's rank (1-based, trec_eval's order) of its rows (None each unless ``need_ranks``).  The runs' rows
    are gathered once into preallocated arrays and each temporary is dropped before the next is made, so that the
    peak holds the runs' rows once, not copies of them."""
    queries = sorted(set().union(*(r.queries for r in runs)))
    where = {q: i for i, q in enumerate(queries)}
    segments = np.zeros((len(queries), len(runs), 2), dtype=np.int64)
    cuts = np.cumsum([0] + [len(r) for r in runs])
    rows, hashes = np.empty(cuts[-1], dtype=np.int64), np.empty(cuts[-1], dtype=np.int64)
    for i, r in enumerate(runs):  # each run's rows by (query, hash), numbered across the runs
        rows[cuts[i]:cuts[i + 1]] = by_hash_within_groups(r._hash, r.order, r.offsets)  # grouped by query
        rows[cuts[i]:cuts[i + 1]] += cuts[i]
        hashes[cuts[i]:cuts[i + 1]] = r._hash
        mine = np.array([where[q] for q in r.queries], dtype=np.int64)
        segments[mine, i, 0], segments[mine, i, 1] = cuts[i] + r.offsets[:-1], cuts[i] + r.offsets[1:]
    ids = IdBytes.concat([r._ids for r in runs], objects=False)
    inverse, first, entry_query = union_by_hash(segments, rows, hashes, ids.data, ids.offsets)
    del rows, hashes
    first, entry_query = first.copy(), entry_query.copy()  # the kernel's are as long as all the runs' rows
    docids = ids.take(first)
    del ids
    owner = np.searchsorted(cuts, first, side="right") - 1
    if all(r._ids._objects is not None for r in runs):  # the str objects the runs hold, shared, not made again
        objects = np.empty(first.shape[0], dtype=object)
        for i, r in enumerate(runs):
            mine = owner == i
            objects[mine] = r._ids._objects[first[mine] - cuts[i]]
        docids = IdBytes(docids.data, docids.offsets, objects)
    index = [inverse[a:b] for a, b in zip(cuts[:-1], cuts[1:])]
    ranks = []
    for r in runs:
        if not need_ranks:
            ranks.append(None)
            continue
        rank = np.empty(len(r), dtype=np.int64)
        rank[r.order] = np.arange(len(r)) - np.repeat(r.offsets[:-1], np.diff(r.offsets)) + 1
        ranks.append(rank)
    return index, queries, docids, entry_query, ranks


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


def _fused(method, index, values, n, weights, k, entry_query, list_sizes, param=None, docids=None):
    """The fused score of each union entry from each run's per-row values (normalised scores or ranks)."""
    present = sum(np.bincount(i, minlength=n) for i in index).astype(np.float64)
    if FUSIONS[method] == "learned":  # CombSUM of what each run's ranks are worth; BayesFuse: a log-odds for absence
        total = sum(np.bincount(i, weights=v, minlength=n) for i, v in zip(index, values))
        return total + (len(index) - present) * MIN_LOG_ODDS if method == "bayesfuse" else total
    if FUSIONS[method] == "rank" and method not in ("condorcet", "w_condorcet", "rbc"):
        return _rank_fused(method, index, values, n, weights, k, entry_query, list_sizes, param, present)
    if method in ("combsum", "combmnz", "combanz", "wsum", "mixed"):
        total = sum(w * np.bincount(i, weights=v, minlength=n) for i, v, w in zip(index, values, weights))
        if method == "mixed":  # Wu & Crestani: Σ wᵢ sᵢ × √(runs that retrieved it)
            return total * np.sqrt(present)
        return total * present if method == "combmnz" else total / present if method == "combanz" else total
    if method in ("wmnz", "gmnz"):
        total = sum(np.bincount(i, weights=v, minlength=n) for i, v in zip(index, values))
        if method == "wmnz":  # Wu & Crestani: Σ sᵢ × Σ wᵢ over the runs that retrieved it
            return total * sum(w * np.bincount(i, minlength=n) for i, w in zip(index, weights))
        return total * present ** param  # Lee (SIGIR 1997): Σ sᵢ × (runs that retrieved it)^γ
    if method == "rbc":  # Bailey et al.: Σ wᵢ (1 − φ) φ^(rᵢ − 1)
        return sum(w * np.bincount(i, weights=(1.0 - param) * param ** (r - 1.0), minlength=n)
                   for i, r, w in zip(index, values, weights))
    if method in ("condorcet", "w_condorcet"):
        return _condorcet(index, values, weights, n, entry_query, docids)
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
    raise ValueError(f"no fusion {method!r}")


def _rank_fused(method, index, values, n, weights, k, entry_query, list_sizes, param, present):
    """The rank fusions of :func:`_fused`: RRF, ISR and its log forms, Borda."""
    if method == "rrf":
        return sum(w * np.bincount(i, weights=1.0 / (k + r), minlength=n) for i, r, w in zip(index, values, weights))
    if method in ("isr", "log_isr", "logn_isr"):
        total = sum(w * np.bincount(i, weights=1.0 / r.astype(np.float64) ** 2, minlength=n)
                    for i, r, w in zip(index, values, weights))
        if method == "logn_isr":  # Mourão et al.: log(runs that retrieved it + σ)
            return total * np.log(present + param)
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


def _condorcet(index, ranks, weights, n, entry_query, docids) -> np.ndarray:
    """Condorcet fusion (Montague & Aslam, CIKM 2002): each query's documents sorted by pairwise majority, a run's
    vote (its weight) going to the document it ranks higher (a retrieved one above one it did not retrieve); a tie
    of votes keeps the order of document ids descending, as trec_eval breaks score ties.  The score is the number
    of candidates minus the position."""
    from functools import cmp_to_key

    m = len(index)
    rank = np.full((n, m), np.inf)
    for j, (i, r) in enumerate(zip(index, ranks)):
        rank[i, j] = r
    w = np.asarray(weights, dtype=np.float64)
    out = np.empty(n)
    order = np.argsort(entry_query, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(entry_query[order]) != 0])
    ids = docids.objects
    for a, b in zip(starts, np.r_[starts[1:], order.size]):
        members = sorted(order[a:b].tolist(), key=lambda e: ids[e].encode(), reverse=True)  # ties: docid descending

        def compare(x, y):
            votes_x = w[rank[x] < rank[y]].sum()
            votes_y = w[rank[y] < rank[x]].sum()
            return -1 if votes_x > votes_y else 1 if votes_y > votes_x else 0

        ranked = sorted(members, key=cmp_to_key(compare))
        out[ranked] = len(ranked) - np.arange(len(ranked))
    return out


def _borda_normalised(index, ranks, n, entry_query, list_sizes):
    """ranx's Borda normalisation: every candidate of a query (the documents any run retrieved) gets a value from
    each run, 1 − (r − 1)/c at rank r among c candidates, and a document the run left out the mean of the values it
    did not award, 0.5 − (ℓ − 1)/(2c) for a list of ℓ; so each run now scores every candidate."""
    candidates = np.bincount(entry_query)[entry_query].astype(np.float64)
    full, values = [], []
    for i, r, sizes in zip(index, ranks, list_sizes):
        v = 0.5 - (sizes[entry_query] - 1.0) / (2.0 * candidates)
        v[i] = 1.0 - (r - 1.0) / candidates[i]
        full.append(np.arange(n))
        values.append(v)
    return full, values


def method_of(method: str) -> str:
    """boostrank's name of a fusion method, ranx's names (:data:`ALIASES`) included."""
    method = ALIASES.get(method, method)
    if method not in FUSIONS:
        raise ValueError(f"method must be one of {sorted(FUSIONS)} (or ranx's {', '.join(sorted(ALIASES))}), "
                         f"got {method!r}")
    return method


def _check_fusion(method, norm, weights, n_runs, trained) -> np.ndarray:
    """The weights (all 1 by default) once the method, norm, weights and training fit together."""
    if norm not in NORMS:
        raise ValueError(f"norm must be one of {list(NORMS)}, got {norm!r}")
    if norm not in ("min-max", None) and FUSIONS[method] != "score" and method != "segfuse":
        raise ValueError(f"{method} reads {'ranks' if FUSIONS[method] == 'rank' else 'what it learned of ranks'}, "
                         f"not scores: norm={norm!r} would change nothing (leave it at its default)")
    if FUSIONS[method] == "learned":
        if not isinstance(trained, TrainedFusion) or trained.method != method:
            raise ValueError(f"{method} learns from judged training runs: pass trained=train_fusion(qrels, "
                             f"training_runs, {method!r}) (got {trained!r})")
        if len(trained.runs) != n_runs:
            raise ValueError(f"trained on {len(trained.runs)} runs ({', '.join(trained.runs)}), given {n_runs}")
    w = np.ones(n_runs) if weights is None else np.asarray(weights, dtype=np.float64).ravel()
    if w.shape[0] != n_runs or not np.isfinite(w).all() or (w < 0).any():
        raise ValueError(f"weights: one non-negative number per run ({n_runs}), got {weights!r}")
    if weights is not None and (method in ("combmax", "combmin", "combmed") or method in LEARNED):
        raise ValueError(f"{method} takes no weights: it picks one run's score per document" if method not in LEARNED
                         else f"{method} takes no weights: what it learned weighs each run")
    if method == "condorcet" and weights is not None:
        raise ValueError("condorcet counts one vote per run: use w_condorcet for weights")
    return w


def _in_training_order(named: dict, trained: TrainedFusion) -> dict:
    """The runs to fuse in the order of the training runs: by name when they carry the training runs' names, by
    position when they carry none of them (each system's runs on other queries, named otherwise)."""
    names, learned = set(named), set(trained.runs)
    if names == learned:
        return {name: named[name] for name in trained.runs}
    if names & learned:
        raise ValueError(f"the runs {sorted(names)} share some names with the training runs {list(trained.runs)} "
                         f"but not all: name them as the training runs to pair them by name, or all otherwise to "
                         f"pair them in order")
    return named


def fuse(runs, method: str = "rrf", *, norm: str | None = "min-max", weights: Sequence[float] | None = None,
         k: float = 60.0, gamma: float = 1.0, sigma: float = 0.01, phi: float = 0.8, name: str | None = None,
         trained: TrainedFusion | None = None) -> Run:
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
        Σ wᵢ / rᵢ² times the number of runs that retrieved the document, or its logarithm); ``"logn_isr"``
        (Mourão et al.: Σ wᵢ / rᵢ² × log(runs that retrieved it + σ)); ``"wmnz"`` (Wu & Crestani, CIKM
        2002: Σ sᵢ × the sum of the weights of the runs that retrieved it); ``"mixed"`` (Wu & Crestani:
        Σ wᵢ sᵢ × √(runs that retrieved it)); ``"gmnz"`` (Lee, SIGIR 1997: Σ sᵢ × (runs that retrieved
        it)^γ); ``"rbc"`` (rank-biased centroid, Bailey et al., SIGIR 2017: Σ wᵢ (1 − φ) φ^(rᵢ − 1));
        ``"condorcet"`` and ``"w_condorcet"`` (Montague & Aslam, CIKM 2002: the documents sorted by
        pairwise majority of the runs, weighted by ``weights``); ``"w_bordafuse"``: Borda with weights (the
        same as ``"borda"`` given ``weights``); ``"probfuse"``, ``"segfuse"``, ``"slidefuse"``,
        ``"posfuse"``, ``"mapfuse"``, ``"bayesfuse"``: learned from training runs (``trained``).  ranx's
        names are taken too (:data:`ALIASES`: ``"sum"``, ``"mnz"``, ``"bordafuse"``, ...).
    norm : {"min-max", "max", "sum", "zmuv", "rank", "borda", None}, default="min-max"
        Of each run's scores per query, before a score fusion (ranx's definitions; rank fusions use the
        ranks), except ``"max"``: s / max|s|, which is ranx's s / max on non-negative scores and keeps the
        order of a run with negative ones (log-probabilities, negative distances), which s / max reverses.
        ``"borda"`` gives every candidate of the query a value from every run (ranx's ``borda_norm``).
        The rank fusions and the learned ones but ``"segfuse"`` read no score, so another norm than the
        default is refused there.
    weights : sequence of float, default=None
        One per run (all 1); they multiply each run's term.
    k : float, default=60.0
        RRF's constant.
    gamma, sigma, phi : float, default=1.0, 0.01, 0.8
        gmnz's exponent, logn_isr's σ and rbc's persistence φ (in (0, 1)).
    name : str, default=None
        The fused run's name (default: the method's).
    trained : TrainedFusion, default=None
        What :func:`train_fusion` (or :func:`optimize_fusion`) learned from the same systems' runs on
        training queries: required by the learned fusions.  The runs are paired with the training runs
        by name when they carry those names, else in order.

    Returns
    -------
    Run

    Examples
    --------
    >>> from boostrank import Run
    >>> bm25 = Run.from_dict({"q1": {"a": 3.0, "b": 2.0, "c": 1.0}}, name="bm25")
    >>> dense = Run.from_dict({"q1": {"b": 0.9, "c": 0.8, "a": 0.1}}, name="dense")
    >>> fused = fuse([bm25, dense], "rrf").to_dict()["q1"]
    >>> sorted(fused, key=fused.get, reverse=True)
    ['b', 'a', 'c']
    """
    named = runs_to_fuse(runs)
    method = method_of(method)
    w = _check_fusion(method, norm, weights, len(named), trained)
    if FUSIONS[method] == "learned":
        named = _in_training_order(named, trained)
    for label, value in (("k", k), ("gamma", gamma), ("sigma", sigma)):
        ok = math.isfinite(value) and value >= 0
        if not ok:
            raise ValueError(f"{label} must be a non-negative number, got {value!r}")
    if not 0 < phi < 1:
        raise ValueError(f"phi must be in (0, 1), got {phi!r}")
    from tqdm.auto import tqdm

    rs = list(named.values())
    # a bar on a terminal once the work has taken 2 s: the union, each run's values, the fusion, the fused run
    with tqdm(total=len(rs) + 3, desc=f"fuse {method}", delay=2, leave=False, disable=None) as bar:
        need_ranks = FUSIONS[method] != "score" or norm in ("rank", "borda")
        index, queries, docids, entry_query, ranks = _union(rs, need_ranks)
        bar.update()
        n = entry_query.shape[0]
        sizes = [np.bincount(entry_query[i], minlength=len(queries)).astype(np.float64) for i in index]
        if FUSIONS[method] == "score" and norm == "borda":
            index, values = _borda_normalised(index, ranks, n, entry_query, sizes)
        elif FUSIONS[method] != "rank":
            values = []
            for j, (r, i, rank) in enumerate(zip(rs, index, ranks)):
                score = _normalised(r, rank, norm) if method not in LEARNED or method == "segfuse" else None
                if method in LEARNED:
                    score = learned_values(trained, j, rank, sizes[j][entry_query[i]].astype(np.int64), score)
                values.append(score)
                bar.update()
        else:
            values = ranks
        bar.n = len(rs) + 1
        param = {"gmnz": gamma, "logn_isr": sigma, "rbc": phi}.get(method)
        score = _fused(method, index, values, n, w, float(k), entry_query, sizes, param, docids)
        bar.update()
        fused = Run(QueryCodes(queries, entry_query), docids, score, name=name or method)
        bar.update()
    return fused


def optimize_fusion(truth, runs, metric: str = "ndcg_cut_10", method: str = "wsum", *, norm: str | None = "min-max",
                    step: float = 0.1, k: float = 60.0, grid: Sequence[float] | None = None,
                    **evaluate_options) -> tuple[np.ndarray | float, list]:
    """The weights of ``method`` that maximise ``metric`` on ``truth`` (a grid over the simplex), or for
    ``"rrf"``, ``"gmnz"``, ``"logn_isr"`` and ``"rbc"`` their own parameter (k, γ, σ, φ) over a grid; for a
    learned fusion, what it learns from ``truth`` and ``runs`` (:func:`train_fusion`), with ProbFuse's
    ``n_segments`` and SlideFuse's ``w`` chosen over a grid (ranx's: 1 … 100), trained and scored on the same
    queries as ranx does.

    Every weight vector with entries in multiples of ``step`` that sum to 1 is tried, so the budget is
    stated up front: C(1/step + n − 1, n − 1) fusions for n runs (66 for 3 runs at 0.1, 1 001 for 5); a
    parameter is tried at each value of ``grid`` (default ranx's: k = 10, 20, …, 100; γ, σ = 0.01 … 1;
    φ = 0.01 … 0.99), one fusion each.  A progress bar shows on a terminal once the search takes 2 s.

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
        The weights' grid spacing; 1/step must be a whole number.
    grid : sequence of float, default=None
        The values of the method's parameter to try (``PARAMETERS``).
    **evaluate_options
        Passed to :func:`boostrank.evaluate` (``relevance_level``, ``depth``, ...).

    Returns
    -------
    best : ndarray, float or TrainedFusion
        The best weights, or the best value of the parameter (the first found, in the grid's order, on a tie);
        for a learned fusion, what it learned at the best value (for :func:`fuse`'s ``trained``).
    trials : list of (weights or value, metric)
        Every point of the grid and its metric.

    Examples
    --------
    >>> from boostrank import Run
    >>> qrels = {q: {"a": 1, "b": 0, "c": 0} for q in ("q1", "q2", "q3")}
    >>> bm25 = Run.from_dict({q: {"a": 0.2, "b": 0.9, "c": 0.1} for q in qrels}, name="bm25")
    >>> dense = Run.from_dict({q: {"a": 0.9, "b": 0.3, "c": 0.5} for q in qrels}, name="dense")
    >>> weights, tried = optimize_fusion(qrels, [bm25, dense], "P_1", "wsum")
    >>> weights.tolist()
    [0.0, 1.0]
    """
    from tqdm.auto import tqdm

    from .evaluate import evaluate

    named = runs_to_fuse(runs)
    method = method_of(method)
    if FUSIONS[method] == "learned":
        return _optimize_learned(truth, named, metric, method, norm, grid, evaluate_options)
    if method in PARAMETERS:
        name, default = PARAMETERS[method]
        points = [float(v) for v in (default if grid is None else grid)]
        if not points:
            raise ValueError("grid: give at least one value")
        trials = []
        for value in tqdm(points, desc=f"optimize {method} {name}", delay=2, leave=False, disable=None):
            fused = fuse(named, method, norm=norm, k=value if method == "rrf" else k, **(
                {} if method == "rrf" else {name: value}))
            trials.append((value, evaluate(truth, fused, metric, **evaluate_options)[metric]))
        best = max(range(len(trials)), key=lambda t: trials[t][1])
        return trials[best][0], trials
    parts = round(1.0 / step)
    if parts < 1 or abs(parts * step - 1.0) > 1e-9:
        raise ValueError(f"step must divide 1 into a whole number of parts, got {step!r}")
    points = list(itertools.combinations(range(parts + len(named) - 1), len(named) - 1))  # stars and bars
    trials = []
    for cut in tqdm(points, desc=f"optimize {method} weights", delay=2, leave=False, disable=None):
        counts = np.diff(np.r_[-1, cut, parts + len(named) - 1]) - 1
        w = counts / parts
        fused = fuse(named, method, norm=norm, weights=w, k=k)
        trials.append((w, evaluate(truth, fused, metric, **evaluate_options)[metric]))
    best = max(range(len(trials)), key=lambda t: trials[t][1])
    return trials[best][0], trials


def _optimize_learned(truth, named, metric, method, norm, grid, evaluate_options):
    """optimize_fusion of a learned fusion: its parameter (if any) over the grid, trained once per value."""
    from tqdm.auto import tqdm

    from .evaluate import evaluate

    relevance_level = evaluate_options.get("relevance_level", 1)
    if method not in PARAMETERS:
        return train_fusion(truth, named, method, relevance_level=relevance_level), []
    name, default = PARAMETERS[method]
    points = [int(v) for v in (default if grid is None else grid)]
    if not points:
        raise ValueError("grid: give at least one value")
    trained, trials, best = None, [], None
    for value in tqdm(points, desc=f"optimize {method} {name}", delay=2, leave=False, disable=None):
        if trained is None or method == "probfuse":  # SlideFuse learns once; its window only reads it
            trained = train_fusion(truth, named, method, relevance_level=relevance_level, **{name: value})
        model = replace(trained, w=value) if method == "slidefuse" else trained
        trials.append((value, evaluate(truth, fuse(named, method, norm=norm, trained=model), metric,
                                       **evaluate_options)[metric]))
        if best is None or trials[-1][1] > best[1]:
            best = (model, trials[-1][1])
    return best[0], trials
