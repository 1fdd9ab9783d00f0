"""Inference on local-DP reports: unbiasedness, variances, coverage, exact tests, GOF size, errors.

Monte Carlo assertions state their standard error and allow 4 SE.  Where a quantity
can be computed exactly (RR interval coverage: the yes count has a known law) it is.
"""

import numpy as np
import pytest
from scipy import integrate, optimize, stats

import dpinfer
from dpinfer import (
    ConfidenceInterval,
    HTestResult,
    KRRReleaser,
    LDPHistogramReleaser,
    LocalLaplaceReleaser,
    RandomizedResponseReleaser,
    TwoCoinRRReleaser,
    UnaryEncodingReleaser,
    krr_frequency_ci,
    krr_frequency_cov,
    krr_frequency_estimate,
    krr_gof_test,
    ldp_histogram_bins,
    ldp_histogram_density,
    local_laplace_mean_ci,
    local_laplace_mean_estimate,
    local_laplace_mean_se,
    project_to_simplex,
    rr_proportion_ci,
    rr_proportion_estimate,
    rr_proportion_se,
    rr_proportion_test,
    rr_two_sample_test,
    unary_frequency_ci,
    unary_frequency_cov,
    unary_frequency_estimate,
    unary_gof_test,
)
from dpinfer.inference.ldp import _unary_debias


def _warner(eps):
    """(P(yes | 0), P(yes | 1)) of Warner's RR, written independently of the package."""
    return 1 / (1 + np.exp(eps)), np.exp(eps) / (1 + np.exp(eps))


# ------------------------------------------------------------ binary RR: bias and variance
@pytest.mark.parametrize("channel", [{"epsilon": 1.0}, {"p1": 0.6, "p2": 0.3}])
@pytest.mark.parametrize("p", [0.1, 0.5])
def test_rr_estimator_unbiased_and_population_variance(channel, p):
    reps, n = 4000, 300
    rng = np.random.default_rng(np.random.SeedSequence(101))
    x = (rng.random((reps, n)) < p).astype(int)
    releaser = RandomizedResponseReleaser(**channel) if "epsilon" in channel else TwoCoinRRReleaser(**channel)
    rel = releaser.release(x, rng=rng)
    est = rr_proportion_estimate(rel, **({} if "epsilon" in channel else channel))
    assert est.shape == (reps,)
    a0, a1 = (_warner(1.0) if "epsilon" in channel else (0.18, 1 - 0.6 + 0.18))
    lam = a0 + (a1 - a0) * p
    var_true = lam * (1 - lam) / (n * (a1 - a0) ** 2)
    # mean: SE = sqrt(var_true / reps); variance: SE ~ var_true * sqrt(2 / (reps - 1))
    assert abs(est.mean() - p) <= 4 * np.sqrt(var_true / reps)
    assert abs(est.var(ddof=1) - var_true) <= 4 * var_true * np.sqrt(2 / (reps - 1))
    se = rr_proportion_se(rel, **({} if "epsilon" in channel else channel))
    # the plug-in variance is unbiased up to O(1/n): its mean is within 4 SE of the truth
    assert abs(np.mean(se**2) - var_true) <= 4 * np.std(se**2) / np.sqrt(reps) + var_true / n


@pytest.mark.parametrize("pbar", [0.1, 0.5])
def test_rr_sample_estimand_variance(pbar):
    # answers fixed (the sample's own proportion is the target): only the privacy noise varies
    reps, n, eps = 4000, 400, 0.8
    x = np.zeros(n, dtype=int)
    x[: int(pbar * n)] = 1
    rel = RandomizedResponseReleaser(eps).release(np.broadcast_to(x, (reps, n)), rng=202)
    est = rr_proportion_estimate(rel)
    a0, a1 = _warner(eps)
    var_true = (pbar * a1 * (1 - a1) + (1 - pbar) * a0 * (1 - a0)) / (n * (a1 - a0) ** 2)
    assert abs(est.mean() - pbar) <= 4 * np.sqrt(var_true / reps)
    assert abs(est.var(ddof=1) - var_true) <= 4 * var_true * np.sqrt(2 / (reps - 1))
    # population variance exceeds it by exactly pbar (1 - pbar) / n
    lam = a0 + (a1 - a0) * pbar
    assert lam * (1 - lam) / (n * (a1 - a0) ** 2) - var_true == pytest.approx(pbar * (1 - pbar) / n, rel=1e-10)
    se = rr_proportion_se(rel, estimand="sample")
    assert abs(np.mean(se**2) - var_true) <= 4 * np.std(se**2) / np.sqrt(reps) + var_true / n


