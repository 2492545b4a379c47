"""One process against a 2-worker Dask cluster, at a size that needs it: λ-AUC and native lambdarank.

Data: a generated LETOR set (MSLR-WEB30K's shape scaled: lists of 50–150 documents,
grades 0–4 from a non-linear utility with noise), ``--rows`` rows (default 10⁷, 10⁵
queries) and ``--features`` float32 features.  On the cluster it is generated in
partitions on the workers (``dd.from_map``), never in the client; the single process
generates the same partitions itself.

For each of {one process (``LambdaRanker``, 2 threads), 2 workers × 1 thread
(``DaskLambdaRanker``)} × {λ-AUC, lambdarank}: time per boosting round (the difference of
a ``--rounds``-round and a ``--rounds``/3-round fit, so data loading and set-up cancel),
the peak resident memory of the process (the largest worker's on the cluster), and test
AUC / NDCG@10 of the longer fit on a held-out set of 10⁴ queries.  Every run is in a
fresh process, so peaks do not carry over.

(Not ``distributed.py``: run as a script, that name would shadow the ``distributed`` package.)

Run:  python benchmarks/distributed_training.py [--rows 10000000] [--rounds 30] [--quick] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import resource
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
GRADES = [0.8, 1.6, 2.4, 3.2]


def make_partition(i: int, queries: int, n_features: int, seed: int) -> pd.DataFrame:
    """Queries ``i·queries`` … of the set: whole queries, qid increasing, rows by query."""
    rng = np.random.default_rng([seed, i])
    sizes = rng.integers(50, 151, size=queries)
    n = int(sizes.sum())
    X = rng.normal(size=(n, n_features)).astype(np.float32)
    shift = np.repeat(rng.normal(scale=0.5, size=queries), sizes)  # query difficulty
    u = X[:, 0] + 0.7 * X[:, 1] * X[:, 2] + np.sin(2 * X[:, 3]) + 0.3 * X[:, 4] ** 2 + shift
    y = np.digitize(u + rng.normal(scale=0.8, size=n), GRADES)
    df = pd.DataFrame(X, columns=[f"f{j}" for j in range(n_features)])
    df["label"] = y.astype(np.int32)
    df["qid"] = np.repeat(np.arange(queries, dtype=np.int64) + i * queries, sizes)
    return df


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _metrics(y, s, qid):
    import boostrank as br

    return {"auc": float(br.auc(y, s, qid)), "ndcg@10": float(br.ndcg(y, s, qid, k=10))}


def _params(objective, rounds):
    return dict(objective=objective, n_estimators=rounds, learning_rate=0.1, num_leaves=31, random_state=0)


def run_single(cfg, objective, rounds, out):
    import boostrank as br

    parts = [make_partition(i, cfg["queries_per_part"], cfg["features"], cfg["seed"]) for i in range(cfg["parts"])]
    df = pd.concat(parts, ignore_index=True)
    del parts
    features = [c for c in df.columns if c.startswith("f")]
    t = time.perf_counter()
    model = br.LambdaRanker(n_jobs=2, **_params(objective, rounds)).fit(
        df[features], df["label"].to_numpy(), qid=df["qid"].to_numpy())
    seconds = time.perf_counter() - t
    test = make_partition(10_000, cfg["test_queries"], cfg["features"], cfg["seed"] + 1)
    out.put({"seconds": seconds, "peak_mb": _peak_mb(),
             **_metrics(test["label"].to_numpy(), model.predict(test[features]), test["qid"].to_numpy())})


def run_cluster(cfg, objective, rounds, out):
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    from boostrank.dask import DaskLambdaRanker

    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None,
                      memory_limit=None) as cluster, Client(cluster) as client:
        meta = make_partition(0, 1, cfg["features"], 0).iloc[:0]
        ddf = dd.from_map(make_partition, range(cfg["parts"]), queries=cfg["queries_per_part"],
                          n_features=cfg["features"], seed=cfg["seed"], meta=meta)
        features = [c for c in ddf.columns if c.startswith("f")]
        t = time.perf_counter()
        model = DaskLambdaRanker(**_params(objective, rounds)).fit(ddf[features], ddf["label"], qid=ddf["qid"])
        seconds = time.perf_counter() - t
        peaks = client.run(_peak_mb)
        test = make_partition(10_000, cfg["test_queries"], cfg["features"], cfg["seed"] + 1)
        out.put({"seconds": seconds, "peak_mb": max(peaks.values()), "client_peak_mb": _peak_mb(),
                 **_metrics(test["label"].to_numpy(), model.predict(test[features]), test["qid"].to_numpy())})


def measure(where, cfg, objective, rounds):
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    proc = ctx.Process(target=run_single if where == "one process" else run_cluster,
                       args=(cfg, objective, rounds, out))
    proc.start()
    try:
        return out.get(timeout=3600)
    except Exception:
        raise RuntimeError(f"the {where} run ended without a result (exit code {proc.exitcode})") from None
    finally:
        proc.join()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--features", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--parts", type=int, default=20)
    ap.add_argument("--quick", action="store_true", help="10^6 rows, 12 rounds")
    ap.add_argument("--json", default=str(HERE / "results" / "distributed_training.json"))
    args = ap.parse_args()
    rows, rounds = (1_000_000, 12) if args.quick else (args.rows, args.rounds)
    queries = rows // 100
    cfg = {"parts": args.parts, "queries_per_part": queries // args.parts, "features": args.features,
           "seed": 7, "test_queries": 10_000}
    short = max(1, rounds // 3)
    print(f"{queries * 100:,} rows (about), {queries:,} queries, {args.features} features, lists of 50-150; "
          f"{args.parts} partitions; time per round = (fit({rounds}) - fit({short})) / {rounds - short}")
    rows_out = []
    for where in ("one process", "2 workers x 1 thread"):
        for objective in ("lambdarank", "auc"):
            a = measure(where, cfg, objective, short)
            b = measure(where, cfg, objective, rounds)
            per_round = (b["seconds"] - a["seconds"]) / (rounds - short)
            row = {"where": where, "objective": "λ-AUC" if objective == "auc" else objective,
                   "s_per_round": per_round, "fit_s": b["seconds"], "peak_mb": max(a["peak_mb"], b["peak_mb"]),
                   "test_auc": b["auc"], "test_ndcg@10": b["ndcg@10"], "client_peak_mb": b.get("client_peak_mb")}
            rows_out.append(row)
            print(f"  {where:<22} {row['objective']:<11} {per_round:7.3f} s/round  fit {b['seconds']:7.1f} s  "
                  f"peak {row['peak_mb']:8.0f} MB  test AUC {b['auc']:.4f}  NDCG@10 {b['ndcg@10']:.4f}", flush=True)
    by = {(r["where"], r["objective"]): r for r in rows_out}
    print(f"\n{'':<24}{'s/round':>9}{'÷ lambdarank':>14}{'peak MB':>10}{'test AUC':>10}{'NDCG@10':>9}")
    for (where, objective), r in by.items():
        ratio = r["s_per_round"] / by[(where, "lambdarank")]["s_per_round"]
        print(f"{where[:12] + ' ' + objective:<24}{r['s_per_round']:>9.3f}{ratio:>13.2f}x{r['peak_mb']:>10.0f}"
              f"{r['test_auc']:>10.4f}{r['test_ndcg@10']:>9.4f}")
    single = by[("one process", "λ-AUC")]["peak_mb"]
    print(f"\nper-worker peak ÷ (one-process peak / 2): "
          f"{by[('2 workers x 1 thread', 'λ-AUC')]['peak_mb'] / (single / 2):.2f}")
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps({"config": cfg, "rounds": rounds, "rows": rows_out}, indent=2))
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
