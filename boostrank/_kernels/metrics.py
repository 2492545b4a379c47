"""Per-query rank-metric kernels.

All kernels take the documents of each group already ordered by
:func:`boostrank._kernels.order.sort_within_groups` (ascending for pair-counting
statistics, descending for top-k statistics) and return one value, or one row of
counts, per group.  Values that are undefined for a group are NaN.

The top-k kernels share their first parameters: ``labels`` (float64, shape (n,)),
``order_desc`` (int64, shape (n,), each group's rows in descending score order),
``offsets`` (int64, shape (n_groups + 1,): group g is rows ``offsets[g]:offsets[g + 1]``)
and ``k`` (the cut-off; ``k <= 0`` means the whole list).
"""

import math

import numpy as np
from numba import njit, prange

from .order import merge_order, tie_end


@njit(cache=True)
def _group_cut(offsets, g, k):
    """First row, length and cut-off (``k <= 0`` or past the end: the whole list) of group g."""
    a = offsets[g]
    n = offsets[g + 1] - a
    return a, n, (n if (k <= 0 or k > n) else k)


@njit(cache=True)
def _credit_above(labels, scores, order_asc, a, b, hi, lo, rest, tie_weight):
    """Pairs (row labelled ``hi``, row labelled ``lo``) of one group with the ``hi`` row scored above,
    plus ``tie_weight`` per tied pair, and the number of such pairs.  With ``rest`` every label but
    ``hi`` counts as ``lo``.

    One ascending pass over the group's tie blocks (``order_asc[a:b]``).
    """
    lo_below = 0.0
    n_hi = 0.0
    credit = 0.0
    i = a
    while i < b:
        j = tie_end(scores, order_asc, i, b)
        lo_blk = 0.0
        hi_blk = 0.0
        for t in range(i, j):
            lab = labels[order_asc[t]]
            if lab == hi:
                hi_blk += 1.0
            elif rest or lab == lo:
                lo_blk += 1.0
        credit += hi_blk * (lo_below + tie_weight * lo_blk)
        lo_below += lo_blk
        n_hi += hi_blk
        i = j
    return credit, lo_below * n_hi


@njit(cache=True)
def _gain(label, exp_gain):
    """2^l − 1 (LightGBM) or l (trec_eval)."""
    return (2.0 ** label - 1.0) if exp_gain else label


@njit(cache=True, parallel=True)
def auc_pair_counts(positive, scores, order_asc, offsets):
    """Positive-negative pair counts of each group (thesis §2.1.2, Welleck eq. 9).

    Parameters
    ----------
    positive : ndarray of bool, shape (n,)
    scores : ndarray of float64, shape (n,)
    order_asc : ndarray of int64, shape (n,)
        Ascending score order within each group.
    offsets : ndarray of int64, shape (n_groups + 1,)

    Returns
    -------
    counts : ndarray of float64, shape (n_groups, 4)
        Columns: pairs with the positive strictly above, tied pairs, n_pos, n_neg.
    """
    n_groups = offsets.shape[0] - 1
    out = np.zeros((n_groups, 4))
    for g in prange(n_groups):
        a = offsets[g]
        b = offsets[g + 1]
        neg_below = 0.0
        correct = 0.0
        tied = 0.0
        n_pos = 0.0
        i = a
        while i < b:
            j = i
            s = scores[order_asc[i]]
            p_blk = 0.0
            n_blk = 0.0
            while j < b and scores[order_asc[j]] == s:
                if positive[order_asc[j]]:
                    p_blk += 1.0
                else:
                    n_blk += 1.0
                j += 1
            correct += p_blk * neg_below
            tied += p_blk * n_blk
            neg_below += n_blk
            n_pos += p_blk
            i = j
        out[g, 0] = correct
        out[g, 1] = tied
        out[g, 2] = n_pos
        out[g, 3] = neg_below
    return out


