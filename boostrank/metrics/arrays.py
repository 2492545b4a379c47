"""Rank metrics of label and score arrays, the functions :mod:`boostrank.metrics` exports (its docstring gives
the conventions every metric follows): the metrics themselves, the names :func:`get_metric` reads, and
trec_eval's tie rule."""

from __future__ import annotations

import re
from typing import Callable, Sequence

import numpy as np

from .._kernels import judged as _kj
from .._kernels import metrics as _km
from .._kernels import ranks as _kr
from .._kernels.order import sort_within_groups
from .._validation import (GroupOffsets, as_1d_float, as_int_labels, check_ranking_inputs, dense_grades, group_offsets,
                          note_metric_kernels)
from .._validation import warn_user
from ..queries import list_index
from ..weights import WeightFamily, weight_family
from ..exceptions import TieWarning

__all__ = [
    "auc",
    "mauc",
    "wmw",
    "ndcg",
    "mean_average_precision",
    "precision_at",
    "precision",
    "recall",
    "reciprocal_rank",
    "r_precision",
    "err",
    "minrank",
    "resolved_rank",
    "rank_risk",
    "get_metric",
    "canonical_metric",
    "parse_metric",
    "Metric",
    "METRIC_NAMES",
    "GroupOffsets",
    "query_mean",
    "query_scorer",
]

_AUC_TIES = {"pessimistic": 0.0, "average": 0.5}
#: below this many rows :func:`auc` counts pairs in NumPy (at most ~20 ms; the kernel is 5-8x faster warm, but
#: its first call in a process loads or compiles it: 0.3 s warm cache, ~3 s cold; MEASUREMENTS.md)
AUC_NUMPY_MAX_ROWS = 100_000


