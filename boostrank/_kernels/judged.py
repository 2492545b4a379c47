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
from numba import njit, prange

from .ids import compare_ids

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


@njit(cache=True, nogil=True)  # evaluate computes several measures at once, each on a thread
def judged_measure(rel, offsets, ideal, ideal_offsets, measure, ks, threshold, exp_gain, empty_value):
    """One measure of each list at each of its cut-offs, in one walk down each list.

    Parameters
    ----------
    rel, offsets, ideal, ideal_offsets
        As in the module docstring; both offsets have n_lists + 1 entries.
    measure : int
        ``MODE_NDCG``: Σ_{i<k} gain(rel_i)/log2(i + 2) over the same sum of the ideal order.
        ``MODE_AVERAGE_PRECISION``: Σ_{i<k, rel_i relevant} P@(i + 1) / R (``exp_gain``: / min(k, R),
        LightGBM's ``map@k``).  ``MODE_PRECISION``: relevant in the top k / k (k required).
        ``MODE_RECALL``: relevant in the top k / R.  ``MODE_RECIPROCAL_RANK``: 1 / rank of the first
        relevant document within k, 0 if none.  ``MODE_R_PRECISION``: relevant in the top R / R (k unread).
    ks : ndarray of int64
        The cut-offs, in any order; k <= 0 is none.  Each column is what a walk to its k alone gives: the
        sums are the same additions in the same order.
    threshold : float
    exp_gain : bool
        LightGBM's conventions (gain 2^g − 1, AP over min(k, R)); else trec_eval's (gain = g,
        negative grades gain 0).
    empty_value : float
        NDCG when the ideal DCG is 0, and AP, recall and R-precision when R = 0 (trec_eval 0,
        LightGBM 1).

    Returns
    -------
    ndarray of float64, shape (n_lists, len(ks))
        NaN for a list with no retrieved document.
    """
    n_lists = offsets.shape[0] - 1
    n_k = ks.shape[0]
    out = np.empty((n_lists, n_k))
    reach = np.empty(n_k, dtype=np.int64)
    for j in range(n_k):
        reach[j] = ks[j] if ks[j] > 0 else np.int64(2 ** 62)  # no cut-off reaches the end of any list
    by_reach = np.argsort(reach, kind="mergesort")
    for g in range(n_lists):
        a = offsets[g]
        n = offsets[g + 1] - a
        ia = ideal_offsets[g]
        m = ideal_offsets[g + 1] - ia
        if n == 0:
            out[g, :] = np.nan
            continue
        n_rel = 0
        for i in range(m):
            if ideal[ia + i] > threshold and ideal[ia + i] >= 0.0:  # R counts judged grades only (-l 0 or less)
                n_rel += 1
        if measure == MODE_R_PRECISION:
            hits = 0
            for i in range(min(n_rel, n)):
                if rel[a + i] > threshold:
                    hits += 1
            out[g, :] = hits / n_rel if n_rel > 0 else empty_value
            continue
        i = 0  # the walk down the list, and down the ideal order (NDCG)
        ii = 0
        dcg = 0.0
        idcg = 0.0
        hits = 0
        ap = 0.0
        first = 0  # the rank of the first relevant document (0: none yet)
        for t in range(n_k):  # the cut-offs by how far down they reach: each read as the walk passes it
            j = by_reach[t]
            k = ks[j]
            cut = n if (k <= 0 or k > n) else k
            while i < cut:
                if measure == MODE_NDCG:
                    gain = _gain(rel[a + i], exp_gain)
                    if gain != 0.0:  # adding 0 leaves the sum as it is: no discount to compute
                        dcg += gain / math.log2(i + 2.0)
                elif rel[a + i] > threshold:
                    hits += 1
                    ap += hits / (i + 1.0)
                    if first == 0:
                        first = i + 1
                i += 1
            if measure == MODE_NDCG:
                icut = m if (k <= 0 or k > m) else k
                while ii < icut:
                    gain = _gain(ideal[ia + ii], exp_gain)
                    if gain != 0.0:
                        idcg += gain / math.log2(ii + 2.0)
                    ii += 1
                out[g, j] = dcg / idcg if idcg > 0.0 else empty_value
            elif measure == MODE_RECIPROCAL_RANK:
                out[g, j] = 1.0 / first if first > 0 else 0.0
            elif measure == MODE_PRECISION:
                out[g, j] = hits / k
            elif n_rel == 0:
                out[g, j] = empty_value
            elif measure == MODE_AVERAGE_PRECISION:
                out[g, j] = ap / (min(k, n_rel) if (exp_gain and k > 0) else n_rel)
            else:  # RECALL
                out[g, j] = hits / n_rel
    return out


