"""TulapReleaser: the privacy guarantee, computed exactly, and the law of its output."""

import numpy as np
import pytest
from scipy import stats

from dpinfer import Release, Tulap, TulapReleaser

EPSILONS = [0.05, 0.5, 1.0, 3.0, 10.0]


def _closed_form_pdf(t, epsilon, q, c):
    """(1-b)/(1+b) b**|[t]| / (1 - q) on [-c, c] (Awan & Slavkovic 2018), written out here."""
    b = np.exp(-epsilon)
    dens = (1 - b) / (1 + b) * np.exp(-epsilon * np.abs(np.rint(t))) / (1 - q)
    return np.where(np.abs(t) <= c, dens, 0.0)


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_pure_dp_density_ratio_on_dense_grid(epsilon):
    """delta = 0: f_x(z) / f_{x+1}(z) <= e^epsilon for every z (both directions).

    The densities come from the releaser's own noise law (Tulap.pdf, itself checked
    against mpmath) and agree with the closed form written above.  Grid: 200,001
    points over [-60, 61] plus the points just either side of every jump
    (k + 1/2 +- 1e-9).  Tolerance: relative 1e-12 on the ratio (the log densities
    carry |[t]| epsilon of rounding, i.e. ~1e-14 at most here).
    """
    rel = TulapReleaser(epsilon)
    law = rel.noise
    x = 7
    jumps = np.arange(-60, 61) + 0.5
    z = np.concatenate([np.linspace(-60, 61, 200_001), jumps - 1e-9, jumps + 1e-9]) + x
    f_x = law.pdf(z - x)
    f_x1 = law.pdf(z - (x + 1))
    np.testing.assert_allclose(f_x, _closed_form_pdf(z - x, epsilon, 0.0, np.inf), rtol=1e-13)
    bound = np.exp(epsilon) * (1 + 1e-12)
    assert np.all(f_x <= bound * f_x1) and np.all(f_x1 <= bound * f_x)
    # the bound is attained (the mechanism spends all of epsilon)
    assert np.max(f_x / f_x1) == pytest.approx(np.exp(epsilon), rel=1e-12)


def _hockey_stick(epsilon, delta, law=None):
    """sup_S P(Z in S | x = 0) - e^eps P(Z in S | x = 1), exactly (and the reverse).

    Both densities are piecewise constant with jumps at k + 1/2 and at the
    support ends +-c and 1 +- c, so the integral of (f_0 - e^eps f_1)_+ is a finite
    sum over the cells between consecutive breakpoints (value at the midpoint
    times the width).  The difference is zero outside [-c, 1 + c].
    """
    law = Tulap.from_privacy(epsilon, delta) if law is None else law
    c = law.support[1]
    cells = np.arange(np.floor(-c) - 1, np.ceil(1 + c) + 2) + 0.5
    edges = np.unique(np.concatenate([cells, [-c, c, 1 - c, 1 + c]]))
    edges = edges[(edges >= -c) & (edges <= 1 + c)]
    mids = (edges[:-1] + edges[1:]) / 2
    width = np.diff(edges)
    f0 = _closed_form_pdf(mids, epsilon, law.q, c)
    f1 = _closed_form_pdf(mids - 1, epsilon, law.q, c)
    np.testing.assert_allclose(law.pdf(mids), f0, rtol=1e-13)
    np.testing.assert_allclose(law.pdf(mids - 1), f1, rtol=1e-13)
    # Where both densities are positive their ratio is b**(|k1| - |k0|) with integer
    # cell indices, so (f - e^eps g)_+ = f (1 - e^(eps (1 - d)))_+ is evaluated without
    # subtracting two nearly equal floats (a naive f - e^eps g leaves ~1e-17 of noise
    # in every cell where the two are mathematically equal).
    k0 = np.abs(np.rint(mids))
    k1 = np.abs(np.rint(mids - 1))

    def positive_part(f, g, d):
        with np.errstate(over="ignore"):
            return np.where(g > 0, f * np.maximum(-np.expm1(epsilon * (1 - d)), 0.0), f)

    forward = np.sum(positive_part(f0, f1, k1 - k0) * width)
    backward = np.sum(positive_part(f1, f0, k0 - k1) * width)
    return forward, backward


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("delta", [1e-6, 0.01, 0.2])
def test_approximate_dp_hockey_stick_exact(epsilon, delta):
    """(epsilon, delta)-DP: the hockey-stick divergence is <= delta, in both directions.

    Awan & Slavkovic's truncation q = 2 delta b / (1 - b + 2 delta b) is tight: the
    divergence equals delta (to rounding), so the test also shows no budget is
    wasted.  Tolerance 1e-12 relative: the sum has a few hundred terms of size <= 1.
    """
    forward, backward = _hockey_stick(epsilon, delta)
    assert forward <= delta * (1 + 1e-12) and backward <= delta * (1 + 1e-12)
    assert forward == pytest.approx(delta, rel=1e-12)
    assert backward == pytest.approx(forward, rel=1e-12)


