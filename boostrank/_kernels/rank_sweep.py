"""Exact sweeps of a rank statistic along a line and around the circle of 2-D directions.

A linear score s = Uw orders the distinct rows of every list; the statistic changes
only when the sign of wᵀ(x_u − x_v) changes for some pair (u, v) of rows of the same
list.  Along w + t·v every pair changes sign at most once (at t = −a/b with
a = (x_u − x_v)ᵀw, b = (x_u − x_v)ᵀv), and in 2-D every pair changes sign at two
opposite angles, so sorting those events and updating the statistic pair by pair
visits every ordering the line (or the circle) can produce.

Statistics (``mode``):

* ``MODE_PAIRS`` (0): pair-additive, e.g. AUC — pair p earns ``c_plus[p]`` while u
  is strictly above v and ``c_minus[p]`` while v is strictly above u;
* ``MODE_MIN`` (1): rank risk on minimum ranks (thesis (2.17)) — row u earns
  ``pos[u] · a_{b_u + 1}`` where b_u is the weight of rows strictly below it;
* ``MODE_RESOLVED`` (2): rank risk on resolved ranks (thesis Definition 1) — the
  ``pos[u]`` positives of row u sit below its negatives, ranks b_u … b_u + pos[u] − 1.

Per list, ``cum[row_cum[u] + k]`` holds a_1 + … + a_k of u's list (k = 0 … n).
"""

import math

import numpy as np
from numba import njit

from .order import radix_sort

MODE_PAIRS = 0
MODE_MIN = 1
MODE_RESOLVED = 2


@njit(cache=True)
def _row_value(mode, u, below, pos, cum, row_cum):
    base = row_cum[u] + below
    if mode == MODE_MIN:
        return pos[u] * (cum[base + 1] - cum[base])
    k = int(pos[u] + 0.5)
    return cum[base + k] - cum[base]


@njit(cache=True)
def _row_shift(mode, hi, lo, sign, pos, cnt, cum, row_cum, below):
    """The change of a rank-risk statistic when row ``lo``'s documents join (sign = 1) or leave (sign = −1)
    the rows strictly below row ``hi``: a pair leaving one strict order, or entering one."""
    before = _row_value(mode, hi, below[hi], pos, cum, row_cum)
    below[hi] += sign * cnt[lo]
    return _row_value(mode, hi, below[hi], pos, cum, row_cum) - before


@njit(cache=True)
def _initial_value(state, pu, pv, c_plus, c_minus, mode, pos, cnt, cum, row_cum, below):
    below[:] = 0
    value = 0.0
    for p in range(state.shape[0]):
        if state[p] == 0:
            continue
        if mode == MODE_PAIRS:
            value += c_plus[p] if state[p] > 0 else c_minus[p]
        elif state[p] > 0:
            below[pu[p]] += cnt[pv[p]]
        else:
            below[pv[p]] += cnt[pu[p]]
    if mode != MODE_PAIRS:
        for u in range(below.shape[0]):
            if pos[u] > 0:
                value += _row_value(mode, u, below[u], pos, cum, row_cum)
    return value


@njit(cache=True)
def pair_statistic(s, pu, pv, c_plus, c_minus, mode, pos, cnt, cum, row_cum):
    """The statistic of scores ``s`` on the distinct rows (strict comparisons).

    Parameters
    ----------
    s : ndarray of float64, shape (m,)
        Scores of the distinct rows.
    pu, pv : ndarray of int64, shape (P,)
        The pairs of rows of one list that the statistic compares.
    c_plus, c_minus : ndarray of float64, shape (P,)
        Credits of a pair (``MODE_PAIRS``).
    mode : int
    pos : ndarray of float64, shape (m,)
        Weight of positives per row (rank risk).
    cnt : ndarray of int64, shape (m,)
        Rows merged into each distinct row (rank risk).
    cum, row_cum : ndarray
        Cumulative weights a per list and each row's offset into ``cum``.

    Returns
    -------
    float
    """
    P = pu.shape[0]
    state = np.empty(P, dtype=np.int8)
    for p in range(P):
        d = s[pu[p]] - s[pv[p]]
        state[p] = 1 if d > 0 else (-1 if d < 0 else 0)
    below = np.zeros(s.shape[0], dtype=np.int64)
    return _initial_value(state, pu, pv, c_plus, c_minus, mode, pos, cnt, cum, row_cum, below)


