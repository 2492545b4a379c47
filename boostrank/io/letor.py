"""LETOR / SVMlight ranking files: ``<label> qid:<q> <j>:<v> ... # comment``.

Numbers are parsed by scikit-learn's :func:`~sklearn.datasets.load_svmlight_file`;
this module adds what it lacks for ranking data: comments and ``docid``, group
sizes, a LightGBM ``.query`` side file, errors that name file and line, checks that
queries are contiguous and that every row has a ``qid`` (scikit-learn silently drops
the query ids of rows without one), and a writer that round-trips.
"""

from __future__ import annotations

import io
import math
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .._compat import require
from .files import LetorFormatError, check_max_bytes, lines_of, read_bytes, write_atomic
from .._validation import group_offsets, repeated_query

if TYPE_CHECKING:  # scipy.sparse is imported where a LETOR matrix is, not by every evaluation
    import scipy.sparse as sp

__all__ = ["LetorData", "LetorFormatError", "load_letor", "save_letor"]

_DOCID = re.compile(r"docid\s*=\s*(\S+)")
_TOKEN = re.compile(r"^(\d+):(\S+)$")
_ZERO_INDEX = re.compile(r"(?:^|\s)0+:")


MAX_LABEL = 2 ** 31 - 1
"""Largest label magnitude a LETOR file may hold (LightGBM's labels are int32)."""
MAX_FEATURES = 2 ** 20
"""Largest feature index :func:`load_letor` accepts by default: LightGBM spends about 1 KB per
feature column, empty or not (2**20 columns: 1 GB for a 4-row file; 2**24: 13 GB)."""
_LINE_BREAK = re.compile("[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


@dataclass
class LetorData:
    """A ranking dataset read from, or to be written to, a LETOR file.

    Attributes
    ----------
    X : ndarray of float64 of shape (n_samples, n_features) or scipy.sparse.csr_matrix
        Feature ``j`` of the file (1-based) is column ``j - 1``.
    y : ndarray of int64 of shape (n_samples,)
        Relevance labels.
    qid : ndarray of int64 of shape (n_samples,)
        Query ids; rows of a query are contiguous.
    group_sizes : ndarray of int64 of shape (n_queries,)
        Rows per query in file order, as ``lgb.Dataset(group=...)`` expects.
    group_offsets : ndarray of int64 of shape (n_queries + 1,)
        Query ``g`` is rows ``group_offsets[g]:group_offsets[g + 1]``.
    docid : ndarray of object of shape (n_samples,) or None
        From ``# docid = ...`` comments; None if no row has one.
    comments : ndarray of object of shape (n_samples,) or None
        The raw text after ``#`` (stripped), None if the file has no comments.
    line : ndarray of int64 of shape (n_samples,) or None
        The 1-based line number of each row in its file.
    path : str or None
    """

    X: np.ndarray | sp.csr_matrix
    y: np.ndarray
    qid: np.ndarray
    group_sizes: np.ndarray = field(default=None)
    group_offsets: np.ndarray = field(default=None)
    docid: np.ndarray | None = None
    comments: np.ndarray | None = None
    line: np.ndarray | None = None
    path: str | None = None

    def __post_init__(self):
        self.y = np.asarray(self.y, dtype=np.int64)
        self.qid = np.asarray(self.qid, dtype=np.int64)
        n = self.qid.shape[0]
        if self.group_offsets is None:
            self.group_offsets = (group_offsets(n, qid=self.qid) if self.group_sizes is None
                                  else group_offsets(n, group=self.group_sizes))
        self.group_sizes = np.diff(self.group_offsets)

    @property
    def n_queries(self) -> int:
        """Number of queries."""
        return int(self.group_sizes.shape[0])

    @property
    def n_features(self) -> int:
        """Number of feature columns."""
        return int(self.X.shape[1])

    def __len__(self) -> int:
        return int(self.y.shape[0])

    def take_queries(self, queries) -> "LetorData":
        """A new dataset with the given queries (positions 0..n_queries-1, in the order given).

        Parameters
        ----------
        queries : array-like of int or slice
            Query positions, e.g. the folds of a cross-validation over queries.
        """
        q = np.arange(self.n_queries)[queries]
        rows = np.concatenate([np.arange(self.group_offsets[g], self.group_offsets[g + 1])
                               for g in q]) if q.size else np.zeros(0, dtype=np.int64)
        pick = lambda a: None if a is None else a[rows]
        return LetorData(X=self.X[rows], y=self.y[rows], qid=self.qid[rows],
                         group_sizes=self.group_sizes[q], docid=pick(self.docid),
                         comments=pick(self.comments), line=pick(self.line), path=self.path)

    def to_frame(self):
        """The data as a :class:`pandas.DataFrame` with columns qid, label, docid, f1..fd."""
        pd = require("pandas", "pandas", "a DataFrame")

        import scipy.sparse as sp
        X = self.X.toarray() if sp.issparse(self.X) else self.X
        frame = pd.DataFrame(X, columns=[f"f{j + 1}" for j in range(X.shape[1])])
        frame.insert(0, "docid", self.docid if self.docid is not None else None)
        frame.insert(0, "label", self.y)
        frame.insert(0, "qid", self.qid)
        return frame


def _strip_comment(raw: str):
    body, hash_, comment = raw.partition("#")
    return body.strip(), (comment.strip() if hash_ else None)


def _scan(path, text_lines):
    """Comments, line numbers and the qid layout of the data lines."""
    lines, comments, has_qid = [], [], []
    for number, raw in text_lines:
        body, comment = _strip_comment(raw)
        if not body:
            continue
        lines.append(number)
        comments.append(comment)
        tokens = body.split(None, 2)
        if len(tokens) > 1 and tokens[1].startswith("qid") and not tokens[1].startswith("qid:"):
            # scikit-learn's reader takes "qid1:1" as qid 1; a typo must not pass as a query id
            raise LetorFormatError(path, number, f"malformed query id {tokens[1]!r}; expected qid:<integer>")
        has_qid.append(len(tokens) > 1 and tokens[1].startswith("qid:"))
    return np.asarray(lines, dtype=np.int64), comments, np.asarray(has_qid, dtype=bool)


def _diagnose(path, text_lines, zero_based: bool) -> None:
    """Find the first malformed line and raise a LetorFormatError naming it."""
    for number, raw in text_lines:
        body, _ = _strip_comment(raw)
        if not body:
            continue
        _check_line(path, number, body, zero_based)


def _check_line(path, number: int, body: str, zero_based: bool) -> None:
    """Raise a LetorFormatError naming ``number`` when a data line (its comment stripped) is malformed."""
    tokens = body.split()
    try:
        float(tokens[0])
    except ValueError:
        raise LetorFormatError(path, number, f"label {tokens[0]!r} is not a number") from None
    rest = tokens[1:]
    if rest and rest[0].startswith("qid"):
        if not rest[0].startswith("qid:"):
            raise LetorFormatError(path, number, f"malformed query id {rest[0]!r}; expected qid:<integer>")
        q = rest[0][4:]
        if not re.fullmatch(r"-?\d+", q):
            raise LetorFormatError(path, number, f"qid {q!r} is not an integer")
        if not -(2**63) <= int(q) < 2**63:
            raise LetorFormatError(path, number, f"qid {q} is outside the 64-bit integer range")
        rest = rest[1:]
    last = -1
    for tok in rest:
        m = _TOKEN.match(tok)
        if m is None:
            raise LetorFormatError(path, number, f"expected <index>:<value>, got {tok!r}")
        index = int(m.group(1))
        if index >= 2**31 - 1:
            raise LetorFormatError(path, number, f"feature index {index} is beyond what a reader can index")
        try:
            float(m.group(2))
        except ValueError:
            raise LetorFormatError(
                path, number, f"feature {index} has non-numeric value {m.group(2)!r}"
            ) from None
        if index == 0 and not zero_based:
            raise LetorFormatError(path, number, "feature index 0 in a 1-based file (files from scikit-learn's "
                                                 "dump_svmlight_file start at 0: zero_based=True or 'auto', "
                                                 "--zero-based on the command line)")
        if index <= last:
            raise LetorFormatError(
                path, number, f"feature indices must increase; {index} follows {last}"
            )
        last = index


def _head_check(path, zero_based: bool):
    """The checks of the whole file, on its first lines, run before the rest is read (:func:`read_bytes`): a
    file whose first line is bad fails at once, with the error the whole file would give."""
    def check(head: bytes) -> None:
        _scan(path, _text_lines(path, head))
        try:
            from sklearn.datasets import load_svmlight_file

            load_svmlight_file(io.BytesIO(head), query_id=True, zero_based=zero_based, dtype=np.float64)
        except (ValueError, OverflowError):
            _diagnose(path, _text_lines(path, head), zero_based)
    return check


def _read_sizes(path) -> np.ndarray:
    sizes = []
    with open(path, encoding="utf-8") as fh:
        for number, raw in enumerate(fh, start=1):
            text = raw.strip()
            if not text:
                continue
            if not text.isdigit():
                raise LetorFormatError(path, number, f"group size {text!r} is not a positive integer")
            sizes.append(int(text))
    return np.asarray(sizes, dtype=np.int64)


def load_letor(
    path,
    *,
    sparse: bool | str = "auto",
    n_features: int | None = None,
    zero_based: bool | str = False,
    regroup: bool = False,
    allow_nonfinite: bool = False,
    query_file=None,
    as_frame: bool = False,
    max_features: int = MAX_FEATURES,
    max_bytes: int | None = None,
):
    """Read a LETOR / SVMlight ranking file.

    Parameters
    ----------
    path : str or path-like
    sparse : bool or "auto", default="auto"
        Return ``X`` as CSR when True; dense float64 when False; "auto" picks CSR when
        the file is wide (over 1000 features) and under 10% dense.
    n_features : int, default=None
        Number of columns; set it to read a test file with the width of its train file.
    zero_based : bool or "auto", default=False
        LETOR features are numbered from 1; True for files numbered from 0 (what
        :func:`sklearn.datasets.dump_svmlight_file` writes by default); ``"auto"``: from
        0 when some feature index in the file is 0, as scikit-learn's reader decides.
    regroup : bool, default=False
        If a query's rows are not contiguous, move them together (queries in order of
        first appearance, rows in file order) instead of raising an error.
    allow_nonfinite : bool, default=False
        Accept NaN/inf feature values (an error otherwise, naming the line).
    query_file : str or path-like, default=None
        A LightGBM-style side file of group sizes, one per line, for a file without
        ``qid``.  By default ``<path>.query`` is used when it exists and rows have no
        qid; queries are then numbered 0, 1, ...
    as_frame : bool, default=False
        Return :meth:`LetorData.to_frame` instead.
    max_features : int, default=2**20
        Largest feature index accepted: a stray ``16777216:1`` would otherwise make
        every dense copy of X, and the engines' per-feature bookkeeping (about 1 KB a
        column in LightGBM), allocate for millions of empty columns. Raise it for
        genuinely wider data.
    max_bytes : int, default=None
        Most bytes of text (after decompression) to read; None: what half of this
        machine's memory can parse (:func:`boostrank._files.default_max_bytes`).  Past it the
        file is refused before it exhausts memory.

    Returns
    -------
    LetorData or pandas.DataFrame

    Raises
    ------
    LetorFormatError
        A malformed line (named by file and line), rows with and without qid mixed, a
        non-integer label, NaN/inf features, non-contiguous queries without
        ``regroup``, or group sizes that do not add up to the rows.

    Examples
    --------
    >>> import os, tempfile, numpy as np
    >>> path = os.path.join(tempfile.mkdtemp(), "train.txt")
    >>> save_letor(path, np.array([[0.5, 1.0], [0.1, 0.0]]), [1, 0], qid=[7, 7])
    >>> data = load_letor(path)
    >>> data.X.tolist(), data.y.tolist(), data.n_queries
    ([[0.5, 1.0], [0.1, 0.0]], [1, 0], 1)
    """
    path = os.fspath(path)
    if isinstance(zero_based, str) and zero_based != "auto":
        raise ValueError(f"zero_based must be True, False or 'auto', got {zero_based!r}")
    raw = read_bytes(path, max_bytes=check_max_bytes(max_bytes), head=_head_check(path, zero_based is not False))
    line_no, comments, has_qid = _scan(path, _text_lines(path, raw))
    if isinstance(zero_based, str):
        # decided here, not by scikit-learn, so that errors and widths use the same numbering
        zero_based = any(_ZERO_INDEX.search(_strip_comment(line)[0]) for _, line in _text_lines(path, raw))
    if has_qid.size and has_qid.any() and not has_qid.all():
        bad = int(np.flatnonzero(~has_qid)[0])
        raise LetorFormatError(
            path, int(line_no[bad]), "row has no qid while other rows do; every row needs one"
        )
    n_rows = line_no.shape[0]
    if n_rows == 0:
        raise LetorFormatError(path, None, "file has no data rows")
    X, y, qid = _svmlight_rows(path, raw, line_no, zero_based, n_features, max_features)
    _check_letor_values(path, X, y, line_no, allow_nonfinite)
    if not has_qid.any():
        qid = _side_file_qids(path, query_file, n_rows)
    docid_list = []
    for c in comments:
        m = _DOCID.search(c) if c else None
        docid_list.append(m.group(1) if m else None)
    comments_arr = np.asarray(comments, dtype=object) if any(c is not None for c in comments) else None
    docid = np.asarray(docid_list, dtype=object) if any(d is not None for d in docid_list) else None
    qid = np.asarray(qid, dtype=np.int64)
    perm = _query_order(path, qid, line_no, regroup)
    if perm is not None:
        X, y, qid, line_no = X[perm], y[perm], qid[perm], line_no[perm]
        comments_arr = None if comments_arr is None else comments_arr[perm]
        docid = None if docid is None else docid[perm]
    if sparse == "auto":
        density = X.nnz / max(1, X.shape[0] * X.shape[1])
        sparse = X.shape[1] > 1000 and density < 0.1
    if not sparse:
        X = X.toarray()
    data = LetorData(
        X=X, y=y.astype(np.int64), qid=qid, docid=docid, comments=comments_arr,
        line=line_no, path=path,
    )
    return data.to_frame() if as_frame else data


def _text_lines(path, raw: bytes):
    """(number, text) of the file's lines with a character, as scikit-learn's reader splits them."""
    # lines end at "\n" only, as in scikit-learn's reader (str.splitlines also breaks at \x0c, \x85,
    # U+2028 ..., which would shift line numbers and cut docids); undecodable bytes survive a
    # save_letor round trip as surrogates
    for number, line in lines_of(path, raw):
        yield number, line.decode("utf-8", errors="surrogateescape")


def _svmlight_rows(path, raw, line_no, zero_based, n_features, max_features):
    """(X as CSR, y, qid) by scikit-learn's reader, with its errors and an over-wide file named by line."""
    try:
        kwargs = {"n_features": n_features} if n_features is not None else {}
        from sklearn.datasets import load_svmlight_file  # slow to import: only when reading

        X, y, qid = load_svmlight_file(
            io.BytesIO(_data_rows(raw, line_no)), query_id=True, zero_based=zero_based, dtype=np.float64, **kwargs
        )
    except (ValueError, OverflowError) as exc:
        _diagnose(path, _text_lines(path, raw), zero_based)
        raise LetorFormatError(path, None, str(exc)) from exc
    if X.shape[1] > max(int(max_features), n_features or 0):
        X = X.tocsr()
        at = int(np.argmax(X.indices)) if X.nnz else 0
        row = int(np.searchsorted(X.indptr, at, "right") - 1)
        raise LetorFormatError(path, int(line_no[row]) if X.nnz else None,
                               f"feature index {X.shape[1] - (1 if zero_based else 0)} exceeds max_features="
                               f"{int(max_features)} (pass a larger max_features if the data is that wide)")
    if X.shape[0] != line_no.shape[0]:  # pragma: no cover - guards against reader drift
        raise LetorFormatError(path, None, f"read {X.shape[0]} rows, expected {line_no.shape[0]}")
    return X.tocsr(), y, qid


#: more lines than data rows by this much, and scikit-learn's reader is given the data rows alone
_BLANK_LINES_TO_DROP = 10_000


def _data_rows(raw: bytes, line_no: np.ndarray) -> bytes:
    """``raw``, or its data rows alone when most of its lines are blank: scikit-learn's reader steps through a
    blank line in about 50 ns, so 10⁹ newlines would cost a minute."""
    if raw.count(b"\n") < 2 * line_no.shape[0] + _BLANK_LINES_TO_DROP:
        return raw
    from .._kernels.ids import line_spans

    starts, ends, numbers, _ = line_spans(np.frombuffer(raw, dtype=np.uint8))
    at = np.searchsorted(numbers, line_no)
    return b"\n".join([raw[a:b] for a, b in zip(starts[at].tolist(), ends[at].tolist())]) + b"\n"


def _check_letor_values(path, X, y, line_no, allow_nonfinite) -> None:
    """Labels finite integers within ``MAX_LABEL``; features finite unless allowed; the first bad line named."""
    bad = ~np.isfinite(y) | (np.abs(y) > MAX_LABEL)
    if bad.any():  # inf, 1e30 or 1e400 would wrap to int64's minimum
        i = int(np.flatnonzero(bad)[0])
        raise LetorFormatError(path, int(line_no[i]), f"label {float(y[i])!r} is not finite or exceeds "
                                                      f"{MAX_LABEL} in absolute value")
    nonint = y != np.round(y)
    if nonint.any():
        i = int(np.flatnonzero(nonint)[0])
        raise LetorFormatError(path, int(line_no[i]), f"label {float(y[i])!r} is not an integer")
    if not allow_nonfinite and X.nnz and not np.isfinite(X.data).all():
        row = int(np.searchsorted(X.indptr, np.flatnonzero(~np.isfinite(X.data))[0], "right") - 1)
        raise LetorFormatError(
            path, int(line_no[row]), "NaN or inf feature value (pass allow_nonfinite=True to keep it)"
        )


def _side_file_qids(path, query_file, n_rows) -> np.ndarray:
    """Query ids of a file without qid: from its LightGBM-style ``.query`` sizes, else one query."""
    qfile = query_file if query_file is not None else path + ".query"
    if query_file is None and not os.path.exists(qfile):
        return np.zeros(n_rows, dtype=np.int64)
    sizes = _read_sizes(qfile)
    if sizes.sum() != n_rows:
        raise LetorFormatError(qfile, None, f"group sizes add up to {int(sizes.sum())} but {path} has {n_rows} rows")
    return np.repeat(np.arange(sizes.shape[0]), sizes)


def _query_order(path, qid, line_no, regroup):
    """None when every query's rows are contiguous; else (``regroup``) the permutation that moves them together,
    queries in order of first appearance, or an error naming the line where a query starts again."""
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    broken = repeated_query(qid, starts)
    if broken is None:
        return None
    if not regroup:
        dup, _, second = broken
        raise LetorFormatError(
            path, int(line_no[second]),
            f"qid {int(dup)} appears again after other queries; rows of a query must be "
            "contiguous (pass regroup=True to move them together)",
        )
    _, first, inverse = np.unique(qid, return_index=True, return_inverse=True)
    return np.argsort(first[inverse], kind="stable")


def _fmt(v: float) -> str:
    if math.isfinite(v) and v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(float(v))


def save_letor(path, X, y=None, qid=None, *, docid=None, comments=None,
               write_zeros: bool | None = None) -> None:
    """Write a LETOR file that :func:`load_letor` reads back exactly.

    Parameters
    ----------
    path : str or path-like
    X : LetorData or array-like of shape (n_samples, n_features) or sparse matrix
        With a :class:`LetorData`, its labels, qid, docid and comments are used.
    y : array-like of int, shape (n_samples,)
    qid : array-like of int, shape (n_samples,), default=None
        Omitted from the file when None.
    docid : array-like of str, default=None
        Written as ``#docid = <id>`` when ``comments`` is None.
    comments : array-like of str, default=None
        Raw comment text per row (written after ``#``); None entries write no comment.
    write_zeros : bool, default=None
        Write every feature of a dense row, zeros included (the LETOR 4.0 layout).
        Default: True for dense ``X``, False for sparse ``X``.

    Notes
    -----
    Values are written with Python's shortest round-trip ``repr``, so floats survive
    a write/read cycle bit for bit.

    Examples
    --------
    >>> import os, tempfile, numpy as np
    >>> path = os.path.join(tempfile.mkdtemp(), "train.txt")
    >>> save_letor(path, np.array([[0.5, 1.0], [0.1, 0.0]]), [1, 0], qid=[7, 7])
    >>> print(open(path).read(), end="")
    1 qid:7 1:0.5 2:1
    0 qid:7 1:0.1 2:0
    """
    if isinstance(X, LetorData):
        data = X
        X, y, qid = data.X, data.y, data.qid
        docid = data.docid if docid is None else docid
        comments = data.comments if comments is None else comments
    y = _letor_labels(y)
    n = y.shape[0]
    import scipy.sparse as sp
    sparse_in = sp.issparse(X)
    X = sp.csr_matrix(X) if sparse_in else np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (rows × features), got shape {X.shape}")
    if X.shape[0] != n:
        raise ValueError(f"X has {X.shape[0]} rows but y has {n}")
    if write_zeros is None:
        write_zeros = not sparse_in
    if qid is not None:
        qid = _letor_qids(qid, n)
    notes = _row_notes(n, docid, comments)
    write_atomic(path, lambda tmp: _write_rows(tmp, X, y, qid, notes, sparse_in, write_zeros))


def _letor_labels(y) -> np.ndarray:
    """Labels a LETOR file can hold: finite integers within ``MAX_LABEL``."""
    if y is None:
        raise ValueError("save_letor needs labels y")
    y = np.asarray(y, dtype=np.float64)
    if y.size and not np.isfinite(y).all():
        raise ValueError("LETOR labels must be finite")
    if y.size and np.any(y != np.round(y)):
        raise ValueError("LETOR labels must be integers")
    if y.size and np.abs(y).max() > MAX_LABEL:
        raise ValueError(f"LETOR labels must stay within {MAX_LABEL} in absolute value")
    return y


def _letor_qids(qid, n: int) -> np.ndarray:
    """Query ids a LETOR file can hold and :func:`load_letor` reads back: 64-bit integers, queries contiguous."""
    qid = np.asarray(qid)
    if qid.shape[0] != n:
        raise ValueError("qid must have one entry per row")
    if qid.size and (not np.issubdtype(qid.dtype, np.number) or not np.isfinite(qid.astype(float)).all()
                     or np.any(qid != np.round(qid.astype(float)))):
        raise ValueError("qid must hold integers (LETOR's qid:<int>)")
    if qid.size and (qid.max() >= 2**63 or qid.min() < -(2**63)):  # float or uint64 qids can exceed int64
        raise ValueError("qid must fit a 64-bit integer: load_letor could not read the file back")
    group_offsets(n, qid=qid)  # a file load_letor would refuse is not written
    return qid


def _row_notes(n: int, docid, comments) -> list:
    """Each row's comment text (raw ``comments``, else ``docid = <id>``), or None; refuses text that would not
    read back as written."""
    notes = [None] * n
    for i in range(n):
        raw = comments is not None and comments[i] is not None
        if raw:
            notes[i] = str(comments[i])
        elif docid is not None and docid[i] is not None:
            notes[i] = f"docid = {docid[i]}"
        if notes[i] is not None and _LINE_BREAK.search(notes[i]):
            raise ValueError(f"row {i}: a comment or docid holds a line break ({notes[i]!r}); it would end the "
                             f"row and start another")
        if notes[i] is not None and not raw and (not str(docid[i]) or any(c.isspace() for c in str(docid[i]))):
            raise ValueError(f"row {i}: docid {str(docid[i])!r} is empty or holds whitespace; it would read "
                             f"back as another docid (pass comments= to write raw text)")
    return notes


def _write_rows(path, X, y, qid, notes, sparse_in, write_zeros) -> None:
    with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="\n") as fh:
        for i in range(y.shape[0]):
            parts = [str(int(y[i]))]
            if qid is not None:
                parts.append(f"qid:{int(qid[i])}")
            if sparse_in:
                row = X[i]
                idx, vals = row.indices, row.data
                order = np.argsort(idx)
                pairs = zip(idx[order], vals[order])
            elif write_zeros:
                pairs = enumerate(X[i])
            else:
                nz = np.flatnonzero(X[i])
                pairs = zip(nz, X[i, nz])
            for j, v in pairs:
                parts.append(f"{int(j) + 1}:{_fmt(v)}")
            if notes[i] is not None:
                parts.append(f"#{notes[i]}")
            fh.write(" ".join(parts) + "\n")
