"""The user guide: warning-free Sphinx build, and every example in it runs.

* ``>>>`` examples in docs/*.rst run as doctests (stdlib doctest, NORMALIZE_WHITESPACE
  and ELLIPSIS), in this process, so pytest's ``filterwarnings = error`` applies: an
  example that raises an unexpected warning fails.
* every shell example (``$ dpinfer ...`` and the rest) runs as written in
  tests/test_docs_shell.py.
* ``sphinx-build -W -b html`` (warnings are errors) builds the site into a temporary
  folder.
"""

import doctest
import re
import subprocess
import sys
from pathlib import Path

import pytest

import dpinfer


DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(DOCS.glob("*.rst"))
PAGES_WITH_EXAMPLES = {"getting_started.rst", "tutorial.rst", "two_arm.rst", "coming_from_r.rst", "means.rst",
                       "designs.rst", "pairs.rst"}


def test_the_guide_has_its_pages():
    names = {p.name for p in PAGES}
    for page in ("index.rst", "getting_started.rst", "tutorial.rst", "two_arm.rst", "privacy.rst", "budget.rst", "cli.rst",
                 "coming_from_r.rst", "glossary.rst", "api.rst"):
        assert page in names, page


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_page_examples_run_as_doctests(page):
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    result = doctest.testfile(str(page), module_relative=False, optionflags=flags, verbose=False,
                              report=True, encoding="utf-8")
    assert result.failed == 0, f"{result.failed} failing example(s) in {page.name}"
    if page.name in PAGES_WITH_EXAMPLES:
        assert result.attempted >= 3, f"{page.name} lost its examples"


@pytest.mark.slow
def test_sphinx_build_is_warning_free(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "html")],
        capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0, out.stderr
    # the API reference: one page per topic, every public name documented exactly once
    html = "".join(page.read_text(encoding="utf-8") for page in (tmp_path / "html").glob("api_*.html"))
    for name in dpinfer.__all__:
        assert html.count(f'id="dpinfer.{name}"') == 1, name
    overview = (tmp_path / "html" / "api.html").read_text(encoding="utf-8")
    assert all(f'href="api_{page}.html"' in overview for page in ("inference", "tables", "local", "releases",
                                                                  "results"))
    assert (tmp_path / "html" / "tutorial.html").is_file()
    assert 'href="budget.html"' in (tmp_path / "html" / "index.html").read_text(encoding="utf-8")
    # read offline (an air-gapped hospital network): no page loads a script from elsewhere,
    # and no formula is left as raw LaTeX for a renderer that never arrives (issue 27)
    for page in (tmp_path / "html").glob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r'<script[^>]+src="(https?:)?//', text), page.name
        assert "\\varepsilon" not in text and "\\(" not in text, page.name


@pytest.mark.slow
def test_example_script_reproduces_the_tutorial():
    # The script runs as a user runs it (a fresh interpreter, warnings as errors),
    # and its printed numbers are the ones the tutorial page shows.
    script = DOCS.parent / "examples" / "tutorial.py"
    out = subprocess.run([sys.executable, "-W", "error", str(script)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    page = (DOCS / "tutorial.rst").read_text(encoding="utf-8")
    for shown in ("value:       9.101406", "p-value = 0.117", " 0.1638284 1.0000000",
                  "[0.1465750, 0.5047911]", "DP-UMP (Tulap)      p = 0.1170  95% lower bound = 0.1638",
                  "normal (Laplace)    p = 0.0238  95% lower bound = 0.2248",
                  "DP-JIMI (Laplace)   p = 0.0279  95% lower bound = 0.2225"):
        assert shown in out.stdout, shown
        assert shown in page, shown
    assert "n = 30: 0.705; n for 80% power: 38" in out.stdout


def test_example_script_main_returns_the_tutorial_numbers():
    import runpy

    numbers = runpy.run_path(str(DOCS.parent / "examples" / "tutorial.py"))["main"]()
    assert numbers["n_needed"] == 38
    assert round(numbers["pvalue"], 4) == 0.117
    assert [round(p, 4) for p in numbers["pvalues"]] == [0.117, 0.0238, 0.0279]
    assert list(numbers["frame"]["pvalue"]) == numbers["pvalues"]


def test_text_column_holds_r_style_printouts():
    # issue 42: alabaster's default column (940 px page - 220 px sidebar - 60 px padding = 660 px)
    # wrapped 72 printout lines of the guide inside their code blocks.  A code block's line holds
    # (column - 60 px of the block's padding) / (font size x 0.602, the advance per em of DejaVu
    # Sans Mono and most monospace faces) characters; alabaster's body font is 17 px.  Measured in
    # headless Chromium at a 1280 px window (means.html): 600 px and 69 characters before, 900 px
    # and 109 characters now (docs/check_rendered.py passes at 1024 and 1280 px).
    import runpy

    conf = runpy.run_path(str(DOCS / "conf.py"))
    options = conf["html_theme_options"]
    assert options["body_max_width"] == "none"  # else basic.css caps the body at 800 px
    column = int(options["page_width"].removesuffix("px")) - int(options["sidebar_width"].removesuffix("px")) - 60
    css = (DOCS / "_static" / "custom.css").read_text(encoding="utf-8")
    em = float(re.search(r"div\.highlight pre \{ font-size: ([0-9.]+)em", css).group(1))
    assert "white-space: pre-wrap" in css  # a longer line still wraps (at a space) instead of overflowing

    def characters(width, scale):
        return int((width - 60) / (17 * scale * 0.602))

    assert characters(660, 0.85) == 68 and characters(column, em) >= 109
    lines = [len(line.expandtabs()) for page in PAGES
             for example in doctest.DocTestParser().get_examples(page.read_text(encoding="utf-8"))
             for line in example.want.splitlines()]
    assert len(lines) > 300
    assert sum(n > characters(660, 0.85) for n in lines) > 60  # what wrapped before
    assert sum(n > characters(column, em) for n in lines) <= 16  # long error messages, two-group data lines
