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
5. The time limit: BM25's top 20 with ``time_limit`` 5 and 15 s, the seconds taken against it.
6. Fusion with a linear model: CombSUM of LightGBM lambdarank and a logistic regression against the base alone,
   5-fold CV over MQ2008's vali + test queries.

Parts 1 and 2 fit each re-ranker twice with the defaults (same weights? ``repeatable``?), with the MIP
(``max_nodes=10000``), with ``objective="auc"`` and (part 2) with the gate on the fitted statistic.

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


def fitted(label, make, fit, te, base_te, runs, report):
    """One TopKReranker fit: its test scores in ``runs``, its time, repeatability and decision in ``report``."""
    t = time.perf_counter()
    rr = fit(make())
    secs = time.perf_counter() - t
    runs[label] = rr.predict(te.X, base_te, qid=te.qid)
    report[label] = {"seconds": secs, "repeatable": bool(rr.result_.repeatable[0]), "status": rr.result_.status,
                     "gate_time_limited": bool(rr.result_.gate_time_limited), "result": rr.result_.summary(),
                     "coef": rr.coef_.tolist()}
    return rr


def print_table(title, table, report):
    print(title)
    print(f"{'run':<44}{'NDCG@10':>9}{'MAP':>8}{'s':>7}  repeatable  decision")
    for name, row in table.items():
        r = report.get(name)
        extra = "" if r is None else f"{r['seconds']:>7.1f}  {str(r['repeatable']):<10}  {r['status']}"
        print(f"{name:<44}{row['ndcg@10']:>9.4f}{row['map']:>8.4f}{extra}")


def mq2008_bm25(time_limit):
    """A weak first stage: BM25's top 20, re-ranked by the defaults, with the MIP, and by two cheap models."""
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
    report = {}
    for label, kw in (("TopKReranker(k=20) defaults", {}), ("TopKReranker(k=20) defaults, again", {}),
                      ("TopKReranker(k=20, max_nodes=10000): the MIP", {"max_nodes": 10_000}),
                      ("TopKReranker(k=20, objective='auc')", {"objective": "auc"})):
        fitted(label, lambda: br.TopKReranker(k=k, time_limit=time_limit, **kw),
               lambda rr: rr.fit(tr.X, tr.y, base_scores=b_tr, qid=tr.qid), te, b_te, runs, report)
    table = {name: metrics(te.y, s, te.qid) for name, s in runs.items()}
    print_table("\n1. MQ2008 BM25 → top 20", table, report)
    same = report["TopKReranker(k=20) defaults"]["coef"] == report["TopKReranker(k=20) defaults, again"]["coef"]
    print(f"   two default fits give the same weights: {same}")
    return {"table": table, "fits": report, "same_weights": same}


def mq2008_lambdarank(time_limit):
    """A boosted first stage: LightGBM lambdarank cross-fitted, its top 10 re-ranked."""
    tr = br.load_letor(DATA / "mq2008" / "vali.txt", sparse=False)
    te = br.load_letor(DATA / "mq2008" / "test.txt", sparse=False, n_features=tr.n_features)
    gbm = br.LambdaRanker(objective="lambdarank", n_estimators=200, learning_rate=0.05, num_leaves=15,
                          min_child_samples=5, random_state=0, n_jobs=2)
    base = br.LambdaRanker(**gbm.get_params()).fit(tr.X, tr.y, qid=tr.qid).predict(te.X)
    runs, report = {"LightGBM lambdarank (base)": base}, {}
    for label, kw in (("TopKReranker(k=10) defaults", {}), ("TopKReranker(k=10) defaults, again", {}),
                      ("TopKReranker(k=10, max_nodes=10000): the MIP", {"max_nodes": 10_000}),
                      ("TopKReranker(k=10, objective='auc')", {"objective": "auc"}),
                      ("TopKReranker(k=10, gate_metric='fit')", {"gate_metric": "fit"})):
        fitted(label, lambda: br.TopKReranker(k=10, base_estimator=gbm, time_limit=time_limit, **kw),
               lambda rr: rr.fit(tr.X, tr.y, qid=tr.qid), te, base, runs, report)
    table = {name: metrics(te.y, s, te.qid) for name, s in runs.items()}
    print_table("\n2. MQ2008 lambdarank → top 10 (each fit: 5 cross-fitted base fits and the refit)", table, report)
    gain = table["TopKReranker(k=10) defaults"]["ndcg@10"] - table["LightGBM lambdarank (base)"]["ndcg@10"]
    same = report["TopKReranker(k=10) defaults"]["coef"] == report["TopKReranker(k=10) defaults, again"]["coef"]
    print(f"   NDCG@10 gain of the defaults {gain:+.4f}; two default fits give the same weights: {same}")
    return {"table": table, "fits": report, "gain": gain, "same_weights": same}


