"""Boosted models trained once for the export tests, the engines' own predictions and the export checks."""

from __future__ import annotations

import numpy as np
import pytest

import boostrank as br
from boostrank.export import score_export


lgb = pytest.importorskip("lightgbm")


xgb = pytest.importorskip("xgboost")


def nan_data(seed=0, n=1500, d=5):
    """float32-representable features with NaN, exact zeros and repeated values (so thresholds fall on ties)."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, d)), 2).astype(np.float32).astype(np.float64)
    X[rng.random(X.shape) < 0.08] = np.nan
    X[:, 3] = np.where(rng.random(n) < 0.4, 0.0, X[:, 3])
    y = (np.nan_to_num(X[:, 0]) + 0.5 * np.nan_to_num(X[:, 1]) + rng.normal(0, 0.5, n) > 0).astype(float)
    y += (np.nan_to_num(X[:, 2]) > 1).astype(float)
    return X, y, np.repeat(np.arange(n // 50), 50)


def models():
    X, y, qid = nan_data()
    sizes = np.bincount(qid)
    out = {
        "lightgbm-lambda-auc": br.LambdaRanker(objective="auc", n_estimators=30).fit(X, y, qid=qid),
        "lightgbm-binary": lgb.train({"objective": "binary", "verbose": -1, "num_leaves": 8}, lgb.Dataset(X, y > 0),
                                     20),
        "lightgbm-lambdarank": lgb.LGBMRanker(n_estimators=20, verbose=-1).fit(X, y, group=sizes),
        "xgboost-lambda-auc": br.LambdaRanker(objective="auc", engine="xgboost", n_estimators=30).fit(X, y, qid=qid),
        "xgboost-logistic": xgb.train({"objective": "binary:logistic", "max_depth": 3}, xgb.DMatrix(X, y > 0), 20),
    }
    return out, X


@pytest.fixture(scope="module")
def trained():
    return models()


def engine_leaves(model, X):
    booster = getattr(model, "booster_", model)
    if isinstance(booster, lgb.Booster):
        return booster.predict(X, pred_leaf=True, num_iteration=getattr(model, "best_iteration_", None))
    return booster.predict(xgb.DMatrix(X), pred_leaf=True).astype(np.int64)


def misrouted(export, forest, model, X):
    """Rows that the export's evaluator sends to another leaf than the engine's ``pred_leaf``, in some tree."""
    _, leaves = score_export(export, X, return_leaves=True)
    assert leaves.shape[1] == len(export.node_ids) == len(forest.trees)
    want = engine_leaves(model, X)
    bad = np.zeros(X.shape[0], dtype=bool)
    for t, tree in enumerate(forest.trees):
        bad |= tree.leaf_id[np.asarray(export.node_ids[t])[leaves[:, t]]] != want[:, t]
    return bad


def covered(export, X):
    """Rows with a value in some interval (or NaN entry) of ``export.inexact``."""
    out = np.zeros(X.shape[0], dtype=bool)
    for m in export.inexact:
        out |= m.covers(X[:, export.feature_names.index(m.feature)])
    np.testing.assert_array_equal(export.inexact_rows(X), out)
    return out
