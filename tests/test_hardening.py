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
        br.LambdaRanker(engine="xgboost", n_estimators=5).fit(X, np.tile([0.0, 1.0], 30),
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


@pytest.mark.parametrize("docid", ["a b", "a\tb", ""])
def test_a_docid_that_cannot_read_back_is_refused(tmp_path, docid):
    """Hardening #18: 'a b' read back as 'a', '' as None."""
    d = br.data.LetorData(X=np.zeros((2, 1)), y=np.array([1, 0]), qid=np.array([1, 1]),
                     docid=np.array([docid, "b"], dtype=object))
    with pytest.raises(ValueError, match="docid"):
        br.save_letor(tmp_path / "d.txt", d)
    assert not (tmp_path / "d.txt").exists()


@pytest.mark.parametrize("qid", [np.array([1e20, 1e20]), np.array([2**64 - 1] * 2, dtype=np.uint64)])
def test_a_qid_that_cannot_read_back_is_refused(tmp_path, qid):
    """Hardening #18: qid 1e20 or 2**64 - 1 was written and could not be read back."""
    with pytest.raises(ValueError, match="64-bit"):
        br.save_letor(tmp_path / "d.txt", np.zeros((2, 1)), np.array([1, 0]), qid)


def test_the_largest_int64_qid_and_plain_docids_round_trip(tmp_path):
    d = br.data.LetorData(X=np.zeros((2, 1)), y=np.array([1, 0]), qid=np.array([2**63 - 1] * 2),
                     docid=np.array(["GX000-00-0000000", "b-1"], dtype=object))
    br.save_letor(tmp_path / "d.txt", d)
    back = br.load_letor(tmp_path / "d.txt")
    assert back.qid.tolist() == d.qid.tolist() and back.docid.tolist() == d.docid.tolist()


@pytest.mark.parametrize("k", [0, 3])
def test_rows_the_reranker_did_not_order_keep_their_base_ties(k):
    """Hardening #19: with k = 0, tied base scores came back ordered by row number (AUC .7970 vs .7991)."""
    rng = np.random.default_rng(0)
    n_lists, size = 30, 12
    X = rng.normal(size=(n_lists * size, 3))
    y = (X[:, 0] + rng.normal(size=len(X)) > 0.5).astype(int)
    qid = np.repeat(np.arange(n_lists), size)
    base = np.round(X[:, 0] + X[:, 1], 0)  # coarse: many ties
    model = br.TopKReranker(k=k, time_limit=5, gate=0).fit(X, y, qid=qid, base_scores=base)
    s = model.predict(X, base, qid=qid)
    assert bool(model.fallback_) == (k == 0)  # no gate: k = 3 re-orders each top 3
    ordered = 0 if model.fallback_ else k
    for q in range(n_lists):
        rows = np.flatnonzero(qid == q)
        top = rows[np.lexsort((rows, -base[rows]))][:ordered]
        tail = np.setdiff1d(rows, top)
        for i in tail:  # a tail row ties exactly the tail rows its base score ties
            np.testing.assert_array_equal(s[tail] == s[i], base[tail] == base[i])
        assert (s[top][:, None] > s[tail][None, :]).all()
    if k == 0:
        assert br.auc(y, s, qid) == br.auc(y, base, qid)
    order = model.rerank(X, base, qid=qid)
    assert np.array_equal(np.sort(order), np.arange(len(X)))


@pytest.mark.parametrize("max_iter", [0, -1, 2.5, True])
def test_zero_conjugate_gradient_iterations_are_refused(max_iter, tmp_path, capsys):
    """Hardening #21: fit-linear --max-iter 0 fitted w = 0 and printed 'training WMW 1.0000' (every tie credited)."""
    from boostrank.cli import main

    X, y = np.random.default_rng(0).normal(size=(20, 2)), np.arange(20) % 2
    with pytest.raises(ValueError, match="max_iter"):
        br.RankNCG(max_iter=max_iter).fit(X, y)
    if max_iter == 0:
        br.save_letor(tmp_path / "t.txt", X, y, np.zeros(20, dtype=int))
        assert main(["fit-linear", "--train", str(tmp_path / "t.txt"), "--max-iter", "0",
                     "--out", str(tmp_path / "m.json")]) == 2
        assert "max_iter" in capsys.readouterr().err and not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("method", ["exact", "fast"])
def test_a_huge_grade_in_the_probit_lambda_is_its_rank_among_the_grades(method):
    """Hardening #22: a grade of 10**9 made the probit kernels allocate 7.45 GiB."""
    from boostrank.objectives.probit import lambda_auc_probit

    s = np.random.default_rng(0).normal(size=7)
    offsets = np.array([0, 4, 7])
    huge = lambda_auc_probit(s, np.array([0, 1e9, 1, 0, 2, 10**12, 0.0]), offsets, method=method)
    dense = lambda_auc_probit(s, np.array([0, 2, 1, 0, 1, 2, 0.0]), offsets, method=method)
    np.testing.assert_array_equal(huge[0], dense[0])
    np.testing.assert_array_equal(huge[1], dense[1])


@pytest.mark.parametrize("method", ["exact", "fast"])
def test_erfc_sum_with_weights_near_the_largest_float(method):
    """Hardening #22: weights near 1e308 returned NaN silently."""
    y, z = np.array([0.0, 1.0, 3.0]), np.array([0.0, 0.5, 1.0])
    small = br.erfc_sum(y, z, np.array([1.0, -0.5, 0.25]), method=method)
    np.testing.assert_allclose(br.erfc_sum(y, z, np.array([1.0, -0.5, 0.25]) * 1e307, method=method),
                               small * 1e307, rtol=1e-6)
    with pytest.raises(ValueError, match="largest float"):
        br.erfc_sum(y, z, np.full(3, 1.5e308), method=method)


@pytest.mark.parametrize("estimator", ["mip", "topk"])
def test_features_too_small_for_a_finite_coefficient_are_refused(estimator):
    """Hardening #6: features near 1e-310 gave 'optimal' with coef_ = [inf, -inf, -inf] and NaN predictions."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    X[:, 1] *= 1e-310
    with pytest.raises(ValueError, match=r"feature\(s\) \[1\]"):
        if estimator == "mip":
            br.MIPRanker(time_limit=5).fit(X, y)
        else:
            br.TopKReranker(k=5, time_limit=5, gate=0).fit(X, y, base_scores=X[:, 0])
    X[:, 1] *= 1e20  # 1e-290 and up: finite coefficients and predictions
    model = br.MIPRanker(time_limit=5).fit(X, y)
    assert np.isfinite(model.coef_).all() and np.isfinite(model.predict(X)).all()


def test_a_fit_past_the_pair_limit_is_refused_before_building_pairs():
    """Hardening #10: 10**5 rows in one list built 2.5e9 pairs and died of MemoryError after 28 s."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100_000, 2))
    y = (np.arange(100_000) % 2).astype(int)
    with pytest.raises(ValueError, match="pairs to compare"):
        br.MIPRanker(time_limit=5).fit(X, y)


def test_the_branch_and_bound_declines_what_its_budget_cannot_merge():
    """Hardening #10: branch_and_bound(time_budget=0.01) at 6 000 rows spent 55 s merging hyperplanes."""
    from boostrank.mip import _data
    from boostrank.mip.search import MAX_BNB_PAIRS, branch_and_bound

    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 3))
    y = (X[:, 0] + rng.normal(size=2000) > 0).astype(int)
    data = _data.rank_data(X, y, np.zeros(2000, dtype=np.int64), np.ones(2000), "auc")
    assert data.pu.size < MAX_BNB_PAIRS  # declined for the budget, not the memory cap
    assert branch_and_bound(data, time_budget=0.01) is None
    small = _data.rank_data(X[:60], y[:60], np.zeros(60, dtype=np.int64), np.ones(60), "auc")
    assert branch_and_bound(small, time_budget=5).proven


