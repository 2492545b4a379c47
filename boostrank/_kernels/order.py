"""Every order the package takes: documents inside each group, and the probit λ's pessimistic order.

One specification each, in ``tests/reference.py``: :func:`sort_within_groups` is a stable
argsort per group; :func:`pessimistic_order` and :func:`pessimistic_reorder` are
``np.lexsort((row, label, -score))`` and :func:`ascending_pessimistic_into` its reverse,
``np.lexsort((-row, -label, score))``.  The strategies inside (a stable LSD radix sort
of 32- or 64-bit keys, run repair, one chunk per thread) are chosen by size and
score shape.  A float's sortable key (:func:`float_key`) and its inverse
(:func:`key_float`) are written once, here.
"""

import numpy as np
from numba import get_num_threads, njit, prange  # get_num_threads: Python callers only

from .config import MAX_LIST_ROWS, PARALLEL_SORT_MIN_ROWS

_SIGN = np.uint64(1) << np.uint64(63)


@njit(cache=True)
def float_key(x):
    """The uint64 whose unsigned order is the order of the float64 ``x`` (−0.0 ties with 0.0, NaN at the ends)."""
    b = np.uint64(0) if x == 0.0 else np.float64(x).view(np.uint64)
    return ~b if b & _SIGN else b | _SIGN


@njit(cache=True)
def tie_end(scores, order, i, b):
    """One past the last position j < b with ``scores[order[j]] == scores[order[i]]``: the tie block at i."""
    s = scores[order[i]]
    j = i + 1
    while j < b and scores[order[j]] == s:
        j += 1
    return j


@njit(cache=True)
def key_float(k):
    """The float64 bits of a :func:`float_key` (as uint64; ``.view`` the array as float64)."""
    return k ^ _SIGN if k & _SIGN else ~k


