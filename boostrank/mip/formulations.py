"""The MIP formulations of thesis §2.2 and Rudin & Wang §4, built from arrays.

Every formulation scores rows linearly, v = wᵀx with −1 ≤ w_j ≤ 1 on features scaled
by their largest absolute value.  "u above v" is a binary z_uv allowed only when
wᵀ(x_u − x_v) ≥ ε, with a per-pair big-M (thesis (2.7)/(2.10) with M = 1 silently
restricts w when ‖x_u − x_v‖₁ > 1 − ε):

    M_uv z_uv − wᵀ(x_u − x_v) ≤ M_uv − ε,   M_uv = ‖x_u − x_v‖₁ + ε.

Identical rows of a list are merged with multiplicities (same optimum, fewer
binaries) and two distinct rows cannot each be strictly above the other,
z_uv + z_vu ≤ 1.  The minimum-rank RRF uses (2.20), (2.22), (2.23) with (2.21) as an
inequality (rows closer than ε cannot be separated inside the box, so the thesis's
equality can make a model infeasible).  Resolved ranks use (2.9)–(2.16) / Rudin &
Wang (3)–(15) on unmerged rows.  Every model is a minimisation (CBC discards MIP
starts of maximisation models): minimise c·x subject to row_lo ≤ Ax ≤ row_hi.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from ._data import RankData, rank_data

__all__ = ["MIPModel", "build_problem"]


@dataclass
class MIPModel:
    """A MIP in array form, with what is needed to build starts and read solutions.

    Attributes
    ----------
    c : ndarray (n_cols,)
        Objective, minimised.
    A : scipy.sparse.csr_matrix (n_rows, n_cols)
    row_lo, row_hi, col_lo, col_hi : ndarray
        Bounds (±inf where absent).
    integer : ndarray of bool (n_cols,)
    d : int
        Columns 0 … d − 1 are w.
    z_cols, z_pairs : ndarray
        Column of every "u above v" binary and its (u, v) rows of ``data.U``.
    t_cols, t_keys : ndarray
        Rank-threshold binaries and their (row, ℓ).
    gamma_cols, r_cols : ndarray
        L0 indicators γ_j and resolved ranks r_i (may be empty).
    scale, offset : float
        statistic = −(c·x)·scale + offset.
    eps : float
    data : RankData
        The rows and pairs the model was built on.
    statistic, rank : str
    """

    c: np.ndarray
    A: sparse.csr_matrix
    row_lo: np.ndarray
    row_hi: np.ndarray
    col_lo: np.ndarray
    col_hi: np.ndarray
    integer: np.ndarray
    d: int
    z_cols: np.ndarray
    z_pairs: np.ndarray
    t_cols: np.ndarray
    t_keys: np.ndarray
    gamma_cols: np.ndarray
    r_cols: np.ndarray
    scale: float
    offset: float
    eps: float
    data: RankData
    statistic: str
    rank: str

    @property
    def n_binaries(self) -> int:
        return int(np.count_nonzero(self.integer))

    def to_statistic(self, value):
        """MIP objective (minimised) → the statistic's units (None stays None)."""
        return None if value is None else -float(value) * self.scale + self.offset

    def start(self, w) -> np.ndarray | None:
        """A complete, feasible MIP start from scaled weights w, or None.

        z from score gaps ≥ ε, t from the resulting (minimum or resolved) ranks, γ from
        the support of w.  Returns None when the start violates a row (e.g. a pair
        whose gap lies in (0, ε) under the resolved formulation's (2.11)).
        """
        w = np.asarray(w, dtype=np.float64)
        top = np.abs(w).max() if w.size else 0.0
        if top == 0:
            return None
        w = w / top
        x = np.zeros(self.c.shape[0])
        x[: self.d] = w
        s = self.data.U @ w
        zp = self.z_pairs
        above = (s[zp[:, 0]] - s[zp[:, 1]] >= self.eps * (1 + 1e-9)).astype(np.float64) if zp.size else np.zeros(0)
        x[self.z_cols] = above
        if self.r_cols.size:
            r = _resolved_order(s, self.data)
            x[self.r_cols] = r
            level = r[self.t_keys[:, 0]] if self.t_keys.size else np.zeros(0)
        elif self.t_keys.size:
            below = np.bincount(zp[:, 0], weights=above * self.data.cnt[zp[:, 1]], minlength=s.shape[0])
            level = below[self.t_keys[:, 0]]
        if self.t_keys.size:
            x[self.t_cols] = (self.t_keys[:, 1] - 1 <= level + 1e-9).astype(np.float64)
        if self.gamma_cols.size:
            x[self.gamma_cols] = (w != 0).astype(np.float64)
        ax = self.A @ x
        tol = 1e-7
        if np.any(ax < self.row_lo - tol) or np.any(ax > self.row_hi + tol):
            return None
        return x


