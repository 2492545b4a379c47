"""boostrank.io.datasets: the bundled sample and the generators."""

import numpy as np
import pytest

import boostrank as br


def test_bundled_sample_is_make_letor_output():
    from boostrank.io.datasets import SAMPLE_ARGS, SAMPLE_TRAIN_QUERIES

    train, test = br.load_sample()
    full = br.datasets.make_letor(**SAMPLE_ARGS)
    cut = full.group_offsets[SAMPLE_TRAIN_QUERIES]
    np.testing.assert_array_equal(train.X, full.X[:cut])
    np.testing.assert_array_equal(test.y, full.y[cut:])
    assert train.n_queries == 300 and test.n_queries == 150


def test_make_letor_properties():
    a = br.datasets.make_letor(30, random_state=1)
    b = br.datasets.make_letor(30, random_state=1)
    np.testing.assert_array_equal(a.X, b.X)
    assert set(np.unique(a.y)) <= {0, 1, 2}
    assert a.X.min() >= 0 and a.X.max() <= 1
    assert np.all((a.group_sizes >= 5) & (a.group_sizes <= 30))
    # the informative features carry the signal, the others none
    from sklearn.linear_model import LogisticRegression

    big = br.datasets.make_letor(300, random_state=1)
    signal = LogisticRegression().fit(big.X[:, :4], big.y > 0).decision_function(big.X[:, :4])
    noise = LogisticRegression().fit(big.X[:, 4:], big.y > 0).decision_function(big.X[:, 4:])
    assert br.auc(big.y, signal, big.qid) > 0.7
    assert abs(br.auc(big.y, noise, big.qid) - 0.5) < 0.05
    with pytest.raises(ValueError, match="docs_per_query"):
        br.datasets.make_letor(3, docs_per_query=(0, 2))
