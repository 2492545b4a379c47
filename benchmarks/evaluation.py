"""Evaluating runs from files: boostrank against the trec_eval binary, pytrec_eval and ranx.

What an IR researcher does with a set of runs, on the same files for every tool:

* **read**: a qrels file and ``--runs`` TREC run files (5 by default);
* **evaluate**: ``map, ndcg_cut_10, P_10, recall_100, recip_rank`` of every run (the end-to-end
  time is read + evaluate, the figure the tools are ranked by);
* **compare**: every run against the first with a paired randomization test, 10 000 resamples
  (boostrank's ``compare(test="randomization")``, ranx's ``compare(stat_test="fisher")``);
* **fuse**: the runs by reciprocal rank fusion, k = 60 (boostrank's ``fuse``, ranx's ``fuse``).

The collection is generated (``--queries`` × ``--docs``, default 10 000 × 1 000: 10⁷ lines per
run): graded qrels 0-3 judging about half of the retrieved documents plus 5 unretrieved relevant
ones per query; every run ranks the same documents by the grade plus its own noise, scores
rounded to 4 decimals (ties, as real runs have), in generation order with rank 0 (``--ranked``: by score with
ranks 1, 2, …, as retrieval systems write them).  ``--letor FILE`` takes a real collection
instead: the qrels are its labels and run i scores by feature column ``--features`` (MQ2008's
BM25 and LMIR columns by default).

Each library runs in its own process, so one's memory and compiled code do not help another.
Every Numba library (boostrank, ranx) first runs each task once on a 3-query collection in that
process, so its compile (or cache load) is excluded from the timed rows: ranx compiles for
about a minute on a fresh cache.  "peak MB" is the resident memory read + evaluate adds at
its peak (sampled every 2 ms).  The trec_eval row (``--trec-eval BIN``, a binary built from
usnistgov/trec_eval with ``make``; skipped without one) runs ``trec_eval -m ...`` once per run,
which reads the qrels each time as trec_eval users do; the ``boostrank trec_eval`` row runs the command the same
way, with trec_eval's arguments (each call a fresh interpreter).  "fuse MB" is the memory fusion adds at its peak.  The means are checked against
boostrank's (1e-9; trec_eval's to the 4 decimals it prints): ranx breaks tied scores in another
order than trec_eval, so it may differ.

The ``all_trec`` rows (with ``--trec-eval``) time the whole of ``trec_eval -q -m all_trec`` on the first run, the
binary and ``boostrank trec_eval`` alternated ``--all-trec`` times, and check that their outputs are byte-identical.

Run:  python benchmarks/evaluation.py [--queries 10000 --docs 1000] [--ranked] [--trec-eval BIN] [--all-trec 3]
          [--ranx-python PYTHON] [--letor ../shared/data/mq2008/test.txt] [--json out.json]
      (ranx is not a boostrank dependency: ``pip install ranx``, or name an interpreter that has it)
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
MEASURES = ["map", "ndcg_cut_10", "P_10", "recall_100", "recip_rank"]
PYTREC = {"map": "map", "ndcg_cut_10": "ndcg_cut.10", "P_10": "P.10", "recall_100": "recall.100",
          "recip_rank": "recip_rank"}
RANX = {"map": "map", "ndcg_cut_10": "ndcg@10", "P_10": "precision@10", "recall_100": "recall@100",
        "recip_rank": "mrr"}
RESAMPLES = 10_000
#: MQ2008's BM25 and LM-IR features of the whole document (LETOR 4.0's feature list: 25, 30, 35, 40 and the
#: title's BM25, 21): five first-stage rankers an IR researcher would fuse
MQ2008_FEATURES = (25, 30, 35, 40, 21)


def collection(n_queries, n_docs, n_runs, seed=0):
    """Qrels rows and ``n_runs`` runs' rows over the same retrieved documents."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_queries), n_docs)
    docid = np.char.add("d", rng.integers(0, 10 ** 9, qid.size).astype(str)).astype(object)
    qids = np.char.add("q", qid.astype(str)).astype(object)
    keep = np.unique(np.char.add(qids.astype(str), docid.astype(str)), return_index=True)[1]
    keep.sort()  # a run retrieves a document once
    qids, docid = qids[keep], docid[keep]
    grade = np.minimum(rng.poisson(0.6, qids.size), 3)
    judged = rng.random(qids.size) < 0.5
    extra_q = np.char.add("q", np.repeat(np.arange(n_queries), 5).astype(str)).astype(object)
    qrels = (np.concatenate([qids[judged], extra_q]),
             np.concatenate([docid[judged], np.char.add("u", np.arange(extra_q.size).astype(str)).astype(object)]),
             np.concatenate([grade[judged], rng.integers(1, 4, extra_q.size)]))
    runs = [(qids, docid, np.round(0.5 * grade + rng.normal(size=qids.size), 4)) for _ in range(n_runs)]
    return qrels, runs


