"""Intervals for the risk difference and ratio (two_arm._interval and binom2_ump_ci).

Coverage is computed exactly: the two-sided interval misses the true effect only when one of
the two one-sided tests at it rejects, so its coverage at (theta1, theta2) is at least one minus
the exact rejection probability of the two-sided test of the true effect there (two_arm._power;
for the difference the two are equal).  Duality: at an end, the one-sided p-value crosses the level.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpinfer import binom2_ump_ci, binom2_ump_test
from dpinfer.inference.two_arm._law import _arm
from dpinfer.inference.two_arm._supremum import _null, _power

ARM = _arm(15, 1.0, 0.0, 1)


@pytest.mark.parametrize("theta1, theta2", [(0.1, 0.1), (0.5, 0.2), (0.9, 0.4), (0.3, 0.95), (0.02, 0.6)])
def test_difference_coverage_is_exact_and_at_least_the_level(theta1, theta2):
    miss = _power(ARM, ARM, _null("difference", theta1 - theta2), theta1, theta2, 0.05, "two-sided")[0]
    assert 1.0 - miss >= 0.95 - 1e-12


@pytest.mark.parametrize("theta1, theta2", [(0.2, 0.4), (0.6, 0.3)])
def test_ratio_coverage_is_at_least_the_level(theta1, theta2):
    miss = _power(ARM, ARM, _null("ratio", theta1 / theta2), theta1, theta2, 0.05, "two-sided")[0]
    assert 1.0 - miss >= 0.95 - 1e-12


def test_ends_are_where_the_one_sided_pvalues_cross():
    z1, z2, n = 41.3, 27.9, 60
    ci = binom2_ump_ci(z1, n, z2, n, epsilon=1.0)
    at_low = binom2_ump_test(z1, n, z2, n, epsilon=1.0, margin=ci.low, alternative="greater").pvalue
    at_high = binom2_ump_test(z1, n, z2, n, epsilon=1.0, margin=ci.high, alternative="less").pvalue
    assert at_low == pytest.approx(0.025, abs=1e-8) and at_low <= 0.025
    assert at_high == pytest.approx(0.025, abs=1e-8) and at_high <= 0.025


def test_one_sided_intervals_and_the_test_agree():
    ci = binom2_ump_ci(20.4, 30, 12.2, 30, epsilon=1.0, alternative="greater", confidence_level=0.9)
    assert ci.high == 1.0
    res = binom2_ump_test(20.4, 30, 12.2, 30, epsilon=1.0, alternative="greater", confidence_level=0.9)
    assert res.conf_int == ci
    # 0 outside the lower bound <=> the level-0.1 test rejects
    assert (ci.low > 0) == (res.pvalue <= 0.1)


@pytest.mark.parametrize("z1, z2", [(-40.3, 75.2), (80.4, -35.1), (15.3, 15.3)])
def test_never_empty_even_far_outside(z1, z2):
    ci = binom2_ump_ci(z1, 30, z2, 30, epsilon=1.0)
    assert -1.0 <= ci.low <= ci.high <= 1.0


def test_ratio_interval_contains_the_estimate_and_inverts_the_test():
    z1, z2, n = 24.6, 12.3, 50
    ci = binom2_ump_ci(z1, n, z2, n, epsilon=2.0, effect="ratio")
    assert ci.low < (z1 / n) / (z2 / n) < ci.high
    p = binom2_ump_test(z1, n, z2, n, epsilon=2.0, effect="ratio", margin=ci.low,
                        alternative="greater").pvalue
    assert p == pytest.approx(0.025, abs=1e-8)
    assert math.isfinite(ci.high)
    assert np.isclose(binom2_ump_ci(z1, n, z2, n, epsilon=2.0, effect="ratio",
                                    alternative="less").low, 0.0)
