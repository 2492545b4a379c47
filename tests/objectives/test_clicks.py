"""boostrank.objectives.clicks and its kernels: the position-bias correction of click feedback against its oracles,
the positions checked at every entry point, and nothing changed without them."""

from __future__ import annotations


import numpy as np
import pytest

import boostrank as br
from boostrank._kernels.config import LambdaSetting
from boostrank._kernels.lambdas import add_anchor, lambda_auc_kernel, lambda_auc_tables
from boostrank._validation import check_positions
from boostrank.objectives import clicks
from boostrank.objectives.clicks import PositionBias

from .. import reference as ref

NONE = np.zeros(0)


def _lists(rng, sizes, classes=2):
    off = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    y = rng.integers(0, classes, off[-1]).astype(np.int64)
    return y, off


def _kernel(s, y, off, factors, norm=0):
    n = y.shape[0]
    grad, hess = np.zeros(n), np.zeros(n)
    order = np.arange(n, dtype=np.int64) - np.repeat(off[:-1], np.diff(off))
    scratch = (order, np.empty(n, dtype=np.int64), np.empty((8, n)))
    setting = LambdaSetting(1.0, norm, False, np.int64(1), np.uint64(0))
    lambda_auc_kernel(s, y, off, setting, lambda_auc_tables(y, off), grad, hess, scratch, (0, off.shape[0] - 1),
                      factors)
    return grad, hess


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("classes", [2, 3])
def test_pair_factors_weigh_each_pair_as_the_oracle(seed, classes):
    """Per-row factors: the pair (h, l) weighs upper[h] × lower[l], against plain loops and swap-and-recount,
    over random lists, ties, one-class lists and lists of one or no row."""
    rng = np.random.default_rng(seed)
    sizes = [0, 1, 5, 9, 3, 12]
    y, off = _lists(rng, sizes, classes)
    y[off[3]:off[4]] = 1  # one class
    s = np.round(rng.normal(size=y.shape[0]), 1)  # ties
    upper, lower = rng.uniform(0.5, 4.0, y.shape[0]), rng.uniform(0.1, 1.0, y.shape[0])
    for norm in (0, 2):
        grad, hess = _kernel(s, y, off, (upper, lower), norm)
        for a, b in zip(off[:-1], off[1:]):
            rg, rh = ref.lambda_reference(list(s[a:b]), list(y[a:b]), 1.0, norm="query" if norm else False,
                                          upper=list(upper[a:b]), lower=list(lower[a:b]))
            np.testing.assert_allclose(grad[a:b], rg, rtol=1e-10, atol=1e-13)
            np.testing.assert_allclose(hess[a:b], rh, rtol=1e-10, atol=1e-13)


def test_factors_of_one_are_no_factors_to_the_bit():
    rng = np.random.default_rng(3)
    y, off = _lists(rng, [7, 20, 4], 3)
    s = rng.normal(size=y.shape[0])
    ones = np.ones(y.shape[0])
    plain = _kernel(s, y, off, (NONE, NONE))
    weighted = _kernel(s, y, off, (ones, ones))
    assert np.array_equal(plain[0], weighted[0]) and np.array_equal(plain[1], weighted[1])


@pytest.mark.parametrize("seed", range(5))
def test_the_click_anchor_is_the_gradient_of_the_click_models_log_loss(seed):
    """P(y > t_k) = e σ(s + b_k): the gradient against central differences of the loss, the hessian its Fisher
    information, and e = 1 the plain log-loss."""
    rng = np.random.default_rng(seed)
    n = 40
    s = rng.normal(scale=2.0, size=n)
    y = rng.integers(0, 3, n)
    classes = y.astype(np.int64)
    thresholds, bias = np.array([0.0, 1.0]), np.array([-0.5, -1.5])
    exam = rng.uniform(0.05, 1.0, n)
    grad, hess = np.zeros(n), np.zeros(n)
    add_anchor(s, classes, bias, 1.3, grad, hess, exam, 1.0, grad, hess)
    h = 1e-6
    for i in range(n):
        up, down = s.copy(), s.copy()
        up[i] += h
        down[i] -= h
        fd = (ref.click_anchor_loss_reference(up, y, thresholds, bias, 1.3, exam)
              - ref.click_anchor_loss_reference(down, y, thresholds, bias, 1.3, exam)) / (2 * h)
        assert grad[i] == pytest.approx(fd, rel=1e-5, abs=1e-7)
    np.testing.assert_allclose(hess, ref.click_fisher_reference(s, thresholds, bias, 1.3, exam), rtol=1e-9)
    g1, h1 = np.zeros(n), np.zeros(n)
    g0, h0 = np.zeros(n), np.zeros(n)
    add_anchor(s, classes, bias, 1.3, g1, h1, np.ones(n), 1.0, g1, h1)
    add_anchor(s, classes, bias, 1.3, g0, h0, NONE, 1.0, g0, h0)
    assert np.array_equal(g1, g0) and np.array_equal(h1, h0)


