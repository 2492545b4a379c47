"""Fusion (issue 61 item 2): each method and normalisation against its published definition on cases computed by
hand, weights, the grid over the simplex, and a fused run through evaluate, compare and the command line."""

from __future__ import annotations

import math

import numpy as np
import pytest

import boostrank as br
from boostrank.evaluation.fusion import fuse, optimize_fusion

A = br.Run.from_dict({"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "r": {"e1": 0.5}}, name="a")
B = br.Run.from_dict({"q": {"d2": 10.0, "d4": 5.0}}, name="b")

# min-max: a's q → d1 1, d2 .5, d3 0 (its r list has one score: 1); b's q → d2 1, d4 0.  Ranks: a d1 1, d2 2, d3 3;
# b d2 1, d4 2.  Borda's candidates in q: 4; a leaves d4 out ((4 − 3 + 1)/2 = 1 point), b leaves d1 and d3 (1.5)
EXPECTED = {
    "combsum": {"d1": 1.0, "d2": 1.5, "d3": 0.0, "d4": 0.0},
    "combmnz": {"d1": 1.0, "d2": 3.0, "d3": 0.0, "d4": 0.0},
    "combanz": {"d1": 1.0, "d2": 0.75, "d3": 0.0, "d4": 0.0},
    "combmax": {"d1": 1.0, "d2": 1.0, "d3": 0.0, "d4": 0.0},
    "combmin": {"d1": 1.0, "d2": 0.5, "d3": 0.0, "d4": 0.0},
    "combmed": {"d1": 1.0, "d2": 0.75, "d3": 0.0, "d4": 0.0},
    "wsum": {"d1": 1.0, "d2": 1.5, "d3": 0.0, "d4": 0.0},
    "rrf": {"d1": 1 / 61, "d2": 1 / 62 + 1 / 61, "d3": 1 / 63, "d4": 1 / 62},
    "borda": {"d1": 4 + 1.5, "d2": 3 + 4, "d3": 2 + 1.5, "d4": 1 + 3},
    "isr": {"d1": 1.0, "d2": 2 * (1 / 4 + 1), "d3": 1 / 9, "d4": 1 / 4},
    "log_isr": {"d1": 0.0, "d2": math.log(2) * (1 / 4 + 1), "d3": 0.0, "d4": 0.0},
    # Wu & Crestani: Σ sᵢ × the weights of the runs that retrieved it; Σ wᵢ sᵢ × √(runs that retrieved it)
    "wmnz": {"d1": 1.0, "d2": 1.5 * 2, "d3": 0.0, "d4": 0.0},
    "mixed": {"d1": 1.0, "d2": 1.5 * math.sqrt(2), "d3": 0.0, "d4": 0.0},
    # Lee: Σ sᵢ × (runs that retrieved it)^γ, γ = 1: CombMNZ
    "gmnz": {"d1": 1.0, "d2": 3.0, "d3": 0.0, "d4": 0.0},
    # Mourão et al.: Σ 1 / rᵢ² × log(runs that retrieved it + σ), σ = .01
    "logn_isr": {"d1": math.log(1.01), "d2": (1 / 4 + 1) * math.log(2.01), "d3": math.log(1.01) / 9,
                 "d4": math.log(1.01) / 4},
    # Bailey et al.: Σ (1 − φ) φ^(r − 1), φ = .8
    "rbc": {"d1": 0.2, "d2": 0.2 * 0.8 + 0.2, "d3": 0.2 * 0.64, "d4": 0.2 * 0.8},
    "w_bordafuse": {"d1": 4 + 1.5, "d2": 3 + 4, "d3": 2 + 1.5, "d4": 1 + 3},
}


@pytest.mark.parametrize("method", sorted(EXPECTED))
def test_each_fusion_is_its_published_definition(method):
    fused = fuse([A, B], method)
    assert fused.name == method
    got = fused.to_dict()
    assert got["q"] == pytest.approx(EXPECTED[method])
    assert set(got["r"]) == {"e1"}  # a query only one run has keeps that run's documents


def test_normalisations_and_weights():
    s = {"q": {"x": 1.0, "y": 3.0, "z": 5.0}}
    run, other = br.Run.from_dict(s, name="s"), br.Run.from_dict({"q": {"x": 0.0}}, name="o")
    one = {norm: fuse([run, other], "combsum", norm=norm).to_dict()["q"] for norm in br.evaluation.NORMS}
    assert one["min-max"] == pytest.approx({"x": 0.0 + 1.0, "y": 0.5, "z": 1.0})  # o's single score is its best: 1
    assert one["max"] == pytest.approx({"x": 0.2 + 0.0, "y": 0.6, "z": 1.0})
    assert one["sum"] == pytest.approx({"x": 0.0, "y": 2 / 6, "z": 4 / 6})
    sd = math.sqrt(8 / 3)
    assert one["zmuv"] == pytest.approx({"x": -2 / sd, "y": 0.0, "z": 2 / sd})
    assert one["rank"] == pytest.approx({"x": 1 / 3 + 1.0, "y": 2 / 3, "z": 1.0})
    assert one[None] == pytest.approx({"x": 1.0, "y": 3.0, "z": 5.0})
    weighted = fuse([A, B], "wsum", weights=[2.0, 0.5]).to_dict()["q"]
    assert weighted == pytest.approx({"d1": 2.0, "d2": 2 * 0.5 + 0.5, "d3": 0.0, "d4": 0.0})
    assert fuse([A, B], "rrf", k=0).to_dict()["q"]["d2"] == pytest.approx(1 / 2 + 1)


def test_bad_fusion_arguments_are_named():
    for kwargs, match in ((dict(method="nope"), "method"), (dict(norm="l2"), "norm"), (dict(weights=[1]), "weights"),
                          (dict(weights=[1, -1]), "weights"), (dict(method="combmax", weights=[1, 2]), "no weights"),
                          (dict(k=-1), "k must")):
        with pytest.raises(ValueError, match=match):
            fuse([A, B], **kwargs)
    with pytest.raises(ValueError, match="two or more"):
        fuse([A])


def _collection(seed, n_queries=20, n_docs=30):
    rng = np.random.default_rng(seed)
    qrels, runs = {}, {}
    for q in range(n_queries):
        rel = rng.random(n_docs) < 0.3
        qrels[f"q{q}"] = {f"d{i}": int(r) for i, r in enumerate(rel)}
        for name, noise in (("good", 0.8), ("fair", 1.5)):
            s = rel + noise * rng.normal(size=n_docs)
            runs.setdefault(name, {})[f"q{q}"] = {f"d{i}": float(v) for i, v in enumerate(s) if v > -1.5}
    return qrels, {name: br.Run.from_dict(r, name=name) for name, r in runs.items()}


def test_the_grid_over_the_simplex_finds_the_best_weights_and_a_fused_run_is_a_run():
    qrels, runs = _collection(0)
    best, trials = optimize_fusion(qrels, runs, "map", step=0.25)
    assert len(trials) == 5 and best.sum() == pytest.approx(1.0)
    assert max(v for _, v in trials) == br.evaluate(qrels, fuse(runs, "wsum", weights=best), "map")["map"]
    fused = fuse(runs, "rrf", name="rrf")
    table = br.compare(qrels, {**runs, "rrf": fused}, ["map", "ndcg_cut_10"], baseline="good")
    assert set(table.runs) == {"good", "fair", "rrf"}


def test_the_command_line_fuses_and_compares(tmp_path, capsys):
    from boostrank.cli import main

    qrels, runs = _collection(1)
    qpath = tmp_path / "qrels.txt"
    br.save_qrels(qpath, br.Qrels.from_dict(qrels))
    paths = []
    for name, run in runs.items():
        br.save_run(tmp_path / f"{name}.run", run)
        paths.append(str(tmp_path / f"{name}.run"))
    out = tmp_path / "fused.run"
    assert main(["fuse", *paths, "--method", "combmnz", "--out", str(out)]) == 0
    fused = br.load_run(out)
    want = fuse(runs, "combmnz").to_dict()
    assert fused.name == "combmnz" and fused.to_dict().keys() == want.keys()
    assert all(fused.to_dict()[q] == pytest.approx(want[q], rel=1e-15) for q in want)  # save_run writes %.17g
    assert main(["fuse", *paths, "--qrels", str(qpath), "--optimize", "map", "--step", "0.5", "--out", str(out),
                 "--run-tag", "tuned"]) == 0
    err = capsys.readouterr().err
    assert "weights" in err and br.load_run(out).name == "tuned"
    assert main(["compare", "--qrels", str(qpath), *paths, str(out), "--baseline", "good"]) == 0
    assert "tuned" in capsys.readouterr().out


def test_max_normalisation_keeps_the_order_of_negative_scores():
    """Hardening 6 #3: s / max reversed log-probabilities; a run fused with itself came back reversed."""
    logp = br.Run.from_dict({"q": {"a": -0.1, "b": -2.0, "c": -5.0}, "z": {"a": 0.0, "b": -1.0}}, name="logp")
    fused = fuse({"one": logp, "two": logp}, "combsum", norm="max").to_dict()
    assert fused["q"] == pytest.approx({"a": -0.04, "b": -0.8, "c": -2.0})  # s / max|s|, twice
    assert fused["z"] == pytest.approx({"a": 0.0, "b": -2.0})  # a query whose maximum is 0 keeps its order
    for q, scores in fused.items():
        assert sorted(scores, key=scores.get) == sorted(scores, key=logp.to_dict()[q].get)
    zeros = br.Run.from_dict({"q": {"a": 0.0, "b": 0.0}}, name="zeros")
    assert fuse([zeros, logp], "combsum", norm="max").to_dict()["q"]["a"] == pytest.approx(-0.02)


def test_the_command_line_refuses_a_run_file_named_twice(tmp_path, capsys):
    """Hardening 6 #9: `fuse a.run a.run a.run` fused two runs without a word."""
    from boostrank.cli import main

    path = tmp_path / "a.run"
    br.save_run(path, A)
    assert main(["fuse", str(path), str(path), str(path), "--out", str(tmp_path / "f.run")]) == 2
    assert f"run file {path} is named twice" in capsys.readouterr().err
    assert not (tmp_path / "f.run").exists()


def test_condorcet_sorts_by_pairwise_majority_and_its_weights_move_the_votes():
    """Montague & Aslam: a before b when more runs (or more weight) rank a above b."""
    runs = [br.Run.from_dict({"q": dict(zip(order, (3.0, 2.0, 1.0)))}, name=f"r{i}")
            for i, order in enumerate([("a", "b", "c"), ("b", "a", "c"), ("a", "c", "b")])]
    assert fuse(runs, "condorcet").to_dict()["q"] == {"a": 3.0, "b": 2.0, "c": 1.0}
    # weight 3 on the run that puts b first: b beats a (3 votes to 2), both still beat c
    assert fuse(runs, "w_condorcet", weights=[1, 3, 1]).to_dict()["q"] == {"b": 3.0, "a": 2.0, "c": 1.0}
    # a document a run did not retrieve is below every one it did; a tie of votes falls to docid descending
    one = fuse([runs[0], br.Run.from_dict({"q": {"z": 1.0}}, name="z")], "condorcet").to_dict()["q"]
    assert max(one, key=one.get) == "z" and one["a"] > one["b"] > one["c"]
    with pytest.raises(ValueError, match="w_condorcet"):
        fuse(runs, "condorcet", weights=[1, 1, 1])


def test_borda_normalisation_scores_every_candidate_from_every_run():
    """ranx's borda_norm: 1 − (r − 1)/c for a retrieved candidate, 0.5 − (ℓ − 1)/(2c) for one a run left out."""
    got = fuse([A, B], "combmnz", norm="borda").to_dict()["q"]
    c = 4  # candidates d1..d4; a's list has 3, b's 2
    a_vals = {"d1": 1.0, "d2": 1 - 1 / c, "d3": 1 - 2 / c, "d4": 0.5 - (3 - 1) / (2 * c)}
    b_vals = {"d2": 1.0, "d4": 1 - 1 / c, "d1": 0.5 - (2 - 1) / (2 * c), "d3": 0.5 - (2 - 1) / (2 * c)}
    assert got == pytest.approx({d: (a_vals[d] + b_vals[d]) * 2 for d in a_vals})  # both runs now score all four


def test_a_method_s_own_parameter_is_chosen_on_judgements():
    qrels, runs = _collection(5)
    for method, name in (("rrf", "k"), ("rbc", "phi"), ("gmnz", "gamma"), ("logn_isr", "sigma")):
        grid = [0.2, 0.5, 0.9] if method != "rrf" else [1, 10, 60]
        best, trials = optimize_fusion(qrels, runs, "map", method, grid=grid)
        assert [v for v, _ in trials] == [float(g) for g in grid] and best in grid
        want = br.evaluate(qrels, fuse(runs, method, **{name: best}), "map")["map"]
        assert max(m for _, m in trials) == pytest.approx(want)
    assert len(br.evaluation.FUSIONS) == 25  # ranx's 25 methods (its wsum, w_bordafuse and w_condorcet included)


def test_the_command_line_chooses_a_method_s_parameter(tmp_path, capsys):
    from boostrank.cli import main

    qrels, runs = _collection(6)
    paths = []
    for name, run in runs.items():
        paths.append(str(tmp_path / f"{name}.run"))
        br.save_run(paths[-1], run)
    br.save_qrels(tmp_path / "qrels.txt", br.Qrels.from_dict(qrels))
    out = tmp_path / "fused.run"
    assert main(["fuse", *paths, "--method", "rbc", "--optimize", "map", "--qrels", str(tmp_path / "qrels.txt"),
                 "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "phi = " in err and out.exists()
    phi = float(err.split("phi = ")[1].split()[0])
    fused = br.load_run(out)
    want = fuse({r.name: r for r in (br.load_run(p) for p in paths)}, "rbc", phi=phi)
    assert fused.to_dict().keys() == want.to_dict().keys()


def test_ids_from_numpy_arrays_are_ids():
    """Keys taken from NumPy arrays (np.str_, np.int64) are ids like str and int; a bool is not."""
    run = br.Run.from_dict({np.str_("q1"): {np.str_("d1"): 1.0}, np.int64(7): {"d2": 2.0}})
    assert run.to_dict() == {"q1": {"d1": 1.0}, "7": {"d2": 2.0}}
    with pytest.raises(ValueError, match="is not an id"):
        br.Run.from_dict({True: {"d": 1.0}})


def test_ranx_s_method_names_and_norms_a_method_does_not_read():
    from boostrank.evaluation.fusion import ALIASES

    runs = [br.Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, name="x"),
            br.Run.from_dict({"q": {"b": 9.0, "c": 8.0, "d": 1.0}}, name="y")]
    for ranx_name, ours in ALIASES.items():
        assert br.fuse(runs, ranx_name).to_dict() == br.fuse(runs, ours).to_dict()
    with pytest.raises(ValueError, match="rrf reads ranks, not scores: norm='zmuv' would change nothing"):
        br.fuse(runs, "rrf", norm="zmuv")
    assert br.fuse(runs, "rrf", norm=None).to_dict() == br.fuse(runs, "rrf").to_dict()
    with pytest.raises(ValueError, match="ranx's"):
        br.fuse(runs, "no_such")
    assert br.train_fusion is br.evaluation.train_fusion and br.optimize_fusion is br.evaluation.optimize_fusion
