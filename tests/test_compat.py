"""boostrank._compat: other libraries' private names and the optional dependencies' messages, in one place."""

import ast
import sys
from pathlib import Path

import pytest

import boostrank as br
from boostrank import _compat

PKG = Path(br.__file__).resolve().parent


def test_the_private_names_are_scikit_learns():
    from sklearn.utils import _safe_indexing
    from sklearn.utils._param_validation import HasMethods, Interval, Options, StrOptions

    assert (_compat.safe_indexing, _compat.HasMethods, _compat.Interval, _compat.Options, _compat.StrOptions) == (
        _safe_indexing, HasMethods, Interval, Options, StrOptions)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _compat.nope


@pytest.mark.parametrize("extra, package, want", [
    ("cbc", None, "pip install 'boostrank[cbc]'"),
    ("xgboost", "xgboost", "pip install 'boostrank[xgboost]'"),
    ("plot", "matplotlib", "pip install 'boostrank[plot]' (or pip install matplotlib)"),
])
def test_install_hint(extra, package, want):
    assert _compat.install_hint(extra, package) == want


def test_a_missing_optional_dependency_names_its_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    d = br.io.letor.LetorData(X=[[0.0]], y=[1], qid=[1])
    with pytest.raises(ImportError, match=r"a DataFrame needs pandas: pip install 'boostrank\[pandas\]'"):
        d.to_frame()
    monkeypatch.setitem(sys.modules, "xgboost", None)
    from boostrank.engines.xgboost import import_xgboost

    with pytest.raises(ImportError, match=r"XGBoost's engine needs xgboost: pip install 'boostrank\[xgboost\]'"):
        import_xgboost()
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    from boostrank.evaluation.plots import _figure

    with pytest.raises(ImportError, match=r"boostrank's plots need matplotlib: pip install 'boostrank\[plot\]' "
                                          r"\(or pip install matplotlib\)"):
        _figure()


def _code_strings(tree):
    """String constants of a module's code, docstrings left out."""
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body
            and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docs]


def test_no_other_module_imports_private_names_or_writes_install_messages():
    for path in PKG.rglob("*.py"):
        if path.name == "_compat.py":
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level and node.module.split(".")[0] not in ("__future__", "boostrank"):
                private = [a.name for a in node.names if a.name.startswith("_")]
                assert not any(part.startswith("_") for part in node.module.split(".")) and not private, (
                    f"{path.relative_to(PKG)} imports {node.module}: {private}")
        assert not [s for s in _code_strings(tree) if "pip install" in s], path.relative_to(PKG)


def test_lightgbms_alias_table_names_its_parameters():
    table = _compat.lightgbm_param_aliases()
    assert "num_leaves" in table and "num_leaf" in table["num_leaves"]
