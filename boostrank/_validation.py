"""Input checks shared by the public functions. Errors name what is wrong and where."""

from __future__ import annotations

import numpy as np


def as_1d_float(x, name: str, allow_nonfinite: bool = False) -> np.ndarray:
    """Return ``x`` as a C-contiguous 1-D float64 array, rejecting NaN/inf."""
    try:
        arr = np.ascontiguousarray(np.asarray(x, dtype=np.float64))
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numeric, got {type(x).__name__}") from None
    if arr.ndim == 0:
        raise ValueError(f"{name} must be 1-D array-like, got the scalar {x!r}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if not allow_nonfinite:
        bad = ~np.isfinite(arr)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"{name} contains {int(bad.sum())} NaN/inf value(s); first at index {i} ({float(arr[i])!r})"
            )
    return arr


def as_int_labels(y, name: str = "y") -> np.ndarray:
    """Return labels as int64, requiring integral, non-negative values."""
    arr = as_1d_float(y, name)
    if arr.size and (np.any(arr != np.round(arr)) or arr.min() < 0):
        i = int(np.flatnonzero((arr != np.round(arr)) | (arr < 0))[0])
        raise ValueError(
            f"{name} must hold non-negative integer relevance grades; index {i} is {float(arr[i])!r}"
        )
    return arr.astype(np.int64)


def dense_grades(y, name: str = "y") -> np.ndarray:
    """Non-negative integer grades renumbered 0, 1, 2, ... in order (0 stays 0).

    Class-based statistics (MAUC, λ-MAUC) depend only on which grades are equal and
    which are 0, so their cost should follow the grades present, not their values:
    ``[0, 10**8, 1]`` becomes ``[0, 2, 1]``.
    """
    arr = as_1d_float(y, name)
    if arr.size and (np.any(arr != np.round(arr)) or arr.min() < 0):
        i = int(np.flatnonzero((arr != np.round(arr)) | (arr < 0))[0])
        raise ValueError(
            f"{name} must hold non-negative integer relevance grades; index {i} is {float(arr[i])!r}"
        )
    values, inverse = np.unique(arr, return_inverse=True)
    shift = 0 if values.size and values[0] == 0 else 1
    return (inverse.reshape(-1) + shift).astype(np.int64)


def offsets_from_sizes(sizes) -> np.ndarray:
    """Group sizes -> offsets ``[0, s0, s0 + s1, ...]`` as int64."""
    sizes = np.asarray(sizes, dtype=np.int64).ravel()
    if sizes.size and sizes.min() < 0:
        raise ValueError("group sizes must be non-negative")
    return np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)


def offsets_from_qid(qid, n: int) -> np.ndarray:
    """Group offsets of a qid column whose queries are contiguous.

    ``qid=None`` means one list.  A query id that occurs in two separate runs is an
    error: silently treating the runs as different queries would mis-group them.
    """
    if qid is None:
        return np.array([0, n] if n else [0], dtype=np.int64)
    q = np.asarray(qid)
    if q.ndim != 1 or q.shape[0] != n:
        raise ValueError(f"qid must be 1-D with {n} entries, got shape {q.shape}")
    if n == 0:
        return np.zeros(1, dtype=np.int64)
    if q.dtype == object:
        kinds = {type(v) for v in q.tolist()}
        if len(kinds) > 1:
            raise ValueError(f"qid mixes types ({', '.join(sorted(k.__name__ for k in kinds))}); use one type")
    if np.issubdtype(q.dtype, np.floating) and not np.isfinite(q).all():
        raise ValueError("qid contains NaN or inf")
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
    run_ids = q[starts]
    uniq, counts = np.unique(run_ids, return_counts=True)
    if uniq.shape[0] != run_ids.shape[0]:
        dup = uniq[counts > 1][0].item()
        rows = starts[run_ids == dup]
        raise ValueError(
            f"qid {dup!r} is not contiguous: it starts again at row {int(rows[1])} after row "
            f"{int(rows[0])}; sort the rows by query (stably) first"
        )
    return np.r_[starts, n].astype(np.int64)


def check_ranking_inputs(y, scores, qid=None):
    """Validate ``(y, scores, qid)`` and return float arrays plus group offsets."""
    y = as_1d_float(y, "y")
    scores = as_1d_float(scores, "scores")
    if y.shape[0] != scores.shape[0]:
        raise ValueError(f"y has {y.shape[0]} entries but scores has {scores.shape[0]}")
    offsets = offsets_from_qid(qid, y.shape[0])
    return y, scores, offsets
