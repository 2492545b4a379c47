"""Evaluate runs against judgements: every measure of trec_eval and boostrank's metrics, per query and in the mean.

Judgements are TREC qrels (:class:`~boostrank.evaluation.runs.Qrels`, or a path) or labelled LETOR
lists (:class:`~boostrank.data.LetorData`, or ``(y, qid)``); runs are
:class:`~boostrank.evaluation.runs.Run` objects, run files, ``{qid: {docid: score}}`` dicts, or, with
labelled lists, score arrays aligned with the rows.  Every metric name of
:func:`~boostrank.metrics.get_metric` is accepted, trec_eval's too.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from .._kernels import judged as _kj
from .._kernels.jit import in_threads
from .._validation import GroupOffsets, as_1d_float, group_offsets
from ..io.letor import LetorData
from ..metrics.arrays import docid_desc_order, get_metric, parse_metric, trec_ties
from .files import load_qrels, load_run
from .judged import JudgedLists, judged_lists, segments
from .runs import Qrels, Run
from .scores import scores_of_rows
from .measures import BY_CUT, compute_cuts, expand, sequential_sum, trec_measure
from ..exceptions import QueryMismatchWarning

__all__ = ["evaluate", "QueryMismatchWarning", "DEFAULT_METRICS", "Truth", "Rules", "truth_of", "rules_of", "run_of",
           "per_query_values", "metric_list", "mean_of"]

DEFAULT_METRICS = ("ndcg_cut_10", "map", "P_10", "recall_100", "recip_rank")

_JUDGED = {"ndcg": _kj.MODE_NDCG, "map": _kj.MODE_AVERAGE_PRECISION, "p": _kj.MODE_PRECISION,
           "recall": _kj.MODE_RECALL, "mrr": _kj.MODE_RECIPROCAL_RANK, "rprec": _kj.MODE_R_PRECISION}
_TREC_ONLY = {"p", "recall", "mrr", "rprec"}


@dataclass(frozen=True)
class Truth:
    """Judgements in one of two forms: qrels, or labelled lists (y, offsets, qids, docid)."""

    qrels: Qrels | None = None
    y: np.ndarray | None = None
    offsets: np.ndarray | None = None
    queries: list | None = None
    docid: np.ndarray | None = None


@dataclass(frozen=True)
class Rules:
    """How runs are scored: the convention of ``ndcg``/``map``, and trec_eval's options and version."""

    convention: str | None = None
    relevance_level: int = 1  # -l
    depth: int | None = None  # -M
    complete: bool = False  # -c
    version: str = "10"
    judged_only: bool = False  # -J

    @property
    def threshold(self) -> float:
        """Grades above it are relevant: trec_eval's ``rel >= relevance_level`` on integer grades."""
        return float(self.relevance_level) - 1.0

    @property
    def v9(self) -> bool:
        return self.version == "9"


def rules_of(convention, relevance_level, depth, complete, version, judged_only=False) -> Rules:
    if convention not in (None, "trec", "lightgbm"):
        raise ValueError(f"convention must be None, 'trec' or 'lightgbm', got {convention!r}")
    if isinstance(relevance_level, bool) or not isinstance(relevance_level, (int, np.integer)):
        raise ValueError(f"relevance_level is an integer grade (trec_eval's -l), got {relevance_level!r}")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 0):
        raise ValueError(f"depth is a number of documents, 0 or more (trec_eval's -M), got {depth!r}")
    if version not in ("10", "9"):
        raise ValueError(f"version is trec_eval's '10' or '9', got {version!r}")
    depth = None if depth is None else min(int(depth), 2**62)  # past any list: trec_eval's -M of a huge number
    return Rules(convention, int(relevance_level), depth, bool(complete), version, bool(judged_only))


#: the usual column names of a DataFrame of qrels or of a run: boostrank's, ir_datasets' and ranx's, TREC's
_COLUMNS = {"qid": ("qid", "query_id", "q_id", "query"), "docid": ("docid", "doc_id", "docno", "doc"),
            "rel": ("rel", "relevance", "grade", "label"), "score": ("score", "scores", "sim")}


def _is_frame(obj) -> bool:
    return type(obj).__name__ == "DataFrame" and hasattr(obj, "columns")


