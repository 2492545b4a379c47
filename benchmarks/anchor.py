"""Which anchor weight by default?  Chosen by inner cross-validation on training queries only (issue 70).

The λ objectives' pointwise anchor (``LambdaObjective(anchor=α)``) is chosen here without looking at any test
fold: for every real and calibrated set of ``objective_quality.py``, the outer 5 folds over queries of its
repeat 0 (the same folds), and within each outer fold's training queries a 4-fold inner cross-validation.
Every candidate trains on the inner training queries (LightGBM, 31 leaves, learning rate 0.05, the same
trees as the benchmark) and is read at 100 and 300 rounds on the inner validation queries; per set and
candidate, the better of the two counts (one rule for all).  The table gives, per set, each candidate's mean
inner-validation AUC (MAUC for λ-MAUC) minus that of α = 0 (the λs alone), its mean and worst gain over the sets,
and its largest shortfall to the best candidate of a set.  The default is the candidate whose largest shortfall is
least (issue 70's bar is per set: never more than .003 behind); the mean gain is printed beside it.  The λ-AUC
candidates also vary ``grade_weight`` (``gw``, the weight of the boundaries between relevant grades).

Sets with fewer than ``objective_quality.SMALL_SET_QUERIES`` queries (CatBoost's sample) take ``--small-repeats``
outer repeats, as the benchmark repeats them.

Run:  python benchmarks/anchor.py [--sets mq2008,catboost,...] [--jobs 2] [--json out.json]
      [--only NAME,NAME --merge earlier.json]   (run some candidates, keep an earlier run's others)
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

import objective_quality as oq
from _common import write_json

HERE = Path(__file__).resolve().parent
#: the real sets first, then the sets calibrated to a measured property of a real one
SETS = ("mq2008", "catboost", "cal-ambiguous", "cal-many-relevant", "cal-sparse-redundant", "cal-one-list",
        "cal-long-many-relevant", "cal-mostly-relevant", "cal-absolute")
ROUNDS = (100, 300)
#: (name, metric it is read on, the objective and its options)
CANDIDATES = [(f"λ-AUC α={a:g}", "auc", ("auc", {"anchor": a, "anchor_form": "binary", "grade_weight": 0.5}))
              for a in (0.0, 0.1, 0.3, 1.0, 3.0)] + [
    (f"λ-AUC ordinal α={a:g}", "auc", ("auc", {"anchor": a, "anchor_form": "ordinal", "grade_weight": 0.5}))
    for a in (0.3, 1.0, 3.0)] + [
    (f"λ-MAUC α={a:g}", "mauc", ("mauc", {"anchor": a})) for a in (0.0, 0.3, 1.0, 3.0)] + [
    # graded λ-AUC's weight of the boundaries between relevant grades (0.5 above, as the first run had it by default)
    (f"λ-AUC gw={g:g} ordinal α={a:g}", "auc", ("auc", {"anchor": a, "anchor_form": "ordinal", "grade_weight": g}))
    for g, a in ((0.0, 0.3), (0.0, 1.0), (0.25, 0.3))]
INNER_FOLDS = 4


def inner_fold(name, data, repeat, fold, inner, candidates):
    """Every candidate on one inner fold of one outer fold: {(candidate, rounds): mean inner-validation value}."""
    import lightgbm as lgb
    import numba

    numba.set_num_threads(1)  # two jobs share the two cores
    X, y, sizes = data
    single = sizes.shape[0] == 1
    n_units = y.shape[0] if single else sizes.shape[0]
    perm = np.random.default_rng(1000 * repeat + 7).permutation(n_units)  # objective_quality's outer folds
    test_units = perm[fold::5]
    train_units = np.setdiff1d(perm, test_units)
    order = np.random.default_rng(1000 * repeat + 100 + fold).permutation(train_units)
    valid_units = order[inner::INNER_FOLDS]
    # the outer test units are left out of both parts: "valid" is the inner validation, "test" is unused
    tr, va, _ = oq.split_rows(X, y, sizes, np.union1d(test_units, valid_units), np.zeros(0, dtype=np.int64), single)
    va, _, _ = oq.split_rows(X, y, sizes, np.setdiff1d(np.arange(n_units), valid_units),
                             np.zeros(0, dtype=np.int64), single)
    out = {}
    for cname, metric, objective in candidates:
        params, label = oq.lightgbm_setup(objective, tr[1], tr[2])
        booster = lgb.train(params, lgb.Dataset(tr[0], label, group=np.diff(tr[2])), num_boost_round=max(ROUNDS))
        for r in ROUNDS:
            values = oq._metrics(va[1], booster.predict(va[0], num_iteration=r, raw_score=True), va[2],
                                 per_query=True)[metric]
            out[(cname, r)] = float(np.nanmean(values))
    return name, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--small-repeats", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default=None, help="comma list of candidate names to run (the rest: --merge)")
    ap.add_argument("--merge", default=None, help="a results file whose other candidates to keep")
    ap.add_argument("--json", default=str(HERE / "results" / "anchor.json"))
    args = ap.parse_args(argv)
    names = args.sets.split(",")
    t = time.perf_counter()
    jobs = []
    data = {}
    for name in names:
        data[name] = oq.DATASETS[name][0]()
        X, y, sizes = data[name]
        small = 1 < sizes.shape[0] < oq.SMALL_SET_QUERIES and y.shape[0] < oq.SMALL_SET_ROWS
        jobs += [(name, r, f, i) for r in range(args.small_repeats if small else 1) for f in range(5)
                 for i in range(INNER_FOLDS)]
    run = [c for c in CANDIDATES if args.only is None or c[0] in args.only.split(",")]
    results = Parallel(n_jobs=args.jobs)(delayed(inner_fold)(name, data[name], r, f, i, run)
                                         for name, r, f, i in jobs)
    table = json.loads(Path(args.merge).read_text())["table"] if args.merge else {}
    for name in names:
        runs = [out for n, out in results if n == name]
        score = table.setdefault(name, {})
        for cname, _, _ in run:
            means = {r: float(np.mean([out[(cname, r)] for out in runs])) for r in ROUNDS}
            score[cname] = max(means.values())
    write_json(args.json, {"sets": names, "candidates": [c for c, _, _ in CANDIDATES], "inner_folds": INNER_FOLDS,
                           "table": table})
    print(f"inner {INNER_FOLDS}-fold CV within each outer training fold; mean inner-validation value minus α = 0's "
          f"({time.perf_counter() - t:.0f} s)")
    for family, zero in (("λ-AUC", "λ-AUC α=0"), ("λ-MAUC", "λ-MAUC α=0")):
        cands = [c for c, _, _ in CANDIDATES if c.startswith(family + " ") and all(c in table[n] for n in names)]
        print(f"\n{'set':<24}" + "".join(f"{c.replace(family + ' ', ''):>14}" for c in cands))
        gains = {c: [] for c in cands}
        for name in names:
            row = {c: table[name][c] - table[name][zero] for c in cands}
            for c in cands:
                gains[c].append(row[c])
            print(f"{name:<24}" + "".join(f"{row[c]:+14.4f}" for c in cands) + f"   (α = 0: {table[name][zero]:.4f})")
        print(f"{'mean':<24}" + "".join(f"{np.mean(gains[c]):+14.4f}" for c in cands))
        print(f"{'worst':<24}" + "".join(f"{np.min(gains[c]):+14.4f}" for c in cands))
        best = max(cands, key=lambda c: np.mean(gains[c]))
        print(f"default by the mean gain: {best}")
        # the bar is per set: the candidate whose largest shortfall to the best candidate of a set is least
        regret = {c: max(max(table[n][d] for d in cands) - table[n][c] for n in names) for c in cands}
        print(f"{'largest shortfall':<24}" + "".join(f"{-regret[c]:+14.4f}" for c in cands))
        print(f"default by the largest shortfall: {min(cands, key=regret.get)}")


if __name__ == "__main__":
    main()
