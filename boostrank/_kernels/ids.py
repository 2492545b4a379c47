"""Kernels of TREC ids: ids as UTF-8 bytes, hashed, grouped, compared, ordered; the lines of a file.

Ids are held as one byte array and offsets (id ``i`` is ``data[offsets[i]:offsets[i + 1]]``), Arrow's layout
of a string column, so that a file's ids are never turned into Python objects to be matched.  Comparing
bytes without sign is ``strcmp``'s order, which on UTF-8 is the order of code points.
"""

import numpy as np
from numba import njit, prange

from .config import TREC_RADIX_MIN_ROWS
from .order import float_key, merge_order, radix_sort, tie_end
from .trec_columns import span_hash


@njit(cache=True)
def _line_pass(buf, starts, ends, numbers, fill):
    """One pass of :func:`line_spans`: counts the lines with a character (and fills the arrays when ``fill``)."""
    n = buf.shape[0]
    count = 0
    bad_cr = 0
    number = 1
    start = 0
    i = 0
    while i <= n:
        if i == n or buf[i] == 10:
            end = i
            if end > start and buf[end - 1] == 13:
                end -= 1
            blank = True
            for j in range(start, end):
                c = buf[j]
                if c == 13 and bad_cr == 0:
                    bad_cr = number
                if not (c == 32 or c == 9 or c == 11 or c == 12 or c == 13):
                    blank = False
            if not blank:
                if fill:
                    starts[count] = start
                    ends[count] = end
                    numbers[count] = number
                count += 1
            number += 1
            start = i + 1
        i += 1
    return count, bad_cr


@njit(cache=True)
def line_spans(buf):
    """The lines of a file's bytes that hold a character other than white space, lines ending at ``\\n``.

    Returns ``(starts, ends, numbers, bad_cr)``: each such line is ``buf[starts[i]:ends[i]]`` (a ``\\r``
    before its ``\\n`` left out, so CRLF files read as LF ones), ``numbers[i]`` its 1-based line number;
    ``bad_cr`` the number of the first line with a ``\\r`` elsewhere (0: none), which lone-CR line ends
    would otherwise run into one line.  White space is space, ``\\t``, ``\\v``, ``\\f`` and ``\\r``.
    """
    empty = np.empty(0, dtype=np.int64)
    count, bad_cr = _line_pass(buf, empty, empty, empty, False)
    starts = np.empty(count, dtype=np.int64)
    ends = np.empty(count, dtype=np.int64)
    numbers = np.empty(count, dtype=np.int64)
    _line_pass(buf, starts, ends, numbers, True)
    return starts, ends, numbers, bad_cr


@njit(cache=True)
def hash_ids(data, offsets):
    """A 64-bit hash of each id's bytes (FNV-1a, then SplitMix64's finaliser to spread its low bits): equal
    ids hash equal in every process; equal hashes are confirmed on the bytes."""
    n = offsets.shape[0] - 1
    out = np.empty(n, dtype=np.int64)
    for r in range(n):
        out[r] = span_hash(data, offsets[r], offsets[r + 1])
    return out


@njit(cache=True)
def compare_ids(data_a, offsets_a, i, data_b, offsets_b, j):
    """−1, 0 or 1 as id ``i`` of a sorts before, equal to or after id ``j`` of b (``strcmp``)."""
    a, a_end = offsets_a[i], offsets_a[i + 1]
    b, b_end = offsets_b[j], offsets_b[j + 1]
    while a < a_end and b < b_end:
        if data_a[a] != data_b[b]:
            return -1 if data_a[a] < data_b[b] else 1
        a += 1
        b += 1
    if a < a_end:
        return 1
    return -1 if b < b_end else 0


@njit(cache=True)
def take_ids(data, offsets, rows):
    """The ids ``rows`` as bytes and offsets of their own."""
    new = np.empty(rows.shape[0] + 1, dtype=np.int64)
    new[0] = 0
    for k in range(rows.shape[0]):
        new[k + 1] = new[k] + offsets[rows[k] + 1] - offsets[rows[k]]
    out = np.empty(new[-1], dtype=np.uint8)
    for k in range(rows.shape[0]):
        a = offsets[rows[k]]
        for i in range(new[k + 1] - new[k]):
            out[new[k] + i] = data[a + i]
    return out, new


@njit(cache=True)
def rows_by_group(codes, n_groups, rows):
    """The rows ordered by group, file order inside each (a counting sort), written to ``rows`` (one per row of
    ``codes``; the caller's array, so that NumPy's allocator backs it), and the groups' offsets."""
    offsets = np.zeros(n_groups + 1, dtype=np.int64)
    for r in range(codes.shape[0]):
        offsets[codes[r] + 1] += 1
    for g in range(n_groups):
        offsets[g + 1] += offsets[g]
    at = offsets[:-1].copy()
    for r in range(codes.shape[0]):
        rows[at[codes[r]]] = r
        at[codes[r]] += 1
    return rows, offsets


