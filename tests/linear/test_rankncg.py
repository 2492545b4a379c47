"""RankNCG: gradients against finite differences and pair-by-pair oracles; fits; estimator API."""

import numpy as np
import pytest

import boostrank as br
from boostrank.linear.rankncg import _Pairs, log_likelihood, pair_gradient
from boostrank.metrics import group_offsets

from ..reference import rankncg_loglik
from ..conftest import small_lists


def _problem(seed, n=120, d=4, classes=3, noise=0.7, qid=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.2, 5.0, size=d)
    w = rng.normal(size=d)
    f = X @ w / np.std(X @ w)
    y = np.digitize(f + noise * rng.normal(size=n), np.quantile(f, np.linspace(0, 1, classes + 1)[1:-1]))
    q = np.repeat(np.arange(n // 20), 20) if qid else None
    return X, y, q


@pytest.mark.parametrize("qid", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_exact_gradient_matches_oracle_and_finite_differences(seed, qid):
    X, y, q = _problem(seed, n=60, qid=qid)
    rng = np.random.default_rng(seed)
    w = rng.normal(size=X.shape[1]) * 0.3
    ll_ref, g_ref = rankncg_loglik(w, X, y, q, alpha=0.5)
    assert log_likelihood(w, X, y, q, alpha=0.5) == pytest.approx(ll_ref, rel=1e-12)
    g = pair_gradient(w, X, y, q, alpha=0.5)
    np.testing.assert_allclose(g, g_ref, rtol=1e-10, atol=1e-10)
    h = 1e-6
    fd = [(log_likelihood(w + h * e, X, y, q, alpha=0.5) - log_likelihood(w - h * e, X, y, q, alpha=0.5)) / (2 * h)
          for e in np.eye(X.shape[1])]
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-6 * np.abs(g).max())


@pytest.mark.parametrize("eps", [1e-2, 1e-6, 1e-10])
@pytest.mark.parametrize("qid", [False, True])
@pytest.mark.parametrize("seed", range(2))
def test_fast_gradient_within_eps_of_erfc_link_gradient(seed, qid, eps):
    X, y, q = _problem(seed + 10, n=200, qid=qid)
    w = np.random.default_rng(seed).normal(size=X.shape[1])
    _, g_ref = rankncg_loglik(w, X[:60], y[:60], None if q is None else q[:60], alpha=1.0, link="erfc")
    g_direct = pair_gradient(w, X[:60], y[:60], None if q is None else q[:60], link="probit", method="exact")
    np.testing.assert_allclose(g_direct, g_ref, rtol=1e-10, atol=1e-9)
    direct = pair_gradient(w, X, y, q, link="probit", method="exact")
    fast = pair_gradient(w, X, y, q, link="probit", method="fast", eps=eps)
    # each coefficient sums erfc over its pair partners, each off by at most eps/2 relative
    # to the sources of one erfc_sum call (all documents of the partner class)
    counts = np.bincount(_Pairs(y, group_offsets(len(y), qid=q), "full").cls)
    bound = np.abs(X).T @ np.full(len(y), 0.5 * eps * counts.sum()) + 1e-9
    assert np.all(np.abs(fast - direct) <= bound)


@pytest.mark.parametrize("seed", range(4))
def test_fast_and_exact_reach_the_same_wmw(seed):
    X, y, q = _problem(seed + 20, n=400, d=5, classes=3 + seed % 2, qid=seed % 2 == 1)
    fast = br.RankNCG(link="probit", method="fast").fit(X, y, qid=q)
    exact = br.RankNCG(link="logistic", method="exact").fit(X, y, qid=q)
    assert abs(fast.score(X, y, qid=q) - exact.score(X, y, qid=q)) <= 0.002
    assert fast.n_iter_ >= 1 and exact.n_iter_ >= 1


def test_easy_problem_ranks_perfectly_and_beats_random():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = np.digitize(X @ np.array([2.0, -1.0, 0.5]), [-1.0, 1.0])
    model = br.RankNCG(alpha=1e-3).fit(X, y)
    assert model.score(X, y) == 1.0
    assert np.corrcoef(model.coef_, [2.0, -1.0, 0.5])[0, 1] > 0.99


def test_coef_in_caller_units_and_json_round_trip(tmp_path):
    X, y, _ = _problem(5)
    m1 = br.RankNCG().fit(X, y)
    scale = np.array([10.0, 1.0, 0.1, 3.0])
    m2 = br.RankNCG().fit(X * scale, y)
    np.testing.assert_allclose(m2.coef_ * scale, m1.coef_, rtol=1e-6)
    path = tmp_path / "m.json"
    m1.save_model(path)
    loaded = br.RankNCG.load_model(path)
    np.testing.assert_array_equal(loaded.decision_function(X), m1.decision_function(X))
    assert loaded.get_params() == m1.get_params()


def test_explicit_graph_and_errors():
    X, y, _ = _problem(6)
    m = br.RankNCG(graph=[(0, 2)]).fit(X, y)  # only class 2 above class 0
    assert m.n_pairs_ == np.sum(y == 0) * np.sum(y == 2)
    with pytest.raises(ValueError, match="one class"):
        br.RankNCG().fit(X, np.ones(len(y), dtype=int))
    with pytest.raises(ValueError, match="absent"):
        br.RankNCG(graph=[(0, 7)]).fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        br.RankNCG().fit(np.full_like(X, np.nan), y)
    with pytest.raises(ValueError, match="method"):
        br.RankNCG(method="slow").fit(X, y)
    with pytest.raises(ValueError, match="needs link='probit'"):
        br.RankNCG(link="logistic", method="fast").fit(X, y)
    with pytest.raises(ValueError, match="nothing to learn"):
        br.RankNCG().fit(X[:4], [0, 0, 1, 1], qid=[1, 1, 2, 2])


def test_fit_keeps_blas_on_one_thread_and_restores_it(monkeypatch):
    # OpenBLAS threads spinning beside the parallel kernels made fits up to 10x slower
    from threadpoolctl import threadpool_info

    import boostrank.linear.rankncg as rn

    def blas_threads():
        return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]

    before = blas_threads()
    seen = []
    real = rn._coefficients

    def spy(*args, **kwargs):
        seen.append(blas_threads())
        return real(*args, **kwargs)

    monkeypatch.setattr(rn, "_coefficients", spy)
    X = np.random.default_rng(0).normal(size=(300, 4))
    br.RankNCG().fit(X, (X[:, 0] > 0).astype(int))
    assert seen and all(threads == [1] * len(before) for threads in seen)
    assert blas_threads() == before


def test_auto_method_sums_pairs_on_small_sets_and_the_series_on_large_ones():
    # the series' fixed cost per class pair loses below ~2 500 pairs per class pair
    from boostrank.linear.rankncg import AUTO_PAIRS_PER_EDGE

    X, y, _ = _problem(3, n=60, classes=3)
    small = br.RankNCG().fit(X, y)
    assert small.method_ == "exact" and small.n_pairs_ <= AUTO_PAIRS_PER_EDGE * 3
    ref = br.RankNCG(method="exact").fit(X, y)
    np.testing.assert_array_equal(small.coef_, ref.coef_)
    X, y, _ = _problem(4, n=600, classes=2)
    large = br.RankNCG().fit(X, y)
    assert large.method_ == "fast" and large.n_pairs_ > AUTO_PAIRS_PER_EDGE
    np.testing.assert_allclose(large.coef_, br.RankNCG(method="fast").fit(X, y).coef_, rtol=0, atol=0)
    assert br.RankNCG(link="logistic").fit(X, y).method_ == "exact"
    # pair_gradient resolves "auto" the same way
    w = np.ones(X.shape[1])
    np.testing.assert_allclose(pair_gradient(w, X, y, link="probit", method="auto"),
                               pair_gradient(w, X, y, link="probit", method="fast"), rtol=0, atol=0)


def test_n_jobs_sets_the_kernels_threads_and_keeps_the_model():
    """#60: RankNCG speaks the shared vocabulary; its threads change no coefficient beyond rounding."""
    import numba

    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 4))
    y = (X @ [1.0, -0.5, 0.2, 0.0] + rng.normal(size=600) > 0).astype(int)
    seen = []
    real = numba.set_num_threads
    try:
        numba.set_num_threads = lambda n: seen.append(n) or real(n)
        one = br.RankNCG(method="fast", n_jobs=1).fit(X, y)
    finally:
        numba.set_num_threads = real
    every = br.RankNCG(method="fast").fit(X, y)
    assert (1 in seen) == (numba.get_num_threads() > 1)
    np.testing.assert_allclose(one.coef_, every.coef_, rtol=1e-9, atol=1e-12)
    with pytest.raises(ValueError, match="n_jobs=0"):
        br.RankNCG(n_jobs=0).fit(X, y)


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


