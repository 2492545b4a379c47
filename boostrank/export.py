"""Models out to search engines: linear models and boosted trees.

RankNCG, MIPRanker and TopKReranker score a document by wᵀx, which a search engine
computes natively at query time.  :func:`export_linear` writes that w with the feature
names the engine knows the features by.  A TopKReranker is a re-ranking phase: its last
weight is the first stage's score, and it applies to the top ``k`` of the list (an
Elasticsearch ``rescore`` window, a Vespa ``second-phase`` with ``rerank-count``).
"""

from __future__ import annotations

import json
import math
import re
import warnings
from dataclasses import dataclass, field
from typing import NamedTuple, Sequence

import numpy as np

from .trees import deep_call, preorder

__all__ = ["export_linear", "linear_weights", "vespa_feature", "export_model", "score_export", "rerank_export",
           "ModelExport", "ExportWarning", "Misroute", "TREE_FORMATS", "threshold_rows"]

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


def _is_reranker(model) -> bool:
    from .rerank import TopKReranker

    return isinstance(model, TopKReranker)


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
    k = getattr(k, "k", None) if _is_reranker(model) else None
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

_SOLR_SLACK = np.float32(1e-6)  # Solr's RegressionTreeNode.NODE_SPLIT_SLACK, added to every threshold as a float
_FLT_MAX = np.finfo(np.float32).max
#: a JSON number that Java's ``Float.parseFloat`` (and numpy) round to +inf: 2**128, past float32's overflow point
_FLOAT_INF_TEXT = 2.0 ** 128
_NAN = float("nan")  # one object, so that set() merges the NaN entries of ModelExport.inexact


@dataclass(frozen=True)
class _Target:
    """What one engine version does with an exported tree."""

    document: str  # "ltr-json" (model/xgboost+json), "solr" (MultipleAdditiveTreesModel), "vespa" (xgboost())
    float_literals: bool  # thresholds reach the comparison as float32
    nan_missing: bool  # NaN takes the split's ``missing`` branch; otherwise NaN goes right
    source: str


#: Each target as its engine's current source (by version) evaluates an exported tree.  Cited per target:
#: opensearch-project/opensearch-learning-to-rank-base ``NaiveAdditiveDecisionTree.Split.eval`` (float threshold,
#: ``threshold > value``; NaN to ``defaultLeft`` since 80e9385, first released in 3.8.0.0, to the right before;
#: unmatched features NaN since cf28954, 3.2.0.0); o19s/elasticsearch-learning-to-rank ``NaiveAdditiveDecisionTree``
#: at 1dfed57 (NaN to ``missing`` since 39024f6, first released in v1.5.9, which then needs ``missing`` on every
#: split); apache/solr ``MultipleAdditiveTreesModel`` (``value <= Float.parseFloat(threshold) + 1e-6f``, no missing
#: branch, at 1a87471); vespa-engine/vespa ``AbstractXGBoostParser.treeToRankExp`` at 1f79d33 (``(float) split_condition``
#: since 0aa88a4, first released in 8.624.72; the double before) and ``eval/gbdt.cpp`` ``Optimize::select_best``
#: with ``vm_forest.cpp`` (a forest of more than 25 000 leaves, or of trees over 12 leaves whose average leaf depths
#: sum past 2 500, is evaluated with float thresholds and leaves on every version).
TARGETS = {
    "elasticsearch-ltr": _Target("ltr-json", True, True, "o19s Elasticsearch LTR >= 1.5.9"),
    "elasticsearch-ltr<1.5.9": _Target("ltr-json", True, False, "o19s Elasticsearch LTR < 1.5.9"),
    "opensearch-ltr": _Target("ltr-json", True, True, "OpenSearch LTR >= 3.8.0.0"),
    "opensearch-ltr<3.8": _Target("ltr-json", True, False, "OpenSearch LTR < 3.8.0.0"),
    "solr-ltr": _Target("solr", True, False, "Solr LTR MultipleAdditiveTreesModel"),
    "vespa": _Target("vespa", True, True, "Vespa >= 8.624.72 xgboost()"),
    "vespa<8.624": _Target("vespa", False, True, "Vespa < 8.624.72 xgboost()"),
}
TREE_FORMATS = tuple(TARGETS)


class ExportWarning(UserWarning):
    """An export routes some inputs otherwise than the model; :attr:`ModelExport.inexact` lists them."""


