"""The two kinds of TREC data: :class:`Qrels` (the grade of each judged (query, document)) and :class:`Run` (the
score of each retrieved one), with trec_eval's order of a run: by query, score descending, ties by document id
descending (``strcmp``)."""

from __future__ import annotations

from functools import cached_property
from typing import Mapping

import numpy as np

from .._kernels import ids as _ki
from .._kernels.jit import note_first_compile
from .._kernels.order import descending_within_groups
from .ids import DuplicateId, IdBytes, QueryCodes, coded, id_strings

__all__ = ["Qrels", "Run"]


def _queries(qid) -> tuple[list, np.ndarray]:
    codes = qid if isinstance(qid, QueryCodes) else coded(id_strings(qid, "qid"))
    return codes.queries, codes.codes


def _documents(docid) -> IdBytes:
    return docid if isinstance(docid, IdBytes) else IdBytes.of_strings(id_strings(docid, "docid"))


def _hashes(ids: IdBytes) -> np.ndarray:
    """A 64-bit hash per id, of its bytes: equal ids hash equal; a match is confirmed on the bytes."""
    note_first_compile("TREC", _ki.hash_ids)  # the first Run or Qrels compiles the id kernels
    return ids.hashes if ids.hashes is not None else _ki.hash_ids(ids.data, ids.offsets)


def _grouped(codes, n_groups: int, hashes, ids: IdBytes, found, by_hash: bool = True):
    """Rows by query (file order inside each), the queries' offsets, and (``by_hash``) the rows by (query, hash);
    raises ``found(i, j)`` for the first document a query lists twice (rows i < j)."""
    rows, offsets = _ki.rows_by_group(codes, n_groups, np.empty(codes.shape[0], dtype=np.int64))
    if not by_hash:  # a run needs no search by hash: its repeats found by a hash set
        i, j = _ki.first_repeat(rows, offsets, hashes, ids.data, ids.offsets)
        if j >= 0:
            raise found(i, j)
        return rows, offsets, None
    ordered = _ki.by_hash_within_groups(hashes, rows, offsets)
    i, j = _ki.first_duplicate(ordered, offsets, hashes, ids.data, ids.offsets)
    if j >= 0:
        raise found(i, j)
    return rows, offsets, ordered


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

    Examples
    --------
    >>> Qrels.from_dict({"q1": {"d1": 1, "d2": 0}}).to_frame()
      qid docid  rel
    0  q1    d1    1
    1  q1    d2    0
    """

    def __init__(self, qid, docid, rel, *, source: str | None = None):
        self.queries, self._codes = _queries(qid)
        self._ids = _documents(docid)
        self.source = source or "the qrels"
        raw = np.asarray(rel).ravel()
        if not self._codes.shape[0] == len(self._ids) == raw.shape[0]:
            raise ValueError(f"qid, docid and rel differ in length: {self._codes.shape[0]}, {len(self._ids)}, "
                             f"{raw.shape[0]}")
        if raw.size and not np.issubdtype(raw.dtype, np.integer):
            ok = np.zeros(raw.shape, dtype=bool)
            if np.issubdtype(raw.dtype, np.floating):
                with np.errstate(invalid="ignore"):
                    ok = np.isfinite(raw) & (raw == np.round(raw)) & (np.abs(raw) < 2 ** 53)
            if not ok.all():
                i = int(np.flatnonzero(~ok)[0])
                value = raw[i].item() if isinstance(raw[i], np.generic) else raw[i]
                raise ValueError(f"{self.source}: grade {value!r} of qid {self.queries[self._codes[i]]} docid "
                                 f"{self._ids[i]} is not a 64-bit integer (trec_eval reads grades with atol); "
                                 f"{int((~ok).sum())} such")
        self.rel = raw.astype(np.int64)
        self._hash = _hashes(self._ids)

        def twice(i, j):
            q, d = self.queries[self._codes[i]], self._ids[i]
            return DuplicateId((i, j), f"{self.source}: qid {q} docid {d} is judged twice (entries {i + 1} and "
                                      f"{j + 1}); trec_eval would keep one silently", q, d)

        # by (query, hash): each query's judged documents, searchable by hash
        by_query, self.ideal_offsets, self._order = _grouped(self._codes, len(self.queries), self._hash, self._ids,
                                                             twice)
        self._sorted_hash = self._hash[self._order]
        self._sorted_grades = None
        # every judged grade of each query, best first: the ideal order of NDCG and the R of recall
        self.ideal = descending_within_groups(self.rel, by_query, self.ideal_offsets,
                                              np.empty(by_query.shape[0], dtype=np.float64))

    def _grades_by_hash(self) -> np.ndarray:
        """The grades in the order each query's judged documents are searched by hash (made on first use, kept:
        every run evaluated against these qrels matches by it)."""
        if self._sorted_grades is None:
            self._sorted_grades = self.rel[self._order]
        return self._sorted_grades

    @classmethod
    def from_dict(cls, judgements: Mapping[str, Mapping[str, int]]) -> "Qrels":
        """From ``{qid: {docid: grade}}``, the layout of pytrec_eval and ranx."""
        qid, docid, rel = _flatten(judgements)
        return cls(qid, docid, rel)  # a grade of 0.5 is refused, not truncated to 0

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

    Examples
    --------
    >>> run = Run.from_dict({"q1": {"d1": 0.2, "d2": 0.7}}, name="bm25")
    >>> run
    Run('bm25': 2 documents for 1 queries)
    >>> run.to_frame()
      qid docid  score
    0  q1    d1    0.2
    1  q1    d2    0.7
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
        self.last_tag = None  # a run file's last tag: trec_eval's runid (load_run sets it)
        bad = np.flatnonzero(~np.isfinite(self.score))
        if bad.size:
            raise ValueError(f"{self.source}: score of qid {self.queries[self._codes[bad[0]]]} docid "
                             f"{self._ids[bad[0]]} is {self.score[bad[0]]}; {bad.size} score(s) are NaN or inf")
        self._hash = _hashes(self._ids)

        def twice(i, j):
            q, d = self.queries[self._codes[i]], self._ids[i]
            return DuplicateId((i, j), f"{self.source}: qid {q} retrieves docid {d} twice (entries {i + 1} and "
                                      f"{j + 1}); a run ranks each document once", q, d)

        by_query, self.offsets, _ = _grouped(self._codes, len(self.queries), self._hash, self._ids, twice,
                                             by_hash=False)
        self.order = self._trec_order(self.score, by_query)  # grouped by query too: the rows by query are let go
        self._order32 = None

    def trec_order(self, float32: bool = False) -> np.ndarray:
        """The rows in trec_eval's order; ``float32``: scores compared as trec_eval 9.x compares them, cast to
        float32 (``float sim`` in its ``DOCNO_INFO``), so that scores equal in float32 tie."""
        if not float32:
            return self.order
        if self._order32 is None:
            # from the float64 order: rows equal in float32 are together there, and only their ids reorder them
            self._order32 = self._trec_order(self.score.astype(np.float32).astype(np.float64), self.order)
        return self._order32

    def _trec_order(self, score, rows) -> np.ndarray:
        # rows grouped by query (any order inside), each query's by score descending, then each run of tied scores
        # by document id descending (strcmp, as trec_eval)
        return _ki.trec_order(rows, self.offsets, score, self._ids.data, self._ids.offsets,
                              np.empty(rows.shape[0], dtype=np.int64))

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
