"""TREC relevance judgements (qrels) and runs: read, write, and matched by (qid, docid).

A qrels file has lines ``qid iter docno rel``; a run file ``qid Q0 docno rank score tag``.
Both are read as trec_eval reads them: a run is ranked by score descending with ties
broken by document id descending (``strcmp``); its rank column is ignored.  Matching a run
to the qrels gives each query's retrieved grades in rank order (an unjudged document is
non-relevant) and every judged grade of the query, so that measures divide by the relevant
documents the run missed too.  Only queries in both are evaluated, as trec_eval does
without ``-c``; the others are counted in :class:`JudgedLists`.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import math
import os
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Mapping

import numpy as np

from ._files import write_atomic
from ._kernels.jit import note_first_compile
from ._kernels import ids as _ki
from ._kernels import judged as _kj
from ._kernels.order import sort_within_groups
from ._files import LetorFormatError, check_max_bytes, lines_of, read_bytes
from .data import LetorData

__all__ = ["Qrels", "Run", "JudgedLists", "load_qrels", "load_run", "save_qrels", "save_run", "judged_lists",
           "read_scores", "read_run"]

class _Duplicate(ValueError):
    """A (qid, docid) given twice; ``rows`` are the two entries, for a reader to name their lines."""

    def __init__(self, rows, message):
        super().__init__(message)
        self.rows = rows


class QueryCodes:
    """Query ids coded (by a reader, or a fusion of runs): the sorted distinct ids and each row's index in them."""

    def __init__(self, queries: list, codes: np.ndarray):
        self.queries, self.codes = queries, codes


class IdBytes:
    """Ids (non-empty, without whitespace) as UTF-8 bytes and offsets, the layout the kernels of
    :mod:`._kernels.ids` read; their ``str`` objects are made when asked for."""

    def __init__(self, data: np.ndarray, offsets: np.ndarray, objects=None, arrow=None):
        data.flags.writeable = False  # one compiled variant of each kernel (a file's bytes are read-only)
        self.data, self.offsets, self._objects, self._arrow = data, offsets, objects, arrow

    @classmethod
    def of_strings(cls, values: np.ndarray) -> "IdBytes":
        """Of checked ``str`` objects: joined at newlines (no id has one), encoded once, cut at them."""
        raw = np.frombuffer("\n".join(values.tolist()).encode("utf-8", "surrogatepass"), dtype=np.uint8)
        cuts = np.flatnonzero(raw == 10)
        offsets = np.zeros(values.shape[0] + 1, dtype=np.int64)
        if values.shape[0]:
            offsets[1:-1] = cuts - np.arange(cuts.size)
            offsets[-1] = raw.size - cuts.size
        return cls(np.delete(raw, cuts), offsets, objects=values)

    @classmethod
    def of_arrow(cls, column) -> "IdBytes":
        """Of a pyarrow string column, without copying its bytes."""
        import pyarrow as pa

        array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
        width = np.int64 if pa.types.is_large_string(array.type) else np.int32
        _, offsets, data = array.buffers()
        offsets = np.frombuffer(offsets, dtype=width)[array.offset:array.offset + len(array) + 1].astype(np.int64)
        data = np.zeros(0, dtype=np.uint8) if data is None else np.frombuffer(data, dtype=np.uint8)
        return cls(data, offsets, arrow=array)

    def __len__(self) -> int:
        return self.offsets.shape[0] - 1

    def __getitem__(self, i: int) -> str:
        if self._objects is not None:
            return self._objects[i]
        return self.data[self.offsets[i]:self.offsets[i + 1]].tobytes().decode("utf-8", "surrogatepass")

    @classmethod
    def concat(cls, parts: list) -> "IdBytes":
        """The ids of ``parts``, one after another."""
        data = np.concatenate([p.data[p.offsets[0]:p.offsets[-1]] for p in parts])
        ends = np.cumsum([0] + [p.offsets[-1] - p.offsets[0] for p in parts])
        offsets = np.concatenate([[0]] + [p.offsets[1:] - p.offsets[0] + e for p, e in zip(parts, ends)])
        known = all(p._objects is not None for p in parts)
        return cls(data, offsets.astype(np.int64), np.concatenate([p._objects for p in parts]) if known else None)

    def take(self, rows: np.ndarray) -> "IdBytes":
        """The ids ``rows``, bytes copied."""
        data, offsets = _ki.take_ids(self.data, self.offsets, rows)
        return IdBytes(data, offsets, None if self._objects is None else self._objects[rows])

    @property
    def objects(self) -> np.ndarray:
        if self._objects is None:
            if self._arrow is not None:
                self._objects = self._arrow.to_numpy(zero_copy_only=False)
            else:
                self._objects = np.array([self[i] for i in range(len(self))], dtype=object)
        return self._objects


