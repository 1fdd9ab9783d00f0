"""The hardened sampling path (``secure=True``): exact samplers, exact privacy, warnings.

The OS's cryptographic source cannot be seeded, so the distributional tests here
are not reproducible draw for draw; each asserts at a tiny level (KS and
chi-square at 1e-6, moments within 4 standard errors), so a correct sampler
fails one of them with probability below about 1e-4 in total.  Draw counts are
2e4 per law (about 80 us per secure draw on a loaded core: ~1.5 s each), not
the 1e5 of the default sampler's tests; the KS critical value at 1e-6 is then
about 0.019.
"""

from __future__ import annotations

import json
import math
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
from dpinfer._secure import _rational_below, _secure_discrete_laplace, _secure_tulap, _SecureSource
from dpinfer.releasers import _secure_path

N_DRAWS = 20_000
LEVEL = 1e-6


# -- epsilon rounding -----------------------------------------------------------

@pytest.mark.parametrize(
    "epsilon",
    [1.0, 0.1, 1 / 3, math.log(3), 2.0**-20, 2.0**-20 * 0.999, 1e-7, 1e-12, 5e-324, 20.0, 745.3, 1e300, 1.7e308],
)
def test_rational_below_is_a_lower_bound_never_zero(epsilon):
    eps = _rational_below(epsilon)
    # exact comparison of rationals: Fraction(float) is the float's exact value
    assert 0 < eps <= Fraction(epsilon)
    if epsilon >= 0.5:  # a multiple of 2**-20
        assert eps.denominator <= 2**20
        assert Fraction(epsilon) - eps < Fraction(1, 2**20)
    # at least 20 significant bits: relative loss below 2**-19
    assert (Fraction(epsilon) - eps) / Fraction(epsilon) < Fraction(1, 2**19)


def test_rational_below_is_exact_on_the_grid():
    assert _rational_below(0.75) == Fraction(3, 4)
    assert _rational_below(1.0) == 1


# -- Bernoulli(exp(-gamma)) and the discrete Laplace law (CKS 2020, Algs. 1-2) --

@pytest.mark.parametrize("gamma", [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(7, 3), Fraction(5, 2)])
def test_bernoulli_exp_frequency_within_4_se(gamma):
    source = _SecureSource()
    n = N_DRAWS
    hits = sum(source.bernoulli_exp(gamma) for _ in range(n))
    p = math.exp(-float(gamma))
    se = math.sqrt(p * (1 - p) / n)
    # budget: |freq - p| <= 4 SE (+ 1/n so that p = 1 is covered exactly)
    assert abs(hits / n - p) <= 4 * se + 1 / n


def _discrete_laplace_pmf(k, r):
    """P(Y = k) = (1 - r) / (1 + r) r**|k| (exact law, ratio r = exp(-eps))."""
    return (1 - r) / (1 + r) * r ** np.abs(k)


@pytest.mark.parametrize("eps", [Fraction(1), Fraction(3, 7), Fraction(5, 2)])
def test_discrete_laplace_matches_its_pmf_chi_square(eps):
    draws = _secure_discrete_laplace((N_DRAWS,), eps)
    assert draws.dtype == np.int64
    _assert_discrete_laplace(draws, math.exp(-float(eps)))


def _assert_discrete_laplace(draws, r):
    """Chi-square (level 1e-6) of integer draws against (1 - r)/(1 + r) r**|k|, and mean 0 within 4 SE."""
    # cells: |k| <= K individually, tails pooled so every expected count is >= 5
    n = draws.size
    big_k = 0
    while n * _discrete_laplace_pmf(big_k + 1, r) >= 5:
        big_k += 1
    ks = np.arange(-big_k, big_k + 1)
    expected = n * _discrete_laplace_pmf(ks, r)
    tail = n * r ** (big_k + 1) / (1 + r)  # P(Y > K) = r**(K+1) / (1 + r)
    observed = np.array([np.sum(draws == k) for k in ks])
    obs = np.concatenate([[np.sum(draws < -big_k)], observed, [np.sum(draws > big_k)]])
    exp_ = np.concatenate([[tail], expected, [tail]])
    assert abs(exp_.sum() - n) < 1e-6 * n
    assert stats.chisquare(obs, exp_).pvalue > LEVEL
    var = 2 * r / (1 - r) ** 2
    # mean 0 with SE sqrt(var / n)
    assert abs(draws.mean()) <= 4 * math.sqrt(var / n)


