"""A recorded epsilon is never below the level the release actually has (issue 26 W2).

Each releaser that computes an epsilon (rather than recording the one it was given) is checked
against an exact computation: the two-coin level at 60 digits (mpmath, from the ratio of the
channel's columns, a different form from the implementation's), the Tulap unit level and the
Laplace per-step level in exact rationals.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dpinfer import TwoCoinRRReleaser
from dpinfer.distributions._tulap_law import unit_privacy
from dpinfer.distributions._laplace_grid import per_step as _per_step


def _two_coin_exact(p1, p2):
    with mpmath.workdps(60):
        p1, p2 = mpmath.mpf(p1), mpmath.mpf(p2)
        yes = (1 - p1 + p1 * p2) / (p1 * p2)
        no = (1 - p1 * p2) / (p1 * (1 - p2))
        return mpmath.log(max(yes, no))


def _coin_pairs():
    rng = np.random.default_rng(26)
    pairs = [(0.050154053457470794, 0.02619708281795851), (0.5, 0.5), (0.5, 0.2), (0.999999, 0.3),
             (1e-300, 0.5), (0.3, 1e-300), (1 - 2**-53, 0.5)]
    pairs += [tuple(v) for v in rng.uniform(0.001, 0.999, size=(300, 2))]
    pairs += [tuple(v) for v in 10.0 ** rng.uniform(-12, 0, size=(100, 2)) * 0.999]
    return pairs


def test_two_coin_epsilon_is_rounded_up():
    for p1, p2 in _coin_pairs():
        got = TwoCoinRRReleaser(p1, p2).epsilon
        exact = _two_coin_exact(p1, p2)
        with mpmath.workdps(60):
            assert mpmath.mpf(got) >= exact, (p1, p2)  # never below the true level
            assert mpmath.mpf(math.nextafter(got, 0.0)) < exact, (p1, p2)  # the next double up


def test_two_coin_epsilon_example_of_the_issue():
    # exact: 6.58468999981268172...; the double below it was recorded before
    eps = TwoCoinRRReleaser(0.050154053457470794, 0.02619708281795851).epsilon
    assert eps == math.nextafter(6.5846899998126815, math.inf)


@pytest.mark.parametrize("epsilon", [1.0, 0.1, 1 / 3, 1e-12 * 7, 2.0 / 3.0, 29.9])
@pytest.mark.parametrize("k", [2, 3, 7])
def test_tulap_unit_epsilon_times_k_is_at_most_epsilon(epsilon, k):
    unit, _ = unit_privacy(epsilon, 0.0, k)
    assert k * Fraction(unit) <= Fraction(epsilon)
    assert k * Fraction(math.nextafter(unit, math.inf)) > Fraction(epsilon)


@pytest.mark.parametrize("epsilon", [1.0, 0.1, 1 / 3, 2.0 / 3.0, 29.9])
@pytest.mark.parametrize("steps", [2**24, 2**24 + 3, 1025])
def test_laplace_per_step_times_steps_is_at_most_epsilon(epsilon, steps):
    lam = _per_step(epsilon, steps)
    assert steps * Fraction(lam) <= Fraction(epsilon)
    assert steps * Fraction(math.nextafter(lam, math.inf)) > Fraction(epsilon)
