"""``LambdaRanker``: one scikit-learn estimator over LightGBM and XGBoost with λ objectives.

``XGBRanker`` refuses callable objectives and ``LGBMRanker`` wants group sizes; this
estimator takes ``qid`` (or ``group``) for either engine, plugs in boostrank's
λ-AUC / λ-MAUC / λ-NDCG objectives or the engine's own ranking objectives, and
evaluates with boostrank's metrics.  The engines' own knowledge lives in
:mod:`boostrank.engines.lightgbm` and :mod:`boostrank.engines.xgboost`.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import warnings

import numpy as np
from tqdm.auto import tqdm

from .io.files import check_out
from .engines import ENGINES
from ._compat import safe_indexing as _safe_indexing
from ._validation import RankingData, as_1d_float, check_features, group_offsets, trusted
from .base import RANDOM_STATE, VERBOSE, Integral, Interval, RankingEstimator, Real, StrOptions, seed_of
from .metrics.arrays import GroupOffsets, auc, mauc, ndcg, query_mean
from .objectives.eval_metric import EvalMetric
from .objectives.objective import (ESTIMATOR_PARAMETERS, OBJECTIVE_NAMES, PARAMETERS, LambdaObjective, check_parameters,
                                   is_default, with_lambda_parameters)
from .queries import HOLDOUT_MIN_QUERIES, HOLDOUT_MIN_ROWS, validation_split

#: Most boosting rounds a fit accepts: far past any ranking run (LightGBM's own default is 100), and a
#: typo such as 10**9 would otherwise train for days without a word
MAX_ESTIMATORS = 10**6

#: the key under which save_model keeps boostrank's parameters (a LightGBM parameter line, an XGBoost attribute)
PARAMS_KEY = "boostrank_params"

__all__ = ["LambdaRanker"]

DEFAULT_METRIC = {"auc": "auc", "mauc": "mauc"}


@with_lambda_parameters
class LambdaRanker(RankingEstimator):
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
        100 rounds at 0.05 without early stopping: the best test AUC on most real data sets
        against 100 rounds at 0.1 and early stopping on a held-out fifth of the queries (which
        loses that fifth's data).
    {lambda parameters}
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
        The engine's seed and the seed of the λ objective's pair sample (None: the engine's
        default seeds, and 0 for the pairs: the same data fits the same model).
    n_jobs : int, default=None
        Engine threads.
    verbose : int, default=0
        1: a progress bar over the rounds with the last evaluation result; 2: also the
        engine's own log.
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
        Set by early stopping: the number of rounds :meth:`predict` uses (LightGBM's
        ``best_iteration``, counted from 1; XGBoost's own ``best_iteration`` + 1).
    best_score_ : dict
        ``{eval_name: {"br_<metric>": value}}`` at the best round (the last without early
        stopping), as ``LGBMRanker.best_score_``.
    n_estimators_ : int
        Rounds the booster holds, as ``LGBMRanker.n_estimators_``: after early stopping,
        LightGBM keeps the rounds up to the best one, XGBoost all it boosted.
    feature_importances_ : ndarray of shape (n_features,)
        The engines' scikit-learn defaults: LightGBM's split counts (``LGBMRanker``),
        XGBoost's mean split gain normalised to sum 1 (``XGBRanker``).
    objective_ : str
        The objective trained.
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

    Examples
    --------
    >>> import numpy as np, boostrank as br
    >>> data = br.datasets.make_letor(60, random_state=0)
    >>> train, test = data.take_queries(np.arange(40)), data.take_queries(np.arange(40, 60))
    >>> ranker = br.LambdaRanker(objective="auc", n_estimators=30).fit(train.X, train.y, qid=train.qid)
    >>> br.auc(test.y, ranker.predict(test.X), test.qid) > br.auc(test.y, test.X[:, 0], test.qid)
    True
    """

    _parameter_constraints = {
        "engine": [StrOptions(set(ENGINES))],
        "objective": [str],  # boostrank's or the engine's own: _check_params asks the engine
        "n_estimators": [Interval(Integral, 1, MAX_ESTIMATORS, closed="both")],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        **{name: PARAMETERS[name].constraints for name in ESTIMATOR_PARAMETERS},  # declared once, there
        "eval_metric": [str, list, tuple, None],
        "early_stopping_rounds": [Interval(Integral, 1, None, closed="left"), None],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither"), None],
        "random_state": RANDOM_STATE,
        "n_jobs": [Integral, None],  # the engines take any count (LightGBM: 0 and below, its default)
        "verbose": VERBOSE,
    }
    _fitted_attribute = "booster_"

    def __init__(self, *, engine="lightgbm", objective="auc", n_estimators=100, learning_rate=0.05,
                 sigma=1.0, threshold=0.0, norm=None, link="auto", method="auto", grade_weight=None,
                 pair_weight="auto", pair_fraction=None, anchor=None, anchor_form="ordinal", position_bias="auto",
                 propensity=None, eval_metric=None, early_stopping_rounds=None, validation_fraction=0.2,
                 random_state=None, n_jobs=None, verbose=0, **engine_params):
        self.engine = engine
        self.objective = objective
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.sigma = sigma
        self.threshold = threshold
        self.norm = norm
        self.link = link
        self.method = method
        self.grade_weight = grade_weight
        self.pair_weight = pair_weight
        self.pair_fraction = pair_fraction
        self.anchor = anchor
        self.anchor_form = anchor_form
        self.position_bias = position_bias
        self.propensity = propensity
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
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = True  # both engines route missing values
        tags.input_tags.categorical = True
        return tags

    def _check_params(self):
        """The engine adapter, metric names, λ objective parameters and engine parameters, all validated."""
        if _is_int(self.n_estimators, 1) and self.n_estimators > MAX_ESTIMATORS:
            raise ValueError(f"n_estimators={self.n_estimators} is more rounds than this process can train "
                             f"(at most {MAX_ESTIMATORS}); with early_stopping_rounds, set n_estimators to the most "
                             f"rounds you would accept")
        self._validate_params()
        for name in ("n_estimators", "early_stopping_rounds"):  # scikit-learn's integer intervals take True as 1
            if isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be a positive integer, got {getattr(self, name)!r}")
        if not all(math.isfinite(v) for v in (self.learning_rate, self.sigma, self.threshold,
                                               0.0 if self.anchor is None else self.anchor)):
            raise ValueError("learning_rate, sigma, threshold and anchor must be finite")
        adapter = ENGINES[self.engine]
        if self.objective not in OBJECTIVE_NAMES and self.objective not in adapter.NATIVE_OBJECTIVES:
            raise ValueError(f"objective {self.objective!r} is not available on {self.engine}; choose from "
                             f"{sorted(OBJECTIVE_NAMES) + sorted(adapter.NATIVE_OBJECTIVES)}")
        metrics = self.eval_metric or [DEFAULT_METRIC.get(self.objective, "ndcg@10")]
        metrics = [EvalMetric(m) for m in ([metrics] if isinstance(metrics, str) else metrics)]
        objective_kw, engine_params = self._objective_params()
        return adapter, metrics, objective_kw, engine_params

    def _objective_params(self):
        """boostrank's objective parameters (with LightGBM's names mapped onto them) and the engine's rest.

        A parameter that the chosen objective would not read is refused: it would change nothing.
        """
        from .engines.lightgbm import NATIVE_ONLY_PARAMS, OBJECTIVE_ALIASES

        engine = self._engine_params()
        own = {name: getattr(self, name) for name in ESTIMATOR_PARAMETERS}
        if self.objective not in OBJECTIVE_NAMES:
            for name, value in own.items():
                if not is_default(value, PARAMETERS[name].default):
                    hint = {"sigma": "; LightGBM's lambdarank takes sigmoid", "norm": "; LightGBM's lambdarank "
                            "takes lambdarank_norm"}.get(name, "")
                    raise ValueError(f"{name} is a parameter of boostrank's objectives {list(OBJECTIVE_NAMES)}, "
                                     f"not of {self.objective!r}{hint}")
            return None, engine
        ignored = sorted(NATIVE_ONLY_PARAMS & set(engine))
        if ignored:
            raise ValueError(f"{', '.join(ignored)} would change nothing: only the engines' own ranking objectives "
                             f"read {'it' if len(ignored) == 1 else 'them'}, not objective={self.objective!r}")
        kw = {name: value for name, value in own.items() if not is_default(value, PARAMETERS[name].default)
              or name in ("sigma", "threshold", "norm")}
        for engine_name, name in OBJECTIVE_ALIASES.items():
            if engine_name not in engine:
                continue
            value = engine.pop(engine_name)
            if name in own and not is_default(own[name], PARAMETERS[name].default):
                raise ValueError(f"{engine_name} is LightGBM's name of {name}; set one of them")
            kw[name] = value
        check_parameters(self.objective, kw, type(self).__name__)  # a value its objective would not read: refused
        kw["random_state"] = seed_of(self.random_state)  # the pair sample's seed
        return kw, engine

    def fit(self, X, y, *, qid=None, group=None, sample_weight=None, eval_set=None,
            eval_qid=None, eval_group=None, position=None):
        """Fit on ``X, y`` grouped by ``qid`` (or ``group`` sizes).

        Parameters
        ----------
        X : array-like, sparse matrix or DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Relevance labels (integer grades for ``"mauc"``/``"ndcg"``).
        qid : array-like of shape (n_samples,), default=None
            Query ids; rows of a query must be contiguous.
        group : array-like of int, default=None
            Query sizes in row order, instead of ``qid``.  Without both, all rows are one
            list and a :class:`boostrank.OneListWarning` says so (``group=[n_samples]``
            fits one list without it); ``LGBMRanker`` and ``XGBRanker`` refuse such a fit.
        sample_weight : array-like, default=None
            One weight per row, or one per query.  XGBoost weighs queries: its row weights
            must be constant within each query.
        eval_set : list of (X, y), default=None
        eval_qid, eval_group : list of array-like, default=None
            Groups of each eval set.
        position : array-like of int, default=None
            Click feedback: each row's 0-based display rank in its list when it was logged.  The
            position bias is then corrected (``position_bias``); the model scores relevance, and
            :meth:`predict` takes no position.  Eval sets are judged as they are.

        Returns
        -------
        self
        """
        adapter, metrics, objective_kw, engine_params = self._check_params()
        data = self._ranking_data(X, y, qid, group, sample_weight, features=lambda X: check_features(self, X, True),
                                  per_query_weights=adapter.PER_QUERY_WEIGHTS, position=position)
        self.n_groups_ = data.n_groups  # several lists: score and predict want their qid
        objective = None
        if objective_kw is not None:  # its parameters are checked here, not in an engine callback
            objective = LambdaObjective(self.objective, **objective_kw)
        evals = []
        for k, (Xe, ye) in enumerate(eval_set or []):
            ye = as_1d_float(ye, f"eval_set[{k}] y")
            off = group_offsets(ye.shape[0], qid=None if eval_qid is None else eval_qid[k],
                                group=None if eval_group is None else eval_group[k])
            evals.append((f"valid_{k}", RankingData(check_features(self, Xe, reset=False), ye, trusted(off))))
        self.validation_queries_ = None
        if not evals and self.early_stopping_rounds and self.validation_fraction is not None:
            split = validation_split(data.starts, float(self.validation_fraction), self.random_state)
            if split is not None:
                data, evals = self._hold_out(data, split)
        if self.early_stopping_rounds and not evals:
            why = ("validation_fraction=None and no eval_set" if self.validation_fraction is None else
                   f"{data.n_groups} queries are too few to hold any out (at least {HOLDOUT_MIN_QUERIES}; "
                   f"one list: {HOLDOUT_MIN_ROWS} rows)")
            warnings.warn(f"early_stopping_rounds={self.early_stopping_rounds} cannot act: {why}, so all "
                          f"{self.n_estimators} rounds are trained.  Pass eval_set= to stop early", UserWarning,
                          stacklevel=2)
        if objective is None:
            objective = self.objective  # the engine's own
        else:  # y bound once, as the engine holds it (float32): the gradients are those of the engine's own labels
            objective = objective.bind(adapter.held_labels(data.y), data.offsets,
                                       adapter.row_weights(data.sample_weight, data.starts),
                                       n_jobs=adapter.objective_threads(self.n_jobs), position=data.position,
                                       learning_rate=self.learning_rate)
        params = {**adapter.sklearn_params(self.learning_rate, self.random_state, self.n_jobs,
                                           log=int(self.verbose) >= 2), **engine_params}
        # verbose: a bar on a terminal (tqdm's disable=None), none in logs and pipes
        with tqdm(total=self.n_estimators, unit="round", desc="boosting",
                  disable=None if int(self.verbose) >= 1 else True) as bar:
            self.booster_, self.evals_result_, best = adapter.train_ranker(
                data, objective=objective, params=params, n_estimators=self.n_estimators, evals=evals,
                metrics=metrics, early_stopping_rounds=self.early_stopping_rounds,
                progress=(lambda text: bar.update(1) or bar.set_postfix_str(text, refresh=False))
                if self.verbose else None)
        self._set_fitted_attributes(adapter.best_iteration(best))
        return self

    def _set_fitted_attributes(self, best_iteration):
        """What ``LGBMRanker`` users reach for, counted the same way on both engines (and on Dask):
        ``best_iteration_`` (from 1, None without early stopping) and what follows from the booster."""
        booster, adapter = self.booster_, ENGINES[self.engine]
        self.n_estimators_ = adapter.n_rounds(booster)
        self.best_iteration_ = best_iteration
        self.feature_importances_ = adapter.importances(booster, self.n_features_in_)
        self.objective_ = self.objective
        at = (self.best_iteration_ or self.n_estimators_) - 1
        self.best_score_ = {name: {metric: values[min(at, len(values) - 1)] for metric, values in scores.items()}
                            for name, scores in self.evals_result_.items()}

    def _hold_out(self, data, split):
        """The training data without the held-out queries, and those queries as the eval set."""
        train_rows, train_off, valid_rows, valid_off, held_q = split
        self.validation_queries_ = held_q
        weight = data.sample_weight
        if weight is not None:  # per row, or (XGBoost) per query
            if weight.shape[0] == data.y.shape[0]:
                weight = weight[train_rows]
            elif held_q is not None:
                weight = weight[~held_q]
        valid = RankingData(_safe_indexing(data.X, valid_rows), data.y[valid_rows], trusted(valid_off))
        train = RankingData(_safe_indexing(data.X, train_rows), data.y[train_rows], trusted(train_off), weight,
                            None if data.position is None else data.position[train_rows])
        return train, [("valid_0", valid)]

    def predict(self, X):
        """Ranking scores (higher is better) of the rows of ``X``, with the best round if early-stopped."""
        self._check_fitted()
        X = check_features(self, X, reset=False)
        scores = ENGINES[self.engine].predict(self.booster_, X, self.best_iteration_)
        if not np.isfinite(scores).all():  # only linear leaves' wᵀx can overflow (leaf sums are checked on load)
            raise ValueError(f"the model produced {int((~np.isfinite(scores)).sum())} NaN/inf scores")
        return scores

    def _statistic(self, y, scores, offsets, sample_weight) -> float:
        """Mean per-query AUC (``objective="auc"``), MAUC (``"mauc"``), else NDCG@10."""
        objective = getattr(self, "objective_", self.objective)
        if objective is None:
            raise ValueError("this model was loaded from a file that does not say what it was trained for: pass "
                             "metric= (e.g. score(X, y, qid=qid, metric='ndcg@10'))")
        statistic = {"auc": auc, "mauc": mauc}.get(objective, functools.partial(ndcg, k=10))
        return query_mean(statistic(y, scores, GroupOffsets(offsets), per_query=True), offsets, sample_weight)

    def save_model(self, path) -> None:
        """Write the booster in the engine's own format (never a pickle).

        LightGBM: its text format, up to the best round, labelled ``objective=lambdarank``
        when trained with boostrank's objective (the raw score, as ours), so onnxmltools
        converts it.  XGBoost: JSON (give the file a ``.json`` suffix), keeping
        ``best_iteration`` so :meth:`load_model` predicts with the best trees, labelled
        ``rank:pairwise`` when trained with boostrank's objective (the raw margin, and a name the
        LTR plugins accept; XGBoost would write ``reg:squarederror``).
        """
        self._check_fitted()
        if str(path) == "" or os.path.isdir(path):
            what = "an empty path" if str(path) == "" else f"the folder {path}"
            raise ValueError(f"save_model needs a file path, got {what}")
        check_out(path, option="save_model:")  # a folder that does not exist: said here, not by the engine's C++
        saved = json.dumps(self._saved_params(), allow_nan=False)
        adapter = ENGINES[self.engine]
        adapter.save_model(self.booster_, path, PARAMS_KEY, saved, self.objective_ not in adapter.NATIVE_OBJECTIVES)

    def _saved_params(self) -> dict:
        """What :meth:`load_model` restores: the scalar parameters, the objective and the list count."""
        params = {k: v for k, v in self.get_params(deep=False).items()
                  if v is None or isinstance(v, (str, bool, int)) or (isinstance(v, float) and math.isfinite(v))}
        return {"params": params, "objective_": getattr(self, "objective_", None),
                "n_groups": int(getattr(self, "n_groups_", 1))}

    def _restore_params(self, text, path) -> None:
        """Parameters saved by :meth:`save_model`; a file without them leaves ``objective_`` None."""
        self.objective_ = None
        if text is None:
            return
        try:
            doc = json.loads(text)
            params, objective, n_groups = doc["params"], doc["objective_"], doc["n_groups"]
            if not isinstance(params, dict) or not (objective is None or isinstance(objective, str)) \
                    or not isinstance(n_groups, int) or n_groups < 1:
                raise ValueError
            known = self.get_params(deep=False)
            params = {k: v for k, v in params.items() if k in known and k != "engine"
                      and (v is None or isinstance(v, (str, bool, int, float)))}
            self.set_params(**params)
        except (ValueError, TypeError, KeyError, RecursionError):
            raise ValueError(f"{path}: damaged model file: its {PARAMS_KEY} entry is not what save_model "
                             f"writes") from None
        self.objective_ = objective
        self.n_groups_ = n_groups

    @classmethod
    def load_model(cls, path, engine: str = "lightgbm") -> "LambdaRanker":
        """A fitted ranker for prediction from :meth:`save_model`'s file.

        :func:`boostrank.load_model` recognises the engine from the file.

        Parameters
        ----------
        path : str or path-like
        engine : {"lightgbm", "xgboost"}, default="lightgbm"

        Returns
        -------
        LambdaRanker
            With ``best_iteration_`` restored from an XGBoost file (LightGBM files already
            end at the best round).
        """
        if engine not in ENGINES:
            raise ValueError(f"engine must be 'lightgbm' or 'xgboost', got {engine!r}")
        ranker = cls(engine=engine)
        ranker.booster_, ranker.n_features_in_, names, ranker.best_iteration_, saved = \
            ENGINES[engine].load_model(path, PARAMS_KEY)
        ranker._restore_params(saved, path)
        if names and not all(re.fullmatch(r"(Column_|f)\d+", n) for n in names):
            ranker.feature_names_in_ = np.asarray(names, dtype=object)
        return ranker


def _is_int(value, low):
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= low

