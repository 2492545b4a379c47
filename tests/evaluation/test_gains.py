"""boostrank.evaluation.gains: trec_eval's walks with gains per grade, against hand-computed values, against
the measure kernels on the default gains, and trec_eval's order of gains less than 1 apart."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

import boostrank as br
from boostrank.evaluation.gains import (
    _merge_sort,
    gain_levels,
    gain_pairs,
    level_counts,
    walk,
)


def test_gain_pairs_read_as_trec_eval_reads_them():
    assert gain_pairs("0=0,1=1,2=3") == (("0", 0.0), ("1", 1.0), ("2", 3.0))
    assert gain_pairs("1=3.5x,-1=2,p=0.8") == (("1", 3.5), ("-1", 2.0), ("p", 0.8))  # atof reads a prefix
    for bad in ("1", "1=2,,2=3", "1=2=3", "1=2,3", ""):
        with pytest.raises(ValueError, match="malformed pair parameters"):
            gain_pairs(bad)


def test_gain_levels_are_ordered_by_gain_with_trec_eval_s_truncating_comparator():
    # ascending gains, equal ones in the order named, then the grades not named (each its own value as gain)
    assert [row[:2] for row in gain_levels((("2", 1.0), ("0", 4.0)), {0: 3, 1: 2, 2: 1})] == \
        [[2, 1.0], [1, 1.0], [0, 4.0]]
    # gains less than 1 apart compare equal and keep the order they were named in: grade 0 (gain 0) comes last
    assert [row[0] for row in gain_levels((("1", 0.5), ("2", 0.9)), {0: 3, 1: 2, 2: 1})] == [1, 2, 0]
    assert [row[2] for row in gain_levels((("5", 9.0),), {0: 3, 1: 2})] == [3, 2, 0]  # a named grade nobody has


@pytest.mark.parametrize("seed", range(5))
def test_merge_sort_sorts_stably_under_a_total_order(seed):
    rng = np.random.default_rng(seed)
    items = [(int(v), i) for i, v in enumerate(rng.integers(0, 5, 40))]
    ordered = _merge_sort(items, lambda a, b: a[0] - b[0])
    assert ordered == sorted(items, key=functools.cmp_to_key(lambda a, b: a[0] - b[0]))


def test_walks_by_hand():
    rel, counts = [2, 0, 1], {0: 1, 1: 1, 2: 1}  # grades 2, 0, 1 retrieved in that order; one judged at each grade
    dcg, ideal = 2 + 1 / math.log2(4), 2 + 1 / math.log2(3)
    assert walk("dcg", rel, counts, 2) == pytest.approx(dcg)
    assert walk("ideal_dcg", rel, counts, 2) == pytest.approx(ideal)
    assert walk("ndcg", rel, counts, 2) == pytest.approx(dcg / ideal)
    # gains 0 → 0, 1 → 5, 2 → 1: the ideal puts grade 1 first
    assert walk("ndcg", rel, counts, 2, (("1", 5.0), ("2", 1.0))) == pytest.approx(
        (1 + 5 / math.log2(4)) / (5 + 1 / math.log2(3)))
    # yaap = log((1 + Σ precision at each relevant) / (1 + R − Σ)): relevant at ranks 1 and 3 of R = 3
    s = 1 + 2 / 3
    assert walk("yaap", [1, 0, 1], {0: 1, 1: 3}, 3) == pytest.approx(math.log((1 + s) / (1 + 3 - s)))
    # a gain on documents the qrels lack (-1): dcg counts them, the ideal does not
    assert walk("dcg", [-1, 1], {1: 1}, 1, (("-1", 2.0),)) == pytest.approx(2 + 1 / math.log2(3))
    assert walk("G", [1, 2], {1: 1, 2: 1}, 2, (("1", 0.5), ("2", 0.9))) == 0.0  # no ideal gain: trec_eval's 0


@pytest.mark.parametrize("seed", range(8))
def test_default_gains_equal_the_measure_kernels(seed):
    """The walks on grades as gains against boostrank.evaluate (the judged-list kernels): ndcg, ndcg_rel, Rndcg, G."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(6):
        docs = [f"d{i}" for i in range(int(rng.integers(1, 12)))]
        judged = [d for d in docs if rng.random() < 0.7] + ["unretrieved"]
        qrels[f"q{q}"] = {d: int(g) for d, g in zip(judged, rng.choice([0, 0, 1, 2, 3], len(judged)))}
        run[f"q{q}"] = {d: float(s) for d, s in zip(docs, rng.normal(size=len(docs)))}
    qrels_, run_ = br.Qrels.from_dict(qrels), br.Run.from_dict(run)
    expected = br.evaluate(qrels_, run_, ["ndcg", "ndcg_rel", "Rndcg", "G"], per_query=True)
    for q in qrels:
        ranked = sorted(run[q], key=lambda d: -run[q][d])  # no tied scores
        rel = [qrels[q].get(d, -1) for d in ranked]
        counts = level_counts(qrels[q].values())
        n_rel = sum(1 for g in qrels[q].values() if g >= 1)
        for family in ("ndcg", "ndcg_rel", "Rndcg", "G"):
            assert walk(family, rel, counts, n_rel) == pytest.approx(expected[family][q], abs=1e-12), (family, q)


