"""λ-AUC / λ-MAUC with the probit link in O(p n) after one sort (Raykar §5 series).

On the ascending pessimistic order (score ascending; among equal scores the higher
label first, i.e. ranked lower) a document's position is n − 1 − i, so the swap
weight of documents i and j is w_{l_i l_j} |i − j| (Welleck Thm 4.1, summed over
class pairs with the weights of eq. 18).  With t = ασs, the λ of target i is

    grad_i = σ/2 · (2 Σ_{j: l_j > l_i} w |i − j| − Σ_j w |i − j| erfc(t_i − t_j))
    hess_i = σ² α/√π · Σ_j w |i − j| exp(−(t_i − t_j)²)

(for a lower-labelled partner, erfc(t_h − t_l) = 2 − erfc(t_l − t_h)).  Each sum
splits at i.  The part over j < i comes from one ascending sweep: sources two or
more blocks below (blocks as wide as the cut-off) contribute erfc = exp = 0, the
previous block and the running part of the current one go through Beaulieu's
series with coefficients accumulated per target class; the part over j > i is the
same sweep over the mirrored list (−t reversed), where erfc(t_i − t_j) =
2 − erfc(t'_i − t'_j).  The two sweeps are independent and run in parallel.
"""

import math

import numpy as np
from numba import njit, prange

from .erfc import harmonics, unit_rotations
from .groups import radix_sort, repair_runs


@njit(cache=True)
def ascending_pessimistic(scores, labels, n_classes, scale):
    """:func:`ascending_pessimistic_into` with fresh work arrays; returns (order, t, cls)."""
    n = scores.shape[0]
    wi = np.empty((3, n), dtype=np.int64)
    wu = np.empty((2, n), dtype=np.uint64)
    t = np.empty(n)
    ascending_pessimistic_into(scores, labels, n_classes, scale, wi, wu, t)
    return wi[1], t, wi[2]


@njit(cache=True, parallel=True)
def ascending_pessimistic_into(scores, labels, n_classes, scale, wi, wu, t):
    """The ascending pessimistic order, with t = scale · scores and class ids along it.

    Ascending score; among equal scores the higher label first, then the later row:
    the exact reverse of :func:`boostrank._kernels.lambdas.pessimistic_order`.  Rows
    are first laid out by (label desc, row desc) with a counting sort, then sorted by
    score with a stable LSD radix sort on the order-preserving integer image of the
    float, on its top four bytes only, then each run equal on them is finished by
    insertion (:func:`boostrank._kernels.groups.repair_runs`).  Its cost hardly
    depends on ties, which boosting produces in bulk in early rounds (31 distinct
    scores after the first tree), where a comparison sort plus a tie repair cost 3×
    more.  The keys are split at their median 16-bit
    prefix and the two halves sorted on two threads.

    Work arrays are the caller's, so a boosting run reuses them every round: at
    10⁶ rows fresh arrays cost about 25 ms per call in page faults.

    Parameters
    ----------
    wi : ndarray of int64, shape (3, ≥ n)
        Out: ``wi[1]`` the order (rows, ascending), ``wi[2]`` the class along it;
        ``wi[0]`` is scratch.
    wu : ndarray of uint64, shape (2, ≥ n)
        Scratch.
    t : ndarray of float64, shape (≥ n,)
        Out: scale · score along the order.
    """
    n = scores.shape[0]
    start = np.zeros(n_classes + 1, dtype=np.int64)
    for r in range(n):
        start[n_classes - labels[r]] += 1
    for c in range(n_classes):
        start[c + 1] += start[c]
    pre = wi[0, :n]
    for r in range(n - 1, -1, -1):
        c = n_classes - 1 - labels[r]
        pre[start[c]] = r
        start[c] += 1
    bits = scores.view(np.uint64)
    sign = np.uint64(1) << np.uint64(63)
    pre_keys = wu[0, :n]
    for m in prange(n):
        r = pre[m]
        b = bits[r] if scores[r] != 0.0 else np.uint64(0)  # −0.0 ties with 0.0
        pre_keys[m] = ~b if b & sign else b | sign
    # stable split at the median top-16-bit prefix: the halves sort independently
    top = np.zeros(65537, dtype=np.int64)
    for m in range(n):
        top[(pre_keys[m] >> np.uint64(48)) + 1] += 1
    split = 0
    below = 0
    while split < 65536 and below + top[split + 1] <= n // 2:
        below += top[split + 1]
        split += 1
    keys = wu[1, :n]
    idx = wi[1, :n]
    a = 0
    b_ = below
    for m in range(n):
        if (pre_keys[m] >> np.uint64(48)) < split:
            keys[a] = pre_keys[m]
            idx[a] = pre[m]
            a += 1
        else:
            keys[b_] = pre_keys[m]
            idx[b_] = pre[m]
            b_ += 1
    for part in prange(2):
        lo_, hi_ = (0, below) if part == 0 else (below, n)
        # the top four bytes (sign, exponent, 20 mantissa bits) sort; runs equal on them
        # are short except for exact ties, which need no work
        radix_sort(keys[lo_:hi_], idx[lo_:hi_], pre_keys[lo_:hi_], pre[lo_:hi_], 8, 4)
        repair_runs(keys[lo_:hi_], idx[lo_:hi_], 4)
    t_bits = t[:n].view(np.uint64)
    # serial: Numba's parfors do not see that t_bits and t alias (fused loops read t early)
    for m in range(n):
        k = keys[m]
        t_bits[m] = k ^ sign if k & sign else ~k  # back to the float's bits
    cls = wi[2, :n]
    for m in prange(n):
        t[m] *= scale
        cls[m] = labels[idx[m]]


