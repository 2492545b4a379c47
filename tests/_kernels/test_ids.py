"""The id kernels of TREC files (``boostrank/_kernels/ids.py``) against plain-Python references."""

import re

import numpy as np
import pytest

from boostrank.evaluation import files, ids as id_store, runs as run_types
from boostrank._kernels import ids as k
from boostrank._kernels.config import TREC_RADIX_MIN_ROWS
from boostrank._kernels.order import merge_order
from tests.reference import (line_spans_reference, first_duplicate_reference, id_hash_reference,
                             trec_order_reference)

#: ids with multi-byte characters, a prefix of another id, and one character long
WORDS = ["a", "ab", "b", "d10", "d9", "é", "éa", "日本", "z", "Z", "a-b", "\U0001f600"]


def random_ids(rng, n):
    return np.array([WORDS[i] + ("" if j == 0 else str(j)) for i, j in
                     zip(rng.integers(0, len(WORDS), n), rng.integers(0, 3, n))], dtype=object)


@pytest.mark.parametrize("seed", range(40))
def test_line_spans_equal_the_reference(seed):
    """The lines a reader sees: blank ones skipped, CRLF ends dropped, the first lone CR's line found."""
    rng = np.random.default_rng(seed)
    alphabet = b"ab \t\n\n\n\r\x0b\x0c#\xc3\xa9"
    for n in (0, 1, 2, 5, 40, 400):
        raw = bytes(rng.choice(list(alphabet), size=n).tolist())
        if seed % 3 == 0:
            raw = raw.replace(b"\r", b"\r\n")  # CRLF files: no lone CR
        starts, ends, numbers, bad_cr = k.line_spans(np.frombuffer(raw, dtype=np.uint8))
        lines, want_cr = line_spans_reference(raw)
        assert [(int(m), raw[a:b]) for a, b, m in zip(starts, ends, numbers)] == lines, raw
        assert bad_cr == want_cr, raw


#: numbers at the edges of the kernel's exact path: many digits, 2^53, the powers of ten a double holds, subnormals,
#: signed zeros, leading zeros, exponents with signs and many digits, overflow
EDGE_NUMBERS = ["0", "90071992547409.5", "-0", "+0", "-0.0", "0.000", "007", "1", "-1", ".5", "5.", "1e22", "1e23", "-1e-22", "1e-23",
                "9007199254740992", "9007199254740993", "9007199254740991.5", "123456789012345678",
                "1234567890123456789", "12345678901234567890123", "0.1", "0.30000000000000004",
                "1.7976931348623157e308", "1.8e308", "4.9e-324", "2e-324", "1e-400", "1e400", "0e999999", "1E+05",
                "2.5e-0", "00000000000000000001", "0.000000000000000000000000000001", "100000000000000000000000e-10",
                "3.14159265358979323846", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
                "-9223372036854775809", "999999999999999999", "1000000000000000000", "+123", "--1", "1e", "e5", ".",
                "+", "1.2.3", "1e+-5", "0x10", "1_0", "nan", "inf"]


@pytest.mark.parametrize("integer", [True, False])
def test_numbers_are_read_as_python_reads_them(integer):
    """The kernel's numbers equal Python's int/float of the text where the text is one whole number as trec_eval's
    atol/atof read it (``files._INTEGER``/``_DECIMAL``), are handed back (1) when past its exact path, and are
    refused (2) otherwise."""
    from boostrank._kernels import trec_columns as tc

    pattern = files._INTEGER if integer else files._DECIMAL
    rng = np.random.default_rng(int(integer))
    alphabet = list("0123456789") * 3 + list("+-.eE")
    texts = EDGE_NUMBERS + ["".join(rng.choice(alphabet, rng.integers(1, 26))) for _ in range(20000)]
    texts += [repr(v) for v in rng.normal(size=2000) * 10.0 ** rng.integers(-30, 30, 2000)]
    texts += [f"{v:.{d}f}" for v, d in zip(rng.normal(size=2000) * 1000, rng.integers(0, 12, 2000))]
    kinds = {}
    for text in texts:
        buf = np.frombuffer(text.encode(), dtype=np.uint8)
        kind, value = (tc._integer if integer else tc._decimal)(buf, 0, buf.shape[0])
        kinds[text] = kind
        if not pattern.fullmatch(text):
            assert kind == 2, text
        elif kind == 0:
            want = int(text) if integer else float(text)
            assert value == want and (integer or np.signbit(value) == np.signbit(want)), text
        else:
            assert kind == 1, text
    # what files hold takes the exact path; only what is past it is handed back
    assert kinds["-0"] == kinds["007"] == 0 and kinds["999999999999999999"] == (0 if integer else 1)
    assert kinds["9223372036854775807"] == kinds["1000000000000000000"] == 1
    if not integer:
        assert kinds["0.1"] == kinds["1e22"] == kinds["-1e-22"] == kinds["90071992547409.5"] == 0
        assert kinds["1e23"] == kinds["9007199254740993"] == kinds["3.14159265358979323846"] == kinds["1e400"] == 1
        assert np.mean([k == 0 for t, k in kinds.items() if "e" not in t.lower() and pattern.fullmatch(t)]) > 0.9


