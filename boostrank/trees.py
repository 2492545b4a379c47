"""Boosted trees read out of LightGBM and XGBoost models, with each engine's split rules.

A :class:`Forest` holds the trees of one model as arrays and scores rows exactly as the
engine that trained it does: LightGBM sends a row left when ``x <= threshold`` (in double),
|x| <= 1e-35 counting as 0, after its missing-value rule (``missing_type`` None: NaN counts as 0; Zero: |x| <= 1e-35
and NaN take the default side; NaN: NaN takes the default side); XGBoost sends it left when
``float32(x) < threshold``, NaN to the default side.  The exporters (:mod:`boostrank.export`)
translate these rules into each search engine's; the tests hold the translation to the
engines' own predictions, leaf by leaf.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Forest", "Tree", "forest_of"]

#: LightGBM's ``kZeroThreshold`` (the float 1e-35f): |x| at or below it is zero to its predictor
ZERO_THRESHOLD = float(np.float32(1e-35))
MISSING_NONE, MISSING_ZERO, MISSING_NAN = 0, 1, 2


@dataclass(frozen=True)
class Tree:
    """One regression tree; node 0 is the root.

    Attributes
    ----------
    feature : ndarray of int64
        Split feature of each node, −1 at a leaf.
    threshold : ndarray of float64
    left, right : ndarray of int64
        Children (−1 at a leaf).
    default_left : ndarray of bool
        Where the engine's missing rule sends a row.
    missing : ndarray of int8
        LightGBM's missing type of the split (``MISSING_*``); XGBoost's are ``MISSING_NAN``.
    value : ndarray of float64
        Leaf values (0 at splits).
    leaf_id : ndarray of int64
        The engine's number of each leaf (``pred_leaf``), −1 at splits.
    """

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    default_left: np.ndarray
    missing: np.ndarray
    value: np.ndarray
    leaf_id: np.ndarray


@dataclass(frozen=True)
class Forest:
    """The trees of a model, summed: score = base + Σ leaf values.

    Attributes
    ----------
    trees : list of Tree
    engine : {"lightgbm", "xgboost"}
    base : float
        Added to the sum (XGBoost's base margin; 0 for LightGBM).
    n_features : int
    feature_names : list of str
        The model's own names of its features.
    objective : str
        The model's objective as the engine names it.
    """

    trees: list
    engine: str
    base: float
    n_features: int
    feature_names: list
    objective: str
    meta: dict = field(default_factory=dict, repr=False)

    def apply(self, X) -> np.ndarray:
        """Node index reached in each tree, shape (n_rows, n_trees), by the engine's rules."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] < self.n_features:
            raise ValueError(f"X has shape {X.shape}; the model reads {self.n_features} features")
        if self.engine == "xgboost":
            X = X.astype(np.float32).astype(np.float64)  # XGBoost's DMatrix holds float32
        out = np.empty((X.shape[0], len(self.trees)), dtype=np.int64)
        rows = np.arange(X.shape[0])
        for t, tree in enumerate(self.trees):
            node = np.zeros(X.shape[0], dtype=np.int64)
            active = tree.feature[node] >= 0
            while active.any():
                r, n = rows[active], node[active]
                x = X[r, tree.feature[n]]
                nan = np.isnan(x)
                if self.engine == "lightgbm":
                    kind = tree.missing[n]
                    # |x| <= kZeroThreshold is 0 to LightGBM's predictor (its dense rows leave such values out)
                    x = np.where((nan & (kind != MISSING_NAN)) | (np.abs(x) <= ZERO_THRESHOLD), 0.0, x)
                    default = (nan & (kind == MISSING_NAN)) | ((kind == MISSING_ZERO) & (np.abs(x) <= ZERO_THRESHOLD))
                    go_left = np.where(default, tree.default_left[n], x <= tree.threshold[n])
                else:
                    go_left = np.where(nan, tree.default_left[n], x < tree.threshold[n])
                node[active] = np.where(go_left, tree.left[n], tree.right[n])
                active = tree.feature[node] >= 0
            out[:, t] = node
        return out

    def leaves(self, X) -> np.ndarray:
        """The engine's leaf numbers (as ``pred_leaf`` gives them), shape (n_rows, n_trees)."""
        nodes = self.apply(X)
        return np.stack([tree.leaf_id[nodes[:, t]] for t, tree in enumerate(self.trees)], axis=1) \
            if self.trees else nodes

    def predict(self, X) -> np.ndarray:
        """Raw scores (margins), summed in double."""
        nodes = self.apply(X)
        total = np.full(nodes.shape[0], float(self.base))
        for t, tree in enumerate(self.trees):
            total += tree.value[nodes[:, t]]
        return total


def _booster_of(model):
    """(engine, booster, number of rounds to use) of a model boostrank can read trees from."""
    mod = type(model).__module__.split(".")[0]
    if mod == "lightgbm" and type(model).__name__ == "Booster":
        return "lightgbm", model, model.best_iteration if model.best_iteration > 0 else None
    if mod == "xgboost" and type(model).__name__ == "Booster":
        best = model.attr("best_iteration")
        return "xgboost", model, None if best is None else int(best) + 1
    booster = getattr(model, "booster_", None)
    if booster is None and hasattr(model, "get_booster"):
        booster = model.get_booster()
    if booster is None:
        raise TypeError(f"{type(model).__name__} is not a fitted LightGBM or XGBoost model (or LambdaRanker)")
    engine, _, own_best = _booster_of(booster)
    best = getattr(model, "best_iteration_", None)
    return engine, booster, (int(best) if best else None) if hasattr(model, "best_iteration_") else own_best


def forest_of(model) -> Forest:
    """The trees of a LightGBM or XGBoost model (a ``Booster``, ``LGBMRanker``, ``XGBRanker`` or ``LambdaRanker``).

    The rounds used are the ones the model predicts with (its best iteration after early stopping).

    Parameters
    ----------
    model : fitted model

    Returns
    -------
    Forest

    Raises
    ------
    ValueError
        A model these trees cannot hold: categorical splits, linear trees, several outputs per
        round (multi-class), or an XGBoost booster that is not ``gbtree``.
    """
    engine, booster, rounds = _booster_of(model)
    return _lightgbm_forest(booster, rounds) if engine == "lightgbm" else _xgboost_forest(booster, rounds)


def _lightgbm_forest(booster, rounds) -> Forest:
    dump = booster.dump_model(num_iteration=rounds)
    if dump.get("num_tree_per_iteration", 1) != 1:
        raise ValueError(f"the model has {dump['num_tree_per_iteration']} trees per round (multi-class or "
                         f"multi-output); a search engine's tree model scores one output: train one ranker")
    if booster.params.get("linear_tree") or any(t.get("is_linear") for t in dump["tree_info"]):
        raise ValueError("the model has linear trees (linear_tree=True): their leaves are linear models, which the "
                         "engines' tree formats cannot hold; train with linear_tree=False")
    trees = []
    for info in dump["tree_info"]:
        nodes: list = []
        children: dict = {}  # preorder position -> (left, right) positions

        def walk(node):
            i = len(nodes)
            nodes.append(node)
            if "leaf_value" not in node:
                if node["decision_type"] != "<=":
                    raise ValueError(f"tree {info['tree_index']} has a categorical split (feature "
                                     f"{node['split_feature']}, '{node['decision_type']}'); export needs numerical "
                                     f"splits only: encode the category as numbers or leave it out")
                left = walk(node["left_child"])
                children[i] = (left, walk(node["right_child"]))
            return i

        walk(info["tree_structure"])
        kinds = {"None": MISSING_NONE, "Zero": MISSING_ZERO, "NaN": MISSING_NAN}
        split = ["leaf_value" not in n for n in nodes]
        trees.append(Tree(
            feature=np.array([n["split_feature"] if s else -1 for n, s in zip(nodes, split)], dtype=np.int64),
            threshold=np.array([float(n["threshold"]) if s else np.nan for n, s in zip(nodes, split)]),
            left=np.array([children[i][0] if s else -1 for i, s in enumerate(split)], dtype=np.int64),
            right=np.array([children[i][1] if s else -1 for i, s in enumerate(split)], dtype=np.int64),
            default_left=np.array([bool(n.get("default_left", False)) for n in nodes]),
            missing=np.array([kinds[n["missing_type"]] if s else 0 for n, s in zip(nodes, split)], dtype=np.int8),
            value=np.array([0.0 if s else float(n["leaf_value"]) for n, s in zip(nodes, split)]),
            leaf_id=np.array([-1 if s else int(n.get("leaf_index", 0)) for n, s in zip(nodes, split)],
                             dtype=np.int64)))
    return Forest(trees=trees, engine="lightgbm", base=0.0, n_features=dump["max_feature_idx"] + 1,
                  feature_names=list(dump["feature_names"]), objective=(str(dump.get("objective") or "custom").split() or ["custom"])[0],
                  meta={"dump": dump})


def _xgboost_forest(booster, rounds) -> Forest:
    raw = json.loads(booster.save_raw("json"))
    learner = raw["learner"]
    gb = learner["gradient_booster"]
    if gb.get("name") != "gbtree":
        raise ValueError(f"the XGBoost booster is {gb.get('name')!r}; export reads gbtree models (dart weights "
                         f"and linear boosters have no tree-sum form the engines read)")
    param = learner["learner_model_param"]
    if int(param.get("num_class", "0")) > 1 or int(param.get("num_target", "1")) > 1:
        raise ValueError("the model has several outputs (num_class or num_target > 1); train one ranker")
    model = gb["model"]
    per_round = max(1, int(model["gbtree_model_param"].get("num_parallel_tree", "1")))
    raw_trees = model["trees"][: None if rounds is None else rounds * per_round]
    trees = []
    for t in raw_trees:
        left = np.array(t["left_children"], dtype=np.int64)
        if any(int(v) != 0 for v in t.get("split_type", [])):
            raise ValueError(f"tree {t['id']} has a categorical split; export needs numerical splits only")
        leaf = left < 0
        trees.append(Tree(
            feature=np.where(leaf, -1, np.array(t["split_indices"], dtype=np.int64)),
            threshold=np.where(leaf, np.nan, np.array(t["split_conditions"], dtype=np.float32).astype(np.float64)),
            left=left, right=np.array(t["right_children"], dtype=np.int64),
            default_left=np.array(t["default_left"], dtype=bool),
            missing=np.full(left.shape[0], MISSING_NAN, dtype=np.int8),
            value=np.where(leaf, np.array(t["split_conditions"], dtype=np.float32).astype(np.float64), 0.0),
            leaf_id=np.where(leaf, np.arange(left.shape[0]), -1)))
    names = booster.feature_names or [f"f{j}" for j in range(int(param["num_feature"]))]
    forest = Forest(trees=trees, engine="xgboost", base=0.0, n_features=int(param["num_feature"]),
                    feature_names=list(names), objective=learner["objective"]["name"])
    # the base margin as the engine adds it (base_score through the objective's link): read off one prediction
    import xgboost as xgb

    probe = np.zeros((1, forest.n_features), dtype=np.float32)
    margin = float(booster.predict(xgb.DMatrix(probe), output_margin=True,
                                   iteration_range=(0, 0 if rounds is None else rounds))[0])
    base = margin - float(np.sum([tr.value[forest.apply(probe)[0, i]] for i, tr in enumerate(trees)],
                                 dtype=np.float64))
    return Forest(trees=trees, engine="xgboost", base=float(np.float32(base)), n_features=forest.n_features,
                  feature_names=forest.feature_names, objective=forest.objective)
