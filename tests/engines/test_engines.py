"""boostrank.engines: one interface for both engines, their metric names and aliases."""

import pytest

import boostrank as br

from ..conftest import nonlinear_letor


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_eval_metric_aliases_and_names_reach_the_engine(engine):
    train, valid = nonlinear_letor(20, 1), nonlinear_letor(10, 2)
    r = br.LambdaRanker(engine=engine, n_estimators=3, eval_metric=["auc_pessimistic", "err@5", "p@3"])
    r.fit(train.X, train.y, qid=train.qid, eval_set=[(valid.X, valid.y)], eval_qid=[valid.qid])
    assert set(r.evals_result_["valid_0"]) == {"br_auc_pessimistic", "br_err@5", "br_p@3"}
    with pytest.raises(ValueError, match="unknown metric"):
        br.LambdaRanker(engine=engine, n_estimators=3, eval_metric="ndgc@5").fit(train.X, train.y, qid=train.qid)
