"""λ-AUC on one long list: the erfc-series objective against exact pair sums and log-loss.

Part 1 — time per objective call on one list of n rows (1–10% positives; default 5%):
``fast`` (probit link, erfc series, the default eps 1e-4), ``exact`` λ-AUC with the logistic link
(pair sums, measured up to ``--exact-max`` rows and extrapolated ∝ n² beyond), the
probit pair sums, and the binary log-loss gradient (what LightGBM's ``binary``
objective computes per round, here in NumPy).

Part 1b — the default objective (probit link) on one list of 10⁶ rows over score shapes
(normal, ties, 31 values, lognormal, Cauchy, a span of 1e-11) and 1/10/50% positives.

Part 2 — 100 boosting rounds on one list (``--train-n`` rows, 20 features, 5%
positives, nonlinear signal, label noise of two kinds, ``--seeds`` data sets each):
LightGBM with ``fast`` λ-AUC vs LightGBM ``binary``, plus (first data set) XGBoost
``rank:pairwise``, XGBoost with ``fast`` λ-AUC and a callable returning fixed
gradients, and λ-AUC's own gradients recorded and replayed (the same trees at no gradient
cost: the floor of λ-AUC's rounds); wall time, time per round, test AUC and the paired AUC
differences.

Part 3 — the same list dealt at random into 2, 8 and 32 partitions (what the
workers of a Dask fit see when each partition is trained as its own list):
agreement of the per-partition λs with the full-list λs, and test AUC after
training on the partitions.

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

from _common import pyplot, save_figure, write_json
from boostrank.objectives.objective import LambdaObjective

HERE = Path(__file__).resolve().parent


def best(fn, repeat):
    out = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out = min(out, time.perf_counter() - t)
    return out


def logloss(s, y):
    """The binary log-loss gradient and hessian: what LightGBM's ``binary`` computes per round."""
    p = 1.0 / (1.0 + np.exp(-s))
    return p - y, p * (1.0 - p)


NOISE = {
    "flip3": "3% of all labels flipped",
    "pocket": "30% of labels flipped where x5 > 1 (a pocket of wrong labels)",
}


