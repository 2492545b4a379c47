"""Solvers for :class:`~boostrank.mip.formulations.MIPModel`: CBC and HiGHS.

CBC runs as a subprocess on an MPS file written straight from the sparse matrix (no
modelling layer: the models have 10⁴–10⁵ binaries and a Python modeller spent most of
the time building them).  The binary is PuLP's bundled CBC 2.10.3 where PuLP < 4
ships one, else the ``cbcbox`` wheel's (PuLP 4's own CBC), else ``cbc`` on PATH; on
the AUC models of ``benchmarks/mip.py`` the 2.10.3 build proved optimality faster.
Files live in a private temporary folder removed on every exit path, and on Linux
the solver is killed with the Python process that started it.

HiGHS runs in-process through ``highspy`` with the model passed as arrays.

Status, objective and bound come from each solver's own report: CBC's solution
header and its final statistics (PuLP reports "Optimal" at a time limit, so nothing
here relies on it), HiGHS's model status and ``mip_dual_bound``.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .._compat import install_hint
from .processes import CBC_PREFIX, clean_stale_cbc_folders, held_owner, run_solver, silent, solve_within

if TYPE_CHECKING:  # annotations only: the solvers read a model's arrays, never build one
    from .formulations import MIPModel

__all__ = ["SolverResult", "solve", "cbc_path", "SOLVERS", "to_pulp", "write_model", "is_pulp_solver"]


@dataclass
class SolverResult:
    """What a solver returned, in the model's (minimised) units.

    Attributes
    ----------
    status : str
        ``"optimal"``, ``"feasible"`` (stopped with an incumbent), ``"no solution"``,
        ``"infeasible"`` or ``"error"``.
    x : ndarray or None
        The incumbent.
    objective, bound : float or None
        c·x of the incumbent and the best lower bound.
    seconds : float
    log : str
        The solver's log (CBC) or status text (HiGHS).
    trace : list of (seconds, incumbent, bound)
        The search as it went (CBC's log; HiGHS's improving-solution callback), in the
        minimised units.
    clocked : bool
        The time limit stopped it (not an optimum, not the node limit): the incumbent
        is whichever it had reached by then, which depends on the machine's speed.
    """

    status: str
    x: np.ndarray | None
    objective: float | None
    bound: float | None
    seconds: float
    log: str = ""
    trace: list = field(default_factory=list)
    clocked: bool = False


MIP_NODES = 10_000
"""Branch-and-bound nodes a MIP solve may explore (HiGHS ``mip_max_nodes``, CBC ``-maxNodes``):
a limit of work, not of time, so a solve it ends returns the same incumbent on every machine."""


#: A solver's "optimal" is called optimal only within these gaps (HiGHS's default ``mip_rel_gap`` and
#: ``mip_abs_gap``): with a user's ``mip_gap`` both solvers stop "within the gap" and still say optimal.
OPTIMAL_REL_GAP = 1e-4
OPTIMAL_ABS_GAP = 1e-6


def proven(objective: float, bound: float | None) -> bool:
    """Whether ``bound`` proves the minimised ``objective`` optimal within the default gaps."""
    return bound is not None and math.isfinite(bound) and \
        objective - bound <= max(OPTIMAL_ABS_GAP, OPTIMAL_REL_GAP * abs(objective))


def cbc_path() -> str:
    """Path of the CBC binary boostrank runs (see the module docstring for the order)."""
    env = os.environ.get("BOOSTRANK_CBC")
    if env:
        return env
    try:
        from pulp.apis import coin_api  # PuLP < 4 bundles CBC 2.10.3

        path = getattr(coin_api, "pulp_cbc_path", None)
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.realpath(path)
    except ImportError:
        pass
    try:
        import cbcbox

        path = cbcbox.cbc_bin_path() if callable(cbcbox.cbc_bin_path) else cbcbox.cbc_bin_path
        if path and os.path.isfile(path):
            return path
    except ImportError:
        pass
    path = shutil.which("cbc")
    if path:
        return path
    raise RuntimeError(f"no CBC binary found: {install_hint('cbc')} (or put `cbc` on PATH), or use "
                       "solver='highs', the default")


def _fmt(v):
    return repr(float(v))


def _mps_lines(model: MIPModel):
    """The model's fixed-name MPS file (columns x0…, rows r0…), line by line."""
    A = model.A.tocsc()
    n_rows, n_cols = A.shape
    yield from ("NAME boostrank", "ROWS", " N obj")
    lo, hi = model.row_lo, model.row_hi
    kind = np.where(lo == hi, "E", np.where(np.isinf(lo), "L", np.where(np.isinf(hi), "G", "L")))
    yield from (f" {k} r{i}" for i, k in enumerate(kind))
    yield "COLUMNS"
    in_int = False
    indptr, indices, data = A.indptr, A.indices, A.data
    for j in range(n_cols):
        if model.integer[j] != in_int:
            marker = "'INTEND'" if in_int else "'INTORG'"
            yield f"    M{j} 'MARKER' {marker}"
            in_int = not in_int
        name = f"x{j}"
        if model.c[j] != 0 or indptr[j] == indptr[j + 1]:
            yield f"    {name} obj {_fmt(model.c[j])}"
        for i, v in zip(indices[indptr[j]:indptr[j + 1]].tolist(), data[indptr[j]:indptr[j + 1]].tolist()):
            yield f"    {name} r{i} {v!r}"
    if in_int:
        yield "    Mend 'MARKER' 'INTEND'"
    yield "RHS"
    rhs = np.where(kind == "G", lo, hi)
    yield from (f"    rhs r{i} {_fmt(v)}" for i, v in enumerate(rhs) if v != 0)
    ranged = np.flatnonzero(np.isfinite(lo) & np.isfinite(hi) & (lo != hi))
    if ranged.size:
        yield "RANGES"
        yield from (f"    rng r{i} {_fmt(hi[i] - lo[i])}" for i in ranged)
    yield "BOUNDS"
    for j in range(n_cols):
        cl, ch = model.col_lo[j], model.col_hi[j]
        if np.isinf(cl) and np.isinf(ch):
            yield f" FR bnd x{j}"
            continue
        if cl != 0:
            yield f" MI bnd x{j}" if np.isinf(cl) else f" LO bnd x{j} {_fmt(cl)}"
        if not np.isinf(ch):
            yield f" UP bnd x{j} {_fmt(ch)}"
    yield "ENDATA"


