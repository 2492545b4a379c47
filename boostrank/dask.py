"""Distributed training: :class:`DaskLambdaRanker`, and what the engines' own Dask rankers need.

Pairwise objectives need every query whole on one worker: :func:`partition_by_query`
puts each query inside one partition (rows contiguous, in their original order,
query ids non-decreasing across partitions as XGBoost requires) and :func:`group_sizes`
gives the per-partition group sizes ``lightgbm.DaskLGBMRanker`` wants.  The λ objective
(:func:`boostrank.lightgbm_objective`, :func:`boostrank.xgboost_objective`) then runs on
each worker over its own queries, which is exactly the single-machine objective because
no pair crosses a query.
"""

from __future__ import annotations


import numpy as np
import pandas as pd

from ._validation import group_offsets
from .objectives.eval_metric import EvalMetric
from .objectives.objective import LambdaObjective, label_mass
from .ranker import DEFAULT_METRIC, ENGINES, LambdaRanker

__all__ = ["DaskLambdaRanker", "partition_by_query", "group_sizes"]

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
        Sorted by (qid, original row order); partitions hold whole queries.  ``.persist()`` it
        before reading :func:`group_sizes` and handing it to an engine: a lazy sort samples its
        partition boundaries anew at each evaluation, so the sizes and the rows the engine reads
        would come from two evaluations (LightGBM: "Sum of query counts differs from the length
        of #data").  :class:`DaskLambdaRanker` does this itself.
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

    # the sort's partition boundaries are computed here, on the client: left to the scheduler, which
    # builds the graph in a thread of its own, that computation waited on the scheduler itself
    df.__dask_graph__()
    df = client.persist(df)
    wait(df)
    return df


# ---------------------------------------------------------------- the estimator

_LABEL, _QID, _WEIGHT, _POSITION = "_boostrank_label", "_boostrank_qid", "_boostrank_weight", "_boostrank_position"


def _is_dask(x) -> bool:
    import dask

    return dask.is_dask_collection(x)


def _query_frame(client, X, y, qid, weight=None, npartitions=None, position=None):
    """One Dask DataFrame of features, label, qid (and weight, position), whole queries per partition, computed
    once; with positions, each query's rows in display order (how the workers' objectives read them).

    Accepts Dask DataFrames/Series/Arrays with aligned partitions, or in-memory data
    (split into one partition per worker).
    """
    columns = {name: col for name, col in ((_LABEL, y), (_QID, qid), (_WEIGHT, weight), (_POSITION, position))
               if col is not None}
    ddf = _lazy_frame(client, X, columns) if _is_dask(X) else _local_frame(client, X, columns, npartitions)
    features = [c for c in ddf.columns if c not in (_LABEL, _QID, _WEIGHT, _POSITION)]
    ddf = _materialise(client, ddf)  # one evaluation of the input, whatever follows
    held = [c for c in (_LABEL, _QID) if c in ddf.columns]
    absent = client.compute(ddf[held].isna().sum(), sync=True)  # a Dask column aligned by index leaves holes
    for name, count in absent.items():
        if count:
            what = name.replace("_boostrank_", "").replace("label", "y")
            raise ValueError(f"{int(count)} rows of X have no {what}: a Dask {what} shorter than X or indexed "
                             f"otherwise (give it X's partitions and index), or missing values in it")
    lengths = np.asarray(client.compute(ddf.map_partitions(len), sync=True), dtype=np.int64)
    if lengths.sum() == 0:
        raise ValueError("no rows to train on (every partition is empty)")
    if (lengths == 0).any():  # a filter that emptied partitions: the engines' workers fail on empty ones
        ddf = _materialise(client, ddf.partitions[np.flatnonzero(lengths).tolist()])
    try:  # already whole queries in qid order (data written by query): no shuffle
        _check_whole_queries(_partition_runs(ddf, _QID))
    except ValueError:
        ddf = _materialise(client, partition_by_query(ddf, _QID))
    if position is not None:
        ddf = _materialise(client, ddf.map_partitions(_in_display_order, meta=ddf._meta))
        bad = [b for b in client.compute([_delayed(_first_bad_positions)(p) for p in ddf.to_delayed()], sync=True)
               if b is not None]
        if bad:
            raise ValueError(f"on Dask, positions travel as each query's row order: query {bad[0][0]} shows "
                             f"{bad[0][1]} where its {bad[0][2]} rows need the ranks 0 … {bad[0][2] - 1} once each")
    return ddf, features


def _in_display_order(part):
    """A partition's queries, each with its rows in the order of their positions (stable)."""
    if not len(part):
        return part
    runs = np.cumsum(np.r_[True, part[_QID].to_numpy()[1:] != part[_QID].to_numpy()[:-1]])
    return part.iloc[np.lexsort((part[_POSITION].to_numpy(), runs))]


def _first_bad_positions(part):
    """(query, its positions, its size) of the first query whose positions are not 0 … n − 1, or None."""
    if not len(part):
        return None
    q, pos = part[_QID].to_numpy(), part[_POSITION].to_numpy()
    offsets = group_offsets(q.size, qid=q)
    for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist()):
        if not np.array_equal(pos[a:b], np.arange(b - a)):
            return q[a], pos[a:b][:10].tolist(), b - a
    return None


