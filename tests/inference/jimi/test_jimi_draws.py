"""binom_jimi_sample / binom2_jimi_sample: the fiducial draws behind DP-JIMI (issue 20 item 4)."""

import math

import numpy as np
import pytest
from scipy import integrate

from dpinfer import (LaplaceReleaser, TulapReleaser, binom2_jimi_ci, binom2_jimi_sample, binom2_jimi_test,
                     binom_jimi_ci, binom_jimi_sample, binom_jimi_test)

REL = LaplaceReleaser(epsilon=1.0).proportion(11, 30, rng=7)


def _ranks(h, lo_tail, hi_tail):
    """0-based positions in the sorted draws of the k-th smallest and k'-th largest, k = ceil(a h).

    Written from the documented rule (binom_jimi_ci Notes, **Percentiles**), with the
    tail levels used below exactly representable times h (no rounding question).
    """
    return math.ceil(lo_tail * h) - 1, h - math.ceil(hi_tail * h)


@pytest.mark.parametrize("level, alternative, tails", [
    (0.95, "two-sided", (0.025, 0.025)),
    (0.90, "two-sided", (0.05, 0.05)),
    (0.95, "greater", (0.05, None)),
    (0.95, "less", (None, 0.05)),
])
def test_interval_is_quantiles_of_the_same_draws(level, alternative, tails):
    h = 8000
    draws = np.sort(binom_jimi_sample(REL, n_sim=h, rng=11))
    ci = binom_jimi_ci(REL, n_sim=h, rng=11, confidence_level=level, alternative=alternative)
    lo_tail, hi_tail = tails
    lo_i, hi_i = _ranks(h, lo_tail or 0.5, hi_tail or 0.5)
    assert ci.low == (draws[lo_i] if lo_tail else 0.0)
    assert ci.high == (draws[hi_i] if hi_tail else 1.0)


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_pvalue_is_a_share_of_the_same_draws(alternative):
    h, p0 = 5000, 0.25
    draws = binom_jimi_sample(REL, n_sim=h, rng=4)
    # (k + 1) / (H + 1): the observed release counts as one of the draws (fima; issue 40)
    le, ge = (np.sum(draws <= p0) + 1) / (h + 1), (np.sum(draws >= p0) + 1) / (h + 1)
    expected = {"greater": le, "less": ge, "two-sided": min(1.0, 2 * min(le, ge))}[alternative]
    got = binom_jimi_test(REL, p0=p0, alternative=alternative, n_sim=h, rng=4).pvalue
    assert got == pytest.approx(expected, rel=1e-14)


def _exact_mean(pi_hat, n, epsilon):
    """E[theta*] by adaptive quadrature, independent of the package's kernels.

    theta* = 1 w.p. P(pi* >= 1), 0 w.p. P(pi* <= 0), else Beta(n u + 1/2, n (1 - u) + 1/2)
    with mean (n u + 1/2) / (n + 1), u ~ Laplace(pi_hat, 1 / (epsilon n)).
    """
    b = 1.0 / (epsilon * n)
    dens = lambda u: math.exp(-abs(u - pi_hat) / b) / (2 * b)  # noqa: E731
    upper = 0.5 * math.exp(-(1 - pi_hat) / b) if pi_hat < 1 else 1 - 0.5 * math.exp(-(pi_hat - 1) / b)
    inner, _ = integrate.quad(lambda u: (n * u + 0.5) / (n + 1) * dens(u), 0.0, 1.0, points=[pi_hat],
                              epsabs=1e-13, epsrel=1e-12, limit=200)
    return upper + inner


@pytest.mark.parametrize("pi_hat, n, epsilon", [(0.3667, 30, 1.0), (0.03, 30, 1.0), (0.9013, 200, 0.5)])
def test_moments_against_exact_values(pi_hat, n, epsilon):
    h = 200_000
    draws = binom_jimi_sample(pi_hat, n, epsilon=epsilon, n_sim=h, rng=123)
    se = draws.std() / math.sqrt(h)
    assert abs(draws.mean() - _exact_mean(pi_hat, n, epsilon)) < 4 * se
    # the point mass at 0: P(pi* <= 0) = P(L >= pi_hat) = exp(-pi_hat epsilon n) / 2 for pi_hat > 0
    p_zero = 0.5 * math.exp(-pi_hat * epsilon * n)
    se0 = math.sqrt(p_zero * (1 - p_zero) / h)
    assert abs(np.mean(draws == 0.0) - p_zero) < 4 * se0 + 1e-12