def _resolved_order(s, data):
    """Resolved ranks 0 … n − 1 per list in the MIP's tie rule (2.13)–(2.15).

    Score ascending; in a tie a positive below a negative, and between examples of
    one class the earlier row lower.
    """
    r = np.zeros(s.shape[0])
    for a, b in zip(data.offsets[:-1], data.offsets[1:]):
        idx = np.arange(a, b)
        order = np.lexsort((idx, data.pos[a:b] <= 0, s[a:b]))
        r[a + order] = np.arange(b - a)
    return r


class _Builder:
    """Columns and rows appended in blocks; the sparse matrix is assembled once."""

    def __init__(self):
        self.n_cols = 0
        self.col_lo, self.col_hi, self.col_int, self.cost = [], [], [], []
        self.rows, self.cols, self.vals = [], [], []
        self.row_lo, self.row_hi = [], []
        self.n_rows = 0

    def add_cols(self, k, lo, hi, integer, cost=0.0):
        idx = np.arange(self.n_cols, self.n_cols + k)
        self.n_cols += k
        self.col_lo.append(np.broadcast_to(np.asarray(lo, dtype=np.float64), (k,)))
        self.col_hi.append(np.broadcast_to(np.asarray(hi, dtype=np.float64), (k,)))
        self.col_int.append(np.full(k, integer))
        self.cost.append(np.broadcast_to(np.asarray(cost, dtype=np.float64), (k,)).copy())
        return idx

    def add_rows(self, k, row_of_entry, col_of_entry, val_of_entry, lo, hi):
        """k rows; entries give (local row, column, value)."""
        self.rows.append(np.asarray(row_of_entry, dtype=np.int64) + self.n_rows)
        self.cols.append(np.asarray(col_of_entry, dtype=np.int64))
        self.vals.append(np.asarray(val_of_entry, dtype=np.float64))
        self.row_lo.append(np.broadcast_to(np.asarray(lo, dtype=np.float64), (k,)))
        self.row_hi.append(np.broadcast_to(np.asarray(hi, dtype=np.float64), (k,)))
        self.n_rows += k

    def matrix(self):
        cat = (lambda parts, dt: np.concatenate(parts).astype(dt) if parts else np.zeros(0, dt))
        A = sparse.csr_matrix((cat(self.vals, np.float64), (cat(self.rows, np.int64), cat(self.cols, np.int64))),
                              shape=(self.n_rows, self.n_cols))
        A.sum_duplicates()
        return (A, cat(self.row_lo, np.float64), cat(self.row_hi, np.float64), cat(self.col_lo, np.float64),
                cat(self.col_hi, np.float64), cat(self.col_int, bool), cat(self.cost, np.float64))


def _above_rows(b, U, w_cols, z_cols, zp, eps, d):
    """M z_uv − wᵀ(x_u − x_v) ≤ M − ε for every z (per-pair big-M)."""
    D = U[zp[:, 0]] - U[zp[:, 1]]
    M = np.abs(D).sum(axis=1) + eps
    k = zp.shape[0]
    rows = np.r_[np.arange(k), np.repeat(np.arange(k), d)]
    cols = np.r_[z_cols, np.tile(w_cols, k)]
    vals = np.r_[M, -D.ravel()]
    nz = vals != 0
    b.add_rows(k, rows[nz], cols[nz], vals[nz], -np.inf, M - eps)
    return D


def _antisymmetry(b, z_cols, zp, m):
    """z_uv + z_vu ≤ 1 where both variables exist."""
    code = zp[:, 0] * m + zp[:, 1]
    rev = zp[:, 1] * m + zp[:, 0]
    pos = {int(c): i for i, c in enumerate(code)}
    pairs = [(i, pos[int(r)]) for i, r in enumerate(rev) if zp[i, 0] < zp[i, 1] and int(r) in pos]
    if pairs:
        p = np.asarray(pairs, dtype=np.int64)
        k = p.shape[0]
        b.add_rows(k, np.repeat(np.arange(k), 2), z_cols[p].ravel(), np.ones(2 * k), -np.inf, 1.0)