@pytest.mark.parametrize("seed", range(12))
def test_click_factors_equal_the_row_by_row_reference(seed):
    """The pair factors, propensities and E-step sums of one pass: random feedback, none, all, one row, no row;
    positions past the rows' (never shown); scores far out (γ at 0 and 1)."""
    from boostrank._kernels.clicks import click_factors

    rng = np.random.default_rng(seed)
    n = [0, 1, 7, 60][seed % 4]
    n_pos = int(rng.integers(1, 9))
    position = rng.integers(0, n_pos, n)
    clicked = [rng.random(n) < 0.3, np.zeros(n, bool), np.ones(n, bool)][seed % 3]
    propensity = np.sort(rng.uniform(0.2, 1.0, n_pos))[::-1].copy()
    scores = rng.normal(size=n) * (50.0 if seed % 5 == 0 else 1.0)
    power, posterior, offset = [1.0, 0.5][seed % 2], seed % 3 != 1, float(rng.normal())
    if seed % 4 == 3:
        propensity[0] = 1.0  # the top always examined: γ rounding to 1 there is 0 / 0 in the γ form
        scores[:3] = 60.0
    out = [np.full(n, np.nan) for _ in range(3)] + [np.full(n_pos, np.nan)]
    with np.errstate(over="ignore"):
        odds = np.exp(-(scores + offset))
    click_factors(position, clicked, propensity, odds, power, posterior, *out, np.empty(n_pos))
    want = ref.click_factors_reference(position.tolist(), clicked.tolist(), propensity.tolist(), scores.tolist(),
                                       offset, power, posterior)
    for got, expected in zip(out, want):
        assert np.isfinite(got).all()
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


def test_the_additive_term_takes_lightgbms_newton_step():
    rng = np.random.default_rng(0)
    position = rng.integers(0, 6, 50)
    labels = rng.integers(0, 2, 50)
    corr = PositionBias("additive", position, labels, learning_rate=0.3, regularization=0.5)
    corr.bias = rng.normal(size=corr.bias.shape[0])
    before = corr.bias.copy()
    g, h = rng.normal(size=50), rng.uniform(0.01, 1.0, 50)
    corr.update(np.zeros(50), g, h, 0.0)
    np.testing.assert_allclose(corr.bias, ref.position_bias_step_reference(before, position, g, h, 0.3, 0.5))
    s = rng.normal(size=50)
    np.testing.assert_array_equal(corr.scores(s), s + corr.bias[position])


def test_the_propensities_take_an_em_step_of_the_click_model(monkeypatch):
    monkeypatch.setattr(clicks, "ESTIMATE", "em")
    rng = np.random.default_rng(1)
    position = rng.integers(0, 5, 400)
    labels = (rng.random(400) < 0.5 / (1 + position)).astype(np.int64)
    corr = PositionBias("propensity", position, labels)
    e0 = corr.propensity.copy()
    s = rng.normal(size=400)
    corr.update(s, np.zeros(400), np.zeros(400), 0.2)
    raw = ref.examination_em_reference(e0, position, labels > 0, 1 / (1 + np.exp(-(s + 0.2))))
    from sklearn.isotonic import isotonic_regression

    expected = np.clip(isotonic_regression(raw, sample_weight=np.bincount(position), increasing=False),
                       clicks.MIN_PROPENSITY, 1.0)
    np.testing.assert_allclose(corr.propensity, expected)
    assert np.all(np.diff(corr.propensity) <= 0)


