"""Tests of the two-sample DP-JIMI (binom2_jimi_ci, binom2_jimi_test)."""

import numpy as np
import pytest

from dpinfer import HTestResult, LaplaceReleaser, TulapReleaser, binom2_jimi_ci, binom2_jimi_test
from dpinfer.inference.jimi._kernels import _draw_theta
from dpinfer.inference.jimi._two_sample import _spawn_pair
from reference.jimi_fiducial import fiducial_cdf, fiducial_sf


def _difference_cdf(d, pi1, n1, eps1, pi2, n2, eps2, cells=800):
    """P(theta1* - theta2* <= d) from the one-sample fiducial laws (independent groups).

    The one-sample laws are written from their definition in
    ``tests/reference/jimi_fiducial.py`` (scipy quadrature; not the package's kernels).
    E[G1(d + T2)] = P(T2 = 0) G1(d) + P(T2 = 1) G1(d + 1) + int_(0,1) G1(d + s) dG2(s);
    the last term by a midpoint Riemann-Stieltjes sum on a grid that contains
    s = -d and s = 1 - d, where G1 jumps (its atoms at 0 and 1), so the error is
    O(cells^-2) ~ 1e-6.
    """
    grid = np.unique(np.concatenate([np.linspace(0.0, 1.0, cells + 1), np.clip([-d, 1.0 - d], 0.0, 1.0)]))
    p_zero = float(fiducial_cdf(0.0, pi2, n2, eps2)[0])  # the atom of theta2* at 0
    p_one = float(fiducial_sf(1.0, pi2, n2, eps2)[0])  # the atom at 1
    g2 = fiducial_cdf(grid, pi2, n2, eps2)
    g2[-1] = 1.0 - p_one  # G2(1^-): atom at 1 left out
    mid = 0.5 * (grid[:-1] + grid[1:])
    cont = np.sum(fiducial_cdf(d + mid, pi1, n1, eps1) * np.diff(g2))
    g1_d, g1_d1 = fiducial_cdf([d, d + 1.0], pi1, n1, eps1)
    return float(p_zero * g1_d + p_one * g1_d1 + cont)


CASES = [  # (pi1, n1, eps1, pi2, n2, eps2, p0)
    (0.5513, 40, 1.0, 0.3013, 60, 0.5, 0.1),
    (0.4013, 30, 1.0, 0.4013, 30, 1.0, 0.0),
    (-0.0313, 30, 1.0, 0.2013, 25, 2.0, -0.1),
]


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_simulated_difference_matches_exact_convolution(case):
    # Level check of the sample quantiles: G_D(q_hat_a) ~ a with SE sqrt(a (1 - a) / H);
    # p-value share vs P(D <= p0) with binomial SE; bounds 4 SE + 1e-5 (grid error).
    pi1, n1, e1, pi2, n2, e2, p0 = case
    H = 20_000
    ci = binom2_jimi_ci(pi1, n1, pi2, n2, epsilon=(e1, e2), n_sim=H, rng=17)
    for q, level in ((ci.low, 0.025), (ci.high, 0.975)):
        below = _difference_cdf(q, pi1, n1, e1, pi2, n2, e2)
        # inverse-cdf quantile: G_D(q^-) <= level <= G_D(q)
        at_or_below = below
        strictly = _difference_cdf(q - 1e-12, pi1, n1, e1, pi2, n2, e2)
        se = np.sqrt(level * (1 - level) / H)
        assert strictly - 4 * se - 1e-5 <= level <= at_or_below + 4 * se + 1e-5
    res = binom2_jimi_test(pi1, n1, pi2, n2, margin=p0, epsilon=(e1, e2), alternative="greater",
                           n_sim=H, rng=17)
    expected = _difference_cdf(p0, pi1, n1, e1, pi2, n2, e2)
    assert abs(res.pvalue - expected) <= 4 * np.sqrt(expected * (1 - expected) / H) + 1e-5
    assert (res.conf_int.low, res.conf_int.high) == pytest.approx((ci.low, 1.0), abs=0.1)


