"""boostrank.objectives.state: one fit's rounds: the order reused, the threads and chunks, the sampled pairs' seeds."""

import numpy as np
import pytest

import boostrank as br
from boostrank._kernels.lambdas import add_anchor
from boostrank.objectives.objective import LambdaObjective

from ..conftest import random_ranking
from .conftest import NO_EXAM, offsets_of


@pytest.mark.parametrize("link", ["logistic", "probit"])
def test_objective_checks_scores_every_round(link):
    """Engine-style calls on prepared data: a NaN/inf fails, huge finite scores do
    not, and non-contiguous or float32 scores give the same λs."""
    obj = LambdaObjective("auc", link=link, pair_fraction=1.0 if link == "logistic" else None)  # same λs per call
    prep = obj.bind([0, 1, 0, 1], [0, 4])
    for bad in (np.nan, np.inf, -np.inf):
        with pytest.raises(ValueError, match="scores contains"):
            prep.gradients(np.array([0.0, bad, 1.0, 2.0]))
    with pytest.raises(ValueError, match="scores contains"):
        prep.gradients(np.array([np.inf, -np.inf, 1.0, 2.0]))
    g, _ = prep.gradients(np.array([1e308, 1e308, -1e308, 1e308]))
    assert np.isfinite(g).all()
    s = np.array([0.3, -0.2, 0.9, 0.1])
    ref = prep.gradients(s)[0].copy()
    np.testing.assert_array_equal(prep.gradients(np.repeat(s, 2)[::2])[0], ref)
    np.testing.assert_allclose(prep.gradients(s.astype(np.float32))[0], ref, rtol=1e-6)