class Misroute(NamedTuple):
    """Inputs of one feature that a target sends down another branch of some split than the model does.

    Doubles ``lo <= x < hi`` (``x <= hi`` when ``hi`` is +inf: a LightGBM split at +inf sends +inf left, which no
    ``<`` of the targets does); ``lo`` and ``hi`` NaN: the value NaN.
    """

    feature: str
    lo: float
    hi: float

    @property
    def nan(self) -> bool:
        return math.isnan(self.lo)

    @property
    def holds_float32(self) -> bool:
        """Whether some float32 value (a float field or attribute's) lies in the interval (or it is NaN)."""
        if self.nan:
            return True
        with np.errstate(over="ignore"):
            f = np.float32(self.lo)
        if float(f) < self.lo:
            f = np.nextafter(f, np.float32(np.inf))
        return bool(float(f) < self.hi)

    def covers(self, x: np.ndarray) -> np.ndarray:
        """Which values of ``x`` lie in it."""
        x = np.asarray(x, dtype=np.float64)
        if self.nan:
            return np.isnan(x)
        return (x >= self.lo) & ((x < self.hi) | ((x == self.hi) & (self.hi == math.inf)))


@dataclass
class ModelExport:
    """A boosted model in a search engine's format.

    Attributes
    ----------
    format : str
        The target, one of :data:`TREE_FORMATS`.
    name : str
    feature_names : list of str
        The engine's names of the model's features, in the column order of X.
    files : dict of str to str
        File name to contents: the model document and the feature definitions it needs
        (see :func:`export_model`).
    node_ids : list of list of int
        Per tree, the :class:`~boostrank.trees.Forest` node of each node of the exported tree in
        preorder (the evaluators report leaves as preorder positions).
    inexact : list of Misroute
        The inputs (as the doubles the model is given) that the target routes otherwise than
        the model on some split; empty when every input takes the model's path.
    input_types : list of str
        Per feature, ``"float"`` or ``"double"``: what the target compares (the LTR plugins and
        Solr read float; Vespa reads float attributes as float, rank features as double).
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
    input_types: list = field(default_factory=list, repr=False)
    rerank_k: int | None = None
    second_stage: dict | None = None

    def inexact_rows(self, X) -> np.ndarray:
        """Which rows of ``X`` hold a value that some entry of :attr:`inexact` lists (bool array): the rows the
        target may route otherwise than the model; every other row takes the model's path in every tree."""
        X = _columns(X, len(self.feature_names))
        out = np.zeros(X.shape[0], dtype=bool)
        for m in self.inexact:
            out |= m.covers(X[:, self.feature_names.index(m.feature)])
        return out

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
    with np.errstate(over="ignore"):
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
    the split a double meets in a target that reads its inputs as float32."""
    with np.errstate(over="ignore"):
        up = np.nextafter(F, np.float32(np.inf))
    # the midpoint of two neighbouring float32 is a double exactly; past float32's largest, the overflow point
    mid = (float(F) + float(up)) / 2.0 if np.isfinite(up) else float(F) + 2.0 ** 103
    f_even = int(np.asarray(F, dtype=np.float32).view(np.int32)) & 1 == 0
    return float(np.nextafter(mid, np.inf)) if f_even else mid  # a tie rounds to the even one of F and up


def _model_bound(tree, node: int, engine) -> float:
    """The double B such that a number x goes left in the model exactly when x < B."""
    if engine.FEATURES_AS_FLOAT32:
        return _double_below(_left_below(tree, node, engine)[0])
    bound, inclusive, _ = engine.left_set(tree, node)
    return float(np.nextafter(bound, np.inf)) if inclusive else float(bound)


def _target_bound(c: float, document: str, float_input: bool) -> float:
    """The double B such that a number x goes left in the target exactly when x < B, for condition ``c``."""
    with np.errstate(over="ignore"):
        if document == "solr":  # float32(x) <= float32(a + 1e-6), c the sum
            return _double_below(np.float32(c))
        if float_input:  # float32(x) < c: float32(x) <= the largest float32 below c
            below = _f32_at_most(c)
            if float(below) == c:
                below = np.nextafter(below, np.float32(-np.inf))
            return _double_below(below)
    return float(c)  # x < c in double


def _solr_threshold(F: np.float32) -> tuple[np.float32, np.float32]:
    """The float32 a whose Solr threshold float32(a + 1e-6) is F, or the nearest one can reach; (a, reached)."""
    def key(x):  # float32 -> int, monotone
        i = int(np.float32(x).view(np.int32))
        return i if i >= 0 else -(i & 0x7FFFFFFF)

    def value(k):
        return (np.int32(k) if k >= 0 else np.int32(-k) | np.int32(-0x80000000)).view(np.float32)

    lo, hi = key(np.float32(-3.4e38)), key(_FLT_MAX)
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


def _vm_forest(leaf_depths: list) -> bool:
    """Whether Vespa evaluates a forest with float thresholds and leaves (``gbdt.cpp`` ``select_best``), from each
    tree's leaf depths: more than 25 000 leaves, or trees over 12 leaves whose average leaf depths sum past 2 500."""
    sizes = [len(d) for d in leaf_depths]
    path = sum(sum(d) / len(d) for d in leaf_depths)
    return bool(sizes) and ((max(sizes) > 12 and path > 2500.0) or sum(sizes) > 25000)