def test_discrete_laplace_exact_privacy_ratio():
    """The pmf with epsilon' has ratio exp(epsilon') <= exp(epsilon) between neighbours."""
    with mpmath.workdps(60):
        for epsilon in [0.1, 1.0, math.log(3), 7.25, 1e-9]:
            eps = _rational_below(epsilon)
            eps_mp = mpmath.mpf(eps.numerator) / eps.denominator
            r = mpmath.exp(-eps_mp)
            worst = max(mpmath.log(_mp_pmf(k, r) / _mp_pmf(k + 1, r)) for k in range(-50, 50))
            assert worst <= mpmath.mpf(epsilon) + mpmath.mpf(10) ** -50  # 60-digit arithmetic
            assert mpmath.almosteq(worst, eps_mp, 1e-40)


def _mp_pmf(k, r):
    return (1 - r) / (1 + r) * r ** abs(k)


# -- the uniform part ------------------------------------------------------------

def test_grid_uniform_lies_exactly_on_the_documented_grid():
    source = _SecureSource()
    u = np.array([source.grid_uniform() for _ in range(N_DRAWS)])
    assert np.all((u > -0.5) & (u < 0.5))
    # (u + 1/2) 2**53 - 1/2 is an integer j in [0, 2**53): exact in Fraction arithmetic
    for value in u[:2000]:
        j = (Fraction(value) + Fraction(1, 2)) * 2**53 - Fraction(1, 2)
        assert j.denominator == 1 and 0 <= j < 2**53
    assert stats.kstest(u, stats.uniform(-0.5, 1.0).cdf).pvalue > LEVEL


# -- secure Tulap ----------------------------------------------------------------

@pytest.mark.parametrize("epsilon, delta", [(1.0, 0.0), (0.5, 0.05), (2.0, 0.2)])
def test_secure_tulap_ks_against_the_law(epsilon, delta):
    draws = _secure_tulap((N_DRAWS,), epsilon, delta)
    eps = float(_rational_below(epsilon))
    law = Tulap.from_privacy(eps, delta)
    assert stats.kstest(draws, law.cdf).pvalue > LEVEL
    # variance within 4 SE; SE of a sample variance is sqrt((mu4 - var**2) / n),
    # bounded here by the empirical fourth moment
    var = law.var()
    se = math.sqrt(max(np.mean(draws**4) - var**2, 0.0) / N_DRAWS)
    assert abs(draws.var() - var) <= 4 * se
    if delta == 0.0:
        # the integer part is exactly discrete Laplace with ratio exp(-epsilon')
        _assert_discrete_laplace(np.rint(draws).astype(np.int64), math.exp(-eps))


