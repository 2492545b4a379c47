"""Exported boosted models against the engines that trained them, on real data (MQ2008), per target and version.

Protocol of issue #59: λ-AUC LambdaRankers of both engines (the defaults) and a LightGBM binary model trained with
15 % of the features NaN, all trained on MQ2008 vali; rows: MQ2008 test plus, per split, rows on its threshold,
its float32 and double neighbours and the float32 rounding midpoints, NaN and ±0 (``br.export.threshold_rows``),
plus the test rows with 15 % NaN.  Each model is exported to every target (Vespa with float and with double
attributes) and scored by ``br.score_export`` (the target's comparison, from its source).  Per export the table
gives the rows whose leaf differs from the engine's own ``pred_leaf`` in some tree, how many of them
``ModelExport.inexact`` does not list (must be 0), the listed intervals and how many hold a float32 value, and
the largest score difference on the rows no interval lists.

Run:  python benchmarks/export_check.py [--json out.json]
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np

import boostrank as br
from boostrank.engines import forest_of
from boostrank.export import TREE_FORMATS, ExportWarning, threshold_rows

from _common import DATA, write_json

HERE = Path(__file__).resolve().parent


def raw_and_leaves(model, X):
    import lightgbm as lgb

    if isinstance(model, lgb.Booster):
        return model.predict(X, raw_score=True), model.predict(X, pred_leaf=True)
    if model.engine == "lightgbm":
        return model.predict(X), model.booster_.predict(X, num_iteration=model.best_iteration_, pred_leaf=True)
    import xgboost as xgb

    rng = (0, 0) if model.best_iteration_ is None else (0, model.best_iteration_)
    return model.predict(X), model.booster_.predict(xgb.DMatrix(X), pred_leaf=True, iteration_range=rng)


def main(argv=None):
    import lightgbm as lgb

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", default=str(HERE / "results" / "export_check.json"))
    args = ap.parse_args(argv)
    train = br.load_letor(DATA / "mq2008" / "vali.txt", sparse=False)
    test = br.load_letor(DATA / "mq2008" / "test.txt", sparse=False, n_features=train.n_features)
    rng = np.random.default_rng(0)
    with_nan = np.where(rng.random(train.X.shape) < 0.15, np.nan, train.X)
    models = {
        "λ-AUC LightGBM": br.LambdaRanker(objective="auc").fit(train.X, train.y, qid=train.qid),
        "λ-AUC XGBoost": br.LambdaRanker(objective="auc", engine="xgboost").fit(train.X, train.y, qid=train.qid),
        "LightGBM binary, NaN": lgb.train({"objective": "binary", "verbose": -1},
                                          lgb.Dataset(with_nan, train.y > 0), 100),
    }
    test_nan = np.where(rng.random(test.X.shape) < 0.15, np.nan, test.X)
    rows = []
    print(f"{'model':21} {'target':24} {'attrs':6} {'rows':>6} {'routed otherwise':>16} {'unlisted':>8} "
          f"{'intervals':>9} {'w/ float32':>10} {'NaN feats':>9} {'max |Δ| unlisted rows':>21}")
    for label, model in models.items():
        forest = forest_of(model)
        X = np.vstack([threshold_rows(model, test.X), test_nan])
        raw, want = raw_and_leaves(model, X)
        for fmt in TREE_FORMATS:
            for attrs in ("float", "double") if fmt.startswith("vespa") else ("-",):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ExportWarning)
                    export = br.export_model(model, fmt, **({} if attrs == "-" else {"attribute_type": attrs}))
                scores, leaves = br.score_export(export, X, return_leaves=True)
                bad = np.zeros(X.shape[0], dtype=bool)
                for t, tree in enumerate(forest.trees):
                    bad |= tree.leaf_id[np.asarray(export.node_ids[t])[leaves[:, t]]] != want[:, t]
                listed = export.inexact_rows(X)
                diff = float(np.max(np.abs(scores[~listed] - raw[~listed]))) if (~listed).any() else 0.0
                row = {"model": label, "target": fmt, "attributes": attrs, "rows": int(X.shape[0]),
                       "routed_otherwise": int(bad.sum()), "unlisted": int((bad & ~listed).sum()),
                       "intervals": sum(not m.nan for m in export.inexact),
                       "intervals_with_float32": sum(m.holds_float32 and not m.nan for m in export.inexact),
                       "nan_features": sum(m.nan for m in export.inexact), "max_abs_diff_unlisted": diff}
                rows.append(row)
                print(f"{label:21} {fmt:24} {attrs:6} {row['rows']:>6} {row['routed_otherwise']:>16} "
                      f"{row['unlisted']:>8} {row['intervals']:>9} {row['intervals_with_float32']:>10} "
                      f"{row['nan_features']:>9} {diff:>21.2e}")
    write_json(args.json, {"rows": rows})


if __name__ == "__main__":
    main()