def _leaf_depths(tree) -> list:
    nodes, depths = preorder(tree)
    return [d for n, d in zip(nodes, depths) if tree.feature[n] < 0]


@dataclass
class _Plan:
    """One split as a target gets it: the condition to write and the inputs it routes otherwise."""

    condition: float  # ltr-json/Vespa: the ``split_condition``; Solr: the threshold text's value
    nan_left: bool
    misroutes: list


def _plan(tree, node, engine, target: _Target, name: str, float_input: bool, float_literals: bool) -> _Plan:
    F, nan_left = _left_below(tree, node, engine)
    B_model = _model_bound(tree, node, engine)
    if target.document == "solr":
        condition, reached = _solr_threshold(F)
        B_target = _target_bound(reached, "solr", True)
    else:
        if float_literals:  # the float32 above every float32 that goes left: exact for float32 inputs
            with np.errstate(over="ignore"):
                c = np.nextafter(F, np.float32(np.inf))
            if not np.isfinite(c):
                # Vespa's grammar has no Infinity: float32's largest; the plugins parse 2**128 as +inf
                c = _FLT_MAX if target.document == "vespa" else np.float32(np.inf)
            condition = float(c)
        else:  # Vespa before 8.624.72 compares the double literal; no literal is past every double
            condition = B_model if math.isfinite(B_model) else float(np.finfo(np.float64).max)
        B_target = _target_bound(condition, target.document, float_input)
    misroutes = []
    if B_target != B_model:
        misroutes.append(Misroute(name, min(B_model, B_target), max(B_model, B_target)))
    if nan_left and not target.nan_missing:
        misroutes.append(Misroute(name, _NAN, _NAN))
    return _Plan(condition, nan_left, misroutes)


def _json_number(c: float) -> float:
    return _FLOAT_INF_TEXT if math.isinf(c) else c


def _xgboost_json_tree(tree, plans, names, double_leaves: bool):
    """One tree as XGBoost's JSON dump writes it (the plugins' and Vespa's input), built with a stack; ``yes`` is
    the left child, taken when ``x < split_condition``; ``missing`` the side the model sends NaN."""
    order, depths = preorder(tree)
    out = {}
    for node, depth in zip(order, depths):
        if tree.feature[node] < 0:
            leaf = float(tree.value[node]) if double_leaves else _f32(tree.value[node])
            out[node] = {"nodeid": node, "leaf": leaf}
            continue
        left, right, plan = int(tree.left[node]), int(tree.right[node]), plans[node]
        out[node] = {"nodeid": node, "depth": depth, "split": names[int(tree.feature[node])],
                     "split_condition": _json_number(plan.condition), "yes": left, "no": right,
                     "missing": left if plan.nan_left else right, "children": []}
    for node in order:
        if tree.feature[node] >= 0:
            out[node]["children"] = [out[int(tree.left[node])], out[int(tree.right[node])]]
    return out[0]


def _solr_tree(tree, plans, names):
    order, _ = preorder(tree)
    out = {}
    for node in order:
        if tree.feature[node] < 0:
            out[node] = {"value": str(np.float32(tree.value[node]))}
        else:
            out[node] = {"feature": names[int(tree.feature[node])], "threshold": str(np.float32(plans[node].condition))}
    for node in order:
        if tree.feature[node] >= 0:
            out[node]["left"], out[node]["right"] = out[int(tree.left[node])], out[int(tree.right[node])]
    return out[0]


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


