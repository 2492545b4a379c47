import os
import json
import runpy
import sys
from pathlib import Path

import numpy as np
import pytest

import boostrank as br
from boostrank.cli import main

from .conftest import nonlinear_letor
from .evaluation.helpers import _write_trec, three_runs

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def letor_run(tmp_path):
    data = br.datasets.make_letor(20, random_state=5)
    data_path = tmp_path / "test.txt"
    br.save_letor(data_path, data)
    scores = data.X @ np.arange(data.n_features)
    score_path = tmp_path / "scores.txt"
    np.savetxt(score_path, scores)
    return data, scores, data_path, score_path


def test_evaluate_json(letor_run, capsys):
    data, scores, data_path, score_path = letor_run
    assert main(["evaluate", "--data", str(data_path), "--scores", str(score_path),
                 "--metrics", "ndcg@10,map,auc,mauc,p@5,auc:pessimistic", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    row = out["runs"][str(score_path)]
    assert row["ndcg@10"] == pytest.approx(br.ndcg(data.y, scores, data.qid, k=10))
    assert row["map"] == pytest.approx(br.mean_average_precision(data.y, scores, data.qid))
    assert row["auc"] == pytest.approx(br.auc(data.y, scores, data.qid))
    assert row["mauc"] == pytest.approx(br.mauc(data.y, scores, data.qid))
    assert row["p@5"] == pytest.approx(br.precision(data.y, scores, data.qid, k=5))
    assert row["queries_with_auc"] == np.count_nonzero(~np.isnan(br.auc(data.y, scores, data.qid, per_query=True)))
    assert out["n_queries"] == 20


def test_evaluate_table_and_score_column(letor_run, tmp_path, capsys):
    data, scores, data_path, _ = letor_run
    ranklib = tmp_path / "ranklib.txt"
    ranklib.write_text("".join(f"{q}\t{i}\t{float(s)!r}\n" for i, (q, s) in enumerate(zip(data.qid, scores))))
    assert main(["evaluate", "--data", str(data_path), "--scores", str(ranklib)]) == 0
    out = capsys.readouterr().out
    assert "ndcg@10" in out and f"{br.auc(data.y, scores, data.qid):.4f}" in out


def test_evaluate_errors(letor_run, tmp_path, capsys):
    _, _, data_path, _ = letor_run
    short = tmp_path / "short.txt"
    short.write_text("0.5\n0.2\n")
    assert main(["evaluate", "--data", str(data_path), "--scores", str(short)]) == 2
    assert "has 2 scores but the data has" in capsys.readouterr().err
    bad = tmp_path / "bad.txt"
    bad.write_text("0.5\nabc\n")
    assert main(["evaluate", "--data", str(data_path), "--scores", str(bad)]) == 2
    assert "bad.txt:2: no numeric score" in capsys.readouterr().err
    assert main(["evaluate", "--data", str(data_path), "--scores", str(bad), "--metrics", "ndgc"]) == 2
    assert "unknown metric" in capsys.readouterr().err


@pytest.mark.parametrize("engine,objective", [("lightgbm", "auc"), ("lightgbm", "lambdarank"),
                                              ("xgboost", "mauc"), ("xgboost", "rank:pairwise")])
def test_train_then_predict(tmp_path, capsys, engine, objective):
    train, valid = br.datasets.make_letor(30, random_state=1), br.datasets.make_letor(10, random_state=2)
    br.save_letor(tmp_path / "train.txt", train)
    br.save_letor(tmp_path / "valid.txt", valid)
    model = tmp_path / ("model.json" if engine == "xgboost" else "model.txt")
    argv = ["train", "--engine", engine, "--objective", objective, "--train", str(tmp_path / "train.txt"),
            "--valid", str(tmp_path / "valid.txt"), "--rounds", "15", "--out", str(model), "--quiet",
            "--param", "max_bin=63"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert model.exists() and "ndcg@10" in out
    scores = tmp_path / "scores.txt"
    assert main(["predict", "--model", str(model), "--data", str(tmp_path / "valid.txt"), "--out", str(scores)]) == 0
    s = np.loadtxt(scores)
    assert s.shape == (len(valid),)
    # The model the CLI wrote is the one a library user gets with the same settings.
    kw = {"max_bin": 63}
    ref = br.LambdaRanker(engine=engine, objective=objective, n_estimators=15, **kw)
    ref.fit(train.X, train.y, qid=train.qid, eval_set=[(valid.X, valid.y)], eval_qid=[valid.qid])
    np.testing.assert_allclose(s, ref.predict(valid.X), rtol=1e-6, atol=1e-9)
    assert f"{br.auc(valid.y, s, valid.qid):.4f}" in capsys.readouterr().out


def test_train_one_long_list_with_the_fast_objective(tmp_path, capsys):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(3000, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=3000) > 1.2).astype(int)
    path = tmp_path / "alerts.svm"
    path.write_text("".join(f"{t} " + " ".join(f"{j + 1}:{v:.6g}" for j, v in enumerate(x)) + "\n"
                            for t, x in zip(y, X)))  # SVMlight without qid: one list
    model = tmp_path / "model.txt"
    argv = ["train", "--objective", "auc", "--link", "probit", "--method", "fast", "--train", str(path),
            "--valid", str(path), "--rounds", "20", "--out", str(model), "--quiet", "--metric", "auc"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    ref = br.LambdaRanker(objective="auc", link="probit", method="fast", n_estimators=20, eval_metric=["auc"])
    ref.fit(X, y, group=[len(y)], eval_set=[(X, y)])
    assert f"{br.auc(y, ref.predict(X)):.4f}" in out and br.auc(y, ref.predict(X)) > 0.9
    assert main(["train", "--objective", "ndcg", "--link", "probit", "--train", str(path),
                 "--out", str(model), "--quiet"]) == 2
    assert "link='probit' would change nothing: objective='ndcg' does not read it" in capsys.readouterr().err


@pytest.mark.slow
def test_predict_to_a_reader_gone_mid_output_exits_with_sigpipes_status(tmp_path):
    """``boostrank predict ... | head``: scores far past what the pipe holds, the reader gone after 100 bytes; the
    command stops with C's status for SIGPIPE and no traceback (one write of the whole text ended with 0)."""
    import subprocess
    import sys

    data = br.datasets.make_letor(400, random_state=2)
    br.save_letor(tmp_path / "d.txt", data)
    model = tmp_path / "rankncg.json"
    assert main(["fit-linear", "--model", "rankncg", "--train", str(tmp_path / "d.txt"), "--out", str(model)]) == 0
    proc = subprocess.Popen([sys.executable, "-m", "boostrank", "predict", "--model", str(model), "--data",
                             str(tmp_path / "d.txt")], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert len(proc.stdout.read(100)) == 100 and 20 * len(data) > 1 << 17  # the output outgrows the pipe
    proc.stdout.close()
    assert proc.wait(timeout=600) == 141 and proc.stderr.read() == b""
    proc.stderr.close()


def test_fit_linear_then_predict(tmp_path, capsys):
    train = br.datasets.make_letor(30, random_state=1)
    br.save_letor(tmp_path / "train.txt", train)
    out = tmp_path / "rankncg.json"
    assert main(["fit-linear", "--model", "rankncg", "--train", str(tmp_path / "train.txt"), "--out", str(out)]) == 0
    assert "CG iterations" in capsys.readouterr().out
    scores = tmp_path / "s.txt"
    assert main(["predict", "--model", str(out), "--data", str(tmp_path / "train.txt"), "--out", str(scores)]) == 0
    ref = br.RankNCG().fit(train.X, train.y, qid=train.qid)
    np.testing.assert_allclose(np.loadtxt(scores), ref.decision_function(train.X), rtol=1e-12, atol=1e-12)


@pytest.mark.slow
def test_rerank_command(tmp_path, capsys):
    rng = np.random.default_rng(0)
    train, test = br.datasets.make_letor(6, random_state=1), br.datasets.make_letor(4, random_state=2)
    for name, d in (("train", train), ("test", test)):
        br.save_letor(tmp_path / f"{name}.txt", d)
        np.savetxt(tmp_path / f"{name}.s", d.X[:, 0] + rng.normal(size=len(d)))
    out = tmp_path / "reranked.txt"
    argv = ["rerank", "--train", str(tmp_path / "train.txt"), "--train-scores", str(tmp_path / "train.s"),
            "--test", str(tmp_path / "test.txt"), "--test-scores", str(tmp_path / "test.s"), "--k", "4",
            "--statistic", "dcg@3", "--time-limit", "20", "--out", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "train: base (as given)" in text and "test: re-ranked top 4" in text
    assert "re-ranked:" in text or "base order:" in text
    new = np.loadtxt(out)
    # within each test query the new scores are a permutation of n..1
    for a, b in zip(test.group_offsets[:-1], test.group_offsets[1:]):
        assert sorted(new[a:b]) == list(range(1, b - a + 1))
    for k in ("0", "1"):  # keep the base order: defined results, no traceback
        assert main(argv[:-6] + ["--k", k, "--time-limit", "5"]) == 0
        assert "base order" in capsys.readouterr().out


@pytest.mark.slow
def test_rerank_cross_fits_a_base_model_file(tmp_path, capsys):
    train, test = br.datasets.make_letor(25, random_state=1), br.datasets.make_letor(8, random_state=2)
    for name, d in (("train", train), ("test", test)):
        br.save_letor(tmp_path / f"{name}.txt", d)
    model = tmp_path / "base.txt"
    assert main(["train", "--objective", "lambdarank", "--train", str(tmp_path / "train.txt"), "--rounds", "10",
                 "--out", str(model), "--quiet"]) == 0
    capsys.readouterr()
    argv = ["rerank", "--train", str(tmp_path / "train.txt"), "--test", str(tmp_path / "test.txt"),
            "--base-model", str(model), "--cv", "3", "--k", "5", "--time-limit", "300"]  # no cut on a busy machine
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "cross-fitting" in text and "train: base (out-of-fold)" in text and "test: base" in text
    from boostrank.io.models import load_model
    from boostrank.rerank import refit_estimator

    spec = refit_estimator(load_model(model))
    assert spec.objective == "lambdarank" and spec.n_estimators == 10
    assert main(argv + ["--train-scores", str(model)]) == 2


def test_train_and_predict_errors(tmp_path, capsys):
    data = br.datasets.make_letor(5, random_state=1)
    br.save_letor(tmp_path / "d.txt", data)
    assert main(["train", "--train", str(tmp_path / "d.txt"), "--objective", "nope", "--out",
                 str(tmp_path / "m.txt"), "--quiet"]) == 2
    assert "objective" in capsys.readouterr().err
    (tmp_path / "junk.txt").write_text("hello\n")
    assert main(["predict", "--model", str(tmp_path / "junk.txt"), "--data", str(tmp_path / "d.txt")]) == 2
    assert "not a LightGBM, XGBoost or boostrank model" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["train", "--train", "x", "--out", "y", "--param", "novalue"])


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted((ROOT / "examples").glob("*.py")), ids=lambda p: p.name)
def test_examples_run(script, capsys, monkeypatch):
    # the re-ranking example's 10 s default budget serves real data; 3 s runs the same steps on the sample
    budget = ["--time-limit", "3"] if script.name == "rerank_search_results.py" else []
    monkeypatch.setattr(sys, "argv", [str(script), *budget])
    runpy.run_path(str(script), run_name="__main__")
    assert capsys.readouterr().out


def _letor_files(tmp_path):
    train, test = br.datasets.make_letor(12, random_state=1), br.datasets.make_letor(6, random_state=2)
    for name, d in (("train", train), ("test", test)):
        br.save_letor(tmp_path / f"{name}.txt", d)
        np.savetxt(tmp_path / f"{name}.s", d.X[:, 0])
    return {k: str(tmp_path / v) for k, v in (("train", "train.txt"), ("test", "test.txt"), ("train_s", "train.s"),
                                               ("test_s", "test.s"))}


def test_out_equal_to_an_input_is_refused_and_the_input_kept(tmp_path, capsys):
    f = _letor_files(tmp_path)
    model = str(tmp_path / "m.txt")
    assert main(["train", "--objective", "lambdarank", "--train", f["train"], "--rounds", "3", "--out", model,
                 "--quiet"]) == 0
    lin = str(tmp_path / "l.json")
    assert main(["fit-linear", "--train", f["train"], "--out", lin]) == 0
    cases = [
        ["train", "--train", f["train"], "--rounds", "3", "--quiet", "--out", f["train"]],
        ["train", "--train", f["train"], "--valid", f["test"], "--rounds", "3", "--quiet", "--out", f["test"]],
        ["fit-linear", "--train", f["train"], "--out", f["train"]],
        ["predict", "--model", model, "--data", f["test"], "--out", model],
        ["predict", "--model", lin, "--data", f["test"], "--out", f["test"]],
        ["rerank", "--train", f["train"], "--train-scores", f["train_s"], "--test", f["test"], "--test-scores",
         f["test_s"], "--out", f["test_s"]],
    ]
    for argv in cases:
        target = argv[-1]
        before = open(target, "rb").read()
        capsys.readouterr()
        assert main(argv) == 2
        assert "is one of the inputs" in capsys.readouterr().err
        assert open(target, "rb").read() == before


def test_unwritable_out_folder_fails_before_training_and_failures_are_one_line(tmp_path, capsys):
    f = _letor_files(tmp_path)
    assert main(["train", "--train", f["train"], "--rounds", "3", "--quiet",
                 "--out", str(tmp_path / "nodir" / "m.txt")]) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and err.count("\n") == 1
    (tmp_path / "trunc.txt").write_text("tree\nversion=v4\nnum_class=1\n")
    assert main(["predict", "--model", str(tmp_path / "trunc.txt"), "--data", f["test"]]) == 2
    err = capsys.readouterr().err
    assert err.startswith("boostrank predict: error:") and err.count("\n") == 1
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".boostrank-")]


@pytest.mark.parametrize("fraction", [0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.97])
def test_truncated_lightgbm_model_is_refused_before_lightgbm_loads_it(tmp_path, fraction):
    from boostrank.io.models import load_model

    f = _letor_files(tmp_path)
    model = tmp_path / "m.txt"
    assert main(["train", "--objective", "lambdarank", "--train", f["train"], "--rounds", "4", "--out", str(model),
                 "--quiet"]) == 0
    text = model.read_bytes()
    cut = tmp_path / "cut.txt"
    cut.write_bytes(text[: int(len(text) * fraction)])
    with pytest.raises(ValueError, match="truncated|damaged|not a LightGBM"):
        load_model(cut)
    assert load_model(model).predict(np.zeros((1, 10))).shape == (1,)


@pytest.mark.parametrize("doc", ['{"boostrank_model": "RankNCG"}', '{"boostrank_model": "Other", "params": {}}',
                                 '{"boostrank_model": "RankNCG", "params": {"nope": 1}, "coef": [1]}'])
def test_damaged_linear_model_files_fail_on_one_line(tmp_path, capsys, doc):
    f = _letor_files(tmp_path)
    (tmp_path / "m.json").write_text(doc)
    assert main(["predict", "--model", str(tmp_path / "m.json"), "--data", f["test"]]) == 2
    err = capsys.readouterr().err
    assert err.startswith("boostrank predict: error:") and err.count("\n") == 1


def test_predict_validates_scores_before_writing(tmp_path, capsys):
    import json

    f = _letor_files(tmp_path)
    model = tmp_path / "lin.json"
    assert main(["fit-linear", "--train", f["train"], "--out", str(model)]) == 0
    doc = json.loads(model.read_text())
    doc["coef"] = [1e308] * len(doc["coef"])  # finite, so the model loads; its scores overflow
    model.write_text(json.dumps(doc))
    out = tmp_path / "scores.txt"
    capsys.readouterr()
    assert main(["predict", "--model", str(model), "--data", f["test"], "--out", str(out)]) == 2
    assert "NaN/inf scores" in capsys.readouterr().err and not out.exists()
    doc["coef"] = [float("nan")] * len(doc["coef"])  # a damaged model is refused when it loads
    model.write_text(json.dumps(doc))
    assert main(["predict", "--model", str(model), "--data", f["test"], "--out", str(out)]) == 2
    assert "damaged" in capsys.readouterr().err and not out.exists()


def _null_device(tmp_path):
    """A null character device of the test's own (root), else None: the real /dev/null is never risked."""
    import stat

    dev = tmp_path / "null"
    try:
        os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, AttributeError):
        return None
    return dev


