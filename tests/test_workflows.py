"""The workflows LightGBM/XGBoost/scikit-learn users bring: model selection, pandas,
early stopping that survives a save, metric names that do not collide, TREC runs."""

import json
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.model_selection import GridSearchCV, GroupKFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

import boostrank as br
from boostrank.cli import main


def letor(n_queries=40, seed=0):
    return br.datasets.make_letor(n_queries, random_state=seed, relevance="nonlinear", noise=0.5)


# ------------------------------------------------------------------ early stopping


def early_stopped(engine, tmp_path):
    train, valid = letor(60, 1), letor(30, 2)
    r = br.LambdaRanker(engine=engine, objective="mauc", n_estimators=200, learning_rate=0.3, early_stopping_rounds=3,
                        eval_metric="mauc", random_state=0)
    r.fit(train.X, train.y, qid=train.qid, eval_set=[(valid.X, valid.y)], eval_qid=[valid.qid])
    path = tmp_path / f"model.{engine}.json"
    r.save_model(path)
    return r, path, valid


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_early_stopping_survives_save_and_load(engine, tmp_path):
    r, path, valid = early_stopped(engine, tmp_path)
    assert r.best_iteration_ is not None
    if engine == "xgboost":  # XGBoost keeps the later trees (LightGBM's booster already ends at the best)
        assert r.best_iteration_ + 1 < r.booster_.num_boosted_rounds(), "the test needs trees after the best"
    back = br.load_model(path)
    np.testing.assert_allclose(back.predict(valid.X), r.predict(valid.X), rtol=1e-6)
    if engine == "xgboost":
        assert back.best_iteration_ == r.best_iteration_
        all_trees = r.booster_.predict(__import__("xgboost").DMatrix(valid.X))
        assert not np.allclose(all_trees, r.predict(valid.X))


def test_cli_predict_uses_the_best_xgboost_round(tmp_path, capsys):
    train, valid = letor(60, 1), letor(30, 2)
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


def test_raw_xgboost_early_stopping_maximises_our_metric():
    import xgboost as xgb

    train, valid = letor(60, 1), letor(30, 2)
    metric = br.xgboost_metric("mauc")
    dt, dv = xgb.DMatrix(train.X, train.y, qid=train.qid), xgb.DMatrix(valid.X, valid.y, qid=valid.qid)
    log = {}
    b = xgb.train({"min_child_weight": 1e-3, "disable_default_eval_metric": 1, "eta": 0.3}, dt, 100,
                  obj=br.xgboost_objective("mauc"), evals=[(dv, "valid")], custom_metric=metric,
                  callbacks=[metric.early_stopping(3)], evals_result=log, verbose_eval=False)
    hist = log["valid"]["br_mauc"]
    assert b.best_iteration == int(np.argmax(hist)) and hist[b.best_iteration] > hist[0]


# ------------------------------------------------------------------ metric names


def test_our_metrics_never_merge_with_lightgbm_builtins():
    import lightgbm as lgb

    d = letor(30, 3)
    ds = lgb.Dataset(d.X, d.y, group=d.group_sizes)
    record = {}
    lgb.train({"objective": "lambdarank", "metric": "auc", "verbose": -1}, ds, 3, valid_sets=[ds],
              valid_names=["train"], feval=br.lightgbm_metric("auc"), callbacks=[lgb.record_evaluation(record)])
    assert set(record["train"]) == {"auc", "br_auc"}
    assert len(record["train"]["br_auc"]) == 3


# ------------------------------------------------------------------ scikit-learn


SKLEARN_ROUTES_SCORE = tuple(int(v) for v in sklearn.__version__.split(".")[:2]) >= (1, 8)


