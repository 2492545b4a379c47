"""Boosted models exported to the search engines (#46): every float32 input takes the model's path through every
tree in each engine's evaluator, the scores equal the engine's raw scores, the documents follow the engines'
schemas, and what the formats cannot hold is refused."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import boostrank as br
from boostrank.export import TREE_FORMATS, ExportWarning, export_model, score_export
from boostrank.engines import forest_of
from boostrank.trees import Tree

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


def at_thresholds(forest, X, doubles=False):
    """Rows whose features sit on every threshold of the model and one float32 step either side; with
    ``doubles``, also the doubles where rounding to float32 changes sides (the float32 midpoints around each
    threshold and one double step either side of them): what Vespa, which compares doubles, meets."""
    rows = []
    base = np.nan_to_num(X[0]).copy()
    for tree in forest.trees:
        for node in np.flatnonzero(tree.feature >= 0):
            t = np.float32(tree.threshold[node])
            values = [t, np.nextafter(t, np.float32(np.inf)), np.nextafter(t, np.float32(-np.inf))]
            if doubles:
                for other in values[1:]:
                    mid = (float(t) + float(other)) / 2.0
                    values += [mid, np.nextafter(mid, np.inf), np.nextafter(mid, -np.inf)]
                values += [np.nextafter(float(tree.threshold[node]), s) for s in (np.inf, -np.inf)]
            for v in values:
                row = base.copy()
                row[tree.feature[node]] = float(v)
                rows.append(row)
    return np.vstack([X, np.array(rows)])


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


def engine_raw(model, X):
    if isinstance(model, br.LambdaRanker):
        return model.predict(X)
    if isinstance(model, lgb.Booster):
        return model.predict(X, raw_score=True)
    if isinstance(model, lgb.LGBMRanker):
        return model.predict(X, raw_score=True)
    return model.predict(xgb.DMatrix(X), output_margin=True)


def engine_leaves(model, X):
    booster = getattr(model, "booster_", model)
    if isinstance(booster, lgb.Booster):
        return booster.predict(X, pred_leaf=True, num_iteration=getattr(model, "best_iteration_", None))
    return booster.predict(xgb.DMatrix(X), pred_leaf=True).astype(np.int64)


@pytest.mark.parametrize("fmt", TREE_FORMATS)
@pytest.mark.parametrize("which", ["lightgbm-lambda-auc", "lightgbm-binary", "lightgbm-lambdarank",
                                   "xgboost-lambda-auc", "xgboost-logistic"])
def test_every_input_takes_the_engines_path_and_scores_its_raw_score(trained, which, fmt):
    model = trained[0][which]
    forest = forest_of(model)
    X = at_thresholds(forest, trained[1], doubles=fmt == "vespa")
    if fmt == "solr-ltr":
        X = np.nan_to_num(X)  # Solr's features are never NaN (a missing field is the feature's default)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExportWarning)
        export = export_model(model, fmt)
    for name, lo, hi in export.inexact:  # Solr's slack cannot reach these thresholds (warned): leave them out
        j = export.feature_names.index(name)
        X = X[~((X[:, j] > lo) & (X[:, j] <= hi))]
    scores, leaves = score_export(export, X, return_leaves=True)
    raw = engine_raw(model, X)
    if fmt == "vespa":
        np.testing.assert_allclose(scores, raw, rtol=1e-6, atol=1e-6)
    else:
        assert scores.dtype == np.float32
        np.testing.assert_allclose(scores, raw, rtol=1e-5, atol=1e-5 * np.abs(raw).max())
    want = engine_leaves(model, X)
    for t, tree in enumerate(forest.trees):
        nodes = np.asarray(export.node_ids[t])[leaves[:, t]]
        np.testing.assert_array_equal(tree.leaf_id[nodes], want[:, t], err_msg=f"tree {t}")


def test_the_bundled_sample_lambda_auc_model_exports_exactly():
    train, test = br.load_sample()
    for engine in ("lightgbm", "xgboost"):
        model = br.LambdaRanker(objective="auc", engine=engine, n_estimators=40).fit(train.X, train.y, qid=train.qid)
        raw = model.predict(test.X)
        for fmt in TREE_FORMATS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ExportWarning)
                got = score_export(export_model(model, fmt), test.X)
            np.testing.assert_allclose(got, raw, rtol=1e-5, atol=1e-5 * np.abs(raw).max(), err_msg=(engine, fmt))


# ------------------------------------------------------------------ schemas, written down from the engines' sources

def check_xgboost_json_node(node, names, strict_keys=True):
    """opensearch-learning-to-rank-base XGBoostJsonParser.SplitParserState (ObjectParser: unknown fields refused):
    a split has nodeid, depth, split, split_condition, yes, no, children (2, [yes, no]) and optional missing (yes
    or no); a leaf has nodeid and leaf.  Vespa's XGBoostTree reads the same fields (Jackson, unknown refused)."""
    if "leaf" in node:
        assert set(node) == {"nodeid", "leaf"} and isinstance(node["leaf"], float)
        return
    allowed = {"nodeid", "depth", "split", "split_condition", "yes", "no", "missing", "children"}
    assert set(node) <= allowed and set(node) >= allowed - {"missing"}
    assert node["split"] in names and isinstance(node["split_condition"], float)
    assert [c["nodeid"] for c in node["children"]] == [node["yes"], node["no"]]
    assert node.get("missing", node["no"]) in (node["yes"], node["no"])
    for child in node["children"]:
        assert child.get("depth", node["depth"] + 1) == node["depth"] + 1
        check_xgboost_json_node(child, names)


