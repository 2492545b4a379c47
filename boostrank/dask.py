"""Distributed training with ``lightgbm.dask`` / ``xgboost.dask`` and boostrank's λ objectives.

Pairwise objectives need every query whole on one worker: :func:`partition_by_query`
puts each query inside one partition (rows contiguous, in their original order,
query ids non-decreasing across partitions as XGBoost requires), and the training
helpers derive the per-partition group sizes the engines want.  The λ objective then
runs on each worker over its own queries, which is exactly the single-machine
objective because no pair crosses a query.
"""

from __future__ import annotations

import importlib
from typing import Sequence

import numpy as np
import pandas as pd

from ._validation import group_offsets
from .lightgbm import lightgbm_objective
from .objectives import OBJECTIVE_NAMES
from .xgboost import import_xgboost, xgboost_objective
from .xgboost import objective_params as xgb_objective_params

__all__ = ["partition_by_query", "group_sizes", "train_lightgbm", "train_xgboost", "per_partition_agreement"]

_ROW = "_boostrank_row"


def partition_by_query(df, qid: str = "qid", npartitions: int | None = None):
    """Repartition a Dask DataFrame so that no query straddles two partitions.

    Parameters
    ----------
    df : dask.dataframe.DataFrame
    qid : str, default="qid"
        Query-id column.
    npartitions : int, default=None
        Target number of partitions (default: keep the current number).

    Returns
    -------
    dask.dataframe.DataFrame
        Sorted by (qid, original row order); partitions hold whole queries.
    """
    df = df.assign(**{_ROW: 1})
    df = df.assign(**{_ROW: df[_ROW].cumsum()})
    out = df.sort_values([qid, _ROW], npartitions=npartitions or df.npartitions)
    return out.drop(columns=[_ROW])


def _query_runs(qid: pd.Series) -> np.ndarray:
    """First and last query id and the run lengths of one partition."""
    q = qid.to_numpy()
    if q.size == 0:
        return q[:0], np.zeros(0, dtype=np.int64)
    return q[[0, -1]], np.diff(group_offsets(q.size, qid=q))


def _partition_runs(df, qid):
    # Through delayed partitions rather than ``map_partitions``: the latter makes
    # dask-expr compute the divisions of an unsorted frame, which deadlocked a
    # process-based LocalCluster here.
    import dask

    return dask.compute(*[dask.delayed(_query_runs)(p) for p in df[qid].to_delayed()])


def _check_whole_queries(runs) -> None:
    edges = [e for e, _ in runs if e.size]
    for (_, last), (first, _) in zip(edges[:-1], edges[1:]):
        if first <= last:
            raise ValueError("a query spans two partitions or partitions are out of qid order; "
                             "call boostrank.dask.partition_by_query first")


def group_sizes(df, qid: str = "qid"):
    """Query sizes of ``df`` as a Dask array whose chunks line up with its partitions.

    Raises
    ------
    ValueError
        If a query straddles two partitions or partitions are not in qid order.
    """
    import dask.array as da

    runs = _partition_runs(df, qid)
    _check_whole_queries(runs)
    return da.concatenate([da.from_array(sizes, chunks=max(len(sizes), 1)) for _, sizes in runs])


def _materialise(client, df):
    """``df`` computed once on the workers.

    A lazy ``partition_by_query`` sorts by sampling its partition boundaries anew at each
    evaluation: the group sizes and the data the engine reads would come from two different
    evaluations ("Sum of query counts (997) differs from the length of #data (934)").  The
    engines hold the data in the workers' memory anyway, so one persisted copy costs nothing
    extra.
    """
    from distributed import wait

    df = client.persist(df)
    wait(df)
    return df


def _one_list_groups(df, one_list):
    if one_list != "per_partition":
        raise ValueError("qid=None: a single list split over partitions loses the pairs between partitions; "
                         "pass one_list='per_partition' to train on each partition as its own list "
                         "(see boostrank.dask.per_partition_agreement), or train on one machine with "
                         "LambdaRanker(link='probit')")
    import dask
    import dask.array as da

    lengths = dask.compute(*[dask.delayed(len)(p) for p in df.to_delayed()])
    return da.concatenate([da.from_array(np.array([n], dtype=np.int64), chunks=1) for n in lengths])