@pytest.mark.parametrize("n", [0, 1, 7, 300])
def test_ids_as_bytes_hash_compare_take_and_join_as_their_strings(n):
    rng = np.random.default_rng(n)
    values = random_ids(rng, n)
    ids = id_store.IdBytes.of_strings(values)
    assert [ids.data[a:b].tobytes().decode() for a, b in zip(ids.offsets[:-1], ids.offsets[1:])] == values.tolist()
    assert k.hash_ids(ids.data, ids.offsets).tolist() == [id_hash_reference(v) for v in values]
    for i, j in rng.integers(0, max(n, 1), (50, 2)) if n else []:
        want = (values[i] > values[j]) - (values[i] < values[j])  # code-point order is UTF-8's byte order
        assert k.compare_ids(ids.data, ids.offsets, i, ids.data, ids.offsets, j) == want
    rows = rng.integers(0, max(n, 1), 20) if n else np.zeros(0, dtype=np.int64)
    copy = id_store.IdBytes.of_strings(values[rows])
    assert [copy[i] for i in range(len(copy))] == values[rows].tolist()
    assert id_store.IdBytes(copy.data, copy.offsets).objects.tolist() == values[rows].tolist()  # decoded from the bytes
    taken = id_store.IdBytes(ids.data, ids.offsets).take(rows)  # the kernel's copy, no str objects to lean on
    assert taken.data.tobytes() == copy.data.tobytes() and taken.offsets.tolist() == copy.offsets.tolist()
    joined = id_store.IdBytes.concat([id_store.IdBytes(copy.data, copy.offsets), ids, taken])
    assert joined.objects.tolist() == values[rows].tolist() + values.tolist() + values[rows].tolist()
    assert all(k.compare_ids(ids.data, ids.offsets, r, copy.data, copy.offsets, i) == 0 for i, r in enumerate(rows))
    if n > 1 and len(set(values.tolist())) > 1:
        other = next(i for i in range(n) if values[i] != values[rows[0]])
        assert k.compare_ids(ids.data, ids.offsets, other, copy.data, copy.offsets, 0) != 0


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("n_groups", [1, 4, 30])
def test_grouping_duplicates_and_trec_order_equal_the_references(seed, n_groups):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 60))
    codes = rng.integers(0, n_groups, n).astype(np.int64)  # some groups empty
    values = random_ids(rng, n)
    ids = id_store.IdBytes.of_strings(values)
    hashes = k.hash_ids(ids.data, ids.offsets)
    if seed % 3 == 0:
        hashes[:] = hashes % 3  # collisions: equal hashes, different ids
    elif seed % 3 == 1:
        hashes[:] = 2 ** 60 + hashes % 50  # hashes one float64 cannot tell apart (equal ids still alike)
    rows, offsets = k.rows_by_group(codes, n_groups, np.empty(codes.shape[0], dtype=np.int64))
    assert rows.tolist() == np.argsort(codes, kind="stable").tolist()
    assert offsets.tolist() == [0] + np.cumsum(np.bincount(codes, minlength=n_groups)).tolist()
    by_hash = k.by_hash_within_groups(hashes, rows, offsets)
    assert by_hash.tolist() == np.lexsort((np.arange(n), hashes, codes)).tolist()
    got = k.first_duplicate(by_hash, offsets, hashes, ids.data, ids.offsets)
    assert tuple(int(v) for v in got) == first_duplicate_reference(codes.tolist(), values.tolist())
    assert tuple(int(v) for v in k.first_repeat(rows, offsets, hashes, ids.data, ids.offsets)) == tuple(got)
    score = rng.integers(0, 3, n).astype(np.float64)  # ties in bulk
    ranked = rows[np.lexsort((-score[rows], codes[rows]))]  # each group by score, as a run written by rank
    for given in (rows, ranked):
        order = k.trec_order(given, offsets, score, ids.data, ids.offsets, np.empty(given.shape[0], dtype=np.int64))
        if got[1] < 0:  # ids of a group differ: one order
            assert order.tolist() == trec_order_reference(codes.tolist(), score.tolist(), values.tolist())


