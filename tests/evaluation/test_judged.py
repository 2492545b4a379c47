"""boostrank.evaluation.judged: a run matched to its qrels."""

from __future__ import annotations

import numpy as np
import pytest

import boostrank as br

from ..reference import judged_lists_reference
from .helpers import random_collection


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


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("depth", [None, 1, 3])
@pytest.mark.parametrize("complete", [False, True])
@pytest.mark.parametrize("judged_only", [False, True])
def test_judged_lists_equal_the_dict_join(seed, depth, complete, judged_only):
    """Every option against a plain-Python join: ties, unjudged and negatively graded documents, queries on one
    side only, empty lists; float32 ranks on scores equal in float32 (seed 0 holds some)."""
    qrels, run = random_collection(seed, ties=seed % 2 == 0)
    if seed == 0:
        run["q0"] = {"a": 1.0 + 1e-12, "b": 1.0, "c": 0.5}  # a first in float64, b (docid) in float32
        qrels["q0"] = {"a": 1, "b": 0, "c": 2}
    float32 = seed % 3 == 0
    lists = br.evaluation.judged_lists(br.Qrels.from_dict(qrels), br.Run.from_dict(run), depth=depth,
                                       complete=complete, float32=float32, judged_only=judged_only)
    want = judged_lists_reference(qrels, run, depth, complete, float32, judged_only)
    assert lists.queries == list(want)
    for g, q in enumerate(lists.queries):
        rel, score, ideal = want[q]
        np.testing.assert_array_equal(lists.rel[lists.offsets[g]:lists.offsets[g + 1]], rel)
        np.testing.assert_array_equal(lists.score[lists.offsets[g]:lists.offsets[g + 1]], score)
        np.testing.assert_array_equal(lists.ideal[lists.ideal_offsets[g]:lists.ideal_offsets[g + 1]], ideal)


def test_an_empty_run_and_an_empty_query_set_match_nothing():
    qrels = br.Qrels.from_dict({"q": {"a": 1}})
    lists = br.evaluation.judged_lists(qrels, br.Run.from_dict({"z": {"a": 1.0}}))
    assert lists.queries == [] and lists.rel.size == 0 and list(lists.offsets) == [0]
    lists = br.evaluation.judged_lists(qrels, br.Run.from_dict({"z": {"a": 1.0}}), complete=True)
    assert lists.queries == ["q"] and lists.rel.size == 0 and list(lists.ideal) == [1.0]
