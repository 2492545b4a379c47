"""boostrank.objectives.objective: the λ-AUC, λ-MAUC and λ-NDCG gradients against swap-and-recount references, their
parameters and refusals."""

import numpy as np
import pytest

import boostrank as br
from boostrank.objectives.objective import LambdaObjective
from boostrank._kernels.lambdas import add_anchor
from boostrank.objectives.objective import label_mass

from .. import reference as ref
from ..conftest import random_ranking
from .conftest import NO_EXAM, offsets_of


@pytest.mark.parametrize("seed", range(6))
def test_theorem_4_1_equals_swap_and_recount(seed):
    rng = np.random.default_rng(seed)
    lab = list(rng.integers(0, 2, size=9))
    m, n = sum(lab), len(lab) - sum(lab)
    for i in range(9):
        for j in range(i + 1, 9):
            expected = (lab[j] - lab[i]) * (j - i) / (m * n) if m and n else 0.0
            assert ref.swap_delta(lab, i, j) == pytest.approx(expected)


CASES = [(seed, levels) for seed in range(8) for levels in (2, 1000)]


@pytest.mark.parametrize("seed,levels", CASES)
@pytest.mark.parametrize("metric,grades", [("auc", 2), ("mauc", 4)])
@pytest.mark.parametrize("sigma", [1.0, 2.5])
@pytest.mark.parametrize("norm", [False, True, "query"])
def test_lambda_auc_and_mauc_match_swap_reference(seed, levels, metric, grades, sigma, norm):
    y, s, qid = random_ranking(seed, n_queries=5, max_len=9, n_grades=grades, tie_levels=levels)
    s = s / 3.0
    off = offsets_of(qid)
    g, h = br.lambda_gradients(s, y, off, metric=metric, sigma=sigma, norm=norm)
    for a, b in zip(off[:-1], off[1:]):
        lab = list(y[a:b]) if metric == "mauc" else [int(v > 0) for v in y[a:b]]
        rg, rh = ref.lambda_reference(list(s[a:b]), lab, sigma, norm=norm)
        np.testing.assert_allclose(g[a:b], rg, rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(h[a:b], rh, rtol=1e-10, atol=1e-14)
        assert abs(g[a:b].sum()) < 1e-12
        assert np.all(h[a:b] >= 0)


@pytest.mark.slow
@pytest.mark.parametrize("seed,levels,metric,grades", [(0, 3, "auc", 2), (1, 1000, "mauc", 4)])
def test_long_queries_and_mixed_lengths_match_the_reference(seed, levels, metric, grades):
    # past the insertion-sort length, and short queries beside long ones in one call
    y, s, qid = random_ranking(seed, n_queries=4, max_len=90, n_grades=grades, tie_levels=levels)
    s = s / 7.0
    off = offsets_of(qid)
    g, h = br.lambda_gradients(s, y, off, metric=metric, norm=True)
    for a, b in zip(off[:-1], off[1:]):
        lab = list(y[a:b]) if metric == "mauc" else [int(v > 0) for v in y[a:b]]
        rg, rh = ref.lambda_reference(list(s[a:b]), lab, 1.0, norm=True)
        np.testing.assert_allclose(g[a:b], rg, rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(h[a:b], rh, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("metric,grades", [("auc", 2), ("mauc", 4)])
@pytest.mark.parametrize("norm", [False, True, "query"])
def test_wide_scores_underflow_like_the_reference(seed, metric, grades, norm):
    # σ(s − s_max) down to −1 600: exps in the subnormal range and below it, and queries
    # that take the direct logistic for pairs whose E_l + E_h underflows
    rng = np.random.default_rng(seed)
    y, _, qid = random_ranking(seed, n_queries=6, max_len=30, n_grades=grades)
    s = rng.choice([0.0, 300.0, 360.0, 720.0, 800.0], size=y.shape[0]) + rng.normal(scale=5.0, size=y.shape[0])
    off = offsets_of(qid)
    g, h = br.lambda_gradients(s, y, off, metric=metric, sigma=2.0, norm=norm)
    # 0/1 labels: every λ sums terms of one sign, so even 1e-300 must agree relatively;
    # with grades, pushes up and down cancel and the reference's recounted ΔMAUC of two
    # equally weighted classes is rounding residue (1e-17), not 0
    atol = 1e-300 if metric == "auc" else 1e-14
    for a, b in zip(off[:-1], off[1:]):
        lab = list(y[a:b]) if metric == "mauc" else [int(v > 0) for v in y[a:b]]
        rg, rh = ref.lambda_reference(list(s[a:b]), lab, 2.0, norm=norm)
        np.testing.assert_allclose(g[a:b], rg, rtol=1e-10, atol=atol)
        np.testing.assert_allclose(h[a:b], rh, rtol=1e-10, atol=atol)


def test_exp_nonpositive_matches_libm():
    from boostrank._kernels.lambdas import exp_nonpositive

    rng = np.random.default_rng(0)
    x = np.concatenate([-rng.exponential(3.0, 20_000), -rng.uniform(0.0, 750.0, 20_000),
                        [0.0, -0.0, -5e-324, -1e-300, -708.39, -709.0, -744.4, -745.13, -745.2, -746.0,
                         -1e300, -np.inf]])
    out, s1, s2 = np.empty_like(x), np.empty_like(x), np.empty_like(x)
    exp_nonpositive(x, out, s1, s2)
    want = np.exp(x)
    normal = want >= np.finfo(float).tiny
    assert np.all(np.abs(out - want)[normal] <= 2 * np.spacing(want[normal]))
    # subnormal results round once: within one unit of the smallest subnormal
    assert np.all(np.abs(out - want)[~normal] <= 5e-324)
    assert np.all(out[x <= -745.2] == 0.0)


@pytest.mark.parametrize("seed", range(4))
def test_class_tables_count_each_query(seed):
    """NumPy's tables equal the per-query count and MAUC weights of the metrics kernel, empty query included."""
    from boostrank._kernels.lambdas import lambda_auc_tables
    from boostrank._kernels.metrics import mauc_class_weights

    y, _, qid = random_ranking(seed, n_queries=9, max_len=7, n_grades=4)
    # and lists of irrelevant documents only, of one grade only, of one document, and an empty one
    y = np.r_[y, 0, 0, 0, 2, 2, 3].astype(np.int64)
    off = np.r_[0, offsets_of(qid)[1:-1], len(y) - 6, len(y) - 3, len(y) - 1, len(y), len(y)]
    start, weights = lambda_auc_tables(y, off)
    assert start.shape == (len(off) - 1, y.max() + 2)
    for g, (a, b) in enumerate(zip(off[:-1], off[1:])):
        counts = np.bincount(y[a:b], minlength=y.max() + 1)
        np.testing.assert_array_equal(start[g], np.r_[0, np.cumsum(counts)])
        np.testing.assert_array_equal(weights[g], mauc_class_weights(counts.astype(float), float(b - a)))


@pytest.mark.parametrize("seed,levels", CASES)
@pytest.mark.parametrize("truncation,norm", [(30, True), (3, True), (30, False), (30, "query")])
def test_lambda_ndcg_matches_lightgbm_transcription(seed, levels, truncation, norm):
    y, s, qid = random_ranking(seed, n_queries=5, max_len=12, tie_levels=levels)
    s = s / 2.0
    off = offsets_of(qid)
    g, h = br.lambda_gradients(s, y, off, metric="ndcg", truncation_level=truncation, norm=norm)
    for a, b in zip(off[:-1], off[1:]):
        rg, rh = ref.lambdarank_reference(list(s[a:b]), list(y[a:b]), 1.0, truncation, norm)
        np.testing.assert_allclose(g[a:b], rg, rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(h[a:b], rh, rtol=1e-10, atol=1e-14)


def test_single_label_and_tiny_queries_get_zero():
    s = np.array([0.3, 0.1, 0.5, 0.2, 0.9])
    y = np.array([1, 1, 0, 2, 0])
    off = np.array([0, 2, 2, 3, 5])  # two positives, an empty query, one doc, a pair
    for metric in ("auc", "mauc", "ndcg"):
        g, h = br.lambda_gradients(s, y, off, metric=metric)
        assert np.all(g[:3] == 0) and np.all(h[:3] == 0)
        assert g[3] < 0 < g[4]
    g, h = br.lambda_gradients(np.zeros(0), np.zeros(0), [0])
    assert g.shape == (0,)


def test_ties_are_pessimistic_and_order_free():
    # all scores tie: the positive sits below both negatives whatever the input order
    g1, _ = br.lambda_gradients([0.0, 0.0, 0.0], [1, 0, 0], norm=False)
    g2, _ = br.lambda_gradients([0.0, 0.0, 0.0], [0, 0, 1], norm=False)
    assert g1[0] == g2[2] == pytest.approx(-0.75)
    # norm: no score-gap division while all scores tie, then LightGBM's log2(1 + Σλ) / Σλ
    g3, _ = br.lambda_gradients([0.0, 0.0, 0.0], [0, 0, 1], norm=True)
    assert g3[2] == pytest.approx(-0.75 * np.log2(2.5) / 1.5)


def test_norm_is_lightgbm_lambdarank_norm_on_the_auc_swap_weight():
    """norm=True divides |ΔAUC| by 0.01 + |Δs| and rescales each query by log2(1 + Σλ)/Σλ;
    norm="query" only rescales, and is the AUC default with the logistic link (#42); the
    probit link has neither and refuses both; MAUC's default is off."""
    s = np.array([0.9, 0.5, 0.2, 0.0, 0.7, 0.1])
    y = np.array([0, 1, 0, 1, 1, 0])
    off = np.array([0, 4, 6])
    g0, h0 = br.lambda_gradients(s, y, off, norm=False)
    g1, h1 = br.lambda_gradients(s, y, off, norm=True)
    gq, hq = br.lambda_gradients(s, y, off, norm="query")
    assert not np.allclose(g0, g1) and not np.allclose(g0, gq) and not np.allclose(g1, gq)
    np.testing.assert_array_equal(gq, br.lambda_gradients(s, y, off)[0])
    for a, b in zip(off[:-1], off[1:]):
        assert abs(g1[a:b].sum()) < 1e-12
        for norm, g, h in ((True, g1, h1), ("query", gq, hq)):
            rg, rh = ref.lambda_reference(list(s[a:b]), list(y[a:b]), 1.0, norm=norm)
            np.testing.assert_allclose(g[a:b], rg, rtol=1e-12)
            np.testing.assert_allclose(h[a:b], rh, rtol=1e-12)
        # the rescaling alone keeps each query's direction
        np.testing.assert_allclose(gq[a:b] / np.abs(gq[a:b]).sum(), g0[a:b] / np.abs(g0[a:b]).sum(), rtol=1e-12)
    assert LambdaObjective("auc").norm == "query" and LambdaObjective("auc", norm=True).norm is True
    assert LambdaObjective("auc", link="probit").norm is False and LambdaObjective("mauc").norm is False
    assert LambdaObjective("ndcg").norm is True
    for norm in (True, "query"):
        with pytest.raises(ValueError, match=f"norm={norm!r} needs link='logistic'"):
            LambdaObjective("auc", link="probit", norm=norm)
    for bad in ("gap", 2, 0.5):
        with pytest.raises(ValueError, match="The 'norm' parameter of LambdaObjective must be"):
            LambdaObjective("auc", norm=bad)


def test_weights_scale_rows():
    y, s, qid = random_ranking(2)
    off = offsets_of(qid)
    w = np.random.default_rng(0).uniform(0.5, 2, len(y))
    g, h = br.lambda_gradients(s, y, off)
    gw, hw = br.lambda_gradients(s, y, off, weight=w)
    np.testing.assert_allclose(gw, g * w)
    np.testing.assert_allclose(hw, h * w)


def test_misuse_fails_clearly():
    with pytest.raises(ValueError, match="group sizes add up to 3 rows but there are 4 rows"):
        br.lambda_gradients(np.zeros(4), [1, 0, 0, 1], [0, 1, 3])
    with pytest.raises(ValueError, match="non-negative integer"):
        br.lambda_gradients(np.zeros(2), [0.5, 1.0], metric="mauc")
    with pytest.raises(ValueError, match="metric must be one of"):
        br.lambda_gradients(np.zeros(2), [0, 1], metric="ndcg@10")
    with pytest.raises(ValueError, match="scores contains"):
        br.lambda_gradients([np.nan, 0.0], [0, 1])
    with pytest.raises(ValueError, match="The 'sigma' parameter of LambdaObjective must be a float in the range"):
        LambdaObjective("auc", sigma=0)


@pytest.mark.parametrize("norm", [False, True, "query"])
def test_lambda_auc_descends_pairwise_logistic_loss(norm):
    """For 0/1 labels λ-AUC is the gradient of f Σ_pairs c_ij log(1 + e^{-σ(s_h - s_l)}) with
    c_ij = |ΔAUC| (norm=True: |ΔAUC| / (0.01 + |Δs|)) and the query factor f (norm=True or
    "query": log2(1 + Σλ)/Σλ, else 1) frozen at the current scores: check against finite differences."""
    rng = np.random.default_rng(3)
    s = rng.normal(size=8)
    y = np.array([1, 0, 0, 1, 0, 1, 0, 0])
    order = sorted(range(8), key=lambda d: (-s[d], y[d], d))
    posn = {d: r for r, d in enumerate(order)}
    m, n = y.sum(), (1 - y).sum()
    pairs = [(i, k) for i in range(8) for k in range(8) if y[i] == 1 and y[k] == 0]
    c = {(i, k): abs(posn[i] - posn[k]) / (m * n) / ((0.01 + abs(s[i] - s[k])) if norm is True else 1.0)
         for i, k in pairs}
    total = sum(2 * c[p] / (1 + np.exp(s[p[0]] - s[p[1]])) for p in pairs)
    f = np.log2(1 + total) / total if norm else 1.0

    def loss(x):
        return f * sum(c[i, k] * np.log1p(np.exp(-(x[i] - x[k]))) for i, k in pairs)

    g, h = br.lambda_gradients(s, y, norm=norm)
    eps = 1e-6
    for d in range(8):
        e = np.zeros(8)
        e[d] = eps
        fd = (loss(s + e) - loss(s - e)) / (2 * eps)
        assert g[d] == pytest.approx(fd, rel=1e-6, abs=1e-9)
        e[d] = 1e-4  # wider step: the second difference loses digits to cancellation
        fd2 = (loss(s + e) - 2 * loss(s) + loss(s - e)) / 1e-8
        assert h[d] == pytest.approx(fd2, rel=1e-5, abs=1e-8)


@pytest.mark.parametrize("call, match", [
    (lambda: br.lambda_gradients([0.1, 0.2], [0, 1], sigma=np.inf), "sigma"),
    (lambda: br.lambda_gradients(np.arange(6.0), [0, 1, 0, 1, 0, 1], group_offsets=[0, 2.5, 6]), "integers"),
    (lambda: br.lambda_gradients([0.1, 0.2], 1), "labels must be 1-D"),
    (lambda: br.ndcg([0, 1, 1], [0.1, 0.2, 0.3], k=2.5), "k must be"),
    (lambda: br.auc([0, 1, 1, 0], [0.1, 0.2, 0.3, 0.4], qid=np.array([1, "a", 1, "a"], dtype=object)), "mixes"),
    (lambda: br.auc([0, 1], [0.1, 0.2], qid=[np.nan, np.nan]), "NaN"),
    (lambda: br.auc("ab", [0.1, 0.2]), "numeric"),
])
def test_odd_inputs_raise_value_errors_that_say_what_is_wrong(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("seed", range(5))
def test_reorder_from_any_start_is_the_pessimistic_order(seed):
    from boostrank._kernels.lambdas import pessimistic_order, pessimistic_reorder

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    s = rng.integers(0, 5, size=n).astype(float)
    y = rng.integers(0, 3, size=n)
    order = rng.permutation(n).astype(np.int64)
    pessimistic_reorder(s, y, 0, n, order)
    np.testing.assert_array_equal(order, pessimistic_order(s, y, 0, n))


@pytest.mark.parametrize("metric", ["auc", "mauc"])
def test_a_list_with_too_many_pairs_for_the_logistic_link_warns_and_names_probit(metric):
    """The logistic λ sums every pair of differing labels each round; past LOGISTIC_WARN_PAIRS in one list
    it says so once per data set.  Fewer pairs (short lists, or one label rare), the probit link and
    λ-NDCG stay quiet."""
    import warnings

    from boostrank.objectives.objective import LOGISTIC_WARN_PAIRS

    rng = np.random.default_rng(0)
    n = 2 * int(np.sqrt(LOGISTIC_WARN_PAIRS)) + 2  # half of each class: n²/4 pairs, just past the limit
    y = np.tile([0.0, 1.0], n // 2) if metric == "auc" else np.tile([0.0, 1.0, 2.0, 3.0], n // 4 + 1)[:n]
    with pytest.warns(UserWarning, match=r"list of \d+ rows has .* link='probit'"):
        LambdaObjective(metric, link="logistic").bind(y)
    quiet = [(LambdaObjective(metric, link="probit"), y, None),
             (LambdaObjective(metric), y, None),  # link="auto" takes the probit series here
             (LambdaObjective("ndcg"), y, None),
             (LambdaObjective(metric, link="logistic"), y, np.array([0, n // 2, n])),  # a quarter of the pairs each
             (LambdaObjective(metric, link="logistic"), (rng.random(n) < 1e-4).astype(float), None)]  # few pairs
    for obj, labels, offsets in quiet:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            obj.bind(labels, offsets)


# ------------------------------------------------------------------ graded λ-AUC (#42)
@pytest.mark.parametrize("seed,levels", CASES)
@pytest.mark.parametrize("grades,threshold", [(3, 0.0), (5, 0.0), (5, 2.0), (4, 2.5)])
@pytest.mark.parametrize("grade_weight", [0.5, 2.0])
def test_graded_lambda_auc_matches_swap_and_recount(seed, levels, grades, threshold, grade_weight):
    """Each pair's |ΔM| is the recounted change of the graded AUC: ties, one-side lists, one-item lists."""
    y, s, qid = random_ranking(seed, n_queries=6, max_len=9, n_grades=grades, tie_levels=levels)
    y[-3:] = grades - 1  # a list end with only relevant grades: one side of the cut
    s = s / 3.0
    off = offsets_of(qid)
    values = sorted(set(y.tolist()))
    g, h = br.lambda_gradients(s, y, off, metric="auc", threshold=threshold, grade_weight=grade_weight)
    for a, b in zip(off[:-1], off[1:]):
        stat = lambda order: ref.graded_auc_of_order(order, values, threshold, grade_weight)  # noqa: E731
        rg, rh = ref.lambda_reference(list(s[a:b]), list(y[a:b]), 1.0, statistic=stat, norm="query")
        np.testing.assert_allclose(g[a:b], rg, rtol=1e-10, atol=1e-14)
        np.testing.assert_allclose(h[a:b], rh, rtol=1e-10, atol=1e-14)
        assert abs(g[a:b].sum()) < 1e-12 and np.all(h[a:b] >= 0)


def test_graded_lambda_auc_on_binary_labels_is_lambda_auc():
    y, s, qid = random_ranking(3, n_queries=5, max_len=12, n_grades=2)
    off = offsets_of(qid)
    for w in (0.0, 0.5, 3.0):
        g, h = br.lambda_gradients(s, y, off, grade_weight=w)
        g0, h0 = br.lambda_gradients(s, y, off, grade_weight=0.0)
        np.testing.assert_array_equal(g, g0)
        np.testing.assert_array_equal(h, h0)


def test_grade_weight_zero_is_binary_lambda_auc_on_grades():
    y, s, qid = random_ranking(4, n_queries=5, max_len=12, n_grades=4)
    off = offsets_of(qid)
    g, _ = br.lambda_gradients(s, y, off, grade_weight=0)
    g0, _ = br.lambda_gradients(s, (y > 0).astype(int), off, grade_weight=0)
    np.testing.assert_array_equal(g, g0)


@pytest.mark.parametrize("kw, match", [
    ({"grade_weight": -1}, "grade_weight"), ({"grade_weight": float("nan")}, "grade_weight"),
    ({"grade_weight": True}, "'grade_weight' parameter of LambdaObjective must be a number"),
    ({"grade_weight": 1, "metric": "mauc"}, "grade_weight=1 would change nothing: objective='mauc' does not read it"),
    ({"grade_weight": 1, "link": "probit"}, "needs link='logistic'"),
])
def test_bad_grade_weights_are_refused(kw, match):
    with pytest.raises(ValueError, match=match):
        LambdaObjective(kw.pop("metric", "auc"), **kw)


def test_real_valued_labels_fall_back_to_binary_unless_grades_were_asked_for():
    rng = np.random.default_rng(5)
    y = rng.random(30).round(3) * (rng.random(30) > 0.5)
    s = rng.normal(size=30)
    g, _ = br.lambda_gradients(s, y, [0, 15, 30])
    g0, _ = br.lambda_gradients(s, (y > 0).astype(int), [0, 15, 30])
    np.testing.assert_array_equal(g, g0)
    with pytest.raises(ValueError, match="grade_weight needs integer grades"):
        br.lambda_gradients(s, y, [0, 15, 30], grade_weight=0.5)


def test_defaults_norm_per_query_for_auc_off_for_mauc_on_for_ndcg():
    assert LambdaObjective("auc").norm == "query" and LambdaObjective("mauc").norm is False
    assert LambdaObjective("ndcg").norm is True
    assert LambdaObjective("auc").grade_weight == 0 and LambdaObjective("auc", link="probit").grade_weight == 0


@pytest.mark.parametrize("metric", ["auc", "mauc"])
def test_link_auto_takes_the_probit_series_on_one_long_list_only(metric):
    """link="auto" (#42, #47 item 6): LTR lists keep the logistic λ, a list with over 100 pairs of differing
    labels per row gets the probit series, whose gradients equal link="probit"'s."""
    rng = np.random.default_rng(1)
    n = 1000
    y = (rng.random(n) < 0.3).astype(float) if metric == "auc" else rng.integers(0, 3, n).astype(float)
    s = rng.normal(size=n)
    auto, probit = LambdaObjective(metric), LambdaObjective(metric, link="probit")
    g_auto, h_auto = auto.bind(y).gradients(s)
    g_probit, h_probit = probit.bind(y).gradients(s)
    np.testing.assert_array_equal(g_auto, g_probit)
    np.testing.assert_array_equal(h_auto, h_probit)
    short = np.arange(0, n + 1, 10)  # 100 lists of 10: a few pairs per row
    logistic = LambdaObjective(metric, link="logistic", grade_weight=None if metric == "auc" else None)
    g_auto, _ = auto.bind(y, short).gradients(s)
    g_log, _ = logistic.bind(y, short).gradients(s)
    np.testing.assert_array_equal(g_auto, g_log)
    assert not np.allclose(g_log, probit.bind(y, short).gradients(s)[0])


def test_the_closed_form_swap_delta_is_the_recount():
    """The long-list oracle's ΔM (Thm 4.1 per class) equals swap-and-recount on every pair of small lists."""
    rng = np.random.default_rng(0)
    for n, classes in [(2, 2), (7, 2), (9, 4), (12, 3), (10, 1)]:
        for _ in range(5):
            lab = list(rng.integers(0, classes, n))
            for i in range(n):
                for j in range(i + 1, n):
                    assert ref.swap_delta_closed_form(lab, i, j) == pytest.approx(ref.swap_delta(lab, i, j),
                                                                                  abs=1e-15)


def _direct_kernel(s, y, off, *, sigma=1.0, norm=0, uniform=False, stride=1, seed=0, factors=None):
    from boostrank._kernels.config import LambdaSetting
    from boostrank._kernels.lambdas import lambda_auc_kernel, lambda_auc_tables

    n = y.shape[0]
    grad, hess = np.full(n, np.nan), np.full(n, np.nan)
    order = np.arange(n, dtype=np.int64) - np.repeat(off[:-1], np.diff(off))
    scratch = (order, np.empty(n, dtype=np.int64), np.empty((8, n)))
    setting = LambdaSetting(sigma, norm, uniform, np.int64(stride), np.uint64(seed))
    none = np.zeros(0)
    lambda_auc_kernel(s, y, off, setting, lambda_auc_tables(y, off), grad, hess, scratch, (0, off.shape[0] - 1),
                      (none, none) if factors is None else factors)
    return grad, hess


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("classes", [2, 5])
@pytest.mark.parametrize("stride", [1, 2, 3])
@pytest.mark.parametrize("variant", ["swap", "query norm", "score-gap norm", "uniform", "factors", "wide"])
def test_long_runs_of_partners_match_the_reference(seed, classes, stride, variant):
    """Lists long enough that runs of lower-class partners take the vectorised sums (and short ones beside them
    that do not), every option against plain loops: strides with their residue layout, both norms, uniform
    weights, pair factors, and scores so wide that E_l + E_h underflows and the scalar guard takes over."""
    rng = np.random.default_rng(100 * seed + 10 * classes + stride)
    sizes = [0, 1, 3, 140, 65, 90, 17, 1]
    off = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    p = [0.5, 0.5] if classes == 2 else [0.52, 0.32, 0.13, 0.02, 0.01]
    y = rng.choice(classes, size=off[-1], p=p).astype(np.int64)
    y[off[5]:off[6]] = 1  # one class
    s = np.round(rng.normal(size=off[-1]), 1)  # ties
    if variant == "wide":
        s = rng.choice([0.0, 400.0, 800.0], size=off[-1]) + rng.normal(size=off[-1])
    norm = {"query norm": 2, "score-gap norm": 3}.get(variant, 0)
    factors = None
    if variant == "factors":
        factors = (rng.uniform(0.5, 4.0, off[-1]), rng.uniform(0.1, 1.0, off[-1]))
    grad, hess = _direct_kernel(s, y, off, norm=norm, uniform=variant == "uniform", stride=stride, seed=seed + 7,
                                factors=factors)
    for a, b in zip(off[:-1], off[1:]):
        if a == b:
            continue
        rg, rh = ref.lambda_reference(list(s[a:b]), list(y[a:b]), 1.0, {0: False, 2: "query", 3: True}[norm],
                                      statistic=ref.swap_delta_closed_form, uniform=variant == "uniform",
                                      stride=stride, seed=seed + 7, row0=int(a),
                                      upper=None if factors is None else list(factors[0][a:b]),
                                      lower=None if factors is None else list(factors[1][a:b]))
        atol = 1e-300 if variant == "wide" else 1e-14
        np.testing.assert_allclose(grad[a:b], rg, rtol=1e-10, atol=atol)
        np.testing.assert_allclose(hess[a:b], rh, rtol=1e-10, atol=atol)


# --- pair weights and the stochastic λ -------------------------------------------------

@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("metric,grades", [("auc", 2), ("mauc", 4)])
@pytest.mark.parametrize("stride", [2, 3])
@pytest.mark.parametrize("uniform", [False, True])
def test_sampled_lambdas_match_the_stride_reference(seed, metric, grades, stride, uniform):
    """Each call of the objective draws its pairs from round_seed(random_state, call): every k-th partner of a
    lower class from a hashed offset, weighted k — the reference recounts ΔM and keeps the same pairs."""
    from boostrank.objectives.state import round_seed

    y, s, qid = random_ranking(seed, n_queries=6, max_len=14, n_grades=grades, tie_levels=4)
    off = offsets_of(qid)
    obj = LambdaObjective(metric, pair_fraction=1 / stride, random_state=seed + 5, grade_weight=0.0 if metric == "auc"
                          else None, pair_weight="uniform" if uniform else "swap", anchor=0.0)
    prep = obj.bind(y, off)
    rng = np.random.default_rng(seed)
    for call in range(3):
        s = s + np.round(rng.normal(size=s.shape), 1)
        g, h = prep.gradients(s, scaled=False)
        for a, b in zip(off[:-1], off[1:]):
            lab = list(y[a:b]) if metric == "mauc" else [int(v > 0) for v in y[a:b]]
            rg, rh = ref.lambda_reference(list(s[a:b]), lab, uniform=uniform, stride=stride,
                                          seed=int(round_seed(seed + 5, call)), row0=int(a),
                                          norm="query" if metric == "auc" else False)
            np.testing.assert_allclose(g[a:b], rg, rtol=1e-10, atol=1e-14)
            np.testing.assert_allclose(h[a:b], rh, rtol=1e-10, atol=1e-14)
            assert abs(g[a:b].sum()) < 1e-12


@pytest.mark.slow  # a fresh process on an empty Numba cache: cold-start work
def test_a_fit_on_a_fresh_cache_compiles_in_process_and_starts_no_child(tmp_path):
    """Issue 71: fit never starts a process.  In a fresh interpreter on an empty Numba cache, LambdaRanker().fit
    and predict (on Numba's threads too) compile their kernels in this process and leave it childless."""
    import os
    import subprocess
    import sys

    code = """
import sys
started = []
spawns = ("subprocess.Popen", "os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.system", "os.exec")
sys.addaudithook(lambda event, args: event.startswith(spawns) and started.append(event))
import numpy as np, boostrank as br
data = br.datasets.make_letor(30, random_state=0)
for n_jobs in (None, 2):
    model = br.LambdaRanker(n_estimators=3, n_jobs=n_jobs).fit(data.X, data.y, qid=data.qid)
    model.predict(data.X)
    br.LambdaObjective("auc", n_jobs=-1).bind(data.y, data.group_offsets).gradients(np.zeros(len(data.y)))
print(started)
"""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[-2] == "[]"  # every way Python starts a process raises an audit event
    assert "compiling the λ kernels once for this machine" in done.stderr


def test_sampled_lambdas_average_to_the_full_lambdas():
    y = np.array([1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 2, 0])
    s = np.array([0.3, 0.1, -0.2, 0.0, 0.5, -1.0, 0.2, 0.2, 0.9, -0.3, 0.4, 0.1])
    full = br.lambda_gradients(s, y, metric="mauc")[0]
    obj = LambdaObjective("mauc", pair_fraction=0.5, random_state=3, anchor=0)  # the λs alone, as full
    prep = obj.bind(y)
    draws = np.array([prep.gradients(s, scaled=False)[0].copy() for _ in range(3000)])
    se = draws.std(axis=0) / np.sqrt(draws.shape[0])
    assert np.all(np.abs(draws.mean(axis=0) - full) <= 5 * se + 1e-12)
    assert np.any(draws.std(axis=0) > 0)  # pairs do change between calls


@pytest.mark.parametrize("sigma", [0.5, 1.0, 2.0])
def test_uniform_logistic_lambdas_are_the_gradient_of_the_smoothed_statistic(sigma):
    """With the statistic's own pair weights the λs are the exact gradient (and hessian diagonal) of
    Σ_pairs w log(1 + exp(−σ(s_h − s_l))): checked by central differences, ties included."""
    from boostrank._kernels.metrics import mauc_class_weights

    rng = np.random.default_rng(int(10 * sigma))
    n = 25
    y = rng.integers(0, 3, size=n)
    s = np.round(rng.normal(size=n), 1)
    w = mauc_class_weights(np.bincount(y, minlength=3).astype(float), float(n))
    hi, lo = np.nonzero(y[:, None] > y[None, :])
    wp = np.abs(w[y[hi]] - w[y[lo]])

    def loss(v):
        return float(np.sum(wp * np.logaddexp(0.0, -sigma * (v[hi] - v[lo]))))

    g, h = br.lambda_gradients(s, y, metric="mauc", sigma=sigma, pair_weight="uniform", link="logistic")
    step = 1e-5
    for i in range(n):
        e = np.zeros(n)
        e[i] = step
        assert (loss(s + e) - loss(s - e)) / (2 * step) == pytest.approx(g[i], rel=1e-6, abs=1e-10)
        assert (loss(s + e) - 2 * loss(s) + loss(s - e)) / step**2 == pytest.approx(h[i], rel=1e-3, abs=1e-7)


@pytest.mark.parametrize("metric", ["auc", "mauc"])
@pytest.mark.parametrize("link", ["logistic", "probit"])
def test_scaled_first_round_hessians_average_a_quarter_per_row(metric, link):
    y, s, qid = random_ranking(3, n_queries=8, max_len=30, n_grades=3, tie_levels=5)
    off = offsets_of(qid)
    every = LambdaObjective(metric, link=link, pair_fraction=1.0 if link == "logistic" else None, anchor=0.0)
    g0, h0 = every.bind(y, off).gradients(np.zeros(y.shape[0]))
    active = h0 > 0
    assert h0[active].mean() == pytest.approx(0.25, rel=1e-12)
    assert np.all(h0[~active] == 0) and np.all(g0[~active] == 0)
    obj = LambdaObjective(metric, link=link, anchor=0.0)  # the default pairs: sampled with the logistic link
    prep = obj.bind(y, off)
    scale = prep.hessian_scale()
    prep.gradients(np.zeros(y.shape[0]))
    g1, h1 = (v.copy() for v in prep.gradients(s))
    obj2 = LambdaObjective(metric, link=link, anchor=0.0)
    prep2 = obj2.bind(y, off)
    prep2.gradients(np.zeros(y.shape[0]), scaled=False)  # the same calls: the same pairs
    g2, h2 = prep2.gradients(s, scaled=False)
    np.testing.assert_allclose(g1, scale * g2, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(h1, scale * h2, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("kwargs,match", [
    ({"pair_fraction": 0.3}, "1/k for a whole k"),
    ({"pair_fraction": 0.0}, r"'pair_fraction' parameter of LambdaObjective must be a float in the range \(0.0, 1.0\]"),
    ({"pair_fraction": 1.5}, r"'pair_fraction' parameter of LambdaObjective must be a float in the range \(0.0, 1.0\]"),
    ({"pair_fraction": True}, "'pair_fraction' parameter of LambdaObjective must be a number, not True"),
    ({"pair_fraction": 1 / 2000}, "1/k for a whole k"),
    ({"pair_fraction": 0.5, "link": "probit"}, "needs link='logistic'"),
    ({"pair_fraction": 0.5, "method": "fast"}, "needs link='logistic'"),
    ({"pair_weight": "linear"}, "'pair_weight' parameter of LambdaObjective must be a str among"),
    ({"random_state": -1}, "'random_state' parameter of LambdaObjective must be an int in the range"),
    ({"random_state": 1.5}, "'random_state' parameter of LambdaObjective must be an int in the range"),
])
def test_bad_pair_settings_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        LambdaObjective("auc", **kwargs)


def test_pair_settings_are_refused_for_ndcg():
    with pytest.raises(ValueError, match="pair_weight='uniform' would change nothing: objective='ndcg'"):
        LambdaObjective("ndcg", pair_weight="uniform")
    with pytest.raises(ValueError, match="pair_fraction=0.5 would change nothing: objective='ndcg'"):
        LambdaObjective("ndcg", pair_fraction=0.5)
    g, _ = br.lambda_gradients([0.0, 1.0], [1, 0], metric="ndcg")  # its exact default is no setting to refuse
    assert g[0] < 0


@pytest.mark.parametrize("kind", ["binary", "grades", "real", "large", "fractional", "top grade 63", "empty"])
def test_pairs_per_list_counts_pairs_of_differing_labels(kind):
    """What link="auto" decides on: small integer grades counted without a sort, anything else through
    np.unique, both against the pair-by-pair count (empty and one-row lists included)."""
    from boostrank.objectives.objective import _pairs_per_list

    rng = np.random.default_rng(len(kind))
    off = np.array([0, 0, 1, 31, 31, 90, 200]) if kind != "empty" else np.array([0, 0])
    n = int(off[-1])
    y = {"binary": rng.integers(0, 2, n), "grades": rng.integers(0, 5, n), "real": np.round(rng.normal(size=n), 1),
         "large": rng.integers(0, 3, n) * 1000, "fractional": rng.integers(0, 3, n) + 0.5,
         "top grade 63": rng.integers(60, 64, n), "empty": np.zeros(0)}[kind].astype(np.float64)
    assert _pairs_per_list(y, off).tolist() == ref.pairs_per_list_reference(y, off)


@pytest.mark.parametrize("case", ["short lists", "one long list", "one long list, swap weights", "ndcg"])
def test_the_first_compile_notice_checks_the_kernel_the_data_takes(case, monkeypatch):
    """The notice looks up the cache of the kernel this data set's λs run through (one long list takes the
    probit series, not the logistic kernel: checking that one printed the notice on every warm run)."""
    from boostrank.objectives import objective as objectives
    from boostrank._kernels.erfc import uniform_series_lambdas
    from boostrank._kernels.lambda_series import _both_sweeps
    from boostrank._kernels.lambdas import lambda_auc_kernel, lambda_ndcg_kernel

    seen = []
    monkeypatch.setattr(objectives, "note_first_compile", lambda what, kernel: seen.append((what, kernel)))
    rng = np.random.default_rng(0)
    n = 30 if case == "short lists" else 3000
    y = (rng.random(n) < 0.3).astype(float)
    off = np.arange(0, n + 1, 10) if case == "short lists" else np.array([0, n])
    obj = LambdaObjective("ndcg" if case == "ndcg" else "auc", pair_weight="swap" if "swap" in case else "auto")
    obj.bind(y, off)
    expected = {"short lists": lambda_auc_kernel, "one long list": uniform_series_lambdas,
                "one long list, swap weights": _both_sweeps, "ndcg": lambda_ndcg_kernel}[case]
    assert seen == [("λ", expected)]


@pytest.mark.parametrize("kw", [{"threshold": float("nan")}, {"threshold": "1"}, {"sigma": "1"},
                                {"sigma": float("nan")}, {"truncation_level": 2.5}, {"truncation_level": True},
                                {"anchor": 1e39}, {"anchor": float("inf")}, {"grade_weight": 1e308}])
def test_objective_parameters_that_would_train_a_constant_model_are_refused(kw):
    with pytest.raises(ValueError):
        br.LambdaObjective("ndcg" if "truncation_level" in kw else "auc", **kw)


# ---------------------------------------------------------------- item 11: nothing to learn at the threshold
@pytest.mark.parametrize("metric, y, match", [
    ("auc", [1, 2, 3, 1, 2, 3], "every query has one class at threshold=0"),
    ("auc", [0, 0, 0, 0, 0, 0], "one class at threshold=0"),
    ("mauc", [2, 2, 2, 1, 1, 1], "every query has one class"),
])
def test_labels_with_nothing_to_rank_are_refused(metric, y, match):
    X = np.random.default_rng(0).normal(size=(6, 2))
    with pytest.raises(ValueError, match=match):
        br.LambdaRanker(objective=metric, n_estimators=2).fit(X, y, group=[3, 3])
    with pytest.raises(ValueError, match=match):
        br.lambda_gradients(np.zeros(6), y, [0, 3, 6], metric=metric)


def test_a_threshold_between_the_grades_trains():
    g, _ = br.lambda_gradients(np.zeros(6), [1, 2, 3, 1, 2, 3], [0, 3, 6], metric="auc", threshold=1.5)
    assert (g[[1, 2, 4, 5]] < 0).all() and (g[[0, 3]] > 0).all()


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 2, 4])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_anchor_kernel_equals_the_reference(seed, k, dtype):
    rng = np.random.default_rng(seed)
    for n in (0, 1, 7, 60):
        s = rng.normal(scale=[1.0, 40.0][seed % 2], size=n)  # wide scores: no overflow in either tail
        classes = rng.integers(0, k + 1, n)
        bias = rng.normal(size=k)
        grad = rng.normal(size=n).astype(dtype)
        hess = rng.random(n).astype(dtype)
        before = (grad.astype(np.float64), hess.astype(np.float64))
        add_anchor(s, classes, bias, 0.7, grad, hess, NO_EXAM, 1.0, grad, hess)
        rg, rh = ref.anchor_reference(s, classes, list(range(k)), bias, 0.7)
        tol = 1e-6 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(grad, before[0] + rg, rtol=tol, atol=tol)
        np.testing.assert_allclose(hess, before[1] + rh, rtol=tol, atol=tol)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [1, 3])
def test_the_anchor_is_the_gradient_and_hessian_of_its_log_loss(seed, k):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=20)
    classes = rng.integers(0, k + 1, 20)
    bias = rng.normal(size=k)
    grad, hess = np.zeros(20), np.zeros(20)
    add_anchor(s, classes, bias, 1.3, grad, hess, NO_EXAM, 1.0, grad, hess)
    h = 1e-5
    for i in range(20):
        e = np.zeros(20)
        e[i] = h
        up = ref.anchor_loss_reference(s + e, classes, list(range(k)), bias, 1.3)
        down = ref.anchor_loss_reference(s - e, classes, list(range(k)), bias, 1.3)
        assert grad[i] == pytest.approx((up - down) / (2 * h), rel=1e-6, abs=1e-9)
    # the hessian: central differences of the gradient (each row's depends on its own score only)
    g_up, h_up = np.zeros(20), np.zeros(20)
    g_down, h_down = np.zeros(20), np.zeros(20)
    add_anchor(s + h, classes, bias, 1.3, g_up, h_up, NO_EXAM, 1.0, g_up, h_up)
    add_anchor(s - h, classes, bias, 1.3, g_down, h_down, NO_EXAM, 1.0, g_down, h_down)
    np.testing.assert_allclose(hess, (g_up - g_down) / (2 * h), rtol=1e-6, atol=1e-10)


@pytest.mark.parametrize("metric,grades", [("auc", 2), ("auc", 5), ("mauc", 4)])
@pytest.mark.parametrize("seed", range(3))
def test_the_objective_adds_the_anchor_to_its_lambdas_from_the_base_rates(metric, grades, seed):
    y, s, qid = random_ranking(seed, n_queries=8, max_len=12, n_grades=grades, tie_levels=1000)
    off = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1], True])
    w = np.random.default_rng(seed).random(y.shape[0]) + 0.5
    plain = LambdaObjective(metric, anchor=0.0).bind(y, off, w)
    assert plain.anchor is None  # α = 0: today's λ, to the bit
    g0, h0 = plain.gradients(s)
    g0, h0 = g0.copy(), h0.copy()
    state = LambdaObjective(metric, anchor=0.8).bind(y, off, w)
    g, h = state.gradients(s)
    values = np.unique(y)
    thresholds = values[:-1]  # the ordinal form: every grade boundary (one on binary labels)
    shares = np.array([w[y > t].sum() / w.sum() for t in thresholds])
    bias = np.log(shares / (1 - shares))  # the logit of each target's weighted base rate
    rg, rh = ref.anchor_reference(s, y, thresholds, bias, 0.8)
    np.testing.assert_allclose(g, g0 + w * np.array(rg), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(h, h0 + w * np.array(rh), rtol=1e-12, atol=1e-14)
    # lambda_gradients gives the papers' units: the anchor divided by the data set's hessian scale
    gp, _ = br.lambda_gradients(s, y, off, metric=metric, weight=w, anchor=0.8, pair_fraction=None)
    gp0, _ = br.lambda_gradients(s, y, off, metric=metric, weight=w, anchor=0.0, pair_fraction=None)
    np.testing.assert_allclose(gp, gp0 + w * np.array(rg) / state.hessian_scale(), rtol=1e-10, atol=1e-14)


def test_the_forms_defaults_and_refusals():
    y = np.array([0.0, 1, 2, 2, 0, 3])
    off = np.array([0, 3, 6])
    assert LambdaObjective("auc").anchor == 0.3 and LambdaObjective("mauc").anchor == 1.0
    assert LambdaObjective("ndcg").anchor == 0.0
    binary = LambdaObjective("auc", anchor=1.0, anchor_form="binary").bind(y, off)
    assert binary.anchor[1].tolist() == [0, 1, 1, 1, 0, 1] and binary.anchor[2].shape == (1,)
    ordinal = LambdaObjective("auc", anchor=1.0).bind(y, off)
    assert ordinal.anchor[1].tolist() == [0, 1, 2, 2, 0, 3] and ordinal.anchor[2].shape == (3,)
    assert np.all(np.diff(ordinal.anchor[2]) < 0)  # fewer rows above each higher grade
    mauc = LambdaObjective("mauc", anchor=1.0).bind(y, off)
    assert mauc.anchor[1].tolist() == ordinal.anchor[1].tolist()
    cut = LambdaObjective("auc", anchor=1.0, anchor_form="binary", threshold=1.5).bind(y, off)
    assert cut.anchor[1].tolist() == [0, 0, 1, 1, 0, 1]
    real = LambdaObjective("auc", anchor=1.0).bind(np.linspace(0, 1, 40), [0, 20, 40])
    assert real.anchor[2].shape == (1,)  # more values than grades: the AUC cut alone
    zero_weight = LambdaObjective("auc", anchor=1.0).bind(np.array([1.0, 0, 1, 0]), [0, 2, 4], [0, 1, 0, 1])
    assert zero_weight.anchor is None  # no weight above the cut: no base rate to start from
    for bad, match in ((-1.0, "must be a float in the range"), (float("nan"), "must be a float in the range"),
                       (float("inf"), "must be a float in the range"), ("1", "must be a float in the range"),
                       (True, "must be a number, not True")):
        with pytest.raises(ValueError, match=match):
            LambdaObjective("auc", anchor=bad)
    with pytest.raises(ValueError, match="anchor=1.0 would change nothing: objective='ndcg' does not read it"):
        LambdaObjective("ndcg", anchor=1.0)
    with pytest.raises(ValueError, match="'anchor_form' parameter of LambdaObjective must be a str among"):
        LambdaObjective("auc", anchor_form="cumulative")
    assert label_mass([2.0, 0, 2], [1.0, 3.0, 0.5]) == {0.0: 3.0, 2.0: 1.5}


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_both_engines_receive_the_anchored_gradients(engine):
    import lightgbm as lgb
    import xgboost as xgb

    data = br.datasets.make_letor(30, docs_per_query=(5, 15), random_state=3)
    expected, _ = LambdaObjective("auc", anchor=2.0).bind(data.y, data.group_offsets).gradients(
        np.zeros(len(data.y)))
    seen = []
    if engine == "lightgbm":
        obj = br.lightgbm_objective("auc", anchor=2.0)

        def record(preds, ds):
            g, h = obj(preds, ds)
            seen.append(g.copy())
            return g, h
        lgb.train({"objective": record, "verbose": -1}, lgb.Dataset(data.X, data.y, group=data.group_sizes), 1)
    else:
        obj = br.xgboost_objective("auc", anchor=2.0)

        def record(preds, dm):
            g, h = obj(preds, dm)
            seen.append(g.copy())
            return g, h
        xgb.train({"base_score": 0.0}, xgb.DMatrix(data.X, data.y, qid=data.qid), 1, obj=record)
    np.testing.assert_array_equal(seen[0], expected.astype(np.float32))


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_lambda_ranker_takes_anchor_and_refuses_it_where_it_would_do_nothing(engine):
    data = br.datasets.make_letor(30, docs_per_query=(5, 15), random_state=4)
    a = br.LambdaRanker(engine=engine, objective="auc", anchor=0.0, n_estimators=5).fit(data.X, data.y, qid=data.qid)
    b = br.LambdaRanker(engine=engine, objective="auc", anchor=3.0, n_estimators=5).fit(data.X, data.y, qid=data.qid)
    assert not np.allclose(a.predict(data.X), b.predict(data.X))
    assert br.LambdaRanker(anchor=1.5).get_params()["anchor"] == 1.5
    with pytest.raises(ValueError, match="anchor=1.0 would change nothing: objective='ndcg'"):
        br.LambdaRanker(engine=engine, objective="ndcg", anchor=1.0).fit(data.X, data.y, qid=data.qid)
    with pytest.raises(ValueError, match="anchor is a parameter of boostrank's objectives"):
        br.LambdaRanker(engine=engine, objective="lambdarank" if engine == "lightgbm" else "rank:ndcg",
                        anchor=1.0).fit(data.X, data.y, qid=data.qid)
    with pytest.raises(ValueError, match="anchor"):
        br.LambdaRanker(engine=engine, anchor=-1.0).fit(data.X, data.y, qid=data.qid)


def test_extreme_scores_give_finite_anchors():
    s = np.array([-1e308, -800.0, -50.0, 0.0, 50.0, 800.0, 1e308])
    grad, hess = np.zeros(7), np.zeros(7)
    add_anchor(s, np.array([1, 1, 1, 0, 0, 0, 0]), np.array([0.5]), 1.0, grad, hess, NO_EXAM, 1.0, grad, hess)
    assert np.isfinite(grad).all() and np.isfinite(hess).all() and (hess >= 0).all()
    np.testing.assert_allclose(grad[[0, 1, -1]], [-1.0, -1.0, 1.0])  # σ = 0 far below, 1 far above


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_lambda_ranker_takes_the_anchor_s_form(engine):
    """anchor_form is the estimator's, cloned and saved, and trains what LambdaObjective(anchor_form=) trains."""
    from sklearn.base import clone

    data = br.datasets.make_letor(30, docs_per_query=(5, 15), random_state=4)
    fits = {form: br.LambdaRanker(engine=engine, anchor_form=form, n_estimators=5).fit(data.X, data.y, qid=data.qid)
            for form in ("ordinal", "binary")}
    assert not np.allclose(fits["ordinal"].predict(data.X), fits["binary"].predict(data.X))
    assert clone(fits["binary"]).get_params()["anchor_form"] == "binary"
    with pytest.raises(ValueError, match="anchor_form"):
        br.LambdaRanker(engine=engine, anchor_form="cubic").fit(data.X, data.y, qid=data.qid)
