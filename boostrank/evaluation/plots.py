"""Figures of evaluations and comparisons, written as PNG files.

Each function draws on its own matplotlib ``Figure`` (no pyplot state, any backend) and
returns the numbers it plotted, so what a figure shows can be checked.  matplotlib is the
``plot`` extra: ``pip install "boostrank[plot]"``.
"""

from __future__ import annotations

import os
from typing import Sequence

import numpy as np

from .._compat import require
from .evaluate import ranked_lists
from .report import Comparison

__all__ = ["plot_differences", "plot_systems", "plot_roc"]


def _figure(width=7.0, height=4.0):
    Figure = require("matplotlib.figure", "plot", "boostrank's plots").Figure
    return Figure(figsize=(width, height), layout="constrained")


def _pair(comparison: Comparison, metric: str, run: str | None, baseline: str | None):
    if metric not in comparison.metrics:
        raise ValueError(f"metric {metric!r} is not one of the comparison's {comparison.metrics}")
    pairs = comparison.pairs[metric]
    for p in pairs:
        if (run is None or p["run"] == run) and (baseline is None or p["baseline"] == baseline):
            return p
    raise ValueError(f"the comparison has no pair {baseline or '*'} → {run or '*'} on {metric}; its pairs are "
                     f"{[(p['baseline'], p['run']) for p in pairs]}")


def plot_differences(comparison: Comparison, metric: str, path, *, run: str | None = None,
                     baseline: str | None = None) -> dict:
    """Per-query differences of two runs (run − baseline), sorted, one bar per query.

    Parameters
    ----------
    comparison : Comparison
        From :func:`boostrank.compare`.
    metric : str
    path : str or path-like
        The PNG written.
    run, baseline : str, default=None
        The pair; by default the comparison's first pair.

    Returns
    -------
    dict
        ``{"queries": [...], "difference": ndarray}`` in the plotted (ascending) order.

    Examples
    --------
    >>> import os, tempfile, boostrank as br
    >>> qrels = {q: {"a": 1, "b": 0} for q in ("q1", "q2", "q3")}
    >>> first = {q: {"a": 0.9, "b": 0.1 if q != "q3" else 0.95} for q in qrels}
    >>> second = {q: {"a": 0.1, "b": 0.9} for q in qrels}
    >>> comparison = br.compare(qrels, {"first": first, "second": second}, ["P_1"])
    >>> plot_differences(comparison, "P_1", os.path.join(tempfile.mkdtemp(), "p1.png"))["difference"].tolist()
    [-1.0, -1.0, 0.0]
    """
    pair = _pair(comparison, metric, run, baseline)
    data = comparison.per_query[metric]
    diff = data[pair["run"]] - data[pair["baseline"]]
    order = np.argsort(diff, kind="stable")
    fig = _figure()
    ax = fig.add_subplot()
    colours = np.where(diff[order] > 0, "tab:green", np.where(diff[order] < 0, "tab:red", "tab:gray"))
    ax.bar(np.arange(diff.size), diff[order], width=1.0, color=colours)
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.axhline(float(diff.mean()) if diff.size else 0.0, color="tab:blue", linestyle="--",
               label=f"mean {pair['diff']:+.4f} (p adj {pair['p_adjusted']:.3g})")
    ax.set_xlabel(f"queries, sorted ({pair['wins']} wins / {pair['ties']} ties / {pair['losses']} losses)")
    ax.set_ylabel(f"{metric}: {pair['run']} − {pair['baseline']}")
    ax.legend(loc="upper left")
    fig.savefig(os.fspath(path), dpi=110)
    return {"queries": [data["queries"][i] for i in order.tolist()], "difference": diff[order]}


