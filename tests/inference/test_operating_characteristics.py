"""Issue 18: every approximate method computes its exact size / coverage and says when it is off.

Expected values come from routes independent of the code under test: simulated
releases pushed through the package's p-values and intervals (seeded, within 4
Monte Carlo standard errors, the budget written next to each assertion), direct
sums over every binomial count written here (DP-JIMI's cuts solved for the fiducial
law written from its definition in ``tests/reference/jimi_fiducial.py``, not taken
from the package), and the figures of the issue (an independent check).
"""

import warnings

import numpy as np
import pytest
from scipy import stats

import dpinfer
from dpinfer import ApproximationWarning
from dpinfer.cli import main
from dpinfer.inference.jimi import _exact as _jimi_exact
from dpinfer.inference.normal import _kernels as normal
from dpinfer.inference.local import _randomized_response
from reference.jimi_fiducial import release_cut


def _no_warning(call):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ApproximationWarning)
        return call()


# ----------------------------------------------------------------- item 1: DP-JIMI size
def test_jimi_issue_reproducer_warns_with_the_figure():
    # n = 100, epsilon = 5, p0 = 0.02, 'less': exact-limit size 0.084 (the issue's figure).
    with pytest.warns(ApproximationWarning, match=r"exact \(infinite-draw\) size .* is 0\.084"):
        dpinfer.binom_jimi_test(0.0113, 100, p0=0.02, epsilon=5.0, alternative="less", n_sim=None)


def test_jimi_exact_size_against_simulated_releases():
    # 20 000 releases under p0, each tested with the package's exact-limit p-value (an
    # independent route: no root finding, no binomial sum).  SE = sqrt(s (1 - s) / m).
    n, eps, p0, m = 100, 5.0, 0.02, 20_000
    rng = np.random.default_rng(20181203)
    pi_hat = rng.binomial(n, p0, m) / n + rng.laplace(0.0, 1.0 / (eps * n), m)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        p = dpinfer.binom_jimi_test(pi_hat, n, p0=p0, epsilon=eps, alternative="less", n_sim=None)
    simulated = np.mean(p <= 0.05)
    exact = _jimi_exact._exact_size(n, eps, p0, 0.05, "less")
    assert abs(simulated - exact) <= 4 * np.sqrt(exact * (1 - exact) / m)


@pytest.mark.parametrize("n, eps, p0, alt", [(30, 3.0, 0.07, "less"), (30, 1.0, 0.4, "two-sided"),
                                             (100, 2.0, 0.98, "greater")])
def test_jimi_exact_size_by_direct_sum(n, eps, p0, alt):
    # Independent of the package: the cut solves p-value(cut) = level for the fiducial law
    # written from its definition (tests/reference/jimi_fiducial.py, quadrature to 1e-14,
    # the cut to ~1e-15), and the size is sum_x Binom(x) P(x/n + L beyond cut), summed
    # here over every x.  A cut error of 1e-13 moves the size by at most 1e-13 times the
    # release density (below 300 here), so 1e-9 is a wide bound.
    tails = {"two-sided": (0.025, 0.025), "greater": (0.05, None), "less": (None, 0.05)}[alt]
    total = 0.0
    x = np.arange(n + 1)
    pmf = stats.binom.pmf(x, n, p0)
    scale = 1.0 / (eps * n)
    for level, upper in ((tails[0], True), (tails[1], False)):
        if level is None:
            continue
        cut = release_cut(p0, level, n, eps, upper)
        # P(L >= cut - x/n) or P(L <= cut - x/n), L ~ Laplace(0, scale)
        d = cut - x / n
        tail = stats.laplace.sf(d, scale=scale) if upper else stats.laplace.cdf(d, scale=scale)
        total += float(np.sum(pmf * tail))
    assert _jimi_exact._exact_size(n, eps, p0, 0.05, alt) == pytest.approx(total, abs=1e-9)


def test_jimi_quiet_where_honest():
    # epsilon = 1, n = 30: every size within 0.0505-0.0531 (documented), no warning
    _no_warning(lambda: dpinfer.binom_jimi_test(0.37, 30, p0=0.2, epsilon=1.0, n_sim=None))
    _no_warning(lambda: dpinfer.binom_jimi_ci(0.37, 30, epsilon=1.0, n_sim=None))
    # p0 on the boundary: one alternative is empty, no size check
    _no_warning(lambda: dpinfer.binom_jimi_test(0.1013, 30, p0=0.0, epsilon=1.0, n_sim=None, alternative="less"))


def test_jimi_simulated_path_warns_with_the_exact_figure():
    with pytest.warns(ApproximationWarning, match="size"):
        dpinfer.binom_jimi_test(0.9013, 30, p0=0.94, epsilon=10.0, alternative="greater", rng=1, n_sim=2000)


