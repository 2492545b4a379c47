"""Exact rank statistics by mixed-integer programming (thesis §2.2, Rudin & Wang §4).

Every formulation scores rows linearly, v = wᵀx with −1 ≤ w_j ≤ 1, after scaling
each feature by its largest absolute value (``coef_`` is reported in the caller's
units).  "i above k" is z_ik = 1, allowed only when wᵀ(x_i − x_k) ≥ ε:

    M_ik z_ik ≤ wᵀ(x_i − x_k) + M_ik − ε,   M_ik = ‖x_i − x_k‖₁ + ε

— thesis (2.7)/(2.10) with a per-pair big-M, because the thesis's M = 1 silently
restricts w whenever ‖x_i − x_k‖₁ > 1 − ε.  Identical feature rows are merged with
multiplicities (same optimum, far fewer binaries), and two distinct rows cannot each
be strictly above the other, z_uv + z_vu ≤ 1 (the spirit of (2.21)); the
minimum-rank formulation uses (2.21) as an inequality: rows closer than ε cannot be
separated inside the box, so the thesis's equality can make a model infeasible.
All problems are posed as minimisation of −objective (CBC keeps MIP starts then).
"""

from __future__ import annotations

import math
import os
import re
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import pulp
from sklearn.base import BaseEstimator

from .metrics import auc, rank_risk, wmw
from .weights import weight_family

__all__ = ["MIPResult", "MIPRanker", "build_problem", "solve_problem", "merge_rows"]


@dataclass
class MIPResult:
    """Outcome of a MIP solve, with the statistic recomputed from w.

    Attributes
    ----------
    w : ndarray
        Weights in the caller's feature units.
    status : str
        ``"optimal"``, ``"feasible"`` (stopped at the time limit with an incumbent),
        ``"no solution"`` (stopped with none), ``"infeasible"`` or ``"error"``.
    objective, bound : float or None
        MIP objective of the incumbent and best bound, in the statistic's units
        (AUC in [0, 1], RRF as a sum over positives, minus the L0 penalty).
    gap : float or None
        (bound − objective) / max(|objective|, |bound|): 0 when proven optimal, at
        most 1 for a non-negative statistic.
    statistic : float or None
        The statistic recomputed exactly from w with :mod:`boostrank.metrics`.
    delta : float or None
        Smallest positive score gap between rows the statistic compares (thesis
        §2.2.1: the MIP is exact only when delta ≥ ε).
    mismatch : bool
        The MIP objective disagrees with ``statistic`` (CBC incumbents may
        under-count; a gap below ε may over-count).  Reported, never hidden.
    """

    w: np.ndarray
    status: str
    objective: float | None
    bound: float | None
    gap: float | None
    solve_time: float
    statistic: float | None = None
    delta: float | None = None
    mismatch: bool = False
    n_rows: int = 0
    n_distinct_rows: int = 0
    merged_duplicates: bool = True
    n_binaries: int = 0
    solver: str = "cbc"
    trace: list = field(default_factory=list)
    """CBC only: (seconds, incumbent, bound) as the search went (thesis Fig. 2-6)."""

    def summary(self) -> str:
        def f(v):
            return "-" if v is None else f"{v:.6g}"
        return (f"status={self.status} objective={f(self.objective)} bound={f(self.bound)} gap={f(self.gap)} "
                f"statistic={f(self.statistic)} delta={f(self.delta)} time={self.solve_time:.2f}s "
                f"rows={self.n_rows} distinct={self.n_distinct_rows} binaries={self.n_binaries}"
                + (" MISMATCH" if self.mismatch else ""))


def merge_rows(X, groups, weight):
    """Distinct (group, row) pairs with summed weights of positives and negatives per label.

    Returns
    -------
    U : ndarray (m, d)    distinct rows
    g : ndarray (m,)      their group
    inverse : ndarray (n,) row of each example
    """
    key = np.column_stack([groups.astype(np.float64), X])
    U, inverse = np.unique(key, axis=0, return_inverse=True)
    return U[:, 1:], U[:, 0].astype(np.int64), inverse.reshape(-1)


