"""boostrank.evaluation.measures on trec_eval's own test corpus (``tests/data/trec_eval``, trec_eval v9.0.8's
``test/`` folder, NIST's notice beside it): the reference of record for every trec_eval measure boostrank computes
(issue 61).

Each expected output is ``measure <TAB> query-or-all <TAB> value`` at 4 decimals; every measure boostrank knows is
compared line for line, per query and in the mean.  The measures it does not know yet are listed here by family,
so a measure that stops being recognised, or a new one that does not match, fails.
"""

from __future__ import annotations

import collections
import dataclasses
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import boostrank as br

CORPUS = Path(__file__).resolve().parents[1] / "data" / "trec_eval"  # in the repository: every clone runs these

#: trec_eval's measure families boostrank does not compute (experimental gain-walk measures), and the lines that
#: are not numbers per query (runid, relstring)
NOT_YET = {"runid", "relstring"}
#: each expected output: qrels, run and trec_eval's options (README beside the corpus)
OUTPUTS = {
    "out.test": ("qrels.test", "results.test", {}),
    "out.test.a": ("qrels.test", "results.test", {}),
    "out.test.aq": ("qrels.test", "results.test", {}),
    "out.test.aqc": ("qrels.test", "results.trunc", {"complete": True}),
    "out.test.aqcM": ("qrels.test", "results.trunc", {"complete": True, "depth": 100}),
    "out.test.aql": ("qrels.rel_level", "results.test", {"relevance_level": 2}),
}


def _family(measure: str) -> str:
    """``P_10`` → ``P``, ``iprec_at_recall_0.10`` → ``iprec_at_recall``; a measure without a cut is its own."""
    return re.sub(r"_[0-9.]+$", "", measure)


def _expected(name: str) -> dict:
    out: dict = collections.defaultdict(dict)
    for line in (CORPUS / name).read_text().splitlines():
        measure, query, value = line.split()
        out[measure][query] = value
    return out


@pytest.fixture(scope="module")
def corpus():
    return br.load_qrels(CORPUS / "qrels.test"), br.load_run(CORPUS / "results.test")


def _printed(measure: str, value: float) -> str:
    """As trec_eval prints: counts as integers (``%ld``), the rest to 4 decimals."""
    return f"{value:.0f}" if measure.startswith("num_") else f"{value:.4f}"


@pytest.mark.parametrize("name", sorted(OUTPUTS))
def test_every_measure_boostrank_has_reproduces_trec_evals_expected_output(name):
    """Each of trec_eval's six expected outputs, line for line, per query and in the ``all`` line, with the same
    options (-c, -M100, -l2) and trec_eval 9.x's rules (the corpus is v9.0.8's: float32 scores, x R + 0.9)."""
    qrels_file, run_file, options = OUTPUTS[name]
    qrels, run = br.load_qrels(CORPUS / qrels_file), br.load_run(CORPUS / run_file)
    expected = _expected(name)
    known = [m for m in expected if _family(m) not in NOT_YET]
    assert len(known) >= (29 if name == "out.test" else 90)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # qrels and run cover the same queries: no mismatch warning expected
        means = br.evaluate(qrels, run, known, version="9", **options)
        values = br.evaluate(qrels, run, known, per_query=True, version="9", **options)
    wrong = []
    for measure in known:
        got = {"all": means[measure], **{str(q): v for q, v in values[measure].items()}}
        for query, want in expected[measure].items():
            if _printed(measure, got.get(query, float("nan"))) != want:
                wrong.append((measure, query, got.get(query), want))
    assert not wrong, wrong[:10]


def test_all_trec_names_the_measures_of_trec_evals_own_output():
    """``all_trec`` expands to trec_eval's ``-m all_trec`` measures, in its order, but the ones listed above."""
    expected = [m for m in _expected("out.test.a") if _family(m) not in NOT_YET]
    assert br.evaluation.measures.expand("all_trec") == expected


def test_every_other_measure_is_a_family_listed_as_not_computed(corpus):
    """A measure boostrank refuses is one of the families above; one it accepts is compared above."""
    qrels, run = corpus
    refused = set()
    for measure in {m for name in OUTPUTS for m in _expected(name)}:
        try:
            br.evaluate(qrels, run, [measure])
        except ValueError:
            refused.add(_family(measure))
    assert refused == NOT_YET


def test_a_run_line_with_fields_after_the_tag_reads_as_trec_eval_reads_it():
    """trec_eval ignores every field after run_id (``results.trunc``: '... STANDARD more junk at')."""
    run = br.load_run(CORPUS / "results.trunc")
    first = (CORPUS / "results.trunc").read_text().split("\n", 1)[0].split()
    assert len(first) > 6 and run.name == first[5]
    assert str(run.qid[0]) == first[0] and run.docid[0] == first[2] and run.score[0] == float(first[4])


