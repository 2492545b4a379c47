"""Small data sets and cases shared by the MIP tests."""

import numpy as np

import boostrank as br
from boostrank.weights import local_auc

from ..reference import candidate_directions


def _small(seed, d, n=7):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, d)).astype(float)  # small integer grid: ties and duplicates
    y = rng.integers(0, 2, size=n)
    y[0], y[1] = 1, 0
    return X, y


def _best(stat, X):
    return max(stat(X @ w) for w in candidate_directions(X))


CASES = [
    ("auc", {}, lambda y: (lambda s: br.auc(y, s, ties="pessimistic"))),
    ("rank_risk", {"a": "dcg@3", "rank": "min"}, lambda y: (lambda s: br.rank_risk(y, s, "dcg@3"))),
    ("rank_risk", {"a": local_auc(4), "rank": "resolved"},
     lambda y: (lambda s: br.rank_risk(y, s, local_auc(4), rank="resolved"))),
]


CASE_IDS = ["auc", "rrf_min", "rrf_resolved"]


def _pair_set(seed, d, n):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, d)).astype(float) if seed % 3 else rng.normal(size=(n, d)).round(2)
    X[: n // 4] = X[n // 4: 2 * (n // 4)]  # duplicate rows
    y = rng.integers(0, 3, size=n)
    y[0], y[1] = 2, 0
    qid = None if seed % 2 else np.repeat([0, 1], [n // 2, n - n // 2])
    return X, y, qid
