"""The hardened (secure=True) path of the local-DP releasers: law, recorded level, warnings.

The OS source cannot be seeded, so every test here replaces it with a seeded
``random.Random`` (same interface; the exact samplers run unchanged), as
tests/test_audit.py does: the 4-SE checks below are then deterministic instead of
failing about once in 16 000 runs each.  tests/test_secure.py draws from the real
OS source.
"""

import itertools
import random
import secrets
import warnings

import numpy as np
import pytest

from dpinfer import (
    KRRReleaser,
    LDPHistogramReleaser,
    LocalLaplaceReleaser,
    PrivacyWarning,
    RandomizedResponseReleaser,
    TwoCoinRRReleaser,
    UnaryEncodingReleaser,
)
from dpinfer._secure import _rational_below

EPS = 1.3


@pytest.fixture(autouse=True)
def _seeded_os_source(monkeypatch):
    seeds = itertools.count(1729)
    monkeypatch.setattr(secrets, "SystemRandom", lambda: random.Random(next(seeds)))


def _within_4se(rate, p, n):
    return abs(rate - p) <= 4 * np.sqrt(p * (1 - p) / n)


def test_secure_rr_law_and_recorded_level():
    n = 20_000
    rel = RandomizedResponseReleaser(EPS).release(np.ones(n, dtype=int), secure=True)
    eps_used = float(_rational_below(EPS))
    assert rel.secure and rel.epsilon == eps_used
    assert eps_used <= EPS and (EPS - eps_used) / EPS < 2.0**-19
    # P(report 1 | answer 1) = e^eps' / (1 + e^eps'); SE ~ 0.003; budget 4 SE
    assert _within_4se(rel.value.mean(), np.exp(eps_used) / (1 + np.exp(eps_used)), n)


def test_secure_unary_law():
    n, d = 5000, 3
    rel = UnaryEncodingReleaser(EPS, d).release(np.zeros(n, dtype=int), secure=True)
    eps_used = float(_rational_below(EPS))
    assert rel.secure and rel.epsilon == eps_used and rel.value.shape == (n, d)
    keep = np.exp(eps_used / 2) / (1 + np.exp(eps_used / 2))
    rates = rel.value.mean(axis=0)
    assert _within_4se(rates[0], keep, n)
    assert _within_4se(rates[1], 1 - keep, n) and _within_4se(rates[2], 1 - keep, n)


def test_secure_krr_law():
    n, k = 20_000, 4
    rel = KRRReleaser(EPS, k).release(np.full(n, 2), secure=True)
    eps_used = float(_rational_below(EPS))
    assert rel.secure and rel.epsilon == eps_used
    freq = np.bincount(rel.value.astype(int), minlength=k) / n
    e = np.exp(eps_used)
    expected = np.where(np.arange(k) == 2, e / (e + k - 1), 1 / (e + k - 1))
    assert all(_within_4se(f, p, n) for f, p in zip(freq, expected))


def test_secure_two_coin_law_is_exact_in_the_coins():
    n = 20_000
    tc = TwoCoinRRReleaser(0.6, 0.3)
    x = np.repeat([0, 1], n // 2)
    rel = tc.release(x, secure=True)
    assert rel.secure and rel.epsilon == tc.epsilon  # float coins are dyadic: no rounding
    a0, a1 = tc.yes_prob
    assert _within_4se(rel.value[x == 0].mean(), a0, n // 2)
    assert _within_4se(rel.value[x == 1].mean(), a1, n // 2)


def test_secure_local_laplace_and_histogram():
    n, m = 4000, 2.0
    rel = LocalLaplaceReleaser(EPS, m).release(np.full(n, 0.5), secure=True)
    assert rel.secure and rel.epsilon == EPS and rel.sensitivity == 2 * m
    # values on the grid 2M / 1024; mean within 4 SE of 0.5 (SD = sqrt(2) * scale)
    np.testing.assert_allclose(rel.value * 1024 / (2 * m), np.rint(rel.value * 1024 / (2 * m)), atol=1e-9)
    scale = 2 * m / EPS
    assert abs(rel.value.mean() - 0.5) <= 4 * np.sqrt(2) * scale * (1025 / 1024) / np.sqrt(n)
    hist = LDPHistogramReleaser(EPS, 3).release(np.full(n, 0.9), secure=True)
    assert hist.secure and hist.value.shape == (n, 3)
    se = np.sqrt(2) * (2 / EPS) * (1025 / 1024) / np.sqrt(n)
    assert np.all(np.abs(hist.value.mean(axis=0) - [0, 0, 1]) <= 4 * se)


@pytest.mark.parametrize(
    "call",
    [
        lambda: RandomizedResponseReleaser(1.0).release([1, 0], rng=3, secure=True),
        lambda: TwoCoinRRReleaser(0.5, 0.5).release([1, 0], rng=3, secure=True),
        lambda: KRRReleaser(1.0, 3).release([1, 0], rng=3, secure=True),
        lambda: UnaryEncodingReleaser(1.0, 3).release([1, 0], rng=3, secure=True),
        lambda: LocalLaplaceReleaser(1.0, 1.0).release([0.1], rng=3, secure=True),
        lambda: LDPHistogramReleaser(1.0, 3).release([0.1], rng=3, secure=True),
    ],
)
def test_secure_with_rng_warns(call):
    with pytest.warns(PrivacyWarning, match="`rng` is ignored when secure=True"):
        rel = call()
    assert rel.secure


@pytest.mark.parametrize(
    "releaser, arg",
    [
        (RandomizedResponseReleaser(1.0), [1]),
        (TwoCoinRRReleaser(0.5, 0.5), [1]),
        (KRRReleaser(1.0, 3), [1]),
        (UnaryEncodingReleaser(1.0, 3), [1]),
        (LocalLaplaceReleaser(1.0, 1.0), [0.1]),
        (LDPHistogramReleaser(1.0, 3), [0.1]),
    ],
)
def test_secure_must_be_a_bool(releaser, arg):
    with pytest.raises(TypeError, match="`secure` must be True or False"):
        releaser.release(arg, secure="yes")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not releaser.release(arg, rng=0).secure
