"""dpinfer.plot: structural checks of the Axes (issue 27, item 1), plus the numbers drawn.

matplotlib runs headless (Agg).  Each picture is checked for what a reader relies on:
the lines and their data, labels, limits, the marked interval or release.
"""

import math
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from dpinfer import (  # noqa: E402
    LaplaceReleaser,
    Tulap,
    TulapReleaser,
    binom2_normal_test,
    binom_jimi_test,
    RandomizedResponseReleaser,
    binom_normal_power,
    binom_normal_test,
    binom_ump_power,
    binom_ump_test,
)
from dpinfer.plot import confidence_curve, power_curve, rejection_region, release_density  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_import_dpinfer_does_not_import_matplotlib():
    code = ("import sys, dpinfer; dpinfer.binom_ump_test(11.2, 30, 0.2, epsilon=1.0); "
            "dpinfer.TulapReleaser(1.0).release(3, 10, rng=1).noise_law(); "
            "print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


# -- power over arrays of n ------------------------------------------------------------------

def test_ump_power_takes_an_array_of_n():
    n = [10, 30, 30, 100]
    got = binom_ump_power(0.4, n, 0.2, epsilon=1.0)
    # the same exact sum one n at a time (each n builds its own test)
    want = [binom_ump_power(0.4, k, 0.2, epsilon=1.0) for k in n]
    np.testing.assert_array_equal(got, want)
    grid = binom_ump_power(np.array([[0.3], [0.5]]), [20, 40], 0.2, epsilon=1.0, alternative="greater")
    assert grid.shape == (2, 2)
    with pytest.raises(ValueError, match="`n` must contain whole numbers; got 2.5"):
        binom_ump_power(0.4, [10, 2.5], 0.2, epsilon=1.0)
    with pytest.raises(ValueError, match="`n` must contain integers between 1"):
        binom_ump_power(0.4, [10, 0], 0.2, epsilon=1.0)


def test_normal_power_takes_an_array_of_n():
    # independent: the plain sum over x of Binom(x; n, theta) P(x/n + L > p0 + z sd0)
    def plain(theta, n, p0=0.2, eps=1.0):
        sd0 = math.sqrt(p0 * (1 - p0) / n + 2 / (eps * n) ** 2)
        x = np.arange(n + 1)
        reject = stats.laplace(scale=1 / (eps * n)).sf(p0 + stats.norm.ppf(0.95) * sd0 - x / n)
        return float(stats.binom.pmf(x, n, theta) @ reject)

    got = binom_normal_power(0.4, [15, 30, 60], 0.2, epsilon=1.0, alternative="greater")
    np.testing.assert_allclose(got, [plain(0.4, k) for k in (15, 30, 60)], rtol=1e-10)


# -- power curves -----------------------------------------------------------------------------

def test_power_curve_over_theta():
    theta = np.linspace(0.05, 0.95, 19)
    ax = power_curve(binom_ump_power, theta, n=30, p0=0.2, epsilon=1.0)
    curve, alpha_line = ax.get_lines()
    np.testing.assert_array_equal(curve.get_xdata(), theta)
    np.testing.assert_array_equal(curve.get_ydata(), binom_ump_power(theta, 30, 0.2, epsilon=1.0))
    assert list(alpha_line.get_ydata()) == [0.05, 0.05]
    assert ax.get_xlabel() == "true proportion theta" and ax.get_ylabel() == "power"
    assert ax.get_ylim() == (0.0, 1.02)
    assert curve.get_label() == "exact DP test (DP-UMP), two-sided"
    # at theta = p0 the power is the size alpha: the curve meets the alpha line there
    assert binom_ump_power(0.2, 30, 0.2, epsilon=1.0) == pytest.approx(0.05, abs=1e-10)


def test_power_curves_over_n_and_epsilon_share_an_axes():
    fig, ax = plt.subplots()
    n = [10, 20, 50, 100, 200, 500]
    out = power_curve(binom_ump_power, n, over="n", theta=0.4, p0=0.2, epsilon=1.0, ax=ax)
    assert out is ax
    power_curve(binom_normal_power, n, over="n", theta=0.4, p0=0.2, epsilon=1.0, ax=ax)
    lines = [l for l in ax.get_lines() if l.get_gid() != "alpha"]
    assert len(lines) == 2 and len([l for l in ax.get_lines() if l.get_gid() == "alpha"]) == 1
    np.testing.assert_array_equal(lines[1].get_ydata(), binom_normal_power(0.4, n, 0.2, epsilon=1.0))
    assert ax.get_xscale() == "log" and ax.get_xlabel() == "number of patients n"
    ax2 = power_curve(binom_ump_power, [0.25, 0.5, 1.0, 2.0], over="epsilon", theta=0.4, n=30, p0=0.2)
    ys = ax2.get_lines()[0].get_ydata()
    assert np.all(np.diff(ys) > 0)  # more privacy budget, less noise, more power
    assert ys[-1] == binom_ump_power(0.4, 30, 0.2, epsilon=2.0)


def test_power_curve_takes_any_two_arm_power_function():
    # a two-arm power function the module has never seen: the non-private two-sample z test
    def power2(theta1, theta2, n, alpha=0.05):
        theta1 = np.asarray(theta1, dtype=float)
        se = np.sqrt((theta1 * (1 - theta1) + theta2 * (1 - theta2)) / n)
        z = stats.norm.ppf(1 - alpha / 2)
        d = theta1 - theta2
        return stats.norm.sf(z - d / se) + stats.norm.cdf(-z - d / se)

    ax = power_curve(power2, [0.3, 0.4, 0.5, 0.6], over="theta1", theta2=0.3, n=100)
    ys = ax.get_lines()[0].get_ydata()
    assert ys[0] == pytest.approx(0.05, abs=1e-12) and ax.get_xlabel() == "true proportion theta1 (arm 1)"
    assert ax.get_lines()[0].get_label() == "power2"


def test_power_curve_errors():
    with pytest.raises(TypeError, match="`power` must be a power function"):
        power_curve(3, [0.1])
    with pytest.raises(TypeError, match="`theta` is the varied argument"):
        power_curve(binom_ump_power, [0.1], theta=0.2, n=3, p0=0.5, epsilon=1.0)
    with pytest.raises(ValueError, match="`theta` must lie in"):
        power_curve(binom_ump_power, [1.5], n=3, p0=0.5, epsilon=1.0)


# -- confidence curve -------------------------------------------------------------------------

@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_confidence_curve_marks_the_interval_where_the_pvalue_crosses_the_level(alternative):
    res = binom_ump_test(11.2, 30, 0.2, epsilon=1.0, alternative=alternative)
    ax = res.plot()
    curve = ax.get_lines()[0]
    theta, p = curve.get_xdata(), curve.get_ydata()
    assert ax.get_ylabel() == "p-value" and ax.get_ylim() == (0.0, 1.02)
    assert ax.get_xlabel() == "proportion p"
    assert ax.get_title().replace("\n", " ").startswith(res.method)
    assert ax.get_title().endswith(f"{res.data_name}; epsilon = 1")
    level = [l for l in ax.get_lines() if l.get_gid() == "level"][0]
    assert list(level.get_ydata()) == pytest.approx([0.05, 0.05])
    (span,) = [p for p in ax.patches if p.get_gid() == "interval"]
    low, high = sorted((span.get_x(), span.get_x() + span.get_width()))
    assert low == res.conf_int.low and high == pytest.approx(res.conf_int.high, abs=1e-15)
    # the interval's inner ends are where the p-value function crosses 1 - level
    for end in (res.conf_int.low, res.conf_int.high):
        if 0.0 < end < 1.0:
            assert float(p[theta == end][0]) == pytest.approx(0.05, abs=1e-9)
    inside = (theta > res.conf_int.low) & (theta < res.conf_int.high)
    assert np.all(p[inside] > 0.05 - 1e-12) and np.all(p[~inside & (theta < 1) & (theta > 0)] <= 0.05 + 1e-9)
    (estimate,) = [l for l in ax.get_lines() if l.get_gid() == "estimate"]
    assert estimate.get_xdata()[0] == res.estimate


def test_confidence_curve_of_the_normal_test_and_of_a_callable():
    res = binom_normal_test(0.4013, 30, 0.2, epsilon=1.0)
    ax = confidence_curve(res, theta=[0.1, 0.2, 0.4, 0.6])
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata()[1], res.pvalue, rtol=1e-14)
    ax = confidence_curve(lambda p0: binom_ump_test(11.2, 30, p0, epsilon=1.0),
                          theta=[0.2, 0.3], interval=res.conf_int)
    assert ax.get_lines()[0].get_ydata()[0] == binom_ump_test(11.2, 30, 0.2, epsilon=1.0).pvalue
    assert [p.get_gid() for p in ax.patches] == ["interval"]


