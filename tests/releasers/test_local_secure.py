"""The local-DP releasers' laws on both paths (exact Bernoulli draws from bits).

The hardened and seeded paths run the same exact samplers on different bit
sources (tests/test_exact_noise.py checks which source each path uses), so the
laws are checked here on seeded bits: every assertion is deterministic.  Each
states its standard error and allows 4 of them.
"""

import numpy as np
import pytest

from dpinfer import (
    KRRReleaser,
    LDPHistogramReleaser,
    LocalLaplaceReleaser,
    RandomizedResponseReleaser,
    TwoCoinRRReleaser,
    UnaryEncodingReleaser,
)
from dpinfer._exact_noise import _GeneratorBits
from dpinfer.releasers import _secure_path

EPS = 1.3


@pytest.fixture(params=["hardened", "seeded"])
def draw(request, monkeypatch):
    """Release with the hardened path on substituted (seeded) OS bits, or the seeded path."""
    if request.param == "hardened":
        monkeypatch.setattr(_secure_path, "_os_bits",
                            lambda: type("B", (_GeneratorBits,), {"hardened": True})(np.random.default_rng(11)))
        return lambda method, *args: method(*args)
    return lambda method, *args: method(*args, rng=11)


def _within_4se(rate, p, n):
    return abs(rate - p) <= 4 * np.sqrt(p * (1 - p) / n)


def test_rr_law_and_recorded_level(draw):
    n = 20_000
    rel = draw(RandomizedResponseReleaser(EPS).release, np.ones(n, dtype=int))
    assert rel.epsilon == EPS  # exact epsilon: no rounding on either path
    # P(report 1 | answer 1) = e^eps / (1 + e^eps); SE ~ 0.003
    assert _within_4se(rel.value.mean(), np.exp(EPS) / (1 + np.exp(EPS)), n)


def test_unary_law(draw):
    n, d = 20_000, 3
    rel = draw(UnaryEncodingReleaser(EPS, d).release, np.zeros(n, dtype=int))
    assert rel.epsilon == EPS and rel.value.shape == (n, d)
    keep = np.exp(EPS / 2) / (1 + np.exp(EPS / 2))
    rates = rel.value.mean(axis=0)
    assert _within_4se(rates[0], keep, n)
    assert _within_4se(rates[1], 1 - keep, n) and _within_4se(rates[2], 1 - keep, n)


def test_krr_law(draw):
    n, k = 20_000, 4
    rel = draw(KRRReleaser(EPS, k).release, np.full(n, 2))
    assert rel.epsilon == EPS
    freq = np.bincount(rel.value.astype(int), minlength=k) / n
    e = np.exp(EPS)
    expected = np.where(np.arange(k) == 2, e / (e + k - 1), 1 / (e + k - 1))
    assert all(_within_4se(f, p, n) for f, p in zip(freq, expected))


def test_two_coin_law(draw):
    n = 20_000
    tc = TwoCoinRRReleaser(0.6, 0.3)
    x = np.repeat([0, 1], n // 2)
    rel = draw(tc.release, x)
    assert rel.epsilon == tc.epsilon
    a0, a1 = tc.yes_prob
    assert _within_4se(rel.value[x == 0].mean(), a0, n // 2)
    assert _within_4se(rel.value[x == 1].mean(), a1, n // 2)


def test_local_laplace_and_histogram(draw):
    n, m = 20_000, 2.0
    rel = draw(LocalLaplaceReleaser(EPS, m).release, np.full(n, 0.5))
    assert rel.epsilon == EPS and rel.sensitivity == 2 * m
    scale = 2 * m / EPS  # SD of the mean: sqrt(2) scale / sqrt(n)
    assert abs(rel.value.mean() - 0.5) <= 4 * np.sqrt(2) * scale / np.sqrt(n)
    hist = draw(LDPHistogramReleaser(EPS, 3).release, np.full(n, 0.9))
    assert hist.value.shape == (n, 3)
    se = np.sqrt(2) * (2 / EPS) / np.sqrt(n)
    assert np.all(np.abs(hist.value.mean(axis=0) - [0, 0, 1]) <= 4 * se)
