"""The ``boostrank`` command line: ``boostrank demo``, ``boostrank evaluate``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Callable, Sequence

import numpy as np

from .data import LetorFormatError, load_letor
from .metrics import auc, get_metric

DEFAULT_METRICS = "ndcg@10,map,auc,mauc,p@5"


def read_scores(path, n_rows: int, column: int | None = None) -> np.ndarray:
    """Scores from a text file: one per line, or one column of a whitespace table.

    Parameters
    ----------
    path : str
    n_rows : int
        Expected number of scores (rows of the LETOR file, in its order).
    column : int, default=None
        0-based column of a multi-column file; default the last column (RankLib's
        ``qid docidx score`` and similar layouts end with the score).
    """
    rows = []
    with open(path, encoding="utf-8") as fh:
        for number, raw in enumerate(fh, start=1):
            fields = raw.split("#", 1)[0].split()
            if not fields:
                continue
            try:
                rows.append(float(fields[-1 if column is None else column]))
            except (ValueError, IndexError):
                raise LetorFormatError(path, number, f"no numeric score in {raw.strip()!r}") from None
    scores = np.asarray(rows, dtype=np.float64)
    if scores.shape[0] != n_rows:
        raise LetorFormatError(path, None, f"has {scores.shape[0]} scores but the data has {n_rows} rows")
    if not np.isfinite(scores).all():
        bad = int(np.flatnonzero(~np.isfinite(scores))[0])
        raise LetorFormatError(path, None, f"score {bad + 1} is NaN or inf")
    return scores


def metric_table(y, qid, runs: dict[str, np.ndarray], metrics: Sequence[str]) -> dict:
    """{run: {metric: value}} plus the number of queries AUC was defined on."""
    fns: list[tuple[str, Callable]] = [(m, get_metric(m)) for m in metrics]
    table = {}
    for name, scores in runs.items():
        row = {m: float(fn(y, scores, qid)) for m, fn in fns}
        row["queries_with_auc"] = int(np.count_nonzero(~np.isnan(auc(y, scores, qid, per_query=True))))
        table[name] = row
    return table


def format_table(table: dict, metrics: Sequence[str]) -> str:
    """Plain-text table, one run per row."""
    head = ["run"] + list(metrics)
    width = max([len(r) for r in table] + [3])
    lines = [f"{head[0]:<{width}}  " + "  ".join(f"{m:>9}" for m in metrics)]
    for name, row in table.items():
        lines.append(f"{name:<{width}}  " + "  ".join(f"{row[m]:>9.4f}" for m in metrics))
    return "\n".join(lines)


def _split_metrics(text: str) -> list[str]:
    names = [m.strip() for m in text.split(",") if m.strip()]
    for m in names:
        get_metric(m)
    return names


def cmd_evaluate(args) -> int:
    data = load_letor(args.data, allow_nonfinite=args.allow_nonfinite)
    metrics = _split_metrics(args.metrics)
    runs = {}
    for path in args.scores:
        runs[path] = read_scores(path, len(data), args.score_column)
    table = metric_table(data.y, data.qid, runs, metrics)
    if args.json:
        print(json.dumps({"data": args.data, "n_rows": len(data), "n_queries": data.n_queries,
                          "runs": table}, indent=2))
    else:
        print(f"{args.data}: {len(data)} rows, {data.n_queries} queries")
        print(format_table(table, metrics))
    return 0


def cmd_demo(args) -> int:
    from sklearn.linear_model import LogisticRegression

    from .datasets import load_sample

    if args.train:
        train = load_letor(args.train)
        test = load_letor(args.test or args.train, n_features=train.n_features)
    else:
        train, test = load_sample()
    metrics = _split_metrics(args.metrics)
    print(f"train: {len(train)} rows / {train.n_queries} queries;  "
          f"test: {len(test)} rows / {test.n_queries} queries;  {train.n_features} features")
    rng = np.random.default_rng(0)
    lr = LogisticRegression(max_iter=1000).fit(train.X, train.y > 0)
    runs = {
        "random": rng.random(len(test)),
        "logistic regression": lr.decision_function(test.X),
    }
    table = metric_table(test.y, test.qid, runs, metrics)
    print(format_table(table, metrics))
    if args.json:
        print(json.dumps(table, indent=2))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="boostrank", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    ev = sub.add_parser("evaluate", help="metrics of score files on a LETOR file")
    ev.add_argument("--data", required=True, help="LETOR / SVMlight file with qid")
    ev.add_argument("--scores", required=True, nargs="+",
                    help="score file(s): one score per line, or columns (see --score-column)")
    ev.add_argument("--score-column", type=int, default=None,
                    help="0-based column of a multi-column score file (default: last)")
    ev.add_argument("--metrics", default=DEFAULT_METRICS,
                    help=f"comma list of name[@k][:variant] (default {DEFAULT_METRICS})")
    ev.add_argument("--allow-nonfinite", action="store_true", help="accept NaN/inf features")
    ev.add_argument("--json", action="store_true", help="print JSON instead of a table")
    ev.set_defaults(func=cmd_evaluate)

    demo = sub.add_parser("demo", help="run the package end to end on the bundled sample")
    demo.add_argument("--train", help="LETOR training file (default: bundled sample)")
    demo.add_argument("--test", help="LETOR test file")
    demo.add_argument("--metrics", default=DEFAULT_METRICS)
    demo.add_argument("--json", action="store_true", help="also print the results as JSON")
    demo.set_defaults(func=cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``boostrank`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (LetorFormatError, ValueError, OSError) as exc:
        print(f"boostrank {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
