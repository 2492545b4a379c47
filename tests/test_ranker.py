"""boostrank.ranker: LambdaRanker on either engine: its parameters, fit, early stopping, eval sets, weights,
DataFrames, save and load."""

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

import boostrank as br

from .conftest import nonlinear_letor, small_lists

xgb = pytest.importorskip("xgboost")  # an optional extra (boostrank[xgboost])


@pytest.fixture(scope="module")
def letor():
    return br.datasets.make_letor(70, docs_per_query=(4, 25), random_state=11).take_queries(slice(0, 40))


@pytest.fixture(scope="module")
def letor_test():
    return br.datasets.make_letor(70, docs_per_query=(4, 25), random_state=11).take_queries(slice(40, 70))


class Recorder:
    """Wraps an adapter and keeps the gradients each call returned.

    ``lgb.train`` deep-copies its params, so the engine gets plain closures (functions
    are not copied) that write into this object's list.
    """

    def __init__(self, fn, n_params):
        self.calls = calls = []

        def two(a, b):
            out = fn(a, b)
            calls.append(np.array(out[0], dtype=float))
            return out

        def four(a, b, c, d):
            out = fn(a, b, c, d)
            calls.append(np.array(out[0], dtype=float))
            return out

        self.two, self.four = two, four


@pytest.mark.parametrize("metric", ["auc", "mauc", "ndcg"])
def test_engines_receive_identical_gradients(letor, metric):
    X, y, sizes = letor.X, letor.y, letor.group_sizes
    # what the objective hands an engine in its first round: its λs (sampled pairs, scaled hessians), float32
    first = br.LambdaObjective(metric)
    expected, _ = first.bind(y, letor.group_offsets).gradients(np.zeros(len(y)))

    rec = Recorder(br.lightgbm_objective(metric), 2)
    lgb.train({"objective": rec.two, "verbose": -1}, lgb.Dataset(X, y, group=sizes), 1)
    rec4 = Recorder(br.lightgbm_objective(metric), 4)
    lgb.LGBMRanker(objective=rec4.four, n_estimators=1, verbose=-1).fit(X, y, group=sizes)
    recx = Recorder(br.xgboost_objective(metric), 2)
    xgb.train({"base_score": 0.0}, xgb.DMatrix(X, y, qid=letor.qid), 1, obj=recx.two)

    for got in (rec.calls[0], rec4.calls[0], recx.calls[0]):
        # the engines' own gradient type: float32, rounded once from the float64 λs
        np.testing.assert_array_equal(got, expected.astype(np.float32))
    # the objective object itself accepts both LightGBM call forms
    obj = br.lightgbm_objective(metric)
    ds = lgb.Dataset(X, y, group=sizes).construct()
    g2, _ = obj(np.zeros(len(y)), ds)
    g2 = g2.copy()  # the adapter's output buffers are reused by the next call
    g4, h4 = obj(y, np.zeros(len(y)), None, sizes)
    assert g4.dtype == h4.dtype == np.float32
    np.testing.assert_array_equal(g2, g4)


def test_lightgbm_counts_four_parameters():
    from inspect import signature

    assert len(signature(br.lightgbm_objective("auc")).parameters) == 4
    assert len(signature(br.lightgbm_metric("auc")).parameters) == 4


def test_ndcg_objective_reproduces_native_lambdarank(letor):
    params = {"verbose": -1, "num_leaves": 7, "learning_rate": 0.1, "min_data_in_leaf": 5,
              "deterministic": True, "num_threads": 1, "seed": 3, "metric": "None"}
    ds = lambda: lgb.Dataset(letor.X, letor.y, group=letor.group_sizes)
    native = lgb.train({**params, "objective": "lambdarank"}, ds(), 5)
    ours = lgb.train({**params, "objective": br.lightgbm_objective("ndcg")}, ds(), 5)
    # LightGBM reads ρ from a 2^20-entry table; the kernel computes it exactly
    np.testing.assert_allclose(ours.predict(letor.X), native.predict(letor.X), rtol=1e-4, atol=1e-5)


