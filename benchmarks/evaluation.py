"""Evaluating runs against qrels: boostrank against pytrec_eval (trec_eval) and ranx.

10^5 queries × 100 retrieved documents (10^7 run lines), graded qrels 0-3 judging about
half of the retrieved documents plus 5 unretrieved relevant ones per query; 8 trec_eval
measures (ndcg_cut_10, ndcg, map, map_cut_100, P_10, recall_100, recip_rank, Rprec).
Each library runs in its own process (so one's memory and compiled code do not help
another) on the same generated data, in the input each takes natively:

* boostrank: ``br.Qrels``/``br.Run`` from arrays, then ``br.evaluate(..., per_query=True)``;
* pytrec_eval: ``{qid: {docid: ...}}`` dicts, ``RelevanceEvaluator(qrels, measures).evaluate(run)``;
* ranx: ``Qrels.from_dict``/``Run.from_dict``, then ``ranx.evaluate(..., return_mean=False)``.

"input" is building that input from the arrays, "first" the first evaluation in the process
(boostrank's and ranx's Numba code loaded from cache or compiled), "warm" the best of two
more, "peak MB" the resident memory the first evaluation adds at its peak (RSS sampled every
2 ms).  "files" reads the same qrels and run from TREC files (boostrank's load_qrels/load_run,
pytrec_eval's parse_qrel/parse_run, ranx's from_file).  The values are checked to agree
(1e-9 on every mean).

Run:  python benchmarks/evaluation.py [--queries 100000 --docs 100] [--json out.json]
      (ranx is not a boostrank dependency: pip install ranx)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
TREC = ["ndcg_cut_10", "ndcg", "map", "map_cut_100", "P_10", "recall_100", "recip_rank", "Rprec"]
PYTREC = {"ndcg_cut.10", "ndcg", "map", "map_cut.100", "P.10", "recall.100", "recip_rank", "Rprec"}
RANX = {"ndcg_cut_10": "ndcg@10", "ndcg": "ndcg", "map": "map", "map_cut_100": "map@100", "P_10": "precision@10",
        "recall_100": "recall@100", "recip_rank": "mrr", "Rprec": "r-precision"}


def collection(n_queries, n_docs, seed=0):
    """Arrays of a run and its qrels (same generator for every library)."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), n_docs)
    doc = rng.integers(0, 10 ** 9, qid.size)
    docid = np.char.add("d", doc.astype(str)).astype(object)
    qids = np.char.add("q", qid.astype(str)).astype(object)
    score = np.round(rng.normal(size=qid.size), 4)  # four decimals: ties, as real runs have
    judged = rng.random(qid.size) < 0.5
    grade = np.minimum(rng.poisson(0.6, qid.size), 3)
    extra_q = np.repeat(np.arange(n_queries), 5)
    extra = (np.char.add("u", np.arange(extra_q.size).astype(str)).astype(object),
             np.char.add("q", extra_q.astype(str)).astype(object), rng.integers(1, 4, extra_q.size))
    keep = np.unique(np.char.add(qids.astype(str), docid.astype(str)), return_index=True)[1]
    keep.sort()  # a run retrieves a document once
    qids, docid, score, judged, grade = qids[keep], docid[keep], score[keep], judged[keep], grade[keep]
    qrels = (np.concatenate([qids[judged], extra[1]]), np.concatenate([docid[judged], extra[0]]),
             np.concatenate([grade[judged], extra[2]]))
    return (qids, docid, score), qrels


class PeakRSS:
    """Peak resident memory above the level at entry, sampled every 2 ms in a thread."""

    def __enter__(self):
        self.page = os.sysconf("SC_PAGE_SIZE")
        self.base = self.peak = self._rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()
        return self

    def _rss(self):
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * self.page

    def _watch(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self._rss())
            time.sleep(0.002)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._rss())
        self.mb = (self.peak - self.base) / 2 ** 20


