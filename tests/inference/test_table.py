"""Independence tests for a noisy contingency table: DP-JIMI and the Gaboardi et al. comparator."""

import numpy as np
import pytest
from scipy import stats

from dpinfer import (
    ContingencyTableReleaser,
    HTestResult,
    LaplaceReleaser,
    independence_jimi_test,
    independence_mc_test,
)

TESTS = [independence_jimi_test, independence_mc_test]


@pytest.mark.parametrize("test", TESTS)
def test_result_fields(test):
    rel = ContingencyTableReleaser(1.0).release([[20, 15, 9], [14, 18, 11]], rng=1)
    res = test(rel, n_sim=500, rng=2)
    assert isinstance(res, HTestResult)
    assert res.alternative == "greater" and res.parameter is None  # simulated p-value: no df shown
    assert res.epsilon == 1.0 and res.delta == 0.0 and res.n_sim == 500 and res.mechanism == "laplace"
    assert "X-squared" in res.statistic_name or "Q-squared" in res.statistic_name
    assert 1 / 501 <= res.pvalue <= 1.0
    assert res.pvalue == test(rel, n_sim=500, rng=2).pvalue  # seeded: reproducible
    assert "privacy" in str(res)


@pytest.mark.parametrize("test", TESTS)
def test_near_noiseless_limit_is_pearson_chi_square(test):
    # epsilon -> infinity: both tests become parametric bootstraps of Pearson's X^2, whose
    # p-value at n = 4000 (every expected count >= 500) is the chi-square p-value
    # (scipy.stats.chi2_contingency, correction=False) to well within 0.01 (the +1/2 of
    # the DP-JIMI statistic moves X^2 by < 0.1%).  Monte Carlo SE = sqrt(p (1 - p) / 20000)
    # <= 0.0036; bound 4 SE + 0.01 for the asymptotic approximation.
    x = np.array([[520, 480, 510, 490], [530, 470, 455, 545]])
    expected = stats.chi2_contingency(x, correction=False).pvalue
    assert 0.05 < expected < 0.5  # the check is informative only away from 0 and 1
    rel = ContingencyTableReleaser(1e4).release(x, rng=5)
    got = test(rel, n_sim=20_000, rng=6).pvalue
    se = np.sqrt(expected * (1 - expected) / 20_000)
    assert abs(got - expected) < 4 * se + 0.01


@pytest.mark.parametrize("test", TESTS)
@pytest.mark.parametrize(("shape", "n", "epsilon", "neighbours"), [
    ((2, 2), 200, 1.0, "replace-one"),
    ((3, 4), 500, 0.5, "add-remove"),
])
def test_size_under_independence(test, shape, n, epsilon, neighbours):
    # Rejection rate at alpha = 0.05 over 400 null tables (seeded); SE = sqrt(.05 .95 / 400)
    # = 0.0109; the test must not exceed 0.05 + 4 SE = 0.0936 (the validation study
    # measures the size on the full grid with more replicates).
    gen = np.random.default_rng(20)
    r, c = shape
    p = np.linspace(1, 2, r) / np.linspace(1, 2, r).sum()
    q = np.linspace(1, 3, c) / np.linspace(1, 3, c).sum()
    margins = "total" if neighbours == "replace-one" else "private"
    releaser = ContingencyTableReleaser(epsilon, neighbours=neighbours, margins=margins)
    tables = gen.multinomial(n, np.outer(p, q).ravel(), size=400).reshape(400, r, c)
    rejections = sum(test(releaser.release(t, rng=gen), n_sim=500, rng=gen).pvalue <= 0.05 for t in tables)
    assert rejections / 400 <= 0.05 + 4 * np.sqrt(0.05 * 0.95 / 400)


@pytest.mark.parametrize("test", TESTS)
def test_detects_strong_association(test):
    rel = ContingencyTableReleaser(1.0).release([[80, 20], [30, 70]], rng=9)
    assert test(rel, n_sim=2000, rng=1).pvalue < 0.01


@pytest.mark.parametrize("test", TESTS)
def test_bad_input(test):
    with pytest.raises(TypeError, match="`release` must be a dpinfer Release of kind 'table'"):
        test([[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="kind 'count', which independence_.*_test does not take: it takes a Laplace-noised contingency table"):
        test(LaplaceReleaser(1.0).count(3, 10, rng=1))
    stack = ContingencyTableReleaser(1.0).release(np.ones((2, 2, 2)), rng=1)
    with pytest.raises(ValueError, match="one r x c table"):
        test(stack)
    rel = ContingencyTableReleaser(1.0).release([[1, 2], [3, 4]], rng=1)
    with pytest.raises(ValueError, match="`n_sim`"):
        test(rel, n_sim=0)
    with pytest.raises(ValueError, match="`n_sim` times the number of cells"):
        test(rel, n_sim=10**8)


@pytest.mark.parametrize("test", [independence_jimi_test, independence_mc_test])
def test_a_table_test_has_no_null_value_as_r_chisq_test(test):
    # R's chisq.test returns no null.value and print.htest then prints no alternative line;
    # a 0.0 "association is greater than 0" was a made-up null (issue 27, command quirks)
    rel = ContingencyTableReleaser(epsilon=1.0).release([[40, 10], [15, 35]], rng=3)
    res = test(rel, n_sim=200, rng=1)
    assert res.null_value is None
    assert "alternative hypothesis" not in str(res)
    assert res.to_htest()["null.value"] is None
    assert res.to_dict()["null_value"] is None
    assert res.to_frame()["null_value"].isna().all()


def test_a_goodness_of_fit_test_has_no_null_value():
    from dpinfer import KRRReleaser, krr_gof_test

    reports = KRRReleaser(epsilon=2.0, k=3).release(np.array([0, 1, 2] * 40), rng=1)
    res = krr_gof_test(reports, [0.3, 0.3, 0.4], k=3)
    assert res.null_value is None and "alternative hypothesis" not in str(res)
