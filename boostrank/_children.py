"""Child processes that run boostrank's code only, and die with the process that started them.

A child interpreter started with ``python -c`` puts the current folder first on ``sys.path``, so a
``json.py`` in the folder a user runs boostrank from (a downloaded data set) would run in it.  The
children here start isolated (``python -I``: no current folder, no ``PYTHON*`` variables, no user
site), find this process's copy of boostrank by an explicit path placed after the standard library,
and ask the kernel to kill them when their parent dies (Linux ``PR_SET_PDEATHSIG``), so a SIGTERM to
``boostrank warmup`` leaves no worker compiling.
"""

from __future__ import annotations

import os
import signal
import sys

__all__ = ["child_command", "die_with_parent"]

# Runs first in every child: its parent's death kills it (and if the parent is already gone, it stops), and this
# process's boostrank is importable after the standard library, ahead of site-packages (an installed copy elsewhere
# would fill another Numba cache: the cache is keyed by the source file's path)
_PRELUDE = """\
import os, sys
parent = int(sys.argv[2])
if sys.platform.startswith("linux"):
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except Exception:
        pass
if os.getppid() != parent:
    sys.exit(1)
root = sys.argv[1]
if root not in sys.path:
    import site
    sites = {os.path.abspath(p) for p in site.getsitepackages()}
    first = next((i for i, p in enumerate(sys.path) if p and os.path.abspath(p) in sites), len(sys.path))
    sys.path.insert(first, root)  # after the standard library, before site-packages' copies
del os, parent, root
"""


def child_command(code: str, *args: str) -> list:
    """``python -I -c code *args``: ``code`` runs after :data:`_PRELUDE` and finds ``args`` at ``sys.argv[3:]``."""
    return [sys.executable, "-I", "-c", _PRELUDE + code, _package_root(), str(os.getpid()), *args]


def _package_root() -> str:
    """The directory this boostrank is imported from."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def die_with_parent() -> None:
    """``preexec_fn`` of a child that is not Python (a solver binary): SIGKILL when this process dies (Linux)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - best effort; the solver still honours its time limit
        pass