def child(lib, n_queries, n_docs, files):
    (rq, rd, rs), (qq, qd, qg) = collection(n_queries, n_docs)
    out = {}
    if lib == "boostrank":
        import boostrank as br

        t = time.perf_counter()
        qrels, run = br.Qrels(qq, qd, qg), br.Run(rq, rd, rs)
        out["input"] = time.perf_counter() - t

        def evaluate():
            return br.evaluate(qrels, run, TREC, per_query=True)

        def means(res):
            return {m: float(np.mean(list(res[m].values()))) for m in TREC}

        def from_files():
            return br.load_qrels(files[0]), br.load_run(files[1])
    elif lib == "pytrec_eval":
        import pytrec_eval

        t = time.perf_counter()
        qrels, run = {}, {}
        for q, d, g in zip(qq.tolist(), qd.tolist(), qg.tolist()):
            qrels.setdefault(q, {})[d] = g
        for q, d, s in zip(rq.tolist(), rd.tolist(), rs.tolist()):
            run.setdefault(q, {})[d] = s
        out["input"] = time.perf_counter() - t

        def evaluate():
            return pytrec_eval.RelevanceEvaluator(qrels, PYTREC).evaluate(run)

        def means(res):
            return {m: float(np.mean([v[m] for v in res.values()])) for m in TREC}

        def from_files():
            with open(files[0]) as a, open(files[1]) as b:
                return pytrec_eval.parse_qrel(a), pytrec_eval.parse_run(b)
    else:
        import ranx

        t = time.perf_counter()
        qd_, rd_ = {}, {}
        for q, d, g in zip(qq.tolist(), qd.tolist(), qg.tolist()):
            qd_.setdefault(q, {})[d] = g
        for q, d, s in zip(rq.tolist(), rd.tolist(), rs.tolist()):
            rd_.setdefault(q, {})[d] = s
        qrels, run = ranx.Qrels.from_dict(qd_), ranx.Run.from_dict(rd_)
        out["input"] = time.perf_counter() - t

        def evaluate():
            return ranx.evaluate(qrels, run, list(RANX.values()), return_mean=False, make_comparable=True)

        def means(res):
            return {m: float(np.mean(res[RANX[m]])) for m in TREC}

        def from_files():
            return ranx.Qrels.from_file(files[0], kind="trec"), ranx.Run.from_file(files[1], kind="trec")
    with PeakRSS() as mem:
        t = time.perf_counter()
        res = evaluate()
        out["first"] = time.perf_counter() - t
    out["peak_mb"] = mem.mb
    out["means"] = means(res)
    warm = []
    for _ in range(2):
        t = time.perf_counter()
        evaluate()
        warm.append(time.perf_counter() - t)
    out["warm"] = min(warm)
    t = time.perf_counter()
    from_files()
    out["files"] = time.perf_counter() - t
    print(json.dumps(out))


def write_files(folder, n_queries, n_docs):
    (rq, rd, rs), (qq, qd, qg) = collection(n_queries, n_docs)
    qpath, rpath = os.path.join(folder, "qrels.txt"), os.path.join(folder, "run.txt")
    with open(qpath, "w") as fh:
        fh.writelines(f"{q} 0 {d} {g}\n" for q, d, g in zip(qq.tolist(), qd.tolist(), qg.tolist()))
    with open(rpath, "w") as fh:
        fh.writelines(f"{q} Q0 {d} 0 {s!r} bench\n" for q, d, s in zip(rq.tolist(), rd.tolist(), rs.tolist()))
    return qpath, rpath


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--libs", default="boostrank,pytrec_eval,ranx")
    ap.add_argument("--json", default=str(HERE / "results" / "evaluation.json"))
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--files", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child(args.child, args.queries, args.docs, args.files)
    libs = [s for s in args.libs.split(",") if s]
    rows = {}
    with tempfile.TemporaryDirectory() as folder:
        files = write_files(folder, args.queries, args.docs)
        for lib in libs:
            cmd = [sys.executable, __file__, "--child", lib, "--queries", str(args.queries), "--docs",
                   str(args.docs), "--files", *files]
            done = subprocess.run(cmd, capture_output=True, text=True, cwd=HERE)
            if done.returncode:
                print(f"{lib}: failed\n{done.stderr[-2000:]}")
                continue
            rows[lib] = json.loads(done.stdout.strip().splitlines()[-1])
    ref = rows.get("pytrec_eval")
    print(f"\n{args.queries} queries × {args.docs} documents, {len(TREC)} measures")
    print(f"{'library':<12} {'input s':>8} {'first s':>8} {'warm s':>8} {'peak MB':>8} {'files s':>8}  "
          f"{'warm ÷ pytrec_eval':>18}  agrees")
    for lib, r in rows.items():
        ratio = r["warm"] / ref["warm"] if ref else float("nan")
        agree = ("-" if ref is None else
                 "yes" if all(abs(r["means"][m] - ref["means"][m]) <= 1e-9 for m in TREC) else
                 "NO: " + ", ".join(f"{m} {r['means'][m]:.6f} vs {ref['means'][m]:.6f}" for m in TREC
                                    if abs(r["means"][m] - ref["means"][m]) > 1e-9))
        print(f"{lib:<12} {r['input']:>8.2f} {r['first']:>8.2f} {r['warm']:>8.2f} {r['peak_mb']:>8.0f} "
              f"{r['files']:>8.2f}  {ratio:>18.2f}  {agree}")
    sys.path.insert(0, str(HERE))
    from _common import write_json

    write_json(args.json, {"queries": args.queries, "docs": args.docs, "measures": TREC, "results": rows})


if __name__ == "__main__":
    main()