@njit(cache=True)
def mauc_class_weights(counts, n):
    """Per-class weight ω_c = p(c) / (n_c (n − n_c)) of Welleck eq. (5) and (18).

    The one definition of MAUC's class set and weighting, shared by the metric and
    the objective: reference classes are the labels c >= 1 present in the list,
    p(c) = n_c / n_relevant.  Hence ω_c = 1 / (n_relevant (n − n_c)), and
    MAUC = Σ_c ω_c · #(correct (c, other) pairs).  ω_0 = 0; absent classes get 0;
    a list with a single label value gets all zeros.

    Parameters
    ----------
    counts : ndarray of float64, shape (n_labels,)
        Documents per label value 0..n_labels-1.
    n : float
        Length of the list.
    """
    w = np.zeros(counts.shape[0])
    mauc_class_weights_into(counts, n, w)
    return w


@njit(cache=True)
def mauc_class_weights_into(counts, n, w):
    """:func:`mauc_class_weights` written into ``w`` (no allocation, for per-query loops)."""
    n_rel = n - counts[0]
    for c in range(w.shape[0]):
        w[c] = 0.0
    if n_rel <= 0.0:
        return
    for c in range(1, counts.shape[0]):
        if 0.0 < counts[c] < n:
            w[c] = 1.0 / (n_rel * (n - counts[c]))


@njit(cache=True, parallel=True)
def mauc_groups(labels, scores, order_asc, offsets, tie_weight):
    """Multi-class AUC of each group (Welleck eq. 5).

    MAUC = Σ_c p(c) AUC(c vs rest) = Σ_c ω_c · credit_c, with the class set and
    weights of :func:`mauc_class_weights`.  Class 0 is never a reference class
    (ranking irrelevant documents first is not a goal) but it is part of every
    "rest".  A group with a single label value, or without relevant documents, is
    NaN.

    Parameters
    ----------
    labels : ndarray of int64, shape (n,)
        Non-negative integer relevance grades.
    scores : ndarray of float64, shape (n,)
    order_asc : ndarray of int64, shape (n,)
    offsets : ndarray of int64, shape (n_groups + 1,)
    tie_weight : float
        Credit for a tied (class c, other) pair: 0 pessimistic, 0.5 average.

    Returns
    -------
    mauc : ndarray of float64, shape (n_groups,)
    """
    out = np.full(offsets.shape[0] - 1, np.nan)
    for g in prange(out.shape[0]):
        a, n, _ = _group_cut(offsets, g, 0)
        b = a + n
        if n < 2:
            continue
        top = 0
        for i in range(a, b):
            if labels[i] > top:
                top = labels[i]
        counts = np.zeros(top + 1)
        for i in range(a, b):
            counts[labels[i]] += 1.0
        w = mauc_class_weights(counts, float(n))
        total = 0.0
        defined = False
        for c in range(1, top + 1):
            if w[c] == 0.0:
                continue
            defined = True
            total += w[c] * _credit_above(labels, scores, order_asc, a, b, c, 0, True, tie_weight)[0]
        if defined:
            out[g] = total
    return out


@njit(cache=True, parallel=True)
def wmw_pair_counts(labels, scores, order_asc, offsets, edge_lo, edge_hi, tie_weight):
    """Generalised Wilcoxon-Mann-Whitney counts per group (Raykar eq. 1).

    For every edge ``lo -> hi`` of the preference graph, every pair (k with label
    ``lo``, l with label ``hi``) is counted, and credited when f(x_l) > f(x_k), plus
    ``tie_weight`` when they tie (Raykar's eq. 1 uses >=, i.e. ``tie_weight = 1``).

    Returns
    -------
    counts : ndarray of float64, shape (n_groups, 2)
        Credited pairs and all pairs of each group.
    """
    n_groups = offsets.shape[0] - 1
    n_edges = edge_lo.shape[0]
    out = np.zeros((n_groups, 2))
    for g in prange(n_groups):
        a = offsets[g]
        b = offsets[g + 1]
        for e in range(n_edges):
            credit, pairs = _credit_above(labels, scores, order_asc, a, b, edge_hi[e], edge_lo[e], False,
                                          tie_weight)
            out[g, 0] += credit
            out[g, 1] += pairs
    return out


