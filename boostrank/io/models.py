"""Model files: save and load every boostrank model, recognising the format from the file.

LightGBM models are LightGBM's text format, XGBoost models XGBoost's JSON, linear
models boostrank's own JSON.  Nothing is ever unpickled.
"""

from __future__ import annotations

from ..engines import ENGINES
from ..ranker import LambdaRanker
from ..linear.rankncg import load_linear_model

__all__ = ["save_model", "load_model", "load_booster"]


def save_model(model, path) -> None:
    """Write a fitted :class:`boostrank.LambdaRanker` or :class:`boostrank.RankNCG`.

    Parameters
    ----------
    model : LambdaRanker or RankNCG
    path : str or path-like
        LightGBM boosters are written in LightGBM's text format with the trees up to the
        best iteration; XGBoost boosters as JSON (give the file a ``.json`` suffix),
        keeping ``best_iteration`` so :func:`load_model` predicts with the best trees.

    Examples
    --------
    >>> import os, tempfile, numpy as np, boostrank as br
    >>> data = br.datasets.make_letor(30, random_state=0)
    >>> ranker = br.LambdaRanker(n_estimators=5).fit(data.X, data.y, qid=data.qid)
    >>> path = os.path.join(tempfile.mkdtemp(), "model.txt")
    >>> save_model(ranker, path)
    >>> bool(np.array_equal(br.load_model(path).predict(data.X), ranker.predict(data.X)))
    True
    """
    if isinstance(model, LambdaRanker) and getattr(model, "booster_", None) is not None:
        model.save_model(path)  # keeps boostrank's parameters beside the trees
        return
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

    The same as :meth:`boostrank.LambdaRanker.load_model`.
    """
    return LambdaRanker.load_model(path, engine)


def load_model(path):
    """A fitted boostrank model from a file written by :func:`save_model` (or ``boostrank train``).

    The format is recognised from the file: XGBoost JSON, LightGBM text, or boostrank's
    JSON for linear models.

    Returns
    -------
    LambdaRanker or RankNCG

    Examples
    --------
    >>> import os, tempfile, boostrank as br
    >>> data = br.datasets.make_letor(30, random_state=0)
    >>> path = os.path.join(tempfile.mkdtemp(), "model.txt")
    >>> br.save_model(br.LambdaRanker(n_estimators=5).fit(data.X, data.y, qid=data.qid), path)
    >>> model = load_model(path)
    >>> type(model).__name__, model.objective_
    ('LambdaRanker', 'auc')
    """
    with open(path, encoding="utf-8", errors="replace") as fh:
        head = fh.read(4096).lstrip()
    if head.startswith("{") and '"boostrank_model"' in head:
        return load_linear_model(path)
    for name, engine in ENGINES.items():
        if engine.writes(head):
            return load_booster(path, engine=name)
    raise ValueError(f"{path}: not a LightGBM, XGBoost or boostrank model file")
