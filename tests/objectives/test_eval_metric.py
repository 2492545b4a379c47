"""boostrank.objectives.eval_metric: the engines' evaluation hook is the metric's mean over the queries, named
apart from the engines' own metrics, bound once per eval set."""

import warnings

import numpy as np
import pytest

import boostrank as br
from boostrank.exceptions import TieWarning
from boostrank.objectives.eval_metric import EvalMetric, bound_metric

from ..conftest import random_ranking


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("name, spec", [("auc", "auc"), ("auc_pessimistic", "auc:pessimistic"), ("mauc", "mauc"),
                                        ("mauc_pessimistic", "mauc:pessimistic"), ("ndcg@5", "ndcg@5"),
                                        ("map", "map")])
def test_each_query_and_the_mean_equal_the_metric(seed, name, spec):
    """Tied scores (boosting's first rounds), single-class and one-row queries: the hook is the metric, silently."""
    y, s, qid = random_ranking(seed, n_queries=7, max_len=9, n_grades=3, tie_levels=3)
    offsets = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1], True])
    metric = EvalMetric(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TieWarning)  # the hook never warns of ties
        per_query = metric.per_query(y, s, offsets)
        value = metric.bind(y, offsets).value(s)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TieWarning)
        want = br.get_metric(spec)(y, s, qid, per_query=True)
        mean = br.get_metric(spec)(y, s, qid)
    np.testing.assert_array_equal(per_query, want)
    assert value == pytest.approx(mean, nan_ok=True)
    assert metric.engine_name == "br_" + name  # never one of LightGBM's or XGBoost's own names


def test_without_offsets_the_eval_set_is_one_list():
    y = np.array([1.0, 0.0, 1.0, 0.0])
    s = np.array([0.9, 0.8, 0.1, 0.2])
    assert EvalMetric("auc").bind(y).value(s) == br.auc(y, s) == 0.5


def test_an_unknown_name_is_refused_before_any_round():
    with pytest.raises(ValueError, match="unknown metric"):
        EvalMetric("ndgc@5")


def test_eval_sets_are_bound_once_and_at_most_eight_are_kept():
    metric, bound, loads = EvalMetric("auc"), [], []
    sets = [object() for _ in range(10)]
    y, offsets = np.array([1.0, 0.0]), np.array([0, 2])

    def load(k):
        loads.append(k)
        return y, offsets, None

    first = bound_metric(bound, metric, sets[0], lambda: load(0))
    assert bound_metric(bound, metric, sets[0], lambda: load(0)) is first and loads == [0]  # matched by identity
    for k in range(1, 10):
        bound_metric(bound, metric, sets[k], lambda k=k: load(k))
    assert len(bound) == 8 and [seen for seen, _ in bound] == sets[2:]  # the oldest dropped
    assert bound_metric(bound, metric, sets[9], lambda: load(9)).value(np.array([0.2, 0.1])) == 1.0
    assert loads == list(range(10))
