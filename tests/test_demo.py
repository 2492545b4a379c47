"""boostrank demo: every ranker of the package on one split, in one table (boostrank/demo.py)."""

import importlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

import boostrank as br
from boostrank import demo


def test_the_demo_fits_every_ranker_and_prints_one_table(capsys):
    data = br.datasets.make_letor(40, random_state=0)
    train, test = data.take_queries(np.arange(30)), data.take_queries(np.arange(30, 40))
    assert demo.run(train, test, "a test split", ["ndcg@10", "auc"], rounds=5, rerank_k=3, time_limit=20) == 0
    out = capsys.readouterr().out
    for name in ("random", "logistic regression", "RankNCG", "LightGBM lambdarank", "LightGBM λ-AUC",
                 "LightGBM λ-MAUC", "LR + re-rank top 3"):
        assert name in out
    assert "measured on a test split" in out and "re-ranker: " in out


def test_the_warm_up_parts_name_functions_a_worker_can_import():
    for name, function in demo._DEMO_PARTS.items():
        module, _, attr = f"boostrank.demo:{function.__name__}".partition(":")
        assert getattr(importlib.import_module(module), attr) is function, name


@pytest.mark.slow
def test_demo_console_script():
    exe = shutil.which("boostrank")
    cmd = [exe, "demo"] if exe else [sys.executable, "-m", "boostrank.cli", "demo"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "logistic regression" in proc.stdout and "ndcg@10" in proc.stdout
    assert "RankNCG" in proc.stdout and "LightGBM λ-AUC" in proc.stdout and "LightGBM lambdarank" in proc.stdout
    # one table and a one-line re-rank summary: no solver banner (#29 item 5), no seven unrounded candidates
    assert "HiGHS" not in proc.stdout and "Copyright" not in proc.stdout
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("re-ranker: "))
    # in words: what was kept, and the held-out gain in the unit it is measured in (#47 item 2)
    assert len(line) < 200 and ("re-orders each list's top 3" in line and "DCG@5" in line or "kept the base order" in line), line
    # the steps as they go, and which split the table is measured on
    assert "[1/7] random" in proc.stdout and "[7/7] LR + re-rank top 3" in proc.stdout
    assert "measured on the bundled sample's test split (2560 rows, 150 queries)" in proc.stdout
