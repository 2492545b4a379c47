"""boostrank._kernels.jit.numba_threads: Numba's thread count is a parameter of a call, left as it was found."""

import numba
import numpy as np
import pytest

import boostrank as br


def test_thread_count_is_a_parameter_and_is_left_as_found():
    before = numba.get_num_threads()
    for n_jobs in (None, 1, -1, before):
        obj = br.LambdaObjective("auc", n_jobs=n_jobs)
        obj.bind(np.array([1.0, 0, 0, 1])).gradients(np.zeros(4))
        assert numba.get_num_threads() == before
    assert br.xgboost_objective("auc").objective.n_jobs == 1
    assert br.lightgbm_objective("auc").objective.n_jobs is None  # the size rule, unless the engine says
    with pytest.raises(ValueError, match="n_jobs"):
        br.LambdaObjective("auc", n_jobs=0)
    with pytest.raises(TypeError, match="n_threads"):
        br.LambdaObjective("auc", n_threads=1)
