"""``LambdaRanker``: one scikit-learn estimator over LightGBM and XGBoost with λ objectives.

``XGBRanker`` refuses callable objectives and ``LGBMRanker`` wants group sizes; this
estimator takes ``qid`` (or ``group``) for either engine, plugs in boostrank's
λ-AUC / λ-MAUC / λ-NDCG objectives or the engine's own ranking objectives, and
evaluates with boostrank's metrics.  The engines' own knowledge lives in
:mod:`boostrank.lightgbm` and :mod:`boostrank.xgboost`.
"""

from __future__ import annotations

import functools

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import _safe_indexing, check_random_state
from sklearn.utils.validation import check_is_fitted
from tqdm.auto import tqdm

from . import lightgbm as _lgb_adapter
from . import models
from . import xgboost as _xgb_adapter
from ._validation import as_1d_float, check_features, check_sample_weight, group_offsets
from .metrics import GroupOffsets, auc, mauc, ndcg, query_mean
from .objectives import OBJECTIVE_NAMES, EvalMetric, LambdaObjective

__all__ = ["LambdaRanker"]

ENGINES = {"lightgbm": _lgb_adapter, "xgboost": _xgb_adapter}
DEFAULT_METRIC = {"auc": "auc", "mauc": "mauc"}
#: below these sizes the automatic validation split is skipped (too little to hold out)
HOLDOUT_MIN_QUERIES = 10
HOLDOUT_MIN_ROWS = 100


