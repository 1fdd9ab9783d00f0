"""The exact law of two Tulap releases and the tail of a linear statistic (two_arm._law).

Expected values: a direct computation written here (sum over the counts, the noise
difference integrated numerically with scipy.integrate.quad against dpinfer.Tulap's cdf and
pdf, the public noise law); seeded Monte Carlo with real releases (4 standard errors).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import integrate, stats

from dpinfer import Tulap, TulapReleaser
from dpinfer.inference.two_arm._law import (_arm, _binomial_rows, _layout, _pmfs, _statistic_tail, _TailPlan,
                                            _uniform_sum_tail)


@pytest.mark.parametrize("epsilon, delta, k", [(1.0, 0.0, 1), (0.5, 0.0, 1), (1.0, 1e-3, 1),
                                               (3.0, 0.05, 1), (2.0, 0.0, 2), (2.0, 1e-4, 3),
                                               (50.0, 0.0, 1), (0.3, 0.2, 1)])
def test_components_carry_all_the_mass(epsilon, delta, k):
    arm = _arm(20, epsilon, delta, k)
    pmfs = _pmfs(arm, np.array([0.0, 0.3, 1.0]))
    assert len(pmfs) == len(_layout(arm))
    total = sum(p.sum(axis=1) for p in pmfs)
    np.testing.assert_allclose(total, 1.0, rtol=0, atol=1e-14)
    assert all((p >= 0).all() for p in pmfs)


def test_uniform_sum_tail_closed_form():
    # A ~ U(0, 1), B ~ U(0, 2): P(A + B >= s) by direct integration
    for s in [-1.0, 0.0, 0.5, 1.0, 1.5, 2.0, 2.7, 3.0, 4.0]:
        direct = integrate.quad(lambda a: np.clip((2.0 - (s - a)) / 2.0, 0.0, 1.0), 0.0, 1.0,
                                points=[max(0.0, min(1.0, s - 2.0)), max(0.0, min(1.0, s))])[0]
        assert _uniform_sum_tail(np.array(s), 0.0, 1.0, 0.0, 2.0) == pytest.approx(direct, abs=1e-13)


def _direct_tail(arm1, arm2, theta1, theta2, c, t):
    """sum_{x1, x2} B1 B2 P(N1/n1 - c N2/n2 >= t - x1/n1 + c x2/n2), the noise term by quad."""
    laws = [Tulap(b=math.exp(a.log_b), q=1.0 - a.one_minus_q) for a in (arm1, arm2)]
    n1, n2 = arm1.n, arm2.n
    reach = 40.0 / -arm2.log_b

    def noise_tail(s):
        # P(N1 >= n1 (s + c v / n2)) against the density of N2 = v
        edges = np.arange(-math.ceil(reach) - 0.5, math.ceil(reach) + 1.0)
        kinks = (np.arange(math.floor(n1 * s - n1 * c * reach / n2) - 1,
                           math.ceil(n1 * s + n1 * c * reach / n2) + 2) + 0.5 - n1 * s) * n2 / (n1 * c)
        ends = []
        for a in (arm1, arm2):
            if a.cut is not None:
                ends += [a.cut, -a.cut] if a is arm2 else [(e - n1 * s) * n2 / (n1 * c) for e in (a.cut, -a.cut)]
        pts = np.unique(np.concatenate([edges, kinks[(kinks > -reach) & (kinks < reach)], ends]))
        pts = pts[(pts >= -reach) & (pts <= reach)]
        return sum(integrate.quad(lambda v: laws[1].pdf(v) * laws[0].ccdf(n1 * (s + c * v / n2)),
                                  a, b, epsabs=1e-15, epsrel=1e-13)[0] for a, b in zip(pts[:-1], pts[1:]))

    b1 = stats.binom.pmf(np.arange(n1 + 1), n1, theta1)
    b2 = stats.binom.pmf(np.arange(n2 + 1), n2, theta2)
    return sum(b1[x1] * b2[x2] * noise_tail(t - x1 / n1 + c * x2 / n2)
               for x1 in range(n1 + 1) for x2 in range(n2 + 1))


@pytest.mark.parametrize("delta, c", [(0.0, 1.0), (0.0, 0.6), (0.05, 1.3)])
def test_tail_against_direct_summation_and_quadrature(delta, c):
    arm1, arm2 = _arm(2, 3.0, delta, 1), _arm(2, 4.0, delta, 1)
    for t in (0.15,):
        ours = _statistic_tail(arm1, arm2, 0.4, 0.7, c, t)[0]
        assert ours == pytest.approx(_direct_tail(arm1, arm2, 0.4, 0.7, c, t), rel=1e-8)


@pytest.mark.parametrize("epsilon, delta, k", [(1.0, 0.0, 1), (1.0, 1e-3, 1), (2.0, 0.0, 2)])
def test_tail_against_real_releases(epsilon, delta, k):
    # Monte Carlo with the releaser itself: |p_hat - p| <= 4 SE, SE = sqrt(p (1 - p) / N)
    rng = np.random.default_rng(11)
    n1, n2, th1, th2, c, t = 25, 35, 0.45, 0.3, 1.0, 0.1
    rel = TulapReleaser(epsilon, delta, sensitivity=k)
    size = 40_000
    z1 = rel.release(rng.binomial(n1, th1, size), n1, rng=rng).value
    z2 = rel.release(rng.binomial(n2, th2, size), n2, rng=rng).value
    hits = np.mean(z1 / n1 - c * z2 / n2 >= t)
    p = _statistic_tail(_arm(n1, epsilon, delta, k), _arm(n2, epsilon, delta, k), th1, th2, c, t)[0]
    assert abs(hits - p) <= 4 * math.sqrt(p * (1 - p) / size)


def test_upper_and_lower_tails_add_to_one():
    arm1, arm2 = _arm(40, 0.7, 1e-5, 1), _arm(30, 1.5, 0.0, 1)
    th1, th2 = np.array([0.1, 0.5, 0.95]), np.array([0.3, 0.5, 0.05])
    for t in (-0.7, 0.0, 0.33):
        up = _statistic_tail(arm1, arm2, th1, th2, 1.7, t, True)
        low = _statistic_tail(arm1, arm2, th1, th2, 1.7, t, False)
        np.testing.assert_allclose(up + low, 1.0, atol=1e-14)


@pytest.mark.parametrize("n1, n2, c, eps1, eps2, delta", [
    (60, 60, 1.0, 1.0, 0.5, 0.0), (10, 40, 4.0, 1.0, 2.0, 0.0), (40, 10, 0.25, 2.0, 1.0, 1e-6),
    (20, 20, 1.0, 3.0, 3.0, 1e-3), (1, 1, 1.0, 1.0, 1.0, 0.0)])
@pytest.mark.parametrize("upper", [True, False])
def test_shift_invariant_lattice_equals_the_full_one(n1, n2, c, eps1, eps2, delta, upper):
    # with a2 = -a1 the conditional tails depend on x1 - x2 alone and the lattice is built
    # from a few columns; the full build (every pair of counts) is the exact alternative
    arm1, arm2 = _arm(n1, eps1, delta, 1), _arm(n2, eps2, delta, 1)
    for t in (-0.3, 0.0, 0.013, 0.2, 0.7):
        plan = _TailPlan(arm1, arm2, 1.0 / n1, -c / n2, t, upper)
        assert plan.shift_invariant
        fast = plan._build_lattice()
        plan.shift_invariant = False
        full = plan._build_lattice()
        np.testing.assert_allclose(fast, full, rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("n", [0, 1, 2, 17, 100, 300])
def test_binomial_rows_against_mpmath(n):
    # the closed form of the lattice's rows keeps ~1e-14 relative where the mass is (30 digits
    # of mpmath as the truth: scipy's own binom.pmf is off by 1.5e-13 at n = 100, theta = 1/12.8)
    rng = np.random.default_rng(n)
    theta = np.concatenate([[0.0, 1.0, 0.5, 1e-300, 1e-12, 1.0 - 1e-16, 0.078125], rng.random(6),
                            rng.random(3) ** 30, 1.0 - rng.random(3) ** 30])
    ours = _binomial_rows(n, theta)
    with mpmath.workdps(30):
        exact = np.array([[float(mpmath.binomial(n, x) * mpmath.mpf(t) ** x * (1 - mpmath.mpf(t)) ** (n - x))
                           for x in range(n + 1)] for t in theta])
    big, kept = exact > 1e-6, exact > 1e-280
    assert np.all(np.abs(ours[big] / exact[big] - 1.0) < 5e-14)
    assert np.all(np.abs(ours[kept] / exact[kept] - 1.0) < 3e-13)
    assert np.all(ours[~kept] < 1e-279)
