"""boostrank.mip.search: the exact low-dimensional sweep, the search and the branch and bound, against exhaustive
enumeration."""

import numpy as np
import pytest

import boostrank as br
from boostrank.mip import rank_data
from boostrank.mip.search import branch_and_bound, widest_margin

from ..reference import candidate_directions, candidate_directions_3d
from .conftest import CASES, CASE_IDS, _best, _pair_set


@pytest.mark.parametrize("case", range(len(CASES)), ids=CASE_IDS)
@pytest.mark.parametrize("seed", range(8))
def test_exact_2d_solver_equals_exhaustive_enumeration(case, seed):
    statistic, kw, make = CASES[case]
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 41))
    X = rng.integers(0, 5, size=(n, 2)).astype(float) if seed % 2 else rng.normal(size=(n, 2))
    y = (rng.random(n) < 0.4).astype(int)
    y[0] = 1
    m = br.MIPRanker(objective=statistic, **kw).fit(X, y)
    best = _best(make(y), X)
    assert m.result_.status == "optimal" and m.result_.solver == "exact"
    assert m.result_.statistic == pytest.approx(best)


PAIR_CASES = [
    ("auc", lambda y, qid: (lambda s: br.auc(y, s, qid, ties="pessimistic"))),
    ("auc_pi", lambda y, qid: (lambda s: br.wmw(y, s, qid, ties="pessimistic", average="pairs"))),
]


@pytest.mark.slow
@pytest.mark.parametrize("case", range(len(PAIR_CASES)), ids=[c[0] for c in PAIR_CASES])
@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("seed", range(4))
def test_branch_and_bound_equals_exhaustive_enumeration(case, d, seed):
    statistic, make = PAIR_CASES[case]
    # 3-D enumeration grows as n^3: 4-9 rows keep it to seconds
    X, y, qid = _pair_set(seed, d, n=int(np.random.default_rng(seed).integers(4, 13 if d < 3 else 10)))
    labels = y if statistic == "auc_pi" else (y > 1).astype(int)
    stat = make(labels, qid)
    groups = np.zeros(len(y), dtype=np.int64) if qid is None else qid.astype(np.int64)
    data = rank_data(X, labels.astype(float), groups, np.ones(len(y)), statistic)
    cands = candidate_directions_3d(X) if d == 3 else candidate_directions(X)
    best = max(stat(X @ w) for w in cands)
    res = branch_and_bound(data, time_budget=None)
    assert res.proven and res.bound >= res.value
    assert res.value == pytest.approx(best, abs=1e-12)
    assert stat(X @ res.w) == pytest.approx(best, abs=1e-12)
    # from the optimum as incumbent it proves without improving
    again = branch_and_bound(data, res.w, time_budget=None)
    assert again.proven and not again.improved and again.value == pytest.approx(best)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2))
def test_branch_and_bound_stopped_early_keeps_a_valid_bound(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(12, 3)).round(1)
    y = (X @ rng.normal(size=3) + rng.normal(size=12) > 0).astype(int)
    y[0], y[1] = 1, 0
    data = rank_data(X, y.astype(float), np.zeros(12, dtype=np.int64), np.ones(12), "auc")
    best = max(br.auc(y, X @ w, ties="pessimistic") for w in candidate_directions_3d(X))
    cut = branch_and_bound(data, time_budget=0.0)  # one chunk of boxes
    assert cut.value <= best + 1e-12 <= cut.bound + 2e-12
    assert cut.proven == (cut.bound <= cut.value + 1e-9)
    assert branch_and_bound(rank_data(X, y.astype(float), np.zeros(12, dtype=np.int64), np.ones(12),
                                      "rank_risk", a="dcg@3")) is None  # not a pair statistic


