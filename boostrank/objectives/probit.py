"""The probit λ: λ-AUC / λ-MAUC with Raykar's erfc link, exact or at linear cost per list (Raykar §5).

With ρ_hl = ½ erfc(ασ(s_h − s_l)) (Raykar's approximation of the RankNet logistic,
α = √3/(√2 π)) and |ΔAUC_hl| = |p_h − p_l|/(mn) on the pessimistic score order
(Welleck Thm 4.1), every document's λ and hessian is a sum of erfc and Gaussian
kernels over the documents of the other classes, weighted by the distance in
positions:

    grad_i = σ/2 · (2 Σ_{l_j > l_i} w |p_i − p_j| − Σ_j w |p_i − p_j| erfc(t_i − t_j)),

t = ασs.  After one sort, positions are indices, and each sum splits into the
documents below and above i: an ascending sweep and a mirrored one, each carrying
Beaulieu's series coefficients of the neighbouring blocks
(:mod:`boostrank._kernels.lambda_series`), give all of them in O(p n).
"""

from __future__ import annotations

import functools

import joblib
import numba
import numpy as np

from .._kernels.erfc import series_weights
from .._kernels.config import AUTO_MIN_ROWS, MAX_LIST_ROWS, MIXED_MIN_RATE, PARALLEL_SORT_MIN_ROWS, ProbitSeries
from .._kernels.lambda_series import lambda_auc_series_kernel, lambda_auc_series_lists, sweep_chunks
from .._kernels.link import ERFC_ALPHA, ERFC_ALPHA_SQRT_PI
from .._kernels.order import index_dtype, pessimistic_order
from .._kernels.lambdas import lambda_auc_probit_kernel
from .._kernels.link import probit_hessian_scale
from .._kernels.erfc import uniform_series_lambdas
from .._kernels.metrics import mauc_class_weights
from ..linear.erfc import joint_parameters

__all__ = ["lambda_auc_probit", "fast_error_bound"]



def _positions(s, y):
    order = pessimistic_order(s, y, 0, s.shape[0])
    p = np.empty(s.shape[0], dtype=np.float64)
    p[order] = np.arange(s.shape[0], dtype=np.float64)
    return p


@functools.lru_cache(maxsize=16)
def _series(eps):
    par = joint_parameters(eps)
    ae, ag = series_weights(par.h, par.p)
    ae.flags.writeable = ag.flags.writeable = False
    return par, ae, ag


def _probit_series(sigma, eps) -> ProbitSeries:
    """The probit link and the series of accuracy ``eps``, as the λ kernels take them."""
    par, ae, ag = _series(eps)
    # past 2^52 cut-off radii, block numbers lose integer precision and the series its validity
    return ProbitSeries(float(sigma), ERFC_ALPHA, par.r, par.h, par.p, ae, ag, 2.0**52 * par.r)


def _class_weights(y, n):
    """(class ids as int32, |ω_a − ω_b| matrix, mixed) of one list; absent grades dropped.

    ``mixed``: two classes, the smaller one at least ``MIXED_MIN_RATE`` of the list.
    """
    counts = np.bincount(y).astype(np.float64)
    w = mauc_class_weights(counts, float(n))
    present = counts > 0
    if not present.all():  # the sweep costs O(classes) per row: drop absent grades
        w = w[present]
        y = (np.cumsum(present) - 1)[y]
    kept = counts[present]
    mixed = kept.size == 2 and kept.min() >= MIXED_MIN_RATE * n
    return y.astype(np.int32), np.abs(w[:, None] - w[None, :]), bool(mixed)


def _cpus():
    """CPUs this process may use (Numba's thread count can exceed them).

    joblib's count (scikit-learn's dependency) honours the affinity mask and a
    container's CPU quota, which ``os.sched_getaffinity`` alone does not see.
    """
    return joblib.cpu_count()