def check_solr_node(node, names):
    """Solr MultipleAdditiveTreesModel: a node's keys go to setters (setValue, setFeature, setThreshold, setLeft,
    setRight), so no other key; a leaf has value, a split feature, threshold, left and right; numbers as text."""
    if "feature" not in node:
        assert set(node) == {"value"}
        float(node["value"])
        return
    assert set(node) == {"feature", "threshold", "left", "right"} and node["feature"] in names
    float(node["threshold"])
    check_solr_node(node["left"], names)
    check_solr_node(node["right"], names)


def test_exports_follow_the_engines_schemas(trained):
    model = trained[0]["xgboost-lambda-auc"]
    for fmt in ("elasticsearch-ltr", "opensearch-ltr"):
        export = export_model(model, fmt, name="my-model")
        body = json.loads(export.files["model.json"])
        assert set(body) == {"model"} and set(body["model"]) == {"name", "model"}
        assert body["model"]["model"]["type"] == "model/xgboost+json"
        trees = json.loads(body["model"]["model"]["definition"])
        assert isinstance(trees, list) and trees
        for tree in trees:
            check_xgboost_json_node(tree, export.feature_names)
        fs = json.loads(export.files["featureset.json"])["featureset"]
        assert fs["name"] == "my-model" and [f["name"] for f in fs["features"]] == export.feature_names
        assert all(set(f) == {"name", "params", "template_language", "template"} for f in fs["features"])
    export = export_model(model, "solr-ltr")
    doc = json.loads(export.files["model.json"])
    assert doc["class"] == "org.apache.solr.ltr.model.MultipleAdditiveTreesModel"
    assert [f["name"] for f in doc["features"]] == export.feature_names
    for tree in doc["params"]["trees"]:
        assert set(tree) == {"weight", "root"}
        check_solr_node(tree["root"], export.feature_names)
    feats = json.loads(export.files["features.json"])
    assert all(f["class"] == "org.apache.solr.ltr.feature.FieldValueFeature" for f in feats)
    export = export_model(model, "vespa")
    for tree in json.loads(export.files["models/boostrank.json"]):
        check_xgboost_json_node(tree, export.feature_names)
    assert 'xgboost("boostrank.json")' in export.files["boostrank.profile"]
    # LightGBM's trees go to Vespa in the same format (its lightgbm() importer writes x < t for LightGBM's x <= t)
    lgb_export = export_model(trained[0]["lightgbm-lambda-auc"], "vespa", feature_names=[f"x{j}" for j in range(5)])
    for tree in json.loads(lgb_export.files["models/boostrank.json"]):
        check_xgboost_json_node(tree, [f"attribute(x{j})" for j in range(5)])


