"""Scoring an export as the target engine would: :func:`score_export`, :func:`rerank_export`, and the rows that
check it (:func:`threshold_rows`)."""

from __future__ import annotations

import json
import math
import re

import numpy as np

from ..engines.trees import deep_call
from .targets import FLOAT32_MAX, SOLR_SLACK, TARGETS, ModelExport, feature_columns
from .thresholds import is_vm_forest


def threshold_rows(model, X, *, base_row: int = 0) -> np.ndarray:
    """``X`` and, per split of the model, rows placed on its threshold and around it, to check an export with.

    Each added row is row ``base_row`` of ``X`` (NaN read as 0) with the split's feature set to the threshold
    as float32 and one float32 step either side, the double threshold and one double step either side, and
    the doubles where rounding to float32 changes sides (the float32 midpoints around the threshold and one
    double step either side of them), plus NaN and ±0: every finite input at which an engine's comparison can
    differ from the model's (add ±inf yourself where your model's predict takes them).

    Parameters
    ----------
    model : a model :func:`export_model` takes
    X : array-like of shape (n_rows, n_features)
    base_row : int, default=0

    Returns
    -------
    ndarray of shape (n_rows + n_added, n_features)
    """
    from ..engines import forest_of

    forest = forest_of(model) if not hasattr(model, "trees") else model
    X = np.asarray(X, dtype=np.float64)
    base = np.nan_to_num(X[base_row], nan=0.0, posinf=0.0, neginf=0.0)
    values: dict = {}
    with np.errstate(over="ignore"):
        for tree in forest.trees:
            for node in np.flatnonzero(tree.feature >= 0):
                t = float(tree.threshold[node])
                f = np.float32(t)
                near = [f, np.nextafter(f, np.float32(np.inf)), np.nextafter(f, np.float32(-np.inf))]
                out = [float(v) for v in near] + [t, float(np.nextafter(t, np.inf)), float(np.nextafter(t, -np.inf))]
                for other in near[1:]:
                    if np.isfinite(other) and np.isfinite(f):
                        mid = (float(f) + float(other)) / 2.0
                        out += [mid, float(np.nextafter(mid, np.inf)), float(np.nextafter(mid, -np.inf))]
                values.setdefault(int(tree.feature[node]), set()).update(v for v in out if math.isfinite(v))
    extra = [math.nan, 0.0, -0.0]
    rows = []
    for j, vs in sorted(values.items()):
        vs = sorted(vs) + extra
        if forest.engine.FEATURES_AS_FLOAT32:  # XGBoost refuses inputs float32 cannot hold (inf, past its range)
            vs = [v for v in vs if math.isnan(v) or abs(v) <= float(FLOAT32_MAX)]
        for v in vs:
            row = base.copy()
            row[j] = v
            rows.append(row)
    return np.vstack([X] + ([np.array(rows)] if rows else []))


# ------------------------------------------------------------------ the engines' evaluators


def _walk(X, root, split_of, leaf_of):
    """Send every row down one JSON tree; ``split_of(node)`` gives (column, go_left(x) -> bool array, left,
    right), ``leaf_of(node)`` the leaf value or None.  Returns (values, preorder positions of the leaves)."""
    flat, position, stack = [], {}, [root]
    while stack:  # preorder positions, as ModelExport.node_ids counts them
        node = stack.pop()
        position[id(node)] = len(flat)
        flat.append(node)
        if leaf_of(node) is None:
            _, _, left, right = split_of(node)
            stack += [right, left]
    n = X.shape[0]
    at = np.zeros(n, dtype=np.int64)
    value = np.zeros(n)
    todo = np.ones(n, dtype=bool)
    while todo.any():
        for p in np.unique(at[todo]).tolist():
            rows = np.flatnonzero(todo & (at == p))
            node = flat[p]
            leaf = leaf_of(node)
            if leaf is not None:
                value[rows] = leaf
                todo[rows] = False
                continue
            col, go_left, left, right = split_of(node)
            at[rows] = np.where(go_left(X[rows, col]), position[id(left)], position[id(right)])
    return value, at


def _as_float32(x) -> np.ndarray:
    """Java's ``(float)`` of a double or of number text: round to nearest, past the range to ±inf."""
    with np.errstate(over="ignore"):
        return np.asarray(x, dtype=np.float64).astype(np.float32)


