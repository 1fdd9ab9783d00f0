"""The log-rank test's hazard-ratio interval draws its own curve (issue 42, item 1).

The interval is simulated (median-bias-corrected quantile half-width of ``log HR*``), not an
inversion of the log-rank test, so the curve is the interval's at every level.  The checks:
the curve crosses ``1 - level`` at the printed ends (to rounding: the ends pass through
``exp`` and ``log``, about 1e-15 relative, times the curve's slope); it equals the interval
that ``numpy.quantile`` of the same draws gives at other levels, read from runs at
``confidence_level`` 0.8 and 0.99 with the same ``rng`` (the draws do not depend on the level
when ``rng`` is given), a computation that does not go through the curve's knots; labels and
pickling.
"""

import dataclasses
import pickle

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import dpinfer as d  # noqa: E402
# the autouse fixture closing every figure
from test_plot_results import _close_figures  # noqa: E402, F401


@pytest.fixture(scope="module")
def release():
    gen = np.random.default_rng(3)
    time = np.concatenate([gen.exponential(10.0, 150), gen.exponential(6.0, 150)])
    arm = ["control"] * 150 + ["treated"] * 150
    return d.LifeTableReleaser(1.0, breaks=[2, 4, 6, 8]).release(time, np.ones(300), arm, rng=4)


#: the ends go through exp/log (1e-15 relative) and the curve's slope is at most a few units
_ROUNDING = 1e-12


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_the_curve_crosses_one_minus_level_at_the_printed_ends(release, alternative):
    res = d.logrank_test(release, alternative=alternative, n_sim=2000, rng=7)
    ci, curve = res.conf_int, res.pvalue_function
    for end in (ci.low, ci.high):
        if 0.0 < end < np.inf:
            assert curve(end) == pytest.approx(0.05, abs=_ROUNDING)
            # just outside the interval the curve is below the level's complement, just inside above
            outside = end * (0.999 if end == ci.low else 1.001)
            inside = end * (1.001 if end == ci.low else 0.999)
            assert curve(outside) < 0.05 < curve(inside)
    # its peak is at the bias-corrected centre, inside the interval; a curve at every hazard ratio
    grid = np.geomspace(0.2, 10.0, 400)
    values = curve(grid)
    assert np.all((values >= 0.0) & (values <= 1.0))
    inside = (grid > ci.low) & (grid < ci.high)
    assert np.all(((values > 0.05) == inside) | (np.abs(values - 0.05) < 1e-9))
    assert np.isnan(curve(0.0)) and np.isnan(curve(-1.0))


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
@pytest.mark.parametrize("level", [0.8, 0.99])
def test_the_curve_gives_the_intervals_at_other_levels(release, alternative, level):
    curve = d.logrank_test(release, alternative=alternative, n_sim=2000, rng=11).pvalue_function
    other = d.logrank_test(release, alternative=alternative, n_sim=2000, rng=11, confidence_level=level).conf_int
    for end in (other.low, other.high):
        if 0.0 < end < np.inf:
            assert curve(end) == pytest.approx(1.0 - level, abs=_ROUNDING)


def test_plot_labels_and_pickling(release):
    res = d.logrank_test(release, n_sim=2000, rng=7)
    ax = res.plot()
    assert ax.get_xlabel() == "hazard ratio treated / control (log scale)"
    assert ax.get_xscale() == "log"
    labels = [ln.get_label() for ln in ax.get_lines()]
    assert "confidence curve of the simulated interval (not the log-rank p-value)" in labels
    assert [p.get_gid() for p in ax.patches] == ["interval"]
    back = pickle.loads(pickle.dumps(res))
    grid = np.geomspace(0.5, 4.0, 17)
    np.testing.assert_array_equal(back.pvalue_function(grid), res.pvalue_function(grid))
    # a one-sided interval's lower end 0 is drawn to the grid's edge on the log axis
    d.logrank_test(release, alternative="less", n_sim=2000, rng=7).plot()


def test_a_log_rank_result_without_a_curve_says_why(release):
    res = dataclasses.replace(d.logrank_test(release, n_sim=2000, rng=7), pvalue_function=None)
    with pytest.raises(TypeError, match=r"\(an arm has no event, so the hazard ratio is 0 or infinite"):
        res.plot()
