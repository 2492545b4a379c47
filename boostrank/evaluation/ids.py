"""Ids as TREC files hold them: query ids coded in ``strcmp`` order, document ids as UTF-8 bytes and offsets
(Arrow's layout of a string column) that the kernels of :mod:`boostrank._kernels.ids` hash, group and compare
without making a ``str`` per id."""

from __future__ import annotations

import re

import numpy as np

from .._kernels import ids as _ki

__all__ = ["DuplicateId", "QueryCodes", "IdBytes", "coded", "id_strings"]


class DuplicateId(ValueError):
    """A (qid, docid) given twice; ``rows`` are the two entries, for a reader to name their lines."""

    def __init__(self, rows, message, qid: str = "", docid: str = ""):
        super().__init__(message)
        self.rows, self.qid, self.docid = rows, qid, docid


class QueryCodes:
    """Query ids coded (by a reader, or a fusion of runs): the sorted distinct ids and each row's index in them."""

    def __init__(self, queries: list, codes: np.ndarray):
        self.queries, self.codes = queries, codes


class IdBytes:
    """Ids (non-empty, without whitespace) as UTF-8 bytes and offsets, the layout the kernels of
    :mod:`._kernels.ids` read; their ``str`` objects are made when asked for."""

    def __init__(self, data: np.ndarray, offsets: np.ndarray, objects=None, hashes=None):
        data.flags.writeable = False  # one compiled variant of each kernel (a file's bytes are read-only)
        self.data, self.offsets, self._objects = data, offsets, objects
        #: each id's :func:`._kernels.ids.hash_ids`, when a reader computed them as it copied the bytes
        self.hashes = hashes

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

    def __len__(self) -> int:
        return self.offsets.shape[0] - 1

    def __getitem__(self, i: int) -> str:
        if self._objects is not None:
            return self._objects[i]
        return self.data[self.offsets[i]:self.offsets[i + 1]].tobytes().decode("utf-8", "surrogatepass")

    @classmethod
    def concat(cls, parts: list, objects: bool = True) -> "IdBytes":
        """The ids of ``parts``, one after another; ``objects=False``: their bytes alone, not their str objects."""
        data = np.concatenate([p.data[p.offsets[0]:p.offsets[-1]] for p in parts])
        ends = np.cumsum([0] + [p.offsets[-1] - p.offsets[0] for p in parts])
        offsets = np.empty(sum(len(p) for p in parts) + 1, dtype=np.int64)
        offsets[0], at = 0, 1
        for p, e in zip(parts, ends):
            offsets[at:at + len(p)] = p.offsets[1:]
            offsets[at:at + len(p)] += e - p.offsets[0]
            at += len(p)
        known = objects and all(p._objects is not None for p in parts)
        return cls(data, offsets, np.concatenate([p._objects for p in parts]) if known else None)

    def take(self, rows: np.ndarray) -> "IdBytes":
        """The ids ``rows``, bytes copied."""
        data, offsets = _ki.take_ids(self.data, self.offsets, rows)
        return IdBytes(data, offsets, None if self._objects is None else self._objects[rows])

    @property
    def objects(self) -> np.ndarray:
        if self._objects is None:
            self._objects = np.array([self[i] for i in range(len(self))], dtype=object)
        return self._objects


def id_strings(values, name: str) -> np.ndarray:
    arr = np.asarray(values, dtype=object).ravel()
    items = arr.tolist()
    kinds = set(map(type, items))
    if not kinds <= {str}:
        # NumPy's str_ and integer scalars (keys taken from arrays) are ids as their str and int are
        if all(issubclass(k, (str, np.str_, int, np.integer)) and not issubclass(k, (bool, np.bool_)) for k in kinds):
            items = [str(v) if isinstance(v, str) else str(int(v)) for v in items]
            arr = np.array(items, dtype=object)
        else:
            bad = next(i for i, v in enumerate(items) if not isinstance(v, (str, int, np.integer))
                       or isinstance(v, (bool, np.bool_)))
            raise ValueError(f"{name} {bad}: {items[bad]!r} is not an id (a non-empty string without whitespace, "
                             f"as TREC files need)")
    if items and (min(map(len, items)) == 0 or _SPACE.search("\x00".join(items))):
        bad = next(i for i, v in enumerate(items) if not v or _SPACE.search(v))
        raise ValueError(f"{name} {bad}: {items[bad]!r} is not an id (a non-empty string without whitespace, "
                         f"as TREC files need)")
    return arr


_SPACE = re.compile(r"\s")


def coded(ids) -> QueryCodes:
    """Checked query ids coded: sorted distinct ids (trec_eval's query order, ``strcmp``), each row's index."""
    ids = np.asarray(ids, dtype=object)
    queries = sorted(set(ids.tolist()))
    where = {q: i for i, q in enumerate(queries)}
    return QueryCodes(queries, np.fromiter(map(where.__getitem__, ids.tolist()), dtype=np.int64, count=ids.shape[0]))
