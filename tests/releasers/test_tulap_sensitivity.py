"""TulapReleaser(sensitivity=k): the guarantee for counts up to k apart, computed exactly.

The released law is the Tulap law of ``epsilon_1 = epsilon / k`` (and ``delta_1``, see
the releaser's Notes) on the release grid.  Neighbouring counts differ by any
``j`` in ``1 .. k``; every check below runs over all of them.
"""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats

from dpinfer import PrivacyBudget, Release, Tulap, TulapReleaser
from dpinfer.distributions._tulap_grid import _tulap_grid, _unit_privacy

KS = [2, 3, 5, 10]
EPSILONS = [0.05, 0.5, 1.0, 3.0, 10.0]


def _closed_form_pdf(t, epsilon_1):
    """(1 - b)/(1 + b) b**|[t]|, b = exp(-epsilon_1) (Awan & Slavkovic 2018), written out here."""
    b = np.exp(-epsilon_1)
    return (1 - b) / (1 + b) * np.exp(-epsilon_1 * np.abs(np.rint(t)))


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_pure_dp_density_ratio_for_every_shift_up_to_k(k, epsilon):
    """delta = 0: f_x(z) / f_{x+j}(z) <= e^epsilon for j = 1..k, attained at j = k (tight).

    The densities are the releaser's own noise law (``rel.noise.pdf``), checked against
    the closed form with b = exp(-epsilon / k).  Grid: 100,001 points over
    [-40 k, 40 k] plus both sides of every jump.  Tolerance 1e-12 relative (the log
    densities carry |[t]| epsilon_1 of rounding, below 1e-13 here).
    """
    rel = TulapReleaser(epsilon, sensitivity=k)
    law = rel.noise
    jumps = np.arange(-40 * k, 40 * k + 1) + 0.5
    # (the jump points themselves are left out: there the density is either side's value)
    z = np.concatenate([np.linspace(-40 * k, 40 * k, 100_001) + 1e-7, jumps - 1e-9, jumps + 1e-9])
    f0 = law.pdf(z)
    np.testing.assert_allclose(f0, _closed_form_pdf(z, epsilon / k), rtol=1e-12)
    bound = math.exp(epsilon) * (1 + 1e-12)
    for j in range(1, k + 1):
        fj = law.pdf(z - j)
        assert np.all(f0 <= bound * fj) and np.all(fj <= bound * f0)
    assert np.max(f0 / law.pdf(z - k)) == pytest.approx(math.exp(epsilon), rel=1e-12)


def _spent_delta(n, epsilon, delta, k, j):
    """sup_S P(x + N in S) - e^epsilon P(x + j + N in S) for the released grid law, in mpmath.

    The grid law is the continuous truncated law rounded to cell midpoints, and both
    neighbours' densities are constant on the cells, so the divergence is the
    continuous one.  Where both densities are positive their ratio is
    ``b1**(|[t - j]| - |[t]|) <= b1**-j = e^(j epsilon_1) <= e^epsilon``; the divergence
    is therefore the mass of ``[-c, min(j - c, c))``, where ``x + j + N`` has none.
    ``epsilon_1`` and the support end ``c`` are the releaser's (public numbers).
    """
    epsilon_1, delta_1 = _unit_privacy(epsilon, delta, k)
    grid = _tulap_grid(n, epsilon_1, delta_1)
    assert grid.cut is not None
    with mpmath.workdps(60):
        b = mpmath.exp(-mpmath.mpf(epsilon_1))
        assert k * mpmath.mpf(epsilon_1) <= mpmath.mpf(epsilon)
        c = mpmath.mpf(grid.cut) / mpmath.mpf(2) ** grid.bits

        def f0(t):  # untruncated cdf (Awan & Slavkovic 2018, Def. 2.3)
            s = -abs(t)
            m = mpmath.nint(s)
            low = b ** (-m) / (1 + b) * (b + (s - m + mpmath.mpf(1) / 2) * (1 - b))
            return low if t <= 0 else 1 - low

        kept = 1 - 2 * f0(-c)
        return (f0(min(j - c, c)) - f0(-c)) / kept


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize("epsilon", [1e-3, 0.1, 1.0, 5.0, 30.0])
@pytest.mark.parametrize("delta", [1e-9, 1e-6, 0.01, 0.5])
def test_spent_delta_for_every_shift_up_to_k_is_at_most_declared(k, epsilon, delta):
    """(epsilon, delta)-DP exactly, and the group-privacy calibration wastes (almost) nothing:
    the spent delta at shift k is within 1e-5 of the declared delta (measured: at most
    2e-6 below it, at epsilon = 30, delta = 1e-6, k = 2)."""
    spent = [_spent_delta(30, epsilon, delta, k, j) for j in range(1, k + 1)]
    assert all(s <= delta for s in spent)
    assert spent == sorted(spent)  # the widest shift is the worst
    assert spent[-1] >= delta * (1 - 1e-5)


