"""boostrank command line.

Commands:
  demo        run the package end to end on the bundled sample (or your LETOR files)
  evaluate    metrics of runs against TREC qrels, or of score files on a LETOR file
  compare     compare runs with paired significance tests
  trec_eval   trec_eval's own command line: its arguments in, its output out
  fuse        fuse runs into one (CombSUM, RRF, ...)
  train       train a gradient-boosted ranker (LightGBM or XGBoost) with a λ objective
  predict     score a LETOR file with a saved model
  fit-linear  fit a linear ranker (RankNCG) and save it as JSON
  rerank      re-rank the top K of each list with an exact MIP
  warmup      compile the Numba kernels into the cache ahead of time (images, CI)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from typing import Sequence

import numpy as np

from .io.files import check_out as _check_out, write_stdout as _write_stdout
from .io.files import write_atomic as _write_atomic
from .exceptions import LetorFormatError
from .metrics.arrays import LETOR_METRICS, get_metric, parse_metric

#: the metrics of LETOR labels (the train, predict, rerank and demo commands, and evaluate/compare with --data)
DEFAULT_METRICS = LETOR_METRICS
#: the metrics of qrels: trec_eval's usual set (boostrank.evaluation.evaluate.DEFAULT_METRICS)
QRELS_METRICS = "map,ndcg_cut_10,P_10,recall_100,recip_rank"
METRICS_HELP = ("comma list of name[@k][:variant]: auc, mauc, wmw, ndcg, map, p (trec_eval P_k), "
                "mcp (Welleck's multi-class precision), err (RankLib ERR@k)")
JUDGED_METRICS_HELP = (f"comma list of metrics; default {QRELS_METRICS} with --qrels (trec_eval's usual), "
                       f"{DEFAULT_METRICS} with --data.  trec_eval's names and families (bpref, success, "
                       f"iprec_at_recall, all_trec, ...) or " + METRICS_HELP.replace("comma list of ", ""))


def _positive(text: str) -> float:
    """argparse type: a finite number > 0 (NaN, inf and negative budgets or tolerances are contradictions)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text}")
    return value


def _split_metrics(text: str, trec: bool = False) -> list[str]:
    """Comma-separated metric names, checked; ``trec``: trec_eval's measures and families too (spelled out)."""
    names = [m.strip() for m in text.split(",") if m.strip()]
    if trec:
        from .evaluation.measures import expand, trec_measure

        names = [name for m in names for name in expand(m)]
    for m in names:
        if not (trec and trec_measure(m) is not None):
            get_metric(m)
    return names


def _load(args, path, **kw):
    """load_letor with the command's ``--zero-based`` choice."""
    from .io.letor import load_letor  # scipy.sparse: loaded by the commands that read LETOR files only

    return load_letor(path, zero_based={"auto": "auto", "true": True, "false": False}[args.zero_based], **kw)


def _save_scores(out, scores) -> None:
    if not np.isfinite(scores).all():
        raise ValueError(f"the model produced {int((~np.isfinite(scores)).sum())} NaN/inf scores; nothing written")
    _write_atomic(out, lambda tmp: np.savetxt(tmp, scores, fmt="%.17g"))


def _once_each(paths) -> None:
    twice = next((p for i, p in enumerate(paths) if p in paths[:i]), None)
    if twice is not None:
        raise ValueError(f"run file {twice} is named twice")


def _load_runs(paths) -> dict:
    """Run files by name: a run's tag, as trec_eval names it; its path when it has none or shares it."""
    from .evaluation import load_run

    _once_each(paths)
    runs = [load_run(p) for p in paths]
    tags = [r.name if r.name != os.path.basename(p) else None for r, p in zip(runs, paths)]
    names = [t if t is not None and tags.count(t) == 1 else p for t, p in zip(tags, paths)]
    if len(set(names)) < len(names):  # a tag that is another run's path
        names = list(paths)
    for run, name in zip(runs, names):
        run.name = name
    return dict(zip(names, runs))


def _judgements_and_runs(args):
    """The judgements (qrels or a LETOR file) and the named runs of ``evaluate``/``compare``."""
    from .evaluation import load_qrels, read_scores

    if (args.qrels is None) == (args.data is None):
        raise ValueError("give the judgements as --qrels FILE (TREC qrels) or --data FILE (LETOR), one of them")
    paths = list(args.runs) + list(args.scores or [])
    if not paths:
        raise ValueError("name the runs to evaluate (run files after the options, or --scores with --data)")
    if args.qrels is not None:
        return load_qrels(args.qrels), _load_runs(paths)
    _once_each(paths)
    names = list(paths)
    data = _load(args, args.data, allow_nonfinite=args.allow_nonfinite)
    report = (lambda note: print(f"boostrank {args.command}: warning: {note}", file=sys.stderr))
    runs = {n: read_scores(p, data, args.score_column, format=args.format, report=report)
            for n, p in zip(names, paths)}
    return data, runs


def _print_per_query(per: dict, means: dict, name: str, several: bool) -> None:
    """trec_eval ``-q``: ``measure<TAB>qid<TAB>value`` per query, then the ``all`` lines (counts as integers; the
    geometric means and num_q on the ``all`` line only, as trec_eval prints them).  Several runs follow one
    another, each summary opened by its ``runid`` line, so that every line keeps trec_eval's three fields."""

    def value(m, v):
        return f"{v:.0f}" if m.startswith("num_") else f"{v:.4f}"

    queries = list(next(iter(per.values())))
    for q in queries:
        for m in per:
            if not m.startswith("gm_") and m != "num_q":
                print(f"{m:<22}\t{q}\t{value(m, per[m][q])}")
    if several:
        print(f"{'runid':<22}\tall\t{name}")
    for m in per:
        print(f"{m:<22}\tall\t{value(m, means[m])}")