def test_eval_metrics_in_both_engines(letor):
    ds = lgb.Dataset(letor.X, letor.y, group=letor.group_sizes)
    record = {}
    booster = lgb.train({"objective": br.lightgbm_objective("auc"), "verbose": -1, "metric": "None"},
                        ds, 3, valid_sets=[ds], valid_names=["train"],
                        feval=[br.lightgbm_metric("auc"), br.lightgbm_metric("auc_pessimistic")],
                        callbacks=[lgb.record_evaluation(record)])
    p = booster.predict(letor.X)
    assert record["train"]["br_auc"][-1] == pytest.approx(br.auc(letor.y, p, letor.qid))
    assert record["train"]["br_auc_pessimistic"][-1] == pytest.approx(
        br.auc(letor.y, p, letor.qid, ties="pessimistic"))
    d = xgb.DMatrix(letor.X, letor.y, qid=letor.qid)
    res = {}
    b = xgb.train({"min_child_weight": 1e-3, "disable_default_eval_metric": 1}, d, 3,
                  obj=br.xgboost_objective("mauc"), evals=[(d, "train")],
                  custom_metric=br.xgboost_metric("mauc"), evals_result=res, verbose_eval=False)
    assert res["train"]["br_mauc"][-1] == pytest.approx(br.mauc(letor.y, b.predict(d), letor.qid), abs=1e-6)


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
@pytest.mark.parametrize("objective", ["auc", "mauc"])
def test_lambda_ranker_learns(letor, letor_test, engine, objective):
    test = letor_test
    ranker = br.LambdaRanker(engine=engine, objective=objective, n_estimators=40, learning_rate=0.1,
                             random_state=0, eval_metric=["auc", "mauc"])
    ranker.fit(letor.X, letor.y, qid=letor.qid, eval_set=[(test.X, test.y)], eval_qid=[test.qid])
    p = ranker.predict(test.X)
    assert br.auc(test.y, p, test.qid) > 0.7
    hist = ranker.evals_result_["valid_0"]["br_auc"]
    assert len(hist) == 40 and hist[-1] == pytest.approx(br.auc(test.y, p, test.qid), abs=1e-6)


@pytest.mark.parametrize("engine,native", [("lightgbm", "lambdarank"), ("xgboost", "rank:ndcg")])
def test_lambda_ranker_native_objectives_and_early_stopping(letor, letor_test, engine, native):
    test = letor_test
    r = br.LambdaRanker(engine=engine, objective=native, n_estimators=200, early_stopping_rounds=5,
                        eval_metric="ndcg@10")
    r.fit(letor.X, letor.y, qid=letor.qid, eval_set=[(test.X, test.y)], eval_qid=[test.qid])
    assert r.best_iteration_ is not None and r.best_iteration_ < 200
    assert r.predict(test.X).shape == (len(test),)


def test_default_fit_trains_all_rounds_on_every_query(letor):
    r = br.LambdaRanker(min_child_samples=5).fit(letor.X, letor.y, qid=letor.qid)
    assert r.get_params()["n_estimators"] == 100 and r.get_params()["learning_rate"] == 0.05
    assert r.validation_queries_ is None and r.best_iteration_ is None and r.booster_.num_trees() == 100


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_early_stopping_without_eval_set_holds_out_queries(letor, engine):
    """early_stopping_rounds without eval_set holds out 20 % of the queries and stops on the objective's metric."""
    w = np.random.default_rng(0).uniform(0.5, 2.0, letor.n_queries)
    weight = w if engine == "xgboost" else np.repeat(w, letor.group_sizes)
    kw = dict(n_estimators=1000, early_stopping_rounds=50, random_state=0,
              **({"min_child_samples": 5} if engine == "lightgbm" else {}))
    r = br.LambdaRanker(engine=engine, **kw).fit(letor.X, letor.y, qid=letor.qid, sample_weight=weight)
    held = r.validation_queries_
    assert held.shape == (letor.n_queries,) and held.sum() == round(0.2 * letor.n_queries)
    hist = r.evals_result_["valid_0"]["br_auc"]
    best = r.best_iteration_  # rounds predict uses, on both engines
    assert best is not None and len(hist) == best + 50 < 1000
    assert r.best_score_ == {"valid_0": {"br_auc": hist[best - 1]}} and max(hist) == hist[best - 1]
    # LightGBM drops the rounds after the best one, XGBoost keeps them
    assert r.n_estimators_ == (best if engine == "lightgbm" else len(hist))
    # the held-out queries' AUC at the best round is what the history says
    rows = np.repeat(held, letor.group_sizes)
    q = letor.qid[rows]
    assert br.auc(letor.y[rows], r.predict(letor.X[rows]), q) == pytest.approx(max(hist), abs=1e-6)
    same = br.LambdaRanker(engine=engine, **kw)
    np.testing.assert_array_equal(same.fit(letor.X, letor.y, qid=letor.qid, sample_weight=weight)
                                  .validation_queries_, held)


