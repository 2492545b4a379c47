"""boostrank: ranking models that optimise the rank statistic you report.

The public API is re-exported here and loaded on first use, so ``import boostrank``
costs milliseconds and ``br.auc`` does not pay for scikit-learn or the engines.
See the modules for details.
"""

from __future__ import annotations

import importlib

__version__ = "0.2.0.dev0"

_EXPORTS = {
    "data": ("LetorData", "LetorFormatError", "load_letor", "read_run", "read_scores", "save_letor",),
    "baselines": ("PNormPush", "PairwiseHinge", "RankBoost", "RankNetLinear",),
    "datasets": ("load_sample", "make_gaussians", "make_letor", "make_roc_flexibility",),
    "metrics": ("GroupOffsets", "auc", "canonical_metric", "err", "format_table", "get_metric", "mauc", "mean_average_precision", "metric_table", "minrank", "ndcg", "precision", "precision_at", "query_scorer", "r_precision", "rank_risk", "recall", "reciprocal_rank", "resolved_rank", "wmw",),
    "trec": ("Qrels", "Run", "load_qrels", "load_run", "save_qrels", "save_run",),
    "evaluation": ("Comparison", "compare", "evaluate",),
    "plots": ("plot_differences", "plot_roc", "plot_systems",),
    "_validation": ("OneListWarning", "group_offsets",),
    "erfc": ("erfc_sum",),
    "engines.lightgbm": ("lightgbm_metric", "lightgbm_objective",),
    "objectives": ("LambdaObjective", "lambda_gradients",),
    "mip": ("MIPRanker", "MIPResult",),
    "base": ("RankingEstimator",),
    "ranker": ("LambdaRanker",),
    "rerank": ("RerankResult", "TopKReranker",),
    "crossfit": ("cross_fit_scores",),
    "rankncg": ("RankNCG",),
    "engines.xgboost": ("xgboost_metric", "xgboost_objective",),
    "models": ("load_model", "save_model",),
    "export": ("ExportWarning", "ModelExport", "export_linear", "export_model", "linear_weights", "rerank_export", "score_export",),
    "weights": ("WeightFamily", "weight_family",),
    "precompile": ("warmup",),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_WHERE) + ["__version__"]


_SUBMODULES = frozenset({m for m in _EXPORTS if "." not in m} - {"_validation"} | {"dask", "probit", "cli", "mip",
                                                                                     "engines"})


def __getattr__(name):
    if name in _SUBMODULES:  # br.rerank.cross_fit_scores works without importing boostrank.rerank first
        return importlib.import_module(f".{name}", __name__)
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'boostrank' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(_WHERE) | _SUBMODULES)

