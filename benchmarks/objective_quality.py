"""Does each λ objective win on the metric it optimises?  k-fold CV over queries, one protocol for all.

Methods (defaults a new user gets, the same trees for all: 31 leaves, at least 20 rows a leaf,
learning rate 0.05): LightGBM ``binary`` (labels > 0), ``regression``, ``lambdarank``,
``rank_xendcg``; XGBoost ``rank:pairwise`` and ``rank:ndcg`` (``grow_policy=lossguide``,
``max_leaves=31``); boostrank's λ-AUC, λ-MAUC and λ-NDCG through ``br.lightgbm_objective``.

Protocol (the same for every method):

* Outer split: ``--folds`` folds over queries (one list: over rows), ``--repeats`` times with
  another shuffle; every method sees the same folds.
* Inner split: 20 % of the outer training queries (one list: rows) are the validation set.
  Each method boosts up to ``--max-rounds`` rounds and records validation AUC, MAUC and
  NDCG@10 after every round; it stops when none of the three improved for 50 rounds.
* Each reported metric is read at the method's best validation round *for that metric*:
  every method is early-stopped on the metric in the column, so λ-AUC's AUC is stopped on
  AUC and lambdarank's AUC on AUC as well (the most favourable reading for every
  competitor; a method's "own" target is one of the three).
* A query's test value is averaged over the repeats; tables give the mean over queries ±
  its standard error, and the paired t-test (and Wilcoxon) over queries of λ-AUC against
  the best engine objective on AUC, λ-MAUC against the best on MAUC.  With one list the
  units are the (repeat, fold) test lists.

Engines run on one thread and two (repeat, fold) jobs run side by side (2 cores); the
results do not depend on threads (``deterministic=True``).  Quality only: the time of a
round is ``benchmarks/objectives.py``'s business.

Run:  python benchmarks/objective_quality.py [--quick] [--sets sample,mq2008,...] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import lightgbm as lgb
import numpy as np
import xgboost as xgb
from joblib import Parallel, delayed
from scipy import stats

import boostrank as br
from boostrank.datasets import SAMPLE_ARGS
from boostrank.metrics import GroupOffsets

from _common import DATA, pyplot, save_figure, write_json

HERE = Path(__file__).resolve().parent
METRICS = ("auc", "mauc", "ndcg@10")
PATIENCE = 50
ENGINE_OBJECTIVES = ("binary", "regression", "lambdarank", "rank_xendcg", "rank:pairwise", "rank:ndcg")
#: (name, engine, objective) — names as the tables print them
METHODS = [
    ("binary", "lightgbm", "binary"),
    ("regression", "lightgbm", "regression"),
    ("lambdarank", "lightgbm", "lambdarank"),
    ("rank_xendcg", "lightgbm", "rank_xendcg"),
    ("rank:pairwise", "xgboost", "rank:pairwise"),
    ("rank:ndcg", "xgboost", "rank:ndcg"),
    ("λ-AUC", "lightgbm", "auc"),
    ("λ-MAUC", "lightgbm", "mauc"),
    ("λ-NDCG", "lightgbm", "ndcg"),
]
#: the λ objectives without the default lambdarank_norm: what the default buys, in the same run
VARIANTS = [
    ("λ-AUC norm=False", "lightgbm", ("auc", {"norm": False})),
    ("λ-MAUC norm=False", "lightgbm", ("mauc", {"norm": False})),
]
#: what a new user gets from the estimators, fitted on all outer training queries (they split off
#: their own validation queries, or none); the figures read no inner split
DEFAULTS = [
    ("LambdaRanker()", "ranker", {"objective": "auc"}),  # 100 rounds at 0.05, norm on, no early stopping
    ("LambdaRanker(mauc)", "ranker", {"objective": "mauc"}),
    ("LambdaRanker(norm=False)", "ranker", {"objective": "auc", "norm": False}),
    ("0.1.0 defaults", "ranker", {"objective": "auc", "learning_rate": 0.1, "norm": False}),
    ("100 rounds at 0.1", "ranker", {"objective": "auc", "learning_rate": 0.1}),
    # early stopping on a held-out 20 % of the training queries
    ("held-out ES", "ranker", {"objective": "auc", "n_estimators": 1000, "early_stopping_rounds": 50}),
    # the same to choose the rounds, then all queries for that many rounds
    ("ES then refit", "refit", {"objective": "auc"}),
    ("LGBMRanker()", "lgbmranker", {}),
]


# --------------------------------------------------------------------------- data sets
def _letor(d):
    return d.X, d.y.astype(np.int64), d.group_sizes.astype(np.int64)


def _flip(data, rate, seed):
    """Replace a share ``rate`` of labels by a uniformly drawn grade (label noise)."""
    X, y, sizes = data
    rng = np.random.default_rng(seed)
    y = y.copy()
    hit = rng.random(y.shape[0]) < rate
    y[hit] = rng.integers(0, y.max() + 1, hit.sum())
    return X, y, sizes


def load_sample():
    train, test = br.load_sample()
    return (np.vstack([train.X, test.X]), np.r_[train.y, test.y].astype(np.int64),
            np.r_[train.group_sizes, test.group_sizes].astype(np.int64))


def load_mq2008():
    vali = br.load_letor(DATA / "mq2008" / "vali.txt", sparse=False)
    test = br.load_letor(DATA / "mq2008" / "test.txt", sparse=False, n_features=vali.n_features)
    return (np.vstack([vali.X, test.X]), np.r_[vali.y, test.y].astype(np.int64),
            np.r_[vali.group_sizes, test.group_sizes].astype(np.int64))


#: name -> (loader, what it is).  Generated sets use seeds that no test or example uses.
DATASETS = {
    "sample": (load_sample, "bundled sample: 450 queries of 5-30, grades 0-2, non-linear utility"),
    "mq2008": (load_mq2008, "MQ2008 vali + test: 313 queries, grades 0-2 (LETOR 4.0)"),
    "gen-10-graded": (lambda: _letor(br.make_letor(600, docs_per_query=(5, 20), relevance="nonlinear",
                                                   noise=0.7, random_state=11)),
                      "600 queries of 5-20, grades 0-2, non-linear"),
    "gen-100-binary": (lambda: _letor(br.make_letor(200, docs_per_query=(50, 150), n_grades=2,
                                                    relevance="nonlinear", noise=1.0, random_state=12)),
                       "200 queries of 50-150, binary, non-linear"),
    "gen-1000-graded": (lambda: _letor(br.make_letor(40, docs_per_query=(500, 1000), n_grades=5, n_features=20,
                                                     relevance="nonlinear", noise=1.0, random_state=13)),
                        "40 queries of 500-1000, grades 0-4, 20 features, non-linear"),
    "gen-30-noisy": (lambda: _flip(_letor(br.make_letor(300, docs_per_query=(10, 60), relevance="nonlinear",
                                                        noise=0.5, random_state=14)), 0.15, 14),
                     "300 queries of 10-60, grades 0-2, 15 % of labels redrawn at random"),
    "gen-30-linear-binary": (lambda: _letor(br.make_letor(400, docs_per_query=(10, 50), n_grades=2,
                                                          n_features=30, n_informative=6, noise=1.5,
                                                          random_state=15)),
                             "400 queries of 10-50, binary, linear utility, 30 features (24 noise)"),
    "one-list": (lambda: _letor(br.make_letor(1, docs_per_query=(4000, 4000), n_grades=2, relevance="nonlinear",
                                              noise=0.7, random_state=16)),
                 "one list of 4 000 rows, binary (folds over rows)"),
}
QUICK_SETS = ("sample", "gen-10-graded", "one-list")


# --------------------------------------------------------------------------- training
def offsets_of(sizes):
    return np.r_[0, np.cumsum(sizes)].astype(np.int64)


def _metrics(y, s, off, per_query=False):
    g = GroupOffsets(off)
    return {"auc": br.auc(y, s, g, per_query=per_query), "mauc": br.mauc(y, s, g, per_query=per_query),
            "ndcg@10": br.ndcg(y, s, g, k=10, per_query=per_query)}


class Curves:
    """Validation metrics after every round; tells when none has improved for PATIENCE rounds."""

    def __init__(self, y, off):
        self.y, self.off = y, off
        self.best = {m: (-1, -np.inf) for m in METRICS}

    def update(self, iteration, scores) -> bool:
        for m, v in _metrics(self.y, scores, self.off).items():
            if np.isfinite(v) and v > self.best[m][1] + 1e-12:
                self.best[m] = (iteration, float(v))
        return iteration - max(b[0] for b in self.best.values()) >= PATIENCE

    def rounds(self):
        """Best number of rounds per metric (at least 1)."""
        return {m: max(it, 0) + 1 for m, (it, _) in self.best.items()}


def train_lightgbm(objective, tr, va, max_rounds):
    (Xtr, ytr, otr), (Xva, yva, ova) = tr, va
    params = {"num_leaves": 31, "learning_rate": 0.05, "min_data_in_leaf": 20, "num_threads": 1, "verbose": -1,
              "seed": 0, "deterministic": True, "force_row_wise": True, "metric": "None"}
    label = ytr
    if isinstance(objective, tuple):  # (metric, options) of a variant
        params["objective"] = br.lightgbm_objective(objective[0], **objective[1])
    elif objective in ("auc", "mauc", "ndcg"):
        params["objective"] = br.lightgbm_objective(objective)
    else:
        params["objective"] = objective
        if objective == "binary":
            label = (ytr > 0).astype(np.float64)
    if objective == "lambdarank" and np.diff(otr).max() > 10_000:
        raise RuntimeError("lambdarank refuses lists over 10 000 rows")
    curves = Curves(yva, ova)
    state = {"s": np.zeros(yva.shape[0])}

    def record(env):
        state["s"] += env.model.predict(Xva, start_iteration=env.iteration, num_iteration=1, raw_score=True)
        if curves.update(env.iteration, state["s"]):
            raise lgb.callback.EarlyStopException(env.iteration, [])

    booster = lgb.train(params, lgb.Dataset(Xtr, label, group=np.diff(otr)), num_boost_round=max_rounds,
                        callbacks=[record])
    return lambda X, rounds: booster.predict(X, num_iteration=rounds, raw_score=True), curves


def train_xgboost(objective, tr, va, max_rounds):
    (Xtr, ytr, otr), (Xva, yva, ova) = tr, va
    params = {"objective": objective, "tree_method": "hist", "grow_policy": "lossguide", "max_leaves": 31,
              "max_depth": 0, "eta": 0.05, "nthread": 1, "seed": 0, "disable_default_eval_metric": 1}
    dtr = xgb.DMatrix(Xtr, ytr, group=np.diff(otr))
    dva = xgb.DMatrix(Xva, yva, group=np.diff(ova))
    curves = Curves(yva, ova)

    class Record(xgb.callback.TrainingCallback):
        def after_iteration(self, model, epoch, evals_log):
            return curves.update(epoch, model.predict(dva, output_margin=True, iteration_range=(0, epoch + 1)))

    booster = xgb.train(params, dtr, num_boost_round=max_rounds, callbacks=[Record()])
    return (lambda X, rounds: booster.predict(xgb.DMatrix(X), output_margin=True, iteration_range=(0, rounds)),
            curves)


def train_default(engine, kw, tr, va):
    """An estimator with its defaults on train + valid (the estimator splits off its own)."""
    X = np.vstack([tr[0], va[0]])
    y = np.r_[tr[1], va[1]]
    sizes = np.r_[np.diff(tr[2]), np.diff(va[2])]
    if tr[2].shape[0] == 2 and va[2].shape[0] == 2:  # one list stays one list
        sizes = np.array([y.shape[0]])
    if engine == "lgbmranker":
        model = lgb.LGBMRanker(random_state=0, n_jobs=1, verbose=-1).fit(X, y, group=sizes)
        rounds = model.n_estimators
    elif engine == "refit":
        probe = br.LambdaRanker(random_state=0, n_jobs=1, early_stopping_rounds=50, n_estimators=1000,
                                learning_rate=0.05, validation_fraction=0.2, **kw).fit(X, y, group=sizes)
        rounds = probe.best_iteration_ or probe.n_estimators
        model = br.LambdaRanker(random_state=0, n_jobs=1, early_stopping_rounds=None, n_estimators=rounds,
                                learning_rate=0.05, **kw).fit(X, y, group=sizes)
    else:
        model = br.LambdaRanker(random_state=0, n_jobs=1, **kw).fit(X, y, group=sizes)
        rounds = model.best_iteration_ or model.n_estimators
    return (lambda Xt, _: model.predict(Xt)), {m: rounds for m in METRICS}


def split_rows(X, y, sizes, test_units, valid_units, single):
    """(train, valid, test) as (X, y, offsets); units are queries, or rows of the one list."""
    off = offsets_of(sizes)

    def take(units):
        units = np.sort(units)
        if single:  # one list: the units are rows, and each part is one list
            return X[units], y[units], np.array([0, units.shape[0]], dtype=np.int64)
        rows = np.concatenate([np.arange(off[q], off[q + 1]) for q in units])
        return X[rows], y[rows], offsets_of(sizes[units])

    n_units = y.shape[0] if single else sizes.shape[0]
    rest = np.setdiff1d(np.arange(n_units), np.union1d(test_units, valid_units))
    return take(rest), take(valid_units), take(test_units)


def run_fold(name, data, repeat, fold, n_folds, methods, max_rounds):
    """Every method on one (repeat, fold); returns per-method per-metric test values and rounds."""
    import numba

    numba.set_num_threads(1)  # two jobs share the two cores
    X, y, sizes = data
    single = sizes.shape[0] == 1
    n_units = y.shape[0] if single else sizes.shape[0]
    rng = np.random.default_rng(1000 * repeat + 7)
    perm = rng.permutation(n_units)
    test_units = perm[fold::n_folds]
    rest = np.setdiff1d(perm, test_units)
    valid_units = np.random.default_rng(1000 * repeat + fold).choice(rest, size=max(1, len(rest) // 5),
                                                                    replace=False)
    tr, va, te = split_rows(X, y, sizes, test_units, valid_units, single)
    out = {"test_units": np.sort(test_units).tolist()}
    for mname, engine, objective in methods:
        t = time.perf_counter()
        if engine in ("ranker", "lgbmranker", "refit"):
            predict, rounds = train_default(engine, objective, tr, va)
        else:
            trainer = train_lightgbm if engine == "lightgbm" else train_xgboost
            predict, curves = trainer(objective, tr, va, max_rounds)
            rounds = curves.rounds()
        res = {"seconds": time.perf_counter() - t, "rounds": rounds}
        for m in METRICS:
            values = _metrics(te[1], predict(te[0], rounds[m]), te[2], per_query=True)[m]
            res[m] = np.asarray(values, dtype=np.float64).tolist()
        out[mname] = res
    return name, repeat, fold, out


# --------------------------------------------------------------------------- statistics
def per_unit(results, n_units, single, method, metric):
    """Test value per unit (query, or (repeat, fold) list), averaged over repeats."""
    if single:
        return np.array([r[method][metric][0] for r in results])
    total = np.zeros(n_units)
    count = np.zeros(n_units)
    for r in results:
        units = np.asarray(r["test_units"])
        v = np.asarray(r[method][metric])
        ok = np.isfinite(v)
        np.add.at(total, units[ok], v[ok])
        np.add.at(count, units[ok], 1)
    with np.errstate(invalid="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def summarise(name, results, data, methods):
    X, y, sizes = data
    single = sizes.shape[0] == 1
    n_units = y.shape[0] if single else sizes.shape[0]
    table = {}
    for mname, _, _ in methods:
        row = {}
        for m in METRICS:
            v = per_unit(results, n_units, single, mname, m)
            v = v[np.isfinite(v)]
            row[m] = {"mean": float(v.mean()), "se": float(v.std(ddof=1) / np.sqrt(len(v))), "n": int(len(v)),
                      "rounds": float(np.mean([r[mname]["rounds"][m] for r in results]))}
        row["seconds"] = float(np.mean([r[mname]["seconds"] for r in results]))
        table[mname] = row
    tests = {}
    engines = [m for m, _, _ in methods if m in ENGINE_OBJECTIVES]
    for ours, metric in (("λ-AUC", "auc"), ("λ-MAUC", "mauc")):
        if ours not in table or not engines:
            continue
        best = max(engines, key=lambda m: table[m][metric]["mean"])
        a = per_unit(results, n_units, single, ours, metric)
        b = per_unit(results, n_units, single, best, metric)
        ok = np.isfinite(a) & np.isfinite(b)
        d = a[ok] - b[ok]
        t = stats.ttest_rel(a[ok], b[ok])
        nz = d[d != 0]
        w = stats.wilcoxon(nz) if nz.size > 1 else None
        tests[ours] = {"metric": metric, "best_engine": best, "diff": float(d.mean()),
                       "se": float(d.std(ddof=1) / np.sqrt(d.size)), "t_p": float(t.pvalue),
                       "wilcoxon_p": float(w.pvalue) if w is not None else float("nan"), "n": int(d.size),
                       "wins": int((d > 0).sum()), "losses": int((d < 0).sum())}
    for ours, metric in (("λ-AUC", "auc"), ("λ-MAUC", "mauc")):
        off = f"{ours} norm=False"
        if ours in table and off in table:
            a = per_unit(results, n_units, single, ours, metric)
            b = per_unit(results, n_units, single, off, metric)
            ok = np.isfinite(a) & np.isfinite(b)
            d = a[ok] - b[ok]
            tests[f"{ours} norm"] = {"metric": metric, "best_engine": off, "diff": float(d.mean()),
                                     "se": float(d.std(ddof=1) / np.sqrt(d.size)),
                                     "t_p": float(stats.ttest_rel(a[ok], b[ok]).pvalue), "wilcoxon_p": float("nan"),
                                     "n": int(d.size), "wins": int((d > 0).sum()), "losses": int((d < 0).sum())}
    return {"table": table, "tests": tests}


def print_summary(name, desc, summary, repeats, folds):
    print(f"\n## {name}: {desc}  ({repeats} × {folds}-fold)")
    head = f"{'method':<14}" + "".join(f"{m:>22}" for m in METRICS) + f"{'s/fit':>7}"
    print(head)
    for mname, row in summary["table"].items():
        cells = "".join(f"  {row[m]['mean']:.4f} ± {row[m]['se']:.4f} ({row[m]['rounds']:3.0f})" for m in METRICS)
        print(f"{mname:<14}{cells}{row['seconds']:7.1f}")
    for ours, t in summary["tests"].items():
        ours = ours.replace(" norm", "")
        verdict = "better" if t["diff"] > 0 and t["t_p"] < 0.05 else (
            "worse" if t["diff"] < 0 and t["t_p"] < 0.05 else "no significant difference")
        print(f"{ours} − {t['best_engine']} on {t['metric'].upper()}: {t['diff']:+.4f} ± {t['se']:.4f} "
              f"(paired t p = {t['t_p']:.3g}, Wilcoxon p = {t['wilcoxon_p']:.3g}; {t['wins']} wins / "
              f"{t['losses']} losses of {t['n']}): {verdict}")


def figure(all_summaries, path):
    """λ-AUC and λ-MAUC minus the best engine objective on their metric, per data set."""
    plt = pyplot()
    names = list(all_summaries)
    fig, ax = plt.subplots(figsize=(8, 0.45 * len(names) + 1.5))
    ypos = np.arange(len(names))
    for k, (ours, colour) in enumerate((("λ-AUC", "C0"), ("λ-MAUC", "C1"))):
        d = [all_summaries[n]["tests"].get(ours, {}).get("diff", np.nan) for n in names]  # vs best engine
        e = [1.96 * all_summaries[n]["tests"].get(ours, {}).get("se", np.nan) for n in names]
        ax.errorbar(d, ypos + (k - 0.5) * 0.25, xerr=e, fmt="o", color=colour,
                    label=f"{ours} − best engine objective ({'AUC' if k == 0 else 'MAUC'}), 95 % CI")
    ax.axvline(0, color="grey", lw=1)
    ax.set_yticks(ypos, names)
    ax.set_xlabel("difference in mean test metric (paired over queries)")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=None, help=f"comma list of {', '.join(DATASETS)}")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--max-rounds", type=int, default=1000)
    ap.add_argument("--methods", default=None, help="comma list of method names (default: all)")
    ap.add_argument("--no-defaults", action="store_true", help="leave out the estimators-with-defaults rows")
    ap.add_argument("--no-variants", action="store_true", help="leave out the norm=False rows")
    ap.add_argument("--sample-seeds", type=int, default=0, metavar="N",
                    help="add N sets drawn like the bundled sample (make_letor(**SAMPLE_ARGS)) with other seeds: "
                         "is a result the generator's or the one draw's?")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help=f"{', '.join(QUICK_SETS)}, 1 repeat")
    ap.add_argument("--json", default=str(HERE / "results" / "objective_quality.json"))
    ap.add_argument("--figure", default=str(HERE / "figures" / "objective_quality.png"))
    args = ap.parse_args(argv)
    names = args.sets.split(",") if args.sets else list(QUICK_SETS if args.quick else DATASETS)
    for k in range(args.sample_seeds):
        name = f"sample-draw-{k + 1}"
        DATASETS[name] = (lambda seed=k + 1: _letor(br.make_letor(**{**SAMPLE_ARGS, "random_state": seed})),
                          f"make_letor(**SAMPLE_ARGS) with random_state={k + 1}")
        names.append(name)
    repeats = 1 if args.quick else args.repeats
    methods = [m for m in METHODS + ([] if args.no_variants else VARIANTS) + ([] if args.no_defaults else DEFAULTS)
               if args.methods is None or m[0] in args.methods.split(",")]
    if not (DATA / "mq2008" / "vali.txt").exists() and "mq2008" in names:
        print("mq2008 not found beside the checkout: skipped")
        names.remove("mq2008")
    summaries = {}
    for name in names:
        loader, desc = DATASETS[name]
        data = loader()
        t = time.perf_counter()
        jobs = [(r, f) for r in range(repeats) for f in range(args.folds)]
        results = Parallel(n_jobs=args.jobs)(
            delayed(run_fold)(name, data, r, f, args.folds, methods, args.max_rounds) for r, f in jobs)
        results = [r[3] for r in results]
        summaries[name] = summarise(name, results, data, methods)
        summaries[name]["description"] = desc
        summaries[name]["seconds"] = time.perf_counter() - t
        print_summary(name, desc, summaries[name], repeats, args.folds)
        write_json(args.json, {"protocol": {"repeats": repeats, "folds": args.folds, "max_rounds": args.max_rounds,
                                            "patience": PATIENCE, "learning_rate": 0.05, "num_leaves": 31},
                               "sets": summaries})
    if args.figure and summaries:
        figure(summaries, args.figure)


if __name__ == "__main__":
    main()
