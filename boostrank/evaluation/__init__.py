"""Evaluation of runs as trec_eval and ranx do it, and beyond.

* :mod:`.ids`, :mod:`.runs`: ids as bytes; :class:`Qrels` and :class:`Run`;
* :mod:`.files`: qrels and run files read and written as trec_eval reads them;
* :mod:`.scores`: the scores of a LETOR file's rows from a score file or a run;
* :mod:`.judged`: a run matched to its qrels (:func:`judged_lists`);
* :mod:`.measures`: trec_eval's measures; :mod:`.evaluate`: :func:`evaluate`;
* :mod:`.compare`, :mod:`.report`: paired tests (:func:`compare`) and their reports (:class:`Comparison`);
* :mod:`.fusion`: fusion of runs (:func:`fuse`), :mod:`.learned_fusion`: fusions learned from training runs;
* :mod:`.gains`: trec_eval's gains per grade; :mod:`.trec_eval`: its command line; :mod:`.plots`: figures.
"""

from .compare import compare
from .evaluate import DEFAULT_METRICS, QueryMismatchWarning, evaluate
from .files import load_qrels, load_run, save_qrels, save_run
from .fusion import FUSIONS, NORMS, fuse, optimize_fusion
from .judged import JudgedLists, judged_lists
from .learned_fusion import TrainedFusion, train_fusion
from .report import Comparison
from .runs import Qrels, Run
from .scores import read_run, read_scores

__all__ = ["Qrels", "Run", "JudgedLists", "judged_lists", "load_qrels", "load_run", "save_qrels", "save_run",
           "read_scores", "read_run", "evaluate", "compare", "Comparison", "QueryMismatchWarning", "DEFAULT_METRICS",
           "fuse", "optimize_fusion", "train_fusion", "TrainedFusion", "FUSIONS", "NORMS"]
