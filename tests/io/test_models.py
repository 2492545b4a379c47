"""boostrank.io.models: models saved and loaded with what they were trained with, damaged files named."""

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

import boostrank as br
from boostrank.linear.rankncg import load_linear_model
from ..conftest import small_lists


@pytest.fixture
def linear_model(tmp_path):
    X = np.random.default_rng(0).random((40, 2))
    path = tmp_path / "l.json"
    br.RankNCG().fit(X, np.r_[np.zeros(20), np.ones(20)]).save_model(path)
    return path, json.loads(path.read_text())


@pytest.mark.parametrize("damage", ["params", "coef", "offset", "classes", "n_iter", "n_pairs", "coef=null",
                                    "coef=str", "coef=nested", "coef=[]", "coef=inf", "params=unknown", "list"])
def test_damaged_linear_model_json_is_a_value_error(tmp_path, linear_model, damage):
    """A missing key was a KeyError, coef: null an IndexError."""
    _, doc = linear_model
    doc = dict(doc)
    if damage == "list":
        doc = [doc]
    elif "=" not in damage:
        doc.pop(damage)
    else:
        key, value = damage.split("=")
        doc[key] = {"null": None, "str": "abc", "nested": [[1, 2], [3]], "[]": [], "inf": [1e400, 1.0],
                    "unknown": {"nope": 1}}[value]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(ValueError):
        load_linear_model(bad)


@pytest.mark.parametrize("value", ["", "-1", "99", "abc"])
def test_damaged_xgboost_best_iteration_is_a_value_error(tmp_path, value):
    """best_iteration="" was XGBoost's AssertionError; -1 silently predicted with every tree."""
    X = np.random.default_rng(0).random((60, 3))
    path = tmp_path / "x.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        br.LambdaRanker(engine="xgboost", n_estimators=5).fit(X, np.tile([0.0, 1.0], 30),
                                                              group=[30, 30]).save_model(path)
    doc = json.loads(path.read_text())
    doc["learner"]["attributes"]["best_iteration"] = value
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="damaged XGBoost model file"):
        br.load_model(path)


# ---------------------------------------------------------------- item 5: loaded models remember
@pytest.mark.parametrize("engine, suffix", [("lightgbm", ".txt"), ("xgboost", ".json"), ("xgboost", ".txt"),
                                            ("xgboost", ".ubj")])
def test_a_loaded_model_keeps_what_it_was_trained_with(tmp_path, engine, suffix):
    X, y, qid = small_lists(2)
    model = br.LambdaRanker(engine=engine, objective="lambdarank" if engine == "lightgbm" else "ndcg",
                            n_estimators=7, learning_rate=0.2, min_child_samples=2 if engine == "lightgbm" else None,
                            random_state=3).fit(X, y, qid=qid) if engine == "lightgbm" else \
        br.LambdaRanker(engine=engine, objective="ndcg", n_estimators=7, learning_rate=0.2, random_state=3).fit(
            X, y, qid=qid)
    path = tmp_path / f"model{suffix}"
    br.save_model(model, path)
    loaded = br.load_model(path)
    assert loaded.objective == loaded.objective_ == model.objective
    assert loaded.n_estimators == 7 and loaded.learning_rate == 0.2 and loaded.random_state == 3
    assert loaded.score(X, y, qid=qid) == pytest.approx(model.score(X, y, qid=qid))
    assert loaded.score(X, y, qid=qid) == pytest.approx(br.ndcg(y, model.predict(X), qid, k=10))
    with pytest.raises(ValueError, match="score needs qid"):
        loaded.score(X, y)


def test_a_model_file_without_boostrank_parameters_needs_a_metric(tmp_path):
    import lightgbm as lgb

    X, y, qid = small_lists(3)
    booster = lgb.train({"objective": "lambdarank", "verbose": -1, "min_data_in_leaf": 2},
                        lgb.Dataset(X, y, group=np.bincount(qid)), 5)
    path = tmp_path / "plain.txt"
    booster.save_model(str(path))
    loaded = br.load_model(path)
    assert loaded.objective_ is None
    with pytest.raises(ValueError, match="pass metric="):
        loaded.score(X, y, qid=qid)
    assert loaded.score(X, y, qid=qid, metric="ndcg@10") == pytest.approx(br.ndcg(y, booster.predict(X), qid, k=10))


def test_a_damaged_parameter_line_names_the_file(tmp_path):
    X, y, qid = small_lists(4)
    model = br.LambdaRanker(n_estimators=3, min_child_samples=2).fit(X, y, qid=qid)
    path = tmp_path / "m.txt"
    model.save_model(path)
    text = path.read_text().replace('"n_groups": 8', '"n_groups": "eight"')
    path.write_text(text)
    with pytest.raises(ValueError, match=r"m\.txt: damaged model file: its boostrank_params"):
        br.load_model(path)


# ---------------------------------------------------------------- item 7: XGBoost's UBJSON files load
@pytest.mark.parametrize("suffix", [".txt", ".ubj", ".bin", ".model"])
def test_xgboost_ubjson_models_load_and_predict(tmp_path, suffix):
    import warnings

    xgb = pytest.importorskip("xgboost")
    X, y, qid = small_lists(5)
    booster = xgb.train({"objective": "rank:pairwise", "nthread": 1}, xgb.DMatrix(X, y, group=np.bincount(qid)), 4)
    path = tmp_path / f"m{suffix}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        booster.save_model(str(path))
    assert path.read_bytes()[:2] == b"{L"  # UBJSON, not JSON
    loaded = br.load_model(path)
    np.testing.assert_allclose(loaded.predict(X), booster.predict(xgb.DMatrix(X)), rtol=1e-6)


@pytest.mark.slow  # over a second warm
def test_a_saved_lightgbm_model_loads_without_lightgbm_warnings_and_keeps_its_parameters(tmp_path):
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(120, 3)), rng.integers(0, 2, 120)
    model = br.LambdaRanker(objective="auc", n_estimators=3, learning_rate=0.2).fit(X, y, qid=np.repeat(range(6), 20))
    path = tmp_path / "m.txt"
    model.save_model(path)
    code = ("import sys, lightgbm as lgb, boostrank as br; lgb.Booster(model_file=sys.argv[1]); "
            "m = br.load_model(sys.argv[1]); print(m.objective, m.learning_rate)")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Ignoring unrecognized parameter" not in done.stdout + done.stderr
    assert done.stdout.split()[-2:] == ["auc", "0.2"]
