"""trec_eval's measures of the retrieved set, the judged documents and interpolated precision.

The ranked-list measures (``P``, ``recall``, ``map``, ``ndcg``, ``recip_rank``, ``Rprec`` and their
cut-offs) are :mod:`boostrank.metrics`'; this module holds the rest of ``trec_eval -m all_trec``
but the relevance-feedback ones: counts (``num_ret`` ...), set measures (``set_P`` ...),
``bpref``, ``infAP``, ``binG``, ``G``, ``ndcg_rel``, ``Rndcg`` (with trec_eval's default gains, the
grades), ``rbp``/``rbp_resid`` and ``unj`` (trec_eval 10's rank-biased precision, ``rbp.p=0.8``, its
residual, and the share of unjudged documents), ``utility``, ``success``, ``relative_P``, ``Rprec_mult``,
``iprec_at_recall``, ``11pt_avg`` and the geometric means ``gm_map``, ``gm_bpref``.  Each is defined by
trec_eval's ``m_<name>.c`` (usnistgov/trec_eval at f425365, 10.0) and checked against trec_eval's own test
corpus.  Two of ranx's measures trec_eval lacks (ranx/metrics/*.py at 2cae52f) complete the set:
``hit_rate_k`` (trec_eval's ``success_k`` by ranx's name) and ``f1_k``, the harmonic mean of ``P_k`` and
``recall_k``.  Names and parameters are trec_eval's: ``success_5`` (or pytrec_eval's
``success.5``), ``iprec_at_recall_0.10``, ``set_F.0.5``; a family name alone (``success``) or a
list (``success.1,5``) stands for its measures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .._kernels import judged as _kj

__all__ = ["TrecMeasure", "trec_measure", "expand", "sequential_sum", "ALL_TREC"]

#: family: (kernel code, default parameters, parameter kind, how the "all" line combines queries).  The
#: kinds: "cut" (an integer cut-off per measure), "fraction" (a fraction of R per measure), "param" (one
#: measure with parameters), None; the combinations: "mean", "sum" (counts), "gm" (geometric mean, each
#: value floored at trec_eval's MIN_GEO_MEAN)
_FAMILIES = {
    "num_q": (_kj.MODE_TREC_NUM_Q, (), None, "sum"),
    "num_ret": (_kj.MODE_TREC_NUM_RET, (), None, "sum"),
    "num_rel": (_kj.MODE_TREC_NUM_REL, (), None, "sum"),
    "num_rel_ret": (_kj.MODE_TREC_NUM_REL_RET, (), None, "sum"),
    "num_nonrel_judged_ret": (_kj.MODE_TREC_NUM_NONREL_JUDGED_RET, (), None, "sum"),
    "gm_map": (_kj.MODE_TREC_AP, (), None, "gm"),
    "bpref": (_kj.MODE_TREC_BPREF, (), None, "mean"),
    "gm_bpref": (_kj.MODE_TREC_BPREF, (), None, "gm"),
    "infap": (_kj.MODE_TREC_INFAP, (), None, "mean"),
    "bing": (_kj.MODE_TREC_BING, (), None, "mean"),
    "g": (_kj.MODE_TREC_G, (), None, "mean"),
    "ndcg_rel": (_kj.MODE_TREC_NDCG_REL, (), None, "mean"),
    "rndcg": (_kj.MODE_TREC_RNDCG, (), None, "mean"),
    "rbp": (_kj.MODE_TREC_RBP, (0.9,), "param", "mean"),
    "rbp_resid": (_kj.MODE_TREC_RBP_RESID, (0.9,), "param", "mean"),
    "unj": (_kj.MODE_TREC_UNJ, (5, 10, 20), "cut", "mean"),
    "set_p": (_kj.MODE_TREC_SET_P, (), None, "mean"),
    "set_recall": (_kj.MODE_TREC_SET_RECALL, (), None, "mean"),
    "set_map": (_kj.MODE_TREC_SET_MAP, (), None, "mean"),
    "set_relative_p": (_kj.MODE_TREC_SET_RELATIVE_P, (), None, "mean"),
    "set_f": (_kj.MODE_TREC_SET_F, (1.0,), "param", "mean"),
    "utility": (_kj.MODE_TREC_UTILITY, (1.0, -1.0, 0.0, 0.0), "param", "mean"),
    "11pt_avg": (_kj.MODE_TREC_11PT_AVG, tuple(i / 10 for i in range(11)), "param", "mean"),
    "success": (_kj.MODE_TREC_SUCCESS, (1, 5, 10), "cut", "mean"),
    "hit_rate": (_kj.MODE_TREC_SUCCESS, (1, 5, 10), "cut", "mean"),
    "f1": (_kj.MODE_TREC_F1, (5, 10, 15, 20, 30, 100, 200, 500, 1000), "cut", "mean"),
    "relative_p": (_kj.MODE_TREC_RELATIVE_P, (5, 10, 15, 20, 30, 100, 200, 500, 1000), "cut", "mean"),
    "rprec_mult": (_kj.MODE_TREC_RPREC_MULT, tuple(i / 5 for i in range(1, 11)), "fraction", "mean"),
    "iprec_at_recall": (_kj.MODE_TREC_IPREC_AT_RECALL, tuple(i / 10 for i in range(11)), "fraction", "mean"),
}
#: the kernel codes of the cut-off families: one pass of the kernel computes every cut of a family, as each
#: ``m_*.c`` walks a list once for all of its cut-offs
BY_CUT = frozenset(code for code, _, kind, _ in _FAMILIES.values() if kind in ("cut", "fraction"))
#: trec_eval's spelling of each family (its output names)
_SPELLING = {"infap": "infAP", "bing": "binG", "g": "G", "rndcg": "Rndcg", "set_p": "set_P",
             "set_relative_p": "set_relative_P",
             "set_f": "set_F", "relative_p": "relative_P", "rprec_mult": "Rprec_mult"}
#: the ranked-list families boostrank.metrics computes, with trec_eval's default cut-offs
_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_RANKED = {"p": ("P", _CUTS), "recall": ("recall", _CUTS), "ndcg_cut": ("ndcg_cut", _CUTS),
           "map_cut": ("map_cut", _CUTS)}
#: ``trec_eval -m all_trec``'s measures (but runid and relstring), in its output order: 9.x's, its test corpus's
#: (10.0 adds unj, rbp and rbp_resid, which evaluate takes by name)
ALL_TREC = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
            "iprec_at_recall", "P", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG",
            "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P",
            "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret")
#: rbp.p=0.8; ranx's spelling of a cut-off too: f1@10
_SPEC = re.compile(r"^(?P<family>[a-z0-9_]+?)(?:[_.@](?:p=)?(?P<params>[-+0-9.,]+))?$")
MIN_GEO_MEAN = 0.00001  # trec_eval.h


@dataclass(frozen=True)
class TrecMeasure:
    """One trec_eval measure: its kernel code, parameters, the column it reads and how queries combine."""

    name: str
    code: int
    params: tuple
    column: int
    combine: str

    def values(self, lists, threshold: float = 0.0, v9_rounding: bool = False) -> np.ndarray:
        """Each list's value (:class:`~boostrank.evaluation.judged.JudgedLists`): grades above ``threshold`` are relevant;
        ``v9_rounding``: trec_eval 9.x's cut of a fraction of R (:func:`boostrank._kernels.judged.trec_measure`)."""
        key = (self.code, self.params, float(threshold), bool(v9_rounding))
        out = lists.computed.get(key)
        if out is None:
            out = _kj.trec_measure(lists.rel, lists.offsets, lists.ideal, lists.ideal_offsets, self.code,
                                   np.asarray(self.params, dtype=np.float64), float(threshold), v9_rounding)
            lists.computed[key] = out
        return out[:, self.column].copy()

    def combined(self, values: np.ndarray) -> float:
        """The ``all`` line: the mean, the sum, or the geometric mean (each value floored at MIN_GEO_MEAN)."""
        n = values.shape[0]
        if self.combine == "sum":
            return sequential_sum(values)
        if not n:
            return float("nan")
        if self.combine == "gm":
            return float(np.exp(sequential_sum(np.log(np.maximum(values, MIN_GEO_MEAN))) / n))
        return sequential_sum(values) / n


