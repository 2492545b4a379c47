"""Hardening round 4 (#43): each test failed on the main before it and checks a result or an error."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import boostrank as br
from boostrank.export import vespa_feature
from boostrank.mip import processes

# ---------------------------------------------------------------- item 1: Vespa names cannot escape

#: Vespa rank-feature names as the grammar reads them (an independent regex, one nesting level)
_ARG = r"(?:[A-Za-z_][A-Za-z0-9_]*(?:\([A-Za-z0-9_, ]*\))?(?:\.[A-Za-z0-9_]+)*|-?[0-9]+(?:\.[0-9]+)?)"
_FEATURE = re.compile(rf"[A-Za-z_][A-Za-z0-9_]*(?:\((?:{_ARG}(?:, *{_ARG})*)?\))?(?:\.[A-Za-z0-9_]+)*")


@pytest.fixture(scope="module")
def linear():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    return br.RankNCG().fit(X, X[:, 0] + rng.normal(size=60) > 0)


@pytest.mark.parametrize("name", [
    ")\n }\n}\nrank-profile evil inherits default {\n first-phase {\n expression: attribute(x",
    "(", "x) + 1000 * attribute(y", "attribute(a-b)", "bm25(title))", "bm25(title", "a.b", "a-b", "f(x)+1",
    "f(x) ", "f(\"x\")", "f(x)\n", "f(x).", "f(x)..y", "f(,)", "f(x,)", "{", "", "é(x)",
    "a(b(c(d(e(f(g))))))",
])
def test_vespa_refuses_names_that_are_not_one_rank_feature(linear, name):
    with pytest.raises((ValueError, TypeError), match="feature name"):
        br.export_linear(linear, "vespa", feature_names=[name, "ok"])


@pytest.mark.parametrize("name, ref", [
    ("price", "attribute(price)"), ("bm25(title)", "bm25(title)"),
    ("fieldMatch(title).completeness", "fieldMatch(title).completeness"),
    ("nativeRank(title, body)", "nativeRank(title, body)"), ("term(0).significance", "term(0).significance"),
    ("tensorFromLabels(attribute(tags))", "tensorFromLabels(attribute(tags))"), ("now()", "now()"),
])
def test_vespa_takes_well_formed_rank_features(linear, name, ref):
    text = br.export_linear(linear, "vespa", feature_names=[name, "other"])
    assert f"* {ref} + " in text and "* attribute(other)" in text
    assert vespa_feature(name) == ref


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(min_codepoint=32, max_codepoint=0x2FFF), min_size=0, max_size=30))
def test_vespa_profile_keeps_its_shape_for_any_printable_name(name):
    """Fuzz (item 1): a name is refused, or the profile is one profile with one expression of two terms."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    model = _FUZZ_MODEL.get("m") or _FUZZ_MODEL.setdefault("m", br.RankNCG().fit(X, X[:, 0] > 0))
    try:
        text = br.export_linear(model, "vespa", feature_names=[name, "other"])
    except (ValueError, TypeError) as exc:
        assert "feature name" in str(exc)
        assert not (_FEATURE.fullmatch(name) and ("(" in name or re.fullmatch(r"[A-Za-z_]\w*", name, re.ASCII)))
        return
    assert text.count("rank-profile") == 1 and text.count("{") == text.count("}") == 2
    expression = re.search(r"expression: (.*)", text).group(1)
    terms = expression.split(" + ")
    assert len(terms) == 2 and terms[1].endswith("* attribute(other)")
    ref = terms[0].split(" * ", 1)[1]
    assert _FEATURE.fullmatch(ref) and ref.count("(") == ref.count(")")


_FUZZ_MODEL: dict = {}


# ---------------------------------------------------------------- items 13, 20: names are strings
@pytest.mark.parametrize("names", [[1, "1"], [None, "a"], [float("nan"), "a"], ["", "a"], [b"a", "b"]])
@pytest.mark.parametrize("fmt", ["elasticsearch-ltr", "vespa"])
def test_feature_names_must_be_strings(linear, names, fmt):
    with pytest.raises(TypeError, match="feature names must be non-empty strings"):
        br.export_linear(linear, fmt, feature_names=names)


