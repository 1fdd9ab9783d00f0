"""Tulap law: values against mpmath (tests/reference/make_tulap.py), edges, sampler."""

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from dpinfer import Tulap
from dpinfer.distributions import tulap as tulap_module
from dpinfer.distributions.tulap import _REJECTION_MAX_Q

REF = json.loads((Path(__file__).parents[1] / "reference" / "tulap_values.json").read_text())
LAWS = REF["laws"]
IDS = [f"eps={c['epsilon']}-delta={c['delta']}-m={c['median']}" for c in LAWS]
EPS_F = np.finfo(float).eps
RTOL = 1e-12


def _law(case):
    return Tulap.from_privacy(case["epsilon"], case["delta"], median=case["median"])


def _col(case, key):
    return np.array([float(p[key]) for p in case["points"]])


def _edge_rtol(kappa):
    """Tolerance for the truncated tails near the support's ends.

    F = (F0 - q/2) / (1 - q): the subtraction multiplies F0's relative rounding error
    (a few ulps) by kappa = F0 / (F0 - q/2), which is unbounded at the edge.  That
    is the problem's conditioning, not a defect of the code, so there we allow
    64 ulps times kappa; everywhere kappa < 1e3 this is still <= 1.5e-11 and for
    kappa < 70 it is the plain 1e-12.
    """
    return np.maximum(RTOL, 64 * EPS_F * kappa)


@pytest.mark.parametrize("case", LAWS, ids=IDS)
def test_cdf_ccdf_match_mpmath(case):
    law = _law(case)
    x = _col(case, "x")
    for name, fun in (("cdf", law.cdf), ("ccdf", law.ccdf)):
        expected = _col(case, name)
        kappa = _col(case, "kappa_" + name)
        got = fun(x)
        # far tails down to 1e-300 in relative error; below that exp() underflows
        ok = expected >= 1e-300
        rel = np.abs(got[ok] - expected[ok]) / expected[ok]
        assert np.all(rel <= _edge_rtol(kappa[ok])), (name, x[ok][np.argmax(rel)], rel.max())
        # outside the support (or underflow) the value is 0 to within the same tolerance
        assert np.all(got[~ok] <= 1e-300 + expected[~ok] * 2)
    # the tails computed separately add up to one (no 1 - cdf was taken anywhere)
    np.testing.assert_allclose(law.cdf(x) + law.ccdf(x), 1.0, rtol=0, atol=1e-14)


@pytest.mark.parametrize("case", LAWS, ids=IDS)
def test_logcdf_logccdf_match_mpmath(case):
    law = _law(case)
    x = _col(case, "x")
    for name, fun in (("logcdf", law.logcdf), ("logccdf", law.logccdf)):
        expected = _col(case, name)
        kappa = _col(case, "kappa_" + name[3:])
        got = fun(x)
        zero = expected == -np.inf  # outside the truncated support: exactly -inf
        assert np.all(got[zero] == -np.inf)
        # absolute error 1e-12 * |log| (relative error 1e-12 of the value itself),
        # plus 1e-15 absolute for log values near 0, with the edge allowance
        tol = _edge_rtol(kappa[~zero]) * np.abs(expected[~zero]) + _edge_rtol(kappa[~zero])
        err = np.abs(got[~zero] - expected[~zero])
        assert np.all(err <= tol), (name, x[~zero][np.argmax(err / tol)], (err / tol).max())


@pytest.mark.parametrize("case", LAWS, ids=IDS)
def test_pdf_matches_mpmath(case):
    law = _law(case)
    x = _col(case, "x")
    t = x - case["median"]
    # skip the jumps (half-integers, support ends within 1e-9) where the density is undefined
    away = (np.abs(np.abs(t - np.rint(t)) - 0.5) > 1e-6)
    half_width = float(case["half_width"])
    away &= np.abs(np.abs(t) - half_width) > 1e-9
    expected = _col(case, "pdf")[away]
    got = law.pdf(x[away])
    np.testing.assert_allclose(got, expected, rtol=RTOL, atol=1e-300)


@pytest.mark.parametrize("case", [c for c in LAWS if c["median"] == 0.0],
                         ids=[i for i, c in zip(IDS, LAWS) if c["median"] == 0.0])
def test_var_and_q_match_mpmath_quadrature(case):
    law = _law(case)
    assert law.q == pytest.approx(float(case["q"]), rel=1e-14, abs=0)
    assert law.var() == pytest.approx(float(case["var"]), rel=1e-12)
    if case["delta"] > 0:
        assert law.support[1] == pytest.approx(float(case["half_width"]), rel=1e-12)
    assert law.mean() == case["median"]