def test_confidence_curve_refuses_a_result_without_a_pvalue_function():
    res = binom2_normal_test(0.4013, 30, 0.2513, 30, epsilon=1.0)
    with pytest.raises(TypeError, match="carries no p-value function.*Results that plot: binom_ump_test"):
        res.plot()
    with pytest.raises(TypeError, match="`result` must be an HTestResult or a callable"):
        confidence_curve(0.3)


# -- the law of a release ---------------------------------------------------------------------

def test_noise_law_of_a_release():
    rel = TulapReleaser(1.0, sensitivity=2).release(11, 30, rng=1)
    law = rel.noise_law()
    assert isinstance(law, Tulap) and law.b == pytest.approx(math.exp(-0.5), rel=1e-12)
    lap = LaplaceReleaser(epsilon=0.5).proportion(11, 30, rng=1).noise_law()
    assert lap.std() == pytest.approx(math.sqrt(2) / (0.5 * 30), rel=1e-12)
    with pytest.raises(ValueError, match="no additive noise law"):
        RandomizedResponseReleaser(1.0).release(np.array([0, 1]), rng=1).noise_law()


@pytest.mark.parametrize("make", [
    lambda: TulapReleaser(1.0).release(11, 30, rng=2024),
    lambda: LaplaceReleaser(epsilon=1.0).proportion(11, 30, rng=2024),
])
def test_release_density_integrates_to_one_and_marks_the_release(make):
    rel = make()
    ax = release_density(rel, [0.2, 0.5])
    curves = [l for l in ax.get_lines() if l.get_label().startswith("theta")]
    assert [c.get_label() for c in curves] == ["theta = 0.2", "theta = 0.5"]
    for c in curves:
        x, y = c.get_xdata(), c.get_ydata()
        assert np.all(y >= 0) and np.trapezoid(y, x) == pytest.approx(1.0, abs=2e-3)
    (marker,) = [l for l in ax.get_lines() if l.get_gid() == "release"]
    assert list(marker.get_xdata()) == [rel.value, rel.value]
    assert ax.get_ylabel() == "density" and "n = 30" in ax.get_xlabel()


