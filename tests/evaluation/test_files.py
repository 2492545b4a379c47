"""boostrank.evaluation.files: TREC qrels and run files read as trec_eval reads them, malformed lines named by file and
line, compressed files and bombs bounded."""

from __future__ import annotations

import bz2
import gzip
import warnings

import numpy as np
import pytest

import boostrank as br
from boostrank.evaluation.evaluate import QueryMismatchWarning
from .helpers import MEASURES, random_collection, GRADES, SCORES, RUN, QRELS, _write


def test_qrels_and_run_files_round_trip_and_compressed(tmp_path):
    qrels, run = random_collection(1, ties=True)
    qpath = tmp_path / "qrels.txt.gz"
    with gzip.open(qpath, "wt") as fh:
        for q, docs in qrels.items():
            fh.writelines(f"{q} 0 {d} {g}\n" for d, g in docs.items())
    loaded = br.load_qrels(qpath)
    assert loaded.to_dict() == qrels
    r = br.Run.from_dict(run, name="mine")
    br.save_run(tmp_path / "run.txt", r)
    lines = (tmp_path / "run.txt").read_text().splitlines()
    assert all(line.endswith(" mine") and line.split()[1] == "Q0" for line in lines)
    again = br.load_run(tmp_path / "run.txt")
    assert again.name == "mine" and again.to_dict() == run
    # the written ranks are trec_eval's order: score descending, docid descending
    first = [ln.split() for ln in lines if ln.startswith("q0 ")]
    assert [f[3] for f in first] == [str(i) for i in range(1, len(first) + 1)]
    keys = [(float(f[4]), f[2]) for f in first]
    assert keys == sorted(keys, reverse=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", QueryMismatchWarning)
        assert br.evaluate(qpath, tmp_path / "run.txt", MEASURES) == br.evaluate(qrels, run, MEASURES)
    br.save_run(tmp_path / "top2.txt", r, tag="t2", depth=2)
    assert max(int(ln.split()[3]) for ln in (tmp_path / "top2.txt").read_text().splitlines()) == 2


@pytest.mark.parametrize("text, match", [
    ("q1 0 d1\n", r"qrels.txt:1: a qrels line is 'qid iter docno rel' \(4 fields separated by spaces or tabs\), got 3"),
    ("q1 0 d1 1\nq1 0 d2 high\n", r"qrels.txt:2: grade 'high' is not an integer"),
    ("q1 0 d1 1\n\nq1 0 d1 2\n", r"qrels.txt:3: qid q1 docno d1 is judged again \(line 1\)"),
    (b"q1 0 \xff 1\n", r"qrels.txt:1: not UTF-8"),
])
def test_malformed_qrels_name_file_and_line(tmp_path, text, match):
    path = tmp_path / "qrels.txt"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(br.LetorFormatError, match=match):
        br.load_qrels(path)


@pytest.mark.parametrize("seed", range(4))
def test_the_fast_reader_reads_what_the_line_reader_reads(tmp_path, monkeypatch, seed):
    """Runs and qrels read in one pass, and in parts (a run of lines per thread), equal the line-by-line reader's,
    on files a user may hand in:
    five or seven fields, tabs and runs of spaces, CR LF, comments, a BOM, odd numbers, ids such as NA and 001;
    where the line reader refuses a file, so does the reading (naming the line)."""
    import random

    import numba

    from boostrank.evaluation import files as trec

    rng = random.Random(seed)
    pieces = ["001", "NA", "null", "q1", "d-1", "1.0", "1e2", "+1", "-0", "1_0", ".5", "nan", "inf", "1e999", "x",
              "0x1", "0x1p3", "1e", "--1", "\uff13", "\u0661", "1.", "+.5e-3", '"q"', "é", "d\u00a0"]
    for kind in ("run", "qrels"):
        for trial in range(30):
            lines, plain = [], rng.random() < 0.5  # one space between fields, or tabs and runs of spaces
            for i in range(rng.randint(1, 8)):
                fields = ([rng.choice(["q1", "001", "7"]), "Q0", f"d{rng.randint(0, 5)}", str(i + 1),
                           repr(rng.gauss(0, 1)), "tag"] if kind == "run" else
                          [rng.choice(["q1", "001"]), "0", f"d{rng.randint(0, 5)}", str(rng.randint(-1, 3))])
                if rng.random() < 0.15:
                    fields[rng.randrange(len(fields))] = rng.choice(pieces)
                if rng.random() < 0.1:
                    fields = fields[:-1] if rng.random() < 0.5 else fields + ["extra"]
                lines.append((" " if plain else rng.choice([" ", "\t", "  "])).join(fields))
            text = rng.choice(["\n", "\r\n"]).join(lines) + rng.choice(["\n", "\n", ""])
            if rng.random() < 0.1:
                text = rng.choice(["# a comment\n", "\n", "\n\n"]) + text  # a run's tag: its first line's
            path = tmp_path / f"{kind}{trial}"
            path.write_bytes(("\ufeff" if rng.random() < 0.1 else "").encode() + text.encode())
            load = br.load_run if kind == "run" else br.load_qrels
            outcomes = []
            for mode in ("one pass", "in parts", "line by line"):
                if mode == "in parts":  # a run of lines per thread, cut anywhere: one part per few lines
                    monkeypatch.setattr(trec, "_BYTES_PER_THREAD", 8)
                    monkeypatch.setattr(numba, "get_num_threads", lambda: 5)
                if mode == "line by line":
                    monkeypatch.setattr(trec, "_table", lambda *a, **k: None)
                try:
                    got = load(path)
                    outcomes.append(("ok", got.qid.tolist(), got.docid.tolist(),
                                     (got.score if kind == "run" else got.rel).tolist(), getattr(got, "name", None),
                                     getattr(got, "last_tag", None), got._hash.tolist()))
                except br.LetorFormatError as exc:
                    outcomes.append(("error", str(exc)))
            monkeypatch.undo()
            assert outcomes[0] == outcomes[1] == outcomes[2], (text, outcomes)
    for text in ("q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.25 t\n", "q1 Q0 d1 1 0.5 t\r\nq1\tQ0  d2 2 0.25\n"):
        (tmp_path / "clean").write_bytes(text.encode())  # clean files are read in one pass, CR LF and tabs included
        table = trec._table((tmp_path / "clean").read_bytes(), qrels=False)
        assert table is not None and table["score"].tolist() == [0.5, 0.25] and table["docno"].objects.tolist() == ["d1", "d2"]
        (tmp_path / "clean").write_bytes(text.replace("Q0", "0").replace(" 1 0.5 t", " 2").replace(" 2 0.25", " 0")
                                         .replace(" t\r\n", "\r\n").replace(" t\n", "\n").encode())
        table = trec._table((tmp_path / "clean").read_bytes(), qrels=True)
        assert table is not None and table["rel"].tolist() == [2, 0]


@pytest.mark.parametrize("text, match", [
    ("q1 Q0 d1 1\n", r"run.txt:1: a run line is 'qid Q0 docno rank score tag' \(fields separated by spaces or tabs\), got 4"),
    ("q1 Q0 d1 1 nan tag\n", r"run.txt:1: score nan is NaN or inf"),
    ("q1 Q0 d1 1 x tag\n", r"run.txt:1: score 'x' is not a number"),
    ("q1 Q0 d1 1 1 t\nq1 Q0 d1 2 0.5 t\n", r"run.txt:2: qid q1 retrieves docno d1 again \(line 1\)"),
])
def test_malformed_runs_and_duplicate_docids_are_refused(tmp_path, text, match):
    path = tmp_path / "run.txt"
    path.write_text(text)
    with pytest.raises(br.LetorFormatError, match=match):
        br.load_run(path)


def test_a_bom_is_dropped_from_qrels_and_runs_and_refused_inside(tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_bytes(b"\xef\xbb\xbf301 0 d1 1\n301 0 d2 0\n302 0 d3 1\n")
    run = tmp_path / "r.txt"
    run.write_bytes(b"\xef\xbb\xbf301 Q0 d1 1 2.0 t\n301 Q0 d2 2 1.0 t\n302 Q0 d3 1 1.0 t\n")
    q, r = br.load_qrels(qrels), br.load_run(run)
    assert sorted(q.queries) == ["301", "302"] and sorted(r.queries) == ["301", "302"]
    assert br.evaluate(q, r, ["map"])["map"] == 1.0
    qrels.write_bytes(b"301 0 d1 1\n\xef\xbb\xbf302 0 d3 1\n")
    with pytest.raises(br.LetorFormatError, match=r"q.txt:2: a byte-order mark"):
        br.load_qrels(qrels)


@pytest.mark.parametrize("kind", ["qrels", "run"])
@pytest.mark.parametrize("where", ["docno", "line start", "tag"])
def test_a_bom_past_the_first_lines_is_refused_as_in_them(tmp_path, kind, where):
    """Past the lines checked one by one before the rest is read (about 64 KiB), the whole-file pass refuses a
    byte-order mark as the line reader does, naming its line."""
    path = tmp_path / f"{kind}.txt"
    n = 8000  # 96 KiB (qrels) or 190 KiB (run) of lines before it
    body = b"".join((b"q1 0 d%d 1\n" % i) if kind == "qrels" else (b"q1 Q0 d%d %d 0.5 t\n" % (i, i))
                    for i in range(n))
    bom = b"\xef\xbb\xbf"
    fields = [b"q2", b"0", b"dx", b"1"] if kind == "qrels" else [b"q2", b"Q0", b"dx", b"1", b"0.5", b"t"]
    at = {"docno": 2, "line start": 0, "tag": len(fields) - 1}[where]
    fields[at] = bom + fields[at]
    path.write_bytes(body + b" ".join(fields) + b"\n")
    load = br.load_qrels if kind == "qrels" else br.load_run
    with pytest.raises(br.LetorFormatError, match=rf"{kind}.txt:{n + 1}: a byte-order mark"):
        load(path)


@pytest.mark.parametrize("kind, text", [("qrels", g) for g in GRADES] + [("run", s) for s in SCORES])
def test_numbers_trec_eval_would_read_a_prefix_of_are_refused(tmp_path, kind, text):
    """trec_eval's atol/atof read '1_0' as 1 and a full-width 3 as 0; Python's int/float read 10 and 3."""
    path = tmp_path / f"{kind}.txt"
    line, load, what = {"qrels": (f"301 0 d2 {text}", br.load_qrels, "grade .* is not an integer"),
                        "run": (f"301 Q0 d1 1 {text} t", br.load_run, "score .* is not a number")}[kind]
    path.write_text(f"{line}\n", encoding="utf-8")
    with pytest.raises(br.LetorFormatError, match=rf"{kind}.txt:1: {what}"):
        load(path)


def test_fields_split_where_trec_eval_splits_them(tmp_path):
    """C's isspace: a form feed or a carriage return separates fields; a no-break space is part of an id."""
    path = tmp_path / "q.txt"
    path.write_bytes("301 0 d\u00a01 1\r\n301\f0\vd2\t0\n".encode("utf-8"))
    q = br.load_qrels(path)
    assert sorted(q.to_dict()["301"]) == ["d2", "d\u00a01"]
    path.write_text("301 0 d\u00a01\n", encoding="utf-8")
    with pytest.raises(br.LetorFormatError, match="4 fields separated by spaces or tabs"):
        br.load_qrels(path)
    run = tmp_path / "r.txt"
    run.write_text("301 Q0 d\u2003x 1 1.5 t\n", encoding="utf-8")  # an em space is part of the id too
    assert br.load_run(run).to_dict() == {"301": {"d\u2003x": 1.5}}


@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2", ".xz"])
def test_qrels_and_runs_write_and_read_back_compressed_by_their_suffix(tmp_path, suffix):
    import bz2
    import gzip
    import lzma

    qrels = br.Qrels(["301", "301", "302"], ["d1", "d\u00e9", "d3"], [2, 0, -1])
    run = br.Run(["301", "301", "302"], ["d1", "d2", "d3"], [0.5, 1.5, 0.25], name="mine")
    br.save_qrels(tmp_path / f"q.txt{suffix}", qrels)
    br.save_run(tmp_path / f"r.txt{suffix}", run)
    opener = {"": open, ".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}[suffix]
    with opener(tmp_path / f"q.txt{suffix}", "rt", encoding="utf-8") as fh:
        assert fh.read() == "301 0 d1 2\n301 0 d\u00e9 0\n302 0 d3 -1\n"
    assert br.load_qrels(tmp_path / f"q.txt{suffix}").to_dict() == qrels.to_dict()
    back = br.load_run(tmp_path / f"r.txt{suffix}")
    assert back.to_dict() == run.to_dict() and back.name == "mine"
    with pytest.raises(TypeError, match="writes a Qrels"):
        br.save_qrels(tmp_path / "x.txt", run)


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


def test_a_run_file_of_blank_lines_is_an_empty_run_as_an_empty_file_is(tmp_path):
    for name, text in (("blank.run", "\n\n \n"), ("empty.run", "")):
        (tmp_path / name).write_text(text)
        run = br.load_run(tmp_path / name)
        assert len(run) == 0 and run.queries == [] and run.name == name
        with pytest.raises(ValueError, match="retrieves no document"):
            br.evaluate({"q": {"a": 1}}, run, "map")


@pytest.mark.parametrize("end", ["", "\n", "\r\n"])
@pytest.mark.parametrize("parts", [1, 3])
def test_the_shortest_lines_fill_the_rows_reserved_for_their_size(tmp_path, monkeypatch, end, parts):
    """One-byte fields and one separator: rows at the bound the reader reserves from the file's size (a row is at
    least 2 · fields − 1 bytes), read in one pass and in parts, as the line-by-line reader reads them."""
    import numba

    from boostrank.evaluation import files as trec

    if parts > 1:
        monkeypatch.setattr(trec, "_BYTES_PER_THREAD", 8)
        monkeypatch.setattr(numba, "get_num_threads", lambda: parts)
    n = 9
    qrels = tmp_path / "qrels"
    qrels.write_text("\n".join(f"q 0 {chr(97 + i)} {i % 3}" for i in range(n)) + end, newline="")
    run = tmp_path / "run"
    run.write_text("\n".join(f"q 0 {chr(97 + i)} 0 {i}" for i in range(n)) + end, newline="")
    assert trec._table(qrels.read_bytes(), qrels=True)["rel"].tolist() == [i % 3 for i in range(n)]
    assert trec._table(run.read_bytes(), qrels=False)["score"].tolist() == [float(i) for i in range(n)]
    assert br.load_run(run).docid.tolist() == [chr(97 + i) for i in range(n)]


@pytest.mark.parametrize("advise", [True, False])
@pytest.mark.parametrize("end", [0, 1, 4095, 4096, 4097, 3 << 20])
def test_the_ids_scratch_keeps_its_start_and_gives_back_the_pages_past_it(monkeypatch, advise, end):
    """A part's ids are written at its text's place and moved down: what stays is ``data[:end]``, byte for byte;
    the pages wholly past it are given back (they read as zeros again), or without a map to advise, the start is
    copied out so the rest can go."""
    import mmap

    from boostrank.evaluation import files as trec

    if not advise:
        monkeypatch.delattr(mmap, "MADV_DONTNEED")
    n = 4 << 20
    data = trec._scratch(n)
    assert data.shape == (n,) and data.flags.writeable
    data[:] = np.arange(n, dtype=np.int64).astype(np.uint8)
    kept = trec._release_after(data, end, moved=True)
    np.testing.assert_array_equal(kept, np.arange(end, dtype=np.int64).astype(np.uint8))
    past = -(-end // mmap.PAGESIZE) * mmap.PAGESIZE
    if advise:
        assert np.shares_memory(kept, data) or end == 0
        assert not data[past:].any()  # private anonymous pages given back read as zeros
    else:
        assert not np.shares_memory(kept, data)
    assert trec._release_after(trec._scratch(0), 0, moved=False).shape == (0,)
