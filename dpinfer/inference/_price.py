"""The non-private yardsticks of the planning functions: the price of privacy.

Two comparators stand beside every private power and sample size (``binom_ump_*``,
``binom2_ump_*``):

* *the same exact test without the privacy noise*: the planning kernels run at
  :data:`NONPRIVATE_EPSILON`, where ``b = exp(-epsilon)`` is 0.0 in doubles, so the Tulap noise
  is its uniform part exactly (``N = U``, uniform on the release cell) and the test is the
  randomized exact test on the counts (one arm: the UMP randomized binomial test; two arms:
  the exact unconditional test of the same ordering, ties and neighbours of the ordering
  split by the uniforms).  It is the limit epsilon -> infinity of the private test, so
  private minus non-private is what the noise costs, and its power grows with ``n`` without
  the saw-tooth of a non-randomized exact test (whose smallest ``n`` moves up and down with
  the lattice: 0.35 against 0.20 reaches 80% at n = 163 per arm randomized, but the
  non-randomized difference test is still below 80% from 160 to 166);
* *the normal approximation without noise*: for two arms R's ``stats::power.prop.test``
  (``strict = FALSE``), whose power is

      Phi((sqrt(n) |p1 - p2| - z_a sqrt((p1 + p2)(1 - (p1 + p2)/2))) / sqrt(p1 q1 + p2 q2)),

  solved for ``n`` in closed form (R solves it with ``uniroot``, to about 1e-4), and for
  unequal arms ``n2 = k n1`` the same test with the pooled variance
  ``pbar (1 - pbar)(1 + 1/k)``, ``pbar = (p1 + k p2)/(1 + k)``, under the null and
  ``p1 q1 + p2 q2 / k`` under the alternative (Fleiss, Levin & Paik 2003, ch. 4); for one
  sample the same construction (the general form of Lachin 1981,
  ``sqrt(n) |delta| = z_a sigma_0 + z_b sigma_1``) with ``sigma_0^2 = p0 q0``,
  ``sigma_1^2 = theta1 (1 - theta1)``.  ``z_a`` is ``Phi^-1(1 - alpha/2)`` two-sided (the
  far tail ignored, as ``strict = FALSE``), ``Phi^-1(1 - alpha)`` one-sided.

References: Lachin, J. M. (1981). Introduction to sample size determination and power
analysis for clinical trials. Controlled Clinical Trials 2, 93-113.  Fleiss, J. L., Levin, B.
and Paik, M. C. (2003). Statistical Methods for Rates and Proportions, 3rd ed., Wiley.
R Core Team, ``stats::power.prop.test``.
"""

from __future__ import annotations

import math
from statistics import NormalDist  # not scipy: the command's first DP-UMP answer loads no scipy

__all__ = ["NONPRIVATE_EPSILON", "normal_n", "normal_power", "same_test_label", "NORMAL_TWO", "NORMAL_ONE"]

#: an epsilon at which exp(-epsilon) is 0.0: the Tulap law is its uniform part exactly
NONPRIVATE_EPSILON = 1e9

#: the printed names of the comparators
NORMAL_TWO = "normal approximation (power.prop.test)"
NORMAL_ONE = "normal approximation (Lachin 1981)"
_NORMAL = NormalDist()


def same_test_label(one_arm):
    """How the print names the same exact test without noise."""
    kind = "randomized binomial test" if one_arm else "randomized exact test"
    return f"the same test without noise ({kind}, epsilon = Inf)"


def _z_alpha(alpha, alternative):
    return -_NORMAL.inv_cdf(alpha / 2.0 if alternative == "two-sided" else alpha)


def _sds(theta1, theta2, k):
    """Null and alternative standard deviations of ``sqrt(n1) (p1_hat - p2_hat)``, ``n2 = k n1``;
    ``theta2`` None: one sample against ``p0 = k``."""
    if theta2 is None:
        p0 = k
        return math.sqrt(p0 * (1.0 - p0)), math.sqrt(theta1 * (1.0 - theta1))
    pbar = (theta1 + k * theta2) / (1.0 + k)
    return (math.sqrt(pbar * (1.0 - pbar) * (1.0 + 1.0 / k)),
            math.sqrt(theta1 * (1.0 - theta1) + theta2 * (1.0 - theta2) / k))


def normal_n(theta1, theta2, ratio, alpha, power, alternative):
    """The normal approximation's (real) ``n1`` reaching ``power``; ``theta2`` None: one sample
    (``ratio`` is then ``p0``).  None when the effect is 0."""
    ref = ratio if theta2 is None else theta2
    gap = abs(theta1 - ref)
    if gap == 0.0:
        return None
    sd0, sd1 = _sds(theta1, theta2, ratio)
    return ((_z_alpha(alpha, alternative) * sd0 + _NORMAL.inv_cdf(power) * sd1) / gap) ** 2


def normal_power(theta1, theta2, n1, n2, alpha, alternative):
    """The normal approximation's power at ``n1`` (``n2``); ``theta2`` None: one sample, ``n2``
    is then ``p0``.  One-sided: in the alternative's direction; two-sided: ``|difference|``."""
    if theta2 is None:
        gap, k = theta1 - n2, n2
    else:
        gap, k = theta1 - theta2, n2 / n1
    gap = {"greater": gap, "less": -gap, "two-sided": abs(gap)}[alternative]
    sd0, sd1 = _sds(theta1, theta2, k)
    shift = math.sqrt(n1) * gap - _z_alpha(alpha, alternative) * sd0
    if sd1 == 0.0:
        return 1.0 if shift > 0.0 else 0.0
    return _NORMAL.cdf(shift / sd1)