def test_the_written_files_and_feature_names(tmp_path, trained):
    model = trained[0]["lightgbm-lambda-auc"]
    export = export_model(model, "vespa", feature_names=["bm25(title)", "a", "b", "c", "fieldMatch(body).completeness"])
    assert export.feature_names[0] == "bm25(title)" and export.feature_names[1] == "attribute(a)"
    paths = export.write(tmp_path)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in map(type(tmp_path), paths)) == \
        ["boostrank.profile", "models/boostrank.json"]


# ------------------------------------------------------------------ refusals


def test_refusals_name_what_to_do():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    X[:, 2] = rng.integers(0, 5, 300)
    y = rng.random(300)
    cat = lgb.train({"objective": "regression", "verbose": -1, "min_data_per_group": 5, "cat_smooth": 1},
                    lgb.Dataset(X, y, categorical_feature=[2]), 10)
    if any(n.get("decision_type") == "==" for info in cat.dump_model()["tree_info"]
           for n in [info["tree_structure"]]):
        with pytest.raises(ValueError, match="categorical split"):
            export_model(cat, "elasticsearch-ltr")
    linear = lgb.train({"objective": "regression", "verbose": -1, "linear_tree": True}, lgb.Dataset(X, y), 5)
    with pytest.raises(ValueError, match="linear trees"):
        export_model(linear, "solr-ltr")
    multi = lgb.train({"objective": "multiclass", "num_class": 3, "verbose": -1},
                      lgb.Dataset(X, rng.integers(0, 3, 300)), 3)
    with pytest.raises(ValueError, match="3 trees per round"):
        export_model(multi, "vespa")
    xmulti = xgb.train({"objective": "multi:softprob", "num_class": 3}, xgb.DMatrix(X, rng.integers(0, 3, 300)), 2)
    with pytest.raises(ValueError, match="several outputs"):
        export_model(xmulti, "elasticsearch-ltr")
    dart = xgb.train({"booster": "dart"}, xgb.DMatrix(X, y), 2)
    with pytest.raises(ValueError, match="'dart'"):
        export_model(dart, "elasticsearch-ltr")
    ok = xgb.train({}, xgb.DMatrix(X, y), 2)
    with pytest.raises(ValueError, match="format must be one of"):
        export_model(ok, "lucene")
    with pytest.raises(ValueError, match="feature name 'a b'"):
        export_model(ok, "elasticsearch-ltr", feature_names=["a b", "c", "d"])
    with pytest.raises(ValueError, match="2 feature names for a model of 3"):
        export_model(ok, "solr-ltr", feature_names=["a", "b"])
    with pytest.raises(ValueError):
        export_model(ok, "vespa", feature_names=["a", "b", "c) + 1"])
    with pytest.raises(TypeError, match="not a fitted"):
        export_model(object(), "vespa")


def test_a_zero_as_missing_split_against_its_threshold_is_refused():
    from boostrank.export import _left_below
    from boostrank.trees import MISSING_ZERO

    def tree(threshold, default_left):
        return Tree(feature=np.array([0, -1, -1]), threshold=np.array([threshold, np.nan, np.nan]),
                    left=np.array([1, -1, -1]), right=np.array([2, -1, -1]),
                    default_left=np.array([default_left, False, False]),
                    missing=np.array([MISSING_ZERO, 0, 0], dtype=np.int8), value=np.zeros(3),
                    leaf_id=np.array([-1, 0, 1]))

    from boostrank.engines import lightgbm as engine

    assert _left_below(tree(0.5, True), 0, engine)[1] is True  # zeros go left either way: exact
    assert _left_below(tree(1e-35, True), 0, engine)[1] is True
    with pytest.raises(ValueError, match="zero_as_missing"):
        _left_below(tree(0.5, False), 0, engine)
    with pytest.raises(ValueError, match="zero_as_missing"):
        _left_below(tree(-1e-36, True), 0, engine)


