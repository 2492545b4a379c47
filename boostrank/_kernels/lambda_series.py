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
from numba import get_num_threads, njit, prange  # get_num_threads: Python callers only

from .config import MIXED_MIN_RATE, SERIES_FASTMATH, SWEEP_BATCH, SWEEP_P
from .erfc import harmonics, unit_rotations
from .link import probit_hessian_scale
from .order import ascending_pessimistic_into, ascending_serial, key_float


_FAST = SERIES_FASTMATH


@njit(cache=True, fastmath=_FAST)
def _batch_harmonics(t, mirror, i0, nb, lo, width, h, P, pg, kb, work, Hr):
    """Block numbers and harmonics cos/sin((2m+1)θ), m < pg, of rows i0 … i0+nb−1 of a
    sweep, θ = 2h (y − centre of the row's block).

    cos/sin θ and 2θ across the batch (the polynomials vectorise across rows), z³, z⁵,
    z⁷ per row, then four harmonics at a time by the three-term recurrence
    cos((k+8)θ) = 2 cos 8θ · cos kθ − cos((k−8)θ) (the same for sin): two multiply-adds
    per harmonic in registers instead of a complex product read back from the row just
    written (benchmarks/MEASUREMENTS.md, "harmonics").  Contiguous per row: ``Hr[b, :pg]`` cosines,
    ``Hr[b, P:P+pg]`` sines (``pg`` ≤ ``P``, both multiples of 4; columns from ``pg``
    on are left alone: the caller keeps them zero).  Built row by row, not copied from
    columns of the batch: the copy cost as much as the sweep's arithmetic.  ``work``:
    scratch, (5, ≥ nb).
    """
    n = t.shape[0]
    th, c1, s1, c2, s2 = work[0], work[1], work[2], work[3], work[4]
    for b in range(nb):
        row = n - 1 - (i0 + b) if mirror else i0 + b
        y = -t[row] if mirror else t[row]
        k = np.int64(math.floor((y - lo) / width))
        kb[b] = k
        th[b] = 2.0 * h * (y - (lo + (k + 0.5) * width))
    unit_rotations(th, c1, s1, c2, s2, nb)
    for b in range(nb):
        a1 = c1[b]
        b1 = s1[b]
        a2 = c2[b]
        b2 = s2[b]
        a3 = a1 * a2 - b1 * b2
        b3 = b1 * a2 + a1 * b2
        a5 = a3 * a2 - b3 * b2
        b5 = b3 * a2 + a3 * b2
        a7 = a5 * a2 - b5 * b2
        b7 = b5 * a2 + a5 * b2
        a4 = a2 * a2 - b2 * b2
        b4 = 2.0 * a2 * b2
        k8 = 2.0 * (a4 * a4 - b4 * b4)  # 2 cos 8θ
        # the group before: harmonics −7, −5, −3, −1 (cosine even, sine odd)
        p1, p3, p5, p7 = a7, a5, a3, a1
        q1, q3, q5, q7 = -b7, -b5, -b3, -b1
        for g in range(0, pg, 4):
            Hr[b, g] = a1
            Hr[b, g + 1] = a3
            Hr[b, g + 2] = a5
            Hr[b, g + 3] = a7
            Hr[b, P + g] = b1
            Hr[b, P + g + 1] = b3
            Hr[b, P + g + 2] = b5
            Hr[b, P + g + 3] = b7
            a1, p1 = k8 * a1 - p1, a1
            a3, p3 = k8 * a3 - p3, a3
            a5, p5 = k8 * a5 - p5, a5
            a7, p7 = k8 * a7 - p7, a7
            b1, q1 = k8 * b1 - q1, b1
            b3, q3 = k8 * b3 - q3, b3
            b5, q5 = k8 * b5 - q5, b5
            b7, q7 = k8 * b7 - q7, b7


