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
from sklearn.utils.validation import check_array

from .._validation import as_1d_float, trusted
from .._compat import HasMethods
from ..base import RANDOM_STATE, VERBOSE, Integral, Interval, RankingEstimator, Real, StrOptions, seed_of
from .._kernels.rank_sweep import MODE_PAIRS
from ._data import STATISTICS, rank_data
from .formulations import build_problem
from .budget import TimeBudget
from ..queries import list_index, list_subset
from .search import SearchResult, branch_and_bound, exact_low_dimension, penalised, search, widest_margin
from .solvers import MIP_NODES, SOLVERS, solve, write_model
from ..exceptions import NothingToRankWarning

__all__ = ["MIPRanker", "MIPResult", "NothingToRankWarning"]


ALGORITHMS = ("auto", "mip", "search")
MAX_MIP_PAIRS = 20_000
"""Past this many compared pairs the MIP runs on a random subset of lists (the search
sees everything): on 145 000 binaries (60 000 pairs of top-10 lists) HiGHS spent 55 s
before its first interrupt check, whatever its time limit."""


_MIN_FEATURE_SCALE = 1e-290  # 1 / scale stays far below the largest float, with room for w

@dataclass
class _Settings:
    """Parameters under their current names, validated once per fit."""

    margin: float
    n_jobs: int | None
    init: object
    algorithm: str
    gain: str
    objective: str


@dataclass
class _Problem:
    """The prepared data every stage shares: built once per fit."""

    X: np.ndarray
    Xs: np.ndarray
    y: np.ndarray
    scale: np.ndarray
    offsets: np.ndarray
    groups: np.ndarray
    sw: np.ndarray
    pairs: object
    data: object
    report: dict


@dataclass
class _Outcome:
    """What the stages found: each fills its own fields; :meth:`MIPRanker._select` picks."""

    exact: object = None
    found: object = None
    bnb: object = None
    sol: object = None
    model: object = None
    subset: object = None
    mip_possible: bool = True
    pair_bnb: bool = False
    solver_follows: bool = True
    logistic_value: float | None = None
    search_time: float = 0.0
    build_time: float = 0.0
    clocked: bool = False  # the time limit cut or skipped a stage


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
        ``"warm start"`` (a start as given: logistic regression, ``init``, a
        feature alone).
    objective : float or None
        The solver's incumbent in the statistic's units (margin ε, minus the L0
        penalty); for the exact sweep its value.
    bound : float or None
        Upper bound on the statistic: the smaller of the branch and bound's (over
        all directions, ties earn nothing) and the MIP's (with margin ε); the exact
        value when proven.
    gap : float or None
        ``(bound − value) / max(|value|, |bound|)``, clipped at 0, where value is the
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
    time_limited : bool
        ``time_limit`` cut or skipped a stage before its own count of work ended it (the
        search's restarts, the branch and bound's boxes, the solver's ``max_nodes``
        nodes).  Only then can the same fit return another w on another run or machine:
        a proven optimum or a fit that ended by its counts is repeatable.
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
    time_limited: bool = False

    def summary(self) -> str:
        """One line: status, source, values, bound, gap and sizes."""
        def f(v):
            return "-" if v is None else f"{v:.6g}"
        text = (f"status={self.status} source={self.source} statistic={f(self.statistic)} "
                f"objective={f(self.objective)} bound={f(self.bound)} gap={f(self.gap)} "
                f"logistic={f(self.logistic_statistic)} delta={f(self.delta)} time={self.solve_time:.2f}s "
                f"rows={self.n_rows} distinct={self.n_distinct_rows} binaries={self.n_binaries}")
        return text + (" time-limited" if self.time_limited else "")


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


