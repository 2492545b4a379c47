"""Query splitting keeps lists whole; subsets and folds are checked against loops over the lists."""

import numpy as np
import pytest

from boostrank.queries import list_folds, list_index, list_subset, offsets_of, row_folds, rows_of, subset, \
    validation_split


def _offsets(sizes):
    return np.r_[0, np.cumsum(sizes)].astype(np.int64)


@pytest.mark.parametrize("sizes", [[], [0], [3], [2, 0, 5, 1], [4] * 30])
def test_offsets_and_list_index_agree_with_a_loop(sizes):
    off = offsets_of(np.array(sizes, dtype=np.int64))
    np.testing.assert_array_equal(off, _offsets(sizes))
    assert off.dtype == np.int64
    np.testing.assert_array_equal(list_index(off), [g for g, n in enumerate(sizes) for _ in range(n)])


@pytest.mark.parametrize("seed", range(5))
def test_subsets_and_folds_keep_every_list_whole(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 6, size=rng.integers(1, 25))
    off = _offsets(sizes)
    n = int(off[-1])
    keep = rng.random(n) < 0.5
    rows, sub_off = subset(off, keep)
    np.testing.assert_array_equal(rows, np.flatnonzero(keep))
    np.testing.assert_array_equal(np.diff(sub_off), [keep[a:b].sum() for a, b in zip(off[:-1], off[1:])])
    folds = list_folds(len(sizes), 3, seed)
    assert np.bincount(folds, minlength=3).max() - np.bincount(folds, minlength=3).min() <= 1
    chosen = np.flatnonzero(folds == 0)
    np.testing.assert_array_equal(rows_of(off, chosen), [i for g in chosen for i in range(off[g], off[g + 1])])
    rf = row_folds(off, 2, seed)
    if len(sizes) >= 4:  # whole lists per fold
        for a, b in zip(off[:-1], off[1:]):
            assert len(set(rf[a:b])) <= 1
    assert rf.shape == (n,) and set(rf) <= {0, 1}


def test_a_subset_of_lists_stays_under_the_pair_cap():
    off = _offsets([10, 10, 10, 10])
    groups = list_index(off)
    pair_rows = np.repeat(np.arange(40), 3)  # 30 pairs per list
    rows = list_subset(off, pair_rows, groups, 65, 0)
    assert len(set(groups[rows])) == 2 and len(rows) == 20
    assert list_subset(_offsets([10]), pair_rows[:30], groups[:10], 5, 0) is None


def test_the_hold_out_is_whole_queries_or_rows_of_one_list():
    off = _offsets([5] * 20)
    tr, tr_off, va, va_off, held = validation_split(off, 0.25, 0)
    assert held.sum() == 5 and len(va) == 25 and np.intersect1d(tr, va).size == 0
    np.testing.assert_array_equal(np.sort(np.r_[tr, va]), np.arange(100))
    assert validation_split(_offsets([5] * 9), 0.25, 0) is None  # too few queries to hold any out
