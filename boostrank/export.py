"""Models out to search engines: linear models and boosted trees.

RankNCG, MIPRanker and TopKReranker score a document by wᵀx, which a search engine
computes natively at query time.  :func:`export_linear` writes that w with the feature
names the engine knows the features by.  A TopKReranker is a re-ranking phase: its last
weight is the first stage's score, and it applies to the top ``k`` of the list (an
Elasticsearch ``rescore`` window, a Vespa ``second-phase`` with ``rerank-count``).
"""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

__all__ = ["export_linear", "linear_weights", "vespa_feature", "export_model", "score_export", "rerank_export",
           "ModelExport", "ExportWarning"]

FORMATS = ("elasticsearch-ltr", "vespa")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
#: a Vespa identifier: attribute, field and rank-feature names (no '-', no '.')
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
_OUTPUT = re.compile(r"[A-Za-z0-9_]+")
_MAX_DEPTH = 4


def _parse_feature(text: str, at: int, depth: int) -> int:
    """End of the rank feature that starts at ``at``, or -1 when none does.

    ``feature := ident ['(' [arg (',' arg)*] ')'] ('.' output)*`` with ``arg := feature |
    number``, spaces allowed after a comma and nowhere else, nesting at most ``_MAX_DEPTH`` deep
    (Vespa's rank-feature names: ``bm25(title)``, ``fieldMatch(title).completeness``,
    ``nativeRank(title, body)``, ``term(0).significance``).  Nothing else — no operator,
    quote, brace or newline — can be part of a name, so a name cannot end the expression or
    the profile it is pasted into.
    """
    m = _IDENT.match(text, at)
    if m is None or depth > _MAX_DEPTH:
        return -1
    at = m.end()
    if at < len(text) and text[at] == "(":
        at += 1
        if at < len(text) and text[at] == ")":
            at += 1
        else:
            while True:
                num = _NUMBER.match(text, at)
                end = _parse_feature(text, at, depth + 1)
                end = max(end, num.end() if num is not None else -1)
                if end < 0:
                    return -1
                at = end
                if at < len(text) and text[at] == ",":
                    at += 1
                    while at < len(text) and text[at] == " ":
                        at += 1
                    continue
                if at < len(text) and text[at] == ")":
                    at += 1
                    break
                return -1
    while at < len(text) and text[at] == ".":
        m = _OUTPUT.match(text, at + 1)
        if m is None:
            return -1
        at = m.end()
    return at


def vespa_feature(name: str) -> str:
    """The Vespa rank feature a column name stands for, or ``ValueError``.

    A bare identifier (letters, digits, ``_``; Vespa attribute names take no ``-`` or
    ``.``) is ``attribute(name)``; a name with parentheses must be one well-formed rank
    feature (see :func:`_parse_feature`), used as it is.

    Examples
    --------
    >>> vespa_feature("price"), vespa_feature("fieldMatch(title).completeness")
    ('attribute(price)', 'fieldMatch(title).completeness')
    """
    if not isinstance(name, str):
        raise TypeError(f"feature names must be strings, got {name!r}")
    if _IDENT.fullmatch(name):
        return f"attribute({name})"
    if "(" in name and _parse_feature(name, 0, 0) == len(name):
        return name
    raise ValueError(f"feature name {name!r} is neither a Vespa attribute name (letters, digits, '_') nor one "
                     f"well-formed rank feature such as 'bm25(title)' or 'fieldMatch(title).completeness'")


def _checked_names(given, default: list, d: int) -> list:
    """The engine's names of the ``d`` columns: ``given``, else ``default``; distinct non-empty strings."""
    if isinstance(given, (str, bytes)):
        raise TypeError(f"feature_names must be a sequence of names, got the single string {given!r}")
    names = list(given) if given is not None else list(default)
    bad = [n for n in names if not isinstance(n, str) or not n]
    if bad:  # json.dumps would write 1 and "1" as one key, None as "null", NaN as "NaN"
        raise TypeError(f"feature names must be non-empty strings, got {bad[0]!r}")
    if len(names) != d:
        raise ValueError(f"{len(names)} feature names for a model of {d} features")
    if len(set(names)) != len(names):
        raise ValueError("feature names must be distinct")
    return names


