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
import os
import shutil
import sys
import tempfile
import warnings
from dataclasses import dataclass, field

import numpy as np

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


class UsageError(Exception):
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
                    raise UsageError(f"trec_eval: improper measure in parameter '{name}'\n"
                                     f"trec_eval: illegal measure '{arg}'")
                params.setdefault(name, text)
            names = nicknames.get(name, (name,))
            for n in names:
                if n not in FAMILIES:
                    raise UsageError(f"trec_eval: illegal measure '{arg}'")
                if n in _LEFT_OUT:
                    raise UsageError(f"boostrank trec_eval: measure '{n}' is left out: {_LEFT_OUT[n]}")
                if self.version == "9" and n in _NOT_IN_9:
                    raise UsageError(f"trec_eval: illegal measure '{arg}' (trec_eval 9.x has no {n})")
            marked.update(names)
        return [f for f in FAMILIES if f in marked], params


def _refuse_rel_format(o, value):
    if value != "qrels":
        raise UsageError(f"boostrank trec_eval: -R {value}: only qrels files are read (preference and "
                         f"judgement-group files are left out)", 2)


def _refuse_results_format(o, value):
    if value != "trec_results":
        raise UsageError(f"trec_eval: Illegal retrieval results format '{value}'", 2)


def _version(o, value):
    if value not in ("9", "10"):
        raise UsageError(f"boostrank trec_eval: --trec-eval is 9 or 10, got {value!r}")
    o.version = value


def _left_out(what):
    def refuse(o, value):
        raise UsageError(f"boostrank trec_eval: {what} is left out", 2)
    return refuse


def _shown_version(o, value):
    raise UsageError(f"trec_eval version {VERSION} (boostrank)", 0)


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
        raise UsageError(f"trec_eval: {exc}\n{USAGE}".rstrip()) from None
    o = TrecEvalOptions()
    for flag, value in pairs:
        _BY_FLAG[flag](o, value)
    if o.help:
        return o
    if len(rest) != 2:
        raise UsageError(USAGE.rstrip())
    if rest == ["-", "-"]:
        raise UsageError("boostrank trec_eval: standard input can be one of the two files, not both")
    o.qrels, o.run = rest
    if o.depth is not None and o.depth < 1:
        raise UsageError(f"boostrank trec_eval: -M takes a positive number of documents, got {o.depth}")
    return o


