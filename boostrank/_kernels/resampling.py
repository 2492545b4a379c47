"""The paired randomization test's kernel: sign flips of per-query differences, one bit per query."""

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
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
    # the signed sum of each byte's 8 queries under each of its 256 flip patterns: a resample then costs one
    # lookup per 8 queries (the sums are of whole units, so regrouping them changes no total)
    n_bytes = (n + 7) // 8
    table = np.zeros((n_bytes, 256))
    for b in range(n_bytes):
        for v in range(256):
            s = 0.0
            for j in range(min(8, n - 8 * b)):
                s += -d[8 * b + j] if (v >> j) & 1 else d[8 * b + j]
            table[b, v] = s
    count = 0
    mask = np.uint64(255)
    for r in prange(words.shape[0]):
        total = 0.0
        for w in range(words.shape[1]):
            bits = words[r, w]
            for k in range(min(8, n_bytes - 8 * w)):
                total += table[8 * w + k, (bits >> np.uint64(8 * k)) & mask]
        if abs(total) >= observed:
            count += 1
    return count