@pytest.mark.parametrize("shape", ["uniform", "ties", "signed zeros", "subnormal", "huge", "all equal", "ranked"])
def test_long_queries_take_the_radix_sort_with_trec_evals_order(shape):
    """Queries from TREC_RADIX_MIN_ROWS rows sort their scores by radix: the order equals the reference's at
    every size around the switch, on ties in bulk, ±0.0, subnormals, scores near the doubles' limit."""
    rng = np.random.default_rng(len(shape))
    sizes = [0, 1, 2, TREC_RADIX_MIN_ROWS - 1, TREC_RADIX_MIN_ROWS, TREC_RADIX_MIN_ROWS + 1, 300, 1000]
    codes = np.repeat(np.arange(len(sizes)), sizes)
    n = codes.shape[0]
    score = {"uniform": rng.random(n), "ties": rng.integers(0, 4, n).astype(float),
             "signed zeros": rng.choice([-0.0, 0.0, 1e-300, -1e-300], n),
             "subnormal": rng.choice([5e-324, -5e-324, 1e-310, 0.0], n),
             "huge": rng.choice([1.7e308, -1.7e308, 1e308, -1e308, 1.0], n),
             "all equal": np.full(n, 2.5), "ranked": np.sort(rng.normal(size=n))[::-1].copy()}[shape]
    values = np.array([f"d{i:04d}" for i in rng.permutation(n)], dtype=object)
    ids = id_store.IdBytes.of_strings(values)
    rows, offsets = k.rows_by_group(codes, len(sizes), np.empty(n, dtype=np.int64))
    order = k.trec_order(rows, offsets, score, ids.data, ids.offsets, np.empty(n, dtype=np.int64))
    assert order.tolist() == trec_order_reference(codes.tolist(), score.tolist(), values.tolist())


@pytest.mark.parametrize("n", [TREC_RADIX_MIN_ROWS, 700])
def test_the_radix_order_is_the_merge_orders_with_infinities_and_nans(n):
    """Scores the run readers refuse still take merge_order's place: +inf first, −inf after every finite score,
    NaN of either sign last, ties and NaNs in their given order."""
    rng = np.random.default_rng(n)
    score = rng.choice([np.inf, -np.inf, np.nan, -np.nan, 0.0, -0.0, 1.0, -2.0], n) * rng.choice([1.0, 1.0, 3.0], n)
    rows = rng.permutation(n).astype(np.int64)
    got = np.empty(n, dtype=np.int64)
    k._radix_descending(score, rows, 0, n, got)
    want = rows[merge_order(-score[rows])]
    assert got.tolist() == want.tolist()


def test_long_tied_blocks_are_merge_sorted_by_id():
    rng = np.random.default_rng(5)
    values = np.array([f"d{i}" for i in rng.permutation(500)], dtype=object)
    ids = id_store.IdBytes.of_strings(values)
    order = k.trec_order(np.arange(500), np.array([0, 500]), np.zeros(500), ids.data, ids.offsets,
                         np.empty(500, dtype=np.int64))
    assert values[order].tolist() == sorted(values.tolist(), reverse=True)


def test_a_run_read_fast_equals_the_run_from_its_strings(tmp_path):
    """The file's ids stay bytes; hashes, order and duplicates equal those of str objects."""
    rng = np.random.default_rng(3)
    qid = np.array([f"q{i}" for i in rng.integers(0, 20, 400)], dtype=object)
    docid = np.array([f"{w}{i}" for w, i in zip(random_ids(rng, 400), range(400))], dtype=object)
    score = np.round(rng.normal(size=400), 1)
    path = tmp_path / "run.txt"
    path.write_text("".join(f"{q} Q0 {d} 0 {s!r} tag\n" for q, d, s in zip(qid, docid, score.tolist())), encoding="utf-8")
    fast = files.load_run(path)
    assert fast._ids.hashes is not None and fast._ids._objects is None  # hashed as read; no str objects
    plain = run_types.Run(qid, docid, score)
    assert fast._hash.tolist() == plain._hash.tolist()
    assert fast.order.tolist() == plain.order.tolist() == trec_order_reference(plain._codes.tolist(),
                                                                                score.tolist(), docid.tolist())
    assert fast.docid.tolist() == docid.tolist() and fast.qid.tolist() == qid.tolist() and fast.name == "tag"
    path.write_text(path.read_text() + f"{qid[7]} Q0 {docid[7]} 0 1.0 tag\n", encoding="utf-8")
    with pytest.raises(files.LetorFormatError, match=re.escape(f"run.txt:401: qid {qid[7]} retrieves docno "
                                                              f"{docid[7]} again (line 8)")):
        files.load_run(path)