def letor_collection(path, features):
    """Qrels from a LETOR file's labels, one run per feature column (documents named by row)."""
    from sklearn.datasets import load_svmlight_file

    X, y, qid = load_svmlight_file(str(path), query_id=True)
    X = X.toarray()
    qids = np.char.add("q", qid.astype(str)).astype(object)
    docid = np.char.add("d", np.arange(qid.size).astype(str)).astype(object)
    qrels = (qids, docid, y.astype(np.int64))
    return qrels, [(qids, docid, X[:, f - 1]) for f in features]


def write_files(folder, qrels, runs, ranked=False):
    """The qrels and run files; ``ranked``: each query's documents by score with ranks 1, 2, … as retrieval systems
    write runs (else in generation order with rank 0, which trec_eval accepts as well)."""
    qpath = os.path.join(folder, "qrels.txt")
    with open(qpath, "w") as fh:
        fh.writelines(f"{q} 0 {d} {g}\n" for q, d, g in zip(*(a.tolist() for a in qrels)))
    paths = []
    for i, (q, d, s) in enumerate(runs):
        rank = np.zeros(q.size, dtype=np.int64)
        if ranked:  # the generated rows are grouped by query
            start = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
            group = np.repeat(np.arange(start.size), np.diff(np.r_[start, q.size]))
            order = np.lexsort((-s, group))
            q, d, s = q[order], d[order], s[order]
            rank = np.arange(q.size) - start[group] + 1
        paths.append(os.path.join(folder, f"run{i}.txt"))
        with open(paths[-1], "w") as fh:
            fh.writelines(f"{a} Q0 {b} {r} {c!r} run{i}\n"
                          for a, b, r, c in zip(q.tolist(), d.tolist(), rank.tolist(), s.tolist()))
    return qpath, paths


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


# ------------------------------------------------------------------ each library's tasks


class Boostrank:
    def __init__(self):
        import boostrank as br
        from boostrank.evaluation.fusion import fuse

        self.br, self._fuse = br, fuse

    def read(self, qpath, rpaths):
        return self.br.load_qrels(qpath), [self.br.load_run(p) for p in rpaths]

    def evaluate(self, qrels, runs):
        return [self.br.evaluate(qrels, run, MEASURES) for run in runs]

    def compare(self, qrels, runs):
        return self.br.compare(qrels, runs, MEASURES, test="randomization", n_resamples=RESAMPLES)

    def fuse(self, runs):
        return self._fuse(runs, "rrf", k=60)


class PytrecEval:
    def __init__(self):
        import pytrec_eval

        self.pe = pytrec_eval

    def read(self, qpath, rpaths):
        with open(qpath) as fh:
            qrels = self.pe.parse_qrel(fh)
        runs = []
        for p in rpaths:
            with open(p) as fh:
                runs.append(self.pe.parse_run(fh))
        return qrels, runs

    def evaluate(self, qrels, runs):
        evaluator = self.pe.RelevanceEvaluator(qrels, set(PYTREC.values()))
        out = []
        for run in runs:
            res = evaluator.evaluate(run)
            out.append({m: float(np.mean([v[m] for v in res.values()])) for m in MEASURES})
        return out

    compare = fuse = None  # pytrec_eval has neither


class Ranx:
    def __init__(self):
        import ranx

        self.ranx = ranx

    def read(self, qpath, rpaths):
        runs = [self.ranx.Run.from_file(p, kind="trec") for p in rpaths]
        for i, run in enumerate(runs):
            run.name = f"run{i}"  # compare names runs by it
        return self.ranx.Qrels.from_file(qpath, kind="trec"), runs

    def evaluate(self, qrels, runs):
        out = []
        for run in runs:
            res = self.ranx.evaluate(qrels, run, list(RANX.values()), make_comparable=True)
            out.append({m: float(res[RANX[m]]) for m in MEASURES})
        return out

    def compare(self, qrels, runs):
        return self.ranx.compare(qrels, runs, list(RANX.values()), stat_test="fisher", n_permutations=RESAMPLES,
                                 make_comparable=True, random_seed=0)

    def fuse(self, runs):
        return self.ranx.fuse(runs, norm=None, method="rrf", params={"k": 60})


LIBS = {"boostrank": Boostrank, "pytrec_eval": PytrecEval, "ranx": Ranx}


def _timed(fn, *args):
    t = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t


