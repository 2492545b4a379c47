"""Input checks shared by the public functions. Errors name what is wrong and where."""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
import warnings
from dataclasses import dataclass

import numpy as np

from .queries import offsets_of
from .exceptions import OneListWarning


# Warnings that name the user's line, wherever in boostrank (or in an engine calling it) they arise.

#: the libraries whose frames lie between a user's line and boostrank's (engines calling our callbacks)
_HOSTS = ("lightgbm", "xgboost", "sklearn", "dask", "distributed")


@functools.lru_cache(maxsize=1)
def _library_prefixes() -> tuple:
    dirs = [os.path.dirname(os.path.abspath(__file__))]
    for name in _HOSTS:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            dirs.append(os.path.dirname(os.path.abspath(spec.origin)))
    return tuple(d + os.sep for d in dirs)


def warn_user(message: str, category: type[Warning] = UserWarning) -> None:
    """Warn at the first line outside boostrank and its host libraries: the user's line, so Python's default
    filter shows it once whichever path reached it, and never a line of boostrank's source."""
    prefixes = _library_prefixes()
    if sys.version_info >= (3, 12):
        warnings.warn(message, category, skip_file_prefixes=prefixes)
        return
    # Python 3.11 has no skip_file_prefixes: count the library frames above this one (pandas'
    # find_stack_level does the same)
    import inspect

    frame, level = inspect.currentframe(), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(prefixes):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level - 1 if frame is None else level)


_NOTED: set = set()  # first-compile notices already given in this process


@dataclass(frozen=True)
class RankingData:
    """One fit's ranking data, validated once (:meth:`boostrank.base.RankingEstimator._ranking_data`): every
    stage of the fit, the metrics and the engines' hooks take it as it is.

    Attributes
    ----------
    X : ndarray, sparse matrix or DataFrame
        The features, checked as the estimator takes them.
    y : ndarray of float64, shape (n_samples,)
        Finite labels.
    offsets : GroupOffsets
        The query offsets, validated (:func:`trusted`).
    sample_weight : ndarray of float64 or None
        Non-negative, not all zero: one per row, or one per query where the estimator weighs queries.
    position : ndarray of int64 or None
        Each row's 0-based display rank when its (click) label was logged (:func:`check_positions`).
    """

    X: object
    y: np.ndarray
    offsets: GroupOffsets
    sample_weight: np.ndarray | None = None
    position: np.ndarray | None = None

    @property
    def starts(self) -> np.ndarray:
        """The validated int64 offsets ``[0, ..., n]``."""
        return self.offsets.offsets

    @property
    def n_groups(self) -> int:
        """The number of lists (queries)."""
        return self.offsets.offsets.shape[0] - 1


def predict_groups(estimator, n: int, qid, group, method: str = "predict") -> np.ndarray:
    """Offsets of the lists a fitted ranker scores; without ``qid``/``group``, one list, said aloud
    when the model was fitted on several lists (its ``n_groups_``) and the lists change the answer."""
    fitted = getattr(estimator, "n_groups_", 1)
    if qid is None and group is None and n > 1 and fitted > 1:
        warn_user(f"{type(estimator).__name__}.{method} got neither qid nor group, so its {n} rows are ranked as "
                  f"one list, though the model was fitted on {fitted} lists.  Pass qid= (or group=) for several "
                  f"lists, or group=[{n}] for one list without this warning", OneListWarning)
    return group_offsets(n, qid=qid, group=group)


def as_1d_float(x, name: str, allow_nonfinite: bool = False) -> np.ndarray:
    """Return ``x`` as a C-contiguous 1-D float64 array, rejecting NaN/inf."""
    if x is None and name == "y":  # scikit-learn's wording, which its model selection recognises
        raise ValueError("this estimator requires y to be passed, but the target y is None")
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
    """Return labels as int64, requiring integral, non-negative values up to 2**53."""
    return _check_grades(as_1d_float(y, name), name, MAX_GRADE).astype(np.int64)


#: Largest grade a float64 holds exactly; from 2⁶³ the cast to int64 wraps to its minimum
MAX_GRADE = 2 ** 53