def test_grid_search_with_a_query_scorer_on_any_supported_sklearn():
    d = letor(30, 4)
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = Pipeline([("scale", StandardScaler()),
                         ("rank", br.LambdaRanker(n_estimators=10, min_data_in_leaf=3, random_state=0))])
        grid = GridSearchCV(pipe, {"rank__num_leaves": [3, 7]}, cv=GroupKFold(3), scoring=br.query_scorer("auc"))
        grid.fit(d.X, d.y, qid=d.qid, groups=d.qid)
    assert np.isfinite(grid.cv_results_["mean_test_score"]).all()
    # the per-fold score is the per-query mean of the fold's own queries
    folds = list(GroupKFold(3).split(d.X, d.y, d.qid))
    test_rows = folds[0][1]
    est = grid.best_estimator_
    expect = br.auc(d.y[test_rows], est.predict(d.X[test_rows]), d.qid[test_rows])
    with sklearn.config_context(enable_metadata_routing=True):
        got = br.query_scorer("auc")(est, d.X[test_rows], d.y[test_rows], qid=d.qid[test_rows])
    assert got == pytest.approx(expect)


@pytest.mark.skipif(not SKLEARN_ROUTES_SCORE, reason="Pipeline.score routes qid to the step's score from sklearn 1.8")
def test_grid_search_with_group_kfold_in_a_pipeline():
    d = letor(30, 4)
    with sklearn.config_context(enable_metadata_routing=True):
        pipe = Pipeline([("scale", StandardScaler()),
                         ("rank", br.LambdaRanker(n_estimators=10, min_data_in_leaf=3, random_state=0))])
        grid = GridSearchCV(pipe, {"rank__num_leaves": [3, 7]}, cv=GroupKFold(3))
        grid.fit(d.X, d.y, qid=d.qid, groups=d.qid)
        # each fold's score is the mean per-query AUC of its own queries, not one list
        est = grid.best_estimator_
        assert est.score(d.X, d.y, qid=d.qid) == pytest.approx(br.auc(d.y, est.predict(d.X), d.qid))
    assert set(grid.cv_results_["param_rank__num_leaves"]) == {3, 7}
    assert np.isfinite(grid.cv_results_["mean_test_score"]).all()


def test_score_refuses_to_treat_many_queries_as_one_list():
    d = letor(10, 5)
    r = br.LambdaRanker(n_estimators=3, min_data_in_leaf=2).fit(d.X, d.y, qid=d.qid)
    with pytest.raises(ValueError, match="score needs qid"):
        r.score(d.X, d.y)
    assert r.score(d.X, d.y, qid=d.qid) == pytest.approx(br.auc(d.y, r.predict(d.X), d.qid))
    nd = br.LambdaRanker(objective="lambdarank", n_estimators=3, min_data_in_leaf=2).fit(d.X, d.y, qid=d.qid)
    assert nd.score(d.X, d.y, qid=d.qid) == pytest.approx(br.ndcg(d.y, nd.predict(d.X), d.qid, k=10))


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_unknown_engine_parameters_raise(engine):
    d = letor(5, 6)
    with pytest.raises(ValueError, match="num_leafs"):
        br.LambdaRanker(engine=engine, n_estimators=2, num_leafs=7).fit(d.X, d.y, qid=d.qid)


# ------------------------------------------------------------------ pandas


def frame(seed, n_queries=30):
    d = letor(n_queries, seed)
    df = pd.DataFrame(d.X, columns=[f"feat_{j}" for j in range(d.n_features)])
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue"], size=len(d))
    df["colour"] = pd.Categorical(colour, categories=["red", "green", "blue"])
    # the category carries signal, so a model that drops or mangles it scores worse
    y = np.where(colour == "red", np.maximum(d.y, 1), d.y)
    return df, y, d.qid


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_dataframes_keep_names_and_categories(engine):
    df, y, qid = frame(7)
    r = br.LambdaRanker(engine=engine, n_estimators=20, min_data_in_leaf=2, random_state=0) if engine == "lightgbm" \
        else br.LambdaRanker(engine=engine, n_estimators=20, random_state=0)
    r.fit(df, y, qid=qid)
    assert list(r.feature_names_in_) == list(df.columns)
    names = r.booster_.feature_name() if engine == "lightgbm" else r.booster_.feature_names
    assert list(names) == list(df.columns)
    p = r.predict(df)
    reordered = df[list(df.columns[::-1])]
    np.testing.assert_allclose(r.predict(reordered), p)
    with pytest.raises(ValueError, match="feature names"):
        r.predict(df.rename(columns={"feat_0": "other"}))
    # the categorical column is used as a category: red rows rank higher
    red = (df["colour"] == "red").to_numpy()
    assert p[red].mean() > p[~red].mean()


