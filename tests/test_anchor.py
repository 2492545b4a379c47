"""The λ objectives' pointwise anchor (issue 70): the kernel against a plain reference, finite differences,
the base rates it starts from, α = 0 as today's λ, both engines, and Dask."""

import numpy as np
import pytest

import boostrank as br
from boostrank._kernels.lambdas import add_anchor
from boostrank.objectives.objective import LambdaObjective, label_mass

from . import reference as ref
from .conftest import random_ranking


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
        add_anchor(s, classes, bias, 0.7, grad, hess)
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
    add_anchor(s, classes, bias, 1.3, grad, hess)
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
    add_anchor(s + h, classes, bias, 1.3, g_up, h_up)
    add_anchor(s - h, classes, bias, 1.3, g_down, h_down)
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
    assert LambdaObjective("auc").anchor == 0.3 and LambdaObjective("mauc").anchor == 0.0
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


@pytest.mark.parametrize("n_chunks", [1, 3, 8])
def test_the_parallel_anchor_adds_the_same_sums(n_chunks):
    from boostrank._kernels.lambdas import add_anchor_parallel

    rng = np.random.default_rng(n_chunks)
    for n in (0, 5, 1000):
        s = rng.normal(scale=3.0, size=n)
        classes = rng.integers(0, 4, n)
        bias = rng.normal(size=3)
        g1, h1 = rng.normal(size=n), rng.random(n)
        g2, h2 = g1.copy(), h1.copy()
        add_anchor(s, classes, bias, 0.4, g1, h1)
        add_anchor_parallel(s, classes, bias, 0.4, g2, h2, n_chunks)
        np.testing.assert_array_equal(g1, g2)
        np.testing.assert_array_equal(h1, h2)


def test_extreme_scores_give_finite_anchors():
    s = np.array([-1e308, -800.0, -50.0, 0.0, 50.0, 800.0, 1e308])
    grad, hess = np.zeros(7), np.zeros(7)
    add_anchor(s, np.array([1, 1, 1, 0, 0, 0, 0]), np.array([0.5]), 1.0, grad, hess)
    assert np.isfinite(grad).all() and np.isfinite(hess).all() and (hess >= 0).all()
    np.testing.assert_allclose(grad[[0, 1, -1]], [-1.0, -1.0, 1.0])  # σ = 0 far below, 1 far above
