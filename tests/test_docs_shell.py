"""Every shell example of the user guide and the README runs as written (issue 42, item 4).

Each page's shell commands (``.. code-block:: console`` / ``bash`` / ``sh`` and ``$ `` lines
of literal blocks; continuation lines ending in ``\\`` joined) run in order, each through
``bash -c`` in a scratch folder of that page's own, with the virtual environment's
``dpinfer`` (and ``python``) first on PATH and ``.venv`` linked there to that environment,
so ``.venv/bin/dpinfer demo`` runs as the install steps leave it.  A file an example reads
must be made by an earlier command of the same page, as a reader following the page would
make it.  Every command must exit with status 0, and print each output line a console block
shows under it (hex digests, which differ between unseeded runs, aside).

A plain ``dpinfer ARGS [> FILE]`` runs in this process through ``dpinfer.cli.main``, the
function the ``dpinfer`` script calls (checked below), with its words split as POSIX sh
splits them (:func:`shlex.split`) and its output written to FILE: the same run without a
new interpreter's start-up per line, which keeps the file under a minute on a loaded
machine.  Everything else (``printf``, ``.venv/bin/dpinfer``, ``python -m ...``) goes to bash.

The few commands that install software or run for minutes are listed in ``NOT_RUN`` with
the reason; of those that take options, the options are checked against the command's
``--help``, run from the repository root.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BIN = Path(sys.executable).parent  # the environment running the suite: its dpinfer, its python

SHELLS = ("console", "bash", "sh", "shell")

#: command (as written) -> why the suite does not run it
NOT_RUN = {
    "python3 -m venv .venv": "makes the environment the suite already runs in",
    ".venv/bin/pip install -e .            # add '.[frames]' for pandas": "installs into that environment",
    "python3 -m venv .venv && .venv/bin/pip install -q -e .": "makes and installs the environment the suite "
                                                              "runs in",
    "apt-get install r-base-core r-cran-reticulate r-cran-jsonlite r-cran-testthat": "a system install (root)",
    "R CMD INSTALL r": "installs the R package; tests/test_from_r_package.py and .ci/run install and test it",
    "python -m validation.size --out my_results": "the full study runs for minutes; cli.rst's "
                                                   "'dpinfer validate size --quick' runs its small grid",
    "python -m validation.coverage --mode simulate --reps 10000 --executor dask": "10000 simulated data sets "
                                                                                   "per point on a Dask cluster",
}


def shell_commands(text):
    """``[(line, command, shown)]``: the shell commands of reST ``text``, in order, each with the
    output lines a console block shows under it (``shown``, a tuple)."""
    lines = text.splitlines()
    found, i = [], 0
    while i < len(lines):
        line = lines[i]
        directive = re.match(r"(\s*)\.\. code-block::\s*(\S+)", line)
        literal = line.rstrip().endswith("::") and not line.lstrip().startswith("..")
        if not (directive or literal):
            i += 1
            continue
        indent = len(line) - len(line.lstrip())
        every_line = bool(directive) and directive.group(2) in ("bash", "sh", "shell")
        dollar_lines = not directive or directive.group(2) in SHELLS
        j, body = i + 1, []
        while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
            body.append((j + 1, lines[j].strip()))
            j += 1
        pending = None
        for number, content in body:
            if pending is not None:
                pending = (pending[0], pending[1][:-1].rstrip() + " " + content)
            elif dollar_lines and content.startswith("$ "):
                pending = (number, content[2:])
            elif every_line and content and not content.startswith(("#", ":")):
                pending = (number, content)
            else:
                if content and dollar_lines and not every_line and found and found[-1][0] > i:
                    found[-1] = (*found[-1][:2], found[-1][2] + (content,))  # output shown under it
                continue
            if not pending[1].endswith("\\"):
                found.append((*pending, ()))
                pending = None
        i = j
    return found


PAGES = {page.name: shell_commands(page.read_text(encoding="utf-8")) for page in sorted(DOCS.glob("*.rst"))}
PAGES = {name: commands for name, commands in PAGES.items() if commands}


def _scratch(folder):
    """Environment and folder of a reader: the suite's dpinfer first on PATH, ``.venv`` linked to it."""
    folder.mkdir(exist_ok=True)
    link = folder / ".venv"
    if not link.exists():
        link.symlink_to(sys.prefix, target_is_directory=True)
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "VIRTUAL_ENV": sys.prefix}
    env.pop("PYTHONPATH", None)
    return env


def _in_process(command, folder, where):
    """Run a plain ``dpinfer ARGS [> FILE]`` through ``dpinfer.cli.main``: what it printed to the
    terminal (stderr, and stdout unless redirected); None for anything else (bash runs it)."""
    import contextlib
    import io

    from dpinfer.cli import main

    if any(c in command for c in "$`*?~|<;&"):  # expansions, globs, pipes, lists: bash's own work
        return None
    words = shlex.split(command, comments=True)
    if words[0] != "dpinfer" or any(">" in w and w != ">" for w in words):
        return None
    target = None
    if ">" in words:
        at = words.index(">")
        if len(words) != at + 2:
            return None
        words, target = words[:at], words[at + 1]
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    try:
        os.chdir(folder)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(words[1:])
            except SystemExit as exc:  # argparse: --help, usage errors
                code = exc.code
    finally:
        os.chdir(here)
    assert code == 0, f"{where}: `{command}` exited {code}:\n{err.getvalue()[-2000:]}\n{out.getvalue()[-500:]}"
    if target is None:
        return out.getvalue() + err.getvalue()
    (folder / target).write_text(out.getvalue(), encoding="utf-8")
    return err.getvalue()