# ------------------------------------------------------------ binary RR: coverage (exact)
def _exact_coverage(p, n, eps, method, estimand="population"):
    """Coverage computed exactly by summing over every possible yes count."""
    a0, a1 = _warner(eps)
    y = np.arange(n + 1)
    if estimand == "population":
        pmf = stats.binom.pmf(y, n, a0 + (a1 - a0) * p)
    else:  # answers fixed: Binomial(n p, a1) + Binomial(n (1 - p), a0), by convolution
        n1 = int(round(n * p))
        pmf = np.convolve(stats.binom.pmf(np.arange(n1 + 1), n1, a1), stats.binom.pmf(np.arange(n - n1 + 1), n - n1, a0))
    ci = rr_proportion_ci(yes_count=y, n=n, epsilon=eps, method=method, estimand=estimand)
    return float(np.sum(pmf * ((ci[:, 0] <= p) & (p <= ci[:, 1]))))


@pytest.mark.parametrize("p", [0.05, 0.2, 0.5])
@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("method", ["exact", "wald"])
def test_rr_interval_coverage_n2000_exact(p, eps, method):
    cov = _exact_coverage(p, 2000, eps, method)
    assert 0.93 <= cov <= 0.97, cov
    if method == "exact":  # Clopper-Pearson through a monotone map: never below nominal
        assert cov >= 0.95 - 1e-12


@pytest.mark.parametrize("n", [30, 100, 2000])
@pytest.mark.parametrize("eps", [0.5, 1.0, 3.0])
def test_rr_exact_interval_is_conservative_for_the_sample_estimand(n, eps):
    # answers fixed at every sample proportion on a grid: coverage computed exactly
    for n1 in np.unique(np.linspace(0, n, 11).astype(int)):
        assert _exact_coverage(n1 / n, n, eps, "exact", estimand="sample") >= 0.95


@pytest.mark.parametrize("p", [0.05, 0.2, 0.5])
def test_rr_wald_sample_estimand_coverage_exact(p):
    cov = _exact_coverage(p, 2000, 1.0, "wald", estimand="sample")
    assert 0.93 <= cov <= 0.97, cov


@pytest.mark.parametrize("p", [0.05, 0.2, 0.5])
def test_rr_coverage_simulated_matches_exact(p):
    # 20_000 releases through the releaser; MC SE = sqrt(c (1 - c) / 20_000) ~ 0.0015; budget 4 SE
    reps, n, eps = 20_000, 2000, 1.0
    rng = np.random.default_rng(np.random.SeedSequence([303, int(p * 100)]))
    # the exact law of the yes count, drawn through the channel in two steps
    x_count = rng.binomial(n, p, size=reps)
    a0, a1 = _warner(eps)
    yes = rng.binomial(x_count, a1) + rng.binomial(n - x_count, a0)
    ci = rr_proportion_ci(yes_count=yes, n=n, epsilon=eps)
    sim = np.mean((ci[:, 0] <= p) & (p <= ci[:, 1]))
    exact = _exact_coverage(p, n, eps, "exact")
    assert abs(sim - exact) <= 4 * np.sqrt(exact * (1 - exact) / reps)


def test_rr_release_path_equals_count_path():
    rel = RandomizedResponseReleaser(1.2).release(np.r_[np.ones(70, int), np.zeros(130, int)], rng=5)
    y = int(rel.value.sum())
    assert rr_proportion_estimate(rel) == rr_proportion_estimate(yes_count=y, n=200, epsilon=1.2)
    assert rr_proportion_ci(rel) == rr_proportion_ci(yes_count=y, n=200, epsilon=1.2)
    assert rr_proportion_ci(rel.value, epsilon=1.2) == rr_proportion_ci(yes_count=y, n=200, epsilon=1.2)


