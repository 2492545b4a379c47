"""Synthetic ranking data and the sample bundled with the package."""

from __future__ import annotations

from importlib import resources

import numpy as np

from .data import LetorData, load_letor

__all__ = ["make_letor", "load_sample", "make_gaussians", "make_roc_flexibility"]


def make_letor(
    n_queries: int = 100,
    *,
    docs_per_query: tuple[int, int] = (5, 30),
    n_features: int = 10,
    n_informative: int = 4,
    n_grades: int = 3,
    noise: float = 1.0,
    decimals: int | None = 6,
    random_state: int | None = 0,
    relevance: str = "linear",
) -> LetorData:
    """Deterministic synthetic LETOR data: queries, graded labels, informative and noise features.

    Each query draws its length uniformly from ``docs_per_query`` and its share of
    relevant documents from Beta(2, 5), so some queries have no relevant document
    and a few are mostly relevant, as in LETOR 4.0.  A latent utility
    ``u = X[:, :n_informative] @ w + noise * N(0, 1)`` orders documents; the top share
    is relevant and split into grades 1..n_grades-1 by utility.  With
    ``relevance="nonlinear"`` the utility adds a gated interaction, a U-shaped term and
    a product of the informative features (what trees find and a linear ranker cannot).
    Features are min-max normalised within each query (LETOR's QueryLevelNorm).

    Parameters
    ----------
    n_queries : int, default=100
    docs_per_query : (int, int), default=(5, 30)
        Inclusive range of query lengths.
    n_features : int, default=10
    n_informative : int, default=4
        The first ``n_informative`` columns carry signal, the rest are noise.
    n_grades : int, default=3
        Labels are 0..n_grades-1.
    noise : float, default=1.0
        Standard deviation of the utility noise (larger is harder).
    decimals : int or None, default=6
        Round features like LETOR files do (None keeps full precision).
    random_state : int or None, default=0
    relevance : {"linear", "nonlinear"}, default="linear"
        Form of the latent utility (``"nonlinear"`` needs ``n_informative >= 4``).

    Returns
    -------
    LetorData
        qids 1..n_queries, docids ``"Q<q>-D<j>"``.
    """
    lo, hi = docs_per_query
    if not (1 <= lo <= hi):
        raise ValueError(f"docs_per_query must satisfy 1 <= low <= high, got {docs_per_query}")
    if not (0 <= n_informative <= n_features):
        raise ValueError("n_informative must be between 0 and n_features")
    if n_grades < 2:
        raise ValueError("n_grades must be at least 2")
    if relevance not in ("linear", "nonlinear"):
        raise ValueError(f"relevance must be 'linear' or 'nonlinear', got {relevance!r}")
    if relevance == "nonlinear" and n_informative < 4:
        raise ValueError("relevance='nonlinear' needs n_informative >= 4")
    rng = np.random.default_rng(random_state)
    w = rng.normal(size=n_informative)
    w /= max(np.linalg.norm(w), 1e-12)
    sizes = rng.integers(lo, hi + 1, size=n_queries)
    X_parts, y_parts = [], []
    for m in sizes:
        X = rng.normal(size=(m, n_features))
        u = X[:, :n_informative] @ w + noise * rng.normal(size=m)
        if relevance == "nonlinear":
            u += 1.5 * np.tanh(2.0 * X[:, 1]) * X[:, 2] + 0.8 * (X[:, 3] ** 2 - 1.0) + 0.7 * X[:, 0] * X[:, 3]
        n_rel = int(np.floor(rng.beta(2.0, 5.0) * (m + 1)))
        y = np.zeros(m, dtype=np.int64)
        if n_rel:
            top = np.argsort(-u, kind="stable")[:n_rel]
            # the best relevant documents get the highest grade
            y[top] = (n_grades - 1) - (np.arange(n_rel) * (n_grades - 1)) // n_rel
        span = X.max(axis=0) - X.min(axis=0)
        X = (X - X.min(axis=0)) / np.where(span > 0, span, 1.0)
        X_parts.append(X)
        y_parts.append(y)
    X = np.vstack(X_parts) if X_parts else np.zeros((0, n_features))
    if decimals is not None:
        X = np.round(X, decimals)
    y = np.concatenate(y_parts) if y_parts else np.zeros(0, dtype=np.int64)
    qid = np.repeat(np.arange(1, n_queries + 1), sizes)
    docid = np.asarray(
        [f"Q{q}-D{j}" for q, m in zip(range(1, n_queries + 1), sizes) for j in range(m)],
        dtype=object,
    )
    return LetorData(X=X, y=y, qid=qid, group_sizes=sizes.astype(np.int64), docid=docid)


