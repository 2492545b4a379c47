"""boostrank.evaluation.evaluate: trec_eval's measures through pytrec_eval and a plain-Python oracle, its options, labelled
lists and their qrels form, ids matched exactly."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import boostrank as br
from boostrank.evaluation.evaluate import QueryMismatchWarning
from tests.reference import trec_eval_reference, trec_more_reference
from .helpers import K, MEASURES, random_collection, MORE, GAIN_WALKS, TREC10, RANX, letor_lists, _three_runs


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


@pytest.mark.parametrize("seed", range(3))
def test_measures_on_several_threads_equal_one_thread(monkeypatch, seed):
    """A large run's measures are computed at once on Numba's threads (each kernel releases the GIL): the same
    values, bit for bit, in the same order, and an error of one measure still reaches the caller."""
    import importlib

    ev = importlib.import_module("boostrank.evaluation.evaluate")  # the module: evaluation.evaluate is the function

    qrels, run = random_collection(seed, n_queries=40)
    metrics = ["all_trec", "auc", "ndcg@5:lightgbm", "p@3"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", QueryMismatchWarning)
        one = br.evaluate(qrels, run, metrics, per_query=True)
        monkeypatch.setattr(ev, "MEASURES_PARALLEL_MIN_ROWS", 1)
        many = br.evaluate(qrels, run, metrics, per_query=True)
        assert list(many) == list(one)
        for m in one:
            assert list(many[m]) == list(one[m])
            np.testing.assert_array_equal(np.array(list(many[m].values())), np.array(list(one[m].values())))
        with pytest.raises(ValueError, match="LightGBM's gain"):
            br.evaluate({"q": {"a": 70, "b": 0}}, {"q": {"a": 1.0, "b": 2.0}}, ["map", "ndcg:lightgbm"])
