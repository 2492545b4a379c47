"""Evaluate runs against judgements and compare them with paired significance tests.

Judgements are TREC qrels (:class:`~boostrank.trec.Qrels`, or a path) or labelled LETOR
lists (:class:`~boostrank.data.LetorData`, or ``(y, qid)``); runs are
:class:`~boostrank.trec.Run` objects, run files, ``{qid: {docid: score}}`` dicts, or, with
labelled lists, score arrays aligned with the rows.  Every metric name of
:func:`~boostrank.metrics.get_metric` is accepted, trec_eval's too.
"""

from __future__ import annotations

import json
import math
import re
import os
import warnings
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from ._kernels import judged as _kj
from ._validation import GroupOffsets, as_1d_float, group_offsets
from .data import LetorData
from .metrics import docid_desc_order, get_metric, parse_metric, trec_ties
from .trec import JudgedLists, Qrels, Run, segments, judged_lists, load_qrels, load_run, scores_of_rows
from .trec_measures import expand, sequential_sum, trec_measure

__all__ = ["evaluate", "compare", "Comparison", "QueryMismatchWarning", "DEFAULT_METRICS"]

DEFAULT_METRICS = ("ndcg_cut_10", "map", "P_10", "recall_100", "recip_rank")

_JUDGED = {"ndcg": _kj.MODE_NDCG, "map": _kj.MODE_AVERAGE_PRECISION, "p": _kj.MODE_PRECISION,
           "recall": _kj.MODE_RECALL, "mrr": _kj.MODE_RECIPROCAL_RANK, "rprec": _kj.MODE_R_PRECISION}
_TREC_ONLY = {"p", "recall", "mrr", "rprec"}


class QueryMismatchWarning(UserWarning):
    """A run has queries the judgements do not have (not evaluated), or runs compared retrieve different queries."""


@dataclass(frozen=True)
class _Truth:
    """Judgements in one of two forms: qrels, or labelled lists (y, offsets, qids, docid)."""

    qrels: Qrels | None = None
    y: np.ndarray | None = None
    offsets: np.ndarray | None = None
    queries: list | None = None
    docid: np.ndarray | None = None


@dataclass(frozen=True)
class _Rules:
    """How runs are scored: the convention of ``ndcg``/``map``, and trec_eval's options and version."""

    convention: str | None = None
    relevance_level: int = 1  # -l
    depth: int | None = None  # -M
    complete: bool = False  # -c
    version: str = "10"

    @property
    def threshold(self) -> float:
        """Grades above it are relevant: trec_eval's ``rel >= relevance_level`` on integer grades."""
        return float(self.relevance_level) - 1.0

    @property
    def v9(self) -> bool:
        return self.version == "9"


def _rules(convention, relevance_level, depth, complete, version) -> _Rules:
    if convention not in (None, "trec", "lightgbm"):
        raise ValueError(f"convention must be None, 'trec' or 'lightgbm', got {convention!r}")
    if isinstance(relevance_level, bool) or not isinstance(relevance_level, (int, np.integer)):
        raise ValueError(f"relevance_level is an integer grade (trec_eval's -l), got {relevance_level!r}")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1):
        raise ValueError(f"depth is a positive number of documents (trec_eval's -M), got {depth!r}")
    if version not in ("10", "9"):
        raise ValueError(f"version is trec_eval's '10' or '9', got {version!r}")
    return _Rules(convention, int(relevance_level), None if depth is None else int(depth), bool(complete), version)


def _truth(obj) -> _Truth:
    if isinstance(obj, Qrels):
        return _Truth(qrels=obj)
    if isinstance(obj, (str, os.PathLike)):
        return _Truth(qrels=load_qrels(obj))
    if isinstance(obj, Mapping):
        return _Truth(qrels=Qrels.from_dict(obj))
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
    return _Truth(y=y, offsets=offsets, queries=queries, docid=docid)


def _run(obj, name=None):
    if isinstance(obj, Run):
        return obj
    if isinstance(obj, (str, os.PathLike)):
        return load_run(obj, name=name)
    if isinstance(obj, Mapping):
        return Run.from_dict(obj, name=name or "run")
    return obj  # scores of labelled lists