@pytest.mark.parametrize("position, match", [
    ([0, 1, -1, 0], "position -1 of row 2 is negative"),
    ([0, 1.5, 0, 1], "position 1.5 of row 1 is not a whole number"),
    ([0, 3, 0, 1], "position 3 of row 1 is past its list of 2 rows"),
    ([0, 1, 0], "one 0-based display rank per row"),
    (["a", "b", "c", "d"], "integers from 0"),
    ([True, False, True, False], "integers from 0"),
    ([0, np.nan, 0, 1], "not a whole number"),
])
def test_bad_positions_are_refused_by_name(position, match):
    with pytest.raises(ValueError, match=match):
        check_positions(np.array(position), np.array([0, 2, 4]))
    with pytest.raises(ValueError, match=match):
        br.LambdaRanker(n_estimators=2).fit(np.zeros((4, 2)), [1, 0, 1, 0], qid=[1, 1, 2, 2], position=position)


def _click_log(seed=0, graded=False):
    train, _ = br.load_sample()
    return br.datasets.simulate_clicks(train.X, train.y, train.qid, train.X[:, 0], sessions=2, graded=graded,
                                       random_state=seed)


def test_without_positions_nothing_changes_to_the_bit():
    log = _click_log()
    plain = br.LambdaRanker(n_estimators=10).fit(log.X, log.clicks, qid=log.session)
    ignored = br.LambdaRanker(n_estimators=10, position_bias="none").fit(log.X, log.clicks, qid=log.session,
                                                                       position=log.position)
    assert plain.booster_.model_to_string() == ignored.booster_.model_to_string()
    g = br.lambda_gradients(np.zeros(len(log.clicks)), log.clicks, np.r_[0, np.flatnonzero(np.diff(log.session)) + 1,
                                                                         len(log.clicks)])
    assert np.isfinite(g[0]).all()


@pytest.mark.slow  # several fits
@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_positions_change_the_model_and_predict_takes_none(engine):
    log = _click_log(1)
    kw = dict(engine=engine, n_estimators=10)
    raw = br.LambdaRanker(**kw).fit(log.X, log.clicks, qid=log.session)
    fits = {kind: br.LambdaRanker(position_bias=kind, **kw).fit(log.X, log.clicks, qid=log.session,
                                                                 position=log.position)
            for kind in ("auto", "propensity", "additive")}
    for model in fits.values():
        assert not np.allclose(model.predict(log.X[:50]), raw.predict(log.X[:50]))
    given = br.LambdaRanker(propensity=1 / (1 + np.arange(40.0)), **kw).fit(log.X, log.clicks, qid=log.session,
                                                                           position=log.position)
    assert not np.allclose(given.predict(log.X[:50]), fits["propensity"].predict(log.X[:50]))
    with pytest.raises(ValueError, match="propensity= weighs clicks"):
        br.LambdaRanker(propensity=[1.0, 0.5], position_bias="additive", **kw).fit(
            log.X, log.clicks, qid=log.session, position=log.position)
    for bad in ([0.0, 0.5], [1.2], [], [np.nan]):
        with pytest.raises(ValueError, match="examination probability in \\(0, 1\\]"):
            br.LambdaRanker(propensity=bad, **kw).fit(log.X, log.clicks, qid=log.session, position=log.position)


@pytest.mark.slow  # the engines' own corrections
def test_the_engines_own_objectives_take_the_positions_their_way():
    log = _click_log(2)
    for engine, objective in (("lightgbm", "lambdarank"), ("xgboost", "rank:ndcg")):
        kw = dict(engine=engine, objective=objective, n_estimators=10)
        raw = br.LambdaRanker(**kw).fit(log.X, log.clicks, qid=log.session)
        corrected = br.LambdaRanker(**kw).fit(log.X, log.clicks, qid=log.session, position=log.position)
        assert not np.allclose(raw.predict(log.X[:50]), corrected.predict(log.X[:50]))