def test_out_to_a_device_or_fifo_is_written_through_never_replaced(tmp_path, capsys):
    """Hardening #1/#17: the atomic write renamed its temp file over /dev/null (as root: a regular file)."""
    import stat
    import threading

    f = _letor_files(tmp_path)
    model = str(tmp_path / "m.txt")
    assert main(["train", "--objective", "lambdarank", "--train", f["train"], "--rounds", "3", "--out", model,
                 "--quiet"]) == 0
    dev = _null_device(tmp_path)
    if dev is not None:
        assert main(["predict", "--model", model, "--data", f["test"], "--out", str(dev)]) == 0
        assert stat.S_ISCHR(os.lstat(dev).st_mode)  # still the device
        assert main(["train", "--objective", "lambdarank", "--train", f["train"], "--rounds", "3", "--quiet",
                     "--out", str(dev)]) == 0
        assert stat.S_ISCHR(os.lstat(dev).st_mode)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = {}
    reader = threading.Thread(target=lambda: got.setdefault("text", open(fifo).read()), daemon=True)
    reader.start()
    try:
        assert main(["predict", "--model", model, "--data", f["test"], "--out", str(fifo)]) == 0
    finally:
        reader.join(30)
        if reader.is_alive():  # nothing opened the FIFO: release the reader so the session can end
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert len(got["text"].splitlines()) == br.load_letor(f["test"]).y.shape[0]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_out_through_a_symlink_keeps_the_link_and_follows_the_umask(tmp_path, capsys):
    f = _letor_files(tmp_path)
    model = str(tmp_path / "m.txt")
    old = os.umask(0o022)
    try:
        assert main(["train", "--objective", "lambdarank", "--train", f["train"], "--rounds", "3", "--out", model,
                     "--quiet"]) == 0
        assert oct(os.stat(model).st_mode & 0o777) == oct(0o644)  # not mkstemp's 0600
        real = tmp_path / "scores.real"
        real.write_text("old\n")
        real.chmod(0o640)
        link = tmp_path / "scores.link"
        link.symlink_to(real)
        assert main(["predict", "--model", model, "--data", f["test"], "--out", str(link)]) == 0
        assert link.is_symlink() and real.read_text() != "old\n"
        assert oct(real.stat().st_mode & 0o777) == oct(0o640)  # an existing file keeps its mode
    finally:
        os.umask(old)


