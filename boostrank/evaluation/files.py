"""TREC files: qrels (``qid iter docno rel``) and runs (``qid Q0 docno rank score tag``) read as trec_eval reads
them (a run's rank column is ignored) and written whole or not at all; gzip, bzip2 or xz by content when read,
by suffix when written."""

from __future__ import annotations

import array
import bz2
import codecs
import functools
import gzip
import lzma
import math
import mmap
import os
import re

import numpy as np

from ..io.files import LetorFormatError, check_max_bytes, display_name, lines_of, read_bytes, write_atomic
from .._kernels import trec_columns as _tc
from .._kernels.jit import in_threads, note_first_compile
from .ids import DuplicateId, IdBytes, QueryCodes
from .runs import Qrels, Run

__all__ = ["load_qrels", "load_run", "save_qrels", "save_run"]


_BOM = b"\xef\xbb\xbf"
#: the numbers trec_eval's atol/atof read in full; anything else they read a prefix of ('1_0' as 1, '３' as 0)
_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _fields(path, raw: bytes):
    """(line number, fields, line) of each line with a field, split as trec_eval splits them (``get_qrels.c``,
    ``get_results.c``: lines end at ``\\n``, fields at C's ``isspace`` — space, tab, ``\\v``, ``\\f`` — so a
    no-break space or another Unicode space is part of a field).  A ``\\r`` before ``\\n`` ends the line (CRLF);
    one inside a line is an error, where trec_eval would read a file with lone-CR line ends as one line.  A UTF-8
    byte-order mark at the start of the file is dropped (an editor's, not part of the first qid); one anywhere
    else is refused."""
    if raw.startswith(_BOM):
        raw = raw[len(_BOM):]
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LetorFormatError(path, raw[:exc.start].count(b"\n") + 1, "not UTF-8 text") from None
    for number, line in lines_of(path, raw):
        if _BOM in line:
            raise LetorFormatError(path, number, "a byte-order mark (U+FEFF) inside the file: files joined "
                                                 "after an editor saved them? Remove it")
        yield number, [f.decode("utf-8") for f in line.split()], line


def _number(path, number: int, what: str, text: str, integer: bool):
    """``text`` as trec_eval reads it when it is one whole number; refused otherwise (trec_eval's atol/atof
    would read a prefix of it, and a grade past a 64-bit integer would wrap)."""
    if not (_INTEGER if integer else _DECIMAL).fullmatch(text):
        raise LetorFormatError(path, number, f"{what} {text!r} is not {'an integer' if integer else 'a number'} "
                                             f"(ASCII digits; trec_eval would read only a prefix of it)")
    if not integer:
        return float(text)
    value = int(text)
    if not -(2**63) <= value < 2**63:
        raise LetorFormatError(path, number, f"{what} {text} is outside the 64-bit integer range")
    return value


def _qrels_line(path, number: int, fields: list, line: bytes) -> tuple | None:
    """(qid, docno, grade) of one qrels line; None for a comment line (``#``, as trec_eval 10.0 reads them); an
    error naming a bad one."""
    if fields[0].startswith("#"):
        return None
    if len(fields) != 4:
        raise LetorFormatError(path, number, f"a qrels line is 'qid iter docno rel' (4 fields separated by "
                                             f"spaces or tabs), got {len(fields)}: {line.decode('utf-8').strip()[:80]!r}")
    return fields[0], fields[2], _number(path, number, "grade", fields[3], integer=True)


def _run_line(path, number: int, fields: list, line: bytes, need_tag: bool = False) -> tuple | None:
    """(qid, docno, score, tag or None) of one run line; None for a comment line; an error naming a bad one."""
    if fields[0].startswith("#"):
        return None
    if len(fields) < 6 - (not need_tag):  # fields after the tag are ignored, as trec_eval ignores them
        raise LetorFormatError(path, number, f"a run line is 'qid Q0 docno rank score tag' (fields separated by "
                                             f"spaces or tabs{', the tag included' if need_tag else ''}), "
                                             f"got {len(fields)}: {line.decode('utf-8').strip()[:80]!r}")
    if fields[4].lower().lstrip("+-") in ("nan", "inf", "infinity"):
        raise LetorFormatError(path, number, f"score {fields[4]} is NaN or inf")
    value = _number(path, number, "score", fields[4], integer=False)
    if not math.isfinite(value):
        raise LetorFormatError(path, number, f"score {fields[4]} is NaN or inf")
    return fields[0], fields[2], value, fields[5] if len(fields) >= 6 else ""