@njit(cache=True, parallel=True, nogil=True)
def graded_lists(order, hashes, scores, data, doc_offsets, lists, sorted_hashes, sorted_grades, judged_rows,
                 judged_data, judged_doc_offsets, out):
    """The chosen lists of a run in rank order, each document's grade found by hash among its query's judged
    documents: the grades and scores :class:`..evaluation.judged.JudgedLists` holds, in one pass, a list per
    thread.

    Parameters
    ----------
    order : ndarray of int64
        The run's rows in rank order, each list's together.
    hashes, scores : ndarray
        Each run row's document hash (int64) and score (float64).
    data, doc_offsets : ndarray
        The run's document ids (:class:`..evaluation.ids.IdBytes`' layout).
    lists : ndarray of int64, shape (m, 5)
        Per chosen list: its first and one-past-last output position, where its rows start in ``order`` (a
        depth cut gives fewer outputs than the list has rows), and its query's judged documents,
        ``sorted_hashes[lists[j, 3]:lists[j, 4]]``.
    sorted_hashes, sorted_grades, judged_rows : ndarray
        The judged documents' hashes, ascending within each query, with their grades and rows in the same order.
    judged_data, judged_doc_offsets : ndarray
        The judged documents' ids, by row.
    out : ndarray of float64, shape (2, lists[-1, 1])
        Written: each row's grade (row 0; :data:`REL_NONPOOL` when unjudged, :data:`REL_UNJUDGED` when graded
        negatively, trec_eval's ``form_res_rels.c``) and its score (row 1).  The caller's array, so that NumPy's
        allocator backs it.

    Returns
    -------
    collisions : int
        How many hash matches are another id (the caller then matches by the ids themselves).
    """
    m = lists.shape[0]
    rel = out[0]
    score = out[1]
    collided = np.zeros(m, dtype=np.int64)
    for j in prange(m):
        begin = lists[j, 0]
        start = lists[j, 2] - begin
        first = lists[j, 3]
        last = lists[j, 4]
        for k in range(begin, lists[j, 1]):
            r = order[start + k]
            score[k] = scores[r]
            h = hashes[r]
            base = first
            size = last - first
            while size > 1:  # the first position not below h, without a branch to mispredict
                half = size >> 1
                base = base + half if sorted_hashes[base + half - 1] < h else base
                size -= half
            if size == 1 and sorted_hashes[base] == h:
                rel[k] = REL_UNJUDGED if sorted_grades[base] < 0 else sorted_grades[base]
                if compare_ids(judged_data, judged_doc_offsets, judged_rows[base], data, doc_offsets, r) != 0:
                    collided[j] += 1
            else:
                rel[k] = REL_NONPOOL
    return collided.sum()

# the ``measure`` codes of :func:`trec_measure`: trec_eval's measures of the retrieved set, its judged
# documents and interpolated precision (m_*.c of trec_eval at f425365, each named below)
MODE_TREC_NUM_Q = 0
MODE_TREC_NUM_RET = 1
MODE_TREC_NUM_REL = 2
MODE_TREC_NUM_REL_RET = 3
MODE_TREC_NUM_NONREL_JUDGED_RET = 4
MODE_TREC_SET_P = 5
MODE_TREC_SET_RECALL = 6
MODE_TREC_SET_MAP = 7
MODE_TREC_SET_RELATIVE_P = 8
MODE_TREC_SET_F = 9
MODE_TREC_UTILITY = 10
MODE_TREC_BPREF = 11
MODE_TREC_INFAP = 12
MODE_TREC_BING = 13
MODE_TREC_AP = 14
MODE_TREC_11PT_AVG = 15
MODE_TREC_SUCCESS = 16
MODE_TREC_RELATIVE_P = 17
MODE_TREC_RPREC_MULT = 18
MODE_TREC_IPREC_AT_RECALL = 19
MODE_TREC_UNJ = 24
MODE_TREC_RBP_RESID = 25
MODE_TREC_G = 20
MODE_TREC_NDCG_REL = 21
MODE_TREC_RNDCG = 22
MODE_TREC_RBP = 23
MODE_TREC_F1 = 26  # ranx's f1 (not trec_eval's): the harmonic mean of P_k and recall_k