def _pairs_within(g):
    """All ordered pairs (u, v), u ≠ v, of rows in the same group."""
    out = []
    for grp in np.unique(g):
        idx = np.flatnonzero(g == grp)
        a, b = np.meshgrid(idx, idx, indexing="ij")
        keep = a != b
        out.append(np.column_stack([a[keep], b[keep]]))
    return np.vstack(out) if out else np.zeros((0, 2), dtype=np.int64)


class _Model:
    """A PuLP problem (minimise −objective) plus what is needed to read it back."""

    def __init__(self, name, d, relax):
        self.prob = pulp.LpProblem(name, pulp.LpMinimize)
        self.cat = pulp.LpContinuous if relax else pulp.LpBinary
        self.w = [pulp.LpVariable(f"w{j}", -1, 1) for j in range(d)]
        self.binaries = 0
        self.objective_terms = []
        self.z = {}        # (u, v) -> "u above v" variable, over rows ``self.U``
        self.t = {}        # (u, ell) -> minimum-rank threshold variable
        self.counts = None
        self.gamma = []
        self.offset = 0.0  # constant added to the MIP objective to get the statistic's value
        self.scale = 1.0   # and the factor that normalises it (AUC)

    def binary(self, name):
        self.binaries += 1
        return pulp.LpVariable(name, 0, 1, self.cat)

    def above(self, z, diff, eps):
        """z = 1 only if wᵀdiff ≥ ε (per-pair big-M)."""
        m = float(np.abs(diff).sum()) + eps
        expr = pulp.lpSum(float(c) * self.w[j] for j, c in enumerate(diff) if c != 0)
        self.prob += m * z <= expr + m - eps


def build_problem(*args, **kwargs):
    """Build the PuLP model of one formulation; see :func:`_build_problem` for the parameters."""
    with warnings.catch_warnings():
        # PuLP 3 deprecates ``LpVariable(...)`` for 4.0; we pin pulp<4.
        warnings.simplefilter("ignore", DeprecationWarning)
        return _build_problem(*args, **kwargs)


def _build_problem(X, y, statistic="auc", *, a=None, rank="min", l0=0.0, eps=1e-4, relax=False,
                   groups=None, sample_weight=None, merge=True, pairs=None):
    """Build the PuLP model of one formulation on already scaled features.

    Parameters
    ----------
    X : ndarray (n, d)
    y : ndarray (n,)
        Binary (``y > 0`` positive) for ``"auc"`` and ``"rank_risk"``; graded for
        ``"auc_pi"`` (π_ik = 1[y_i > y_k], thesis §2.2.4).
    statistic : {"auc", "auc_pi", "rank_risk"}
    a : weight family, name or array (rank_risk)
    rank : {"min", "resolved"}
        (2.18) with (2.21)–(2.24), or (2.9) / Rudin–Wang (3)–(15).
    l0 : float
        C of the penalty C‖w‖₀ (binary γ_j ≥ |w_j|); any formulation.
    groups : ndarray (n,), default=None
        Pairs and ranks only within a group (query).
    sample_weight : ndarray (n,), default=None
        Multiplicities of the examples.
    merge : bool
        Merge identical rows (not available for ``rank="resolved"``, whose ranks
        separate identical rows).
    pairs : array (m, 2), default=None
        ``"auc_pi"``: explicit preferred pairs (i above k) instead of graded labels.

    Returns
    -------
    _Model
    """
    n, d = X.shape
    groups = np.zeros(n, dtype=np.int64) if groups is None else np.asarray(groups)
    sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    model = _Model(statistic, d, relax)
    if rank == "resolved" and statistic == "rank_risk":
        merge = False
    if merge:
        U, g, inv = merge_rows(X, groups, sw)
    else:
        U, g, inv = X, groups, np.arange(n)
    m = U.shape[0]
    model.n_distinct = m
    model.U = U
    pos = np.bincount(inv, weights=sw * (y > 0), minlength=m)
    neg = np.bincount(inv, weights=sw * (y <= 0), minlength=m)
    cnt = pos + neg

    if statistic in ("auc", "auc_pi"):
        if statistic == "auc":
            W = {}
            for u, v in _pairs_within(g):
                if pos[u] > 0 and neg[v] > 0:
                    W[(u, v)] = pos[u] * neg[v]
        else:
            W = {}
            if pairs is not None:
                for i, k in np.asarray(pairs, dtype=np.int64).reshape(-1, 2):
                    if groups[i] == groups[k] and inv[i] != inv[k]:
                        W[(inv[i], inv[k])] = W.get((inv[i], inv[k]), 0.0) + sw[i] * sw[k]
            else:
                for grp in np.unique(groups):
                    idx = np.flatnonzero(groups == grp)
                    yi = y[idx]
                    a_, b_ = np.nonzero(yi[:, None] > yi[None, :])
                    for i, k in zip(idx[a_], idx[b_]):
                        if inv[i] != inv[k]:
                            W[(inv[i], inv[k])] = W.get((inv[i], inv[k]), 0.0) + sw[i] * sw[k]
        total = _total_pairs(y, groups, sw, statistic, pairs)
        z = {}
        for (u, v), wt in W.items():
            z[(u, v)] = model.binary(f"z_{u}_{v}")
            model.above(z[(u, v)], U[u] - U[v], eps)
            model.objective_terms.append(wt * z[(u, v)])
        model.z = z
        for (u, v), zz in z.items():
            if u < v and (v, u) in z:
                model.prob += zz + z[(v, u)] <= 1
        model.scale = 1.0 / total if total > 0 else 1.0
    elif statistic == "rank_risk":
        fam = weight_family(a if a is not None else "wrs")
        _rank_risk(model, U, g, pos, neg, cnt, fam, rank, eps, y, groups, sw)
    else:
        raise ValueError(f"statistic must be 'auc', 'auc_pi' or 'rank_risk', got {statistic!r}")

    objective = pulp.lpSum(model.objective_terms)
    if l0 > 0:
        gam = [pulp.LpVariable(f"gamma{j}", 0, 1, model.cat) for j in range(d)]
        model.gamma = gam
        model.binaries += d
        for j in range(d):
            model.prob += gam[j] >= model.w[j]
            model.prob += gam[j] >= -model.w[j]
        # the penalty is in statistic units: scale it back into the MIP's units
        objective = objective - (l0 / model.scale) * pulp.lpSum(gam)
    model.prob += -objective
    return model


