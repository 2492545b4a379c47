"""The re-ranker's held-out gate: is the second stage better than the base order on lists it never saw?

Each candidate's gain is its statistic minus the base order's on every held-out list.  The best
candidate's own held-out gains overstate what choosing it gains (the winner of several noisy
estimates is the one whose noise was kindest), so the gate measures the choice itself: each fold's
lists are scored by the candidate the *other* folds' gains chose, and the second stage is kept only
if a one-sided t-test says those per-list gains are positive.  The lists of one fold share one
fitted model, so their gains move together: the test's standard error is clustered by fold
(Liang & Zeger 1986; G − 1 degrees of freedom for G folds), not the per-list one, which would
count the lists as independent and keep second stages whose gain was one lucky fit.  The mean is
the gate's estimate of the gain per list, and the candidate with the largest total over all folds
is the one fitted.
"""

from __future__ import annotations

import numpy as np

__all__ = ["clustered_p", "choose"]


def clustered_p(diffs, cluster):
    """Mean, cluster-robust standard error and one-sided p-value that the mean of ``diffs`` is positive.

    The standard error is the CR1 sandwich over the clusters (the gate's folds):
    G/(G − 1) · Σ_g (Σ_{i∈g} (d_i − d̄))² / n², and the t statistic has G − 1 degrees of freedom.
    With fewer than two clusters holding values there is no test (p = 1).
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
    se = float(np.sqrt(g / (g - 1) * np.sum(sums ** 2)) / n)
    if se == 0:
        return mean, 0.0, 0.0 if mean > 0 else 1.0
    return mean, se, float(stats.t.sf(mean / se, g - 1))


def choose(per_fold_gains: dict):
    """The candidate to fit, every candidate's total, and the held-out gains of choosing.

    Parameters
    ----------
    per_fold_gains : dict
        {candidate: list of ndarrays, one per fold, of the per-list gains over the base order on
        that fold's held-out lists}; candidates in order of preference on ties.

    Returns
    -------
    best : the candidate with the largest total gain over every fold
    gains : dict
        {candidate: total gain over every held-out list}
    chosen : ndarray
        Per held-out list, the gain of the candidate chosen by the other folds' totals (with one
        fold, the best candidate's own gains).
    mean, se, p : float
        ``chosen``'s mean, its standard error clustered by fold, and the one-sided p-value that the
        mean is positive (:func:`clustered_p`).
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
    return best, gains, chosen, *clustered_p(chosen, fold)
