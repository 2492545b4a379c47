"""One object per boosting engine: everything boostrank knows about LightGBM and XGBoost.

Each engine is a module answering the :class:`Engine` protocol: training (``train_ranker``,
``dask_train``), prediction at the best round, round counts, importances and sample-weight
conventions, model files (``writes``, ``save_model``, ``load_model``; :mod:`.model_files` checks a file
before the engine's C++ reads it) and the trees of a model with the engine's split rules.
Estimators, the re-ranker, the CLI and the exporters ask :data:`ENGINES` and never branch on an
engine's name.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from . import lightgbm, xgboost


@runtime_checkable
class Engine(Protocol):
    """What boostrank asks of a boosting engine: each module of this package answers it.

    Every function takes values (arrays, boosters, parameters), never an estimator.
    """

    NAME: str
    #: the engine's own ranking objectives, accepted by name
    NATIVE_OBJECTIVES: tuple
    #: sample weights are per query (XGBoost's ranking rule), not per row
    PER_QUERY_WEIGHTS: bool
    #: the engine compares float32 features (XGBoost), not doubles (LightGBM)
    FEATURES_AS_FLOAT32: bool

    # training
    def check_params(self, params: dict) -> None: ...
    def sklearn_params(self, learning_rate, random_state=None, n_jobs=None, log=False) -> dict: ...
    def objective_threads(self, n_jobs) -> int: ...
    def held_labels(self, y) -> np.ndarray: ...
    def row_weights(self, sample_weight, offsets): ...
    def train_ranker(self, data, *, objective, params: dict, n_estimators: int, evals=(), metrics=(),
                     early_stopping_rounds=None, progress=None): ...
    def dask_params(self, objective: str, engine_params: dict, *, learning_rate, random_state, n_jobs) -> dict: ...
    def dask_train(self, client, frame, features, columns, group_sizes, objective, engine_params, *, n_estimators,
                   learning_rate, random_state, n_jobs, positions=False): ...

    # a fitted booster
    def n_rounds(self, booster) -> int: ...
    def best_iteration(self, best): ...
    def booster_rounds(self, booster): ...
    def importances(self, booster, n_features: int) -> np.ndarray: ...
    def predict(self, booster, X, best_iteration=None) -> np.ndarray: ...
    def round_scores(self, booster, X): ...

    # model files
    def writes(self, head: str) -> bool: ...
    def save_model(self, booster, path, key: str, saved: str, custom_objective: bool) -> None: ...
    def load_model(self, path, key: str): ...
    def refit_params(self, booster) -> tuple: ...

    # trees, scored with the engine's split and missing-value rules
    def forest(self, booster, rounds=None): ...
    def tree_inputs(self, X: np.ndarray) -> np.ndarray: ...
    def route(self, tree, nodes: np.ndarray, x: np.ndarray) -> np.ndarray: ...
    def left_set(self, tree, node: int) -> tuple: ...


ENGINES: dict[str, Engine] = {"lightgbm": lightgbm, "xgboost": xgboost}


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
