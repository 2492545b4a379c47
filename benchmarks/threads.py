"""Time against Numba's thread count: the long-list order, the probit λ-AUC objective, erfc_sum.

Each (source tree, thread count) runs in its own process (``NUMBA_NUM_THREADS`` fixes the
pool), the trees interleaved so that both see the same machine; the table gives the
median of ``--repeat`` calls after a warm-up call, and the ratio to the first tree.

* ``order``: the ascending pessimistic order of one list (``ascending_pessimistic_into``,
  work arrays reused as in training), normal scores, 5 % positives;
* ``λ-AUC``: one objective call, probit link, default eps, one list;
* ``erfc_sum``: N = M targets and sources, eps 1e-6.

``--under-load``: training, not kernels.  MQ2008 vali, 100 rounds at learning rate 0.05, the engine
on one thread and its Dataset/DMatrix built before training (so the objective is not told the engine's
thread count), each engine's own ranking objective against λ-AUC with the defaults, idle and with one
busy-looping process per core beside it: the ratio λ-AUC ÷ the engine's objective (the goal under load
is ≤ 1.2×), median of ``--rounds`` interleaved fits; and one list of 10⁵ rows at LightGBM's default threads,
λ-AUC against ``binary`` (the goal: ≤ 1.3× idle).

Run:  python benchmarks/threads.py [--threads 1 2] [--rows 1000000 10000000]
                                   [--compare-tree ../other/checkout] [--json out.json]
      python benchmarks/threads.py --under-load [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from _common import DATA, write_json

HERE = Path(__file__).resolve().parent

CHILD = r"""
import json, sys, time
import numba
import numpy as np
rows, repeat, erfc_n = json.loads(sys.argv[1])
try:
    from boostrank._kernels.order import ascending_pessimistic_into, index_dtype
except ImportError:  # a checkout from before the orders moved to _kernels/order.py
    from boostrank._kernels.lambda_series import ascending_pessimistic_into, index_dtype
from boostrank.objectives.objective import LambdaObjective
from boostrank.linear.erfc import erfc_sum

