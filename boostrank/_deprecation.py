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


def renamed_param(estimator, old: str, new: str, value, default):
    """The value of ``new`` when the user set the old name ``old`` (FutureWarning), else ``value``.

    ``value`` is what ``new`` holds now; setting both is an error.
    """
    old_value = getattr(estimator, old, None)
    if old_value is None:
        return value
    if value != default:
        raise ValueError(f"{type(estimator).__name__}: {old!r} is the old name of {new!r}; set only {new!r}")
    warnings.warn(f"{type(estimator).__name__}({old}=...) is now {new}=...; {old!r} stops working in boostrank "
                  f"{REMOVED_IN}", FutureWarning, stacklevel=3)
    return old_value