@njit(cache=True, parallel=True)
def descending_within_groups(values, rows, offsets, out):
    """``values[rows]`` as float64, each group's (``offsets``) sorted largest first, written to ``out``: the
    ideal grades of every query at once (a qrels file's grades gathered by query).  A group per thread."""
    for g in prange(offsets.shape[0] - 1):
        a = offsets[g]
        b = offsets[g + 1]
        for i in range(a, b):
            out[i] = values[rows[i]]
        out[a:b].sort()
        for i in range((b - a) // 2):
            out[a + i], out[b - 1 - i] = out[b - 1 - i], out[a + i]
    return out


@njit(cache=True, parallel=True)
def sort_within_groups(scores, offsets, descending):
    """Stable order of each group's documents by score.

    Parameters
    ----------
    scores : ndarray of float64, shape (n,)
    offsets : ndarray of int64, shape (n_groups + 1,)
    descending : bool
        Highest score first when True.  Ties keep file order in both directions
        (a stable sort), which is what LightGBM's ranking metrics do.

    Returns
    -------
    order : ndarray of int64, shape (n,)
        Global row indices; ``order[offsets[g]:offsets[g + 1]]`` lists group ``g``.
    """
    n_groups = offsets.shape[0] - 1
    order = np.empty(scores.shape[0], dtype=np.int64)
    for g in prange(n_groups):
        a = offsets[g]
        b = offsets[g + 1]
        if b - a == 0:
            continue
        local = merge_order(-scores[a:b] if descending else scores[a:b].copy())
        for i in range(b - a):
            order[a + i] = a + local[i]
    return order


@njit(cache=True)
def radix_sort(keys, idx, k2, i2, n_bytes, low_byte=0):
    """Stable LSD radix sort of unsigned ``keys`` carrying ``idx``, in place; 8-bit digits.

    ``n_bytes`` is the width of the keys (8 for uint64, 4 for uint32); ``k2``, ``i2``
    are scratch of the same shapes.  A digit every key shares costs only its histogram.
    With ``low_byte`` > 0 only bytes ``low_byte`` … ``n_bytes − 1`` are sorted on (see
    :func:`repair_runs`).
    """
    n = keys.shape[0]
    hist = np.zeros((n_bytes, 256), dtype=np.int64)
    mask = np.uint64(255)
    for m in range(n):
        k = np.uint64(keys[m])
        for d in range(low_byte, n_bytes):
            hist[d, (k >> np.uint64(8 * d)) & mask] += 1
    src_k, src_i, dst_k, dst_i = keys, idx, k2, i2
    swapped = False
    for d in range(low_byte, n_bytes):
        if hist[d].max() == n:  # a digit every key shares: nothing to do
            continue
        shift = np.uint64(8 * d)
        total = 0
        for v in range(256):
            c = hist[d, v]
            hist[d, v] = total
            total += c
        for m in range(n):
            v = (np.uint64(src_k[m]) >> shift) & mask
            q = hist[d, v]
            hist[d, v] = q + 1
            dst_k[q] = src_k[m]
            dst_i[q] = src_i[m]
        src_k, dst_k = dst_k, src_k
        src_i, dst_i = dst_i, src_i
        swapped = not swapped
    if swapped:  # loops: a slice assignment compiled Numba's shape-error path, 1.8 s of a first MIP fit
        for m in range(n):
            keys[m] = k2[m]
            idx[m] = i2[m]



@njit(cache=True)
def sort_run(key, a, b, c1, c2):
    """Stable sort of ``key[a:b]`` ascending, moving ``c1`` and ``c2`` (which may be one
    array) along: by insertion up to 32 rows, else by a merge sort."""
    if b - a <= 32:
        for i in range(a + 1, b):
            k = key[i]
            v1 = c1[i]
            v2 = c2[i]
            j = i - 1
            while j >= a and key[j] > k:
                key[j + 1] = key[j]
                c1[j + 1] = c1[j]
                c2[j + 1] = c2[j]
                j -= 1
            key[j + 1] = k
            c1[j + 1] = v1
            c2[j + 1] = v2
    else:
        ks = key[a:b].copy()
        local = merge_order(ks)  # sorts ks in place
        v1s = c1[a:b][local]
        v2s = c2[a:b][local]
        for i in range(b - a):  # loops, not slice assignments (see radix_sort)
            key[a + i] = ks[i]
            c1[a + i] = v1s[i]
            c2[a + i] = v2s[i]


@njit(cache=True)
def repair_runs(keys, idx, low_byte):
    """Finish :func:`radix_sort` run with ``low_byte``: order each run of keys equal above it.

    Stable.  Short runs (at most 32) by insertion, longer unsorted ones by a stable
    merge sort of the run; runs of equal keys, which boosting makes in bulk, cost one
    comparison per element.
    """
    n = keys.shape[0]
    shift = np.uint64(8 * low_byte)
    a = 0
    while a < n:
        top = np.uint64(keys[a]) >> shift
        b = a + 1
        ordered = True
        while b < n and (np.uint64(keys[b]) >> shift) == top:
            if keys[b] < keys[b - 1]:
                ordered = False
            b += 1
        if not ordered:
            sort_run(keys, a, b, idx, idx)
        a = b


def index_dtype(n):
    """Integer type of the order's work arrays for lists of ``n`` rows.

    int32 below 2³¹ rows: the one-thread sort's radix passes move 12 bytes per row
    instead of 16 and the sweeps read half the class ids.
    """
    return np.int32 if n < 2**31 else np.int64


def ascending_pessimistic(scores, labels, n_classes, scale):
    """:func:`ascending_pessimistic_into` with fresh work arrays; returns (order, t, cls).

    Plain Python on purpose: a cached non-parallel jitted caller of a parallel kernel
    that was cached first by another process segfaults when loaded (Numba 0.68).
    """
    n = scores.shape[0]
    if n > MAX_LIST_ROWS:
        raise ValueError(f"lists of more than {MAX_LIST_ROWS} rows are not supported")
    # class ids in the index type, as the λ kernels pass them: one compiled variant, not two
    labels = np.ascontiguousarray(labels, dtype=index_dtype(n))
    wi = np.empty((3, n), dtype=index_dtype(n))
    wu = np.empty((2, n), dtype=np.uint64)
    t = np.empty(n)
    if not ascending_pessimistic_into(scores, labels, n_classes, scale, wi, wu, t, get_num_threads()):
        raise ValueError("scores must not be NaN")
    return wi[1], t, wi[2]


@njit(cache=True)
def ascending_serial(scores, labels, n_classes, idx, keys, idx2, keys2):
    """:func:`ascending_pessimistic_into`'s order ``idx`` and keys on one thread.

    A counting sort lays the rows out by (label desc, row desc), then a stable LSD radix
    sort on the keys' top four bytes and :func:`repair_runs`.
    ``idx2``, ``keys2``: scratch of the same length.
    """
    n = scores.shape[0]
    start = np.zeros(n_classes + 1, dtype=np.int64)
    for r in range(n):
        start[n_classes - labels[r]] += 1
    for c in range(n_classes):
        start[c + 1] += start[c]
    for r in range(n - 1, -1, -1):
        q = start[n_classes - 1 - labels[r]]
        start[n_classes - 1 - labels[r]] = q + 1
        keys[q] = float_key(scores[r])
        idx[q] = r
    radix_sort(keys, idx, keys2, idx2, 8, 4)
    repair_runs(keys, idx, 4)


@njit(cache=True, parallel=True)
def ascending_pessimistic_into(scores, labels, n_classes, scale, wi, wu, t, n_threads):
    """The ascending pessimistic order, with t = scale · (score − the median score) and class ids along it.

    The series reads only differences of t: taken from the list's median before scaling,
    they stay exact for scores near it wherever the list sits (scaled first, scores at
    10¹² kept differences to 10⁻⁴ and the λs lost five digits).

    Ascending score; among equal scores the higher label first, then the later row:
    the exact reverse of :func:`pessimistic_order`.  From
    ``PARALLEL_SORT_MIN_ROWS`` rows, a stable LSD radix sort in one chunk per Numba thread (the same order for any count):

    1. a first pass lays the rows out by (label desc, row desc) as 64-bit keys: on top,
       the score's point on a 32-bit grid that never decreases with s; below, the row
       number.  The grid is linear over [min, max], floor((s − min) · (2³² − 1) /
       (max − min)), or, on heavy tails and outliers, the top 32 bits of the float's
       order-preserving integer image (:func:`_image_grid_is_finer` picks);
    2. four 8-bit passes sort on the grid point, each counting its digit per chunk in a
       read of its own;
    3. the rows' scores and classes are gathered along the order, and only where a
       score decreases (two scores on one grid point) is its run of one grid point
       sorted by score, stably (:func:`_settle`).

    The linear grid resolves what the float's own top 32 bits do not: on boosting
    scores at 10⁶ rows, 100 k–400 k rows share their top 32 bits with a different
    score and had to be repaired by insertion; a few hundred share a grid point.
    One key array, 8-bit digits and counting in separate reads keep each scatter to
    256 write streams per thread (11-bit digits over key and index arrays meant 4 096).
    Times on six score shapes: ``benchmarks/long_lists.py`` and
    benchmarks/MEASUREMENTS.md, "order".

    Work arrays are the caller's, so a boosting run reuses them every round: fresh
    arrays cost page faults every call.

    Parameters
    ----------
    scores : ndarray of float64, shape (n,), n ≤ ``MAX_LIST_ROWS``
    wi : ndarray of int32 or int64 (:func:`index_dtype`), shape (3, ≥ n)
        Out: ``wi[1]`` the order (rows, ascending), ``wi[2]`` the class along it;
        ``wi[0]`` is scratch.
    wu : ndarray of uint64, shape (2, ≥ n)
        Scratch.
    t : ndarray of float64, shape (≥ n,)
        Out: scale · (score − the median score) along the order.
    n_threads : int
        Chunks of the parallel sort: the caller's ``numba.get_num_threads()``.

    Returns
    -------
    ok : bool
        False when some score is NaN (the outputs are then undefined); ±inf are ordered.
    """
    n = scores.shape[0]
    if n < PARALLEL_SORT_MIN_ROWS:
        ascending_serial(scores, labels, n_classes, wi[1, :n], wu[1, :n], wi[0, :n], wu[0, :n])
        _finish_order(labels, scale, wi, wu, t, n)
        # NaN sorts to the ends
        return n == 0 or not (np.isnan(scores[wi[1, 0]]) or np.isnan(scores[wi[1, n - 1]]))
    # one chunk per thread (numba.get_num_threads() of the caller: called in here, it is a ctypes
    # pointer that keeps the kernel out of the on-disk cache); the order is the same for any count
    nch = max(1, n_threads)
    edge = np.empty(nch + 1, dtype=np.int64)
    for ch in range(nch + 1):
        edge[ch] = ch * n // nch
    # label counts per source chunk, rows padded apart: threads sharing a cache line of counters (false sharing)
    lab = np.zeros((nch, n_classes + 16), dtype=np.int64)
    ext = np.zeros((nch, 16))
    for ch in prange(nch):
        a, b = edge[ch], edge[ch + 1]
        if n_classes <= 8:  # a vectorised count per class
            for c in range(n_classes):
                k = 0
                for r in range(n - b, n - a):
                    k += labels[r] == c
                lab[ch, n_classes - 1 - c] = k
        else:
            for q in range(a, b):
                lab[ch, n_classes - 1 - labels[n - 1 - q]] += 1
        lo_c = np.inf
        hi_c = -np.inf
        nan = 0
        for r in range(a, b):
            v = scores[r]
            lo_c = min(lo_c, v)
            hi_c = max(hi_c, v)
            nan += np.int64(v != v)
        ext[ch, 0] = lo_c
        ext[ch, 1] = hi_c
        ext[ch, 2] = nan
    if ext[:, 2].sum() > 0:
        return False
    lo = ext[:, 0].min()
    span = ext[:, 1].max() - lo
    top = 4294967295.0
    grid = top / span if span > 0.0 and top / span < np.inf and span < np.inf else 0.0
    image = grid == 0.0 or _image_grid_is_finer(scores, span)
    off = np.zeros((nch, n_classes + 16), dtype=np.int64)
    total = 0
    for c in range(n_classes):
        for ch in range(nch):
            off[ch, c] = total
            total += lab[ch, c]
    for ch in prange(nch):
        for q in range(edge[ch], edge[ch + 1]):
            r = n - 1 - q
            c = n_classes - 1 - labels[r]
            dst = off[ch, c]
            off[ch, c] = dst + 1
            if image:
                g = float_key(scores[r]) >> np.uint64(32)
            else:
                g = np.uint64(min((scores[r] - lo) * grid, top))
            wu[0, dst] = (g << np.uint64(32)) | np.uint64(r)
    mask = np.uint64(255)
    src = 0
    for d in range(4):
        shift = np.uint64(32 + 8 * d)
        # each chunk's digit counts, rows padded apart (false sharing)
        pos = np.zeros((nch, 256 + 16), dtype=np.int64)
        for ch in prange(nch):
            for q in range(edge[ch], edge[ch + 1]):
                pos[ch, (wu[src, q] >> shift) & mask] += 1
        if pos.sum(axis=0).max() == n:  # a digit every key shares
            continue
        total = 0
        for v in range(256):
            for ch in range(nch):
                c = pos[ch, v]
                pos[ch, v] = total
                total += c
        dst_buf = 1 - src
        for ch in prange(nch):
            for q in range(edge[ch], edge[ch + 1]):
                k = wu[src, q]
                v = (k >> shift) & mask
                dst = pos[ch, v]
                pos[ch, v] = dst + 1
                wu[dst_buf, dst] = k
        src = dst_buf
    keys = wu[src, :n]
    order = wi[1, :n]
    cls = wi[2, :n]
    row = np.uint64(0xFFFFFFFF)
    for m in prange(n):
        r = keys[m] & row
        order[m] = r
        t[m] = scores[r]
        cls[m] = labels[r]
    # runs of one grid point are settled in independent parts, split where the grid point changes
    split = np.empty(nch + 1, dtype=np.int64)
    split[0] = 0
    for ch in range(1, nch + 1):
        s = max(edge[ch], split[ch - 1])
        while 0 < s < n and (keys[s] >> np.uint64(32)) == (keys[s - 1] >> np.uint64(32)):
            s += 1
        split[ch] = s
    for part in prange(nch):
        _settle(t, order, cls, keys, split[part], split[part + 1])
    anchor = t[n // 2]
    for m in prange(n):
        t[m] = (t[m] - anchor) * scale
    return True


@njit(cache=True)
def _image_grid_is_finer(scores, span):
    """Whether the top 32 bits of the scores' order-preserving integer image separate
    neighbouring scores better than the linear grid over [min, max] does.

    Judged on 1 024 evenly spaced scores, sorted: a gap between distinct neighbours
    there stands for a gap about n/1 024 times smaller in the list, and counts as a
    collision when that falls below one grid point.  The linear grid wins on the
    scores of boosting and on a narrow span (the image's top bits cannot tell 1 from
    1 + 10⁻¹² apart); the image wins on heavy tails and outliers (one score at 10¹²
    among scores near 0).  Figures: benchmarks/MEASUREMENTS.md, "order".
    """
    n = scores.shape[0]
    m = 1024
    step = n // m
    sample = scores[0:step * m:step].copy()
    merge_order(sample)
    room = n / m
    linear = 0
    image = 0
    prev_key = np.uint64(0)
    for i in range(m):
        key = float_key(sample[i])
        if i > 0 and sample[i] > sample[i - 1]:
            if (sample[i] - sample[i - 1]) / room < span / 4294967296.0:
                linear += 1
            if float(key - prev_key) / room < 4294967296.0:
                image += 1
        prev_key = key
    return image < linear


@njit(cache=True)
def _settle(s, order, cls, keys, a, b):
    """Sort rows a … b−1, ordered by grid point (``keys >> 32``), by score ``s`` within each grid point.

    Stable, so equal scores keep the first pass's (label desc, row desc) order.  Only a
    grid point whose scores decrease somewhere is sorted (:func:`sort_run`).
    """
    m = a + 1
    while m < b:
        if s[m] >= s[m - 1]:
            m += 1
            continue
        point = keys[m] >> np.uint64(32)
        lo = m - 1
        while lo > a and (keys[lo - 1] >> np.uint64(32)) == point:
            lo -= 1
        hi = m + 1
        while hi < b and (keys[hi] >> np.uint64(32)) == point:
            hi += 1
        sort_run(s, lo, hi, order, cls)
        m = hi


@njit(cache=True, parallel=True)
def _finish_order(labels, scale, wi, wu, t, n):
    """t = scale · (score − the median score) and the class along the sorted keys ``wu[1]`` and rows ``wi[1]``."""
    keys = wu[1, :n]
    t_bits = t[:n].view(np.uint64)
    # serial: Numba's parfors do not see that t_bits and t alias (fused loops read t early)
    for m in range(n):
        t_bits[m] = key_float(keys[m])
    idx = wi[1, :n]
    cls = wi[2, :n]
    anchor = t[n // 2] if n > 0 else 0.0
    for m in prange(n):
        t[m] = (t[m] - anchor) * scale
        cls[m] = labels[idx[m]]


@njit(cache=True)
def before(scores, labels, a, u, v):
    """Whether local row ``u`` precedes ``v`` in the pessimistic order: higher score first;
    equal scores lower label first, then lower row.  NaN scores go last, ordered the same way."""
    su = scores[a + u]
    sv = scores[a + v]
    if su > sv:
        return True
    if su < sv:
        return False
    if su == sv or (su != su and sv != sv):
        lu = labels[a + u]
        lv = labels[a + v]
        return lu < lv or (lu == lv and u < v)
    return sv != sv  # exactly one NaN: the number first


@njit(cache=True)
def pessimistic_order(scores, labels, a, b):
    """Positions of a query's documents: score descending, ties worst label first.

    Inside a block of tied scores, lower labels are placed above higher ones (a tie
    between a relevant and a less relevant document counts as a misrank, thesis
    §2.1.3), and equal labels keep input order.  The result is deterministic and
    does not depend on the input order of different labels.

    Two stable sorts on float64 keys (:func:`merge_order`, the instantiation every
    order shares): by label, then that order by score descending.

    Returns
    -------
    order : ndarray of int64, shape (b - a,)
        Local indices (0..b-a-1), best position first.
    """
    n = b - a
    keys = np.empty(n)
    for i in range(n):
        keys[i] = labels[a + i]
    by_label = merge_order(keys)
    for i in range(n):
        keys[i] = -scores[a + by_label[i]]
    by_score = merge_order(keys)
    for i in range(n):
        by_score[i] = by_label[by_score[i]]
    return by_score


@njit(cache=True)
def merge_order(kb):
    """Sort ``kb`` ascending in place (stable, NaN last) and return the permutation that did it.

    The one sort of the kernels (callers pass a local copy: the negated scores for a
    descending order): a merge sort, runs of 16 by insertion, the keys moving with the
    rows (direct loads, not comparisons through the order).  Written out rather than
    ``np.argsort``: Numba's merge sort compiles once per key type, on every first λ-AUC
    round and first metric (benchmarks/cold_start.py).  One
    argument on purpose: Numba compiles a call with a constant argument (0, False) for
    that constant's literal type, a compile per constant.
    """
    n = kb.shape[0]
    src = np.empty(n, dtype=np.int64)
    for i in range(n):
        src[i] = i
    run = 16
    for lo in range(0, n, run):
        hi = min(lo + run, n)
        for t in range(lo + 1, hi):
            cur = src[t]
            kc = kb[t]
            j = t
            while j > lo and (kc < kb[j - 1] or (kb[j - 1] != kb[j - 1] and kc == kc)):
                src[j] = src[j - 1]
                kb[j] = kb[j - 1]
                j -= 1
            src[j] = cur
            kb[j] = kc
    if n <= run:
        return src
    dst = np.empty(n, dtype=np.int64)
    kd = np.empty_like(kb)
    width = run
    passes = 0
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j = lo, mid
            for k in range(lo, hi):
                if j >= hi or (i < mid and not (kb[j] < kb[i] or (kb[i] != kb[i] and kb[j] == kb[j]))):
                    dst[k] = src[i]
                    kd[k] = kb[i]
                    i += 1
                else:
                    dst[k] = src[j]
                    kd[k] = kb[j]
                    j += 1
        src, dst = dst, src
        kb, kd = kd, kb
        width *= 2
        passes += 1
    if passes % 2:  # the sorted keys sit in the scratch: back into the caller's array (a loop: a
        for i in range(n):  # slice assignment compiled a shape-error path, 1.5 s)
            kd[i] = kb[i]
    return src


@njit(cache=True)
def pessimistic_reorder(scores, labels, a, b, order):
    """Turn ``order[a:b]`` (a permutation of local indices) into the pessimistic order.

    Insertion sort from the given order, O(n + moves): near-sorted input (last
    round's order) costs a pass.  Past 8 moves per document it stops and sorts
    afresh (:func:`pessimistic_order`), so a shuffled start stays O(n log n).
    Comparison: :func:`before` (higher score first; equal scores lower label first;
    then lower row), so the result does not depend on the starting permutation.
    """
    n = b - a
    budget = 8 * n + 64
    moves = 0
    for t in range(1, n):
        cur = order[a + t]
        j = t
        while j > 0:
            prev = order[a + j - 1]
            if before(scores, labels, a, prev, cur):
                break
            order[a + j] = prev
            j -= 1
        order[a + j] = cur
        moves += t - j
        if moves > budget:
            fresh = pessimistic_order(scores, labels, a, b)
            for k in range(n):
                order[a + k] = fresh[k]
            return
