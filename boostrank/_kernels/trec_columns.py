"""One pass over a TREC file's bytes to its columns: query ids coded, document ids copied out and hashed, the
grade or score parsed, every line's fields split as trec_eval splits them.

The pass reads what a well-formed file holds and hands anything else back (:data:`STATUS_FALLBACK`) to the
line-by-line reader, which reads the same rules one line at a time and names the line of an error: a line with
another number of fields, a value that is not a whole number, a comment line, ``\\v``, ``\\f`` or a ``\\r``
that does not end a line.  Scores are parsed exactly (Clinger's fast path: at most 18 significant digits making
an integer below 2^53, scaled by an exactly representable power of ten, is one correctly rounded operation); the
rows outside it are listed for Python's ``float``, so every score equals ``float(text)``.
"""

import numpy as np
from numba import njit

from .lambdas import splitmix64

#: status of a pass that met a line the line-by-line reader must read
STATUS_FALLBACK = -1
#: the powers of ten a double holds exactly
_POW10 = np.array([10.0 ** k for k in range(23)])
_TWO53 = 1 << 53
#: the fields a line's columns come from (qid, iter/Q0, docno, rel/rank, score, tag)
_KEPT = 6


@njit(cache=True)
def span_hash(buf, a, b):
    """FNV-1a of ``buf[a:b]`` then SplitMix64's finaliser, as :func:`.ids.hash_ids` hashes an id."""
    h = np.uint64(0xCBF29CE484222325)
    for i in range(a, b):
        h = (h ^ np.uint64(buf[i])) * np.uint64(0x100000001B3)
    return np.int64(splitmix64(h))


@njit(cache=True)
def _same_bytes(buf, a, b, c, d):
    if b - a != d - c:
        return False
    for k in range(b - a):
        if buf[a + k] != buf[c + k]:
            return False
    return True


@njit(cache=True)
def _decimal(buf, a, b):
    """``buf[a:b]`` as trec_eval's ``atof`` reads a whole number (``files._DECIMAL``): (0 and the value when
    Clinger's fast path gives it exactly, 1 when it is a number outside it, 2 when it is not one)."""
    i = a
    negative = False
    if i < b and (buf[i] == 43 or buf[i] == 45):
        negative = buf[i] == 45
        i += 1
    mantissa = 0
    significant = 0
    exp10 = 0
    digits = 0
    inexact = False
    while i < b and 48 <= buf[i] <= 57:
        d = buf[i] - 48
        digits += 1
        if mantissa > 0 or d > 0:
            if significant < 18:
                mantissa = mantissa * 10 + d
                significant += 1
            else:
                exp10 += 1
                inexact = inexact or d > 0
        i += 1
    if i < b and buf[i] == 46:
        i += 1
        while i < b and 48 <= buf[i] <= 57:
            d = buf[i] - 48
            digits += 1
            if mantissa > 0 or d > 0:
                if significant < 18:
                    mantissa = mantissa * 10 + d
                    significant += 1
                    exp10 -= 1
                else:
                    inexact = inexact or d > 0
            else:
                exp10 -= 1
            i += 1
    if digits == 0:
        return 2, 0.0
    if i < b and (buf[i] == 101 or buf[i] == 69):
        i += 1
        sign = 1
        if i < b and (buf[i] == 43 or buf[i] == 45):
            sign = -1 if buf[i] == 45 else 1
            i += 1
        e = 0
        e_digits = 0
        while i < b and 48 <= buf[i] <= 57:
            if e < 100_000:
                e = e * 10 + (buf[i] - 48)
            e_digits += 1
            i += 1
        if e_digits == 0:
            return 2, 0.0
        exp10 += sign * e
    if i != b:
        return 2, 0.0
    if mantissa == 0 and not inexact:
        return 0, -0.0 if negative else 0.0
    if inexact or mantissa >= _TWO53 or exp10 < -22 or exp10 > 22:
        return 1, 0.0
    value = mantissa * _POW10[exp10] if exp10 >= 0 else mantissa / _POW10[-exp10]
    return 0, -value if negative else value


@njit(cache=True)
def _integer(buf, a, b):
    """``buf[a:b]`` as a whole ``atol`` number (``files._INTEGER``): (0 and the value with at most 18 digits,
    1 for more digits, which Python checks against the 64-bit range, 2 when it is not one)."""
    i = a
    negative = False
    if i < b and (buf[i] == 43 or buf[i] == 45):
        negative = buf[i] == 45
        i += 1
    if i == b:
        return 2, 0
    value = 0
    significant = 0
    while i < b:
        c = buf[i]
        if not 48 <= c <= 57:
            return 2, 0
        if value > 0 or c > 48:
            significant += 1
            if significant > 18:
                value = 0
            else:
                value = value * 10 + (c - 48)
        i += 1
    if significant > 18:
        return 1, 0
    return 0, -value if negative else value


