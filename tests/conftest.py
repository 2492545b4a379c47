import io
import os

import numpy as np
import pytest

#: the checkout under test: the scripts, examples and console commands the tests start import it too, not a
#: copy `pip install .` put in site-packages (which may be stale, and whose Numba cache `boostrank warmup`,
#: run from the checkout, never filled: a cold demo compiled every kernel again inside the suite)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p)


@pytest.fixture
def rng(request):
    seed = getattr(request, "param", 0)
    return np.random.default_rng(seed)


def random_ranking(seed, n_queries=6, max_len=12, n_grades=3, tie_levels=4):
    """Queries of random length (1 included) with graded labels and many score ties."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_len + 1, size=n_queries)
    n = int(sizes.sum())
    y = rng.integers(0, n_grades, size=n)
    # single-class queries occur naturally; force one all-zero query too
    if n_queries > 1:
        y[: sizes[0]] = 0
    scores = rng.integers(0, tie_levels, size=n).astype(float)
    qid = np.repeat(np.arange(n_queries) + 10, sizes)
    return y, scores, qid


def nonlinear_letor(n_queries=40, seed=0):
    """A LETOR set with a non-linear utility and label noise: the fits and files of end-to-end tests."""
    import boostrank as br

    return br.datasets.make_letor(n_queries, random_state=seed, relevance="nonlinear", noise=0.5)


def small_lists(seed=0, n_q=8, size=12, d=3):
    """``n_q`` lists of ``size`` rows, ``d`` normal features, binary labels from the first feature and noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_q * size, d))
    y = (X[:, 0] + rng.normal(size=n_q * size) > 0.5).astype(int)
    return X, y, np.repeat(np.arange(n_q), size)


def base_lists(seed, n_lists=24, size=12, d=3):
    """Lists of one size with binary labels and a base ranker's scores: what a top-k re-ranker starts from."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_lists * size, d))
    y = (X[:, 0] - X[:, 1] + 0.5 * rng.normal(size=len(X)) > 0.8).astype(int)
    base = X[:, 0] + rng.normal(size=len(X))
    qid = np.repeat(np.arange(n_lists), size)
    return X, y, base, qid


class EndlessStream(io.RawIOBase):
    """A binary stream that gives ``head`` and then ``x`` without end (a file from elsewhere that never stops);
    ``given`` counts the bytes handed out."""

    def __init__(self, head: bytes):
        self.head = head
        self.given = 0

    def readable(self):
        return True

    def readinto(self, buffer):
        chunk = (self.head if not self.given else b"x" * len(buffer))[:len(buffer)]
        buffer[:len(chunk)] = chunk
        self.given += len(chunk)
        return len(chunk)
