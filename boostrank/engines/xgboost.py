"""XGBoost adapters: ``obj(predt, dtrain)`` for ``xgb.train(obj=...)`` and ``custom_metric``.

Query groups come from ``dtrain.get_uint_info("group_ptr")`` (uint32, cast to int64
before arithmetic); a DMatrix without groups is one list.  ``XGBRanker`` refuses
callable objectives: use :class:`boostrank.LambdaRanker` for a scikit-learn API.

:func:`train_ranker` is what :class:`boostrank.LambdaRanker` and the Dask helpers
run: everything boostrank knows about XGBoost (per-query weights, the
``min_child_weight`` its λ hessians need, one Numba thread beside XGBoost's
OpenMP) lives in this module.  XGBoost is optional: ``pip install 'boostrank[xgboost]'``.
"""

from __future__ import annotations

import re
import sys
import warnings

import numpy as np

from .._compat import require
from .._validation import group_offsets
from ..objectives.eval_metric import EvalMetric, bound_metric
from ..objectives.state import LambdaState
from ..objectives.objective import OBJECTIVE_NAMES, LambdaObjective
from .trees import MISSING_NAN, Forest, Tree

__all__ = ["xgboost_objective", "xgboost_metric", "XGBoostObjective", "XGBoostMetric", "train_ranker",
           "gain_importances", "query_weights", "objective_params", "import_xgboost", "check_params", "sklearn_params",
           "NATIVE_OBJECTIVES"]

#: XGBoost's own ranking objectives, accepted by name.
NATIVE_OBJECTIVES = ("rank:ndcg", "rank:pairwise", "rank:map")


def import_xgboost():
    """The ``xgboost`` module, or an ImportError that names the extra to install."""
    return require("xgboost", "xgboost", "XGBoost's engine")


def _groups(dtrain):
    ptr = dtrain.get_uint_info("group_ptr").astype(np.int64)
    return group_offsets(dtrain.num_row(), offsets=ptr) if ptr.size else None


def _row_weights(dtrain, offsets):
    """Per-row weights; XGBoost stores one weight per group for ranking data."""
    w = dtrain.get_weight()
    if w.size == 0:
        return None
    if offsets is not None and w.size == offsets.size - 1:
        return np.repeat(w.astype(np.float64), np.diff(offsets))
    return w.astype(np.float64)


#: λ kernel threads under XGBoost: one (its bundled libgomp and Numba's runtime spin against each other)
OBJECTIVE_THREADS = 1


def objective_threads(n_jobs) -> int:
    """The λ kernels' threads under XGBoost: :data:`OBJECTIVE_THREADS`, whatever the engine's count."""
    return OBJECTIVE_THREADS


class XGBoostObjective:
    """λ objective for ``xgb.train(obj=...)``; build it with :func:`xgboost_objective`.

    It binds the objective to the training DMatrix on its first call (and again when handed another).
    """

    def __init__(self, objective: LambdaObjective, position=None):
        self.objective = objective
        self.position = position
        self._bound: tuple | None = None

    def __repr__(self):
        return f"xgboost_objective({self.objective.metric!r})"

    def __call__(self, predt, dtrain):
        if self._bound is None or self._bound[0] is not dtrain:
            offsets = _groups(dtrain)
            position = self.position
            if isinstance(position, str):  # "order": each row's place in its query is where it was shown
                starts = offsets if offsets is not None else np.array([0, dtrain.num_row()])
                position = np.arange(dtrain.num_row()) - np.repeat(starts[:-1], np.diff(starts))
            self._bound = (dtrain, self.objective.bind(dtrain.get_label(), offsets, _row_weights(dtrain, offsets),
                                                       position=position))
        # float32, XGBoost's gradient type (see LightGBMObjective)
        return self._bound[1].gradients(predt, dtype=np.float32)