class SeriesWork:
    """What the probit λ keeps between rounds for one data set (its labels and lists never change).

    ``arrays``: the sweeps' work arrays (a fresh set every call cost page faults on long
    lists); ``uniform``: the uniform series' (t in group order, permutation); ``lists``: the
    class ids and weights of the lists that go through one call; ``classes``: each long
    list's class ids and weights, by its rows (counted once, not every round);
    ``labels``: (the labels array given, its checked int64 grades).
    """

    def __init__(self):
        self.arrays = None
        self.uniform = None
        self.lists = None
        self.labels = None
        self.classes: dict = {}

    def class_weights(self, y, a, b):
        """:func:`_class_weights` of rows ``a:b``, computed once."""
        hit = self.classes.get((a, b))
        if hit is None:
            hit = self.classes[(a, b)] = _class_weights(y, b - a)
        return hit


def _class_weights_of(work, y, a, b):
    return _class_weights(y, b - a) if work is None else work.class_weights(y, a, b)


def _fast_one_list(s, y, sigma, eps, grad, hess, work, rows):
    n = s.shape[0]
    if n < 2:
        grad[:] = 0.0
        hess[:] = 0.0
        return
    y, wmat, mixed = _class_weights_of(work, y, *rows)
    threads = numba.get_num_threads()
    chunks = sweep_chunks(n, threads)
    if chunks is not None:  # chunks add work (a pass over the rows before each): a gain only with a CPU per thread
        chunks = sweep_chunks(n, min(threads, _cpus()))
    if not lambda_auc_series_kernel(s, y, wmat, _probit_series(sigma, eps), (grad, hess), _workspace(work, n),
                                    mixed, threads, chunks):
        _too_wide(s)


def _uniform_one_list(s, y, sigma, eps, grad, hess, work, rows, scale=1.0):
    """:func:`uniform_series_lambdas` of one list, its class weights kept in ``work``, its λs times ``scale``."""
    cls, wmat, _ = _class_weights_of(work, y, *rows)
    par, _, _ = _series(eps)
    n = s.shape[0]
    have = None if work is None else work.uniform
    if have is None or have[0].shape[0] < n:
        have = (np.empty(n), np.empty(n, dtype=np.int64))
        if work is not None:
            work.uniform = have
    if not uniform_series_lambdas(s, ERFC_ALPHA * sigma, cls, wmat, par.r, par.h, par.p,
                                  (sigma * scale, probit_hessian_scale(sigma, ERFC_ALPHA) * scale), (grad, hess),
                                  have):
        _too_wide(s)


def _too_wide(s):
    if not np.isfinite(s).all():
        raise ValueError(f"scores contains {np.count_nonzero(~np.isfinite(s))} NaN/inf")
    # past max_t, block numbers would lose integer precision and the series its validity
    raise ValueError(f"scores reach {np.abs(s).max():.3g}: too wide for method='fast' "
                     "(|score| · sigma must stay below about 4e16); use method='exact'")


def _workspace(work, n):
    """Work arrays for lists of up to ``n`` rows, kept in ``work`` between calls."""
    have = None if work is None else work.arrays
    if have is None or have[0].shape[1] < n or have[0].dtype != index_dtype(n):
        have = (np.empty((3, n), dtype=index_dtype(n)), np.empty((2, n), dtype=np.uint64), np.empty((5, n)))
        if work is not None:
            work.arrays = have
    return have


