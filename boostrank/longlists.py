"""λ-AUC at linear cost per list: the probit link and the erfc series (Raykar §5).

With ρ_hl = ½ erfc(ασ(s_h − s_l)) (Raykar's approximation of the RankNet logistic,
α = √3/(√2 π)) and |ΔAUC_hl| = |p_h − p_l|/(mn) on the pessimistic score order
(Welleck Thm 4.1), every document's λ and hessian is a sum of erfc and Gaussian
kernels over the documents of the other class, split at the document's own score:

    Σ_l |p_h − p_l| erfc(t_h − t_l) = p_h (E_above[1] − E_below[1]) − E_above[p] + E_below[p],

t = ασs, with E_side[q] = Σ_{l on that side} q_l erfc(t_h − t_l).  One fused pass of
:func:`boostrank.erfc.side_sums` per class gives them all in O(p n) after one sort.
"""

from __future__ import annotations

import math

import numpy as np

from ._kernels.lambdas import lambda_auc_probit_kernel, pessimistic_order, resolve_ties
from ._kernels.metrics import mauc_class_weights
from .erfc import side_sums
from .rankncg import ERFC_ALPHA

__all__ = ["lambda_auc_probit", "fast_error_bound"]

ERFC_ALPHA_SQRT_PI = ERFC_ALPHA / math.sqrt(math.pi)


def _positions(s, y):
    order = pessimistic_order(s, y, 0, s.shape[0])
    p = np.empty(s.shape[0], dtype=np.float64)
    p[order] = np.arange(s.shape[0], dtype=np.float64)
    return p


def _bipartite(p, t, hi, lo, weight, sigma, eps, grad, hess):
    """Add the λs and hessians of all pairs (h ∈ hi above l ∈ lo), |ΔM| = weight·|p_h − p_l|.

    ``hi`` and ``lo`` index documents in ascending score order; a tied ``lo``
    document sits above the ``hi`` one (pessimistic order).
    """
    lam_c = sigma * weight / 2.0
    hess_c = sigma * sigma * ERFC_ALPHA_SQRT_PI * weight
    # hi targets, lo sources: a tied lo document is above (strictly-below split)
    Q = np.vstack([np.ones(lo.size), p[lo]])
    eb, gb, et, gt = side_sums(t[hi], t[lo], Q, eps, ties_below=False)
    ea, ga = et - eb, gt - gb
    ph = p[hi]
    grad[hi] -= lam_c * (ph * (ea[0] - eb[0]) - ea[1] + eb[1])
    hess[hi] += hess_c * (ph * (ga[0] - gb[0]) - ga[1] + gb[1])
    # lo targets, hi sources: a tied hi document is below (ties_below)
    Q = np.vstack([np.ones(hi.size), p[hi]])
    eb, gb, et, gt = side_sums(t[lo], t[hi], Q, eps, ties_below=True)
    ea, ga = et - eb, gt - gb
    k = np.searchsorted(t[hi], t[lo], side="right")
    csum = np.r_[0.0, np.cumsum(p[hi])]
    b1, bp = k.astype(np.float64), csum[k]
    a1, ap = hi.size - b1, csum[-1] - bp
    pl = p[lo]
    # Σ_h |p_h − p_l| ρ_hl with ρ = ½ erfc(t_h − t_l) = ½ (2 − erfc(t_l − t_h))
    below = 2.0 * (bp - pl * b1) - (eb[1] - pl * eb[0])
    above = 2.0 * (pl * a1 - ap) - (pl * ea[0] - ea[1])
    grad[lo] += lam_c * (below + above)
    hess[lo] += hess_c * ((gb[1] - pl * gb[0]) + (pl * ga[0] - ga[1]))