def compute_cuts(lists, specs, threshold: float = 0.0, v9_rounding: bool = False) -> None:
    """The cut-offs of one family among ``specs`` in one pass of the kernel, each cut's column kept in
    ``lists.computed`` where :meth:`TrecMeasure.values` finds it.  The kernel takes the cuts ascending and computes
    each as it would alone (tested against one pass per cut)."""
    measures = [m for m in map(trec_measure, specs) if m is not None and m.code in BY_CUT]
    if len(measures) < 2:
        return
    cuts = sorted({p for m in measures for p in m.params})
    out = _kj.trec_measure(lists.rel, lists.offsets, lists.ideal, lists.ideal_offsets, measures[0].code,
                           np.asarray(cuts, dtype=np.float64), float(threshold), v9_rounding)
    for j, cut in enumerate(cuts):
        lists.computed.setdefault((measures[0].code, (cut,), float(threshold), bool(v9_rounding)), out[:, j:j + 1])


def sequential_sum(values: np.ndarray) -> float:
    """The sum in query order, one addition after another, as trec_eval accumulates its ``all`` line: a value
    on a rounding boundary of the printed 4 decimals prints as trec_eval prints it (NumPy's pairwise sum can
    differ in the last bit)."""
    return float(np.add.accumulate(values)[-1]) if values.size else 0.0


