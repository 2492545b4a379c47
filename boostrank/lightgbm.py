"""LightGBM adapters: λ objectives and eval metrics in both of LightGBM's call forms.

``lgb.train(params={"objective": obj})`` calls ``obj(preds, train_data)``;
``LGBMRanker(objective=obj)`` counts the callable's parameters and, for four, calls
``obj(y_true, y_pred, weight, group)`` (a ``*args`` wrapper would never receive
``group``, LightGBM issue 7018).  One callable with four parameters serves both.

:func:`train_ranker` is what :class:`boostrank.LambdaRanker` and the Dask helpers
run: everything boostrank knows about LightGBM lives in this module.
"""

from __future__ import annotations

import difflib
import functools

import numpy as np

from ._validation import group_offsets
from .objectives import OBJECTIVE_NAMES, EvalMetric, LambdaObjective

__all__ = ["lightgbm_objective", "lightgbm_metric", "LightGBMObjective", "LightGBMMetric", "train_ranker",
           "check_lightgbm_model_file",
           "check_params", "sklearn_params", "NATIVE_OBJECTIVES"]

#: LightGBM's own ranking objectives, accepted by name.
NATIVE_OBJECTIVES = ("lambdarank", "rank_xendcg")


def _unpack(a, b, c, d):
    """(key, scores, loader) from either call form; the loader runs on cache misses."""
    if hasattr(b, "get_group"):  # lgb.train: (preds, Dataset)
        def load():
            sizes = b.get_group()
            labels = b.get_label()
            off = None if sizes is None else group_offsets(len(labels), group=sizes)
            return labels, off, b.get_weight()
        return b, a, load

    def load():  # LGBMRanker: (y_true, y_pred, weight, group)
        return a, None if d is None else group_offsets(len(a), group=d), c
    return a, b, load


#: λ kernel threads under LightGBM: all of Numba's (both share one OpenMP runtime; see lightgbm_objective)
OBJECTIVE_THREADS = -1


#: LightGBM's names of its thread count
_THREAD_ALIASES = ("num_threads", "num_thread", "nthread", "nthreads", "n_jobs")


def _engine_threads(train_data, default):
    """The λ kernels' threads: the engine's own count when the user set one (a Dataset carries lgb.train's
    params), else ``default``.  Under load, all of Numba's threads against one engine thread made each 70 µs
    call wait for descheduled threads (MQ2008: 2.7x lambdarank's round against 0.93x; MEASUREMENTS "threads")."""
    params = getattr(train_data, "params", None) or {}
    for name in _THREAD_ALIASES:
        value = params.get(name)
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value > 0:
            return int(value)
    return default


class LightGBMObjective:
    """λ objective for LightGBM; build it with :func:`lightgbm_objective`."""

    def __init__(self, objective: LambdaObjective):
        self.objective = objective

    def __repr__(self):
        return f"lightgbm_objective({self.objective.metric!r})"

    def __call__(self, preds, train_data, weight=None, group=None):
        # float32, LightGBM's gradient type: its cast of float64 output costs a round 3.6 ms at 10⁶ rows
        key, scores, load = _unpack(preds, train_data, weight, group)
        prep = self.objective.prepared(key, load)
        work = prep[-1]
        if "n_jobs" not in work:
            work["n_jobs"] = _engine_threads(train_data, self.objective.n_jobs)
        return self.objective.gradients(scores, prep, dtype=np.float32)


class LightGBMMetric:
    """Eval metric for LightGBM (higher is better); build it with :func:`lightgbm_metric`."""

    def __init__(self, metric: EvalMetric):
        self.metric = metric

    @property
    def name(self) -> str:
        """The name LightGBM logs: ``br_`` and the metric (``br_auc``), never one of LightGBM's own."""
        return self.metric.engine_name

    def __call__(self, preds, eval_data, weight=None, group=None):
        key, scores, load = _unpack(preds, eval_data, weight, group)
        return self.metric.engine_name, self.metric.value(key, scores, load), True