@pytest.mark.parametrize("case", REF["var_edge"], ids=lambda c: f"eps={c['epsilon']}-delta={c['delta']}")
def test_var_far_from_the_grid(case):
    """b near 1 with q near 1 (the complement form cancels) and supports of 1e12 cells.

    The support end c solves F0(c) = 1 - q/2; with b near 1 and q near 1 its
    condition number is q / (2 (1 - q) f0(c) c) (~1e4 for epsilon = 1e-9, delta = 1e-6),
    and Var ~ c**2 / 3 inherits twice that: the tolerance is 1e-12 times that factor.
    """
    law = Tulap.from_privacy(case["epsilon"], case["delta"])
    q = law.q
    c = float(case["half_width"])
    f_c = -np.expm1(-case["epsilon"]) / (1 + np.exp(-case["epsilon"])) * np.exp(-case["epsilon"] * np.rint(c))
    cond = max(1.0, q / (2 * (1 - q) * f_c * c))
    assert law.support[1] == pytest.approx(c, rel=1e-13 * cond)
    assert law.var() == pytest.approx(float(case["var"]), rel=1e-12 * 2 * cond)


@pytest.mark.parametrize("case", LAWS, ids=IDS)
def test_icdf_cdf_round_trip(case):
    """icdf(cdf(x)) == x on the lower half.

    Above the median cdf(x) = 1 - ccdf(x) rounds to the nearest double near 1, so
    the information about x is lost before icdf sees it (the round trip is ill
    conditioned there); by symmetry the lower half covers the same code path.  Near
    the truncation edge dx = dF / f is again unbounded, so points within 1e-3 of an
    end are skipped.  The tolerance is the conditioning of the inversion:
    |dx| <= 8 ulp(F) / f(x) plus 8 ulp(x).
    """
    law = _law(case)
    x = _col(case, "x")
    t = x - case["median"]
    half_width = float(case["half_width"])
    p = law.cdf(x)
    keep = (t <= 0) & (p > 1e-300) & (np.abs(t) < half_width - 1e-3)
    x, p = x[keep], p[keep]
    back = law.icdf(p)
    tol = 8 * EPS_F * p / law.pdf(x) + 8 * EPS_F * np.abs(x) + 1e-14
    assert np.all(np.abs(back - x) <= tol), np.max(np.abs(back - x) / tol)


@pytest.mark.parametrize("epsilon", [0.05, 1.0, 10.0])
@pytest.mark.parametrize("delta", [0.0, 0.01, 0.2])
def test_cdf_icdf_round_trip(epsilon, delta):
    """cdf(icdf(p)) == p up to the conditioning of the forward map.

    x = icdf(p) is rounded to a double (error ulp(x)/2), which moves the cdf by
    pdf(x) ulp(x)/2: within a cell the cdf grows by a factor 1/b, so for epsilon = 10
    this is ~1e-10 relative in the far tail, intrinsically.  The truncated cdf is
    (F0 - q/2)/(1 - q), so F0's rounding error, |log F0| ulps of F0 ~ p + q/2/(1-q)
    (it is computed as exp(log F0)), is absolute.  icdf itself divides logs:
    its x carries ~(|x| + 1) max(1, epsilon) ulps.  Tolerance: 8 times the sum of these sources;
    in the bulk it is ~1e-15 relative, and the bulk is also checked at 1e-12.
    """
    law = Tulap.from_privacy(epsilon, delta, median=1.5)
    p = np.concatenate([np.geomspace(1e-300, 0.5, 200), np.linspace(0.5, 1 - 1e-9, 200)])
    x = law.icdf(p)
    back = law.cdf(x)
    q = law.q
    f0 = (1 - q) * p + q / 2  # the untruncated cdf at x
    dx = EPS_F * (np.abs(x) + 1) * max(1.0, epsilon)
    tol = 8 * EPS_F * f0 * (1 - np.log(f0)) / (1 - q) + 8 * dx * law.pdf(x)
    assert np.all(np.abs(back - p) <= tol), np.max(np.abs(back - p) / tol)
    bulk = (p > 1e-3) & (p < 1 - 1e-3)
    np.testing.assert_allclose(back[bulk], p[bulk], rtol=1e-12)
    assert law.icdf(0.0) == law.support[0] and law.icdf(1.0) == law.support[1]