def _terms(cols, values):
    """`` + 2.5 x3 - 1.0 x7`` pieces of an LP-format expression, at most 8 to a line."""
    parts = [f"{'-' if v < 0 else '+'} {_fmt(abs(v))} x{j}" for j, v in zip(cols, values)]
    return ["   " + " ".join(parts[k:k + 8]) for k in range(0, len(parts), 8)] or ["   0 x0"]


def _lp_lines(model: MIPModel):
    """The model in CPLEX LP format (columns x0…, rows r0…; a ranged row is r_lo and r_hi), line by line."""
    A = model.A.tocsr()
    yield "\\ boostrank"
    yield "Minimize"
    yield " obj:"  # every column, zeros too: LP readers number columns in order of first appearance
    yield from _terms(list(range(model.c.shape[0])), model.c.tolist())
    yield "Subject To"
    for i in range(A.shape[0]):
        row = slice(A.indptr[i], A.indptr[i + 1])
        lo, hi = model.row_lo[i], model.row_hi[i]
        senses = [("=", lo)] if lo == hi else [(">=", lo)] * (not np.isinf(lo)) + [("<=", hi)] * (not np.isinf(hi))
        for sense, rhs in senses:
            name = f"r{i}" if len(senses) == 1 else f"r{i}_{'lo' if sense == '>=' else 'hi'}"
            yield f" {name}:"
            yield from _terms(A.indices[row].tolist(), A.data[row].tolist())
            yield f"   {sense} {_fmt(rhs)}"
    yield "Bounds"
    for j in range(model.c.shape[0]):
        cl, ch = model.col_lo[j], model.col_hi[j]
        if np.isinf(cl) and np.isinf(ch):
            yield f" x{j} free"
        else:
            yield f" {'-inf' if np.isinf(cl) else _fmt(cl)} <= x{j} <= {'+inf' if np.isinf(ch) else _fmt(ch)}"
    ints = np.flatnonzero(model.integer)
    if ints.size:
        yield "Generals"
        yield from (" " + " ".join(f"x{j}" for j in ints[k:k + 16]) for k in range(0, ints.size, 16))
    yield "End"


