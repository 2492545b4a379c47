"""Sphinx configuration: the user guide (Markdown, MyST) and the API reference from the numpydoc docstrings (the
tests build it with -W)."""

import boostrank

project = "boostrank"
release = version = boostrank.__version__
extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary", "numpydoc", "myst_parser"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
myst_heading_anchors = 3
autosummary_generate = True
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
autodoc_typehints = "none"  # the docstrings state the types
html_theme = "alabaster"
exclude_patterns = ["_build"]
nitpicky = False
