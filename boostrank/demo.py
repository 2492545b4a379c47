"""``boostrank demo``: every ranker of the package on one split, in one table.

The command line loads and checks the data and the metric names; this module fits the rankers (random scores,
a logistic regression, RankNCG, LightGBM's lambdarank, λ-AUC and λ-MAUC, the re-ranker on the logistic
regression's top rows) and prints what each scores.  On a first run it compiles the kernels it needs in worker
processes (:func:`compile_first`).
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np

from .evaluation.report import format_table, metric_table
from .metrics.arrays import LETOR_METRICS


def compile_first() -> None:
    """On a machine whose Numba cache lacks the demo's kernels, compile them first, in worker processes side by
    side (the λ objectives, RankNCG, the re-ranker's search, the metrics), saying so once."""
    from ._kernels.jit import is_cached
    from ._kernels.lambdas import lambda_auc_kernel
    from ._kernels.metrics import mauc_groups
    from ._kernels.rank_sweep import line_sweep
    from ._kernels.rankncg import pair_coefficients

    if not all(is_cached(k) for k in (lambda_auc_kernel, pair_coefficients, line_sweep, mauc_groups)):
        from .precompile import warm_in_workers

        print("first run on this machine: compiling the kernels the demo uses (the λ objectives, RankNCG, the "
              "re-ranker's search, the metrics) into Numba's cache, once", file=sys.stderr, flush=True)
        warm_in_workers({name: f"boostrank.demo:{function.__name__}" for name, function in _DEMO_PARTS.items()},
                        desc="compiling", progress=True)


def run(train, test, where: str, metrics: list, *, rounds: int = 100, rerank_k: int = 3, time_limit=None,
        as_json: bool = False) -> int:
    """Every ranker of the package on one split, a table of ``metrics`` on ``test`` (``where`` names it)."""
    from sklearn.linear_model import LogisticRegression

    print(f"train: {len(train)} rows / {train.n_queries} queries;  "
          f"test: {len(test)} rows / {test.n_queries} queries;  {train.n_features} features")
    steps = 7
    runs: dict = {}

    def step(i, name, what, fit):
        start = time.perf_counter()
        print(f"[{i}/{steps}] {name}: {what} ...", end="", flush=True)
        runs[name] = fit()
        print(f" {time.perf_counter() - start:.1f} s", flush=True)

    rng = np.random.default_rng(0)
    step(1, "random", "scores drawn at random (the floor)", lambda: rng.random(len(test)))
    lr = LogisticRegression(max_iter=1000).fit(train.X, train.y > 0)
    step(2, "logistic regression", "scikit-learn on y > 0, no queries", lambda: lr.decision_function(test.X))
    from .linear.rankncg import RankNCG
    from .ranker import LambdaRanker

    step(3, "RankNCG", "linear, maximises a bound on the per-query WMW statistic (Raykar)",
         lambda: RankNCG().fit(train.X, train.y, qid=train.qid).decision_function(test.X))
    gbm = dict(n_estimators=rounds, random_state=0)  # otherwise LambdaRanker's defaults

    def boost(objective):
        return LambdaRanker(objective=objective, **gbm).fit(train.X, train.y, qid=train.qid).predict(test.X)

    for i, (name, objective, what) in enumerate([
            ("LightGBM lambdarank", "lambdarank", "LightGBM's own objective, for NDCG"),
            ("LightGBM λ-AUC", "auc", "for per-query AUC: Welleck's AUC swap delta (Thm 4.1) with a pointwise anchor"),
            ("LightGBM λ-MAUC", "mauc", "for per-query multi-class AUC over the grades (Welleck eq. 18-19)")],
            start=4):
        step(i, name, f"{rounds} rounds, {what}", lambda o=objective: boost(o))
    rer = _demo_reranker(rerank_k, time_limit)
    label = f"LR + re-rank top {rerank_k} (dcg@5)"

    def rerank():
        return _demo_rerank(rer, train, test, runs["logistic regression"])

    step(7, label, f"a linear model fitted to DCG@5 itself on the logistic regression's top {rerank_k} per "
                   f"list, kept only if it gains on held-out training folds", rerank)
    table = metric_table(test.y, test.qid, runs, metrics)
    print(f"\nmeasured on {where} ({len(test)} rows, {test.n_queries} queries); each row is a ranker fitted on "
          f"the train split; higher is better; auc and mauc are per-query means (queries with one class left out: "
          f"{next(iter(table.values()))['queries_with_auc']} of {test.n_queries} have both)")
    print(format_table(table, metrics))
    print(f"re-ranker: {_rerank_in_words(rer.result_, rerank_k)}")
    print("the re-ranked row starts from the logistic regression's ranking: compare it with that row")
    print(f"how to read one split: each objective is for one column (λ-AUC for auc, and on most data sets for mauc "
          f"too; λ-MAUC for mauc; lambdarank for ndcg@10), but one split of {test.n_queries} test queries cannot tell "
          f"close rankers apart: docs/guide/objectives.md compares them with cross-validation and paired tests")
    if as_json:
        print(json.dumps(table, indent=2))
    return 0


def _demo_reranker(k, time_limit):
    """The demo's re-ranker: TopKReranker's search on DCG@5 without the MIP solve, whose root alone takes
    longer than the rest of the demo on the sample and did not improve the search's w there.  Every stage ends
    by its count of work, so every run prints the same row (unless ``--time-limit`` cuts one)."""
    from .rerank import TopKReranker

    return TopKReranker(k=k, objective="rank_risk", a="dcg@5", time_limit=time_limit)


def _demo_rerank(rer, train, test, base_test):
    """The demo's last step: cross-fitted logistic-regression scores, the re-ranker fitted on them."""
    from sklearn.linear_model import LogisticRegression

    from .rerank import cross_fit_scores

    base, _ = cross_fit_scores(LogisticRegression(max_iter=1000), train.X, train.y, train.qid)
    rer.fit(train.X, train.y, base_scores=base, qid=train.qid)
    return rer.predict(test.X, base_test, qid=test.qid)


def _demo_data():
    """The sample, and 40 of its training queries (they take the paths all 300 take)."""
    from .io.datasets import load_sample

    train, test = load_sample()
    return train.take_queries(np.arange(40)), test


def _warm_demo_lambda() -> None:
    from .ranker import LambdaRanker

    few, _ = _demo_data()
    for objective in ("auc", "mauc"):
        LambdaRanker(objective=objective, n_estimators=2).fit(few.X, few.y, qid=few.qid)


def _warm_demo_rankncg() -> None:
    from .io.datasets import load_sample
    from .linear.rankncg import RankNCG

    train, _ = load_sample()  # all of it: the sums RankNCG picks depend on the pairs per list
    RankNCG(max_iter=3).fit(train.X, train.y, qid=train.qid)


def _warm_demo_rerank() -> None:
    import warnings

    from sklearn.linear_model import LogisticRegression

    few, _ = _demo_data()
    lr = LogisticRegression(max_iter=1000).fit(few.X, few.y > 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _demo_rerank(_demo_reranker(3, 0.5), few, few, lr.decision_function(few.X))


def _warm_demo_table() -> None:
    _, test = _demo_data()
    metric_table(test.y, test.qid, {"any": test.X[:, 0]}, LETOR_METRICS.split(","))


#: what a first demo compiles before its steps, in worker processes side by side (longest first)
_DEMO_PARTS = {"λ objectives": _warm_demo_lambda, "re-ranker": _warm_demo_rerank, "RankNCG": _warm_demo_rankncg,
               "metrics": _warm_demo_table}


_SECOND_STAGES = {"exact": "a linear fit to DCG@5", "logistic": "a logistic regression on the top rows",
                  "blend": "the mean of a linear fit to DCG@5 and a top-rows logistic regression"}


def _rerank_in_words(result, k) -> str:
    """What the re-ranker kept, and its held-out evidence in the unit it is measured in."""
    gain = result.heldout_gain.get((result.model, result.k, result.l0)) if result.heldout_gain else None
    if result.status != "re-ranked":
        return (f"kept the base order (the logistic regression's ranking): no second stage gained on held-out "
                f"training queries ({result.reason})")
    unit = result.gate_metric or "the fitted statistic"
    evidence = ("" if gain is None else f"; held-out training lists' {unit} rose by {gain:+.3g} in all "
                f"(paired p = {result.p_value:.2g})")
    model = _SECOND_STAGES.get(result.model, f"its '{result.model}' second stage")
    return f"re-orders each list's top {result.k} by {model}{evidence}"
