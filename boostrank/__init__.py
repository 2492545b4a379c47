"""boostrank: ranking models that optimise the rank statistic you report.

The public API is re-exported here and loaded on first use, so ``import boostrank``
costs milliseconds and ``br.auc`` does not pay for scikit-learn or the engines.
See the modules for details.
"""

from __future__ import annotations

import importlib

__version__ = "0.2.0.dev0"

_EXPORTS = {
    "ranker": ("LambdaRanker",),
    "rankncg": ("RankNCG",),
    "mip": ("MIPRanker",),
    "rerank": ("TopKReranker", "cross_fit_scores"),
    "objectives": ("LambdaObjective", "lambda_gradients"),
    "engines.lightgbm": ("lightgbm_metric", "lightgbm_objective"),
    "engines.xgboost": ("xgboost_metric", "xgboost_objective"),
    "erfc": ("erfc_sum",),
    "metrics": ("auc", "err", "get_metric", "mauc", "mean_average_precision", "minrank", "ndcg", "precision",
                "precision_at", "query_scorer", "r_precision", "rank_risk", "recall", "reciprocal_rank",
                "resolved_rank", "wmw"),
    "evaluation": ("Qrels", "Run", "load_qrels", "load_run", "save_qrels", "save_run", "compare", "evaluate",
                   "fuse", "optimize_fusion", "train_fusion"),
    "evaluation.plots": ("plot_differences", "plot_roc", "plot_systems"),
    "data": ("load_letor", "save_letor"),
    "datasets": ("load_sample",),
    "models": ("load_model", "save_model"),
    "export": ("export_linear", "export_model", "score_export"),
    "exceptions": ("LetorFormatError", "OneListWarning"),
    "precompile": ("warmup",),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_WHERE) + ["__version__"]


#: modules that moved into a subpackage, still reached as ``br.<name>``
_MOVED = {"crossfit": "rerank.crossfit"}
#: the modules a user reaches as ``br.<module>`` (the result types, generators and helpers live there)
_SUBMODULES = frozenset({m for m in _EXPORTS if "." not in m} | set(_MOVED)
                        | {"dask", "cli", "engines", "base", "weights", "queries"})


def __getattr__(name):
    if name in _SUBMODULES:  # br.rerank.cross_fit_scores works without importing boostrank.rerank first
        return importlib.import_module(f".{_MOVED.get(name, name)}", __name__)
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'boostrank' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(_WHERE) | _SUBMODULES)

