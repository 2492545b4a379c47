"""Reproduce the papers' tables on the data available and write benchmarks/REPORT.md.

Sections (each table beside the paper's numbers where the paper has the dataset):

* thesis Tables 2.4–2.7 — AUC of RankBoost, logistic regression, the pairwise hinge
  ranker (SVM), the LP relaxation and the MIP on ROC flexibility, Haberman and Pima;
* thesis Tables 2.8–2.12 — DCG over the top N (30% ROC flexibility, 10% Haberman and
  Pima) with minimum ranks and with ranks: RB, P-Norm Push p = 2/4/8, LR, SVM, LP,
  MIP; wins; time to the final solution (with the cap) and the MIP incumbent/bound
  over time (thesis Fig. 2-6);
* Rudin & Wang — the Gaussians theorem and Table 1 (``benchmarks/rerank.py``);
* Welleck Tables 1–3 and Figure 2 — MAUC, MAP, per-class AUC and micro/macro
  Precision@1–10 on MQ2008 (``benchmarks/objectives.py`` plus the curves here);
* Raykar Tables 3–4 and Figure 2 (``benchmarks/rankncg.py``, ``benchmarks/erfc_sum.py``).

Means ± standard deviations over random splits; in each table the method with the
best mean test value is compared with each other by a matched-pairs t-test and
marked † where its lead is significant (p < 0.05).  PNG figures go next to REPORT.md.

Run:  python benchmarks/reproduce.py --quick      (under 10 minutes on 2 cores; 3.8 min measured)
      python benchmarks/reproduce.py --quick --data my.csv other.svm   (extra datasets)
      python benchmarks/reproduce.py              (10 splits, long MIP caps: about 3 hours)
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import stats
from tqdm.auto import tqdm

import boostrank as br

import baselines
from _common import Logistic, load_haberman, load_pima, pyplot, save_figure

HERE = Path(__file__).resolve().parent
FIG = HERE / "figures"
THESIS_AUC_ROCFLEX = {"RB": (71.10, 65.90), "LR": (72.09, 67.46), "SVM": (71.18, 67.78), "LP": (70.63, 67.18),
                      "MIP": (80.62, 81.77)}
THESIS_RRF_MIN = {  # Table 2.8: (train, test) per method
    "roc_flexibility": {"RB": (7.58, 6.91), "P2": (7.95, 7.34), "P4": (8.33, 7.83), "P8": (9.37, 8.14),
                        "LR": (8.20, 7.65), "SVM": (8.13, 7.11), "LP": (6.79, 6.89), "MIP": (11.71, 12.05)},
    "haberman": {"RB": (5.11, 4.76), "P2": (5.19, 4.72), "P4": (5.18, 4.70), "P8": (5.25, 4.75),
                 "LR": (5.04, 4.79), "SVM": (5.04, 4.79), "LP": (4.90, 4.87), "MIP": (5.81, 5.17)},
    "pima": {"RB": (7.16, 10.70), "P2": (7.34, 10.70), "P4": (7.42, 10.75), "P8": (7.53, 10.69),
             "LR": (7.17, 10.76), "SVM": (6.87, 10.71), "LP": (6.79, 10.39), "MIP": (7.58, 10.10)},
}


EXTRA = []  # (name, path) from --data


def load_user(path):
    """A user's dataset: LETOR/SVMlight (.txt, .svm, .svmlight) or CSV with the label last; y > 0 positive."""
    path = Path(path)
    if path.suffix in (".txt", ".svm", ".svmlight"):
        d = br.load_letor(path) if "qid:" in path.read_text(errors="replace")[:10000] else None
        if d is not None:
            return np.asarray(d.X), (d.y > 0).astype(np.int64)
        from sklearn.datasets import load_svmlight_file

        X, y = load_svmlight_file(str(path))
        return X.toarray(), (y > 0).astype(np.int64)
    A = np.loadtxt(path, delimiter=",")
    return A[:, :-1], (A[:, -1] > 0).astype(np.int64)


