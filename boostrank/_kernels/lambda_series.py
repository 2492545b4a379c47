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
2 − erfc(t'_i − t'_j).  The two sweeps are independent and run in parallel, and on
more than two threads each is cut into chunks that start from the state the rows
before them hand on (:func:`_both_sweeps`).
"""

import math

import numpy as np
from numba import njit, prange

from .config import SERIES_FASTMATH, SWEEP_BATCH, SWEEP_CHUNK_MIN_ROWS, SWEEP_P, SweepSeries
from .erfc import harmonics, unit_rotations
from .link import probit_hessian_scale
from .order import ascending_pessimistic_into, ascending_serial, key_float


_FAST = SERIES_FASTMATH
# blocks on a grid anchored at zero, not at the sweep's first score: an outlier at 1e12 made every
# centre lo + (k + ½)·width lose 1e-4 of its position, and the λs their accuracy
_LO = 0.0
_NO_BLOCK = float(-(1 << 62))  # the block before a sweep's first row: never adjacent to a real one


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
def _harmonics_upto(t, mirror, i0, nb, width, h, P, pg, kb, work, Hr):
    """:func:`_batch_harmonics` of the first ``pg`` harmonics (:func:`_harmonics_in_use`) into
    ``Hr`` of ``P`` columns, whose columns past ``pg`` the caller keeps zero.

    The count is passed on as a constant (8, 12 or P): with a runtime count the
    recurrence compiles to slower code.
    """
    if pg <= 8:
        _batch_harmonics(t, mirror, i0, nb, _LO, width, h, P, 8, kb, work, Hr)
    elif pg <= 12:
        _batch_harmonics(t, mirror, i0, nb, _LO, width, h, P, 12, kb, work, Hr)
    else:
        _batch_harmonics(t, mirror, i0, nb, _LO, width, h, P, P, kb, work, Hr)


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
def _sweep(t, cls, mirror, wmat, series, out, rows, start):
    """The part of every row's λ and hessian from the rows before it in a sweep.

    The sweep runs over y = t ascending, or with ``mirror`` over y = −t descending.
    With W_i = Σ_{j<i} w_{c_i c_j} (i − j) erfc(y_i − y_j) (within eps/2 per pair),
    G_i the same with exp(−(y_i − y_j)²), and the exact P_all, P_up (the sum of
    w (i − j), over all labels or over labels above c_i), it writes at the row's
    ascending index

        gout = lam (2 P_up − W)                 ascending sweep
        gout = lam (2 P_up − 2 P_all + W)       mirrored (erfc(−x) = 2 − erfc(x))
        hout = hc G

    ``series`` (:class:`SweepSeries`): ``ae``, ``ag`` are the series weights zero-padded
    to a multiple of 4 harmonics, ``lam`` and ``hc`` the factors above.  ``out``:
    (gout, hout).  Any number of classes; :func:`_sweep_binary` is the same for two,
    faster.  Rows ``first`` … ``stop − 1`` (``rows``) of the sweep are computed, from the
    state ``start`` the sweep has before row ``first`` (:func:`_fresh_state` for row 0,
    :func:`_chunk_start`).
    """
    width, h, ae, ag, lam, hc = series
    gout, hout = out
    first, stop = rows
    n = t.shape[0]
    C = wmat.shape[0]
    P = ae.shape[0]
    Z = start[:8 * P * C].copy()  # see _next_block
    Q = start[8 * P * C:8 * P * C + 4 * C].copy()
    cnt = start[8 * P * C + 4 * C:8 * P * C + 5 * C].copy()
    isum = start[8 * P * C + 5 * C:8 * P * C + 6 * C].copy()
    rc = np.empty(P)
    rs = np.empty(P)
    cur = np.int64(start[-2])
    base = np.int64(start[-1])
    centre = _LO + (cur + 0.5) * width
    B = SWEEP_BATCH
    kb = np.empty(B, dtype=np.int64)
    work = np.empty((5, B))
    Hr = np.empty((B, 2 * P))
    for i0 in range(first, stop, B):
        nb = min(B, stop - i0)
        _batch_harmonics(t, mirror, i0, nb, _LO, width, h, P, P, kb, work, Hr)
        for b in range(nb):
            i = i0 + b
            row = n - 1 - i if mirror else i
            k = kb[b]
            if k != cur:
                new_centre = _LO + (k + 0.5) * width
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
def _sweep_binary(t, cls, mirror, w, series, out, mixed, rows, start):
    """:func:`_sweep` for two classes, with every loop over harmonics SWEEP_P long.

    Same outputs as ``_sweep(t, cls, mirror, [[0, w], [w, 0]], ...)``; the series
    weights ``ae``, ``ag`` are padded with zeros to ``SWEEP_P``.  Each class's loops address
    the state at constant offsets: the compiler then tells the loads of one class from
    the stores of the other and vectorises them (with the class as a runtime offset
    they compile to scalar code).  The loop bodies are written out per class for that
    reason: a shared helper taking the two states as arguments was 1.3-1.6x slower,
    inlined (``inline="always"``) or compiled once per pair of offsets.

    Along the order the class of the next row is random, so a branch on it mispredicts
    at about twice the minority rate.  With ``mixed`` each row instead picks its target
    and source states (two views at constant offsets) by selects and updates its class
    counts by arithmetic: faster with both classes common, slower with a rare one, so
    :func:`_both_sweeps` sets it from ``MIXED_MIN_RATE`` on.  The sums are the same
    (equal to the bit).  Figures: benchmarks/MEASUREMENTS.md, "two-class sweep".
    """
    width, h, ae, ag, lam, hc = series
    gout, hout = out
    first, stop = rows
    P = SWEEP_P
    n = t.shape[0]
    Z = start[:16 * P].copy()  # see _next_block (C = 2)
    Q = start[16 * P:16 * P + 8].copy()
    Z0 = Z[0:4 * P]
    Z1 = Z[4 * P:8 * P]
    rc = np.empty(P)
    rs = np.empty(P)
    cnt0 = start[16 * P + 8]
    cnt1 = start[16 * P + 9]
    isum0 = start[16 * P + 10]
    isum1 = start[16 * P + 11]
    cur = np.int64(start[-2])
    base = np.int64(start[-1])
    centre = _LO + (cur + 0.5) * width
    B = SWEEP_BATCH
    kb = np.empty(B, dtype=np.int64)
    work = np.empty((5, B))
    Hr = np.zeros((B, 2 * P))  # columns past pg stay zero
    pg = _harmonics_in_use(ae, ag)
    for i0 in range(first, stop, B):
        nb = min(B, stop - i0)
        _harmonics_upto(t, mirror, i0, nb, width, h, P, pg, kb, work, Hr)
        for b in range(nb):
            i = i0 + b
            row = n - 1 - i if mirror else i
            k = kb[b]
            if k != cur:
                new_centre = _LO + (k + 0.5) * width
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


@njit(cache=True)
def _fresh_state(C, P):
    """A sweep's state before its first row.

    Layout of a sweep's ``start``: Z (8PC) and Q (4C) as in :func:`_next_block`, then per
    class the rows seen and the sum of their indices (C each), the current block number
    and the index of its first row.
    """
    state = np.zeros(8 * P * C + 6 * C + 2)
    state[-2] = _NO_BLOCK
    return state


@njit(cache=True, fastmath=_FAST)
def _block(t, mirror, i, width):
    """Block number of row ``i`` of a sweep, as :func:`_batch_harmonics` computes it."""
    y = -t[t.shape[0] - 1 - i] if mirror else t[i]
    return np.int64(math.floor((y - _LO) / width))


@njit(cache=True, fastmath=_FAST)
def _first_row(t, mirror, k, width, stop):
    """The first row of a sweep in block ``k`` or above, searched below ``stop`` (block numbers rise)."""
    a = 0
    b = stop
    while a < b:
        m = (a + b) // 2
        if _block(t, mirror, m, width) < k:
            a = m + 1
        else:
            b = m
    return a


@njit(cache=True, fastmath=_FAST)
def _chunk_sums(t, cls, mirror, wmat, series, first, stop, out):
    """What rows ``first`` … ``stop − 1`` of a sweep hand on to the rows after them.

    A later row sees the sources of its own block and the block before only, so a
    chunk hands on its part of the state of its last two blocks (each about its own
    centre and first row, as :func:`_sweep` keeps them), its rows per class and the
    sum of their indices.  ``out``: [last block, its Z and Q part (4PC + 2C), the same
    for the block before, rows per class (C), index sums (C)].  The harmonics are summed
    per source class and weighted per target class once at the end.
    """
    width, h, ae, ag = series.width, series.h, series.ae, series.ag
    C = wmat.shape[0]
    P = ae.shape[0]
    S = 4 * P * C + 2 * C
    out[:] = 0.0
    last = _block(t, mirror, stop - 1, width)
    out[0] = last
    bases = (_first_row(t, mirror, last, width, stop), _first_row(t, mirror, last - 1, width, stop))
    for i in range(first, stop):
        c = cls[t.shape[0] - 1 - i if mirror else i]
        out[1 + 2 * S + c] += 1.0
        out[1 + 2 * S + C + c] += i
    H = np.zeros((2, C, 4, P))  # per block and source class: Σ cos, Σ sin, Σ d cos, Σ d sin
    M = np.zeros((2, C, 2))  # Σ 1, Σ d
    B = SWEEP_BATCH
    kb = np.empty(B, dtype=np.int64)
    work = np.empty((5, B))
    Hr = np.zeros((B, 2 * P))  # columns past pg stay zero
    pg = _harmonics_in_use(ae, ag)
    for i0 in range(max(first, bases[1]), stop, B):
        nb = min(B, stop - i0)
        _harmonics_upto(t, mirror, i0, nb, width, h, P, pg, kb, work, Hr)
        for b in range(nb):
            i = i0 + b
            slot = 0 if kb[b] == last else 1
            d = float(i - bases[slot])
            c = cls[t.shape[0] - 1 - i if mirror else i]
            a = H[slot, c]
            for m in range(P):  # one region per loop, as in _sweep
                a[0, m] += Hr[b, m]
            for m in range(P):
                a[1, m] += Hr[b, P + m]
            for m in range(P):
                a[2, m] += d * Hr[b, m]
            for m in range(P):
                a[3, m] += d * Hr[b, P + m]
            M[slot, c, 0] += 1.0
            M[slot, c, 1] += d
    for slot in range(2):
        for e in range(C):
            oz = 1 + slot * S + 4 * P * e
            oq = 1 + slot * S + 4 * P * C + 2 * e
            for c in range(C):
                w = wmat[e, c]
                out[oz:oz + 4 * P] += w * H[slot, c].ravel()
                out[oq] += w * M[slot, c, 0]
                out[oq + 1] += w * M[slot, c, 1]


@njit(cache=True, fastmath=_FAST)
def _chunk_start(t, mirror, C, width, h, P, first, sums, state):
    """The state a sweep has before row ``first``, from the :func:`_chunk_sums` of the chunks before it.

    Equal to the state the sweep reaches row by row, up to the order of the sums.
    """
    S = 4 * P * C + 2 * C
    state[:] = 0.0
    cur = _block(t, mirror, first - 1, width)
    base = _first_row(t, mirror, cur, width, first)
    own = np.zeros(S)
    before = np.zeros(S)
    for j in range(sums.shape[0]):
        last = np.int64(sums[j, 0])
        for slot in range(2):
            if last - slot == cur:
                own += sums[j, 1 + slot * S:1 + (slot + 1) * S]
            elif last - slot == cur - 1:
                before += sums[j, 1 + slot * S:1 + (slot + 1) * S]
        state[8 * P * C + 4 * C:8 * P * C + 6 * C] += sums[j, 1 + 2 * S:]
    Z = state[:8 * P * C]
    Q = state[8 * P * C:8 * P * C + 4 * C]
    if base > 0 and _block(t, mirror, base - 1, width) == cur - 1:
        # the block before enters as the running part and moves to the previous-block term
        # as it does when the sweep crosses into ``cur``
        Z[:4 * P * C] = before[:4 * P * C]
        Q[:2 * C] = before[4 * P * C:]
        rc = np.empty(P)
        rs = np.empty(P)
        harmonics(2.0 * h * ((_LO + (cur + 0.5) * width) - (_LO + (cur - 0.5) * width)), P, rc, rs)
        _next_block(Z, Q, C, P, rc, rs, float(base - _first_row(t, mirror, cur - 1, width, base)))
    Z[:4 * P * C] += own[:4 * P * C]
    Q[:2 * C] += own[4 * P * C:]
    state[-2] = cur
    state[-1] = base


@njit(cache=True, parallel=True)
def _both_sweeps(t, cls, wmat, series, p, g, hs, mixed, n_chunks):
    """Both sweeps of one list, each in ``n_chunks`` chunks (None: one), every chunk a task for a thread.

    ``series``: a :class:`SweepSeries` with the first ``p`` series weights (padded here).

    Chunks after the first start from the state the rows before them hand on
    (:func:`_chunk_sums`, :func:`_chunk_start`): that pass over the rows before costs
    about half a sweep, so the caller chunks only when more than two threads share it.
    The λs agree with one chunk per sweep up to the order of sums (tests: 1e-12).
    """
    binary = wmat.shape[0] == 2 and p <= SWEEP_P
    # harmonics zero-padded: to SWEEP_P for the two-class sweep, else to a multiple of 4
    P = SWEEP_P if binary else 4 * ((p + 3) // 4)
    ae_p, ag_p = _padded(series.ae, series.ag, p, P)
    padded = SweepSeries(series.width, series.h, ae_p, ag_p, series.lam, series.hc)
    width, h = series.width, series.h
    n = t.shape[0]
    C = wmat.shape[0]
    K = 1 if n_chunks is None else max(1, min(n_chunks, n))
    cuts = np.empty(K + 1, dtype=np.int64)
    for c in range(K + 1):
        cuts[c] = c * n // K
    starts = np.empty((2, K, 8 * P * C + 6 * C + 2))
    for side in range(2):
        starts[side, 0] = _fresh_state(C, P)
    if n_chunks is not None:  # pruned at compile time for None: nobody compiles the chunking they don't use
        sums = np.zeros((2, K, 1 + 2 * (4 * P * C + 2 * C) + 2 * C))
        for task in prange(2 * (K - 1)):
            side = task // (K - 1)
            c = task % (K - 1)
            _chunk_sums(t, cls, side == 1, wmat, padded, cuts[c], cuts[c + 1], sums[side, c])
        for side in range(2):
            for c in range(1, K):
                _chunk_start(t, side == 1, C, width, h, P, cuts[c], sums[side, :c], starts[side, c])
    for task in prange(2 * K):
        side = task // K
        c = task % K
        rows = (cuts[c], cuts[c + 1])
        if binary:
            _sweep_binary(t, cls, side == 1, wmat[0, 1], padded, (g[side], hs[side]), mixed, rows, starts[side, c])
        else:
            _sweep(t, cls, side == 1, wmat, padded, (g[side], hs[side]), rows, starts[side, c])


@njit(cache=True, parallel=True)
def lambda_auc_series_kernel(scores, labels, wmat, setting, out, work, mixed, n_threads, n_chunks):
    """λ-MAUC (λ-AUC for 0/1 labels) gradients and hessians of one list, probit link.

    Parameters
    ----------
    scores : ndarray of float64, shape (n,)
    labels : ndarray of int64, shape (n,)
        Class ids 0..C−1.
    wmat : ndarray of float64, shape (C, C)
        |ω_a − ω_b| (Welleck eq. 18), zero on the diagonal.
    setting : ProbitSeries
        σ and α of the link; the cut-off/block width, series step, truncation and the erfc /
        Gaussian series weights (:func:`boostrank._kernels.erfc.series_weights`); ``max_t``,
        the largest |ασ s| the series' block numbers hold exactly.
    out : (grad, hess)
        Written in place.
    work : (wi, wu, wf), ndarray of int32 or int64 (3, ≥ n), uint64 (2, ≥ n), float64 (5, ≥ n)
        Work arrays, reused across calls (see :func:`ascending_pessimistic_into`).
    mixed : bool
        Two classes, the smaller at least ``MIXED_MIN_RATE`` of the list: sweep without a
        branch on the class (see :func:`_sweep_binary`).
    n_threads : int
        ``numba.get_num_threads()``: the sort's chunks (:func:`ascending_pessimistic_into`).
    n_chunks : int or None
        Chunks per sweep (:func:`_both_sweeps`; :func:`sweep_chunks`); None: one, without
        compiling the chunking.

    Returns
    -------
    ok : bool
        False, with ``grad`` and ``hess`` unwritten, when some |ασ s| exceeds ``max_t``
        or is not finite
        (read off the two ends of the sorted list, not a pass of its own).
    """
    sigma, alpha, width, h, p, ae, ag, max_t = setting
    grad, hess = out
    wi, wu, wf = work
    n = scores.shape[0]
    t = wf[0, :n]
    ok = ascending_pessimistic_into(scores, labels, wmat.shape[0], alpha * sigma, wi, wu, t, n_threads)
    if not (ok and abs(t[0]) <= max_t and abs(t[n - 1]) <= max_t):
        return False
    order = wi[1, :n]
    cls = wi[2, :n]
    g = wf[1:3, :n]
    hs = wf[3:5, :n]
    series = SweepSeries(width, h, ae, ag, sigma / 2.0, probit_hessian_scale(sigma, alpha))
    _both_sweeps(t, cls, wmat, series, p, g, hs, mixed, n_chunks)
    for i in prange(n):
        grad[order[i]] = g[0, i] + g[1, i]
        hess[order[i]] = hs[0, i] + hs[1, i]
    return True


@njit(cache=True, parallel=True)
def lambda_auc_series_lists(scores, labels, offsets, lists, classes, setting, out, work):
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
        The lists to compute; their rows of ``grad`` and ``hess`` (``out``) are written.
    classes : (n_classes, wmats, mixed), ndarray, shape (L,), (L, C, C), (L,)
        Per list: its classes, |ω_a − ω_b| (padded with zeros) and the ``mixed`` flag of
        :func:`_sweep_binary`.
    setting : ProbitSeries
        As :func:`lambda_auc_series_kernel`.
    work : (wi, wu, wf), ndarray, shapes (3, n), (2, n), (5, n)
        Work arrays over all rows; each list uses its own columns.

    Returns
    -------
    int
        −1, or the position in ``lists`` of a list with some |ασ s| above ``max_t``
        (its rows are then not written).
    """
    sigma, alpha, width, h, p, ae, ag, max_t = setting
    n_classes, wmats, mixed = classes
    grad, hess = out
    wi, wu, wf = work
    scale = alpha * sigma
    lam = sigma / 2.0
    hc = probit_hessian_scale(sigma, alpha)
    ae_b, ag_b = _padded(ae, ag, min(p, SWEEP_P), SWEEP_P)  # used when p <= SWEEP_P
    ae_g, ag_g = _padded(ae, ag, p, 4 * ((p + 3) // 4))
    binary_series = SweepSeries(width, h, ae_b, ag_b, lam, hc)
    graded_series = SweepSeries(width, h, ae_g, ag_g, lam, hc)
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
            start = _fresh_state(2, SWEEP_P)
            _sweep_binary(t, cls, False, wmats[j, 0, 1], binary_series, (g0, h0), mixed[j], (0, n), start)
            _sweep_binary(t, cls, True, wmats[j, 0, 1], binary_series, (g1, h1), mixed[j], (0, n), start)
        else:
            wm = wmats[j, :n_classes[j], :n_classes[j]]
            start = _fresh_state(n_classes[j], ae_g.shape[0])
            _sweep(t, cls, False, wm, graded_series, (g0, h0), (0, n), start)
            _sweep(t, cls, True, wm, graded_series, (g1, h1), (0, n), start)
        for i in range(n):
            grad[a + idx[i]] = g0[i] + g1[i]
            hess[a + idx[i]] = h0[i] + h1[i]
    for j in range(lists.shape[0]):
        if bad[j]:
            return j
    return -1


def sweep_chunks(n, n_threads):
    """Chunks per sweep of one list of ``n`` rows on ``n_threads`` threads (:func:`_both_sweeps`).

    The two sweeps are two tasks already; chunks pay a pass over the rows before them, so
    a sweep is chunked only when at least two threads are left for each, and into chunks
    of at least ``SWEEP_CHUNK_MIN_ROWS`` rows.  None: one chunk (the kernel's variant
    without the chunking, which a first call on two cores then does not compile).
    """
    k = min(n_threads // 2, n // SWEEP_CHUNK_MIN_ROWS)
    return k if k > 1 else None