def labelled_lists(truth: _Truth, scores, trec: bool, rules: _Rules = _Rules()) -> JudgedLists:
    """Labelled lists as judged lists: every judged document is retrieved; ties by docid under ``trec``; each
    list's first ``rules.depth`` documents, ranked on float32 scores under ``rules.version == "9"``."""
    from ._kernels.order import sort_within_groups

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


def _values(lists: JudgedLists, spec: str, rules: _Rules, convention: str) -> np.ndarray:
    measure = trec_measure(spec)
    if measure is not None:
        return measure.values(lists, rules.threshold, rules.v9)
    name, k, variant = parse_metric(spec)
    if name in _JUDGED:
        lgb = name in ("ndcg", "map") and (variant or convention) == "lightgbm"
        if lgb and name == "ndcg" and lists.ideal.size and lists.ideal.max() > 60:
            raise ValueError(f"{spec}: grades reach {lists.ideal.max():g}; LightGBM's gain 2^rel − 1 is kept exact "
                             f"up to 60; use {spec.split(':')[0]}:trec")
        cut = (10 if k is None else k) if name == "p" else (k or 0)
        return _kj.judged_measure(lists.rel, lists.offsets, lists.ideal, lists.ideal_offsets, _JUDGED[name], cut,
                                  rules.threshold, lgb, 1.0 if lgb else 0.0)
    # trec_eval's codes of unjudged documents (negative) are non-relevant grades here
    return np.asarray(get_metric(spec)(np.maximum(lists.rel, 0.0), lists.score, GroupOffsets(lists.offsets),
                                       per_query=True))


def _needs_trec_order(spec: str, convention: str) -> bool:
    if trec_measure(spec) is not None:
        return True
    name, _, variant = parse_metric(spec)
    return name in _TREC_ONLY or (name in ("ndcg", "map") and (variant or convention) == "trec")


def ranked_lists(truth, run) -> JudgedLists:
    """A run's ranked lists with their judgements, from anything :func:`evaluate` takes (ties by input order
    on labelled lists, by docid with qrels)."""
    t = _truth(truth)
    r = _run(run)
    return judged_lists(t.qrels, r) if t.qrels is not None else labelled_lists(t, r, False)


def _per_query(truth: _Truth, run, metrics: Sequence[str], rules: _Rules):
    """``({metric: values}, queries)`` of one run; trec_eval's order wherever trec_eval's measures need it."""
    if truth.qrels is not None:
        conv = rules.convention or "trec"
        if not len(run):
            raise ValueError(f"{run.source}: the run retrieves no document")
        lists = judged_lists(truth.qrels, run, depth=rules.depth, complete=rules.complete, float32=rules.v9)
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
        values = {m: _values(lists, m, rules, conv) for m in metrics}
        if rules.complete:  # a qrels query the run lacks scores 0 (trec_eval -c)
            empty = np.diff(lists.offsets) == 0
            for v in values.values():
                v[empty & np.isnan(v)] = 0.0
        return values, lists.queries
    conv = rules.convention or "lightgbm"
    cache: dict = {}

    def lists_for(trec):
        if trec not in cache:
            cache[trec] = labelled_lists(truth, run, trec, rules)
        return cache[trec]

    return {m: _values(lists_for(_needs_trec_order(m, conv)), m, rules, conv) for m in metrics}, truth.queries


def _metric_list(metrics) -> list[str]:
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


def _mean(metric: str, values: np.ndarray) -> float:
    """The ``all`` line of one metric: trec_eval's sum or geometric mean where it has one, else the mean over
    the queries where the metric is defined."""
    measure = trec_measure(metric)
    if measure is not None:
        return measure.combined(values)
    ok = values[~np.isnan(values)]
    return sequential_sum(ok) / ok.size if ok.size else float("nan")


