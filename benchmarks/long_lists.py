"""λ-AUC on one long list: the erfc-series objective against exact pair sums and log-loss.

Part 1 — time per objective call on one list of n rows (1–10% positives; default 5%):
``fast`` (probit link, erfc series, eps 1e-6), ``exact`` λ-AUC with the logistic link
(pair sums, measured up to ``--exact-max`` rows and extrapolated ∝ n² beyond), the
probit pair sums, and the binary log-loss gradient (what LightGBM's ``binary``
objective computes per round, here in NumPy).

Part 2 — 100 boosting rounds on one list (``--train-n`` rows, 20 features, 5%
positives, nonlinear signal, 3% label noise): LightGBM with ``fast`` λ-AUC vs
LightGBM ``binary`` vs XGBoost ``rank:pairwise``; wall time, time per round and test AUC.

Run:  python benchmarks/long_lists.py [--sizes 10000 100000 1000000] [--train-n 1000000] [--quick]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import lightgbm as lgb
import numpy as np
import xgboost as xgb

import boostrank as br

from _common import write_json
from boostrank.objectives import LambdaObjective

HERE = Path(__file__).resolve().parent


def best(fn, repeat):
    out = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t)
    return out


def data(n, d=20, rate=0.05, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    f = X[:, 0] + 0.6 * X[:, 1] * X[:, 2] - 0.5 * np.abs(X[:, 3]) + 0.3 * np.sin(2 * X[:, 4])
    y = (f + 0.7 * rng.normal(size=n) > np.quantile(f, 1 - rate)).astype(np.float64)
    flip = rng.random(n) < 0.03
    y[flip] = 1 - y[flip]
    return X, y


def part1(sizes, exact_max, rate):
    rows = []
    for n in sizes:
        rng = np.random.default_rng(n)
        s = rng.normal(size=n)
        y = (rng.random(n) < rate).astype(np.float64)
        fast = LambdaObjective("auc", link="probit", method="fast")
        prep = fast._prepare(y, np.array([0, n]))
        fast.gradients(s, prep)
        t_fast = best(lambda: fast.gradients(s, prep), 3)

        def logloss():
            p = 1.0 / (1.0 + np.exp(-s))
            return p - y, p * (1.0 - p)
        t_ll = best(logloss, 3)
        row = {"n": n, "fast_s": t_fast, "logloss_s": t_ll}
        for name, kw in (("exact_logistic", {}), ("exact_probit", {"link": "probit"})):
            obj = LambdaObjective("auc", **kw)
            if n <= exact_max:
                p2 = obj._prepare(y, np.array([0, n]))
                obj.gradients(s[:100], obj._prepare(y[:100], np.array([0, 100])))
                row[name + "_s"] = best(lambda: obj.gradients(s, p2), 1)
                row[name + "_measured"] = True
            else:
                base = max(m for m in sizes if m <= exact_max)
                ref = next(r for r in rows if r["n"] == base)
                row[name + "_s"] = ref[name + "_s"] * (n / base) ** 2
                row[name + "_measured"] = False
        row["speedup_vs_exact"] = row["exact_logistic_s"] / t_fast
        rows.append(row)
        print(f"{n:>9} fast {t_fast * 1e3:>9.2f} ms   exact(logistic) {row['exact_logistic_s']:>10.3f} s"
              f"{'' if row['exact_logistic_measured'] else '*'}   exact(probit) {row['exact_probit_s']:>10.3f} s"
              f"{'' if row['exact_probit_measured'] else '*'}   log-loss {t_ll * 1e3:>7.2f} ms   "
              f"fast ×{row['speedup_vs_exact']:,.0f} faster than exact", flush=True)
    print("* extrapolated ∝ n² from the largest measured size")
    return rows


def part2(n, rounds):
    X, y = data(n + n // 4, seed=1)
    Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]
    params = {"num_leaves": 31, "learning_rate": 0.1, "num_threads": 2, "verbose": -1, "seed": 0,
              "force_row_wise": True, "metric": "None"}
    out = {}
    ds = lgb.Dataset(Xtr, ytr, free_raw_data=False).construct()
    runs = {
        "lightgbm λ-AUC fast": {**params, "objective": br.lightgbm_objective("auc", link="probit", method="fast")},
        "lightgbm binary": {**params, "objective": "binary"},
    }
    for name, p in runs.items():
        t = time.perf_counter()
        booster = lgb.train(p, ds, num_boost_round=rounds)
        secs = time.perf_counter() - t
        out[name] = {"seconds": secs, "per_round": secs / rounds, "test_auc": float(br.auc(yte, booster.predict(Xte)))}
        print(f"  {name:<26} {secs:>8.1f} s  {secs / rounds * 1e3:>8.1f} ms/round  test AUC {out[name]['test_auc']:.4f}",
              flush=True)
    dtr = xgb.DMatrix(Xtr, ytr, group=[n], nthread=2)
    t = time.perf_counter()
    bst = xgb.train({"objective": "rank:pairwise", "tree_method": "hist", "grow_policy": "lossguide",
                     "max_leaves": 31, "max_depth": 0, "eta": 0.1, "nthread": 2}, dtr, rounds)
    secs = time.perf_counter() - t
    out["xgboost rank:pairwise"] = {"seconds": secs, "per_round": secs / rounds,
                                    "test_auc": float(br.auc(yte, bst.predict(xgb.DMatrix(Xte))))}
    print(f"  {'xgboost rank:pairwise':<26} {secs:>8.1f} s  {secs / rounds * 1e3:>8.1f} ms/round  test AUC "
          f"{out['xgboost rank:pairwise']['test_auc']:.4f}")
    ratio = out["lightgbm λ-AUC fast"]["per_round"] / out["lightgbm binary"]["per_round"]
    print(f"  λ-AUC fast round / binary round: {ratio:.2f}×")
    out["round_ratio_vs_binary"] = ratio
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000, 10_000_000])
    ap.add_argument("--exact-max", type=int, default=100_000)
    ap.add_argument("--rate", type=float, default=0.05)
    ap.add_argument("--train-n", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--quick", action="store_true", help="sizes up to 10^5, training on 10^5 rows")
    ap.add_argument("--json", default=str(HERE / "results" / "long_lists.json"))
    args = ap.parse_args(argv)
    if args.quick:
        args.sizes = [s for s in args.sizes if s <= 100_000]
        args.exact_max, args.train_n = 10_000, 100_000
    print(f"Part 1: time per objective call, one list, {args.rate:.0%} positives")
    res = {"settings": vars(args), "calls": part1(args.sizes, args.exact_max, args.rate)}
    print(f"Part 2: {args.rounds} rounds on one list of {args.train_n:,} rows")
    res["training"] = part2(args.train_n, args.rounds)
    write_json(args.json, res)


if __name__ == "__main__":
    main()
