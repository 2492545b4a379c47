"""boostrank.io.files: files read as capped streams with a check of their first lines; outputs whole or absent."""

import bz2
import errno
import gzip
import lzma
import os

import pytest

import boostrank as br
from boostrank.io import files as _files

COMPRESS = {"gzip": gzip.compress, "bz2": bz2.compress, "lzma": lzma.compress}


@pytest.mark.slow  # over a second warm
@pytest.mark.parametrize("module", list(COMPRESS))
def test_a_bad_first_line_fails_before_the_rest_is_decompressed(tmp_path, module):
    """Hardening 6 #1: a small bomb (a bad line, then 64 MiB of newlines) is refused at line 1, not read whole."""
    path = tmp_path / "bomb"
    path.write_bytes(COMPRESS[module](b"1 qid:1 1:x\n" + b"\n" * (64 << 20)))
    seen = []

    def head(first):
        seen.append(len(first))
        raise br.LetorFormatError(path, 1, "bad first line")

    # 2 MiB would be exceeded long before the end: the head check must come first
    with pytest.raises(br.LetorFormatError, match=":1: bad first line"):
        _files.read_bytes(path, max_bytes=2 << 20, head=head)
    assert seen and seen[0] <= (1 << 16) + 64


@pytest.mark.parametrize("module", [None, *COMPRESS])
def test_more_text_than_max_bytes_is_refused_by_name(tmp_path, module):
    raw = b"1 qid:1 1:0.5\n" * 100_000
    path = tmp_path / "big"
    path.write_bytes(raw if module is None else COMPRESS[module](raw))
    assert _files.read_bytes(path, max_bytes=len(raw)) == raw
    with pytest.raises(br.LetorFormatError, match=rf"{path}: .*more than {len(raw) - 1} bytes.*max_bytes="):
        _files.read_bytes(path, max_bytes=len(raw) - 1)
    for bad in (0, -1, 1.5, True, "10"):
        with pytest.raises(ValueError, match="max_bytes must be a positive integer"):
            _files.read_bytes(path, max_bytes=bad)