def linear_weights(model, feature_names: Sequence[str] | None = None) -> dict:
    """The model's scoring function as ``{feature name: weight}`` (insertion order = column order).

    The scores are ``Σ weight · feature`` plus a constant that does not change any order
    (RankNCG's centring); a TopKReranker's last entry is ``base_score``, the first
    stage's score.

    Parameters
    ----------
    model : RankNCG, MIPRanker or TopKReranker, fitted
    feature_names : sequence of str, default=None
        The engine's names of the columns of X; default ``feature_names_in_`` when the
        model was fitted on a DataFrame, else ``f1 … fd`` (LETOR's numbering).

    Returns
    -------
    dict
    """
    coef = getattr(model, "coef_", None)
    if coef is None:
        raise ValueError(f"{type(model).__name__} is not fitted (or not a linear model): no coef_")
    coef = np.asarray(coef, dtype=np.float64).reshape(-1)
    d = int(model.n_features_in_)
    names = _checked_names(feature_names, [str(n) for n in model.feature_names_in_]
                           if hasattr(model, "feature_names_in_") else [f"f{j + 1}" for j in range(d)], d)
    if coef.shape[0] == d + 1:  # TopKReranker with include_base: [X, base]
        names = names + ["base_score"]
    if coef.shape[0] != len(names):
        raise ValueError(f"the model has {coef.shape[0]} weights for {len(names)} named features")
    if len(set(names)) != len(names):
        raise ValueError("feature names must be distinct")
    if getattr(model, "fallback_", None):
        raise ValueError("the re-ranker kept the base order (fallback_): there is no second stage to export")
    if not np.isfinite(coef).all():
        raise ValueError("the model has non-finite weights")
    return {n: float(w) for n, w in zip(names, coef)}


def export_linear(model, format: str = "elasticsearch-ltr", *, feature_names: Sequence[str] | None = None,
                  name: str = "boostrank") -> str:
    """A linear model in a search engine's format, as text to write or send.

    Parameters
    ----------
    model : RankNCG, MIPRanker or TopKReranker, fitted
    format : {"elasticsearch-ltr", "vespa"}, default="elasticsearch-ltr"
        ``"elasticsearch-ltr"``: the JSON body of the LTR plugin's
        ``POST _ltr/_featureset/<feature set>/_createmodel`` with a ``model/linear``
        definition (the features must exist in that feature set under these names).  A
        TopKReranker's model goes in the query's ``rescore`` with ``window_size`` =
        ``model.result_.k``, and ``base_score`` a feature holding the first stage's score.
        ``"vespa"``: a ``rank-profile`` whose expression sums ``weight * attribute(name)``
        (a name with parentheses must be one well-formed rank feature, e.g.
        ``bm25(title)``, and is used as it is: :func:`vespa_feature`); a TopKReranker's is a ``second-phase`` over its top ``k``, with
        ``base_score`` as ``firstPhase``.
    feature_names : sequence of str, default=None
        See :func:`linear_weights`.
    name : str, default="boostrank"
        The model's (or rank profile's) name.

    Returns
    -------
    str
    """
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {format!r}")
    if not _NAME.fullmatch(name):
        raise ValueError(f"name {name!r} must be letters, digits, '_', '-', '.'")
    weights = linear_weights(model, feature_names)
    k = getattr(model, "result_", None)
    k = getattr(k, "k", None) if type(model).__name__ == "TopKReranker" else None
    if format == "elasticsearch-ltr":
        body = {"model": {"name": name, "model": {"type": "model/linear",
                                                  "definition": json.dumps(weights)}}}
        return json.dumps(body, indent=2)
    terms = []
    for feature, w in weights.items():
        if feature == "base_score" and k is not None:
            ref = "firstPhase"
        else:
            ref = vespa_feature(feature)
        terms.append(f"{w!r} * {ref}")
    expression = " + ".join(terms) if terms else "0"
    if k is None:
        phases = f"    first-phase {{\n        expression: {expression}\n    }}\n"
    else:
        phases = (f"    second-phase {{\n        rerank-count: {int(k)}\n        expression: {expression}\n    }}\n")
    return f"rank-profile {name} inherits default {{\n{phases}}}\n"


# ------------------------------------------------------------------ boosted trees