def _warn_inexact(fmt: str, inexact: list) -> None:
    nan = sorted({m.feature for m in inexact if m.nan})
    intervals = [m for m in inexact if not m.nan]
    with_float = [m for m in intervals if m.holds_float32]
    parts = []
    if nan:
        parts.append(f"NaN in {len(nan)} feature(s) ({', '.join(nan[:3])}{', ...' if len(nan) > 3 else ''}) goes "
                     f"right where the model sends it left (this target has no missing branch)")
    if intervals:
        parts.append(f"{len(intervals)} interval(s) of inputs near thresholds take the other branch, "
                     + (f"{len(with_float)} of them holding float32 values" if with_float else
                        "none holding a float32 value: inputs that are float32 values route exactly"))
    warnings.warn(f"{fmt}: " + "; ".join(parts) + " (ModelExport.inexact lists them)", ExportWarning, stacklevel=3)


def export_model(model, format: str = "elasticsearch-ltr", *, feature_names: Sequence[str] | None = None,
                 name: str = "boostrank", absent: float | None = 0.0,
                 attribute_type: str = "float") -> ModelExport:
    """A LightGBM or XGBoost model in a search engine's tree format, with the feature definitions it needs.

    Each split's threshold is written where the target's own comparison (by engine version,
    see :data:`TARGETS`) splits the inputs as the model does: LightGBM's ``x <= t`` in double
    after its missing-value rule, XGBoost's ``float32(x) < t``.  NaN goes where the model
    sends it on the targets that have a missing branch.  Where a target cannot follow the
    model — LightGBM's double thresholds read by an engine that compares float32, NaN on a
    target without a missing branch, Solr's ``+1e-6`` slack, Vespa's float literals — the
    export lists the inputs it routes otherwise in :attr:`ModelExport.inexact` and warns
    (:class:`ExportWarning`); nothing is exported silently wrong.  Scores are the model's raw
    scores (no link: no sigmoid for a binary objective), summed as the engine does.

    Parameters
    ----------
    model : lightgbm.Booster, LGBMRanker, xgboost.Booster, XGBRanker, LambdaRanker or TopKReranker, fitted
        Trained with boostrank's objectives or the engines' own.  A TopKReranker whose
        ``base_estimator`` is one of these exports as two stages: the boosted first stage and
        the linear re-ranking of its top k (Vespa: ``second-phase`` with ``rerank-count``;
        Elasticsearch/OpenSearch: ``search.json``, an ``sltr`` query with a ``rescore`` of
        ``window_size`` k; Solr re-ranks once and is refused).
    format : str, default="elasticsearch-ltr"
        One of :data:`TREE_FORMATS`; a name without a version means the engine as its current
        source does it, ``"<version"`` the older behaviour:

        * ``"elasticsearch-ltr"`` (o19s plugin >= 1.5.9), ``"elasticsearch-ltr<1.5.9"``,
          ``"opensearch-ltr"`` (>= 3.8.0.0), ``"opensearch-ltr<3.8"``: ``model.json``, the body of
          ``POST _ltr/_featureset/<name>/_createmodel`` with a ``model/xgboost+json`` definition
          (the bare tree array: no objective, so no link), and ``featureset.json``, the body of
          ``POST _ltr/_featureset/<name>`` with one feature per column reading the numeric
          document field of that name (put your own query templates in their place for
          query-time features).  The older versions send NaN right on every split.
        * ``"solr-ltr"``: ``model.json`` (``MultipleAdditiveTreesModel``) and ``features.json``
          (``FieldValueFeature`` per column), for Solr's model and feature stores.
        * ``"vespa"`` (>= 8.624.72), ``"vespa<8.624"``: ``models/<name>.json``, XGBoost's JSON
          dump format, which Vespa's ``xgboost()`` rank feature reads for either engine's trees,
          and ``<name>.profile``, a rank profile whose first phase is that feature (plus
          XGBoost's base margin, which Vespa's importer leaves out).  Vespa from 8.624.72 casts
          each condition to float, so the conditions are float32 values; before, they are the
          doubles that split every double as the model does.
    feature_names : sequence of str, default=None
        The engine's names of the columns of X: default the model's own names (DataFrame columns),
        or LETOR's ``f1 … fd`` for unnamed columns.  For Vespa, rank features (``bm25(title)``)
        or attribute names (written ``attribute(name)``), checked by :func:`vespa_feature`.
    name : str, default="boostrank"
    absent : float or None, default=0.0
        The value of a feature for a document without the field (Elasticsearch/OpenSearch
        feature sets): ``0.0`` is LETOR's convention (sparse files leave zeros out; the model
        must have seen 0 there); ``None`` lets the feature not match such a document, which the
        plugins score as NaN (o19s >= 1.5.9, OpenSearch >= 3.2), so it takes the model's missing
        branch on the versions that have one.  Solr's ``FieldValueFeature`` gives 0.
    attribute_type : {"float", "double"}, default="float"
        Vespa only: the type of the attributes the features read (``field f1 type float``).
        XGBoost compares float32, so float attributes route every input as the model does;
        LightGBM compares doubles, which no float32 condition reproduces for every double.

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
        When the target routes some inputs otherwise than the model (listed in
        :attr:`ModelExport.inexact`, which says whether any float32 value is among them).
    """
    from .engines import forest_of

    if _is_reranker(model):
        return _export_two_stage(model, format, feature_names, name, absent, attribute_type)
    target = _check_export(format, name, absent, attribute_type)
    forest = forest_of(model)
    vespa = target.document == "vespa"
    names = _tree_feature_names(forest, feature_names, vespa)
    float_inputs = [not vespa or (attribute_type == "float" and n.startswith("attribute(")) for n in names]
    float_literals = target.float_literals or (vespa and _vm_forest([_leaf_depths(t) for t in forest.trees]))
    node_ids, plans, inexact = [], [], set()
    for tree in forest.trees:
        order, _ = preorder(tree)
        node_ids.append(order)
        plans.append({node: _plan(tree, node, forest.engine, target, names[int(tree.feature[node])],
                                  float_inputs[int(tree.feature[node])], float_literals)
                      for node in order if tree.feature[node] >= 0})
        inexact.update(m for plan in plans[-1].values() for m in plan.misroutes)
    files = _DOCUMENTS[target.document](forest, plans, names, name, absent)
    inexact = sorted(inexact, key=lambda m: (m.feature, m.nan, 0.0 if m.nan else m.lo))
    if inexact:
        _warn_inexact(format, inexact)
    return ModelExport(format=format, name=name, feature_names=names, files=files, node_ids=node_ids,
                       inexact=inexact, input_types=["float" if f else "double" for f in float_inputs])


