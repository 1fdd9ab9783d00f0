"""The exact two-arm odds-ratio test and interval (effect='odds-ratio', two_arm._odds_ratio).

Expected values: tests/reference/two_arm_odds_ratio_values.json (mpmath, 30 digits, direct
summation over the counts and the noise cells, quadrature inside the tying cells, its own
restricted MLE by bisection and its own supremum; made by
tests/reference/make_two_arm_odds_ratio.py without importing dpinfer); the non-private limit
against an unconditional exact Miettinen-Nurminen score test enumerated here (restricted MLE
as the root of the likelihood's derivative, by scipy's brentq); coverage from the exact rejection
probability of the test of the true odds ratio (two_arm._critical).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import optimize, stats

from dpinfer import (LaplaceReleaser, TulapReleaser, binom2_ump_ci, binom2_ump_power, binom2_ump_sample_size,
                     binom2_ump_test, prop_test)
from dpinfer.inference.two_arm._law import _arm
from dpinfer.inference.two_arm._odds_ratio import _restricted_odds_ratio
from dpinfer.inference.two_arm._score import _Observed, _pooled, _raw_score
from dpinfer.inference.two_arm._critical import _exact_power
from dpinfer.inference.two_arm._supremum import _null, _pvalues

REF = json.loads((Path(__file__).parents[2] / "reference" / "two_arm_odds_ratio_values.json").read_text())


def odds(t1, t2):
    return t1 * (1.0 - t2) / (t2 * (1.0 - t1))


@pytest.mark.parametrize("case", REF["cases"], ids=lambda c: c["name"])
@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_pvalues_against_mpmath(case, alternative):
    p = binom2_ump_test(case["z1"], case["n1"], case["z2"], case["n2"], epsilon=(case["epsilon1"], case["epsilon2"]),
                        effect="odds-ratio", margin=case["margin"], alternative=alternative).pvalue
    assert p == pytest.approx(float(case[alternative]), rel=1e-10)


def restricted_by_likelihood(x1, n1, x2, n2, psi):
    """The restricted MLE: the root of the log-likelihood's derivative along the null curve.

    With ``u = logit(t2)`` and ``logit(t1) = u + log(psi)``, the derivative of
    ``log Binom(x1; n1, t1) + log Binom(x2; n2, t2)`` in ``u`` is ``(x1 - n1 t1) + (x2 - n2 t2)``,
    decreasing in ``u``; its root by Brent's method (0 < x1 + x2 < n1 + n2).
    """
    def t_of(u):
        return 1.0 / (1.0 + math.exp(-u - math.log(psi))), 1.0 / (1.0 + math.exp(-u))

    def derivative(u):
        t1, t2 = t_of(u)
        return (x1 - n1 * t1) + (x2 - n2 * t2)

    return t_of(optimize.brentq(derivative, -60.0, 60.0, xtol=1e-15, rtol=1e-15))


@pytest.mark.parametrize("psi", [0.3, 1.0, 2.5, 40.0])
def test_restricted_mle_maximises_the_likelihood(psi):
    n1, n2 = 13, 21
    for x1, x2 in [(3, 17), (13, 2), (7, 9), (0, 5), (13, 20)]:
        t1, t2 = (float(v) for v in _restricted_odds_ratio(np.array(x1), np.array(x2), n1, n2, psi))
        # the likelihood along the curve is largest there (against a bounded search of it)
        def nll(u):
            a, b = 1.0 / (1.0 + math.exp(-u - math.log(psi))), 1.0 / (1.0 + math.exp(-u))
            return -stats.binom.logpmf(x1, n1, a) - stats.binom.logpmf(x2, n2, b)
        u = optimize.minimize_scalar(nll, bounds=(-40.0, 40.0), method="bounded", options={"xatol": 1e-12}).x
        assert t2 == pytest.approx(1.0 / (1.0 + math.exp(-u)), abs=1e-6)
        e1, e2 = restricted_by_likelihood(x1, n1, x2, n2, psi)
        assert t2 == pytest.approx(e2, abs=1e-12) and t1 == pytest.approx(e1, abs=1e-12)
        assert odds(t1, t2) == pytest.approx(psi, rel=1e-12)
        assert x1 + x2 == pytest.approx(n1 * t1 + n2 * t2, abs=1e-9)  # the likelihood equation
    # the corners: no successes, all successes
    assert [float(v) for v in _restricted_odds_ratio(np.array(0), np.array(0), n1, n2, psi)] == [0.0, 0.0]
    assert [float(v) for v in _restricted_odds_ratio(np.array(n1), np.array(n2), n1, n2, psi)] == [1.0, 1.0]


def mn_score(x1, n1, x2, n2, psi):
    """Miettinen & Nurminen's odds-ratio score (without the (N - 1)/N factor), MLE by likelihood."""
    if x1 + x2 in (0, n1 + n2):
        return 0.0
    t1, t2 = restricted_by_likelihood(x1, n1, x2, n2, psi)
    return (x1 - n1 * t1) * math.sqrt(1.0 / (n1 * t1 * (1 - t1)) + 1.0 / (n2 * t2 * (1 - t2)))


