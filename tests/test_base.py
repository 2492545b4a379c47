"""boostrank.base: the ranking contract every estimator keeps (keyword-only parameters, ranking data checked
once, groups said aloud, scikit-learn's checks and model selection with qid)."""

import warnings

import numpy as np
import pytest
import sklearn
from sklearn.model_selection import GridSearchCV, GroupKFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

import boostrank as br
from boostrank import OneListWarning

from .conftest import nonlinear_letor


@pytest.fixture(scope="module")
def letor():
    return br.datasets.make_letor(40, docs_per_query=(4, 20), random_state=3)


def _small(letor, n_queries=6):
    d = letor.take_queries(slice(0, n_queries))
    return d.X[:, :3], d.y, d.qid


ESTIMATORS = {
    "LambdaRanker": lambda: br.LambdaRanker(n_estimators=2, min_child_samples=2),
    "RankNCG": lambda: br.RankNCG(max_iter=5),
    "MIPRanker": lambda: br.MIPRanker(time_limit=5, algorithm="search"),
    "TopKReranker": lambda: br.TopKReranker(k=3, gate=0, l0=0.0, time_limit=5),
}


def _fit_kw(name, X):
    return {"base_scores": X[:, 0]} if name == "TopKReranker" else {}


def _scores(model, X, qid=None):
    if isinstance(model, br.TopKReranker):
        return model.predict(X, X[:, 0], qid=qid)
    return model.decision_function(X) if hasattr(model, "decision_function") else model.predict(X)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_a_positional_third_fit_argument_is_a_type_error(letor, name):
    """0.1 read it as qid, sample_weight or base_scores depending on the estimator."""
    X, y, qid = _small(letor)
    with pytest.raises(TypeError):
        ESTIMATORS[name]().fit(X, y, qid)
    with warnings.catch_warnings():
        warnings.simplefilter("error", OneListWarning)
        model = ESTIMATORS[name]().fit(X, y, qid=qid, **_fit_kw(name, X))
    same = ESTIMATORS[name]().fit(X, y, group=np.diff(br.metrics.group_offsets(len(y), qid=qid)), **_fit_kw(name, X))
    np.testing.assert_allclose(_scores(model, X), _scores(same, X))


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_init_parameters_are_keyword_only(name):
    """scikit-learn's convention, with no release behind that took them by position."""
    cls = getattr(br, name)
    first = {"LambdaRanker": ("xgboost", "engine"), "RankNCG": (0.5, "alpha"), "MIPRanker": ("auc_pi", "objective"),
             "TopKReranker": (7, "k")}[name]
    with pytest.raises(TypeError, match="positional"):
        cls(first[0])
    assert cls(**{first[1]: first[0]}).get_params()[first[1]] == first[0]


@pytest.mark.parametrize("name", ["LambdaRanker", "TopKReranker"])
def test_several_lists_without_groups_are_said_aloud(letor, name):
    X, y, qid = _small(letor)
    with pytest.warns(OneListWarning, match=f"{name}.fit got neither qid nor group, so its {len(y)} rows"):
        ESTIMATORS[name]().fit(X, y, **_fit_kw(name, X))
    with warnings.catch_warnings():  # one list on purpose: silent
        warnings.simplefilter("error", OneListWarning)
        ESTIMATORS[name]().fit(X, y, group=[len(y)], **_fit_kw(name, X))


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_a_fit_checks_its_ranking_data_once(letor, name, monkeypatch):
    """#60: every estimator builds one RankingData per fit (labels, groups, weights checked by one rule), and its
    stages take it without checking the groups again."""
    from boostrank import _validation, base

    built, checked = [], []
    real_build, real_groups = base.RankingEstimator._ranking_data, _validation.group_offsets

    def build(self, *a, **k):
        built.append(type(self).__name__)
        return real_build(self, *a, **k)

    def groups(n, **k):
        given = k.get("offsets", k.get("qid"))
        if not (isinstance(given, _validation.GroupOffsets) and given.checked):
            checked.append(n)
        return real_groups(n, **k)

    monkeypatch.setattr(base.RankingEstimator, "_ranking_data", build)
    for module in ("base", "_validation", "metrics", "rankncg", "rerank.estimator", "mip.estimator", "mip._data",
                   "rerank.crossfit"):
        import importlib

        mod = importlib.import_module(f"boostrank.{module}")
        if hasattr(mod, "group_offsets"):
            monkeypatch.setattr(mod, "group_offsets", groups)
    X, y, qid = _small(letor)
    ESTIMATORS[name]().fit(X, y, qid=qid, **_fit_kw(name, X))
    # the re-ranker's exact stage is a MIPRanker fitted on the top k of each list: lists cut from validated ones
    assert built.count(name) == 1 and set(built) <= {name, "MIPRanker"} and checked == [len(y)]


