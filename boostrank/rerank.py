"""Two-stage re-ranking: a base ranker's list, then an exact MIP on its top K (Rudin & Wang §2)."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator

from ._validation import as_1d_float, offsets_from_qid
from .mip import MIPRanker

__all__ = ["TopKReranker", "top_k_rows"]


def top_k_rows(base_scores, offsets, k):
    """Indices of the top ``k`` rows of each list by base score (ties: earlier row first)."""
    out = []
    for a, b in zip(offsets[:-1], offsets[1:]):
        order = a + np.argsort(-base_scores[a:b], kind="stable")
        out.append(order[: min(k, b - a)] if k is not None else order)
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


class TopKReranker(BaseEstimator):
    """Re-rank the top K of every list with a linear model fitted exactly by MIP.

    ``fit`` takes the top ``k`` rows of each list by the base ranker's scores and
    fits one :class:`~boostrank.mip.MIPRanker` on them (pairs and ranks within each
    list).  ``rerank`` orders those rows by wᵀx and keeps the rest of each list in
    base order below them (Rudin & Wang §2).

    Parameters
    ----------
    k : int or None, default=50
        Rows re-ranked per list; ``None`` (or k ≥ the list length) re-ranks whole
        lists; 0 keeps the base order.
    statistic, a, rank, l0, eps, solver, time_limit, threads, mip_gap, warm_start, verbose
        As in :class:`~boostrank.mip.MIPRanker`.  ``a`` defaults to ``"dcg@10"``
        for ``statistic="rank_risk"``.

    Attributes
    ----------
    ranker_ : MIPRanker
    coef_ : ndarray
    fallback_ : str or None
        ``"base order"`` when the solver returned no solution.

    Notes
    -----
    The output of :meth:`rerank` is always a permutation of each list: ties in wᵀx
    keep base order, ties in base score keep input order.  At the time limit the
    incumbent is used; with none the base order is kept, with a warning.
    """

    def __init__(self, k=50, statistic="rank_risk", a="dcg@10", rank="min", l0=0.0, eps=1e-4, solver="cbc",
                 time_limit=60.0, threads=None, mip_gap=None, warm_start=None, verbose=False):
        self.k = k
        self.statistic = statistic
        self.a = a
        self.rank = rank
        self.l0 = l0
        self.eps = eps
        self.solver = solver
        self.time_limit = time_limit
        self.threads = threads
        self.mip_gap = mip_gap
        self.warm_start = warm_start
        self.verbose = verbose

    def _check_k(self):
        if self.k is not None and (int(self.k) != self.k or self.k < 0):
            raise ValueError(f"k must be a non-negative integer or None, got {self.k!r}")

    def fit(self, X, y, base_scores, qid=None):
        """Fit the MIP on the top ``k`` rows of each list.

        Returns
        -------
        self
        """
        self._check_k()
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y).reshape(-1)
        base = as_1d_float(base_scores, "base_scores")
        if not (X.shape[0] == y.shape[0] == base.shape[0]):
            raise ValueError(f"X, y and base_scores have {X.shape[0]}, {y.shape[0]}, {base.shape[0]} rows")
        offsets = offsets_from_qid(qid, X.shape[0])
        rows = top_k_rows(base, offsets, self.k)
        self.ranker_ = MIPRanker(self.statistic, a=self.a, rank=self.rank, l0=self.l0, eps=self.eps,
                                 solver=self.solver, time_limit=self.time_limit, threads=self.threads,
                                 mip_gap=self.mip_gap, warm_start=self.warm_start, verbose=self.verbose)
        self.fallback_ = None
        self.n_features_in_ = X.shape[1]
        if rows.size == 0:
            self.coef_ = np.zeros(X.shape[1])
            self.fallback_ = "base order"
            return self
        sub_qid = None if qid is None else np.asarray(qid)[rows]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.ranker_.fit(X[rows], y[rows], qid=sub_qid)
        for w in caught:
            if "coef_ is zero" not in str(w.message):
                warnings.warn(w.message, stacklevel=2)
        status = self.ranker_.result_.status
        if status not in ("optimal", "feasible"):
            warnings.warn(f"re-ranking MIP ended with status {status!r}: keeping the base order", stacklevel=2)
            self.fallback_ = "base order"
        elif not np.any(self.ranker_.coef_):
            self.fallback_ = "base order"  # w = 0 ties everything: the base order is the tie-break
        self.coef_ = self.ranker_.coef_
        return self

    def rerank(self, X, base_scores, qid=None) -> np.ndarray:
        """Row indices of every list, best first, lists in input order.

        Returns
        -------
        ndarray of int64, shape (n_samples,)
            A permutation of ``0..n-1``.
        """
        self._check_k()
        X = np.asarray(X, dtype=np.float64)
        base = as_1d_float(base_scores, "base_scores")
        if X.shape[0] != base.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but base_scores has {base.shape[0]}")
        offsets = offsets_from_qid(qid, X.shape[0])
        coef = getattr(self, "coef_", None)
        if coef is None:
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("TopKReranker is not fitted yet; call fit first")
        use_model = self.fallback_ is None
        s = X @ coef if use_model else None
        out = []
        for a, b in zip(offsets[:-1], offsets[1:]):
            order = a + np.argsort(-base[a:b], kind="stable")
            k = (b - a) if self.k is None else min(int(self.k), b - a)
            if use_model and k > 0:
                top = order[:k]
                top = top[np.argsort(-s[top], kind="stable")]
                order = np.r_[top, order[k:]]
            out.append(order)
        return np.concatenate(out).astype(np.int64) if out else np.zeros(0, dtype=np.int64)

    def predict(self, X, base_scores, qid=None) -> np.ndarray:
        """Scores that reproduce :meth:`rerank`'s order: n − position within each list."""
        order = self.rerank(X, base_scores, qid)
        offsets = offsets_from_qid(qid, len(order))
        scores = np.empty(len(order))
        for a, b in zip(offsets[:-1], offsets[1:]):
            scores[order[a:b]] = np.arange(b - a, 0, -1, dtype=np.float64)
        return scores
