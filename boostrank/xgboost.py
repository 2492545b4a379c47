"""XGBoost's adapters moved to :mod:`boostrank.engines.xgboost`; this name stays for imports.

``boostrank.xgboost`` is that module itself, private names included.
"""

import sys

from .engines import xgboost

sys.modules[__name__] = xgboost
