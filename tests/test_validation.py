"""boostrank._validation: one rule for query groups, whatever their spelling."""

import numpy as np
import pytest

import boostrank as br


@pytest.mark.parametrize("spelling", [
    {"qid": [7, 7, 3, 3, 3]}, {"group": [2, 3]}, {"offsets": [0, 2, 5]},
])
def test_every_group_spelling_gives_the_same_offsets(spelling):
    np.testing.assert_array_equal(br.metrics.group_offsets(5, **spelling), [0, 2, 5])


def test_one_group_rule_everywhere():
    X = np.random.default_rng(0).normal(size=(6, 2))
    y = np.array([1, 0, 1, 0, 1, 0])
    q = [1, 1, 2, 2, 1, 1]
    for call in (lambda: br.auc(y, X[:, 0], q), lambda: br.MIPRanker(objective="auc", time_limit=1).fit(X, y, qid=q),
                 lambda: br.LambdaRanker(n_estimators=1).fit(X, y, qid=q), lambda: br.RankNCG().fit(X, y, qid=q)):
        with pytest.raises(ValueError, match="qid 1 is not contiguous"):
            call()
    with pytest.raises(ValueError, match="pass one of"):
        br.metrics.group_offsets(6, qid=q, group=[6])


@pytest.mark.parametrize("values", [
    [0.0, 4.0, 1.0, 4.0, 0.0], [-3.0, 2.0, -3.0], [0.5, 1.5, 0.5], [0.0, 1e9, 2.0], [-0.0, 0.0, 1.0], [7.0],
    list(np.random.default_rng(0).integers(0, 10_000, 200).astype(float)),
    list(np.random.default_rng(1).normal(size=50)), [],
])
def test_distinct_values_is_numpy_s_unique(values):
    """Integer grades of a small range are counted, not sorted; every other input goes to np.unique: the same
    values and inverse either way."""
    from boostrank._validation import distinct_values

    arr = np.asarray(values, dtype=np.float64)
    got, inverse = distinct_values(arr)
    want, want_inverse = np.unique(arr, return_inverse=True)
    assert np.array_equal(got, want) and np.array_equal(inverse, want_inverse.reshape(-1))
    assert inverse.dtype == np.int64

# warn_user: a warning names the user's line, once, whatever path in boostrank raised it


def test_the_long_list_warning_names_the_users_line_once(monkeypatch):
    """#47 item 6: it printed twice (the fit's check and the engine's callback) at internal lines."""
    import warnings

    import boostrank.objectives.objective as objectives

    monkeypatch.setattr(objectives, "LOGISTIC_WARN_PAIRS", 10**6)
    rng = np.random.default_rng(0)
    n = 4002
    X, y = rng.normal(size=(n, 2)), np.tile([0.0, 1.0], n // 2)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")
        br.LambdaRanker(link="logistic", n_estimators=2).fit(X, y, group=[n])
    ours = [w for w in seen if "pairs of differing labels" in str(w.message)]
    assert len(ours) == 1 and ours[0].filename == __file__