def _write_lines(lines, path: str) -> None:
    """Stream lines to ``path`` in blocks: a model's file is never held in memory whole."""
    with open(path, "w", encoding="ascii") as fh:
        block = []
        for line in lines:
            block.append(line)
            if len(block) >= 4096:
                fh.write("\n".join(block) + "\n")
                block.clear()
        if block:
            fh.write("\n".join(block) + "\n")


def write_mps(model: MIPModel, path: str) -> None:
    """Write the model as a fixed-name MPS file (columns x0…, rows r0…)."""
    _write_lines(_mps_lines(model), path)


def _write_start(x, path):
    """A CBC solution file CBC reads as a MIP start (``-mips``)."""
    with open(path, "w", encoding="ascii") as fh:
        fh.write("Stopped on time - objective value 0\n")
        fh.writelines(f"{j:>7} x{j} {v!r:>15} {0:>23}\n" for j, v in enumerate(x.tolist()))


_CBC_OBJ = re.compile(r"Objective value:\s*(\S+)")
_CBC_BOUND = re.compile(r"Lower bound:\s*(\S+)")
_CBC_INCUMBENT = re.compile(r"Cbc0012I Integer solution of (\S+) .*\(([\d.]+) seconds\)")
_CBC_PROGRESS = re.compile(r"Cbc0010I After \d+ nodes, \d+ on tree, (\S+) best solution, best possible (\S+) "
                           r"\(([\d.]+) seconds\)")
_NO_SOLUTION = ("1e+50", "1e+050", "1.79769e+308")


def cbc_trace(log: str) -> list:
    """(seconds, incumbent, bound) over time from CBC's log, in the minimised units."""
    out, inc, bound = [], None, None
    for line in (log or "").splitlines():
        m = _CBC_INCUMBENT.search(line)
        if m:
            inc = float(m.group(1))
            out.append((float(m.group(2)), inc, bound))
            continue
        m = _CBC_PROGRESS.search(line)
        if m:
            if m.group(1) not in _NO_SOLUTION:
                inc = float(m.group(1))
            bound = float(m.group(2))
            out.append((float(m.group(3)), inc, bound))
    return out


def read_cbc_solution(path: str, n_cols: int):
    """(header, x) of a CBC solution file, or (header, None) when it holds no solution."""
    x = np.zeros(n_cols)
    with open(path, encoding="ascii", errors="replace") as fh:
        header = fh.readline().strip()
        for line in fh:
            parts = line.split()
            if parts and parts[0] == "**":
                parts = parts[1:]
            if len(parts) >= 3 and parts[1].startswith("x"):
                x[int(parts[1][1:])] = float(parts[2])
    return header, x


def _cbc_status(header: str, log: str, has_int: bool):
    """Status from the solution header and the log's final statistics."""
    h = header.lower()
    if h.startswith("optimal"):
        return "optimal"
    if "infeasible" in h:
        return "infeasible"
    if "no feasible solution" in log.lower() or "no integer solution" in log.lower():
        return "no solution"
    if h.startswith("stopped") or h.startswith("user ctrl-c") or "ctrl-c" in h:
        return "feasible" if has_int else "no solution"
    return "error"


