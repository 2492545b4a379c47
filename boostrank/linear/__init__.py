"""The linear ranker: RankNCG (Raykar §3–§5) and the erfc series its gradient sums with.

The series (:mod:`.erfc`) is also the probit λ objective's: importing it does not import the ranker.
"""

import importlib as _importlib

_MODULES = frozenset({"erfc", "rankncg"})


def __getattr__(name):  # ``br.<package>.<module>`` without importing the module first, as the package root does
    if name in _MODULES:
        return _importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