@pytest.mark.parametrize("out", ["", "folder"])
def test_out_naming_a_folder_or_nothing_fails_before_training(tmp_path, capsys, out):
    """Hardening #9: the pre-check passed, train ran to the end, then IsADirectoryError lost the model."""
    f = _letor_files(tmp_path)
    if out:
        (tmp_path / out).mkdir()
        out = str(tmp_path / out)
    capsys.readouterr()
    assert main(["train", "--train", f["train"], "--rounds", "3", "--quiet", "--out", out]) == 2
    err = capsys.readouterr().err
    assert ("is a folder" in err or "is empty" in err) and err.count("\n") == 1


def test_predict_refuses_data_with_another_feature_count(tmp_path, capsys):
    """A 46-feature model predicted a 5-feature file with exit 0 (zero padding)."""
    f = _letor_files(tmp_path)
    model = str(tmp_path / "m.txt")
    assert main(["train", "--objective", "lambdarank", "--train", f["train"], "--rounds", "3", "--out", model,
                 "--quiet"]) == 0
    test = br.load_letor(f["test"])
    narrow = tmp_path / "narrow.txt"
    br.save_letor(narrow, test.X[:, :5], test.y, test.qid)
    capsys.readouterr()
    assert main(["predict", "--model", model, "--data", str(narrow), "--out", str(tmp_path / "s.txt")]) == 2
    err = capsys.readouterr().err
    assert f"has 5 features but the model was trained on {test.n_features}" in err and "--n-features" in err
    # a sparse file that leaves out trailing zero features, said so: padded
    sparse = tmp_path / "sparse.txt"
    X = test.X.copy()
    X[:, -1] = 0.0
    br.save_letor(sparse, X, test.y, test.qid, write_zeros=False)
    args = ["predict", "--model", model, "--data", str(sparse), "--out", str(tmp_path / "s2.txt")]
    assert main(args) == 2
    assert main(args + ["--n-features", str(test.n_features)]) == 0
    np.testing.assert_allclose(np.loadtxt(tmp_path / "s2.txt"), br.load_model(model).predict(X))


