"""RankNCG: a linear ranker maximising a lower bound of the generalised WMW (Raykar §3–§5).

L(w) = −λ/2 ‖w‖² + Σ_{(a ≻ b) ∈ graph} Σ_{l ∈ a, k ∈ b} log σ(wᵀ(x_l − x_k))

(Raykar eq. 2) is maximised with Polak–Ribière nonlinear conjugate gradients (§4).
The gradient −λw + Σ (x_l − x_k) σ(−wᵀ(x_l − x_k)) is Xᵀc for per-document pair
coefficients c.  The vocabulary is the λ objectives': ``link="logistic",
method="exact"`` sums the logistic over all pairs (O(M²)); ``link="probit"``
replaces σ by 1 − ½ erfc(αu), α = √3/(√2 π) (eq. 3), summed pair by pair
(``method="exact"``) or, with ``method="fast"``, from :func:`boostrank.erfc_sum` in
O(p n) per edge of the graph.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numba
import numpy as np
from scipy import sparse
from sklearn.utils.validation import validate_data
from threadpoolctl import ThreadpoolController

from .._kernels.config import AUTO_PAIRS_PER_EDGE
from .._kernels.jit import numba_threads
from .._kernels.rankncg import pair_coefficients
from .._validation import GroupOffsets, as_int_labels, group_offsets
from ..base import VERBOSE, Integral, Interval, Real, RankingEstimator, StrOptions
from ..metrics.arrays import wmw
from ..queries import list_index
from .erfc import ERFC_ALPHA, erfc_sum, series_parameters

__all__ = ["RankNCG", "pair_gradient", "load_linear_model", "ERFC_ALPHA"]


class _Pairs:
    """Preference structure of a training set: classes, groups, graph."""

    def __init__(self, y, offsets, graph):
        labels = as_int_labels(y)
        self.classes = np.unique(labels)
        if self.classes.shape[0] < 2:
            raise ValueError("y has one class (a single label value): there are no preference pairs to learn from")
        self.cls = np.searchsorted(self.classes, labels).astype(np.int64)
        self.offsets = offsets
        S = self.classes.shape[0]
        prefer = np.zeros((S, S), dtype=np.bool_)
        if isinstance(graph, str):
            if graph != "full":
                raise ValueError(f"graph must be 'full' or an edge list, got {graph!r}")
            hi, lo = np.tril_indices(S, k=-1)
            prefer[hi, lo] = True
        else:
            edges = np.asarray(graph, dtype=np.int64).reshape(-1, 2)
            for lo_label, hi_label in edges:
                if lo_label == hi_label:
                    raise ValueError("a preference edge must join two different classes")
                ia, ib = np.searchsorted(self.classes, [hi_label, lo_label])
                if (ia >= S or ib >= S or self.classes[ia] != hi_label or self.classes[ib] != lo_label):
                    raise ValueError(f"edge ({lo_label}, {hi_label}) names a class absent from y")
                prefer[ia, ib] = True
        self.prefer = prefer
        self.edges = np.argwhere(prefer)  # rows (a, b): class a above class b
        n_groups = self.offsets.shape[0] - 1
        self.group = list_index(self.offsets)
        # counts[g, c]: documents of class c in query g
        self.counts = np.zeros((n_groups + 1, S), dtype=np.float64)
        np.add.at(self.counts, (self.group, self.cls), 1.0)
        self.after = np.cumsum(self.counts[::-1], axis=0)[::-1]  # after[g]: queries ≥ g
        self.members = [np.flatnonzero(self.cls == c) for c in range(S)]
        pairs = 0.0
        for a, b in self.edges:
            pairs += float(np.sum(self.counts[:-1, a] * self.counts[:-1, b]))
        self.n_pairs = pairs
        if pairs == 0:
            raise ValueError("no query holds two classes joined by the preference graph: nothing to learn")


def _link_method(link, method):
    """(link, method), checked."""
    if link not in ("logistic", "probit"):
        raise ValueError(f"link must be 'logistic' or 'probit', got {link!r}")
    if method not in ("exact", "fast", "auto"):
        raise ValueError(f"method must be 'exact', 'fast' or 'auto', got {method!r}")
    if method == "fast" and link != "probit":
        raise ValueError("method='fast' needs link='probit' (the series sums erfc, not the logistic)")
    return link, method


def _note_compile(method: str) -> None:
    """The once-per-process notice, checked on the kernel the fit's gradient runs through (the erfc series
    for ``method="fast"``, which never calls the pair sums: checked on those, a warm demo printed it every run)."""
    from .._kernels.erfc import series_blocks
    from .._kernels.jit import note_first_compile

    note_first_compile("RankNCG", series_blocks if method == "fast" else pair_coefficients)


def _resolve_method(link, method, pairs):
    """The summation ``method="auto"`` stands for on these pairs."""
    if method != "auto":
        return method
    if link != "probit" or pairs.n_pairs <= AUTO_PAIRS_PER_EDGE * max(len(pairs.edges), 1):
        return "exact"
    return "fast"


def _coefficients(f, pairs: _Pairs, link: str, method: str, eps: float):
    """Per-document pair coefficients c (gradient of the pair sum = Xᵀc)."""
    if method == "exact":
        coef = np.empty_like(f)
        pair_coefficients(f, pairs.cls, pairs.offsets, pairs.prefer, link == "probit", ERFC_ALPHA, coef)
        return coef
    t = ERFC_ALPHA * f
    n_groups = pairs.offsets.shape[0] - 1
    if n_groups > 1:
        # Lay the queries out along the line, more than three cut-off radii apart, so
        # one erfc sum serves every query: a source in another query lands in a far
        # block and counts exactly 0 (below) or 2 (above), which is subtracted.
        gap = float(t.max() - t.min()) + 4.0 * series_parameters(eps).r + 1.0
        t = t + gap * pairs.group
    coef = np.zeros_like(f)
    for a, b in pairs.edges:
        ia, ib = pairs.members[a], pairs.members[b]
        if ia.size == 0 or ib.size == 0:
            continue
        ga, gb = pairs.group[ia], pairs.group[ib]
        # l ∈ a: Σ_{k∈b} σ(−u) = ½ Σ_k erfc(t_l − t_k)
        e_a = erfc_sum(t[ia], t[ib], eps=eps) - 2.0 * pairs.after[ga + 1, b]
        coef[ia] += 0.5 * e_a
        # k ∈ b: Σ_{l∈a} ½ erfc(t_l − t_k) = ½ (2 m_a − Σ_l erfc(t_k − t_l))
        e_b = erfc_sum(t[ib], t[ia], eps=eps) - 2.0 * pairs.after[gb + 1, a]
        coef[ib] -= 0.5 * (2.0 * pairs.counts[gb, a] - e_b)
    return coef


def pair_gradient(w, X, y, qid=None, *, graph="full", alpha: float = 1.0, link: str = "logistic",
                  method: str = "exact", eps: float = 1e-6) -> np.ndarray:
    """Gradient of RankNCG's penalised log-likelihood at ``w`` (Raykar §4 and eq. 3).

    Parameters
    ----------
    w : array-like of shape (n_features,)
    X, y, qid, graph
        As in :meth:`RankNCG.fit` (no standardisation here).
    alpha : float, default=1.0
        λ of the Gaussian prior.
    link : {"logistic", "probit"}, default="logistic"
        The logistic σ, or its erfc approximation (Raykar eq. 3).
    method : {"exact", "fast", "auto"}, default="exact"
        Sum pair by pair, or (probit) through :func:`boostrank.erfc_sum`.
    eps : float, default=1e-6
        Accuracy of the fast sums.

    Returns
    -------
    ndarray of shape (n_features,)
    """
    X = np.asarray(X, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    pairs = _Pairs(y, group_offsets(len(y), qid=qid), graph)
    link, method = _link_method(link, method)
    method = _resolve_method(link, method, pairs)
    return -alpha * w + X.T @ _coefficients(X @ w, pairs, link, method, eps)


def log_likelihood(w, X, y, qid=None, *, graph="full", alpha: float = 1.0) -> float:
    """L(w) of Raykar eq. 2 with the logistic σ (exact, O(M²))."""
    X = np.asarray(X, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    pairs = _Pairs(y, group_offsets(len(y), qid=qid), graph)
    coef = np.empty(X.shape[0])
    ll = pair_coefficients(X @ w, pairs.cls, pairs.offsets, pairs.prefer, False, ERFC_ALPHA, coef)
    return float(-0.5 * alpha * w @ w + ll)


@functools.lru_cache(maxsize=1)
def _blas_controller() -> ThreadpoolController:
    """threadpoolctl's view of the loaded BLAS, built once (a scan walks every loaded library)."""
    return ThreadpoolController()


