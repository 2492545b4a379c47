"""The λ objectives through ``lightgbm.dask`` and ``xgboost.dask`` on a 2-worker LocalCluster."""

import numpy as np
import pandas as pd
import pytest

import boostrank as br

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
bd = pytest.importorskip("boostrank.dask")

# a process cluster per module: seconds of start-up before the first test
pytestmark = pytest.mark.slow

FEATURES = [f"f{j}" for j in range(10)]


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def frame():
    data = br.datasets.make_letor(60, n_features=10, random_state=3)
    df = pd.DataFrame(data.X, columns=FEATURES)
    df["label"] = data.y
    df["qid"] = data.qid
    # Scatter the queries over the input partitions: the helper must regroup them.
    return df.sample(frac=1.0, random_state=0).reset_index(drop=True)


def _rows_by_query(df):
    return {q: g[FEATURES].to_numpy() for q, g in df.groupby("qid", sort=True)}


def test_partition_by_query_keeps_whole_queries_in_row_order(client, frame):
    part = bd.partition_by_query(dd.from_pandas(frame, npartitions=4), "qid").persist()
    pieces = [p.compute() for p in part.to_delayed()]
    seen = set()
    for piece in pieces:
        q = piece["qid"].to_numpy()
        assert np.all(np.diff(q) >= 0)
        assert not (set(q) & seen), "a query is split across partitions"
        seen |= set(q)
    out = pd.concat(pieces)
    assert len(out) == len(frame)
    # Within a query the original row order is kept, so nothing is lost or reordered.
    for q, rows in _rows_by_query(frame).items():
        np.testing.assert_array_equal(out.loc[out["qid"] == q, FEATURES].to_numpy(), rows)
    sizes = bd.group_sizes(part, "qid")
    assert sizes.numblocks[0] == part.npartitions
    assert sizes.sum().compute() == len(frame)


def test_split_query_is_rejected(client, frame):
    ordered = frame.sort_values("qid", kind="stable").reset_index(drop=True)
    ddf = dd.from_pandas(ordered, npartitions=3, sort=False)
    first_rows = [p.compute()["qid"].iloc[0] for p in ddf.to_delayed()[1:]]
    previous_last = [p.compute()["qid"].iloc[-1] for p in ddf.to_delayed()[:-1]]
    if not any(a == b for a, b in zip(first_rows, previous_last)):
        pytest.skip("the chosen split happens to fall on query boundaries")
    with pytest.raises(ValueError, match="partition_by_query"):
        bd.group_sizes(ddf, "qid")


@pytest.mark.parametrize("objective", ["auc", "mauc"])
def test_lightgbm_dask_with_lambda_objective(client, frame, objective):
    """The objective a user hands to ``lightgbm.DaskLGBMRanker``, on whole queries per partition."""
    import lightgbm as lgb

    part = bd.partition_by_query(dd.from_pandas(frame, npartitions=4), "qid").persist()
    model = lgb.DaskLGBMRanker(client=client, objective=br.lightgbm_objective(objective), n_estimators=20,
                               learning_rate=0.1, num_leaves=7, min_child_samples=5, verbose=-1)
    model.fit(part[FEATURES], part["label"], group=bd.group_sizes(part, "qid"))
    local = part.compute()
    pred = model.predict(part[FEATURES]).compute()
    # The same objective on one machine: distributed training must learn as well.
    single = br.LambdaRanker(objective=objective, n_estimators=20, learning_rate=0.1, num_leaves=7,
                             min_child_samples=5)
    single.fit(local[FEATURES].to_numpy(), local["label"].to_numpy(), qid=local["qid"].to_numpy())
    metric = br.auc if objective == "auc" else br.mauc
    dist = metric(local["label"], pred, local["qid"])
    base = metric(local["label"], single.predict(local[FEATURES].to_numpy()), local["qid"])
    # Random scores give ~0.5; the learned model is far above and within 0.02 of one machine.
    assert dist > 0.75 and abs(dist - base) < 0.02


