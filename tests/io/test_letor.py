import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, HealthCheck
from hypothesis import strategies as st

import boostrank as br
from boostrank import LetorFormatError, load_letor, save_letor
import lzma
import io
import os
from sklearn.datasets import load_svmlight_file

GOOD = """\
2 qid:10 1:0.5 3:1.25 #docid = GX-1 inc = 1 prob = 0.3
0 qid:10 1:0.1 2:0.2 #docid = GX-2

1 qid:11 2:3 3:-1e-05
"""


def write(tmp_path, text, name="f.txt"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_load_fields(tmp_path):
    d = load_letor(write(tmp_path, GOOD))
    np.testing.assert_array_equal(d.X, [[0.5, 0, 1.25], [0.1, 0.2, 0], [0, 3, -1e-5]])
    assert d.y.dtype == np.int64 and d.y.tolist() == [2, 0, 1]
    assert d.qid.tolist() == [10, 10, 11]
    assert d.group_sizes.tolist() == [2, 1] and d.group_offsets.tolist() == [0, 2, 3]
    assert d.docid.tolist() == ["GX-1", "GX-2", None]
    assert d.comments[0] == "docid = GX-1 inc = 1 prob = 0.3" and d.comments[2] is None
    assert d.line.tolist() == [1, 2, 4]
    assert d.n_queries == 2 and len(d) == 3


def test_as_frame(tmp_path):
    df = load_letor(write(tmp_path, GOOD), as_frame=True)
    assert list(df.columns) == ["qid", "label", "docid", "f1", "f2", "f3"]
    assert df["docid"].tolist()[:2] == ["GX-1", "GX-2"]
    assert df["f3"].iloc[2] == -1e-5


def test_sparse_option_and_width(tmp_path):
    p = write(tmp_path, GOOD)
    d = load_letor(p, sparse=True, n_features=5)
    assert sp.issparse(d.X) and d.X.shape == (3, 5)
    wide = "1 qid:1 3:1 2000:2\n0 qid:1 7:1\n"
    assert sp.issparse(load_letor(write(tmp_path, wide, "w.txt")).X)


@pytest.mark.parametrize("text,line,match", [
    ("1 qid:1 1:0.5\nx qid:1 1:0.2\n", 2, "label 'x' is not a number"),
    ("1 qid:1 1:0.5\n0 qid:a 1:0.2\n", 2, "qid 'a' is not an integer"),
    ("1 qid:1 1:0.5\n0 qid:1 1=0.2\n", 2, r"expected <index>:<value>, got '1=0.2'"),
    ("1 qid:1 1:0.5\n\n0 qid:1 2:abc\n", 3, "feature 2 has non-numeric value 'abc'"),
    ("1 qid:1 0:0.5\n", 1, "feature index 0 in a 1-based file"),
    ("1 qid:1 3:0.5 2:0.1\n", 1, "feature indices must increase; 2 follows 3"),
    ("1 qid:1 1:0.5\n0 1:0.2\n", 2, "row has no qid while other rows do"),
    ("1 qid:1 1:0.5\n0.5 qid:1 1:0.2\n", 2, "label 0.5 is not an integer"),
    ("1 qid:1 1:0.5\n0 qid:1 1:nan\n", 2, "NaN or inf feature value"),
    ("1 qid:1 1:0.5\n0 qid:1 2:inf\n", 2, "NaN or inf feature value"),
    ("1 qid:1 1:0.5\n0 qid:2 1:0.2\n1 qid:1 1:0.3\n", 3, "qid 1 appears again"),
])
def test_malformed_lines_name_file_and_line(tmp_path, text, line, match):
    p = write(tmp_path, text)
    with pytest.raises(LetorFormatError, match=match) as info:
        load_letor(p)
    assert info.value.line == line
    assert str(info.value).startswith(f"{p}:{line}: ")


def test_empty_file(tmp_path):
    with pytest.raises(LetorFormatError, match="no data rows"):
        load_letor(write(tmp_path, "# just a comment\n\n"))


def test_nonfinite_allowed_on_request(tmp_path):
    d = load_letor(write(tmp_path, "1 qid:1 1:nan 2:inf\n"), allow_nonfinite=True)
    assert np.isnan(d.X[0, 0]) and np.isinf(d.X[0, 1])


def test_regroup_moves_rows_together_and_keeps_everything(tmp_path):
    text = ("1 qid:5 1:1 #docid = a\n0 qid:2 1:2 #docid = b\n"
            "0 qid:5 1:3 #docid = c\n2 qid:2 1:4 #docid = d\n1 qid:9 1:5 #docid = e\n")
    d = load_letor(write(tmp_path, text), regroup=True)
    assert d.qid.tolist() == [5, 5, 2, 2, 9]
    assert d.docid.tolist() == ["a", "c", "b", "d", "e"]
    assert d.X[:, 0].tolist() == [1, 3, 2, 4, 5]
    assert d.y.tolist() == [1, 0, 0, 2, 1]
    assert d.line.tolist() == [1, 3, 2, 4, 5]
    assert d.group_sizes.tolist() == [2, 2, 1]


def test_query_side_file(tmp_path):
    p = write(tmp_path, "1 1:1\n0 1:2\n0 1:3\n2 1:4\n")
    (tmp_path / "f.txt.query").write_text("3\n1\n")
    d = load_letor(p)
    assert d.group_sizes.tolist() == [3, 1] and d.qid.tolist() == [0, 0, 0, 1]
    other = write(tmp_path, "2\n2\n", "sizes.txt")
    assert load_letor(p, query_file=other).group_sizes.tolist() == [2, 2]
    write(tmp_path, "3\n", "bad.txt")
    with pytest.raises(LetorFormatError, match="add up to 3 but .* has 4 rows"):
        load_letor(p, query_file=tmp_path / "bad.txt")
    write(tmp_path, "3\nx\n", "bad2.txt")
    with pytest.raises(LetorFormatError, match="bad2.txt:2: group size 'x'"):
        load_letor(p, query_file=tmp_path / "bad2.txt")


def test_without_qid_or_side_file_is_one_list(tmp_path):
    d = load_letor(write(tmp_path, "1 1:1\n0 1:2\n", "noq.txt"))
    assert d.group_sizes.tolist() == [2]


def test_round_trip_dense_and_sparse(tmp_path):
    data = br.datasets.make_letor(12, decimals=None, random_state=3)
    p = tmp_path / "rt.txt"
    save_letor(p, data)
    back = load_letor(p)
    np.testing.assert_array_equal(back.X, data.X)  # bit-exact: shortest repr round-trips
    np.testing.assert_array_equal(back.y, data.y)
    np.testing.assert_array_equal(back.qid, data.qid)
    np.testing.assert_array_equal(back.docid, data.docid)
    np.testing.assert_array_equal(back.group_sizes, data.group_sizes)
    save_letor(p, back)  # comments are kept verbatim
    assert p.read_text() == (tmp_path / "rt.txt").read_text()
    Xs = sp.random(20, 50, density=0.1, random_state=0, format="csr")
    save_letor(p, Xs, np.arange(20) % 3, np.repeat([1, 2], 10))
    back = load_letor(p, sparse=True, n_features=50)
    assert (back.X != Xs).nnz == 0


def test_save_validates(tmp_path):
    with pytest.raises(ValueError, match="integers"):
        save_letor(tmp_path / "x.txt", np.zeros((2, 1)), [0.5, 1])
    with pytest.raises(ValueError, match="X has 2 rows but y has 3"):
        save_letor(tmp_path / "x.txt", np.zeros((2, 1)), [0, 1, 1])


finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@st.composite
def letor_tables(draw):
    n_q = draw(st.integers(1, 4))
    sizes = draw(st.lists(st.integers(1, 4), min_size=n_q, max_size=n_q))
    n = sum(sizes)
    d = draw(st.integers(1, 4))
    X = np.array(draw(st.lists(finite, min_size=n * d, max_size=n * d))).reshape(n, d)
    y = np.array(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)))
    qids = draw(st.lists(st.integers(0, 10**6), min_size=n_q, max_size=n_q, unique=True))
    docs = draw(st.lists(st.text("abcXYZ019-_./", min_size=1, max_size=8), min_size=n, max_size=n))
    return X, y, np.repeat(qids, sizes), np.array(docs, dtype=object)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(table=letor_tables())
