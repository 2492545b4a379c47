"""Minimum ranks and resolved ranks (thesis §2.1.1, Definition 1)."""

import numpy as np
from numba import njit, prange

from .order import tie_end


@njit(cache=True, parallel=True)
def rank_groups(positive, scores, order_asc, offsets, resolve):
    """Minimum ranks, or resolved ranks, within each group (thesis §2.1.1, Definition 1).

    ``resolve=False``: minrank_f(x_i) = #{k : f(x_k) < f(x_i)}; tied documents share a
    value and ``positive`` is not read.  ``resolve=True``: rank_f(x_i) of Definition 1,
    made unique by a fixed tie rule: within a block of tied scores the negatives take
    the highest ranks (a tied positive-negative pair is a misrank, thesis §2.1.3), and
    among tied documents of the same label the one earlier in the input takes the
    higher rank, which reproduces the top-to-bottom reading of thesis Table 2.1.

    ``order_asc`` must be a stable ascending order (ties in input order).

    Returns
    -------
    rank : ndarray of int64, shape (n,)
        0 is the bottom of each group; resolved ranks are a permutation of 0..n_g-1.
    """
    n_groups = offsets.shape[0] - 1
    out = np.empty(scores.shape[0], dtype=np.int64)
    for g in prange(n_groups):
        a = offsets[g]
        b = offsets[g + 1]
        i = a
        while i < b:
            j = tie_end(scores, order_asc, i, b)
            if not resolve:
                for t in range(i, j):
                    out[order_asc[t]] = i - a
                i = j
                continue
            r = i - a
            # stable order lists ties by ascending input index; walk it backwards so
            # the later row gets the lower rank, positives first (lowest ranks)
            for t in range(j - 1, i - 1, -1):
                if positive[order_asc[t]]:
                    out[order_asc[t]] = r
                    r += 1
            for t in range(j - 1, i - 1, -1):
                if not positive[order_asc[t]]:
                    out[order_asc[t]] = r
                    r += 1
            i = j
    return out


@njit(cache=True, parallel=True)
def rank_risk_groups(gain, ranks, offsets, weights, weight_offsets):
    """Rank risk functional of each group (thesis eq. 2.1 / 2.17).

    RRF = Σ_i g_i a_{r_i + 1} with g_i = y_i ∈ {0, 1} (or a graded gain), the a_l of
    group ``g`` stored at ``weights[weight_offsets[g]:weight_offsets[g + 1]]`` (a_1 first).
    """
    n_groups = offsets.shape[0] - 1
    out = np.zeros(n_groups)
    for g in prange(n_groups):
        base = weight_offsets[g]
        total = 0.0
        for i in range(offsets[g], offsets[g + 1]):
            if gain[i] != 0.0:
                total += gain[i] * weights[base + ranks[i]]
        out[g] = total
    return out
