import math

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

import boostrank as br
from boostrank.metrics import arrays as M

from .. import reference as ref
from ..conftest import random_ranking

CASES = [(seed, ties) for seed in range(10) for ties in (3, 1000)]


def close(a, b):
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == pytest.approx(b, rel=1e-12, abs=1e-12)


@pytest.fixture(params=["numpy", "kernel"])
def auc_path(request, monkeypatch):
    """br.auc through its NumPy counts (small inputs) and through the kernel (large ones)."""
    monkeypatch.setattr(M, "AUC_NUMPY_MAX_ROWS", 10**18 if request.param == "numpy" else 0)
    return request.param


@pytest.mark.parametrize("seed,levels", CASES)
@pytest.mark.parametrize("ties", ["average", "pessimistic"])
def test_auc_matches_pair_count(seed, levels, ties, auc_path):
    y, s, qid = random_ranking(seed, tie_levels=levels)
    expect = ref.per_query(ref.auc_list, y, s, qid, ties=ties)
    got = br.auc(y, s, qid, ties=ties, per_query=True)
    np.testing.assert_allclose(got, expect, rtol=1e-12, equal_nan=True)
    assert close(br.auc(y, s, qid, ties=ties), ref.nanmean(expect))
    assert close(br.auc(y, s, ties=ties), ref.auc_list(list(y), list(s), ties=ties))


@pytest.mark.parametrize("seed", range(8))
def test_auc_average_equals_sklearn(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 200)
    s = np.round(rng.normal(size=200), 1)  # plenty of ties
    assert br.auc(y, s) == pytest.approx(roc_auc_score(y, s), abs=1e-14)


def test_auc_pessimistic_penalises_constant_scores():
    y = [1, 0, 1, 0]
    assert br.auc(y, np.zeros(4), ties="pessimistic") == 0.0
    assert br.auc(y, np.zeros(4)) == 0.5


@pytest.mark.parametrize("seed", range(40))
def test_numpy_auc_counts_equal_the_kernels_to_the_bit(seed):
    """Random lists, heavy ties (and ±0.0), single-class and empty lists, lists of one row."""
    from boostrank._kernels.metrics import auc_pair_counts
    from boostrank._kernels.order import sort_within_groups

    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 9, size=rng.integers(1, 15))
    off = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    n = int(off[-1])
    s = rng.integers(-2, 3, size=n).astype(np.float64) if seed % 2 else rng.normal(size=n)
    if seed % 5 == 0:
        s[::2] = -0.0
    pos = rng.random(n) < [0.0, 1.0, 0.3, 0.7][seed % 4] if seed % 3 else rng.random(n) < 0.5
    np.testing.assert_array_equal(M.auc_pair_counts_numpy(pos, s, off),
                                  auc_pair_counts(pos, s, sort_within_groups(s, off, False), off))


def test_a_small_first_auc_compiles_nothing():
    """The first br.auc of a process on a small input runs without the metric kernels (#47 item 3)."""
    import subprocess
    import sys

    code = ("import numpy as np, boostrank as br\nfrom boostrank._kernels import metrics as km\n"
            "v = br.auc([1, 0, 1, 0], [0.9, 0.1, 0.4, 0.4], [1, 1, 2, 2])\n"
            "print(v, len(km.auc_pair_counts.signatures))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0.75", "0"] and "compiling" not in out.stderr


def test_auc_counts_only_two_class_queries():
    y = [1, 0, 1, 1, 0]
    s = [2.0, 1.0, 0.5, 0.7, 0.1]
    qid = [1, 1, 2, 2, 3]
    v = br.auc(y, s, qid, per_query=True)
    assert v[0] == 1.0 and math.isnan(v[1]) and math.isnan(v[2])
    assert np.count_nonzero(~np.isnan(v)) == 1
    assert br.auc(y, s, qid) == 1.0


@pytest.mark.parametrize("seed,levels", CASES)
@pytest.mark.parametrize("ties", ["average", "pessimistic"])
def test_mauc_matches_reference(seed, levels, ties):
    y, s, qid = random_ranking(seed, tie_levels=levels, n_grades=4)
    expect = ref.per_query(ref.mauc_list, y, s, qid, ties=ties)
    got = br.mauc(y, s, qid, ties=ties, per_query=True)
    np.testing.assert_allclose(got, expect, rtol=1e-12, equal_nan=True)


