"""Files other people give us and files we write.

Input: the bytes of a file, decompressed as a stream (gzip, bzip2, xz by content) under a cap on what
the caller can hold, with a check of the first lines before the rest is read; the error type that
names a file and line.  Output: files that are whole or absent (atomic replacement of regular files,
write-through to the rest).
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import sys
import tempfile
from typing import Callable, Iterator

import numpy as np

from ..exceptions import LetorFormatError


#: bytes read (or decompressed) per step
_CHUNK = 1 << 20
#: the first lines :func:`read_bytes` hands to its ``head`` check: up to the last line end within this many bytes
_HEAD = 1 << 16
#: a first line longer than this is not waited for: the head check is skipped and the whole file read
_HEAD_MAX = 1 << 24
#: the compressed formats, by their first bytes
_COMPRESSED = ((b"\x1f\x8b", "gzip"), (b"BZh", "bz2"), (b"\xfd7zXZ\x00", "lzma"))


#: what parsing a TREC or LETOR text costs at most, in bytes held per byte of text (the text itself, its columns,
#: the ids' hashes and groupings: measured ~10 on a qrels file of 17-byte lines, the shortest a judgement has)
PARSE_FACTOR = 12


def default_max_bytes() -> int:
    """The most bytes of text a reader takes by default: half of this machine's physical memory divided by
    :data:`PARSE_FACTOR`, so that what a reader builds from the largest file it takes fits in memory.

    Past it a file is refused before it is parsed (pass ``max_bytes=`` to read it).  256 MiB at least, and
    1 GiB where the memory size cannot be read.
    """
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return 1 << 30
    return max(total // (2 * PARSE_FACTOR), 1 << 28)


def check_max_bytes(max_bytes) -> int:
    """``max_bytes`` as an int: None is :func:`default_max_bytes`; else a positive integer."""
    if max_bytes is None:
        return default_max_bytes()
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
        raise ValueError(f"max_bytes must be a positive integer or None, got {max_bytes!r}")
    return max_bytes


def _opener(path, fh):
    """(name, a reader of the decompressed stream) of an open file, by its first bytes; ("", fh) when plain."""
    start = fh.peek(8)[:8]
    for magic, name in _COMPRESSED:
        if start.startswith(magic):
            if name == "gzip":  # GzipFile refuses bytes after a member that do not start another
                import gzip

                return name, gzip.GzipFile(fileobj=fh, mode="rb")
            return name, _Streams(fh, name, magic)
    return "", fh


class _Streams:
    """A bzip2 or xz file read as one stream of text: its streams one after another (``pbzip2``'s, or ``cat
    a.bz2 b.bz2``), and an error, not silence, for bytes after a stream that do not start another (a damaged
    header, junk), which Python's ``BZ2File`` and ``LZMAFile`` drop as "trailing garbage".  xz's stream padding
    (zero bytes between streams) is skipped, as ``xz`` skips it."""

    def __init__(self, fh, name: str, magic: bytes):
        import bz2
        import lzma

        self.fh, self.name, self.magic = fh, name, magic[:3] if name == "bz2" else magic
        self.new = bz2.BZ2Decompressor if name == "bz2" else (lambda: lzma.LZMADecompressor(lzma.FORMAT_XZ))
        self.decompressor, self.pending = self.new(), b""

    def read(self, size: int) -> bytes:
        """Up to ``size`` bytes of text; b"" at the end of the last stream."""
        while True:
            d = self.decompressor
            if d.eof and not self._next_stream():
                return b""
            d = self.decompressor
            if d.needs_input and not self.pending:
                self.pending = self.fh.read(_CHUNK)
                if not self.pending:
                    raise EOFError("the file ends inside a compressed stream (cut short?)")
            out = d.decompress(self.pending, max_length=size)
            self.pending = b""
            if out:
                return out

    def _next_stream(self) -> bool:
        rest = self.decompressor.unused_data
        while True:
            if self.name == "lzma":
                rest = rest.lstrip(b"\0")
            if len(rest) >= len(self.magic):
                break
            more = self.fh.read(_CHUNK)
            if not more:
                break
            rest += more
        if not rest:
            return False
        if not rest.startswith(self.magic):
            raise ValueError(f"{len(rest)}+ bytes after the end of a compressed stream do not start another "
                             f"(a damaged stream header, or junk appended)")
        self.decompressor, self.pending = self.new(), rest
        return True

    def close(self) -> None:
        pass


class _Detached:
    """A buffer over someone else's stream, detached (not closed) when done, so their stream stays open."""

    def __init__(self, reader):
        self.reader = reader

    def close(self) -> None:
        self.reader.detach()


def display_name(path) -> str:
    """How errors name an input: a path as given; a stream by its name ("standard input" for ``<stdin>``)."""
    if not hasattr(path, "read"):
        return path
    import sys

    if path is getattr(sys.stdin, "buffer", None):
        return "standard input"
    name = getattr(path, "name", None)
    return "standard input" if name in ("<stdin>", 0) else str(name or "a stream")


