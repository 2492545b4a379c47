"""Mutated LETOR files: the only error is LetorFormatError, and what loads is what scikit-learn reads.

A few hundred examples by default; set BOOSTRANK_FUZZ_EXAMPLES for a longer run.
"""

import io
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_svmlight_file

import boostrank as br

N_EXAMPLES = int(os.environ.get("BOOSTRANK_FUZZ_EXAMPLES", "300"))

TOKENS = ["1", "0", "2", "-1", "qid:", "qid:7", "qid:99999999999999999999", "3:", ":4", "1:nan", "2:inf",
          "1e400", "inf", "#", "#docid = x", " ", "\t", "\r", "\x0c", "\x00", "\xe9", "0:1", "5:0.5", "2:1:3",
          "99999999999999999999:1", "2000000000:1", "-2:1", "1.5", "qid:1.5", "\n", "\n\n", "1 qid:1 1:0.5"]


def _valid_text(rng):
    lines = []
    for q in range(int(rng.integers(1, 4))):
        for _ in range(int(rng.integers(1, 4))):
            feats = " ".join(f"{j}:{rng.normal():.3g}" for j in sorted(rng.choice(np.arange(1, 6), 3, replace=False)))
            lines.append(f"{int(rng.integers(0, 3))} qid:{q + 1} {feats} #docid = d{len(lines)}")
    return "\n".join(lines) + "\n"


@st.composite
def mutated(draw):
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    text = _valid_text(rng)
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["insert", "delete", "replace", "swap_lines"]))
        pos = draw(st.integers(0, max(len(text) - 1, 0)))
        if kind == "insert":
            text = text[:pos] + draw(st.sampled_from(TOKENS)) + text[pos:]
        elif kind == "delete":
            text = text[:pos] + text[pos + draw(st.integers(1, 5)):]
        elif kind == "replace":
            text = text[:pos] + draw(st.sampled_from(TOKENS)) + text[pos + 1:]
        else:
            lines = text.split("\n")
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
    return text.encode("utf-8", errors="surrogateescape")


@settings(max_examples=N_EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=mutated())
def test_mutated_letor_files_load_correctly_or_raise_letor_format_error(tmp_path, raw):
    path = tmp_path / "fuzz.txt"
    path.write_bytes(raw)
    try:
        data = br.load_letor(path, sparse=True)
    except br.LetorFormatError as exc:
        assert str(path) in str(exc)
        return
    n = len(data)
    assert n > 0 and int(data.group_sizes.sum()) == n
    starts = np.flatnonzero(np.r_[True, data.qid[1:] != data.qid[:-1]])
    assert len(set(data.qid[starts].tolist())) == len(starts)  # contiguous queries
    assert np.isfinite(data.X.data).all() and np.isfinite(data.y).all()
    X, y, qid = load_svmlight_file(io.BytesIO(raw), query_id=True, dtype=np.float64, n_features=data.n_features)
    np.testing.assert_array_equal(y, data.y)
    if qid.size:
        np.testing.assert_array_equal(qid, data.qid)
    else:  # no qid in the file: one list
        assert len(set(data.qid.tolist())) == 1
    assert (X != data.X).nnz == 0


@pytest.mark.parametrize("kind", ["scores", "trec", "query", "xz", "gz", "bz2"])
def test_mutated_score_run_query_and_compressed_files_read_or_raise_value_errors(tmp_path, kind):
    """Every other file the CLI reads: a mutation gives finite aligned scores / data, or a ValueError."""
    import lzma
    import random

    rng = random.Random(kind)
    data = br.datasets.make_letor(4, random_state=0)
    data.docid = np.array([f"d{i}" for i in range(len(data))], dtype=object)
    letor = tmp_path / "data.txt"
    br.save_letor(letor, data)
    data = br.load_letor(letor)
    s = np.random.default_rng(0).normal(size=len(data))
    if kind == "scores":
        raw = "".join(f"{v!r}\n" for v in s).encode()
    elif kind == "trec":
        raw = "".join(f"{q} Q0 {d} {i + 1} {v!r} run\n" for i, (q, d, v) in
                      enumerate(zip(data.qid, data.docid, s))).encode()
    elif kind == "query":
        raw = "".join(f"{n}\n" for n in data.group_sizes).encode()
        plain = tmp_path / "noqid.txt"
        br.save_letor(plain, data.X, data.y)
    else:
        import bz2
        import gzip

        raw = {"xz": lzma.compress, "gz": gzip.compress, "bz2": bz2.compress}[kind](letor.read_bytes())
    for i in range(N_EXAMPLES):
        body = bytearray(raw)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(body))
            action = rng.randrange(3)
            if action == 0:
                body[at] = rng.choice(b"0123456789 -.\neQ#\x00\xff")
            elif action == 1:
                del body[at]
            else:
                body.insert(at, rng.choice(b"0123456789 -.\neQ#\x00\xff"))
        path = tmp_path / f"m{i}"
        try:
            if kind == "query":
                path.write_bytes(bytes(body))
                loaded = br.load_letor(plain, query_file=path)
                assert loaded.group_sizes.sum() == len(data)
            elif kind in ("xz", "gz", "bz2"):
                path = path.with_suffix("." + kind)
                path.write_bytes(bytes(body))
                loaded = br.load_letor(path)
                assert np.isfinite(loaded.X.toarray() if hasattr(loaded.X, "toarray") else loaded.X).all()
            else:
                path.write_bytes(bytes(body))
                got = br.evaluation.read_scores(path, data, format=kind)
                assert got.shape == (len(data),) and np.isfinite(got).all()
        except ValueError:  # LetorFormatError is one
            pass
