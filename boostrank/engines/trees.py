"""Boosted trees read out of LightGBM and XGBoost models, scored by each engine's split rules.

A :class:`Forest` holds the trees of one model as arrays and scores rows exactly as the
engine that trained it does; the engine modules (:mod:`boostrank.engines`) read the trees and
state the rules (LightGBM: left when ``x <= threshold`` in double after its missing-value rule;
XGBoost: left when ``float32(x) < threshold``).  The exporters (:mod:`boostrank.export`)
translate the rules into each search engine's; the tests hold the translation to the engines'
own predictions, leaf by leaf.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass

import numpy as np

__all__ = ["Forest", "Tree"]

#: the deepest nesting :func:`deep_call` makes room for (a tree this deep has at least as many nodes)
MAX_DEPTH = 100_000

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
    split_index : ndarray of int64 or None
        The engine's number of each split (LightGBM's model text lists splits by it), −1 at leaves.
    """

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    default_left: np.ndarray
    missing: np.ndarray
    value: np.ndarray
    leaf_id: np.ndarray
    split_index: np.ndarray | None = None


@dataclass(frozen=True)
class Forest:
    """The trees of a model, summed: score = base + Σ leaf values.

    Attributes
    ----------
    trees : list of Tree
    engine : module
        The :mod:`boostrank.engines` module of the engine that trained the model (its split rules).
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

    def apply(self, X) -> np.ndarray:
        """Node index reached in each tree, shape (n_rows, n_trees), by the engine's rules."""
        engine = self.engine
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] < self.n_features:
            raise ValueError(f"X has shape {X.shape}; the model reads {self.n_features} features")
        X = engine.tree_inputs(X)
        out = np.empty((X.shape[0], len(self.trees)), dtype=np.int64)
        rows = np.arange(X.shape[0])
        for t, tree in enumerate(self.trees):
            node = np.zeros(X.shape[0], dtype=np.int64)
            active = tree.feature[node] >= 0
            while active.any():
                r, n = rows[active], node[active]
                go_left = engine.route(tree, n, X[r, tree.feature[n]])
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


def preorder(tree: Tree) -> tuple[list, list]:
    """(nodes, depths) of ``tree`` in preorder, left before right, walked with a stack (no recursion limit)."""
    nodes, depths, stack = [], [], [(0, 0)]
    while stack:
        node, depth = stack.pop()
        nodes.append(node)
        depths.append(depth)
        if tree.feature[node] >= 0:
            stack += [(int(tree.right[node]), depth + 1), (int(tree.left[node]), depth + 1)]
    return nodes, depths


def deep_call(fn, *args):
    """``fn(*args)``, given room for nesting as deep as :data:`MAX_DEPTH` when it runs out of it.

    json's C encoder and decoder and LightGBM's ``dump_model`` (which ``json.loads`` its
    text) recurse once per level of a tree, so a tree deeper than about 1 000 levels raises
    ``RecursionError`` where the engines load and predict it.  The call is retried in a thread
    with a large stack and the recursion limit raised for its duration.
    """
    try:
        return fn(*args)
    except RecursionError:
        pass
    out: dict = {}

    def run():
        try:
            out["value"] = fn(*args)
        except BaseException as exc:  # handed to the caller's thread
            out["error"] = exc

    old_limit, old_stack = sys.getrecursionlimit(), threading.stack_size()
    sys.setrecursionlimit(max(old_limit, 4 * MAX_DEPTH))
    threading.stack_size(1 << 30)  # address space, touched only as deep as the nesting goes
    try:
        worker = threading.Thread(target=run, name="boostrank-deep-call")
        worker.start()
    finally:
        threading.stack_size(old_stack)
    worker.join()
    sys.setrecursionlimit(old_limit)
    if "error" in out:
        if isinstance(out["error"], RecursionError):
            raise ValueError(f"a tree is nested deeper than {MAX_DEPTH} levels") from None
        raise out["error"]
    return out["value"]