def _strings(values, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=object).ravel()
    items = arr.tolist()
    kinds = set(map(type, items))
    if not kinds <= {str}:
        if kinds <= {str, int}:
            items = list(map(str, items))
            arr = np.array(items, dtype=object)
        else:
            bad = next(i for i, v in enumerate(items) if type(v) not in (str, int))
            raise ValueError(f"{name} {bad}: {items[bad]!r} is not an id (a non-empty string without whitespace, "
                             f"as TREC files need)")
    if items and (min(map(len, items)) == 0 or _SPACE.search("\x00".join(items))):
        bad = next(i for i, v in enumerate(items) if not v or _SPACE.search(v))
        raise ValueError(f"{name} {bad}: {items[bad]!r} is not an id (a non-empty string without whitespace, "
                         f"as TREC files need)")
    return arr


_SPACE = re.compile(r"\s")


def _coded(ids) -> QueryCodes:
    """Checked query ids coded: sorted distinct ids (trec_eval's query order, ``strcmp``), each row's index."""
    ids = np.asarray(ids, dtype=object)
    queries = sorted(set(ids.tolist()))
    where = {q: i for i, q in enumerate(queries)}
    return QueryCodes(queries, np.fromiter(map(where.__getitem__, ids.tolist()), dtype=np.int64, count=ids.shape[0]))


def _queries(qid) -> tuple[list, np.ndarray]:
    coded = qid if isinstance(qid, QueryCodes) else _coded(_strings(qid, "qid"))
    return coded.queries, coded.codes


def _documents(docid) -> IdBytes:
    return docid if isinstance(docid, IdBytes) else IdBytes.of_strings(_strings(docid, "docid"))


def _hashes(ids: IdBytes) -> np.ndarray:
    """A 64-bit hash per id, of its bytes: equal ids hash equal; a match is confirmed on the bytes."""
    note_first_compile("TREC", _ki.hash_ids)  # the first Run or Qrels compiles the id kernels
    return _ki.hash_ids(ids.data, ids.offsets)


def _grouped(codes, n_groups: int, hashes, ids: IdBytes, found):
    """Rows by query (file order inside each), the queries' offsets, and the rows by (query, hash); raises
    ``found(i, j)`` for the first document a query lists twice (rows i < j)."""
    rows, offsets = _ki.rows_by_group(codes, n_groups)
    by_hash = _ki.by_hash_within_groups(hashes, rows, offsets)
    i, j = _ki.first_duplicate(by_hash, offsets, hashes, ids.data, ids.offsets)
    if j >= 0:
        raise found(i, j)
    return rows, offsets, by_hash


def _flatten(nested: Mapping) -> tuple[np.ndarray, np.ndarray, list]:
    """qid, docid and value columns of ``{qid: {docid: value}}``."""
    qid, docid, value = [], [], []
    for q, docs in nested.items():
        for d, v in docs.items():
            qid.append(q)
            docid.append(d)
            value.append(v)
    return np.array(qid, dtype=object), np.array(docid, dtype=object), value


def _nest(qid, docid, value) -> dict:
    out: dict = {}
    for q, d, v in zip(qid.tolist(), docid.tolist(), value.tolist()):
        out.setdefault(q, {})[d] = v
    return out


class _Columns:
    """What :class:`Qrels` and :class:`Run` share: their query ids coded, their document ids as bytes."""

    queries: list
    _codes: np.ndarray
    _ids: IdBytes

    @cached_property
    def qid(self) -> np.ndarray:
        """Each row's query id."""
        return np.array(self.queries, dtype=object)[self._codes]

    @property
    def docid(self) -> np.ndarray:
        """Each row's document id."""
        return self._ids.objects


