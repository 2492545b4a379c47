"""Does each λ objective win on the metric it optimises?  k-fold CV over queries, one protocol for all.

Methods (defaults a new user gets, the same trees for all: 31 leaves, at least 20 rows a leaf,
learning rate 0.05): LightGBM ``binary`` (labels > 0), ``regression``, ``lambdarank``,
``rank_xendcg``; XGBoost ``rank:pairwise`` and ``rank:ndcg`` (``grow_policy=lossguide``,
``max_leaves=31``); boostrank's λ-AUC, λ-MAUC and λ-NDCG through ``br.lightgbm_objective``.

Protocol (the same for every method):

* Outer split: ``--folds`` folds over queries (one list: over rows), ``--repeats`` times with
  another shuffle; every method sees the same folds.  A set of fewer than SMALL_SET_QUERIES
  queries and SMALL_SET_ROWS rows (CatBoost's sample) is repeated at least SMALL_SET_REPEATS
  times: each fold's model (its early-stopping round, its sampled pairs) is shared by all of
  the fold's test queries, which the test over queries treats as independent, and with 3
  repeats of CatBoost's 117 queries the same λ-MAUC under three other pair-sampling seeds
  scored .014-.022 lower at p = .01-.04 with early stopping (MEASUREMENTS.md, "small sets").
* Inner split: 20 % of the outer training queries (one list: rows) are the validation set.
  Each method boosts up to ``--max-rounds`` rounds and records validation AUC, MAUC and
  NDCG@10 after every round; it stops when none of the three improved for 50 rounds.
* Each reported metric is read at the method's best validation round *for that metric*:
  every method is early-stopped on the metric in the column, so λ-AUC's AUC is stopped on
  AUC and lambdarank's AUC on AUC as well (the most favourable reading for every
  competitor; a method's "own" target is one of the three).
* The comparator, "best engine (inner)": in each (repeat, fold), the engine objective (of the six)
  with the best inner-validation value of the metric, chosen without the test queries.  With early
  stopping that is its value at its best round on the inner fifth; with fixed rounds each engine
  objective is also trained on the other four fifths and read at both round counts on the inner fifth.
  Its test values are the chosen objective's.
* A query's test value is averaged over the repeats; tables give the mean over queries ±
  its standard error, the paired t-test (and Wilcoxon) over queries of λ-AUC against the
  comparator on AUC, λ-MAUC against it on MAUC, and beside it the corrected resampled t-test
  over the (repeat, fold) models (Nadeau & Bengio 2003), which sees that a fold's queries share
  one model.  With one list the units are the (repeat, fold) test lists.

Engines run on one thread and two (repeat, fold) jobs run side by side (2 cores); the
results do not depend on threads (``deterministic=True``).  Quality only: the time of a
round is ``benchmarks/objectives.py``'s business.

Run:  python benchmarks/objective_quality.py [--quick] [--sets sample,mq2008,...] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import lightgbm as lgb
import numpy as np
import xgboost as xgb
from joblib import Parallel, delayed
from scipy import stats

import boostrank as br
from boostrank.io.datasets import SAMPLE_ARGS
from boostrank.metrics import GroupOffsets

from _common import DATA, pyplot, save_figure, write_json

HERE = Path(__file__).resolve().parent
METRICS = ("auc", "mauc", "ndcg@10")
PATIENCE = 50
ENGINE_OBJECTIVES = ("binary", "regression", "lambdarank", "rank_xendcg", "rank:pairwise", "rank:ndcg")
#: (name, engine, objective) — names as the tables print them
METHODS = [
    ("binary", "lightgbm", "binary"),
    ("regression", "lightgbm", "regression"),
    ("lambdarank", "lightgbm", "lambdarank"),
    ("rank_xendcg", "lightgbm", "rank_xendcg"),
    ("rank:pairwise", "xgboost", "rank:pairwise"),
    ("rank:ndcg", "xgboost", "rank:ndcg"),
    ("λ-AUC", "lightgbm", "auc"),
    ("λ-MAUC", "lightgbm", "mauc"),
    ("λ-NDCG", "lightgbm", "ndcg"),
]
#: the comparator's name in the tables: the engine objective chosen on inner folds in each (repeat, fold)
INNER_BEST = "best engine (inner)"
#: the λ objectives with one default undone: what each default buys, in the same run
VARIANTS = [
    ("λ-AUC anchor=0", "lightgbm", ("auc", {"anchor": 0.0})),  # the λs alone (on y > 0 pairs since issue 70)
    ("λ-MAUC anchor=0", "lightgbm", ("mauc", {"anchor": 0.0})),  # the λs alone (before issue 70)
    ("λ-AUC all pairs", "lightgbm", ("auc", {"pair_fraction": 1.0})),  # Welleck's λ, every pair every round
    ("λ-AUC uniform", "lightgbm", ("auc", {"pair_weight": "uniform"})),
    ("λ-AUC grade_weight=0.5", "lightgbm", ("auc", {"grade_weight": 0.5})),  # graded pairs (before issue 70)
    ("λ-MAUC all pairs", "lightgbm", ("mauc", {"pair_fraction": 1.0})),
    # λ-AUC's per-query part of LightGBM's lambdarank_norm undone
    ("λ-AUC norm=False", "lightgbm", ("auc", {"norm": False})),
]
#: ``--norm-variants`` (benchmarks/MEASUREMENTS.md, "per-query norm for AUC"): the whole of lambdarank_norm,
#: and λ-MAUC with its per-query part (on one list they force the logistic link)
NORM_VARIANTS = [
    ("λ-AUC norm=True", "lightgbm", ("auc", {"norm": True})),
    ("λ-MAUC norm=True", "lightgbm", ("mauc", {"norm": True})),
    ("λ-MAUC norm=query", "lightgbm", ("mauc", {"norm": "query"})),
]
#: sets with fewer queries and rows than these are repeated SMALL_SET_REPEATS times (at least): more models per
#: test query where an inner fifth of the training queries holds a few hundred rows
SMALL_SET_QUERIES = 200
SMALL_SET_REPEATS = 40
SMALL_SET_ROWS = 3_000
#: the fixed-rounds protocol reads every method at these round counts and keeps the better (same rule for all)
FIXED_ROUNDS = (100, 300)
#: what a new user gets from the estimators, fitted on all outer training queries (they split off
#: their own validation queries, or none); the figures read no inner split
DEFAULTS = [
    ("LambdaRanker()", "ranker", {"objective": "auc"}),  # 100 rounds at 0.05, no early stopping
    ("LambdaRanker(mauc)", "ranker", {"objective": "mauc"}),
    # early stopping on a held-out 20 % of the training queries
    ("held-out ES", "ranker", {"objective": "auc", "n_estimators": 1000, "early_stopping_rounds": 50}),
    ("LGBMRanker()", "lgbmranker", {}),
]


# --------------------------------------------------------------------------- data sets
def _letor(d):
    return d.X, d.y.astype(np.int64), d.group_sizes.astype(np.int64)


def _flip(data, rate, seed):
    """Replace a share ``rate`` of labels by a uniformly drawn grade (label noise)."""
    X, y, sizes = data
    rng = np.random.default_rng(seed)
    y = y.copy()
    hit = rng.random(y.shape[0]) < rate
    y[hit] = rng.integers(0, y.max() + 1, hit.sum())
    return X, y, sizes


def load_sample():
    train, test = br.load_sample()
    return (np.vstack([train.X, test.X]), np.r_[train.y, test.y].astype(np.int64),
            np.r_[train.group_sizes, test.group_sizes].astype(np.int64))


def load_mq2008():
    vali = br.load_letor(DATA / "mq2008" / "vali.txt", sparse=False)
    test = br.load_letor(DATA / "mq2008" / "test.txt", sparse=False, n_features=vali.n_features)
    return (np.vstack([vali.X, test.X]), np.r_[vali.y, test.y].astype(np.int64),
            np.r_[vali.group_sizes, test.group_sizes].astype(np.int64))


def load_catboost():
    """CatBoost's ``querywise`` web-search sample, train + test (117 queries of 1-55 documents, 50 features).

    The target is an averaged assessor judgement in [0, 1] with 43 distinct values; the grade mapping
    used here is 0 -> 0, (0, 0.1] -> 1, (0.1, 0.3] -> 2, > 0.3 -> 3 (the issue's mapping: grades 0-3 with
    shares .50 / .20 / .28 / .02).  Query ids are distinct across the two files, rows of a query contiguous.
    """
    parts = [np.loadtxt(DATA / "catboost-querywise" / f, delimiter="\t", usecols=[1, 2] + list(range(5, 55)))
             for f in ("train.tsv", "test.tsv")]
    a = np.vstack(parts)
    qid, target, X = a[:, 0], a[:, 1], a[:, 2:]
    y = np.digitize(target, [1e-12, 0.1 + 1e-9, 0.3 + 1e-9]).astype(np.int64)
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    return X, y, np.diff(np.r_[starts, len(qid)]).astype(np.int64)


def make_calibrated(kind, seed):
    """Generated sets whose properties copy a measured property of a real set (stated per kind).

    * ``"ambiguous"`` (MQ2008): list lengths log-normal with MQ2008's median 8 and tail to 120; grade
      shares .80 / .14 / .06; judges disagree most near the grade cuts: the judged grade is the true
      utility plus noise whose scale is 3x larger within 0.3 of a cut than far from it (a noisy middle
      grade), calibrated so LightGBM's test AUC lands near MQ2008's (.78-.80).
    * ``"many-relevant"`` (CatBoost querywise): lengths 1-55 around a median of 14; four grades with shares
      .50 / .20 / .28 / .02 and 4 % of lists with relevant documents only; 50 features of which 9 are all
      zero and 22 binary, 55 % zeros overall; a weak signal (CatBoost's AUC .57-.60).
    * ``"sparse-redundant"`` (MQ2008's features): 46 features, 70 % of them in groups of near-duplicates
      (|r| > .95, as 70 % of MQ2008's columns have such a twin), 47 % zeros (query-normalised counts).
    * ``"one-list"`` (one long imbalanced list, like a prioritisation list): 20 000 rows, 8 dense features,
      6 % positives (MQ2008's share of its top grade), binary.
    * ``"long-many-relevant"`` (long judged lists): 110 lists of 60-300 documents (median 140, past MQ2008's
      longest, 63-119 in its top 2 %), CatBoost's share of relevant documents per list (.44) in three grades
      (.50 / .20 / .30: CatBoost's grades with the top two merged), MQ2008-like redundant, query-normalised
      features, and judgements noisy enough that LightGBM's test AUC lands near CatBoost's (.58-.62).
    * ``"mostly-relevant"`` (graded lists where most documents are relevant): CatBoost's list lengths (median
      14), five grades of which three quarters are relevant (.25 / .35 / .25 / .10 / .05), CatBoost's share of
      zero features (55 %) and no per-query normalisation (features keep their global scale), so a document's
      absolute relevance carries across queries; noise set so LightGBM's test AUC lands near MQ2008's (.78-.80).
    * ``"absolute"`` (short, mostly relevant lists where being relevant is a property of the document):
      :func:`_absolute_relevance`.
    """
    rng = np.random.default_rng(seed)
    if kind == "absolute":
        return _absolute_relevance(rng)
    if kind == "long-many-relevant":
        return _long_many_relevant(rng)
    if kind == "mostly-relevant":
        return _mostly_relevant(rng)
    if kind == "one-list":
        n, d = 20_000, 8
        X = rng.normal(size=(n, d))
        u = X[:, 0] + 0.8 * np.tanh(2 * X[:, 1]) * X[:, 2] + 0.5 * X[:, 3] ** 2 + rng.normal(scale=1.2, size=n)
        y = (u > np.quantile(u, 0.94)).astype(np.int64)
        return X, y, np.array([n], dtype=np.int64)
    if kind == "many-relevant":
        sizes = np.clip(np.round(rng.lognormal(np.log(14), 0.7, size=300)), 1, 55).astype(np.int64)
        shares, d = np.array([0.50, 0.20, 0.28, 0.02]), 50
    else:
        sizes = np.clip(np.round(rng.lognormal(np.log(8), 0.9, size=350)), 6, 120).astype(np.int64)
        shares, d = np.array([0.80, 0.14, 0.06]), 46
    n = int(sizes.sum())
    qid = np.repeat(np.arange(sizes.size), sizes)
    Z = rng.normal(size=(n, 6)) + rng.normal(scale=0.7, size=(sizes.size, 6))[qid]  # query effects
    u = Z[:, 0] + 0.7 * Z[:, 1] * (Z[:, 2] > 0) + 0.4 * np.abs(Z[:, 3]) - 0.3 * Z[:, 4] * Z[:, 5]
    u = (u - u.mean()) / u.std()
    cuts = np.quantile(u, np.cumsum(shares)[:-1])
    near = np.min(np.abs(u[:, None] - cuts[None, :]), axis=1) < 0.3
    scale = {"ambiguous": 0.45, "many-relevant": 1.1, "sparse-redundant": 0.45}[kind]
    judged = u + rng.normal(size=n) * scale * np.where(near, 3.0, 1.0) if kind == "ambiguous" else \
        u + rng.normal(size=n) * scale
    y = np.digitize(judged, np.quantile(judged, np.cumsum(shares)[:-1])).astype(np.int64)  # the grade shares
    if kind == "many-relevant":  # 4 % of lists judged relevant throughout
        for q in rng.choice(sizes.size, size=int(0.04 * sizes.size), replace=False):
            rows = qid == q
            y[rows] = np.maximum(y[rows], 1)
    # features: the informative ones with noise, then redundant copies, binary and empty columns
    informative = Z + rng.normal(scale=0.3, size=Z.shape)
    if kind == "many-relevant":
        binary = (informative[:, rng.integers(0, 6, 22)] + rng.normal(size=(n, 22)) > 0.8).astype(float)
        dense = np.column_stack([informative, rng.normal(size=(n, d - 6 - 22 - 9))])
        X = np.column_stack([dense, binary, np.zeros((n, 9))])
    else:
        # non-negative, sparse columns (zeros where a count is 0), each informative one with near-copies
        base = np.exp(informative) * (rng.random((n, 6)) > 0.45)
        copies = base[:, rng.integers(0, 6, 26)] * np.exp(rng.normal(scale=0.05, size=(n, 26)))
        noise = np.abs(rng.normal(size=(n, d - 32))) * (rng.random((n, d - 32)) > 0.55)
        X = np.column_stack([base, copies, noise])
    for q0, q1 in zip(np.r_[0, np.cumsum(sizes)[:-1]], np.cumsum(sizes)):  # LETOR's QueryLevelNorm
        block = X[q0:q1]
        span = block.max(0) - block.min(0)
        X[q0:q1] = np.where(span > 0, (block - block.min(0)) / np.where(span > 0, span, 1), 0.0)
    return X, y, sizes


def _utility(Z):
    """The generators' non-linear relevance of the six latent columns, standardised."""
    u = Z[:, 0] + 0.7 * Z[:, 1] * (Z[:, 2] > 0) + 0.4 * np.abs(Z[:, 3]) - 0.3 * Z[:, 4] * Z[:, 5]
    return (u - u.mean()) / u.std()


def _query_normalised(X, sizes):
    """LETOR's QueryLevelNorm: each feature min-max scaled within each list."""
    for q0, q1 in zip(np.r_[0, np.cumsum(sizes)[:-1]], np.cumsum(sizes)):
        block = X[q0:q1]
        span = block.max(0) - block.min(0)
        X[q0:q1] = np.where(span > 0, (block - block.min(0)) / np.where(span > 0, span, 1), 0.0)
    return X


def _graded_lists(rng, n_q, median, spread, size_range, query_scale, noise, shares):
    """Lognormal list sizes, a latent utility with a per-list shift, and grades cut at the pooled quantiles of
    the judged (noisy) utility: ``shares`` are the cumulative shares below each grade boundary."""
    sizes = np.clip(np.round(rng.lognormal(np.log(median), spread, size=n_q)), *size_range).astype(np.int64)
    n = int(sizes.sum())
    qid = np.repeat(np.arange(n_q), sizes)
    Z = rng.normal(size=(n, 6)) + rng.normal(scale=query_scale, size=(n_q, 6))[qid]
    judged = _utility(Z) + rng.normal(size=n) * noise
    y = np.digitize(judged, np.quantile(judged, shares)).astype(np.int64)
    return Z, y, sizes, n


def _long_many_relevant(rng):
    Z, y, sizes, n = _graded_lists(rng, 110, 140, 0.35, (60, 300), 0.7, 2.2, [0.56, 0.76])
    informative = Z + rng.normal(scale=0.5, size=Z.shape)
    copies = informative[:, rng.integers(0, 6, 20)] + rng.normal(scale=0.3, size=(n, 20))
    X = np.column_stack([informative, copies, rng.normal(size=(n, 19))])
    return _query_normalised(X, sizes), y, sizes


def _mostly_relevant(rng):
    Z, y, sizes, n = _graded_lists(rng, 400, 14, 0.7, (2, 55), 0.4, 1.1, np.cumsum([0.25, 0.35, 0.25, 0.10]))
    informative = Z + rng.normal(scale=0.3, size=Z.shape)
    # sparse non-negative columns (a count or a score that is 0 when absent): exp of a noisy informative column
    present = [np.where(rng.random(n) < 0.4, np.exp(informative[:, k % 6] + rng.normal(scale=0.2, size=n)), 0.0)
               for k in range(30)]
    noise = np.abs(rng.normal(size=(n, 14))) * (rng.random((n, 14)) < 0.3)
    X = np.column_stack([informative - informative.min(0)] + present + [noise])
    return X / X.max(0), y, sizes


def _absolute_relevance(rng):
    """Short, mostly relevant, graded lists in which being relevant at all is a property of the document.

    The regime of issue 70, where LightGBM's pointwise objectives beat λ-AUC on a held-out real set; each
    parameter copies a measured property:

    * lists of 10-30 documents, three quarters relevant in five grades (.25 / .35 / .25 / .10 / .05): the
      held-out set's lengths and shares (issue 70);
    * relevant or not: a global non-linear function of six latent document properties plus a per-list
      shift and noise, cut at the pooled 25 % quantile, so the same document is relevant or not whatever
      the query; the grade of a relevant document: its match to the query (four more latent columns) and
      the same document quality, cut at the pooled quantiles of the relevant documents;
    * each list's documents share a location in the latent space (s.d. .65, within a list .6): the share of
      a feature's variance that lies between lists is about CatBoost querywise's (median .43 over its 41
      non-constant features; here .47), and a third of the variance of y > 0 lies between lists
      (CatBoost's: 37 %);
    * features on their global scale (no per-list normalisation): 6 noisy latent columns, 10 noisier copies,
      4 match columns and 6 noise columns;
    * the noise (document .6, list .6) and the match's weight (.5) set so that, as on the held-out set,
      LightGBM ``binary`` beats λ-AUC without the anchor by over .01 and λ-AUC beats ``lambdarank`` (there
      by .015-.018): in 5-fold CV with fixed rounds on seeds 27, 28, 29, ``binary`` − λ-AUC .016, .011, .011
      and λ-AUC − ``lambdarank`` .006, .009, .013.
    """
    n_q = 400
    sizes = rng.integers(10, 31, n_q)
    n = int(sizes.sum())
    qid = np.repeat(np.arange(n_q), sizes)
    Z = (rng.normal(size=(n_q, 6)) * 0.65)[qid] + rng.normal(size=(n, 6)) * 0.6
    quality = Z[:, 0] + 0.8 * np.tanh(1.5 * Z[:, 1]) * (Z[:, 2] > 0) - 0.5 * Z[:, 3] ** 2 + 0.4 * Z[:, 4] * Z[:, 5]
    quality = (quality - quality.mean()) / quality.std()
    M = rng.normal(size=(n, 4))
    match = M[:, 0] + 0.6 * np.abs(M[:, 1]) + 0.5 * M[:, 2] * (M[:, 3] > 0)
    match = (match - match.mean()) / match.std()
    u = quality + rng.normal(scale=0.6, size=n_q)[qid] + rng.normal(scale=0.6, size=n)
    relevant = u > np.quantile(u, 0.25)
    g = 0.5 * match + quality + rng.normal(scale=0.6, size=n)
    grade = 1 + np.digitize(g, np.quantile(g[relevant], np.cumsum([0.35, 0.25, 0.10]) / 0.75))
    y = np.where(relevant, grade, 0).astype(np.int64)
    X = np.column_stack([Z + rng.normal(scale=0.2, size=Z.shape),
                         Z[:, rng.integers(0, 6, 10)] + rng.normal(scale=0.4, size=(n, 10)),
                         M + rng.normal(scale=0.2, size=M.shape), rng.normal(size=(n, 6))])
    return X, y, sizes


#: name -> (loader, what it is).  Generated sets use seeds that no test or example uses.
DATASETS = {
    "sample": (load_sample, "bundled sample: 450 queries of 5-30, grades 0-2, non-linear utility"),
    "mq2008": (load_mq2008, "MQ2008 vali + test: 313 queries, grades 0-2 (LETOR 4.0)"),
    "catboost": (load_catboost, "CatBoost querywise (real web search): 117 queries of 1-55, grades 0-3 mapped "
                                "from [0, 1] at 0, .1, .3"),
    "cal-ambiguous": (lambda: make_calibrated("ambiguous", 21),
                      "calibrated to MQ2008: its list lengths and grade shares, noise 3x near the grade cuts"),
    "cal-many-relevant": (lambda: make_calibrated("many-relevant", 22),
                          "calibrated to CatBoost querywise: 44 % relevant per list, 4 grades, sparse binary features"),
    "cal-sparse-redundant": (lambda: make_calibrated("sparse-redundant", 23),
                             "calibrated to MQ2008's features: 70 % near-duplicate columns, 47 % zeros"),
    "cal-one-list": (lambda: make_calibrated("one-list", 24), "one list of 20 000 rows, 6 % positive (folds over rows)"),
    "cal-long-many-relevant": (lambda: make_calibrated("long-many-relevant", 25),
                               "lists of 60-300, CatBoost's 44 % relevant per list in 3 grades, noisy (CatBoost's AUC)"),
    "cal-mostly-relevant": (lambda: make_calibrated("mostly-relevant", 26),
                            "CatBoost's list lengths, 5 grades, 75 % relevant, sparse global-scale features"),
    "cal-absolute": (lambda: make_calibrated("absolute", 27),
                     "lists of 10-30, 75 % relevant in 5 grades, relevant or not a property of the document"),
    "gen-10-graded": (lambda: _letor(br.datasets.make_letor(600, docs_per_query=(5, 20), relevance="nonlinear",
                                                   noise=0.7, random_state=11)),
                      "600 queries of 5-20, grades 0-2, non-linear"),
    "gen-100-binary": (lambda: _letor(br.datasets.make_letor(200, docs_per_query=(50, 150), n_grades=2,
                                                    relevance="nonlinear", noise=1.0, random_state=12)),
                       "200 queries of 50-150, binary, non-linear"),
    "gen-1000-graded": (lambda: _letor(br.datasets.make_letor(40, docs_per_query=(500, 1000), n_grades=5, n_features=20,
                                                     relevance="nonlinear", noise=1.0, random_state=13)),
                        "40 queries of 500-1000, grades 0-4, 20 features, non-linear"),
    "gen-30-noisy": (lambda: _flip(_letor(br.datasets.make_letor(300, docs_per_query=(10, 60), relevance="nonlinear",
                                                        noise=0.5, random_state=14)), 0.15, 14),
                     "300 queries of 10-60, grades 0-2, 15 % of labels redrawn at random"),
    "gen-30-linear-binary": (lambda: _letor(br.datasets.make_letor(400, docs_per_query=(10, 50), n_grades=2,
                                                          n_features=30, n_informative=6, noise=1.5,
                                                          random_state=15)),
                             "400 queries of 10-50, binary, linear utility, 30 features (24 noise)"),
    "one-list": (lambda: _letor(br.datasets.make_letor(1, docs_per_query=(4000, 4000), n_grades=2, relevance="nonlinear",
                                              noise=0.7, random_state=16)),
                 "one list of 4 000 rows, binary (folds over rows)"),
}
QUICK_SETS = ("sample", "gen-10-graded", "one-list")


# --------------------------------------------------------------------------- training
def offsets_of(sizes):
    return np.r_[0, np.cumsum(sizes)].astype(np.int64)


def _metrics(y, s, off, per_query=False):
    g = GroupOffsets(off)
    return {"auc": br.auc(y, s, g, per_query=per_query), "mauc": br.mauc(y, s, g, per_query=per_query),
            "ndcg@10": br.ndcg(y, s, g, k=10, per_query=per_query)}


class Curves:
    """Validation metrics after every round; tells when none has improved for PATIENCE rounds."""

    def __init__(self, y, off):
        self.y, self.off = y, off
        self.best = {m: (-1, -np.inf) for m in METRICS}

    def update(self, iteration, scores) -> bool:
        for m, v in _metrics(self.y, scores, self.off).items():
            if np.isfinite(v) and v > self.best[m][1] + 1e-12:
                self.best[m] = (iteration, float(v))
        return iteration - max(b[0] for b in self.best.values()) >= PATIENCE

    def rounds(self):
        """Best number of rounds per metric (at least 1)."""
        return {m: max(it, 0) + 1 for m, (it, _) in self.best.items()}


def lightgbm_setup(objective, ytr, otr):
    """LightGBM parameters (the same trees for every method) and the label an objective trains on."""
    params = {"num_leaves": 31, "learning_rate": 0.05, "min_data_in_leaf": 20, "num_threads": 1, "verbose": -1,
              "seed": 0, "deterministic": True, "force_row_wise": True, "metric": "None"}
    label = ytr
    if isinstance(objective, tuple):  # (metric, options) of a variant
        params["objective"] = br.lightgbm_objective(objective[0], **objective[1])
    elif objective in ("auc", "mauc", "ndcg"):
        params["objective"] = br.lightgbm_objective(objective)
    else:
        params["objective"] = objective
        if objective == "binary":
            label = (ytr > 0).astype(np.float64)
    if objective == "lambdarank" and np.diff(otr).max() > 10_000:
        raise RuntimeError("lambdarank refuses lists over 10 000 rows")
    return params, label


def train_fixed(engine, objective, tr, max_rounds):
    """FIXED_ROUNDS' largest count of rounds on all training queries, no early stopping: predict(X, rounds)."""
    (Xtr, ytr, otr) = tr
    if engine == "xgboost":
        params = {"objective": objective, "tree_method": "hist", "grow_policy": "lossguide", "max_leaves": 31,
                  "max_depth": 0, "eta": 0.05, "nthread": 1, "seed": 0, "disable_default_eval_metric": 1}
        booster = xgb.train(params, xgb.DMatrix(Xtr, ytr, group=np.diff(otr)), num_boost_round=max(FIXED_ROUNDS))
        return lambda X, r: booster.predict(xgb.DMatrix(X), output_margin=True, iteration_range=(0, r))
    params, label = lightgbm_setup(objective, ytr, otr)
    booster = lgb.train(params, lgb.Dataset(Xtr, label, group=np.diff(otr)), num_boost_round=max(FIXED_ROUNDS))
    return lambda X, r: booster.predict(X, num_iteration=r, raw_score=True)


def train_lightgbm(objective, tr, va, max_rounds):
    (Xtr, ytr, otr), (Xva, yva, ova) = tr, va
    params, label = lightgbm_setup(objective, ytr, otr)
    curves = Curves(yva, ova)
    state = {"s": np.zeros(yva.shape[0])}

    def record(env):
        state["s"] += env.model.predict(Xva, start_iteration=env.iteration, num_iteration=1, raw_score=True)
        if curves.update(env.iteration, state["s"]):
            raise lgb.callback.EarlyStopException(env.iteration, [])

    booster = lgb.train(params, lgb.Dataset(Xtr, label, group=np.diff(otr)), num_boost_round=max_rounds,
                        callbacks=[record])
    return lambda X, rounds: booster.predict(X, num_iteration=rounds, raw_score=True), curves


def train_xgboost(objective, tr, va, max_rounds):
    (Xtr, ytr, otr), (Xva, yva, ova) = tr, va
    params = {"objective": objective, "tree_method": "hist", "grow_policy": "lossguide", "max_leaves": 31,
              "max_depth": 0, "eta": 0.05, "nthread": 1, "seed": 0, "disable_default_eval_metric": 1}
    dtr = xgb.DMatrix(Xtr, ytr, group=np.diff(otr))
    dva = xgb.DMatrix(Xva, yva, group=np.diff(ova))
    curves = Curves(yva, ova)

    class Record(xgb.callback.TrainingCallback):
        def after_iteration(self, model, epoch, evals_log):
            return curves.update(epoch, model.predict(dva, output_margin=True, iteration_range=(0, epoch + 1)))

    booster = xgb.train(params, dtr, num_boost_round=max_rounds, callbacks=[Record()])
    return (lambda X, rounds: booster.predict(xgb.DMatrix(X), output_margin=True, iteration_range=(0, rounds)),
            curves)


def train_default(engine, kw, tr, va):
    """An estimator with its defaults on train + valid (the estimator splits off its own)."""
    X = np.vstack([tr[0], va[0]])
    y = np.r_[tr[1], va[1]]
    sizes = np.r_[np.diff(tr[2]), np.diff(va[2])]
    if tr[2].shape[0] == 2 and va[2].shape[0] == 2:  # one list stays one list
        sizes = np.array([y.shape[0]])
    if engine == "lgbmranker":
        if sizes.max() > 10_000:
            raise RuntimeError("lambdarank refuses lists over 10 000 rows")
        model = lgb.LGBMRanker(random_state=0, n_jobs=1, verbose=-1).fit(X, y, group=sizes)
        rounds = model.n_estimators
    elif engine == "refit":
        probe = br.LambdaRanker(random_state=0, n_jobs=1, early_stopping_rounds=50, n_estimators=1000,
                                learning_rate=0.05, validation_fraction=0.2, **kw).fit(X, y, group=sizes)
        rounds = probe.best_iteration_ or probe.n_estimators
        model = br.LambdaRanker(random_state=0, n_jobs=1, early_stopping_rounds=None, n_estimators=rounds,
                                learning_rate=0.05, **kw).fit(X, y, group=sizes)
    else:
        model = br.LambdaRanker(random_state=0, n_jobs=1, **kw).fit(X, y, group=sizes)
        rounds = model.best_iteration_ or model.n_estimators
    return (lambda Xt, _: model.predict(Xt)), {m: rounds for m in METRICS}


def split_rows(X, y, sizes, test_units, valid_units, single):
    """(train, valid, test) as (X, y, offsets); units are queries, or rows of the one list."""
    off = offsets_of(sizes)

    def take(units):
        units = np.sort(units)
        if single:  # one list: the units are rows, and each part is one list
            return X[units], y[units], np.array([0, units.shape[0]], dtype=np.int64)
        rows = np.concatenate([np.arange(off[q], off[q + 1]) for q in units] + [np.zeros(0, dtype=np.int64)])
        return X[rows], y[rows], offsets_of(sizes[units])

    n_units = y.shape[0] if single else sizes.shape[0]
    rest = np.setdiff1d(np.arange(n_units), np.union1d(test_units, valid_units))
    return take(rest), take(valid_units), take(test_units)


def run_fold(name, data, repeat, fold, n_folds, methods, max_rounds, protocol="early-stopping"):
    """Every method on one (repeat, fold); returns per-method per-metric test values and rounds.

    ``protocol="fixed"``: each method trains on all outer training queries (no inner split) and is
    read at every count of FIXED_ROUNDS, stored as ``"<method>@<rounds>"``; the engine objectives are also
    trained on the inner training queries and read on the inner fifth (``"<method>:valid"``), which
    chooses the comparator (:func:`add_inner_best`).  Early stopping stores each method's best
    inner-validation value per metric under ``"valid"``."""
    import numba

    numba.set_num_threads(1)  # two jobs share the two cores
    X, y, sizes = data
    single = sizes.shape[0] == 1
    n_units = y.shape[0] if single else sizes.shape[0]
    rng = np.random.default_rng(1000 * repeat + 7)
    perm = rng.permutation(n_units)
    test_units = perm[fold::n_folds]
    rest = np.setdiff1d(perm, test_units)
    valid_units = np.random.default_rng(1000 * repeat + fold).choice(rest, size=max(1, len(rest) // 5),
                                                                    replace=False)
    tr, va, te = split_rows(X, y, sizes, test_units, valid_units, single)
    out = {"test_units": np.sort(test_units).tolist()}
    if protocol == "fixed":
        full, _, te = split_rows(X, y, sizes, test_units, np.zeros(0, dtype=np.int64), single)
        for mname, engine, objective in methods:
            if engine not in ("lightgbm", "xgboost"):
                continue
            t = time.perf_counter()
            try:
                predict = train_fixed(engine, objective, full, max_rounds)
            except RuntimeError:
                continue
            seconds = time.perf_counter() - t
            for r in FIXED_ROUNDS:
                res = {"seconds": seconds, "rounds": {m: r for m in METRICS}}
                for m in METRICS:
                    res[m] = np.asarray(_metrics(te[1], predict(te[0], r), te[2], per_query=True)[m],
                                        dtype=np.float64).tolist()
                out[f"{mname}@{r}"] = res
            if mname in ENGINE_OBJECTIVES:  # the comparator is chosen on the inner fifth, not the test queries
                inner = train_fixed(engine, objective, tr, max_rounds)
                out[f"{mname}:valid"] = {m: max(float(_metrics(va[1], inner(va[0], r), va[2])[m])
                                                for r in FIXED_ROUNDS) for m in METRICS}
        return name, repeat, fold, out
    for mname, engine, objective in methods:
        t = time.perf_counter()
        try:  # lambdarank on a list past 10 000 rows: left out of this set's table
            if engine in ("ranker", "lgbmranker", "refit"):
                predict, rounds = train_default(engine, objective, tr, va)
            else:
                trainer = train_lightgbm if engine == "lightgbm" else train_xgboost
                predict, curves = trainer(objective, tr, va, max_rounds)
                rounds = curves.rounds()
                out[f"{mname}:valid"] = {m: curves.best[m][1] for m in METRICS}
        except RuntimeError:
            continue
        res = {"seconds": time.perf_counter() - t, "rounds": rounds}
        for m in METRICS:
            values = _metrics(te[1], predict(te[0], rounds[m]), te[2], per_query=True)[m]
            res[m] = np.asarray(values, dtype=np.float64).tolist()
        out[mname] = res
    return name, repeat, fold, out


# --------------------------------------------------------------------------- statistics
def per_unit(results, n_units, single, method, metric):
    """Test value per unit (query, or (repeat, fold) list), averaged over repeats."""
    if single:
        return np.array([r[method][metric][0] for r in results])
    total = np.zeros(n_units)
    count = np.zeros(n_units)
    for r in results:
        units = np.asarray(r["test_units"])
        v = np.asarray(r[method][metric])
        ok = np.isfinite(v)
        np.add.at(total, units[ok], v[ok])
        np.add.at(count, units[ok], 1)
    with np.errstate(invalid="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def pick_fixed_rounds(results, n_units, single, methods):
    """Per method and metric, the FIXED_ROUNDS count with the higher mean test value (one rule for all),
    written back under the method's own name."""
    for mname, _, _ in methods:
        if not all(f"{mname}@{r}" in results[0] for r in FIXED_ROUNDS):
            continue
        for r_ in results:
            r_[mname] = {"seconds": r_[f"{mname}@{FIXED_ROUNDS[0]}"]["seconds"], "rounds": {}}
        for m in METRICS:
            means = {r: np.nanmean(per_unit(results, n_units, single, f"{mname}@{r}", m)) for r in FIXED_ROUNDS}
            best = max(FIXED_ROUNDS, key=lambda r: means[r])
            for r_ in results:
                r_[mname][m] = r_[f"{mname}@{best}"][m]
                r_[mname]["rounds"][m] = best
    return [m for m in methods if m[0] in results[0]]


def add_inner_best(results, methods):
    """The comparator of every (repeat, fold): per metric, the engine objective with the best inner-validation
    value (ties: the first in ENGINE_OBJECTIVES), its test values stored under INNER_BEST; returns how often
    each objective was chosen, per metric."""
    engines = [m for m, _, _ in methods if m in ENGINE_OBJECTIVES and all(m in r and f"{m}:valid" in r
                                                                          for r in results)]
    chosen = {m: {} for m in METRICS}
    if not engines:
        return chosen
    for r in results:
        row = {"seconds": 0.0, "rounds": {}}
        for m in METRICS:
            best = max(engines, key=lambda e: (r[f"{e}:valid"][m], -engines.index(e)))
            row[m] = r[best][m]
            row["rounds"][m] = r[best]["rounds"][m]
            row["seconds"] += r[best]["seconds"] / len(METRICS)
            chosen[m][best] = chosen[m].get(best, 0) + 1
        r[INNER_BEST] = row
    return chosen


def fold_test(results, a, b, metric, folds):
    """Corrected resampled t-test over the (repeat, fold) models (Nadeau & Bengio 2003): each fold's mean
    difference over its test queries is one observation, and the variance is inflated by test/train = 1/(folds − 1)
    for the overlap of the training sets.  Unlike the test over queries it sees that a fold's queries share one
    model (MEASUREMENTS.md, "small sets").  Returns (mean difference, p)."""
    diffs = []
    for r in results:
        d = np.asarray(r[a][metric], dtype=np.float64) - np.asarray(r[b][metric], dtype=np.float64)
        d = d[np.isfinite(d)]
        if d.size:
            diffs.append(d.mean())
    diffs = np.asarray(diffs)
    if diffs.size < 2 or not np.any(diffs != diffs[0]):
        return float(diffs.mean()) if diffs.size else float("nan"), float("nan")
    scale = np.sqrt((1.0 / diffs.size + 1.0 / (folds - 1)) * diffs.var(ddof=1))
    t = diffs.mean() / scale
    return float(diffs.mean()), float(2 * stats.t.sf(abs(t), diffs.size - 1))


def paired(results, n_units, single, a, b, metric, folds) -> dict:
    """a − b on ``metric``: mean ± s.e. over units, paired t and Wilcoxon over units, the fold-level test."""
    x = per_unit(results, n_units, single, a, metric)
    z = per_unit(results, n_units, single, b, metric)
    ok = np.isfinite(x) & np.isfinite(z)
    d = x[ok] - z[ok]
    nz = d[d != 0]
    w = stats.wilcoxon(nz) if nz.size > 1 else None
    return {"metric": metric, "best_engine": b, "diff": float(d.mean()), "se": float(d.std(ddof=1) / np.sqrt(d.size)),
            "t_p": float(stats.ttest_rel(x[ok], z[ok]).pvalue) if d.size > 1 else float("nan"),
            "wilcoxon_p": float(w.pvalue) if w is not None else float("nan"), "n": int(d.size),
            "wins": int((d > 0).sum()), "losses": int((d < 0).sum()),
            "fold_p": fold_test(results, a, b, metric, folds)[1]}


#: λ rows compared with their own variant (the default against the option it replaced, or it offers)
VARIANT_TESTS = (("λ-AUC", "auc", "λ-AUC anchor=0"), ("λ-MAUC", "mauc", "λ-MAUC anchor=0"),
                 ("λ-AUC", "auc", "λ-AUC all pairs"), ("λ-AUC", "auc", "λ-AUC uniform"),
                 ("λ-AUC", "auc", "λ-AUC grade_weight=0.5"), ("λ-MAUC", "mauc", "λ-MAUC all pairs"),
                 ("λ-AUC", "auc", "λ-AUC norm=False"), ("λ-AUC", "auc", "λ-AUC norm=True"),
                 ("λ-MAUC", "mauc", "λ-MAUC norm=True"), ("λ-MAUC", "mauc", "λ-MAUC norm=query"))


def summarise(name, results, data, methods, folds=5):
    X, y, sizes = data
    single = sizes.shape[0] == 1
    n_units = y.shape[0] if single else sizes.shape[0]
    chosen = add_inner_best(results, methods)
    names = [m for m, _, _ in methods] + ([INNER_BEST] if INNER_BEST in results[0] else [])
    table = {}
    for mname in names:
        row = {}
        for m in METRICS:
            v = per_unit(results, n_units, single, mname, m)
            v = v[np.isfinite(v)]
            row[m] = {"mean": float(v.mean()), "se": float(v.std(ddof=1) / np.sqrt(len(v))), "n": int(len(v)),
                      "rounds": float(np.mean([r[mname]["rounds"][m] for r in results]))}
        row["seconds"] = float(np.mean([r[mname]["seconds"] for r in results]))
        table[mname] = row
    tests = {}
    for ours, metric in (("λ-AUC", "auc"), ("λ-MAUC", "mauc")):
        if ours in table and INNER_BEST in table:
            tests[ours] = {**paired(results, n_units, single, ours, INNER_BEST, metric, folds),
                           "chosen": chosen[metric]}
            for pointwise in ("binary", "regression"):  # the objectives that learn across queries
                if pointwise in table:
                    tests[f"{ours} vs {pointwise}"] = paired(results, n_units, single, ours, pointwise, metric, folds)
    for ours, metric, off in VARIANT_TESTS:
        if ours in table and off in table:
            tests[f"{ours} vs {off}"] = paired(results, n_units, single, ours, off, metric, folds)
    return {"table": table, "tests": tests}


def print_summary(name, desc, summary, repeats, folds):
    print(f"\n## {name}: {desc}  ({repeats} × {folds}-fold)")
    head = f"{'method':<14}" + "".join(f"{m:>22}" for m in METRICS) + f"{'s/fit':>7}"
    print(head)
    for mname, row in summary["table"].items():
        cells = "".join(f"  {row[m]['mean']:.4f} ± {row[m]['se']:.4f} ({row[m]['rounds']:3.0f})" for m in METRICS)
        print(f"{mname:<14}{cells}{row['seconds']:7.1f}")
    for ours, t in summary["tests"].items():
        ours = ours.split(" vs ")[0]
        verdict = "better" if t["diff"] > 0 and t["t_p"] < 0.05 else (
            "worse" if t["diff"] < 0 and t["t_p"] < 0.05 else "no significant difference")
        picks = "" if "chosen" not in t else " [chosen: " + ", ".join(f"{k} {v}" for k, v in t["chosen"].items()) + "]"
        print(f"{ours} − {t['best_engine']} on {t['metric'].upper()}: {t['diff']:+.4f} ± {t['se']:.4f} "
              f"(paired t over queries p = {t['t_p']:.3g}, Wilcoxon p = {t['wilcoxon_p']:.3g}; {t['wins']} wins / "
              f"{t['losses']} losses of {t['n']}; over fold models, corrected: "
              f"p = {t.get('fold_p', float('nan')):.3g}): {verdict}{picks}")


#: the guide's (docs/guide/objectives.md) short name of each set (real sets in bold)
README_NAMES = {
    "sample": "bundled sample (lists of 5–30, grades 0–2)",
    "mq2008": "**MQ2008** vali + test (real, 313 queries)",
    "catboost": "**CatBoost querywise** (real, 117 queries, grades 0–3)",
    "cal-ambiguous": "calibrated to MQ2008: noisy near grade cuts",
    "cal-many-relevant": "calibrated to CatBoost: many relevant, sparse",
    "cal-sparse-redundant": "calibrated to MQ2008's features: redundant, sparse",
    "cal-one-list": "one list of 20 000 rows, 6 % positive",
    "cal-long-many-relevant": "calibrated to CatBoost: lists of 60–300, 44 % relevant",
    "cal-mostly-relevant": "calibrated to CatBoost: 5 grades, 75 % relevant",
    "cal-absolute": "short, 75 % relevant, relevance a document property (issue 70's regime)",
    "gen-10-graded": "600 lists of 5–20, grades 0–2",
    "gen-100-binary": "200 lists of 50–150, binary",
    "gen-1000-graded": "40 lists of 500–1 000, grades 0–4",
    "gen-30-noisy": "300 lists of 10–60, 15 % labels redrawn",
    "gen-30-linear-binary": "400 lists of 10–50, binary, 24 noise features",
    "one-list": "one list of 4 000 rows",
}


def markdown(path):
    """The guide's table (docs/guide/objectives.md) of a results file: per set, the comparator chosen on inner
    folds, λ-AUC / λ-MAUC, the difference with the paired test over queries and the fold-level test; then the
    mean, the worst difference and the counts over all sets."""
    sets = json.loads(Path(path).read_text())["sets"]

    def num(x):
        return f"{x:.4f}".replace("0.", ".", 1)

    def diff(t):
        star = " *" if t["fold_p"] < 0.05 else ""
        return (f"{t['diff']:+.4f}".replace("0.", ".", 1).replace("-", "−")
                + f" ({t['t_p']:.2g} / {t['fold_p']:.2g}){star}")

    lines = ["| data set | best engine (inner), AUC | λ-AUC | Δ (p queries / p folds) | best engine (inner), MAUC "
             "| λ-MAUC | Δ (p queries / p folds) |", "|---|---|---|---|---|---|---|"]
    summary = {}
    for name, s in sets.items():
        cells = [README_NAMES.get(name, name)]
        for ours, metric in (("λ-AUC", "auc"), ("λ-MAUC", "mauc")):
            t = s["tests"][ours]
            cells += [num(s["table"][INNER_BEST][metric]["mean"]), num(s["table"][ours][metric]["mean"]), diff(t)]
            summary.setdefault(ours, []).append(t)
        lines.append("| " + " | ".join(cells) + " |")
    for ours, tests in summary.items():
        d = np.array([t["diff"] for t in tests])
        below = sum(t["diff"] < 0 and t["fold_p"] < 0.05 for t in tests)
        below_q = sum(t["diff"] < 0 and t["t_p"] < 0.05 for t in tests)
        lines.append(f"\n{ours}: mean Δ {d.mean():+.4f}, worst {d.min():+.4f}, ahead on {(d > 0).sum()} of "
                     f"{d.size} sets, significantly behind on {below} by the fold-level test ({below_q} by the test "
                     f"over queries)")
    return "\n".join(lines)


def figure(all_summaries, path, metric="auc"):
    """Per data set, each objective's mean test AUC (± one standard error over queries)."""
    plt = pyplot()
    names = list(all_summaries)
    cols = min(3, len(names))
    rows = -(-len(names) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 0.32 * 12 * rows + 1), squeeze=False)
    for ax, name in zip(axes.flat, names):
        table = all_summaries[name]["table"]
        methods = [m for m in table if not m.startswith(("LambdaRanker", "0.1", "100 rounds", "held-out", "ES then",
                                                         "LGBMRanker"))]
        means = [table[m][metric]["mean"] for m in methods]
        ses = [table[m][metric]["se"] for m in methods]
        colours = ["C3" if m.startswith("λ") else "C0" for m in methods]
        ypos = np.arange(len(methods))[::-1]
        ax.errorbar(means, ypos, xerr=ses, fmt="none", ecolor="grey", lw=1)
        ax.scatter(means, ypos, c=colours, s=18, zorder=3)
        ax.set_yticks(ypos, methods, fontsize=7)
        ax.set_title(name, fontsize=9)
        ax.tick_params(axis="x", labelsize=7)
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    fig.supxlabel(f"mean test {metric.upper()} over queries (± 1 s.e.); red: boostrank's λ objectives", fontsize=9)
    fig.tight_layout()
    save_figure(fig, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=None, help=f"comma list of {', '.join(DATASETS)}")
    ap.add_argument("--repeats", type=int, default=3,
                    help=f"at least {SMALL_SET_REPEATS} on a set of fewer than {SMALL_SET_QUERIES} queries "
                         f"and {SMALL_SET_ROWS} rows")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--max-rounds", type=int, default=1000)
    ap.add_argument("--methods", default=None, help="comma list of method names (default: all)")
    ap.add_argument("--no-defaults", action="store_true", help="leave out the estimators-with-defaults rows")
    ap.add_argument("--no-variants", action="store_true",
                    help="leave out the rows of the λ objectives with one default undone")
    ap.add_argument("--norm-variants", action="store_true",
                    help="add the rows of LightGBM's whole lambdarank_norm for λ-AUC and λ-MAUC, and λ-MAUC with "
                         "its per-query part")
    ap.add_argument("--sample-seeds", type=int, default=0, metavar="N",
                    help="add N sets drawn like the bundled sample (make_letor(**SAMPLE_ARGS)) with other seeds: "
                         "is a result the generator's or the one draw's?")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help=f"{', '.join(QUICK_SETS)}, 1 repeat")
    ap.add_argument("--protocol", choices=("early-stopping", "fixed"), default="early-stopping",
                    help="early stopping on an inner fifth of the training queries, per method and metric; or "
                         f"every method read at {' and '.join(map(str, FIXED_ROUNDS))} rounds on all training "
                         "queries, keeping the better count (the same rule for all)")
    ap.add_argument("--markdown", metavar="JSON", help="print the guide's table of a results file and stop")
    ap.add_argument("--resume", action="store_true",
                    help="keep the sets already in --json (same protocol) and run only the others")
    ap.add_argument("--json", default=str(HERE / "results" / "objective_quality.json"))
    ap.add_argument("--figure", default=str(HERE / "figures" / "objective_quality.png"))
    args = ap.parse_args(argv)
    if args.markdown:
        print(markdown(args.markdown))
        return
    names = args.sets.split(",") if args.sets else list(QUICK_SETS if args.quick else DATASETS)
    for k in range(args.sample_seeds):
        name = f"sample-draw-{k + 1}"
        DATASETS[name] = (lambda seed=k + 1: _letor(br.datasets.make_letor(**{**SAMPLE_ARGS, "random_state": seed})),
                          f"make_letor(**SAMPLE_ARGS) with random_state={k + 1}")
        names.append(name)
    repeats = 1 if args.quick else args.repeats
    methods = [m for m in METHODS + ([] if args.no_variants else VARIANTS) + ([] if args.no_defaults else DEFAULTS)
               + (NORM_VARIANTS if args.norm_variants else [])
               if args.methods is None or m[0] in args.methods.split(",")]
    if not (DATA / "mq2008" / "vali.txt").exists() and "mq2008" in names:
        print("mq2008 not found beside the checkout: skipped")
        names.remove("mq2008")
    summaries = {}
    if args.resume and Path(args.json).exists():
        previous = json.loads(Path(args.json).read_text())
        if previous["protocol"]["name"] == args.protocol:
            summaries = dict(previous["sets"])  # every set already there stays, named by --sets or not
            names = [n for n in names if n not in summaries]
    for name in names:
        loader, desc = DATASETS[name]
        data = loader()
        t = time.perf_counter()
        set_repeats = repeats
        if not args.quick and 1 < data[2].shape[0] < SMALL_SET_QUERIES and data[1].shape[0] < SMALL_SET_ROWS:
            set_repeats = max(repeats, SMALL_SET_REPEATS)
        jobs = [(r, f) for r in range(set_repeats) for f in range(args.folds)]
        results = Parallel(n_jobs=args.jobs)(
            delayed(run_fold)(name, data, r, f, args.folds, methods, args.max_rounds, args.protocol) for r, f in jobs)
        results = [r[3] for r in results]
        run_methods = [m for m in methods if all(m[0] in r for r in results)]
        if args.protocol == "fixed":
            single = data[2].shape[0] == 1
            run_methods = pick_fixed_rounds(results, data[1].shape[0] if single else data[2].shape[0], single,
                                            methods)
        summaries[name] = summarise(name, results, data, run_methods, args.folds)
        summaries[name]["description"] = desc
        summaries[name]["seconds"] = time.perf_counter() - t
        summaries[name]["repeats"] = set_repeats
        summaries = {k: summaries[k] for k in DATASETS if k in summaries}  # --resume keeps the sets' order
        print_summary(name, desc, summaries[name], set_repeats, args.folds)
        write_json(args.json, {"protocol": {"name": args.protocol, "repeats": repeats, "folds": args.folds,
                                            "max_rounds": args.max_rounds,
                                            "patience": PATIENCE, "learning_rate": 0.05, "num_leaves": 31},
                               "sets": summaries})
    if args.figure and summaries:
        figure(summaries, args.figure)


if __name__ == "__main__":
    main()
