"""qrels and runs (#45): trec_eval's measures through pytrec_eval and a plain-Python oracle, runs compared with
paired tests against scipy and an exact enumeration, the TREC files, the plots and the command line."""

from __future__ import annotations

import gzip
import json
import math
import warnings

import numpy as np
import pytest

import boostrank as br
from boostrank.evaluation.evaluate import QueryMismatchWarning
from tests.reference import (randomization_p_exact, sign_flip_extremes_reference, trec_eval_reference,
                             trec_more_reference)
from boostrank.cli import main
import bz2

from ..conftest import nonlinear_letor

K = 5
MEASURES = ["ndcg", f"ndcg_cut_{K}", "map", f"map_cut_{K}", f"P_{K}", f"recall_{K}", "recip_rank", "Rprec"]


def random_collection(seed, n_queries=12, ties=True):
    """Qrels and a run with what trec_eval must get right: tied scores, unjudged and unretrieved documents,
    negative and zero grades, queries without relevant documents, queries only in the run or only in the qrels."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        docs = [f"d{rng.integers(0, 10 ** 6)}-{i}" for i in range(int(rng.integers(1, 15)))]
        judged = [d for d in docs if rng.random() < 0.7] + [f"u{q}-{i}" for i in range(int(rng.integers(0, 4)))]
        grades = rng.choice([-1, 0, 0, 1, 2, 3], size=len(judged))
        if q % 5 == 1:
            grades = np.zeros(len(judged), dtype=int)  # no relevant document
        if q % 6 != 2:  # some queries are only in the run
            qrels[qid] = {d: int(g) for d, g in zip(judged, grades)} or {"x": 1}
        if q % 7 != 3:  # and some only in the qrels
            scores = rng.integers(0, 4, len(docs)) / 2.0 if ties else rng.normal(size=len(docs))
            run[qid] = {d: float(s) for d, s in zip(docs, scores)}
    return qrels, run


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ties", [True, False])
def test_every_trec_measure_equals_pytrec_eval_and_the_oracle(seed, ties):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = random_collection(seed, ties=ties)
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", f"ndcg_cut.{K}", "map", f"map_cut.{K}", f"P.{K}",
                                                      f"recall.{K}", "recip_rank", "Rprec"}).evaluate(run)
    oracle = trec_eval_reference(qrels, run, K)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", QueryMismatchWarning)
        got = br.evaluate(qrels, run, MEASURES, per_query=True)
    assert set(expected) == set(oracle)
    for m in MEASURES:
        assert set(got[m]) == set(expected), m  # queries in both, as trec_eval without -c
        for q in expected:
            assert got[m][q] == pytest.approx(expected[q][m], abs=1e-9), (m, q)
            assert got[m][q] == pytest.approx(oracle[q][m], abs=1e-12), (m, q)


MORE = ["num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "set_P", "set_recall", "set_map",
        "set_relative_P", "set_F", "utility", "bpref", "infAP", "binG", "gm_map", "11pt_avg", "success",
        "relative_P.5,10,15,20,30,100", "iprec_at_recall", "Rprec_mult"]
#: trec_eval's experimental gain measures: checked against pytrec_eval (trec_eval 9.x's code) and the corpus
GAIN_WALKS = ["G", "ndcg_rel", "Rndcg"]
#: trec_eval 10's: pytrec_eval (9.x) lacks them, the corpus too; checked against the oracle
TREC10 = ["unj", "rbp", "rbp_resid"]
#: ranx's measures trec_eval lacks: checked against the oracle
RANX = ["hit_rate", "f1.1,3,10"]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("ties", [True, False])
@pytest.mark.parametrize("level", [1, 2])
def test_the_other_trec_measures_equal_the_oracle_and_pytrec_eval(seed, ties, level):
    """Unjudged, pooled-but-unjudged (negative grades) and judged documents, ties, queries without relevant
    documents, relevance levels: per query against the oracle and pytrec_eval (trec_eval 9.x's rules)."""
    qrels, run = random_collection(seed, ties=ties)
    oracle = trec_more_reference(qrels, run, level=level)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", QueryMismatchWarning)
        got = br.evaluate(qrels, run, MORE + TREC10 + RANX, per_query=True, relevance_level=level, version="9")
    names = [m for m in got if m in next(iter(oracle.values()))]
    assert len(names) == len(got) == 56
    for m in names:
        for q in oracle:
            assert got[m][q] == pytest.approx(oracle[q][m], abs=1e-12), (m, q)
    pytrec_eval = pytest.importorskip("pytrec_eval")
    families = {m.split(".")[0] for m in MORE} | set(GAIN_WALKS)
    expected = pytrec_eval.RelevanceEvaluator(qrels, families, relevance_level=level).evaluate(run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", QueryMismatchWarning)
        got.update(br.evaluate(qrels, run, GAIN_WALKS, per_query=True, relevance_level=level, version="9"))
    for m in [m for m in names if m.split("_")[0] not in ("unj", "rbp", "hit", "f1")] + GAIN_WALKS:
        for q in oracle:
            want = math.exp(expected[q][m]) if m.startswith("gm_") else expected[q][m]
            have = max(got[m][q], 1e-5) if m.startswith("gm_") else got[m][q]
            assert have == pytest.approx(want, abs=1e-9), (m, q)


def test_trec_eval_options_cut_complete_and_combine_queries_as_trec_eval():
    qrels = {"a": {"d1": 1, "d2": 0, "d3": 1}, "b": {"e1": 1}, "c": {"f1": 2, "f2": 0}}
    run = {"a": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "b": {"x": 1.0, "e1": 0.5}}
    plain = br.evaluate(qrels, run, ["num_q", "num_rel", "num_ret", "map", "gm_map", "P_5"])
    assert plain["num_q"] == 2 and plain["num_rel"] == 3 and plain["num_ret"] == 5  # sums, as trec_eval's
    assert plain["map"] == pytest.approx(((1 + 2 / 3) / 2 + 1 / 2) / 2)
    assert plain["gm_map"] == pytest.approx(math.sqrt((1 + 2 / 3) / 2 * 1 / 2))
    full = br.evaluate(qrels, run, ["num_q", "num_rel", "num_ret", "map", "gm_map", "P_5"], complete=True)
    assert full["num_q"] == 3 and full["num_rel"] == 4 and full["num_ret"] == 5
    assert full["map"] == pytest.approx(plain["map"] * 2 / 3)  # c scores 0
    assert full["gm_map"] == pytest.approx((plain["gm_map"] ** 2 * 1e-5) ** (1 / 3))  # 0 floored at 1e-5
    per = br.evaluate(qrels, run, ["map", "num_ret"], per_query=True, complete=True)
    assert per["map"]["c"] == 0.0 and per["num_ret"]["c"] == 0
    cut = br.evaluate(qrels, run, ["num_ret", "map", "set_P"], per_query=True, depth=1)
    assert cut["num_ret"] == {"a": 1, "b": 1} and cut["set_P"]["b"] == 0
    assert cut["map"]["a"] == pytest.approx(1 / 2)
    strict = br.evaluate(qrels, run, ["num_rel"], complete=True, relevance_level=2)
    assert strict["num_rel"] == 1
    assert list(br.evaluate(qrels, run, "success")) == ["success_1", "success_5", "success_10"]
    assert len(br.evaluate(qrels, run, "all_trec")) >= 88
    for bad in (dict(depth=-1), dict(relevance_level=1.5), dict(version="8")):
        with pytest.raises(ValueError, match=next(iter(bad))):
            br.evaluate(qrels, run, "map", **bad)
    for bad, match in (("utility.1,2", "four coefficients"), ("bpref.3", "takes no parameter"),
                       ("success.0", "positive integers")):
        with pytest.raises(ValueError, match=match):
            br.evaluate(qrels, run, bad)


def test_version_9_ranks_on_float32_scores_and_cuts_recall_levels_as_9_did():
    # 1 + 1e-9 and 1 are one float32: trec_eval 9 ties them and breaks the tie by docid, descending
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0 + 1e-9, "b": 1.0}}
    assert br.evaluate(qrels, run, "recip_rank")["recip_rank"] == 1.0
    assert br.evaluate(qrels, run, "recip_rank", version="9")["recip_rank"] == 0.5
    # R = 7: 0.2 R = 1.4 relevant documents is 2 by 9's (long)(x R + 0.9) and 1 by 10's lround
    qrels = {"q": {f"r{i}": 1 for i in range(7)}}
    run = {"q": {"r0": 99.0, **{f"n{i}": 50.0 - i for i in range(5)}, **{f"r{i}": 1.0 / i for i in range(1, 7)}}}
    v10 = br.evaluate(qrels, run, "iprec_at_recall_0.20")["iprec_at_recall_0.20"]
    v9 = br.evaluate(qrels, run, "iprec_at_recall_0.20", version="9")["iprec_at_recall_0.20"]
    assert v10 == 1.0 and v9 == pytest.approx(7 / 12)  # rank 1 has recall 1; recall 2 starts at rank 7