def _too_big(path, limit: int, compressed: str) -> LetorFormatError:
    what = f"decompresses ({ {'bz2': 'bzip2', 'lzma': 'xz'}.get(compressed, compressed)}) to" if compressed \
        else "holds"
    return LetorFormatError(path, None, f"{what} more than {limit} bytes, the most a reader takes (by default what "
                                        f"half of this machine's memory can parse); pass max_bytes= to read it")


def read_bytes(path, *, max_bytes: int | None = None, head: Callable[[bytes], object] | None = None,
               array: bool = False) -> bytes | np.ndarray:
    """The bytes of a file, decompressed when it is gzip, bzip2 or xz (by content, not name).

    Read as a stream: nothing past ``max_bytes`` of text is held, and ``head`` (when given)
    is called on the file's first lines (whole lines, about the first 64 KiB) before the
    rest is read, so a reader's check of its first lines fails at once on a file whose
    bad first line is followed by gigabytes (a compression bomb).

    Parameters
    ----------
    path : str, path-like or binary stream
        A stream (``sys.stdin.buffer``) is read as it comes, with the same cap and head check, and
        named by :func:`display_name`.
    max_bytes : int, default=None
        Most bytes of text (after decompression) to take; None: :func:`default_max_bytes`.
    head : callable, default=None
        Called with the first whole lines; raises to refuse the file.
    array : bool, default=False
        Return the bytes as a read-only NumPy ``uint8`` array: a regular file is then read straight into it,
        memory that NumPy asks the kernel to back with huge pages (far fewer page faults than a ``bytes``
        object's).

    Raises
    ------
    LetorFormatError
        Damaged compressed data, or more text than ``max_bytes`` (file named).
    """
    limit = check_max_bytes(max_bytes)
    import contextlib
    import zlib

    if hasattr(path, "read"):  # a stream: read through a buffer that can peek, left open for its owner
        fh_ = path if hasattr(path, "peek") else io.BufferedReader(path)
        opened = contextlib.nullcontext(fh_)
        if fh_ is not path:
            opened = contextlib.closing(_Detached(fh_))
    else:
        opened = open(path, "rb")
    path = display_name(path)
    with opened as fh:
        fh = getattr(fh, "reader", fh)
        name, stream = _opener(path, fh)
        size = None
        if not name:
            try:
                size = os.fstat(fh.fileno()).st_size if stat.S_ISREG(os.fstat(fh.fileno()).st_mode) else None
            except OSError:
                size = None
            if size is not None and size > limit:
                raise _too_big(path, limit, "")
        errors = (OSError, EOFError, ValueError, zlib.error)
        if name == "lzma":
            import lzma

            errors += (lzma.LZMAError,)
        try:
            if not name and size is not None:
                whole = _read_regular(path, fh, size, limit, head, array)
                if whole is not None:
                    return whole
            whole = _read_capped(path, stream, limit, head, name)
            return np.frombuffer(whole, dtype=np.uint8) if array else whole
        except LetorFormatError:
            raise
        except errors as exc:  # gzip raises zlib.error on a damaged stream (the compressed-file fuzz test)
            if not name:
                raise
            shown = {"bz2": "bzip2", "lzma": "xz"}.get(name, name)
            raise LetorFormatError(path, None, f"damaged {shown} data: {exc}") from None
        finally:
            if stream is not fh:
                stream.close()


def _read_regular(path, fh, size: int, limit: int, head, array: bool = False) -> bytes | np.ndarray | None:
    """A regular file's bytes in one read of its size (no chunks to join: one copy of the text), its first
    lines checked first from a read at its start; None when its first line is longer than that read."""
    at = fh.tell()
    if head is not None:
        probe = os.pread(fh.fileno(), min(size - at, _HEAD), at)
        first = probe.find(b"\n")
        if first >= 0:
            head(probe[:max(first + 1, probe.rfind(b"\n", 0, _HEAD) + 1)])
        elif len(probe) == size - at:
            head(probe)
        else:
            return None
    if not array:
        whole = fh.read()
    else:
        whole = np.empty(max(size - at, 0), dtype=np.uint8)
        view, got = memoryview(whole), 0
        while got < whole.shape[0]:
            n = fh.readinto(view[got:])
            if not n:  # shrunk since its size was read
                break
            got += n
        parts = [whole[:got]]
        while chunk := fh.read(_CHUNK):  # grown since its size was read: the rest in chunks, under the cap
            got += len(chunk)
            if got > limit:
                raise _too_big(path, limit, "")
            parts.append(np.frombuffer(chunk, dtype=np.uint8))
        whole = np.concatenate(parts) if len(parts) > 1 else parts[0]
    if len(whole) > limit:  # grown since its size was read
        raise _too_big(path, limit, "")
    if array:
        whole.flags.writeable = False  # read-only, as bytes are (and as np.frombuffer's arrays are)
    return whole


