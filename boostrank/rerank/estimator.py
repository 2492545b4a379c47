"""Two-stage re-ranking: a base ranker's list, then an exact model of its top K (Rudin & Wang §2).

The second stage is a :class:`~boostrank.mip.MIPRanker` fitted on the top K rows of
every training list.  Its defaults carry what real search data taught:

* the base score is a feature of the second stage (``include_base=True``), so
  "keep the base order" is a feasible w and a start of the search: the fitted w is
  never worse than the base order on the training statistic;
* base scores of the training rows must come from a model that did not see their
  query — in-sample scores make the training top K look perfect and the second
  stage learns nothing — so ``base_estimator`` is cross-fitted over queries;
* a held-out gate: the second stage is kept only if it beats the base order on
  held-out queries (``gate`` folds over queries), otherwise the base order is kept
  and ``result_.reason`` says why.  The same folds choose K and the L0 penalty when
  several are given, and between the exact fit, logistic regression on the same
  rows (its start) and their blend: the exact fit scores higher on the training
  statistic, and either can win on held-out lists.
"""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass, field, replace

import numpy as np
from sklearn.base import clone
from sklearn.utils.validation import check_array

from .._validation import as_1d_float, predict_groups, trusted
from .._compat import HasMethods
from ..base import RANDOM_STATE, VERBOSE, Integral, Interval, RankingEstimator, Real, StrOptions, seed_of
from ..mip.budget import TimeBudget
from .crossfit import cross_fit_scores, fit_base, nested_cross_fit_scores, score_base
from .gate import choose
from ..metrics.arrays import auc, get_metric, query_mean, rank_risk
from ..mip._data import STATISTICS
from ..mip.estimator import MIPRanker, NothingToRankWarning
from ..mip.solvers import SOLVERS
from ..queries import list_index, offsets_of, row_folds, subset
from ..weights import weight_family

#: the search of each gate fit: the starts it walks from (the best by their statistic), line-sweep rounds per walk
#: and restarts without a gain before it stops; chosen so that a default fit on MQ2008 (471 lists, 46 features,
#: k = 10 and 20) ends by its counts inside the default time limit (benchmarks/rerank.py).  A walk's work grows with
#: the rows (k × lists) times the features, so larger data may still meet the time limit, which result_ says.
GATE_SEARCH = {"max_starts": 2, "max_rounds": 10, "patience": 2}
#: the final fit's search: the gate's, so the model kept is made the way the gate measured (a longer search fitted
#: the training top K harder and gained less on new lists than the gate had measured: benchmarks/rerank.py part 7)
FINAL_SEARCH = GATE_SEARCH

__all__ = ["TopKReranker", "RerankResult", "top_k_rows", "cross_fit_scores", "refit_estimator"]

#: the least time a second-stage fit gets once the budget is spent: the MIP's search still
#: returns a w (never the solver's first seconds); a floor of whole seconds overran small budgets
_MIN_FIT_SECONDS = 0.1


def top_k_rows(base_scores, offsets, k):
    """Indices of the top ``k`` rows of each list by base score (ties: earlier row first).

    Parameters
    ----------
    base_scores : ndarray of shape (n,)
    offsets : ndarray of int64
        List boundaries.
    k : int or None
        None takes whole lists.

    Returns
    -------
    ndarray of int64
        Row indices, list by list, best first within each list.
    """
    out = []
    for a, b in zip(offsets[:-1], offsets[1:]):
        order = a + np.argsort(-base_scores[a:b], kind="stable")
        out.append(order[: min(k, b - a)] if k is not None else order)
    return np.concatenate(out).astype(np.int64) if out else np.zeros(0, dtype=np.int64)


def _blend(w_exact, w_logistic, Z, rows):
    """The mean of the two second stages' scores, each scaled to unit spread on ``rows``."""
    if w_exact is None or w_logistic is None:
        return w_exact if w_logistic is None else w_logistic
    out = np.zeros_like(w_exact)
    for w in (w_exact, w_logistic):
        sd = float(np.std(Z[rows] @ w))
        if sd > 0:
            out = out + w / sd
    return out


def refit_estimator(model):
    """An unfitted estimator that trains like a fitted first-stage model, for cross-fitting.

    Parameters
    ----------
    model : LambdaRanker, RankNCG or any scikit-learn estimator
        E.g. from ``boostrank predict``'s model files: LightGBM text, XGBoost JSON,
        RankNCG JSON.  Boosters are rebuilt from the parameters their files record
        (objective, rounds, learning rate, leaves / depth, minimum leaf size); a
        LightGBM model trained with a callable objective records ``custom``, and is
        refitted with boostrank's λ-AUC.

    Returns
    -------
    estimator
        Unfitted, with ``fit(X, y, qid=...)`` and ``predict``.
    """
    from ..ranker import ENGINES, LambdaRanker

    booster = getattr(model, "booster_", None)
    if booster is None:
        return clone(model)
    engine = getattr(model, "engine", "lightgbm")
    objective, kw = ENGINES[engine].refit_params(booster)
    return LambdaRanker(engine=engine, objective=objective, **kw)


@dataclass
class _RerankProblem:
    """A fit's validated inputs and base order, built once and passed to every stage."""

    X: np.ndarray
    y: np.ndarray
    offsets: np.ndarray
    base: np.ndarray
    Z: np.ndarray
    base_rank: np.ndarray
    cross_fitted: bool
    gate: int = 0  # the gate's folds (0: no gate)
    row_fold: np.ndarray | None = None  # the gate's fold of every row
    outer: np.ndarray | None = None  # nested gate: each row's base fitted on every other fold
    inner: np.ndarray | None = None  # nested gate: inner[f], the scores fold f's second stage trains on

    @property
    def n(self) -> int:
        return self.X.shape[0]