def test_the_mean_is_over_the_evaluated_queries_and_unjudged_queries_are_reported():
    qrels, run = random_collection(3)
    with pytest.warns(QueryMismatchWarning, match=r"2 of its 10 queries are not in the qrels and are not evaluated "
                                                  r"\(q2, q8\)"):
        per = br.evaluate(qrels, run, ["map"], per_query=True)["map"]
    with pytest.warns(QueryMismatchWarning):
        mean = br.evaluate(qrels, run, "map")["map"]
    assert mean == pytest.approx(np.mean(list(per.values())))
    # queries of the qrels without results: left out as trec_eval 9 leaves them (10.0 refuses the run), said aloud
    with pytest.warns(QueryMismatchWarning, match=r"2 queries of the qrels have no results and are not evaluated "
                                                  r"\(q10, q3\); complete=True"):
        br.evaluate(qrels, run, "map")
    assert "q10" not in per and "q10" in qrels


def test_qrels_and_run_files_round_trip_and_compressed(tmp_path):
    qrels, run = random_collection(1, ties=True)
    qpath = tmp_path / "qrels.txt.gz"
    with gzip.open(qpath, "wt") as fh:
        for q, docs in qrels.items():
            fh.writelines(f"{q} 0 {d} {g}\n" for d, g in docs.items())
    loaded = br.load_qrels(qpath)
    assert loaded.to_dict() == qrels
    r = br.Run.from_dict(run, name="mine")
    br.save_run(tmp_path / "run.txt", r)
    lines = (tmp_path / "run.txt").read_text().splitlines()
    assert all(line.endswith(" mine") and line.split()[1] == "Q0" for line in lines)
    again = br.load_run(tmp_path / "run.txt")
    assert again.name == "mine" and again.to_dict() == run
    # the written ranks are trec_eval's order: score descending, docid descending
    first = [ln.split() for ln in lines if ln.startswith("q0 ")]
    assert [f[3] for f in first] == [str(i) for i in range(1, len(first) + 1)]
    keys = [(float(f[4]), f[2]) for f in first]
    assert keys == sorted(keys, reverse=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", QueryMismatchWarning)
        assert br.evaluate(qpath, tmp_path / "run.txt", MEASURES) == br.evaluate(qrels, run, MEASURES)
    br.save_run(tmp_path / "top2.txt", r, tag="t2", depth=2)
    assert max(int(ln.split()[3]) for ln in (tmp_path / "top2.txt").read_text().splitlines()) == 2


@pytest.mark.parametrize("text, match", [
    ("q1 0 d1\n", r"qrels.txt:1: a qrels line is 'qid iter docno rel' \(4 fields separated by spaces or tabs\), got 3"),
    ("q1 0 d1 1\nq1 0 d2 high\n", r"qrels.txt:2: grade 'high' is not an integer"),
    ("q1 0 d1 1\n\nq1 0 d1 2\n", r"qrels.txt:3: qid q1 docno d1 is judged again \(line 1\)"),
    (b"q1 0 \xff 1\n", r"qrels.txt:1: not UTF-8"),
])
def test_malformed_qrels_name_file_and_line(tmp_path, text, match):
    path = tmp_path / "qrels.txt"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(br.LetorFormatError, match=match):
        br.load_qrels(path)


def test_runs_and_qrels_to_and_from_pandas():
    pd = pytest.importorskip("pandas")
    qrels = br.Qrels.from_dict({"q1": {"a": 1, "b": 0}, "007": {"c": 2}})
    run = br.Run.from_dict({"q1": {"a": 0.5, "b": 0.7}, "007": {"c": 1.0}}, name="r")
    assert br.Qrels.from_frame(qrels.to_frame()).to_dict() == qrels.to_dict()
    back = br.Run.from_frame(run.to_frame(), name="r")
    assert back.to_dict() == run.to_dict() and back.name == "r"
    frame = pd.DataFrame({"query_id": [7, 7], "doc_id": ["x", "y"], "relevance": [1, 0]})
    assert br.Qrels.from_frame(frame, "query_id", "doc_id", "relevance").to_dict() == {"7": {"x": 1, "y": 0}}


@pytest.mark.parametrize("seed", range(4))
def test_the_fast_reader_reads_what_the_line_reader_reads(tmp_path, monkeypatch, seed):
    """Runs and qrels read in one pass, and in parts (a run of lines per thread), equal the line-by-line reader's,
    on files a user may hand in:
    five or seven fields, tabs and runs of spaces, CR LF, comments, a BOM, odd numbers, ids such as NA and 001;
    where the line reader refuses a file, so does the reading (naming the line)."""
    import random

    import numba

    from boostrank.evaluation import files as trec

    rng = random.Random(seed)
    pieces = ["001", "NA", "null", "q1", "d-1", "1.0", "1e2", "+1", "-0", "1_0", ".5", "nan", "inf", "1e999", "x",
              "0x1", "0x1p3", "1e", "--1", "\uff13", "\u0661", "1.", "+.5e-3", '"q"', "é", "d\u00a0"]
    for kind in ("run", "qrels"):
        for trial in range(30):
            lines, plain = [], rng.random() < 0.5  # one space between fields, or tabs and runs of spaces
            for i in range(rng.randint(1, 8)):
                fields = ([rng.choice(["q1", "001", "7"]), "Q0", f"d{rng.randint(0, 5)}", str(i + 1),
                           repr(rng.gauss(0, 1)), "tag"] if kind == "run" else
                          [rng.choice(["q1", "001"]), "0", f"d{rng.randint(0, 5)}", str(rng.randint(-1, 3))])
                if rng.random() < 0.15:
                    fields[rng.randrange(len(fields))] = rng.choice(pieces)
                if rng.random() < 0.1:
                    fields = fields[:-1] if rng.random() < 0.5 else fields + ["extra"]
                lines.append((" " if plain else rng.choice([" ", "\t", "  "])).join(fields))
            text = rng.choice(["\n", "\r\n"]).join(lines) + rng.choice(["\n", "\n", ""])
            if rng.random() < 0.1:
                text = rng.choice(["# a comment\n", "\n", "\n\n"]) + text  # a run's tag: its first line's
            path = tmp_path / f"{kind}{trial}"
            path.write_bytes(("\ufeff" if rng.random() < 0.1 else "").encode() + text.encode())
            load = br.load_run if kind == "run" else br.load_qrels
            outcomes = []
            for mode in ("one pass", "in parts", "line by line"):
                if mode == "in parts":  # a run of lines per thread, cut anywhere: one part per few lines
                    monkeypatch.setattr(trec, "_BYTES_PER_THREAD", 8)
                    monkeypatch.setattr(numba, "get_num_threads", lambda: 5)
                if mode == "line by line":
                    monkeypatch.setattr(trec, "_table", lambda *a, **k: None)
                try:
                    got = load(path)
                    outcomes.append(("ok", got.qid.tolist(), got.docid.tolist(),
                                     (got.score if kind == "run" else got.rel).tolist(), getattr(got, "name", None),
                                     getattr(got, "last_tag", None)))
                except br.LetorFormatError as exc:
                    outcomes.append(("error", str(exc)))
            monkeypatch.undo()
            assert outcomes[0] == outcomes[1] == outcomes[2], (text, outcomes)
    for text in ("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.25 t\n", "q1 Q0 d1 1 0.5 t\r\nq1\tQ0  d2 2 0.25\n"):
        (tmp_path / "clean").write_bytes(text.encode())  # clean files are read in one pass, CR LF and tabs included
        table = trec._table((tmp_path / "clean").read_bytes(), qrels=False)
        assert table is not None and table["score"].tolist() == [0.5, 0.25] and table["docno"].objects.tolist() == ["d1", "d2"]
        (tmp_path / "clean").write_bytes(text.replace("Q0", "0").replace(" 1 0.5 t", " 2").replace(" 2 0.25", " 0")
                                         .replace(" t\r\n", "\r\n").replace(" t\n", "\n").encode())
        table = trec._table((tmp_path / "clean").read_bytes(), qrels=True)
        assert table is not None and table["rel"].tolist() == [2, 0]


@pytest.mark.parametrize("text, match", [
    ("q1 Q0 d1 1\n", r"run.txt:1: a run line is 'qid Q0 docno rank score tag' \(fields separated by spaces or tabs\), got 4"),
    ("q1 Q0 d1 1 nan tag\n", r"run.txt:1: score nan is NaN or inf"),
    ("q1 Q0 d1 1 x tag\n", r"run.txt:1: score 'x' is not a number"),
    ("q1 Q0 d1 1 1 t\nq1 Q0 d1 2 0.5 t\n", r"run.txt:2: qid q1 retrieves docno d1 again \(line 1\)"),
])
def test_malformed_runs_and_duplicate_docids_are_refused(tmp_path, text, match):
    path = tmp_path / "run.txt"
    path.write_text(text)
    with pytest.raises(br.LetorFormatError, match=match):
        br.load_run(path)


def test_objects_refuse_duplicates_nonfinite_scores_and_bad_ids():
    with pytest.raises(ValueError, match="retrieves docid a twice"):
        br.Run(["q", "q"], ["a", "a"], [1.0, 2.0])
    with pytest.raises(ValueError, match="judged twice"):
        br.Qrels(["q", "q"], ["a", "a"], [1, 0])
    with pytest.raises(ValueError, match="NaN or inf"):
        br.Run(["q"], ["a"], [np.inf])
    with pytest.raises(ValueError, match="not an id"):
        br.Run(["q"], ["a b"], [1.0])
    with pytest.raises(ValueError, match="not a 64-bit integer"):
        br.Qrels(["q"], ["a"], [0.5])
    with pytest.raises(ValueError, match="tag"):
        br.save_run("/dev/null", br.Run(["q"], ["a"], [1.0]), tag="two words")


def test_many_documents_join_exactly():
    """The hashed join against a dict join on 20 000 documents with shared docids across queries."""
    rng = np.random.default_rng(0)
    n = 20_000
    qid = np.array([f"q{i}" for i in rng.integers(0, 200, n)], dtype=object)
    docid = np.array([f"d{i}" for i in rng.integers(0, 5_000, n)], dtype=object)
    keep = np.unique(np.char.add(qid.astype(str), np.char.add("|", docid.astype(str))), return_index=True)[1]
    qid, docid = qid[keep], docid[keep]
    grades = rng.integers(0, 3, qid.size)
    judged = rng.random(qid.size) < 0.5
    qrels = br.Qrels(qid[judged], docid[judged], grades[judged])
    run = br.Run(qid, docid, rng.normal(size=qid.size))
    lists = br.evaluation.judged_lists(qrels, run)
    table = {(q, d): g for q, d, g in zip(qid[judged], docid[judged], grades[judged])}
    rows = np.repeat(np.arange(len(lists.queries)), np.diff(lists.offsets))
    docid = run.docid[run.trec_order()]  # every query of the run is judged: the lists are the run's in order
    want = [table.get((lists.queries[r], d), -1) for r, d in zip(rows, docid)]  # -1: not in the qrels
    np.testing.assert_array_equal(lists.rel, want)


# ------------------------------------------------------------------ labelled lists (LETOR)


def letor_lists(seed, n_queries=15):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 12, n_queries)
    qid = np.repeat(np.arange(n_queries), sizes)
    y = rng.integers(0, 4, qid.size).astype(float)
    y[qid == 2] = 0.0
    s = rng.integers(0, 3, qid.size).astype(float)
    docid = np.array([f"doc{rng.integers(0, 10 ** 6)}-{i}" for i in range(qid.size)], dtype=object)
    return y, qid, s, docid