TREE_FORMATS = ("elasticsearch-ltr", "opensearch-ltr", "solr-ltr", "vespa")
_SOLR_SLACK = np.float32(1e-6)  # Solr's RegressionTreeNode.NODE_SPLIT_SLACK, added to every threshold as a float


class ExportWarning(UserWarning):
    """An export is exact except on a stated set of inputs (Solr thresholds its slack cannot reach)."""


@dataclass
class ModelExport:
    """A boosted model in a search engine's format.

    Attributes
    ----------
    format : str
    name : str
    feature_names : list of str
        The engine's names of the model's features, in the column order of X.
    files : dict of str to str
        File name to contents: the model document and the feature definitions it needs
        (see :func:`export_model`).
    node_ids : list of list of int
        Per tree, the :class:`~boostrank.trees.Forest` node of each node of the exported tree in
        preorder (the evaluators report leaves as preorder positions).
    inexact : list of (str, float, float)
        Feature and float32 interval (lo, hi] of inputs the target routes otherwise than the
        model (Solr only, see :class:`ExportWarning`); empty when the export is exact.
    rerank_k, second_stage : int and dict, or None
        A TopKReranker's export: its ``k`` and its linear weights (``base_score`` the first
        stage's score); the trees are then the first stage.
    """

    format: str
    name: str
    feature_names: list
    files: dict
    node_ids: list = field(repr=False)
    inexact: list = field(default_factory=list)
    rerank_k: int | None = None
    second_stage: dict | None = None

    def write(self, folder) -> list:
        """Write :attr:`files` into ``folder`` (created); returns the paths."""
        import os

        paths = []
        for rel, text in self.files.items():
            path = os.path.join(os.fspath(folder), rel)
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
            paths.append(path)
        return paths


def _f32(x) -> float:
    """The float32 nearest x, as the double that equals it (JSON text that every parser reads back exactly)."""
    return float(np.float32(x))


def _f32_at_most(t: float) -> np.float32:
    """The largest float32 <= t."""
    f = np.float32(t)
    return np.nextafter(f, np.float32(-np.inf)) if float(f) > t else f


def _left_below(tree, node: int, engine) -> tuple[np.float32, bool]:
    """(F, nan_left): float32 inputs go left exactly when x <= F; NaN goes left when nan_left."""
    bound, inclusive, nan_left = engine.left_set(tree, node)
    F = _f32_at_most(bound)
    if not inclusive and float(F) == bound:
        F = np.nextafter(F, np.float32(-np.inf))
    return F, nan_left


def _double_below(F: np.float32) -> float:
    """The double T such that a double x goes left (x < T) exactly when its nearest float32 (ties to even) is <= F:
    the split a double meets in Vespa of a model whose engine rounded its features to float32 (XGBoost)."""
    up = np.nextafter(F, np.float32(np.inf))
    # the midpoint of two neighbouring float32 is a double exactly; past float32's largest, the overflow point
    mid = (float(F) + float(up)) / 2.0 if np.isfinite(up) else float(F) + 2.0 ** 103
    f_even = int(np.asarray(F, dtype=np.float32).view(np.int32)) & 1 == 0
    return float(np.nextafter(mid, np.inf)) if f_even else mid  # a tie rounds to the even one of F and up


def _preorder(tree, node=0):
    out = [node]
    if tree.feature[node] >= 0:
        out += _preorder(tree, int(tree.left[node])) + _preorder(tree, int(tree.right[node]))
    return out