def test_mauc_equals_auc_for_binary_labels():
    y, s, qid = random_ranking(3, n_grades=2)
    np.testing.assert_allclose(br.mauc(y, s, qid, per_query=True), br.auc(y, s, qid, per_query=True),
                               equal_nan=True)


def test_mauc_weights_by_share_of_relevant_documents():
    # classes 1 (x2) and 2 (x1), plus one irrelevant document
    y = [2, 1, 1, 0]
    s = [3.0, 0.0, 2.0, 1.0]
    auc1 = ref.auc_list([0, 1, 1, 0], s)  # 1 vs {0, 2}
    auc2 = ref.auc_list([1, 0, 0, 0], s)
    assert br.mauc(y, s) == pytest.approx(2 / 3 * auc1 + 1 / 3 * auc2)


@pytest.mark.parametrize("seed,levels", CASES)
@pytest.mark.parametrize("ties,credit", [("optimistic", 1.0), ("average", 0.5), ("pessimistic", 0.0)])
def test_wmw_full_graph(seed, levels, ties, credit):
    y, s, qid = random_ranking(seed, tie_levels=levels, n_grades=4)
    def full(yy, ss):
        classes = sorted(set(yy))
        edges = [(a, b) for i, a in enumerate(classes) for b in classes[i + 1:]]
        return ref.wmw_list(yy, ss, edges, credit)
    expect = ref.per_query(full, y, s, qid)
    np.testing.assert_allclose(br.wmw(y, s, qid, ties=ties, per_query=True), expect,
                               rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("seed", range(6))
def test_wmw_full_graph_many_grades_equals_every_edge(seed):
    """Hardening #30 item 11: the full graph was one sweep per class pair (3 000 grades: 66 s)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 120))
    y = rng.integers(0, [2, 5, 40, 1000][seed % 4], n)
    s = np.round(rng.normal(size=n), [1, 3, 0, 8][seed % 4])
    qid = np.sort(rng.integers(0, 4, n))
    classes = np.unique(y)
    lo, hi = np.triu_indices(classes.shape[0], k=1)
    edges = np.column_stack((classes[lo], classes[hi])).reshape(-1, 2)
    for ties in ("optimistic", "average", "pessimistic"):
        np.testing.assert_allclose(br.wmw(y, s, qid, ties=ties, per_query=True),
                                   br.wmw(y, s, qid, graph=edges, ties=ties, per_query=True),
                                   rtol=1e-12, equal_nan=True)
        assert br.wmw(y, s, qid, ties=ties, average="pairs") == pytest.approx(
            br.wmw(y, s, qid, graph=edges, ties=ties, average="pairs"), nan_ok=True)


def test_wmw_explicit_edges_and_pair_average():
    y, s, qid = random_ranking(4, n_grades=3)
    edges = [(0, 2), (1, 2)]
    num = den = 0.0
    for g in ref.groups(qid, len(y)):
        for lo, hi in edges:
            for k in g:
                for l in g:
                    if y[k] == lo and y[l] == hi:
                        den += 1
                        num += s[l] >= s[k]
    assert br.wmw(y, s, qid, graph=edges, average="pairs") == pytest.approx(num / den)
    expect = ref.per_query(ref.wmw_list, y, s, qid, edges)
    assert br.wmw(y, s, qid, graph=edges) == pytest.approx(ref.nanmean(expect))
    # an edge naming a class no row has forms no pairs (a class id is never "every other class")
    assert np.isnan(br.wmw(y, s, qid, graph=[(-1, 2)], average="pairs"))
    assert br.wmw(y, s, qid, graph=[(-1, 2), (0, 2)], average="pairs") == pytest.approx(
        br.wmw(y, s, qid, graph=[(0, 2)], average="pairs"))


def test_wmw_bipartite_optimistic_vs_auc():
    rng = np.random.default_rng(5)
    y, s = rng.integers(0, 2, 60), rng.normal(size=60)
    assert br.wmw(y, s) == pytest.approx(br.auc(y, s))
    s = np.round(s)  # with ties: optimistic credits 1, AUC 1/2
    assert br.wmw(y, s, ties="average") == pytest.approx(br.auc(y, s))
    assert br.wmw(y, s) > br.auc(y, s)


@pytest.mark.parametrize("seed,levels", CASES)
@pytest.mark.parametrize("k", [None, 1, 3, 10])
@pytest.mark.parametrize("convention", ["lightgbm", "trec"])
def test_ndcg_matches_reference(seed, levels, k, convention):
    y, s, qid = random_ranking(seed, tie_levels=levels)
    lgb = convention == "lightgbm"
    expect = ref.per_query(ref.ndcg_list, y, s, qid, k, lgb, 1.0 if lgb else 0.0)
    got = br.ndcg(y, s, qid, k=k, convention=convention, per_query=True)
    np.testing.assert_allclose(got, expect, rtol=1e-12)


@pytest.mark.parametrize("seed,levels", CASES)
@pytest.mark.parametrize("k", [None, 1, 3, 10])
@pytest.mark.parametrize("convention", ["lightgbm", "trec"])
def test_map_matches_reference(seed, levels, k, convention):
    y, s, qid = random_ranking(seed, tie_levels=levels)
    expect = ref.per_query(ref.ap_list, y, s, qid, k, convention == "lightgbm")
    got = br.mean_average_precision(y, s, qid, k=k, convention=convention, per_query=True)
    np.testing.assert_allclose(got, expect, rtol=1e-12)


def _precision_reference(y, s, qid, k, average):
    classes = sorted({int(v) for v in y if v > 0})
    top = []
    for g in ref.groups(qid, len(y)):
        order = ref.desc_order(list(s[g]))[:k]
        top.append({c: sum(1 for i in order if y[g][i] == c) for c in classes})
    if average == "micro":
        return np.mean([sum(t.values()) / (len(classes) * k) for t in top])
    per_class = []
    for c in classes:
        vals = [t[c] / k for t, g in zip(top, ref.groups(qid, len(y))) if c in set(y[g])]
        per_class.append(np.mean(vals))
    return np.mean(per_class)


@pytest.mark.parametrize("seed,levels", CASES)
@pytest.mark.parametrize("k", [1, 5])
@pytest.mark.parametrize("average", ["micro", "macro"])
def test_precision_matches_reference(seed, levels, k, average):
    y, s, qid = random_ranking(seed, tie_levels=levels)
    assert br.precision_at(y, s, qid, k=k, average=average) == pytest.approx(
        _precision_reference(y, s, qid, k, average), rel=1e-12)


def test_precision_binary_micro_is_trec_p_at_k():
    y = np.array([1, 0, 0, 1, 0, 0])
    s = np.array([3, 2, 1, 0.5, 2, 1.0])
    qid = np.array([1, 1, 1, 2, 2, 2])
    # P@2: query 1 -> 1/2, query 2 -> 0/2
    assert br.precision_at(y, s, qid, k=2) == pytest.approx(0.25)
    # a short query still divides by k
    assert br.precision_at([1, 0], [1.0, 0.0], k=5) == pytest.approx(0.2)


@pytest.mark.parametrize("seed,levels", CASES)
def test_minrank_and_resolved_rank(seed, levels):
    y, s, qid = random_ranking(seed, tie_levels=levels)
    mr = br.minrank(s, qid)
    rr = br.resolved_rank(y, s, qid)
    for g in ref.groups(qid, len(y)):
        assert mr[g].tolist() == ref.minrank_list(list(s[g]))
        assert rr[g].tolist() == ref.resolved_rank_list(list(y[g]), list(s[g]))
        # Definition 1: a permutation, at least the minimum rank, negatives above tied positives
        assert sorted(rr[g]) == list(range(len(g)))
        assert np.all(rr[g] >= mr[g])
        for i in g:
            for k in g:
                if s[i] == s[k] and y[i] > 0 and y[k] == 0:
                    assert rr[k] > rr[i]


def test_thesis_table_2_1():
    labels = [1, 1, 1, 0, 0, 1, 0, 1, 0]
    scores = [6, 6, 5, 4, 3, 3, 2, 2, 1]
    assert br.minrank(scores).tolist() == [7, 7, 6, 5, 3, 3, 1, 1, 0]
    assert br.resolved_rank(labels, scores).tolist() == [8, 7, 6, 5, 4, 3, 2, 1, 0]


TABLE_2_2_Y = [1, 1, 0, 1, 1, 1, 1]
TABLE_2_2_X = np.array([3, 3, 2, 1, 1, 1, 1], dtype=float)


def test_thesis_table_2_2_ranks():
    assert br.minrank(TABLE_2_2_X).tolist() == [5, 5, 4, 0, 0, 0, 0]
    assert br.minrank(-TABLE_2_2_X).tolist() == [0, 0, 2, 3, 3, 3, 3]
    assert br.resolved_rank(TABLE_2_2_Y, TABLE_2_2_X).tolist() == [6, 5, 4, 3, 2, 1, 0]
    # w = -1: the paper lists 0..6; ties among positives may be resolved either way
    r = br.resolved_rank(TABLE_2_2_Y, -TABLE_2_2_X)
    assert sorted(r[:2]) == [0, 1] and r[2] == 2 and sorted(r[3:]) == [3, 4, 5, 6]


@pytest.mark.parametrize("w,rank,expected", [
    (1, "min", 12), (1, "resolved", 13), (-1, "min", 0), (-1, "resolved", 18),
])
def test_thesis_table_2_3_local_auc(w, rank, expected):
    value = br.rank_risk(TABLE_2_2_Y, w * TABLE_2_2_X, br.weights.local_auc(5), rank=rank)
    assert value == expected


FAMILIES = [br.weights.wrs(), br.weights.local_auc(3), br.weights.wta(), br.weights.mrr(), br.weights.dcg(), br.weights.dcg_at(3),
            br.weights.dcg_at(0.25), br.weights.pnorm(4), br.weights.staircase([6, 3], [2.0, 1.0])]


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("rank", ["min", "resolved"])
def test_rank_risk_matches_reference(family, seed, rank):
    y, s, qid = random_ranking(seed)
    per = br.rank_risk(y, s, family, rank=rank, qid=qid, per_query=True)
    ranks = br.minrank(s, qid) if rank == "min" else br.resolved_rank(y, s, qid)
    for v, g in zip(per, ref.groups(qid, len(y))):
        ranks_ref = (ref.minrank_list(list(s[g])) if rank == "min"
                     else ref.resolved_rank_list(list(y[g]), list(s[g])))
        np.testing.assert_array_equal(ranks[g], ranks_ref)
        assert v == pytest.approx(ref.rank_risk_list(list(y[g]), ranks_ref, family(len(g))))
    # Lemma 1a: RRF_min <= RRF
    assert np.all(br.rank_risk(y, s, family, qid=qid, per_query=True)
                  <= br.rank_risk(y, s, family, rank="resolved", qid=qid, per_query=True) + 1e-12)


def test_weight_families_follow_the_thesis():
    n = 6
    ell = np.arange(1, n + 1)
    np.testing.assert_allclose(br.weights.wrs()(n), ell)
    np.testing.assert_allclose(br.weights.wta()(n), [0, 0, 0, 0, 0, 1])
    np.testing.assert_allclose(br.weights.mrr()(n), 1 / (n - ell + 1))
    np.testing.assert_allclose(br.weights.dcg_at(2)(n), [0, 0, 0, 0, 1 / np.log2(3), 1])
    np.testing.assert_allclose(br.weights.pnorm(2)(n), ell**2)
    # Definition 3 example: n = 50, tiers top-10/20/30 with q = 5, 3, 1
    a = br.weights.staircase([40, 30, 20], [5, 3, 1])(50)
    assert a[49] == 9 and a[40] == 9 and a[39] == 4 and a[30] == 4 and a[20] == 1 and a[19] == 0
    for fam in FAMILIES:
        w = fam(20)
        assert np.all(w >= 0) and np.all(np.diff(w) >= 0)
    assert br.weights.weight_family("dcg@10").name == "dcg@10"
    assert br.weights.weight_family("local_auc@5")(6).tolist() == [0, 0, 0, 0, 5, 6]
    with pytest.raises(ValueError, match="unknown weight family"):
        br.weights.weight_family("nope")
    with pytest.raises(ValueError, match="cannot parse"):
        br.weights.weight_family("pnorm")


ALL = [
    lambda y, s, q: br.auc(y, s, q),
    lambda y, s, q: br.mauc(y, s, q),
    lambda y, s, q: br.wmw(y, s, q),
    lambda y, s, q: br.ndcg(y, s, q, k=3),
    lambda y, s, q: br.mean_average_precision(y, s, q),
    lambda y, s, q: br.precision_at(y, s, q, k=3),
    lambda y, s, q: br.rank_risk(y, s, "dcg", qid=q),
]


@pytest.mark.parametrize("fn", ALL)
def test_empty_input_is_nan(fn):
    assert math.isnan(fn(np.array([]), np.array([]), None))
    assert math.isnan(fn(np.array([]), np.array([]), np.array([], dtype=int)))


@pytest.mark.parametrize("fn", ALL)
def test_single_document(fn):
    v = fn(np.array([1]), np.array([0.3]), np.array([7]))
    assert math.isnan(v) or 0 <= v <= 1


def test_single_class_conventions():
    y, s = [0, 0, 0], [0.1, 0.3, 0.2]
    assert math.isnan(br.auc(y, s)) and math.isnan(br.mauc(y, s))
    assert br.ndcg(y, s) == 1.0 and br.ndcg(y, s, convention="trec") == 0.0
    assert br.mean_average_precision(y, s) == 1.0
    assert br.mean_average_precision(y, s, convention="trec") == 0.0
    assert math.isnan(br.auc([1, 1], [0.2, 0.1]))


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_nonfinite_scores_are_rejected(bad):
    with pytest.raises(ValueError, match="scores contains 1 NaN/inf value.*index 1"):
        br.auc([1, 0], [0.5, bad])


def test_noncontiguous_qid_is_rejected():
    with pytest.raises(ValueError, match="qid 1 is not contiguous"):
        br.ndcg([1, 0, 1], [0.1, 0.2, 0.3], [1, 2, 1])


def test_length_mismatch_and_bad_labels():
    with pytest.raises(ValueError, match="y has 2 entries but scores has 3"):
        br.auc([1, 0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="non-negative integer"):
        br.mauc([0.5, 1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="ties must be one of"):
        br.auc([1, 0], [1.0, 2.0], ties="random")
    with pytest.raises(ValueError, match="k must be a positive integer"):
        br.ndcg([1, 0], [1.0, 2.0], k=0)


def test_get_metric_names():
    y, s, qid = random_ranking(1)
    assert M.get_metric("ndcg@3")(y, s, qid) == br.ndcg(y, s, qid, k=3)
    assert M.get_metric("ndcg@3:trec")(y, s, qid) == br.ndcg(y, s, qid, k=3, convention="trec")
    assert M.get_metric("auc:pessimistic")(y, s, qid) == br.auc(y, s, qid, ties="pessimistic")
    assert M.get_metric("mcp@2:macro")(y, s, qid) == br.precision_at(y, s, qid, k=2, average="macro")
    with pytest.raises(ValueError, match="unknown metric"):
        M.get_metric("ndgc@10")


@pytest.mark.parametrize("spec", ["p@0", "ndcg@0", "map@0", "auc@5", "mauc@3", "wmw@2", "p@99999999999999999999"])
def test_metric_names_that_would_silently_mean_something_else_are_refused(spec):
    with pytest.raises(ValueError, match="metric|unknown"):
        br.get_metric(spec)
    y, s = np.array([1, 0]), np.array([1.0, 0.0])
    assert br.get_metric("p")(y, s, None) == br.get_metric("p@10")(y, s, None)  # p means p@10


def test_ndcg_labels_whose_gain_would_overflow_are_refused():
    with pytest.raises(ValueError, match="kept exact up to 60"):
        br.ndcg([0, 2000, 1, 0], [0.1, 0.2, 0.3, 0.4])
    assert br.ndcg([0, 2000, 1, 0], [0.1, 0.2, 0.3, 0.4], convention="trec") > 0
    with pytest.raises(ValueError, match="kept exact up to 60"):
        br.lambda_gradients([0.1, 0.2, 0.3], [0, 1024, 1], metric="ndcg")
    with pytest.raises(ValueError, match="label_gain must be finite"):
        br.lambda_gradients([0.1, 0.2], [0, 1], metric="ndcg", label_gain=[0.0, np.nan])


@pytest.mark.parametrize("grade", [2.0 ** 53 + 2, 1e19, 2.0 ** 63, 2.0 ** 64])
def test_grades_too_large_to_hold_exactly_are_refused_not_wrapped(grade):
    """2⁶³ and above wrapped to int64's minimum: finite λs pushing the best row down, wrong WMW."""
    s, y = np.array([0.4, 0.3, 0.2, 0.1]), np.array([grade, 0, 1, 0])
    for call in (lambda: br.lambda_gradients(s, y, metric="ndcg"), lambda: br.wmw(y, s),
                 lambda: br.get_metric("err@10")(y, s, None), lambda: br.precision_at(y, s, k=2)):
        with pytest.raises(ValueError, match="2\\*\\*53"):
            call()
    # λ-AUC only asks "relevant or not": the grade pushes its row up, as a grade of 1 would
    g, _ = br.lambda_gradients(s, y, metric="auc")
    assert np.array_equal(np.sign(g), np.sign(br.lambda_gradients(s, np.minimum(y, 1), metric="auc")[0]))
    # the largest exact grade still works where the statistic only compares grades
    assert br.wmw(np.array([2.0 ** 53, 0, 1, 0]), s) == pytest.approx(0.8)  # 4 of 5 ordered pairs


def test_mauc_cost_follows_the_grades_present_not_their_values():
    import time

    s = np.array([0.1, 0.9, 0.5, 0.3])
    t = time.perf_counter()
    a = br.mauc([0, 10**8, 1, 0], s)
    assert time.perf_counter() - t < 1.0
    assert a == br.mauc([0, 2, 1, 0], s)
    assert br.mauc([0, 2**53, 1, 0], s) == a
    with pytest.raises(ValueError, match=r"up to 2\*\*53"):  # past 2**53 grades merge in float64 (#43 item 6)
        br.mauc([0, 2**62, 1, 0], s)
    g1, h1 = br.lambda_gradients(s, [0, 10**5, 1, 0], metric="mauc")
    g2, h2 = br.lambda_gradients(s, [0, 2, 1, 0], metric="mauc")
    np.testing.assert_array_equal(g1, g2)
    np.testing.assert_array_equal(h1, h2)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [None, 1, 3, 20])
