"""Compile the Numba kernels a user can reach into Numba's on-disk cache, ahead of time.

Numba compiles each kernel the first time a process calls it and keeps the machine code in
``__pycache__`` (or ``NUMBA_CACHE_DIR``), so a fresh install pays seconds per kernel family
at its first metric, objective round or MIP fit.  :func:`warmup` calls the public functions
on tiny inputs of the types real data has, so an image or a CI cache step can pay that once
(``pip install boostrank && boostrank warmup``).  Later processes load the cache.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from typing import Callable, Sequence

import numpy as np


__all__ = ["warmup", "warm_in_workers", "WARMUP_GROUPS"]

def _data(n_queries=4, size=12, seed=0):
    rng = np.random.default_rng(seed)
    n = n_queries * size
    X = rng.normal(size=(n, 3))
    y = rng.integers(0, 3, size=n)
    y[::size] = 0
    y[1::size] = 2
    qid = np.repeat(np.arange(n_queries), size)
    return X, y, qid, X[:, 0] + 0.5 * y


def _metrics():
    import boostrank as br
    from boostrank.metrics import arrays as metrics

    X, y, qid, s = _data()
    small = metrics.AUC_NUMPY_MAX_ROWS
    metrics.AUC_NUMPY_MAX_ROWS = 0  # the AUC kernel, which inputs past that many rows take
    try:
        for name in ("auc", "auc:pessimistic", "mauc", "wmw", "ndcg@10", "ndcg@10:trec", "map", "map@10:trec",
                     "p@5", "mcp@5", "err@10"):
            br.get_metric(name)(y, s, qid)
    finally:
        metrics.AUC_NUMPY_MAX_ROWS = small
    br.rank_risk(y > 0, s, "dcg@5", qid=qid)
    br.rank_risk(y > 0, s, "dcg@5", qid=qid, rank="resolved")
    br.minrank(s)
    br.resolved_rank(y > 0, s)


def _trec():
    """TREC files read (the id kernels), trec_eval's measures on qrels and runs (the judged-list kernels),
    compare's randomization test, a fusion of runs."""
    import boostrank as br
    from boostrank.evaluation.fusion import fuse

    _, y, qid, s = _data()
    docid = np.arange(len(y)).astype(str)
    qrels, run = br.Qrels(qid.astype(str), docid, y), br.Run(qid.astype(str), docid, s, name="a")
    with tempfile.TemporaryDirectory() as folder:  # the readers' byte checks
        br.save_qrels(os.path.join(folder, "qrels"), qrels)
        br.save_run(os.path.join(folder, "run"), run)
        qrels, run = br.load_qrels(os.path.join(folder, "qrels")), br.load_run(os.path.join(folder, "run"))
    br.evaluate(qrels, run, "all_trec")
    other = br.Run(qid.astype(str), docid, -s, name="b")
    br.compare(qrels, [run, other], "map", test="randomization")
    fuse([run, other], "rrf")


def _objectives():
    _lambda_kernels()
    _swap_series()


def _lambda_kernels():
    import boostrank as br

    X, y, qid, s = _data()
    off = np.r_[0, np.flatnonzero(np.diff(qid)) + 1, len(qid)]
    for metric in ("auc", "mauc", "ndcg"):
        br.lambda_gradients(s, y, off, metric=metric)
    br.lambda_gradients(s, y > 0, off, metric="auc")  # binary labels: the two-class path
    for method in ("exact", "fast"):  # the probit link (one long list takes it by default)
        br.lambda_gradients(s, y > 0, off, metric="auc", link="probit", method=method)
        br.lambda_gradients(s, y, off, metric="mauc", link="probit", method=method)
    rng = np.random.default_rng(1)
    long_y = (rng.random(4000) < 0.2).astype(float)
    br.lambda_gradients(rng.normal(size=4000), long_y)  # link="auto" on one long list: the series sweeps
    one_list = br.LambdaObjective("auc")  # ... writing the engines' float32 buffers
    one_list.bind(long_y).gradients(rng.normal(size=4000), np.float32)
    # the engines' call: the anchor's pass writes their float32 buffers, on one thread and on several (n_jobs,
    # or 200 000 rows and more, where the λ kernel takes its parallel form too)
    for n_jobs in (1, -1):
        br.LambdaObjective("auc", n_jobs=n_jobs).bind(y, off).gradients(s, np.float32)
    br.LambdaObjective("auc", n_jobs=-1).bind(y, off).gradients(s)
    # clicks with positions: the pair factors, the E step and the anchor's click likelihood
    position = np.concatenate([np.arange(b - a) for a, b in zip(off[:-1], off[1:])])
    br.LambdaObjective("auc").bind(y > 0, off, position=position).gradients(s)