def time_limit_row():
    """What the clock promises: a limit shorter than the work (BM25's top 20 of MQ2008, 5 s) ends the fit near it,
    and the result says it is not repeatable (no unit test asserts seconds: a busy machine must not fail it)."""
    tr = br.load_letor(DATA / "mq2008" / "vali.txt", sparse=False)
    out = {}
    for limit in (5.0, 15.0):
        t = time.perf_counter()
        rr = br.TopKReranker(k=20, time_limit=limit).fit(tr.X, tr.y, base_scores=tr.X[:, 24], qid=tr.qid)
        secs = time.perf_counter() - t
        out[str(limit)] = {"seconds": secs, "repeatable": bool(rr.result_.repeatable[0])}
        print(f"   time_limit={limit:g} s: the fit took {secs:.1f} s ({secs / limit:.2f}× the limit), "
              f"repeatable {rr.result_.repeatable[0]}")
    return out


def fusion_with_a_linear_model(folds=5, seed=0):
    """The cheap second stage on a boosted first one: CombSUM (min-max per list) of LightGBM lambdarank's scores and
    a logistic regression's, against the base alone; 5-fold CV over MQ2008's vali + test queries, paired per query."""
    from sklearn.model_selection import GroupKFold

    va = br.load_letor(DATA / "mq2008" / "vali.txt", sparse=False)
    te = br.load_letor(DATA / "mq2008" / "test.txt", sparse=False, n_features=va.n_features)
    X, y, qid = np.vstack([va.X, te.X]), np.r_[va.y, te.y], np.r_[va.qid, te.qid]
    deltas = {"ndcg@10": [], "auc": []}
    for tr, ts in GroupKFold(folds).split(X, y, qid):
        gbm = br.LambdaRanker(objective="lambdarank", random_state=seed).fit(X[tr], y[tr], qid=qid[tr])
        lr = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)).fit(X[tr], y[tr] > 0)
        base, lin = gbm.predict(X[ts]), lr.decision_function(X[ts])
        fused = _minmax(base, qid[ts]) + _minmax(lin, qid[ts])
        for metric in deltas:
            fn = (lambda yy, ss, qq: br.ndcg(yy, ss, qq, k=10, per_query=True)) if metric == "ndcg@10" else \
                (lambda yy, ss, qq: br.auc(yy, ss, qq, per_query=True))
            d = np.asarray(fn(y[ts], fused, qid[ts])) - np.asarray(fn(y[ts], base, qid[ts]))
            deltas[metric].extend(d[~np.isnan(d)].tolist())
    out = {}
    for metric, d in deltas.items():
        d = np.asarray(d)
        p = float(stats.ttest_1samp(d, 0.0).pvalue)
        out[metric] = {"diff": float(d.mean()), "se": float(d.std(ddof=1) / np.sqrt(d.size)), "p": p, "n": int(d.size)}
        print(f"   CombSUM(base, LR) − base, {metric}: {d.mean():+.4f} ± {out[metric]['se']:.4f} (paired t p = {p:.2g}, "
              f"{d.size} queries)")
    return out


def _minmax(s, qid):
    out = np.empty_like(s, dtype=np.float64)
    for q in np.unique(qid):
        m = qid == q
        lo, hi = s[m].min(), s[m].max()
        out[m] = (s[m] - lo) / (hi - lo) if hi > lo else 1.0
    return out


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


#: the first stages of the calibration row: (name, how the base is given)
FIRST_STAGES = ("one feature", "logistic regression", "LambdaRanker lambdarank", "LambdaRanker λ-AUC")


def _calibration_sets():
    from clicks import MQ2008_BM25, weak_feature
    from objective_quality import load_mq2008, make_calibrated

    return {"mq2008": (load_mq2008, lambda X, y, off: MQ2008_BM25),
            "cal-ambiguous": (lambda: make_calibrated("ambiguous", 21), weak_feature),
            "cal-many-relevant": (lambda: make_calibrated("many-relevant", 22), weak_feature)}


def _first_stage(name, X_tr, j):
    """(base_estimator, base_scores) of a first stage: one feature is given as scores, models are cross-fitted."""
    if name == "one feature":
        return None, X_tr[:, j]
    if name == "logistic regression":
        return make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)), None
    return br.LambdaRanker(objective="lambdarank" if "lambdarank" in name else "auc"), None