def test_ranker_norm_acts_and_is_refused_where_it_cannot(letor):
    fit = dict(X=letor.X, y=letor.y, qid=letor.qid)
    kw = dict(n_estimators=5, min_child_samples=5)
    default = br.LambdaRanker(**kw).fit(**fit).predict(letor.X)
    query = br.LambdaRanker(norm="query", **kw).fit(**fit).predict(letor.X)
    np.testing.assert_array_equal(default, query)  # the per-query rescaling by default for AUC (#42)
    off = br.LambdaRanker(norm=False, **kw).fit(**fit).predict(letor.X)
    on = br.LambdaRanker(norm=True, **kw).fit(**fit).predict(letor.X)
    assert not np.allclose(on, off) and not np.allclose(query, off) and not np.allclose(on, query)
    with pytest.raises(ValueError, match="norm is a parameter of boostrank's objectives"):
        br.LambdaRanker(objective="lambdarank", norm=False).fit(**fit)
    for norm in (True, "query"):
        with pytest.raises(ValueError, match=f"norm={norm!r} needs link='logistic'"):
            br.LambdaRanker(link="probit", norm=norm).fit(**fit)
    with pytest.raises(ValueError, match="'norm' parameter of LambdaRanker must be"):
        br.LambdaRanker(norm="gap").fit(**fit)


def test_validation_split_is_skipped_or_refused_where_it_must_be(letor):
    off = letor.group_offsets
    few = off[:6]  # 5 queries: nothing held out, all rounds
    es = dict(n_estimators=7, early_stopping_rounds=1, min_child_samples=5)
    r = br.LambdaRanker(**es).fit(letor.X[:few[-1]], letor.y[:few[-1]], qid=letor.qid[:few[-1]])
    assert r.validation_queries_ is None and r.best_iteration_ is None and r.booster_.num_trees() == 7
    r = br.LambdaRanker(validation_fraction=None, **es).fit(letor.X, letor.y, qid=letor.qid)
    assert r.validation_queries_ is None and r.booster_.num_trees() == 7
    r = br.LambdaRanker(**es).fit(letor.X, letor.y, qid=letor.qid)
    assert r.validation_queries_ is not None and r.best_iteration_ is not None
    for bad in (0.0, 1.0, -0.1, 2):
        with pytest.raises(ValueError, match="'validation_fraction' parameter of LambdaRanker must be"):
            br.LambdaRanker(validation_fraction=bad).fit(letor.X, letor.y, qid=letor.qid)
    # one list: rows are held out, the split is one list too
    from boostrank.queries import validation_split

    tr, tr_off, va, va_off, held = validation_split(np.array([0, 500]), 0.2, 0)
    assert held is None and va.shape == (100,) and np.array_equal(np.sort(np.r_[tr, va]), np.arange(500))
    assert tr_off.tolist() == [0, 400] and va_off.tolist() == [0, 100]
    assert validation_split(np.array([0, 99]), 0.2, 0) is None


def test_unsorted_but_contiguous_qid_works_on_xgboost(letor):
    # XGBoost itself rejects qid that is not non-decreasing; the estimator passes sizes
    relabelled = letor.qid.max() + 1 - letor.qid
    a = br.LambdaRanker(engine="xgboost", n_estimators=5, random_state=0).fit(letor.X, letor.y, qid=relabelled)
    b = br.LambdaRanker(engine="xgboost", n_estimators=5, random_state=0).fit(letor.X, letor.y, qid=letor.qid)
    np.testing.assert_allclose(a.predict(letor.X), b.predict(letor.X))
    with pytest.raises(xgb.core.XGBoostError, match="non-decreasing"):
        xgb.DMatrix(letor.X, letor.y, qid=relabelled)


def test_ranker_misuse(letor):
    X, y = letor.X[:6], letor.y[:6]
    with pytest.raises(ValueError, match="qid 1 is not contiguous"):
        br.LambdaRanker(engine="xgboost").fit(X, y, qid=[1, 1, 2, 2, 1, 1])
    with pytest.raises(ValueError, match="group sizes add up to 5 rows but there are 6 rows"):
        br.LambdaRanker().fit(X, y, group=[2, 3])
    with pytest.raises(ValueError, match="not available on xgboost"):
        br.LambdaRanker(engine="xgboost", objective="lambdarank").fit(X, y)
    with pytest.raises(ValueError, match="'engine' parameter of LambdaRanker must be"):
        br.LambdaRanker(engine="catboost").fit(X, y)
    with pytest.raises(ValueError, match="non-negative integer"):
        br.LambdaRanker(objective="mauc").fit(X, y + 0.5, group=[6])
    with pytest.raises(ValueError, match="constant within each query"):
        br.LambdaRanker(engine="xgboost").fit(X, y, group=[3, 3], sample_weight=np.arange(6.0))
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        br.LambdaRanker().predict(X)


