"""Power and sample size of the exact two-arm test (binom2_ump_power, binom2_ump_sample_size).

Expected values: seeded Monte Carlo of the whole analysis (releases, then binom2_ump_test)
within 4 standard errors; the size at null points is at most alpha; monotonicity and the
definition of the sample size (power at n reaches the target, at n - 1 it does not).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpinfer import TulapReleaser, binom2_ump_power, binom2_ump_sample_size, binom2_ump_test


def test_power_against_the_analysis_it_plans():
    # SE = sqrt(p (1 - p) / 150) <= 0.041; bound 4 SE
    rng = np.random.default_rng(5)
    n, th1, th2 = 25, 0.7, 0.35
    power = binom2_ump_power(th1, th2, n, n, epsilon=1.0, alternative="greater")
    rel = TulapReleaser(epsilon=1.0)
    z1 = rel.release(rng.binomial(n, th1, 150), n, rng=rng).value
    z2 = rel.release(rng.binomial(n, th2, 150), n, rng=rng).value
    p = binom2_ump_test(z1, n, z2, n, epsilon=1.0, alternative="greater")
    hits = np.mean(p <= 0.05)
    assert abs(hits - power) <= 4 * math.sqrt(power * (1 - power) / 150)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_size_at_null_points_is_at_most_alpha(alternative):
    theta = np.array([0.05, 0.3, 0.5, 0.8])
    size = binom2_ump_power(theta, theta, 30, 40, epsilon=(1.0, 0.5), alternative=alternative)
    assert size.max() <= 0.05 + 1e-12


def test_power_vectorised_and_monotone():
    out = binom2_ump_power(0.6, [0.6, 0.5, 0.4, 0.3], 50, 50, epsilon=1.0, alternative="greater")
    assert out.shape == (4,) and np.all(np.diff(out) > 0)
    by_n = binom2_ump_power(0.6, 0.4, np.array([20, 60, 150]), np.array([20, 60, 150]), epsilon=1.0)
    assert by_n.shape == (3,) and np.all(np.diff(by_n) > 0)


def test_non_inferiority_power_uses_the_margin():
    plain = binom2_ump_power(0.5, 0.5, 80, 80, epsilon=1.0, alternative="greater")
    ni = binom2_ump_power(0.5, 0.5, 80, 80, epsilon=1.0, margin=-0.15, alternative="greater")
    assert plain <= 0.05 + 1e-12 < ni


@pytest.mark.parametrize("ratio, alternative", [(1.0, "two-sided"), (2.0, "greater")])
def test_sample_size_is_the_smallest_reaching_the_power(ratio, alternative):
    n1, n2 = binom2_ump_sample_size(0.55, 0.3, power=0.8, ratio=ratio, epsilon=1.0, alternative=alternative)
    assert n2 == math.ceil(ratio * n1)
    at = binom2_ump_power(0.55, 0.3, n1, n2, epsilon=1.0, alternative=alternative)
    below = binom2_ump_power(0.55, 0.3, n1 - 1, math.ceil(ratio * (n1 - 1)), epsilon=1.0,
                             alternative=alternative)
    assert at >= 0.8 > below


@pytest.mark.parametrize("kwargs, match", [
    (dict(theta1=0.3, theta2=0.5, alternative="greater"), "alternative side"),
    (dict(theta1=0.4, theta2=0.4), "alternative side"),
    (dict(theta1=0.6, theta2=0.4, power=0.01), "`power` must exceed"),
    (dict(theta1=0.6, theta2=0.4, ratio=-1.0), "`ratio`"),
])
def test_sample_size_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        binom2_ump_sample_size(epsilon=1.0, **kwargs)


def test_power_errors():
    with pytest.raises(ValueError, match="`n1`"):
        binom2_ump_power(0.5, 0.4, 0, 10, epsilon=1.0)
    with pytest.raises(ValueError, match="`theta2`"):
        binom2_ump_power(0.5, 1.4, 10, 10, epsilon=1.0)