def test_random_files_round_trip(tmp_path, table):
    X, y, qid, docid = table
    p = tmp_path / "h.txt"
    save_letor(p, X, y, qid, docid=docid)
    back = load_letor(p, sparse=False, n_features=X.shape[1])
    np.testing.assert_array_equal(back.X, X)
    np.testing.assert_array_equal(back.y, y)
    np.testing.assert_array_equal(back.qid, qid)
    assert back.docid.tolist() == docid.tolist()




def test_take_queries():
    d = br.datasets.make_letor(6, random_state=4)
    part = d.take_queries([4, 1])
    assert part.qid.tolist() == [5] * d.group_sizes[4] + [2] * d.group_sizes[1]
    np.testing.assert_array_equal(part.X[: d.group_sizes[4]], d.X[d.group_offsets[4]:d.group_offsets[5]])
    assert part.docid[0] == "Q5-D0" and part.n_queries == 2




@pytest.mark.parametrize("label", ["inf", "-inf", "nan", "1e30", "1e400", "99999999999999999999", "2147483648"])
def test_non_finite_or_huge_labels_are_refused_with_their_line(tmp_path, label):
    path = tmp_path / "bad.txt"
    path.write_text(f"1 qid:1 1:0.5\n{label} qid:1 1:0.2\n")
    with pytest.raises(br.LetorFormatError, match=r"bad.txt:2: label"):
        br.load_letor(path)