@pytest.mark.parametrize("seed", range(4))
def test_rounds_reuse_the_last_order_without_changing_the_gradients(seed):
    # an objective keeps each query's order between calls; any start must give the fresh result
    y, s, qid = random_ranking(seed, n_queries=8, max_len=60, n_grades=3, tie_levels=6)
    off = offsets_of(qid)
    obj = br.LambdaObjective("mauc", pair_fraction=1.0, anchor=0)  # lambda_gradients: the λs alone
    prep = obj.bind(y, off)
    rng = np.random.default_rng(seed)
    for step in range(6):
        s = s + rng.normal(scale=0.3 if step % 2 else 5.0, size=s.shape)  # small and large moves
        if step == 3:
            s = np.round(s)  # ties again
        g, h = prep.gradients(s, scaled=False)
        g0, h0 = br.lambda_gradients(s, y, off, metric="mauc")
        np.testing.assert_allclose(g, g0, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(h, h0, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("metric,grades,fraction", [("auc", 2, 1.0), ("mauc", 4, 1.0), ("auc", 4, 0.5)])
def test_the_parallel_kernel_gives_the_serial_kernels_lambdas(seed, metric, grades, fraction, monkeypatch):
    """Numba's threads only spread the queries: the same λs and hessians, bit for bit, and the same
    order state for the next round (ties, single-class, one-row and empty queries included)."""
    import numba

    from boostrank._kernels.lambdas import lambda_auc_kernel_parallel

    y, s, qid = random_ranking(seed, n_queries=40, max_len=30, n_grades=grades, tie_levels=5)
    off = np.r_[offsets_of(qid), len(y)]  # an empty query at the end
    out = {}
    for n_jobs in (1, -1):
        obj = LambdaObjective(metric, pair_fraction=fraction, random_state=seed, n_jobs=n_jobs)
        prep = obj.bind(y, off)
        out[n_jobs] = [prep.gradients(s + k * np.sin(np.arange(len(s))), scaled=False) for k in range(3)]
        out[n_jobs].append(prep.order.copy())
    if numba.get_num_threads() > 1:
        assert lambda_auc_kernel_parallel.signatures
        bounds = prep.chunks[1]
        assert bounds[0] == 0 and bounds[-1] == len(off) - 1 and np.all(np.diff(bounds) > 0)
    for (g1, h1), (g2, h2) in zip(out[1][:3], out[-1][:3]):
        np.testing.assert_array_equal(g1, g2)
        np.testing.assert_array_equal(h1, h2)
    np.testing.assert_array_equal(out[1][3], out[-1][3])


def test_the_same_random_state_repeats_the_sample_and_another_does_not():
    y, s, qid = random_ranking(2, n_queries=5, max_len=20, n_grades=2, tie_levels=50)
    off = offsets_of(qid)

    def run(seed):
        obj = LambdaObjective("auc", random_state=seed, anchor=0.0)  # the λs alone (the anchor: test_anchor.py)
        prep = obj.bind(y, off)
        return [prep.gradients(s)[0].copy() for _ in range(3)]

    a, b, c = run(1), run(1), run(2)
    for x, z in zip(a, b):
        np.testing.assert_array_equal(x, z)
    assert not np.array_equal(a[0], a[1]) and not np.array_equal(a[0], c[0])
    # the default objective samples half the pairs, seed 0; lambda_gradients sums every pair unless asked
    assert LambdaObjective("auc").pair_stride is None
    # (to rounding: the per-query factor and the scale multiply in another order)
    np.testing.assert_allclose(run(0)[0] / LambdaObjective("auc", anchor=0.0).bind(y, off).hessian_scale(),
                               br.lambda_gradients(s, y, off, pair_fraction=None)[0],
        rtol=1e-14, atol=1e-17)


@pytest.mark.parametrize("n_chunks", [1, 3, 8])
def test_the_parallel_anchor_adds_the_same_sums(n_chunks):
    from boostrank._kernels.lambdas import add_anchor_parallel

    rng = np.random.default_rng(n_chunks)
    for n in (0, 5, 1000):
        s = rng.normal(scale=3.0, size=n)
        classes = rng.integers(0, 4, n)
        bias = rng.normal(size=3)
        g1, h1 = rng.normal(size=n), rng.random(n)
        g2, h2 = g1.copy(), h1.copy()
        add_anchor(s, classes, bias, 0.4, g1, h1, NO_EXAM, 1.0, g1, h1)
        add_anchor_parallel(s, classes, bias, 0.4, g2, h2, n_chunks, NO_EXAM, 1.0, g2, h2)
        np.testing.assert_array_equal(g1, g2)
        np.testing.assert_array_equal(h1, h2)


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("scale", [1.0, 0.37, 3e5])
def test_the_anchor_scales_and_writes_float32_as_the_separate_steps_did(parallel, scale):
    """The anchor's pass takes the λs' scale and writes the engine's float32 buffers: bit for bit what scaling
    in place, adding the anchor and casting (NumPy's copyto) gave; grad and hess themselves are left as read."""
    from boostrank._kernels.lambdas import add_anchor_parallel

    rng = np.random.default_rng(7)
    for n in (0, 1, 5, 257, 1000):
        s = rng.normal(scale=3.0, size=n)
        s[: n // 10] = 0.0  # ties at zero, the first round's scores
        classes = rng.integers(0, 3, n)
        bias = rng.normal(size=2)
        g, h = rng.normal(size=n) * 1e-3, rng.random(n) * 1e-3
        g_old, h_old = g * scale, h * scale
        add_anchor(s, classes, bias, 0.3, g_old, h_old, NO_EXAM, 1.0, g_old, h_old)
        want = g_old.astype(np.float32), h_old.astype(np.float32)
        g32, h32 = np.full(n, np.nan, np.float32), np.full(n, np.nan, np.float32)
        before = g.copy(), h.copy()
        if parallel:
            add_anchor_parallel(s, classes, bias, 0.3, g, h, 3, NO_EXAM, scale, g32, h32)
        else:
            add_anchor(s, classes, bias, 0.3, g, h, NO_EXAM, scale, g32, h32)
        np.testing.assert_array_equal(g32, want[0])
        np.testing.assert_array_equal(h32, want[1])
        np.testing.assert_array_equal(g, before[0])
        np.testing.assert_array_equal(h, before[1])


@pytest.mark.parametrize("metric, kw", [("auc", {}), ("mauc", {}), ("auc", {"link": "probit"}), ("auc", {"anchor": 0.0}),
                                        ("mauc", {"pair_fraction": None}), ("auc", {"norm": False})])
def test_float32_gradients_are_the_float64_ones_rounded(metric, kw):
    """What the engines get (float32, written by the anchor's pass where there is one) is the float64 result of
    the same call rounded once, scaled and unscaled, round after round."""
    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 40, 60)
    off = np.r_[0, np.cumsum(sizes)]
    y = rng.integers(0, 4 if metric == "mauc" else 2, off[-1]).astype(float)
    a = br.LambdaObjective(metric, **kw).bind(y, off)
    b = br.LambdaObjective(metric, **kw).bind(y, off)
    s = np.zeros(off[-1])
    for _ in range(3):
        for scaled in (True, False):
            g64, h64 = a.gradients(s, scaled=scaled)
            g32, h32 = b.gradients(s, dtype=np.float32, scaled=scaled)
            np.testing.assert_array_equal(g32, g64.astype(np.float32))
            np.testing.assert_array_equal(h32, h64.astype(np.float32))
        s = s - 0.5 * g64 / np.maximum(h64, 1e-3) + rng.normal(scale=0.05, size=s.shape)


@pytest.mark.parametrize("rows, lists, want", [(60_000, 1, 2), (40_000, 1, 1), (60_000, 3_000, 1), (250_000, 5_000, 2)])
def test_the_thread_rule_gives_one_long_list_all_threads(rows, lists, want):
    """One list on the probit series takes every thread from SERIES_PARALLEL_MIN_ROWS rows (its sweeps split
    across threads pay, idle and under load); many short lists only from PARALLEL_MIN_ROWS (each list a parallel
    region of its own does not); n_jobs overrides both."""
    rng = np.random.default_rng(0)
    y = (rng.random(rows) < 0.1).astype(float)
    offsets = np.linspace(0, rows, lists + 1).astype(np.int64)
    assert LambdaObjective("auc").bind(y, offsets)._threads(2) == want
    assert LambdaObjective("auc", n_jobs=1).bind(y, offsets)._threads(2) == 1
