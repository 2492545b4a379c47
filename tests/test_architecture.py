"""Where things live: one home per idea, imports that only go down."""

import ast
from pathlib import Path

import numba
import numpy as np
import pytest

import boostrank as br

PKG = Path(br.__file__).resolve().parent


def module_imports():
    """{module: [(imported module, names)]} of the package's own top-level imports."""
    out = {}
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG.parent).with_suffix("")
        parts = list(rel.parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        name = ".".join(parts)
        found = []
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ImportFrom) and node.level:
                base = parts if is_pkg else parts[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
                found.append((target, [a.name for a in node.names]))
        out[name] = found
    return out


def test_kernels_import_nothing_of_the_package():
    for mod, imports in module_imports().items():
        if mod.startswith("boostrank._kernels"):
            assert all(t.startswith("boostrank._kernels") for t, _ in imports), mod


#: the modules that may start, signal or find processes, or reach into Numba's machinery (issue 71): Numba's
#: JIT boundary, the MIP solvers' processes, and the warm-up a user asks for
BOUNDARY = {"boostrank._kernels.jit": {"numba.core"},
            "boostrank.mip.processes": {"subprocess", "signal", "ctypes", "fcntl", "/proc", "os.kill"},
            "boostrank.precompile": {"subprocess"}}
PROCESS_AND_JIT = {"subprocess", "multiprocessing", "ctypes", "signal", "fcntl", "numba.core", "/proc", "os.kill",
                   "concurrent.futures.ProcessPoolExecutor"}


def _uses(tree) -> set:
    """What a module's code (not its comments or docstrings) reaches of PROCESS_AND_JIT."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            found.add(f"{node.value.id}.{node.attr}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "/proc/" in node.value:
            found.add("/proc")
        elif isinstance(node, ast.JoinedStr) and any(isinstance(v, ast.Constant) and "/proc/" in str(v.value)
                                                     for v in node.values):
            found.add("/proc")
    return {u for u in found if any(u == name or u.startswith(name + ".") for name in PROCESS_AND_JIT)}


def test_processes_and_numbas_internals_live_in_their_boundary_modules():
    """Issue 71: no module but the JIT boundary, the solvers' processes and the warm-up starts, signals or
    kills a process, scans /proc, calls C through ctypes or imports numba.core."""
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG.parent).with_suffix("")
        name = ".".join(p for p in rel.parts if p != "__init__")
        used = {u.split(".")[0] if u.split(".")[0] in ("subprocess", "multiprocessing", "ctypes", "signal", "fcntl")
                else u for u in _uses(ast.parse(path.read_text()))}
        allowed = BOUNDARY.get(name, set())
        assert {u for u in used if not any(u == a or u.startswith(a + ".") for a in allowed)} == set(), name


def test_no_private_name_crosses_a_module():
    for mod, imports in module_imports().items():
        for target, names in imports:
            private = [n for n in names if n.startswith("_") and n != "__version__"]
            assert not private, f"{mod} imports {private} from {target}"


def test_boosting_modules_do_not_lean_on_the_linear_ranker():
    boosting = {"boostrank.objectives.objective", "boostrank.objectives.probit", "boostrank.engines.lightgbm", "boostrank.engines.xgboost",
                "boostrank.ranker", "boostrank.dask"}
    for mod, imports in module_imports().items():
        if mod in boosting:
            assert "boostrank.rankncg" not in {t for t, _ in imports}, mod


def test_the_probit_link_constant_has_one_home():
    from boostrank._kernels.link import ERFC_ALPHA
    from boostrank.erfc import ERFC_ALPHA as public

    assert public is ERFC_ALPHA and ERFC_ALPHA == pytest.approx(np.sqrt(3) / (np.sqrt(2) * np.pi))


@pytest.mark.parametrize("spelling", [
    {"qid": [7, 7, 3, 3, 3]}, {"group": [2, 3]}, {"offsets": [0, 2, 5]},
])
def test_every_group_spelling_gives_the_same_offsets(spelling):
    np.testing.assert_array_equal(br.metrics.group_offsets(5, **spelling), [0, 2, 5])


def test_one_group_rule_everywhere():
    X = np.random.default_rng(0).normal(size=(6, 2))
    y = np.array([1, 0, 1, 0, 1, 0])
    q = [1, 1, 2, 2, 1, 1]
    for call in (lambda: br.auc(y, X[:, 0], q), lambda: br.MIPRanker(objective="auc", time_limit=1).fit(X, y, qid=q),
                 lambda: br.LambdaRanker(n_estimators=1).fit(X, y, qid=q), lambda: br.RankNCG().fit(X, y, qid=q)):
        with pytest.raises(ValueError, match="qid 1 is not contiguous"):
            call()
    with pytest.raises(ValueError, match="pass one of"):
        br.metrics.group_offsets(6, qid=q, group=[6])


def test_thread_count_is_a_parameter_and_is_left_as_found():
    before = numba.get_num_threads()
    for n_jobs in (None, 1, -1, before):
        obj = br.LambdaObjective("auc", n_jobs=n_jobs)
        obj.bind(np.array([1.0, 0, 0, 1])).gradients(np.zeros(4))
        assert numba.get_num_threads() == before
    assert br.xgboost_objective("auc").objective.n_jobs == 1
    assert br.lightgbm_objective("auc").objective.n_jobs is None  # the size rule, unless the engine says
    with pytest.raises(ValueError, match="n_jobs"):
        br.LambdaObjective("auc", n_jobs=0)
    with pytest.raises(TypeError, match="n_threads"):
        br.LambdaObjective("auc", n_threads=1)


def test_thresholds_and_fastmath_flags_live_in_the_kernels_config():
    """One place says what each threshold trades (issue 27): no literal flag set or numeric
    module constant in the other kernel modules, and no hard-wired two-thread loop."""
    import re

    kernels = PKG / "_kernels"
    for path in kernels.glob("*.py"):
        if path.name in ("config.py", "link.py"):
            continue
        text = path.read_text()
        assert "fastmath={" not in text, path.name
        assert "prange(2)" not in text.replace("for side in prange(2)", ""), path.name
        numeric = [name for name in re.findall(r"^([A-Z][A-Z0-9_]*) = [-+0-9(]", text, flags=re.M)
                   # named cases of one kernel argument, and trec_eval's codes of unjudged grades: not thresholds
                   if not name.startswith(("MODE_", "REL_"))]
        assert not numeric, (path.name, numeric)


def test_each_engine_module_answers_the_declared_engine_interface():
    """#60: one engine interface, declared; every member with the protocol's parameters (values, no estimator)."""
    import inspect

    from boostrank.engines import ENGINES, Engine

    members = [n for n, v in vars(Engine).items() if inspect.isfunction(v) and not n.startswith("_")]
    assert len(members) > 15
    for name, module in ENGINES.items():
        assert isinstance(module, Engine), name
        for member in members:
            want = list(inspect.signature(getattr(Engine, member)).parameters)[1:]  # without self
            got = list(inspect.signature(getattr(module, member)).parameters)
            assert got == want, (name, member, got, want)
            assert "estimator" not in got
