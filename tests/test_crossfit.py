"""boostrank.crossfit: out-of-fold base scores (one list folded by rows, the time limit's projection)."""

import warnings

import numpy as np
import pytest

import boostrank as br
from boostrank import OneListWarning


# ---------------------------------------------------------------- item 4: one list said aloud at predict
def _lists(seed=0, n_q=8, size=12, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_q * size, d))
    y = (X[:, 0] + rng.normal(size=n_q * size) > 0.5).astype(int)
    return X, y, np.repeat(np.arange(n_q), size)


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

    X, y, qid = _lists(17, n_q=10)
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
