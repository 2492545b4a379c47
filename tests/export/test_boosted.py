"""boostrank.export.boosted: boosted models exported to every target, their files, schemas and refusals."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import boostrank as br
from boostrank.export import TREE_FORMATS, ExportWarning, export_model, score_export
from boostrank.engines import forest_of

from .conftest import lgb, nan_data, xgb


def test_the_xgboost_base_score_is_exported_exactly():
    X, y, _ = nan_data(6, n=400)
    model = xgb.train({"objective": "reg:squarederror", "base_score": 0.5}, xgb.DMatrix(X, y), 3)
    assert forest_of(model).base == 0.5  # not 0.5000002980232239, read off a float32 prediction
    logistic = xgb.train({"objective": "binary:logistic", "base_score": 0.25}, xgb.DMatrix(X, y > 0), 3)
    assert forest_of(logistic).base == float(np.float32(-np.log(np.float32(3))))
    export = export_model(model, "opensearch-ltr")
    assert json.loads(json.loads(export.files["model.json"])["model"]["model"]["definition"])[-1] == \
        {"nodeid": 0, "leaf": 0.5}
    assert "+ 0.5\n" in export_model(model, "vespa").files["boostrank.profile"]
    _, leaves = score_export(export, X, return_leaves=True)  # one column per tree in node_ids, not the base leaf
    assert leaves.shape == (X.shape[0], len(export.node_ids))


@pytest.mark.parametrize("fmt", TREE_FORMATS)
def test_a_model_of_no_trees_exports_its_base_score_to_every_target(fmt):
    """Hardening 6 #8: an XGBoost model of 0 rounds exported to Vespa as "[]", which nothing could score."""
    X, y, _ = nan_data(7, n=50)
    model = xgb.train({"objective": "binary:logistic", "base_score": 0.3}, xgb.DMatrix(X, y > 0), 0)
    export = export_model(model, fmt)
    want = model.predict(xgb.DMatrix(X), output_margin=True)
    np.testing.assert_allclose(score_export(export, X), want, rtol=1e-6)
    if export.format.startswith("vespa"):
        assert json.loads(export.files["models/boostrank.json"]) == [{"nodeid": 0, "leaf": 0.0}]


def test_the_absent_field_value_is_an_explicit_choice():
    model = xgb.train({}, xgb.DMatrix(*nan_data(7, n=300)[:2]), 2)
    zero = json.loads(export_model(model, "opensearch-ltr").files["featureset.json"])["featureset"]["features"]
    assert zero[0]["template"]["function_score"]["field_value_factor"]["missing"] == 0.0
    none = json.loads(export_model(model, "opensearch-ltr", absent=None).files["featureset.json"])
    fs = none["featureset"]["features"][0]["template"]["function_score"]
    assert fs["query"] == {"exists": {"field": "f1"}} and "missing" not in fs["field_value_factor"]
    with pytest.raises(ValueError, match="absent must be"):
        export_model(model, "opensearch-ltr", absent=float("nan"))
    with pytest.raises(ValueError, match="attribute_type"):
        export_model(model, "vespa", attribute_type="int")


@pytest.mark.slow  # over a second warm
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
        np.testing.assert_array_equal(br.export.rerank_export(export, X, test.qid), model.rerank(X, qid=test.qid))
    profile = export_model(model, "vespa", name="rr").files["rr.profile"]
    assert "rerank-count: 5" in profile and "firstPhase" in profile and 'xgboost("rr_base.json")' in profile
    search = json.loads(export_model(model, "elasticsearch-ltr", name="rr").files["search.json"])
    assert search["rescore"]["window_size"] == 5 and search["rescore"]["query"]["score_mode"] == "total"
    with pytest.raises(ValueError, match="Solr re-ranks once"):
        export_model(model, "solr-ltr")
    with pytest.raises(ValueError, match="needs the export of a TopKReranker"):
        br.export.rerank_export(export_model(model.base_estimator_, "vespa"), X, test.qid)
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
