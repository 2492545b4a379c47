"""Out-of-fold scores of any ranker: each row scored by a model that never saw its query.

The base stage of a re-ranker must not score its own training queries (in-sample scores make the
training top K look perfect, and the second stage learns nothing); :func:`cross_fit_scores` gives
each row a score from a model fitted on the other folds.
"""

from __future__ import annotations

import inspect

import numpy as np
from sklearn.base import clone

from ._validation import group_offsets
from .queries import list_folds, list_index, rows_of

__all__ = ["cross_fit_scores", "fit_base", "score_base"]


def fit_base(est, X, y, qid):
    """Fit any ranker: ``fit(X, y, qid=...)``, ``fit(X, y, group=...)`` (LGBMRanker) or ``fit(X, y)``.

    ``qid=None`` is one list, said explicitly to the ranker.
    """
    qid = np.zeros(X.shape[0], dtype=np.int64) if qid is None else qid
    params = inspect.signature(est.fit).parameters
    if "qid" in params:
        return est.fit(X, y, qid=qid)
    if "group" in params:
        offsets = group_offsets(X.shape[0], qid=qid)
        return est.fit(X, y, group=np.diff(offsets))
    return est.fit(X, y)


def score_base(est, X):
    """One score per row: a ranker's ``predict``, a classifier's decision function, or
    the expected class of a multi-class classifier (graded labels)."""
    fn = getattr(est, "decision_function", None) or est.predict
    out = np.asarray(fn(X), dtype=np.float64)
    if out.ndim == 2 and out.shape[1] > 1:
        classes = np.asarray(getattr(est, "classes_", np.arange(out.shape[1])), dtype=np.float64)
        proba = est.predict_proba(X) if hasattr(est, "predict_proba") else np.exp(out) / np.exp(out).sum(1, keepdims=True)
        out = proba @ classes
    return out.reshape(-1)


def cross_fit_scores(estimator, X, y, qid=None, *, cv=5, random_state=0, time_limit=None):
    """Out-of-fold base scores: each row scored by a model that never saw its query.

    Parameters
    ----------
    estimator : object
        Any ranker with ``fit(X, y, qid=...)`` (or ``group=`` sizes, or plain
        ``fit(X, y)``) and ``predict`` / ``decision_function``; cloned per fold.
    X, y : array-like
    qid : array-like or GroupOffsets, default=None
        Contiguous query ids, or the validated groups of an estimator's :class:`RankingData`
        (its ``offsets``).  Without it, or with one query, the rows are one list: the folds are
        folds of its rows and each fold's model is fitted on one list.
    cv : int, default=5
        Folds over queries (one list: over rows).
    random_state : int, default=0
    time_limit : float, default=None
        Seconds the ``cv`` fits may take: after each fold the time of the rest is projected
        from the folds so far, and a projection past the limit raises ``TimeoutError`` then,
        not after the last fold.

    Returns
    -------
    scores : ndarray of shape (n_samples,)
    folds : ndarray of int64, shape (n_lists,)
        The fold of every query (one list: of every row).
    """
    import time

    t0 = time.perf_counter()
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y).reshape(-1)
    n = X.shape[0]
    offsets = group_offsets(n, qid=qid)
    one_list = offsets.shape[0] <= 2
    units = np.arange(n + 1, dtype=np.int64) if one_list else offsets  # one list: fold its rows
    n_units = units.shape[0] - 1
    cv = int(cv)
    if cv < 2 or cv > n_units:
        what = "rows of the one list (n_samples = " if one_list else "queries ("
        raise ValueError(f"cv must be between 2 and the number of {what}{n_units}), got {cv}")
    q = list_index(offsets)  # each row's list: the ids a fold's model is fitted on
    folds = list_folds(n_units, cv, random_state)
    scores = np.empty(n)
    for f in range(cv):
        test_rows = rows_of(units, np.flatnonzero(folds == f))
        train_rows = rows_of(units, np.flatnonzero(folds != f))
        model = fit_base(clone(estimator), X[train_rows], y[train_rows], q[train_rows])
        scores[test_rows] = score_base(model, X[test_rows])
        spent = time.perf_counter() - t0
        if time_limit is not None and f + 1 < cv and spent * cv / (f + 1) > time_limit:
            raise TimeoutError(f"cross-fitting the base model: {f + 1} of {cv} folds took {spent:.1f} s, so all "
                               f"{cv} would take about {spent * cv / (f + 1):.0f} s, past the {time_limit:g} s "
                               f"allowed; give precomputed out-of-fold scores, a faster base model or more time")
    return scores, folds
