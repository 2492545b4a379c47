"""boostrank's fusions against ranx's, on runs from MQ2008: where the definitions agree, the same fused scores.

Three runs from three MQ2008 test features (one rounded, so that ties occur; each keeps a random 80 % of each
list, so that documents are missing from some runs), fused by every method both libraries have, with ranx's
default normalisation (min-max) and its parameters; for each method the share of (query, document) scores equal
to 1e-9 (relative) and of queries whose fused ranking is the same, over all queries and over those where no run
ties two scores or holds one score only.  The definitions differ there on purpose: boostrank ranks a run as
trec_eval does (ties by document id, descending), ranx by its sort; and min-max gives a constant list its best
value, 1, where ranx gives 0.  The six learned fusions are trained on half of the queries and fuse the other
half; SegFuse's segments are the paper's, not ranx's (``boostrank/evaluation/learned_fusion.py`` says why).
ranx is not a dependency: install it
(``pip install ranx``) to run this.

Run:  python benchmarks/fusion_ranx.py [--json results/fusion_ranx.json]
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np

import boostrank as br
from boostrank.evaluation.fusion import fuse

from _common import DATA, write_json

HERE = Path(__file__).resolve().parent

#: boostrank's method → (ranx's method name, ranx's params, boostrank's keyword arguments)
METHODS = {
    "combsum": ("sum", {}, {}), "combmnz": ("mnz", {}, {}), "combanz": ("anz", {}, {}), "combmax": ("max", {}, {}),
    "combmin": ("min", {}, {}), "combmed": ("med", {}, {}),
    "wsum": ("wsum", {"weights": [0.5, 0.3, 0.2]}, {"weights": [0.5, 0.3, 0.2]}),
    "wmnz": ("wmnz", {"weights": [0.5, 0.3, 0.2]}, {"weights": [0.5, 0.3, 0.2]}),
    "mixed": ("mixed", {"weights": [0.5, 0.3, 0.2]}, {"weights": [0.5, 0.3, 0.2]}),
    "gmnz": ("gmnz", {"gamma": 0.7}, {"gamma": 0.7}),
    "rrf": ("rrf", {"k": 60}, {"k": 60}), "isr": ("isr", {}, {}), "log_isr": ("log_isr", {}, {}),
    "logn_isr": ("logn_isr", {"sigma": 0.01}, {"sigma": 0.01}), "rbc": ("rbc", {"phi": 0.8}, {"phi": 0.8}),
    "borda": ("bordafuse", {}, {}),
    "w_bordafuse": ("w_bordafuse", {"weights": [0.5, 0.3, 0.2]}, {"weights": [0.5, 0.3, 0.2]}),
    "condorcet": ("condorcet", {}, {}),
    "w_condorcet": ("w_condorcet", {"weights": [0.5, 0.3, 0.2]}, {"weights": [0.5, 0.3, 0.2]}),
}


def runs_from_mq2008(seed=0, jitter=False):
    d = br.load_letor(DATA / "mq2008" / "test.txt", sparse=False)
    rng = np.random.default_rng(seed)
    docid = np.array([f"d{i}" for i in range(len(d.y))])
    out = {}
    for name, col, decimals in (("bm25", 24, None), ("tfidf", 20, 2), ("lm", 38, None)):
        s = d.X[:, col] if decimals is None else np.round(d.X[:, col], decimals)
        if jitter:  # no ties, no constant list: the definitions alone decide
            s = d.X[:, col] + 1e-6 * rng.normal(size=len(s))
        keep = rng.random(len(s)) < 0.8
        out[name] = {}
        for q, doc, v in zip(d.qid[keep].astype(str), docid[keep], s[keep]):
            out[name].setdefault(q, {})[doc] = float(v)
    return out


def compare(raw, ranx) -> dict:
    ours = {n: br.Run.from_dict(r, name=n) for n, r in raw.items()}
    theirs = []
    for n, r in raw.items():
        run = ranx.Run(r, name=n)
        theirs.append(run)
    rows = {}
    # queries where no run ties two scores and no run's list is constant: there ranx's rank order (its sort) and
    # min-max (0 for a constant list, where boostrank gives the list's best 1) cannot differ from boostrank's
    clean = {q for q in set().union(*raw.values())
             if all(q not in r or (len(set(r[q].values())) == len(r[q]) and len(r[q]) > 1) for r in raw.values())}
    print(f"{'':<13}{'all ' + str(len(set().union(*raw.values()))) + ' queries':>30}"
          f"{'the ' + str(len(clean)) + ' without ties':>30}")
    print(f"{'method':<13}{'scores equal':>14}{'rankings equal':>16}{'scores equal':>14}{'rankings equal':>16}")
    for method, (their_name, their_params, our_kw) in METHODS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fused = ranx.fuse(runs=theirs, norm="min-max" if method not in ("borda", "w_bordafuse") else None,
                              method=their_name, params=their_params)
        mine = fuse(ours, method, **our_kw).to_dict()
        their = fused.to_dict()
        count = {"all": [0, 0, 0, 0], "clean": [0, 0, 0, 0]}  # equal scores, scores, equal rankings, queries
        for q, docs in mine.items():
            t = their.get(q, {})
            kinds = ["all"] + (["clean"] if q in clean else [])
            for kind in kinds:
                c = count[kind]
                c[3] += 1
                for doc, v in docs.items():
                    c[1] += 1
                    c[0] += doc in t and abs(t[doc] - v) <= 1e-9 * max(1.0, abs(v))
                c[2] += sorted(docs, key=lambda x: (-docs[x], x)) == sorted(t, key=lambda x: (-t[x], x))
        rows[method] = {kind: {"scores_equal": c[0] / c[1], "rankings_equal": c[2] / c[3], "queries": c[3]}
                        for kind, c in count.items()}
        a, b = rows[method]["all"], rows[method]["clean"]
        print(f"{method:<13}{a['scores_equal']:>14.4f}{a['rankings_equal']:>16.4f}{b['scores_equal']:>14.4f}"
              f"{b['rankings_equal']:>16.4f}")
    return rows


#: the learned fusions: boostrank's train_fusion options → ranx's training function's extra arguments and the
#: params its fuse() takes (from what the training returned)
LEARNED = {
    "probfuse": ({"n_segments": 10}, {"n_segments": 10}, lambda t: {"probs": t}),
    "segfuse": ({}, {}, lambda t: {"probs": t}),
    "posfuse": ({}, {}, lambda t: {"probs": t}),
    "slidefuse": ({"w": 3}, {}, lambda t: {"probs": t, "w": 3}),
    "mapfuse": ({}, {}, lambda t: {"map_scores": t}),
    "bayesfuse": ({}, {}, lambda t: {"log_odds": t}),
}


def compare_learned(raw, qrels, ranx) -> dict:
    """The learned fusions trained on the even-numbered queries' runs and judgements, fused on the others."""
    import importlib

    from boostrank.evaluation.learned_fusion import train_fusion

    queries = sorted(set().union(*raw.values()))
    train_q = set(queries[0::2])
    split = {part: {n: {q: d for q, d in r.items() if (q in train_q) == (part == "train")} for n, r in raw.items()}
             for part in ("train", "test")}
    train_qrels = {q: g for q, g in qrels.items() if q in train_q}
    ours = {part: [br.Run.from_dict(r, name=n) for n, r in runs.items()] for part, runs in split.items()}
    theirs = {part: [ranx.Run(r, name=n) for n, r in runs.items()] for part, runs in split.items()}
    rows = {}
    print(f"{'method':<13}{'scores equal':>14}{'rankings equal':>16}   (trained on {len(train_q)} queries, "
          f"fused on {len(queries) - len(train_q)})")
    for method, (our_kw, their_kw, their_params) in LEARNED.items():
        trained = train_fusion(train_qrels, ours["train"], method, **our_kw)
        mine = fuse(ours["test"], method, trained=trained).to_dict()
        train = getattr(importlib.import_module(f"ranx.fusion.{method}"), f"{method}_train")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            learned = train(ranx.Qrels(train_qrels), theirs["train"], **their_kw)
            their = ranx.fuse(runs=theirs["test"], norm="min-max", method=method,
                              params=their_params(learned)).to_dict()
        equal = total = same = 0
        for q, docs in mine.items():
            t = their.get(q, {})
            total += len(docs)
            equal += sum(doc in t and abs(t[doc] - v) <= 1e-9 * max(1.0, abs(v)) for doc, v in docs.items())
            same += sorted(docs, key=lambda x: (-docs[x], x)) == sorted(t, key=lambda x: (-t[x], x))
        rows[method] = {"scores_equal": equal / total, "rankings_equal": same / len(mine), "queries": len(mine)}
        print(f"{method:<13}{equal / total:>14.4f}{same / len(mine):>16.4f}")
    return rows


def qrels_from_mq2008() -> dict:
    d = br.load_letor(DATA / "mq2008" / "test.txt", sparse=False)
    out = {}
    for i, (q, g) in enumerate(zip(d.qid.astype(str), d.y)):
        out.setdefault(q, {})[f"d{i}"] = int(g)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", default=str(HERE / "results" / "fusion_ranx.json"))
    args = ap.parse_args(argv)
    import ranx

    report = {}
    for label, jitter in (("MQ2008 features (ties, constant lists)", False), ("the same with 1e-6 jitter", True)):
        print(f"\n{label}")
        report[label] = compare(runs_from_mq2008(jitter=jitter), ranx)
    print("\nthe learned fusions, on the features with 1e-6 jitter")
    report["learned, with 1e-6 jitter"] = compare_learned(runs_from_mq2008(jitter=True), qrels_from_mq2008(), ranx)
    write_json(args.json, report)


if __name__ == "__main__":
    main()
