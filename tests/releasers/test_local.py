"""Local-DP releasers (k-RR, unary encoding, local Laplace, LDP histogram): exact privacy,
sampling against the channel, bad inputs."""

import itertools

import numpy as np
import pytest

from dpinfer import (
    KRRReleaser,
    LDPHistogramReleaser,
    LocalLaplaceReleaser,
    Release,
    UnaryEncodingReleaser,
)
from dpinfer._ldp_channels import _unary_keep_prob

EPSILONS = [1e-3, 0.2, 1.0, np.log(3), 3.0, 12.0]


def _max_log_ratio(q):
    logq = np.log(q)
    return float(np.max(logq[:, :, None] - logq[:, None, :]))


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("k", [2, 3, 7])
def test_krr_channel_exact_privacy(epsilon, k):
    q = KRRReleaser(epsilon, k).channel()
    e = np.exp(epsilon)
    expected = np.where(np.eye(k, dtype=bool), e / (e + k - 1), 1 / (e + k - 1))
    np.testing.assert_allclose(q, expected, rtol=1e-13)
    np.testing.assert_allclose(q.sum(axis=0), 1.0, rtol=1e-14)
    assert abs(_max_log_ratio(q) - epsilon) <= 1e-12 * max(1.0, epsilon)


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("d", [2, 3, 4, 6])
def test_unary_encoding_exact_privacy_by_enumeration(epsilon, d):
    # enumerate all 2^d reports and compute P(report | x) bit by bit, independently of channel()
    keep = np.exp(epsilon / 2) / (1 + np.exp(epsilon / 2))
    reports = list(itertools.product([0, 1], repeat=d))
    brute = np.empty((len(reports), d))
    for r, y in enumerate(reports):
        for x in range(d):
            prob = 1.0
            for j in range(d):
                prob *= keep if y[j] == (j == x) else 1 - keep
            brute[r, x] = prob
    assert abs(_max_log_ratio(brute) - epsilon) <= 1e-12 * max(1.0, epsilon)
    q = UnaryEncodingReleaser(epsilon, d).channel()
    # channel() orders reports by the integer whose bit j is y[j]
    order = [sum(b << j for j, b in enumerate(y)) for y in reports]
    np.testing.assert_allclose(q[order], brute, rtol=1e-12)
    np.testing.assert_allclose(q.sum(axis=0), 1.0, rtol=1e-12)
    assert abs(_max_log_ratio(q) - epsilon) <= 1e-12 * max(1.0, epsilon)


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_unary_keep_prob_uses_half_epsilon(epsilon):
    h = np.exp(epsilon / 2)
    assert _unary_keep_prob(epsilon) == pytest.approx(h / (1 + h), rel=1e-14)
    rel = UnaryEncodingReleaser(epsilon, 3)
    assert rel.bit_channel()[0, 0] == pytest.approx(h / (1 + h), rel=1e-14)


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 5.0])
@pytest.mark.parametrize("bound", [0.5, 1.0, 30.0])
def test_local_laplace_exact_privacy(epsilon, bound):
    rel = LocalLaplaceReleaser(epsilon, bound)
    x = np.linspace(-bound, bound, 41)
    z = np.linspace(-3 * bound, 3 * bound, 601)
    lp = rel.logpdf(z[:, None], x[None, :])  # (z, x)
    worst = np.max(lp[:, :, None] - lp[:, None, :])
    # the sup over z of |z - x'| - |z - x| is |x - x'| <= 2M, reached for z outside (-M, M)
    assert abs(worst - epsilon) <= 1e-12 * max(1.0, epsilon)
    # the independent closed form of the density
    np.testing.assert_allclose(
        np.exp(lp), epsilon / (4 * bound) * np.exp(-np.abs(z[:, None] - x[None, :]) * epsilon / (2 * bound)),
        rtol=1e-12,
    )


