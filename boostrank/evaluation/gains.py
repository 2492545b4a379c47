"""trec_eval's gain measures with gains given per grade, and ``dcg``, ``ideal_dcg`` and ``yaap``.

``-m ndcg.0=0,1=1,2=3`` gives grade 0 gain 0, grade 1 gain 1, grade 2 gain 3; a grade not named keeps its
own value as gain (``gain_init.c``).  ``ndcg``, ``ndcg_rel``, ``Rndcg``, ``G``, ``dcg`` and ``ideal_dcg``
take such gains; the walks below are ``m_ndcg.c`` (Järvelin & Kekäläinen, ACM TOIS 20(4), 2002),
``m_ndcg_rel.c``, ``m_Rndcg.c``, ``m_G.c`` and ``m_yaap.c`` (Robertson, "On Smoothing Average
Precision", ECIR 2012) of usnistgov/trec_eval at f425365, step for step, so that each value prints as
trec_eval prints it.  Two of trec_eval's habits are kept on purpose:

* the grades are ordered by gain with glibc's merge sort and a comparator that truncates the
  difference of two gains to an integer (``comp_rel_gain``): gains less than 1 apart compare equal
  and keep the order in which they were named, so ``G.1=0.5,2=0.9`` puts grade 0 (gain 0) last and
  the ideal walk, which starts from the last, finds no gain at all;
* a value trec_eval leaves undefined (no ideal gain) is 0, its starting value.

The default gains (no parameters) go through :mod:`boostrank._kernels.judged` with the rest of the
measures; only the walks trec_eval's command needs beyond them are here, in plain Python: one query at a
time, as trec_eval computes them.
"""

from __future__ import annotations

import functools
import math
import re

__all__ = ["atof", "gain_pairs", "gain_levels", "level_counts", "walk", "WALKS"]

_FLOAT_PREFIX = re.compile(r"^\s*[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf(?:inity)?|nan)", re.IGNORECASE)


def atof(text: str) -> float:
    """C's ``atof``: the longest prefix that reads as a number, 0 if none."""
    m = _FLOAT_PREFIX.match(text)
    return float(m.group(0)) if m else 0.0


def gain_pairs(text: str) -> tuple:
    """The ``name=value`` pairs of a measure's parameters (``get_param_pairs`` in ``meas_init.c``).

    Raises
    ------
    ValueError
        trec_eval's "malformed pair parameters" (a name without ``=``, ``,,``, ``==``).
    """
    last = ","
    for ch in text:
        if ch == ",":
            if last == ",":
                break
            last = ","
        elif ch == "=":
            if last == "=":
                last = ","
                break
            last = "="
    if last != "=":
        raise ValueError(f"malformed pair parameters in '{text}'")
    pairs = []
    for item in text.split(","):
        name, _, value = item.partition("=")
        pairs.append((name, atof(value)))
    return tuple(pairs)


def _valid_int(name: str) -> bool:
    digits = name[1:] if name[:1] in "+-" else name
    return bool(digits) and all(c in "0123456789" for c in digits)


def _c_int(x: float) -> int:
    """A double converted to C's int: truncated toward zero."""
    return int(x) if math.isfinite(x) else 0


def _merge_sort(items: list, cmp) -> list:
    """glibc's ``msort_with_tmp`` (the qsort of glibc ≤ 2.36 and ≥ 2.39): halves, each sorted, merged
    taking the left element while ``cmp(left, right) <= 0``.  Its order under a comparator that is not
    a total order is glibc's, which a Python sort does not promise."""
    n = len(items)
    if n <= 1:
        return list(items)
    n1 = n // 2
    left, right = _merge_sort(items[:n1], cmp), _merge_sort(items[n1:], cmp)
    out, i, j = [], 0, 0
    while i < len(left) and j < len(right):
        if cmp(left[i], right[j]) <= 0:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out + left[i:] + right[j:]


#: up to this grade, gains that compare unequal by less than 1 are ordered among every level from 0 to the grade,
#: as ``setup_gains`` lists them; past it, among the judged levels only (trec_eval's own walk is quadratic there)
EXACT_LEVELS = 4096