def _xgboost_json_tree(tree, engine, names, double: bool = False, node=0, depth=0):
    """One tree as XGBoost's JSON dump writes it (the plugins' and Vespa's input); ``yes`` is the left child,
    taken when ``x < split_condition``: a float32 condition (the plugins), or with ``double`` the double one that
    splits every double as the model does (Vespa)."""
    if tree.feature[node] < 0:
        return {"nodeid": node, "leaf": float(tree.value[node]) if double else _f32(tree.value[node])}
    if double and engine.FEATURES_AS_FLOAT32:  # the engine rounded each double to float32 before comparing
        F, nan_left = _left_below(tree, node, engine)
        T = _double_below(F)
    elif double:
        bound, inclusive, nan_left = engine.left_set(tree, node)
        T = float(np.nextafter(bound, np.inf)) if inclusive else bound
    else:
        F, nan_left = _left_below(tree, node, engine)
        T = np.nextafter(F, np.float32(np.inf))  # x <= F  <=>  x < T  for every float32 x
    if not np.isfinite(T):
        raise ValueError(f"threshold {float(tree.threshold[node])!r} is past the float32 range: no float32 "
                         f"threshold of the engines can express it")
    left, right = int(tree.left[node]), int(tree.right[node])
    return {"nodeid": node, "depth": depth, "split": names[int(tree.feature[node])], "split_condition": float(T),
            "yes": left, "no": right, "missing": left if nan_left else right,
            "children": [_xgboost_json_tree(tree, engine, names, double, left, depth + 1),
                         _xgboost_json_tree(tree, engine, names, double, right, depth + 1)]}


def _solr_threshold(F: np.float32) -> tuple[np.float32, np.float32]:
    """The float32 a whose Solr threshold float32(a + 1e-6) is F, or the nearest one can reach; (a, reached)."""
    def key(x):  # float32 -> int, monotone
        i = int(np.float32(x).view(np.int32))
        return i if i >= 0 else -(i & 0x7FFFFFFF)

    def value(k):
        return (np.int32(k) if k >= 0 else np.int32(-k) | np.int32(-0x80000000)).view(np.float32)

    lo, hi = key(np.float32(-3.4e38)), key(np.float32(3.4e38))
    while lo < hi:  # smallest a with float32(a + slack) >= F
        mid = (lo + hi) // 2
        if np.float32(value(mid) + _SOLR_SLACK) >= F:
            hi = mid
        else:
            lo = mid + 1
    a = value(lo)
    reached = np.float32(a + _SOLR_SLACK)
    if reached != F:
        # the nearest reachable threshold that keeps 0 on its side (zeros are what features hold most)
        below = value(lo - 1)
        options = [(x, np.float32(x + _SOLR_SLACK)) for x in (a, below)]
        keep = [o for o in options if (0.0 <= float(o[1])) == (0.0 <= float(F))] or options
        a, reached = min(keep, key=lambda o: abs(float(o[1]) - float(F)))
    return a, reached


def _solr_tree(tree, engine, names, node, gaps):
    if tree.feature[node] < 0:
        return {"value": str(np.float32(tree.value[node]))}
    F, _ = _left_below(tree, node, engine)
    a, reached = _solr_threshold(F)
    if reached != F:
        gaps.append((names[int(tree.feature[node])], float(min(F, reached)), float(max(F, reached))))
    return {"feature": names[int(tree.feature[node])], "threshold": str(a),
            "left": _solr_tree(tree, engine, names, int(tree.left[node]), gaps),
            "right": _solr_tree(tree, engine, names, int(tree.right[node]), gaps)}


def _tree_feature_names(forest, feature_names, vespa: bool) -> list:
    d = forest.n_features
    own = [str(n) for n in forest.feature_names]
    auto = own == [f"Column_{j}" for j in range(d)] or own == [f"f{j}" for j in range(d)]  # the engines' own
    names = _checked_names(feature_names, [f"f{j + 1}" for j in range(d)] if auto else own, d)
    if vespa:
        return [vespa_feature(n) for n in names]
    for n in names:
        if not _NAME.fullmatch(n):
            raise ValueError(f"feature name {n!r}: the LTR plugins' feature names here are letters, digits, '_', "
                             f"'-', '.' (one token in the featureset and the model)")
    return names