def test_spent_delta_check_has_teeth():
    """The unit law of k = 1 used for counts 2 apart spends about (1 + e) delta > delta."""
    epsilon, delta = 1.0, 0.01
    grid = _tulap_grid(30, epsilon, delta)
    with mpmath.workdps(40):
        b = mpmath.exp(-1)
        c = mpmath.mpf(grid.cut) / mpmath.mpf(2) ** grid.bits
        tail = lambda t: b ** mpmath.nint(t) / (1 + b) * (b + (mpmath.nint(t) - t + 0.5) * (1 - b))  # noqa: E731
        # mass of [-c, 2 - c) = P(N >= c - 2) - P(N >= c), over the kept mass (1 - q)
        band = (tail(c - 2) - tail(c)) / (1 - 2 * tail(c))
    # at shift 2 the untruncated density ratio also reaches e^(2 eps); even counting only
    # the band, the spent delta is far above delta
    assert band > 2.5 * delta


@pytest.mark.parametrize(("k", "epsilon", "delta"), [(2, 1.0, 0.0), (3, 0.5, 0.01), (5, 3.0, 0.2)])
def test_release_has_the_tulap_law_of_epsilon_over_k(k, epsilon, delta):
    """value - x ~ Tulap(0, exp(-epsilon / k), q_1) on its grid: KS at level 1e-6, 50,000 draws.

    The reference law is built here from ``epsilon / k`` and Awan & Slavkovic's
    ``q = 2 delta_1 b / (1 - b + 2 delta_1 b)`` with ``delta_1 = delta / sum_{j<k} e^(j eps/k)``
    (the grid cell of 2**-40 moves the cdf by less than 1e-12, invisible to KS).
    """
    n = 30
    x = np.tile(np.arange(n + 1), 1613)[:50_000]
    rel = TulapReleaser(epsilon, delta, sensitivity=k).release(x, n, rng=2027)
    b = math.exp(-epsilon / k)
    delta_1 = delta / sum(math.exp(j * epsilon / k) for j in range(k))
    q = 2 * delta_1 * b / (1 - b + 2 * delta_1 * b)
    assert stats.kstest(rel.value - x, Tulap(0.0, b, q).cdf).pvalue > 1e-6


def test_grid_is_the_unit_laws_and_outputs_are_exact():
    """C scales with k (C = ceil(764 k / epsilon) + 1), every output is an odd multiple of h/2."""
    k, epsilon, n = 3, 1.0, 30
    grid = _tulap_grid(n, *_unit_privacy(epsilon, 0.0, k))
    assert Fraction(grid.epsilon) * k <= Fraction(epsilon)
    assert grid.epsilon == pytest.approx(epsilon / k, rel=1e-15)
    bound = math.ceil(764.0 / grid.epsilon) + 1  # 2294 = ceil(764 / 0.33333333333333331) + 1
    assert grid.low == -(2 * bound + 1) * 2**grid.bits + 1
    z = TulapReleaser(epsilon, sensitivity=k).release(np.arange(n + 1).repeat(50), n, rng=4).value
    units = z * 2.0 ** (grid.bits + 1)
    assert np.all(units == np.rint(units)) and np.all(np.rint(units) % 2 == 1)


def test_release_record_and_budget_charge_epsilon():
    budget = PrivacyBudget(2.0, 0.02)
    rel = TulapReleaser(1.0, 0.01, sensitivity=4).release(11, 30, rng=3, budget=budget)
    assert isinstance(rel, Release)
    assert (rel.epsilon, rel.delta, rel.sensitivity) == (1.0, 0.01, 4.0)
    assert budget.spent_epsilon == 1.0 and budget.spent_delta == 0.01  # eps, not eps / k
    assert rel.to_dict()["sensitivity"] == 4.0
    assert "sensitivity: 4" in str(rel)
    assert "sensitivity=4" in repr(TulapReleaser(1.0, sensitivity=4))
    # the default is the sensitivity-1 law, unchanged
    a = TulapReleaser(1.0).release(11, 30, rng=3)
    b = TulapReleaser(1.0, sensitivity=1).release(11, 30, rng=3)
    assert a.value == b.value and a.sensitivity == 1.0


@pytest.mark.parametrize(("bad", "error", "match"), [
    (0, ValueError, "`sensitivity` must be an integer >= 1; got 0"),
    (1.5, ValueError, "`sensitivity` must be a whole number; got 1.5"),
    ("2", TypeError, "`sensitivity` must be an integer"),
    (True, TypeError, "`sensitivity` must be an integer"),
])
def test_bad_sensitivity_is_refused(bad, error, match):
    with pytest.raises(error, match=match):
        TulapReleaser(1.0, sensitivity=bad)


def test_tiny_epsilon_per_unit_is_refused_from_public_numbers():
    with pytest.raises(ValueError, match="at least 1e-12"):
        TulapReleaser(1e-9, sensitivity=10**4).release(3, 10)