def _split(spec: str):
    m = _SPEC.match(spec.strip().lower())
    if m is None:
        return None, None
    family, params = m["family"], m["params"]
    if family not in _FAMILIES and params is not None and f"{family}_{params}" in _FAMILIES:
        family, params = f"{family}_{params}", None  # 11pt_avg: digits that are part of the name
    return family, params


def measure_parameters(text: str, family: str, kind) -> tuple:
    """The numbers of a measure's parameter text (``"5,10"``), checked for the family's kind of parameter."""
    try:
        values = tuple(float(v) for v in text.strip(",").split(","))
    except ValueError:
        raise ValueError(f"{family}: parameters are numbers separated by commas, got {text!r}") from None
    if kind == "cut" and any(v != int(v) or v < 1 for v in values):
        raise ValueError(f"{family}: cut-offs are positive integers, got {text!r}")
    if kind == "fraction" and any(v < 0 for v in values):
        raise ValueError(f"{family}: fractions of R are non-negative, got {text!r}")
    return values


def trec_measure(spec: str) -> TrecMeasure | None:
    """The measure ``spec`` names (``success_5``, ``set_F.0.5``, ``gm_map``), or None if it names none here."""
    family, text = _split(spec)
    if family not in _FAMILIES:
        return None
    code, default, kind, combine = _FAMILIES[family]
    params = default if text is None else measure_parameters(text, family, kind)
    if kind in ("cut", "fraction"):
        if text is None or len(params) != 1:
            return None  # a family, or several of its measures: expand() names each
        return TrecMeasure(spec, code, params, 0, combine)
    if kind is None and text is not None:
        raise ValueError(f"{_SPELLING.get(family, family)} takes no parameter, got {spec!r}")
    if family == "utility" and len(params) != 4:
        raise ValueError(f"utility takes four coefficients (trec_eval's utility.1,-1,0,0), got {spec!r}")
    if family == "set_f" and len(params) != 1:
        raise ValueError(f"set_F takes one parameter, the weight of recall against precision, got {spec!r}")
    if family in ("rbp", "rbp_resid") and len(params) != 1:  # p outside [0, 1) is computed, as trec_eval does
        raise ValueError(f"rbp takes one parameter, the persistence p (rbp.p=0.8), got {spec!r}")
    return TrecMeasure(spec, code, tuple(sorted(params)) if family == "11pt_avg" else params, 0, combine)


def _cut_name(family: str, value: float) -> str:
    name = _SPELLING.get(family, family)
    if family in _RANKED:
        name = _RANKED[family][0]
    kind = _FAMILIES[family][2] if family in _FAMILIES else "cut"
    return f"{name}_{int(value)}" if kind == "cut" else f"{name}_{value:3.2f}"


def expand(spec: str) -> list[str]:
    """The measures ``spec`` stands for: ``all_trec``, a cut-off family alone (``success``, ``ndcg_cut``,
    ``iprec_at_recall``: trec_eval's default cut-offs; ``P`` and ``recall`` alone are boostrank's ``@10``)
    or with several (``P.5,10``), each by trec_eval's output name; any other name as it is."""
    if spec.strip().lower() == "all_trec":
        return [name for family in ALL_TREC for name in _expand(family, True)]
    return _expand(spec, False)


def _expand(spec: str, whole: bool) -> list[str]:
    family, text = _split(spec)
    if text is None and family in ("p", "recall") and not whole:
        return [spec]  # boostrank's own p and recall: @10 (get_metric)
    if family in _RANKED or (family in _FAMILIES and _FAMILIES[family][2] in ("cut", "fraction")):
        default = _RANKED[family][1] if family in _RANKED else _FAMILIES[family][1]
        kind = "cut" if family in _RANKED else _FAMILIES[family][2]
        params = default if text is None else measure_parameters(text, family, kind)
        if text is None or len(params) > 1:
            return [_cut_name(family, v) for v in sorted(set(params))]
    return [spec]
