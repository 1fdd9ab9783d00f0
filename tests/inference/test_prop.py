"""prop_test: dispatch to the method functions and the release/method compatibility check."""

import numpy as np
import pytest
from scipy.stats import binom

from dpinfer import LaplaceReleaser, Release, Tulap, TulapReleaser, prop_test
from dpinfer.inference.jimi._one_sample import binom_jimi_test
from dpinfer.inference.normal._one_sample import binom_normal_test
from dpinfer.inference.ump import binom_ump_test

TULAP = TulapReleaser(epsilon=1.0).release(11, 30, rng=2024)
LAPLACE = LaplaceReleaser(epsilon=1.0).proportion(11, 30, rng=2024)
LAPLACE_COUNT = LaplaceReleaser(epsilon=1.0).count(11, 30, rng=2024)


def _same(a, b):
    assert a.pvalue == b.pvalue
    assert a.statistic == b.statistic
    assert (a.conf_int.low, a.conf_int.high, a.conf_int.level) == (b.conf_int.low, b.conf_int.high, b.conf_int.level)
    assert a.method == b.method and a.alternative == b.alternative and a.null_value == b.null_value


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_ump_dispatch_equals_binom_ump_test(alternative):
    got = prop_test(TULAP, 0.2, alternative=alternative, confidence_level=0.9)
    _same(got, binom_ump_test(TULAP, p0=0.2, alternative=alternative, confidence_level=0.9))
    assert got.epsilon == 1.0 and got.n_sim is None


@pytest.mark.parametrize("two_sided_method", ["asymptotically-unbiased", "equal-tailed"])
def test_ump_two_sided_method_is_passed(two_sided_method):
    got = prop_test(TULAP, 0.2, two_sided_method=two_sided_method)
    _same(got, binom_ump_test(TULAP, p0=0.2, two_sided_method=two_sided_method))


def test_ump_equal_tailed_is_twice_the_smaller_one_sided_pvalue():
    x = np.arange(31)
    law = Tulap(b=np.exp(-1.0))
    greater = np.sum(binom.pmf(x, 30, 0.2) * law.cdf(x - TULAP.value))
    less = np.sum(binom.pmf(x, 30, 0.2) * law.cdf(TULAP.value - x))
    got = prop_test(TULAP, 0.2, two_sided_method="equal-tailed")
    assert got.pvalue == pytest.approx(min(1.0, 2 * min(greater, less)), rel=1e-12)


@pytest.mark.parametrize("alternative", ["less", "greater"])
def test_ump_one_sided_pvalue_against_the_direct_sum(alternative):
    # Independent of dpinfer's inference code: the defining finite sum of Awan &
    # Slavkovic (2018), sum_x Binom(x; n, p0) F(x - z) for 'greater' and
    # sum_x Binom(x; n, p0) F(z - x) for 'less', F the Tulap(0, e^-1, 0) cdf.
    x = np.arange(31)
    shift = x - TULAP.value if alternative == "greater" else TULAP.value - x
    direct = np.sum(binom.pmf(x, 30, 0.2) * Tulap(b=np.exp(-1.0)).cdf(shift))
    got = prop_test(TULAP, p0=0.2, alternative=alternative)
    assert got.pvalue == pytest.approx(direct, rel=1e-12)