class Qrels(_Columns):
    """Relevance judgements: the grade of each judged (query, document).

    Parameters
    ----------
    qid, docid : array-like of str
        Query and document ids (non-empty, no whitespace).
    rel : array-like of int
        Grades; trec_eval calls a document relevant from grade 1 (``rel_level``), and a
        negative grade gains nothing in NDCG.
    source : str, default=None
        Where they came from (named in errors).

    Raises
    ------
    ValueError
        Ids that are not ids, grades that are not integers, or a (qid, docid) judged twice.
    """

    def __init__(self, qid, docid, rel, *, source: str | None = None):
        self.queries, self._codes = _queries(qid)
        self._ids = _documents(docid)
        raw = np.asarray(rel).ravel()
        if raw.size and not (np.issubdtype(raw.dtype, np.integer)
                             or (np.issubdtype(raw.dtype, np.floating) and np.all(np.isfinite(raw))
                                 and np.all(raw == np.round(raw)) and np.all(np.abs(raw) < 2 ** 53))):
            raise ValueError("qrels grades must be integers (trec_eval reads them with atol)")
        self.rel = raw.astype(np.int64)
        if not self._codes.shape[0] == len(self._ids) == self.rel.shape[0]:
            raise ValueError(f"qid, docid and rel differ in length: {self._codes.shape[0]}, {len(self._ids)}, "
                             f"{self.rel.shape[0]}")
        self.source = source or "the qrels"
        self._hash = _hashes(self._ids)

        def twice(i, j):
            return _Duplicate((i, j), f"{self.source}: qid {self.queries[self._codes[i]]} docid {self._ids[i]} is "
                                      f"judged twice (entries {i + 1} and {j + 1}); trec_eval would keep one silently")

        # by (query, hash): each query's judged documents, searchable by hash
        by_query, self.ideal_offsets, self._order = _grouped(self._codes, len(self.queries), self._hash, self._ids,
                                                             twice)
        self._sorted_hash = self._hash[self._order]
        # every judged grade of each query, best first: the ideal order of NDCG and the R of recall
        grades = self.rel[by_query].astype(np.float64)
        self.ideal = grades[sort_within_groups(grades, self.ideal_offsets, True)]

    @classmethod
    def from_dict(cls, judgements: Mapping[str, Mapping[str, int]]) -> "Qrels":
        """From ``{qid: {docid: grade}}``, the layout of pytrec_eval and ranx."""
        qid, docid, rel = _flatten(judgements)
        return cls(qid, docid, np.array(rel, dtype=np.int64))

    def to_dict(self) -> dict:
        """``{qid: {docid: grade}}``."""
        return _nest(self.qid, self.docid, self.rel)

    @classmethod
    def from_frame(cls, frame, qid: str = "qid", docid: str = "docid", rel: str = "rel") -> "Qrels":
        """From a pandas DataFrame with columns ``qid``, ``docid`` and ``rel`` (ir_datasets' and ranx's names
        are ``query_id``/``doc_id``/``relevance``: pass them)."""
        return cls(frame[qid].astype(str).to_numpy(dtype=object), frame[docid].astype(str).to_numpy(dtype=object),
                   frame[rel].to_numpy(), source="a DataFrame")

    def to_frame(self):
        """A pandas DataFrame with columns ``qid``, ``docid``, ``rel``."""
        import pandas as pd

        return pd.DataFrame({"qid": self.qid, "docid": self.docid, "rel": self.rel})

    def __len__(self) -> int:
        return self.rel.shape[0]

    def __repr__(self) -> str:
        return f"Qrels({len(self)} judgements of {len(self.queries)} queries from {self.source})"


class Run(_Columns):
    """A ranked result list per query: the score of each retrieved (query, document).

    Parameters
    ----------
    qid, docid : array-like of str
    score : array-like of float
        Finite scores, higher ranks first.
    name : str, default="run"
        The run tag.

    Attributes
    ----------
    order : ndarray of int64
        The rows in trec_eval's order: by query id, score descending, document id descending.
    queries : list of str
        The run's queries, in ``strcmp`` order; ``offsets`` splits ``order`` by them.

    Raises
    ------
    ValueError
        A NaN/inf score, or a document retrieved twice for a query (trec_eval would rank
        both copies).
    """

    def __init__(self, qid, docid, score, *, name: str = "run", source: str | None = None):
        self.queries, self._codes = _queries(qid)
        self._ids = _documents(docid)
        self.score = np.asarray(score, dtype=np.float64).ravel()
        if not self._codes.shape[0] == len(self._ids) == self.score.shape[0]:
            raise ValueError(f"qid, docid and score differ in length: {self._codes.shape[0]}, {len(self._ids)}, "
                             f"{self.score.shape[0]}")
        self.name = str(name)
        self.source = source or f"run {self.name!r}"
        bad = np.flatnonzero(~np.isfinite(self.score))
        if bad.size:
            raise ValueError(f"{self.source}: score of qid {self.queries[self._codes[bad[0]]]} docid "
                             f"{self._ids[bad[0]]} is {self.score[bad[0]]}; {bad.size} score(s) are NaN or inf")
        self._hash = _hashes(self._ids)

        def twice(i, j):
            return _Duplicate((i, j), f"{self.source}: qid {self.queries[self._codes[i]]} retrieves docid "
                                      f"{self._ids[i]} twice (entries {i + 1} and {j + 1}); a run ranks each "
                                      f"document once")

        self._by_query, self.offsets, _ = _grouped(self._codes, len(self.queries), self._hash, self._ids, twice)
        self.order = self._trec_order(self.score)
        self._order32 = None

    def trec_order(self, float32: bool = False) -> np.ndarray:
        """The rows in trec_eval's order; ``float32``: scores compared as trec_eval 9.x compares them, cast to
        float32 (``float sim`` in its ``DOCNO_INFO``), so that scores equal in float32 tie."""
        if not float32:
            return self.order
        if self._order32 is None:
            self._order32 = self._trec_order(self.score.astype(np.float32).astype(np.float64))
        return self._order32

    def _trec_order(self, score) -> np.ndarray:
        # by query (rows grouped once), each query's by score descending, then each run of tied scores by
        # document id descending (strcmp, as trec_eval)
        order = self._by_query[sort_within_groups(score[self._by_query], self.offsets, True)]
        _ki.order_ties_by_id(order, score, self.offsets, self._ids.data, self._ids.offsets)
        return order

    @classmethod
    def from_dict(cls, scores: Mapping[str, Mapping[str, float]], name: str = "run") -> "Run":
        """From ``{qid: {docid: score}}``, the layout of pytrec_eval and ranx."""
        qid, docid, score = _flatten(scores)
        return cls(qid, docid, np.array(score, dtype=np.float64), name=name)

    def to_dict(self) -> dict:
        """``{qid: {docid: score}}``."""
        return _nest(self.qid, self.docid, self.score)

    @classmethod
    def from_frame(cls, frame, qid: str = "qid", docid: str = "docid", score: str = "score",
                   name: str = "run") -> "Run":
        """From a pandas DataFrame with columns ``qid``, ``docid`` and ``score`` (other names: pass them)."""
        return cls(frame[qid].astype(str).to_numpy(dtype=object), frame[docid].astype(str).to_numpy(dtype=object),
                   frame[score].to_numpy(dtype=np.float64), name=name, source=f"run {name!r}")

    def to_frame(self):
        """A pandas DataFrame with columns ``qid``, ``docid``, ``score``, in the file's row order."""
        import pandas as pd

        return pd.DataFrame({"qid": self.qid, "docid": self.docid, "score": self.score})

    def __len__(self) -> int:
        return self.score.shape[0]

    def __repr__(self) -> str:
        return f"Run({self.name!r}: {len(self)} documents for {len(self.queries)} queries)"


