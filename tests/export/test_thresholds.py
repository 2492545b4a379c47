"""boostrank.export.thresholds: each split's threshold as the target reads it."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from boostrank.export import TREE_FORMATS, ExportWarning, export_model, score_export, threshold_rows
from boostrank.engines import forest_of
from boostrank.engines.trees import Tree

from .conftest import covered, lgb, misrouted


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
