"""Every Python block of the README runs as written, in order, on the bundled sample (#29 item 4).

The Dask block ("More than one machine") starts a cluster: tests/test_dask.py runs it on both engines.
"""

import re
import warnings
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _blocks():
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_the_readme_has_the_blocks_this_test_runs():
    blocks = _blocks()
    assert len(blocks) >= 5 and sum("LocalCluster" in b for b in blocks) == 1


@pytest.mark.slow
def test_every_readme_python_block_runs_as_written(tmp_path, monkeypatch):
    import sklearn

    monkeypatch.chdir(tmp_path)  # the blocks write files (save_letor's copy.txt)
    namespace = {"__name__": "__readme__"}
    try:
        for i, block in enumerate(_blocks()):
            if "LocalCluster" in block:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("error", FutureWarning)  # no block uses a renamed spelling
                # LightGBM 4.7 renames LGBMRanker's eval_set to eval_X/eval_y; the README keeps the spelling
                # every LightGBM 4.x takes
                warnings.filterwarnings("ignore", "The argument 'eval_", FutureWarning)
                if "TopKReranker(k=20," in block:
                    # its fits search as long as the default time_limit lets them (about 30 s each on 2 cores):
                    # 5 s changes what they find, not which code runs
                    block = block.replace("TopKReranker(k=20,", "TopKReranker(k=20, time_limit=5,")
                exec(compile(block, f"README.md block {i + 1}", "exec"), namespace)
    finally:
        sklearn.set_config(enable_metadata_routing=False)
    assert (tmp_path / "copy.txt").exists()
    assert namespace["mip"].result_.status in ("optimal", "feasible")
