"""One long list with the defaults a new user gets: ``LambdaRanker(objective="auc")`` against LightGBM ``binary``.

The list is ``make_calibrated("one-list")``-like (8 dense features, a non-linear signal, 6 % positives) at each
``--sizes`` n, split 80/20 by rows; both models train ``--rounds`` rounds at LightGBM's settings of
``LambdaRanker`` (31 leaves, learning rate 0.05) on ``--threads`` threads.  The table gives test AUC, seconds per
round (median of ``--repeat`` fits after one warm-up fit) and the ratio to ``binary``, measured in the same run;
``link="logistic"`` is timed too where it finishes (what the default was before ``link="auto"``).

Run:  python benchmarks/one_list_default.py [--sizes 10000 1000000] [--rounds 100] [--threads 1]
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


def one_list(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 8))
    u = X[:, 0] + 0.8 * np.tanh(2 * X[:, 1]) * X[:, 2] + 0.5 * X[:, 3] ** 2 + rng.normal(scale=1.2, size=n)
    return X, (u > np.quantile(u, 0.94)).astype(np.int64)


def timed(fit, repeat):
    fit()  # compiles and warms the caches
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        model = fit()
        times.append(time.perf_counter() - t)
    return model, float(np.median(times))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 1_000_000])
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--logistic-max", type=int, default=20_000, help="largest n timed with link='logistic'")
    ap.add_argument("--json", default=str(HERE / "results" / "one_list_default.json"))
    args = ap.parse_args(argv)
    rows = []
    print(f"{'n':>9} {'method':<28} {'test AUC':>9} {'s/round':>9} {'÷ binary':>9}")
    for n in args.sizes:
        X, y = one_list(n)
        cut = int(0.8 * n)
        tr, te = slice(0, cut), slice(cut, n)
        params = {"objective": "binary", "num_leaves": 31, "learning_rate": 0.05, "num_threads": args.threads,
                  "verbose": -1, "seed": 0}
        methods = {"binary": lambda: lgb.train(params, lgb.Dataset(X[tr], y[tr]), args.rounds)}
        for name, kw in (("LambdaRanker() defaults", {}), ("LambdaRanker(link='logistic')", {"link": "logistic"})):
            if kw and n > args.logistic_max:
                continue
            methods[name] = (lambda kw=kw: br.LambdaRanker(objective="auc", n_estimators=args.rounds,
                                                           n_jobs=args.threads, random_state=0, **kw)
                             .fit(X[tr], y[tr], group=[cut]))
        base = None
        for name, fit in methods.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model, seconds = timed(fit, args.repeat if n <= 100_000 else 1)
            auc = br.auc(y[te], model.predict(X[te]))
            per_round = seconds / args.rounds
            base = per_round if name == "binary" else base
            rows.append({"n": n, "method": name, "auc": auc, "seconds_per_round": per_round,
                         "ratio": per_round / base})
            print(f"{n:>9} {name:<28} {auc:9.4f} {per_round:9.4f} {per_round / base:8.2f}x", flush=True)
    write_json(args.json, {"rounds": args.rounds, "threads": args.threads, "rows": rows})


if __name__ == "__main__":
    main()