@dataclass
class _Choice:
    """The held-out gate's pick: the best candidate, every candidate's gain, the corrected p-value."""

    best: tuple
    gains: dict = field(default_factory=dict)
    p_value: float | None = None
    time_limited: bool = False  # the clock cut one of the gate's fits
    mean: float | None = None  # the mean gain per held-out list of choosing (each fold by the other folds' pick)
    se: float | None = None  # its standard error, clustered by fold

    def rejected(self, alpha) -> bool:
        """The gate ran and choosing a second stage did not win on held-out lists."""
        return self.p_value is not None and not (self.mean > 1e-12 and self.p_value < alpha)

    def base_order_result(self, gate, alpha, cross_fitted, seconds) -> "RerankResult":
        kind, k, l0 = self.best
        reason = (f"the held-out gate kept the base order: choosing a second stage (the best, {kind} k={k}) gained "
                  f"{self.mean:+.4g} ± {self.se:.2g} per held-out list over {gate} folds (standard error clustered "
                  f"by fold{_OVERLAP if cross_fitted else ''}), one-sided p = {self.p_value:.3g} (needs a gain with "
                  f"p < {alpha})")
        return RerankResult("base order", reason, k, l0, self.gains, cross_fitted=cross_fitted, seconds=seconds,
                            model=kind, p_value=self.p_value, gate_time_limited=self.time_limited,
                            gate_gain=self.mean, gate_se=self.se)


#: the standard error's correction when the base is refitted per fold, in words (the gate's reasons)
_OVERLAP = ", corrected for the folds' bases fitted on overlapping lists"

#: what the gate's held-out base order was, in words (RerankResult.gate_against)
_AGAINST = {
    "nested": "a base fitted on the other folds, the second stage trained on their cross-fitted scores "
              "(as deployed: the base refitted on every query, the second stage on cross-fitted scores)",
    "cross-fitted": "the cross-fitted base scores (optimistic if the base refitted on every query is stronger)",
    "given": "the base_scores passed",
}


@dataclass
class RerankResult:
    """What :meth:`TopKReranker.fit` decided and why.

    Attributes
    ----------
    status : str
        ``"re-ranked"`` (the second stage is used) or ``"base order"``.
    reason : str
        Why, in words (the held-out gain, no pairs to order, k = 0, ...).
    k : int or None
        Rows re-ranked per list (chosen by the gate's folds when a list was given).
    l0 : float
        L0 penalty (chosen by the folds when ``l0="cv"``).
    heldout_gain : dict
        {(model, k, l0): Σ over held-out lists of statistic(re-ranked) − statistic(base)}
        for model "exact" (the MIP ranker), "logistic" (logistic regression on the same
        top-k rows, the MIP's start) and "blend" (the mean of the two, each scaled to
        unit spread).
    model : str
        The second stage kept: ``"exact"``, ``"logistic"`` or ``"blend"``.
    p_value : float or None
        One-sided t-test of the per-list held-out gains of choosing (each fold's lists
        scored by the candidate the other folds chose), its standard error clustered by
        fold (the lists of a fold share one fitted model) and, with a ``base_estimator``,
        corrected for the folds' models fitted on overlapping lists (Nadeau & Bengio 2003).
    train_base, train_reranked : float or None
        The statistic of the base order and of w on the training top K (ties in w
        count against it, as in the MIP).
    cross_fitted : bool
        Base scores of the training rows came from :func:`cross_fit_scores`.
    mip : MIPResult or None
        The final fit's result.
    seconds : float
    gate_time_limited : bool
        ``time_limit`` cut one of the gate's fits before its own count of work ended it.
    gate_metric : str
        What ``heldout_gain`` is measured in (``TopKReranker.gate_metric`` resolved).
    gate_gain, gate_se : float or None
        The mean gain per held-out list of choosing a second stage (each fold's lists scored by the
        candidate the other folds chose) over the base order, and its standard error (that of
        ``p_value``): the gate's estimate of what the second stage adds per list on new queries
        (None without a gate).
    gate_against : str
        What the held-out base order was: ``"nested"`` (a base fitted on the other folds, the second
        stage trained on their scores cross-fitted among themselves: deployment one level down),
        ``"cross-fitted"`` (the cross-fitted scores on both sides: optimistic when the base refitted
        on every query is stronger than its folds' fits), ``"given"`` (the ``base_scores`` passed:
        exact when the deployed base scores new lists as these were scored), or ``""`` (no gate).
    """

    status: str
    reason: str
    k: int | None
    l0: float
    heldout_gain: dict = field(default_factory=dict)
    train_base: float | None = None
    train_reranked: float | None = None
    cross_fitted: bool = False
    mip: object = None
    seconds: float = 0.0
    model: str = "exact"
    p_value: float | None = None
    gate_time_limited: bool = False
    gate_metric: str = ""
    gate_gain: float | None = None
    gate_se: float | None = None
    gate_against: str = ""

    @property
    def repeatable(self) -> tuple[bool, str]:
        """Whether a fit with the same ``random_state`` on the same data gives this result again, and why not.

        Folds, starts and the engines are seeded, and every stage of an exact fit ends by its
        own count of work; what is not repeatable is a stage cut by ``time_limit``, which keeps
        whatever it had reached, and a faster or busier machine (or another run) reaches
        another.
        """
        mip = self.mip
        if self.gate_time_limited:
            return False, ("time_limit cut a gate fit short: its held-out gains, and so the choice, depend on the "
                           "machine's speed and load; a larger time_limit (or None) makes the fit repeatable")
        if mip is not None and self.model != "logistic" and getattr(mip, "time_limited", False):
            return False, ("time_limit cut the final exact fit short (status " + mip.status + "): it keeps "
                           "whichever w it had reached, which depends on the machine's speed and load; a larger "
                           "time_limit (or None) makes the fit repeatable")
        return True, "every exact fit ended by its own count of work or a proof; folds, starts and engines are seeded"

    def summary(self) -> str:
        """One line: the decision, its reason, what the gate measured against, and the MIP's summary."""
        out = f"{self.status}: {self.reason}"
        if self.gate_against:
            out += f"; the gate's base order: {_AGAINST[self.gate_against]}"
        if self.mip is not None and self.model != "logistic":
            out += f"; MIP: {self.mip.summary()}"
        if not self.repeatable[0]:
            out += "; not repeatable: time-limited"
        return out


