"""boostrank.mip.budget: a fit's time limit counts its work, not Numba's compiles."""

import time

import numpy as np
import pytest


@pytest.mark.slow  # over a second warm
def test_numba_compiles_do_not_count_against_a_time_limit():
    """A first fit on a fresh cache compiles its kernels inside the fit; the budget's clock stands
    still meanwhile, so a time limit buys the same work cold and warm (#47)."""

    import numba

    from boostrank.mip.budget import TimeBudget, work_clock

    @numba.njit  # defined here: never compiled before, never cached
    def fresh(x):
        total = 0.0
        for i in range(x.shape[0]):
            total += np.sqrt(abs(x[i])) * np.cos(x[i]) + np.sum(np.sort(x[: i + 1]))
        return total

    clock = TimeBudget(60.0)
    wall, work = time.perf_counter(), work_clock()
    fresh(np.arange(5.0))
    wall, work = time.perf_counter() - wall, work_clock() - work
    assert wall > 0.05 and work < 0.2 * wall  # the compile is most of the call and none of the work
    assert clock.left() > 60.0 - 0.2 * wall - 0.05
    t = time.perf_counter()
    while time.perf_counter() - t < 0.05:  # the clock still runs between compiles
        pass
    assert clock.elapsed() >= 0.05
