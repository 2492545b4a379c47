"""LightGBM adapters: λ objectives and eval metrics in both of LightGBM's call forms.

``lgb.train(params={"objective": obj})`` calls ``obj(preds, train_data)``;
``LGBMRanker(objective=obj)`` counts the callable's parameters and, for four, calls
``obj(y_true, y_pred, weight, group)`` (a ``*args`` wrapper would never receive
``group``: https://github.com/microsoft/LightGBM/issues/7018).  One callable with four parameters serves both.

:func:`train_ranker` is what :class:`boostrank.LambdaRanker` and the Dask helpers
run: everything boostrank knows about LightGBM lives in this module.
"""

from __future__ import annotations

import difflib
import functools
import sys

import numpy as np

from .._compat import lightgbm_param_aliases
from .._validation import group_offsets
from ..objectives.eval_metric import EvalMetric, bound_metric
from ..objectives.state import LambdaState
from ..objectives.objective import LambdaObjective
from .trees import (MISSING_NAN, MISSING_NONE, MISSING_ZERO, ZERO_THRESHOLD, Forest, Tree,
                    deep_call)

__all__ = ["lightgbm_objective", "lightgbm_metric", "LightGBMObjective", "LightGBMMetric", "train_ranker",
           "check_params", "sklearn_params", "NATIVE_OBJECTIVES"]

#: LightGBM's own ranking objectives, accepted by name.
NATIVE_OBJECTIVES = ("lambdarank", "rank_xendcg")


def _unpack(a, b, c, d):
    """(data object, scores, loader) from either call form; the loader runs when the data object is new and
    gives (labels, offsets, weights, positions)."""
    if hasattr(b, "get_group"):  # lgb.train: (preds, Dataset)
        def load():
            sizes = b.get_group()
            labels = b.get_label()
            off = None if sizes is None else group_offsets(len(labels), group=sizes)
            position = b.get_position() if hasattr(b, "get_position") else None  # LightGBM 4.1 on
            return labels, off, b.get_weight(), position
        return b, a, load

    def load():  # LGBMRanker: (y_true, y_pred, weight, group)
        return a, None if d is None else group_offsets(len(a), group=d), c, None
    return a, b, load


#: λ kernel threads under LightGBM when neither the user nor the Dataset sets a count: the objective's size rule
#: (one thread below ``PARALLEL_MIN_ROWS`` rows, all of Numba's above; benchmarks/threads.py, "under load")
OBJECTIVE_THREADS = None


#: LightGBM's names of lambdarank's parameters, honoured by boostrank's objectives on either engine
OBJECTIVE_ALIASES = {"lambdarank_truncation_level": "truncation_level", "label_gain": "label_gain",
                     "lambdarank_norm": "norm", "sigmoid": "sigma"}
#: LightGBM's (and XGBoost's) parameters that only the engines' own ranking objectives read: with boostrank's
#: objectives they would do nothing
NATIVE_ONLY_PARAMS = {"lambdarank_position_bias_regularization", "objective_seed", "lambdarank_pair_method",
                      "lambdarank_num_pair_per_sample", "lambdarank_unbiased", "lambdarank_bias_norm",
                      "ndcg_exp_gain", "lambdarank_score_normalization"}

#: LightGBM's names of its thread count
_THREAD_ALIASES = ("num_threads", "num_thread", "nthread", "nthreads", "n_jobs")


def objective_threads(n_jobs) -> int | None:
    """The λ kernels' threads under LightGBM: the engine's own count when the user set one, else the objective's
    size rule (a list batch too small to split waits, under load, for descheduled threads each round)."""
    return int(n_jobs) if _positive(n_jobs) else OBJECTIVE_THREADS


def _dataset_threads(train_data, default):
    """:func:`objective_threads` of the parameters ``lgb.train`` gave the Dataset (none in ``LGBMRanker``'s form)."""
    params = getattr(train_data, "params", None) or {}
    for name in _THREAD_ALIASES:
        if _positive(params.get(name)):
            return int(params[name])
    return default


def _row_order(offsets, n: int) -> np.ndarray:
    """Each row's place in its query: its position when the rows are in the order they were shown."""
    starts = offsets if offsets is not None else np.array([0, n])
    return np.arange(n) - np.repeat(starts[:-1], np.diff(starts))