def test_secure_tulap_truncated_support():
    epsilon, delta = 0.5, 0.2
    draws = TulapReleaser(epsilon, delta).release(np.zeros(N_DRAWS // 4, dtype=int), 10, secure=True).value
    c = TulapReleaser(epsilon, delta).noise.support[1]
    # the support of the law actually drawn (epsilon' <= epsilon) is within 1e-5 of c
    assert np.all(np.abs(draws) <= c + 1e-5)
    assert draws.max() > c - 0.1 and draws.min() < -c + 0.1  # both ends are reached


@pytest.mark.parametrize("epsilon, delta", [(1.0, 0.05), (0.5, 0.2), (0.1, 0.001), (3.0, 0.4)])
def test_secure_truncated_tulap_spends_at_most_delta(epsilon, delta):
    """Exact (epsilon, delta) check of the truncated law drawn, at 50 digits.

    For a count, Z = x + N; the largest P_x(S) - e^eps P_x+1(S) is the mass of
    N in [-c, -c + 1) (on the rest of the support the density ratio is at most
    e^eps' <= e^eps).  It is computed from the untruncated cdf with mpmath
    (independent of dpinfer's float kernels) at epsilon' and the half-width the
    sampler uses (read from its rejection step by re-running the computation).
    """
    eps = _rational_below(epsilon)
    c = float(Tulap.from_privacy(float(eps), delta).support[1])
    half_width = c + 1e-9 * (1.0 + c)  # as in _secure_tulap
    with mpmath.workdps(50):
        band = _band_mass(eps, half_width)
    assert band <= delta
    assert band > delta * (1 - 1e-6)  # and not much more noise than needed


def _band_mass(eps, half_width):
    """Truncated-law mass of [-c, -c + 1), Tulap(0, exp(-eps)) truncated to [-c, c]."""
    b = mpmath.exp(-mpmath.mpf(eps.numerator) / eps.denominator)

    def f0(t):  # untruncated Tulap cdf, Awan & Slavkovic (2018) Def. 2.3
        t = mpmath.mpf(t)
        if t > 0:
            return 1 - f0(-t)
        k = mpmath.nint(t)
        return b ** (-k) / (1 + b) * (b + (t - k + mpmath.mpf(1) / 2) * (1 - b))

    kept = 1 - 2 * f0(-half_width)
    return (f0(-half_width + 1) - f0(-half_width)) / kept


def test_secure_tulap_release_records_and_secure_flag_is_json_safe():
    rel = TulapReleaser(1.0).release([3, 4], 10, secure=np.bool_(True))
    assert rel.secure is True
    assert json.loads(json.dumps(rel.to_dict()))["secure"] is True


# -- secure Laplace --------------------------------------------------------------

def _discrete_laplace_cdf(k, r):
    k = np.asarray(k, dtype=float)
    with np.errstate(over="ignore"):
        return np.where(k >= 0, 1 - r ** (np.floor(k) + 1) / (1 + r), r ** (-np.floor(k)) / (1 + r))


@pytest.mark.parametrize("method", ["count", "proportion"])
def test_secure_laplace_count_noise_is_exact_discrete_laplace(method):
    epsilon, n, x = 1.0, 40, 13
    rel = LaplaceReleaser(epsilon)
    if method == "count":
        values = rel.count(np.full(N_DRAWS, x), n, secure=True).value
        steps = values * 1024 - x * 1024
    else:
        values = rel.proportion(np.full(N_DRAWS, x), n, secure=True).value
        steps = values * n * 1024 - x * 1024
    assert np.allclose(steps, np.rint(steps), atol=1e-6)
    steps = np.rint(steps)
    eps = _rational_below(epsilon) / 1024
    r = math.exp(-float(eps))
    # KS against the exact discrete cdf (conservative for a discrete law)
    assert stats.kstest(steps, lambda k: _discrete_laplace_cdf(k, r)).pvalue > LEVEL
    var = 2 * r / (1 - r) ** 2 / 1024**2  # ~ 2 / epsilon**2 in count units
    noise = steps / 1024
    # SE of the sample variance of a Laplace law: var * sqrt(5 / n) (kurtosis 6)
    assert abs(noise.var() - var) <= 4 * var * math.sqrt(5 / N_DRAWS)
    assert abs(var * epsilon**2 / 2 - 1) < 1e-5


def test_secure_laplace_release_grid_keeps_neighbours_within_1025_steps(monkeypatch):
    """With the noise switched off, neighbouring values land at most 1025 grid steps apart.

    This is what the noise (1025 steps per epsilon') is calibrated to, including
    values close to the 2**40 limit where the quotient value / sensitivity rounds.
    """
    monkeypatch.setattr(_secure_path, "_secure_discrete_laplace", lambda shape, eps: np.zeros(shape, np.int64))
    rng = np.random.default_rng(5)
    for sens in [1.0, 0.1, 3.7, 1e-8, 1e6]:
        big = sens * 2.0**40
        v = np.concatenate([rng.uniform(-10, 10, 2000) * sens, rng.uniform(-1, 1, 2000) * big * 0.999])
        d = rng.uniform(-1, 1, v.size) * sens
        w = v + d
        keep = np.abs(w / sens) < 2.0**40
        a = LaplaceReleaser(1.0, sens).release(v[keep], secure=True).value / sens * 1024
        b = LaplaceReleaser(1.0, sens).release(w[keep], secure=True).value / sens * 1024
        assert np.all(np.abs(np.rint(a) - np.rint(b)) <= 1025)


def test_secure_laplace_rejects_values_beyond_the_grid():
    with pytest.raises(ValueError, match=r"`value` / `sensitivity` must be below 2\*\*40"):
        LaplaceReleaser(1.0, 1.0).release(2.0**41, secure=True)
    with pytest.raises(ValueError, match=r"`value` / `sensitivity` must be below 2\*\*40"):
        LaplaceReleaser(1.0, 1e-300).release(1.0, secure=True)
    with pytest.raises(ValueError, match=r"`x` must be below 2\*\*52"):
        LaplaceReleaser(1.0).count(2**53, 2**53, secure=True)


def test_secure_path_handles_tiny_and_large_epsilon():
    # epsilon below 2**-20 used to be rounded UP to 2**-20 (more privacy claimed than given)
    tiny = TulapReleaser(1e-7).release(3, 10, secure=True)
    assert np.isfinite(LaplaceReleaser(1e-12).count(3, 10, secure=True).value)
    assert np.isfinite(tiny.value) and tiny.secure
    big = LaplaceReleaser(700.0).count(3, 10, secure=True)
    assert abs(big.value - 3) < 0.01


# -- warnings and validation -----------------------------------------------------

@pytest.mark.parametrize(
    "call",
    [
        lambda rng: TulapReleaser(1.0).release(3, 10, rng=rng, secure=True),
        lambda rng: LaplaceReleaser(1.0).release(0.3, rng=rng, secure=True),
        lambda rng: LaplaceReleaser(1.0).proportion(3, 10, rng=rng, secure=True),
        lambda rng: LaplaceReleaser(1.0).count(3, 10, rng=rng, secure=True),
        lambda rng: RandomizedResponseReleaser(1.0).release([0, 1], rng=rng, secure=True),
        lambda rng: TwoCoinRRReleaser(0.5, 0.3).release([0, 1], rng=rng, secure=True),
        lambda rng: KRRReleaser(1.0, 3).release([0, 2], rng=rng, secure=True),
        lambda rng: UnaryEncodingReleaser(1.0, 3).release([0, 2], rng=rng, secure=True),
        lambda rng: LocalLaplaceReleaser(1.0, 1.0).release([0.2, -0.4], rng=rng, secure=True),
        lambda rng: LDPHistogramReleaser(1.0, 3).release([0.2, 0.9], rng=rng, secure=True),
    ],
)
@pytest.mark.parametrize("rng", [7, np.random.default_rng(1)])
def test_rng_with_secure_warns_and_is_ignored(call, rng):
    with pytest.warns(PrivacyWarning, match="`rng` is ignored when secure=True"):
        rel = call(rng)
    assert rel.secure is True


@pytest.mark.parametrize("secure", ["yes", 1, None, 1.0])
def test_secure_must_be_a_bool(secure):
    with pytest.raises(TypeError, match="`secure` must be True or False"):
        TulapReleaser(1.0).release(3, 10, secure=secure)
    with pytest.raises(TypeError, match="`secure` must be True or False"):
        LaplaceReleaser(1.0).count(3, 10, secure=secure)


def test_default_path_records_secure_false():
    assert TulapReleaser(1.0).release(3, 10, rng=1).secure is False
    assert LaplaceReleaser(1.0).proportion(3, 10, rng=1).secure is False


@pytest.mark.parametrize(
    "call",
    [
        lambda: TulapReleaser(1e-13).release(3, 10, secure=True),
        lambda: LaplaceReleaser(1e-13).count(3, 10, secure=True),
        lambda: LaplaceReleaser(1e-300).release(0.5, secure=True),
    ],
)
def test_secure_path_rejects_epsilon_whose_noise_overflows(call):
    with pytest.raises(ValueError, match=r"`epsilon` must be at least 1e-12 on the hardened path"):
        call()


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 5.0])
def test_grid_laplace_cdf_is_within_epsilon_over_4096_of_laplace(epsilon):
    # The hardened Laplace path's noise: P(k) proportional to b^|k| on the grid of
    # 1/1024 sensitivity units, b = exp(-epsilon / 1024).  Its cdf (at and just below
    # every grid point) against the continuous Laplace(1/epsilon) cdf: the docs and the
    # LaplaceReleaser Notes state the worst gap is epsilon / 4096 (half the atom at 0,
    # tanh(epsilon / 2048) / 2).
    from scipy import stats

    b = np.exp(-epsilon / 1024)
    k = np.arange(-300_000, 300_001)
    pmf = (1 - b) / (1 + b) * b ** np.abs(k)
    cdf = b ** 300_001 / (1 + b) + np.cumsum(pmf)  # P(K < -300000) exactly, then the rest
    cont = stats.laplace(scale=1 / epsilon).cdf(k / 1024)
    gap = max(np.max(np.abs(cdf - cont)), np.max(np.abs(cdf - pmf - cont)))
    assert gap == pytest.approx(np.tanh(epsilon / 2048) / 2, rel=1e-6)
    # tanh(x) < x, so the gap is below epsilon / 4096; 1e-9 allows the rounding of the
    # 600 001-term cumulative sum.
    assert gap <= epsilon / 4096 * (1 + 1e-9)
