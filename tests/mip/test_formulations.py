"""boostrank.mip.formulations: the mixed-integer programs of AUC and the rank-risk functionals, their optimum against
exhaustive search."""

import time

import numpy as np
import pytest

import boostrank as br
from boostrank.mip import build_problem
from boostrank.weights import local_auc

from .conftest import CASES, CASE_IDS, _best, _small


@pytest.mark.parametrize("d", [1, 2])
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("case", range(len(CASES)), ids=CASE_IDS)
def test_mip_optimum_equals_exhaustive_search_and_the_exact_sweep(case, seed, d):
    statistic, kw, make = CASES[case]
    X, y = _small(seed, d)
    best = _best(make(y), X)
    res = br.MIPRanker(objective=statistic, algorithm="mip", **kw).fit(X, y).result_
    assert res.status == "optimal" and res.solver_status == "optimal"
    assert res.statistic == pytest.approx(best, abs=1e-9)
    assert res.objective == pytest.approx(best, abs=1e-6)
    assert br.MIPRanker(objective=statistic, **kw).fit(X, y).result_.statistic == pytest.approx(best)
    lp = br.MIPRanker(objective=statistic, relax=True, **kw).fit(X, y).result_
    assert lp.objective >= res.objective - 1e-6
    if statistic != "rank_risk" or kw["rank"] == "min":
        unmerged = br.MIPRanker(objective=statistic, merge_duplicates=False, algorithm="mip", **kw).fit(X, y).result_
        assert unmerged.objective == pytest.approx(res.objective, abs=1e-6)


def test_thesis_table_2_2_resolved_prefers_minus_one_min_prefers_plus_one():
    X = np.array([[3], [3], [2], [1], [1], [1], [1]], dtype=float)
    y = np.array([1, 1, 0, 1, 1, 1, 1])
    for method in ("auto", "mip"):
        rr = br.MIPRanker(objective="rank_risk", a=local_auc(5), rank="resolved", algorithm=method).fit(X, y)
        mr = br.MIPRanker(objective="rank_risk", a=local_auc(5), rank="min", algorithm=method).fit(X, y)
        assert rr.coef_[0] < 0 and mr.coef_[0] > 0
        assert rr.result_.objective == pytest.approx(18) and mr.result_.objective == pytest.approx(12)
        assert rr.result_.statistic == pytest.approx(18) and not rr.result_.mismatch


@pytest.mark.parametrize("solver", ["cbc", "highs"])
def test_auc_pi_on_graded_labels_both_solvers(solver):
    rng = np.random.default_rng(3)
    X = rng.integers(0, 4, size=(8, 3)).astype(float)
    y = rng.integers(0, 3, size=8)
    best = max(br.wmw(y, X @ w, ties="pessimistic", average="pairs")
               for w in rng.normal(size=(4000, 3)))
    res = br.MIPRanker(objective="auc_pi", solver=solver, algorithm="mip").fit(X, y).result_
    assert res.status == "optimal" and res.statistic >= best - 1e-12


def test_build_is_from_arrays_and_fast():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 8))
    y = (X[:, 0] + rng.normal(size=400) > 0.5).astype(float)
    t = time.perf_counter()
    model = build_problem(X / np.abs(X).max(0), y)
    assert time.perf_counter() - t < 3.0  # generous: ~0.05 s here; the PuLP build took ~50 s
    assert model.n_binaries == int((y > 0).sum() * (y <= 0).sum())
    x = model.start(np.ones(8))
    assert x is not None and np.all(model.A @ x <= model.row_hi + 1e-9)
