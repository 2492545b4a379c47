"""Primal search on the exact statistic: line sweeps from good starts, and the exact 2-D solver.

The statistic of U(w + t·v) is piecewise constant in t with breakpoints at the pairs'
sign changes; :func:`~boostrank._kernels.rank_sweep.line_sweep` finds its best
interval exactly.  The search walks coordinate and random directions from every
start (logistic regression, the warm start, each feature alone, the class-mean
difference), accepting strict improvements, until a full round improves nothing and
perturbed restarts stop improving: a count of work, so the same data and seed give the same
direction on every machine; a time budget only caps it.  In 2-D the angular sweep is an
exact solver; in 1-D the two signs of w are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._kernels import direction_bnb as _kb
from .budget import work_clock
from .._kernels.config import (BNB_NODES, BNB_RECORDED_PAIRS, BNB_RECORDS, BNB_TOP, BnbLimits, BnbPairs,
                               BnbRecords, BnbStack)
from .._kernels.rank_sweep import MODE_PAIRS
from ._data import RankData

__all__ = ["SearchResult", "BoundResult", "search", "exact_low_dimension", "branch_and_bound", "widest_margin"]

BNB_MAX_NODES = 2_000_000
"""Boxes the branch and bound over directions examines at most (each nested local problem as
many): its limit of work, the same on every machine."""
_CHUNK_WORK = 200_000_000  # pair-coordinates of a chunk's boxes at the root; deeper boxes hold fewer


@dataclass
class SearchResult:
    """Best direction found by the search.

    Attributes
    ----------
    w : ndarray (d,)
        Scaled-feature weights, max |w_j| = 1 (or 0).
    value : float
        The statistic of ``w`` minus the L0 penalty.
    origin : str
        Which start it came from (``"logistic"``, ``"warm start"``, ``"feature 3"`` …).
    improved : bool
        Whether the line search improved on the start.
    exact : bool
        Proven optimal (d ≤ 2).
    seconds : float
    lines : int
        Line sweeps made.
    clocked : bool
        The time budget stopped the search before its counts did (the direction depends
        on the machine's speed).
    """

    w: np.ndarray
    value: float
    origin: str
    improved: bool
    exact: bool
    seconds: float
    lines: int
    clocked: bool = False


def _normalise(w):
    top = np.abs(w).max() if w.size else 0.0
    return w / top if top > 0 else np.zeros_like(w)


def penalised(data: RankData, w, l0: float) -> float:
    """The statistic of w minus l0·‖w‖₀ (Rudin & Wang (3))."""
    value = data.value(w)
    return value - l0 * np.count_nonzero(w) if l0 > 0 else value


def exact_low_dimension(data: RankData, l0: float = 0.0) -> SearchResult | None:
    """The exact optimum over all directions for d ≤ 2, or None for d > 2.

    d = 1: w ∈ {−1, 0, 1}.  d = 2: every arc of the angular sweep, the four axis
    directions and w = 0 (which the L0 penalty can prefer).
    """
    t0 = work_clock()
    d = data.U.shape[1]
    if d > 2:
        return None
    cands = [np.zeros(d)] + [s * np.eye(d)[j] for j in range(d) for s in (1.0, -1.0)]
    if d == 2 and data.pu.size:
        _, w = data.circle()
        # without a penalty, for pair statistics (a tie earns no credit) the sweep has visited
        # the axis directions too: each lies on an arc or on the boundary of two, where the
        # ties it makes can only lose; w = 0 and the sweep remain
        pairwise = data.mode == MODE_PAIRS
        cands = cands[:1] + [_normalise(w)] if l0 == 0 and pairwise else cands + [_normalise(w)]
    vals = [penalised(data, w, l0) for w in cands]
    best = int(np.argmax(vals))
    return SearchResult(cands[best], vals[best], "angular sweep" if d == 2 else "sign", False, True,
                        work_clock() - t0, 1)


def search(data: RankData, starts: dict, *, l0: float = 0.0, time_budget: float | None = None, random_state=0,
           max_rounds: int = 50, patience: int = 30, max_starts: int | None = None) -> SearchResult:
    """Local search on the exact statistic from named starting directions.

    Parameters
    ----------
    data : RankData
    starts : dict of str -> ndarray (d,)
        Starting directions on the scaled features.
    l0 : float, default=0.0
    time_budget : float or None, default=None
        Seconds that cap the search (None: none); it ends by its counts, ``max_rounds``
        and ``patience``, when they come first.
    random_state : int, default=0
    max_rounds : int, default=50
        Rounds of line sweeps per walk.
    patience : int, default=30
        Perturbed restarts (w_best plus Gaussian noise of scale 0.05 … 1) without
        improvement before the search stops.
    max_starts : int or None, default=None
        Walk from the best ``max_starts`` starts only (None: every start).

    Returns
    -------
    SearchResult
        The best direction over all starts (ties: the first start listed).
    """
    t0 = work_clock()
    d = data.U.shape[1]
    scored = []
    for name, w in starts.items():
        w = _normalise(np.asarray(w, dtype=np.float64))
        scored.append((penalised(data, w, l0), name, w))
    if not scored:
        scored.append((penalised(data, np.zeros(d), l0), "zero", np.zeros(d)))
    order = sorted(range(len(scored)), key=lambda i: -scored[i][0])
    best_val, best_name, best_w = scored[order[0]]
    improved_any = False
    walker = _Walker(data, l0, np.random.default_rng(random_state),
                     None if time_budget is None else t0 + time_budget, max_rounds,
                     [s[2] for s in scored])
    # every start walks to a local optimum (best starts first) ...
    for i in order[:max_starts]:
        if walker.out_of_time():
            break
        val, name, w = scored[i]
        w, val, improved = walker.walk(w, val)
        if _better(val, best_val):
            best_val, best_name, best_w = val, name, w
            improved_any = improved_any or improved
    # ... then perturbed restarts around the best until `patience` bring nothing
    misses = 0
    while misses < patience and not walker.out_of_time() and d > 1:
        sigma = (0.05, 0.2, 0.5, 1.0)[misses % 4]
        w0 = _normalise(best_w + sigma * walker.rng.normal(size=d))
        w, val, _ = walker.walk(w0, penalised(data, w0, l0))
        if _better(val, best_val):
            best_val, best_w, improved_any, misses = val, w, True, 0
        else:
            misses += 1
    return SearchResult(best_w, best_val, best_name, improved_any, False, work_clock() - t0, walker.lines,
                        walker.clocked)


def _better(a, b) -> bool:
    return a > b + 1e-12 * (1.0 + abs(b))


class _Walker:
    """One walk of :func:`search`: line sweeps along coordinates, random directions and toward the other
    starts, each move kept when it raises the penalised statistic, until a round moves nothing."""

    def __init__(self, data, l0, rng, deadline, max_rounds, others):
        self.data, self.l0, self.rng, self.deadline = data, l0, rng, deadline
        self.max_rounds, self.others, self.lines = max_rounds, others, 0
        self.clocked = False

    def out_of_time(self) -> bool:
        if self.deadline is not None and work_clock() > self.deadline:
            self.clocked = True
        return self.clocked

    def walk(self, w, val):
        """(w, value, whether it moved) at the local optimum reached from ``w``."""
        improved = False
        for _ in range(self.max_rounds):
            w, val, moved = self._sweep_lines(w, val)
            if self.l0 > 0:  # the sweeps ignore the penalty: try dropping each feature
                w, val, dropped = self._drop_features(w, val)
                moved = moved or dropped
            improved = improved or moved
            if not moved or self.out_of_time():
                break
        return w, val, improved

    def _directions(self, w):
        d = w.shape[0]
        eye = np.eye(d)
        dirs = [eye[j] for j in self.rng.permutation(d)] + [self.rng.normal(size=d) for _ in range(max(2, d // 2))]
        return dirs + [o - w for o in self.others[:3] if np.any(o != w)]

    def _sweep_lines(self, w, val):
        moved = False
        for v in self._directions(w):
            if self.out_of_time():
                break
            _, t = self.data.line(w, v)
            self.lines += 1
            if t == 0.0:
                continue
            cand = _normalise(w + t * v)
            cand_val = penalised(self.data, cand, self.l0)
            if cand_val > val + 1e-12 * (1.0 + abs(val)):
                w, val, moved = cand, cand_val, True
        return w, val, moved

    def _drop_features(self, w, val):
        moved = False
        for j in np.flatnonzero(w):
            cand = w.copy()
            cand[j] = 0.0
            cand = _normalise(cand)
            cand_val = penalised(self.data, cand, self.l0)
            if cand_val > val + 1e-12 * (1.0 + abs(val)):
                w, val, moved = cand, cand_val, True
        return w, val, moved


@dataclass
class BoundResult:
    """Outcome of :func:`branch_and_bound`.

    Attributes
    ----------
    w : ndarray (d,)
        Best direction seen (the start's when nothing beat it), max |w_j| = 1.
    value : float
        Its statistic, recomputed by :meth:`RankData.value`.
    bound : float
        Upper bound on the statistic of every w (≥ ``value``).
    proven : bool
        ``bound`` equals ``value``: the search space is exhausted.
    improved : bool
        The branch and bound found a better w than the start.
    nodes : int
        Boxes examined.
    hyperplanes : int
        Distinct hyperplanes w·D = 0 after merging parallel pair differences.
    seconds : float
    clocked : bool
        The time budget ended it before the proof or ``max_nodes`` did.
    """

    w: np.ndarray
    value: float
    bound: float
    proven: bool
    improved: bool
    nodes: int
    hyperplanes: int
    seconds: float
    clocked: bool = False


def _merge_parallel(D, c_plus, c_minus):
    """Hyperplanes w·D = 0 with parallel differences merged (they share a sign everywhere).

    Each difference is scaled to max |D_j| = 1 with its first non-zero coordinate
    positive; a flipped difference swaps its two credits.  Differences equal to 12
    decimals after scaling count as parallel; zero rows (ties for every w) are dropped.
    """
    top = np.abs(D).max(axis=1) if D.size else np.zeros(D.shape[0])
    keep = top > 0
    D, c_plus, c_minus = D[keep] / top[keep, None], c_plus[keep], c_minus[keep]
    if D.shape[0] == 0:
        return np.zeros((0, D.shape[1])), np.zeros(0), np.zeros(0)
    first = np.argmax(D != 0, axis=1)
    flip = D[np.arange(D.shape[0]), first] < 0
    D[flip] *= -1.0
    uniq, inverse = np.unique(np.round(D, 12), axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    a = np.bincount(inverse, np.where(flip, c_minus, c_plus), uniq.shape[0])
    b = np.bincount(inverse, np.where(flip, c_plus, c_minus), uniq.shape[0])
    Dm = np.zeros_like(uniq)  # the mean of the members, so no member is far from it
    np.add.at(Dm, inverse, D)
    Dm /= np.bincount(inverse, minlength=uniq.shape[0])[:, None]
    return np.ascontiguousarray(Dm), a, b


def _credit(D, c_plus, c_minus, w):
    """Σ credits of w on merged hyperplanes; |w·D| within rounding is a tie."""
    s = D @ w
    eta = 1e-12 * np.abs(D).sum(axis=1)
    return float(np.sum(np.where(s > eta, c_plus, 0.0)) + np.sum(np.where(s < -eta, c_minus, 0.0)))


def _local_problem(D, c_plus, c_minus, sub, free, w_star, deadline, min_width, tol):
    """Best sign pattern of the hyperplanes ``sub`` around their common point w*.

    Returns (local bound, candidate w next to w*, its credit over all of D).
    """
    Dl, a, b = _merge_parallel(D[sub][:, free], c_plus[sub], c_minus[sub])
    if free.size == 1:
        vals = [_credit(Dl, a, b, np.array([sg])) for sg in (1.0, -1.0)]
        delta = np.array([1.0 if vals[0] >= vals[1] else -1.0])
        local_bound = max(vals)
    else:
        _, delta, local_bound, _ = _arrangement_search(Dl, a, b, 0.0, np.zeros(free.size), deadline,
                                                       min_width, tol, max_nodes=BNB_MAX_NODES)
    best_w, best_value = None, -np.inf
    top = np.abs(delta).max()
    if top > 0:
        # the cone of the local optimum reaches from w* until another hyperplane cuts it:
        # try steps from well outside the box down to deep inside it
        for step in (1e4, 1e2, 1.0, 1e-2):
            w = w_star.copy()
            w[free] += step * min_width * delta / top
            value = _credit(D, c_plus, c_minus, w)
            if value > best_value:
                best_w, best_value = w, value
    return local_bound, best_w, best_value


def _resolve_point(D, c_plus, c_minus, centre, base, k, idx, best, deadline, min_width, tol, cache):
    """Bound and best candidate of a closed narrow box (kernel units).

    When its undecided hyperplanes share a point w* (to 10⁻¹¹ ‖D‖₁), every cell in
    the box is a cone at w*: the box is bounded by the homogeneous problem of those
    differences restricted to the facet's free coordinates, one dimension less,
    solved by the same branch and bound.  If that does not prune it and no other
    hyperplane passes between w* and the box, each other hyperplane has the sign it
    has at w* all over the box, so the local problem over every hyperplane through
    w* bounds the box by a value reached next to w*.
    """
    d = D.shape[1]
    K = D[idx]
    free = np.array([j for j in range(d) if j != k], dtype=np.int64)
    w_star = centre.copy()  # the common point nearest the box's centre
    w_star[free] += np.linalg.lstsq(K[:, free], -(K @ centre), rcond=None)[0]
    if np.any(np.abs(K @ w_star) > 1e-11 * np.abs(K).sum(axis=1)):
        return base + float(np.maximum(c_plus[idx], c_minus[idx]).sum()), None, -np.inf
    key = (k, idx.tobytes())
    if key not in cache:  # the boxes around one point share its hyperplanes
        cache[key] = _local_problem(D, c_plus, c_minus, idx, free, w_star, deadline, min_width, tol)
    local_bound, w, value = cache[key]
    bound = base + local_bound
    if bound <= best + tol:
        return bound, w, value
    s = D @ w_star
    through = np.abs(s) <= 1e-11 * np.abs(D).sum(axis=1)
    reach = np.linalg.norm(w_star - centre) + 0.5 * np.sqrt(free.size) * min_width
    if np.all(np.abs(s[~through]) > reach * np.linalg.norm(D[~through][:, free], axis=1)):
        sub = np.flatnonzero(through)
        key = (k, sub.tobytes(), np.round(w_star, 12).tobytes())
        if key not in cache:
            cache[key] = _local_problem(D, c_plus, c_minus, sub, free, w_star, deadline, min_width, tol)
        exact_bound, w2, value2 = cache[key]
        bound = min(bound, float(np.sum(np.where(s > 0, c_plus, c_minus)[~through])) + exact_bound)
        if value2 > value:
            w, value = w2, value2
    return bound, w, value


class _BoxSearch:
    """The work arrays of :func:`~boostrank._kernels.direction_bnb.direction_bnb` on one arrangement, grown on
    demand, and the one place that calls it.

    The stack starts with the 2d facets w_k = ±1 of the cube, each box holding every pair.
    """

    def __init__(self, D, c_plus, c_minus, best, w_best, *, pool=None, records=None, stack=None):
        P, d = D.shape
        self.pairs = BnbPairs(D, c_plus, c_minus)
        S = 2 * d + (d - 1) * 40 + 8 if stack is None else max(stack, 2 * d + 2)
        lo, hi = np.empty((S, d)), np.empty((S, d))
        face = np.zeros(S, dtype=np.int64)
        for k in range(d):  # the 2d facets, w_k = ±1
            for side, sign in enumerate((1.0, -1.0)):
                t = 2 * k + side
                lo[t], hi[t] = -1.0, 1.0
                lo[t, k] = hi[t, k] = sign
                face[t] = k
        self.stack = BnbStack(lo, hi, face, np.full(S, -1, dtype=np.int64), np.full(S, P, dtype=np.int64),
                              np.zeros(S), np.full(S, float(np.maximum(c_plus, c_minus).sum())),
                              np.empty(max(4 * P, 64) if pool is None else pool, dtype=np.int64))
        R = min(4096, 16 * P) if records is None else max(records, 2)
        self.records = BnbRecords(np.empty((R, d)), np.empty(R), np.empty(R, dtype=np.int64),
                                  np.zeros(R + 1, dtype=np.int64), np.empty(max(16 * P, 64), dtype=np.int64))
        self.counters = np.zeros(5, dtype=np.int64)
        self.counters[BNB_TOP] = 2 * d
        self.best = np.array([best], dtype=np.float64)
        self.w_best = np.asarray(w_best, dtype=np.float64).copy()

    def run(self, max_nodes, min_width, tol) -> int:
        """Examine up to ``max_nodes`` more boxes; the kernel's status."""
        return _kb.direction_bnb(self.pairs, self.stack, self.counters, self.best, self.w_best,
                                 BnbLimits(max_nodes, min_width, tol), self.records)

    def grow(self) -> None:
        """Double the stack of boxes when the next split would not fit, else the pool of pairs."""
        st = self.stack
        if int(self.counters[BNB_TOP]) + 2 > st.lo.shape[0]:
            grow, d = st.lo.shape
            ints = np.zeros(grow, dtype=np.int64)
            more = np.empty((grow, d))
            self.stack = st._replace(lo=np.vstack([st.lo, more]), hi=np.vstack([st.hi, more]),
                                     face=np.r_[st.face, ints], node_list=np.r_[st.node_list, ints],
                                     node_len=np.r_[st.node_len, ints], node_base=np.r_[st.node_base, ints * 0.0],
                                     node_ub=np.r_[st.node_ub, ints * 0.0])
        else:
            self.stack = st._replace(pool=np.r_[st.pool, np.empty(st.pool.shape[0], dtype=np.int64)])

    def closed_boxes(self):
        """(centre, decided credit, facet, undecided pairs) of each box recorded since the last reset."""
        rec = self.records
        for r in range(int(self.counters[BNB_RECORDS])):
            yield rec.w[r].copy(), rec.base[r], int(rec.face[r]), rec.idx[rec.start[r]:rec.start[r + 1]]

    def reset_records(self, min_pairs) -> None:
        """Empty the records, with room for at least ``min_pairs`` undecided pairs."""
        if self.records.idx.shape[0] < min_pairs:  # one box's pairs did not fit
            self.records = self.records._replace(idx=np.empty(min_pairs, dtype=np.int64))
        self.counters[BNB_RECORDS] = self.counters[BNB_RECORDED_PAIRS] = 0

    def open_bound(self, tol) -> float:
        """The largest bound of the boxes still on the stack above the best value."""
        ub = self.stack.node_ub[:int(self.counters[BNB_TOP])]
        return float(ub[ub > self.best[0] + tol].max(initial=-np.inf))


def _arrangement_search(D, c_plus, c_minus, best, w_best, deadline, min_width, tol, *, max_nodes=BNB_MAX_NODES,
                        pool=None, records=None, stack=None):
    """Drive :func:`~boostrank._kernels.direction_bnb.direction_bnb` on one arrangement.

    Returns (best value, its w, bound, boxes examined), in the kernel's units (sums
    of credits over the rows of D).  ``pool``, ``records`` and ``stack`` set the
    initial sizes of the work arrays (they grow on demand).

    The kernel runs in chunks of boxes, and the narrow boxes each chunk closes are
    resolved between chunks, which can raise the incumbent that prunes the next ones: the
    chunk sizes (64 boxes, doubling up to a cap set by the arrangement's size) never depend
    on the clock, so the boxes examined and the direction returned are the same on every
    machine.
    """
    P, d = D.shape
    if P == 0:
        return best, np.asarray(w_best, dtype=np.float64).copy(), best, 0
    run = _BoxSearch(D, c_plus, c_minus, best, w_best, pool=pool, records=records, stack=stack)
    closed = -np.inf
    cache = {}
    # the first chunks are small (an early incumbent from the closed boxes prunes the most), then each doubles up
    # to a cap set by the arrangement's size (a box costs O(P d) near the root)
    chunk, cap = 64, int(np.clip(_CHUNK_WORK // (P * d), 64, 1 << 16))
    while True:
        left = max_nodes - int(run.counters[BNB_NODES])
        if left <= 0:
            break
        status = run.run(min(chunk, left), min_width, tol)
        if status == _kb.POOL:
            run.grow()
            continue
        for centre, base, face, idx in run.closed_boxes():
            if deadline is not None and work_clock() >= deadline:  # out of time: keep its bound
                closed = max(closed, base + float(np.maximum(c_plus[idx], c_minus[idx]).sum()))
                continue
            bound_r, w_r, value_r = _resolve_point(D, c_plus, c_minus, centre, base, face, idx, run.best[0],
                                                   deadline, min_width, tol, cache)
            closed = max(closed, bound_r)
            if w_r is not None and value_r > run.best[0]:
                run.best[0] = value_r
                run.w_best[:] = w_r
        run.reset_records(2 * P if status == _kb.RECORDS else 0)
        if status == _kb.DONE or (deadline is not None and work_clock() >= deadline):
            break
        if status == _kb.BUDGET:
            chunk = min(2 * chunk, cap)
    best = float(run.best[0])
    return best, run.w_best, max(best, closed, run.open_bound(tol)), int(run.counters[BNB_NODES])


MAX_BNB_PAIRS = 2_000_000
"""Most pairs the branch and bound takes: it holds one hyperplane of d floats per pair and
sorts them to merge parallel ones (10⁴ rows, 2.5·10⁷ pairs: 5.4 GB before the bound)."""
_MERGE_SECONDS_PER_PAIR = 2e-6  # measured: 2.5·10⁷ pairs, d = 3, merged in 53 s


def branch_and_bound(data: RankData, w0=None, *, time_budget: float | None = None,
                     max_nodes: int = BNB_MAX_NODES, min_width: float = 1e-9) -> BoundResult | None:
    """The exact optimum of a pair statistic over all directions, or a bound on it.

    Depth-first branch and bound over boxes on the facets of the cube |w|∞ = 1
    (:mod:`boostrank._kernels.direction_bnb`): a box's bound counts every pair whose
    sign the box fixes, plus the larger credit of every other pair; its centre is a
    candidate.  Boxes narrowed to ``min_width`` around a point where hyperplanes meet
    are solved as the homogeneous problem one dimension down.  It either exhausts the
    directions (``proven``) or, after ``max_nodes`` boxes (or the time budget, when that
    comes first), returns the largest bound of the boxes left open.  Pair statistics only (AUC, AUC_π;
    ``data.mode == MODE_PAIRS``); rank risk returns None.

    This is the exact problem the MIP (thesis (2.6)) approximates with a margin ε:
    ties earn nothing and the optimum is taken over the open cells of the hyperplane
    arrangement, so it is at least the MIP's optimum for every ε.

    Parameters
    ----------
    data : RankData
    w0 : ndarray (d,), default=None
        Incumbent direction (the search's best); prunes from the start.
    time_budget : float or None, default=None
        Seconds that cap it (None: none).
    max_nodes : int, default=BNB_MAX_NODES
        Boxes examined at most.
    min_width : float, default=1e-9
        Boxes are not split below this width.

    Returns
    -------
    BoundResult or None
    """
    if data.mode != MODE_PAIRS or data.pu.size > MAX_BNB_PAIRS or (
            time_budget is not None and data.pu.size * _MERGE_SECONDS_PER_PAIR > max(0.5 * time_budget, 0.05)):
        return None  # building and merging the hyperplanes alone would overrun the budget or the memory
    t0 = work_clock()
    d = data.U.shape[1]
    D, c_plus, c_minus = _merge_parallel(data.U[data.pu] - data.U[data.pv], data.c_plus, data.c_minus)
    w_best = _normalise(np.zeros(d) if w0 is None else np.asarray(w0, dtype=np.float64))
    value = float(data.value(w_best))
    total = float(np.maximum(c_plus, c_minus).sum())
    tol = 1e-11 * max(1.0, abs(total))
    deadline = None if time_budget is None else t0 + time_budget
    found, w_found, bound, nodes = _arrangement_search(D, c_plus, c_minus, _credit(D, c_plus, c_minus, w_best),
                                                       w_best, deadline, min_width, tol, max_nodes=max_nodes)
    improved = False
    cand = _normalise(w_found)
    cand_value = float(data.value(cand))
    if cand_value > value:  # re-scored on the rows: the kernel sums merged hyperplanes
        w_best, value, improved = cand, cand_value, True
    bound = max(bound, value)
    proven = bound <= value + tol
    clocked = not proven and nodes < max_nodes and deadline is not None and work_clock() >= deadline
    return BoundResult(w_best, value, bound, proven, improved, nodes, D.shape[0], work_clock() - t0, clocked)


def widest_margin(data: RankData, w, max_pairs: int = 50_000):
    """The direction with the widest margin among those ordering every pair as w does.

    Solves the LP  max t  s.t.  s_p · w·D_p / ‖D_p‖₂ ≥ t  for every pair p that w
    does not tie (s_p its sign under w),  |w_j| ≤ 1.  Every strict order of w is kept
    and pairs it ties may separate either way, so for pair statistics and minimum
    ranks the statistic cannot drop; the caller re-scores anyway.  Branch-and-bound
    centres can lie within 10⁻¹¹ of a cell's side; this moves w to the middle of its
    cell, where a test set's scores are not decided by rounding.

    Returns
    -------
    ndarray (d,) or None
        None when w ties every pair, the LP fails or there are over ``max_pairs``
        distinct hyperplanes.
    """
    from scipy.optimize import linprog

    d = data.U.shape[1]
    w = np.asarray(w, dtype=np.float64)
    if data.pu.size == 0 or data.pu.size > 2 * max_pairs:
        return None
    D = data.U[data.pu] - data.U[data.pv]
    sign = np.sign(D @ w)
    keep = sign != 0
    if not keep.any():
        return None
    G = D[keep] * sign[keep, None]
    G = np.unique(np.round(G / np.linalg.norm(G, axis=1, keepdims=True), 12), axis=0)
    if G.shape[0] > max_pairs:
        return None
    # variables (w, t): minimise −t subject to −G w + t ≤ 0
    A = np.hstack([-G, np.ones((G.shape[0], 1))])
    res = linprog(np.r_[np.zeros(d), -1.0], A_ub=A, b_ub=np.zeros(G.shape[0]),
                  bounds=[(-1.0, 1.0)] * d + [(None, 1.0)], method="highs")
    if res.status != 0 or res.x[d] <= 0:
        return None
    return _normalise(res.x[:d])