def export_model(model, format: str = "elasticsearch-ltr", *, feature_names: Sequence[str] | None = None,
                 name: str = "boostrank") -> ModelExport:
    """A LightGBM or XGBoost model in a search engine's tree format, with the feature definitions it needs.

    Every float32 input takes the same path through every tree as in the engine that trained
    the model (LightGBM's ``x <= t`` and missing-value rule, XGBoost's ``float32(x) < t``):
    thresholds are moved to the float32 (or, in Vespa, double) value where the target's own
    comparison splits the same inputs — in Vespa every double, XGBoost's rounding of its
    features to float32 included — and NaN goes where the model sends it.  Scores are the
    model's raw scores (no link: no sigmoid for a binary objective), summed as the engine does.

    Parameters
    ----------
    model : lightgbm.Booster, LGBMRanker, xgboost.Booster, XGBRanker, LambdaRanker or TopKReranker, fitted
        Trained with boostrank's objectives or the engines' own.  A TopKReranker whose
        ``base_estimator`` is one of these exports as two stages: the boosted first stage and
        the linear re-ranking of its top k (Vespa: ``second-phase`` with ``rerank-count``;
        Elasticsearch/OpenSearch: ``search.json``, an ``sltr`` query with a ``rescore`` of
        ``window_size`` k; Solr re-ranks once and is refused).
    format : {"elasticsearch-ltr", "opensearch-ltr", "solr-ltr", "vespa"}
        * ``"elasticsearch-ltr"``, ``"opensearch-ltr"``: ``model.json``, the body of
          ``POST _ltr/_featureset/<name>/_createmodel`` with a ``model/xgboost+json`` definition (the
          bare tree array: no objective, so no link), and ``featureset.json``, the body of
          ``POST _ltr/_featureset/<name>`` with one feature per column reading the numeric
          document field of that name (``function_score`` / ``field_value_factor``, missing 0;
          put your own query templates in their place for query-time features).
        * ``"solr-ltr"``: ``model.json`` (``MultipleAdditiveTreesModel``) and ``features.json``
          (``FieldValueFeature`` per column), for Solr's model and feature stores.
        * ``"vespa"``: ``models/<name>.json``, XGBoost's JSON dump format with double conditions, which
          Vespa's ``xgboost()`` rank feature reads for either engine's trees (its ``lightgbm()`` importer
          writes ``x < t`` for LightGBM's ``x <= t`` and a sigmoid for binary objectives), and
          ``<name>.profile``, a rank profile whose first phase is that feature (plus XGBoost's base
          margin, which Vespa's importer leaves out).
    feature_names : sequence of str, default=None
        The engine's names of the columns of X: default the model's own names (DataFrame columns),
        or LETOR's ``f1 … fd`` for unnamed columns.  For Vespa, rank features (``bm25(title)``)
        or attribute names (written ``attribute(name)``), checked by :func:`vespa_feature`.
    name : str, default="boostrank"

    Returns
    -------
    ModelExport

    Raises
    ------
    ValueError
        Categorical splits, linear trees, several outputs per round, a zero-as-missing split
        that sends zeros against its threshold, or names the format cannot hold.

    Warns
    -----
    ExportWarning
        Solr adds 1e-6 to every threshold in float32; a threshold that no float32 plus 1e-6
        reaches (one of LightGBM's 1e-35 zero splits, say) is set to the nearest reachable one,
        and the warning gives the float32 interval of inputs that go the other way.
    """
    from .engines import forest_of

    if type(model).__name__ == "TopKReranker":
        return _export_two_stage(model, format, feature_names, name)
    if format not in TREE_FORMATS:
        raise ValueError(f"format must be one of {TREE_FORMATS}, got {format!r}")
    if not _NAME.fullmatch(name) or (format == "vespa" and not _IDENT.fullmatch(name)):
        raise ValueError(f"name {name!r} must be letters, digits, '_'" + ("" if format == "vespa" else ", '-', '.'"))
    forest = forest_of(model)
    engine = forest.engine
    names = _tree_feature_names(forest, feature_names, format == "vespa")
    node_ids = [_preorder(tree) for tree in forest.trees]
    gaps: list = []
    if format in ("elasticsearch-ltr", "opensearch-ltr"):
        splits = [_xgboost_json_tree(tree, engine, names) for tree in forest.trees]
        if forest.base != 0.0:
            splits.append({"nodeid": 0, "leaf": _f32(forest.base)})
        body = {"model": {"name": name, "model": {"type": "model/xgboost+json", "definition": json.dumps(splits)}}}
        features = [{"name": n, "params": [], "template_language": "mustache",
                     "template": {"function_score": {"query": {"match_all": {}},
                                                     "field_value_factor": {"field": n, "missing": 0}}}}
                    for n in names]
        files = {"model.json": json.dumps(body, indent=2),
                 "featureset.json": json.dumps({"featureset": {"name": name, "features": features}}, indent=2)}
    elif format == "solr-ltr":
        trees = [{"weight": "1", "root": _solr_tree(tree, engine, names, 0, gaps)} for tree in forest.trees]
        if forest.base != 0.0:
            trees.append({"weight": "1", "root": {"value": str(np.float32(forest.base))}})
        if gaps:
            widest = max(gaps, key=lambda g: g[2] - g[1])
            warnings.warn(f"solr-ltr: {len(gaps)} threshold(s) cannot be reached through Solr's +1e-6 slack; each "
                          f"is set to the nearest reachable float32, so inputs in between go the other way "
                          f"(ModelExport.inexact; widest: {widest[0]} in ({widest[1]!r}, {widest[2]!r}])",
                          ExportWarning, stacklevel=2)
        doc = {"class": "org.apache.solr.ltr.model.MultipleAdditiveTreesModel", "name": name,
               "features": [{"name": n} for n in names], "params": {"trees": trees}}
        feats = [{"name": n, "class": "org.apache.solr.ltr.feature.FieldValueFeature", "params": {"field": n}}
                 for n in names]
        files = {"model.json": json.dumps(doc, indent=2), "features.json": json.dumps(feats, indent=2)}
    else:
        files = _vespa_files(forest, engine, names, name)
    return ModelExport(format=format, name=name, feature_names=names, files=files, node_ids=node_ids,
                       inexact=sorted(set(gaps)))