def _fast_one_list(s, y, sigma, eps, grad, hess):
    n = s.shape[0]
    grad[:] = 0.0
    hess[:] = 0.0
    if n < 2:
        return
    counts = np.bincount(y, minlength=1).astype(np.float64)
    w = mauc_class_weights(counts, float(n))
    order = np.argsort(-s, kind="stable")  # NumPy's radix/tim sort beats numba's mergesort here
    resolve_ties(s, y, 0, order)
    p = np.empty(n)
    p[order] = np.arange(n, dtype=np.float64)
    t = ERFC_ALPHA * sigma * s
    asc = order[::-1]  # ascending score; the order of ties within a class does not matter
    by_class = [asc[y[asc] == c] for c in range(counts.size)]
    for a in range(counts.size):
        for b in range(a):
            weight = abs(w[a] - w[b])
            if weight > 0 and by_class[a].size and by_class[b].size:
                _bipartite(p, t, by_class[a], by_class[b], weight, sigma, eps, grad, hess)


def lambda_auc_probit(scores, labels, group_offsets, sigma=1.0, method="auto", eps=1e-6,
                      auto_min_rows=2000, grad=None, hess=None):
    """λ-AUC gradients and hessians with the probit link, exact or through the series.

    Parameters
    ----------
    scores : ndarray of float64
    labels : ndarray of float64
        > 0 is positive.
    group_offsets : ndarray of int64
    method : {"exact", "fast", "auto"}
        ``"exact"`` sums pairs (O(n²) per list), ``"fast"`` uses the series
        (O(n log n) per list), ``"auto"`` picks ``fast`` for lists of at least
        ``auto_min_rows`` rows.
    eps : float
        Accuracy of the series; see :func:`fast_error_bound`.

    Returns
    -------
    grad, hess : ndarray
    """
    n = scores.shape[0]
    labels = np.ascontiguousarray(labels).astype(np.int64, copy=False)
    if labels.size and labels.min() < 0:
        raise ValueError("labels must be non-negative integers (0/1 for AUC, grades for MAUC)")
    grad = np.empty(n) if grad is None else grad
    hess = np.empty(n) if hess is None else hess
    if method == "exact":
        limit = n + 1
    elif method == "fast":
        limit = 1
    elif method == "auto":
        limit = auto_min_rows - 1
    else:
        raise ValueError(f"method must be 'exact', 'fast' or 'auto', got {method!r}")
    lambda_auc_probit_kernel(scores, labels, group_offsets, sigma, ERFC_ALPHA, limit, grad, hess)
    sizes = np.diff(group_offsets)
    for g in np.flatnonzero(sizes > limit):
        a, b = group_offsets[g], group_offsets[g + 1]
        _fast_one_list(scores[a:b], labels[a:b], sigma, eps, grad[a:b], hess[a:b])
    return grad, hess


def fast_error_bound(scores, labels, group_offsets, sigma=1.0, eps=1e-6):
    """Per-document bound on |fast − exact| for gradients and hessians.

    Each series sum is within eps/2 per pair (:func:`boostrank.erfc.series_parameters`);
    a document's λ combines four of them weighted by its own position p_i and its
    partners' positions p_j, so, with W_ij = |ω_{l_i} − ω_{l_j}| (1/(mn) for AUC),

        |Δgrad_i| ≤ 2 eps · σ · Σ_j W_ij (p_i + p_j),
        |Δhess_i| ≤ 4 eps · σ² α/√π · Σ_j W_ij (p_i + p_j)

    over the partners j of i in other classes: ε times (twice) the sum of the pair
    weights W_ij (p_i + p_j) ≥ |ΔM_ij|.

    Returns
    -------
    grad_bound, hess_bound : ndarray
    """
    labels = np.asarray(labels).astype(np.int64)
    gb = np.zeros(scores.shape[0])
    hb = np.zeros(scores.shape[0])
    for a, b in zip(group_offsets[:-1], group_offsets[1:]):
        s, y = scores[a:b], labels[a:b]
        if len(y) < 2:
            continue
        counts = np.bincount(y).astype(np.float64)
        w = mauc_class_weights(counts, float(len(y)))
        p = _positions(s, y)
        psum = np.bincount(y, weights=p, minlength=counts.size)
        W = np.abs(w[:, None] - w[None, :])
        total = W[y] @ counts * p + W[y] @ psum  # Σ_j W_ij (p_i + p_j)
        gb[a:b] = 2 * eps * sigma * total
        hb[a:b] = 4 * eps * sigma * sigma * ERFC_ALPHA / math.sqrt(math.pi) * total
    return gb, hb
