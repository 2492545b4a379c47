"""Position bias of click feedback: what the λ objectives do with the rank each document was shown at.

A click (or a stronger signal: a purchase, a long dwell) needs the user to have examined the
document, and examination falls with the rank it was shown at, so on raw clicks a model learns the
logging ranker's order as much as relevance.  Given each row's 0-based display position, the λ
objectives correct this in one of two ways (:class:`PositionBias`):

``"propensity"``
    The position-based click model (Richardson, Dominowska & Ragno, WWW 2007): P(click) = e_k ×
    P(relevant), e_k the examination propensity of position k.  A pair of a clicked document i and
    an unclicked one j weighs 1/e_i (inverse propensity, Joachims, Swaminathan & Schnabel, WSDM
    2017; per side, as Hu et al., WWW 2019, factor Unbiased LambdaMART's pair weights) times the
    probability that j, not clicked at its position, is irrelevant, (1 − γ_j)/(1 − e_j γ_j) with γ the
    model's relevance; two documents with feedback weigh 1/(e_i e_j).  The anchor's log-loss becomes
    the click model's likelihood (e_k σ(s + b)).  The propensities are given (``propensity=``, as
    estimated by intervention), or estimated with the model, an EM step per round on the click
    model (regression EM, Wang et al., WSDM 2018), kept non-increasing in the position (isotonic).
``"additive"``
    LightGBM's correction of ``lambdarank`` (``Dataset(position=)``, LightGBM ≥ 4.1): a learned
    bias per position added to the scores in training, one regularised Newton step per round;
    the model scores without it.

Only the relevance part is the model: what an engine saves and predicts never holds a position.
"""

from __future__ import annotations

import numpy as np

from .._kernels.clicks import click_factors

__all__ = ["PositionBias", "check_propensity", "CORRECTIONS", "MIN_PROPENSITY"]

#: ``position_bias`` values: "auto" is the measured best (:data:`DEFAULT`)
CORRECTIONS = ("auto", "propensity", "additive", "none")
#: what ``position_bias="auto"`` takes when positions are given (benchmarks/clicks.py)
DEFAULT = "propensity"
#: how the propensities are estimated when none are given: "em", an EM step of the click model each round with
#: the model's relevance; "ctr", the click-through rate by position relative to the top's (non-increasing), once
ESTIMATE = "em"
#: the smallest examination propensity: an inverse-propensity weight of a click is at most 1 / MIN_PROPENSITY
#: (clipped, as Joachims et al. clip theirs, so a click at a rank users rarely reach cannot outweigh a list); the
#: defaults here (ESTIMATE, MIN_PROPENSITY, WEIGHT_POWER, LOWER, and the anchor's and norm's with clicks) were
#: chosen on the development sets of benchmarks/clicks.py --candidates: the most gap recovered under weak and
#: adverse logging rankers among those costing a good one at most a third of LightGBM's correction's cost, over
#: η = 0.5, 1 and 2 (round 4: 0.2 cost a good logger .0116 at η = 0.5, 0.5 nothing)
MIN_PROPENSITY = 0.5
#: the inverse-propensity weight of a click is e^(−WEIGHT_POWER): 1 is unbiased, less trades the bias left for
#: less variance (Hu et al. regularise their propensities alike)
WEIGHT_POWER = 1.0
#: the weight of an unclicked document in a pair: "posterior", how likely it is irrelevant given it was not
#: clicked at its position, (1 − γ) / (1 − e γ); "one", every unclicked document a full negative
LOWER = "posterior"
#: LightGBM's floor of the bias step's denominator (rank_objective.hpp, UpdatePositionBiasFactors)
_NEWTON_FLOOR = 1e-3


def check_propensity(propensity) -> np.ndarray | None:
    """Given examination propensities, one per position from 0: in (0, 1], float64."""
    if propensity is None:
        return None
    e = np.asarray(propensity, dtype=np.float64).ravel()
    if e.size == 0 or not np.isfinite(e).all() or (e <= 0).any() or (e > 1).any():
        raise ValueError(f"propensity holds one examination probability in (0, 1] per position from 0, got "
                         f"{propensity!r}")
    return e


