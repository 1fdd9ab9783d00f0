"""Tests of dpinfer.inference.normal (Vu & Slavkovic normal approximation).

Expected values come from tests/reference/normal_values.json (mpmath, 50 digits,
made by tests/reference/make_normal.py without importing dpinfer), from hand
derivations written here, from statsmodels (non-private limit), or from seeded
Monte Carlo with a 4-standard-error budget.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binom
from statsmodels.stats.proportion import proportion_confint, proportions_ztest

from dpinfer import (
    ApproximationWarning,
    ConfidenceInterval,
    HTestResult,
    LaplaceReleaser,
    Release,
    TulapReleaser,
    binom2_normal_test,
    binom_normal_ci,
    binom_normal_power,
    binom_normal_test,
)

REF = json.loads((Path(__file__).parents[2] / "reference" / "normal_values.json").read_text())
ALTS = ("two-sided", "greater", "less")


#: the hand-computed case's release, recorded as one (typed, 0.42 of 50 would be refused)
HAND = Release(0.42, "laplace", 1.0, 0.0, 1.0 / 50, 50, "proportion")


def _quiet(func, *args, **kwargs):
    """Call without the ApproximationWarning (tested separately below)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        return func(*args, **kwargs)


# ---------------------------------------------------------------------------
# statistic, p-value, intervals against independent values
# ---------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::dpinfer.ApproximationWarning")  # subject: the numbers, not the coverage warning
def test_statistic_and_pvalue_by_hand():
    # pi_hat = 0.42, n = 50, p0 = 0.3, epsilon = 1 (a Release record: 0.42 = 21 / 50 typed as a
    # number is refused as a confidential count; the arithmetic below needs these digits):
    # sd0^2 = 0.3 * 0.7 / 50 + 2 / 50^2 = 0.0042 + 0.0008 = 0.005, so
    # z = 0.12 / sqrt(0.005) = 1.2 sqrt(2), and the two-sided p-value is
    # 2 P(Z > 1.2 sqrt 2) = erfc(1.2); one-sided: erfc(1.2) / 2.
    res = binom_normal_test(HAND, 0.3)
    assert res.statistic == pytest.approx(1.2 * math.sqrt(2.0), rel=1e-14)
    assert res.pvalue == pytest.approx(math.erfc(1.2), rel=1e-13)
    greater = binom_normal_test(HAND, 0.3, alternative="greater")
    assert greater.pvalue == pytest.approx(math.erfc(1.2) / 2.0, rel=1e-13)
    less = binom_normal_test(HAND, 0.3, alternative="less")
    assert less.pvalue == pytest.approx(1.0 - math.erfc(1.2) / 2.0, rel=1e-13)
    # Wald interval by hand: se^2 = 0.42 * 0.58 / 50 + 0.0008 = 0.005672
    z975 = 1.959963984540054
    ci = binom_normal_ci(HAND, method="wald")
    assert ci.low == pytest.approx(0.42 - z975 * math.sqrt(0.005672), abs=1e-14)
    assert ci.high == pytest.approx(0.42 + z975 * math.sqrt(0.005672), abs=1e-14)


@pytest.mark.filterwarnings("ignore::dpinfer.ApproximationWarning")  # subject: the numbers, not the coverage warning
@pytest.mark.parametrize("case", REF["one_sample"], ids=lambda c: f"{c['pi_hat']}-{c['alternative']}-{c['confidence_level']}")
def test_one_sample_against_mpmath(case):
    args = (case["pi_hat"], case["n"])
    kw = dict(epsilon=case["epsilon"], alternative=case["alternative"],
              confidence_level=case["confidence_level"])
    res = _quiet(binom_normal_test, case["pi_hat"], case["n"], case["p0"], **kw)
    assert res.statistic == pytest.approx(float(case["statistic"]), rel=1e-12, abs=1e-15)
    assert res.pvalue == pytest.approx(float(case["pvalue"]), rel=1e-9, abs=1e-300)
    score = [float(v) for v in case["score"]]
    wald = [float(v) for v in case["wald"]]
    assert [res.conf_int.low, res.conf_int.high] == pytest.approx(score, abs=1e-12)
    ci_s = binom_normal_ci(*args, method="score", **kw)
    ci_w = binom_normal_ci(*args, method="wald", **kw)
    assert [ci_s.low, ci_s.high] == pytest.approx(score, abs=1e-12)
    assert [ci_w.low, ci_w.high] == pytest.approx(wald, abs=1e-12)
    assert ci_s.level == case["confidence_level"]
    assert res.estimate == min(max(case["pi_hat"], 0.0), 1.0)


