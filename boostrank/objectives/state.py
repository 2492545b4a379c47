"""One fit's λ objective: labels, lists and buffers bound to a :class:`~boostrank.LambdaObjective`.

:meth:`boostrank.LambdaObjective.bind` validates the labels once and returns a
:class:`LambdaState`; an engine's gradient callback closes over it and calls
:meth:`LambdaState.gradients` every round.  The objective itself holds parameters only.
"""

from __future__ import annotations

import contextlib
from typing import Callable

import numba
import numpy as np

from .._kernels.config import PARALLEL_MIN_ROWS, SERIES_PARALLEL_MIN_ROWS, LambdaSetting
from .._kernels.jit import note_first_compile
from .._kernels.lambdas import (add_anchor, add_anchor_parallel, lambda_auc_kernel, lambda_auc_kernel_parallel,
                               lambda_auc_tables, lambda_ndcg_kernel)
from .._validation import as_1d_float
from .probit import SeriesWork, lambda_auc_probit, pair_sum_max_rows
from .._kernels.jit import numba_threads

__all__ = ["LambdaState", "round_seed", "query_chunks"]

_MASK64 = (1 << 64) - 1
#: an absent per-row array of the kernels (pair factors, examination propensities)
_NONE = np.zeros(0)


def round_seed(random_state: int, call: int) -> np.uint64:
    """The pair-sampling seed of the ``call``-th gradient call under ``random_state`` (SplitMix64 steps)."""
    x = (random_state * 0x9E3779B97F4A7C15 + (call + 1) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK64
    return np.uint64(x ^ (x >> 31))


#: Tasks per Numba thread of the parallel λ kernel: queries differ in cost, and a thread that
#: finishes early takes the next chunk
CHUNKS_PER_THREAD = 4


def query_chunks(start: np.ndarray, n_chunks: int) -> np.ndarray:
    """Query boundaries 0 = b_0 < … < b_k = n_groups that split the λ work into about ``n_chunks`` even parts.

    A query's work is its rows (ordering, bucketing) plus its pairs of differing labels,
    counted from the class layout ``start`` of :func:`lambda_auc_tables`.
    """
    counts = np.diff(start, axis=1).astype(np.float64)
    rows = counts.sum(axis=1)
    work = np.cumsum(rows + (rows ** 2 - (counts ** 2).sum(axis=1)) / 2.0)
    n_groups = start.shape[0]
    if n_groups == 0:
        return np.zeros(1, dtype=np.int64)
    cuts = np.searchsorted(work, work[-1] * np.arange(1, n_chunks) / n_chunks, side="right")
    return np.unique(np.r_[0, cuts, n_groups]).astype(np.int64)


def logistic_auc(state, s, grad, hess, stride):
    """λ-AUC / λ-MAUC with the logistic link (Welleck eq. 17, 19): the pair sums of :func:`lambda_auc_kernel`."""
    obj = state.objective
    if state.tables is None:  # labels never change: their class layout is computed once
        state.tables = lambda_auc_tables(state.labels, state.offsets)
    n = state.labels.shape[0]
    if state.scratch is None:  # two more rows hold the pair factors of clicks (position_bias="propensity")
        state.scratch = (np.empty(n, dtype=np.int64), np.empty((8 if state.factors[0].size else 6, n)))
    call = state.calls
    state.calls = call + 1  # each round draws other pairs; the same random_state repeats them
    setting = LambdaSetting(obj.sigma, state.norm_bits, state.uniform, np.int64(stride),
                            round_seed(obj.random_state, call) if stride > 1 else np.uint64(0))
    args = (s, state.labels, state.offsets, setting, state.tables, grad, hess, (state.order, *state.scratch))
    threads = state.kernel_threads or numba.get_num_threads()
    if threads == 1:  # the parallel kernel compiles only when threads are asked for (PARALLEL_MIN_ROWS, n_jobs)
        lambda_auc_kernel(*args, (0, state.offsets.shape[0] - 1), state.factors)
        return
    # the same λs as the one-thread kernel, which it runs on chunks of queries; compiled here on first use
    # unless 'boostrank warmup' (or an earlier process) put it in the cache
    note_first_compile("parallel λ", lambda_auc_kernel_parallel)
    if state.chunks is None or state.chunks[0] != threads:
        state.chunks = (threads, query_chunks(state.tables[0], CHUNKS_PER_THREAD * threads))
    lambda_auc_kernel_parallel(*args, state.chunks[1], state.factors)


def logistic_ndcg(state, s, grad, hess, stride):
    """LightGBM's λ-NDCG (``lambdarank``), computed by :func:`lambda_ndcg_kernel`."""
    obj = state.objective
    lambda_ndcg_kernel(s, state.labels, state.offsets, obj.sigma, obj.truncation_level, obj.norm_bits, state.gain,
                       grad, hess)


def probit(state, s, grad, hess, stride, scale=1.0):
    """λ-AUC / λ-MAUC with the probit link: pair sums or the erfc series (:func:`lambda_auc_probit`)."""
    obj = state.objective
    lambda_auc_probit(s, state.labels, state.offsets, obj.sigma, obj.method, obj.eps, obj.auto_min_rows, grad, hess,
                      state.series_work, uniform=state.uniform, scale=scale)


class LambdaState:
    """A :class:`~boostrank.LambdaObjective` bound to one data set's labels, lists and weights.

    What :meth:`boostrank.LambdaObjective.bind` returns: the labels as the chosen kernel
    takes them (0/1, class ids or grades), the list offsets, per-row weights, the kernel
    and its pair plan, and the buffers the kernels keep between rounds (each list's last
    score order, the class layout, the probit series' arrays).

    Attributes
    ----------
    objective : LambdaObjective
    labels : ndarray
    offsets : ndarray of int64
    weight : ndarray or None
    n_jobs : int or None
        The λ kernels' threads (None: the objective's rule).
    anchor : tuple or None
        (α, class of each row, bias of each threshold) of the pointwise log-loss added to the
        λs (:func:`~boostrank._kernels.lambdas.add_anchor`); None: the λs alone.
    clicks : PositionBias or None
        The position-bias correction of click feedback (:mod:`boostrank.objectives.clicks`); None:
        the labels are relevance.
    """

    def __init__(self, objective, labels, offsets, weight, kernel: Callable, *, gain=None, uniform=False, stride=1,
                 tables=None, n_jobs=None, anchor=None, clicks=None, norm_bits=None):
        self.objective = objective
        self.labels, self.offsets, self.weight, self.gain = labels, offsets, weight, gain
        self.kernel = kernel
        #: the statistic's own pair weights (else Welleck's swap weights)
        self.uniform = uniform
        #: every ``stride``-th partner per round (1: all)
        self.stride = stride
        #: λ-AUC's class layout (start, weights): computed from the labels on first use
        self.tables = tables
        self.n_jobs = n_jobs
        self.anchor = anchor
        self.clicks = clicks
        #: the kernel's ``norm`` bits for this fit (the objective's, but without the rescaling for clicks)
        self.norm_bits = objective.norm_bits if norm_bits is None else norm_bits
        #: the pair factors of this round (:meth:`PositionBias.factors`), empty without them
        self.factors = (_NONE, _NONE)
        n = labels.shape[0]
        self.grad, self.hess = np.empty(n), np.empty(n)
        #: each list's last score order (the next round re-sorts it in near-linear time)
        self.order = np.arange(n, dtype=np.int64) - np.repeat(offsets[:-1], np.diff(offsets))
        self.scale: float | None = None  # hessian_scale's constant, once computed
        self.calls = 0  # gradient calls so far (each draws its own pairs)
        self.chunks = None  # (threads, query bounds) of the parallel λ kernel's tasks (query_chunks)
        self.kernel_threads = 0  # the threads of this call's logistic λ kernel (0: Numba's count)
        self.scratch = None  # the logistic kernel's scratch (doc ids, six rows of floats)
        self.float32 = None  # float32 buffers handed to the engines
        self.series_only: bool | None = None  # every list takes the probit series
        self.series_work = SeriesWork()  # the probit series' work arrays and per-list class weights

    def __repr__(self):
        return f"LambdaState({self.objective!r}, rows={self.labels.shape[0]}, lists={self.offsets.shape[0] - 1})"

    def gradients(self, scores, dtype=np.float64, scaled: bool = True):
        """(grad, hess) for raw ``scores``; see :func:`boostrank.lambda_gradients`.

        ``dtype=np.float32`` returns float32 buffers, which the engine adapters ask for:
        LightGBM and XGBoost keep gradients in float32, and LightGBM's own cast of float64
        arrays allocates two fresh arrays every round.  The returned arrays are reused by
        the next call.

        ``scaled``: the AUC and MAUC λs are multiplied by one constant per data set,
        chosen so that at tied scores (the first round) the rows of lists with two labels
        have a mean hessian of 1/4, log-loss's at p = ½ (:meth:`hessian_scale`).  The
        λs of a list are sums over pairs weighted by 1/(mn), so their hessians shrink with
        the list and the engines' regularisation (XGBoost's ``reg_lambda`` and
        ``min_child_weight``, LightGBM's ``min_sum_hessian_in_leaf``) would otherwise act
        on another scale than with their own objectives.  Newton steps do not change.
        ``scaled=False``: the λs of the papers (what :func:`boostrank.lambda_gradients` returns).
        """
        s = self._checked_scores(scores)
        grad, hess, out = self.grad, self.hess, None
        if dtype == np.float32:
            out = self._float32_buffers()
            # the uniform series (one long list's default) rounds its float64 sums into the engine's buffers
            # as it scatters them: no float64 buffers to fill and copy
            if self.weight is None and self.kernel is probit and self.uniform and self._series_only():
                grad, hess = out
        # the anchor's pass writes the engine's buffers itself (scaled, rounded): no passes over cold arrays after it
        into = out if out is not None and grad is not out[0] and self.weight is None else None
        if self._run_kernel(s, grad, hess, scaled, into):
            return out
        if self.weight is not None:
            grad, hess = grad * self.weight, hess * self.weight
        if out is None:
            return grad, hess
        if grad is not out[0]:
            np.copyto(out[0], grad, casting="same_kind")
            np.copyto(out[1], hess, casting="same_kind")
        return out

    def _checked_scores(self, scores) -> np.ndarray:
        # engines hand raw scores every round; a diverged round must fail loudly here, not sort NaN into the
        # λs.  Engines pass contiguous float64, which needs no conversion (half of a small call's glue).
        # (Not s·s: past 10⁴ rows OpenBLAS runs it on threads that then spin against the kernel's.)
        if (type(scores) is np.ndarray and scores.dtype == np.float64 and scores.ndim == 1
                and scores.flags.c_contiguous and np.isfinite(scores).all()):
            s = scores
        else:
            s = as_1d_float(np.reshape(scores, -1), "scores")
        if s.shape[0] != self.labels.shape[0]:
            raise ValueError(f"{s.shape[0]} scores for {self.labels.shape[0]} labels")
        return s

    def _float32_buffers(self):
        if self.float32 is None:
            n = self.labels.shape[0]
            self.float32 = (np.empty(n, np.float32), np.empty(n, np.float32))
        return self.float32

    def _run_kernel(self, s, grad, hess, scaled, into=None) -> bool:
        """The λ kernel on its threads, scaled (``scaled``), then the anchor's log-loss added (on the engines'
        scale: a λ of the papers' gets α / the scale); with clicks, the position bias corrected.

        ``into``: float32 buffers the anchor's pass may write the result to instead of ``grad`` and ``hess``;
        returns whether it did."""
        available = numba.get_num_threads()
        threads = self._threads(available)
        clicks = self.clicks
        offset = 0.0
        if clicks is not None:
            s = clicks.scores(s)  # the additive term, in training only
            offset = float(self.anchor[2][0]) if self.anchor is not None else 0.0
            self.factors = clicks.factors(s, offset)
        self.kernel_threads = threads
        # the logistic λ and the anchor on one thread are serial kernels, which read no thread count: not setting
        # Numba's (twice a call) is a tenth of a short call
        serial = threads == 1 and self.kernel is logistic_auc
        with contextlib.nullcontext() if threads == available or serial else numba_threads(threads):
            needed = (scaled or self.anchor is not None) and self.objective.metric != "ndcg"
            scale = self.hessian_scale() if needed else 1.0  # (before the λs: it uses their buffers)
            lam_scale = scale if scaled else 1.0  # what the λs are still to be multiplied by
            if self.kernel is probit and self.weight is None:  # the series scales its λs as it writes them
                probit(self, s, grad, hess, self.stride, lam_scale)
                lam_scale = 1.0
            else:
                self.kernel(self, s, grad, hess, self.stride)
            if self.anchor is None:
                into = None
                if lam_scale != 1.0:  # in place: grad and hess are this state's own buffers
                    grad *= lam_scale
                    hess *= lam_scale
            else:
                alpha, classes, bias = self.anchor
                alpha = alpha if scaled else alpha / scale
                exam = clicks.exam() if clicks is not None else _NONE
                into = into if clicks is None else None  # the click model reads the float64 sums after
                g_out, h_out = into if into is not None else (grad, hess)
                if threads > 1:
                    add_anchor_parallel(s, classes, bias, alpha, grad, hess, CHUNKS_PER_THREAD * threads, exam,
                                        lam_scale, g_out, h_out)
                else:
                    add_anchor(s, classes, bias, alpha, grad, hess, exam, lam_scale, g_out, h_out)
        if clicks is not None:
            clicks.update(s, grad, hess, offset)
        return into is not None

    def hessian_scale(self) -> float:
        """The constant :meth:`gradients` multiplies the AUC/MAUC λs by on this data set.

        0.25 × (rows in lists with two labels) / Σ hessians at tied scores, computed once
        (one call of the kernel on zeros, every pair counted).
        """
        if self.scale is None:
            calls, order = self.calls, self.order
            self.order = order.copy()  # the kernel's order state stays the engine's rounds'
            try:
                self.kernel(self, np.zeros(self.labels.shape[0]), self.grad, self.hess, 1)
            finally:
                self.calls, self.order = calls, order
            total = float(self.hess.sum())
            self.scale = 0.25 * int(np.count_nonzero(self.hess)) / total if total > 0 else 1.0
        return self.scale

    def _series_only(self) -> bool:
        """Every list takes the series (none the pair sums, which accumulate in float64)."""
        if self.series_only is None:
            obj = self.objective
            limit = pair_sum_max_rows(obj.method, obj.auto_min_rows, int(self.offsets[-1]))
            self.series_only = bool((np.diff(self.offsets) > limit).all())
        return self.series_only

    def _threads(self, available: int) -> int:
        n_jobs = self.objective.n_jobs if self.n_jobs is None else self.n_jobs
        if n_jobs == -1:
            return available
        if n_jobs is not None:
            return min(n_jobs, available)
        rows = self.labels.shape[0]
        if rows >= PARALLEL_MIN_ROWS:
            return available
        # one long list: the series' own parallel sweeps, from SERIES_PARALLEL_MIN_ROWS rows
        long_list = self.kernel is probit and rows >= SERIES_PARALLEL_MIN_ROWS and self._series_only()
        return available if long_list else 1
