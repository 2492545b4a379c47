"""boostrank._kernels.order: float keys, the stable sort within groups and the pessimistic orders, against NumPy's
sorts."""

import numpy as np
import pytest
from numba import njit

from boostrank._kernels.order import descending_within_groups, float_key, key_float, sort_within_groups

from .. import reference as ref


@njit(cache=True)
def _keys(x, out, back):
    for i in range(x.shape[0]):
        out[i] = float_key(x[i])
        back[i] = key_float(out[i])


@pytest.mark.parametrize("seed", range(5))
def test_float_keys_sort_like_the_floats_and_invert(seed):
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.normal(size=200) * 10.0 ** rng.integers(-300, 300, 200),
                        [0.0, -0.0, np.inf, -np.inf, 5e-324, -5e-324, 1.7976931348623157e308, -2.2e-308],
                        np.round(rng.normal(size=50), 1)])
    rng.shuffle(x)
    keys, back = np.empty(x.size, np.uint64), np.empty(x.size, np.uint64)
    _keys(x, keys, back)
    np.testing.assert_array_equal(np.argsort(keys, kind="stable"), np.argsort(x, kind="stable"))
    want = np.where(x == 0.0, 0.0, x)  # −0.0 ties with 0.0: it comes back as +0.0
    np.testing.assert_array_equal(back.view(np.float64), want)
    assert np.all((keys[:, None] == keys[None, :]) == (x[:, None] == x[None, :]))


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("sizes", [[0], [1], [0, 3, 0, 2], [5, 1, 7], [40]])
def test_sort_within_groups_is_a_stable_argsort_per_group(sizes, descending):
    rng = np.random.default_rng(len(sizes))
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    s = np.round(rng.normal(size=offsets[-1]), 1)
    want = np.concatenate([a + np.argsort(-s[a:b] if descending else s[a:b], kind="stable")
                           for a, b in zip(offsets[:-1], offsets[1:])] + [np.zeros(0, dtype=np.int64)])
    np.testing.assert_array_equal(sort_within_groups(s, offsets, descending), want)


@pytest.mark.parametrize("sizes", [[], [0], [1], [0, 3, 0, 2], [5, 1, 7], [400, 1, 0, 33]])
@pytest.mark.parametrize("grades", ["binary", "graded", "negative", "huge"])
def test_descending_within_groups_gives_each_groups_grades_largest_first(sizes, grades):
    """Qrels' ideal grades: gathered by rows (any order), each group sorted largest first, ties and all."""
    rng = np.random.default_rng(sum(sizes))
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    n = int(offsets[-1])
    values = {"binary": rng.integers(0, 2, n), "graded": rng.integers(0, 5, n), "negative": rng.integers(-2, 3, n),
              "huge": rng.integers(-2 ** 62, 2 ** 62, n)}[grades].astype(np.int64)
    rows = rng.permutation(n).astype(np.int64)
    out = np.full(n, np.nan)
    got = descending_within_groups(values, rows, offsets, out)
    assert got is out
    np.testing.assert_array_equal(got, ref.ideal_grades_reference(values, rows, offsets))


@pytest.mark.parametrize("start", ["identity", "sorted", "near", "shuffled"])
@pytest.mark.parametrize("n,classes,levels", [(0, 2, 0), (1, 2, 0), (2, 1, 0), (7, 3, 1), (60, 2, 1), (60, 5, 2),
                                              (300, 2, None)])
def test_pessimistic_orders_match_the_reference(n, classes, levels, start):
    """Score descending, ties lower label first, then input order: from scratch and from any start."""
    from boostrank._kernels.order import pessimistic_order, pessimistic_reorder

    from .. import reference as ref

    rng = np.random.default_rng(n + classes)
    s = rng.normal(size=n) if levels is None else np.round(rng.normal(size=n), levels)
    y = rng.integers(0, classes, size=n)
    want = ref.pessimistic_order(s, y)
    np.testing.assert_array_equal(pessimistic_order(s, y, 0, n), want)
    order = {"identity": np.arange(n), "sorted": want.copy(), "shuffled": rng.permutation(n),
             "near": want.copy()}[start].astype(np.int64)
    if start == "near" and n > 3:
        order[[1, 2]] = order[[2, 1]]
    pad = np.concatenate([[0.5, -0.5], s])  # a list that starts at a = 2
    pad_y = np.concatenate([[1, 0], y])
    full = np.concatenate([[0, 1], order])
    pessimistic_reorder(pad, pad_y, 2, 2 + n, full)
    np.testing.assert_array_equal(full[2:], want)
    np.testing.assert_array_equal(ref.ascending_pessimistic_order(s, y), want[::-1])