def gain_levels(pairs: tuple, counts: dict) -> list:
    """``setup_gains``: [level, gain, judged documents at the level] per grade, in trec_eval's order.

    Parameters
    ----------
    pairs : tuple of (str, float)
        :func:`gain_pairs`; names that are not integers are ignored (``rbp``'s ``p=``).
    counts : dict of {int: int}
        Judged documents of the query per grade 0 or above (:func:`level_counts`).

    Notes
    -----
    trec_eval lists every level from 0 to the query's highest grade, judged or not, then sorts them.
    A level no document holds is never reached by a walk, and where every two gains are equal or at
    least 1 apart (no gains named, or whole-number gains) the sort is a total order, so the judged
    levels alone give the same walks at the cost of the distinct grades.  Otherwise the truncating
    comparator makes the order depend on every element sorted, so the full list is sorted when the
    highest grade is at most :data:`EXACT_LEVELS`; past it the judged levels alone are (a documented
    difference: trec_eval's own setup takes time quadratic in the highest grade there).
    """
    named = tuple((int(name), gain) for name, gain in pairs if _valid_int(name))
    top = max(counts) if counts else -1
    fuzzy = any(gain != int(gain) for _, gain in named if math.isfinite(gain))
    grades = tuple(range(top + 1)) if fuzzy and top <= EXACT_LEVELS else tuple(sorted(counts))
    return [[level, gain, counts.get(level, 0) if first else 0] for level, gain, first in _sorted_levels(named, grades)]


@functools.lru_cache(maxsize=256)
def _sorted_levels(named: tuple, grades: tuple) -> list:
    """(level, gain, whether it takes the level's count) in trec_eval's order: the named levels (the first of
    a level named twice takes its count), then each grade not named at its own gain, merge-sorted."""
    rows, seen = [], set()
    for level, gain in named:
        rows.append((level, gain, level not in seen))
        seen.add(level)
    rows += [(grade, float(grade), True) for grade in grades if grade not in seen]
    return _merge_sort(rows, lambda a, b: _c_int(a[1] - b[1]))


def _gains_by_level(levels: list) -> dict:
    """``get_gain``: the gain of the first row of each level in the sorted list."""
    gains = {}
    for level, gain, _ in levels:
        gains.setdefault(level, gain)
    return gains


class _Ideal:
    """The ideal ranking's walk: from the last level of :func:`gain_levels` down, each level's documents."""

    def __init__(self, levels):
        self.levels = levels
        self.cur = len(levels) - 1
        self.gain = levels[self.cur][1] if self.cur >= 0 else 0.0
        self.at_level = 0

    def step(self) -> float:
        self.at_level += 1
        while self.cur >= 0 and self.at_level > self.levels[self.cur][2]:
            self.at_level = 1
            self.cur -= 1
            self.gain = self.levels[self.cur][1] if self.cur >= 0 else 0.0
        return self.gain


def _div(a: float, b: float) -> float:
    """C's double division: ±inf or NaN where Python raises."""
    if b != 0.0:
        return a / b
    return math.nan if a == 0.0 or math.isnan(a) else math.copysign(math.inf, a) * math.copysign(1.0, b)


def _log(x: float, base2: bool = False) -> float:
    """C's ``log``/``log2``: NaN below 0 and −inf at 0, where Python raises (negative gains, ``G.-1=1``)."""
    if x > 0.0:
        return math.log2(x) if base2 else math.log(x)
    return -math.inf if x == 0.0 else math.nan


def _steps(rel, levels):
    """trec_eval's walk down a ranking and its ideal ranking together (``m_ndcg.c``'s three loops): (index, the
    document's gain or None past the ranking, the ideal's gain at the index or None once it is spent); the ideal
    advances while its gain is positive."""
    ideal, gains = _Ideal(levels), _gains_by_level(levels)
    n, i = len(rel), 0
    while i < n or ideal.gain > 0.0:
        live = ideal.gain > 0.0
        yield i, gains.get(rel[i], 0.0) if i < n else None, ideal.step() if live else None
        i += 1


def _ndcg(rel, levels, which):
    results_dcg = ideal_dcg = 0.0
    for i, g, ig in _steps(rel, levels):
        if g:
            results_dcg += g / math.log2(i + 2)
        if ig is not None and ig > 0.0:
            ideal_dcg += ig / math.log2(i + 2)
    if which == "dcg":
        return results_dcg
    if which == "ideal_dcg":
        return ideal_dcg
    return results_dcg / ideal_dcg if ideal_dcg > 0.0 else 0.0


def _ndcg_rel(rel, levels):
    results_dcg = ideal_dcg = total = 0.0
    num_rel_ret = num_rel = 0
    for i, g, ig in _steps(rel, levels):
        if g:
            results_dcg += g / math.log2(i + 2)
        if ig is not None and ig > 0.0:
            num_rel += 1
            ideal_dcg += ig / math.log2(i + 2)
        if g is not None and g > 0:
            total += _div(results_dcg, ideal_dcg)
            num_rel_ret += 1
    total += _div((num_rel - num_rel_ret) * results_dcg, ideal_dcg)
    return _div(total, num_rel) if total > 0.0 else 0.0


