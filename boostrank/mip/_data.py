"""The rows a rank statistic sees: distinct rows per list, their weights and the pairs compared."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._kernels import rank_sweep as _ks
from ..metrics.arrays import rank_gain
from ..weights import weight_family

__all__ = ["RankData", "merge_rows", "rank_data"]

STATISTICS = ("auc", "auc_pi", "rank_risk")


def merge_rows(X, groups):
    """Distinct rows per group, sorted by group.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    groups : ndarray of int64, shape (n,)
        Group (list) number of every row, 0 … G − 1.

    Returns
    -------
    U : ndarray of shape (m, d)
        Distinct rows; the rows of group g are contiguous and groups ascend.
    g : ndarray of int64, shape (m,)
        Group of each distinct row.
    inverse : ndarray of int64, shape (n,)
        Distinct row of every input row.
    """
    key = np.column_stack([groups.astype(np.float64), X])
    if key.shape[0] == 0:
        return X[:0], np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    U, inverse = np.unique(key, axis=0, return_inverse=True)
    return U[:, 1:], U[:, 0].astype(np.int64), inverse.reshape(-1).astype(np.int64)


@dataclass
class RankData:
    """A rank statistic on distinct rows, in the form the sweeps and the MIP share.

    Attributes
    ----------
    U : ndarray (m, d)
        Distinct (scaled) rows, grouped by list.
    offsets : ndarray (G + 1,)
        Lists of ``U``.
    inverse : ndarray (n,)
        Distinct row of every example.
    pos, neg : ndarray (m,)
        Weight of positive and negative examples merged into each row (for rank
        risk with graded gains, ``pos`` is the summed gain).
    cnt : ndarray of int64 (m,)
        Examples merged into each row (rank risk: integer weights).
    pu, pv : ndarray (P,)
        Pairs of rows of one list the statistic compares (u < v).
    c_plus, c_minus : ndarray (P,)
        Pair credits for pair-additive statistics (AUC, AUC_π), normalised so the
        statistic is in its reported units.
    mode : int
        :mod:`boostrank._kernels.rank_sweep` mode.
    cum, row_cum : ndarray
        Cumulative rank-risk weights per list and each row's offset into them.
    list_sizes : ndarray (G,)
        Examples per list (rank risk).
    """

    U: np.ndarray
    offsets: np.ndarray
    inverse: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    cnt: np.ndarray
    pu: np.ndarray
    pv: np.ndarray
    c_plus: np.ndarray
    c_minus: np.ndarray
    mode: int
    cum: np.ndarray
    row_cum: np.ndarray
    list_sizes: np.ndarray

    @property
    def n_distinct(self) -> int:
        return self.U.shape[0]

    def _args(self):
        return (self.pu, self.pv, self.c_plus, self.c_minus, self.mode, self.pos, self.cnt, self.cum,
                self.row_cum)

    def value(self, w) -> float:
        """The statistic of scores U·w (ties are not above each other)."""
        return float(_ks.pair_statistic(self.U @ w, *self._args()))

    def line(self, w, v):
        """(best value, t) of the statistic of U(w + t·v) over t."""
        best, t = _ks.line_sweep(self.U @ w, self.U @ v, *self._args())
        return float(best), float(t)

    def circle(self):
        """(best value, w) over all 2-D directions: exact (see ``angle_sweep``)."""
        best, theta = _ks.angle_sweep(np.ascontiguousarray(self.U[:, 0]), np.ascontiguousarray(self.U[:, 1]),
                                      *self._args())
        return float(best), np.array([np.cos(theta), np.sin(theta)])


MAX_PAIRS = 30_000_000
"""Most compared pairs a fit holds (32 bytes each: about 1 GB); one balanced list of 11 000
rows has that many.  Past it the fit is refused before anything is built."""
MAX_POSITIONS = 10_000_000
"""Most weighted list positions of a rank-risk fit (a row of weight w counts as w rows)."""


def _check_size(statistic, g, pos, neg, sizes, n_groups) -> None:
    """Refuse, before building them, pair tables or position tables past the memory limits."""
    if statistic in ("auc", "rank_risk"):
        n_pos = np.bincount(g, weights=pos > 0, minlength=n_groups)
        other = np.bincount(g, weights=neg > 0, minlength=n_groups) if statistic == "auc" else \
            np.bincount(g, minlength=n_groups)
        n_pairs = float(n_pos @ other)
        if n_pairs > MAX_PAIRS:
            raise ValueError(f"{n_pairs:.3g} pairs to compare, over the {MAX_PAIRS:.3g} an exact fit holds in memory "
                             f"(about 1 GB): fit on a sample of the lists, split long lists, or re-rank a top-k "
                             f"with TopKReranker")
    if statistic == "rank_risk" and sizes.size and float(np.rint(sizes).sum()) > MAX_POSITIONS:
        raise ValueError(f"rank_risk counts a row of weight w as w rows: these weights make {sizes.sum():.3g} "
                         f"list positions, over {MAX_POSITIONS:.3g}; scale sample_weight down (only the "
                         f"weights' ratios matter)")


def rank_data(X, y, groups, sample_weight, statistic, *, a=None, rank="min", pairs=None,
              merge=True, gain="binary") -> RankData:
    """Merge identical rows of each list and list the pairs a statistic compares.

    Parameters
    ----------
    X : ndarray (n, d)
    y : ndarray (n,)
    groups : ndarray of int64 (n,)
        Contiguous list numbers 0 … G − 1.
    sample_weight : ndarray (n,)
        Non-negative; integers for ``rank_risk``.
    statistic : {"auc", "auc_pi", "rank_risk"}
        ``"auc"``: mean per-list AUC with ties counted as misranks (thesis (2.6));
        ``"auc_pi"``: share of preference pairs π_ik = 1[y_i > y_k] (or explicit
        ``pairs``) strictly in order (thesis §2.2.4); ``"rank_risk"``: Σ over lists of
        RRF (thesis (2.17) for ``rank="min"``, Definition 1 ranks for ``"resolved"``).
    merge : bool, default=True
        Merge identical rows of a list; without it every example is its own row.
    gain : {"binary", "exponential"}, default="binary"
        Rank risk: credit 1[y > 0] or 2^y − 1 per example (minimum ranks only).

    Returns
    -------
    RankData
    """
    n = X.shape[0]
    if merge:
        U, g, inv = merge_rows(X, groups)
    else:
        U, g, inv = X, groups.astype(np.int64), np.arange(n, dtype=np.int64)
    m = U.shape[0]
    n_groups = int(groups.max()) + 1 if n else 0
    offsets = np.searchsorted(g, np.arange(n_groups + 1)).astype(np.int64)
    positive = y > 0
    credit = positive
    if statistic == "rank_risk" and gain != "binary":
        if rank != "min" and np.any((y > 0) & (y != 1)):
            raise ValueError("graded gains need rank='min': resolved ranks give each positive its own rank")
        credit = rank_gain(y, gain)
    pos = np.bincount(inv, weights=sample_weight * credit, minlength=m)
    neg = np.bincount(inv, weights=sample_weight * ~positive, minlength=m)
    cnt = np.rint(np.bincount(inv, weights=sample_weight, minlength=m)).astype(np.int64)
    empty = np.zeros(0)
    cum = np.zeros(1)
    row_cum = np.zeros(m, dtype=np.int64)
    sizes = np.bincount(groups, weights=sample_weight, minlength=n_groups) if n else np.zeros(0)
    _check_size(statistic, g, pos, neg, sizes, n_groups)
    if statistic == "auc":
        pu, pv = _ks.list_pairs(offsets, pos > 0, neg > 0)
        gp = np.bincount(g, weights=pos, minlength=n_groups)
        gn = np.bincount(g, weights=neg, minlength=n_groups)
        per_list = gp * gn
        n_defined = int(np.count_nonzero(per_list > 0))
        norm = np.where(per_list > 0, 1.0 / np.where(per_list > 0, per_list, 1.0) / max(n_defined, 1), 0.0)
        c_plus, c_minus = _ks.auc_credits(pu, pv, pos, neg, norm[g])
        mode = _ks.MODE_PAIRS
    elif statistic == "auc_pi":
        key_u, key_v, wts = _preference_pairs(y, groups, sample_weight, inv, pairs)
        total = wts.sum() if wts.size else 0.0
        lo, hi = np.minimum(key_u, key_v), np.maximum(key_u, key_v)
        keep = lo != hi
        code = lo[keep] * m + hi[keep]
        uniq, where = np.unique(code, return_inverse=True)
        pu, pv = (uniq // max(m, 1)).astype(np.int64), (uniq % max(m, 1)).astype(np.int64)
        fwd = (key_u[keep] == lo[keep])
        scale = 1.0 / total if total > 0 else 0.0
        c_plus = np.bincount(where, weights=wts[keep] * fwd, minlength=uniq.size) * scale
        c_minus = np.bincount(where, weights=wts[keep] * ~fwd, minlength=uniq.size) * scale
        mode = _ks.MODE_PAIRS
    elif statistic == "rank_risk":
        fam = weight_family(a if a is not None else "wrs")
        pu, pv = _ks.list_pairs(offsets, pos > 0, np.ones(m, dtype=bool))
        c_plus = c_minus = empty
        parts, starts, at = [], np.zeros(n_groups, dtype=np.int64), 0
        cache = {}
        for q in range(n_groups):
            size = int(round(sizes[q]))
            starts[q] = at
            if size not in cache:  # lists of one length share their weights
                cache[size] = np.r_[0.0, np.cumsum(fam(size))]
            parts.append(cache[size])
            at += size + 1
        cum = np.concatenate(parts) if parts else cum
        row_cum = starts[g] if m else row_cum
        mode = _ks.MODE_MIN if rank == "min" else _ks.MODE_RESOLVED
    else:
        raise ValueError(f"statistic must be one of {STATISTICS}, got {statistic!r}")
    return RankData(U=np.ascontiguousarray(U), offsets=offsets, inverse=inv, pos=pos, neg=neg, cnt=cnt,
                    pu=pu, pv=pv, c_plus=np.ascontiguousarray(c_plus, dtype=np.float64),
                    c_minus=np.ascontiguousarray(c_minus, dtype=np.float64), mode=mode, cum=cum,
                    row_cum=np.ascontiguousarray(row_cum, dtype=np.int64), list_sizes=sizes)


def _preference_pairs(y, groups, sw, inv, pairs):
    """(distinct row above, distinct row below, weight) of every preference pair."""
    if pairs is not None:
        p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        same = groups[p[:, 0]] == groups[p[:, 1]]
        p = p[same]
        return inv[p[:, 0]], inv[p[:, 1]], sw[p[:, 0]] * sw[p[:, 1]]
    us, vs, ws = [], [], []
    bounds = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1], True]) if groups.size else [0]
    for a, b in zip(bounds[:-1], bounds[1:]):
        yy = y[a:b]
        i, k = np.nonzero(yy[:, None] > yy[None, :])
        us.append(inv[a + i])
        vs.append(inv[a + k])
        ws.append(sw[a + i] * sw[a + k])
    if not us:
        z = np.zeros(0, dtype=np.int64)
        return z, z, np.zeros(0)
    return np.concatenate(us), np.concatenate(vs), np.concatenate(ws)