@pytest.mark.parametrize("flag", ["true", "auto"])
def test_zero_based_files_from_scikit_learn(tmp_path, capsys, flag):
    """#29 item 5: no way to read the zero-based files dump_svmlight_file writes by default."""
    from sklearn.datasets import dump_svmlight_file

    d = br.datasets.make_letor(8, random_state=0)
    path = tmp_path / "zero.txt"
    dump_svmlight_file(d.X, d.y, str(path), query_id=d.qid)  # zero_based=True is its default
    np.savetxt(tmp_path / "s.txt", d.X[:, 0])
    args = ["evaluate", "--data", str(path), "--scores", str(tmp_path / "s.txt"), "--metrics", "auc", "--json"]
    assert main(args) == 2 and "--zero-based" in capsys.readouterr().err
    assert main(args + ["--zero-based", flag]) == 0
    auc = json.loads(capsys.readouterr().out)["runs"][str(tmp_path / "s.txt")]["auc"]
    assert auc == pytest.approx(br.auc(d.y, d.X[:, 0], d.qid))
    one_based = tmp_path / "one.txt"
    br.save_letor(one_based, d)
    np.testing.assert_array_equal(br.load_letor(one_based, zero_based="auto").X, d.X)  # no index 0: from 1


def test_boosting_progress_only_on_a_terminal(capsys):
    """#29 item 5: tqdm bars landed in logs; verbose shows one only where stderr is a terminal."""
    d = br.datasets.make_letor(8, random_state=0)
    br.LambdaRanker(n_estimators=3, verbose=True).fit(d.X, d.y, qid=d.qid)
    assert "boosting" not in capsys.readouterr().err


@pytest.mark.parametrize("command", ["demo", "evaluate", "train", "predict", "fit-linear", "rerank"])
def test_help_says_each_default_once_and_never_none(command, capsys):
    """#29 item 5: help printed "(default: None)", twice where the text already named the default."""
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert "(default: None)" not in out and "(default: False)" not in out
    assert not any(line.count("(default") > 1 for line in out.replace("\n                        ", " ").splitlines())


def test_warmup_compiles_the_chosen_groups_and_refuses_unknown_ones(capsys):
    from boostrank.cli import main

    assert main(["warmup", "--only", "metrics"]) == 0
    assert "compiled into Numba's cache: metrics" in capsys.readouterr().out
    assert main(["warmup", "--only", "metrics,kernels"]) == 2
    assert "unknown warm-up group(s) ['kernels']" in capsys.readouterr().err


