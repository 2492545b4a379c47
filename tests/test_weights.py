"""boostrank.weights: rank-risk weight families, their parameters and namespace."""

import numpy as np
import pytest

import boostrank as br


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


@pytest.mark.parametrize("name", ["dcg", "dcg_at", "local_auc", "mrr", "pnorm", "staircase", "wrs", "wta"])
def test_weight_families_live_in_their_own_namespace(name):
    assert name not in br.__all__ and name in dir(br.weights)
    with pytest.raises(AttributeError, match=f"no attribute {name!r}"):
        getattr(br, name)