@pytest.mark.parametrize("n1, n2, psi", [(8, 11, 2.0), (12, 9, 0.4)])
def test_ordering_is_the_miettinen_nurminen_score_without_noise(n1, n2, psi):
    g = _raw_score(n1, n2, "odds-ratio", psi)
    expected = np.array([[mn_score(a, n1, b, n2, psi) for b in range(n2 + 1)] for a in range(n1 + 1)])
    assert np.allclose(g, expected, rtol=1e-10, atol=1e-12)


def test_at_odds_ratio_one_the_noisy_score_is_the_noisy_pooled_z():
    # the three effects agree at no effect: the formula with psi0 -> 1 is the pooled z with the noise variance
    n1, n2, v1, v2 = 14, 9, 1.7, 0.4
    num, var = _pooled(n1, n2, v1, v2)
    pooled = np.where(var > 0, num / np.sqrt(var), 0.0)
    near_one = _raw_score(n1, n2, "odds-ratio", 1.0 + 1e-9, v1, v2)
    assert np.allclose(near_one, pooled, atol=1e-6)
    assert np.array_equal(_raw_score(n1, n2, "odds-ratio", 1.0, v1, v2), _raw_score(n1, n2, "ratio", 1.0, v1, v2))


def unconditional_score_pvalue(x1, n1, x2, n2, psi, upper):
    """sup over the null curve of P(g(X) >= g(x)) (or <=), g the MN score: enumeration, dense grid + refinement."""
    g = np.array([[mn_score(a, n1, b, n2, psi) for b in range(n2 + 1)] for a in range(n1 + 1)])
    s = 1.0 if upper else -1.0
    region = s * g >= s * g[x1, x2] - 1e-9

    def tail(nu):
        t1 = psi * nu / (1.0 - nu + psi * nu)
        return float(stats.binom.pmf(np.arange(n1 + 1), n1, t1) @ region @ stats.binom.pmf(np.arange(n2 + 1), n2, nu))

    grid = np.linspace(0.0, 1.0, 2001)
    values = np.array([tail(nu) for nu in grid])
    i = int(np.argmax(values))
    res = optimize.minimize_scalar(lambda nu: -tail(nu), bounds=(grid[max(i - 1, 0)], grid[min(i + 1, 2000)]),
                                   method="bounded", options={"xatol": 1e-12})
    return max(values[i], -res.fun)


@pytest.mark.parametrize("x1, n1, x2, n2, psi", [(9, 12, 4, 10, 1.5), (3, 14, 8, 11, 0.8), (10, 10, 5, 12, 3.0)])
@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_non_private_limit_is_the_unconditional_score_test(x1, n1, x2, n2, psi, alternative):
    # epsilon = 50: D = 0 but for 4e-22 of the mass; releases at x_i -+ (1/2 - 1e-6) put the linear
    # statistic at the least extreme end of the observed cell, so every tie in g is in the tail
    e = 0.5 - 1e-6
    z1, z2 = (x1 - e, x2 + e) if alternative == "greater" else (x1 + e, x2 - e)
    p = binom2_ump_test([z1], n1, [z2], n2, epsilon=50.0, effect="odds-ratio", margin=psi,
                        alternative=alternative)[0]
    expected = unconditional_score_pvalue(x1, n1, x2, n2, psi, alternative == "greater")
    assert p == pytest.approx(expected, rel=1e-6, abs=1e-12)


