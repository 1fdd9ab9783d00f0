"""DP-JIMI for means of clipped data, against independent references.

* The non-private limit (no clipping, epsilon = 1e6): with the squares released the
  draws are ``xbar - s / sqrt(n) T_(n-1)`` exactly (the sum fixes ``mu + sigma ebar``
  and the centred squares ``sigma**2 sum (e - ebar)**2``), so the interval is
  Student's t interval (scipy's t quantiles); with sigma known it is the z interval.
* With clipping and noise and sigma known, the structural equation is monotone in mu,
  so ``P(mu* <= mu0) = P(T(mu0) >= S)`` with ``T(mu0)`` the release's law at mu0: the
  test checks the method's share against a brute-force simulation of the release
  written here (clip, sum, Laplace noise), within 4 standard errors.
"""

from __future__ import annotations

import math
from contextlib import nullcontext

import numpy as np
import pytest
from scipy import stats

from dpinfer import ApproximationWarning, MeanReleaser, mean2_jimi_test, mean_jimi_test, mean_test
from dpinfer.inference.means._common import sample_bounds, shares
from dpinfer.inference.means._kernels import Seeds, solve_location, solve_location_scale


def _quantile_se(dist, p, n_sim):
    """Monte Carlo SE of the p-quantile of n_sim draws of ``dist``: sqrt(p (1 - p) / H) / f(q)."""
    return math.sqrt(p * (1 - p) / n_sim) / dist.pdf(dist.ppf(p))


@pytest.mark.parametrize("n", [12, 40])
def test_non_private_limit_is_the_t_interval(n):
    x = np.random.default_rng(n).normal(5.0, 2.0, n)
    rel = MeanReleaser(1e6, -100.0, 110.0, spread=True).release(x, rng=1)
    n_sim = 10_000
    # below n = 80 the study measured two-sided coverage 0.92 where bounds clip 30% (1e6 reads its epsilon-3
    # row); nothing is clipped here, but how much the bounds clip is not public, so the rule warns
    expect = pytest.warns(ApproximationWarning, match="two-sided 95% intervals") if n < 80 else nullcontext()
    with expect:
        res = mean_jimi_test(rel, mu0=5.0, n_sim=n_sim, rng=2)
    xbar, s = x.mean(), x.std(ddof=1)
    t = stats.t(n - 1)
    se = s / math.sqrt(n)
    tol = 4 * _quantile_se(t, 0.025, n_sim) * se + 1e-4  # + the release's noise and grid (below 1e-4)
    assert res.conf_int.low == pytest.approx(xbar - t.ppf(0.975) * se, abs=tol)
    assert res.conf_int.high == pytest.approx(xbar + t.ppf(0.975) * se, abs=tol)
    # the p-value of mu0 = xbar + 1.5 se: 2 P(T > 1.5), SE sqrt(p (1 - p) / H) doubled
    p_ref = 2 * t.sf(1.5)
    with pytest.warns(ApproximationWarning) if n < 80 else nullcontext():
        got = mean_jimi_test(rel, mu0=xbar + 1.5 * se, n_sim=n_sim, rng=3).pvalue
    assert abs(got - p_ref) < 4 * 2 * math.sqrt(p_ref / 2 * (1 - p_ref / 2) / n_sim) + 1e-3


def test_known_sigma_non_private_limit_is_the_z_interval():
    x = np.random.default_rng(8).normal(-1.0, 3.0, 25)
    rel = MeanReleaser(1e6, -100.0, 100.0).release(x, rng=1)
    n_sim = 20_000
    res = mean_jimi_test(rel, sigma=3.0, n_sim=n_sim, rng=2, confidence_level=0.9)
    se = 3.0 / 5.0
    tol = 4 * _quantile_se(stats.norm, 0.05, n_sim) * se + 1e-4
    assert res.conf_int.low == pytest.approx(x.mean() - stats.norm.ppf(0.95) * se, abs=tol)
    assert res.conf_int.high == pytest.approx(x.mean() + stats.norm.ppf(0.95) * se, abs=tol)
    assert res.conf_int.level == 0.9


def _brute_force_upper(mu0, sigma, n, lower, upper, epsilon, released, reps, seed, model="normal"):
    """P(T(mu0) >= released): the release simulated from its definition (clip, sum, Laplace)."""
    gen = np.random.default_rng(seed)
    z = gen.normal(mu0, sigma, (reps, n))
    x = z if model == "normal" else np.exp(z)
    total = np.clip(x, lower, upper).sum(axis=1) + gen.laplace(0.0, (upper - lower) / epsilon, reps)
    return float(np.mean(total >= released))


