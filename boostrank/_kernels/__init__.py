"""Numba kernels. Every ``@njit`` function of boostrank lives here.

This subpackage imports only numpy, numba and math, never the rest of boostrank, so
the kernels can be read, tested and reused on their own.  Kernels take C-contiguous
arrays plus ``group_offsets`` (query ``g`` is ``offsets[g]:offsets[g + 1]``), never
raise on well-formed input and leave validation to the public wrappers.
"""
