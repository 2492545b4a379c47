"""Numba kernels. Every ``@njit`` function of boostrank lives here.

This subpackage imports only numpy, numba and math, never the rest of boostrank, so
the kernels can be read, tested and reused on their own.  Kernels take C-contiguous
arrays plus ``group_offsets`` (query ``g`` is ``offsets[g]:offsets[g + 1]``), never
raise on well-formed input and leave validation to the public wrappers.
"""

import os as _os
import tempfile as _tempfile

import numba as _numba


def _ensure_cache_dir():
    """Give Numba's ``cache=True`` somewhere to write on a read-only install.

    Numba caches next to the source, else in the user's cache folder; when neither
    is writable (a read-only site-packages with an unwritable HOME) decorating a
    cached function raises "no locator available".  Then the cache goes to a private
    folder under the temporary directory, unless ``NUMBA_CACHE_DIR`` already says where.
    """
    if _numba.config.CACHE_DIR:
        return
    here = _os.path.dirname(_os.path.abspath(__file__))
    if _os.access(here, _os.W_OK):
        return
    home_cache = _os.path.join(_os.path.expanduser("~"), ".cache")
    try:
        _os.makedirs(home_cache, exist_ok=True)
        if _os.access(home_cache, _os.W_OK):
            return
    except OSError:
        pass
    uid = _os.getuid() if hasattr(_os, "getuid") else "user"
    folder = _os.path.join(_tempfile.gettempdir(), f"boostrank-numba-cache-{uid}")
    _os.makedirs(folder, mode=0o700, exist_ok=True)
    _numba.config.CACHE_DIR = folder


_ensure_cache_dir()

