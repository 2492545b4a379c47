"""boostrank.gate: the re-ranker's held-out gate never keeps a second stage that lost on held-out queries."""

import numpy as np
import pytest

import boostrank as br

from .conftest import base_lists


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
    assert kept == (chosen > 0 and m.result_.p_value < 0.05)
    assert chosen == max(m.result_.heldout_gain.values())
