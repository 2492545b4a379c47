"""Shared pieces of the benchmark scripts: data loaders and linear baselines."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def load_haberman():
    """306 × 3; positive = died within 5 years (class 2, 81 rows)."""
    A = np.loadtxt(DATA / "haberman" / "haberman.data", delimiter=",")
    return A[:, :3], (A[:, 3] == 2).astype(np.int64)


def load_pima():
    """768 × 8; positive = tested positive (268 rows)."""
    A = np.loadtxt(DATA / "pima" / "pima-indians-diabetes.data", delimiter=",")
    return A[:, :8], A[:, 8].astype(np.int64)


class RankSVMPairs:
    """Linear pairwise hinge ranker (thesis eq. 2.4): LinearSVC on sampled pair differences."""

    def __init__(self, max_pairs=20000, C=1.0, seed=0):
        self.max_pairs, self.C, self.seed = max_pairs, C, seed

    def fit(self, X, y):
        rng = np.random.default_rng(self.seed)
        self.scaler = StandardScaler().fit(X)
        Xs = self.scaler.transform(X)
        i = rng.integers(0, len(y), size=8 * self.max_pairs)
        j = rng.integers(0, len(y), size=8 * self.max_pairs)
        keep = y[i] > y[j]
        i, j = i[keep][: self.max_pairs], j[keep][: self.max_pairs]
        D = np.vstack([Xs[i] - Xs[j], Xs[j] - Xs[i]])
        s = np.r_[np.ones(len(i)), -np.ones(len(i))]
        self.svc = LinearSVC(C=self.C, fit_intercept=False, dual="auto", max_iter=5000).fit(D, s)
        return self

    def decision_function(self, X):
        return self.svc.decision_function(self.scaler.transform(X))


class Logistic:
    """Standardised logistic regression; binary labels score by the decision function,
    graded labels by the expected class."""

    def fit(self, X, y):
        self.scaler = StandardScaler().fit(X)
        self.lr = LogisticRegression(max_iter=2000).fit(self.scaler.transform(X), y)
        return self

    def decision_function(self, X):
        Xs = self.scaler.transform(X)
        if len(self.lr.classes_) == 2:
            return self.lr.decision_function(Xs)
        return self.lr.predict_proba(Xs) @ self.lr.classes_


def write_json(path, obj) -> None:
    """Write a benchmark's results (numpy scalars become floats) and say where."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(obj, indent=2, default=float))
    print(f"wrote {out}")


def pyplot():
    """matplotlib.pyplot on the Agg backend: benchmarks run headless."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path, dpi=120) -> None:
    """Lay out, write ``fig`` as PNG (creating the folder) and close it."""
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    pyplot().close(fig)