def test_err_matches_ranklib_reference(seed, k):
    y, s, qid = random_ranking(seed, n_grades=5)
    expect = ref.per_query(ref.err_list, y, s, qid, k=k)
    np.testing.assert_allclose(br.err(y, s, qid, k=k, per_query=True), expect, rtol=1e-12)
    assert br.get_metric("err" if k is None else f"err@{k}")(y, s, qid) == pytest.approx(ref.nanmean(expect))


def test_err_refuses_grades_above_its_scale():
    with pytest.raises(ValueError, match="max_grade"):
        br.err([5, 0], [1.0, 0.0])
    assert br.err([5, 0], [1.0, 0.0], max_grade=5) == pytest.approx(31 / 32)
    assert np.isnan(br.err([], []))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 5, 30])
def test_p_at_k_is_trec_precision_on_binarised_labels(seed, k):
    y, s, qid = random_ranking(seed, n_grades=4)
    expect = ref.per_query(ref.trec_precision_list, y, s, qid, k)
    np.testing.assert_allclose(br.precision(y, s, qid, k=k, per_query=True), expect, rtol=1e-12)
    assert br.get_metric(f"p@{k}")(y, s, qid) == pytest.approx(ref.nanmean(expect))
    # the multi-class precision is a different number on graded labels and has its own name
    assert br.get_metric(f"mcp@{k}")(y, s, qid) == br.precision_at(y, s, qid, k=k)
    with pytest.raises(ValueError, match="mcp"):
        br.get_metric("p@5:macro")


