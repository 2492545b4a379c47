"""LambdaMART λ-gradients and hessians: λ-AUC, λ-MAUC (Welleck §4) and λ-NDCG.

Outputs follow the engines' convention for a loss to minimise: a document that
should move up gets a negative gradient.  For a pair (h, l) where h has the higher
label, with ρ = 1 / (1 + exp(σ (s_h − s_l))) (Welleck eqs. 7–8 with LightGBM's
``sigmoid`` σ):

    λ_hl = σ |ΔM_hl| ρ,        grad_h −= λ_hl,  grad_l += λ_hl
    w_hl = σ² |ΔM_hl| ρ (1 − ρ), hess_h += w_hl, hess_l += w_hl

so every query's gradients sum to zero.
"""

import math

import numpy as np
from numba import njit, prange

from .metrics import mauc_class_weights, mauc_class_weights_into


@njit(cache=True)
def pessimistic_order(scores, labels, a, b):
    """Positions of a query's documents: score descending, ties worst label first.

    Inside a block of tied scores, lower labels are placed above higher ones (a tie
    between a relevant and a less relevant document counts as a misrank, thesis
    §2.1.3), and equal labels keep input order.  The result is deterministic and
    does not depend on the input order of different labels.

    Returns
    -------
    order : ndarray of int64, shape (b - a,)
        Local indices (0..b-a-1), best position first.
    """
    order = np.argsort(-scores[a:b], kind="mergesort")
    resolve_ties(scores, labels, a, order)
    return order


@njit(cache=True)
def resolve_ties(scores, labels, a, order):
    """Within blocks of equal score in a stable descending ``order``, put lower labels first."""
    n = order.shape[0]
    i = 0
    while i < n:
        j = i + 1
        while j < n and scores[a + order[j]] == scores[a + order[i]]:
            j += 1
        if j - i > 1:
            block = order[i:j].copy()
            keys = np.empty(j - i, dtype=np.int64)
            for t in range(j - i):
                keys[t] = labels[a + block[t]]
            sub = np.argsort(keys, kind="mergesort")
            for t in range(j - i):
                order[i + t] = block[sub[t]]
        i = j


@njit(cache=True)
def _class_weights(labels, a, b):
    """Documents per label value and the MAUC class weights ω of one query."""
    top = 0
    for i in range(a, b):
        top = max(top, labels[i])
    counts = np.zeros(top + 1)
    for i in range(a, b):
        counts[labels[i]] += 1.0
    return counts, mauc_class_weights(counts, float(b - a))