def _vespa_files(forest, engine, names, name) -> dict:
    """The model as XGBoost's JSON dump with double conditions (Vespa's ``xgboost()`` reads it for either
    engine's trees, compares in double and applies no link) and a rank profile adding the base margin."""
    model_text = json.dumps([_xgboost_json_tree(tree, engine, names, double=True) for tree in forest.trees])
    expression = f'xgboost("{name}.json")'
    if forest.base != 0.0:
        expression += f" + {float(forest.base)!r}"
    profile = f"rank-profile {name} inherits default {{\n    first-phase {{\n        expression: {expression}\n    }}\n}}\n"
    return {f"models/{name}.json": model_text, f"{name}.profile": profile}


# ------------------------------------------------------------------ the engines' evaluators


def _columns(X, n: int) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != n:
        raise ValueError(f"X must have one column per exported feature ({n}), got shape {X.shape}")
    return X


def _walk(X, root, split_of, leaf_of):
    """Send every row down one JSON tree; ``split_of(node)`` gives (column, go_left(x) -> bool array, left,
    right), ``leaf_of(node)`` the leaf value or None.  Returns (values, preorder positions of the leaves)."""
    flat, parent_pos = [], {}

    def number(node):  # preorder positions, as ModelExport.node_ids counts them
        parent_pos[id(node)] = len(flat)
        flat.append(node)
        if leaf_of(node) is None:
            _, _, left, right = split_of(node)
            number(left)
            number(right)

    number(root)
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
            at[rows] = np.where(go_left(X[rows, col]), parent_pos[id(left)], parent_pos[id(right)])
    return value, at


def _score_xgboost_json(trees: list, X, names) -> tuple[np.ndarray, np.ndarray]:
    """The LTR plugins' ``model/xgboost+json``: opensearch-project/opensearch-learning-to-rank-base 3.x,
    ``XGBoostJsonParser`` and ``NaiveAdditiveDecisionTree``: thresholds and leaves parsed as float
    (``declareFloat``), a feature value read as float; NaN goes to ``missing`` (right when absent),
    else left when ``threshold > value``; the trees' outputs summed in float, in order, with no
    normalizer for the bare tree array.  The o19s Elasticsearch plugin's parser is the same class;
    versions before per-node ``missing`` send NaN right."""
    col = {n: j for j, n in enumerate(names)}
    X32 = X.astype(np.float32)
    total = np.zeros(X.shape[0], dtype=np.float32)
    leaves = []

    def split_of(node):
        if [c["nodeid"] for c in node["children"]] != [node["yes"], node["no"]]:
            raise ValueError(f"node {node['nodeid']}: children must be [yes, no] (the parser refuses others)")
        threshold = np.float32(node["split_condition"])
        nan_left = node.get("missing") == node["yes"]

        def go_left(x):
            return np.where(np.isnan(x), nan_left, threshold > x)
        return col[node["split"]], go_left, node["children"][0], node["children"][1]

    for tree in trees:
        value, at = _walk(X32, tree, split_of, lambda nd: np.float32(nd["leaf"]) if "leaf" in nd else None)
        total = (total + value.astype(np.float32)).astype(np.float32)
        leaves.append(at)
    return total, np.stack(leaves, axis=1)