def test_xgboost_dask_with_lambda_objective(client, frame):
    """The objective a user hands to ``xgboost.dask.train``."""
    import xgboost as xgb
    import xgboost.dask  # noqa: F401

    part = bd.partition_by_query(dd.from_pandas(frame, npartitions=4), "qid").persist()
    dtrain = xgb.dask.DaskDMatrix(client, part[FEATURES], part["label"], qid=part["qid"])
    out = xgb.dask.train(client, {"tree_method": "hist", "max_depth": 3, "eta": 0.3, "min_child_weight": 1e-3,
                                  "disable_default_eval_metric": 1},
                         dtrain, num_boost_round=20, obj=br.xgboost_objective("auc"))
    local = part.compute()
    pred = xgb.dask.predict(client, out["booster"], part[FEATURES]).compute()
    single = br.LambdaRanker(engine="xgboost", objective="auc", n_estimators=20, max_depth=3, learning_rate=0.3)
    single.fit(local[FEATURES].to_numpy(), local["label"].to_numpy(), qid=local["qid"].to_numpy())
    dist = br.auc(local["label"], pred, local["qid"])
    base = br.auc(local["label"], single.predict(local[FEATURES].to_numpy()), local["qid"])
    assert dist > 0.9 and abs(dist - base) < 0.05


# ------------------------------------------------------------------ DaskLambdaRanker


def _split_frames(npartitions=(4, 3)):
    data = br.datasets.make_letor(80, n_features=10, random_state=3)
    out = []
    for d, parts in zip((data.take_queries(slice(0, 60)), data.take_queries(slice(60, 80))), npartitions):
        df = pd.DataFrame(d.X, columns=FEATURES)
        df["label"], df["qid"] = d.y, d.qid
        out.append((d, dd.from_pandas(df.sample(frac=1.0, random_state=1).reset_index(drop=True), npartitions=parts)))
    return out


def _per_round_auc(model, X, y, qid, n_rounds):
    """The eval metric of every round computed on the client, one round's trees at a time."""
    out = []
    for r in range(1, n_rounds + 1):
        if model.engine == "lightgbm":
            s = model.booster_.predict(pd.DataFrame(X, columns=FEATURES), num_iteration=r)
        else:
            import xgboost as xgb

            s = model.booster_.predict(xgb.DMatrix(pd.DataFrame(X, columns=FEATURES)), iteration_range=(0, r))
        out.append(br.auc(y, s, qid))
    return np.array(out)


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_dask_lambda_ranker_on_lazy_input_with_early_stopping(client, engine):
    (train, tr), (test, te) = _split_frames()  # lazy, queries scattered over partitions
    kw = dict(engine=engine, n_estimators=40, learning_rate=0.3, early_stopping_rounds=5, random_state=0,
              **({"min_child_samples": 5, "num_leaves": 7} if engine == "lightgbm" else {"max_depth": 3}))
    m = bd.DaskLambdaRanker(**kw).fit(tr[FEATURES], tr["label"], qid=tr["qid"],
                                      eval_set=[(te[FEATURES], te["label"])], eval_qid=[te["qid"]])
    hist = np.array(m.evals_result_["valid_0"]["br_auc"])
    assert m.n_estimators_ == 40 and hist.shape == (40,)
    # the workers' per-round metric (queries whole, summed over partitions) is the client's, to rounding
    np.testing.assert_allclose(hist, _per_round_auc(m, test.X, test.y, test.qid, 40), atol=1e-9)
    best = m.best_iteration_
    assert best == bd._best_round(hist, 5) and hist[best - 1] == hist[:best + 5].max()
    assert m.best_score_ == {"valid_0": {"br_auc": hist[best - 1]}}
    # Dask in, Dask out, row order kept; in-memory rows score the same
    lazy_pred = m.predict(te[FEATURES])
    local = te.compute()
    np.testing.assert_allclose(lazy_pred.compute().to_numpy(), m.predict(local[FEATURES]), rtol=1e-12)
    np.testing.assert_allclose(m.predict(test.X), _per_round_scores(m, test.X, best), rtol=1e-12)
    single = br.LambdaRanker(**kw).fit(train.X, train.y, qid=train.qid, eval_set=[(test.X, test.y)],
                                       eval_qid=[test.qid])
    dist_auc = br.auc(test.y, m.predict(test.X), test.qid)
    assert dist_auc > 0.72 and abs(dist_auc - br.auc(test.y, single.predict(test.X), test.qid)) < 0.04
    assert m.score(te[FEATURES], te["label"], qid=te["qid"]) == pytest.approx(dist_auc, abs=1e-9)
    # score(metric=) as the local estimator's (#60), on the workers and in memory (a metric that ties do not
    # reorder: te's rows are shuffled)
    pessimistic = br.auc(test.y, m.predict(test.X), test.qid, ties="pessimistic")
    assert m.score(te[FEATURES], te["label"], qid=te["qid"], metric="auc:pessimistic") == pytest.approx(pessimistic,
                                                                                                       abs=1e-9)
    assert m.score(test.X, test.y, qid=test.qid, metric="auc:pessimistic") == pytest.approx(pessimistic, abs=1e-9)
    with pytest.raises(ValueError):
        m.score(te[FEATURES], te["label"], qid=te["qid"], metric="no-such-metric")


