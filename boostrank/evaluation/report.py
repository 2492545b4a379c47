"""Reports: a comparison of runs in plain text, Markdown, LaTeX and JSON (names escaped for each), and the table
of metrics of labelled runs that the command line prints."""

from __future__ import annotations

import json
import math
import re
import warnings
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .._validation import GroupOffsets, group_offsets
from ..exceptions import TieWarning
from ..metrics.arrays import auc, get_metric, parse_metric, trec_ties

__all__ = ["Comparison", "p_text", "metric_table", "format_table"]


def p_text(p: float) -> str:
    """A p-value as journals print it: ``<0.001``, else 3 significant digits (``0.0500``, ``1.00``)."""
    if math.isnan(p):
        return "nan"
    return "<0.001" if p < 0.001 else f"{p:#.3g}"


#: ASCII punctuation that Markdown (CommonMark, GitHub's tables) reads as markup: escaped by a backslash
_MARKDOWN_SPECIAL = re.compile(r"[\\`*_{}\[\]<>()#+!|~^$&]")
#: what each character LaTeX reads as markup becomes in text mode ("<" alone prints as "¡" in OT1)
_LATEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", "Δ": r"$\Delta$",
                  "−": r"$-$"}
_LATEX_SPECIAL = re.compile("|".join(re.escape(c) for c in _LATEX_ESCAPES))