@pytest.mark.parametrize("docid", ["A\n0 qid:1 1:999", "A\rB", "A\x0cB", "A\u2028B"])
def test_save_letor_refuses_line_breaks_in_docids(tmp_path, docid):
    with pytest.raises(ValueError, match="line break"):
        br.save_letor(tmp_path / "x.txt", np.ones((2, 1)), [0, 1], [1, 1], docid=["ok", docid])
    assert not (tmp_path / "x.txt").exists()


@pytest.mark.parametrize("kw, match", [({"qid": [1.7, 1.7, 2.2]}, "integers"), ({"qid": [1, 2, 1]}, "not contiguous"),
                                       ({"y": [0, np.inf, 1]}, "finite"), ({"y": [0, 1e30, 1]}, "within")])
def test_save_letor_refuses_what_load_letor_would_not_read_back(tmp_path, kw, match):
    args = {"y": [0, 1, 0], "qid": [1, 1, 2]} | kw
    with pytest.raises(ValueError, match=match):
        br.save_letor(tmp_path / "x.txt", np.ones((3, 1)), args["y"], args["qid"])


@pytest.mark.parametrize("module", ["gzip", "bz2", "lzma"])
def test_compressed_letor_files_load_like_the_plain_file(tmp_path, module):
    import importlib

    data = br.datasets.make_letor(5, random_state=3)
    plain = tmp_path / "plain.txt"
    br.save_letor(plain, data)
    packed = tmp_path / "packed.txt"
    packed.write_bytes(importlib.import_module(module).compress(plain.read_bytes()))
    a, b = br.load_letor(plain), br.load_letor(packed)
    np.testing.assert_array_equal(a.qid, b.qid)
    np.testing.assert_array_equal(a.y, b.y)
    np.testing.assert_array_equal(np.asarray(a.X.todense() if hasattr(a.X, "todense") else a.X),
                                  np.asarray(b.X.todense() if hasattr(b.X, "todense") else b.X))
    assert list(a.docid) == list(b.docid)
    (tmp_path / "broken.gz").write_bytes(packed.read_bytes()[:40] if module == "gzip" else b"\x1f\x8b\x08junk")
    with pytest.raises(br.LetorFormatError, match="damaged gzip"):
        br.load_letor(tmp_path / "broken.gz")


