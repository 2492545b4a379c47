"""boostrank.exceptions: every warning and error class in one home, importable where it is raised."""

import ast
import inspect
from pathlib import Path

import pytest

import boostrank as br
import boostrank.exceptions as exc

PKG = Path(br.__file__).resolve().parent


def test_every_warning_and_error_class_lives_in_exceptions():
    """One home for the classes users filter or catch; the modules that raise them import them from there."""
    for path in PKG.rglob("*.py"):
        for node in ast.parse(path.read_text()).body:
            # private ones are control flow that never leaves the module (the trec_eval command's exit status)
            if isinstance(node, ast.ClassDef) and node.name.endswith(("Warning", "Error")) and node.name[0] != "_":
                assert path.name == "exceptions.py", f"{path.relative_to(PKG)} defines {node.name}"
    public = {n for n, o in vars(exc).items() if inspect.isclass(o) and issubclass(o, (Warning, Exception))}
    assert public == set(exc.__all__)
    assert br.OneListWarning is exc.OneListWarning and br.LetorFormatError is exc.LetorFormatError
    from boostrank.io.letor import LetorFormatError
    from boostrank.export import ExportWarning
    from boostrank.mip.estimator import NothingToRankWarning

    assert (LetorFormatError, ExportWarning, NothingToRankWarning) == (exc.LetorFormatError, exc.ExportWarning,
                                                                     exc.NothingToRankWarning)


@pytest.mark.parametrize("name", exc.__all__)
def test_each_is_a_warning_users_can_filter_or_an_error_they_can_catch_as_valueerror(name):
    cls = getattr(exc, name)
    assert issubclass(cls, UserWarning) or issubclass(cls, ValueError)
    assert cls.__module__ == "boostrank.exceptions" and cls.__doc__