@njit(cache=True, fastmath={"contract", "reassoc"})
def _sweep(t, cls, mirror, wmat, width, h, p, ae, ag, lam, hc, gout, hout):
    """The part of every row's λ and hessian from the rows before it in a sweep.

    The sweep runs over y = t ascending, or with ``mirror`` over y = −t descending.
    With W_i = Σ_{j<i} w_{c_i c_j} (i − j) erfc(y_i − y_j) (within eps/2 per pair),
    G_i the same with exp(−(y_i − y_j)²), and the exact P_all, P_up (the sum of
    w (i − j), over all labels or over labels above c_i), it writes at the row's
    ascending index

        gout = lam (2 P_up − W)                 ascending sweep
        gout = lam (2 P_up − 2 P_all + W)       mirrored (erfc(−x) = 2 − erfc(x))
        hout = hc G
    """
    n = t.shape[0]
    C = wmat.shape[0]
    lo = -t[n - 1] if mirror else t[0]
    # running coefficients per target class c, weight row r (1 and j − base), harmonic
    Rc = np.zeros((C, 2, p))
    Rs = np.zeros((C, 2, p))
    Rq = np.zeros((C, 2))
    Lc = np.zeros((C, 2, p))
    Ls = np.zeros((C, 2, p))
    Lq = np.zeros((C, 2))
    cnt = np.zeros(C)
    isum = np.zeros(C)
    cn = np.empty(p)
    sn = np.empty(p)
    rc = np.empty(p)
    rs = np.empty(p)
    cur = np.int64(-2)
    base = 0
    centre = 0.0
    # the harmonics of a batch of rows first, vectorised across rows (one long dependent
    # chain per row otherwise sets the pace), then the rows in order
    B = 64
    kb = np.empty(B, dtype=np.int64)
    th = np.empty(B)
    c2 = np.empty(B)
    s2 = np.empty(B)
    Hc = np.empty((p, B))
    Hs = np.empty((p, B))
    for i0 in range(0, n, B):
        nb = min(B, n - i0)
        for b in range(nb):
            row = n - 1 - (i0 + b) if mirror else i0 + b
            y = -t[row] if mirror else t[row]
            k = np.int64(math.floor((y - lo) / width))
            kb[b] = k
            th[b] = 2.0 * h * (y - (lo + (k + 0.5) * width))
        unit_rotations(th, Hc[0], Hs[0], c2, s2, nb)
        for m in range(1, p):  # odd harmonics: rotate by 2θ
            for b in range(nb):
                Hc[m, b] = Hc[m - 1, b] * c2[b] - Hs[m - 1, b] * s2[b]
                Hs[m, b] = Hs[m - 1, b] * c2[b] + Hc[m - 1, b] * s2[b]
        for b in range(nb):
            i = i0 + b
            row = n - 1 - i if mirror else i
            k = kb[b]
            if k != cur:
                new_centre = lo + (k + 0.5) * width
                if k == cur + 1:
                    # the finished block becomes the "previous block" term, rotated to the
                    # new centre and its row-1 weights rebased to the new block's first index
                    harmonics(2.0 * h * (new_centre - centre), p, rc, rs)
                    db = float(i - base)
                    for c in range(C):
                        o0 = Rq[c, 0] - Lq[c, 0]
                        o1 = Rq[c, 1] - Lq[c, 1]
                        Lq[c, 0] = o0
                        Lq[c, 1] = o1 - db * o0
                        Rq[c, 0] = Lq[c, 0]
                        Rq[c, 1] = Lq[c, 1]
                        for r in range(2):
                            for m in range(p):
                                oc = Rc[c, r, m] - Lc[c, r, m]
                                os_ = Rs[c, r, m] - Ls[c, r, m]
                                Lc[c, r, m] = oc * rc[m] + os_ * rs[m]
                                Ls[c, r, m] = os_ * rc[m] - oc * rs[m]
                        for m in range(p):
                            Lc[c, 1, m] -= db * Lc[c, 0, m]
                            Ls[c, 1, m] -= db * Ls[c, 0, m]
                            for r in range(2):
                                Rc[c, r, m] = Lc[c, r, m]
                                Rs[c, r, m] = Ls[c, r, m]
                else:
                    Rc[:] = 0.0
                    Rs[:] = 0.0
                    Rq[:] = 0.0
                    Lc[:] = 0.0
                    Ls[:] = 0.0
                    Lq[:] = 0.0
                cur = k
                centre = new_centre
                base = i
            d = float(i - base)
            c = cls[row]
            for m in range(p):
                cn[m] = Hc[m, b]
                sn[m] = Hs[m, b]
            acc_e = 0.0
            acc_g = 0.0
            for m in range(p):
                xc = d * Rc[c, 0, m] - Rc[c, 1, m]
                xs = d * Rs[c, 0, m] - Rs[c, 1, m]
                acc_e += ae[m] * (sn[m] * xc - cn[m] * xs)
                acc_g += ag[m] * (cn[m] * xc + sn[m] * xs)
            W = d * Rq[c, 0] - Rq[c, 1] - acc_e
            pa = 0.0
            pu = 0.0
            for e in range(C):
                v = wmat[c, e] * (i * cnt[e] - isum[e])
                pa += v
                if e > c:
                    pu += v
            gout[row] = lam * (2.0 * (pu - pa) + W) if mirror else lam * (2.0 * pu - W)
            hout[row] = hc * acc_g
            # row i is a source for the targets of every other class
            for e in range(C):
                w = wmat[e, c]
                if w == 0.0:
                    continue
                wd = w * d
                Rq[e, 0] += w
                Rq[e, 1] += wd
                for m in range(p):
                    Rc[e, 0, m] += w * cn[m]
                    Rs[e, 0, m] += w * sn[m]
                    Rc[e, 1, m] += wd * cn[m]
                    Rs[e, 1, m] += wd * sn[m]
            cnt[c] += 1.0
            isum[c] += i


