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
    _numba.config.CACHE_DIR = private_cache_folder(_tempfile.gettempdir())


def private_cache_folder(parent: str) -> str:
    """``<parent>/boostrank-numba-cache-<uid>`` when it is this user's own private folder, else a fresh one.

    The name is predictable, and Numba runs what a cache index points at: a folder
    another user created (or may write, or a symlink to one) would run their code in
    ours.  Such a folder is never used; a new private folder (``mkdtemp``, mode 0700)
    is, at the cost of compiling again.
    """
    uid = _os.getuid() if hasattr(_os, "getuid") else None
    folder = _os.path.join(parent, f"boostrank-numba-cache-{uid if uid is not None else 'user'}")
    try:
        _os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return _tempfile.mkdtemp(prefix="boostrank-numba-cache-", dir=parent)
    try:
        st = _os.lstat(folder)
    except OSError:
        st = None
    import stat as _stat

    if (st is None or not _stat.S_ISDIR(st.st_mode) or st.st_mode & 0o022
            or (uid is not None and st.st_uid != uid)):
        return _tempfile.mkdtemp(prefix="boostrank-numba-cache-", dir=parent)
    return folder


_ensure_cache_dir()