def build_problem(X, y, statistic="auc", *, a=None, rank="min", l0=0.0, eps=1e-4, relax=False, groups=None,
                  sample_weight=None, merge=True, pairs=None, gain="binary") -> MIPModel:
    """Build one formulation on already scaled features (|x_j| ≤ 1).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,)
        Binary (``y > 0`` positive) for ``"auc"`` and ``"rank_risk"``; graded for
        ``"auc_pi"`` (π_ik = 1[y_i > y_k], thesis §2.2.4).
    statistic : {"auc", "auc_pi", "rank_risk"}, default="auc"
        (2.6) with per-list weights (the mean per-list AUC); (2.6) over preference
        pairs; (2.18) or (2.9).
    a : str, WeightFamily or None
        Rank-risk weights (``"dcg@10"``, ``"wta"`` …); default ``"wrs"``.
    rank : {"min", "resolved"}, default="min"
    l0 : float, default=0.0
        C of C‖w‖₀ (Rudin & Wang (3)) in the statistic's units; γ_j ≥ |w_j|.
    eps : float, default=1e-4
        Margin ε of "strictly above".
    relax : bool, default=False
        LP relaxation (every binary continuous in [0, 1]).
    groups : ndarray of int64 (n,), default=None
        Contiguous list numbers 0 … G − 1 (one list without).
    sample_weight : ndarray (n,), default=None
        Multiplicities.
    merge : bool, default=True
        Merge identical rows (always off for resolved ranks, which separate them).
    pairs : ndarray (p, 2), default=None
        ``"auc_pi"``: explicit preferences (row i above row k).
    gain : {"binary", "exponential"}, default="binary"
        Rank-risk credit per example: 1[y > 0] or 2^y − 1 (minimum ranks only).

    Returns
    -------
    MIPModel
    """
    n, d = X.shape
    groups = np.zeros(n, dtype=np.int64) if groups is None else np.asarray(groups, dtype=np.int64)
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    resolved = statistic == "rank_risk" and rank == "resolved"
    data = rank_data(X, y, groups, sw, statistic, a=a, rank=rank, pairs=pairs, merge=merge and not resolved,
                     gain=gain)
    U, m = data.U, data.n_distinct
    b = _Builder()
    w_cols = b.add_cols(d, -1.0, 1.0, False)
    integer = not relax
    t_cols = np.zeros(0, dtype=np.int64)
    t_keys = np.zeros((0, 2), dtype=np.int64)
    r_cols = np.zeros(0, dtype=np.int64)
    offset, scale = 0.0, 1.0
    pu, pv = data.pu, data.pv
    if statistic in ("auc", "auc_pi"):
        credit = np.r_[data.c_plus, data.c_minus]
        zp_all = np.r_[np.column_stack([pu, pv]), np.column_stack([pv, pu])].reshape(-1, 2)
        keep = credit > 0
        zp, credit = zp_all[keep], credit[keep]
        # objective in units of the smallest credit: pair counts for one unweighted list
        scale = float(credit.min()) if credit.size else 1.0
        z_cols = b.add_cols(zp.shape[0], 0.0, 1.0, integer, -credit / scale)
        _above_rows(b, U, w_cols, z_cols, zp, eps, d)
        _antisymmetry(b, z_cols, zp, m)
    elif not resolved:
        pos_u, pos_v = data.pos[pu] > 0, data.pos[pv] > 0
        zp = np.r_[np.column_stack([pu, pv])[pos_u], np.column_stack([pv, pu])[pos_v]].reshape(-1, 2)
        zp = zp[np.lexsort((zp[:, 1], zp[:, 0]))]
        z_cols = b.add_cols(zp.shape[0], 0.0, 1.0, integer)
        _above_rows(b, U, w_cols, z_cols, zp, eps, d)
        _antisymmetry(b, z_cols, zp, m)
        t_keys, t_cols, offset = _minrank_thresholds(b, data, zp, z_cols, integer)
    else:
        z_cols, zp, r_cols, t_keys, t_cols, offset = _resolved(b, data, w_cols, eps, d, integer)
    gamma_cols = np.zeros(0, dtype=np.int64)
    if l0 > 0:
        gamma_cols = b.add_cols(d, 0.0, 1.0, integer, l0 / scale)
        rows = np.repeat(np.arange(2 * d), 2)
        cols = np.c_[np.r_[w_cols, w_cols], np.r_[gamma_cols, gamma_cols]].ravel()
        vals = np.c_[np.r_[np.ones(d), -np.ones(d)], -np.ones(2 * d)].ravel()
        b.add_rows(2 * d, rows, cols, vals, -np.inf, 0.0)  # ±w_j − γ_j ≤ 0
    A, row_lo, row_hi, col_lo, col_hi, is_int, cost = b.matrix()
    return MIPModel(c=cost, A=A, row_lo=row_lo, row_hi=row_hi, col_lo=col_lo, col_hi=col_hi, integer=is_int,
                    d=d, z_cols=z_cols, z_pairs=zp, t_cols=t_cols, t_keys=t_keys, gamma_cols=gamma_cols,
                    r_cols=r_cols, scale=scale, offset=offset, eps=eps, data=data, statistic=statistic,
                    rank=rank)


