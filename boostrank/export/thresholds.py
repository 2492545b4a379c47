"""Each split's threshold as the target reads it: float32 routing, bounds and the per-format tree text."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from ..engines.trees import preorder
from .linear import NAME_PATTERN, checked_feature_names, vespa_feature
from .targets import (
    FLOAT32_MAX,
    FLOAT_INF_TEXT,
    NAN_KEY,
    SOLR_SLACK,
    EngineTarget,
    ExportWarning,
    Misroute,
)


def as_float32_value(x) -> float:
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

    lo, hi = key(np.float32(-3.4e38)), key(FLOAT32_MAX)
    while lo < hi:  # smallest a with float32(a + slack) >= F
        mid = (lo + hi) // 2
        if np.float32(value(mid) + SOLR_SLACK) >= F:
            hi = mid
        else:
            lo = mid + 1
    a = value(lo)
    reached = np.float32(a + SOLR_SLACK)
    if reached != F:
        # the nearest reachable threshold that keeps 0 on its side (zeros are what features hold most)
        below = value(lo - 1)
        options = [(x, np.float32(x + SOLR_SLACK)) for x in (a, below)]
        keep = [o for o in options if (0.0 <= float(o[1])) == (0.0 <= float(F))] or options
        a, reached = min(keep, key=lambda o: abs(float(o[1]) - float(F)))
    return a, reached


def is_vm_forest(leaf_depths: list) -> bool:
    """Whether Vespa evaluates a forest with float thresholds and leaves (``gbdt.cpp`` ``select_best``), from each
    tree's leaf depths: more than 25 000 leaves, or trees over 12 leaves whose average leaf depths sum past 2 500."""
    sizes = [len(d) for d in leaf_depths]
    path = sum(sum(d) / len(d) for d in leaf_depths)
    return bool(sizes) and ((max(sizes) > 12 and path > 2500.0) or sum(sizes) > 25000)


def tree_leaf_depths(tree) -> list:
    nodes, depths = preorder(tree)
    return [d for n, d in zip(nodes, depths) if tree.feature[n] < 0]


@dataclass
class _Plan:
    """One split as a target gets it: the condition to write and the inputs it routes otherwise."""

    condition: float  # ltr-json/Vespa: the ``split_condition``; Solr: the threshold text's value
    nan_left: bool
    misroutes: list


def split_plan(tree, node, engine, target: EngineTarget, name: str, float_input: bool, float_literals: bool) -> _Plan:
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
                c = FLOAT32_MAX if target.document == "vespa" else np.float32(np.inf)
            condition = float(c)
        else:  # Vespa before 8.624.72 compares the double literal; no literal is past every double
            condition = B_model if math.isfinite(B_model) else float(np.finfo(np.float64).max)
        B_target = _target_bound(condition, target.document, float_input)
    misroutes = []
    if B_target != B_model:
        misroutes.append(Misroute(name, min(B_model, B_target), max(B_model, B_target)))
    if nan_left and not target.nan_missing:
        misroutes.append(Misroute(name, NAN_KEY, NAN_KEY))
    return _Plan(condition, nan_left, misroutes)


def _json_number(c: float) -> float:
    return FLOAT_INF_TEXT if math.isinf(c) else c


def xgboost_json_tree(tree, plans, names, double_leaves: bool):
    """One tree as XGBoost's JSON dump writes it (the plugins' and Vespa's input), built with a stack; ``yes`` is
    the left child, taken when ``x < split_condition``; ``missing`` the side the model sends NaN."""
    order, depths = preorder(tree)
    out = {}
    for node, depth in zip(order, depths):
        if tree.feature[node] < 0:
            leaf = float(tree.value[node]) if double_leaves else as_float32_value(tree.value[node])
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


def solr_tree(tree, plans, names):
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


def tree_feature_names(forest, feature_names, vespa: bool) -> list:
    d = forest.n_features
    own = [str(n) for n in forest.feature_names]
    auto = own == [f"Column_{j}" for j in range(d)] or own == [f"f{j}" for j in range(d)]  # the engines' own
    names = checked_feature_names(feature_names, [f"f{j + 1}" for j in range(d)] if auto else own, d)
    if vespa:
        return [vespa_feature(n) for n in names]
    for n in names:
        if not NAME_PATTERN.fullmatch(n):
            raise ValueError(f"feature name {n!r}: the LTR plugins' feature names here are letters, digits, '_', "
                             f"'-', '.' (one token in the featureset and the model)")
    return names


def warn_inexact(fmt: str, inexact: list) -> None:
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
