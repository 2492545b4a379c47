"""MIP formulations against exhaustive search, LP bounds, duplicates; the top-K re-ranker."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import boostrank as br
from boostrank import mip as mip_module
from boostrank.weights import local_auc

from .reference import candidate_directions


def test_thesis_table_2_2_resolved_prefers_minus_one_min_prefers_plus_one():
    X = np.array([[3], [3], [2], [1], [1], [1], [1]], dtype=float)
    y = np.array([1, 1, 0, 1, 1, 1, 1])
    rr = br.MIPRanker("rank_risk", a=local_auc(5), rank="resolved").fit(X, y)
    mr = br.MIPRanker("rank_risk", a=local_auc(5), rank="min").fit(X, y)
    assert rr.coef_[0] < 0 and mr.coef_[0] > 0
    assert rr.result_.objective == pytest.approx(18) and mr.result_.objective == pytest.approx(12)
    assert rr.result_.statistic == pytest.approx(18) and not rr.result_.mismatch


def _small(seed, d):
    rng = np.random.default_rng(seed)
    n = 7
    X = rng.integers(0, 3, size=(n, d)).astype(float)  # small integer grid: ties and duplicates
    y = rng.integers(0, 2, size=n)
    y[0], y[1] = 1, 0
    return X, y


def _best(stat, X, y):
    return max(stat(X @ w) for w in candidate_directions(X))


CASES = [
    ("auc", {}, lambda y: (lambda s: br.auc(y, s, ties="pessimistic"))),
    ("rank_risk", {"a": "dcg@3", "rank": "min"}, lambda y: (lambda s: br.rank_risk(y, s, "dcg@3"))),
    ("rank_risk", {"a": local_auc(4), "rank": "resolved"},
     lambda y: (lambda s: br.rank_risk(y, s, local_auc(4), rank="resolved"))),
]


@pytest.mark.parametrize("d", [1, 2])
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("case", range(len(CASES)), ids=["auc", "rrf_min", "rrf_resolved"])
def test_mip_optimum_equals_exhaustive_search(case, seed, d):
    statistic, kw, make = CASES[case]
    X, y = _small(seed, d)
    best = _best(make(y), X, y)
    res = br.MIPRanker(statistic, **kw).fit(X, y).result_
    assert res.status == "optimal"
    assert res.statistic == pytest.approx(best, abs=1e-9)
    assert res.objective == pytest.approx(best, abs=1e-6)
    lp = br.MIPRanker(statistic, relax=True, **kw).fit(X, y).result_
    assert lp.objective >= res.objective - 1e-6
    if statistic != "rank_risk" or kw["rank"] == "min":
        unmerged = br.MIPRanker(statistic, merge_duplicates=False, **kw).fit(X, y).result_
        assert unmerged.objective == pytest.approx(res.objective, abs=1e-6)


def test_auc_pi_on_graded_labels_and_highs_agree_with_cbc():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 4, size=(8, 2)).astype(float)
    y = rng.integers(0, 3, size=8)
    best = _best(lambda s: br.wmw(y, s, ties="pessimistic", average="pairs"), X, y)
    cbc = br.MIPRanker("auc_pi").fit(X, y).result_
    highs = br.MIPRanker("auc_pi", solver="highs").fit(X, y).result_
    assert cbc.statistic == pytest.approx(best) and highs.statistic == pytest.approx(best)


def test_l0_penalty_drops_a_useless_feature():
    rng = np.random.default_rng(4)
    X = np.column_stack([np.arange(8.0), rng.normal(size=8)])
    y = (np.arange(8) >= 4).astype(int)
    m = br.MIPRanker("auc", l0=0.05).fit(X, y)
    assert m.result_.statistic == 1.0 and np.count_nonzero(m.coef_) == 1


def test_time_limit_returns_incumbent_with_status_and_gap():
    X, y = br.make_roc_flexibility(250, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = br.MIPRanker("auc", time_limit=1).fit(X, y).result_
    assert res.status in ("feasible", "optimal", "no solution")
    if res.status == "feasible":
        assert res.gap is not None and res.bound >= res.objective - 1e-9
        assert res.statistic is not None


def test_single_class_and_bad_input():
    X = np.arange(6.0).reshape(-1, 1)
    with pytest.warns(UserWarning, match="single class"):
        m = br.MIPRanker().fit(X, np.ones(6))
    assert not np.any(m.coef_)
    with pytest.raises(ValueError, match="NaN"):
        br.MIPRanker().fit(np.full((3, 1), np.nan), [0, 1, 0])
    with pytest.raises(ValueError, match="statistic"):
        br.MIPRanker("median").fit(X, [0, 1, 0, 1, 0, 1])


# ----------------------------------------------------------------- re-ranker


@pytest.fixture(scope="module")
def fitted_reranker():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] - X[:, 1] + 0.5 * rng.normal(size=60) > 0.5).astype(int)
    base = X[:, 0] + rng.normal(size=60)
    qid = np.repeat([1, 2, 3], 20)
    model = br.TopKReranker(k=6, statistic="rank_risk", a="dcg@3", time_limit=20).fit(X, y, base, qid)
    return model, X, y, base, qid


def test_rerank_improves_training_top_and_keeps_the_tail(fitted_reranker):
    model, X, y, base, qid = fitted_reranker
    assert model.fallback_ is None and model.ranker_.result_.status == "optimal"
    order = model.rerank(X, base, qid)
    for g, (a, b) in enumerate([(0, 20), (20, 40), (40, 60)]):
        lst = order[a:b]
        base_order = a + np.argsort(-base[a:b], kind="stable")
        assert set(lst[:6]) == set(base_order[:6])          # the top K stays the top K
        np.testing.assert_array_equal(lst[6:], base_order[6:])  # the rest keeps base order
    s_new = model.predict(X, base, qid)
    top = np.isin(np.arange(60), order.reshape(3, 20)[:, :6].ravel())
    before = br.rank_risk(y[top], base[top], "dcg@3", qid=qid[top], per_query=True).sum()
    after = br.rank_risk(y[top], s_new[top], "dcg@3", qid=qid[top], per_query=True).sum()
    assert after >= before - 1e-9


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 25), st.integers(1, 4))
def test_rerank_is_always_a_permutation(fitted_reranker, seed, k, n_lists):
    model, *_ = fitted_reranker
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 12, size=n_lists)
    n = int(sizes.sum())
    X = rng.normal(size=(n, 2)).round(1)  # ties in wᵀx
    base = rng.integers(0, 3, size=n).astype(float)  # ties in base score
    qid = np.repeat(np.arange(n_lists), sizes)
    clone = br.TopKReranker(k=k)
    clone.coef_, clone.fallback_ = model.coef_, None
    order = clone.rerank(X, base, qid)
    assert sorted(order.tolist()) == list(range(n))
    # each list stays in its own block
    for q, (a, b) in enumerate(zip(np.r_[0, np.cumsum(sizes)][:-1], np.cumsum(sizes))):
        assert set(order[a:b].tolist()) == set(range(a, b))
    np.testing.assert_array_equal(order, clone.rerank(X, base, qid))  # deterministic


def test_k_zero_k_large_single_class_and_fallback(monkeypatch):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(12, 2))
    base = rng.normal(size=12)
    y = (X[:, 1] > 0).astype(int)
    m0 = br.TopKReranker(k=0).fit(X, y, base)
    np.testing.assert_array_equal(m0.rerank(X, base), np.argsort(-base, kind="stable"))
    big = br.TopKReranker(k=100, statistic="auc").fit(X, y, base)
    assert big.ranker_.result_.status == "optimal"
    assert br.auc(y, big.predict(X, base), ties="pessimistic") == pytest.approx(big.ranker_.result_.statistic)
    with pytest.warns(UserWarning):
        one = br.TopKReranker(k=5).fit(X, np.ones(12, dtype=int), base)
    np.testing.assert_array_equal(one.rerank(X, base), np.argsort(-base, kind="stable"))

    def no_solution(*args, **kwargs):
        return "no solution", None, None, 0.1, ""

    monkeypatch.setattr(mip_module, "solve_problem", no_solution)
    with pytest.warns(UserWarning, match="keeping the base order"):
        fb = br.TopKReranker(k=5, statistic="auc").fit(X, y, base)
    assert fb.fallback_ == "base order"
    np.testing.assert_array_equal(fb.rerank(X, base), np.argsort(-base, kind="stable"))
    with pytest.raises(ValueError, match="k must be"):
        br.TopKReranker(k=-1).fit(X, y, base)