class XGBoostMetric:
    """``custom_metric`` for ``xgb.train``; higher is better.

    XGBoost minimises a custom metric unless told otherwise: pass ``maximize=True`` to
    ``xgb.train`` or use :meth:`early_stopping`, which carries the direction.

    It also works as ``eval_metric`` of XGBoost's scikit-learn estimators, which call it
    as ``metric(y_true, y_score)``: ``XGBRanker`` once per list and averages the values
    weighted by list size (a list where the metric is undefined, e.g. one class, counts
    1.0 there, as XGBoost counts a one-row list), ``XGBClassifier`` once on the whole set.
    ``xgb.train(custom_metric=...)`` gives boostrank's own per-query mean.  Early-stop those
    with ``callbacks=[metric.early_stopping(rounds)]``: XGBoost cannot tell that a
    custom metric is to be maximised.
    """

    maximize = True

    def __init__(self, metric: EvalMetric):
        self.metric = metric
        self._bound: list = []

    @property
    def name(self) -> str:
        """The name XGBoost logs: ``br_`` and the metric (``br_mauc``)."""
        return self.metric.engine_name

    @property
    def __name__(self) -> str:  # the name XGBoost's scikit-learn wrappers log
        return self.metric.engine_name

    def __call__(self, predt, dtrain, sample_weight=None):
        if not hasattr(dtrain, "get_label"):  # the scikit-learn form: (y_true, y_score) of one list
            y = np.asarray(predt, dtype=np.float64).reshape(-1)
            value = float(self.metric.per_query(y, dtrain, np.array([0, y.shape[0]]))[0])
            return 1.0 if np.isnan(value) else value
        bound = bound_metric(self._bound, self.metric, dtrain, lambda: (dtrain.get_label(), _groups(dtrain), None))
        return self.metric.engine_name, bound.value(predt)

    def early_stopping(self, rounds: int, *, data_name: str | None = None, save_best: bool = False):
        """An ``xgb.callback.EarlyStopping`` on this metric, maximising it.

        Parameters
        ----------
        rounds : int
        data_name : str, default=None
            Eval set to watch (default: XGBoost's, the last one).
        save_best : bool, default=False
            Keep only the best trees (otherwise ``booster.best_iteration`` marks them).
        """
        xgb = import_xgboost()
        return xgb.callback.EarlyStopping(rounds=rounds, metric_name=self.name, data_name=data_name,
                                          maximize=True, save_best=save_best)


def xgboost_objective(metric: str = "auc", *, position=None, **kw) -> XGBoostObjective:
    """λ-AUC / λ-MAUC / λ-NDCG objective for ``xgb.train(params, dtrain, obj=...)``.

    Parameters
    ----------
    metric : {"auc", "mauc", "ndcg"}, default="auc"
    position : array-like of int or "order", default=None
        Click feedback: each training row's 0-based display rank, or ``"order"``: the rows of
        each query are in the order they were shown, as XGBoost's ``lambdarank_unbiased`` reads
        positions.  The position bias is then corrected (``position_bias``).
    **kw
        ``sigma``, ``threshold``, ``link``, ... of :class:`boostrank.objectives.objective.LambdaObjective`.
        ``n_jobs`` defaults to 1: XGBoost runs its own bundled libgomp and Numba the
        system one, and each runtime's idle threads spin against the other's work.

    Notes
    -----
    λ-AUC hessians are small (about 0.1 per document), so XGBoost's default
    ``min_child_weight=1`` blocks most splits; use something like 1e-3
    (:func:`objective_params` gives the settings :class:`boostrank.LambdaRanker` uses).
    The callable returns float32 arrays (XGBoost's gradient type), reused by its next
    call; :func:`boostrank.lambda_gradients` gives float64 copies.

    Examples
    --------
    >>> import numpy as np, xgboost as xgb
    >>> X, y = np.random.default_rng(0).normal(size=(40, 3)), np.tile([1, 0, 0, 0], 10)
    >>> dtrain = xgb.DMatrix(X, y)
    >>> dtrain.set_group([4] * 10)
    >>> params = {"min_child_weight": 1e-3, "disable_default_eval_metric": 1}
    >>> booster = xgb.train(params, dtrain, num_boost_round=3, obj=xgboost_objective("auc"))
    >>> booster.num_boosted_rounds()
    3
    """
    if kw.get("n_jobs") is None:
        kw["n_jobs"] = OBJECTIVE_THREADS
    if isinstance(position, str) and position != "order":
        raise ValueError(f"position is an array of display ranks or 'order', got {position!r}")
    return XGBoostObjective(LambdaObjective(metric, **kw), position)