def test_level_counts_leave_out_negative_grades():
    assert level_counts([2, 0, 0, -1]) == {0: 2, 2: 1}
    assert level_counts([-1, -2]) is None


@pytest.mark.parametrize("seed", range(40))
def test_levels_of_the_judged_grades_walk_as_every_level_does(seed):
    """The judged grades alone (the highest grade costs nothing) against setup_gains' every level 0 … the
    highest: the same walks, fuzzy gains (less than 1 apart) and levels named twice included."""
    from boostrank.evaluation.gains import _c_int
    from tests.reference import setup_gains_reference

    rng = np.random.default_rng(seed)
    grades = rng.choice([0, 1, 2, 3, 7, 12, 40], size=int(rng.integers(1, 12)))
    counts = level_counts(grades.tolist())
    names = rng.choice([-1, 0, 1, 2, 3, 5, 12, 40], size=int(rng.integers(0, 4))).tolist()
    pairs = tuple((str(n), float(rng.choice([0.0, 0.5, 1.0, 2.0, 2.7, 5.0, -1.0]))) for n in names)
    sort = functools.partial(_merge_sort, cmp=lambda a, b: _c_int(a[1] - b[1]))
    full = setup_gains_reference(pairs, counts, sort)
    rel = rng.choice(grades.tolist() + [-1, -2], size=int(rng.integers(0, 10))).tolist()  # judged, or not
    n_rel = int((grades >= 1).sum())
    for family in ("ndcg", "dcg", "ideal_dcg", "ndcg_rel", "Rndcg", "G"):
        ours = walk(family, rel, counts, n_rel, pairs)
        from boostrank.evaluation import gains

        original = gains.gain_levels
        try:
            gains.gain_levels = lambda p, c: [list(row) for row in full]
            theirs = walk(family, rel, counts, n_rel, pairs)
        finally:
            gains.gain_levels = original
        assert ours == pytest.approx(theirs, nan_ok=True), (family, pairs, counts, rel)


def test_a_grade_of_a_billion_is_walked_by_its_judged_levels():
    counts = level_counts([0, 10**9, 10**9, 3])
    assert [row[0] for row in gain_levels((), counts)] == [0, 3, 10**9]
    assert [row[0] for row in gain_levels((("2", 0.5),), counts)] == [2, 0, 3, 10**9]  # 0.5 ties 0: named first
    assert walk("ndcg", [10**9, 10**9, 3, 0], counts, 3) == 1.0
    assert walk("G", [10**9, 3], counts, 3, (("3", -1.0),)) == walk("G", [10**9, 3], counts, 3, (("3", -1.0),))
