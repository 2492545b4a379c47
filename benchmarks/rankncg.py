"""RankNCG fast vs exact vs linear baselines (Raykar et al. Tables 3 and 4).

5-fold cross-validation (folds shuffled with a fixed seed) on the datasets of Raykar
Table 1 found in ``../shared/data`` — targets discretised into the paper's S
equal-frequency bins — on a synthetic 20 640 × 9 three-class set (California-housing
size) and a 10^6-row set.  Test WMW on the full order graph and fit time for:

* RankNCG ``fast`` (erfc link, ε = 1e-6 as in the paper) and ``exact`` (logistic,
  O(M²) pairs; on the large sets only on the first fold, or skipped at 10^6);
* logistic regression (scikit-learn, multinomial; score = expected class);
* a linear RankSVM: ``LinearSVC`` on pairwise differences, at most ``--max-pairs``
  random preferred pairs.

λ (``alpha``) is left at 1 for RankNCG and C = 1 for the baselines; the paper tuned λ
by an inner 5-fold CV, which is not repeated here.

Run:  python benchmarks/rankncg.py [--quick] [--json ...]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from sklearn.model_selection import KFold

import boostrank as br

from _common import Logistic, RankSVMPairs, write_json

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "data"
# Raykar Table 1 (S classes) and Tables 3/4 (RankNCG fast / direct: time s, WMW).
PAPER = {
    "pyrimidines": dict(S=3, fast=(0.12, 0.948), direct=(0.63, 0.987)),
    "triazines": dict(S=4, fast=(0.70, 0.914), direct=(17.63, 0.942)),
    "wisconsin-prognostic": dict(S=4, fast=(0.33, 0.771), direct=(13.41, 0.764)),
    "machine-cpu": dict(S=4, fast=(0.97, 0.938), direct=(20.38, 0.920)),
    "auto-mpg": dict(S=3, fast=(0.40, 0.998), direct=(28.05, 0.999)),
    "boston-housing": dict(S=2, fast=(0.16, 1.000), direct=(18.92, 1.000)),
    "synthetic-20640": dict(S=3, fast=(46.86, 0.979), direct=(None, None)),  # California housing
}


def _bins(target, S):
    edges = np.quantile(target, np.linspace(0, 1, S + 1)[1:-1])
    return np.digitize(target, edges)


def load(name):
    d = DATA / name
    if name == "machine-cpu":
        rows = [line.split(",") for line in (d / "machine.data").read_text().splitlines() if line.strip()]
        X = np.array([[float(v) for v in r[2:8]] for r in rows])
        t = np.array([float(r[8]) for r in rows])
    elif name == "auto-mpg":
        rows = [line.split("\t")[0].split() for line in (d / "auto-mpg.data").read_text().splitlines()]
        rows = [r for r in rows if r and "?" not in r]
        A = np.array(rows, dtype=float)
        X, t = A[:, 1:8], A[:, 0]
    elif name == "boston-housing":
        A = np.loadtxt(d / "housing.data")
        X, t = A[:, :13], A[:, 13]
    elif name == "pyrimidines":
        A = np.loadtxt(d / "pyrim.data", delimiter=",")
        X, t = A[:, :-1], A[:, -1]
    elif name == "triazines":
        A = np.loadtxt(d / "triazines.data", delimiter=",")
        X, t = A[:, :-1], A[:, -1]
    elif name == "wisconsin-prognostic":
        A = np.loadtxt(d / "r_wpbc.data", delimiter=",")
        X, t = A[:, :-1], A[:, -1]
    else:
        raise KeyError(name)
    return X, _bins(t, PAPER[name]["S"])


def synthetic(n, d=9, S=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 3.0, size=d)
    f = X @ rng.normal(size=d)
    return X, _bins(f + 0.4 * f.std() * rng.normal(size=n), S)


METHODS = {
    "RankNCG default": lambda: br.RankNCG(),  # what a new user gets: probit, method="auto"
    "RankNCG fast": lambda: br.RankNCG(link="probit", method="fast", eps=1e-6),
    "RankNCG exact": lambda: br.RankNCG(link="logistic", method="exact"),
    "logistic regression": Logistic,
    "RankSVM linear (pairs)": RankSVMPairs,
}


def run(name, X, y, folds, exact_folds):
    out = {}
    kf = KFold(n_splits=folds, shuffle=True, random_state=0)
    for method, make in METHODS.items():
        times, wmws = [], []
        for k, (tr, te) in enumerate(kf.split(X)):
            if method == "RankNCG exact" and k >= exact_folds:
                break
            t = time.perf_counter()
            model = make().fit(X[tr], y[tr])
            times.append(time.perf_counter() - t)
            wmws.append(float(br.wmw(y[te], model.decision_function(X[te]))))
        if times:
            out[method] = {"time_mean": float(np.mean(times)), "time_sd": float(np.std(times)),
                           "wmw_mean": float(np.mean(wmws)), "wmw_sd": float(np.std(wmws)), "folds": len(times),
                           "wmw_folds": wmws, "time_folds": times}
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="UCI sets and the 20 640-row set only, exact on 1 fold")
    ap.add_argument("--big", type=int, default=1_000_000, help="rows of the large synthetic set")
    ap.add_argument("--json", default=str(HERE / "results" / "rankncg.json"))
    args = ap.parse_args(argv)
    br.RankNCG().fit(np.random.default_rng(0).normal(size=(20, 2)), np.arange(20) % 2)  # numba cache

    results = {}
    sets = [(n, *load(n)) for n in PAPER if not n.startswith("synthetic") and (DATA / n).exists()]
    sets.append(("synthetic-20640", *synthetic(20640)))
    for name, X, y in sets:
        exact_folds = 5 if len(y) < 5000 else 1
        results[name] = {"n": int(len(y)), "d": int(X.shape[1]), "S": int(len(np.unique(y))),
                         "methods": run(name, X, y, 5, exact_folds)}
        print(f"{name}: done", flush=True)
    if not args.quick:
        X, y = synthetic(args.big, seed=1)
        kf = KFold(n_splits=5, shuffle=True, random_state=0)
        tr, te = next(iter(kf.split(X)))
        res = {}
        for method in ("RankNCG fast", "logistic regression"):
            t = time.perf_counter()
            m = METHODS[method]().fit(X[tr], y[tr])
            res[method] = {"time_mean": time.perf_counter() - t, "time_sd": 0.0,
                           "wmw_mean": float(br.wmw(y[te], m.decision_function(X[te]))), "wmw_sd": 0.0, "folds": 1}
        results[f"synthetic-{args.big}"] = {"n": args.big, "d": 9, "S": 3, "methods": res}

    print(f"\n{'dataset':<22}{'n':>8} {'method':<24}{'fit s':>16}{'test WMW':>18}   paper (s, WMW)")
    for name, r in results.items():
        for method, m in r["methods"].items():
            paper = PAPER.get(name, {})
            key = {"RankNCG fast": "fast", "RankNCG exact": "direct"}.get(method)
            ref = paper.get(key) if key else None
            ref_txt = "" if not ref or ref[0] is None else f"   {ref[0]:.2f}, {ref[1]:.3f}"
            print(f"{name:<22}{r['n']:>8} {method:<24}{m['time_mean']:>9.3f} ± {m['time_sd']:<5.3f}"
                  f"{m['wmw_mean']:>10.4f} ± {m['wmw_sd']:.3f}{ref_txt}")
        if "RankNCG exact" in r["methods"]:
            f, e = r["methods"]["RankNCG fast"], r["methods"]["RankNCG exact"]
            k = e["folds"]  # compare on the folds both ran
            ratio = np.mean(e["time_folds"]) / np.mean(f["time_folds"][:k])
            delta = np.max(np.abs(np.subtract(f["wmw_folds"][:k], e["wmw_folds"])))
            r["fast_vs_exact"] = {"time_ratio": float(ratio), "max_abs_wmw_diff": float(delta), "folds": k}
            print(f"{'':<31}exact/fast time ratio {ratio:.1f}; max |ΔWMW| over the {k} shared fold(s) {delta:.4f}")
    write_json(args.json, results)


if __name__ == "__main__":
    main()