@njit(cache=True, parallel=True)
def by_hash_within_groups(hashes, rows, offsets):
    """``rows`` (grouped, file order inside each group) re-ordered by hash inside each group, stably; a group per
    thread."""
    out = np.empty_like(rows)
    for g in prange(offsets.shape[0] - 1):
        a = offsets[g]
        b = offsets[g + 1]
        part = rows[a:b]
        local = merge_order(hashes[part])
        for k in range(b - a):
            out[a + k] = part[local[k]]
    return out


@njit(cache=True)
def first_duplicate(rows, offsets, hashes, data, id_offsets):
    """The first repeated id of a group: the pair (i, j) of rows with the smallest ``j`` whose id equals an
    earlier row ``i`` of its group (the earliest such ``i``); (−1, −1) when no group repeats one.

    ``rows`` are :func:`by_hash_within_groups`' order: a repeat sits in a run of equal hashes, rows ascending.
    Each run is sorted by id, so ids made to collide cost O(m log m) comparisons, not O(m²).
    """
    best_i = -1
    best_j = -1
    for g in range(offsets.shape[0] - 1):
        a = offsets[g]
        b = offsets[g + 1]
        s = a
        while s < b:
            e = tie_end(hashes, rows, s, b)
            if e - s > 1:  # equal hashes: equal ids, or a collision (which a file may be made of: sorted, not paired)
                run = rows[s:e].copy()
                _sort_by_id(run, 0, e - s, data, id_offsets)  # stable: each id's rows stay ascending
                t = 0
                while t < e - s:
                    u = _same_id_end(run, t, e - s, data, id_offsets)
                    if u - t > 1 and (best_j < 0 or run[t + 1] < best_j):
                        best_i, best_j = run[t], run[t + 1]
                    t = u
            s = e
    return best_i, best_j


@njit(cache=True)
def first_repeat(rows, offsets, hashes, data, id_offsets):
    """:func:`first_duplicate`'s answer from ``rows`` grouped in file order (:func:`rows_by_group`), by a hash
    set per group instead of a sort by hash: the first repeat met in a group is its smallest ``j``, and the set
    holds each id's first row.

    A group whose probes pass a few per row (ids made to collide) is answered by the sort instead, so a
    hostile file costs O(m log m) there too.
    """
    widest = 0
    for g in range(offsets.shape[0] - 1):
        widest = max(widest, offsets[g + 1] - offsets[g])
    size = 16
    while size < 2 * widest:
        size *= 2
    table = np.full(size, -1, dtype=np.int64)
    best_i = -1
    best_j = -1
    for g in range(offsets.shape[0] - 1):
        a = offsets[g]
        b = offsets[g + 1]
        mask = 15
        while mask + 1 < 2 * (b - a):
            mask = 2 * mask + 1
        budget = 4 * (b - a) + 64
        found_i = -1
        found_j = -1
        for t in range(a, b):
            r = rows[t]
            h = hashes[r]
            slot = h & mask
            while table[slot] >= 0 and budget > 0:
                k = table[slot]
                budget -= 1
                if hashes[k] == h and compare_ids(data, id_offsets, k, data, id_offsets, r) == 0:
                    found_i, found_j = k, r
                    break
                slot = (slot + 1) & mask
            if found_j >= 0 or budget <= 0:
                break
            table[slot] = r
        table[:mask + 1] = -1
        if budget <= 0:  # made to collide: the sort's answer for this group
            part = rows[a:b].copy()
            local = np.array([0, b - a], dtype=np.int64)
            found_i, found_j = first_duplicate(by_hash_within_groups(hashes, part, local), local, hashes, data,
                                               id_offsets)
        if found_j >= 0 and (best_j < 0 or found_j < best_j):
            best_i, best_j = found_i, found_j
    return best_i, best_j


@njit(cache=True)
def _same_id_end(rows, t, n, data, id_offsets):
    """One past the last position u < n with the id of ``rows[t]``, in rows sorted by id."""
    u = t + 1
    while u < n and compare_ids(data, id_offsets, rows[u], data, id_offsets, rows[t]) == 0:
        u += 1
    return u


@njit(cache=True)
def _id_after(data, id_offsets, u, v):
    """Whether row ``u`` comes before row ``v`` in trec_eval's order of tied scores (document id descending)."""
    return compare_ids(data, id_offsets, u, data, id_offsets, v) > 0


