"""boostrank.evaluation.compare: paired tests of runs against scipy, an exact enumeration and written-out formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest

import boostrank as br
from boostrank.evaluation.evaluate import QueryMismatchWarning
from tests.reference import randomization_p_exact, sign_flip_extremes_reference
from .helpers import letor_lists, three_runs, _three_runs


@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_compare_p_values_equal_scipy(test):
    from scipy import stats

    qrels, runs = three_runs(40)
    cmp = br.compare(qrels, runs, ["ndcg_cut_5", "map"], baseline="base", test=test, correction=None)
    for m in ("ndcg_cut_5", "map"):
        a, b = cmp.per_query[m]["base"], cmp.per_query[m]["better"]
        want = stats.ttest_rel(b, a).pvalue if test == "t" else stats.wilcoxon(b, a).pvalue
        pair = next(p for p in cmp.pairs[m] if p["run"] == "better")
        assert pair["p"] == pytest.approx(want, rel=1e-12)
        assert pair["wins"] + pair["ties"] + pair["losses"] == 40
        assert pair["diff"] == pytest.approx((b - a).mean())
        same = next(p for p in cmp.pairs[m] if p["run"] == "same")
        assert same["p"] == 1.0 and same["ties"] == 40 and not same["significant"]
        s = cmp.summary[m]["better"]
        half = stats.t.ppf(0.975, 39) * b.std(ddof=1) / math.sqrt(40)
        assert (s["ci_low"], s["ci_high"]) == pytest.approx((b.mean() - half, b.mean() + half))


def test_randomization_test_is_exact_on_12_queries_and_sampled_beyond():
    qrels, runs = three_runs(12, seed=4)
    cmp = br.compare(qrels, runs, ["ndcg_cut_5"], baseline="base", test="randomization", correction=None)
    pair = next(p for p in cmp.pairs["ndcg_cut_5"] if p["run"] == "better")
    a, b = cmp.per_query["ndcg_cut_5"]["base"], cmp.per_query["ndcg_cut_5"]["better"]
    assert pair["p"] == pytest.approx(randomization_p_exact(a, b), abs=1e-12)
    assert pair["mc_error"] == 0.0
    qrels, runs = three_runs(30, seed=4)
    big = br.compare(qrels, runs, ["ndcg_cut_5"], baseline="base", test="randomization", n_resamples=2000)
    pair = next(p for p in big.pairs["ndcg_cut_5"] if p["run"] == "better")
    assert 0 < pair["mc_error"] <= 0.5 / math.sqrt(2000)
    again = br.compare(qrels, runs, ["ndcg_cut_5"], baseline="base", test="randomization", n_resamples=2000)
    assert again.pairs == big.pairs  # seeded


@pytest.mark.parametrize("n", [0, 1, 5, 63, 64, 65, 130])
@pytest.mark.parametrize("seed", range(3))
def test_sign_flip_kernel_equals_the_reference(n, seed):
    """Whole-unit differences with zeros and ties; word boundaries at 64; observed values hit exactly."""
    from boostrank._kernels.resampling import sign_flip_extremes

    rng = np.random.default_rng(seed)
    d = rng.integers(-3, 4, n).astype(np.float64)
    words = rng.integers(0, np.iinfo(np.uint64).max, (200, -(-n // 64)), dtype=np.uint64, endpoint=True)
    for observed in (abs(d.sum()), 0.0, 2.0, 1e9):
        assert sign_flip_extremes(d, words, observed) == sign_flip_extremes_reference(d, words, observed)


def test_the_sampled_randomization_p_is_within_its_error_of_the_exact_one():
    from boostrank.evaluation.compare import _randomization_p

    rng = np.random.default_rng(5)
    d = np.round(rng.normal(0.4, 1.0, 16) * 2.0 ** 32)
    exact = randomization_p_exact(np.zeros(16), d / 2.0 ** 32)
    p, err = _randomization_p(d, 20_000, 0)  # 2^16 flips > 20 000: sampled
    assert 0 < err and abs(p - exact) <= 4 * err
    assert _randomization_p(d, 2 ** 16, 0) == (pytest.approx(exact, abs=1e-12), 0.0)  # every flip: exact


def test_holm_and_bonferroni():
    from boostrank.evaluation.compare import _adjust

    p = [0.01, 0.04, 0.03, float("nan")]
    assert _adjust(p, "bonferroni")[:3] == pytest.approx([0.03, 0.12, 0.09])
    assert _adjust(p, "holm")[:3] == pytest.approx([0.03, 0.06, 0.06])
    assert math.isnan(_adjust(p, "holm")[3])


def test_compare_pairs_only_queries_every_run_has():
    qrels, runs = three_runs(10)
    del runs["better"]["q3"]
    with pytest.warns(QueryMismatchWarning, match="1 queries lack a value in some run but not in all"):
        cmp = br.compare(qrels, runs, ["map"], baseline="base")
    assert "q3" not in cmp.per_query["map"]["queries"] and cmp.summary["map"]["base"]["n"] == 9
    with pytest.raises(ValueError, match="baseline 'nope'"):
        br.compare(qrels, runs, ["map"], baseline="nope")
    with pytest.raises(ValueError, match="at least two runs"):
        br.compare(qrels, {"a": runs["base"]}, ["map"])
    with pytest.raises(ValueError, match="test must be one of"):
        br.compare(qrels, runs, ["map"], test="z")


def test_compare_labelled_lists_with_score_arrays():
    y, qid, s, docid = letor_lists(1)
    rng = np.random.default_rng(0)
    cmp = br.compare((y, qid, docid), {"a": s, "b": s + rng.normal(size=s.size)}, ["ndcg@5", "auc"])
    assert cmp.summary["ndcg@5"]["a"]["mean"] == pytest.approx(br.ndcg(y, s, qid, k=5))


def test_compare_counts_its_work_on_a_progress_bar(monkeypatch):
    """A bar on a terminal once the work takes 2 s (#61 item 4): one step per run evaluated and per comparison."""
    import tqdm.auto

    seen = {}

    class Bar:
        def __init__(self, total, **kw):
            seen.update(total=total, done=0, **kw)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def update(self, n=1):
            seen["done"] += n

    monkeypatch.setattr(tqdm.auto, "tqdm", Bar)
    qrels, runs = three_runs(6)
    br.compare(qrels, runs, ["map", "P_5"])
    assert seen["total"] == seen["done"] == 3 + 2 * 3 and seen["delay"] == 2 and seen["disable"] is None


def test_a_randomization_test_of_runs_equal_up_to_rounding_gives_p_1():
    from boostrank.evaluation.compare import _paired_p

    rng = np.random.default_rng(0)
    a = rng.random(40)
    b = (a + 0.1) - 0.1  # the same values, rounded differently
    assert np.any(a != b)
    for test in ("randomization", "t", "wilcoxon"):
        assert _paired_p(a, b, test, 10_000, 0)[0] == 1.0
    d = rng.normal(size=30)
    from scipy import stats
    assert _paired_p(np.zeros(30), d, "t", 10_000, 0)[0] == pytest.approx(stats.ttest_rel(d, np.zeros(30)).pvalue)


def test_tukey_hsd_against_the_written_out_anova_and_the_t_test_for_two_runs():
    from ..reference import tukey_hsd_blocked_reference

    qrels, runs = _three_runs()
    cmp = br.compare(qrels, runs, ["ndcg_cut_10", "map"], test="tukey")
    assert cmp.correction is None and "Tukey's HSD over 3 runs" in cmp.to_text()
    for m in ("ndcg_cut_10", "map"):
        table = [cmp.per_query[m][r].tolist() for r in cmp.runs]
        want = tukey_hsd_blocked_reference(table)
        for row in cmp.pairs[m]:
            i, j = cmp.runs.index(row["baseline"]), cmp.runs.index(row["run"])
            assert row["p"] == pytest.approx(want[(min(i, j), max(i, j))], rel=1e-9, abs=1e-12)
            assert row["p_adjusted"] == row["p"]
    # two runs: the studentized range of 2 is |t| √2, so Tukey's p is the paired t-test's
    two = {k: runs[k] for k in ("a", "b")}
    t = br.compare(qrels, two, ["map"], test="t", correction=None).pairs["map"][0]["p"]
    hsd = br.compare(qrels, two, ["map"], test="tukey").pairs["map"][0]["p"]
    assert hsd == pytest.approx(t, rel=1e-6)


def test_paired_bootstrap_against_one_resample_at_a_time():
    from boostrank.evaluation.compare import _bootstrap_p

    from ..reference import paired_bootstrap_p_reference

    rng = np.random.default_rng(3)
    for shift in (0.0, 0.1, 0.5):
        d = np.round((rng.normal(size=30) * 0.3 + shift) * 2.0 ** 32)
        p, err = _bootstrap_p(d, 2000, 7)
        assert p == pytest.approx(paired_bootstrap_p_reference(d, 2000, 7), abs=1e-12)
        assert 0 < p <= 1 and err > 0
    qrels, runs = _three_runs(1)
    same = br.compare(qrels, {"a": runs["a"], "a2": runs["a"]}, ["map"], test="bootstrap")
    assert same.pairs["map"][0]["p"] == 1.0
    far = br.compare(qrels, {"a": runs["a"], "c": runs["c"]}, ["map"], test="bootstrap", n_resamples=999)
    assert far.pairs["map"][0]["p"] == pytest.approx(1 / 1000)


@pytest.mark.parametrize("test", ["t", "wilcoxon", "randomization", "bootstrap", "tukey"])
@pytest.mark.parametrize("n", [1, 2])
def test_one_or_two_queries_give_no_p_value(test, n):
    qrels = {f"q{i}": {"a": 1, "b": 0} for i in range(n)}
    worse = {q: {"a": 1.0, "b": 2.0} for q in qrels}
    better = {q: {"a": 2.0, "b": 1.0} for q in qrels}
    with pytest.warns(RuntimeWarning, match=f"map: {n} paired queries: a paired test needs at least 3"):
        pair = br.compare(qrels, {"worse": worse, "better": better}, ["map"], test=test).pairs["map"][0]
    assert math.isnan(pair["p"]) and not pair["significant"] and pair["diff"] == 0.5
    with pytest.warns(RuntimeWarning):
        same = br.compare(qrels, {"worse": worse, "again": worse}, ["map"], test=test).pairs["map"][0]
    assert same["p"] == 1.0  # identical runs: nothing to test
