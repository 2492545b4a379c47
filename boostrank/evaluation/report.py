"""A comparison of runs and its reports: plain text, Markdown, LaTeX and JSON, names escaped for each."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field

__all__ = ["Comparison", "p_text"]


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
