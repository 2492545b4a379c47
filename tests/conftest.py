import os

import numpy as np
import pytest

#: the checkout under test: the scripts, examples and console commands the tests start import it too, not a
#: copy `pip install .` put in site-packages (which may be stale, and whose Numba cache `boostrank warmup`,
#: run from the checkout, never filled: a cold demo compiled every kernel again inside the suite)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)


@pytest.fixture
def rng(request):
    seed = getattr(request, "param", 0)
    return np.random.default_rng(seed)


def random_ranking(seed, n_queries=6, max_len=12, n_grades=3, tie_levels=4):
    """Queries of random length (1 included) with graded labels and many score ties."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_len + 1, size=n_queries)
    n = int(sizes.sum())
    y = rng.integers(0, n_grades, size=n)
    # single-class queries occur naturally; force one all-zero query too
    if n_queries > 1:
        y[: sizes[0]] = 0
    scores = rng.integers(0, tie_levels, size=n).astype(float)
    qid = np.repeat(np.arange(n_queries) + 10, sizes)
    return y, scores, qid


#: tests whose kernels no user path reaches on ordinary data (int64 work arrays past 2**31 rows, the sweep cut
#: into many chunks), so `boostrank warmup` leaves them to compile inside the suite: ~45 s on one core
_COMPILE_BESIDE = ("test_probit.py::test_series_kernel_gives_the_same_lambdas_with_int64_work_arrays",
                   "test_probit.py::test_a_sweep_cut_into_chunks_gives_the_whole_sweeps_lambdas")
_beside = []


def pytest_collection_finish(session):
    """In a whole-suite run, those tests first run in a child pytest on the core the suite leaves idle while
    it works through the earlier files, so their kernels are in Numba's cache when the suite reaches them."""
    import subprocess
    import sys

    import joblib

    if session.config.option.collectonly:
        return
    names = {item.nodeid.split("[")[0].split("/")[-1] for item in session.items}
    if len(session.items) < 1000 or not all(n in names for n in _COMPILE_BESIDE) or joblib.cpu_count() < 2:
        return
    here = os.path.dirname(os.path.abspath(__file__))
    selection = " or ".join(n.split("::")[1] for n in _COMPILE_BESIDE)
    # at the lowest priority: it takes only the time the suite leaves idle (at equal priority, tests on two
    # threads beside it waited for the core it held: an example's 1 s fit took 11 s)
    _beside.append(subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                     os.path.join(here, "test_probit.py"), "-k", selection],
                                    cwd=os.path.dirname(here), stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL,
                                    preexec_fn=_lowest_priority if os.name == "posix" else None))


def _lowest_priority():
    os.nice(19)


def pytest_sessionfinish(session, exitstatus):
    for child in _beside:  # its result does not count: the suite runs the same tests itself
        if child.poll() is None:
            child.kill()
        child.wait()
