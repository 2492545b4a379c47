"""Two-stage re-ranking with the defaults a new user gets (Rudin & Wang §2 and MQ2008).

1. MQ2008 (vali → train, test → test), BM25 (feature 25) as the first stage, top 20
   re-ranked: default ``TopKReranker(k=20)`` against logistic regression and
   LightGBM lambdarank fitted on the same top-20 rows; NDCG@10 and MAP of whole test
   lists (the tail keeps the base order).
2. MQ2008, LightGBM lambdarank as the first stage, top 10: ``TopKReranker(k=10,
   base_estimator=LambdaRanker(...))`` cross-fits the base scores; the base model
   refitted on all training queries scores the test lists.
3. Rudin & Wang Table 1 protocol: Gaussians, Haberman, Pima; 10 random 50/50
   splits; base = logistic regression on the training half (its training scores
   are cross-fitted); DCG of the whole list; paired t-test of re-ranked vs base.
4. 10 000 queries × top 10 of ``make_letor`` (100 000 rows): fit time and training
   statistic vs the base order.

Run:  python benchmarks/rerank.py [--quick]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import stats
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import boostrank as br

from _common import DATA, Logistic, load_haberman, load_pima, write_json

HERE = Path(__file__).resolve().parent


def keep_tail(base, offsets, k, top_scores_fn):
    """Scores: top k of each list by base, ordered by top_scores_fn; the rest in base order."""
    out = np.empty_like(base)
    rows = br.rerank.top_k_rows(base, offsets, k)
    s = top_scores_fn(rows)
    pos = 0
    for a, b in zip(offsets[:-1], offsets[1:]):
        kk = min(k, b - a)
        top = rows[pos:pos + kk]
        pos += kk
        order = a + np.argsort(-base[a:b], kind="stable")
        order = np.r_[top[np.argsort(-s[pos - kk:pos], kind="stable")], order[kk:]]
        out[order] = np.arange(b - a, 0, -1)
    return out


def metrics(y, s, qid):
    return {"ndcg@10": float(br.ndcg(y, s, qid, k=10)), "map": float(br.mean_average_precision(y, s, qid))}


def mq2008_bm25(time_limit):
    tr = br.load_letor(DATA / "mq2008" / "vali.txt", sparse=False)
    te = br.load_letor(DATA / "mq2008" / "test.txt", sparse=False, n_features=tr.n_features)
    k = 20
    b_tr, b_te = tr.X[:, 24], te.X[:, 24]
    off_tr = br.metrics.group_offsets(len(tr), qid=tr.qid)
    off_te = br.metrics.group_offsets(len(te), qid=te.qid)
    runs = {"BM25 (base)": b_te}
    rows = br.rerank.top_k_rows(b_tr, off_tr, k)
    lr = LogisticRegression(max_iter=2000).fit(tr.X[rows], tr.y[rows] > 0)
    runs["logistic regression, top 20"] = keep_tail(b_te, off_te, k, lambda r: lr.decision_function(te.X[r]))
    gbm = br.LambdaRanker(objective="lambdarank", n_estimators=200, learning_rate=0.05, num_leaves=15,
                          min_child_samples=5, random_state=0, n_jobs=2)
    gbm.fit(tr.X[rows], tr.y[rows], qid=tr.qid[rows])
    runs["LightGBM lambdarank, top 20"] = keep_tail(b_te, off_te, k, lambda r: gbm.predict(te.X[r]))
    t = time.perf_counter()
    rr = br.TopKReranker(k=k, time_limit=time_limit).fit(tr.X, tr.y, base_scores=b_tr, qid=tr.qid)
    secs = time.perf_counter() - t
    runs["TopKReranker(k=20) defaults"] = rr.predict(te.X, b_te, qid=te.qid)
    table = {name: metrics(te.y, s, te.qid) for name, s in runs.items()}
    print(f"\n1. MQ2008 BM25 → top 20 (fit {secs:.1f} s): {rr.result_.summary()}")
    print(f"{'run':<32}{'NDCG@10':>9}{'MAP':>8}")
    for name, row in table.items():
        print(f"{name:<32}{row['ndcg@10']:>9.4f}{row['map']:>8.4f}")
    return {"table": table, "seconds": secs, "result": rr.result_.summary()}


def mq2008_lambdarank(time_limit):
    tr = br.load_letor(DATA / "mq2008" / "vali.txt", sparse=False)
    te = br.load_letor(DATA / "mq2008" / "test.txt", sparse=False, n_features=tr.n_features)
    gbm = br.LambdaRanker(objective="lambdarank", n_estimators=200, learning_rate=0.05, num_leaves=15,
                          min_child_samples=5, random_state=0, n_jobs=2)
    t = time.perf_counter()
    rr = br.TopKReranker(k=10, base_estimator=gbm, time_limit=time_limit).fit(tr.X, tr.y, qid=tr.qid)
    secs = time.perf_counter() - t
    base = rr.base_estimator_.predict(te.X)
    table = {"LightGBM lambdarank (base)": metrics(te.y, base, te.qid),
             "TopKReranker(k=10, cross-fitted)": metrics(te.y, rr.predict(te.X, qid=te.qid), te.qid)}
    print(f"\n2. MQ2008 lambdarank → top 10 (fit {secs:.1f} s incl. 5 base fits): {rr.result_.summary()}")
    for name, row in table.items():
        print(f"{name:<34}{row['ndcg@10']:>9.4f}{row['map']:>8.4f}")
    gain = table["TopKReranker(k=10, cross-fitted)"]["ndcg@10"] - table["LightGBM lambdarank (base)"]["ndcg@10"]
    print(f"   NDCG@10 gain {gain:+.4f}")
    return {"table": table, "seconds": secs, "gain": gain, "result": rr.result_.summary()}


def gaussians(seed=0):
    X, y = br.datasets.make_gaussians(10, 300, 300, 20, random_state=seed)
    rng = np.random.default_rng(seed)
    return np.column_stack([X, rng.normal(size=(len(y), 2))]), y


def table1(splits, time_limit):
    print(f"\n3. Rudin & Wang Table 1 protocol: DCG of the whole list, {splits} splits, base LR (cross-fitted)")
    out = {}
    for name, (X, y) in (("gaussians", gaussians()), ("haberman", load_haberman()), ("pima", load_pima())):
        rng = np.random.default_rng(0)
        base_v, new_v, status = [], [], []
        for s in range(splits):
            perm = rng.permutation(len(y))
            tr, te = perm[: len(y) // 2], perm[len(y) // 2:]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                # one list: cross-fitting deals single rows into folds
                b_tr, _ = br.rerank.cross_fit_scores(make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
                                                     X[tr], y[tr], cv=5)
                lr = Logistic().fit(X[tr], y[tr])
                rr = br.TopKReranker(k=50, a="dcg", time_limit=time_limit).fit(X[tr], y[tr], group=[len(b_tr)], base_scores=b_tr)
            b_te = lr.decision_function(X[te])
            base_v.append(float(br.rank_risk(y[te], b_te, br.weights.dcg())))
            new_v.append(float(br.rank_risk(y[te], rr.predict(X[te], b_te), br.weights.dcg())))
            status.append(rr.result_.status)
        base_v, new_v = np.array(base_v), np.array(new_v)
        t = stats.ttest_rel(new_v, base_v) if splits > 1 else None
        p = float(t.pvalue) if t is not None and np.isfinite(t.pvalue) else float("nan")
        out[name] = {"base": base_v.tolist(), "reranked": new_v.tolist(), "p": p, "status": status}
        print(f"  {name:<10} base {base_v.mean():8.2f} ± {base_v.std():.2f}   re-ranked {new_v.mean():8.2f} ± "
              f"{new_v.std():.2f}   diff {np.mean(new_v - base_v):+.2f}  paired t p={p:.3g}  "
              f"re-ranked on {status.count('re-ranked')}/{splits}")
    return out


def scale(n_queries, time_limit):
    data = br.datasets.make_letor(n_queries, docs_per_query=(10, 30), random_state=0)
    X, y, qid = data.X, data.y, data.qid
    rng = np.random.default_rng(1)
    base = X[:, 0] + rng.normal(size=len(y))
    t = time.perf_counter()
    rr = br.TopKReranker(k=10, time_limit=time_limit).fit(X, y, base_scores=base, qid=qid)
    secs = time.perf_counter() - t
    r = rr.result_
    print(f"\n4. {n_queries} queries × top 10 of {len(y)} rows: fit {secs:.1f} s; training DCG@10 base "
          f"{r.train_base} → {r.train_reranked}; {r.status}")
    return {"seconds": secs, "train_base": r.train_base, "train_reranked": r.train_reranked, "status": r.status}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="2 splits, 1 000 queries in part 4")
    ap.add_argument("--json", default=str(HERE / "results" / "rerank.json"))
    args = ap.parse_args(argv)
    res = {"mq2008_bm25": mq2008_bm25(60.0), "mq2008_lambdarank": mq2008_lambdarank(60.0),
           "table1": table1(2 if args.quick else 10, 20.0),
           "scale": scale(1000 if args.quick else 10_000, 60.0)}
    write_json(args.json, res)


if __name__ == "__main__":
    main()
