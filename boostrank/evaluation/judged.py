"""A run matched to qrels by (qid, docid): each query's retrieved grades in rank order (an unjudged document is
non-relevant) and every judged grade of the query, so that measures divide by the relevant documents the run
missed too.  Only queries in both are evaluated, as trec_eval does without ``-c``; the others are counted."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._kernels import judged as _kj
from .runs import Qrels, Run

__all__ = ["JudgedLists", "judged_lists", "segments"]


@dataclass(frozen=True)
class JudgedLists:
    """A run matched to qrels: the input of every measure.

    Attributes
    ----------
    rel, score : ndarray of float64
        Grade and score of each retrieved document, each query's in rank order; trec_eval's codes
        for a document absent from the qrels (−1) and one the qrels grade negatively (−2, in the pool
        but not judged).
    offsets : ndarray of int64
        Query ``g`` is rows ``offsets[g]:offsets[g + 1]``.
    ideal, ideal_offsets : ndarray
        Every judged grade of query ``g``, best first.
    queries : list of str
        The evaluated queries (in the run and the qrels), in ``strcmp`` order.
    unjudged_queries, unretrieved_queries : list of str
        The run's queries absent from the qrels, and the qrels' queries absent from the run.
    """

    rel: np.ndarray
    score: np.ndarray
    offsets: np.ndarray
    ideal: np.ndarray
    ideal_offsets: np.ndarray
    queries: list
    unjudged_queries: list
    unretrieved_queries: list
    #: measures' columns computed on these lists, trec_eval's by (code, parameters, threshold, rounding), the
    #: ranked-list ones by ("judged", code, LightGBM's conventions, cut-off, threshold): the columns of a family
    #: (P@5 … P@1000) come from one pass
    computed: dict = field(default_factory=dict, init=False, repr=False, compare=False)


def segments(offsets: np.ndarray, chosen: np.ndarray, depth: int | None = None):
    """Rows of the chosen groups (each group's first ``depth``), in order, and the offsets of the result."""
    sizes = offsets[chosen + 1] - offsets[chosen]
    if depth is not None:
        sizes = np.minimum(sizes, depth)
    new = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    rows = np.arange(new[-1], dtype=np.int64) - np.repeat(new[:-1] - offsets[chosen], sizes)
    return rows, new


def judged_lists(qrels: Qrels, run: Run, *, depth: int | None = None, complete: bool = False,
                 float32: bool = False, judged_only: bool = False) -> JudgedLists:
    """Match a run to qrels by (qid, docid).

    Parameters
    ----------
    qrels : Qrels
    run : Run
    depth : int, default=None
        Keep each query's first ``depth`` documents (trec_eval's ``-M``).
    complete : bool, default=False
        Add every qrels query the run lacks, as an empty list (trec_eval's ``-c``).
    float32 : bool, default=False
        Rank on the scores cast to float32, as trec_eval 9.x does (:meth:`Run.trec_order`).
    judged_only : bool, default=False
        Drop the documents the qrels do not grade (absent, or graded negatively) after the ``depth``
        cut, the ranks closing up (trec_eval's ``-J``, ``form_res_rels.c``).

    Returns
    -------
    JudgedLists
    """
    where = {q: i for i, q in enumerate(qrels.queries)}
    to_qrels = np.array([where.get(q, -1) for q in run.queries], dtype=np.int64)
    kept = np.flatnonzero(to_qrels >= 0)
    sizes = run.offsets[kept + 1] - run.offsets[kept]
    offsets = np.concatenate(([0], np.cumsum(sizes if depth is None else np.minimum(sizes, depth)))).astype(np.int64)
    order = run.trec_order(float32)
    # per list: out begin, out end, start in order, and its query's judged documents
    lists = np.column_stack((offsets[:-1], offsets[1:], run.offsets[kept], qrels.ideal_offsets[to_qrels[kept]],
                             qrels.ideal_offsets[to_qrels[kept] + 1])).astype(np.int64)
    out = np.empty((2, offsets[-1]), dtype=np.float64)
    collisions = _kj.graded_lists(order, run._hash, run.score, run._ids.data, run._ids.offsets, lists,
                                  qrels._sorted_hash, qrels._grades_by_hash(), qrels._order, qrels._ids.data,
                                  qrels._ids.offsets, out)
    rel, score = out
    if collisions:  # two ids share a hash: match by the strings instead
        pooled = np.where(qrels.rel < 0, _kj.REL_UNJUDGED, qrels.rel).astype(np.float64)
        grade = {(c, d): r for c, d, r in zip(qrels._codes.tolist(), qrels.docid.tolist(), pooled.tolist())}
        rows = order[segments(run.offsets, kept, depth)[0]]
        codes = to_qrels[run._codes[rows]]
        rel[:] = [grade.get((c, d), _kj.REL_NONPOOL) for c, d in zip(codes.tolist(), run.docid[rows].tolist())]
    if judged_only:
        keep = rel >= 0
        offsets = np.concatenate(([0], np.cumsum(keep)))[offsets].astype(np.int64)
        rel, score = rel[keep], score[keep]
    in_run = set(run.queries)
    queries = [run.queries[i] for i in kept.tolist()]
    missing = [q for q in qrels.queries if q not in in_run]
    judged = to_qrels[kept]
    if complete and missing:  # empty lists, judged as the qrels say
        judged = np.concatenate((judged, [where[q] for q in missing])).astype(np.int64)
        offsets = np.concatenate((offsets, np.full(len(missing), offsets[-1]))).astype(np.int64)
        queries = queries + missing
    if np.array_equal(judged, np.arange(len(qrels.queries))):  # every judged query, in order: a copy, no gather
        ideal, ideal_offsets = qrels.ideal.copy(), qrels.ideal_offsets.copy()
    else:
        ideal_rows, ideal_offsets = segments(qrels.ideal_offsets, judged)
        ideal = qrels.ideal[ideal_rows]
    return JudgedLists(
        rel=rel, score=score, offsets=offsets,
        ideal=ideal, ideal_offsets=ideal_offsets, queries=queries,
        unjudged_queries=[run.queries[i] for i in np.flatnonzero(to_qrels < 0).tolist()],
        unretrieved_queries=[] if complete else missing,
    )