# -- edges ------------------------------------------------------------------
def test_tiny_b_tends_to_uniform():
    law = Tulap.from_privacy(epsilon=800.0)  # b = exp(-800) underflows to 0.0
    assert law.b == 0.0
    x = np.array([-0.7, -0.5, -0.2, 0.0, 0.3, 0.5, 0.7])
    np.testing.assert_allclose(law.cdf(x), np.clip(x + 0.5, 0, 1), rtol=1e-15, atol=0)
    np.testing.assert_allclose(law.ccdf(x), np.clip(0.5 - x, 0, 1), rtol=1e-15, atol=0)
    np.testing.assert_allclose(law.pdf([-0.3, 0.2]), 1.0, rtol=1e-15)
    assert law.var() == pytest.approx(1 / 12, rel=1e-15)
    np.testing.assert_allclose(law.icdf([0.1, 0.5, 0.9]), [-0.4, 0.0, 0.4], atol=1e-15)
    draws = law.sample(10_000, rng=1)
    assert np.all(np.abs(draws) <= 0.5)
    # the delta > 0 law is the same: q underflows to 0 because b does
    assert Tulap.from_privacy(epsilon=800.0, delta=0.1).q == 0.0


def test_b_near_one():
    eps = 1e-9
    law = Tulap.from_privacy(epsilon=eps)
    # Var = 2b/(1-b)^2 + 1/12 ~ 2/eps^2; F0(t) for t <= 0 in the central cell
    assert law.var() == pytest.approx(2 * np.exp(-eps) / np.expm1(-eps) ** 2 + 1 / 12, rel=1e-12)
    assert np.all(np.isfinite(law.cdf([-1e12, -1e9, 0.0, 1e9])))
    assert law.cdf(-1e9) == pytest.approx(np.exp(-1.0) / (1 + np.exp(-eps)), rel=1e-6)
    assert law.icdf(law.cdf(-2.5e9)) == pytest.approx(-2.5e9, rel=1e-9)
    # with delta the support is tiny compared with the scale: nearly uniform.  Here
    # q = 1 - 5e-9 and F = (F0 - q/2) / (1 - q) divides by 1 - q: the rounding of q
    # alone (1e-16) moves F and the support end by ~1e-16 / 5e-9 = 2e-8 relative, so
    # 1e-6 is the honest tolerance for this corner (Uniform(-5, 5) is its limit).
    trunc = Tulap.from_privacy(epsilon=eps, delta=0.1)
    low, high = trunc.support
    assert high == pytest.approx(5.0, rel=1e-6) and low == -high
    assert trunc.cdf(0.25) == pytest.approx(0.525, rel=1e-6)
    assert trunc.var() == pytest.approx(25 / 3, rel=1e-6)  # Uniform(-5, 5)
    assert np.all(np.abs(trunc.sample(1000, rng=2)) <= high)


