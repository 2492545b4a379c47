"""MIPRanker: a linear ranker whose weights maximise a rank statistic (thesis §2.2).

A fit runs, within one time limit: the exact solver when d ≤ 2 (no MIP needed); else
a primal search on the exact statistic from logistic regression, the warm start and
every feature alone (:mod:`boostrank.mip.search`); for pair statistics (AUC, AUC_π)
it is short, and a branch and bound over directions follows that proves the optimum
or bounds it, then, when nothing is proven, more search from the best w; then the
MIP started from the best w so far; then the best of everything by the statistic
recomputed exactly, moved to the middle of its cell (:func:`widest_margin`).  So
``coef_`` never scores below logistic regression or the warm start on the training
statistic, whatever the time limit.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from sklearn.base import BaseEstimator

from .._deprecation import keyword_only_init
from .._validation import as_1d_float, group_offsets
from .._kernels.rank_sweep import MODE_PAIRS
from ._data import STATISTICS, rank_data
from .formulations import build_problem
from .search import SearchResult, branch_and_bound, exact_low_dimension, penalised, search, widest_margin
from .solvers import SOLVERS, solve

__all__ = ["MIPRanker", "MIPResult"]

METHODS = ("auto", "mip", "search")
MAX_MIP_PAIRS = 20_000
"""Past this many compared pairs the MIP runs on a random subset of lists (the search
sees everything): on 145 000 binaries (60 000 pairs of top-10 lists) HiGHS spent 55 s
before its first interrupt check, whatever its time limit."""
BNB_SHARE = 0.4
"""Share of the time left after the search that the branch and bound may use (30 s
without a time limit); the MIP gets the rest when nothing is proven.  When no MIP
can follow (one list with more than ``MAX_MIP_PAIRS`` pairs) it gets all of it."""


def _list_subset(data, groups, random_state):
    """Rows of a random set of lists whose pairs stay within MAX_MIP_PAIRS (None for one list)."""
    n_lists = data.offsets.shape[0] - 1
    if n_lists < 2:
        return None
    row_list = np.repeat(np.arange(n_lists), np.diff(data.offsets))
    per_list = np.bincount(row_list[data.pu], minlength=n_lists)
    order = np.random.default_rng(random_state).permutation(n_lists)
    keep = order[np.cumsum(per_list[order]) <= MAX_MIP_PAIRS]
    if keep.size == 0:
        return None
    return np.flatnonzero(np.isin(groups, keep))


@dataclass
class MIPResult:
    """Outcome of a :class:`MIPRanker` fit.

    Attributes
    ----------
    w : ndarray
        Weights in the caller's feature units (``coef_``).
    status : str
        ``"optimal"`` (proven: by the exact 2-D/1-D solver, the branch and bound
        over directions, or the MIP's bound is reached), ``"feasible"`` (a w
        without proof) or ``"error"`` (the solver failed and there was no search to
        fall back on).  Every formulation is
        feasible (w = 0), so a solver's "infeasible" is reported in
        ``solver_status`` with a warning, never as the fit's status.
    solver_status : str or None
        The solver's own status (``"optimal"``, ``"feasible"``, ``"no solution"``,
        ``"infeasible"``, ``"error"``), None when no solver ran.
    source : str
        What produced w: ``"solver"`` (the MIP), ``"branch and bound"``, ``"search"``
        (the primal search improved on its starts, or the exact sweep) or
        ``"warm start"`` (a start as given: logistic regression, ``warm_start``, a
        feature alone).
    objective : float or None
        The solver's incumbent in the statistic's units (margin ε, minus the L0
        penalty); for the exact sweep its value.
    bound : float or None
        Upper bound on the statistic: the smaller of the branch and bound's (over
        all directions, ties earn nothing) and the MIP's (with margin ε); the exact
        value when proven.
    gap : float or None
        (bound − value) / max(|value|, |bound|), clipped at 0, where value is the
        penalised statistic of ``w``.
    statistic : float or None
        The statistic of ``w`` recomputed exactly from scores (ties are misranks).
    delta : float or None
        Smallest positive score gap in a list under w (the MIP is exact when ≥ ε).
    mismatch : bool
        The solver's objective differs from the statistic of its own w (CBC
        incumbents may under-count; a margin below ε is not counted by the MIP).
    solve_time, build_time, search_time : float
        Seconds in total, building the MIP, and in the search.
    logistic_statistic, search_statistic : float or None
        The statistic of logistic regression and of the search's best w.
    trace : list of (seconds, incumbent, bound)
        CBC's search over time, in the statistic's units.
    bnb_time : float
        Seconds in the branch and bound over directions (0 when it did not run).
    bnb_bound : float or None
        Its bound on the statistic.
    mip_rows : int
        Rows the MIP saw: all of them, or a random subset of lists when the data has
        more than ``MAX_MIP_PAIRS`` compared pairs (then no objective or bound is
        reported: they would be the subset's).
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
    solver: str = "highs"
    source: str = "solver"
    build_time: float = 0.0
    search_time: float = 0.0
    logistic_statistic: float | None = None
    search_statistic: float | None = None
    solver_status: str | None = None
    mip_rows: int = 0
    trace: list = field(default_factory=list)
    bnb_time: float = 0.0
    bnb_bound: float | None = None

    def summary(self) -> str:
        """One line: status, source, values, bound, gap and sizes."""
        def f(v):
            return "-" if v is None else f"{v:.6g}"
        text = (f"status={self.status} source={self.source} statistic={f(self.statistic)} "
                f"objective={f(self.objective)} bound={f(self.bound)} gap={f(self.gap)} "
                f"logistic={f(self.logistic_statistic)} delta={f(self.delta)} time={self.solve_time:.2f}s "
                f"rows={self.n_rows} distinct={self.n_distinct_rows} binaries={self.n_binaries}")
        return text


def _logistic_starts(Xs, X, y, scale, sw):
    """Logistic regression on the caller's, the max-abs scaled and the standardised
    features, each mapped to the scaled units (whichever scaling a user would fit)."""
    from sklearn.linear_model import LogisticRegression

    labels = y > 0 if np.unique(y > 0).size == 2 else y > np.median(y)
    if np.unique(labels).size < 2:
        return {}
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sd = X.std(axis=0)
        sd[sd == 0] = 1.0
        for name, data, to_scaled in (("logistic", X, scale), ("logistic (scaled)", Xs, 1.0),
                                      ("logistic (standardised)", (X - X.mean(axis=0)) / sd, scale / sd)):
            try:
                coef = LogisticRegression(max_iter=1000).fit(data, labels, sample_weight=sw).coef_.ravel()
            except ValueError:
                continue
            out[name] = coef * to_scaled
    return out


class MIPRanker(BaseEstimator):
    """Linear ranker whose weights maximise a rank statistic exactly (thesis §2.2).

    Parameters
    ----------
    statistic : {"auc", "auc_pi", "rank_risk"}, default="auc"
        AUC (2.6), the mean over lists with ties counted as misranks; AUC over
        preference pairs π_ik = 1[y_i > y_k] (thesis §2.2.4); a rank risk functional
        with weights ``a`` (2.18 or 2.9), summed over lists.
    a : str, WeightFamily or array, default=None
        ``rank_risk`` weights (``"dcg@10"``, ``local_auc(5)``, ``"wta"`` …; ``"wrs"``).
    rank : {"min", "resolved"}, default="min"
    l0 : float, default=0.0
        C of the penalty C‖w‖₀ (Rudin & Wang (3)), in the statistic's units.
    eps : float, default=1e-4
        Margin ε between scores counted as different (features scaled to [−1, 1]).
        1e-4 was reliable with CBC and HiGHS; at 1e-8 both returned wrong answers.
    relax : bool, default=False
        Solve the LP relaxation instead (its objective bounds the MIP's).
    solver : {"highs", "cbc"}, default="highs"
        HiGHS runs in-process and keeps its time limit; CBC (a subprocess) overran
        a 1 s limit by 3.6 s on a 33 000-binary model (its root LP does not check the
        clock) and neither proved the ``benchmarks/mip.py`` models consistently faster.
    time_limit : float or None, default=60.0
        Seconds for the whole fit (search and solver); None: the search runs to
        convergence and the solver to optimality.
    threads, mip_gap : default=None
        Passed to the solver.
    merge_duplicates : bool, default=True
        Merge identical rows of a list (same optimum, fewer binaries).
    warm_start : "auto", "logistic", None or array-like, default="auto"
        Starting directions.  ``"auto"`` and ``"logistic"``: logistic regression and
        every feature alone; an array (in the caller's units) is added to them;
        ``None`` gives the solver no start (for measuring it alone).
    method : {"auto", "mip", "search"}, default="auto"
        ``"auto"``: exact sweep for d ≤ 2; else the search, then (AUC, AUC_π without
        ``l0``) the branch and bound over directions, then the MIP unless the optimum
        is proven; ``"mip"``: the MIP alone (with ``warm_start``); ``"search"``: the
        search alone, no solver.
    verbose : bool, default=False
        Stream the solver's log.
    random_state : int, default=0
        Seeds the search's random directions.
    gain : {"binary", "exponential"}, default="binary"
        Rank risk credit per example: 1[y > 0] (the thesis) or 2^y − 1 (NDCG's gain;
        the same on 0/1 labels; minimum ranks only).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    result_ : MIPResult
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0]])
    >>> m = MIPRanker(statistic="auc").fit(X, [0, 0, 1, 1])
    >>> m.result_.status, m.result_.statistic
    ('optimal', 1.0)
    """

    @keyword_only_init
    def __init__(self, *, statistic="auc", a=None, rank="min", l0=0.0, eps=1e-4, relax=False, solver="highs",
                 time_limit=60.0, threads=None, mip_gap=None, merge_duplicates=True, warm_start="auto",
                 method="auto", verbose=False, random_state=0, gain="binary"):
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
        self.method = method
        self.verbose = verbose
        self.random_state = random_state
        self.gain = gain

    def _check_params(self):
        if self.statistic not in STATISTICS:
            raise ValueError(f"statistic must be one of {STATISTICS}, got {self.statistic!r}")
        if self.rank not in ("min", "resolved"):
            raise ValueError(f"rank must be 'min' or 'resolved', got {self.rank!r}")
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        if self.solver not in SOLVERS:
            raise ValueError(f"solver must be one of {sorted(SOLVERS)}, got {self.solver!r}")
        tl = self.time_limit
        if tl is not None and (isinstance(tl, bool) or not isinstance(tl, (int, float)) or not math.isfinite(tl)
                               or tl <= 0):
            raise ValueError(f"time_limit must be a positive number of seconds or None, got {tl!r}")
        if not (isinstance(self.eps, (int, float)) and math.isfinite(self.eps) and 0 < self.eps < 1):
            raise ValueError(f"eps must be in (0, 1), got {self.eps!r}")
        if not (isinstance(self.l0, (int, float)) and math.isfinite(self.l0) and self.l0 >= 0):
            raise ValueError(f"l0 must be a finite number >= 0, got {self.l0!r}")
        if self.gain not in ("binary", "exponential"):
            raise ValueError(f"gain must be 'binary' or 'exponential', got {self.gain!r}")
        if isinstance(self.warm_start, str) and self.warm_start not in ("auto", "logistic"):
            raise ValueError(f"warm_start must be 'auto', 'logistic', None or an array, got {self.warm_start!r}")

    def fit(self, X, y, *, qid=None, group=None, sample_weight=None, pairs=None):
        """Maximise the statistic on ``X, y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        qid : array-like of shape (n_samples,), default=None
            Pairs and ranks within each query; a query's rows must be contiguous.
        group : array-like of int, default=None
            Query sizes in row order, instead of ``qid``.  Without both the rows are one
            list: the data set's AUC or rank risk, Rudin & Wang's own setting (no warning).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative multiplicities (integers for ``rank_risk``).
        pairs : array-like of shape (m, 2), default=None
            ``statistic="auc_pi"``: explicit (i above k) preference pairs.

        Returns
        -------
        self
        """
        t_start = time.perf_counter()
        self._check_params()
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got shape {X.shape}")
        y = as_1d_float(y, "y")
        n, d = X.shape
        if y.shape[0] != n:
            raise ValueError(f"X has {n} rows but y has {y.shape[0]} entries")
        if not np.isfinite(X).all():
            raise ValueError("X contains NaN or inf")
        sw = np.ones(n) if sample_weight is None else as_1d_float(sample_weight, "sample_weight")
        if sw.shape[0] != n or np.any(sw < 0):
            raise ValueError("sample_weight must hold one non-negative weight per row")
        if self.statistic == "rank_risk" and np.any(sw != np.round(sw)):
            raise ValueError("rank_risk needs integer sample_weight (multiplicities of rows)")
        offsets = group_offsets(n, qid=qid, group=group)
        groups = np.repeat(np.arange(offsets.shape[0] - 1), np.diff(offsets)).astype(np.int64)
        if pairs is not None:
            pairs = np.asarray(pairs)
            if pairs.size and (pairs.ndim != 2 or pairs.shape[1] != 2 or not np.issubdtype(pairs.dtype, np.integer)
                               or pairs.min() < 0 or pairs.max() >= n):
                raise ValueError(f"pairs must be an (m, 2) array of row indices in [0, {n})")
        self.n_features_in_ = d
        scale = np.abs(X).max(axis=0) if n else np.ones(d)
        scale[scale == 0] = 1.0
        Xs = X / scale
        data = rank_data(Xs, y, groups, sw, self.statistic, a=self.a, rank=self.rank, pairs=pairs, gain=self.gain)
        base = dict(n_rows=n, n_distinct_rows=data.n_distinct, solver=self.solver,
                    merged_duplicates=self.merge_duplicates and not (self.statistic == "rank_risk"
                                                                     and self.rank == "resolved"))
        if data.pu.size == 0 and not self.relax:
            # nothing to order (one class, one distinct row per list): every w scores the same
            warnings.warn("no pair of rows the statistic compares (a single class or one distinct row per "
                          "list): every w is optimal; returning w = 0", stacklevel=2)
            value = data.value(np.zeros(d))
            self.coef_ = np.zeros(d)
            self.result_ = MIPResult(self.coef_, "optimal", value, value, 0.0, time.perf_counter() - t_start,
                                     statistic=self._exact(y, np.zeros(n), qid, sw, pairs), source="warm start",
                                     **base)
            return self
        if self.relax:
            return self._fit_relaxation(Xs, y, groups, sw, pairs, scale, base, qid, t_start)

        budget = self.time_limit
        deadline = None if budget is None else t_start + budget
        # starting directions, in scaled units
        starts = {}
        if self.warm_start is not None and not isinstance(self.warm_start, str):
            w0 = np.asarray(self.warm_start, dtype=np.float64).reshape(-1)
            if w0.shape[0] != d or not np.isfinite(w0).all():
                raise ValueError(f"warm_start must hold {d} finite weights, got shape {w0.shape}")
            starts["warm start"] = w0 * scale
        logistic = _logistic_starts(Xs, X, y, scale, sw) if self.warm_start is not None else {}
        starts.update(logistic)
        if self.method != "mip" and self.warm_start is not None:
            for j in range(d):
                starts[f"feature {j}"] = np.eye(d)[j]
                starts[f"-feature {j}"] = -np.eye(d)[j]
        lr_value = max((penalised(data, w / max(np.abs(w).max(), 1e-300), self.l0) for w in logistic.values()),
                       default=None)

        exact = None
        found = None
        pair_bnb = self.method == "auto" and d > 2 and self.l0 == 0 and data.mode == MODE_PAIRS
        if self.method == "auto" and d <= 2:
            exact = exact_low_dimension(data, self.l0)
            found = exact
        elif self.method != "mip" and starts:
            left = None if deadline is None else max(0.0, deadline - time.perf_counter())
            # before the branch and bound, which often proves in well under a second, a short search
            first = 0.1 if pair_bnb else 0.25
            share = (2.0 if pair_bnb else 10.0) if left is None else \
                (left if self.method == "search" else max(first * left, 0.1))
            found = search(data, starts, l0=self.l0, time_budget=share, random_state=self.random_state)
        elif starts:  # method="mip": the best start as given
            found = search(data, starts, l0=self.l0, time_budget=0.0, max_rounds=0, patience=0)
        t_search = time.perf_counter() - t_start

        subset = None
        if data.pu.size > MAX_MIP_PAIRS:
            subset = _list_subset(data, groups, self.random_state)
        mip_possible = data.pu.size <= MAX_MIP_PAIRS or subset is not None
        bnb = None
        if pair_bnb and (deadline is None or deadline - time.perf_counter() > 0.05):
            # without a MIP to follow (one list past MAX_MIP_PAIRS) it has all the time left
            share = BNB_SHARE if mip_possible else 1.0
            left = 30.0 if deadline is None else share * (deadline - time.perf_counter())
            bnb = branch_and_bound(data, None if found is None else found.w, time_budget=left)
            if bnb.improved or found is None:
                found = SearchResult(bnb.w, bnb.value, "branch and bound", bnb.improved, bnb.proven, bnb.seconds, 0)
            if not bnb.proven and starts and (deadline is None or deadline - time.perf_counter() > 0.1):
                # not proven: the rest of the search's share, from the best w so far
                t0 = time.perf_counter()
                left = 8.0 if deadline is None else \
                    (deadline - t0) * (0.25 / (1 - BNB_SHARE) if mip_possible else 1.0)
                more = search(data, {found.origin: found.w}, l0=self.l0, time_budget=left,
                              random_state=self.random_state)
                if more.value > found.value + 1e-12 * (1 + abs(found.value)):
                    found = SearchResult(more.w, more.value, "search", True, False, more.seconds, more.lines)
                t_search += time.perf_counter() - t0
        sol = None
        model = None
        build_time = 0.0
        run_solver = exact is None and self.method != "search" and not (bnb is not None and bnb.proven)
        if run_solver and deadline is not None and deadline - time.perf_counter() < 0.05:
            run_solver = False
        run_solver = run_solver and mip_possible
        if run_solver:
            t0 = time.perf_counter()
            rows = slice(None) if subset is None else subset
            sub_groups = groups if subset is None else np.unique(groups[subset], return_inverse=True)[1]
            model = build_problem(Xs[rows], y[rows], self.statistic, a=self.a, rank=self.rank, l0=self.l0,
                                  eps=self.eps, groups=sub_groups, sample_weight=sw[rows],
                                  merge=self.merge_duplicates, pairs=pairs if subset is None else None,
                                  gain=self.gain)
            build_time = time.perf_counter() - t0
            start = model.start(found.w) if found is not None else None
            left = None if deadline is None else max(deadline - time.perf_counter(), 0.05)
            sol = solve(model, self.solver, time_limit=left, threads=self.threads, mip_gap=self.mip_gap,
                        verbose=self.verbose, start=start)

        # the best of the solver's w, the search and the starts, by the exact statistic
        cands = []
        if found is not None:
            origin = "branch and bound" if found.origin == "branch and bound" else "search"
            cands.append((found.value, origin if (found.improved or found.exact) else "warm start", found.w))
        if sol is not None and sol.x is not None:
            w_sol = _snap_zeros(sol.x[:d])
            cands.append((penalised(data, w_sol, self.l0), "solver", w_sol))
        if not cands:
            cands.append((penalised(data, np.zeros(d), self.l0), "warm start", np.zeros(d)))
        best_i = 0
        for i, c in enumerate(cands):  # the solver's w only when strictly better
            if c[0] > cands[best_i][0] + 1e-12 * (1 + abs(cands[best_i][0])):
                best_i = i
        value, source, w_scaled = cands[best_i]
        if not self.relax:
            centred = widest_margin(data, w_scaled)
            if centred is not None:
                centred_value = penalised(data, centred, self.l0)
                if centred_value >= value - 1e-12 * (1 + abs(value)):
                    w_scaled, value = centred, max(value, centred_value)
        self.coef_ = w_scaled / scale

        if exact is not None:
            status, objective, bound, solver_status, solver_name = "optimal", exact.value, exact.value, None, "exact"
        elif bnb is not None and bnb.proven:
            status, objective, bound, solver_status, solver_name = ("optimal", bnb.value, bnb.bound, None,
                                                                    "branch and bound")
        else:
            solver_name = self.solver if sol is not None else "none"
            solver_status = None if sol is None else sol.status
            objective = None if sol is None or sol.objective is None else model.to_statistic(sol.objective)
            bound = None if sol is None or sol.bound is None else model.to_statistic(sol.bound)
            if sol is not None and sol.status == "optimal":
                status = "optimal"
            elif sol is not None and sol.status == "error" and found is None:
                status = "error"
            else:
                status = "feasible"
            if subset is not None:  # the MIP saw some lists only: its numbers are not the full problem's
                objective = bound = None
                status = "feasible"
            if bnb is not None and (bound is None or bnb.bound < bound):
                bound = bnb.bound
            if status == "feasible" and bound is not None and value >= bound - 1e-9 * (1 + abs(bound)):
                status = "optimal"
        gap = None
        if bound is not None:
            gap = max(0.0, (bound - value) / max(abs(value), abs(bound), 1e-12))
        s = Xs @ w_scaled
        exact_value = self._exact(y, s, qid, sw, pairs)
        if exact_value is None:  # fractional weights: the weighted statistic of the merged rows
            exact_value = data.value(w_scaled)
        res = MIPResult(self.coef_, status, objective, bound, gap, time.perf_counter() - t_start,
                        statistic=exact_value, delta=_smallest_gap(s, offsets),
                        n_binaries=0 if model is None else model.n_binaries, source=source, build_time=build_time,
                        search_time=t_search, logistic_statistic=lr_value,
                        search_statistic=None if found is None else found.value, solver_status=solver_status,
                        trace=[] if sol is None else [(t, model.to_statistic(i), model.to_statistic(b))
                                                      for t, i, b in sol.trace], **base)
        res.solver = solver_name
        if bnb is not None:
            res.bnb_time, res.bnb_bound = bnb.seconds, bnb.bound
        res.mip_rows = n if subset is None else int(subset.size)
        if sol is not None and sol.x is not None and objective is not None:
            own = penalised(data, sol.x[:d], self.l0)
            res.mismatch = abs(own - objective) > 1e-6 * max(1.0, abs(objective))
        self.result_ = res
        if sol is not None and sol.status in ("infeasible", "error"):
            # every formulation here is feasible (w = 0, z = 0), so either word is a solver failure
            warnings.warn(f"the MIP solver ended with status {sol.status!r}; coef_ comes from "
                          f"{'the search' if found is not None else 'w = 0'}", stacklevel=2)
        return self

    def _fit_relaxation(self, Xs, y, groups, sw, pairs, scale, base, qid, t_start):
        model = build_problem(Xs, y, self.statistic, a=self.a, rank=self.rank, l0=self.l0, eps=self.eps,
                              relax=True, groups=groups, sample_weight=sw, merge=self.merge_duplicates, pairs=pairs,
                              gain=self.gain)
        sol = solve(model, self.solver, time_limit=self.time_limit, threads=self.threads, verbose=self.verbose)
        d = Xs.shape[1]
        w = _snap_zeros(sol.x[:d]) if sol.x is not None else np.zeros(d)
        self.coef_ = w / scale
        objective = None if sol.objective is None else model.to_statistic(sol.objective)
        self.result_ = MIPResult(self.coef_, sol.status, objective, objective, 0.0 if objective is not None else None,
                                 time.perf_counter() - t_start, n_binaries=0, source="solver", **base)
        return self

    def _exact(self, y, s, qid, sw, pairs):
        """The statistic of scores s by :mod:`boostrank.metrics` (the oracle the package reports)."""
        from ..metrics import auc, rank_risk, wmw
        from ..weights import weight_family

        if np.any(sw != 1):
            rep = np.rint(sw).astype(np.int64)
            if np.any(rep != sw):
                return None  # fractional weights: no row-level metric to recompute with
            y, s = np.repeat(y, rep), np.repeat(s, rep)
            qid = None if qid is None else np.repeat(np.asarray(qid), rep)
            if pairs is not None:
                return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if self.statistic == "auc":
                return float(auc(y, s, qid, ties="pessimistic"))
            if self.statistic == "auc_pi":
                if pairs is not None:
                    p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
                    if qid is not None:
                        q = np.asarray(qid)
                        p = p[q[p[:, 0]] == q[p[:, 1]]]
                    return float(np.mean(s[p[:, 0]] > s[p[:, 1]])) if len(p) else None
                return float(wmw(y.astype(np.int64), s, qid, ties="pessimistic", average="pairs"))
            fam = weight_family(self.a if self.a is not None else "wrs")
            return float(np.sum(rank_risk(y, s, fam, rank=self.rank, qid=qid, per_query=True, gain=self.gain)))

    def decision_function(self, X) -> np.ndarray:
        """Scores wᵀx.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "coef_")
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.coef_.shape[0]:
            raise ValueError(f"X must have {self.coef_.shape[0]} columns, got shape {X.shape}")
        return X @ self.coef_

    predict = decision_function


def _snap_zeros(w):
    """A solver's w with its feasibility-tolerance residue (|w_j| ≤ 1e-9 max|w|) set to 0.

    A weight whose ‖w‖₀ indicator the solver left at 0 can come back as ±1e-17
    (HiGHS 1.16), which would count as a used feature; scores move by at most 1e-9
    of their scale, far inside the formulations' margin ε.
    """
    w = np.array(w, dtype=np.float64)
    w[np.abs(w) <= 1e-9 * np.abs(w).max(initial=0.0)] = 0.0
    return w


def _smallest_gap(s, offsets):
    """Smallest positive difference between scores in the same list."""
    best = math.inf
    for a, b in zip(offsets[:-1], offsets[1:]):
        v = np.unique(s[a:b])
        if v.size > 1:
            best = min(best, float(np.min(np.diff(v))))
    return None if best == math.inf else best
