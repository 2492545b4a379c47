"""What boostrank's four estimators share: the ranking ``fit``/``predict``/``score`` contract.

:class:`RankingEstimator` is to :class:`boostrank.LambdaRanker`, :class:`boostrank.RankNCG`,
:class:`boostrank.MIPRanker` and :class:`boostrank.TopKReranker` what scikit-learn's
``BaseEstimator`` and its mixins are to its estimators:

* parameters declared as data (``_parameter_constraints``, scikit-learn's constraint
  types) and checked once at the start of ``fit`` (:meth:`RankingEstimator._validate_params`);
* ``fit(X, y, *, qid=None, group=None, ...)``: query ids or sizes by keyword, ``qid``
  requested as fit and score metadata; ``sample_weight`` is a parameter of the estimators
  that use it (LambdaRanker, MIPRanker) and of no other (scikit-learn's checks read the
  signature: a parameter that refused weights would fail them);
* one fitted check, one ``score`` (the estimator's own statistic, or any
  :func:`boostrank.get_metric` name, averaged over queries);
* one vocabulary: ``objective`` is what the estimator optimises, ``verbose`` is 0 (silent),
  1 (a progress bar) or 2 (also the engine's or solver's own log), ``random_state=None``
  is a fixed default seed (LightGBM's convention: the same data fits the same model).
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from ._compat import Interval, StrOptions, validate_parameter_constraints
from ._validation import (OneListWarning, RankingData, as_1d_float, check_positions, check_sample_weight, group_offsets,
                          trusted)
from ._validation import warn_user
from .metrics.arrays import GroupOffsets, query_mean

__all__ = ["RankingEstimator", "Interval", "StrOptions", "Integral", "Real", "VERBOSE", "RANDOM_STATE",
           "DEFAULT_SEED", "seed_of"]

#: ``verbose``: 0, 1, 2 (True is 1)
VERBOSE = [Interval(Integral, 0, 2, closed="both"), "boolean"]
#: ``random_state``: None (a fixed default seed) or a seed
RANDOM_STATE = [Interval(Integral, 0, 2**32 - 1, closed="both"), None]
#: the seed ``random_state=None`` stands for
DEFAULT_SEED = 0


def seed_of(random_state) -> int:
    """The seed of boostrank's own random draws: ``random_state``, or :data:`DEFAULT_SEED` for None."""
    return DEFAULT_SEED if random_state is None else int(random_state)