def test_ranker_params_clone_and_save(letor, tmp_path):
    r = br.LambdaRanker(engine="lightgbm", objective="auc", n_estimators=7, num_leaves=5, min_data_in_leaf=3)
    assert r.get_params()["num_leaves"] == 5
    c = clone(r).set_params(num_leaves=9, n_estimators=3)
    assert c.get_params()["num_leaves"] == 9 and c.n_estimators == 3 and r.num_leaves == 5
    for engine in ("lightgbm", "xgboost"):
        fitted = br.LambdaRanker(engine=engine, n_estimators=5).fit(letor.X, letor.y, qid=letor.qid)
        path = tmp_path / f"model.{engine}.json"
        fitted.save_model(path)
        back = br.LambdaRanker.load_model(path, engine=engine)
        np.testing.assert_allclose(back.predict(letor.X), fitted.predict(letor.X), rtol=1e-6)


def test_our_metrics_as_eval_metric_of_xgboosts_sklearn_estimators():
    """#29 item 6: XGBRanker(eval_metric=br.xgboost_metric('auc')) died with AttributeError ('get_label')."""
    xgb = pytest.importorskip("xgboost")
    d, v = br.datasets.make_letor(30, random_state=0), br.datasets.make_letor(10, random_state=1)
    for name in ("auc", "mauc", "ndcg@5"):
        metric = br.xgboost_metric(name)
        ranker = xgb.XGBRanker(n_estimators=3, eval_metric=metric)
        ranker.fit(d.X, d.y, qid=d.qid, eval_set=[(v.X, v.y)], eval_qid=[v.qid], verbose=False)
        logged = ranker.evals_result()["validation_0"][metric.name][-1]
        per_list = br.get_metric(name)(v.y, ranker.predict(v.X), v.qid, per_query=True) \
            if name != "ndcg@5" else br.ndcg(v.y, ranker.predict(v.X), v.qid, k=5, per_query=True)
        # XGBRanker averages the lists' values weighted by their sizes (its get_group())
        assert logged == pytest.approx(np.average(np.where(np.isnan(per_list), 1.0, per_list),
                                                  weights=v.group_sizes), abs=1e-6)
    m = br.xgboost_metric("auc")
    ranker = xgb.XGBRanker(n_estimators=30, eval_metric=m, callbacks=[m.early_stopping(3)])
    ranker.fit(d.X, d.y, qid=d.qid, eval_set=[(v.X, v.y)], eval_qid=[v.qid], verbose=False)
    values = ranker.evals_result()["validation_0"][m.name]
    assert ranker.best_iteration == int(np.argmax(values))  # maximised, not minimised
    clf = xgb.XGBClassifier(n_estimators=3, eval_metric=br.xgboost_metric("auc"))
    clf.fit(d.X, d.y > 0, eval_set=[(v.X, v.y > 0)], verbose=False)
    assert clf.evals_result()["validation_0"]["br_auc"][-1] == pytest.approx(
        br.auc(v.y > 0, clf.predict_proba(v.X)[:, 1]), abs=1e-6)


def test_a_lightgbm_model_with_our_objective_converts_to_onnx(tmp_path):
    """#29 item 8: onnxmltools refused our models ("Unsupported LightGbm objective: 'none'")."""
    onnxmltools = pytest.importorskip("onnxmltools")
    ort = pytest.importorskip("onnxruntime")
    import lightgbm as lgb
    from onnxmltools.convert.common.data_types import FloatTensorType

    d = br.datasets.make_letor(30, random_state=0)
    model = br.LambdaRanker(objective="auc", n_estimators=20).fit(d.X, d.y, qid=d.qid)
    path = tmp_path / "m.txt"
    model.save_model(path)
    booster = lgb.Booster(model_file=str(path))
    np.testing.assert_array_equal(booster.predict(d.X), model.predict(d.X))
    np.testing.assert_array_equal(br.load_model(path).predict(d.X), model.predict(d.X))
    onx = onnxmltools.convert_lightgbm(booster, initial_types=[("X", FloatTensorType([None, d.X.shape[1]]))],
                                       target_opset=15)
    sess = ort.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
    got = sess.run(None, {"X": d.X.astype(np.float32)})[0].reshape(-1)
    np.testing.assert_allclose(got, booster.predict(d.X.astype(np.float32)), atol=1e-5)


