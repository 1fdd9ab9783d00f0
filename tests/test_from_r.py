"""The "Coming from R" page (docs/coming_from_r.rst): its recipes run, its R function reads fields that exist.

With R installed (``Rscript`` on PATH, with jsonlite) the page's ``as_htest()``
runs on the command's ``--format htest-json`` output and R's own ``print.htest``
is compared with dpinfer's print; with reticulate too, the reticulate, draws and
logistic recipes run in R against the Python running the tests.  Without R those
tests are skipped and say so (CI installs R: see ``.ci/run``).
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dpinfer import binom_ump_test
from dpinfer.cli import main

PAGE = Path(__file__).resolve().parents[1] / "docs" / "coming_from_r.rst"
ARGS = ["test", "--z", "12.7", "--n", "30", "--epsilon", "1", "--p0", "0.2",
        "--alternative", "greater", "--format", "htest-json"]


def _r_blocks():
    """The ``.. code-block:: r`` bodies of the page, dedented."""
    text = PAGE.read_text()
    blocks = []
    for match in re.finditer(r"\.\. code-block:: r\n((?:   :.*\n)*)\n((?:(?:   .*)?\n)+)", text):
        blocks.append("\n".join(line[3:] for line in match.group(2).splitlines()))
    return blocks


def _as_htest_source():
    (source,) = [b for b in _r_blocks() if "as_htest <- function" in b]
    return source


def _htest_json(capsys, args=ARGS):
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


def test_page_has_the_three_recipes():
    blocks = _r_blocks()
    assert len(blocks) == 5  # the three recipes, the fima_prop draws and the fima_logistic mapping
    assert any("library(jsonlite)" in b and "htest-json" in b for b in blocks)
    assert any("library(reticulate)" in b and "to_htest()" in b for b in blocks)


def test_fima_prop_recipe_calls_what_python_runs():
    # The R recipe's call, run in Python with the same arguments: a vector of n_sim draws in [0, 1].
    from dpinfer import LaplaceReleaser, binom_jimi_sample

    (block,) = [b for b in _r_blocks() if "binom_jimi_sample(" in b]
    assert "proportion(11L, 30L, secure = TRUE)" in block and "n_sim = 10000L, rng = 1L" in block
    draws = binom_jimi_sample(LaplaceReleaser(epsilon=1.0).proportion(11, 30, secure=True), n_sim=10000, rng=1)
    assert draws.shape == (10000,) and ((draws >= 0) & (draws <= 1)).all()


def test_fima_logistic_recipe_calls_what_python_runs():
    # The R mapping's table (byrow = TRUE) and design are those of the page's Python example.
    from dpinfer import ContingencyTableReleaser, logistic_jimi

    (block,) = [b for b in _r_blocks() if "logistic_jimi(" in b]
    cells = [int(v) for v in re.findall(r"(\d+)L", block.split("matrix(c(", 1)[1].split(")", 1)[0])]
    assert "byrow = TRUE" in block and 'arm = c("placebo", "drug"), sex = c("F", "M")' in block
    counts = [cells[i:i + 2] for i in range(0, len(cells), 2)]
    assert counts == [[60, 40], [35, 65], [30, 70], [15, 85]]
    fit = logistic_jimi(ContingencyTableReleaser(1.0).release(counts, rng=5),
                        design={"arm": ["placebo", "drug"], "sex": ["F", "M"]}, n_sim=200, rng=1)
    assert fit.terms == ("(Intercept)", "armdrug", "sexM")


def test_as_htest_reads_only_fields_the_command_writes(capsys):
    source = _as_htest_source()
    read = set(re.findall(r"h\$([A-Za-z.]+)", source))
    read |= set(re.findall(r'"([a-z.]+)"', source.split("h[c(")[1].split(")]")[0]))
    record = _htest_json(capsys)
    assert read <= set(record), read - set(record)
    assert {"statistic", "p.value", "conf.int", "estimate", "null.value", "alternative",
            "method", "data.name", "epsilon", "delta", "mechanism", "secure"} <= read


def test_jsonlite_recipe_call_matches_python(capsys):
    # the jsonlite recipe's exact arguments; the reticulate recipe's call in Python
    blocks = [b for b in _r_blocks() if "library(jsonlite)" in b]
    recipe_args = re.findall(r'"([^"]+)"', blocks[0].split("c(", 1)[1].split(")", 1)[0])
    assert recipe_args == ARGS
    record = _htest_json(capsys)
    python = binom_ump_test(12.7, 30, 0.2, epsilon=1.0, alternative="greater").to_htest()
    assert record == json.loads(json.dumps(python))


def _r_with_jsonlite():
    rscript = shutil.which("Rscript")
    if rscript is None:
        return None, "R is not installed on this machine (no Rscript on PATH)"
    probe = subprocess.run([rscript, "-e", "quit(status = !requireNamespace('jsonlite', quietly = TRUE))"],
                           capture_output=True, text=True, timeout=120)
    if probe.returncode != 0:
        return None, "R is installed but the jsonlite package is not"
    return rscript, ""


def test_r_snippet_builds_a_real_htest(tmp_path, capsys):
    rscript, reason = _r_with_jsonlite()
    if rscript is None:
        pytest.skip(reason)
    record = _htest_json(capsys)
    (tmp_path / "h.json").write_text(json.dumps(record))
    script = _as_htest_source() + (
        '\nh <- jsonlite::fromJSON("h.json", simplifyVector = FALSE)\n'
        "res <- as_htest(h)\n"
        'stopifnot(inherits(res, "htest"), is.numeric(res$p.value))\n'
        "print(res)\n"
    )
    (tmp_path / "run.R").write_text(script)
    out = subprocess.run([rscript, "run.R"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    ours = str(binom_ump_test(12.7, 30, 0.2, epsilon=1.0, alternative="greater"))
    # R prints the htest block; ours adds the privacy lines after it
    r_lines = [line.rstrip() for line in out.stdout.splitlines()]
    our_lines = [line.rstrip() for line in ours.split("\nprivacy:")[0].splitlines()]
    assert r_lines[:len(our_lines)] == our_lines, (out.stdout, ours)


@pytest.mark.slow
def test_r_reticulate_recipes_run(tmp_path):
    # the reticulate recipe, the fima_prop draws and the fima_logistic mapping, as the page gives them,
    # in one R session (reticulate 1.28 with NumPy 2 included: no array crosses unconverted)
    rscript, reason = _r_with_jsonlite()
    if rscript is None:
        pytest.skip(reason)
    probe = subprocess.run([rscript, "-e", "quit(status = !requireNamespace('reticulate', quietly = TRUE))"],
                           capture_output=True, text=True, timeout=120)
    if probe.returncode != 0:
        pytest.skip("R is installed but the reticulate package is not")
    blocks = _r_blocks()
    recipes = [b for b in blocks if "library(reticulate)" in b]
    recipes += [b for b in blocks if "binom_jimi_sample(" in b or "logistic_jimi(" in b]
    assert len(recipes) == 3
    script = _as_htest_source() + "\n" + "\n".join(recipes) + (
        '\nstopifnot(inherits(as_htest(res$to_htest()), "htest"), is.numeric(res$pvalue))\n'
        "stopifnot(is.numeric(draws), length(draws) == 10000, all(draws >= 0 & draws <= 1))\n"
        'stopifnot(is.data.frame(coefs), identical(coefs$term, c("(Intercept)", "armdrug", "sexM")))\n'
    )
    (tmp_path / "run.R").write_text(script)
    out = subprocess.run([rscript, "run.R"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, RETICULATE_PYTHON=sys.executable))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "p-value" in out.stdout and "Coefficients:" in out.stdout
