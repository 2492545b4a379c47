"""Old spellings of the public API: accepted with a FutureWarning for one release (0.2), then gone."""

from __future__ import annotations

import functools
import inspect
import warnings

#: the release that drops what warns here
REMOVED_IN = "0.3"


def keyword_only_init(init):
    """Let ``__init__``'s keyword-only parameters still be given by position, with a FutureWarning.

    boostrank 0.1 took some estimator parameters by position (``MIPRanker("auc")``,
    ``LambdaRanker("xgboost", "mauc")``); they are keyword-only now, as in scikit-learn.
    """
    names = [p.name for p in inspect.signature(init).parameters.values()
             if p.kind is inspect.Parameter.KEYWORD_ONLY]

    @functools.wraps(init)
    def wrapper(self, *args, **kwargs):
        if args:
            given = names[:len(args)]
            if len(args) > len(names):
                raise TypeError(f"{type(self).__name__}() takes keyword arguments only, got {len(args)} by position")
            warnings.warn(f"pass {', '.join(f'{n}={a!r}' for n, a in zip(given, args))} to {type(self).__name__} "
                          f"by keyword: positional parameters stop working in boostrank {REMOVED_IN}",
                          FutureWarning, stacklevel=2)
            for n, a in zip(given, args):
                if n in kwargs:
                    raise TypeError(f"{type(self).__name__}() got multiple values for argument {n!r}")
                kwargs[n] = a
        init(self, **kwargs)

    return wrapper


#: default of a renamed parameter's old name (scikit-learn's convention)
DEPRECATED = "deprecated"


def resolve_renamed(estimator, renames: dict) -> dict:
    """The current value of each new name in ``renames`` (old name → new name).

    An old name set by the user gives its value with a FutureWarning; setting the old and the
    new name is an error.  ``warm_start`` is special: scikit-learn's checks set it to False
    (its boolean meaning, "no incremental fit"), which is what a fit does anyway; True is refused.
    """
    defaults = {p.name: p.default for p in inspect.signature(type(estimator).__init__).parameters.values()}
    name = type(estimator).__name__
    out = {}
    for old, new in renames.items():
        value, old_value = getattr(estimator, new), getattr(estimator, old, DEPRECATED)
        if isinstance(old_value, str) and old_value == DEPRECATED:
            out[new] = value
            continue
        if old == "warm_start" and isinstance(old_value, bool):
            if old_value:
                raise ValueError(f"{name} has no incremental fit (warm_start=True); its starting weights are "
                                 f"init=")
            out[new] = value
            continue
        if not _same(value, defaults[new]):
            raise ValueError(f"{name}: {old!r} is the old name of {new!r}; set only {new!r}")
        warnings.warn(f"{name}({old}=...) is now {name}({new}=...); {old!r} stops working in boostrank "
                      f"{REMOVED_IN}", FutureWarning, stacklevel=3)
        out[new] = old_value
    return out


def _same(a, b):
    try:
        return bool(a == b) if not hasattr(a, "shape") else False
    except (TypeError, ValueError):
        return False