# ------------------------------------------------------------ binary RR: exact test
@pytest.mark.parametrize("y, n, p0, eps", [(40, 100, 0.3, 1.0), (620, 1000, 0.5, 0.5), (3, 50, 0.1, 2.0)])
@pytest.mark.parametrize("alternative", ["less", "greater", "two-sided"])
def test_rr_exact_test_against_scipy_binomtest(y, n, p0, eps, alternative):
    a0, a1 = _warner(eps)
    lam0 = a0 + (a1 - a0) * p0
    if alternative == "two-sided":
        expected = min(1.0, 2 * min(stats.binomtest(y, n, lam0, "less").pvalue,
                                    stats.binomtest(y, n, lam0, "greater").pvalue))
    else:
        expected = stats.binomtest(y, n, lam0, alternative).pvalue
    res = rr_proportion_test(yes_count=y, n=n, p0=p0, epsilon=eps, alternative=alternative)
    assert isinstance(res, HTestResult)
    assert res.pvalue == pytest.approx(expected, rel=1e-10, abs=1e-300)
    assert res.statistic == y and res.null_value == p0 and res.epsilon == eps
    raw = ((y / n) - a0) / (a1 - a0)
    assert res.estimate_raw == pytest.approx(raw, rel=1e-12)
    assert res.estimate == pytest.approx(min(max(raw, 0.0), 1.0), rel=1e-12)  # projected onto [0, 1]


@pytest.mark.parametrize("alternative, tail_alt", [("greater", "greater"), ("less", "less")])
def test_rr_interval_inverts_the_test(alternative, tail_alt):
    # at an unclipped one-sided endpoint the exact test's p-value equals 1 - level
    y, n, eps = 130, 400, 1.0
    ci = rr_proportion_ci(yes_count=y, n=n, epsilon=eps, alternative=alternative, confidence_level=0.9)
    endpoint = ci.low if alternative == "greater" else ci.high
    assert 0.0 < endpoint < 1.0
    pv = rr_proportion_test(yes_count=y, n=n, p0=endpoint, epsilon=eps, alternative=tail_alt).pvalue
    assert pv == pytest.approx(0.1, rel=1e-8)


def test_rr_test_vectorised_and_size():
    # size of the exact two-sided test at p0 = 0.3 computed exactly: at most alpha
    n, eps, p0 = 500, 1.0, 0.3
    a0, a1 = _warner(eps)
    y = np.arange(n + 1)
    pv = rr_proportion_test(yes_count=y, n=n, p0=p0, epsilon=eps)
    assert pv.shape == (n + 1,)
    size = np.sum(stats.binom.pmf(y, n, a0 + (a1 - a0) * p0) * (pv <= 0.05))
    assert 0.04 <= size <= 0.05 + 1e-12


def test_rr_large_epsilon_reduces_to_clopper_pearson():
    ci = rr_proportion_ci(yes_count=12, n=40, epsilon=40.0)
    cp = stats.binomtest(12, 40).proportion_ci(0.95, method="exact")
    assert ci.low == pytest.approx(cp.low, rel=1e-9) and ci.high == pytest.approx(cp.high, rel=1e-9)


def test_two_coin_release_needs_matching_coins():
    tc = TwoCoinRRReleaser(0.4, 0.25)
    rel = tc.release(np.ones(50, int), rng=3)
    est = rr_proportion_estimate(rel, p1=0.4, p2=0.25)
    a0, a1 = tc.yes_prob
    assert est == pytest.approx((rel.value.mean() - a0) / (a1 - a0), rel=1e-12)
    with pytest.raises(ValueError, match="records epsilon but not the coins"):
        rr_proportion_estimate(rel)
    with pytest.raises(ValueError, match="give epsilon = .* but the Release records"):
        rr_proportion_estimate(rel, p1=0.5, p2=0.5)


def test_rr_two_sample_size_shared_channel():
    # size at p = 0.3 in both groups; 20_000 reps, SE = 0.0015; budget 4 SE
    reps, n1, n2 = 20_000, 800, 600
    rng = np.random.default_rng(404)
    a0, a1 = _warner(1.0)
    lam = a0 + (a1 - a0) * 0.3
    pv = rr_two_sample_test(yes_count1=rng.binomial(n1, lam, reps), n1=n1,
                            yes_count2=rng.binomial(n2, lam, reps), n2=n2, epsilon=1.0)
    assert pv.shape == (reps,)
    assert abs(np.mean(pv <= 0.05) - 0.05) <= 4 * np.sqrt(0.05 * 0.95 / reps)


def test_rr_two_sample_size_different_channels_through_releases():
    # group 1 at epsilon = 1, group 2 at epsilon = 0.5 (only Releases carry their own channel);
    # 4000 reps, SE = 0.0034; budget 4 SE
    reps, n1, n2, p = 4000, 400, 300, 0.3
    rng = np.random.default_rng(405)
    rel1 = RandomizedResponseReleaser(1.0).release((rng.random((reps, n1)) < p).astype(int), rng=rng)
    rel2 = RandomizedResponseReleaser(0.5).release((rng.random((reps, n2)) < p).astype(int), rng=rng)
    pv = rr_two_sample_test(rel1, rel2)
    assert abs(np.mean(pv <= 0.05) - 0.05) <= 4 * np.sqrt(0.05 * 0.95 / reps)