def _per_round_scores(model, X, rounds):
    if model.engine == "lightgbm":
        return model.booster_.predict(pd.DataFrame(X, columns=FEATURES), num_iteration=rounds)
    import xgboost as xgb

    return model.booster_.predict(xgb.DMatrix(pd.DataFrame(X, columns=FEATURES)), iteration_range=(0, rounds))


def test_dask_lambda_ranker_refuses_what_it_cannot_do(client):
    (_, tr), (_, te) = _split_frames()
    X, y, q = tr[FEATURES], tr["label"], tr["qid"]
    with pytest.raises(ValueError, match="needs qid"):
        bd.DaskLambdaRanker().fit(X, y)
    with pytest.raises(ValueError, match="not group sizes"):
        bd.DaskLambdaRanker().fit(X, y, group=[10] * 6)
    with pytest.raises(ValueError, match="needs an eval_set"):
        bd.DaskLambdaRanker(early_stopping_rounds=5).fit(X, y, qid=q)
    with pytest.raises(ValueError, match="engine='lightgbm'"):
        bd.DaskLambdaRanker(engine="xgboost").fit(X, y, qid=q, sample_weight=tr["f0"] + 1)
    with pytest.raises(ValueError, match="non-negative integer relevance grades"):
        bd.DaskLambdaRanker(objective="mauc").fit(X, y - 0.5, qid=q)


@pytest.mark.parametrize("engine", ["lightgbm"])  # XGBoost on Dask: the lazy-input and dying-worker tests below
def test_the_guides_dask_page_runs_as_written(engine):
    import re
    import subprocess
    import sys
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "guide" / "distributed.md").read_text()
    code = "\n".join(re.findall(r"```python\n(.*?)```", page, flags=re.S))
    assert "dd.from_pandas" in code and ".persist(" not in code  # lazy input, as a user would write it
    if engine == "xgboost":  # the one change a user makes for the other engine
        code = code.replace('DaskLambdaRanker(objective="auc"', 'DaskLambdaRanker(engine="xgboost", objective="auc"')
        assert 'engine="xgboost"' in code
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    best, score = out.stdout.split()[-2:]
    assert 1 <= int(best) <= 100 and float(score) > 0.8


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_a_worker_dying_mid_fit_fails_the_fit_and_keeps_no_model(engine):
    import os
    import threading
    import time

    data = br.datasets.make_letor(1500, n_features=10, docs_per_query=(20, 60), random_state=3)
    df = pd.DataFrame(data.X, columns=FEATURES)
    df["label"], df["qid"] = data.y, data.qid
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        ddf = dd.from_pandas(df, npartitions=4)
        model = bd.DaskLambdaRanker(engine=engine, n_estimators=5)
        model.fit(ddf[FEATURES], ddf["label"], qid=ddf["qid"])  # a fitted model to lose
        model.set_params(n_estimators=100_000)
        outcome = {}

        def fit():
            try:
                model.fit(ddf[FEATURES], ddf["label"], qid=ddf["qid"])
                outcome["finished"] = True
            except BaseException as exc:  # anything but the promised RuntimeError fails below, named
                outcome["error"] = f"{type(exc).__name__}: {exc}"

        def training():  # workers running a training task: lightgbm's _train_part, xgboost's fn
            return sorted(w for w, keys in c.processing().items() if any(
                "_train_part" in str(key) or str(key).startswith("('fn-") or str(key).startswith("fn-")
                for key in keys))

        worker = threading.Thread(target=fit, daemon=True)
        worker.start()
        deadline = time.time() + 60
        while time.time() < deadline and not training():
            time.sleep(0.1)
        time.sleep(1)
        trainers = training()
        assert trainers, "no training task running 1 s after one started"
        # a worker that trains: the data may sit on one worker only, and killing the idle one stops nothing
        victim = trainers[0]
        try:  # the call dies with its worker; whether the client sees an error or a retry is distributed's
            c.run(os._exit, 1, workers=[victim])
        except Exception:
            pass
        worker.join(120)
        assert not worker.is_alive(), "the fit hung after a worker died"
        assert outcome.get("error", "").startswith("RuntimeError: distributed training failed and no model was kept"), \
            outcome
        assert not hasattr(model, "booster_") and not hasattr(model, "n_estimators_")