@njit(cache=True, parallel=True)
def wmw_full_counts(labels, scores, order_asc, offsets, tie_weight):
    """Generalised WMW counts per group on Raykar's full order graph (eq. 1), O(n log n).

    Equal to :func:`wmw_pair_counts` with an edge for every pair of classes, whose
    cost grows with the square of the number of classes: here every row credits the
    rows of lower class in earlier score blocks through a Fenwick tree over the
    group's classes, and the pairs inside a tie block are counted from class counts.

    Returns
    -------
    counts : ndarray of float64, shape (n_groups, 2)
        Credited pairs and all pairs of each group.
    """
    n_groups = offsets.shape[0] - 1
    out = np.zeros((n_groups, 2))
    for g in prange(n_groups):
        a = offsets[g]
        b = offsets[g + 1]
        n = b - a
        if n < 2:
            continue
        classes = np.unique(labels[a:b])
        n_classes = classes.shape[0]
        if n_classes < 2:
            continue
        tree = np.zeros(n_classes + 1, dtype=np.int64)
        in_block = np.zeros(n_classes, dtype=np.int64)
        rank = np.empty(n, dtype=np.int64)
        credit = 0.0
        i = a
        while i < b:
            j = tie_end(scores, order_asc, i, b)
            block_pairs = 0.0  # ordered pairs of different classes inside the block
            for t in range(i, j):
                c = np.searchsorted(classes, labels[order_asc[t]])
                rank[t - a] = c
                below = 0  # rows of a lower class in earlier blocks
                k = c
                while k > 0:
                    below += tree[k]
                    k -= k & (-k)
                credit += below
                block_pairs += (t - i) - in_block[c]
                in_block[c] += 1
            credit += tie_weight * block_pairs
            for t in range(i, j):
                c = rank[t - a]
                in_block[c] = 0
                k = c + 1
                while k <= n_classes:
                    tree[k] += 1
                    k += k & (-k)
            i = j
        counts = np.zeros(n_classes)
        for t in range(n):
            counts[rank[t]] += 1.0
        same = 0.0
        for c in range(n_classes):
            same += counts[c] * counts[c]
        out[g, 0] = credit
        out[g, 1] = (float(n) * n - same) / 2.0
    return out


@njit(cache=True, parallel=True)
def _topk_groups(metric, labels, order_desc, offsets, k, flag, value):
    """One top-k value per group: 0 NDCG, 1 ERR (see the public kernels).

    NaN for an empty group.  ``flag`` and ``value``: exp_gain and empty_value (NDCG),
    unused and max_gain (ERR).
    """
    out = np.full(offsets.shape[0] - 1, np.nan)
    for g in prange(out.shape[0]):
        a, n, kk = _group_cut(offsets, g, k)
        if n > 0 and metric == 0:
            out[g] = _ndcg(labels, order_desc, a, n, kk, flag, value)
        elif n > 0:
            out[g] = _err(labels, order_desc[a:a + kk], value)
    return out


@njit(cache=True, parallel=True)
def _ap_groups(relevant, order_desc, offsets, k, denominator_at_k, empty_value):
    """:func:`average_precision_groups`: a kernel apart from NDCG's and ERR's, whose bodies a
    uint8 mask would otherwise compile a second time, cold, without running them."""
    out = np.full(offsets.shape[0] - 1, np.nan)
    for g in prange(out.shape[0]):
        a, n, kk = _group_cut(offsets, g, k)
        if n > 0:
            out[g] = _average_precision(relevant[a:a + n], order_desc[a:a + kk] - a, k, denominator_at_k,
                                        empty_value)
    return out


@njit(cache=True)
def _ndcg(labels, order_desc, a, n, kk, exp_gain, empty_value):
    """DCG of the top ``kk`` rows of group (a, n) over the DCG of its best order."""
    dcg = 0.0
    for i in range(kk):
        dcg += _gain(labels[order_desc[a + i]], exp_gain) / math.log2(i + 2.0)
    ideal = labels[a:a + n].copy()
    merge_order(ideal)
    idcg = 0.0
    for i in range(kk):
        idcg += _gain(ideal[n - 1 - i], exp_gain) / math.log2(i + 2.0)
    return dcg / idcg if idcg > 0.0 else empty_value


@njit(cache=True)
def _err(labels, top, max_gain):
    """Σ_i R_i/(i + 1) Π_{j < i} (1 − R_j) over the rows ``top``, R = (2^l − 1)/max_gain."""
    total = 0.0
    keep = 1.0
    for i in range(top.shape[0]):
        r = (2.0 ** labels[top[i]] - 1.0) / max_gain
        total += keep * r / (i + 1)
        keep *= 1.0 - r
    return total


