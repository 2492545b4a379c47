"""``LambdaRanker``: one scikit-learn estimator over LightGBM and XGBoost with λ objectives.

``XGBRanker`` refuses callable objectives and ``LGBMRanker`` wants group sizes; this
estimator takes ``qid`` (or ``group``) for either engine, plugs in boostrank's
λ-AUC / λ-MAUC / λ-NDCG objectives or the engine's own ranking objectives, and
evaluates with boostrank's metrics.
"""

from __future__ import annotations

import re

import numpy as np
from sklearn.base import BaseEstimator

from ._validation import offsets_from_qid, offsets_from_sizes
from .lightgbm import lightgbm_metric, lightgbm_objective
from .objectives import OBJECTIVE_NAMES, LambdaObjective
from .xgboost import xgboost_metric, xgboost_objective

__all__ = ["LambdaRanker"]

NATIVE = {
    "lightgbm": {"lambdarank", "rank_xendcg"},
    "xgboost": {"rank:ndcg", "rank:pairwise", "rank:map"},
}
DEFAULT_METRIC = {"auc": "auc", "mauc": "mauc"}


def _offsets(n, qid, group):
    if qid is not None and group is not None:
        raise ValueError("pass qid or group, not both")
    if group is not None:
        off = offsets_from_sizes(group)
        if off[-1] != n:
            raise ValueError(f"group sizes add up to {int(off[-1])} rows but X has {n} rows")
        return off
    return offsets_from_qid(qid, n)


class _Progress:
    """tqdm bar over boosting rounds showing the last evaluation result."""

    def __init__(self, total, enabled):
        self.bar = None
        if enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, unit="round", desc="boosting")

    def update(self, text=""):
        if self.bar is not None:
            self.bar.update(1)
            if text:
                self.bar.set_postfix_str(text, refresh=False)

    def close(self):
        if self.bar is not None:
            self.bar.close()