def _read(path, parse, max_bytes) -> tuple[np.ndarray, str]:
    """A TREC file's bytes as a ``uint8`` array, its first lines parsed line by line before the rest is read
    (:func:`read_bytes`), and its name in errors."""
    name = display_name(path)

    def head(first: bytes) -> None:
        for number, fields, line in _fields(name, first):
            parse(name, number, fields, line)

    return read_bytes(path, max_bytes=check_max_bytes(max_bytes), head=head, array=True), name


#: text per thread below which a file is read on one (a thread's start and the merge cost more)
_BYTES_PER_THREAD = 1 << 24


def _parts(buf: np.ndarray, n: int) -> list:
    """``buf`` cut into about ``n`` runs of whole lines: (start, end) pairs."""
    cuts = [0]
    for k in range(1, n):
        at = int(buf.shape[0] * k // n)
        newline = np.flatnonzero(buf[at:at + (1 << 20)] == 10)  # lines are far shorter than a MiB
        if newline.size and at + newline[0] + 1 > cuts[-1]:
            cuts.append(at + int(newline[0]) + 1)
    cuts.append(buf.shape[0])
    return [(a, b) for a, b in zip(cuts[:-1], cuts[1:]) if b > a] or [(0, 0)]


def _scratch(n: int) -> np.ndarray:
    """``n`` writable bytes whose tail :func:`_release_after` can give back to the system: an anonymous map
    (in huge pages where the system has them), or NumPy's memory where the map cannot advise."""
    if n == 0 or not hasattr(mmap, "MADV_DONTNEED"):
        return np.empty(n, dtype=np.uint8)
    pages = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)  # private: DONTNEED frees its pages
    if hasattr(mmap, "MADV_HUGEPAGE"):
        pages.madvise(mmap.MADV_HUGEPAGE)
    return np.frombuffer(pages, dtype=np.uint8)


