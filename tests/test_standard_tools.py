"""Our metrics against the tools people compare with: LightGBM's own ranking metrics,
trec_eval (through pytrec_eval) and scikit-learn, on LETOR runs."""

import numpy as np
import pytest

import boostrank as br

from .conftest import random_ranking


def lightgbm_eval(y, scores, sizes, metric, eval_at):
    """LightGBM's metric of fixed scores: a boosting round that cannot change them."""
    lgb = pytest.importorskip("lightgbm")
    X = np.zeros((len(y), 1))
    ds = lgb.Dataset(X, y, group=sizes, init_score=scores, free_raw_data=False)
    record = {}
    lgb.train(
        {"objective": "lambdarank", "metric": metric, "eval_at": eval_at, "verbose": -1,
         "min_data_in_leaf": len(y) + 1, "learning_rate": 1e-300},
        ds, num_boost_round=1, valid_sets=[ds], valid_names=["run"],
        callbacks=[lgb.record_evaluation(record)],
    )
    return {name: values[0] for name, values in record["run"].items()}


@pytest.mark.parametrize("seed", range(4))
def test_ndcg_and_map_equal_lightgbm(seed):
    y, s, qid = random_ranking(seed, n_queries=30, max_len=15, tie_levels=5)
    sizes = np.diff(np.flatnonzero(np.r_[True, qid[1:] != qid[:-1], True]))
    at = [1, 3, 5, 10]
    lgb_ndcg = lightgbm_eval(y, s, sizes, "ndcg", at)
    lgb_map = lightgbm_eval(y, s, sizes, "map", at)
    for k in at:
        assert br.ndcg(y, s, qid, k=k) == pytest.approx(lgb_ndcg[f"ndcg@{k}"], abs=1e-9)
        assert br.mean_average_precision(y, s, qid, k=k) == pytest.approx(lgb_map[f"map@{k}"], abs=1e-9)


def _trec(y, s, qid, measures):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrel, run = {}, {}
    for i, (q, label, score) in enumerate(zip(qid, y, s)):
        qrel.setdefault(str(q), {})[f"d{i}"] = int(label)
        run.setdefault(str(q), {})[f"d{i}"] = float(score)
    result = pytrec_eval.RelevanceEvaluator(qrel, measures).evaluate(run)
    return result


@pytest.mark.parametrize("seed", range(4))
def test_trec_convention_equals_pytrec_eval(seed):
    # trec_eval breaks ties by docno, so the run has distinct scores
    y, _, qid = random_ranking(seed, n_queries=25, max_len=20)
    s = np.random.default_rng(seed).normal(size=len(y))
    res = _trec(y, s, qid, {"ndcg_cut", "map", "map_cut", "P", "ndcg"})
    queries = [str(q) for q in dict.fromkeys(qid)]
    per = lambda m: np.array([res[q][m] for q in queries])
    for k in (5, 10):
        got = br.ndcg(y, s, qid, k=k, convention="trec", per_query=True)
        np.testing.assert_allclose(got, per(f"ndcg_cut_{k}"), atol=1e-9)
        got = br.mean_average_precision(y, s, qid, k=k, convention="trec", per_query=True)
        np.testing.assert_allclose(got, per(f"map_cut_{k}"), atol=1e-9)
        got = br.precision_at((y > 0).astype(int), s, qid, k=k, per_query=True)
        np.testing.assert_allclose(got, per(f"P_{k}"), atol=1e-9)
    np.testing.assert_allclose(br.ndcg(y, s, qid, convention="trec", per_query=True), per("ndcg"),
                               atol=1e-9)
    np.testing.assert_allclose(br.mean_average_precision(y, s, qid, convention="trec", per_query=True),
                               per("map"), atol=1e-9)


def test_trec_convention_on_a_letor_run(tmp_path):
    data = br.datasets.make_letor(40, random_state=7)
    path = tmp_path / "run.txt"
    br.save_letor(path, data)
    back = br.load_letor(path)
    s = back.X @ np.linspace(1, -1, back.n_features) + 1e-9 * np.arange(len(back))
    res = _trec(back.y, s, back.qid, {"ndcg_cut_10", "map"})
    mean = lambda m: np.mean([v[m] for v in res.values()])
    assert br.ndcg(back.y, s, back.qid, k=10, convention="trec") == pytest.approx(mean("ndcg_cut_10"), abs=1e-9)
    assert br.mean_average_precision(back.y, s, back.qid, convention="trec") == pytest.approx(mean("map"), abs=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_trec_metrics_break_ties_by_docno_as_trec_eval(seed):
    """#29 item 7: on a run with many ties ndcg@10:trec was .481594 where pytrec_eval gave .482386."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(seed)
    y, _, qid = random_ranking(seed, n_queries=30, max_len=25)
    s = np.round(rng.normal(size=len(y)), 0)  # a handful of values: ties everywhere
    docid = np.array([f"D{rng.integers(0, 10**6):06d}-{i}" for i in range(len(y))], dtype=object)
    qrel, run = {}, {}
    for q, d, label, score in zip(qid, docid, y, s):
        qrel.setdefault(str(q), {})[d] = int(label)
        run.setdefault(str(q), {})[d] = float(score)
    res = pytrec_eval.RelevanceEvaluator(qrel, {"ndcg_cut", "map", "P"}).evaluate(run)
    mean = lambda m: np.mean([v[m] for v in res.values()])  # noqa: E731
    assert br.ndcg(y, s, qid, k=10, convention="trec", docid=docid) == pytest.approx(mean("ndcg_cut_10"), abs=1e-9)
    assert br.mean_average_precision(y, s, qid, convention="trec", docid=docid) == pytest.approx(mean("map"),
                                                                                                 abs=1e-9)
    assert br.precision(y, s, qid, k=5, docid=docid) == pytest.approx(mean("P_5"), abs=1e-9)
    table = br.metrics.metric_table(y, qid, {"run": s}, ["ndcg@10:trec", "map:trec", "p@5", "ndcg@10"], docid=docid)
    assert table["run"]["ndcg@10:trec"] == pytest.approx(mean("ndcg_cut_10"), abs=1e-9)
    assert table["run"]["p@5"] == pytest.approx(mean("P_5"), abs=1e-9)
    assert table["run"]["ndcg@10"] == pytest.approx(br.ndcg(y, s, qid, k=10))  # LightGBM's: input order
    assert br.ndcg(y, s, qid, k=10, convention="trec") != pytest.approx(mean("ndcg_cut_10"), abs=1e-9)
