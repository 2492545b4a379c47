"""Weight families a_1 <= ... <= a_n of rank risk functionals (thesis Definition 2).

A weight family is a callable ``a(n) -> ndarray`` of length ``n`` holding a_1..a_n,
where a_l is the credit for a positive example at rank l - 1 (rank 0 is the bottom
of the list, rank n - 1 the top).  Families depend on ``n`` because the length of a
list changes from query to query.  Every family here is non-negative and
non-decreasing, as Definition 2 requires.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

__all__ = [
    "WeightFamily",
    "wrs",
    "local_auc",
    "wta",
    "mrr",
    "dcg",
    "dcg_at",
    "pnorm",
    "staircase",
    "weight_family",
]


@dataclass(frozen=True)
class WeightFamily:
    """A named rank-risk weight family; call it with ``n`` to get a_1..a_n.

    Parameters
    ----------
    name : str
        Display name, e.g. ``"dcg@10"``.
    fn : callable
        ``fn(ell, n) -> ndarray`` evaluated on ``ell = 1..n`` (float64).
    """

    name: str
    fn: Callable[[np.ndarray, int], np.ndarray] = field(repr=False)

    def __call__(self, n: int) -> np.ndarray:
        n = int(n)
        if n < 0:
            raise ValueError(f"list length must be non-negative, got {n}")
        ell = np.arange(1, n + 1, dtype=np.float64)
        a = np.asarray(self.fn(ell, n), dtype=np.float64)
        return np.broadcast_to(a, (n,)).copy()


def wrs() -> WeightFamily:
    """Wilcoxon rank sum: a_l = l (thesis §2.1.2)."""
    return WeightFamily("wrs", lambda ell, n: ell)


def local_auc(t: int) -> WeightFamily:
    """Local AUC: a_l = l · 1[l >= t] (thesis §2.1.2; Table 2.3 uses t = 5)."""
    if isinstance(t, bool) or int(t) != t or t < 1:
        raise ValueError(f"local_auc needs a rank threshold t >= 1, got {t!r}")
    t = int(t)
    return WeightFamily(f"local_auc@{t}", lambda ell, n: ell * (ell >= t))


def wta() -> WeightFamily:
    """Winner takes all: a_l = 1[l = n], credit only for a positive on top."""
    return WeightFamily("wta", lambda ell, n: (ell == n).astype(np.float64))


def mrr() -> WeightFamily:
    """Mean reciprocal rank: a_l = 1 / (n - l + 1)."""
    return WeightFamily("mrr", lambda ell, n: 1.0 / (n - ell + 1.0))


def dcg() -> WeightFamily:
    """Discounted cumulative gain: a_l = 1 / log2(n - l + 2)."""
    return WeightFamily("dcg", lambda ell, n: 1.0 / np.log2(n - ell + 2.0))


def _top_count(top: float, n: int) -> int:
    if isinstance(top, float) and 0.0 < top < 1.0:
        return int(math.ceil(top * n))
    return int(top)


def dcg_at(top: float) -> WeightFamily:
    """DCG over the top of the list: a_l = 1[l >= n - N + 1] / log2(n - l + 2).

    Parameters
    ----------
    top : int or float
        N, the number of top positions counted; a float in (0, 1) is a fraction of
        the list (the thesis' experiments use the top 10%).
    """
    if top <= 0:
        raise ValueError(f"dcg_at needs a positive cut-off, got {top!r}")

    def fn(ell, n):
        t = n - _top_count(top, n) + 1
        return (ell >= t) / np.log2(n - ell + 2.0)

    return WeightFamily(f"dcg@{top:g}", fn)


def pnorm(p: float) -> WeightFamily:
    """P-norm-push style weights a_l = l^p (thesis §2.1.2)."""
    if not 0 < p < math.inf:
        raise ValueError(f"pnorm needs a finite p > 0, got {p!r}")
    return WeightFamily(f"pnorm@{p:g}", lambda ell, n: ell**p)


def staircase(thresholds, increments) -> WeightFamily:
    """Staircase statistic (thesis Definition 3): a_l = Σ_t q_t 1[l - 1 >= r_t].

    Parameters
    ----------
    thresholds : sequence of int
        Rank thresholds r_t (ranks count from the bottom, 0-based).  For a list of 50
        with tiers top-10/top-20/top-30 they are 40, 30, 20.
    increments : sequence of float
        q_t >= 0, the gain of reaching tier t.
    """
    r = np.asarray(thresholds, dtype=np.float64)
    q = np.asarray(increments, dtype=np.float64)
    if r.shape != q.shape or r.ndim != 1:
        raise ValueError("thresholds and increments must be 1-D of equal length")
    if np.any(q < 0) or not np.isfinite(q).all() or np.isnan(r).any():
        raise ValueError("staircase increments q_t must be finite and non-negative, thresholds numbers")
    return WeightFamily(
        "staircase", lambda ell, n: ((ell[:, None] - 1.0) >= r[None, :]) @ q
    )


def _no_parameter(make: Callable[[], WeightFamily]) -> Callable[[str | None], WeightFamily]:
    def parse(p):
        if p is not None:
            raise ValueError(f"{make.__name__} takes no parameter, got {p!r}")
        return make()
    return parse


_PARSERS: dict[str, Callable[[str | None], WeightFamily]] = {
    "wrs": _no_parameter(wrs),
    "local_auc": lambda p: local_auc(int(p)),
    "wta": _no_parameter(wta),
    "mrr": _no_parameter(mrr),
    "dcg": lambda p: dcg() if p is None else dcg_at(float(p) if "." in p else int(p)),
    "pnorm": lambda p: pnorm(float(p)),
}


def weight_family(spec) -> WeightFamily:
    """Resolve a family from a name such as ``"dcg@10"``, ``"dcg@0.1"``, ``"local_auc@5"``,
    ``"pnorm@4"``, ``"wta"``, ``"mrr"``, ``"wrs"``; families and arrays pass through.
    """
    if isinstance(spec, WeightFamily):
        return spec
    if not isinstance(spec, str):
        arr = np.asarray(spec, dtype=np.float64)
        return WeightFamily("custom", lambda ell, n: _fixed(arr, n))
    name, _, param = spec.partition("@")
    if name not in _PARSERS:
        raise ValueError(f"unknown weight family {spec!r}; choose from {sorted(_PARSERS)}")
    try:
        return _PARSERS[name](param or None)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"cannot parse weight family {spec!r}: {exc}") from None


def _fixed(arr: np.ndarray, n: int) -> np.ndarray:
    if arr.shape != (n,):
        raise ValueError(f"explicit weights have length {arr.shape[0]}, but the list has {n}")
    return arr
