"""boostrank.evaluation.judged: a run matched to its qrels."""

from __future__ import annotations

import numpy as np

import boostrank as br


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