SAMPLE_ARGS = {"n_queries": 450, "random_state": 2026, "relevance": "nonlinear", "noise": 0.7}
SAMPLE_TRAIN_QUERIES = 300


def load_sample() -> tuple[LetorData, LetorData]:
    """The bundled sample: ``make_letor(**SAMPLE_ARGS)`` split into 300 train and 150 test queries.

    About 5 000 training rows with graded labels from a non-linear utility: boosted
    rankers beat a linear model on it by a wide margin, as on real LETOR data where
    relevance is not linear in the features.

    Returns
    -------
    train, test : LetorData
    """
    root = resources.files("boostrank") / "sample_data"
    with resources.as_file(root / "sample_train.txt.gz") as train_path, \
            resources.as_file(root / "sample_test.txt.gz") as test_path:
        train = load_letor(train_path, sparse=False)
        test = load_letor(test_path, sparse=False, n_features=train.n_features)
    return train, test


def make_gaussians(n_top_negatives: int = 10, n_positives: int = 3000, n_negatives: int = 3000,
                   n_far_positives: int = 80, scale: float = 0.1, random_state=None):
    """Rudin & Wang §3 construction where convex surrogates and rank statistics disagree.

    Along one feature: ``n_top_negatives`` negatives near x = 3, ``n_positives``
    positives near 1, ``n_negatives`` negatives near 0 and ``n_far_positives``
    positives near −10 (Gaussian noise of standard deviation ``scale``).  Ranking by
    +x puts a few negatives on top and loses the far positives; −x puts the far
    positives on top: statistics focused on the top of the list and the AUC
    prefer different directions.

    Returns
    -------
    X : ndarray of shape (n, 1)
    y : ndarray of int64 (1 positive, 0 negative)
    """
    rng = np.random.default_rng(random_state)
    centres = np.repeat([3.0, 1.0, 0.0, -10.0], [n_top_negatives, n_positives, n_negatives, n_far_positives])
    y = np.repeat([0, 1, 0, 1], [n_top_negatives, n_positives, n_negatives, n_far_positives]).astype(np.int64)
    X = (centres + scale * rng.normal(size=centres.size)).reshape(-1, 1)
    return X, y


def make_roc_flexibility(n_samples: int = 500, n_distinct: int = 20, n_features: int = 5,
                         flip: float = 0.05, random_state=None):
    """A ROC-flexibility style set: few distinct rows, one ROC "step" per feature.

    ``n_distinct`` prototype rows, half positive.  Each feature orders the
    prototypes at random except for its own group of positive prototypes, which it
    places together at quantile (j + ½)/n_features of its range: the ROC curve of
    feature j has a vertical step at a different place for every j (thesis Fig. 2-4),
    so linear combinations can produce very different ROC curves.  Samples are drawn
    from the prototypes with replacement and a fraction ``flip`` of labels is
    flipped, so distinct rows repeat and some carry both labels.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of int64
    """
    rng = np.random.default_rng(random_state)
    labels = np.r_[np.ones(n_distinct // 2), np.zeros(n_distinct - n_distinct // 2)].astype(np.int64)
    pos = np.flatnonzero(labels == 1)
    groups = np.array_split(rng.permutation(pos), n_features)
    P = np.empty((n_distinct, n_features))
    for j in range(n_features):
        vals = rng.permutation(n_distinct).astype(np.float64) / (n_distinct - 1)
        q = (j + 0.5) / n_features
        vals[groups[j]] = q + 0.01 * np.arange(len(groups[j]))
        P[:, j] = np.round(vals, 3)
    rows = rng.integers(0, n_distinct, size=n_samples)
    y = labels[rows].copy()
    flipped = rng.random(n_samples) < flip
    y[flipped] = 1 - y[flipped]
    return P[rows], y
