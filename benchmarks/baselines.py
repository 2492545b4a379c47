"""Baseline bipartite rankers of the papers' comparisons (thesis §2.1.4, eqs. 2.3–2.4).

RankBoost (bipartite, Freund et al. 2003), the P-Norm Push (Rudin 2009), a linear
pairwise hinge ranker (SVM-style) and a linear RankNet.  Labels ``y > 0`` are
positive.  Linear models standardise features internally and report ``coef_`` in
the caller's units; none materialises the n₊n₋ pairs except RankNet, which samples
at most ``max_pairs`` of them.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

__all__ = ["RankBoost", "PNormPush", "PairwiseHinge", "RankNetLinear"]


def _split(y):
    pos = np.asarray(y) > 0
    if pos.all() or not pos.any():
        raise ValueError("y has one class: a bipartite ranker needs positives and negatives")
    return pos


class _Linear(BaseEstimator):
    """Shared fit/predict of the linear rankers: standardise, minimise, map back."""

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        pos = _split(y)
        self._mean = X.mean(axis=0)
        scale = X.std(axis=0)
        scale[scale == 0] = 1.0
        self._scale = scale
        Xs = (X - self._mean) / scale
        res = minimize(lambda w: self._loss_grad(w, Xs[pos], Xs[~pos]), np.zeros(X.shape[1]), jac=True,
                       method="L-BFGS-B", options={"maxiter": self.max_iter})
        self.coef_ = res.x / scale
        self.n_iter_ = int(res.nit)
        self.loss_ = float(res.fun)
        return self

    def decision_function(self, X) -> np.ndarray:
        """Scores wᵀx (higher ranks first)."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return X @ self.coef_

    predict = decision_function

    def loss(self, w, X, y) -> float:
        """The objective at standardised-space weights ``w`` on raw ``X`` (for checks)."""
        pos = _split(y)
        Xs = (np.asarray(X, dtype=np.float64) - self._mean) / self._scale
        return float(self._loss_grad(np.asarray(w, dtype=np.float64), Xs[pos], Xs[~pos])[0])


class PNormPush(_Linear):
    """P-Norm Push: minimise Σ_k (Σ_i e^{−(f(x_i) − f(x_k))})^p (thesis §2.1.4), f linear.

    Σ_i e^{−(f_i − f_k)} = e^{f_k} S with S = Σ_i e^{−f_i}, so the loss is S^p Σ_k e^{p f_k}
    and costs O(n d); we minimise its logarithm (same minimiser) plus alpha/2 ‖w‖²,
    which keeps w finite on separable data.  p = 1 is RankBoost's exponential loss.

    Parameters
    ----------
    p : float, default=4.0
    alpha : float, default=1e-3
    max_iter : int, default=500
    """

    def __init__(self, p: float = 4.0, alpha: float = 1e-3, max_iter: int = 500):
        self.p = p
        self.alpha = alpha
        self.max_iter = max_iter

    def _loss_grad(self, w, P, N):
        fp, fn = P @ w, N @ w
        a = -fp
        ma = a.max()
        ea = np.exp(a - ma)
        S = ea.sum()
        b = self.p * fn
        mb = b.max()
        eb = np.exp(b - mb)
        T = eb.sum()
        loss = self.p * (ma + np.log(S)) + mb + np.log(T) + 0.5 * self.alpha * w @ w
        grad = -self.p * (ea @ P) / S + self.p * (eb @ N) / T + self.alpha * w
        return loss, grad


class PairwiseHinge(_Linear):
    """SVM-style ranker: Σ_{i+, k−} max(0, 1 − wᵀ(x_i − x_k)) + C⁻¹/2 ‖w‖² (thesis eq. 2.4).

    The pair sum and its subgradient come from sorted negative scores and prefix sums
    (O((n₊ + n₋) log n₋ + n d)), never from the n₊n₋ pairs.  L-BFGS on the
    piecewise-linear loss stops at a near-optimal point, not an exact kink.

    Parameters
    ----------
    C : float, default=1.0
        Weight of the pair losses relative to the L2 penalty (pairs are averaged).
    max_iter : int, default=500
    """

    def __init__(self, C: float = 1.0, max_iter: int = 500):
        self.C = C
        self.max_iter = max_iter

    def _loss_grad(self, w, P, N):
        fp, fn = P @ w, N @ w
        order = np.argsort(fn)
        fs = fn[order]
        Ns = N[order]
        cum_f = np.r_[0.0, np.cumsum(fs[::-1])][::-1]  # Σ of fs[j:] at j
        cum_x = np.vstack([np.zeros((1, N.shape[1])), np.cumsum(Ns[::-1], axis=0)])[::-1]
        j = np.searchsorted(fs, fp - 1.0, side="right")  # negatives with f_k > f_i − 1 are active
        cnt = fs.size - j
        loss_pairs = np.sum(cnt * (1.0 - fp) + cum_f[j])
        grad_pairs = -(cnt @ P) + cum_x[j].sum(axis=0)
        norm = 1.0 / (P.shape[0] * N.shape[0])
        loss = self.C * norm * loss_pairs + 0.5 * w @ w
        grad = self.C * norm * grad_pairs + w
        return loss, grad


