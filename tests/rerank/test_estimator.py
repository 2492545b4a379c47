"""TopKReranker: permutations, the held-out gate, cross-fitting, degenerate K and lists."""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression

import boostrank as br

from ..conftest import base_lists
from boostrank.rerank import cross_fit_scores, top_k_rows


@pytest.fixture(scope="module")
def fitted():
    X, y, base, qid = base_lists(0)
    model = br.TopKReranker(k=6, time_limit=6).fit(X, y, base_scores=base, qid=qid)
    return model, X, y, base, qid


@pytest.mark.slow
def test_rerank_improves_the_training_top_and_keeps_the_tail(fitted):
    model, X, y, base, qid = fitted
    assert model.result_.status == "re-ranked" and model.fallback_ is None
    assert model.result_.train_reranked >= model.result_.train_base - 1e-9
    order = model.rerank(X, base, qid=qid)
    for g in range(3):
        a, b = 12 * g, 12 * (g + 1)
        base_order = a + np.argsort(-base[a:b], kind="stable")
        assert set(order[a:a + 6]) == set(base_order[:6])
        np.testing.assert_array_equal(order[a + 6:b], base_order[6:])
    assert model.coef_.shape == (X.shape[1] + 1,)  # the base score is the last feature


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10_000), st.sampled_from([0, 1, 3, 25, None]), st.integers(1, 4), st.booleans(),
       st.booleans())
def test_rerank_is_always_a_permutation_of_each_list(fitted, seed, k, n_lists, include_base, fallback):
    model, *_ = fitted
    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 12, size=n_lists)
    n = int(sizes.sum())
    X = rng.normal(size=(n, 3)).round(1)  # ties in wᵀx
    base = rng.integers(0, 3, size=n).astype(float)  # ties in base score
    qid = np.repeat(np.arange(n_lists), sizes)
    clone = br.TopKReranker(k=k, include_base=include_base)
    clone.n_features_in_, clone.base_estimator_, clone.result_ = 3, None, None
    clone.coef_ = model.coef_ if include_base else model.coef_[:3]
    clone.fallback_ = "base order" if fallback else None
    order = clone.rerank(X, base, qid=qid)
    assert sorted(order.tolist()) == list(range(n))
    ends = np.cumsum(sizes)
    for a, b in zip(ends - sizes, ends):
        assert set(order[a:b].tolist()) == set(range(a, b))
    np.testing.assert_array_equal(order, clone.rerank(X, base, qid=qid))




class _Spy:
    """A base ranker that records the queries it was fitted on and the ones it scored."""

    log = []

    def __init__(self, shift=0.0):
        self.shift = shift

    def get_params(self, deep=True):
        return {"shift": self.shift}

    def set_params(self, **p):
        self.shift = p.get("shift", self.shift)
        return self

    def fit(self, X, y, qid=None):
        self.seen_ = set(np.asarray(qid).tolist())
        self.lr_ = LogisticRegression().fit(X, y > 0)
        return self

    def predict(self, X):
        _Spy.log.append((self.seen_, X[:, -1].astype(int).tolist()))
        return self.lr_.decision_function(X)


@pytest.mark.slow
def test_cross_fitted_scores_never_come_from_a_model_that_saw_the_query():
    X, y, _, qid = base_lists(1, n_lists=20)
    Xq = np.column_stack([X, qid])  # the last column tells the spy which query a row is
    _Spy.log.clear()
    scores, folds = cross_fit_scores(_Spy(), Xq, y, qid, cv=5)
    assert len(_Spy.log) == 5 and np.isfinite(scores).all()
    for seen, scored in _Spy.log:
        assert not seen & set(scored)
    m = br.TopKReranker(k=5, base_estimator=_Spy(), time_limit=4).fit(Xq, y, qid=qid)
    assert m.result_.cross_fitted
    s = m.predict(Xq[:24], qid=qid[:24])  # scored by the base model refitted on all queries
    assert sorted(s[:12]) == list(range(1, 13))