def _local_frame(client, X, columns, npartitions):
    """In-memory features and columns as one Dask DataFrame, a partition per worker (or ``npartitions``)."""
    import dask.dataframe as dd

    n = len(X)
    frame = pd.DataFrame(np.asarray(X) if not hasattr(X, "columns") else X.copy())
    if not hasattr(X, "columns"):
        frame.columns = [f"f{j}" for j in range(frame.shape[1])]
    for name, col in columns.items():
        col = np.asarray(col).reshape(-1)
        if col.shape[0] != n:
            raise ValueError(f"{name.replace('_boostrank_', '')} has {col.shape[0]} entries for {n} rows")
        frame[name] = col
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    return dd.from_pandas(frame, npartitions=npartitions or workers)


def _lazy_frame(client, X, columns):
    """Dask features with the label, qid and weight columns attached: Dask ones aligned by partition,
    in-memory ones cut at the partitions' row counts."""
    import dask.dataframe as dd

    ddf = X if hasattr(X, "columns") else dd.from_dask_array(X, columns=[f"f{j}" for j in range(X.shape[1])])
    local = {name: col for name, col in columns.items() if not _is_dask(col)}
    if local:  # in-memory columns beside lazy features: cut them at the partitions' row counts
        lengths = np.asarray(client.compute(ddf.map_partitions(len), sync=True), dtype=np.int64)
        cuts = np.r_[0, np.cumsum(lengths)]
        for name, col in local.items():
            col = np.asarray(col).reshape(-1)
            if col.shape[0] != cuts[-1]:
                raise ValueError(f"{name.replace('_boostrank_', '')} has {col.shape[0]} entries for "
                                 f"{cuts[-1]} rows of X")
            local[name] = col
        ddf = ddf.map_partitions(_attach, local, cuts, meta=ddf._meta.assign(
            **{name: np.asarray(col[:0]) for name, col in local.items()}))
    lazy = {name: col for name, col in columns.items() if name not in local}
    if lazy:
        try:
            ddf = ddf.assign(**lazy)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"y, qid and sample_weight must be aligned with X (Dask collections with X's "
                             f"partitions, or in-memory arrays of its length): {str(exc)[:200]}") from None
    return ddf


def _attach(part, columns, cuts, partition_info=None):
    """``part`` with the slices of in-memory ``columns`` that belong to its rows (partition ``number``)."""
    k = partition_info["number"]
    return part.assign(**{name: col[cuts[k]:cuts[k + 1]] for name, col in columns.items()})


def _labels_ok(part, objective, held):
    """This partition's labels checked as its worker's objective will bind them; their mass for the anchor."""
    y = held(part[_LABEL].to_numpy(dtype=np.float64))
    weight = held(part[_WEIGHT].to_numpy(dtype=np.float64)) if _WEIGHT in part.columns else None
    objective.bind(y, group_offsets(y.shape[0], qid=part[_QID].to_numpy()), weight)
    return label_mass(y, weight)


def _metric_sums(part, booster, features, engine, names, n_rounds):
    """Per round: the sum of each metric over this partition's queries where defined, and their count."""
    X = part[features]
    y = part[_LABEL].to_numpy(dtype=np.float64)
    offsets = group_offsets(y.shape[0], qid=part[_QID].to_numpy())
    metrics = [EvalMetric(m) for m in names]
    sums = np.zeros((len(names), n_rounds))
    counts = np.zeros((len(names), n_rounds))
    if y.shape[0] == 0:
        return sums, counts
    s = np.zeros(y.shape[0])
    round_scores = ENGINES[engine].round_scores(booster, X)
    for r in range(n_rounds):  # one round's trees at a time
        s += round_scores(r)
        for i, m in enumerate(metrics):
            v = m.per_query(y, s, offsets)
            ok = ~np.isnan(v)
            sums[i, r], counts[i, r] = v[ok].sum(), ok.sum()
    return sums, counts


def _predict_part(part, booster, features, engine, best):
    X = part[features] if hasattr(part, "columns") else pd.DataFrame(part, columns=features)
    return ENGINES[engine].predict(booster, X, best)


def _best_round(values, patience):
    """The rounds early stopping keeps: LightGBM's rule (stop after ``patience`` rounds without a gain)."""
    best, best_r = -np.inf, 0
    for r, v in enumerate(values):
        if v > best:
            best, best_r = v, r
        elif r - best_r >= patience:
            break
    return best_r + 1


