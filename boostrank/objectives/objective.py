"""λ-gradient objectives: the parameters of λ-AUC, λ-MAUC and λ-NDCG, and their check of a data set.

:meth:`LambdaObjective.bind` checks one data set's labels and returns the per-fit
:class:`~boostrank.objectives.state.LambdaState` whose ``gradients`` an engine's callback
calls every round.  The kernel is chosen from one table keyed by (metric, link); the
probit link's linear-time λ lives in :mod:`boostrank.objectives.probit`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Callable

import numpy as np

from .._kernels.config import AUTO_MIN_ROWS, NORM_QUERY, NORM_SCORE_GAP
from .._kernels.jit import note_first_compile
from .._kernels.lambdas import lambda_auc_kernel, lambda_auc_tables, lambda_ndcg_kernel
from .._compat import Interval, Options, StrOptions, validate_parameter_constraints
from .._validation import as_1d_float, as_int_labels, check_positions, dense_grades, distinct_values
from .._validation import warn_user
from .._validation import group_offsets as _group_offsets
from .clicks import CORRECTIONS, DEFAULT, PositionBias, check_propensity
from .state import LambdaState, logistic_auc, logistic_ndcg, probit
from ..queries import list_index

__all__ = ["LambdaObjective", "lambda_gradients", "OBJECTIVE_NAMES", "PARAMETERS", "Parameter",
           "graded_auc_weights"]


def _labels_auc(y, threshold):
    return (y > threshold).astype(np.int64)


def _labels_graded(y, threshold):
    return as_int_labels(y, "labels")


MAX_EXP_GAIN_LABEL = 60
"""Largest label with the default NDCG gain 2^l − 1 (beyond, sums of gains overflow or round)."""

def _labels_classes(y, threshold):
    return dense_grades(y, "labels")


_PREPARE: dict[str, Callable] = {"auc": _labels_auc, "mauc": _labels_classes, "ndcg": _labels_graded}

#: Pairs of differing labels in one list from which the logistic λ-AUC/λ-MAUC warns: it sums every
#: pair each round (per-pair cost: benchmarks/MEASUREMENTS.md, "pair sums"), the probit link's series is O(n).
LOGISTIC_WARN_PAIRS = 10**8


def _most_pairs(y, offsets):
    """(rows, pairs of differing labels) of the list with the most such pairs; (0, 0) without lists."""
    pairs = _pairs_per_list(y, offsets)
    if pairs.size == 0:
        return 0, 0
    g = int(np.argmax(pairs))
    return int(offsets[g + 1] - offsets[g]), int(pairs[g])


OBJECTIVE_NAMES = tuple(_PREPARE)


@dataclass(frozen=True)
class Parameter:
    """One parameter of the λ objectives: its default, the metrics that read it, and its constraints
    (scikit-learn's, checked by :class:`LambdaObjective` and by the estimators that pass it on)."""

    default: object
    metrics: tuple
    constraints: list


#: the largest anchor and grade_weight accepted (see PARAMETERS)
MAX_WEIGHT = 1e6

#: Every λ-objective parameter, declared once: :class:`LambdaObjective` checks its arguments against these,
#: :class:`boostrank.LambdaRanker` (and its Dask form and the CLI) takes the first twelve as its own parameters
#: with the same defaults and constraints, and a value other than the default where the metric does not read it
#: is refused (it would change nothing).  What each one does: :class:`LambdaObjective`'s docstring.
PARAMETERS: dict[str, Parameter] = {
    "sigma": Parameter(1.0, ("auc", "mauc", "ndcg"), [Interval(Real, 0, None, closed="neither")]),
    "threshold": Parameter(0.0, ("auc",), [Real]),
    "norm": Parameter(None, ("auc", "mauc", "ndcg"), ["boolean", StrOptions({"query"}), None]),
    "link": Parameter("auto", ("auc", "mauc"), [StrOptions({"auto", "logistic", "probit"})]),
    "method": Parameter("auto", ("auc", "mauc"), [StrOptions({"auto", "exact", "fast"})]),
    # at most MAX_WEIGHT: past it the λs are rounding noise beside the term, and far past it (1e39 in LightGBM's
    # float32 gradients) the gradients overflow into a constant model without a word
    "grade_weight": Parameter(None, ("auc",), [Interval(Real, 0, MAX_WEIGHT, closed="both"), None]),
    "pair_weight": Parameter("auto", ("auc", "mauc"), [StrOptions({"auto", "swap", "uniform"})]),
    "pair_fraction": Parameter(None, ("auc", "mauc"), [Interval(Real, 0, 1, closed="right"), None]),
    "anchor": Parameter(None, ("auc", "mauc"), [Interval(Real, 0, MAX_WEIGHT, closed="both"), None]),
    "anchor_form": Parameter("ordinal", ("auc", "mauc"), [StrOptions({"ordinal", "binary"})]),
    "position_bias": Parameter("auto", ("auc", "mauc", "ndcg"), [StrOptions(set(CORRECTIONS))]),
    "propensity": Parameter(None, ("auc", "mauc"), ["array-like", None]),
    # the objective's own (an estimator reaches the first two by LightGBM's names, the rest are its own)
    "truncation_level": Parameter(30, ("ndcg",), [Interval(Real, 1, None, closed="left")]),
    "label_gain": Parameter(None, ("ndcg",), ["array-like", None]),
    "eps": Parameter(1e-4, ("auc", "mauc"), [Interval(Real, 0, 1, closed="neither")]),
    "auto_min_rows": Parameter(AUTO_MIN_ROWS, ("auc", "mauc"), [Interval(Integral, 1, None, closed="left")]),
    "n_jobs": Parameter(None, ("auc", "mauc", "ndcg"), [Interval(Integral, 1, None, closed="left"),
                                                          Options(Integral, {-1}), None]),
    "random_state": Parameter(None, ("auc", "mauc", "ndcg"), [Interval(Integral, 0, 2**63 - 1, closed="both"),
                                                               None]),
}
#: the parameters an estimator takes under their own names
ESTIMATOR_PARAMETERS = ("sigma", "threshold", "norm", "link", "method", "grade_weight", "pair_weight",
                        "pair_fraction", "anchor", "anchor_form", "position_bias", "propensity")


#: The λ parameters' entries of a numpydoc Parameters section, written once: :class:`LambdaObjective` and
#: :class:`boostrank.LambdaRanker` (and its Dask form) include them where their docstrings say ``{lambda parameters}``.
LAMBDA_PARAMETERS_DOC = """\
    sigma : float, default=1.0
        σ of the RankNet logistic ρ = 1 / (1 + exp(σ (s_h − s_l))) (LightGBM's ``sigmoid``).
    threshold : float, default=0.0
        ``"auc"``: labels above it are positive.
    norm : bool or "query", default=None
        LightGBM's ``lambdarank_norm``, for every metric with the logistic link: each
        pair's ``|ΔM|`` is divided by ``0.01 + |s_h − s_l|`` (unless the query's scores all
        tie) and each query's λs and hessians are rescaled by log2(1 + Σλ) / Σλ.
        ``"query"``: the rescaling alone, which keeps each query's direction and gives a
        query with a large Σλ (long, or far from its order) less than proportional weight.
        None: on for ``"ndcg"`` (as LightGBM's ``lambdarank``); ``"query"`` for ``"auc"``
        with the logistic link (the score-gap division cost long lists AUC on real data,
        the rescaling did not), off with the probit link; off for ``"mauc"``.  ``True`` or
        ``"query"`` with ``link="probit"`` is an error (the series has neither a per-pair
        division nor a per-query sum of λs).
    link : {"auto", "logistic", "probit"}, default="auto"
        ``"auc"`` and ``"mauc"``.  ``"probit"`` replaces the logistic ρ by Raykar's
        ρ = ½ erfc(ασ(s_h − s_l)), α = √3/(√2 π), and ρ(1 − ρ) by the Gaussian
        (ασ/√π) exp(−(ασ(s_h − s_l))²), which makes the linear-time series possible.
        The logistic link sums every pair of differing labels each round: a list with
        more than 10⁸ such pairs gets a ``UserWarning`` naming ``"probit"``.  ``"auto"``
        chooses once per data set: logistic while the lists hold at most 100 pairs of
        differing labels per row (learning-to-rank lists), probit beyond (one long list),
        so no round costs seconds; settings that need one link (``norm``,
        ``grade_weight`` > 0, ``method="fast"``) choose it.
    method : {"auto", "exact", "fast"}, default="auto"
        With ``link="probit"``: pair sums (O(n²) per list), the erfc series (O(p n): a
        radix sort and two series sweeps, within
        :func:`boostrank.objectives.probit.fast_error_bound`), or ``"auto"``: the series
        for lists of at least ``auto_min_rows`` rows and pair sums below.  The logistic
        link always sums pairs (``"auto"`` and ``"exact"``; ``"fast"`` is an error).
    grade_weight : float, default=None
        ``"auc"`` with the logistic link, on integer grades: the weight of each grade
        boundary other than the AUC cut.  Pairs across the cut keep Welleck's ΔAUC; pairs
        of two grades on one side of it, and queries with one side only, add
        ``grade_weight`` times the same swap weight, so the grades a binary AUC drops
        still train the model.  None and 0: λ-AUC on ``y > threshold`` alone (chosen by
        inner cross-validation: the ordinal ``anchor`` keeps the grades).  Binary labels
        give λ-AUC exactly for every value.
    pair_weight : {"auto", "swap", "uniform"}, default="auto"
        ``"auc"`` and ``"mauc"``: what a pair of documents weighs.  ``"swap"``: Welleck's
        ``|ΔM_ij|`` of swapping them, ``|p_i − p_j| |ω_{l_i} − ω_{l_j}|`` (Thm 4.1, eq. 19).
        ``"uniform"``: the statistic's own weight ``|ω_{l_i} − ω_{l_j}|`` (AUC is the mean
        over pairs, 1/(mn) each): the exact gradient of the link-smoothed statistic,
        RankNet's cost with AUC's pair weights and, with the probit link, Raykar et al.'s
        WMW objective.  ``"auto"``: ``"swap"`` with the logistic link (learning-to-rank
        lists), ``"uniform"`` with the probit link (long lists, where the swap weight's
        spread of 1 … n slows learning).
    pair_fraction : float, default=None
        ``"auc"`` and ``"mauc"`` with the logistic link: each round, every document meets
        this share of its partners, every k-th of each lower class (k = 1/pair_fraction,
        an integer) from an offset drawn afresh each round (seeded by ``random_state``),
        and those pairs weigh k times as much (an unbiased, stochastic λ).  None: 0.5
        with Welleck's swap weights, 1 otherwise.  1: every pair, every round.
    anchor : float, default=None
        ``"auc"`` and ``"mauc"``: weight α of a pointwise log-loss added to the λs:
        g = g_λ + α (σ(s + b) − [y > t]), hessians alike, with b the logit of the share of
        rows above t, so the first round starts from the base rate.  The λs compare
        documents within each query only; the anchor also learns which documents are
        relevant at all, across queries, which short, mostly relevant lists on features of
        a global scale need.  None: 0.3 for ``"auc"``, 1 for ``"mauc"`` (chosen by inner
        cross-validation); 0: the λs alone.
    anchor_form : {"ordinal", "binary"}, default="ordinal"
        The anchor's targets: ``"ordinal"``, every grade boundary y > g (the mean log-loss
        over the cumulative targets, each from its own base rate), which keeps the grades;
        ``"binary"``, y > ``threshold`` alone.  The same on binary labels and on
        real-valued labels (more than 32 values: the AUC cut).
    position_bias : {"auto", "propensity", "additive", "none"}, default="auto"
        With positions (click feedback: ``fit(position=...)``, ``bind(position=...)``): how
        the λs correct the position bias (:mod:`boostrank.objectives.clicks`):
        ``"propensity"`` weighs pairs by estimated examination propensities,
        ``"additive"`` learns a bias per position as LightGBM does for ``lambdarank``,
        ``"none"`` takes clicks as relevance; ``"auto"``: ``"propensity"`` where the λs
        are pair sums, else ``"additive"``.  The engines' own objectives correct it their
        own way (LightGBM's ``lambdarank``: its position term; XGBoost's:
        ``lambdarank_unbiased``).
    propensity : array-like of float, default=None
        Examination probabilities per position from 0, known from an intervention
        (randomisation) experiment: used as they are, not estimated.
"""


def with_lambda_parameters(cls):
    """``cls`` with :data:`LAMBDA_PARAMETERS_DOC` in place of its docstring's ``{lambda parameters}`` line."""
    cls.__doc__ = cls.__doc__.replace("    {lambda parameters}\n", LAMBDA_PARAMETERS_DOC)
    return cls


def check_parameters(metric: str, values: dict, caller: str) -> None:
    """``values`` (name -> value) against :data:`PARAMETERS`: each within its constraints, and none set away from
    its default where ``metric`` does not read it (it would change nothing)."""
    for name, value in values.items():  # scikit-learn's intervals take True for 1
        if isinstance(value, (bool, np.bool_)) and "boolean" not in PARAMETERS[name].constraints:
            raise ValueError(f"The {name!r} parameter of {caller} must be a number, not {value!r}")
    validate_parameter_constraints({name: PARAMETERS[name].constraints for name in values}, values, caller)
    for name, value in values.items():
        param = PARAMETERS[name]
        if metric not in param.metrics and not is_default(value, param.default):
            raise ValueError(f"{name}={value!r} would change nothing: objective={metric!r} does not read it (it "
                             f"acts with {', '.join(map(repr, param.metrics))})")


def is_default(value, default) -> bool:
    """Whether a parameter's value is its default (an array is never the default None)."""
    if value is None or default is None:
        return value is default
    return isinstance(value, type(default)) and value == default or (
        _is_real(value) and _is_real(default) and float(value) == float(default))


#: link="auto" takes the probit series when the data's pairs of differing labels pass this many per row
#: (the logistic λ sums each pair every round; benchmarks/MEASUREMENTS.md, "link by size")
AUTO_PROBIT_PAIRS_PER_ROW = 100


def _pairs_per_list(y, offsets) -> np.ndarray:
    """Pairs of differing labels in each list (int64), from one count of (list, label) cells."""
    sizes = np.diff(offsets).astype(np.int64)
    if y.size == 0:
        return np.zeros(sizes.shape[0], dtype=np.int64)
    lists = list_index(offsets)
    cls = _small_grades(y)
    if cls is None:
        cls = np.unique(y, return_inverse=True)[1].reshape(-1)
    width = int(cls.max()) + 1
    counts = np.bincount(lists * width + cls, minlength=sizes.shape[0] * width).reshape(-1, width).astype(np.int64)
    return (sizes ** 2 - (counts ** 2).sum(axis=1)) // 2


def _small_grades(y):
    """``y`` as int64 when its values are the integers 0 … 63 (0/1 labels, grades), else None: a count of
    (list, label) cells then needs no sort (``np.unique`` would sort the whole list)."""
    if y.size == 0 or not (0 <= y.min() and y.max() < 64):
        return None
    codes = y.astype(np.int64)
    return codes if np.array_equal(codes, y) else None


def _any_two_classes(y, offsets) -> bool:
    """Whether some query holds two different labels (else every AUC/MAUC λ is 0)."""
    starts = offsets[:-1][np.diff(offsets) > 0]
    if starts.size == 0:
        return False
    return bool((np.maximum.reduceat(y, starts) > np.minimum.reduceat(y, starts)).any())


#: Most distinct integer grades graded λ-AUC weighs (LETOR's are 2-5); beyond, or on real-valued labels,
#: a grade_weight above 0 is refused
MAX_GRADED_CLASSES = 32

#: grade_weight=None's value: the weight of a grade boundary other than the AUC cut.  With ANCHOR, chosen by
#: inner cross-validation across the real and calibrated sets as the candidate whose largest shortfall to the
#: best candidate of a set is least (benchmarks/anchor.py; MEASUREMENTS.md, "grades and the anchor"): the
#: ordinal anchor carries the grades, and pairs inside the relevant grades cost lists whose relevance is a
#: property of the document
GRADE_WEIGHT = 0.0

#: anchor=None's value per metric: the weight of the pointwise log-loss beside the λs (as GRADE_WEIGHT)
ANCHOR = {"auc": 0.3, "mauc": 1.0, "ndcg": 0.0}
#: anchor=None's value with clicks (positions, position_bias="propensity"), where the anchor is the click model's
#: likelihood: chosen on the development sets of benchmarks/clicks.py --candidates (MEASUREMENTS.md, "clicks")
ANCHOR_CLICKS = 3.0


def graded_auc_weights(start, cut, grade_weight):
    """Class weights ω of graded λ-AUC, one row per query, for :func:`lambda_auc_kernel`.

    With classes 0 … C−1 the distinct labels in increasing order and ``cut`` the first
    relevant class (label > threshold), ω steps by 1 at the cut and by ``grade_weight``
    at every other class boundary, and each query's row is divided by its m·n
    (relevant × irrelevant documents, AUC's normaliser), or, in a query with one side of
    the cut only, by its number of pairs of differing labels.  The kernel weighs the swap
    of two documents of classes h > l by ``|p_h − p_l| (ω_h − ω_l)`` (Welleck Thm 4.1 per
    boundary crossed), so with two classes this is λ-AUC exactly, and on graded labels
    λ-AUC plus ``grade_weight`` times the same swap weight at each other grade boundary.

    Parameters
    ----------
    start : ndarray of int64, shape (n_groups, C + 1)
        :func:`lambda_auc_tables`'s class buckets.
    cut : int
    grade_weight : float

    Returns
    -------
    ndarray of float64, shape (n_groups, C)
    """
    counts = np.diff(start, axis=1).astype(np.float64)
    n_cls = counts.shape[1]
    relevant = counts[:, cut:].sum(axis=1)
    irrelevant = counts[:, :cut].sum(axis=1)
    size = counts.sum(axis=1)
    differing = (size ** 2 - (counts ** 2).sum(axis=1)) / 2.0
    norm = np.where(relevant * irrelevant > 0, relevant * irrelevant,
                    np.where(differing > 0, differing, np.inf))
    step = np.full(n_cls, float(grade_weight))
    step[0] = 0.0
    if 0 < cut < n_cls:
        step[cut] = 1.0
    return np.ascontiguousarray(np.cumsum(step)[None, :] / norm[:, None])


#: pair_fraction=None's value with the logistic link and Welleck's swap weights: each document meets every
#: second partner per round (benchmarks/objective_quality.py; benchmarks/MEASUREMENTS.md, "stochastic λ")
PAIR_FRACTION = 0.5

def _note_kernel(kernel, uniform: bool) -> None:
    """The once-per-process compile notice, checked on the AUC/MAUC kernel chosen: the pair sums, or the
    probit series of the pair weight (lists too short for the series take pair sums, compiled beside)."""
    if kernel is not probit:
        note_first_compile("λ", lambda_auc_kernel)
        return
    from .._kernels.erfc import uniform_series_lambdas
    from .._kernels.lambda_series import _both_sweeps

    note_first_compile("λ", uniform_series_lambdas if uniform else _both_sweeps)


#: The λ kernel of each (metric, link); MAUC's λ is AUC's on class ids (Welleck eq. 19).
KERNELS: dict[tuple[str, str], Callable] = {
    ("auc", "logistic"): logistic_auc,
    ("mauc", "logistic"): logistic_auc,
    ("ndcg", "logistic"): logistic_ndcg,
    ("auc", "probit"): probit,
    ("mauc", "probit"): probit,
}


@with_lambda_parameters
class LambdaObjective:
    """LambdaMART objective with the λ of an IR metric: ``"auc"``, ``"mauc"`` or ``"ndcg"``.

    Parameters
    ----------
    metric : {"auc", "mauc", "ndcg"}, default="auc"
        ``"auc"``: Welleck Theorem 4.1 / eq. (17) on binary labels ``y > threshold``.
        ``"mauc"``: eqs. (18)–(19) on integer grades, with the class set and p(c) of
        :func:`boostrank.mauc`.  ``"ndcg"``: LightGBM's ``lambdarank`` (for parity).
    {lambda parameters}
    truncation_level : int, default=30
        ``"ndcg"`` only: LightGBM's ``lambdarank_truncation_level``.
    label_gain : sequence of float, default=None
        ``"ndcg"`` only: gain of each grade, default 2^l − 1.
    eps : float, default=1e-4
        Accuracy of the series: every λ is within ``fast_error_bound(eps)``, about
        ε times the λ's own scale (fewer harmonics than 1e-6, at the same test AUC).
    auto_min_rows : int, default=128
        ``method="auto"`` sums pairs exactly in shorter lists: about where the series
        becomes the faster of the two.
    random_state : int, default=None
        Seed of the pair sampling (None: 0, so the same data trains the same model, as
        LightGBM's and XGBoost's own seeds do).
    n_jobs : int, default=None
        Threads of the λ kernels; −1: all of Numba's.  None: one thread for batches below
        ``PARALLEL_MIN_ROWS`` (200 000) rows, all above: a parallel region over small
        lists costs more than it splits, and on a busy machine each call waits for
        descheduled threads.  One long list on the probit series takes all of them from
        ``SERIES_PARALLEL_MIN_ROWS`` (50 000) rows, where its sweeps split across threads pay.  The XGBoost adapter passes 1 (its bundled OpenMP runtime and
        Numba's spin against each other); the LightGBM adapter passes the engine's
        ``num_threads`` when it knows it.

    Notes
    -----
    Within a query, documents are ordered by score, ties with the lower label first
    (pessimistically, thesis §2.1.3; ``"ndcg"`` keeps LightGBM's stable order).  So at
    the first round, when all scores tie, every relevant document sits below every
    irrelevant one and all pairs push.  A query with one label value gets zero
    gradients and hessians.  For the MAUC λ, Welleck's S_ij follows the label order
    while ``|ΔMAUC_ij| = |j − i| |ω_{l_i} − ω_{l_j}|``, which can be 0 for two classes of
    equal size.

    Examples
    --------
    Bound to one data set, the objective gives each round's gradients and hessians; at tied
    scores every relevant document is pushed up and every other one down:

    >>> import numpy as np
    >>> y = np.array([1, 0, 0, 1, 0, 0])
    >>> state = LambdaObjective("auc").bind(y, [0, 3, 6])
    >>> grad, hess = state.gradients(np.zeros(6))
    >>> bool((grad[y == 1] < 0).all() and (grad[y == 0] > 0).all() and (hess > 0).all())
    True
    """

    def __init__(self, metric: str = "auc", *, sigma: float = 1.0, threshold: float = 0.0,
                 truncation_level: int = 30, norm: bool | str | None = None, label_gain=None,
                 link: str = "auto", method: str = "auto", eps: float = 1e-4, auto_min_rows: int = AUTO_MIN_ROWS,
                 n_jobs: int | None = None, grade_weight: float | None = None, pair_weight: str = "auto",
                 pair_fraction: float | None = None, random_state: int | None = None, anchor: float | None = None,
                 anchor_form: str = "ordinal", position_bias: str = "auto", propensity=None):
        if metric not in _PREPARE:
            raise ValueError(f"metric must be one of {list(_PREPARE)}, got {metric!r}")
        check_parameters(metric, dict(
            sigma=sigma, threshold=threshold, truncation_level=truncation_level, norm=norm, label_gain=label_gain,
            link=link, method=method, eps=eps, auto_min_rows=auto_min_rows, n_jobs=n_jobs, grade_weight=grade_weight,
            pair_weight=pair_weight, pair_fraction=pair_fraction, random_state=random_state, anchor=anchor,
            anchor_form=anchor_form, position_bias=position_bias, propensity=propensity), "LambdaObjective")
        for name, value in (("sigma", sigma), ("threshold", threshold), ("anchor", anchor)):
            if value is not None and not math.isfinite(value):
                raise ValueError(f"{name} must be finite, got {value!r}")
        if not float(truncation_level).is_integer():
            raise ValueError(f"truncation_level must be a whole number, got {truncation_level!r}")
        link = _resolve_link(metric, link, method, norm, grade_weight, pair_fraction)
        if (grade_weight or 0) > 0 and link == "probit":
            raise ValueError("grade_weight > 0 needs link='logistic': the probit series sums two classes")
        self.pair_weight = pair_weight
        self.pair_stride = _pair_stride(pair_fraction)
        self.pair_fraction = None if pair_fraction is None else float(pair_fraction)
        self.random_state = 0 if random_state is None else int(random_state)
        self.anchor = ANCHOR[metric] if anchor is None else float(anchor)
        self._anchor_set, self._norm_set = anchor is not None, norm is not None
        self.anchor_form = anchor_form
        self.position_bias = position_bias
        self.propensity = check_propensity(propensity)
        if self.propensity is not None and position_bias in ("additive", "none"):
            raise ValueError(f"propensity= weighs clicks by their examination; position_bias={position_bias!r} "
                             f"does not (use 'propensity' or 'auto')")
        #: (thresholds, biases) of the anchor fixed for every bind (a distributed fit's), else None: each bind's own
        self.anchor_base = None
        self.metric = metric
        self.grade_weight = (GRADE_WEIGHT if link != "probit" and metric == "auc" else 0.0) \
            if grade_weight is None else float(grade_weight)
        self._grade_weight_set = grade_weight is not None
        self.sigma = float(sigma)
        self.threshold = float(threshold)
        # past every list: the whole list (and an int64 in the kernel)
        self.truncation_level = int(min(truncation_level, 2 ** 62))
        self.norm = _resolve_norm(norm, metric, link)
        #: ``norm`` as the λ kernels' bits
        self.norm_bits = _NORM_BITS[self.norm]
        self.label_gain = None if label_gain is None else np.asarray(label_gain, dtype=np.float64)
        self.link = link
        self.method = method
        self.eps = float(eps)
        self.auto_min_rows = int(auto_min_rows)
        self.n_jobs = None if n_jobs is None else int(n_jobs)
        self._kernel = KERNELS[metric, "logistic" if link == "auto" else link]

    def __repr__(self):
        return f"LambdaObjective({self.metric!r}, sigma={self.sigma:g})"

    def bind(self, labels, group_offsets=None, weight=None, *, n_jobs: int | None = None, position=None,
             learning_rate: float = 0.1) -> LambdaState:
        """This objective on one data set: the labels (and weights) checked once, the kernel chosen.

        Bind before training to fail on bad labels up front rather than from inside an
        engine callback.  ``group_offsets`` as in :func:`lambda_gradients`.

        Parameters
        ----------
        labels : array-like of shape (n_samples,)
        group_offsets : array-like of int, default=None
        weight : array-like of shape (n_samples,), default=None
            Per-row weights multiplying gradients and hessians.
        n_jobs : int, default=None
            The λ kernels' threads for this fit (an engine's own count); None: the objective's ``n_jobs``.
        position : array-like of int, default=None
            Each row's 0-based display rank in its list when its feedback was logged (clicks): the
            λs then correct the position bias as ``position_bias`` says
            (:mod:`boostrank.objectives.clicks`).  None: the labels are relevance as they are.
        learning_rate : float, default=0.1
            The engine's learning rate, the step of ``position_bias="additive"``'s term.

        Returns
        -------
        LambdaState
            Its ``gradients(scores)`` gives (grad, hess) every round.
        """
        raw = as_1d_float(labels, "labels")
        offsets = _group_offsets(raw.shape[0], offsets=group_offsets)
        y = _PREPARE[self.metric](raw, self.threshold)
        weight = _row_weights(weight, y.shape[0])
        position = None if position is None else check_positions(position, offsets)
        if self.metric == "ndcg":
            note_first_compile("λ", lambda_ndcg_kernel)
            return LambdaState(self, y, offsets, weight, self._kernel, gain=self._gain(y), n_jobs=n_jobs,
                               clicks=self._clicks(position, y, self._kernel, learning_rate))
        self._check_two_classes(y, offsets)
        kernel = self._choose_kernel(y, offsets)
        clicks = self._clicks(position, y, kernel, learning_rate)
        anchor = self._anchor(raw, y, weight, clicks)
        norm_bits = self.norm_bits
        if clicks is not None and clicks.kind == "propensity" and not self._norm_set:
            norm_bits = 0  # the per-query rescaling would undo the inverse-propensity weights (clicks.py)
        tables = None
        if self.metric == "auc" and self.grade_weight > 0 and kernel is not probit:
            y, tables = self._graded_classes(raw, offsets, y)
        uniform = self.pair_weight == "uniform" or (self.pair_weight == "auto" and kernel is probit)
        _note_kernel(kernel, uniform)
        stride = self.pair_stride
        if stride is None:  # the default for the link: sampled partners with Welleck's swap weights
            stride = 1 if kernel is probit or uniform else round(1 / PAIR_FRACTION)
        return LambdaState(self, y, offsets, weight, kernel, uniform=uniform, stride=stride, tables=tables,
                           n_jobs=n_jobs, anchor=anchor, clicks=clicks, norm_bits=norm_bits)

    def _clicks(self, position, y, kernel, learning_rate) -> PositionBias | None:
        """The position-bias correction of a fit with positions (None without them, or with "none")."""
        if position is None or self.position_bias == "none":
            return None
        kind = self.position_bias
        pairs = kernel is logistic_auc
        if kind == "auto":  # the pair factors need the logistic pair sums; the additive term takes any λ
            kind = DEFAULT if pairs else "additive"
        if kind == "propensity" and not pairs:
            raise ValueError(f"position_bias='propensity' weighs pairs in the logistic pair sums: with "
                             f"{'the probit link' if kernel is probit else 'objective=' + repr(self.metric)} use "
                             f"position_bias='additive' (or 'auto')")
        return PositionBias(kind, position, y, self.propensity, learning_rate)

    def _anchor(self, raw, y, weight, clicks=None):
        """(α, class of each row, bias of each threshold) of the pointwise anchor, or None when α is 0."""
        alpha = self.anchor
        if clicks is not None and clicks.kind == "propensity" and not self._anchor_set:
            alpha = ANCHOR_CLICKS  # the click model's likelihood carries the correction (clicks.py)
        if alpha == 0.0:
            return None
        thresholds, bias = self.anchor_base if self.anchor_base is not None else \
            self.anchor_base_of(label_mass(raw, weight))
        if clicks is not None and clicks.kind == "propensity" and bias.size:
            # the anchor models relevance: its base rates are the click rates over the mean examination
            rate = np.clip(1.0 / (1.0 + np.exp(-bias)) / clicks.propensity[clicks.position].mean(), 1e-6, 1 - 1e-6)
            bias = np.log(rate / (1.0 - rate))
        if thresholds.size == 0:
            return None  # no row on one side of a threshold (zero weights): nothing to learn across queries
        classes = np.searchsorted(thresholds, raw, side="left").astype(np.int64)  # thresholds below y
        return alpha, classes, bias

    def anchor_base_of(self, mass: dict) -> tuple[np.ndarray, np.ndarray]:
        """The anchor's thresholds t_k (its targets are y > t_k) and biases (the logit of each target's weighted
        share) from the label mass of the training rows ({label: total weight}, :func:`label_mass`).

        A fit spread over workers sums the workers' masses and sets ``anchor_base`` to the result, so each
        worker starts from the base rates of all the data, as one machine would."""
        values = np.array(sorted(mass), dtype=np.float64)
        weights = np.array([mass[v] for v in values.tolist()], dtype=np.float64)
        if self.anchor_form == "ordinal" and values.size <= MAX_GRADED_CLASSES:  # every grade boundary
            thresholds = values[:-1]
        else:  # the AUC cut (real-valued labels have more values than grades)
            thresholds = np.array([self.threshold])
        total = weights.sum()
        above = np.array([weights[values > t].sum() for t in thresholds]) / total if total > 0 else np.zeros(0)
        keep = (above > 0) & (above < 1)
        if above.size == 0 or not keep.all():
            return np.zeros(0), np.zeros(0)
        return thresholds, np.log(above / (1.0 - above))

    def _gain(self, y):
        """NDCG's gain of each grade: ``label_gain`` or 2^l − 1, checked against the labels."""
        top = int(y.max()) if y.size else 0
        if self.label_gain is None and top > MAX_EXP_GAIN_LABEL:
            raise ValueError(f"labels reach {top}: the NDCG gain 2^l − 1 is kept exact up to "
                             f"{MAX_EXP_GAIN_LABEL} (LightGBM's default label_gain stops at 30); pass "
                             f"label_gain or use metric='mauc'")
        if self.label_gain is not None and not np.isfinite(self.label_gain).all():
            raise ValueError("label_gain must be finite")
        gain = self.label_gain if self.label_gain is not None else 2.0 ** np.arange(top + 1) - 1.0
        if gain.shape[0] <= top:
            raise ValueError(f"label_gain has {gain.shape[0]} entries but labels reach {top}")
        return gain

    def _check_two_classes(self, y, offsets) -> None:
        """Some query must hold two labels, or every λ is 0."""
        if y.size and not _any_two_classes(y, offsets):
            what = (f"one class at threshold={self.threshold:g} (y > threshold is relevant)"
                    if self.metric == "auc" else "one class (a single grade)")
            raise ValueError(f"every query has {what}: every λ is 0 and the model would be constant"
                             + ("; set threshold between your grades" if self.metric == "auc" else ""))

    def _choose_kernel(self, y, offsets) -> Callable:
        """The λ kernel of the link: with link="auto" the probit series where the lists hold many pairs a row;
        an explicit logistic link is warned about a list whose pair sums would cost seconds a round."""
        if self.link == "auto":
            # one link per data set: the logistic pair sums while they cost about a binary round, else
            # Raykar's O(n) probit series (one long list: ~10³ pairs per row, 30-100x binary's round)
            pairs = int(_pairs_per_list(y, offsets).sum())
            return probit if pairs > AUTO_PROBIT_PAIRS_PER_ROW * max(y.shape[0], 1) else self._kernel
        if self.link == "logistic":
            rows, pairs = _most_pairs(y, offsets)
            if pairs > LOGISTIC_WARN_PAIRS:
                warn_user(f"a list of {rows} rows has {pairs:.3g} pairs of differing labels: with "
                           f"link='logistic' every round sums them all (seconds per round); link='probit' "
                           f"(Raykar's erfc series) or the default link='auto' costs O(n) per round")
        return self._kernel

    def _graded_classes(self, labels, offsets, y):
        """Graded λ-AUC: (class ids, (start, :func:`graded_auc_weights`)) for the kernel, or (the 0/1 labels
        ``y``, None) when the labels are binary or not a few integer grades."""
        values, classes = distinct_values(as_1d_float(labels, "labels"))
        integral = bool(np.all(values == np.round(values)))
        graded = values.size <= MAX_GRADED_CLASSES and integral
        if not graded and self._grade_weight_set:
            raise ValueError(f"grade_weight needs integer grades (at most {MAX_GRADED_CLASSES} values); the "
                             f"labels have {values.size} distinct values{'' if integral else ', not integers'}: "
                             f"use grade_weight=0 (λ-AUC on y > threshold)")
        if not graded or (values.size <= 2 and np.array_equal(values, [0.0, 1.0][:values.size])):
            return y, None
        start, _ = lambda_auc_tables(classes, offsets)
        return classes, (start, graded_auc_weights(start, int((values <= self.threshold).sum()), self.grade_weight))


def lambda_gradients(scores, labels, group_offsets=None, metric: str = "auc", sigma: float = 1.0,
                     *, threshold: float = 0.0, weight=None, truncation_level: int = 30,
                     norm: bool | str | None = None, label_gain=None, link: str = "auto", method: str = "auto",
                     eps: float = 1e-4, grade_weight: float | None = None, pair_weight: str = "auto",
                     pair_fraction: float | None = 1.0, random_state: int | None = None,
                     anchor: float | None = 0.0, anchor_form: str = "ordinal") -> tuple[np.ndarray, np.ndarray]:
    """λ-gradients and hessians of LambdaMART for AUC, MAUC or NDCG (Welleck §4).

    Parameters
    ----------
    scores : array-like of shape (n_samples,)
        Current raw model scores.
    labels : array-like of shape (n_samples,)
    group_offsets : array-like of int, shape (n_queries + 1,), default=None
        Query ``g`` is rows ``group_offsets[g]:group_offsets[g + 1]``; None is one list.
    metric : {"auc", "mauc", "ndcg"}, default="auc"
    sigma : float, default=1.0
    threshold : float, default=0.0
    weight : array-like of shape (n_samples,), default=None
        Per-row weights multiplying gradients and hessians (as LightGBM does).
    truncation_level, label_gain
        NDCG only; see :class:`LambdaObjective`.
    norm : bool or "query", default=None
        LightGBM's ``lambdarank_norm``, or its per-query rescaling alone (None: on for
        ``"ndcg"``, ``"query"`` for ``"auc"``, off for ``"mauc"``); see :class:`LambdaObjective`.
    grade_weight : float, default=None
        ``"auc"`` on integer grades: the weight of grade boundaries other than the cut;
        see :class:`LambdaObjective`.
    link, method, eps
        AUC only: the probit link and the linear-time series; see :class:`LambdaObjective`.
    pair_weight : {"auto", "swap", "uniform"}, default="auto"
        ``"auc"``/``"mauc"``: Welleck's swap weight or the statistic's own pair weight; see
        :class:`LambdaObjective`.
    pair_fraction : float, default=1.0
        Every pair (the exact λ).  :class:`LambdaObjective` trains with 0.5 by default;
        ``None`` gives its default here too, and ``random_state`` seeds the sample (this
        call is the objective's first round).
    anchor : float, default=0.0
        The λs alone (the papers'); α adds the pointwise log-loss on the engines' scale,
        divided by the data set's hessian scale (:class:`LambdaObjective`'s ``anchor``);
        ``None``: the objective's default.
    anchor_form : {"ordinal", "binary"}, default="ordinal"

    Returns
    -------
    grad, hess : ndarray of float64, shape (n_samples,)
        Gradients of a loss to minimise (negative = push up); each query's gradients
        sum to zero.

    Notes
    -----
    ``λ_ij = S_ij |ΔM_ij ∂C/∂o_ij|`` (Welleck eq. 6, 17, 19) with ΔAUC_ij = (l_j − l_i)(j − i)
    / (mn) (Theorem 4.1; with ``pair_weight="uniform"``, 1/(mn)), ∂C/∂o = σρ, and hessian
    ``Σ σ² |ΔM_ij| ρ(1 − ρ)``; with ``norm=True``
    (the default for ``"ndcg"``), ``|ΔM_ij| / (0.01 + |s_i − s_j|)`` and each query
    rescaled as LightGBM's ``lambdarank`` does; with ``norm="query"`` (the default for
    ``"auc"``) the rescaling alone.  On graded labels, ``"auc"`` adds the
    grade boundaries' swap weights (``grade_weight``, :func:`graded_auc_weights`).

    Examples
    --------
    >>> g, h = lambda_gradients([0.0, 0.0, 0.0], [1, 0, 0])
    >>> bool(g[0] < 0 and abs(g.sum()) < 1e-15)
    True
    """
    if metric == "ndcg":  # λ-NDCG samples no pairs and has no anchor: these defaults are not settings to refuse
        pair_fraction = None if pair_fraction == 1.0 else pair_fraction
        anchor = None if anchor == 0.0 else anchor
    obj = LambdaObjective(metric, sigma=sigma, threshold=threshold, truncation_level=truncation_level,
                          norm=norm, label_gain=label_gain, link=link, method=method, eps=eps,
                          grade_weight=grade_weight, pair_weight=pair_weight, pair_fraction=pair_fraction,
                          random_state=random_state, anchor=anchor, anchor_form=anchor_form)
    s = as_1d_float(scores, "scores")
    n = s.shape[0]
    shape = np.shape(labels)
    if len(shape) != 1 or shape[0] != n:
        raise ValueError(f"labels must be 1-D with one entry per score ({n}), got shape {shape}")
    grad, hess = obj.bind(labels, group_offsets, weight).gradients(s, scaled=False)
    return grad.copy(), hess.copy()


def label_mass(labels, weight=None) -> dict:
    """{label value: total weight (rows when unweighted)}: what :meth:`LambdaObjective.anchor_base_of` reads."""
    values, inverse = distinct_values(as_1d_float(labels, "labels"))
    mass = np.bincount(inverse, weights=weight, minlength=values.size)
    return dict(zip(values.tolist(), mass.tolist()))


def _row_weights(weight, n):
    """Per-row weights as float64 (None when absent), one per row."""
    if weight is None or not len(weight):
        return None
    weight = as_1d_float(weight, "weight")
    if weight.shape[0] != n:
        raise ValueError(f"{weight.shape[0]} weights for {n} rows")
    return weight


#: ``norm``'s values as the λ kernels' bits (``_kernels.config.NORM_*``)
_NORM_BITS = {False: 0, True: NORM_SCORE_GAP | NORM_QUERY, "query": NORM_QUERY}


def _resolve_norm(norm, metric: str, link: str):
    """``norm`` resolved: True, False or "query"; None is the metric's default with its link."""
    if norm is None:  # the defaults: benchmarks/MEASUREMENTS.md, "per-query norm for AUC"
        return True if metric == "ndcg" else "query" if metric == "auc" and link != "probit" else False
    return norm if isinstance(norm, str) else bool(norm)


def _resolve_link(metric, link, method, norm, grade_weight, pair_fraction=None) -> str:
    """The link the settings need (``"auto"`` stays auto when any would do); refuses contradictions."""
    sampled = pair_fraction is not None and _is_real(pair_fraction) and pair_fraction < 1
    if link == "auto" and (metric == "ndcg" or norm or method == "fast" or (grade_weight or 0) > 0 or sampled):
        link = "probit" if method == "fast" else "logistic"  # what the settings need
    if sampled and link == "probit":
        raise ValueError(f"pair_fraction={pair_fraction!r} needs link='logistic': the probit link's series sums "
                         f"every pair at once")
    if method == "fast" and link != "probit":
        raise ValueError(f"method={method!r} needs link='probit' (the series sums erfc, not the logistic)")
    if link == "probit" and metric not in ("auc", "mauc"):
        raise ValueError("the probit link is for metric='auc' or 'mauc'")
    if link == "probit" and norm:
        raise ValueError(f"norm={norm!r} needs link='logistic': the probit link's erfc series has no per-pair "
                         f"division by the score gap and no per-query rescaling")
    return link


def _is_real(value, kinds=(int, float, np.number)) -> bool:
    return isinstance(value, kinds) and not isinstance(value, bool)


#: Largest k of pair_fraction = 1/k (every k-th partner)
MAX_PAIR_STRIDE = 1024


def _pair_stride(pair_fraction) -> int | None:
    """k of pair_fraction = 1/k (None stays None: the default for the link); refuses other values."""
    if pair_fraction is None:
        return None
    k = round(1.0 / float(pair_fraction))
    if k > MAX_PAIR_STRIDE or abs(k * float(pair_fraction) - 1.0) > 1e-9:
        raise ValueError(f"pair_fraction must be 1/k for a whole k ≤ {MAX_PAIR_STRIDE} (each document meets every "
                         f"k-th partner): 1, 0.5, 1/3, 0.25, ...; got {pair_fraction!r}")
    return k