def _score_solr(doc: dict, X) -> tuple[np.ndarray, np.ndarray]:
    """Solr's ``MultipleAdditiveTreesModel`` (apache/solr main, ``solr/modules/ltr``): a threshold is
    ``Float.parseFloat(text) + 1e-6f`` in float; left when ``value <= threshold`` (so NaN goes right);
    a tree scores ``weight * leaf`` in float; the model sums the trees in float, in order."""
    col = {f["name"]: j for j, f in enumerate(doc["features"])}
    X32 = X.astype(np.float32)
    total = np.zeros(X.shape[0], dtype=np.float32)
    leaves = []

    def split_of(node):
        threshold = np.float32(np.float32(node["threshold"]) + _SOLR_SLACK)
        return col[node["feature"]], (lambda x: x <= threshold), node["left"], node["right"]

    for tree in doc["params"]["trees"]:
        value, at = _walk(X32, tree["root"], split_of, lambda nd: np.float32(nd["value"]) if "feature" not in nd
                          else None)
        total = (total + np.float32(tree["weight"]) * value.astype(np.float32)).astype(np.float32)
        leaves.append(at)
    return total, np.stack(leaves, axis=1)


def _score_vespa(files: dict, name: str, X, names) -> tuple[np.ndarray, np.ndarray]:
    """Vespa's XGBoost importer (vespa-engine/vespa 8, ``model-integration``, ``XGBoostParser``): a split is
    ``if (!(x >= c), yes, no)`` where ``missing == yes`` and ``if (x < c, yes, no)`` elsewhere, the child with
    ``nodeid == yes`` taken on true, leaves summed, no link; ranking expressions evaluate in double.  The
    profile may add a constant (the base margin, which the importer leaves out)."""
    profile = files[f"{name}.profile"]
    m = re.search(r'expression: xgboost\("([^"]+)"\)(?: \+ (\S+))?', profile)
    if m is None:
        raise ValueError("the profile's first phase is not xgboost(...)")
    base = float(m.group(2) or 0.0)
    model = json.loads(files[f"models/{m.group(1)}"])
    col = {n: j for j, n in enumerate(names)}
    total = np.zeros(X.shape[0])
    leaves = []
    def split_of(node):
        c = float(node["split_condition"])
        yes_first = node["yes"] == node["children"][0]["nodeid"]
        yes, no = (node["children"] if yes_first else node["children"][::-1])
        nan_yes = node.get("missing") == node["yes"]

        def go_left(x):
            return ~(x >= c) if nan_yes else x < c
        return col[node["split"]], go_left, yes, no

    roots = model
    leaf_of = (lambda nd: float(nd["leaf"]) if "leaf" in nd else None)
    for root in roots:
        value, at = _walk(X, root, split_of, leaf_of)
        total += value
        leaves.append(at)
    total += base
    return total, np.stack(leaves, axis=1)


def score_export(export: ModelExport, X, *, return_leaves: bool = False):
    """Score rows with an exported model as the target engine's own code does.

    Use it to check an export before deploying it: its scores should equal the model's raw
    scores (to float32 rounding of the sum for the LTR plugins and Solr).

    Parameters
    ----------
    export : ModelExport
        From :func:`export_model` (its ``files`` are what is evaluated).
    X : array-like of shape (n_rows, n_features)
        Feature values in the column order of ``export.feature_names``; the plugins and Solr
        read them as float32.
    return_leaves : bool, default=False
        Also return, per row and tree, the preorder position of the leaf reached (map through
        ``export.node_ids`` to the model's nodes).

    Returns
    -------
    scores : ndarray (float32 for the LTR plugins and Solr, float64 for Vespa)
    leaves : ndarray of int64 of shape (n_rows, n_trees), with ``return_leaves``
    """
    X = _columns(X, len(export.feature_names))
    if export.format in ("elasticsearch-ltr", "opensearch-ltr"):
        body = json.loads(export.files["model.json"])
        definition = body["model"]["model"]["definition"]
        trees = json.loads(definition) if isinstance(definition, str) else definition
        if isinstance(trees, dict):
            trees = trees["splits"]
        out = _score_xgboost_json(trees, X, export.feature_names)
    elif export.format == "solr-ltr":
        out = _score_solr(json.loads(export.files["model.json"]), X)
    else:
        out = _score_vespa(export.files, export.name, X, export.feature_names)
    return out if return_leaves else out[0]


