"""Binary randomized response releasers: exact privacy, the two-coin formula, sampling, bad inputs."""

import itertools

import numpy as np
import pytest

from dpinfer import Release, RandomizedResponseReleaser, TwoCoinRRReleaser

EPSILONS = [1e-3, 0.1, 0.5, np.log(3), 1.0, 2.0, 5.0, 20.0]


def _max_log_ratio(q):
    """Largest log P(y | x) / P(y | x') over reports y and inputs x, x' (columns = inputs)."""
    logq = np.log(q)
    return float(np.max(logq[:, :, None] - logq[:, None, :]))


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_warner_channel_is_exactly_epsilon_dp(epsilon):
    rr = RandomizedResponseReleaser(epsilon)
    q = rr.channel()
    # independent construction of Warner's channel
    t = np.exp(epsilon) / (1.0 + np.exp(epsilon))
    f = 1.0 / (1.0 + np.exp(epsilon))
    np.testing.assert_allclose(q, [[t, f], [f, t]], rtol=1e-13)
    np.testing.assert_allclose(q.sum(axis=0), 1.0, rtol=1e-15)
    assert abs(_max_log_ratio(q) - epsilon) <= 1e-12 * max(1.0, epsilon)


P_GRID = [0.01, 0.1, 0.25, 0.5, 0.7, 0.9, 0.99]


@pytest.mark.parametrize("p1, p2", list(itertools.product(P_GRID, P_GRID)))
def test_two_coin_epsilon_formula_against_brute_force_channel(p1, p2):
    tc = TwoCoinRRReleaser(p1, p2)
    # brute force: enumerate the two coins and the answer, accumulate P(report | answer)
    q = np.zeros((2, 2))
    for x in (0, 1):
        q[x, x] += 1 - p1  # truthful
        q[1, x] += p1 * p2  # forced yes
        q[0, x] += p1 * (1 - p2)  # forced no
    np.testing.assert_allclose(tc.channel(), q, rtol=1e-13, atol=1e-16)
    formula = np.log(max((1 - p1 + p1 * p2) / (p1 * p2), (1 - p1 * p2) / (p1 * (1 - p2))))
    assert abs(tc.epsilon - _max_log_ratio(q)) <= 1e-12 * max(1.0, tc.epsilon)
    assert abs(tc.epsilon - formula) <= 1e-12 * max(1.0, tc.epsilon)


def test_two_coin_fair_coins_is_ln3_and_others_are_not():
    assert TwoCoinRRReleaser(0.5, 0.5).epsilon == pytest.approx(np.log(3), abs=1e-15)
    # the federated-learning bug: ln 3 reported for every coin pair
    assert TwoCoinRRReleaser(0.5, 0.2).epsilon == pytest.approx(np.log(6), abs=1e-14)
    assert TwoCoinRRReleaser(0.25, 0.5).epsilon == pytest.approx(np.log(7), abs=1e-14)


@pytest.mark.parametrize("epsilon", [0.05, 0.5, 1.0, 3.0, 10.0])
@pytest.mark.parametrize("p2", [0.1, 0.3, 0.5, 0.8])
def test_two_coin_from_epsilon_round_trip(epsilon, p2):
    tc = TwoCoinRRReleaser.from_epsilon(epsilon, p2=p2)
    assert tc.p2 == p2
    assert abs(tc.epsilon - epsilon) <= 1e-12 * max(1.0, epsilon)
    assert abs(_max_log_ratio(tc.channel()) - epsilon) <= 1e-12 * max(1.0, epsilon)


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 4.0])
def test_two_coin_with_fair_second_coin_equals_warner(epsilon):
    np.testing.assert_allclose(
        TwoCoinRRReleaser.from_epsilon(epsilon).channel(), RandomizedResponseReleaser(epsilon).channel(), rtol=1e-12
    )


