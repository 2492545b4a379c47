"""Every warning and error boostrank raises of its own, in one place (as ``sklearn.exceptions``).

Each is also importable from the module that raises it.  This module imports nothing of the package.
"""

from __future__ import annotations

__all__ = ["ExportWarning", "LetorFormatError", "NothingToRankWarning", "OneListWarning", "QueryMismatchWarning",
           "TieWarning"]


class LetorFormatError(ValueError):
    """A LETOR/SVMlight (or TREC) file is malformed; the message names the file and line.

    Examples
    --------
    >>> error = LetorFormatError("train.txt", 3, "qid:x is not an integer")
    >>> str(error), error.line
    ('train.txt:3: qid:x is not an integer', 3)
    """

    def __init__(self, path, line: int | None, message: str):
        where = f"{path}:{line}" if line is not None else f"{path}"
        super().__init__(f"{where}: {message}")
        self.path = str(path)
        self.line = line


class OneListWarning(UserWarning):
    """A ranking fit of several rows got no query groups and ranks them all as one list."""


class QueryMismatchWarning(UserWarning):
    """A run has queries the judgements do not have (not evaluated), or runs compared retrieve different queries."""


class TieWarning(UserWarning):
    """Scores tie within a list and no document ids break the ties as trec_eval does."""


class ExportWarning(UserWarning):
    """An export routes some inputs otherwise than the model; :attr:`ModelExport.inexact` lists them."""


class NothingToRankWarning(UserWarning):
    """The data hold no pair the statistic compares, so every w is optimal and the fit returns w = 0."""