GRID = [(0.1, 0.1), (0.5, 0.2), (0.9, 0.4), (0.3, 0.95), (0.02, 0.6), (0.97, 0.9), (0.6, 0.6)]


@pytest.mark.parametrize("theta1, theta2", GRID)
def test_coverage_is_at_least_the_level(theta1, theta2):
    # the two-sided interval misses the true odds ratio only when a one-sided test of it rejects (given
    # that it holds every accepted value: next test), so coverage >= 1 - P(reject), computed exactly
    arm1, arm2 = _arm(15, 1.0, 0.0, 1), _arm(12, 2.0, 0.0, 1)
    null = _null("odds-ratio", odds(theta1, theta2))
    miss = _exact_power(arm1, arm2, null, theta1, theta2, 0.05, "two-sided", "score")[0]
    assert 1.0 - miss >= 0.95 - 1e-12


@pytest.mark.parametrize("z1, z2", [(9.3, 4.1), pytest.param(2.2, 8.7, marks=pytest.mark.slow),
                                    pytest.param(14.6, 0.4, marks=pytest.mark.slow)])
def test_interval_holds_every_accepted_odds_ratio(z1, z2):
    # the interval is the hull of a scan of log(psi0): every odds ratio both one-sided tests
    # accept lies in it (checked on a grid off the scan's points)
    arm1, arm2 = _arm(15, 1.0, 0.0, 1), _arm(12, 2.0, 0.0, 1)
    ci = binom2_ump_ci(z1, 15, z2, 12, epsilon=(1.0, 2.0), effect="odds-ratio")
    for psi in np.geomspace(1.3e-3, 0.9e3, 27):
        null = _null("odds-ratio", psi)
        greater = _pvalues(arm1, arm2, null, _Observed(z1, z2), "greater")[0]
        less = _pvalues(arm1, arm2, null, _Observed(z1, z2), "less")[0]
        if greater > 0.025 and less > 0.025:
            assert ci.low <= psi <= ci.high


def test_interval_ends_cross_the_level_and_are_finite():
    z1, z2, n = 21.3, 9.9, 30
    ci = binom2_ump_ci(z1, n, z2, n, epsilon=1.0, effect="odds-ratio")
    assert 0.0 < ci.low < odds(z1 / n, z2 / n) < ci.high < math.inf

    def p(psi, alternative):
        return binom2_ump_test(z1, n, z2, n, epsilon=1.0, effect="odds-ratio", margin=psi,
                               alternative=alternative).pvalue

    # each end is rejected and the values just inside it are accepted; the ordering moves with
    # psi0, so the p-value may jump there (here the upper one, from 0.030 to 0.022)
    assert p(ci.low, "greater") <= 0.025 < p(ci.low * (1 + 1e-8), "greater")
    assert p(ci.high, "less") <= 0.025 < p(ci.high * (1 - 1e-8), "less")


def test_one_sided_intervals_and_the_test_agree():
    z1, z2, n = 17.6, 10.2, 25
    res = binom2_ump_test(z1, n, z2, n, epsilon=1.0, effect="odds-ratio", alternative="greater",
                          confidence_level=0.9)
    ci = binom2_ump_ci(z1, n, z2, n, epsilon=1.0, effect="odds-ratio", alternative="greater",
                       confidence_level=0.9)
    assert res.conf_int == ci and ci.high == math.inf
    assert (ci.low > 1.0) == (res.pvalue <= 0.1)


@pytest.mark.parametrize("z1, z2", [(33.25, 2.25), (-3.25, 25.25), (15.25, 15.25)])
def test_never_empty(z1, z2):
    ci = binom2_ump_ci(z1, 30, z2, 30, epsilon=1.0, effect="odds-ratio")
    assert 0.0 <= ci.low <= ci.high <= math.inf


