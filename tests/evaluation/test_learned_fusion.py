"""boostrank.evaluation.learned_fusion: each fusion learned from training runs against its paper's definition on
a case computed by hand, and the ways a learned fusion is refused or chosen."""

from __future__ import annotations

import math

import numpy as np
import pytest

import boostrank as br
from boostrank.evaluation.fusion import fuse, optimize_fusion
from boostrank.evaluation.learned_fusion import (
    LEARNED,
    MIN_LOG_ODDS,
    TrainedFusion,
    train_fusion,
)

QRELS = {"t1": {"a1": 1, "a3": 1, "a2": 0, "a4": 0, "x": 0}, "t2": {"b2": 1, "b1": 0}}
# training runs: A ranks t1 a1 a2 a3 a4 (hits 1 0 1 0) and t2 b1 b2 (0 1); B ranks t1 a3 a1 x (1 1 0), t2 b2 b1 (1 0)
TRAIN = [br.Run.from_dict({"t1": {"a1": 4.0, "a2": 3.0, "a3": 2.0, "a4": 1.0}, "t2": {"b1": 2.0, "b2": 1.0}}, name="A"),
         br.Run.from_dict({"t1": {"a3": 3.0, "a1": 2.0, "x": 1.0}, "t2": {"b2": 2.0, "b1": 1.0}}, name="B")]