@pytest.mark.parametrize(("model", "mu0", "sigma", "lower", "upper"), [
    ("normal", 4.0, 2.0, 0.0, 6.0),       # clips about 16% above, 2% below
    ("normal", 5.5, 2.0, 0.0, 6.0),       # heavy clipping above
    ("lognormal", 0.5, 0.7, 0.5, 3.0),    # log-normal data, clipped on both sides
])
def test_known_sigma_share_is_the_release_law_at_the_null(model, mu0, sigma, lower, upper):
    n, epsilon, n_sim, reps = 20, 0.5, 20_000, 20_000
    z = np.random.default_rng(11).normal(mu0 + 0.2, sigma, n)
    rel = MeanReleaser(epsilon, lower, upper).release(z if model == "normal" else np.exp(z), rng=12)
    # the tested parameter is the model's mean; for the log-normal, exp(mu0 + sigma**2 / 2)
    null = mu0 if model == "normal" else math.exp(mu0 + sigma**2 / 2)
    got = mean_jimi_test(rel, mu0=null, sigma=sigma, model=model, alternative="greater", n_sim=n_sim, rng=13)
    ref = _brute_force_upper(mu0, sigma, n, lower, upper, epsilon, rel.value, reps, 14, model)
    se = math.sqrt(ref * (1 - ref) * (1 / n_sim + 1 / reps))
    assert 0.02 < ref < 0.98  # an informative case
    assert abs(got.pvalue - ref) < 4 * se


def test_two_sample_non_private_limit_is_the_z_interval():
    gen = np.random.default_rng(21)
    x, y = gen.normal(1.0, 2.0, 30), gen.normal(0.0, 1.0, 50)
    r1 = MeanReleaser(1e6, -50.0, 50.0).release(x, rng=1)
    r2 = MeanReleaser(1e6, -50.0, 50.0).release(y, rng=2)
    n_sim = 20_000
    res = mean2_jimi_test(r1, r2, sigma=(2.0, 1.0), n_sim=n_sim, rng=3)
    se = math.sqrt(4 / 30 + 1 / 50)
    tol = 4 * _quantile_se(stats.norm, 0.025, n_sim) * se + 1e-4
    diff = x.mean() - y.mean()
    assert res.conf_int.low == pytest.approx(diff - 1.959964 * se, abs=tol)
    assert res.conf_int.high == pytest.approx(diff + 1.959964 * se, abs=tol)
    assert res.epsilon == 2e6
    assert mean2_jimi_test(r1, r2, sigma=(2.0, 1.0), n_sim=100, rng=3, composition="parallel").epsilon == 1e6
    assert res.null_name == "difference in means" and res.null_value == 0.0


def test_one_sided_intervals_and_pvalues_agree():
    x = np.random.default_rng(31).normal(2.0, 1.0, 60)
    rel = MeanReleaser(1.0, 0.0, 4.0, spread=True).release(x, rng=1)
    # spread released, n = 60 (the study's n = 30, epsilon 1 row): one-sided and two-sided warn
    with pytest.warns(ApproximationWarning, match="interval ends missing the mean"):
        less = mean_jimi_test(rel, mu0=2.3, alternative="less", n_sim=1000, rng=2)
        greater = mean_jimi_test(rel, mu0=2.3, alternative="greater", n_sim=1000, rng=2)
    with pytest.warns(ApproximationWarning, match="two-sided 95% intervals"):
        two = mean_jimi_test(rel, mu0=2.3, n_sim=1000, rng=2)
    assert less.conf_int.low == -math.inf and greater.conf_int.high == math.inf
    # the same draws: the two one-sided counts add to H (no ties), each p-value (k + 1) / (H + 1) (the
    # observed release counts as one of the draws), and the two-sided is twice the smaller
    assert less.pvalue + greater.pvalue == pytest.approx(1002 / 1001, rel=1e-12)
    assert two.pvalue == pytest.approx(min(1.0, 2 * min(less.pvalue, greater.pvalue)))
    # mu0 outside the one-sided interval exactly when the p-value is below the level's tail
    assert (less.conf_int.high < 2.3) == (less.pvalue <= 0.05)


def test_default_stream_is_derived_from_the_release_and_printed():
    x = np.random.default_rng(41).normal(120.0, 10.0, 40)
    rel = MeanReleaser(1.0, 90.0, 150.0, spread=True).release(x, rng=1)
    with pytest.warns(ApproximationWarning, match="two-sided 95% intervals"):  # n = 40, spread released
        a, b = mean_jimi_test(rel, mu0=118.0, n_sim=300), mean_jimi_test(rel, mu0=118.0, n_sim=300)
        assert mean_jimi_test(rel, mu0=118.0, n_sim=300, rng=5) != a
        same = mean_test(rel, mu0=118.0, n_sim=300)
    assert a == b and a.n_sim == 300
    text = str(a)
    assert "DP-JIMI test of a clipped mean (normal model, spread released)" in " ".join(text.split())
    assert "alternative hypothesis: true mean is not equal to 118" in text
    assert "mean of x" in text and "standard error of the p-value" in " ".join(text.split())
    assert "unit of privacy: one person's value" in text
    assert same == a


