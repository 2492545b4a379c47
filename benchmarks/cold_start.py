"""What a new user waits for before the first answer: cold (fresh Numba cache) against warm.

Each step runs in a fresh Python process, timed from the process's start to the printed
answer (interpreter start included), with ``NUMBA_CACHE_DIR`` pointing at an empty folder
for the cold column and at the folder the cold run filled for the warm column:

* ``import``: ``import boostrank``;
* ``first metric``: ``br.auc`` on 1 000 rows in 10 queries;
* ``first objective round``: one ``lgb.train`` round with λ-AUC (LightGBM's own
  ``lambdarank`` beside it, as what the engine alone costs);
* ``300 λ-AUC rounds``: a whole ``lgb.train`` run on MQ2008's validation file (``../shared/data``);
* ``first MIP fit``: ``MIPRanker().fit`` on 60 rows, 3 features;
* ``boostrank --version``: the console script;
* ``boostrank demo``: the README's first command after ``pip install``, end to end.

Run:  python benchmarks/cold_start.py [--repeat 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import DATA, write_json

HERE = Path(__file__).resolve().parent

_DATA = """
import numpy as np
rng = np.random.default_rng(0)
y = rng.integers(0, 2, 1000); s = rng.normal(size=1000) + y; q = np.repeat(np.arange(10), 100)
X = rng.normal(size=(1000, 5)); X[:, 0] += y
"""
STEPS = {
    "import": "import boostrank",
    "first metric": _DATA + "import boostrank as br; br.auc(y, s, q)",
    "first objective round (lambdarank)": _DATA + (
        "import lightgbm as lgb\n"
        "lgb.train({'objective': 'lambdarank', 'verbose': -1},"
        " lgb.Dataset(X, y, group=[100] * 10), num_boost_round=1)"),
    "first objective round (λ-AUC)": _DATA + (
        "import lightgbm as lgb, boostrank as br\n"
        "lgb.train({'objective': br.lightgbm_objective('auc'), 'verbose': -1},"
        " lgb.Dataset(X, y, group=[100] * 10), num_boost_round=1)"),
    # a whole training run: a first process's later rounds share the cores with the child compiling the
    # parallel λ kernel, so the first round's gain must not come back as slower rounds
    "300 λ-AUC rounds, MQ2008 vali": (
        "import lightgbm as lgb, boostrank as br\n"
        f"d = br.load_letor({str(DATA / 'mq2008' / 'vali.txt')!r}, sparse=False)\n"
        "lgb.train({'objective': br.lightgbm_objective('auc'), 'verbose': -1},"
        " lgb.Dataset(d.X, d.y, group=d.group_sizes), num_boost_round=300)"),
    "first MIP fit": _DATA + "import boostrank as br; br.MIPRanker().fit(X[:60, :3], y[:60])",
    "boostrank --version": None,
    "boostrank demo": None,
}


def run(step: str, cache: str) -> float:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    if STEPS[step] is None:  # the installed console script, as a user types it
        args = step.split()[1:]
        script = Path(sys.executable).with_name("boostrank")
        cmd = [str(script), *args] if script.exists() else [sys.executable, "-m", "boostrank.cli", *args]
    else:
        cmd = [sys.executable, "-c", STEPS[step]]
    t = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="cold runs per step (a fresh cache each); the median")
    ap.add_argument("--json", default=str(HERE / "results" / "cold_start.json"))
    args = ap.parse_args()
    rows = []
    print(f"{'step':38s} {'cold s':>8s} {'warm s':>8s}  (median of {args.repeat}; fresh process each)")
    for step in STEPS:
        cold, warm = [], []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory(prefix="boostrank-cold-") as cache:
                cold.append(run(step, cache))
                warm.append(run(step, cache))
        c, w = sorted(cold)[len(cold) // 2], sorted(warm)[len(warm) // 2]
        rows.append({"step": step, "cold_s": c, "warm_s": w, "cold_runs": cold, "warm_runs": warm})
        print(f"{step:38s} {c:8.2f} {w:8.2f}", flush=True)
    write_json(args.json, {"repeat": args.repeat, "rows": rows})


if __name__ == "__main__":
    main()