def _total_pairs(y, groups, sw, statistic, pairs):
    total = 0.0
    if statistic == "auc_pi" and pairs is not None:
        p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        return float(np.sum(sw[p[:, 0]] * sw[p[:, 1]] * (groups[p[:, 0]] == groups[p[:, 1]])))
    for grp in np.unique(groups):
        idx = groups == grp
        yy, ww = y[idx], sw[idx]
        if statistic == "auc":
            total += ww[yy > 0].sum() * ww[yy <= 0].sum()
        else:
            total += float(np.sum((yy[:, None] > yy[None, :]) * ww[:, None] * ww[None, :]))
    return total


def _rank_risk(model, U, g, pos, neg, cnt, fam, rank, eps, y, groups, sw):
    """(2.18) with (2.21)–(2.24) on merged rows, or (2.9) on examples."""
    objective_const = 0.0
    for grp in np.unique(g):
        rows = np.flatnonzero(g == grp)
        n_list = int(round(cnt[rows].sum()))
        a_vec = fam(n_list)
        a_tilde = np.diff(np.r_[0.0, a_vec])
        S2 = [ell for ell in range(2, n_list + 1) if a_tilde[ell - 1] > 0]
        n_pos = pos[rows].sum()
        objective_const += n_pos * a_vec[0] if n_list else 0.0
        if rank == "min":
            z = {}
            for u in rows:
                if pos[u] == 0:
                    continue
                for v in rows:
                    if v == u or not np.any(U[u] != U[v]):
                        continue  # (2.24): identical rows are never above each other
                    z[(u, v)] = model.binary(f"z_{u}_{v}")
                    model.above(z[(u, v)], U[u] - U[v], eps)
            model.z.update(z)
            model.counts = cnt
            for (u, v), zz in z.items():  # (2.21) between distinct positive rows
                if u < v and (v, u) in z:
                    # "≤ 1", not the thesis's "= 1": with |w_j| ≤ 1, rows closer than ε
                    # cannot be separated, and the equality would make the model infeasible
                    model.prob += zz + z[(v, u)] <= 1
            t_terms = []
            for u in rows:
                if pos[u] == 0:
                    continue
                minrank = pulp.lpSum(float(cnt[v]) * z[(u, v)] for v in rows if (u, v) in z)
                prev = None
                for ell in S2:
                    t = model.binary(f"t_{u}_{ell}")
                    model.t[(u, ell)] = t
                    model.prob += (ell - 1) * t <= minrank  # (2.20)
                    if prev is not None:
                        model.prob += prev >= t  # (2.22)
                    prev = t
                    t_terms.append(float(pos[u] * a_tilde[ell - 1]) * t)
            model.objective_terms.extend(t_terms)
            if t_terms:  # (2.23), tightened to the best possible list: positives on top
                best = float(np.sum(a_vec[n_list - int(round(n_pos)):]) - n_pos * a_vec[0]) if n_pos else 0.0
                model.prob += pulp.lpSum(t_terms) <= best
        else:  # resolved ranks, (2.9) / Rudin-Wang (3)-(15); rows are examples here
            n = len(rows)
            r = {i: pulp.LpVariable(f"r_{i}", 0, n - 1) for i in rows}
            z = {}
            for i in rows:
                for k in rows:
                    if i == k:
                        continue
                    z[(i, k)] = model.binary(f"z_{i}_{k}")
                    diff = U[i] - U[k]
                    model.above(z[(i, k)], diff, eps)  # (2.10) / (4)
                    norm = float(np.abs(diff).sum())
                    if norm > 0:  # (2.11) / (5), scaled so the right side stays ≤ 1
                        model.prob += norm * z[(i, k)] >= pulp.lpSum(
                            float(c) * model.w[j] for j, c in enumerate(diff) if c != 0)
                    model.prob += r[i] - r[k] >= 1 + n * (z[(i, k)] - 1)  # (2.12) / (8)
            for i in rows:
                for k in rows:
                    if i == k:
                        continue
                    tie_break = (pos[i] > 0 and neg[k] > 0) or (i < k and (pos[i] > 0) == (pos[k] > 0))
                    if tie_break:  # (2.13)–(2.15) / (9)–(11)
                        model.prob += r[k] - r[i] >= 1 - n * z[(i, k)]
            for i in rows:
                if pos[i] == 0:
                    continue
                for ell in S2:
                    t = model.binary(f"t_{i}_{ell}")
                    model.prob += (ell - 1) * t <= r[i]  # (2.16) / (12)
                    model.objective_terms.append(float(pos[i] * a_tilde[ell - 1]) * t)
    model.offset = objective_const