@pytest.mark.parametrize("module", [None, "gzip"])
@pytest.mark.parametrize("size", [0, 1, 1 << 16, (1 << 16) + 3, 300_001])
def test_an_array_read_holds_the_same_bytes_read_only_under_the_same_cap(tmp_path, module, size):
    import numpy as np

    raw = (b"q1 Q0 d1 1 0.5 t\n" * (size // 17 + 1))[:size]
    path = tmp_path / "run"
    path.write_bytes(raw if module is None else COMPRESS[module](raw))
    got = _files.read_bytes(path, array=True)
    assert got.dtype == np.uint8 and not got.flags.writeable and got.tobytes() == raw
    with open(path, "rb") as fh:  # a stream, too
        assert _files.read_bytes(fh, array=True).tobytes() == raw
    if size > 1:
        with pytest.raises(br.LetorFormatError, match="more than"):
            _files.read_bytes(path, max_bytes=size - 1, array=True)


@pytest.mark.parametrize("told", [0, 10, 5_000, 9_999, 10_001, 20_000])
def test_an_array_read_of_a_file_that_grew_or_shrank_since_its_size_was_taken(tmp_path, told):
    """The size comes from fstat before the read: a file written to meanwhile is read to its end as it is then,
    and still under the cap."""
    raw = bytes(range(256)) * 39 + b"0123456789abcdef"  # 10 000 bytes
    path = tmp_path / "f"
    path.write_bytes(raw)
    with open(path, "rb") as fh:
        assert _files._read_regular(str(path), fh, told, 1 << 20, None, True).tobytes() == raw
    with open(path, "rb") as fh, pytest.raises(br.LetorFormatError, match="more than 9000 bytes"):
        _files._read_regular(str(path), fh, min(told, 9000), 9000, None, True)


def test_the_default_cap_is_what_half_of_memory_can_parse():
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert _files.default_max_bytes() == max(total // (2 * _files.PARSE_FACTOR), 1 << 28)


def test_concatenated_gzip_members_and_a_fifo_read_whole(tmp_path):
    raw = b"a b\n" * 1000
    path = tmp_path / "two.gz"
    path.write_bytes(gzip.compress(raw) + gzip.compress(raw))
    assert _files.read_bytes(path) == raw + raw
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    import threading

    writer = threading.Thread(target=lambda: fifo.write_bytes(gzip.compress(raw)))
    writer.start()
    assert _files.read_bytes(fifo) == raw
    writer.join()


def test_lines_skip_blank_ones_keep_crlf_files_and_refuse_a_lone_cr(tmp_path):
    raw = b"\n\na b\r\n \t\n\nc\r\n"
    assert list(_files.lines_of("f", raw)) == [(3, b"a b"), (6, b"c")]
    with pytest.raises(br.LetorFormatError, match=r"^f:4: a carriage return"):
        list(_files.lines_of("f", b"a\nb\nc\nd\re\n"))


def test_a_full_disk_names_the_file_it_could_not_write(tmp_path):
    """Hardening 6 #9: "No space left on device" said which file."""
    out = tmp_path / "out.run"

    def write(tmp):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.raises(OSError, match=rf"cannot write {out}: No space left on device") as info:
        _files.write_atomic(out, write)
    assert info.value.errno == errno.ENOSPC and not out.exists()
    assert not [p for p in tmp_path.iterdir()]  # no temporary file left behind
    if os.path.exists("/dev/full"):  # a device is written through
        with pytest.raises(OSError, match="cannot write /dev/full: No space left on device"):
            _files.write_atomic("/dev/full", lambda tmp: open(tmp, "w").write("x" * 10))


@pytest.mark.parametrize("module, name", [(bz2, "bzip2"), (lzma, "xz")])
def test_streams_one_after_another_read_whole_and_bytes_after_the_last_are_refused(tmp_path, module, name):
    a, b = b"q 0 d1 1\n" * 500, b"q 0 d2 1\n" * 500
    path = tmp_path / "f"
    path.write_bytes(module.compress(a) + module.compress(b))  # pbzip2's, or cat a.bz2 b.bz2
    assert _files.read_bytes(path) == a + b
    if module is lzma:
        path.write_bytes(module.compress(a) + b"\0" * 8 + module.compress(b))  # xz's stream padding
        assert _files.read_bytes(path) == a + b
    second = module.compress(b)
    for tail in (b"junk appended", second[:2] + b"x" + second[3:]):  # junk, a damaged stream header
        path.write_bytes(module.compress(a) + tail)
        with pytest.raises(br.LetorFormatError, match=f"{path}: damaged {name} data: .*bytes after the end of a "
                                                      f"compressed stream do not start another|{path}: damaged"):
            _files.read_bytes(path)
    path.write_bytes(module.compress(a)[:-8])
    with pytest.raises(br.LetorFormatError, match=f"damaged {name} data"):
        _files.read_bytes(path)


def test_a_stream_is_read_under_the_cap_and_named(tmp_path):
    from ..conftest import EndlessStream

    def Endless():  # a bad second line, then text without end
        return EndlessStream(b"q 0 d 1\nnot a qrels line\n")

    stream = Endless()
    with pytest.raises(br.LetorFormatError, match="a stream:2: grade 'line' is not an integer"):
        br.load_qrels(stream)
    assert stream.given < 1 << 22 and not stream.closed  # its first lines, then refused; the owner closes it
    stream = Endless()
    with pytest.raises(br.LetorFormatError, match="more than 1000 bytes"):
        _files.read_bytes(stream, max_bytes=1000)


@pytest.mark.parametrize("comment", ["", "# a comment line\n"])  # the fast reader, and the line-by-line one
@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_a_line_repeated_is_refused_where_it_is_met(tmp_path, comment, kind, monkeypatch):
    """A few KB of bzip2 holding one valid line repeated (64 MiB of text in the issue) is refused at its second
    line, naming both, without parsing the file again line by line (which held 20-35 times the text)."""
    from boostrank.evaluation import files

    line = b"301 0 FBIS3-10082 1\n" if kind == "qrels" else b"301 Q0 FBIS3-10082 1 2.5 tag\n"
    path = tmp_path / f"bomb.{kind}.bz2"
    path.write_bytes(bz2.compress(comment.encode() + line * 200_000))
    first = 1 + bool(comment)
    if not comment:  # the fast reader names the lines itself, reading none again
        monkeypatch.setattr(files, "_line_by_line", None)
    with pytest.raises(br.LetorFormatError, match=rf"{path}:{first + 1}: qid 301 .*again \(line {first}\)"):
        (br.load_qrels if kind == "qrels" else br.load_run)(path)


def test_the_line_by_line_reader_holds_a_small_multiple_of_the_text():
    import tracemalloc

    from boostrank.evaluation import files

    text = b"# judged\n" + b"".join(b"%d 0 D%07d %d\n" % (i % 97, i, i % 3) for i in range(100_000))
    tracemalloc.start()
    try:
        columns = files._line_by_line("x", text, files._qrels_line, files.np.int64)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(columns.numbers) == 100_000 and columns.numbers[0] == 2
    assert peak < 8 * len(text), peak / len(text)