def _check_export(format, name, absent, attribute_type) -> _Target:
    if format not in TARGETS:
        raise ValueError(f"format must be one of {TREE_FORMATS}, got {format!r}")
    if attribute_type not in ("float", "double"):
        raise ValueError(f"attribute_type must be 'float' or 'double', got {attribute_type!r}")
    if absent is not None and not (isinstance(absent, (int, float)) and math.isfinite(absent)):
        raise ValueError(f"absent must be a finite number or None, got {absent!r}")
    vespa = TARGETS[format].document == "vespa"
    if not _NAME.fullmatch(name) or (vespa and not _IDENT.fullmatch(name)):
        raise ValueError(f"name {name!r} must be letters, digits, '_'" + ("" if vespa else ", '-', '.'"))
    return TARGETS[format]


def _ltr_json_files(forest, plans, names, name, absent) -> dict:
    """``model.json`` (``model/xgboost+json``, the base margin a last one-leaf tree) and ``featureset.json``."""
    splits = [_xgboost_json_tree(tree, p, names, False) for tree, p in zip(forest.trees, plans)]
    if forest.base != 0.0:
        splits.append({"nodeid": 0, "leaf": _f32(forest.base)})
    body = {"model": {"name": name, "model": {"type": "model/xgboost+json",
                                              "definition": deep_call(json.dumps, splits)}}}

    def feature(n):
        if absent is None:  # no match without the field: the plugin's default value
            return {"function_score": {"query": {"exists": {"field": n}}, "field_value_factor": {"field": n}}}
        return {"function_score": {"query": {"match_all": {}},
                                   "field_value_factor": {"field": n, "missing": float(absent)}}}
    features = [{"name": n, "params": [], "template_language": "mustache", "template": feature(n)} for n in names]
    return {"model.json": json.dumps(body, indent=2),
            "featureset.json": json.dumps({"featureset": {"name": name, "features": features}}, indent=2)}


