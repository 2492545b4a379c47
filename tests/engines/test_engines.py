"""boostrank.engines: the engines' call forms of boostrank's objectives and metrics, their parameters and extras."""

import numpy as np
import pytest

import boostrank as br

from ..conftest import nonlinear_letor


# ---------------------------------------------------------------- item 4: one list said aloud at predict
def _lists(seed=0, n_q=8, size=12, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_q * size, d))
    y = (X[:, 0] + rng.normal(size=n_q * size) > 0.5).astype(int)
    return X, y, np.repeat(np.arange(n_q), size)


# ---------------------------------------------------------------- item 14: the engines' raw errors
def test_features_beyond_float32_are_named_for_xgboost():
    pytest.importorskip("xgboost")
    X, y, qid = _lists(14)
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


def test_our_metrics_never_merge_with_lightgbm_builtins():
    import lightgbm as lgb

    d = nonlinear_letor(30, 3)
    ds = lgb.Dataset(d.X, d.y, group=d.group_sizes)
    record = {}
    lgb.train({"objective": "lambdarank", "metric": "auc", "verbose": -1}, ds, 3, valid_sets=[ds],
              valid_names=["train"], feval=br.lightgbm_metric("auc"), callbacks=[lgb.record_evaluation(record)])
    assert set(record["train"]) == {"auc", "br_auc"}
    assert len(record["train"]["br_auc"]) == 3


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


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_eval_metric_aliases_and_names_reach_the_engine(engine):
    train, valid = nonlinear_letor(20, 1), nonlinear_letor(10, 2)
    r = br.LambdaRanker(engine=engine, n_estimators=3, eval_metric=["auc_pessimistic", "err@5", "p@3"])
    r.fit(train.X, train.y, qid=train.qid, eval_set=[(valid.X, valid.y)], eval_qid=[valid.qid])
    assert set(r.evals_result_["valid_0"]) == {"br_auc_pessimistic", "br_err@5", "br_p@3"}
    with pytest.raises(ValueError, match="unknown metric"):
        br.LambdaRanker(engine=engine, n_estimators=3, eval_metric="ndgc@5").fit(train.X, train.y, qid=train.qid)
