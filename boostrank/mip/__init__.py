"""Exact rank statistics by mixed-integer programming (thesis §2.2, Rudin & Wang §4).

* :mod:`~boostrank.mip.formulations` — the MIPs, built from arrays;
* :mod:`~boostrank.mip.search` — primal search on the exact statistic, exact 2-D solver, branch and
  bound over directions for pair statistics in any dimension;
* :mod:`~boostrank.mip.solvers` — CBC and HiGHS with honest status, bound and gap;
* :mod:`~boostrank.mip.estimator` — :class:`MIPRanker`.
"""

from ._data import RankData, merge_rows, rank_data
from .estimator import MIPRanker, MIPResult
from .formulations import MIPModel, build_problem
from .search import BoundResult, SearchResult, branch_and_bound, exact_low_dimension, search, widest_margin
from .solvers import SolverResult, cbc_path, solve

__all__ = ["MIPRanker", "MIPResult", "MIPModel", "build_problem", "solve", "SolverResult", "cbc_path",
           "RankData", "rank_data", "merge_rows", "search", "exact_low_dimension", "SearchResult",
           "branch_and_bound", "BoundResult", "widest_margin"]