def _read_capped(path, stream, limit: int, head, name: str) -> bytes:
    chunks, size = [], 0  # joined once at the end: one copy of the text, not a buffer's growth and its copy
    pending = b"" if head is not None else None  # the bytes read before the head check ran
    step = _CHUNK
    while True:
        chunk = stream.read(step)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise _too_big(path, limit, name)
        if pending is None:
            step = min(step * 2, 1 << 26)  # fewer, larger reads once the first lines are checked
        else:
            pending += chunk
            first = pending.find(b"\n")
            if first >= 0:
                head(pending[:max(first + 1, pending.rfind(b"\n", 0, _HEAD) + 1)])
                pending = None
            elif len(pending) >= _HEAD_MAX:  # no line end yet: the whole file's checks will tell
                pending = None
    if pending is not None:
        head(pending)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def lines_of(path, raw: bytes) -> Iterator[tuple[int, bytes]]:
    """(number, bytes) of each line of ``raw`` with a character other than white space, lines ending at
    ``\\n``; a final ``\\r`` (CRLF) dropped.

    Blank lines are skipped in a kernel, never made (a file of a billion newlines costs no list).

    Raises
    ------
    LetorFormatError
        A ``\\r`` inside a line (file and line named): lone CR line ends (an old Mac file, two
        files joined) would otherwise run several lines into one and drop all but the first.
    """
    import numpy as np

    from .._kernels.ids import line_spans

    starts, ends, numbers, bad_cr = line_spans(np.frombuffer(raw, dtype=np.uint8))
    stop = np.searchsorted(numbers, bad_cr) if bad_cr else numbers.shape[0]
    for a in range(0, stop, 4096):  # a block of Python ints at a time, not three lists as long as the file
        b = min(a + 4096, stop)
        for start, end, number in zip(starts[a:b].tolist(), ends[a:b].tolist(), numbers[a:b].tolist()):
            yield number, raw[start:end]
    if bad_cr:
        raise LetorFormatError(path, bad_cr, "a carriage return (\\r) inside the line: lone \\r line ends (an old "
                                             "Mac file, or two files joined) would run lines together; convert "
                                             "them to \\n")


def _special(path: str) -> bool:
    """An existing path that is not a regular file (a device, FIFO or socket): written through, never replaced."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def write_stdout(text: str) -> None:
    """``text`` to standard output in 64 KiB blocks: a reader gone mid-output (``| head``) cuts one block short and
    fails the next with :class:`BrokenPipeError`, as it fails C's stdio.  One write of the whole text would end at
    the pipe with no error (the system takes part of a write to a pipe whose reader is closing), and the command
    would report success."""
    for at in range(0, len(text), 1 << 16):
        sys.stdout.write(text[at:at + (1 << 16)])
    sys.stdout.flush()


def check_out(out, *inputs, option: str = "--out") -> None:
    """Refuse an output path before any work: empty, a folder, one of the inputs, or in a folder we cannot write."""
    if out is None:
        return
    if str(out) == "":
        raise ValueError(f"{option} is empty; name a file")
    out = os.fspath(out)
    if os.path.isdir(out):
        raise ValueError(f"{option} {out} is a folder; name a file in it")
    target = os.path.realpath(out)
    for path in inputs:
        if path and os.path.exists(path) and os.path.realpath(path) == target:
            raise ValueError(f"{option} {out} is one of the inputs ({path}); choose another file")
    if _special(target):
        return  # /dev/null, /dev/stdout, a FIFO: written through
    folder = os.path.dirname(target) or "."
    if not os.path.isdir(folder):
        raise ValueError(f"{option} {out}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"{option} {out}: folder {folder} is not writable")


def write_atomic(out, write: Callable[[str], object]) -> None:
    """Call ``write(path)`` so that ``out`` ends up whole or as it was.

    A regular file (or a new one) is written to a temporary file beside it and moved
    over it; through a symlink, the link's target is replaced and the link kept.  The
    file gets the mode an ordinary ``open`` would give (the existing file's, else
    0666 less the umask), not ``mkstemp``'s 0600.  A device, FIFO or socket (``/dev/null``,
    ``/dev/stdout``) gets the finished bytes through one ``open``: renaming over it would
    replace the device, and a writer that opened a FIFO twice would end its reader's
    read at the first close.
    """
    out = os.fspath(out)
    target = os.path.realpath(out)
    if _special(target):
        fd, tmp = tempfile.mkstemp(prefix=".boostrank-", suffix=os.path.splitext(target)[1])
        os.close(fd)
        try:
            write(tmp)
            with open(tmp, "rb") as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
        except OSError as exc:
            raise _naming(exc, out) from exc
        finally:
            os.unlink(tmp)
        return
    folder = os.path.dirname(target) or "."
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    # same suffix: XGBoost picks its file format from the extension
    fd, tmp = tempfile.mkstemp(prefix=".boostrank-", suffix=os.path.splitext(target)[1], dir=folder)
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise _naming(exc, out) from exc
        raise


def _naming(exc: OSError, out) -> OSError:
    """``exc`` naming the output: a full disk says "No space left on device" of a temporary file, or of none."""
    if exc.filename is not None and os.fspath(exc.filename) == os.fspath(out):
        return exc
    message = f"cannot write {out}: {exc.strerror or exc}"
    return type(exc)(exc.errno, message) if exc.errno else OSError(message)