def _spy_threads(monkeypatch):
    """The λ kernels' thread counts the states bound in a run ask for."""
    from boostrank.objectives.state import LambdaState

    seen = set()
    real = LambdaState._threads

    def spy(self, available):
        seen.add(self.objective.n_jobs if self.n_jobs is None else self.n_jobs)
        return real(self, available)

    monkeypatch.setattr(LambdaState, "_threads", spy)
    return seen


@pytest.mark.parametrize("constructed", [False, True])  # a Dataset built before lgb.train keeps its own params
@pytest.mark.parametrize("params, expected", [({"num_threads": 1}, {1}), ({"n_jobs": 2}, {2}), ({}, {None})])
def test_the_objective_follows_lightgbms_thread_count_when_one_is_set(monkeypatch, params, expected, constructed):
    """#47 item 4, hardening 6 #5: all of Numba's threads beside one engine thread waited for descheduled threads
    under load.  lgb.train hands its parameters to a Dataset it constructs; a constructed Dataset and
    LGBMRanker's four-argument form hand none, so there the objective's own n_jobs counts, by default the size
    rule (one thread for small batches); LambdaRanker passes its n_jobs as a value."""
    import lightgbm as lgb

    seen = _spy_threads(monkeypatch)
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 3)), rng.integers(0, 2, 200)
    data = lgb.Dataset(X, y, group=[20] * 10, free_raw_data=False)
    if constructed:
        data.construct()
    lgb.train({"objective": br.lightgbm_objective("auc"), "verbose": -1, **params}, data, 2)
    assert seen == ({None} if constructed else expected)  # a constructed Dataset keeps its own parameters
    n_jobs = params.get("num_threads", params.get("n_jobs"))
    seen.clear()
    lgb.train({"objective": br.lightgbm_objective("auc", n_jobs=n_jobs), "verbose": -1}, data, 2)
    assert seen == expected
    seen.clear()
    lgb.LGBMRanker(objective=br.lightgbm_objective("auc", **({} if n_jobs is None else {"n_jobs": n_jobs})),
                   n_estimators=2, verbose=-1).fit(X, y, group=[20] * 10)
    assert seen == expected
    for engine, want in (("lightgbm", expected), ("xgboost", {1})):
        seen.clear()
        br.LambdaRanker(engine=engine, n_estimators=2, n_jobs=n_jobs).fit(X, y, group=[20] * 10)
        assert seen == want