@njit(cache=True)
def line_sweep(s, r, pu, pv, c_plus, c_minus, mode, pos, cnt, cum, row_cum):
    """Best value of the statistic of s + t·r over t, and a t inside the best interval.

    Parameters
    ----------
    s, r : ndarray of float64, shape (m,)
        Scores Uw and Uv of the distinct rows for the current w and a direction v.
    pu, pv, c_plus, c_minus, mode, pos, cnt, cum, row_cum
        As in :func:`pair_statistic`.

    Returns
    -------
    best : float
        The largest value over open intervals between events (and the two rays).
    t : float
        The midpoint of the first interval reaching it (a finite point on a ray).
    """
    P = pu.shape[0]
    m = s.shape[0]
    state = np.empty(P, dtype=np.int8)
    n_events = 0
    for p in range(P):
        b = r[pu[p]] - r[pv[p]]
        if b != 0.0:
            state[p] = -1 if b > 0 else 1  # t → −∞
            n_events += 1
        else:
            a = s[pu[p]] - s[pv[p]]
            state[p] = 1 if a > 0 else (-1 if a < 0 else 0)
    below = np.zeros(m, dtype=np.int64)
    value = _initial_value(state, pu, pv, c_plus, c_minus, mode, pos, cnt, cum, row_cum, below)
    if n_events == 0:
        return value, 0.0
    times = np.empty(n_events)
    ids = np.empty(n_events, dtype=np.int64)
    k = 0
    for p in range(P):
        b = r[pu[p]] - r[pv[p]]
        if b != 0.0:
            times[k] = -(s[pu[p]] - s[pv[p]]) / b
            ids[k] = p
            k += 1
    order = np.argsort(times)
    at = np.empty(n_events)
    for k in range(n_events):  # in event order, so the sweep reads both in sequence
        at[k] = times[order[k]]
        order[k] = ids[order[k]]
    times = at
    best = value
    best_t = times[0] - (1.0 + abs(times[0]))
    i = 0
    while i < n_events:
        t_i = times[i]
        j = i
        while j < n_events and times[j] <= t_i + 1e-12 * (1.0 + abs(t_i)):
            if mode == MODE_PAIRS:
                value = _cross_pair(value, order[j], state, r, pu, pv, c_plus, c_minus)
            else:
                value = _cross_rows(value, order[j], state, r, pu, pv, mode, pos, cnt, cum, row_cum, below)
            j += 1
        if value > best + 1e-12 * (1.0 + abs(best)):
            best = value
            best_t = 0.5 * (t_i + times[j]) if j < n_events else t_i + 1.0 + abs(t_i)
        i = j
    return best, best_t


@njit(cache=True)
def _cross_pair(value, p, state, r, pu, pv, c_plus, c_minus):
    """``value`` after pair p crosses its event of a line sweep (``MODE_PAIRS``): from its state to the side
    the direction ``r`` puts it on, its old credit taken off, then its new one added.

    Arrays one by one, never in tuples: a call with its arrays in tuples made the sweep 4.6x slower
    (benchmarks/MEASUREMENTS.md, "Line sweep, stop 56").
    """
    old = state[p]
    new = 1 if r[pu[p]] - r[pv[p]] > 0 else -1
    state[p] = new
    if old != 0:
        value += -(c_plus[p] if old > 0 else c_minus[p])
    return value + (c_plus[p] if new > 0 else c_minus[p])


@njit(cache=True)
def _pair_shift(mode, u, v, st, sign, pos, cnt, cum, row_cum, below):
    """The change of a rank-risk statistic when the pair of rows (u, v) in state ``st`` (u above v: 1, v above
    u: −1, tied: 0, which counts in no strict order) enters (sign = 1) or leaves (sign = −1) the order."""
    if st == 0:
        return 0.0
    return _row_shift(mode, u if st > 0 else v, v if st > 0 else u, sign, pos, cnt, cum, row_cum, below)


