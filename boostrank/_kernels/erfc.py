"""Weighted sums of erfc and Gaussian kernels: direct O(NM) and ε-exact O(p(N + M)).

E(y) = Σ_i q_i erfc(y − z_i) and G(y) = Σ_i q_i exp(−(y − z_i)²), evaluated at every
target y_j (Raykar et al. §5).  The fast kernel cuts the line into blocks of width L
(the cut-off radius).  For a target in block k, sources in blocks ≥ k + 2 are more
than L above it (erfc = 2 within ε), sources in blocks ≤ k − 2 more than L below
(erfc = 0); sources in blocks k − 1..k + 1 go through Beaulieu's Fourier series
(Raykar eqs. 5–10), whose coefficients are summed per block about the block centre
and moved to the neighbour's centre by an exact rotation.  Odd harmonics come from
a rotation recurrence, so each point costs two trigonometric calls, not 2p.

:func:`series_blocks` … :func:`target_sums_serial` sum over all sources in any order
(``boostrank.erfc`` drives the steps); :func:`side_sums_sorted`
gives, on sorted inputs, the sums over the sources below each target and over all
of them.  Both share the blocks, the per-block coefficients and their neighbourhoods.
``kind``: 0 erfc, 1 Gaussian exp(−s²).

:func:`uniform_series_lambdas` puts the same pieces together for the probit λ with the
statistic's own pair weights: every point of a list is both a source and a target, and
each gets the erfc and the Gaussian sums over the other classes in one pass.
"""

import math

import numpy as np
from numba import njit, prange

from .config import ERFC_BATCH, ERFC_CHUNKS, SERIES_FASTMATH, UNIFORM_CHUNKS
from .order import merge_order


@njit(cache=True)
def erfc_sum_direct(y, z, q, kind, side, out):
    """O(NM) reference with Neumaier-compensated sums."""
    for j in range(y.shape[0]):
        total = 0.0
        comp = 0.0
        for i in range(z.shape[0]):
            if side == 1 and not z[i] < y[j]:
                continue
            if side == 2 and z[i] < y[j]:
                continue
            s = y[j] - z[i]
            v = q[i] * (math.erfc(s) if kind == 0 else math.exp(-s * s))
            t = total + v
            if abs(total) >= abs(v):
                comp += (total - t) + v
            else:
                comp += (v - t) + total
            total = t
        out[j] = total + comp


@njit(cache=True)
def harmonics(theta, p, c, s):
    """cos and sin of (2n+1)·theta, n = 0..p-1, by rotation."""
    c1 = math.cos(theta)
    s1 = math.sin(theta)
    c2 = c1 * c1 - s1 * s1
    s2 = 2.0 * s1 * c1
    cn = c1
    sn = s1
    for n in range(p):
        c[n] = cn
        s[n] = sn
        t = cn * c2 - sn * s2
        sn = sn * c2 + cn * s2
        cn = t


@njit(cache=True)
def series_weights(h, p):
    """Weights of harmonic 2n+1 in the erfc series (Raykar eq. 5) and its Gaussian derivative."""
    ae = np.empty(p)
    ag = np.empty(p)
    for n in range(p):
        m = 2.0 * n + 1.0
        ae[n] = (4.0 / math.pi) * math.exp(-m * m * h * h) / m
        ag[n] = (4.0 * h / math.sqrt(math.pi)) * math.exp(-m * m * h * h)
    return ae, ag


@njit(cache=True, fastmath=SERIES_FASTMATH)
def unit_rotations(theta, c, s, c2, s2, m):
    """cos/sin of theta[:m] and of 2·theta[:m] for |theta| < π/4, by polynomials.

    Taylor series to x^17 (error below 1e-17 on |x| ≤ 0.8) in Horner form: unlike
    libm calls they vectorise, and the series angles are bounded by h·L < π/4.
    """
    for b in range(m):
        x = theta[b]
        x2 = x * x
        cb = 1.0 + x2 * (-1.0 / 2 + x2 * (1.0 / 24 + x2 * (-1.0 / 720 + x2 * (1.0 / 40320 + x2 * (
            -1.0 / 3628800 + x2 * (1.0 / 479001600 + x2 * (-1.0 / 87178291200 + x2 * (
                1.0 / 20922789888000))))))))
        sb = x * (1.0 + x2 * (-1.0 / 6 + x2 * (1.0 / 120 + x2 * (-1.0 / 5040 + x2 * (1.0 / 362880 + x2 * (
            -1.0 / 39916800 + x2 * (1.0 / 6227020800 + x2 * (-1.0 / 1307674368000 + x2 * (
                1.0 / 355687428096000)))))))))
        c[b] = cb
        s[b] = sb
        c2[b] = cb * cb - sb * sb
        s2[b] = 2.0 * sb * cb