def xgboost_metric(name: str = "auc") -> XGBoostMetric:
    """Eval metric for ``xgb.train(custom_metric=...)``; see :func:`boostrank.lightgbm_metric`.

    Higher is better: pass ``maximize=True`` to ``xgb.train`` (with
    ``disable_default_eval_metric=1`` in the parameters), or early-stop with
    :meth:`XGBoostMetric.early_stopping`.

    Examples
    --------
    >>> import numpy as np, xgboost as xgb
    >>> X, y = np.random.default_rng(0).normal(size=(40, 3)), np.tile([1, 0, 0, 0], 10)
    >>> dtrain = xgb.DMatrix(X, y)
    >>> dtrain.set_group([4] * 10)
    >>> params, history = {"min_child_weight": 1e-3, "disable_default_eval_metric": 1}, {}
    >>> booster = xgb.train(params, dtrain, 3, obj=xgboost_objective("auc"), evals=[(dtrain, "train")],
    ...                     custom_metric=xgboost_metric("auc"), maximize=True, evals_result=history, verbose_eval=False)
    >>> len(history["train"]["br_auc"])
    3
    """
    return XGBoostMetric(EvalMetric(name))


def objective_params(objective: str) -> dict:
    """XGBoost parameters for a boostrank objective name or a native one.

    boostrank's λ objectives get ``min_child_weight=1e-3`` (their hessians are about 0.1
    per document) and no default eval metric; a native objective is set by name.
    """
    if objective in OBJECTIVE_NAMES:
        return {"min_child_weight": 1e-3, "disable_default_eval_metric": 1}
    return {"objective": objective}


def query_weights(weight, offsets) -> np.ndarray:
    """One weight per query, as XGBoost's ranking objectives want.

    Accepts one weight per query, or one per row that is constant within each query.
    """
    w = np.asarray(weight, dtype=np.float64)
    n_groups = offsets.shape[0] - 1
    if w.shape[0] == n_groups:
        return w
    if w.shape[0] != offsets[-1]:
        raise ValueError(f"sample_weight needs one value per query ({n_groups}) or per row")
    first = w[offsets[:-1]]
    if not np.allclose(np.repeat(first, np.diff(offsets)), w):
        raise ValueError("XGBoost ranking weights are per query: make sample_weight constant "
                         "within each query")
    return first


_UNUSED = re.compile(r"Parameters: \{(.*?)\} are not used")


def check_params(params: dict) -> None:
    """Refuse parameters XGBoost would ignore (it only warns "are not used").

    A one-round probe on four rows with XGBoost's own parameter validation.
    """
    xgb = import_xgboost()
    probe = xgb.DMatrix(np.zeros((4, 1)), np.array([1.0, 0.0, 1.0, 0.0]))
    probe.set_group([4])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        xgb.train({**params, "verbosity": 1, "validate_parameters": True}, probe, 1,
                  obj=(lambda p, d: (np.zeros(4), np.ones(4))) if "objective" not in params else None)
    for w in caught:
        m = _UNUSED.search(str(w.message))
        if m:
            names = ", ".join(n.strip() for n in m.group(1).split(","))
            raise ValueError(f"unknown XGBoost parameter(s): {names}")


#: XGBoost stores features as float32: larger magnitudes become inf, which its DMatrix refuses with a C++ trace
FLOAT32_MAX = float(np.finfo(np.float32).max)


def _check_float32_range(X) -> None:
    """Refuse features XGBoost's float32 storage cannot hold, naming the first one."""
    values = getattr(X, "data", None) if hasattr(X, "tocsr") else None
    if values is None:
        if hasattr(X, "select_dtypes"):  # a DataFrame: its numeric columns
            X = X.select_dtypes("number").to_numpy(dtype=np.float64)
        values = np.asarray(X, dtype=np.float64) if not hasattr(X, "dtype") or X.dtype.kind in "fiu" else None
    if values is None or values.size == 0:
        return
    big = np.abs(values) > FLOAT32_MAX
    if big.any():
        where = np.argwhere(big)[0] if getattr(values, "ndim", 1) == 2 else np.flatnonzero(big)[:1]
        raise ValueError(f"feature value {values[tuple(where)]:.3g} (at index {tuple(int(i) for i in where)}) is beyond "
                         f"float32's range (±{FLOAT32_MAX:.3g}), in which XGBoost stores features: scale the "
                         f"features or use engine='lightgbm'")