def _score_xgboost_json(trees: list, X, names, nan_missing: bool) -> tuple[np.ndarray, np.ndarray]:
    """The LTR plugins' ``model/xgboost+json``: opensearch-project/opensearch-learning-to-rank-base at af2d983,
    ``XGBoostJsonParser`` and ``NaiveAdditiveDecisionTree``: thresholds and leaves parsed as float
    (``declareFloat``: 2**128 reads as +inf), a feature value read as float; NaN goes to ``missing`` (from 3.8.0.0;
    o19s from 1.5.9) or right (before), else left when ``threshold > value``; the trees' outputs summed in float,
    in order, with no normalizer for the bare tree array."""
    col = {n: j for j, n in enumerate(names)}
    X32 = _as_float32(X)
    total = np.zeros(X.shape[0], dtype=np.float32)
    leaves = []

    def split_of(node):
        if [c["nodeid"] for c in node["children"]] != [node["yes"], node["no"]]:
            raise ValueError(f"node {node['nodeid']}: children must be [yes, no] (the parser refuses others)")
        threshold = _as_float32(node["split_condition"])
        nan_left = nan_missing and node.get("missing") == node["yes"]

        def go_left(x):
            return np.where(np.isnan(x), nan_left, threshold > x)
        return col[node["split"]], go_left, node["children"][0], node["children"][1]

    for tree in trees:
        value, at = _walk(X32, tree, split_of, lambda nd: np.float32(nd["leaf"]) if "leaf" in nd else None)
        total = (total + value.astype(np.float32)).astype(np.float32)
        leaves.append(at)
    return total, np.stack(leaves, axis=1)


def _score_solr(doc: dict, X) -> tuple[np.ndarray, np.ndarray]:
    """Solr's ``MultipleAdditiveTreesModel`` (apache/solr at 1a87471, ``solr/modules/ltr``): a threshold is
    ``Float.parseFloat(text) + 1e-6f`` in float; left when ``value <= threshold`` (so NaN goes right);
    a tree scores ``weight * leaf`` in float; the model sums the trees in float, in order."""
    col = {f["name"]: j for j, f in enumerate(doc["features"])}
    X32 = _as_float32(X)
    total = np.zeros(X.shape[0], dtype=np.float32)
    leaves = []

    def split_of(node):
        threshold = np.float32(np.float32(node["threshold"]) + SOLR_SLACK)
        return col[node["feature"]], (lambda x: x <= threshold), node["left"], node["right"]

    for tree in doc["params"]["trees"]:
        value, at = _walk(X32, tree["root"], split_of, lambda nd: np.float32(nd["value"]) if "feature" not in nd
                          else None)
        total = (total + np.float32(tree["weight"]) * value.astype(np.float32)).astype(np.float32)
        leaves.append(at)
    return total, np.stack(leaves, axis=1)


def _score_vespa(export: ModelExport, X) -> tuple[np.ndarray, np.ndarray]:
    """Vespa's XGBoost importer (vespa-engine/vespa at 1f79d33, ``model-integration``, ``AbstractXGBoostParser``):
    a split is ``if (!(x >= c), yes, no)`` where ``missing == yes`` and ``if (x < c, yes, no)`` elsewhere, the child
    with ``nodeid == yes`` taken on true; ``c`` is ``(float) split_condition`` from 8.624.72 (the double before);
    leaves summed in double, no link.  Float attributes hold float32 values.  A forest that ``gbdt.cpp`` hands to
    ``vm_forest.cpp`` compares against float thresholds and sums float leaves (every version).  The profile may add
    a constant (the base margin, which the importer leaves out)."""
    files, name = export.files, export.name
    profile = files[f"{name}.profile"]
    m = re.search(r'expression: xgboost\("([^"]+)"\)(?: \+ (\S+))?', profile)
    if m is None:
        raise ValueError("the profile's first phase is not xgboost(...)")
    base = float(m.group(2) or 0.0)
    roots = deep_call(json.loads, files[f"models/{m.group(1)}"])
    X = X.copy()
    for j, kind in enumerate(export.input_types):
        if kind == "float":
            X[:, j] = _as_float32(X[:, j])
    col = {n: j for j, n in enumerate(export.feature_names)}
    vm_forest = is_vm_forest([_json_leaf_depths(root) for root in roots])
    cast = TARGETS[export.format].float_literals or vm_forest
    leaf_type = np.float32 if vm_forest else float

    def split_of(node):
        c = float(_as_float32(node["split_condition"])) if cast else float(node["split_condition"])
        yes_first = node["yes"] == node["children"][0]["nodeid"]
        yes, no = (node["children"] if yes_first else node["children"][::-1])
        nan_yes = node.get("missing") == node["yes"]

        def go_left(x):
            return ~(x >= c) if nan_yes else x < c
        return col[node["split"]], go_left, yes, no

    total = np.zeros(X.shape[0])
    leaves = []
    for root in roots:
        value, at = _walk(X, root, split_of, lambda nd: float(leaf_type(nd["leaf"])) if "leaf" in nd else None)
        total += value
        leaves.append(at)
    total += base
    return total, np.stack(leaves, axis=1)


def _json_leaf_depths(root) -> list:
    """The leaf depths of one imported JSON tree."""
    stack, depths = [(root, 0)], []
    while stack:
        node, depth = stack.pop()
        if "leaf" in node:
            depths.append(depth)
        else:
            stack += [(c, depth + 1) for c in node["children"]]
    return depths