def test_undefined_two_sample_draws_count_on_both_sides():
    draws = np.array([[-1.0, 0.5, np.nan, 2.0, np.inf, np.nan, -np.inf, 0.1, 0.2, 3.0]])
    le, ge = shares(draws, 0.3)
    # brute force: each NaN counted as at or below and at or above 0.3, 6 of 10, and the observed
    # release as one more draw on each side: (6 + 1) / (10 + 1)
    assert le[0] == pytest.approx(7 / 11) and ge[0] == pytest.approx(7 / 11)
    # k = ceil(3.5) = 4th smallest and 4th largest; NaN counts as -inf below and as +inf above
    lo, hi = sample_bounds(draws, (0.35, 0.35))
    assert lo[0] == -1.0 and hi[0] == 3.0
    lo, hi = sample_bounds(draws, (0.25, 0.25))
    assert lo[0] == -np.inf and hi[0] == np.inf


def test_kernel_sums_match_a_direct_computation():
    gen = np.random.default_rng(51)
    for model, (a, b) in (("normal", (-1.0, 2.0)), ("lognormal", (0.5, 4.0)), ("lognormal", (-1.0, 4.0))):
        e = gen.standard_normal((60, 17))
        seeds = Seeds(e, a, b, model)
        mu, sigma = gen.normal(0, 1, 60), gen.uniform(0, 2, 60)
        sigma[:4] = 0.0
        rows = np.arange(60)
        if model == "lognormal":
            seeds.set_sigma_exp(sigma, rows)
        total, q = seeds.moments(mu, sigma, rows, squares=True)
        raw = mu[:, None] + sigma[:, None] * e
        c = np.clip(raw if model == "normal" else np.exp(raw), a, b)
        np.testing.assert_allclose(total, c.sum(axis=1), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(q, ((c - (a + b) / 2) ** 2).sum(axis=1), rtol=1e-12, atol=1e-12)
        inside = ((c > a) & (c < b)).any(axis=1)
        back = solve_location(seeds, c.sum(axis=1), sigma, rows)
        np.testing.assert_allclose(back[inside], mu[inside], atol=1e-9)
        assert np.all(np.isinf(back[~inside]))
        if model == "normal":
            m2, s2 = solve_location_scale(seeds, c.sum(axis=1), ((c - 0.5) ** 2).sum(axis=1))
            ok = inside & (sigma > 0)
            # a solution reproduces both targets; with heavy clipping it need not be the pair that
            # made them (two pairs can give the same clipped sum and squares)
            t_back, q_back = seeds.moments(m2[ok], s2[ok], rows[ok], squares=True)
            np.testing.assert_allclose(t_back, c.sum(axis=1)[ok], atol=1e-8)
            np.testing.assert_allclose(q_back, ((c - 0.5) ** 2).sum(axis=1)[ok], atol=1e-7)
            close = ok & (np.abs(m2 - mu) < 1e-8)
            assert close.sum() >= ok.sum() - 3  # only heavily clipped draws differ
            np.testing.assert_allclose(s2[close], sigma[close], atol=1e-8)


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda r, s: mean_jimi_test(r), ValueError, "`sigma` is needed: the release holds the clipped sum only"),
    (lambda r, s: mean_jimi_test(s, model="gamma"), ValueError, "`model` must be one of"),
    (lambda r, s: mean_jimi_test(s, n_sim=5), ValueError, "`n_sim` must be at least 10"),
    (lambda r, s: mean_jimi_test(s, n_sim=10**8), ValueError, "`n_sim` times n must be at most"),
    (lambda r, s: mean_jimi_test(s, sigma=-1.0), ValueError, "`sigma` must be"),
    (lambda r, s: mean_jimi_test(s, sigma=401.0), ValueError, r"`sigma` must lie in \[1e-9, 100\] x \(upper - lower\)"),
    (lambda r, s: mean_jimi_test(s, 1.0, sigma=11.0, model="lognormal"), ValueError, "lie in \\[1e-9, 10\\] for the log"),
    (lambda r, s: mean_jimi_test(0.5), TypeError, "`release` must be a Release of kind 'clipped_sum'"),
    (lambda r, s: mean_jimi_test(s, mu0="a"), TypeError, "`mu0` must be a real number"),
    (lambda r, s: mean2_jimi_test(s, r), ValueError, "`sigma` is needed"),
    (lambda r, s: mean2_jimi_test(s, s, sigma=(1.0, 2.0, 3.0)), ValueError, "pair of numbers; got 3 values"),
    (lambda r, s: mean_test([s]), ValueError, "`release` given as a list must hold two Releases"),
    (lambda r, s: mean_test(s, 3.0), TypeError, "`release2` must be None or a Release"),
    (lambda r, s: mean_test(s, method="t"), ValueError, "`method` must be one of"),
    (lambda r, s: mean_test(s, method="naive", model="lognormal"), ValueError, "`model` does not apply"),
])
def test_errors(call, error, match):
    x = np.random.default_rng(61).normal(0.0, 1.0, 20)
    r = MeanReleaser(1.0, -2.0, 2.0).release(x, rng=1)
    s = MeanReleaser(1.0, -2.0, 2.0, spread=True).release(x, rng=1)
    with pytest.raises(error, match=match):
        call(r, s)


def test_an_array_release_is_refused():
    rel = MeanReleaser(1.0, 0.0, 1.0).release(np.full((3, 5), 0.5), rng=1)
    with pytest.raises(ValueError, match="`release` must be one release"):
        mean_jimi_test(rel, sigma=1.0)