def calibration_job(set_name, split, stage, time_limit=60.0):
    """One split × first stage: the gate's predicted NDCG@10 gain (per list, its mean) beside the test gain."""
    load, feature = _calibration_sets()[set_name]
    X, y, sizes = load()
    qid = np.repeat(np.arange(sizes.size), sizes)
    rng = np.random.default_rng(1000 + split)
    test_q = rng.permutation(sizes.size)[: sizes.size // 2]
    te = np.isin(qid, test_q)
    tr = ~te
    off_tr = br.metrics.group_offsets(int(tr.sum()), qid=qid[tr])
    j = feature(X[tr], y[tr], off_tr)
    est, b_tr = _first_stage(stage, X[tr], j)
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rr = br.TopKReranker(k=10, base_estimator=est, time_limit=time_limit).fit(X[tr], y[tr], qid=qid[tr],
                                                                                  base_scores=b_tr)
    secs = time.perf_counter() - t
    b_te = X[te][:, j] if est is None else br.rerank.crossfit.score_base(rr.base_estimator_, X[te])
    new = rr.predict(X[te], b_te, qid=qid[te])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = (np.nan_to_num(np.asarray(br.ndcg(y[te], new, qid[te], k=10, per_query=True)))
             - np.nan_to_num(np.asarray(br.ndcg(y[te], b_te, qid[te], k=10, per_query=True))))
    r = rr.result_
    n_lists = sizes.size - test_q.size
    best = (r.model, r.k, r.l0)
    best_own = r.heldout_gain.get(best, 0.0) / n_lists if r.heldout_gain else 0.0  # the winner's own mean
    estimate = getattr(r, "gate_gain", None)
    if estimate is None:  # before the gate reported its estimate: the best candidate's own mean
        estimate = best_own
    kept = r.status == "re-ranked"
    p = float(stats.ttest_1samp(d, 0.0).pvalue) if d.std() > 0 else 1.0
    return {"set": set_name, "split": split, "stage": stage, "kept": kept, "estimate": float(estimate),
            "se": getattr(r, "gate_se", None),
            "best_own": float(best_own), "against": getattr(r, "gate_against", ""),
            "predicted": float(estimate) if kept else 0.0, "test_gain": float(d.mean()),
            "test_se": float(d.std(ddof=1) / np.sqrt(d.size)), "test_p": p,
            "lost": bool(kept and d.mean() < 0 and p < 0.05), "seconds": secs,
            "repeatable": bool(r.repeatable[0]), "summary": r.summary()}


def calibration(sets, splits, jobs=1):
    """The gate's promise against the test: over random halves of each set's queries (train / test), for each first
    stage, the gate's predicted NDCG@10 gain of what it kept (0 when it kept the base order) minus the test gain."""
    from joblib import Parallel, delayed

    print(f"\n7. the gate's predicted gain against the test gain ({splits} random query halves, top 10, defaults)")
    jobs_list = [(s, i, st) for s in sets for i in range(splits) for st in FIRST_STAGES]
    from tqdm.auto import tqdm

    rows = list(tqdm(Parallel(n_jobs=jobs, return_as="generator")(delayed(calibration_job)(*a) for a in jobs_list),
                     total=len(jobs_list), desc="gate calibration"))
    out = {"rows": rows, "summary": {}}
    print(f"{'set':<18}{'first stage':<26}{'kept':>6}{'lost':>6}{'predicted':>11}{'test':>9}"
          f"{'pred − test':>13}{'± se':>8}{'s/fit':>7}")
    for s in sets:
        for st in FIRST_STAGES:
            part = [r for r in rows if r["set"] == s and r["stage"] == st]
            diff = np.array([r["predicted"] - r["test_gain"] for r in part])
            test = np.array([r["test_gain"] for r in part])
            kept_test = np.array([r["test_gain"] for r in part if r["kept"]])
            se = float(diff.std(ddof=1) / np.sqrt(diff.size)) if diff.size > 1 else float("nan")
            row = {"kept": sum(r["kept"] for r in part), "lost": sum(r["lost"] for r in part), "splits": len(part),
                   "predicted": float(np.mean([r["predicted"] for r in part])), "test_gain": float(test.mean()),
                   "kept_test_gain": float(kept_test.mean()) if kept_test.size else None,
                   "diff": float(diff.mean()), "se": se, "calibrated": bool(abs(diff.mean()) <= se) if se == se
                   else None, "seconds": float(np.mean([r["seconds"] for r in part]))}
            out["summary"][f"{s}|{st}"] = row
            print(f"{s:<18}{st:<26}{row['kept']:>4}/{row['splits']:<2}{row['lost']:>4}{row['predicted']:>+11.4f}"
                  f"{row['test_gain']:>+9.4f}{row['diff']:>+13.4f}{se:>8.4f}{row['seconds']:>7.1f}")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="2 splits, 1 000 queries in part 4")
    ap.add_argument("--json", default=str(HERE / "results" / "rerank.json"))
    ap.add_argument("--calibration", action="store_true", help="only part 7, the gate against the test")
    ap.add_argument("--sets", default="mq2008,cal-ambiguous,cal-many-relevant", help="part 7's sets")
    ap.add_argument("--splits", type=int, default=10, help="part 7's random halves")
    ap.add_argument("--jobs", type=int, default=1, help="part 7's fits in parallel")
    args = ap.parse_args(argv)
    if args.calibration:
        write_json(args.json if args.json != ap.get_default("json") else str(HERE / "results" / "rerank_gate.json"),
                   calibration(args.sets.split(","), args.splits, args.jobs))
        return
    res = {"mq2008_bm25": mq2008_bm25(60.0), "mq2008_lambdarank": mq2008_lambdarank(60.0)}
    print("\n5. time limit")
    res["time_limit"] = time_limit_row()
    print("\n6. fusion with a linear model on a boosted first stage (5-fold CV, MQ2008 vali + test)")
    res["fusion"] = fusion_with_a_linear_model()
    res["table1"] = table1(2 if args.quick else 10, 20.0)
    res["scale"] = scale(1000 if args.quick else 10_000, 60.0)
    res["calibration"] = calibration(["mq2008"], 2 if args.quick else 10)
    write_json(args.json, res)


if __name__ == "__main__":
    main()