def test_lightgbm_reads_the_datasets_positions_and_xgboost_the_row_order():
    import lightgbm as lgb

    log = _click_log(3)
    sizes = np.diff(np.r_[0, np.flatnonzero(np.diff(log.session)) + 1, len(log.clicks)])
    params = {"verbose": -1, "num_threads": 1, "learning_rate": 0.1}
    preds = []
    for obj, ds in ((br.lightgbm_objective("auc"), lgb.Dataset(log.X, log.clicks, group=sizes, position=log.position)),
                    (br.lightgbm_objective("auc", position=log.position), lgb.Dataset(log.X, log.clicks, group=sizes)),
                    (br.lightgbm_objective("auc", position="order"), lgb.Dataset(log.X, log.clicks, group=sizes))):
        preds.append(lgb.train({**params, "objective": obj}, ds, 5).predict(log.X[:40]))
    # simulate_clicks writes each session in display order: the three forms are one
    np.testing.assert_array_equal(preds[0], preds[1])
    np.testing.assert_array_equal(preds[0], preds[2])
    plain = lgb.train({**params, "objective": br.lightgbm_objective("auc")},
                      lgb.Dataset(log.X, log.clicks, group=sizes), 5).predict(log.X[:40])
    assert not np.allclose(plain, preds[0])
    xgb = pytest.importorskip("xgboost")
    d = xgb.DMatrix(log.X, log.clicks)
    d.set_group(sizes)
    p = {"min_child_weight": 1e-3, "nthread": 1, "disable_default_eval_metric": 1}
    a = xgb.train(p, d, 5, obj=br.xgboost_objective("auc", position="order")).predict(xgb.DMatrix(log.X[:40]))
    b = xgb.train(p, d, 5, obj=br.xgboost_objective("auc", position=log.position)).predict(xgb.DMatrix(log.X[:40]))
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="'order'"):
        br.xgboost_objective("auc", position="rows")


def test_the_probit_link_takes_the_additive_term_and_refuses_pair_factors():
    rng = np.random.default_rng(0)
    y = (rng.random(3000) < 0.2).astype(float)
    position = np.arange(3000)
    state = br.LambdaObjective("auc", link="probit").bind(y, position=position)
    assert state.clicks.kind == "additive"
    g, _ = state.gradients(rng.normal(size=3000))
    assert np.isfinite(g).all()
    with pytest.raises(ValueError, match="position_bias='propensity' weighs pairs in the logistic pair sums"):
        br.LambdaObjective("auc", link="probit", position_bias="propensity").bind(y, position=position)


def test_simulated_clicks_follow_their_click_models():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 3))
    y = rng.integers(0, 3, 2000)
    qid = np.repeat(np.arange(100), 20)
    log = br.datasets.simulate_clicks(X, y, qid, X[:, 0], sessions=3, eta=1.0, random_state=4)
    again = br.datasets.simulate_clicks(X, y, qid, X[:, 0], sessions=3, eta=1.0, random_state=4)
    assert np.array_equal(log.clicks, again.clicks) and np.array_equal(log.position, again.position)
    assert log.clicks.shape[0] == 6000 and set(np.unique(log.clicks)) <= {0, 1}
    np.testing.assert_allclose(log.examined, 1.0 / (log.position + 1.0))
    assert not (log.clicks & ~log.seen).any() and abs(log.seen.mean() - log.examined.mean()) < 0.02
    # shown in the logging ranker's order, each session a list of its own
    first = log.session == 0
    assert np.all(np.diff(X[np.flatnonzero(qid == 0)][:, 0][np.argsort(-X[qid == 0, 0])]) <= 0)
    assert np.array_equal(log.position[first], np.arange(20)) and np.all(np.diff(log.X[first, 0]) <= 0)
    ctr = np.bincount(log.position, weights=log.clicks) / np.bincount(log.position)
    assert ctr[0] > 3 * ctr[10]  # examination falls with the rank
    cascade = br.datasets.simulate_clicks(X, y, qid, X[:, 0], sessions=3, click_model="cascade", random_state=4)
    per_session = np.bincount(cascade.session, weights=cascade.clicks)
    assert per_session.max() >= 1 and cascade.examined.max() == 1.0
    graded = br.datasets.simulate_clicks(X, y, qid, X[:, 0], sessions=3, graded=True, random_state=4)
    assert set(np.unique(graded.clicks)) == {0, 1, 2}
    assert graded.grade[graded.clicks == 2].mean() > graded.grade[graded.clicks == 1].mean()
    shallow = br.datasets.simulate_clicks(X, y, qid, X[:, 0], sessions=1, depth=5, random_state=4)
    assert shallow.position.max() == 4 and shallow.clicks.shape[0] == 500
    for kw, match in ((dict(click_model="dbn"), "click_model"), (dict(sessions=0), "sessions"),
                      (dict(eta=-1.0), "eta"), (dict(noise=(0.6, 0.6)), "noise"), (dict(depth=0), "depth")):
        with pytest.raises(ValueError, match=match):
            br.datasets.simulate_clicks(X, y, qid, X[:, 0], **kw)
    with pytest.raises(ValueError, match="true grades"):
        br.datasets.simulate_clicks(X, y - 1, qid, X[:, 0])
    with pytest.raises(ValueError, match="logging scores"):
        br.datasets.simulate_clicks(X, y, qid, X[:10, 0])
