"""boostrank._files: files read as capped streams with a check of their first lines; outputs whole or absent."""

import bz2
import errno
import gzip
import lzma
import os

import pytest

import boostrank as br
from boostrank import _files

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


def test_the_default_cap_is_a_quarter_of_memory_and_at_least_a_gigabyte():
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert _files.default_max_bytes() == max(total // 4, 1 << 30)


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