@njit(cache=True, parallel=True)
def trec_order(rows, offsets, score, data, id_offsets, order):
    """trec_eval's order of each group's rows (``rows[offsets[g]:offsets[g + 1]]``, any order), written to
    ``order`` (as long as ``rows``) and returned: score descending, then document id descending (``strcmp``,
    ``get_trec_results.c``); a group already in score order, as a run file written by rank is, keeps its rows
    without a sort.  A group per thread."""
    for g in prange(offsets.shape[0] - 1):
        a = offsets[g]
        b = offsets[g + 1]
        ranked = True
        for i in range(a + 1, b):
            if score[rows[i]] > score[rows[i - 1]]:
                ranked = False
                break
        if ranked:
            for i in range(a, b):
                order[i] = rows[i]
        elif b - a >= TREC_RADIX_MIN_ROWS:
            _radix_descending(score, rows, a, b, order)
        else:
            keys = np.empty(b - a, dtype=np.float64)
            for i in range(a, b):
                keys[i - a] = -score[rows[i]]
            local = merge_order(keys)
            for i in range(b - a):
                order[a + i] = rows[a + local[i]]
        s = a
        while s < b:
            e = tie_end(score, order, s, b)
            if e - s > 1:
                _sort_by_id(order, s, e, data, id_offsets)
            s = e
    return order


_NAN_LAST = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True)
def _radix_descending(score, rows, a, b, order):
    """``rows[a:b]`` by score descending, stable, NaN last (:func:`merge_order`'s order of the negated scores),
    written to ``order[a:b]``: a radix sort of the scores' sortable keys, for long queries."""
    n = b - a
    keys = np.empty(n, dtype=np.uint64)
    idx = np.empty(n, dtype=np.int64)
    for i in range(n):
        v = score[rows[a + i]]
        keys[i] = _NAN_LAST if v != v else float_key(-v)  # −NaN's key would sort first
        idx[i] = i
    radix_sort(keys, idx, np.empty(n, dtype=np.uint64), np.empty(n, dtype=np.int64), 8)
    for i in range(n):
        order[a + i] = rows[a + idx[i]]


@njit(cache=True)
def _sort_by_id(order, a, b, data, id_offsets):
    """``order[a:b]`` by id descending: insertion below 17 rows, else a merge sort (ids of one query differ)."""
    n = b - a
    if n <= 16:
        for t in range(a + 1, b):
            cur = order[t]
            j = t
            while j > a and _id_after(data, id_offsets, cur, order[j - 1]):
                order[j] = order[j - 1]
                j -= 1
            order[j] = cur
        return
    src = order[a:b].copy()
    dst = np.empty(n, dtype=order.dtype)
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j = lo, mid
            for k in range(lo, hi):
                if j >= hi or (i < mid and not _id_after(data, id_offsets, src[j], src[i])):
                    dst[k] = src[i]
                    i += 1
                else:
                    dst[k] = src[j]
                    j += 1
        src, dst = dst, src
        width *= 2
    for k in range(n):
        order[a + k] = src[k]


@njit(cache=True)
def union_by_hash(segments, rows, hashes, data, id_offsets):
    """The distinct (query, document) entries of several runs: each row's entry, each entry's first row and query.

    ``rows`` holds every run's rows (numbered across the runs) by (query, hash), as
    :func:`by_hash_within_groups` orders one run's; ``segments[u, i]`` is the (start, end) in ``rows`` of run i's
    rows of union query u.  Each query's runs are merged on the hash; rows of equal hash are one entry when their
    ids' bytes are equal.  Entries are numbered by query, then hash.
    """
    n_queries, n_runs = segments.shape[0], segments.shape[1]
    widest = 0
    for u in range(n_queries):
        size = 0
        for i in range(n_runs):
            size += segments[u, i, 1] - segments[u, i, 0]
        widest = max(widest, size)
    inverse = np.empty(hashes.shape[0], dtype=np.int64)
    first = np.empty(rows.shape[0], dtype=np.int64)
    entry_query = np.empty(rows.shape[0], dtype=np.int64)
    block = np.empty(widest, dtype=np.int64)
    at = np.empty(n_runs, dtype=np.int64)
    n_entries = 0
    for u in range(n_queries):
        for i in range(n_runs):
            at[i] = segments[u, i, 0]
        while True:
            found = False
            h = hashes[0] if hashes.shape[0] else 0
            for i in range(n_runs):
                if at[i] < segments[u, i, 1] and (not found or hashes[rows[at[i]]] < h):
                    h = hashes[rows[at[i]]]
                    found = True
            if not found:
                break
            m = 0
            for i in range(n_runs):  # every row of this hash: the same id in several runs, or (rarely) a collision
                while at[i] < segments[u, i, 1] and hashes[rows[at[i]]] == h:
                    block[m] = rows[at[i]]
                    m += 1
                    at[i] += 1
            if m > 1:  # sorted by id, stably (a file may be made of colliding ids: sorted, not paired)
                _sort_by_id(block, 0, m, data, id_offsets)
            t = 0
            while t < m:
                end = _same_id_end(block, t, m, data, id_offsets)
                first[n_entries] = block[t]
                entry_query[n_entries] = u
                for v in range(t, end):
                    inverse[block[v]] = n_entries
                n_entries += 1
                t = end
    return inverse, first[:n_entries], entry_query[:n_entries]