@pytest.mark.parametrize("epsilon", [0.2, 1.0, 4.0])
@pytest.mark.parametrize("bins", [1, 2, 5])
def test_ldp_histogram_exact_privacy(epsilon, bins):
    rel = LDPHistogramReleaser(epsilon, bins)
    grid = np.linspace(-2.0, 3.0, 11)
    z = np.array(list(itertools.product(grid, repeat=min(bins, 3))))
    if bins > 3:  # coordinates beyond the first three carry the same law for bins 0..2
        z = np.concatenate([z, np.zeros((z.shape[0], bins - 3))], axis=1)
    worst = 0.0
    for a in range(min(bins, 3)):
        for b in range(min(bins, 3)):
            worst = max(worst, float(np.max(rel.logpdf(z, a) - rel.logpdf(z, b))))
    # a single bin: every input has the same law (ratio 1); otherwise two coordinates
    # differ and each contributes up to epsilon / 2
    expected = 0.0 if bins == 1 else epsilon
    assert abs(worst - expected) <= 1e-12 * max(1.0, epsilon)


def test_krr_sampler_realises_the_channel():
    # 60_000 reports per category; SE of a rate <= 0.5 / sqrt(6e4) = 0.002; budget 4 SE
    n, k = 60_000, 4
    rr = KRRReleaser(1.3, k)
    cats = np.repeat(np.arange(k), n)
    rel = rr.release(cats, rng=11)
    assert (rel.mechanism, rel.kind, rel.n) == ("krr", "reports", k * n)
    q = rr.channel()
    for x in range(k):
        freq = np.bincount(rel.value[cats == x].astype(int), minlength=k) / n
        se = np.sqrt(q[:, x] * (1 - q[:, x]) / n)
        assert np.all(np.abs(freq - q[:, x]) <= 4 * se)


def test_unary_sampler_realises_the_channel():
    n, d, eps = 50_000, 3, 1.7
    ue = UnaryEncodingReleaser(eps, d)
    cats = np.repeat(np.arange(d), n)
    rel = ue.release(cats, rng=12)
    assert rel.value.shape == (d * n, d)
    assert (rel.mechanism, rel.kind, rel.n, rel.sensitivity) == ("unary_encoding", "reports", d * n, 2.0)
    # full joint law of the d bits against the enumerated channel (2^d cells)
    q = ue.channel()
    codes = (rel.value.astype(int) << np.arange(d)).sum(axis=1)
    for x in range(d):
        freq = np.bincount(codes[cats == x], minlength=2 ** d) / n
        se = np.sqrt(q[:, x] * (1 - q[:, x]) / n)
        assert np.all(np.abs(freq - q[:, x]) <= 4 * se)


@pytest.mark.parametrize("epsilon", [1e-300, 1e12])  # the ends of the allowed range
def test_extreme_epsilon_releases_without_warnings(epsilon):
    bits = UnaryEncodingReleaser(epsilon, 3).release([0, 2, 1], rng=1).value
    labels = KRRReleaser(epsilon, 3).release([0, 2, 1], rng=1).value
    if epsilon > 1:  # no flips at all
        np.testing.assert_array_equal(bits, np.eye(3)[[0, 2, 1]])
        np.testing.assert_array_equal(labels, [0, 2, 1])
    assert UnaryEncodingReleaser(epsilon, 3).bit_channel().sum(axis=0) == pytest.approx([1.0, 1.0])


def test_unary_release_any_shape():
    rel = UnaryEncodingReleaser(1.0, 5).release(np.zeros((2, 3), dtype=int), rng=0)
    assert rel.value.shape == (2, 3, 5)
    assert rel.n == 6
    assert UnaryEncodingReleaser(1.0, 5).release(4, rng=0).value.shape == (5,)


def test_local_laplace_sampler_moments():
    # 100_000 draws; mean SE = sqrt(2) * scale / sqrt(n); budget 4 SE
    n, eps, m = 100_000, 0.7, 2.0
    rel = LocalLaplaceReleaser(eps, m).release(np.full(n, 1.5), rng=13)
    scale = 2 * m / eps
    assert (rel.mechanism, rel.sensitivity, rel.n) == ("local_laplace", 4.0, n)
    assert abs(rel.value.mean() - 1.5) <= 4 * np.sqrt(2) * scale / np.sqrt(n)
    # E|Z - x| = scale; SD of |Z - x| = scale
    assert abs(np.abs(rel.value - 1.5).mean() - scale) <= 4 * scale / np.sqrt(n)