def _trec_options(args) -> dict:
    """trec_eval's -c, -M, -l and version, as :func:`boostrank.evaluate` takes them (qrels only)."""
    options = dict(complete=args.complete, depth=args.depth, relevance_level=args.relevance_level,
                   version=args.trec_eval)
    if args.qrels is None and options != dict(complete=False, depth=None, relevance_level=1, version="10"):
        raise ValueError("-c, -M, -l and --trec-eval are trec_eval's options: they apply with --qrels")
    return options


def _judged_metrics(args) -> list[str]:
    default = QRELS_METRICS if args.qrels is not None else DEFAULT_METRICS
    return _split_metrics(args.metrics or default, trec=True)


def _convention(args) -> str:
    """The line that says whose rules a table follows."""
    if args.qrels is not None:
        return (f"trec_eval {args.trec_eval}'s rules on {args.qrels}: ties by docno, unjudged documents non-relevant, "
                f"queries in both the qrels and the run" + (" and the qrels' others as 0" if args.complete else ""))
    return (f"LightGBM's conventions on the labels of {args.data}: a query without a relevant document scores 1 in "
            f"ndcg/map (add :trec for trec_eval's 0)")


def cmd_evaluate(args) -> int:
    from .evaluation.report import format_table, metric_table  # evaluation's kernels: not for --help
    from .evaluation.evaluate import evaluate

    metrics = _judged_metrics(args)
    truth, runs = _judgements_and_runs(args)
    options = _trec_options(args)
    if args.plot:
        os.makedirs(args.plot, exist_ok=True)
    if args.per_query or args.qrels is not None:
        from tqdm.auto import tqdm

        table = {}
        # a bar on a terminal once the work has taken 2 s (none in logs, pipes and short evaluations)
        for name, run in tqdm(runs.items(), desc="evaluate", unit="run", delay=2, leave=False, disable=None):
            means = evaluate(truth, run, metrics, **options)
            per = evaluate(truth, run, metrics, per_query=True, **options) if args.per_query else None
            table[name] = means
            if args.per_query and not args.json:
                _print_per_query(per, means, name, len(runs) > 1)
            if args.json and args.per_query:
                table[name] = {"mean": means, "per_query": per}
            if args.plot:
                _plot_roc(args, truth, run, name, _figure_parts(runs)[name])
        if args.json:
            print(json.dumps({"convention": _convention(args), "runs": table}, indent=2, allow_nan=True))
        elif not args.per_query:
            print(_convention(args))
            print(format_table(table, metrics))
        return 0
    data = truth
    # trec_eval breaks score ties by docno: so do its metrics here when every row has one
    complete = data.docid is not None and all(d is not None for d in data.docid)
    table = metric_table(data.y, data.qid, runs, metrics, docid=data.docid if complete else None)
    if args.plot:
        part = _figure_parts(runs)
        for name, scores in runs.items():
            _plot_roc(args, data, scores, name, part[name])
    if args.json:
        print(json.dumps({"data": args.data, "n_rows": len(data), "n_queries": data.n_queries,
                          "convention": _convention(args), "runs": table}, indent=2))
    else:
        print(f"{args.data}: {len(data)} rows, {data.n_queries} queries")
        print(_convention(args))
        print(format_table(table, metrics))
    return 0