def auc_pair_counts_numpy(positive: np.ndarray, scores: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """:func:`boostrank._kernels.metrics.auc_pair_counts` in NumPy: one ``lexsort`` and ``bincount`` per count.

    Returns the same (n_groups, 4) counts: pairs with the positive strictly above, tied
    pairs, n_pos, n_neg (thesis §2.1.2), equal to the kernel's to the bit (integer-valued
    float sums below 2**53).
    """
    n_groups = offsets.shape[0] - 1
    out = np.zeros((n_groups, 4))
    n = scores.shape[0]
    if n == 0:
        return out
    group = list_index(offsets)
    order = np.lexsort((scores, group))
    g, s, p = group[order], scores[order], positive[order].astype(np.float64)
    first = np.empty(n, dtype=bool)  # first row of each (group, score) tie block
    first[0] = True
    first[1:] = (g[1:] != g[:-1]) | (s[1:] != s[:-1])
    block = np.cumsum(first) - 1
    pos = np.bincount(block, weights=p)
    neg = np.bincount(block, weights=1.0 - p)
    block_group = g[first]
    neg_before = np.cumsum(neg) - neg  # negatives in earlier blocks, over all groups
    group_first = np.flatnonzero(np.r_[True, block_group[1:] != block_group[:-1]])
    neg_before -= np.repeat(neg_before[group_first], np.diff(np.r_[group_first, block_group.shape[0]]))
    out[:, 0] = np.bincount(block_group, weights=pos * neg_before, minlength=n_groups)
    out[:, 1] = np.bincount(block_group, weights=pos * neg, minlength=n_groups)
    out[:, 2] = np.bincount(group, weights=positive.astype(np.float64), minlength=n_groups)
    out[:, 3] = np.diff(offsets) - out[:, 2]
    return out
_WMW_TIES = {"pessimistic": 0.0, "average": 0.5, "optimistic": 1.0}
_CONVENTIONS = {"lightgbm", "trec"}


def _choice(value, allowed, name):
    if value not in allowed:
        raise ValueError(f"{name} must be one of {sorted(allowed)}, got {value!r}")
    return value


def _reduce(values: np.ndarray, per_query: bool):
    if per_query:
        return values
    defined = values[~np.isnan(values)]
    return float(defined.mean()) if defined.size else float("nan")


def auc(y, scores, qid=None, *, ties: str = "average", threshold: float = 0.0,
        per_query: bool = False):
    """Area under the ROC curve, per query when ``qid`` is given.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels; ``y > threshold`` is positive.
    scores : array-like of shape (n_samples,)
    qid : array-like of shape (n_samples,), default=None
    ties : {"average", "pessimistic"}, default="average"
        ``"average"`` credits a tied positive-negative pair 1/2 and equals
        :func:`sklearn.metrics.roc_auc_score`; ``"pessimistic"`` counts it as a
        misrank, the convention of thesis §2.1.3 under which w = 0 scores 0.
    threshold : float, default=0.0
    per_query : bool, default=False

    Returns
    -------
    float or ndarray
        Mean AUC over the queries that have both classes (NaN if none).

    Notes
    -----
    AUC = (1 / n+ n-) Σ_{i ∈ S+} Σ_{k ∈ S-} 1[f(x_k) < f(x_i)] (thesis §2.1.2,
    Welleck eq. 9), counted in O(n log n) per query from tie blocks.

    Examples
    --------
    >>> auc([1, 0, 1, 0], [0.9, 0.1, 0.4, 0.4])
    0.875
    >>> auc([1, 0, 1, 0], [0.9, 0.1, 0.4, 0.4], ties="pessimistic")
    0.75
    """
    w = _AUC_TIES[_choice(ties, _AUC_TIES, "ties")]
    y, s, offsets = check_ranking_inputs(y, scores, qid, kernels=False)
    if y.shape[0] < AUC_NUMPY_MAX_ROWS:
        c = auc_pair_counts_numpy(y > threshold, s, offsets)
    else:
        note_metric_kernels()
        c = _km.auc_pair_counts(y > threshold, s, sort_within_groups(s, offsets, False), offsets)
    pairs = c[:, 2] * c[:, 3]
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(pairs > 0, (c[:, 0] + w * c[:, 1]) / pairs, np.nan)
    return _reduce(values, per_query)


def mauc(y, scores, qid=None, *, ties: str = "average", per_query: bool = False):
    """Multi-class AUC, Welleck eq. (5): MAUC = Σ_c p(c) · AUC(c vs rest).

    Parameters
    ----------
    y : array-like of int, shape (n_samples,)
        Non-negative integer relevance grades.
    scores : array-like of shape (n_samples,)
    qid : array-like of shape (n_samples,), default=None
    ties : {"average", "pessimistic"}, default="average"
    per_query : bool, default=False

    Returns
    -------
    float or ndarray

    Notes
    -----
    The reference classes are the relevance grades c >= 1 present in the list, and
    p(c) is class c's share of the relevant documents, n_c / Σ_{c' >= 1} n_{c'}, as in
    Welleck §5 ("48% of the documents ... with a positive label have a label of class
    1").  Grade 0 is never a reference class, since putting irrelevant documents on
    top is not a goal, but it belongs to every "rest".  AUC(c) treats every other
    grade, higher ones included, as negative.  With binary labels MAUC = AUC.  A list
    with a single grade or without relevant documents is undefined.

    Examples
    --------
    >>> round(mauc([2, 0, 1, 1, 0], [0.9, 0.1, 0.6, 0.2, 0.3]), 4)
    0.6667
    """
    w = _AUC_TIES[_choice(ties, _AUC_TIES, "ties")]
    labels = dense_grades(y)
    s = as_1d_float(scores, "scores")
    if labels.shape != s.shape:
        raise ValueError(f"y has {labels.shape[0]} entries but scores has {s.shape[0]}")
    offsets = group_offsets(labels.shape[0], qid=qid)
    note_metric_kernels()
    order = sort_within_groups(s, offsets, False)
    return _reduce(_km.mauc_groups(labels, s, order, offsets, w), per_query)


def wmw(y, scores, qid=None, *, graph="full", ties: str = "optimistic",
        average: str = "query", per_query: bool = False):
    """Generalised Wilcoxon-Mann-Whitney statistic over a preference graph (Raykar eq. 1).

    Parameters
    ----------
    y : array-like of int, shape (n_samples,)
        Class labels (ordinal grades).
    scores : array-like of shape (n_samples,)
    qid : array-like of shape (n_samples,), default=None
        Pairs are formed within queries only.
    graph : "full" or array-like of shape (n_edges, 2), default="full"
        ``"full"`` is Raykar's full order graph: an edge lo -> hi for every pair of
        classes lo < hi.  An explicit edge list holds (lo, hi) label pairs meaning
        every example of class ``hi`` should rank above every example of class ``lo``.
    ties : {"optimistic", "average", "pessimistic"}, default="optimistic"
        Credit of a tied pair: 1 as in Raykar's 1[f(x_l) >= f(x_k)], 1/2, or 0.
    average : {"query", "pairs"}, default="query"
        With ``qid``: mean of per-query WMW values, or one ratio over all pairs of all
        queries (the quantity RankNCG's likelihood sums over).
    per_query : bool, default=False

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> wmw([2, 0, 1, 1, 0], [0.9, 0.1, 0.6, 0.2, 0.3])
    0.875
    """
    w = _WMW_TIES[_choice(ties, _WMW_TIES, "ties")]
    _choice(average, {"query", "pairs"}, "average")
    labels = as_int_labels(y)
    s = as_1d_float(scores, "scores")
    if labels.shape != s.shape:
        raise ValueError(f"y has {labels.shape[0]} entries but scores has {s.shape[0]}")
    offsets = group_offsets(labels.shape[0], qid=qid)
    note_metric_kernels()
    if isinstance(graph, str):
        _choice(graph, {"full"}, "graph")
        order = sort_within_groups(s, offsets, False)
        c = _km.wmw_full_counts(labels, s, order, offsets, w)
    else:
        edges = np.asarray(graph, dtype=np.int64).reshape(-1, 2)
        if np.any(edges[:, 0] == edges[:, 1]):
            raise ValueError("a preference edge must join two different classes")
        order = sort_within_groups(s, offsets, False)
        c = _km.wmw_pair_counts(
            labels, s, order, offsets,
            np.ascontiguousarray(edges[:, 0]), np.ascontiguousarray(edges[:, 1]), w,
        )
    if average == "pairs" and not per_query:
        total = c[:, 1].sum()
        return float(c[:, 0].sum() / total) if total > 0 else float("nan")
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(c[:, 1] > 0, c[:, 0] / c[:, 1], np.nan)
    return _reduce(values, per_query)


def _cutoff(k) -> int:
    if k is None:
        return 0
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise ValueError(f"k must be a positive integer or None, got {k!r}")
    k = int(k)
    if k < 1:
        raise ValueError(f"k must be a positive integer or None, got {k}")
    return min(k, MAX_CUTOFF)  # past every list's length: the whole list, as a kernel's int64 holds it


#: Cut-offs beyond this are every list whole (and still fit an int64 in the kernels)
MAX_CUTOFF = 2 ** 62


def ndcg(y, scores, qid=None, *, k: int | None = None, convention: str = "lightgbm",
         docid=None, per_query: bool = False):
    """Normalised discounted cumulative gain at k.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Non-negative relevance grades.
    scores : array-like of shape (n_samples,)
    qid : array-like of shape (n_samples,), default=None
    k : int, default=None
        Cut-off; None for the whole list.  A list shorter than k is used whole.
    convention : {"lightgbm", "trec"}, default="lightgbm"
        ``"lightgbm"`` matches LightGBM's ``ndcg@k``: gain 2^rel - 1, discount
        1/log2(i + 2), a query whose labels are all 0 scores 1.  ``"trec"`` matches
        trec_eval's ``ndcg_cut_k``: gain = rel, and an all-zero query scores 0.  Both
        break score ties by input order (LightGBM's stable sort), unless ``docid``.
    docid : array-like of str, shape (n_samples,), default=None
        With ``convention="trec"``: break score ties as trec_eval does, by document id
        descending (``strcmp``).
    per_query : bool, default=False

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> y, s, qid = [2, 0, 1, 0, 1, 0], [0.9, 0.8, 0.3, 0.5, 0.1, 0.2], [1, 1, 1, 2, 2, 2]
    >>> round(ndcg(y, s, qid), 4), round(ndcg(y, s, qid, k=2), 4)
    (0.732, 0.4131)
    >>> ndcg(y, s, qid, per_query=True).round(4).tolist()
    [0.9639, 0.5]
    """
    _choice(convention, _CONVENTIONS, "convention")
    y, s, offsets = check_ranking_inputs(y, scores, qid)
    if y.size and y.min() < 0:
        raise ValueError("ndcg needs non-negative relevance grades")
    lgb = convention == "lightgbm"
    if lgb and y.size and y.max() > 60:
        raise ValueError(f"ndcg: labels reach {y.max():g}; the gain 2^rel − 1 is kept exact up to 60 "
                         f"(LightGBM's default label_gain stops at 30); use convention='trec' for linear gains")
    if not lgb:
        y, s = trec_ties(y, s, offsets, docid)
    order = sort_within_groups(s, offsets, True)
    values = _km.ndcg_groups(y, order, offsets, _cutoff(k), lgb, 1.0 if lgb else 0.0)
    return _reduce(values, per_query)


def mean_average_precision(y, scores, qid=None, *, k: int | None = None,
                           convention: str = "lightgbm", threshold: float = 0.0,
                           docid=None, per_query: bool = False):
    """Mean average precision (at k) over queries.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Labels; ``y > threshold`` is relevant.
    scores : array-like of shape (n_samples,)
    qid : array-like of shape (n_samples,), default=None
    k : int, default=None
    convention : {"lightgbm", "trec"}, default="lightgbm"
        ``"lightgbm"`` is LightGBM's ``map@k``: AP@k = Σ_{i<=k, rel} P@i / min(k, R),
        and a query without relevant documents scores 1.  ``"trec"`` is trec_eval's
        ``map`` / ``map_cut_k``: the denominator is R, and such a query scores 0.
    threshold : float, default=0.0
    docid : array-like of str, default=None
        With ``convention="trec"``: score ties broken by document id descending, as
        trec_eval does (else by input order).
    per_query : bool, default=False

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> round(mean_average_precision([2, 0, 1, 0, 1, 0], [0.9, 0.8, 0.3, 0.5, 0.1, 0.2], [1, 1, 1, 2, 2, 2]), 4)
    0.5833
    """
    _choice(convention, _CONVENTIONS, "convention")
    y, s, offsets = check_ranking_inputs(y, scores, qid)
    lgb = convention == "lightgbm"
    if not lgb:
        y, s = trec_ties(y, s, offsets, docid)
    order = sort_within_groups(s, offsets, True)
    values = _km.average_precision_groups(
        y > threshold, order, offsets, _cutoff(k), lgb, 1.0 if lgb else 0.0
    )
    return _reduce(values, per_query)


def precision(y, scores, qid=None, *, k: int = 10, threshold: float = 0.0, docid=None, per_query: bool = False,
              convention: str = "trec"):
    """Precision at k on binarised labels: trec_eval's ``P_k`` (the ``p@k`` metric).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    scores : array-like of shape (n_samples,)
    qid : array-like of shape (n_samples,), default=None
    k : int, default=10
        Every query divides by k, also when it has fewer documents (as trec_eval does).
    threshold : float, default=0.0
        Relevant means label > threshold (trec_eval: ``rel_level`` 1).
    docid : array-like of str, default=None
        Score ties broken by document id descending, as trec_eval does (else by input order,
        with a :class:`TieWarning` under ``convention="trec"``).
    per_query : bool, default=False
    convention : {"trec", "lightgbm"}, default="trec"
        ``"lightgbm"``: ties in input order (a stable sort), no docid tie-break or warning.

    Returns
    -------
    float or ndarray
        Mean over queries; a query without relevant documents scores 0.

    See Also
    --------
    precision_at : Welleck's multi-class precision (metric name ``mcp@k``).

    Examples
    --------
    >>> precision([2, 0, 1, 0, 1, 0], [0.9, 0.8, 0.3, 0.5, 0.1, 0.2], [1, 1, 1, 2, 2, 2], k=2)
    0.25
    """
    _choice(convention, _CONVENTIONS, "convention")
    y, s, offsets = check_ranking_inputs(y, scores, qid)
    if convention == "trec":
        y, s = trec_ties(y, s, offsets, docid)
    kk = _cutoff(k)
    if kk == 0:
        raise ValueError("precision needs a finite k")
    relevant = (y > threshold).astype(np.int64)
    order = sort_within_groups(s, offsets, True)
    top, _ = _km.topk_class_counts(relevant, order, offsets, kk, np.ones(1, dtype=np.int64))
    return _reduce(top[:, 0] / kk, per_query)


def _judged_letor(measure, y, scores, qid, k, threshold, docid, convention, per_query):
    """A :mod:`._kernels.judged` measure of labelled lists: every judged document is in its list."""
    _choice(convention, _CONVENTIONS, "convention")
    y, s, offsets = check_ranking_inputs(y, scores, qid)
    if convention == "trec":
        y, s = trec_ties(y, s, offsets, docid)
    rel = y[sort_within_groups(s, offsets, True)]
    ideal = y[sort_within_groups(y, offsets, True)]
    values = _kj.judged_measure(rel, offsets, ideal, offsets, measure, np.array([_cutoff(k)], dtype=np.int64),
                                float(threshold), False, 0.0)
    return _reduce(values[:, 0], per_query)


def recall(y, scores, qid=None, *, k: int | None = 10, threshold: float = 0.0, docid=None,
           per_query: bool = False, convention: str = "trec"):
    """Recall at k: trec_eval's ``recall_k`` (the ``recall@k`` metric).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
    scores : array-like of shape (n_samples,)
    qid : array-like of shape (n_samples,), default=None
    k : int, default=10
        Cut-off; None for the whole list.
    threshold : float, default=0.0
        Relevant means label > threshold (trec_eval: ``rel_level`` 1).
    docid : array-like of str, default=None
        Score ties broken by document id descending, as trec_eval does (else input order, with a
        :class:`TieWarning`).
    per_query : bool, default=False
    convention : {"trec", "lightgbm"}, default="trec"
        ``"lightgbm"``: ties in input order, without the warning.

    Returns
    -------
    float or ndarray
        Relevant documents in the top k over the relevant documents of the list; 0 for a list
        without any (as trec_eval).  With qrels (:func:`boostrank.evaluate`) the denominator also
        counts relevant documents the run did not retrieve.

    Examples
    --------
    >>> recall([2, 0, 1, 0, 1, 0], [0.9, 0.8, 0.3, 0.5, 0.1, 0.2], [1, 1, 1, 2, 2, 2], k=2)
    0.25
    """
    return _judged_letor(_kj.MODE_RECALL, y, scores, qid, k, threshold, docid, convention, per_query)


def reciprocal_rank(y, scores, qid=None, *, k: int | None = None, threshold: float = 0.0, docid=None,
                    per_query: bool = False, convention: str = "trec"):
    """Reciprocal rank of the first relevant document: trec_eval's ``recip_rank`` (mean: MRR, the ``mrr`` metric).

    Parameters
    ----------
    y, scores, qid, threshold, docid, per_query, convention
        As in :func:`recall`.
    k : int, default=None
        Only the top k count (``mrr@k``); None for the whole list.

    Returns
    -------
    float or ndarray
        1 / rank, 0 for a list without a relevant document in the top k.

    Examples
    --------
    >>> round(reciprocal_rank([2, 0, 1, 0, 1, 0], [0.9, 0.8, 0.3, 0.5, 0.1, 0.2], [1, 1, 1, 2, 2, 2]), 4)
    0.6667
    """
    return _judged_letor(_kj.MODE_RECIPROCAL_RANK, y, scores, qid, k, threshold, docid, convention, per_query)


def r_precision(y, scores, qid=None, *, threshold: float = 0.0, docid=None, per_query: bool = False,
                convention: str = "trec"):
    """Precision at R, the number of relevant documents of the list: trec_eval's ``Rprec`` (``rprec``).

    Parameters
    ----------
    y, scores, qid, threshold, docid, per_query, convention
        As in :func:`recall`.

    Returns
    -------
    float or ndarray
        0 for a list without relevant documents (as trec_eval).

    Examples
    --------
    >>> r_precision([2, 0, 1, 0, 1, 0], [0.9, 0.8, 0.3, 0.5, 0.1, 0.2], [1, 1, 1, 2, 2, 2])
    0.25
    """
    return _judged_letor(_kj.MODE_R_PRECISION, y, scores, qid, None, threshold, docid, convention, per_query)


def err(y, scores, qid=None, *, k: int | None = None, max_grade: int = 4, per_query: bool = False):
    """Expected reciprocal rank at k, as RankLib's ``ERR@k`` (Chapelle et al., CIKM 2009).

    Parameters
    ----------
    y : array-like of int, shape (n_samples,)
        Relevance grades 0..max_grade.
    scores : array-like of shape (n_samples,)
    qid : array-like of shape (n_samples,), default=None
    k : int, default=None
        Cut-off; None for the whole list.
    max_grade : int, default=4
        Highest grade of the scale: R = (2^l − 1) / 2^max_grade (RankLib's default 16
        assumes grades 0..4).
    per_query : bool, default=False

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> round(err([2, 0, 1, 0, 1, 0], [0.9, 0.8, 0.3, 0.5, 0.1, 0.2], [1, 1, 1, 2, 2, 2]), 4)
    0.1126
    """
    if (isinstance(max_grade, bool) or not isinstance(max_grade, (int, np.integer))
            or not 1 <= max_grade <= 1023):
        raise ValueError(f"err: max_grade must be an integer from 1 to 1023 (2^max_grade stays a finite float), "
                         f"got {max_grade!r}")
    labels = as_int_labels(y)
    s = as_1d_float(scores, "scores")
    if labels.shape != s.shape:
        raise ValueError(f"y has {labels.shape[0]} entries but scores has {s.shape[0]}")
    if labels.size and labels.max() > max_grade:
        raise ValueError(f"err: labels reach {int(labels.max())} but max_grade={max_grade}; pass max_grade")
    offsets = group_offsets(labels.shape[0], qid=qid)
    note_metric_kernels()
    order = sort_within_groups(s, offsets, True)
    values = _km.err_groups(labels.astype(np.float64), order, offsets, _cutoff(k), 2.0 ** max_grade)
    return _reduce(values, per_query)


def precision_at(y, scores, qid=None, *, k: int = 10, average: str = "micro",
                 classes: Sequence[int] | None = None, per_query: bool = False):
    """Multi-class precision at k, Welleck eqs. (2) and (4) (the ``mcp@k`` metric).

    Parameters
    ----------
    y : array-like of int, shape (n_samples,)
        Relevance grades.
    scores : array-like of shape (n_samples,)
    qid : array-like of shape (n_samples,), default=None
    k : int, default=10
        Every query divides by k, also when it has fewer documents (trec_eval ``P_k``).
    average : {"micro", "macro"}, default="micro"
    classes : sequence of int, default=None
        Relevance classes; by default the grades >= 1 present in ``y``.
    per_query : bool, default=False
        Per-query values, for ``"micro"`` only.

    Returns
    -------
    float or ndarray

    Notes
    -----
    With C classes and top_qc the number of class-c documents in the top k of query q:

    * micro (eq. 2): mean over queries of Σ_c top_qc / (C k).  Every query counts,
      those without relevant documents score 0.  Classes are pooled, so prevalent
      classes dominate.
    * macro (eq. 4): (1 / C) Σ_c P_c@k, where P_c@k is the mean of top_qc / k over
      the queries in which class c occurs.  Taken literally with one global C the two
      equations coincide; averaging each class over the queries that contain it gives
      each class equal weight, the property Welleck §3.1.2 asks of macro-averaging.

    With binary labels micro P@k is trec_eval's ``P_k``; with graded labels it is not
    (it divides by the number of classes): use :func:`precision`.

    Examples
    --------
    >>> precision_at([2, 0, 1, 0, 1, 0], [0.9, 0.8, 0.3, 0.5, 0.1, 0.2], [1, 1, 1, 2, 2, 2], k=2)
    0.125
    """
    _choice(average, {"micro", "macro"}, "average")
    labels = as_int_labels(y)
    s = as_1d_float(scores, "scores")
    if labels.shape != s.shape:
        raise ValueError(f"y has {labels.shape[0]} entries but scores has {s.shape[0]}")
    offsets = group_offsets(labels.shape[0], qid=qid)
    kk = _cutoff(k)
    if kk == 0:
        raise ValueError("precision_at needs a finite k")
    if classes is None:
        cls = np.unique(labels[labels > 0])
    else:
        cls = np.asarray(classes, dtype=np.int64).ravel()
    n_groups = offsets.shape[0] - 1
    if cls.size == 0 or n_groups == 0:
        return np.full(n_groups, np.nan) if per_query else float("nan")
    note_metric_kernels()
    order = sort_within_groups(s, offsets, True)
    top, present = _km.topk_class_counts(labels, order, offsets, kk, cls)
    if average == "micro":
        return _reduce(top.sum(axis=1) / (cls.size * kk), per_query)
    if per_query:
        raise ValueError("per_query=True is defined for average='micro' only")
    with np.errstate(invalid="ignore"):
        occurs = present > 0
        per_class = np.where(occurs, top / kk, 0.0).sum(axis=0) / occurs.sum(axis=0)
    per_class = per_class[~np.isnan(per_class)]
    return float(per_class.mean()) if per_class.size else float("nan")


def minrank(scores, qid=None) -> np.ndarray:
    """Minimum ranks, minrank_f(x_i) = #{k : f(x_k) < f(x_i)} (thesis §2.1.1).

    Parameters
    ----------
    scores : array-like of shape (n_samples,)
    qid : array-like of shape (n_samples,), default=None
        Ranks are counted within each query.

    Returns
    -------
    ndarray of int64, shape (n_samples,)
        0 is the bottom of a list; tied examples share their minimum rank.

    Examples
    --------
    >>> minrank([6, 6, 5, 4, 3, 3, 2, 2, 1]).tolist()
    [7, 7, 6, 5, 3, 3, 1, 1, 0]
    """
    s = as_1d_float(scores, "scores")
    offsets = group_offsets(s.shape[0], qid=qid)
    note_metric_kernels()
    return _kr.rank_groups(np.zeros(0, dtype=np.bool_), s, sort_within_groups(s, offsets, False), offsets, False)


def resolved_rank(y, scores, qid=None) -> np.ndarray:
    """Ranks of thesis Definition 1, with ties resolved pessimistically.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        ``y > 0`` is positive.
    scores : array-like of shape (n_samples,)
    qid : array-like of shape (n_samples,), default=None

    Returns
    -------
    ndarray of int64, shape (n_samples,)
        A permutation of 0..n-1 within each list (0 at the bottom) with
        rank >= minrank.  In a block of tied scores every negative ranks above every
        positive (thesis §2.1.3); tied examples with the same label are ordered by
        input position, the earlier one higher, as in thesis Table 2.1.

    Examples
    --------
    >>> resolved_rank([1, 1, 1, 0, 0, 1, 0, 1, 0], [6, 6, 5, 4, 3, 3, 2, 2, 1]).tolist()
    [8, 7, 6, 5, 4, 3, 2, 1, 0]
    """
    y, s, offsets = check_ranking_inputs(y, scores, qid)
    return _kr.rank_groups(y > 0, s, sort_within_groups(s, offsets, False), offsets, True)


def rank_risk(y, scores, a, *, rank: str = "min", qid=None, per_query: bool = False, gain: str = "binary"):
    """Rank risk functional RRF = Σ_i g(y_i) a_{r_i + 1} (thesis eq. 2.1 / 2.17).

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        ``y > 0`` is positive.
    scores : array-like of shape (n_samples,)
    a : WeightFamily, str or array-like
        A weight family (:mod:`boostrank.weights`, e.g. ``dcg_at(10)`` or the name
        ``"dcg@10"``) or the explicit a_1..a_n of a single list.
    rank : {"min", "resolved"}, default="min"
        ``"min"`` uses minimum ranks (2.17), ``"resolved"`` the ranks of
        Definition 1 (2.1).  By Lemma 1, RRF_min <= RRF, with equality without ties.
    qid : array-like of shape (n_samples,), default=None
    per_query : bool, default=False
    gain : {"binary", "exponential"}, default="binary"
        g(y) = 1[y > 0] (the thesis) or 2^y − 1 (the gain of NDCG in LightGBM and
        trec_eval's default), which extends RRF to graded labels; the two agree on
        0/1 labels.  Ties are resolved with ``y > 0`` either way.

    Returns
    -------
    float or ndarray
        The RRF of the list, or its mean over queries.

    Examples
    --------
    >>> y, x = [1, 1, 0, 1, 1, 1, 1], [3, 3, 2, 1, 1, 1, 1]   # thesis Table 2.2
    >>> rank_risk(y, x, "local_auc@5"), rank_risk(y, x, "local_auc@5", rank="resolved")
    (12.0, 13.0)
    """
    _choice(rank, {"min", "resolved"}, "rank")
    y, s, offsets = check_ranking_inputs(y, scores, qid)
    family: WeightFamily = weight_family(a)
    positive = y > 0
    order = sort_within_groups(s, offsets, False)
    if rank == "min":
        r = _kr.rank_groups(np.zeros(0, dtype=np.bool_), s, order, offsets, False)
    else:
        r = _kr.rank_groups(positive, s, order, offsets, True)
    sizes = np.diff(offsets)
    cache = {}
    for n in np.unique(sizes):  # lists of one length share their weights
        cache[int(n)] = family(int(n))
    weights = np.concatenate([cache[int(n)] for n in sizes]) if sizes.size else np.zeros(0)
    values = _kr.rank_risk_groups(rank_gain(y, gain), r, offsets, weights, offsets)
    return _reduce(values, per_query)


def rank_gain(y, gain: str = "binary") -> np.ndarray:
    """Gain of each label for a rank risk functional: 1[y > 0] or 2^y − 1.

    Parameters
    ----------
    y : ndarray of float64
    gain : {"binary", "exponential"}

    Returns
    -------
    ndarray of float64
    """
    _choice(gain, {"binary", "exponential"}, "gain")
    if gain == "binary":
        return (y > 0).astype(np.float64)
    if y.size and (y.min() < 0 or y.max() > 60):
        raise ValueError("gain='exponential' needs labels in [0, 60] (2^y − 1 must stay exact)")
    return np.exp2(y) - 1.0


def trec_ties(y, s, offsets, docid):
    """Rows reordered within each list by document id descending, so the stable score sort
    breaks ties as trec_eval does (``strcmp`` of docnos, the larger first).  Without ids, a
    list with tied scores is ranked in input order, which trec_eval does not do: a
    :class:`TieWarning` says so."""
    if docid is None:
        if s.size > 1:
            lists = list_index(offsets)
            order = np.lexsort((s, lists))
            tied = (lists[order][1:] == lists[order][:-1]) & (s[order][1:] == s[order][:-1])
            if tied.any():
                warn_user(f"{int(tied.sum())} score ties within lists and no docid=: they are broken by input "
                          f"order, trec_eval breaks them by document id (pass docid= to match it)", TieWarning)
        return y, s
    docid = np.asarray(docid, dtype=object)
    if docid.shape != s.shape:
        raise ValueError(f"docid has {docid.shape[0]} entries but scores has {s.shape[0]}")
    if any(d is None for d in docid):
        raise ValueError("docid has rows without an id; trec_eval's tie-break needs every row's")
    perm = docid_desc_order(offsets, docid)
    return y[perm], s[perm]


def docid_desc_order(offsets, docid) -> np.ndarray:
    """Each list's rows by document id descending (``strcmp``), lists in place."""
    rank = np.unique(docid.astype(str), return_inverse=True)[1].reshape(-1)
    lists = list_index(offsets)
    return np.lexsort((-rank, lists))


# name[@k][:variant] -> callable(y, scores, qid)
_METRICS: dict[str, Callable] = {
    "auc": lambda k, v: lambda y, s, q, pq=False: auc(y, s, q, ties=v or "average", per_query=pq),
    "mauc": lambda k, v: lambda y, s, q, pq=False: mauc(y, s, q, ties=v or "average", per_query=pq),
    "wmw": lambda k, v: lambda y, s, q, pq=False: wmw(y, s, q, ties=v or "optimistic", per_query=pq),
    "ndcg": lambda k, v: lambda y, s, q, pq=False: ndcg(y, s, q, k=k, convention=v or "lightgbm", per_query=pq),
    "map": lambda k, v: lambda y, s, q, pq=False: mean_average_precision(
        y, s, q, k=k, convention=v or "lightgbm", per_query=pq),
    "p": lambda k, v: lambda y, s, q, pq=False: precision(y, s, q, k=10 if k is None else k, per_query=pq),
    "mcp": lambda k, v: lambda y, s, q, pq=False: precision_at(y, s, q, k=10 if k is None else k,
                                                                average=v or "micro", per_query=pq),
    "err": lambda k, v: lambda y, s, q, pq=False: err(y, s, q, k=k, per_query=pq),
    "recall": lambda k, v: lambda y, s, q, pq=False: recall(y, s, q, k=k, per_query=pq),
    "mrr": lambda k, v: lambda y, s, q, pq=False: reciprocal_rank(y, s, q, k=k, per_query=pq),
    "rprec": lambda k, v: lambda y, s, q, pq=False: r_precision(y, s, q, per_query=pq),
}
#: trec_eval's measure names (``ndcg_cut_10`` or pytrec_eval's ``ndcg_cut.10``) and what they are here
_TREC_NAMES = re.compile(r"^(?P<name>ndcg_cut|map_cut|p|recall)[_.](?P<k>\d{1,9})$")
_TREC_SPELLING = {"ndcg_cut": "ndcg@{}:trec", "map_cut": "map@{}:trec", "p": "p@{}", "recall": "recall@{}"}
_TREC_PLAIN = {"recip_rank": "mrr", "rprec": "rprec"}
METRIC_NAMES = tuple(_METRICS)
#: the metrics of LETOR labels the command line reports by default (train, predict, rerank, demo)
LETOR_METRICS = "ndcg@10,map,auc,mauc,p@5"
_WHOLE_LIST = {"auc", "mauc", "wmw", "rprec"}
_NAME = re.compile(r"^(?P<name>[a-z]+)(?:@(?P<k>\d{1,9}))?(?::(?P<variant>[a-z]+))?$")


class Metric:
    """A metric from :func:`get_metric`: ``metric(y, scores, qid)``.

    :meth:`from_offsets` takes query offsets instead of a qid column (engines hold
    groups that way), skipping the conversion.
    """

    def __init__(self, name: str, fn: Callable):
        self.name = name
        self._fn = fn
        self.__name__ = name

    def __repr__(self):
        return f"get_metric({self.name!r})"

    def __call__(self, y, scores, qid=None, *, per_query: bool = False):
        """The mean over queries where defined, or (``per_query``) each query's value, NaN where undefined."""
        return self._fn(y, scores, qid, per_query)

    def from_offsets(self, y, scores, offsets):
        """The metric with query ``g`` = rows ``offsets[g]:offsets[g + 1]``."""
        return self._fn(y, scores, GroupOffsets(offsets))


def canonical_metric(spec: str) -> str:
    """The boostrank spelling of a metric name, trec_eval's names translated.

    ``ndcg_cut_10`` → ``ndcg@10:trec``, ``map_cut_10`` → ``map@10:trec``, ``P_5`` → ``p@5``,
    ``recall_100`` → ``recall@100``, ``recip_rank`` → ``mrr``, ``Rprec`` → ``rprec`` (pytrec_eval's
    ``ndcg_cut.10`` too).  ``map`` and ``ndcg`` are both trec_eval's and LightGBM's names: they
    follow LightGBM on LETOR labels and trec_eval on qrels (:func:`boostrank.evaluate`).
    """
    if not isinstance(spec, str):
        raise ValueError(f"a metric name is a string, got {spec!r}")
    text = spec.strip().lower()
    m = _TREC_NAMES.match(text)
    if m is not None:
        return _TREC_SPELLING[m["name"]].format(int(m["k"]))
    return _TREC_PLAIN.get(text, text)


def parse_metric(spec: str) -> tuple[str, int | None, str | None]:
    """``(name, k, variant)`` of a metric name (:func:`get_metric`'s grammar, trec_eval's names too)."""
    m = _NAME.match(canonical_metric(spec))
    if m is None or m["name"] not in _METRICS:
        raise ValueError(
            f"unknown metric {spec!r}; use name[@k][:variant] with name in {list(_METRICS)}, or trec_eval's "
            f"ndcg_cut_k, map_cut_k, P_k, recall_k, recip_rank, Rprec (and, in boostrank.evaluate, its other "
            f"measures: bpref, success_k, iprec_at_recall_x, ..., all_trec; ranx's hit_rate_k, f1_k)"
        )
    k = int(m["k"]) if m["k"] else None
    if k is not None and m["name"] in _WHOLE_LIST:
        raise ValueError(f"metric {spec!r}: {m['name']} is computed on whole lists and takes no @k")
    if k is not None and k < 1:
        raise ValueError(f"metric {spec!r}: the cut-off k must be at least 1")
    if m["variant"] and m["name"] not in _VARIANTS:
        raise ValueError(f"metric {spec!r}: {m['name']} takes no :variant (Welleck's multi-class precision is mcp)")
    if m["variant"] and m["variant"] not in _VARIANTS[m["name"]]:
        raise ValueError(f"metric {spec!r}: the variant of {m['name']} is one of {sorted(_VARIANTS[m['name']])}")
    return m["name"], k, m["variant"]


_VARIANTS = {"auc": set(_AUC_TIES), "mauc": set(_AUC_TIES), "wmw": set(_WMW_TIES), "ndcg": _CONVENTIONS,
             "map": _CONVENTIONS, "mcp": {"micro", "macro"}}


def get_metric(spec: str) -> Metric:
    """Metric callable ``f(y, scores, qid)`` from a name like ``"ndcg@10"``.

    Grammar: ``name[@k][:variant]`` with name in

    * ``auc``, ``mauc``, ``wmw`` (variant: ties rule, ``auc:pessimistic``);
    * ``ndcg``, ``map`` (variant: convention, ``ndcg@10:trec``; default LightGBM's);
    * ``p`` — trec_eval's ``P_k`` on binarised labels (:func:`precision`);
    * ``recall`` — trec_eval's ``recall_k`` (:func:`recall`); ``mrr`` — ``recip_rank``
      (:func:`reciprocal_rank`); ``rprec`` — ``Rprec`` (:func:`r_precision`);
    * ``mcp`` — Welleck's multi-class precision (:func:`precision_at`; ``mcp@5:macro``);
    * ``err`` — RankLib's ``ERR@k`` (:func:`err`).

    trec_eval's names are accepted too (:func:`canonical_metric`).

    Examples
    --------
    >>> metric = get_metric("ndcg@2")
    >>> round(metric([2, 0, 1, 0, 1, 0], [0.9, 0.8, 0.3, 0.5, 0.1, 0.2], [1, 1, 1, 2, 2, 2]), 4)
    0.4131
    """
    name, k, variant = parse_metric(spec)
    return Metric(spec, _METRICS[name](k, variant))


def query_mean(values, offsets, sample_weight=None) -> float:
    """Mean of per-query values over the queries where defined, each weighted by its rows' mean weight.

    Parameters
    ----------
    values : ndarray of shape (n_queries,)
        NaN where a query's statistic is undefined.
    offsets : ndarray of int64
        Query offsets of the rows.
    sample_weight : array-like of shape (n_samples,), default=None
    """
    values = np.asarray(values, dtype=np.float64)
    sizes = np.diff(offsets)
    w = np.ones_like(values) if sample_weight is None else np.bincount(
        np.repeat(np.arange(sizes.shape[0]), sizes), weights=as_1d_float(sample_weight, "sample_weight"),
        minlength=sizes.shape[0]) / np.maximum(sizes, 1)
    ok = ~np.isnan(values)
    return float(np.average(values[ok], weights=w[ok])) if ok.any() and w[ok].sum() > 0 else float("nan")


def query_scorer(metric: str = "ndcg@10"):
    """A scikit-learn scorer of any :func:`get_metric` name that takes ``qid`` as metadata.

    ``GridSearchCV(..., scoring=br.query_scorer("ndcg@10"), cv=GroupKFold(5)).fit(X, y, qid=qid,
    groups=qid)`` with ``sklearn.set_config(enable_metadata_routing=True)`` scores every
    fold per query, on any scikit-learn from 1.6 (the estimator's own ``score`` is routed
    ``qid`` inside a Pipeline from scikit-learn 1.8).

    Returns
    -------
    scorer
        Higher is better; requests ``qid`` for scoring.

    Examples
    --------
    >>> import sklearn, boostrank as br
    >>> data = br.datasets.make_letor(30, random_state=0)
    >>> model = br.RankNCG().fit(data.X, data.y, qid=data.qid)
    >>> with sklearn.config_context(enable_metadata_routing=True):
    ...     value = query_scorer("ndcg@10")(model, data.X, data.y, qid=data.qid)
    >>> value == br.ndcg(data.y, model.predict(data.X), data.qid, k=10)
    True
    """
    from sklearn.metrics import make_scorer

    fn = get_metric(metric)

    def score(y_true, y_pred, qid=None):
        return float(fn(y_true, y_pred, qid))

    score.__name__ = metric
    return make_scorer(score).set_score_request(qid=True)
