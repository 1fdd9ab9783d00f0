"""Tests of the two-sample normal-approximation test (dpinfer.inference.normal._two_sample).

Expected values come from tests/reference/normal_values.json (mpmath, 50 digits,
made by tests/reference/make_normal.py without importing dpinfer), from hand
derivations written here, and from statsmodels (non-private limit: ``proportions_ztest``,
``test_proportions_2indep``, ``confint_proportions_2indep``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats import proportion as sm_proportion  # its test_* names would be collected
from statsmodels.stats.proportion import confint_proportions_2indep, proportions_ztest

from dpinfer import LaplaceReleaser, Release, TulapReleaser, binom2_normal_test

REF = json.loads((Path(__file__).parents[2] / "reference" / "normal_values.json").read_text())
_LAP = LaplaceReleaser(1.0).proportion(10, 30, rng=1)
_TULAP = TulapReleaser(1.0).release(10, 30, rng=1)


@pytest.mark.filterwarnings("ignore::dpinfer.ApproximationWarning")  # subject: the numbers, not the coverage warning
@pytest.mark.parametrize("case", REF["two_sample"], ids=lambda c: f"{c['pi1']}-{c['pi2']}-{c['alternative']}")
def test_two_sample_against_mpmath(case):
    res = binom2_normal_test(case["pi1"], case["n1"], case["pi2"], case["n2"],
                             epsilon=(case["epsilon1"], case["epsilon2"]),
                             alternative=case["alternative"], confidence_level=case["confidence_level"])
    assert res.statistic == pytest.approx(float(case["statistic"]), rel=1e-12)
    assert res.pvalue == pytest.approx(float(case["pvalue"]), rel=1e-9)
    assert [res.conf_int.low, res.conf_int.high] == pytest.approx(
        [float(v) for v in case["conf_int"]], abs=1e-12)
    assert res.null_value == 0.0
    assert res.epsilon == case["epsilon1"] + case["epsilon2"]
    # The estimate is the interval's centre pi1 - pi2, clipped to [-1, 1].
    assert res.estimate == pytest.approx(min(max(case["pi1"] - case["pi2"], -1.0), 1.0), abs=1e-15)


def test_two_sample_by_hand():
    # pi1 = 0.6, n1 = 50, pi2 = 0.4, n2 = 50, epsilon = 2 each (Release records: 0.6 = 30 / 50
    # typed as a number is refused as a confidential count; the arithmetic needs these digits):
    # pbar = 0.5, sd0^2 = 0.25 * 0.04 + 2 * 2 / 100^2 = 0.0104, z = 0.2 / sqrt(0.0104)
    a, b = (Release(v, "laplace", 2.0, 0.0, 1.0 / 50, 50, "proportion") for v in (0.6, 0.4))
    res = binom2_normal_test(a, pi_hat2=b, alternative="greater")
    z = 0.2 / math.sqrt(0.0104)
    assert res.statistic == pytest.approx(z, rel=1e-14)
    assert res.pvalue == pytest.approx(0.5 * math.erfc(z / math.sqrt(2.0)), rel=1e-12)


@pytest.mark.parametrize("x1, n1, x2, n2", [(50, 80, 34, 75), (5, 20, 12, 30)])
def test_two_sample_large_epsilon_matches_statsmodels(x1, n1, x2, n2):
    res = binom2_normal_test(x1 / n1, n1, x2 / n2, n2, epsilon=1e9)
    z, p = proportions_ztest([x1, x2], [n1, n2])
    lo, hi = confint_proportions_2indep(x1, n1, x2, n2, method="wald", compare="diff")
    assert res.statistic == pytest.approx(z, rel=1e-8)
    assert res.pvalue == pytest.approx(p, rel=1e-7)
    assert [res.conf_int.low, res.conf_int.high] == pytest.approx([lo, hi], abs=1e-9)


@pytest.mark.parametrize("alternative, sm_alternative", [("two-sided", "two-sided"), ("greater", "larger"),
                                                      ("less", "smaller")])
@pytest.mark.parametrize("x1, n1, x2, n2", [(50, 80, 34, 75), (5, 20, 12, 30)])
def test_two_sample_large_epsilon_is_statsmodels_score_test(x1, n1, x2, n2, alternative, sm_alternative):
    # Non-private limit: the pooled z test is statsmodels' score test of theta1 - theta2 = 0
    # (the constrained MLE under equality is the pooled proportion; no small-sample
    # correction), every alternative; a one-sided 95% bound is an end of the 90% Wald interval.
    res = binom2_normal_test(x1 / n1, n1, x2 / n2, n2, epsilon=1e9, alternative=alternative)
    ref = sm_proportion.test_proportions_2indep(x1, n1, x2, n2, value=0.0, method="score", compare="diff",
                                                alternative=sm_alternative, correction=False)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-8)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-7)
    lo, hi = confint_proportions_2indep(x1, n1, x2, n2, method="wald", compare="diff", alpha=0.1)
    if alternative == "greater":
        assert (res.conf_int.low, res.conf_int.high) == pytest.approx((lo, 1.0), abs=1e-9)
    elif alternative == "less":
        assert (res.conf_int.low, res.conf_int.high) == pytest.approx((-1.0, hi), abs=1e-9)


@pytest.mark.parametrize("args, kwargs, exc, match", [
    ((0.4013, 30), dict(epsilon=1.0), TypeError, "`pi_hat2` is required"),
    ((0.4013, 30, 0.5013), dict(epsilon=1.0), TypeError, "`n2` is required"),
    ((0.4013, 30, 0.5013, 30), dict(epsilon=(1.0, None)), TypeError, "`epsilon` is required when `pi_hat2`"),
    ((0.4013, None, 0.5013, 30), dict(epsilon=1.0), TypeError, "`n1` is required"),
    ((0.4013, 30, 0.5013, 30), dict(epsilon=(0.0, 1.0)), ValueError, "`epsilon` must be a positive"),
    (("a", 30, 0.5013, 30), dict(epsilon=1.0), TypeError, "`pi_hat1` must be a real number"),
    ((0.4013, 30, [np.nan], 30), dict(epsilon=1.0), ValueError, "`pi_hat2` must contain only"),
    ((0.4013, -3, 0.5013, 30), dict(epsilon=1.0), ValueError, "`n1` must be an integer >= 1"),
    ((0.4013, 30, 0.5013, 0), dict(epsilon=1.0), ValueError, "`n2` must be an integer >= 1"),
    ((0.4013, 30, 0.5013, True), dict(epsilon=1.0), TypeError, "`n2` must be an integer"),
    ((0.4013, 30, 0.5013, 30), dict(epsilon=(1.0, np.nan)), ValueError, "`epsilon` must be"),
    ((0.4013, 30, 0.5013, 30), dict(epsilon=1.0, alternative=None), TypeError,
     "`alternative` must be one of"),
    ((0.4013, 30, 0.5013, 30), dict(epsilon=1.0, confidence_level=0.2, alternative="less"),
     ValueError, "at least 0.5 for a one-sided"),
    (([0.1013, 0.2013], 30, [0.3013, 0.4013, 0.5013], 30), dict(epsilon=1.0), ValueError,
     "broadcastable shapes"),
    ((0.4013, 30, 0.5013, 30), dict(epsilon=1.0, alternative="two.sided"), ValueError,
     "spelled 'two-sided'"),
    ((0.4013, 30, 0.5013, 30), dict(epsilon=1.0, confidence_level=95), ValueError,
     "not 95"),
    ((_TULAP,), dict(pi_hat2=0.5013, n2=30, epsilon=(None, 1.0)), ValueError, "`pi_hat1` is a Tulap release"),
    ((_LAP,), dict(n1=30, pi_hat2=0.5013, n2=30, epsilon=(None, 1.0)), ValueError, "`n1` must not be given"),
    ((0.4013, 30, _LAP), dict(epsilon=1.0), ValueError, "`epsilon` must not be given when `pi_hat2`"),
])
def test_bad_two_sample_inputs(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        binom2_normal_test(*args, **kwargs)


def test_two_sample_estimate_lies_in_its_interval():
    # pi1 = 1.2013 is outside [0, 1]; the estimate is pi1 - pi2 = 0.7 (clipped to [-1, 1]),
    # the centre of the Wald interval, so it must lie inside that interval.
    r = binom2_normal_test(1.2013, 30, 0.5013, 1000, epsilon=1.0)
    assert r.estimate == pytest.approx(0.7, abs=1e-15)
    assert r.conf_int.low <= r.estimate <= r.conf_int.high