@dataclass(frozen=True)
class JudgedLists:
    """A run matched to qrels: the input of every measure.

    Attributes
    ----------
    rel, score : ndarray of float64
        Grade and score of each retrieved document, each query's in rank order; trec_eval's codes
        for a document absent from the qrels (−1) and one the qrels grade negatively (−2, in the pool
        but not judged).
    offsets : ndarray of int64
        Query ``g`` is rows ``offsets[g]:offsets[g + 1]``.
    ideal, ideal_offsets : ndarray
        Every judged grade of query ``g``, best first.
    queries : list of str
        The evaluated queries (in the run and the qrels), in ``strcmp`` order.
    unjudged_queries, unretrieved_queries : list of str
        The run's queries absent from the qrels, and the qrels' queries absent from the run.
    """

    rel: np.ndarray
    score: np.ndarray
    offsets: np.ndarray
    ideal: np.ndarray
    ideal_offsets: np.ndarray
    queries: list
    unjudged_queries: list
    unretrieved_queries: list


def segments(offsets: np.ndarray, chosen: np.ndarray, depth: int | None = None):
    """Rows of the chosen groups (each group's first ``depth``), in order, and the offsets of the result."""
    sizes = offsets[chosen + 1] - offsets[chosen]
    if depth is not None:
        sizes = np.minimum(sizes, depth)
    new = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    rows = np.arange(new[-1], dtype=np.int64) - np.repeat(new[:-1] - offsets[chosen], sizes)
    return rows, new