def data(n, d=20, rate=0.05, seed=0, noise="flip3"):
    """Nonlinear signal, ``rate`` positives, then label noise of kind ``noise`` (see NOISE)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    f = X[:, 0] + 0.6 * X[:, 1] * X[:, 2] - 0.5 * np.abs(X[:, 3]) + 0.3 * np.sin(2 * X[:, 4])
    y = (f + 0.7 * rng.normal(size=n) > np.quantile(f, 1 - rate)).astype(np.float64)
    if noise == "flip3":
        flip = rng.random(n) < 0.03
    elif noise == "pocket":
        flip = (X[:, 5] > 1.0) & (rng.random(n) < 0.3)
    else:
        raise ValueError(f"noise must be one of {sorted(NOISE)}")
    y[flip] = 1 - y[flip]
    return X, y


def part1(sizes, exact_max, rate):
    rows = []
    for n in sizes:
        rng = np.random.default_rng(n)
        s = rng.normal(size=n)
        y = (rng.random(n) < rate).astype(np.float64)
        fast = LambdaObjective("auc", link="probit", method="fast")
        prep = fast.bind(y, np.array([0, n]))
        prep.gradients(s)
        t_fast = best(lambda: prep.gradients(s), 3)

        t_ll = best(lambda: logloss(s, y), 3)
        row = {"n": n, "fast_s": t_fast, "logloss_s": t_ll}
        for name, kw in (("exact_logistic", {}), ("exact_probit", {"link": "probit", "method": "exact"})):
            obj = LambdaObjective("auc", **kw)
            if n <= exact_max:
                p2 = obj.bind(y, np.array([0, n]))
                obj.bind(y[:100], np.array([0, 100])).gradients(s[:100])
                row[name + "_s"] = best(lambda: p2.gradients(s), 1)
                row[name + "_measured"] = True
            else:
                base = max(m for m in sizes if m <= exact_max)
                ref = next(r for r in rows if r["n"] == base)
                row[name + "_s"] = ref[name + "_s"] * (n / base) ** 2
                row[name + "_measured"] = False
        row["speedup_vs_exact"] = row["exact_logistic_s"] / t_fast
        row["speedup_vs_exact_probit"] = row["exact_probit_s"] / t_fast
        rows.append(row)
        print(f"{n:>9} fast {t_fast * 1e3:>9.2f} ms   exact(logistic) {row['exact_logistic_s']:>10.3f} s"
              f"{'' if row['exact_logistic_measured'] else '*'}   exact(probit) {row['exact_probit_s']:>10.3f} s"
              f"{'' if row['exact_probit_measured'] else '*'}   log-loss {t_ll * 1e3:>7.2f} ms   "
              f"fast ×{row['speedup_vs_exact']:,.0f} / ×{row['speedup_vs_exact_probit']:,.0f} faster than exact "
              "logistic / probit", flush=True)
    print("* extrapolated ∝ n² from the largest measured size")
    return rows


SHAPES = {
    "normal": lambda rng, n: rng.normal(size=n),
    "ties (0.01 steps)": lambda rng, n: np.round(rng.normal(size=n), 2),
    "31 values (one tree)": lambda rng, n: rng.integers(0, 31, size=n) * 0.1,
    "lognormal sigma=3": lambda rng, n: np.exp(3 * rng.normal(size=n)),
    "cauchy": lambda rng, n: rng.standard_cauchy(size=n),
    "span 1e-11": lambda rng, n: 1.0 + 1e-12 * rng.normal(size=n),
}


def part1_shapes(n, rates):
    """The default probit objective on one list of n rows over score shapes and class
    balances, against the log-loss gradient on the same scores; mean and worst."""
    rows = []
    for shape, make in SHAPES.items():
        for rate in rates:
            rng = np.random.default_rng(len(rows))
            s = make(rng, n)
            y = (rng.random(n) < rate).astype(np.float64)
            obj = LambdaObjective("auc", link="probit")
            prep = obj.bind(y, np.array([0, n]))
            prep.gradients(s)
            t = best(lambda: prep.gradients(s), 3)
            with np.errstate(over="ignore"):
                t_ll = best(lambda: logloss(s, y), 3)
            rows.append({"shape": shape, "rate": rate, "fast_s": t, "logloss_s": t_ll})
            print(f"  {shape:<22} {rate:>4.0%} positives  {t * 1e3:>7.2f} ms  (log-loss gradient {t_ll * 1e3:.2f} ms)",
                  flush=True)
    times = np.array([r["fast_s"] for r in rows])
    worst = rows[int(times.argmax())]
    print(f"  mean {times.mean() * 1e3:.2f} ms, worst {times.max() * 1e3:.2f} ms ({worst['shape']}, "
          f"{worst['rate']:.0%} positives)")
    return rows


def _lgb(params, ds, rounds, Xte, yte):
    t = time.perf_counter()
    booster = lgb.train(params, ds, num_boost_round=rounds)
    secs = time.perf_counter() - t
    return {"seconds": secs, "per_round": secs / rounds, "test_auc": float(br.auc(yte, booster.predict(Xte)))}


def _show(name, r):
    print(f"  {name:<34} {r['seconds']:>8.1f} s  {r['per_round'] * 1e3:>8.1f} ms/round  test AUC {r['test_auc']:.4f}",
          flush=True)


def part2(n, rounds, noises, seeds):
    """LightGBM fast λ-AUC vs binary on every (noise, seed); XGBoost and the callable floor once."""
    params = {"num_leaves": 31, "learning_rate": 0.1, "num_threads": 2, "verbose": -1, "seed": 0,
              "force_row_wise": True, "metric": "None"}
    fast = {**params, "objective": br.lightgbm_objective("auc", link="probit")}
    out = {"runs": []}
    for noise in noises:
        for seed in range(1, seeds + 1):
            X, y = data(n + n // 4, seed=seed, noise=noise)
            Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]
            ds = lgb.Dataset(Xtr, ytr, free_raw_data=False).construct()
            print(f" noise={noise} ({NOISE[noise]}), seed {seed}")
            run = {"noise": noise, "seed": seed,
                   "lightgbm λ-AUC fast": _lgb(fast, ds, rounds, Xte, yte),
                   "lightgbm binary": _lgb({**params, "objective": "binary"}, ds, rounds, Xte, yte)}
            if not out["runs"]:
                # the floor of any Python objective: the callback round trip with gradients
                # that cost nothing (log-loss gradients at the start, so trees still split),
                # in float32, LightGBM's type (a float64 return costs the round a cast)
                g0, h0 = (0.5 - ytr).astype(np.float32), np.full(n, 0.25, dtype=np.float32)
                run["lightgbm fixed-gradient callable"] = _lgb(
                    {**params, "objective": lambda preds, train: (g0, h0)}, ds, rounds, Xte, yte)
                # the floor of λ-AUC's own rounds: its gradients, recorded, handed back in
                # order (the same trees at no gradient cost; float32, what LightGBM keeps)
                recorded, objective = [], br.lightgbm_objective("auc", link="probit")

                def record(preds, train):
                    g, h = objective(preds, train)
                    recorded.append((g.astype(np.float32), h.astype(np.float32)))
                    return g, h

                lgb.train({**params, "objective": record}, ds, num_boost_round=rounds)
                replay = iter(recorded)
                run["lightgbm replayed λ-AUC gradients"] = _lgb(
                    {**params, "objective": lambda preds, train: next(replay)}, ds, rounds, Xte, yte)
                del recorded, replay
                dtr = xgb.DMatrix(Xtr, ytr, group=[n], nthread=2)
                xgb_params = {"tree_method": "hist", "grow_policy": "lossguide", "max_leaves": 31, "max_depth": 0,
                              "eta": 0.1, "nthread": 2}
                for name, extra in (("xgboost rank:pairwise", {"params": {"objective": "rank:pairwise"}}),
                                    ("xgboost λ-AUC fast", {"params": {"min_child_weight": 1e-3},
                                     "obj": br.xgboost_objective("auc", link="probit")})):
                    t = time.perf_counter()
                    bst = xgb.train({**xgb_params, **extra["params"]}, dtr, rounds, obj=extra.get("obj"))
                    secs = time.perf_counter() - t
                    run[name] = {"seconds": secs, "per_round": secs / rounds,
                                 "test_auc": float(br.auc(yte, bst.predict(xgb.DMatrix(Xte), output_margin=True)))}
            for name, r in run.items():
                if isinstance(r, dict):
                    _show(name, r)
            out["runs"].append(run)
    runs = out["runs"]
    per_round = np.mean([r["lightgbm λ-AUC fast"]["per_round"] for r in runs])
    binary = np.mean([r["lightgbm binary"]["per_round"] for r in runs])
    floor = runs[0]["lightgbm fixed-gradient callable"]["per_round"]
    replayed = runs[0]["lightgbm replayed λ-AUC gradients"]["per_round"]
    first = runs[0]["lightgbm λ-AUC fast"]["per_round"]
    out["round_ratio_vs_binary"] = per_round / binary
    out["callable_floor_ratio_vs_binary"] = floor / binary
    out["replay_floor_ratio_vs_binary"] = replayed / binary
    out["objective_ms_per_round_first_run"] = (first - replayed) * 1e3
    print(f"  λ-AUC fast round / binary round: {per_round / binary:.2f}× "
          f"(fixed-gradient callable: {floor / binary:.2f}×; λ-AUC's own gradients replayed: "
          f"{replayed / binary:.2f}×, so the objective costs {(first - replayed) * 1e3:.1f} ms of a "
          f"{first * 1e3:.1f} ms round in the first run)")
    for noise in noises:
        d = np.array([r["lightgbm λ-AUC fast"]["test_auc"] - r["lightgbm binary"]["test_auc"]
                      for r in runs if r["noise"] == noise])
        out[f"auc_difference_{noise}"] = {"mean": float(d.mean()), "per_seed": d.tolist()}
        print(f"  test AUC, λ-AUC fast − binary, noise={noise}: mean {d.mean():+.4f} "
              f"(per seed {', '.join(f'{v:+.4f}' for v in d)})")
    return out


def per_partition_agreement(scores, labels, n_partitions: int, *, random_state=None, metric: str = "auc",
                            **objective_kw) -> dict:
    """How the per-partition λ of one list compares with the full-list λ.

    Rows are dealt at random into ``n_partitions`` lists (what a randomly
    partitioned Dask DataFrame gives each worker); the λs of each part are compared
    with the λs of the whole list.

    Returns
    -------
    dict
        ``cosine`` (1 = same direction), ``scale`` (least-squares factor from the
        full λ to the per-partition λ; Newton steps divide it out with the hessian)
        and ``relative_error`` after that scaling.
    """
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels)
    full, _ = br.lambda_gradients(s, y, metric=metric, **objective_kw)
    rng = np.random.default_rng(random_state)
    perm = rng.permutation(s.size)
    parts = np.array_split(perm, n_partitions)
    order = np.concatenate(parts)
    offsets = np.r_[0, np.cumsum([len(p) for p in parts])]
    local_sorted, _ = br.lambda_gradients(s[order], y[order], offsets, metric=metric, **objective_kw)
    local = np.empty_like(local_sorted)
    local[order] = local_sorted
    cos = float(full @ local / (np.linalg.norm(full) * np.linalg.norm(local) or 1.0))
    scale = float(full @ local / (full @ full or 1.0))
    rel = float(np.linalg.norm(local - scale * full) / (np.linalg.norm(local) or 1.0))
    return {"cosine": cos, "scale": scale, "relative_error": rel, "n_partitions": n_partitions}



def part3(n, rounds, partitions, first_run):
    """What Dask workers compute on one list dealt into partitions at random.

    Each worker's λ only sees the pairs inside its partition.  Measured two ways on
    the first data set of part 2: the agreement of per-partition λs with the full-list
    λs (at the scores of a 20-round log-loss model, a mid-training state), and test AUC
    after training on the partitions as separate lists, which is what the workers'
    gradients add up to.
    """
    X, y = data(n + n // 4, seed=first_run["seed"], noise=first_run["noise"])
    Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]
    params = {"num_leaves": 31, "learning_rate": 0.1, "num_threads": 2, "verbose": -1, "seed": 0,
              "force_row_wise": True, "metric": "None"}
    mid = lgb.train({**params, "objective": "binary"}, lgb.Dataset(Xtr, ytr), 20).predict(Xtr, raw_score=True)
    rows = []
    for k in partitions:
        agree = per_partition_agreement(mid, ytr, k, random_state=0, link="probit", method="fast")
        part = np.random.default_rng(0).integers(0, k, size=n)
        order = np.argsort(part, kind="stable")
        ds = lgb.Dataset(Xtr[order], ytr[order], group=np.bincount(part, minlength=k)).construct()
        r = _lgb({**params, "objective": br.lightgbm_objective("auc", link="probit")},
                 ds, rounds, Xte, yte)
        rows.append({**agree, **r})
        print(f"  {k:>3} partitions: λ cosine {agree['cosine']:.6f}  scale {agree['scale']:.4f}  "
              f"rel. error {agree['relative_error']:.4f}  test AUC {r['test_auc']:.4f} "
              f"(one list {first_run['lightgbm λ-AUC fast']['test_auc']:.4f})", flush=True)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000, 10_000_000])
    ap.add_argument("--exact-max", type=int, default=100_000)
    ap.add_argument("--rate", type=float, default=0.05)
    ap.add_argument("--train-n", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--noise", nargs="+", default=sorted(NOISE), choices=sorted(NOISE))
    ap.add_argument("--seeds", type=int, default=3, help="data sets per noise kind in part 2")
    ap.add_argument("--partitions", type=int, nargs="+", default=[2, 8, 32], help="part 3 (per-worker λ)")
    ap.add_argument("--quick", action="store_true", help="sizes up to 10^5, training on 10^5 rows")
    ap.add_argument("--json", default=str(HERE / "results" / "long_lists.json"))
    ap.add_argument("--png", default=str(HERE / "results" / "long_lists_time.png"))
    args = ap.parse_args(argv)
    if args.quick:
        args.sizes = [s for s in args.sizes if s <= 100_000]
        args.exact_max, args.train_n, args.seeds = 10_000, 100_000, 1
    print(f"Part 1: time per objective call, one list, {args.rate:.0%} positives")
    res = {"settings": vars(args), "calls": part1(args.sizes, args.exact_max, args.rate)}
    plot(res["calls"], args.png)
    print(f"wrote {args.png}")
    n_shapes = min(args.sizes[-1], 1_000_000)
    print(f"Part 1b: the default objective on {n_shapes:,} rows by score shape and class balance")
    res["shapes"] = part1_shapes(n_shapes, [0.01, 0.1, 0.5])
    print(f"Part 2: {args.rounds} rounds on one list of {args.train_n:,} rows")
    res["training"] = part2(args.train_n, args.rounds, args.noise, args.seeds)
    print(f"Part 3: one list of {args.train_n:,} rows dealt into partitions (what Dask workers see)")
    res["partitions"] = part3(args.train_n, args.rounds, args.partitions, res["training"]["runs"][0])
    write_json(args.json, res)


def plot(rows, path):
    """Time per objective call against n, log-log; extrapolated points dashed."""
    plt = pyplot()

    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    n = [r["n"] for r in rows]
    ax.loglog(n, [r["fast_s"] for r in rows], "-o", label="fast (probit, erfc series, eps 1e-4)")
    for key, label, style in (("exact_logistic", "exact λ-AUC, logistic", "s"),
                              ("exact_probit", "exact λ-AUC, probit", "^")):
        measured = [r for r in rows if r[key + "_measured"]]
        line, = ax.loglog([r["n"] for r in measured], [r[key + "_s"] for r in measured], "-" + style, label=label)
        tail = measured[-1:] + [r for r in rows if not r[key + "_measured"]]
        if len(tail) > 1:
            ax.loglog([r["n"] for r in tail], [r[key + "_s"] for r in tail], "--" + style, color=line.get_color(),
                      mfc="none")
    ax.loglog(n, [r["logloss_s"] for r in rows], "k:o", label="log-loss gradient (NumPy)")
    ax.set(xlabel="rows in the list", ylabel="seconds per call",
           title="λ-AUC objective on one list (dashed: extrapolated ∝ n²)")
    ax.legend(fontsize=8)
    save_figure(fig, path)


if __name__ == "__main__":
    main()