def test_jimi_ci_coverage_warning_matches_simulation():
    # n = 30, epsilon = 5 two-sided: exact-limit coverage at theta = 0.97 against 5000
    # simulated releases through binom_jimi_ci (exact limit), within 4 SE.
    n, eps, theta, m = 30, 5.0, 0.97, 5000
    cover = 1.0 - _jimi_exact._exact_rejection(np.array([theta]), 0.025, 0.025, n, eps)[0]
    rng = np.random.default_rng(7)
    pi_hat = rng.binomial(n, theta, m) / n + rng.laplace(0.0, 1.0 / (eps * n), m)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        ci = dpinfer.binom_jimi_ci(pi_hat, n, epsilon=eps, n_sim=None)
    simulated = np.mean((ci[:, 0] <= theta) & (theta <= ci[:, 1]))
    assert abs(simulated - cover) <= 4 * np.sqrt(cover * (1 - cover) / m)
    assert cover < 0.94
    with pytest.warns(ApproximationWarning, match="covers too little"):
        dpinfer.binom_jimi_ci(0.95, n, epsilon=eps, n_sim=None)


# ----------------------------------------------------------------- item 2: normal and RR intervals
@pytest.mark.parametrize("n, eps, theta, method, expected", [
    (10, 5.0, 0.01, "score", 0.920), (30, 5.0, 0.02, "wald", 0.711), (30, 1.0, 0.1, "wald", 0.910)])
def test_normal_ci_exact_coverage_issue_figures(n, eps, theta, method, expected):
    # The issue's independently computed coverages (three decimals).
    cov = normal._region_coverage(theta, n, eps, 0.95, "two-sided", method)
    assert cov == pytest.approx(expected, abs=1e-3)  # three decimals, rounded or truncated


@pytest.mark.parametrize("n, eps, theta, alt, method", [
    (30, 5.0, 0.02, "two-sided", "wald"), (50, 1.0, 0.1, "less", "wald"), (10, 5.0, 0.01, "less", "score")])
def test_normal_ci_exact_coverage_against_simulation(n, eps, theta, alt, method):
    # 200 000 simulated releases through the public interval; 4 SE.
    m = 200_000
    rng = np.random.default_rng(1978)
    v = rng.binomial(n, theta, m) / n + rng.laplace(0.0, 1.0 / (eps * n), m)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)  # the subject here: the number
        low, high = np.asarray(dpinfer.binom_normal_ci(v, n, epsilon=eps, method=method, alternative=alt)).T
    simulated = np.mean((low <= theta) & (theta <= high))
    cov = normal._region_coverage(theta, n, eps, 0.95, alt, method)
    assert abs(simulated - cov) <= 4 * np.sqrt(cov * (1 - cov) / m)


def test_score_region_coverage_equals_one_minus_size_two_sided():
    # The score interval holds theta exactly when the two-sided score test of p0 = theta
    # accepts: |v - theta| <= z sd(theta), sd^2 = theta (1 - theta) / n + 2 / (epsilon n)^2.
    # Its rejection probability, summed here over every count x with the Laplace tails.
    z = stats.norm.ppf(0.975)
    for n, eps, theta in [(30, 1.0, 0.1), (200, 0.5, 0.3), (30, 5.0, 0.6)]:
        x = np.arange(n + 1)
        scale = 1.0 / (eps * n)
        sd = np.sqrt(theta * (1.0 - theta) / n + 2.0 * scale**2)
        d = theta - x / n
        reject = stats.laplace.sf(d + z * sd, scale=scale) + stats.laplace.cdf(d - z * sd, scale=scale)
        direct = 1.0 - float(np.sum(stats.binom.pmf(x, n, theta) * reject))
        assert normal._region_coverage(theta, n, eps, 0.95, "two-sided", "score") == pytest.approx(
            direct, abs=1e-12)


def test_normal_ci_warns_and_is_quiet():
    with pytest.warns(ApproximationWarning, match=r"\(wald\) interval covers too little .* is 0\.7"):
        dpinfer.binom_normal_ci(0.05, 30, epsilon=5.0, method="wald")
    _no_warning(lambda: dpinfer.binom_normal_ci(0.4213, 500, epsilon=1.0, method="wald"))
    _no_warning(lambda: dpinfer.binom_normal_ci(0.4213, 50, epsilon=1.0))


def test_rr_wald_coverage_by_direct_sum_and_warning():
    # n = 20, epsilon = 3, p = 0.99: coverage summed here over every yes count (the issue: ~0.64-0.73).
    n, eps, p = 20, 3.0, 0.99
    a0, a1 = 1 / (1 + np.exp(eps)), 1 / (1 + np.exp(-eps))
    y = np.arange(n + 1)
    est = (y / n - a0) / (a1 - a0)
    se = np.sqrt((y / n) * (1 - y / n) / n) / (a1 - a0)
    z = stats.norm.ppf(0.975)
    covered = (np.clip(est - z * se, 0, 1) <= p) & (p <= np.clip(est + z * se, 0, 1))
    direct = stats.binom.pmf(y, n, a0 + (a1 - a0) * p)[covered].sum()
    b = np.tanh(eps / 2)
    assert _randomized_response._rr_wald_coverage(p, n, a0, a1, b, 0.95, "two-sided") == pytest.approx(direct, abs=1e-12)
    assert direct < 0.75
    with pytest.warns(ApproximationWarning, match="Wald interval covers too little"):
        dpinfer.rr_proportion_ci(yes_count=19, n=20, epsilon=3.0, method="wald")
    _no_warning(lambda: dpinfer.rr_proportion_ci(yes_count=620, n=1000, epsilon=1.0, method="wald"))


