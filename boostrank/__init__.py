"""boostrank: ranking models that optimise the rank statistic you report.

The public API is re-exported here; see the modules for details.
"""

from .data import LetorData, LetorFormatError, load_letor, save_letor
from .baselines import PairwiseHinge, PNormPush, RankBoost, RankNetLinear
from .datasets import load_sample, make_gaussians, make_letor, make_roc_flexibility
from .metrics import (
    auc,
    get_metric,
    mauc,
    mean_average_precision,
    minrank,
    ndcg,
    precision_at,
    rank_risk,
    resolved_rank,
    wmw,
)
from .erfc import erfc_sum
from .lightgbm import lightgbm_metric, lightgbm_objective
from .objectives import LambdaObjective, lambda_gradients
from .mip import MIPRanker, MIPResult
from .ranker import LambdaRanker
from .rerank import RerankResult, TopKReranker, cross_fit_scores
from .rankncg import RankNCG
from .xgboost import xgboost_metric, xgboost_objective
from .weights import (
    WeightFamily,
    dcg,
    dcg_at,
    local_auc,
    mrr,
    pnorm,
    staircase,
    weight_family,
    wrs,
    wta,
)

__version__ = "0.1.0"

__all__ = [
    "LetorData",
    "LetorFormatError",
    "load_letor",
    "save_letor",
    "load_sample",
    "make_letor",
    "auc",
    "mauc",
    "wmw",
    "ndcg",
    "mean_average_precision",
    "precision_at",
    "minrank",
    "resolved_rank",
    "rank_risk",
    "get_metric",
    "lambda_gradients",
    "LambdaObjective",
    "lightgbm_objective",
    "lightgbm_metric",
    "xgboost_objective",
    "xgboost_metric",
    "LambdaRanker",
    "erfc_sum",
    "RankNCG",
    "MIPRanker",
    "MIPResult",
    "TopKReranker",
    "RerankResult",
    "cross_fit_scores",
    "make_gaussians",
    "RankBoost",
    "PNormPush",
    "PairwiseHinge",
    "RankNetLinear",
    "make_roc_flexibility",
    "WeightFamily",
    "wrs",
    "local_auc",
    "wta",
    "mrr",
    "dcg",
    "dcg_at",
    "pnorm",
    "staircase",
    "weight_family",
    "__version__",
]
