"""boostrank.evaluation.ids: ids held as bytes match exactly, whatever their hashes do."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import boostrank as br
from boostrank.evaluation.evaluate import QueryMismatchWarning

from .helpers import random_collection


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
