"""The paired randomization test's kernel: sign flips of per-query differences, one bit per query."""

import numpy as np
from numba import njit


@njit(cache=True)
def sign_flip_extremes(d, words, observed):
    """How many sign flips of ``d`` reach ``|Σ ±d_i| >= observed``.

    Parameters
    ----------
    d : ndarray of float64, shape (n,)
        Per-query differences in whole units (the caller rounds them), so every sum is exact
        and the comparison with ``observed`` is free of rounding.
    words : ndarray of uint64, shape (n_resamples, ceil(n / 64))
        Resample r flips ``d[i]`` where bit ``i % 64`` of ``words[r, i // 64]`` is set: random
        words for a Monte Carlo test, the numbers ``0 … 2**n - 1`` for the exact one.
    observed : float
        ``|Σ d_i|``, the statistic of the observed (unflipped) differences.

    Returns
    -------
    int
        The number of resamples as extreme as the observation (Fisher's randomization test,
        two-sided: the null distribution of sign flips is symmetric).
    """
    n = d.shape[0]
    count = 0
    one = np.uint64(1)
    for r in range(words.shape[0]):
        total = 0.0
        for w in range(words.shape[1]):
            bits = words[r, w]
            base = w * 64
            for i in range(base, min(base + 64, n)):
                if (bits >> np.uint64(i - base)) & one:
                    total -= d[i]
                else:
                    total += d[i]
        if abs(total) >= observed:
            count += 1
    return count
