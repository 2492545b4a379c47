"""erfc_sum: fast against direct and against a term-by-term fsum oracle."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import boostrank as br
from boostrank.linear.erfc import series_parameters

from ..reference import erfc_sum_reference

ROUNDING = 1e-14  # float64 floor of any N-term sum relative to Σ|q| (both methods)


def _points(kind, rng, n, m):
    if kind == "normal":
        return rng.normal(size=m), rng.normal(size=n)
    if kind == "clustered":
        return rng.normal(size=m) * 1e-3 + 2.0, np.r_[rng.normal(size=n) * 1e-3, 2.0 + 1e-4 * rng.normal(size=n)][:n]
    if kind == "far_apart":
        return rng.normal(size=m) * 1e4, rng.normal(size=n) * 1e4
    if kind == "outlier":
        return np.r_[rng.normal(size=m - 1), 1e9][:m], np.r_[rng.normal(size=n - 1) * 0.01, -1e9][:n]
    if kind == "ties":
        return np.round(rng.normal(size=m) * 2), np.round(rng.normal(size=n) * 2)
    if kind == "offset":
        return rng.normal(size=m) + 1e6, rng.normal(size=n) + 1e6
    raise AssertionError(kind)


KINDS = ["normal", "clustered", "far_apart", "outlier", "ties", "offset"]


@pytest.mark.parametrize("eps", [1e-1, 1e-3, 1e-6, 1e-10, 1e-15])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("side", ["both", "below", "above"])
@pytest.mark.parametrize("kernel", ["erfc", "gauss"])
def test_fast_within_eps_of_direct(eps, kind, side, kernel):
    rng = np.random.default_rng(hash((kind, side, kernel)) % 2**32)
    y, z = _points(kind, rng, 300, 200)
    q = rng.normal(size=z.size)  # negative weights too
    direct = br.erfc_sum(y, z, q, method="exact", side=side, kernel=kernel)
    fast = br.erfc_sum(y, z, q, eps=eps, side=side, kernel=kernel)
    qabs = np.abs(q).sum()
    assert np.max(np.abs(fast - direct)) <= (eps + ROUNDING) * qabs


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("kernel", ["erfc", "gauss"])
def test_the_parallel_and_serial_fast_sums_give_the_same_bits(kind, kernel, monkeypatch):
    """Below ERFC_PARALLEL_MIN_POINTS the sum runs on one thread; the batches' partial sums add in batch
    order either way, so the two agree to rounding (many batches: 4 000 sources; the series' reassociated
    loops may vectorise differently in the parallel kernel, so not to the bit)."""
    import boostrank.linear.erfc as erfc_module
    from boostrank._kernels.erfc import source_coefficients_parallel, target_sums_parallel

    rng = np.random.default_rng(len(kind))
    y, z = _points(kind, rng, 4000, 3000)
    q = rng.normal(size=z.size)
    out = {}
    for name, limit in (("serial", 10**12), ("parallel", 0)):
        monkeypatch.setattr(erfc_module, "ERFC_PARALLEL_MIN_POINTS", limit)
        out[name] = br.erfc_sum(y, z, q, eps=1e-8, kernel=kernel)
    np.testing.assert_allclose(out["serial"], out["parallel"], rtol=0, atol=ROUNDING * np.abs(q).sum())
    import numba

    if numba.get_num_threads() > 1:
        assert source_coefficients_parallel.signatures and target_sums_parallel.signatures


@pytest.mark.parametrize("side", ["both", "below", "above"])
@pytest.mark.parametrize("kernel", ["erfc", "gauss"])
def test_direct_matches_fsum_oracle(side, kernel):
    rng = np.random.default_rng(1)
    y, z = np.round(rng.normal(size=40), 1), np.round(rng.normal(size=30), 1)
    q = rng.normal(size=30)
    np.testing.assert_allclose(br.erfc_sum(y, z, q, method="exact", side=side, kernel=kernel),
                               erfc_sum_reference(y, z, q, side, kernel), rtol=0, atol=1e-13)


@pytest.mark.parametrize("n,m", [(0, 5), (5, 0), (0, 0), (1, 1), (1, 7), (7, 1)])
@pytest.mark.parametrize("side", ["both", "below", "above"])
def test_empty_and_single_points(n, m, side):
    rng = np.random.default_rng(n * 10 + m)
    y, z, q = rng.normal(size=m), rng.normal(size=n), rng.normal(size=n)
    fast = br.erfc_sum(y, z, q, eps=1e-12, side=side)
    assert fast.shape == (m,)
    np.testing.assert_allclose(fast, erfc_sum_reference(y, z, q, side), atol=1e-11 * max(1, np.abs(q).sum()))


def test_sides_add_up_and_series_parameters_grow_with_accuracy():
    rng = np.random.default_rng(3)
    y, z = rng.normal(size=500), np.r_[rng.normal(size=499), 0.0]
    y[0] = 0.0  # a target equal to a source: counted in "above"
    both = br.erfc_sum(y, z, eps=1e-12)
    np.testing.assert_allclose(br.erfc_sum(y, z, eps=1e-12, side="below")
                               + br.erfc_sum(y, z, eps=1e-12, side="above"), both, atol=1e-9)
    ps = [series_parameters(e).p for e in (1e-1, 1e-3, 1e-6, 1e-10, 1e-15)]
    assert ps == sorted(ps) and ps[0] < ps[-1]


def test_bad_input():
    with pytest.raises(ValueError, match="eps"):
        br.erfc_sum([0.0], [0.0], eps=0.0)
    with pytest.raises(ValueError, match="NaN"):
        br.erfc_sum([np.nan], [0.0])
    with pytest.raises(ValueError, match="weights"):
        br.erfc_sum([0.0], [0.0, 1.0], [1.0])
    with pytest.raises(ValueError, match="side"):
        br.erfc_sum([0.0], [0.0], side="left")
    with pytest.raises(ValueError, match="method"):
        br.erfc_sum([0.0], [0.0], method="cluster")


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([1e3, 1e12, 1e20, 1e100, 1e300]))
def test_erfc_sum_on_any_spread_matches_direct_or_refuses(seed, spread):
    rng = np.random.default_rng(seed)
    y = rng.choice([-1.0, 0.0, 1.0], size=5) * spread * rng.random(5)
    z = np.r_[rng.choice([-1.0, 0.0, 1.0], size=4) * spread * rng.random(4), 0.0]
    q = rng.normal(size=5)
    for side in ("both", "below", "above"):
        fast = br.erfc_sum(y, z, q, eps=1e-8, side=side)
        direct = br.erfc_sum(y, z, q, method="exact", side=side)
        np.testing.assert_allclose(fast, direct, atol=1e-7 * np.abs(q).sum())
    big = np.r_[np.zeros(2100), 1e300]
    with pytest.raises(ValueError, match="span"):
        br.erfc_sum(big, big)


def test_erfc_sum_reported_overflow_inputs():
    np.testing.assert_allclose(br.erfc_sum([1e20, 0.0], [0.0, -1e20]), br.erfc_sum([1e20, 0.0], [0.0, -1e20],
                                                                                    method="exact"))
    np.testing.assert_allclose(br.erfc_sum([1e300, -1e300, 0.0], [0.0, 1e300]),
                               br.erfc_sum([1e300, -1e300, 0.0], [0.0, 1e300], method="exact"))


@pytest.mark.parametrize("method", ["exact", "fast"])
def test_erfc_sum_with_weights_near_the_largest_float(method):
    """Hardening #22: weights near 1e308 returned NaN silently."""
    y, z = np.array([0.0, 1.0, 3.0]), np.array([0.0, 0.5, 1.0])
    small = br.erfc_sum(y, z, np.array([1.0, -0.5, 0.25]), method=method)
    np.testing.assert_allclose(br.erfc_sum(y, z, np.array([1.0, -0.5, 0.25]) * 1e307, method=method),
                               small * 1e307, rtol=1e-6)
    with pytest.raises(ValueError, match="largest float"):
        br.erfc_sum(y, z, np.full(3, 1.5e308), method=method)
