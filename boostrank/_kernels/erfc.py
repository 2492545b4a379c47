"""Weighted sums of erfc and Gaussian kernels: direct O(NM) and ε-exact O(p(N + M)).

E(y) = Σ_i q_i erfc(y − z_i) and G(y) = Σ_i q_i exp(−(y − z_i)²), evaluated at every
target y_j (Raykar et al. §5).  The fast kernel cuts the line into blocks of width L
(the cut-off radius).  For a target in block k, sources in blocks ≥ k + 2 are more
than L above it (erfc = 2 within ε), sources in blocks ≤ k − 2 more than L below
(erfc = 0); sources in blocks k − 1..k + 1 go through Beaulieu's Fourier series
(Raykar eqs. 5–10), whose coefficients are summed per block about the block centre
and moved to the neighbour's centre by an exact rotation.  Odd harmonics come from
a rotation recurrence, so each point costs two trigonometric calls, not 2p.

:func:`erfc_sum_fast` sums over all sources in any order; :func:`side_sums_sorted`
gives, on sorted inputs, the sums over the sources below each target and over all
of them, for both kernels and several weight rows in one pass.
``kind``: 0 erfc, 1 Gaussian exp(−s²).
"""

import math

import numpy as np
from numba import njit

#: Raykar's probit link: the logistic σ(u) ≈ 1 − ½ erfc(ERFC_ALPHA · u), α = √3/(√2 π)
#: (Raykar eq. 3; the erfc with the logistic's slope and variance matched).
ERFC_ALPHA = math.sqrt(3.0) / (math.sqrt(2.0) * math.pi)


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
def _blocks(y, z, lo, width):
    """Block of every source and target, the occupied block numbers and their centres.

    Occupied blocks are compressed: the dense range when it is small, sorted unique
    ids otherwise (widely spread data must not cost memory in the spread).  Centres
    are stored, not recomputed: far from ``lo`` they carry rounding, and sources,
    targets and rotations must all use the same values.
    """
    n_src = z.shape[0]
    n_tgt = y.shape[0]
    bz = np.empty(n_src, dtype=np.int64)
    by = np.empty(n_tgt, dtype=np.int64)
    top = 0
    for i in range(n_src):
        bz[i] = np.int64(math.floor((z[i] - lo) / width))
        top = max(top, bz[i])
    for j in range(n_tgt):
        by[j] = np.int64(math.floor((y[j] - lo) / width))
        top = max(top, by[j])
    if top < 4 * (n_src + n_tgt) + 64:
        occ = np.arange(top + 1)
        kz = bz
        ky = by
    else:
        occ = np.unique(np.concatenate((bz, by)))
        kz = np.searchsorted(occ, bz)
        ky = np.searchsorted(occ, by)
    centres = np.empty(occ.shape[0])
    for k in range(occ.shape[0]):
        centres[k] = lo + (occ[k] + 0.5) * width
    return kz, ky, occ, centres


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


@njit(cache=True)
def _block_series(z, Q, kz, occ, centres, h, p):
    """Series coefficients of every block and of its neighbours, rotated to its centre.

    Returns C, S, QB (own block), LC, LS, LQ (block below), UC, US, UQ (block above),
    all (nb, k, p) or (nb, k), and FQ (nb, k): the weight of the blocks two or more
    above, where erfc(y − z) is 2 within ε.
    """
    nb = occ.shape[0]
    k_w = Q.shape[0]
    C = np.zeros((nb, k_w, p))
    S = np.zeros((nb, k_w, p))
    QB = np.zeros((nb, k_w))
    cn = np.empty(p)
    sn = np.empty(p)
    for i in range(z.shape[0]):
        k = kz[i]
        harmonics(2.0 * h * (z[i] - centres[k]), p, cn, sn)
        for c in range(k_w):
            w = Q[c, i]
            QB[k, c] += w
            for n in range(p):
                C[k, c, n] += w * cn[n]
                S[k, c, n] += w * sn[n]
    far = np.zeros((nb + 1, k_w))
    for k in range(nb - 1, -1, -1):
        for c in range(k_w):
            far[k, c] = far[k + 1, c] + QB[k, c]
    LC = np.zeros((nb, k_w, p))
    LS = np.zeros((nb, k_w, p))
    UC = np.zeros((nb, k_w, p))
    US = np.zeros((nb, k_w, p))
    LQ = np.zeros((nb, k_w))
    UQ = np.zeros((nb, k_w))
    FQ = np.zeros((nb, k_w))
    rc = np.empty(p)
    rs = np.empty(p)
    for k in range(nb):
        has_below = k > 0 and occ[k - 1] == occ[k] - 1
        has_above = k + 1 < nb and occ[k + 1] == occ[k] + 1
        upper = k + 2 if has_above else k + 1
        for c in range(k_w):
            FQ[k, c] = far[upper, c]
        if has_above:  # exact rotation by (2n+1)·2h·(c_{k+1} − c_k)
            harmonics(2.0 * h * (centres[k + 1] - centres[k]), p, rc, rs)
            for c in range(k_w):
                UQ[k, c] = QB[k + 1, c]
                for n in range(p):
                    UC[k, c, n] = C[k + 1, c, n] * rc[n] - S[k + 1, c, n] * rs[n]
                    US[k, c, n] = S[k + 1, c, n] * rc[n] + C[k + 1, c, n] * rs[n]
        if has_below:
            harmonics(2.0 * h * (centres[k] - centres[k - 1]), p, rc, rs)
            for c in range(k_w):
                LQ[k, c] = QB[k - 1, c]
                for n in range(p):
                    LC[k, c, n] = C[k - 1, c, n] * rc[n] + S[k - 1, c, n] * rs[n]
                    LS[k, c, n] = S[k - 1, c, n] * rc[n] - C[k - 1, c, n] * rs[n]
    return C, S, QB, LC, LS, LQ, UC, US, UQ, FQ


