"""LaplaceReleaser: the epsilon-DP density ratio on a grid, and the law of its output."""

import numpy as np
import pytest
from scipy import stats

from dpinfer import LaplaceReleaser


def _log_ratio_max(a, b, scale):
    """max over a dense z grid of log f_a(z) - log f_b(z), Laplace(., scale) densities (scipy)."""
    z = np.concatenate([np.linspace(min(a, b) - 50 * scale, max(a, b) + 50 * scale, 100_001), [a, b]])
    return np.max(stats.laplace.logpdf(z, a, scale) - stats.laplace.logpdf(z, b, scale))


@pytest.mark.parametrize("epsilon", [0.05, 1.0, 10.0])
@pytest.mark.parametrize(
    ("method", "args", "sensitivity"),
    [("release", (0.3,), 2.5), ("proportion", (11, 30), 1 / 30), ("count", (11, 30), 1.0)],
)
def test_density_ratio_bounded_by_exp_epsilon(epsilon, method, args, sensitivity):
    """For |a - b| <= sensitivity: f_a(z) / f_b(z) = exp(eps (|z-b| - |z-a|) / s) <= e^eps.

    The sensitivity is the one the release records (1/n for a proportion, 1 for a
    count) and the scale is sensitivity / epsilon (the law of the released values is
    checked by the KS test below).  The log ratio of scipy's Laplace densities is
    maximised over a grid of 100,001 z and over neighbouring pairs (a, b) with
    |a - b| in {sensitivity/3, sensitivity}.  Tolerance: 1e-12 relative on epsilon
    (logpdf rounding).
    """
    rel = getattr(LaplaceReleaser(epsilon, sensitivity=2.5), method)(*args, rng=0)
    assert rel.sensitivity == pytest.approx(sensitivity, rel=1e-15) and rel.epsilon == epsilon
    scale = rel.sensitivity / rel.epsilon
    worst = 0.0
    for a in np.linspace(0, 1, 7):
        for step in (sensitivity / 3, sensitivity, -sensitivity):
            worst = max(worst, _log_ratio_max(a, a + step, scale))
    assert worst <= epsilon * (1 + 1e-12)
    assert worst == pytest.approx(epsilon, rel=1e-9)  # attained for |a - b| = sensitivity


@pytest.mark.parametrize(
    ("method", "args", "truth", "scale"),
    [
        ("release", (np.linspace(-3, 3, 50_000),), np.linspace(-3, 3, 50_000), 2.5 / 0.7),
        ("proportion", (np.tile(np.arange(31), 1613)[:50_000], 30), np.tile(np.arange(31), 1613)[:50_000] / 30,
         1 / (0.7 * 30)),
        ("count", (np.tile(np.arange(31), 1613)[:50_000], 30), np.tile(np.arange(31), 1613)[:50_000], 1 / 0.7),
    ],
)
def test_released_values_have_the_laplace_law(method, args, truth, scale):
    """value - truth ~ Laplace(0, sensitivity / epsilon): KS at level 1e-6, 50,000 draws."""
    releaser = LaplaceReleaser(epsilon=0.7, sensitivity=2.5)
    rel = getattr(releaser, method)(*args, rng=99)
    assert stats.kstest(rel.value - truth, stats.laplace(0, scale).cdf).pvalue > 1e-6


def test_release_records():
    releaser = LaplaceReleaser(epsilon=1.0, sensitivity=2.0)
    r = releaser.release(3.5, rng=1)
    assert (r.mechanism, r.kind, r.n, r.sensitivity, r.delta) == ("laplace", "value", None, 2.0, 0.0)
    assert isinstance(r.value, float)
    p = releaser.proportion(11, 30, rng=1)
    assert (p.kind, p.n, p.sensitivity, p.epsilon) == ("proportion", 30, 1 / 30, 1.0)
    c = releaser.count([1, 2, 3], 30, rng=1)
    assert (c.kind, c.n, c.sensitivity) == ("count", 30, 1.0) and c.value.shape == (3,)
    # not clamped to [0, 1]: a tiny epsilon must be able to leave the unit interval
    wide = LaplaceReleaser(epsilon=1e-3).proportion(np.zeros(100, dtype=int), 30, rng=2)
    assert np.any(wide.value < 0)


def test_seeds_reproduce():
    releaser = LaplaceReleaser(epsilon=1.0)
    a = releaser.count(np.arange(10), 10, rng=4).value
    b = releaser.count(np.arange(10), 10, rng=np.random.default_rng(4)).value
    np.testing.assert_array_equal(a, b)
    with pytest.raises(AttributeError):
        releaser.sensitivity = 3.0