def _safe(name: str) -> str:
    """A file-name part from a run's name."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name.replace(os.sep, "/"))


def _figure_parts(names) -> dict:
    """A distinct file-name part per run name: its last path part, or its whole path where two share the last
    part (``dirA/run.txt``, ``dirB/run.txt``), numbered where even those meet, so no figure replaces another."""
    names = list(names)
    short = [_safe(os.path.basename(n)) for n in names]
    parts = [s if short.count(s) == 1 else _safe(n.strip(os.sep)) for n, s in zip(names, short)]
    return {n: p if parts.count(p) == 1 else f"{p}-{i + 1}" for i, (n, p) in enumerate(zip(names, parts))}


def _plot_roc(args, truth, run, name, part: str) -> None:
    from .evaluation.plots import plot_roc

    path = os.path.join(args.plot, f"roc-{part}.png")
    try:
        plot_roc(truth, run, path)
    except ValueError as exc:  # no query with both classes: nothing to draw, said once
        print(f"boostrank {args.command}: note: no ROC for {name}: {exc}", file=sys.stderr)
        return
    print(f"wrote {path}", file=sys.stderr)


def cmd_compare(args) -> int:
    from .evaluation import compare

    metrics = _judged_metrics(args)
    truth, runs = _judgements_and_runs(args)
    options = _trec_options(args)
    if len(runs) < 2:
        raise ValueError("compare needs at least two runs")
    baseline = args.baseline
    if baseline is not None and baseline not in runs:  # a run's path, or its file name, names it too
        match = [n for n, r in runs.items() if baseline in (getattr(r, "source", n), os.path.basename(
            getattr(r, "source", n)))]
        if not match:
            raise ValueError(f"--baseline {baseline} is not one of the runs {list(runs)}")
        baseline = match[0]
    result = compare(truth, runs, metrics, baseline=baseline, test=args.test,
                     correction=None if args.correction == "none" else args.correction, alpha=args.alpha,
                     n_resamples=args.n_resamples, random_state=args.seed, **options)
    if args.report != "json":
        print(_convention(args))
    print({"text": result.to_text, "markdown": result.to_markdown, "latex": result.to_latex,
           "json": result.to_json}[args.report]().rstrip("\n"))
    if args.plot:
        from .evaluation.plots import plot_differences, plot_systems

        os.makedirs(args.plot, exist_ok=True)
        written = [os.path.join(args.plot, "systems.png")]
        plot_systems(result, written[0])
        part = _figure_parts(runs)
        for m in metrics:
            for pair in result.pairs[m]:
                path = os.path.join(args.plot, f"diff-{_safe(m)}-{part[pair['run']]}-vs-{part[pair['baseline']]}.png")
                plot_differences(result, m, path, run=pair["run"], baseline=pair["baseline"])
                written.append(path)
        print("wrote " + ", ".join(written), file=sys.stderr)
        if any(parse_metric(m)[0] in ("auc", "mauc", "wmw") for m in metrics):
            for name, run in runs.items():
                _plot_roc(args, truth, run, name, part[name])
    return 0


def _trained_fusion(args, method, norm):
    """A learned fusion's training: the judgements (--qrels) and the same systems' runs on them (--train)."""
    from .evaluation import load_qrels
    from .evaluation.fusion import optimize_fusion, train_fusion

    if args.qrels is None or not args.train:
        raise ValueError(f"{method} learns from judged training runs: give --qrels (the training judgements) and "
                         f"--train (the same systems' runs on those queries, in the order of the runs to fuse)")
    qrels, train = load_qrels(args.qrels), _load_runs(list(args.train))
    if not args.optimize:
        return train_fusion(qrels, train, method)
    best, trials = optimize_fusion(qrels, train, args.optimize, method, norm=norm)
    if trials:
        value = max(v for _, v in trials)
        chosen = f"n_segments = {best.n_segments}" if method == "probfuse" else f"w = {best.w}"
        print(f"boostrank fuse: {chosen} gives {args.optimize} {value:.4f} on {args.qrels} (best of {len(trials)} "
              f"on a grid)", file=sys.stderr)
    return best


def cmd_fuse(args) -> int:
    from .evaluation.fusion import FUSIONS, PARAMETERS, fuse, method_of, optimize_fusion
    from .evaluation import load_qrels, save_run

    _check_out(args.out, *args.runs, args.qrels, *(args.train or []), option="--out")
    method = method_of(args.method or ("wsum" if args.optimize else "rrf"))
    runs = _load_runs(list(args.runs))
    if len(runs) < 2:
        raise ValueError("fuse needs at least two runs")
    norm = None if args.norm == "none" else args.norm
    weights = None if args.weights is None else [float(w) for w in args.weights.split(",")]
    params = {"k": args.k, "gamma": args.gamma, "sigma": args.sigma, "phi": args.phi}
    if FUSIONS[method] == "learned":
        params = {"trained": _trained_fusion(args, method, norm)}
    elif args.train:
        raise ValueError(f"--train is for the learned fusions (probfuse, segfuse, ...), not {method}")
    elif args.optimize:
        if args.qrels is None:
            raise ValueError("--optimize needs --qrels (the judgements the weights are chosen on)")
        best, trials = optimize_fusion(load_qrels(args.qrels), runs, args.optimize, method, norm=norm,
                                       step=args.step, k=args.k)
        value = max(v for _, v in trials)
        if method in PARAMETERS:
            params[PARAMETERS[method][0]] = best
            chosen = f"{PARAMETERS[method][0]} = {best:g}"
        else:
            weights = best
            chosen = "weights " + ", ".join(f"{n}={w:.3g}" for n, w in zip(runs, weights))
        print(f"boostrank fuse: {chosen} gives {args.optimize} {value:.4f} on {args.qrels} (best of {len(trials)} "
              f"on a grid)", file=sys.stderr)
    fused = fuse(runs, method, norm=norm, weights=weights, name=args.run_tag or method, **params)
    save_run(args.out, fused)
    print(f"wrote {args.out}: {len(fused)} documents for {len(fused.queries)} queries ({method} of "
          f"{', '.join(runs)})", file=sys.stderr)
    return 0


def cmd_warmup(args) -> int:
    from .precompile import warmup

    only = [g.strip() for g in args.only.split(",") if g.strip()] if args.only else None
    seconds = warmup(only, n_jobs=args.n_jobs)
    print("compiled into Numba's cache: " + ", ".join(f"{name} {t:.1f} s" for name, t in seconds.items()))
    return 0


def cmd_demo(args) -> int:
    from . import demo

    demo.compile_first()
    if args.train:
        train = _load(args, args.train)
        test = _load(args, args.test or args.train, n_features=train.n_features)
        where = f"{args.test or args.train}"
    else:
        from .io.datasets import load_sample

        train, test = load_sample()
        where = "the bundled sample's test split"
    return demo.run(train, test, where, _split_metrics(args.metrics), rounds=args.rounds, rerank_k=args.rerank_k,
                    time_limit=args.time_limit, as_json=args.json)


def _engine_param(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected key=value, got {text!r}")
    for cast in (int, float):
        try:
            return key, cast(value)
        except ValueError:
            pass
    return key, value


def cmd_train(args) -> int:
    from .evaluation.report import format_table, metric_table  # evaluation's kernels: not for --help
    from .ranker import LambdaRanker

    _check_out(args.out, args.train, args.valid)
    if args.valid and args.validation_fraction is not None:
        raise ValueError("--validation-fraction holds out training queries only without --valid; pass one of them")
    train = _load(args, args.train)
    valid = _load(args, args.valid, n_features=train.n_features) if args.valid else None
    params = dict(args.param or [])
    for key in ("num_leaves", "max_depth"):
        if getattr(args, key) is not None:
            params[key] = getattr(args, key)
    position = _positions(args.position, train) if args.position else None
    model = LambdaRanker(
        engine=args.engine, objective=args.objective, n_estimators=args.rounds,
        link=args.link, method=args.method, learning_rate=args.learning_rate, anchor=args.anchor,
        anchor_form=args.anchor_form, position_bias=args.position_bias,
        eval_metric=_split_metrics(args.eval_metric) if args.eval_metric else None,
        early_stopping_rounds=args.early_stopping or None,
        validation_fraction=0.2 if args.validation_fraction is None else args.validation_fraction,
        random_state=args.seed, n_jobs=args.threads, verbose=not args.quiet, **params)
    evals = {}
    if valid is not None:
        evals = dict(eval_set=[(valid.X, valid.y)], eval_qid=[valid.qid])
    model.fit(train.X, train.y, qid=train.qid, position=position, **evals)
    _write_atomic(args.out, model.save_model)
    best = "" if model.best_iteration_ is None else f" (best iteration {model.best_iteration_})"
    print(f"{args.engine} model with objective {args.objective}{best} written to {args.out}")
    if valid is not None:
        metrics = _split_metrics(args.metrics)
        table = metric_table(valid.y, valid.qid, {args.valid: model.predict(valid.X)}, metrics)
        print(format_table(table, metrics))
    return 0


def _positions(spec: str, train) -> np.ndarray:
    """``--position``: a file of one 0-based display rank per training row (LightGBM's ``.position`` file), or the
    1-based number of a feature of the training file that holds them, which then trains as a constant (no
    position is a feature where the model scores; the files keep their columns)."""
    if os.path.exists(spec):
        from .io.files import read_bytes

        lines = read_bytes(spec).decode("utf-8", "replace").split()
        try:
            position = np.array([int(v) for v in lines], dtype=np.int64)
        except ValueError:
            raise ValueError(f"--position {spec}: one integer display rank per line") from None
        if position.shape[0] != train.y.shape[0]:
            raise ValueError(f"--position {spec} holds {position.shape[0]} ranks for {train.y.shape[0]} training rows")
        return position
    if not spec.isdigit() or not 1 <= int(spec) <= train.n_features:
        raise ValueError(f"--position is a file of ranks or a feature number 1 … {train.n_features}, got {spec!r}")
    j = int(spec) - 1
    column = train.X[:, j]
    position = np.asarray(column.todense() if hasattr(column, "todense") else column, dtype=np.float64).ravel()
    train.X[:, j] = 0.0
    return position


def cmd_fit_linear(args) -> int:
    from .linear.rankncg import RankNCG

    _check_out(args.out, args.train)
    train = _load(args, args.train)
    qid = None if args.no_qid else train.qid
    model = RankNCG(alpha=args.alpha, link=args.link, method=args.method, eps=args.eps, tol=args.tol,
                    max_iter=args.max_iter, verbose=2 if args.verbose else 0)
    model.fit(train.X, train.y, qid=qid)
    _write_atomic(args.out, model.save_model)
    print(f"RankNCG ({args.link} link, {args.method} sums): {model.n_iter_} CG iterations over {model.n_pairs_} pairs; "
          f"training WMW {model.score(train.X, train.y, qid=qid):.4f}; written to {args.out}")
    return 0


def cmd_rerank(args) -> int:
    from .evaluation.report import format_table, metric_table  # evaluation's kernels: not for --help
    from .rerank import TopKReranker, refit_estimator

    started = time.monotonic()
    _check_out(args.out, args.train, args.test, args.train_scores, args.test_scores, args.base_model)
    train = _load(args, args.train)
    test = _load(args, args.test, n_features=train.n_features)
    q_train = None if args.no_qid else train.qid
    q_test = None if args.no_qid else test.qid
    if args.base_model:
        if args.train_scores or args.test_scores:
            raise ValueError("pass --base-model or --train-scores/--test-scores, not both")
        from .io.models import load_model  # scikit-learn and the engines: not for --help or --version

        base_model = load_model(args.base_model)
        print(f"cross-fitting the base model's kind over {args.cv} folds of training queries, and nested over the "
              f"gate's ...", flush=True)
        base = refit_estimator(base_model)
        if args.threads is not None and "n_jobs" in base.get_params():
            base.set_params(n_jobs=args.threads)  # --threads is every stage's, not the solver's alone
        # the re-ranker fits the base itself, so its gate sees the base as the saved model scores the test lists
        s_train = None
        s_test = np.asarray(base_model.predict(test.X), dtype=np.float64)
    else:
        from .evaluation import read_scores

        if not (args.train_scores and args.test_scores):
            raise ValueError("pass --base-model, or both --train-scores and --test-scores")
        s_train = read_scores(args.train_scores, train, args.score_column)
        s_test = read_scores(args.test_scores, test, args.score_column)
    statistic, a = ("auc", None) if args.statistic == "auc" else ("rank_risk", args.statistic)
    if args.k < 0:
        raise ValueError(f"--k must be >= 0, got {args.k}")
    l0 = args.l0 if args.l0 == "cv" else float(args.l0)
    left = max(args.time_limit - (time.monotonic() - started), 0.1 * args.time_limit)
    model = TopKReranker(k=args.k, objective=statistic, a=a, rank=args.rank, l0=l0, margin=args.margin,
                         solver=args.solver, time_limit=left, n_jobs=args.threads, gate=args.gate,
                         base_estimator=base if args.base_model else None, cv=args.cv,
                         verbose=2 if args.verbose else 1)  # the command shows its progress; --verbose: solver logs
    model.fit(train.X, train.y, base_scores=s_train, qid=q_train,
              group=[len(train)] if q_train is None else None)  # --no-qid: one list, on purpose
    s_train = model._train_base
    print(f"top {args.k} of each training list: {model.result_.summary()}")
    repeatable, why = model.result_.repeatable
    if not repeatable:
        print(f"note: another run may differ: {why}")
    metrics = _split_metrics(args.metrics)
    label = "out-of-fold" if args.base_model else "as given"
    tr_runs = {f"train: base ({label})": s_train,
               f"train: re-ranked top {args.k}": model.predict(train.X, s_train, qid=q_train)}
    new = model.predict(test.X, s_test, qid=q_test)
    te_runs = {"test: base": s_test, f"test: re-ranked top {args.k}": new}
    print(format_table(metric_table(train.y, train.qid, tr_runs, metrics), metrics))
    print(format_table(metric_table(test.y, test.qid, te_runs, metrics), metrics))
    if args.out:
        _save_scores(args.out, new)
        print(f"{len(new)} scores written to {args.out}")
    return 0


def cmd_predict(args) -> int:
    from .evaluation.report import format_table, metric_table  # evaluation's kernels: not for --help
    if args.out and args.trec and os.path.realpath(args.out) == os.path.realpath(args.trec):
        raise ValueError(f"--out and --trec both name {args.out}: the scores would overwrite the run; name two files")
    _check_out(args.out, args.model, args.data)
    _check_out(args.trec, args.model, args.data, option="--trec")
    from .io.models import load_model

    data = _load(args, args.data, allow_nonfinite=args.allow_nonfinite)
    model = load_model(args.model)
    n_in = getattr(model, "n_features_in_", data.n_features)
    if args.n_features is not None and (args.n_features < data.n_features or args.n_features != n_in):
        raise ValueError(f"--n-features {args.n_features} contradicts "
                         + (f"{args.data}, which has {data.n_features} features" if args.n_features < data.n_features
                            else f"the model, trained on {n_in} features"))
    if data.n_features != n_in and args.n_features == n_in and data.n_features < n_in:
        # the file omits trailing zero features (SVMlight's sparse layout), as the user says
        data = _load(args, args.data, n_features=n_in, allow_nonfinite=args.allow_nonfinite)
    elif data.n_features != n_in:
        hint = (f"; if the file leaves out features that are zero, pass --n-features {n_in}"
                if data.n_features < n_in else "")
        raise ValueError(f"{args.data} has {data.n_features} features but the model was trained on {n_in}{hint}")
    scores = np.asarray(model.predict(data.X), dtype=np.float64)
    if not np.isfinite(scores).all():
        raise ValueError(f"the model produced {int((~np.isfinite(scores)).sum())} NaN/inf scores; nothing written")
    if args.trec:
        from .evaluation import Run, save_run

        if data.docid is None or any(d is None for d in data.docid):
            raise ValueError(f"{args.data} has rows without a '# docid = ...' comment: a TREC run names each "
                             f"document (use --out for plain scores)")
        save_run(args.trec, Run(data.qid.astype(str), data.docid, scores, name=args.run_tag), tag=args.run_tag)
        print(f"run {args.run_tag} of {len(scores)} documents, {data.n_queries} queries written to {args.trec}")
        if not args.out:
            return 0
    if args.out:
        _save_scores(args.out, scores)
        print(f"{len(scores)} scores written to {args.out}")
    else:
        _write_stdout("".join(f"{s!r}\n" for s in scores.tolist()))
        return 0
    metrics = _split_metrics(args.metrics)
    print(format_table(metric_table(data.y, data.qid, {args.data: scores}, metrics), metrics))
    return 0


class _Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults in every option's help that has one to tell; descriptions keep their line breaks."""

    def _get_help_string(self, action):
        text = action.help or ""
        # no "(default: None)" after a required option, a flag or a help that names its own default
        if action.default in (None, False) or action.required or "(default" in text:
            return text
        return super()._get_help_string(action)


_DEBUG_HELP = "on an error, print the traceback above the one-line message (for a bug report)"


def build_parser() -> argparse.ArgumentParser:
    """The ``boostrank`` argument parser (nine subcommands)."""
    from . import __version__

    parser = argparse.ArgumentParser(prog="boostrank", description=__doc__, formatter_class=_Formatter)
    parser.add_argument("--version", action="version", version=f"boostrank {__version__}")
    parser.add_argument("--debug", action="store_true", help=_DEBUG_HELP)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name, text):
        cmd = sub.add_parser(name, help=text, description=text, formatter_class=_Formatter)
        cmd.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=_DEBUG_HELP)
        cmd.add_argument("--zero-based", choices=["auto", "true", "false"], default="false",
                         help="feature indices of the LETOR files start at 0 (scikit-learn's dump_svmlight_file "
                              "writes them so); auto: when some index is 0")
        return cmd

    warm = sub.add_parser("warmup", help="compile the Numba kernels into the cache ahead of time (images, CI)",
                          description="compile the Numba kernels into Numba's on-disk cache ahead of time, so the "
                                      "first metric, objective round or MIP fit of later processes loads them "
                                      "instead of compiling (a fresh install: about 40 s on 2 cores, its groups "
                                      "in parallel processes)",
                          formatter_class=_Formatter)
    warm.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=_DEBUG_HELP)
    warm.add_argument("--only", help="comma list of groups to compile: metrics, trec, objectives, rankncg, mip")
    warm.add_argument("--n-jobs", type=int, default=None,
                      help="processes compiling groups side by side (default: one per CPU, at most one per group)")
    warm.set_defaults(func=cmd_warmup)

    demo = command("demo", "run the package end to end on the bundled sample (or your LETOR files)")
    demo.add_argument("--train", help="LETOR training file (default: the bundled sample)")
    demo.add_argument("--test", help="LETOR test file (default: the training file)")
    demo.add_argument("--metrics", default=DEFAULT_METRICS, help=METRICS_HELP)
    demo.add_argument("--rounds", type=int, default=100, help="boosting rounds")
    demo.add_argument("--rerank-k", type=int, default=3, help="rows per query the last step re-ranks")
    demo.add_argument("--time-limit", type=_positive, default=None,
                      help="seconds the re-ranker may take at most (default: no cap; each of its stages ends by "
                           "a count of work, so every run prints the same table)")
    demo.add_argument("--json", action="store_true", help="also print the results as JSON")
    demo.set_defaults(func=cmd_demo)

    def judged(cmd):
        cmd.add_argument("runs", nargs="*", metavar="RUN",
                         help="TREC run files (with --qrels), or score / run files of the --data rows")
        cmd.add_argument("--qrels", help="TREC qrels file (qid iter docno rel): judgements as trec_eval takes them")
        cmd.add_argument("--data", help="LETOR / SVMlight file with qid (and # docid = ... for runs): judgements "
                                        "as labels of its rows")
        cmd.add_argument("--scores", nargs="+", default=[],
                         help="with --data: score files (one score per line, in the data's row order) or TREC "
                              "run files (matched by qid and docid)")
        cmd.add_argument("--format", choices=["auto", "scores", "trec"], default="auto",
                         help="with --data: score file format; auto reads six-field lines as a TREC run")
        cmd.add_argument("--score-column", type=int, default=None,
                         help="0-based column of a multi-column score file (default: the last)")
        cmd.add_argument("--metrics", default=None, help=JUDGED_METRICS_HELP)
        cmd.add_argument("--allow-nonfinite", action="store_true", help="accept NaN/inf features")
        cmd.add_argument("--plot", metavar="DIR", help="also write figures (PNG) into DIR")
        cmd.add_argument("-c", "--complete", action="store_true",
                         help="average over every qrels query, one the run lacks scoring 0 (trec_eval -c)")
        cmd.add_argument("-M", "--depth", type=int, default=None, metavar="N",
                         help="score each query's first N documents (trec_eval -M)")
        cmd.add_argument("-l", "--relevance-level", type=int, default=1, metavar="N",
                         help="grades from N up are relevant (trec_eval -l)")
        cmd.add_argument("--trec-eval", choices=["10", "9"], default="10",
                         help="whose rules: trec_eval 10.0's, or 9.x's (scores compared as float32, as "
                              "pytrec_eval computes)")

    ev = command("evaluate", "metrics of runs against TREC qrels, or of score files on a LETOR file")
    judged(ev)
    ev.add_argument("-q", "--per-query", action="store_true", help="each query's values, as trec_eval -q")
    ev.add_argument("--json", action="store_true", help="print JSON instead of a table")
    ev.set_defaults(func=cmd_evaluate)

    sub.add_parser("trec_eval", add_help=False, help="trec_eval's own command line: boostrank trec_eval [-q] "
                   "[-m measure]... [-c] [-M n] [-l n] [-J] [-n] qrels run ('-h' for all)")

    cp = command("compare", "compare runs with paired significance tests (means, confidence intervals, p-values)")
    judged(cp)
    cp.add_argument("--baseline", help="compare each run with this one (default: all pairs)")
    cp.add_argument("--test", choices=["t", "wilcoxon", "randomization", "bootstrap", "tukey"], default="t",
                    help="paired two-sided test over queries; tukey: Tukey's HSD over all runs at once (its p-values "
                         "allow for every pair, no --correction)")
    cp.add_argument("--correction", choices=["holm", "bonferroni", "none"], default="holm",
                    help="multiple-comparison adjustment over each metric's comparisons")
    cp.add_argument("--alpha", type=float, default=0.05, help="significance level of the adjusted p-values")
    cp.add_argument("--n-resamples", type=int, default=10_000,
                    help="randomization test: exact below 2^n_queries <= this, sampled above; bootstrap: resamples")
    cp.add_argument("--seed", type=int, default=0, help="seed of the sampled randomization test")
    cp.add_argument("--report", choices=["text", "markdown", "latex", "json"], default="text",
                    help="report format")
    cp.set_defaults(func=cmd_compare)

    fu = command("fuse", "fuse runs into one: score fusions (CombSUM, CombMNZ, ...) and rank fusions (RRF, Borda, ...)")
    fu.add_argument("runs", nargs="+", metavar="RUN", help="TREC run files")
    fu.add_argument("--method", default=None, help="combsum, combmnz, combanz, combmax, combmin, combmed, wsum, "
                                                   "wmnz, gmnz, mixed, rrf, borda, w_bordafuse, isr, log_isr, "
                                                   "logn_isr, rbc, condorcet or w_condorcet (default: rrf; wsum "
                                                   "with --optimize); learned from --train runs on --qrels: "
                                                   "probfuse, segfuse, posfuse, slidefuse, mapfuse, bayesfuse; "
                                                   "ranx's names too (sum, mnz, bordafuse, ...)")
    fu.add_argument("--norm", choices=["min-max", "max", "sum", "zmuv", "rank", "borda", "none"], default="min-max",
                    help="normalisation of each run's scores per query before a score fusion")
    fu.add_argument("--weights", help="comma list, one per run (default: all 1)")
    fu.add_argument("--k", type=float, default=60.0, help="RRF's constant")
    fu.add_argument("--gamma", type=float, default=1.0, help="gmnz's exponent")
    fu.add_argument("--sigma", type=float, default=0.01, help="logn_isr's sigma")
    fu.add_argument("--phi", type=float, default=0.8, help="rbc's persistence")
    fu.add_argument("--qrels", help="judgements to choose the weights on (with --optimize)")
    fu.add_argument("--optimize", metavar="METRIC", help="choose the weights that maximise METRIC on --qrels: a "
                                                       "grid over the simplex (wsum unless --method is given); for "
                                                       "rrf, gmnz, logn_isr and rbc their own parameter")
    fu.add_argument("--step", type=float, default=0.1, help="the grid's spacing for --optimize")
    fu.add_argument("--train", nargs="+", metavar="RUN", help="a learned fusion's training runs: the same systems "
                                                             "on the --qrels queries, in the order of RUN ...")
    fu.add_argument("--out", required=True, help="the fused run file (TREC format)")
    fu.add_argument("--run-tag", help="the fused run's tag (default: the method)")
    fu.set_defaults(func=cmd_fuse)

    tr = command("train", "train a gradient-boosted ranker (LightGBM or XGBoost) with a λ objective")
    tr.add_argument("--train", required=True, help="LETOR training file")
    tr.add_argument("--valid", help="LETOR validation file (evaluated every round)")
    tr.add_argument("--out", required=True, help="model file (LightGBM text; XGBoost JSON)")
    tr.add_argument("--engine", choices=["lightgbm", "xgboost"], default="lightgbm", help="boosting engine")
    tr.add_argument("--objective", default="auc",
                    help="auc | mauc | ndcg (boostrank's λ objectives) or the engine's own: lambdarank, "
                         "rank_xendcg, rank:ndcg, rank:pairwise, rank:map")
    tr.add_argument("--link", choices=["auto", "logistic", "probit"], default="auto",
                    help="RankNet link of auc/mauc (auto: probit past 100 pairs of differing labels per row, "
                         "as in one long list); probit allows --method fast")
    tr.add_argument("--method", choices=["exact", "fast", "auto"], default="auto",
                    help="probit link: pair sums, the linear-time erfc series, or fast for lists of "
                         "128+ rows (a file without qid is one list)")
    tr.add_argument("--anchor", type=float, default=None,
                    help="auc/mauc: weight of the pointwise log-loss added to the λs, which learns across queries "
                         "(default: the objective's; 0: the λs alone)")
    tr.add_argument("--anchor-form", choices=["ordinal", "binary"], default="ordinal",
                    help="auc/mauc: the anchor's log-loss over every grade boundary, or on the AUC cut alone")
    tr.add_argument("--position", metavar="COLUMN|FILE",
                    help="click feedback: the rank each training row was shown at (0-based), from a file of one rank "
                         "per line or a feature number of --train (which then trains as a constant); the position "
                         "bias is corrected")
    tr.add_argument("--position-bias", choices=["auto", "propensity", "additive", "none"], default="auto",
                    help="with --position: how the λs correct the position bias")
    tr.add_argument("--rounds", type=int, default=100, help="boosting rounds (at most, with early stopping)")
    tr.add_argument("--learning-rate", type=float, default=0.05, help="shrinkage")
    tr.add_argument("--num-leaves", type=int, default=None, help="leaves per tree (engine default)")
    tr.add_argument("--max-depth", type=int, default=None, help="tree depth (engine default)")
    tr.add_argument("--eval-metric", "--metric", dest="eval_metric", default=None,
                    help="comma list of metrics evaluated on --valid every round; the first drives "
                         "early stopping (default: the objective's)")
    tr.add_argument("--early-stopping", type=int, default=None, metavar="N",
                    help="stop after N rounds without improvement on --valid (without --valid: on a held-out "
                         "--validation-fraction of the training queries); the model keeps the best round "
                         "(default: none, all --rounds are trained)")
    tr.add_argument("--validation-fraction", type=float, default=None,
                    help="share of the training queries held out for --early-stopping when there is no --valid "
                         "(default 0.2; contradicts --valid)")
    tr.add_argument("--param", type=_engine_param, action="append", metavar="KEY=VALUE",
                    help="further engine parameter under the engine's name (repeatable)")
    tr.add_argument("--threads", type=int, default=None, help="engine threads (default: the engine's)")
    tr.add_argument("--seed", type=int, default=None, help="random seed")
    tr.add_argument("--metrics", dest="metrics", default=DEFAULT_METRICS,
                    help="metrics printed for --valid at the end; " + METRICS_HELP)
    tr.add_argument("--quiet", action="store_true", help="no progress bar")
    tr.set_defaults(func=cmd_train)

    pr = command("predict", "score a LETOR file with a saved model")
    pr.add_argument("--model", required=True, help="file written by boostrank train or fit-linear")
    pr.add_argument("--data", required=True, help="LETOR file")
    pr.add_argument("--out", help="score file, one per line (default: print the scores)")
    pr.add_argument("--trec", metavar="RUN", help="also write a TREC run file (qid Q0 docno rank score tag; "
                                                  "docnos from the file's '# docid = ...' comments)")
    pr.add_argument("--run-tag", default="boostrank", help="the tag of the --trec run")
    pr.add_argument("--metrics", default=DEFAULT_METRICS, help="printed when --out is given; " + METRICS_HELP)
    pr.add_argument("--allow-nonfinite", action="store_true", help="accept NaN/inf features")
    pr.add_argument("--n-features", type=int,
                    help="the data's feature count, when its sparse rows leave out trailing zero features")
    pr.set_defaults(func=cmd_predict)

    fl = command("fit-linear", "fit a linear ranker (RankNCG) and save it as JSON")
    fl.add_argument("--model", choices=["rankncg"], default="rankncg", help="linear model")
    fl.add_argument("--train", required=True, help="LETOR training file")
    fl.add_argument("--out", required=True, help="model JSON")
    fl.add_argument("--alpha", type=float, default=1.0, help="λ of the Gaussian prior")
    fl.add_argument("--link", choices=["probit", "logistic"], default="probit",
                    help="probit: Raykar's erfc approximation of the logistic (allows --method fast)")
    fl.add_argument("--method", choices=["auto", "fast", "exact"], default="auto",
                    help="fast: the ε-exact linear-time erfc sums; exact: sums over all pairs; "
                         "auto: exact up to 2 500 pairs per class pair, fast above")
    fl.add_argument("--eps", type=float, default=1e-6, help="accuracy of the fast erfc sums")
    fl.add_argument("--tol", type=_positive, default=1e-3, help="relative gradient norm to stop at")
    fl.add_argument("--max-iter", type=int, default=200, help="conjugate-gradient iterations")
    fl.add_argument("--no-qid", action="store_true", help="pairs across the whole file, not per query")
    fl.add_argument("--verbose", action="store_true", help="print the gradient norm every iteration")
    fl.set_defaults(func=cmd_fit_linear)

    rr = command("rerank", "re-rank the top K of each list with an exact MIP")
    rr.add_argument("--train", required=True, help="LETOR training file")
    rr.add_argument("--test", required=True, help="LETOR test file")
    rr.add_argument("--base-model", help="first-stage model file (LightGBM, XGBoost or boostrank JSON): it scores "
                    "the test rows, and a model of its kind is cross-fitted for the training rows")
    rr.add_argument("--train-scores", help="base ranker's out-of-fold scores of the training rows (or a TREC run)")
    rr.add_argument("--test-scores", help="base ranker's scores of the test rows (or a TREC run)")
    rr.add_argument("--score-column", type=int, default=None,
                    help="0-based column of multi-column score files (default: the last)")
    rr.add_argument("--cv", type=int, default=5, help="cross-fitting folds with --base-model")
    rr.add_argument("--gate", type=int, default=5,
                    help="folds of queries of the held-out gate; 0 keeps the fitted model")
    rr.add_argument("--k", type=int, default=20, help="rows re-ranked per list (0 keeps the base order)")
    rr.add_argument("--statistic", default="dcg@10",
                    help="auc or a rank-risk weight family: dcg@N, local_auc@t, wta, mrr, pnorm@p, wrs")
    rr.add_argument("--rank", choices=["min", "resolved"], default="min", help="rank rule of tied scores")
    rr.add_argument("--l0", default="cv", help="C of the L0 penalty, or cv to choose it")
    rr.add_argument("--margin", "--eps", dest="margin", type=float, default=1e-4,
                    help="score margin that counts as a strict order (--eps: its 0.1 name)")
    rr.add_argument("--solver", choices=["highs", "cbc"], default="highs", help="MIP solver")
    rr.add_argument("--time-limit", type=_positive, default=60.0, help="seconds for the whole fit")
    rr.add_argument("--threads", type=int, default=None, help="solver threads (default: the solver's)")
    rr.add_argument("--no-qid", action="store_true", help="one list per file")
    rr.add_argument("--metrics", default=DEFAULT_METRICS, help=METRICS_HELP)
    rr.add_argument("--verbose", action="store_true", help="stream the solver log")
    rr.add_argument("--out", help="re-ranked test scores, one per line (n − position in its list)")
    rr.set_defaults(func=cmd_rerank)
    return parser


