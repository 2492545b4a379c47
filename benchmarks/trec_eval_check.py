"""boostrank's measures against a trec_eval binary, line for line (``trec_eval -q -m all_trec``).

The binary is the reference of record: trec_eval 10.0 (``boostrank.evaluate``'s default rules) or 9.x
(``--version 9``: float32 score ties, ``x R + 0.9`` cut-offs).  Build one from its source in a scratch folder
(``git clone https://github.com/usnistgov/trec_eval && make``; no install) and pass its path.  Checked: the
test corpus's qrels and runs (``--corpus``, trec_eval's ``test/`` folder) and random collections with what
trec_eval must get right (tied scores, scores equal only in float32, documents unjudged, pooled but unjudged
and judged, queries only in the qrels or only in the run, grades -1 to 3, a query whose retrieved documents are all
unjudged and one judged all 0), each with no option, ``-c``, ``-l2``, ``-M3``, ``-J`` and ``-l0``.  Every printed
line (measure, query, value) must be boostrank's at trec_eval's
precision; ``runid`` and ``relstring`` are text and left out.

``--command``: instead, the ``boostrank trec_eval`` command against the binary, whole output and exit status, on
the same pairs under trec_eval's own option sets (``COMMAND_OPTIONS``: ``-c``, ``-M``, ``-l``, ``-J``, ``-N``,
``-n``, parameters, gains per grade, ``relstring``; ``runid`` and ``relstring`` included), and on hostile pairs
(``HOSTILE``: one case each of what trec_eval's rules decide at the edges: a query whose retrieved documents are
all unjudged, all judged 0, or judged only negatively (first or later), a document retrieved twice (near the top
or past ``-M``), no query in common, a query only one side has, a five-field run line, blank, white-space and
``#`` lines, trec_eval's stand-in document judged, grades up to 12) under ``HOSTILE_OPTIONS`` (``-M 0``, ``-l``
of 0 and −1, ``-J`` with ``-c``).  A difference the evaluation guide lists (``DOCUMENTED``) is counted apart;
the script fails on any other.

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
OPTIONS = [([], {}), (["-c"], {"complete": True}), (["-l2"], {"relevance_level": 2}), (["-M3"], {"depth": 3}),
           (["-J"], {"judged_only": True}), (["-l0"], {"relevance_level": 0})]
#: under -J, an emptied ranking's interpolated precision: trec_eval's 0 / 0, br.evaluate's 0 (the guide says so)
_EMPTY_NAN = ("iprec_at_recall", "11pt_avg")


def collection(seed: int, ties: bool, qrels_only: bool):
    """Qrels and a run as dicts, with the cases trec_eval's rules decide (``qrels_only``: queries the run lacks,
    which trec_eval 10.0 evaluates only with ``-c``)."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(12):
        docs = [f"d{rng.integers(0, 10 ** 6)}-{i}" for i in range(int(rng.integers(1, 15)))]
        judged = [d for d in docs if rng.random() < 0.7] + [f"u{q}-{i}" for i in range(int(rng.integers(0, 4)))]
        grades = rng.choice([-1, 0, 0, 1, 2, 3], size=len(judged))
        if q == 4:  # every retrieved document unjudged (-J empties it)
            judged, grades = [f"u{q}-{i}" for i in range(3)], rng.choice([0, 1, 2], size=3)
        elif q == 5:  # every judged document graded 0 (-l0 makes them relevant)
            grades = np.zeros(len(judged), dtype=np.int64)
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
            text = "-nan" if got != got else f"{got:.0f}" if m.startswith("num_") else f"{got:.4f}"
            if "-J" in flags and m.startswith(_EMPTY_NAN) and want == "-nan":
                continue
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
    """(lines, differing lines, same exit status) of ``boostrank trec_eval FLAGS`` (in this process, as
    ``boostrank.cli.main`` calls it) against the binary."""
    import contextlib
    import io

    from boostrank.cli import main as boostrank

    theirs = subprocess.run([binary, *flags.split(), qrels_path, run_path], capture_output=True, text=True)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = boostrank(["trec_eval", f"--trec-eval={version}", *flags.split(), qrels_path, run_path])
    a, b = theirs.stdout.splitlines(), out.getvalue().splitlines()
    differ = [(x, y) for x, y in zip(a, b) if x != y] + [(x, None) for x in a[len(b):]] + [(None, y) for y in b[len(a):]]
    return len(a), differ, theirs.returncode == status


#: the hostile cases, one kind a pair (see the module docstring)
HOSTILE = ("plain", "all_unjudged", "all_zero", "negative_first", "negative_later", "duplicate", "duplicate_late",
           "no_common", "five_fields", "blank_qrels", "space_qrels", "hash_qrels", "hash_run", "blank_run",
           "stand_in", "run_only", "qrels_only", "high_grades")
HOSTILE_OPTIONS = ["-q -m all_trec", "-q -c -m all_trec", "-q -J -m all_trec", "-q -c -J -m all_trec",
                   "-q -l0 -m all_trec", "-q -c -l0 -m all_trec", "-q -l-1 -m all_trec", "-q -M0 -m all_trec",
                   "-q -c -M0 -m official", "-q -M2 -m official", "-q -l2 -J -m all_trec",
                   "-q -c -m ndcg.0=0,1=1,2=3 -m G.1=0.5", "-q -J -c -l0 -m Rndcg -m ndcg_rel", "-m official"]