def test_solr_warns_of_thresholds_its_slack_cannot_reach():
    rng = np.random.default_rng(1)
    X = np.where(rng.random((400, 2)) < 0.5, 0.0, rng.random((400, 2)))
    model = lgb.train({"objective": "regression", "verbose": -1, "min_data_in_leaf": 5},
                      lgb.Dataset(X, X[:, 0] > 0), 3)
    thresholds = [float(t) for t in np.concatenate([tr.threshold for tr in forest_of(model).trees])
                  if np.isfinite(t)]
    if any(abs(t) < 1e-6 for t in thresholds):
        with pytest.warns(ExportWarning, match="cannot be reached through Solr's"):
            export = export_model(model, "solr-ltr")
        np.testing.assert_allclose(score_export(export, X), model.predict(X, raw_score=True), rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------ saved and re-imported models


def test_xgboost_models_with_our_objective_save_under_a_name_the_plugins_accept(tmp_path):
    X, y, qid = nan_data(2, n=500)
    model = br.LambdaRanker(objective="auc", engine="xgboost", n_estimators=10).fit(X, y, qid=qid)
    path = tmp_path / "m.json"
    model.save_model(path)
    saved = json.loads(path.read_text())
    assert saved["learner"]["objective"]["name"] == "rank:pairwise"
    assert json.loads(model.booster_.save_config())["learner"]["objective"]["name"] == "reg:squarederror"
    again = br.load_model(str(path))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    for fmt in TREE_FORMATS:  # re-imported, the model exports to the same documents
        assert export_model(again, fmt).files == export_model(model, fmt).files


@pytest.mark.slow
def test_a_top_k_reranker_over_a_boosted_base_exports_as_two_stages():
    train, test = br.load_sample()
    model = br.TopKReranker(k=5, gate=0, time_limit=3, base_estimator=br.LambdaRanker(objective="auc", n_estimators=20))
    model.fit(train.X, train.y, qid=train.qid)
    X = test.X.astype(np.float32).astype(np.float64)
    for fmt in ("vespa", "elasticsearch-ltr", "opensearch-ltr"):
        export = export_model(model, fmt, name="rr")
        assert export.rerank_k == 5
        np.testing.assert_array_equal(br.rerank_export(export, X, test.qid), model.rerank(X, qid=test.qid))
    profile = export_model(model, "vespa", name="rr").files["rr.profile"]
    assert "rerank-count: 5" in profile and "firstPhase" in profile and 'xgboost("rr_base.json")' in profile
    search = json.loads(export_model(model, "elasticsearch-ltr", name="rr").files["search.json"])
    assert search["rescore"]["window_size"] == 5 and search["rescore"]["query"]["score_mode"] == "total"
    with pytest.raises(ValueError, match="Solr re-ranks once"):
        export_model(model, "solr-ltr")
    with pytest.raises(ValueError, match="needs the export of a TopKReranker"):
        br.rerank_export(export_model(model.base_estimator_, "vespa"), X, test.qid)
    model.fallback_ = True  # the gate kept the base order: the base model is the ranker
    assert export_model(model, "vespa", name="rr").files == export_model(model.base_estimator_, "vespa",
                                                                          name="rr").files
    unbased = br.TopKReranker(k=5)
    unbased.base_estimator_ = None
    with pytest.raises(ValueError, match="base scores passed in"):
        export_model(unbased, "vespa")


def test_a_saved_and_reloaded_lightgbm_model_exports_the_same_documents(tmp_path):
    X, y, qid = nan_data(3, n=500)
    model = br.LambdaRanker(objective="auc", n_estimators=10).fit(X, y, qid=qid)
    model.save_model(tmp_path / "m.txt")
    again = br.load_model(str(tmp_path / "m.txt"))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    for fmt in TREE_FORMATS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExportWarning)
            assert export_model(again, fmt).files == export_model(model, fmt).files
