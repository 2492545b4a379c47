"""Numba's thread count, scoped to the calling thread and the enclosed kernels."""

from __future__ import annotations

import contextlib

import numba

__all__ = ["numba_threads"]


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
