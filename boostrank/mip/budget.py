"""The time limit of a fit: the seconds left of ``time_limit`` and the most each stage may use of them (every
stage ends by its own count of work first; the clock only caps it)."""

from __future__ import annotations


from .._kernels.jit import work_clock

__all__ = ["TimeBudget", "BNB_SHARE", "work_clock"]

BNB_SHARE = 0.4
"""Share of the time left after the search that the branch and bound may use at most; the
MIP gets the rest when nothing is proven.  When no MIP can follow (one list with more than
``MAX_MIP_PAIRS`` pairs) it gets all of it."""


class TimeBudget:
    """One clock for a fit: the seconds left of ``time_limit`` and the most each stage may use of them.

    Every stage ends by its own count of work (the search's rounds and restarts, the branch
    and bound's boxes, the solver's nodes), the same on every machine; these shares only cap
    a stage whose work would take longer, and None (no time limit) caps nothing.  Seconds are
    :func:`work_clock`'s: Numba compiles do not count.
    """

    #: the search's share of the time before the branch and bound (which often proves in well
    #: under a second) and before the MIP; never less than ``MIN_SEARCH`` seconds
    SEARCH_SHARE = {"before bnb": 0.1, "before mip": 0.25}
    MIN_SEARCH = 0.1

    def __init__(self, time_limit):
        self.start = work_clock()
        self.deadline = None if time_limit is None else self.start + float(time_limit)

    def elapsed(self) -> float:
        return work_clock() - self.start

    def left(self):
        """Seconds left, or None without a time limit."""
        return None if self.deadline is None else max(0.0, self.deadline - work_clock())

    def expired(self, floor: float) -> bool:
        """Fewer than ``floor`` seconds are left (never without a time limit)."""
        left = self.left()
        return left is not None and left < floor

    def search_share(self, alone: bool, before_bnb: bool):
        left = self.left()
        if left is None or alone:
            return left
        return max(self.SEARCH_SHARE["before bnb" if before_bnb else "before mip"] * left, self.MIN_SEARCH)

    def bnb_share(self, mip_follows: bool):
        left = self.left()
        return None if left is None else (BNB_SHARE if mip_follows else 1.0) * left

    def search_after_bnb(self, mip_follows: bool):
        left = self.left()
        return None if left is None else left * (0.25 / (1 - BNB_SHARE) if mip_follows else 1.0)

    def rest(self, floor: float):
        """All the time left (at least ``floor``), or None without a time limit."""
        left = self.left()
        return None if left is None else max(left, floor)