def test_rank_risk_weights_that_make_lists_too_long_are_refused():
    """Hardening #12: one weight of 3e7 made rank-risk tables of 2.4 GB (17 s against time_limit=5)."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20, 2)), np.arange(20) % 2
    w = np.ones(20)
    w[0] = 3e7
    with pytest.raises(ValueError, match="scale sample_weight down"):
        br.MIPRanker(objective="rank_risk", time_limit=5).fit(X, y, sample_weight=w)
    w[0] = 30
    br.MIPRanker(objective="rank_risk", time_limit=5).fit(X, y, sample_weight=w)


@pytest.mark.parametrize("spec", ["local_auc@-1", "local_auc@0", "pnorm@nan", "pnorm@inf", "mrr@-3", "wta@0",
                                  "wrs@2"])
def test_weight_family_parameters_that_mean_nothing_are_refused(spec):
    """Hardening #21: local_auc@-1 and pnorm@nan were accepted (pnorm@nan gave NaN weights)."""
    from boostrank.weights import weight_family

    with pytest.raises(ValueError, match="weight family"):
        weight_family(spec)
    with pytest.raises(ValueError, match="weight family"):
        br.MIPRanker(objective="rank_risk", a=spec, time_limit=1).fit(np.eye(4), np.array([1, 0, 1, 0]))


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_a_text_column_is_named_at_fit_and_predict(engine):
    """Hardening #22: an object column reached the engine's own message at predict."""
    pd = pytest.importorskip("pandas")
    d = br.datasets.make_letor(10, random_state=0)
    df = pd.DataFrame(d.X, columns=[f"c{j}" for j in range(d.X.shape[1])])
    bad = df.assign(c0=df["c0"].astype(str))
    with pytest.raises(ValueError, match=r"column\(s\) \['c0'\] hold"):
        br.LambdaRanker(engine=engine, n_estimators=2).fit(bad, d.y, qid=d.qid)
    model = br.LambdaRanker(engine=engine, n_estimators=2).fit(df.assign(c1=df["c1"] > 0.5), d.y, qid=d.qid)
    with pytest.raises(ValueError, match=r"column\(s\) \['c0'\] hold"):
        model.predict(bad.assign(c1=df["c1"] > 0.5))
