"""Training on clicks: does the λ objectives' position-bias correction recover what raw clicks lose?

Clicks are simulated from the true grades of real and calibrated sets (:func:`boostrank.datasets.simulate_clicks`,
the position-based model, six sessions per list, click noise (0.1, 0.1)) on lists ordered by a logging ranker:

* ``good``: a LambdaRanker trained on the true grades of a fifth of the training queries (about as good as the
  models trained on the clicks);
* ``weak``: one feature (MQ2008: BM25, feature 25; elsewhere the feature whose AUC on the training grades is
  nearest .62, MQ2008's BM25);
* ``adverse``: that feature reversed (it orders against relevance).

Every method trains on the clicks of the training queries (binary clicks; λ-MAUC on graded feedback: a click, and
a stronger signal such as a purchase drawn from the same grade) with the defaults a new user gets, and is scored on
the test queries' true grades (AUC, MAUC, NDCG@10):

* λ-AUC and λ-MAUC on raw clicks (``position_bias="none"``), with the correction (``fit(position=...)``), with the
  additive term (LightGBM's way), and given the true propensities (an intervention experiment's);
* LightGBM ``lambdarank`` without and with ``position`` (its own correction); XGBoost ``rank:ndcg`` without and with
  ``lambdarank_unbiased`` (Hu et al.);
* the skyline: λ-AUC on the true grades of the same training queries;
* the examination oracle: λ-AUC on the clicks of the documents the simulated users examined, and no other (what no
  log records): what removing the position bias alone can recover, the rest of the gap being click noise.

Protocol: ``--repeats`` × ``--folds`` outer folds over queries (the same folds for every method); per (set, logger,
η): means over the test queries (each averaged over the repeats) ± s.e., the share of the skyline − raw gap each
correction recovers (on the fold means), and the fold-level corrected resampled t-test (Nadeau & Bengio 2003) of the
correction against raw clicks and against the engines' corrections.  ``--candidates``: the correction's settings
compared on the development sets (the bundled sample and a calibrated set of another seed, none of the sets
reported), which chose its defaults.

Run:  python benchmarks/clicks.py [--sets mq2008,catboost,...] [--etas 0.5,1,2] [--repeats 3] [--quick]
      python benchmarks/clicks.py --candidates
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

import boostrank as br
from boostrank.metrics import GroupOffsets

from _common import pyplot, save_figure, write_json
from objective_quality import fold_test, load_catboost, load_mq2008, load_sample, make_calibrated

HERE = Path(__file__).resolve().parent
METRICS = ("auc", "mauc", "ndcg@10")
LOGGERS = ("good", "weak", "adverse")
SETS = {
    "mq2008": (load_mq2008, "MQ2008 vali + test (real, 313 queries)"),
    "catboost": (load_catboost, "CatBoost querywise (real, 117 queries, grades 0-3)"),
    "cal-ambiguous": (lambda: make_calibrated("ambiguous", 21), "calibrated to MQ2008: noisy near grade cuts"),
    "cal-many-relevant": (lambda: make_calibrated("many-relevant", 22),
                          "calibrated to CatBoost: 44 % relevant per list, 4 grades"),
}
#: the sets the correction's defaults were chosen on (none of them reported in the tables above)
DEV_SETS = {
    "sample": (load_sample, "the bundled sample"),
    "cal-ambiguous-dev": (lambda: make_calibrated("ambiguous", 121), "calibrated to MQ2008, another seed"),
}
#: MQ2008's BM25 (feature 25), the weak logger there
MQ2008_BM25 = 24
#: a weak logger's AUC on the training grades elsewhere: MQ2008's BM25's
WEAK_AUC = 0.62
SESSIONS = 6
#: the package's way of estimating propensities (the candidates set another per fit)
from boostrank.objectives.clicks import ESTIMATE as DEFAULT_ESTIMATE  # noqa: E402
from boostrank.objectives.clicks import LOWER as DEFAULT_LOWER, MIN_PROPENSITY as DEFAULT_CLIP  # noqa: E402
from boostrank.objectives.clicks import WEIGHT_POWER as DEFAULT_POWER  # noqa: E402


def _ranker(**kw):
    return br.LambdaRanker(random_state=0, n_jobs=1, **kw)


def _fit_predict(kw, X, y, qid, Xte, position=None):
    return _ranker(**kw).fit(X, y, qid=qid, position=position).predict(Xte)


def methods(true_e):
    """name -> (labels: "clicks", "graded" or "grades", the estimator's parameters, positions given)."""
    return {
        "skyline (λ-AUC on grades)": ("grades", {}, False),
        "λ-AUC raw clicks": ("clicks", {"position_bias": "none"}, True),
        "examination oracle": ("seen", {}, False),
        "λ-AUC corrected": ("clicks", {}, True),
        "λ-AUC additive": ("clicks", {"position_bias": "additive"}, True),
        "λ-AUC true propensities": ("clicks", {"propensity": true_e}, True),
        "λ-MAUC raw feedback": ("graded", {"objective": "mauc", "position_bias": "none"}, True),
        "λ-MAUC corrected": ("graded", {"objective": "mauc"}, True),
        "lambdarank": ("clicks", {"objective": "lambdarank"}, False),
        "lambdarank position": ("clicks", {"objective": "lambdarank"}, True),
        "rank:ndcg": ("clicks", {"engine": "xgboost", "objective": "rank:ndcg"}, False),
        "rank:ndcg unbiased": ("clicks", {"engine": "xgboost", "objective": "rank:ndcg"}, True),
    }


def candidates(true_e):
    """The correction's settings compared on the development sets: the anchor's weight with clicks and how the
    propensities are estimated."""
    out = {"λ-AUC raw clicks": ("clicks", {"position_bias": "none"}, True),
           "skyline (λ-AUC on grades)": ("grades", {}, False),
           "λ-AUC true propensities": ("clicks", {"propensity": true_e}, True)}
    for anchor in (0.3, 1.0, 3.0):
        for estimate in ("ctr", "em"):
            out[f"propensity α={anchor} {estimate}"] = ("clicks", {"anchor": anchor, "_estimate": estimate}, True)
            out[f"propensity α={anchor} {estimate} norm=False"] = (
                "clicks", {"anchor": anchor, "_estimate": estimate, "norm": False}, True)
        out[f"additive α={anchor}"] = ("clicks", {"anchor": anchor, "position_bias": "additive"}, True)
    out["true propensities norm=False"] = ("clicks", {"propensity": true_e, "norm": False}, True)
    out["true propensities α=3 norm=False"] = ("clicks", {"propensity": true_e, "norm": False, "anchor": 3.0}, True)
    for anchor in (1.0, 3.0):
        out[f"λ-MAUC α={anchor}"] = ("graded", {"objective": "mauc", "anchor": anchor}, True)
    out["λ-MAUC raw feedback"] = ("graded", {"objective": "mauc", "position_bias": "none"}, True)
    return out


def candidates_2(true_e):
    """The second round: how much of the inverse-propensity weight to keep (its power, its clip) against the
    per-query rescaling (``norm``), with the engines' own correction as the cost's yardstick."""
    out = {"λ-AUC raw clicks": ("clicks", {"position_bias": "none"}, True),
           "skyline (λ-AUC on grades)": ("grades", {}, False),
           "lambdarank": ("clicks", {"objective": "lambdarank"}, False),
           "lambdarank position": ("clicks", {"objective": "lambdarank"}, True),
           "additive α=0.3": ("clicks", {"anchor": 0.3, "position_bias": "additive"}, True)}
    for norm in ("query", False):
        for power in (0.5, 1.0):
            for clip in (0.05, 0.2):
                for anchor in (1.0, 3.0):
                    out[f"propensity α={anchor} norm={norm} κ={power} clip={clip}"] = (
                        "clicks", {"anchor": anchor, "norm": None if norm == "query" else norm, "_estimate": "em",
                                   "_power": power, "_clip": clip}, True)
    return out


def candidates_3(true_e):
    """The third round: the unclicked side's weight (the posterior of irrelevance, or one) and a clip between."""
    out = {"λ-AUC raw clicks": ("clicks", {"position_bias": "none"}, True),
           "skyline (λ-AUC on grades)": ("grades", {}, False),
           "lambdarank": ("clicks", {"objective": "lambdarank"}, False),
           "lambdarank position": ("clicks", {"objective": "lambdarank"}, True)}
    for lower in ("posterior", "one"):
        for norm in ("query", False):
            for clip in (0.1, 0.2):
                for anchor in (1.0, 3.0):
                    out[f"propensity α={anchor} norm={norm} clip={clip} lower={lower}"] = (
                        "clicks", {"anchor": anchor, "norm": None if norm == "query" else norm, "_estimate": "em",
                                   "_power": 1.0, "_clip": clip, "_lower": lower}, True)
    return out


def candidates_4(true_e):
    """The fourth round, at every η (the earlier rounds looked at η = 1 only): the default against the additive
    term and two milder weights (a power of one half; propensities clipped at one half)."""
    return {"λ-AUC raw clicks": ("clicks", {"position_bias": "none"}, True),
            "skyline (λ-AUC on grades)": ("grades", {}, False),
            "lambdarank": ("clicks", {"objective": "lambdarank"}, False),
            "lambdarank position": ("clicks", {"objective": "lambdarank"}, True),
            "propensity (default)": ("clicks", {}, True),
            "propensity κ=0.5": ("clicks", {"_power": 0.5}, True),
            "propensity clip=0.5": ("clicks", {"_clip": 0.5}, True),
            "additive (default)": ("clicks", {"position_bias": "additive"}, True)}


def _per_query(y, s, off):
    g = GroupOffsets(off)
    return {"auc": br.auc(y, s, g, per_query=True), "mauc": br.mauc(y, s, g, per_query=True),
            "ndcg@10": br.ndcg(y, s, g, k=10, per_query=True)}


def weak_feature(X, y, off) -> int:
    """The feature whose mean per-query AUC on the grades is nearest WEAK_AUC (a BM25-like single feature)."""
    aucs = np.array([np.nanmean(br.auc(y, X[:, j], GroupOffsets(off), per_query=True)) for j in range(X.shape[1])])
    aucs = np.where(np.isfinite(aucs), aucs, -np.inf)
    return int(np.argmin(np.abs(aucs - WEAK_AUC)))


def run_job(name, data, repeat, fold, folds, logger, eta, table):
    """Every method of ``table`` on one (repeat, fold, logger, η): per-query test values and seconds."""
    import numba

    numba.set_num_threads(1)  # two jobs share the two cores
    X, y, sizes = data
    off = np.r_[0, np.cumsum(sizes)]
    qid = np.repeat(np.arange(sizes.size), sizes)
    perm = np.random.default_rng(1000 * repeat + 7).permutation(sizes.size)
    test_q = np.sort(perm[fold::folds])
    train_q = np.setdiff1d(perm, test_q)
    tr, te = np.isin(qid, train_q), np.isin(qid, test_q)
    Xtr, ytr, qtr, Xte, yte = X[tr], y[tr], qid[tr], X[te], y[te]
    off_te = np.r_[0, np.cumsum(sizes[test_q])]
    off_tr = np.r_[0, np.cumsum(sizes[train_q])]
    rng = np.random.default_rng(100 * repeat + fold)
    if logger == "good":
        few = np.isin(qtr, rng.choice(train_q, size=max(2, train_q.size // 5), replace=False))
        scores = _ranker().fit(Xtr[few], ytr[few], qid=qtr[few]).predict(Xtr)
    else:
        j = MQ2008_BM25 if name == "mq2008" else weak_feature(Xtr, ytr, off_tr)
        scores = Xtr[:, j] * (1.0 if logger == "weak" else -1.0)
    log = br.datasets.simulate_clicks(Xtr, ytr, qtr, scores, sessions=SESSIONS, eta=eta, graded=True,
                                      random_state=10_000 * repeat + 100 * fold + int(10 * eta))
    true_e = (1.0 / (np.arange(int(sizes.max())) + 1.0)) ** eta
    out = {"logger_auc": float(np.nanmean(br.auc(ytr, scores, GroupOffsets(off_tr), per_query=True))),
           "click_rate": float((log.clicks > 0).mean())}
    for mname, (labels, kw, with_position) in table(true_e).items():
        kw = dict(kw)
        estimate = kw.pop("_estimate", None)
        power, clip = kw.pop("_power", DEFAULT_POWER), kw.pop("_clip", DEFAULT_CLIP)
        lower = kw.pop("_lower", DEFAULT_LOWER)
        t = time.perf_counter()
        if labels == "grades":
            s = _fit_predict(kw, Xtr, ytr, qtr, Xte)
        elif labels == "seen":  # what no log holds: the clicks of the documents the users examined, and no other
            seen = log.seen
            s = _fit_predict(kw, log.X[seen], (log.clicks[seen] > 0).astype(np.int64), log.session[seen], Xte)
        else:
            target = log.clicks if labels == "graded" else (log.clicks > 0).astype(np.int64)
            from boostrank.objectives import clicks

            clicks.ESTIMATE = estimate or DEFAULT_ESTIMATE
            clicks.WEIGHT_POWER, clicks.MIN_PROPENSITY, clicks.LOWER = power, clip, lower
            s = _fit_predict(kw, log.X, target, log.session, Xte, log.position if with_position else None)
        out[mname] = {**{m: v.tolist() for m, v in _per_query(yte, s, off_te).items()},
                      "seconds": time.perf_counter() - t}
    out["test_queries"] = test_q.tolist()
    return out


def summarise(results, n_queries, folds, table_names):
    """Per method: mean ± s.e. over queries (averaged over repeats) per metric; the recovered share and the
    fold-level tests of the corrections."""
    rows = {}
    for mname in table_names:
        row = {}
        for m in METRICS:
            per_q = [[] for _ in range(n_queries)]
            for r in results:
                for q, v in zip(r["test_queries"], r[mname][m]):
                    if np.isfinite(v):
                        per_q[q].append(v)
            v = np.array([np.mean(p) for p in per_q if p])
            row[m] = {"mean": float(v.mean()), "se": float(v.std(ddof=1) / np.sqrt(v.size)),
                      "fold_mean": float(np.mean([np.nanmean(r[mname][m]) for r in results]))}
        row["seconds"] = float(np.mean([r[mname]["seconds"] for r in results]))
        rows[mname] = row
    tests = {}
    pairs = [("λ-AUC corrected", "λ-AUC raw clicks", "auc"), ("λ-AUC corrected", "lambdarank position", "auc"),
             ("λ-AUC corrected", "rank:ndcg unbiased", "auc"), ("λ-MAUC corrected", "λ-MAUC raw feedback", "mauc"),
             ("lambdarank position", "lambdarank", "auc"), ("rank:ndcg unbiased", "rank:ndcg", "auc"),
             ("λ-AUC additive", "λ-AUC raw clicks", "auc"), ("λ-AUC true propensities", "λ-AUC raw clicks", "auc"),
             ("examination oracle", "λ-AUC raw clicks", "auc")]
    for a, b, m in pairs:
        if a in rows and b in rows:
            diff, p = fold_test(results, a, b, m, folds)
            tests[f"{a} − {b} ({m})"] = {"diff": diff, "fold_p": p}
    share = {}
    sky = rows.get("skyline (λ-AUC on grades)")
    for mname in rows:  # each row against its own raw: the λ-MAUC rows on MAUC, the engines against themselves
        if sky is None or mname == sky:
            continue
        raw, metric = ("λ-MAUC raw feedback", "mauc") if "MAUC" in mname else ("λ-AUC raw clicks", "auc")
        raw = {"lambdarank position": "lambdarank", "rank:ndcg unbiased": "rank:ndcg"}.get(mname, raw)
        if raw not in rows or raw == mname or mname.startswith("skyline"):
            continue
        gap = sky[metric]["fold_mean"] - rows[raw][metric]["fold_mean"]
        share[mname] = (rows[mname][metric]["fold_mean"] - rows[raw][metric]["fold_mean"]) / gap \
            if gap > 0 else float("nan")
    return {"table": rows, "tests": tests, "recovered": share,
            "logger_auc": float(np.mean([r["logger_auc"] for r in results])),
            "click_rate": float(np.mean([r["click_rate"] for r in results]))}


def print_summary(title, s):
    print(f"\n## {title}  (logger AUC on the training grades {s['logger_auc']:.3f}, click rate {s['click_rate']:.3f})")
    print(f"{'method':<30}" + "".join(f"{m:>18}" for m in METRICS) + f"{'recovered':>11}{'s/fit':>7}")
    for mname, row in s["table"].items():
        cells = "".join(f"  {row[m]['mean']:.4f} ± {row[m]['se']:.4f}" for m in METRICS)
        rec = s["recovered"].get(mname)
        print(f"{mname:<30}{cells}{'' if rec is None else f'{rec:>10.0%}':>11}{row['seconds']:7.1f}")
    for name, t in s["tests"].items():
        print(f"  {name}: {t['diff']:+.4f} (fold-level p = {t['fold_p']:.3g})")


def figure(summary, path):
    """By η, per logger: under the good logger each correction's change of test AUC against the same learner on
    raw clicks (the gap to the skyline is too small there for a share to mean anything); under the weak and adverse
    loggers the share of the skyline − raw gap it recovers.  Colours are sets, line styles corrections."""
    plt = pyplot()
    from matplotlib.lines import Line2D

    sets = sorted({k.split("|")[0] for k in summary})
    colours = {name: f"C{i}" for i, name in enumerate(sets)}
    styles = {"λ-AUC corrected": "-o", "lambdarank position": ":s", "rank:ndcg unbiased": "--^"}
    fig, axes = plt.subplots(1, len(LOGGERS), figsize=(4.2 * len(LOGGERS), 3.8))
    for ax, logger in zip(np.atleast_1d(axes), LOGGERS):
        for name in sets:
            keys = sorted((k for k in summary if k.startswith(f"{name}|{logger}|")),
                          key=lambda k: float(k.split("|")[2]))
            etas = [float(k.split("|")[2]) for k in keys]
            for method, style in styles.items():
                raw, metric = AGAINST_RAW[method]
                if logger == "good":
                    vals = [summary[k]["table"][method][metric]["fold_mean"]
                            - summary[k]["table"][raw][metric]["fold_mean"] for k in keys]
                else:
                    vals = [summary[k]["recovered"].get(method, np.nan) for k in keys]
                ax.plot(etas, vals, style, color=colours[name], ms=4, lw=1)
        ax.axhline(0.0, color="black", lw=0.5)
        if logger != "good":
            ax.axhline(0.5, color="grey", lw=0.5, ls="--")
            ax.set_ylim(-1.0, 1.0)
            ax.set_ylabel("share of the skyline − raw AUC gap recovered")
        else:
            ax.set_ylabel("test AUC change against raw clicks")
        ax.set_title(f"{logger} logging ranker")
        ax.set_xlabel("η (examination ∝ 1/rank^η)")
    handles = [Line2D([], [], color=colours[n], lw=2, label=n) for n in sets]
    handles += [Line2D([], [], color="black", ls=st[:-1] or "-", marker=st[-1], label=m) for m, st in styles.items()]
    fig.legend(handles=handles, loc="lower center", ncol=len(handles), fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    save_figure(fig, path)


#: each correction against the same learner without it (the metric it is judged on)
AGAINST_RAW = {"λ-AUC corrected": ("λ-AUC raw clicks", "auc"), "λ-AUC additive": ("λ-AUC raw clicks", "auc"),
               "λ-MAUC corrected": ("λ-MAUC raw feedback", "mauc"), "lambdarank position": ("lambdarank", "auc"),
               "rank:ndcg unbiased": ("rank:ndcg", "auc")}


def overall(summary) -> dict:
    """Over every (set, η) per logger: each correction's mean and worst change against the same learner on raw
    clicks (fold means), its mean share of the gap recovered, and how many cells it lost significantly (fold-level
    p < .05) -- the means and worst cases the guide reports, never one run."""
    out = {}
    print(f"\n{'logger':<9}{'correction':<22}{'mean change':>12}{'worst':>9}{'best':>9}{'mean share':>12}"
          f"{'lost (p<.05)':>14}{'won':>6}")
    for logger in LOGGERS:
        cells = [s for k, s in summary.items() if k.split("|")[1] == logger]
        if not cells:
            continue
        for method, (raw, metric) in AGAINST_RAW.items():
            have = [s for s in cells if method in s["table"] and raw in s["table"]]
            if not have:
                continue
            diffs = np.array([s["table"][method][metric]["fold_mean"] - s["table"][raw][metric]["fold_mean"]
                              for s in have])
            shares = np.array([s["recovered"].get(method, np.nan) for s in have])
            test = f"{method} − {raw} ({metric})"
            ps = np.array([s["tests"][test]["fold_p"] if test in s["tests"] else np.nan for s in have])
            row = {"cells": len(have), "mean": float(diffs.mean()), "worst": float(diffs.min()),
                   "best": float(diffs.max()), "mean_share": float(np.nanmean(shares)),
                   "lost": int(np.sum((ps < 0.05) & (diffs < 0))), "won": int(np.sum((ps < 0.05) & (diffs > 0)))}
            out[f"{logger}|{method}"] = row
            print(f"{logger:<9}{method:<22}{row['mean']:>+12.4f}{row['worst']:>+9.4f}{row['best']:>+9.4f}"
                  f"{row['mean_share']:>12.0%}{row['lost']:>8}/{row['cells']:<5}{row['won']:>6}")
    return out


def guide_table(out: dict) -> str:
    """The guide's table (docs/guide/clicks.md) from :func:`overall`: per logger, each correction's mean change
    against the same learner on raw clicks, its worst cell, and the cells it lost or won significantly."""
    cols = [("λ-AUC corrected", "λ-AUC (AUC)"), ("λ-MAUC corrected", "λ-MAUC (MAUC)"),
            ("λ-AUC additive", "λ-AUC additive (AUC)"), ("lambdarank position", "LightGBM `position` (AUC)"),
            ("rank:ndcg unbiased", "XGBoost `lambdarank_unbiased` (AUC)")]
    head = "| logging ranker | " + " | ".join(c[1] for c in cols) + " |"
    rows = [head, "|" + "---|" * (len(cols) + 1)]
    for logger in LOGGERS:
        cells = []
        for method, _ in cols:
            r = out.get(f"{logger}|{method}")
            cells.append("" if r is None else f"{r['mean']:+.4f} (worst {r['worst']:+.4f}; "
                                              f"−{r['lost']}/+{r['won']} of {r['cells']})")
        rows.append(f"| {logger} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def choose(summary) -> str | None:
    """The rule that chose the correction's defaults on the development sets: the candidate with the largest mean
    share of the gap recovered under the weak and adverse loggers, among those whose mean cost under the good
    logger is at most a third of LightGBM's correction's cost to lambdarank (the issue's bar), both over the sets
    and the η run (rounds 1-3: η = 1; round 4: 0.5, 1 and 2)."""
    good = [s["table"] for k, s in summary.items() if k.split("|")[1] == "good"]
    biased = [s["recovered"] for k, s in summary.items() if k.split("|")[1] in ("weak", "adverse")]
    names = [m for m in next(iter(summary.values()))["table"] if m.startswith(("propensity", "additive"))]
    rows = []
    for m in names:
        cost = np.mean([t["λ-AUC raw clicks"]["auc"]["fold_mean"] - t[m]["auc"]["fold_mean"] for t in good])
        engine_cost = np.mean([t["lambdarank"]["auc"]["fold_mean"] - t["lambdarank position"]["auc"]["fold_mean"]
                               for t in good])
        share = np.mean([r[m] for r in biased])
        rows.append((m, cost, engine_cost, share))
    print(f"\n{'candidate':<56}{'good-logger cost':>18}{'LightGBM cost / 3':>19}{'recovered (weak, adverse)':>27}")
    for m, cost, engine_cost, share in sorted(rows, key=lambda r: -r[3]):
        print(f"{m:<56}{cost:>18.4f}{engine_cost / 3:>19.4f}{share:>27.0%}")
    allowed = [r for r in rows if r[1] <= r[2] / 3]
    best = max(allowed, key=lambda r: r[3]) if allowed else None
    print(f"chosen: {best[0] if best else 'none within the cost bar'}")
    return best[0] if best else None


def round_times(rounds: int = 100, repeats: int = 10) -> dict:
    """Seconds per boosting round of λ-AUC on MQ2008's clicks (weak logger, six sessions, 34 000 rows) with and
    without positions, LightGBM and XGBoost, the engines' and the objective's threads at one: the same run, the
    two fits alternated and the best of ``repeats`` kept."""
    import lightgbm as lgb
    import numba
    import xgboost as xgb

    numba.set_num_threads(1)
    X, y, sizes = load_mq2008()
    qid = np.repeat(np.arange(sizes.size), sizes)
    log = br.datasets.simulate_clicks(X, y, qid, X[:, MQ2008_BM25], sessions=SESSIONS, random_state=0)
    groups = np.bincount(log.session)
    out = {"rows": int(log.clicks.shape[0]), "rounds": rounds}
    for engine in ("lightgbm", "xgboost"):
        best = {"without": np.inf, "with": np.inf}
        for _ in range(repeats):
            for kind, position in (("without", None), ("with", log.position)):
                t = time.perf_counter()
                if engine == "lightgbm":
                    obj = br.lightgbm_objective("auc", position=position)
                    lgb.train({"objective": obj, "verbose": -1, "num_threads": 1, "learning_rate": 0.05},
                              lgb.Dataset(log.X, log.clicks, group=groups), rounds)
                else:
                    d = xgb.DMatrix(log.X, log.clicks)
                    d.set_group(groups)
                    xgb.train({"nthread": 1, "min_child_weight": 1e-3, "eta": 0.05, "tree_method": "hist",
                               "disable_default_eval_metric": 1}, d, rounds,
                              obj=br.xgboost_objective("auc", position=position))
                best[kind] = min(best[kind], (time.perf_counter() - t) / rounds)
        out[engine] = {**best, "ratio": best["with"] / best["without"]}
        print(f"{engine}: a round {best['without'] * 1e3:.2f} ms without positions, {best['with'] * 1e3:.2f} ms with "
              f"them: {best['with'] / best['without']:.3f}x ({out['rows']} rows)")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=None)
    ap.add_argument("--loggers", default=",".join(LOGGERS))
    ap.add_argument("--etas", default="0.5,1,2")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="one repeat, η = 1")
    ap.add_argument("--candidates", type=int, default=0,
                    help="the correction's settings on the development sets (1: anchor and estimate; 2: weights and "
                         "norm; 3: the unclicked side)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--times", action="store_true", help="only the cost of a round with positions")
    ap.add_argument("--methods", default=None, help="a comma list of the methods to run (raw and skyline always)")
    ap.add_argument("--json", default=None)
    ap.add_argument("--summarise", default=None, metavar="JSON",
                    help="print the means and worst cases over a results file's sets, and its figure")
    args = ap.parse_args(argv)
    if args.summarise:
        import json
        summary = json.loads(Path(args.summarise).read_text())["summary"]
        print(guide_table(overall(summary)))
        figure(summary, HERE / "figures" / "clicks_recovered.png")
        return 0
    if args.times:
        write_json(args.json or str(HERE / "results" / "clicks_times.json"), round_times())
        return 0
    registry = DEV_SETS if args.candidates else SETS
    table = {0: methods, 1: candidates, 2: candidates_2, 3: candidates_3, 4: candidates_4}[args.candidates]
    if args.methods:
        wanted = set(args.methods.split(",")) | {"λ-AUC raw clicks", "skyline (λ-AUC on grades)"}
        full = table
        table = lambda true_e: {k: v for k, v in full(true_e).items() if k in wanted}  # noqa: E731
    names = list(registry) if args.sets is None else args.sets.split(",")
    etas = [1.0] if args.quick else [float(e) for e in args.etas.split(",")]
    repeats = 1 if args.quick else args.repeats
    loggers = args.loggers.split(",")
    out_json = args.json or str(HERE / "results" / (f"clicks_candidates{args.candidates}.json" if args.candidates
                                                    else "clicks.json"))
    summary = {}
    for name in names:
        load, desc = registry[name]
        data = load()
        jobs = [(r, f, lg, eta) for lg in loggers for eta in etas for r in range(repeats) for f in range(args.folds)]
        t0 = time.perf_counter()
        results = Parallel(n_jobs=args.jobs)(delayed(run_job)(name, data, r, f, args.folds, lg, eta, table)
                                             for r, f, lg, eta in jobs)
        print(f"\n# {name}: {desc} ({len(jobs)} jobs, {time.perf_counter() - t0:.0f} s)", flush=True)
        for lg in loggers:
            for eta in etas:
                part = [res for (r, f, l2, e), res in zip(jobs, results) if l2 == lg and e == eta]
                s = summarise(part, data[2].size, args.folds, list(table(np.ones(1)).keys()))
                summary[f"{name}|{lg}|{eta:g}"] = s
                print_summary(f"{name}, {lg} logger, η = {eta:g}", s)
        write_json(out_json, {"repeats": repeats, "folds": args.folds, "sessions": SESSIONS, "summary": summary})
    if not args.candidates:
        if not args.methods:  # the figure is of the full table's corrections
            figure(summary, HERE / "figures" / "clicks_recovered.png")
        write_json(out_json, {"repeats": repeats, "folds": args.folds, "sessions": SESSIONS, "summary": summary,
                              "overall": overall(summary)})
    elif args.candidates >= 2 and "good" in loggers:
        choose(summary)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