def child(lib, qpath, rpaths, tiny, also=("compare", "fuse")):
    """One library's row: each task once on the tiny collection (compile, caches), then timed on the real one."""
    tool = LIBS[lib]()
    out = {}
    tq, truns = tool.read(tiny[0], tiny[1])
    tool.evaluate(tq, truns)
    for task in also:
        if getattr(tool, task) is not None:
            getattr(tool, task)(*((tq, truns) if task == "compare" else (truns,)))
    with PeakRSS() as mem:
        (qrels, runs), out["read"] = _timed(tool.read, qpath, rpaths)
        means, out["evaluate"] = _timed(tool.evaluate, qrels, runs)
    out["peak_mb"] = mem.mb
    out["means"] = [{m: float(v[m]) for m in MEASURES} for v in means]
    if tool.compare is not None and "compare" in also:
        _, out["compare"] = _timed(tool.compare, qrels, runs)
    if tool.fuse is not None and "fuse" in also:
        del means
        with PeakRSS() as mem:
            _, out["fuse"] = _timed(tool.fuse, runs)
        out["fuse_peak_mb"] = mem.mb
    print(json.dumps(out))


def trec_eval_row(binary, qpath, rpaths):
    """The binary (a command: the trec_eval binary, or ``boostrank trec_eval``) once per run (it reads the qrels each
    time, as its users do); its means parsed."""
    args = [a for m in PYTREC.values() for a in ("-m", m)]
    t = time.perf_counter()
    means = []
    for p in rpaths:
        done = subprocess.run([*binary, *args, qpath, p], capture_output=True, text=True, check=True)
        values = {line.split()[0]: float(line.split()[2]) for line in done.stdout.splitlines() if line.strip()}
        means.append({m: values[PYTREC[m].replace(".", "_")] for m in MEASURES})
    return {"end_to_end": time.perf_counter() - t, "means": means}


def all_trec_rows(binary, qpath, rpath, rounds: int) -> dict:
    """``trec_eval -q -m all_trec`` on one run: the C binary and ``boostrank trec_eval`` alternated ``rounds``
    times, each call a fresh process timed from its start to its exit; whether the outputs are byte-identical."""
    args = ["-q", "-m", "all_trec", qpath, rpath]
    commands = {"trec_eval": [binary], "boostrank trec_eval": [sys.executable, "-m", "boostrank", "trec_eval"]}
    seconds, outputs = {name: [] for name in commands}, {}
    for _ in range(rounds):
        for name, command in commands.items():
            t = time.perf_counter()
            done = subprocess.run([*command, *args], capture_output=True, check=True)
            seconds[name].append(time.perf_counter() - t)
            outputs[name] = done.stdout
    ratios = [b / c for b, c in zip(seconds["boostrank trec_eval"], seconds["trec_eval"])]
    return {"seconds": seconds, "ratios": ratios, "identical": len(set(outputs.values())) == 1,
            "lines": outputs["trec_eval"].count(b"\n")}


def print_all_trec(row) -> None:
    print(f"\ntrec_eval -q -m all_trec, one run ({row['lines']} lines), {len(row['ratios'])} alternated calls each; "
          f"outputs byte-identical: {'yes' if row['identical'] else 'NO'}")
    for name, times in row["seconds"].items():
        print(f"{name:<20} " + "  ".join(f"{t:6.2f} s" for t in times))
    print(f"{'÷ trec_eval':<20} " + "  ".join(f"{r:6.2f}  " for r in row["ratios"]))


def _run_child(python, lib, qpath, rpaths, tiny, also):
    cmd = [python, __file__, "--child", lib, "--files", qpath, *rpaths, "--tiny", tiny[0], *tiny[1], "--also", also]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=HERE)
    if done.returncode:
        print(f"{lib}: failed\n{done.stderr[-2000:]}")
        return None
    row = json.loads(done.stdout.strip().splitlines()[-1])
    row["end_to_end"] = row["read"] + row["evaluate"]
    return row


def _agreement(row, ref, tol):
    if ref is None:
        return "-"
    bad = [f"run{i} {m} {mine[m]:.6f} vs {theirs[m]:.6f}" for i, (mine, theirs) in enumerate(zip(row["means"], ref))
           for m in MEASURES if abs(mine[m] - theirs[m]) > tol]
    return "yes" if not bad else f"no ({len(bad)} means differ; first: {bad[0]})"


def print_table(rows, title):
    print(f"\n{title}")
    base = rows.get("boostrank")
    print(f"{'tool':<20} {'read s':>8} {'eval s':>8} {'end-to-end s':>13} {'÷ boostrank':>11} {'compare s':>10} "
          f"{'fuse s':>8} {'peak MB':>8} {'fuse MB':>8}  equals boostrank's means")

    def cell(r, key, width, fmt=".2f"):
        return f"{r[key]:>{width}{fmt}}" if key in r else f"{'-':>{width}}"

    for lib, r in rows.items():
        ratio = r["end_to_end"] / base["end_to_end"] if base else float("nan")
        # trec_eval prints 4 decimals
        agree = "-" if lib == "boostrank" else _agreement(r, base["means"] if base else None,
                                                          5e-5 if "trec_eval" in lib else 1e-9)
        print(f"{lib:<20} {cell(r, 'read', 8)} {cell(r, 'evaluate', 8)} {r['end_to_end']:>13.2f} {ratio:>11.2f} "
              f"{cell(r, 'compare', 10)} {cell(r, 'fuse', 8)} {cell(r, 'peak_mb', 8, '.0f')} "
              f"{cell(r, 'fuse_peak_mb', 8, '.0f')}  {agree}")