def evaluate(truth, run, metrics: str | Sequence[str] = DEFAULT_METRICS, *, per_query: bool = False,
             convention: str | None = None, relevance_level: int = 1, depth: int | None = None,
             complete: bool = False, version: str = "10"):
    """Metrics of a run, as trec_eval computes them on qrels (and LightGBM's conventions on request).

    Parameters
    ----------
    truth : Qrels, path, dict, LetorData or (y, qid[, docid])
        TREC qrels (a :class:`~boostrank.trec.Qrels`, a qrels file, or ``{qid: {docid: grade}}``),
        or labelled lists.
    run : Run, path, dict or array-like
        A run (object, file or ``{qid: {docid: score}}``); with labelled lists also the scores of
        their rows.
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
    rules = _rules(convention, relevance_level, depth, complete, version)
    metrics = _metric_list(metrics)
    truth = _truth(truth)
    run = _run(run)
    values, queries = _per_query(truth, run, metrics, rules)
    if per_query:
        hidden = set()  # trec_eval 9's -c -q prints no line for the queries the run lacks; 10's does
        if rules.complete and rules.v9 and truth.qrels is not None:
            hidden = set(truth.qrels.queries) - set(run.queries)
        return {m: {q: x for q, x in zip(queries, v.tolist()) if q not in hidden} for m, v in values.items()}
    return {m: _mean(m, v) for m, v in values.items()}


# ------------------------------------------------------------------ comparing runs

_TESTS = ("t", "wilcoxon", "randomization")
_CORRECTIONS = ("holm", "bonferroni", None)


def _paired_p(a: np.ndarray, b: np.ndarray, test: str, n_resamples: int, random_state) -> tuple[float, float]:
    """Two-sided p-value of H0 "same mean" on paired per-query values, and its Monte Carlo error."""
    from scipy import stats

    # per-query differences in units of 2**-32: a metric's rounding noise (0.1 + 0.2 against 0.3) is no difference,
    # and the sign flips' sums are exact, so a mean difference of 0 gets p = 1 as it should
    d = np.round((np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64)) * 2.0 ** 32)
    if d.size == 0:
        return float("nan"), 0.0
    if not np.any(d != 0):
        return 1.0, 0.0  # identical on every query: nothing to test (scipy returns NaN or warns)
    if test == "t":
        if d.size < 2:
            return float("nan"), 0.0
        return float(stats.ttest_1samp(d, 0.0).pvalue), 0.0
    if test == "wilcoxon":
        return float(stats.wilcoxon(d).pvalue), 0.0
    return _randomization_p(d, n_resamples, random_state)


def _randomization_p(d: np.ndarray, n_resamples: int, random_state) -> tuple[float, float]:
    """Fisher's paired randomization test (Smucker, Allan & Carterette, CIKM 2007): the share of the 2^n sign
    flips of the differences whose sum is as far from 0 as the observed one; every flip when there are no more
    than ``n_resamples``, else ``n_resamples`` random ones, p = (count + 1) / (n_resamples + 1) (the observation
    counts as one of them, as scipy's permutation_test counts it), with its Monte Carlo standard error."""
    from ._kernels.resampling import sign_flip_extremes

    n = d.size
    observed = abs(float(d.sum()))
    if n < 63 and 2 ** n <= n_resamples:
        count = sign_flip_extremes(d, np.arange(2 ** n, dtype=np.uint64).reshape(-1, 1), observed)
        return count / 2 ** n, 0.0
    rng = np.random.default_rng(random_state)
    n_words = -(-n // 64)
    batch = max(1, (1 << 21) // n_words)  # resamples per draw: 16 MB of random words at most
    count = 0
    for start in range(0, n_resamples, batch):
        words = rng.integers(0, np.iinfo(np.uint64).max, size=(min(batch, n_resamples - start), n_words),
                             dtype=np.uint64, endpoint=True)
        count += sign_flip_extremes(d, words, observed)
    p = (count + 1) / (n_resamples + 1)
    return p, math.sqrt(p * (1.0 - p) / n_resamples)


def _adjust(p: list[float], correction) -> list[float]:
    """Holm's step-down or Bonferroni's adjustment over one metric's comparisons."""
    pv = np.asarray(p, dtype=np.float64)
    if correction is None or pv.size == 0:
        return pv.tolist()
    ok = ~np.isnan(pv)
    out = pv.copy()
    m = int(ok.sum())
    if correction == "bonferroni":
        out[ok] = np.minimum(1.0, pv[ok] * m)
        return out.tolist()
    idx = np.flatnonzero(ok)[np.argsort(pv[ok], kind="stable")]
    running = 0.0
    for rank, i in enumerate(idx.tolist()):
        running = max(running, min(1.0, (m - rank) * pv[i]))
        out[i] = running
    return out.tolist()


def _p_text(p: float) -> str:
    """A p-value as journals print it: ``<0.001``, else 3 significant digits (``0.0500``, ``1.00``)."""
    if math.isnan(p):
        return "nan"
    return "<0.001" if p < 0.001 else f"{p:#.3g}"


#: ASCII punctuation that Markdown (CommonMark, GitHub's tables) reads as markup: escaped by a backslash
_MARKDOWN_SPECIAL = re.compile(r"[\\`*_{}\[\]<>()#+!|~^$&]")
#: what each character LaTeX reads as markup becomes in text mode ("<" alone prints as "¡" in OT1)
_LATEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", "Δ": r"$\Delta$"}
_LATEX_SPECIAL = re.compile("|".join(re.escape(c) for c in _LATEX_ESCAPES))


@dataclass
class Comparison:
    """Runs compared on each metric: means, 95 % intervals, paired tests, wins/ties/losses.

    Attributes
    ----------
    runs : list of str
    metrics : list of str
    test : str
    correction : str or None
    alpha : float
    summary : dict
        ``{metric: {run: {"mean", "ci_low", "ci_high", "n"}}}``; the interval is Student's t over
        the per-query values.
    pairs : dict
        ``{metric: [{"baseline", "run", "diff", "p", "p_adjusted", "mc_error", "wins", "ties",
        "losses", "significant"}]}``; ``diff`` is run − baseline, a win is a query where the run
        scores higher.
    per_query : dict
        ``{metric: {"queries": [...], run: ndarray}}``: the paired values the tests used.
    """

    runs: list
    metrics: list
    test: str
    correction: str | None
    alpha: float
    summary: dict
    pairs: dict
    per_query: dict = field(repr=False)

    def to_dict(self) -> dict:
        """Everything but the per-query values, JSON-ready."""
        return {"runs": self.runs, "metrics": self.metrics, "test": self.test, "correction": self.correction,
                "alpha": self.alpha, "summary": self.summary, "pairs": self.pairs}

    def to_json(self, **kwargs) -> str:
        """:meth:`to_dict` as JSON (NaN written as null)."""
        def clean(x):
            if isinstance(x, float) and not math.isfinite(x):
                return None
            if isinstance(x, dict):
                return {k: clean(v) for k, v in x.items()}
            if isinstance(x, list):
                return [clean(v) for v in x]
            return x
        return json.dumps(clean(self.to_dict()), **{"indent": 2, **kwargs})

    def _rows(self):
        """Per metric, one row per run: mean, interval, and its comparison with the baseline (or first pair)."""
        for m in self.metrics:
            vs = {}
            for pair in self.pairs[m]:
                vs.setdefault(pair["run"], pair)
            rows = []
            for r in self.runs:
                s = self.summary[m][r]
                pair = vs.get(r)
                rows.append((r, s, pair))
            yield m, rows

    def _cells(self, s, pair, fmt_p):
        cells = [f"{s['mean']:.4f}", f"[{s['ci_low']:.4f}, {s['ci_high']:.4f}]"]
        if pair is None:
            return cells + ["", "", "", ""]
        star = "*" if pair["significant"] else ""
        return cells + [f"{pair['diff']:+.4f}{star}", fmt_p(pair["p"]), fmt_p(pair["p_adjusted"]),
                        f"{pair['wins']}/{pair['ties']}/{pair['losses']}"]

    def _header(self):
        return ["run", "mean", "95% CI", "Δ vs " + self._against(), "p", "p adj", "W/T/L"]

    def _against(self):
        bases = {p["baseline"] for ps in self.pairs.values() for p in ps}
        return next(iter(bases)) if len(bases) == 1 else "baseline"

    def to_text(self) -> str:
        """A plain-text table per metric."""
        out = [f"{self.test} test, {self.correction or 'no'} correction, * = p adj < {self.alpha}"]
        for m, rows in self._rows():
            table = [self._header()] + [[r] + self._cells(s, pair, _p_text) for r, s, pair in rows]
            widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
            n = self.summary[m][self.runs[0]]["n"]
            out.append(f"\n{m} ({n} queries)")
            out.extend("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in table)
        return "\n".join(out)

    def to_markdown(self) -> str:
        """A Markdown table per metric; run and metric names escaped (a ``|`` would add a cell, ``<b>`` be HTML)."""
        def esc(text):
            return _MARKDOWN_SPECIAL.sub(r"\\\g<0>", text)

        out = []
        for m, rows in self._rows():
            out.append(f"**{esc(m)}** ({self.summary[m][self.runs[0]]['n']} queries; {self.test} test, "
                       f"{self.correction or 'no'} correction)\n")
            out.append("| " + " | ".join(esc(h) for h in self._header()) + " |")
            out.append("|" + "---|" * len(self._header()))
            out.extend("| " + " | ".join([esc(r)] + [esc(c) for c in self._cells(s, pair, _p_text)]) + " |"
                       for r, s, pair in rows)
            out.append("")
        return "\n".join(out).rstrip() + "\n"

    def to_latex(self) -> str:
        """A LaTeX ``tabular`` per metric (booktabs rules); every character LaTeX reads as markup escaped."""
        def esc(text):
            return _LATEX_SPECIAL.sub(lambda m: _LATEX_ESCAPES[m.group(0)], text)

        out = []
        for m, rows in self._rows():
            out.append(f"% {esc(m)}: {self.summary[m][self.runs[0]]['n']} queries, {self.test} test")
            out.append(r"\begin{tabular}{lllllll}")
            out.append(r"\toprule")
            out.append(" & ".join(esc(h) for h in self._header()) + r" \\")
            out.append(r"\midrule")
            out.extend(" & ".join(esc(c) for c in [r] + self._cells(s, pair, _p_text)) + r" \\"
                       for r, s, pair in rows)
            out.append(r"\bottomrule")
            out.append(r"\end{tabular}")
        return "\n".join(out) + "\n"

    def __str__(self) -> str:
        return self.to_text()


def _named_runs(runs) -> dict:
    if isinstance(runs, Mapping):
        named = {str(k): _run(v, name=str(k)) for k, v in runs.items()}
    else:
        named = {}
        for r in runs:
            r = _run(r)
            name = r.name if isinstance(r, Run) else f"run{len(named) + 1}"
            if name in named:
                raise ValueError(f"two runs are named {name!r}: pass a dict {{name: run}}")
            named[name] = r
    if len(named) < 2:
        raise ValueError(f"compare needs at least two runs, got {len(named)}")
    return named


def compare(truth, runs, metrics: str | Sequence[str] = DEFAULT_METRICS, *, baseline: str | None = None,
            test: str = "t", correction: str | None = "holm", alpha: float = 0.05, n_resamples: int = 10_000,
            random_state: int | None = 0, convention: str | None = None, relevance_level: int = 1,
            depth: int | None = None, complete: bool = False, version: str = "10") -> Comparison:
    """Compare runs on the same queries with paired significance tests.

    Parameters
    ----------
    truth : Qrels, path, dict, LetorData or (y, qid[, docid])
        As in :func:`evaluate`.
    runs : dict of name to run, or sequence of runs
        Runs as :func:`evaluate` takes them (named by their tags in a sequence).
    metrics : str or sequence of str, default=DEFAULT_METRICS
    baseline : str, default=None
        Compare every other run with this one; None compares all pairs.
    test : {"t", "wilcoxon", "randomization"}, default="t"
        Paired two-sided test per metric: Student's t (``scipy.stats.ttest_rel``), Wilcoxon's
        signed rank (``scipy.stats.wilcoxon``), or the randomization (sign-flip) test of the mean
        difference (``scipy.stats.permutation_test``), exact when 2^n_queries <= n_resamples and
        sampled otherwise, with its Monte Carlo standard error in ``mc_error``.
    correction : {"holm", "bonferroni", None}, default="holm"
        Adjusts the p-values of each metric's comparisons for their number.
    alpha : float, default=0.05
        ``significant`` means adjusted p < alpha.
    n_resamples : int, default=10000
    random_state : int or None, default=0
        Seed of the sampled randomization test.
    convention, relevance_level, depth, complete, version
        As in :func:`evaluate`.

    Returns
    -------
    Comparison

    Notes
    -----
    Tests pair the runs on the queries where every run has a value (a query a run does not
    retrieve, or where a metric is undefined, is left out with a :class:`QueryMismatchWarning`).
    With qrels that is trec_eval's set of queries of each run; run trec_eval with ``-c`` for zeros
    instead.  When the t-test and the Wilcoxon test disagree, the t-test speaks of the mean the
    table reports, the Wilcoxon test of the median difference: the randomization test is the one
    that assumes nothing about the shape of the differences and tests the mean.
    """
    rules = _rules(convention, relevance_level, depth, complete, version)
    if test not in _TESTS:
        raise ValueError(f"test must be one of {list(_TESTS)}, got {test!r}")
    if correction not in _CORRECTIONS:
        raise ValueError(f"correction must be 'holm', 'bonferroni' or None, got {correction!r}")
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    metrics = _metric_list(metrics)
    truth = _truth(truth)
    named = _named_runs(runs)
    if baseline is not None and baseline not in named:
        raise ValueError(f"baseline {baseline!r} is not one of the runs {list(named)}")
    from tqdm.auto import tqdm

    names = list(named)
    order = ([(baseline, r) for r in names if r != baseline] if baseline is not None
             else [(a, b) for i, a in enumerate(names) for b in names[i + 1:]])
    summary, pairs, paired, values = {}, {}, {}, {}
    # a bar on a terminal once the work has taken 2 s (none in logs, pipes and short comparisons)
    with tqdm(total=len(names) + len(metrics) * len(order), desc="compare", unit="step", delay=2, leave=False,
              disable=None) as bar:
        for name, run in named.items():
            values[name] = _per_query(truth, run, metrics, rules)
            bar.update()
        for m in metrics:
            paired[m] = _paired_values(m, {r: dict(zip(q, v[m].tolist())) for r, (v, q) in values.items()},
                                       values[names[0]][1])
            summary[m] = _summary(paired[m], names)
            rows = []
            for a, b in order:
                rows.append(_pair_row(paired[m][a], paired[m][b], a, b, test, int(n_resamples), random_state))
                bar.update()
            for row, adj in zip(rows, _adjust([r["p"] for r in rows], correction)):
                row["p_adjusted"] = adj
                row["significant"] = bool(adj < alpha)
            pairs[m] = rows
    return Comparison(runs=names, metrics=metrics, test=test, correction=correction, alpha=float(alpha),
                      summary=summary, pairs=pairs, per_query=paired)


def _paired_values(metric: str, tables: dict, query_order: list) -> dict:
    """``{"queries": [...], run: values}`` on the queries where every run has a value."""
    common = [q for q in query_order if all(q in t and not math.isnan(t[q]) for t in tables.values())]
    # a query no run has a value on (AUC of a one-class list) is no mismatch: evaluate leaves it out too
    valued = set().union(*({q for q, v in t.items() if not math.isnan(v)} for t in tables.values()))
    dropped = len(valued) - len(common)
    if dropped:
        warnings.warn(f"{metric}: {dropped} queries lack a value in some run but not in all (not retrieved, or the "
                      f"metric undefined there) and are left out of the comparison; {len(common)} remain",
                      QueryMismatchWarning, stacklevel=3)
    return {"queries": common, **{r: np.array([t[q] for q in common], dtype=np.float64) for r, t in tables.items()}}


def _summary(paired: dict, names) -> dict:
    """Each run's mean and Student-t 95 % interval over the paired queries."""
    from scipy import stats

    n = len(paired["queries"])
    half = stats.t.ppf(0.975, n - 1) if n > 1 else float("nan")
    out = {}
    for r in names:
        mean = float(paired[r].mean()) if n else float("nan")
        se = float(paired[r].std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
        out[r] = {"mean": mean, "ci_low": mean - half * se, "ci_high": mean + half * se, "n": n}
    return out


def _pair_row(a, b, name_a, name_b, test, n_resamples, random_state) -> dict:
    """One comparison: mean difference, p-value and its Monte Carlo error, wins/ties/losses of b over a."""
    d = b - a
    p, mc = _paired_p(a, b, test, n_resamples, random_state)
    return {"baseline": name_a, "run": name_b, "diff": float(d.mean()) if d.size else float("nan"), "p": p,
            "mc_error": mc, "wins": int((d > 0).sum()), "ties": int((d == 0).sum()), "losses": int((d < 0).sum())}
