"""Planted bugs the audit must catch: mislabelled channels, wrong claims, half noise, and the
old floating-point constructions at the bit level (event families in dpinfer/audit/_events.py
and _bits.py, chosen by _selection.py)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from dpinfer import Release, TulapReleaser, TwoCoinRRReleaser, audit_releaser

from _audit_cases import N


# -- planted bugs ----------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _MislabelledTwoCoin:
    """Two-coin RR with p1 = 0.01, p2 = 0.9 whose releases claim ln 3 (true: ln 991)."""

    p1: float = 0.01
    p2: float = 0.9

    def release(self, x, *, rng=None):
        rel = TwoCoinRRReleaser(self.p1, self.p2).release(x, rng=rng)
        return dataclasses.replace(rel, epsilon=math.log(3.0))


@dataclasses.dataclass(frozen=True)
class _HalfNoiseLaplace:
    """A grid Laplace releaser that adds half the noise it should: true level 2 epsilon.

    The value goes on the grid 2**-10 and gets discrete Laplace noise with ratio
    ``exp(-2 epsilon / (1024 sensitivity))`` per step (the difference of two
    geometric draws), all in integers, then one exact division by 1024: inputs
    a sensitivity apart differ by 1024 steps, so the level is exactly 2 epsilon
    and the output's bits do not depend on the input (only the noise level is wrong).
    """

    epsilon: float
    sensitivity: float = 1.0

    def release(self, value, *, rng=None):
        gen = np.random.default_rng(rng)
        steps = np.rint(np.asarray(value, dtype=float) * 1024).astype(np.int64)
        p = -math.expm1(-2.0 * self.epsilon / (1024 * self.sensitivity))
        noise = gen.geometric(p, size=steps.shape) - gen.geometric(p, size=steps.shape)
        return Release((steps + noise) / 1024.0, "laplace", self.epsilon, 0.0, self.sensitivity, None, "value")


@dataclasses.dataclass(frozen=True)
class _OldHardenedTulap:
    """The hardened Tulap path as main had it before issue 14: ``x + (k + u)`` in floating point.

    ``k`` is discrete Laplace, ``P(k)`` proportional to ``exp(-epsilon |k|)`` (the
    difference of two geometric draws); ``u = (2 j + 1 - 2**53) / 2**54`` with
    ``j`` uniform on ``{0, ..., 2**53 - 1}``, an odd multiple of 2**-54 in
    (-1/2, 1/2); ``k + u`` and then ``x + (k + u)`` are float additions, as in
    ``x + _secure_tulap(...)`` with ``discrete_laplace(...) + grid_uniform()``.
    The law and the arithmetic are those of main; only the random source is a
    seeded numpy Generator instead of the OS.  For ``x = 0, k = 0`` the output
    keeps its bit 2**-54, which any ``x >= 1`` rounds away.
    """

    epsilon: float

    def release(self, x, n, *, rng=None):
        gen = np.random.default_rng(rng)
        x = np.asarray(x)
        p = -math.expm1(-self.epsilon)
        k = gen.geometric(p, size=x.shape) - gen.geometric(p, size=x.shape)
        j = gen.integers(0, 2**53, size=x.shape, dtype=np.int64)
        u = (2 * j + 1 - 2**53).astype(float) / 2.0**54
        return Release(x + (k + u), "tulap", self.epsilon, 0.0, 1.0, n, "count")


@dataclasses.dataclass(frozen=True)
class _OldSeededTulap:
    """The seeded Tulap path of main before issue 14: ``x + (G1 - G2 + U - 1/2)`` in floating point.

    ``G = floor(E / epsilon)`` with ``E`` standard exponential (geometric with
    ratio ``exp(-epsilon)``), ``U`` numpy's uniform on [0, 1), in the order of
    operations of ``distributions.tulap._sample0`` (q = 0).
    """

    epsilon: float

    def release(self, x, n, *, rng=None):
        gen = np.random.default_rng(rng)
        x = np.asarray(x)
        noise = np.floor(gen.standard_exponential(x.shape) / self.epsilon)
        noise -= np.floor(gen.standard_exponential(x.shape) / self.epsilon)
        noise += gen.random(x.shape)
        noise -= 0.5
        return Release(x + noise, "tulap", self.epsilon, 0.0, 1.0, n, "count")


@dataclasses.dataclass(frozen=True)
class _OldSeededLaplace:
    """The seeded Laplace count of main before issue 14: ``x + rng.laplace(0, 1 / epsilon)``."""

    epsilon: float

    def release(self, x, n, *, rng=None):
        gen = np.random.default_rng(rng)
        x = np.asarray(x)
        noisy = x + gen.laplace(0.0, 1.0 / self.epsilon, size=x.shape)
        return Release(noisy, "laplace", self.epsilon, 0.0, 1.0, n, "count")


def test_mislabelled_two_coin_rr_is_caught():
    true_eps = math.log1p(0.99 / (0.01 * 0.1))  # ln 991 = 6.899
    assert TwoCoinRRReleaser(0.01, 0.9).epsilon == pytest.approx(true_eps, rel=1e-12)
    res = audit_releaser(_MislabelledTwoCoin(), 0, 1, n_samples=20_000, rng=7)
    assert res.epsilon == pytest.approx(math.log(3.0))
    assert res.violation and res.verdict == "violation"
    assert math.log(3.0) + 4.0 < res.epsilon_lower <= true_eps


def test_wrong_claim_given_to_the_audit_is_caught():
    res = audit_releaser(TwoCoinRRReleaser(0.01, 0.9), 0, 1, epsilon=math.log(3.0), n_samples=20_000, rng=7)
    assert res.violation and res.epsilon_lower > math.log(3.0)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_half_noise_laplace_is_caught(epsilon):
    res = audit_releaser(_HalfNoiseLaplace(epsilon), 0.0, 1.0, n_samples=N, rng=11)
    assert res.violation
    assert epsilon < res.epsilon_lower <= 2 * epsilon


PLANTED = [_OldHardenedTulap, _OldSeededTulap, _OldSeededLaplace]


@dataclasses.dataclass(frozen=True)
class _ExactGridTulap:
    """The control: Tulap noise computed exactly, ``(2**41 (x + k) + 2 j + 1 - 2**41) / 2**42``.

    ``k`` discrete Laplace with ratio ``exp(-epsilon)``, ``j`` uniform on
    ``{0, ..., 2**41 - 1}``: a uniform on the midpoints of the grid 2**-41, an
    int64 numerator below 2**53 and one exact division, so every output is an
    odd multiple of 2**-42 whatever ``x`` is, and the law is epsilon-DP (the
    integer part is discrete Laplace, the fractional part independent of x).
    """

    epsilon: float

    def release(self, x, n, *, rng=None):
        gen = np.random.default_rng(rng)
        x = np.asarray(x, dtype=np.int64)
        p = -math.expm1(-self.epsilon)
        k = gen.geometric(p, size=x.shape) - gen.geometric(p, size=x.shape)
        j = gen.integers(0, 2**41, size=x.shape, dtype=np.int64)
        value = ((x + k) * 2**41 + 2 * j + 1 - 2**41).astype(float) / 2.0**42
        return Release(value, "tulap", self.epsilon, 0.0, 1.0, n, "count")


@pytest.mark.parametrize("x", [0, 5])
def test_a_bit_exact_construction_passes_the_bit_level_audit(x):
    """No false alarm from the bit-level events: the same law computed exactly passes."""
    res = audit_releaser(_ExactGridTulap(1.0), x, x + 1, args=(30,), n_samples=N, rng=7)
    assert not res.violation and res.epsilon_lower <= 1.0
    assert res.epsilon_lower >= 0.8  # and the value events still see the loss that is there


@pytest.mark.parametrize("planted", PLANTED, ids=lambda c: c.__name__)
@pytest.mark.parametrize("epsilon", [1.0, 0.1])
def test_old_float_constructions_are_caught_at_zero(planted, epsilon):
    """x = 0 vs 1: the old constructions leak through their low-order bits.

    At x = 0 and k = 0 the old hardened path outputs u itself, an odd multiple of
    2**-54 in (-1/2, 1/2), which x = 1 never does (bit 2**-54 is rounded away).
    The float paths' outputs near 0 keep bits far below 2**-53 when x = 0 and
    not when x = 1.  The value events alone see only epsilon; the bit-level
    events give bounds of 4 to 7 here (40 000 releases per input, seeded).
    """
    res = audit_releaser(planted(epsilon), 0, 1, args=(30,), n_samples=N, rng=7)
    assert res.violation and res.epsilon == epsilon
    assert res.epsilon_lower > epsilon + 3.0
    assert "bit" in res.event or "grid" in res.event


@pytest.mark.parametrize("planted", PLANTED, ids=lambda c: c.__name__)
def test_old_float_constructions_are_caught_away_from_zero(planted):
    """x = 5 vs 6 at epsilon = 1: fewer releases are marked, still flagged (bounds 2.5 to 3.7)."""
    res = audit_releaser(planted(1.0), 5, 6, args=(30,), n_samples=N, rng=7)
    assert res.violation and res.epsilon_lower > 2.0


def test_old_hardened_tulap_mark_is_the_one_the_issue_describes():
    """The mark of issue 14, counted directly: |z| < 1/2 and z * 2**54 odd.

    Under x = 0 it needs k = 0, probability (1 - b) / (1 + b) = tanh(1/2) = 0.4621
    at epsilon = 1 (b = e^-1), and u keeps its bit 2**-54; under x = 1 it is
    impossible.  20 000 releases: SE = sqrt(0.4621 * 0.5379 / 20 000) = 0.0035.
    """
    rel = _OldHardenedTulap(1.0)

    def marked(z):
        return (np.abs(z) < 0.5) & (np.mod(z * 2.0**54, 2.0) == 1.0)

    zero = rel.release(np.zeros(20_000, dtype=np.int64), 30, rng=1).value
    one = rel.release(np.ones(20_000, dtype=np.int64), 30, rng=2).value
    assert abs(marked(zero).mean() - math.tanh(0.5)) < 4 * 0.0035
    assert not marked(one).any()


def test_delta_is_spent_in_the_bound():
    """The same samples with a larger claimed delta give a smaller (or zero) bound."""
    kwargs = dict(n_samples=N, rng=3)
    plain = audit_releaser(TulapReleaser(1.0), 0, 1, args=(30,), **kwargs)
    slack = audit_releaser(TulapReleaser(1.0), 0, 1, args=(30,), delta=0.2, **kwargs)
    assert slack.delta == 0.2
    assert slack.epsilon_lower < plain.epsilon_lower