def lambda_auc_probit(scores, labels, group_offsets, sigma=1.0, method="auto", eps=1e-6,
                      auto_min_rows=AUTO_MIN_ROWS, grad=None, hess=None, work=None, uniform=False, scale=1.0):
    """λ-AUC gradients and hessians with the probit link, exact or through the series.

    Parameters
    ----------
    scores : ndarray of float64
    labels : ndarray of float64
        > 0 is positive.
    group_offsets : ndarray of int64
    method : {"exact", "fast", "auto"}
        ``"exact"`` sums pairs (O(n²) per list), ``"fast"`` uses the series
        (O(p n) per list: a radix sort and two series sweeps), ``"auto"`` picks
        ``fast`` for lists of at least ``auto_min_rows`` rows.
    eps : float
        Accuracy of the series; see :func:`fast_error_bound`.
    auto_min_rows : int
        Shortest list ``method="auto"`` sends through the series.
    grad, hess : ndarray of float64 or float32, default=None
        Output buffers (float64, allocated when None); float32 buffers receive the
        float64 sums rounded (what the engines take): the uniform series writes them as
        it scatters its sums, other paths through float64 buffers.
    work : SeriesWork, default=None
        Holds the series' work arrays and each list's class weights between calls, so
        it belongs to one ``labels``/``group_offsets`` pair: an objective keeps one per
        data set.
    uniform : bool, default=False
        Weigh each pair by the statistic's own |ω_h − ω_l| (1/(mn) for AUC), not by
        Welleck's swap weight |p_h − p_l| |ω_h − ω_l|: the gradient of the erfc-smoothed
        WMW statistic (Raykar et al.), through :func:`boostrank._kernels.erfc.uniform_series_lambdas`.
    scale : float, default=1.0
        Multiplies every λ and hessian (with ``uniform`` on lists that all take the series, inside the
        kernel as it writes them: no pass over the outputs).

    The series kernel runs on Numba's thread count of the calling thread; see
    :func:`boostrank.threads.numba_threads`.

    Returns
    -------
    grad, hess : ndarray
    """
    n = scores.shape[0]
    if method != "exact" and len(group_offsets) > 1 and np.diff(group_offsets).max() > MAX_LIST_ROWS:
        raise ValueError(f"method={method!r} takes lists of up to {MAX_LIST_ROWS} rows; use method='exact'")
    raw, labels = labels, _dense_labels(labels, n, work)
    grad = np.empty(n) if grad is None else grad
    hess = np.empty(n) if hess is None else hess
    limit = pair_sum_max_rows(method, auto_min_rows, n)
    sizes = np.diff(group_offsets)
    if scale != 1.0 and not (uniform and (sizes > limit).all()):
        # the labels as given: the work's checked copy is keyed on them
        grad, hess = lambda_auc_probit(scores, raw, group_offsets, sigma, method, eps, auto_min_rows, grad, hess,
                                       work, uniform)
        grad *= scale
        hess *= scale
        return grad, hess
    out = None
    if grad.dtype != np.float64 and ((sizes <= limit).any() or not uniform):
        # the pair sums accumulate in their output: in float64, then rounded; so does the swap-weighted
        # series, off the default path (float32 variants of its two kernels compiled for 9.7 s)
        out = grad, hess
        grad, hess = np.empty(n), np.empty(n)
    if out is not None or grad.dtype == np.float64:
        lambda_auc_probit_kernel(scores, labels, group_offsets, sigma, ERFC_ALPHA, limit, uniform, grad, hess)
    routed = np.flatnonzero(sizes > limit)
    if uniform:  # the kernel rounds its float64 sums into float32 buffers as it writes them
        for g in routed:
            a, b = group_offsets[g], group_offsets[g + 1]
            _uniform_one_list(scores[a:b], labels[a:b], sigma, eps, grad[a:b], hess[a:b], work, (a, b), scale)
        routed = routed[:0]
    # lists a thread sorts alone go through one call, a list per thread; longer lists
    # (or a lone one) are each split over the threads
    alone = routed[sizes[routed] < PARALLEL_SORT_MIN_ROWS]
    if alone.size >= 2:
        _fast_lists(scores, labels, group_offsets, alone, sigma, eps, grad, hess, work)
        routed = routed[sizes[routed] >= PARALLEL_SORT_MIN_ROWS]
    for g in routed:
        a, b = group_offsets[g], group_offsets[g + 1]
        _fast_one_list(scores[a:b], labels[a:b], sigma, eps, grad[a:b], hess[a:b], work, (a, b))
    if out is not None:
        np.copyto(out[0], grad, casting="same_kind")
        np.copyto(out[1], hess, casting="same_kind")
        return out
    return grad, hess


def _dense_labels(labels, n, work):
    """Labels as non-negative int64 grades below ``n``, checked once per ``work`` (an objective's data set)."""
    if work is not None and work.labels is not None and work.labels[0] is labels:
        return work.labels[1]
    checked = np.ascontiguousarray(labels).astype(np.int64, copy=False)
    if checked.size and checked.min() < 0:
        raise ValueError("labels must be non-negative integers (0/1 for AUC, grades for MAUC)")
    if checked.size and checked.max() > n:
        # the kernels size their class tables by the largest grade (10⁹: 7.45 GiB); only
        # the grades' order and which are 0 matter, so number them densely, 0 kept
        checked = np.searchsorted(np.unique(np.append(checked, 0)), checked).astype(np.int64)
    if work is not None:
        work.labels = (labels, checked)
    return checked