@njit(cache=True)
def _grow(arr):
    out = np.empty(2 * arr.shape[0], dtype=arr.dtype)
    out[:arr.shape[0]] = arr
    return out


@njit(cache=True)
def _grow_rows(arr):
    out = np.empty((2 * arr.shape[0], arr.shape[1]), dtype=arr.dtype)
    out[:arr.shape[0]] = arr
    return out


@njit(cache=True)
def _fields(buf, pos, starts, ends):
    """The fields of the line at ``pos``: (their number, the next line's start, whether the line is one the pass
    reads (no \\v, \\f or lone \\r), whether a byte past ASCII occurs); the first :data:`_KEPT` fields' spans
    in ``starts``/``ends``."""
    n = buf.shape[0]
    n_fields = 0
    wide = False
    i = pos
    while True:
        while i < n and (buf[i] == 32 or buf[i] == 9):
            i += 1
        if i >= n or buf[i] == 10:
            break
        c = buf[i]
        if c == 13:
            if i + 1 >= n or buf[i + 1] == 10:  # CR LF, or a CR ending the file
                i += 1
                break
            return n_fields, i, False, wide
        if c == 11 or c == 12:
            return n_fields, i, False, wide
        start = i
        while i < n:
            c = buf[i]
            if c == 32 or c == 9 or c == 10 or c == 13 or c == 11 or c == 12:
                break
            wide = wide or c >= 128
            i += 1
        if n_fields < _KEPT:
            starts[n_fields] = start
            ends[n_fields] = i
        n_fields += 1
    return n_fields, i + 1, True, wide


@njit(cache=True, nogil=True)
def line_bound(buf):
    """The most rows a pass over ``buf`` can give: its newlines, and a last line without one."""
    n = buf.shape[0]
    count = 0
    for i in range(n):
        count += buf[i] == 10
    if n > 0 and buf[n - 1] != 10:
        count += 1
    return count


@njit(cache=True)
def move_rows(column, source, to, count, add):
    """``column[to:to + count] = column[source:source + count] + add`` in place (``to <= source``: each row is
    read before it is written over)."""
    for i in range(count):
        column[to + i] = column[source + i] + add


@njit(cache=True)
def recode(codes, mapping):
    """``codes[i] = mapping[codes[i]]`` in place."""
    for i in range(codes.shape[0]):
        codes[i] = mapping[codes[i]]


