"""The engines' evaluation hook: a boostrank metric averaged over the queries of an eval set."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np

from .._validation import GroupOffsets, as_1d_float, group_offsets, trusted
from ..metrics.arrays import TieWarning, get_metric

__all__ = ["EvalMetric", "BoundMetric", "bound_metric"]

_ALIASES = {"auc_pessimistic": "auc:pessimistic", "mauc_pessimistic": "mauc:pessimistic"}


@contextlib.contextmanager
def _no_tie_warning():
    """Boosting's early rounds tie scores by construction (all start at 0): no TieWarning from the engines' hooks."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TieWarning)
        yield


class EvalMetric:
    """An evaluation metric over query groups, for the engines' eval hooks.

    Parameters
    ----------
    name : str
        ``"auc"``, ``"auc_pessimistic"``, ``"mauc"`` or any :func:`boostrank.get_metric`
        name such as ``"ndcg@10"`` or ``"map"``.
    """

    def __init__(self, name: str = "auc"):
        get_metric(_ALIASES.get(name, name))  # an unknown name is refused here, before any round
        self.name = name
        #: the name engines log: never one of LightGBM's or XGBoost's built-in metric names
        self.engine_name = "br_" + name

    def __repr__(self):
        return f"EvalMetric({self.name!r})"

    def per_query(self, labels, scores, offsets) -> np.ndarray:
        """Each query's value (NaN where undefined)."""
        with _no_tie_warning():
            return np.asarray(get_metric(_ALIASES.get(self.name, self.name))(
                as_1d_float(labels, "labels"), np.asarray(scores, dtype=np.float64).reshape(-1),
                GroupOffsets(offsets), per_query=True), dtype=np.float64)

    def bind(self, labels, offsets=None) -> "BoundMetric":
        """This metric on one eval set's labels and query offsets (None: one list), checked once."""
        y = as_1d_float(labels, "labels")
        return BoundMetric(self, y, trusted(group_offsets(y.shape[0], offsets=offsets)))


class BoundMetric:
    """An :class:`EvalMetric` bound to one eval set: :meth:`value` of each round's scores."""

    def __init__(self, metric: EvalMetric, labels: np.ndarray, offsets: GroupOffsets):
        self.metric, self.labels, self.offsets = metric, labels, offsets
        self._fn = get_metric(_ALIASES.get(metric.name, metric.name))

    def value(self, scores) -> float:
        """The metric's mean over the queries."""
        with _no_tie_warning():
            return float(self._fn(self.labels, np.asarray(scores, dtype=np.float64).reshape(-1), self.offsets))


#: most eval sets an engine hook keeps bound at once (each round hands them in turn)
_MAX_BOUND = 8


def bound_metric(bound: list, metric: EvalMetric, key, load) -> BoundMetric:
    """The metric bound to the eval set ``key`` (``load() -> (labels, offsets, ...)`` on first sight), kept in
    ``bound``: a short list of (data object, bound metric) that an engine hook owns, matched by identity."""
    for seen, hit in bound:
        if seen is key:
            return hit
    labels, offsets = load()[:2]
    hit = metric.bind(labels, offsets)
    if len(bound) >= _MAX_BOUND:
        del bound[0]
    bound.append((key, hit))
    return hit
