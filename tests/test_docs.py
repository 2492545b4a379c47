"""The user guide and the API reference build with Sphinx (MyST, numpydoc), warnings as errors (#29 item 3, #60)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_the_reference_lists_the_whole_public_api():
    import boostrank as br

    api = (DOCS / "api.rst").read_text()
    listed = {line.strip() for line in api.splitlines() if line.startswith("   ") and not line.strip().startswith(":")}
    assert set(br.__all__) - {"__version__"} <= listed


@pytest.mark.slow
def test_the_api_reference_builds_without_a_warning(tmp_path):
    pytest.importorskip("sphinx")
    pytest.importorskip("numpydoc")
    source = tmp_path / "docs"
    shutil.copytree(DOCS, source, ignore=shutil.ignore_patterns("generated", "_build"))
    shutil.copytree(DOCS.parent / "benchmarks" / "figures", tmp_path / "benchmarks" / "figures")  # the guide's
    out = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(source),
                          str(tmp_path / "html")], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    page = (tmp_path / "html" / "generated" / "boostrank.LambdaRanker.html").read_text()
    assert "early_stopping_rounds" in page
    for guide in (DOCS / "guide").glob("*.md"):  # every page of the user guide is in the site
        assert (tmp_path / "html" / "guide" / f"{guide.stem}.html").exists(), guide.name