def median(f):
    f()
    ts = []
    for _ in range(repeat):
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    return float(sorted(ts)[len(ts) // 2])

out = {}
rng = np.random.default_rng(0)
for n in rows:
    s = rng.normal(size=n)
    y = (rng.random(n) < 0.05).astype(np.int64)
    wi = np.empty((3, n), dtype=index_dtype(n)); wu = np.empty((2, n), dtype=np.uint64); t = np.empty(n)
    # (trees before the sort took its chunk count as an argument: two chunks, fixed)
    extra = (numba.get_num_threads(),) if ascending_pessimistic_into.py_func.__code__.co_argcount == 8 else ()
    out[f"order {n:.0e}"] = median(lambda: ascending_pessimistic_into(s, y, 2, 1.0, wi, wu, t, *extra))
    obj = LambdaObjective("auc", link="probit")
    prep = obj.bind(y.astype(np.float64))  # one list, buffers kept as in training
    out[f"λ-AUC {n:.0e}"] = median(lambda: prep.gradients(s))
z = rng.normal(size=erfc_n) * 3; q = rng.random(erfc_n)
out[f"erfc_sum {erfc_n}"] = median(lambda: erfc_sum(z, z, q, eps=1e-6))
print(json.dumps(out))
"""


def run(tree: Path, threads: int, rows, repeat, erfc_n) -> dict:
    env = {**os.environ, "NUMBA_NUM_THREADS": str(threads), "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps([rows, repeat, erfc_n])], env=env,
                         capture_output=True, text=True, cwd=tree, check=False)
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def _fits():
    """(engine, its objective's fit, λ-AUC's fit): functions that train 100 rounds on MQ2008 vali and return seconds,
    and 30 rounds on one list of 10⁵ rows (20 features, 7 % positives) against ``binary``."""
    import time

    import lightgbm as lgb
    import numpy as np
    import xgboost as xgb

    import boostrank as br

    vali = br.load_letor(DATA / "mq2008" / "vali.txt", sparse=False)
    ds = lgb.Dataset(vali.X, vali.y, group=vali.group_sizes, free_raw_data=False).construct()
    dm = xgb.DMatrix(vali.X, vali.y, group=vali.group_sizes)
    lgb_params = {"num_threads": 1, "verbose": -1, "metric": "None", "learning_rate": 0.05, "num_leaves": 31}
    xgb_params = {"nthread": 1, "eta": 0.05, "tree_method": "hist", "disable_default_eval_metric": 1}
    rng = np.random.default_rng(0)
    X1 = rng.normal(size=(100_000, 20))
    y1 = ((X1[:, 0] + np.sin(X1[:, 1] * 2) + rng.normal(size=100_000) * 1.5) > 2.8).astype(float)
    one = lgb.Dataset(X1, y1, free_raw_data=False).construct()

    def timed(train):
        def fit():
            t = time.perf_counter()
            train()
            return time.perf_counter() - t
        return fit

    return [
        ("LightGBM", "lambdarank",
         timed(lambda: lgb.train({**lgb_params, "objective": "lambdarank"}, ds, 100)),
         timed(lambda: lgb.train({**lgb_params, "objective": br.lightgbm_objective("auc")}, ds, 100))),
        ("XGBoost", "rank:pairwise",
         timed(lambda: xgb.train({**xgb_params, "objective": "rank:pairwise"}, dm, 100)),
         timed(lambda: xgb.train(xgb_params, dm, 100, obj=br.xgboost_objective("auc")))),
        # one long list (the probit series), LightGBM at its default threads: the objective's own thread rule
        ("LightGBM one list of 10⁵", "binary",
         timed(lambda: lgb.train({"objective": "binary", "verbose": -1}, one, 30)),
         timed(lambda: lgb.train({"objective": br.lightgbm_objective("auc"), "verbose": -1}, one, 30))),
    ]


def under_load(rounds: int) -> dict:
    """The ``--under-load`` table: idle and with one busy loop per core."""
    import numpy as np

    fits = _fits()
    for _, _, base, ours in fits:  # compile and warm up
        base()
        ours()
    table = {}
    for busy in (0, os.cpu_count() or 1):
        loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
        try:
            for engine, name, base, ours in fits:
                times = {"base": [], "ours": []}
                for _ in range(rounds):
                    times["base"].append(base())
                    times["ours"].append(ours())
                b, o = float(np.median(times["base"])), float(np.median(times["ours"]))
                table[f"{engine}, {busy} busy loop(s)"] = {"objective": name, "engine s": b, "λ-AUC s": o,
                                                            "ratio": o / b}
        finally:
            for loop in loops:
                loop.kill()
    print(f"{'':42s}{'objective':>15s}{'its s':>9s}{'λ-AUC s':>9s}{'λ-AUC ÷ it':>12s}")
    for label, row in table.items():
        print(f"{label:42s}{row['objective']:>15s}{row['engine s']:9.3f}{row['λ-AUC s']:9.3f}{row['ratio']:11.2f}x")
    return table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    ap.add_argument("--erfc-n", type=int, default=51_200)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--rounds", type=int, default=3, help="interleaved runs per configuration; the median")
    ap.add_argument("--compare-tree", type=Path, default=None, help="another checkout, measured in the same run")
    ap.add_argument("--json", default=str(HERE / "results" / "threads.json"))
    ap.add_argument("--under-load", action="store_true",
                    help="MQ2008 vali training, idle and beside one busy loop per core, both engines")
    args = ap.parse_args()
    if args.under_load:
        json_path = args.json if args.json != str(HERE / "results" / "threads.json") else \
            str(HERE / "results" / "threads_under_load.json")
        write_json(json_path, {"args": {k: str(v) for k, v in vars(args).items()},
                               "table": under_load(max(args.rounds, 5))})
        return
    trees = {"this tree": HERE.parent}
    if args.compare_tree is not None:
        trees["compared"] = args.compare_tree.resolve()
    results: dict = {name: {th: [] for th in args.threads} for name in trees}
    for _ in range(args.rounds):
        for th in args.threads:
            for name, tree in trees.items():
                results[name][th].append(run(tree, th, args.rows, args.repeat, args.erfc_n))
    table = {}
    for name in trees:
        for th in args.threads:
            runs = results[name][th]
            table[f"{name}, {th} thread(s)"] = {k: sorted(r[k] for r in runs)[len(runs) // 2] for k in runs[0]}
    keys = list(next(iter(table.values())))
    one = table[f"this tree, {args.threads[0]} thread(s)"]
    print(f"{'':28s}" + "".join(f"{k:>30s}" for k in keys))
    print(f"{'':28s}" + "".join(f"{'ms  ÷ 1st count  ÷ compared':>30s}" for _ in keys))
    for label, row in table.items():
        other = table.get(label.replace("this tree", "compared")) if label.startswith("this") else None
        print(f"{label:28s}" + "".join(
            f"{1e3 * row[k]:12.2f} {row[k] / one[k]:9.2f}x" + (f" {row[k] / other[k]:8.2f}x" if other else " " * 9)
            for k in keys))
    write_json(args.json, {"args": {k: str(v) for k, v in vars(args).items()}, "table": table})


if __name__ == "__main__":
    main()