def solve_cbc(model: MIPModel, *, time_limit=None, threads=None, mip_gap=None, verbose=False, start=None,
              node_limit=None):
    """Run CBC on the model; see :class:`SolverResult`."""
    t0 = time.perf_counter()
    has_int = bool(model.integer.any())
    clean_stale_cbc_folders()  # a fit killed by SIGKILL/SIGTERM could not remove its own
    with tempfile.TemporaryDirectory(prefix=CBC_PREFIX) as tmp, held_owner(tmp):  # mode 0700: private
        mps, sol, mst = (os.path.join(tmp, f) for f in ("model.mps", "model.sol", "start.sol"))
        write_mps(model, mps)
        if start is not None and has_int:
            _write_start(start, mst)
        args = _cbc_args(mps, sol, mst if start is not None and has_int else None, has_int, time_limit, threads,
                         mip_gap, node_limit)
        log, interrupted, ran = run_solver(args, time_limit, verbose)
        secs = time.perf_counter() - t0
        if not ran or not os.path.exists(sol):
            status = "no solution" if interrupted else "error"
            return SolverResult(status, None, None, None, secs, log + ("\n[boostrank] CBC overran its time limit "
                                                                      "and was stopped\n" if interrupted else ""),
                                clocked=interrupted)
        header, x = read_cbc_solution(sol, model.c.shape[0])
    return _cbc_result(model, header, x, log, has_int, time_limit, secs)


def _cbc_args(mps, sol, mst, has_int, time_limit, threads, mip_gap, node_limit=None) -> list:
    """CBC's command line for the model file ``mps``, its solution to ``sol``, a start from ``mst``."""
    args = [cbc_path(), mps]
    if mst is not None:
        args += ["-mips", mst]
    if time_limit is not None:
        args += ["-sec", _fmt(time_limit), "-timeMode", "elapsed"]
    if threads is not None:
        args += ["-threads", str(int(threads))]
    if mip_gap is not None:
        args += ["-ratio", _fmt(mip_gap)]
    if node_limit is not None:
        args += ["-maxNodes", str(int(node_limit))]
    return args + ["-solve" if has_int else "-initialSolve", "-solution", sol]


def _cbc_result(model, header, x, log, has_int, time_limit, secs) -> SolverResult:
    """The result of a CBC run that wrote a solution file: its status, the objective and CBC's bound."""
    status = _cbc_status(header, log, has_int)
    if status == "infeasible" and "Pre-processing says infeasible" in log and time_limit is not None \
            and secs >= 0.9 * float(time_limit):
        # CBC 2.10 reports infeasible when its preprocessing runs out of time
        status = "no solution"
    bounds = _CBC_BOUND.findall(log)
    # the solution file's first line (CBC 2.10.3): "Stopped on time ..." at -sec, "Stopped on iterations ..."
    # at -maxNodes
    clocked = header.lower().startswith("stopped on time")
    if status in ("infeasible", "no solution", "error"):
        bound = float(bounds[-1]) if bounds and status == "no solution" else None
        return SolverResult(status, None, None, bound, secs, log, cbc_trace(log), clocked)
    objective = float(model.c @ x)
    try:
        bound = float(bounds[-1]) if bounds else None
    except ValueError:
        bound = None
    if bound is not None and not math.isfinite(bound):
        bound = None
    if status == "optimal":
        # CBC says "Optimal" when it stopped within -ratio: the log's lower bound tells; "Result - Optimal
        # solution found" prints no bound: CBC proved it at its own gap
        bound = objective if bound is None else min(bound, objective)
        if not proven(objective, bound):
            status = "feasible"
    return SolverResult(status, x, objective, bound, secs, log, cbc_trace(log), clocked)


def solve_highs(model: MIPModel, *, time_limit=None, threads=None, mip_gap=None, verbose=False, start=None,
                node_limit=None):
    """Solve with HiGHS (highspy) from arrays; see :class:`SolverResult`."""
    import highspy

    t0 = time.perf_counter()
    h = _highs(highspy, time_limit, threads, mip_gap, verbose, node_limit)
    has_int = _pass_model(highspy, h, model)
    trace = []
    deadline = None if time_limit is None else t0 + float(time_limit) + 0.5

    def interrupt(event):  # HiGHS's own limit is not checked in every phase: enforce the wall clock
        if deadline is not None and time.perf_counter() > deadline:
            event.interrupt()

    def improved(event):
        out = event.data_out
        trace.append((float(out.running_time), float(out.objective_function_value), float(out.mip_dual_bound)))

    h.cbSimplexInterrupt += interrupt
    h.cbIpmInterrupt += interrupt
    h.cbMipInterrupt += interrupt
    h.cbMipImprovingSolution += improved
    if start is not None and has_int:
        sol = highspy.HighsSolution()
        sol.col_value = list(start)
        sol.value_valid = True
        h.setSolution(sol)
    h.run()
    return _highs_result(highspy, h, model, has_int, time.perf_counter() - t0, trace)