def lightgbm_objective(metric: str = "auc", **kw) -> LightGBMObjective:
    """λ-AUC / λ-MAUC / λ-NDCG objective for ``lgb.train`` and ``LGBMRanker``.

    Parameters
    ----------
    metric : {"auc", "mauc", "ndcg"}, default="auc"
    **kw
        ``sigma``, ``threshold``, ``link``, ... of :class:`boostrank.objectives.LambdaObjective`.
        ``n_jobs`` defaults to −1 (all of Numba's threads): LightGBM and Numba share one
        OpenMP runtime, so the kernels' threads do not compete with LightGBM's.

    Returns
    -------
    LightGBMObjective
        Use as ``lgb.train({"objective": obj, ...}, ds)`` or ``LGBMRanker(objective=obj)``.
        Groups come from the Dataset (``group=``); without them the data is one list.
        It returns float32 arrays (LightGBM's gradient type), reused by its next call;
        :func:`boostrank.lambda_gradients` gives float64 copies.

    Examples
    --------
    >>> import lightgbm as lgb, numpy as np
    >>> X, y = np.random.default_rng(0).normal(size=(40, 3)), np.tile([1, 0, 0, 0], 10)
    >>> ds = lgb.Dataset(X, y, group=[4] * 10)
    >>> params = {"objective": lightgbm_objective("auc"), "verbose": -1, "min_data_in_leaf": 2}
    >>> booster = lgb.train(params, ds, num_boost_round=3)
    """
    kw.setdefault("n_jobs", OBJECTIVE_THREADS)
    return LightGBMObjective(LambdaObjective(metric, **kw))


def lightgbm_metric(name: str = "auc") -> LightGBMMetric:
    """Eval metric for ``lgb.train(feval=...)`` and ``LGBMRanker.fit(eval_metric=...)``.

    Parameters
    ----------
    name : str, default="auc"
        ``"auc"``, ``"auc_pessimistic"``, ``"mauc"``, or a :func:`boostrank.get_metric`
        name (``"ndcg@10"``, ``"map"``, ``"err@10"``, ...); averaged over the queries.

    Returns
    -------
    LightGBMMetric
        Logs as ``br_<name>`` (``br_auc``), so it never merges with LightGBM's own
        ``auc`` in ``record_evaluation``; higher is better.

    Notes
    -----
    ``LGBMRanker`` evaluates its default ``ndcg`` as well; to make early stopping
    follow this metric, pass ``metric="None"`` and ``first_metric_only=True`` to
    ``lgb.early_stopping``.
    """
    return LightGBMMetric(EvalMetric(name))


@functools.lru_cache(maxsize=1)
def _known_params() -> frozenset:
    try:  # LightGBM has no public list; its alias table names every parameter
        from lightgbm.basic import _ConfigAliases

        table = _ConfigAliases._get_all_param_aliases()
    except Exception:  # pragma: no cover - a LightGBM without the table: no check
        return frozenset()
    return frozenset(table) | frozenset(a for aliases in table.values() for a in aliases)


def check_params(params: dict) -> None:
    """Refuse parameter names LightGBM does not know (it would only log a warning).

    Raises
    ------
    ValueError
        Naming each unknown parameter and the closest LightGBM parameter.
    """
    known = _known_params()
    if not known:
        return
    bad = [k for k in params if k not in known]
    if bad:
        hints = [f"{k!r}" + (f" (did you mean {m[0]!r}?)" if (m := difflib.get_close_matches(k, known, 1)) else "")
                 for k in bad]
        raise ValueError(f"unknown LightGBM parameter(s): {', '.join(hints)}")


#: grades LightGBM's own lambdarank takes without a label_gain (its default gain table: 2^l − 1, l < 31)
NATIVE_MAX_GRADE = 30


def _check_native_labels(objective, y, params) -> None:
    """LightGBM's lambdarank reads labels as indices of its gain table: say what to do before its C++ error does."""
    if objective != "lambdarank" or not y.size:
        return
    bad = np.flatnonzero((y != np.round(y)) | (y < 0))
    if bad.size:
        raise ValueError(f"objective={objective!r} needs non-negative integer grades; got {y[bad[0]]!r}")
    gains = params.get("label_gain")
    limit = NATIVE_MAX_GRADE if gains is None else len(gains) - 1
    if y.max() > limit:
        raise ValueError(f"labels reach {int(y.max())} but LightGBM's {objective} has gains for grades up to {limit} "
                         f"(its label_gain); pass label_gain with one gain per grade, or objective='ndcg' "
                         f"(boostrank's λ-NDCG, gains up to grade 60) or 'mauc'")