_CBC_RESULT = re.compile(r"Result - (.*)")
_CBC_OBJ = re.compile(r"Objective value:\s*(\S+)")
_CBC_BOUND = re.compile(r"Lower bound:\s*(\S+)")


def solve_problem(model: _Model, solver="cbc", time_limit=None, threads=None, mip_gap=None, verbose=False,
                  warm_start=False):
    """Solve; return (status, objective, bound, seconds) in the MIP's maximisation units."""
    prob = model.prob
    t0 = time.perf_counter()
    if solver == "cbc":
        fd, log_path = tempfile.mkstemp(suffix=".log", prefix="boostrank_cbc_")
        os.close(fd)
        with warnings.catch_warnings():
            # PuLP 3 deprecates its bundled CBC for 4.0; we pin pulp<4 and rely on it.
            warnings.simplefilter("ignore", DeprecationWarning)
            cmd = pulp.PULP_CBC_CMD(msg=False, timeLimit=time_limit, threads=threads, gapRel=mip_gap,
                                    logPath=log_path, warmStart=warm_start)
        stop = threading.Event()
        tail = threading.Thread(target=_tail, args=(log_path, stop), daemon=True) if verbose else None
        if tail:
            tail.start()
        try:
            prob.solve(cmd)
        except pulp.PulpSolverError as exc:
            stop.set()
            return "error", None, None, time.perf_counter() - t0, str(exc)
        finally:
            stop.set()
            if tail:
                tail.join()
        secs = time.perf_counter() - t0
        log = open(log_path, encoding="utf-8", errors="replace").read()
        os.unlink(log_path)
        return (*_read_cbc(prob, log), secs, log)
    if solver == "highs":
        import highspy

        if threads is not None:
            highspy.Highs.resetGlobalScheduler(True)
        cmd = pulp.HiGHS(msg=verbose, timeLimit=time_limit, threads=threads, gapRel=mip_gap)
        try:
            prob.solve(cmd)
        except pulp.PulpSolverError as exc:
            return "error", None, None, time.perf_counter() - t0, str(exc)
        secs = time.perf_counter() - t0
        h = prob.solverModel
        st = h.getModelStatus()
        info = h.getInfo()
        has_sol = info.primal_solution_status == 2
        if st == highspy.HighsModelStatus.kOptimal:
            status = "optimal"
        elif st == highspy.HighsModelStatus.kInfeasible:
            status = "infeasible"
        elif has_sol:
            status = "feasible"
        else:
            status = "no solution"
        obj = -info.objective_function_value if has_sol else None
        if status == "optimal":
            bound = obj
        elif math.isfinite(getattr(info, "mip_dual_bound", math.inf)):
            bound = -info.mip_dual_bound
        else:
            bound = None
        return status, obj, bound, secs, ""
    raise ValueError(f"solver must be 'cbc' or 'highs', got {solver!r}")


