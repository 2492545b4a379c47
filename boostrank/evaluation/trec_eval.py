"""trec_eval's command line: ``boostrank trec_eval`` takes trec_eval's arguments and prints what it prints.

The arguments, the measure nicknames, the parameter syntax (``-m P.5,10``, ``-m utility.2,-1,0,0``,
``-m relstring.20``, ``-m rbp.p=0.8``) and the output (``measure<TAB>query<TAB>value``, the measures in
trec_eval's own order whatever the order of ``-m``, ``runid`` and ``relstring`` lines) follow
``trec_eval.c`` and ``measures.c`` of usnistgov/trec_eval at f425365 (10.0); ``--trec-eval=9`` follows
9.x (its ``all_trec`` lacks ``unj``, ``rbp`` and ``rbp_resid``; scores compared as float32; ``-c -q``
prints no line for a query the run lacks).  The numbers are :func:`~boostrank.evaluation.evaluate.evaluate`'s.

What stays out, and why: relevance-preference and judgement-group files (``-R prefs``, ``-R
qrels_prefs``, ``-R qrels_jg`` and their measures, ``prefs_*`` and ``*_avgjg``): another input format
and another family of measures; ``-Z`` (z-scores against a file of per-topic means and deviations);
``-D`` (trec_eval's internal trace); ``rbp`` with gains per grade (``m_rbp.c`` scales them by a minimum and
maximum it never sets).  ``ndcg_p``, in trec_eval's source but not in its measure table, is illegal there and
here.  Gains per grade (``ndcg.0=0,1=1,2=3``), ``dcg``, ``ideal_dcg`` and ``yaap`` are
:mod:`boostrank.evaluation.gains`'.  One difference on purpose: ``dcg``, ``ideal_dcg`` and ``ndcg`` share one
parameter block in trec_eval (``m_ndcg.c``), so two of them with gains on one command line abort it (a double
``free``); here each takes its own gains.
"""

from __future__ import annotations

import getopt
import math
import os
import sys
import warnings
from dataclasses import dataclass, field

import numpy as np

from ..io.files import write_stdout

__all__ = ["main", "TrecEvalOptions", "parse_arguments", "measure_lines", "FAMILIES", "NICKNAMES"]

#: trec_eval's measures in its output order (``te_trec_measures`` in ``measures.c``): per query and in the
#: summary, the marked ones print in this order, whatever the order of ``-m``
FAMILIES = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
            "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg",
            "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P",
            "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret",
            "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
            "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
            "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp", "map_avgjg",
            "P_avgjg", "Rprec_mult_avgjg", "yaap", "rbp", "rbp_resid", "unj")
_PREFS = tuple(f for f in FAMILIES if f.startswith("prefs_"))
#: trec_eval 10.0's nicknames (``te_trec_measure_nicknames``)
NICKNAMES = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
            "set_relative_P", "set_map", "set_F"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP",
                 "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
                 "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
                 "set_F", "num_nonrel_judged_ret"),
    "all_prefs": ("runid", "num_q") + _PREFS,
    "prefs": ("runid", "num_q") + _PREFS[:6],
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}
_NOT_IN_9 = ("unj", "rbp", "rbp_resid", "dcg", "ideal_dcg")
#: measures trec_eval knows that this command refuses, and why
_LEFT_OUT = dict.fromkeys(_PREFS, "a preference measure: it reads preference files (-R prefs), which boostrank "
                                  "does not read")