@njit(cache=True)
def _block_of(x, lo, width, blocks, occ, i):
    """Block (index into the occupied blocks) of point i: computed, or looked up when compressed."""
    if blocks.shape[0]:
        return np.searchsorted(occ, blocks[i])
    return np.int64(math.floor((x[i] - lo) / width))


@njit(cache=True)
def _bucket(x, q, lo, width, blocks, occ, with_perm):
    """Counting sort of points by block: block offsets, x (and q) in that order, the permutation.

    Block numbers are recomputed in the second pass rather than stored: a fresh
    int64 array per call costs more in page faults than the division.
    """
    nb = occ.shape[0]
    n = x.shape[0]
    start = np.zeros(nb + 1, dtype=np.int64)
    for i in range(n):
        start[_block_of(x, lo, width, blocks, occ, i) + 1] += 1
    for k in range(nb):
        start[k + 1] += start[k]
    fill = start[:-1].copy()
    xs = np.empty(n)
    qs = np.empty(q.shape[0])
    perm = np.empty(n if with_perm else 0, dtype=np.int64)
    for i in range(n):
        k = _block_of(x, lo, width, blocks, occ, i)
        j = fill[k]
        fill[k] = j + 1
        xs[j] = x[i]
        if q.shape[0]:
            qs[j] = q[i]
        if with_perm:
            perm[j] = i
    return start, xs, qs, perm


@njit(cache=True)
def _occupied(y, z, lo, width):
    """Occupied block numbers and their centres; block numbers per point only when compressed.

    The dense range when it is small (the usual case: no per-point storage); sorted
    unique ids otherwise (widely spread data must not cost memory in the spread).
    Centres are stored, not recomputed: far from ``lo`` they carry rounding, and
    sources, targets and rotations must all use the same values.
    """
    top = 0
    for i in range(z.shape[0]):
        top = max(top, np.int64(math.floor((z[i] - lo) / width)))
    for j in range(y.shape[0]):
        top = max(top, np.int64(math.floor((y[j] - lo) / width)))
    if top < 4 * (z.shape[0] + y.shape[0]) + 64:
        occ = np.arange(top + 1)
        bz = np.empty(0, dtype=np.int64)
        by = np.empty(0, dtype=np.int64)
    else:
        bz = np.empty(z.shape[0], dtype=np.int64)
        by = np.empty(y.shape[0], dtype=np.int64)
        for i in range(z.shape[0]):
            bz[i] = np.int64(math.floor((z[i] - lo) / width))
        for j in range(y.shape[0]):
            by[j] = np.int64(math.floor((y[j] - lo) / width))
        occ = _sorted_unique(np.concatenate((bz, by)))
    centres = np.empty(occ.shape[0])
    for k in range(occ.shape[0]):
        centres[k] = lo + (occ[k] + 0.5) * width
    return occ, centres, bz, by


@njit(cache=True)
def _sorted_unique(ids):
    """``np.unique`` of block ids (below 2⁴⁰, so exact as float64 keys of the package's one merge sort:
    Numba's ``np.unique`` compiles a quicksort of its own into a first RankNCG fit)."""
    keys = ids.astype(np.float64)
    merge_order(keys)
    out = np.empty(ids.shape[0], dtype=np.int64)
    m = 0
    for i in range(keys.shape[0]):
        v = np.int64(keys[i])
        if m == 0 or v != out[m - 1]:
            out[m] = v
            m += 1
    return out[:m]


@njit(cache=True)
def _batches(start):
    """(block, first point, size) of every batch of at most ERFC_BATCH points within one block."""
    nbat = 0
    for k in range(start.shape[0] - 1):
        nbat += (start[k + 1] - start[k] + ERFC_BATCH - 1) // ERFC_BATCH
    bk = np.empty(nbat, dtype=np.int64)
    b0 = np.empty(nbat, dtype=np.int64)
    bm = np.empty(nbat, dtype=np.int64)
    t = 0
    for k in range(start.shape[0] - 1):
        for first in range(start[k], start[k + 1], ERFC_BATCH):
            bk[t] = k
            b0[t] = first
            bm[t] = min(ERFC_BATCH, start[k + 1] - first)
            t += 1
    return bk, b0, bm


