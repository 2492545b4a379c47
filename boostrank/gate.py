"""The re-ranker's held-out gate: is the best second stage better than the base order on lists it never saw?

Each candidate's gain is its statistic minus the base order's on every held-out list; the best
candidate by total gain is kept only if a one-sided paired t-test over lists, Bonferroni-corrected for
the number of candidates it was chosen from, says its gain is positive.
"""

from __future__ import annotations

import numpy as np

__all__ = ["one_sided_p", "choose"]


def one_sided_p(diffs):
    """p-value of a one-sided paired t-test that the mean per-list gain is positive."""
    from scipy import stats

    diffs = np.asarray(diffs, dtype=np.float64)
    if diffs.size < 2:
        return 1.0
    sd = diffs.std(ddof=1)
    if sd == 0:
        return 0.0 if diffs.mean() > 0 else 1.0
    t = diffs.mean() / (sd / np.sqrt(diffs.size))
    return float(stats.t.sf(t, diffs.size - 1))


def choose(per_list_gains: dict):
    """The candidate with the largest total held-out gain, every candidate's total, and the selection's p-value.

    Parameters
    ----------
    per_list_gains : dict
        {candidate: ndarray of per-list gains over the base order}

    Returns
    -------
    best, gains, p : the chosen key, {candidate: total gain}, Bonferroni-corrected one-sided p
    """
    gains = {c: float(np.sum(v)) for c, v in per_list_gains.items()}
    best = max(per_list_gains, key=lambda c: gains[c])
    return best, gains, min(1.0, len(per_list_gains) * one_sided_p(per_list_gains[best]))
