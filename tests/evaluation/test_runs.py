"""boostrank.evaluation.runs: Qrels and Run objects, their frames and what they refuse."""

from __future__ import annotations

import numpy as np
import pytest

import boostrank as br


def test_runs_and_qrels_to_and_from_pandas():
    pd = pytest.importorskip("pandas")
    qrels = br.Qrels.from_dict({"q1": {"a": 1, "b": 0}, "007": {"c": 2}})
    run = br.Run.from_dict({"q1": {"a": 0.5, "b": 0.7}, "007": {"c": 1.0}}, name="r")
    assert br.Qrels.from_frame(qrels.to_frame()).to_dict() == qrels.to_dict()
    back = br.Run.from_frame(run.to_frame(), name="r")
    assert back.to_dict() == run.to_dict() and back.name == "r"
    frame = pd.DataFrame({"query_id": [7, 7], "doc_id": ["x", "y"], "relevance": [1, 0]})
    assert br.Qrels.from_frame(frame, "query_id", "doc_id", "relevance").to_dict() == {"7": {"x": 1, "y": 0}}


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