def test_cli_power_normal_says_when_size_exceeds_alpha(capsys):
    assert main(["power", "--theta", "0.1", "0.3", "--n", "30", "--p0", "0.1", "--epsilon", "5",
                 "--method", "normal", "--alternative", "greater"]) == 0
    out = capsys.readouterr()
    assert "exact size (power at theta = p0): 0.0679" in out.out
    assert "above alpha = 0.05" in out.err
    assert main(["power", "--theta", "0.3", "--n", "30", "--p0", "0.5", "--epsilon", "1",
                 "--method", "normal", "--alternative", "greater"]) == 0
    assert "warning" not in capsys.readouterr().err


# ----------------------------------------------------------------- item 5: estimates
def test_estimates_in_the_parameter_space_with_the_raw_value():
    res = dpinfer.rr_proportion_test(yes_count=10, n=100, epsilon=0.5)
    assert res.estimate == 0.0 and res.estimate_raw == pytest.approx(-1.1331952660, abs=1e-9)
    assert "the unbiased estimate is -1.133195" in str(res)
    assert res.to_dict()["estimate_raw"] == res.estimate_raw
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        a = dpinfer.binom2_normal_test(1.08, 30, 0.05, 30, epsilon=1.0)
        b = dpinfer.binom2_jimi_test(1.08, 30, 0.05, 30, epsilon=1.0, rng=1)
    assert a.estimate == b.estimate == 1.0  # one rule: the difference projected onto [-1, 1]
    assert a.estimate_raw == b.estimate_raw == pytest.approx(1.03, abs=1e-15)
    one = dpinfer.binom_jimi_test(-0.05, 30, p0=0.2, epsilon=1.0, n_sim=None)
    assert (one.estimate, one.estimate_raw) == (0.0, -0.05)
    assert "unbiased estimate" not in str(dpinfer.binom_jimi_test(0.4013, 30, p0=0.2, epsilon=1.0, n_sim=None))


def test_local_laplace_mean_projection():
    z = [3.5, 1.5, 2.0, 5.7]
    res = dpinfer.local_laplace_mean_estimate(z, epsilon=1.0, bound=1.0)
    assert res.estimate_raw == pytest.approx(3.175)  # (3.5 + 1.5 + 2.0 + 5.7) / 4
    assert res.estimate == 1.0 and float(res) == 1.0
    assert "unbiased estimate (estimate_raw" in str(res)


# ----------------------------------------------------------------- item 6: two-sample ties
def test_two_sample_ties_count_half_on_each_side():
    # Both releases far below 0: theta1* = theta2* = 0 in (almost) every draw, so almost all
    # differences tie at p0 = 0 and mid-p gives 1/2 on each side (was 1 on both).
    res = dpinfer.binom2_jimi_test(-0.5013, 30, -0.5013, 30, epsilon=1.0,
                                   alternative="greater", rng=3, n_sim=4000)
    assert res.pvalue == pytest.approx(0.5, abs=1e-3)
    two = dpinfer.binom2_jimi_test(-0.5013, 30, -0.5013, 30, epsilon=1.0, rng=3, n_sim=4000)
    assert two.pvalue == pytest.approx(1.0, abs=2e-3)


def test_two_sample_mid_p_size_at_small_theta():
    # Issue: null-side counting gave 0.031 at theta = 0.1 (n = 30, epsilon 0.5 per group);
    # mid-p keeps the size below alpha but closer to it.  3000 release pairs, 1000 draws:
    # SE <= 0.004; the size must lie in (0.031 - 4 SE, 0.05 + 4 SE) and above null-side's.
    n, eps, theta, m = 30, 0.5, 0.1, 3000
    rng = np.random.default_rng(31)
    pi1 = rng.binomial(n, theta, m) / n + rng.laplace(0.0, 1.0 / (eps * n), m)
    pi2 = rng.binomial(n, theta, m) / n + rng.laplace(0.0, 1.0 / (eps * n), m)
    p = dpinfer.binom2_jimi_test(pi1, n, pi2, n, epsilon=eps, alternative="greater",
                                 n_sim=1000, rng=5)
    size = np.mean(p <= 0.05)
    se = np.sqrt(0.05 * 0.95 / m)
    assert 0.031 - 4 * se < size < 0.05 + 4 * se
