"""Synthetic ranking data and the sample bundled with the package."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

import numpy as np

from .letor import LetorData, load_letor

__all__ = ["make_letor", "load_sample", "make_gaussians", "make_roc_flexibility", "simulate_clicks", "ClickLog"]


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

    Examples
    --------
    >>> train, test = load_sample()
    >>> train.n_queries, test.n_queries, train.n_features
    (300, 150, 10)
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


@dataclass
class ClickLog:
    """Click feedback logged on ranked lists: what :func:`simulate_clicks` returns.

    One row per (session, document shown): a session is one display of a query's list.

    Attributes
    ----------
    X : ndarray or sparse matrix of shape (n_rows, n_features)
        The shown documents' features.
    clicks : ndarray of int64 of shape (n_rows,)
        The feedback: 1 a click, 0 none; with ``graded=True``, 2 a click with the stronger
        signal (a purchase, a long dwell).
    session : ndarray of int64 of shape (n_rows,)
        The session of each row (the lists to train on: ``qid=log.session``), contiguous.
    position : ndarray of int64 of shape (n_rows,)
        The 0-based rank each document was shown at (``position=log.position``).
    query : ndarray of int64 of shape (n_rows,)
        The query of the session (the ``qid`` of the judged data it was drawn from).
    grade : ndarray of int64 of shape (n_rows,)
        The true grade, which the clicks only hint at: evaluate on it, never train on it.
    examined : ndarray of float64 of shape (n_rows,)
        The probability the click model gave each shown document of being examined.
    seen : ndarray of bool of shape (n_rows,)
        Whether the simulated user examined it (what no log records: the benchmarks' oracle).
    """

    X: object
    clicks: np.ndarray
    session: np.ndarray
    position: np.ndarray
    query: np.ndarray
    grade: np.ndarray
    examined: np.ndarray
    seen: np.ndarray


def simulate_clicks(X, y, qid, logging_scores, *, sessions: int = 6, click_model: str = "position", eta: float = 1.0,
                    noise: tuple[float, float] = (0.1, 0.1), depth: int | None = None, graded: bool = False,
                    random_state: int | None = 0) -> ClickLog:
    """Clicks on lists ranked by a logging ranker, drawn from the true grades by a click model.

    Each query's documents are shown ``sessions`` times in the order of ``logging_scores`` (the
    production ranker: one feature such as BM25, or a model trained on a few queries; ties broken
    at random in each session), cut at ``depth``, and each session's clicks are drawn:

    * ``"position"``, the position-based model (Richardson, Dominowska & Ragno, WWW 2007; as
      Joachims, Swaminathan & Schnabel, WSDM 2017, and Ai et al., SIGIR 2018, simulate it): the
      document at 0-based rank k is examined with probability (1/(k + 1))^η and, examined,
      clicked with probability ε⁻ + (1 − ε⁻ − ε⁺)(2^g − 1)/(2^G − 1) for grade g of the highest
      G, ``noise = (ε⁻, ε⁺)`` the click noise on irrelevant documents and the clicks missed on the
      most relevant.
    * ``"cascade"`` (Craswell, Zoeter, Taylor & Ramsey, WSDM 2008; the dependent click model of
      Guo, Liu & Wang, WSDM 2009): the user reads down the list, clicks with the same probability
      and, after a click, stops with the probability (2^g − 1)/(2^G − 1) of being satisfied.

    With ``graded=True`` a click also carries a stronger signal (a purchase, a long dwell) with
    probability (2^g − 1)/(2^G − 1): feedback 2, for λ-MAUC.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
    y : array-like of int of shape (n_samples,)
        True grades (0 … G).
    qid : array-like of shape (n_samples,)
        Queries; a query's rows contiguous.
    logging_scores : array-like of shape (n_samples,)
        The logging ranker's scores (higher shown first).
    sessions : int, default=6
        Displays of each query's list.
    click_model : {"position", "cascade"}, default="position"
    eta : float, default=1.0
        Examination decay (position model): 0 none, 2 steep.
    noise : (float, float), default=(0.1, 0.1)
        ε⁻, ε⁺ of the click probability.
    depth : int, default=None
        Documents shown per session (None: the whole list).
    graded : bool, default=False
    random_state : int, default=0

    Returns
    -------
    ClickLog

    Examples
    --------
    >>> import boostrank as br
    >>> train, test = br.load_sample()
    >>> log = simulate_clicks(train.X, train.y, train.qid, train.X[:, 0], sessions=2)
    >>> ranker = br.LambdaRanker(n_estimators=20).fit(log.X, log.clicks, qid=log.session, position=log.position)
    >>> 0.5 < br.auc(test.y, ranker.predict(test.X), test.qid) <= 1
    True
    """
    grades, scores, offsets = _click_inputs(y, qid, logging_scores, sessions, click_model, eta, noise, depth)
    low, high = (float(v) for v in noise)
    rng = np.random.default_rng(random_state)
    top = max(int(grades.max()) if grades.size else 0, 1)
    value = (2.0 ** grades - 1.0) / (2.0 ** top - 1.0)  # how relevant, 0 … 1
    click_p = low + (1.0 - low - high) * value
    rows, position, session, clicks, examined, seen = [], [], [], [], [], []
    for g in range(offsets.shape[0] - 1):
        a, b = int(offsets[g]), int(offsets[g + 1])
        shown = min(b - a, depth or b - a)
        for _ in range(sessions):
            order = a + np.lexsort((rng.random(b - a), -scores[a:b]))[:shown]  # ties at random
            exam, click, looked = _session(rng, click_model, eta, click_p[order], value[order])
            feedback = click.astype(np.int64)
            if graded:
                feedback[click & (rng.random(shown) < value[order])] = 2
            rows.append(order)
            position.append(np.arange(shown))
            session.append(np.full(shown, len(session)))
            clicks.append(feedback)
            examined.append(exam)
            seen.append(looked)
    rows = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    query_ids = np.asarray(qid)
    return ClickLog(X=X[rows], clicks=np.concatenate(clicks) if clicks else np.zeros(0, dtype=np.int64),
                    session=np.concatenate(session) if session else np.zeros(0, dtype=np.int64),
                    position=np.concatenate(position) if position else np.zeros(0, dtype=np.int64),
                    query=query_ids[rows] if query_ids.ndim else np.zeros(0, dtype=np.int64),
                    grade=grades[rows], examined=np.concatenate(examined) if examined else np.zeros(0),
                    seen=np.concatenate(seen) if seen else np.zeros(0, dtype=bool))


def _click_inputs(y, qid, logging_scores, sessions, click_model, eta, noise, depth):
    """simulate_clicks' arguments checked: (grades, logging scores, list offsets)."""
    from .._validation import as_1d_float, group_offsets as _offsets

    if click_model not in ("position", "cascade"):
        raise ValueError(f"click_model is 'position' or 'cascade', got {click_model!r}")
    if isinstance(sessions, bool) or not isinstance(sessions, (int, np.integer)) or sessions < 1:
        raise ValueError(f"sessions must be a positive integer, got {sessions!r}")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1):
        raise ValueError(f"depth must be a positive integer or None, got {depth!r}")
    low, high = (float(v) for v in noise)
    if not (0 <= low and 0 <= high and low + high <= 1):
        raise ValueError(f"noise = (ε⁻, ε⁺) needs ε⁻ ≥ 0, ε⁺ ≥ 0 and ε⁻ + ε⁺ ≤ 1, got {noise!r}")
    if not np.isfinite(eta) or eta < 0:
        raise ValueError(f"eta must be a non-negative number, got {eta!r}")
    grades = as_1d_float(y, "y")
    if (grades < 0).any() or (grades != np.round(grades)).any():
        raise ValueError("y holds true grades: integers from 0")
    scores = as_1d_float(logging_scores, "logging_scores")
    if scores.shape != grades.shape:
        raise ValueError(f"{scores.shape[0]} logging scores for {grades.shape[0]} rows")
    return grades.astype(np.int64), scores, _offsets(grades.shape[0], qid=qid)


def _session(rng, click_model, eta, click_p, value):
    """One display of a list (its documents in shown order): (examination probability, clicked, examined) per
    rank."""
    shown = click_p.shape[0]
    if click_model == "position":
        exam = (1.0 / (np.arange(shown) + 1.0)) ** eta
        looked = rng.random(shown) < exam
        return exam, looked & (rng.random(shown) < click_p), looked
    exam, click = np.zeros(shown), np.zeros(shown, dtype=bool)
    for r in range(shown):  # the cascade: read down, stop satisfied after a click
        exam[r] = 1.0
        click[r] = rng.random() < click_p[r]
        if click[r] and rng.random() < value[r]:
            break
    return exam, click, exam > 0