def frame_columns(frame, kinds: tuple) -> list:
    """The column of ``frame`` for each kind (``qid``, ``docid``, ``rel``, ``score``), found by its usual names."""
    found = []
    for kind in kinds:
        names = [c for c in _COLUMNS[kind] if c in frame.columns]
        if len(names) != 1:
            raise ValueError(f"a DataFrame of {'qrels' if 'rel' in kinds else 'a run'} needs one {kind} column, "
                             f"named one of {', '.join(_COLUMNS[kind])}; it has {list(frame.columns)}" +
                             (f" ({' and '.join(names)} both)" if names else ""))
        found.append(names[0])
    return found


def truth_of(obj) -> Truth:
    if isinstance(obj, Qrels):
        return Truth(qrels=obj)
    if _is_frame(obj):
        return Truth(qrels=Qrels.from_frame(obj, *frame_columns(obj, ("qid", "docid", "rel"))))
    if isinstance(obj, (str, os.PathLike)):
        return Truth(qrels=load_qrels(obj))
    if isinstance(obj, Mapping):
        return Truth(qrels=Qrels.from_dict(obj))
    if isinstance(obj, LetorData):
        y, qid, docid = obj.y, obj.qid, obj.docid
    elif isinstance(obj, tuple) and len(obj) in (2, 3):
        y, qid = obj[0], obj[1]
        docid = obj[2] if len(obj) == 3 else None
    else:
        raise TypeError(f"judgements are Qrels, a qrels path, a {{qid: {{docid: grade}}}} dict, LetorData or "
                        f"(y, qid[, docid]); got {type(obj).__name__}")
    y = as_1d_float(y, "y")
    offsets = group_offsets(y.shape[0], qid=qid)
    if qid is None or isinstance(qid, GroupOffsets):
        queries = list(range(offsets.shape[0] - 1))
    else:
        queries = np.asarray(qid)[offsets[:-1]].tolist()
    if docid is not None:
        docid = np.asarray(docid, dtype=object)
        if docid.shape != y.shape:
            raise ValueError(f"docid has {docid.shape[0]} entries but y has {y.shape[0]}")
        if any(d is None for d in docid.tolist()):
            docid = None  # trec_eval's tie-break needs every row's id
    return Truth(y=y, offsets=offsets, queries=queries, docid=docid)


def run_of(obj, name=None):
    if isinstance(obj, Run):
        return obj
    if isinstance(obj, (str, os.PathLike)):
        return load_run(obj, name=name)
    if isinstance(obj, Mapping):
        return Run.from_dict(obj, name=name or "run")
    if _is_frame(obj):
        return Run.from_frame(obj, *frame_columns(obj, ("qid", "docid", "score")), name=name or "run")
    return obj  # scores of labelled lists


def labelled_lists(truth: Truth, scores, trec: bool, rules: Rules = Rules()) -> JudgedLists:
    """Labelled lists as judged lists: every judged document is retrieved; ties by docid under ``trec``; each
    list's first ``rules.depth`` documents, ranked on float32 scores under ``rules.version == "9"``."""
    from .._kernels.order import sort_within_groups

    if isinstance(scores, Run):
        if truth.docid is None:
            raise ValueError("a Run is matched to labelled lists by (qid, docid): the lists need docids")
        qids = np.repeat(np.asarray(truth.queries, dtype=object), np.diff(truth.offsets))
        scores = scores_of_rows(scores, qids, truth.docid)[0]
    s = as_1d_float(scores, "scores")
    if s.shape != truth.y.shape:
        raise ValueError(f"the run has {s.shape[0]} scores but the lists have {truth.y.shape[0]} rows")
    if not np.isfinite(s).all():
        raise ValueError(f"{int((~np.isfinite(s)).sum())} scores are NaN or inf")
    y, docid = truth.y, truth.docid
    if trec and docid is not None:  # the stable score sort below then breaks ties as trec_eval does
        perm = docid_desc_order(truth.offsets, docid)
        y, s = y[perm], s[perm]
    elif trec:
        trec_ties(y, s, truth.offsets, None)  # warns when ties fall to input order
    order = sort_within_groups(s.astype(np.float32).astype(np.float64) if rules.v9 else s, truth.offsets, True)
    offsets = truth.offsets
    if rules.depth is not None:
        rows, offsets = segments(offsets, np.arange(offsets.shape[0] - 1), rules.depth)
        order = order[rows]
    ideal = truth.y[sort_within_groups(truth.y, truth.offsets, True)]
    return JudgedLists(rel=y[order], score=s[order], offsets=offsets, ideal=ideal, ideal_offsets=truth.offsets, queries=truth.queries,
                       unjudged_queries=[], unretrieved_queries=[])