def _closed_pipe() -> int:
    """The reader of standard output went away (``| head``): stop quietly with the status of a C program killed
    by SIGPIPE, the null device under standard output so that Python's flush at exit raises nothing more."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 141


def _exit_now(status: int) -> int:
    """End the process once its output is out, as the C trec_eval does: the output flushed and the exit handlers
    run, but not the interpreter's teardown of every module (a third of a second once Numba's kernels are
    loaded).  For a command that writes nothing but its standard streams; with another Python thread running,
    or without CPython's exit handlers to call, the status is returned for the usual exit."""
    import atexit
    import threading

    if threading.active_count() > 1 or not hasattr(atexit, "_run_exitfuncs"):
        return status
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        status = _closed_pipe()
    try:
        sys.stderr.flush()
    except OSError:  # its reader gone too: nothing more can be said
        pass
    atexit._run_exitfuncs()
    os._exit(status)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``boostrank`` console script."""
    console, argv = argv is None, sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["trec_eval"]:  # trec_eval's own arguments (-m P.5,10 -q -l2 ...), which argparse would reshape
        from .evaluation.trec_eval import main as trec_eval

        try:
            status = trec_eval(argv[1:])
        except BrokenPipeError:
            return _closed_pipe()
        return _exit_now(status) if console else status
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:
        return _closed_pipe()
    except KeyboardInterrupt:
        print(f"boostrank {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - every failure is one line and rc 2; --debug shows the traceback
        if getattr(args, "debug", False):
            import traceback

            traceback.print_exc()
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        kind = "" if isinstance(exc, (LetorFormatError, ValueError, OSError)) else f"{type(exc).__name__}: "
        print(f"boostrank {args.command}: error: {kind}{text}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