@njit(cache=True, nogil=True)
def trec_columns(buf, min_fields, max_fields, value_field, integer, codes, doc_offsets, doc_hashes,
                 float_values, int_values, doc_data):
    """The columns of a qrels (4 fields, the grade 4th, ``integer``) or run file (at least 5 fields, the score
    5th, the tag 6th) in one pass, written into the caller's columns (a file read on several threads gives each
    thread its rows of one array, so no column is copied to join them).

    Fields split at runs of spaces and tabs (a ``\\r`` just before a line end or the file's end ends the line,
    as in a CRLF file); blank lines are skipped; query ids are the first field, document ids the third.

    Parameters
    ----------
    buf : ndarray of uint8
    min_fields, max_fields, value_field : int
    integer : bool
        The value is a grade (``int_values``), else a score (``float_values``).
    codes, doc_hashes : ndarray of int64, shape (at least :func:`line_bound` (buf),)
        Out: each row's query, in order of first appearance (``query_spans[k]`` is query k's first id's
        bytes), and its document id's :func:`span_hash`.
    doc_offsets : ndarray of int64, shape (at least line_bound(buf) + 1,)
        Out: where each row's document id starts in ``doc_data`` (the first entry is 0).
    float_values, int_values : ndarray
        Out: the 4th/5th field parsed (the one ``integer`` does not name may be empty).
    doc_data : ndarray of uint8, shape (at least buf's,)
        Out: the document ids' bytes, back to back (the caller's array, so that NumPy's allocator backs it).

    Returns
    -------
    status : int
        The number of rows, or :data:`STATUS_FALLBACK` for a file the line-by-line reader must read.
    query_spans : int64 array, (n_queries, 2)
    doc_data : uint8 array
        The document ids' bytes, back to back: the start of the ``doc_data`` given.
    slow_spans : int64 array, (k, 3)
        (row, start, end) of the values outside the exact fast path, for Python to parse.
    tags : int64 array, (2, 2)
        The byte spans of the 6th field of the first and last rows that have one ((−1, −1) when none).
    non_ascii : bool
        Whether a byte past ASCII occurs (the caller checks UTF-8 then).
    """
    n = buf.shape[0]
    doc_offsets[0] = 0
    slow_spans = np.empty((16, 3), dtype=np.int64)
    n_slow = 0
    tags = np.full((2, 2), -1, dtype=np.int64)
    query_spans = np.empty((16, 2), dtype=np.int64)
    n_queries = 0
    table = np.full(64, -1, dtype=np.int64)  # open addressing: the code of a query id by its hash
    query_hashes = np.empty(16, dtype=np.int64)
    starts = np.empty(_KEPT, dtype=np.int64)  # the fields read; later ones are counted, not kept
    ends = np.empty(_KEPT, dtype=np.int64)
    non_ascii = False
    rows = 0
    previous = -1
    pos = 0
    failed = False
    while pos < n:
        n_fields, pos, clean, wide = _fields(buf, pos, starts, ends)
        non_ascii = non_ascii or wide
        if n_fields == 0 and clean:
            continue
        if rows == codes.shape[0]:  # more rows than the caller reserved: never written past, read line by line
            failed = True
            break
        if not clean or buf[starts[0]] == 35 or n_fields < min_fields or n_fields > max_fields:  # '#', a shape
            failed = True
            break
        # the query: the previous line's (runs and qrels are grouped by query), else looked up by hash
        qa, qb = starts[0], ends[0]
        if previous >= 0 and _same_bytes(buf, qa, qb, query_spans[previous, 0], query_spans[previous, 1]):
            code = previous
        else:
            h = span_hash(buf, qa, qb)
            mask = table.shape[0] - 1
            slot = h & mask
            code = -1
            while table[slot] >= 0:
                k = table[slot]
                if query_hashes[k] == h and _same_bytes(buf, qa, qb, query_spans[k, 0], query_spans[k, 1]):
                    code = k
                    break
                slot = (slot + 1) & mask
            if code < 0:
                code = n_queries
                if n_queries == query_spans.shape[0]:
                    query_spans = _grow_rows(query_spans)
                    query_hashes = _grow(query_hashes)
                query_spans[code, 0] = qa
                query_spans[code, 1] = qb
                query_hashes[code] = h
                n_queries += 1
                table[slot] = code
                if 2 * n_queries > table.shape[0]:  # half full at most: probes stay short
                    table = np.full(2 * table.shape[0], -1, dtype=np.int64)
                    mask = table.shape[0] - 1
                    for k in range(n_queries):
                        s = query_hashes[k] & mask
                        while table[s] >= 0:
                            s = (s + 1) & mask
                        table[s] = k
            previous = code
        codes[rows] = code
        # the document id, copied out and hashed
        at = doc_offsets[rows]
        hv = np.uint64(0xCBF29CE484222325)
        for j in range(starts[2], ends[2]):
            doc_data[at] = buf[j]
            hv = (hv ^ np.uint64(buf[j])) * np.uint64(0x100000001B3)
            at += 1
        doc_offsets[rows + 1] = at
        doc_hashes[rows] = np.int64(splitmix64(hv))
        # the value
        va, vb = starts[value_field], ends[value_field]
        if integer:
            kind, iv = _integer(buf, va, vb)
            int_values[rows] = iv
        else:
            kind, fv = _decimal(buf, va, vb)
            float_values[rows] = fv
        if kind == 2:
            failed = True
            break
        if kind == 1:
            if n_slow == slow_spans.shape[0]:
                slow_spans = _grow_rows(slow_spans)
            slow_spans[n_slow, 0] = rows
            slow_spans[n_slow, 1] = va
            slow_spans[n_slow, 2] = vb
            n_slow += 1
        if n_fields > 5 and max_fields > 5:  # a run line's tag
            if tags[0, 0] < 0:
                tags[0, 0] = starts[5]
                tags[0, 1] = ends[5]
            tags[1, 0] = starts[5]
            tags[1, 1] = ends[5]
        rows += 1
    status = STATUS_FALLBACK if failed else rows
    return status, query_spans[:n_queries], doc_data[:doc_offsets[rows]], slow_spans[:n_slow], tags, non_ascii