@njit(cache=True)
def _harmonics_in_use(ae, ag):
    """The harmonics a sweep must build: up to the last nonzero weight, rounded up to 4.

    The two-class sweep runs every loop ``SWEEP_P`` long (what vectorises), but at the
    default eps only 11 weights are nonzero, and harmonics past the last are work for
    nothing (the λs are the same to the bit).  The zero weights' columns of the
    harmonics stay zero.
    """
    last = 0
    for m in range(ae.shape[0]):
        if ae[m] != 0.0 or ag[m] != 0.0:
            last = m + 1
    return 4 * ((last + 3) // 4)


@njit(cache=True, fastmath=_FAST)
def _next_block(Z, Q, C, P, rc, rs, db):
    """At a block adjacent to the last: the finished block becomes the previous-block term.

    Layout of the sweep state: for target class c, ``Z[4Pc : 4P(c+1)]`` holds the running
    sums (cos, sin, (j − base)·cos, (j − base)·sin) and ``Q[2c : 2c+2]`` (Σ w, Σ w (j − base)),
    the previous block's part at the same places plus 4PC in Z and 2C in Q.  The
    finished block's own part (running − previous) is rotated by (rc, rs) to the new
    centre and its weights rebased by ``db`` rows to the new block's first index.
    """
    for c in range(C):
        o0 = Q[2 * c] - Q[2 * C + 2 * c]
        o1 = Q[2 * c + 1] - Q[2 * C + 2 * c + 1]
        Q[2 * C + 2 * c] = o0
        Q[2 * C + 2 * c + 1] = o1 - db * o0
        Q[2 * c] = o0
        Q[2 * c + 1] = o1 - db * o0
        oc = 4 * P * c
        ol = 4 * P * C + oc
        for r in range(2):
            for m in range(P):
                vc = Z[oc + 2 * r * P + m] - Z[ol + 2 * r * P + m]
                vs = Z[oc + (2 * r + 1) * P + m] - Z[ol + (2 * r + 1) * P + m]
                Z[ol + 2 * r * P + m] = vc * rc[m] + vs * rs[m]
                Z[ol + (2 * r + 1) * P + m] = vs * rc[m] - vc * rs[m]
        for m in range(P):
            Z[ol + 2 * P + m] -= db * Z[ol + m]
            Z[ol + 3 * P + m] -= db * Z[ol + P + m]
        for m in range(4 * P):
            Z[oc + m] = Z[ol + m]


@njit(cache=True, fastmath=_FAST)
def _enter_block(Z, Q, C, P, rc, rs, adjacent, angle, db):
    """A sweep reaches a new block: keep the finished one as the previous-block term
    (:func:`_next_block`, rotated by ``angle``) when the blocks are adjacent, else start empty."""
    if adjacent:
        harmonics(angle, P, rc, rs)
        _next_block(Z, Q, C, P, rc, rs, db)
    else:
        Z[:] = 0.0
        Q[:] = 0.0


@njit(cache=True, fastmath=_FAST)
def _sweep(t, cls, mirror, wmat, width, h, ae, ag, lam, hc, gout, hout):
    """The part of every row's λ and hessian from the rows before it in a sweep.

    The sweep runs over y = t ascending, or with ``mirror`` over y = −t descending.
    With W_i = Σ_{j<i} w_{c_i c_j} (i − j) erfc(y_i − y_j) (within eps/2 per pair),
    G_i the same with exp(−(y_i − y_j)²), and the exact P_all, P_up (the sum of
    w (i − j), over all labels or over labels above c_i), it writes at the row's
    ascending index

        gout = lam (2 P_up − W)                 ascending sweep
        gout = lam (2 P_up − 2 P_all + W)       mirrored (erfc(−x) = 2 − erfc(x))
        hout = hc G

    ``ae``, ``ag``: the series weights zero-padded to a multiple of 4 harmonics.  Any
    number of classes; :func:`_sweep_binary` is the same for two, faster.
    """
    n = t.shape[0]
    C = wmat.shape[0]
    P = ae.shape[0]
    # blocks on a grid anchored at zero, not at the sweep's first score: an outlier at 1e12 made every
    # centre lo + (k + ½)·width lose 1e-4 of its position, and the λs their accuracy
    lo = 0.0
    Z = np.zeros(8 * P * C)  # see _next_block
    Q = np.zeros(4 * C)
    cnt = np.zeros(C)
    isum = np.zeros(C)
    rc = np.empty(P)
    rs = np.empty(P)
    cur = np.int64(-(1 << 62))  # no block: block numbers are negative below zero
    base = 0
    centre = 0.0
    B = SWEEP_BATCH
    kb = np.empty(B, dtype=np.int64)
    work = np.empty((5, B))
    Hr = np.empty((B, 2 * P))
    for i0 in range(0, n, B):
        nb = min(B, n - i0)
        _batch_harmonics(t, mirror, i0, nb, lo, width, h, P, P, kb, work, Hr)
        for b in range(nb):
            i = i0 + b
            row = n - 1 - i if mirror else i
            k = kb[b]
            if k != cur:
                new_centre = lo + (k + 0.5) * width
                _enter_block(Z, Q, C, P, rc, rs, k == cur + 1, 2.0 * h * (new_centre - centre), float(i - base))
                cur = k
                centre = new_centre
                base = i
            d = float(i - base)
            c = cls[row]
            oc = 4 * P * c
            acc_e = 0.0
            acc_g = 0.0
            for m in range(P):
                cn = Hr[b, m]
                sn = Hr[b, P + m]
                xc = d * Z[oc + m] - Z[oc + 2 * P + m]
                xs = d * Z[oc + P + m] - Z[oc + 3 * P + m]
                acc_e += ae[m] * (sn * xc - cn * xs)
                acc_g += ag[m] * (cn * xc + sn * xs)
            W = d * Q[2 * c] - Q[2 * c + 1] - acc_e
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
                oe = 4 * P * e
                Q[2 * e] += w
                Q[2 * e + 1] += wd
                # one region of Z per loop: at runtime offsets the compiler cannot tell
                # four regions in one loop apart and would not vectorise it
                for m in range(P):
                    Z[oe + m] += w * Hr[b, m]
                for m in range(P):
                    Z[oe + P + m] += w * Hr[b, P + m]
                for m in range(P):
                    Z[oe + 2 * P + m] += wd * Hr[b, m]
                for m in range(P):
                    Z[oe + 3 * P + m] += wd * Hr[b, P + m]
            cnt[c] += 1.0
            isum[c] += i


@njit(cache=True, fastmath=_FAST)
def _sweep_binary(t, cls, mirror, w, width, h, ae, ag, lam, hc, gout, hout, mixed):
    """:func:`_sweep` for two classes, with every loop over harmonics SWEEP_P long.

    Same outputs as ``_sweep(t, cls, mirror, [[0, w], [w, 0]], ...)``; ``ae``, ``ag``
    are the series weights padded with zeros to ``SWEEP_P``.  Each class's loops address
    the state at constant offsets: the compiler then tells the loads of one class from
    the stores of the other and vectorises them (with the class as a runtime offset
    they compile to scalar code).  The loop bodies are written out per class for that
    reason; a shared helper taking the two states as arguments was slower.

    Along the order the class of the next row is random, so a branch on it mispredicts
    at about twice the minority rate.  With ``mixed`` each row instead picks its target
    and source states (two views at constant offsets) by selects and updates its class
    counts by arithmetic: faster with both classes common, slower with a rare one, so
    :func:`_both_sweeps` sets it from ``MIXED_MIN_RATE`` on.  The sums are the same
    (equal to the bit).  Figures: benchmarks/MEASUREMENTS.md, "two-class sweep".
    """
    P = SWEEP_P
    n = t.shape[0]
    # blocks on a grid anchored at zero, not at the sweep's first score: an outlier at 1e12 made every
    # centre lo + (k + ½)·width lose 1e-4 of its position, and the λs their accuracy
    lo = 0.0
    Z = np.zeros(16 * P)  # see _next_block (C = 2)
    Q = np.zeros(8)
    Z0 = Z[0:4 * P]
    Z1 = Z[4 * P:8 * P]
    rc = np.empty(P)
    rs = np.empty(P)
    cnt0 = 0.0
    cnt1 = 0.0
    isum0 = 0.0
    isum1 = 0.0
    cur = np.int64(-(1 << 62))  # no block: block numbers are negative below zero
    base = 0
    centre = 0.0
    B = SWEEP_BATCH
    kb = np.empty(B, dtype=np.int64)
    work = np.empty((5, B))
    Hr = np.zeros((B, 2 * P))  # columns past pg stay zero
    pg = _harmonics_in_use(ae, ag)
    for i0 in range(0, n, B):
        nb = min(B, n - i0)
        # constant harmonic counts: with a runtime count the loops compile to slower code
        if pg <= 8:
            _batch_harmonics(t, mirror, i0, nb, lo, width, h, SWEEP_P, 8, kb, work, Hr)
        elif pg <= 12:
            _batch_harmonics(t, mirror, i0, nb, lo, width, h, SWEEP_P, 12, kb, work, Hr)
        else:
            _batch_harmonics(t, mirror, i0, nb, lo, width, h, SWEEP_P, SWEEP_P, kb, work, Hr)
        for b in range(nb):
            i = i0 + b
            row = n - 1 - i if mirror else i
            k = kb[b]
            if k != cur:
                new_centre = lo + (k + 0.5) * width
                _enter_block(Z, Q, 2, P, rc, rs, k == cur + 1, 2.0 * h * (new_centre - centre), float(i - base))
                cur = k
                centre = new_centre
                base = i
            d = float(i - base)
            wd = w * d
            c = cls[row]
            acc_e = 0.0
            acc_g = 0.0
            if mixed:  # the same for the whole sweep: the branch is always predicted
                Zt = Z1 if c else Z0
                Zs = Z0 if c else Z1
                for m in range(P):
                    xc = d * Zt[m] - Zt[2 * P + m]
                    xs = d * Zt[P + m] - Zt[3 * P + m]
                    cn = Hr[b, m]
                    sn = Hr[b, P + m]
                    acc_e += ae[m] * (sn * xc - cn * xs)
                    acc_g += ag[m] * (cn * xc + sn * xs)
                for m in range(P):
                    cn = Hr[b, m]
                    sn = Hr[b, P + m]
                    Zs[m] += w * cn
                    Zs[P + m] += w * sn
                    Zs[2 * P + m] += wd * cn
                    Zs[3 * P + m] += wd * sn
                o = 2 * c
                W = d * Q[o] - Q[o + 1] - acc_e
                Q[2 - o] += w
                Q[3 - o] += wd
                cf = float(c)
                pa = w * (i * (cnt1 + cf * (cnt0 - cnt1)) - (isum1 + cf * (isum0 - isum1)))
                pu = pa * (1.0 - cf)
                cnt0 += 1.0 - cf
                cnt1 += cf
                isum0 += (1.0 - cf) * i
                isum1 += cf * i
            # the two branches differ only in their constant offsets, which is what
            # lets each one vectorise
            elif c == 0:
                for m in range(P):
                    xc = d * Z[m] - Z[2 * P + m]
                    xs = d * Z[P + m] - Z[3 * P + m]
                    cn = Hr[b, m]
                    sn = Hr[b, P + m]
                    acc_e += ae[m] * (sn * xc - cn * xs)
                    acc_g += ag[m] * (cn * xc + sn * xs)
                for m in range(P):
                    cn = Hr[b, m]
                    sn = Hr[b, P + m]
                    Z[4 * P + m] += w * cn
                    Z[5 * P + m] += w * sn
                    Z[6 * P + m] += wd * cn
                    Z[7 * P + m] += wd * sn
                W = d * Q[0] - Q[1] - acc_e
                Q[2] += w
                Q[3] += wd
                pa = w * (i * cnt1 - isum1)
                pu = pa
                cnt0 += 1.0
                isum0 += i
            else:
                for m in range(P):
                    xc = d * Z[4 * P + m] - Z[6 * P + m]
                    xs = d * Z[5 * P + m] - Z[7 * P + m]
                    cn = Hr[b, m]
                    sn = Hr[b, P + m]
                    acc_e += ae[m] * (sn * xc - cn * xs)
                    acc_g += ag[m] * (cn * xc + sn * xs)
                for m in range(P):
                    cn = Hr[b, m]
                    sn = Hr[b, P + m]
                    Z[m] += w * cn
                    Z[P + m] += w * sn
                    Z[2 * P + m] += wd * cn
                    Z[3 * P + m] += wd * sn
                W = d * Q[2] - Q[3] - acc_e
                Q[0] += w
                Q[1] += wd
                pa = w * (i * cnt0 - isum0)
                pu = 0.0
                cnt1 += 1.0
                isum1 += i
            gout[row] = lam * (2.0 * (pu - pa) + W) if mirror else lam * (2.0 * pu - W)
            hout[row] = hc * acc_g


@njit(cache=True)
def _padded(ae, ag, p, P):
    """The first ``p`` series weights, zero-padded to ``P`` harmonics (the sweeps' loop length)."""
    ae_p = np.zeros(P)
    ag_p = np.zeros(P)
    ae_p[:p] = ae[:p]
    ag_p[:p] = ag[:p]
    return ae_p, ag_p


@njit(cache=True, parallel=True)
def _both_sweeps(t, cls, wmat, width, h, p, ae, ag, lam, hc, g, hs, mixed):
    # harmonics zero-padded: to SWEEP_P for the two-class sweep, else to a multiple of 4
    P = SWEEP_P if wmat.shape[0] == 2 and p <= SWEEP_P else 4 * ((p + 3) // 4)
    ae_p, ag_p = _padded(ae, ag, p, P)
    if P == SWEEP_P and wmat.shape[0] == 2:
        for side in prange(2):
            _sweep_binary(t, cls, side == 1, wmat[0, 1], width, h, ae_p, ag_p, lam, hc, g[side], hs[side], mixed)
    else:
        for side in prange(2):
            _sweep(t, cls, side == 1, wmat, width, h, ae_p, ag_p, lam, hc, g[side], hs[side])


@njit(cache=True, parallel=True)
def lambda_auc_series_kernel(scores, labels, wmat, sigma, alpha, width, h, p, ae, ag, grad, hess, wi, wu, wf,
                             max_t, mixed, n_threads):
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
    wi, wu, wf : ndarray of int32 or int64 (3, ≥ n), uint64 (2, ≥ n), float64 (5, ≥ n)
        Work arrays, reused across calls (see :func:`ascending_pessimistic_into`).
    max_t : float
        Largest |ασ s| the series' block numbers hold exactly.
    mixed : bool
        Two classes, the smaller at least ``MIXED_MIN_RATE`` of the list: sweep without a
        branch on the class (see :func:`_sweep_binary`).
    n_threads : int
        ``numba.get_num_threads()``: the sort's chunks (:func:`ascending_pessimistic_into`).

    Returns
    -------
    ok : bool
        False, with ``grad`` and ``hess`` unwritten, when some |ασ s| exceeds ``max_t``
        or is not finite
        (read off the two ends of the sorted list, not a pass of its own).
    """
    n = scores.shape[0]
    t = wf[0, :n]
    ok = ascending_pessimistic_into(scores, labels, wmat.shape[0], alpha * sigma, wi, wu, t, n_threads)
    if not (ok and abs(t[0]) <= max_t and abs(t[n - 1]) <= max_t):
        return False
    order = wi[1, :n]
    cls = wi[2, :n]
    g = wf[1:3, :n]
    hs = wf[3:5, :n]
    _both_sweeps(t, cls, wmat, width, h, p, ae, ag, sigma / 2.0,
                 probit_hessian_scale(sigma, alpha), g, hs, mixed)
    for i in prange(n):
        grad[order[i]] = g[0, i] + g[1, i]
        hess[order[i]] = hs[0, i] + hs[1, i]
    return True


@njit(cache=True, parallel=True)
def lambda_auc_series_lists(scores, labels, offsets, lists, n_classes, wmats, mixed, sigma, alpha, width, h, p,
                            ae, ag, grad, hess, wi, wu, wf, max_t):
    """:func:`lambda_auc_series_kernel` for many lists in one call, one list per thread.

    Each list is sorted on one thread (:func:`_ascending_serial`) and swept both ways on
    the same thread: with many lists the threads have work without splitting one, and a
    call costs one dispatch instead of one per list (Python and parallel-region set-up
    per list dominated short lists).

    Parameters
    ----------
    labels : ndarray of int32 or int64, shape (n,)
        Class ids local to each list (0 … n_classes − 1).
    offsets : ndarray of int64
        List g is rows ``offsets[g]:offsets[g + 1]``.
    lists : ndarray of int64, shape (L,)
        The lists to compute; their rows of ``grad`` and ``hess`` are written.
    n_classes, wmats, mixed : ndarray, shape (L,), (L, C, C), (L,)
        Per list: its classes, |ω_a − ω_b| (padded with zeros) and the ``mixed`` flag of
        :func:`_sweep_binary`.
    wi, wu, wf : ndarray, shapes (3, n), (2, n), (5, n)
        Work arrays over all rows; each list uses its own columns.

    Returns
    -------
    int
        −1, or the position in ``lists`` of a list with some |ασ s| above ``max_t``
        (its rows are then not written).
    """
    scale = alpha * sigma
    lam = sigma / 2.0
    hc = probit_hessian_scale(sigma, alpha)
    ae_b, ag_b = _padded(ae, ag, min(p, SWEEP_P), SWEEP_P)  # used when p <= SWEEP_P
    ae_g, ag_g = _padded(ae, ag, p, 4 * ((p + 3) // 4))
    t_bits = wf.view(np.uint64)
    bad = np.zeros(lists.shape[0], dtype=np.bool_)
    for j in prange(lists.shape[0]):
        a = offsets[lists[j]]
        b = offsets[lists[j] + 1]
        n = b - a
        idx = wi[1, a:b]
        cls = wi[2, a:b]
        keys = wu[1, a:b]
        ascending_serial(scores[a:b], labels[a:b], n_classes[j], idx, keys, wi[0, a:b], wu[0, a:b])
        t = wf[0, a:b]
        for m in range(n):
            t_bits[0, a + m] = key_float(keys[m])
        anchor = t[n // 2] if n > 0 else 0.0
        for m in range(n):
            t[m] = (t[m] - anchor) * scale  # see ascending_pessimistic_into
            cls[m] = labels[a + idx[m]]
        if not (abs(t[0]) <= max_t and abs(t[n - 1]) <= max_t):
            bad[j] = True
            continue
        g0 = wf[1, a:b]
        g1 = wf[2, a:b]
        h0 = wf[3, a:b]
        h1 = wf[4, a:b]
        if n_classes[j] == 2 and p <= SWEEP_P:
            _sweep_binary(t, cls, False, wmats[j, 0, 1], width, h, ae_b, ag_b, lam, hc, g0, h0, mixed[j])
            _sweep_binary(t, cls, True, wmats[j, 0, 1], width, h, ae_b, ag_b, lam, hc, g1, h1, mixed[j])
        else:
            wm = wmats[j, :n_classes[j], :n_classes[j]]
            _sweep(t, cls, False, wm, width, h, ae_g, ag_g, lam, hc, g0, h0)
            _sweep(t, cls, True, wm, width, h, ae_g, ag_g, lam, hc, g1, h1)
        for i in range(n):
            grad[a + idx[i]] = g0[i] + g1[i]
            hess[a + idx[i]] = h0[i] + h1[i]
    for j in range(lists.shape[0]):
        if bad[j]:
            return j
    return -1
