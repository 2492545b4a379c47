"""The one module that knows Numba's machinery: where the cache lives and whom it may trust, when a kernel
group compiles now (the once-per-process notice), and the seconds this process has spent compiling.

Numba compiles each ``@njit(cache=True)`` kernel the first time a process calls it and keeps the machine
code on disk; a later process loads it.  Nothing here starts a process: ``boostrank warmup``
(:mod:`boostrank.precompile`) fills the cache ahead of time.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
import time
import warnings

import numba
from numba.core import event

__all__ = ["ensure_cache_dir", "held_by_us", "private_cache_folder", "is_cached", "note_first_compile",
           "in_threads", "numba_threads", "quiet_notices", "work_clock"]


def ensure_cache_dir():
    """Give Numba's ``cache=True`` a folder that is this user's alone, and somewhere to write on a read-only install.

    A cache folder that Numba was told of (``NUMBA_CACHE_DIR``, or ``cache_dir`` in a
    ``.numba_config.yaml`` of the working folder) is used only when it passes the rules of
    :func:`private_cache_folder` and :func:`held_by_us`: Numba unpickles every index in it,
    so another user who can write there would run code in the next process that loads a
    kernel.  Otherwise, with a warning, a private folder under the temporary directory.
    Without one, Numba caches next to the source, else in the user's cache folder; when
    neither is writable (a read-only site-packages with an unwritable HOME) decorating a
    cached function raises "no locator available", so the cache goes to the private folder.
    """
    told = numba.config.CACHE_DIR
    if told:
        if held_by_us(told):
            return told
        private = private_cache_folder(tempfile.gettempdir())
        warnings.warn(f"Numba's cache folder {told} (NUMBA_CACHE_DIR) is not this user's own private folder "
                      f"(owned by another user, writable by others, a symlink, or under a folder others may "
                      f"change): Numba would run what others put there.  boostrank's kernels compile into "
                      f"{private} instead", RuntimeWarning, stacklevel=2)
        os.environ["NUMBA_CACHE_DIR"] = private  # Numba re-reads its settings from the environment
        numba.config.CACHE_DIR = private
        return private
    here = os.path.dirname(os.path.abspath(__file__))
    if os.access(here, os.W_OK):
        return None
    home_cache = os.path.join(os.path.expanduser("~"), ".cache")
    try:
        os.makedirs(home_cache, exist_ok=True)
        if os.access(home_cache, os.W_OK):
            return None
    except OSError:
        pass
    numba.config.CACHE_DIR = private_cache_folder(tempfile.gettempdir())
    return numba.config.CACHE_DIR


def held_by_us(folder: str) -> bool:
    """``folder`` (made 0700 when absent) is a directory, not a symlink, owned by this user and writable by no
    one else, and every folder above it is owned by this user or root and, when others may write there, sticky
    (as ``/tmp``): no one else can put files in it or put another folder in its place."""
    uid = os.getuid() if hasattr(os, "getuid") else None
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        st = os.lstat(folder)
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode) or st.st_mode & 0o022 or (uid is not None and st.st_uid != uid):
        return False
    if uid is None:
        return True
    parent = os.path.dirname(os.path.realpath(folder))
    while True:
        try:
            st = os.stat(parent)
        except OSError:
            return False
        if st.st_uid not in (0, uid) or (st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX):
            return False
        up = os.path.dirname(parent)
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
    uid = os.getuid() if hasattr(os, "getuid") else None
    folder = os.path.join(parent, f"boostrank-numba-cache-{uid if uid is not None else 'user'}")
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return tempfile.mkdtemp(prefix="boostrank-numba-cache-", dir=parent)
    try:
        st = os.lstat(folder)
    except OSError:
        st = None
    if (st is None or not stat.S_ISDIR(st.st_mode) or st.st_mode & 0o022
            or (uid is not None and st.st_uid != uid)):
        return tempfile.mkdtemp(prefix="boostrank-numba-cache-", dir=parent)
    return folder


def is_cached(kernel) -> bool:
    """``kernel`` (an ``@njit(cache=True)`` dispatcher) has an on-disk cache index: a process loads it rather
    than compiling.  True for a dispatcher that cannot be cached (``NUMBA_DISABLE_JIT``: nothing compiles)."""
    try:
        index = kernel._cache._cache_file._index_path  # Numba's own name for it: read here and nowhere else
    except AttributeError:
        return True
    return os.path.exists(index)


_ANNOUNCED: set = set()
_QUIET = False


def quiet_notices() -> None:
    """No compile notices in this process (a warm-up worker whose group another worker announces)."""
    global _QUIET
    _QUIET = True


def note_first_compile(what: str, kernel) -> None:
    """Say once per process on stderr that ``what``'s kernels compile now, when ``kernel`` has no cache yet.

    ``kernel`` is a representative ``@njit(cache=True)`` dispatcher of the group: without its cache index
    the group compiles in this process, with it the call is silent.  No time is promised: it depends on
    the machine and on what else it runs.
    """
    if what in _ANNOUNCED or _QUIET:
        return
    _ANNOUNCED.add(what)
    if not is_cached(kernel):
        print(f"boostrank: compiling the {what} kernels once for this machine; 'boostrank warmup' does this "
              f"ahead of time", file=sys.stderr, flush=True)


class _CompileSeconds(event.Listener):
    """Seconds this process has spent in Numba compiles (outermost ones: a kernel's callees compile inside it)."""

    def __init__(self):
        self.total = 0.0
        self._depth = 0
        self._start = 0.0

    def on_start(self, ev):
        self._depth += 1
        if self._depth == 1:
            self._start = time.perf_counter()

    def on_end(self, ev):
        self._depth -= 1
        if self._depth == 0:
            self.total += time.perf_counter() - self._start


_COMPILES = _CompileSeconds()
event.register("numba:compile", _COMPILES)


def work_clock() -> float:
    """``time.perf_counter()`` that stands still while Numba compiles.

    A fit's ``time_limit`` is the time it works: a first fit on a fresh cache compiles its kernels inside
    the fit, and with the wall clock it would search less and return another model than the same fit a
    second time.  Compiles that are still running count until they end.
    """
    return time.perf_counter() - _COMPILES.total


@contextlib.contextmanager
def numba_threads(n_threads: int):
    """Run the enclosed Numba kernels on ``n_threads`` threads, then restore the count.

    Numba's thread count is a per-thread mask (``numba.set_num_threads`` is thread
    local), so this scopes the choice to the calling thread and the enclosed calls —
    what scikit-learn's ``n_threads`` argument does for its Cython kernels.  One
    thread enters no parallel region at all.
    """
    before = numba.get_num_threads()
    if n_threads == before:
        yield
        return
    numba.set_num_threads(n_threads)
    try:
        yield
    finally:
        numba.set_num_threads(before)


def in_threads(fn, items, n_threads: int | None = None) -> list:
    """``[fn(item) for item in items]`` on up to ``n_threads`` threads (None: one per item), for kernels that
    release the GIL (``nogil=True``); one item, or one thread, runs in the calling thread."""
    items = list(items)
    workers = len(items) if n_threads is None else min(n_threads, len(items))
    if workers < 2:
        return [fn(item) for item in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(fn, items))