# ---------------------------------------------------------------------------
# exact power and size
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", REF["power"], ids=lambda c: f"{c['theta']}-{c['n']}-{c['p0']}-{c['alternative']}")
def test_power_against_mpmath(case):
    got = binom_normal_power(case["theta"], case["n"], case["p0"], epsilon=case["epsilon"],
                             alpha=case["alpha"], alternative=case["alternative"])
    assert isinstance(got, float)
    assert got == pytest.approx(float(case["power"]), rel=1e-10, abs=1e-300)


def test_size_drift_table_n30_eps1():
    """Exact size at n = 30, epsilon = 1 over p0 in {0.1, ..., 0.9}: the drift.

    Measured (alpha = 0.05): 'greater' falls from 0.0550 at p0 = 0.1 to 0.0400 at
    p0 = 0.9 ('less' is its mirror image); two-sided stays within 0.0502-0.0516.
    At alpha = 0.01 the drift is up to +58% one-sided and +50% two-sided.
    """
    table = REF["size_table_n30_eps1"]
    p0s = np.arange(1, 10) / 10
    sizes = {}
    for row in table["rows"]:
        got = binom_normal_power(row["p0"], 30, row["p0"], epsilon=1.0, alpha=row["alpha"],
                                 alternative=row["alternative"])
        assert got == pytest.approx(float(row["size"]), rel=1e-11)
        sizes[row["alpha"], row["alternative"], row["p0"]] = got
    # vectorised over theta = p0? no: p0 changes the test, so compare one call per row above;
    # the drift: 'greater' size decreases in p0 and crosses alpha, 'less' mirrors it
    for alpha in (0.05, 0.01):
        greater = np.array([sizes[alpha, "greater", p] for p in p0s])
        less = np.array([sizes[alpha, "less", p] for p in p0s])
        two = np.array([sizes[alpha, "two-sided", p] for p in p0s])
        np.testing.assert_allclose(less, greater[::-1], rtol=1e-10)
        np.testing.assert_allclose(two, two[::-1], rtol=1e-10)
        assert greater[0] > alpha > greater[-1]
    g05 = np.array([sizes[0.05, "greater", p] for p in p0s])
    assert np.all(np.diff(g05) < 0)
    assert g05[0] == pytest.approx(0.05498, abs=1e-5) and g05[-1] == pytest.approx(0.04003, abs=1e-5)
    two05 = np.array([sizes[0.05, "two-sided", p] for p in p0s])
    assert np.all(np.abs(two05 - 0.05) < 0.002)
    assert sizes[0.01, "greater", 0.1] == pytest.approx(0.01579, abs=1e-5)


def _expected_fire(row):
    size, alpha = float(row["size"]), row["alpha"]
    rel = abs(size - alpha) / alpha
    assert abs(rel - 0.2) > 1e-4, "a reference size sits on the warning boundary"
    return rel > 0.2


@pytest.mark.parametrize("row", REF["size_table_n30_eps1"]["rows"],
                         ids=lambda r: f"{r['alpha']}-{r['alternative']}-{r['p0']}")
def test_warning_fires_exactly_where_size_drifts(row):
    kw = dict(epsilon=1.0, alternative=row["alternative"], confidence_level=1.0 - row["alpha"])
    if _expected_fire(row):
        with pytest.warns(ApproximationWarning, match=r"exact size .* is 0\.0\d+"):
            binom_normal_test(0.5013, 30, row["p0"], **kw)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            binom_normal_test(0.5013, 30, row["p0"], **kw)