def _dataset_learning_rate(train_data) -> float:
    """The learning rate ``lgb.train`` gave the Dataset (0.1, LightGBM's default, when it gave none)."""
    params = getattr(train_data, "params", None) or {}
    for name in ("learning_rate", "shrinkage_rate", "eta"):
        if isinstance(params.get(name), (int, float)) and params[name] > 0:
            return float(params[name])
    return 0.1


def _positive(n) -> bool:
    return isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n > 0


class LightGBMObjective:
    """λ objective for LightGBM; build it with :func:`lightgbm_objective`.

    It binds the objective to the training data on its first call (and again when handed other data).
    """

    def __init__(self, objective: LambdaObjective, position=None):
        self.objective = objective
        self.position = position
        self._bound: tuple | None = None

    def __repr__(self):
        return f"lightgbm_objective({self.objective.metric!r})"

    def __call__(self, preds, train_data, weight=None, group=None):
        key, scores, load = _unpack(preds, train_data, weight, group)
        if self._bound is None or self._bound[0] is not key:
            labels, offsets, w, position = load()
            if self.position is not None:
                position = self.position if not isinstance(self.position, str) else _row_order(offsets, len(labels))
            threads = _dataset_threads(train_data, self.objective.n_jobs)
            self._bound = (key, self.objective.bind(labels, offsets, w, n_jobs=threads, position=position,
                                                    learning_rate=_dataset_learning_rate(train_data)))
        # float32, LightGBM's gradient type: its cast of float64 output costs a round a fresh allocation
        return self._bound[1].gradients(scores, dtype=np.float32)


class LightGBMMetric:
    """Eval metric for LightGBM (higher is better); build it with :func:`lightgbm_metric`."""

    def __init__(self, metric: EvalMetric):
        self.metric = metric
        self._bound: list = []

    @property
    def name(self) -> str:
        """The name LightGBM logs: ``br_`` and the metric (``br_auc``), never one of LightGBM's own."""
        return self.metric.engine_name

    def __call__(self, preds, eval_data, weight=None, group=None):
        key, scores, load = _unpack(preds, eval_data, weight, group)
        return self.metric.engine_name, bound_metric(self._bound, self.metric, key, load).value(scores), True


def lightgbm_objective(metric: str = "auc", *, position=None, **kw) -> LightGBMObjective:
    """λ-AUC / λ-MAUC / λ-NDCG objective for ``lgb.train`` and ``LGBMRanker``.

    Parameters
    ----------
    metric : {"auc", "mauc", "ndcg"}, default="auc"
    position : array-like of int or "order", default=None
        Click feedback: each training row's 0-based display rank, or ``"order"``: each query's rows
        are in the order they were shown; by default the Dataset's own (``lgb.Dataset(position=...)``
        or a ``.position`` file).  The position bias is then corrected as ``position_bias`` says.
    **kw
        ``sigma``, ``threshold``, ``link``, ... of :class:`boostrank.objectives.objective.LambdaObjective`.
        ``n_jobs``: the λ kernels' threads.  By default the ``num_threads`` that ``lgb.train``
        gives the Dataset, when it gives one (a Dataset constructed beforehand keeps none: pass
        ``n_jobs`` with your ``num_threads`` then), else one thread below 200 000 rows and
        all of Numba's above.

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
    return LightGBMObjective(LambdaObjective(metric, **kw), position)


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

    Examples
    --------
    >>> import lightgbm as lgb, numpy as np
    >>> X, y = np.random.default_rng(0).normal(size=(40, 3)), np.tile([1, 0, 0, 0], 10)
    >>> ds, history = lgb.Dataset(X, y, group=[4] * 10), {}
    >>> params = {"objective": lightgbm_objective("auc"), "verbose": -1, "min_data_in_leaf": 2, "metric": "None"}
    >>> booster = lgb.train(params, ds, 3, valid_sets=[ds], valid_names=["train"], feval=lightgbm_metric("auc"),
    ...                     callbacks=[lgb.record_evaluation(history)])
    >>> len(history["train"]["br_auc"])
    3
    """
    return LightGBMMetric(EvalMetric(name))


