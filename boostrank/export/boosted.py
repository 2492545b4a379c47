"""Boosted models out to search engines: :func:`export_model` and its files per target."""

from __future__ import annotations

import json
import math
import re
from typing import Sequence

import numpy as np

from ..engines.trees import deep_call, preorder
from .linear import (
    IDENT_PATTERN,
    NAME_PATTERN,
    is_reranker,
    linear_weights,
    vespa_feature,
)
from .targets import TARGETS, TREE_FORMATS, EngineTarget, ModelExport
from .thresholds import (
    as_float32_value,
    is_vm_forest,
    solr_tree,
    split_plan,
    tree_feature_names,
    tree_leaf_depths,
    warn_inexact,
    xgboost_json_tree,
)


def export_model(model, format: str = "elasticsearch-ltr", *, feature_names: Sequence[str] | None = None,
                 name: str = "boostrank", absent: float | None = 0.0,
                 attribute_type: str = "float") -> ModelExport:
    """A LightGBM or XGBoost model in a search engine's tree format, with the feature definitions it needs.

    Each split's threshold is written where the target's own comparison (by engine version,
    see :data:`TARGETS`) splits the inputs as the model does: LightGBM's ``x <= t`` in double
    after its missing-value rule, XGBoost's ``float32(x) < t``.  NaN goes where the model
    sends it on the targets that have a missing branch.  Where a target cannot follow the
    model — LightGBM's double thresholds read by an engine that compares float32, NaN on a
    target without a missing branch, Solr's ``+1e-6`` slack, Vespa's float literals — the
    export lists the inputs it routes otherwise in :attr:`ModelExport.inexact` and warns
    (:class:`ExportWarning`); nothing is exported silently wrong.  Scores are the model's raw
    scores (no link: no sigmoid for a binary objective), summed as the engine does.

    Parameters
    ----------
    model : lightgbm.Booster, LGBMRanker, xgboost.Booster, XGBRanker, LambdaRanker or TopKReranker, fitted
        Trained with boostrank's objectives or the engines' own.  A TopKReranker whose
        ``base_estimator`` is one of these exports as two stages: the boosted first stage and
        the linear re-ranking of its top k (Vespa: ``second-phase`` with ``rerank-count``;
        Elasticsearch/OpenSearch: ``search.json``, an ``sltr`` query with a ``rescore`` of
        ``window_size`` k; Solr re-ranks once and is refused).
    format : str, default="elasticsearch-ltr"
        One of :data:`TREE_FORMATS`; a name without a version means the engine as its current
        source does it, ``"<version"`` the older behaviour:

        * ``"elasticsearch-ltr"`` (o19s plugin >= 1.5.9), ``"elasticsearch-ltr<1.5.9"``,
          ``"opensearch-ltr"`` (>= 3.8.0.0), ``"opensearch-ltr<3.8"``: ``model.json``, the body of
          ``POST _ltr/_featureset/<name>/_createmodel`` with a ``model/xgboost+json`` definition
          (the bare tree array: no objective, so no link), and ``featureset.json``, the body of
          ``POST _ltr/_featureset/<name>`` with one feature per column reading the numeric
          document field of that name (put your own query templates in their place for
          query-time features).  The older versions send NaN right on every split.
        * ``"solr-ltr"``: ``model.json`` (``MultipleAdditiveTreesModel``) and ``features.json``
          (``FieldValueFeature`` per column), for Solr's model and feature stores.
        * ``"vespa"`` (>= 8.624.72), ``"vespa<8.624"``: ``models/<name>.json``, XGBoost's JSON
          dump format, which Vespa's ``xgboost()`` rank feature reads for either engine's trees,
          and ``<name>.profile``, a rank profile whose first phase is that feature (plus
          XGBoost's base margin, which Vespa's importer leaves out).  Vespa from 8.624.72 casts
          each condition to float, so the conditions are float32 values; before, they are the
          doubles that split every double as the model does.
    feature_names : sequence of str, default=None
        The engine's names of the columns of X: default the model's own names (DataFrame columns),
        or LETOR's ``f1 … fd`` for unnamed columns.  For Vespa, rank features (``bm25(title)``)
        or attribute names (written ``attribute(name)``), checked by :func:`vespa_feature`.
    name : str, default="boostrank"
    absent : float or None, default=0.0
        The value of a feature for a document without the field (Elasticsearch/OpenSearch
        feature sets): ``0.0`` is LETOR's convention (sparse files leave zeros out; the model
        must have seen 0 there); ``None`` lets the feature not match such a document, which the
        plugins score as NaN (o19s >= 1.5.9, OpenSearch >= 3.2), so it takes the model's missing
        branch on the versions that have one.  Solr's ``FieldValueFeature`` gives 0.
    attribute_type : {"float", "double"}, default="float"
        Vespa only: the type of the attributes the features read (``field f1 type float``).
        XGBoost compares float32, so float attributes route every input as the model does;
        LightGBM compares doubles, which no float32 condition reproduces for every double.

    Returns
    -------
    ModelExport

    Raises
    ------
    ValueError
        Categorical splits, linear trees, several outputs per round, a zero-as-missing split
        that sends zeros against its threshold, or names the format cannot hold.

    Warns
    -----
    ExportWarning
        When the target routes some inputs otherwise than the model (listed in
        :attr:`ModelExport.inexact`, which says whether any float32 value is among them).

    Examples
    --------
    >>> import warnings, numpy as np, boostrank as br
    >>> data = br.datasets.make_letor(30, random_state=0)
    >>> ranker = br.LambdaRanker(n_estimators=5).fit(data.X, data.y, qid=data.qid)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", br.export.ExportWarning)  # doubles next to thresholds: see ``inexact``
    ...     export = export_model(ranker, "elasticsearch-ltr")
    >>> bool(np.allclose(br.score_export(export, data.X), ranker.predict(data.X), atol=1e-5))
    True
    """
    from ..engines import forest_of

    if is_reranker(model):
        return _export_two_stage(model, format, feature_names, name, absent, attribute_type)
    target = _check_export(format, name, absent, attribute_type)
    forest = forest_of(model)
    vespa = target.document == "vespa"
    names = tree_feature_names(forest, feature_names, vespa)
    float_inputs = [not vespa or (attribute_type == "float" and n.startswith("attribute(")) for n in names]
    float_literals = target.float_literals or (vespa and is_vm_forest([tree_leaf_depths(t) for t in forest.trees]))
    node_ids, plans, inexact = [], [], set()
    for tree in forest.trees:
        order, _ = preorder(tree)
        node_ids.append(order)
        plans.append({node: split_plan(tree, node, forest.engine, target, names[int(tree.feature[node])],
                                  float_inputs[int(tree.feature[node])], float_literals)
                      for node in order if tree.feature[node] >= 0})
        inexact.update(m for plan in plans[-1].values() for m in plan.misroutes)
    files = _DOCUMENTS[target.document](forest, plans, names, name, absent)
    inexact = sorted(inexact, key=lambda m: (m.feature, m.nan, 0.0 if m.nan else m.lo))
    if inexact:
        warn_inexact(format, inexact)
    return ModelExport(format=format, name=name, feature_names=names, files=files, node_ids=node_ids,
                       inexact=inexact, input_types=["float" if f else "double" for f in float_inputs])