def _list_weights(data: RankData, row):
    """a_1 … a_n of the list of distinct row ``row``, and ã_ℓ = a_ℓ − a_{ℓ−1}."""
    g = int(np.searchsorted(data.offsets, row, side="right") - 1)
    size = int(round(data.list_sizes[g]))
    start = data.row_cum[row]
    cum = data.cum[start:start + size + 1]
    a_vec = np.diff(cum)
    return a_vec, np.diff(np.r_[0.0, a_vec]), size


def _minrank_thresholds(b, data, zp, z_cols, integer):
    """(2.20), (2.22), (2.23): t_uℓ = 1 only if row u has ℓ − 1 rows below it."""
    t_rows, t_ell, t_cost = [], [], []
    offset = 0.0
    list_bound = []
    n_t = 0
    for g in range(data.offsets.shape[0] - 1):
        a0, a1 = data.offsets[g], data.offsets[g + 1]
        rows = np.arange(a0, a1)[data.pos[a0:a1] > 0]
        if a1 == a0:
            continue
        a_vec, a_tilde, size = _list_weights(data, a0)
        n_pos = float(data.pos[a0:a1].sum())
        offset += n_pos * a_vec[0] if size else 0.0
        ells = np.arange(2, size + 1)[a_tilde[1:] > 0]
        if rows.size == 0 or ells.size == 0:
            continue
        start = n_t
        n_t += rows.size * ells.size
        t_rows.append(np.repeat(rows, ells.size))
        t_ell.append(np.tile(ells, rows.size))
        t_cost.append(np.repeat(data.pos[rows], ells.size) * np.tile(a_tilde[ells - 1], rows.size))
        k_pos = int(round(n_pos))
        if np.allclose(data.pos[a0:a1], data.cnt[a0:a1] - data.neg[a0:a1]):  # 0/1 credit: positives on top
            best = float(np.sum(a_vec[size - k_pos:]) - n_pos * a_vec[0]) if k_pos else 0.0
        else:  # graded gains: every gain at the top rank
            best = n_pos * float(a_vec[-1] - a_vec[0])
        list_bound.append((start, start + rows.size * ells.size, best))
    if not t_rows:
        return np.zeros((0, 2), dtype=np.int64), np.zeros(0, dtype=np.int64), offset
    t_keys = np.column_stack([np.concatenate(t_rows), np.concatenate(t_ell)]).astype(np.int64)
    t_cost = np.concatenate(t_cost)
    t_cols = b.add_cols(t_keys.shape[0], 0.0, 1.0, integer, -t_cost)
    T = t_keys.shape[0]
    # (2.20): (ℓ − 1) t_uℓ − Σ_v cnt_v z_uv ≤ 0
    z_of_row = np.argsort(zp[:, 0], kind="stable")
    first = np.searchsorted(zp[z_of_row, 0], t_keys[:, 0], side="left")
    last = np.searchsorted(zp[z_of_row, 0], t_keys[:, 0], side="right")
    lengths = last - first
    entry_row = np.repeat(np.arange(T), lengths)
    within = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    zsel = z_of_row[np.repeat(first, lengths) + within]
    rows = np.r_[np.arange(T), entry_row]
    cols = np.r_[t_cols, z_cols[zsel]]
    vals = np.r_[t_keys[:, 1] - 1.0, -data.cnt[zp[zsel, 1]].astype(np.float64)]
    b.add_rows(T, rows, cols, vals, -np.inf, 0.0)
    # (2.22): t_{u,ℓ'} − t_{u,ℓ} ≤ 0 for consecutive thresholds of one row
    same = t_keys[1:, 0] == t_keys[:-1, 0]
    k = int(same.sum())
    if k:
        nxt, prev = t_cols[1:][same], t_cols[:-1][same]
        b.add_rows(k, np.repeat(np.arange(k), 2), np.c_[nxt, prev].ravel(), np.tile([1.0, -1.0], k), -np.inf, 0.0)
    # (2.23), tightened to the best possible list (its positives on top)
    if list_bound:
        bounds = np.asarray(list_bound)
        lengths = (bounds[:, 1] - bounds[:, 0]).astype(np.int64)
        entries = np.concatenate([np.arange(a, b) for a, b, _ in list_bound]).astype(np.int64)
        b.add_rows(len(list_bound), np.repeat(np.arange(len(list_bound)), lengths), t_cols[entries],
                   t_cost[entries], -np.inf, bounds[:, 2])
    return t_keys, t_cols, offset


