"""Out-of-fold scores of any ranker: each row scored by a model that never saw its query.

The base stage of a re-ranker must not score its own training queries (in-sample scores make the
training top K look perfect, and the second stage learns nothing); :func:`cross_fit_scores` gives
each row a score from a model fitted on the other folds.  :func:`nested_cross_fit_scores` adds, for
each fold, the scores a second stage held out on that fold is trained on, so that a held-out
measurement sees the base as deployment does.
"""

from __future__ import annotations

import inspect

import numpy as np
from sklearn.base import clone

from .._validation import group_offsets
from ..queries import list_folds, list_index, rows_of

__all__ = ["cross_fit_scores", "nested_cross_fit_scores", "fit_base", "score_base"]


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

    Examples
    --------
    >>> import numpy as np, boostrank as br
    >>> data = br.datasets.make_letor(20, random_state=0)
    >>> scores, folds = cross_fit_scores(br.RankNCG(), data.X, data.y, data.qid, cv=4)
    >>> scores.shape == data.y.shape, sorted(set(folds.tolist()))
    (True, [0, 1, 2, 3])
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


def nested_cross_fit_scores(estimator, X, y, offsets, row_fold):
    """Base scores for a held-out gate that measures what deployment does.

    Deployment trains the second stage on cross-fitted base scores and applies it to the scores of
    a base refitted on every training query, a stronger one.  A gate over the same folds mirrors
    that one level down: on held-out fold f the base is fitted on all the other folds (``outer``),
    and the second stage is trained on the other folds' scores cross-fitted among themselves
    (``inner[f]``: each row scored by a base fitted on neither f nor the row's own fold).  One base
    per pair of folds serves both folds of the pair, so G folds cost G + G(G − 1)/2 fits.

    Parameters
    ----------
    estimator : object
        Any ranker :func:`fit_base` can fit; cloned per fit.
    X, y : ndarray
    offsets : ndarray of int64
        Validated list offsets of the rows.
    row_fold : ndarray of int64, shape (n_samples,)
        The fold of every row, 0 … G − 1 (whole lists, or rows within lists for a few long ones).

    Returns
    -------
    outer : ndarray of shape (n_samples,)
        Each row scored by a base fitted on every other fold: the cross-fitted scores over these folds.
    inner : ndarray of shape (G, n_samples)
        ``inner[f]``: the rows outside fold f scored by bases fitted outside f and their own fold; NaN in f.
    """
    n = X.shape[0]
    n_folds = int(row_fold.max()) + 1 if n else 0
    q = list_index(offsets)
    outer = np.empty(n)
    inner = np.full((n_folds, n), np.nan)
    jobs = [(f, None) for f in range(n_folds)] + [(f, g) for f in range(n_folds) for g in range(f + 1, n_folds)]
    for f, g in jobs:
        out = row_fold == f if g is None else (row_fold == f) | (row_fold == g)
        train_rows = np.flatnonzero(~out)
        model = fit_base(clone(estimator), X[train_rows], y[train_rows], q[train_rows])
        if g is None:
            rows = np.flatnonzero(out)
            outer[rows] = score_base(model, X[rows])
        else:
            in_f, in_g = np.flatnonzero(row_fold == f), np.flatnonzero(row_fold == g)
            inner[f, in_g] = score_base(model, X[in_g])
            inner[g, in_f] = score_base(model, X[in_f])
    return outer, inner