def test_printing_names_the_odds_ratio():
    a, b = TulapReleaser(epsilon=1.0).release(21, 30, rng=1), TulapReleaser(epsilon=1.0).release(13, 30, rng=2)
    res = binom2_ump_test(a, b, effect="odds-ratio")
    text = str(res)
    assert "true odds ratio is not equal to 1" in text and "odds ratio \n" in text
    assert res.estimate_name == res.null_name == "odds ratio" and "score" in res.method
    p1, p2 = min(max(a.value / 30, 0), 1), min(max(b.value / 30, 0), 1)
    assert res.estimate == pytest.approx(odds(p1, p2))
    assert res.to_htest()["null.value"] == {"odds ratio": 1.0}
    via = prop_test(a, b, effect="odds-ratio")
    assert via.pvalue == res.pvalue and via.conf_int == res.conf_int


def test_the_difference_ordering_and_laplace_arms_are_refused_with_the_reason():
    with pytest.raises(ValueError, match="statistic='difference' cannot order an odds-ratio null"):
        binom2_ump_test(20.2, 40, 13.1, 40, epsilon=1.0, effect="odds-ratio", statistic="difference")
    with pytest.raises(ValueError, match="statistic='difference' cannot order"):
        binom2_ump_ci(20.2, 40, 13.1, 40, epsilon=1.0, effect="odds-ratio", statistic="difference")
    with pytest.raises(ValueError, match="statistic='difference' cannot order"):
        binom2_ump_power(0.5, 0.3, 20, 20, epsilon=1.0, effect="odds-ratio", statistic="difference")
    lap = LaplaceReleaser(1.0, 1.0)
    with pytest.raises(ValueError, match="exact for two Tulap releases"):
        binom2_ump_test(lap.count(20, 40, rng=1), lap.count(13, 40, rng=2), effect="odds-ratio")
    with pytest.raises(ValueError, match="exact for two Tulap releases"):
        binom2_ump_sample_size(0.6, 0.4, epsilon=1.0, effect="odds-ratio", mechanism="laplace")
    with pytest.raises(ValueError, match=r"\(n1 \+ 1\)\(n2 \+ 1\) at most"):
        binom2_ump_test(2000.5, 3000, 1000.5, 3000, epsilon=1.0, effect="odds-ratio")
    with pytest.raises(ValueError, match="`margin`.*odds ratio"):
        binom2_ump_test(20.2, 40, 13.1, 40, epsilon=1.0, effect="odds-ratio", margin=-1.0)
    # the other effects share the score as their default ordering (issue 41)
    assert "ordered by the score statistic" in binom2_ump_test(20.2, 40, 13.1, 40, epsilon=1.0, effect="ratio").method


def test_power_is_at_most_alpha_on_the_null_and_grows_off_it():
    theta2 = 0.3
    theta1 = 2.0 * theta2 / (1.0 - theta2 + 2.0 * theta2)  # odds ratio 2
    kw = dict(epsilon=1.0, effect="odds-ratio", margin=2.0, alternative="greater")
    size = binom2_ump_power(theta1, theta2, 20, 25, **kw)
    assert size <= 0.05 + 1e-12
    assert binom2_ump_power(0.8, theta2, 20, 25, **kw) > binom2_ump_power(0.7, theta2, 20, 25, **kw) > size


def test_sample_size_reaches_the_power():
    n1, n2 = binom2_ump_sample_size(0.8, 0.3, power=0.8, epsilon=2.0, effect="odds-ratio", margin=1.5,
                                    alternative="greater")
    kw = dict(epsilon=2.0, effect="odds-ratio", margin=1.5, alternative="greater")
    assert n1 == n2
    assert binom2_ump_power(0.8, 0.3, n1, n2, **kw) >= 0.8 > binom2_ump_power(0.8, 0.3, n1 - 1, n1 - 1, **kw)


def test_the_interval_reports_its_progress():
    calls = []
    ci = binom2_ump_ci(14.3, 20, 8.2, 20, epsilon=1.0, effect="odds-ratio",
                       progress=lambda done, total, message: calls.append((done, total)))
    assert 0.0 < ci.low < ci.high < math.inf
    assert calls[0][0] == 0 and calls[-1][0] == calls[-1][1] > 0
    assert all(a[0] <= b[0] for a, b in zip(calls, calls[1:]))