@pytest.mark.parametrize("seed", range(4))
def test_labelled_lists_equal_the_metric_functions_and_their_qrels_form(seed):
    y, qid, s, docid = letor_lists(seed)
    names = ["ndcg@5", "ndcg@5:trec", "map", "map:trec", "p@3", "recall@3", "mrr", "rprec", "auc", "err@5"]
    got = br.evaluate((y, qid, docid), s, names, per_query=True)
    direct = {
        "ndcg@5": br.ndcg(y, s, qid, k=5, per_query=True),
        "ndcg@5:trec": br.ndcg(y, s, qid, k=5, convention="trec", docid=docid, per_query=True),
        "map": br.mean_average_precision(y, s, qid, per_query=True),
        "map:trec": br.mean_average_precision(y, s, qid, convention="trec", docid=docid, per_query=True),
        "p@3": br.precision(y, s, qid, k=3, docid=docid, per_query=True),
        "recall@3": br.recall(y, s, qid, k=3, docid=docid, per_query=True),
        "mrr": br.reciprocal_rank(y, s, qid, docid=docid, per_query=True),
        "rprec": br.r_precision(y, s, qid, docid=docid, per_query=True),
        "auc": br.auc(y, s, qid, per_query=True),
        "err@5": br.err(y.astype(int), s, qid, k=5, per_query=True),
    }
    for m in names:
        np.testing.assert_allclose(list(got[m].values()), direct[m], atol=1e-12, err_msg=m)
    # the same lists as qrels + run (every judged document retrieved) under trec_eval's conventions
    qrels = br.Qrels(qid.astype(str), docid, y.astype(int))
    run = br.Run(qid.astype(str), docid, s)
    trec_names = ["ndcg@5:trec", "map:trec", "p@3", "recall@3", "mrr", "rprec"]
    as_qrels = br.evaluate(qrels, run, trec_names, per_query=True)
    for m in trec_names:
        for q, v in got[m].items():
            assert as_qrels[m][str(q)] == pytest.approx(v, abs=1e-12), m


