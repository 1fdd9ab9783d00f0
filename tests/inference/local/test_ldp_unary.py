"""Unary-encoding inference: unbiasedness, covariance, simultaneous coverage, goodness of fit.

Monte Carlo assertions state their standard error and allow 4 SE.
"""

import numpy as np
import pytest
from scipy import stats

from dpinfer import (
    UnaryEncodingReleaser,
    unary_frequency_ci,
    unary_frequency_cov,
    unary_frequency_estimate,
    unary_gof_test,
)
from dpinfer.inference.local._common import _unary_debias


@pytest.mark.parametrize("estimand", ["population", "sample"])
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_unary_unbiased_and_covariance(estimand, eps):
    reps, n, d = 2000, 300, 4
    pi = np.array([0.5, 0.3, 0.2, 0.0])
    rng = np.random.default_rng(np.random.SeedSequence([808, int(10 * eps)]))
    if estimand == "population":
        cats = rng.choice(d, size=(reps, n), p=pi)
    else:
        cats = np.broadcast_to(np.repeat(np.arange(d), (pi * n).astype(int)), (reps, n))
    rel = UnaryEncodingReleaser(eps, d).release(cats, rng=rng)
    est = unary_frequency_estimate(rel).estimate_raw
    h = np.exp(eps / 2)
    sigma2 = h / (h - 1) ** 2  # the per-coordinate noise variance, e^(eps/2) consistently
    true = sigma2 * np.eye(d) / n
    if estimand == "population":
        true = true + (np.diag(pi) - np.outer(pi, pi)) / n
    sd = np.sqrt(np.diag(true))
    assert np.all(np.abs(est.mean(axis=0) - pi) <= 4 * sd / np.sqrt(reps))
    se_cov = np.sqrt((np.outer(sd**2, sd**2) + true**2) / reps)
    assert np.all(np.abs(np.cov(est, rowvar=False) - true) <= 4 * se_cov)
    cov_hat = unary_frequency_cov(rel, estimand=estimand)
    assert np.all(np.abs(cov_hat.mean(axis=0) - true) <= 4 * se_cov + np.abs(true) / 20)


def test_unary_debias_formula_and_the_mixed_exponent_bug():
    eps = 2.0
    q = np.exp(eps / 2) / (1 + np.exp(eps / 2))
    bits = np.array([0.0, 1.0, 0.37])
    np.testing.assert_allclose(_unary_debias(bits, eps), (bits - (1 - q)) / (2 * q - 1), rtol=1e-12)
    # the bug of public RAPPOR-style code: flip with e^(eps/2), debias with e^eps -> bias
    wrong_q = np.exp(eps) / (1 + np.exp(eps))
    mean_bit = (1 - q) + (2 * q - 1) * 0.3  # E[bit] at true frequency 0.3
    assert abs((mean_bit - (1 - wrong_q)) / (2 * wrong_q - 1) - 0.3) > 0.05
    assert _unary_debias(mean_bit, eps) == pytest.approx(0.3, rel=1e-12)


def test_unary_counts_path_equals_reports_path():
    rel = UnaryEncodingReleaser(1.0, 3).release(np.arange(300) % 3, rng=9)
    s = rel.value.sum(axis=0)
    from_release = unary_frequency_estimate(rel)
    for other in (unary_frequency_estimate(bit_counts=s, n=300, epsilon=1.0),
                  unary_frequency_estimate(rel.value, epsilon=1.0)):
        np.testing.assert_allclose(other.estimate_raw, from_release.estimate_raw)
        np.testing.assert_allclose(other.estimate, from_release.estimate)


@pytest.mark.parametrize("method", ["bonferroni", "scheffe"])
def test_unary_simultaneous_coverage(method):
    # bit counts drawn from their exact law: Binomial(n_j, q) + Binomial(n - n_j, 1 - q)
    reps, n, d, eps = 3000, 2000, 4, 1.0
    pi = np.array([0.4, 0.3, 0.2, 0.1])
    rng = np.random.default_rng(909)
    q = np.exp(eps / 2) / (1 + np.exp(eps / 2))
    nj = rng.multinomial(n, pi, size=reps)
    s = rng.binomial(nj, q) + rng.binomial(n - nj, 1 - q)
    ci = unary_frequency_ci(bit_counts=s, n=n, epsilon=eps, method=method)
    joint = np.mean(np.all((ci[..., 0] <= pi) & (pi <= ci[..., 1]), axis=1))
    assert joint >= 0.95 - 4 * np.sqrt(0.95 * 0.05 / reps)


@pytest.mark.parametrize("projected", [True, False])
@pytest.mark.parametrize("eps, d", [(1.0, 4), (3.0, 8)])
def test_unary_gof_size(eps, d, projected):
    # size at alpha = 0.05; 5000 reps, SE = 0.0031; budget 4 SE
    reps, n = 5000, 2000
    p0 = np.linspace(1, 2, d)
    p0 /= p0.sum()
    rng = np.random.default_rng(np.random.SeedSequence([1010, d]))
    q = np.exp(eps / 2) / (1 + np.exp(eps / 2))
    nj = rng.multinomial(n, p0, size=reps)
    s = rng.binomial(nj, q) + rng.binomial(n - nj, 1 - q)
    pv = unary_gof_test(bit_counts=s, n=n, p0=p0, epsilon=eps, projected=projected)
    assert abs(np.mean(pv <= 0.05) - 0.05) <= 4 * np.sqrt(0.05 * 0.95 / reps)


def test_unary_gof_statistic_independent_computation():
    # the projected statistic equals the chi-square statistic of the first d - 1 coordinates
    # of the centred estimate with their (invertible) covariance: an independent formula
    s, n, eps, p0 = np.array([610, 380, 290]), 1000, 2.0, np.array([0.5, 0.3, 0.2])
    res = unary_gof_test(bit_counts=s, n=n, p0=p0, epsilon=eps)
    q = np.exp(eps / 2) / (1 + np.exp(eps / 2))
    est = (s / n - (1 - q)) / (2 * q - 1)
    sigma0 = np.diag(p0) - np.outer(p0, p0) + q * (1 - q) / (2 * q - 1) ** 2 * np.eye(3)
    c = np.array([[1, 0, -1], [0, 1, -1]]) - 0.0  # contrasts spanning the sum-zero space
    v = c @ (est - p0)
    t = n * v @ np.linalg.solve(c @ sigma0 @ c.T, v)
    assert res.statistic == pytest.approx(t, rel=1e-9)
    assert res.pvalue == pytest.approx(stats.chi2.sf(t, 2), rel=1e-9)
    # unprojected: the full inverse, which adds n (1'v)^2 / (d sigma^2) to T
    full = unary_gof_test(bit_counts=s, n=n, p0=p0, epsilon=eps, projected=False)
    v_full = est - p0
    assert full.statistic == pytest.approx(n * v_full @ np.linalg.solve(sigma0, v_full), rel=1e-9)
    sigma2 = q * (1 - q) / (2 * q - 1) ** 2
    assert full.statistic - t == pytest.approx(n * v_full.sum() ** 2 / (3 * sigma2), rel=1e-8)
    assert full.parameter == 3 and full.pvalue == pytest.approx(stats.chi2.sf(full.statistic, 3), rel=1e-9)