@pytest.mark.parametrize("name", ["RankNCG", "MIPRanker"])
def test_statistics_of_a_data_set_take_one_list_without_a_word(letor, name):
    """Raykar's WMW and Rudin & Wang's AUC are statistics of one data set: no groups is their setting."""
    X, y, _ = _small(letor)
    with warnings.catch_warnings():
        warnings.simplefilter("error", OneListWarning)
        ESTIMATORS[name]().fit(X, y)


def test_cross_val_score_without_routing_is_loud(letor):
    from sklearn.model_selection import GroupKFold, cross_val_score

    X, y, qid = letor.X, letor.y, letor.qid
    with pytest.warns(OneListWarning):
        cross_val_score(br.LambdaRanker(n_estimators=2), X, y, cv=GroupKFold(3), groups=qid)


#: checks a model cannot pass, and why (README: "check_estimator")
MIP_FAILS = {"check_sample_weight_equivalence_on_dense_data":
             "the optimal w of a rank statistic is a set; weights and repeated rows reach different members of it "
             "with the same statistic (test_integer_weights_are_repeated_rows_for_the_statistic)"}


TOPK_FAILS = {"check_methods_subset_invariance":
              "predict scores a row by its position in its re-ranked list: a subset is another list"}


#: per-query weights are XGBoost's ranking rule: these checks give per-row weights that vary within a query
XGBOOST_WEIGHT_CHECKS = {name: "XGBoost ranking weights are per query" for name in (
    "check_sample_weights_not_overwritten", "check_sample_weight_equivalence_on_dense_data",
    "check_sample_weight_equivalence_on_sparse_data")}


#: these checks fit labels 1 and 2 only: every row is relevant at threshold=0, which objective="auc" refuses
#: (#43 item 11: it trained a constant model); test_one_class_checks_pass_with_a_threshold runs them at 1.5
ONE_CLASS_CHECKS = {name: "labels 1 and 2 are one class at threshold=0" for name in (
    "check_estimators_dtypes", "check_sample_weights_not_an_array", "check_sample_weights_shape",
    "check_sample_weights_not_overwritten", "check_sample_weights_pandas_series", "check_sample_weights_list")}


#: every estimator as scikit-learn's check_estimator meets it, and the checks it is known to fail
CHECKED = {
    "LambdaRanker[lightgbm]": (lambda: br.LambdaRanker(n_estimators=3), ONE_CLASS_CHECKS),
    "LambdaRanker[xgboost]": (lambda: br.LambdaRanker(engine="xgboost", n_estimators=3),
                              {**XGBOOST_WEIGHT_CHECKS, **ONE_CLASS_CHECKS}),
    "RankNCG": (lambda: br.RankNCG(max_iter=20), {}),
    "MIPRanker": (lambda: br.MIPRanker(time_limit=2), MIP_FAILS),
    "TopKReranker": (lambda: br.TopKReranker(k=3, gate=0, l0=0.0, time_limit=2, base_estimator=br.RankNCG(max_iter=5)),
                     TOPK_FAILS),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CHECKED))