@njit(cache=True)
def _batch_scratch():
    """Six batch-long arrays: θ, cos θ, sin θ, cos 2θ, sin 2θ and one for the caller.

    Separate arrays, not rows of one: the compiler then knows they do not overlap and
    vectorises the rotation loops without run-time overlap checks.
    """
    B = ERFC_BATCH
    return np.empty(B), np.empty(B), np.empty(B), np.empty(B), np.empty(B), np.empty(B)


@njit(cache=True, fastmath=SERIES_FASTMATH, inline="always")
def _batch_rotations(x, bk, b0, bm, t, centres, h, th, c, s, c2, s2):
    """Block, first point and size of batch t, with cos/sin of θ and 2θ, θ = 2h(x − centre), at its points."""
    k = bk[t]
    first = b0[t]
    m = bm[t]
    for b in range(m):
        th[b] = 2.0 * h * (x[first + b] - centres[k])
    unit_rotations(th, c, s, c2, s2, m)
    return k, first, m


@njit(cache=True, parallel=True)
def source_coefficients_parallel(z, q, start, centres, h, p, C, S, QB):
    """C[k, n] += Σ q cos((2n+1)θ), S[k, n] += Σ q sin((2n+1)θ), θ = 2h(z − c_k), per block.

    ``q`` empty: every point weighs 1.  Batches run in parallel, each into its own row of partial sums; the rows are
    then added per block, in batch order, so the thread count does not change the
    sum beyond rounding (:func:`source_coefficients_serial`; the series' reassociated
    loops may vectorise differently where inlined).
    """
    bat = _batches(start)
    part = _partials(bat[0].shape[0], p)
    n_chunks = min(ERFC_CHUNKS, bat[0].shape[0])
    for chunk in prange(n_chunks):
        # int64 as in the serial twin: a prange index is uint64, and a constant a literal type, each of which
        # compiled _source_chunk once more (0.4–0.6 s apiece)
        _source_chunk(z, q, bat, centres, h, p, part, np.int64(chunk), n_chunks)
    _add_partials(bat[0], part, C, S, QB)


@njit(cache=True)
def source_coefficients_serial(z, q, start, centres, h, p, C, S, QB):
    """:func:`source_coefficients_parallel` on one thread (compiled without a parallel loop, which costs a cold
    start its compile)."""
    bat = _batches(start)
    part = _partials(bat[0].shape[0], p)
    n_chunks = min(ERFC_CHUNKS, bat[0].shape[0])
    for chunk in range(n_chunks):
        _source_chunk(z, q, bat, centres, h, p, part, chunk, n_chunks)
    _add_partials(bat[0], part, C, S, QB)


@njit(cache=True)
def _partials(nbat, p):
    """Per-batch partial sums (C, S, Q rows) of :func:`_source_chunk`."""
    return np.zeros((nbat, p)), np.zeros((nbat, p)), np.zeros(nbat)


@njit(cache=True)
def _add_partials(bk, part, C, S, QB):
    """Add each batch's partial sums to its block, in batch order."""
    Cp, Sp, Qp = part
    for t in range(bk.shape[0]):
        k = bk[t]
        QB[k] += Qp[t]
        for n in range(C.shape[1]):
            C[k, n] += Cp[t, n]
            S[k, n] += Sp[t, n]


@njit(cache=True, fastmath=SERIES_FASTMATH)
def _source_chunk(z, q, bat, centres, h, p, part, chunk, n_chunks):
    """The partial sums of batches chunk, chunk + n_chunks, … (see :func:`source_coefficients_parallel`)."""
    bk, b0, bm = bat
    Cp, Sp, Qp = part
    th, c, s, c2, s2, w = _batch_scratch()
    for t in range(chunk, bk.shape[0], n_chunks):
        k, first, m = _batch_rotations(z, bk, b0, bm, t, centres, h, th, c, s, c2, s2)
        qsum = 0.0
        for b in range(m):
            w[b] = q[first + b] if q.shape[0] else 1.0  # no weights: each point counts 1
            qsum += w[b]
        Qp[t] = qsum
        for n in range(p):
            sc = 0.0
            ss = 0.0
            for b in range(m):
                sc += w[b] * c[b]
                ss += w[b] * s[b]
                u = c[b] * c2[b] - s[b] * s2[b]
                s[b] = s[b] * c2[b] + c[b] * s2[b]
                c[b] = u
            Cp[t, n] = sc
            Sp[t, n] = ss


