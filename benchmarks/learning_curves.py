"""Why early stopping and fixed round counts disagree: test AUC after every round, per objective.

``objective_quality.py``'s early-stopping protocol reads each method at its best round on an inner
fifth of the training queries (a few dozen queries on the real sets).  This script trains on the
same inner-training queries and the same folds, records validation and test AUC after every round
up to ``--rounds``, and prints per method:

* the test AUC read where that protocol stops (patience 50 on validation AUC) and the rounds it
  kept, with the paired t-test over (repeat, fold) units against ``--against``, and how many of
  those folds stopped within the first 5 rounds;
* the mean test AUC at fixed round counts, and the best round of the mean curve.

It plots the mean test AUC per round, one panel per data set (``figures/learning_curves.png``).
The methods' defaults are those a new user gets (``objective_quality.py``'s trees: 31 leaves,
learning rate 0.05, one engine thread, two folds side by side).

Run:  python benchmarks/learning_curves.py [--sets mq2008,catboost,sample] [--rounds 400]
"""

from __future__ import annotations

import argparse
import time

import lightgbm as lgb
import numpy as np
from joblib import Parallel, delayed
from scipy import stats

import boostrank as br
from boostrank.metrics import GroupOffsets

import objective_quality as oq
from _common import pyplot, save_figure, write_json

#: objective name as the tables print it -> what objective_quality.lightgbm_setup takes
METHODS = {"lambdarank": "lambdarank", "binary": "binary", "λ-AUC": "auc", "λ-MAUC": "mauc",
           "λ-AUC norm=True": ("auc", {"norm": True}), "λ-AUC norm=False": ("auc", {"norm": False})}
PATIENCE = oq.PATIENCE


def curves_of_fold(data, repeat, fold, n_folds, methods, rounds):
    """{method: (validation AUC per round, test AUC per round)} on objective_quality's split."""
    import numba

    numba.set_num_threads(1)  # two folds share the two cores
    X, y, sizes = data
    n = sizes.shape[0]
    perm = np.random.default_rng(1000 * repeat + 7).permutation(n)
    test_units = perm[fold::n_folds]
    rest = np.setdiff1d(perm, test_units)
    valid_units = np.random.default_rng(1000 * repeat + fold).choice(rest, size=max(1, len(rest) // 5),
                                                                    replace=False)
    tr, va, te = oq.split_rows(X, y, sizes, test_units, valid_units, False)
    out = {}
    for name in methods:
        params, label = oq.lightgbm_setup(METHODS[name], tr[1], tr[2])
        booster = lgb.train(params, lgb.Dataset(tr[0], label, group=np.diff(tr[2])), num_boost_round=rounds)
        sv, st = np.zeros(va[1].shape[0]), np.zeros(te[1].shape[0])
        cv, ct = [], []
        for it in range(rounds):
            sv += booster.predict(va[0], start_iteration=it, num_iteration=1, raw_score=True)
            st += booster.predict(te[0], start_iteration=it, num_iteration=1, raw_score=True)
            cv.append(br.auc(va[1], sv, GroupOffsets(va[2])))
            ct.append(br.auc(te[1], st, GroupOffsets(te[2])))
        out[name] = (np.array(cv), np.array(ct))
    return out


def early_stop(valid):
    """objective_quality's rule on one curve: the best round so far, stopping PATIENCE rounds after it."""
    best, at = -np.inf, 0
    for i, v in enumerate(valid):
        if v > best + 1e-12:
            best, at = v, i
        if i - at >= PATIENCE:
            break
    return at


def summarise(folds, methods, against):
    rows = {}
    for name in methods:
        stops = np.array([early_stop(f[name][0]) for f in folds])
        read = np.array([f[name][1][s] for f, s in zip(folds, stops)])
        mean = np.mean([f[name][1] for f in folds], axis=0)
        rows[name] = {"es_auc": float(read.mean()), "es_rounds": float(stops.mean() + 1),
                      "stopped_by_5": int((stops < 5).sum()), "per_fold": read.tolist(), "curve": mean.tolist()}
    base = np.array(rows[against]["per_fold"])
    for name, row in rows.items():
        d = np.array(row["per_fold"]) - base
        row["diff"] = float(d.mean())
        row["p"] = float(stats.ttest_rel(row["per_fold"], base).pvalue) if name != against else 1.0
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default="mq2008,catboost,sample")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--against", default="lambdarank")
    ap.add_argument("--rounds", type=int, default=400)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", default=str(oq.HERE / "results" / "learning_curves.json"))
    ap.add_argument("--figure", default=str(oq.HERE / "figures" / "learning_curves.png"))
    args = ap.parse_args(argv)
    methods = args.methods.split(",")
    marks = [r for r in (50, 100, 200, 300, 400) if r <= args.rounds]
    results = {}
    for name in args.sets.split(","):
        data = oq.DATASETS[name][0]()
        t = time.perf_counter()
        folds = Parallel(n_jobs=args.jobs)(delayed(curves_of_fold)(data, r, f, args.folds, methods, args.rounds)
                                           for r in range(args.repeats) for f in range(args.folds))
        rows = summarise(folds, methods, args.against)
        results[name] = rows
        print(f"## {name}: {oq.DATASETS[name][1]}  ({args.repeats} × {args.folds}-fold, "
              f"{time.perf_counter() - t:.0f} s)")
        print(f"{'method':18s} {'early-stopped':>14s} {'rounds':>6s} {'≤5':>3s} {'Δ vs ' + args.against:>16s} "
              f"{'p (folds)':>9s} | " + " ".join(f"{'@' + str(r):>6s}" for r in marks) + "   best of mean curve")
        for m, row in rows.items():
            c = np.array(row["curve"])
            print(f"{m:18s} {row['es_auc']:14.4f} {row['es_rounds']:6.0f} {row['stopped_by_5']:3d} "
                  f"{row['diff']:+16.4f} {row['p']:9.3f} | " + " ".join(f"{c[r - 1]:.4f}" for r in marks)
                  + f"   {c.max():.4f} @ {c.argmax() + 1}")
        write_json(args.json, {"rounds": args.rounds, "patience": PATIENCE, "sets": results})
    plt = pyplot()
    fig, axes = plt.subplots(1, len(results), figsize=(4.2 * len(results), 3.4), squeeze=False)
    for ax, (name, rows) in zip(axes[0], results.items()):
        for m, row in rows.items():
            ax.plot(np.arange(1, args.rounds + 1), row["curve"], label=m, lw=1.2)
        ax.set_title(name)
        ax.set_xlabel("rounds (learning rate 0.05)")
        ax.set_ylabel("mean test AUC over folds")
        lo = min(np.min(r["curve"][PATIENCE // 5:]) for r in rows.values())
        ax.set_ylim(lo, None)
    axes[0][0].legend(fontsize=7)
    save_figure(fig, args.figure)
    print(f"wrote {args.figure}")


if __name__ == "__main__":
    main()
