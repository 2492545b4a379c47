"""boostrank.mip._data: the pair statistic of a list of rows, weights and preference pairs, against brute force."""

import numpy as np
import pytest

import boostrank as br
from boostrank.mip import rank_data

from ..reference import line_candidates
from .conftest import CASES, CASE_IDS


@pytest.mark.parametrize("case", range(len(CASES)), ids=CASE_IDS)
@pytest.mark.parametrize("seed", range(6))
def test_pair_statistic_equals_the_metric_and_line_sweep_equals_brute_force(case, seed):
    statistic, kw, make = CASES[case]
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(1, 14)), int(rng.integers(1, 4))
    X = rng.integers(0, 3, size=(n, d)).astype(float)
    y = (rng.random(n) < 0.4).astype(int)
    data = rank_data(X, y.astype(float), np.zeros(n, dtype=np.int64), np.ones(n), statistic, **kw)
    stat = make(y)
    for _ in range(3):
        w, v = rng.normal(size=d), rng.normal(size=d)
        if statistic != "rank_risk" or kw["rank"] == "min":  # resolved: exact away from ties
            w = w.round(1)
        assert data.value(w) == pytest.approx(stat(X @ w), nan_ok=True) or np.isnan(stat(X @ w))
        best, t = data.line(w, v)
        brute = max(stat(X @ (w + tt * v)) for tt in line_candidates(X, w, v))
        if not np.isnan(brute):
            assert best == pytest.approx(brute)
            assert stat(X @ (w + t * v)) == pytest.approx(best)


def test_pair_statistic_over_lists_weights_and_preference_pairs():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, size=(30, 3)).astype(float)
    y = rng.integers(0, 3, size=30)
    qid = np.repeat([0, 1, 2], 10)
    g = qid.astype(np.int64)
    w = rng.normal(size=3)
    s = X @ w
    auc_data = rank_data(X, (y > 1).astype(float), g, np.ones(30), "auc")
    assert auc_data.value(w) == pytest.approx(br.auc((y > 1).astype(int), s, qid, ties="pessimistic"))
    pi = rank_data(X, y.astype(float), g, np.ones(30), "auc_pi")
    assert pi.value(w) == pytest.approx(br.wmw(y, s, qid, ties="pessimistic", average="pairs"))
    rep = rng.integers(1, 3, size=30)
    weighted = rank_data(X, (y > 1).astype(float), g, rep.astype(float), "rank_risk", a="dcg@4")
    ex = br.rank_risk(np.repeat((y > 1).astype(int), rep), np.repeat(s, rep), "dcg@4", qid=np.repeat(qid, rep),
                      per_query=True).sum()
    assert weighted.value(w) == pytest.approx(ex)
