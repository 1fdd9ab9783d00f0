"""The exact noise behind every release (dpinfer._exact_noise, the Tulap and Laplace grids).

Both paths (hardened: OS bits; seeded: a numpy Generator's bits) run the same code
on different bit sources, so the laws are tested on seeded bits, which makes every
check here deterministic; the default path's use of the OS source is tested by
substitution.  Distribution checks use a 1e-6 level (chi-square, DKW) or 4 standard
errors, each stated where it is made.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats

from dpinfer import (
    KRRReleaser,
    LaplaceReleaser,
    LDPHistogramReleaser,
    LocalLaplaceReleaser,
    PrivacyWarning,
    RandomizedResponseReleaser,
    Tulap,
    TulapReleaser,
    TwoCoinRRReleaser,
    UnaryEncodingReleaser,
)
from dpinfer._exact_noise import (
    _GeneratorBits,
    _bernoulli,
    _digit_probability,
    _discrete_laplace,
    _geometric,
    _power_probability,
)
from dpinfer.distributions._tulap_grid import _tulap_grid
from dpinfer.releasers.tulap import _release_tulap
from dpinfer.distributions import _laplace_grid
from dpinfer.releasers import _secure_path

LEVEL = 1e-6


def _bits(seed):
    return _GeneratorBits(np.random.default_rng(seed))


# -- certified Bernoulli --------------------------------------------------------------------

@pytest.mark.parametrize("lam,i", [(1.0, 0), (1.0, 3), (1e-12, 0), (1e-12, 45), (30.0, 0), (0.37, 5)])
def test_digit_probability_chunks_are_the_binary_digits(lam, i):
    # independent: plain mpmath (not interval) at 120 digits, floor(p 2**128)
    with mpmath.workdps(120):
        p = 1 / (1 + mpmath.exp(mpmath.mpf(lam) * 2**i))
        want = int(mpmath.floor(p * mpmath.mpf(2) ** 128))
    chunks = _digit_probability(lam, i).chunks(4)
    got = 0
    for c in chunks:
        got = (got << 32) | c
    assert got == want


def test_power_probability_is_the_geometric_tail():
    with mpmath.workdps(60):
        want = int(mpmath.floor(mpmath.exp(-mpmath.mpf(0.5) * 2**4) * mpmath.mpf(2) ** 64))
    c = _power_probability(0.5, 4).chunks(2)
    assert (c[0] << 32) | c[1] == want


@pytest.mark.parametrize("lam", [0.3, 2.0])
def test_bernoulli_frequency_within_4_se(lam):
    n = 200_000
    p = 1 / (1 + math.exp(lam))
    rate = _bernoulli(_bits(1), _digit_probability(lam, 0), n).mean()
    assert abs(rate - p) <= 4 * math.sqrt(p * (1 - p) / n)  # SE ~ 1e-3


# -- geometric and discrete Laplace ---------------------------------------------------------

def _chi_square_pvalue(values, pmf, support):
    counts = np.array([np.sum(values == k) for k in support] + [np.sum(~np.isin(values, support))])
    probs = np.append(pmf, 1 - pmf.sum())
    keep = probs * len(values) >= 5
    expected = probs * len(values)
    stat = np.sum((counts[keep] - expected[keep]) ** 2 / expected[keep])
    rest_o, rest_e = counts[~keep].sum(), expected[~keep].sum()
    if rest_e > 0:
        stat += (rest_o - rest_e) ** 2 / rest_e
    return stats.chi2.sf(stat, keep.sum() - (0 if rest_e > 0 else 1))


@pytest.mark.parametrize("lam", [0.05, 1.0, 4.0])
def test_geometric_matches_its_pmf(lam):
    g = np.asarray(_geometric(_bits(2), lam, 200_000), dtype=np.int64)
    b = math.exp(-lam)
    support = np.arange(0, int(40 / lam) + 1)
    pmf = (1 - b) * b**support
    assert _chi_square_pvalue(g, pmf, support) > LEVEL


@pytest.mark.parametrize("lam", [0.2, 1.5])
def test_discrete_laplace_matches_its_pmf(lam):
    d = np.asarray(_discrete_laplace(_bits(3), lam, 200_000), dtype=np.int64)
    b = math.exp(-lam)
    support = np.arange(-int(30 / lam), int(30 / lam) + 1)
    pmf = (1 - b) / (1 + b) * b ** np.abs(support)
    assert _chi_square_pvalue(d, pmf, support) > LEVEL


def test_geometric_tail_event_is_exact_and_memoryless(monkeypatch):
    # force the (probability < 2**-64) tail event: G = 2**J + a fresh geometric, in Python ints
    import dpinfer._exact_noise as noise

    calls = {"n": 0}
    real = noise._bernoulli

    def forced(bits, prob, size):
        if prob is noise._power_probability(1.0, noise._digits(1.0)) and calls["n"] == 0:
            calls["n"] += 1
            return np.ones(size, dtype=bool)
        return real(bits, prob, size)

    monkeypatch.setattr(noise, "_bernoulli", forced)
    g = noise._geometric(_bits(4), 1.0, 3)
    assert g.dtype == object and all(v >= 2 ** noise._digits(1.0) for v in g)


# -- the Tulap grid -------------------------------------------------------------------------

@pytest.mark.parametrize("n,epsilon,delta", [(30, 1.0, 0.0), (10**9, 1.0, 0.0), (1, 1e-12, 0.0),
                                             (30, 1.0, 0.01), (30, 1e-4, 0.5), (1000, 30.0, 0.0)])
def test_tulap_release_is_exact_on_a_data_free_grid(n, epsilon, delta):
    grid = _tulap_grid(n, epsilon, delta)
    x = np.array([0, n // 2, n])
    z = _release_tulap(_bits(5), np.repeat(x, 2000), n, epsilon, delta)
    units = z * 2.0 ** (grid.bits + 1)
    assert np.all(units == np.rint(units)) and np.all(np.rint(units) % 2 == 1)  # odd multiples of h/2
    assert np.all(np.abs(units) < 2.0**53)  # hence every sum was exact
    assert np.all((units >= grid.low) & (units <= grid.high))
    if delta > 0:
        assert np.all(np.abs(z - np.repeat(x, 2000)) <= grid.half_width)


def test_tulap_grid_documented_values_and_public_refusal():
    assert _tulap_grid(30, 1.0, 0.0).bits == 40
    assert _tulap_grid(10**9, 1.0, 0.0).bits == 22
    with pytest.raises(ValueError, match="too large for an exact release"):
        _tulap_grid(2**51, 1.0, 0.0)
    with pytest.raises(ValueError, match="at least 1e-12"):
        TulapReleaser(1e-13).release(3, 10)


@pytest.mark.parametrize("epsilon,delta", [(1.0, 0.0), (0.3, 0.0), (1.0, 0.05), (1e-3, 0.5)])
def test_tulap_release_law_is_the_grid_law(epsilon, delta):
    # DKW at 1e-6: sup |F_emp - F| <= sqrt(log(2 / 1e-6) / (2 N)) = 0.0086 for N = 1e5
    n_draws = 100_000
    grid = _tulap_grid(30, epsilon, delta)
    noise = _release_tulap(_bits(6), np.zeros(n_draws, dtype=np.int64), 30, epsilon, delta)
    law = Tulap.from_privacy(epsilon, 0.0) if delta == 0 else Tulap(0.0, math.exp(-epsilon), grid.q)
    h = grid.step
    probe = np.quantile(noise, np.linspace(0.01, 0.99, 60))  # grid points
    emp = np.searchsorted(np.sort(noise), probe, side="right") / n_draws
    want = law.cdf(probe + h / 2)  # P(N_h <= t) = F(t + h/2) at a grid point t
    assert np.max(np.abs(emp - want)) <= math.sqrt(math.log(2 / LEVEL) / (2 * n_draws))


def test_truncated_tulap_at_tiny_epsilon_is_fast_and_inside_the_support():
    # rejection with acceptance 1 - q (~1e-4 here) would need ~1e8 proposals
    z = TulapReleaser(1e-4, 0.5).release(np.zeros(10_000, dtype=int), 30, rng=7).value
    assert np.all(np.abs(z) <= _tulap_grid(30, 1e-4, 0.5).half_width)


def _realised_delta(n, epsilon, delta):
    """sup_S P(x + N in S) - e^eps P(x + 1 + N in S) for the released law, in mpmath.

    The grid law is the continuous truncated law rounded to cell midpoints, both
    neighbours' densities are constant on the cells, so the divergence is the
    continuous one: the truncated mass of [-c_h, 1 - c_h) (where x + 1 + N has no
    mass; elsewhere the density ratio is at most e^eps).
    """
    grid = _tulap_grid(n, epsilon, delta)
    with mpmath.workdps(60):
        b = mpmath.exp(-mpmath.mpf(epsilon))
        c = mpmath.mpf(grid.cut) / mpmath.mpf(2) ** grid.bits

        def f0(t):  # untruncated cdf (Awan & Slavkovic 2018, Def. 2.3)
            s = -abs(t)
            k = mpmath.nint(s)
            low = b ** (-k) / (1 + b) * (b + (s - k + mpmath.mpf(1) / 2) * (1 - b))
            return low if t <= 0 else 1 - low

        kept = 1 - 2 * f0(-c)
        top = min(1 - c, c)
        return (f0(top) - f0(-c)) / kept, mpmath.mpf(delta)


@pytest.mark.parametrize("epsilon", [1e-12, 1e-8, 1e-4, 0.01, 1.0, 5.0, 30.0])
@pytest.mark.parametrize("delta", [1e-12, 1e-6, 0.01, 0.5, 0.9])
def test_spent_delta_is_at_most_declared(epsilon, delta):
    # one law for both paths (only the bit source differs), so one check covers both
    grid = _tulap_grid(30, epsilon, delta)
    if grid.cut is None:  # q below 2**-1100: truncation invisible, no delta spent beyond it
        return
    spent, declared = _realised_delta(30, epsilon, delta)
    assert spent <= declared


def test_tiny_epsilon_tulap_law_is_refused_not_degenerate():
    with pytest.raises(ValueError, match="epsilon.*delta"):
        Tulap.from_privacy(1e-17, 0.25)
    law = Tulap.from_privacy(1e-12, 0.9)
    assert 0.0 < law.q < 1.0 and law.var() > 0.0


# -- Laplace grid ---------------------------------------------------------------------------

def test_laplace_count_noise_has_the_laplace_law():
    # the 2**-24 grid is within 1.5e-8 of Laplace in cdf; DKW at 1e-6 with N = 1e5: 0.0086
    n_draws = 100_000
    z = LaplaceReleaser(1.0).count(np.full(n_draws, 7), 30, rng=8).value - 7
    assert stats.kstest(z, stats.laplace(scale=1.0).cdf).pvalue > LEVEL
    assert np.all(z * 2.0**24 == np.rint(z * 2.0**24))


def test_laplace_release_clips_publicly_instead_of_refusing():
    rel = LaplaceReleaser(1.0)
    for value in (2.0**40 + 0.5, 2.0**40 - 0.5, 1e300, -1e300):
        out = rel.release(value, rng=1).value
        assert abs(out) <= 2.0**40 + 200  # clipped to the public bound, plus noise
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rel.release(np.array([2.0**40 + 0.5, 3.0]))


def test_laplace_grid_distance_covers_rounding():
    # neighbours differ by at most `sensitivity`; their grid points by at most Delta steps
    g = _laplace_grid.grid_bits(_secure_path._VALUE_BOUND, 1.0)
    steps = 2**g + math.ceil(2.0 ** (g - 52) * _secure_path._VALUE_BOUND) + 1
    rng = np.random.default_rng(9)
    sens = rng.uniform(0.01, 10, 20_000)
    v = rng.uniform(-1, 1, 20_000) * sens * 2.0**39
    w = v + sens * rng.choice([-1.0, 1.0], 20_000)
    gv = np.rint(np.clip(v / sens, -2.0**40, 2.0**40) * 2.0**g)
    gw = np.rint(np.clip(w / sens, -2.0**40, 2.0**40) * 2.0**g)
    assert np.max(np.abs(gv - gw)) <= steps
    assert Fraction(_laplace_grid.per_step(1.0, steps)) <= Fraction(1.0) / steps


# -- paths ----------------------------------------------------------------------------------

RELEASES = [
    lambda **kw: TulapReleaser(1.0).release([3, 4], 10, **kw),
    lambda **kw: LaplaceReleaser(1.0).proportion([3], 10, **kw),
    lambda **kw: LaplaceReleaser(1.0).release([0.3], **kw),
    lambda **kw: RandomizedResponseReleaser(1.0).release([1, 0], **kw),
    lambda **kw: TwoCoinRRReleaser(0.5, 0.5).release([1, 0], **kw),
    lambda **kw: KRRReleaser(1.0, 3).release([1, 0], **kw),
    lambda **kw: UnaryEncodingReleaser(1.0, 3).release([1, 0], **kw),
    lambda **kw: LocalLaplaceReleaser(1.0, 1.0).release([0.1], **kw),
    lambda **kw: LDPHistogramReleaser(1.0, 3).release([0.1], **kw),
]


@pytest.mark.parametrize("call", RELEASES)
def test_default_path_is_hardened_and_draws_os_bits(call, monkeypatch):
    used = []

    class Spy(_GeneratorBits):
        hardened = True

        def bytes(self, count):
            used.append(count)
            return super().bytes(count)

    monkeypatch.setattr(_secure_path, "_os_bits", lambda: Spy(np.random.default_rng(0)))
    rel = call()
    assert rel.secure and used
    seeded = call(rng=3)
    assert not seeded.secure
    np.testing.assert_array_equal(seeded.value, call(rng=3).value)  # reproducible


@pytest.mark.parametrize("call", RELEASES)
def test_rng_with_secure_true_warns_and_is_ignored(call):
    with pytest.warns(PrivacyWarning, match="`rng` is ignored when secure=True"):
        assert call(rng=3, secure=True).secure


@pytest.mark.parametrize("call", RELEASES)
def test_secure_must_be_a_bool_or_none(call):
    with pytest.raises(TypeError, match="`secure` must be True, False or None"):
        call(secure="yes")


# -- the geometric's tail branch, made visible (issue 26 P1) -----------------------------------
#
# The event G >= 2**J has probability below 2**-64 at the real threshold; lowering the number of
# digits drawn one by one to J = 2 (lam = 0.5: P(G >= 4) = e**-2 = 0.135) makes it visible.  Two
# checks: a chi-square of the draws against the geometric pmf, and an exact (50-digit) enumeration of
# the law the implementation produces, obtained by driving `_geometric` itself through every branch.

_LOW_J = 2


def _lowered(monkeypatch):
    import dpinfer._exact_noise as noise

    monkeypatch.setattr(noise, "_digits", lambda lam: _LOW_J)
    return noise


def test_geometric_with_a_visible_tail_branch_matches_its_pmf(monkeypatch):
    noise = _lowered(monkeypatch)
    lam = 0.5
    g = np.asarray(noise._geometric(_bits(11), lam, 200_000), dtype=np.int64)
    b = math.exp(-lam)
    support = np.arange(0, 60)
    pmf = (1 - b) * b**support
    assert _chi_square_pvalue(g, pmf, support) > LEVEL  # false alarm 1e-6
    # each branch's law: G given G < 2**J (the digits), and G - 2**J given G >= 2**J (the tail)
    low = g[g < 2**_LOW_J]
    sup_low = np.arange(2**_LOW_J)
    pmf_low = (1 - b) * b**sup_low / (1 - b ** (2**_LOW_J))
    assert _chi_square_pvalue(low, pmf_low, sup_low) > LEVEL
    high = g[g >= 2**_LOW_J] - 2**_LOW_J
    assert _chi_square_pvalue(high, pmf, support) > LEVEL


def _implemented_law(noise, lam, depth):
    """The exact law of ``_geometric(., lam, 1)``, by running it on every branch.

    `_bernoulli` is replaced by a scripted one: each call takes the next outcome of a script and
    multiplies the path's weight by p or 1 - p (p at 50 digits, from the probability's own
    definition).  Scripts are enumerated depth-first; paths taking the tail branch more than
    ``depth`` times are cut, so every value below ``depth * 2**J`` gets all its mass.
    """
    law = {}
    pending = [()]
    while pending:
        script = pending.pop()
        state = {"i": 0, "weight": mpmath.mpf(1), "overs": 0}

        class _Extend(Exception):
            pass

        def scripted(bits, prob, size, script=script, state=state):
            i = state["i"]
            if i == len(script):
                raise _Extend
            p = prob._interval(mpmath.mp)
            state["weight"] *= p if script[i] else 1 - p
            state["i"] += 1
            if prob is noise._power_probability(lam, _LOW_J) and script[i]:
                state["overs"] += 1
                if state["overs"] > depth:
                    raise _Extend
            return np.array([bool(script[i])])

        noise._bernoulli = scripted
        try:
            value = int(noise._geometric(None, lam, 1)[0])
        except _Extend:
            if state["overs"] <= depth:
                pending += [script + (0,), script + (1,)]
            continue
        law[value] = law.get(value, 0) + state["weight"]
    return law


@pytest.mark.parametrize("lam", [0.5, 0.05, 3.0])
def test_geometric_implemented_law_is_exact_on_every_branch(monkeypatch, lam):
    noise = _lowered(monkeypatch)
    monkeypatch.setattr(noise, "_bernoulli", noise._bernoulli)  # restored after the test
    depth = 3
    with mpmath.workdps(50):
        law = _implemented_law(noise, lam, depth)
        b = mpmath.exp(-mpmath.mpf(lam))
        tail = b ** (2**_LOW_J)
        for g in range(depth * 2**_LOW_J):
            want = (1 - b) * b**g
            assert abs(law.get(g, 0) - want) <= mpmath.mpf(10) ** -45 * want, g
        # the branches separately: the digits' law given no tail event, the tail's given one
        for g in range(2**_LOW_J):
            assert abs(law[g] / (1 - tail) - (1 - b) * b**g / (1 - tail)) <= mpmath.mpf(10) ** -45
        for g in range(2**_LOW_J, depth * 2**_LOW_J):
            cond = law[g] / tail
            assert abs(cond - (1 - b) * b ** (g - 2**_LOW_J)) <= mpmath.mpf(10) ** -45 * cond
