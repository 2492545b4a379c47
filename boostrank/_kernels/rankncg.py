"""Pair sums of RankNCG's likelihood (Raykar eq. 2 and its gradient), O(Σ m_q²).

For every preferred pair (l ≻ k) in the same query, with u = f_l − f_k, the
gradient of Σ log σ(u) is Σ (x_l − x_k) σ(−u): the kernels return the per-document
coefficient c (c_l += σ(−u), c_k −= σ(−u)) so that the gradient is Xᵀc.
``probit`` False is the logistic σ, True Raykar's approximation σ(u) ≈ 1 − ½ erfc(αu).
"""

import math

from numba import njit


@njit(cache=True)
def _log_sigmoid(u):
    if u >= 0:
        return -math.log1p(math.exp(-u))
    return u - math.log1p(math.exp(u))


@njit(cache=True)
def pair_coefficients(f, cls, offsets, prefer, probit, alpha, coef):
    """Fill ``coef`` and return Σ log σ(u) over the preferred pairs.

    Parameters
    ----------
    f : float64 (n,)
        Scores.
    cls : int64 (n,)
        Class index of each document (0..S-1).
    offsets : int64 (n_groups + 1,)
    prefer : bool (S, S)
        ``prefer[a, b]``: class a should rank above class b.
    probit : bool
        False: logistic σ; True: the erfc approximation (then the log-likelihood uses log σ too).
    alpha : float
        √3/(√2 π) for the erfc link.
    """
    n = f.shape[0]
    for i in range(n):
        coef[i] = 0.0
    loglik = 0.0
    for g in range(offsets.shape[0] - 1):
        a = offsets[g]
        b = offsets[g + 1]
        for i in range(a, b):
            for j in range(a, b):
                if not prefer[cls[i], cls[j]]:
                    continue
                u = f[i] - f[j]
                if not probit:
                    if u >= 0:
                        e = math.exp(-u)
                        s = e / (1.0 + e)
                    else:
                        s = 1.0 / (1.0 + math.exp(u))
                else:
                    s = 0.5 * math.erfc(alpha * u)
                coef[i] += s
                coef[j] -= s
                loglik += _log_sigmoid(u)
    return loglik