@functools.lru_cache(maxsize=1)
def _known_params() -> frozenset:
    table = lightgbm_param_aliases()  # LightGBM has no public list; its alias table names every parameter
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


def train_ranker(data, *, objective, params: dict, n_estimators: int, evals=(), metrics=(),
                 early_stopping_rounds=None, progress=None):
    """Train a LightGBM ranker on query groups with a boostrank or native objective.

    Parameters
    ----------
    data : RankingData
        The fit's validated data (:class:`boostrank._validation.RankingData`): features (DataFrames keep
        their column names and categorical columns, LightGBM's own rules), labels, query groups and one
        weight per row.
    objective : str or LambdaState
        A boostrank objective bound to ``y`` (:meth:`LambdaObjective.bind`), or one of :data:`NATIVE_OBJECTIVES`.
    params : dict
        LightGBM parameters (checked by :func:`check_params`).
    n_estimators : int
    evals : sequence of (name, RankingData)
    metrics : sequence of EvalMetric
        Evaluated on ``evals``; the first drives early stopping.
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
    _check_native_labels(objective, data.y, params)
    # without the pre-filter a set too small for min_data_in_leaf trains constant trees instead of
    # failing "num_features() > 0" when LightGBM swaps in the callable objective
    # LightGBM's own correction of lambdarank reads the positions from the Dataset; boostrank's λs hold them
    position = data.position if isinstance(objective, str) else None
    train = lgb.Dataset(data.X, data.y, group=np.diff(data.starts), weight=data.sample_weight, free_raw_data=False,
                        params={"feature_pre_filter": False}, position=position)
    valid = [lgb.Dataset(e.X, e.y, group=np.diff(e.starts), reference=train, params={"feature_pre_filter": False})
             for _, e in evals]
    base = {"verbose": -1, "metric": "None", "objective": _fobj(objective)}
    record: dict = {}
    callbacks = [lgb.record_evaluation(record)]
    if progress is not None:
        callbacks.append(lambda env: progress(" ".join(
            f"{d}:{n}={v:.4f}" for d, n, v, *_ in env.evaluation_result_list[-1:])))
    stop = bool(early_stopping_rounds) and bool(valid)
    if stop:
        callbacks.append(lgb.early_stopping(early_stopping_rounds, first_metric_only=True, verbose=False))
    booster = lgb.train({**base, **params}, train, num_boost_round=n_estimators, valid_sets=valid,
                        valid_names=[e[0] for e in evals], feval=_feval(valid, evals, metrics), callbacks=callbacks)
    return booster, record, (booster.best_iteration if stop else None)


def _fobj(objective):
    """The callable ``lgb.train`` calls every round, closing over the bound state (``lgb.train`` deep-copies its
    parameters, and a function is copied as itself), or a native objective's name."""
    if not isinstance(objective, LambdaState):
        return objective

    def fobj(preds, train_data):
        return objective.gradients(preds, dtype=np.float32)

    return fobj


def _feval(valid, evals, metrics):
    """One ``feval`` for every eval set, the metrics bound to each set's labels once."""
    if not valid:
        return None
    bound = [[m.bind(e.y, e.offsets) for m in metrics] for _, e in evals]

    def feval(preds, eval_data):
        k = next(i for i, d in enumerate(valid) if d is eval_data)
        return [(b.metric.engine_name, b.value(preds), True) for b in bound[k]]

    return feval


def with_saved_params(text: str, key: str, value: str) -> str:
    """A LightGBM text model with the line ``key: value`` after its parameters section.

    LightGBM's loader reads nothing past ``end of parameters`` (its Python package reads the
    last line, ``pandas_categorical:``), so loading, prediction and continued training are
    unchanged and no "Ignoring unrecognized parameter" is printed, as it is for a line inside the
    section.
    """
    marker = "\nend of parameters\n"
    if marker not in text or "\n" in value:
        return text
    return text.replace(marker, f"{marker}\n{key}: {value}\n", 1)


