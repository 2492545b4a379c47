"""λ-AUC / λ-MAUC against the engines' own ranking objectives on MQ2008.

Protocols (all methods in the same run, same data, same tree settings):

* ``vali→test``: train on ``mq2008/vali.txt``, test on ``mq2008/test.txt``; wall time of
  training is the best of ``--repeat`` runs.
* ``cv``: 5-fold cross-validation over the union of the two files' queries (folds by
  query, fixed seed); mean ± standard deviation over folds and a paired t-test of
  λ-AUC against LightGBM ``lambdarank`` on test AUC.

Settings: ``--rounds`` 300, 31 leaves (XGBoost: ``grow_policy=lossguide``,
``max_leaves=31``), learning rate 0.05, 2 threads.  Two timing floors show what a
Python objective cannot avoid: ``fixed gradient`` returns precomputed λ-AUC
gradients every round (callback + full trees), ``zero gradient`` returns zeros (the
trees have no split, so the round is nearly free: this is where an "empty objective
costs 0.55× of lambdarank" comes from).

The one-list table: a LightGBM round on one list of ``--one-list`` rows (10⁶), ``binary`` against λ-AUC's
defaults, 30 rounds, default threads.

The MSLR-shaped table (``--mslr-shaped 31000``): seconds per LightGBM round on 31 000 generated lists of 120
documents with 136 features (MSLR-WEB30K's shape), lambdarank against λ-AUC with and without its anchor, and
LightGBM alone on λ-AUC's gradients replayed from a recording (the floor any objective with those gradients pays).

The gradient-cost table (with ``--times-only``: MQ2008 vali, and the MSLR shape when asked): what the gradients
alone cost a LightGBM round, with the trees made trivial (the first feature only, 2 leaves) so that the round is the
gradient call and LightGBM's fixed work.  LightGBM's own λs are ``lambdarank`` − ``regression`` (a built-in objective
whose gradient is one subtraction per row); boostrank's are λ-AUC (λ-MAUC) − λ-AUC's gradients replayed through the
same callback, so the callback's own cost is not counted against either.

Run:  python benchmarks/objectives.py [--data ../shared/data/mq2008] [--rounds 300] [--quick] [--one-list 1000000]
                                      [--times-only] [--mslr-shaped 31000]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import lightgbm as lgb
import numpy as np
import xgboost as xgb
from scipy import stats

import boostrank as br

from _common import write_json

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parent.parent / "shared" / "data" / "mq2008"
METRICS = {
    "ndcg@10": lambda y, s, q: br.ndcg(y, s, q, k=10),
    "map": lambda y, s, q: br.mean_average_precision(y, s, q),
    # trec_eval / LETOR-tool convention: a query without relevant documents scores 0
    # (a third of MQ2008's queries); this is the MAP the papers report.
    "map:trec": lambda y, s, q: br.mean_average_precision(y, s, q, convention="trec"),
    "auc": lambda y, s, q: br.auc(y, s, q),
    "mauc": lambda y, s, q: br.mauc(y, s, q),
}
METHODS = [
    ("lightgbm", "lambdarank"), ("lightgbm", "rank_xendcg"), ("lightgbm", "auc"), ("lightgbm", "mauc"),
    ("xgboost", "rank:ndcg"), ("xgboost", "rank:pairwise"), ("xgboost", "auc"), ("xgboost", "mauc"),
]
WELLECK_TABLE1 = {"mauc": 0.734, "map": 0.474}  # LambdaMART-MAUC on MQ2008, Welleck Table 1


def lgb_params(objective):
    p = {"num_leaves": 31, "learning_rate": 0.05, "num_threads": 2, "verbose": -1, "seed": 0,
         "deterministic": True, "force_row_wise": True, "objective": objective}
    if objective in ("auc", "mauc"):
        p["objective"] = br.lightgbm_objective(objective)
    return p


def xgb_params(objective):
    p = {"tree_method": "hist", "grow_policy": "lossguide", "max_leaves": 31, "max_depth": 0, "eta": 0.05,
         "nthread": 2, "seed": 0}
    if objective in ("auc", "mauc"):
        p.update(min_child_weight=1e-3, disable_default_eval_metric=1)
    else:
        p["objective"] = objective
    return p


def train_predict(engine, objective, train, test, rounds):
    """Train on ``train``; return (seconds spent in the engine's train call, test scores)."""
    if engine == "lightgbm":
        ds = lgb.Dataset(train.X, train.y, group=np.diff(train.group_offsets), free_raw_data=False).construct()
        t = time.perf_counter()
        booster = lgb.train(lgb_params(objective), ds, num_boost_round=rounds)
        secs = time.perf_counter() - t
        return secs, booster.predict(test.X)
    dtrain = xgb.DMatrix(train.X, train.y, group=np.diff(train.group_offsets), nthread=2)
    obj = br.xgboost_objective(objective) if objective in ("auc", "mauc") else None
    t = time.perf_counter()
    booster = xgb.train(xgb_params(objective), dtrain, num_boost_round=rounds, obj=obj)
    secs = time.perf_counter() - t
    return secs, booster.predict(xgb.DMatrix(test.X))


def floors(train, rounds, repeat):
    """Seconds for LightGBM with a Python objective that does (almost) no work."""
    offsets = train.group_offsets
    grad, hess = (a.astype(np.float32) for a in br.lambda_gradients(np.zeros(len(train)), train.y, offsets,
                                                                    metric="auc"))

    def fixed(preds, data):
        return grad, hess

    def zero(preds, data):
        return np.zeros_like(grad), np.ones_like(hess)

    out = {}
    for name, fn in (("fixed gradient", fixed), ("zero gradient", zero)):
        out[name] = min(train_predict("lightgbm", fn, train, train, rounds)[0] for _ in range(repeat))
    return out


def round_times(train, rounds, repeat, threads):
    """Best-of-``repeat`` training seconds of lambdarank, λ-AUC and two floors.

    The runs interleave (lambdarank, λ-AUC, floors, lambdarank, ...) so that the
    machine's drift between runs hits all of them alike; LightGBM and the λ kernels use
    ``threads`` threads (the λ kernels their default, all of Numba's).  Floors:

    * ``fixed gradient``: the λ-AUC gradients at zero scores, returned every round.
      Its trees are not λ-AUC's trees, and LightGBM's own work depends on the trees
      (histograms of the smaller child, leaf sizes), so it is not the floor of λ-AUC.
    * ``replayed gradient``: the gradients λ-AUC produced in each round of a recorded
      run, handed back in order.  The same trees as λ-AUC at no gradient cost: what a
      Python objective cannot go below.
    """
    # float32, the engines' gradient type (what the λ objectives return to them)
    grad, hess = (a.astype(np.float32) for a in
                  br.lambda_gradients(np.zeros(len(train)), train.y, train.group_offsets, metric="auc"))
    ds = lgb.Dataset(train.X, train.y, group=np.diff(train.group_offsets), free_raw_data=False).construct()
    recorded = []
    objective = br.lightgbm_objective("auc")

    def record(preds, data):
        g, h = objective(preds, data)
        recorded.append((g.copy(), h.copy()))
        return g, h

    lgb.train({**lgb_params("lambdarank"), "num_threads": threads, "objective": record}, ds, num_boost_round=rounds)

    def replay():
        rounds_left = iter(recorded)
        return lambda preds, data: next(rounds_left)

    methods = {"lambdarank": lambda: "lambdarank",
               "λ-AUC": lambda: br.lightgbm_objective("auc"),
               # the kernel before lambdarank_norm became the default: the norm's own cost, same run
               "λ-AUC norm=False": lambda: br.lightgbm_objective("auc", norm=False),
               "fixed gradient": lambda: (lambda preds, data: (grad, hess)),
               "replayed gradient (floor)": replay}
    best = {name: float("inf") for name in methods}
    for _ in range(repeat):
        for name, make in methods.items():
            params = {**lgb_params("lambdarank"), "num_threads": threads, "objective": make()}
            t = time.perf_counter()
            lgb.train(params, ds, num_boost_round=rounds)
            best[name] = min(best[name], time.perf_counter() - t)
    return best


def xgb_round_times(train, rounds, repeat, threads):
    """:func:`round_times` for XGBoost: ``rank:pairwise`` (its pairwise objective), λ-AUC, and the
    replayed-gradient floor (λ-AUC's recorded gradients handed back: the same trees at no gradient cost)."""
    dtrain = xgb.DMatrix(train.X, train.y, group=np.diff(train.group_offsets), nthread=threads)
    params = {**xgb_params("auc"), "nthread": threads}
    recorded = []
    objective = br.xgboost_objective("auc")

    def record(preds, data):
        g, h = objective(preds, data)
        recorded.append((np.array(g, copy=True), np.array(h, copy=True)))
        return g, h

    xgb.train(params, dtrain, num_boost_round=rounds, obj=record)

    def replay():
        rounds_left = iter(recorded)
        return lambda preds, data: next(rounds_left)

    methods = {"rank:pairwise": lambda: None, "λ-AUC": lambda: br.xgboost_objective("auc"),
               "replayed gradient (floor)": replay}
    best = {name: float("inf") for name in methods}
    for _ in range(repeat):
        for name, make in methods.items():
            obj = make()
            run_params = {**xgb_params("rank:pairwise"), "nthread": threads} if obj is None else params
            t = time.perf_counter()
            xgb.train(run_params, dtrain, num_boost_round=rounds, obj=obj)
            best[name] = min(best[name], time.perf_counter() - t)
    return best


def print_round_times(results, vali, rounds, repeat):
    """λ-AUC ÷ the engine's own ranking objective at engine threads 2 and 1 (Numba at its default)."""
    results["round_times"] = {}
    print(f"\nround time, {rounds} rounds, best of {2 * repeat + 1} interleaved runs (÷ the engine's own; "
          f"Numba at its default threads)")
    for engine, timer, native in (("lightgbm", round_times, "lambdarank"),
                                  ("xgboost", xgb_round_times, "rank:pairwise")):
        for threads in (2, 1):
            rt = timer(vali, rounds, 2 * repeat + 1, threads)
            base = rt[native]
            floor = rt["replayed gradient (floor)"] / base
            ratio = rt["λ-AUC"] / base
            results["round_times"][f"{engine} {threads} threads"] = {**rt, "within floor + 0.05": ratio <= floor + 0.05}
            print(f"  {engine} {threads} thread(s): " + ", ".join(f"{k} {v:.3f} s ({v / base:.2f}x)"
                                                               for k, v in rt.items())
                  + f";  λ-AUC {ratio:.2f}x vs floor {floor:.2f}x + 0.05: "
                  + ("within" if ratio <= floor + 0.05 else "OVER"), flush=True)


def one_list_round_times(n, rounds, repeat):
    """A LightGBM round on one list of ``n`` rows (20 features, 7 % positives), ``binary`` against the λ-AUC
    objective with its defaults (the probit series), both at LightGBM's and Numba's default threads: the best
    of ``repeat`` interleaved trainings of ``rounds`` rounds, each with its first-round setup."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 20))
    y = ((X[:, 0] + np.sin(X[:, 1] * 2) + rng.normal(size=n) * 1.5) > 2.8).astype(float)
    ds = lgb.Dataset(X, y, free_raw_data=False).construct()
    best = {"binary": float("inf"), "λ-AUC": float("inf")}
    for _ in range(repeat):
        for name in best:
            obj = "binary" if name == "binary" else br.lightgbm_objective("auc")
            t = time.perf_counter()
            lgb.train({"objective": obj, "verbose": -1}, ds, num_boost_round=rounds)
            best[name] = min(best[name], (time.perf_counter() - t) / rounds)
    return best


def print_one_list(results, n, rounds, repeat):
    """The one-list round table (#47: a λ-AUC round at most 1.5× ``binary``'s at 10⁶ rows)."""
    rt = one_list_round_times(n, rounds, repeat)
    results["one_list"] = {"rows": n, "rounds": rounds, "seconds_per_round": rt,
                           "ratio": rt["λ-AUC"] / rt["binary"]}
    print(f"\none list of {n} rows, LightGBM, {rounds} rounds, default threads, best of {repeat}: binary "
          f"{rt['binary'] * 1e3:.1f} ms/round, λ-AUC {rt['λ-AUC'] * 1e3:.1f} ms/round "
          f"({rt['λ-AUC'] / rt['binary']:.2f}x)", flush=True)


def mslr_shaped(n_queries: int, docs: int, seed: int = 0):
    """MSLR-WEB30K's shape: ``n_queries`` lists of ``docs`` documents, 136 features, five grades with MSLR's
    shares (.52 / .32 / .13 / .02 / .01), a non-linear utility; float32 features (what LightGBM bins)."""
    rng = np.random.default_rng(seed)
    n = n_queries * docs
    X = rng.normal(size=(n, 136)).astype(np.float32)
    u = X[:, 0] + 0.7 * X[:, 1] * (X[:, 2] > 0) + 0.4 * np.abs(X[:, 3]) + rng.normal(size=n).astype(np.float32)
    y = np.digitize(u, np.quantile(u, [0.52, 0.84, 0.97, 0.99])).astype(np.float32)
    return X, y, np.full(n_queries, docs)


def gradient_costs(X, y, sizes, rounds, repeat) -> dict:
    """Seconds per LightGBM round of the gradients alone (see the module docstring): LightGBM's ``lambdarank`` λs
    and boostrank's λ-AUC and λ-MAUC, on the first feature with 2 leaves, 2 threads, best of ``repeat``
    interleaved runs of ``rounds`` rounds."""
    ds = lgb.Dataset(np.ascontiguousarray(X[:, :1]), y, group=sizes, free_raw_data=False).construct()
    base = {"num_leaves": 2, "learning_rate": 0.05, "num_threads": 2, "verbose": -1, "seed": 0, "metric": "None",
            "force_row_wise": True}
    recorded, inner = [], br.lightgbm_objective("auc")

    def recording(preds, data):
        g, h = inner(preds, data)
        recorded.append((g.copy(), h.copy()))
        return g, h

    lgb.train({**base, "objective": recording}, ds, rounds)

    def replay():
        rounds_left = iter(recorded)
        return lambda preds, data: next(rounds_left)

    methods = {"lambdarank": lambda: "lambdarank", "regression": lambda: "regression",
               "λ-AUC": lambda: br.lightgbm_objective("auc"), "λ-MAUC": lambda: br.lightgbm_objective("mauc"),
               "λ-AUC replayed": replay}
    for make in methods.values():  # warm-up: the first round compiles and binds
        lgb.train({**base, "objective": make()}, ds, 1)
    best = {name: float("inf") for name in methods}
    for _ in range(repeat):
        for name, make in methods.items():
            objective = make()
            t = time.perf_counter()
            lgb.train({**base, "objective": objective}, ds, rounds)
            best[name] = min(best[name], (time.perf_counter() - t) / rounds)
    own = best["lambdarank"] - best["regression"]
    return {"seconds_per_round": best, "lightgbm_lambdas": own,
            "boostrank_lambdas": {m: best[m] - best["λ-AUC replayed"] for m in ("λ-AUC", "λ-MAUC")}}


def print_gradient_costs(results, key, label, X, y, sizes, rounds, repeat):
    """The gradient-cost table of one data set (issue 82: a λ kernel that costs what LightGBM's own λs cost)."""
    gc = gradient_costs(X, y, sizes, rounds, repeat)
    results.setdefault("gradient_cost", {})[key] = gc
    own = gc["lightgbm_lambdas"]
    print(f"\ngradients alone, {label} (first feature, 2 leaves, 2 threads, best of {repeat} x {rounds} rounds): "
          f"LightGBM's lambdarank λs {own * 1e3:.3f} ms/round; "
          + ", ".join(f"boostrank {m} {v * 1e3:.3f} ms ({v / own:.2f}x)" for m, v in gc["boostrank_lambdas"].items()),
          flush=True)


def print_mslr_shaped(results, n_queries, docs, rounds, repeat):
    """Seconds per LightGBM round on an MSLR-shaped set: lambdarank, λ-AUC's defaults (with the anchor) and
    λ-AUC without it; each the best of ``repeat`` runs of ``rounds`` rounds after one round of warm-up, 2 threads."""
    X, y, sizes = mslr_shaped(n_queries, docs)
    ds = lgb.Dataset(X, y, group=sizes, free_raw_data=False).construct()
    methods = {"lambdarank": "lambdarank", "λ-AUC": br.lightgbm_objective("auc"),
               "λ-AUC anchor=0": br.lightgbm_objective("auc", anchor=0.0), "λ-MAUC": br.lightgbm_objective("mauc")}
    base = {"num_leaves": 31, "learning_rate": 0.05, "num_threads": 2, "verbose": -1, "seed": 0,
            "metric": "None", "force_row_wise": True}
    times = {name: [] for name in methods}
    for name, obj in methods.items():  # warm-up: the first round compiles and binds
        lgb.train({**base, "objective": obj}, ds, 1)
    for _ in range(repeat):
        for name, obj in methods.items():
            t = time.perf_counter()
            lgb.train({**base, "objective": obj}, ds, rounds)
            times[name].append((time.perf_counter() - t) / rounds)
    # the floor: LightGBM's own work on λ-AUC's gradients, replayed from a recording (no objective cost); trees
    # grown on other gradients (lambdarank's, random ones) split differently and cost another time
    recorded, inner = [], methods["λ-AUC"]

    def recording(preds, data):
        g, h = inner(preds, data)
        recorded.append((g.copy(), h.copy()))
        return g, h

    lgb.train({**base, "objective": recording}, ds, rounds)
    times["λ-AUC replayed (floor)"] = []
    for _ in range(repeat):
        replay = iter(recorded)
        t = time.perf_counter()
        lgb.train({**base, "objective": lambda preds, data: next(replay)}, ds, rounds)
        times["λ-AUC replayed (floor)"].append((time.perf_counter() - t) / rounds)
    rt = {name: min(v) for name, v in times.items()}
    results["mslr_shaped"] = {"queries": n_queries, "docs": docs, "rounds": rounds, "seconds_per_round": rt,
                              "ratio": {name: rt[name] / rt["lambdarank"] for name in rt}}
    print(f"\nMSLR-shaped: {n_queries} lists of {docs} ({n_queries * docs} rows, 136 features), LightGBM, "
          f"2 threads, best of {repeat} x {rounds} rounds")
    for name, secs in rt.items():
        print(f"  {name:<16} {secs * 1e3:8.1f} ms/round  {secs / rt['lambdarank']:.3f}x lambdarank", flush=True)
    del ds
    print_gradient_costs(results, "mslr_shaped", f"MSLR-shaped, {n_queries} x {docs}", X, y, sizes, rounds,
                         2 * repeat - 1)


def evaluate(y, s, q):
    return {m: float(fn(y, s, q)) for m, fn in METRICS.items()}


def folds_of(data, k, seed=0):
    rng = np.random.default_rng(seed)
    queries = rng.permutation(data.n_queries)
    return [np.sort(queries[i::k]) for i in range(k)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3, help="timing repeats (best is reported)")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="50 rounds, 1 timing repeat, 2 folds")
    ap.add_argument("--times-only", action="store_true", help="only the round-time table (engine threads 2 and 1)")
    ap.add_argument("--one-list", type=int, default=1_000_000, help="rows of the one-list round table (0: skip)")
    ap.add_argument("--mslr-shaped", type=int, default=0, metavar="QUERIES",
                    help="also the round-time table on QUERIES lists of 120 documents (31000: MSLR-WEB30K's size)")
    ap.add_argument("--json", default=str(HERE / "results" / "objectives.json"))
    args = ap.parse_args(argv)
    if args.quick:
        args.rounds, args.repeat, args.folds = 50, 1, 2

    vali = br.load_letor(Path(args.data) / "vali.txt")
    test = br.load_letor(Path(args.data) / "test.txt", n_features=vali.n_features)
    print(f"MQ2008 vali {len(vali)} rows/{vali.n_queries} queries -> test {len(test)} rows/{test.n_queries} "
          f"queries; {args.rounds} rounds, 31 leaves, lr 0.05, 2 threads")
    br.lambda_gradients(np.zeros(len(vali)), vali.y, vali.group_offsets, metric="auc")  # numba cache warm

    results = {"settings": vars(args), "holdout": {}, "cv": {}, "floors": {}}
    if args.times_only:
        print_round_times(results, vali, args.rounds, args.repeat)
        print_gradient_costs(results, "mq2008", "MQ2008 vali", vali.X, vali.y, np.diff(vali.group_offsets),
                             args.rounds, 2 * args.repeat + 1)
        if args.one_list:
            print_one_list(results, args.one_list, 30, 2 * args.repeat)
        if args.mslr_shaped:
            print_mslr_shaped(results, args.mslr_shaped, 120, 10, args.repeat)
        write_json(args.json, results)
        return
    for engine, objective in METHODS:
        times, scores = [], None
        for _ in range(args.repeat):
            secs, scores = train_predict(engine, objective, vali, test, args.rounds)
            times.append(secs)
        results["holdout"][f"{engine} {objective}"] = {"seconds": min(times), **evaluate(test.y, scores, test.qid)}
    results["floors"] = floors(vali, args.rounds, args.repeat)
    print_round_times(results, vali, args.rounds, args.repeat)
    if args.one_list:
        print_one_list(results, args.one_list, 30, 2 * args.repeat)

    native = results["holdout"]["lightgbm lambdarank"]["seconds"]
    print(f"\nvali -> test{'':<24}{'seconds':>8} {'÷lambdarank':>11} " + " ".join(f"{m:>8}" for m in METRICS))
    for name, row in results["holdout"].items():
        print(f"{name:<36}{row['seconds']:>8.3f} {row['seconds'] / native:>10.2f}x "
              + " ".join(f"{row[m]:>8.4f}" for m in METRICS))
    for name, secs in results["floors"].items():
        print(f"{'lightgbm python objective, ' + name:<36}{secs:>8.3f} {secs / native:>10.2f}x")

    if np.intersect1d(vali.qid, test.qid).size:
        raise SystemExit("vali and test share query ids; cannot form the union of queries")
    union = br.data.LetorData(X=np.vstack([vali.X, test.X]), y=np.r_[vali.y, test.y], qid=np.r_[vali.qid, test.qid])
    folds = folds_of(union, args.folds)
    per_fold = {f"{e} {o}": {m: [] for m in METRICS} for e, o in METHODS}
    for i, held in enumerate(folds):
        rest = np.setdiff1d(np.arange(union.n_queries), held)
        tr, te = union.take_queries(rest), union.take_queries(held)
        for engine, objective in METHODS:
            _, s = train_predict(engine, objective, tr, te, args.rounds)
            for m, v in evaluate(te.y, s, te.qid).items():
                per_fold[f"{engine} {objective}"][m].append(v)
        print(f"fold {i + 1}/{args.folds} done", flush=True)
    print(f"\n{args.folds}-fold CV over {union.n_queries} queries (mean ± sd over folds)")
    print(f"{'method':<28}" + " ".join(f"{m:>17}" for m in METRICS))
    for name, vals in per_fold.items():
        results["cv"][name] = {m: {"mean": float(np.mean(v)), "sd": float(np.std(v, ddof=1)), "folds": v}
                               for m, v in vals.items()}
        print(f"{name:<28}" + " ".join(f"{np.mean(v):>9.4f} ± {np.std(v, ddof=1):.4f}" for v in vals.values()))
    tests = {}
    for engine in ("lightgbm", "xgboost"):
        a, b = per_fold[f"{engine} auc"]["auc"], per_fold["lightgbm lambdarank"]["auc"]
        tests[f"{engine} λ-AUC vs lightgbm lambdarank, AUC"] = (np.mean(a) - np.mean(b), stats.ttest_rel(a, b).pvalue)
        best_other = max((n for n in per_fold if not n.endswith("mauc")),
                         key=lambda n: np.mean(per_fold[n]["mauc"]))
        a, b = per_fold[f"{engine} mauc"]["mauc"], per_fold[best_other]["mauc"]
        tests[f"{engine} λ-MAUC vs best other ({best_other}), MAUC"] = (np.mean(a) - np.mean(b),
                                                                        stats.ttest_rel(a, b).pvalue)
    print("\npaired t-tests over folds (difference of means, p)")
    for name, (d, p) in tests.items():
        print(f"  {name:<62} {d:+.4f}  p={p:.3f}")
    results["paired_tests"] = {k: {"diff": float(d), "p": float(p)} for k, (d, p) in tests.items()}
    ours = results["holdout"]["lightgbm mauc"]
    print(f"\nWelleck Table 1, LambdaMART-MAUC on MQ2008: MAUC {WELLECK_TABLE1['mauc']:.3f}, MAP "
          f"{WELLECK_TABLE1['map']:.3f};  ours (vali->test, LightGBM λ-MAUC): MAUC {ours['mauc']:.3f}, "
          f"MAP(trec) {ours['map:trec']:.3f};  CV: MAUC {results['cv']['lightgbm mauc']['mauc']['mean']:.3f}, "
          f"MAP(trec) {results['cv']['lightgbm mauc']['map:trec']['mean']:.3f}")
    results["welleck_table1"] = WELLECK_TABLE1
    write_json(args.json, results)


if __name__ == "__main__":
    main()
