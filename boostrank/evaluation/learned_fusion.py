"""Fusions that learn from judged training runs: how likely a run's document at a rank is relevant.

Each is trained on the runs of the same systems over training queries (:func:`train_fusion`), then fuses those
systems' runs on other queries (:func:`boostrank.fuse` with ``trained=``); every run adds a value per document,
summed over the runs (CombSUM):

* ``probfuse`` (Lillis, Toolan, Collier & Dunnion, SIGIR 2006): each list cut into ``n_segments`` segments of
  ⌈length / n_segments⌉; P_k = the mean over training queries of the share of relevant documents in segment k;
  a document in segment k (1-based) adds P_k / k.
* ``segfuse`` (Shokouhi, ECIR 2007): segments of growing size, the k-th holding 10·2^(k−1) − 5 documents
  (ranks 1–5, 6–20, 21–55, …); P_k the mean share of relevant documents per segment size; a document adds
  P_k (s + 1), s its normalised score.
* ``posfuse`` (Lillis et al., SIGIR 2010): P_p = the share of training queries, among those whose list reaches
  rank p, with a relevant document at p; a document at p adds P_p.
* ``slidefuse`` (Lillis et al., ECIR 2008): P_p averaged over the window p − w … p + w within the list.
* ``mapfuse`` (Lillis et al., SIGIR 2010): a document at rank p adds the run's training MAP / p.
* ``bayesfuse`` (Aslam & Montague, SIGIR 2001): log-odds of relevance by rank bucket (precision over the
  training queries in ranks 1–5, 6–10, 11–15, 16–20, 21–30, 31–100, 101–200, 201–500, 501–1000 and doubling
  beyond, 0 and 1 moved by 0.001); a document adds its bucket's log-odds, and log(0.001/0.999) for a run
  that did not retrieve it.

These follow ranx 0.3.21 (``ranx/fusion/*.py``, the reference the values are compared with in
``benchmarks/fusion_ranx.py``) but for two points where ranx departs from the papers: SegFuse's segment
ends (ranx ends the segments at ranks 5, 15, 35, …, so its segments hold 5, 10, 20, … documents, not the
paper's 5, 15, 35, …), and BayesFuse past rank 1000 (ranx reads past the end of its table there; here the
buckets go on doubling, and a rank no training list reached is scored as never relevant).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

__all__ = ["TrainedFusion", "train_fusion", "learned_values", "LEARNED", "MIN_LOG_ODDS"]

#: the fusions learned from training runs, and their own parameter (None: none)
LEARNED = {"probfuse": "n_segments", "segfuse": None, "slidefuse": "w", "posfuse": None, "mapfuse": None,
           "bayesfuse": None}
#: BayesFuse's log-odds of a document a run did not retrieve (and of a precision of 0): log(0.001 / 0.999)
MIN_LOG_ODDS = math.log(0.001 / 0.999)
_BAYES_CUTS = (0, 5, 10, 15, 20, 30, 100, 200, 500, 1000)


@dataclass(frozen=True)
class TrainedFusion:
    """What a learned fusion learned: one array per run (probability or log-odds by segment, rank or bucket, or
    the run's MAP), in the order of the training runs, and the method's parameter.

    Attributes
    ----------
    method : str
    runs : tuple of str
        The training runs' names, in order; :func:`boostrank.fuse` takes the runs to fuse in the same order.
    values : tuple of ndarray
    n_segments : int or None
        ProbFuse's segments per list.
    w : int or None
        SlideFuse's half window.
    """

    method: str
    runs: tuple
    values: tuple
    n_segments: int | None = None
    w: int | None = None


def runs_to_fuse(runs) -> dict:
    """{name: Run} of two or more runs given as a dict or a sequence with distinct names."""
    from .runs import Run

    named = dict(runs) if isinstance(runs, Mapping) else {r.name: r for r in runs}
    if len(named) < 2 or not all(isinstance(r, Run) for r in named.values()):
        raise ValueError(f"fusion takes two or more Run objects (a dict or a sequence with distinct names), got "
                         f"{len(named)}")
    return named


def _segfuse_bounds(longest: int) -> np.ndarray:
    """Shokouhi's segment starts 0, 5, 20, 55, … (sizes 10·2^(k−1) − 5), enough to cover ``longest`` ranks."""
    bounds, k = [0], 1
    while bounds[-1] < max(longest, 1):
        bounds.append(bounds[-1] + 10 * 2 ** (k - 1) - 5)
        k += 1
    return np.asarray(bounds, dtype=np.int64)


def _bayes_bounds(longest: int) -> np.ndarray:
    bounds = list(_BAYES_CUTS)
    while bounds[-1] < longest:
        bounds.append(bounds[-1] * 2)
    return np.asarray(bounds, dtype=np.int64)


def _hits(truth, run, relevance_level: int):
    """Each training query's hits in rank order: (hit per position, position within its list, list length per
    row, query of each row, number of queries)."""
    from .evaluate import ranked_lists

    lists = ranked_lists(truth, run)
    offsets = lists.offsets
    sizes = np.diff(offsets)
    query = np.repeat(np.arange(sizes.shape[0]), sizes)
    position = np.arange(offsets[-1]) - offsets[:-1][query]
    return (lists.rel >= relevance_level).astype(np.float64), position, sizes[query], query, sizes.shape[0]


def _segment_means(hit, segment, query, n_queries, n_segments, divisor=None) -> np.ndarray:
    """Σ over queries of (hits in the segment / its size), over the number of queries; ``divisor``: each
    segment's size (SegFuse), else the documents the query has in it (ProbFuse)."""
    key = query * n_segments + segment
    hits = np.bincount(key, weights=hit, minlength=n_queries * n_segments).reshape(n_queries, n_segments)
    if divisor is None:
        count = np.bincount(key, minlength=n_queries * n_segments).reshape(n_queries, n_segments)
        share = np.divide(hits, count, out=np.zeros_like(hits), where=count > 0)
    else:
        share = hits / divisor
    return share.sum(axis=0) / max(n_queries, 1)


def _train_one(method, truth, run, relevance_level, n_segments):
    if method == "mapfuse":
        from .evaluate import evaluate

        return np.array([evaluate(truth, run, "map", relevance_level=relevance_level)["map"]])
    hit, position, length, query, n_q = _hits(truth, run, relevance_level)
    longest = int(length.max()) if length.size else 0
    if method == "probfuse":
        size = -(-length // n_segments)  # ⌈length / x⌉
        return _segment_means(hit, position // size, query, n_q, n_segments)
    if method == "segfuse":
        bounds = _segfuse_bounds(longest)
        segment = np.searchsorted(bounds, position, side="right") - 1
        return _segment_means(hit, segment, query, n_q, bounds.shape[0] - 1, np.diff(bounds).astype(np.float64))
    if method in ("posfuse", "slidefuse"):
        reached = np.bincount(position, minlength=longest).astype(np.float64)
        return np.bincount(position, weights=hit, minlength=longest) / np.maximum(reached, 1.0)
    # bayesfuse: the mean precision of each bucket, as log-odds per rank
    bounds = _bayes_bounds(longest)
    bucket = np.searchsorted(bounds, position, side="right") - 1
    precision = _segment_means(hit, bucket, query, n_q, bounds.shape[0] - 1, np.diff(bounds).astype(np.float64))
    precision = np.where(precision == 0, 0.001, precision)
    odds = np.log(precision / np.where(precision == 1, 0.001, 1.0 - precision))
    return np.repeat(odds, np.diff(bounds))


def train_fusion(truth, runs, method: str, *, n_segments: int = 10, w: int = 5,
                 relevance_level: int = 1) -> TrainedFusion:
    """Learn a fusion from judged training runs (:data:`LEARNED`), for :func:`boostrank.fuse`'s ``trained=``.

    Parameters
    ----------
    truth
        The training queries' judgements, as :func:`boostrank.evaluate` takes them.
    runs : dict of name to Run, or sequence of Run
        The systems' runs on the training queries, in the order their runs will be fused.
    method : {"probfuse", "segfuse", "slidefuse", "posfuse", "mapfuse", "bayesfuse"}
    n_segments : int, default=10
        ProbFuse's segments per list (:func:`boostrank.optimize_fusion` chooses it).
    w : int, default=5
        SlideFuse's half window, p − w … p + w (:func:`boostrank.optimize_fusion` chooses it).
    relevance_level : int, default=1
        Grades from this up are relevant.

    Returns
    -------
    TrainedFusion

    Examples
    --------
    >>> import boostrank as br
    >>> from boostrank import Run
    >>> qrels = {q: {"a": 1, "b": 0, "c": 0} for q in ("q1", "q2", "q3")}
    >>> bm25 = Run.from_dict({q: {"a": 0.2, "b": 0.9, "c": 0.1} for q in qrels}, name="bm25")
    >>> dense = Run.from_dict({q: {"a": 0.9, "b": 0.3, "c": 0.5} for q in qrels}, name="dense")
    >>> trained = train_fusion(qrels, [bm25, dense], "probfuse", n_segments=2)
    >>> br.fuse([bm25, dense], "probfuse", trained=trained).to_dict()["q1"]
    {'a': 1.0, 'b': 0.5, 'c': 0.5}
    """
    if method not in LEARNED:
        raise ValueError(f"method must be one of {sorted(LEARNED)}, got {method!r}")
    if int(n_segments) != n_segments or n_segments < 1:
        raise ValueError(f"n_segments must be a positive integer, got {n_segments!r}")
    if int(w) != w or w < 0:
        raise ValueError(f"w must be a non-negative integer, got {w!r}")
    named = runs_to_fuse(runs)
    for name, run in named.items():  # what would be learned from no judged query, or no relevant document: nothing
        hit, _, _, _, n_queries = _hits(truth, run, relevance_level)
        if not n_queries:
            raise ValueError(f"{method}: training run {name!r} has no query the judgements have (are they the "
                             f"judgements of its queries?)")
        if not hit.any():
            raise ValueError(f"{method}: no document training run {name!r} retrieves is relevant (grade "
                             f"{relevance_level} or more) in the judgements: it would learn that every rank is "
                             f"worth 0")
    values = tuple(_train_one(method, truth, r, relevance_level, int(n_segments)) for r in named.values())
    return TrainedFusion(method, tuple(named), values, int(n_segments) if method == "probfuse" else None,
                         int(w) if method == "slidefuse" else None)


def learned_values(trained: TrainedFusion, j: int, rank: np.ndarray, length: np.ndarray,
                   score: np.ndarray | None = None) -> np.ndarray:
    """Run ``j``'s value of each of its documents: ``rank`` (1-based), its list's ``length``, and for SegFuse
    its normalised ``score``."""
    v, p = trained.values[j], rank - 1
    method = trained.method
    if method == "mapfuse":
        return v[0] / rank
    if method == "probfuse":
        segment = p // -(-length // v.shape[0])
        return v[segment] / (segment + 1.0)
    if method == "segfuse":
        bounds = _segfuse_bounds(int(p.max()) + 1 if p.size else 1)
        segment = np.searchsorted(bounds, p, side="right") - 1
        probs = np.concatenate((v, np.zeros(max(bounds.shape[0] - 1 - v.shape[0], 0))))
        return probs[segment] * (score + 1.0)
    # by rank, past the training lists never relevant: PosFuse's and SlideFuse's 0, BayesFuse's log(0.001/0.999)
    longest = int(max(length.max() if length.size else 0, v.shape[0]))
    padded = np.concatenate((v, np.full(longest - v.shape[0], MIN_LOG_ODDS if method == "bayesfuse" else 0.0)))
    if method == "slidefuse":
        cum = np.concatenate(([0.0], np.cumsum(padded)))
        a, b = np.maximum(p - trained.w, 0), np.minimum(p + trained.w, length - 1)
        return (cum[b + 1] - cum[a]) / (b - a + 1)
    return padded[p]  # posfuse, bayesfuse
