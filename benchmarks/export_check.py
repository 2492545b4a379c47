"""Exported boosted models against the engines that trained them, on real data (MQ2008) and the bundled sample.

For each engine (LightGBM, XGBoost) a LambdaRanker with λ-AUC and the defaults is trained on one
set and exported to every format; each format's evaluator (``br.score_export``, written from the
engine's source) scores the other set.  The table gives the largest relative difference from the
model's raw scores and the share of (document, tree) pairs whose leaf differs from the engine's own
``pred_leaf`` (0 means every document takes the engine's path through every tree), and the time
to export and to evaluate.

Run:  python benchmarks/export_check.py [--json out.json]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

import boostrank as br
from boostrank.export import TREE_FORMATS, ExportWarning
from boostrank.engines import forest_of

from _common import DATA, write_json

HERE = Path(__file__).resolve().parent


def engine_leaves(model, X):
    if model.engine == "lightgbm":
        return model.booster_.predict(X, num_iteration=model.best_iteration_, pred_leaf=True)
    import xgboost as xgb

    rng = (0, 0) if model.best_iteration_ is None else (0, model.best_iteration_)
    return model.booster_.predict(xgb.DMatrix(X), pred_leaf=True, iteration_range=rng).astype(np.int64)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", default=str(HERE / "results" / "export_check.json"))
    args = ap.parse_args(argv)
    sets = {"sample": br.load_sample()}
    vali = br.load_letor(DATA / "mq2008" / "vali.txt", sparse=False)
    sets["mq2008"] = (vali, br.load_letor(DATA / "mq2008" / "test.txt", sparse=False, n_features=vali.n_features))
    rows = []
    print(f"{'set':8} {'engine':9} {'format':18} {'trees':>5} {'max rel diff':>12} {'leaf mismatches':>15} "
          f"{'export s':>8} {'score s':>8}  inexact")
    for set_name, (train, test) in sets.items():
        X = np.asarray(test.X, dtype=np.float32).astype(np.float64)
        for engine in ("lightgbm", "xgboost"):
            model = br.LambdaRanker(objective="auc", engine=engine).fit(train.X, train.y, qid=train.qid)
            raw = model.predict(X)
            forest = forest_of(model)
            want = engine_leaves(model, X)
            for fmt in TREE_FORMATS:
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ExportWarning)
                    export = br.export_model(model, fmt)
                t1 = time.perf_counter()
                scores, leaves = br.score_export(export, X, return_leaves=True)
                t2 = time.perf_counter()
                rel = float(np.max(np.abs(scores - raw)) / max(np.max(np.abs(raw)), 1e-300))
                wrong = sum(int(np.count_nonzero(tree.leaf_id[np.asarray(export.node_ids[t])[leaves[:, t]]]
                                                 != want[:, t])) for t, tree in enumerate(forest.trees))
                share = wrong / max(1, X.shape[0] * len(forest.trees))
                rows.append({"set": set_name, "engine": engine, "format": fmt, "trees": len(forest.trees),
                             "max_rel_diff": rel, "leaf_mismatch_share": share, "export_s": t1 - t0,
                             "score_s": t2 - t1, "inexact_thresholds": len(export.inexact)})
                print(f"{set_name:8} {engine:9} {fmt:18} {len(forest.trees):>5} {rel:>12.2e} {share:>15.2e} "
                      f"{t1 - t0:>8.2f} {t2 - t1:>8.2f}  {len(export.inexact)}")
    write_json(args.json, {"rows": rows})


if __name__ == "__main__":
    main()
