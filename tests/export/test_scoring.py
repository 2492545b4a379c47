"""boostrank.export.scoring: an export scored as its engine would, input by input against the engines' own predictions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import boostrank as br
from boostrank.export import TREE_FORMATS, ExportWarning, export_model, score_export, threshold_rows
from boostrank.engines import forest_of

from .conftest import covered, lgb, misrouted, xgb


def engine_raw(model, X):
    if isinstance(model, br.LambdaRanker):
        return model.predict(X)
    if isinstance(model, lgb.Booster):
        return model.predict(X, raw_score=True)
    if isinstance(model, lgb.LGBMRanker):
        return model.predict(X, raw_score=True)
    return model.predict(xgb.DMatrix(X), output_margin=True)


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