class LambdaRanker(BaseEstimator):
    """Gradient-boosted ranker trained with a λ objective on LightGBM or XGBoost.

    Parameters
    ----------
    engine : {"lightgbm", "xgboost"}, default="lightgbm"
    objective : str, default="auc"
        ``"auc"`` (Welleck eq. 17), ``"mauc"`` (eq. 19), ``"ndcg"`` (λ-NDCG, LightGBM's
        lambdarank computed by boostrank), or the engine's native ranking objective:
        ``"lambdarank"``, ``"rank_xendcg"`` (LightGBM), ``"rank:ndcg"``,
        ``"rank:pairwise"``, ``"rank:map"`` (XGBoost).
    n_estimators : int, default=100
    learning_rate : float, default=0.1
    sigma : float, default=1.0
        σ of the RankNet logistic in boostrank's objectives.
    threshold : float, default=0.0
        ``objective="auc"``: labels above it are positive.
    link, method : str, default="logistic", "exact"
        ``objective="auc"``: ``link="probit", method="fast"`` (or ``"auto"``) trains
        with the linear-time erfc-series λ (:mod:`boostrank.longlists`) for long lists.
    eval_metric : str or list of str, default=None
        boostrank metric names evaluated on ``eval_set`` (``"auc"``, ``"mauc"``,
        ``"auc_pessimistic"``, ``"ndcg@10"``, ``"map"``, ...); default: the objective's
        own metric, ``ndcg@10`` for NDCG objectives.
    early_stopping_rounds : int, default=None
        Stop when the first metric on the last eval set has not improved for this
        many rounds (higher is better).
    random_state : int, default=None
    n_jobs : int, default=None
        Engine threads.
    verbose : bool, default=False
        Show a progress bar with the last evaluation result.
    **engine_params
        Passed to the engine under its own names (``num_leaves``, ``min_data_in_leaf``,
        ``max_depth``, ``min_child_weight``, ...).

    Attributes
    ----------
    booster_ : lightgbm.Booster or xgboost.Booster
    evals_result_ : dict
        ``{eval_name: {metric: [value per round]}}``.
    best_iteration_ : int or None
        Set by early stopping, in the engine's own convention: LightGBM counts
        rounds from 1 (``best_iteration``), XGBoost indexes them from 0.
        :meth:`predict` uses the best model either way.
    n_features_in_ : int

    Notes
    -----
    With XGBoost and boostrank's objectives, ``min_child_weight`` defaults to 1e-3
    instead of 1, because λ-AUC hessians are about 0.1 per document.  ``qid`` need
    only be contiguous, not sorted: groups go to both engines as sizes.
    """

    def __init__(self, engine="lightgbm", objective="auc", *, n_estimators=100, learning_rate=0.1,
                 sigma=1.0, threshold=0.0, link="logistic", method="exact", eval_metric=None,
                 early_stopping_rounds=None, random_state=None, n_jobs=None, verbose=False, **engine_params):
        self.engine = engine
        self.objective = objective
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.sigma = sigma
        self.threshold = threshold
        self.link = link
        self.method = method
        self.eval_metric = eval_metric
        self.early_stopping_rounds = early_stopping_rounds
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.engine_params = engine_params

    def get_params(self, deep=True):
        params = super().get_params(deep=deep)
        params.pop("engine_params", None)
        params.update(self.engine_params)
        return params

    def set_params(self, **params):
        names = set(self._get_param_names())
        for key, value in params.items():
            if key in names:
                setattr(self, key, value)
            else:
                self.engine_params[key] = value
        return self

    @classmethod
    def _get_param_names(cls):
        return sorted(p for p in super()._get_param_names() if p != "engine_params")

    # -- helpers -----------------------------------------------------------------------
    def _check(self):
        if self.engine not in NATIVE:
            raise ValueError(f"engine must be 'lightgbm' or 'xgboost', got {self.engine!r}")
        custom = self.objective in OBJECTIVE_NAMES
        if not custom and self.objective not in NATIVE[self.engine]:
            allowed = sorted(OBJECTIVE_NAMES) + sorted(NATIVE[self.engine])
            raise ValueError(f"objective {self.objective!r} is not available on {self.engine}; "
                             f"choose from {allowed}")
        metrics = self.eval_metric
        if metrics is None:
            metrics = [DEFAULT_METRIC.get(self.objective, "ndcg@10")]
        elif isinstance(metrics, str):
            metrics = [metrics]
        return custom, list(metrics)

    def _objective_kw(self):
        kw = {"sigma": self.sigma, "threshold": self.threshold}
        if self.link != "logistic" or self.method != "exact":
            kw.update(link=self.link, method=self.method)
        return kw

    def fit(self, X, y, qid=None, *, group=None, sample_weight=None, eval_set=None,
            eval_qid=None, eval_group=None):
        """Fit on ``X, y`` grouped by ``qid`` (or ``group`` sizes; neither: one list).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Relevance labels (integer grades for ``"mauc"``/``"ndcg"``).
        qid : array-like of shape (n_samples,), default=None
            Query ids; rows of a query must be contiguous.
        group : array-like of int, default=None
            Query sizes in row order, instead of ``qid``.
        sample_weight : array-like, default=None
            LightGBM: one weight per row.  XGBoost: one per query (or per row, constant
            within each query).
        eval_set : list of (X, y), default=None
        eval_qid, eval_group : list of array-like, default=None
            Groups of each eval set.

        Returns
        -------
        self
        """
        custom, metrics = self._check()
        X = X if hasattr(X, "tocsr") else np.asarray(X)
        y = np.asarray(y, dtype=np.float64)
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}")
        offsets = _offsets(y.shape[0], qid, group)
        if custom:  # fail on bad labels here, not from inside an engine callback
            LambdaObjective(self.objective, **self._objective_kw())._prepare(y, offsets)
        evals = []
        for k, (Xe, ye) in enumerate(eval_set or []):
            q = eval_qid[k] if eval_qid is not None else None
            gr = eval_group[k] if eval_group is not None else None
            ye = np.asarray(ye, dtype=np.float64)
            evals.append((f"valid_{k}", Xe, ye, _offsets(ye.shape[0], q, gr)))
        self.n_features_in_ = X.shape[1]
        self.evals_result_ = {}
        self.best_iteration_ = None
        fit = self._fit_lightgbm if self.engine == "lightgbm" else self._fit_xgboost
        fit(X, y, offsets, sample_weight, evals, custom, metrics)
        return self

    def _fit_lightgbm(self, X, y, offsets, sample_weight, evals, custom, metrics):
        import lightgbm as lgb

        sizes = np.diff(offsets)
        train = lgb.Dataset(X, y, group=sizes, weight=sample_weight, free_raw_data=False)
        valid = [lgb.Dataset(Xe, ye, group=np.diff(oe), reference=train) for _, Xe, ye, oe in evals]
        params = {"learning_rate": self.learning_rate, "verbose": -1, "metric": "None",
                  "objective": (lightgbm_objective(self.objective, **self._objective_kw())
                                if custom else self.objective)}
        if self.random_state is not None:
            params["seed"] = self.random_state
        if self.n_jobs is not None:
            params["num_threads"] = self.n_jobs
        params.update(self.engine_params)
        fevals = [lightgbm_metric(m) for m in metrics] if valid else None
        bar = _Progress(self.n_estimators, self.verbose)

        def progress(env):
            text = " ".join(f"{d}:{n}={v:.4f}" for d, n, v, *_ in env.evaluation_result_list[-1:])
            bar.update(text)

        callbacks = [progress, lgb.record_evaluation(self.evals_result_)]
        if self.early_stopping_rounds and valid:
            callbacks.append(lgb.early_stopping(self.early_stopping_rounds, first_metric_only=True,
                                                verbose=False))
        try:
            self.booster_ = lgb.train(params, train, num_boost_round=self.n_estimators,
                                      valid_sets=valid, valid_names=[e[0] for e in evals],
                                      feval=fevals, callbacks=callbacks)
        finally:
            bar.close()
        if self.early_stopping_rounds and valid:
            self.best_iteration_ = self.booster_.best_iteration

    def _fit_xgboost(self, X, y, offsets, sample_weight, evals, custom, metrics):
        import xgboost as xgb

        def dmatrix(Xm, ym, off, weight=None):
            d = xgb.DMatrix(Xm, ym)
            d.set_group(np.diff(off))
            if weight is not None:
                d.set_weight(_group_weights(weight, off))
            return d

        train = dmatrix(X, y, offsets, sample_weight)
        watch = [(dmatrix(Xe, ye, oe), name) for name, Xe, ye, oe in evals]
        params = {"eta": self.learning_rate, "tree_method": "hist", "verbosity": 0}
        if custom:
            params["min_child_weight"] = 1e-3
            params["disable_default_eval_metric"] = 1
        else:
            params["objective"] = self.objective
        if self.random_state is not None:
            params["seed"] = self.random_state
        if self.n_jobs is not None:
            params["nthread"] = self.n_jobs
        params.update(self.engine_params)
        if watch:
            params["disable_default_eval_metric"] = 1
        scorers = [xgboost_metric(m) for m in metrics]

        def custom_metric(predt, dmat):
            return [s(predt, dmat) for s in scorers]

        bar = _Progress(self.n_estimators, self.verbose)

        class Progress(xgb.callback.TrainingCallback):
            def after_iteration(self, model, epoch, evals_log):
                last = [(d, m, v[-1]) for d, ms in evals_log.items() for m, v in ms.items()][-1:]
                bar.update(" ".join(f"{d}:{m}={v:.4f}" for d, m, v in last))
                return False

        callbacks = [Progress()]
        if self.early_stopping_rounds and watch:
            callbacks.append(xgb.callback.EarlyStopping(rounds=self.early_stopping_rounds,
                                                        metric_name=scorers[0].metric.name,
                                                        maximize=True, save_best=False))
        record = {}
        try:
            self.booster_ = xgb.train(
                params, train, num_boost_round=self.n_estimators, evals=watch,
                obj=xgboost_objective(self.objective, **self._objective_kw()) if custom else None,
                custom_metric=custom_metric if watch else None, maximize=True,
                evals_result=record, verbose_eval=False, callbacks=callbacks)
        finally:
            bar.close()
        self.evals_result_ = record
        if self.early_stopping_rounds and watch:
            self.best_iteration_ = self.booster_.best_iteration

    def predict(self, X):
        """Ranking scores (higher is better) of the rows of ``X``."""
        if not hasattr(self, "booster_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("LambdaRanker is not fitted yet; call fit first")
        if self.engine == "lightgbm":
            it = None if self.best_iteration_ is None else self.best_iteration_
            return self.booster_.predict(X, num_iteration=it)
        import xgboost as xgb

        rng = (0, 0) if self.best_iteration_ is None else (0, self.best_iteration_ + 1)
        return self.booster_.predict(xgb.DMatrix(X), iteration_range=rng)

    def save_model(self, path) -> None:
        """Write the booster in the engine's own format (XGBoost: JSON; LightGBM: text)."""
        self.booster_.save_model(str(path))

    @classmethod
    def load_model(cls, path, engine: str = "lightgbm") -> "LambdaRanker":
        """A fitted ranker for prediction from a model written by :meth:`save_model`."""
        ranker = cls(engine=engine)
        if engine == "lightgbm":
            import lightgbm as lgb

            check_lightgbm_model_file(path)
            ranker.booster_ = lgb.Booster(model_file=str(path))
            ranker.n_features_in_ = ranker.booster_.num_feature()
        elif engine == "xgboost":
            import xgboost as xgb

            ranker.booster_ = xgb.Booster(model_file=str(path))
            ranker.n_features_in_ = ranker.booster_.num_features()
        else:
            raise ValueError(f"engine must be 'lightgbm' or 'xgboost', got {engine!r}")
        ranker.best_iteration_ = None
        return ranker


def check_lightgbm_model_file(path) -> None:
    """Refuse a truncated or damaged LightGBM text model before LightGBM's loader sees it.

    LightGBM aborts the process (SIGABRT/SIGSEGV) on a truncated file.  A complete file
    has ``tree_sizes=`` byte counts matching its ``Tree=`` blocks, ``end of trees``, and
    ``end of parameters`` when it has a parameters section.
    """
    raw = open(path, "rb").read()
    text = raw.decode("utf-8", errors="replace")
    if not text.startswith("tree"):
        raise ValueError(f"{path}: not a LightGBM text model")
    header, sep, rest = text.partition("\nTree=")
    sizes = re.search(r"^tree_sizes=([\d ]*)$", header, flags=re.M)
    if not sep or sizes is None or "\nend of trees" not in rest:
        raise ValueError(f"{path}: truncated or damaged LightGBM model (no complete tree section)")
    declared = [int(v) for v in sizes.group(1).split()]
    trees = rest.split("\nend of trees", 1)[0]
    n_trees = trees.count("\nTree=") + 1
    body = raw[raw.index(b"\nTree=") + 1: raw.index(b"\nend of trees")]
    if n_trees != len(declared) or abs(len(body) - sum(declared)) > len(declared) + 1:
        raise ValueError(f"{path}: truncated or damaged LightGBM model ({n_trees} trees, {len(declared)} declared)")
    if "\nparameters:" in text and "\nend of parameters" not in text:
        raise ValueError(f"{path}: truncated LightGBM model (the parameters section does not end)")


def _group_weights(weight, offsets):
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
