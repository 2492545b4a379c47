"""The probit link's constants, defined once (Raykar et al. 2007, eq. 3).

The logistic σ(u) is approximated by 1 − ½ erfc(α u) with α = √3/(√2 π), the erfc
with the logistic's slope and variance matched; ρ = ½ erfc(ασ(s_h − s_l)) and
−dρ/ds = (ασ/√π) exp(−(ασ(s_h − s_l))²).
"""

import math

from numba import njit

#: α of Raykar eq. 3
ERFC_ALPHA = math.sqrt(3.0) / (math.sqrt(2.0) * math.pi)
#: α/√π: the probit hessian's scale at σ = 1
ERFC_ALPHA_SQRT_PI = ERFC_ALPHA / math.sqrt(math.pi)


@njit(cache=True)
def probit_hessian_scale(sigma, alpha):
    """σ²α/√π: the factor of Σ w |i − j| exp(−(t_i − t_j)²) in the probit λ's hessian (t = ασs)."""
    return sigma * sigma * alpha / math.sqrt(math.pi)


@njit(cache=True)
def probit_rho_slope(sigma, alpha):
    """ασ/√π: −dρ/ds of the probit link per unit exp(−x²), x = ασ(s_h − s_l)."""
    return alpha * sigma / math.sqrt(math.pi)
