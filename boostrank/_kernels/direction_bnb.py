"""Branch and bound over directions for pair-additive rank statistics.

A pair statistic of the scores Uw is Σ_p c⁺_p 1[w·D_p > 0] + c⁻_p 1[w·D_p < 0] with
D_p = x_u − x_v; it depends on w only through the cell of the arrangement of the
hyperplanes w·D_p = 0 that w lies in.  Every direction has a multiple on a facet
w_k = ±1 of the cube, so the search covers the 2d facets with axis-aligned boxes
in the other d − 1 coordinates.  Over a box B, min and max of w·D_p are exact
(interval arithmetic on a linear function), so a pair is *decided* in B when its
sign is fixed there, and

    value(w) ≤ Σ_decided credit + Σ_undecided max(c⁺, c⁻)     for every w ∈ B.

The box's centre gives an achievable value.  Boxes are split in half along their
widest coordinate, depth first; a child re-examines only its parent's undecided
pairs, so deep boxes cost little.  A box narrower than ``min_width`` that still
cannot be pruned (hyperplanes meeting in one point, which integer features produce in bulk)
is closed and recorded with its undecided pairs, for the caller to resolve exactly
(around a common point the cells are the cells of a homogeneous problem in one
dimension less).  A hyperplane within
10⁻¹² ‖D_p‖₁ of a box's side (a difference parallel to a cube edge, up to rounding)
is taken to lie on it: the cells it would cut off are too thin for any score
difference to resolve.
"""

import numpy as np
from numba import njit

from .config import BNB_NODES, BNB_RECORDED_PAIRS, BNB_RECORDS, BNB_STATUS, BNB_TOP

RUNNING, DONE, BUDGET, POOL, RECORDS = 0, 1, 2, 3, 4