def _run(command, folder, env, where):
    done = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, (f"{where}: `{command}` exited {done.returncode}:\n{done.stderr[-2000:]}"
                                  f"\n{done.stdout[-500:]}")
    return done


def _check_options(command, env):
    """A command not run: its options must be ones its ``--help`` (run from the checkout) lists."""
    words = command.split("#")[0].split()
    options = [w.split("=")[0] for w in words if w.startswith("--")]
    if not options or words[0] not in ("python", "dpinfer"):
        return
    head = words[:words.index(options[0])] if options else words
    done = _run(" ".join(head + ["--help"]), ROOT, env, "help")
    for option in options:
        assert option in done.stdout, f"`{command}`: {option} is not an option of `{' '.join(head)}`"


def test_the_pages_have_shell_examples():
    assert {"cli.rst", "budget.rst", "means.rst", "getting_started.rst", "two_arm.rst"} <= set(PAGES)
    assert sum(len(c) for c in PAGES.values()) >= 70
    assert ("index.rst", "dpinfer demo") in {(name, c) for name, commands in PAGES.items() for _, c, _ in commands}
    # every command the suite leaves out is still written on a page
    written = {command for commands in PAGES.values() for _, command, _ in commands}
    assert set(NOT_RUN) <= written


def test_dpinfer_on_the_path_is_this_environment_s_and_calls_cli_main(tmp_path):
    env = _scratch(tmp_path)
    assert _run("command -v dpinfer", tmp_path, env, "PATH").stdout.strip() == str(BIN / "dpinfer")
    assert "from dpinfer.cli import main" in (BIN / "dpinfer").read_text(encoding="utf-8")
    # one command both ways: the same output
    _run("dpinfer demo --data > a.csv", tmp_path, env, "bash")
    assert _in_process("dpinfer demo --data > b.csv", tmp_path, "in process") == ""
    assert (tmp_path / "a.csv").read_text() == (tmp_path / "b.csv").read_text()
    assert (tmp_path / "a.csv").read_text().startswith("patient_id,response\n")


def test_the_parser_reads_continuations_and_literal_blocks():
    text = ("Run::\n\n    $ dpinfer a \\\n        --b 1 > x.json\n    output line\n\n"
            ".. code-block:: bash\n\n   # a comment\n   dpinfer c\n\n.. code-block:: text\n\n   $ not run\n")
    assert shell_commands(text) == [(3, "dpinfer a --b 1 > x.json", ("output line",)), (10, "dpinfer c", ())]
    assert _same("ledger: 2 entries, head digest 5f0c...", "x\nledger: 2 entries, head digest 25fa0d9d61693a61...")
    assert not _same("dpinfer release: stage 2 of 2 -> stop for efficacy", "dpinfer release: stage 2 of 2 -> continue")


def _same(shown, printed):
    """A shown output line is printed, hex digests (which differ per unseeded run) aside."""
    def plain(text):
        return re.sub(r"[0-9a-f]{4,}", "#", text.strip())

    return plain(shown) in {plain(line) for line in printed.splitlines()}


@pytest.mark.parametrize("page", sorted(PAGES))
def test_shell_examples_run_as_written(page, tmp_path):
    env = _scratch(tmp_path)
    for line, command, shown in PAGES[page]:
        if command in NOT_RUN:
            _check_options(command, env)
            continue
        printed = _in_process(command, tmp_path, f"{page}:{line}")
        if printed is None:
            done = _run(command, tmp_path, env, f"{page}:{line}")
            printed = done.stdout + done.stderr
        for text in shown:
            assert _same(text, printed), f"{page}:{line}: `{command}` does not print {text!r}:\n{printed[-1500:]}"


def _readme_blocks():
    return re.findall(r"```[a-z]*\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.S)


def test_readme_commands_run_as_written(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    install = "python3 -m venv .venv && .venv/bin/pip install -q -e "
    blocks = _readme_blocks()
    main, shown, suite = blocks[0].strip(), blocks[1].strip(), blocks[2].strip()
    env = _scratch(tmp_path)
    # the main command: install (the environment the suite runs in), then the demo, whose last
    # line is the one the README shows
    assert main.startswith(install + ". && ")
    out = _run(main.split(" && ", 2)[2], tmp_path, env, "README").stdout
    assert out.rstrip().splitlines()[-1] == shown
    # the suite's command: not run here (it is this suite)
    assert suite.startswith(install + "'.[test]' && .venv/bin/python -m pytest ")
    # the rendered-page check, with the environment's python as the README says (its --help: the
    # check itself needs Chromium)
    assert "`.venv/bin/python docs/check_rendered.py`" in readme
    assert "usage: check_rendered.py" in _run(".venv/bin/python docs/check_rendered.py --help", ROOT, env,
                                              "README").stdout
    assert "`.venv/bin/python -m sphinx -b html docs docs/_build/html`" in readme  # run by test_docs.py
    pytest.importorskip("xdist")  # the suite command's -n 2