def test_rr_two_sample_mixed_inputs():
    rel = RandomizedResponseReleaser(0.5).release(np.ones(300, int), rng=8)
    y = int(rel.value.sum())
    res = rr_two_sample_test(rel, yes_count2=150, n2=400, epsilon=1.0)
    a0, a1 = _warner(0.5)
    b0, b1 = _warner(1.0)
    assert res.estimate == pytest.approx((y / 300 - a0) / (a1 - a0) - (150 / 400 - b0) / (b1 - b0), rel=1e-12)
    assert res.epsilon == 1.5  # levels 0.5 and 1.0, sequential composition (the default)
    assert rr_two_sample_test(rel, yes_count2=150, n2=400, epsilon=1.0, composition="parallel").epsilon == 1.0
    with pytest.raises(ValueError, match="must not be given when both groups are Warner RR Releases"):
        rr_two_sample_test(rel, rel, epsilon=1.0)


def test_rr_two_sample_result_by_hand():
    res = rr_two_sample_test(yes_count1=330, n1=500, yes_count2=280, n2=500, epsilon=1.0)
    a0, a1 = _warner(1.0)
    e1, e2 = (0.66 - a0) / (a1 - a0), (0.56 - a0) / (a1 - a0)
    lam = a0 + (a1 - a0) * (e1 + e2) / 2
    z = (e1 - e2) / np.sqrt(2 * lam * (1 - lam) / (500 * (a1 - a0) ** 2))
    assert isinstance(res, HTestResult) and res.null_value == 0.0
    assert res.statistic == pytest.approx(z, rel=1e-12)
    assert res.pvalue == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-10)
    se = np.sqrt(0.66 * 0.34 / 500 + 0.56 * 0.44 / 500) / (a1 - a0)
    assert res.conf_int.low == pytest.approx(e1 - e2 - stats.norm.ppf(0.975) * se, rel=1e-10)


# ------------------------------------------------------------ k-RR
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
    est = krr_frequency_estimate(rel, k=k)
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
    est = krr_frequency_estimate(counts=counts, epsilon=1.0, k=4)
    e = np.exp(1.0)
    expected = (counts / 200 - 1 / (e + 3)) / ((e - 1) / (e + 3))
    np.testing.assert_allclose(est, expected, rtol=1e-12)
    proj = krr_frequency_estimate(counts=counts, epsilon=1.0, k=4, project=True)
    assert np.all(proj >= 0) and proj.sum() == pytest.approx(1.0, abs=1e-12)


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


# ------------------------------------------------------------ unary encoding
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
    est = unary_frequency_estimate(rel)
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
    np.testing.assert_allclose(unary_frequency_estimate(rel), unary_frequency_estimate(bit_counts=s, n=300, epsilon=1.0))
    np.testing.assert_allclose(unary_frequency_estimate(rel.value, epsilon=1.0), unary_frequency_estimate(rel))


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


# ------------------------------------------------------------ simplex projection
@pytest.mark.parametrize("seed", range(5))
def test_project_to_simplex_kkt_and_optimum(seed):
    v = np.random.default_rng(seed).normal(0, 1, size=7)
    w = project_to_simplex(v)
    assert np.all(w >= 0) and w.sum() == pytest.approx(1.0, abs=1e-12)
    # KKT: v - w is constant (= theta) on the support and v <= theta off it
    theta = (v - w)[w > 0]
    assert np.ptp(theta) <= 1e-12
    assert np.all(v[w == 0] <= theta[0] + 1e-12)
    # an independent solver
    res = optimize.minimize(lambda u: np.sum((u - v) ** 2), np.full(7, 1 / 7), method="SLSQP",
                            bounds=[(0, 1)] * 7, constraints={"type": "eq", "fun": lambda u: u.sum() - 1},
                            options={"ftol": 1e-14, "maxiter": 500})
    np.testing.assert_allclose(w, res.x, atol=1e-6)


def test_extreme_epsilon_is_finite_and_warning_free():
    # pytest turns RuntimeWarnings into errors: overflow in exp would fail here
    assert rr_proportion_estimate(yes_count=620, n=1000, epsilon=710.0) == pytest.approx(0.62)
    np.testing.assert_allclose(unary_frequency_estimate(bit_counts=[600, 400, 300], n=1000, epsilon=1420.0),
                               [0.6, 0.4, 0.3])
    assert np.all(np.isfinite(unary_frequency_ci(bit_counts=[600, 400, 300], n=1000, epsilon=710.0)))
    np.testing.assert_allclose(krr_frequency_estimate(counts=[6, 4], k=2, epsilon=800.0), [0.6, 0.4])
    assert ldp_histogram_bins(10_000, 1e12) == 10_000  # capped at n


