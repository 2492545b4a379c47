"""Sorting kernels: documents inside each group, and a stable LSD radix sort of 32- or 64-bit keys."""

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def sort_within_groups(scores, offsets, descending):
    """Stable order of each group's documents by score.

    Parameters
    ----------
    scores : ndarray of float64, shape (n,)
    offsets : ndarray of int64, shape (n_groups + 1,)
    descending : bool
        Highest score first when True.  Ties keep file order in both directions
        (a stable sort), which is what LightGBM's ranking metrics do.

    Returns
    -------
    order : ndarray of int64, shape (n,)
        Global row indices; ``order[offsets[g]:offsets[g + 1]]`` lists group ``g``.
    """
    n_groups = offsets.shape[0] - 1
    order = np.empty(scores.shape[0], dtype=np.int64)
    for g in prange(n_groups):
        a = offsets[g]
        b = offsets[g + 1]
        if b - a == 0:
            continue
        if descending:
            local = np.argsort(-scores[a:b], kind="mergesort")
        else:
            local = np.argsort(scores[a:b], kind="mergesort")
        for i in range(b - a):
            order[a + i] = a + local[i]
    return order


@njit(cache=True)
def radix_sort(keys, idx, k2, i2, n_bytes, low_byte=0):
    """Stable LSD radix sort of unsigned ``keys`` carrying ``idx``, in place; 8-bit digits.

    ``n_bytes`` is the width of the keys (8 for uint64, 4 for uint32); ``k2``, ``i2``
    are scratch of the same shapes.  A digit every key shares costs only its histogram.
    With ``low_byte`` > 0 only bytes ``low_byte`` … ``n_bytes − 1`` are sorted on (see
    :func:`repair_runs`).
    """
    n = keys.shape[0]
    hist = np.zeros((n_bytes, 256), dtype=np.int64)
    mask = np.uint64(255)
    for m in range(n):
        k = np.uint64(keys[m])
        for d in range(low_byte, n_bytes):
            hist[d, (k >> np.uint64(8 * d)) & mask] += 1
    src_k, src_i, dst_k, dst_i = keys, idx, k2, i2
    swapped = False
    for d in range(low_byte, n_bytes):
        if hist[d].max() == n:  # a digit every key shares: nothing to do
            continue
        shift = np.uint64(8 * d)
        total = 0
        for v in range(256):
            c = hist[d, v]
            hist[d, v] = total
            total += c
        for m in range(n):
            v = (np.uint64(src_k[m]) >> shift) & mask
            q = hist[d, v]
            hist[d, v] = q + 1
            dst_k[q] = src_k[m]
            dst_i[q] = src_i[m]
        src_k, dst_k = dst_k, src_k
        src_i, dst_i = dst_i, src_i
        swapped = not swapped
    if swapped:
        keys[:] = k2
        idx[:] = i2



@njit(cache=True)
def sort_run(key, a, b, c1, c2):
    """Stable sort of ``key[a:b]`` ascending, moving ``c1`` and ``c2`` (which may be one
    array) along: by insertion up to 32 rows, else by a merge sort."""
    if b - a <= 32:
        for i in range(a + 1, b):
            k = key[i]
            v1 = c1[i]
            v2 = c2[i]
            j = i - 1
            while j >= a and key[j] > k:
                key[j + 1] = key[j]
                c1[j + 1] = c1[j]
                c2[j + 1] = c2[j]
                j -= 1
            key[j + 1] = k
            c1[j + 1] = v1
            c2[j + 1] = v2
    else:
        local = np.argsort(key[a:b], kind="mergesort")
        ks = key[a:b][local]
        v1s = c1[a:b][local]
        v2s = c2[a:b][local]
        key[a:b] = ks
        c1[a:b] = v1s
        c2[a:b] = v2s


@njit(cache=True)
def repair_runs(keys, idx, low_byte):
    """Finish :func:`radix_sort` run with ``low_byte``: order each run of keys equal above it.

    Stable.  Short runs (at most 32) by insertion, longer unsorted ones by a stable
    merge sort of the run; runs of equal keys, which boosting makes in bulk, cost one
    comparison per element.
    """
    n = keys.shape[0]
    shift = np.uint64(8 * low_byte)
    a = 0
    while a < n:
        top = np.uint64(keys[a]) >> shift
        b = a + 1
        ordered = True
        while b < n and (np.uint64(keys[b]) >> shift) == top:
            if keys[b] < keys[b - 1]:
                ordered = False
            b += 1
        if not ordered:
            sort_run(keys, a, b, idx, idx)
        a = b