def judged_lists(qrels: Qrels, run: Run, *, depth: int | None = None, complete: bool = False,
                 float32: bool = False) -> JudgedLists:
    """Match a run to qrels by (qid, docid).

    Parameters
    ----------
    qrels : Qrels
    run : Run
    depth : int, default=None
        Keep each query's first ``depth`` documents (trec_eval's ``-M``).
    complete : bool, default=False
        Add every qrels query the run lacks, as an empty list (trec_eval's ``-c``).
    float32 : bool, default=False
        Rank on the scores cast to float32, as trec_eval 9.x does (:meth:`Run.trec_order`).

    Returns
    -------
    JudgedLists
    """
    where = {q: i for i, q in enumerate(qrels.queries)}
    to_qrels = np.array([where.get(q, -1) for q in run.queries], dtype=np.int64)
    kept = np.flatnonzero(to_qrels >= 0)
    rows, offsets = segments(run.offsets, kept, depth)
    rows = run.trec_order(float32)[rows]
    codes = to_qrels[run._codes[rows]]
    at = _kj.match_sorted(codes, run._hash[rows], qrels.ideal_offsets, qrels._sorted_hash)
    hit = np.flatnonzero(at >= 0)
    judged_row = qrels._order[at[hit]]
    # graded negatively: in the pool but not judged (trec_eval's form_res_rels.c)
    pooled = np.where(qrels.rel < 0, _kj.REL_UNJUDGED, qrels.rel).astype(np.float64)
    rel = np.full(rows.shape[0], _kj.REL_NONPOOL)
    if not _ki.same_ids(qrels._ids.data, qrels._ids.offsets, judged_row, run._ids.data, run._ids.offsets, rows[hit]):
        # two ids share a hash: match by the strings instead
        grade = {(c, d): r for c, d, r in zip(qrels._codes.tolist(), qrels.docid.tolist(), pooled.tolist())}
        rel[:] = [grade.get((c, d), _kj.REL_NONPOOL) for c, d in zip(codes.tolist(), run.docid[rows].tolist())]
    else:
        rel[hit] = pooled[judged_row]
    in_run = set(run.queries)
    queries = [run.queries[i] for i in kept.tolist()]
    missing = [q for q in qrels.queries if q not in in_run]
    judged = to_qrels[kept]
    if complete and missing:  # empty lists, judged as the qrels say
        judged = np.concatenate((judged, [where[q] for q in missing])).astype(np.int64)
        offsets = np.concatenate((offsets, np.full(len(missing), offsets[-1]))).astype(np.int64)
        queries = queries + missing
    ideal_rows, ideal_offsets = segments(qrels.ideal_offsets, judged)
    return JudgedLists(
        rel=rel, score=run.score[rows], offsets=offsets,
        ideal=qrels.ideal[ideal_rows], ideal_offsets=ideal_offsets, queries=queries,
        unjudged_queries=[run.queries[i] for i in np.flatnonzero(to_qrels < 0).tolist()],
        unretrieved_queries=[] if complete else missing,
    )


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


def _qrels_line(path, number: int, fields: list, line: bytes) -> tuple:
    """(qid, docno, grade) of one qrels line, or an error naming it."""
    if len(fields) != 4:
        raise LetorFormatError(path, number, f"a qrels line is 'qid iter docno rel' (4 fields separated by "
                                             f"spaces or tabs), got {len(fields)}: {line.decode('utf-8').strip()[:80]!r}")
    return fields[0], fields[2], _number(path, number, "grade", fields[3], integer=True)


def _run_line(path, number: int, fields: list, line: bytes) -> tuple | None:
    """(qid, docno, score, tag or None) of one run line; None for a comment line; an error naming a bad one."""
    if fields[0].startswith("#"):
        return None
    if len(fields) < 5:  # fields after the tag are ignored, as trec_eval ignores them
        raise LetorFormatError(path, number, f"a run line is 'qid Q0 docno rank score tag' (fields separated "
                                             f"by spaces or tabs), got {len(fields)} fields: {line.decode('utf-8').strip()[:80]!r}")
    if fields[4].lower().lstrip("+-") in ("nan", "inf", "infinity"):
        raise LetorFormatError(path, number, f"score {fields[4]} is NaN or inf")
    value = _number(path, number, "score", fields[4], integer=False)
    if not math.isfinite(value):
        raise LetorFormatError(path, number, f"score {fields[4]} is NaN or inf")
    return fields[0], fields[2], value, fields[5] if len(fields) >= 6 else None


def _read(path, parse, max_bytes) -> bytes:
    """A TREC file's bytes, its first lines parsed line by line before the rest is read (:func:`read_bytes`)."""
    def head(first: bytes) -> None:
        for number, fields, line in _fields(path, first):
            parse(path, number, fields, line)

    return read_bytes(path, max_bytes=check_max_bytes(max_bytes), head=head)


def _table(raw: bytes, names: list, numbers: dict, keep: list) -> dict | None:
    """The columns ``keep`` of a well-formed run or qrels file: ``qid`` coded, ``docno`` as :class:`IdBytes`,
    ``numbers`` as their dtypes; read by pyarrow's CSV reader (one space between fields) or pandas' C parser
    when installed (pyarrow's: every line has every field, so a run's ``tag`` holds only its first).

    None when neither is, or anything in the file needs the line-by-line reader, which then reads it with
    the same rules and names the line of any error: a line with another number of fields, a value that
    does not parse, C's other ``isspace`` bytes (\\v, \\f, a lone \\r), a comment line (#) or a byte-order
    mark (:func:`._kernels.ids.byte_flags`).  Fields split at spaces and tabs, as trec_eval's (``bytes.split``)
    on such files.
    """
    if raw.startswith(_BOM):
        raw = raw[len(_BOM):]
    note_first_compile("TREC", _ki.hash_ids)
    flags = _ki.byte_flags(np.frombuffer(raw, dtype=np.uint8))
    if flags & _ki.LINE_BY_LINE:
        return None
    if flags & _ki.NOT_ASCII:
        if _BOM in raw:
            return None
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
    for reader in (_pandas_table,) if flags & _ki.NOT_PLAIN else (_arrow_table, _pandas_table):
        columns = reader(raw, names, numbers, keep)
        if columns is not None:
            return columns
    return None