@pytest.mark.parametrize(
    "releaser, mechanism",
    [(RandomizedResponseReleaser(0.8), "randomized_response"), (TwoCoinRRReleaser(0.6, 0.3), "two_coin_rr")],
)
def test_sampler_realises_the_channel(releaser, mechanism):
    # 200_000 reports per answer; SE of a yes-rate <= 0.5 / sqrt(2e5) = 0.0011; budget 4 SE
    n = 200_000
    x = np.repeat([0, 1], n)
    rel = releaser.release(x, rng=np.random.SeedSequence(2024))
    assert isinstance(rel, Release)
    assert (rel.mechanism, rel.kind, rel.n, rel.delta) == (mechanism, "reports", 2 * n, 0.0)
    assert rel.epsilon == releaser.epsilon
    assert rel.value.shape == x.shape and set(np.unique(rel.value)) <= {0.0, 1.0}
    q = releaser.channel()
    for answer in (0, 1):
        rate = rel.value[x == answer].mean()
        se = np.sqrt(q[1, answer] * (1 - q[1, answer]) / n)
        assert abs(rate - q[1, answer]) <= 4 * se


def test_release_shape_and_seed_reproducibility():
    rr = RandomizedResponseReleaser(1.0)
    x = np.zeros((3, 5), dtype=int)
    a = rr.release(x, rng=7).value
    b = rr.release(x, rng=np.random.default_rng(7)).value
    assert a.shape == (3, 5)
    np.testing.assert_array_equal(a, b)
    assert rr.release(1, rng=1).n == 1


@pytest.mark.parametrize(
    "build, exc, match",
    [
        (lambda: RandomizedResponseReleaser(0.0), ValueError, "`epsilon` must be a positive finite number"),
        (lambda: RandomizedResponseReleaser(np.inf), ValueError, "`epsilon` must be a positive finite number"),
        (lambda: RandomizedResponseReleaser("1"), TypeError, "`epsilon` must be a real number"),
        (lambda: TwoCoinRRReleaser(0.0, 0.5), ValueError, r"`p1` must lie in \(0, 1\)"),
        (lambda: TwoCoinRRReleaser(1.0, 0.5), ValueError, r"`p1` must lie in \(0, 1\)"),
        (lambda: TwoCoinRRReleaser(0.5, 1.0), ValueError, r"`p2` must lie in \(0, 1\)"),
        (lambda: TwoCoinRRReleaser(0.5, np.nan), ValueError, "`p2` must be a finite real number"),
        (lambda: TwoCoinRRReleaser(None, 0.5), TypeError, "`p1` must be a real number"),
        (lambda: TwoCoinRRReleaser.from_epsilon(-1.0), ValueError, "`epsilon` must be a positive finite"),
        (lambda: TwoCoinRRReleaser.from_epsilon(1.0, p2=0.0), ValueError, r"`p2` must lie in \(0, 1\)"),
        (lambda: TwoCoinRRReleaser.from_epsilon(800.0), ValueError, "choose a smaller epsilon"),
        (lambda: TwoCoinRRReleaser.from_epsilon(1e-18), ValueError, "choose a larger epsilon"),
        (lambda: RandomizedResponseReleaser(1.0).release([0, 2]), ValueError, "`x` must contain only 0 and 1"),
        (lambda: RandomizedResponseReleaser(1.0).release([]), ValueError, "`x` must not be empty"),
        (lambda: RandomizedResponseReleaser(1.0).release("yes"), TypeError, "`x` must be 0/1 answers"),
        (lambda: RandomizedResponseReleaser(1.0).release([0.5]), ValueError, "`x` must contain only 0 and 1"),
        (lambda: TwoCoinRRReleaser(0.5, 0.5).release([1], rng="seed"), TypeError, "`rng` must be None"),
    ],
)
def test_bad_inputs(build, exc, match):
    with pytest.raises(exc, match=match):
        build()


def test_releasers_are_frozen():
    rr = RandomizedResponseReleaser(1.0)
    with pytest.raises(AttributeError):
        rr.epsilon = 2.0
    tc = TwoCoinRRReleaser(0.5, 0.5)
    with pytest.raises(AttributeError):
        tc.epsilon = 0.1