#: (kind, version or None for both): the differences the evaluation guide lists, one line each there
DOCUMENTED = {("duplicate", None), ("duplicate_late", None), ("negative_first", None), ("negative_later", None),
              ("blank_qrels", None), ("space_qrels", None), ("hash_qrels", "9"), ("hash_run", "9")}


def hostile(seed: int, kind: str) -> tuple[str, str]:
    """(qrels text, run text) of a few plain queries and one case of ``kind``."""
    import random

    rng = random.Random(seed * 100 + HOSTILE.index(kind))
    qrels, run = [], []
    queries = [f"q{i}{rng.randint(0, 9)}" for i in range(rng.randint(2, 4))]
    special = rng.randrange(len(queries))
    for i, q in enumerate(queries):
        docs = list(dict.fromkeys(f"d{rng.randint(0, 30)}" for _ in range(rng.randint(1, 8))))
        scores = [(d, round(rng.choice([rng.random(), 0.5, 1.0]), 3)) for d in docs]
        if i != special or kind in ("plain", "five_fields", "blank_qrels", "space_qrels", "hash_qrels", "hash_run",
                                    "blank_run"):
            judged = {d: rng.choice([-1, 0, 0, 1, 2, 3]) for d in docs if rng.random() < 0.7}
            judged[f"x{q}"] = rng.choice([0, 1, 2])
        elif kind == "all_unjudged":
            judged = {f"u{j}": rng.choice([0, 1, 2]) for j in range(rng.randint(1, 3))}
        elif kind == "all_zero":
            judged = dict.fromkeys(docs, 0)
        elif kind in ("negative_first", "negative_later"):
            judged = {d: rng.choice([-1, -2, -3]) for d in docs}
        elif kind == "high_grades":
            judged = {d: rng.choice([0, 1, 7, 12]) for d in docs}
        elif kind == "stand_in":  # trec_eval 10.0's stand-in document, judged, and a query the run lacks
            judged = {"ceci_nest_pas_un_docno": rng.choice([0, 1, 2]), docs[0]: 1}
            qrels += [f"zz{q} 0 ceci_nest_pas_un_docno {rng.choice([1, 2])}", f"zz{q} 0 dd 1"]
        else:
            judged = {d: rng.choice([0, 1]) for d in docs}
            if kind in ("duplicate", "duplicate_late"):
                scores.insert(rng.randint(0, len(scores)), (docs[0], 0.001 if kind == "duplicate_late" else 0.99))
        if not (i == special and kind == "run_only"):
            qrels += [f"{q} 0 {d} {g}" for d, g in judged.items()]
        if not (i == special and kind == "qrels_only"):
            run += [f"{q} Q0 {d} {r + 1} {x} tag" for r, (d, x) in enumerate(scores)]
    if kind == "no_common":
        run = [line.replace("q", "r", 1) for line in run]
    elif kind == "five_fields":
        i = rng.randrange(len(run))
        run[i] = " ".join(run[i].split()[:5])
    elif kind in ("blank_qrels", "space_qrels"):
        qrels.insert(rng.randint(0, len(qrels)), "" if kind == "blank_qrels" else "   ")
    elif kind == "hash_qrels":
        qrels.insert(0, "# a comment")
    elif kind in ("hash_run", "blank_run"):
        run.insert(rng.randint(0, len(run)), "# a comment" if kind == "hash_run" else "")
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


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
        lines, differing, documented, calls = 0, [], collections.Counter(), 0
        cases = [(qp, rp, None, COMMAND_OPTIONS + (COMMAND_OPTIONS_10 if args.version == "10" else []))
                 for qp, rp in pairs]
        for seed in range(args.seeds):
            for kind in HOSTILE:
                qp, rp = (os.path.join(folder, f"{kind}-{what}{seed}") for what in "qr")
                for path, text in zip((qp, rp), hostile(seed, kind)):
                    Path(path).write_text(text)
                cases.append((qp, rp, kind, HOSTILE_OPTIONS))
        for qp, rp, kind, option_sets in cases:
            for flags in option_sets:
                n, differ, same_status = compare_command(args.trec_eval, qp, rp, flags, args.version)
                calls += 1
                lines += n
                found = [(flags, os.path.basename(qp), d) for d in differ] + \
                    ([] if same_status else [(flags, os.path.basename(qp), "exit status")])
                if (kind, None) in DOCUMENTED or (kind, args.version) in DOCUMENTED:
                    documented[kind] += len(found)
                else:
                    differing += found
        print(f"boostrank trec_eval against trec_eval {args.version}: {calls} calls ({len(pairs)} pairs and "
              f"{args.seeds} × {len(HOSTILE)} hostile ones), {lines} lines; {len(differing)} differ undocumented; "
              f"documented differences by kind: {dict(documented) or 'none'}")
        for row in differing[:20]:
            print("  ", *row)
        write_json(args.json, {"binary": args.trec_eval, "version": args.version, "command": True, "calls": calls,
                               "lines": lines, "mismatches": [list(map(str, r)) for r in differing],
                               "documented": dict(documented)})
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