@dataclass
class Comparison:
    """Runs compared on each metric: means, 95 % intervals, paired tests, wins/ties/losses.

    Attributes
    ----------
    runs : list of str
    metrics : list of str
    test : str
    correction : str or None
    alpha : float
    summary : dict
        ``{metric: {run: {"mean", "ci_low", "ci_high", "n"}}}``; the interval is Student's t over
        the per-query values.
    pairs : dict
        ``{metric: [{"baseline", "run", "diff", "p", "p_adjusted", "mc_error", "wins", "ties",
        "losses", "significant"}]}``; ``diff`` is run − baseline, a win is a query where the run
        scores higher.
    per_query : dict
        ``{metric: {"queries": [...], run: ndarray}}``: the paired values the tests used.
    """

    runs: list
    metrics: list
    test: str
    correction: str | None
    alpha: float
    summary: dict
    pairs: dict
    per_query: dict = field(repr=False)

    def to_dict(self) -> dict:
        """Everything but the per-query values, JSON-ready."""
        return {"runs": self.runs, "metrics": self.metrics, "test": self.test, "correction": self.correction,
                "alpha": self.alpha, "summary": self.summary, "pairs": self.pairs}

    def to_json(self, **kwargs) -> str:
        """:meth:`to_dict` as JSON (NaN written as null)."""
        def clean(x):
            if isinstance(x, float) and not math.isfinite(x):
                return None
            if isinstance(x, dict):
                return {k: clean(v) for k, v in x.items()}
            if isinstance(x, list):
                return [clean(v) for v in x]
            return x
        return json.dumps(clean(self.to_dict()), **{"indent": 2, **kwargs})

    def to_frame(self, pairs: bool = False):
        """A pandas DataFrame: per (metric, run) its mean, interval and query count; with ``pairs``, per
        (metric, baseline, run) the paired difference, its p-values and wins/ties/losses."""
        import pandas as pd

        if pairs:
            rows = [{"metric": m, **p} for m in self.metrics for p in self.pairs[m]]
            columns = ["metric", "baseline", "run", "diff", "p", "p_adjusted", "mc_error", "wins", "ties", "losses",
                       "significant"]
            frame = pd.DataFrame(rows, columns=columns)
            return frame.set_index(["metric", "baseline", "run"])
        rows = [{"metric": m, "run": r, **self.summary[m][r]} for m in self.metrics for r in self.runs]
        return pd.DataFrame(rows, columns=["metric", "run", "mean", "ci_low", "ci_high", "n"]).set_index(
            ["metric", "run"])

    def _method(self) -> str:
        if self.test == "tukey":
            return f"Tukey's HSD over {len(self.runs)} runs (its p allows for every pair)"
        return f"{self.test} test, {self.correction or 'no'} correction"

    def _all_pairs(self, m) -> list:
        """Every pair of metric ``m`` when the runs are compared pairwise (more than one baseline), else []."""
        if len({p["baseline"] for p in self.pairs[m]}) < 2:
            return []
        return [[f"{p['run']} − {p['baseline']}"] + self._cells(self.summary[m][p["run"]], p, p_text)[2:]
                for p in self.pairs[m]]

    _PAIR_HEADER = ["pair", "Δ", "p", "p adj", "W/T/L"]

    def _rows(self):
        """Per metric, one row per run: mean, interval, and its comparison with the baseline (or first pair)."""
        for m in self.metrics:
            vs = {}
            for pair in self.pairs[m]:
                vs.setdefault(pair["run"], pair)
            rows = []
            for r in self.runs:
                s = self.summary[m][r]
                pair = vs.get(r)
                rows.append((r, s, pair))
            yield m, rows

    def _cells(self, s, pair, fmt_p):
        cells = [f"{s['mean']:.4f}", f"[{s['ci_low']:.4f}, {s['ci_high']:.4f}]"]
        if pair is None:
            return cells + ["", "", "", ""]
        star = "*" if pair["significant"] else ""
        return cells + [f"{pair['diff']:+.4f}{star}", fmt_p(pair["p"]), fmt_p(pair["p_adjusted"]),
                        f"{pair['wins']}/{pair['ties']}/{pair['losses']}"]

    def _header(self):
        return ["run", "mean", "95% CI", "Δ vs " + self._against(), "p", "p adj", "W/T/L"]

    def _against(self):
        bases = {p["baseline"] for ps in self.pairs.values() for p in ps}
        return next(iter(bases)) if len(bases) == 1 else "baseline"

    def to_text(self) -> str:
        """A plain-text table per metric."""
        out = [f"{self._method()}, * = p adj < {self.alpha}"]
        for m, rows in self._rows():
            table = [self._header()] + [[r] + self._cells(s, pair, p_text) for r, s, pair in rows]
            widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
            n = self.summary[m][self.runs[0]]["n"]
            out.append(f"\n{m} ({n} queries)")
            out.extend("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in table)
            pairs = self._all_pairs(m)
            if pairs:
                table = [self._PAIR_HEADER] + pairs
                widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
                out.append("")
                out.extend("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in table)
        return "\n".join(out)

    def to_markdown(self) -> str:
        """A Markdown table per metric; run and metric names escaped (a ``|`` would add a cell, ``<b>`` be HTML)."""
        def esc(text):
            return _MARKDOWN_SPECIAL.sub(r"\\\g<0>", text)

        out = []
        for m, rows in self._rows():
            out.append(f"**{esc(m)}** ({self.summary[m][self.runs[0]]['n']} queries; {esc(self._method())})\n")
            out.append("| " + " | ".join(esc(h) for h in self._header()) + " |")
            out.append("|" + "---|" * len(self._header()))
            out.extend("| " + " | ".join([esc(r)] + [esc(c) for c in self._cells(s, pair, p_text)]) + " |"
                       for r, s, pair in rows)
            pairs = self._all_pairs(m)
            if pairs:
                out.append("")
                out.append("| " + " | ".join(esc(h) for h in self._PAIR_HEADER) + " |")
                out.append("|" + "---|" * len(self._PAIR_HEADER))
                out.extend("| " + " | ".join(esc(c) for c in row) + " |" for row in pairs)
            out.append("")
        return "\n".join(out).rstrip() + "\n"

    def to_latex(self) -> str:
        """A LaTeX ``tabular`` per metric (booktabs rules); every character LaTeX reads as markup escaped."""
        def esc(text):
            return _LATEX_SPECIAL.sub(lambda m: _LATEX_ESCAPES[m.group(0)], text)

        out = []
        for m, rows in self._rows():
            out.append(f"% {esc(m)}: {self.summary[m][self.runs[0]]['n']} queries, {esc(self._method())}")
            out.append(r"\begin{tabular}{lllllll}")
            out.append(r"\toprule")
            out.append(" & ".join(esc(h) for h in self._header()) + r" \\")
            out.append(r"\midrule")
            out.extend(" & ".join(esc(c) for c in [r] + self._cells(s, pair, p_text)) + r" \\"
                       for r, s, pair in rows)
            out.append(r"\bottomrule")
            out.append(r"\end{tabular}")
            pairs = self._all_pairs(m)
            if pairs:
                out.append(r"\begin{tabular}{lllll}")
                out.append(r"\toprule")
                out.append(" & ".join(esc(h) for h in self._PAIR_HEADER) + r" \\")
                out.append(r"\midrule")
                out.extend(" & ".join(esc(c) for c in row) + r" \\" for row in pairs)
                out.append(r"\bottomrule")
                out.append(r"\end{tabular}")
        return "\n".join(out) + "\n"

    def __str__(self) -> str:
        return self.to_text()


def _breaks_ties_by_docid(spec: str) -> bool:
    name, _, variant = parse_metric(spec)
    return name in ("p", "recall", "mrr", "rprec") or (name in ("ndcg", "map") and variant == "trec")


def metric_table(y, qid, runs: dict, metrics: Sequence[str], docid=None) -> dict:
    """``{run: {metric: value}}`` plus the number of queries AUC was defined on.

    Parameters
    ----------
    y, qid : array-like
        Labels and query ids of the rows.
    runs : dict of str to array-like
        Scores of each run, aligned with ``y``.
    metrics : sequence of str
        :func:`boostrank.get_metric` names.
    docid : array-like of str, default=None
        trec_eval's metrics (``p@k``, ``ndcg@k:trec``, ``map:trec``) then break score
        ties by document id descending, as trec_eval does.
    """
    fns = [(m, get_metric(m)) for m in metrics]
    offsets = group_offsets(np.shape(y)[0], qid=qid)
    yy = np.asarray(y)
    table = {}
    for name, scores in runs.items():
        ss = np.asarray(scores, dtype=np.float64)
        yt, st = trec_ties(yy, ss, offsets, docid) if docid is not None else (yy, ss)
        with warnings.catch_warnings():
            if docid is not None:  # the rows are in docid order already: the ties are broken as trec_eval does
                warnings.simplefilter("ignore", TieWarning)
            row = {m: float(fn.from_offsets(yt, st, offsets) if _breaks_ties_by_docid(m) else
                            fn.from_offsets(yy, ss, offsets)) for m, fn in fns}
        row["queries_with_auc"] = int(np.count_nonzero(~np.isnan(auc(y, scores, GroupOffsets(offsets),
                                                                       per_query=True))))
        table[name] = row
    return table


def format_table(table: dict, metrics: Sequence[str]) -> str:
    """Plain-text table of :func:`metric_table`, one run per row."""
    head = ["run"] + list(metrics)
    width = max([len(r) for r in table] + [3])
    lines = [f"{head[0]:<{width}}  " + "  ".join(f"{m:>9}" for m in metrics)]
    for name, row in table.items():
        lines.append(f"{name:<{width}}  " + "  ".join(f"{row[m]:>9.4f}" for m in metrics))
    return "\n".join(lines)
