"""Boosted models exported to the search engines (#46): every float32 input takes the model's path through every
tree in each engine's evaluator, the scores equal the engine's raw scores, the documents follow the engines'
schemas, and what the formats cannot hold is refused."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import boostrank as br
from boostrank.export import TREE_FORMATS, ExportWarning, export_model, score_export, threshold_rows
from boostrank.engines import forest_of
from boostrank.engines.trees import Tree

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


@pytest.mark.parametrize("fmt", TREE_FORMATS)
@pytest.mark.parametrize("which", ["lightgbm-lambda-auc", "lightgbm-binary", "lightgbm-lambdarank",
                                   "xgboost-lambda-auc", "xgboost-logistic"])
def test_every_input_takes_the_engines_path_or_is_listed_as_inexact(trained, which, fmt):
    model = trained[0][which]
    forest = forest_of(model)
    X = threshold_rows(model, trained[1])
    for attribute_type in ("float", "double") if fmt.startswith("vespa") else ("float",):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ExportWarning)
            export = export_model(model, fmt, attribute_type=attribute_type)
        assert bool(export.inexact) == any(w.category is ExportWarning for w in caught)
        bad, listed = misrouted(export, forest, model, X), covered(export, X)
        assert not (bad & ~listed).any(), f"{(bad & ~listed).sum()} rows routed otherwise and not listed"
        scores = score_export(export, X[~listed])
        raw = engine_raw(model, X[~listed])
        if fmt.startswith("vespa"):
            np.testing.assert_allclose(scores, raw, rtol=1e-6, atol=1e-6)
        else:
            assert scores.dtype == np.float32
            np.testing.assert_allclose(scores, raw, rtol=1e-5, atol=1e-5 * np.abs(raw).max())
        if which.startswith("xgboost") and (fmt.startswith(("elasticsearch", "opensearch"))
                                            or (fmt.startswith("vespa") and attribute_type == "float")):
            # XGBoost compares float32 as the plugins and Vespa's float attributes do: nothing but NaN is inexact
            assert all(m.nan for m in export.inexact)
        if fmt in ("elasticsearch-ltr", "opensearch-ltr") or (fmt.startswith("vespa") and attribute_type == "float"):
            assert not any(m.holds_float32 for m in export.inexact)  # every float32 input routes as the model
        if fmt == "vespa<8.624" and attribute_type == "double" and which.startswith("lightgbm"):
            assert export.inexact == []  # double conditions compared in double: LightGBM's own rule


def test_targets_by_version_follow_the_missing_side_or_list_nan():
    X, y, qid = nan_data(4)
    model = lgb.train({"objective": "binary", "verbose": -1, "num_leaves": 8}, lgb.Dataset(X, y > 0), 20)
    forest = forest_of(model)
    names = [f"f{j + 1}" for j in range(X.shape[1])]
    nan_left = {names[int(t.feature[n])] for t in forest.trees for n in np.flatnonzero(t.feature >= 0)
                if forest.engine.left_set(t, n)[2]}
    assert nan_left  # the data make some split send NaN left
    rows = np.where(np.random.default_rng(0).random(X.shape) < 0.5, np.nan, X)
    for fmt in TREE_FORMATS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExportWarning)
            export = export_model(model, fmt)
        listed_nan = {m.feature for m in export.inexact if m.nan}
        follows = fmt in ("elasticsearch-ltr", "opensearch-ltr") or fmt.startswith("vespa")
        assert listed_nan == (set() if follows else nan_left), fmt
        bad = misrouted(export, forest, model, rows)
        assert not (bad & ~covered(export, rows)).any(), fmt
        if not follows:
            assert bad.any()  # NaN does go right there
    for fmt in ("elasticsearch-ltr", "elasticsearch-ltr<1.5.9"):  # o19s >= 1.5.9 needs `missing` on every split
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExportWarning)
            trees = json.loads(json.loads(export_model(model, fmt).files["model.json"])["model"]["model"]["definition"])
        stack = list(trees)
        while stack:
            node = stack.pop()
            if "leaf" not in node:
                assert node["missing"] in (node["yes"], node["no"])
                stack += node["children"]


def test_splits_past_the_float_range_export_to_every_target():
    """LightGBM writes a split that separates present values from missing ones at 1e300 (every finite input goes
    left).  The plugins read the condition 2**128 as +inf; Vespa's grammar has no Infinity, so its condition is
    float32's largest and the doubles beyond it are listed."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(2000, 3))
    missing = rng.random(2000) < 0.3
    X[missing, 0] = np.nan
    y = (missing ^ (rng.random(2000) < 0.1)).astype(float)
    model = lgb.train({"objective": "binary", "verbose": -1, "num_leaves": 4}, lgb.Dataset(X, y), 5)
    forest = forest_of(model)
    assert any((t.threshold > 1e38).any() for t in forest.trees)
    rows = np.vstack([threshold_rows(model, X), [[v, 0, 0] for v in (np.inf, -np.inf, 1e39, -1e39, 3.4028235e38,
                                                                      1e300)]])
    for fmt in TREE_FORMATS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExportWarning)
            export = export_model(model, fmt)
        text = "".join(export.files.values())
        assert "Infinity" not in text and "NaN" not in text and "inf" not in text.replace("inferred", "")
        if fmt.startswith(("elasticsearch", "opensearch")):
            assert "3.402823669209385e+38" in text  # Float.parseFloat (Jackson's getFloatValue) gives +Infinity
        bad = misrouted(export, forest, model, rows)
        assert not (bad & ~covered(export, rows)).any(), fmt
        with np.errstate(over="ignore"):
            float32 = (rows.astype(np.float32).astype(np.float64) == rows).all(axis=1) & np.isfinite(rows).all(axis=1)
        if fmt.startswith(("elasticsearch", "opensearch")):
            assert not bad[float32].any(), fmt  # every finite float32 input routes as the model
        elif fmt.startswith("vespa"):  # but float32's largest, which no float literal below +inf splits off
            assert (np.abs(rows[bad & float32, 0]) == np.finfo(np.float32).max).all(), fmt


