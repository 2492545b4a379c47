"""Re-ranking the top K of a base list: the estimator, its held-out gate and the cross-fitted base scores.

* :mod:`.estimator`: :class:`TopKReranker` and its :class:`RerankResult` (Rudin & Wang §2).
* :mod:`.gate`: which second stage the held-out folds keep, and its fold-clustered test.
* :mod:`.crossfit`: out-of-fold base scores (:func:`cross_fit_scores`), nested for the gate.
"""

from .crossfit import cross_fit_scores
from .estimator import RerankResult, TopKReranker, refit_estimator, top_k_rows

__all__ = ["TopKReranker", "RerankResult", "top_k_rows", "cross_fit_scores", "refit_estimator"]
