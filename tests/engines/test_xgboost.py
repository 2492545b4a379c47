"""boostrank.engines.xgboost: XGBoost's call forms, its raw errors named and its early stopping."""

import numpy as np
import pytest

import boostrank as br

from ..conftest import nonlinear_letor, small_lists


def test_features_beyond_float32_are_named_for_xgboost():
    pytest.importorskip("xgboost")
    X, y, qid = small_lists(14)
    X[3, 1] = 1e300
    with pytest.raises(ValueError, match=r"1e\+300 .* beyond float32's range"):
        br.LambdaRanker(engine="xgboost", n_estimators=2).fit(X, y, qid=qid)


def test_raw_xgboost_early_stopping_maximises_our_metric():
    import xgboost as xgb

    train, valid = nonlinear_letor(60, 1), nonlinear_letor(30, 2)
    metric = br.xgboost_metric("mauc")
    dt, dv = xgb.DMatrix(train.X, train.y, qid=train.qid), xgb.DMatrix(valid.X, valid.y, qid=valid.qid)
    log = {}
    b = xgb.train({"min_child_weight": 1e-3, "disable_default_eval_metric": 1, "eta": 0.3}, dt, 100,
                  obj=br.xgboost_objective("mauc"), evals=[(dv, "valid")], custom_metric=metric,
                  callbacks=[metric.early_stopping(3)], evals_result=log, verbose_eval=False)
    hist = log["valid"]["br_mauc"]
    assert b.best_iteration == int(np.argmax(hist)) and hist[b.best_iteration] > hist[0]


def test_missing_xgboost_names_the_extra(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_xgboost(name, *args, **kw):
        if name == "xgboost":
            raise ImportError("No module named 'xgboost'")
        return real(name, *args, **kw)

    monkeypatch.setattr(builtins, "__import__", no_xgboost)
    d = nonlinear_letor(3, 1)
    with pytest.raises(ImportError, match=r"boostrank\[xgboost\]"):
        br.LambdaRanker(engine="xgboost", n_estimators=2).fit(d.X, d.y, qid=d.qid)