def score_export(export: ModelExport, X, *, return_leaves: bool = False):
    """Score rows with an exported model as the target engine's own code does.

    Use it to check an export before deploying it: its scores should equal the model's raw
    scores (to float32 rounding of the sum for the LTR plugins and Solr) on every row that no
    entry of :attr:`ModelExport.inexact` covers.

    Parameters
    ----------
    export : ModelExport
        From :func:`export_model` (its ``files`` are what is evaluated).
    X : array-like of shape (n_rows, n_features)
        Feature values in the column order of ``export.feature_names``, as the model is given
        them; the plugins and Solr read them as float32, Vespa's float attributes hold float32.
    return_leaves : bool, default=False
        Also return, per row and tree, the preorder position of the leaf reached (map through
        ``export.node_ids`` to the model's nodes).

    Returns
    -------
    scores : ndarray (float32 for the LTR plugins and Solr, float64 for Vespa)
    leaves : ndarray of int64 of shape (n_rows, n_trees), with ``return_leaves``

    Examples
    --------
    >>> import warnings, numpy as np, boostrank as br
    >>> data = br.datasets.make_letor(30, random_state=0)
    >>> ranker = br.LambdaRanker(n_estimators=5).fit(data.X, data.y, qid=data.qid)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", br.export.ExportWarning)
    ...     export = br.export_model(ranker, "vespa")
    >>> bool(np.allclose(score_export(export, data.X), ranker.predict(data.X), atol=1e-5))
    True
    """
    X = feature_columns(X, len(export.feature_names))
    document = TARGETS[export.format].document
    if document == "ltr-json":
        body = json.loads(export.files["model.json"])
        definition = body["model"]["model"]["definition"]
        trees = deep_call(json.loads, definition) if isinstance(definition, str) else definition
        if isinstance(trees, dict):
            trees = trees["splits"]
        out = _score_xgboost_json(trees, X, export.feature_names, TARGETS[export.format].nan_missing)
    elif document == "solr":
        out = _score_solr(deep_call(json.loads, export.files["model.json"]), X)
    else:
        out = _score_vespa(export, X)
    scores, leaves = out
    return (scores, leaves[:, :len(export.node_ids)]) if return_leaves else scores  # no column for the base leaf


def rerank_export(export: ModelExport, X, qid=None) -> np.ndarray:
    """The order a two-stage export gives each list, as the target engine computes it.

    The first stage scores every row (as :func:`score_export`); its top ``rerank_k`` of each list
    are re-scored by the second stage and put first in that order, the rest keep the first
    stage's order (Vespa's ``second-phase`` with ``rerank-count``; Elasticsearch's ``rescore``,
    which sorts the window by ``query_weight · first + rescore_query_weight · second`` in float,
    the plugin's ``model/linear`` summing ``weight · feature`` in float).  Ties keep input order
    (the engines break them by their internal document order).

    Parameters
    ----------
    export : ModelExport
        Of a TopKReranker (``rerank_k`` set).
    X : array-like of shape (n_rows, n_features)
    qid : array-like, default=None
        The lists (contiguous); None for one list.

    Returns
    -------
    ndarray of int64
        Row indices of every list, best first, lists in input order (as ``TopKReranker.rerank``).
    """
    from .._validation import group_offsets

    if export.rerank_k is None:
        raise ValueError("rerank_export needs the export of a TopKReranker (two stages); score_export scores one")
    X = feature_columns(X, len(export.feature_names))
    offsets = group_offsets(X.shape[0], qid=qid)
    weights = export.second_stage
    cols = [w for n, w in weights.items() if n != "base_score"]
    wb = weights.get("base_score", 0.0)
    if TARGETS[export.format].document == "vespa":
        first = _score_vespa(export, X)[0]
        Xv = X.copy()
        for j, kind in enumerate(export.input_types):
            if kind == "float":
                Xv[:, j] = _as_float32(X[:, j])
        second = Xv @ np.asarray(cols, dtype=np.float64) + wb * first
    else:
        first = score_export(export, X)
        X32 = X.astype(np.float32)
        linear = np.zeros(X.shape[0], dtype=np.float32)
        for j, w in enumerate(cols):  # the plugin's LinearRanker: score += weight * feature, in float
            linear = (linear + np.float32(w) * X32[:, j]).astype(np.float32)
        second = (np.float32(wb) * first + linear).astype(np.float32)
    out = []
    for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist()):
        rows = a + np.argsort(-first[a:b], kind="stable")
        top = rows[: export.rerank_k]
        top = top[np.argsort(-second[top], kind="stable")]
        out.append(np.concatenate([top, rows[export.rerank_k:]]))
    return np.concatenate(out).astype(np.int64) if out else np.zeros(0, dtype=np.int64)