def test_group_streams_are_independent():
    # Equal releases: with a shared seed the two groups' draws would be identical and
    # theta1* - theta2* == 0.  Correlation of independent draws: SE 1/sqrt(H).
    H = 40_000
    g1, g2 = _spawn_pair(np.random.default_rng(2025))
    d1 = _draw_theta(g1, np.array([0.4]), 30, 1.0, H)[0]
    d2 = _draw_theta(g2, np.array([0.4]), 30, 1.0, H)[0]
    assert not np.array_equal(d1, d2)
    assert abs(np.corrcoef(d1, d2)[0, 1]) <= 4 / np.sqrt(H)
    ci = binom2_jimi_ci(0.4013, 30, 0.4013, 30, epsilon=1.0, rng=2025)
    assert ci.low < -0.1 and ci.high > 0.1


def test_same_seed_same_output():
    kw = dict(epsilon=(1.0, 0.5), rng=99)
    a = binom2_jimi_test(np.array([0.3013, 0.6013]), 30, np.array([0.2013, 0.1013]), 40, **kw)
    b = binom2_jimi_test(np.array([0.3013, 0.6013]), 30, np.array([0.2013, 0.1013]), 40, **kw)
    assert np.array_equal(a, b)
    c1 = binom2_jimi_ci(0.3013, 30, 0.2013, 40, epsilon=(1.0, 0.5), rng=np.random.SeedSequence(4))
    c2 = binom2_jimi_ci(0.3013, 30, 0.2013, 40, epsilon=(1.0, 0.5), rng=4)
    assert c1 == c2


def test_shapes_releases_and_result():
    r1 = LaplaceReleaser(epsilon=1.0).proportion(np.array([[10, 20, 25]]), 30, rng=1)
    r2 = LaplaceReleaser(epsilon=0.5).count(np.array([[5], [30]]), 40, rng=2)
    out = binom2_jimi_ci(r1, pi_hat2=r2, n_sim=2000, rng=3)
    assert out.shape == (2, 3, 2) and np.all(out[..., 0] <= out[..., 1])
    pv = binom2_jimi_test(r1, pi_hat2=r2, n_sim=2000, rng=3)
    assert pv.shape == (2, 3) and np.all((pv >= 0) & (pv <= 1))
    one = LaplaceReleaser(epsilon=1.0).proportion(20, 30, rng=1)
    two = LaplaceReleaser(epsilon=0.5).count(8, 40, rng=2)
    res = binom2_jimi_test(one, pi_hat2=two, alternative="less", n_sim=3000, rng=5)
    assert isinstance(res, HTestResult)
    assert res.statistic == pytest.approx(one.value - two.value / 40)
    # Sequential composition of the two releases: 1.0 + 0.5.
    assert res.conf_int.low == -1.0 and res.n_sim == 3000 and res.epsilon == 1.5
    assert "group 2: noisy count" in res.data_name
    plain = binom2_jimi_test(one.value, 30, two.value, 40, epsilon=(1.0, 0.5), kind2="count",
                             alternative="less", n_sim=3000, rng=5)
    assert plain.pvalue == res.pvalue


ERRORS = [
    (dict(pi_hat1=0.3013, n1=30, pi_hat2=None, n2=30, epsilon=1.0), TypeError, "`pi_hat2`.*required"),
    (dict(pi_hat1=0.3013, n1=30, pi_hat2=0.2013, n2=30, epsilon=(1.0, None)), TypeError, "`epsilon` is required when `pi_hat2`"),
    (dict(pi_hat1=0.3013, n1=None, pi_hat2=0.2013, n2=30, epsilon=1.0), TypeError, "`n1` is required"),
    (dict(pi_hat1=0.3013, n1=30, pi_hat2=0.2013, n2=30, epsilon=(1.0, 0.0)), ValueError, "`epsilon` must be"),
    (dict(pi_hat1=[0.3013, 0.2013], n1=30, pi_hat2=[0.2013, 0.1013, 0.4013], n2=30, epsilon=1.0),
     ValueError, "broadcastable"),
    (dict(pi_hat1=0.3013, n1=30, pi_hat2=0.2013, n2=30, epsilon=1.0, kind2="counts"),
     ValueError, "`kind2` must be"),
]