def _check_export(format, name, absent, attribute_type) -> EngineTarget:
    if format not in TARGETS:
        raise ValueError(f"format must be one of {TREE_FORMATS}, got {format!r}")
    if attribute_type not in ("float", "double"):
        raise ValueError(f"attribute_type must be 'float' or 'double', got {attribute_type!r}")
    if absent is not None and not (isinstance(absent, (int, float)) and math.isfinite(absent)):
        raise ValueError(f"absent must be a finite number or None, got {absent!r}")
    vespa = TARGETS[format].document == "vespa"
    if not NAME_PATTERN.fullmatch(name) or (vespa and not IDENT_PATTERN.fullmatch(name)):
        raise ValueError(f"name {name!r} must be letters, digits, '_'" + ("" if vespa else ", '-', '.'"))
    return TARGETS[format]


def _ltr_json_files(forest, plans, names, name, absent) -> dict:
    """``model.json`` (``model/xgboost+json``, the base margin a last one-leaf tree) and ``featureset.json``."""
    splits = [xgboost_json_tree(tree, p, names, False) for tree, p in zip(forest.trees, plans)]
    if forest.base != 0.0:
        splits.append({"nodeid": 0, "leaf": as_float32_value(forest.base)})
    body = {"model": {"name": name, "model": {"type": "model/xgboost+json",
                                              "definition": deep_call(json.dumps, splits)}}}

    def feature(n):
        if absent is None:  # no match without the field: the plugin's default value
            return {"function_score": {"query": {"exists": {"field": n}}, "field_value_factor": {"field": n}}}
        return {"function_score": {"query": {"match_all": {}},
                                   "field_value_factor": {"field": n, "missing": float(absent)}}}
    features = [{"name": n, "params": [], "template_language": "mustache", "template": feature(n)} for n in names]
    return {"model.json": json.dumps(body, indent=2),
            "featureset.json": json.dumps({"featureset": {"name": name, "features": features}}, indent=2)}