@njit(cache=True, parallel=True)
def lambda_auc_kernel(scores, labels, offsets, sigma, grad, hess, order):
    """λ-MAUC gradients (Welleck eqs. 18–19); λ-AUC is the case of 0/1 labels.

    On the pessimistic score order of each query, swapping the documents at
    positions i and j changes MAUC by (j − i)(ω_{l_j} − ω_{l_i}) (Theorem 4.1 per
    class, summed with eq. 18), ω from :func:`mauc_class_weights`; with 0/1 labels
    ω_1 = 1 / (m n) and this is ΔAUC_ij = (l_j − l_i)(j − i)/(mn).  The λ of a pair
    uses |ΔMAUC| and the sign S_ij of the label order.

    Documents are bucketed by label (in position order) so each pair of classes is
    a dense double loop, and ρ = E_l / (E_l + E_h) with E = exp(σ (s − s_max)) costs
    one division per pair instead of an exp; a query where some E could underflow
    takes the direct formula for those pairs.  Work arrays are allocated once per
    call and each query uses its own slice: per-query allocations cost more than the
    pairs of a 20-document query.

    Parameters
    ----------
    scores : ndarray of float64, shape (n,)
    labels : ndarray of int64, shape (n,)
        Non-negative grades (0/1 for AUC).
    offsets : ndarray of int64, shape (n_groups + 1,)
    sigma : float
    grad, hess : ndarray of float64, shape (n,)
        Written in place.
    order : ndarray of int64, shape (n,)
        In: any permutation of ``0..b-a-1`` in each query's rows ``a:b`` (the last
        call's order, or the identity).  Out: the query's pessimistic order.  Boosting
        moves scores a little per round, so the last order is nearly sorted and
        re-sorting it costs O(n + moves) (:func:`pessimistic_reorder`).
    """
    n_groups = offsets.shape[0] - 1
    n_all = scores.shape[0]
    top_all = 0
    for i in range(n_all):
        top_all = max(top_all, labels[i])
    n_cls = top_all + 1
    # per-call work arrays; query g uses rows a:b (and row g of the class tables)
    doc = np.empty(n_all, dtype=np.int64)
    pos = np.empty(n_all)
    ex = np.empty(n_all)
    sc = np.empty(n_all)
    acc_g = np.empty(n_all)
    acc_h = np.empty(n_all)
    counts = np.zeros((n_groups, n_cls))
    weights = np.zeros((n_groups, n_cls))
    start = np.zeros((n_groups, n_cls + 1), dtype=np.int64)
    fill = np.zeros((n_groups, n_cls), dtype=np.int64)
    s2 = sigma * sigma
    for g in prange(n_groups):
        a = offsets[g]
        b = offsets[g + 1]
        n = b - a
        for i in range(a, b):
            grad[i] = 0.0
            hess[i] = 0.0
        if n < 2:
            continue
        cnt = counts[g]
        w = weights[g]
        st = start[g]
        top = 0
        for i in range(a, b):
            cnt[labels[i]] += 1.0
            top = max(top, labels[i])
        if top == 0:
            continue
        mauc_class_weights_into(cnt, float(n), w)
        pessimistic_reorder(scores, labels, a, b, order)
        for c in range(top + 1):
            st[c + 1] = st[c] + np.int64(cnt[c])
        # bucket documents by label, each bucket in position order
        fl = fill[g]
        s_max = scores[a + order[a]]
        ex_min = 1.0
        for r in range(n):
            d = a + order[a + r]
            lab = labels[d]
            slot = a + st[lab] + fl[lab]
            fl[lab] += 1
            doc[slot] = d
            pos[slot] = r
            sc[slot] = scores[d]
            ex[slot] = math.exp(sigma * (scores[d] - s_max))
            ex_min = min(ex_min, ex[slot])
            acc_g[slot] = 0.0
            acc_h[slot] = 0.0
        # E_l + E_h can only underflow when both are below 1e-250
        safe = ex_min > 1e-250
        for ch in range(1, top + 1):
            for cl in range(ch):
                dw = abs(w[ch] - w[cl])
                if dw == 0.0:
                    continue
                lo = a + st[cl]
                hi = a + st[cl + 1]
                for u in range(a + st[ch], a + st[ch + 1]):
                    lam_u, h_u = _pair_sums(ex, pos, sc, ex[u], pos[u], sc[u], dw, sigma, s2, lo, hi,
                                            acc_g, acc_h, not safe)
                    acc_g[u] -= lam_u
                    acc_h[u] += h_u
        for t in range(a, b):
            grad[doc[t]] = acc_g[t]
            hess[doc[t]] = acc_h[t]


@njit(cache=True, fastmath={"reassoc", "contract", "nsz", "arcp"})
def _pair_sums(ex, pos, sc, eu, pu, su, dw, sigma, s2, lo, hi, acc_g, acc_h, guarded):
    """λ and hessian sums of one document against rows lo:hi of a lower class.

    ``guarded``: take the direct logistic where E_l + E_h underflows.  The flag is the
    same for the whole loop, which the compiler unswitches: the unguarded loop has no
    branch and vectorises.
    """
    lam_u = 0.0
    h_u = 0.0
    for v in range(lo, hi):
        den = ex[v] + eu
        if guarded and not den > 1e-250:
            rho = 1.0 / (1.0 + math.exp(sigma * (su - sc[v])))
        else:
            rho = ex[v] / den
        delta = abs(pu - pos[v]) * dw
        lam = sigma * delta * rho
        h = s2 * delta * rho * (1.0 - rho)
        lam_u += lam
        h_u += h
        acc_g[v] += lam
        acc_h[v] += h
    return lam_u, h_u


@njit(cache=True)
def pessimistic_reorder(scores, labels, a, b, order):
    """Turn ``order[a:b]`` (a permutation of local indices) into the pessimistic order.

    Insertion sort from the given order, O(n + moves): near-sorted input (last
    round's order) costs a pass.  Past 8 moves per document it stops and sorts
    afresh (:func:`pessimistic_order`), so a shuffled start stays O(n log n).
    Comparison: higher score first; equal scores lower label first; then input
    order — the result does not depend on the starting permutation.
    """
    n = b - a
    budget = 8 * n + 64
    moves = 0
    for t in range(1, n):
        cur = order[a + t]
        sc_ = scores[a + cur]
        lab = labels[a + cur]
        j = t
        while j > 0:
            prev = order[a + j - 1]
            sp = scores[a + prev]
            if sp > sc_ or (sp == sc_ and (labels[a + prev] < lab or (labels[a + prev] == lab and prev < cur))):
                break
            order[a + j] = prev
            j -= 1
        order[a + j] = cur
        moves += t - j
        if moves > budget:
            fresh = pessimistic_order(scores, labels, a, b)
            for k in range(n):
                order[a + k] = fresh[k]
            return