def test_a_single_string_is_not_a_list_of_names(linear):
    with pytest.raises(TypeError, match="single string 'ab'"):
        br.export_linear(linear, feature_names="ab")


# ---------------------------------------------------------------- item 3: CBC folders of live fits stay
def _cbc_folder(tmp_path, name):
    path = tmp_path / f"boostrank_cbc_{name}"
    path.mkdir()
    return path


def test_a_live_fit_in_another_pid_namespace_keeps_its_folder(tmp_path):
    """The owner's pid does not exist here, but its process holds the lock: the folder is live."""
    import subprocess
    import sys
    import textwrap

    path = _cbc_folder(tmp_path, "live")
    (path / "model.mps").write_text("x")
    script = textwrap.dedent(f"""
        import fcntl, os, sys
        fd = os.open({str(path / "owner")!r}, os.O_WRONLY | os.O_CREAT)
        os.write(fd, b"999999999")  # a pid of another namespace
        fcntl.flock(fd, fcntl.LOCK_EX)
        print("locked", flush=True)
        sys.stdin.readline()
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "locked"
        from boostrank.mip import solvers
        assert solvers.clean_stale_cbc_folders(str(tmp_path)) == []
        assert (path / "model.mps").exists()
    finally:
        proc.stdin.close()
        proc.wait()
    assert solvers.clean_stale_cbc_folders(str(tmp_path)) == [str(path)]  # its process ended: stale


@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "folder"])
def test_an_owner_that_is_not_a_regular_file_neither_blocks_nor_is_read(tmp_path, kind):
    import os
    import threading

    from boostrank.mip import solvers

    path = _cbc_folder(tmp_path, kind)
    owner = path / "owner"
    if kind == "fifo":
        os.mkfifo(owner)
    elif kind == "dev_zero":
        owner.symlink_to("/dev/zero")
    else:
        owner.mkdir()
    out = {}
    thread = threading.Thread(target=lambda: out.setdefault("removed", solvers.clean_stale_cbc_folders(str(tmp_path))),
                              daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), "the cleaner blocked on the owner file"
    assert out["removed"] == [] and path.exists()


def test_a_cbc_fit_holds_the_lock_on_its_folder_while_it_runs(tmp_path, monkeypatch):
    import os

    from boostrank.mip import build_problem, solve, solvers

    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    seen = {}
    real = solvers.write_mps

    def spy(model, path):
        real(model, path)
        folder = os.path.dirname(path)
        seen["lock"] = processes.owner_lock(os.path.join(folder, "owner"))
        seen["cleaned"] = solvers.clean_stale_cbc_folders(str(tmp_path))

    monkeypatch.setattr(solvers, "write_mps", spy)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 2))
    res = solve(build_problem(X / 4, (X[:, 0] > 0).astype(float)), "cbc")
    assert seen == {"lock": None, "cleaned": []} and res.status == "optimal"
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- item 2: certificates that are true
def _gap_case():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    return X, y


@pytest.mark.slow
@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_stopping_within_a_gap_is_not_called_optimal(solver):
    """mip_gap=0.5 made both solvers stop at once and say optimal, with bound = objective."""
    from boostrank.mip import build_problem, solve

    X, y = _gap_case()
    res = solve(build_problem(X / np.abs(X).sum(1).max(), y.astype(float), eps=1e-4), solver, mip_gap=0.5,
                time_limit=30)
    assert res.status == "feasible"
    assert res.bound is not None and res.bound < res.objective - 1  # the solver's real (minimised) bound


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), gap=st.sampled_from([None, 1e-6, 0.01, 0.1, 0.3, 0.9]),
       limit=st.sampled_from([0.05, 0.5, 5.0]), solver=st.sampled_from(["highs", "cbc"]))
def test_optimal_means_the_brute_force_optimum_for_any_gap_and_time_limit(seed, gap, limit, solver):
    """Property (item 2): "optimal" is the brute-force optimum, and a bound is never below it."""
    import warnings

    from .reference import candidate_directions

    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 14))
    X = rng.integers(0, 4, size=(n, 2)).astype(float)
    y = rng.integers(0, 2, size=n)
    y[0], y[1] = 1, 0
    best = max(br.auc(y, X @ w, ties="pessimistic") for w in candidate_directions(X))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = br.MIPRanker(objective="auc", algorithm="mip", solver=solver, mip_gap=gap, time_limit=limit,
                           init=None).fit(X, y).result_
    assert res.statistic <= best + 1e-9
    if res.status == "optimal":
        assert res.statistic == pytest.approx(best, abs=1e-9)
    if res.bound is not None:
        assert res.bound >= best - 1e-9
        assert res.gap == pytest.approx(max(0.0, (res.bound - res.statistic) / max(res.statistic, res.bound)),
                                        abs=1e-9) or res.gap >= 0


@pytest.mark.slow
def test_a_mip_ranker_with_a_large_gap_reports_the_true_bound():
    """The issue's case: status=optimal, bound=objective, gap=0 while a better w exists."""
    X, y = _gap_case()
    res = br.MIPRanker(objective="auc", algorithm="mip", mip_gap=0.5, time_limit=20).fit(X, y).result_
    full = br.MIPRanker(objective="auc", time_limit=20).fit(X, y).result_
    if res.statistic < full.statistic - 1e-9:
        assert res.status == "feasible" and res.gap > 0
    assert res.bound is None or res.bound >= full.statistic - 1e-9


def test_a_pulp_solver_object_keeps_its_own_options_and_gap_is_not_optimal():
    """Item 8: copy.copy shared optionsDict, so mip_gap leaked into the caller's object."""
    pulp = pytest.importorskip("pulp")
    solver = pulp.HiGHS(msg=False) if pulp.HiGHS().available() else pulp.PULP_CBC_CMD(msg=False)
    before = dict(solver.optionsDict)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(14, 2))
    y = (X[:, 0] + rng.normal(size=14) > 0).astype(int)
    res = br.MIPRanker(objective="auc", algorithm="mip", solver=solver, mip_gap=0.9, time_limit=5).fit(X, y)
    assert solver.optionsDict == before
    assert res.result_.solver_status in ("feasible", "optimal")
    assert res.result_.solver_status == "feasible" or res.result_.status == "optimal"