def _judged_pass(spec: str, convention: str):
    """(kernel code, LightGBM's conventions, cut-off) of a measure :func:`._kernels.judged.judged_measure`
    computes (``ndcg_cut_10``, ``P@5``, ``map``); None for another."""
    if trec_measure(spec) is not None:
        return None
    name, k, variant = parse_metric(spec)
    if name not in _JUDGED:
        return None
    lgb = name in ("ndcg", "map") and (variant or convention) == "lightgbm"
    return _JUDGED[name], lgb, (10 if k is None else k) if name == "p" else (k or 0)


def _judged_values(lists: JudgedLists, code: int, lgb: bool, cuts: list, threshold: float) -> list:
    """A judged measure's values at each of ``cuts``: those not computed yet on ``lists`` in one walk down each
    list, kept there for the family's other cut-offs."""
    keys = [("judged", code, lgb, int(k), float(threshold)) for k in cuts]
    missing = sorted({key[3] for key in keys if key not in lists.computed})
    if missing:
        out = _kj.judged_measure(lists.rel, lists.offsets, lists.ideal, lists.ideal_offsets, code,
                                 np.asarray(missing, dtype=np.int64), float(threshold), lgb, 1.0 if lgb else 0.0)
        for j, k in enumerate(missing):
            lists.computed.setdefault(("judged", code, lgb, k, float(threshold)), out[:, j])
    return [lists.computed[key].copy() for key in keys]


def _shared_pass(spec: str, convention: str):
    """The measures one kernel pass computes ``spec`` with: a cut-off family of trec_eval's (``success_5``,
    ``iprec_at_recall_0.10``) or of the ranked-list measures (``P_5``, ``ndcg_cut_10`` with ``ndcg``); None for
    a measure computed alone."""
    measure = trec_measure(spec)
    if measure is not None:
        return ("trec", measure.code) if measure.code in BY_CUT else None
    judged = _judged_pass(spec, convention)
    return None if judged is None or judged[0] == _kj.MODE_R_PRECISION else ("judged", *judged[:2])


def _values(lists: JudgedLists, spec: str, rules: Rules, convention: str) -> np.ndarray:
    measure = trec_measure(spec)
    if measure is not None:
        return measure.values(lists, rules.threshold, rules.v9)
    judged = _judged_pass(spec, convention)
    if judged is not None:
        code, lgb, cut = judged
        if lgb and code == _kj.MODE_NDCG and lists.ideal.size and lists.ideal.max() > 60:
            raise ValueError(f"{spec}: grades reach {lists.ideal.max():g}; LightGBM's gain 2^rel − 1 is kept exact "
                             f"up to 60; use {spec.split(':')[0]}:trec")
        return _judged_values(lists, code, lgb, [cut], rules.threshold)[0]
    # trec_eval's codes of unjudged documents (negative) are non-relevant grades here
    return np.asarray(get_metric(spec)(np.maximum(lists.rel, 0.0), lists.score, GroupOffsets(lists.offsets),
                                       per_query=True))


#: rows of a run's ranked lists from which its measures are computed on several threads at once (each measure's
#: kernel releases the GIL); below it a thread's start costs more than the measures it shares
MEASURES_PARALLEL_MIN_ROWS = 1 << 18


def _all_values(lists: JudgedLists, metrics: Sequence[str], rules: Rules, convention: str) -> dict:
    """``{metric: values}`` of one run's lists, the measures spread over Numba's thread count for a large run."""
    import numba

    n_threads = numba.get_num_threads() if lists.rel.shape[0] >= MEASURES_PARALLEL_MIN_ROWS else 1

    groups: dict = {}  # {pass: its measures}: a family's cut-offs share one pass
    for m in metrics:
        groups.setdefault(_shared_pass(m, convention) or ("alone", m), []).append(m)

    def computed(item) -> list:
        (kind, *family), group = item
        if kind == "trec":
            compute_cuts(lists, group, rules.threshold, rules.v9)
        elif kind == "judged":
            _judged_values(lists, *family, [_judged_pass(m, convention)[2] for m in group], rules.threshold)
        return [_values(lists, m, rules, convention) for m in group]

    values = dict(zip(sum(groups.values(), []), sum(in_threads(computed, groups.items(), n_threads), [])))
    return {m: values[m] for m in metrics}