@njit(cache=True, parallel=True)
def lambda_ndcg_kernel(scores, labels, offsets, sigma, truncation_level, norm, label_gain,
                       grad, hess):
    """LambdaRank-NDCG gradients, the same computation as LightGBM's ``lambdarank``.

    Stable descending sort; pairs with at least one document in the first
    ``truncation_level`` positions; ΔNDCG = |gain_h − gain_l| |1/log2(2+i) −
    1/log2(2+j)| / maxDCG@truncation_level; with ``norm`` the ΔNDCG of a pair is
    divided by 0.01 + |s_h − s_l| (unless all scores are equal) and the query's
    λs are rescaled by log2(1 + Σλ) / Σλ.  LightGBM reads ρ from a 2^20-entry table;
    this kernel evaluates it exactly.
    """
    n_groups = offsets.shape[0] - 1
    for g in prange(n_groups):
        a = offsets[g]
        b = offsets[g + 1]
        for i in range(a, b):
            grad[i] = 0.0
            hess[i] = 0.0
        n = b - a
        if n < 2:
            continue
        order = np.argsort(-scores[a:b], kind="mergesort")
        ideal = np.sort(labels[a:b])
        kk = min(truncation_level, n)
        max_dcg = 0.0
        for i in range(kk):
            max_dcg += label_gain[ideal[n - 1 - i]] / math.log2(2.0 + i)
        inv_max_dcg = 1.0 / max_dcg if max_dcg > 0.0 else 0.0
        best = scores[a + order[0]]
        worst = scores[a + order[n - 1]]
        sum_lambdas = 0.0
        for i in range(min(n - 1, truncation_level)):
            di = a + order[i]
            for j in range(i + 1, n):
                dj = a + order[j]
                if labels[di] == labels[dj]:
                    continue
                if labels[di] > labels[dj]:
                    hi, lo, hr, lr = di, dj, i, j
                else:
                    hi, lo, hr, lr = dj, di, j, i
                ds = scores[hi] - scores[lo]
                gap = label_gain[labels[hi]] - label_gain[labels[lo]]
                disc = abs(1.0 / math.log2(2.0 + hr) - 1.0 / math.log2(2.0 + lr))
                delta = gap * disc * inv_max_dcg
                if norm and best != worst:
                    delta /= 0.01 + abs(ds)
                rho = 1.0 / (1.0 + math.exp(sigma * ds))
                lam = sigma * delta * rho
                h = sigma * sigma * delta * rho * (1.0 - rho)
                grad[hi] -= lam
                grad[lo] += lam
                hess[hi] += h
                hess[lo] += h
                sum_lambdas += 2.0 * lam
        if norm and sum_lambdas > 0.0:
            factor = math.log2(1.0 + sum_lambdas) / sum_lambdas
            for i in range(a, b):
                grad[i] *= factor
                hess[i] *= factor


@njit(cache=True)
def lambda_auc_probit_kernel(scores, labels, offsets, sigma, alpha, max_len, grad, hess):
    """λ-AUC / λ-MAUC with the probit (erfc) link, pair by pair: the fast path's reference.

    ρ_hl = ½ erfc(ασ(s_h − s_l)) replaces the logistic (Raykar's approximation,
    α = √3/(√2 π)); the hessian term is −dρ/dx = (ασ/√π) exp(−(ασ(s_h − s_l))²).
    |ΔM_hl| = |p_h − p_l| |ω_{l_h} − ω_{l_l}| with ω of :func:`mauc_class_weights`
    (0/1 labels: ΔAUC).  Queries longer than ``max_len`` are skipped (left at zero)
    so a caller can route them elsewhere.
    """
    n_groups = offsets.shape[0] - 1
    c = alpha * sigma / math.sqrt(math.pi)
    for g in range(n_groups):
        a = offsets[g]
        b = offsets[g + 1]
        for i in range(a, b):
            grad[i] = 0.0
            hess[i] = 0.0
        n = b - a
        if n < 2 or n > max_len:
            continue
        w = _class_weights(labels, a, b)[1]
        order = pessimistic_order(scores, labels, a, b)
        pos = np.empty(n, dtype=np.int64)
        for t in range(n):
            pos[order[t]] = t
        for i in range(a, b):
            for j in range(a, b):
                if labels[i] <= labels[j]:
                    continue
                delta = abs(pos[i - a] - pos[j - a]) * abs(w[labels[i]] - w[labels[j]])
                if delta == 0.0:
                    continue
                x = alpha * sigma * (scores[i] - scores[j])
                lam = sigma * delta * 0.5 * math.erfc(x)
                h = sigma * delta * c * math.exp(-x * x)
                grad[i] -= lam
                grad[j] += lam
                hess[i] += h
                hess[j] += h
