"""One object per boosting engine: everything boostrank knows about LightGBM and XGBoost.

Each engine is a module with the same interface: training (``train_ranker``, ``dask_train``),
prediction at the best round (``predict``, ``round_scores``), round counts (``n_rounds``,
``best_iteration``), importances and sample-weight conventions (``PER_QUERY_WEIGHTS``), model
files (``save_model``, ``load_model``, ``refit_params``) and the trees of a model with the
engine's split rules (``forest``, ``route``, ``left_set``).  Estimators, the re-ranker and the
exporters ask :data:`ENGINES` and never branch on an engine's name.
"""

from . import lightgbm, xgboost

ENGINES = {"lightgbm": lightgbm, "xgboost": xgboost}


def booster_of(model):
    """(engine, booster, rounds the model predicts with) of a Booster, an engine's scikit-learn estimator or a
    LambdaRanker."""
    kind = type(model).__module__.split(".")[0]
    if kind in ENGINES and type(model).__name__ == "Booster":
        engine = ENGINES[kind]
        return engine, model, engine.booster_rounds(model)
    booster = getattr(model, "booster_", None)
    if booster is None and hasattr(model, "get_booster"):
        booster = model.get_booster()
    if booster is None or type(booster).__module__.split(".")[0] not in ENGINES:
        raise TypeError(f"{type(model).__name__} is not a fitted LightGBM or XGBoost model (or LambdaRanker)")
    engine, _, own_best = booster_of(booster)
    if hasattr(model, "best_iteration_"):  # LambdaRanker's and LGBMRanker's count from 1; 0 or None: all rounds
        return engine, booster, int(model.best_iteration_) if model.best_iteration_ else None
    return engine, booster, own_best


def forest_of(model):
    """The trees of a LightGBM or XGBoost model (a ``Booster``, ``LGBMRanker``, ``XGBRanker`` or ``LambdaRanker``).

    The rounds used are the ones the model predicts with (its best iteration after early stopping).

    Parameters
    ----------
    model : fitted model

    Returns
    -------
    boostrank.trees.Forest

    Raises
    ------
    ValueError
        A model these trees cannot hold: categorical splits, linear trees, several outputs per
        round (multi-class), or an XGBoost booster that is not ``gbtree``.
    """
    engine, booster, rounds = booster_of(model)
    return engine.forest(booster, rounds)
