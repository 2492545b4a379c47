"""boostrank.evaluation.report: a comparison as text, Markdown, LaTeX, JSON and frames."""

from __future__ import annotations

import json

import pytest

import boostrank as br
from .helpers import three_runs, _three_runs


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


def test_p_values_print_as_journals_print_them():
    from boostrank.evaluation.report import p_text as _p_text

    assert [_p_text(p) for p in (0.0005999, 0.05, 1.0, 0.123456, 0.001)] == ["<0.001", "0.0500", "1.00", "0.123",
                                                                             "0.00100"]


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


def _graded_lists(seed, n_q=6, size=9):
    """Graded lists with tied scores (one decimal), one query of one class and docids that are not in id order."""
    import numpy as np

    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(n_q), size)
    y = rng.integers(0, 3, n_q * size)
    y[:size] = 0  # a query where AUC is undefined
    s = np.round(rng.normal(size=n_q * size), 1)
    docid = np.array([f"d{rng.integers(0, 10**6):07d}" for _ in range(n_q * size)], dtype=object)
    return y, qid, {"a": s, "b": -s, "ties": np.zeros_like(s)}, docid


@pytest.mark.parametrize("seed", range(4))
def test_metric_table_breaks_trec_metrics_ties_by_docid_and_counts_queries_with_auc(seed):
    """trec_eval's metrics see each list by docid descending (so score ties fall as trec_eval breaks them), the
    others the rows as given; ``queries_with_auc`` counts the lists with both classes."""
    import numpy as np
    import warnings

    from boostrank.evaluation.report import metric_table

    y, qid, runs, docid = _graded_lists(seed)
    names = ["ndcg@5:trec", "map:trec", "p@3", "mrr", "ndcg@5", "auc"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # with docids, no tie warning
        table = metric_table(y, qid, runs, names, docid=docid)
    perm = np.array(sorted(range(len(y)), key=lambda i: (qid[i], tuple(-b for b in docid[i].encode()))))
    for run, s in runs.items():
        for name in names:
            trec = name.endswith(":trec") or name.startswith(("p@", "mrr"))
            yy, ss = (y[perm], s[perm]) if trec else (y, s)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", br.metrics.TieWarning)  # the rows are in docid order already
                want = br.get_metric(name)(yy, ss, qid[perm])
            assert table[run][name] == pytest.approx(want, rel=1e-12)
        both = [set(y[qid == q] > 0) == {True, False} for q in np.unique(qid)]
        assert table[run]["queries_with_auc"] == sum(both) < len(both)


def test_format_table_is_one_row_per_run_with_four_decimals():
    from boostrank.evaluation.report import format_table

    text = format_table({"a": {"auc": 0.5, "ndcg@10": 1.0}, "longer name": {"auc": 0.25, "ndcg@10": 0.0}},
                        ["auc", "ndcg@10"])
    assert text.splitlines() == ["run" + " " * 16 + "auc    ndcg@10",
                                 "a" + " " * 15 + "0.5000     1.0000",
                                 "longer name     0.2500     0.0000"]