#: trec_eval's RELVALUE_NONPOOL and RELVALUE_UNJUDGED (trec_eval.h): a retrieved document absent from the
#: qrels, and one the qrels list with a negative grade (in the pool, not judged)
REL_NONPOOL = -1.0
REL_UNJUDGED = -2.0
_INFAP_EPSILON = 0.00001


@njit(cache=True)
def _cut_of(x, n_rel, v9_rounding):
    """A fraction of R as a document count: ``lround(x R)`` (trec_eval 10), ``(long)(x R + 0.9)`` (9.x)."""
    if v9_rounding:
        return np.int64(x * n_rel + 0.9)
    v = x * n_rel
    return np.int64(math.floor(v + 0.5))  # lround: halves away from zero (v >= 0 here)


@njit(cache=True)
def _interpolated(rel, a, n, n_rel_ret, threshold, cuts, out_row, average):
    """trec_eval's interpolated precision at recall counts ``cuts`` (ascending), from the bottom of the list up:
    iprec(X) = max precision at any rank whose recall ≥ X (m_iprec_at_recall.c, m_11pt_avg.c)."""
    n_cuts = cuts.shape[0]
    current = n_cuts - 1
    while current >= 0 and cuts[current] > n_rel_ret:
        out_row[current] = 0.0  # a recall level the run never reaches: trec_eval's value stays 0
        current -= 1
    int_precis = n_rel_ret / n if n > 0 else 0.0
    rel_so_far = n_rel_ret
    i = n
    while i > 0 and rel_so_far > 0:
        precis = rel_so_far / i
        if int_precis < precis:
            int_precis = precis
        if rel[a + i - 1] > threshold:
            while current >= 0 and rel_so_far == cuts[current]:
                out_row[current] = int_precis
                current -= 1
            rel_so_far -= 1
        i -= 1
    while current >= 0:
        out_row[current] = int_precis
        current -= 1
    if average:
        out_row[0] = np.mean(out_row)


@njit(cache=True)
def _judged_walk(rel, a, n, threshold, n_rel, n_nonrel, measure):
    """bpref (m_bpref.c) and infAP (m_infap.c): a walk over the judged documents only."""
    nonrel_so_far = 0
    rel_so_far = 0
    unjudged_so_far = 0
    total = 0.0
    for j in range(n):
        r = rel[a + j]
        if r == REL_NONPOOL:
            continue
        if r == REL_UNJUDGED:
            unjudged_so_far += 1
            continue
        if r <= threshold:
            nonrel_so_far += 1
            continue
        rel_so_far += 1
        if measure == MODE_TREC_BPREF:
            if nonrel_so_far > 0:
                total += 1.0 - min(nonrel_so_far, n_rel) / min(n_nonrel, n_rel)
            else:
                total += 1.0
        elif j == 0:
            total += 1.0
        else:
            fj = float(j)
            total += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (
                (rel_so_far - 1 + nonrel_so_far + unjudged_so_far) / fj) * (
                (rel_so_far - 1 + _INFAP_EPSILON) / (rel_so_far - 1 + nonrel_so_far + 2 * _INFAP_EPSILON))
    return total / n_rel if n_rel > 0 else total