@njit(cache=True)
def _cross_rows(value, p, state, r, pu, pv, mode, pos, cnt, cum, row_cum, below):
    """:func:`_cross_pair` for rank risk: the rows' values change as ``below`` counts the pair."""
    u = pu[p]
    v = pv[p]
    old = state[p]
    new = 1 if r[u] - r[v] > 0 else -1
    state[p] = new
    if old != 0:
        value += _pair_shift(mode, u, v, old, -1, pos, cnt, cum, row_cum, below)
    return value + _pair_shift(mode, u, v, new, 1, pos, cnt, cum, row_cum, below)


@njit(cache=True)
def angle_sweep(x0, x1, pu, pv, c_plus, c_minus, mode, pos, cnt, cum, row_cum):
    """Exact maximum of the statistic over all directions w = (cos θ, sin θ) of 2-D rows.

    Pair (u, v) puts u strictly above v on the open half circle around the angle of
    x_u − x_v; it changes sign at two opposite angles.  Folding those to [0, π) and
    sweeping twice visits every ordering (the angular sweep of Zhou & Skiena's AUC-opt,
    here for any statistic the modes cover).  Equal angles (collinear differences)
    are processed together, to a tolerance of 1e-13 rad.

    Parameters
    ----------
    x0, x1 : ndarray of float64, shape (m,)
        The two features of the distinct rows.
    pu, pv, c_plus, c_minus, mode, pos, cnt, cum, row_cum
        As in :func:`pair_statistic`.

    Returns
    -------
    best : float
    theta : float
        Midpoint angle of an arc reaching ``best``.
    """
    P = pu.shape[0]
    m = x0.shape[0]
    if mode == MODE_PAIRS and 0 < P < 2**31:
        return _angle_sweep_pairs(x0, x1, pu, pv, c_plus, c_minus)
    alpha = np.empty(P)
    for p in range(P):
        dx = x0[pu[p]] - x0[pv[p]]
        dy = x1[pu[p]] - x1[pv[p]]
        a = (math.atan2(dy, dx) + 0.5 * math.pi) % math.pi
        alpha[p] = a if a < math.pi else 0.0
    below = np.zeros(m, dtype=np.int64)
    if P == 0:
        state = np.zeros(0, dtype=np.int8)
        value = _initial_value(state, pu, pv, c_plus, c_minus, mode, pos, cnt, cum, row_cum, below)
        return value, 0.25 * math.pi
    # non-negative doubles sort like their bit patterns: one radix sort, then every
    # per-pair array is gathered once so the sweep reads memory in order
    keys = alpha.view(np.uint64).copy()
    order = np.arange(P)
    radix_sort(keys, order, np.empty_like(keys), np.empty_like(order), 8)
    su = pu[order]
    sv = pv[order]
    sa = alpha[order]
    pairs = mode == MODE_PAIRS
    scp = c_plus[order] if pairs else c_plus
    scm = c_minus[order] if pairs else c_minus
    starts = np.empty(P + 1, dtype=np.int64)
    G = 0
    i = 0
    while i < P:
        starts[G] = i
        G += 1
        a_i = sa[i]
        while i < P and sa[i] <= a_i + 1e-13:
            i += 1
    starts[G] = P
    first = sa[0]
    last = sa[starts[G - 1]]
    theta = 0.5 * (last - math.pi + first) if G > 1 else first - 0.5 * math.pi
    c, sn = math.cos(theta), math.sin(theta)
    state = np.empty(P, dtype=np.int8)
    for k in range(P):
        d = (x0[su[k]] - x0[sv[k]]) * c + (x1[su[k]] - x1[sv[k]]) * sn
        state[k] = 1 if d > 0 else (-1 if d < 0 else 0)
    value = _initial_value(state, su, sv, scp, scm, mode, pos, cnt, cum, row_cum, below)
    best = value
    best_theta = theta
    for half in range(2):
        for g in range(G):
            if pairs:  # pair-additive: a flip trades one credit for the other
                for k in range(starts[g], starts[g + 1]):
                    if state[k] > 0:
                        value += scm[k] - scp[k]
                    else:
                        value += scp[k] - scm[k]
                    state[k] = -state[k]
            else:
                for k in range(starts[g], starts[g + 1]):
                    if state[k] != 0:  # a tied pair stays tied when the direction turns past it
                        value += _pair_shift(mode, su[k], sv[k], state[k], -1, pos, cnt, cum, row_cum, below)
                        state[k] = -state[k]
                        value += _pair_shift(mode, su[k], sv[k], state[k], 1, pos, cnt, cum, row_cum, below)
            if half == 1 and g == G - 1:
                break  # back to the starting arc
            here = sa[starts[g]] + half * math.pi
            nxt = sa[starts[g + 1]] + half * math.pi if g + 1 < G else first + (half + 1) * math.pi
            if value > best + 1e-12 * (1.0 + abs(best)):
                best = value
                best_theta = 0.5 * (here + nxt)
    return best, best_theta


