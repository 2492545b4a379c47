"""One clock for a fit that must end: the seconds left of ``time_limit`` and each stage's share of them."""

from __future__ import annotations

import time

__all__ = ["TimeBudget", "BNB_SHARE"]

BNB_SHARE = 0.4
"""Share of the time left after the search that the branch and bound may use (30 s
without a time limit); the MIP gets the rest when nothing is proven.  When no MIP
can follow (one list with more than ``MAX_MIP_PAIRS`` pairs) it gets all of it."""


class TimeBudget:
    """One clock for a fit: the seconds left of ``time_limit`` and each stage's share of them.

    Without a time limit every stage gets a fixed allowance instead (``UNLIMITED``), so a
    fit without one still ends.
    """

    UNLIMITED = {"search": 10.0, "search before bnb": 2.0, "bnb": 30.0, "search after bnb": 8.0}
    #: the search's share of the time before the branch and bound (which often proves in well
    #: under a second) and before the MIP; never less than ``MIN_SEARCH`` seconds
    SEARCH_SHARE = {"before bnb": 0.1, "before mip": 0.25}
    MIN_SEARCH = 0.1

    def __init__(self, time_limit):
        self.start = time.perf_counter()
        self.deadline = None if time_limit is None else self.start + float(time_limit)

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def left(self):
        """Seconds left, or None without a time limit."""
        return None if self.deadline is None else max(0.0, self.deadline - time.perf_counter())

    def expired(self, floor: float) -> bool:
        """Fewer than ``floor`` seconds are left (never without a time limit)."""
        left = self.left()
        return left is not None and left < floor

    def search_share(self, alone: bool, before_bnb: bool) -> float:
        left = self.left()
        if left is None:
            return self.UNLIMITED["search before bnb" if before_bnb else "search"]
        if alone:
            return left
        return max(self.SEARCH_SHARE["before bnb" if before_bnb else "before mip"] * left, self.MIN_SEARCH)

    def bnb_share(self, mip_follows: bool) -> float:
        left = self.left()
        return self.UNLIMITED["bnb"] if left is None else (BNB_SHARE if mip_follows else 1.0) * left

    def search_after_bnb(self, mip_follows: bool) -> float:
        left = self.left()
        if left is None:
            return self.UNLIMITED["search after bnb"]
        return left * (0.25 / (1 - BNB_SHARE) if mip_follows else 1.0)

    def rest(self, floor: float):
        """All the time left (at least ``floor``), or None without a time limit."""
        left = self.left()
        return None if left is None else max(left, floor)
