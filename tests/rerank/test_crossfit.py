"""boostrank.rerank.crossfit: out-of-fold base scores (one list folded by rows, the time limit's projection)."""

import warnings

import numpy as np
import pytest

import boostrank as br
from boostrank import OneListWarning
from ..conftest import small_lists


# ---------------------------------------------------------------- item 15: the cross-fit keeps to the budget
class _SlowRanker:
    fits = 0

    def __init__(self, pause=0.3):
        self.pause = pause

    def get_params(self, deep=True):
        return {"pause": self.pause}

    def set_params(self, **kw):
        self.pause = kw.get("pause", self.pause)
        return self

    def fit(self, X, y, qid=None):
        import time

        type(self).fits += 1
        time.sleep(self.pause)
        return self

    def predict(self, X):
        return np.asarray(X)[:, 0]


def test_cross_fit_stops_as_soon_as_its_projection_passes_the_time_limit():
    from boostrank.rerank import cross_fit_scores

    X, y, qid = small_lists(17, n_q=10)
    _SlowRanker.fits = 0
    with pytest.raises(TimeoutError, match=r"1 of 5 folds took .* all 5 would take about"):
        cross_fit_scores(_SlowRanker(0.3), X, y, qid, cv=5, time_limit=0.6)
    assert _SlowRanker.fits == 1  # not all five: the command learns it after one fold
    scores, _ = cross_fit_scores(_SlowRanker(0.0), X, y, qid, cv=5, time_limit=60)
    np.testing.assert_array_equal(scores, X[:, 0])


@pytest.mark.parametrize("base", [br.RankNCG(), br.LambdaRanker(n_estimators=20, min_child_samples=5)])
def test_cross_fitting_one_list_fits_one_list_per_fold(base):
    """0.1 cross-fitted one list with every row as its own query: the base learned nothing (or failed)."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] - X[:, 1] + 0.5 * rng.normal(size=300) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", OneListWarning)
        scores, folds = br.cross_fit_scores(base, X, y, cv=3)
    assert folds.shape == (300,) and set(folds) == {0, 1, 2}
    assert br.auc(y, scores) > 0.8
    with pytest.raises(ValueError, match="n_samples = 2"):
        br.cross_fit_scores(base, X[:2], y[:2], cv=3)


# ---------------------------------------------------------------- issue 81: the gate sees the base as deployed
class _CountingLinear:
    """A deterministic regressor (least squares) that counts its fits."""

    fits = 0

    def get_params(self, deep=True):
        return {}

    def set_params(self, **kw):
        return self

    def fit(self, X, y):
        type(self).fits += 1
        A = np.column_stack([X, np.ones(len(X))])
        self.coef_ = np.linalg.lstsq(A, y, rcond=None)[0]
        return self

    def predict(self, X):
        return np.column_stack([X, np.ones(len(X))]) @ self.coef_


@pytest.mark.parametrize("n_folds", [3, 4, 5])
@pytest.mark.parametrize("seed", [0, 1])
def test_nested_cross_fit_scores_equal_one_fit_per_fold_pair(n_folds, seed):
    from boostrank.rerank.crossfit import nested_cross_fit_scores
    from boostrank.queries import row_folds

    from ..reference import nested_cross_fit_reference

    X, y, qid = small_lists(seed, n_q=12)
    offsets = br.metrics.group_offsets(len(y), qid=qid)
    row_fold = row_folds(offsets, n_folds, seed)
    _CountingLinear.fits = 0
    outer, inner = nested_cross_fit_scores(_CountingLinear(), X, y.astype(float), offsets, row_fold)
    assert _CountingLinear.fits == n_folds + n_folds * (n_folds - 1) // 2  # one fit serves both folds of a pair
    ref_outer, ref_inner = nested_cross_fit_reference(_CountingLinear, X, y.astype(float), row_fold)
    np.testing.assert_allclose(outer, ref_outer, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(inner, ref_inner, rtol=1e-10, atol=1e-12)
    for f in range(n_folds):
        assert np.isnan(inner[f, row_fold == f]).all() and not np.isnan(inner[f, row_fold != f]).any()


@pytest.mark.parametrize("gate, cv, against, fits", [(5, 5, "nested", 5 + 10 + 1), (3, 3, "nested", 3 + 3 + 1),
                                                     (4, 5, "nested", 4 + 6 + 5 + 1), (2, 5, "cross-fitted", 5 + 1),
                                                     (0, 5, "", 5 + 1)])
def test_the_gate_measures_against_the_base_deployment_uses(gate, cv, against, fits):
    X, y, qid = small_lists(3, n_q=20, size=10)
    _CountingLinear.fits = 0
    rr = br.TopKReranker(k=4, gate=gate, cv=cv, base_estimator=_CountingLinear(), time_limit=None,
                         random_state=0).fit(X, y, qid=qid)
    res = rr.result_
    assert _CountingLinear.fits == fits
    assert res.gate_against == against
    if gate:
        assert np.isfinite(res.gate_gain) and res.gate_se >= 0 and np.isfinite(res.gate_se)
        assert "the gate's base order" in res.summary()
    else:
        assert res.gate_gain is None and res.gate_se is None and "gate's base order" not in res.summary()


def test_given_base_scores_are_what_the_gate_measures_against():
    X, y, qid = small_lists(4, n_q=20, size=10)
    rr = br.TopKReranker(k=4, time_limit=None, random_state=0).fit(X, y, qid=qid, base_scores=X[:, 1])
    assert rr.result_.gate_against == "given" and "base_scores passed" in rr.result_.summary()