@njit(cache=True, parallel=True)
def _both_sweeps(t, cls, wmat, width, h, p, ae, ag, lam, hc, g, hs):
    for side in prange(2):
        _sweep(t, cls, side == 1, wmat, width, h, p, ae, ag, lam, hc, g[side], hs[side])


@njit(cache=True, parallel=True)
def lambda_auc_series_kernel(scores, labels, wmat, sigma, alpha, width, h, p, ae, ag, grad, hess, wi, wu, wf):
    """λ-MAUC (λ-AUC for 0/1 labels) gradients and hessians of one list, probit link.

    Parameters
    ----------
    scores : ndarray of float64, shape (n,)
    labels : ndarray of int64, shape (n,)
        Class ids 0..C−1.
    wmat : ndarray of float64, shape (C, C)
        |ω_a − ω_b| (Welleck eq. 18), zero on the diagonal.
    width, h, p, ae, ag
        Cut-off/block width, series step, truncation and the erfc / Gaussian
        series weights (:func:`boostrank._kernels.erfc.series_weights`).
    wi, wu, wf : ndarray of int64 (3, ≥ n), uint64 (2, ≥ n), float64 (5, ≥ n)
        Work arrays, reused across calls (see :func:`ascending_pessimistic_into`).
    """
    n = scores.shape[0]
    t = wf[0, :n]
    ascending_pessimistic_into(scores, labels, wmat.shape[0], alpha * sigma, wi, wu, t)
    order = wi[1, :n]
    cls = wi[2, :n]
    g = wf[1:3, :n]
    hs = wf[3:5, :n]
    _both_sweeps(t, cls, wmat, width, h, p, ae, ag, sigma / 2.0,
                 sigma * sigma * alpha / math.sqrt(math.pi), g, hs)
    for i in prange(n):
        grad[order[i]] = g[0, i] + g[1, i]
        hess[order[i]] = hs[0, i] + hs[1, i]