def _needs_trec_order(spec: str, convention: str) -> bool:
    if trec_measure(spec) is not None:
        return True
    name, _, variant = parse_metric(spec)
    return name in _TREC_ONLY or (name in ("ndcg", "map") and (variant or convention) == "trec")


def ranked_lists(truth, run) -> JudgedLists:
    """A run's ranked lists with their judgements, from anything :func:`evaluate` takes (ties by input order
    on labelled lists, by docid with qrels)."""
    t = truth_of(truth)
    r = run_of(run)
    return judged_lists(t.qrels, r) if t.qrels is not None else labelled_lists(t, r, False)


def per_query_values(truth: Truth, run, metrics: Sequence[str], rules: Rules, with_lists: bool = False):
    """``({metric: values}, queries)`` of one run; trec_eval's order wherever trec_eval's measures need it.
    ``with_lists``: also the :class:`JudgedLists` the measures read (qrels only; one match of the run to them)."""
    if truth.qrels is not None:
        conv = rules.convention or "trec"
        if not len(run):
            raise ValueError(f"{run.source}: the run retrieves no document")
        lists = judged_lists(truth.qrels, run, depth=rules.depth, complete=rules.complete, float32=rules.v9,
                             judged_only=rules.judged_only)
        if not len(run.queries) - len(lists.unjudged_queries):
            raise ValueError(f"{run.source}: none of its {len(run.queries)} queries is in "
                             f"{truth.qrels.source} (is it the run of these topics?)")
        if lists.unjudged_queries:
            shown = ", ".join(map(str, lists.unjudged_queries[:5]))
            more = ", ..." if len(lists.unjudged_queries) > 5 else ""
            warnings.warn(f"{run.source}: {len(lists.unjudged_queries)} of its {len(run.queries)} queries are not "
                          f"in {truth.qrels.source} and are not evaluated ({shown}{more})", QueryMismatchWarning,
                          stacklevel=3)
        if lists.unretrieved_queries:  # trec_eval 9 leaves them out too; 10.0 refuses the run without -c
            shown = ", ".join(map(str, lists.unretrieved_queries[:5]))
            more = ", ..." if len(lists.unretrieved_queries) > 5 else ""
            warnings.warn(f"{run.source}: {len(lists.unretrieved_queries)} queries of {truth.qrels.source} have no "
                          f"results and are not evaluated ({shown}{more}); complete=True (trec_eval -c) scores "
                          f"them 0", QueryMismatchWarning, stacklevel=3)
        values = _all_values(lists, metrics, rules, conv)
        # a ranking left with no document (-J: every retrieved document unjudged; -M 0) is scored as trec_eval
        # scores it, 0 where boostrank's list measures say NaN, and counted; a query the run lacks (-c) adds 0
        empty = np.diff(lists.offsets) == 0
        if empty.any():
            n_lacked = len(set(truth.qrels.queries) - set(run.queries)) if rules.complete else 0
            lacked = np.arange(empty.size) >= empty.size - n_lacked  # judged_lists lists them last
            for m, v in values.items():
                v[empty & np.isnan(v) & (lacked | (trec_measure(m) is None))] = 0.0
        return (values, lists.queries, lists) if with_lists else (values, lists.queries)
    conv = rules.convention or "lightgbm"
    cache: dict = {}

    def lists_for(trec):
        if trec not in cache:
            cache[trec] = labelled_lists(truth, run, trec, rules)
        return cache[trec]

    return {m: _values(lists_for(_needs_trec_order(m, conv)), m, rules, conv) for m in metrics}, truth.queries


def metric_list(metrics) -> list[str]:
    """The metric names, trec_eval's families (``success``, ``P.5,10``, ``all_trec``) spelled out, each checked."""
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    if not metrics:
        raise ValueError("name at least one metric")
    metrics = [name for m in metrics for name in expand(m)]
    for m in metrics:
        if trec_measure(m) is None:
            parse_metric(m)
    if len(set(metrics)) != len(metrics):
        raise ValueError(f"a metric is named twice: {metrics}")
    return metrics


def mean_of(metric: str, values: np.ndarray) -> float:
    """The ``all`` line of one metric: trec_eval's sum or geometric mean where it has one, else the mean over
    the queries where the metric is defined."""
    measure = trec_measure(metric)
    if measure is not None:
        return measure.combined(values)
    ok = values[~np.isnan(values)]
    return sequential_sum(ok) / ok.size if ok.size else float("nan")