def train_ranker(data, *, objective, params: dict, n_estimators: int, evals=(), metrics=(),
                 early_stopping_rounds=None, progress=None):
    """Train an XGBoost ranker on query groups with a boostrank or native objective.

    Parameters are those of :func:`boostrank.engines.lightgbm.train_ranker`, except that the data's
    ``sample_weight`` is one per query (or per row, constant within each query) and DataFrames go in
    with ``enable_categorical=True`` (``tree_method="hist"``).

    Returns
    -------
    booster, evals_result, best_iteration
        ``best_iteration`` indexes rounds from 0 (XGBoost's convention); it is also stored in
        the booster, so a saved and reloaded model predicts with the best trees.
    """
    xgb = import_xgboost()

    def dmatrix(part):
        _check_float32_range(part.X)
        d = xgb.DMatrix(part.X, part.y, enable_categorical=True)
        d.set_group(np.diff(part.starts))
        if part.sample_weight is not None:
            d.set_weight(query_weights(part.sample_weight, part.starts))
        return d

    custom = isinstance(objective, LambdaState)
    full = {"tree_method": "hist", "verbosity": 0, **objective_params("auc" if custom else objective), **params}
    if not custom and data.position is not None:  # XGBoost's own correction reads positions as row order
        data = rows_by_position(data)
        full.setdefault("lambdarank_unbiased", True)
    if evals:
        full["disable_default_eval_metric"] = 1
    check_params(full)
    train = dmatrix(data)
    watch = [(dmatrix(e), name) for name, e in evals]
    bound = [[m.bind(e.y, e.offsets) for m in metrics] for _, e in evals]

    def custom_metric(predt, dmat):  # the metrics bound to each eval set's labels once
        k = next(i for i, (d, _) in enumerate(watch) if d is dmat)
        return [(b.metric.engine_name, b.value(predt)) for b in bound[k]]

    def obj(predt, dtrain):  # closes over the bound state
        return objective.gradients(predt, dtype=np.float32)

    callbacks = []
    if progress is not None:
        class Progress(xgb.callback.TrainingCallback):
            def after_iteration(self, model, epoch, evals_log):
                last = [(d, m, v[-1]) for d, ms in evals_log.items() for m, v in ms.items()][-1:]
                progress(" ".join(f"{d}:{m}={v:.4f}" for d, m, v in last))
                return False

        callbacks.append(Progress())
    stop = bool(early_stopping_rounds) and bool(watch)
    if stop:
        callbacks.append(XGBoostMetric(metrics[0]).early_stopping(early_stopping_rounds))
    record: dict = {}
    booster = xgb.train(full, train, num_boost_round=n_estimators, evals=watch,
                        obj=obj if custom else None,
                        custom_metric=custom_metric if watch else None, maximize=True,
                        evals_result=record, verbose_eval=False, callbacks=callbacks)
    return booster, record, (booster.best_iteration if stop else None)


def rows_by_position(data):
    """The ranking data with each query's rows in display order: how ``lambdarank_unbiased`` reads positions
    (XGBoost's documentation: "the position of a sample is its order within the query group")."""
    from .._compat import safe_indexing as _safe_indexing

    from .._validation import RankingData

    starts = data.starts
    query = np.repeat(np.arange(starts.shape[0] - 1), np.diff(starts))
    rows = np.lexsort((data.position, query))
    weight = data.sample_weight
    if weight is not None and weight.shape[0] == rows.shape[0]:
        weight = weight[rows]
    return RankingData(_safe_indexing(data.X, rows), data.y[rows], data.offsets, weight, None)


