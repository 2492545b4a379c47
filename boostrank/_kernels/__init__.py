"""Numba kernels. Every ``@njit`` function of boostrank lives here.

This subpackage imports only numpy, numba and math, never the rest of boostrank, so
the kernels can be read, tested and reused on their own.  Kernels take C-contiguous
arrays plus ``group_offsets`` (query ``g`` is ``offsets[g]:offsets[g + 1]``), never
raise on well-formed input and leave validation to the public wrappers.
"""

from .jit import ensure_cache_dir as _ensure_cache_dir
from .jit import private_cache_folder  # noqa: F401  (tests reach it here)

_ensure_cache_dir()
