"""The user guide and the API reference build with Sphinx (MyST, numpydoc), warnings as errors (#29 item 3, #60)."""

import re
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


# ---------------------------------------------------------------- what users read holds no project bookkeeping
#: our own issue numbers, "n.r." cells and commit hashes (7-40 hex digits with a letter and a digit)
_BOOKKEEPING = re.compile(r"\bissues?\s+#?\d+|\bn\.r\.|(?<![\w/.-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}"
                          r"(?![\w/-])")
#: a commit of another project, cited as the source a port reads, is provenance: it names the project just before
_UPSTREAM = re.compile(r"(trec_eval|ranx|opensearch|solr|vespa|lightgbm|xgboost)[^\n]{0,40}$", re.IGNORECASE)


def _bookkeeping(text: str) -> list:
    return [m.group(0) for m in _BOOKKEEPING.finditer(text)
            if not (m.group(0)[0] in "0123456789abcdef" and _UPSTREAM.search(text[max(0, m.start() - 60):m.start()]))]


def _user_texts():
    import argparse
    import ast

    from boostrank.cli import build_parser

    root = DOCS.parent
    yield "README.md", (root / "README.md").read_text()
    yield "CHANGELOG.md", (root / "CHANGELOG.md").read_text()
    for page in sorted((DOCS / "guide").glob("*.md")):
        yield f"docs/guide/{page.name}", page.read_text()
    for path in sorted((root / "boostrank").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node)
                if doc:
                    yield f"{path.relative_to(root)}:{getattr(node, 'name', 'module')}", doc
    parser = build_parser()
    yield "boostrank --help", parser.format_help()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield f"boostrank {name} --help", sub.format_help()


def test_what_users_read_holds_no_issue_numbers_hashes_or_unrun_cells():
    found = {where: hits for where, text in _user_texts() if (hits := _bookkeeping(text))}
    assert not found, found


@pytest.mark.parametrize("text, hits", [("fixed in issue 42", ["issue 42"]), ("see issues #7", ["issues #7"]),
                                        ("cells marked n.r. here", ["n.r."]), ("the run at bba8dd3 on", ["bba8dd3"]),
                                        ("usnistgov/trec_eval at f425365", []), ("a 1234567 row file", []),
                                        ("https://github.com/microsoft/LightGBM/issues/7018", []),
                                        ("deadbeef", []), ("sha 0a1b2c3d4", ["0a1b2c3d4"])])
def test_the_bookkeeping_scan_finds_what_it_should(text, hits):
    assert _bookkeeping(text) == hits


# ---------------------------------------------------------------- the changelog is a user's
_KINDS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}  # Keep a Changelog's
#: a timing (figures live in benchmarks/MEASUREMENTS.md) or an internal name (a private name, a path in the tree)
_NOT_FOR_USERS = re.compile(r"\d\s*(?:s|ms|µs|x|×)\b|\d\s*(?:->|→)\s*\d|`_\w|_kernels|boostrank/\w+(?:/\w+)*\.py|"
                            r"benchmarks/|tests/")


def _changelog_bullets(section: str):
    bullet = None
    for line in section.splitlines():
        if line.startswith("- "):
            if bullet:
                yield bullet
            bullet = [line]
        elif bullet and line.startswith("  "):
            bullet.append(line)
        else:
            if bullet:
                yield bullet
            bullet = None
    if bullet:
        yield bullet


def test_the_changelog_has_one_section_per_kind_per_version_and_short_bullets_for_users():
    versions = re.split(r"^## ", (DOCS.parent / "CHANGELOG.md").read_text(), flags=re.M)[1:]
    assert versions and versions[0].startswith("[")
    for version in versions:
        kinds = re.findall(r"^### (.+)$", version, flags=re.M)
        assert len(kinds) == len(set(kinds)) and set(kinds) <= _KINDS, (version.splitlines()[0], kinds)
        for bullet in _changelog_bullets(version):
            assert len(bullet) <= 2, bullet
            assert not _NOT_FOR_USERS.search(" ".join(bullet)), bullet


def test_every_public_estimator_and_function_ends_with_a_doctested_example():
    """scikit-learn's convention: an Examples section (which ``--doctest-modules`` runs) on every estimator and
    top-level function; warning and error classes are named, not called."""
    import inspect

    import boostrank as br

    lacking = []
    for name in br.__all__:
        obj = getattr(br, name)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        if inspect.isclass(obj) and issubclass(obj, (Warning, Exception)):
            continue
        doc = inspect.getdoc(obj) or ""
        if "Examples\n--------" not in doc or ">>> " not in doc.split("Examples\n--------")[1]:
            lacking.append(name)
    assert not lacking, lacking