@njit(cache=True)
def erfc_sum_fast(y, z, q, lo, width, h, p, kind, out):
    """Two-sided blocked Fourier-series sum over all sources; see the module docstring.

    Parameters
    ----------
    lo : float
        Lower end of the first block (≤ every y and z).
    width : float
        Block width L, at least the cut-off radius.
    h, p : float, int
        Series step and truncation: harmonics 2n+1 for n < p, valid for |s| < 2L.
    """
    if y.shape[0] == 0:
        return
    kz, ky, occ, centres = _blocks(y, z, lo, width)
    Q = q.reshape(1, -1)
    C, S, QB, LC, LS, LQ, UC, US, UQ, FQ = _block_series(z, Q, kz, occ, centres, h, p)
    ae, ag = series_weights(h, p)
    a = ae if kind == 0 else ag
    # neighbourhood totals per block, weighted by the series: one product per harmonic
    nb = occ.shape[0]
    TC = np.empty((nb, p))
    TS = np.empty((nb, p))
    const = np.empty(nb)
    for k in range(nb):
        const[k] = 2.0 * FQ[k, 0] + LQ[k, 0] + QB[k, 0] + UQ[k, 0]
        for n in range(p):
            TC[k, n] = a[n] * (LC[k, 0, n] + C[k, 0, n] + UC[k, 0, n])
            TS[k, n] = a[n] * (LS[k, 0, n] + S[k, 0, n] + US[k, 0, n])
    cy = np.empty(p)
    sy = np.empty(p)
    for j in range(y.shape[0]):
        k = ky[j]
        harmonics(2.0 * h * (y[j] - centres[k]), p, cy, sy)
        acc = 0.0
        if kind == 0:
            for n in range(p):
                acc += sy[n] * TC[k, n] - cy[n] * TS[k, n]
            out[j] = const[k] - acc
        else:
            for n in range(p):
                acc += cy[n] * TC[k, n] + sy[n] * TS[k, n]
            out[j] = acc


@njit(cache=True)
def side_sums_sorted(y, z, Q, lo, width, h, p, e_below, g_below, e_total, g_total):
    """Fused one-sided erfc and Gaussian sums for several weight vectors at once.

    ``y`` (targets) and ``z`` (sources) sorted ascending; ``Q`` (k, N) weight rows.
    For every target j and weight row c:

        e_below[c, j] = Σ_{z_i below y_j} Q[c, i] erfc(y_j − z_i)
        g_below[c, j] = Σ_{z_i below y_j} Q[c, i] exp(−(y_j − z_i)²)
        e_total, g_total: the same over all sources,

    where "below" is z_i < y_j.  One set of series
    parameters (h, p, block width) valid for both kernels; the rest as in
    :func:`erfc_sum_fast`.
    """
    n_src = z.shape[0]
    n_tgt = y.shape[0]
    k_w = Q.shape[0]
    if n_tgt == 0:
        return
    kz, ky, occ, centres = _blocks(y, z, lo, width)
    C, S, QB, LC, LS, LQ, UC, US, UQ, FQ = _block_series(z, Q, kz, occ, centres, h, p)
    ae, ag = series_weights(h, p)
    cn = np.empty(p)
    sn = np.empty(p)
    RC = np.zeros((k_w, p))
    RS = np.zeros((k_w, p))
    rq = np.zeros(k_w)
    cy = np.empty(p)
    sy = np.empty(p)
    cur = -1
    i = 0
    for j in range(n_tgt):
        k = ky[j]
        if k != cur:
            cur = k
            for c in range(k_w):
                rq[c] = 0.0
                for n in range(p):
                    RC[c, n] = 0.0
                    RS[c, n] = 0.0
            while i < n_src and kz[i] < k:
                i += 1
        centre = centres[k]
        while i < n_src and kz[i] == k and z[i] < y[j]:
            harmonics(2.0 * h * (z[i] - centre), p, cn, sn)
            for c in range(k_w):
                rq[c] += Q[c, i]
                for n in range(p):
                    RC[c, n] += Q[c, i] * cn[n]
                    RS[c, n] += Q[c, i] * sn[n]
            i += 1
        harmonics(2.0 * h * (y[j] - centre), p, cy, sy)
        for c in range(k_w):
            eb = 0.0
            gb = 0.0
            et = 0.0
            gt = 0.0
            for n in range(p):
                bc = LC[k, c, n] + RC[c, n]
                bs = LS[k, c, n] + RS[c, n]
                tc = bc + (C[k, c, n] - RC[c, n]) + UC[k, c, n]
                ts = bs + (S[k, c, n] - RS[c, n]) + US[k, c, n]
                eb += ae[n] * (sy[n] * bc - cy[n] * bs)
                gb += ag[n] * (cy[n] * bc + sy[n] * bs)
                et += ae[n] * (sy[n] * tc - cy[n] * ts)
                gt += ag[n] * (cy[n] * tc + sy[n] * ts)
            qb = LQ[k, c] + rq[c]
            e_below[c, j] = qb - eb
            g_below[c, j] = gb
            e_total[c, j] = 2.0 * FQ[k, c] + LQ[k, c] + QB[k, c] + UQ[k, c] - et
            g_total[c, j] = gt