def test_only_newline_ends_a_row_and_undecodable_comment_bytes_round_trip(tmp_path):
    path = tmp_path / "odd.txt"
    path.write_bytes(b"1 qid:1 1:0.5 #doc\x0cA \xe9t\xe9\n0 qid:1 1:0.25 #docB\x85\n")
    data = br.load_letor(path)
    assert len(data) == 2 and data.comments[0].startswith("doc\x0cA")
    out = tmp_path / "back.txt"
    br.save_letor(out, data.X, data.y, data.qid, comments=[c.replace("\x0c", " ") for c in data.comments])
    assert out.read_bytes() == b"1 qid:1 1:0.5 #doc A \xe9t\xe9\n0 qid:1 1:0.25 #docB\x85\n"


@pytest.mark.parametrize("line, match", [
    ("1 qid:1 2000000000:0.5", "exceeds max_features"), ("1 qid:1 16777216:0.5", "exceeds max_features"),
    ("1 qid:1 99999999999999999999:0.5", ":2: feature index 99999999999999999999"),
    ("1 qid:99999999999999999999 1:0.5", ":2: qid 99999999999999999999 is outside the 64-bit"),
])
def test_huge_feature_indices_and_qids_are_letor_errors(tmp_path, line, match):
    """Hardening #13/#22: index 2**24 trained for 209 s in 13.4 GB; a huge qid named no line."""
    path = tmp_path / "wide.txt"
    path.write_text("1 qid:1 1:0.2\n" + line + "\n")
    with pytest.raises(br.LetorFormatError, match=match):
        br.load_letor(path)
    if "2000000000" in line:
        assert br.load_letor(path, max_features=2_000_000_000, sparse=True).X.shape[1] == 2_000_000_000