@njit(cache=True)
def _single(rel, a, n, threshold, n_rel, n_nonrel, measure, params):
    """The measures with one value per query."""
    n_rel_ret = 0
    judged_nonrel = 0
    for i in range(n):
        r = rel[a + i]
        if r < 0.0:
            continue  # unjudged: neither count, whatever -l (form_res_rels.c counts judged documents)
        if r > threshold:
            n_rel_ret += 1
        else:
            judged_nonrel += 1
    if measure == MODE_TREC_NUM_Q:
        return 1.0
    if measure == MODE_TREC_NUM_RET:
        return float(n)
    if measure == MODE_TREC_NUM_REL:
        return float(n_rel)
    if measure == MODE_TREC_NUM_REL_RET:
        return float(n_rel_ret)
    if measure == MODE_TREC_NUM_NONREL_JUDGED_RET:
        return float(judged_nonrel)
    if measure == MODE_TREC_SET_P:
        return n_rel_ret / n if n > 0 else 0.0
    if measure == MODE_TREC_SET_RECALL:
        return n_rel_ret / n_rel if n_rel > 0 else 0.0
    if measure == MODE_TREC_SET_MAP:
        return n_rel_ret * n_rel_ret / (n * n_rel) if n > 0 and n_rel > 0 else 0.0
    if measure == MODE_TREC_SET_RELATIVE_P:
        return n_rel_ret / min(n, n_rel) if n > 0 and n_rel > 0 else 0.0
    if measure == MODE_TREC_SET_F:
        if n_rel_ret == 0:
            return 0.0
        p = n_rel_ret / n
        r = n_rel_ret / n_rel
        return (params[0] + 1.0) * p * r / (params[0] * p + r)
    if measure == MODE_TREC_UTILITY:  # the collection size is trec_eval's default, 0 (-N)
        return (params[0] * n_rel_ret + params[1] * (n - n_rel_ret) + params[2] * (n_rel - n_rel_ret)
                + params[3] * (n_rel_ret - n - n_rel))
    if measure == MODE_TREC_BPREF or measure == MODE_TREC_INFAP:
        return _judged_walk(rel, a, n, threshold, n_rel, n_nonrel, measure)
    hits = 0
    total = 0.0
    for i in range(n):
        if rel[a + i] > threshold:
            hits += 1
            if measure == MODE_TREC_AP:
                total += hits / (i + 1.0)
            else:  # binG: each relevant document discounted by the non-relevant ones above it
                total += 1.0 / math.log2(3.0 + i - hits)
    return total / n_rel if hits > 0 else 0.0


@njit(cache=True)
def _at_cutoffs(rel, a, n, threshold, n_rel, measure, params, v9_rounding, out_row):
    """success, relative_P (m_success.c, m_rel_P.c: documents past the list count as non-relevant), ranx's f1
    (ranx/metrics/f1.py at 2cae52f: P_k divides by k, recall_k by R, 0 without a hit) and Rprec_mult
    (m_Rprec_mult.c: precision at x R documents, cut ``(long)(x R + 0.9)`` in 9.x and 10)."""
    if measure == MODE_TREC_RPREC_MULT:
        # from the bottom of the list up, as m_Rprec_mult.c walks it: the relevant so far start at the judged
        # relevant retrieved and drop at each document of grade above the threshold (the two differ for -l 0
        # or less, where unjudged codes pass the threshold); a cut past the list reads the judged count
        n_rel_ret = 0
        for i in range(n):
            if rel[a + i] >= 0.0 and rel[a + i] > threshold:
                n_rel_ret += 1
        current = params.shape[0] - 1
        while current >= 0 and np.int64(params[current] * n_rel + 0.9) > n:
            out_row[current] = n_rel_ret / np.int64(params[current] * n_rel + 0.9)
            current -= 1
        rel_so_far = n_rel_ret
        i = n
        while i > 0 and rel_so_far > 0:
            while current >= 0 and i == np.int64(params[current] * n_rel + 0.9):
                out_row[current] = rel_so_far / i
                current -= 1
            if rel[a + i - 1] > threshold:
                rel_so_far -= 1
            i -= 1
        return
    hits = 0
    c = 0
    for i in range(n + 1):
        while c < params.shape[0] and (i == np.int64(params[c]) or i == n):
            cut = np.int64(params[c])
            if measure == MODE_TREC_SUCCESS:
                out_row[c] = 1.0 if hits > 0 else 0.0
            elif measure == MODE_TREC_UNJ:  # m_unjudged.c: past the list, judged non-relevant documents fill in
                out_row[c] = hits / cut
            elif measure == MODE_TREC_F1:  # 2 P R / (P + R) with P = hits / k, R = hits / R: 2 hits / (k + R)
                out_row[c] = 2.0 * hits / (cut + n_rel) if hits > 0 else 0.0
            elif n_rel > 0:
                out_row[c] = hits / min(cut, n_rel)
            else:
                out_row[c] = 0.0
            c += 1
        if i < n and (rel[a + i] < 0.0 if measure == MODE_TREC_UNJ else rel[a + i] > threshold):
            hits += 1  # unj: the unjudged documents so far