def test_metrics_take_query_offsets_instead_of_qid():
    y, s, qid = random_ranking(4)
    off = br.metrics.group_offsets(len(y), qid=qid)
    for name in ("auc", "mauc", "ndcg@5", "map", "p@3", "err@4", "mcp@2:macro"):
        m = br.get_metric(name)
        assert m.from_offsets(y, s, off) == m(y, s, qid)


S, Y = np.array([0.3, 0.2, 0.1]), np.array([1, 0, 1])


S, Y = np.array([0.3, 0.2, 0.1]), np.array([1, 0, 1])


@pytest.mark.parametrize("call", [
    lambda: br.ndcg(Y, S, k=10**30), lambda: br.precision_at(Y, S, k=10**30),
    lambda: br.get_metric("p@10")(Y, S, None), lambda: br.err(Y, S, k=10**30),
    lambda: br.lambda_gradients(S, Y, metric="ndcg", truncation_level=10**30),
], ids=["ndcg", "precision_at", "p", "err", "truncation_level"])
def test_a_cut_off_past_every_list_means_the_whole_list(call):
    """k = 10**30 raised Numba's TypingError; a cut-off past the list is the whole list."""
    call()


def test_cut_offs_past_the_list_equal_the_list_length():
    assert br.ndcg(Y, S, k=10**30) == br.ndcg(Y, S, k=3) == br.ndcg(Y, S)
    g_big, _ = br.lambda_gradients(S, Y, metric="ndcg", truncation_level=10**30)
    np.testing.assert_array_equal(g_big, br.lambda_gradients(S, Y, metric="ndcg", truncation_level=3)[0])