@njit(cache=True, parallel=True)
def target_sums_parallel(y, perm, start, centres, h, p, coef, kind, out):
    """The series at every target of each block from its neighbourhood's weighted coefficients
    ``coef`` = (TC, TS, const) of :func:`series_targets`; batches spread over Numba's threads."""
    bat = _batches(start)
    n_chunks = min(ERFC_CHUNKS, bat[0].shape[0])
    for chunk in prange(n_chunks):
        _target_chunk(y, perm, bat, centres, h, p, coef, kind, out, np.int64(chunk), n_chunks)  # see above


@njit(cache=True)
def target_sums_serial(y, perm, start, centres, h, p, coef, kind, out):
    """:func:`target_sums_parallel` on one thread (the same sums, to rounding)."""
    bat = _batches(start)
    n_chunks = min(ERFC_CHUNKS, bat[0].shape[0])
    for chunk in range(n_chunks):
        _target_chunk(y, perm, bat, centres, h, p, coef, kind, out, chunk, n_chunks)


@njit(cache=True, fastmath=SERIES_FASTMATH)
def _target_chunk(y, perm, bat, centres, h, p, coef, kind, out, chunk, n_chunks):
    """The targets of batches chunk, chunk + n_chunks, … (see :func:`target_sums_parallel`)."""
    bk, b0, bm = bat
    TC, TS, const = coef
    th, c, s, c2, s2, acc = _batch_scratch()
    for t in range(chunk, bk.shape[0], n_chunks):
        k, first, m = _batch_rotations(y, bk, b0, bm, t, centres, h, th, c, s, c2, s2)
        for b in range(m):
            acc[b] = 0.0
        for n in range(p):
            tc = TC[k, n]
            ts = TS[k, n]
            if kind == 0:
                for b in range(m):
                    acc[b] += s[b] * tc - c[b] * ts
                    u = c[b] * c2[b] - s[b] * s2[b]
                    s[b] = s[b] * c2[b] + c[b] * s2[b]
                    c[b] = u
            else:
                for b in range(m):
                    acc[b] += c[b] * tc + s[b] * ts
                    u = c[b] * c2[b] - s[b] * s2[b]
                    s[b] = s[b] * c2[b] + c[b] * s2[b]
                    c[b] = u
        for b in range(m):
            out[perm[first + b]] = const[k] - acc[b] if kind == 0 else acc[b]


@njit(cache=True)
def series_blocks(y, z, q, lo, width):
    """Blocks of the two-sided fast sum: (occupied blocks, centres, source block offsets, sources and
    weights in block order, target block offsets, targets in block order, their permutation).

    The steps of the fast sum (Python drives them so that a small sum never compiles the
    parallel loops): :func:`series_blocks`; the source coefficients
    (:func:`source_coefficients_serial` or :func:`source_coefficients_parallel`), zeroed
    (n_blocks, p), (n_blocks, p), (n_blocks,) arrays; :func:`series_targets`; the target
    sums (:func:`target_sums_serial` or :func:`target_sums_parallel`).  Points are bucketed
    by block (a counting sort, O(N + M)); each block's sources and targets then run
    through the harmonics in batches whose inner loops are element-wise over the batch,
    so they vectorise, with the first harmonic from a polynomial instead of two libm
    calls per point.  ``lo``: lower end of the first block (≤ every y and z); ``width``:
    block width L, at least the cut-off radius.
    """
    occ, centres, bz, by = _occupied(y, z, lo, width)
    zs, z_sorted, q_sorted, _ = _bucket(z, q, lo, width, bz, occ, False)
    ys, y_sorted, _, yp = _bucket(y, q[:0], lo, width, by, occ, True)
    return occ, centres, zs, z_sorted, q_sorted, ys, y_sorted, yp