@pytest.mark.parametrize("seed", range(3))
def test_new_letor_metrics_equal_pytrec_eval(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    y, qid, s, docid = letor_lists(seed)
    qrel = {str(q): {d: int(g) for d, g in zip(docid[qid == q], y[qid == q])} for q in np.unique(qid)}
    run = {str(q): {d: float(v) for d, v in zip(docid[qid == q], s[qid == q])} for q in np.unique(qid)}
    res = pytrec_eval.RelevanceEvaluator(qrel, {"recall.3", "recip_rank", "Rprec"}).evaluate(run)
    for name, fn in (("recall_3", lambda: br.recall(y, s, qid, k=3, docid=docid, per_query=True)),
                     ("recip_rank", lambda: br.reciprocal_rank(y, s, qid, docid=docid, per_query=True)),
                     ("Rprec", lambda: br.r_precision(y, s, qid, docid=docid, per_query=True))):
        np.testing.assert_allclose(fn(), [res[str(q)][name] for q in np.unique(qid)], atol=1e-12, err_msg=name)


def test_trec_names_are_aliases_everywhere():
    y, qid, s, docid = letor_lists(0)
    for alias, name in (("ndcg_cut_5", "ndcg@5:trec"), ("ndcg_cut.5", "ndcg@5:trec"), ("P_3", "p@3"),
                        ("map_cut_4", "map@4:trec"), ("recall_10", "recall@10"), ("recip_rank", "mrr"),
                        ("Rprec", "rprec")):
        assert br.metrics.canonical_metric(alias) == name
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", br.metrics.TieWarning)
            assert br.get_metric(alias)(y, s, qid) == br.get_metric(name)(y, s, qid)
    with pytest.raises(ValueError, match="unknown metric 'ndcg_cut_x'"):
        br.get_metric("ndcg_cut_x")
    with pytest.raises(ValueError, match="rprec is computed on whole lists"):
        br.get_metric("rprec@5")
    with pytest.raises(ValueError, match="variant of ndcg is one of"):
        br.get_metric("ndcg@5:bogus")


def test_ties_without_docids_warn_under_the_trec_convention():
    y = np.array([1.0, 0.0, 1.0])
    s = np.array([0.5, 0.5, 0.1])
    with pytest.warns(br.metrics.TieWarning, match="trec_eval breaks them by document id"):
        br.recall(y, s, k=1)
    with pytest.warns(br.metrics.TieWarning):
        br.evaluate((y, np.zeros(3)), s, ["P_1"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        br.recall(y, s, k=1, convention="lightgbm")
        br.evaluate((y, np.zeros(3), ["a", "b", "c"]), s, ["P_1"])


# ------------------------------------------------------------------ comparing runs


def three_runs(n_queries, seed=0):
    rng = np.random.default_rng(seed)
    qrels, runs = {}, {"base": {}, "better": {}, "same": {}}
    for q in range(n_queries):
        docs = [f"d{i}" for i in range(10)]
        grades = rng.integers(0, 3, 10)
        qrels[f"q{q}"] = dict(zip(docs, grades.tolist()))
        noise = rng.normal(size=10)
        runs["base"][f"q{q}"] = dict(zip(docs, (noise * 2 + grades * 0.5).tolist()))
        runs["better"][f"q{q}"] = dict(zip(docs, (noise + grades).tolist()))
        runs["same"][f"q{q}"] = dict(runs["base"][f"q{q}"])
    return qrels, runs


@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_compare_p_values_equal_scipy(test):
    from scipy import stats

    qrels, runs = three_runs(40)
    cmp = br.compare(qrels, runs, ["ndcg_cut_5", "map"], baseline="base", test=test, correction=None)
    for m in ("ndcg_cut_5", "map"):
        a, b = cmp.per_query[m]["base"], cmp.per_query[m]["better"]
        want = stats.ttest_rel(b, a).pvalue if test == "t" else stats.wilcoxon(b, a).pvalue
        pair = next(p for p in cmp.pairs[m] if p["run"] == "better")
        assert pair["p"] == pytest.approx(want, rel=1e-12)
        assert pair["wins"] + pair["ties"] + pair["losses"] == 40
        assert pair["diff"] == pytest.approx((b - a).mean())
        same = next(p for p in cmp.pairs[m] if p["run"] == "same")
        assert same["p"] == 1.0 and same["ties"] == 40 and not same["significant"]
        s = cmp.summary[m]["better"]
        half = stats.t.ppf(0.975, 39) * b.std(ddof=1) / math.sqrt(40)
        assert (s["ci_low"], s["ci_high"]) == pytest.approx((b.mean() - half, b.mean() + half))


def test_randomization_test_is_exact_on_12_queries_and_sampled_beyond():
    qrels, runs = three_runs(12, seed=4)
    cmp = br.compare(qrels, runs, ["ndcg_cut_5"], baseline="base", test="randomization", correction=None)
    pair = next(p for p in cmp.pairs["ndcg_cut_5"] if p["run"] == "better")
    a, b = cmp.per_query["ndcg_cut_5"]["base"], cmp.per_query["ndcg_cut_5"]["better"]
    assert pair["p"] == pytest.approx(randomization_p_exact(a, b), abs=1e-12)
    assert pair["mc_error"] == 0.0
    qrels, runs = three_runs(30, seed=4)
    big = br.compare(qrels, runs, ["ndcg_cut_5"], baseline="base", test="randomization", n_resamples=2000)
    pair = next(p for p in big.pairs["ndcg_cut_5"] if p["run"] == "better")
    assert 0 < pair["mc_error"] <= 0.5 / math.sqrt(2000)
    again = br.compare(qrels, runs, ["ndcg_cut_5"], baseline="base", test="randomization", n_resamples=2000)
    assert again.pairs == big.pairs  # seeded


@pytest.mark.parametrize("n", [0, 1, 5, 63, 64, 65, 130])
@pytest.mark.parametrize("seed", range(3))
def test_sign_flip_kernel_equals_the_reference(n, seed):
    """Whole-unit differences with zeros and ties; word boundaries at 64; observed values hit exactly."""
    from boostrank._kernels.resampling import sign_flip_extremes

    rng = np.random.default_rng(seed)
    d = rng.integers(-3, 4, n).astype(np.float64)
    words = rng.integers(0, np.iinfo(np.uint64).max, (200, -(-n // 64)), dtype=np.uint64, endpoint=True)
    for observed in (abs(d.sum()), 0.0, 2.0, 1e9):
        assert sign_flip_extremes(d, words, observed) == sign_flip_extremes_reference(d, words, observed)


def test_the_sampled_randomization_p_is_within_its_error_of_the_exact_one():
    from boostrank.evaluation.compare import _randomization_p

    rng = np.random.default_rng(5)
    d = np.round(rng.normal(0.4, 1.0, 16) * 2.0 ** 32)
    exact = randomization_p_exact(np.zeros(16), d / 2.0 ** 32)
    p, err = _randomization_p(d, 20_000, 0)  # 2^16 flips > 20 000: sampled
    assert 0 < err and abs(p - exact) <= 4 * err
    assert _randomization_p(d, 2 ** 16, 0) == (pytest.approx(exact, abs=1e-12), 0.0)  # every flip: exact


def test_holm_and_bonferroni():
    from boostrank.evaluation.compare import _adjust

    p = [0.01, 0.04, 0.03, float("nan")]
    assert _adjust(p, "bonferroni")[:3] == pytest.approx([0.03, 0.12, 0.09])
    assert _adjust(p, "holm")[:3] == pytest.approx([0.03, 0.06, 0.06])
    assert math.isnan(_adjust(p, "holm")[3])


def test_comparison_reports_as_text_markdown_latex_and_json():
    qrels, runs = three_runs(20)
    cmp = br.compare(qrels, runs, ["ndcg_cut_5", "P_5"])  # all pairs
    assert len(cmp.pairs["P_5"]) == 3
    text = str(cmp)
    assert "ndcg_cut_5 (20 queries)" in text and "W/T/L" in text
    md = cmp.to_markdown()
    assert md.count("| better |") == 2 and "|---|" in md
    tex = cmp.to_latex()
    assert r"\begin{tabular}" in tex and r"ndcg\_cut\_5" in tex
    data = json.loads(cmp.to_json())
    assert data["summary"]["P_5"]["base"]["n"] == 20
    assert {p["run"] for p in data["pairs"]["P_5"]} == {"better", "same"}


def test_reports_escape_run_names_and_latex_prints_p_below_a_thousandth():
    """Hardening 6 #6: `bm25|rm3` added a Markdown cell, `^ ~ {` broke pdflatex, `<0.001` printed as "¡0.001"."""
    qrels, runs = three_runs(30)
    odd = {"bm25|rm3": runs["base"], "a^b~{c}_<b>": runs["better"], "x & 50%": runs["same"]}
    cmp = br.compare(qrels, odd, ["P_5"], baseline="bm25|rm3", test="randomization")
    md = cmp.to_markdown()
    rows = [line for line in md.splitlines() if line.startswith("| ")]
    cells = [len([c for c in __import__("re").split(r"(?<!\\)\|", line)]) for line in rows]
    assert len(set(cells)) == 1  # every row has the header's cells
    assert r"bm25\|rm3" in md and "<b>" not in md and r"\<b\>" in md
    tex = cmp.to_latex()
    assert r"bm25\textbar{}rm3" in tex and r"a\textasciicircum{}b\textasciitilde{}\{c\}\_\textless{}b\textgreater{}" in tex
    assert r"x \& 50\%" in tex and "<" not in tex.replace(r"\textless{}", "")
    if any(p["p"] < 0.001 for p in cmp.pairs["P_5"]):
        assert r"\textless{}0.001" in tex


def test_compare_pairs_only_queries_every_run_has():
    qrels, runs = three_runs(10)
    del runs["better"]["q3"]
    with pytest.warns(QueryMismatchWarning, match="1 queries lack a value in some run but not in all"):
        cmp = br.compare(qrels, runs, ["map"], baseline="base")
    assert "q3" not in cmp.per_query["map"]["queries"] and cmp.summary["map"]["base"]["n"] == 9
    with pytest.raises(ValueError, match="baseline 'nope'"):
        br.compare(qrels, runs, ["map"], baseline="nope")
    with pytest.raises(ValueError, match="at least two runs"):
        br.compare(qrels, {"a": runs["base"]}, ["map"])
    with pytest.raises(ValueError, match="test must be one of"):
        br.compare(qrels, runs, ["map"], test="z")


def test_compare_labelled_lists_with_score_arrays():
    y, qid, s, docid = letor_lists(1)
    rng = np.random.default_rng(0)
    cmp = br.compare((y, qid, docid), {"a": s, "b": s + rng.normal(size=s.size)}, ["ndcg@5", "auc"])
    assert cmp.summary["ndcg@5"]["a"]["mean"] == pytest.approx(br.ndcg(y, s, qid, k=5))


# ------------------------------------------------------------------ plots


@pytest.mark.slow  # over half a second warm
def test_plots_are_written_and_their_numbers_are_the_comparison(tmp_path):
    pytest.importorskip("matplotlib")
    qrels, runs = three_runs(15)
    cmp = br.compare(qrels, runs, ["ndcg_cut_5", "map"], baseline="base")
    diff = br.plot_differences(cmp, "map", tmp_path / "diff.png", run="better")
    want = cmp.per_query["map"]["better"] - cmp.per_query["map"]["base"]
    np.testing.assert_array_equal(diff["difference"], np.sort(want))
    assert sorted(diff["queries"]) == sorted(cmp.per_query["map"]["queries"])
    bars = br.plot_systems(cmp, tmp_path / "systems.png")
    assert bars["ndcg_cut_5"]["better"] == (cmp.summary["ndcg_cut_5"]["better"]["mean"],
                                            cmp.summary["ndcg_cut_5"]["better"]["ci_low"],
                                            cmp.summary["ndcg_cut_5"]["better"]["ci_high"])
    roc = br.plot_roc(qrels, runs["better"], tmp_path / "roc.png")
    per_auc = br.evaluate(qrels, runs["better"], ["auc"], per_query=True)["auc"]
    for q, (_, _, area) in roc["per_query"].items():
        assert area == pytest.approx(per_auc[q], abs=1e-12)
    assert roc["mean_auc"] == pytest.approx(br.evaluate(qrels, runs["better"], ["auc"])["auc"])
    for name in ("diff.png", "systems.png", "roc.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="no pair"):
        br.plot_differences(cmp, "map", tmp_path / "x.png", run="nope")


# ------------------------------------------------------------------ command line


def _write_trec(tmp_path, qrels, runs):
    with open(tmp_path / "qrels.txt", "w") as fh:
        for q, docs in qrels.items():
            fh.writelines(f"{q} 0 {d} {g}\n" for d, g in docs.items())
    paths = []
    for name, run in runs.items():
        br.save_run(tmp_path / f"{name}.run", br.Run.from_dict(run, name=name))
        paths.append(str(tmp_path / f"{name}.run"))
    return str(tmp_path / "qrels.txt"), paths


def test_cli_evaluate_qrels_runs_per_query_as_trec_eval(tmp_path, capsys):
    from boostrank.cli import main

    qrels, runs = three_runs(6)
    qpath, paths = _write_trec(tmp_path, qrels, {"base": runs["base"]})
    assert main(["evaluate", "--qrels", qpath, *paths, "--metrics", "ndcg_cut_5,map,P_5", "--per-query"]) == 0
    lines = capsys.readouterr().out.splitlines()
    per = br.evaluate(qrels, runs["base"], ["ndcg_cut_5", "map", "P_5"], per_query=True)
    assert lines[0] == f"{'ndcg_cut_5':<22}\tq0\t{per['ndcg_cut_5']['q0']:.4f}"
    assert len(lines) == 6 * 3 + 3 and lines[-1].startswith(f"{'P_5':<22}\tall\t")
    assert main(["evaluate", "--qrels", qpath, *paths, "--metrics", "map", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["runs"]["base"]["map"] == pytest.approx(br.evaluate(qrels, runs["base"], "map")["map"])  # its tag
    assert main(["evaluate", "--qrels", qpath, "--data", qpath, *paths]) == 2
    assert "one of them" in capsys.readouterr().err


@pytest.mark.slow  # over a second warm
def test_cli_compare_formats_and_plots(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from boostrank.cli import main

    qrels, runs = three_runs(12)
    qpath, paths = _write_trec(tmp_path, qrels, runs)
    assert main(["compare", "--qrels", qpath, *paths, "--metrics", "ndcg_cut_5,auc", "--baseline", "base.run",
                 "--test", "randomization", "--report", "json", "--plot", str(tmp_path / "figs")]) == 0
    out = json.loads(capsys.readouterr().out)
    want = br.compare(qrels, runs, ["ndcg_cut_5", "auc"], baseline="base", test="randomization")
    assert out["pairs"]["ndcg_cut_5"][0]["p"] == pytest.approx(want.pairs["ndcg_cut_5"][0]["p"])
    figs = sorted(p.name for p in (tmp_path / "figs").iterdir())
    assert "systems.png" in figs and "diff-ndcg_cut_5-better-vs-base.png" in figs and "roc-same.png" in figs
    assert len(figs) == 1 + 2 * 2 + 3  # systems, a difference per metric and pair, a ROC per run
    # two runs with one file name in two folders: a figure each, none replacing another
    for folder, name in (("dirA", "base"), ("dirB", "better")):
        (tmp_path / folder).mkdir()
        br.save_run(tmp_path / folder / "run.txt", br.Run.from_dict(runs[name]), tag="same-tag")
    capsys.readouterr()
    assert main(["compare", "--qrels", qpath, str(tmp_path / "dirA" / "run.txt"), str(tmp_path / "dirB" / "run.txt"),
                 "--metrics", "auc", "--plot", str(tmp_path / "twins")]) == 0
    twins = sorted(p.name for p in (tmp_path / "twins").iterdir())
    assert len(twins) == 1 + 1 + 2 and len([f for f in twins if f.startswith("roc-")]) == 2, twins
    for report in ("markdown", "latex", "text"):
        assert main(["compare", "--qrels", qpath, *paths, "--metrics", "map", "--report", report,
                     "--baseline", "base"]) == 0
        out = capsys.readouterr().out
        assert "better" in out and "better.run" not in out and "trec_eval 10's rules" in out
    assert main(["compare", "--qrels", qpath, paths[0]]) == 2
    assert "at least two runs" in capsys.readouterr().err


def test_compare_counts_its_work_on_a_progress_bar(monkeypatch):
    """A bar on a terminal once the work takes 2 s (#61 item 4): one step per run evaluated and per comparison."""
    import tqdm.auto

    seen = {}

    class Bar:
        def __init__(self, total, **kw):
            seen.update(total=total, done=0, **kw)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def update(self, n=1):
            seen["done"] += n

    monkeypatch.setattr(tqdm.auto, "tqdm", Bar)
    qrels, runs = three_runs(6)
    br.compare(qrels, runs, ["map", "P_5"])
    assert seen["total"] == seen["done"] == 3 + 2 * 3 and seen["delay"] == 2 and seen["disable"] is None


def test_p_values_print_as_journals_print_them():
    from boostrank.evaluation.report import p_text as _p_text

    assert [_p_text(p) for p in (0.0005999, 0.05, 1.0, 0.123456, 0.001)] == ["<0.001", "0.0500", "1.00", "0.123",
                                                                             "0.00100"]


def test_cli_predict_writes_a_trec_run(tmp_path, capsys):
    from boostrank.cli import main

    data = br.datasets.make_letor(8, random_state=3)
    docid = [f"D{i:04d}" for i in range(len(data))]
    br.save_letor(tmp_path / "d.txt", data.X, data.y, data.qid, docid=docid)
    assert main(["fit-linear", "--train", str(tmp_path / "d.txt"), "--out", str(tmp_path / "m.json")]) == 0
    assert main(["predict", "--model", str(tmp_path / "m.json"), "--data", str(tmp_path / "d.txt"),
                 "--trec", str(tmp_path / "r.txt"), "--run-tag", "ncg"]) == 0
    capsys.readouterr()
    run = br.load_run(tmp_path / "r.txt")
    assert run.name == "ncg" and len(run) == len(data)
    scores = br.load_model(str(tmp_path / "m.json")).predict(data.X)
    got = run.to_dict()
    assert all(got[str(q)][d] == s for q, d, s in zip(data.qid, docid, scores))
    br.save_letor(tmp_path / "nodoc.txt", data.X, data.y, data.qid)
    assert main(["predict", "--model", str(tmp_path / "m.json"), "--data", str(tmp_path / "nodoc.txt"),
                 "--trec", str(tmp_path / "r2.txt")]) == 2
    assert "without a '# docid = ...' comment" in capsys.readouterr().err


def test_ids_whose_hashes_collide_still_match_exactly(monkeypatch):
    """Every id hashing alike: the join falls back to the strings, duplicates are still found."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    monkeypatch.setattr(br.evaluation.runs, "_hashes", lambda ids: np.zeros(len(ids), dtype=np.int64))
    qrels, run = random_collection(2, ties=True)
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg"}).evaluate(run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", QueryMismatchWarning)
        got = br.evaluate(qrels, run, ["map", "ndcg"], per_query=True)
    for q in expected:
        assert got["map"][q] == pytest.approx(expected[q]["map"], abs=1e-12)
        assert got["ndcg"][q] == pytest.approx(expected[q]["ndcg"], abs=1e-12)
    with pytest.raises(ValueError, match="retrieves docid a twice"):
        br.Run(["q", "q", "q"], ["a", "b", "a"], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="docid b is judged twice"):
        br.Qrels(["q"] * 4, ["a", "b", "c", "b"], [1, 0, 1, 1])


def test_a_run_matched_to_labelled_rows_ranks_unretrieved_rows_last_even_below_the_lowest_float():
    y = np.array([1.0, 0.0, 1.0, 0.0])
    qid = np.zeros(4, dtype=int)
    docid = np.array(["a", "b", "c", "d"], dtype=object)
    low = -np.finfo(np.float64).max
    run = br.Run(["0", "0", "0"], ["a", "b", "c"], [2.0, low, 1.0])  # "d" is not retrieved
    per = br.evaluate((y, qid, docid), run, ["mrr", "auc"], per_query=True)
    assert per["mrr"][0] == 1.0 and per["auc"][0] == 1.0  # d (non-relevant) below b, below a and c


def test_ranx_measures_by_ranx_names_match_a_hand_computation():
    """ranx's f1@k = 2 P_k recall_k / (P_k + recall_k) and hit_rate@k (trec_eval's success_k)."""
    qrels = {"a": {"d1": 1, "d2": 0, "d3": 1}, "b": {"e1": 1}}
    run = {"a": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "b": {"x": 1.0, "e1": 0.5}}
    got = br.evaluate(qrels, run, ["f1@2", "f1_1", "hit_rate@1", "hit_rate_2"], per_query=True)
    assert got["f1@2"] == pytest.approx({"a": 0.5, "b": 2 / 3})  # a: P = R = 1/2; b: P = 1/2, R = 1
    assert got["f1_1"] == pytest.approx({"a": 2 / 3, "b": 0.0})  # a: P = 1, R = 1/2
    assert got["hit_rate@1"] == {"a": 1.0, "b": 0.0} and got["hit_rate_2"] == {"a": 1.0, "b": 1.0}


def test_a_bom_is_dropped_from_qrels_and_runs_and_refused_inside(tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_bytes(b"\xef\xbb\xbf301 0 d1 1\n301 0 d2 0\n302 0 d3 1\n")
    run = tmp_path / "r.txt"
    run.write_bytes(b"\xef\xbb\xbf301 Q0 d1 1 2.0 t\n301 Q0 d2 2 1.0 t\n302 Q0 d3 1 1.0 t\n")
    q, r = br.load_qrels(qrels), br.load_run(run)
    assert sorted(q.queries) == ["301", "302"] and sorted(r.queries) == ["301", "302"]
    assert br.evaluate(q, r, ["map"])["map"] == 1.0
    qrels.write_bytes(b"301 0 d1 1\n\xef\xbb\xbf302 0 d3 1\n")
    with pytest.raises(br.LetorFormatError, match=r"q.txt:2: a byte-order mark"):
        br.load_qrels(qrels)


GRADES = ["1_0", "\uff13", "1.0", "0x1", "\u0661"]


SCORES = ["1_0", "\uff13", "0x1p3", "1e", "--1"]


@pytest.mark.parametrize("kind, text", [("qrels", g) for g in GRADES] + [("run", s) for s in SCORES])
def test_numbers_trec_eval_would_read_a_prefix_of_are_refused(tmp_path, kind, text):
    """trec_eval's atol/atof read '1_0' as 1 and a full-width 3 as 0; Python's int/float read 10 and 3."""
    path = tmp_path / f"{kind}.txt"
    line, load, what = {"qrels": (f"301 0 d2 {text}", br.load_qrels, "grade .* is not an integer"),
                        "run": (f"301 Q0 d1 1 {text} t", br.load_run, "score .* is not a number")}[kind]
    path.write_text(f"{line}\n", encoding="utf-8")
    with pytest.raises(br.LetorFormatError, match=rf"{kind}.txt:1: {what}"):
        load(path)


def test_fields_split_where_trec_eval_splits_them(tmp_path):
    """C's isspace: a form feed or a carriage return separates fields; a no-break space is part of an id."""
    path = tmp_path / "q.txt"
    path.write_bytes("301 0 d\u00a01 1\r\n301\f0\vd2\t0\n".encode("utf-8"))
    q = br.load_qrels(path)
    assert sorted(q.to_dict()["301"]) == ["d2", "d\u00a01"]
    path.write_text("301 0 d\u00a01\n", encoding="utf-8")
    with pytest.raises(br.LetorFormatError, match="4 fields separated by spaces or tabs"):
        br.load_qrels(path)
    run = tmp_path / "r.txt"
    run.write_text("301 Q0 d\u2003x 1 1.5 t\n", encoding="utf-8")  # an em space is part of the id too
    assert br.load_run(run).to_dict() == {"301": {"d\u2003x": 1.5}}


def test_a_randomization_test_of_runs_equal_up_to_rounding_gives_p_1():
    from boostrank.evaluation.compare import _paired_p

    rng = np.random.default_rng(0)
    a = rng.random(40)
    b = (a + 0.1) - 0.1  # the same values, rounded differently
    assert np.any(a != b)
    for test in ("randomization", "t", "wilcoxon"):
        assert _paired_p(a, b, test, 10_000, 0)[0] == 1.0
    d = rng.normal(size=30)
    from scipy import stats
    assert _paired_p(np.zeros(30), d, "t", 10_000, 0)[0] == pytest.approx(stats.ttest_rel(d, np.zeros(30)).pvalue)


@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2", ".xz"])
def test_qrels_and_runs_write_and_read_back_compressed_by_their_suffix(tmp_path, suffix):
    import bz2
    import gzip
    import lzma

    qrels = br.Qrels(["301", "301", "302"], ["d1", "d\u00e9", "d3"], [2, 0, -1])
    run = br.Run(["301", "301", "302"], ["d1", "d2", "d3"], [0.5, 1.5, 0.25], name="mine")
    br.save_qrels(tmp_path / f"q.txt{suffix}", qrels)
    br.save_run(tmp_path / f"r.txt{suffix}", run)
    opener = {"": open, ".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}[suffix]
    with opener(tmp_path / f"q.txt{suffix}", "rt", encoding="utf-8") as fh:
        assert fh.read() == "301 0 d1 2\n301 0 d\u00e9 0\n302 0 d3 -1\n"
    assert br.load_qrels(tmp_path / f"q.txt{suffix}").to_dict() == qrels.to_dict()
    back = br.load_run(tmp_path / f"r.txt{suffix}")
    assert back.to_dict() == run.to_dict() and back.name == "mine"
    with pytest.raises(TypeError, match="writes a Qrels"):
        br.save_qrels(tmp_path / "x.txt", run)



def test_evaluate_a_trec_run_matches_by_docid(tmp_path, capsys):
    d = nonlinear_letor(12, 8)
    d.docid = np.array([f"D{i:04d}" for i in range(len(d))], dtype=object)
    data_path = tmp_path / "data.txt"
    br.save_letor(data_path, d)
    scores = d.X @ np.arange(d.n_features) + 0.001 * np.arange(len(d))
    aligned = tmp_path / "scores.txt"
    np.savetxt(aligned, scores)
    lines = []
    for q in np.unique(d.qid):
        rows = np.flatnonzero(d.qid == q)
        for rank, i in enumerate(rows[np.argsort(-scores[rows])], start=1):
            lines.append(f"{q} Q0 {d.docid[i]} {rank} {float(scores[i])!r} run")
    lines.append("999 Q0 NOPE 1 5.0 run")  # a document the data does not have
    np.random.default_rng(0).shuffle(lines)
    run = tmp_path / "run.trec"
    run.write_text("\n".join(lines) + "\n")
    metrics = "ndcg@10,map,auc,mauc,p@5,err@10"
    outs = []
    for path in (aligned, run):
        assert main(["evaluate", "--data", str(data_path), "--scores", str(path), "--metrics", metrics,
                     "--json"]) == 0
        outs.append(json.loads(capsys.readouterr().out)["runs"][str(path)])
    assert outs[0] == pytest.approx(outs[1])
    np.testing.assert_allclose(br.evaluation.read_scores(run, br.load_letor(data_path)), scores)


@pytest.mark.parametrize("base", [0.0, 1e17, -1e17, -1.7976931348623157e308])
def test_unretrieved_rows_rank_below_every_retrieved_one_at_any_score_size(tmp_path, base):
    """Hardening #8: min(score) − 1.0 is the minimum itself from |score| ≥ 2⁵³ (AUC .75 became .5)."""
    d = br.data.LetorData(X=np.zeros((4, 1)), y=np.array([1, 0, 1, 0]), qid=np.array([1, 1, 1, 1]),
                     docid=np.array(["a", "b", "c", "d"], dtype=object))
    path = tmp_path / "data.txt"
    br.save_letor(path, d)
    step = max(abs(base) * 1e-15, 1.0)
    run = tmp_path / "run.trec"
    # a, b, c retrieved (a above b above c); d unretrieved, so it ranks last
    run.write_text("".join(f"1 Q0 {doc} {r} {base + (3 - r) * step!r} t\n" for r, doc in enumerate("abc", 1)))
    notes = []
    s = br.evaluation.read_run(run, br.load_letor(path), report=notes.append)
    assert np.isfinite(s).all() and s[3] < s[2] < s[1] < s[0]
    assert br.auc(d.y, s) == pytest.approx(0.75) and "1 of 4 row(s)" in notes[0]


def test_a_run_needs_docids_and_unique_lines(tmp_path):
    d = nonlinear_letor(3, 9)
    path = tmp_path / "data.txt"
    br.save_letor(path, d)
    run = tmp_path / "run.trec"
    run.write_text("1 Q0 a 1 2.0 t\n")
    with pytest.raises(ValueError, match="docid"):
        br.evaluation.read_scores(run, br.load_letor(path))
    d.docid = np.array([f"d{i}" for i in range(len(d))], dtype=object)
    br.save_letor(path, d)
    q = int(d.qid[0])
    run.write_text(f"{q} Q0 d0 1 2.0 t\n{q} Q0 d0 2 1.0 t\n")
    with pytest.raises(br.LetorFormatError, match=r":2: .*again \(line 1\)"):
        br.evaluation.read_scores(run, br.load_letor(path))


def _six_rows(tmp_path):
    d = br.data.LetorData(X=np.zeros((6, 1)), y=np.array([1, 0, 1, 0, 1, 0]), qid=np.array([1, 1, 1, 2, 2, 2]),
                     docid=np.array(list("abcdef"), dtype=object))
    path = tmp_path / "data.txt"
    br.save_letor(path, d)
    return path


def test_evaluate_reports_unmatched_run_lines_and_rows(tmp_path, capsys):
    """Hardening #14: a run matching 1 of 6 rows gave rc 0 and AUC .75 with no word; 'q2' qids vanished."""
    path = _six_rows(tmp_path)
    run = tmp_path / "run.trec"
    run.write_text("1 Q0 a 1 3.0 t\nq2 Q0 d 1 2.0 t\n1 Q0 zz 2 1.0 t\n")
    assert main(["evaluate", "--data", str(path), "--scores", str(run), "--metrics", "auc"]) == 0
    err = capsys.readouterr().err
    assert "2 run line(s) name documents not in the data" in err
    assert "5 of 6 row(s) of the data are not in the run" in err
    run.write_text("q1 Q0 a 1 3.0 t\n")
    with pytest.raises(br.LetorFormatError, match="not integers"):
        br.evaluation.read_scores(run, br.load_letor(path))


@pytest.mark.parametrize("tag", [" t", ""])
def test_a_run_without_its_tag_is_still_a_run(tmp_path, tag):
    """Hardening #15: five columns were read as a score table in line order (AUC 0.0 where six gave 1.0)."""
    path = _six_rows(tmp_path)
    run = tmp_path / "run.trec"
    # line order is the reverse of row order, so a score table would give the opposite ranking
    lines = [f"{q} Q0 {doc} 1 {s}{tag}" for q, doc, s in
             [(2, "f", 0.0), (2, "e", 1.0), (2, "d", 0.0), (1, "c", 1.0), (1, "b", 0.0), (1, "a", 1.0)]]
    run.write_text("\n".join(lines) + "\n")
    data = br.load_letor(path)
    assert br.auc(data.y, br.evaluation.read_scores(run, data), data.qid) == 1.0


def test_a_run_line_reads_as_trec_eval_reads_it(tmp_path):
    """Fields after the tag are ignored (trec_eval's get_trec_results.c); fewer than five name the layout."""
    path = _six_rows(tmp_path)
    run = tmp_path / "run.trec"
    run.write_text("1 Q0 a 1 3.0 t extra\n1 Q0 b 2 1.0 t\n")
    assert br.evaluation.read_run(run, br.load_letor(path))[:2].tolist() == [3.0, 1.0]
    run.write_text("1 Q0 a 1\n")
    with pytest.raises(br.LetorFormatError, match=r":1: a run line is 'qid Q0 docno rank score tag'"):
        br.evaluation.read_run(run, br.load_letor(path))


RUN = b"".join(b"q1 Q0 d%d %d %r run\n" % (i, i, 1.0 / i) for i in range(1, 40))


QRELS = b"".join(b"q1 0 d%d %d\n" % (i, i % 3) for i in range(1, 40))


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_lone_carriage_returns_are_refused_by_line_and_crlf_reads(tmp_path, kind):
    """Hardening 6 #2: a run with CR line ends read as one document (map 0.0, no warning)."""
    raw, load = (RUN, br.load_run) if kind == "run" else (QRELS, br.load_qrels)
    lf = tmp_path / "lf"
    lf.write_bytes(raw)
    want = load(lf)
    cr = tmp_path / "cr"
    cr.write_bytes(raw.replace(b"\n", b"\r"))
    with pytest.raises(br.LetorFormatError, match=r"cr:1: a carriage return \(\\r\) inside the line"):
        load(cr)
    joined = tmp_path / "joined"  # two files joined with one stray CR between them
    lines = raw.splitlines(keepends=True)
    joined.write_bytes(b"".join(lines[:9]) + lines[9].rstrip(b"\n") + b"\r" + b"".join(lines[10:]))
    with pytest.raises(br.LetorFormatError, match=r"joined:10: a carriage return"):
        load(joined)
    crlf = tmp_path / "crlf"
    crlf.write_bytes(raw.replace(b"\n", b"\r\n"))
    got = load(crlf)
    assert got.docid.tolist() == want.docid.tolist() and len(got) == 39
    if kind == "run":
        assert got.score.tolist() == want.score.tolist()


def test_a_run_that_evaluates_with_cr_line_ends_is_refused_not_scored_zero(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_bytes(QRELS)
    run = tmp_path / "run"
    run.write_bytes(RUN.replace(b"\n", b"\r"))
    with pytest.raises(br.LetorFormatError, match="carriage return"):
        br.evaluate(br.load_qrels(qrels), run, ["map"])


@pytest.mark.parametrize("grade", [b"9223372036854775808", b"-9223372036854775809", b"99999999999999999999999"])
def test_a_grade_past_64_bits_is_named_by_line(tmp_path, grade):
    """Hardening 6 #7: a raw OverflowError with no file or line."""
    path = tmp_path / "qrels"
    path.write_bytes(QRELS + b"q2 0 d1 " + grade + b"\n")
    with pytest.raises(br.LetorFormatError, match=r"qrels:40: grade .* is outside the 64-bit integer range"):
        br.load_qrels(path)
    path.write_bytes(b"q2 0 d1 9223372036854775807\n")
    assert br.load_qrels(path).rel.tolist() == [2**63 - 1]


def _write(path, raw):
    path.write_bytes(raw)
    return path


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_a_compressed_bomb_stops_at_its_first_line_and_padding_reads(tmp_path, kind):
    """Hardening 6 #1: a 3 kB .bz2 (a bad line, then 512 MiB of newlines) reached 4.8 GB before its line-1 error."""
    load = br.load_run if kind == "run" else br.load_qrels
    bomb = tmp_path / "bomb.bz2"
    bomb.write_bytes(bz2.compress(b"q1 Q0 d1 1 x run\n" + b"\n" * (32 << 20)))
    with pytest.raises(br.LetorFormatError, match=r"bomb.bz2:1: "):
        load(bomb, max_bytes=4 << 20)
    padded = tmp_path / "padded.bz2"
    good = RUN if kind == "run" else QRELS
    cut = good.index(b"\n", 100) + 1
    padded.write_bytes(bz2.compress(good[:cut] + b"\n" * (4 << 20) + good[cut:]))
    assert len(load(padded)) == 39
    with pytest.raises(br.LetorFormatError, match="more than 1000000 bytes"):
        load(padded, max_bytes=1_000_000)
    np.testing.assert_array_equal(load(padded).docid, load(_write(tmp_path / "plain", good)).docid)


# ---------------------------------------------------------------- Tukey's HSD, the bootstrap, frames, every pair
def _three_runs(seed=0, n_queries=25):
    rng = np.random.default_rng(seed)
    qrels, runs = {}, {"a": {}, "b": {}, "c": {}}
    for q in range(n_queries):
        docs = [f"d{i}" for i in range(15)]
        qrels[str(q)] = {d: int(rng.integers(0, 3)) for d in docs}
        truth = np.array([qrels[str(q)][d] for d in docs], dtype=float)
        for shift, name in ((0.3, "a"), (0.8, "b"), (1.5, "c")):
            s = shift * truth + rng.normal(size=len(docs))
            runs[name][str(q)] = dict(zip(docs, s.tolist()))
    return qrels, runs


def test_tukey_hsd_against_the_written_out_anova_and_the_t_test_for_two_runs():
    from ..reference import tukey_hsd_blocked_reference

    qrels, runs = _three_runs()
    cmp = br.compare(qrels, runs, ["ndcg_cut_10", "map"], test="tukey")
    assert cmp.correction is None and "Tukey's HSD over 3 runs" in cmp.to_text()
    for m in ("ndcg_cut_10", "map"):
        table = [cmp.per_query[m][r].tolist() for r in cmp.runs]
        want = tukey_hsd_blocked_reference(table)
        for row in cmp.pairs[m]:
            i, j = cmp.runs.index(row["baseline"]), cmp.runs.index(row["run"])
            assert row["p"] == pytest.approx(want[(min(i, j), max(i, j))], rel=1e-9, abs=1e-12)
            assert row["p_adjusted"] == row["p"]
    # two runs: the studentized range of 2 is |t| √2, so Tukey's p is the paired t-test's
    two = {k: runs[k] for k in ("a", "b")}
    t = br.compare(qrels, two, ["map"], test="t", correction=None).pairs["map"][0]["p"]
    hsd = br.compare(qrels, two, ["map"], test="tukey").pairs["map"][0]["p"]
    assert hsd == pytest.approx(t, rel=1e-6)


def test_paired_bootstrap_against_one_resample_at_a_time():
    from boostrank.evaluation.compare import _bootstrap_p

    from ..reference import paired_bootstrap_p_reference

    rng = np.random.default_rng(3)
    for shift in (0.0, 0.1, 0.5):
        d = np.round((rng.normal(size=30) * 0.3 + shift) * 2.0 ** 32)
        p, err = _bootstrap_p(d, 2000, 7)
        assert p == pytest.approx(paired_bootstrap_p_reference(d, 2000, 7), abs=1e-12)
        assert 0 < p <= 1 and err > 0
    qrels, runs = _three_runs(1)
    same = br.compare(qrels, {"a": runs["a"], "a2": runs["a"]}, ["map"], test="bootstrap")
    assert same.pairs["map"][0]["p"] == 1.0
    far = br.compare(qrels, {"a": runs["a"], "c": runs["c"]}, ["map"], test="bootstrap", n_resamples=999)
    assert far.pairs["map"][0]["p"] == pytest.approx(1 / 1000)


def test_every_pair_in_every_report_and_the_comparison_as_frames():
    qrels, runs = _three_runs(2)
    cmp = br.compare(qrels, runs, ["map"])
    pairs = [f"{p['run']} − {p['baseline']}" for p in cmp.pairs["map"]]
    assert pairs == ["b − a", "c − a", "c − b"]
    for report in (cmp.to_text(), cmp.to_markdown(), cmp.to_latex()):
        assert all(pair.replace("−", "$-$") in report or pair in report for pair in pairs), report
    frame = cmp.to_frame()
    assert list(frame.index) == [("map", r) for r in "abc"]
    assert frame.loc[("map", "b"), "mean"] == pytest.approx(cmp.summary["map"]["b"]["mean"])
    pf = cmp.to_frame(pairs=True)
    assert len(pf) == 3 and pf.loc[("map", "b", "c"), "p_adjusted"] == cmp.pairs["map"][2]["p_adjusted"]
    one = br.compare(qrels, runs, ["map"], baseline="a")
    assert "c − b" not in one.to_text()  # against one baseline the run table says it all


def test_evaluate_takes_data_frames_by_their_usual_column_names():
    pd = pytest.importorskip("pandas")
    qrels, runs = _three_runs(4, n_queries=6)
    qf = pd.DataFrame([(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
                      columns=["query_id", "doc_id", "relevance"])
    rf = pd.DataFrame([(q, d, s) for q, docs in runs["b"].items() for d, s in docs.items()],
                      columns=["qid", "docno", "score"])
    assert br.evaluate(qf, rf, ["map", "P_5"]) == br.evaluate(qrels, runs["b"], ["map", "P_5"])
    with pytest.raises(ValueError, match="needs one docid column"):
        br.evaluate(qf, rf.rename(columns={"docno": "id"}), ["map"])
    with pytest.raises(ValueError, match="doc_id and docno both"):
        br.evaluate(qf.assign(docno=qf.doc_id), rf, ["map"])


def test_judged_only_scores_a_query_left_with_no_judged_document_0_and_counts_it():
    """trec_eval -J: a query whose retrieved documents are all unjudged scores 0 in the mean (9.0.8 and 10.0)."""
    qrels = {"q1": {"a": 1}, "q2": {"x": 1}}
    run = {"q1": {"a": 1.0, "u": 0.5}, "q2": {"u": 1.0, "v": 0.5}}
    means = br.evaluate(qrels, run, ["map", "P_5", "ndcg_cut_10", "recip_rank", "Rprec", "recall_5"],
                        judged_only=True)
    assert means == {"map": 0.5, "P_5": 0.1, "ndcg_cut_10": 0.5, "recip_rank": 0.5, "Rprec": 0.5, "recall_5": 0.5}
    per = br.evaluate(qrels, run, ["map", "num_ret"], judged_only=True, per_query=True)
    assert per == {"map": {"q1": 1.0, "q2": 0.0}, "num_ret": {"q1": 1, "q2": 0}}
    assert br.evaluate(qrels, run, "map", depth=0)["map"] == 0.0  # -M 0: no document, as trec_eval


def test_dict_judgements_refuse_fractional_grades():
    for grades in ({"a": 0.5}, {"a": 1.9}, {"a": True}, {"a": "1"}):
        with pytest.raises(ValueError, match=r"grade .* of qid q docid a is not a 64-bit integer"):
            br.evaluate({"q": grades}, {"q": {"a": 1.0}}, "map")
    assert br.Qrels.from_dict({"q": {"a": 2.0, "b": np.int64(1)}}).rel.tolist() == [2, 1]


@pytest.mark.parametrize("test", ["t", "wilcoxon", "randomization", "bootstrap", "tukey"])
@pytest.mark.parametrize("n", [1, 2])
def test_one_or_two_queries_give_no_p_value(test, n):
    qrels = {f"q{i}": {"a": 1, "b": 0} for i in range(n)}
    worse = {q: {"a": 1.0, "b": 2.0} for q in qrels}
    better = {q: {"a": 2.0, "b": 1.0} for q in qrels}
    with pytest.warns(RuntimeWarning, match=f"map: {n} paired queries: a paired test needs at least 3"):
        pair = br.compare(qrels, {"worse": worse, "better": better}, ["map"], test=test).pairs["map"][0]
    assert math.isnan(pair["p"]) and not pair["significant"] and pair["diff"] == 0.5
    with pytest.warns(RuntimeWarning):
        same = br.compare(qrels, {"worse": worse, "again": worse}, ["map"], test=test).pairs["map"][0]
    assert same["p"] == 1.0  # identical runs: nothing to test


def test_a_run_file_of_blank_lines_is_an_empty_run_as_an_empty_file_is(tmp_path):
    for name, text in (("blank.run", "\n\n \n"), ("empty.run", "")):
        (tmp_path / name).write_text(text)
        run = br.load_run(tmp_path / name)
        assert len(run) == 0 and run.queries == [] and run.name == name
        with pytest.raises(ValueError, match="retrieves no document"):
            br.evaluate({"q": {"a": 1}}, run, "map")