class RankingEstimator(BaseEstimator):
    """Base class of boostrank's estimators (see the module docstring).

    Subclasses declare ``_parameter_constraints`` and ``_fitted_attribute``, and implement
    ``fit``, the scores (``predict`` or ``decision_function``) and :meth:`_statistic` (what
    ``score`` reports by default).
    """

    __metadata_request__fit = {"qid": True}
    __metadata_request__score = {"qid": True}

    #: {parameter: [allowed kinds]}, scikit-learn's constraint types; every constructor parameter has an entry
    _parameter_constraints: dict = {}
    #: the attribute a fit sets (what ``NotFittedError`` checks)
    _fitted_attribute = "coef_"
    #: a fit without groups is the estimator's own setting, a statistic of one data set (Raykar's WMW, Rudin &
    #: Wang's AUC), so it says nothing; the rankers of queries say that the rows became one list
    _one_list_setting = False

    def _validate_params(self, finite: tuple = ()) -> None:
        """Every parameter against ``_parameter_constraints`` (scikit-learn's ``InvalidParameterError``, a
        ``ValueError``, names the parameter, what it must be and what it got); ``finite``: names whose value
        must not be NaN or ±inf (they pass the intervals' comparisons)."""
        params = self.get_params(deep=False)
        validate_parameter_constraints(self._parameter_constraints, params, caller_name=type(self).__name__)
        for key in finite:
            if params[key] is not None and not math.isfinite(params[key]):
                raise ValueError(f"{key} must be finite, got {params[key]!r}")

    def _ranking_data(self, X, y, qid, group, sample_weight=None, *, features,
                      per_query_weights: bool = False, position=None) -> RankingData:
        """The fit's :class:`~boostrank._validation.RankingData`: each input checked once, by one rule.

        ``features(X)`` checks the features as the estimator takes them (it may set
        ``n_features_in_``).  Without ``qid`` and ``group`` the rows are one list, said aloud
        (:class:`OneListWarning`) unless ``group=[n]`` makes it explicit or one list is the
        estimator's setting (``_one_list_setting``): LightGBM's and XGBoost's rankers refuse a fit
        without groups; one long list (a prioritisation list, a single search log) is a use of its
        own here, but not by accident.  ``sample_weight``: one per row or one
        per query, repeated over the query's rows unless ``per_query_weights`` (XGBoost's rule).
        ``position``: each row's 0-based display rank (:func:`~boostrank._validation.check_positions`).
        """
        if y is None:  # scikit-learn's wording, which its model selection recognises
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        X = features(X)
        y = as_1d_float(y, "y")
        if X.shape[0] != y.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}")
        n = y.shape[0]
        if qid is None and group is None and n > 1 and not self._one_list_setting:
            warn_user(f"{type(self).__name__}.fit got neither qid nor group, so its {n} rows are ranked as one "
                      f"list.  Pass qid= (or group=) for several lists, or group=[{n}] to fit one list without "
                      f"this warning (in scikit-learn's model selection: set_config(enable_metadata_routing=True) "
                      f"and pass qid to fit)", OneListWarning)
        offsets = group_offsets(n, qid=qid, group=group)
        weight = None if sample_weight is None else check_sample_weight(sample_weight, offsets, per_query_weights)
        position = None if position is None else check_positions(position, offsets)
        return RankingData(X, y, trusted(offsets), weight, position)

    def _check_fitted(self) -> None:
        check_is_fitted(self, self._fitted_attribute)

    def _ranking_scores(self, X, qid, group, **params) -> np.ndarray:
        """The scores ``score`` ranks by (``decision_function`` or ``predict``)."""
        return self.decision_function(X) if hasattr(self, "decision_function") else self.predict(X)

    def _statistic(self, y, scores, offsets, sample_weight) -> float:
        """What ``score`` reports without ``metric``: the estimator's own statistic (subclasses)."""
        raise NotImplementedError

    def score(self, X, y, *, qid=None, group=None, sample_weight=None, metric: str | None = None,
              **predict_params) -> float:
        """The estimator's statistic of its scores on ``X, y`` (higher is better).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        qid, group : array-like, default=None
            Query groups of ``X``.  Required when the model was trained on several
            queries: scoring a fold as one list would silently measure something else.
        sample_weight : array-like of shape (n_samples,), default=None
            Each query counts with the mean weight of its rows (with ``metric``, or
            the estimator's own per-query statistic).
        metric : str, default=None
            Any :func:`boostrank.get_metric` name (``"auc"``, ``"ndcg@10"``, ...), averaged
            over the queries where defined; None: what the estimator optimises
            (``objective``).
        **predict_params
            What the estimator's ``predict`` takes besides ``X`` (:class:`boostrank.TopKReranker`:
            ``base_scores``).

        Returns
        -------
        float
        """
        self._check_fitted()
        if qid is None and group is None and getattr(self, "n_groups_", 1) > 1:
            raise ValueError(f"score needs qid (or group): the model was trained on several queries.  In "
                             f"GridSearchCV, set sklearn.set_config(enable_metadata_routing=True) and pass qid to "
                             f"fit ({type(self).__name__})")
        y = as_1d_float(y, "y")
        offsets = group_offsets(y.shape[0], qid=qid, group=group)
        scores = self._ranking_scores(X, qid, group, **predict_params)
        if metric is None:
            return float(self._statistic(y, scores, offsets, sample_weight))
        from .metrics.arrays import get_metric

        values = get_metric(metric)(y, scores, GroupOffsets(offsets), per_query=True)
        return query_mean(values, offsets, sample_weight)

    def _progress(self, total, desc):
        """A tqdm bar over ``total`` steps when ``verbose`` ≥ 1 (on a terminal; none in logs and pipes)."""
        from tqdm.auto import tqdm

        return tqdm(total=total, desc=desc, unit="step", leave=False,
                    disable=None if int(self.verbose) >= 1 else True)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags
