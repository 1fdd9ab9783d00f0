"""DP-JIMI's coverage warning reads its cuts from a table cached per public numbers (issue 41 item 3).

The rule is unchanged: the same calls warn as before the table.  ``WARN_TABLE`` was
recorded by ``tests/reference/jimi_warning_table.py`` run on the code before the
change (commit 5b49723, each cut solved or interpolated per call).
"""

import warnings

import numpy as np
import pytest

from dpinfer import ApproximationWarning, Release, binom_jimi_ci
from dpinfer.inference._oc_warnings import coverage_thetas
from dpinfer.inference.jimi import _exact

WARN_TABLE = [
    (5, 0.1, 0.05, 'two-sided', False),
    (5, 0.1, 0.05, 'less', False),
    (5, 0.1, 0.05, 'greater', False),
    (5, 0.1, 0.3, 'two-sided', False),
    (5, 0.1, 0.3, 'less', False),
    (5, 0.1, 0.3, 'greater', False),
    (5, 0.1, 0.55, 'two-sided', False),
    (5, 0.1, 0.55, 'less', False),
    (5, 0.1, 0.55, 'greater', False),
    (5, 0.5, 0.05, 'two-sided', False),
    (5, 0.5, 0.05, 'less', False),
    (5, 0.5, 0.05, 'greater', False),
    (5, 0.5, 0.3, 'two-sided', False),
    (5, 0.5, 0.3, 'less', False),
    (5, 0.5, 0.3, 'greater', False),
    (5, 0.5, 0.55, 'two-sided', False),
    (5, 0.5, 0.55, 'less', False),
    (5, 0.5, 0.55, 'greater', False),
    (5, 1.0, 0.05, 'two-sided', False),
    (5, 1.0, 0.05, 'less', False),
    (5, 1.0, 0.05, 'greater', False),
    (5, 1.0, 0.3, 'two-sided', False),
    (5, 1.0, 0.3, 'less', False),
    (5, 1.0, 0.3, 'greater', False),
    (5, 1.0, 0.55, 'two-sided', False),
    (5, 1.0, 0.55, 'less', False),
    (5, 1.0, 0.55, 'greater', False),
    (5, 5.0, 0.05, 'two-sided', True),
    (5, 5.0, 0.05, 'less', True),
    (5, 5.0, 0.05, 'greater', True),
    (5, 5.0, 0.3, 'two-sided', True),
    (5, 5.0, 0.3, 'less', True),
    (5, 5.0, 0.3, 'greater', True),
    (5, 5.0, 0.55, 'two-sided', True),
    (5, 5.0, 0.55, 'less', True),
    (5, 5.0, 0.55, 'greater', True),
    (10, 0.1, 0.05, 'two-sided', False),
    (10, 0.1, 0.05, 'less', False),
    (10, 0.1, 0.05, 'greater', False),
    (10, 0.1, 0.3, 'two-sided', False),
    (10, 0.1, 0.3, 'less', False),
    (10, 0.1, 0.3, 'greater', False),
    (10, 0.1, 0.55, 'two-sided', False),
    (10, 0.1, 0.55, 'less', False),
    (10, 0.1, 0.55, 'greater', False),
    (10, 0.5, 0.05, 'two-sided', False),
    (10, 0.5, 0.05, 'less', False),
    (10, 0.5, 0.05, 'greater', False),
    (10, 0.5, 0.3, 'two-sided', False),
    (10, 0.5, 0.3, 'less', False),
    (10, 0.5, 0.3, 'greater', False),
    (10, 0.5, 0.55, 'two-sided', False),
    (10, 0.5, 0.55, 'less', False),
    (10, 0.5, 0.55, 'greater', False),
    (10, 1.0, 0.05, 'two-sided', False),
    (10, 1.0, 0.05, 'less', False),
    (10, 1.0, 0.05, 'greater', False),
    (10, 1.0, 0.3, 'two-sided', False),
    (10, 1.0, 0.3, 'less', False),
    (10, 1.0, 0.3, 'greater', False),
    (10, 1.0, 0.55, 'two-sided', False),
    (10, 1.0, 0.55, 'less', False),
    (10, 1.0, 0.55, 'greater', False),
    (10, 5.0, 0.05, 'two-sided', True),
    (10, 5.0, 0.05, 'less', True),
    (10, 5.0, 0.05, 'greater', True),
    (10, 5.0, 0.3, 'two-sided', True),
    (10, 5.0, 0.3, 'less', True),
    (10, 5.0, 0.3, 'greater', True),
    (10, 5.0, 0.55, 'two-sided', True),
    (10, 5.0, 0.55, 'less', True),
    (10, 5.0, 0.55, 'greater', True),
    (30, 0.1, 0.05, 'two-sided', False),
    (30, 0.1, 0.05, 'less', False),
    (30, 0.1, 0.05, 'greater', False),
    (30, 0.1, 0.3, 'two-sided', False),
    (30, 0.1, 0.3, 'less', False),
    (30, 0.1, 0.3, 'greater', False),
    (30, 0.1, 0.55, 'two-sided', False),
    (30, 0.1, 0.55, 'less', False),
    (30, 0.1, 0.55, 'greater', False),
    (30, 0.5, 0.05, 'two-sided', False),
    (30, 0.5, 0.05, 'less', False),
    (30, 0.5, 0.05, 'greater', False),
    (30, 0.5, 0.3, 'two-sided', False),
    (30, 0.5, 0.3, 'less', False),
    (30, 0.5, 0.3, 'greater', False),
    (30, 0.5, 0.55, 'two-sided', False),
    (30, 0.5, 0.55, 'less', False),
    (30, 0.5, 0.55, 'greater', False),
    (30, 1.0, 0.05, 'two-sided', False),
    (30, 1.0, 0.05, 'less', False),
    (30, 1.0, 0.05, 'greater', False),
    (30, 1.0, 0.3, 'two-sided', False),
    (30, 1.0, 0.3, 'less', False),
    (30, 1.0, 0.3, 'greater', False),
    (30, 1.0, 0.55, 'two-sided', False),
    (30, 1.0, 0.55, 'less', False),
    (30, 1.0, 0.55, 'greater', False),
    (30, 5.0, 0.05, 'two-sided', True),
    (30, 5.0, 0.05, 'less', True),
    (30, 5.0, 0.05, 'greater', True),
    (30, 5.0, 0.3, 'two-sided', False),
    (30, 5.0, 0.3, 'less', True),
    (30, 5.0, 0.3, 'greater', True),
    (30, 5.0, 0.55, 'two-sided', False),
    (30, 5.0, 0.55, 'less', True),
    (30, 5.0, 0.55, 'greater', True),
    (100, 0.1, 0.05, 'two-sided', False),
    (100, 0.1, 0.05, 'less', False),
    (100, 0.1, 0.05, 'greater', False),
    (100, 0.1, 0.3, 'two-sided', False),
    (100, 0.1, 0.3, 'less', False),
    (100, 0.1, 0.3, 'greater', False),
    (100, 0.1, 0.55, 'two-sided', False),
    (100, 0.1, 0.55, 'less', False),
    (100, 0.1, 0.55, 'greater', False),
    (100, 0.5, 0.05, 'two-sided', False),
    (100, 0.5, 0.05, 'less', False),
    (100, 0.5, 0.05, 'greater', False),
    (100, 0.5, 0.3, 'two-sided', False),
    (100, 0.5, 0.3, 'less', False),
    (100, 0.5, 0.3, 'greater', False),
    (100, 0.5, 0.55, 'two-sided', False),
    (100, 0.5, 0.55, 'less', False),
    (100, 0.5, 0.55, 'greater', False),
    (100, 1.0, 0.05, 'two-sided', False),
    (100, 1.0, 0.05, 'less', False),
    (100, 1.0, 0.05, 'greater', False),
    (100, 1.0, 0.3, 'two-sided', False),
    (100, 1.0, 0.3, 'less', False),
    (100, 1.0, 0.3, 'greater', False),
    (100, 1.0, 0.55, 'two-sided', False),
    (100, 1.0, 0.55, 'less', False),
    (100, 1.0, 0.55, 'greater', False),
    (100, 5.0, 0.05, 'two-sided', True),
    (100, 5.0, 0.05, 'less', True),
    (100, 5.0, 0.05, 'greater', True),
    (100, 5.0, 0.3, 'two-sided', False),
    (100, 5.0, 0.3, 'less', True),
    (100, 5.0, 0.3, 'greater', True),
    (100, 5.0, 0.55, 'two-sided', False),
    (100, 5.0, 0.55, 'less', True),
    (100, 5.0, 0.55, 'greater', True),
]


