"""Scores of the rows of a LETOR file from another file: one score per line (a model's predictions, RankLib's
columns) or a TREC run matched to the rows by (qid, docid) from the LETOR comments."""

from __future__ import annotations

import numpy as np

from ..io.files import LetorFormatError
from ..io.letor import LetorData
from .files import load_run
from .runs import Run

__all__ = ["read_scores", "read_run", "scores_of_rows", "rank_unretrieved_last"]


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
