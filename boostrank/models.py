"""Model files: save and load every boostrank model, recognising the format from the file.

LightGBM models are LightGBM's text format, XGBoost models XGBoost's JSON, linear
models boostrank's own JSON.  Nothing is ever unpickled.
"""

from __future__ import annotations

import re

__all__ = ["save_model", "load_model", "load_booster", "check_lightgbm_model_file"]


def save_model(model, path) -> None:
    """Write a fitted :class:`boostrank.LambdaRanker` or :class:`boostrank.RankNCG`.

    Parameters
    ----------
    model : LambdaRanker or RankNCG
    path : str or path-like
        LightGBM boosters are written in LightGBM's text format with the trees up to the
        best iteration; XGBoost boosters as JSON (give the file a ``.json`` suffix),
        keeping ``best_iteration`` so :func:`load_model` predicts with the best trees.
    """
    booster = getattr(model, "booster_", None)
    if booster is not None:
        booster.save_model(str(path))
        return
    if hasattr(model, "coef_") and hasattr(model, "save_model"):
        model.save_model(path)
        return
    raise ValueError(f"{type(model).__name__} is not a fitted boostrank model")


def load_booster(path, engine: str = "lightgbm"):
    """A fitted :class:`boostrank.LambdaRanker` for prediction from an engine's model file.

    Parameters
    ----------
    path : str or path-like
    engine : {"lightgbm", "xgboost"}, default="lightgbm"

    Returns
    -------
    LambdaRanker
        With ``best_iteration_`` restored from an XGBoost file (LightGBM files already
        end at the best iteration).
    """
    from .ranker import LambdaRanker

    ranker = LambdaRanker(engine=engine)
    ranker.best_iteration_ = None
    if engine == "lightgbm":
        import lightgbm as lgb

        check_lightgbm_model_file(path)
        ranker.booster_ = lgb.Booster(model_file=str(path))
        ranker.n_features_in_ = ranker.booster_.num_feature()
        names = ranker.booster_.feature_name()
    elif engine == "xgboost":
        from .xgboost import import_xgboost

        ranker.booster_ = import_xgboost().Booster(model_file=str(path))
        ranker.n_features_in_ = ranker.booster_.num_features()
        best = ranker.booster_.attr("best_iteration")
        ranker.best_iteration_ = None if best is None else int(best)
        names = ranker.booster_.feature_names
    else:
        raise ValueError(f"engine must be 'lightgbm' or 'xgboost', got {engine!r}")
    if names and not all(re.fullmatch(r"(Column_|f)\d+", n) for n in names):
        import numpy as np

        ranker.feature_names_in_ = np.asarray(names, dtype=object)
    return ranker


def load_model(path):
    """A fitted boostrank model from a file written by :func:`save_model` (or ``boostrank train``).

    The format is recognised from the file: XGBoost JSON, LightGBM text, or boostrank's
    JSON for linear models.

    Returns
    -------
    LambdaRanker or RankNCG
    """
    with open(path, encoding="utf-8", errors="replace") as fh:
        head = fh.read(4096).lstrip()
    if head.startswith("{"):
        if '"boostrank_model"' in head:
            from .rankncg import load_linear_model

            return load_linear_model(path)
        return load_booster(path, engine="xgboost")
    if head.startswith("tree"):
        return load_booster(path, engine="lightgbm")
    raise ValueError(f"{path}: not a LightGBM, XGBoost or boostrank model file")


def check_lightgbm_model_file(path) -> None:
    """Refuse a truncated or damaged LightGBM text model before LightGBM's loader sees it.

    LightGBM aborts the process (SIGABRT/SIGSEGV) on a truncated file.  A complete file
    has ``tree_sizes=`` byte counts matching its ``Tree=`` blocks, ``end of trees``, and
    ``end of parameters`` when it has a parameters section.
    """
    raw = open(path, "rb").read()
    text = raw.decode("utf-8", errors="replace")
    if not text.startswith("tree"):
        raise ValueError(f"{path}: not a LightGBM text model")
    header, sep, rest = text.partition("\nTree=")
    sizes = re.search(r"^tree_sizes=([\d ]*)$", header, flags=re.M)
    if not sep or sizes is None or "\nend of trees" not in rest:
        raise ValueError(f"{path}: truncated or damaged LightGBM model (no complete tree section)")
    declared = [int(v) for v in sizes.group(1).split()]
    trees = rest.split("\nend of trees", 1)[0]
    n_trees = trees.count("\nTree=") + 1
    body = raw[raw.index(b"\nTree=") + 1: raw.index(b"\nend of trees")]
    if n_trees != len(declared) or abs(len(body) - sum(declared)) > len(declared) + 1:
        raise ValueError(f"{path}: truncated or damaged LightGBM model ({n_trees} trees, {len(declared)} declared)")
    if "\nparameters:" in text and "\nend of parameters" not in text:
        raise ValueError(f"{path}: truncated LightGBM model (the parameters section does not end)")
