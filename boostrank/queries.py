"""Whole queries, split: the hold-out for early stopping, folds, and subsets of lists.

Every split in boostrank keeps a query whole (a fold that cut a list would measure a
different ranking), except on one list, where the rows themselves are the units.  Lists
are described by their ``offsets`` (``offsets[g]:offsets[g + 1]`` are the rows of list g).
"""

from __future__ import annotations

import numpy as np

__all__ = ["offsets_of", "validation_split", "list_folds", "row_folds", "rows_of", "subset", "list_subset", "list_index",
           "HOLDOUT_MIN_QUERIES", "HOLDOUT_MIN_ROWS"]


def offsets_of(sizes) -> np.ndarray:
    """Offsets (int64, starting at 0) of consecutive lists of the given sizes."""
    return np.concatenate(([0], np.cumsum(sizes, dtype=np.int64))).astype(np.int64)


def list_index(offsets) -> np.ndarray:
    """The list number of every row (0, 0, …, 1, 1, …) of lists given by ``offsets``."""
    offsets = np.asarray(offsets, dtype=np.int64)
    return np.repeat(np.arange(offsets.shape[0] - 1, dtype=np.int64), np.diff(offsets))


#: below these sizes the automatic validation split is skipped (too little to hold out)
HOLDOUT_MIN_QUERIES = 10
HOLDOUT_MIN_ROWS = 100


def validation_split(offsets, fraction, random_state):
    """Rows of an automatic early-stopping split: a share of whole queries (one list: of rows).

    Parameters
    ----------
    offsets : ndarray of int64
    fraction : float
        Share of the queries (one list: of the rows) held out, in (0, 1).
    random_state : int, RandomState or None

    Returns
    -------
    (train_rows, train_offsets, valid_rows, valid_offsets, valid_queries) or None
        None when the data is too small to hold anything out (fewer than
        ``HOLDOUT_MIN_QUERIES`` queries, or one list of fewer than ``HOLDOUT_MIN_ROWS`` rows).
        ``valid_queries`` is a boolean mask over queries (None for one list).
    """
    from sklearn.utils import check_random_state  # here: br.auc imports this module and not scikit-learn

    rng = check_random_state(random_state)
    n_queries = offsets.shape[0] - 1
    n = int(offsets[-1])
    if n_queries == 1:
        if n < HOLDOUT_MIN_ROWS:
            return None
        held = np.zeros(n, dtype=bool)
        held[rng.choice(n, size=max(1, int(round(fraction * n))), replace=False)] = True
        rows = np.arange(n)
        return (rows[~held], np.array([0, n - held.sum()], dtype=np.int64), rows[held],
                np.array([0, held.sum()], dtype=np.int64), None)
    if n_queries < HOLDOUT_MIN_QUERIES:
        return None
    held_q = np.zeros(n_queries, dtype=bool)
    held_q[rng.choice(n_queries, size=max(1, int(round(fraction * n_queries))), replace=False)] = True
    sizes = np.diff(offsets)
    held = np.repeat(held_q, sizes)
    rows = np.arange(n)

    def offs(mask):
        return offsets_of(sizes[mask])

    return rows[~held], offs(~held_q), rows[held], offs(held_q), held_q


def list_folds(n_lists, n_folds, random_state):
    """Fold number of every list (lists dealt at random, as equal as possible)."""
    rng = np.random.default_rng(random_state)
    folds = np.empty(n_lists, dtype=np.int64)
    folds[rng.permutation(n_lists)] = np.arange(n_lists) % max(n_folds, 1)
    return folds


def rows_of(offsets, lists):
    """Row indices of the given lists, in list order (queries stay contiguous)."""
    if len(lists) == 0:
        return np.zeros(0, dtype=np.int64)
    return np.concatenate([np.arange(offsets[g], offsets[g + 1]) for g in lists]).astype(np.int64)


def subset(offsets, keep):
    """Rows where ``keep`` (list order kept) and the offsets of the lists they form."""
    rows = np.flatnonzero(keep).astype(np.int64)
    counts = np.add.reduceat(keep.astype(np.int64), offsets[:-1]) if offsets.shape[0] > 1 and keep.size else \
        np.zeros(0, dtype=np.int64)
    counts = np.where(np.diff(offsets) > 0, counts, 0)
    return rows, offsets_of(counts)


def row_folds(offsets, n_folds, seed) -> np.ndarray:
    """Fold of every row: whole lists dealt to folds when there are at least two per fold, else the rows of
    each list dealt at random (a few long lists)."""
    n_lists = offsets.shape[0] - 1
    if n_lists >= 2 * n_folds:
        return np.repeat(list_folds(n_lists, n_folds, seed), np.diff(offsets))
    rng = np.random.default_rng(seed)
    n = int(offsets[-1])
    folds = np.empty(n, dtype=np.int64)
    folds[rng.permutation(n)] = np.arange(n) % n_folds
    return folds


def list_subset(offsets, pair_rows, groups, max_pairs, random_state):
    """Rows of a random set of lists whose pairs (one row of each pair in ``pair_rows``) stay within
    ``max_pairs`` (None for one list, or when no list fits)."""
    n_lists = offsets.shape[0] - 1
    if n_lists < 2:
        return None
    row_list = list_index(offsets)
    per_list = np.bincount(row_list[pair_rows], minlength=n_lists)
    order = np.random.default_rng(random_state).permutation(n_lists)
    keep = order[np.cumsum(per_list[order]) <= max_pairs]
    if keep.size == 0:
        return None
    return np.flatnonzero(np.isin(groups, keep))