def _count_checks(monkeypatch):
    """Calls of the group validation (each data set's groups) and of the objective's and metrics' binds."""
    from boostrank import _validation
    from boostrank.objectives import eval_metric
    from boostrank.objectives import objective as objectives

    calls = {"groups": 0, "objective": 0, "metric": 0}

    def counted(owner, name, key):
        real = getattr(owner, name)

        def spy(*a, **k):
            calls[key] += 1
            return real(*a, **k)

        monkeypatch.setattr(owner, name, spy)

    real = _validation.group_offsets
    for module in ("_validation", "base", "ranker", "objectives.eval_metric", "objectives.objective", "dask", "metrics",
                   "engines.lightgbm", "engines.xgboost"):
        import importlib

        mod = importlib.import_module(f"boostrank.{module}")
        if hasattr(mod, "group_offsets"):
            def spy(n, *, _real=real, **k):
                given = k.get("offsets", k.get("qid"))
                if not (isinstance(given, _validation.GroupOffsets) and given.checked):
                    calls["groups"] += 1
                return _real(n, **k)

            monkeypatch.setattr(mod, "group_offsets", spy)
    monkeypatch.setattr(objectives, "_group_offsets", _validation.group_offsets)  # the spy
    counted(objectives.LambdaObjective, "bind", "objective")
    counted(eval_metric.EvalMetric, "bind", "metric")
    return calls


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
@pytest.mark.parametrize("with_eval", [False, True])
def test_a_fit_validates_each_data_sets_labels_and_groups_once(engine, with_eval, monkeypatch):
    """#60: y and each data set's groups are checked once per fit (never per round); the engine's callbacks
    close over what the fit bound."""
    data = br.datasets.make_letor(40, random_state=3)
    cut = int(np.searchsorted(data.qid, data.qid[len(data.qid) // 2]))
    calls = _count_checks(monkeypatch)
    fit = dict(eval_set=[(data.X[cut:], data.y[cut:])], eval_qid=[data.qid[cut:]]) if with_eval else {}
    ranker = br.LambdaRanker(engine=engine, n_estimators=6, eval_metric=["auc", "ndcg@5"], random_state=0)
    ranker.fit(data.X[:cut], data.y[:cut], qid=data.qid[:cut], **fit)
    assert calls == {"groups": 1 + with_eval, "objective": 1, "metric": 2 * with_eval}
    assert len(ranker.evals_result_.get("valid_0", {}).get("br_auc", [None] * 6)) == 6


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
@pytest.mark.parametrize("weighted", [False, True])
def test_the_fits_bound_labels_give_the_model_the_engines_own_labels_give(engine, weighted):
    """#44: the fit binds y as the engine holds it (float32) and the weights as the engine reads them, so the model
    is the one the engine's own callback form (which reads both back from the engine's data set) trains."""
    data = br.datasets.make_letor(40, random_state=3)
    sizes = np.bincount(np.unique(data.qid, return_inverse=True)[1])
    w = np.repeat(np.linspace(0.5, 2.0, sizes.size), sizes) if weighted else None
    fitted = br.LambdaRanker(engine=engine, n_estimators=5, random_state=0).fit(
        data.X, data.y, qid=data.qid, sample_weight=w)
    if engine == "lightgbm":
        import lightgbm as lgb

        ds = lgb.Dataset(data.X, data.y, group=sizes, weight=w, params={"feature_pre_filter": False})
        booster = lgb.train({"objective": br.lightgbm_objective("auc", random_state=0), "verbose": -1,
                             "learning_rate": 0.05, "metric": "None"}, ds, 5)
        again = booster.predict(data.X)
    else:
        import xgboost as xgb

        d = xgb.DMatrix(data.X, data.y)
        d.set_group(sizes)
        if weighted:
            d.set_weight(np.linspace(0.5, 2.0, sizes.size))
        booster = xgb.train({"tree_method": "hist", "eta": 0.05, "min_child_weight": 1e-3,
                             "disable_default_eval_metric": 1}, d, 5,
                            obj=br.xgboost_objective("auc", random_state=0))
        again = booster.predict(d, output_margin=True)
    np.testing.assert_allclose(again, fitted.predict(data.X), rtol=1e-6, atol=1e-7)


def test_lambda_ranker_with_a_nan_threshold_fails_before_training():
    X = np.random.default_rng(0).random((40, 2))
    with pytest.raises(ValueError, match="threshold"):
        br.LambdaRanker(threshold=float("nan"), n_estimators=2).fit(X, np.r_[np.zeros(20), np.ones(20)],
                                                                     group=[20, 20])


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


# ---------------------------------------------------------------- item 10: early stopping that cannot act
def test_early_stopping_without_a_validation_set_says_so():
    X, y, qid = small_lists(8, n_q=5)
    with pytest.warns(UserWarning, match="early_stopping_rounds=5 cannot act: 5 queries are too few"):
        model = br.LambdaRanker(n_estimators=6, early_stopping_rounds=5, min_child_samples=2).fit(X, y, qid=qid)
    assert model.n_estimators_ == 6


def test_an_unbounded_round_count_is_refused():
    X, y, qid = small_lists(8)
    with pytest.raises(ValueError, match=r"n_estimators=1000000000 is more rounds"):
        br.LambdaRanker(n_estimators=10**9, early_stopping_rounds=10).fit(X, y, qid=qid)


# ---------------------------------------------------------------- item 17: lambdarank's gain table
def test_lambdarank_with_grades_past_its_gain_table_says_what_to_do():
    X, _, qid = small_lists(12, n_q=2, size=20)
    y = np.r_[np.arange(20) * 2, np.zeros(20)]
    with pytest.raises(ValueError, match=r"labels reach 38 .* up to 30 .*label_gain"):
        br.LambdaRanker(objective="lambdarank").fit(X, y, qid=qid)
    model = br.LambdaRanker(objective="lambdarank", n_estimators=2, min_child_samples=2,
                            label_gain=list(range(39))).fit(X, y, qid=qid)
    assert model.booster_.num_trees() == 2


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_save_model_into_a_folder_or_nowhere_is_refused(tmp_path, engine):
    X, y, qid = small_lists(16)
    model = br.LambdaRanker(engine=engine, n_estimators=2, **({"min_child_samples": 2} if engine == "lightgbm"
                                                              else {})).fit(X, y, qid=qid)
    for path in (tmp_path, ""):
        with pytest.raises(ValueError, match="save_model needs a file path"):
            model.save_model(path)
    for suffix in (".json", ".ubj", ".txt"):  # #59: XGBoost's C++ raised a dmlc trace here
        with pytest.raises(ValueError, match=r"save_model: .*: folder .*missing does not exist"):
            model.save_model(tmp_path / "missing" / f"m{suffix}")


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_one_weight_per_query_on_either_engine(letor, engine):
    w = np.random.default_rng(1).uniform(0.2, 3.0, letor.n_queries)
    kw = dict(engine=engine, n_estimators=5, random_state=0)
    per_query = br.LambdaRanker(**kw).fit(letor.X, letor.y, qid=letor.qid, sample_weight=w)
    per_row = br.LambdaRanker(**kw).fit(letor.X, letor.y, qid=letor.qid, sample_weight=np.repeat(w, letor.group_sizes))
    unweighted = br.LambdaRanker(**kw).fit(letor.X, letor.y, qid=letor.qid)
    np.testing.assert_allclose(per_query.predict(letor.X), per_row.predict(letor.X), rtol=1e-6)
    assert not np.allclose(per_query.predict(letor.X), unweighted.predict(letor.X))
    with pytest.raises(ValueError, match="give one per row or one per query"):
        br.LambdaRanker(**kw).fit(letor.X, letor.y, qid=letor.qid, sample_weight=w[:-1])


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
@pytest.mark.parametrize("param", [{"lambdarank_truncation_level": 2}, {"label_gain": [0.0, 1.0, 30.0]},
                                   {"sigmoid": 3.0}, {"lambdarank_norm": False}])
def test_lightgbm_names_of_lambdarank_parameters_act_on_boostrank_ndcg(letor, engine, param):
    kw = dict(engine=engine, objective="ndcg", n_estimators=4, random_state=0)
    base = br.LambdaRanker(**kw).fit(letor.X, letor.y, qid=letor.qid).predict(letor.X)
    changed = br.LambdaRanker(**kw, **param).fit(letor.X, letor.y, qid=letor.qid).predict(letor.X)
    assert not np.allclose(base, changed)


@pytest.mark.parametrize("params, message", [
    ({"objective": "auc", "lambdarank_truncation_level": 3},
     "truncation_level=3 would change nothing: objective='auc' does not read it"),
    ({"objective": "mauc", "label_gain": [0, 1, 3]},
     r"label_gain=\[0, 1, 3\] would change nothing: objective='mauc' does not read it"),
    ({"objective": "auc", "lambdarank_pair_method": "mean"}, "only the engines' own ranking objectives"),
    ({"objective": "auc", "objective_seed": 3}, "only the engines' own ranking objectives"),
    ({"objective": "ndcg", "sigmoid": 2.0, "sigma": 3.0}, "sigmoid is LightGBM's name of sigma"),
    ({"objective": "lambdarank", "sigma": 2.0}, "LightGBM's lambdarank takes sigmoid"),
    ({"objective": "lambdarank", "threshold": 1.0}, "not of 'lambdarank'"),
    ({"objective": "mauc", "threshold": 1.0}, "threshold=1.0 would change nothing"),
    ({"objective": "ndcg", "link": "probit"}, "link='probit' would change nothing"),
    ({"n_estimators": 0}, "'n_estimators' parameter of LambdaRanker must be an int"),
    ({"n_estimators": 2.5}, "'n_estimators' parameter of LambdaRanker must be an int"),
    ({"learning_rate": -0.1}, "'learning_rate' parameter of LambdaRanker must be a float in the range \\(0.0, inf\\)"),
    ({"early_stopping_rounds": 0}, "'early_stopping_rounds' parameter of LambdaRanker must be an int in the range \\[1, inf\\) or None"),
    ({"validation_fraction": 1.5}, "'validation_fraction' parameter of LambdaRanker must be a float in the range \\(0.0, 1.0\\)"),
    ({"engine": "catboost"}, "'engine' parameter of LambdaRanker must be a str among"),
    ({"num_leafs": 7}, "unknown LightGBM parameter"),
])
def test_a_parameter_that_would_do_nothing_is_refused_in_fit(letor, params, message):
    with pytest.raises(ValueError, match=message):
        br.LambdaRanker(**params).fit(letor.X, letor.y, qid=letor.qid)


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_fitted_attributes_of_an_lgbmranker_user(letor, engine):
    d = letor
    train, valid = d.take_queries(slice(0, 28)), d.take_queries(slice(28, 40))
    r = br.LambdaRanker(engine=engine, n_estimators=300, learning_rate=0.3, early_stopping_rounds=3,
                        random_state=0).fit(train.X, train.y, qid=train.qid, eval_set=[(valid.X, valid.y)],
                                            eval_qid=[valid.qid])
    hist = r.evals_result_["valid_0"]["br_auc"]
    best = r.best_iteration_
    assert 1 <= best < len(hist) and hist[best - 1] == max(hist[:best + 3])
    assert r.best_score_ == {"valid_0": {"br_auc": hist[best - 1]}}
    # predict uses exactly best_iteration_ rounds on both engines
    assert br.auc(valid.y, r.predict(valid.X), valid.qid) == pytest.approx(hist[best - 1], abs=1e-6)
    assert r.n_estimators_ == (best if engine == "lightgbm" else len(hist))
    assert r.objective_ == "auc"
    imp = r.feature_importances_
    assert imp.shape == (d.n_features,) and imp.min() >= 0 and imp.sum() > 0
    if engine == "xgboost":
        assert imp.sum() == pytest.approx(1.0, rel=1e-5)
    plain = br.LambdaRanker(engine=engine, n_estimators=4).fit(train.X, train.y, qid=train.qid)
    assert plain.best_iteration_ is None and plain.n_estimators_ == 4 and plain.best_score_ == {}


def early_stopped(engine, tmp_path):
    train, valid = nonlinear_letor(60, 1), nonlinear_letor(30, 2)
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


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_unknown_engine_parameters_raise(engine):
    d = nonlinear_letor(5, 6)
    with pytest.raises(ValueError, match="num_leafs"):
        br.LambdaRanker(engine=engine, n_estimators=2, num_leafs=7).fit(d.X, d.y, qid=d.qid)


def frame(seed, n_queries=30):
    d = nonlinear_letor(n_queries, seed)
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


@pytest.mark.parametrize("name", ["LambdaRanker", "DaskLambdaRanker", "LambdaObjective", "lightgbm_objective",
                                  "xgboost_objective"])
def test_signature_defaults_are_the_parameter_table(name):
    """Every λ parameter an estimator or objective takes by name defaults to its entry in the one table, and the
    estimators check it by the table's constraints: the defaults cannot drift apart."""
    import inspect

    import boostrank.dask
    from boostrank.objectives.objective import ESTIMATOR_PARAMETERS, PARAMETERS

    obj = getattr(br, name, None) or getattr(boostrank.dask, name)
    signature = inspect.signature(obj)
    shared = [p for p in signature.parameters if p in PARAMETERS]
    if name in ("lightgbm_objective", "xgboost_objective"):  # the λ parameters pass through **kw untouched
        assert not [p for p in shared if p != "position"]
        assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in signature.parameters.values())
        return
    assert shared, name
    for p in shared:
        assert signature.parameters[p].default == PARAMETERS[p].default, (name, p)
    if inspect.isclass(obj) and hasattr(obj, "_parameter_constraints"):
        assert set(ESTIMATOR_PARAMETERS) <= set(shared)
        for p in ESTIMATOR_PARAMETERS:
            assert obj._parameter_constraints[p] is PARAMETERS[p].constraints, (name, p)


@pytest.mark.parametrize("name", ["LambdaRanker", "LambdaObjective"])
def test_the_lambda_parameters_are_documented_once_and_every_parameter_is_documented(name):
    import inspect

    from numpydoc.docscrape import NumpyDocString

    from boostrank.objectives.objective import LAMBDA_PARAMETERS_DOC

    cls = getattr(br, name)
    assert LAMBDA_PARAMETERS_DOC in cls.__doc__  # the one text, not a copy that can drift
    documented = {p.name for p in NumpyDocString(inspect.getdoc(cls))["Parameters"]}
    taken = {p.name for p in inspect.signature(cls).parameters.values() if p.kind is p.KEYWORD_ONLY
             or p.kind is p.POSITIONAL_OR_KEYWORD}
    assert taken <= documented, taken - documented