def _released(pi_hat, n, epsilon):
    return Release(pi_hat, "laplace", epsilon, 0.0, 1.0 / n, n, "proportion")


@pytest.mark.parametrize("n, epsilon, pi_hat, alternative, warned", WARN_TABLE)
def test_same_calls_warn_as_before(n, epsilon, pi_hat, alternative, warned):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # the table's values (k / n at some n) stand as Release records: typed, a whole k / n is refused as
        # a confidential count (issue 35); the warning reads the same public numbers either way
        binom_jimi_ci(_released(pi_hat, n, epsilon), alternative=alternative, n_sim=None)
    assert any(issubclass(w.category, ApproximationWarning) for w in caught) == warned


def test_table_warns_and_passes_in_both_directions():
    assert {row[-1] for row in WARN_TABLE} == {True, False}


def _assert_cuts_agree(tabled, direct, n, epsilon):
    finite = np.isfinite(direct)
    np.testing.assert_array_equal(np.isfinite(tabled), finite)
    np.testing.assert_array_equal(tabled[~finite], direct[~finite])
    # as a rejection probability the cut's error moves it by at most n epsilon / 2 times it
    assert np.max(np.abs(tabled[finite] - direct[finite]), initial=0.0) * n * epsilon / 2 <= 1e-6


@pytest.mark.parametrize("n, epsilon", [(5, 0.5), (30, 1.0), (200, 2.0)])
@pytest.mark.parametrize("level, upper_side", [(0.025, True), (0.025, False), (0.05, True)])
def test_tabled_cuts_match_cuts_solved_one_by_one(n, epsilon, level, upper_side):
    # the exact alternative: every cut solved by its own root search from the full bracket, at the
    # thetas of an interval and over all of [0, 1] (the kinks where a cut crosses 0 or 1, the steep
    # start near theta = 0 and 1)
    for low, high in ((0.12, 0.61), (0.0, 1.0)):
        thetas, _ = coverage_thetas(low, high, n)
        direct = _exact._release_cuts(thetas, level, n, epsilon, upper_side)
        read = _exact._cut_table(level, n, epsilon, upper_side).read(thetas)
        assert np.mean(np.isnan(read)) <= 0.01  # the table, not the per-call fallback, is what is checked
        _exact._tabled_cuts(thetas, level, n, epsilon, upper_side)
        tabled = _exact._tabled_cuts(thetas, level, n, epsilon, upper_side)  # the second ask reads the table
        _assert_cuts_agree(tabled, direct, n, epsilon)


