"""boostrank._kernels.trec_columns: the helpers that let each thread write its rows into one set of columns, against
plain Python (the pass itself is tested through evaluation/files.py, against the line-by-line reader)."""

import numpy as np
import pytest

from boostrank._kernels import trec_columns as tc


@pytest.mark.parametrize("text", [b"", b"\n", b"\n\n", b"a", b"a\n", b"a\nb", b"a\r\nb\r\n", b"  \n\t\n", b"a\n\nb\n",
                                  b"\r", b"x" * 100])
def test_line_bound_counts_every_line_that_can_hold_a_row(text):
    lines = text.split(b"\n")
    want = len(lines) - (lines[-1] == b"")  # a final newline opens no line
    assert tc.line_bound(np.frombuffer(text, dtype=np.uint8)) == want


@pytest.mark.parametrize("seed", range(6))
def test_rows_move_down_in_place_and_codes_are_recoded(seed):
    rng = np.random.default_rng(seed)
    for dtype in (np.int64, np.float64):
        column = rng.integers(-50, 50, 40).astype(dtype)
        source = int(rng.integers(0, 40))
        to = int(rng.integers(0, source + 1))
        count = int(rng.integers(0, 40 - source + 1))
        add = int(rng.integers(-3, 4))
        want = column.copy()
        want[to:to + count] = column[source:source + count] + add  # NumPy copies the source first
        tc.move_rows(column, source, to, count, add)
        np.testing.assert_array_equal(column, want)
    codes = rng.integers(0, 7, 30)
    mapping = rng.permutation(7).astype(np.int64)
    want = mapping[codes]
    tc.recode(codes, mapping)
    np.testing.assert_array_equal(codes, want)


def test_a_pass_given_too_few_rows_hands_the_file_back_instead_of_writing_past_them():
    buf = np.frombuffer(b"q 0 a 1\nq 0 b 2\n", dtype=np.uint8)
    grades = np.full(2, -7, dtype=np.int64)
    out = tc.trec_columns(buf, 4, 4, 3, True, np.empty(1, np.int64), np.empty(2, np.int64), np.empty(1, np.int64),
                          np.empty(0), grades[:1], np.empty(buf.shape[0], np.uint8))
    assert out[0] == tc.STATUS_FALLBACK and grades[1] == -7
    out = tc.trec_columns(buf, 4, 4, 3, True, np.empty(2, np.int64), np.empty(3, np.int64), np.empty(2, np.int64),
                          np.empty(0), grades, np.empty(buf.shape[0], np.uint8))
    assert out[0] == 2 and grades.tolist() == [1, 2]