def test_branch_and_bound_grows_its_work_arrays_and_resumes_to_the_same_answer():
    import importlib

    S = importlib.import_module("boostrank.mip.search")
    X, y = br.datasets.make_roc_flexibility(120, n_distinct=12, n_features=4, random_state=1)
    Xs = X / np.abs(X).max(axis=0)
    data = rank_data(Xs, y.astype(float), np.zeros(len(y), dtype=np.int64), np.ones(len(y)), "auc")
    D, cp, cm = S._merge_parallel(data.U[data.pu] - data.U[data.pv], data.c_plus, data.c_minus)
    runs = [S._arrangement_search(D, cp, cm, 0.0, np.zeros(4), None, 1e-9, 1e-11, **kw)
            for kw in ({}, {"pool": 1, "records": 1, "stack": 1})]
    (v1, w1, b1, _), (v2, w2, b2, _) = runs
    assert v1 == pytest.approx(v2) and b1 == pytest.approx(b2) and b1 == pytest.approx(v1)
    assert S._credit(D, cp, cm, w2) == pytest.approx(v2)


def test_widest_margin_keeps_the_order_and_centres_w():
    X, y = br.datasets.make_roc_flexibility(60, random_state=0)
    Xs = X / np.abs(X).max(axis=0)
    data = rank_data(Xs, y.astype(float), np.zeros(len(y), dtype=np.int64), np.ones(len(y)), "auc")
    w = branch_and_bound(data).w
    c = widest_margin(data, w)
    s_w, s_c = data.U @ w, data.U @ c
    sign_w = np.sign(s_w[data.pu] - s_w[data.pv])
    sign_c = np.sign(s_c[data.pu] - s_c[data.pv])
    assert np.all(sign_c[sign_w != 0] == sign_w[sign_w != 0])
    assert data.value(c) >= data.value(w) - 1e-12
    margin = lambda s, sg: np.min(sg * (s[data.pu] - s[data.pv])[sg != 0] /
                                  np.linalg.norm(data.U[data.pu] - data.U[data.pv], axis=1)[sg != 0])
    assert margin(s_c, sign_w) >= margin(s_w, sign_w) - 1e-12
    assert np.abs(c).max() == pytest.approx(1.0)
    assert widest_margin(data, np.zeros(X.shape[1])) is None  # ties every pair


def test_the_search_and_the_branch_and_bound_end_by_counts_and_say_when_the_clock_cut_them():
    from boostrank.mip.search import search

    X, y = br.datasets.make_roc_flexibility(120, n_distinct=12, n_features=4, random_state=1)
    data = rank_data(X / np.abs(X).max(0), y.astype(float), np.zeros(len(y), dtype=np.int64), np.ones(len(y)), "auc")
    starts = {"feature 0": np.eye(4)[0], "feature 1": np.eye(4)[1]}
    runs = [search(data, starts, random_state=3) for _ in range(2)]
    assert not runs[0].clocked and runs[0].lines == runs[1].lines
    np.testing.assert_array_equal(runs[0].w, runs[1].w)
    assert search(data, starts, time_budget=0.0).clocked
    few = [branch_and_bound(data, max_nodes=40) for _ in range(2)]
    assert not few[0].proven and not few[0].clocked and few[0].nodes <= 40 + 1
    np.testing.assert_array_equal(few[0].w, few[1].w)
    assert few[0].bound == few[1].bound
    full = branch_and_bound(data)
    assert full.proven and not full.clocked and full.bound <= few[0].bound + 1e-9
    cut = branch_and_bound(data, time_budget=0.0)
    assert cut.proven or cut.clocked


def test_the_branch_and_bound_declines_what_its_budget_cannot_merge():
    """Hardening #10: branch_and_bound(time_budget=0.01) at 6 000 rows spent 55 s merging hyperplanes."""
    from boostrank.mip import _data
    from boostrank.mip.search import MAX_BNB_PAIRS, branch_and_bound

    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 3))
    y = (X[:, 0] + rng.normal(size=2000) > 0).astype(int)
    data = _data.rank_data(X, y, np.zeros(2000, dtype=np.int64), np.ones(2000), "auc")
    assert data.pu.size < MAX_BNB_PAIRS  # declined for the budget, not the memory cap
    assert branch_and_bound(data, time_budget=0.01) is None
    small = _data.rank_data(X[:60], y[:60], np.zeros(60, dtype=np.int64), np.ones(60), "auc")
    assert branch_and_bound(small, time_budget=5).proven