def per_partition_agreement(scores, labels, n_partitions: int, *, random_state=None, metric: str = "auc",
                            **objective_kw) -> dict:
    """How the per-partition λ of one list compares with the full-list λ.

    Rows are dealt at random into ``n_partitions`` lists (what a randomly
    partitioned Dask DataFrame gives each worker); the λs of each part are compared
    with the λs of the whole list.

    Returns
    -------
    dict
        ``cosine`` (1 = same direction), ``scale`` (least-squares factor from the
        full λ to the per-partition λ; Newton steps divide it out with the hessian)
        and ``relative_error`` after that scaling.
    """
    from .objectives import lambda_gradients

    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels)
    full, _ = lambda_gradients(s, y, metric=metric, **objective_kw)
    rng = np.random.default_rng(random_state)
    perm = rng.permutation(s.size)
    parts = np.array_split(perm, n_partitions)
    order = np.concatenate(parts)
    offsets = np.r_[0, np.cumsum([len(p) for p in parts])]
    local_sorted, _ = lambda_gradients(s[order], y[order], offsets, metric=metric, **objective_kw)
    local = np.empty_like(local_sorted)
    local[order] = local_sorted
    cos = float(full @ local / (np.linalg.norm(full) * np.linalg.norm(local) or 1.0))
    scale = float(full @ local / (full @ full or 1.0))
    rel = float(np.linalg.norm(local - scale * full) / (np.linalg.norm(local) or 1.0))
    return {"cosine": cos, "scale": scale, "relative_error": rel, "n_partitions": n_partitions}


def train_lightgbm(client, df, *, label: str, qid: str | None = "qid", features: Sequence[str] | None = None,
                   objective: str = "auc", objective_params: dict | None = None, one_list: str | None = None,
                   **params):
    """Fit ``lightgbm.dask.DaskLGBMRanker`` with a boostrank λ objective.

    Parameters
    ----------
    client : distributed.Client
    df : dask.dataframe.DataFrame
        Partitioned by query (see :func:`partition_by_query`).
    label, qid : str
        Column names.
    features : sequence of str, default=None
        Feature columns (default: all others).
    objective : {"auc", "mauc", "ndcg"} or a LightGBM objective name, default="auc"
    objective_params : dict, default=None
        ``sigma``, ``threshold``, ``link``, ``method`` of the λ objective.
    one_list : {"per_partition"} or None, default=None
        With ``qid=None`` (one list), required: each partition is trained as its
        own list (see the module notes).
    **params
        ``DaskLGBMRanker`` parameters (``n_estimators``, ``num_leaves``, ...).

    Returns
    -------
    lightgbm.dask.DaskLGBMRanker
    """
    import lightgbm as lgb

    df = _materialise(client, df)
    group = group_sizes(df, qid) if qid is not None else _one_list_groups(df, one_list)
    features = list(features) if features is not None else [c for c in df.columns if c not in (label, qid)]
    obj = objective
    if objective in OBJECTIVE_NAMES:
        obj = lightgbm_objective(objective, **(objective_params or {}))
    params.setdefault("verbose", -1)
    model = lgb.DaskLGBMRanker(client=client, objective=obj, **params)
    return model.fit(df[features], df[label], group=group)


def train_xgboost(client, df, *, label: str, qid: str = "qid", features: Sequence[str] | None = None,
                  objective: str = "auc", objective_params: dict | None = None,
                  num_boost_round: int = 100, params: dict | None = None):
    """Train with ``xgboost.dask.train`` and a boostrank λ objective.

    Returns
    -------
    dict
        ``xgboost.dask.train``'s output: ``{"booster": Booster, "history": ...}``.
    """
    xgb = import_xgboost()
    importlib.import_module("xgboost.dask")  # registers xgb.dask

    df = _materialise(client, df)
    _check_whole_queries(_partition_runs(df, qid))
    features = list(features) if features is not None else [c for c in df.columns if c not in (label, qid)]
    dtrain = xgb.dask.DaskDMatrix(client, df[features], df[label], qid=df[qid])
    params = {"tree_method": "hist", **xgb_objective_params(objective), **(params or {})}
    obj = xgboost_objective(objective, **(objective_params or {})) if objective in OBJECTIVE_NAMES else None
    return xgb.dask.train(client, params, dtrain, num_boost_round=num_boost_round, obj=obj)