def test_warning_table_is_not_vacuous():
    fire = {(r["alpha"], r["alternative"], r["p0"]) for r in REF["size_table_n30_eps1"]["rows"]
            if _expected_fire(r)}
    # at 95% nothing drifts by more than 20% at n = 30, epsilon = 1 (largest: 19.9%);
    # at 99% the one-sided tests drift by up to 58% near the boundary
    assert fire == {
        (0.01, "greater", 0.1), (0.01, "greater", 0.2), (0.01, "greater", 0.3),
        (0.01, "less", 0.7), (0.01, "less", 0.8), (0.01, "less", 0.9),
        (0.01, "two-sided", 0.1), (0.01, "two-sided", 0.2),
        (0.01, "two-sided", 0.8), (0.01, "two-sided", 0.9),
    }


def test_noise_dominated_size_and_warning():
    # epsilon n tiny: pi_hat is essentially Laplace(p0, b), sd0 ~ sqrt(2) b, so the
    # two-sided 5% test rejects with probability P(|L| > z sqrt(2) b) = exp(-z sqrt 2)
    z975 = 1.959963984540054
    limit = math.exp(-z975 * math.sqrt(2.0))
    size = binom_normal_power(0.5, 10, 0.5, epsilon=1e-4, alternative="two-sided")
    assert size == pytest.approx(limit, rel=1e-3)
    with pytest.warns(ApproximationWarning, match="liberal"):
        binom_normal_test(0.5013, 10, 0.5, epsilon=1e-4)


def test_warning_points_at_caller_and_fires_once_for_arrays():
    with pytest.warns(ApproximationWarning) as record:
        binom_normal_test(np.array([0.1013, 0.4013, 0.9013]), 30, 0.1, epsilon=1.0, confidence_level=0.99)
    assert len(record) == 1
    assert record[0].filename == __file__


@pytest.mark.parametrize("theta, n, p0, epsilon, alternative", [
    (0.35, 30, 0.2, 1.0, "greater"),
    (0.2, 30, 0.2, 1.0, "two-sided"),
    (0.1, 100, 0.2, 0.5, "less"),
    (0.6, 40, 0.5, 2.0, "two-sided"),
])
def test_power_matches_monte_carlo(theta, n, p0, epsilon, alternative):
    """Exact power vs the rejection rate of the real pipeline (release -> test).

    reps = 100_000 draws; SE = sqrt(p (1 - p) / reps) <= 0.0016; bound 4 SE.
    """
    reps = 100_000
    exact = binom_normal_power(theta, n, p0, epsilon=epsilon, alpha=0.05, alternative=alternative)
    gen = np.random.default_rng(np.random.SeedSequence(20261121).spawn(1)[0])
    x = gen.binomial(n, theta, size=reps)
    rel = LaplaceReleaser(epsilon).proportion(x, n, rng=gen)
    pvalues = binom_normal_test(rel, p0=p0, alternative=alternative)
    rate = np.mean(pvalues <= 0.05)
    se = math.sqrt(exact * (1.0 - exact) / reps)
    assert abs(rate - exact) <= 4.0 * se


@pytest.mark.filterwarnings("ignore::dpinfer.ApproximationWarning")  # the hull of 100,000 intervals reaches theta near 0, where coverage dips
def test_score_coverage_is_one_minus_size_monte_carlo():
    """The score interval inverts the test, so its coverage at theta is 1 - size(p0 = theta).

    reps = 100_000; exact coverage about 0.95, SE = sqrt(0.95 * 0.05 / reps) = 0.00069; bound 4 SE.
    """
    n, theta, epsilon, reps = 30, 0.3, 1.0, 100_000
    coverage = 1.0 - binom_normal_power(theta, n, theta, epsilon=epsilon, alternative="two-sided")
    gen = np.random.default_rng(7)
    rel = LaplaceReleaser(epsilon).proportion(gen.binomial(n, theta, size=reps), n, rng=gen)
    ci = binom_normal_ci(rel, method="score")
    hit = np.mean((ci[..., 0] <= theta) & (theta <= ci[..., 1]))
    se = math.sqrt(coverage * (1.0 - coverage) / reps)
    assert abs(hit - coverage) <= 4.0 * se


