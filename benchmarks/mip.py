"""Exact MIP ranking: time to optimality and the thesis Tables 2.6–2.11 protocol.

Part 1 — AUC MIP (thesis (2.6)) on a ROC-flexibility style set (250 rows, ~20
distinct): time to proven optimality with CBC and HiGHS, with and without merging
identical rows (cap ``--cap`` seconds each).  The thesis needed 174 s (CPLEX, 2009).

Part 2 — Haberman and Pima (``../shared/data``), ``--splits`` random 50/50 splits:
train/test AUC (ties counted as misranks, as the MIP counts them) and DCG over the
top 10% (minimum ranks, (2.18)) for the MIP (time cap ``--mip-cap``, warm-started
from logistic regression), its LP relaxation, logistic regression and a linear
pairwise hinge ranker; mean ± sd, wins on test per method, mean fit time.

Run:  python benchmarks/mip.py [--quick] [--splits 10] [--mip-cap 60]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

import boostrank as br

from _common import Logistic, RankSVMPairs, load_haberman, load_pima, write_json

HERE = Path(__file__).resolve().parent


def part1(cap):
    X, y = br.make_roc_flexibility(250, random_state=0)
    rows = []
    for solver in ("cbc", "highs"):
        for merge in (True, False):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m = br.MIPRanker("auc", solver=solver, merge_duplicates=merge, time_limit=cap,
                                 threads=2 if solver == "cbc" else None).fit(X, y)
            r = m.result_
            rows.append({"solver": solver, "merge": merge, "status": r.status, "seconds": r.solve_time,
                         "auc": r.statistic, "bound": r.bound, "gap": r.gap, "binaries": r.n_binaries})
            print(f"  {solver:<6} merge={str(merge):<5} {r.status:<12} {r.solve_time:>7.1f} s  "
                  f"AUC {r.statistic if r.statistic is not None else float('nan'):.4f}  gap "
                  f"{r.gap if r.gap is not None else float('nan'):.3g}  binaries {r.n_binaries}", flush=True)
    lr = Logistic().fit(X, y)
    print(f"  logistic regression AUC (pessimistic ties) {br.auc(y, lr.decision_function(X), ties='pessimistic'):.4f}")
    return rows


STATS = {
    "auc": (dict(statistic="auc"), lambda y, s: br.auc(y, s, ties="pessimistic")),
    "dcg@10%": (dict(statistic="rank_risk", a=br.dcg_at(0.1)), lambda y, s: br.rank_risk(y, s, br.dcg_at(0.1))),
}


def part2(name, X, y, splits, cap):
    out = {}
    rng = np.random.default_rng(0)
    for stat, (kw, score) in STATS.items():
        per = {m: {"train": [], "test": [], "time": [], "status": []} for m in ("MIP", "LP", "LR", "hinge")}
        for s in range(splits):
            perm = rng.permutation(len(y))
            tr, te = perm[: len(y) // 2], perm[len(y) // 2:]
            for method in per:
                t = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    if method == "MIP":
                        model = br.MIPRanker(time_limit=cap, warm_start="logistic", threads=2, **kw).fit(X[tr], y[tr])
                        per[method]["status"].append(model.result_.status)
                    elif method == "LP":
                        model = br.MIPRanker(relax=True, **kw).fit(X[tr], y[tr])
                    elif method == "LR":
                        model = Logistic().fit(X[tr], y[tr])
                    else:
                        model = RankSVMPairs().fit(X[tr], y[tr])
                per[method]["time"].append(time.perf_counter() - t)
                per[method]["train"].append(float(score(y[tr], model.decision_function(X[tr]))))
                per[method]["test"].append(float(score(y[te], model.decision_function(X[te]))))
            print(f"  {name} {stat} split {s + 1}/{splits}", flush=True)
        tests = np.array([per[m]["test"] for m in per])
        wins = (tests == tests.max(axis=0)).sum(axis=1)
        out[stat] = {m: {**v, "wins": int(w)} for (m, v), w in zip(per.items(), wins)}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cap", type=float, default=120.0, help="part 1 time cap per solve (s)")
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--mip-cap", type=float, default=60.0, help="part 2 time cap per MIP (s)")
    ap.add_argument("--quick", action="store_true", help="cap 30 s, 2 splits, MIP cap 10 s")
    ap.add_argument("--json", default=str(HERE / "results" / "mip.json"))
    args = ap.parse_args(argv)
    if args.quick:
        args.cap, args.splits, args.mip_cap = 30.0, 2, 10.0
    print(f"Part 1: AUC MIP on ROC flexibility (250 rows), cap {args.cap:.0f} s; thesis: 174 s with CPLEX")
    results = {"settings": vars(args), "roc_flexibility": part1(args.cap), "datasets": {}}
    for name, loader in (("haberman", load_haberman), ("pima", load_pima)):
        X, y = loader()
        results["datasets"][name] = part2(name, X, y, args.splits, args.mip_cap)
    print(f"\nPart 2: {args.splits} random 50/50 splits; MIP capped at {args.mip_cap:.0f} s, warm start LR")
    print(f"{'data':<9}{'statistic':<9}{'method':<7}{'train':>17}{'test':>17}{'wins':>5}{'fit s':>8}  MIP status")
    for name, by_stat in results["datasets"].items():
        for stat, by_m in by_stat.items():
            for m, v in by_m.items():
                st = ",".join(sorted(set(v["status"]))) if v["status"] else ""
                print(f"{name:<9}{stat:<9}{m:<7}{np.mean(v['train']):>9.4f} ± {np.std(v['train']):.3f}"
                      f"{np.mean(v['test']):>9.4f} ± {np.std(v['test']):.3f}{v['wins']:>5}"
                      f"{np.mean(v['time']):>8.2f}  {st}")
    write_json(args.json, results)


if __name__ == "__main__":
    main()