@pytest.mark.parametrize("kwargs,exc,match", ERRORS)
@pytest.mark.parametrize("func", [binom2_jimi_ci, binom2_jimi_test])
def test_bad_arguments(func, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        func(**kwargs)


def test_bad_null_and_releases():
    with pytest.raises(ValueError, match=r"`margin` \(the null difference"):
        binom2_jimi_test(0.3013, 30, 0.2013, 30, margin=1.5, epsilon=1.0)
    tulap = TulapReleaser(epsilon=1.0).release(5, 30, rng=1)
    with pytest.raises(ValueError, match="`pi_hat2` is a Tulap release"):
        binom2_jimi_ci(0.3013, 30, tulap, epsilon=(1.0, None))
    rel = LaplaceReleaser(epsilon=1.0).proportion(5, 30, rng=1)
    with pytest.raises(ValueError, match="`n2` must not be given when `pi_hat2` is a Release"):
        binom2_jimi_ci(0.3013, 30, rel, 30, epsilon=(1.0, None))


# --------------------------------------------------------------------------- exact limit (n_sim=None)
def _reference_cases():
    import json
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[2] / "reference" / "jimi2_values.json"
    return json.loads(path.read_text())["cases"]


@pytest.mark.parametrize("case", _reference_cases(), ids=lambda c: str(c["args"]))
def test_exact_two_sample_law_against_mpmath(case):
    # tests/reference/make_jimi2.py: nested mpmath tanh-sinh quadrature at 20 digits.
    # The Gauss-Legendre panels (one-sample parts ~1e-12, the outer panels graded
    # towards 0 and 1) must agree to 1e-8 absolute (the requirement).
    from dpinfer.inference.jimi import _kernels as k

    lt, tie, gt = k._two_exact(*case["args"])
    assert abs(lt - case["lt"]) < 1e-8
    assert abs(tie - case["tie"]) < 1e-12
    assert abs(gt - case["gt"]) < 1e-8


def test_exact_two_sample_pvalue_is_the_limit_of_the_draws():
    # p-value (two-sided, mid-p ties) from the exact law vs 2_000_000 draws per group:
    # within 4 SE of the simulated share (SE = 2 sqrt(s (1 - s) / N) for p = 2 s).
    exact = binom2_jimi_test(0.02, 30, -0.01, 40, margin=0.0, epsilon=0.5, n_sim=None)
    sim = binom2_jimi_test(0.02, 30, -0.01, 40, margin=0.0, epsilon=0.5, n_sim=2_000_000, rng=8)
    share = exact.pvalue / 2
    assert abs(exact.pvalue - sim.pvalue) < 4 * 2 * np.sqrt(share * (1 - share) / 2_000_000)
    assert exact.n_sim is None and "exact limit" in exact.method


def test_exact_two_sample_interval_endpoints_are_quantiles():
    # The bounds of the exact interval are the 2.5% and 97.5% quantiles of the exact law:
    # P(D <= low) >= 0.025 > P(D < low) up to the root finder's 1e-12 in d.
    from dpinfer.inference.jimi import _kernels as k

    args = (0.4013, 30, 1.0, 0.3013, 40, 1.0)
    ci = binom2_jimi_ci(args[0], args[1], args[3], args[4], epsilon=1.0, n_sim=None)
    for bound, level in ((ci.low, 0.025), (ci.high, 0.975)):
        lt, tie, _ = k._two_exact(*args, bound + 1e-9)
        assert lt + tie >= level
        lt, tie, _ = k._two_exact(*args, bound - 1e-9)
        assert lt + tie < level
    # symmetry: swapping the groups mirrors the interval
    swapped = binom2_jimi_ci(args[3], args[4], args[0], args[1], epsilon=1.0, n_sim=None)
    assert swapped.low == pytest.approx(-ci.high, abs=1e-9)
    assert swapped.high == pytest.approx(-ci.low, abs=1e-9)