def saved_param(path, key: str):
    """The value of the ``key: value`` line :func:`with_saved_params` wrote into a LightGBM text model, or None."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    tail = text.partition("\nend of parameters\n")[2]
    prefix = f"{key}: "
    for line in tail.split("\n"):
        if line.startswith(prefix):
            return line[len(prefix):]
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


def sklearn_params(learning_rate, random_state=None, n_jobs=None, log=False) -> dict:
    """scikit-learn's names (``learning_rate``, ``random_state``, ``n_jobs``) as LightGBM parameters;
    ``log``: the engine's own log on (``verbose=2`` of the estimators)."""
    params = {"learning_rate": learning_rate}
    if random_state is not None:
        params["seed"] = random_state
    if n_jobs is not None:
        params["num_threads"] = n_jobs
    if log:
        params["verbose"] = 1
    return params




# ------------------------------------------------------------------ the engine interface
# What LambdaRanker, DaskLambdaRanker, the re-ranker, the model files and the exporters ask of an engine;
# boostrank.xgboost answers the same questions for XGBoost.

NAME = "lightgbm"
#: sample weights are per row (XGBoost's ranking weights are per query)
PER_QUERY_WEIGHTS = False
#: LightGBM compares the double features with its double thresholds
FEATURES_AS_FLOAT32 = False


def n_rounds(booster) -> int:
    """Boosting rounds in the model."""
    return booster.current_iteration()


def best_iteration(best):
    """The engine's best round (``best_iteration``, counted from 1) as ``best_iteration_`` counts it."""
    return best


def importances(booster, n_features: int) -> np.ndarray:
    """``feature_importances_``: split counts, as ``LGBMRanker``'s default."""
    return booster.feature_importance(importance_type="split")


def predict(booster, X, best_iteration=None) -> np.ndarray:
    """Raw scores with the first ``best_iteration`` rounds (all when None)."""
    return booster.predict(X, num_iteration=best_iteration)


def round_scores(booster, X):
    """A function of r giving round r's trees' raw contribution to each row's score."""
    return lambda r: booster.predict(X, start_iteration=r, num_iteration=1, raw_score=True)


def save_model(booster, path, key: str, saved: str, custom_objective: bool) -> None:
    """The text model (labelled ``objective=lambdarank`` when trained with a callable) with ``saved`` under ``key``."""
    text = with_saved_params(portable_model_string(booster), key, saved)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


def writes(head: str) -> bool:
    """Whether a model file beginning with ``head`` is LightGBM's (its text format opens with ``tree``)."""
    return head.startswith("tree")


def load_model(path, key: str):
    """(booster, n_features, feature names, best_iteration_, the text saved under ``key`` or None), after the
    file's checks (the file ends at the best round)."""
    import lightgbm as lgb

    from .model_files import check_lightgbm_model_file

    _one_output(check_lightgbm_model_file(path), path)
    try:
        booster = lgb.Booster(model_file=str(path))
    except lgb.basic.LightGBMError as exc:
        raise ValueError(f"{path}: damaged LightGBM model file ({str(exc).strip()[:200]})") from None
    return booster, booster.num_feature(), booster.feature_name(), None, saved_param(path, key)


def _one_output(outputs: int, path) -> None:
    if outputs != 1:
        raise ValueError(f"{path}: a model with {outputs} outputs per row (several classes or targets) is not a "
                         f"ranking model")


