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

from .config import (MAX_LIST_ROWS, MIXED_MIN_RATE, PARALLEL_SORT_MIN_ROWS,  # noqa: F401  (tests import them here)
                     SERIES_FASTMATH, SWEEP_BATCH, SWEEP_P)
from .erfc import harmonics, unit_rotations
from .groups import radix_sort, repair_runs, sort_run
from .link import probit_hessian_scale


def index_dtype(n):
    """Integer type of the order's work arrays for lists of ``n`` rows.

    int32 below 2³¹ rows: the one-thread sort's radix passes move 12 bytes per row
    instead of 16 and the sweeps read half the class ids.
    """
    return np.int32 if n < 2**31 else np.int64


def ascending_pessimistic(scores, labels, n_classes, scale):
    """:func:`ascending_pessimistic_into` with fresh work arrays; returns (order, t, cls).

    Plain Python on purpose: a cached non-parallel jitted caller of a parallel kernel
    that was cached first by another process segfaults when loaded (Numba 0.68).
    """
    n = scores.shape[0]
    if n > MAX_LIST_ROWS:
        raise ValueError(f"lists of more than {MAX_LIST_ROWS} rows are not supported")
    wi = np.empty((3, n), dtype=index_dtype(n))
    wu = np.empty((2, n), dtype=np.uint64)
    t = np.empty(n)
    if not ascending_pessimistic_into(scores, labels, n_classes, scale, wi, wu, t, get_num_threads()):
        raise ValueError("scores must not be NaN")
    return wi[1], t, wi[2]


@njit(cache=True)
def _ascending_serial(scores, labels, n_classes, idx, keys, idx2, keys2):
    """:func:`ascending_pessimistic_into`'s order ``idx`` and keys on one thread.

    A counting sort lays the rows out by (label desc, row desc), then a stable LSD radix
    sort on the keys' top four bytes and :func:`~boostrank._kernels.groups.repair_runs`.
    ``idx2``, ``keys2``: scratch of the same length.
    """
    n = scores.shape[0]
    bits = scores.view(np.uint64)
    sign = np.uint64(1) << np.uint64(63)
    start = np.zeros(n_classes + 1, dtype=np.int64)
    for r in range(n):
        start[n_classes - labels[r]] += 1
    for c in range(n_classes):
        start[c + 1] += start[c]
    for r in range(n - 1, -1, -1):
        q = start[n_classes - 1 - labels[r]]
        start[n_classes - 1 - labels[r]] = q + 1
        b = bits[r] if scores[r] != 0.0 else np.uint64(0)  # −0.0 ties with 0.0
        keys[q] = ~b if b & sign else b | sign
        idx[q] = r
    radix_sort(keys, idx, keys2, idx2, 8, 4)
    repair_runs(keys, idx, 4)