def test_in_sample_base_scores_are_warned_about():
    X, y, _, qid = base_lists(2, n_lists=20)
    with pytest.warns(UserWarning, match="in-sample"):
        br.TopKReranker(k=5, time_limit=2, gate=0).fit(X, y, base_scores=y + 0.1 * X[:, 0], qid=qid)


@pytest.mark.slow
@pytest.mark.parametrize("k", [0, 1, 12, 50, None])
def test_degenerate_k_lists_and_ties_have_defined_results(k):
    X, y, base, qid = base_lists(3, n_lists=9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # every fit searches as long as its budget lets it: 1 s changes what it finds, not what it must keep
        m = br.TopKReranker(k=k, time_limit=1).fit(X, y, base_scores=base, qid=qid)
        assert m.result_.status in ("re-ranked", "base order")
        if k in (0, 1):
            assert m.result_.status == "base order"
        ones = br.TopKReranker(k=k, time_limit=2)  # one row per list
        ones.fit(X[:9], y[:9], base_scores=base[:9], qid=np.arange(9))
        assert ones.result_.status == "base order"
        tied = br.TopKReranker(k=k, time_limit=1).fit(X, y, base_scores=np.zeros(len(y)), qid=qid)
        order = tied.rerank(X, np.zeros(len(y)), qid=qid)
    assert sorted(order.tolist()) == list(range(len(y)))


@pytest.mark.slow  # over a second warm
def test_a_fit_cut_by_its_time_limit_says_what_was_cut():
    """What the clock promises on any machine, busy or idle: a limit too short for the work cuts the gate's
    fits and the result says so (and that it is not repeatable); without a limit every stage ends by its own
    count of work and two fits agree.  How close a fit keeps to its limit in seconds is measured in
    benchmarks/rerank.py ("time limit")."""
    X, y, base, qid = base_lists(3, n_lists=300, d=12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cut = br.TopKReranker(k=12, time_limit=1e-6, max_nodes=0).fit(X, y, base_scores=base, qid=qid)
        X, y, base, qid = base_lists(3, n_lists=9)
        free = [br.TopKReranker(k=12, time_limit=None, max_nodes=0).fit(X, y, base_scores=base, qid=qid)
                for _ in range(2)]
    assert cut.result_.status in ("re-ranked", "base order")
    # a microsecond cannot hold the gate's 15 searches and the final search over 300 lists of 12 rows in 12
    # dimensions: each fit gets 0.1 s at least, and one search there takes several times that
    assert not cut.result_.repeatable[0], cut.result_.summary()
    assert cut.result_.gate_time_limited or cut.result_.mip.time_limited
    assert "time-limited" in cut.result_.summary() or "not repeatable" in cut.result_.summary()
    assert all(m.result_.repeatable[0] and not m.result_.gate_time_limited for m in free)
    np.testing.assert_array_equal(free[0].rerank(X, base, qid=qid), free[1].rerank(X, base, qid=qid))


def test_bad_input_raises():
    X, y, base, qid = base_lists(4, n_lists=4)
    with pytest.raises(ValueError, match="'k' parameter of TopKReranker must be"):
        br.TopKReranker(k=-1).fit(X, y, base_scores=base, qid=qid)
    with pytest.raises(ValueError, match="'k' parameter of TopKReranker must be"):
        br.TopKReranker(k=2.5).fit(X, y, base_scores=base, qid=qid)
    with pytest.raises(ValueError, match="base_scores or set base_estimator"):
        br.TopKReranker().fit(X, y, qid=qid)
    with pytest.raises(ValueError, match="l0"):
        br.TopKReranker(l0="grid").fit(X, y, base_scores=base, qid=qid)
    with pytest.raises(ValueError, match="cv must be"):
        br.TopKReranker(base_estimator=LogisticRegression(), cv=50).fit(X, y, qid=qid)
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        br.TopKReranker().predict(X, base, qid=qid)


def test_top_k_rows_breaks_ties_by_row_order():
    offsets = np.array([0, 4, 6])
    np.testing.assert_array_equal(top_k_rows(np.array([1.0, 2, 2, 0, 5, 5]), offsets, 2), [1, 2, 4, 5])


@pytest.mark.parametrize("kw", [{"gate": 1}, {"gate": -3}, {"gate": 2.0}, {"gate_alpha": 0}, {"gate_alpha": 1.5}])
def test_rerank_gate_settings_that_mean_no_gate_are_refused(kw):
    """gate=1 or -3 ran without a gate and reported "gate=0"."""
    X = np.random.default_rng(0).random((40, 2))
    with pytest.raises(ValueError, match="gate"):
        br.TopKReranker(**kw).fit(X, np.r_[np.zeros(20), np.ones(20)], group=[20, 20],
                                  base_scores=np.arange(40.0))


def test_rerank_k_past_every_list_reranks_wholebase_lists():
    rng = np.random.default_rng(0)
    X = rng.random((40, 2))
    y = np.r_[np.zeros(20), np.ones(20)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        big = br.TopKReranker(k=10**30, gate=0, time_limit=20).fit(X, y, group=[20, 20], base_scores=X[:, 0])
        whole = br.TopKReranker(k=20, gate=0, time_limit=20).fit(X, y, group=[20, 20], base_scores=X[:, 0])
    np.testing.assert_array_equal(big.coef_, whole.coef_)


@pytest.mark.parametrize("k", [0, 3])
def test_rows_the_reranker_did_not_order_keep_their_base_ties(k):
    """Hardening #19: with k = 0, tied base scores came back ordered by row number (AUC .7970 vs .7991)."""
    rng = np.random.default_rng(0)
    n_lists, size = 30, 12
    X = rng.normal(size=(n_lists * size, 3))
    y = (X[:, 0] + rng.normal(size=len(X)) > 0.5).astype(int)
    qid = np.repeat(np.arange(n_lists), size)
    base = np.round(X[:, 0] + X[:, 1], 0)  # coarse: many ties
    model = br.TopKReranker(k=k, time_limit=5, gate=0).fit(X, y, qid=qid, base_scores=base)
    s = model.predict(X, base, qid=qid)
    assert bool(model.fallback_) == (k == 0)  # no gate: k = 3 re-orders each top 3
    ordered = 0 if model.fallback_ else k
    for q in range(n_lists):
        rows = np.flatnonzero(qid == q)
        top = rows[np.lexsort((rows, -base[rows]))][:ordered]
        tail = np.setdiff1d(rows, top)
        for i in tail:  # a tail row ties exactly the tail rows its base score ties
            np.testing.assert_array_equal(s[tail] == s[i], base[tail] == base[i])
        assert (s[top][:, None] > s[tail][None, :]).all()
    if k == 0:
        assert br.auc(y, s, qid) == br.auc(y, base, qid)
    order = model.rerank(X, base, qid=qid)
    assert np.array_equal(np.sort(order), np.arange(len(X)))


def test_top_k_reranker_predict_without_qid_warns_as_fit_does():
    X, y, base, qid = base_lists(0, n_lists=8)
    rr = br.TopKReranker(k=3, time_limit=5, gate=0).fit(X, y, qid=qid, base_scores=base)
    with pytest.warns(br.OneListWarning, match=r"TopKReranker.predict got neither qid nor group.*fitted on 8 lists"):
        one = rr.predict(X, base)
    with pytest.warns(br.OneListWarning, match="TopKReranker.rerank"):
        order = rr.rerank(X, base)
    assert sorted(order.tolist()) == list(range(len(y)))
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", br.OneListWarning)
        per_list = rr.predict(X, base, qid=qid)
        rr.predict(X, base, group=[len(y)])  # one list, said explicitly
    assert not np.array_equal(one, per_list)  # the list structure changes the answer


def test_a_rerank_result_says_whether_the_same_seed_repeats_it():
    from boostrank.rerank import RerankResult

    X, y, base, qid = base_lists(18, n_lists=10)
    kw = dict(k=3, time_limit=None, max_nodes=5, random_state=1)
    fits = [br.TopKReranker(**kw).fit(X, y, qid=qid, base_scores=base) for _ in range(2)]
    assert fits[0].result_.repeatable[0] and not fits[0].result_.gate_time_limited
    assert fits[0].result_.heldout_gain == fits[1].result_.heldout_gain
    np.testing.assert_array_equal(fits[0].coef_, fits[1].coef_)
    final = type("M", (), {"status": "feasible", "time_limited": True, "summary": lambda s: ""})()
    for cut in (RerankResult("re-ranked", "", 3, 0.0, mip=final), RerankResult("re-ranked", "", 3, 0.0,
                                                                               gate_time_limited=True)):
        ok, why = cut.repeatable
        assert not ok and "time_limit cut" in why and "not repeatable" in cut.summary()


# ---------------------------------------------------------------- the gate measures what users report
@pytest.mark.parametrize("objective, a, want", [("rank_risk", "dcg@10", "ndcg@10"), ("rank_risk", "dcg@5", "ndcg@5"),
                                                ("rank_risk", "mrr", "mrr"), ("rank_risk", "dcg", "ndcg"),
                                                ("rank_risk", "pnorm@2", "ndcg@10"),
                                                ("auc", "dcg@10", "ndcg@10"), ("auc_pi", "dcg@10", "ndcg@10")])
def test_the_gate_metric_by_default_is_what_users_report(objective, a, want):
    rr = br.TopKReranker(objective=objective, a=a)
    assert rr._gate_metric() == want
    assert br.TopKReranker(gate_metric="map")._gate_metric() == "map"
    assert br.TopKReranker(gate_metric="fit")._gate_metric() == "fit"


def test_the_gate_values_are_the_metric_per_list_and_an_unknown_name_fails_before_any_fit():
    X, y, base, qid = base_lists(7, n_lists=6)
    offsets = br.metrics.group_offsets(len(y), qid=qid)
    rr = br.TopKReranker(gate_metric="ndcg@3")
    np.testing.assert_allclose(rr._gate_value(y, base, offsets),
                               np.nan_to_num(br.ndcg(y, base, qid, k=3, per_query=True)))
    fit = br.TopKReranker(gate_metric="fit")
    np.testing.assert_allclose(fit._gate_value(y, base, offsets), fit._list_value(y, base, offsets, per_list=True))
    with pytest.raises(ValueError, match="no_such"):
        br.TopKReranker(k=3, gate_metric="no_such").fit(X, y, qid=qid, base_scores=base)


@pytest.mark.slow  # over half a second warm
def test_the_defaults_run_no_mip_solver_and_end_by_their_counts():
    X, y, base, qid = base_lists(8, n_lists=20)
    assert br.TopKReranker().max_nodes == 0
    rr = br.TopKReranker(k=4, random_state=0).fit(X, y, qid=qid, base_scores=base)
    assert rr.result_.repeatable[0] and not rr.result_.gate_time_limited
    again = br.TopKReranker(k=4, random_state=0).fit(X, y, qid=qid, base_scores=base)
    np.testing.assert_array_equal(rr.coef_, again.coef_)
    assert rr.result_.status == "re-ranked" and "held-out gain in ndcg@10" in rr.result_.reason
    assert rr.ranker_.result_.solver == "none" and rr.ranker_.result_.n_binaries == 0  # the search's w, no MIP


def test_the_search_walks_from_its_best_starts_only_when_asked():
    from boostrank.mip._data import rank_data
    from boostrank.mip.search import search

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=60) > 0).astype(float)
    data = rank_data(X, y, np.zeros(60, dtype=np.int64), np.ones(60), "auc")
    starts = {"good": np.array([1.0, 0.0, 0.0]), "bad": np.array([-1.0, 0.0, 0.0]), "other": np.array([0, 1.0, 0])}
    one = search(data, starts, max_starts=1, max_rounds=0, patience=0)
    assert one.origin == "good"
    every = search(data, starts)
    assert every.value >= one.value - 1e-12