class TopKReranker(RankingEstimator):
    """Re-rank the top K of every list with a linear model fitted exactly (Rudin & Wang §2).

    Parameters
    ----------
    k : int, None or list of int, default=20
        Rows re-ranked per list; None re-ranks whole lists; 0 keeps the base order;
        a list is chosen among by the held-out gate's folds.
    objective : {"rank_risk", "auc", "auc_pi"}, default="rank_risk"
        The statistic the second stage maximises on the top ``k`` of each list.
    a : str or WeightFamily, default="dcg@10"
        Rank-risk weights.
    rank : {"min", "resolved"}, default="min"
    l0 : float or "cv", default="cv"
        L0 penalty (Rudin & Wang (3)); ``"cv"`` chooses among 0 and 0.1 %, 1 % of the
        base order's training statistic per feature by the gate's folds.
    include_base : bool, default=True
        Append the base score as the last feature (``coef_[-1]``), so the base order
        is a feasible w and the search's first start.
    base_estimator : estimator or None, default=None
        A first-stage ranker (``fit(X, y, qid=...)``/``predict``); cross-fitted over
        queries when ``base_scores`` are not given, and refitted on all training
        queries to score new lists (``base_estimator_``).
    cv : int, default=5
        Folds of the base's cross-fitting (the scores the final second stage is trained
        on); equal to ``gate``, the gate's folds serve, and no extra base is fitted.
    gate : int, default=5
        Folds of the held-out gate (0: no gate, keep the fitted w): folds of whole
        queries when there are at least 2·gate, else of rows within each list (one
        long list).  With ``base_estimator`` and 3 folds or more the gate is nested, so
        it sees the base as deployment does: on each held-out fold the base is fitted
        on all the other folds (as the deployed base is refitted on every training
        query), and the second stage is trained on those folds' scores cross-fitted
        among themselves (as the final second stage is trained on cross-fitted
        scores).  That costs gate + gate·(gate − 1)/2 base fits (15 at 5 folds, one
        per pair of folds) and the refit.  With ``base_scores`` the gate measures
        against the scores given: exact for a base that scores new lists as it scored
        these (a fixed feature, a frozen model), optimistic for out-of-fold scores of
        a model that is then refitted on more data.
    gate_alpha : float, default=0.05
        The second stage is kept when the per-list held-out gains of choosing one pass a
        one-sided t-test at this level.  Each fold's lists are scored by the candidate
        the other folds chose, since the best candidate's own gains are optimistic (the
        winner of several noisy estimates); the standard error is clustered by fold, since
        a fold's lists share one fitted model.  With ``base_estimator`` the folds' bases are
        fitted on overlapping lists, so their gains move together more than their spread
        shows: the variance is multiplied by 1 + G/(G − 1) (Nadeau & Bengio 2003; 2.25 at
        5 folds).  Without it, the gate keeps learned first stages' re-rankings whose
        held-out gain was noise, and promises more than they give.
    gate_metric : str, default="auto"
        What the gate's held-out gains are measured in: what users report of the
        re-ranked lists.  ``"auto"``: ``ndcg@N`` when ``a`` is ``dcg@N``, ``ndcg`` for
        ``dcg``, ``mrr`` for ``mrr``, else ``ndcg@10`` (so a fit of AUC, or of a rank risk no one reports, is
        kept only when the lists' NDCG@10 gains on held-out queries); ``"fit"``: the fitted
        statistic itself; or any :func:`~boostrank.metrics.get_metric` name (``"map"``,
        ``"p@5"``, ``"auc"``).
    max_nodes : int, default=0
        Branch-and-bound nodes of the final fit's MIP solver (as in
        :class:`~boostrank.mip.MIPRanker`); 0 (the default) keeps the search's w and runs no
        solver: on MQ2008 the MIP ran until the clock stopped it and never raised what the
        gate measures (``benchmarks/rerank.py``).  Set it (say 10 000) for the solver's
        bound and gap.
    margin, solver, n_jobs, mip_gap, init
        As in :class:`~boostrank.mip.MIPRanker`.
    time_limit : float or None, default=60.0
        Seconds the whole fit may take at most, cross-fitting included (Numba's compiles on
        a first run do not count, as in :class:`MIPRanker`).  The gate's fits are the
        search (and for pair statistics the branch and bound) without the MIP solver; the
        final fit adds the MIP.  Every stage ends by its own count of work, so the same data
        and ``random_state`` give the same model on every machine; the time limit caps the
        gate's fits at half of it (each what is left of that half, divided by the fits
        left) and the final fit at the rest, and ``result_.repeatable`` says whether it cut
        one.  Every exact fit gets at least 0.1 s, so a budget spent before the gate (a
        slow ``base_estimator``) is exceeded by about that much per fit.
    random_state : int or None, default=None
        Seeds the folds and the searches (None: a fixed default seed, 0).
    verbose : int, default=0
        1: a progress bar over the gate's and the final exact fits; 2: also the solvers' logs.
    gain : {"auto", "exponential", "binary"}, default="auto"
        Rank-risk credit of a row: 2^y − 1 (NDCG's gain, so graded relevance counts)
        or 1[y > 0]; the same on 0/1 labels.  ``"auto"``: exponential with minimum
        ranks, binary with resolved ranks (which need it).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features + include_base,)
    result_ : RerankResult
    ranker_ : MIPRanker or None
        The final second-stage fit.
    fallback_ : str or None
        ``"base order"`` when the base order is kept.
    base_estimator_ : estimator or None

    Notes
    -----
    :meth:`rerank` always returns a permutation of each list: ties in wᵀx keep base
    order, ties in base score keep input order.

    Examples
    --------
    A weak first stage (one feature) re-ranked on the top 10 of every list:

    >>> import numpy as np, boostrank as br
    >>> data = br.datasets.make_letor(60, random_state=0)
    >>> train, test = data.take_queries(np.arange(40)), data.take_queries(np.arange(40, 60))
    >>> rr = br.TopKReranker(k=10).fit(train.X, train.y, qid=train.qid, base_scores=train.X[:, 0])
    >>> rr.result_.status  # the held-out gate kept the second stage
    're-ranked'
    >>> reranked = rr.predict(test.X, test.X[:, 0], qid=test.qid)
    >>> br.ndcg(test.y, reranked, test.qid, k=10) > br.ndcg(test.y, test.X[:, 0], test.qid, k=10)
    True
    """

    _parameter_constraints = {
        "k": [Interval(Integral, 0, None, closed="left"), None, list, tuple, np.ndarray],  # each entry: _ks
        "objective": [StrOptions(set(STATISTICS))],
        "a": "no_validation",  # a family name, a WeightFamily or weights: weight_family() checks it in fit
        "rank": [StrOptions({"min", "resolved"})],
        "l0": [Interval(Real, 0, None, closed="left"), StrOptions({"cv"})],
        "include_base": ["boolean"],
        "base_estimator": [HasMethods(["fit"]), None],
        "cv": [Interval(Integral, 2, None, closed="left")],
        "gate": [Interval(Integral, 0, None, closed="left")],  # 1 is refused by _ks: a gate needs two folds
        "margin": [Interval(Real, 0, 1, closed="neither")],
        "solver": [StrOptions(set(SOLVERS)), HasMethods(["actualSolve"])],
        "time_limit": [Interval(Real, 0, None, closed="neither"), None],
        "n_jobs": [Interval(Integral, 1, None, closed="left"), None],
        "mip_gap": [Interval(Real, 0, None, closed="left"), None],
        "max_nodes": [Interval(Integral, 0, None, closed="left")],
        "init": [StrOptions({"auto", "logistic"}), "array-like", None],
        "random_state": RANDOM_STATE,
        "verbose": VERBOSE,
        "gain": [StrOptions({"auto", "binary", "exponential"})],
        "gate_alpha": [Interval(Real, 0, 1, closed="neither")],
        "gate_metric": [str],  # "auto", "fit" or a metric name: _gate_metric checks it
    }

    def __init__(self, *, k=20, objective="rank_risk", a="dcg@10", rank="min", l0="cv", include_base=True,
                 base_estimator=None, cv=5, gate=5, margin=1e-4, solver="highs", time_limit=60.0, n_jobs=None,
                 mip_gap=None, max_nodes=0, init="auto", random_state=None, verbose=0, gain="auto",
                 gate_alpha=0.05, gate_metric="auto"):
        self.k = k
        self.objective = objective
        self.a = a
        self.rank = rank
        self.l0 = l0
        self.include_base = include_base
        self.base_estimator = base_estimator
        self.cv = cv
        self.gate = gate
        self.margin = margin
        self.solver = solver
        self.time_limit = time_limit
        self.n_jobs = n_jobs
        self.mip_gap = mip_gap
        self.max_nodes = max_nodes
        self.init = init
        self.random_state = random_state
        self.verbose = verbose
        self.gain = gain
        self.gate_alpha = gate_alpha
        self.gate_metric = gate_metric

    # ------------------------------------------------------------ checks

    def _resolve_params(self) -> None:
        """The parameters, validated once per fit."""
        self._validate_params(finite=("time_limit", "margin", "gate_alpha"))

    def _ks(self):
        ks = list(self.k) if isinstance(self.k, (list, tuple, np.ndarray)) else [self.k]
        for k in ks:
            if k is not None and (isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0):
                raise ValueError(f"k must be a non-negative integer, None or a list of them, got {self.k!r}")
        if not ks:
            raise ValueError("k must not be an empty list")
        gate = self.gate
        if isinstance(gate, bool) or not isinstance(gate, (int, np.integer)) or gate < 0 or gate == 1:
            raise ValueError(f"gate must be 0 (no gate) or a number of folds >= 2, got {gate!r}")
        if not (isinstance(self.gate_alpha, (int, float)) and 0 < self.gate_alpha < 1):
            raise ValueError(f"gate_alpha must be in (0, 1), got {self.gate_alpha!r}")
        return [k if k is None else min(int(k), 2 ** 62) for k in ks]  # k past every list: the whole list

    def _l0s(self, base_value, d):
        if isinstance(self.l0, str):
            if self.l0 != "cv":
                raise ValueError(f"l0 must be a number >= 0 or 'cv', got {self.l0!r}")
            unit = abs(base_value) if base_value else 1.0
            return [0.0, 1e-3 * unit, 1e-2 * unit]
        if not (isinstance(self.l0, (int, float)) and math.isfinite(self.l0) and self.l0 >= 0):
            raise ValueError(f"l0 must be a number >= 0 or 'cv', got {self.l0!r}")
        return [float(self.l0)]

    def _gate_metric(self) -> str:
        """The metric of the gate's held-out gains (``gate_metric``, "auto" resolved)."""
        if self.gate_metric != "auto":
            if self.gate_metric != "fit":
                get_metric(self.gate_metric)  # an unknown name fails here, before any fit
            return self.gate_metric
        if self.objective == "rank_risk" and isinstance(self.a, str):
            a = self.a.strip().lower()
            found = re.fullmatch(r"dcg@(\d+)", a)
            if found:
                return f"ndcg@{found.group(1)}"
            if a.startswith("dcg"):
                return "ndcg"  # DCG of the whole list (or of a share of it): NDCG of the whole list
            if a == "mrr":
                return "mrr"
        return "ndcg@10"

    def _gate_value(self, y, scores, offsets):
        """Each list's gate metric of ``scores`` (0 where undefined)."""
        name = self._gate_metric()
        if name == "fit":
            return self._list_value(y, scores, offsets, per_list=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            per = get_metric(name)(y, scores, trusted(offsets), per_query=True)
        return np.nan_to_num(np.asarray(per, dtype=np.float64))

    def _gain(self):
        if self.gain == "auto":
            return "binary" if self.rank == "resolved" else "exponential"
        return self.gain

    def _features(self, X, base):
        return np.column_stack([X, base]) if self.include_base else X

    def _mip(self, l0, time_limit):
        return MIPRanker(objective=self.objective, a=self.a, rank=self.rank, l0=l0, margin=self.margin,
                         solver=self.solver, time_limit=time_limit, n_jobs=self.n_jobs, mip_gap=self.mip_gap,
                         max_nodes=self.max_nodes,
                         init=self.init, verbose=2 if int(self.verbose) >= 2 else 0,
                         random_state=seed_of(self.random_state), gain=self._gain())

    def _list_value(self, y, scores, offsets, per_list=False):
        """The statistic of ``scores`` per list (rank risk, or AUC with 0 where undefined), or its sum; ``offsets``
        are validated lists or cut from them."""
        qid = trusted(offsets)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if self.objective == "rank_risk":
                per = rank_risk(y, scores, weight_family(self.a), rank=self.rank, qid=qid, per_query=True,
                                gain=self._gain())
            else:
                per = np.nan_to_num(auc(y, scores, qid, ties="pessimistic", per_query=True))
        per = np.asarray(per, dtype=np.float64)
        return per if per_list else float(per.sum())

    # -------------------------------------------------------------- fit

    def fit(self, X, y, *, qid=None, group=None, base_scores=None):
        """Fit the second stage on the top ``k`` rows of each training list.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            ``y > 0`` is relevant.
        base_scores : array-like of shape (n_samples,), default=None
            The first stage's scores of the training rows.  They must not come from a
            model that saw these queries (a warning says when the base order looks
            perfect on nearly every training list); without them ``base_estimator``
            is cross-fitted.
        qid : array-like of shape (n_samples,), default=None
            Contiguous query ids.
        group : array-like of int, default=None
            Query sizes in row order, instead of ``qid``.  Without both, all rows are one
            list and a :class:`boostrank.OneListWarning` says so (``group=[n_samples]``
            re-ranks one list without it).

        Returns
        -------
        self
        """
        self._resolve_params()
        clock = TimeBudget(self.time_limit)
        ks = self._ks()
        prob = self._prepare(X, y, qid, group, base_scores)
        if all(k == 0 for k in ks) or prob.n == 0:
            self.result_ = RerankResult("base order", "k = 0 keeps the base order", 0, 0.0,
                                        cross_fitted=prob.cross_fitted, seconds=clock.elapsed())
            return self
        ks = [k for k in ks if k != 0]
        if not prob.cross_fitted:
            self._warn_in_sample(prob.y, prob.base, prob.offsets, ks[0])
        cands = self._candidates(prob, ks)
        gate = prob.gate
        n_fits = (sum(kind == "exact" for kind, _, _ in cands) * gate) + 1
        from tqdm.auto import tqdm

        with tqdm(total=n_fits, desc="re-ranker", leave=False, disable=None if int(self.verbose) >= 1
                  else True) as bar:
            choice = self._gate(prob, cands, gate, clock, n_fits - 1, bar) if gate else _Choice(cands[0])
            if choice.rejected(self.gate_alpha):
                self.result_ = choice.base_order_result(gate, self.gate_alpha, prob.cross_fitted, clock.elapsed())
                self.result_.gate_metric = self._gate_metric()
                self.result_.gate_against = self._against(prob)
                return self
            w = self._final_fit(prob, choice.best, clock, bar)
        return self._report(prob, choice, w, clock)

    # ---------------------------------------------------------- fit stages

    def _prepare(self, X, y, qid, group, base_scores) -> _RerankProblem:
        """Validated inputs and the base scores: given, or cross-fitted by ``base_estimator``."""
        data = self._ranking_data(X, y, qid, group, features=lambda X: check_array(X, dtype=np.float64))
        X, y, offsets = data.X, data.y, data.starts
        self.n_groups_ = data.n_groups  # several lists: score and predict want their qid
        n, d = X.shape
        self.n_features_in_ = d
        self.base_estimator_ = None
        gate = int(self.gate) if self.gate else 0
        gate = gate if gate >= 2 and n >= 2 * gate else 0
        row_fold = row_folds(offsets, gate, seed_of(self.random_state) + 1) if gate else None
        outer = inner = None
        if base_scores is None:
            if self.base_estimator is None:
                raise ValueError("pass base_scores or set base_estimator (cross-fitted over queries)")
            if gate >= 3:  # two folds leave no inner folds to cross-fit the second stage's scores over
                outer, inner = nested_cross_fit_scores(self.base_estimator, X, y, offsets, row_fold)
            if outer is not None and self.cv == gate:
                base = outer  # cross-fitted over the gate's folds: the final second stage's training scores
            else:
                base, _ = cross_fit_scores(self.base_estimator, X, y, data.offsets, cv=self.cv,
                                           random_state=seed_of(self.random_state))
        else:
            base = as_1d_float(base_scores, "base_scores")
            if base.shape[0] != n:
                raise ValueError(f"X has {n} rows but base_scores has {base.shape[0]}")
        if self.base_estimator is not None:
            self.base_estimator_ = fit_base(clone(self.base_estimator), X, y, list_index(offsets))
        self._train_base = base  # the training rows' base scores (the CLI prints their table)
        self.ranker_ = None
        self.fallback_ = "base order"
        self.coef_ = np.r_[np.zeros(d), 1.0] if self.include_base else np.zeros(d)
        return _RerankProblem(X, y, offsets, base, self._features(X, base), self._positions(base, offsets, None),
                              cross_fitted=base_scores is None, gate=gate, row_fold=row_fold, outer=outer,
                              inner=inner)

    @staticmethod
    def _against(prob) -> str:
        if not prob.gate:
            return ""
        return "nested" if prob.inner is not None else "cross-fitted" if prob.cross_fitted else "given"

    def _fold_problem(self, prob, f):
        """The problem the gate's fold f sees: held-out rows scored by the base fitted on the other folds,
        the other rows by bases cross-fitted among those folds (nested), or the problem itself."""
        if prob.inner is None:
            return prob
        base = np.where(prob.row_fold == f, prob.outer, prob.inner[f])
        return replace(prob, base=base, Z=self._features(prob.X, base),
                       base_rank=self._positions(base, prob.offsets, None))

    def _candidates(self, prob, ks):
        """(kind, k, l0) of every second stage the gate compares: exact fits, logistic regression, blends."""
        top = top_k_rows(prob.base, prob.offsets, ks[0])
        base_value = self._list_value(prob.y[top], prob.base_rank[top], self._sub_offsets(prob.offsets, ks[0]))
        l0s = self._l0s(base_value, prob.X.shape[1])
        return ([("exact", k, l0) for k in ks for l0 in l0s] + [("logistic", k, 0.0) for k in ks]
                + [("blend", k, l0) for k in ks for l0 in l0s])

    def _gate_time(self, clock, fits_left):
        """Seconds of the gate's next exact fit: what is left of half the budget, shared by the fits left.

        Sharing what is left (not a fixed slice) absorbs a fit that overran its limit (a
        solver phase HiGHS does not interrupt), so the whole fit keeps to ``time_limit``.
        """
        if self.time_limit is None:
            return None
        gate_left = clock.left() - 0.5 * float(self.time_limit)
        return max(_MIN_FIT_SECONDS, gate_left / max(fits_left, 1))

    def _gate(self, prob, cands, gate, clock, n_exact, bar) -> _Choice:
        """Every candidate's per-list held-out gain over the base order, over ``gate`` folds."""
        row_fold = prob.row_fold
        per_list = {c: [] for c in cands}
        fits_left = n_exact
        clocked = False
        for f in range(gate):
            tr_rows, tr_off = subset(prob.offsets, row_fold != f)
            te_rows, te_off = subset(prob.offsets, row_fold == f)
            fold = self._fold_problem(prob, f)
            yt, bt, Zt = fold.y[te_rows], fold.base[te_rows], fold.Z[te_rows]
            held = np.diff(te_off) > 0  # the lists of this fold (the others are there with no rows)
            before = self._gate_value(yt, self._positions(bt, te_off, None), te_off)[held]
            fitted = {}
            for kind, k, l0 in cands:
                if kind == "exact":
                    bar.set_postfix_str(f"gate fold {f + 1}/{gate}: k={k} l0={l0:.3g}")
                    w = self._fit_w(fold, tr_rows, tr_off, k, l0, self._gate_time(clock, fits_left))
                    clocked = clocked or getattr(getattr(self._last_mip, "result_", None), "time_limited", False)
                    fits_left -= 1
                    bar.set_postfix_str(f"gate fold {f + 1}/{gate}: k={k} l0={l0:.3g} {self._progress_text()}",
                                        refresh=False)
                    bar.update()
                elif kind == "logistic":
                    w = self._fit_logistic(fold, tr_rows, tr_off, k)
                else:
                    w = _blend(fitted[("exact", k, l0)], fitted[("logistic", k, 0.0)], fold.Z, tr_rows)
                fitted[(kind, k, l0)] = w
                new = self._positions(bt, te_off, k, None if w is None else Zt @ w)
                per_list[(kind, k, l0)].append(self._gate_value(yt, new, te_off)[held] - before)
        best, gains, _, mean, se, p = choose(per_list, overlap=prob.cross_fitted)
        return _Choice(best, gains, p, time_limited=clocked, mean=mean, se=se)

    def _final_fit(self, prob, best, clock, bar):
        """The chosen second stage fitted on every training list (exact fits get the time left)."""
        kind, k, l0 = best
        bar.set_postfix_str(f"final fit k={k} l0={l0:.3g}")
        all_rows = np.arange(prob.n)
        if kind == "logistic":
            w = self._fit_logistic(prob, all_rows, prob.offsets, k)
        else:
            left = None if self.time_limit is None else max(_MIN_FIT_SECONDS, clock.left())
            w = self._fit_w(prob, all_rows, prob.offsets, k, l0, left, keep=True)
            if kind == "blend":
                w = _blend(w, self._fit_logistic(prob, all_rows, prob.offsets, k), prob.Z, all_rows)
        bar.set_postfix_str(f"final fit k={k} l0={l0:.3g} {self._progress_text() if kind != 'logistic' else ''}",
                            refresh=False)
        bar.update()
        return w

    def _report(self, prob, choice, w, clock):
        """``coef_``, ``fallback_`` and ``result_`` of the final fit."""
        kind, k, l0 = choice.best
        rows = top_k_rows(prob.base, prob.offsets, k)
        sub_off = self._sub_offsets(prob.offsets, k)
        res = RerankResult("base order", "", k, l0, choice.gains,
                           train_base=self._list_value(prob.y[rows], prob.base_rank[rows], sub_off),
                           cross_fitted=prob.cross_fitted, mip=None if self.ranker_ is None else self.ranker_.result_,
                           model=kind, p_value=choice.p_value, gate_time_limited=choice.time_limited,
                           gate_gain=choice.mean, gate_se=choice.se, gate_against=self._against(prob))
        if w is None:
            res.reason = "no list has two top-k rows to order (k = 1 or lists of one row)"
        elif not np.any(w):
            res.reason = "w = 0 ties every row: the base order is the tie-break"
        else:
            self.coef_ = w
            self.fallback_ = None
            res.status = "re-ranked"
            res.train_reranked = self._list_value(prob.y[rows], prob.Z[rows] @ w, sub_off)
            res.reason = (f"held-out gain in {self._gate_metric()} over the base order: kept {kind}, "
                          f"{choice.mean:+.4g} ± {choice.se:.2g} per list{_OVERLAP if prob.cross_fitted else ''} "
                          f"(one-sided p = "
                          f"{choice.p_value:.3g}); summed over the lists, " + ", ".join(
                              f"{kd} k={kk}{'' if kd == 'logistic' else f' l0={ll:.3g}'}: {g:+.6g}"
                              for (kd, kk, ll), g in choice.gains.items()) if choice.gains else "no gate (gate=0)")
        res.seconds = clock.elapsed()
        res.gate_metric = self._gate_metric()
        self.result_ = res
        return self

    @staticmethod
    def _sub_offsets(offsets, k):
        sizes = np.diff(offsets)
        return offsets_of(sizes if k is None else np.minimum(sizes, k))

    def _fit_w(self, prob, rows_all, sub_off, k, l0, time_limit, keep=False):
        """w of the second stage on the top k rows of the lists ``rows_all`` / ``sub_off``
        describe, or None with nothing to order."""
        Z, y, base = prob.Z, prob.y, prob.base
        top = top_k_rows(base[rows_all], sub_off, k)
        rows = rows_all[top]
        qid = trusted(self._sub_offsets(sub_off, k))  # lists of validated ones: the MIP fit checks them no more
        start = np.zeros(Z.shape[1])
        if self.include_base:
            start[-1] = 1.0
        mip = self._mip(l0, time_limit)
        mip._search_counts = FINAL_SEARCH if keep else GATE_SEARCH
        if not keep:  # a gate fit: the search (and for pair statistics the branch and bound), not the MIP
            mip.set_params(algorithm="search")
        self._last_mip = mip
        init = self.init
        if self.include_base and isinstance(init, str) and init in ("auto", "logistic"):
            mip.set_params(init=start)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            mip.fit(Z[rows], y[rows], qid=qid)
        if keep:
            self.ranker_ = mip
            for w in caught:
                if not issubclass(w.category, NothingToRankWarning):
                    warnings.warn(w.message, stacklevel=3)
        if any(issubclass(w.category, NothingToRankWarning) for w in caught):
            return None
        return mip.coef_

    def _progress_text(self):
        """Incumbent and bound of the last MIP fit, for the progress bar."""
        r = getattr(getattr(self, "_last_mip", None), "result_", None)
        if r is None:
            return ""
        inc = "none" if r.statistic is None else f"{r.statistic:.4g}"
        bound = "" if r.bound is None else f", bound {r.bound:.4g}"
        return f"(incumbent {inc}{bound}, {r.status})"

    def _fit_logistic(self, prob, rows_all, sub_off, k):
        """Standardised logistic regression on the top k rows of the lists (in Z's units)."""
        from sklearn.linear_model import LogisticRegression

        Z, y, base = prob.Z, prob.y, prob.base
        rows = rows_all[top_k_rows(base[rows_all], sub_off, k)]
        labels = y[rows] > 0
        if np.unique(labels).size < 2:
            return None
        sd = Z[rows].std(axis=0)
        sd[sd == 0] = 1.0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lr = LogisticRegression(max_iter=2000).fit((Z[rows] - Z[rows].mean(axis=0)) / sd, labels)
        return lr.coef_.ravel() / sd

    def _warn_in_sample(self, y, base, offsets, k):
        """Warn when the base order's top k is already perfect on nearly every training list."""
        perfect = mixed = 0
        for a, b in zip(offsets[:-1], offsets[1:]):
            order = a + np.argsort(-base[a:b], kind="stable")
            top = y[order[: (b - a) if k is None else k]] > 0
            if top.any() and not top.all():
                mixed += 1
                first_neg = int(np.argmin(top))
                perfect += not top[first_neg:].any()
        if mixed >= 10 and perfect >= 0.9 * mixed:
            warnings.warn(f"the base order already puts every relevant row of the top {k} first on {perfect} of "
                          f"{mixed} training lists: are the base scores in-sample (from a model that saw these "
                          f"queries)?  Then the second stage has nothing to learn; pass out-of-fold scores or "
                          f"set base_estimator to cross-fit them", UserWarning, stacklevel=3)

    # ---------------------------------------------------------- predict

    def _positions(self, base, offsets, k, s=None, keep_ties=False):
        """Scores n − position of each row in its re-ranked list.

        The base order is by base score (ties: input order); with scores ``s`` the top
        k of every list are reordered by s (ties: base order) and the rest keep it.
        With ``keep_ties`` (what :meth:`predict` returns), rows the re-ranker did not
        order (the tail, or every row when it kept the base order) whose base scores tie
        share the best position of their tie, so a metric sees the base's ties as ties,
        not as an order by row number.
        """
        n = base.shape[0]
        if n == 0:
            return np.zeros(0)
        sizes = np.diff(offsets)
        lists = np.repeat(np.arange(sizes.shape[0]), sizes)
        idx = np.arange(n)
        order = np.lexsort((idx, -base, lists))
        pos = np.empty(n, dtype=np.int64)
        pos[order] = idx - np.repeat(offsets[:-1], sizes)[order]
        if s is not None:
            kk = sizes[lists] if k is None else np.minimum(int(k), sizes[lists])
            tail = pos >= kk
            key = np.where(tail, 0.0, -np.asarray(s, dtype=np.float64))
            order = np.lexsort((pos, key, tail, lists))
            pos[order] = idx - np.repeat(offsets[:-1], sizes)[order]
        else:
            tail = np.ones(n, dtype=bool)
        if not keep_ties:
            return (sizes[lists] - pos).astype(np.float64)
        order = np.lexsort((pos, lists))
        b, t, g = base[order], tail[order], lists[order]
        tied = np.zeros(n, dtype=bool)
        tied[1:] = (g[1:] == g[:-1]) & (b[1:] == b[:-1]) & t[1:] & t[:-1]
        first = pos[order][~tied]
        pos[order] = first[np.cumsum(~tied) - 1]
        return (sizes[lists] - pos).astype(np.float64)

    def _ranking_scores(self, X, qid, group, base_scores=None) -> np.ndarray:
        return self.predict(X, base_scores, qid=qid, group=group)

    def _statistic(self, y, scores, offsets, sample_weight) -> float:
        """What the second stage maximises, averaged over the lists: the rank risk, or AUC (ties as
        misranks; lists with one class left out), of the re-ranked order."""
        per = self._list_value(y, scores, offsets, per_list=True)
        if self.objective != "rank_risk":
            qid = list_index(offsets)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                per = auc(y, scores, qid, ties="pessimistic", per_query=True)
        return query_mean(per, offsets, sample_weight)

    def _check_fitted(self):
        if getattr(self, "coef_", None) is None:
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("TopKReranker is not fitted yet; call fit first")

    def _base(self, X, base_scores):
        if base_scores is None:
            if self.base_estimator_ is None:
                raise ValueError("pass base_scores (the reranker has no base_estimator to score with)")
            return score_base(self.base_estimator_, X)
        base = as_1d_float(base_scores, "base_scores")
        if base.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but base_scores has {base.shape[0]}")
        return base

    def rerank(self, X, base_scores=None, *, qid=None, group=None) -> np.ndarray:
        """Row indices of every list, best first, lists in input order.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        base_scores : array-like of shape (n_samples,), default=None
            The first stage's scores (default: ``base_estimator_``'s).
        qid, group : array-like, default=None
            The lists (ids or sizes); without both, one list.

        Returns
        -------
        ndarray of int64, shape (n_samples,)
            A permutation of 0 … n − 1 that keeps every list in its own block.
        """
        scores, offsets = self._predict(X, base_scores, qid, group, "rerank")
        out = [a + np.argsort(-scores[a:b], kind="stable") for a, b in zip(offsets[:-1], offsets[1:])]
        return np.concatenate(out).astype(np.int64) if out else np.zeros(0, dtype=np.int64)

    def predict(self, X, base_scores=None, *, qid=None, group=None) -> np.ndarray:
        """Scores that reproduce the re-ranked order: n − position within each list.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        base_scores : array-like of shape (n_samples,), default=None
        qid, group : array-like, default=None
            The lists (ids or sizes); without both, one list.

        Returns
        -------
        ndarray of shape (n_samples,)

        Warns
        -----
        OneListWarning
            Without ``qid``/``group`` on a model fitted on several lists: every row is
            then re-ranked as one list.
        """
        return self._predict(X, base_scores, qid, group, "predict")[0]

    def _predict(self, X, base_scores, qid, group, method):
        self._check_fitted()
        ks = self._ks()
        X = check_array(X, dtype=np.float64, ensure_min_samples=0)  # an empty list re-ranks to itself
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but TopKReranker is expecting {self.n_features_in_} "
                             f"features as input")
        base = self._base(X, base_scores)
        offsets = predict_groups(self, X.shape[0], qid, group, method)
        k = getattr(self, "result_", None).k if getattr(self, "result_", None) is not None else ks[0]
        s = None if self.fallback_ else self._features(X, base) @ self.coef_
        return self._positions(base, offsets, k, s, keep_ties=True), offsets