# ---------------------------------------------------------------- item 4: one list said aloud at predict
def _lists(seed=0, n_q=8, size=12, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_q * size, d))
    y = (X[:, 0] + rng.normal(size=n_q * size) > 0.5).astype(int)
    return X, y, np.repeat(np.arange(n_q), size)


def test_top_k_reranker_predict_without_qid_warns_as_fit_does():
    X, y, qid = _lists()
    base = X[:, 1]
    rr = br.TopKReranker(k=3, time_limit=5, gate=0).fit(X, y, qid=qid, base_scores=base)
    with pytest.warns(br.OneListWarning, match=r"TopKReranker.predict got neither qid nor group.*fitted on 8 lists"):
        one = rr.predict(X, base)
    with pytest.warns(br.OneListWarning, match="TopKReranker.rerank"):
        order = rr.rerank(X, base)
    assert sorted(order.tolist()) == list(range(len(y)))
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", br.OneListWarning)
        per_list = rr.predict(X, base, qid=qid)
        rr.predict(X, base, group=[len(y)])  # one list, said explicitly
    assert not np.array_equal(one, per_list)  # the list structure changes the answer


def test_rankncg_score_without_qid_is_refused_when_fitted_on_lists():
    """One contract (#44): every estimator's score refuses to pool the lists of a model fitted on several (RankNCG
    warned and pooled them), and with one list given as such scores it as one."""
    X, y, qid = _lists(1)
    model = br.RankNCG().fit(X, y, qid=qid)
    with pytest.raises(ValueError, match=r"score needs qid .*\(RankNCG\)"):
        model.score(X, y)
    pooled = model.score(X, y, group=[len(y)])
    assert pooled != pytest.approx(model.score(X, y, qid=qid))


# ---------------------------------------------------------------- item 5: loaded models remember
@pytest.mark.parametrize("engine, suffix", [("lightgbm", ".txt"), ("xgboost", ".json"), ("xgboost", ".txt"),
                                            ("xgboost", ".ubj")])