@njit(cache=True, parallel=True)
def ascending_pessimistic_into(scores, labels, n_classes, scale, wi, wu, t, n_threads):
    """The ascending pessimistic order, with t = scale · (score − the median score) and class ids along it.

    The series reads only differences of t: taken from the list's median before scaling,
    they stay exact for scores near it wherever the list sits (scaled first, scores at
    10¹² kept differences to 10⁻⁴ and the λs lost five digits).

    Ascending score; among equal scores the higher label first, then the later row:
    the exact reverse of :func:`boostrank._kernels.lambdas.pessimistic_order`.  From
    ``PARALLEL_SORT_MIN_ROWS`` rows, a stable LSD radix sort in one chunk per Numba thread (the same order for any count):

    1. a first pass lays the rows out by (label desc, row desc) as 64-bit keys: on top,
       the score's point on a 32-bit grid that never decreases with s; below, the row
       number.  The grid is linear over [min, max], floor((s − min) · (2³² − 1) /
       (max − min)), or, on heavy tails and outliers, the top 32 bits of the float's
       order-preserving integer image (:func:`_image_grid_is_finer` picks);
    2. four 8-bit passes sort on the grid point, each counting its digit per chunk in a
       read of its own;
    3. the rows' scores and classes are gathered along the order, and only where a
       score decreases (two scores on one grid point) is its run of one grid point
       sorted by score, stably (:func:`_settle`).

    The linear grid resolves what the float's own top 32 bits do not: on boosting
    scores at 10⁶ rows, 100 k–400 k rows share their top 32 bits with a different
    score and had to be repaired by insertion; a few hundred share a grid point.
    At 10⁶ rows the order takes 7–9 ms on normal, lognormal (σ = 3) and Cauchy
    scores, on a span of 10⁻¹¹, on 1 % of the scores at 10⁶ and on one at 10¹²
    (before: 9–17 ms, and 146 ms on the narrow span).  One key array,
    8-bit digits and counting in separate reads keep each scatter to 256 write streams
    per thread; the earlier 3 × 11-bit passes over key and index arrays (4 096 streams,
    later digits counted while scattering) cost 2–5 ns per row per pass.  At 10⁶ rows
    of boosting scores the order takes 8.5–9 ms instead of 15–18 ms, on the ties of
    early rounds as on spread scores.

    Work arrays are the caller's, so a boosting run reuses them every round: at
    10⁶ rows fresh arrays cost about 25 ms per call in page faults.

    Parameters
    ----------
    scores : ndarray of float64, shape (n,), n ≤ ``MAX_LIST_ROWS``
    wi : ndarray of int32 or int64 (:func:`index_dtype`), shape (3, ≥ n)
        Out: ``wi[1]`` the order (rows, ascending), ``wi[2]`` the class along it;
        ``wi[0]`` is scratch.
    wu : ndarray of uint64, shape (2, ≥ n)
        Scratch.
    t : ndarray of float64, shape (≥ n,)
        Out: scale · (score − the median score) along the order.
    n_threads : int
        Chunks of the parallel sort: the caller's ``numba.get_num_threads()``.

    Returns
    -------
    ok : bool
        False when some score is NaN (the outputs are then undefined); ±inf are ordered.
    """
    n = scores.shape[0]
    if n < PARALLEL_SORT_MIN_ROWS:
        _ascending_serial(scores, labels, n_classes, wi[1, :n], wu[1, :n], wi[0, :n], wu[0, :n])
        _finish_order(labels, scale, wi, wu, t, n)
        # NaN sorts to the ends
        return n == 0 or not (np.isnan(scores[wi[1, 0]]) or np.isnan(scores[wi[1, n - 1]]))
    # one chunk per thread (numba.get_num_threads() of the caller: called in here, it is a ctypes
    # pointer that keeps the kernel out of the on-disk cache); the order is the same for any count
    nch = max(1, n_threads)
    edge = np.empty(nch + 1, dtype=np.int64)
    for ch in range(nch + 1):
        edge[ch] = ch * n // nch
    bits = scores.view(np.uint64)
    sign = np.uint64(1) << np.uint64(63)
    # label counts per source chunk, rows padded apart: threads sharing a cache line of counters cost 3× (false sharing)
    lab = np.zeros((nch, n_classes + 16), dtype=np.int64)
    ext = np.zeros((nch, 16))
    for ch in prange(nch):
        a, b = edge[ch], edge[ch + 1]
        if n_classes <= 8:  # a vectorised count per class
            for c in range(n_classes):
                k = 0
                for r in range(n - b, n - a):
                    k += labels[r] == c
                lab[ch, n_classes - 1 - c] = k
        else:
            for q in range(a, b):
                lab[ch, n_classes - 1 - labels[n - 1 - q]] += 1
        lo_c = np.inf
        hi_c = -np.inf
        nan = 0
        for r in range(a, b):
            v = scores[r]
            lo_c = min(lo_c, v)
            hi_c = max(hi_c, v)
            nan += np.int64(v != v)
        ext[ch, 0] = lo_c
        ext[ch, 1] = hi_c
        ext[ch, 2] = nan
    if ext[:, 2].sum() > 0:
        return False
    lo = ext[:, 0].min()
    span = ext[:, 1].max() - lo
    top = 4294967295.0
    grid = top / span if span > 0.0 and top / span < np.inf and span < np.inf else 0.0
    image = grid == 0.0 or _image_grid_is_finer(scores, span)
    off = np.zeros((nch, n_classes + 16), dtype=np.int64)
    total = 0
    for c in range(n_classes):
        for ch in range(nch):
            off[ch, c] = total
            total += lab[ch, c]
    for ch in prange(nch):
        for q in range(edge[ch], edge[ch + 1]):
            r = n - 1 - q
            c = n_classes - 1 - labels[r]
            dst = off[ch, c]
            off[ch, c] = dst + 1
            if image:
                b_ = bits[r] if scores[r] != 0.0 else np.uint64(0)  # −0.0 ties with 0.0
                g = (~b_ if b_ & sign else b_ | sign) >> np.uint64(32)
            else:
                g = np.uint64(min((scores[r] - lo) * grid, top))
            wu[0, dst] = (g << np.uint64(32)) | np.uint64(r)
    mask = np.uint64(255)
    src = 0
    for d in range(4):
        shift = np.uint64(32 + 8 * d)
        # each chunk's digit counts, rows padded apart (false sharing)
        pos = np.zeros((nch, 256 + 16), dtype=np.int64)
        for ch in prange(nch):
            for q in range(edge[ch], edge[ch + 1]):
                pos[ch, (wu[src, q] >> shift) & mask] += 1
        if pos.sum(axis=0).max() == n:  # a digit every key shares
            continue
        total = 0
        for v in range(256):
            for ch in range(nch):
                c = pos[ch, v]
                pos[ch, v] = total
                total += c
        dst_buf = 1 - src
        for ch in prange(nch):
            for q in range(edge[ch], edge[ch + 1]):
                k = wu[src, q]
                v = (k >> shift) & mask
                dst = pos[ch, v]
                pos[ch, v] = dst + 1
                wu[dst_buf, dst] = k
        src = dst_buf
    keys = wu[src, :n]
    order = wi[1, :n]
    cls = wi[2, :n]
    row = np.uint64(0xFFFFFFFF)
    for m in prange(n):
        r = keys[m] & row
        order[m] = r
        t[m] = scores[r]
        cls[m] = labels[r]
    # runs of one grid point are settled in independent parts, split where the grid point changes
    split = np.empty(nch + 1, dtype=np.int64)
    split[0] = 0
    for ch in range(1, nch + 1):
        s = max(edge[ch], split[ch - 1])
        while 0 < s < n and (keys[s] >> np.uint64(32)) == (keys[s - 1] >> np.uint64(32)):
            s += 1
        split[ch] = s
    for part in prange(nch):
        _settle(t, order, cls, keys, split[part], split[part + 1])
    anchor = t[n // 2]
    for m in prange(n):
        t[m] = (t[m] - anchor) * scale
    return True


@njit(cache=True)
def _image_grid_is_finer(scores, span):
    """Whether the top 32 bits of the scores' order-preserving integer image separate
    neighbouring scores better than the linear grid over [min, max] does.

    Judged on 1 024 evenly spaced scores, sorted: a gap between distinct neighbours
    there stands for a gap about n/1 024 times smaller in the list, and counts as a
    collision when that falls below one grid point.  The linear grid wins on the
    scores of boosting and on a narrow span (the image's top bits cannot tell 1 from
    1 + 10⁻¹² apart: 140 ms at 10⁶ rows, against 8); the image wins on heavy tails and
    outliers (one score at 10¹² and 10⁶ rows near 0: 165 ms on the grid, against 15).
    """
    n = scores.shape[0]
    m = 1024
    step = n // m
    sample = np.sort(scores[0:step * m:step])
    bits = sample.view(np.uint64)
    sign = np.uint64(1) << np.uint64(63)
    room = n / m
    linear = 0
    image = 0
    prev_key = np.uint64(0)
    for i in range(m):
        b = bits[i] if sample[i] != 0.0 else np.uint64(0)
        key = ~b if b & sign else b | sign
        if i > 0 and sample[i] > sample[i - 1]:
            if (sample[i] - sample[i - 1]) / room < span / 4294967296.0:
                linear += 1
            if float(key - prev_key) / room < 4294967296.0:
                image += 1
        prev_key = key
    return image < linear


@njit(cache=True)
def _settle(s, order, cls, keys, a, b):
    """Sort rows a … b−1, ordered by grid point (``keys >> 32``), by score ``s`` within each grid point.

    Stable, so equal scores keep the first pass's (label desc, row desc) order.  Only a
    grid point whose scores decrease somewhere is sorted (:func:`~boostrank._kernels.groups.sort_run`).
    """
    m = a + 1
    while m < b:
        if s[m] >= s[m - 1]:
            m += 1
            continue
        point = keys[m] >> np.uint64(32)
        lo = m - 1
        while lo > a and (keys[lo - 1] >> np.uint64(32)) == point:
            lo -= 1
        hi = m + 1
        while hi < b and (keys[hi] >> np.uint64(32)) == point:
            hi += 1
        sort_run(s, lo, hi, order, cls)
        m = hi


@njit(cache=True, parallel=True)
def _finish_order(labels, scale, wi, wu, t, n):
    """t = scale · (score − the median score) and the class along the sorted keys ``wu[1]`` and rows ``wi[1]``."""
    sign = np.uint64(1) << np.uint64(63)
    keys = wu[1, :n]
    t_bits = t[:n].view(np.uint64)
    # serial: Numba's parfors do not see that t_bits and t alias (fused loops read t early)
    for m in range(n):
        k = keys[m]
        t_bits[m] = k ^ sign if k & sign else ~k  # back to the float's bits
    idx = wi[1, :n]
    cls = wi[2, :n]
    anchor = t[n // 2] if n > 0 else 0.0
    for m in prange(n):
        t[m] = (t[m] - anchor) * scale
        cls[m] = labels[idx[m]]


_FAST = SERIES_FASTMATH


@njit(cache=True, fastmath=_FAST)
def _batch_harmonics(t, mirror, i0, nb, lo, width, h, P, pg, kb, work, Hr):
    """Block numbers and harmonics cos/sin((2m+1)θ), m < pg, of rows i0 … i0+nb−1 of a
    sweep, θ = 2h (y − centre of the row's block).

    cos/sin θ and 2θ across the batch (the polynomials vectorise across rows), z³, z⁵,
    z⁷ per row, then four harmonics at a time by the three-term recurrence
    cos((k+8)θ) = 2 cos 8θ · cos kθ − cos((k−8)θ) (the same for sin): two multiply-adds
    per harmonic in registers instead of a complex product read back from the row just
    written (sweeps at 10⁶ rows, A/B: 23.3 → 21.9 ms).  Contiguous per row: ``Hr[b, :pg]`` cosines,
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
    default eps only 11 weights are nonzero: building 12 harmonics per row instead of
    16 takes 7 % off the kernel at 10⁶ rows (A/B: 36.7 → 34.1 ms per call, the same
    λs to the bit).  The zero weights' columns of the harmonics stay zero.
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
    are the series weights padded with zeros to ``SWEEP_P``.  It is 1.8× faster at 10⁶
    rows because each class's loops address the state at constant offsets: the compiler
    then tells the loads of one class from the stores of the other and vectorises
    them (with the class as a runtime offset they compile to scalar code).  The loop
    bodies are written out per class for that reason (a shared helper taking the two
    states as arguments measured 31 and 46 ms instead of 27 and 29).

    Along the order the class of the next row is random, so a branch on it mispredicts
    at about twice the minority rate.  With ``mixed`` each row instead picks its target
    and source states (two views at constant offsets) by selects and updates its class
    counts by arithmetic: 28.1 → 24.7 ms per pair of sweeps at 10⁶ rows and 50 %
    positives, but 22.0 → 23.1 ms at 5 %; with the recurrence harmonics the two break
    even at 11.7 % (18.3 ms; 15 %: 19.0 → 18.4, 30 %: 20.4 → 18.4), so :func:`_both_sweeps`
    sets it from ``MIXED_MIN_RATE`` on.  The sums are the same (equal to the bit in the A/B runs).
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
    call costs one dispatch instead of one per list (2 000 lists of 300 rows: 24 µs of
    Python and parallel-region set-up per list before).

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
    sign = np.uint64(1) << np.uint64(63)
    t_bits = wf.view(np.uint64)
    bad = np.zeros(lists.shape[0], dtype=np.bool_)
    for j in prange(lists.shape[0]):
        a = offsets[lists[j]]
        b = offsets[lists[j] + 1]
        n = b - a
        idx = wi[1, a:b]
        cls = wi[2, a:b]
        keys = wu[1, a:b]
        _ascending_serial(scores[a:b], labels[a:b], n_classes[j], idx, keys, wi[0, a:b], wu[0, a:b])
        t = wf[0, a:b]
        for m in range(n):
            k = keys[m]
            t_bits[0, a + m] = k ^ sign if k & sign else ~k  # back to the float's bits
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
