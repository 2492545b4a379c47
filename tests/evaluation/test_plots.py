"""boostrank.evaluation.plots: the plots are written and their numbers are the comparison's."""

from __future__ import annotations

import numpy as np
import pytest

import boostrank as br
from .helpers import three_runs


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