def test_project_to_simplex_huge_inputs():
    np.testing.assert_allclose(project_to_simplex(9007199254740994.0), [1.0])
    np.testing.assert_allclose(project_to_simplex([1e16, 0.0, 3.0]), [1.0, 0.0, 0.0])
    np.testing.assert_allclose(project_to_simplex([1e16 + 2, 1e16]), [1.0, 0.0])


def test_project_to_simplex_vectorised_and_fixed_points():
    p = np.array([[0.2, 0.8], [1.0, 0.0]])
    np.testing.assert_allclose(project_to_simplex(p), p, atol=1e-15)
    np.testing.assert_allclose(project_to_simplex([5.0]), [1.0])


# ------------------------------------------------------------ local Laplace
@pytest.mark.parametrize("estimand", ["population", "sample"])
def test_local_laplace_mean_variance_coverage(estimand):
    reps, n, eps, m = 4000, 500, 1.0, 2.0
    rng = np.random.default_rng(np.random.SeedSequence([1111, estimand == "sample"]))
    if estimand == "population":
        x = rng.uniform(-m, 1.0, size=(reps, n))  # mean -0.5, variance 3^2/12
        target, var_x = -0.5, 9 / 12
    else:
        x = np.broadcast_to(np.linspace(-m, m, n), (reps, n))
        target, var_x = 0.0, 0.0
    rel = LocalLaplaceReleaser(eps, m).release(x, rng=rng)
    est = local_laplace_mean_estimate(rel)
    var_true = (var_x + 2 * (2 * m / eps) ** 2) / n
    assert abs(est.mean() - target) <= 4 * np.sqrt(var_true / reps)
    assert abs(est.var(ddof=1) - var_true) <= 4 * var_true * np.sqrt(2 / (reps - 1))
    se = local_laplace_mean_se(rel, estimand=estimand)
    assert abs(np.mean(se**2) - var_true) <= 4 * np.std(se**2) / np.sqrt(reps) + 1e-15
    xbar = x.mean(axis=1)  # the sample estimand is each data set's own mean
    ci = local_laplace_mean_ci(rel, estimand=estimand)
    truth = target if estimand == "population" else xbar
    cover = np.mean((ci[:, 0] <= truth) & (truth <= ci[:, 1]))
    assert abs(cover - 0.95) <= 4 * np.sqrt(0.95 * 0.05 / reps)


def test_local_laplace_scalar_ci_and_arguments():
    z = np.array([0.5, -1.5, 2.0, 1.0])
    ci = local_laplace_mean_ci(z, epsilon=10.0, bound=3.0, estimand="sample", alternative="greater")
    assert isinstance(ci, ConfidenceInterval) and ci.high == 3.0
    assert ci.low == pytest.approx(0.5 - stats.norm.ppf(0.95) * np.sqrt(2) * 0.6 / 2, rel=1e-12)
    # the interval is clipped to [-M, M]
    wide = local_laplace_mean_ci(z, epsilon=0.1, bound=3.0, estimand="sample")
    assert (wide.low, wide.high) == (-3.0, 3.0)


# ------------------------------------------------------------ LDP histogram
def test_ldp_histogram_bins_rule():
    assert ldp_histogram_bins(10_000, 1.0) == 6  # (1e4 / 8)^(1/4) = 5.95
    assert ldp_histogram_bins(20_000, 1.0) == 7  # 7.07 (issue 18: the old rule gave 12)
    assert ldp_histogram_bins(10_000, 1.0, beta=0.5) == round((1e4 / 8) ** (1 / 3))
    assert ldp_histogram_bins(1, 0.01) == 1


_S6 = 1 / 6
_Z6 = stats.norm.cdf(3) - stats.norm.cdf(-3)
# int f^2 of N(1/2, (1/6)^2) truncated to [0, 1], by quadrature (relative error ~1e-13)
_F2_NORMAL = integrate.quad(lambda x: (stats.norm.pdf((x - 0.5) / _S6) / _S6 / _Z6) ** 2, 0, 1,
                            epsabs=1e-13)[0]


