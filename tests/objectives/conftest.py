"""Helpers shared by the λ objective tests."""

import numpy as np


NO_EXAM = np.zeros(0)  # no examination propensities: the anchor's plain log-loss


def offsets_of(qid):
    return np.flatnonzero(np.r_[True, qid[1:] != qid[:-1], True])