def _check_grades(arr: np.ndarray, name: str, limit: float = np.inf) -> np.ndarray:
    if arr.size and (np.any(arr != np.round(arr)) or arr.min() < 0 or arr.max() > limit):
        i = int(np.flatnonzero((arr != np.round(arr)) | (arr < 0) | (arr > limit))[0])
        up_to = " up to 2**53 (exact in float64)" if limit == MAX_GRADE else ""
        raise ValueError(f"{name} must hold non-negative integer relevance grades{up_to}; index {i} is "
                         f"{float(arr[i])!r}")
    return arr


def distinct_values(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(arr, return_inverse=True)`` of a finite 1-d float64 array (the inverse flat, int64), without
    sorting the rows when they are integers of a range below 4 096 (grades, 0/1 labels): one count instead."""
    if arr.size:
        lo, hi = float(arr.min()), float(arr.max())
        if hi - lo < 4096 and lo == np.floor(lo):
            codes = (arr - lo).astype(np.int64)
            if np.array_equal(codes + lo, arr):  # integers: the codes are exact
                present = np.bincount(codes) > 0
                return np.flatnonzero(present) + lo, (np.cumsum(present) - 1)[codes]
    values, inverse = np.unique(arr, return_inverse=True)
    return values, inverse.reshape(-1).astype(np.int64)


def dense_grades(y, name: str = "y") -> np.ndarray:
    """Non-negative integer grades renumbered 0, 1, 2, ... in order (0 stays 0).

    Class-based statistics (MAUC, λ-MAUC) depend only on which grades are equal and
    which are 0, so their cost should follow the grades present, not their values:
    ``[0, 10**8, 1]`` becomes ``[0, 2, 1]``.
    """
    raw = y if isinstance(y, np.ndarray) else np.asarray(y) if isinstance(y, (list, tuple)) else None
    if raw is not None and raw.size and raw.dtype.kind in "iuO":
        # integers past 2**53 round to one float64: two grades would merge into one class
        try:
            big = max(int(v) for v in raw.reshape(-1)) > MAX_GRADE if raw.dtype.kind == "O" else raw.max() > MAX_GRADE
        except (TypeError, ValueError):
            big = False  # not integers: the float check below names the value
        if big:
            raise ValueError(f"{name} must hold non-negative integer relevance grades up to 2**53 (exact in "
                             f"float64); the largest is {int(raw.max())}")
    arr = _check_grades(as_1d_float(y, name), name, MAX_GRADE)  # only which grades are equal counts
    values, inverse = distinct_values(arr)
    shift = 0 if values.size and values[0] == 0 else 1
    return inverse + shift


class GroupOffsets:
    """Query offsets ``[0, ..., n]``, accepted wherever a ``qid`` is.

    Query ``g`` is rows ``offsets[g]:offsets[g + 1]``.  Engines hold groups as sizes or
    offsets; wrapping them once lets a metric skip the qid → offsets conversion every
    round: ``br.ndcg(y, s, GroupOffsets(offsets), k=10)``.
    """

    __slots__ = ("offsets",)
    #: offsets :func:`group_offsets` made and validated (:class:`ValidatedGroups`): later checks skip them
    checked = False

    def __init__(self, offsets):
        object.__setattr__(self, "offsets", offsets)

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __repr__(self):
        return f"{type(self).__name__}({self.offsets!r})"


class ValidatedGroups(GroupOffsets):
    """Query offsets :func:`group_offsets` made and validated (int64, contiguous, adding up to the rows): the
    metrics, objectives and eval hooks they are handed check them no more.  Built by :func:`trusted` only."""

    __slots__ = ()
    checked = True


def trusted(offsets: np.ndarray) -> ValidatedGroups:
    """Offsets that :func:`group_offsets` made (int64, validated), as the type every later stage of a fit trusts:
    a fit validates each data set's groups once."""
    return ValidatedGroups(offsets)


def group_offsets(n: int, *, qid=None, group=None, offsets=None) -> np.ndarray:
    """The query groups of ``n`` rows from any one spelling, as validated int64 offsets.

    This is the one rule for query groups in boostrank: a query is a contiguous run of
    rows.  Nothing given means one list of all rows.

    Parameters
    ----------
    n : int
        Number of rows.
    qid : array-like of shape (n,), default=None
        Query ids.  Rows of a query must be contiguous (not necessarily sorted): an id
        that starts again after another query is an error, since treating the two runs
        as different queries would silently mis-group them.  A :class:`GroupOffsets`
        passes through.
    group : array-like of int, default=None
        Query sizes in row order (LightGBM's ``group``, XGBoost's ``set_group``).
    offsets : array-like of int, default=None
        ``[0, s0, s0 + s1, ..., n]`` (XGBoost's ``group_ptr``).

    Returns
    -------
    ndarray
        int64 offsets of length n_queries + 1 (``[0]`` when ``n`` is 0 and nothing is given).
    """
    given = [name for name, v in (("qid", qid), ("group", group), ("offsets", offsets)) if v is not None]
    if len(given) > 1:
        raise ValueError(f"pass one of qid, group or offsets, got {' and '.join(given)}")
    if isinstance(qid, GroupOffsets):
        offsets, qid = qid, None
    if isinstance(offsets, GroupOffsets):
        if _made_here(offsets, n):
            return offsets.offsets
        offsets = offsets.offsets
    if group is not None:
        raw = np.asarray(group)
        if raw.size and (not np.issubdtype(raw.dtype, np.number) or np.any(raw != np.round(raw))):
            raise ValueError(f"group sizes must be integers, got {raw.ravel().tolist()[:6]}")
        sizes = raw.astype(np.int64).ravel()
        if sizes.size and sizes.min() < 0:
            raise ValueError("group sizes must be non-negative")
        off = offsets_of(sizes)
        if off[-1] != n:
            raise ValueError(f"group sizes add up to {int(off[-1])} rows but there are {n} rows")
    elif offsets is not None:
        raw = np.asarray(offsets)
        if raw.size and (not np.issubdtype(raw.dtype, np.number) or np.any(raw != np.round(raw))):
            raise ValueError(f"group offsets must be integers, got {raw.ravel().tolist()[:6]}")
        off = np.ascontiguousarray(raw.astype(np.int64))
        if off.ndim != 1 or off.size == 0 or off[0] != 0 or np.any(np.diff(off) < 0):
            raise ValueError("group offsets must start at 0 and be non-decreasing")
        if off[-1] != n:
            raise ValueError(f"group sizes add up to {int(off[-1])} rows but there are {n} rows")
    elif qid is None:
        off = np.array([0, n] if n else [0], dtype=np.int64)
    else:
        off = _offsets_of_qid(qid, n)
    return off


def _made_here(offsets: GroupOffsets, n: int) -> bool:
    """Offsets :func:`trusted` wrapped (validated once already) for ``n`` rows."""
    return isinstance(offsets, ValidatedGroups) and offsets.offsets[-1] == n


def _offsets_of_qid(qid, n):
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
    broken = repeated_query(q, starts)
    if broken is not None:
        dup, first, again = broken
        raise ValueError(
            f"qid {dup!r} is not contiguous: it starts again at row {again} after row "
            f"{first}; sort the rows by query (stably) first"
        )
    return np.r_[starts, n].astype(np.int64)


def repeated_query(qid: np.ndarray, starts: np.ndarray):
    """``(qid, first row, row where it starts again)`` of the first broken query, or None.

    ``starts`` are the rows where the qid changes; every query must be one run.
    """
    run_ids = qid[starts]
    uniq, counts = np.unique(run_ids, return_counts=True)
    if uniq.shape[0] == run_ids.shape[0]:
        return None
    dup = uniq[counts > 1][0].item()
    rows = starts[run_ids == dup]
    return dup, int(rows[0]), int(rows[1])


def check_ranking_inputs(y, scores, qid=None, *, kernels: bool = True):
    """Validate ``(y, scores, qid)`` and return float arrays plus group offsets.

    ``kernels``: the caller goes on to the metric kernels (their first compile is said once).
    """
    if kernels:
        note_metric_kernels()
    y = as_1d_float(y, "y")
    scores = as_1d_float(scores, "scores")
    if y.shape[0] != scores.shape[0]:
        raise ValueError(f"y has {y.shape[0]} entries but scores has {scores.shape[0]}")
    offsets = group_offsets(y.shape[0], qid=qid)
    return y, scores, offsets


def note_metric_kernels() -> None:
    """Say once per process, on stderr, when the metric kernels compile now (no cache yet)."""
    if "metrics" not in _NOTED:
        _NOTED.add("metrics")
        from ._kernels.order import sort_within_groups
        from ._kernels.jit import note_first_compile

        # every metric kernel's path sorts with it first (checked on a kernel of one path, a warm demo said
        # "compiling" on every run)
        note_first_compile("metrics", sort_within_groups)


def check_features(estimator, X, reset: bool):
    """``X`` as a boosting engine takes it, with scikit-learn's feature checks.

    DataFrames stay DataFrames (column names, categorical columns); the same columns
    in another order than at fit are realigned by name.  Arrays and sparse matrices
    are checked as float64 (NaN allowed: the engines route missing values).
    ``n_features_in_`` and ``feature_names_in_`` are set (``reset``) or checked.
    """
    from sklearn.utils.validation import check_array, validate_data

    if hasattr(X, "columns") and hasattr(X, "iloc"):
        from pandas.api.types import is_bool_dtype, is_numeric_dtype

        bad = [str(c) for c, t in X.dtypes.items() if not (is_numeric_dtype(t) or is_bool_dtype(t)
                                                            or str(t) == "category")]
        if bad:
            raise ValueError(f"column(s) {bad[:5]} hold {X[bad[0]].dtype} values: the engines take numbers, "
                             f"booleans or pandas categoricals (.astype('category') for labels of a kind)")
        names = getattr(estimator, "feature_names_in_", None)
        if not reset and names is not None and list(X.columns) != list(names) and set(X.columns) == set(names):
            X = X[list(names)]
        validate_data(estimator, X, reset=reset, skip_check_array=True)
        if X.shape[0] < 1:
            raise ValueError("X has 0 rows")
        return X
    X = check_array(X, accept_sparse="csr", dtype=np.float64, ensure_all_finite="allow-nan")
    validate_data(estimator, X, reset=reset, skip_check_array=True)
    return X


def check_sample_weight(weight, offsets: np.ndarray, per_query: bool = False) -> np.ndarray:
    """Non-negative, not all zero, one per row, or one per query.

    One weight per query is kept as is when ``per_query`` (XGBoost's convention) and
    repeated over the query's rows otherwise (LightGBM weighs rows).
    """
    w = as_1d_float(weight, "sample_weight")
    n, n_groups = int(offsets[-1]), offsets.shape[0] - 1
    if w.shape[0] != n and w.shape[0] != n_groups:
        raise ValueError(f"sample_weight has {w.shape[0]} entries for {n} rows in {n_groups} queries "
                         f"(give one per row or one per query)")
    if w.shape[0] != n and not per_query:
        w = np.repeat(w, np.diff(offsets))
    if w.size and (w.min() < 0 or not w.any()):
        raise ValueError("sample_weight must be non-negative and not all zero")
    return w


def check_positions(position, offsets: np.ndarray) -> np.ndarray:
    """Display positions as int64: 0-based ranks within each list, each below its list's length.

    Raises
    ------
    ValueError
        Naming the first bad value: not a whole number, negative, or past its list.
    """
    raw = np.asarray(position)
    n = int(offsets[-1])
    if raw.ndim != 1 or raw.shape[0] != n:
        raise ValueError(f"position needs one 0-based display rank per row ({n}), got shape {raw.shape}")
    if raw.dtype == bool or not (np.issubdtype(raw.dtype, np.integer) or np.issubdtype(raw.dtype, np.floating)):
        raise ValueError(f"position holds display ranks (integers from 0), got dtype {raw.dtype}")
    with np.errstate(invalid="ignore"):
        whole = np.isfinite(raw) & (raw == np.round(raw)) if raw.dtype.kind == "f" else np.ones(n, dtype=bool)
    if not whole.all():
        i = int(np.flatnonzero(~whole)[0])
        raise ValueError(f"position {raw[i].item()!r} of row {i} is not a whole number (0-based display ranks)")
    pos = raw.astype(np.int64)
    sizes = np.repeat(np.diff(offsets), np.diff(offsets))
    bad = (pos < 0) | (pos >= sizes)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        why = "negative" if pos[i] < 0 else f"past its list of {sizes[i]} rows (positions count from 0)"
        raise ValueError(f"position {pos[i]} of row {i} is {why}")
    return pos
