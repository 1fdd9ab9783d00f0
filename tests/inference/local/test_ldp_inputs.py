"""Local-DP inference across mechanisms: printed results, and every bad-input error path."""

import numpy as np
import pytest

import dpinfer
from dpinfer import (
    KRRReleaser,
    LocalLaplaceReleaser,
    RandomizedResponseReleaser,
    UnaryEncodingReleaser,
    krr_frequency_ci,
    krr_frequency_estimate,
    krr_gof_test,
    ldp_histogram_bins,
    ldp_histogram_density,
    local_laplace_mean_ci,
    local_laplace_mean_estimate,
    local_laplace_mean_se,
    project_to_simplex,
    rr_proportion_ci,
    rr_proportion_estimate,
    rr_proportion_se,
    rr_proportion_test,
    rr_two_sample_test,
    unary_frequency_ci,
    unary_frequency_cov,
    unary_frequency_estimate,
    unary_gof_test,
)


def test_results_print_and_mechanisms():
    res = rr_proportion_test(yes_count=60, n=100, p0=0.5, epsilon=1.0)
    text = str(res)
    assert "Exact binomial test on randomized response reports" in text and "privacy: epsilon = 1" in text
    res = krr_gof_test(counts=[30, 50, 20], p0=[0.2, 0.5, 0.3], epsilon=1.0)
    assert res.alternative == "greater" and res.estimate is None and "X-squared" in str(res)
    assert res.parameter == 2 and "df = 2" in str(res)
    res = unary_gof_test(bit_counts=[30, 50, 20, 10], n=100, p0=[0.25] * 4, epsilon=1.0)
    assert res.parameter == 3 and res.to_dict()["mechanism"] == "unary_encoding"