def test_hockey_stick_detects_a_wrong_truncation():
    """The check has teeth: truncating twice as much as delta allows breaks the guarantee."""
    epsilon, delta = 1.0, 0.01
    law = Tulap.from_privacy(epsilon, delta)
    greedy = Tulap(b=law.b, q=2 * law.q)
    forward, _ = _hockey_stick(epsilon, delta, law=greedy)
    assert forward > 1.9 * delta


@pytest.mark.parametrize(("epsilon", "delta"), [(1.0, 0.0), (0.5, 0.01), (3.0, 0.2), (0.1, 0.3)])
def test_release_has_the_shifted_tulap_law(epsilon, delta):
    """value - x ~ Tulap(0, exp(-epsilon), q): KS at level 1e-6 on 50,000 releases."""
    n = 30
    x = np.tile(np.arange(n + 1), 1613)[:50_000]
    rel = TulapReleaser(epsilon, delta).release(x, n, rng=2026)
    noise = rel.value - x
    assert stats.kstest(noise, Tulap.from_privacy(epsilon, delta).cdf).pvalue > 1e-6
    # and the same with all counts equal (the shift does not depend on x)
    rel11 = TulapReleaser(epsilon, delta).release(np.full(20_000, 11), n, rng=7)
    assert stats.kstest(rel11.value, Tulap.from_privacy(epsilon, delta, median=11).cdf).pvalue > 1e-6


def test_release_record():
    rel = TulapReleaser(1.0, 0.01).release(11, 30, rng=3)
    assert isinstance(rel, Release) and isinstance(rel.value, float)
    assert (rel.mechanism, rel.kind, rel.n, rel.epsilon, rel.delta, rel.sensitivity) == (
        "tulap", "count", 30, 1.0, 0.01, 1.0)
    assert abs(rel.value - 11) <= TulapReleaser(1.0, 0.01).noise.support[1]


def test_release_arrays_and_seeds():
    releaser = TulapReleaser(epsilon=1.0)
    x = np.array([[0, 5], [10, 30]])
    a = releaser.release(x, 30, rng=5)
    b = releaser.release(x.tolist(), 30.0, rng=np.random.default_rng(5))
    assert a.value.shape == (2, 2)
    np.testing.assert_array_equal(a.value, b.value)
    c = releaser.release(x, 30, rng=np.random.SeedSequence(5))
    np.testing.assert_array_equal(a.value, c.value)
    assert not np.array_equal(a.value, releaser.release(x, 30, rng=6).value)
    # immutable and reusable
    with pytest.raises(AttributeError):
        releaser.epsilon = 2.0
    assert releaser.noise.q == 0.0 and releaser.noise.b == pytest.approx(np.exp(-1.0), rel=1e-15)
