"""prop_test on two releases (issue 25 item 2): routed to the two-arm test of their mechanism.

prop_test adds no statistics for two arms: its answer is the answer of the function it
routes to (binom2_ump_test, binom2_jimi_test, binom2_normal_test) with the same arguments;
the values of those functions are checked against independent references in their own
tests (tests/inference/two_arm/, test_jimi_two_sample.py, test_normal_two_sample.py).
"""

import warnings

import pytest

from dpinfer import (
    LaplaceReleaser,
    TulapReleaser,
    binom2_jimi_test,
    binom2_normal_test,
    binom2_ump_test,
    prop_test,
)
from dpinfer._warnings import ApproximationWarning


@pytest.fixture(scope="module")
def tulap_pair():
    rel = TulapReleaser(epsilon=1.0)
    return rel.release(41, 60, rng=1), rel.release(27, 60, rng=2)


@pytest.fixture(scope="module")
def laplace_pair():
    rel = LaplaceReleaser(epsilon=1.0)
    return rel.proportion(41, 60, rng=1), rel.proportion(27, 60, rng=2)


def test_two_tulap_releases_get_the_exact_test_by_every_spelling(tulap_pair):
    a, b = tulap_pair
    expected = binom2_ump_test(a, b)
    for result in (prop_test(a, b), prop_test([a, b]), prop_test((a, b), method="ump"),
                   prop_test([a.value, b.value], [60, 60], epsilon=1.0)):
        assert result.pvalue == expected.pvalue
        assert (result.conf_int.low, result.conf_int.high) == (expected.conf_int.low, expected.conf_int.high)
        assert result.method == expected.method
        assert result.estimate_name == "difference in proportions"


@pytest.mark.parametrize("kwargs", [
    dict(margin=-0.1, alternative="greater"),
    dict(effect="ratio", margin=1.2, alternative="less", confidence_level=0.9),
    dict(composition="sequential"),
])
def test_two_arm_settings_reach_the_exact_test(tulap_pair, kwargs):
    a, b = tulap_pair
    got, expected = prop_test(a, b, **kwargs), binom2_ump_test(a, b, **kwargs)
    assert (got.pvalue, got.null_value, got.epsilon, (got.conf_int.low, got.conf_int.high)) == (
        expected.pvalue, expected.null_value, expected.epsilon, (expected.conf_int.low, expected.conf_int.high))


def test_a_single_release_is_still_tested_against_p0(tulap_pair):
    a, _ = tulap_pair
    assert prop_test(a, 0.3).null_value == 0.3


def test_two_laplace_releases_default_to_the_exact_test(laplace_pair):
    a, b = laplace_pair
    got = prop_test(a, b)
    expected = binom2_ump_test(a, b)
    assert got.pvalue == expected.pvalue
    assert (got.conf_int.low, got.conf_int.high) == (expected.conf_int.low, expected.conf_int.high)
    assert got.method.startswith("Exact unconditional two-sample DP test of proportions (Laplace releases;")
    assert got.mechanism == "laplace" and "summed exactly" in got.note
    # the same with the list form, a margin, a ratio and method='ump' given
    assert prop_test([a, b]).pvalue == got.pvalue
    assert prop_test(a, b, method="ump").pvalue == got.pvalue
    assert prop_test(a, b, margin=0.1).pvalue == binom2_ump_test(a, b, margin=0.1).pvalue
    assert prop_test(a, b, effect="ratio").pvalue == binom2_ump_test(a, b, effect="ratio").pvalue


def test_two_laplace_releases_with_method_jimi(laplace_pair):
    a, b = laplace_pair
    got, expected = prop_test(a, b, method="jimi"), binom2_jimi_test(a, b)
    assert got.pvalue == expected.pvalue
    assert "DP-JIMI" in got.method
    assert prop_test(a, b, method="jimi", margin=0.1).pvalue == binom2_jimi_test(a, b, margin=0.1).pvalue


def test_laplace_pair_with_method_normal(laplace_pair):
    a, b = laplace_pair
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ApproximationWarning)
        got, expected = prop_test(a, b, method="normal"), binom2_normal_test(a, b)
    assert got.pvalue == expected.pvalue


def test_laplace_numbers_with_method_jimi_match_the_function():
    got = prop_test([0.6513, 0.47], [60, 60], epsilon=1.0, method="jimi", n_sim=2000, rng=4)
    expected = binom2_jimi_test(0.6513, 60, 0.47, 60, epsilon=1.0, n_sim=2000, rng=4)
    assert got.pvalue == expected.pvalue


@pytest.mark.parametrize("call, error, match", [
    (lambda t, l: prop_test(t[0], l[1]), ValueError, "same mechanism"),
    (lambda t, l: prop_test(t[0], t[1], method="jimi"), ValueError, r"method='jimi' does not take two Tulap"),
    (lambda t, l: prop_test([t[0], t[1]], 0.1), ValueError, r"`p0` does not apply to two releases"),
    (lambda t, l: prop_test(t[0], margin=0.1), ValueError, r"`margin` applies to two arms"),
    (lambda t, l: prop_test(t[0], 0.2, epsilon=1.0), ValueError, r"`epsilon` applies to two arms"),
    (lambda t, l: prop_test([40.1, 27.3]), TypeError, r"`p0` must be the two arms' sizes"),
    (lambda t, l: prop_test([t[0], 27.3], [60, 60]), TypeError, "two Releases or two numbers"),
    (lambda t, l: prop_test([40.1, 27.3, 11.2], [60, 60, 60]), ValueError, "must hold two releases"),
    (lambda t, l: prop_test(t[0], t[1], two_sided_method="equal-tailed"), ValueError, "two_sided_method"),
    (lambda t, l: prop_test(t[0], t[1], n_sim=100), ValueError, r"`n_sim`, `rng` and `workers` apply to method='jimi'"),
    (lambda t, l: prop_test(l[0], l[1], method="jimi", effect="ratio"), ValueError, "effect='ratio'"),
    (lambda t, l: prop_test(l[0], l[1], method="normal", margin=0.1), ValueError, "equal proportions only"),
    (lambda t, l: prop_test(TulapReleaser(1.0).release([3, 4], 10, rng=1), t[1]), ValueError,
     "arm 1's release must hold one value"),
])
def test_two_arm_refusals(tulap_pair, laplace_pair, call, error, match):
    with pytest.raises(error, match=match):
        call(tulap_pair, laplace_pair)
