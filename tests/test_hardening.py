"""Inputs that raised a raw exception or were accepted silently (hardening round 3, items 16, 21, 22)."""

import json
import lzma
import warnings

import numpy as np
import pytest

import boostrank as br
from boostrank.rankncg import load_linear_model

S, Y = np.array([0.3, 0.2, 0.1]), np.array([1, 0, 1])


@pytest.mark.parametrize("call", [
    lambda: br.ndcg(Y, S, k=10**30), lambda: br.precision_at(Y, S, k=10**30),
    lambda: br.get_metric("p@10")(Y, S, None), lambda: br.err(Y, S, k=10**30),
    lambda: br.lambda_gradients(S, Y, metric="ndcg", truncation_level=10**30),
], ids=["ndcg", "precision_at", "p", "err", "truncation_level"])
def test_a_cut_off_past_every_list_means_the_whole_list(call):
    """k = 10**30 raised Numba's TypingError; a cut-off past the list is the whole list."""
    call()


def test_cut_offs_past_the_list_equal_the_list_length():
    assert br.ndcg(Y, S, k=10**30) == br.ndcg(Y, S, k=3) == br.ndcg(Y, S)
    g_big, _ = br.lambda_gradients(S, Y, metric="ndcg", truncation_level=10**30)
    np.testing.assert_array_equal(g_big, br.lambda_gradients(S, Y, metric="ndcg", truncation_level=3)[0])


@pytest.mark.parametrize("kw, match", [
    ({"max_grade": 2000}, "max_grade"), ({"max_grade": 2.5}, "max_grade"), ({"max_grade": 0}, "max_grade"),
])
def test_err_scale_must_be_a_small_integer(kw, match):
    with pytest.raises(ValueError, match=match):
        br.err(Y, S, **kw)


@pytest.mark.parametrize("kw", [{"threshold": float("nan")}, {"threshold": "1"}, {"sigma": "1"},
                                {"sigma": float("nan")}, {"truncation_level": 2.5}, {"truncation_level": True}])
def test_objective_parameters_that_would_train_a_constant_model_are_refused(kw):
    with pytest.raises(ValueError):
        br.LambdaObjective("ndcg" if "truncation_level" in kw else "auc", **kw)


def test_lambda_ranker_with_a_nan_threshold_fails_before_training():
    X = np.random.default_rng(0).random((40, 2))
    with pytest.raises(ValueError, match="threshold"):
        br.LambdaRanker(threshold=float("nan"), n_estimators=2).fit(X, np.r_[np.zeros(20), np.ones(20)],
                                                                     group=[20, 20])


@pytest.mark.parametrize("kw", [{"gate": 1}, {"gate": -3}, {"gate": 2.0}, {"gate_alpha": 0}, {"gate_alpha": 1.5}])
def test_rerank_gate_settings_that_mean_no_gate_are_refused(kw):
    """gate=1 or -3 ran without a gate and reported "gate=0"."""
    X = np.random.default_rng(0).random((40, 2))
    with pytest.raises(ValueError, match="gate"):
        br.TopKReranker(**kw).fit(X, np.r_[np.zeros(20), np.ones(20)], group=[20, 20],
                                  base_scores=np.arange(40.0))


def test_rerank_k_past_every_list_reranks_whole_lists():
    rng = np.random.default_rng(0)
    X = rng.random((40, 2))
    y = np.r_[np.zeros(20), np.ones(20)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        big = br.TopKReranker(k=10**30, gate=0, time_limit=20).fit(X, y, group=[20, 20], base_scores=X[:, 0])
        whole = br.TopKReranker(k=20, gate=0, time_limit=20).fit(X, y, group=[20, 20], base_scores=X[:, 0])
    np.testing.assert_array_equal(big.coef_, whole.coef_)


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
        br.LambdaRanker(engine="xgboost", n_estimators=5).fit(X, np.r_[np.zeros(30), np.ones(30)],
                                                              group=[30, 30]).save_model(path)
    doc = json.loads(path.read_text())
    doc["learner"]["attributes"]["best_iteration"] = value
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="damaged XGBoost model file"):
        br.load_model(path)


@pytest.mark.parametrize("cut", ["truncated", "corrupt"])
def test_damaged_xz_letor_file_is_a_letor_format_error(tmp_path, cut):
    """lzma.LZMAError escaped load_letor."""
    plain = tmp_path / "f.txt"
    br.save_letor(plain, np.zeros((4, 2)), [0, 1, 0, 1], qid=[1, 1, 2, 2])
    packed = bytearray(lzma.compress(plain.read_bytes()))
    if cut == "truncated":
        packed = packed[:-10]
    else:
        packed[30] ^= 0xFF
    bad = tmp_path / "f.txt.xz"
    bad.write_bytes(bytes(packed))
    with pytest.raises(br.LetorFormatError, match="damaged lzma"):
        br.load_letor(bad)


def test_save_letor_refuses_x_that_is_not_two_dimensional(tmp_path):
    with pytest.raises(ValueError, match="2-D"):
        br.save_letor(tmp_path / "f.txt", np.zeros((2, 2, 2)), [0, 1])