@njit(cache=True)
def direction_bnb(pairs, stack, counters, best, best_w, limits, records):
    """Run the branch and bound until done or ``limits.max_nodes`` boxes; resumable.

    Parameters
    ----------
    pairs : BnbPairs
        ``D`` (P, d): pair differences x_u − x_v (no zero rows); ``c_plus``, ``c_minus``
        (P,): credit when w·D > 0 and when w·D < 0 (a tie earns nothing).
    stack : BnbStack
        The boxes: ``lo``, ``hi`` (S, d) (lo = hi = ±1 on the facet coordinate); ``face``
        (S,), the facet coordinate; ``node_list``, ``node_len`` (S,), each box's candidate
        pairs ``pool[node_list : node_list + node_len]`` (every pair when ``node_list`` is
        −1); ``node_base``, ``node_ub`` (S,), the credit decided before the box and the
        parent's bound; ``pool``, the lists of undecided pairs, a stack parallel to the boxes'.
    counters : ndarray of int64, shape (5,)
        In and out, at the slots of :mod:`.config`: ``BNB_TOP`` (boxes on the stack),
        ``BNB_NODES`` (boxes examined), ``BNB_STATUS``, ``BNB_RECORDS`` and
        ``BNB_RECORDED_PAIRS`` (records and their pairs written).
    best : ndarray of float64, shape (1,)
        In and out: the best value found.
    best_w : ndarray (d,)
        Out: the direction of the best value.
    limits : BnbLimits
        ``max_nodes`` (boxes to examine in this call, on top of the count so far),
        ``min_width`` (a narrower box is closed and recorded) and ``tol`` (a box is pruned
        when its bound ≤ best + tol).
    records : BnbRecords
        Out: ``w``, ``base``, ``face`` (R, d), (R,), (R,): centre, decided credit and facet
        of every closed narrow box; ``start``, ``idx`` (R + 1,), (Q,): the undecided pairs of
        record r are ``idx[start[r]:start[r + 1]]``.

    Returns
    -------
    int
        DONE (stack empty), BUDGET (``max_nodes`` reached), POOL (``pool`` or the
        stack is too small for the next box: grow it and call again) or RECORDS (the
        records are full: resolve them, reset the record counters and call again).
    """
    D, c_plus, c_minus = pairs
    lo, hi, face, node_list, node_len, node_base, node_ub, pool = stack
    rec_w, rec_base, rec_face, rec_start, rec_idx = records
    max_nodes, min_width, tol = limits
    value = best
    P, d = D.shape
    top = counters[BNB_TOP]
    nodes = counters[BNB_NODES]
    stop = nodes + max_nodes
    best = value[0]
    n_rec = counters[BNB_RECORDS]
    n_idx = counters[BNB_RECORDED_PAIRS]
    S = lo.shape[0]
    centre = np.empty(d)
    status = DONE
    while top > 0:
        t = top - 1
        first = node_list[t]
        n_in = node_len[t]
        # everything above this box's list belongs to boxes already finished
        used = 0 if first < 0 else first + n_in
        if node_ub[t] <= best + tol:
            top = t
            continue
        if nodes >= stop:
            status = BUDGET
            break
        if used + n_in > pool.shape[0] or t + 2 > S:
            status = POOL
            break
        if n_rec + 1 >= rec_w.shape[0] or n_idx + n_in > rec_idx.shape[0]:
            status = RECORDS
            break
        top = t
        nodes += 1
        k = face[t]
        base = node_base[t]
        for j in range(d):
            centre[j] = 0.5 * (lo[t, j] + hi[t, j])
        undecided = 0.0
        at_centre = 0.0
        cnt = 0
        for q in range(n_in):
            p = q if first < 0 else pool[first + q]
            mn = 0.0
            mx = 0.0
            cv = 0.0
            size = 0.0
            for j in range(d):
                x = D[p, j]
                size += abs(x)
                if x >= 0.0:
                    mn += lo[t, j] * x
                    mx += hi[t, j] * x
                else:
                    mn += hi[t, j] * x
                    mx += lo[t, j] * x
                cv += centre[j] * x
            # a linear function ≥ 0 on a box and > 0 somewhere is > 0 inside it; a
            # hyperplane within rounding of the box's side (a cube edge) counts as on it
            eta = 1e-12 * size
            if mn >= -eta and mx > eta:
                base += c_plus[p]
            elif mx <= eta and mn < -eta:
                base += c_minus[p]
            else:
                pool[used + cnt] = p
                cnt += 1
                undecided += max(c_plus[p], c_minus[p])
                # the centre is dyadic: on integer features it ties pairs exactly, and
                # rounding must not credit them
                if cv > eta:
                    at_centre += c_plus[p]
                elif cv < -eta:
                    at_centre += c_minus[p]
        if base + at_centre > best:
            best = base + at_centre
            for j in range(best_w.shape[0]):  # a loop: a slice assignment compiles Numba's shape-error path
                best_w[j] = centre[j]
        bound = base + undecided
        if cnt == 0 or bound <= best + tol:
            continue
        split = -1
        width = -1.0
        for j in range(d):
            if j != k and hi[t, j] - lo[t, j] > width:
                width = hi[t, j] - lo[t, j]
                split = j
        if width < min_width:
            for j in range(d):
                rec_w[n_rec, j] = centre[j]
            rec_base[n_rec] = base
            rec_face[n_rec] = k
            rec_start[n_rec] = n_idx
            for q in range(cnt):
                rec_idx[n_idx + q] = pool[used + q]
            n_idx += cnt
            n_rec += 1
            rec_start[n_rec] = n_idx
            continue
        mid = 0.5 * (lo[t, split] + hi[t, split])
        for j in range(d):
            lo[t + 1, j] = lo[t, j]
            hi[t + 1, j] = hi[t, j]
        hi[t, split] = mid
        lo[t + 1, split] = mid
        for c in range(t, t + 2):
            face[c] = k
            node_list[c] = used
            node_len[c] = cnt
            node_base[c] = base
            node_ub[c] = bound
        top = t + 2
    counters[BNB_TOP] = top
    counters[BNB_NODES] = nodes
    counters[BNB_STATUS] = status
    counters[BNB_RECORDS] = n_rec
    counters[BNB_RECORDED_PAIRS] = n_idx
    value[0] = best
    return status
