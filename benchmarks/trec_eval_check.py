"""boostrank's measures against a trec_eval binary, line for line (``trec_eval -q -m all_trec``).

The binary is the reference of record: trec_eval 10.0 (``boostrank.evaluate``'s default rules) or 9.x
(``--version 9``: float32 score ties, ``x R + 0.9`` cut-offs).  Build one from its source in a scratch folder
(``git clone https://github.com/usnistgov/trec_eval && make``; no install) and pass its path.  Checked: the
test corpus's qrels and runs (``--corpus``, trec_eval's ``test/`` folder) and random collections with what
trec_eval must get right (tied scores, scores equal only in float32, documents unjudged, pooled but unjudged
and judged, queries only in the qrels or only in the run, grades -1 to 3), each with no option, ``-c``,
``-l2`` and ``-M3``.  Every printed line (measure, query, value) must be boostrank's at trec_eval's
precision; ``runid`` and ``relstring`` are text and left out.

``--command``: instead, the ``boostrank trec_eval`` command against the binary, whole output and exit status, on
the same pairs under trec_eval's own option sets (``COMMAND_OPTIONS``: ``-c``, ``-M``, ``-l``, ``-J``, ``-N``,
``-n``, parameters, gains per grade, ``relstring``; ``runid`` and ``relstring`` included).

Run:  python benchmarks/trec_eval_check.py --trec-eval /tmp/trec_eval/trec_eval [--corpus DIR] [--seeds 20]
      [--command]
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import tempfile
import warnings
from pathlib import Path

import numpy as np

import boostrank as br

from _common import write_json

HERE = Path(__file__).resolve().parent
OPTIONS = [([], {}), (["-c"], {"complete": True}), (["-l2"], {"relevance_level": 2}), (["-M3"], {"depth": 3})]


def collection(seed: int, ties: bool, qrels_only: bool):
    """Qrels and a run as dicts, with the cases trec_eval's rules decide (``qrels_only``: queries the run lacks,
    which trec_eval 10.0 evaluates only with ``-c``)."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(12):
        docs = [f"d{rng.integers(0, 10 ** 6)}-{i}" for i in range(int(rng.integers(1, 15)))]
        judged = [d for d in docs if rng.random() < 0.7] + [f"u{q}-{i}" for i in range(int(rng.integers(0, 4)))]
        grades = rng.choice([-1, 0, 0, 1, 2, 3], size=len(judged))
        if q % 6 != 2:
            qrels[f"q{q}"] = {d: int(g) for d, g in zip(judged, grades)} or {"x": 1}
        if q % 7 != 3 or not qrels_only:
            scores = rng.integers(0, 4, len(docs)) / 2.0 if ties else rng.normal(size=len(docs))
            scores = np.where(rng.random(len(docs)) < 0.2, 1.0 + rng.integers(0, 3, len(docs)) * 1e-9, scores)
            run[f"q{q}"] = {d: float(s) for d, s in zip(docs, scores)}
    return qrels, run