class MIPRanker(RankingEstimator):
    """Linear ranker whose weights maximise a rank statistic exactly (thesis §2.2).

    Parameters
    ----------
    objective : {"auc", "auc_pi", "rank_risk"}, default="auc"
        AUC (2.6), the mean over lists with ties counted as misranks; AUC over
        preference pairs π_ik = 1[y_i > y_k] (thesis §2.2.4); a rank risk functional
        with weights ``a`` (2.18 or 2.9), summed over lists.
    a : str, WeightFamily or array, default=None
        ``rank_risk`` weights (``"dcg@10"``, ``local_auc(5)``, ``"wta"`` …; ``"wrs"``).
    rank : {"min", "resolved"}, default="min"
    l0 : float, default=0.0
        C of the penalty C‖w‖₀ (Rudin & Wang (3)), in the statistic's units.
    margin : float, default=1e-4
        Margin ε between scores counted as different (features scaled to [−1, 1]).
        1e-4 was reliable with CBC and HiGHS; at 1e-8 both returned wrong answers.
    relax : bool, default=False
        Solve the LP relaxation instead (its objective bounds the MIP's).
    solver : {"highs", "cbc"} or a PuLP solver object, default="highs"
        HiGHS runs in-process and keeps its time limit; CBC (a subprocess, from
        ``boostrank[cbc]``) can overrun it (its root LP does not check the clock), and
        neither proved the ``benchmarks/mip.py`` models consistently faster.  Any PuLP solver object (``pulp.GUROBI_CMD()``,
        ``pulp.CPLEX_CMD()``, ``pulp.SCIP_CMD()``, ...) solves the same model through PuLP,
        under the fit's time limit.
    time_limit : float or None, default=60.0
        Seconds the whole fit may take at most, not counting Numba's compiles on a first run
        (:func:`boostrank.mip.budget.work_clock`).  Each stage ends by its own count of work (the
        search's rounds and restarts, the branch and bound's ``BNB_MAX_NODES`` boxes, the
        solver's ``MIP_NODES`` nodes), so a fit gives the same w on every machine; the time
        limit only cuts a stage whose work would take longer, and ``result_.time_limited``
        says so.  None: no cap.
    n_jobs : int, default=None
        Solver threads (the solver's default).
    mip_gap : float, default=None
        Relative gap at which the solver stops.
    max_nodes : int, default=MIP_NODES
        Branch-and-bound nodes the MIP solver explores at most (HiGHS ``mip_max_nodes``,
        CBC ``-maxNodes``; a PuLP solver object keeps its own): the solver's count of work,
        the same on every machine.  0: no MIP solve (the search, and for pair statistics
        the branch and bound, decide alone).
    merge_duplicates : bool, default=True
        Merge identical rows of a list (same optimum, fewer binaries).
    init : "auto", "logistic", None or array-like, default="auto"
        Starting directions.  ``"auto"`` and ``"logistic"``: logistic regression and
        every feature alone; an array (in the caller's units) is added to them;
        ``None`` gives the solver no start (for measuring it alone).
    algorithm : {"auto", "mip", "search"}, default="auto"
        ``"auto"``: exact sweep for d ≤ 2; else the search, then (AUC, AUC_π without
        ``l0``) the branch and bound over directions, then the MIP unless the optimum
        is proven; ``"mip"``: the MIP alone (with ``init``); ``"search"``: the
        search and the branch and bound, no MIP solver.
    verbose : int, default=0
        1: a progress bar over the fit's stages; 2: also the solver's log.
    random_state : int or None, default=None
        Seeds the search's random directions (None: a fixed default seed, 0).
    gain : {"auto", "binary", "exponential"}, default="auto"
        Rank risk credit per example: 1[y > 0] (the thesis) or 2^y − 1 (NDCG's gain;
        the same on 0/1 labels; minimum ranks only).  ``"auto"``: exponential with
        minimum ranks, binary with resolved ranks (as :class:`boostrank.TopKReranker`).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    result_ : MIPResult
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0]])
    >>> m = MIPRanker(objective="auc").fit(X, [0, 0, 1, 1])
    >>> m.result_.status, m.result_.statistic
    ('optimal', 1.0)
    """

    _one_list_setting = True  # a statistic of one data set
    _parameter_constraints = {
        "objective": [StrOptions(set(STATISTICS))],
        "a": "no_validation",  # a family name, a WeightFamily or weights: weight_family() checks it in fit
        "rank": [StrOptions({"min", "resolved"})],
        "l0": [Interval(Real, 0, None, closed="left")],
        "margin": [Interval(Real, 0, 1, closed="neither")],
        "relax": ["boolean"],
        "solver": [StrOptions(set(SOLVERS)), HasMethods(["actualSolve"])],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "n_jobs": [Interval(Integral, 1, None, closed="left"), None],
        "mip_gap": [Interval(Real, 0, None, closed="left"), None],
        "max_nodes": [Interval(Integral, 0, None, closed="left")],
        "merge_duplicates": ["boolean"],
        "init": [StrOptions({"auto", "logistic"}), "array-like", None],
        "algorithm": [StrOptions(set(ALGORITHMS))],
        "verbose": VERBOSE,
        "random_state": RANDOM_STATE,
        "gain": [StrOptions({"auto", "binary", "exponential"})],
    }

    def __init__(self, *, objective="auc", a=None, rank="min", l0=0.0, margin=1e-4, relax=False, solver="highs",
                 time_limit=60.0, n_jobs=None, mip_gap=None, max_nodes=MIP_NODES, merge_duplicates=True,
                 init="auto", algorithm="auto", verbose=0, random_state=None, gain="auto"):
        self.objective = objective
        self.a = a
        self.rank = rank
        self.l0 = l0
        self.margin = margin
        self.relax = relax
        self.solver = solver
        self.time_limit = time_limit
        self.n_jobs = n_jobs
        self.mip_gap = mip_gap
        self.max_nodes = max_nodes
        self.merge_duplicates = merge_duplicates
        self.init = init
        self.algorithm = algorithm
        self.verbose = verbose
        self.random_state = random_state
        self.gain = gain

    def _check_params(self) -> _Settings:
        """The parameters, validated."""
        self._validate_params(finite=("time_limit", "l0", "margin"))
        gain = ("binary" if self.rank == "resolved" else "exponential") if self.gain == "auto" else self.gain
        self._objective = self.objective
        return _Settings(margin=self.margin, n_jobs=self.n_jobs, init=self.init, algorithm=self.algorithm,
                         gain=gain, objective=self.objective)

    def fit(self, X, y, *, qid=None, group=None, sample_weight=None, pairs=None):
        """Maximise the statistic on ``X, y``.

        The fit is a pipeline under one time budget: starting directions (logistic
        regression, each feature, ``init``), then the stages that can find or prove an
        optimum (the exact sweep for d ≤ 2, the search, the branch and bound over
        directions, the MIP), each giving a candidate; the best candidate by the
        statistic itself is kept and reported in ``result_``.

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
            Non-negative multiplicities (integers for ``rank_risk``), not all zero.
        pairs : array-like of shape (m, 2), default=None
            ``statistic="auc_pi"``: explicit (i above k) preference pairs.

        Returns
        -------
        self
        """
        from .._kernels.rank_sweep import list_pairs
        from .._kernels.jit import note_first_compile

        note_first_compile("MIP", list_pairs)  # every fit lists its pairs with it (the searches differ)
        settings = self._check_params()
        clock = TimeBudget(self.time_limit)
        prob = self._prepare(X, y, qid, group, sample_weight, pairs, settings)
        if prob.data.pu.size == 0 and not self.relax:
            # nothing to order (one class, one distinct row per list): every w scores the same
            warnings.warn("no pair of rows the statistic compares (a single class or one distinct row per "
                          "list): every w is optimal; returning w = 0", NothingToRankWarning, stacklevel=2)
            return self._report(prob, settings, clock, _Outcome(), trivial=True)
        if self.relax:
            return self._fit_relaxation(prob, settings, clock)
        out = _Outcome()
        with self._progress(4, "MIPRanker") as bar:  # starts, exact sweep or search, branch and bound, solver
            starts = self._starts(prob, settings, out)
            self._exact_stage(prob, settings, out)
            bar.update(1)
            if out.exact is None:
                self._search_stage(prob, settings, clock, starts, out)
                bar.update(1)
                self._bnb_stage(prob, clock, starts, out)
                bar.update(1)
                self._solver_stage(prob, settings, clock, out)
            bar.update(4 - bar.n)
        self._report(prob, settings, clock, out)
        self.result_.time_limited = out.clocked and self.result_.status != "optimal"  # a proof repeats anywhere
        return self

    def write_model(self, path, X, y, *, qid=None, group=None, sample_weight=None, pairs=None) -> None:
        """Write the MIP a fit on ``X, y`` would solve, as MPS (``.mps``) or LP (``.lp``).

        The same model as :meth:`fit` builds (thesis (2.6) and its rank-risk forms, with
        this estimator's statistic, margin and L0 penalty), on all rows: columns
        ``x0 … x{d-1}`` are w on the features scaled to [−1, 1] by their largest
        absolute value (``coef_ = w / scale``), the objective is minimised.  For
        inspecting the model or solving it elsewhere.

        Parameters
        ----------
        path : str or path-like
        X, y, qid, group, sample_weight, pairs
            As in :meth:`fit`.
        """
        settings = self._check_params()
        had = getattr(self, "n_features_in_", None)
        prob = self._prepare(X, y, qid, group, sample_weight, pairs, settings)
        if had is None:
            del self.n_features_in_  # writing a model is not a fit
        else:
            self.n_features_in_ = had
        model = build_problem(prob.Xs, prob.y, self._objective, a=self.a, rank=self.rank, l0=self.l0,
                              eps=settings.margin, groups=prob.groups, sample_weight=prob.sw,
                              merge=self.merge_duplicates, pairs=prob.pairs, gain=settings.gain)
        write_model(model, path)

    # ---------------------------------------------------------------- stages

    def _prepare(self, X, y, qid, group, sample_weight, pairs, settings) -> _Problem:
        """Validated inputs, features scaled to [−1, 1], and the rank data every stage shares."""
        data = self._ranking_data(X, y, qid, group, sample_weight,
                                  features=lambda X: check_array(X, dtype=np.float64, ensure_min_samples=1))
        X, y, offsets = data.X, data.y, data.starts
        self.n_groups_ = data.n_groups  # several lists: score and predict want their qid
        n, d = X.shape
        sw = np.ones(n) if data.sample_weight is None else data.sample_weight
        if self._objective == "rank_risk" and np.any(sw != np.round(sw)):
            raise ValueError("rank_risk needs integer sample_weight (multiplicities of rows)")
        groups = list_index(offsets)
        if pairs is not None:
            pairs = np.asarray(pairs)
            if pairs.size and (pairs.ndim != 2 or pairs.shape[1] != 2 or not np.issubdtype(pairs.dtype, np.integer)
                               or pairs.min() < 0 or pairs.max() >= n):
                raise ValueError(f"pairs must be an (m, 2) array of row indices in [0, {n})")
        self.n_features_in_ = d
        scale = np.abs(X).max(axis=0)
        scale[scale == 0] = 1.0
        tiny = np.flatnonzero(scale < _MIN_FEATURE_SCALE)
        if tiny.size:  # coef_ = w / scale would be inf (features near 1e-310: 'optimal' with coef ±inf)
            raise ValueError(f"feature(s) {tiny[:10].tolist()} have no value above {_MIN_FEATURE_SCALE:g} in "
                             f"absolute value: their coefficients would overflow float64.  Multiply them by a "
                             f"constant (the optimal ranking does not change)")
        Xs = X / scale
        data = rank_data(Xs, y, groups, sw, self._objective, a=self.a, rank=self.rank, pairs=pairs,
                         gain=settings.gain)
        solver = self.solver if isinstance(self.solver, str) else getattr(self.solver, "name", type(self.solver).__name__)
        report = dict(n_rows=n, n_distinct_rows=data.n_distinct, solver=solver,
                      merged_duplicates=self.merge_duplicates and not (self._objective == "rank_risk"
                                                                       and self.rank == "resolved"))
        return _Problem(X, Xs, y, scale, offsets, groups, sw, pairs, data, report)

    def _starts(self, prob, settings, out) -> dict:
        """Starting directions in scaled units: ``init``, logistic regression, every feature alone (±)."""
        d = prob.X.shape[1]
        starts = {}
        if settings.init is not None and not isinstance(settings.init, str):
            w0 = np.asarray(settings.init, dtype=np.float64).reshape(-1)
            if w0.shape[0] != d or not np.isfinite(w0).all():
                raise ValueError(f"init must hold {d} finite weights, got shape {w0.shape}")
            starts["warm start"] = w0 * prob.scale
        logistic = _logistic_starts(prob.Xs, prob.X, prob.y, prob.scale, prob.sw) if settings.init is not None else {}
        starts.update(logistic)
        if settings.algorithm != "mip" and settings.init is not None:
            for j in range(d):
                starts[f"feature {j}"] = np.eye(d)[j]
                starts[f"-feature {j}"] = -np.eye(d)[j]
        out.logistic_value = max((penalised(prob.data, w / max(np.abs(w).max(), 1e-300), self.l0)
                                  for w in logistic.values()), default=None)
        out.solver_follows = settings.algorithm != "search" and self.max_nodes > 0
        out.pair_bnb = (settings.algorithm != "mip" and d > 2 and self.l0 == 0
                        and prob.data.mode == MODE_PAIRS)
        return starts

    def _exact_stage(self, prob, settings, out) -> None:
        """d ≤ 2: the exact sweep over directions proves the optimum by itself."""
        if settings.algorithm == "auto" and prob.X.shape[1] <= 2:
            out.exact = exact_low_dimension(prob.data, self.l0)
            out.found = out.exact

    def _search_stage(self, prob, settings, clock, starts, out) -> None:
        """The primal search from the starts (``algorithm="mip"``: the best start as given)."""
        if not starts:
            return
        t0 = time.perf_counter()
        if settings.algorithm == "mip":
            out.found = search(prob.data, starts, l0=self.l0, max_rounds=0, patience=0)
        else:
            budget = clock.search_share(alone=not (out.solver_follows or out.pair_bnb), before_bnb=out.pair_bnb)
            # a caller that only ranks candidates (TopKReranker's gate) may ask for a shorter search
            counts = getattr(self, "_search_counts", {})
            out.found = search(prob.data, starts, l0=self.l0, time_budget=budget, random_state=seed_of(self.random_state),
                               **counts)
            out.clocked |= out.found.clocked
        out.search_time += time.perf_counter() - t0

    def _bnb_stage(self, prob, clock, starts, out) -> None:
        """The branch and bound over directions (AUC, AUC_π without l0); if it proves nothing, more search."""
        out.subset = list_subset(prob.data.offsets, prob.data.pu, prob.groups, MAX_MIP_PAIRS, seed_of(self.random_state)) if prob.data.pu.size > MAX_MIP_PAIRS \
            else None
        out.mip_possible = prob.data.pu.size <= MAX_MIP_PAIRS or out.subset is not None
        if not out.pair_bnb:
            return
        if clock.expired(0.05):
            out.clocked = True
            return
        mip_follows = out.mip_possible and out.solver_follows
        # without a MIP to follow it has all the time left
        bnb = branch_and_bound(prob.data, None if out.found is None else out.found.w,
                               time_budget=clock.bnb_share(mip_follows))
        if bnb is None:  # too many pairs for the budget or the memory: the search's result stands
            return
        out.bnb = bnb
        out.clocked |= bnb.clocked
        if bnb.improved or out.found is None:
            out.found = SearchResult(bnb.w, bnb.value, "branch and bound", bnb.improved, bnb.proven, bnb.seconds, 0)
        if bnb.proven or not starts:
            return
        if clock.expired(0.1):
            out.clocked = True
            return
        t0 = time.perf_counter()
        more = search(prob.data, {out.found.origin: out.found.w}, l0=self.l0,
                      time_budget=clock.search_after_bnb(mip_follows), random_state=seed_of(self.random_state))
        out.clocked |= more.clocked
        if more.value > out.found.value + 1e-12 * (1 + abs(out.found.value)):
            out.found = SearchResult(more.w, more.value, "search", True, False, more.seconds, more.lines)
        out.search_time += time.perf_counter() - t0

    def _solver_stage(self, prob, settings, clock, out) -> None:
        """The MIP, warm-started from the best w so far, unless an optimum is proven or no time is left."""
        proven = out.bnb is not None and out.bnb.proven
        if not out.solver_follows or proven or not out.mip_possible:
            return
        if clock.expired(0.05):
            out.clocked = True
            return
        t0 = time.perf_counter()
        rows = slice(None) if out.subset is None else out.subset
        groups = prob.groups if out.subset is None else np.unique(prob.groups[out.subset], return_inverse=True)[1]
        out.model = build_problem(prob.Xs[rows], prob.y[rows], self._objective, a=self.a, rank=self.rank,
                                  l0=self.l0, eps=settings.margin, groups=groups, sample_weight=prob.sw[rows],
                                  merge=self.merge_duplicates, pairs=prob.pairs if out.subset is None else None,
                                  gain=settings.gain)
        out.build_time = time.perf_counter() - t0
        start = out.model.start(out.found.w) if out.found is not None else None
        out.sol = solve(out.model, self.solver, time_limit=clock.rest(floor=0.05), threads=settings.n_jobs,
                        mip_gap=self.mip_gap, verbose=int(self.verbose) >= 2, start=start, node_limit=self.max_nodes)
        out.clocked |= out.sol.clocked

    # ------------------------------------------------------ selection and report

    def _select(self, prob, out):
        """The best of the search's, the branch and bound's and the solver's w by the statistic itself."""
        d = prob.X.shape[1]
        cands = []
        if out.found is not None:
            origin = "branch and bound" if out.found.origin == "branch and bound" else "search"
            cands.append((out.found.value, origin if (out.found.improved or out.found.exact) else "warm start",
                          out.found.w))
        if out.sol is not None and out.sol.x is not None:
            w_sol = _snap_zeros(out.sol.x[:d])
            cands.append((penalised(prob.data, w_sol, self.l0), "solver", w_sol))
        if not cands:
            cands.append((penalised(prob.data, np.zeros(d), self.l0), "warm start", np.zeros(d)))
        best = cands[0]
        for c in cands[1:]:  # the solver's w only when strictly better
            if c[0] > best[0] + 1e-12 * (1 + abs(best[0])):
                best = c
        value, source, w = best
        centred = widest_margin(prob.data, w)
        if centred is not None:
            centred_value = penalised(prob.data, centred, self.l0)
            if centred_value >= value - 1e-12 * (1 + abs(value)):
                w, value = centred, max(value, centred_value)
        return value, source, w

    def _status(self, out, value):
        """(status, objective, bound, solver status, solver name) of the stage that decided."""
        if out.exact is not None:
            return "optimal", out.exact.value, out.exact.value, None, "exact"
        if out.bnb is not None and out.bnb.proven:
            return "optimal", out.bnb.value, out.bnb.bound, None, "branch and bound"
        sol, model = out.sol, out.model
        objective = None if sol is None or sol.objective is None else model.to_statistic(sol.objective)
        bound = None if sol is None or sol.bound is None else model.to_statistic(sol.bound)
        if sol is not None and sol.status == "optimal":
            status = "optimal"
        elif sol is not None and sol.status == "error" and out.found is None:
            status = "error"
        else:
            status = "feasible"
        if out.subset is not None:  # the MIP saw some lists only: its numbers are not the full problem's
            objective = bound = None
            status = "feasible"
        if out.bnb is not None and (bound is None or out.bnb.bound < bound):
            bound = out.bnb.bound
        if status == "feasible" and bound is not None and value >= bound - 1e-9 * (1 + abs(bound)):
            status = "optimal"
        return status, objective, bound, None if sol is None else sol.status, self.solver if sol is not None \
            else "none"

    def _report(self, prob, settings, clock, out, trivial=False):
        """``coef_`` and ``result_`` from the selected candidate."""
        d = prob.X.shape[1]
        if trivial:
            value, source, w = prob.data.value(np.zeros(d)), "warm start", np.zeros(d)
            status, objective, bound, solver_status, solver_name = "optimal", value, value, None, None
        else:
            value, source, w = self._select(prob, out)
            status, objective, bound, solver_status, solver_name = self._status(out, value)
            status, bound = _bound_at_least(status, bound, value, out.bnb)
        self.coef_ = w / prob.scale
        gap = None if bound is None else max(0.0, (bound - value) / max(abs(value), abs(bound), 1e-12))
        s = prob.Xs @ w
        exact_value = self._exact(prob.y, s, prob.offsets, prob.sw, prob.pairs, settings.gain)
        if exact_value is None:  # fractional weights: the weighted statistic of the merged rows
            exact_value = prob.data.value(w)
        sol, model = out.sol, out.model
        res = MIPResult(self.coef_, status, objective, bound, gap, clock.elapsed(), statistic=exact_value,
                        delta=None if trivial else _smallest_gap(s, prob.offsets),
                        n_binaries=0 if model is None else model.n_binaries, source=source,
                        build_time=out.build_time, search_time=out.search_time,
                        logistic_statistic=out.logistic_value,
                        search_statistic=None if out.found is None else out.found.value, solver_status=solver_status,
                        trace=[] if sol is None else [(t, model.to_statistic(i), model.to_statistic(b))
                                                      for t, i, b in sol.trace], **prob.report)
        if solver_name is not None:
            res.solver = solver_name
        if out.bnb is not None:
            res.bnb_time, res.bnb_bound = out.bnb.seconds, out.bnb.bound
        res.mip_rows = prob.X.shape[0] if out.subset is None else int(out.subset.size)
        if sol is not None and sol.x is not None and objective is not None:
            own = penalised(prob.data, _snap_zeros(sol.x[:d]), self.l0)
            res.mismatch = abs(own - objective) > 1e-6 * max(1.0, abs(objective))
            proven_elsewhere = out.exact is not None or (out.bnb is not None and out.bnb.proven)
            if res.mismatch and sol.status == "optimal" and not proven_elsewhere:
                # a solver whose "optimal" x scores another statistic than its objective certifies nothing
                res.status = "feasible"
                res.bound = None if out.bnb is None else out.bnb.bound
                res.gap = None if res.bound is None else max(
                    0.0, (res.bound - value) / max(abs(value), abs(res.bound), 1e-12))
                warnings.warn(f"the solver reported an optimum of {objective:.6g} but its w scores {own:.6g}: "
                              f"the result is reported as feasible, not proven", stacklevel=3)
        self.result_ = res
        if sol is not None and sol.status in ("infeasible", "error"):
            # every formulation here is feasible (w = 0, z = 0), so either word is a solver failure
            warnings.warn(f"the MIP solver ended with status {sol.status!r}; coef_ comes from "
                          f"{'the search' if out.found is not None else 'w = 0'}", stacklevel=3)
        return self

    def _fit_relaxation(self, prob, settings, clock):
        model = build_problem(prob.Xs, prob.y, self._objective, a=self.a, rank=self.rank, l0=self.l0,
                              eps=settings.margin, relax=True, groups=prob.groups, sample_weight=prob.sw,
                              merge=self.merge_duplicates, pairs=prob.pairs, gain=settings.gain)
        sol = solve(model, self.solver, time_limit=self.time_limit, threads=settings.n_jobs,
                    verbose=int(self.verbose) >= 2)
        d = prob.X.shape[1]
        w = _snap_zeros(sol.x[:d]) if sol.x is not None else np.zeros(d)
        self.coef_ = w / prob.scale
        objective = None if sol.objective is None else model.to_statistic(sol.objective)
        self.result_ = MIPResult(self.coef_, sol.status, objective, objective, 0.0 if objective is not None else None,
                                 clock.elapsed(), n_binaries=0, source="solver", **prob.report)
        return self

    def _exact(self, y, s, offsets, sw, pairs, gain):
        """The statistic of scores s on the lists ``offsets`` (validated) by :mod:`boostrank.metrics` (the oracle
        the package reports)."""
        from ..metrics.arrays import auc, rank_risk, wmw
        from ..weights import weight_family

        qid = trusted(offsets)
        if np.any(sw != 1):
            rep = np.rint(sw).astype(np.int64)
            if np.any(rep != sw):
                return None  # fractional weights: no row-level metric to recompute with
            y, s = np.repeat(y, rep), np.repeat(s, rep)
            qid = trusted(np.concatenate(([0], np.cumsum(rep)))[offsets])
            if pairs is not None:
                return None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if self._objective == "auc":
                return float(auc(y, s, qid, ties="pessimistic"))
            if self._objective == "auc_pi":
                if pairs is not None:
                    p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
                    q = list_index(offsets)
                    p = p[q[p[:, 0]] == q[p[:, 1]]]
                    return float(np.mean(s[p[:, 0]] > s[p[:, 1]])) if len(p) else None
                return float(wmw(y.astype(np.int64), s, qid, ties="pessimistic", average="pairs"))
            fam = weight_family(self.a if self.a is not None else "wrs")
            return float(np.sum(rank_risk(y, s, fam, rank=self.rank, qid=qid, per_query=True, gain=gain)))

    def decision_function(self, X) -> np.ndarray:
        """Scores wᵀx.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        self._check_fitted()
        X = check_array(X, dtype=np.float64)
        if X.shape[1] != self.coef_.shape[0]:
            raise ValueError(f"X has {X.shape[1]} features, but MIPRanker is expecting {self.coef_.shape[0]} "
                             f"features as input")
        return X @ self.coef_

    predict = decision_function

    def _statistic(self, y, scores, offsets, sample_weight) -> float:
        """The statistic the fit maximises (``objective``; AUC with ties as misranks), by the metrics."""
        sw = np.ones(y.shape[0]) if sample_weight is None else as_1d_float(sample_weight, "sample_weight")
        gain = ("binary" if self.rank == "resolved" else "exponential") if self.gain == "auto" else self.gain
        value = self._exact(y, scores, offsets, sw, None, gain)
        return float("nan") if value is None else value


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


def _bound_at_least(status: str, bound, value: float, bnb):
    """(status, bound): a bound below the statistic a w achieves is no bound (the solver answered wrongly), so
    the fit is feasible, bounded by the branch and bound's where that one holds."""
    if bound is None or value <= bound + 1e-9 * (1 + abs(bound)):
        return status, bound
    warnings.warn(f"the solver's bound {bound:.6g} is below the statistic {value:.6g} that w achieves: its answer "
                  f"is wrong, and the result is reported as feasible, not proven", stacklevel=4)
    return "feasible", bnb.bound if bnb is not None and bnb.bound >= value else None
