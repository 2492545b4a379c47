"""Runs compared on the same queries: paired significance tests (Student's t, Wilcoxon's signed rank, the
randomization test, the bootstrap), corrected for the number of comparisons (Holm, Bonferroni), or Tukey's
honestly significant difference over all runs at once."""

from __future__ import annotations

import math
import warnings
from typing import Mapping, Sequence

import numpy as np

from .evaluate import DEFAULT_METRICS, QueryMismatchWarning, metric_list, per_query_values, rules_of, run_of, truth_of
from .report import Comparison
from .runs import Run

__all__ = ["compare"]


_TESTS = ("t", "wilcoxon", "randomization", "bootstrap", "tukey")
#: fewer paired queries than this give no p-value (NaN, with a warning): with one query, or two, a resampling
#: test's smallest p and a t statistic's spread say nothing (the bootstrap of one difference calls any difference
#: significant at 1 / (B + 1); two equal differences give t an infinite statistic)
MIN_QUERIES = 3
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
    if d.size < MIN_QUERIES:
        return float("nan"), 0.0  # compare() says why, once
    if test == "t":
        return float(stats.ttest_1samp(d, 0.0).pvalue), 0.0
    if test == "wilcoxon":
        return float(stats.wilcoxon(d).pvalue), 0.0
    if test == "bootstrap":
        return _bootstrap_p(d, n_resamples, random_state)
    return _randomization_p(d, n_resamples, random_state)