def _mise(kind, k, n, eps):
    """Exact MISE of the unprojected LDP histogram with k bins (derived here, not in the package):
    int f^2 - k S + k (1 - S) / n + 8 k^2 / (n eps^2), S = sum p_j^2 (bias + binomial + Laplace(2/eps))."""
    e = np.arange(k + 1) / k
    if kind == "linear":  # f(x) = 2x: p_j = ((j+1)^2 - j^2) / k^2, int f^2 = 4/3
        p, f2 = np.diff(e**2), 4.0 / 3.0
    else:  # N(1/2, (1/6)^2) truncated to [0, 1]
        p, f2 = np.diff(stats.norm.cdf((e - 0.5) / _S6)) / _Z6, _F2_NORMAL
    big_s = np.sum(p**2)
    return f2 - k * big_s + k * (1 - big_s) / n + 8 * k**2 / (n * eps**2)


@pytest.mark.parametrize("kind", ["linear", "normal"])
def test_ldp_histogram_bins_within_1_5_of_grid_minimal_mise(kind):
    # Issue 18, item 4: for n eps^2 >= 500 the rule's MISE is within 1.5x (measured: 1.29 / 1.28)
    # of the minimum over K = 1..400, for f(x) = 2x and a normal-shaped density.
    worst = 0.0
    for n in [1000, 10_000, 100_000, 1_000_000, 10**7]:
        for eps in [0.5, 1.0, 2.0, 4.0]:
            if n * eps**2 < 500:  # three bins or fewer: see the docstring (up to 2.1x there)
                continue
            best = min(_mise(kind, k, n, eps) for k in range(1, 400))
            worst = max(worst, _mise(kind, ldp_histogram_bins(n, eps), n, eps) / best)
    assert worst <= 1.5


def test_ldp_histogram_mise_formula_by_simulation():
    # The exact MISE formula above against simulated releases of f(x) = 2x (seeded):
    # 400 data sets of n = 2000 at k = 5, eps = 1; 4 SE of the mean ISE.
    reps, n, k, eps = 400, 2000, 5, 1.0
    rng = np.random.default_rng(18)
    x = np.sqrt(rng.random((reps, n)))  # density 2x
    dens = ldp_histogram_density(LDPHistogramReleaser(eps, k).release(x, rng=rng))
    # ISE = int (f_hat - 2x)^2 over each bin [a, b]: closed form of a quadratic.
    a, b = np.arange(k) / k, np.arange(1, k + 1) / k
    ise = np.sum(dens**2 / k - 2 * dens * (b**2 - a**2) + 4 * (b**3 - a**3) / 3, axis=1)
    assert abs(ise.mean() - _mise("linear", k, n, eps)) <= 4 * ise.std(ddof=1) / np.sqrt(reps)


def test_ldp_histogram_density_unbiased():
    # heights K * mean(Z_j); 2000 reps of n = 400 values from Beta(2, 2)
    reps, n, k, eps = 2000, 400, 4, 1.0
    rng = np.random.default_rng(1212)
    x = rng.beta(2, 2, size=(reps, n))
    dens = ldp_histogram_density(LDPHistogramReleaser(eps, k).release(x, rng=rng))
    edges = np.linspace(0, 1, k + 1)
    pj = np.diff(stats.beta.cdf(edges, 2, 2))
    sd = k * np.sqrt((pj * (1 - pj) + 2 * (2 / eps) ** 2) / n)
    assert np.all(np.abs(dens.mean(axis=0) - k * pj) <= 4 * sd / np.sqrt(reps))
    assert np.all(np.abs(dens.std(axis=0, ddof=1) - sd) <= 4 * sd / np.sqrt(2 * (reps - 1)))
    proj = ldp_histogram_density(LDPHistogramReleaser(eps, k).release(x[0], rng=1), project=True)
    assert np.all(proj >= 0) and proj.sum() / k == pytest.approx(1.0)


# ------------------------------------------------------------ results and bad inputs
def test_results_print_and_mechanisms():
    res = rr_proportion_test(yes_count=60, n=100, p0=0.5, epsilon=1.0)
    text = str(res)
    assert "Exact binomial test on randomized response reports" in text and "privacy: epsilon = 1" in text
    res = krr_gof_test(counts=[30, 50, 20], p0=[0.2, 0.5, 0.3], epsilon=1.0)
    assert res.alternative == "greater" and res.estimate is None and "X-squared" in str(res)
    assert res.parameter == 2 and "df = 2" in str(res)
    res = unary_gof_test(bit_counts=[30, 50, 20, 10], n=100, p0=[0.25] * 4, epsilon=1.0)
    assert res.parameter == 3 and res.to_dict()["mechanism"] == "unary_encoding"


