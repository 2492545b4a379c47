"""boostrank.mip.solvers: CBC, HiGHS and PuLP's solvers, their statuses, gaps, bounds and model files."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import boostrank as br
from boostrank.mip import build_problem, solve
from boostrank.mip import solvers as solvers_module
from ..conftest import small_lists


@pytest.mark.slow
@pytest.mark.parametrize("solver", ["cbc", "highs"])
def test_time_limited_solve_reports_status_bound_and_gap_honestly(solver):
    """Whatever the clock allowed (a busy machine allows less): the status, bound and gap agree with each other,
    a fit the clock cut says so unless it proved its optimum, and it never returns less than its start."""
    X, y = br.datasets.make_roc_flexibility(250, random_state=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = br.MIPRanker(objective="auc", time_limit=1, solver=solver, algorithm="mip").fit(X, y).result_
    assert res.solver_status in ("feasible", "no solution", "optimal", None)
    assert res.status in ("feasible", "optimal")
    if res.status == "feasible" and res.bound is not None:
        assert res.gap is not None and res.gap > 0
    if res.status == "optimal":
        assert not res.time_limited and (res.gap is None or res.gap <= 1e-4)
    else:  # one second cannot prove this model: the clock stopped the solver (or the search before it)
        assert res.time_limited and "time-limited" in res.summary()
    assert res.statistic >= res.logistic_statistic - 1e-12


@pytest.mark.slow
def test_cbc_status_and_log_parsing_on_the_installed_binary():
    """CBC's solution header and final statistics, read from a real run (no PuLP status)."""
    X, y = br.datasets.make_roc_flexibility(80, n_distinct=10, n_features=3, random_state=1)
    model = build_problem(X / np.abs(X).max(0), y.astype(float))
    full = solve(model, "cbc", threads=1, time_limit=120)
    assert full.status == "optimal" and full.bound == pytest.approx(full.objective)
    X, y = br.datasets.make_roc_flexibility(250, random_state=2)
    cut = solve(build_problem(X / np.abs(X).max(0), y.astype(float)), "cbc", threads=1, time_limit=0.5)
    assert cut.status in ("feasible", "no solution")
    if cut.status == "feasible":
        assert cut.bound is not None and cut.bound <= cut.objective + 1e-9
    hs = solve(model, "highs", time_limit=120)
    assert hs.status == "optimal" and hs.objective == pytest.approx(full.objective)
    assert solvers_module.cbc_trace("Cbc0012I Integer solution of -12 found by x after 3 iterations and 0 nodes "
                                    "(0.25 seconds)") == [(0.25, -12.0, None)]


def test_highs_prints_nothing_unless_verbose(capfd):
    """HiGHS printed its banner when constructed, before output_flag could act (#29 item 5): read on the
    process's file descriptors, where C writes it; no time limit, so HiGHS runs whatever the machine's load."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    br.MIPRanker(objective="rank_risk", max_nodes=50).fit(X, y)
    print("done")
    out = capfd.readouterr()
    assert out.out.strip() == "done" and "HiGHS" not in out.err, out
    br.MIPRanker(objective="rank_risk", max_nodes=50, verbose=2).fit(X, y)
    assert "HiGHS" in capfd.readouterr().out


@pytest.mark.slow  # over a second warm
@pytest.mark.parametrize("statistic", ["auc", "rank_risk"])
def test_pulp_solver_objects_solve_the_same_model(statistic):
    """#29 item 2: any PuLP solver object; CBC and HiGHS through PuLP agree with the array-built solves."""
    pulp = pytest.importorskip("pulp")
    rng = np.random.default_rng(1)
    X = rng.normal(size=(16, 3))  # small enough for every solver to prove its optimum in a second
    y = (X @ np.array([1.0, -0.5, 0.3]) + rng.normal(size=16) > 0).astype(int)
    qid = np.repeat(np.arange(4), 4)
    model = build_problem(X / np.abs(X).max(0), y.astype(float), statistic, a="dcg@3" if statistic == "rank_risk"
                          else None, groups=qid if statistic == "rank_risk" else None)
    direct = solve(model, "highs", time_limit=60)
    solvers = [pulp.HiGHS(msg=False), pulp.COIN_CMD(path=solvers_module.cbc_path(), msg=False)]
    for solver in solvers:
        via = solve(model, solver, time_limit=60)
        assert via.status == "optimal", (solver, via.log)
        assert via.objective == pytest.approx(direct.objective, abs=1e-6)
        assert np.all(model.A @ via.x >= model.row_lo - 1e-6) and np.all(model.A @ via.x <= model.row_hi + 1e-6)
    fit = br.MIPRanker(objective=statistic, a="dcg@3" if statistic == "rank_risk" else None,
                       solver=pulp.HiGHS(msg=False), algorithm="mip", time_limit=30).fit(X, y, qid=qid)
    assert fit.result_.status in ("optimal", "feasible") and np.isfinite(fit.coef_).all()


