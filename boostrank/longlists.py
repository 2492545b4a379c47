"""Deprecated alias of :mod:`boostrank.probit` (renamed in 0.2; removed in 0.3)."""

import warnings

from .probit import fast_error_bound, lambda_auc_probit

__all__ = ["lambda_auc_probit", "fast_error_bound"]

warnings.warn("boostrank.longlists is now boostrank.probit", DeprecationWarning, stacklevel=2)
