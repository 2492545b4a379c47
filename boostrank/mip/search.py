"""Primal search on the exact statistic: line sweeps from good starts, and the exact 2-D solver.

The statistic of U(w + t·v) is piecewise constant in t with breakpoints at the pairs'
sign changes; :func:`~boostrank._kernels.rank_sweep.line_sweep` finds its best
interval exactly.  The search walks coordinate and random directions from every
start (logistic regression, the warm start, each feature alone, the class-mean
difference), accepting strict improvements, until a full round improves nothing or
the time budget is spent.  In 2-D the angular sweep is an exact solver; in 1-D the
two signs of w are.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .._kernels.rank_sweep import MODE_PAIRS
from ._data import RankData

__all__ = ["SearchResult", "search", "exact_low_dimension"]


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
    """

    w: np.ndarray
    value: float
    origin: str
    improved: bool
    exact: bool
    seconds: float
    lines: int


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
    t0 = time.perf_counter()
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
                        time.perf_counter() - t0, 1)


def search(data: RankData, starts: dict, *, l0: float = 0.0, time_budget: float = 10.0, random_state=0,
           max_rounds: int = 50, patience: int = 30) -> SearchResult:
    """Local search on the exact statistic from named starting directions.

    Parameters
    ----------
    data : RankData
    starts : dict of str -> ndarray (d,)
        Starting directions on the scaled features.
    l0 : float, default=0.0
    time_budget : float, default=10.0
        Seconds; the search stops at its first full round without improvement or here.
    random_state : int, default=0
    max_rounds : int, default=50
        Rounds of line sweeps per walk.
    patience : int, default=30
        Perturbed restarts (w_best plus Gaussian noise of scale 0.05 … 1) without
        improvement before the search stops.

    Returns
    -------
    SearchResult
        The best direction over all starts (ties: the first start listed).
    """
    t0 = time.perf_counter()
    rng = np.random.default_rng(random_state)
    d = data.U.shape[1]
    deadline = t0 + time_budget
    scored = []
    for name, w in starts.items():
        w = _normalise(np.asarray(w, dtype=np.float64))
        scored.append((penalised(data, w, l0), name, w))
    if not scored:
        scored.append((penalised(data, np.zeros(d), l0), "zero", np.zeros(d)))
    order = sorted(range(len(scored)), key=lambda i: -scored[i][0])
    best_val, best_name, best_w = scored[order[0]]
    improved_any = False
    lines = 0
    others = [s[2] for s in scored]

    def walk(w, val):
        nonlocal lines
        improved = False
        eye = np.eye(d)
        for _ in range(max_rounds):
            moved = False
            dirs = [eye[j] for j in rng.permutation(d)] + [rng.normal(size=d) for _ in range(max(2, d // 2))]
            dirs += [o - w for o in others[:3] if np.any(o != w)]
            for v in dirs:
                if time.perf_counter() > deadline:
                    break
                _, t = data.line(w, v)
                lines += 1
                if t == 0.0:
                    continue
                cand = _normalise(w + t * v)
                cand_val = penalised(data, cand, l0)
                if cand_val > val + 1e-12 * (1.0 + abs(val)):
                    w, val, moved, improved = cand, cand_val, True, True
            if l0 > 0:  # the sweeps ignore the penalty: try dropping each feature
                for j in np.flatnonzero(w):
                    cand = w.copy()
                    cand[j] = 0.0
                    cand = _normalise(cand)
                    cand_val = penalised(data, cand, l0)
                    if cand_val > val + 1e-12 * (1.0 + abs(val)):
                        w, val, moved, improved = cand, cand_val, True, True
            if not moved or time.perf_counter() > deadline:
                break
        return w, val, improved

    def better(a, b):
        return a > b + 1e-12 * (1.0 + abs(b))

    # every start walks to a local optimum (best starts first) ...
    for i in order:
        if time.perf_counter() > deadline:
            break
        val, name, w = scored[i]
        w, val, improved = walk(w, val)
        if better(val, best_val):
            best_val, best_name, best_w = val, name, w
            improved_any = improved_any or improved
    # ... then perturbed restarts around the best until `patience` bring nothing
    misses = 0
    while misses < patience and time.perf_counter() < deadline and d > 1:
        sigma = (0.05, 0.2, 0.5, 1.0)[misses % 4]
        w0 = _normalise(best_w + sigma * rng.normal(size=d))
        w, val, _ = walk(w0, penalised(data, w0, l0))
        if better(val, best_val):
            best_val, best_w, improved_any, misses = val, w, True, 0
        else:
            misses += 1
    return SearchResult(best_w, best_val, best_name, improved_any, False, time.perf_counter() - t0, lines)