def train_ranker(X, y, offsets, *, objective, params: dict, n_estimators: int, sample_weight=None,
                 evals=(), metrics=(), early_stopping_rounds=None, progress=None):
    """Train a LightGBM ranker on query groups with a boostrank or native objective.

    Parameters
    ----------
    X : array-like, sparse matrix or pandas DataFrame
        DataFrames keep their column names and categorical columns (LightGBM's own rules).
    y : ndarray
    offsets : ndarray of int64
        Query offsets (:func:`boostrank._validation.group_offsets`).
    objective : str or LambdaObjective
        A boostrank objective, or one of :data:`NATIVE_OBJECTIVES`.
    params : dict
        LightGBM parameters (checked by :func:`check_params`).
    n_estimators : int
    sample_weight : array-like, default=None
        One weight per row.
    evals : sequence of (name, X, y, offsets)
    metrics : sequence of str
        boostrank metric names evaluated on ``evals``; the first drives early stopping.
    early_stopping_rounds : int, default=None
    progress : callable, default=None
        Called after every round with a short text of the last evaluation.

    Returns
    -------
    booster, evals_result, best_iteration
        ``best_iteration`` counts rounds from 1 (LightGBM's convention), None without
        early stopping.
    """
    import lightgbm as lgb

    check_params(params)
    _check_native_labels(objective, y, params)
    # without the pre-filter a set too small for min_data_in_leaf trains constant trees instead of
    # failing "num_features() > 0" when LightGBM swaps in the callable objective
    train = lgb.Dataset(X, y, group=np.diff(offsets), weight=sample_weight, free_raw_data=False,
                        params={"feature_pre_filter": False})
    valid = [lgb.Dataset(Xe, ye, group=np.diff(oe), reference=train, params={"feature_pre_filter": False})
             for _, Xe, ye, oe in evals]
    base = {"verbose": -1, "metric": "None",
            "objective": LightGBMObjective(objective) if isinstance(objective, LambdaObjective) else objective}
    fevals = [lightgbm_metric(m) for m in metrics] if valid else None
    record: dict = {}
    callbacks = [lgb.record_evaluation(record)]
    if progress is not None:
        callbacks.append(lambda env: progress(" ".join(
            f"{d}:{n}={v:.4f}" for d, n, v, *_ in env.evaluation_result_list[-1:])))
    stop = bool(early_stopping_rounds) and bool(valid)
    if stop:
        callbacks.append(lgb.early_stopping(early_stopping_rounds, first_metric_only=True, verbose=False))
    booster = lgb.train({**base, **params}, train, num_boost_round=n_estimators, valid_sets=valid,
                        valid_names=[e[0] for e in evals], feval=fevals, callbacks=callbacks)
    return booster, record, (booster.best_iteration if stop else None)


def with_saved_params(text: str, key: str, value: str) -> str:
    """A LightGBM text model with ``[key: value]`` in its parameters section (LightGBM keeps a line it
    does not know there and ignores it: loading and continued training are unchanged)."""
    if "\nparameters:\n" not in text:
        return text
    return text.replace("\nparameters:\n", f"\nparameters:\n[{key}: {value}]\n", 1)


def saved_param(path, key: str):
    """The value of a ``[key: value]`` line of a LightGBM text model's parameters section, or None."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    section = text.partition("\nparameters:\n")[2].partition("\nend of parameters")[0]
    prefix = f"[{key}: "
    for line in section.split("\n"):
        if line.startswith(prefix) and line.endswith("]"):
            return line[len(prefix):-1]
    return None


def portable_model_string(booster) -> str:
    """The booster's text model, labelled ``objective=lambdarank`` when it was trained with a callable.

    LightGBM writes no objective for a callable one (``[objective: custom]``), and the
    converters refuse such files (onnxmltools: "Unsupported LightGbm objective: 'none'").
    lambdarank's output is the raw score, as ours is, so predictions are unchanged.
    """
    text = booster.model_to_string()
    header, sep, rest = text.partition("\nTree=")
    if "\nobjective=" in header:
        return text
    lines = header.split("\n")
    at = next((i + 1 for i, ln in enumerate(lines) if ln.startswith("max_feature_idx=")), len(lines))
    lines.insert(at, "objective=lambdarank")
    return "\n".join(lines) + sep + rest.replace("\n[objective: custom]\n", "\n[objective: lambdarank]\n", 1)


def sklearn_params(learning_rate, random_state=None, n_jobs=None) -> dict:
    """scikit-learn's names (``learning_rate``, ``random_state``, ``n_jobs``) as LightGBM parameters."""
    params = {"learning_rate": learning_rate}
    if random_state is not None:
        params["seed"] = random_state
    if n_jobs is not None:
        params["num_threads"] = n_jobs
    return params