@njit(cache=True)
def _ideal_gain(ideal, ia, ib, i):
    """trec_eval's ideal gain at rank i + 1 with its default gains (gain = grade): the judged grades, best first,
    then 0 (setup_gains in gain_init.c; unjudged pool documents have no level)."""
    return max(ideal[ia + i], 0.0) if i < ib - ia else 0.0


@njit(cache=True)
def _gain_walk(rel, a, n, ideal, ia, ib, measure, n_rel):
    """trec_eval's experimental gain measures with its default gains: G (m_G.c: each gain discounted by the
    cost so far, ideal gains or 1, less the gain so far), ndcg_rel (m_ndcg_rel.c: NDCG averaged over the
    relevant documents, those not retrieved at the list's end) and Rndcg (m_Rndcg.c: NDCG averaged at each
    change of the ideal gain)."""
    n_pos = 0
    for i in range(ib - ia):
        if ideal[ia + i] > 0.0:
            n_pos += 1
    if measure == MODE_TREC_G:
        results_g = 0.0
        gained = 0.0
        cost = 0.0
        for i in range(n):
            r = max(rel[a + i], 0.0)
            gained += r
            cost += max(_ideal_gain(ideal, ia, ib, i), 1.0)
            if r != 0.0:
                results_g += r / math.log2(2.0 + cost - gained)
        best = 0.0
        for i in range(n_pos):
            best += ideal[ia + i]
        return results_g / best if best > 0.0 else 0.0
    if measure == MODE_TREC_RNDCG and n_rel == 0:
        return 0.0
    dcg = 0.0
    idcg = 0.0
    total = 0.0
    points = 0
    hits = 0
    old = _ideal_gain(ideal, ia, ib, 0)
    for i in range(max(n, n_pos + 1)):  # to the rank where the ideal gain reaches 0
        gain = _ideal_gain(ideal, ia, ib, i)
        if measure == MODE_TREC_RNDCG and gain != old:
            if idcg > 0.0:
                total += dcg / idcg
                points += 1
            old = gain
        if i < n and rel[a + i] > 0.0:
            dcg += rel[a + i] / math.log2(i + 2.0)
        if gain > 0.0:
            idcg += gain / math.log2(i + 2.0)
        if measure == MODE_TREC_NDCG_REL and i < n and rel[a + i] > 0.0:
            total += dcg / idcg
            hits += 1
    if measure == MODE_TREC_NDCG_REL:
        if n_pos > hits and idcg > 0.0:
            total += (n_pos - hits) * dcg / idcg
        return total / n_pos if total > 0.0 else 0.0
    if n_pos + 1 < n and idcg > 0.0:  # documents ranked after the ideal gain reached 0: one point at the end
        total += dcg / idcg
        points += 1
    # relevant documents (-l 0 or less) but no positive ideal gain: m_Rndcg.c's 0 / 0
    return total / points if points > 0 else np.nan


@njit(cache=True)
def _rbp(rel, a, n, top, p, residual):
    """Rank-biased precision (Moffat & Zobel, TOIS 2008, eq. 2; trec_eval 10's m_rbp.c): (1 − p) Σ gainᵢ p^(i−1),
    each grade's gain scaled to [0, 1] by the query's best judged grade when it exceeds 1.  (m_rbp.c compares the
    gains with a minimum and maximum it never initialises; the default gains run from 0 to the best grade.)
    ``residual``: its uncertainty from the unjudged documents and those past the list (m_rbp_resid.c):
    p^n + (1 − p) Σ_unjudged p^(i−1), 0 when every retrieved document is judged."""
    scale = top if top > 1.0 else 1.0
    total = 0.0
    weight = 1.0
    unjudged = 0
    for i in range(n):
        r = rel[a + i]
        if residual and r < 0.0:
            total += weight
            unjudged += 1
        elif not residual and r > 0.0:
            total += min(r, top) / scale * weight
        weight *= p
    if residual:
        return weight + (1.0 - p) * total if unjudged > 0 else 0.0
    return (1.0 - p) * total