class PositionBias:
    """One fit's position-bias correction: the rows' positions and feedback, and what it learned so far.

    Parameters
    ----------
    kind : {"propensity", "additive"}
    position : ndarray of int64
        Checked by :func:`check_positions`.
    labels : ndarray
        The kernel's classes (0: no feedback).
    propensity : ndarray or None
        Given propensities per position (not re-estimated); None: estimated.
    learning_rate : float
        The additive term's step (the engine's learning rate).
    regularization : float
        The additive term's L2 penalty per row (LightGBM's ``lambdarank_position_bias_regularization``).
    """

    def __init__(self, kind: str, position: np.ndarray, labels: np.ndarray, propensity=None,
                 learning_rate: float = 0.1, regularization: float = 0.0):
        self.kind = kind
        self.position = position
        n_pos = int(position.max()) + 1 if position.size else 1
        self.counts = np.bincount(position, minlength=n_pos).astype(np.float64)
        self.clicked = labels > 0
        self.learning_rate, self.regularization = float(learning_rate), float(regularization)
        #: the additive term per position (kind "additive")
        self.bias = np.zeros(n_pos)
        self.given = propensity is not None
        if self.given:  # as measured, but clipped
            e = np.ones(n_pos)
            e[:min(n_pos, propensity.size)] = propensity[:n_pos]
            e[propensity.size:] = propensity[-1]  # past the given positions: the last one's
            e = np.clip(e, MIN_PROPENSITY, 1.0)
        else:  # the click-through rate by position, relative to the top's, until the model says more
            ctr = np.bincount(position, weights=self.clicked, minlength=n_pos) / np.maximum(self.counts, 1.0)
            e = self._smoothed(ctr / ctr[0] if ctr[0] > 0 else np.ones(n_pos))
        #: examination propensity per position
        self.propensity = e
        self._upper = np.empty(position.shape[0])
        self._lower = np.empty(position.shape[0])
        self._exam = np.empty(position.shape[0])
        self._seen = np.zeros(n_pos)  # the E step's sums, of the scores factors() last saw
        self._odds = np.empty(position.shape[0])
        self._inverse = np.empty(n_pos)
        self._fresh = False

    def _smoothed(self, e: np.ndarray) -> np.ndarray:
        """Non-increasing in the position (isotonic, weighted by the rows at each), within [MIN_PROPENSITY, 1]."""
        seen = self.counts > 0
        out = np.ones_like(e)
        if seen.any():
            fitted = _isotonic_decreasing(np.minimum(e[seen], 1.0), self.counts[seen])
            out[seen] = fitted
            out[~seen] = np.interp(np.flatnonzero(~seen), np.flatnonzero(seen), fitted)
        return np.clip(out, MIN_PROPENSITY, 1.0)

    def scores(self, s: np.ndarray) -> np.ndarray:
        """The scores the λs are computed on: with the additive term in training, as they are otherwise."""
        return s + self.bias[self.position] if self.kind == "additive" else s

    def exam(self) -> np.ndarray:
        """Each row's examination propensity, for the anchor's click likelihood (none for "additive"), as of the
        last :meth:`factors`."""
        return self._exam if self.kind == "propensity" else np.zeros(0)

    def factors(self, s: np.ndarray, offset: float) -> tuple[np.ndarray, np.ndarray]:
        """Per-row pair factors (upper side, lower side) of :func:`~boostrank._kernels.lambdas.lambda_auc_kernel`,
        with γ = σ(s + ``offset``) the model's relevance of each row (:func:`~boostrank._kernels.clicks.click_factors`,
        which also takes the E step's sums for :meth:`update`)."""
        if self.kind != "propensity":
            return np.zeros(0), np.zeros(0)
        odds = self._odds
        np.add(s, offset, out=odds)
        np.negative(odds, out=odds)
        with np.errstate(over="ignore"):  # inf: γ = 0
            np.exp(odds, out=odds)  # NumPy's exp runs vectorised; the kernel's rows then need none
        click_factors(self.position, self.clicked, self.propensity, odds, float(WEIGHT_POWER), LOWER == "posterior",
                      self._upper, self._lower, self._exam, self._seen, self._inverse)
        self._fresh = True
        return self._upper, self._lower

    def update(self, s: np.ndarray, grad: np.ndarray, hess: np.ndarray, offset: float) -> None:
        """After a round's gradients: the additive term's Newton step, or the propensities' EM step (E: how likely
        each row was examined given its feedback and the model's relevance; M: the share examined at each
        position, kept non-increasing)."""
        if self.kind == "additive":
            n = self.counts
            first = -np.bincount(self.position, weights=grad, minlength=n.shape[0])
            first -= self.bias * self.regularization * n
            second = np.bincount(self.position, weights=hess, minlength=n.shape[0]) + self.regularization * n
            self.bias += self.learning_rate * first / (second + _NEWTON_FLOOR)
        elif not self.given and ESTIMATE == "em":
            if not self._fresh:  # the sums of these scores
                self.factors(s, offset)
            self._fresh = False
            self.propensity = self._smoothed(self._seen / np.maximum(self.counts, 1.0))


def _isotonic_decreasing(y: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """The weighted least-squares non-increasing fit of ``y`` (SciPy's pool-adjacent-violators; scikit-learn's
    before SciPy 1.12)."""
    try:
        from scipy.optimize import isotonic_regression
    except ImportError:
        from sklearn.isotonic import isotonic_regression as fit

        return fit(y, sample_weight=weight, increasing=False)
    return isotonic_regression(y, weights=weight, increasing=False).x
