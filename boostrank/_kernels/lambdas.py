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

from .config import ANCHOR_BATCH, EXP_FASTMATH, NORM_QUERY, NORM_SCORE_GAP, PAIR_SUM_FASTMATH, VECTOR_MIN_RUN
from .link import probit_rho_slope
from .metrics import mauc_class_weights
from .order import merge_order, pessimistic_order, pessimistic_reorder


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


def lambda_auc_tables(labels, offsets):
    """Each query's class buckets and MAUC class weights, for :func:`lambda_auc_kernel`.

    They depend on the labels only, so an objective computes them once per data set
    (counting labels row by row is a chain of dependent stores, a seventh of the kernel
    on MQ2008).  Counted and weighted in NumPy, the same float64 operations as
    :func:`~boostrank._kernels.metrics.mauc_class_weights` (equal to the bit, tested): it
    runs once per fit, and a kernel here would cost a first λ-AUC round its compile
    (MEASUREMENTS.md, "first compile").

    Returns
    -------
    start : ndarray of int64, shape (n_groups, C + 1)
        Query g's documents of class c sit at local slots ``start[g, c]:start[g, c + 1]``
        of the bucketed layout; C = max label + 1.
    weights : ndarray of float64, shape (n_groups, C)
        ω of :func:`~boostrank._kernels.metrics.mauc_class_weights` (0/1 labels:
        ω_1 = 1 / (m n)).
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    n_groups = offsets.shape[0] - 1
    n_cls = int(labels.max()) + 1 if labels.shape[0] else 1
    sizes = np.diff(offsets)
    query = np.repeat(np.arange(n_groups, dtype=np.int64), sizes)
    counts = np.bincount(query * n_cls + labels, minlength=n_groups * n_cls).reshape(n_groups, n_cls)
    start = np.zeros((n_groups, n_cls + 1), dtype=np.int64)
    np.cumsum(counts, axis=1, out=start[:, 1:])
    n = sizes.astype(np.float64)[:, None]
    c = counts.astype(np.float64)
    n_rel = n - c[:, :1]
    present = (c > 0.0) & (c < n) & (n_rel > 0.0)
    present[:, 0] = False  # class 0 is never a reference class
    weights = np.zeros(c.shape)
    np.divide(1.0, n_rel * (n - c), out=weights, where=present)
    return start, weights


_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_LOG2E = 1.4426950408889634


@njit(cache=True, fastmath=EXP_FASTMATH)
def exp_nonpositive(x, out, scratch1, scratch2):
    """out = exp(x) for x ≤ 0, in loops the compiler vectorises (libm's exp does not).

    Cody–Waite reduction x = k ln2 + r, |r| ≤ ln2/2, a degree-13 Taylor polynomial
    (truncation below 2e-18 relative) and 2^k as two exact powers of two built from
    their bits, so results down to the subnormal range round once: within 1 ulp of
    NumPy's exp for x ≥ −708 in 40 000 draws (the test allows 2), 0 below −745.2.
    It vectorises where libm's exp does not (benchmarks/MEASUREMENTS.md, "exp").

    Parameters
    ----------
    x, out : ndarray of float64, shape (n,)
        Distinct arrays: in place, the compiler's overlap check fails and the loop
        runs scalar.
    scratch1, scratch2 : ndarray of float64, shape (≥ n,), contiguous
    """
    n = x.shape[0]
    f1 = scratch1[:n]
    f2 = scratch2[:n]
    s1 = f1.view(np.int64)
    s2 = f2.view(np.int64)
    for i in range(n):
        v = max(x[i], -745.5)
        k = math.floor(v * _LOG2E + 0.5)
        r = (v - k * _LN2_HI) - k * _LN2_LO
        p = 1.0 + r * (1.0 + r * (1.0 / 2 + r * (1.0 / 6 + r * (1.0 / 24 + r * (
            1.0 / 120 + r * (1.0 / 720 + r * (1.0 / 5040 + r * (1.0 / 40320 + r * (
                1.0 / 362880 + r * (1.0 / 3628800 + r * (1.0 / 39916800 + r * (
                    1.0 / 479001600 + r * (1.0 / 6227020800)))))))))))))
        ki = np.int64(k)
        k1 = ki >> 1
        s1[i] = (k1 + 1023) << 52
        s2[i] = (ki - k1 + 1023) << 52
        out[i] = p
    for i in range(n):
        out[i] = out[i] * f1[i] * f2[i]


@njit(cache=True)
def lambda_auc_kernel(scores, labels, offsets, setting, tables, grad, hess, scratch, queries, factors):
    """λ-MAUC gradients (Welleck eqs. 18–19); λ-AUC is the case of 0/1 labels.

    On the pessimistic score order of each query, swapping the documents at
    positions i and j changes MAUC by (j − i)(ω_{l_j} − ω_{l_i}) (Theorem 4.1 per
    class, summed with eq. 18), ω from :func:`mauc_class_weights`; with 0/1 labels
    ω_1 = 1 / (m n) and this is ΔAUC_ij = (l_j − l_i)(j − i)/(mn).  The λ of a pair
    uses |ΔMAUC| and the sign S_ij of the label order.  With ``setting.uniform`` the
    pair weight is the statistic's own |ω_{l_i} − ω_{l_j}| instead (MAUC = Σ ω over
    correctly ordered pairs, so this is the exact gradient of its logistic smoothing,
    the RankNet cost with AUC's pair weights).

    With ``setting.stride`` k > 1 each document of the higher class meets every k-th
    partner of each lower class, from an offset drawn per (document, class, call) from
    ``setting.seed`` (:func:`pair_offset`), and those pairs weigh k times as much: an
    unbiased estimate of the full λ with 1/k of the pair work (stochastic λ, as
    XGBoost's ``lambdarank_pair_method="mean"`` samples partners).

    Documents are bucketed by label (in position order; under stride k, by rank mod k
    first, so the partners a document meets are one run) so each pair of classes is a
    dense double loop, and ρ = E_l / (E_l + E_h) with E = exp(σ (s − s_max)) costs one
    division per pair instead of an exp; a query where some E could underflow takes
    the direct formula for those pairs.

    ``setting.norm`` applies the parts of LightGBM's ``lambdarank_norm`` whose bits it
    holds to the swap weight, as LightGBM does to ΔNDCG: ``NORM_SCORE_GAP`` divides
    |ΔM_hl| by 0.01 + |s_h − s_l| unless all of the query's scores are equal;
    ``NORM_QUERY`` rescales the query's λs and hessians by log2(1 + Σλ) / Σλ (Σλ
    counting each pair twice, as LightGBM does).

    Parameters
    ----------
    scores : ndarray of float64, shape (n,)
    labels : ndarray of int64, shape (n,)
        Non-negative grades (0/1 for AUC).
    offsets : ndarray of int64, shape (n_groups + 1,)
    setting : LambdaSetting
        σ, ``norm``, ``uniform``, ``stride`` and ``seed`` (:mod:`.config`).
    tables : (start, weights)
        :func:`lambda_auc_tables` of ``labels`` and ``offsets``, or graded weights.
    grad, hess : ndarray of float64, shape (n,)
        Written in place.
    scratch : (order, doc, work)
        Kept by the caller between calls:

    order : ndarray of int64, shape (n,)
        In: any permutation of ``0..b-a-1`` in each query's rows ``a:b`` (the last
        call's order, or the identity).  Out: the query's pessimistic order.  Boosting
        moves scores a little per round, so the last order is nearly sorted and
        re-sorting it costs O(n + moves) (:func:`pessimistic_reorder`).
    doc : ndarray of int64, shape (n,)
    work : ndarray of float64, shape (6, n)
        Scratch, reused across calls: allocating it cost more than the pairs of a
        20-document query.

    queries : (g0, g1)
        The queries g0 … g1 − 1 to compute (0, n_groups: all); only their rows of the
        arrays are read or written.
    factors : (upper, lower)
        Per-row pair factors, float64 of shape (n,), or both of shape (0,) for none: a pair
        (h, l) with h of the higher class weighs ``upper[h] * lower[l]`` times its λ and
        hessian (inverse examination propensities of clicked documents, and how likely an
        unclicked one is irrelevant: :mod:`boostrank.objectives.clicks`).  ``work`` then
        needs 8 rows.

    One thread; :func:`lambda_auc_kernel_parallel` spreads the queries over Numba's.
    """
    g0, g1 = queries
    start, weights = tables
    order, doc, work = scratch
    sigma = setting.sigma
    norm = setting.norm
    pos, ex, sc, acc_g, acc_h, arg = work[0], work[1], work[2], work[3], work[4], work[5]
    upper, lower = factors
    weighted = upper.shape[0] > 0
    f_up = work[6] if weighted else work[0]  # the factors in the bucketed layout (unused without them)
    f_lo = work[7] if weighted else work[0]
    fl = np.empty(weights.shape[1], dtype=np.int64)
    step = max(setting.stride, 1)
    # three passes: order and bucket each query; every exp in one vectorised loop (per
    # query, the loop's set-up cost more than its 20 exps); the pairs of each query
    for g in range(g0, g1):
        a = offsets[g]
        b = offsets[g + 1]
        n = b - a
        if _single_label(start[g], n):  # every |ΔMAUC| is 0
            for i in range(a, b):
                grad[i] = 0.0
                hess[i] = 0.0
                arg[i] = 0.0
            continue
        st = start[g]
        top = _top_class(st)
        pessimistic_reorder(scores, labels, a, b, order)
        # bucket documents by label, each bucket in position order (under stride k, by rank mod k first: the
        # partners a document meets, every k-th from an offset, then sit in one run)
        if step > 1:
            for c in range(top + 1):
                fl[c] = 0  # the class's rows so far
            for r in range(n):
                d = a + order[a + r]
                c = labels[d]
                cnt = fl[c]
                fl[c] = cnt + 1
                m = st[c + 1] - st[c]
                # rank cnt is row q of residue j = cnt mod k, whose block starts at j (m // k) + min(j, m mod k);
                # the default k = 2 by a mask and shifts, any other k by a division
                if step == 2:
                    j, q, base, rem = cnt & 1, cnt >> 1, m >> 1, m & 1
                else:
                    j, q, base, rem = cnt % step, cnt // step, m // step, m % step
                slot = a + st[c] + j * base + min(j, rem) + q
                doc[slot] = d
                pos[slot] = r
                sc[slot] = scores[d]
        elif top == 1:  # two classes: one running count in a register, not a store per row
            ones = 0
            first1 = a + st[1]
            for r in range(n):
                d = a + order[a + r]
                lab = labels[d]
                slot = first1 + ones if lab == 1 else a + r - ones
                ones += lab
                doc[slot] = d
                pos[slot] = r
                sc[slot] = scores[d]
        else:
            for c in range(top + 1):
                fl[c] = a + st[c]
            for r in range(n):
                d = a + order[a + r]
                slot = fl[labels[d]]
                fl[labels[d]] = slot + 1
                doc[slot] = d
                pos[slot] = r
                sc[slot] = scores[d]
        if weighted:
            for t in range(a, b):
                f_up[t] = upper[doc[t]]
                f_lo[t] = lower[doc[t]]
        s_max = scores[a + order[a]]
        for i in range(a, b):
            arg[i] = sigma * (sc[i] - s_max)
    r0, r1 = offsets[g0], offsets[g1]
    exp_nonpositive(arg[r0:r1], ex[r0:r1], acc_g[r0:r1], acc_h[r0:r1])
    for g in range(g0, g1):
        a = offsets[g]
        b = offsets[g + 1]
        if _single_label(start[g], b - a):
            continue
        st = start[g]
        w = weights[g]
        top = _top_class(st)
        ex_min = 1.0
        s_lo = np.inf
        s_hi = -np.inf
        for i in range(a, b):
            ex_min = min(ex_min, ex[i])
            s_lo = min(s_lo, sc[i])
            s_hi = max(s_hi, sc[i])
            acc_g[i] = 0.0
            acc_h[i] = 0.0
        # ρ = E_l / (E_l + E_h) keeps its relative precision while both E are normal floats: a query with an E
        # below 1e-290 (one that may have underflowed) takes the direct logistic for the pairs that need it
        safe = ex_min > 1e-290
        # LightGBM skips the score-gap division while a query's scores all tie (round one)
        spread = (norm & NORM_SCORE_GAP) != 0 and s_hi > s_lo
        # the vectorised loop squares E_l + E_h (no underflow above 1e-150) and takes the swap weight alone
        vector = ex_min > 1e-150 and not spread and not setting.uniform
        total = 0.0
        for ch in range(1, top + 1):
            for cl in range(ch):
                dw = abs(w[ch] - w[cl]) * step
                if dw == 0.0:
                    continue
                lo = a + st[cl]
                hi = a + st[cl + 1]
                base, rem = (hi - lo) // step, (hi - lo) % step  # residue blocks: rem of base + 1 rows, then base
                for u in range(a + st[ch], a + st[ch + 1]):
                    first, last = lo, hi
                    if step > 1:  # the partners of rank ≡ offset (mod k): one block of the residue layout
                        o = pair_offset(setting.seed, doc[u], cl, step)
                        first = lo + o * base + min(o, rem)
                        last = first + base + (1 if o < rem else 0)
                    # long runs take the vectorised loop; short ones (MQ2008's ~14 rows) run faster scalar
                    if vector and last - first >= VECTOR_MIN_RUN:
                        lam_u, h_u = _pair_sums_vector(ex, pos, u, dw, first, last, (acc_g, acc_h), sigma,
                                                       (f_up[u], f_lo) if weighted else (1.0, f_lo[:0]))
                    else:
                        lam_u, h_u = _pair_sums(ex, pos, sc, u, dw, first, last, (acc_g, acc_h), setting,
                                                (not safe, spread),
                                                (f_up[u], f_lo) if weighted else (1.0, f_lo[:0]))
                    acc_g[u] -= lam_u
                    acc_h[u] += h_u
                    total += 2.0 * lam_u
        factor = math.log2(1.0 + total) / total if (norm & NORM_QUERY) != 0 and total > 0.0 else 1.0
        for t in range(a, b):
            grad[doc[t]] = acc_g[t] * factor
            hess[doc[t]] = acc_h[t] * factor


@njit(cache=True, parallel=True)
def lambda_auc_kernel_parallel(scores, labels, offsets, setting, tables, grad, hess, scratch, bounds, factors):
    """:func:`lambda_auc_kernel` with its queries spread over Numba's threads (the same output).

    ``bounds``: int64 query indices 0 = b_0 < … < b_k = n_groups; each chunk of queries
    b_c … b_{c+1} − 1 is one task.  A kernel of its own, compiled only when the objective
    runs on more than one thread (the engines' threads, or ``PARALLEL_MIN_ROWS`` rows),
    whose parallel loop only calls the serial kernel: parallel loops around the kernel's
    own loops compile for much longer (MEASUREMENTS.md, "first compile").
    """
    for c in prange(bounds.shape[0] - 1):
        lambda_auc_kernel(scores, labels, offsets, setting, tables, grad, hess, scratch, (bounds[c], bounds[c + 1]),
                          factors)


@njit(cache=True, error_model="numpy")
def _anchor_rows(scores, classes, odds, w, grad, hess, lo, hi, exam, scale, g_out, h_out):
    """Rows ``lo:hi`` of :func:`add_anchor`, in batches of ``ANCHOR_BATCH`` rows whose loops the compiler vectorises.

    σ(s + b_k) = 1 / (1 + e^{−s} o_k) with o_k = e^{−b_k}, from t = e^{−|s|} ≤ 1 (:func:`exp_nonpositive`):
    for s ≥ 0, p = 1 / (1 + t o) and q = 1 − p = t o / (1 + t o); for s < 0, p = t / (t + o) and
    q = o / (t + o).  Neither overflows, and q is not a subtraction.  Rows with an examination
    probability below 1 take the click model's terms, one row at a time, from the same p and q.
    Row i's sums go to ``g_out[i] = grad[i] · scale + w g_i`` (and ``h_out`` alike): the λs' scale and the
    engine's float32 buffers in the same pass (the same two roundings as scaling ``grad`` in place first).
    """
    k_count = odds.shape[0]
    examined = exam.shape[0] > 0
    buf = np.empty((4, ANCHOR_BATCH))
    x, t, g, h = buf[0], buf[1], buf[2], buf[3]
    for b0 in range(lo, hi, ANCHOR_BATCH):
        m = min(ANCHOR_BATCH, hi - b0)
        s_ = scores[b0:b0 + m]
        c_ = classes[b0:b0 + m]
        for i in range(m):
            x[i] = -abs(s_[i])
        exp_nonpositive(x[:m], t[:m], g, h)
        for i in range(m):
            g[i] = 0.0
            h[i] = 0.0
        for k in range(k_count):
            o = odds[k]
            for i in range(m):
                up = s_[i] >= 0.0
                to = t[i] * o
                r = 1.0 / ((1.0 + to) if up else (t[i] + o))
                p = (1.0 if up else t[i]) * r
                q = (to if up else o) * r
                target = 1.0 if c_[i] > k else 0.0
                g[i] += p - target
                h[i] += p * q
        if examined:  # a click needs an examination: P(c > k) = e p (position-based model)
            for i in range(m):
                x_i = exam[b0 + i]
                if x_i < 1.0:
                    g[i], h[i] = _examined_terms(s_[i], t[i], c_[i], odds, x_i)
        for i in range(m):
            v = grad[b0 + i] * scale
            v += w * g[i]
            g_out[b0 + i] = v
            v = hess[b0 + i] * scale
            v += w * h[i]
            h_out[b0 + i] = v


@njit(cache=True)
def _examined_terms(s, t, c, odds, x):
    """Gradient and Fisher information of one row's anchor under examination probability ``x`` < 1, summed
    over the thresholds (the observed curvature can be negative); p and q as in :func:`_anchor_rows`."""
    g = 0.0
    h = 0.0
    for k in range(odds.shape[0]):
        o = odds[k]
        to = t * o
        r = 1.0 / ((1.0 + to) if s >= 0.0 else (t + o))
        p = (1.0 if s >= 0.0 else t) * r
        q = (to if s >= 0.0 else o) * r
        target = 1.0 if c > k else 0.0
        miss = (1.0 - x) + x * q  # 1 − x p without cancelling
        g += q * ((1.0 - target) * x * p / miss - target)
        h += x * p * q * q / miss
    return g, h


@njit(cache=True)
def add_anchor(scores, classes, bias, alpha, grad, hess, exam, scale, g_out, h_out):
    """``scale`` times ``grad`` and ``hess`` plus ``alpha`` times the gradient and hessian of a pointwise log-loss,
    written to ``g_out`` and ``h_out`` (``grad`` and ``hess`` themselves, or the engine's float32 buffers).

    Each row i of class c_i (0 … K) meets the K thresholds of the classes: for threshold k
    the target is ``c_i > k`` and the log-odds are ``s_i + bias[k]`` (``bias[k]`` the logit of
    the share of rows above k, so the first round, at zero scores, starts from the base
    rates); the loss is the mean over the thresholds of the log-loss, so

        grad_i += α/K Σ_k (σ(s_i + b_k) − [c_i > k]),   hess_i += α/K Σ_k σ(1 − σ).

    With two classes (K = 1) this is the log-loss of ``binary`` on y > threshold; with K > 1
    the all-threshold (cumulative-logit) form keeps the grades.  It compares documents
    across queries, which the λs, each query's own, do not.

    ``exam`` (float64 of shape (n,), or (0,) for none): each row's examination probability e_i
    under the position-based click model (Richardson et al. 2007; Wang et al., WSDM 2018):
    feedback needs an examination, so P(c_i > k) = e_i σ(s_i + b_k) and the scores learn
    relevance, not clicks.  Its hessian is the Fisher information e σ (1 − σ)² / (1 − e σ).
    """
    _anchor_rows(scores, classes, np.exp(-bias), alpha / bias.shape[0], grad, hess, 0, scores.shape[0], exam, scale,
                 g_out, h_out)


@njit(cache=True, parallel=True)
def add_anchor_parallel(scores, classes, bias, alpha, grad, hess, n_chunks, exam, scale, g_out, h_out):
    """:func:`add_anchor` on Numba's threads, rows cut into ``n_chunks`` runs (the same sums, row by row)."""
    n = scores.shape[0]
    odds = np.exp(-bias)
    w = alpha / bias.shape[0]
    for c in prange(n_chunks):
        _anchor_rows(scores, classes, odds, w, grad, hess, c * n // n_chunks, (c + 1) * n // n_chunks, exam, scale,
                     g_out, h_out)


@njit(cache=True)
def _top_class(st):
    """Highest class present in a query, from its row of bucket starts."""
    top = st.shape[0] - 2
    while top > 0 and st[top + 1] == st[top]:
        top -= 1
    return top


@njit(cache=True)
def _single_label(st, n):
    """Fewer than two documents, or one label value, from a query's bucket starts."""
    if n < 2:
        return True
    for c in range(st.shape[0] - 1):
        if st[c + 1] - st[c] == n:
            return True
    return False


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_CLASS_MIX = np.uint64(0xD1B54A32D192ED03)


@njit(cache=True)
def splitmix64(x):
    """SplitMix64's output function: a well-mixed 64-bit hash of ``x`` (Steele, Lea, Flood 2014)."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True)
def pair_offset(seed, d, c, step):
    """The first partner (0 … step − 1) of document ``d`` in class ``c`` under ``seed``.

    A hash, not a random stream: any thread computes it for any document in any order,
    and the same seed repeats the same pairs.
    """
    x = splitmix64(seed ^ (np.uint64(d) * _GOLDEN) ^ (np.uint64(c) * _CLASS_MIX))
    k = np.uint64(step)
    # a power of two (2: the default) takes a mask, the same value as x % k without a division per run of pairs
    return np.int64(x & (k - np.uint64(1)) if step & (step - 1) == 0 else x % k)


@njit(cache=True, fastmath=PAIR_SUM_FASTMATH)
def _pair_sums(ex, pos, sc, u, dw, lo, hi, acc, setting, flags, factors):
    """λ and hessian sums of document ``u`` against the rows lo:hi of a lower class.

    ``acc``: (λ, hessian) accumulators of the partners.  ``flags`` = (guarded, spread): take the
    direct logistic where E_l or E_h is below 1e-290 (it may have underflowed, and E_l / (E_l + E_h)
    would lose its relative precision); divide each |ΔM| by 0.01 + |Δs| (``lambdarank_norm``).
    ``setting.uniform``: the pair weight is ``dw``
    alone, not ``dw`` times the distance in positions.  1 − ρ is E_h / (E_l + E_h),
    not a subtraction, so the hessian of a pair with ρ near 1 keeps its relative accuracy.
    ``factors``: (``u``'s pair factor, the partners' in the bucketed layout), or (1, an empty array) for none.
    The loop runs scalar (Numba checks every division for zero): runs shorter than
    ``VECTOR_MIN_RUN`` rows, the options :func:`_pair_sums_vector` does not take, and guarded queries.
    """
    acc_g, acc_h = acc
    guarded, spread = flags
    f_u, f_lo = factors
    weighted = f_lo.shape[0] > 0
    sigma = setting.sigma
    s2 = sigma * sigma
    uniform = setting.uniform
    eu = ex[u]
    pu = pos[u]
    su = sc[u]
    lam_u = 0.0
    h_u = 0.0
    for v in range(lo, hi):
        den = ex[v] + eu
        if guarded and not min(ex[v], eu) > 1e-290:
            x = sigma * (su - sc[v])
            e = math.exp(-abs(x))
            rho = (e if x > 0.0 else 1.0) / (1.0 + e)
            rest = (1.0 if x > 0.0 else e) / (1.0 + e)
        else:
            inv = 1.0 / den
            rho = ex[v] * inv
            rest = eu * inv
        delta = dw if uniform else abs(pu - pos[v]) * dw
        if spread:
            delta = delta / (0.01 + abs(su - sc[v]))
        if weighted:
            delta = delta * (f_u * f_lo[v])
        lam = sigma * delta * rho
        h = s2 * delta * rho * rest
        lam_u += lam
        h_u += h
        acc_g[v] += lam
        acc_h[v] += h
    return lam_u, h_u


@njit(cache=True, fastmath=PAIR_SUM_FASTMATH, error_model="numpy")
def _pair_sums_vector(ex, pos, u, dw, lo, hi, acc, sigma, factors):
    """:func:`_pair_sums` of Welleck's swap weight without the score-gap division, in a loop the compiler vectorises.

    The same λ and hessian with one division per pair: ρ = E_l / D and ρ (1 − ρ) = E_l E_h / D²
    with D = E_l + E_h, so both come from 1 / D² (the caller takes it only where D² cannot
    underflow).  What keeps the loop vectorised: Numba's default error model tests each division
    for zero (``error_model="numpy"`` does not), indices from 0 on slices (no negative-index
    fix-up), and no option tested inside it (the score-gap division and uniform weights take
    :func:`_pair_sums`).
    """
    acc_g, acc_h = acc
    f_u, f_lo = factors
    eu = ex[u]
    pu = pos[u]
    k_lam = sigma * dw * f_u
    k_h = sigma * k_lam * eu
    e_ = ex[lo:hi]
    p_ = pos[lo:hi]
    g_ = acc_g[lo:hi]
    h_ = acc_h[lo:hi]
    lam_u = 0.0
    h_u = 0.0
    if f_lo.shape[0] > 0:
        f_ = f_lo[lo:hi]
        for v in range(hi - lo):
            e = e_[v]
            den = e + eu
            q = abs(pu - p_[v]) * f_[v] * e / (den * den)
            lam = k_lam * q * den
            h = k_h * q
            lam_u += lam
            h_u += h
            g_[v] += lam
            h_[v] += h
    else:
        for v in range(hi - lo):
            e = e_[v]
            den = e + eu
            q = abs(pu - p_[v]) * e / (den * den)
            lam = k_lam * q * den
            h = k_h * q
            lam_u += lam
            h_u += h
            g_[v] += lam
            h_[v] += h
    return lam_u, h_u


@njit(cache=True, parallel=True)
def lambda_ndcg_kernel(scores, labels, offsets, sigma, truncation_level, norm, label_gain,
                       grad, hess):
    """LambdaRank-NDCG gradients, the same computation as LightGBM's ``lambdarank``.

    Stable descending sort; pairs with at least one document in the first
    ``truncation_level`` positions; ΔNDCG = |gain_h − gain_l| |1/log2(2+i) −
    1/log2(2+j)| / maxDCG@truncation_level; ``norm`` holds ``NORM_*`` bits as in
    :func:`lambda_auc_kernel`: the ΔNDCG of a pair divided by 0.01 + |s_h − s_l| (unless
    all scores are equal), the query's λs rescaled by log2(1 + Σλ) / Σλ.  LightGBM reads
    ρ from a 2^20-entry table; this kernel evaluates it exactly.
    """
    n_groups = offsets.shape[0] - 1
    # the labels sort as float64 keys: the instantiation of merge_order the other kernels share
    grades = labels.astype(np.float64)
    for g in prange(n_groups):
        a = offsets[g]
        b = offsets[g + 1]
        for i in range(a, b):
            grad[i] = 0.0
            hess[i] = 0.0
        n = b - a
        if n < 2:
            continue
        order = merge_order(-scores[a:b])
        ideal = merge_order(grades[a:b].copy())
        kk = min(truncation_level, n)
        max_dcg = 0.0
        for i in range(kk):
            max_dcg += label_gain[labels[a + ideal[n - 1 - i]]] / math.log2(2.0 + i)
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
                if (norm & NORM_SCORE_GAP) != 0 and best != worst:
                    delta /= 0.01 + abs(ds)
                rho = 1.0 / (1.0 + math.exp(sigma * ds))
                lam = sigma * delta * rho
                h = sigma * sigma * delta * rho * (1.0 - rho)
                grad[hi] -= lam
                grad[lo] += lam
                hess[hi] += h
                hess[lo] += h
                sum_lambdas += 2.0 * lam
        if (norm & NORM_QUERY) != 0 and sum_lambdas > 0.0:
            factor = math.log2(1.0 + sum_lambdas) / sum_lambdas
            for i in range(a, b):
                grad[i] *= factor
                hess[i] *= factor


@njit(cache=True)
def lambda_auc_probit_kernel(scores, labels, offsets, sigma, alpha, max_len, uniform, grad, hess):
    """λ-AUC / λ-MAUC with the probit (erfc) link, pair by pair: the fast paths' reference.

    ρ_hl = ½ erfc(ασ(s_h − s_l)) replaces the logistic (Raykar's approximation,
    α = √3/(√2 π)); the hessian term is −dρ/dx = (ασ/√π) exp(−(ασ(s_h − s_l))²).
    |ΔM_hl| = |p_h − p_l| |ω_{l_h} − ω_{l_l}| with ω of :func:`mauc_class_weights`
    (0/1 labels: ΔAUC); with ``uniform``, |ω_{l_h} − ω_{l_l}| alone (the statistic's own
    pair weight: Raykar's WMW gradient).  Queries longer than ``max_len`` are left
    untouched so a caller can route them elsewhere (zeroing them was a cost of its own
    on long lists).
    """
    n_groups = offsets.shape[0] - 1
    c = probit_rho_slope(sigma, alpha)
    for g in range(n_groups):
        a = offsets[g]
        b = offsets[g + 1]
        n = b - a
        if n > max_len:
            continue
        for i in range(a, b):
            grad[i] = 0.0
            hess[i] = 0.0
        if n < 2:
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
                delta = abs(w[labels[i]] - w[labels[j]])
                if not uniform:
                    delta *= abs(pos[i - a] - pos[j - a])
                if delta == 0.0:
                    continue
                x = alpha * sigma * (scores[i] - scores[j])
                lam = sigma * delta * 0.5 * math.erfc(x)
                h = sigma * delta * c * math.exp(-x * x)
                grad[i] -= lam
                grad[j] += lam
                hess[i] += h
                hess[j] += h
