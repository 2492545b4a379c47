"""boostrank.evaluation.files: the qrels and run readers' bounds and line ends."""

import bz2

import numpy as np
import pytest

import boostrank as br

RUN = b"".join(b"q1 Q0 d%d %d %r run\n" % (i, i, 1.0 / i) for i in range(1, 40))
QRELS = b"".join(b"q1 0 d%d %d\n" % (i, i % 3) for i in range(1, 40))


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_lone_carriage_returns_are_refused_by_line_and_crlf_reads(tmp_path, kind):
    """Hardening 6 #2: a run with CR line ends read as one document (map 0.0, no warning)."""
    raw, load = (RUN, br.load_run) if kind == "run" else (QRELS, br.load_qrels)
    lf = tmp_path / "lf"
    lf.write_bytes(raw)
    want = load(lf)
    cr = tmp_path / "cr"
    cr.write_bytes(raw.replace(b"\n", b"\r"))
    with pytest.raises(br.LetorFormatError, match=r"cr:1: a carriage return \(\\r\) inside the line"):
        load(cr)
    joined = tmp_path / "joined"  # two files joined with one stray CR between them
    lines = raw.splitlines(keepends=True)
    joined.write_bytes(b"".join(lines[:9]) + lines[9].rstrip(b"\n") + b"\r" + b"".join(lines[10:]))
    with pytest.raises(br.LetorFormatError, match=r"joined:10: a carriage return"):
        load(joined)
    crlf = tmp_path / "crlf"
    crlf.write_bytes(raw.replace(b"\n", b"\r\n"))
    got = load(crlf)
    assert got.docid.tolist() == want.docid.tolist() and len(got) == 39
    if kind == "run":
        assert got.score.tolist() == want.score.tolist()


def test_a_run_that_evaluates_with_cr_line_ends_is_refused_not_scored_zero(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_bytes(QRELS)
    run = tmp_path / "run"
    run.write_bytes(RUN.replace(b"\n", b"\r"))
    with pytest.raises(br.LetorFormatError, match="carriage return"):
        br.evaluate(br.load_qrels(qrels), run, ["map"])


@pytest.mark.parametrize("grade", [b"9223372036854775808", b"-9223372036854775809", b"99999999999999999999999"])
def test_a_grade_past_64_bits_is_named_by_line(tmp_path, grade):
    """Hardening 6 #7: a raw OverflowError with no file or line."""
    path = tmp_path / "qrels"
    path.write_bytes(QRELS + b"q2 0 d1 " + grade + b"\n")
    with pytest.raises(br.LetorFormatError, match=r"qrels:40: grade .* is outside the 64-bit integer range"):
        br.load_qrels(path)
    path.write_bytes(b"q2 0 d1 9223372036854775807\n")
    assert br.load_qrels(path).rel.tolist() == [2**63 - 1]


@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_a_compressed_bomb_stops_at_its_first_line_and_padding_reads(tmp_path, kind):
    """Hardening 6 #1: a 3 kB .bz2 (a bad line, then 512 MiB of newlines) reached 4.8 GB before its line-1 error."""
    load = br.load_run if kind == "run" else br.load_qrels
    bomb = tmp_path / "bomb.bz2"
    bomb.write_bytes(bz2.compress(b"q1 Q0 d1 1 x run\n" + b"\n" * (32 << 20)))
    with pytest.raises(br.LetorFormatError, match=r"bomb.bz2:1: "):
        load(bomb, max_bytes=4 << 20)
    padded = tmp_path / "padded.bz2"
    good = RUN if kind == "run" else QRELS
    cut = good.index(b"\n", 100) + 1
    padded.write_bytes(bz2.compress(good[:cut] + b"\n" * (4 << 20) + good[cut:]))
    assert len(load(padded)) == 39
    with pytest.raises(br.LetorFormatError, match="more than 1000000 bytes"):
        load(padded, max_bytes=1_000_000)
    np.testing.assert_array_equal(load(padded).docid, load(_write(tmp_path / "plain", good)).docid)


def _write(path, raw):
    path.write_bytes(raw)
    return path