def _swap_series():
    """The probit series with Welleck's swap weights (``pair_weight="swap"``): ~1 min of compiling on one core,
    the longest part, so it has a worker to itself."""
    import boostrank as br

    X, y, qid, s = _data()
    off = np.r_[0, np.flatnonzero(np.diff(qid)) + 1, len(qid)]
    swap = dict(link="probit", method="fast", pair_weight="swap")
    br.lambda_gradients(s, y > 0, off, metric="auc", **swap)  # many lists: one call sorts them all
    rng = np.random.default_rng(1)
    long_y = (rng.random(300) < 0.2).astype(float)
    br.lambda_gradients(rng.normal(size=300), long_y, **swap)  # a list on its own (the engines' float32
    # buffers take its float64 sums rounded: no float32 variants)


def _rankncg():
    import boostrank as br
    from boostrank._kernels.config import ERFC_PARALLEL_MIN_POINTS

    X, y, qid, s = _data()
    for link, method in (("probit", "fast"), ("probit", "exact"), ("logistic", "exact")):
        br.RankNCG(link=link, method=method, max_iter=3).fit(X, y, qid=qid)
    rng = np.random.default_rng(2)
    for side in ("both", "above", "below"):
        br.erfc_sum(rng.normal(size=64), rng.normal(size=64), rng.random(64), side=side)
        br.erfc_sum(rng.normal(size=64), rng.normal(size=64), rng.random(64), side=side, method="exact")
    big = ERFC_PARALLEL_MIN_POINTS // 2 + 1  # past it the sum's steps run on Numba's threads
    br.erfc_sum(rng.normal(size=big), rng.normal(size=big), rng.random(big))


def _mip():
    import warnings

    import boostrank as br

    rng = np.random.default_rng(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for d in (2, 3):
            X = rng.normal(size=(40, d))
            y = (X[:, 0] + rng.normal(size=40) > 0).astype(int)
            br.MIPRanker(objective="auc", time_limit=5).fit(X, y)
        X = rng.normal(size=(30, 3))
        y = (X[:, 0] > 0).astype(int)
        br.MIPRanker(objective="rank_risk", a="dcg@5", time_limit=5).fit(X, y)


#: what ``--only`` names: the kernels each use of boostrank reaches
WARMUP_GROUPS: dict[str, Callable[[], None]] = {
    "metrics": _metrics, "trec": _trec, "objectives": _objectives, "rankncg": _rankncg, "mip": _mip,
}
#: the parts each worker process compiles, longest first (seconds on a fresh cache, 2 cores: MEASUREMENTS.md,
#: "first compile"); a group's parts add up to the group
_PARTS = {"objectives:swap": _swap_series, "objectives": _lambda_kernels, "rankncg": _rankncg, "mip": _mip,
          "metrics": _metrics, "trec": _trec}


def warmup(only: Sequence[str] | None = None, *, progress: bool = True, n_jobs: int | None = None) -> dict:
    """Compile boostrank's Numba kernels into the on-disk cache.

    Parameters
    ----------
    only : sequence of {"metrics", "trec", "objectives", "rankncg", "mip"}, default=None
        The groups to compile; None: all.
    progress : bool, default=True
        A tqdm bar on stderr, one step per group.
    n_jobs : int, default=None
        Processes compiling side by side (Numba compiles on one core): None or -1, one per CPU this process
        may use; never more than the groups' parts (``"objectives"`` has two); 1 compiles in this process.

    Returns
    -------
    dict
        Seconds per group (seconds of compiling on a fresh cache, of loading on a warm one).

    Examples
    --------
    >>> seconds = warmup(["metrics"], progress=False)
    >>> sorted(seconds)
    ['metrics']
    """
    names = list(WARMUP_GROUPS) if only is None else list(only)
    unknown = [n for n in names if n not in WARMUP_GROUPS]
    if unknown:
        raise ValueError(f"unknown warm-up group(s) {unknown}; choose from {list(WARMUP_GROUPS)}")
    parts = {p: f"boostrank.precompile:{_PARTS[p].__name__}" for p in _PARTS if p.split(":")[0] in names}
    seconds = warm_in_workers(parts, n_jobs=n_jobs, progress=progress, desc="compiling kernels")
    out: dict = {}
    for part, t in seconds.items():  # a group's parts add up to the group
        out[part.split(":")[0]] = out.get(part.split(":")[0], 0.0) + t
    return {name: out[name] for name in names}


def warm_in_workers(parts: dict, *, n_jobs: int | None = None, progress: bool = True,
                    desc: str = "compiling kernels") -> dict:
    """Run each of ``parts`` (name -> ``"module:function"``, a function of no arguments that calls what needs
    compiling), longest first, in worker interpreters side by side; a tqdm bar counts the parts.

    The parts' compile notices come from the first part of each group (``name`` before a colon) only.
    ``n_jobs``: as :func:`warmup`'s; 1 runs the parts in this process.  Returns seconds per part.
    """
    from tqdm.auto import tqdm

    if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer))
                               or not (n_jobs >= 1 or n_jobs == -1)):
        raise ValueError(f"n_jobs must be a positive number of processes, -1 or None, got {n_jobs!r}")
    if n_jobs is None or n_jobs == -1:
        import joblib

        n_jobs = joblib.cpu_count()
    jobs = min(n_jobs, len(parts))
    seconds = {}
    with tqdm(total=len(parts), desc=desc, unit="part", disable=not progress) as bar:
        if jobs <= 1:
            import importlib

            for name, target in parts.items():
                bar.set_postfix_str(name)
                module, function = target.split(":")
                t = time.perf_counter()
                getattr(importlib.import_module(module), function)()
                seconds[name] = time.perf_counter() - t
                bar.update(1)
            return seconds
        from concurrent.futures import ThreadPoolExecutor, as_completed

        # child interpreters, not multiprocessing: its spawn start re-runs the caller's script, so a script
        # calling br.warmup() at top level without a __main__ guard would start workers from its workers
        with ThreadPoolExecutor(jobs) as pool:
            futures = {pool.submit(_warm_part_in_child, name, target): name for name, target in parts.items()}
            for done in as_completed(futures):
                seconds[futures[done]] = done.result()
                bar.set_postfix_str(f"{futures[done]} done", refresh=False)
                bar.update(1)
    return {name: seconds[name] for name in parts}


