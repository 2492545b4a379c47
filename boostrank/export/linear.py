"""Linear models out to search engines: wᵀx with the feature names the engine knows the features by.

RankNCG, MIPRanker and TopKReranker score a document by wᵀx, which a search engine
computes natively at query time.  A TopKReranker is a re-ranking phase: its last
weight is the first stage's score, and it applies to the top ``k`` of the list (an
Elasticsearch ``rescore`` window, a Vespa ``second-phase`` with ``rerank-count``).
"""

from __future__ import annotations

import json
import re
from typing import Sequence

import numpy as np

FORMATS = ("elasticsearch-ltr", "vespa")
NAME_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
#: a Vespa identifier: attribute, field and rank-feature names (no '-', no '.')
IDENT_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
_OUTPUT = re.compile(r"[A-Za-z0-9_]+")
_MAX_DEPTH = 4


def _parse_feature(text: str, at: int, depth: int) -> int:
    """End of the rank feature that starts at ``at``, or -1 when none does.

    ``feature := ident ['(' [arg (',' arg)*] ')'] ('.' output)*`` with ``arg := feature |
    number``, spaces allowed after a comma and nowhere else, nesting at most ``_MAX_DEPTH`` deep
    (Vespa's rank-feature names: ``bm25(title)``, ``fieldMatch(title).completeness``,
    ``nativeRank(title, body)``, ``term(0).significance``).  Nothing else — no operator,
    quote, brace or newline — can be part of a name, so a name cannot end the expression or
    the profile it is pasted into.
    """
    m = IDENT_PATTERN.match(text, at)
    if m is None or depth > _MAX_DEPTH:
        return -1
    at = m.end()
    if at < len(text) and text[at] == "(":
        at += 1
        if at < len(text) and text[at] == ")":
            at += 1
        else:
            while True:
                num = _NUMBER.match(text, at)
                end = _parse_feature(text, at, depth + 1)
                end = max(end, num.end() if num is not None else -1)
                if end < 0:
                    return -1
                at = end
                if at < len(text) and text[at] == ",":
                    at += 1
                    while at < len(text) and text[at] == " ":
                        at += 1
                    continue
                if at < len(text) and text[at] == ")":
                    at += 1
                    break
                return -1
    while at < len(text) and text[at] == ".":
        m = _OUTPUT.match(text, at + 1)
        if m is None:
            return -1
        at = m.end()
    return at


def vespa_feature(name: str) -> str:
    """The Vespa rank feature a column name stands for, or ``ValueError``.

    A bare identifier (letters, digits, ``_``; Vespa attribute names take no ``-`` or
    ``.``) is ``attribute(name)``; a name with parentheses must be one well-formed rank
    feature (see :func:`_parse_feature`), used as it is.

    Examples
    --------
    >>> vespa_feature("price"), vespa_feature("fieldMatch(title).completeness")
    ('attribute(price)', 'fieldMatch(title).completeness')
    """
    if not isinstance(name, str):
        raise TypeError(f"feature names must be strings, got {name!r}")
    if IDENT_PATTERN.fullmatch(name):
        return f"attribute({name})"
    if "(" in name and _parse_feature(name, 0, 0) == len(name):
        return name
    raise ValueError(f"feature name {name!r} is neither a Vespa attribute name (letters, digits, '_') nor one "
                     f"well-formed rank feature such as 'bm25(title)' or 'fieldMatch(title).completeness'")


def checked_feature_names(given, default: list, d: int) -> list:
    """The engine's names of the ``d`` columns: ``given``, else ``default``; distinct non-empty strings."""
    if isinstance(given, (str, bytes)):
        raise TypeError(f"feature_names must be a sequence of names, got the single string {given!r}")
    names = list(given) if given is not None else list(default)
    bad = [n for n in names if not isinstance(n, str) or not n]
    if bad:  # json.dumps would write 1 and "1" as one key, None as "null", NaN as "NaN"
        raise TypeError(f"feature names must be non-empty strings, got {bad[0]!r}")
    if len(names) != d:
        raise ValueError(f"{len(names)} feature names for a model of {d} features")
    if len(set(names)) != len(names):
        raise ValueError("feature names must be distinct")
    return names


def is_reranker(model) -> bool:
    from ..rerank import TopKReranker

    return isinstance(model, TopKReranker)


