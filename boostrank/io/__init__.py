"""Files and data sets: LETOR/SVMlight files (:mod:`.letor`), bounded reads and safe writes of files other
people give us (:mod:`.files`), the bundled sample and synthetic sets (:mod:`.datasets`), and model files
(:mod:`.models`)."""

import importlib as _importlib

_MODULES = frozenset({"datasets", "files", "letor", "models"})


def __getattr__(name):  # ``br.<package>.<module>`` without importing the module first, as the package root does
    if name in _MODULES:
        return _importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