# ------------------------------------------------------------------ TREC runs


def test_evaluate_a_trec_run_matches_by_docid(tmp_path, capsys):
    d = letor(12, 8)
    d.docid = np.array([f"D{i:04d}" for i in range(len(d))], dtype=object)
    data_path = tmp_path / "data.txt"
    br.save_letor(data_path, d)
    scores = d.X @ np.arange(d.n_features) + 0.001 * np.arange(len(d))
    aligned = tmp_path / "scores.txt"
    np.savetxt(aligned, scores)
    lines = []
    for q in np.unique(d.qid):
        rows = np.flatnonzero(d.qid == q)
        for rank, i in enumerate(rows[np.argsort(-scores[rows])], start=1):
            lines.append(f"{q} Q0 {d.docid[i]} {rank} {float(scores[i])!r} run")
    lines.append("999 Q0 NOPE 1 5.0 run")  # a document the data does not have
    np.random.default_rng(0).shuffle(lines)
    run = tmp_path / "run.trec"
    run.write_text("\n".join(lines) + "\n")
    metrics = "ndcg@10,map,auc,mauc,p@5,err@10"
    outs = []
    for path in (aligned, run):
        assert main(["evaluate", "--data", str(data_path), "--scores", str(path), "--metrics", metrics,
                     "--json"]) == 0
        outs.append(json.loads(capsys.readouterr().out)["runs"][str(path)])
    assert outs[0] == pytest.approx(outs[1])
    np.testing.assert_allclose(br.evaluation.read_scores(run, br.load_letor(data_path)), scores)


@pytest.mark.parametrize("base", [0.0, 1e17, -1e17, -1.7976931348623157e308])
def test_unretrieved_rows_rank_below_every_retrieved_one_at_any_score_size(tmp_path, base):
    """Hardening #8: min(score) − 1.0 is the minimum itself from |score| ≥ 2⁵³ (AUC .75 became .5)."""
    d = br.data.LetorData(X=np.zeros((4, 1)), y=np.array([1, 0, 1, 0]), qid=np.array([1, 1, 1, 1]),
                     docid=np.array(["a", "b", "c", "d"], dtype=object))
    path = tmp_path / "data.txt"
    br.save_letor(path, d)
    step = max(abs(base) * 1e-15, 1.0)
    run = tmp_path / "run.trec"
    # a, b, c retrieved (a above b above c); d unretrieved, so it ranks last
    run.write_text("".join(f"1 Q0 {doc} {r} {base + (3 - r) * step!r} t\n" for r, doc in enumerate("abc", 1)))
    notes = []
    s = br.evaluation.read_run(run, br.load_letor(path), report=notes.append)
    assert np.isfinite(s).all() and s[3] < s[2] < s[1] < s[0]
    assert br.auc(d.y, s) == pytest.approx(0.75) and "1 of 4 row(s)" in notes[0]


def test_a_run_needs_docids_and_unique_lines(tmp_path):
    d = letor(3, 9)
    path = tmp_path / "data.txt"
    br.save_letor(path, d)
    run = tmp_path / "run.trec"
    run.write_text("1 Q0 a 1 2.0 t\n")
    with pytest.raises(ValueError, match="docid"):
        br.evaluation.read_scores(run, br.load_letor(path))
    d.docid = np.array([f"d{i}" for i in range(len(d))], dtype=object)
    br.save_letor(path, d)
    q = int(d.qid[0])
    run.write_text(f"{q} Q0 d0 1 2.0 t\n{q} Q0 d0 2 1.0 t\n")
    with pytest.raises(br.LetorFormatError, match=r":2: .*again \(line 1\)"):
        br.evaluation.read_scores(run, br.load_letor(path))


def _six_rows(tmp_path):
    d = br.data.LetorData(X=np.zeros((6, 1)), y=np.array([1, 0, 1, 0, 1, 0]), qid=np.array([1, 1, 1, 2, 2, 2]),
                     docid=np.array(list("abcdef"), dtype=object))
    path = tmp_path / "data.txt"
    br.save_letor(path, d)
    return path