@pytest.mark.parametrize("eps", [0.01, 2.0])
def test_power_large_n_window_equals_full_sum(eps):
    # the kernel splits off binomial tails and skips terms below 1e-300 (binomial
    # window for eps = 0.01, Laplace reach 700/eps for eps = 2); compare with the
    # plain full sum over all n + 1 support points
    n, p0 = 200_000, 0.3
    z = 1.6448536269514722
    sd0 = math.sqrt(p0 * (1 - p0) / n + 2 / (eps * n) ** 2)
    x = np.arange(n + 1)
    u = n * (p0 + z * sd0) - x
    tail = np.where(u >= 0, 0.5 * np.exp(-eps * np.abs(u)), 1 - 0.5 * np.exp(-eps * np.abs(u)))
    thetas = np.array([0.297, 0.3, 0.302, 0.305])
    full = np.array([binom.pmf(x, n, t) @ tail for t in thetas])
    got = binom_normal_power(thetas, n, p0, epsilon=eps, alternative="greater")
    assert got.min() < 0.01 and got.max() > 0.5
    np.testing.assert_allclose(got, full, rtol=1e-12)


@pytest.mark.parametrize("theta", [0.6346474061689868, 1.0 - 0.6346474061689868])
def test_power_no_scipy_quantile_warning(theta):
    # Regression: binom.ppf(1e-300, 1000, 0.6346...) makes Boost warn "Unable to
    # bracket root" (a RuntimeWarning, an error under filterwarnings=error) for this
    # ordinary input; the window edge is used for lo (theta) and for hi (1 - theta).
    # Expected: the plain full sum over x = 0..n with the closed-form Laplace tail.
    n, p0, eps = 1000, theta, 1.0
    z = 1.959963984540054
    sd0 = math.sqrt(p0 * (1 - p0) / n + 2 / (eps * n) ** 2)
    x = np.arange(n + 1)

    def tail(u):  # P(N > u), N ~ Laplace(0, 1/eps)
        return np.where(u >= 0, 0.5 * np.exp(-eps * np.abs(u)), 1 - 0.5 * np.exp(-eps * np.abs(u)))

    reject = tail(n * (p0 + z * sd0) - x) + (1.0 - tail(n * (p0 - z * sd0) - x))
    full = binom.pmf(x, n, theta) @ reject
    got = binom_normal_power(theta, n, p0, epsilon=eps, alternative="two-sided")
    assert got == pytest.approx(full, rel=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        binom_normal_test(0.6013, n, p0, epsilon=eps)


def test_power_shapes_and_edges():
    th = np.array([[0.0, 0.2], [0.5, 1.0]])
    got = binom_normal_power(th, 30, 0.2, epsilon=1.0, alternative="greater")
    assert got.shape == (2, 2)
    assert got[1, 1] > 0.999 and got[0, 0] < 1e-3
    # the two-sided power is >= each one-sided power at level alpha/2 summed
    two = binom_normal_power(0.4, 30, 0.2, epsilon=1.0, alternative="two-sided")
    g = binom_normal_power(0.4, 30, 0.2, epsilon=1.0, alpha=0.025, alternative="greater")
    ls = binom_normal_power(0.4, 30, 0.2, epsilon=1.0, alpha=0.025, alternative="less")
    assert two == pytest.approx(g + ls, rel=1e-12)


@pytest.mark.parametrize("alternative", ALTS)
def test_symmetry(alternative):
    mirror = {"greater": "less", "less": "greater", "two-sided": "two-sided"}[alternative]
    a = binom_normal_test(0.27, 40, 0.35, epsilon=0.7, alternative=alternative)
    b = binom_normal_test(0.73, 40, 0.65, epsilon=0.7, alternative=mirror)
    assert a.pvalue == pytest.approx(b.pvalue, rel=1e-12)
    assert a.conf_int.low == pytest.approx(1 - b.conf_int.high, abs=1e-13)
    assert a.conf_int.high == pytest.approx(1 - b.conf_int.low, abs=1e-13)
    pa = binom_normal_power([0.2, 0.5], 40, 0.35, epsilon=0.7, alternative=alternative)
    pb = binom_normal_power([0.8, 0.5], 40, 0.65, epsilon=0.7, alternative=mirror)
    np.testing.assert_allclose(pa, pb, rtol=1e-11)


# ---------------------------------------------------------------------------
# duality, limits, clipping
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("alternative", ALTS)
@pytest.mark.parametrize("pi_hat", [0.03, 0.2013, 0.5013, 0.77, 0.99])
def test_score_interval_is_inversion_of_test(pi_hat, alternative):
    n, eps, level = 30, 1.0, 0.9
    ci = binom_normal_ci(pi_hat, n, epsilon=eps, confidence_level=level, alternative=alternative,
                         method="score")
    # ends strictly inside (0, 1) are where the p-value crosses 1 - level; an end
    # clipped to 0 or 1 is checked by the grid below (every p0 on that side is accepted)
    for end in [e for e in (ci.low, ci.high) if 0.0 < e < 1.0]:
        p = _quiet(binom_normal_test, pi_hat, n, end, epsilon=eps, alternative=alternative).pvalue
        assert p == pytest.approx(1.0 - level, abs=1e-10)
    inside = np.linspace(ci.low, ci.high, 9)[1:-1]
    grid = np.linspace(0.001, 0.999, 250)
    outside = grid[(grid < ci.low - 1e-6) | (grid > ci.high + 1e-6)]
    for p0 in inside:
        assert _quiet(binom_normal_test, pi_hat, n, p0, epsilon=eps, alternative=alternative).pvalue > 0.1
    for p0 in outside:
        assert _quiet(binom_normal_test, pi_hat, n, p0, epsilon=eps, alternative=alternative).pvalue < 0.1


@pytest.mark.filterwarnings("ignore::dpinfer.ApproximationWarning")  # subject: the numbers, not the coverage warning
@pytest.mark.parametrize("x, n", [(11, 30), (3, 40), (57, 60), (250, 1000)])
@pytest.mark.parametrize("level", [0.95, 0.8])
def test_large_epsilon_gives_wald_and_wilson(x, n, level):
    alpha = 1.0 - level
    wald = binom_normal_ci(x / n, n, epsilon=1e9, confidence_level=level, method="wald")
    score = binom_normal_ci(x / n, n, epsilon=1e9, confidence_level=level, method="score")
    ref_w = proportion_confint(x, n, alpha=alpha, method="normal")
    ref_s = proportion_confint(x, n, alpha=alpha, method="wilson")
    assert [wald.low, wald.high] == pytest.approx([max(ref_w[0], 0), min(ref_w[1], 1)], abs=1e-9)
    assert [score.low, score.high] == pytest.approx(list(ref_s), abs=1e-9)


@pytest.mark.parametrize("alternative, sm_alt", [("two-sided", "two-sided"), ("greater", "larger"),
                                                  ("less", "smaller")])
def test_one_sample_large_epsilon_matches_statsmodels(alternative, sm_alt):
    # non-private limit: the score z test with the null variance p0 (1 - p0) / n
    z, p = proportions_ztest(17, 40, value=0.3, alternative=sm_alt, prop_var=0.3)
    res = _quiet(binom_normal_test, 17 / 40, 40, 0.3, epsilon=1e9, alternative=alternative)
    assert res.statistic == pytest.approx(z, rel=1e-9)
    assert res.pvalue == pytest.approx(p, rel=1e-8)


@pytest.mark.filterwarnings("ignore::dpinfer.ApproximationWarning")  # subject: the numbers, not the coverage warning
@pytest.mark.parametrize("method", ["wald", "score"])
def test_implausible_release_collapses_to_boundary(method):
    # pi_hat = -0.3013 at n = 30, epsilon = 1 (noise sd 0.047): every p in [0, 1] is rejected
    lo = binom_normal_ci(-0.3013, 30, epsilon=1.0, method=method)
    hi = binom_normal_ci(1.3013, 30, epsilon=1.0, method=method)
    assert (lo.low, lo.high) == (0.0, 0.0)
    assert (hi.low, hi.high) == (1.0, 1.0)
    pvals = _quiet(binom_normal_test, -0.3013, 30, np.linspace(0.001, 0.999, 50)[0], epsilon=1.0).pvalue
    assert pvals < 0.05
    grid = np.linspace(0.0005, 0.9995, 200)
    assert all(_quiet(binom_normal_test, -0.3013, 30, p, epsilon=1.0).pvalue < 0.05 for p in grid)


def test_default_method_is_score():
    assert binom_normal_ci(0.4213, 50, epsilon=1.0) == binom_normal_ci(0.4213, 50, epsilon=1.0, method="score")


@pytest.mark.filterwarnings("ignore::dpinfer.ApproximationWarning")  # [0, 0.16] at n = 30: coverage 0.939 near theta = 0.005
def test_clipping_and_estimate():
    res = binom_normal_test(1.05, 30, 0.5, epsilon=1.0, alternative="greater")
    assert res.estimate == 1.0
    sd0 = math.sqrt(0.25 / 30 + 2 / 900)
    assert res.statistic == pytest.approx(0.55 / sd0, rel=1e-14)  # unclipped input
    ci = binom_normal_ci(0.01, 30, epsilon=1.0)
    assert ci.low == 0.0 and 0.0 < ci.high < 1.0
    assert binom_normal_ci(0.99, 30, epsilon=1.0, alternative="greater").high == 1.0
    assert binom_normal_ci(0.0113, 30, epsilon=1.0, alternative="less").low == 0.0
    res2 = binom2_normal_test(0.0213, 10, 0.9813, 10, epsilon=1.0)
    assert res2.conf_int.low >= -1.0


@pytest.mark.filterwarnings("ignore::dpinfer.ApproximationWarning")  # subject: the numbers, not the coverage warning
def test_array_paths():
    pis = np.array([[0.1013, 0.3013, 0.5013], [0.6013, 0.8013, 1.0213]])
    pv = binom_normal_test(pis, 50, 0.4, epsilon=2.0)
    assert isinstance(pv, np.ndarray) and pv.shape == (2, 3)
    for idx in np.ndindex(pis.shape):
        assert pv[idx] == binom_normal_test(float(pis[idx]), 50, 0.4, epsilon=2.0).pvalue
    for method in ("wald", "score"):
        for alt in ALTS:
            ci = binom_normal_ci(pis, 50, epsilon=2.0, method=method, alternative=alt)
            assert ci.shape == (2, 3, 2)
            for idx in np.ndindex(pis.shape):
                one = binom_normal_ci(float(pis[idx]), 50, epsilon=2.0, method=method, alternative=alt)
                assert tuple(ci[idx]) == (one.low, one.high)
    pv2 = binom2_normal_test(np.array([0.5013, 0.6013]), 40, 0.4513, 40, epsilon=1.0)
    assert pv2.shape == (2,)
    assert pv2[1] == binom2_normal_test(0.6013, 40, 0.4513, 40, epsilon=1.0).pvalue


def test_result_type_and_printing():
    res = binom_normal_test(0.4213, 50, 0.3, epsilon=1.0)
    assert isinstance(res, HTestResult) and isinstance(res.conf_int, ConfidenceInterval)
    assert res.statistic_name == "z" and res.mechanism == "laplace" and res.n_sim is None
    text = str(res)
    # z = 0.1213 / sqrt(0.005) = 1.71544 (sd0 as in test_statistic_and_pvalue_by_hand)
    assert "z = 1.7154" in text and "privacy: epsilon = 1, delta = 0, Laplace mechanism" in text
    assert res.data_name == "pi_hat = 0.4213, n = 50"  # every digit typed, read back


# ---------------------------------------------------------------------------
# releases
# ---------------------------------------------------------------------------


def test_proportion_and_count_releases():
    prop = LaplaceReleaser(1.5).proportion(13, 40, rng=3)
    a = binom_normal_test(prop, p0=0.25)
    b = binom_normal_test(prop.value, 40, 0.25, epsilon=1.5)
    assert (a.statistic, a.pvalue) == (b.statistic, b.pvalue)
    assert a.data_name.startswith("Laplace release")
    count = LaplaceReleaser(1.5).count(13, 40, rng=3)
    c = binom_normal_test(count, p0=0.25)
    d = binom_normal_test(count.value / 40, 40, 0.25, epsilon=1.5)
    assert c.pvalue == d.pvalue and c.conf_int == d.conf_int
    ci = binom_normal_ci(count, method="score")
    assert ci == binom_normal_ci(count.value / 40, 40, epsilon=1.5, method="score")
    p2 = LaplaceReleaser(0.5).proportion(20, 60, rng=4)
    r = binom2_normal_test(prop, pi_hat2=p2)
    s = binom2_normal_test(prop.value, 40, p2.value, 60, epsilon=(1.5, 0.5))
    assert r.pvalue == s.pvalue and r.epsilon == 2.0


_LAP = LaplaceReleaser(1.0).proportion(10, 30, rng=1)
_TULAP = TulapReleaser(1.0).release(10, 30, rng=1)
_VALUE = LaplaceReleaser(1.0).release(0.3, rng=1)
_RR = Release(0.3, "randomized_response", 1.0, 0.0, 1.0, 30, "proportion")
_BAD_SENS = Release(0.3, "laplace", 1.0, 0.0, 1.0, 30, "proportion")

_BAD_ONE = [
    # (args, kwargs, exception, match)
    (("0.4", 30), dict(epsilon=1.0), TypeError, "`pi_hat` must be a real number"),
    ((None, 30), dict(epsilon=1.0), TypeError, "`pi_hat` must be a real number"),
    ((True, 30), dict(epsilon=1.0), TypeError, "`pi_hat` must be a real number"),
    (([0.1, [0.2]], 30), dict(epsilon=1.0), TypeError, "`pi_hat` must be a real number"),
    ((0.4, True), dict(epsilon=1.0), TypeError, "`n` must be an integer"),
    ((float("nan"), 30), dict(epsilon=1.0), ValueError, "`pi_hat` must contain only finite"),
    ((np.inf, 30), dict(epsilon=1.0), ValueError, "`pi_hat` must contain only finite"),
    (([], 30), dict(epsilon=1.0), ValueError, "`pi_hat` must not be empty"),
    ((0.4,), dict(epsilon=1.0), TypeError, "`n` is required"),
    ((0.4, 30), dict(), TypeError, "`epsilon` is required"),
    ((0.4, 0), dict(epsilon=1.0), ValueError, "`n` must be an integer >= 1"),
    ((0.4, 30.5), dict(epsilon=1.0), ValueError, "`n` must be a whole number"),
    ((0.4, "30"), dict(epsilon=1.0), TypeError, "`n` must be an integer"),
    ((0.4, 30), dict(epsilon=-1.0), ValueError, "`epsilon` must be a positive finite number"),
    ((0.4, 30), dict(epsilon=np.inf), ValueError, "`epsilon` must be a positive finite number"),
    ((0.4, 30), dict(epsilon="1"), TypeError, "`epsilon` must be a real number"),
    ((_TULAP,), dict(), ValueError, "Tulap release.*binom_ump_test"),
    ((_VALUE,), dict(), ValueError, "kind 'value'"),
    ((_RR,), dict(), ValueError, "randomized response release of kind 'proportion', which binom_normal_(test|ci) does not take"),
    ((_BAD_SENS,), dict(), ValueError, "sensitivity"),
    ((_LAP,), dict(n=30), ValueError, "`n` must not be given when `pi_hat` is a Release"),
    ((_LAP,), dict(epsilon=1.0), ValueError, "`epsilon` must not be given when `pi_hat` is a Release"),
]


@pytest.mark.parametrize("args, kwargs, exc, match", _BAD_ONE)
@pytest.mark.parametrize("func", [binom_normal_test, binom_normal_ci])
def test_bad_value_inputs(func, args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        func(*args, **kwargs)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(p0=0.0), ValueError, r"`p0` must lie in \(0, 1\)"),
    (dict(p0=1.0), ValueError, r"`p0` must lie in \(0, 1\)"),
    (dict(p0="0.5"), TypeError, "`p0` must be a real number"),
    (dict(alternative="two.sided"), ValueError, "two.sided' is spelled 'two-sided'"),
    (dict(alternative="greater than"), ValueError, "`alternative` must be one of"),
    (dict(alternative=1), TypeError, "`alternative` must be one of"),
    (dict(confidence_level=95), ValueError, r"give 0\.95, not 95"),
    (dict(confidence_level=1.0), ValueError, "`confidence_level` must lie in the open interval"),
    (dict(confidence_level=0.3, alternative="less"), ValueError, "at least 0.5 for a one-sided"),
])
def test_bad_test_options(kwargs, exc, match):
    base = dict(pi_hat=0.4013, n=30, epsilon=1.0)
    with pytest.raises(exc, match=match):
        binom_normal_test(**{**base, **kwargs})


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(method="wilson"), ValueError, "`method` must be 'wald' or 'score'"),
    (dict(method=None), TypeError, "`method` must be 'wald' or 'score'"),
    (dict(alternative="both"), ValueError, "`alternative` must be one of"),
    (dict(confidence_level=0.0), ValueError, "`confidence_level` must lie in the open interval"),
    (dict(confidence_level=0.4, alternative="greater"), ValueError, "at least 0.5 for a one-sided"),
])
def test_bad_ci_options(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        binom_normal_ci(0.4013, 30, epsilon=1.0, **kwargs)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(theta=-0.1), ValueError, r"`theta` must lie in \[0, 1\]"),
    (dict(theta=[0.2, 1.5]), ValueError, r"`theta` must lie in \[0, 1\]; got 1.5"),
    (dict(theta="0.2"), TypeError, "`theta` must be a real number"),
    (dict(theta=np.nan), ValueError, "`theta` must contain only finite"),
    (dict(n=0), ValueError, "`n` must be an integer >= 1"),
    (dict(n=2.5), ValueError, "`n` must be a whole number"),
    (dict(p0=1.0), ValueError, r"`p0` must lie in \(0, 1\)"),
    (dict(epsilon=0.0), ValueError, "`epsilon` must be a positive finite number"),
    (dict(alpha=0.0), ValueError, "`alpha` must lie in the open interval"),
    (dict(alpha=1.5), ValueError, "`alpha` must lie in the open interval"),
    (dict(alternative="upper"), ValueError, "`alternative` must be one of"),
])
def test_bad_power_inputs(kwargs, exc, match):
    base = dict(theta=0.3, n=30, p0=0.2, epsilon=1.0)
    with pytest.raises(exc, match=match):
        binom_normal_power(**{**base, **kwargs})


def test_power_requires_keywords():
    with pytest.raises(TypeError):
        binom_normal_power(0.3, 30, 0.2, 1.0)


@pytest.mark.parametrize("call", [
    lambda: binom_normal_test(0.4, 30, 0.3, epsilon=1e-200),
    lambda: binom_normal_ci(0.4, 30, epsilon=1e-160),
    lambda: binom_normal_power(0.4, 30, 0.3, epsilon=1e-160, alternative="two-sided"),
    lambda: binom2_normal_test(0.4, 30, 0.3, 30, epsilon=(1e-160, 1.0)),
])
def test_noise_so_large_its_variance_overflows_is_refused(call):
    # 2 / (epsilon n)^2 overflows (or divides by zero) below epsilon n ~ 1e-154: before
    # this check the interval collapsed to a point and the power read 0 (review finding).
    with pytest.raises(ValueError, match=r"epsilon.*\* n must be at least 1e-150"):
        call()