def _bootstrap_p(d: np.ndarray, n_resamples: int, random_state) -> tuple[float, float]:
    """The paired bootstrap test of the mean difference (Efron & Tibshirani 1993, §16.4; Sakai, SIGIR 2006): the
    queries resampled with replacement from the differences shifted to mean 0, p = (count + 1) / (n_resamples + 1)
    where count is the resamples whose mean is as far from 0 as the observed one, with its Monte Carlo error."""
    n = d.size
    centred = d - d.mean()
    observed = abs(float(d.mean()))
    rng = np.random.default_rng(random_state)
    batch = max(1, (1 << 21) // n)  # resamples per draw: 16 MB of counts at most
    count = 0
    for start in range(0, n_resamples, batch):
        counts = rng.multinomial(n, np.full(n, 1.0 / n), size=min(batch, n_resamples - start))
        means = counts @ centred / n
        # a resample as far out as the observation, to the rounding of the sums
        count += int((np.abs(means) >= observed * (1 - 1e-12)).sum())
    p = (count + 1) / (n_resamples + 1)
    return p, math.sqrt(p * (1.0 - p) / n_resamples)


def _tukey_rows(paired: dict, names: list, order: list) -> list:
    """Tukey's honestly significant difference on the two-way (run × query) layout, as Carterette (TOIS 2012)
    recommends for IR: the residual mean square of the additive model, ``q = |Δ| / sqrt(MSE / n)`` on the
    studentized range of k runs with (k − 1)(n − 1) degrees of freedom; the p-values already allow for every
    pair of the k runs."""
    from scipy import stats

    y = np.column_stack([paired[r] for r in names]) if names else np.zeros((0, 0))
    n, k = y.shape
    rows = []
    df = (k - 1) * (n - 1)
    resid = y - y.mean(axis=0, keepdims=True) - y.mean(axis=1, keepdims=True) + y.mean() if n else y
    mse = float((resid ** 2).sum() / df) if df > 0 else float("nan")
    for a, b in order:
        row = _pair_counts(paired[a], paired[b], a, b)
        diff = row["diff"]
        if n and np.array_equal(paired[a], paired[b]):
            p = 1.0  # identical on every query: nothing to test
        elif not df > 0 or not math.isfinite(diff) or n < MIN_QUERIES:
            p = float("nan")
        elif mse <= 0:  # every run differs from another by the same amount on every query
            p = 1.0 if diff == 0 else 0.0
        else:
            p = float(stats.studentized_range.sf(abs(diff) / math.sqrt(mse / n), k, df))
        row.update(p=p if math.isnan(p) else min(1.0, p), mc_error=0.0)
        rows.append(row)
    return rows


def _randomization_p(d: np.ndarray, n_resamples: int, random_state) -> tuple[float, float]:
    """Fisher's paired randomization test (Smucker, Allan & Carterette, CIKM 2007): the share of the 2^n sign
    flips of the differences whose sum is as far from 0 as the observed one; every flip when there are no more
    than ``n_resamples``, else ``n_resamples`` random ones, p = (count + 1) / (n_resamples + 1) (the observation
    counts as one of them, as scipy's permutation_test counts it), with its Monte Carlo standard error."""
    from .._kernels.resampling import sign_flip_extremes

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


def _named_runs(runs) -> dict:
    if isinstance(runs, Mapping):
        named = {str(k): run_of(v, name=str(k)) for k, v in runs.items()}
    else:
        named = {}
        for r in runs:
            r = run_of(r)
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
        sampled otherwise, with its Monte Carlo standard error in ``mc_error``; ``"bootstrap"``: the
        paired bootstrap test of the mean difference (Sakai 2006), ``n_resamples`` resamples;
        ``"tukey"``: Tukey's honestly significant difference over all the runs at once, on the
        two-way (run × query) layout (Carterette 2012), whose p-values allow for every pair.
    correction : {"holm", "bonferroni", None}, default="holm"
        Adjusts the p-values of each metric's comparisons for their number (not with ``"tukey"``,
        whose p-values are adjusted already: the comparison reports no correction).
    alpha : float, default=0.05
        ``significant`` means adjusted p < alpha.
    n_resamples : int, default=10000
    random_state : int or None, default=0
        Seed of the sampled randomization test and of the bootstrap.
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

    Examples
    --------
    >>> qrels = {q: {"d1": 1, "d2": 0} for q in ("q1", "q2", "q3", "q4")}
    >>> first = {q: {"d1": 0.9, "d2": 0.1 if q != "q4" else 0.95} for q in qrels}
    >>> second = {q: {"d1": 0.1, "d2": 0.9 if q != "q4" else 0.05} for q in qrels}
    >>> result = compare(qrels, {"first": first, "second": second}, ["P_1"])
    >>> result.summary["P_1"]["first"]["mean"], result.summary["P_1"]["second"]["mean"]
    (0.75, 0.25)
    """
    rules = rules_of(convention, relevance_level, depth, complete, version)
    if test not in _TESTS:
        raise ValueError(f"test must be one of {list(_TESTS)}, got {test!r}")
    if correction not in _CORRECTIONS:
        raise ValueError(f"correction must be 'holm', 'bonferroni' or None, got {correction!r}")
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    metrics = metric_list(metrics)
    truth = truth_of(truth)
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
            values[name] = per_query_values(truth, run, metrics, rules)
            bar.update()
        for m in metrics:
            paired[m] = _paired_values(m, {r: dict(zip(q, v[m].tolist())) for r, (v, q) in values.items()},
                                       values[names[0]][1])
            _warn_few(m, len(paired[m]["queries"]))
            summary[m] = _summary(paired[m], names)
            if test == "tukey":
                rows = _tukey_rows(paired[m], names, order)
                bar.update(len(order))
            else:
                rows = []
                for a, b in order:
                    rows.append(_pair_row(paired[m][a], paired[m][b], a, b, test, int(n_resamples), random_state))
                    bar.update()
            adjusted = [r["p"] for r in rows] if test == "tukey" else _adjust([r["p"] for r in rows], correction)
            for row, adj in zip(rows, adjusted):
                row["p_adjusted"] = adj
                row["significant"] = bool(adj < alpha)
            pairs[m] = rows
    return Comparison(runs=names, metrics=metrics, test=test, correction=None if test == "tukey" else correction,
                      alpha=float(alpha),
                      summary=summary, pairs=pairs, per_query=paired)


def _warn_few(metric: str, n: int) -> None:
    if n < MIN_QUERIES:
        warnings.warn(f"{metric}: {n} paired queries: a paired test needs at least {MIN_QUERIES}, so the p-values "
                      f"of runs that differ are NaN", RuntimeWarning, stacklevel=3)


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
    p, mc = _paired_p(a, b, test, n_resamples, random_state)
    return {**_pair_counts(a, b, name_a, name_b), "p": p, "mc_error": mc}


def _pair_counts(a, b, name_a, name_b) -> dict:
    """The mean difference of b over a and its wins/ties/losses per query."""
    d = b - a
    return {"baseline": name_a, "run": name_b, "diff": float(d.mean()) if d.size else float("nan"),
            "wins": int((d > 0).sum()), "ties": int((d == 0).sum()), "losses": int((d < 0).sum())}
