"""boostrank.rerank.gate: the re-ranker's held-out gate never keeps a second stage that lost on held-out queries."""

import numpy as np
import pytest

import boostrank as br

from ..conftest import base_lists


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_the_gate_never_keeps_a_model_that_lost_on_held_out_queries(seed):
    X, y, base, qid = base_lists(seed, n_lists=18)
    perfect = y + 0.01 * base  # the base order is already the best possible
    with pytest.warns(UserWarning, match="in-sample"):
        m = br.TopKReranker(k=5, time_limit=2).fit(X, y, base_scores=perfect, qid=qid)
    assert m.result_.status == "base order" and "held-out" in m.result_.reason
    np.testing.assert_array_equal(m.predict(X, perfect, qid=qid), m._positions(perfect, np.arange(0, 217, 12), None))
    m = br.TopKReranker(k=[3, 6], l0="cv", time_limit=3).fit(X, y, base_scores=base, qid=qid)
    chosen = m.result_.heldout_gain[(m.result_.model, m.result_.k, m.result_.l0)]
    kept = m.result_.status == "re-ranked"
    assert kept == (m.result_.gate_gain > 0 and m.result_.p_value < 0.05)
    assert chosen == max(m.result_.heldout_gain.values())


# ---------------------------------------------------------------- issue 81: the gate measures the choice
def _choose_reference(per_fold):
    """Brute force: fold f's lists scored by the candidate with the largest total over the other folds."""
    cands = list(per_fold)
    n_folds = len(per_fold[cands[0]])
    out = []
    for f in range(n_folds):
        totals = [sum(float(np.sum(per_fold[c][g])) for g in range(n_folds) if g != f) for c in cands]
        out.extend(per_fold[cands[int(np.argmax(totals))]][f])
    return np.array(out)


def _clustered_reference(d, cluster):
    """CR1 by the textbook sandwich: a regression on a constant, scores summed per cluster, G − 1 df."""
    from scipy import stats

    d = np.asarray(d, dtype=float)
    if d.size == 0:
        return 0.0, np.nan, 1.0
    X = np.ones((d.size, 1))
    beta = np.linalg.lstsq(X, d, rcond=None)[0]
    u = d - X @ beta
    groups = sorted(set(cluster.tolist()))
    g = len(groups)
    if g < 2:
        return float(beta[0]), np.nan, 1.0
    meat = sum(np.outer(X[cluster == c].T @ u[cluster == c], X[cluster == c].T @ u[cluster == c]) for c in groups)
    bread = np.linalg.inv(X.T @ X)
    var = g / (g - 1) * (bread @ meat @ bread)[0, 0]
    se = float(np.sqrt(var))
    if se == 0:
        return float(beta[0]), 0.0, 0.0 if beta[0] > 0 else 1.0
    return float(beta[0]), se, float(stats.t.sf(beta[0] / se, g - 1))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n_cands, n_folds", [(1, 2), (3, 2), (7, 5), (4, 3)])
def test_choose_scores_each_fold_by_the_other_folds_choice(seed, n_cands, n_folds):
    from boostrank.rerank.gate import choose

    rng = np.random.default_rng(seed)
    sizes = rng.integers(0, 6, n_folds)  # a fold may hold no list
    per_fold = {("c", i): [rng.normal(0.01 * i, 0.1, s) for s in sizes] for i in range(n_cands)}
    if seed == 0:
        per_fold[("c", 0)] = [np.zeros(s) for s in sizes]  # ties: the first candidate wins
    best, gains, chosen, mean, se, p = choose(per_fold)
    np.testing.assert_array_equal(chosen, _choose_reference(per_fold))
    assert gains[best] == max(gains.values())
    ref = _clustered_reference(chosen, np.repeat(np.arange(n_folds), sizes))
    np.testing.assert_allclose([mean, se, p], ref, rtol=1e-9, atol=1e-15)
    assert gains == pytest.approx({c: float(sum(np.sum(g) for g in v)) for c, v in per_fold.items()})


def test_the_gate_tests_one_gain_per_held_out_list(monkeypatch):
    """Each fold's lists only: a zero for every list outside the fold inflated the t-test's n."""
    import boostrank.rerank.estimator as rerank_module
    from boostrank.rerank.gate import choose

    seen = []

    def spy(per_fold, overlap=False):
        seen.append(sum(a.size for a in next(iter(per_fold.values()))))
        return choose(per_fold, overlap)

    monkeypatch.setattr(rerank_module, "choose", spy)
    X, y, base, qid = base_lists(0, n_lists=18)
    br.TopKReranker(k=4, time_limit=None, random_state=0).fit(X, y, base_scores=base, qid=qid)
    assert seen == [18]


def _nadeau_bengio_reference(d, cluster):
    """The corrected resampled t-test written out (Nadeau & Bengio 2003; Bouckaert & Frank 2004): the fold
    means' spread σ², its variance (1/J + n_test/n_train)·σ² over J equal folds, J − 1 degrees of freedom."""
    from scipy import stats

    d = np.asarray(d, dtype=float)
    folds = sorted(set(cluster.tolist()))
    means = np.array([d[cluster == f].mean() for f in folds])
    j = len(folds)
    n_test = d.size / j
    var = (1 / j + n_test / (d.size - n_test)) * means.var(ddof=1)
    se = float(np.sqrt(var))
    return float(d.mean()), se, float(stats.t.sf(d.mean() / se, j - 1))


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("n_folds, per_fold", [(2, 3), (3, 7), (5, 30), (10, 4)])
def test_the_overlap_correction_is_nadeau_and_bengios_on_equal_folds(seed, n_folds, per_fold):
    from boostrank.rerank.gate import clustered_p

    rng = np.random.default_rng(seed)
    cluster = np.repeat(np.arange(n_folds), per_fold)
    d = rng.normal(0.02, 0.1, cluster.size) + np.repeat(rng.normal(0, 0.03, n_folds), per_fold)
    mean, se, p = clustered_p(d, cluster, overlap=True)
    np.testing.assert_allclose([mean, se, p], _nadeau_bengio_reference(d, cluster), rtol=1e-9)
    plain = clustered_p(d, cluster)
    assert se == pytest.approx(plain[1] * np.sqrt(1 + n_folds / (n_folds - 1)), rel=1e-12)


@pytest.mark.slow  # two gate fits
def test_the_gate_corrects_for_refitted_bases_only(monkeypatch):
    """A base_estimator is refitted per fold (the correction); base_scores are given (none)."""
    import boostrank.rerank.estimator as rerank_module
    from boostrank.rerank.gate import choose

    seen = []

    def spy(per_fold, overlap=False):
        seen.append(overlap)
        return choose(per_fold, overlap)

    monkeypatch.setattr(rerank_module, "choose", spy)
    X, y, base, qid = base_lists(0, n_lists=18)
    m = br.TopKReranker(k=4, time_limit=None, random_state=0).fit(X, y, base_scores=base, qid=qid)
    assert "overlapping" not in m.result_.reason
    from sklearn.linear_model import LogisticRegression

    m = br.TopKReranker(k=4, time_limit=None, random_state=0, base_estimator=LogisticRegression()).fit(X, y, qid=qid)
    assert seen == [False, True]
    assert "corrected for the folds' bases fitted on overlapping lists" in m.result_.reason