@pytest.mark.parametrize("name, flags", [("out.test.aq", []), ("out.test.aqcM", ["-c", "-M", "100"]),
                                         ("out.test.aql", ["-l", "2"])])
def test_the_command_line_prints_trec_evals_lines(capsys, name, flags):
    """``boostrank evaluate -q`` with trec_eval's flags prints trec_eval's lines (measure, query, value)."""
    from boostrank.cli import main

    qrels_file, run_file, _ = OUTPUTS[name]
    assert main(["evaluate", "--qrels", str(CORPUS / qrels_file), str(CORPUS / run_file), "--metrics", "all_trec",
                 "-q", "--trec-eval", "9", *flags]) == 0
    printed = [line.split() for line in capsys.readouterr().out.splitlines()]
    expected = {(m, q): v for m, values in _expected(name).items() for q, v in values.items()}
    assert len(printed) == sum(_family(m) not in NOT_YET for m, _ in expected)
    assert all(expected[m, q] == v for m, q, v in printed)


def test_relevance_levels_of_zero_and_below_count_judged_documents_as_trec_eval_does():
    """-l 0 and below: R and num_rel_ret count judged documents only (grades 0 and up; form_res_rels.c), while the
    walks read the codes (an unjudged document passes -l -1); Rndcg of relevant documents without a positive gain
    is trec_eval's 0 / 0."""
    qrels = {"q": {"a": 0, "b": 0, "c": -1}}
    run = {"q": {"u": 3.0, "a": 2.0, "c": 1.0}}  # unjudged, judged 0, judged -1 (pooled, not judged)
    at0 = br.evaluate(qrels, run, ["num_rel", "num_rel_ret", "Rndcg", "map"], relevance_level=0, per_query=True)
    assert at0["num_rel"]["q"] == 2 and at0["num_rel_ret"]["q"] == 1 and math.isnan(at0["Rndcg"]["q"])
    assert at0["map"]["q"] == pytest.approx((1 / 2) / 2)
    below = br.evaluate(qrels, run, ["num_rel", "num_rel_ret", "map"], relevance_level=-1, per_query=True)
    assert below["num_rel"]["q"] == 2 and below["num_rel_ret"]["q"] == 1
    assert below["map"]["q"] == pytest.approx((1 + 1) / 2)  # u passes -1 in the walk: trec_eval's own sum
    assert math.isnan(br.evaluate(qrels, run, "Rndcg", relevance_level=0)["Rndcg"])


def _hostile_lists(rng, n_lists: int):
    """Judged lists of every awkward shape: empty, one document, tied and graded codes (unjudged −1 and −2,
    negative grades), no relevant document, more relevant documents than retrieved ones."""
    from boostrank.evaluation.judged import JudgedLists

    sizes = rng.choice([0, 1, 2, 5, 30, 120], size=n_lists)
    judged = rng.choice([0, 1, 3, 40], size=n_lists)
    rel = rng.choice([-2.0, -1.0, 0.0, 1.0, 2.0, 3.0], size=int(sizes.sum()))
    ideal = -np.sort(-rng.choice([-1.0, 0.0, 0.0, 1.0, 2.0], size=int(judged.sum())).reshape(-1)) if judged.sum() \
        else np.zeros(0)
    ideal_offsets = np.concatenate(([0], np.cumsum(judged))).astype(np.int64)
    for g in range(n_lists):  # each query's judged grades best first
        part = ideal[ideal_offsets[g]:ideal_offsets[g + 1]]
        part[:] = -np.sort(-part)
    return JudgedLists(rel=rel, score=np.zeros(rel.size), offsets=np.concatenate(([0], np.cumsum(sizes))).astype(
        np.int64), ideal=ideal, ideal_offsets=ideal_offsets, queries=[f"q{g}" for g in range(n_lists)],
        unjudged_queries=[], unretrieved_queries=[])