def _rounds(text: str) -> int:
    n = int(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"a number of rounds is 0 or more, got {text}")
    return n


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--docs", type=int, default=1_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--ranked", action="store_true", help="write each run's documents by score with ranks 1, 2, ... "
                                                            "(as retrieval systems write runs)")
    ap.add_argument("--letor", help="a LETOR file: its labels as qrels, feature columns as runs (replaces the "
                                    "generated collection)")
    ap.add_argument("--features", default=",".join(map(str, MQ2008_FEATURES)),
                    help="the LETOR feature columns (1-based) that are the runs")
    ap.add_argument("--libs", default="boostrank,pytrec_eval,ranx")
    ap.add_argument("--ranx-python", default=sys.executable, help="the Python interpreter ranx is installed in")
    ap.add_argument("--trec-eval", help="a trec_eval binary (built from usnistgov/trec_eval); no row without it")
    ap.add_argument("--also", default="compare,fuse", help="the tasks after read + evaluate (default: %(default)s; "
                                                            "'' for none)")
    ap.add_argument("--all-trec", type=_rounds, default=3, metavar="ROUNDS",
                    help="with --trec-eval: 'trec_eval -q -m all_trec' on the first run, the binary and boostrank's "
                         "command alternated ROUNDS times (default: %(default)s; 0 for none)")
    ap.add_argument("--json", default=str(HERE / "results" / "evaluation.json"))
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--files", nargs="+", help=argparse.SUPPRESS)
    ap.add_argument("--tiny", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child(args.child, args.files[0], args.files[1:], (args.tiny[0], args.tiny[1:]),
                     [t for t in args.also.split(",") if t])
    if args.letor:
        features = [int(f) for f in args.features.split(",")]
        qrels, runs = letor_collection(args.letor, features)
        title = f"{args.letor}: {len(set(qrels[0].tolist()))} queries, {len(features)} runs (features {features})"
    else:
        qrels, runs = collection(args.queries, args.docs, args.runs)
        title = (f"{args.queries} queries × {args.docs} documents, {args.runs} runs ({runs[0][0].size} lines each"
                 f"{', in rank order' if args.ranked else ''})")
    title += f"; {len(MEASURES)} measures; compare: randomization, {RESAMPLES} resamples; fuse: RRF"
    rows = {}
    with tempfile.TemporaryDirectory() as folder:
        print(f"writing the files in {folder} ...", flush=True)
        qpath, rpaths = write_files(folder, qrels, runs, ranked=args.ranked)
        tiny_folder = os.path.join(folder, "tiny")
        os.mkdir(tiny_folder)
        tq, truns = collection(3, 20, len(rpaths), seed=1)
        tiny = write_files(tiny_folder, tq, truns)
        if args.trec_eval:
            print("trec_eval ...", flush=True)
            rows["trec_eval"] = trec_eval_row([args.trec_eval], qpath, rpaths)
        print("boostrank trec_eval ...", flush=True)
        rows["boostrank trec_eval"] = trec_eval_row([sys.executable, "-m", "boostrank", "trec_eval"], qpath, rpaths)
        if args.trec_eval and args.all_trec:
            print("trec_eval -q -m all_trec ...", flush=True)
            all_trec = all_trec_rows(args.trec_eval, qpath, rpaths[0], args.all_trec)
        for lib in [s for s in args.libs.split(",") if s]:
            print(f"{lib} ...", flush=True)
            row = _run_child(args.ranx_python if lib == "ranx" else sys.executable, lib, qpath, rpaths, tiny,
                             args.also)
            if row is not None:
                rows[lib] = row
    if not args.trec_eval:
        print("no trec_eval row: pass --trec-eval BIN (git clone usnistgov/trec_eval && make)")
    rows = dict(sorted(rows.items(), key=lambda kv: kv[0] != "boostrank"))
    print_table(rows, title)
    all_trec = all_trec if args.trec_eval and args.all_trec else None
    if all_trec:
        print_all_trec(all_trec)
    sys.path.insert(0, str(HERE))
    from _common import write_json

    write_json(args.json, {"title": title, "measures": MEASURES, "resamples": RESAMPLES, "results": rows,
                           "all_trec": all_trec})


if __name__ == "__main__":
    main()
