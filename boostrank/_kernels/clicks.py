"""Kernels of the position-based click model (Richardson, Dominowska & Ragno, WWW 2007): the pair factors of the
λ kernel and the E step of the examination propensities (Wang et al., WSDM 2018), in one pass over the rows."""

from numba import njit


@njit(cache=True)
def click_factors(position, clicked, propensity, odds, power, posterior, upper, lower, exam, seen, inverse):
    """Each row's examination propensity and pair factors, and each position's expected examinations.

    With γ = σ(s + b) the model's relevance of a row and z = e^−(s + b) (``odds``, the odds against it), how
    likely a row not clicked at a position of propensity e is irrelevant is (1 − γ)/(1 − e γ) = z / (1 + z − e):
    1 at e = 1, as the limit says, where the first form divides 0 by 0 once γ rounds to 1.

    Parameters
    ----------
    position : int64 array
        Each row's 0-based display rank.
    clicked : bool array
        Whether the row has feedback (a click needs an examination).
    propensity : float64 array
        Examination propensity per position (already within its clip).
    odds : float64 array
        z of each row (inf: γ = 0).
    power : float
        A clicked row's factor is e^(−power) (1: the inverse propensity, unbiased).
    posterior : bool
        An unclicked row's lower factor is how likely it is irrelevant; else 1.
    upper, lower, exam : float64 arrays of the rows' length
        Written: the row's factor as the higher (clicked) side of a pair, as the lower side, and e.
    seen : float64 array of the positions' length
        Written: Σ over each position's rows of P(examined | feedback) — 1 for a clicked row, e z / (1 + z − e)
        for an unclicked one (the E step; the M step divides by the rows at the position).
    inverse : float64 array of the positions' length
        Scratch: e^(−power) per position.
    """
    for k in range(seen.shape[0]):
        seen[k] = 0.0
        inverse[k] = propensity[k] ** -power
    for i in range(position.shape[0]):
        p = position[i]
        e = propensity[p]
        exam[i] = e
        upper[i] = inverse[p]
        if clicked[i]:
            lower[i] = inverse[p]
            seen[p] += 1.0
        else:
            z = odds[i]
            den = 1.0 + z - e
            irrelevant = z / den if den > 0.0 and z < 1e300 else 1.0  # γ = 1 and e = 1; γ = 0
            lower[i] = irrelevant if posterior else 1.0
            seen[p] += e * irrelevant