# ------------------------------------------------------------------ hardening round 4, item 12
def test_eval_set_without_eval_qid_is_a_clear_error(client, frame):
    ddf = dd.from_pandas(frame, npartitions=3)
    with pytest.raises(ValueError, match="eval_set needs eval_qid"):
        bd.DaskLambdaRanker(n_estimators=2).fit(ddf[FEATURES], ddf["label"], qid=ddf["qid"],
                                                 eval_set=[(ddf[FEATURES], ddf["label"])])


def test_qid_as_an_in_memory_array_beside_lazy_features(client, frame):
    ordered = frame.sort_values("qid", kind="stable").reset_index(drop=True)
    ddf = dd.from_pandas(ordered, npartitions=3)
    kw = dict(n_estimators=4, min_child_samples=2, random_state=0)
    lazy, _ = bd._query_frame(client, ddf[FEATURES], ddf["label"], ddf["qid"])
    local, _ = bd._query_frame(client, ddf[FEATURES], ddf["label"], ordered["qid"].to_numpy())
    lazy_rows = lazy.compute()
    pd.testing.assert_frame_equal(local.compute()[lazy_rows.columns], lazy_rows)
    model = bd.DaskLambdaRanker(**kw).fit(ddf[FEATURES], ddf["label"], qid=ordered["qid"].to_numpy())
    assert model.booster_.current_iteration() == 4
    with pytest.raises(ValueError, match=r"qid has \d+ entries for \d+ rows of X"):
        bd.DaskLambdaRanker(**kw).fit(ddf[FEATURES], ddf["label"], qid=ordered["qid"].to_numpy()[:-3])
    short = dd.from_pandas(ordered["qid"].iloc[:-3], npartitions=3)  # a Dask qid shorter than X (#59)
    with pytest.raises(ValueError, match=r"3 rows of X have no qid: a Dask qid shorter than X"):
        bd.DaskLambdaRanker(**kw).fit(ddf[FEATURES], ddf["label"], qid=short)


@pytest.mark.parametrize("seed", range(4))
def test_filters_that_empty_partitions_train_or_say_why(client, frame, seed):
    """Property over random filters: a fit on what survives trains, or raises a ValueError naming why."""
    rng = np.random.default_rng(seed)
    ordered = frame.sort_values("qid", kind="stable").reset_index(drop=True)
    ddf = dd.from_pandas(ordered, npartitions=int(rng.integers(3, 7)))
    lo, hi = sorted(rng.integers(ordered["qid"].min(), ordered["qid"].max() + 2, size=2))
    kept = ddf[(ddf["qid"] >= lo) & (ddf["qid"] < hi)]
    local = ordered[(ordered["qid"] >= lo) & (ordered["qid"] < hi)]
    try:
        model = bd.DaskLambdaRanker(n_estimators=3, min_child_samples=1).fit(kept[FEATURES], kept["label"],
                                                                            qid=kept["qid"])
    except ValueError as exc:
        assert "no rows to train on" in str(exc) or "one class" in str(exc)
        return
    assert model.booster_.current_iteration() == 3 and len(local) > 0