def _rndcg(rel, levels, num_rel):
    if num_rel == 0:
        return 0.0
    results_dcg = ideal_dcg = total = 0.0
    changes, old, tail = 0, _Ideal(levels).gain, False
    for i, g, ig in _steps(rel, levels):
        if ig is not None and old != ig:  # an R level: the ideal's gain changes here
            if ideal_dcg > 0.0:
                total += results_dcg / ideal_dcg
                changes += 1
            old = ig
        if g:
            results_dcg += g / math.log2(i + 2)
        if ig is not None and ig > 0.0:
            ideal_dcg += ig / math.log2(i + 2)
        tail = tail or (g is not None and ig is None)
    if tail and ideal_dcg > 0.0:  # the ranking outlived the ideal: one more point at its end
        total += results_dcg / ideal_dcg
        changes += 1
    return _div(total, changes)


def _g(rel, levels):
    results_g = sum_results = sum_ideal = sum_cost = 0.0
    min_cost = 1.0
    ideal, gains = _Ideal(levels), _gains_by_level(levels)
    n, i = len(rel), 0
    while i < n and ideal.gain > 0.0:
        g = gains.get(rel[i], 0.0)
        sum_results += g
        if ideal.step() > 0.0:
            sum_ideal += ideal.gain
        sum_cost += ideal.gain if ideal.gain >= min_cost else min_cost
        if g != 0:
            results_g += _div(g, _log(2 + sum_cost - sum_results, True))
        i += 1
    while i < n:
        g = gains.get(rel[i], 0.0)
        sum_results += g
        sum_cost += min_cost
        if g != 0:
            results_g += _div(g, _log(2 + sum_cost - sum_results, True))
        i += 1
    while ideal.gain > 0.0:
        if ideal.step() > 0.0:
            sum_ideal += ideal.gain
        i += 1
    return results_g / sum_ideal if sum_ideal > 0.0 else 0.0


def _yaap(rel, relevance_level, num_rel):
    so_far, total = 0, 0.0
    for i, r in enumerate(rel):
        if r >= relevance_level:
            so_far += 1
            total += so_far / (i + 1)
    return _log(_div(1.0 + total, 1.0 + num_rel - total))


#: the measures computed here: those that take gains, and yaap
WALKS = ("ndcg", "ndcg_rel", "Rndcg", "G", "dcg", "ideal_dcg", "yaap")


def level_counts(judged) -> dict | None:
    """Judged documents per grade 0 or above ``{grade: count}``, from every grade the qrels give the query; None
    when none is graded 0 or above (trec_eval then reads the previous query's counts: see :func:`walk`)."""
    counts: dict = {}
    for x in judged:
        if x >= 0:
            counts[int(x)] = counts.get(int(x), 0) + 1
    return counts or None


def walk(family: str, rel, counts: list, num_rel: int, pairs: tuple = (), relevance_level: int = 1) -> float:
    """One query's value of ``family`` as trec_eval computes it.

    Parameters
    ----------
    family : str
        One of :data:`WALKS`.
    rel : sequence of int
        The retrieved documents' grades in rank order; −1 for a document the qrels lack, −2 for one
        they grade negatively (:class:`~boostrank.evaluation.judged.JudgedLists`).
    counts : dict of {int: int}
        Judged documents per grade 0 or above (:func:`level_counts`).  For a query whose every grade is
        negative trec_eval keeps the counts of the query it evaluated before (``form_res_rels.c`` sets
        them only from a grade ≥ 0 and does not clear them), and so should the caller.
    num_rel : int
        The query's documents graded at least ``relevance_level`` (read by ``yaap`` and ``Rndcg``).
    pairs : tuple of (str, float)
        :func:`gain_pairs` of the measure's parameters; () for the default gains (each grade its own).
    relevance_level : int
        trec_eval's ``-l``, read by ``yaap`` alone.
    """
    rel = [int(x) for x in rel]
    if family == "yaap":
        return _yaap(rel, relevance_level, num_rel)
    levels = gain_levels(pairs, counts)
    if family in ("ndcg", "dcg", "ideal_dcg"):
        return _ndcg(rel, levels, family)
    if family == "ndcg_rel":
        return _ndcg_rel(rel, levels)
    if family == "Rndcg":
        return _rndcg(rel, levels, num_rel)
    if family == "G":
        return _g(rel, levels)
    raise ValueError(f"no gain walk for {family!r}; the walks: {', '.join(WALKS)}")