@njit(cache=True)
def series_targets(C, S, QB, occ, centres, h, p, kind):
    """(TC, TS, const): each block's neighbourhood coefficients weighted by the series (one product
    per harmonic at each target) and the constant of the blocks wholly above and its own weight.

    ``h``, ``p``: series step and truncation (harmonics 2n+1 for n < p, valid for |s| < 2L).
    """
    nb = occ.shape[0]
    ae, ag = series_weights(h, p)
    LC, LS, LQ, UC, US, UQ, FQ = _neighbours(C, S, QB, occ, centres, h, p)
    a = ae if kind == 0 else ag
    # loops, not array expressions: each of those compiled a kernel of its own (0.3 s apiece, cold)
    TC = np.empty((nb, p))
    TS = np.empty((nb, p))
    const = np.empty(nb)
    for k in range(nb):
        for n in range(p):
            TC[k, n] = (C[k, n] + UC[k, n] + LC[k, n]) * a[n]
            TS[k, n] = (S[k, n] + US[k, n] + LS[k, n]) * a[n]
        const[k] = 2.0 * FQ[k] + QB[k] + UQ[k] + LQ[k]
    return TC, TS, const


@njit(cache=True)
def _neighbours(C, S, QB, occ, centres, h, p):
    """Per block: the series coefficients and weight of the adjacent occupied blocks below
    (LC, LS, LQ) and above (UC, US, UQ), rotated to its centre, and FQ, the weight of the
    blocks two or more above (where erfc(y − z) is 2 within ε).  Rotations are exact:
    by (2n+1)·2h·(c_{k±1} − c_k)."""
    nb = occ.shape[0]
    LC = np.zeros((nb, p))
    LS = np.zeros((nb, p))
    UC = np.zeros((nb, p))
    US = np.zeros((nb, p))
    LQ = np.zeros(nb)
    UQ = np.zeros(nb)
    FQ = np.zeros(nb)
    far = np.zeros(nb + 1)
    for k in range(nb - 1, -1, -1):
        far[k] = far[k + 1] + QB[k]
    rc = np.empty(p)
    rs = np.empty(p)
    for k in range(nb):
        has_above = k + 1 < nb and occ[k + 1] == occ[k] + 1
        FQ[k] = far[k + 2 if has_above else k + 1]
        if has_above:
            UQ[k] = QB[k + 1]
            harmonics(2.0 * h * (centres[k + 1] - centres[k]), p, rc, rs)
            for n in range(p):
                UC[k, n] = C[k + 1, n] * rc[n] - S[k + 1, n] * rs[n]
                US[k, n] = S[k + 1, n] * rc[n] + C[k + 1, n] * rs[n]
        if k > 0 and occ[k - 1] == occ[k] - 1:
            LQ[k] = QB[k - 1]
            harmonics(2.0 * h * (centres[k] - centres[k - 1]), p, rc, rs)
            for n in range(p):
                LC[k, n] = C[k - 1, n] * rc[n] + S[k - 1, n] * rs[n]
                LS[k, n] = S[k - 1, n] * rc[n] - C[k - 1, n] * rs[n]
    return LC, LS, LQ, UC, US, UQ, FQ