@njit(cache=True)
def _average_precision(relevant, top, k, denominator_at_k, empty_value):
    """Σ over relevant rows of ``top`` of the precision at their rank, over R or min(k, R) (one group)."""
    n_rel = 0
    for i in range(relevant.shape[0]):
        if relevant[i] != 0:
            n_rel += 1
    if n_rel == 0:
        return empty_value
    hits = 0
    total = 0.0
    for i in range(top.shape[0]):
        if relevant[top[i]] != 0:
            hits += 1
            total += hits / (i + 1.0)
    return total / (k if (denominator_at_k and 0 < k < n_rel) else n_rel)


def ndcg_groups(labels, order_desc, offsets, k, exp_gain, empty_value):
    """NDCG@k of each group.

    DCG@k = Σ_{i < k} gain(l_(i)) / log2(i + 2) over the list in descending score
    order (ties in file order), divided by the DCG@k of the ideal order.

    Parameters
    ----------
    labels, order_desc, offsets, k
        As in the module docstring.
    exp_gain : bool
        gain = 2^l - 1 (LightGBM) when True, gain = l (trec_eval) when False.
    empty_value : float
        Value of a group whose ideal DCG is 0 (all labels 0): 1.0 in LightGBM, 0.0 in
        trec_eval.

    Returns
    -------
    ndcg : ndarray of float64, shape (n_groups,)
        NaN for an empty group.
    """
    return _topk_groups(0, labels, order_desc, offsets, k, bool(exp_gain), float(empty_value))


def err_groups(labels, order_desc, offsets, k, max_gain):
    """Expected reciprocal rank at k of each group (Chapelle et al. 2009; RankLib's ``ERR@k``).

    ERR@k = Σ_{i < k} R_(i)/(i + 1) Π_{j < i} (1 − R_(j)) with R = (2^l − 1)/max_gain
    over the list in descending score order.

    Parameters
    ----------
    labels, order_desc, offsets, k
        As in the module docstring.
    max_gain : float
        2^g_max (RankLib: 16, grades 0..4).

    Returns
    -------
    ndarray of float64, shape (n_groups,)
        NaN for an empty group.
    """
    return _topk_groups(1, labels, order_desc, offsets, k, False, float(max_gain))


def average_precision_groups(relevant, order_desc, offsets, k, denominator_at_k, empty_value):
    """Average precision (at k) of each group.

    AP@k = Σ_{i < k, doc i relevant} P@(i + 1) / R, with R the number of relevant
    documents of the group (trec_eval ``map``/``map_cut``) or min(k, R)
    (``denominator_at_k``, LightGBM ``map@k``).

    Parameters
    ----------
    relevant : ndarray of bool, uint8 or float64, shape (n,)
    order_desc, offsets, k
        As in the module docstring.

    Returns
    -------
    ap : ndarray of float64, shape (n_groups,)
        ``empty_value`` for a group without relevant documents, NaN if empty.
    """
    relevant = np.asarray(relevant)
    if relevant.dtype == np.bool_:
        relevant = relevant.view(np.uint8)  # a view: a float copy of a long mask cost 15 % of the call
    return _ap_groups(relevant, order_desc, offsets, k, bool(denominator_at_k), float(empty_value))


@njit(cache=True, parallel=True)
def topk_class_counts(labels, order_desc, offsets, k, classes):
    """Counts of each class among the top k documents, and in the whole group.

    Returns
    -------
    top : ndarray of float64, shape (n_groups, n_classes)
    present : ndarray of float64, shape (n_groups, n_classes)
    """
    n_groups = offsets.shape[0] - 1
    n_classes = classes.shape[0]
    top = np.zeros((n_groups, n_classes))
    present = np.zeros((n_groups, n_classes))
    for g in prange(n_groups):
        a = offsets[g]
        b = offsets[g + 1]
        kk = min(k, b - a)
        for i in range(b - a):
            lab = labels[order_desc[a + i]]
            for c in range(n_classes):
                if lab == classes[c]:
                    present[g, c] += 1.0
                    if i < kk:
                        top[g, c] += 1.0
    return top, present
