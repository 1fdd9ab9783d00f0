"""Every warning of dpinfer points at the user's line (``dpinfer._warnings.warn``).

The helper attributes a warning to the first frame outside the package, whatever the
depth inside it (a ``release_first`` wrapper, ``prop_test`` or ``mean_test`` dispatching
to a method, a releaser's bit source); no warning is caught and re-issued.  Checked on
public entry points with ``warnings.catch_warnings(record=True)`` (each warning's
``filename`` is this file), and on the source: no ``warnings.warn``, ``stacklevel`` or
re-issue block in ``dpinfer/`` outside the helper.
"""

import ast
import sys
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

import dpinfer
from dpinfer import (
    ApproximationWarning,
    InputWarning,
    LaplaceReleaser,
    MeanReleaser,
    PrivacyWarning,
    TulapReleaser,
)
from dpinfer._warnings import warn

PACKAGE = Path(dpinfer.__file__).resolve().parent


def _mean_release(n):
    x = np.random.default_rng(3).normal(130.0, 15.0, n)
    return MeanReleaser(1.0, 80.0, 140.0, spread=True).release(x, rng=4)


# (label, call, category): each call warns once from inside dpinfer
CALLS = [
    # n = 30, epsilon = 1, p0 = 0.1 at the 99% level: the normal approximation's size drifts
    ("binom_normal_test", lambda: dpinfer.binom_normal_test(LaplaceReleaser(1.0).proportion(3, 30, rng=1), 0.1,
                                                             confidence_level=0.99), ApproximationWarning),
    ("prop_test normal", lambda: dpinfer.prop_test(LaplaceReleaser(1.0).proportion(3, 30, rng=1), 0.1,
                                                   method="normal", confidence_level=0.99), ApproximationWarning),
    # epsilon = 50: DP-JIMI's size at p0 = 0.1 is off (release_first wrapper and prop_test between)
    ("prop_test jimi", lambda: dpinfer.prop_test(LaplaceReleaser(50.0).proportion(3, 30, rng=1), 0.1,
                                                 method="jimi", alternative="greater", n_sim=200, rng=1),
     ApproximationWarning),
    # one-sided, spread released, n = 100 < 500: the measured tail is beyond the rule
    ("mean_test", lambda: dpinfer.mean_test(_mean_release(100), mu0=125.0, alternative="greater", n_sim=100, rng=1),
     ApproximationWarning),
    ("mean_jimi_test", lambda: dpinfer.mean_jimi_test(_mean_release(30), mu0=125.0, alternative="less",
                                                      n_sim=100, rng=1), ApproximationWarning),
    # a bare z of 0.3 out of 30 looks like a proportion
    ("binom_ump_test", lambda: dpinfer.binom_ump_test(0.3, 30, 0.5, epsilon=1.0), InputWarning),
    ("TulapReleaser secure=True", lambda: TulapReleaser(1.0).release(3, 30, rng=1, secure=True), PrivacyWarning),
]


@pytest.mark.parametrize("label, call, category", CALLS, ids=[c[0] for c in CALLS])
def test_a_warning_points_at_the_users_line(label, call, category):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    assert [w.category for w in caught] == [category]
    assert caught[0].filename == __file__


def test_the_helper_skips_every_frame_of_the_package():
    # called from a test (outside dpinfer) the warning is the test's own line
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        warn("a note", InputWarning)
    assert [(w.category, w.filename, w.lineno, str(w.message)) for w in caught] == [
        (InputWarning, __file__, line, "a note")]


def test_warnings_from_threads_point_at_the_callers_line():
    # no catch-and-re-issue: a warning raised in a worker thread reaches the caller's line
    # too (one record around all threads: catch_warnings itself swaps process-wide state)
    def work():
        TulapReleaser(1.0).release(3, 30, rng=1, secure=True)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert [(w.category, w.filename) for w in caught] == [(PrivacyWarning, __file__)] * 4


def _offences(path):
    """``warnings.warn`` calls, ``stacklevel`` keywords and ``catch_warnings(record=True)`` blocks."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                and node.func.value.id == "warnings":
            if node.func.attr == "warn":
                out.append(f"{path.name}:{node.lineno}: warnings.warn")
            if node.func.attr == "catch_warnings" and any(k.arg == "record" for k in node.keywords):
                out.append(f"{path.name}:{node.lineno}: catch_warnings(record=True)")
        if isinstance(node, ast.keyword) and node.arg == "stacklevel":
            out.append(f"{path.name}:{node.value.lineno}: stacklevel")
    return out


def test_every_warning_of_the_package_goes_through_the_helper(tmp_path):
    # the command (cli/__init__.py) records warnings to print them as messages: not a re-issue
    allowed = {PACKAGE / "_warnings.py": 2, PACKAGE / "cli" / "__init__.py": 1}
    found = {p: _offences(p) for p in sorted(PACKAGE.rglob("*.py"))}
    assert {p: o for p, o in found.items() if len(o) != allowed.get(p, 0)} == {}
    planted = tmp_path / "planted.py"
    planted.write_text("import warnings\n"
                       "def f():\n"
                       "    with warnings.catch_warnings(record=True) as caught:\n"
                       "        g()\n"
                       "    for w in caught:\n"
                       "        warnings.warn(w.message, w.category, stacklevel=2)\n")
    assert _offences(planted) == ["planted.py:3: catch_warnings(record=True)", "planted.py:6: warnings.warn",
                                  "planted.py:6: stacklevel"]