@njit(cache=True)
def side_sums_sorted(y, z, q, lo, width, h, p, kind, below, total):
    """One-sided sums: ``below[j]`` over the sources z_i < y_j, ``total[j]`` over all.

    ``y`` (targets) and ``z`` (sources) sorted ascending; the rest as in
    :func:`series_blocks`, whose blocks, coefficients and neighbourhoods this shares.
    Within a block the sources below each target are added to running coefficients
    as the targets ascend; the block below is wholly below, the blocks above not at all.
    """
    if y.shape[0] == 0:
        return
    occ, centres, bz, by = _occupied(y, z, lo, width)
    nb = occ.shape[0]
    zs, _, _, _ = _bucket(z, q[:0], lo, width, bz, occ, False)  # sorted: only the block offsets
    ys, _, _, _ = _bucket(y, q[:0], lo, width, by, occ, False)
    C = np.zeros((nb, p))
    S = np.zeros((nb, p))
    QB = np.zeros(nb)
    source_coefficients_parallel(z, q, zs, centres, h, p, C, S, QB)
    LC, LS, LQ, UC, US, UQ, FQ = _neighbours(C, S, QB, occ, centres, h, p)
    ae, ag = series_weights(h, p)
    a = ae if kind == 0 else ag
    RC = np.empty(p)
    RS = np.empty(p)
    cn = np.empty(p)
    sn = np.empty(p)
    for k in range(nb):
        RC[:] = 0.0
        RS[:] = 0.0
        rq = 0.0
        i = zs[k]
        for j in range(ys[k], ys[k + 1]):
            while i < zs[k + 1] and z[i] < y[j]:
                harmonics(2.0 * h * (z[i] - centres[k]), p, cn, sn)
                rq += q[i]
                for n in range(p):
                    RC[n] += q[i] * cn[n]
                    RS[n] += q[i] * sn[n]
                i += 1
            harmonics(2.0 * h * (y[j] - centres[k]), p, cn, sn)
            sb = 0.0
            st = 0.0
            for n in range(p):
                bc = LC[k, n] + RC[n]
                bs = LS[k, n] + RS[n]
                tc = LC[k, n] + C[k, n] + UC[k, n]
                ts = LS[k, n] + S[k, n] + US[k, n]
                if kind == 0:
                    sb += a[n] * (sn[n] * bc - cn[n] * bs)
                    st += a[n] * (sn[n] * tc - cn[n] * ts)
                else:
                    sb += a[n] * (cn[n] * bc + sn[n] * bs)
                    st += a[n] * (cn[n] * tc + sn[n] * ts)
            if kind == 0:
                below[j] = LQ[k] + rq - sb
                total[j] = 2.0 * FQ[k] + LQ[k] + QB[k] + UQ[k] - st
            else:
                below[j] = sb
                total[j] = st


# ----------------------------------------------------------------- the probit λ with uniform pair weights
# For a list with classes c, pair weights w_ce = |ω_c − ω_e| (MAUC's class weights; 0/1 labels: 1/(mn))
# and t = ασs, the λ and hessian of a document i of class c are
#
#     grad_i = σ Σ_{e > c} w_ce n_e − σ/2 Σ_{e ≠ c} w_ce E_e(t_i),     E_e(y) = Σ_{j ∈ e} erfc(y − t_j)
#     hess_i = σ² α/√π Σ_{e ≠ c} w_ce G_e(t_i),                       G_e(y) = Σ_{j ∈ e} exp(−(y − t_j)²)
#
# (a higher-class partner's erfc(t_j − t_i) is 2 − erfc(t_i − t_j)): the gradient of the erfc-smoothed
# WMW statistic, Raykar et al.'s objective, with no position weights.  The points are counting-sorted
# by (block, class), each group's coefficients summed once, combined per target class with the weights
# w_ce and moved to the neighbouring blocks as in series_targets; each target evaluates the erfc and the
# Gaussian series from the same harmonics.


@njit(cache=True)
def _group_by_block_and_class(t, cls, n_cls, lo, width):
    """Counting sort of the points by (block, class).

    Returns the occupied blocks' centres, the offsets of the groups ``k·n_cls + c``,
    ``t`` in group order and the permutation (group order → row).
    """
    occ, centres, _, by = _occupied(t, t[:0], lo, width)
    n = t.shape[0]
    start = np.zeros(occ.shape[0] * n_cls + 1, dtype=np.int64)
    for i in range(n):
        start[_block_of(t, lo, width, by, occ, i) * n_cls + cls[i] + 1] += 1
    for g in range(start.shape[0] - 1):
        start[g + 1] += start[g]
    fill = start[:-1].copy()
    ts = np.empty(n)
    perm = np.empty(n, dtype=np.int64)
    for i in range(n):
        g = _block_of(t, lo, width, by, occ, i) * n_cls + cls[i]
        j = fill[g]
        fill[g] = j + 1
        ts[j] = t[i]
        perm[j] = i
    return occ, centres, start, ts, perm


