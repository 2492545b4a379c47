"""ε-exact weighted sums of erfc (and Gaussian) functions in linear time (Raykar §5)."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numba
import numpy as np
from scipy.special import erfc, erfcinv

from .._kernels.config import ERFC_PARALLEL_MIN_POINTS
from .._kernels.erfc import (erfc_sum_direct, series_blocks, series_targets, side_sums_sorted,
                            source_coefficients_parallel, source_coefficients_serial, target_sums_parallel,
                            target_sums_serial)
from .._kernels.link import ERFC_ALPHA

__all__ = ["erfc_sum", "series_parameters", "SeriesParameters", "ERFC_ALPHA"]

_SIDES = {"both": 0, "below": 1, "above": 2}
_KERNELS = {"erfc": 0, "gauss": 1}


@dataclass(frozen=True)
class SeriesParameters:
    """Cut-off radius ``r`` (= block width), series step ``h`` and truncation ``p``."""

    r: float
    h: float
    p: int


@functools.lru_cache(maxsize=64)  # 7 µs per call, a third of a 100-point sum; the result is frozen
def series_parameters(eps: float, kernel: str = "erfc") -> SeriesParameters:
    """Parameters of the fast sum for accuracy ``eps`` (relative to Σ|q|).

    The error budget per source–target pair, with s = y − z:

    * |s| > r is not summed (erfc taken as 0 or 2, Gaussian as 0): error erfc(r) or
      e^{−r²}, set to ε/2;
    * |s| ≤ 2r goes through Beaulieu's series (Raykar eq. 5) with step h chosen so
      that the aliasing term erfc(π/(2h) − |s|) (Raykar eq. 6) is ≤ ε/8, and the
      smallest p whose truncation term 2/(√π h)·erfc((2p+1)h) is ≤ ε/8.

    For the Gaussian e^{−s²} = (4h/√π) Σ_{n odd} e^{−n²h²} cos(2nhs) − Σ_{k≠0}
    (−1)^k e^{−(s − kπ/(2h))²} (Poisson summation); aliasing ≤ 2.2 e^{−(π/(2h) − |s|)²}
    and truncation ≤ (4h/√π) e^{−m²h²} + erfc(mh), m = 2p + 1, each set to ε/8.

    So every pair is off by at most ε/2 |q_i| and the sum by ε/2 Σ|q|, leaving half
    the budget to floating-point rounding.  Raykar's choice h = π/(3(r + erfc⁻¹(ε/2)))
    is more conservative; this one gives a smaller p for the same bound.
    """
    if not (1e-16 <= eps <= 0.5):
        raise ValueError(f"eps must be in [1e-16, 0.5], got {eps}")
    if kernel == "erfc":
        r = float(erfcinv(eps / 2))
        alias = float(erfcinv(eps / 8))
    elif kernel == "gauss":
        r = math.sqrt(math.log(2 / eps))
        alias = math.sqrt(math.log(17.6 / eps))
    else:
        raise ValueError(f"kernel must be 'erfc' or 'gauss', got {kernel!r}")
    h = math.pi / (2 * (2 * r + alias))
    p = 1
    while True:
        m = 2 * p + 1
        if kernel == "erfc":
            tail = 2 / (math.sqrt(math.pi) * h) * erfc(m * h)
        else:
            tail = 4 * h / math.sqrt(math.pi) * math.exp(-(m * h) ** 2) + erfc(m * h)
        if tail <= eps / 8:
            break
        p += 1
    return SeriesParameters(r=r, h=h, p=p)


def _as_points(a, name):
    a = np.ascontiguousarray(a, dtype=np.float64).reshape(-1)
    if not np.isfinite(a).all():
        raise ValueError(f"{name} contain NaN or inf")
    return a


_MAX_BLOCKS = 2.0 ** 40
_DIRECT_FALLBACK_PAIRS = 4_000_000


_MAX_WEIGHT = 1e300  # past it, 2·N·weight can overflow a float64


def erfc_sum(targets, sources, weights=None, eps: float = 1e-6, method: str = "fast", *,
             side: str = "both", kernel: str = "erfc") -> np.ndarray:
    """E(y_j) = Σ_i q_i erfc(y_j − z_i) at every target (Raykar et al. eq. 4).

    Parameters
    ----------
    targets : array-like of shape (M,)
        The points y_j.
    sources : array-like of shape (N,)
        The centres z_i.
    weights : array-like of shape (N,), default=None
        q_i (default 1).  Any sign.
    eps : float, default=1e-6
        ``method="fast"``: ``max_j |Ê(y_j) − E(y_j)| ≤ eps · Σ_i |q_i|``, for any spread of
        points, for eps in [1e-16, 0.5] (see :func:`series_parameters` for the error
        budget).  Below about 1e-13 the float64 rounding of the sums (present in the
        direct sum as well, ~1e-15 · Σ|q|) is larger than eps.
    method : {"fast", "exact"}, default="fast"
        ``"fast"``: O(p(N + M)), blocked Fourier series (Raykar §5 with exact
        cut-offs; one-sided sums add an O((N + M) log(N + M)) sort and come from
        one pass of the one-sided kernel).  Points spanning more than 2^40
        cut-off radii (about 4e12 at eps = 1e-6) are summed directly when N·M ≤ 4·10⁶
        and refused with ValueError otherwise.  ``"exact"``:
        the O(NM) sum with compensated summation (``"direct"``, its 0.1 name, warns).
    side : {"both", "below", "above"}, default="both"
        Sum over all sources, over those strictly below the target (z_i < y_j), or
        over those at or above it (z_i ≥ y_j); "below" + "above" = "both".
    kernel : {"erfc", "gauss"}, default="erfc"
        ``"gauss"`` sums q_i exp(−(y_j − z_i)²) instead, which is −√π/2 times the
        derivative of erfc: the hessian terms of the erfc link.

    Returns
    -------
    ndarray of float64, shape (M,)

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([-1.0, 0.0, 2.0]); z = np.array([0.0, 0.5])
    >>> bool(np.allclose(erfc_sum(y, z, eps=1e-12), erfc_sum(y, z, method="exact"), atol=1e-11))
    True
    """
    y = _as_points(targets, "targets")
    z = _as_points(sources, "sources")
    q = np.ones_like(z) if weights is None else _as_points(weights, "weights")
    if q.shape != z.shape:
        raise ValueError(f"{q.shape[0]} weights for {z.shape[0]} sources")
    if side not in _SIDES:
        raise ValueError(f"side must be one of {sorted(_SIDES)}, got {side!r}")
    if kernel not in _KERNELS:
        raise ValueError(f"kernel must be 'erfc' or 'gauss', got {kernel!r}")
    out = np.zeros(y.shape[0])
    if y.size == 0 or z.size == 0:
        return out
    big = float(np.abs(q).max())
    if big > _MAX_WEIGHT:
        # the series and its partial sums overflow near 1e308 (NaN from inf − inf): sum
        # weights scaled to one, then scale back, refusing a total past the largest float
        with np.errstate(over="ignore"):
            out = erfc_sum(y, z, q / big, eps, method, side=side, kernel=kernel) * big
        if not np.isfinite(out).all():
            raise ValueError("the weighted sum exceeds the largest float; rescale the weights")
        return out
    sd, kd = _SIDES[side], _KERNELS[kernel]
    if method == "exact":
        erfc_sum_direct(y, z, q, kd, sd, out)
        return out
    if method != "fast":
        raise ValueError(f"method must be 'fast' or 'exact', got {method!r}")
    par = series_parameters(eps, kernel)
    lo = min(y.min(), z.min())
    span = max(y.max(), z.max()) - lo
    if not span / par.r < _MAX_BLOCKS:
        # block numbers past 2^40 lose integer exactness (and overflow int64 past 2^63)
        if y.size * z.size <= _DIRECT_FALLBACK_PAIRS:
            erfc_sum_direct(y, z, q, kd, sd, out)
            return out
        raise ValueError(f"points span {span:.3g}, over 2^40 cut-off radii ({par.r:.3g}): the fast sum's block "
                         f"numbers would lose precision; use method='exact' or rescale the points")
    if sd == 0:
        _fast_sum(y, z, q, lo, par, kd, out)
        return out
    # One-sided: one pass on sorted points gives the sum below and the total; "above"
    # (z ≥ y) is their difference.
    oy = np.argsort(y, kind="stable")
    oz = np.argsort(z, kind="stable")
    below, total = np.zeros(y.size), np.zeros(y.size)
    side_sums_sorted(y[oy], z[oz], q[oz], lo, par.r, par.h, par.p, kd, below, total)
    out[oy] = below if sd == 1 else total - below
    return out


def _fast_sum(y, z, q, lo, par, kind, out):
    """The two-sided blocked Fourier-series sum (``_kernels/erfc.py``) into ``out``.

    Its steps run from here so that sums below ``ERFC_PARALLEL_MIN_POINTS`` points never
    compile (or wait for) the parallel loops; both paths agree to rounding (tests: 1e-14 of Σ|q|).
    """
    occ, centres, zs, z_sorted, q_sorted, ys, y_sorted, yp = series_blocks(y, z, q, lo, par.r)
    nb = occ.shape[0]
    C, S, QB = np.zeros((nb, par.p)), np.zeros((nb, par.p)), np.zeros(nb)
    parallel = y.shape[0] + z.shape[0] >= ERFC_PARALLEL_MIN_POINTS and numba.get_num_threads() > 1
    coefficients = source_coefficients_parallel if parallel else source_coefficients_serial
    coefficients(z_sorted, q_sorted, zs, centres, par.h, par.p, C, S, QB)
    coef = series_targets(C, S, QB, occ, centres, par.h, par.p, kind)
    targets = target_sums_parallel if parallel else target_sums_serial
    targets(y_sorted, yp, ys, centres, par.h, par.p, coef, kind, out)


def joint_parameters(eps: float) -> SeriesParameters:
    """One (r, h, p) meeting both the erfc and the Gaussian budget of :func:`series_parameters`."""
    a, b = series_parameters(eps, "erfc"), series_parameters(eps, "gauss")
    r = max(a.r, b.r)
    alias = max(float(erfcinv(eps / 8)), math.sqrt(math.log(17.6 / eps)))
    h = math.pi / (2 * (2 * r + alias))
    p = 1
    while True:
        m = 2 * p + 1
        tail_e = 2 / (math.sqrt(math.pi) * h) * erfc(m * h)
        tail_g = 4 * h / math.sqrt(math.pi) * math.exp(-(m * h) ** 2) + erfc(m * h)
        if max(tail_e, tail_g) <= eps / 8:
            return SeriesParameters(r=r, h=h, p=p)
        p += 1