def _warm_part_in_child(name: str, target: str) -> float:
    """One part in a fresh interpreter (its notices on this process's stderr); its seconds."""
    import subprocess

    module, function = target.split(":")
    # a group's notice comes from its first part only ("objectives:swap" compiles the λ kernels too)
    quiet = "from boostrank._kernels.jit import quiet_notices; quiet_notices(); " if ":" in name else ""
    done = subprocess.run(child_command(f"import time; from {module} import {function}; {quiet}"
                                        f"t = time.perf_counter(); {function}(); "
                                        "print(time.perf_counter() - t)"), stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"warming up {name.split(':')[0]!r} failed in its process (exit code {done.returncode}); "
                           f"its error is above; 'boostrank warmup --n-jobs 1' runs the groups in this process")
    return float(done.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------ worker processes: the one place boostrank starts
# Python processes, because a user asked for them (``boostrank warmup``)
# Runs first in every child: its parent's death kills it (and if the parent is already gone, it stops), and this
# process's boostrank is importable after the standard library, ahead of site-packages (an installed copy elsewhere
# would fill another Numba cache: the cache is keyed by the source file's path)
_PRELUDE = """\
import os, sys
parent = int(sys.argv[2])
if sys.platform.startswith("linux"):
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except Exception:
        pass
if os.getppid() != parent:
    sys.exit(1)
root = sys.argv[1]
if root not in sys.path:
    import site
    sites = {os.path.abspath(p) for p in site.getsitepackages()}
    first = next((i for i, p in enumerate(sys.path) if p and os.path.abspath(p) in sites), len(sys.path))
    sys.path.insert(first, root)  # after the standard library, before site-packages' copies
del os, parent, root
"""


def child_command(code: str, *args: str) -> list:
    """``python -I -c code *args``: ``code`` runs after :data:`_PRELUDE` and finds ``args`` at ``sys.argv[3:]``."""
    return [sys.executable, "-I", "-c", _PRELUDE + code, _package_root(), str(os.getpid()), *args]


def _package_root() -> str:
    """The directory this boostrank is imported from."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