def _solr_files(forest, plans, names, name, absent) -> dict:
    """``model.json`` (``MultipleAdditiveTreesModel``) and ``features.json`` (``FieldValueFeature``s)."""
    trees = [{"weight": "1", "root": _solr_tree(tree, p, names)} for tree, p in zip(forest.trees, plans)]
    if forest.base != 0.0:
        trees.append({"weight": "1", "root": {"value": str(np.float32(forest.base))}})
    doc = {"class": "org.apache.solr.ltr.model.MultipleAdditiveTreesModel", "name": name,
           "features": [{"name": n} for n in names], "params": {"trees": trees}}
    feats = [{"name": n, "class": "org.apache.solr.ltr.feature.FieldValueFeature", "params": {"field": n}}
             for n in names]
    return {"model.json": deep_call(lambda: json.dumps(doc, indent=2)), "features.json": json.dumps(feats, indent=2)}


def _vespa_files(forest, plans, names, name, absent) -> dict:
    """``models/<name>.json`` for ``xgboost()`` and ``<name>.profile`` adding the base margin."""
    # a forest of no trees (XGBoost at 0 rounds) as one leaf of 0: Vespa's importer has no expression for "[]"
    trees = [_xgboost_json_tree(tree, p, names, True) for tree, p in zip(forest.trees, plans)] or [
        {"nodeid": 0, "leaf": 0.0}]
    expression = f'xgboost("{name}.json")'
    if forest.base != 0.0:
        expression += f" + {float(forest.base)!r}"
    profile = f"rank-profile {name} inherits default {{\n    first-phase {{\n        expression: {expression}\n    }}\n}}\n"
    return {f"models/{name}.json": deep_call(json.dumps, trees), f"{name}.profile": profile}


_DOCUMENTS = {"ltr-json": _ltr_json_files, "solr": _solr_files, "vespa": _vespa_files}


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
    from .engines import forest_of

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
            vs = [v for v in vs if math.isnan(v) or abs(v) <= float(_FLT_MAX)]
        for v in vs:
            row = base.copy()
            row[j] = v
            rows.append(row)
    return np.vstack([X] + ([np.array(rows)] if rows else []))


# ------------------------------------------------------------------ the engines' evaluators


def _columns(X, n: int) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != n:
        raise ValueError(f"X must have one column per exported feature ({n}), got shape {X.shape}")
    return X


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
        threshold = np.float32(np.float32(node["threshold"]) + _SOLR_SLACK)
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
    vm_forest = _vm_forest([_json_leaf_depths(root) for root in roots])
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
    """
    X = _columns(X, len(export.feature_names))
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


def _export_two_stage(model, format, feature_names, name, absent, attribute_type) -> ModelExport:
    """A TopKReranker over a boosted base: the base's trees first, the linear re-ranking of its top k second."""
    if format not in TREE_FORMATS:
        raise ValueError(f"format must be one of {TREE_FORMATS}, got {format!r}")
    base = getattr(model, "base_estimator_", None)
    if base is None:
        raise ValueError("the TopKReranker's first stage is base scores passed in, not a model: export your base "
                         "model with export_model and the re-ranker with export_linear")
    if getattr(model, "fallback_", False):  # the gate kept the base order: the base model is the whole ranker
        return export_model(base, format, feature_names=feature_names, name=name, absent=absent,
                            attribute_type=attribute_type)
    if TARGETS[format].document == "solr":
        raise ValueError("Solr re-ranks once ({!ltr reRankDocs=k}) with one model: export the base model and the "
                         "re-ranker (export_linear) and choose one stage for Solr")
    first = export_model(base, format, feature_names=feature_names, name=f"{name}_base", absent=absent,
                         attribute_type=attribute_type)
    plain = [re.sub(r"^attribute\((.*)\)$", r"\1", n) for n in first.feature_names]
    weights = linear_weights(model, plain)
    k = int(model.result_.k)
    if TARGETS[format].document == "vespa":
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
                       node_ids=first.node_ids, inexact=first.inexact, input_types=first.input_types, rerank_k=k,
                       second_stage=weights)


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