def test_ids_whose_offsets_start_past_zero_keep_their_bytes():
    """Offsets need not start at 0 (a slice of a larger store): the ids, their join and copies still hold."""
    whole = id_store.IdBytes.of_strings(np.array(["zz", "é1", "bb", "c"], dtype=object))
    ids = id_store.IdBytes(whole.data, whole.offsets[1:].copy())
    other = id_store.IdBytes.of_strings(np.array(["x", "é1", "bb", "c", "dd"], dtype=object))
    assert ids.offsets[0] > 0 and [ids[i] for i in range(len(ids))] == ["é1", "bb", "c"]
    assert id_store.IdBytes.concat([ids, other], objects=False).objects.tolist() == ["é1", "bb", "c", "x", "é1",
                                                                                    "bb", "c", "dd"]
    assert ids.take(np.array([2, 0])).objects.tolist() == ["c", "é1"]
    assert k.hash_ids(ids.data, ids.offsets).tolist() == [id_hash_reference(v) for v in ["é1", "bb", "c"]]


@pytest.mark.parametrize("seed", range(6))
def test_the_union_of_runs_is_the_union_of_their_pairs(seed, monkeypatch):
    """Fusion's join of several runs' (query, document) pairs against a dict, hash collisions forced on half."""
    from boostrank.evaluation import fusion

    rng = np.random.default_rng(seed)
    if seed % 2:
        real = run_types._hashes
        monkeypatch.setattr(run_types, "_hashes", lambda ids: real(ids) % 3)
    runs = []
    for i in range(int(rng.integers(2, 5))):
        n = int(rng.integers(0, 40)) if i else int(rng.integers(1, 40))
        pairs = {(f"q{rng.integers(0, 5)}", str(v)) for v in random_ids(rng, n)}
        qid, docid = zip(*sorted(pairs)) if pairs else ((), ())
        runs.append(run_types.Run(list(qid), list(docid), rng.normal(size=len(qid)), name=f"r{i}"))
    index, queries, ids, entry_query, _ = fusion._union(runs)
    pairs = [(q, d) for r in runs for q, d in zip(r.qid.tolist(), r.docid.tolist())]
    inverse = np.concatenate(index)
    assert len(set(inverse.tolist())) == len(set(pairs)) == len(ids) == entry_query.size
    for (q, d), e in zip(pairs, inverse.tolist()):
        assert queries[entry_query[e]] == q and ids[e] == d
    assert (np.diff(entry_query) >= 0).all()  # entries by query


@pytest.mark.parametrize("repeat", [False, True])
def test_ids_made_to_collide_are_sorted_not_paired(repeat, monkeypatch):
    """A file whose ids all hash alike (FNV-1a collisions can be made): the duplicate check and fusion's join
    still give the references' answers, through a sort of each run of equal hashes."""
    from boostrank.evaluation import fusion

    rng = np.random.default_rng(int(repeat))
    values = np.array([f"d{i}" for i in rng.permutation(400)], dtype=object)
    if repeat:
        values[350] = values[17]
    codes = np.zeros(400, dtype=np.int64)
    ids = id_store.IdBytes.of_strings(values)
    hashes = np.zeros(400, dtype=np.int64)
    rows, offsets = k.rows_by_group(codes, 1, np.empty(codes.shape[0], dtype=np.int64))
    by_hash = k.by_hash_within_groups(hashes, rows, offsets)
    got = k.first_duplicate(by_hash, offsets, hashes, ids.data, ids.offsets)
    assert tuple(int(v) for v in got) == first_duplicate_reference(codes.tolist(), values.tolist())
    assert tuple(int(v) for v in k.first_repeat(rows, offsets, hashes, ids.data, ids.offsets)) == tuple(got)
    monkeypatch.setattr(run_types, "_hashes", lambda ids: np.zeros(len(ids), dtype=np.int64))
    keep = values[:300]
    runs = [run_types.Run(["q"] * 300, keep, rng.normal(size=300), name="a"),
            run_types.Run(["q"] * 200, keep[100:], rng.normal(size=200), name="b")]
    index, queries, union, entry_query, _ = fusion._union(runs)
    assert len(union) == 300 and sorted(union.objects.tolist()) == sorted(keep.tolist())
    assert [union[e] for e in index[1].tolist()] == keep[100:].tolist()
