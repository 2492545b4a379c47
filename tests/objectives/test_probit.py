"""λ-AUC with the probit link: pair oracle, fast series within its bound, engines, training."""

import math
import os

import lightgbm as lgb
import numpy as np
import pytest

import boostrank as br

xgb = pytest.importorskip("xgboost")  # an optional extra (boostrank[xgboost])
from boostrank._kernels.config import MAX_LIST_ROWS, PARALLEL_SORT_MIN_ROWS, SWEEP_P, ProbitSeries, SweepSeries
from boostrank._kernels.lambda_series import _fresh_state, _sweep, _sweep_binary
from boostrank._kernels.order import ascending_pessimistic, pessimistic_order, radix_sort, repair_runs
from boostrank.objectives.probit import SeriesWork, fast_error_bound, lambda_auc_probit

from .. import reference as ref

from ..reference import lambda_auc_probit_reference


def _list(kind, n, rng, rate=0.3):
    if kind == "random":
        s = rng.normal(size=n)
    elif kind == "ties":
        s = np.round(rng.normal(size=n))
    elif kind == "spread":  # clusters many cut-offs apart: the sweeps restart their blocks
        s = rng.choice([-1e3, 0.0, 9.0, 1e4], size=n) + rng.normal(size=n)
    elif kind == "far":  # more blocks apart than a dense block range holds: the occupied blocks only
        s = rng.choice([0.0, 1e6], size=n) + rng.normal(size=n)
    else:
        s = np.zeros(n)
    return s, (rng.random(n) < rate).astype(np.float64)