def test_plain_numbers_and_counts_match_the_release():
    count = LaplaceReleaser(epsilon=1.0).count(11, 30, rng=7)
    a = binom_jimi_sample(count, n_sim=500, rng=2)
    b = binom_jimi_sample(float(count.value), 30, epsilon=1.0, kind="count", n_sim=500, rng=2)
    c = binom_jimi_sample(float(count.value) / 30, 30, epsilon=1.0, n_sim=500, rng=2)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(a, c, rtol=0, atol=1e-12)  # x/30 rounds once in floating point
    assert ((a >= 0) & (a <= 1)).all()


def test_two_sample_draws_reproduce_interval_and_test():
    r1 = LaplaceReleaser(epsilon=1.0).proportion(20, 40, rng=1)
    r2 = LaplaceReleaser(epsilon=0.5).proportion(10, 50, rng=2)
    h = 6000
    d = binom2_jimi_sample(r1, pi_hat2=r2, n_sim=h, rng=3)
    assert d.shape == (h, 2)
    diff = d[:, 0] - d[:, 1]
    s = np.sort(diff)
    lo_i, hi_i = _ranks(h, 0.025, 0.025)
    ci = binom2_jimi_ci(r1, pi_hat2=r2, n_sim=h, rng=3)
    assert (ci.low, ci.high) == (s[lo_i], s[hi_i])
    d0 = 0.1
    below, tied = np.mean(diff < d0), np.mean(diff == d0)  # mid-p ties, as documented
    k = (below + 0.5 * tied) * h  # (k + 1) / (H + 1): the observed release is one of the draws (issue 40)
    assert binom2_jimi_test(r1, pi_hat2=r2, margin=d0, alternative="greater", n_sim=h,
                            rng=3).pvalue == pytest.approx((k + 1) / (h + 1), rel=1e-14)


def test_two_sample_columns_have_each_groups_law():
    h = 100_000
    d = binom2_jimi_sample(0.4513, 40, 0.2013, 50, epsilon=(1.0, 0.5), n_sim=h, rng=8)
    for col, (pi_hat, n, eps) in enumerate([(0.4513, 40, 1.0), (0.2013, 50, 0.5)]):
        x = d[:, col]
        assert abs(x.mean() - _exact_mean(pi_hat, n, eps)) < 4 * x.std() / math.sqrt(h)
    # independent groups: sample correlation within 4 SE (1 / sqrt(h)) of 0
    assert abs(np.corrcoef(d[:, 0], d[:, 1])[0, 1]) < 4 / math.sqrt(h)


def test_bad_arguments_are_refused_before_drawing():
    with pytest.raises(ValueError, match=r"`n_sim` must be a positive integer.*got None.*binom_jimi_ci"):
        binom_jimi_sample(REL, n_sim=None)
    with pytest.raises(ValueError, match=r"`n_sim` must be at most 10_000_000"):
        binom_jimi_sample(REL, n_sim=50_000_000)  # refused before allocating 2 GB
    with pytest.raises(ValueError, match=r"`n_sim` must be at most 10_000_000"):
        binom2_jimi_sample(REL, pi_hat2=REL, n_sim=50_000_000)
    with pytest.raises(ValueError, match=r"must be one released value; got an array of shape \(2,\)"):
        binom_jimi_sample([0.2013, 0.3013], 30, epsilon=1.0)
    with pytest.raises(ValueError, match=r"must be one released value each"):
        binom2_jimi_sample([0.2013, 0.3013], 30, 0.1013, 30, epsilon=1.0)
    with pytest.raises(ValueError, match=r"is a Tulap release"):
        binom_jimi_sample(TulapReleaser(epsilon=1.0).release(11, 30, rng=1))
    with pytest.raises(TypeError, match=r"`n` is required"):
        binom_jimi_sample(0.3)
