"""Top-k measures of ranked lists judged against relevance sets that reach past the list.

trec_eval divides recall, average precision and R-precision by R, the number of relevant
documents in the judgements, and compares DCG with the ideal order of every judged
document, also those the run did not retrieve.  So these kernels take two grouped arrays:
``rel`` (float64), the grades of each list's retrieved documents in rank order (ties
already broken), with ``offsets``; and ``ideal`` (float64), every judged grade of the
query in descending order, with ``ideal_offsets``.  For a LETOR list both come from the
list itself.

A document is relevant when its grade exceeds ``threshold`` (trec_eval's ``rel_level`` 1
is ``threshold=0`` on integer grades).  ``k <= 0`` means no cut-off.
"""

import math

import numpy as np
from numba import njit

# the ``measure`` codes of :func:`judged_measure`
MODE_NDCG = 0
MODE_AVERAGE_PRECISION = 1
MODE_PRECISION = 2
MODE_RECALL = 3
MODE_RECIPROCAL_RANK = 4
MODE_R_PRECISION = 5


@njit(cache=True)
def _gain(grade, exp_gain):
    if grade <= 0.0:  # trec_eval: a negative grade gains nothing
        return 0.0
    return math.pow(2.0, grade) - 1.0 if exp_gain else grade


@njit(cache=True)
def judged_measure(rel, offsets, ideal, ideal_offsets, measure, k, threshold, exp_gain, empty_value):
    """One measure of each list.

    Parameters
    ----------
    rel, offsets, ideal, ideal_offsets
        As in the module docstring; both offsets have n_lists + 1 entries.
    measure : int
        ``MODE_NDCG``: Σ_{i<k} gain(rel_i)/log2(i + 2) over the same sum of the ideal order.
        ``MODE_AVERAGE_PRECISION``: Σ_{i<k, rel_i relevant} P@(i + 1) / R (``exp_gain``: / min(k, R),
        LightGBM's ``map@k``).  ``MODE_PRECISION``: relevant in the top k / k (k required).
        ``MODE_RECALL``: relevant in the top k / R.  ``MODE_RECIPROCAL_RANK``: 1 / rank of the first
        relevant document within k, 0 if none.  ``MODE_R_PRECISION``: relevant in the top R / R.
    k : int
    threshold : float
    exp_gain : bool
        LightGBM's conventions (gain 2^g − 1, AP over min(k, R)); else trec_eval's (gain = g,
        negative grades gain 0).
    empty_value : float
        NDCG when the ideal DCG is 0, and AP, recall and R-precision when R = 0 (trec_eval 0,
        LightGBM 1).

    Returns
    -------
    ndarray of float64, shape (n_lists,)
        NaN for a list with no retrieved document.
    """
    n_lists = offsets.shape[0] - 1
    out = np.empty(n_lists)
    for g in range(n_lists):
        a = offsets[g]
        n = offsets[g + 1] - a
        ia = ideal_offsets[g]
        m = ideal_offsets[g + 1] - ia
        if n == 0:
            out[g] = np.nan
            continue
        cut = n if (k <= 0 or k > n) else k
        n_rel = 0
        for i in range(m):
            if ideal[ia + i] > threshold:
                n_rel += 1
        if measure == MODE_NDCG:
            dcg = 0.0
            for i in range(cut):
                dcg += _gain(rel[a + i], exp_gain) / math.log2(i + 2.0)
            icut = m if (k <= 0 or k > m) else k
            idcg = 0.0
            for i in range(icut):
                idcg += _gain(ideal[ia + i], exp_gain) / math.log2(i + 2.0)
            out[g] = dcg / idcg if idcg > 0.0 else empty_value
        elif measure == MODE_RECIPROCAL_RANK:
            value = 0.0
            for i in range(cut):
                if rel[a + i] > threshold:
                    value = 1.0 / (i + 1.0)
                    break
            out[g] = value
        else:
            if measure == MODE_R_PRECISION:
                cut = min(n_rel, n)
            hits = 0
            ap = 0.0
            for i in range(cut):
                if rel[a + i] > threshold:
                    hits += 1
                    ap += hits / (i + 1.0)
            if measure == MODE_PRECISION:
                out[g] = hits / k
            elif n_rel == 0:
                out[g] = empty_value
            elif measure == MODE_AVERAGE_PRECISION:
                out[g] = ap / (min(k, n_rel) if (exp_gain and k > 0) else n_rel)
            else:  # RECALL, R_PRECISION
                out[g] = hits / n_rel
    return out


@njit(cache=True)
def match_sorted(codes, hashes, offsets, sorted_hashes):
    """Where each (list, document hash) occurs among the judged documents.

    Parameters
    ----------
    codes : ndarray of int64, shape (n,)
        Each row's list in the judgements (−1: the list has none).
    hashes : ndarray of int64, shape (n,)
        Each row's document hash.
    offsets : ndarray of int64, shape (n_lists + 1,)
        List ``c``'s judged documents are ``sorted_hashes[offsets[c]:offsets[c + 1]]``, ascending.
    sorted_hashes : ndarray of int64

    Returns
    -------
    ndarray of int64, shape (n,)
        The position in ``sorted_hashes``, or −1 (equal hashes there: the first).
    """
    n = codes.shape[0]
    out = np.full(n, -1, dtype=np.int64)
    for i in range(n):
        c = codes[i]
        if c < 0:
            continue
        lo = offsets[c]
        hi = offsets[c + 1]
        h = hashes[i]
        while lo < hi:  # the first position not below h
            mid = (lo + hi) >> 1
            if sorted_hashes[mid] < h:
                lo = mid + 1
            else:
                hi = mid
        if lo < offsets[c + 1] and sorted_hashes[lo] == h:
            out[i] = lo
    return out
