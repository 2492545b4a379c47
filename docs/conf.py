"""Sphinx configuration: the API reference, built from the numpydoc docstrings (CI builds it with -W)."""

import boostrank

project = "boostrank"
release = version = boostrank.__version__
extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary", "numpydoc"]
autosummary_generate = True
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
autodoc_typehints = "none"  # the docstrings state the types
html_theme = "alabaster"
exclude_patterns = ["_build"]
nitpicky = False
