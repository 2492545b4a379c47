"""The re-ranker's held-out gate: is the second stage better than the base order on lists it never saw?

Each candidate's gain is its statistic minus the base order's on every held-out list.  The best
candidate's own held-out gains overstate what choosing it gains (the winner of several noisy
estimates is the one whose noise was kindest), so the gate measures the choice itself: each fold's
lists are scored by the candidate the *other* folds' gains chose, and the second stage is kept only
if a one-sided t-test says those per-list gains are positive.  The lists of one fold share one
fitted model, so their gains move together: the test's standard error is clustered by fold
(Liang & Zeger 1986; G − 1 degrees of freedom for G folds), not the per-list one, which would
count the lists as independent and keep second stages whose gain was one lucky fit.  When the base
itself is refitted in every fold (a ``base_estimator``), the folds' models are fitted on overlapping
lists and their gains move together beyond what the folds' spread shows: the variance is then
corrected as Nadeau & Bengio (2003) correct cross-validation's, by 1 + G·n_test/n_train.  The mean
is the gate's estimate of the gain per list, and the candidate with the largest total over all
folds is the one fitted.
"""

from __future__ import annotations

import numpy as np

__all__ = ["clustered_p", "choose"]


def clustered_p(diffs, cluster, overlap: bool = False):
    """Mean, cluster-robust standard error and one-sided p-value that the mean of ``diffs`` is positive.

    The standard error is the CR1 sandwich over the clusters (the gate's folds):
    G/(G − 1) · Σ_g (Σ_{i∈g} (d_i − d̄))² / n², and the t statistic has G − 1 degrees of freedom.
    With fewer than two clusters holding values there is no test (p = 1).

    With ``overlap`` the values of each cluster come from a model fitted on the other clusters, so
    the clusters' models share their training lists: the variance is multiplied by
    1 + G · mean_g(n_g / (n − n_g)), Nadeau & Bengio's (2003) correction of the cross-validated
    variance, (1/J + n_test/n_train) · σ² against σ²/J (2.25 for five equal folds).
    """
    from scipy import stats

    diffs = np.asarray(diffs, dtype=np.float64)
    cluster = np.asarray(cluster)
    n = diffs.size
    if n == 0:
        return 0.0, float("nan"), 1.0
    mean = float(diffs.mean())
    _, idx = np.unique(cluster, return_inverse=True)
    sums = np.bincount(idx, weights=diffs - mean)
    g = sums.size
    if g < 2:
        return mean, float("nan"), 1.0
    var = g / (g - 1) * np.sum(sums ** 2) / n ** 2
    if overlap:
        sizes = np.bincount(idx).astype(np.float64)
        var *= 1.0 + g * float(np.mean(sizes / (n - sizes)))
    se = float(np.sqrt(var))
    if se == 0:
        return mean, 0.0, 0.0 if mean > 0 else 1.0
    return mean, se, float(stats.t.sf(mean / se, g - 1))


def choose(per_fold_gains: dict, overlap: bool = False):
    """The candidate to fit, every candidate's total, and the held-out gains of choosing.

    Parameters
    ----------
    per_fold_gains : dict
        {candidate: list of ndarrays, one per fold, of the per-list gains over the base order on
        that fold's held-out lists}; candidates in order of preference on ties.
    overlap : bool, default=False
        The base was refitted in each fold: :func:`clustered_p`'s correction for models fitted on
        overlapping lists.

    Returns
    -------
    best : the candidate with the largest total gain over every fold
    gains : dict
        {candidate: total gain over every held-out list}
    chosen : ndarray
        Per held-out list, the gain of the candidate chosen by the other folds' totals (with one
        fold, the best candidate's own gains).
    mean, se, p : float
        ``chosen``'s mean, its standard error clustered by fold (corrected with ``overlap``), and the
        one-sided p-value that the mean is positive (:func:`clustered_p`).
    """
    cands = list(per_fold_gains)
    totals = np.array([[float(np.sum(g)) for g in per_fold_gains[c]] for c in cands])  # candidate × fold
    gains = {c: float(totals[i].sum()) for i, c in enumerate(cands)}
    best = cands[int(np.argmax(totals.sum(axis=1)))]
    n_folds = totals.shape[1]
    parts = []
    for f in range(n_folds):
        pick = best if n_folds < 2 else cands[int(np.argmax(totals.sum(axis=1) - totals[:, f]))]  # without fold f
        parts.append(np.asarray(per_fold_gains[pick][f], dtype=np.float64))
    chosen = np.concatenate(parts) if parts else np.zeros(0)
    fold = np.repeat(np.arange(n_folds), [p.size for p in parts])
    return best, gains, chosen, *clustered_p(chosen, fold, overlap)
