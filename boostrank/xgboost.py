"""XGBoost adapters: ``obj(predt, dtrain)`` for ``xgb.train(obj=...)`` and ``custom_metric``.

Query groups come from ``dtrain.get_uint_info("group_ptr")`` (uint32, cast to int64
before arithmetic); a DMatrix without groups is one list.  ``XGBRanker`` refuses
callable objectives: use :class:`boostrank.LambdaRanker` for a scikit-learn API.
"""

from __future__ import annotations

import numpy as np

from .objectives import EvalMetric, LambdaObjective

__all__ = ["xgboost_objective", "xgboost_metric", "XGBoostObjective", "XGBoostMetric"]


def _groups(dtrain):
    ptr = dtrain.get_uint_info("group_ptr").astype(np.int64)
    return ptr if ptr.size else None


def _row_weights(dtrain, offsets):
    """Per-row weights; XGBoost stores one weight per group for ranking data."""
    w = dtrain.get_weight()
    if w.size == 0:
        return None
    if offsets is not None and w.size == offsets.size - 1:
        return np.repeat(w.astype(np.float64), np.diff(offsets))
    return w.astype(np.float64)


class XGBoostObjective:
    """λ objective for ``xgb.train(obj=...)``; build it with :func:`xgboost_objective`."""

    def __init__(self, objective: LambdaObjective):
        self.objective = objective
        # XGBoost runs its own bundled libgomp, Numba the system one: each runtime's idle
        # threads spin against the other's work on the same cores.  With Numba's two
        # threads a 10^6-row fast λ-AUC round took 247 ms (objective 115 ms, trees 132 ms);
        # with one, 227 ms (190 ms + 37 ms).  LightGBM shares Numba's libgomp and keeps both.
        objective.parallel_min_rows = None

    def __repr__(self):
        return f"xgboost_objective({self.objective.metric!r})"

    def __call__(self, predt, dtrain):
        def load():
            offsets = _groups(dtrain)
            return dtrain.get_label(), offsets, _row_weights(dtrain, offsets)
        return self.objective.gradients(predt, self.objective.prepared(dtrain, load))


class XGBoostMetric:
    """``custom_metric`` for ``xgb.train``; higher is better (pass ``maximize=True``)."""

    def __init__(self, metric: EvalMetric):
        self.metric = metric

    def __call__(self, predt, dtrain):
        return self.metric.name, self.metric.value(
            dtrain, predt, lambda: (dtrain.get_label(), _groups(dtrain), None))


def xgboost_objective(metric: str = "auc", **kw) -> XGBoostObjective:
    """λ-AUC / λ-MAUC / λ-NDCG objective for ``xgb.train(params, dtrain, obj=...)``.

    Parameters
    ----------
    metric : {"auc", "mauc", "ndcg"}, default="auc"
    **kw
        ``sigma``, ``threshold``, ... of :class:`boostrank.objectives.LambdaObjective`.

    Notes
    -----
    λ-AUC hessians are small (about 0.1 per document), so XGBoost's default
    ``min_child_weight=1`` blocks most splits; use something like 1e-3.
    """
    return XGBoostObjective(LambdaObjective(metric, **kw))


def xgboost_metric(name: str = "auc") -> XGBoostMetric:
    """Eval metric for ``xgb.train(custom_metric=...)``; see :func:`boostrank.lightgbm_metric`."""
    return XGBoostMetric(EvalMetric(name))