def test_evaluate_reports_unmatched_run_lines_and_rows(tmp_path, capsys):
    """Hardening #14: a run matching 1 of 6 rows gave rc 0 and AUC .75 with no word; 'q2' qids vanished."""
    path = _six_rows(tmp_path)
    run = tmp_path / "run.trec"
    run.write_text("1 Q0 a 1 3.0 t\nq2 Q0 d 1 2.0 t\n1 Q0 zz 2 1.0 t\n")
    assert main(["evaluate", "--data", str(path), "--scores", str(run), "--metrics", "auc"]) == 0
    err = capsys.readouterr().err
    assert "2 run line(s) name documents not in the data" in err
    assert "5 of 6 row(s) of the data are not in the run" in err
    run.write_text("q1 Q0 a 1 3.0 t\n")
    with pytest.raises(br.LetorFormatError, match="not integers"):
        br.evaluation.read_scores(run, br.load_letor(path))


@pytest.mark.parametrize("tag", [" t", ""])
def test_a_run_without_its_tag_is_still_a_run(tmp_path, tag):
    """Hardening #15: five columns were read as a score table in line order (AUC 0.0 where six gave 1.0)."""
    path = _six_rows(tmp_path)
    run = tmp_path / "run.trec"
    # line order is the reverse of row order, so a score table would give the opposite ranking
    lines = [f"{q} Q0 {doc} 1 {s}{tag}" for q, doc, s in
             [(2, "f", 0.0), (2, "e", 1.0), (2, "d", 0.0), (1, "c", 1.0), (1, "b", 0.0), (1, "a", 1.0)]]
    run.write_text("\n".join(lines) + "\n")
    data = br.load_letor(path)
    assert br.auc(data.y, br.evaluation.read_scores(run, data), data.qid) == 1.0


def test_a_run_line_reads_as_trec_eval_reads_it(tmp_path):
    """Fields after the tag are ignored (trec_eval's get_trec_results.c); fewer than five name the layout."""
    path = _six_rows(tmp_path)
    run = tmp_path / "run.trec"
    run.write_text("1 Q0 a 1 3.0 t extra\n1 Q0 b 2 1.0 t\n")
    assert br.evaluation.read_run(run, br.load_letor(path))[:2].tolist() == [3.0, 1.0]
    run.write_text("1 Q0 a 1\n")
    with pytest.raises(br.LetorFormatError, match=r":1: a run line is 'qid Q0 docno rank score tag'"):
        br.evaluation.read_run(run, br.load_letor(path))


# ------------------------------------------------------------------ CLI and packaging


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


@pytest.mark.slow
def test_import_loads_no_heavy_dependency():
    code = ("import sys, boostrank as br; br.auc([1, 0], [1.0, 0.0]); "
            "print(sorted(m for m in ('sklearn', 'lightgbm', 'xgboost', 'pulp', 'highspy', 'matplotlib') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    code = "import boostrank as br; print(br.rerank.cross_fit_scores.__name__, br.mip.MIPRanker.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["cross_fit_scores", "MIPRanker"]  # submodules as attributes, loaded on use


def test_missing_xgboost_names_the_extra(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_xgboost(name, *args, **kw):
        if name == "xgboost":
            raise ImportError("No module named 'xgboost'")
        return real(name, *args, **kw)

    monkeypatch.setattr(builtins, "__import__", no_xgboost)
    d = letor(3, 1)
    with pytest.raises(ImportError, match=r"boostrank\[xgboost\]"):
        br.LambdaRanker(engine="xgboost", n_estimators=2).fit(d.X, d.y, qid=d.qid)


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_eval_metric_aliases_and_names_reach_the_engine(engine):
    train, valid = letor(20, 1), letor(10, 2)
    r = br.LambdaRanker(engine=engine, n_estimators=3, eval_metric=["auc_pessimistic", "err@5", "p@3"])
    r.fit(train.X, train.y, qid=train.qid, eval_set=[(valid.X, valid.y)], eval_qid=[valid.qid])
    assert set(r.evals_result_["valid_0"]) == {"br_auc_pessimistic", "br_err@5", "br_p@3"}
    with pytest.raises(ValueError, match="unknown metric"):
        br.LambdaRanker(engine=engine, n_estimators=3, eval_metric="ndgc@5").fit(train.X, train.y, qid=train.qid)


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