def test_ldp_histogram_sampler_and_bins():
    rel = LDPHistogramReleaser(2.0, 4)
    np.testing.assert_array_equal(rel.bin_index([0.0, 0.2499, 0.25, 0.99, 1.0]), [0, 0, 1, 3, 3])
    n = 40_000
    out = rel.release(np.full(n, 0.6), rng=14)
    assert out.value.shape == (n, 4) and out.mechanism == "ldp_histogram"
    se = np.sqrt(2) * rel.scale / np.sqrt(n)
    assert np.all(np.abs(out.value.mean(axis=0) - [0, 0, 1, 0]) <= 4 * se)


@pytest.mark.parametrize(
    "build, exc, match",
    [
        (lambda: KRRReleaser(1.0, 1), ValueError, "`k` must be an integer >= 2"),
        (lambda: KRRReleaser(1.0, 2.5), ValueError, "`k` must be a whole number"),
        (lambda: KRRReleaser(-1.0, 3), ValueError, "`epsilon` must be a positive finite number"),
        (lambda: KRRReleaser(1.0, 3).release([0, 3]), ValueError, r"`categories` must contain labels in \{0, ..., 2\}"),
        (lambda: KRRReleaser(1.0, 3).release([0.5]), ValueError, "`categories` must contain whole numbers"),
        (lambda: KRRReleaser(1.0, 3).release(["a"]), TypeError, "`categories` must be an integer"),
        (lambda: UnaryEncodingReleaser(1.0, 1), ValueError, "`d` must be an integer >= 2"),
        (lambda: UnaryEncodingReleaser(0.0, 3), ValueError, "`epsilon` must be a positive finite number"),
        (lambda: UnaryEncodingReleaser(1.0, 3).release([-1]), ValueError, "`categories` must contain labels"),
        (lambda: UnaryEncodingReleaser(1.0, 3).release([]), ValueError, "`categories` must not be empty"),
        (lambda: UnaryEncodingReleaser(1.0, 3).release([True]), TypeError, "`categories` must be an integer"),
        (lambda: UnaryEncodingReleaser(1.0, 3).release([np.nan]), ValueError, "`categories` must contain only finite"),
        (lambda: UnaryEncodingReleaser(1.0, 17).channel(), ValueError, "`d` must be <= 16"),
        (lambda: UnaryEncodingReleaser(1.0, 3).release([1], rng=1.5), TypeError, "`rng` must be None"),
        (lambda: LocalLaplaceReleaser(1.0, 0.0), ValueError, "`bound` must be a positive finite number"),
        (lambda: LocalLaplaceReleaser(1e-300, 1e300), ValueError, "overflows a double"),
        (lambda: LocalLaplaceReleaser(1.0, 1.0).release([1.5]), ValueError, r"`x` must lie in \[-bound, bound\]"),
        (lambda: LocalLaplaceReleaser(1.0, 1.0).release([np.nan]), ValueError, "`x` must contain only finite"),
        (lambda: LDPHistogramReleaser(1.0, 0), ValueError, "`bins` must be an integer >= 1"),
        (lambda: LDPHistogramReleaser(1.0, 3).release([1.2]), ValueError, r"`x` must lie in \[0, 1\]"),
        (lambda: LDPHistogramReleaser(1.0, 3).release("x"), TypeError, "`x` must be a real number"),
    ],
)
def test_bad_inputs(build, exc, match):
    with pytest.raises(exc, match=match):
        build()


def test_all_local_releases_are_release_objects():
    for rel in (
        KRRReleaser(1.0, 3).release([0, 1], rng=0),
        UnaryEncodingReleaser(1.0, 3).release([0, 1], rng=0),
        LocalLaplaceReleaser(1.0, 1.0).release([0.0, 1.0], rng=0),
        LDPHistogramReleaser(1.0, 3).release([0.0, 1.0], rng=0),
    ):
        assert isinstance(rel, Release) and rel.kind == "reports" and rel.delta == 0.0 and rel.n == 2
