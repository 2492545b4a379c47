"""boostrank: ranking models that optimise the rank statistic you report.

The public API is re-exported here and loaded on first use, so ``import boostrank``
costs milliseconds and ``br.auc`` does not pay for scikit-learn or the engines.
See the modules for details.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys as _sys

__version__ = "0.2.0.dev0"

_EXPORTS = {
    "ranker": ("LambdaRanker",),
    "linear.rankncg": ("RankNCG",),
    "mip": ("MIPRanker",),
    "rerank": ("TopKReranker", "cross_fit_scores"),
    "objectives": ("LambdaObjective", "lambda_gradients"),
    "engines.lightgbm": ("lightgbm_metric", "lightgbm_objective"),
    "engines.xgboost": ("xgboost_metric", "xgboost_objective"),
    "linear.erfc": ("erfc_sum",),
    "metrics": ("auc", "err", "get_metric", "mauc", "mean_average_precision", "minrank", "ndcg", "precision",
                "precision_at", "query_scorer", "r_precision", "rank_risk", "recall", "reciprocal_rank",
                "resolved_rank", "wmw"),
    "evaluation": ("Qrels", "Run", "load_qrels", "load_run", "save_qrels", "save_run", "compare", "evaluate",
                   "fuse", "optimize_fusion", "train_fusion"),
    "evaluation.plots": ("plot_differences", "plot_roc", "plot_systems"),
    "io.letor": ("load_letor", "save_letor"),
    "io.datasets": ("load_sample",),
    "io.models": ("load_model", "save_model"),
    "export": ("export_linear", "export_model", "score_export"),
    "exceptions": ("LetorFormatError", "OneListWarning"),
    "precompile": ("warmup",),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_WHERE) + ["__version__"]


#: modules that moved into a subpackage, still reached as ``br.<name>`` and ``import boostrank.<name>``
_MOVED = {"crossfit": "rerank.crossfit", "rankncg": "linear.rankncg", "erfc": "linear.erfc", "data": "io.letor",
          "datasets": "io.datasets", "models": "io.models", "trees": "engines.trees"}
#: the modules a user reaches as ``br.<module>`` (the result types, generators and helpers live there)
_SUBMODULES = frozenset({m for m in _EXPORTS if "." not in m} | set(_MOVED)
                        | {"dask", "cli", "engines", "base", "weights", "queries", "io", "linear"})


_HOMES: dict = {}  # a moved module's own spec while the import system stamps the old name's on it


class _Moved(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import boostrank.data`` (or any name of :data:`_MOVED`) gives the module at its new home: the same
    object, so its names, its classes and ``isinstance`` checks are those of the new module."""

    def find_spec(self, fullname, path=None, target=None):
        package, _, name = fullname.rpartition(".")
        if package != __name__ or name not in _MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        module = importlib.import_module(f"{__name__}.{_MOVED[spec.name.rpartition('.')[2]]}")
        _HOMES[module.__name__] = module.__spec__  # the import system stamps the old name's spec on it: undone below
        return module

    def exec_module(self, module):
        module.__spec__ = _HOMES.pop(module.__name__, module.__spec__)  # the module ran at its own home


if not any(isinstance(f, _Moved) for f in _sys.meta_path):
    _sys.meta_path.append(_Moved())


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