def test_release_density_mean_is_n_theta():
    # E[X + N] = n theta (the Tulap law is symmetric about 0)
    rel = TulapReleaser(1.0).release(11, 30, rng=5)
    # The density is constant between half-integers: the midpoint rule on cells of width
    # 0.01 aligned with them is exact (up to the tails beyond [-40.5, 70.5], below 1e-15).
    mid = -40.5 + 0.005 + 0.01 * np.arange(11100)
    ax = release_density(rel, 0.4, grid=mid)
    x, y = ax.get_lines()[0].get_xdata(), ax.get_lines()[0].get_ydata()
    assert np.sum(y) * 0.01 == pytest.approx(1.0, abs=1e-9)
    assert np.sum(x * y) * 0.01 == pytest.approx(12.0, abs=1e-9)


def test_release_density_errors():
    with pytest.raises(TypeError, match="`release` must be a Release"):
        release_density(3.0, 0.2)
    rel = TulapReleaser(1.0).release(np.array([3, 4]), 10, rng=1)
    with pytest.raises(ValueError, match="single released count or proportion"):
        release_density(rel, 0.2)


# -- two arms: the rejection region -----------------------------------------------------------

def test_rejection_region_of_a_two_arm_test():
    grid = np.linspace(0.0013, 0.9981, 11)  # off k / 50: typed whole counts are refused

    def test(a, b):
        return binom2_normal_test(a, 50, b, 50, epsilon=1.0)

    ax = rejection_region(test, grid, grid, alpha=0.05)
    (mesh,) = [c for c in ax.collections if c.get_gid() == "region"]
    shown = np.asarray(mesh.get_array()).reshape(11, 11)
    for i, j in [(0, 0), (0, 10), (10, 0), (5, 5), (3, 7)]:
        want = float(test(grid[j], grid[i]).pvalue <= 0.05)  # row i is z2, column j is z1
        assert shown[i, j] == want
    assert shown[0, 10] == 1.0 and shown[5, 5] == 0.0
    assert ax.get_xlabel() == "release of arm 1" and ax.get_ylabel() == "release of arm 2"
    assert "alpha = 0.05" in ax.get_title()


