"""Linear models exported to Elasticsearch LTR and Vespa score as the models do (#29 item 8)."""

import json
import re

import numpy as np
import pandas as pd
import pytest

import boostrank as br


def _vespa_scores(text, frame, base=None):
    """Evaluate a rank profile's expression on the columns of ``frame`` (attribute(...) / firstPhase)."""
    expression = re.search(r"expression: (.*)", text).group(1)
    total = np.zeros(len(frame))
    for weight, ref in re.findall(r"([-+0-9.e]+) \* (attribute\(\w+\)|firstPhase)", expression):
        column = base if ref == "firstPhase" else frame[ref[len("attribute("):-1]].to_numpy()
        total += float(weight) * column
    assert len(re.findall(r" \* ", expression)) == len(re.findall(r"([-+0-9.e]+) \* ", expression))
    return total


def _es_scores(text, frame):
    body = json.loads(text)
    assert body["model"]["model"]["type"] == "model/linear"
    weights = json.loads(body["model"]["model"]["definition"])
    return sum(w * frame[name].to_numpy() for name, w in weights.items())


@pytest.fixture(scope="module")
def data():
    train, test = br.load_sample()
    names = [f"f{j + 1}" for j in range(train.n_features)]
    return train, test, names


@pytest.mark.parametrize("kind", ["rankncg", "mip", "frame"])
def test_linear_models_score_the_same_in_the_engines(data, kind):
    train, test, names = data
    X = test.X
    if kind == "rankncg":
        model = br.RankNCG().fit(train.X, train.y, qid=train.qid)
        want = X @ model.coef_
    elif kind == "mip":
        model = br.MIPRanker(objective="auc", time_limit=5).fit(train.X[:200, :3], train.y[:200] > 0)
        X, names = X[:, :3], names[:3]
        want = X @ model.coef_
    else:  # fitted on a DataFrame: its column names are the engine's
        cols = [f"feat_{j}" for j in range(train.n_features)]
        model = br.RankNCG().fit(pd.DataFrame(train.X, columns=cols), train.y, qid=train.qid)
        names = cols
        want = X @ model.coef_
    frame = pd.DataFrame(X, columns=names)
    kw = {} if kind == "frame" else {"feature_names": names}
    es = br.export_linear(model, "elasticsearch-ltr", **kw)
    vespa = br.export_linear(model, "vespa", name="ranker", **kw)
    np.testing.assert_allclose(_es_scores(es, frame), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(_vespa_scores(vespa, frame), want, rtol=1e-12, atol=1e-12)
    assert "first-phase" in vespa and vespa.startswith("rank-profile ranker inherits default {")
    if kind == "rankncg":  # the constant RankNCG subtracts changes no order
        np.testing.assert_allclose(model.decision_function(X) - want, -model._offset)


def test_a_top_k_reranker_is_a_second_phase_over_its_k(data):
    train, test, names = data
    base_tr = train.X[:, 0] + train.X[:, 1]
    model = br.TopKReranker(k=5, time_limit=5, gate=0).fit(train.X, train.y, qid=train.qid, base_scores=base_tr)
    frame = pd.DataFrame(test.X, columns=names).assign(base_score=test.X[:, 0] + test.X[:, 1])
    vespa = br.export_linear(model, "vespa", feature_names=names)
    assert "second-phase" in vespa and "rerank-count: 5" in vespa
    want = np.column_stack([test.X, frame["base_score"]]) @ model.coef_
    np.testing.assert_allclose(_vespa_scores(vespa, frame, base=frame["base_score"].to_numpy()), want, rtol=1e-12)
    np.testing.assert_allclose(_es_scores(br.export_linear(model, feature_names=names), frame), want, rtol=1e-12)


def test_export_refuses_what_it_cannot_write(data):
    train, _, names = data
    model = br.RankNCG().fit(train.X, train.y, qid=train.qid)
    with pytest.raises(ValueError, match="format"):
        br.export_linear(model, "solr")
    with pytest.raises(ValueError, match="feature names for"):
        br.export_linear(model, feature_names=names[:-1])
    with pytest.raises(ValueError, match="distinct"):
        br.export_linear(model, feature_names=["a"] * len(names))
    with pytest.raises(ValueError, match="neither a Vespa attribute"):
        br.export_linear(model, "vespa", feature_names=["a b"] + names[1:])
    with pytest.raises(ValueError, match="not fitted"):
        br.export_linear(br.RankNCG())
    assert "bm25(title)" in br.export_linear(model, "vespa", feature_names=["bm25(title)"] + names[1:])
