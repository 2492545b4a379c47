"""boostrank.export.linear: linear models exported to Elasticsearch LTR and Vespa score as the models do; feature
names checked."""

import json
import re

import numpy as np
import pandas as pd
import pytest

import boostrank as br
from boostrank.export import vespa_feature
from hypothesis import given, settings
from hypothesis import strategies as st


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


@pytest.fixture(scope="module")
def linear():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    return br.RankNCG().fit(X, X[:, 0] + rng.normal(size=60) > 0)


@pytest.mark.parametrize("name", [
    ")\n }\n}\nrank-profile evil inherits default {\n first-phase {\n expression: attribute(x",
    "(", "x) + 1000 * attribute(y", "attribute(a-b)", "bm25(title))", "bm25(title", "a.b", "a-b", "f(x)+1",
    "f(x) ", "f(\"x\")", "f(x)\n", "f(x).", "f(x)..y", "f(,)", "f(x,)", "{", "", "é(x)",
    "a(b(c(d(e(f(g))))))",
])
def test_vespa_refuses_names_that_are_not_one_rank_feature(linear, name):
    with pytest.raises((ValueError, TypeError), match="feature name"):
        br.export_linear(linear, "vespa", feature_names=[name, "ok"])


@pytest.mark.parametrize("name, ref", [
    ("price", "attribute(price)"), ("bm25(title)", "bm25(title)"),
    ("fieldMatch(title).completeness", "fieldMatch(title).completeness"),
    ("nativeRank(title, body)", "nativeRank(title, body)"), ("term(0).significance", "term(0).significance"),
    ("tensorFromLabels(attribute(tags))", "tensorFromLabels(attribute(tags))"), ("now()", "now()"),
])
def test_vespa_takes_well_formed_rank_features(linear, name, ref):
    text = br.export_linear(linear, "vespa", feature_names=[name, "other"])
    assert f"* {ref} + " in text and "* attribute(other)" in text
    assert vespa_feature(name) == ref


#: Vespa rank-feature names as the grammar reads them (an independent regex, one nesting level)
_ARG = r"(?:[A-Za-z_][A-Za-z0-9_]*(?:\([A-Za-z0-9_, ]*\))?(?:\.[A-Za-z0-9_]+)*|-?[0-9]+(?:\.[0-9]+)?)"


_FEATURE = re.compile(rf"[A-Za-z_][A-Za-z0-9_]*(?:\((?:{_ARG}(?:, *{_ARG})*)?\))?(?:\.[A-Za-z0-9_]+)*")


_FUZZ_MODEL: dict = {}


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(min_codepoint=32, max_codepoint=0x2FFF), min_size=0, max_size=30))
def test_vespa_profile_keeps_its_shape_for_any_printable_name(name):
    """Fuzz (item 1): a name is refused, or the profile is one profile with one expression of two terms."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    model = _FUZZ_MODEL.get("m") or _FUZZ_MODEL.setdefault("m", br.RankNCG().fit(X, X[:, 0] > 0))
    try:
        text = br.export_linear(model, "vespa", feature_names=[name, "other"])
    except (ValueError, TypeError) as exc:
        assert "feature name" in str(exc)
        assert not (_FEATURE.fullmatch(name) and ("(" in name or re.fullmatch(r"[A-Za-z_]\w*", name, re.ASCII)))
        return
    assert text.count("rank-profile") == 1 and text.count("{") == text.count("}") == 2
    expression = re.search(r"expression: (.*)", text).group(1)
    terms = expression.split(" + ")
    assert len(terms) == 2 and terms[1].endswith("* attribute(other)")
    ref = terms[0].split(" * ", 1)[1]
    assert _FEATURE.fullmatch(ref) and ref.count("(") == ref.count(")")


# ---------------------------------------------------------------- items 13, 20: names are strings
@pytest.mark.parametrize("names", [[1, "1"], [None, "a"], [float("nan"), "a"], ["", "a"], [b"a", "b"]])
@pytest.mark.parametrize("fmt", ["elasticsearch-ltr", "vespa"])
def test_feature_names_must_be_strings(linear, names, fmt):
    with pytest.raises(TypeError, match="feature names must be non-empty strings"):
        br.export_linear(linear, fmt, feature_names=names)


def test_a_single_string_is_not_a_list_of_names(linear):
    with pytest.raises(TypeError, match="single string 'ab'"):
        br.export_linear(linear, feature_names="ab")