def datasets(quick=False):
    for name, path in EXTRA:
        X, y = load_user(path)
        yield name, X, y, 0.1
    X, y = br.datasets.make_roc_flexibility(500, random_state=0)
    yield "roc_flexibility", X, y, 0.3
    X, y = load_haberman()
    yield "haberman", X, y, 0.1
    X, y = load_pima()
    if quick:  # 400 of the 768 rows keep the quick run under 10 minutes
        keep = np.random.default_rng(0).choice(len(y), 400, replace=False)
        X, y = X[keep], y[keep]
    yield "pima", X, y, 0.1


def make_methods(kind, cap, top):
    a = br.weights.dcg_at(top)
    mip_kw = dict(objective="auc") if kind == "auc" else dict(objective="rank_risk", a=a)
    methods = {
        "RB": lambda: baselines.RankBoost(n_estimators=50),
        "LR": Logistic,
        "SVM": lambda: baselines.PairwiseHinge(C=10.0),
        "LP": lambda: br.MIPRanker(relax=True, **mip_kw),
        "MIP": lambda: br.MIPRanker(time_limit=cap, solver="cbc", n_jobs=2, **mip_kw),  # CBC logs a trace
    }
    if kind == "rrf":
        methods = {"RB": methods["RB"], **{f"P{p}": (lambda p=p: baselines.PNormPush(p=p)) for p in (2, 4, 8)},
                   **{k: v for k, v in methods.items() if k != "RB"}}
    return methods