class DaskLambdaRanker(LambdaRanker):
    """:class:`boostrank.LambdaRanker` on a Dask cluster: the same parameters, the same ``fit`` contract.

    As ``lightgbm.DaskLGBMRanker`` subclasses ``LGBMRanker``.  ``fit`` takes Dask
    collections (or in-memory data) and trains with ``lightgbm.dask`` or ``xgboost.dask``
    on the current ``distributed`` client; the λ objective runs on every worker over its own
    queries, which is the single-machine objective because no pair crosses a query.

    Notes
    -----
    * ``qid`` is required (a Dask Series or array aligned with ``X``): the data are
      repartitioned so that every query sits whole in one partition (:func:`partition_by_query`)
      and computed once on the workers, so lazy input gives one consistent evaluation.
      ``group`` sizes cannot follow a repartition and are refused.
    * Early stopping: the engines' Dask APIs cannot stop on a per-query metric, which needs
      every worker's queries, so all ``n_estimators`` rounds are trained; the eval sets' metric
      is then computed per round on the workers (queries whole, summed over partitions) and
      ``best_iteration_`` is the round LightGBM's early-stopping rule would have kept, so
      ``predict`` uses the same trees a single-machine fit would.  ``evals_result_`` holds
      every round.
    * ``sample_weight``: one per row, LightGBM only.
    * ``predict`` on a Dask DataFrame or Array returns a Dask Series or Array (row order
      kept); on in-memory data, a NumPy array.
    """

    def fit(self, X, y, *, qid=None, group=None, sample_weight=None, eval_set=None, eval_qid=None,
            eval_group=None, position=None):
        """Train on the cluster; parameters as :meth:`boostrank.LambdaRanker.fit` (``qid`` required).

        ``position`` (click feedback) travels as each query's row order, as XGBoost's ``lambdarank_unbiased``
        reads it: each query's positions must be 0 … n − 1 once each.  LightGBM's Dask ranker takes no
        positions, so its own ``lambdarank`` cannot correct them there: use boostrank's objectives.

        Returns
        -------
        self
        """
        from distributed import get_client

        adapter, metrics, objective_kw, engine_params = self._check_params()
        self._check_fit_inputs(qid, group, sample_weight, eval_set, eval_qid, eval_group)
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
            delattr(self, name)  # a fit that fails keeps no model, not even the last one
        # before training: a bad name is the user's error, not the cluster's
        boost = dict(learning_rate=self.learning_rate, random_state=self.random_state, n_jobs=self.n_jobs)
        adapter.dask_params(self.objective, engine_params, **boost)
        client = get_client()
        if position is not None and objective_kw is None and self.engine == "lightgbm":
            raise ValueError(f"LightGBM's Dask ranker takes no positions, so objective={self.objective!r} cannot "
                             f"correct their bias on Dask: use objective='auc' or 'mauc' (boostrank's correction), "
                             f"or engine='xgboost' (lambdarank_unbiased)")
        train, features = _query_frame(client, X, y, qid, sample_weight, position=position)
        objective = self.objective
        if objective_kw is not None:
            objective = LambdaObjective(self.objective, n_jobs=adapter.objective_threads(None), **objective_kw)
            masses = client.compute([_delayed(_labels_ok)(p, objective, adapter.held_labels)
                                     for p in train.to_delayed()], sync=True)
            total: dict = {}
            for mass in masses:
                for value, weight in mass.items():
                    total[value] = total.get(value, 0.0) + weight
            # the anchor starts every worker from the base rates of all the data, as one machine's fit does
            objective.anchor_base = objective.anchor_base_of(total)
        self._features = features
        try:
            booster = adapter.dask_train(client, train, features, (_LABEL, _QID, _WEIGHT), group_sizes,
                                         objective, engine_params, n_estimators=self.n_estimators,
                                         positions=position is not None, **boost)
        except Exception as exc:  # the engines' collectives fail when a worker dies or loses its link
            first = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else ""
            raise RuntimeError(f"distributed training failed and no model was kept ({type(exc).__name__}: "
                               f"{first}); a worker that dies or loses its connection ends the engine's "
                               f"collective rounds: fit again once the cluster is whole") from exc
        self.booster_ = booster
        self.n_features_in_ = len(features)
        if hasattr(X, "columns") and all(isinstance(c, str) for c in X.columns):
            self.feature_names_in_ = np.asarray(features, dtype=object)
        self._evaluate(client, eval_set or [], eval_qid, [m.name for m in metrics])
        self.n_groups_ = 2  # several queries: score needs qid
        return self

    def _check_fit_inputs(self, qid, group, sample_weight, eval_set, eval_qid, eval_group) -> None:
        """What a Dask fit cannot take, refused before the cluster sees anything."""
        if group is not None or eval_group is not None:
            raise ValueError("DaskLambdaRanker takes qid (a Series or array aligned with X), not group sizes: "
                             "sizes cannot follow the repartition that keeps every query in one partition")
        if qid is None:
            raise ValueError("DaskLambdaRanker.fit needs qid.  One list split over workers loses the pairs "
                             "between partitions: fit LambdaRanker on one machine, or give each partition a qid "
                             "of its own to train the partitions as separate lists")
        if self.early_stopping_rounds and not eval_set:
            raise ValueError("on Dask, early_stopping_rounds needs an eval_set (no automatic validation split)")
        if eval_set and (eval_qid is None or len(eval_qid) != len(eval_set)):
            raise ValueError(f"eval_set needs eval_qid: one qid (Series or array aligned with its X) per eval set; "
                             f"got {0 if eval_qid is None else len(eval_qid)} for {len(eval_set)} eval set(s)")
        if sample_weight is not None and ENGINES[self.engine].PER_QUERY_WEIGHTS:
            raise ValueError("sample_weight on Dask is supported with engine='lightgbm' (one weight per row)")

    def _evaluate(self, client, eval_set, eval_qid, metrics):
        """Per-round eval metrics on the workers, then the early-stopping round and the fitted attributes."""
        booster = self.booster_
        adapter = ENGINES[self.engine]
        n_rounds = adapter.n_rounds(booster)
        self.evals_result_ = {}
        if eval_set:
            remote = client.scatter(booster, broadcast=True)
        for k, (Xe, ye) in enumerate(eval_set):
            frame, _ = _query_frame(client, Xe, ye, None if eval_qid is None else eval_qid[k])
            parts = client.compute([_delayed(_metric_sums)(p, remote, self._features, self.engine, metrics,
                                                           n_rounds) for p in frame.to_delayed()], sync=True)
            sums = sum(p[0] for p in parts)
            counts = sum(p[1] for p in parts)
            with np.errstate(invalid="ignore", divide="ignore"):
                values = sums / counts
            self.evals_result_[f"valid_{k}"] = {f"br_{m}": values[i].tolist() for i, m in enumerate(metrics)}
        best = None
        if self.early_stopping_rounds and self.evals_result_:
            last = self.evals_result_[f"valid_{len(eval_set) - 1}"][f"br_{metrics[0]}"]
            best = _best_round(last, self.early_stopping_rounds)
        self.validation_queries_ = None
        self._set_fitted_attributes(best)  # the local estimator's, from the same booster and records

    def predict(self, X):
        """Scores of the rows of ``X`` (with the best round if early-stopped); Dask in, Dask out."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "booster_")
        args = (self.booster_, self._features, self.engine, self.best_iteration_)
        if not _is_dask(X):
            return _predict_part(X if hasattr(X, "columns") else np.asarray(X, dtype=np.float64), *args)
        if hasattr(X, "columns"):
            return X.map_partitions(lambda p, *a: pd.Series(_predict_part(p, *a), index=p.index), *args,
                                    meta=pd.Series(dtype=np.float64))
        return X.map_blocks(_predict_part, *args, drop_axis=1, dtype=np.float64)

    def score(self, X, y, *, qid=None, group=None, sample_weight=None, metric: str | None = None) -> float:
        """Mean per-query AUC / MAUC / NDCG@10, or ``metric`` (as :meth:`LambdaRanker.score`), computed on the
        workers."""
        from distributed import get_client

        if _is_dask(X) or _is_dask(y):
            if qid is None or group is not None or sample_weight is not None:
                raise ValueError("on Dask, score takes qid (and no group or sample_weight)")
            client = get_client()
            frame, _ = _query_frame(client, X, y, qid)
            name = metric or DEFAULT_METRIC.get(self.objective, "ndcg@10")
            EvalMetric(name)  # an unknown name is refused here, not on every worker
            parts = client.compute([_delayed(_final_metric)(p, self, name) for p in frame.to_delayed()], sync=True)
            total, count = np.sum(parts, axis=0)
            return float(total / count) if count else float("nan")
        return super().score(X, y, qid=qid, group=group, sample_weight=sample_weight, metric=metric)


def _final_metric(part, model, name):
    y = part[_LABEL].to_numpy(dtype=np.float64)
    if y.shape[0] == 0:
        return 0.0, 0
    X = part[[c for c in part.columns if c not in (_LABEL, _QID, _WEIGHT)]]
    offsets = group_offsets(y.shape[0], qid=part[_QID].to_numpy())
    v = EvalMetric(name).per_query(y, model.predict(X), offsets)
    ok = ~np.isnan(v)
    return float(v[ok].sum()), int(ok.sum())


def _delayed(fn):
    import dask

    return dask.delayed(fn, pure=False)