def test_every_estimator_passes_check_estimator(name):
    from sklearn.utils import estimator_checks
    from sklearn.utils.estimator_checks import check_estimator

    make, expected = CHECKED[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(make(), on_fail=None, expected_failed_checks=expected)
    failed = {r["check_name"]: str(r["exception"])[:200] for r in results if r["status"] == "failed"}
    assert not failed, failed
    assert len(results) >= 40
    estimator_checks.check_param_validation(type(make()).__name__, make())  # every declared constraint is the one fit applies


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_one_class_checks_pass_with_a_threshold(engine):
    from sklearn.utils import estimator_checks

    est = br.LambdaRanker(engine=engine, n_estimators=3, threshold=1.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in ONE_CLASS_CHECKS:
            if engine == "xgboost" and name in XGBOOST_WEIGHT_CHECKS:
                continue
            getattr(estimator_checks, name)("LambdaRanker", est)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_the_ranking_contract(letor, name):
    """fit / predict / score with query groups, one fitted check, declared parameters, one vocabulary."""
    import inspect

    from sklearn.base import clone
    from sklearn.exceptions import NotFittedError
    from sklearn.utils._param_validation import InvalidParameterError

    X, y, qid = _small(letor)
    model = ESTIMATORS[name]()
    params = model.get_params()
    assert isinstance(model, br.base.RankingEstimator)
    assert "verbose" in params and params.get("random_state") is None  # RankNCG draws nothing at random
    assert ("objective" in params) == (name != "RankNCG")  # RankNCG has one target: the WMW bound
    named = {p.name for p in inspect.signature(type(model).__init__).parameters.values()
             if p.kind is p.KEYWORD_ONLY or p.kind is p.POSITIONAL_OR_KEYWORD} - {"self"}
    assert named <= set(type(model)._parameter_constraints)
    assert clone(model).get_params() == params
    fit_kw = _fit_kw(name, X)
    with pytest.raises(NotFittedError):
        model.score(X, y, qid=qid, **fit_kw)
    with pytest.raises(InvalidParameterError, match=f"'verbose' parameter of {name} must be"):
        clone(model).set_params(verbose="loud").fit(X, y, qid=qid, **fit_kw)
    weighted = "sample_weight" in inspect.signature(type(model).fit).parameters
    assert weighted == (name in ("LambdaRanker", "MIPRanker"))
    if not weighted:  # refused explicitly, not dropped
        with pytest.raises(TypeError, match="sample_weight"):
            clone(model).fit(X, y, qid=qid, sample_weight=np.ones(len(y)), **fit_kw)
    fitted = model.fit(X, y, qid=qid, **fit_kw)
    assert fitted is model
    scores = _scores(model, X, qid)
    assert scores.shape == (len(y),) and np.isfinite(scores).all()
    own = model.score(X, y, qid=qid, **fit_kw)
    assert np.isfinite(own) and (0.0 <= own <= 1.0 or params.get("objective") == "rank_risk")
    assert model.score(X, y, qid=qid, metric="ndcg@5", **fit_kw) == pytest.approx(
        br.ndcg(y, scores, qid, k=5), abs=1e-12)
    with pytest.raises(ValueError, match=f"score needs qid \\(or group\\).*\\({name}\\)"):
        model.score(X, y, **fit_kw)
    again = clone(model).fit(X, y, qid=qid, **fit_kw)  # random_state=None is one fixed seed
    np.testing.assert_allclose(_scores(again, X, qid), scores)


def test_integer_weights_are_repeated_rows_for_the_statistic():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] + rng.normal(size=40) > 0).astype(int)
    w = rng.integers(1, 4, size=40)
    # a fresh Numba cache compiles the branch and bound inside the first fit's budget: room for it
    weighted = br.MIPRanker(time_limit=60).fit(X, y, sample_weight=w)
    repeated = br.MIPRanker(time_limit=60).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    assert weighted.result_.status == repeated.result_.status == "optimal"
    assert weighted.result_.statistic == pytest.approx(repeated.result_.statistic, abs=1e-12)
    assert br.auc(np.repeat(y, w), np.repeat(weighted.decision_function(X), w), ties="pessimistic") == \
        pytest.approx(repeated.result_.statistic, abs=1e-12)


@pytest.mark.parametrize("cls, old", [(br.MIPRanker, o) for o in ("eps", "threads", "method", "warm_start",
                                                                       "statistic")]
                         + [(br.TopKReranker, o) for o in ("eps", "threads", "warm_start", "statistic", "progress")]
                         + [(br.RankNCG, "gradient")])
def test_no_old_parameter_name_is_taken(cls, old):
    with pytest.raises(TypeError, match=f"unexpected keyword argument '{old}'"):
        cls(**{old: None})
    assert old not in cls().get_params()


def test_one_method_vocabulary_and_one_default_solver():
    import inspect

    from boostrank.mip.solvers import solve

    y, z = np.linspace(-1, 1, 7), np.linspace(-2, 2, 5)
    with pytest.raises(ValueError, match="method must be 'fast' or 'exact'"):
        br.erfc_sum(y, z, method="direct")
    assert inspect.signature(solve).parameters["solver"].default == br.MIPRanker().solver == "highs"
    for estimator in (br.MIPRanker(), br.TopKReranker()):
        assert estimator.gain == "auto" and estimator.n_jobs is None and not hasattr(estimator, "threads_")



def test_grid_search_with_a_query_scorer_on_any_supported_sklearn():
    d = nonlinear_letor(30, 4)
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


SKLEARN_ROUTES_SCORE = tuple(int(v) for v in sklearn.__version__.split(".")[:2]) >= (1, 8)


@pytest.mark.skipif(not SKLEARN_ROUTES_SCORE, reason="Pipeline.score routes qid to the step's score from sklearn 1.8")
def test_grid_search_with_group_kfold_in_a_pipeline():
    d = nonlinear_letor(30, 4)
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
    d = nonlinear_letor(10, 5)
    r = br.LambdaRanker(n_estimators=3, min_data_in_leaf=2).fit(d.X, d.y, qid=d.qid)
    with pytest.raises(ValueError, match="score needs qid"):
        r.score(d.X, d.y)
    assert r.score(d.X, d.y, qid=d.qid) == pytest.approx(br.auc(d.y, r.predict(d.X), d.qid))
    nd = br.LambdaRanker(objective="lambdarank", n_estimators=3, min_data_in_leaf=2).fit(d.X, d.y, qid=d.qid)
    assert nd.score(d.X, d.y, qid=d.qid) == pytest.approx(br.ndcg(d.y, nd.predict(d.X), d.qid, k=10))
