"""The R package in r/ and its page docs/from_r_package.rst ("dpinfer from R").

With R installed (``R`` and ``Rscript`` on PATH, with reticulate) the package is
installed into a scratch library and the page's R blocks run in one ``Rscript``
session against the Python running these tests; the printed test must equal the
output the page shows, and the numbers R returns must equal Python's for the same
seeded releases, to the last bit.  Without R these tests are skipped, saying so
(CI installs R: see ``.ci/run``).  The package's own tests are in r/tests/testthat.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "from_r_package.rst"
R_DEBS = "r-base-core r-cran-reticulate r-cran-jsonlite r-cran-testthat"


def _blocks(kind):
    """(name, body) of the page's ``.. code-block:: KIND`` blocks, dedented."""
    text = PAGE.read_text(encoding="utf-8")
    out = []
    pattern = rf"\.\. code-block:: {kind}\n((?:   :.*\n)*)\n((?:(?:   .*)?\n)+)"
    for match in re.finditer(pattern, text):
        name = re.search(r":name: (\S+)", match.group(1))
        body = "\n".join(line[3:] for line in match.group(2).splitlines())
        out.append((name.group(1) if name else None, body))
    return out


def test_page_is_in_the_guide_and_names_the_install_commands():
    index = (ROOT / "docs" / "index.rst").read_text(encoding="utf-8")
    assert re.search(r"^   from_r_package$", index, re.M)
    console = "\n".join(body for _, body in _blocks("console"))
    assert f"$ apt-get install {R_DEBS}" in console and "$ R CMD INSTALL r" in console
    (setup,) = [body for name, body in _blocks("r") if name == "r-setup"]
    assert "RETICULATE_PYTHON" in setup and "library(dpinfer)" in setup
    # the same Debian packages in CI and in the README
    assert f'R_DEBS="{R_DEBS}"' in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert f"apt-get install {R_DEBS}" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_package_exports_what_the_page_uses():
    namespace = (ROOT / "r" / "NAMESPACE").read_text(encoding="utf-8")
    exported = set(re.findall(r"^export\((\w+)\)$", namespace, re.M))
    used = set(re.findall(r"\b(dp_\w+)\(", "\n".join(body for _, body in _blocks("r"))))
    assert used and used <= exported, used - exported
    for name in exported:
        assert (ROOT / "r" / "man").glob("*.Rd") and any(
            f"\\alias{{{name}}}" in p.read_text(encoding="utf-8") for p in (ROOT / "r" / "man").glob("*.Rd")), name


@pytest.fixture(scope="module")
def r_library(tmp_path_factory):
    """A scratch R library holding the package of r/; skips when R or reticulate is missing."""
    rbin, rscript = shutil.which("R"), shutil.which("Rscript")
    if rbin is None or rscript is None:
        pytest.skip(f"R is not installed on this machine (apt-get install {R_DEBS})")
    probe = subprocess.run([rscript, "-e", "quit(status = !requireNamespace('reticulate', quietly = TRUE))"],
                           capture_output=True, text=True, timeout=120)
    if probe.returncode != 0:
        pytest.skip("R is installed but the reticulate package is not (apt-get install r-cran-reticulate)")
    lib = tmp_path_factory.mktemp("rlib")
    out = subprocess.run([rbin, "CMD", "INSTALL", "--no-test-load", "-l", str(lib), str(ROOT / "r")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    return lib


def _run_r(source, lib, cwd):
    env = dict(os.environ, RETICULATE_PYTHON=sys.executable, R_LIBS=str(lib))
    (cwd / "run.R").write_text(source, encoding="utf-8")
    out = subprocess.run([shutil.which("Rscript"), "run.R"], cwd=cwd, env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    return out


@pytest.mark.slow
def test_page_r_blocks_run_and_print_what_the_page_shows(r_library, tmp_path):
    blocks = [body for name, body in _blocks("r") if name != "r-setup"]
    assert len(blocks) >= 7
    run = _run_r("library(dpinfer)\nstopifnot(dp_available())\n" + "\n".join(blocks), r_library, tmp_path)
    out = run.stdout
    (shown,) = [body for name, body in _blocks("text") if name == "r-binom-output"]
    printed = [line.strip() for line in out.splitlines() if line.strip()]
    expected = [line.strip() for line in shown.splitlines() if line.strip()]
    starts = [i for i, line in enumerate(printed) if line == expected[0]]
    assert any(printed[i:i + len(expected)] == expected for i in starts), out
    assert "DPInferValueError: `epsilon` must be a positive finite number; got -1.0." in out
    assert "BudgetExceededError: `budget` cannot pay for this release" in run.stderr  # try() reports there


@pytest.mark.slow
def test_r_numbers_equal_python_for_the_same_seeded_releases(r_library, tmp_path):
    from dpinfer import (ContingencyTableReleaser, TulapReleaser, binom2_ump_power, binom2_ump_test,
                         binom_ump_test, independence_jimi_test)

    source = """library(dpinfer)
show <- function(tag, x) cat(tag, sprintf("%.17g", as.numeric(x)), "\\n")
rel <- dp_release_count(11, 30, epsilon = 1, seed = 1)
one <- dp_binom_test(rel, p = 0.2, alternative = "less", conf.level = 0.9)
show("one", c(one$p.value, one$conf.int, one$estimate))
two <- dp_prop_test(list(dp_release_count(41, 60, epsilon = 1, seed = 1),
                         dp_release_count(27, 60, epsilon = 1, seed = 2)), margin = -0.1, alternative = "greater")
show("two", c(two$p.value, two$conf.int, two$estimate))
tab <- dp_chisq_test(dp_release_table(matrix(c(40, 15, 10, 35), 2), epsilon = 1, seed = 3), n.sim = 500, seed = 1)
show("table", c(tab$p.value, tab$statistic))
show("power", dp_power_prop_test(n = 60, p1 = 0.5, p2 = 0.3, epsilon = 1)$power)
"""
    out = _run_r(source, r_library, tmp_path).stdout
    got = {line.split()[0]: [float(v) for v in line.split()[1:]] for line in out.splitlines() if line.strip()}
    tulap = TulapReleaser(epsilon=1.0)
    one = binom_ump_test(tulap.release(11, 30, rng=1), 0.2, alternative="less", confidence_level=0.9)
    assert got["one"] == [one.pvalue, *one.conf_int, one.estimate]
    two = binom2_ump_test(tulap.release(41, 60, rng=1), tulap.release(27, 60, rng=2), margin=-0.1,
                          alternative="greater")
    assert got["two"] == [two.pvalue, *two.conf_int, two.estimate]
    table = independence_jimi_test(ContingencyTableReleaser(1.0).release([[40, 10], [15, 35]], rng=3),
                                   n_sim=500, rng=1)
    assert got["table"] == [table.pvalue, table.statistic]
    assert got["power"] == [binom2_ump_power(0.5, 0.3, 60, 60, epsilon=1.0)]
