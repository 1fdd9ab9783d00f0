"""Sphinx configuration of the dpinfer user guide.

Build: ``sphinx-build -W -b html docs docs/_build/html`` (the test suite runs the
same build into a temporary folder, warnings as errors, in tests/test_docs.py).
"""

import re
from pathlib import Path

import dpinfer

HERE = Path(__file__).resolve().parent

project = "dpinfer"
author = "the dpinfer developers"
copyright = "2026, the dpinfer developers"
release = dpinfer.__version__
version = release

# No sphinx.ext.mathjax: its script comes from a CDN, which an air-gapped hospital network
# cannot reach (issue 27).  The few formulas are written in Unicode (class "formula").
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
]

# The API page lists objects with autosummary tables and documents them on the
# same page, so no stub files are generated into the source tree.
autosummary_generate = False
autodoc_default_options = {"members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = False

exclude_patterns = ["_build", "**/.ipynb_checkpoints"]
templates_path = []
html_theme = "alabaster"
html_static_path = ["_static"]
html_css_files = ["custom.css"]
html_title = f"dpinfer {release}"
# A wide text column (issue 42): R-style printouts (htest's "data:" and "privacy:" lines run to
# 110-150 characters) need about 960 px, which alabaster's default (940 px page, 220 px sidebar,
# 800 px body cap: a 660 px column) wrapped inside code blocks.  Prose keeps a readable measure
# (custom.css caps paragraphs at 46em); the page switches to one column below page_width.
_PAGE_WIDTH, _SIDEBAR_WIDTH = 1240, 220
html_theme_options = {
    "description": "Statistical inference on differentially private releases",
    "fixed_sidebar": True,
    "page_width": f"{_PAGE_WIDTH}px",
    "sidebar_width": f"{_SIDEBAR_WIDTH}px",
    "body_max_width": "none",
}
pygments_style = "sphinx"


def _add_validation_gallery(app, docname, source):
    """List validation.rst in the index toctree when the validation gallery exists.

    The gallery page is written by the validation studies; a checkout without it
    still builds warning-free.
    """
    if docname == "index" and (HERE / "validation.rst").is_file():
        source[0] = source[0].replace("   glossary\n", "   validation\n   glossary\n", 1)


# --------------------------------------------------------------------------- API page
# (title, modules whose public names go in the section), in page order.  A module
# named in _API_SECTION_OF goes to that section whatever its package.
_API_GROUPS = [
    ("One entry point", ("dpinfer.inference.prop",)),
    ("DP-UMP inference for Tulap releases", ("dpinfer.inference.ump",)),
    ("Two arms: exact inference from two Tulap releases", ("dpinfer.inference.two_arm",)),
    ("Several sites and strata", ("dpinfer.inference.strata",)),
    ("Normal approximation for Laplace releases", ("dpinfer.inference.normal",)),
    ("DP-JIMI for Laplace releases", ("dpinfer.inference.jimi",)),
    ("Means of clipped data", ("dpinfer.inference.means",)),
    ("Designs with interim looks", ("dpinfer.inference.designs",)),
    ("Paired data and many arms against a control", ("dpinfer.inference.pairs", "dpinfer.releasers.paired")),
    ("Contingency tables", ("dpinfer.inference.table", "dpinfer.releasers.table")),
    ("Logistic regression from a private table", ("dpinfer.inference.logistic",)),
    ("Time-to-event endpoints", ("dpinfer.inference.survival", "dpinfer.releasers.life_table")),
    ("Local differential privacy", ("dpinfer.inference.local", "dpinfer.releasers.local",
                                    "dpinfer.releasers.randomized_response")),
    ("Designs with interim looks", ("dpinfer.inference.designs",)),
    ("Robust and other inference", ("dpinfer.inference",)),
    ("Auditing a mechanism", ("dpinfer.audit",)),
    ("Releasing a statistic", ("dpinfer.releasers",)),
    ("Privacy budgets", ("dpinfer.budget",)),
    ("Noise distributions", ("dpinfer.distributions",)),
    ("Results", ("dpinfer.results",)),
    ("Simulation at scale", ("dpinfer.simulation",)),
    ("Example data", ("dpinfer.datasets",)),
    ("Warnings", ("dpinfer._warnings",)),
]


_API_SECTION_OF = {"dpinfer.inference.local._robust": "Robust and other inference"}


def _api_sections():
    """(title, names) for every name in ``dpinfer.__all__``, grouped by defining module."""
    placed, sections = set(), []
    for title, prefixes in _API_GROUPS:
        names = []
        for name in dpinfer.__all__:
            module = getattr(getattr(dpinfer, name), "__module__", "") or ""
            wanted = _API_SECTION_OF.get(module)
            if wanted is not None:
                fits = wanted == title
            else:
                fits = any(module == p or module.startswith(p + ".") for p in prefixes)
            if name not in placed and fits:
                names.append(name)
        if names:
            placed.update(names)
            sections.append((title, names))
    rest = [n for n in dpinfer.__all__ if n not in placed]
    if rest:
        sections.append(("Other", rest))
    return sections


def _api_listing(titles=None):
    """reST documenting the names of the sections ``titles`` (every section when None)."""
    import inspect

    out = []
    for title, names in _api_sections():
        if titles is not None and title not in titles:
            continue
        out += [title, "-" * len(title), "", ".. currentmodule:: dpinfer", "", ".. autosummary::", ""]
        out += [f"   {name}" for name in names]
        out.append("")
        for name in names:
            obj = getattr(dpinfer, name)
            if inspect.isclass(obj):
                out += [f".. autoclass:: {name}", "   :members:", "   :exclude-members: __init__, __new__", ""]
            else:
                out += [f".. autofunction:: {name}", ""]
    return "\n".join(out)


def _api_overview():
    """reST of the API index: one summary table per topic page, linking to the documented names."""
    sections = dict(_api_sections())
    out = []
    for page, titles in _API_PAGES.items():
        for title in titles:
            if title not in sections:
                continue
            out += [f"**{title}** (:doc:`{page}`)", "", ".. currentmodule:: dpinfer", "",
                    ".. autosummary::", ""]
            out += [f"   {name}" for name in sections[title]]
            out.append("")
    return "\n".join(out)


#: The API reference's topic pages: docname -> the sections (titles of _API_GROUPS) it holds.
#: Names no group claims go under "Other" on the last page.
_API_PAGES = {
    "api_inference": ("One entry point", "DP-UMP inference for Tulap releases",
                      "Two arms: exact inference from two Tulap releases", "Several sites and strata",
                      "Normal approximation for Laplace releases", "DP-JIMI for Laplace releases",
                      "Means of clipped data", "Designs with interim looks",
                      "Paired data and many arms against a control"),
    "api_tables": ("Contingency tables", "Logistic regression from a private table", "Time-to-event endpoints"),
    "api_local": ("Local differential privacy", "Robust and other inference"),
    "api_releases": ("Releasing a statistic", "Privacy budgets", "Auditing a mechanism",
                     "Noise distributions"),
    "api_results": ("Results", "Simulation at scale", "Example data", "Warnings", "Other"),
}


def _fill_api_page(app, docname, source):
    if docname == "api":
        source[0] = source[0].replace(".. dpinfer-api-listing", _api_overview())
    elif docname in _API_PAGES:
        source[0] = source[0].replace(".. dpinfer-api-listing", _api_listing(_API_PAGES[docname]))


_LITERAL = re.compile(r"``.*?``|`[^`]*`")


def _escape_bars(app, what, name, obj, options, lines):
    """Escape ``|`` in docstring prose, where it means an absolute value (``|x| <= 3``).

    Docstrings are plain-text numpydoc first, so ``|x|`` there is mathematics, not a
    reST substitution; literals, roles and table or line-block rows are left alone.
    """
    for i, line in enumerate(lines):
        if "|" not in line or line.lstrip().startswith(("|", "+")):
            continue
        parts, last = [], 0
        for match in _LITERAL.finditer(line):
            parts.append(line[last:match.start()].replace("|", "\\|"))
            parts.append(match.group(0))
            last = match.end()
        parts.append(line[last:].replace("|", "\\|"))
        lines[i] = "".join(parts)


def setup(app):
    app.connect("autodoc-process-docstring", _escape_bars)
    app.connect("source-read", _add_validation_gallery)
    app.connect("source-read", _fill_api_page)