_LEFT_OUT.update(dict.fromkeys(("map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
                               "a judgement-group measure: it reads -R qrels_jg files, which boostrank does not read"))
#: integer cut-offs (``P_5``) and fractions of R (``iprec_at_recall_0.10``): a measure per parameter
_LONG_CUTS = {"P", "recall", "ndcg_cut", "map_cut", "relative_P", "success", "unj"}
_DOUBLE_CUTS = {"iprec_at_recall", "Rprec_mult"}
#: one value printed as ``name_<parameters>`` when parameters are given (``utility_2,-1,0,0``)
_PARAMETRISED = {"utility", "11pt_avg", "set_F", "relstring", "rbp", "rbp_resid", "ndcg", "ndcg_rel", "Rndcg", "G",
                 "dcg", "ideal_dcg"}
_GAINS = {"ndcg", "ndcg_rel", "Rndcg", "G", "dcg", "ideal_dcg"}  # their parameters are gains per grade: level=gain

USAGE = """Usage: boostrank trec_eval [-h] [-q] {-m measure}* trec_rel_file trec_top_file
   -h: Give full help information, including other options
   -q: In addition to summary evaluation, give evaluation for each query
   -m: calculate and print measures indicated by 'measure'
       ('-m all_trec' prints all qrels measures, '-m official' is default)
"""

HELP = USAGE + """
trec_eval's other options:
   -c: average over the complete set of queries in the relevance judgements (a query the run lacks scores 0)
   -l<num>: grades from <num> up are relevant (default 1)
   -M<num>: evaluate only the first <num> documents of each query
   -J: evaluate only the judged documents (the others are removed, the ranks close up)
   -N<num>: the number of documents in the collection (used by utility's fourth coefficient)
   -n: no summary: only the per-query lines (with -q)
   -R qrels: the relevance file's format (only qrels)
   -T trec_results: the results file's format (only trec_results)
   -v: print the version
   --trec-eval=9: trec_eval 9.x's rules and measure sets (default 10)
   '-' as a file name reads standard input.
Measures: the names trec_eval prints (P, recall, ndcg_cut, map, bpref, ...) and the nicknames official, set,
all_trec; parameters after a '.': P.5,10  ndcg_cut.3,7  utility.2,-1,0,0  relstring.20  rbp.p=0.8  set_F.0.5.
Not here: preference files and measures (-R prefs, prefs_*), judgement groups (-R qrels_jg, *_avgjg),
-Z z-scores, -D traces, rbp with gains per grade.  Gains per grade: ndcg.0=0,1=1,2=3 (also ndcg_rel, Rndcg, G,
dcg, ideal_dcg).
"""

VERSION = "10.0"


class _UsageError(Exception):
    """What trec_eval rejects: its message, its exit status, and the lines it printed before it stopped."""

    def __init__(self, message: str, status: int = 1, lines: tuple = ()):
        super().__init__(message)
        self.status = status
        self.lines = list(lines)


@dataclass
class TrecEvalOptions:
    """trec_eval's options as its ``EPI`` holds them."""

    qrels: str = ""
    run: str = ""
    per_query: bool = False  # -q
    measures: list = field(default_factory=list)  # -m, as given
    complete: bool = False  # -c
    relevance_level: int = 1  # -l
    summary: bool = True  # -n clears it
    judged_only: bool = False  # -J
    num_docs: int = 0  # -N
    depth: int | None = None  # -M
    version: str = "10"
    help: bool = False

    def marked(self) -> tuple[list, dict]:
        """The marked families in trec_eval's order, and the parameters of each (the first ``-m`` that gives
        them, as trec_eval's ``init_meas`` takes the first)."""
        nicknames = dict(NICKNAMES)
        if self.version == "9":
            nicknames["all_trec"] = tuple(f for f in NICKNAMES["all_trec"] if f not in _NOT_IN_9)
        marked, params = set(), {}
        for arg in self.measures or ["official"]:
            name, dot, text = arg.partition(".")
            if dot:
                if not text:
                    raise _UsageError(f"trec_eval: improper measure in parameter '{name}'\n"
                                     f"trec_eval: illegal measure '{arg}'")
                params.setdefault(name, text)
            names = nicknames.get(name, (name,))
            for n in names:
                if n not in FAMILIES:
                    raise _UsageError(f"trec_eval: illegal measure '{arg}'")
                if n in _LEFT_OUT:
                    raise _UsageError(f"boostrank trec_eval: measure '{n}' is left out: {_LEFT_OUT[n]}")
                if self.version == "9" and n in _NOT_IN_9:
                    raise _UsageError(f"trec_eval: illegal measure '{arg}' (trec_eval 9.x has no {n})")
            marked.update(names)
        return [f for f in FAMILIES if f in marked], params


def _refuse_rel_format(o, value):
    if value != "qrels":
        raise _UsageError(f"boostrank trec_eval: -R {value}: only qrels files are read (preference and "
                         f"judgement-group files are left out)", 2)


def _refuse_results_format(o, value):
    if value != "trec_results":
        raise _UsageError(f"trec_eval: Illegal retrieval results format '{value}'", 2)


def _version(o, value):
    if value not in ("9", "10"):
        raise _UsageError(f"boostrank trec_eval: --trec-eval is 9 or 10, got {value!r}")
    o.version = value


def _left_out(what):
    def refuse(o, value):
        raise _UsageError(f"boostrank trec_eval: {what} is left out", 2)
    return refuse


def _shown_version(o, value):
    raise _UsageError(f"trec_eval version {VERSION} (boostrank)", 0)


#: each of trec_eval's options (short, long) and what it sets (``trec_eval.c``'s getopt_long table)
_OPTIONS = {
    ("-h", "--help"): lambda o, v: setattr(o, "help", True),
    ("-v", "--version"): _shown_version,
    ("-q", "--query_eval_wanted"): lambda o, v: setattr(o, "per_query", True),
    ("-m", "--measure"): lambda o, v: o.measures.append(v),
    ("-c", "--complete_rel_info_wanted"): lambda o, v: setattr(o, "complete", True),
    ("-l", "--level_for_rel"): lambda o, v: setattr(o, "relevance_level", _integer(v, "-l")),
    ("-n", "--nosummary"): lambda o, v: setattr(o, "summary", False),
    ("-J", "--Judged_docs_only"): lambda o, v: setattr(o, "judged_only", True),
    ("-N", "--Number_docs_in_coll"): lambda o, v: setattr(o, "num_docs", _integer(v, "-N")),
    ("-M", "--Max_retrieved_per_topic"): lambda o, v: setattr(o, "depth", _integer(v, "-M")),
    ("-R", "--Rel_info_format"): _refuse_rel_format,
    ("-T", "--Results_format"): _refuse_results_format,
    ("-o", "--Output_old_results_format"): lambda o, v: None,  # obsolete in trec_eval too: no effect
    ("-Z", "--Zscore"): _left_out("-Z (z-scores)"),
    ("-D", "--Debug_level"): _left_out("-D (trec_eval's internal trace)"),
    ("--trec-eval",): _version,
}
_BY_FLAG = {flag: action for flags, action in _OPTIONS.items() for flag in flags}


def parse_arguments(argv) -> TrecEvalOptions:
    """trec_eval's command line (GNU ``getopt_long`` with its short and long options), into options."""
    longs = ["help", "version", "query_eval_wanted", "measure=", "complete_rel_info_wanted", "level_for_rel=",
             "nosummary", "Debug_level=", "Judged_docs_only", "Number_docs_in_coll=", "Max_retrieved_per_topic=",
             "Rel_info_format=", "Results_format=", "Output_old_results_format", "Zscore=", "trec-eval="]
    try:
        pairs, rest = getopt.gnu_getopt(list(argv), "hvqm:cl:nD:JN:M:R:T:oZ:", longs)
    except getopt.GetoptError as exc:
        raise _UsageError(f"trec_eval: {exc}\n{USAGE}".rstrip()) from None
    o = TrecEvalOptions()
    for flag, value in pairs:
        _BY_FLAG[flag](o, value)
    if o.help:
        return o
    if len(rest) != 2:
        raise _UsageError(USAGE.rstrip())
    if rest == ["-", "-"]:
        raise _UsageError("boostrank trec_eval: standard input can be one of the two files, not both")
    o.qrels, o.run = rest
    if o.depth is not None and o.depth < 0:  # trec_eval crashes (a negative count to qsort)
        raise _UsageError(f"boostrank trec_eval: -M takes a number of documents, 0 or more, got {o.depth}")
    return o


def _integer(text: str, flag: str) -> int:
    """An option's number as trec_eval's ``atol`` reads it (``-l 1.5`` is 1, ``-N abc`` is 0), clamped to C's long
    as glibc's ``strtol`` clamps it."""
    return _atol(text)


def _atol(text: str) -> int:
    digits = ""
    for c in text.lstrip(" \t\n\v\f\r"):
        if c in "0123456789" or (not digits and c in "+-"):
            digits += c
        else:
            break
    try:
        return min(max(int(digits), -2**63), 2**63 - 1)
    except ValueError:
        return 0


def _c_long(x: float) -> int:
    """A double converted to C's long on x86-64 (``cvttsd2si``): truncated; NaN and out-of-range values become
    the lowest long."""
    return int(x) if math.isfinite(x) and -2.0**63 <= x < 2.0**63 else -2**63


@dataclass(frozen=True)
class _Column:
    """One printed measure: trec_eval's name, the name evaluate() computes it under, its family."""

    printed: str
    spec: str
    family: str
    pairs: tuple | None = None  # gain pairs of a measure walked by boostrank.evaluation.gains, else None


def _columns(families: list, params: dict) -> list:
    out = []
    for family in families:
        text = params.get(family)
        if family in ("dcg", "ideal_dcg", "yaap") or (text is not None and family in _GAINS):
            out.append(_walked(family, text))
            continue
        if family in ("runid", "relstring") or family not in _LONG_CUTS | _DOUBLE_CUTS | _PARAMETRISED:
            if text is not None and family not in ("relstring",):
                raise _UsageError(f"trec_eval: illegal measure '{family}.{text}' ({family} takes no parameter)")
            out.append(_Column(family if text is None else f"{family}_{text}", family, family))
            continue
        if family in _LONG_CUTS | _DOUBLE_CUTS:
            out.extend(_cut_columns(family, text))
            continue
        out.append(_Column(family if text is None else f"{family}_{text}",
                           family if text is None else _parameter_spec(family, text), family))
    return out


def _parameter_spec(family: str, text: str) -> str:
    """evaluate()'s name of a measure with parameters, read as trec_eval reads them: numbers by C's ``atof``
    (``utility.a,b,c,d`` is four zeros), ``rbp``'s ``name=value`` pairs (its ``p``, the last one given; other
    names are ignored), ``set_F``'s first number."""
    from .gains import atof, gain_pairs

    cannot = f"\ntrec_eval: Cannot initialize measure '{family}'"
    if family in ("rbp", "rbp_resid"):
        try:
            pairs = gain_pairs(text)
        except ValueError as exc:
            raise _UsageError(f"trec_eval: {exc}{cannot}", 2) from None
        values = [dict(pairs).get("p", 0.9)]
    else:
        values = [atof(v) for v in text.split(",")]
    if family == "utility" and len(values) != 4:
        raise _UsageError("trec_eval.calc_utility: improper number of coefficients\n"
                         "trec_eval: Can't calculate measure 'utility'", 4)
    if not all(math.isfinite(v) for v in values):
        raise _UsageError(f"boostrank trec_eval: {family}.{text}: a parameter is not a finite number")
    numbers = ",".join(np.format_float_positional(v, trim="-") for v in values[:1 if family == "set_F" else None])
    return f"{family}.{'p=' if family.startswith('rbp') else ''}{numbers}"


def _cut_columns(family: str, text: str | None) -> list:
    """A cut-off family's measures: its parameters (``P.5,10``, each read by C's ``atol``, or ``atof`` for a
    fraction of R, as ``meas_init.c`` reads them), or trec_eval's default cut-offs."""
    from .gains import atof
    from .measures import expand

    kind = "cut" if family in _LONG_CUTS else "fraction"
    if text is None:
        names = expand(family) if family not in ("P", "recall") else expand("all_trec")
        prefix = family + "_"
        return [_Column(n, n, family) for n in names if n.startswith(prefix) and _is_cut(n[len(prefix):])]
    values = sorted(_atol(v) if kind == "cut" else atof(v) for v in text.split(","))
    cannot = f"\ntrec_eval: Cannot initialize measure '{family}'"
    if kind == "cut" and values[0] <= 0:
        raise _UsageError("trec_eval: Negative cutoff detected" + cannot, 2)
    if any(a == b for a, b in zip(values, values[1:])):
        raise _UsageError("trec_eval: duplicate cutoffs detected" + cannot, 2)
    if kind == "fraction" and not all(0.0 <= v < math.inf for v in values):
        raise _UsageError(f"boostrank trec_eval: {family}.{text}: fractions of R are numbers from 0 up (trec_eval "
                         f"would cut the ranking at a negative or undefined count)")
    names = [f"{family}_{v}" if kind == "cut" else f"{family}_{v:3.2f}" for v in values]
    return [_Column(n, n, family) for n in names]


def _walked(family: str, text: str | None) -> _Column:
    """A measure :mod:`boostrank.evaluation.gains` walks: gains per grade, or dcg, ideal_dcg, yaap."""
    from .gains import gain_pairs

    if text is not None and family == "yaap":
        raise _UsageError(f"trec_eval: illegal measure 'yaap.{text}' (yaap takes no parameter)")
    try:
        pairs = () if text is None else gain_pairs(text)
    except ValueError as exc:
        raise _UsageError(f"trec_eval: {exc}\ntrec_eval: Cannot initialize measure '{family}'", 2) from None
    return _Column(family if text is None else f"{family}_{text}", family, family, pairs)


def _is_cut(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _read_input(path: str):
    """``-``: standard input, read as it comes under the readers' byte cap and first-line check."""
    return sys.stdin.buffer if path == "-" else path


#: the document of 10.0's ranking of a qrels query the run lacks under -c (``bogus_ranking`` in trec_eval.c)
STAND_IN = "ceci_nest_pas_un_docno"


def _with_stand_ins(run, queries: list):
    """The run with trec_eval 10.0's stand-in document for each query in ``queries`` (which it lacks)."""
    from .runs import Run

    out = Run(np.concatenate((run.qid, np.array(queries, dtype=object))),
              np.concatenate((run.docid, np.full(len(queries), STAND_IN, dtype=object))),
              np.concatenate((run.score, np.zeros(len(queries)))), name=run.name, source=run.source)
    out.last_tag = run.last_tag
    return out


def measure_lines(options: TrecEvalOptions):
    """trec_eval's output lines for the options, one string each (without the newline)."""
    from .evaluate import Truth, mean_of, per_query_values, rules_of
    from .gains import atof

    families, params = options.marked()
    columns = _columns(families, params)
    qrels, run, in_run, unretrieved = _inputs(options)
    rules = rules_of(None, options.relevance_level, options.depth, options.complete, options.version,
                     options.judged_only)
    specs = [c.spec for c in columns if c.family not in ("runid", "relstring") and c.pairs is None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # trec_eval evaluates the queries in both silently
        # one match of the run to the qrels, every measure on it, the means from the same values
        values, queries, lists = per_query_values(Truth(qrels=qrels), run, specs, rules, with_lists=True)
    means = {m: mean_of(m, v) for m, v in values.items()} if options.summary else {}
    relstring = _c_long(atof(params["relstring"])) if "relstring" in params else 10  # m_relstring.c: (long) atof
    runid = run.last_tag if run.last_tag is not None else run.name
    table = _Table(options, qrels, in_run, lists, (queries, values), means, relstring, runid)
    lines = table.query_lines(columns) if options.per_query else []
    if options.version == "10" and not options.complete and lists.unretrieved_queries:
        # trec_eval 10.0 walks the qrels' queries and stops at the first the run lacks (trec_eval.c, exit 4),
        # after the -q lines of the queries before it; 9.x evaluates the queries in both
        first = unretrieved[0]
        before = [line for line in lines if line.split("\t")[1].encode() < first.encode()]
        raise _UsageError(f"trec_eval: result qid '{first}' not found in qrels\nboostrank trec_eval: the run has no "
                         f"result for query {first} of the qrels ({len(unretrieved)} such); -c scores "
                         f"them 0, --trec-eval=9 evaluates the queries in both", 4, before)
    return lines + (table.summary_lines(columns) if options.summary else [])


def _inputs(options: TrecEvalOptions):
    """(qrels, run, the run file's queries, the qrels' queries it lacks in strcmp order), read as trec_eval reads
    them; no query in common stops as each version stops, and 10.0's -c ranks its stand-in for each query lacked."""
    from .files import load_qrels, load_run

    for path, what in ((options.qrels, "qrels"), (options.run, "results")):
        if path != "-" and os.path.isfile(path) and not os.path.getsize(path):  # trec_eval maps it: size 0 fails
            raise _UsageError(f"trec_eval.get_{what}: Cannot read {what} file '{path}'\ntrec_eval: Quit in file "
                             f"'{path}'", 2)
    qrels = load_qrels(_read_input(options.qrels))
    run = load_run(_read_input(options.run), need_tag=True)  # a line without its tag is malformed there
    in_run = set(run.queries)
    unretrieved = sorted((q for q in qrels.queries if q not in in_run), key=str.encode)
    v9 = options.version == "9"
    if len(unretrieved) == len(qrels.queries) and (v9 or not options.complete):
        if not v9:  # 10.0 stops at the qrels' first query (trec_eval.c, exit 4)
            raise _UsageError(f"trec_eval: result qid '{unretrieved[0]}' not found in qrels\nboostrank trec_eval: "
                             f"no query of the run is in the qrels", 4)
        raise _UsageError("trec_eval: No queries with both results and relevance info", 7)
    if options.complete and not v9 and unretrieved:
        run = _with_stand_ins(run, unretrieved)
    return qrels, run, in_run, unretrieved


class _Table:
    """One run's values as trec_eval prints them, from evaluate()'s and the judged lists.  Under 10.0's ``-c`` a
    query the run lacks was ranked as trec_eval ranks it, one stand-in document (:data:`STAND_IN`), and its
    ``num_ret``, ``utility``, ``unj_*``, ``rbp_resid`` and ``relstring`` are cleared as trec_eval.c clears them
    (``utility``, ``rbp_resid`` and ``relstring`` under their plain names only)."""

    def __init__(self, options, qrels, in_run, lists, values, means, relstring_depth, runid):
        self.options, self.qrels, self.lists, self.means = options, qrels, lists, means
        queries, self.values = values  # each measure's values, in the order of ``queries``
        self._at = {q: i for i, q in enumerate(queries)}
        self.relstring_depth, self.runid = relstring_depth, runid
        self.in_run = in_run  # the queries of the run file
        self.v9 = options.version == "9"
        self.everyone = sorted(lists.queries, key=str.encode)  # the qrels' order (strcmp), as trec_eval walks them
        self.group = {q: g for g, q in enumerate(lists.queries)}
        self._counts = None
        sizes = np.diff(lists.offsets)  # the queries value_of treats apart: lacked by the run, or an empty ranking
        self._apart = {q for q in self.everyone if q not in in_run or not sizes[self.group[q]]}

    def n_rel(self, q) -> int:
        g, lists = self.group[q], self.lists
        ideal = lists.ideal[lists.ideal_offsets[g]:lists.ideal_offsets[g + 1]]
        return int((ideal >= max(self.options.relevance_level, 0)).sum())  # judged grades only, whatever -l

    def level_counts(self) -> dict:
        """{query: judged documents per grade} for the gain walks.  A query graded only negatively gets the counts
        of the query trec_eval evaluated before it (``form_res_rels.c`` keeps its ``rel_levels`` from query to
        query and sets them only from grades ≥ 0), so its ``ideal_dcg`` is that query's."""
        if self._counts is None:
            from .gains import level_counts

            lists, last, self._counts = self.lists, {}, {}
            for q in self.everyone:
                if self.v9 and q not in self.in_run:
                    continue  # 9.x does not evaluate it
                g = self.group[q]
                counts = level_counts(lists.ideal[lists.ideal_offsets[g]:lists.ideal_offsets[g + 1]].tolist())
                last = counts if counts is not None else last
                self._counts[q] = last
        return self._counts

    def retrieved(self, q) -> np.ndarray:
        g, lists = self.group[q], self.lists
        return lists.rel[lists.offsets[g]:lists.offsets[g + 1]]

    def value_of(self, c, q) -> float:
        """trec_eval's value of query ``q``: 9.x adds 0 for a query the run lacks; 10.0 clears some values of its
        stand-in ranking (see the class)."""
        from .measures import trec_measure

        stand_in = q not in self.in_run
        if stand_in and self.v9:
            return 0.0
        if c.pairs is not None:
            from .gains import walk

            return walk(c.family, self.retrieved(q), self.level_counts()[q], self.n_rel(q), c.pairs,
                        self.options.relevance_level)
        x, o = float(self.values[c.spec][self._at[q]]), self.options
        if stand_in and (c.printed in ("num_ret", "utility", "rbp_resid") or c.printed.startswith("unj")):
            return 0.0
        if c.family == "utility":
            return x + trec_measure(c.spec).params[3] * o.num_docs  # -N enters the fourth term only
        if c.family in ("iprec_at_recall", "11pt_avg") and not self.retrieved(q).size:  # -J, -M 0
            return _empty_interpolated(c, x, self.n_rel(q), o.version)
        return x

    def column(self, c, queries: list) -> np.ndarray:
        """:meth:`value_of` for each of ``queries``: the measure's values taken at once, and value_of asked only
        for the queries its cases concern (a stand-in, an empty ranking, a gain walk)."""
        if c.pairs is not None or c.spec not in self.values:
            return np.array([self.value_of(c, q) for q in queries], dtype=np.float64)
        out = self.values[c.spec][[self._at[q] for q in queries]].astype(np.float64)
        if c.family == "utility":
            from .measures import trec_measure

            out = out + trec_measure(c.spec).params[3] * self.options.num_docs
        for i, q in enumerate(queries):
            if q in self._apart:
                out[i] = self.value_of(c, q)
        return out

    def query_lines(self, columns) -> list:
        queries = [q for q in self.everyone if not (self.v9 and q not in self.in_run)]  # 9.x: none for a lacked one
        cells = []  # per column, each query's printed value (or None: the column prints no -q line)
        for c in columns:
            if c.family == "relstring":
                cleared = {q for q in queries if q not in self.in_run and c.printed == "relstring"}
                cells.append([f"'{_relstring(() if q in cleared else self.retrieved(q), self.relstring_depth)}'"
                              for q in queries])
            elif c.family not in ("runid", "num_q") and not c.family.startswith("gm_"):
                cells.append(_printed_all(c, self.column(c, queries)))
            else:
                cells.append(None)
        printed = [(f"{c.printed:<22}\t", cell) for c, cell in zip(columns, cells) if cell is not None]
        heads = [q + "\t" for q in queries]
        lines = [""] * (len(queries) * len(printed))  # query by query, each its measures in order
        for k, (name, cell) in enumerate(printed):
            lines[k::len(printed)] = map(name.__add__, map(str.__add__, heads, cell))
        return lines

    def summary_lines(self, columns) -> list:
        from .measures import sequential_sum

        lines = []
        for c in columns:
            if c.family == "runid":
                # the tag of the run file's last line, as trec_eval keeps it (get_trec_results.c)
                lines.append(f"{'runid':<22}\tall\t{self.runid}")
            elif c.family == "num_rel" and self.options.complete:
                # -c counts every qrels grade above 0 whatever -l (m_num_rel.c, te_calc_avg_num_rel)
                lines.append(f"{c.printed:<22}\tall\t{int((self.qrels.rel > 0).sum())}")
            elif c.family in ("num_ret", "utility", "unj", "rbp_resid", "iprec_at_recall", "11pt_avg") or \
                    c.pairs is not None:
                v = self.column(c, self.everyone)
                total = sequential_sum(v)  # num_ret's is a sum
                lines.append(f"{c.printed:<22}\tall\t{_printed(c, total / (1 if c.family == 'num_ret' else v.size))}")
            elif c.family != "relstring":
                lines.append(f"{c.printed:<22}\tall\t{_printed(c, self.means[c.spec])}")
        return lines


def _printed_all(c, values: np.ndarray) -> list:
    """:func:`_printed` of each value."""
    if not np.isfinite(values).all():
        return [_printed(c, x) for x in values.tolist()]
    form = "{:.0f}" if c.family.startswith("num_") else "{:.4f}"
    return list(map(form.format, values.tolist()))


def _printed(c, x) -> str:
    if x != x:
        return f"{'-nan':>6}"  # glibc's %6.4f of 0.0 / 0.0
    if x in (math.inf, -math.inf):
        return f"{'inf' if x > 0 else '-inf':>6}"  # and of a gain over a zero discount
    return f"{x:.0f}" if c.family.startswith("num_") else f"{x:.4f}"


def _empty_interpolated(column, value: float, n_rel: int, version: str) -> float:
    """trec_eval's interpolated precision of a ranking with no document: 0 / 0 (NaN) at every recall cut of
    zero relevant documents (``m_iprec_at_recall.c``, ``m_11pt_avg.c``), so NaN in 11pt_avg's mean of them."""
    from .measures import trec_measure

    def cut(x):
        return int(x * n_rel + 0.9) if version == "9" else int(np.floor(x * n_rel + 0.5))  # (long)(+0.9); lround

    if column.family == "iprec_at_recall":
        return float("nan") if cut(float(column.printed.rsplit("_", 1)[1])) == 0 else value
    return float("nan") if any(cut(x) == 0 for x in trec_measure(column.spec).params) else value


def _relstring(rel, n: int) -> str:
    """trec_eval's ``relstring``: one character per document of the first ``n`` (``m_relstring.c``)."""
    out = []
    for r in list(rel[:max(n, 0)]):
        r = int(r)
        out.append(">" if r > 9 else str(r) if r >= 0 else "-" if r == -1 else "." if r == -2 else "<")
    return "".join(out)


def main(argv) -> int:
    """``boostrank trec_eval ARGS``: trec_eval's arguments in, its output out; its exit status on its errors."""
    try:
        options = parse_arguments(argv)
        if options.help:
            sys.stdout.write(HELP)
            return 0
        lines = measure_lines(options)
    except _UsageError as exc:
        write_stdout("".join(line + "\n" for line in exc.lines))  # the -q lines trec_eval printed before it stopped
        print(str(exc), file=sys.stderr)
        return exc.status
    except (ValueError, OSError) as exc:  # a file that cannot be read: named, one line, trec_eval's status 2
        from ..io.files import LetorFormatError

        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        kind = "" if isinstance(exc, (LetorFormatError, ValueError, OSError)) else f"{type(exc).__name__}: "
        print(f"boostrank trec_eval: error: {kind}{text}", file=sys.stderr)
        return 2
    write_stdout("\n".join(lines) + "\n" if lines else "")
    return 0