def _tail(path, stop):
    """Print the CBC log while it is written."""
    pos = 0
    while True:
        done = stop.is_set()
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                fh.seek(pos)
                chunk = fh.read()
                pos = fh.tell()
            if chunk:
                print(chunk, end="", flush=True)
        except OSError:
            pass
        if done:
            return
        time.sleep(0.2)


_CBC_INCUMBENT = re.compile(r"Cbc0012I Integer solution of (\S+) .*\(([\d.]+) seconds\)")
_CBC_PROGRESS = re.compile(r"Cbc0010I After \d+ nodes, \d+ on tree, (\S+) best solution, best possible (\S+) "
                           r"\(([\d.]+) seconds\)")


def _cbc_trace(log):
    """(seconds, incumbent, bound) over time from CBC's log, in maximisation units."""
    out = []
    inc = None
    bound = None
    for line in (log or "").splitlines():
        m = _CBC_INCUMBENT.search(line)
        if m:
            inc = -float(m.group(1))
            out.append((float(m.group(2)), inc, bound))
            continue
        m = _CBC_PROGRESS.search(line)
        if m:
            if m.group(1) not in ("1e+50", "1e+050"):
                inc = -float(m.group(1))
            bound = -float(m.group(2))
            out.append((float(m.group(3)), inc, bound))
    return out


def _read_cbc(prob, log):
    """Status, objective and bound from CBC's own log: PuLP says "Optimal" at a time limit."""
    result = _CBC_RESULT.findall(log)
    result = result[-1].strip() if result else ""
    objs = _CBC_OBJ.findall(log)
    bounds = _CBC_BOUND.findall(log)
    obj = -float(objs[-1]) if objs else None
    if result.startswith("Optimal"):
        return "optimal", obj, obj
    if "infeasible" in result.lower():
        return "infeasible", None, None
    if result.startswith("Stopped"):
        if "No feasible solution" in log or obj is None:
            return "no solution", None, (-float(bounds[-1]) if bounds else None)
        return "feasible", obj, (-float(bounds[-1]) if bounds else None)
    # LP relaxations: CBC prints "Optimal - objective value ..." through clp
    status = pulp.LpStatus.get(prob.status, "Undefined")
    if status == "Optimal":
        val = -pulp.value(prob.objective)
        return "optimal", val, val
    if status == "Infeasible":
        return "infeasible", None, None
    return "error", None, None