def test_a_loaded_model_keeps_what_it_was_trained_with(tmp_path, engine, suffix):
    X, y, qid = _lists(2)
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

    X, y, qid = _lists(3)
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
    X, y, qid = _lists(4)
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
    X, y, qid = _lists(5)
    booster = xgb.train({"objective": "rank:pairwise", "nthread": 1}, xgb.DMatrix(X, y, group=np.bincount(qid)), 4)
    path = tmp_path / f"m{suffix}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        booster.save_model(str(path))
    assert path.read_bytes()[:2] == b"{L"  # UBJSON, not JSON
    loaded = br.load_model(path)
    np.testing.assert_allclose(loaded.predict(X), booster.predict(xgb.DMatrix(X)), rtol=1e-6)


def test_damaged_ubjson_is_refused_with_the_file_name(tmp_path):
    import warnings

    xgb = pytest.importorskip("xgboost")
    X, y, qid = _lists(6)
    booster = xgb.train({"objective": "rank:pairwise", "nthread": 1}, xgb.DMatrix(X, y, group=np.bincount(qid)), 2)
    path = tmp_path / "m.ubj"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        booster.save_model(str(path))
    raw = path.read_bytes()
    for k, cut in enumerate([raw[: len(raw) // 2], raw[:40] + b"\xff" * 8 + raw[48:], raw + b"junk"]):
        bad = tmp_path / f"bad{k}.ubj"
        bad.write_bytes(cut)
        with pytest.raises(ValueError, match=rf"bad{k}\.ubj: damaged XGBoost model file"):
            br.load_model(bad)


def test_read_ubjson_equals_the_json_document(tmp_path):
    import json
    import warnings

    from boostrank.engines.model_files import read_ubjson

    xgb = pytest.importorskip("xgboost")
    X, y, qid = _lists(7)
    booster = xgb.train({"objective": "rank:ndcg", "nthread": 1}, xgb.DMatrix(X, y, group=np.bincount(qid)), 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        booster.save_model(str(tmp_path / "m.ubj"))
        booster.save_model(str(tmp_path / "m.json"))

    def f32(doc):  # UBJSON keeps float32 where JSON prints decimals
        if isinstance(doc, dict):
            return {k: f32(v) for k, v in doc.items()}
        if isinstance(doc, list):
            return [f32(v) for v in doc]
        return float(np.float32(doc)) if isinstance(doc, float) else doc

    assert f32(read_ubjson((tmp_path / "m.ubj").read_bytes())) == f32(json.loads((tmp_path / "m.json").read_text()))
    assert read_ubjson(b"[$i#i\x03\x01\x02\x03") == [1, 2, 3]
    assert read_ubjson(b"{i\x01aSi\x02hii\x01bZ}") == {"a": "hi", "b": None}
    assert read_ubjson(b"[TFD?\xf0\x00\x00\x00\x00\x00\x00]") == [True, False, 1.0]


# ---------------------------------------------------------------- item 6: grades past 2**53
@pytest.mark.parametrize("y", [np.array([2**53 + 1, 2**53 + 2, 0]), [2**53 + 1, 2**53 + 2, 0], [2**70, 0, 1],
                               np.array([2.0**60, 0.0, 1.0])])
def test_mauc_refuses_grades_that_float64_would_merge(y):
    """0.5917 against 0.5166 for the same order: classes above 2**53 were merged."""
    with pytest.raises(ValueError, match=r"up to 2\*\*53"):
        br.mauc(y, [0.3, 0.2, 0.1])
    with pytest.raises(ValueError, match=r"up to 2\*\*53"):
        br.lambda_gradients([0.3, 0.2, 0.1], y, metric="mauc")


# ---------------------------------------------------------------- item 10: early stopping that cannot act
def test_early_stopping_without_a_validation_set_says_so():
    X, y, qid = _lists(8, n_q=5)
    with pytest.warns(UserWarning, match="early_stopping_rounds=5 cannot act: 5 queries are too few"):
        model = br.LambdaRanker(n_estimators=6, early_stopping_rounds=5, min_child_samples=2).fit(X, y, qid=qid)
    assert model.n_estimators_ == 6


def test_an_unbounded_round_count_is_refused():
    X, y, qid = _lists(8)
    with pytest.raises(ValueError, match=r"n_estimators=1000000000 is more rounds"):
        br.LambdaRanker(n_estimators=10**9, early_stopping_rounds=10).fit(X, y, qid=qid)


# ---------------------------------------------------------------- item 11: nothing to learn at the threshold
@pytest.mark.parametrize("metric, y, match", [
    ("auc", [1, 2, 3, 1, 2, 3], "every query has one class at threshold=0"),
    ("auc", [0, 0, 0, 0, 0, 0], "one class at threshold=0"),
    ("mauc", [2, 2, 2, 1, 1, 1], "every query has one class"),
])
def test_labels_with_nothing_to_rank_are_refused(metric, y, match):
    X = np.random.default_rng(0).normal(size=(6, 2))
    with pytest.raises(ValueError, match=match):
        br.LambdaRanker(objective=metric, n_estimators=2).fit(X, y, group=[3, 3])
    with pytest.raises(ValueError, match=match):
        br.lambda_gradients(np.zeros(6), y, [0, 3, 6], metric=metric)


def test_a_threshold_between_the_grades_trains():
    g, _ = br.lambda_gradients(np.zeros(6), [1, 2, 3, 1, 2, 3], [0, 3, 6], metric="auc", threshold=1.5)
    assert (g[[1, 2, 4, 5]] < 0).all() and (g[[0, 3]] > 0).all()


# ---------------------------------------------------------------- item 9: write_model whole or as it was
@pytest.mark.parametrize("suffix", [".lp", ".mps"])
def test_write_model_is_atomic_and_reads_back(tmp_path, suffix, monkeypatch):
    highspy = pytest.importorskip("highspy")
    from boostrank.mip import solvers

    X, y, _ = _lists(9, n_q=1, size=12)
    path = tmp_path / f"model{suffix}"
    model = br.MIPRanker(objective="auc")
    model.write_model(path, X, y)
    good = path.read_bytes()
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", 30.0)
    h.readModel(str(path))
    h.run()
    assert h.getNumCol() > X.shape[1] and h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    best = br.MIPRanker(objective="auc").fit(X, y).result_.statistic
    assert br.auc(y, X @ (np.asarray(h.getSolution().col_value[:X.shape[1]]) / np.abs(X).max(0)),
                  ties="pessimistic") == pytest.approx(best)

    real = solvers._lp_lines if suffix == ".lp" else solvers._mps_lines

    def dies(m):  # a SIGTERM mid-write, as an exception half-way through the lines
        for k, line in enumerate(real(m)):
            if k == 50:
                raise KeyboardInterrupt
            yield line

    monkeypatch.setattr(solvers, "_lp_lines" if suffix == ".lp" else "_mps_lines", dies)
    with pytest.raises(KeyboardInterrupt):
        model.write_model(path, X, y)
    assert path.read_bytes() == good
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


@pytest.mark.slow
def test_lp_and_mps_files_give_the_same_optimum():
    highspy = pytest.importorskip("highspy")
    import tempfile

    X, y, _ = _lists(10, n_q=1, size=24, d=2)
    values = []
    with tempfile.TemporaryDirectory() as tmp:
        for suffix in (".lp", ".mps"):
            path = f"{tmp}/m{suffix}"
            br.MIPRanker(objective="auc").write_model(path, X, y)
            h = highspy.Highs()
            h.setOptionValue("output_flag", False)
            h.readModel(path)
            h.run()
            values.append(h.getInfo().objective_function_value)
    assert values[0] == pytest.approx(values[1])


# ---------------------------------------------------------------- item 16: damaged RankNCG files are named
@pytest.mark.parametrize("damage", [b"\xff\xfe", b"{\"boostrank_model\": ", b"[" * 100000])
def test_a_damaged_rankncg_file_names_the_file(tmp_path, damage):
    X, y, qid = _lists(11)
    path = tmp_path / "ncg.json"
    br.RankNCG().fit(X, y, qid=qid).save_model(path)
    raw = path.read_bytes()
    path.write_bytes(damage + raw[len(damage):] if damage != b"[" * 100000 else damage)
    with pytest.raises(ValueError, match=r"ncg\.json: (damaged (RankNCG|boostrank) model file|not a)"):
        br.load_model(path) if damage != b"\xff\xfe" else br.RankNCG.load_model(path)


# ---------------------------------------------------------------- item 17: lambdarank's gain table
def test_lambdarank_with_grades_past_its_gain_table_says_what_to_do():
    X, _, qid = _lists(12, n_q=2, size=20)
    y = np.r_[np.arange(20) * 2, np.zeros(20)]
    with pytest.raises(ValueError, match=r"labels reach 38 .* up to 30 .*label_gain"):
        br.LambdaRanker(objective="lambdarank").fit(X, y, qid=qid)
    model = br.LambdaRanker(objective="lambdarank", n_estimators=2, min_child_samples=2,
                            label_gain=list(range(39))).fit(X, y, qid=qid)
    assert model.booster_.num_trees() == 2


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


# ---------------------------------------------------------------- item 21: precision's convention, ties
def test_precision_takes_a_convention_and_ties_without_docids_warn():
    from boostrank.metrics import TieWarning

    y = np.array([1, 0, 0, 1, 1, 0])
    s = np.array([0.5, 0.5, 0.2, 0.9, 0.1, 0.1])
    qid = np.repeat([1, 2], 3)
    with pytest.warns(TieWarning, match="2 score ties within lists and no docid="):
        trec = br.precision(y, s, qid, k=1, convention="trec")
    docs = np.array(["d1", "d9", "d2", "d3", "d4", "d5"])
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", TieWarning)
        assert br.precision(y, s, qid, k=1, convention="lightgbm") == trec == 1.0
        # trec_eval breaks the 0.5 tie by docid descending: d9 (irrelevant) first
        assert br.precision(y, s, qid, k=1, docid=docs) == 0.5
        assert br.ndcg(y, s, qid, k=1, convention="trec", docid=docs) == 0.5
    with pytest.warns(TieWarning):
        br.ndcg(y, s, qid, k=1, convention="trec")
    with pytest.raises(ValueError, match="convention"):
        br.precision(y, s, qid, convention="ranx")


# ---------------------------------------------------------------- item 14: the engines' raw errors
def test_features_beyond_float32_are_named_for_xgboost():
    pytest.importorskip("xgboost")
    X, y, qid = _lists(14)
    X[3, 1] = 1e300
    with pytest.raises(ValueError, match=r"1e\+300 .* beyond float32's range"):
        br.LambdaRanker(engine="xgboost", n_estimators=2).fit(X, y, qid=qid)


def test_rankncg_refuses_features_whose_squares_overflow():
    X, y, qid = _lists(15)
    with pytest.raises(ValueError, match="RankNCG squares them"):
        br.RankNCG().fit(X * 1e155, y, qid=qid)
    assert np.abs(br.RankNCG().fit(X * 1e100, y, qid=qid).coef_).max() > 0


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_save_model_into_a_folder_or_nowhere_is_refused(tmp_path, engine):
    X, y, qid = _lists(16)
    model = br.LambdaRanker(engine=engine, n_estimators=2, **({"min_child_samples": 2} if engine == "lightgbm"
                                                              else {})).fit(X, y, qid=qid)
    for path in (tmp_path, ""):
        with pytest.raises(ValueError, match="save_model needs a file path"):
            model.save_model(path)
    for suffix in (".json", ".ubj", ".txt"):  # #59: XGBoost's C++ raised a dmlc trace here
        with pytest.raises(ValueError, match=r"save_model: .*: folder .*missing does not exist"):
            model.save_model(tmp_path / "missing" / f"m{suffix}")


def test_a_pulp_solver_object_gets_threads_and_the_start_in_its_options(monkeypatch):
    """Item 8: PuLP 3 reads threads and warmStart from optionsDict; they were set as ignored attributes."""
    pulp = pytest.importorskip("pulp")
    from boostrank.mip import build_problem, solve

    solver = pulp.PULP_CBC_CMD(msg=False) if hasattr(pulp, "PULP_CBC_CMD") else pulp.COIN_CMD(msg=False)
    seen = {}
    real = pulp.LpProblem.solve

    def spy(problem, s=None, **kw):
        seen["options"] = dict(s.optionsDict)
        seen["start"] = [v.varValue for v in problem.variables()[:3]]
        return real(problem, s, **kw)

    monkeypatch.setattr(pulp.LpProblem, "solve", spy)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(10, 2))
    model = build_problem(X / 4, (X[:, 0] > 0).astype(float))
    start = np.zeros(model.c.shape[0])
    start[0] = 0.25
    res = solve(model, solver, threads=2, start=start, time_limit=20)
    assert seen["options"]["threads"] == 2 and seen["options"]["warmStart"] is True
    assert 0.25 in seen["start"]
    assert "threads" not in solver.optionsDict and solver.optionsDict.get("warmStart") is False
    assert res.status == "optimal"


# ---------------------------------------------------------------- item 15: the cross-fit keeps to the budget
class _SlowRanker:
    fits = 0

    def __init__(self, pause=0.3):
        self.pause = pause

    def get_params(self, deep=True):
        return {"pause": self.pause}

    def set_params(self, **kw):
        self.pause = kw.get("pause", self.pause)
        return self

    def fit(self, X, y, qid=None):
        import time

        type(self).fits += 1
        time.sleep(self.pause)
        return self

    def predict(self, X):
        return np.asarray(X)[:, 0]


def test_cross_fit_stops_as_soon_as_its_projection_passes_the_time_limit():
    from boostrank.rerank import cross_fit_scores

    X, y, qid = _lists(17, n_q=10)
    _SlowRanker.fits = 0
    with pytest.raises(TimeoutError, match=r"1 of 5 folds took .* all 5 would take about"):
        cross_fit_scores(_SlowRanker(0.3), X, y, qid, cv=5, time_limit=0.6)
    assert _SlowRanker.fits == 1  # not all five: the command learns it after one fold
    scores, _ = cross_fit_scores(_SlowRanker(0.0), X, y, qid, cv=5, time_limit=60)
    np.testing.assert_array_equal(scores, X[:, 0])


def test_a_rerank_result_says_whether_the_same_seed_repeats_it():
    from boostrank.rerank import RerankResult

    X, y, qid = _lists(18, n_q=10, size=12)
    base = X[:, 1]
    kw = dict(k=3, time_limit=None, max_nodes=5, random_state=1)
    fits = [br.TopKReranker(**kw).fit(X, y, qid=qid, base_scores=base) for _ in range(2)]
    assert fits[0].result_.repeatable[0] and not fits[0].result_.gate_time_limited
    assert fits[0].result_.heldout_gain == fits[1].result_.heldout_gain
    np.testing.assert_array_equal(fits[0].coef_, fits[1].coef_)
    final = type("M", (), {"status": "feasible", "time_limited": True, "summary": lambda s: ""})()
    for cut in (RerankResult("re-ranked", "", 3, 0.0, mip=final), RerankResult("re-ranked", "", 3, 0.0,
                                                                               gate_time_limited=True)):
        ok, why = cut.repeatable
        assert not ok and "time_limit cut" in why and "not repeatable" in cut.summary()


@pytest.mark.slow
def test_a_pulp_solver_that_ignores_its_time_limit_is_stopped_from_outside():
    """Item 8: a solver object that does not keep timeLimit ran 30 s under time_limit=3."""
    import subprocess
    import sys
    import time

    pulp = pytest.importorskip("pulp")
    from boostrank.mip import build_problem, solve

    class Stubborn(pulp.LpSolver_CMD):
        def defaultPath(self):
            return sys.executable

        def available(self):
            return True

        def actualSolve(self, lp):  # a solver process that never looks at the clock
            subprocess.run([sys.executable, "-c", "import time; time.sleep(60)", self.tmpDir])
            return lp.status

    rng = np.random.default_rng(2)
    X = rng.normal(size=(10, 2))
    t = time.perf_counter()
    res = solve(build_problem(X / 4, (X[:, 0] > 0).astype(float)), Stubborn(msg=False), time_limit=2)
    assert time.perf_counter() - t < 20
    assert res.status == "no solution" and "overran the time limit of 2 s" in res.log