def run_thesis(kind, splits, cap, bar, quick=False):
    out = {}
    for name, X, y, top in datasets(quick):
        scorers = ({"auc": lambda yy, s: 100 * br.auc(yy, s, ties="pessimistic")} if kind == "auc" else
                   {"min": lambda yy, s, t=top: br.rank_risk(yy, s, br.weights.dcg_at(t)),
                    "rank": lambda yy, s, t=top: br.rank_risk(yy, s, br.weights.dcg_at(t), rank="resolved")})
        methods = make_methods(kind, cap, top)
        res = {m: {sc: {"train": [], "test": []} for sc in scorers} | {"time": [], "trace": []} for m in methods}
        rng = np.random.default_rng(0)
        n_splits = 1 if quick and name == "pima" and kind == "rrf" else splits
        for _ in range(n_splits):
            perm = rng.permutation(len(y))
            tr, te = perm[: len(y) // 2], perm[len(y) // 2:]
            for m, make in methods.items():
                t = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = make().fit(X[tr], y[tr])
                res[m]["time"].append(time.perf_counter() - t)
                if m == "MIP":
                    res[m]["trace"].append(model.result_.trace)
                for sc, fn in scorers.items():
                    res[m][sc]["train"].append(float(fn(y[tr], model.decision_function(X[tr]))))
                    res[m][sc]["test"].append(float(fn(y[te], model.decision_function(X[te]))))
                bar.update(1)
        out[name] = res
    return out


def _sig_marks(res, key):
    means = {m: np.mean(v[key]["test"]) for m, v in res.items()}
    best = max(means, key=means.get)
    marks = {}
    for m, v in res.items():
        if m == best or len(v[key]["test"]) < 2:
            continue
        p = stats.ttest_rel(res[best][key]["test"], v[key]["test"]).pvalue
        marks[m] = bool(p < 0.05)
    return best, marks


def table(res, key, paper=None):
    best, marks = _sig_marks(res, key)
    lines = ["| method | train | test | test wins | fit s | paper train / test |", "|---|---|---|---|---|---|"]
    tests = np.array([res[m][key]["test"] for m in res])
    wins = (tests >= tests.max(axis=0) - 1e-12).sum(axis=1)
    for (m, v), w in zip(res.items(), wins):
        tr, te = v[key]["train"], v[key]["test"]
        ref = paper.get(m) if paper else None
        lines.append(f"| {m}{' (best)' if m == best else ''} | {np.mean(tr):.3f} ± {np.std(tr):.3f} | "
                     f"{np.mean(te):.3f} ± {np.std(te):.3f}{' †' if marks.get(m) else ''} | {w} | "
                     f"{np.mean(v['time']):.2f} | {'' if ref is None else f'{ref[0]:.2f} / {ref[1]:.2f}'} |")
    return "\n".join(lines)


def plot_traces(rrf, path):
    plt = pyplot()

    fig, ax = plt.subplots(1, 3, figsize=(13, 3.6))
    for a, (name, res) in zip(ax, rrf.items()):
        for k, tr in enumerate(res["MIP"]["trace"]):
            if not tr:
                continue
            t = [p[0] for p in tr]
            # markers: a quick run often logs a single incumbent, which a bare step line hides
            a.plot(t, [p[1] if p[1] is not None else np.nan for p in tr], drawstyle="steps-post",
                   color=f"C{k}", marker="o", ms=3)
            a.plot(t, [p[2] if p[2] is not None else np.nan for p in tr], drawstyle="steps-post",
                   color=f"C{k}", ls=":", marker="^", ms=3)
        a.set(title=f"{name}: incumbent (—) and bound (⋯)", xlabel="seconds", ylabel="DCG (min ranks)")
    save_figure(fig, path, dpi=110)


def plot_roc(path, cap):
    plt = pyplot()
    from sklearn.metrics import roc_curve

    X, y = br.datasets.make_roc_flexibility(500, random_state=0)
    tr, te = np.arange(250), np.arange(250, 500)
    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        models = {"LR": Logistic().fit(X[tr], y[tr]), "RB": baselines.RankBoost(50).fit(X[tr], y[tr]),
                  "MIP": br.MIPRanker(time_limit=cap, n_jobs=2).fit(X[tr], y[tr])}
    for name, m in models.items():
        fpr, tpr, _ = roc_curve(y[te], m.decision_function(X[te]))
        ax.plot(fpr, tpr, label=f"{name} (AUC {br.auc(y[te], m.decision_function(X[te])):.3f})")
    ax.plot([0, 1], [0, 1], "k:", lw=0.8)
    ax.set(xlabel="false positive rate", ylabel="true positive rate", title="ROC flexibility, test")
    ax.legend()
    save_figure(fig, path, dpi=110)


def _pairs(X, y, qid, keep):
    """Differences x_i − x_j of the pairs of one query with y_i > y_j that ``keep(y_i, y_j)`` admits, and +1/−1
    labels (each pair both ways, so a linear SVM without intercept sees both classes)."""
    diffs = []
    for q in np.unique(qid):
        rows = np.flatnonzero(qid == q)
        for i in rows:
            for j in rows:
                if y[i] > y[j] and keep(y[i], y[j]):
                    diffs.append(X[i] - X[j])
    d = np.asarray(diffs)
    return np.vstack([d, -d]), np.r_[np.ones(len(d)), -np.ones(len(d))]


def linear_baselines(vali, test):
    """The linear AUC baselines of Welleck's MQ2008 tables, fitted on vali with their library defaults (standardised
    features): logistic regression on y > 0, RankNCG, a pairwise linear SVM (RankSVM: every pair of differing
    grades) and a ROC-area SVM per class (for each relevant grade c, a pairwise SVM on c against the grades below;
    the scores summed)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    scaler = StandardScaler().fit(vali.X)
    Xv, Xt = scaler.transform(vali.X), scaler.transform(test.X)
    out = {"logistic regression": LogisticRegression(max_iter=2000).fit(Xv, vali.y > 0).decision_function(Xt),
           "RankNCG": br.RankNCG().fit(Xv, vali.y, qid=vali.qid).predict(Xt)}
    P, z = _pairs(Xv, vali.y, vali.qid, lambda a, b: True)
    svm = LinearSVC(fit_intercept=False, max_iter=20_000).fit(P, z)
    out["pairwise linear SVM"] = Xt @ svm.coef_.ravel()
    per_class = np.zeros(len(test.y))
    for c in (1, 2):
        P, z = _pairs(Xv, vali.y, vali.qid, lambda a, b, c=c: a == c and b < c)
        per_class += Xt @ LinearSVC(fit_intercept=False, max_iter=20_000).fit(P, z).coef_.ravel()
    out["ROC-area SVM per class"] = per_class
    return out


def welleck_precision(quick, path):
    """Per-class AUC (Welleck Table 2), micro/macro P@k (Table 3, Figure 2) on MQ2008 vali→test."""
    plt = pyplot()

    data = HERE.parent.parent / "shared" / "data" / "mq2008"
    if not data.exists():
        return None
    vali = br.load_letor(data / "vali.txt")
    test = br.load_letor(data / "test.txt", n_features=vali.n_features)
    rounds = 50 if quick else 300
    out = {}
    scores = {}
    for name, obj in (("LambdaMART λ-MAUC", "mauc"), ("LambdaMART λ-AUC", "auc"), ("LightGBM lambdarank", "lambdarank")):
        m = br.LambdaRanker(objective=obj, n_estimators=rounds, learning_rate=0.05, num_leaves=31, random_state=0)
        scores[name] = m.fit(vali.X, vali.y, qid=vali.qid).predict(test.X)
    scores.update(linear_baselines(vali, test))
    for name, s in scores.items():
        per_class = {c: float(br.auc((test.y == c).astype(int), s, test.qid)) for c in (1, 2)}
        out[name] = {"per_class_auc": per_class, "mauc": float(br.mauc(test.y, s, test.qid)),
                     "map": float(br.mean_average_precision(test.y, s, test.qid)),
                     "micro": [float(br.precision_at(test.y, s, test.qid, k=k, average="micro")) for k in range(1, 11)],
                     "macro": [float(br.precision_at(test.y, s, test.qid, k=k, average="macro")) for k in range(1, 11)]}
    fig, ax = plt.subplots(1, 2, figsize=(10, 3.8))
    for name, r in out.items():
        ax[0].plot(range(1, 11), r["micro"], "-o", label=name)
        ax[1].plot(range(1, 11), r["macro"], "-o", label=name)
    ax[0].set(title="micro Precision@k (MQ2008 test)", xlabel="k")
    ax[1].set(title="macro Precision@k", xlabel="k")
    ax[0].legend(fontsize=8)
    save_figure(fig, path, dpi=110)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--splits", type=int, default=10)
    ap.add_argument("--cap", type=float, default=600.0, help="MIP time cap (s)")
    ap.add_argument("--report", default=str(HERE / "REPORT.md"))
    ap.add_argument("--data", nargs="*", default=[],
                    help="further datasets for the thesis tables: LETOR/SVMlight or CSV (label last, > 0 positive)")
    args = ap.parse_args(argv)
    EXTRA[:] = [(Path(p).stem, p) for p in args.data]
    if args.quick:
        args.splits, args.cap = 2, 8.0
    FIG.mkdir(exist_ok=True)
    n_sets = 3 + len(EXTRA)
    n_fits = 5 * n_sets * args.splits + 8 * ((n_sets - 1) * args.splits + (1 if args.quick else args.splits))
    est = (10 if args.quick else 2 * 3 * args.splits * args.cap / 60 + 60)
    print(f"reproduce.py: about {est:.0f} minutes ({'quick' if args.quick else 'full'} run)", flush=True)
    t0 = time.time()
    with tqdm(total=n_fits, desc="thesis tables", unit="fit") as bar:
        auc_res = run_thesis("auc", args.splits, args.cap, bar, args.quick)
        rrf_res = run_thesis("rrf", args.splits, args.cap, bar, args.quick)
    plot_traces(rrf_res, FIG / "mip_incumbent_bound.png")
    plot_roc(FIG / "roc_flexibility_roc.png", args.cap)

    import erfc_sum
    import objectives
    import rankncg
    import rerank

    q = ["--quick"] if args.quick else []
    res_dir = HERE / "results"
    print("objectives (Welleck Table 1)...", flush=True)
    objectives.main(q + ["--json", str(res_dir / "objectives.json")])
    welleck = welleck_precision(args.quick, FIG / "precision_at_k.png")
    print("rankncg (Raykar Tables 3-4)...", flush=True)
    rankncg.main(q + ["--json", str(res_dir / "rankncg.json")])
    print("erfc_sum (Raykar Figure 2)...", flush=True)
    erfc_sum.main(q + ["--json", str(res_dir / "erfc_sum.json"), "--png", str(FIG / "erfc_sum_figure2.png")])
    print("rerank (Rudin & Wang Table 1)...", flush=True)
    rerank.main((["--quick"] if args.quick else []) + ["--json", str(res_dir / "rerank.json")])

    write_report(args, auc_res, rrf_res, welleck, res_dir, time.time() - t0)
    print(f"wrote {args.report} in {(time.time() - t0) / 60:.1f} min")


def write_report(args, auc_res, rrf_res, welleck, res_dir, secs):
    L = [f"# Reproduction report ({'quick' if args.quick else 'full'} run, {secs / 60:.1f} min)", "",
         f"Splits: {args.splits} random 50/50 (quick run: Pima subsampled to 400 rows, 1 split for its RRF); MIP time cap {args.cap:g} s, "
         "warm-started from logistic regression; † = the best method's lead over this one is significant "
         "(matched-pairs t-test, p < 0.05; needs ≥ 2 splits).  ROC flexibility is boostrank's generator "
         "(the thesis's file is not available), so compare patterns, not values.", ""]
    L += ["## Thesis Tables 2.4–2.7: AUC (%, ties count as misranks)", ""]
    for name, res in auc_res.items():
        L += [f"### {name}", "", table(res, "auc", THESIS_AUC_ROCFLEX if name == "roc_flexibility" else None), ""]
    L += ["## Thesis Tables 2.8–2.12: DCG over the top N", "",
          "Minimum ranks (Table 2.8) and ranks (Table 2.9); the fit-time column is the time to the final "
          "solution with the cap above (Table 2.12).  Figure: `figures/mip_incumbent_bound.png` (Fig. 2-6).", ""]
    for name, res in rrf_res.items():
        L += [f"### {name} — minimum ranks", "", table(res, "min", THESIS_RRF_MIN.get(name)), "",
              f"### {name} — ranks", "", table(res, "rank"), ""]
    obj = json.loads((res_dir / "objectives.json").read_text())
    L += ["## Welleck Tables 1–3, Figure 2 (MQ2008)", "",
          "| method | NDCG@10 | MAP (trec) | AUC | MAUC | CV MAUC |", "|---|---|---|---|---|---|"]
    for name, row in obj["holdout"].items():
        cv = obj["cv"].get(name, {}).get("mauc", {})
        L.append(f"| {name} | {row['ndcg@10']:.4f} | {row['map:trec']:.4f} | {row['auc']:.4f} | {row['mauc']:.4f} | "
                 f"{cv.get('mean', float('nan')):.4f} ± {cv.get('sd', float('nan')):.4f} |")
    L += ["", f"Welleck Table 1, LambdaMART-MAUC: MAUC {obj['welleck_table1']['mauc']}, MAP "
              f"{obj['welleck_table1']['map']}.", ""]
    if welleck:
        L += ["| method | MAUC | MAP | AUC class 1 | AUC class 2 | micro P@1 / P@5 / P@10 | macro P@1 / P@5 / P@10 |",
              "|---|---|---|---|---|---|---|"]
        for name, r in welleck.items():
            L.append(f"| {name} | {r['mauc']:.4f} | {r['map']:.4f} | {r['per_class_auc'][1]:.4f} | "
                     f"{r['per_class_auc'][2]:.4f} | "
                     f"{r['micro'][0]:.3f} / {r['micro'][4]:.3f} / {r['micro'][9]:.3f} | "
                     f"{r['macro'][0]:.3f} / {r['macro'][4]:.3f} / {r['macro'][9]:.3f} |")
        L += ["", "Figure: `figures/precision_at_k.png`.", ""]
    rk = json.loads((res_dir / "rankncg.json").read_text())
    L += ["## Raykar Tables 3–4 (5-fold CV, test WMW and fit time)", "",
          "| dataset | n | method | fit s | WMW | paper s, WMW |", "|---|---|---|---|---|---|"]
    import rankncg as rmod

    for name, r in rk.items():
        for m, v in r["methods"].items():
            key = {"RankNCG fast": "fast", "RankNCG exact": "direct"}.get(m)
            ref = rmod.PAPER.get(name, {}).get(key) if key else None
            ref_txt = "" if not ref or ref[0] is None else f"{ref[0]:.2f}, {ref[1]:.3f}"
            L.append(f"| {name} | {r['n']} | {m} | {v['time_mean']:.3f} | {v['wmw_mean']:.4f} ± {v['wmw_sd']:.3f} "
                     f"| {ref_txt} |")
    es = json.loads((res_dir / "erfc_sum.json").read_text())
    L += ["", "## Raykar Figure 2: erfc sums", "",
          "| N = M | eps | fast ms | np.sort of the points, ms | direct s | speed-up | max err / Q |",
          "|---|---|---|---|---|---|---|"]
    for r in es["rows"]:
        floor = f"{r['sort_floor_s'] * 1e3:.2f}" if "sort_floor_s" in r else ""
        L.append(f"| {r['n']} | {r['eps']:g} | {r['fast_s'] * 1e3:.2f} | {floor} | {r['direct_s']:.2f}"
                 f"{'*' if r['direct_extrapolated'] else ''} | {r['speedup_vs_direct']:.0f}× | {r['max_rel_error']:.1e} |")
    L += ["", "\\* extrapolated from a subsample of targets.  Figure: `figures/erfc_sum_figure2.png`.", ""]
    rr = json.loads((res_dir / "rerank.json").read_text())
    L += ["## Rudin & Wang Table 1: re-ranking (DCG of the whole list)", "",
          "Test DCG of logistic regression's list and of `TopKReranker(k=50, a='dcg')` on it (cross-fitted base "
          "scores, held-out gate), per random 50/50 split (`benchmarks/rerank.py`).", "",
          "| dataset | base | re-ranked | paired t p | re-ranked on |", "|---|---|---|---|---|"]
    for name, v in rr["table1"].items():
        L.append(f"| {name} | {np.mean(v['base']):.2f} ± {np.std(v['base']):.2f} | "
                 f"{np.mean(v['reranked']):.2f} ± {np.std(v['reranked']):.2f} | {v['p']:.3g} | "
                 f"{v['status'].count('re-ranked')}/{len(v['status'])} splits |")
    X, y = br.datasets.make_gaussians(random_state=0)
    L += ["", "### The Gaussians theorem (Rudin & Wang §3)", "",
          "| direction | AUC | DCG@10 | local AUC@6000 | exponential loss (RankBoost) |", "|---|---|---|---|---|"]
    P, N = X[y > 0, 0], X[y <= 0, 0]
    for sign in (1, -1):
        s = sign * X[:, 0]
        exp_loss = float(np.exp(-(sign * P)[:, None] + (sign * N)[None, :]).sum())
        L.append(f"| {'+x' if sign > 0 else '−x'} | {br.auc(y, s):.4f} | {br.rank_risk(y, s, 'dcg@10'):.3f} | "
                 f"{br.rank_risk(y, s, br.weights.local_auc(6000)):.0f} | {exp_loss:.3g} |")
    L += ["", "AUC and the exponential loss prefer +x; the statistics focused on the top of the list prefer −x.", ""]
    Path(args.report).write_text("\n".join(L) + "\n")


if __name__ == "__main__":
    main()