_RR = RandomizedResponseReleaser(1.0).release([0, 1, 1], rng=0)
_UE = UnaryEncodingReleaser(1.0, 3).release([0, 1, 1], rng=0)
_KRR = KRRReleaser(1.0, 3).release([0, 1, 2], rng=0)
_LAP = LocalLaplaceReleaser(1.0, 1.0).release([0.0, 0.5], rng=0)
_LAPLACE_CENTRAL = dpinfer.LaplaceReleaser(1.0).proportion(3, 10, rng=0)


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: rr_proportion_estimate(), ValueError, "give either `reports` or both `yes_count` and `n`"),
        (lambda: rr_proportion_estimate([0, 1]), ValueError, r"give `epsilon` \(Warner's RR\) or `p1` and `p2`"),
        (lambda: rr_proportion_estimate([0, 2], epsilon=1.0), ValueError, "`reports` must contain only 0 and 1"),
        (lambda: rr_proportion_estimate(yes_count=11, n=10, epsilon=1.0), ValueError, "`yes_count` must lie between 0 and `n`"),
        (lambda: rr_proportion_estimate(yes_count=1, n=0, epsilon=1.0), ValueError, "`n` must be an integer >= 1"),
        (lambda: rr_proportion_estimate(_RR, epsilon=1.0), ValueError, "`epsilon` must not be given"),
        (lambda: rr_proportion_estimate(_RR, n=3), ValueError, "`n` must not be given"),
        (lambda: rr_proportion_estimate(_LAPLACE_CENTRAL), ValueError, "Laplace release of kind 'proportion', which rr_proportion_estimate does not take"),
        (lambda: rr_proportion_estimate([0, 1], epsilon=1.0, p1=0.5, p2=0.5), ValueError, "not both"),
        (lambda: rr_proportion_estimate([0, 1], p1=0.5), ValueError, "give both `p1` and `p2`"),
        (lambda: rr_proportion_estimate([0, 1], p1=1.5, p2=0.5), ValueError, r"`p1` must lie in \(0, 1\)"),
        (lambda: rr_proportion_estimate([0, 1], epsilon=-1), ValueError, "`epsilon` must be a positive"),
        (lambda: rr_proportion_se(_RR, estimand="both"), ValueError, "`estimand` must be one of"),
        (lambda: rr_proportion_se(_RR, estimand=1), TypeError, "`estimand` must be one of"),
        (lambda: rr_proportion_ci(_RR, method="wilson"), ValueError, "`method` must be one of 'exact', 'wald'"),
        (lambda: rr_proportion_ci(_RR, confidence_level=95), ValueError, r"give 0.95, not 95"),
        (lambda: rr_proportion_ci(_RR, alternative="two.sided"), ValueError, "`alternative` must be one of"),
        (lambda: rr_proportion_test(_RR, p0=1.2), ValueError, r"`p0` must lie in \[0, 1\]"),
        (lambda: rr_two_sample_test(_RR), ValueError, "give either `reports2` or both `yes_count2` and `n2`"),
        (lambda: krr_frequency_estimate(_KRR), ValueError, "`k` .* must be given"),
        (lambda: krr_frequency_estimate(_KRR, k=2), ValueError, "needs `k` > 2"),
        (lambda: krr_frequency_estimate([0, 1], k=3), ValueError, "`epsilon` must be given"),
        (lambda: krr_frequency_estimate([0, 3], k=3, epsilon=1.0), ValueError, "`reports` must contain labels"),
        (lambda: krr_frequency_estimate(counts=[1, 2], k=3, epsilon=1.0), ValueError, "last axis of length k = 3"),
        (lambda: krr_frequency_estimate(counts=[1, -2, 3], k=3, epsilon=1.0), ValueError, "non-negative whole"),
        (lambda: krr_frequency_estimate(counts=[0, 0, 0], k=3, epsilon=1.0), ValueError, "at least one report"),
        (lambda: krr_frequency_ci(_KRR, k=3, method="sidak"), ValueError, "`method` must be one of"),
        (lambda: krr_gof_test(_KRR), ValueError, "`p0` .* must be given"),
        (lambda: krr_gof_test(_KRR, [0.5, 0.6, -0.1]), ValueError, "`p0` must be non-negative and sum to 1"),
        (lambda: krr_gof_test(_KRR, [0.5, 0.5], k=3), ValueError, "`p0` must have length k = 3"),
        (lambda: krr_gof_test(_UE, [0.5, 0.25, 0.25]), ValueError, "unary encoding release of kind 'reports', which krr_gof_test does not take.*use robust_frequency_estimate, unary_frequency_estimate[.]"),
        (lambda: unary_frequency_estimate([[0, 1]]), ValueError, "`epsilon` must be given"),
        (lambda: unary_frequency_estimate([0, 1], epsilon=1.0), ValueError, r"shape \(..., n, d\)"),
        (lambda: unary_frequency_estimate(bit_counts=[3, 4], n=3, epsilon=1.0), ValueError, "between 0 and `n` = 3"),
        (lambda: unary_frequency_estimate(bit_counts=[3, 4], epsilon=1.0), ValueError, "both `bit_counts` and `n`"),
        (lambda: unary_frequency_estimate(_UE, n=3), ValueError, "`n` must not be given"),
        (lambda: unary_gof_test(_UE, [0.5, 0.5]), ValueError, "`p0` must have length d = 3"),
        (lambda: unary_frequency_ci(_UE, confidence_level=0.0), ValueError, "`confidence_level` must lie"),
        (lambda: project_to_simplex([np.nan, 1.0]), ValueError, "`v` must contain only finite"),
        (lambda: local_laplace_mean_ci([0.1, 0.2]), ValueError, "`epsilon` and `bound` must be given"),
        (lambda: local_laplace_mean_ci([0.1], epsilon=1.0, bound=1.0), ValueError, "at least 2 respondents"),
        (lambda: local_laplace_mean_ci(_LAP, bound=1.0), ValueError, "`bound` must not be given"),
        (lambda: local_laplace_mean_ci([0.1, 0.2], epsilon=1.0, bound=-1.0), ValueError, "`bound` must be a positive"),
        (lambda: local_laplace_mean_se(_LAP, estimand="x"), ValueError, "`estimand` must be one of"),
        (lambda: ldp_histogram_bins(100, 1.0, beta=2.0), ValueError, r"`beta` must lie in \(0, 1\]"),
        (lambda: ldp_histogram_bins(0, 1.0), ValueError, "`n` must be an integer >= 1"),
        (lambda: ldp_histogram_density([[0.1, 0.2]]), ValueError, "`epsilon` must be given"),
        (lambda: ldp_histogram_density([0.1, 0.2], epsilon=1.0), ValueError, r"shape \(..., n, K\)"),
        (lambda: rr_two_sample_test(_RR, _RR, alternative="bigger"), ValueError, "`alternative` must be one of"),
        (lambda: rr_proportion_test(_UE), ValueError, "unary encoding release of kind 'reports', which rr_proportion_test does not take"),
        (lambda: krr_frequency_estimate([0, 1], counts=[1, 1], k=2, epsilon=1.0), ValueError, "`counts` must not be given"),
        (lambda: local_laplace_mean_estimate(None), ValueError, "`reports` .* must be given"),
        (lambda: local_laplace_mean_ci(_RR), ValueError, "randomized response release of kind 'reports', which local_laplace_mean_ci does not take"),
        (lambda: ldp_histogram_bins(100, 0.0), ValueError, "`epsilon` must be a positive finite number"),
        (lambda: ldp_histogram_bins(100, 1.0, beta="a"), TypeError, "`beta` must be a real number"),
        (lambda: ldp_histogram_density(_LAP), ValueError, "local Laplace release of kind 'reports', which ldp_histogram_density does not take"),
        (lambda: rr_proportion_estimate(yes_count=1, n=3, epsilon=1e-300), ValueError, "`epsilon` = 1e-300 is too small"),
        (lambda: krr_frequency_estimate(counts=[1, 2], k=2, epsilon=1e-300), ValueError, "`epsilon` = 1e-300 is too small"),
        (lambda: unary_frequency_cov(bit_counts=[1, 2], n=3, epsilon=1e-300), ValueError, "`epsilon` = 1e-300 is too small"),
        (lambda: local_laplace_mean_ci([0.1, 0.2], epsilon=1e-300, bound=1e300), ValueError, "overflows a double"),
    ],
)
def test_bad_inputs(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_local_laplace_report_too_large_for_a_variance_is_refused():
    # (1.9e154)^2 overflows; found by the fuzz suite as a foreign RuntimeWarning.
    from dpinfer import local_laplace_mean_ci

    with pytest.raises(ValueError, match=r"`reports` must lie within \+-1e150"):
        local_laplace_mean_ci([0.0, 1.9e154], epsilon=1.0, bound=1.0)
