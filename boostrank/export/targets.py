"""What each engine version does with an exported tree (``TARGETS``), and what an export holds (``ModelExport``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..exceptions import ExportWarning

SOLR_SLACK = np.float32(1e-6)  # Solr's RegressionTreeNode.NODE_SPLIT_SLACK, added to every threshold as a float
FLOAT32_MAX = np.finfo(np.float32).max
#: a JSON number that Java's ``Float.parseFloat`` (and numpy) round to +inf: 2**128, past float32's overflow point
FLOAT_INF_TEXT = 2.0 ** 128
NAN_KEY = float("nan")  # one object, so that set() merges the NaN entries of ModelExport.inexact


def feature_columns(X, n: int) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != n:
        raise ValueError(f"X must have one column per exported feature ({n}), got shape {X.shape}")
    return X


@dataclass(frozen=True)
class EngineTarget:
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
    "elasticsearch-ltr": EngineTarget("ltr-json", True, True, "o19s Elasticsearch LTR >= 1.5.9"),
    "elasticsearch-ltr<1.5.9": EngineTarget("ltr-json", True, False, "o19s Elasticsearch LTR < 1.5.9"),
    "opensearch-ltr": EngineTarget("ltr-json", True, True, "OpenSearch LTR >= 3.8.0.0"),
    "opensearch-ltr<3.8": EngineTarget("ltr-json", True, False, "OpenSearch LTR < 3.8.0.0"),
    "solr-ltr": EngineTarget("solr", True, False, "Solr LTR MultipleAdditiveTreesModel"),
    "vespa": EngineTarget("vespa", True, True, "Vespa >= 8.624.72 xgboost()"),
    "vespa<8.624": EngineTarget("vespa", False, True, "Vespa < 8.624.72 xgboost()"),
}
TREE_FORMATS = tuple(TARGETS)


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
        X = feature_columns(X, len(self.feature_names))
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