@pytest.mark.parametrize("objective", ["auc", "mauc"])
def test_every_worker_anchors_to_the_base_rates_of_all_the_data(client, frame, objective, monkeypatch):
    """Issue 70: the anchor starts from the logit of the base rate; each worker's own would differ."""
    from boostrank.engines import lightgbm as engine
    from boostrank.objectives.objective import LambdaObjective

    frame = frame.sort_values("qid").reset_index(drop=True)
    frame["label"] = np.where(frame["qid"] < frame["qid"].median(), frame["label"] > 0, frame["label"])  # rates differ
    seen = {}

    def capture(client, train, features, columns, sizes, objective, *args, **kw):
        seen["objective"] = objective
        raise RuntimeError("captured")

    monkeypatch.setattr(engine, "dask_train", capture)
    ddf = dd.from_pandas(frame, npartitions=4)
    ranker = bd.DaskLambdaRanker(objective=objective, anchor=2.0, n_estimators=2)
    with pytest.raises(RuntimeError, match="captured"):
        ranker.fit(ddf[FEATURES], ddf["label"], qid=ddf["qid"])
    y = frame["label"].to_numpy(dtype=np.float64)
    local = LambdaObjective(objective, anchor=2.0).bind(y, np.flatnonzero(np.r_[True, np.diff(frame["qid"]) != 0,
                                                                                 True]))
    thresholds, bias = seen["objective"].anchor_base
    np.testing.assert_allclose(bias, local.anchor[2], rtol=1e-12)
    assert thresholds.shape[0] == len(np.unique(y)) - 1  # every grade boundary


@pytest.mark.parametrize("engine", ["lightgbm", "xgboost"])
def test_positions_travel_as_row_order(client, engine):
    """Click feedback on Dask: each query's rows put in display order on its worker, where the objective reads the
    positions as XGBoost's lambdarank_unbiased does; the correction changes the model as on one machine."""
    train, test = br.load_sample()
    log = br.datasets.simulate_clicks(train.X, train.y, train.qid, train.X[:, 0], sessions=1, random_state=0)
    df = pd.DataFrame(log.X, columns=[f"f{j}" for j in range(log.X.shape[1])])
    df["y"], df["qid"], df["pos"] = log.clicks, log.session, log.position
    shuffled = df.sample(frac=1.0, random_state=1)  # rows out of display order, queries scattered
    ddf = dd.from_pandas(shuffled, npartitions=3)
    features = [c for c in df.columns if c.startswith("f")]
    frame, _ = bd._query_frame(client, ddf[features], ddf["y"], ddf["qid"], position=ddf["pos"])
    for part in frame.to_delayed():
        p = part.compute()
        off = br._validation.group_offsets(len(p), qid=p[bd._QID].to_numpy())
        for a, b in zip(off[:-1], off[1:]):
            assert np.array_equal(p[bd._POSITION].to_numpy()[a:b], np.arange(b - a))
    kw = dict(engine=engine, n_estimators=20, random_state=0)
    m = bd.DaskLambdaRanker(**kw).fit(ddf[features], ddf["y"], qid=ddf["qid"], position=ddf["pos"])
    raw = bd.DaskLambdaRanker(**kw).fit(ddf[features], ddf["y"], qid=ddf["qid"])
    local = br.LambdaRanker(**kw).fit(df[features], df["y"], qid=df["qid"], position=df["pos"])
    Xt = pd.DataFrame(test.X, columns=features)
    assert not np.allclose(m.predict(Xt), raw.predict(Xt))
    dist, one = (br.auc(test.y, model.predict(Xt), test.qid) for model in (m, local))
    assert abs(dist - one) < 0.03
    gapped = ddf.assign(pos=ddf["pos"] * 2)
    with pytest.raises(ValueError, match="positions travel as each query's row order"):
        bd.DaskLambdaRanker(**kw).fit(gapped[features], gapped["y"], qid=gapped["qid"], position=gapped["pos"])
    if engine == "lightgbm":
        with pytest.raises(ValueError, match="LightGBM's Dask ranker takes no positions"):
            bd.DaskLambdaRanker(engine="lightgbm", objective="lambdarank").fit(
                ddf[features], ddf["y"], qid=ddf["qid"], position=ddf["pos"])