def validation_split(offsets, fraction, random_state):
    """Rows of an automatic early-stopping split: a share of whole queries (one list: of rows).

    Parameters
    ----------
    offsets : ndarray of int64
    fraction : float
        Share of the queries (one list: of the rows) held out, in (0, 1).
    random_state : int, RandomState or None

    Returns
    -------
    (train_rows, train_offsets, valid_rows, valid_offsets, valid_queries) or None
        None when the data is too small to hold anything out (fewer than
        ``HOLDOUT_MIN_QUERIES`` queries, or one list of fewer than ``HOLDOUT_MIN_ROWS`` rows).
        ``valid_queries`` is a boolean mask over queries (None for one list).
    """
    rng = check_random_state(random_state)
    n_queries = offsets.shape[0] - 1
    n = int(offsets[-1])
    if n_queries == 1:
        if n < HOLDOUT_MIN_ROWS:
            return None
        held = np.zeros(n, dtype=bool)
        held[rng.choice(n, size=max(1, int(round(fraction * n))), replace=False)] = True
        rows = np.arange(n)
        return (rows[~held], np.array([0, n - held.sum()], dtype=np.int64), rows[held],
                np.array([0, held.sum()], dtype=np.int64), None)
    if n_queries < HOLDOUT_MIN_QUERIES:
        return None
    held_q = np.zeros(n_queries, dtype=bool)
    held_q[rng.choice(n_queries, size=max(1, int(round(fraction * n_queries))), replace=False)] = True
    sizes = np.diff(offsets)
    held = np.repeat(held_q, sizes)
    rows = np.arange(n)

    def offs(mask):
        return np.r_[0, np.cumsum(sizes[mask])].astype(np.int64)

    return rows[~held], offs(~held_q), rows[held], offs(held_q), held_q


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
    learning_rate : float, default=0.05
        The defaults (100 rounds at 0.05, no early stopping) gave the best test AUC on 7 of the
        8 data sets of ``benchmarks/objective_quality.py`` among 100 rounds at 0.1, 100 at 0.05
        and early stopping on a held-out fifth of the queries (which loses that fifth's data).
    sigma : float, default=1.0
        σ of the RankNet logistic in boostrank's objectives.
    threshold : float, default=0.0
        ``objective="auc"``: labels above it are positive.
    norm : bool, default=None
        ``objective="auc"``/``"mauc"``/``"ndcg"``: LightGBM's ``lambdarank_norm`` on the swap
        weight (|ΔM| / (0.01 + |Δs|), each query rescaled by log2(1 + Σλ)/Σλ); None: on with
        the logistic link, off with the probit link (see :class:`boostrank.LambdaObjective`).
    link, method : str, default="logistic", "auto"
        ``objective="auc"``/``"mauc"``: ``link="probit"`` trains with the linear-time
        erfc-series λ (:mod:`boostrank.probit`) on lists of 128 rows or more and exact pair
        sums on shorter ones (``method="auto"``); ``"fast"`` or ``"exact"`` force one.
    eval_metric : str or list of str, default=None
        boostrank metric names evaluated on ``eval_set`` (``"auc"``, ``"mauc"``,
        ``"auc_pessimistic"``, ``"ndcg@10"``, ``"map"``, ``"err@10"``, ...); default: the
        objective's own metric, ``ndcg@10`` for NDCG objectives.  Logged as ``br_<name>``.
    early_stopping_rounds : int or None, default=None
        Stop when the first metric on the last eval set has not improved for this
        many rounds (higher is better); :meth:`predict` then uses the best round.
        Without ``eval_set``, the eval set is a random ``validation_fraction`` of the
        training queries (see there).  None: train ``n_estimators`` rounds.
    validation_fraction : float or None, default=0.2
        Share of the training queries (one list: of its rows) held out as the early-stopping
        set when ``early_stopping_rounds`` is set and ``fit`` gets no ``eval_set``, drawn
        with ``random_state``, as scikit-learn's ``HistGradientBoostingClassifier`` does.
        Skipped for fewer than 10 queries (one list: 100 rows).  None: no automatic split
        (then early stopping needs an ``eval_set``).  ``validation_queries_`` says which
        queries were held out.
    random_state : int, default=None
    n_jobs : int, default=None
        Engine threads.
    verbose : bool, default=False
        Show a progress bar with the last evaluation result.
    **engine_params
        Passed to the engine under its own names (``num_leaves``, ``min_data_in_leaf``,
        ``max_depth``, ``min_child_weight``, ...).  A name the engine does not know is an
        error at ``fit``.

    Attributes
    ----------
    booster_ : lightgbm.Booster or xgboost.Booster
    evals_result_ : dict
        ``{eval_name: {"br_<metric>": [value per round]}}``.
    best_iteration_ : int or None
        Set by early stopping, in the engine's own convention: LightGBM counts
        rounds from 1 (``best_iteration``), XGBoost indexes them from 0.
    validation_queries_ : ndarray of bool or None
        Queries held out by the automatic early-stopping split (one list: None, also when
        the split held out rows of it or did not run).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names, when ``X`` was a DataFrame with string column names.

    Notes
    -----
    DataFrames keep their column names (also in the booster) and pass categorical
    columns to the engine as ``LGBMRanker``/XGBoost do; at predict, the same columns in
    another order are realigned by name.  With XGBoost and boostrank's objectives,
    ``min_child_weight`` defaults to 1e-3 instead of 1, because λ-AUC hessians are about
    0.1 per document.  ``qid`` need only be contiguous, not sorted.

    In scikit-learn's model selection, ``qid`` is fit and score metadata (requested by
    default): with ``sklearn.set_config(enable_metadata_routing=True)``,
    ``GridSearchCV(pipe, grid, cv=GroupKFold(3), scoring=br.query_scorer("auc"))
    .fit(X, y, qid=qid, groups=qid)`` fits and scores every fold per query (from
    scikit-learn 1.8 the default scoring reaches :meth:`score` with ``qid`` too).
    """

    __metadata_request__fit = {"qid": True}
    __metadata_request__score = {"qid": True}

    def __init__(self, engine="lightgbm", objective="auc", *, n_estimators=100, learning_rate=0.05,
                 sigma=1.0, threshold=0.0, norm=None, link="logistic", method="auto", eval_metric=None,
                 early_stopping_rounds=None, validation_fraction=0.2, random_state=None, n_jobs=None,
                 verbose=False, **engine_params):
        self.engine = engine
        self.objective = objective
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.sigma = sigma
        self.threshold = threshold
        self.norm = norm
        self.link = link
        self.method = method
        self.eval_metric = eval_metric
        self.early_stopping_rounds = early_stopping_rounds
        self.validation_fraction = validation_fraction
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        for key, value in engine_params.items():
            setattr(self, key, value)

    def _engine_params(self) -> dict:
        """Engine parameters: public attributes that are neither declared nor fitted."""
        declared = set(self._get_param_names())
        return {k: v for k, v in vars(self).items()
                if k not in declared and not k.startswith("_") and not k.endswith("_")}

    def get_params(self, deep=True):
        return {**super().get_params(deep=deep), **self._engine_params()}

    def set_params(self, **params):
        for key, value in params.items():
            if key.startswith("_") or key.endswith("_"):
                raise ValueError(f"invalid parameter {key!r} for LambdaRanker")
            setattr(self, key, value)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = True  # both engines route missing values
        tags.input_tags.categorical = True
        return tags

    def _objective_kw(self):
        kw = {"sigma": self.sigma, "threshold": self.threshold, "norm": self.norm}
        if self.link != "logistic" or self.method != "auto":
            kw.update(link=self.link, method=self.method)
        return kw

    def fit(self, X, y, qid=None, *, group=None, sample_weight=None, eval_set=None,
            eval_qid=None, eval_group=None):
        """Fit on ``X, y`` grouped by ``qid`` (or ``group`` sizes; neither: one list).

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
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
        if self.engine not in ENGINES:
            raise ValueError(f"engine must be 'lightgbm' or 'xgboost', got {self.engine!r}")
        adapter = ENGINES[self.engine]
        if self.objective not in OBJECTIVE_NAMES and self.objective not in adapter.NATIVE_OBJECTIVES:
            raise ValueError(f"objective {self.objective!r} is not available on {self.engine}; choose from "
                             f"{sorted(OBJECTIVE_NAMES) + sorted(adapter.NATIVE_OBJECTIVES)}")
        metrics = self.eval_metric or [DEFAULT_METRIC.get(self.objective, "ndcg@10")]
        metrics = [EvalMetric(m).name for m in ([metrics] if isinstance(metrics, str) else metrics)]
        if y is None:
            raise ValueError("LambdaRanker requires y to be passed, but the target y is None")
        X = check_features(self, X, reset=True)
        y = as_1d_float(y, "y")
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}")
        offsets = group_offsets(y.shape[0], qid=qid, group=group)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, offsets, per_query=self.engine == "xgboost")
        if self.norm is not None and self.objective not in OBJECTIVE_NAMES:
            raise ValueError(f"norm is a parameter of boostrank's objectives {list(OBJECTIVE_NAMES)}, not of "
                             f"{self.objective!r} (LightGBM's lambdarank takes lambdarank_norm)")
        if self.objective in OBJECTIVE_NAMES:  # bad labels fail here, not inside an engine callback
            LambdaObjective(self.objective, **self._objective_kw()).check_labels(y, offsets)
        evals = []
        for k, (Xe, ye) in enumerate(eval_set or []):
            ye = as_1d_float(ye, f"eval_set[{k}] y")
            off = group_offsets(ye.shape[0], qid=None if eval_qid is None else eval_qid[k],
                                group=None if eval_group is None else eval_group[k])
            evals.append((f"valid_{k}", check_features(self, Xe, reset=False), ye, off))
        self._n_groups = offsets.shape[0] - 1
        self.validation_queries_ = None
        if self.validation_fraction is not None and not (0.0 < float(self.validation_fraction) < 1.0):
            raise ValueError(f"validation_fraction must be in (0, 1) or None, got {self.validation_fraction!r}")
        if not evals and self.early_stopping_rounds and self.validation_fraction is not None:
            split = validation_split(offsets, float(self.validation_fraction), self.random_state)
            if split is not None:
                X, y, offsets, sample_weight, evals = self._hold_out(X, y, offsets, sample_weight, split)
        params = {**adapter.sklearn_params(self.learning_rate, self.random_state, self.n_jobs),
                  **self._engine_params()}
        with tqdm(total=self.n_estimators, unit="round", desc="boosting", disable=not self.verbose) as bar:
            self.booster_, self.evals_result_, self.best_iteration_ = adapter.train_ranker(
                X, y, offsets, objective=self.objective, params=params, n_estimators=self.n_estimators,
                sample_weight=sample_weight, evals=evals, metrics=metrics,
                early_stopping_rounds=self.early_stopping_rounds, objective_kw=self._objective_kw(),
                progress=(lambda text: bar.update(1) or bar.set_postfix_str(text, refresh=False))
                if self.verbose else None)
        return self

    def _hold_out(self, X, y, offsets, sample_weight, split):
        """Training data without the held-out rows, and the held-out rows as the eval set."""
        train_rows, train_off, valid_rows, valid_off, held_q = split
        self.validation_queries_ = held_q
        if sample_weight is not None:  # per row, or (XGBoost) per query
            if sample_weight.shape[0] == y.shape[0]:
                sample_weight = sample_weight[train_rows]
            elif held_q is not None:
                sample_weight = sample_weight[~held_q]
        evals = [("valid_0", _safe_indexing(X, valid_rows), y[valid_rows], valid_off)]
        return _safe_indexing(X, train_rows), y[train_rows], train_off, sample_weight, evals

    def predict(self, X):
        """Ranking scores (higher is better) of the rows of ``X``, with the best round if early-stopped."""
        check_is_fitted(self, "booster_")
        X = check_features(self, X, reset=False)
        if self.engine == "lightgbm":
            return self.booster_.predict(X, num_iteration=self.best_iteration_)
        xgb = _xgb_adapter.import_xgboost()
        rng = (0, 0) if self.best_iteration_ is None else (0, self.best_iteration_ + 1)
        return self.booster_.predict(xgb.DMatrix(X, enable_categorical=True), iteration_range=rng)

    def score(self, X, y, qid=None, *, group=None, sample_weight=None) -> float:
        """Mean per-query statistic of the objective: AUC, MAUC, else NDCG@10 (higher is better).

        Parameters
        ----------
        X, y
        qid, group : array-like, default=None
            Query groups of ``X``.  Required when the model was trained on several
            queries: scoring a fold as one list would silently measure something else.
        sample_weight : array-like of shape (n_samples,), default=None
            Each query counts with the mean weight of its rows.

        Returns
        -------
        float
            ``boostrank.auc`` for ``objective="auc"``, ``boostrank.mauc`` for ``"mauc"``,
            ``boostrank.ndcg(k=10)`` otherwise, averaged over the queries where defined.
        """
        if qid is None and group is None and getattr(self, "_n_groups", 1) > 1:
            raise ValueError("score needs qid (or group): the model was trained on several queries.  In "
                             "GridSearchCV, set sklearn.set_config(enable_metadata_routing=True) and pass qid to fit")
        y = as_1d_float(y, "y")
        offsets = group_offsets(y.shape[0], qid=qid, group=group)
        statistic = {"auc": auc, "mauc": mauc}.get(self.objective, functools.partial(ndcg, k=10))
        return query_mean(statistic(y, self.predict(X), GroupOffsets(offsets), per_query=True), offsets,
                          sample_weight)

    def save_model(self, path) -> None:
        """Write the booster in the engine's own format; see :func:`boostrank.models.save_model`."""
        models.save_model(self, path)

    @classmethod
    def load_model(cls, path, engine: str = "lightgbm") -> "LambdaRanker":
        """A fitted ranker from :meth:`save_model`'s file; :func:`boostrank.load_model` finds the engine."""
        return models.load_booster(path, engine)