def _highs(highspy, time_limit, threads, mip_gap, verbose, node_limit=None):
    """A HiGHS instance with the fit's options (silent unless ``verbose``)."""
    if threads is not None:
        # HiGHS keeps one scheduler per process: a new thread count needs a reset
        highspy.Highs.resetGlobalScheduler(True)
    h = highspy.Highs() if verbose else silent(highspy.Highs)
    h.setOptionValue("output_flag", bool(verbose))
    for name, value in (("time_limit", time_limit), ("threads", threads), ("mip_rel_gap", mip_gap),
                        ("mip_max_nodes", node_limit)):
        if value is not None:
            h.setOptionValue(name, int(value) if name in ("threads", "mip_max_nodes") else float(value))
    return h


def _pass_model(highspy, h, model) -> bool:
    """Hand HiGHS the model's arrays (column-wise); whether it has integer columns."""
    A = model.A.tocsc()
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = A.shape[1], A.shape[0]
    lp.col_cost_ = model.c
    lp.col_lower_, lp.col_upper_ = model.col_lo, model.col_hi
    lp.row_lower_, lp.row_upper_ = model.row_lo, model.row_hi
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr
    lp.a_matrix_.index_ = A.indices
    lp.a_matrix_.value_ = A.data
    has_int = bool(model.integer.any())
    h.passModel(lp)
    if has_int:
        cols = np.flatnonzero(model.integer).astype(np.int32)
        h.changeColsIntegrality(cols.size, cols, np.ones(cols.size, dtype=np.uint8))
    return has_int


def _highs_status(highspy, st, has_sol) -> str:
    """boostrank's status of a HiGHS model status."""
    if st == highspy.HighsModelStatus.kOptimal:
        return "optimal"
    if st in (highspy.HighsModelStatus.kInfeasible, highspy.HighsModelStatus.kUnboundedOrInfeasible):
        return "infeasible"
    if has_sol:
        return "feasible"
    if st in (highspy.HighsModelStatus.kTimeLimit, highspy.HighsModelStatus.kInterrupt,
              highspy.HighsModelStatus.kIterationLimit, highspy.HighsModelStatus.kSolutionLimit):
        return "no solution"
    return "error"


def _highs_result(highspy, h, model, has_int, secs, trace) -> SolverResult:
    """The result of a HiGHS run: its status, the solution, objective and dual bound."""
    st = h.getModelStatus()
    info = h.getInfo()
    has_sol = info.primal_solution_status == 2
    status = _highs_status(highspy, st, has_sol)
    text = h.modelStatusToString(st)
    clocked = st in (highspy.HighsModelStatus.kTimeLimit, highspy.HighsModelStatus.kInterrupt)
    if not has_sol or status == "infeasible":
        bound = info.mip_dual_bound if has_int and math.isfinite(info.mip_dual_bound) else None
        return SolverResult(status, None, None, bound, secs, text, trace, clocked)
    x = np.asarray(h.getSolution().col_value, dtype=np.float64)
    objective = float(model.c @ x)
    if not has_int:
        bound = objective if status == "optimal" else None
    else:
        bound = min(info.mip_dual_bound, objective) if math.isfinite(info.mip_dual_bound) else None
        if status == "optimal" and not proven(objective, bound):
            status = "feasible"  # kOptimal within the user's mip_rel_gap is not a proof
    return SolverResult(status, x, objective, bound, secs, text, trace, clocked)