# the runs to fuse: A ranks q d1 d2 d3 (min-max 1, .5, 0), B ranks q d2 d4 (1, 0)
TEST = [br.Run.from_dict({"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, name="A"),
        br.Run.from_dict({"q": {"d2": 10.0, "d4": 5.0}}, name="B")]
L = math.log(0.3 / 0.7)
EXPECTED = {
    # Lillis et al. 2006, 2 segments: A's P = [(.5 + 0)/2, (.5 + 1)/2], B's [1, 0]; a document in segment k adds P_k / k
    ("probfuse", 2): {"d1": 0.25, "d2": 0.25 + 1.0, "d3": 0.75 / 2, "d4": 0.0},
    # Lillis et al. 2010: A's P by rank = [.5, .5, 1, 0], B's [1, .5, 0]
    ("posfuse", None): {"d1": 0.5, "d2": 0.5 + 1.0, "d3": 1.0, "d4": 0.5},
    # Lillis et al. 2008, w = 1, windows clipped at the list's ends
    ("slidefuse", 1): {"d1": 0.5, "d2": 2 / 3 + 0.75, "d3": 0.75, "d4": 0.75},
    # MAP on the training queries: A (5/6 + 1/2)/2 = 2/3, B 1; a document at rank p adds MAP / p
    ("mapfuse", None): {"d1": 2 / 3, "d2": 1 / 3 + 1.0, "d3": 2 / 9, "d4": 0.5},
    # Shokouhi 2007: ranks 1-5 are the first segment, P = (2/5 + 1/5)/2 = .3 for both; P (s + 1)
    ("segfuse", None): {"d1": 0.6, "d2": 0.45 + 0.6, "d3": 0.3, "d4": 0.3},
    # Aslam & Montague 2001: precision .3 in ranks 1-5 for both, log(.3/.7); a run that left a document out adds
    # log(.001/.999)
    ("bayesfuse", None): {"d1": L + MIN_LOG_ODDS, "d2": 2 * L, "d3": L + MIN_LOG_ODDS, "d4": L + MIN_LOG_ODDS},
}


@pytest.mark.parametrize("method, parameter", sorted(EXPECTED, key=str))
def test_each_learned_fusion_is_its_published_definition(method, parameter):
    options = {"probfuse": {"n_segments": parameter}, "slidefuse": {"w": parameter}}.get(method, {})
    trained = train_fusion(QRELS, TRAIN, method, **options)
    assert isinstance(trained, TrainedFusion) and trained.runs == ("A", "B")
    fused = fuse(TEST, method, trained=trained)
    assert fused.name == method
    assert fused.to_dict()["q"] == pytest.approx(EXPECTED[method, parameter])


def test_the_trained_values():
    assert train_fusion(QRELS, TRAIN, "probfuse", n_segments=2).values[0] == pytest.approx([0.25, 0.75])
    assert train_fusion(QRELS, TRAIN, "posfuse").values[1] == pytest.approx([1.0, 0.5, 0.0])
    odds = train_fusion(QRELS, TRAIN, "bayesfuse").values[0]
    # ranks 1-5 hold every training list; the buckets to rank 1000 saw no relevant document
    assert odds.shape == (1000,) and odds[:5] == pytest.approx([L] * 5) and odds[5:] == pytest.approx(MIN_LOG_ODDS)


def test_a_learned_fusion_is_refused_untrained_or_on_other_runs():
    with pytest.raises(ValueError, match="learns from judged training runs"):
        fuse(TEST, "probfuse")
    with pytest.raises(ValueError, match="learns from judged training runs"):
        fuse(TEST, "posfuse", trained=train_fusion(QRELS, TRAIN, "probfuse"))
    with pytest.raises(ValueError, match="trained on 2 runs"):
        fuse(TEST + [br.Run.from_dict({"q": {"d9": 1.0}}, name="C")], "posfuse",
             trained=train_fusion(QRELS, TRAIN, "posfuse"))
    with pytest.raises(ValueError, match="takes no weights"):
        fuse(TEST, "mapfuse", trained=train_fusion(QRELS, TRAIN, "mapfuse"), weights=[1, 2])
    with pytest.raises(ValueError, match="n_segments"):
        train_fusion(QRELS, TRAIN, "probfuse", n_segments=0)
    with pytest.raises(ValueError, match="method must be one of"):
        train_fusion(QRELS, TRAIN, "rrf")


def test_optimize_fusion_learns_and_chooses_the_parameter():
    for method, grid in (("probfuse", [1, 2, 3]), ("slidefuse", [0, 1, 2])):
        best, trials = optimize_fusion(QRELS, TRAIN, "map", method, grid=grid)
        assert isinstance(best, TrainedFusion) and [v for v, _ in trials] == grid
        chosen = best.n_segments if method == "probfuse" else best.w
        scores = dict(trials)
        assert scores[chosen] == max(scores.values())
        assert br.evaluate(QRELS, fuse(TRAIN, method, trained=best), "map")["map"] == pytest.approx(scores[chosen])
    best, trials = optimize_fusion(QRELS, TRAIN, "map", "mapfuse")
    assert trials == [] and best.values[1] == pytest.approx([1.0])


def test_ranks_past_the_training_lists_are_worth_nothing():
    long_run = [br.Run.from_dict({"q": {f"d{i}": float(-i) for i in range(12)}}, name=n) for n in "AB"]
    fused = fuse(long_run, "posfuse", trained=train_fusion(QRELS, TRAIN, "posfuse")).to_dict()["q"]
    assert fused["d5"] == 0.0 and fused["d0"] == pytest.approx(1.5)
    fused = fuse(long_run, "bayesfuse", trained=train_fusion(QRELS, TRAIN, "bayesfuse")).to_dict()["q"]
    assert fused["d4"] == pytest.approx(2 * L) and fused["d7"] == pytest.approx(2 * MIN_LOG_ODDS)
    assert np.isfinite(list(fused.values())).all()


def test_the_command_line_trains_and_fuses(tmp_path, capsys):
    from boostrank.cli import main

    paths = {}
    for part, runs in (("train", TRAIN), ("test", TEST)):
        paths[part] = [str(tmp_path / f"{part}{r.name}.run") for r in runs]
        for path, run in zip(paths[part], runs):
            br.save_run(path, run)
    br.save_qrels(tmp_path / "qrels.txt", br.Qrels.from_dict(QRELS))
    out = tmp_path / "fused.run"
    assert main(["fuse", *paths["test"], "--method", "probfuse", "--optimize", "map", "--qrels",
                 str(tmp_path / "qrels.txt"), "--train", *paths["train"], "--out", str(out)]) == 0
    assert "n_segments = " in capsys.readouterr().err
    assert main(["fuse", *paths["test"], "--method", "posfuse", "--qrels", str(tmp_path / "qrels.txt"), "--train",
                 *paths["train"], "--out", str(out)]) == 0
    assert br.load_run(out).to_dict()["q"] == pytest.approx(EXPECTED["posfuse", None])
    assert main(["fuse", *paths["test"], "--method", "posfuse", "--out", str(out)]) == 2
    assert "give --qrels" in capsys.readouterr().err


def test_runs_named_as_the_training_runs_are_paired_by_name_whatever_their_order():
    trained = train_fusion(QRELS, TRAIN, "posfuse")
    assert fuse(TEST[::-1], "posfuse", trained=trained).to_dict() == fuse(TEST, "posfuse", trained=trained).to_dict()
    other = [br.Run.from_dict(r.to_dict(), name=f"test-{r.name}") for r in TEST]  # no training name: in order
    assert fuse(other, "posfuse", trained=trained).to_dict() == fuse(TEST, "posfuse", trained=trained).to_dict()
    half = [TEST[0], other[1]]
    with pytest.raises(ValueError, match="share some names with the training runs"):
        fuse(half, "posfuse", trained=trained)


@pytest.mark.parametrize("method", sorted(LEARNED))
def test_training_that_would_learn_nothing_is_refused(method):
    with pytest.raises(ValueError, match="has no query the judgements have"):
        train_fusion({"x1": {"a1": 1}}, TRAIN, method)
    with pytest.raises(ValueError, match="no document training run 'A' retrieves is relevant"):
        train_fusion({"t1": {"a1": 0}, "t2": {"b1": 0}}, TRAIN, method)