def plot_systems(comparison: Comparison, path, *, metrics: Sequence[str] | None = None) -> dict:
    """Each run's mean with its 95 % interval, one group of bars per metric.

    Parameters
    ----------
    comparison : Comparison
    path : str or path-like
    metrics : sequence of str, default=None
        Default: all of the comparison's.

    Returns
    -------
    dict
        ``{metric: {run: (mean, ci_low, ci_high)}}`` as plotted.

    Examples
    --------
    >>> import os, tempfile, boostrank as br
    >>> qrels = {q: {"a": 1, "b": 0} for q in ("q1", "q2", "q3")}
    >>> first = {q: {"a": 0.9, "b": 0.1 if q != "q3" else 0.95} for q in qrels}
    >>> second = {q: {"a": 0.1, "b": 0.9} for q in qrels}
    >>> comparison = br.compare(qrels, {"first": first, "second": second}, ["P_1"])
    >>> sorted(plot_systems(comparison, os.path.join(tempfile.mkdtemp(), "systems.png"))["P_1"])
    ['first', 'second']
    """
    metrics = list(comparison.metrics if metrics is None else metrics)
    for m in metrics:
        _pair(comparison, m, None, None)
    runs = comparison.runs
    fig = _figure(max(5.0, 1.2 * len(metrics) * len(runs) / 2 + 3), 4.0)
    ax = fig.add_subplot()
    width = 0.8 / len(runs)
    shown: dict = {m: {} for m in metrics}
    for j, r in enumerate(runs):
        s = [comparison.summary[m][r] for m in metrics]
        mean = np.array([v["mean"] for v in s])
        lo = np.array([v["ci_low"] for v in s])
        hi = np.array([v["ci_high"] for v in s])
        for m, a, b, c in zip(metrics, mean.tolist(), lo.tolist(), hi.tolist()):
            shown[m][r] = (a, b, c)
        x = np.arange(len(metrics)) + (j - (len(runs) - 1) / 2) * width
        ax.bar(x, mean, width=width, label=r, yerr=np.vstack([mean - lo, hi - mean]), capsize=3)
    ax.set_xticks(np.arange(len(metrics)), metrics)
    ax.set_ylabel("mean over queries (95 % interval)")
    ax.legend()
    fig.savefig(os.fspath(path), dpi=110)
    return shown


def plot_roc(truth, run, path, *, max_queries: int = 20) -> dict:
    """ROC curves of a run: each query's (up to ``max_queries``) and the pooled one.

    Relevant means grade > 0.  A query's curve is over its retrieved documents, its area the
    query's AUC (ties counted half, :func:`boostrank.auc`).  The pooled curve ranks every
    document of the queries with both classes together, so it compares scores across
    queries; its area is not the mean per-query AUC, which the legend reports beside it.

    Parameters
    ----------
    truth, run
        As :func:`boostrank.evaluate` takes them.
    path : str or path-like
    max_queries : int, default=20

    Returns
    -------
    dict
        ``{"pooled": (fpr, tpr, area), "per_query": {qid: (fpr, tpr, area)}, "mean_auc": float}``.

    Examples
    --------
    >>> import os, tempfile
    >>> from boostrank import Run
    >>> qrels = {q: {"a": 1, "b": 0, "c": 0} for q in ("q1", "q2", "q3")}
    >>> run = Run.from_dict({q: {"a": 0.9, "b": 0.3, "c": 0.5} for q in qrels}, name="dense")
    >>> plot_roc(qrels, run, os.path.join(tempfile.mkdtemp(), "roc.png"))["mean_auc"]
    1.0
    """
    from sklearn.metrics import auc as area, roc_curve

    lists = ranked_lists(truth, run)
    per_query = {}
    pooled_y, pooled_s = [], []
    for g, q in enumerate(lists.queries):
        y = lists.rel[lists.offsets[g]:lists.offsets[g + 1]] > 0
        s = lists.score[lists.offsets[g]:lists.offsets[g + 1]]
        if y.all() or not y.any():
            continue
        fpr, tpr, _ = roc_curve(y, s)
        per_query[q] = (fpr, tpr, float(area(fpr, tpr)))
        pooled_y.append(y)
        pooled_s.append(s)
    if not per_query:
        raise ValueError("no query has both relevant and non-relevant retrieved documents: no ROC curve")
    fpr, tpr, _ = roc_curve(np.concatenate(pooled_y), np.concatenate(pooled_s))
    pooled = (fpr, tpr, float(area(fpr, tpr)))
    mean_auc = float(np.mean([v[2] for v in per_query.values()]))
    fig = _figure(5.0, 5.0)
    ax = fig.add_subplot()
    for q in list(per_query)[:max_queries]:
        ax.plot(per_query[q][0], per_query[q][1], color="tab:gray", alpha=0.4, linewidth=0.8)
    ax.plot(fpr, tpr, color="tab:blue", linewidth=2, label=f"pooled, area {pooled[2]:.4f}")
    ax.plot([], [], color="tab:gray", label=f"{min(max_queries, len(per_query))} of {len(per_query)} queries; "
                                           f"mean AUC {mean_auc:.4f}")
    ax.plot([0, 1], [0, 1], color="black", linestyle=":", linewidth=0.8)
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_title(f"ROC of {getattr(run, 'name', run if isinstance(run, (str, os.PathLike)) else 'the run')}")
    ax.legend(loc="lower right")
    fig.savefig(os.fspath(path), dpi=110)
    return {"pooled": pooled, "per_query": per_query, "mean_auc": mean_auc}
