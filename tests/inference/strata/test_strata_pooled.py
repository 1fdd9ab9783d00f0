"""The pooled proportion of several sites: its law against mpmath, its limits, its errors."""

import json
import pathlib

import numpy as np
import pytest
from scipy import stats

from dpinfer import PrivacyBudget, Release, TulapReleaser, binom_pooled_test, prop_test
from dpinfer.inference.strata._arguments import site_list
from dpinfer.inference.strata._pooled import _pvalues, _tails

REFERENCE = json.loads((pathlib.Path(__file__).parents[2] / "reference" / "strata_values.json").read_text())


def _release(value, n, epsilon, sensitivity=1):
    return Release(value=value, mechanism="tulap", epsilon=epsilon, delta=0.0, sensitivity=sensitivity, n=n,
                   kind="count")


def _reference_sites():
    case = REFERENCE["pooled"]
    return [_release(z, n, e) for z, n, e in zip(case["z"], case["n"], case["epsilon"])]


@pytest.mark.parametrize("row", REFERENCE["pooled"]["tails"], ids=lambda r: f"theta={r['theta']}")
def test_pooled_tails_match_direct_summation_and_quadrature(row):
    # tests/reference/make_strata.py: nested sums over counts and noise cells, quadrature of the uniforms
    upper, lower, big_n, _ = _tails(site_list(_reference_sites(), "t", minimum=2))
    greater, less = _pvalues(upper, lower, big_n, row["theta"])
    assert greater == pytest.approx(row["greater"], abs=1e-10)
    assert less == pytest.approx(row["less"], abs=1e-10)


def test_public_pvalues_are_the_reference_tails_at_p0():
    row = REFERENCE["pooled"]["tails"][1]
    sites = _reference_sites()
    greater = binom_pooled_test(sites, row["theta"], alternative="greater").pvalue
    less = binom_pooled_test(sites, row["theta"], alternative="less").pvalue
    two = binom_pooled_test(sites, row["theta"]).pvalue
    assert greater == pytest.approx(row["greater"], abs=1e-10)
    assert less == pytest.approx(row["less"], abs=1e-10)
    assert two == pytest.approx(2 * min(row["greater"], row["less"]), abs=2e-10)


def test_interval_ends_are_where_the_one_sided_pvalues_cross_the_level():
    sites = _reference_sites()
    res = binom_pooled_test(sites, 0.5, confidence_level=0.9)
    low, high = res.conf_int
    assert binom_pooled_test(sites, low, alternative="greater").pvalue == pytest.approx(0.05, abs=1e-9)
    assert binom_pooled_test(sites, high, alternative="less").pvalue == pytest.approx(0.05, abs=1e-9)


def test_non_private_limit_is_bracketed_by_the_exact_binomial_test():
    # epsilon = 40: the integer noise is 0 but for 2e-17; T = X + W with |W| < S/2
    ns, xs = (40, 55, 35), (14, 22, 9)
    sites = [TulapReleaser(epsilon=40.0).release(x, n, rng=7 + i) for i, (x, n) in enumerate(zip(xs, ns))]
    t, big_n = sum(s.value for s in sites), sum(ns)
    for p0 in (0.2, 0.3, 0.45):
        p = binom_pooled_test(sites, p0, alternative="greater").pvalue
        hi = stats.binomtest(int(np.floor(t - 1.5)), big_n, p0, alternative="greater").pvalue
        lo = stats.binomtest(int(np.ceil(t + 1.5)), big_n, p0, alternative="greater").pvalue
        assert lo - 1e-12 <= p <= hi + 1e-12
        # and the pooled count itself (45) is the one binomtest would use
        assert stats.binomtest(sum(xs), big_n, p0, alternative="greater").pvalue <= hi


def test_sites_with_different_epsilons_and_sensitivity_print_each_budget():
    sites = [TulapReleaser(epsilon=0.5).release(12, 40, rng=1), TulapReleaser(epsilon=2.0).release(30, 60, rng=2),
             TulapReleaser(epsilon=1.0, sensitivity=2).release(8, 30, rng=3)]
    res = binom_pooled_test(sites, 0.3)
    assert "site 1: epsilon = 0.5; site 2: epsilon = 2; site 3: epsilon = 1 (sensitivity 2)" in res.note
    assert res.epsilon == pytest.approx(3.5)  # sequential: the releases record no disjoint groups
    assert "privacy: epsilon = 3.5" in str(res)


def test_ledger_of_a_multi_site_release_shows_each_site_budget():
    budget = PrivacyBudget(epsilon=2.0)
    sites = budget.parallel("sites")
    releases = [TulapReleaser(epsilon=e).release(x, n, rng=i, budget=sites.group(f"site {i}"))
                for i, (e, x, n) in enumerate([(0.5, 10, 40), (1.0, 20, 50), (2.0, 15, 30)])]
    entries = budget.ledger
    assert sorted(e.epsilon for e in entries) == [0.5, 1.0, 2.0]
    assert budget.spent_epsilon == pytest.approx(2.0)  # parallel: the largest
    res = prop_test(releases, p0=0.3)
    assert res.pvalue == binom_pooled_test(releases, 0.3).pvalue
    # the result records the composition it used (R's dp_privacy(res)$composition reads it)
    assert res.composition == "parallel" and res.epsilon == budget.spent_epsilon
    assert binom_pooled_test(releases, 0.3, composition="sequential").composition == "sequential"


