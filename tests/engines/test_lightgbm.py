"""boostrank.engines.lightgbm: LightGBM's call forms and its metric names."""

import boostrank as br

from ..conftest import nonlinear_letor


def test_our_metrics_never_merge_with_lightgbm_builtins():
    import lightgbm as lgb

    d = nonlinear_letor(30, 3)
    ds = lgb.Dataset(d.X, d.y, group=d.group_sizes)
    record = {}
    lgb.train({"objective": "lambdarank", "metric": "auc", "verbose": -1}, ds, 3, valid_sets=[ds],
              valid_names=["train"], feval=br.lightgbm_metric("auc"), callbacks=[lgb.record_evaluation(record)])
    assert set(record["train"]) == {"auc", "br_auc"}
    assert len(record["train"]["br_auc"]) == 3