@pytest.mark.parametrize("upper_side", [True, False])
def test_cells_failing_the_spline_check_are_read_from_finer_pieces(upper_side):
    # issue 41: an interval ending in such a cell used to solve its cuts on every call (2.6 ms)
    n, epsilon, level = 30, 1.0, 0.025
    top = _exact._cut_table(level, n, epsilon, upper_side)
    bad = np.flatnonzero(~top.usable)
    thetas = np.sort(np.concatenate([top.grid[bad] + f * (top.grid[bad + 1] - top.grid[bad])
                                     for f in (0.1, 0.37, 0.5, 0.83)]))
    read = top.read(thetas)
    assert bad.size and set(top.children) == set(bad.tolist())  # each refined once asked for, and kept
    np.testing.assert_array_equal(top.read(thetas), read)
    assert np.mean(np.isnan(read)) <= 0.05
    direct = _exact._release_cuts(thetas, level, n, epsilon, upper_side)
    ok = ~np.isnan(read)
    _assert_cuts_agree(read[ok], direct[ok], n, epsilon)


def test_table_is_built_once_per_public_numbers():
    _exact._cut_table.cache_clear()
    _exact._ASKED.clear()
    rng = np.random.default_rng(3)
    for _ in range(4):
        binom_jimi_ci(_released(0.3, 30, 1.0), n_sim=10**3, rng=rng)
    info = _exact._cut_table.cache_info()
    # the first call solves its own cuts; the second builds the table (two sides); the others read it
    assert info.misses == 2 and info.hits == 4


def test_table_stays_small_where_the_cuts_are_steps():
    # epsilon = 1e9: the cuts are steps in theta, almost every cell fails the spline check; refining them
    # all at once asked for 3.6 million cut solves (5.7 GB); a piece gets at most _MAX_REFINED finer
    # pieces, the rest is solved per call
    top = _exact._cut_table(0.025, 30, 1e9, True)
    thetas, _ = coverage_thetas(0.05, 0.95, 30)
    top.read(thetas)
    assert (~top.usable).sum() > _exact._MAX_REFINED and len(top.children) <= _exact._MAX_REFINED