def _integer(text: str, flag: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UsageError(f"boostrank trec_eval: {flag} takes an integer, got {text!r} (trec_eval's atol would "
                         f"read it as {_atol(text)})") from None


def _atol(text: str) -> int:
    digits = ""
    for c in text.strip():
        if c.isdigit() or (not digits and c in "+-"):
            digits += c
        else:
            break
    try:
        return int(digits)
    except ValueError:
        return 0


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
                raise UsageError(f"trec_eval: illegal measure '{family}.{text}' ({family} takes no parameter)")
            out.append(_Column(family if text is None else f"{family}_{text}", family, family))
            continue
        if family in _LONG_CUTS | _DOUBLE_CUTS:
            out.extend(_cut_columns(family, text))
            continue
        out.append(_Column(family if text is None else f"{family}_{text}",
                           family if text is None else f"{family}.{text}", family))
    return out


def _cut_columns(family: str, text: str | None) -> list:
    """A cut-off family's measures: its parameters (``P.5,10``), or trec_eval's default cut-offs."""
    from .measures import expand, measure_parameters

    kind = "cut" if family in _LONG_CUTS else "fraction"
    try:
        values = None if text is None else measure_parameters(text, family, kind)
    except ValueError as exc:
        raise UsageError(f"trec_eval: illegal measure '{family}.{text}': {exc}") from None
    if values is not None and len(set(values)) != len(values):
        raise UsageError(f"trec_eval: duplicate cutoffs detected in '{family}.{text}'")
    if values is None:
        names = expand(family) if family not in ("P", "recall") else expand("all_trec")
        prefix = family + "_"
        names = [n for n in names if n.startswith(prefix) and _is_cut(n[len(prefix):])]
    else:
        names = [f"{family}_{int(v)}" if kind == "cut" else f"{family}_{v:3.2f}" for v in sorted(values)]
    return [_Column(n, n, family) for n in names]


def _walked(family: str, text: str | None) -> _Column:
    """A measure :mod:`boostrank.evaluation.gains` walks: gains per grade, or dcg, ideal_dcg, yaap."""
    from .gains import gain_pairs

    if text is not None and family == "yaap":
        raise UsageError(f"trec_eval: illegal measure 'yaap.{text}' (yaap takes no parameter)")
    try:
        pairs = () if text is None else gain_pairs(text)
    except ValueError as exc:
        raise UsageError(f"trec_eval: {exc}\ntrec_eval: Cannot initialize measure '{family}'", 2) from None
    return _Column(family if text is None else f"{family}_{text}", family, family, pairs)


def _is_cut(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _read_input(path: str, tmp: str) -> str:
    """``-``: standard input, copied to a private file so that the readers (and their byte cap) see a file."""
    if path != "-":
        return path
    copy = os.path.join(tmp, "stdin")
    with open(copy, "wb") as out:
        shutil.copyfileobj(sys.stdin.buffer, out)
    return copy


def measure_lines(options: TrecEvalOptions):
    """trec_eval's output lines for the options, one string each (without the newline)."""
    from .evaluate import evaluate
    from .files import load_qrels, load_run
    from .judged import judged_lists

    families, params = options.marked()
    columns = _columns(families, params)
    with tempfile.TemporaryDirectory(prefix="boostrank-trec_eval-") as tmp:
        qrels = load_qrels(_read_input(options.qrels, tmp))
        run = load_run(_read_input(options.run, tmp))
    kw = dict(relevance_level=options.relevance_level, depth=options.depth, complete=options.complete,
              version=options.version, judged_only=options.judged_only)
    specs = [c.spec for c in columns if c.family not in ("runid", "relstring") and c.pairs is None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # trec_eval evaluates the queries in both silently
        per = evaluate(qrels, run, specs, per_query=True, **kw) if specs else {}
        means = evaluate(qrels, run, specs, **kw) if specs and options.summary else {}
        lists = judged_lists(qrels, run, depth=options.depth, complete=options.complete,
                             float32=options.version == "9", judged_only=options.judged_only)
    table = _Table(options, qrels, run, lists, per, means, int(float(params.get("relstring", 10))))
    if not [q for q in table.everyone if q in table.in_run]:
        raise UsageError("trec_eval: No queries with both results and relevance info", 7)
    lines = table.query_lines(columns) if options.per_query else []
    if options.version == "10" and not options.complete and lists.unretrieved_queries:
        # trec_eval 10.0 walks the qrels' queries and stops at the first the run lacks (trec_eval.c, exit 4),
        # after the -q lines of the queries before it; 9.x evaluates the queries in both
        first = min(lists.unretrieved_queries, key=str.encode)
        before = [line for line in lines if line.split("\t")[1].encode() < first.encode()]
        raise UsageError(f"trec_eval: result qid '{first}' not found in qrels\nboostrank trec_eval: the run has no "
                         f"result for query {first} of the qrels ({len(lists.unretrieved_queries)} such); -c scores "
                         f"them 0, --trec-eval=9 evaluates the queries in both", 4, before)
    return lines + (table.summary_lines(columns) if options.summary else [])


class _Table:
    """One run's values as trec_eval prints them, from evaluate()'s and the judged lists."""

    def __init__(self, options, qrels, run, lists, per, means, relstring_depth):
        self.options, self.qrels, self.run, self.lists, self.per, self.means = options, qrels, run, lists, per, means
        self.relstring_depth = relstring_depth
        self.in_run = set(run.queries)
        self.v9 = options.version == "9"
        self.everyone = sorted(lists.queries, key=str.encode)  # the qrels' order (strcmp), as trec_eval walks them
        self.group = {q: g for g, q in enumerate(lists.queries)}
        self.stand_in = 0 if options.judged_only else 1  # documents of 10.0's ranking of a query the run lacks
        self._counts = None

    def n_rel(self, q) -> int:
        g, lists = self.group[q], self.lists
        ideal = lists.ideal[lists.ideal_offsets[g]:lists.ideal_offsets[g + 1]]
        return int((ideal >= self.options.relevance_level).sum())

    def level_counts(self) -> dict:
        """{query: judged documents per grade} for the gain walks.  A query graded only negatively gets the counts
        of the query trec_eval evaluated before it (``form_res_rels.c`` keeps its ``rel_levels`` from query to
        query and sets them only from grades ≥ 0), so its ``ideal_dcg`` is that query's."""
        if self._counts is None:
            from .gains import level_counts

            lists, last, self._counts = self.lists, [], {}
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
        """trec_eval's value of query ``q``.  A query the run lacks (-c) adds 0 in 9.x; 10.0 scores it on a
        stand-in ranking of one unjudged document (none under -J) and zeroes num_ret, utility, unj_* and
        rbp_resid, the last two only under their plain names (trec_eval.c); evaluate() scores it as an empty
        list, which differs only for the measures below."""
        from .measures import trec_measure

        if q not in self.in_run and self.v9:
            return 0.0
        if c.pairs is not None:
            from .gains import walk

            rel = self.retrieved(q) if q in self.in_run else (-1,) * self.stand_in
            return walk(c.family, rel, self.level_counts()[q], self.n_rel(q), c.pairs, self.options.relevance_level)
        x, o = self.per[c.spec][q], self.options
        if c.family == "utility":
            p = trec_measure(c.spec).params
            if q in self.in_run:
                return x + p[3] * o.num_docs  # -N enters the fourth term only
            if c.printed == "utility":
                return 0.0
            r = self.n_rel(q)
            return p[1] * self.stand_in + p[2] * r + p[3] * (o.num_docs - self.stand_in - r)
        if c.family == "rbp_resid" and q not in self.in_run and c.printed != "rbp_resid":
            return float(self.stand_in)  # the unjudged stand-in's residual, p^1 + (1 - p) p^0
        if c.family in ("iprec_at_recall", "11pt_avg") and o.judged_only and not self.retrieved(q).size:
            return _empty_interpolated(c, x, self.n_rel(q), o.version)
        return x

    def query_lines(self, columns) -> list:
        lines = []
        for q in self.everyone:
            if self.v9 and q not in self.in_run:
                continue  # 9.x's -c -q prints no line for a query the run lacks
            for c in columns:
                if c.family == "relstring":
                    # trec_eval clears the stand-in's string only under the plain name relstring
                    rel = self.retrieved(q) if q in self.in_run else \
                        () if c.printed == "relstring" else (-1,) * self.stand_in
                    lines.append(f"{c.printed:<22}\t{q}\t'{_relstring(rel, self.relstring_depth)}'")
                elif c.family not in ("runid", "num_q") and not c.family.startswith("gm_"):
                    lines.append(f"{c.printed:<22}\t{q}\t{_printed(c, self.value_of(c, q))}")
        return lines

    def summary_lines(self, columns) -> list:
        from .measures import sequential_sum

        lines = []
        for c in columns:
            if c.family == "runid":
                # the tag of the run file's last line, as trec_eval keeps it (get_trec_results.c)
                tag = self.run.last_tag if self.run.last_tag is not None else self.run.name
                lines.append(f"{'runid':<22}\tall\t{tag}")
            elif c.family == "num_rel" and self.options.complete:
                # -c counts every qrels grade above 0 whatever -l (m_num_rel.c, te_calc_avg_num_rel)
                lines.append(f"{c.printed:<22}\tall\t{int((self.qrels.rel > 0).sum())}")
            elif c.family in ("utility", "rbp_resid", "iprec_at_recall", "11pt_avg") or c.pairs is not None:
                v = np.array([self.value_of(c, q) for q in self.everyone], dtype=np.float64)
                lines.append(f"{c.printed:<22}\tall\t{_printed(c, sequential_sum(v) / v.shape[0])}")
            elif c.family != "relstring":
                lines.append(f"{c.printed:<22}\tall\t{_printed(c, self.means[c.spec])}")
        return lines


def _printed(c, x) -> str:
    if x != x:
        return f"{'-nan':>6}"  # glibc's %6.4f of 0.0 / 0.0
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
    for r in list(rel)[:max(n, 0)]:
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
    except UsageError as exc:
        sys.stdout.write("".join(line + "\n" for line in exc.lines))
        sys.stdout.flush()
        print(str(exc), file=sys.stderr)
        return exc.status
    except (ValueError, OSError) as exc:  # a file that cannot be read: named, one line, trec_eval's status 2
        from .._files import LetorFormatError

        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        kind = "" if isinstance(exc, (LetorFormatError, ValueError, OSError)) else f"{type(exc).__name__}: "
        print(f"boostrank trec_eval: error: {kind}{text}", file=sys.stderr)
        return 2
    out = sys.stdout
    for line in lines:
        out.write(line + "\n")
    out.flush()
    return 0
