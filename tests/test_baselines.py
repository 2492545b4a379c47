"""The benchmarks' baseline rankers (benchmarks/baselines.py): losses and gradients against pair-by-pair oracles,
tiny brute-force optima.  The papers' tables compare against them, so they are tested as the package is."""

import itertools
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import check_grad

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from baselines import PairwiseHinge, PNormPush, RankBoost, RankNetLinear  # noqa: E402


def _data(seed, n=40, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X @ rng.normal(size=d) + rng.normal(size=n) > 0.3).astype(int)
    return X, y


def _pairs(P, N):
    return [(i, k) for i in range(len(P)) for k in range(len(N))]


def pnorm_oracle(w, P, N, p, alpha):
    total = sum(sum(np.exp(-(P[i] @ w - N[k] @ w)) for i in range(len(P))) ** p for k in range(len(N)))
    return np.log(total) + 0.5 * alpha * w @ w


def hinge_oracle(w, P, N, C):
    s = sum(max(0.0, 1 - (P[i] - N[k]) @ w) for i, k in _pairs(P, N))
    return C * s / (len(P) * len(N)) + 0.5 * w @ w


def ranknet_oracle(w, P, N, alpha):
    s = np.mean([np.log1p(np.exp(-(P[i] - N[k]) @ w)) for i, k in _pairs(P, N)])
    return s + 0.5 * alpha * w @ w


@pytest.mark.parametrize("seed", range(3))
def test_losses_match_oracles_and_gradients_match_finite_differences(seed):
    X, y = _data(seed, n=25)
    P, N = X[y > 0], X[y <= 0]
    rng = np.random.default_rng(seed)
    w = rng.normal(size=X.shape[1])
    cases = [
        (PNormPush(p=3.0, alpha=0.1), lambda v: pnorm_oracle(v, P, N, 3.0, 0.1)),
        (PairwiseHinge(C=2.0), lambda v: hinge_oracle(v, P, N, 2.0)),
        (RankNetLinear(alpha=0.1), lambda v: ranknet_oracle(v, P, N, 0.1)),
    ]
    for model, oracle in cases:
        loss, _ = model._loss_grad(w, P, N)
        assert loss == pytest.approx(oracle(w), rel=1e-10)
        err = check_grad(lambda v: model._loss_grad(v, P, N)[0], lambda v: model._loss_grad(v, P, N)[1], w)
        assert err < 1e-5 * max(1.0, np.abs(model._loss_grad(w, P, N)[1]).max())


@pytest.mark.slow
@pytest.mark.parametrize("model", [PNormPush(p=2.0, alpha=0.5), PairwiseHinge(C=3.0), RankNetLinear(alpha=0.5)],
                         ids=["pnorm", "hinge", "ranknet"])
def test_fit_reaches_the_brute_force_optimum_in_2d(model):
    X, y = _data(7, n=16, d=2)
    model.fit(X, y)
    w_std = model.coef_ * model._scale
    best = min(model.loss(np.array([a, b]), X, y)
               for a, b in itertools.product(np.linspace(-4, 4, 161), repeat=2))
    assert model.loss(w_std, X, y) <= best + 1e-3


def test_pnorm_with_p1_is_rankboost_exponential_loss():
    X, y = _data(3)
    P, N = X[y > 0], X[y <= 0]
    w = np.array([0.3, -0.2, 0.5])
    exp_loss = sum(np.exp(-(P[i] - N[k]) @ w) for i, k in _pairs(P, N))
    assert PNormPush(p=1.0, alpha=0.0)._loss_grad(w, P, N)[0] == pytest.approx(np.log(exp_loss))


def test_rankboost_first_round_picks_the_best_threshold_and_ranks_well():
    X, y = _data(5, n=60)
    model = RankBoost(n_estimators=1).fit(X, y)
    pos = y > 0
    v = np.where(pos, 1 / pos.sum(), 1 / (~pos).sum())
    best = 0.0
    for j in range(X.shape[1]):
        for theta in np.unique(X[:, j]):
            h = (X[:, j] > theta).astype(float)
            r = (v * h)[pos].sum() - (v * h)[~pos].sum()
            best = max(best, abs(r))
    alpha = model.rankers_[0][3]
    assert np.tanh(alpha) == pytest.approx(best)  # α = ½ ln((1+r)/(1−r))
    from boostrank import auc

    many = RankBoost(n_estimators=50).fit(X, y)
    assert auc(y, many.decision_function(X)) > 0.85
    with pytest.raises(ValueError, match="one class"):
        RankBoost().fit(X, np.ones(len(y)))