def refit_params(booster) -> tuple[str, dict]:
    """(objective, LambdaRanker keywords) that train a model like ``booster`` again; a callable objective
    (``custom``) is refitted with boostrank's λ-AUC."""
    import re

    params = booster.dump_model(num_iteration=0).get("objective", "") or ""
    text = booster.model_to_string(num_iteration=0)
    found = dict(re.findall(r"^\[(\w+): ([^\]]*)\]$", text, flags=re.M))
    objective = params.split()[0] if params else found.get("objective", "custom")
    kw = dict(n_estimators=max(1, booster.num_trees() // max(1, booster.num_model_per_iteration())),
              learning_rate=float(found.get("learning_rate", 0.1)))
    if "num_leaves" in found:
        kw["num_leaves"] = int(found["num_leaves"])
    if "min_data_in_leaf" in found:
        kw["min_child_samples"] = int(found["min_data_in_leaf"])
    return ("auc" if objective == "custom" else objective), kw


def dask_params(objective: str, engine_params: dict, *, learning_rate, random_state, n_jobs) -> dict:
    """The engine parameters of a Dask fit, checked before the cluster sees them (``DaskLGBMRanker`` takes
    the others by their scikit-learn names)."""
    check_params(engine_params)
    return engine_params


def dask_train(client, frame, features, columns, group_sizes, objective, engine_params, *, n_estimators,
               learning_rate, random_state, n_jobs, positions=False):
    """Train on a Dask frame with whole queries per partition (``DaskLGBMRanker``); returns the booster.

    ``columns`` names the label, query and weight columns; ``group_sizes(frame, qid_column)`` gives the
    query sizes LightGBM takes; ``positions``: each query's rows are in display order (click feedback)."""
    import lightgbm as lgb

    label, qid, weight = columns
    model = lgb.DaskLGBMRanker(
        client=client, objective=LightGBMObjective(objective, "order" if positions else None)
        if isinstance(objective, LambdaObjective)
        else objective, n_estimators=n_estimators, learning_rate=learning_rate,
        random_state=random_state, verbose=-1, **engine_params)  # Dask sets the threads per worker
    model.fit(frame[features], frame[label], group=group_sizes(frame, qid),
              sample_weight=frame[weight] if weight in frame.columns else None)
    return model.booster_


def forest(booster, rounds=None):
    """The model's trees (its first ``rounds`` rounds) as a :class:`~boostrank.trees.Forest`; refuses what a tree
    export cannot hold (several outputs per round, linear trees, categorical splits)."""
    dump = deep_call(lambda: booster.dump_model(num_iteration=rounds))
    if dump.get("num_tree_per_iteration", 1) != 1:
        raise ValueError(f"the model has {dump['num_tree_per_iteration']} trees per round (multi-class or "
                         f"multi-output); a search engine's tree model scores one output: train one ranker")
    if booster.params.get("linear_tree") or any(t.get("is_linear") for t in dump["tree_info"]):
        raise ValueError("the model has linear trees (linear_tree=True): their leaves are linear models, which the "
                         "engines' tree formats cannot hold; train with linear_tree=False")
    objective = (str(dump.get("objective") or "custom").split() or ["custom"])[0]
    trees = [_tree(info) for info in dump["tree_info"]]
    if any((np.abs(t.threshold) >= 1e300).any() for t in trees):
        # dump_model writes a threshold at or past 1e300 as 1e300 (Common::AvoidInf); LightGBM's own is +inf
        # (the last bin's bound: every number goes left), which the model text keeps
        for tree, exact in zip(trees, _text_thresholds(booster.model_to_string(num_iteration=rounds))):
            far = np.flatnonzero(np.abs(tree.threshold) >= 1e300)
            tree.threshold[far] = exact[tree.split_index[far]]
    return Forest(trees=trees, engine=sys.modules[__name__], base=0.0,
                  n_features=dump["max_feature_idx"] + 1, feature_names=list(dump["feature_names"]),
                  objective=objective)


def _text_thresholds(text: str) -> list:
    """Per tree, the thresholds of the model text (``threshold=`` of each ``Tree=`` section, by split index)."""
    out = []
    for section in text.split("\nTree=")[1:]:
        line = next((ln for ln in section.splitlines() if ln.startswith("threshold=")), "threshold=")
        out.append(np.array([float(v) for v in line[len("threshold="):].split()], dtype=np.float64))
    return out


def _tree(info):
    """One tree of ``dump_model()`` as arrays, nodes numbered in preorder."""
    nodes: list = []
    children: dict = {}  # preorder position -> (left, right) positions
    stack = [(info["tree_structure"], None, 0)]  # (node, parent position, which child); a stack, no recursion
    while stack:
        node, parent, side = stack.pop()
        i = len(nodes)
        nodes.append(node)
        if parent is not None:
            children.setdefault(parent, [None, None])[side] = i
        if "leaf_value" not in node:
            if node["decision_type"] != "<=":
                raise ValueError(f"tree {info['tree_index']} has a categorical split (feature "
                                 f"{node['split_feature']}, '{node['decision_type']}'); export needs numerical "
                                 f"splits only: encode the category as numbers or leave it out")
            stack += [(node["right_child"], i, 1), (node["left_child"], i, 0)]
    kinds = {"None": MISSING_NONE, "Zero": MISSING_ZERO, "NaN": MISSING_NAN}
    split = ["leaf_value" not in n for n in nodes]
    return Tree(
        feature=np.array([n["split_feature"] if s else -1 for n, s in zip(nodes, split)], dtype=np.int64),
        threshold=np.array([float(n["threshold"]) if s else np.nan for n, s in zip(nodes, split)]),
        left=np.array([children[i][0] if s else -1 for i, s in enumerate(split)], dtype=np.int64),
        right=np.array([children[i][1] if s else -1 for i, s in enumerate(split)], dtype=np.int64),
        default_left=np.array([bool(n.get("default_left", False)) for n in nodes]),
        missing=np.array([kinds[n["missing_type"]] if s else 0 for n, s in zip(nodes, split)], dtype=np.int8),
        value=np.array([0.0 if s else float(n["leaf_value"]) for n, s in zip(nodes, split)]),
        leaf_id=np.array([-1 if s else int(n.get("leaf_index", 0)) for n, s in zip(nodes, split)], dtype=np.int64),
        split_index=np.array([n.get("split_index", -1) if s else -1 for n, s in zip(nodes, split)], dtype=np.int64))


def tree_inputs(X: np.ndarray) -> np.ndarray:
    """Rows as the trees see them: double."""
    return X


def route(tree, nodes: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Whether rows with values ``x`` at split ``nodes`` go left: ``x <= threshold`` after the missing-value rule
    (``missing_type`` None: NaN is 0; Zero: NaN and |x| <= kZeroThreshold take the default side; NaN: NaN does),
    |x| <= kZeroThreshold counting as 0 (LightGBM's dense rows leave such values out)."""
    nan = np.isnan(x)
    kind = tree.missing[nodes]
    x = np.where((nan & (kind != MISSING_NAN)) | (np.abs(x) <= ZERO_THRESHOLD), 0.0, x)
    default = (nan & (kind == MISSING_NAN)) | ((kind == MISSING_ZERO) & (x == 0.0))
    return np.where(default, tree.default_left[nodes], x <= tree.threshold[nodes])


def left_set(tree, node: int) -> tuple[float, bool, bool]:
    """(bound, inclusive, nan_left): a number goes left exactly when x <= bound (``inclusive``) or x < bound, and
    NaN when nan_left.  Raises for a zero-as-missing split that sends zeros against its threshold (no bound
    describes it)."""
    t = float(tree.threshold[node])
    if 0.0 <= t < ZERO_THRESHOLD:  # |x| <= kZeroThreshold reads as 0, which goes left
        bound, inclusive = ZERO_THRESHOLD, True
    elif -ZERO_THRESHOLD <= t < 0.0:  # ... which goes right
        bound, inclusive = -ZERO_THRESHOLD, False
    else:
        bound, inclusive = t, True
    kind = int(tree.missing[node])
    if kind == MISSING_NAN:
        return bound, inclusive, bool(tree.default_left[node])
    zero_left = 0.0 <= t
    if kind == MISSING_NONE:
        return bound, inclusive, zero_left
    if bool(tree.default_left[node]) != zero_left:
        raise ValueError(f"a split on feature {int(tree.feature[node])} treats zero as missing (zero_as_missing) "
                         f"and sends zeros to another side than its threshold {t!r} does: the engines' formats "
                         f"cannot express it; train with zero_as_missing=False")
    return bound, inclusive, zero_left


def booster_rounds(booster):
    """The rounds a Booster predicts with by default: its best iteration after early stopping, else all."""
    return booster.best_iteration if booster.best_iteration > 0 else None


def held_labels(y) -> np.ndarray:
    """The labels as the engine holds them (float32), in float64."""
    return np.asarray(y, dtype=np.float32).astype(np.float64)


def row_weights(sample_weight, offsets):
    """The weight of each row as the objective reads it from a Dataset: the rows' own, as float32."""
    return None if sample_weight is None else np.asarray(sample_weight, dtype=np.float32).astype(np.float64)
