"""Models out to search engines: linear models and boosted trees, and scoring an export as the engine would.

* :mod:`.linear`: :func:`export_linear`, :func:`linear_weights`, :func:`vespa_feature` (wᵀx in the engines' syntax);
* :mod:`.targets`: what each engine version does with a tree (``TARGETS``) and what an export holds
  (:class:`ModelExport`, :class:`Misroute`, :class:`ExportWarning`);
* :mod:`.thresholds`: each split's threshold as the target reads it (float32 routing, bounds, tree text);
* :mod:`.boosted`: :func:`export_model` and its files per target;
* :mod:`.scoring`: :func:`score_export`, :func:`rerank_export`, :func:`threshold_rows`.
"""

from .boosted import export_model
from .linear import FORMATS, export_linear, linear_weights, vespa_feature
from .scoring import rerank_export, score_export, threshold_rows
from .targets import TARGETS, TREE_FORMATS, ExportWarning, Misroute, ModelExport

__all__ = ["export_linear", "linear_weights", "vespa_feature", "export_model", "score_export", "rerank_export",
           "ModelExport", "ExportWarning", "Misroute", "TREE_FORMATS", "TARGETS", "FORMATS", "threshold_rows"]