def is_pulp_solver(solver) -> bool:
    """A PuLP solver object (``pulp.GUROBI_CMD()``, ``pulp.CPLEX_CMD()``, ``pulp.HiGHS()`` ...)."""
    return not isinstance(solver, str) and callable(getattr(solver, "actualSolve", None))


def to_pulp(model: MIPModel):
    """The model as a ``pulp.LpProblem`` (columns x0 …, rows r0 …; a ranged row is two rows).

    Returns
    -------
    problem : pulp.LpProblem
    columns : list of pulp.LpVariable
    """
    import pulp

    def bound(v):
        return None if np.isinf(v) else float(v)

    problem = pulp.LpProblem("boostrank", pulp.LpMinimize)
    # PuLP 3.3 deprecates free-standing LpVariable(...) for prob.add_variable; older PuLP has only the former
    make = getattr(problem, "add_variable", None) or pulp.LpVariable
    cols = []
    for j in range(model.c.shape[0]):
        lo, hi = bound(model.col_lo[j]), bound(model.col_hi[j])
        cat = (pulp.LpBinary if (lo, hi) == (0.0, 1.0) else pulp.LpInteger) if model.integer[j] else pulp.LpContinuous
        cols.append(make(f"x{j}", lowBound=lo, upBound=hi, cat=cat))
    problem += pulp.LpAffineExpression([(cols[j], float(v)) for j, v in enumerate(model.c) if v != 0])
    A = model.A.tocsr()
    for i in range(A.shape[0]):
        row = slice(A.indptr[i], A.indptr[i + 1])
        expr = pulp.LpAffineExpression([(cols[k], float(v)) for k, v in zip(A.indices[row], A.data[row])])
        lo, hi = bound(model.row_lo[i]), bound(model.row_hi[i])
        if lo is not None and lo == hi:
            problem += (expr == lo, f"r{i}")
            continue
        if lo is not None:
            problem += (expr >= lo, f"r{i}" if hi is None else f"r{i}_lo")
        if hi is not None:
            problem += (expr <= hi, f"r{i}" if lo is None else f"r{i}_hi")
    return problem, cols


def solve_pulp(model: MIPModel, solver, *, time_limit=None, threads=None, mip_gap=None, verbose=False,
               start=None, node_limit=None):
    """Solve with a PuLP solver object (a copy: the caller's object keeps its options); see :class:`SolverResult`.

    The fit's time limit caps the solver's own ``timeLimit``; ``threads`` and ``mip_gap``
    fill its ``threads`` and ``gapRel`` when the object leaves them unset; a start is
    passed as initial values with ``warmStart`` where the solver takes one.  PuLP has no
    common node limit: ``node_limit`` is not passed on, and a solve that ends short of an
    optimum under a time limit counts as stopped by the clock.
    """
    import pulp

    t0 = time.perf_counter()
    s = _pulp_solver(solver, time_limit, threads, mip_gap, verbose)
    problem, cols = to_pulp(model)
    if start is not None:
        _pulp_start(s, cols, start)
    with tempfile.TemporaryDirectory(prefix="boostrank_pulp_") as tmp:
        if hasattr(s, "tmpDir"):  # the solver's files, and so its process, are recognisable by this folder
            s.tmpDir = tmp
        outcome = solve_within(problem, s, time_limit, tmp)
    if isinstance(outcome, pulp.PulpSolverError):
        return SolverResult("error", None, None, None, time.perf_counter() - t0, str(outcome))
    if outcome == "overran":
        return SolverResult("no solution", None, None, None, time.perf_counter() - t0,
                            f"[boostrank] {type(solver).__name__} overran the time limit of {time_limit:g} s and was "
                            f"stopped (its own timeLimit was not kept)", clocked=True)
    out = _pulp_result(model, problem, cols, s, time.perf_counter() - t0)
    out.clocked = time_limit is not None and out.status in ("feasible", "no solution")
    return out


