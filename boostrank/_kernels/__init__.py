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
    """Give Numba's ``cache=True`` a folder that is this user's alone, and somewhere to write on a read-only install.

    A cache folder that Numba was told of (``NUMBA_CACHE_DIR``, or ``cache_dir`` in a
    ``.numba_config.yaml`` of the working folder) is used only when it passes the rules of
    :func:`private_cache_folder` and :func:`_held_by_us`: Numba unpickles every index in it,
    so another user who can write there would run code in the next process that loads a
    kernel.  Otherwise, with a warning, a private folder under the temporary directory.
    Without one, Numba caches next to the source, else in the user's cache folder; when
    neither is writable (a read-only site-packages with an unwritable HOME) decorating a
    cached function raises "no locator available", so the cache goes to the private folder.
    """
    told = _numba.config.CACHE_DIR
    if told:
        if _held_by_us(told):
            return told
        private = private_cache_folder(_tempfile.gettempdir())
        import warnings

        warnings.warn(f"Numba's cache folder {told} (NUMBA_CACHE_DIR) is not this user's own private folder "
                      f"(owned by another user, writable by others, a symlink, or under a folder others may "
                      f"change): Numba would run what others put there.  boostrank's kernels compile into "
                      f"{private} instead", RuntimeWarning, stacklevel=2)
        _os.environ["NUMBA_CACHE_DIR"] = private  # Numba re-reads its settings from the environment
        _numba.config.CACHE_DIR = private
        return private
    here = _os.path.dirname(_os.path.abspath(__file__))
    if _os.access(here, _os.W_OK):
        return None
    home_cache = _os.path.join(_os.path.expanduser("~"), ".cache")
    try:
        _os.makedirs(home_cache, exist_ok=True)
        if _os.access(home_cache, _os.W_OK):
            return None
    except OSError:
        pass
    _numba.config.CACHE_DIR = private_cache_folder(_tempfile.gettempdir())
    return _numba.config.CACHE_DIR


def _held_by_us(folder: str) -> bool:
    """``folder`` (made 0700 when absent) is a directory, not a symlink, owned by this user and writable by no
    one else, and every folder above it is owned by this user or root and, when others may write there, sticky
    (as ``/tmp``): no one else can put files in it or put another folder in its place."""
    import stat as _stat

    uid = _os.getuid() if hasattr(_os, "getuid") else None
    try:
        _os.makedirs(folder, mode=0o700, exist_ok=True)
        st = _os.lstat(folder)
    except OSError:
        return False
    if not _stat.S_ISDIR(st.st_mode) or st.st_mode & 0o022 or (uid is not None and st.st_uid != uid):
        return False
    if uid is None:
        return True
    parent = _os.path.dirname(_os.path.realpath(folder))
    while True:
        try:
            st = _os.stat(parent)
        except OSError:
            return False
        if st.st_uid not in (0, uid) or (st.st_mode & 0o022 and not st.st_mode & _stat.S_ISVTX):
            return False
        up = _os.path.dirname(parent)
        if up == parent:
            return True
        parent = up


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

