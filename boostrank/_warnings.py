"""Warnings that name the user's line, wherever in boostrank (or in an engine calling it) they arise."""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
import warnings

#: the libraries whose frames lie between a user's line and boostrank's (engines calling our callbacks)
_HOSTS = ("lightgbm", "xgboost", "sklearn", "dask", "distributed")


@functools.lru_cache(maxsize=1)
def _library_prefixes() -> tuple:
    dirs = [os.path.dirname(os.path.abspath(__file__))]
    for name in _HOSTS:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            dirs.append(os.path.dirname(os.path.abspath(spec.origin)))
    return tuple(d + os.sep for d in dirs)


def warn_user(message: str, category: type[Warning] = UserWarning) -> None:
    """Warn at the first line outside boostrank and its host libraries: the user's line, so Python's default
    filter shows it once whichever path reached it, and never a line of boostrank's source."""
    prefixes = _library_prefixes()
    if sys.version_info >= (3, 12):
        warnings.warn(message, category, skip_file_prefixes=prefixes)
        return
    # Python 3.11 has no skip_file_prefixes: count the library frames above this one (pandas'
    # find_stack_level does the same)
    import inspect

    frame, level = inspect.currentframe(), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(prefixes):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level - 1 if frame is None else level)
