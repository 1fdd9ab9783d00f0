"""k-RR inference: unbiasedness, covariance, simultaneous coverage, goodness of fit.

Monte Carlo assertions state their standard error and allow 4 SE.
"""

import numpy as np
import pytest
from _simplex_reference import simplex_shift as _simplex_shift
from scipy import stats

from dpinfer import KRRReleaser, krr_frequency_ci, krr_frequency_cov, krr_frequency_estimate, krr_gof_test


@pytest.mark.parametrize("estimand", ["population", "sample"])
def test_krr_unbiased_and_covariance(estimand):
    reps, n, k, eps = 3000, 500, 4, 1.5
    pi = np.array([0.5, 0.3, 0.15, 0.05])
    rng = np.random.default_rng(np.random.SeedSequence(505))
    if estimand == "population":
        cats = rng.choice(k, size=(reps, n), p=pi)
    else:
        cats = np.broadcast_to(np.repeat(np.arange(k), (pi * n).astype(int)), (reps, n))
    rel = KRRReleaser(eps, k).release(cats, rng=rng)
    est = krr_frequency_estimate(rel, k=k).estimate_raw
    assert est.shape == (reps, k)
    np.testing.assert_allclose(est.sum(axis=1), 1.0, rtol=1e-12)
    cov_hat = krr_frequency_cov(rel, k=k, estimand=estimand)
    # the true covariance, written from the channel independently
    e = np.exp(eps)
    q = np.where(np.eye(k, dtype=bool), e / (e + k - 1), 1 / (e + k - 1))
    scale = (e - 1) / (e + k - 1)
    lam = q @ pi
    if estimand == "population":
        true = (np.diag(lam) - np.outer(lam, lam)) / (n * scale**2)
    else:
        true = sum(pi[x] * (np.diag(q[:, x]) - np.outer(q[:, x], q[:, x])) for x in range(k)) / (n * scale**2)
    emp = np.cov(est, rowvar=False)
    sd = np.sqrt(np.diag(true))
    assert np.all(np.abs(est.mean(axis=0) - pi) <= 4 * sd / np.sqrt(reps))
    # SE of an empirical covariance entry (normal theory): sqrt((s_ii s_jj + s_ij^2) / reps)
    se_cov = np.sqrt((np.outer(sd**2, sd**2) + true**2) / reps)
    assert np.all(np.abs(emp - true) <= 4 * se_cov)
    # the plug-in covariance is close to the truth on average (O(1/n) plug-in bias allowed)
    assert np.all(np.abs(cov_hat.mean(axis=0) - true) <= 4 * se_cov + np.abs(true) / 20)


def test_krr_counts_path_and_projection():
    counts = np.array([120, 40, 5, 35])
    res = krr_frequency_estimate(counts=counts, epsilon=1.0, k=4)
    e = np.exp(1.0)
    expected = (counts / 200 - 1 / (e + 3)) / ((e - 1) / (e + 3))
    np.testing.assert_allclose(res.estimate_raw, expected, rtol=1e-12)
    assert expected.min() < 0  # the unbiased estimate leaves the simplex here
    proj = res.estimate
    assert np.all(proj >= 0) and proj.sum() == pytest.approx(1.0, abs=1e-12)
    # the Euclidean projection written out: (v - tau)_+ with tau fixing the sum at 1
    np.testing.assert_allclose(proj, np.maximum(expected - _simplex_shift(expected), 0.0), atol=1e-12)
    np.testing.assert_array_equal(np.asarray(res), res.estimate)


@pytest.mark.parametrize("method", ["bonferroni", "scheffe"])
def test_krr_simultaneous_coverage(method):
    # joint coverage of the k intervals; 3000 reps, SE <= 0.004; budget 4 SE below nominal
    reps, n, k, eps = 3000, 2000, 5, 1.0
    pi = np.array([0.4, 0.25, 0.2, 0.1, 0.05])
    rng = np.random.default_rng(606)
    e = np.exp(eps)
    q = np.where(np.eye(k, dtype=bool), e / (e + k - 1), 1 / (e + k - 1))
    counts = rng.multinomial(n, q @ pi, size=reps)  # the exact law of the report counts
    ci = krr_frequency_ci(counts=counts, epsilon=eps, k=k, method=method)
    assert ci.shape == (reps, k, 2)
    joint = np.mean(np.all((ci[..., 0] <= pi) & (pi <= ci[..., 1]), axis=1))
    assert joint >= 0.95 - 4 * np.sqrt(0.95 * 0.05 / reps)


def test_krr_gof_statistic_by_hand_and_size():
    counts = np.array([30, 50, 20])
    res = krr_gof_test(counts=counts, p0=[0.2, 0.5, 0.3], epsilon=1.0)
    e = np.exp(1.0)
    lam0 = (np.array([0.2, 0.5, 0.3]) * (e - 1) + 1) / (e + 2)
    expected = stats.chisquare(counts, 100 * lam0)
    assert res.statistic == pytest.approx(expected.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(expected.pvalue, rel=1e-10)
    # size at alpha = 0.05 under H0; 5000 reps, SE = 0.0031; budget 4 SE
    reps, n, k = 5000, 1000, 6
    p0 = np.array([0.3, 0.25, 0.2, 0.15, 0.07, 0.03])
    rel = KRRReleaser(1.0, k).release(np.random.default_rng(707).choice(k, size=(reps, n), p=p0), rng=708)
    pv = krr_gof_test(rel, p0, k=k)
    assert abs(np.mean(pv <= 0.05) - 0.05) <= 4 * np.sqrt(0.05 * 0.95 / reps)
