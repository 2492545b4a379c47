"""The README and every page of the user guide run as written: each as one script, in a fresh process and an empty
folder (#60 item 6).  The distributed page starts a cluster: tests/test_dask.py runs it on both engines."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide"
PAGES = sorted(p.name for p in GUIDE.glob("*.md"))


def blocks(path: Path) -> list:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


def run_as_script(code: str, folder: Path) -> subprocess.CompletedProcess:
    # the script as a user pastes it: no FutureWarning from a spelling boostrank uses (LightGBM 4.7's eval_set rename
    # aside: the pages keep the spelling every LightGBM 4.x takes)
    prelude = ("import warnings\nwarnings.simplefilter('error', FutureWarning)\n"
               "warnings.filterwarnings('ignore', \"The argument 'eval_\", FutureWarning)\n")
    return subprocess.run([sys.executable, "-c", prelude + code], cwd=folder, capture_output=True, text=True,
                          timeout=900)


def test_the_readme_is_short_and_keeps_the_two_set_up_commands():
    text = (ROOT / "README.md").read_text()
    assert len(text.encode()) < 15_000
    assert "pip install . && boostrank demo" in text
    assert 'pip install ".[test]" && python -m boostrank warmup && python -m pytest -q' in text
    assert 'python -m pytest -q' in (ROOT / ".ci" / "run").read_text()
    for link in re.findall(r"\]\((docs/guide/[^)]+)\)", text):
        assert (ROOT / link).exists(), link
    assert {f"docs/guide/{p}" for p in PAGES} <= set(re.findall(r"\]\((docs/guide/[^)]+)\)", text))


@pytest.mark.slow
def test_the_readme_runs_as_one_script(tmp_path):
    code = "\n".join(blocks(ROOT / "README.md"))
    # the re-ranker's fits search as long as the default time limit lets them (about 30 s each on 2 cores):
    # 1 s changes what they find, not which code runs
    code = code.replace("TopKReranker(k=20,", "TopKReranker(k=20, time_limit=1,")
    done = run_as_script(code, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "deploy" / "opensearch" / "model.json").exists()


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if p != "distributed.md" and blocks(GUIDE / p)])
def test_every_guide_page_runs_as_one_script(tmp_path, page):
    code = "\n".join(blocks(GUIDE / page))
    code = code.replace("TopKReranker(k=20,", "TopKReranker(k=20, time_limit=1,")  # as above
    done = run_as_script(code, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
