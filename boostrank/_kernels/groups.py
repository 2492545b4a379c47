"""Per-query sorting: the one place that orders documents inside each group."""

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
