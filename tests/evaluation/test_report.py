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