@pytest.mark.parametrize("graded", [False, True])
@pytest.mark.parametrize("kind", ["random", "ties", "zeros"])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 9, 40])
def test_exact_probit_kernel_matches_pair_oracle(kind, n, graded):
    rng = np.random.default_rng(n)
    s, y = _list(kind, n, rng)
    if graded:
        y = rng.integers(0, 4, size=n)
    g, h = lambda_auc_probit(s, y, np.array([0, n]), sigma=1.3, method="exact")
    g_ref, h_ref = lambda_auc_probit_reference(s, y, sigma=1.3)
    np.testing.assert_allclose(g, g_ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(h, h_ref, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("graded", [False, True])
@pytest.mark.parametrize("kind", ["random", "ties", "zeros"])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 9, 40])
def test_exact_uniform_probit_kernel_matches_pair_oracle(kind, n, graded):
    rng = np.random.default_rng(100 + n)
    s, y = _list(kind, n, rng)
    if graded:
        y = rng.integers(0, 4, size=n)
    g, h = lambda_auc_probit(s, y, np.array([0, n]), sigma=0.7, method="exact", uniform=True)
    g_ref, h_ref = lambda_auc_probit_reference(s, y, sigma=0.7, uniform=True)
    np.testing.assert_allclose(g, g_ref, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(h, h_ref, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("graded", [False, True])
@pytest.mark.parametrize("eps", [1e-3, 1e-6, 1e-10])
@pytest.mark.parametrize("kind", ["random", "ties", "zeros", "spread", "far"])
@pytest.mark.parametrize("n", [1, 2, 5, 100, 1000, 5000])
def test_uniform_series_within_bound_of_exact(n, kind, eps, graded):
    rng = np.random.default_rng(7 * n + len(kind))
    s, y = _list(kind, n, rng, rate=0.1)
    if graded:
        y = rng.choice(4, size=n, p=[0.7, 0.15, 0.1, 0.05])
    off = np.array([0, n])
    ge, he = lambda_auc_probit(s, y, off, method="exact", uniform=True)
    gf, hf = lambda_auc_probit(s, y, off, method="fast", eps=eps, uniform=True)
    gb, hb = fast_error_bound(s, y, off, eps=eps, uniform=True)
    assert np.all(np.abs(gf - ge) <= gb + 1e-14)
    assert np.all(np.abs(hf - he) <= hb + 1e-14)
    assert abs(gf.sum()) <= 1e-9 * max(1.0, np.abs(gf).sum())  # every pair pushes its two ends equally


def test_uniform_probit_is_the_gradient_of_the_smoothed_wmw_statistic():
    """Uniform pair weights give the exact gradient of Σ_pairs w ∫ρ, the erfc-smoothed WMW loss (Raykar
    eq. 1 with the erfc link), and its hessian diagonal: checked by central differences."""
    from scipy.special import erfc

    alpha = math.sqrt(3.0) / (math.sqrt(2.0) * math.pi)
    rng = np.random.default_rng(4)
    n, sigma = 30, 1.4
    y = rng.integers(0, 3, size=n)
    s = rng.normal(size=n)
    counts = np.bincount(y, minlength=3).astype(float)
    from boostrank._kernels.metrics import mauc_class_weights

    w = mauc_class_weights(counts, float(n))
    hi, lo = np.nonzero(y[:, None] > y[None, :])
    wp = np.abs(w[y[hi]] - w[y[lo]])

    def loss(v):  # −d/dx of the loss of a pair is σρ: the loss is σ∫ρ = ∫½ erfc(ασx) dx in x = s_h − s_l
        x = alpha * sigma * (v[hi] - v[lo])
        # ∫_x^∞ ½ erfc(t) dt = ½ (e^{−x²}/√π − x erfc(x))
        return float(np.sum(wp * 0.5 * (np.exp(-x * x) / math.sqrt(math.pi) - x * erfc(x)) / alpha))

    g, h = lambda_auc_probit(s, y, np.array([0, n]), sigma=sigma, method="exact", uniform=True)
    step = 1e-5
    for i in range(n):
        e = np.zeros(n)
        e[i] = step
        fd = (loss(s + e) - loss(s - e)) / (2 * step)
        fd2 = (loss(s + e) - 2 * loss(s) + loss(s - e)) / step**2
        assert fd == pytest.approx(g[i], rel=1e-6, abs=1e-10)
        assert fd2 == pytest.approx(h[i], rel=1e-3, abs=1e-7)


@pytest.mark.parametrize("graded", [False, True])
@pytest.mark.parametrize("eps", [1e-3, 1e-6, 1e-10])
@pytest.mark.parametrize("kind", ["random", "ties", "zeros", "spread"])
@pytest.mark.parametrize("n", [1, 2, 5, 100, 1000, 5000])
def test_fast_within_bound_of_exact(n, kind, eps, graded):
    rng = np.random.default_rng(n + len(kind))
    s, y = _list(kind, n, rng, rate=0.1)
    if graded:  # λ-MAUC: one bipartite pass per pair of classes
        y = rng.choice(4, size=n, p=[0.7, 0.15, 0.1, 0.05])
    off = np.array([0, n])
    ge, he = lambda_auc_probit(s, y, off, method="exact")
    gf, hf = lambda_auc_probit(s, y, off, method="fast", eps=eps)
    gb, hb = fast_error_bound(s, y, off, eps=eps)
    assert np.all(np.abs(gf - ge) <= gb + 1e-14)
    assert np.all(np.abs(hf - he) <= hb + 1e-14)
    assert abs(gf.sum()) <= gb.sum() + 1e-12  # λs of a list cancel, up to the bound



@pytest.mark.parametrize("eps", [1e-2, 1e-4, 1e-6])
@pytest.mark.parametrize("rate", [0.0, 0.05, 0.5, 1.0])
@pytest.mark.parametrize("kind", ["random", "ties", "zeros", "spread"])
@pytest.mark.parametrize("n", [1, 2, 63, 64, 65, 3000])
def test_two_class_sweep_equals_the_general_sweep(n, kind, rate, eps):
    """The vectorised two-class sweep computes what the C-class sweep does, to rounding.

    Batches of 64 rows are cut at 63/64/65; "spread" restarts blocks and skips them.
    """
    from boostrank.objectives.probit import _series

    rng = np.random.default_rng(n + int(100 * rate))
    s, y = _list(kind, n, rng, rate=rate)
    par, ae, ag = _series(eps)
    assert par.p <= SWEEP_P
    order, t, cls = ascending_pessimistic(s, y.astype(np.int64), 2, 0.9)
    wmat = np.array([[0.0, 0.37], [0.37, 0.0]])
    ae_p, ag_p = np.zeros(SWEEP_P), np.zeros(SWEEP_P)
    ae_p[:par.p], ag_p[:par.p] = ae, ag
    for mirror in (False, True):
        g, h, g2, h2 = (np.full(n, np.nan) for _ in range(4))
        start = _fresh_state(2, SWEEP_P)
        series = SweepSeries(par.r, par.h, ae_p, ag_p, 0.5, 1.3)
        _sweep(t, cls, mirror, wmat, series, (g, h), (0, n), start)
        _sweep_binary(t, cls, mirror, 0.37, series, (g2, h2), False, (0, n), start)
        scale = 1.0 + np.abs(g).max()
        np.testing.assert_allclose(g2, g, rtol=0, atol=1e-13 * scale)
        np.testing.assert_allclose(h2, h, rtol=0, atol=1e-13 * (1.0 + np.abs(h).max()))
        g3, h3 = np.full(n, np.nan), np.full(n, np.nan)  # the branch-free sweep: the same sums
        _sweep_binary(t, cls, mirror, 0.37, series, (g3, h3), True, (0, n), start)
        np.testing.assert_allclose(g3, g2, rtol=0, atol=1e-14 * scale)
        np.testing.assert_allclose(h3, h2, rtol=0, atol=1e-14 * (1.0 + np.abs(h2).max()))


@pytest.mark.parametrize("classes", [1, 2, 3, 12])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 500, 4097, PARALLEL_SORT_MIN_ROWS + 1, 2 * PARALLEL_SORT_MIN_ROWS + 3])
@pytest.mark.parametrize("kind", ["random", "ties", "short ties", "zeros", "spread", "outlier", "ulps", "huge", "cauchy"])
def test_ascending_order_is_the_reversed_pessimistic_order(kind, n, classes):
    """The one-thread sort below PARALLEL_SORT_MIN_ROWS, the two-chunk one above: odd sizes,
    ties across the cut between the chunks, absent classes, many classes, and scores that share the
    two-chunk sort's grid points (an outlier stretching the grid, scores a few ulps
    apart, a span that overflows)."""
    rng = np.random.default_rng(3 + n)
    if kind == "short ties":
        s = np.round(rng.normal(size=n), 2)
    elif kind == "outlier":  # grid points 2e-3 wide: runs of many distinct scores
        s = rng.normal(size=n)
        s[: n // 3] = 1e7
    elif kind == "ulps":  # a span of 64 ulps: every row on one of few grid points
        s = 1.0 + rng.integers(0, 64, size=n) * np.spacing(1.0)
    elif kind == "cauchy":  # heavy tails: the two-chunk sort keys on the float's top bits
        s = rng.standard_cauchy(size=n)
    elif kind == "huge":  # max − min overflows: one grid point, the whole list settled by score
        s = rng.normal(size=n) * 1e306
        s[:2] = np.array([-1.7e308, 1.7e308])[:n]
    else:
        s, _ = _list(kind, n, rng)
    s = s[:n]
    y = rng.integers(0, classes, size=n)
    if kind not in ("random", "ulps"):
        s[::7] = -0.0  # ties with 0.0
        s[::11] *= -1
    order, t, cls = ascending_pessimistic(s, y, max(classes, 3), 2.0)  # 12: labels counted by histogram
    np.testing.assert_array_equal(order, ref.ascending_pessimistic_order(s, y))
    np.testing.assert_array_equal(order, pessimistic_order(s, y, 0, n)[::-1])
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(t, 2.0 * (s[order] - s[order][n // 2]) if n else t)
    np.testing.assert_array_equal(cls, y[order])


def test_two_chunk_sort_keys_on_the_grid_that_separates_neighbours():
    from boostrank._kernels.order import _image_grid_is_finer

    rng = np.random.default_rng(0)
    n = 2 * PARALLEL_SORT_MIN_ROWS
    cases = {"normal": (rng.normal(size=n), False), "narrow": (1.0 + 1e-12 * rng.normal(size=n), False),
             "31 values": (rng.integers(0, 31, size=n) * 0.1, False),
             "cauchy": (rng.standard_cauchy(size=n), True), "lognormal": (np.exp(3 * rng.normal(size=n)), True),
             "one outlier": (np.r_[rng.normal(size=n - 1), 1e12], True)}
    for name, (s, image) in cases.items():
        assert _image_grid_is_finer(s, s.max() - s.min()) == image, name


@pytest.mark.parametrize("n", [2, 500, PARALLEL_SORT_MIN_ROWS + 1])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_fast_refuses_nonfinite_scores(bad, n):
    rng = np.random.default_rng(n)
    s, y = rng.normal(size=n), (rng.random(n) < 0.3).astype(np.float64)
    y[:2] = [0.0, 1.0]
    s[n // 2] = bad
    with pytest.raises(ValueError, match="scores contains 1 NaN/inf"):
        lambda_auc_probit(s, y, np.array([0, n]), method="fast")


@pytest.mark.parametrize("n", [0, 1, 2, 7, 300, 5000])
@pytest.mark.parametrize("distinct", [1, 3, None])
def test_radix_sort_is_a_stable_argsort(n, distinct):
    rng = np.random.default_rng(n)
    keys = rng.integers(0, 2**63, size=n, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, size=n, dtype=np.uint64)
    if distinct is not None and n:  # duplicates: keep only the first few values
        keys = keys[rng.integers(0, min(distinct, n), size=n)]
    idx = np.arange(n, dtype=np.int64)
    expected = np.argsort(keys, kind="stable")
    sorted_keys, k2, i2 = keys.copy(), np.empty_like(keys), np.empty_like(idx)
    radix_sort(sorted_keys, idx, k2, i2, 8)
    np.testing.assert_array_equal(idx, expected)
    np.testing.assert_array_equal(sorted_keys, keys[expected])


@pytest.mark.parametrize("n", [0, 1, 40, 3000])
@pytest.mark.parametrize("run", [2, 20, 33, 500])
def test_radix_sort_on_top_bytes_then_repair_is_a_stable_argsort(n, run):
    rng = np.random.default_rng(n + run)
    top = rng.integers(0, max(n // run, 1), size=n, dtype=np.uint64) << np.uint64(32)
    low = rng.integers(0, 4, size=n, dtype=np.uint64)  # few low values: ties inside runs too
    keys = top | low
    idx = np.arange(n, dtype=np.int64)
    expected = np.argsort(keys, kind="stable")
    sorted_keys, k2, i2 = keys.copy(), np.empty_like(keys), np.empty_like(idx)
    radix_sort(sorted_keys, idx, k2, i2, 8, 4)
    repair_runs(sorted_keys, idx, 4)
    np.testing.assert_array_equal(idx, expected)
    np.testing.assert_array_equal(sorted_keys, keys[expected])


@pytest.mark.parametrize("spread", [2.0**-40, 2.0**-30, 2.0**-22])
def test_ascending_order_of_scores_equal_in_their_top_bytes(spread):
    rng = np.random.default_rng(7)
    s = 1.0 + spread * rng.integers(0, 50, size=4000)  # long runs that differ only in low bits
    y = rng.integers(0, 3, size=4000)
    order, t, cls = ascending_pessimistic(s, y, 3, 1.0)
    np.testing.assert_array_equal(order, pessimistic_order(s, y, 0, 4000)[::-1])


@pytest.mark.parametrize("s", [[], [0.5], [-0.0, 0.0, -0.0], [np.inf, -np.inf, 1e-300, -1e-300, 5e-324],
                               [3.0] * 9 + [-1.0] * 9])
@pytest.mark.parametrize("tile", [1, PARALLEL_SORT_MIN_ROWS // 4 + 1])
def test_ascending_order_edge_values(s, tile):
    s = np.tile(np.asarray(s, dtype=np.float64), tile)
    y = (np.arange(s.size) % 2).astype(np.int64)
    order, t, cls = ascending_pessimistic(s, y, 2, 1.0)
    np.testing.assert_array_equal(order, pessimistic_order(s, y, 0, s.size)[::-1])
    with np.errstate(invalid="ignore"):  # positions from the median score (±inf stay ±inf)
        np.testing.assert_array_equal(t, s[order] - s[order][s.size // 2] if s.size else t)


def _series_kernel(s, labels, n_chunks, eps=1e-6):
    from boostrank._kernels.lambda_series import lambda_auc_series_kernel
    from boostrank._kernels.link import ERFC_ALPHA
    from boostrank.objectives.probit import _class_weights, _series

    n = s.size
    y, wmat, mixed = _class_weights(labels, n)
    par, ae, ag = _series(eps)
    g, h = np.full(n, np.nan), np.full(n, np.nan)
    wi, wu, wf = np.empty((3, n), dtype=np.int32), np.empty((2, n), dtype=np.uint64), np.empty((5, n))
    setting = ProbitSeries(1.3, ERFC_ALPHA, par.r, par.h, par.p, ae, ag, 2.0**52 * par.r)
    assert lambda_auc_series_kernel(s, y, wmat, setting, (g, h), (wi, wu, wf), mixed, 2, n_chunks)
    return g, h


@pytest.mark.parametrize("chunks", [1, 2, 7])
@pytest.mark.parametrize("classes,rate", [(2, 0.03), (2, 0.5), (1, None), (3, None), (6, None)])
@pytest.mark.parametrize("kind", ["random", "ties", "zeros", "spread", "gaps", "wide"])
@pytest.mark.parametrize("n", [2, 5, 3001])
def test_a_sweep_cut_into_chunks_gives_the_whole_sweeps_lambdas(n, kind, classes, rate, chunks):
    """Chunks start from the state the rows before them hand on (every block case: inside a
    block, at its first row, after an empty block, chunks of one row); equal up to the order of sums
    to the kernel compiled without the chunking (``n_chunks=None``)."""
    rng = np.random.default_rng(n + chunks)
    if kind in ("gaps", "wide"):  # blocks left empty between clusters; scores over many blocks
        s = rng.normal(size=n) * (1.0 if kind == "gaps" else 40.0)
        s[: n // 3] += 60.0 if kind == "gaps" else 0.0
    else:
        s, _ = _list(kind, n, rng)
    labels = (rng.random(n) < rate).astype(np.int64) if rate else rng.integers(0, classes, size=n)
    g1, h1 = _series_kernel(s, labels, None)  # the variant compiled without the chunking
    gk, hk = _series_kernel(s, labels, chunks)
    np.testing.assert_allclose(gk, g1, rtol=0, atol=1e-12 * (1.0 + np.abs(g1).max()))
    np.testing.assert_allclose(hk, h1, rtol=0, atol=1e-12 * (1.0 + np.abs(h1).max()))


@pytest.mark.slow  # over a second warm
def test_one_long_list_uses_every_thread():
    """From 4 threads with a CPU each the sweeps are cut into chunks (a task per thread); 1, 2 and
    3 threads give the same λs to the bit, chunks the same to 1e-12; more threads than CPUs do not chunk.

    In a child process: Numba's thread pool cannot grow past NUMBA_NUM_THREADS once started.
    """
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent("""
        import numba, numpy as np
        import boostrank.objectives.probit as bp
        from boostrank._kernels.config import SWEEP_CHUNK_MIN_ROWS
        from boostrank._kernels.lambda_series import sweep_chunks
        n = 2 * SWEEP_CHUNK_MIN_ROWS + 11
        assert [sweep_chunks(n, k) for k in (1, 2, 3, 4, 5)] == [None, None, None, 2, 2]
        assert sweep_chunks(n, 64) == 2 and sweep_chunks(64 * SWEEP_CHUNK_MIN_ROWS, 64) == 32
        rng = np.random.default_rng(0)
        s = rng.normal(size=n)
        y = (rng.random(n) < 0.2).astype(np.float64)
        off = np.array([0, n])
        out = {}
        for threads in (1, 2, 3, 4):
            numba.set_num_threads(threads)
            out[threads] = bp.lambda_auc_probit(s, y, off, method="fast")
        for threads in (2, 3):
            assert all(np.array_equal(a, b) for a, b in zip(out[1], out[threads])), threads
        chunked = bp._cpus() >= 4
        assert all(np.array_equal(a, b) != chunked for a, b in zip(out[1], out[4]))
        bp._cpus = lambda: 1  # 4 threads on one CPU: one chunk per sweep, the 1-thread λs
        assert all(np.array_equal(a, b) for a, b in zip(out[1], bp.lambda_auc_probit(s, y, off, method="fast")))
        bp._cpus = lambda: 4
        for a, b in zip(out[1], bp.lambda_auc_probit(s, y, off, method="fast")):
            assert not np.array_equal(a, b)  # chunked: summed in another order
            assert np.abs(a - b).max() <= 1e-12 * np.abs(a).max()
        print("ok")
    """)
    env = {**os.environ, "NUMBA_NUM_THREADS": "4"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_fast_sparse_grades_and_thread_count():
    numba = pytest.importorskip("numba")
    rng = np.random.default_rng(11)
    n = 3000
    s = np.round(rng.normal(size=n), 1)
    y = rng.choice([0, 2, 7], size=n, p=[0.8, 0.15, 0.05])  # absent grades are skipped
    off = np.array([0, n])
    ge, he = lambda_auc_probit(s, y, off, method="exact")
    before = numba.get_num_threads()
    try:
        results = []
        for threads in (1, min(2, numba.config.NUMBA_NUM_THREADS)):
            numba.set_num_threads(threads)
            results.append(lambda_auc_probit(s, y, off, method="fast", eps=1e-8))
    finally:
        numba.set_num_threads(before)
    (g1, h1), (g2, h2) = results
    np.testing.assert_array_equal(g1, g2)  # the two sweeps are independent
    np.testing.assert_array_equal(h1, h2)
    gb, hb = fast_error_bound(s, y, off, eps=1e-8)
    assert np.all(np.abs(g1 - ge) <= gb + 1e-14) and np.all(np.abs(h1 - he) <= hb + 1e-14)


def test_queries_single_class_and_auto():
    rng = np.random.default_rng(7)
    sizes = [0, 1, 30, 2500, 4]
    off = np.r_[0, np.cumsum(sizes)]
    s = rng.normal(size=off[-1])
    y = (rng.random(off[-1]) < 0.2).astype(float)
    y[off[2]:off[3]] = 0.0  # a single-class query
    ge, he = lambda_auc_probit(s, y, off, method="exact")
    for method in ("fast", "auto"):
        gf, hf = lambda_auc_probit(s, y, off, method=method, eps=1e-9, auto_min_rows=1000)
        gb, hb = fast_error_bound(s, y, off, eps=1e-9)
        assert np.all(np.abs(gf - ge) <= gb + 1e-14) and np.all(np.abs(hf - he) <= hb + 1e-14)
    assert not np.any(ge[off[2]:off[3]])



def test_default_method_is_auto_series_on_long_lists_pairs_on_short():
    """Defaults a user gets: the probit link takes the series on lists of 128+ rows (pair
    sums would be O(n²)) and pair sums below; the logistic link always sums pairs."""
    rng = np.random.default_rng(11)
    off = np.array([0, 50, 50 + 3000])
    s = rng.normal(size=3050)
    y = (rng.random(3050) < 0.2).astype(float)
    for pair_weight in ("auto", "swap"):  # auto: the probit link's uniform pair weights
        obj = br.LambdaObjective("auc", link="probit", pair_weight=pair_weight, anchor=0.0)
        assert obj.method == "auto"
        g, h = obj.bind(y, off).gradients(s, scaled=False)
        uniform = pair_weight == "auto"
        gf, hf = lambda_auc_probit(s, y, off, method="fast", eps=obj.eps, uniform=uniform)
        ge, he = lambda_auc_probit(s, y, off, method="exact", uniform=uniform)
        # the long list: the series (here alone, there in one call with the short list: the
        # two compiled paths may round differently in the last bit)
        np.testing.assert_allclose(g[50:], gf[50:], rtol=1e-12, atol=1e-15)
        np.testing.assert_array_equal(g[:50], ge[:50])  # the short one: pair sums
        np.testing.assert_array_equal(h[:50], he[:50])
    logistic = br.LambdaObjective("auc", link="logistic", pair_fraction=1.0, anchor=0.0)
    assert logistic.method == "auto"
    np.testing.assert_array_equal(logistic.bind(y, off).gradients(s, scaled=False)[0],
                                  br.lambda_gradients(s, y, off, link="logistic", method="exact")[0])
    assert br.LambdaRanker().get_params()["method"] == "auto"

def test_bad_combinations():
    with pytest.raises(ValueError, match="probit"):
        br.LambdaObjective("auc", link="logistic", method="fast")
    assert br.LambdaObjective("auc", method="fast").link == "probit"  # link="auto" takes what method needs
    with pytest.raises(ValueError, match="probit"):
        br.LambdaObjective("ndcg", link="probit")
    with pytest.raises(ValueError, match="method"):
        br.LambdaObjective("auc", link="probit", method="series")


def _long_list(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6))
    f = X[:, 0] - 0.5 * X[:, 1] + 0.3 * X[:, 2] ** 2
    y = (f + rng.normal(size=n) > 2.0).astype(int)
    flip = rng.random(n) < 0.02  # label noise
    y[flip] = 1 - y[flip]
    return X, y


@pytest.mark.slow
def test_fast_training_improves_auc_and_matches_exact():
    X, y = _long_list(6000, 0)
    tr, te = slice(0, 4000), slice(4000, None)
    kw = dict(objective="auc", link="probit", n_estimators=25, num_leaves=15, learning_rate=0.1, random_state=0)
    fast = br.LambdaRanker(method="fast", **kw).fit(X[tr], y[tr], group=[4000])
    exact = br.LambdaRanker(method="exact", **kw).fit(X[tr], y[tr], group=[4000])
    start = br.auc(y[te], X[te, 0])  # better than any constant start: the strongest single feature
    a_fast, a_exact = br.auc(y[te], fast.predict(X[te])), br.auc(y[te], exact.predict(X[te]))
    assert a_fast > start and abs(a_fast - a_exact) < 2e-3


def test_mauc_fast_objective_trains():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 4))
    y = np.digitize(X[:, 0] + 0.5 * rng.normal(size=3000), [0.5, 1.5])
    m = br.LambdaRanker(objective="mauc", link="probit", method="fast", n_estimators=15, num_leaves=7)
    m.fit(X, y, group=[len(y)])
    assert br.mauc(y, m.predict(X)) > 0.85


def test_engines_take_the_fast_objective_on_one_list():
    X, y = _long_list(3000, 1)
    obj = br.lightgbm_objective("auc", link="probit", method="fast")
    booster = lgb.train({"objective": obj, "verbose": -1, "num_leaves": 7}, lgb.Dataset(X, y), 10)
    assert br.auc(y, booster.predict(X)) > 0.8
    ranker = lgb.LGBMRanker(objective=obj, n_estimators=10, num_leaves=7, verbose=-1)
    ranker.fit(X, y, group=[len(y)])
    assert br.auc(y, ranker.predict(X)) > 0.8
    xobj = br.xgboost_objective("auc", link="probit", method="fast")
    bst = xgb.train({"tree_method": "hist", "max_depth": 3, "min_child_weight": 1e-3,
                     "disable_default_eval_metric": 1}, xgb.DMatrix(X, y), 10, obj=xobj)
    assert br.auc(y, bst.predict(xgb.DMatrix(X))) > 0.8


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_engine_objective_rejects_nonfinite_scores(bad):
    ds = lgb.Dataset(np.zeros((4, 1)), np.array([0.0, 1.0, 0.0, 1.0]), free_raw_data=False).construct()
    for method in ("fast", "exact"):
        obj = br.lightgbm_objective("auc", link="probit", method=method)
        with pytest.raises(ValueError, match="scores contains 1 NaN/inf"):
            obj(np.array([0.0, bad, 1.0, 2.0]), ds)


def test_fast_refuses_lists_beyond_the_sorts_row_numbers():
    n = MAX_LIST_ROWS + 1  # zero-stride arrays: nothing of that size is allocated
    s = np.lib.stride_tricks.as_strided(np.zeros(1), shape=(n,), strides=(0,))
    with pytest.raises(ValueError, match="lists of up to 4294967296 rows"):
        lambda_auc_probit(s, s, np.array([0, n]), method="auto")


def test_fast_refuses_scores_beyond_block_precision():
    s = np.array([0.0, 1e17, -3.0])
    y = np.array([0.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="too wide for method='fast'"):
        lambda_auc_probit(s, y, np.array([0, 3]), method="fast")
    g, _ = lambda_auc_probit(s, y, np.array([0, 3]), method="exact")
    assert np.isfinite(g).all()


@pytest.mark.parametrize("metric", ["auc", "mauc"])
def test_series_work_arrays_are_reused_between_calls_without_changing_results(metric):
    """Work arrays and each list's cached class weights give what fresh calls give."""
    rng = np.random.default_rng(3)
    for pair_weight in ("swap", "uniform"):
        obj = br.LambdaObjective(metric, link="probit", method="fast", pair_weight=pair_weight, anchor=0.0)
        y = rng.integers(0, 3 if metric == "mauc" else 2, size=700).astype(float)
        y[:300] = np.where(y[:300] > 0, 2.0, 0.0) if metric == "mauc" else y[:300]  # lists differ in grades
        prep = obj.bind(y, [0, 300, 300, 700])
        for step in range(3):
            s = rng.normal(size=700) * (1 + step)
            g, h = prep.gradients(s, scaled=False)
            g0, h0 = br.lambda_gradients(s, y, [0, 300, 300, 700], metric=metric, link="probit", method="fast",
                                         pair_weight=pair_weight)
            np.testing.assert_array_equal(g, g0)
            np.testing.assert_array_equal(h, h0)
        if pair_weight == "swap":
            assert prep.series_work.arrays[0].shape[1] >= 400


def test_objective_default_accuracy_is_within_its_documented_bound():
    rng = np.random.default_rng(8)
    obj = br.LambdaObjective("auc", link="probit", method="fast", pair_weight="swap", anchor=0.0)
    assert obj.eps == 1e-4
    y = (rng.random(2000) < 0.1).astype(float)
    s = rng.normal(size=2000)
    g, h = obj.bind(y, [0, 2000]).gradients(s, scaled=False)
    ge, he = lambda_auc_probit(s, y.astype(np.int64), np.array([0, 2000]), method="exact")
    gb, hb = fast_error_bound(s, y.astype(np.int64), np.array([0, 2000]), eps=obj.eps)
    assert np.all(np.abs(g - ge) <= gb + 1e-14) and np.all(np.abs(h - he) <= hb + 1e-14)
    assert np.abs(g - ge).max() <= 1e-3 * np.abs(ge).max()  # the bound is about ε times the λ's scale


@pytest.mark.parametrize("n,classes,rate", [(5000, 2, 0.5), (70_001, 2, 0.05), (9000, 3, None)])
def test_series_kernel_gives_the_same_lambdas_with_int64_work_arrays(n, classes, rate):
    # lists of 2^31 rows and more index with int64; below, int32 halves the order's traffic
    from boostrank._kernels.link import ERFC_ALPHA
    from boostrank._kernels.lambda_series import lambda_auc_series_kernel
    from boostrank._kernels.order import index_dtype
    from boostrank.objectives.probit import _class_weights, _series

    assert index_dtype(2**31 - 1) == np.int32 and index_dtype(2**31) == np.int64
    rng = np.random.default_rng(n)
    s = np.round(rng.normal(size=n), 2)
    labels = rng.integers(0, classes, size=n) if rate is None else (rng.random(n) < rate).astype(np.int64)
    y, wmat, mixed = _class_weights(labels, n)
    assert mixed == (rate == 0.5)
    par, ae, ag = _series(1e-4)
    out = []
    for dt in (np.int32, np.int64):
        g, h = np.empty(n), np.empty(n)
        wi, wu, wf = np.empty((3, n), dtype=dt), np.empty((2, n), dtype=np.uint64), np.empty((5, n))
        setting = ProbitSeries(1.0, ERFC_ALPHA, par.r, par.h, par.p, ae, ag, 2.0**52 * par.r)
        assert lambda_auc_series_kernel(s, y.astype(dt), wmat, setting, (g, h), (wi, wu, wf), mixed, 2, 2)
        out.append((g, h, wi[1, :n].copy()))
    np.testing.assert_array_equal(out[0][2], out[1][2])  # the same order
    # the same sums; separately compiled variants may round differently in the last bit
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("seed", range(3))
def test_many_lists_in_one_call_equal_the_list_by_list_series(seed):
    # lists a thread sorts alone go through lambda_auc_series_lists, a list per thread
    from boostrank.objectives.probit import _fast_one_list

    rng = np.random.default_rng(seed)
    sizes = rng.choice([1, 2, 5, 127, 128, 300, 1000], size=40)
    off = np.r_[0, np.cumsum(sizes)]
    n = int(off[-1])
    s = np.round(rng.normal(size=n), 1 + seed)
    grades = rng.integers(0, 2 + seed, size=n)
    grades[off[3]:off[4]] = 1  # a list with one label value
    s[off[5]:off[6]] = 0.5  # a list of ties
    g, h = lambda_auc_probit(s, grades, off, method="fast", eps=1e-6)
    for a, b in zip(off[:-1], off[1:]):
        g1, h1 = np.empty(b - a), np.empty(b - a)
        _fast_one_list(s[a:b], grades[a:b].astype(np.int64), 1.0, 1e-6, g1, h1, None, (a, b))
        np.testing.assert_allclose(g[a:b], g1, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(h[a:b], h1, rtol=1e-12, atol=1e-15)
    ge, he = lambda_auc_probit(s, grades, off, method="exact")
    gb, hb = fast_error_bound(s, grades, off, eps=1e-6)
    assert np.all(np.abs(g - ge) <= gb) and np.all(np.abs(h - he) <= hb)
    s[off[np.flatnonzero(sizes >= 128)[-1]]] = 1e17  # too wide for the series, in one of many lists
    with pytest.raises(ValueError, match="too wide"):
        lambda_auc_probit(s, grades, off, method="fast")


@pytest.mark.parametrize("uniform", [False, True])
@pytest.mark.parametrize("sizes", [[3000], [300, 200, 5000], [1, 40, 300, 0, 2000]])
def test_float32_buffers_receive_the_float64_sums_rounded(sizes, uniform):
    """The engines' float32 buffers: written directly by the uniform series, through float64 by the
    swap-weighted one and when some list takes the pair sums (which accumulate in their output)."""
    rng = np.random.default_rng(len(sizes))
    offsets = np.r_[0, np.cumsum(sizes)]
    n = offsets[-1]
    s, y = rng.normal(size=n), (rng.random(n) < 0.3).astype(np.float64)
    g64, h64 = lambda_auc_probit(s, y, offsets, sigma=1.3, work=SeriesWork(), uniform=uniform)
    g32, h32 = np.full(n, np.nan, np.float32), np.full(n, np.nan, np.float32)
    out = lambda_auc_probit(s, y, offsets, sigma=1.3, grad=g32, hess=h32, work=SeriesWork(), uniform=uniform)
    assert out[0] is g32 and out[1] is h32
    np.testing.assert_array_equal(g32, g64.astype(np.float32))
    np.testing.assert_array_equal(h32, h64.astype(np.float32))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("uniform", [False, True])
@pytest.mark.parametrize("sizes", [[3000], [300, 200, 5000], [1, 40, 300, 0, 2000]])
def test_scale_multiplies_every_lambda_and_hessian(sizes, uniform, dtype):
    """``scale``: inside the uniform series as it writes (lists that all take the series), else a product
    afterwards; either way the scaled λs, to rounding."""
    rng = np.random.default_rng(7 + len(sizes))
    offsets = np.r_[0, np.cumsum(sizes)]
    n = offsets[-1]
    s, y = rng.normal(size=n), rng.integers(0, 3, size=n).astype(np.float64)
    g, h = lambda_auc_probit(s, y, offsets, sigma=0.8, uniform=uniform)
    gs, hs = lambda_auc_probit(s, y, offsets, sigma=0.8, uniform=uniform, scale=37.5,
                               grad=np.empty(n, dtype), hess=np.empty(n, dtype), work=SeriesWork())
    tol = 1e-13 if dtype == np.float64 else 1e-6
    np.testing.assert_allclose(gs, 37.5 * g, rtol=tol, atol=tol * 37.5 * np.abs(g).max())
    np.testing.assert_allclose(hs, 37.5 * h, rtol=tol, atol=tol * 37.5 * np.abs(h).max())


@pytest.mark.parametrize("kind", ["random", "ties", "spread", "classes", "nan", "inf", "wide", "two rows"])
def test_parallel_grouping_is_the_serial_counting_sort(kind):
    """The uniform series' grouping by (block, class) in parallel row chunks: the serial counting sort's
    order, offsets and values exactly; refused (``ok`` False) on non-finite or too widely spread scores."""
    from boostrank._kernels.erfc import _group_by_block_and_class, _group_dense

    rng = np.random.default_rng(len(kind))
    n = 2 if kind == "two rows" else 20_011
    s = {"ties": np.round(rng.normal(size=n)), "spread": rng.choice([-40.0, 0.0, 9.0], size=n) + rng.normal(size=n),
         "wide": rng.choice([0.0, 1e9], size=n)}.get(kind, rng.normal(size=n) * 3)
    cls = rng.integers(0, 4 if kind == "classes" else 2, size=n).astype(np.int32)
    n_cls, a, width = int(cls.max()) + 1, 0.7, 0.9
    if kind in ("nan", "inf"):
        s[n // 3] = np.nan if kind == "nan" else -np.inf
    ts, perm = np.full(n + 3, np.nan), np.full(n + 3, -1)  # longer than the list: work arrays kept between calls
    ok, occ, centres, start = _group_dense(s, a, cls, n_cls, width, ts, perm)
    if kind in ("nan", "inf", "wide"):
        assert not ok
        return
    assert ok
    t = a * s
    lo = math.floor(t.min() / width) * width
    r_occ, r_centres, r_start, r_ts, r_perm = _group_by_block_and_class(t, cls, n_cls, lo, width)
    for mine, theirs in ((occ, r_occ), (centres, r_centres), (start, r_start), (ts[:n], r_ts), (perm[:n], r_perm)):
        np.testing.assert_array_equal(mine, theirs)
    assert np.isnan(ts[n:]).all() and (perm[n:] == -1).all()


@pytest.mark.slow  # over a second warm
def test_the_parallel_sort_gives_one_order_at_any_thread_count():
    """One chunk per Numba thread (not a literal two): 1, 2 and 3 threads, the same order as np.lexsort.

    In a child process: Numba's thread pool cannot grow past NUMBA_NUM_THREADS once started.
    """
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(f"""
        import numba, numpy as np
        from boostrank._kernels.order import ascending_pessimistic
        rng = np.random.default_rng(0)
        for n in ({PARALLEL_SORT_MIN_ROWS} + 1, 3 * {PARALLEL_SORT_MIN_ROWS} + 2):
            for kind in ("normal", "ties", "ulps", "cauchy"):
                s = {{"normal": rng.normal(size=n), "ties": np.round(rng.normal(size=n), 1),
                     "ulps": 1.0 + rng.integers(0, 64, size=n) * np.spacing(1.0),
                     "cauchy": rng.standard_cauchy(size=n)}}[kind]
                y = rng.integers(0, 3, size=n)
                want = np.lexsort((-np.arange(n), -y, s))  # tests/reference.py: ascending_pessimistic_order
                for threads in (1, 2, 3):
                    numba.set_num_threads(threads)
                    order, t, cls = ascending_pessimistic(s, y, 3, 1.0)
                    assert np.array_equal(order, want), (n, kind, threads)
                    assert np.array_equal(cls, y[want]) and np.array_equal(t, s[want] - s[want][n // 2])
        print("ok")
    """)
    env = {**os.environ, "NUMBA_NUM_THREADS": "3"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


@pytest.mark.parametrize("case", ["outlier 1e12", "outlier 1e14", "outlier 4.1e16", "bulk at 1e12", "two modes",
                                  "lists"])
def test_fast_stays_within_its_bound_when_scores_are_far_from_zero(case):
    """Hardening #5: one score at 1e12 put 174 of 2 000 rows outside fast_error_bound (3.9e16: 44 % error).

    Positions are now taken from the list's median score before scaling, on a block grid
    anchored at zero, so the series sees exact differences wherever the list sits.
    """
    rng = np.random.default_rng(7)
    n = 2000
    s = rng.normal(size=n)
    y = (rng.random(n) < 0.3).astype(np.int64)
    offsets = np.array([0, n])
    if case.startswith("outlier"):
        s[5] = float(case.split()[1])
    elif case == "bulk at 1e12":
        s += 1e12
    elif case == "two modes":
        s[n // 2:] += 1e12
    else:  # many lists: the lists kernel, one list shifted and one with an outlier
        offsets = np.arange(0, n + 1, 250)
        s[5] = 1e12
        s[500:750] += 1e12
    gf, hf = lambda_auc_probit(s, y, offsets, method="fast", eps=1e-6)
    ge, he = lambda_auc_probit(s, y, offsets, method="exact", eps=1e-6)
    gb, hb = fast_error_bound(s, y, offsets, eps=1e-6)
    assert np.all(np.abs(gf - ge) <= gb) and np.all(np.abs(hf - he) <= hb)


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
