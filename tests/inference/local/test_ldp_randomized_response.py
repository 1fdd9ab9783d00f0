"""Binary randomized response inference: unbiasedness, variances, exact coverage, exact and two-sample tests.

Monte Carlo assertions state their standard error and allow 4 SE.  Where a quantity
can be computed exactly (RR interval coverage: the yes count has a known law) it is.
"""

import numpy as np
import pytest
from scipy import stats

from dpinfer import (
    HTestResult,
    RandomizedResponseReleaser,
    TwoCoinRRReleaser,
    rr_proportion_ci,
    rr_proportion_estimate,
    rr_proportion_se,
    rr_proportion_test,
    rr_two_sample_test,
)


def _warner(eps):
    """(P(yes | 0), P(yes | 1)) of Warner's RR, written independently of the package."""
    return 1 / (1 + np.exp(eps)), np.exp(eps) / (1 + np.exp(eps))


@pytest.mark.parametrize("channel", [{"epsilon": 1.0}, {"p1": 0.6, "p2": 0.3}])
@pytest.mark.parametrize("p", [0.1, 0.5])
def test_rr_estimator_unbiased_and_population_variance(channel, p):
    reps, n = 4000, 300
    rng = np.random.default_rng(np.random.SeedSequence(101))
    x = (rng.random((reps, n)) < p).astype(int)
    releaser = RandomizedResponseReleaser(**channel) if "epsilon" in channel else TwoCoinRRReleaser(**channel)
    rel = releaser.release(x, rng=rng)
    est = rr_proportion_estimate(rel, **({} if "epsilon" in channel else channel)).estimate_raw
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
    est = rr_proportion_estimate(rel).estimate_raw
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
    assert (rr_proportion_estimate(rel).estimate_raw
            == rr_proportion_estimate(yes_count=y, n=200, epsilon=1.2).estimate_raw)
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
    est = rr_proportion_estimate(rel, p1=0.4, p2=0.25).estimate_raw
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