class MIPRanker(BaseEstimator):
    """Linear ranker whose weights maximise a rank statistic exactly (thesis §2.2).

    Parameters
    ----------
    statistic : {"auc", "auc_pi", "rank_risk"}, default="auc"
        AUC (2.6); AUC over preference pairs π_ik = 1[y_i > y_k] (thesis §2.2.4);
        a rank risk functional with weights ``a`` (2.18 or 2.9).
    a : str, WeightFamily or array, default=None
        ``rank_risk`` weights (``"dcg@10"``, ``local_auc(5)``, ``"wta"``, ...).
    rank : {"min", "resolved"}, default="min"
    l0 : float, default=0.0
        C of the penalty C‖w‖₀ (Rudin & Wang (3)), in the statistic's units.
    eps : float, default=1e-4
        Margin ε between scores counted as different (on features scaled to
        [−1, 1]); the NOTES of this project found 1e-4 reliable with CBC and HiGHS.
    relax : bool, default=False
        Solve the LP relaxation instead (its objective bounds the MIP's).
    solver : {"cbc", "highs"}, default="cbc"
    time_limit : float, default=None
        Seconds; at the limit the incumbent is returned with status ``"feasible"``.
    threads, mip_gap : default=None
    merge_duplicates : bool, default=True
    warm_start : {"logistic", None} or array-like, default=None
        Start CBC from this direction (``"logistic"``: the normalised logistic-
        regression w): ``"auc"`` and ``rank="min"``.
    verbose : bool, default=False
        Stream the solver's log.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    result_ : MIPResult
    """

    def __init__(self, statistic="auc", a=None, rank="min", l0=0.0, eps=1e-4, relax=False, solver="cbc",
                 time_limit=None, threads=None, mip_gap=None, merge_duplicates=True, warm_start=None,
                 verbose=False):
        self.statistic = statistic
        self.a = a
        self.rank = rank
        self.l0 = l0
        self.eps = eps
        self.relax = relax
        self.solver = solver
        self.time_limit = time_limit
        self.threads = threads
        self.mip_gap = mip_gap
        self.merge_duplicates = merge_duplicates
        self.warm_start = warm_start
        self.verbose = verbose

    def fit(self, X, y, sample_weight=None, *, qid=None, pairs=None):
        """Solve the MIP on ``X, y``.

        Parameters
        ----------
        X : array-like (n, d)
        y : array-like (n,)
        sample_weight : array-like (n,), default=None
            Multiplicities of the rows.
        qid : array-like (n,), default=None
            Pairs and ranks within each query (one list without it).
        pairs : array-like (m, 2), default=None
            ``statistic="auc_pi"``: explicit (i above k) preference pairs.

        Returns
        -------
        self
        """
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64).reshape(-1)
        if X.ndim != 2 or X.shape[0] != y.shape[0]:
            raise ValueError(f"X has shape {X.shape} but y has {y.shape[0]} entries")
        if not np.isfinite(X).all() or not np.isfinite(y).all():
            raise ValueError("X or y contains NaN or inf")
        if self.rank not in ("min", "resolved"):
            raise ValueError(f"rank must be 'min' or 'resolved', got {self.rank!r}")
        groups = None
        if qid is not None:
            groups = np.unique(np.asarray(qid), return_inverse=True)[1]
        scale = np.abs(X).max(axis=0) if X.shape[0] else np.ones(X.shape[1])
        scale[scale == 0] = 1.0
        Xs = X / scale
        n_rows = X.shape[0]
        if self.statistic in ("auc", "rank_risk") and (np.all(y > 0) or np.all(y <= 0)):
            warnings.warn("y has a single class: every w is optimal; returning w = 0", stacklevel=2)
            self.coef_ = np.zeros(X.shape[1])
            self.result_ = MIPResult(self.coef_, "optimal", None, None, 0.0, 0.0, n_rows=n_rows,
                                     solver=self.solver)
            return self
        model = build_problem(Xs, y, self.statistic, a=self.a, rank=self.rank, l0=self.l0, eps=self.eps,
                              relax=self.relax, groups=groups, sample_weight=sample_weight,
                              merge=self.merge_duplicates, pairs=pairs)
        warm = False
        if self.warm_start is not None and self.solver == "cbc":
            warm = self._set_warm_start(model, X, y, scale)
        status, obj, bound, secs, log = solve_problem(model, self.solver, self.time_limit, self.threads,
                                                     self.mip_gap, self.verbose, warm)
        w_scaled = np.array([v.value() if v.value() is not None else 0.0 for v in model.w])
        has_w = status in ("optimal", "feasible")
        self.coef_ = w_scaled / scale if has_w else np.zeros(X.shape[1])

        def to_stat(v):
            return None if v is None else (v * model.scale + model.offset) if self.statistic != "rank_risk" \
                else v + model.offset
        objective = None if obj is None else to_stat(obj)
        bnd = None if bound is None else to_stat(bound)
        gap = None
        if objective is not None and bnd is not None:
            gap = max(0.0, (bnd - objective) / max(abs(objective), abs(bnd), 1e-12))
        trace = [(t, to_stat(inc), None if bd is None else to_stat(bd)) for t, inc, bd in _cbc_trace(log)]
        res = MIPResult(self.coef_, status, objective, bnd, gap, secs, n_rows=n_rows, trace=trace,
                        n_distinct_rows=getattr(model, "n_distinct", n_rows),
                        merged_duplicates=self.merge_duplicates and not (self.statistic == "rank_risk"
                                                                         and self.rank == "resolved"),
                        n_binaries=model.binaries, solver=self.solver)
        if has_w:
            s = Xs @ w_scaled
            res.statistic = self._statistic(y, s, qid, sample_weight, pairs)
            res.delta = _smallest_gap(s, y, qid)
            if objective is not None and not self.relax:
                penalty = self.l0 * float(np.count_nonzero(np.abs(w_scaled) > 1e-9))
                res.mismatch = abs(res.statistic - penalty - objective) > 1e-6 * max(1.0, abs(objective))
        self.result_ = res
        if status in ("no solution", "infeasible", "error"):
            warnings.warn(f"MIP solve ended with status {status!r}; coef_ is zero", stacklevel=2)
        return self

    def _statistic(self, y, s, qid, sample_weight, pairs):
        if sample_weight is not None:
            rep = np.asarray(sample_weight).astype(np.int64)
            y, s = np.repeat(y, rep), np.repeat(s, rep)
            qid = None if qid is None else np.repeat(np.asarray(qid), rep)
        if self.statistic == "auc":
            return float(auc(y, s, qid, ties="pessimistic"))
        if self.statistic == "auc_pi":
            if pairs is not None:
                p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
                return float(np.mean(s[p[:, 0]] > s[p[:, 1]]))
            return float(wmw(y.astype(np.int64), s, qid, ties="pessimistic", average="pairs"))
        fam = weight_family(self.a if self.a is not None else "wrs")
        per = rank_risk(y, s, fam, rank=self.rank, qid=qid, per_query=True)
        return float(np.sum(per))

    def _set_warm_start(self, model, X, y, scale):
        if self.statistic == "rank_risk" and self.rank == "resolved":
            return False
        if isinstance(self.warm_start, str):
            if self.warm_start != "logistic":
                raise ValueError(f"warm_start must be 'logistic', None or an array, got {self.warm_start!r}")
            from sklearn.linear_model import LogisticRegression

            w0 = LogisticRegression(max_iter=2000).fit(X / scale, y > 0).coef_.ravel()
        else:
            w0 = np.asarray(self.warm_start, dtype=np.float64) * scale
        if not np.any(w0):
            return False
        w0 = w0 / np.abs(w0).max()
        # A complete MIP start (CBC ignores partial ones): z from the score gaps of the
        # merged rows, t from the resulting minimum ranks, γ from the support of w0.
        for j, v in enumerate(model.w):
            v.setInitialValue(float(w0[j]))
        scores = model.U @ w0
        above = {}
        for (u, v), var in model.z.items():
            above[(u, v)] = 1.0 if scores[u] - scores[v] >= self.eps * (1 + 1e-6) else 0.0
            var.setInitialValue(above[(u, v)])
        if model.t:
            minrank = {}
            for (u, v), val in above.items():
                minrank[u] = minrank.get(u, 0.0) + val * model.counts[v]
            for (u, ell), var in model.t.items():
                var.setInitialValue(1.0 if ell - 1 <= minrank.get(u, 0.0) + 1e-9 else 0.0)
        for j, g in enumerate(model.gamma):
            g.setInitialValue(1.0 if w0[j] != 0 else 0.0)
        return True

    def decision_function(self, X) -> np.ndarray:
        """Scores wᵀx."""
        return np.asarray(X, dtype=np.float64) @ self.coef_

    predict = decision_function


def _smallest_gap(s, y, qid):
    """Smallest positive difference between scores in the same list."""
    groups = np.zeros(len(s)) if qid is None else np.asarray(qid)
    best = math.inf
    for g in np.unique(groups):
        v = np.unique(s[groups == g])
        if v.size > 1:
            best = min(best, float(np.min(np.diff(v))))
    return None if best == math.inf else best