def pair_sum_max_rows(method, auto_min_rows, n):
    """Longest list :func:`lambda_auc_probit` sums pair by pair; longer ones take the series.

    Parameters
    ----------
    method : {"exact", "fast", "auto"}
    auto_min_rows : int
        Shortest list ``"auto"`` sends through the series.
    n : int
        Rows in all lists (``"exact"`` sums every list).

    Returns
    -------
    int
    """
    if method == "exact":
        return n + 1
    if method == "fast":
        return 1
    if method == "auto":
        return auto_min_rows - 1
    raise ValueError(f"method must be 'exact', 'fast' or 'auto', got {method!r}")


def _fast_lists(s, labels, offsets, lists, sigma, eps, grad, hess, work):
    """:func:`_fast_one_list` for many lists at once (:func:`lambda_auc_series_lists`)."""
    cached = None if work is None else work.lists
    if cached is None or not np.array_equal(cached[0], lists):
        cls = np.zeros(s.shape[0], dtype=np.int32)
        n_classes = np.empty(lists.size, dtype=np.int64)
        mixed = np.empty(lists.size, dtype=np.bool_)
        mats = []
        for j, g in enumerate(lists):
            a, b = offsets[g], offsets[g + 1]
            cls[a:b], wmat, mixed[j] = _class_weights(labels[a:b], b - a)
            n_classes[j] = wmat.shape[0]
            mats.append(wmat)
        wmats = np.zeros((lists.size, n_classes.max(), n_classes.max()))
        for j, wmat in enumerate(mats):
            wmats[j, :wmat.shape[0], :wmat.shape[0]] = wmat
        cached = (lists.copy(), cls, n_classes, wmats, mixed)
        if work is not None:
            work.lists = cached
    _, cls, n_classes, wmats, mixed = cached
    bad = lambda_auc_series_lists(s, cls, offsets, lists, (n_classes, wmats, mixed), _probit_series(sigma, eps),
                                  (grad, hess), _workspace(work, s.shape[0]))
    if bad >= 0:
        _too_wide(s[offsets[lists[bad]]:offsets[lists[bad] + 1]])


def fast_error_bound(scores, labels, group_offsets, sigma=1.0, eps=1e-6, uniform=False):
    """Per-document bound on |fast − exact| for gradients and hessians.

    Each series sum is within eps/2 per pair (:func:`boostrank.erfc.series_parameters`);
    a document's λ combines four of them weighted by its own position p_i and its
    partners' positions p_j, so, with W_ij = |ω_{l_i} − ω_{l_j}| (1/(mn) for AUC),

        |Δgrad_i| ≤ 2 eps · σ · Σ_j W_ij (p_i + p_j),
        |Δhess_i| ≤ 4 eps · σ² α/√π · Σ_j W_ij (p_i + p_j)

    over the partners j of i in other classes: ε times (twice) the sum of the pair
    weights W_ij (p_i + p_j) ≥ |ΔM_ij|.  With ``uniform`` pair weights one erfc and one
    Gaussian sum of weights W_ij give each λ, so the bounds are ε σ Σ_j W_ij and
    2 ε σ² α/√π Σ_j W_ij (twice what the series guarantees).

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
        W = np.abs(w[:, None] - w[None, :])
        if uniform:
            total = W[y] @ counts  # Σ_j W_ij
            gb[a:b] = eps * sigma * total
            hb[a:b] = 2 * eps * sigma * sigma * ERFC_ALPHA_SQRT_PI * total
            continue
        p = _positions(s, y)
        psum = np.bincount(y, weights=p, minlength=counts.size)
        total = W[y] @ counts * p + W[y] @ psum  # Σ_j W_ij (p_i + p_j)
        gb[a:b] = 2 * eps * sigma * total
        hb[a:b] = 4 * eps * sigma * sigma * ERFC_ALPHA_SQRT_PI * total
    return gb, hb