@njit(cache=True)
def _pseudo_angle(dx, dy):
    """A number in [0, 2) increasing with (atan2(dy, dx) + π/2) mod π, without trigonometry.

    The direction is folded to the upper half plane (angle φ ∈ [0, π)); q = dy/(|dx| + dy)
    grows with φ on each quarter, so φ maps to q (dx ≥ 0) or 2 − q (dx < 0); the fold's
    shift by π/2 is a shift by 1 (mod 2).
    """
    if dy < 0.0 or (dy == 0.0 and dx < 0.0):
        dx = -dx
        dy = -dy
    den = abs(dx) + dy
    if den == 0.0:
        return 0.0
    q = dy / den
    ps = q if dx >= 0.0 else 2.0 - q
    return ps + 1.0 if ps < 1.0 else ps - 1.0


@njit(cache=True)
def _true_angle(dx, dy):
    a = (math.atan2(dy, dx) + 0.5 * math.pi) % math.pi
    return a if a < math.pi else 0.0


@njit(cache=True)
def _angle_sweep_pairs(x0, x1, pu, pv, c_plus, c_minus):
    """:func:`angle_sweep` for pair-additive statistics, at a fraction of the memory traffic.

    Pairs are ordered by a trigonometry-free pseudo-angle on 32-bit keys (four radix
    passes instead of eight); runs of equal keys are put in exact order by insertion.
    A flip only trades c_plus for c_minus, so the sweep needs per pair its pseudo-angle
    and signed credit difference, computed in pair order (the rows' features stay in
    cache) and gathered once.  True angles are computed for the few events that bound
    the starting and the best arc.  Equal directions are grouped to 1e-13 (in
    pseudo-angle, 1–2e-13 rad).
    """
    P = pu.shape[0]
    ps = np.empty(P)
    keys = np.empty(P, dtype=np.uint32)
    order = np.empty(P, dtype=np.uint32)
    for p in range(P):
        v = _pseudo_angle(x0[pu[p]] - x0[pv[p]], x1[pu[p]] - x1[pv[p]])
        ps[p] = v
        keys[p] = np.uint32(min(v * 2147483648.0, 4294967295.0))
        order[p] = np.uint32(p)
    radix_sort(keys, order, np.empty_like(keys), np.empty_like(order), 4)
    sa = np.empty(P)
    for k in range(P):
        sa[k] = ps[order[k]]
    k = 0
    while k < P:  # exact order inside runs of equal keys (ties keep pair order)
        j = k + 1
        while j < P and keys[j] == keys[k]:
            j += 1
        for t in range(k + 1, j):
            a_t = sa[t]
            o_t = order[t]
            r = t
            while r > k and (sa[r - 1] > a_t or (sa[r - 1] == a_t and order[r - 1] > o_t)):
                sa[r] = sa[r - 1]
                order[r] = order[r - 1]
                r -= 1
            sa[r] = a_t
            order[r] = o_t
        k = j
    def angle_at(k):
        o = order[k]
        return _true_angle(x0[pu[o]] - x0[pv[o]], x1[pu[o]] - x1[pv[o]])

    def group_end(k):  # directions equal to the one at k, to 1e-13
        j = k + 1
        while j < P and sa[j] <= sa[k] + 1e-13:
            j += 1
        return j

    last_start = 0  # start of the last group
    k = 0
    while k < P:
        last_start = k
        k = group_end(k)
    first = angle_at(0)
    last = angle_at(last_start)
    theta = 0.5 * (last - math.pi + first) if last_start > 0 else first - 0.5 * math.pi
    c, sn = math.cos(theta), math.sin(theta)
    # in pair order: the start's value and what each pair's next flip adds (in ps's memory)
    swing0 = ps
    value = 0.0
    for p in range(P):
        d = (x0[pu[p]] - x0[pv[p]]) * c + (x1[pu[p]] - x1[pv[p]]) * sn
        if d > 0:
            value += c_plus[p]
            swing0[p] = c_minus[p] - c_plus[p]
        elif d < 0:
            value += c_minus[p]
            swing0[p] = c_plus[p] - c_minus[p]
        else:  # the starting arc avoids every event angle; a zero difference never flips
            swing0[p] = 0.0
    swing = np.empty(P)
    for k in range(P):
        swing[k] = swing0[order[k]]
    best = value
    best_half = -1
    best_k = -1
    best_j = -1
    for half in range(2):
        k = 0
        while k < P:
            j = group_end(k)
            for t in range(k, j):
                value += swing[t]
                swing[t] = -swing[t]
            if half == 1 and j == P:
                break  # back to the starting arc
            if value > best + 1e-12 * (1.0 + abs(best)):
                best = value
                best_half = half
                best_k = k
                best_j = j
            k = j
    if best_half < 0:
        return best, theta
    here = angle_at(best_k) + best_half * math.pi
    nxt = angle_at(best_j) + best_half * math.pi if best_j < P else first + (best_half + 1) * math.pi
    return best, 0.5 * (here + nxt)