def test_q_tends_to_zero():
    law = Tulap.from_privacy(epsilon=1.0, delta=1e-300)
    plain = Tulap.from_privacy(epsilon=1.0)
    assert 0.0 < law.q < 1e-299
    x = np.array([-600.0, -10.0, 0.3, 10.0, 600.0])
    np.testing.assert_allclose(law.cdf(x), plain.cdf(x), rtol=1e-12)
    np.testing.assert_allclose(law.ccdf(x), plain.ccdf(x), rtol=1e-12)
    assert law.var() == pytest.approx(plain.var(), rel=1e-12)
    assert law.support[1] == pytest.approx(np.log(2 / law.q) - np.log1p(np.exp(-1.0)), rel=1e-3)
    assert np.isfinite(law.sample(10, rng=3)).all()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"b": 0.0}, "`b` must lie in the open interval"),
        ({"b": 1.0}, "`b` must lie in the open interval"),
        ({"b": 0.5, "q": 1.0}, r"`q` must lie in \[0, 1\)"),
        ({"b": 0.5, "q": -0.1}, r"`q` must lie in \[0, 1\)"),
    ],
)
def test_bad_parameters_rejected(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Tulap(**kwargs)


def test_b_required():
    with pytest.raises(TypeError, match="`b` is required"):
        Tulap(0.0)


def test_scalar_and_shape():
    law = Tulap(median=1.0, b=0.5, q=0.1)
    assert isinstance(law.cdf(0.3), float) and isinstance(law.icdf(0.3), float)
    assert law.cdf([[0.0, 1.0], [2.0, 3.0]]).shape == (2, 2)
    assert law.sample((2, 3), rng=0).shape == (2, 3)
    assert isinstance(law.sample(rng=0), float)
    assert repr(law) == "Tulap(median=1.0, b=0.5, q=0.1)"
    assert law.epsilon == pytest.approx(np.log(2.0), rel=1e-15)


# -- sampler ----------------------------------------------------------------
# q = 0 (geometric difference), 0 < q <= 0.35 (rejection: q = 2e-6 .. 0.26) and
# q > 0.35 (inversion: 0.38, 0.886, 0.895)
SAMPLER_CASES = [(0.05, 0.0), (1.0, 0.0), (3.0, 0.0), (0.5, 1e-6), (1.0, 0.01), (1.0, 0.3),
                 (10.0, 0.01), (0.5, 0.2), (0.05, 0.2), (0.1, 0.45)]


def test_sampler_cases_cover_both_truncated_paths():
    qs = [Tulap.from_privacy(e, d).q for e, d in SAMPLER_CASES]
    assert any(0 < q <= _REJECTION_MAX_Q for q in qs) and any(q > _REJECTION_MAX_Q for q in qs)


def _fourth_moment(law, lo, hi):
    """E[N^4] of the law (median 0) by exact cell integration (piecewise-constant density)."""
    edges = np.concatenate([[lo], np.arange(np.ceil(lo - 0.5), np.floor(hi - 0.5) + 1) + 0.5, [hi]])
    edges = np.unique(np.clip(edges, lo, hi))
    mids = (edges[:-1] + edges[1:]) / 2
    return float(np.sum(law.pdf(mids) * (edges[1:] ** 5 - edges[:-1] ** 5) / 5))


@pytest.mark.parametrize(("epsilon", "delta"), SAMPLER_CASES)
def test_sampler_ks_and_moments(epsilon, delta):
    n_draws = 100_000
    law = Tulap.from_privacy(epsilon, delta)
    seed = int(epsilon * 1000 + delta * 1e6) + 12345
    draws = law.sample(n_draws, rng=seed)
    assert stats.kstest(draws, law.cdf).pvalue > 1e-6
    low, high = law.support
    assert np.all((draws >= low) & (draws <= high))
    # moments: SE(mean) = sqrt(var / n); SE(sample variance) ~ sqrt((mu4 - var^2) / n),
    # mu4 from exact cell integration over the support (or to 60/epsilon cells untruncated,
    # where the neglected tail is below e^-60).  Budget: 4 SE each.
    var = law.var()
    span = high if np.isfinite(high) else 60.0 / epsilon + 10.0
    mu4 = _fourth_moment(law, -span, span)
    assert abs(draws.mean()) <= 4 * np.sqrt(var / n_draws)
    assert abs(draws.var() - var) <= 4 * np.sqrt((mu4 - var**2) / n_draws)


def test_sampler_median_shift_and_seed():
    law = Tulap.from_privacy(1.0, 0.01, median=-4.0)
    a = law.sample(1000, rng=np.random.default_rng(5))
    b = law.sample(1000, rng=5)
    np.testing.assert_array_equal(a, b)
    assert stats.kstest(law.sample(20_000, rng=6), law.cdf).pvalue > 1e-6


@pytest.mark.parametrize("q", [0.97, _REJECTION_MAX_Q, 0.2])
def test_sampler_b_q_parametrisation(q):
    law = Tulap(b=0.9, q=q)
    draws = law.sample(50_000, rng=11)
    assert stats.kstest(draws, law.cdf).pvalue > 1e-6


def test_rejection_batches_refill(monkeypatch):
    """A batch that falls short is topped up, and the result still has the right law.

    The untruncated kernel is replaced by one that returns only a fifth of the draws
    asked for (still iid untruncated), so the refill loop must run several times.
    """
    law = Tulap(b=0.5, q=0.3)
    for n_draws in (0, 1, 2, 17, 1000):
        draws = law.sample(n_draws, rng=n_draws)
        assert draws.shape == (n_draws,) and np.all(np.abs(draws) <= law.support[1])
    real = tulap_module._sample0
    calls = []

    def short(gen, n_draws, log_b):
        calls.append(n_draws)
        return real(gen, max(1, n_draws // 5), log_b)

    monkeypatch.setattr(tulap_module, "_sample0", short)
    draws = law.sample(20_000, rng=9)
    assert len(calls) >= 3 and draws.shape == (20_000,)
    assert stats.kstest(draws, law.cdf).pvalue > 1e-6


@pytest.mark.parametrize("n, epsilon, delta", [(30, 1.0, 0.0), (30, 1.0, 1e-3), (10**9, 0.5, 0.0)])
def test_released_law_is_the_grid_the_releaser_uses(n, epsilon, delta):
    # the released law as one object: log_b = -epsilon, q actually truncated on the grid,
    # half the grid step (2**-(bits+1)); without n, the continuous law (half 0)
    from dpinfer.distributions._tulap_law import ReleasedTulap, released_tulap, tulap_grid

    grid = tulap_grid(n, epsilon, delta)
    law = released_tulap(epsilon, delta, n)
    assert law == ReleasedTulap(-epsilon, grid.q, 2.0 ** -(grid.bits + 1))
    assert released_tulap(epsilon, delta) == ReleasedTulap(-epsilon, Tulap.from_privacy(epsilon, delta).q, 0.0)
    t = np.array([-3.2, 0.1, 7.0])
    lower, upper = law.log_tails(t)
    assert np.allclose(np.exp(lower) + np.exp(upper), 1.0, atol=1e-15)
    assert np.allclose(law.log_cdf(t), lower, rtol=1e-14, atol=0)  # the same value in fewer passes
