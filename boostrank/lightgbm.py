"""LightGBM adapters: λ objectives and eval metrics in both of LightGBM's call forms.

``lgb.train(params={"objective": obj})`` calls ``obj(preds, train_data)``;
``LGBMRanker(objective=obj)`` counts the callable's parameters and, for four, calls
``obj(y_true, y_pred, weight, group)`` (a ``*args`` wrapper would never receive
``group``, LightGBM issue 7018).  One callable with four parameters serves both.
"""

from __future__ import annotations


from ._validation import offsets_from_sizes
from .objectives import EvalMetric, LambdaObjective

__all__ = ["lightgbm_objective", "lightgbm_metric", "LightGBMObjective", "LightGBMMetric"]


def _unpack(a, b, c, d):
    """(key, scores, loader) from either call form; the loader runs on cache misses."""
    if hasattr(b, "get_group"):  # lgb.train: (preds, Dataset)
        def load():
            sizes = b.get_group()
            return b.get_label(), None if sizes is None else offsets_from_sizes(sizes), b.get_weight()
        return b, a, load

    def load():  # LGBMRanker: (y_true, y_pred, weight, group)
        return a, None if d is None else offsets_from_sizes(d), c
    return a, b, load


class LightGBMObjective:
    """λ objective for LightGBM; build it with :func:`lightgbm_objective`."""

    def __init__(self, objective: LambdaObjective):
        self.objective = objective

    def __repr__(self):
        return f"lightgbm_objective({self.objective.metric!r})"

    def __call__(self, preds, train_data, weight=None, group=None):
        key, scores, load = _unpack(preds, train_data, weight, group)
        return self.objective.gradients(scores, self.objective.prepared(key, load))


class LightGBMMetric:
    """Eval metric for LightGBM; build it with :func:`lightgbm_metric`."""

    def __init__(self, metric: EvalMetric):
        self.metric = metric

    def __call__(self, preds, eval_data, weight=None, group=None):
        key, scores, load = _unpack(preds, eval_data, weight, group)
        return self.metric.name, self.metric.value(key, scores, load), True


def lightgbm_objective(metric: str = "auc", **kw) -> LightGBMObjective:
    """λ-AUC / λ-MAUC / λ-NDCG objective for ``lgb.train`` and ``LGBMRanker``.

    Parameters
    ----------
    metric : {"auc", "mauc", "ndcg"}, default="auc"
    **kw
        ``sigma``, ``threshold``, ... of :class:`boostrank.objectives.LambdaObjective`.

    Returns
    -------
    LightGBMObjective
        Use as ``lgb.train({"objective": obj, ...}, ds)`` or ``LGBMRanker(objective=obj)``.
        Groups come from the Dataset (``group=``); without them the data is one list.

    Examples
    --------
    >>> import lightgbm as lgb, numpy as np
    >>> X, y = np.random.default_rng(0).normal(size=(40, 3)), np.tile([1, 0, 0, 0], 10)
    >>> ds = lgb.Dataset(X, y, group=[4] * 10)
    >>> params = {"objective": lightgbm_objective("auc"), "verbose": -1, "min_data_in_leaf": 2}
    >>> booster = lgb.train(params, ds, num_boost_round=3)
    """
    return LightGBMObjective(LambdaObjective(metric, **kw))


def lightgbm_metric(name: str = "auc") -> LightGBMMetric:
    """Eval metric for ``lgb.train(feval=...)`` and ``LGBMRanker.fit(eval_metric=...)``.

    Parameters
    ----------
    name : str, default="auc"
        ``"auc"``, ``"auc_pessimistic"``, ``"mauc"``, or a :func:`boostrank.get_metric`
        name (``"ndcg@10"``, ``"map"``, ...); averaged over the queries of the data set.
    """
    return LightGBMMetric(EvalMetric(name))
