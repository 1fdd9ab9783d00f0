"""A simulated p-value is never below 1 / (draws + 1) (issue 40): every Monte Carlo method.

fima reports ``(k + 1) / (H + 1)``: the observed release counts as one of the ``H``
draws (Davison & Hinkley 1997, eq. 4.11).  Binomial DP-JIMI did so already; the means'
DP-JIMI (one and two groups) and ``logistic_jimi`` used ``k / H``, which gave p = 0 with
"standard error of the p-value 0" wherever every draw lies on one side of the null.
Each expected value is written out from the count of draws, never read from the package.
"""

import numpy as np
import pytest

from dpinfer import (
    ContingencyTableReleaser,
    LaplaceReleaser,
    MeanReleaser,
    binom2_jimi_test,
    binom_jimi_test,
    logistic_jimi,
    mean2_jimi_test,
    mean_jimi_test,
    mean_test,
)
from dpinfer.inference._draw_summary import draw_share


def test_draw_share_is_k_plus_one_over_draws_plus_one():
    assert draw_share(0, 999) == 1.0 / 1000.0
    assert draw_share(999, 999) == 1.0
    np.testing.assert_array_equal(draw_share(np.array([0, 5, 10]), 10), np.array([1.0, 6.0, 11.0]) / 11.0)


def _far_release():
    # 40 values near 100 released with little noise: the draws all lie far above a null of 0
    x = np.random.default_rng(1).normal(100.0, 5.0, 40)
    return MeanReleaser(50.0, 50.0, 150.0).release(x, rng=2)


@pytest.mark.parametrize("n_sim", [200, 2000])
def test_mean_jimi_pvalue_is_never_zero(n_sim):
    rel = _far_release()
    two = mean_jimi_test(rel, mu0=0.0, sigma=5.0, n_sim=n_sim, rng=3)
    # every draw is above 0: 0 draws at or below the null, so (0 + 1) / (H + 1), doubled two-sided
    assert two.pvalue == pytest.approx(2.0 / (n_sim + 1), rel=1e-15)
    greater = mean_jimi_test(rel, mu0=0.0, sigma=5.0, n_sim=n_sim, rng=3, alternative="greater")
    assert greater.pvalue == pytest.approx(1.0 / (n_sim + 1), rel=1e-15)
    less = mean_jimi_test(rel, mu0=0.0, sigma=5.0, n_sim=n_sim, rng=3, alternative="less")
    assert less.pvalue == 1.0  # all H draws and the observed release at or above the null
    assert "standard error of the p-value 0;" not in " ".join(str(two).split())
    assert mean_test(rel, mu0=0.0, sigma=5.0, n_sim=n_sim, rng=3, method="jimi").pvalue == two.pvalue


def test_mean2_jimi_pvalue_is_never_zero():
    x = np.random.default_rng(4).normal(100.0, 5.0, 40)
    y = np.random.default_rng(5).normal(60.0, 5.0, 40)
    r1 = MeanReleaser(50.0, 0.0, 150.0).release(x, rng=6)
    r2 = MeanReleaser(50.0, 0.0, 150.0).release(y, rng=7)
    res = mean2_jimi_test(r1, r2, sigma=(5.0, 5.0), n_sim=500, rng=8)
    assert res.pvalue == pytest.approx(2.0 / 501.0, rel=1e-15)


def test_logistic_jimi_pvalues_are_counted_from_the_draws():
    # a strong effect: the drug's coefficient is above 0 in every draw
    table = np.array([[180.0, 20.0], [20.0, 180.0]])
    rel = ContingencyTableReleaser(epsilon=2.0).release(table, rng=9)
    h = 1000
    fit = logistic_jimi(rel, n_sim=h, draws=True, rng=10)
    draws = fit.draws
    for j, p in enumerate(fit.pvalue):
        le, ge = np.count_nonzero(draws[:, j] <= 0.0), np.count_nonzero(draws[:, j] >= 0.0)
        assert p == pytest.approx(min(1.0, 2.0 * min(le + 1, ge + 1) / (h + 1)), rel=1e-15)
        assert p >= 2.0 / (h + 1)
    assert np.all(draws[:, 1] > 0.0) and fit.pvalue[1] == pytest.approx(2.0 / (h + 1), rel=1e-15)


def test_the_issues_binomial_calls_stay_above_zero():
    # issue 40: binom2_jimi_test(L.proportion(270, 300, rng=5), L.proportion(210, 300, rng=6),
    # n_sim=10000, rng=1) and binom_jimi_test(0.999, 2000, 0.5, ...) were 0.0 (0.999 is typed
    # 0.9993 here: a whole k / n is refused as a confidential count)
    lap = LaplaceReleaser(epsilon=1.0)
    res = binom2_jimi_test(lap.proportion(270, 300, rng=5), lap.proportion(210, 300, rng=6), n_sim=10000, rng=1)
    assert res.pvalue >= 2.0 / 10001.0
    assert binom_jimi_test(0.9993, 2000, 0.5, epsilon=1.0, n_sim=1000, rng=1).pvalue >= 2.0 / 1001.0