@pytest.mark.parametrize("kw, match", [
    ({"max_grade": 2000}, "max_grade"), ({"max_grade": 2.5}, "max_grade"), ({"max_grade": 0}, "max_grade"),
])
def test_err_scale_must_be_a_small_integer(kw, match):
    with pytest.raises(ValueError, match=match):
        br.err(Y, S, **kw)


# ---------------------------------------------------------------- item 6: grades past 2**53
@pytest.mark.parametrize("y", [np.array([2**53 + 1, 2**53 + 2, 0]), [2**53 + 1, 2**53 + 2, 0], [2**70, 0, 1],
                               np.array([2.0**60, 0.0, 1.0])])
def test_mauc_refuses_grades_that_float64_would_merge(y):
    """0.5917 against 0.5166 for the same order: classes above 2**53 were merged."""
    with pytest.raises(ValueError, match=r"up to 2\*\*53"):
        br.mauc(y, [0.3, 0.2, 0.1])
    with pytest.raises(ValueError, match=r"up to 2\*\*53"):
        br.lambda_gradients([0.3, 0.2, 0.1], y, metric="mauc")


# ---------------------------------------------------------------- item 21: precision's convention, ties
def test_precision_takes_a_convention_and_ties_without_docids_warn():
    from boostrank.metrics import TieWarning

    y = np.array([1, 0, 0, 1, 1, 0])
    s = np.array([0.5, 0.5, 0.2, 0.9, 0.1, 0.1])
    qid = np.repeat([1, 2], 3)
    with pytest.warns(TieWarning, match="2 score ties within lists and no docid="):
        trec = br.precision(y, s, qid, k=1, convention="trec")
    docs = np.array(["d1", "d9", "d2", "d3", "d4", "d5"])
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", TieWarning)
        assert br.precision(y, s, qid, k=1, convention="lightgbm") == trec == 1.0
        # trec_eval breaks the 0.5 tie by docid descending: d9 (irrelevant) first
        assert br.precision(y, s, qid, k=1, docid=docs) == 0.5
        assert br.ndcg(y, s, qid, k=1, convention="trec", docid=docs) == 0.5
    with pytest.warns(TieWarning):
        br.ndcg(y, s, qid, k=1, convention="trec")
    with pytest.raises(ValueError, match="convention"):
        br.precision(y, s, qid, convention="ranx")