def sklearn_params(learning_rate, random_state=None, n_jobs=None, log=False) -> dict:
    """scikit-learn's names (``learning_rate``, ``random_state``, ``n_jobs``) as XGBoost parameters;
    ``log``: the engine's own log on (``verbose=2`` of the estimators)."""
    params = {"eta": learning_rate}
    if random_state is not None:
        params["seed"] = random_state
    if n_jobs is not None:
        params["nthread"] = n_jobs
    if log:
        params["verbosity"] = 2
    return params


def gain_importances(booster, n_features: int) -> np.ndarray:
    """Mean gain of each feature's splits, normalised to sum 1: ``XGBRanker.feature_importances_``."""
    scores = booster.get_score(importance_type="gain")
    names = booster.feature_names or [f"f{i}" for i in range(n_features)]
    out = np.array([scores.get(name, 0.0) for name in names], dtype=np.float32)
    total = out.sum()
    return out / total if total > 0 else out


#: The objective a model trained with a callable is saved under: its output is the raw margin, as
#: rank:pairwise's is, and the LTR plugins' parsers accept this name (not reg:squarederror, the
#: name XGBoost keeps for a callable objective)
PORTABLE_OBJECTIVE = "rank:pairwise"


def save_portable(booster, path, custom_objective: bool) -> None:
    """Save a booster; one trained with a callable objective is labelled :data:`PORTABLE_OBJECTIVE`.

    The label is set on a copy, so the caller's booster keeps its configuration; the margins
    are unchanged (both objectives leave the raw score as it is, base_score included).
    """
    if custom_objective:
        booster = booster.copy()
        booster.set_param({"objective": PORTABLE_OBJECTIVE})
    booster.save_model(str(path))


# ------------------------------------------------------------------ the engine interface
# The same questions boostrank.lightgbm answers for LightGBM.

NAME = "xgboost"
#: ranking weights are per query (one per group), XGBoost's rule
PER_QUERY_WEIGHTS = True
#: XGBoost stores features as float32 (a DMatrix rounds doubles to the nearest float32) before any split compares
FEATURES_AS_FLOAT32 = True


def n_rounds(booster) -> int:
    """Boosting rounds in the model."""
    return booster.num_boosted_rounds()


def best_iteration(best):
    """XGBoost's ``best_iteration`` (from 0) as ``best_iteration_`` counts it (from 1)."""
    return None if best is None else best + 1


def importances(booster, n_features: int) -> np.ndarray:
    """``feature_importances_``: total gains normalised to sum 1, as ``XGBRanker``'s default."""
    return gain_importances(booster, n_features)


def predict(booster, X, best_iteration=None) -> np.ndarray:
    """Raw margins with the first ``best_iteration`` rounds (all when None)."""
    xgb = import_xgboost()
    rng = (0, 0) if best_iteration is None else (0, best_iteration)
    return booster.predict(xgb.DMatrix(X, enable_categorical=True), iteration_range=rng)


def round_scores(booster, X):
    """A function of r giving round r's trees' contribution to each row's margin (plus the base score, a
    constant no rank statistic sees)."""
    xgb = import_xgboost()
    dmat = xgb.DMatrix(X, enable_categorical=True)
    return lambda r: booster.predict(dmat, iteration_range=(r, r + 1), output_margin=True)


def save_model(booster, path, key: str, saved: str, custom_objective: bool) -> None:
    """JSON/UBJSON by the suffix, ``saved`` as attribute ``key``; labelled :data:`PORTABLE_OBJECTIVE` when
    trained with a callable."""
    booster.set_attr(**{key: saved})
    save_portable(booster, path, custom_objective)


def writes(head: str) -> bool:
    """Whether a model file beginning with ``head`` is XGBoost's (JSON or UBJSON: an object, ``{``)."""
    return head.startswith("{")