def test_rejection_region_takes_a_vectorised_callable():
    calls = []

    def pvalue(a, b):
        calls.append(np.shape(a))
        return 2 * stats.norm.sf(np.abs(np.asarray(a) - np.asarray(b)) / 0.1)

    grid = np.linspace(0.0, 1.0, 6)
    ax = rejection_region(pvalue, grid, grid)
    assert calls == [(6, 6)]
    shown = np.asarray(ax.collections[0].get_array()).reshape(6, 6)
    np.testing.assert_array_equal(np.diag(shown), np.zeros(6))
    with pytest.raises(ValueError, match="at least two increasing values"):
        rejection_region(pvalue, [0.0], grid)


# -- the docs' figures ------------------------------------------------------------------------

@pytest.mark.slow
def test_docs_script_draws_the_committed_figures(tmp_path):
    from pathlib import Path

    docs = Path(__file__).resolve().parents[1] / "docs"
    out = subprocess.run([sys.executable, "-W", "error", str(docs / "make_plots.py"), "--out",
                          str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    committed = docs / "_static" / "plots"
    drawn = sorted(p.name for p in tmp_path.glob("*.png"))
    assert drawn == sorted(p.name for p in committed.glob("*.png")) and len(drawn) == 8
    page = (docs / "plots.rst").read_text(encoding="utf-8")
    for name in drawn:
        assert f"_static/plots/{name}" in page
        new, old = plt.imread(tmp_path / name), plt.imread(committed / name)
        assert new.shape == old.shape == (420, 640, 4)
        # the committed figure is the script's (mean pixel difference, in [0, 1])
        assert float(np.abs(new - old).mean()) < 0.01, name


def test_km_curves_draw_each_arm_with_its_band_and_numbers_at_risk():
    from dpinfer import LifeTableReleaser, kaplan_meier
    from dpinfer.plot import km_curves

    gen = np.random.default_rng(1)
    time = np.concatenate([gen.exponential(8.0, 80), gen.exponential(5.0, 80)])
    rel = LifeTableReleaser(2.0, [2, 4, 6, 8]).release(time, np.ones(160), ["A"] * 80 + ["B"] * 80, rng=2)
    fit = kaplan_meier(rel, n_sim=200)
    ax = km_curves(fit)
    assert len(ax.lines) == 2 and len(ax.collections) == 2
    # the step curve starts at S(0) = 1 and takes the estimate at each break
    x, y = ax.lines[1].get_data()
    assert list(x) == [0, 2, 4, 6, 8] and y[0] == 1.0 and np.array_equal(y[1:], fit.surv[1])
    texts = [t.get_text() for t in ax.texts]
    # one row per arm: its label, then n at time 0 and the numbers at risk after each break
    assert texts[:2] == ["number at risk", "A"] and texts[2] == "80" and len(texts) == 1 + 2 * 6
    assert fit.plot().get_ylabel() == "survival probability"
    with pytest.raises(TypeError, match="`fit` must be a KaplanMeierResult"):
        km_curves(rel)


def test_docs_figures_have_no_overlapping_text():
    """The rendered-page check's figure part (docs/check_rendered.py): every figure of the
    plots page is redrawn and no two of its texts' boxes overlap."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "docs" / "check_rendered.py"
    spec = importlib.util.spec_from_file_location("check_rendered", path)
    check_rendered = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check_rendered)
    assert check_rendered.check_figures() == {}
