"""The λ objectives: λ-AUC, λ-MAUC (Welleck §4) and λ-NDCG for the boosting engines, and their eval metrics.

* :mod:`.objective`: :class:`LambdaObjective` (the parameters, declared once in ``PARAMETERS``, and the check of a
  data set) and :func:`lambda_gradients`;
* :mod:`.state`: one fit's bound objective (:class:`~.state.LambdaState`), whose ``gradients`` an engine calls
  every round, and the pointwise anchor;
* :mod:`.probit`: the probit link's linear-time λ (Raykar's erfc series);
* :mod:`.eval_metric`: boostrank's metrics as the engines' eval metrics.
"""

from .objective import OBJECTIVE_NAMES, PARAMETERS, LambdaObjective, Parameter, lambda_gradients

__all__ = ["LambdaObjective", "lambda_gradients", "OBJECTIVE_NAMES", "PARAMETERS", "Parameter"]