def load_model(path, key: str):
    """(booster, n_features, feature names, best_iteration_, the text saved under ``key`` or None), after the
    file's checks."""
    from .model_files import check_xgboost_model_file

    xgb = import_xgboost()
    outputs = check_xgboost_model_file(path)
    if outputs != 1:
        raise ValueError(f"{path}: a model with {outputs} outputs per row (several classes or targets) is not a "
                         f"ranking model")
    try:
        booster = xgb.Booster(model_file=str(path))
    except xgb.core.XGBoostError as exc:
        raise ValueError(f"{path}: damaged XGBoost model file ({type(exc).__name__}: "
                         f"{str(exc).strip()[:200] or 'no message'})") from None
    try:
        best = booster.attr("best_iteration")
    except AssertionError:  # XGBoost asserts on an empty attribute
        best = ""
    rounds = booster.num_boosted_rounds()
    if best is not None and not (best.isdigit() and int(best) < rounds):
        raise ValueError(f"{path}: damaged XGBoost model file: best_iteration {best!r} is not a round of its "
                         f"{rounds}")
    return (booster, booster.num_features(), booster.feature_names, None if best is None else int(best) + 1,
            booster.attr(key))


def refit_params(booster) -> tuple[str, dict]:
    """(objective, LambdaRanker keywords) that train a model like ``booster`` again; anything but XGBoost's
    ranking and binary objectives (a callable's model says reg:squarederror) is refitted with λ-AUC."""
    import json

    cfg = json.loads(booster.save_config())["learner"]
    tree = cfg.get("gradient_booster", {}).get("tree_train_param", {})
    objective = cfg.get("objective", {}).get("name", "rank:pairwise")
    kw = dict(n_estimators=int(booster.num_boosted_rounds()), learning_rate=float(tree.get("eta", 0.3)))
    if "max_depth" in tree:
        kw["max_depth"] = int(tree["max_depth"])
    return (objective if objective.startswith(("rank:", "binary:")) else "auc"), kw


def dask_params(objective: str, engine_params: dict, *, learning_rate, random_state, n_jobs) -> dict:
    """The parameters of a Dask fit (``xgb.dask.train``), checked before the cluster sees them."""
    params = {"tree_method": "hist", "verbosity": 0, **objective_params(objective),
              **sklearn_params(learning_rate, random_state, n_jobs), **engine_params}
    check_params(params)
    return params


def dask_train(client, frame, features, columns, group_sizes, objective, engine_params, *, n_estimators,
               learning_rate, random_state, n_jobs, positions=False):
    """Train on a Dask frame with whole queries per partition (``xgb.dask.train`` with qid); returns the booster.
    ``positions``: each query's rows are in display order (click feedback), as ``lambdarank_unbiased`` reads them."""
    import importlib

    label, qid, weight = columns
    if weight in frame.columns:
        raise ValueError("sample_weight on Dask is supported with engine='lightgbm' (one weight per row)")
    xgb = import_xgboost()
    importlib.import_module("xgboost.dask")
    custom = isinstance(objective, LambdaObjective)
    params = dask_params(objective.metric if custom else objective, engine_params, learning_rate=learning_rate,
                         random_state=random_state, n_jobs=n_jobs)
    if positions and not custom:
        params.setdefault("lambdarank_unbiased", True)
    dtrain = xgb.dask.DaskDMatrix(client, frame[features], frame[label], qid=frame[qid], enable_categorical=True)
    out = xgb.dask.train(client, params, dtrain, num_boost_round=n_estimators,
                         obj=XGBoostObjective(objective, "order" if positions else None) if custom else None)
    return out["booster"]