@pytest.mark.parametrize("release", [LAPLACE, LAPLACE_COUNT], ids=["proportion", "count"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_normal_dispatch_equals_binom_normal_test(release, alternative):
    got = prop_test(release, 0.3, method="normal", alternative=alternative)
    _same(got, binom_normal_test(release, p0=0.3, alternative=alternative))


def test_jimi_defaults_to_the_exact_limit():
    got = prop_test(LAPLACE, 0.2, method="jimi")
    _same(got, binom_jimi_test(LAPLACE, p0=0.2, n_sim=None))
    assert got.n_sim is None


def test_jimi_simulation_is_passed_n_sim_and_rng():
    got = prop_test(LAPLACE, 0.2, method="jimi", alternative="greater", n_sim=2000, rng=11)
    _same(got, binom_jimi_test(LAPLACE, p0=0.2, alternative="greater", n_sim=2000, rng=11))
    assert got.n_sim == 2000


def test_normal_approximation_interval_matches_its_formula():
    # An independent check of what prop_test returns for the normal method: the
    # z score (pi_hat - p0) / sqrt(p0 (1 - p0) / n + 2 / (epsilon n)^2) of Vu &
    # Slavkovic (2009), and its two-sided normal p-value.
    from scipy.stats import norm

    got = prop_test(LAPLACE, 0.3, method="normal")
    z = (LAPLACE.value - 0.3) / np.sqrt(0.3 * 0.7 / 30 + 2 / 30**2)
    assert got.statistic == pytest.approx(z, rel=1e-12)
    assert got.pvalue == pytest.approx(2 * norm.sf(abs(z)), rel=1e-10)


@pytest.mark.parametrize(
    ("release", "method", "match"),
    [
        (LAPLACE, "ump", r"`release` is a Laplace release of kind 'proportion', which prop_test\(method='ump'\) "
                         r"does not take: it takes a Tulap-noised count .*With prop_test: method='normal' or "
                         r"method='jimi'"),
        (LAPLACE_COUNT, "ump", r"it takes a Tulap-noised count.*method='normal' or method='jimi'"),
        (TULAP, "normal", r"`release` is a Tulap release of kind 'count', which prop_test\(method='normal'\) does "
                          r"not take: it takes a Laplace-noised proportion or count.*method='ump'"),
        (TULAP, "jimi", r"prop_test\(method='jimi'\) does not take: it takes a Laplace-noised.*re-simulates Laplace "
                        r"noise.*method='ump'"),
        (LaplaceReleaser(1.0, sensitivity=2.0).release(3.0, rng=1), "normal",
         r"a Laplace release of kind 'value', which prop_test\(method='normal'\) does not take"),
        (Release(0.4, "randomized_response", 1.0, 0.0, 1.0, 30, "proportion"), "normal",
         r"Local-DP reports need the local-DP estimators"),
    ],
)
def test_mechanism_mismatch_is_an_explained_error(release, method, match):
    with pytest.raises(ValueError, match=match):
        prop_test(release, 0.2, method=method)


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((0.37,), {}, TypeError, r"`release` must be a dpinfer Release .*got float"),
        ((TulapReleaser(1.0).release([3, 4], 10, rng=1),), {}, ValueError,
         r"must hold one value for prop_test; got an array of shape \(2,\)"),
        ((TULAP,), {"method": "exact"}, ValueError, r"`method` must be one of 'ump', 'normal', 'jimi'; got 'exact'"),
        ((TULAP,), {"method": 3}, TypeError, r"`method` must be one of"),  # None means the default now
        ((TULAP, 1.2), {}, ValueError, r"`p0` must lie in \(0, 1\); got 1.2"),  # the ump rule, as for p0 = 0
        ((TULAP,), {"alternative": "two.sided"}, ValueError, r"'two.sided' is spelled 'two-sided'"),
        ((TULAP,), {"confidence_level": 95}, ValueError, r"give 0.95, not 95"),
        ((TULAP,), {"n_sim": 100}, ValueError, r"`n_sim`, `rng` and `workers` apply to method='jimi' only"),
        ((TULAP,), {"rng": 1}, ValueError, r"`n_sim`, `rng` and `workers` apply to method='jimi' only"),
        ((TULAP,), {"workers": 2}, ValueError, r"`n_sim`, `rng` and `workers` apply to method='jimi' only"),
        ((LAPLACE,), {"method": "jimi", "n_sim": 0}, ValueError, r"`n_sim` must be an integer >= 1"),
        ((LAPLACE,), {"method": "normal", "two_sided_method": "umpu"}, ValueError,
         r"`two_sided_method` applies to method='ump' only"),
    ],
)
def test_bad_arguments(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        prop_test(*args, **kwargs)


def test_release_from_numbers_validates():
    from dpinfer.inference.prop import _release_from_numbers

    rel = _release_from_numbers(12.7, 30, method="ump", epsilon=1.0, delta=1e-6)
    assert (rel.mechanism, rel.kind, rel.n, rel.delta, rel.sensitivity) == ("tulap", "count", 30, 1e-6, 1.0)
    rel = _release_from_numbers(0.41, 30, method="jimi", epsilon=2.0)
    assert (rel.mechanism, rel.kind, rel.sensitivity) == ("laplace", "proportion", 1 / 30)
    with pytest.raises(ValueError, match=r"`n` must be an integer >= 1; got 0"):
        _release_from_numbers(1.0, 0, method="ump", epsilon=1.0)
    with pytest.raises(ValueError, match=r"`delta` must be 0 for a Laplace release"):
        _release_from_numbers(0.4, 30, method="normal", epsilon=1.0, delta=0.01)
    with pytest.raises(ValueError, match=r"`z` must be a finite real number; got nan"):
        _release_from_numbers(float("nan"), 30, method="ump", epsilon=1.0)


def test_approximation_warning_points_at_the_callers_line():
    # n = 30, epsilon = 1, p0 = 0.1 at the 99% level is a cell where the normal
    # approximation's exact size drifts by more than 20% (tests/inference/normal/test_normal.py).
    import warnings

    from dpinfer import ApproximationWarning, LaplaceReleaser

    rel = LaplaceReleaser(1.0).proportion(3, 30, rng=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        prop_test(rel, 0.1, method="normal", confidence_level=0.99)
    assert [w.category for w in caught] == [ApproximationWarning]
    assert caught[0].filename == __file__