@njit(cache=True, nogil=True)  # evaluate computes several measures at once, each on a thread
def trec_measure(rel, offsets, ideal, ideal_offsets, measure, params, threshold, v9_rounding):
    """One of trec_eval's measures of each list, at each of its parameters.

    Parameters
    ----------
    rel, offsets, ideal, ideal_offsets
        As in the module docstring, with trec_eval's codes in ``rel``: :data:`REL_NONPOOL` for a
        retrieved document absent from the qrels, :data:`REL_UNJUDGED` for one the qrels grade
        negatively; ``ideal`` holds every grade of the qrels, negative ones included.
    measure : int
        A ``MODE_TREC_*`` code.
    params : ndarray of float64
        The measure's parameters: cut-offs (success, relative_P, f1), fractions of R
        (Rprec_mult, iprec_at_recall, 11pt_avg), set_F's β², utility's four coefficients.
    threshold : float
        A grade above it is relevant: trec_eval's relevance level ``-l`` minus 1 on its integer
        grades; a grade from 0 to it is judged non-relevant.
    v9_rounding : bool
        iprec_at_recall and 11pt_avg cut x R as trec_eval 9.x did, ``(long)(x R + 0.9)``;
        else as 10.0 does, ``lround(x R)``.

    Returns
    -------
    ndarray of float64, shape (n_lists, n_values)
        One column per parameter of a cut-off family; one column otherwise.
    """
    n_lists = offsets.shape[0] - 1
    by_cut = (MODE_TREC_SUCCESS <= measure <= MODE_TREC_IPREC_AT_RECALL or measure == MODE_TREC_UNJ
              or measure == MODE_TREC_F1)
    out = np.zeros((n_lists, params.shape[0] if by_cut else 1))
    cuts = np.zeros(params.shape[0], dtype=np.int64)
    for g in range(n_lists):
        a = offsets[g]
        n = offsets[g + 1] - a
        n_rel = 0
        n_nonrel = 0
        for i in range(ideal_offsets[g], ideal_offsets[g + 1]):
            if ideal[i] < 0.0:
                continue  # R and the judged non-relevant count grades of 0 and more, whatever -l
            if ideal[i] > threshold:
                n_rel += 1
            else:
                n_nonrel += 1
        if measure == MODE_TREC_IPREC_AT_RECALL or measure == MODE_TREC_11PT_AVG:
            n_rel_ret = 0
            for i in range(n):
                if rel[a + i] > threshold and rel[a + i] >= 0.0:
                    n_rel_ret += 1
            for c in range(params.shape[0]):
                cuts[c] = _cut_of(params[c], n_rel, v9_rounding)
            if measure == MODE_TREC_11PT_AVG:
                row = np.zeros(params.shape[0])
                _interpolated(rel, a, n, n_rel_ret, threshold, cuts, row, True)
                out[g, 0] = row[0]
            else:
                _interpolated(rel, a, n, n_rel_ret, threshold, cuts, out[g], False)
        elif by_cut:
            _at_cutoffs(rel, a, n, threshold, n_rel, measure, params, v9_rounding, out[g])
        elif measure == MODE_TREC_RBP or measure == MODE_TREC_RBP_RESID:
            top = ideal[ideal_offsets[g]] if ideal_offsets[g + 1] > ideal_offsets[g] else 0.0
            out[g, 0] = _rbp(rel, a, n, top, params[0], measure == MODE_TREC_RBP_RESID)
        elif measure >= MODE_TREC_G:
            out[g, 0] = _gain_walk(rel, a, n, ideal, ideal_offsets[g], ideal_offsets[g + 1], measure, n_rel)
        else:
            out[g, 0] = _single(rel, a, n, threshold, n_rel, n_nonrel, measure, params)
    return out