def _arrow_table(raw: bytes, names: list, numbers: dict, keep: list):
    try:
        import pyarrow as pa
        from pyarrow import csv
    except ImportError:
        return None
    read = [name for name in keep if name != "tag"]
    try:  # every field as text, no quoting (a '"' is part of an id, as in trec_eval)
        table = csv.read_csv(io.BytesIO(raw), read_options=csv.ReadOptions(column_names=names),
                             parse_options=csv.ParseOptions(delimiter=" ", quote_char=False),
                             convert_options=csv.ConvertOptions(
                                 include_columns=read, strings_can_be_null=False, quoted_strings_can_be_null=False,
                                 column_types={name: pa.dictionary(pa.int32(), pa.string()) if name == "qid"
                                               else pa.string() for name in read}))
        out = {}
        for name, dtype in numbers.items():  # numbers as _number reads them (pyarrow alone reads "0x1" as 1)
            text = IdBytes.of_arrow(table.column(name))
            if _ki.first_not_number(text.data, text.offsets, np.issubdtype(np.dtype(dtype), np.integer)) >= 0:
                return None
            out[name] = text._arrow.cast(pa.from_numpy_dtype(np.dtype(dtype))).to_numpy()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError):
        return None
    if "qid" in keep:  # few distinct queries: their codes from the dictionary, one str object per query
        chunks = table.column("qid").unify_dictionaries().chunks
        words = chunks[0].dictionary.to_pylist() if chunks else []
        queries = sorted(words)
        where = {q: i for i, q in enumerate(queries)}
        indices = [c.indices.to_numpy(zero_copy_only=False) for c in chunks]
        codes = np.array([where[w] for w in words], dtype=np.int64)[np.concatenate(indices or [np.zeros(0, int)])]
        out["qid"] = QueryCodes(queries, codes)
    if "docno" in keep:
        out["docno"] = IdBytes.of_arrow(table.column("docno"))
    if "tag" in keep:  # every line has one here, so the first names the run (load_run reads no more of it)
        start = 0
        while raw[start:start + 1] == b"\n":
            start += 1
        end = raw.find(b"\n", start)
        out["tag"] = np.array([raw[start:end if end >= 0 else len(raw)].split(b" ")[5].decode("utf-8")], dtype=object)
    return out


def _pandas_table(raw: bytes, names: list, numbers: dict, keep: list):
    try:
        import pandas as pd
    except ImportError:
        return None
    try:
        table = pd.read_csv(io.BytesIO(raw), sep=r"\s+", header=None, names=names,
                            dtype={name: object for name in names}, keep_default_na=False, na_filter=False,
                            quoting=3, engine="c")  # QUOTE_NONE: a '"' is part of an id; a missing field is ""
    except (ValueError, OverflowError, pd.errors.ParserError):
        return None
    if not isinstance(table.index, pd.RangeIndex):  # pandas makes the first fields of a longer first line an index
        return None
    out = {name: table[name].to_numpy(dtype=object) for name in keep}
    if "qid" in keep:
        out["qid"] = _coded(out["qid"])
    if "docno" in keep:
        out["docno"] = IdBytes.of_strings(out["docno"])
    for name, dtype in numbers.items():
        text = table[name]
        pattern = _INTEGER if np.issubdtype(np.dtype(dtype), np.integer) else _DECIMAL
        if not text.str.fullmatch(pattern.pattern).all():  # as _number reads them: atol reads "1.0" as 1
            return None
        try:
            out[name] = text.astype(dtype).to_numpy()
        except (ValueError, OverflowError):
            return None
    return out


def load_qrels(path, *, max_bytes: int | None = None) -> Qrels:
    """Read a TREC qrels file (``qid iter docno rel``; gzip, bzip2 or xz by content).

    Parameters
    ----------
    path : str or path-like
    max_bytes : int, default=None
        Most bytes of text (after decompression) to read; None: a quarter of this machine's memory.

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
    """
    raw = _read(path, _qrels_line, max_bytes)
    table = _table(raw, ["qid", "iter", "docno", "rel"], {"rel": np.int64}, ["qid", "docno", "rel"])
    if table is not None:
        try:
            return Qrels(table["qid"], table["docno"], table["rel"], source=str(path))
        except (_Duplicate, OverflowError, ValueError):
            pass  # the line-by-line reader names the lines
    qid, docid, rel, numbers = [], [], [], []
    for number, fields, line in _fields(path, raw):
        q, d, grade = _qrels_line(path, number, fields, line)
        qid.append(q)
        docid.append(d)
        rel.append(grade)
        numbers.append(number)
    try:
        return Qrels(_coded(qid), IdBytes.of_strings(np.array(docid, dtype=object)), np.array(rel, dtype=np.int64),
                     source=str(path))
    except _Duplicate as dup:
        i, j = dup.rows
        raise LetorFormatError(path, numbers[j], f"qid {qid[i]} docno {docid[i]} is judged again (line "
                                                 f"{numbers[i]})") from None