@njit(cache=True, parallel=True)
def _group_dense(s, a, cls, n_cls, width, ts, perm):
    """:func:`_group_by_block_and_class` of t = a·s on the dense block range, in parallel chunks of rows.

    Each chunk counts its rows per group, then writes them at its own offsets in the
    group: the same stable order as the serial counting sort.  ``ts`` and ``perm`` (at
    least as long as ``s``) receive t in group order and the permutation.  Returns (ok,
    occupied blocks, centres, group offsets); ``ok`` is False (and the arrays empty) when
    t has NaN/inf or spans more blocks than a dense range holds.
    """
    n = s.shape[0]
    nch = UNIFORM_CHUNKS
    step = (n + nch - 1) // nch
    lo = math.inf
    hi = -math.inf
    ok = True
    for i in range(n):  # one thread: in parallel it saved 0.5 ms at 10⁶ rows for 0.5 s more of compiling
        x = a * s[i]
        ok = ok and abs(x) < math.inf  # NaN fails this too
        lo = min(lo, x)
        hi = max(hi, x)
    ok = ok and hi - lo < 2.0**40 * width
    nb = 0
    if ok:
        lo = math.floor(lo / width) * width  # a grid through a multiple of the width: stable centres
        nb = np.int64(math.floor((hi - lo) / width)) + 1
        ok = nb <= 4 * n + 64
    if not ok:  # one exit (Numba's parallel analysis takes no early return of another type)
        nb = 0
        n = 0
        step = 0
    ng = nb * n_cls
    counts = np.zeros((nch, ng + 1), dtype=np.int64)
    for ch in prange(nch):
        for i in range(ch * step, min(n, (ch + 1) * step)):
            counts[ch, np.int64(math.floor((a * s[i] - lo) / width)) * n_cls + cls[i] + 1] += 1
    start = np.zeros(ng + 1, dtype=np.int64)
    fill = np.empty((nch, ng), dtype=np.int64)
    for g in range(ng):
        at = start[g]
        for ch in range(nch):
            fill[ch, g] = at
            at += counts[ch, g + 1]
        start[g + 1] = at
    for ch in prange(nch):
        for i in range(ch * step, min(n, (ch + 1) * step)):
            x = a * s[i]
            g = np.int64(math.floor((x - lo) / width)) * n_cls + cls[i]
            j = fill[ch, g]
            fill[ch, g] = j + 1
            ts[j] = x
            perm[j] = i
    centres = np.empty(nb)
    for k in range(nb):
        centres[k] = lo + (k + 0.5) * width
    return ok, np.arange(nb), centres, start


@njit(cache=True)
def _target_coefficients(C, S, Q, wmat, occ, centres, h, p):
    """Per target class c and block: the neighbourhood's coefficients Σ_e w_ce (sources of class e)
    and the constant of the erfc sum (twice the weight two or more blocks above, plus the
    neighbourhood's weight), as :func:`series_targets` forms them for one class of sources."""
    n_cls = wmat.shape[0]
    nb = occ.shape[0]
    TC = np.zeros((n_cls * nb, p))
    TS = np.zeros((n_cls * nb, p))
    const = np.zeros(n_cls * nb)
    for c in range(n_cls):
        Cc = np.zeros((nb, p))
        Sc = np.zeros((nb, p))
        Qc = np.zeros(nb)
        for k in range(nb):
            for e in range(n_cls):
                w = wmat[c, e]
                if w == 0.0:
                    continue
                Qc[k] += w * Q[k * n_cls + e]
                for m in range(p):
                    Cc[k, m] += w * C[k * n_cls + e, m]
                    Sc[k, m] += w * S[k * n_cls + e, m]
        LC, LS, LQ, UC, US, UQ, FQ = _neighbours(Cc, Sc, Qc, occ, centres, h, p)
        for k in range(nb):
            g = k * n_cls + c
            const[g] = 2.0 * FQ[k] + Qc[k] + UQ[k] + LQ[k]
            for m in range(p):
                TC[g, m] = Cc[k, m] + UC[k, m] + LC[k, m]
                TS[g, m] = Sc[k, m] + US[k, m] + LS[k, m]
    return TC, TS, const