def evaluate(truth, run, metrics: str | Sequence[str] = DEFAULT_METRICS, *, per_query: bool = False,
             convention: str | None = None, relevance_level: int = 1, depth: int | None = None,
             complete: bool = False, version: str = "10", judged_only: bool = False):
    """Metrics of a run, as trec_eval computes them on qrels (and LightGBM's conventions on request).

    Parameters
    ----------
    truth : Qrels, path, dict, DataFrame, LetorData or (y, qid[, docid])
        TREC qrels (a :class:`~boostrank.evaluation.runs.Qrels`, a qrels file, ``{qid: {docid: grade}}``,
        or a pandas DataFrame with columns ``qid``/``query_id``, ``docid``/``doc_id``/``docno`` and
        ``rel``/``relevance``/``grade``/``label``), or labelled lists.
    run : Run, path, dict, DataFrame or array-like
        A run (object, file, ``{qid: {docid: score}}`` or a DataFrame with ``qid``, ``docid`` and
        ``score`` columns by those usual names); with labelled lists also the scores of their rows.
    metrics : str or sequence of str, default=DEFAULT_METRICS
        :func:`~boostrank.metrics.get_metric` names or trec_eval's (``ndcg_cut_10``, ``P_5``,
        ``map``, ``recip_rank``, ``recall_100``, ``Rprec``).
    per_query : bool, default=False
        Return each query's value (trec_eval ``-q``) instead of the mean.
    convention : {None, "trec", "lightgbm"}, default=None
        Of ``ndcg`` and ``map`` without a ``:variant``: trec_eval's with qrels, LightGBM's with
        labelled lists by default.
    relevance_level : int, default=1
        Grades from it up are relevant (trec_eval's ``-l``).
    depth : int, default=None
        Score each query's first ``depth`` documents (trec_eval's ``-M``).
    complete : bool, default=False
        Average over every query of the qrels, one the run lacks scoring 0 (trec_eval's ``-c``);
        ``per_query`` lists those queries too, as trec_eval 10's ``-q`` prints them (9.x's does not).
    version : {"10", "9"}, default="10"
        Whose rules: trec_eval 10.0's (ranks on the score as given; ``iprec_at_recall``/``11pt_avg``
        cut x R documents by ``lround``) or 9.x's (scores compared as float32, so scores equal in float32
        tie and fall to the document id; the cut ``(long)(x R + 0.9)``), as pytrec_eval and
        ir-measures, built on 9.x, compute.
    judged_only : bool, default=False
        With qrels: score only the documents the qrels grade, the others removed and the ranks
        closed up (trec_eval's ``-J``).

    Returns
    -------
    dict
        ``{metric: mean}`` over the evaluated queries (NaN-valued queries, such as AUC of a
        one-class list, left out), or ``{metric: {qid: value}}``.

    Notes
    -----
    With qrels, as trec_eval: the run is ranked by score descending, ties broken by document id
    descending; an unjudged document is non-relevant; recall, AP, R-precision and the ideal DCG
    count every judged document, retrieved or not; only queries in both the run and the qrels are
    evaluated, and the run's others are reported with a :class:`QueryMismatchWarning`.  The AUC
    family, ERR and ``mcp`` are computed over the retrieved documents.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}}
    >>> run = {"q1": {"d1": 0.2, "d2": 0.9, "d4": 0.5}}
    >>> evaluate(qrels, run, ["P_2", "recall_3", "recip_rank"])
    {'P_2': 0.0, 'recall_3': 0.5, 'recip_rank': 0.3333333333333333}
    """
    rules = rules_of(convention, relevance_level, depth, complete, version, judged_only)
    metrics = metric_list(metrics)
    truth = truth_of(truth)
    if judged_only and truth.qrels is None:
        raise ValueError("judged_only is trec_eval's -J: it applies with qrels (labelled lists judge every row)")
    run = run_of(run)
    values, queries = per_query_values(truth, run, metrics, rules)
    if per_query:
        hidden = set()  # trec_eval 9's -c -q prints no line for the queries the run lacks; 10's does
        if rules.complete and rules.v9 and truth.qrels is not None:
            hidden = set(truth.qrels.queries) - set(run.queries)
        return {m: {q: x for q, x in zip(queries, v.tolist()) if q not in hidden} for m, v in values.items()}
    return {m: mean_of(m, v) for m, v in values.items()}


# ------------------------------------------------------------------ comparing runs
