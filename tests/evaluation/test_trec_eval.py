"""boostrank.evaluation.trec_eval: ``boostrank trec_eval`` takes trec_eval's own arguments and prints what trec_eval
prints, byte for byte: trec_eval 9.0.8's test corpus run exactly as its ``make quicktest`` runs it, and trec_eval
10.0's outputs on the same files (``tests/data/trec_eval/v10``) for what the corpus does not reach."""

from __future__ import annotations

import io
import math
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import boostrank as br
from boostrank.cli import main
from boostrank.evaluation.trec_eval import FAMILIES, NICKNAMES, parse_arguments

CORPUS = Path(__file__).resolve().parents[1] / "data" / "trec_eval"

#: trec_eval's test script (its README table): expected output, arguments
QUICKTEST = {
    "out.test": "qrels.test results.test",
    "out.test.a": "-m all_trec qrels.test results.test",
    "out.test.aq": "-m all_trec -q qrels.test results.test",
    "out.test.aqc": "-m all_trec -q -c qrels.test results.trunc",
    "out.test.aqcM": "-m all_trec -q -c -M100 qrels.test results.trunc",
    "out.test.aql": "-m all_trec -mrelstring.20 -q -l2 qrels.rel_level results.test",
}


def run_trec_eval(args: list, capsys, monkeypatch, stdin: bytes | None = None) -> tuple[int, str, str]:
    monkeypatch.chdir(CORPUS)
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    rc = main(["trec_eval", *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.parametrize("name", sorted(QUICKTEST))
def test_trec_eval_quicktest_through_its_own_arguments(name, capsys, monkeypatch):
    rc, out, _ = run_trec_eval(["--trec-eval=9", *QUICKTEST[name].split()], capsys, monkeypatch)
    assert rc == 0
    assert out == (CORPUS / name).read_text()


def _v10_cases():
    for line in (CORPUS / "v10" / "COMMANDS").read_text().splitlines():
        name, args, files, status = line.split("|")
        yield pytest.param(name, shlex.split(args) + files.split(), int(status), id=name)


def _edge_cases():
    for line in (CORPUS / "edges" / "COMMANDS").read_text().splitlines():
        name, version, args, files, status = line.split("|")
        files = [str(CORPUS / "edges" / f) for f in files.split()]
        yield pytest.param(name, [f"--trec-eval={version}", *shlex.split(args), *files], int(status), id=name)


@pytest.mark.parametrize("name, args, status", list(_edge_cases()))
def test_trec_eval_at_its_edges(name, args, status, capsys, monkeypatch):
    """trec_eval 9.0.8's and 10.0's outputs and exit statuses where its rules decide (``edges/COMMANDS``): a query
    whose retrieved documents are all unjudged under -J, -M 0, -l 0 and -l -1, no query in common, the stand-in
    document judged, a run line without its tag, a comment line, negative gains, arguments read by atol/atof."""
    rc, out, err = run_trec_eval(args, capsys, monkeypatch)
    assert (rc, out) == (status, (CORPUS / "edges" / name).read_text())
    assert "Traceback" not in err


@pytest.mark.parametrize("name, args, status", list(_v10_cases()))
def test_trec_eval_10_outputs(name, args, status, capsys, monkeypatch):
    rc, out, err = run_trec_eval(args, capsys, monkeypatch)
    assert rc == status
    assert out == (CORPUS / "v10" / name).read_text()
    if status == 4:
        assert "result qid '302' not found in qrels" in err and "-c scores them 0" in err


def test_every_line_has_trec_eval_s_three_fields(capsys, monkeypatch):
    """A script that splits ``trec_eval -q -m all_trec`` output at tabs reads boostrank's unchanged."""
    rc, out, _ = run_trec_eval(["-q", "-m", "all_trec", "qrels.test", "results.test"], capsys, monkeypatch)
    assert rc == 0
    rows = [line.split("\t") for line in out.splitlines()]
    assert all(len(r) == 3 and r[0] == r[0].rstrip() + " " * (len(r[0]) - len(r[0].rstrip())) for r in rows)
    assert {r[0].strip() for r in rows if r[1] == "all"} >= {"runid", "num_q", "map", "P_5", "ndcg_cut_1000", "unj_5"}


def test_standard_input_and_the_file_it_replaces_print_the_same(capsys, monkeypatch):
    args = ["-q", "-m", "map", "-m", "P.5,10"]
    _, from_file, _ = run_trec_eval(args + ["qrels.test", "results.test"], capsys, monkeypatch)
    rc, from_stdin, _ = run_trec_eval(args + ["qrels.test", "-"], capsys, monkeypatch,
                                      stdin=(CORPUS / "results.test").read_bytes())
    assert rc == 0 and from_stdin == from_file and "P_10" in from_file and "P_15" not in from_file
    rc, _, err = run_trec_eval(["-", "-"], capsys, monkeypatch)
    assert rc == 1 and "not both" in err


@pytest.mark.parametrize("args, status, message", [
    (["-m", "no_such", "qrels.test", "results.test"], 1, "trec_eval: illegal measure 'no_such'"),
    (["-m", "P.", "qrels.test", "results.test"], 1, "improper measure in parameter 'P'"),
    (["-m", "P.5,5", "qrels.test", "results.test"], 2, "trec_eval: duplicate cutoffs detected\n"
                                                        "trec_eval: Cannot initialize measure 'P'"),
    (["-m", "P.0", "qrels.test", "results.test"], 2, "trec_eval: Negative cutoff detected"),
    (["-m", "utility.1,2", "qrels.test", "results.test"], 4, "trec_eval: Can't calculate measure 'utility'"),
    (["-M", "-1", "qrels.test", "results.test"], 1, "-M takes a number of documents, 0 or more"),
    (["-m", "rbp.0.8", "qrels.test", "results.test"], 2, "malformed pair parameters in '0.8'"),
    (["-m", "map.3", "qrels.test", "results.test"], 1, "map takes no parameter"),
    (["-m", "prefs_simp", "qrels.test", "results.test"], 1, "preference measure"),
    (["-m", "ndcg.0=0,,1=1", "qrels.test", "results.test"], 2, "trec_eval: malformed pair parameters in '0=0,,1=1'"),
    (["-m", "G.1", "qrels.test", "results.test"], 2, "trec_eval: Cannot initialize measure 'G'"),
    (["-m", "ndcg_p", "qrels.test", "results.test"], 1, "trec_eval: illegal measure 'ndcg_p'"),
    (["--trec-eval=9", "-m", "dcg", "qrels.test", "results.test"], 1, "trec_eval 9.x has no dcg"),
    (["-m", "yaap.2", "qrels.test", "results.test"], 1, "yaap takes no parameter"),
    (["-R", "prefs", "qrels.test", "results.test"], 2, "only qrels files"),
    (["-Z", "z.txt", "qrels.test", "results.test"], 2, "-Z"),
    (["qrels.test"], 1, "Usage: boostrank trec_eval"),
    (["-x", "qrels.test", "results.test"], 1, "option -x not recognized"),
    (["--trec-eval=9", "-m", "rbp", "qrels.test", "results.test"], 1, "trec_eval 9.x has no rbp"),
    (["qrels.test", "no_such_run"], 2, "no_such_run"),
])
def test_what_trec_eval_refuses_is_refused_with_its_status(args, status, message, capsys, monkeypatch):
    rc, out, err = run_trec_eval(args, capsys, monkeypatch)
    assert rc == status and message in err and out == ""


def test_help_version_and_the_order_of_measures(capsys, monkeypatch):
    rc, out, _ = run_trec_eval(["-h"], capsys, monkeypatch)
    assert rc == 0 and "-J" in out and "all_trec" in out and "Not here" in out
    rc, _, err = run_trec_eval(["-v"], capsys, monkeypatch)
    assert rc == 0 and "trec_eval version 10.0" in err
    # measures print in trec_eval's order whatever the order of -m; the first parameters given are kept
    rc, out, _ = run_trec_eval(["-m", "ndcg_cut.5", "-m", "map", "-m", "P.3", "-m", "P.7", "qrels.test",
                                "results.test"], capsys, monkeypatch)
    assert [line.split()[0] for line in out.splitlines()] == ["map", "P_3", "ndcg_cut_5"]
    assert all(n in FAMILIES for names in NICKNAMES.values() for n in names)
    assert parse_arguments(["-c", "-M7", "-l2", "-J", "-n", "-N", "9", "a", "b"]).depth == 7


def test_judged_only_is_the_run_without_its_unjudged_documents():
    """-J against its definition: drop what the qrels do not grade (after -M), then evaluate as usual."""
    rng = np.random.default_rng(5)
    qrels, run = {}, {}
    for q in range(12):
        docs = [f"d{i}" for i in range(30)]
        qrels[str(q)] = {d: int(rng.integers(-1, 3)) for d in docs if rng.random() < 0.6}
        run[str(q)] = {d: float(rng.integers(0, 6)) for d in docs if rng.random() < 0.8}
    qrels = br.evaluation.Qrels.from_dict(qrels)
    metrics = ["map", "P_5", "ndcg_cut_10", "recip_rank", "bpref", "num_ret", "Rprec"]
    for depth in (None, 7):
        got = br.evaluate(qrels, run, metrics, per_query=True, judged_only=True, depth=depth)
        kept = {}
        for q, scores in run.items():
            by_docid = sorted(scores.items(), reverse=True)  # trec_eval's ties: docid descending
            ranked = sorted(by_docid, key=lambda kv: -kv[1])[:depth]
            judged = qrels.to_dict().get(q, {})
            kept[q] = {d: s for d, s in ranked if d in judged and judged[d] >= 0}
        kept = {q: s for q, s in kept.items() if s}
        want = br.evaluate(qrels, kept, metrics, per_query=True)
        for m in metrics:
            for q in want[m]:
                assert got[m][q] == pytest.approx(want[m][q]), (m, q, depth)
    with pytest.raises(ValueError, match="judged_only is trec_eval's -J"):
        br.evaluate((np.array([1, 0]), np.array([1, 1])), np.array([0.5, 0.2]), ["map"], judged_only=True)


@pytest.mark.slow
def test_the_console_command_is_trec_eval_s(tmp_path):
    """The installed entry point routes ``trec_eval`` past argparse (``-mP.5,10`` stays one argument)."""
    out = subprocess.run([sys.executable, "-m", "boostrank", "trec_eval", "-mP.5,10", "-q",
                          str(CORPUS / "qrels.test"), str(CORPUS / "results.test")],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0].split("\t") == ["P_5                   ", "301", "0.0000"]


@pytest.mark.slow
@pytest.mark.parametrize("qrels, status", [("qrels.test", 0), ("no-such-qrels", 2)])
def test_the_console_command_ends_once_its_output_is_out_with_every_exit_handler_run(tmp_path, qrels, status,
                                                                                     capsys, monkeypatch):
    """The console command skips the interpreter's teardown (cli._exit_now): its whole output, its status and the
    process's exit handlers are those of the usual exit."""
    marker = tmp_path / "handler-ran"
    script = (f"import atexit, sys; atexit.register(lambda: open({str(marker)!r}, 'w').close()); "
              f"from boostrank.cli import main; sys.argv = ['boostrank', 'trec_eval', '-q', '-m', 'all_trec', "
              f"{str(CORPUS / qrels)!r}, {str(CORPUS / 'results.test')!r}]; sys.exit(main())")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    rc, expected, err = run_trec_eval(["-q", "-m", "all_trec", str(CORPUS / qrels), str(CORPUS / "results.test")],
                                      capsys, monkeypatch)
    assert (out.returncode, out.stdout, out.stderr) == (status, expected, err) and rc == status
    assert marker.exists()


@pytest.mark.slow
def test_a_reader_gone_mid_output_ends_the_console_command_as_sigpipe_ends_c(tmp_path):
    """``| head``: the reader closes the pipe after a few bytes of output far larger than the pipe holds; the
    command stops with C's status for SIGPIPE and no traceback, where one write of the whole text would end with
    status 0."""
    (tmp_path / "qrels").write_text("".join(f"q{q} 0 d{d} {d % 2}\n" for q in range(300) for d in range(20)))
    (tmp_path / "run").write_text("".join(f"q{q} Q0 d{d} {d} {-d} r\n" for q in range(300) for d in range(20)))
    proc = subprocess.Popen([sys.executable, "-m", "boostrank", "trec_eval", "-q", "-m", "all_trec",
                             str(tmp_path / "qrels"), str(tmp_path / "run")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)  # about 1.4 MB of output
    assert proc.stdout.read(100).startswith(b"num_ret")
    proc.stdout.close()
    assert proc.wait(timeout=600) == 141 and proc.stderr.read() == b""
    proc.stderr.close()


def test_a_query_graded_only_negatively_reads_the_previous_query_s_gains(tmp_path, capsys, monkeypatch):
    """trec_eval keeps each query's counts per grade until a grade >= 0 replaces them (form_res_rels.c), so a
    query whose every judgement is negative gets the ideal DCG of the query evaluated before it."""
    (tmp_path / "qrels").write_text("q1 0 a 2\nq1 0 b 1\nq1 0 c 0\nq2 0 x -1\nq3 0 y 1\n")
    (tmp_path / "run").write_text("q1 Q0 a 1 3 r\nq1 Q0 c 2 2 r\nq2 Q0 x 1 1 r\nq3 Q0 y 1 1 r\n")
    rc, out, _ = run_trec_eval(["-q", "-m", "ideal_dcg", "-m", "dcg.2=5", "-m", "yaap", str(tmp_path / "qrels"),
                                str(tmp_path / "run")], capsys, monkeypatch)
    rows = {(r.split("\t")[0].strip(), r.split("\t")[1]): float(r.split("\t")[2]) for r in out.splitlines()}
    assert rc == 0
    assert rows["ideal_dcg", "q2"] == rows["ideal_dcg", "q1"] == round(2 + 1 / np.log2(3), 4)
    assert rows["ideal_dcg", "q3"] == 1.0 and rows["dcg_2=5", "q1"] == 5.0
    assert rows["yaap", "q2"] == 0.0  # log(1 / 1): no relevant document, none retrieved


def test_standard_input_is_read_as_it_comes_and_named(capsys, monkeypatch):
    """'-' is read under the byte cap and the first-line check, not copied whole to a private file first (a stream
    that never ends filled the disk); its errors name standard input."""
    from ..conftest import EndlessStream

    stream = EndlessStream(b"301 Q0 d 1 1.0 t\n301 Q0\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(stream)))
    rc, _, err = run_trec_eval(["qrels.test", "-"], capsys, monkeypatch)
    assert rc == 2 and "standard input:2: a run line" in err and stream.given < 1 << 22


def test_a_grade_of_a_billion_costs_its_distinct_grades(tmp_path, capsys, monkeypatch):
    """-m dcg and gains per grade walk the distinct grades, not every integer up to the highest."""
    (tmp_path / "q").write_text("1 0 a 1000000000\n1 0 b 3\n")
    (tmp_path / "r").write_text("1 Q0 b 1 2.0 t\n1 Q0 a 2 1.0 t\n")
    rc, out, _ = run_trec_eval(["-m", "dcg", "-m", "ndcg.3=2.5", str(tmp_path / "q"), str(tmp_path / "r")], capsys,
                               monkeypatch)
    dcg = 3 + 1e9 / math.log2(3)
    ndcg = (2.5 + 1e9 / math.log2(3)) / (1e9 + 2.5 / math.log2(3))
    assert rc == 0 and out.splitlines() == [f"dcg                   \tall\t{dcg:.4f}",
                                            f"ndcg_3=2.5            \tall\t{ndcg:.4f}"]


def test_a_closed_output_pipe_stops_quietly(capsys, monkeypatch):
    """| head: the reader went away; no traceback, the status of a C program killed by SIGPIPE."""
    import os

    class Closed(io.TextIOBase):
        def __init__(self, fd):
            self.fd = fd

        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def fileno(self):
            return self.fd

    monkeypatch.chdir(CORPUS)
    read, write = os.pipe()
    try:
        monkeypatch.setattr(sys, "stdout", Closed(write))
        assert main(["trec_eval", "-q", "qrels.test", "results.test"]) == 141
    finally:
        os.close(read)
        os.close(write)
    assert capsys.readouterr().err == ""