def linear_weights(model, feature_names: Sequence[str] | None = None) -> dict:
    """The model's scoring function as ``{feature name: weight}`` (insertion order = column order).

    The scores are ``Σ weight · feature`` plus a constant that does not change any order
    (RankNCG's centring); a TopKReranker's last entry is ``base_score``, the first
    stage's score.

    Parameters
    ----------
    model : RankNCG, MIPRanker or TopKReranker, fitted
    feature_names : sequence of str, default=None
        The engine's names of the columns of X; default ``feature_names_in_`` when the
        model was fitted on a DataFrame, else ``f1 … fd`` (LETOR's numbering).

    Returns
    -------
    dict
    """
    coef = getattr(model, "coef_", None)
    if coef is None:
        raise ValueError(f"{type(model).__name__} is not fitted (or not a linear model): no coef_")
    coef = np.asarray(coef, dtype=np.float64).reshape(-1)
    d = int(model.n_features_in_)
    names = checked_feature_names(feature_names, [str(n) for n in model.feature_names_in_]
                           if hasattr(model, "feature_names_in_") else [f"f{j + 1}" for j in range(d)], d)
    if coef.shape[0] == d + 1:  # TopKReranker with include_base: [X, base]
        names = names + ["base_score"]
    if coef.shape[0] != len(names):
        raise ValueError(f"the model has {coef.shape[0]} weights for {len(names)} named features")
    if len(set(names)) != len(names):
        raise ValueError("feature names must be distinct")
    if getattr(model, "fallback_", None):
        raise ValueError("the re-ranker kept the base order (fallback_): there is no second stage to export")
    if not np.isfinite(coef).all():
        raise ValueError("the model has non-finite weights")
    return {n: float(w) for n, w in zip(names, coef)}


def export_linear(model, format: str = "elasticsearch-ltr", *, feature_names: Sequence[str] | None = None,
                  name: str = "boostrank") -> str:
    """A linear model in a search engine's format, as text to write or send.

    Parameters
    ----------
    model : RankNCG, MIPRanker or TopKReranker, fitted
    format : {"elasticsearch-ltr", "vespa"}, default="elasticsearch-ltr"
        ``"elasticsearch-ltr"``: the JSON body of the LTR plugin's
        ``POST _ltr/_featureset/<feature set>/_createmodel`` with a ``model/linear``
        definition (the features must exist in that feature set under these names).  A
        TopKReranker's model goes in the query's ``rescore`` with ``window_size`` =
        ``model.result_.k``, and ``base_score`` a feature holding the first stage's score.
        ``"vespa"``: a ``rank-profile`` whose expression sums ``weight * attribute(name)``
        (a name with parentheses must be one well-formed rank feature, e.g.
        ``bm25(title)``, and is used as it is: :func:`vespa_feature`); a TopKReranker's is a ``second-phase`` over its top ``k``, with
        ``base_score`` as ``firstPhase``.
    feature_names : sequence of str, default=None
        See :func:`linear_weights`.
    name : str, default="boostrank"
        The model's (or rank profile's) name.

    Returns
    -------
    str

    Examples
    --------
    >>> import json, boostrank as br
    >>> data = br.datasets.make_letor(30, random_state=0)
    >>> model = br.RankNCG().fit(data.X, data.y, qid=data.qid)
    >>> json.loads(export_linear(model, "elasticsearch-ltr"))["model"]["model"]["type"]
    'model/linear'
    """
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {format!r}")
    if not NAME_PATTERN.fullmatch(name):
        raise ValueError(f"name {name!r} must be letters, digits, '_', '-', '.'")
    weights = linear_weights(model, feature_names)
    k = getattr(model, "result_", None)
    k = getattr(k, "k", None) if is_reranker(model) else None
    if format == "elasticsearch-ltr":
        body = {"model": {"name": name, "model": {"type": "model/linear",
                                                  "definition": json.dumps(weights)}}}
        return json.dumps(body, indent=2)
    terms = []
    for feature, w in weights.items():
        if feature == "base_score" and k is not None:
            ref = "firstPhase"
        else:
            ref = vespa_feature(feature)
        terms.append(f"{w!r} * {ref}")
    expression = " + ".join(terms) if terms else "0"
    if k is None:
        phases = f"    first-phase {{\n        expression: {expression}\n    }}\n"
    else:
        phases = (f"    second-phase {{\n        rerank-count: {int(k)}\n        expression: {expression}\n    }}\n")
    return f"rank-profile {name} inherits default {{\n{phases}}}\n"