def _pulp_solver(solver, time_limit, threads, mip_gap, verbose):
    """A copy of the user's PuLP solver object with the fit's limits where it sets none."""
    import copy

    s = copy.copy(solver)
    if isinstance(getattr(solver, "optionsDict", None), dict):  # copy.copy shared it: the caller's kept our gap
        s.optionsDict = dict(solver.optionsDict)
    if time_limit is not None:
        s.timeLimit = min(float(time_limit), s.timeLimit) if getattr(s, "timeLimit", None) else float(time_limit)
    options = getattr(s, "optionsDict", None)
    if isinstance(options, dict):  # PuLP >= 2.x reads threads, gapRel and warmStart here, not as attributes
        if threads is not None:
            options.setdefault("threads", int(threads))
        if mip_gap is not None:
            options.setdefault("gapRel", mip_gap)
    elif threads is not None and getattr(s, "threads", None) is None:
        s.threads = threads
    s.msg = bool(verbose)
    return s


def _pulp_start(s, cols, start) -> None:
    """Initial values and ``warmStart`` on, where the solver takes a start."""
    options = getattr(s, "optionsDict", None)
    in_options = isinstance(options, dict) and "warmStart" in options
    if not (in_options or hasattr(s, "warmStart")):
        return
    for v, x0 in zip(cols, np.asarray(start, dtype=np.float64)):
        v.setInitialValue(float(x0))
    if in_options:
        options["warmStart"] = True
    else:
        s.warmStart = True


def _pulp_result(model, problem, cols, s, secs) -> SolverResult:
    """The result of a PuLP solve: status (optimal only without a gap), solution and objective."""
    import pulp

    sol = {pulp.LpSolutionOptimal: "optimal", pulp.LpSolutionIntegerFeasible: "feasible",
           pulp.LpSolutionInfeasible: "infeasible", pulp.LpSolutionNoSolutionFound: "no solution"}
    status = sol.get(problem.sol_status, "error")
    if status == "no solution" and problem.status == pulp.LpStatusOptimal:
        status = "optimal"  # solvers that report only the problem status
    values = [v.value() for v in cols]
    if status not in ("optimal", "feasible") or any(v is None for v in values):
        return SolverResult(status if status != "optimal" else "error", None, None, None, secs,
                            f"PuLP status {pulp.LpStatus[problem.status]}")
    x = np.asarray(values, dtype=np.float64)
    objective = float(model.c @ x)
    gap = (getattr(s, "optionsDict", None) or {}).get("gapRel")
    if status == "optimal" and model.integer.any() and gap is not None and float(gap) > OPTIMAL_REL_GAP:
        status = "feasible"  # PuLP reports no bound: "optimal" within a gap proves nothing
    return SolverResult(status, x, objective, objective if status == "optimal" else None, secs,
                        f"PuLP status {pulp.LpStatus[problem.status]}")


def write_model(model: MIPModel, path) -> None:
    """Write the model as MPS (``.mps``) or CPLEX LP (``.lp``), streamed, atomically replacing ``path``."""
    from ..io.files import write_atomic

    path = os.fspath(path)
    if path.endswith(".lp"):
        lines = _lp_lines
    elif path.endswith(".mps"):
        lines = _mps_lines
    else:
        raise ValueError(f"{path}: write .mps or .lp")
    # whole or as it was: a SIGTERM mid-write left a truncated file over a good one
    write_atomic(path, lambda tmp: _write_lines(lines(model), tmp))


SOLVERS = {"cbc": solve_cbc, "highs": solve_highs}


def solve(model: MIPModel, solver="highs", **kwargs) -> SolverResult:
    """Solve with the named solver (``"highs"``, :class:`boostrank.MIPRanker`'s default, or ``"cbc"``),
    or with any PuLP solver object (Gurobi, CPLEX, COPT, SCIP, ... through PuLP)."""
    if is_pulp_solver(solver):
        return solve_pulp(model, solver, **kwargs)
    try:
        fn = SOLVERS[solver]
    except KeyError:
        raise ValueError(f"solver must be one of {sorted(SOLVERS)}, got {solver!r}") from None
    return fn(model, **kwargs)
