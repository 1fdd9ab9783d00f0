"""The user guide: warning-free Sphinx build, and every example in it runs.

* ``>>>`` examples in docs/*.rst run as doctests (stdlib doctest, NORMALIZE_WHITESPACE
  and ELLIPSIS), in this process, so pytest's ``filterwarnings = error`` applies: an
  example that raises an unexpected warning fails.
* ``$ dpinfer ...`` lines in the pages' console blocks run through the command's
  ``main`` in a scratch folder holding the example trial as ``trial.csv``
  (``> FILE`` redirections are honoured), and must exit with status 0.
* ``sphinx-build -W -b html`` (warnings are errors) builds the site into a temporary
  folder.
"""

import doctest
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import dpinfer

from dpinfer import load_example_trial

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


def _console_commands(page):
    lines = page.read_text(encoding="utf-8").splitlines()
    return [line.strip()[2:] for line in lines if line.strip().startswith("$ dpinfer ")]


CONSOLE = [(p, cmd) for p in PAGES for cmd in _console_commands(p)]


def test_console_examples_exist():
    assert any(p.name == "cli.rst" for p, _ in CONSOLE)
    assert any(cmd.startswith("dpinfer demo") for _, cmd in CONSOLE)


@pytest.mark.slow
def test_console_examples_run(tmp_path, monkeypatch, capsys):
    from dpinfer.cli import main

    shutil.copy(load_example_trial().path, tmp_path / "trial.csv")
    # the contingency-table examples of cli.rst: a table of counts, and a published noisy one
    (tmp_path / "counts.csv").write_text('"","improved","not improved"\n"drug",70,55\n"placebo",50,75\n')
    (tmp_path / "noisy.csv").write_text("71.3,52.9\n47.2,78.8\n")
    monkeypatch.chdir(tmp_path)
    for page, command in CONSOLE:  # in page order: a release file is written before it is read
        words = shlex.split(command)[1:]
        target = None
        if ">" in words:
            at = words.index(">")
            words, target = words[:at], words[at + 1]
        code = main(words)
        out = capsys.readouterr()
        assert code == 0, f"{page.name}: `{command}` exited {code}: {out.err}"
        if target is not None:
            (tmp_path / target).write_text(out.out)


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