def compare(binary: str, qrels_path: str, run_path: str, flags: list, options: dict, version: str) -> tuple:
    """(lines checked, mismatches) of one trec_eval call; None when trec_eval refuses the pair (10.0 without
    ``-c`` exits when a qrels query has no results: "result qid ... not found in qrels")."""
    done = subprocess.run([binary, "-q", "-m", "all_trec", *flags, qrels_path, run_path], capture_output=True,
                          text=True)
    if done.returncode != 0:
        return None
    out = done.stdout
    expected = collections.defaultdict(dict)
    for line in out.splitlines():
        measure, query, value = line.split()
        expected[measure][query] = value
    measures = [m for m in expected if m not in ("runid", "relstring")]
    qrels, run = br.load_qrels(qrels_path), br.load_run(run_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # queries only in the run: trec_eval leaves them out too
        means = br.evaluate(qrels, run, measures, version=version, **options)
        per = br.evaluate(qrels, run, measures, per_query=True, version=version, **options)
    checked, wrong = 0, []
    for m in measures:
        for query, want in expected[m].items():
            got = means[m] if query == "all" else per[m].get(query, float("nan"))
            text = f"{got:.0f}" if m.startswith("num_") else f"{got:.4f}"
            checked += 1
            if text != want:
                wrong.append((m, query, text, want, " ".join(flags)))
    return checked, wrong


#: trec_eval's own arguments the command is run with beside the binary
COMMAND_OPTIONS = ["-q -c -m all_trec", "-q -c -M7 -m all_trec", "-q -c -l2 -m all_trec -m relstring.15",
                   "-q -c -J -m all_trec", "-c -m official", "-q -c -m P.1,3,7 -m ndcg_cut.2,4 -m success.2",
                   "-n -q -c -m set", "-q -c -J -M5 -l2 -m all_trec", "-q -c -m utility.3,-1,-2,0.1 -N 500",
                   "-q -c -m rbp.p=0.8 -m rbp_resid.p=0.7 -m relstring -m unj.3", "-q -m all_trec",
                   "-q -c -m yaap -m ndcg.0=0,1=1.5,2=2.9,3=-1 -m ndcg_rel.1=3,3=1 -m Rndcg.2=0.5 -m G.1=0.5,2=0.9",
                   "-q -c -J -l2 -m yaap -m ndcg.-1=1,0=0.5 -m ndcg_rel.-2=3 -m G.3=1,1=2.5 -m Rndcg.0=1,1=0"]
#: trec_eval 10.0's alone (9.x has no dcg or ideal_dcg)
COMMAND_OPTIONS_10 = ["-q -c -m dcg -m ideal_dcg", "-q -J -M6 -m dcg.0=1,2=5", "-q -c -m ideal_dcg.1=0.2,3=7"]


def compare_command(binary: str, qrels_path: str, run_path: str, flags: str, version: str) -> tuple:
    """(lines, differing lines, same exit status) of ``boostrank trec_eval FLAGS`` against the binary."""
    import sys

    theirs = subprocess.run([binary, *flags.split(), qrels_path, run_path], capture_output=True, text=True)
    ours = subprocess.run([sys.executable, "-m", "boostrank", "trec_eval", f"--trec-eval={version}", *flags.split(),
                           qrels_path, run_path], capture_output=True, text=True)
    a, b = theirs.stdout.splitlines(), ours.stdout.splitlines()
    differ = [(x, y) for x, y in zip(a, b) if x != y] + [(x, None) for x in a[len(b):]] + [(None, y) for y in b[len(a):]]
    return len(a), differ, theirs.returncode == ours.returncode


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trec-eval", required=True, help="the trec_eval binary")
    ap.add_argument("--version", choices=["10", "9"], default="10", help="the binary's version (its rules)")
    ap.add_argument("--corpus", help="trec_eval's test/ folder (qrels.test, results.test, ...)")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--json", default=str(HERE / "results" / "trec_eval_check.json"))
    ap.add_argument("--command", action="store_true", help="check the boostrank trec_eval command's whole output")
    args = ap.parse_args(argv)
    pairs = []
    if args.corpus:
        c = Path(args.corpus)
        pairs += [(str(c / "qrels.test"), str(c / "results.test")), (str(c / "qrels.test"), str(c / "results.trunc")),
                  (str(c / "qrels.rel_level"), str(c / "results.test"))]
    folder = tempfile.mkdtemp()
    for seed in range(args.seeds):
        for ties, qrels_only in ((True, True), (False, True), (True, False), (False, False)):
            qrels, run = collection(seed, ties, qrels_only)
            qp, rp = (os.path.join(folder, f"{kind}{seed}{ties}{qrels_only}") for kind in "qr")
            br.save_qrels(qp, br.Qrels.from_dict(qrels))
            br.save_run(rp, br.Run.from_dict(run, name="check"))
            pairs.append((qp, rp))
    if args.command:
        lines, differing, calls = 0, [], 0
        for qp, rp in pairs:
            for flags in COMMAND_OPTIONS + (COMMAND_OPTIONS_10 if args.version == "10" else []):
                n, differ, same_status = compare_command(args.trec_eval, qp, rp, flags, args.version)
                calls += 1
                lines += n
                differing += [(flags, os.path.basename(qp), d) for d in differ]
                if not same_status:
                    differing.append((flags, os.path.basename(qp), "exit status"))
        print(f"boostrank trec_eval against trec_eval {args.version}: {calls} calls ({len(pairs)} pairs × "
              f"{calls // len(pairs)} option sets), {lines} lines; {len(differing)} differ")
        for row in differing[:20]:
            print("  ", *row)
        write_json(args.json, {"binary": args.trec_eval, "version": args.version, "command": True, "calls": calls,
                               "lines": lines, "mismatches": [list(map(str, r)) for r in differing]})
        return 1 if differing else 0
    checked, wrong, refused = 0, [], 0
    for qp, rp in pairs:
        for flags, options in OPTIONS:
            result = compare(args.trec_eval, qp, rp, flags, options, args.version)
            if result is None:
                refused += 1
                continue
            checked, wrong = checked + result[0], wrong + result[1]
    print(f"trec_eval {args.version} ({args.trec_eval}): {checked} lines over {len(pairs)} qrels/run pairs × "
          f"{len(OPTIONS)} option sets ({refused} calls refused by trec_eval); {len(wrong)} differ")
    for row in wrong[:20]:
        print("  ", *row)
    write_json(args.json, {"binary": args.trec_eval, "version": args.version, "lines": checked, "refused": refused,
                           "mismatches": [list(r) for r in wrong]})
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