class RankNCG(RankingEstimator):
    """Linear ranker maximising a lower bound of the generalised WMW (Raykar et al. 2007).

    Parameters
    ----------
    alpha : float, default=1.0
        λ of the Gaussian prior −λ/2 ‖w‖² (eq. 2), applied to the weights of the
        standardised features.  Pairs are not averaged, so its effect shrinks as the
        number of pairs grows, as in the paper.
    graph : "full" or array-like of shape (n_edges, 2), default="full"
        Preference graph between label classes: Raykar's full order graph (every
        higher class above every lower one), or (lo, hi) label pairs.
    link : {"probit", "logistic"}, default="probit"
        ``"probit"``: Raykar's erfc approximation of σ (eq. 3); ``"logistic"``: σ itself.
    method : {"auto", "fast", "exact"}, default="auto"
        ``"fast"`` (probit only): the ε-exact linear-time sums (O(dn + pn) per
        gradient); ``"exact"``: sums over all pairs (O(dM²)); ``"auto"``: exact up to
        ``AUTO_PAIRS_PER_EDGE`` (2 500) pairs per preferred class pair, fast above.
        The series has a fixed cost per class pair, so on small sets (a few hundred
        rows) the pair sums are faster; the fitted ``method_`` says which ran.
    eps : float, default=1e-6
        Accuracy of the fast sums (the paper's setting).
    tol : float, default=1e-3
        Stop when ‖∇L‖ ≤ tol · ‖∇L(w₀)‖ (the paper's CG tolerance 1e-3).
    max_iter : int, default=200
        Conjugate-gradient iterations.
    n_jobs : int, default=None
        Threads of the gradient's kernels (the series and the pair sums); None or −1: all
        of Numba's.
    verbose : int, default=0
        1: a progress bar over the iterations with the gradient norm; 2: also a line per
        iteration.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Weights in the caller's feature units.
    classes_ : ndarray
        Label values seen in ``fit`` (in preference order).
    n_iter_ : int
    n_pairs_ : int
        Preferred pairs the likelihood sums over.
    method_ : str
        ``"exact"`` or ``"fast"``: how the pair sums ran (``method="auto"`` picks).
    n_features_in_ : int

    Notes
    -----
    There is no intercept: a constant shift of all scores changes no pair, so
    ``fit_intercept`` would be meaningless for ranking.  Features are standardised
    internally (zero mean, unit variance; constant features are left unscaled) and
    ``coef_`` is mapped back, so ``decision_function(X) = X @ coef_`` (up to a
    constant) ranks as the standardised model does.

    The line search finds the root of the directional derivative by bracketing and
    Illinois false position (L is concave, so it is unique); CG restarts (β = 0)
    when the Polak–Ribière β is negative, every ``n_features`` iterations, and when
    the direction stops ascending.

    Examples
    --------
    >>> import numpy as np, boostrank as br
    >>> data = br.datasets.make_letor(60, random_state=0)
    >>> train, test = data.take_queries(np.arange(40)), data.take_queries(np.arange(40, 60))
    >>> model = br.RankNCG().fit(train.X, train.y, qid=train.qid)
    >>> model.method_, model.coef_.shape
    ('exact', (10,))
    >>> model.score(test.X, test.y, qid=test.qid) > 0.8  # the generalised WMW of the test lists
    True
    """

    _one_list_setting = True  # a statistic of one data set
    _parameter_constraints = {
        "alpha": [Interval(Real, 0, None, closed="left")],
        "graph": [StrOptions({"full"}), "array-like"],
        "link": [StrOptions({"probit", "logistic"})],
        "method": [StrOptions({"auto", "fast", "exact"})],
        "eps": [Interval(Real, 1e-16, 0.5, closed="both")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "n_jobs": [Interval(Integral, -1, None, closed="left"), None],
        "verbose": VERBOSE,
    }

    def __init__(self, *, alpha: float = 1.0, graph="full", link: str = "probit", method: str = "auto",
                 eps: float = 1e-6, tol: float = 1e-3, max_iter: int = 200, n_jobs: int | None = None,
                 verbose: int = 0):
        self.alpha = alpha
        self.graph = graph
        self.link = link
        self.method = method
        self.eps = eps
        self.tol = tol
        self.max_iter = max_iter
        self.n_jobs = n_jobs
        self.verbose = verbose

    def fit(self, X, y, *, qid=None, group=None):
        """Maximise L(w) on ``X, y`` (pairs within each query when ``qid`` or ``group`` is given).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Integer grades; every pair of rows with different grades is a preference.
        qid : array-like of shape (n_samples,), default=None
            Query ids (contiguous rows): pairs only within a query.
        group : array-like of int, default=None
            Query sizes in row order, instead of ``qid``.  Without both the rows are one
            data set, the generalised WMW statistic's own setting (no warning).

        Returns
        -------
        self
        """
        # zero iterations would leave w = 0: every score ties, and Raykar's WMW credits every tie (1.0)
        self._validate_params()
        if isinstance(self.max_iter, bool):  # scikit-learn's integer interval takes True as 1
            raise ValueError(f"max_iter must be a positive integer, got {self.max_iter!r}")
        self._link, self._method = _link_method(self.link, self.method)
        data = self._ranking_data(X, y, qid, group, features=lambda X: validate_data(
            self, X, accept_sparse="csr", dtype=np.float64))
        X = data.X
        self.n_groups_ = data.n_groups  # several lists: score and predict want their qid
        largest = float(abs(X).max()) if X.shape[0] * X.shape[1] else 0.0
        if largest > MAX_FEATURE:  # squared in the line search and the Gram terms: inf, then coef_ = 0
            raise ValueError(f"features reach {largest:.3g}; RankNCG squares them (past {MAX_FEATURE:.0e} that "
                             f"overflows float64): scale or standardise X")
        X = X.toarray() if sparse.issparse(X) else X
        pairs = _Pairs(data.y, data.starts, self.graph)
        self._method = self.method_ = _resolve_method(self._link, self._method, pairs)
        _note_compile(self._method)
        mean = X.mean(axis=0)
        scale = X.std(axis=0)
        scale[scale == 0] = 1.0
        Xs = (X - mean) / scale
        # Xw and Xᵀc alternate with the parallel kernels: OpenBLAS's threads spin after
        # each product and hold the cores the kernels need (a 20 640 × 9 fit took 0.19 s
        # instead of 0.017 s, 10⁶ × 20 1.30 s instead of 0.81 s)
        with _blas_controller().limit(limits=1, user_api="blas"), numba_threads(self._threads()):
            w = self._conjugate_gradient(Xs, pairs)
        self.coef_ = w / scale
        self._offset = float(mean @ self.coef_)
        self.classes_ = pairs.classes
        self.n_pairs_ = int(pairs.n_pairs)
        return self

    def _threads(self) -> int:
        available = numba.config.NUMBA_NUM_THREADS
        if self.n_jobs is None or self.n_jobs == -1:
            return numba.get_num_threads()
        if self.n_jobs == 0:
            raise ValueError("n_jobs=0 runs nothing: give a positive count, or -1 (None) for all")
        return min(int(self.n_jobs), available)

    def _grad(self, w, f, pairs, Xs):
        return -self.alpha * w + Xs.T @ _coefficients(f, pairs, self._link, self._method, self.eps)

    def _conjugate_gradient(self, Xs, pairs):
        lam = self.alpha
        w = np.zeros(Xs.shape[1])
        f = np.zeros(Xs.shape[0])
        g = self._grad(w, f, pairs, Xs)
        g0 = float(np.linalg.norm(g))
        d = g.copy()
        step = 1.0 / max(g0, 1e-300)
        it = 0
        bar = self._progress(self.max_iter, "RankNCG")
        for it in range(1, self.max_iter + 1):
            gn = float(np.linalg.norm(g))
            bar.set_postfix_str(f"|grad| = {gn:.4g}", refresh=False)
            if int(self.verbose) >= 2:
                print(f"RankNCG iter {it - 1}: |grad| = {gn:.4g}")
            if gn <= self.tol * g0 or gn == 0.0:
                it -= 1
                break
            bar.update(1)
            fd = Xs @ d

            def slope(eta):  # φ'(η) = ∇L(w + ηd) · d, without a new Xᵀc
                c = _coefficients(f + eta * fd, pairs, self._link, self._method, self.eps)
                return float(-lam * d @ (w + eta * d) + c @ fd)

            eta = _line_search(slope, float(g @ d), step)
            step = eta
            w = w + eta * d
            f = f + eta * fd
            g_new = self._grad(w, f, pairs, Xs)
            beta = max(0.0, float(g_new @ (g_new - g)) / float(g @ g))
            if it % max(Xs.shape[1], 1) == 0:
                beta = 0.0
            d = g_new + beta * d
            if d @ g_new <= 0:
                d = g_new.copy()
            g = g_new
        bar.close()
        self.n_iter_ = it
        return w

    def decision_function(self, X) -> np.ndarray:
        """Scores wᵀx (higher ranks first)."""
        self._check_fitted()
        X = validate_data(self, X, reset=False, accept_sparse="csr", dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            scores = np.asarray(X @ self.coef_).reshape(-1) - self._offset
        if not np.isfinite(scores).all():  # X is finite (validate_data): wᵀx overflowed
            raise ValueError(f"the model produced {int((~np.isfinite(scores)).sum())} NaN/inf scores: wᵀx "
                             f"overflows for these features (largest |w| {np.abs(self.coef_).max():.3g})")
        return scores

    predict = decision_function

    def _statistic(self, y, scores, offsets, sample_weight) -> float:
        """Generalised WMW (Raykar eq. 1) of the scores on the fitted graph, pairs within the lists."""
        graph = self.graph if isinstance(self.graph, str) else np.asarray(self.graph)
        return float(wmw(y, scores, GroupOffsets(offsets), graph=graph))

    def save_model(self, path) -> None:
        """Write the fitted model as JSON (``boostrank predict`` reads it)."""
        self._check_fitted()
        params = self.get_params()
        if not isinstance(params["graph"], str):
            params["graph"] = np.asarray(params["graph"]).tolist()
        doc = {"boostrank_model": "RankNCG", "format_version": 1, "params": params,
               "coef": self.coef_.tolist(), "offset": self._offset, "classes": self.classes_.tolist(),
               "n_iter": self.n_iter_, "n_pairs": self.n_pairs_, "n_groups": int(getattr(self, "n_groups_", 1))}
        Path(path).write_text(json.dumps(doc, indent=1))

    @classmethod
    def load_model(cls, path) -> "RankNCG":
        """Read a model written by :meth:`save_model`."""
        doc = _read_json(path, "RankNCG model")
        if not isinstance(doc, dict) or doc.get("boostrank_model") != "RankNCG":
            raise ValueError(f"{path}: not a RankNCG model file")
        missing = [k for k in ("params", "coef", "offset", "classes", "n_iter", "n_pairs") if k not in doc]
        if missing:
            raise ValueError(f"{path}: damaged RankNCG model file: no {', '.join(missing)}")
        try:
            model = cls(**doc["params"])
            model.coef_ = np.asarray(doc["coef"], dtype=np.float64)
            model._offset = float(doc["offset"])
            model.classes_ = np.asarray(doc["classes"])
            model.n_iter_ = int(doc["n_iter"])
            model.n_pairs_ = int(doc["n_pairs"])
            model.n_groups_ = max(1, int(doc.get("n_groups", 1)))
        except (TypeError, ValueError, OverflowError) as exc:
            raise ValueError(f"{path}: damaged RankNCG model file: {exc}") from None
        if model.coef_.ndim != 1 or model.coef_.size == 0 or not np.isfinite(model.coef_).all() \
                or not np.isfinite(model._offset):
            raise ValueError(f"{path}: damaged RankNCG model file: coef must be a non-empty list of finite numbers")
        model.n_features_in_ = model.coef_.shape[0]
        return model

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


#: Largest feature magnitude RankNCG accepts: its squares and sums of squares stay finite in float64
MAX_FEATURE = 1e150


def _line_search(slope, d0, step, max_expand=60, max_iter=30):
    """Root of the decreasing φ'(η) on η > 0, φ'(0) = d0 > 0."""
    lo, f_lo = 0.0, d0
    hi = step
    f_hi = slope(hi)
    n = 0
    while f_hi > 0 and n < max_expand:
        lo, f_lo = hi, f_hi
        hi *= 4.0
        f_hi = slope(hi)
        n += 1
    if f_hi > 0:
        return hi
    side = 0
    eta = hi
    for _ in range(max_iter):
        eta = (lo * f_hi - hi * f_lo) / (f_hi - f_lo)
        fe = slope(eta)
        if abs(fe) <= 1e-3 * d0 or hi - lo <= 1e-12 * hi:
            break
        if fe > 0:
            lo, f_lo = eta, fe
            if side == 1:
                f_hi *= 0.5
            side = 1
        else:
            hi, f_hi = eta, fe
            if side == -1:
                f_lo *= 0.5
            side = -1
    return eta


def _read_json(path, what: str):
    """A JSON document, or a ValueError naming the file (damaged bytes raised json's or codecs' own errors)."""
    try:
        return json.loads(Path(path).read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ValueError(f"{path}: damaged {what} file: {type(exc).__name__}: {str(exc)[:120]}") from None


def load_linear_model(path):
    """A linear boostrank model (RankNCG) from its JSON file."""
    doc = _read_json(path, "boostrank model")
    kind = doc.get("boostrank_model") if isinstance(doc, dict) else None
    if kind == "RankNCG":
        return RankNCG.load_model(path)
    raise ValueError(f"{path}: unknown boostrank model type {kind!r}")
