"""Throughput of boostrank's metrics against scikit-learn and pytrec_eval (trec_eval).

10^6 documents in 10^4 queries (sizes 50-150), graded labels 0-2, continuous scores
(no ties, so trec_eval's docno tie-break does not matter).  Each competitor computes
the same numbers in the same run; the table shows seconds and the speed-up ratio,
and checks that the values agree.

Run:  python benchmarks/metrics.py [--docs 1000000 --queries 10000] [--json out.json]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

import boostrank as br

from _common import write_json


def timed(fn, repeat=3):
    best, value = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - t)
    return best, value


def sklearn_auc(y, s, offsets):
    out = []
    for a, b in zip(offsets[:-1], offsets[1:]):
        yy = y[a:b] > 0
        if 0 < yy.sum() < b - a:
            out.append(roc_auc_score(yy, s[a:b]))
    return float(np.mean(out))


def sklearn_mauc(y, s, offsets):
    out = []
    for a, b in zip(offsets[:-1], offsets[1:]):
        yy = y[a:b]
        rel = yy[yy > 0]
        if rel.size == 0 or np.unique(yy).size < 2:
            continue
        total = 0.0
        for c in np.unique(rel):
            total += (rel == c).mean() * roc_auc_score(yy == c, s[a:b])
        out.append(total)
    return float(np.mean(out))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--docs", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--json", default=str(Path(__file__).parent / "results" / "metrics.json"))
    args = ap.parse_args(argv)

    rng = np.random.default_rng(0)
    mean = args.docs // args.queries
    sizes = rng.integers(mean // 2, mean + mean // 2 + 1, size=args.queries)
    sizes = np.maximum(1, np.round(sizes * args.docs / sizes.sum()).astype(np.int64))
    sizes[np.argmax(sizes)] += args.docs - sizes.sum()  # exact total; the adjustment is a few rows
    n = int(sizes.sum())
    y = rng.choice([0, 1, 2], size=n, p=[0.7, 0.2, 0.1])
    s = rng.normal(size=n) + 0.5 * y
    qid = np.repeat(np.arange(args.queries), sizes)
    offsets = np.r_[0, np.cumsum(sizes)]
    print(f"{n} documents, {args.queries} queries")

    br.auc(y[:10], s[:10])  # compile / load the numba cache outside the timings
    br.mauc(y[:10], s[:10])
    br.ndcg(y[:10], s[:10], k=10)
    br.mean_average_precision(y[:10], s[:10])

    rows = []

    def row(name, ours, theirs, competitor, repeat_theirs=1):
        t_ours, v_ours = timed(ours)
        t_theirs, v_theirs = timed(theirs, repeat_theirs)
        rows.append({"metric": name, "competitor": competitor, "boostrank_s": t_ours,
                     "competitor_s": t_theirs, "speedup": t_theirs / t_ours,
                     "abs_diff": abs(v_ours - v_theirs), "value": v_ours})

    row("auc per query", lambda: br.auc(y, s, qid), lambda: sklearn_auc(y, s, offsets),
        "sklearn roc_auc_score loop")
    row("mauc", lambda: br.mauc(y, s, qid), lambda: sklearn_mauc(y, s, offsets),
        "sklearn roc_auc_score per class")

    try:
        import pytrec_eval
    except ImportError:  # pragma: no cover
        pytrec_eval = None
    if pytrec_eval is not None:
        docs = [f"d{i}" for i in range(n)]
        qrel, run = {}, {}
        for q, d, label, score in zip(qid.tolist(), docs, y.tolist(), s.tolist()):
            qrel.setdefault(str(q), {})[d] = label
            run.setdefault(str(q), {})[d] = score
        for measure, ours in (
            ("ndcg_cut_10", lambda: br.ndcg(y, s, qid, k=10, convention="trec")),
            ("map", lambda: br.mean_average_precision(y, s, qid, convention="trec")),
        ):
            evaluator = pytrec_eval.RelevanceEvaluator(qrel, {measure})

            def theirs(ev=evaluator, m=measure):
                res = ev.evaluate(run)
                return float(np.mean([v[m] for v in res.values()]))

            row(f"{measure} (trec)", ours, theirs, "pytrec_eval (dicts prebuilt)")

    print(f"{'metric':<20} {'competitor':<32} {'boostrank s':>12} {'competitor s':>13} "
          f"{'speed-up':>9} {'|diff|':>9}")
    for r in rows:
        print(f"{r['metric']:<20} {r['competitor']:<32} {r['boostrank_s']:>12.4f} "
              f"{r['competitor_s']:>13.3f} {r['speedup']:>8.1f}x {r['abs_diff']:>9.1e}")
    write_json(args.json, {"n_docs": n, "n_queries": args.queries, "rows": rows})


if __name__ == "__main__":
    main()