@njit(cache=True)
def auc_credits(pu, pv, pos, neg, scale):
    """Credits of every pair for the AUC: c_plus = pos_u neg_v s_u, c_minus = pos_v neg_u s_u.

    ``scale`` is each row's 1/(m n) / (number of defined lists), by row (one pass over
    the pairs instead of seven gathers).
    """
    P = pu.shape[0]
    c_plus = np.empty(P)
    c_minus = np.empty(P)
    for p in range(P):
        u = pu[p]
        v = pv[p]
        s = scale[u]
        c_plus[p] = pos[u] * neg[v] * s
        c_minus[p] = pos[v] * neg[u] * s
    return c_plus, c_minus


@njit(cache=True)
def list_pairs(offsets, keep_row, need_both):
    """Pairs (u, v), u < v, of rows of the same list that a statistic compares.

    Parameters
    ----------
    offsets : ndarray of int64
        Lists of the (sorted) distinct rows.
    keep_row : ndarray of bool, shape (m,)
        Rows that can earn credit (positives).
    need_both : ndarray of bool, shape (m,)
        Rows that can be compared against (negatives for AUC); all True for rank risk.

    Returns
    -------
    pu, pv : ndarray of int64
        Pairs with (keep_row[u] and need_both[v]) or (keep_row[v] and need_both[u]).
    """
    total = 0
    for g in range(offsets.shape[0] - 1):
        for u in range(offsets[g], offsets[g + 1]):
            for v in range(u + 1, offsets[g + 1]):
                if (keep_row[u] and need_both[v]) or (keep_row[v] and need_both[u]):
                    total += 1
    pu = np.empty(total, dtype=np.int64)
    pv = np.empty(total, dtype=np.int64)
    k = 0
    for g in range(offsets.shape[0] - 1):
        for u in range(offsets[g], offsets[g + 1]):
            for v in range(u + 1, offsets[g + 1]):
                if (keep_row[u] and need_both[v]) or (keep_row[v] and need_both[u]):
                    pu[k] = u
                    pv[k] = v
                    k += 1
    return pu, pv