def _solr_files(forest, plans, names, name, absent) -> dict:
    """``model.json`` (``MultipleAdditiveTreesModel``) and ``features.json`` (``FieldValueFeature``s)."""
    trees = [{"weight": "1", "root": solr_tree(tree, p, names)} for tree, p in zip(forest.trees, plans)]
    if forest.base != 0.0:
        trees.append({"weight": "1", "root": {"value": str(np.float32(forest.base))}})
    doc = {"class": "org.apache.solr.ltr.model.MultipleAdditiveTreesModel", "name": name,
           "features": [{"name": n} for n in names], "params": {"trees": trees}}
    feats = [{"name": n, "class": "org.apache.solr.ltr.feature.FieldValueFeature", "params": {"field": n}}
             for n in names]
    return {"model.json": deep_call(lambda: json.dumps(doc, indent=2)), "features.json": json.dumps(feats, indent=2)}


def _vespa_files(forest, plans, names, name, absent) -> dict:
    """``models/<name>.json`` for ``xgboost()`` and ``<name>.profile`` adding the base margin."""
    # a forest of no trees (XGBoost at 0 rounds) as one leaf of 0: Vespa's importer has no expression for "[]"
    trees = [xgboost_json_tree(tree, p, names, True) for tree, p in zip(forest.trees, plans)] or [
        {"nodeid": 0, "leaf": 0.0}]
    expression = f'xgboost("{name}.json")'
    if forest.base != 0.0:
        expression += f" + {float(forest.base)!r}"
    profile = f"rank-profile {name} inherits default {{\n    first-phase {{\n        expression: {expression}\n    }}\n}}\n"
    return {f"models/{name}.json": deep_call(json.dumps, trees), f"{name}.profile": profile}


_DOCUMENTS = {"ltr-json": _ltr_json_files, "solr": _solr_files, "vespa": _vespa_files}


def _export_two_stage(model, format, feature_names, name, absent, attribute_type) -> ModelExport:
    """A TopKReranker over a boosted base: the base's trees first, the linear re-ranking of its top k second."""
    if format not in TREE_FORMATS:
        raise ValueError(f"format must be one of {TREE_FORMATS}, got {format!r}")
    base = getattr(model, "base_estimator_", None)
    if base is None:
        raise ValueError("the TopKReranker's first stage is base scores passed in, not a model: export your base "
                         "model with export_model and the re-ranker with export_linear")
    if getattr(model, "fallback_", False):  # the gate kept the base order: the base model is the whole ranker
        return export_model(base, format, feature_names=feature_names, name=name, absent=absent,
                            attribute_type=attribute_type)
    if TARGETS[format].document == "solr":
        raise ValueError("Solr re-ranks once ({!ltr reRankDocs=k}) with one model: export the base model and the "
                         "re-ranker (export_linear) and choose one stage for Solr")
    first = export_model(base, format, feature_names=feature_names, name=f"{name}_base", absent=absent,
                         attribute_type=attribute_type)
    plain = [re.sub(r"^attribute\((.*)\)$", r"\1", n) for n in first.feature_names]
    weights = linear_weights(model, plain)
    k = int(model.result_.k)
    if TARGETS[format].document == "vespa":
        terms = [f"{w!r} * {'firstPhase' if n == 'base_score' else vespa_feature(n)}" for n, w in weights.items()]
        first_expression = re.search(r"expression: (.*)", first.files[f"{name}_base.profile"]).group(1)
        profile = (f"rank-profile {name} inherits default {{\n    first-phase {{\n        expression: "
                   f"{first_expression}\n    }}\n    second-phase {{\n        rerank-count: {k}\n        expression: "
                   f"{' + '.join(terms) or '0'}\n    }}\n}}\n")
        files = {f"models/{name}_base.json": first.files[f"models/{name}_base.json"], f"{name}.profile": profile}
    else:
        linear = {n: w for n, w in weights.items() if n != "base_score"}
        rescore = {"model": {"name": name, "model": {"type": "model/linear", "definition": json.dumps(linear)}}}
        search = {"query": {"sltr": {"params": {}, "model": f"{name}_base"}},
                  "rescore": {"window_size": k, "query": {
                      "rescore_query": {"sltr": {"params": {}, "model": name}},
                      "query_weight": weights.get("base_score", 0.0), "rescore_query_weight": 1.0,
                      "score_mode": "total"}}}
        featureset = json.loads(first.files["featureset.json"])
        featureset["featureset"]["name"] = name
        files = {"model.json": first.files["model.json"], "rescore_model.json": json.dumps(rescore, indent=2),
                 "featureset.json": json.dumps(featureset, indent=2), "search.json": json.dumps(search, indent=2)}
    return ModelExport(format=format, name=name, feature_names=first.feature_names, files=files,
                       node_ids=first.node_ids, inexact=first.inexact, input_types=first.input_types, rerank_k=k,
                       second_stage=weights)
