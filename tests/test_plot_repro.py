"""The repro-samples mean with the spread released draws its own curve (issue 42, item 1).

The curve is the certified p-value at each mean (``projected_pvalue``: the supremum over
sigma bounded by boxes), the function the printed p-value is at ``mu0``.  The interval is
the union of slabs of the mean that the boxes at level ``alpha = 1 - L`` do not certify
rejected, refined to ``_MU_TOL (b - a)`` at its ends; the checks: the curve at the printed
p-value's null; at most ``alpha`` just outside both ends (the slabs there are certified
rejected, and a point's boxes are inside the slab's); above ``alpha`` one slab width
inside; the same answers after pickling.  The expected values are the definition of the
interval as the set the test accepts.
"""

import pickle

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import dpinfer as d  # noqa: E402
from dpinfer.inference.means.repro._unknown_spread import _MU_TOL  # noqa: E402
# the autouse fixture closing every figure
from test_plot_results import _close_figures  # noqa: E402, F401


@pytest.fixture(scope="module")
def result():
    x = np.random.default_rng(3).normal(130.0, 15.0, size=60)
    rel = d.MeanReleaser(1.0, lower=80.0, upper=180.0, spread=True).release(x, rng=4)
    return d.mean_repro_test(rel, mu0=125.0, n_sim=99, rng=1)


def test_the_curve_is_the_certified_p_value_and_crosses_at_the_ends(result):
    f, ci = result.pvalue_function, result.conf_int
    alpha = 1.0 - ci.level
    assert f(125.0) == result.pvalue
    width = _MU_TOL * (180.0 - 80.0)
    for end, out in ((ci.low, -1.0), (ci.high, 1.0)):
        for step in (1e-9, 0.25 * width, width, 10 * width):
            assert f(end + out * step) <= alpha
        assert f(end - out * 2 * width) > alpha
    grid = np.linspace(ci.low - 5.0, ci.high + 5.0, 9)
    np.testing.assert_array_equal(f(grid), [f(float(v)) for v in grid])


def test_plot_labels_and_pickling(result):
    ax = result.plot()
    assert ax.get_xlabel() == "mean mu"
    assert [p.get_gid() for p in ax.patches] == ["interval"]
    back = pickle.loads(pickle.dumps(result))
    assert back.pvalue_function(np.array([127.0, 131.0])).tolist() == result.pvalue_function(
        np.array([127.0, 131.0])).tolist()