_RR = RandomizedResponseReleaser(1.0).release([0, 1, 1], rng=0)
_UE = UnaryEncodingReleaser(1.0, 3).release([0, 1, 1], rng=0)
_KRR = KRRReleaser(1.0, 3).release([0, 1, 2], rng=0)
_LAP = LocalLaplaceReleaser(1.0, 1.0).release([0.0, 0.5], rng=0)
_LAPLACE_CENTRAL = dpinfer.LaplaceReleaser(1.0).proportion(3, 10, rng=0)


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: rr_proportion_estimate(), ValueError, "give either `reports` or both `yes_count` and `n`"),
        (lambda: rr_proportion_estimate([0, 1]), ValueError, r"give `epsilon` \(Warner's RR\) or `p1` and `p2`"),
        (lambda: rr_proportion_estimate([0, 2], epsilon=1.0), ValueError, "`reports` must contain only 0 and 1"),
        (lambda: rr_proportion_estimate(yes_count=11, n=10, epsilon=1.0), ValueError, "`yes_count` must lie between 0 and `n`"),
        (lambda: rr_proportion_estimate(yes_count=1, n=0, epsilon=1.0), ValueError, "`n` must be an integer >= 1"),
        (lambda: rr_proportion_estimate(_RR, epsilon=1.0), ValueError, "`epsilon` must not be given"),
        (lambda: rr_proportion_estimate(_RR, n=3), ValueError, "`n` must not be given"),
        (lambda: rr_proportion_estimate(_LAPLACE_CENTRAL), ValueError, "mechanism 'laplace'"),
        (lambda: rr_proportion_estimate([0, 1], epsilon=1.0, p1=0.5, p2=0.5), ValueError, "not both"),
        (lambda: rr_proportion_estimate([0, 1], p1=0.5), ValueError, "give both `p1` and `p2`"),
        (lambda: rr_proportion_estimate([0, 1], p1=1.5, p2=0.5), ValueError, r"`p1` must lie in \(0, 1\)"),
        (lambda: rr_proportion_estimate([0, 1], epsilon=-1), ValueError, "`epsilon` must be a positive"),
        (lambda: rr_proportion_se(_RR, estimand="both"), ValueError, "`estimand` must be one of"),
        (lambda: rr_proportion_se(_RR, estimand=1), TypeError, "`estimand` must be one of"),
        (lambda: rr_proportion_ci(_RR, method="wilson"), ValueError, "`method` must be one of 'exact', 'wald'"),
        (lambda: rr_proportion_ci(_RR, confidence_level=95), ValueError, r"give 0.95, not 95"),
        (lambda: rr_proportion_ci(_RR, alternative="two.sided"), ValueError, "`alternative` must be one of"),
        (lambda: rr_proportion_test(_RR, p0=1.2), ValueError, r"`p0` must lie in \[0, 1\]"),
        (lambda: rr_two_sample_test(_RR), ValueError, "give either `reports2` or both `yes_count2` and `n2`"),
        (lambda: krr_frequency_estimate(_KRR), ValueError, "`k` .* must be given"),
        (lambda: krr_frequency_estimate(_KRR, k=2), ValueError, "needs `k` > 2"),
        (lambda: krr_frequency_estimate([0, 1], k=3), ValueError, "`epsilon` must be given"),
        (lambda: krr_frequency_estimate([0, 3], k=3, epsilon=1.0), ValueError, "`reports` must contain labels"),
        (lambda: krr_frequency_estimate(counts=[1, 2], k=3, epsilon=1.0), ValueError, "last axis of length k = 3"),
        (lambda: krr_frequency_estimate(counts=[1, -2, 3], k=3, epsilon=1.0), ValueError, "non-negative whole"),
        (lambda: krr_frequency_estimate(counts=[0, 0, 0], k=3, epsilon=1.0), ValueError, "at least one report"),
        (lambda: krr_frequency_estimate(_KRR, k=3, project="yes"), TypeError, "`project` must be True or False"),
        (lambda: krr_frequency_ci(_KRR, k=3, method="sidak"), ValueError, "`method` must be one of"),
        (lambda: krr_gof_test(_KRR), ValueError, "`p0` .* must be given"),
        (lambda: krr_gof_test(_KRR, [0.5, 0.6, -0.1]), ValueError, "`p0` must be non-negative and sum to 1"),
        (lambda: krr_gof_test(_KRR, [0.5, 0.5], k=3), ValueError, "`p0` must have length k = 3"),
        (lambda: krr_gof_test(_UE, [0.5, 0.25, 0.25]), ValueError, "mechanism 'unary_encoding'"),
        (lambda: unary_frequency_estimate([[0, 1]]), ValueError, "`epsilon` must be given"),
        (lambda: unary_frequency_estimate([0, 1], epsilon=1.0), ValueError, r"shape \(..., n, d\)"),
        (lambda: unary_frequency_estimate(bit_counts=[3, 4], n=3, epsilon=1.0), ValueError, "between 0 and `n` = 3"),
        (lambda: unary_frequency_estimate(bit_counts=[3, 4], epsilon=1.0), ValueError, "both `bit_counts` and `n`"),
        (lambda: unary_frequency_estimate(_UE, n=3), ValueError, "`n` must not be given"),
        (lambda: unary_gof_test(_UE, [0.5, 0.5]), ValueError, "`p0` must have length d = 3"),
        (lambda: unary_frequency_ci(_UE, confidence_level=0.0), ValueError, "`confidence_level` must lie"),
        (lambda: project_to_simplex([np.nan, 1.0]), ValueError, "`v` must contain only finite"),
        (lambda: local_laplace_mean_ci([0.1, 0.2]), ValueError, "`epsilon` and `bound` must be given"),
        (lambda: local_laplace_mean_ci([0.1], epsilon=1.0, bound=1.0), ValueError, "at least 2 respondents"),
        (lambda: local_laplace_mean_ci(_LAP, bound=1.0), ValueError, "`bound` must not be given"),
        (lambda: local_laplace_mean_ci([0.1, 0.2], epsilon=1.0, bound=-1.0), ValueError, "`bound` must be a positive"),
        (lambda: local_laplace_mean_se(_LAP, estimand="x"), ValueError, "`estimand` must be one of"),
        (lambda: ldp_histogram_bins(100, 1.0, beta=2.0), ValueError, r"`beta` must lie in \(0, 1\]"),
        (lambda: ldp_histogram_bins(0, 1.0), ValueError, "`n` must be an integer >= 1"),
        (lambda: ldp_histogram_density([[0.1, 0.2]]), ValueError, "`epsilon` must be given"),
        (lambda: ldp_histogram_density([0.1, 0.2], epsilon=1.0), ValueError, r"shape \(..., n, K\)"),
        (lambda: rr_two_sample_test(_RR, _RR, alternative="bigger"), ValueError, "`alternative` must be one of"),
        (lambda: rr_proportion_test(_UE), ValueError, "mechanism 'unary_encoding'"),
        (lambda: krr_frequency_estimate([0, 1], counts=[1, 1], k=2, epsilon=1.0), ValueError, "`counts` must not be given"),
        (lambda: unary_frequency_estimate(_UE, project=1), TypeError, "`project` must be True or False"),
        (lambda: local_laplace_mean_estimate(None), ValueError, "`reports` .* must be given"),
        (lambda: local_laplace_mean_ci(_RR), ValueError, "mechanism 'randomized_response'"),
        (lambda: ldp_histogram_bins(100, 0.0), ValueError, "`epsilon` must be a positive finite number"),
        (lambda: ldp_histogram_bins(100, 1.0, beta="a"), TypeError, "`beta` must be a real number"),
        (lambda: ldp_histogram_density(_LAP), ValueError, "mechanism 'local_laplace'"),
        (lambda: rr_proportion_estimate(yes_count=1, n=3, epsilon=1e-300), ValueError, "`epsilon` = 1e-300 is too small"),
        (lambda: krr_frequency_estimate(counts=[1, 2], k=2, epsilon=1e-300), ValueError, "`epsilon` = 1e-300 is too small"),
        (lambda: unary_frequency_cov(bit_counts=[1, 2], n=3, epsilon=1e-300), ValueError, "`epsilon` = 1e-300 is too small"),
        (lambda: local_laplace_mean_ci([0.1, 0.2], epsilon=1e-300, bound=1e300), ValueError, "overflows a double"),
    ],
)
def test_bad_inputs(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_local_laplace_report_too_large_for_a_variance_is_refused():
    # (1.9e154)^2 overflows; found by the fuzz suite as a foreign RuntimeWarning.
    from dpinfer import local_laplace_mean_ci

    with pytest.raises(ValueError, match=r"`reports` must lie within \+-1e150"):
        local_laplace_mean_ci([0.0, 1.9e154], epsilon=1.0, bound=1.0)
