"""boostrank.evaluation.scores: a LETOR file's scores from a score file or a TREC run."""

from __future__ import annotations

import json

import numpy as np
import pytest

import boostrank as br
from boostrank.cli import main
from ..conftest import nonlinear_letor
from .helpers import _six_rows


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
