"""Compiling on first use: the once-per-process notice, and children that fill Numba's cache meanwhile.

Numba compiles each ``@njit(cache=True)`` kernel the first time a process calls it and keeps the
machine code on disk.  This module says so once when a group of kernels compiles now, and starts a
child interpreter that compiles a later step's kernels on a core this process leaves idle.
"""

from __future__ import annotations

import os
import sys
from typing import Callable, Sequence

from ._children import child_command

__all__ = ["note_first_compile", "is_cached", "twin_ready", "mark_compiled", "compile_in_background", "wait_for_stage"]

#: seconds a first use compiled on a fresh cache (2 cores; benchmarks/MEASUREMENTS.md, "first compile")
COMPILE_SECONDS = {"metrics": 5, "λ": 4, "MIP": 6, "RankNCG": 8, "TREC": 7}
_ANNOUNCED: set = set()


def note_first_compile(what: str, kernel, seconds: float | None = None) -> None:
    """Say once per process on stderr that ``what``'s kernels compile now, when ``kernel`` has no cache yet.

    ``kernel`` is a representative ``@njit(cache=True)`` dispatcher of the group: without its
    cache index the group compiles in this process (seconds), with it the call is silent.
    ``seconds``: what this use compiles for, when not the group's usual :data:`COMPILE_SECONDS`.
    """
    if what in _ANNOUNCED:
        return
    _ANNOUNCED.add(what)
    if not is_cached(kernel):
        print(f"boostrank: compiling the {what} kernels once for this machine (about "
              f"{seconds or COMPILE_SECONDS.get(what, 10):.0f} s); 'boostrank warmup' does this ahead of time",
              file=sys.stderr, flush=True)


def is_cached(kernel) -> bool:
    """``kernel`` (an ``@njit(cache=True)`` dispatcher) has an on-disk cache index: a process loads it
    rather than compiling.  True for a dispatcher that cannot be cached (nothing compiles ahead)."""
    try:
        index = kernel._cache._cache_file._index_path
    except AttributeError:  # not a cached dispatcher (NUMBA_DISABLE_JIT)
        return True
    return os.path.exists(index)


#: parallel twins whose compile a child runs: kernel -> the child (or True once the twin may run here)
_TWINS: dict = {}


def mark_compiled(kernel) -> None:
    """``kernel``'s twin compiles in this process (the warm-up's own call), not in a child."""
    _TWINS[kernel] = True


def twin_ready(kernel, target: Callable[[], object]) -> bool:
    """May this process call ``kernel`` (a ``parallel=True`` twin of a one-thread kernel) without compiling it?

    True when it is compiled here or in the cache.  Otherwise the first call starts one child running
    ``target`` (:func:`compile_in_background`), which compiles it into the cache on a core this process
    leaves idle, and returns False until the cache has it or the child is done (if the child failed,
    the caller then compiles it itself): meanwhile the caller runs the one-thread kernel, which gives
    the same results.  Without a second CPU: True at once.
    """
    state = _TWINS.get(kernel)
    if state is True:
        return True
    if getattr(kernel, "signatures", True) or is_cached(kernel):  # (no signatures: NUMBA_DISABLE_JIT)
        _TWINS[kernel] = True
    elif state is None:
        child = compile_in_background(target, [kernel])
        _TWINS[kernel] = True if child is None else child
    elif state.poll() is not None:
        _TWINS[kernel] = True
    return _TWINS[kernel] is True


def compile_in_background(target: Callable[[], object], kernels: Sequence, *, stages: bool = False):
    """Run ``target`` (a module-level function of no arguments that calls what a later step will)
    in one child interpreter when any of ``kernels`` has no cache yet, so that step's kernels compile on a
    core this process leaves idle while it compiles something else (Numba compiles on one core).

    ``stages``: ``target`` prints one line per stage whose kernels are in the cache, and the caller waits
    for each with :func:`wait_for_stage` (otherwise ``wait()`` for the child before that step).

    Returns
    -------
    subprocess.Popen or None
        The child; None when the kernels are cached or this process may use one CPU only.  The child is
        quiet: if it fails, the step compiles what it needs itself.
    """
    import subprocess

    import joblib

    if all(is_cached(k) for k in kernels) or joblib.cpu_count() < 2:
        return None
    module, function = target.__module__, target.__qualname__
    if "." in function or "<" in function:
        raise ValueError(f"{target!r} is not a module-level function a child interpreter can import")
    return subprocess.Popen(child_command(f"from {module} import {function}; {function}()"),
                            stdout=subprocess.PIPE if stages else subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            text=stages)


def wait_for_stage(child, stage: str) -> None:
    """Block until ``child`` (:func:`compile_in_background` with ``stages=True``) has printed the line
    ``stage`` or ended; stages it printed before are remembered, so they may be awaited in any order."""
    done = child.__dict__.setdefault("_stages_done", set())
    while stage not in done:
        line = child.stdout.readline()
        if not line:  # ended (or failed: the step then compiles what it still needs itself)
            return
        done.add(line.strip())