def chain_model(splits: int):
    """A LightGBM model of one tree that is a chain of ``splits`` splits on one feature (node i: x <= i + 0.5 goes
    to leaf i, else on), written as LightGBM's model text, which LightGBM loads and predicts."""
    ints = lambda v: " ".join(str(int(x)) for x in v)  # noqa: E731
    text = "\n".join([
        "tree", "version=v4", "num_class=1", "num_tree_per_iteration=1", "label_index=0", "max_feature_idx=0",
        "objective=regression", "feature_names=Column_0", f"feature_infos=[0:{splits}]", "tree_sizes=0", "",
        "Tree=0", f"num_leaves={splits + 1}", "num_cat=0", f"split_feature={ints(np.zeros(splits))}",
        f"split_gain={ints(np.ones(splits))}", "threshold=" + " ".join(f"{i + 0.5}" for i in range(splits)),
        f"decision_type={ints(np.full(splits, 2))}", f"left_child={ints(-np.arange(1, splits + 1))}",
        f"right_child={ints(np.r_[np.arange(1, splits), -(splits + 1)])}",
        "leaf_value=" + " ".join(f"{0.001 * i}" for i in range(splits + 1)), f"leaf_weight={ints(np.ones(splits + 1))}",
        f"leaf_count={ints(np.ones(splits + 1))}", f"internal_value={ints(np.zeros(splits))}",
        f"internal_weight={ints(np.ones(splits))}", f"internal_count={ints(np.ones(splits))}", "is_linear=0",
        "shrinkage=1", "", "", "end of trees", ""])
    return lgb.Booster(model_str=text)


@pytest.mark.slow  # over a second warm
def test_trees_deeper_than_the_recursion_limit_export():
    """A chain of 1 500 splits: LightGBM loads and predicts it; so do the exports and their evaluators, with no
    RecursionError (boostrank's walks use a stack; json and dump_model get room to recurse)."""
    model = chain_model(1500)
    X = np.arange(-1, 1502, 7, dtype=np.float64).reshape(-1, 1)
    forest = forest_of(model)
    from boostrank.engines.trees import preorder
    assert max(preorder(forest.trees[0])[1]) == 1500
    for fmt in ("opensearch-ltr", "solr-ltr", "vespa"):  # one per document kind: the versions share the writers
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExportWarning)
            export = export_model(model, fmt)
        np.testing.assert_allclose(score_export(export, X), model.predict(X, raw_score=True), rtol=1e-6)


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
    from boostrank.export.thresholds import _left_below
    from boostrank.engines.trees import MISSING_ZERO

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
        with pytest.warns(ExportWarning, match="holding float32 values"):
            export = export_model(model, "solr-ltr")
        assert any(m.holds_float32 for m in export.inexact)
        keep = ~covered(export, X)
        np.testing.assert_allclose(score_export(export, X[keep]), model.predict(X[keep], raw_score=True), rtol=1e-5,
                                   atol=1e-6)


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


def test_vespas_float_forest_rule_reads_the_same_from_the_model_and_its_export(trained):
    """gbdt.cpp select_best: more than 25 000 leaves, or the largest tree over 12 leaves with the trees' average
    leaf depths summing past 2 500; the export (from the model) and score_export (from the JSON) agree."""
    from boostrank.export.scoring import _json_leaf_depths
    from boostrank.export.thresholds import tree_leaf_depths, is_vm_forest

    assert not is_vm_forest([[1] * 13] * 300) and is_vm_forest([[1] * 25_001]) and not is_vm_forest([[1] * 25_000])
    assert is_vm_forest([[10] * 13] * 251) and not is_vm_forest([[10] * 12] * 400)
    model = trained[0]["lightgbm-lambda-auc"]
    forest = forest_of(model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExportWarning)
        roots = json.loads(export_model(model, "vespa").files["models/boostrank.json"])
    assert [sorted(tree_leaf_depths(t)) for t in forest.trees] == [sorted(_json_leaf_depths(r)) for r in roots]
