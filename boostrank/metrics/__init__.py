"""Rank metrics that agree with the standard tools.

Every metric takes ``(y, scores, qid=None)``: ``y`` the labels, ``scores`` any
model's scores (higher is better), ``qid`` the query of each row.  Rows of a query
must be contiguous (as in a LETOR file); without ``qid`` the whole input is one
list.  With ``qid`` a metric is the mean of its per-query values over the queries
where it is defined; ``per_query=True`` returns those values instead (NaN where
undefined), so the number of queries used is ``np.count_nonzero(~np.isnan(v))``.
A metric with no defined query returns NaN.

The metrics live in :mod:`boostrank.metrics.arrays`; :func:`metric_table` and
:func:`format_table`, the command line's table of several runs, live with the other
reports in :mod:`boostrank.evaluation.report` and are reached here too.
"""

from .arrays import (LETOR_METRICS, MAX_CUTOFF, METRIC_NAMES, GroupOffsets, Metric, TieWarning, auc,
                     canonical_metric, docid_desc_order, err, get_metric, group_offsets, mauc, mean_average_precision,
                     minrank, ndcg, parse_metric, precision, precision_at, query_mean, query_scorer, r_precision,
                     rank_gain, rank_risk, recall, reciprocal_rank, resolved_rank, trec_ties, wmw)

__all__ = ["auc", "mauc", "wmw", "ndcg", "mean_average_precision", "precision_at", "precision", "recall",
           "reciprocal_rank", "r_precision", "err", "minrank", "resolved_rank", "rank_risk", "get_metric",
           "canonical_metric", "parse_metric", "Metric", "METRIC_NAMES", "GroupOffsets", "metric_table",
           "format_table", "query_mean", "query_scorer"]


def __getattr__(name):
    # reports sit above the metrics (evaluation imports metrics.arrays): the table is reached on first use
    if name in ("metric_table", "format_table"):
        from ..evaluation.report import format_table, metric_table

        return {"metric_table": metric_table, "format_table": format_table}[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | {"metric_table", "format_table"})