@pytest.mark.slow  # over a second warm
def test_warmup_from_a_script_without_a_main_guard(tmp_path):
    """The parallel warm-up starts child interpreters, not multiprocessing's spawn workers (which re-run the
    calling script: a top-level ``br.warmup()`` would start workers from its workers and fail)."""
    import subprocess
    import sys

    script = tmp_path / "warm.py"
    script.write_text("import boostrank as br\nprint(sorted(br.warmup(['metrics', 'mip'], progress=False, n_jobs=2)))\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "['metrics', 'mip']"


@pytest.mark.parametrize("n_jobs", [0, -2, True, 1.5, "2"])
def test_warmup_refuses_a_process_count_that_is_not_one(n_jobs):
    from boostrank.precompile import warmup

    with pytest.raises(ValueError, match="n_jobs must be a positive number of processes, -1 or None"):
        warmup(["metrics"], progress=False, n_jobs=n_jobs)


@pytest.mark.slow
def test_warmup_reaches_the_parallel_twins_of_the_kernels():
    """LightGBM's default threads take the parallel λ kernel and long erfc sums the parallel series steps:
    `boostrank warmup` must compile those too, not only the one-thread kernels small inputs take."""
    import numba

    from boostrank._kernels.erfc import target_sums_parallel
    from boostrank._kernels.lambdas import lambda_auc_kernel_parallel
    from boostrank.precompile import WARMUP_GROUPS

    from boostrank._kernels.erfc import uniform_series_lambdas

    WARMUP_GROUPS["objectives"]()
    WARMUP_GROUPS["rankncg"]()
    if numba.get_num_threads() > 1:
        assert lambda_auc_kernel_parallel.signatures and target_sums_parallel.signatures
    # one long list through an engine: the series writes the engines' float32 buffers
    assert any("float32" in str(sig[8]) for sig in uniform_series_lambdas.signatures), \
        uniform_series_lambdas.signatures


@pytest.mark.slow  # a fresh process on an empty Numba cache: cold-start work
def test_warmup_fills_an_empty_cache_saying_so_once_and_later_processes_are_silent(tmp_path):
    """A fresh NUMBA_CACHE_DIR: the first compile says so once on stderr and `boostrank warmup` leaves cache
    index files for the metric kernels; a later process finds them and says nothing."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    # two groups in two worker processes (the default on two CPUs; asked for here, whatever the machine)
    cold = subprocess.run([sys.executable, "-m", "boostrank", "warmup", "--only", "metrics,mip", "--n-jobs", "2"],
                          env=env, capture_output=True, text=True, timeout=600)
    assert cold.returncode == 0, cold.stderr
    assert cold.stderr.count("boostrank: compiling the metrics kernels once for this machine") == 1
    assert cold.stderr.count("boostrank: compiling the MIP kernels once for this machine") == 1
    assert "'boostrank warmup' does this ahead of time" in cold.stderr
    assert "compiled into Numba's cache: metrics" in cold.stdout and ", mip" in cold.stdout
    index = [p.name for p in tmp_path.rglob("*.nbi")]
    assert any("metrics" in name for name in index) and any("rank_sweep" in name for name in index), index
    code = "import boostrank as br; br.auc([0, 1, 1], [0.1, 0.5, 0.3]); br.ndcg([0, 1, 1], [0.1, 0.5, 0.3])"
    warm = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert warm.returncode == 0 and "compiling" not in warm.stderr, warm.stderr


def test_the_compile_notice_checks_the_kernel_rankncg_runs(monkeypatch):
    """RankNCG's default (the erfc series past 2 500 pairs per class pair) never calls the pair sums: checked
    on those, a warm demo printed the notice on every run."""
    from boostrank._kernels import jit
    from boostrank._kernels.erfc import series_blocks
    from boostrank._kernels.rankncg import pair_coefficients

    seen = []
    monkeypatch.setattr(jit, "note_first_compile", lambda what, kernel: seen.append((what, kernel)))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = (X[:, 0] + rng.normal(size=400) > 0).astype(int)
    br.RankNCG(max_iter=2).fit(X, y)  # one data set: ~40 000 pairs, the series
    br.RankNCG(max_iter=2).fit(X[:40], y[:40])  # ~400 pairs, the pair sums
    assert seen == [("RankNCG", series_blocks), ("RankNCG", pair_coefficients)]


@pytest.mark.slow  # a fresh process on an empty Numba cache: cold-start work
def test_the_compile_notices_check_a_kernel_each_path_runs(tmp_path):
    """A notice checked on a kernel some paths never call says "compiling" on every warm run of those paths
    (a warm demo did, for the metrics and the MIP): in a fresh process, each path below must have loaded the
    kernel its group's notice checks."""
    import subprocess
    import sys

    code = """
import warnings, numpy as np, boostrank as br
from boostrank import _validation
from boostrank._kernels import jit
checked = {}
jit.note_first_compile = lambda what, kernel: checked.setdefault(what, kernel)
rng = np.random.default_rng(0)
y = rng.integers(0, 3, 60); s = rng.normal(size=60); qid = np.repeat(np.arange(6), 10)
for name in ("ndcg@10", "map", "p@5", "mcp@5", "mauc", "wmw", "err@10"):  # (small AUCs: NumPy)
    checked.pop("metrics", None); _validation._NOTED.clear(); br.get_metric(name)(y, s, qid)
    assert checked["metrics"].signatures, (name, checked["metrics"])
for call in (lambda: br.rank_risk(y > 0, s, "dcg@5", qid=qid), lambda: br.minrank(s, qid=qid)):
    checked.pop("metrics", None); _validation._NOTED.clear(); call()
    assert checked["metrics"].signatures
X = rng.normal(size=(60, 3))
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for kw in (dict(objective="rank_risk", a="dcg@5"), dict(objective="auc")):
        checked.pop("MIP", None); br.MIPRanker(time_limit=2, **kw).fit(X, y > 0, qid=qid)
        assert checked["MIP"].signatures, (kw, checked["MIP"])
import os, tempfile
from boostrank.evaluation import files, runs
files.note_first_compile = runs.note_first_compile = jit.note_first_compile
folder = tempfile.mkdtemp()
for name, text in (("qrels", "q 0 d 1\\n"), ("run", "q Q0 d 1 0.5 t\\n")):
    open(os.path.join(folder, name), "w").write(text)
for make in (lambda: br.Qrels(["q"], ["d"], [1]), lambda: br.Run(["q"], ["d"], [1.0]),
             lambda: br.load_qrels(os.path.join(folder, "qrels")), lambda: br.load_run(os.path.join(folder, "run"))):
    checked.pop("TREC", None); make()
    assert checked["TREC"].signatures
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "ok" in done.stdout, done.stderr


def test_train_takes_the_anchor(letor_run, tmp_path, capsys):
    """Issue 70: --anchor reaches the λ objective; 0 is the λs alone."""
    data, _, data_path, _ = letor_run
    preds = {}
    for anchor in ("0", "3"):
        model = tmp_path / f"m{anchor}.txt"
        assert main(["train", "--train", str(data_path), "--out", str(model), "--rounds", "5", "--quiet",
                     "--anchor", anchor]) == 0
        preds[anchor] = br.load_model(model).predict(data.X)
        want = br.LambdaRanker(objective="auc", n_estimators=5, anchor=float(anchor)).fit(data.X, data.y, qid=data.qid)
        np.testing.assert_allclose(preds[anchor], want.predict(data.X), rtol=1e-12)
    assert not np.allclose(preds["0"], preds["3"])
    assert main(["train", "--train", str(data_path), "--out", str(tmp_path / "x.txt"), "--anchor", "-1"]) == 2
    assert "anchor" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["before", "after"])
def test_debug_shows_the_traceback_above_the_one_line_error(tmp_path, capsys, where):
    """Issue 71: every failure is one line and rc 2; --debug (before or after the command) adds the traceback."""
    argv = ["evaluate", "--qrels", str(tmp_path / "missing"), str(tmp_path / "run")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip().endswith(f"No such file or directory: '{tmp_path / 'missing'}'")
    assert main(["--debug", *argv] if where == "before" else [*argv, "--debug"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):") and "FileNotFoundError" in err
    assert err.strip().splitlines()[-1].startswith("boostrank evaluate: error:")


# ---------------------------------------------------------------- items 18, 19: the CLI refuses contradictions
@pytest.fixture
def letor_file(tmp_path):
    rng = np.random.default_rng(13)
    X = rng.random((60, 10))
    y = (X[:, 0] + rng.normal(scale=0.3, size=60) > 0.6).astype(int)
    path = tmp_path / "d.txt"
    br.save_letor(path, X, y, qid=np.repeat(np.arange(6), 10))
    return path


@pytest.mark.parametrize("argv, match", [
    (["fit-linear", "--tol", "nan"], "--tol: must be a finite number > 0"),
    (["rerank", "--test", "{data}", "--base-model", "m.txt", "--time-limit", "-3"], "--time-limit: must be a finite"),
    (["train", "--valid", "{data}", "--validation-fraction", "0.3"], "--validation-fraction holds out"),
])
def test_cli_contradictions_are_refused(tmp_path, letor_file, capsys, argv, match):
    from boostrank.cli import main

    argv = [a.replace("{data}", str(letor_file)) for a in argv]
    full = [argv[0], "--train", str(letor_file), "--out", str(tmp_path / "o.txt")] + argv[1:]
    try:
        rc = main(full)
    except SystemExit as exc:  # argparse's own refusal
        rc = exc.code
    assert rc == 2
    assert match in capsys.readouterr().err
    assert not (tmp_path / "o.txt").exists()


def test_cli_predict_n_features_must_agree(tmp_path, letor_file, capsys):
    from boostrank.cli import main

    model = tmp_path / "m.json"
    assert main(["fit-linear", "--train", str(letor_file), "--out", str(model)]) == 0
    assert main(["predict", "--model", str(model), "--data", str(letor_file), "--n-features", "5"]) == 2
    assert "--n-features 5 contradicts" in capsys.readouterr().err


def test_cli_evaluate_names_a_binary_score_file(tmp_path, letor_file, capsys):
    from boostrank.cli import main

    scores = tmp_path / "scores.bin"
    scores.write_bytes(bytes(range(256)) * 4)
    assert main(["evaluate", "--data", str(letor_file), "--scores", str(scores)]) == 2
    err = capsys.readouterr().err
    assert "scores.bin" in err and "not UTF-8 text" in err


def _qrels_and_runs(tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("301 0 d1 1\n301 0 d2 0\n302 0 d3 1\n")
    empty = tmp_path / "empty.run"
    empty.write_text("")
    other = tmp_path / "other.run"
    other.write_text("401 Q0 d1 1 2.0 t\n402 Q0 d2 1 1.0 t\n")
    good = tmp_path / "good.run"
    good.write_text("301 Q0 d1 1 2.0 g\n301 Q0 d2 2 1.0 g\n302 Q0 d3 1 1.0 g\n")
    return qrels, empty, other, good


def test_an_empty_run_or_one_of_other_topics_is_an_error_with_a_nonzero_exit(tmp_path, capsys):
    from boostrank.cli import main

    qrels, empty, other, good = _qrels_and_runs(tmp_path)
    with pytest.raises(ValueError, match="empty.run: the run retrieves no document"):
        br.evaluate(br.load_qrels(qrels), br.load_run(empty), ["map"])
    with pytest.raises(ValueError, match=r"other.run: none of its 2 queries is in .*q.txt"):
        br.evaluate(br.load_qrels(qrels), br.load_run(other), ["map"])
    for command in (["evaluate", "--qrels", str(qrels), str(empty)], ["evaluate", "--qrels", str(qrels), str(other)],
                    ["compare", "--qrels", str(qrels), str(good), str(other)],
                    ["compare", "--qrels", str(qrels), str(empty), str(good)]):
        assert main(command) == 2, command
        err = capsys.readouterr().err
        assert "retrieves no document" in err or "none of its" in err, err
    assert main(["evaluate", "--qrels", str(qrels), str(good)]) == 0


def test_predict_refuses_one_file_for_the_run_and_the_scores(tmp_path, capsys):
    from boostrank.cli import main

    out = tmp_path / "same.txt"
    assert main(["predict", "--model", str(tmp_path / "m.txt"), "--data", str(tmp_path / "d.txt"), "--trec",
                 str(out), "--out", str(out)]) == 2
    assert "--out and --trec both name" in capsys.readouterr().err
    assert not out.exists()



def test_cli_predict_uses_the_best_xgboost_round(tmp_path, capsys):
    train, valid = nonlinear_letor(60, 1), nonlinear_letor(30, 2)
    tp, vp, model = tmp_path / "train.txt", tmp_path / "valid.txt", tmp_path / "m.json"
    br.save_letor(tp, train)
    br.save_letor(vp, valid)
    assert main(["train", "--engine", "xgboost", "--objective", "mauc", "--train", str(tp), "--valid", str(vp),
                 "--rounds", "200", "--learning-rate", "0.3", "--early-stopping", "3", "--quiet",
                 "--seed", "0", "--out", str(model)]) == 0
    best = int(json.loads(model.read_text())["learner"]["attributes"]["best_iteration"])
    capsys.readouterr()
    assert main(["predict", "--model", str(model), "--data", str(vp)]) == 0
    scores = np.array(capsys.readouterr().out.split(), dtype=float)
    import xgboost as xgb

    booster = xgb.Booster(model_file=str(model))
    expect = booster.predict(xgb.DMatrix(valid.X), iteration_range=(0, best + 1))
    np.testing.assert_allclose(scores, expect, rtol=1e-6)


def test_help_lists_six_commands_in_plain_text(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for cmd in ("demo", "evaluate", "train", "predict", "fit-linear", "rerank"):
        assert cmd in out
    assert "``" not in out
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"boostrank {br.__version__}"
    for cmd in ("evaluate", "train", "predict", "rerank", "demo"):
        with pytest.raises(SystemExit):
            main([cmd, "--help"])
        assert "--metrics" in capsys.readouterr().out


def test_python_m_boostrank_one_version_and_type_information():
    """python -m boostrank runs the CLI; the installed metadata, --version and __version__ agree; py.typed ships."""
    import importlib.metadata
    import subprocess
    import sys
    from pathlib import Path

    out = subprocess.run([sys.executable, "-m", "boostrank", "--version"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == f"boostrank {br.__version__}"
    assert importlib.metadata.version("boostrank") == br.__version__
    assert (Path(br.__file__).parent / "py.typed").exists()


def test_evaluate_q_of_several_runs_keeps_three_fields_per_line(capsys):
    """Each run's -q lines follow the last's, its summary opened by its runid line (no '# run' comment lines)."""
    corpus = Path(__file__).resolve().parent / "data" / "trec_eval"
    assert main(["evaluate", "--qrels", str(corpus / "qrels.test"), str(corpus / "results.test"),
                 str(corpus / "results.trunc"), "--metrics", "map,P_5", "-q"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert all(len(r) == 3 for r in rows)
    assert [r[2] for r in rows if r[0].strip() == "runid"] == [str(corpus / "results.test"),
                                                                 str(corpus / "results.trunc")]


def test_fuse_out_is_none_of_its_inputs(tmp_path, capsys):
    """--out is checked against the runs to fuse, the judgements and the training runs: none is replaced."""
    runs = {n: br.Run.from_dict({"q": {"a": 1.0 + i, "b": 2.0 - i}}, name=n) for i, n in enumerate("xy")}
    paths = {}
    for n, run in runs.items():
        for part in ("", "t"):
            paths[part + n] = str(tmp_path / f"{part}{n}.run")
            br.save_run(paths[part + n], run)
    qrels = str(tmp_path / "dev.qrels")
    br.save_qrels(qrels, br.Qrels.from_dict({"q": {"a": 1}}))
    for target in (paths["tx"], qrels, paths["x"]):
        before = open(target, "rb").read()
        assert main(["fuse", paths["x"], paths["y"], "--method", "posfuse", "--qrels", qrels, "--train", paths["tx"],
                     paths["ty"], "--out", target]) == 2
        assert "is one of the inputs" in capsys.readouterr().err
        assert open(target, "rb").read() == before


def test_anchor_form_reaches_the_objective_from_the_command_line(tmp_path, capsys):
    f = _letor_files(tmp_path)
    models = {}
    for form in ("ordinal", "binary"):
        models[form] = str(tmp_path / f"{form}.txt")
        assert main(["train", "--train", f["train"], "--rounds", "3", "--quiet", "--anchor-form", form,
                     "--out", models[form]]) == 0
    booster = {form: open(path).read().split("\nTree=0", 1)[1] for form, path in models.items()}
    assert booster["ordinal"] != booster["binary"]


def test_train_takes_positions_from_a_file_or_a_feature(tmp_path, capsys):
    train, _ = br.load_sample()
    log = br.datasets.simulate_clicks(train.X, train.y, train.qid, train.X[:, 0], sessions=1, random_state=0)
    X = np.column_stack([log.X, log.position])  # the position as the last feature
    path, bare = tmp_path / "clicks.txt", tmp_path / "bare.txt"
    br.save_letor(path, br.data.LetorData(X=X, y=log.clicks, qid=log.session))
    br.save_letor(bare, br.data.LetorData(X=log.X, y=log.clicks, qid=log.session))
    np.savetxt(tmp_path / "clicks.position", log.position, fmt="%d")
    models = {}
    for name, data, spec in (("file", bare, str(tmp_path / "clicks.position")), ("column", path, str(X.shape[1])),
                             ("plain", bare, None)):
        models[name] = str(tmp_path / f"{name}.txt")
        assert main(["train", "--train", str(data), "--rounds", "5", "--quiet", "--out", models[name]]
                    + (["--position", spec] if spec else [])) == 0
    scores = {n: br.load_model(p).predict(X[:200] if n == "column" else log.X[:200]) for n, p in models.items()}
    # the column trains as a constant, so both forms give one model; without positions another
    assert not np.allclose(scores["file"], scores["plain"])
    np.testing.assert_allclose(scores["file"], scores["column"], rtol=1e-9)
    for spec, match in (("0", "feature number"), (str(tmp_path / "short.txt"), "ranks for")):
        if spec.endswith("short.txt"):
            np.savetxt(spec, log.position[:10], fmt="%d")
        capsys.readouterr()
        assert main(["train", "--train", str(path), "--rounds", "5", "--quiet", "--position", spec, "--out",
                     str(tmp_path / "x.txt")]) == 2
        assert match in capsys.readouterr().err


# ------------------------------------------------------------------ evaluate, compare and predict on TREC files


def test_cli_evaluate_qrels_runs_per_query_as_trec_eval(tmp_path, capsys):
    from boostrank.cli import main

    qrels, runs = three_runs(6)
    qpath, paths = _write_trec(tmp_path, qrels, {"base": runs["base"]})
    assert main(["evaluate", "--qrels", qpath, *paths, "--metrics", "ndcg_cut_5,map,P_5", "--per-query"]) == 0
    lines = capsys.readouterr().out.splitlines()
    per = br.evaluate(qrels, runs["base"], ["ndcg_cut_5", "map", "P_5"], per_query=True)
    assert lines[0] == f"{'ndcg_cut_5':<22}\tq0\t{per['ndcg_cut_5']['q0']:.4f}"
    assert len(lines) == 6 * 3 + 3 and lines[-1].startswith(f"{'P_5':<22}\tall\t")
    assert main(["evaluate", "--qrels", qpath, *paths, "--metrics", "map", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["runs"]["base"]["map"] == pytest.approx(br.evaluate(qrels, runs["base"], "map")["map"])  # its tag
    assert main(["evaluate", "--qrels", qpath, "--data", qpath, *paths]) == 2
    assert "one of them" in capsys.readouterr().err


@pytest.mark.slow  # over a second warm
def test_cli_compare_formats_and_plots(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from boostrank.cli import main

    qrels, runs = three_runs(12)
    qpath, paths = _write_trec(tmp_path, qrels, runs)
    assert main(["compare", "--qrels", qpath, *paths, "--metrics", "ndcg_cut_5,auc", "--baseline", "base.run",
                 "--test", "randomization", "--report", "json", "--plot", str(tmp_path / "figs")]) == 0
    out = json.loads(capsys.readouterr().out)
    want = br.compare(qrels, runs, ["ndcg_cut_5", "auc"], baseline="base", test="randomization")
    assert out["pairs"]["ndcg_cut_5"][0]["p"] == pytest.approx(want.pairs["ndcg_cut_5"][0]["p"])
    figs = sorted(p.name for p in (tmp_path / "figs").iterdir())
    assert "systems.png" in figs and "diff-ndcg_cut_5-better-vs-base.png" in figs and "roc-same.png" in figs
    assert len(figs) == 1 + 2 * 2 + 3  # systems, a difference per metric and pair, a ROC per run
    # two runs with one file name in two folders: a figure each, none replacing another
    for folder, name in (("dirA", "base"), ("dirB", "better")):
        (tmp_path / folder).mkdir()
        br.save_run(tmp_path / folder / "run.txt", br.Run.from_dict(runs[name]), tag="same-tag")
    capsys.readouterr()
    assert main(["compare", "--qrels", qpath, str(tmp_path / "dirA" / "run.txt"), str(tmp_path / "dirB" / "run.txt"),
                 "--metrics", "auc", "--plot", str(tmp_path / "twins")]) == 0
    twins = sorted(p.name for p in (tmp_path / "twins").iterdir())
    assert len(twins) == 1 + 1 + 2 and len([f for f in twins if f.startswith("roc-")]) == 2, twins
    for report in ("markdown", "latex", "text"):
        assert main(["compare", "--qrels", qpath, *paths, "--metrics", "map", "--report", report,
                     "--baseline", "base"]) == 0
        out = capsys.readouterr().out
        assert "better" in out and "better.run" not in out and "trec_eval 10's rules" in out
    assert main(["compare", "--qrels", qpath, paths[0]]) == 2
    assert "at least two runs" in capsys.readouterr().err


def test_cli_predict_writes_a_trec_run(tmp_path, capsys):
    from boostrank.cli import main

    data = br.datasets.make_letor(8, random_state=3)
    docid = [f"D{i:04d}" for i in range(len(data))]
    br.save_letor(tmp_path / "d.txt", data.X, data.y, data.qid, docid=docid)
    assert main(["fit-linear", "--train", str(tmp_path / "d.txt"), "--out", str(tmp_path / "m.json")]) == 0
    assert main(["predict", "--model", str(tmp_path / "m.json"), "--data", str(tmp_path / "d.txt"),
                 "--trec", str(tmp_path / "r.txt"), "--run-tag", "ncg"]) == 0
    capsys.readouterr()
    run = br.load_run(tmp_path / "r.txt")
    assert run.name == "ncg" and len(run) == len(data)
    scores = br.load_model(str(tmp_path / "m.json")).predict(data.X)
    got = run.to_dict()
    assert all(got[str(q)][d] == s for q, d, s in zip(data.qid, docid, scores))
    br.save_letor(tmp_path / "nodoc.txt", data.X, data.y, data.qid)
    assert main(["predict", "--model", str(tmp_path / "m.json"), "--data", str(tmp_path / "nodoc.txt"),
                 "--trec", str(tmp_path / "r2.txt")]) == 2
    assert "without a '# docid = ...' comment" in capsys.readouterr().err