def test_a_misspelt_qid_is_an_error_not_a_feature_or_a_query(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("1 qid:1 1:0.5\n11 qid1:1 1:-0.00942 4:-0.359 #docid = d0\n")
    with pytest.raises(br.LetorFormatError, match=r"bad.txt:2: malformed query id 'qid1:1'"):
        br.load_letor(path)


def test_save_letor_that_fails_midway_leaves_the_old_file(tmp_path):
    """Hardening #7: an unencodable docid at row 900 left 900 rows that load_letor read as a whole file."""
    data = br.datasets.make_letor(1000, random_state=0)
    path = tmp_path / "f.txt"
    br.save_letor(path, data)
    before = path.read_bytes()
    docid = np.array([f"d{i}" for i in range(data.y.shape[0])], dtype=object)
    docid[900] = "\ud800"  # a lone surrogate: UTF-8 cannot write it
    with pytest.raises(UnicodeEncodeError):
        br.save_letor(path, data.X, data.y, data.qid, docid=docid)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


@pytest.mark.parametrize("module", ["gzip", "bz2", "lzma"])
def test_a_compressed_bomb_is_refused_at_its_first_line_and_blank_lines_cost_no_list(tmp_path, module):
    """Hardening 6 #1: a bad line then 32 MiB of newlines; a good file padded with them reads as its rows."""
    import importlib

    codec = importlib.import_module(module)
    bad = tmp_path / "bad"
    bad.write_bytes(codec.compress(b"1 qid:1 1:x\n" + b"\n" * (32 << 20)))
    with pytest.raises(br.LetorFormatError, match=r"bad:1: feature 1 has non-numeric value 'x'"):
        br.load_letor(bad, max_bytes=4 << 20)  # the head check fails before the cap would be reached
    padded = tmp_path / "padded"
    padded.write_bytes(codec.compress(b"1 qid:1 1:0.5\n" + b"\n" * (8 << 20) + b"0 qid:1 1:0.25\n"))
    data = br.load_letor(padded)
    assert data.line.tolist() == [1, (8 << 20) + 2] and data.X.ravel().tolist() == [0.5, 0.25]
    with pytest.raises(br.LetorFormatError, match="more than 1000000 bytes"):
        br.load_letor(padded, max_bytes=1_000_000)


def test_a_lone_carriage_return_in_a_letor_file_is_named_and_crlf_reads(tmp_path):
    """Hardening 6 #2: lone CR line ends ran rows together."""
    cr = tmp_path / "cr.txt"
    cr.write_bytes(b"1 qid:1 1:0.5\n0 qid:1 1:0.25\r1 qid:2 1:1\n")
    with pytest.raises(br.LetorFormatError, match=r"cr.txt:2: a carriage return"):
        br.load_letor(cr)
    crlf = tmp_path / "crlf.txt"
    crlf.write_bytes(b"1 qid:1 1:0.5 # docid = a\r\n0 qid:1 1:0.25 # docid = b\r\n")
    data = br.load_letor(crlf)
    assert data.docid.tolist() == ["a", "b"] and data.y.tolist() == [1, 0]


@pytest.mark.parametrize("cut", ["truncated", "corrupt"])
def test_damaged_xz_letor_file_is_a_letor_format_error(tmp_path, cut):
    """lzma.LZMAError escaped load_letor."""
    plain = tmp_path / "f.txt"
    br.save_letor(plain, np.zeros((4, 2)), [0, 1, 0, 1], qid=[1, 1, 2, 2])
    packed = bytearray(lzma.compress(plain.read_bytes()))
    if cut == "truncated":
        packed = packed[:-10]
    else:
        packed[30] ^= 0xFF
    bad = tmp_path / "f.txt.xz"
    bad.write_bytes(bytes(packed))
    with pytest.raises(br.LetorFormatError, match="damaged xz"):
        br.load_letor(bad)


def test_save_letor_refuses_x_that_is_not_two_dimensional(tmp_path):
    with pytest.raises(ValueError, match="2-D"):
        br.save_letor(tmp_path / "f.txt", np.zeros((2, 2, 2)), [0, 1])


@pytest.mark.parametrize("docid", ["a b", "a\tb", ""])
def test_a_docid_that_cannot_read_back_is_refused(tmp_path, docid):
    """Hardening #18: 'a b' read back as 'a', '' as None."""
    d = br.data.LetorData(X=np.zeros((2, 1)), y=np.array([1, 0]), qid=np.array([1, 1]),
                     docid=np.array([docid, "b"], dtype=object))
    with pytest.raises(ValueError, match="docid"):
        br.save_letor(tmp_path / "d.txt", d)
    assert not (tmp_path / "d.txt").exists()


@pytest.mark.parametrize("qid", [np.array([1e20, 1e20]), np.array([2**64 - 1] * 2, dtype=np.uint64)])
def test_a_qid_that_cannot_read_back_is_refused(tmp_path, qid):
    """Hardening #18: qid 1e20 or 2**64 - 1 was written and could not be read back."""
    with pytest.raises(ValueError, match="64-bit"):
        br.save_letor(tmp_path / "d.txt", np.zeros((2, 1)), np.array([1, 0]), qid)


def test_the_largest_int64_qid_and_plain_docids_round_trip(tmp_path):
    d = br.data.LetorData(X=np.zeros((2, 1)), y=np.array([1, 0]), qid=np.array([2**63 - 1] * 2),
                     docid=np.array(["GX000-00-0000000", "b-1"], dtype=object))
    br.save_letor(tmp_path / "d.txt", d)
    back = br.load_letor(tmp_path / "d.txt")
    assert back.qid.tolist() == d.qid.tolist() and back.docid.tolist() == d.docid.tolist()


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


@pytest.mark.slow  # over half a second warm
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
