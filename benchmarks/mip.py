"""Exact MIP ranking with the defaults a new user gets (issue: "search before proof").

Every MIPRanker here is ``MIPRanker(objective="auc", time_limit=cap)`` plus only the solver
name and ``algorithm="mip"`` where the MIP alone is measured; logistic regression (standardised, sklearn
defaults) is fitted on the same rows in the same run.  AUC counts ties as misranks,
as the MIP does.

1. ROC-flexibility style (250 rows, 20 distinct, 5 features), seeds 0–2: time to a
   proven optimum with the defaults (the branch and bound over directions), and with
   the MIP alone under HiGHS and CBC (thesis: 174 s with CPLEX in 2009).
2. A 2-feature set of 500 rows with interleaved classes: the exact angular sweep.
3. Haberman (153 training rows), 60 s cap, 5 random 50/50 splits: train AUC vs LR, gap.
4. Pima (384 training rows), 60 s cap, 3 splits: model build time, train/test AUC vs LR.
5. 20 generated sets (d = 2…8, n = 100…1 000, ties, class balance 10–50 %), 30 s cap:
   train AUC minus LR's.

Run:  python benchmarks/mip.py [--quick]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import make_classification

import boostrank as br

from _common import Logistic, load_haberman, load_pima, write_json

HERE = Path(__file__).resolve().parent


def auc(y, s):
    return float(br.auc(y, s, ties="pessimistic"))


def fit(X, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return br.MIPRanker(objective="auc", **kw).fit(X, y)


def part1(cap, seeds):
    rows = []
    print(f"\n1. ROC flexibility, 250 rows: time to proven optimum (cap {cap:.0f} s)")
    print("   'auto' is MIPRanker's default (search, then the branch and bound over directions);")
    print("   'mip' is the MIP alone (algorithm='mip'), with each solver")
    print(f"{'seed':>4} {'method':<6} {'solver':<16} {'status':<9} {'seconds':>8} {'AUC':>7} {'LR':>7} {'source':<16} binaries")
    for seed in seeds:
        X, y = br.datasets.make_roc_flexibility(250, random_state=seed)
        lr = auc(y, Logistic().fit(X, y).decision_function(X))
        for method, solver in (("auto", "highs"), ("mip", "highs"), ("mip", "cbc")):
            r = fit(X, y, solver=solver, time_limit=cap, algorithm=method).result_
            rows.append({"seed": seed, "method": method, "solver": r.solver, "status": r.status,
                         "seconds": r.solve_time, "auc": r.statistic, "lr": lr, "gap": r.gap, "source": r.source,
                         "binaries": r.n_binaries, "bnb_seconds": r.bnb_time})
            print(f"{seed:>4} {method:<6} {r.solver:<16} {r.status:<9} {r.solve_time:>8.2f} {r.statistic:>7.4f} "
                  f"{lr:>7.4f} {r.source:<16} {r.n_binaries}", flush=True)
    return rows


def interleaved_2d(n=500, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    band = np.floor(2.5 * (X[:, 0] + 0.6 * X[:, 1])).astype(int)
    y = ((band % 2 == 0) ^ (rng.random(n) < 0.1) ^ (X[:, 1] > 1.2)).astype(int)
    return X, y


def part2():
    print("\n2. 2-feature sets, 500 and 5 000 rows, interleaved classes: exact sweep (target ≤ 1 s)")
    out = []
    for n, seed in [(500, s) for s in range(3)] + [(5000, s) for s in range(3)]:
        X, y = interleaved_2d(n, seed)
        t = time.perf_counter()
        r = fit(X, y, time_limit=60).result_
        secs = time.perf_counter() - t
        lr = auc(y, Logistic().fit(X, y).decision_function(X))
        out.append({"n": n, "seed": seed, "status": r.status, "seconds": secs, "auc": r.statistic, "lr": lr})
        print(f"  n={n} seed {seed}: {r.status} in {secs:.3f} s, AUC {r.statistic:.4f} (LR {lr:.4f}), "
              f"solver {r.solver}", flush=True)
    return out


def split_runs(name, X, y, splits, cap):
    print(f"\n{name}: {splits} random 50/50 splits, {cap:.0f} s cap")
    print(f"{'split':>5} {'train':>7} {'LR':>7} {'test':>7} {'LR':>7} {'gap':>6} {'build s':>8} {'fit s':>6} {'status':<9} source")
    out = []
    rng = np.random.default_rng(0)
    for s in range(splits):
        perm = rng.permutation(len(y))
        tr, te = perm[: len(y) // 2], perm[len(y) // 2:]
        lr = Logistic().fit(X[tr], y[tr])
        m = fit(X[tr], y[tr], time_limit=cap)
        r = m.result_
        row = {"train": r.statistic, "lr_train": auc(y[tr], lr.decision_function(X[tr])),
               "test": auc(y[te], m.decision_function(X[te])), "lr_test": auc(y[te], lr.decision_function(X[te])),
               "gap": r.gap, "build": r.build_time, "seconds": r.solve_time, "status": r.status, "source": r.source}
        out.append(row)
        gap = "-" if r.gap is None else f"{r.gap:.3f}"
        print(f"{s:>5} {row['train']:>7.4f} {row['lr_train']:>7.4f} {row['test']:>7.4f} {row['lr_test']:>7.4f} "
              f"{gap:>6} {r.build_time:>8.2f} {r.solve_time:>6.1f} {r.status:<9} {r.source}", flush=True)
    return out


def generated(count, cap):
    print(f"\n5. {count} generated sets, {cap:.0f} s cap: train AUC minus logistic regression's")
    rng = np.random.default_rng(7)
    out = []
    for i in range(count):
        d = int(rng.integers(2, 9))
        n = int(rng.integers(100, 1001))
        balance = float(rng.uniform(0.1, 0.5))
        X, y = make_classification(n, d, n_informative=max(2, d // 2), n_redundant=0, weights=[1 - balance],
                                   flip_y=0.1, class_sep=float(rng.uniform(0.3, 1.0)), random_state=i)
        if i % 3 == 0:
            X = np.round(X, 1)  # ties and duplicate rows
        lr = auc(y, Logistic().fit(X, y).decision_function(X))
        r = fit(X, y, time_limit=cap).result_
        out.append({"d": d, "n": n, "positives": float(y.mean()), "auc": r.statistic, "lr": lr,
                    "diff": r.statistic - lr, "status": r.status, "gap": r.gap, "seconds": r.solve_time})
        print(f"  {i:>2}: d={d} n={n:>4} pos={y.mean():.2f}  AUC {r.statistic:.4f}  LR {lr:.4f}  "
              f"diff {r.statistic - lr:+.4f}  {r.status} ({r.solve_time:.1f} s)", flush=True)
    diffs = np.array([o["diff"] for o in out])
    print(f"  train AUC − LR: mean {diffs.mean():+.4f}, min {diffs.min():+.4f}, max {diffs.max():+.4f}")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="caps 10 s, 1 split, 6 generated sets")
    ap.add_argument("--json", default=str(HERE / "results" / "mip.json"))
    args = ap.parse_args(argv)
    cap1, cap, cap5, splits, count = (120.0, 60.0, 30.0, 5, 20) if not args.quick else (20.0, 10.0, 10.0, 1, 6)
    # Numba compiles the kernels on an install's first fit (then they are cached): not timed here
    X, y = br.datasets.make_roc_flexibility(60, n_distinct=8, n_features=3, random_state=0)
    fit(X, y, time_limit=5)
    fit(X[:, :2], y, time_limit=5)
    res = {"roc_flexibility": part1(cap1, (0, 1, 2) if not args.quick else (0,)), "interleaved_2d": part2()}
    X, y = load_haberman()
    res["haberman"] = split_runs("3. Haberman", X, y, splits, cap)
    X, y = load_pima()
    res["pima"] = split_runs("4. Pima", X, y, max(1, splits - 2), cap)
    res["generated"] = generated(count, cap5)
    write_json(args.json, res)


if __name__ == "__main__":
    main()