def load_run(path, name: str | None = None, *, max_bytes: int | None = None) -> Run:
    """Read a TREC run file (``qid Q0 docno rank score tag``; gzip, bzip2 or xz by content).

    Parameters
    ----------
    path : str or path-like
    name : str, default=None
        The run's name; by default the tag of its first line (else the file name).
    max_bytes : int, default=None
        Most bytes of text (after decompression) to read; None: a quarter of this machine's memory.

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
    them (``get_trec_results.c`` at f425365: "Any field following run_id is ignored"; its test
    corpus's ``results.trunc`` has such lines).  Stricter than trec_eval: a score must be a decimal
    number in full, where trec_eval's ``atof`` reads a prefix (``1_0`` as 1, ``３`` as 0); lone-CR
    line ends are refused, where trec_eval reads such a file as one line and keeps its first document.
    """
    raw = _read(path, _run_line, max_bytes)
    table = _table(raw, ["qid", "q0", "docno", "rank", "score", "tag"], {"score": np.float64},
                   ["qid", "docno", "score", "tag"])
    if table is not None and np.isfinite(table["score"]).all():
        tags = table["tag"]
        tagged = np.flatnonzero(tags != "")  # the first line with a tag names the run, as below
        tag = tags[tagged[0]] if tagged.size else ""
        try:
            return Run(table["qid"], table["docno"], table["score"],
                       name=name or tag or os.path.basename(os.fspath(path)), source=str(path))
        except _Duplicate:
            pass  # the line-by-line reader names both lines
    qid, docid, score, numbers = [], [], [], []
    tag = None
    for number, fields, line in _fields(path, raw):
        parsed = _run_line(path, number, fields, line)
        if parsed is None:
            continue
        q, d, value, line_tag = parsed
        if tag is None:
            tag = line_tag
        qid.append(q)
        docid.append(d)
        score.append(value)
        numbers.append(number)
    name = name or tag or os.path.basename(os.fspath(path))
    try:
        return Run(_coded(qid), IdBytes.of_strings(np.array(docid, dtype=object)), np.array(score, dtype=np.float64),
                   name=name, source=str(path))
    except _Duplicate as dup:
        i, j = dup.rows
        raise LetorFormatError(path, numbers[j], f"qid {qid[i]} retrieves docno {docid[i]} again (line "
                                                 f"{numbers[i]}); a run ranks each document once") from None


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


def _looks_like_run(fields) -> bool:
    """A line meant as a TREC run line: six fields ending in rank and score and a tag, or Q0 second."""
    return len(fields) >= 2 and fields[1].upper() == "Q0" or _is_run_line(fields)


def _is_run_line(fields) -> bool:
    """``qid Q0 docno rank score tag``; the tag may be missing (some tools write five fields)."""
    if len(fields) not in (5, 6):
        return False
    try:
        int(fields[3])
        float(fields[4])
    except ValueError:
        return False
    return True


def read_scores(path, data, column: int | None = None, format: str = "auto", *, report=None) -> np.ndarray:
    """Scores of the rows of ``data`` from a score file or a TREC run file.

    Parameters
    ----------
    path : str
    data : LetorData or int
        The data the scores belong to (or its number of rows, for plain score files).
    column : int, default=None
        Plain score files: 0-based column of a multi-column file; default the last
        column (RankLib's ``qid docidx score`` and similar layouts end with the score).
    format : {"auto", "scores", "trec"}, default="auto"
        ``"scores"``: one score per line (or per row of a table), in the data's row order.
        ``"trec"``: a run file ``qid Q0 docno rank score tag``, matched to the rows by
        (qid, docid) from the LETOR comments (:func:`read_run`).  ``"auto"`` reads a file
        as a run when its first line has ``Q0`` second, or five or six fields with an
        integer fourth and a numeric fifth.
    report : callable, default=None
        Runs only: passed to :func:`read_run` (unmatched run lines and unretrieved rows).

    Returns
    -------
    ndarray of float64, aligned with the rows of ``data``
    """
    if format not in ("auto", "scores", "trec"):
        raise ValueError(f"format must be 'auto', 'scores' or 'trec', got {format!r}")
    if format == "auto":
        with open(path, encoding="utf-8", errors="replace") as fh:
            first = next((ln.split() for ln in fh if ln.split() and not ln.lstrip().startswith("#")), [])
        format = "trec" if _looks_like_run(first) and column is None else "scores"
    if format == "trec":
        if not isinstance(data, LetorData):
            raise ValueError("a TREC run is matched by (qid, docid): pass the LetorData")
        return read_run(path, data, report=report)
    n_rows = len(data) if isinstance(data, LetorData) else int(data)
    rows = []
    number = 0
    with open(path, encoding="utf-8") as fh:
        try:
            for number, raw in enumerate(fh, start=1):
                fields = raw.split("#", 1)[0].split()
                if not fields:
                    continue
                try:
                    rows.append(float(fields[-1 if column is None else column]))
                except (ValueError, IndexError):
                    raise LetorFormatError(path, number, f"no numeric score in {raw.strip()[:80]!r}") from None
        except UnicodeDecodeError as exc:  # a binary file: say which file, and where
            raise LetorFormatError(path, number + 1, f"not UTF-8 text (byte {exc.object[exc.start]:#04x}); a score "
                                                     f"file holds one number per line") from None
    scores = np.asarray(rows, dtype=np.float64)
    if scores.shape[0] != n_rows:
        raise LetorFormatError(path, None, f"has {scores.shape[0]} scores but the data has {n_rows} rows")
    if not np.isfinite(scores).all():
        bad = int(np.flatnonzero(~np.isfinite(scores))[0])
        raise LetorFormatError(path, None, f"score {bad + 1} is NaN or inf")
    return scores