def _export_two_stage(model, format, feature_names, name) -> ModelExport:
    """A TopKReranker over a boosted base: the base's trees first, the linear re-ranking of its top k second."""
    if format not in TREE_FORMATS:
        raise ValueError(f"format must be one of {TREE_FORMATS}, got {format!r}")
    base = getattr(model, "base_estimator_", None)
    if base is None:
        raise ValueError("the TopKReranker's first stage is base scores passed in, not a model: export your base "
                         "model with export_model and the re-ranker with export_linear")
    if getattr(model, "fallback_", False):  # the gate kept the base order: the base model is the whole ranker
        return export_model(base, format, feature_names=feature_names, name=name)
    if format == "solr-ltr":
        raise ValueError("Solr re-ranks once ({!ltr reRankDocs=k}) with one model: export the base model and the "
                         "re-ranker (export_linear) and choose one stage for Solr")
    first = export_model(base, format, feature_names=feature_names, name=f"{name}_base")
    plain = [re.sub(r"^attribute\((.*)\)$", r"\1", n) for n in first.feature_names]
    weights = linear_weights(model, plain)
    k = int(model.result_.k)
    if format == "vespa":
        terms = [f"{w!r} * {'firstPhase' if n == 'base_score' else vespa_feature(n)}" for n, w in weights.items()]
        first_expression = re.search(r"expression: (.*)", first.files[f"{name}_base.profile"]).group(1)
        profile = (f"rank-profile {name} inherits default {{\n    first-phase {{\n        expression: "
                   f"{first_expression}\n    }}\n    second-phase {{\n        rerank-count: {k}\n        expression: "
                   f"{' + '.join(terms) or '0'}\n    }}\n}}\n")
        files = {f"models/{name}_base.json": first.files[f"models/{name}_base.json"], f"{name}.profile": profile}
    else:
        linear = {n: w for n, w in weights.items() if n != "base_score"}
        rescore = {"model": {"name": name, "model": {"type": "model/linear", "definition": json.dumps(linear)}}}
        search = {"query": {"sltr": {"params": {}, "model": f"{name}_base"}},
                  "rescore": {"window_size": k, "query": {
                      "rescore_query": {"sltr": {"params": {}, "model": name}},
                      "query_weight": weights.get("base_score", 0.0), "rescore_query_weight": 1.0,
                      "score_mode": "total"}}}
        featureset = json.loads(first.files["featureset.json"])
        featureset["featureset"]["name"] = name
        files = {"model.json": first.files["model.json"], "rescore_model.json": json.dumps(rescore, indent=2),
                 "featureset.json": json.dumps(featureset, indent=2), "search.json": json.dumps(search, indent=2)}
    return ModelExport(format=format, name=name, feature_names=first.feature_names, files=files,
                       node_ids=first.node_ids, inexact=first.inexact, rerank_k=k, second_stage=weights)


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
    from ._validation import group_offsets

    if export.rerank_k is None:
        raise ValueError("rerank_export needs the export of a TopKReranker (two stages); score_export scores one")
    X = _columns(X, len(export.feature_names))
    offsets = group_offsets(X.shape[0], qid=qid)
    weights = export.second_stage
    cols = [w for n, w in weights.items() if n != "base_score"]
    wb = weights.get("base_score", 0.0)
    if export.format == "vespa":
        first = _score_vespa(export.files, export.name, X, export.feature_names)[0]
        second = X @ np.asarray(cols, dtype=np.float64) + wb * first
    else:
        body = json.loads(json.loads(export.files["model.json"])["model"]["model"]["definition"])
        first = _score_xgboost_json(body, X, export.feature_names)[0]
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
