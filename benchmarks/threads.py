"""Time against Numba's thread count: the long-list order, the probit λ-AUC objective, erfc_sum.

Each (source tree, thread count) runs in its own process (``NUMBA_NUM_THREADS`` fixes the
pool), the trees interleaved so that both see the same machine; the table gives the
median of ``--repeat`` calls after a warm-up call, and the ratio to the first tree.

* ``order``: the ascending pessimistic order of one list (``ascending_pessimistic_into``,
  work arrays reused as in training), normal scores, 5 % positives;
* ``λ-AUC``: one objective call, probit link, default eps, one list;
* ``erfc_sum``: N = M targets and sources, eps 1e-6.

Run:  python benchmarks/threads.py [--threads 1 2] [--rows 1000000 10000000]
                                   [--compare-tree ../other/checkout] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from _common import write_json

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
from boostrank.objectives import LambdaObjective
from boostrank.erfc import erfc_sum

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    ap.add_argument("--erfc-n", type=int, default=51_200)
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--rounds", type=int, default=3, help="interleaved runs per configuration; the median")
    ap.add_argument("--compare-tree", type=Path, default=None, help="another checkout, measured in the same run")
    ap.add_argument("--json", default=str(HERE / "results" / "threads.json"))
    args = ap.parse_args()
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