def rank_unretrieved_last(scores: np.ndarray, missing: np.ndarray) -> None:
    """Give the ``missing`` rows (a run did not retrieve them) one score below every retrieved row's, in place."""
    # by the next float down (min − 1.0 is the minimum itself from |score| ≥ 2⁵³)
    with np.errstate(over="ignore"):
        floor = np.nextafter(np.min(scores[~missing]), -np.inf)
    if not np.isfinite(floor):  # the minimum is −max float: keep the order, not the values
        retrieved = ~missing
        scores[retrieved] = np.unique(scores[retrieved], return_inverse=True)[1].reshape(-1)
        floor = -1.0
    scores[missing] = floor


def scores_of_rows(run: Run, qid, docid) -> tuple[np.ndarray, int]:
    """A run's scores of labelled rows, matched by (qid, docid) as strings (trec_eval compares ids as text);
    rows the run does not retrieve rank below its documents.  Also the number of run lines matching no row."""
    where = {(q, d): i for i, (q, d) in enumerate(zip(run.qid.tolist(), run.docid.tolist()))}
    idx = np.array([where.get((str(q), d), -1) for q, d in zip(np.asarray(qid).tolist(), docid.tolist())],
                   dtype=np.int64)
    found = idx >= 0
    if not found.any():
        raise LetorFormatError(run.source or run.name, None, "no line of the run matches a (qid, docid) of the data")
    scores = np.empty(idx.shape[0])
    scores[found] = run.score[idx[found]]
    if not found.all():
        rank_unretrieved_last(scores, ~found)
    return scores, len(run) - int(found.sum())


def read_run(path, data, *, report=None) -> np.ndarray:
    """Scores of the rows of ``data`` from a TREC run file (``qid Q0 docno rank score tag``).

    The file is read by :func:`load_run`; documents are matched by (qid, docid), the docid
    coming from the ``# docid = ...`` comments of the LETOR file, so the line order of the
    run does not matter.

    Parameters
    ----------
    path : str
    data : LetorData
        With docids (``data.docid``).
    report : callable, default=None
        Receives a one-line note when run lines name documents absent from the data
        (ignored, as they have no label) or rows of the data are absent from the run
        (placed below every retrieved document of their query, as unretrieved).

    Returns
    -------
    ndarray of float64, aligned with the rows of ``data``

    Raises
    ------
    LetorFormatError
        A malformed line, a repeated (qid, docno), a non-finite score, or no line matching the data.
    ValueError
        The data has no docids, or two of its rows share a (qid, docid).
    """
    where = data.path or "the data"
    if data.docid is None or any(d is None for d in data.docid.tolist()):
        raise ValueError(f"{where} lacks '# docid = ...' comments to match a TREC run to")
    pairs = list(zip(data.qid.tolist(), data.docid.tolist()))
    if len(set(pairs)) < len(pairs):
        q, d = next(p for i, p in enumerate(pairs) if p in pairs[:i])
        raise ValueError(f"qid {q} docid {d} occurs twice in {where}: cannot match a run")
    run = load_run(path)
    try:
        scores, extra = scores_of_rows(run, data.qid, data.docid)
    except LetorFormatError:
        text = sum(not q.lstrip("+-").isdigit() for q in set(run.qid.tolist()))
        why = f" ({text} qid(s) of the run are not integers, as LETOR qids are)" if text else ""
        raise LetorFormatError(path, None, f"no line of the run matches a (qid, docid) of the data{why}") from None
    missing = len(data) - (len(run) - extra)
    if report is not None and (extra or missing):
        report(f"{path}: {extra} run line(s) name documents not in the data (ignored); "
               f"{missing} of {len(data)} row(s) of the data are not in the run (ranked last)")
    return scores
