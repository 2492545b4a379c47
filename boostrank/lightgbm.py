"""LightGBM's adapters moved to :mod:`boostrank.engines.lightgbm`; this name stays for imports.

``boostrank.lightgbm`` is that module itself, private names included.
"""

import sys

from .engines import lightgbm

sys.modules[__name__] = lightgbm