def test_rankncg_score_without_qid_is_refused_when_fitted_on_lists():
    """One contract (#44): every estimator's score refuses to pool the lists of a model fitted on several (RankNCG
    warned and pooled them), and with one list given as such scores it as one."""
    X, y, qid = small_lists(1)
    model = br.RankNCG().fit(X, y, qid=qid)
    with pytest.raises(ValueError, match=r"score needs qid .*\(RankNCG\)"):
        model.score(X, y)
    pooled = model.score(X, y, group=[len(y)])
    assert pooled != pytest.approx(model.score(X, y, qid=qid))


# ---------------------------------------------------------------- item 16: damaged RankNCG files are named
@pytest.mark.parametrize("damage", [b"\xff\xfe", b"{\"boostrank_model\": ", b"[" * 100000])
def test_a_damaged_rankncg_file_names_the_file(tmp_path, damage):
    X, y, qid = small_lists(11)
    path = tmp_path / "ncg.json"
    br.RankNCG().fit(X, y, qid=qid).save_model(path)
    raw = path.read_bytes()
    path.write_bytes(damage + raw[len(damage):] if damage != b"[" * 100000 else damage)
    with pytest.raises(ValueError, match=r"ncg\.json: (damaged (RankNCG|boostrank) model file|not a)"):
        br.load_model(path) if damage != b"\xff\xfe" else br.RankNCG.load_model(path)


def test_rankncg_refuses_features_whose_squares_overflow():
    X, y, qid = small_lists(15)
    with pytest.raises(ValueError, match="RankNCG squares them"):
        br.RankNCG().fit(X * 1e155, y, qid=qid)
    assert np.abs(br.RankNCG().fit(X * 1e100, y, qid=qid).coef_).max() > 0