def forest(booster, rounds=None):
    """The model's trees (its first ``rounds`` rounds) as a :class:`~boostrank.trees.Forest`, with the base margin
    XGBoost adds; refuses what a tree export cannot hold (other boosters, several outputs, categorical splits)."""
    import json

    raw = json.loads(booster.save_raw("json"))
    learner = raw["learner"]
    gb = learner["gradient_booster"]
    if gb.get("name") != "gbtree":
        raise ValueError(f"the XGBoost booster is {gb.get('name')!r}; export reads gbtree models (dart weights "
                         f"and linear boosters have no tree-sum form the engines read)")
    param = learner["learner_model_param"]
    if int(param.get("num_class", "0")) > 1 or int(param.get("num_target", "1")) > 1:
        raise ValueError("the model has several outputs (num_class or num_target > 1); train one ranker")
    model = gb["model"]
    per_round = max(1, int(model["gbtree_model_param"].get("num_parallel_tree", "1")))
    raw_trees = model["trees"][: None if rounds is None else rounds * per_round]
    trees = []
    for t in raw_trees:
        left = np.array(t["left_children"], dtype=np.int64)
        if any(int(v) != 0 for v in t.get("split_type", [])):
            raise ValueError(f"tree {t['id']} has a categorical split; export needs numerical splits only")
        leaf = left < 0
        trees.append(Tree(
            feature=np.where(leaf, -1, np.array(t["split_indices"], dtype=np.int64)),
            threshold=np.where(leaf, np.nan, np.array(t["split_conditions"], dtype=np.float32).astype(np.float64)),
            left=left, right=np.array(t["right_children"], dtype=np.int64),
            default_left=np.array(t["default_left"], dtype=bool),
            missing=np.full(left.shape[0], MISSING_NAN, dtype=np.int8),
            value=np.where(leaf, np.array(t["split_conditions"], dtype=np.float32).astype(np.float64), 0.0),
            leaf_id=np.where(leaf, np.arange(left.shape[0]), -1)))
    names = booster.feature_names or [f"f{j}" for j in range(int(param["num_feature"]))]
    forest = Forest(trees=trees, engine=sys.modules[__name__], base=0.0, n_features=int(param["num_feature"]),
                    feature_names=list(names), objective=learner["objective"]["name"])
    return Forest(trees=trees, engine=sys.modules[__name__], base=_base_margin(booster, forest, learner, rounds),
                  n_features=forest.n_features, feature_names=forest.feature_names, objective=forest.objective)


def _base_margin(booster, forest, learner: dict, rounds) -> float:
    """The margin XGBoost starts every row from: ``base_score`` through the objective's link, in float32 (as
    ``ObjFunction::ProbToMargin`` computes it), checked against one prediction; the prediction, when the model's
    objective has a link this does not know."""
    xgb = import_xgboost()
    probe = np.zeros((1, forest.n_features), dtype=np.float32)
    margin = float(booster.predict(xgb.DMatrix(probe), output_margin=True,
                                   iteration_range=(0, 0 if rounds is None else rounds))[0])
    leaves = forest.apply(probe)[0]
    read_off = margin - float(np.sum([tr.value[leaves[i]] for i, tr in enumerate(forest.trees)], dtype=np.float64))
    text = str(learner["learner_model_param"].get("base_score", "")).strip("[]").split(",")[0]
    try:
        p = np.float32(float(text))
    except ValueError:
        return float(np.float32(read_off))
    with np.errstate(all="ignore"):  # the identity, logit and log links of XGBoost's objectives
        candidates = [p, np.float32(-np.log(np.float32(1) / p - np.float32(1))), np.float32(np.log(p))]
    slack = 1e-5 * (1.0 + abs(margin))  # the prediction is a float32 sum
    near = [float(c) for c in candidates if np.isfinite(c) and abs(float(c) - read_off) <= slack]
    return near[0] if near else float(np.float32(read_off))


def tree_inputs(X: np.ndarray) -> np.ndarray:
    """Rows as the trees see them: XGBoost's DMatrix holds float32."""
    return X.astype(np.float32).astype(np.float64)


def route(tree, nodes: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Whether rows with values ``x`` (float32) at split ``nodes`` go left: ``x < threshold``, NaN to the default."""
    return np.where(np.isnan(x), tree.default_left[nodes], x < tree.threshold[nodes])


def left_set(tree, node: int) -> tuple[float, bool, bool]:
    """(bound, inclusive, nan_left): float32 x goes left exactly when x < bound, NaN when nan_left."""
    return float(tree.threshold[node]), False, bool(tree.default_left[node])


def booster_rounds(booster):
    """The rounds a Booster is best at (``best_iteration`` attribute + 1) when early stopping set it, else all."""
    best = booster.attr("best_iteration")
    return None if best is None else int(best) + 1


def held_labels(y) -> np.ndarray:
    """The labels as the engine holds them (float32), in float64."""
    return np.asarray(y, dtype=np.float32).astype(np.float64)


def row_weights(sample_weight, offsets):
    """The weight of each row as the objective reads it from a DMatrix: its query's weight."""
    if sample_weight is None:
        return None
    w = np.asarray(query_weights(sample_weight, offsets), dtype=np.float32).astype(np.float64)
    return np.repeat(w, np.diff(offsets))
