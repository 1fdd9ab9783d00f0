"""prop_test on a released contingency table: routed to the test of independence (issue 20)."""

import numpy as np
import pytest
from scipy import stats

from dpinfer import (ContingencyTableReleaser, LaplaceReleaser, TulapReleaser, independence_jimi_test,
                     independence_mc_test, prop_test)

TABLE = ContingencyTableReleaser(epsilon=1.0).release([[18, 12], [11, 19], [15, 15]], rng=21)  # 3 x 2


def test_default_is_dp_jimi_with_the_functions_defaults():
    res = prop_test(TABLE, rng=5)
    ref = independence_jimi_test(TABLE, rng=5)  # n_sim = 10 000 in both
    assert res == ref and res.n_sim == 10_000
    assert res.pvalue == ref.pvalue and res.statistic == ref.statistic
    # the statistic by an independent route: scipy's Pearson X^2 of max(Z, 0) + 1/2
    clamped = np.maximum(TABLE.value, 0.0) + 0.5
    assert res.statistic == pytest.approx(stats.chi2_contingency(clamped, correction=False).statistic, rel=1e-12)


def test_method_jimi_and_mc_route_to_their_functions():
    assert prop_test(TABLE, method="jimi", n_sim=1500, rng=2).pvalue == \
        independence_jimi_test(TABLE, n_sim=1500, rng=2).pvalue
    mc = prop_test(TABLE, method="mc", n_sim=1500, rng=2)
    assert mc.pvalue == independence_mc_test(TABLE, n_sim=1500, rng=2).pvalue
    assert mc.method.startswith("Monte Carlo test of independence")


def test_homogeneity_pvalue_is_calibrated_under_the_null():
    """k x 2 table with equal proportions (homogeneity holds): the DP-JIMI p-value is not small.

    Not a size study (validation/table_size.py is): a single table from a null with a large
    n, whose p-value is Uniform-like; P(p < 0.001) under H0 is about 0.001, so this check fails
    with probability ~1e-3 for a correct method, and surely for one that rejects everything.
    """
    rng = np.random.default_rng(8)
    counts = np.stack([rng.binomial(200, 0.3, size=3), np.zeros(3, int)], axis=1)
    counts[:, 1] = 200 - counts[:, 0]
    rel = ContingencyTableReleaser(epsilon=1.0).release(counts, rng=9)
    assert prop_test(rel, n_sim=2000, rng=1).pvalue > 0.001


@pytest.mark.parametrize("kwargs, message", [
    ({"method": "ump"}, "method='ump' tests one proportion"),
    ({"method": "normal"}, "method='normal' tests one proportion"),
    ({"method": "exact"}, "`method` must be one of 'jimi', 'mc', 'ump', 'normal'"),
    ({"p0": 0.3}, "`p0`=0.3 do not apply to a table"),
    ({"alternative": "greater"}, "`alternative`='greater' do not apply"),
    ({"confidence_level": 0.9}, "`confidence_level`=0.9 do not apply"),
    ({"two_sided_method": "equal-tailed"}, "`two_sided_method`='equal-tailed' do not apply"),
])
def test_table_refuses_what_does_not_fit(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("'", "'")):
        prop_test(TABLE, **kwargs)


def test_mc_needs_a_table_and_scalars_keep_their_defaults():
    tulap = TulapReleaser(epsilon=1.0).release(11, 30, rng=2024)
    with pytest.raises(ValueError, match="method='mc'.*needs a `release` of kind 'table'"):
        prop_test(tulap, method="mc")
    with pytest.raises(TypeError, match=r"`release` must be a dpinfer Release of kind 'table'.*got a number \(float\)"):
        prop_test(0.3, method="mc")
    # p0=None and method=None mean 0.5 and 'ump' for one value, as before
    assert prop_test(tulap) == prop_test(tulap, 0.5, method="ump")
    laplace = LaplaceReleaser(epsilon=1.0).proportion(11, 30, rng=2024)
    with pytest.raises(ValueError, match=r"prop_test\(method='ump'\) does not take: it takes a Tulap-noised count"):
        prop_test(laplace)
