"""boostrank.engines.trees: boosted trees read out of the engines' models, however deep."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from boostrank.engines import forest_of
from boostrank.export import ExportWarning, export_model, score_export

lgb = pytest.importorskip("lightgbm")


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