def test_write_model_as_mps_and_lp_reads_back_in_highs(tmp_path):
    """#29 item 2: MIPRanker writes its model; HiGHS reads the MPS and PuLP's LP and finds the same optimum."""
    highspy = pytest.importorskip("highspy")
    rng = np.random.default_rng(2)
    X = rng.normal(size=(14, 3))
    y = (X[:, 0] + rng.normal(size=14) > 0).astype(int)
    ranker = br.MIPRanker(objective="auc", time_limit=30)
    optima = []
    for suffix in (".mps", ".lp"):
        path = tmp_path / f"model{suffix}"
        ranker.write_model(path, X, y)
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.setOptionValue("time_limit", 60.0)
        h.readModel(str(path))
        h.run()
        assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
        optima.append(h.getInfo().objective_function_value)
    assert optima[0] == pytest.approx(optima[1], abs=1e-6)
    assert not hasattr(ranker, "n_features_in_")  # writing is not fitting
    with pytest.raises(ValueError, match=".mps or .lp"):
        ranker.write_model(tmp_path / "model.txt", X, y)


@pytest.mark.slow  # over a second warm
@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_a_node_limited_solve_repeats_and_a_clocked_one_says_so(solver):
    X, y = br.datasets.make_roc_flexibility(250, random_state=2)
    model = build_problem(X / np.abs(X).max(0), y.astype(float))
    first, second = (solve(model, solver, threads=1, node_limit=5, time_limit=60) for _ in range(2))
    assert first.status == "feasible" and not first.clocked and not second.clocked
    np.testing.assert_array_equal(first.x, second.x)
    assert first.bound == second.bound
    cut = solve(model, solver, threads=1, time_limit=0.2)
    assert cut.clocked and cut.status in ("feasible", "no solution")


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

    from ..reference import candidate_directions

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


@pytest.mark.parametrize("suffix", [".lp", ".mps"])
def test_write_model_is_atomic_and_reads_back(tmp_path, suffix, monkeypatch):
    highspy = pytest.importorskip("highspy")
    from boostrank.mip import solvers

    X, y, _ = small_lists(9, n_q=1, size=12)
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

    X, y, _ = small_lists(10, n_q=1, size=24, d=2)
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


@pytest.mark.slow
def test_a_solver_whose_bound_is_below_what_w_achieves_proves_nothing():
    """A PuLP solver answering 'optimal' with every variable 0: its bound (the statistic of z = 0) lies below the
    statistic the search's w reaches, so the fit is feasible with no bound, and says why."""
    pulp = pytest.importorskip("pulp")

    class Wrong(pulp.LpSolver):
        def available(self):
            return True

        def actualSolve(self, lp, **kw):
            for v in lp.variables():
                v.varValue = 0.0
            lp.assignStatus(pulp.LpStatusOptimal, pulp.LpSolutionOptimal)
            return lp.status

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    y = (X @ [1, -1, 0.5, 0.2] + rng.normal(size=120) > 0).astype(int)
    with pytest.warns(UserWarning, match="below the statistic .* that w achieves"):
        model = br.MIPRanker(objective="rank_risk", solver=Wrong(), time_limit=3).fit(X, y)
    res = model.result_
    assert res.status == "feasible" and (res.bound is None or res.bound >= res.statistic)
