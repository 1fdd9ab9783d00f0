"""The Laplace law's internal interface against scipy.stats.laplace and mpmath."""

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

from dpinfer.distributions._laplace_law import LaplaceLaw, count_tail

X = np.array([-40.0, -3.5, -1e-3, 0.0, 2e-9, 0.7, 12.0])


@pytest.mark.parametrize("law, scale", [(LaplaceLaw.from_scale(0.25), 0.25), (LaplaceLaw.from_rate(3.0), 1 / 3.0)])
def test_law_matches_scipy(law, scale):
    ref = stats.laplace(scale=scale)
    assert np.allclose(law.pdf(X), ref.pdf(X), rtol=1e-14, atol=0)
    assert np.allclose(law.cdf(X), ref.cdf(X), rtol=1e-14, atol=0)
    assert np.allclose(law.sf(X), ref.sf(X), rtol=1e-14, atol=0)
    assert np.allclose(law.log_cdf(X), ref.logcdf(X), rtol=1e-13, atol=1e-300)
    assert np.allclose(law.log_sf(X), ref.logsf(X), rtol=1e-13, atol=1e-300)


def test_tails_keep_relative_accuracy_far_out():
    # mpmath at 50 digits: P(L > 30) = exp(-30 / s) / 2 and its log far beyond double's 1e-308
    mp.mp.dps = 50
    law = LaplaceLaw.from_scale(0.01)
    for x in (0.5, 3.0, 30.0):
        exact = mp.exp(-mp.mpf(x) / mp.mpf("0.01")) / 2
        assert float(law.log_sf(x)) == pytest.approx(float(mp.log(exact)), rel=1e-14)
        assert float(law.log_cdf(-x)) == pytest.approx(float(mp.log(exact)), rel=1e-14)
        if exact > mp.mpf("1e-300"):
            assert float(law.sf(x)) == pytest.approx(float(exact), rel=1e-13)
    # the near side: log(1 - tiny) without cancellation
    assert float(law.log_cdf(0.5)) == pytest.approx(float(mp.log1p(-mp.exp(-50) / 2)), rel=1e-12)


def test_infinite_arguments_give_the_limits():
    law = LaplaceLaw.from_rate(2.0)
    assert law.cdf(-np.inf) == 0.0 and law.cdf(np.inf) == 1.0
    assert law.sf(np.inf) == 0.0 and law.sf(-np.inf) == 1.0


def test_kink_correction_is_the_tail_minus_the_indicator():
    law = LaplaceLaw.from_rate(0.7)
    d = np.linspace(-6.0, 6.0, 41)
    ref = stats.laplace(scale=1 / 0.7)
    assert np.allclose(law.kink_correction(d, 1), ref.sf(-d) - (d > 0), atol=1e-15)
    assert np.allclose(law.kink_correction(d, -1), ref.cdf(-d) - (d < 0), atol=1e-15)


@pytest.mark.parametrize("n, eps", [(30, 1.0), (200, 0.05), (15, 8.0)])
def test_count_tail_equals_the_full_sum_with_a_cut_per_row(n, eps):
    # independent route: every binomial count, scipy's Laplace tails
    theta = np.array([0.02, 0.3, 0.5, 0.93])
    cuts = np.array([2.3, 8.0, n / 2 + 0.25, n - 1.5])
    x = np.arange(n + 1)
    pmf = stats.binom.pmf(x[None, :], n, theta[:, None])
    ref = stats.laplace(scale=1 / eps)
    above = np.sum(pmf * ref.sf(cuts[:, None] - x[None, :]), axis=1)
    below = np.sum(pmf * ref.cdf(cuts[:, None] - x[None, :]), axis=1)
    law = LaplaceLaw.from_rate(eps)
    assert np.allclose(count_tail(theta, n, [(cuts, 1)], law), above, rtol=1e-12, atol=1e-15)
    assert np.allclose(law.count_tail(theta, n, [(cuts, -1)]), below, rtol=1e-12, atol=1e-15)
    # a scalar cut is shared by every row; two cuts add up
    both = count_tail(theta, n, [(cuts[1], 1), (cuts[0], -1)], law)
    ref_both = np.sum(pmf * (ref.sf(cuts[1] - x) + ref.cdf(cuts[0] - x))[None, :], axis=1)
    assert np.allclose(both, ref_both, rtol=1e-12, atol=1e-15)
    # the lower-accuracy options used by the warnings agree to 1e-13
    quick = count_tail(theta, n, [(cuts, 1)], law, tail=1e-15, reach=37.0)
    assert np.allclose(quick, above, rtol=0, atol=1e-13)
