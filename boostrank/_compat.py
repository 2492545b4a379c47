"""Other libraries' private or version-dependent names, and what a missing optional dependency says.

The one place to change when scikit-learn moves a private helper, or when an extra is renamed.  The
scikit-learn names load on first use, so a module that only needs :func:`require` does not import
scikit-learn.
"""

from __future__ import annotations

import importlib
import sys

__all__ = ["HasMethods", "Interval", "Options", "StrOptions", "install_hint", "lightgbm_param_aliases", "require",
           "safe_indexing", "validate_parameter_constraints"]

#: name here -> (module, name there): scikit-learn's parameter validation and row indexing, private in 1.3–1.6
_PRIVATE = {"HasMethods": ("sklearn.utils._param_validation", "HasMethods"),
            "Interval": ("sklearn.utils._param_validation", "Interval"),
            "Options": ("sklearn.utils._param_validation", "Options"),
            "StrOptions": ("sklearn.utils._param_validation", "StrOptions"),
            "validate_parameter_constraints": ("sklearn.utils._param_validation", "validate_parameter_constraints"),
            "safe_indexing": ("sklearn.utils", "_safe_indexing")}


def __getattr__(name):
    where = _PRIVATE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where[0]), where[1])
    globals()[name] = value
    return value


def lightgbm_param_aliases() -> dict:
    """LightGBM's table {parameter: its aliases} (private in LightGBM 4), or {} where a version lacks it."""
    try:
        from lightgbm.basic import _ConfigAliases

        return dict(_ConfigAliases._get_all_param_aliases())
    except Exception:  # pragma: no cover - a LightGBM without the table: callers then check nothing
        return {}


def install_hint(extra: str, package: str | None = None) -> str:
    """``pip install 'boostrank[extra]'`` (and the package's own name when it differs from the extra's)."""
    hint = f"pip install 'boostrank[{extra}]'"
    return hint if package is None or package == extra else f"{hint} (or pip install {package})"


def require(module: str, extra: str, what: str, package: str | None = None):
    """``module``, or an ImportError saying that ``what`` needs it and which extra installs it.

    Examples
    --------
    >>> require("numpy", "core", "boostrank").__name__
    'numpy'
    >>> require("no_such_module", "plot", "boostrank's plots", "no-such-package")
    Traceback (most recent call last):
    ...
    ImportError: boostrank's plots need no-such-package: pip install 'boostrank[plot]' (or pip install no-such-package)
    """
    try:
        __import__(module)  # the import statement's hook, as ``import xgboost`` would call it
        return sys.modules[module]
    except ImportError as exc:
        package = package or module.split(".")[0]
        verb = "need" if what.endswith("s") and not what.endswith("ss") else "needs"
        raise ImportError(f"{what} {verb} {package}: {install_hint(extra, package)}") from exc
