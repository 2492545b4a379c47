"""One long list with the defaults a new user gets: ``LambdaRanker(objective="auc")`` against LightGBM ``binary``.

The list is ``make_calibrated("one-list")``-like (8 dense features, a non-linear signal, 6 % positives) at each
``--sizes`` n, drawn afresh for each of ``--seeds`` seeds; every model is scored on one held-out draw of
``--test-rows`` rows from the same distribution (the threshold at the pooled 94th percentile), so a difference
of a few thousandths is the models', not the test sample's.  Both train ``--rounds`` rounds at LightGBM's
settings of ``LambdaRanker`` (31 leaves, learning rate 0.05) on ``--threads`` threads.  The table gives the mean
test AUC, the mean difference to ``binary`` with its standard error over seeds, seconds per round (median of the
fits after one warm-up) and the ratio to ``binary``, measured in the same run.  Rows: the defaults (the probit
link with the statistic's own pair weights, ``link="auto"``), Welleck's swap weights on the same link (the
default before), and the logistic link where it finishes (every pair, every round).

Run:  python benchmarks/one_list_default.py [--sizes 10000 1000000] [--seeds 5 2] [--rounds 100] [--threads 1]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import lightgbm as lgb
import numpy as np

import boostrank as br

from _common import write_json

HERE = Path(__file__).resolve().parent


def one_list(n, seed):
    """Features and the latent utility of ``n`` rows (labels come from a threshold on the utility)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 8))
    u = X[:, 0] + 0.8 * np.tanh(2 * X[:, 1]) * X[:, 2] + 0.5 * X[:, 3] ** 2 + rng.normal(scale=1.2, size=n)
    return X, u


def methods_for(n, args):
    params = {"objective": "binary", "num_leaves": 31, "learning_rate": 0.05, "num_threads": args.threads,
              "verbose": -1, "seed": 0}
    out = {"binary": lambda X, y: lgb.train(params, lgb.Dataset(X, y), args.rounds)}
    for name, kw in (("LambdaRanker() defaults", {}), ("LambdaRanker(pair_weight='swap')", {"pair_weight": "swap"}),
                     ("LambdaRanker(link='logistic')", {"link": "logistic"})):
        if "link" in kw and n > args.logistic_max:
            continue
        out[name] = (lambda X, y, kw=kw: br.LambdaRanker(objective="auc", n_estimators=args.rounds,
                                                          n_jobs=args.threads, random_state=0, **kw)
                     .fit(X, y, group=[len(y)]))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 1_000_000])
    ap.add_argument("--seeds", type=int, nargs="+", default=[5, 2], help="training draws per size")
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--test-rows", type=int, default=200_000)
    ap.add_argument("--logistic-max", type=int, default=20_000, help="largest n timed with link='logistic'")
    ap.add_argument("--json", default=str(HERE / "results" / "one_list_default.json"))
    args = ap.parse_args(argv)
    seeds = (args.seeds * len(args.sizes))[:len(args.sizes)] if len(args.seeds) < len(args.sizes) else args.seeds
    X_test, u_test = one_list(args.test_rows, 999)
    rows = []
    print(f"{'n':>9} {'method':<34} {'test AUC':>9} {'Δ binary ± se':>17} {'s/round':>9} {'÷ binary':>9}")
    for n, n_seeds in zip(args.sizes, seeds):
        aucs, times = {}, {}
        for seed in range(n_seeds):
            X, u = one_list(n, seed)
            cut = np.quantile(np.r_[u, u_test], 0.94)
            y, y_test = (u > cut).astype(np.int64), (u_test > cut).astype(np.int64)
            for name, fit in methods_for(n, args).items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    if seed == 0:
                        fit(X[: min(n, 5000)], y[: min(n, 5000)])  # compiles and warms the caches
                    t = time.perf_counter()
                    model = fit(X, y)
                    times.setdefault(name, []).append((time.perf_counter() - t) / args.rounds)
                aucs.setdefault(name, []).append(br.auc(y_test, model.predict(X_test)))
        base = np.asarray(aucs["binary"])
        base_time = float(np.median(times["binary"]))
        for name in aucs:
            a = np.asarray(aucs[name])
            d = a - base
            se = float(d.std(ddof=1) / np.sqrt(d.size)) if d.size > 1 else float("nan")
            per_round = float(np.median(times[name]))
            rows.append({"n": n, "method": name, "auc": float(a.mean()), "diff": float(d.mean()), "se": se,
                         "seeds": int(a.size), "seconds_per_round": per_round, "ratio": per_round / base_time})
            print(f"{n:>9} {name:<34} {a.mean():9.4f} {d.mean():+9.4f} ± {se:.4f} {per_round:9.4f} "
                  f"{per_round / base_time:8.2f}x", flush=True)
    write_json(args.json, {"rounds": args.rounds, "threads": args.threads, "test_rows": args.test_rows, "rows": rows})


if __name__ == "__main__":
    main()