@njit(cache=True, parallel=True, fastmath=SERIES_FASTMATH)
def _uniform_eval(ts, perm, start, gcentres, h, p, targets, series, up, factors, out):
    """grad = lam·(up_c − E/2) and hess = hc·G at every point (E = const − erfc series, G = Gaussian series),
    both from one set of harmonics (``series`` = their weights (ae, ag)), written through the permutation
    into ``out`` = (grad, hess) of either float width; ``factors`` = (lam, hc).  Each batch lies in one
    (block, class) group, whose coefficients ``targets`` = (TC, TS, const) it reads."""
    TC, TS, const = targets
    ae, ag = series
    lam, hc = factors
    grad, hess = out
    n_cls = up.shape[0]
    bk, b0, bm = _batches(start)
    nbat = bk.shape[0]
    n_chunks = min(ERFC_CHUNKS, nbat)
    for chunk in prange(n_chunks):
        th, c, s, c2, s2, acc_e = _batch_scratch()
        acc_g = np.empty(acc_e.shape[0])
        for t in range(chunk, nbat, n_chunks):
            g, first, m = _batch_rotations(ts, bk, b0, bm, t, gcentres, h, th, c, s, c2, s2)
            for b in range(m):
                acc_e[b] = 0.0
                acc_g[b] = 0.0
            for n in range(p):
                tc = TC[g, n]
                ts_ = TS[g, n]
                we = ae[n]
                wg = ag[n]
                for b in range(m):
                    acc_e[b] += we * (s[b] * tc - c[b] * ts_)
                    acc_g[b] += wg * (c[b] * tc + s[b] * ts_)
                    u = c[b] * c2[b] - s[b] * s2[b]
                    s[b] = s[b] * c2[b] + c[b] * s2[b]
                    c[b] = u
            base = lam * (up[g % n_cls] - 0.5 * const[g])
            half = 0.5 * lam
            for b in range(m):
                i = perm[first + b]
                grad[i] = base + half * acc_e[b]
                hess[i] = hc * acc_g[b]


@njit(cache=True)
def uniform_series_lambdas(s, a, cls, wmat, width, h, p, factors, out, work):
    """λ and hessian of one list with the statistic's own pair weights (comment above; Raykar §5).

    Parameters
    ----------
    s : ndarray of float64, shape (n,)
        Scores; the series runs on t = a·s.
    a : float
        ασ (positive).
    cls : ndarray of int32, shape (n,)
        Class ids 0 … C−1 (the list's grades in increasing order).
    wmat : ndarray of float64, shape (C, C)
        Pair weights |ω_c − ω_e| (zero on the diagonal).
    width, h, p : float, float, int
        Block width (the cut-off radius), series step and harmonics
        (:func:`boostrank.erfc.joint_parameters`).
    factors : (float, float)
        σ and the hessian's factor σ²α/√π, each times any constant the caller scales the λs by.
    out : (ndarray, ndarray) of float64 or float32, shape (n,)
        grad and hess, written in place (float32 receives the float64 sums rounded).
    work : (ndarray of float64, ndarray of int64), each of at least n
        The rows' t in group order and their permutation (kept by the caller: arrays
        allocated here would page-fault on every call).

    Returns
    -------
    bool
        False when the scores hold NaN/inf or span too many blocks for the series (nothing written).
    """
    n = s.shape[0]
    n_cls = wmat.shape[0]
    if n == 0:
        return True
    ts, perm = work
    ok, occ, centres, start = _group_dense(s, a, cls, n_cls, width, ts, perm)
    if not ok:  # widely spread (or non-finite) scores: the serial sort over occupied blocks only
        t = np.empty(n)
        lo = math.inf
        hi = -math.inf
        for i in range(n):
            t[i] = a * s[i]
            lo = min(lo, t[i])
            hi = max(hi, t[i])
        if not (hi - lo < 2.0**40 * width):
            return False
        lo = math.floor(lo / width) * width
        occ, centres, start, ts, perm = _group_by_block_and_class(t, cls, n_cls, lo, width)
    nb = occ.shape[0]
    gcentres = np.empty(nb * n_cls)
    for k in range(nb):
        for c in range(n_cls):
            gcentres[k * n_cls + c] = centres[k]
    C = np.zeros((nb * n_cls, p))
    S = np.zeros((nb * n_cls, p))
    Q = np.zeros(nb * n_cls)
    source_coefficients_parallel(ts, ts[:0], start, gcentres, h, p, C, S, Q)
    targets = _target_coefficients(C, S, Q, wmat, occ, centres, h, p)
    ae, ag = series_weights(h, p)
    counts = np.zeros(n_cls)
    for g in range(nb * n_cls):
        counts[g % n_cls] += start[g + 1] - start[g]
    up = np.zeros(n_cls)  # Σ_{e > c} w_ce n_e: each higher-class partner's 2 of erfc(−x) = 2 − erfc(x)
    for c in range(n_cls):
        for e in range(c + 1, n_cls):
            up[c] += wmat[c, e] * counts[e]
    _uniform_eval(ts, perm, start, gcentres, h, p, targets, (ae, ag), up, factors, out)
    return True