def test_prop_test_call_shapes():
    sites = [TulapReleaser(epsilon=1.0).release(x, 50, rng=i) for i, x in enumerate((20, 25, 18))]
    assert prop_test(sites, p0=0.4) == binom_pooled_test(sites, 0.4)
    assert prop_test(sites[:2], p0=0.4, pooled=True) == binom_pooled_test(sites[:2], 0.4)
    assert prop_test(sites[:2]).estimate_name == "difference in proportions"  # two arms, as before
    with pytest.raises(ValueError, match="`pooled`=False: prop_test compares two arms"):
        prop_test(sites, pooled=False)
    with pytest.raises(ValueError, match="`pooled`=True needs a list of Releases"):
        prop_test(sites[0], pooled=True)
    with pytest.raises(TypeError, match="`pooled` must be None, True or False"):
        prop_test(sites, pooled="yes")
    with pytest.raises(ValueError, match="`margin` and `effect` apply to two arms"):
        prop_test(sites, margin=0.1)
    with pytest.raises(ValueError, match="`epsilon` does not apply to several sites"):
        prop_test(sites, epsilon=1.0)
    with pytest.raises(ValueError, match="`method`='jimi' does not apply"):
        prop_test(sites, method="jimi")


def test_refusals_name_the_argument_and_the_reason():
    tulap = TulapReleaser(epsilon=1.0).release(10, 30, rng=1)
    laplace = (r"`releases\[1\]` is a Laplace release of kind .count., which binom_pooled_test does not take: .* "
               "release every site with TulapReleaser")
    with pytest.raises(ValueError, match=laplace):
        from dpinfer import LaplaceReleaser
        binom_pooled_test([tulap, LaplaceReleaser(epsilon=1.0, sensitivity=1.0).count(10, 30, rng=2)])
    with pytest.raises(ValueError, match=r"`releases\[1\]` has delta = 0.001; .* needs delta = 0"):
        binom_pooled_test([tulap, TulapReleaser(epsilon=1.0, delta=1e-3).release(10, 30, rng=2)])
    with pytest.raises(ValueError, match="at least 2 releases; got 1"):
        binom_pooled_test([tulap])
    with pytest.raises(TypeError, match="`releases` must be a list of Releases"):
        binom_pooled_test(tulap)
    with pytest.raises(TypeError, match=r"`releases\[1\]` must be a dpinfer Release"):
        binom_pooled_test([tulap, 3.5])
    with pytest.raises(ValueError, match="`p0`"):
        binom_pooled_test([tulap, tulap], 1.0)


def test_homogeneity_is_the_two_arm_test_for_two_sites_and_bonferroni_beyond():
    from dpinfer import binom2_ump_test, binom_homogeneity_test

    sites = [TulapReleaser(epsilon=e).release(x, n, rng=i)
             for i, (e, x, n) in enumerate([(1.0, 8, 30), (2.0, 21, 30), (1.0, 12, 30)])]
    two = binom_homogeneity_test(sites[:2])
    assert two.pvalue == binom2_ump_test(sites[0], sites[1]).pvalue
    three = binom_homogeneity_test(sites)
    pairs = [binom2_ump_test(sites[r], sites[s]).pvalue for r, s in ((0, 1), (0, 2), (1, 2))]
    assert three.pvalue == min(1.0, 3 * min(pairs)) and three.parameter == 3
    with pytest.raises(ValueError, match="holds 9 sites; binom_homogeneity_test takes at most 8"):
        binom_homogeneity_test(sites * 3)


def test_noise_too_wide_for_the_exact_convolution_is_refused_from_public_numbers():
    sites = [TulapReleaser(epsilon=0.05).release(10, 30, rng=i) for i in range(4)]
    with pytest.raises(ValueError, match="too wide for the exact convolution .* many sites: 4.59e"):
        binom_pooled_test(sites)


def test_a_count_of_sensitivity_two_has_the_noise_of_half_its_epsilon():
    # TulapReleaser releases a count of sensitivity k with the unit law of epsilon / k (same grid)
    other = _release(12.3125, 40, 1.0)
    k2 = _release(7.6875, 30, 2.0, sensitivity=2)
    k1 = _release(7.6875, 30, 1.0)
    for alternative in ("greater", "less"):
        assert (binom_pooled_test([other, k2], 0.3, alternative=alternative).pvalue
                == binom_pooled_test([other, k1], 0.3, alternative=alternative).pvalue)