@pytest.mark.parametrize("seed", range(6))
def test_a_familys_cut_offs_in_one_pass_equal_one_pass_per_cut(seed):
    """evaluate computes the cut-offs of a family (P_5 … P_1000, iprec_at_recall_0.00 … 1.00) in one kernel pass
    (measures.compute_cuts): each cut's values equal the pass of that cut alone, for every cut-off
    family, cuts given out of order and twice, at relevance levels above and below 0 and both roundings."""
    from boostrank.evaluation.measures import BY_CUT, _FAMILIES, compute_cuts, trec_measure

    rng = np.random.default_rng(seed)
    lists = _hostile_lists(rng, 40)
    threshold, v9 = float(rng.choice([-2.0, 0.0, 1.0])), bool(seed % 2)
    for family, (code, default, kind, _) in _FAMILIES.items():
        if code not in BY_CUT:
            continue
        cuts = list(rng.permutation(default)) + [default[0]] + ([] if kind == "fraction" else [1, 7, 250, 5000])
        specs = [f"{family}.{c:g}" for c in cuts]
        fresh = dataclasses.replace(lists)  # nothing computed yet
        compute_cuts(fresh, specs, threshold, v9)
        assert len(fresh.computed) == len(set(cuts))
        for spec in specs:
            np.testing.assert_array_equal(trec_measure(spec).values(fresh, threshold, v9),
                                          trec_measure(spec).values(dataclasses.replace(lists), threshold, v9),
                                          err_msg=spec)


def test_all_trec_in_shared_passes_equals_one_measure_at_a_time():
    """evaluate's result for all_trec, its families' cut-offs in shared passes, equals each measure asked alone."""
    qrels = br.load_qrels(CORPUS / "qrels.test")
    run = br.load_run(CORPUS / "results.test")
    together = br.evaluate(qrels, run, "all_trec", per_query=True)
    for name in ("P_30", "iprec_at_recall_0.40", "Rprec_mult_1.20", "relative_P_100", "success_5", "map_cut_20",
                 "ndcg_cut_10", "ndcg", "recall_100", "map", "recip_rank", "Rprec"):
        assert together[name] == br.evaluate(qrels, run, name, per_query=True)[name]


@pytest.mark.parametrize("seed", range(6))
def test_the_ranked_list_measures_at_several_cut_offs_equal_each_cut_off_alone(seed):
    """judged_measure walks each list once for all of its cut-offs (given in any order, repeated, 0 for none,
    past the list): each column equals the walk to that cut-off alone, for every measure, both conventions and
    relevance levels above and below 0, on empty, one-document, unjudged and all-non-relevant lists."""
    from boostrank._kernels import judged as kj

    rng = np.random.default_rng(seed)
    lists = _hostile_lists(rng, 40)
    ks = np.array([10, 1, 0, 5, 10, 1000, 3, 200], dtype=np.int64)
    rel = np.abs(lists.rel) if seed % 2 else lists.rel  # LightGBM's gains read non-negative grades
    for mode in (kj.MODE_NDCG, kj.MODE_AVERAGE_PRECISION, kj.MODE_PRECISION, kj.MODE_RECALL,
                 kj.MODE_RECIPROCAL_RANK, kj.MODE_R_PRECISION):
        for exp_gain, threshold in ((False, 0.0), (False, -1.0), (True, 0.0), (False, 1.0)):
            cuts = ks[ks > 0] if mode == kj.MODE_PRECISION else ks  # precision needs its k
            together = kj.judged_measure(rel, lists.offsets, lists.ideal, lists.ideal_offsets, mode, cuts,
                                         threshold, exp_gain, 0.5)
            assert together.shape == (40, cuts.size)
            for j, k in enumerate(cuts):
                alone = kj.judged_measure(rel, lists.offsets, lists.ideal, lists.ideal_offsets, mode,
                                          np.array([k]), threshold, exp_gain, 0.5)
                np.testing.assert_array_equal(together[:, j], alone[:, 0], err_msg=f"mode {mode} k {k}")


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("convention", ["trec", "lightgbm"])
def test_labelled_lists_measures_in_shared_passes_equal_each_measure_alone(seed, convention):
    """On labelled lists, measures of one family at several cut-offs and both conventions (``ndcg@10:lightgbm``
    beside ``ndcg@5:trec``), given together, equal each asked alone; a list without a relevant document too."""
    rng = np.random.default_rng(seed)
    y, s, qid = rng.integers(0, 4, 300), np.round(rng.random(300), 1), np.repeat(np.arange(30), 10)
    y[qid == 3] = 0
    specs = ["ndcg@10", "ndcg@5:trec", "ndcg", "map@3", "map", "P_10", "p@5", "recall@5", "mrr", "mrr@3",
             "ndcg@10:lightgbm", "map@10:lightgbm", "P_5", "success_1", "success_5", "iprec_at_recall_0.10", "Rprec",
             "recall_100", "ndcg_cut_1000"]
    together = br.evaluate((y, qid), s, specs, convention=convention, per_query=True)
    for m in specs:
        assert together[m] == br.evaluate((y, qid), s, m, convention=convention, per_query=True)[m], m
