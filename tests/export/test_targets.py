"""boostrank.export.targets: what each engine version does with a tree's missing values."""

from __future__ import annotations

import json
import warnings

import numpy as np

from boostrank.export import TREE_FORMATS, ExportWarning, export_model
from boostrank.engines import forest_of

from .conftest import covered, lgb, misrouted, nan_data


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