class RankNetLinear(_Linear):
    """Linear RankNet: mean over pairs of log(1 + e^{−wᵀ(x_i − x_k)}) + alpha/2 ‖w‖².

    Parameters
    ----------
    alpha : float, default=1e-3
    max_pairs : int, default=200_000
        Above n₊n₋ > max_pairs a fixed random sample of pairs is used.
    random_state : int, default=0
    max_iter : int, default=500
    """

    def __init__(self, alpha: float = 1e-3, max_pairs: int = 200_000, random_state=0, max_iter: int = 500):
        self.alpha = alpha
        self.max_pairs = max_pairs
        self.random_state = random_state
        self.max_iter = max_iter

    def _loss_grad(self, w, P, N):
        n_pairs = P.shape[0] * N.shape[0]
        if n_pairs <= self.max_pairs:
            i, k = np.divmod(np.arange(n_pairs), N.shape[0])
        else:
            rng = np.random.default_rng(self.random_state)
            i = rng.integers(0, P.shape[0], self.max_pairs)
            k = rng.integers(0, N.shape[0], self.max_pairs)
        u = P[i] @ w - N[k] @ w
        loss = np.mean(np.logaddexp(0.0, -u)) + 0.5 * self.alpha * w @ w
        c = -0.5 * (1.0 - np.tanh(0.5 * u)) / u.size  # d/du log(1 + e^{−u}) = −σ(−u)
        grad = np.bincount(i, weights=c, minlength=P.shape[0]) @ P - np.bincount(k, weights=c, minlength=N.shape[0]) @ N
        return loss, grad + self.alpha * w


class RankBoost(BaseEstimator):
    """Bipartite RankBoost with thresholded-feature weak rankers (thesis eq. 2.3).

    Weak rankers h(x) = 1[x_j > θ] (or 1[x_j ≤ θ]); the pair distribution is the
    product v_i v_k of weights on positives and negatives (Freund et al. 2003,
    §bipartite), so r = Σ_{i,k} v_i v_k (h(x_i) − h(x_k)) for every threshold of a
    feature comes from one pass over the sorted feature: O(n d) per round after an
    initial sort.  α_t = ½ ln((1 + r)/(1 − r)).

    Parameters
    ----------
    n_estimators : int, default=100

    Attributes
    ----------
    rankers_ : list of (feature, threshold, direction, alpha)
    """

    def __init__(self, n_estimators: int = 100):
        self.n_estimators = n_estimators

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        pos = _split(y)
        n, d = X.shape
        v = np.where(pos, 1.0 / pos.sum(), 1.0 / (~pos).sum())
        orders = [np.argsort(X[:, j], kind="stable") for j in range(d)]
        self.rankers_ = []
        for _ in range(self.n_estimators):
            best = (0.0, 0, 0.0, 1)
            sp = np.where(pos, v, 0.0)
            sn = np.where(pos, 0.0, v)
            for j in range(d):
                o = orders[j]
                xs = X[o, j]
                # weight of positives / negatives strictly above each cut (x > xs[t])
                above_p = sp[o][::-1].cumsum()[::-1]
                above_n = sn[o][::-1].cumsum()[::-1]
                cuts = np.flatnonzero(np.r_[xs[1:] != xs[:-1], False])  # last index of each value
                if cuts.size == 0:
                    continue
                r = above_p[cuts + 1] - above_n[cuts + 1]  # h = 1[x > xs[cut]]
                t = int(np.argmax(np.abs(r)))
                if abs(r[t]) > abs(best[0]):
                    best = (float(r[t]), j, float(xs[cuts[t]]), 1 if r[t] > 0 else -1)
            r, j, theta, direction = best
            r = abs(r)
            if r == 0:
                break
            r = min(r, 1 - 1e-12)
            alpha = 0.5 * np.log((1 + r) / (1 - r))
            h = self._weak(X[:, j], theta, direction)
            v = v * np.exp(np.where(pos, -alpha * h, alpha * h))
            v[pos] /= v[pos].sum()
            v[~pos] /= v[~pos].sum()
            self.rankers_.append((j, theta, direction, float(alpha)))
        return self

    @staticmethod
    def _weak(x, theta, direction):
        return (x > theta).astype(np.float64) if direction > 0 else (x <= theta).astype(np.float64)

    def decision_function(self, X) -> np.ndarray:
        """Σ_t α_t h_t(x)."""
        check_is_fitted(self, "rankers_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        s = np.zeros(X.shape[0])
        for j, theta, direction, alpha in self.rankers_:
            s += alpha * self._weak(X[:, j], theta, direction)
        return s

    predict = decision_function