def _release_after(data: np.ndarray, end: int, moved: bool) -> np.ndarray:
    """``data[:end]``, the pages wholly past ``end`` given back when a later part's ids were written there before
    their move down (``moved``): without a map to advise, a copy of ``data[:end]``."""
    pages = getattr(data.base, "obj", None)  # np.frombuffer(map): a memoryview of the map
    if not isinstance(pages, mmap.mmap):
        return data[:end].copy() if moved else data[:end]
    start = -(-end // mmap.PAGESIZE) * mmap.PAGESIZE
    if start < len(pages):
        pages.madvise(mmap.MADV_DONTNEED, start, len(pages) - start)
    return data[:end]


def _parsed_in_parts(buf, parts: list, shape: tuple, qrels: bool):
    """:func:`._kernels.trec_columns.trec_columns` of each part on its own thread, every part's rows written to its
    own block of one set of columns (block ``k`` from row ``first[k]``; its id offsets from ``first[k] + k``), so
    that no column is joined by a copy: (first, (codes, doc_offsets, hashes, values), each part's result)."""
    # a row is min_fields fields and their separators, at least 2 · min_fields − 1 bytes with no line end: a
    # file of blank lines reserves no more rows than its size allows
    bounds = [min(lines, (b - a + 1) // (2 * shape[0]))
              for lines, (a, b) in zip(in_threads(lambda part: _tc.line_bound(buf[part[0]:part[1]]), parts), parts)]
    first = np.concatenate(([0], np.cumsum(bounds))).astype(np.int64)
    codes, hashes = np.empty(first[-1], dtype=np.int64), np.empty(first[-1], dtype=np.int64)
    doc_offsets = np.empty(first[-1] + len(parts), dtype=np.int64)  # a leading 0 per part
    grades = np.empty(first[-1] if qrels else 0, dtype=np.int64)
    scores = np.empty(0 if qrels else first[-1], dtype=np.float64)
    data = _scratch(buf.shape[0])  # a part's ids are no longer than its text: each written at its text's place

    def columns(k):
        a, b = first[k], first[k + 1]
        return _tc.trec_columns(buf[parts[k][0]:parts[k][1]], *shape, codes[a:b], doc_offsets[a + k:b + k + 1],
                                hashes[a:b], scores[a:b], grades[a:b], data[parts[k][0]:parts[k][1]])

    return first, (codes, doc_offsets, hashes, grades if qrels else scores, data), in_threads(columns,
                                                                                               range(len(parts)))


def _utf8(buf: np.ndarray, start: int, non_ascii: bool) -> bool:
    """Whether text with a byte past ASCII is UTF-8 with no byte-order mark past ``start``."""
    if not non_ascii:
        return True
    lead = np.flatnonzero(buf[start:buf.shape[0] - 2] == _BOM[0]) + start
    if np.any((buf[lead + 1] == _BOM[1]) & (buf[lead + 2] == _BOM[2])):
        return False
    try:
        codecs.utf_8_decode(memoryview(buf)[start:], None, True)
    except UnicodeDecodeError:
        return False
    return True


def _joined(first, rows: list, recodes: list, id_parts: list, codes, doc_offsets, hashes, values, data) -> tuple:
    """The parts' blocks made one set of columns in place: each part's rows moved up to follow the rows before
    them (blank lines leave a part short of its bound), its query codes made global (``recodes[k]``), its ids'
    bytes (``id_parts[k]``: where they start in ``data``, how many) moved to follow the ids before them and its id
    offsets with them; the number of rows and of id bytes."""
    end, ids_end = 0, 0
    for k, n in enumerate(rows):
        a = first[k]
        if end < a:
            for column in (codes, hashes, values):
                _tc.move_rows(column, a, end, n, 0)
        if k:
            _tc.move_rows(doc_offsets, a + k + 1, end + 1, n, ids_end)
            bytes_ = memoryview(data)  # a slice assignment of one memoryview is a memmove: overlap is safe
            bytes_[ids_end:ids_end + id_parts[k][1]] = bytes_[id_parts[k][0]:id_parts[k][0] + id_parts[k][1]]
        _tc.recode(codes[end:end + n], recodes[k])
        end, ids_end = end + n, ids_end + id_parts[k][1]
    return end, ids_end


def _table(raw: np.ndarray | bytes, qrels: bool, need_tag: bool = False) -> dict | None:
    """The columns of a well-formed qrels or run file (:func:`._kernels.trec_columns.trec_columns`, on Numba's
    threads for a large file, each on its own run of lines): ``qid`` coded, ``docno`` as :class:`IdBytes`
    (hashed), ``rel`` or ``score``, and a run's first and last tags.

    None when anything in the file needs the line-by-line reader, which then reads it with the same rules and
    names the line of any error: a line with another number of fields, a value that is not one whole number (or
    a score past the doubles, a grade past 64 bits), a comment line (#), ``\\v``, ``\\f``, a lone ``\\r``, a
    byte-order mark past the start or bytes that are not UTF-8.
    """
    import numba

    raw = np.frombuffer(raw, dtype=np.uint8)  # bytes too
    skip = len(_BOM) if raw[:len(_BOM)].tobytes() == _BOM else 0  # a byte-order mark at the start
    view = memoryview(raw)[skip:]
    buf = raw[skip:]
    note_first_compile("TREC", _tc.trec_columns)
    shape = (4, 4, 3, True) if qrels else (6 if need_tag else 5, 1 << 62, 4, False)
    parts = _parts(buf, max(1, min(numba.get_num_threads(), buf.shape[0] // _BYTES_PER_THREAD)))
    first, (codes, doc_offsets, hashes, values, id_data), done = _parsed_in_parts(buf, parts, shape, qrels)
    if any(d[0] == _tc.STATUS_FALLBACK for d in done) or not _utf8(raw, skip, any(d[5] for d in done)):
        return None
    where: dict = {}  # each query's code, in order of first appearance over the parts
    locals_, id_parts, tags = [], [], []
    for k, ((start, _), (rows, spans, part_data, slow, part_tags, _)) in enumerate(zip(parts, done)):
        locals_.append(np.array([where.setdefault(bytes(view[start + a:start + b]).decode("utf-8"), len(where))
                                 for a, b in spans.tolist()], dtype=np.int64))
        for row, a, b in slow.tolist():  # numbers outside the kernel's exact path: Python's own parse
            value = int(view[start + a:start + b]) if qrels else float(bytes(view[start + a:start + b]))
            if not (-(2**63) <= value < 2**63 if qrels else math.isfinite(value)):
                return None
            values[first[k] + row] = value
        id_parts.append((start, part_data.shape[0]))  # the part's ids start where its text starts
        tags.extend(bytes(view[start + a:start + b]).decode("utf-8") for a, b in part_tags.tolist() if a >= 0)
    words = list(where)
    by_name = sorted(range(len(words)), key=words.__getitem__)  # strcmp order (code points)
    rank = np.empty(len(words), dtype=np.int64)
    rank[by_name] = np.arange(len(words))
    end, id_end = _joined(first, [d[0] for d in done], [rank[c] for c in locals_], id_parts, codes, doc_offsets,
                          hashes, values, id_data)
    ids = IdBytes(_release_after(id_data, id_end, len(parts) > 1), doc_offsets[:end + 1], hashes=hashes[:end])
    out = {"qid": QueryCodes([words[k] for k in by_name], codes[:end]), "docno": ids,
           "rel" if qrels else "score": values[:end]}
    if not qrels:  # the first tag names the run, the last is trec_eval's runid
        out["tag"] = np.array(tags[:1] + tags[-1:], dtype=object)
    return out


def load_qrels(path, *, max_bytes: int | None = None) -> Qrels:
    """Read a TREC qrels file (``qid iter docno rel``; gzip, bzip2 or xz by content).

    Parameters
    ----------
    path : str or path-like
    max_bytes : int, default=None
        Most bytes of text (after decompression) to read; None: what half of this machine's memory can parse
        (:func:`boostrank._files.default_max_bytes`).

    Returns
    -------
    Qrels

    Raises
    ------
    LetorFormatError
        A line without four fields or with a grade that is not an integer (file and line named),
        a ``\\r`` inside a line, a (qid, docno) judged twice, or more text than ``max_bytes``.

    Notes
    -----
    Lines and fields are split as trec_eval splits them (``\\n``; C's ``isspace``); a UTF-8
    byte-order mark at the start is dropped.  Stricter than trec_eval: a grade must be ASCII
    digits in full, where trec_eval's ``atol`` reads a prefix (``1_0`` as 1); lone-CR line ends
    are refused, where trec_eval reads such a file as one line.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("q1 0 d1 1\\nq1 0 d2 0\\n")
    >>> load_qrels(path).to_dict()
    {'q1': {'d1': 1, 'd2': 0}}
    """
    raw, path = _read(path, _qrels_line, max_bytes)
    table = _table(raw, qrels=True)
    if table is not None:
        try:
            return Qrels(table["qid"], table["docno"], table["rel"], source=str(path))
        except DuplicateId as dup:
            raise _duplicate(path, raw, None, dup, "qrels") from None
        except (OverflowError, ValueError):
            pass  # the line-by-line reader names the line
    columns = _line_by_line(path, raw, _qrels_line, np.int64)
    try:
        return Qrels(columns.qid, columns.docid, columns.value, source=str(path))
    except DuplicateId as dup:
        raise _duplicate(path, raw, columns.numbers, dup, "qrels") from None


def load_run(path, name: str | None = None, *, max_bytes: int | None = None, need_tag: bool = False) -> Run:
    """Read a TREC run file (``qid Q0 docno rank score tag``; gzip, bzip2 or xz by content).

    Parameters
    ----------
    path : str or path-like
    name : str, default=None
        The run's name; by default the tag of its first line (else the file name).
    max_bytes : int, default=None
        Most bytes of text (after decompression) to read; None: what half of this machine's memory can parse
        (:func:`boostrank._files.default_max_bytes`).
    need_tag : bool, default=False
        Refuse a line without its tag (five fields), as trec_eval does (``boostrank trec_eval`` sets it);
        by default such a line is read, its tag missing.

    Returns
    -------
    Run

    Raises
    ------
    LetorFormatError
        A line that is not a run line, a NaN/inf score, a ``\\r`` inside a line, a document
        retrieved twice for a query (file and both lines named), or more text than ``max_bytes``.

    Notes
    -----
    Lines and fields are split as trec_eval splits them (``\\n``; C's ``isspace``); a UTF-8
    byte-order mark at the start is dropped.  Fields after the tag are ignored, as trec_eval ignores
    them (trec_eval's ``get_trec_results.c`` at f425365: "Any field following run_id is ignored"; its test
    corpus's ``results.trunc`` has such lines).  Stricter than trec_eval: a score must be a decimal
    number in full, where trec_eval's ``atof`` reads a prefix (``1_0`` as 1, ``３`` as 0); lone-CR
    line ends are refused, where trec_eval reads such a file as one line and keeps its first document.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("q1 Q0 d2 1 0.7 bm25\\nq1 Q0 d1 2 0.2 bm25\\n")
    >>> load_run(path)
    Run('bm25': 2 documents for 1 queries)
    """
    parse = functools.partial(_run_line, need_tag=need_tag)
    raw, path = _read(path, parse, max_bytes)
    table = _table(raw, qrels=False, need_tag=need_tag)
    if table is not None:
        tags = table["tag"]  # the first tag names the run, the last is trec_eval's runid
        try:
            run = Run(table["qid"], table["docno"], table["score"],
                      name=name or (tags[0] if tags.size else "") or os.path.basename(os.fspath(path)),
                      source=str(path))
        except DuplicateId as dup:
            raise _duplicate(path, raw, None, dup, "run") from None
        run.last_tag = tags[-1] if tags.size else None
        return run
    columns = _line_by_line(path, raw, parse, np.float64)
    try:
        run = Run(columns.qid, columns.docid, columns.value,
                  name=name or columns.first_tag or os.path.basename(os.fspath(path)), source=str(path))
    except DuplicateId as dup:
        raise _duplicate(path, raw, columns.numbers, dup, "run") from None
    run.last_tag = columns.last_tag
    return run


class _Columns:
    """A TREC file's columns as the line-by-line reader collects them: compact as it goes (a code per query,
    the document ids' bytes, a number per line), never a Python object per line kept."""

    def __init__(self, qid, docid, value, numbers, first_tag, last_tag):
        self.qid, self.docid, self.value, self.numbers = qid, docid, value, numbers
        self.first_tag, self.last_tag = first_tag, last_tag


#: lines the line-by-line reader checks for a (query, document) given twice before it moves on: a file of one
#: line repeated is refused near its start, at a memory cost of one block
_BLOCK = 1 << 12


def _line_by_line(path, raw: np.ndarray | bytes, parse, dtype) -> _Columns:
    """The columns of a TREC file read one line at a time with trec_eval's rules (:func:`_fields`): any error
    names its line; memory a small multiple of the text (the ids' bytes, 8-byte codes, values and line numbers)."""
    raw = bytes(raw)
    where: dict = {}
    codes, ends, numbers = array.array("q"), array.array("q"), array.array("q")
    values = array.array("q" if dtype == np.int64 else "d")
    ids = bytearray()
    first_tag = last_tag = None
    block: dict = {}
    for number, fields, line in _fields(path, raw):
        parsed = parse(path, number, fields, line)
        if parsed is None:
            continue
        q, d, value = parsed[:3]
        code = where.setdefault(q, len(where))
        seen = block.setdefault((code, d), number)
        if seen != number:
            raise LetorFormatError(path, number, _again(q, d, seen, "run" if len(parsed) > 3 else "qrels"))
        if len(block) >= _BLOCK:
            block = {}
        codes.append(code)
        ids += d.encode("utf-8", "surrogatepass")
        ends.append(len(ids))
        values.append(value)
        numbers.append(number)
        if len(parsed) > 3 and parsed[3]:
            first_tag = parsed[3] if first_tag is None else first_tag
            last_tag = parsed[3]
    queries = sorted(where)
    rank = np.empty(len(queries), dtype=np.int64)
    rank[[where[q] for q in queries]] = np.arange(len(queries))
    offsets = np.concatenate(([0], np.frombuffer(ends, dtype=np.int64))).astype(np.int64)
    docid = IdBytes(np.frombuffer(bytes(ids), dtype=np.uint8), offsets)
    return _Columns(QueryCodes(queries, rank[np.frombuffer(codes, dtype=np.int64)]), docid,
                    np.frombuffer(values, dtype=dtype).copy(), np.frombuffer(numbers, dtype=np.int64), first_tag,
                    last_tag)


def _again(qid: str, docid: str, first: int, kind: str) -> str:
    if kind == "run":
        return f"qid {qid} retrieves docno {docid} again (line {first}); a run ranks each document once"
    return f"qid {qid} docno {docid} is judged again (line {first})"


def _duplicate(path, raw: np.ndarray | bytes, numbers, dup: DuplicateId, kind: str) -> LetorFormatError:
    """The error of an entry given twice, naming both lines: the entries are the file's lines with a character
    (blank ones skipped; the fast readers read no comment line), numbered once, not parsed again."""
    if numbers is None:
        from .._kernels.ids import line_spans

        numbers = line_spans(np.frombuffer(raw, dtype=np.uint8))[2]
    i, j = dup.rows
    return LetorFormatError(path, int(numbers[j]), _again(dup.qid, dup.docid, int(numbers[i]), kind))


#: what a file name's suffix compresses with: the formats load_run and load_qrels read by content
_WRITERS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}


def _text_writer(path, tmp):
    """A UTF-8 text writer for ``tmp``, compressed as ``path``'s suffix says (``.gz``, ``.bz2``, ``.xz``)."""
    opener = _WRITERS.get(os.path.splitext(os.fspath(path))[1].lower())
    return opener(tmp, "wt", encoding="utf-8") if opener else open(tmp, "w", encoding="utf-8")


def save_qrels(path, qrels: Qrels) -> None:
    """Write judgements as a TREC qrels file (``qid 0 docno rel``), in their order.

    Parameters
    ----------
    path : str or path-like
        Written whole or not at all; gzip, bzip2 or xz by the suffix (``.gz``, ``.bz2``, ``.xz``).
    qrels : Qrels

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt.gz")
    >>> save_qrels(path, Qrels.from_dict({"301": {"d1": 2, "d2": 0}}))
    >>> load_qrels(path).to_dict()
    {'301': {'d1': 2, 'd2': 0}}
    """
    if not isinstance(qrels, Qrels):
        raise TypeError(f"save_qrels writes a Qrels, got {type(qrels).__name__}")

    def write(tmp):
        with _text_writer(path, tmp) as fh:
            fh.writelines(f"{q} 0 {d} {r}\n" for q, d, r in zip(qrels.qid.tolist(), qrels.docid.tolist(),
                                                                qrels.rel.tolist()))

    write_atomic(path, write)


def save_run(path, run: Run, *, tag: str | None = None, depth: int | None = None) -> None:
    """Write a run as a TREC run file, each query's documents in trec_eval's order, ranks from 1.

    Parameters
    ----------
    path : str or path-like
        Written whole or not at all; gzip, bzip2 or xz by the suffix (``.gz``, ``.bz2``, ``.xz``).
    run : Run
    tag : str, default=None
        The run tag (no whitespace); default ``run.name``.
    depth : int, default=None
        Keep each query's top ``depth`` documents (TREC tracks ask for 1000); None keeps all.

    Examples
    --------
    >>> import os, tempfile
    >>> from boostrank import Run
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> save_run(path, Run.from_dict({"q1": {"d1": 0.2, "d2": 0.7}}, name="bm25"))
    >>> print(open(path).read(), end="")
    q1 Q0 d2 1 0.7 bm25
    q1 Q0 d1 2 0.2 bm25
    """
    tag = run.name if tag is None else str(tag)
    if not tag or any(c.isspace() for c in tag):
        raise ValueError(f"tag {tag!r} must be non-empty and without whitespace (it is the run file's 6th field)")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1):
        raise ValueError(f"depth must be a positive integer or None, got {depth!r}")

    def write(tmp):
        with _text_writer(path, tmp) as fh:
            for g, q in enumerate(run.queries):
                rows = run.order[run.offsets[g]:run.offsets[g + 1]]
                if depth is not None:
                    rows = rows[:depth]
                fh.writelines(f"{q} Q0 {d} {i} {s!r} {tag}\n" for i, (d, s) in
                              enumerate(zip(run.docid[rows].tolist(), run.score[rows].tolist()), start=1))

    write_atomic(path, write)