def _resolved(b, data, w_cols, eps, d, integer):
    """(2.9)–(2.16) / Rudin & Wang (3)–(15) on unmerged rows."""
    U = data.U
    n_rows = U.shape[0]
    size_of = np.zeros(n_rows)
    zp_parts, offset = [], 0.0
    t_rows, t_ell, t_cost = [], [], []
    for g in range(data.offsets.shape[0] - 1):
        a0, a1 = data.offsets[g], data.offsets[g + 1]
        if a1 == a0:
            continue
        size_of[a0:a1] = a1 - a0
        idx = np.arange(a0, a1)
        i, k = np.meshgrid(idx, idx, indexing="ij")
        off = i != k
        zp_parts.append(np.column_stack([i[off], k[off]]))
        a_vec, a_tilde, size = _list_weights(data, a0)
        offset += float(data.pos[a0:a1].sum()) * a_vec[0]
        ells = np.arange(2, size + 1)[a_tilde[1:] > 0]
        rows = idx[data.pos[a0:a1] > 0]
        if rows.size and ells.size:
            t_rows.append(np.repeat(rows, ells.size))
            t_ell.append(np.tile(ells, rows.size))
            t_cost.append(np.repeat(data.pos[rows], ells.size) * np.tile(a_tilde[ells - 1], rows.size))
    zp = np.concatenate(zp_parts).astype(np.int64) if zp_parts else np.zeros((0, 2), dtype=np.int64)
    z_cols = b.add_cols(zp.shape[0], 0.0, 1.0, integer)
    r_cols = b.add_cols(n_rows, 0.0, np.maximum(size_of - 1, 0.0), False)
    D = _above_rows(b, U, w_cols, z_cols, zp, eps, d)  # (2.10)
    k = zp.shape[0]
    norm = np.abs(D).sum(axis=1)
    sel = np.flatnonzero(norm > 0)  # (2.11): ‖D‖₁ z ≥ wᵀD
    if sel.size:
        rows = np.r_[np.arange(sel.size), np.repeat(np.arange(sel.size), d)]
        cols = np.r_[z_cols[sel], np.tile(w_cols, sel.size)]
        vals = np.r_[norm[sel], -D[sel].ravel()]
        nz = vals != 0
        b.add_rows(sel.size, rows[nz], cols[nz], vals[nz], 0.0, np.inf)
    nl = size_of[zp[:, 0]]
    # (2.12): r_i − r_k − n z_ik ≥ 1 − n
    b.add_rows(k, np.repeat(np.arange(k), 3), np.c_[r_cols[zp[:, 0]], r_cols[zp[:, 1]], z_cols].ravel(),
               np.c_[np.ones(k), -np.ones(k), -nl].ravel(), 1.0 - nl, np.inf)
    # (2.13)–(2.15): a tie puts a negative above a positive, and the later of one class higher
    pos_i, pos_k = data.pos[zp[:, 0]] > 0, data.pos[zp[:, 1]] > 0
    tb = np.flatnonzero((pos_i & ~pos_k) | ((zp[:, 0] < zp[:, 1]) & (pos_i == pos_k)))
    if tb.size:
        kk = tb.size
        b.add_rows(kk, np.repeat(np.arange(kk), 3),
                   np.c_[r_cols[zp[tb, 1]], r_cols[zp[tb, 0]], z_cols[tb]].ravel(),
                   np.c_[np.ones(kk), -np.ones(kk), nl[tb]].ravel(), 1.0, np.inf)
    t_keys = np.zeros((0, 2), dtype=np.int64)
    t_cols = np.zeros(0, dtype=np.int64)
    if t_rows:
        t_keys = np.column_stack([np.concatenate(t_rows), np.concatenate(t_ell)]).astype(np.int64)
        t_cols = b.add_cols(t_keys.shape[0], 0.0, 1.0, integer, -np.concatenate(t_cost))
        T = t_keys.shape[0]  # (2.16): (ℓ − 1) t_iℓ − r_i ≤ 0
        b.add_rows(T, np.repeat(np.arange(T), 2), np.c_[t_cols, r_cols[t_keys[:, 0]]].ravel(),
                   np.c_[t_keys[:, 1] - 1.0, -np.ones(T)].ravel(), -np.inf, 0.0)
    return z_cols, zp, r_cols, t_keys, t_cols, offset
