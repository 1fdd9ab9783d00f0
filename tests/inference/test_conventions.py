"""One default alternative per question, one method name per test, and the Python API as
careful as the command (issue 27, items 4 and 5)."""

import inspect
import math
import warnings

import numpy as np
import pytest
from scipy import stats

import dpinfer
from dpinfer import (
    InputWarning,
    TulapReleaser,
    binom_normal_power,
    binom_ump_ci,
    binom_ump_phi,
    binom_ump_power,
    binom_ump_sample_size,
    binom_ump_test,
)


# -- item 4: two-sided by default, as the tests and R's power.prop.test ---------------------

@pytest.mark.parametrize("func", [binom_ump_power, binom_ump_phi, binom_ump_sample_size,
                                  binom_normal_power, binom_ump_test, binom_ump_ci,
                                  dpinfer.prop_test, dpinfer.binom_normal_test])
def test_every_question_defaults_to_two_sided(func):
    assert inspect.signature(func).parameters["alternative"].default == "two-sided"


def test_default_normal_power_is_the_two_sided_rejection_probability():
    # independent: the plain sum over x of Binom(x; n, theta) P(x/n + L outside the two-sided
    # acceptance region), L ~ Laplace(0, 1/(eps n)), sd0 of Vu & Slavkovic (2009)
    n, p0, eps, theta = 30, 0.2, 1.0, 0.4
    sd0 = math.sqrt(p0 * (1 - p0) / n + 2 / (eps * n) ** 2)
    z = stats.norm.ppf(0.975)
    x = np.arange(n + 1)
    lap = stats.laplace(scale=1 / (eps * n))
    reject = lap.sf(p0 + z * sd0 - x / n) + lap.cdf(p0 - z * sd0 - x / n)
    want = float(stats.binom.pmf(x, n, theta) @ reject)
    assert binom_normal_power(theta, n, p0, epsilon=eps) == pytest.approx(want, rel=1e-10)


def test_default_ump_power_and_sample_size_are_two_sided():
    # large epsilon: the DP-UMP two-sided (asymptotically unbiased) test tends to the
    # non-private test rejecting when P(|X - n p0| >= |x - n p0|) <= alpha, randomised at the
    # boundary; its power at theta exceeds the one-sided test's power at alpha / 2 and is
    # below the one-sided power at alpha
    n, p0, theta = 30, 0.2, 0.4
    two = binom_ump_power(theta, n, p0, epsilon=1.0)
    assert (binom_ump_power(theta, n, p0, epsilon=1.0, alpha=0.025, alternative="greater")
            <= two < binom_ump_power(theta, n, p0, epsilon=1.0, alternative="greater"))
    n2 = binom_ump_sample_size(theta, p0, epsilon=1.0)
    assert n2 > binom_ump_sample_size(theta, p0, epsilon=1.0, alternative="greater")
    assert binom_ump_power(theta, n2, p0, epsilon=1.0, alternative="two-sided") >= 0.8
    # theta1 below p0 is a valid two-sided question (it was refused under the old default)
    assert binom_ump_sample_size(0.05, p0, epsilon=1.0) >= 1


def test_command_power_and_sample_size_default_to_two_sided(capsys):
    from dpinfer.cli import main

    assert main(["power", "--theta", "0.4", "--n", "30", "--p0", "0.2", "--epsilon", "1",
                 "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert '"alternative": "two-sided"' in out
    assert main(["sample-size", "--theta1", "0.4", "--p0", "0.2", "--epsilon", "1"]) == 0
    assert "alternative = two-sided" in capsys.readouterr().out


def test_method_name_is_the_same_for_every_alternative():
    names = {binom_ump_test(11.2, 30, 0.2, epsilon=1.0, alternative=a).method
             for a in ("two-sided", "less", "greater")}
    assert names == {"DP-UMP test for a binomial proportion (Tulap release)"}
    res = binom_ump_test(11.2, 30, 0.2, epsilon=1.0, alternative="less")
    assert "alternative hypothesis: true probability of success is less than 0.2" in str(res)
    equal = binom_ump_test(11.2, 30, 0.2, epsilon=1.0, two_sided_method="equal-tailed")
    assert "equal-tailed" in equal.method


# -- item 5: the API warns where the command warns, and refuses ignored arguments ----------

def test_a_proportion_given_as_a_count_warns_as_the_command_does():
    with pytest.warns(InputWarning, match=r"`z` = 0.3833 is read as a noisy count.*give `z` = 23"):
        binom_ump_test(0.3833, 60, 0.25, epsilon=1.0)
    with pytest.warns(InputWarning, match="read as a noisy count"):
        binom_ump_ci(0.3833, 60, epsilon=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        binom_ump_test(0.3833, 4, 0.25, epsilon=1.0)  # n < 5: the command's rule is silent too
        binom_ump_test([0.3833, 0.5], 60, 0.25, epsilon=1.0)  # arrays: simulation grids
        binom_ump_test(23.25, 60, 0.25, epsilon=1.0)


def test_the_command_and_the_api_share_one_rule():
    from dpinfer._validation import _looks_like_proportion

    src = inspect.getsource(__import__("dpinfer.cli._input", fromlist=["_"]))
    assert "_looks_like_proportion(value, n)" in src and "InputWarning" in src
    assert _looks_like_proportion(0.38, 60) and not _looks_like_proportion(0.38, 4)
    assert not _looks_like_proportion(1.0, 60) and not _looks_like_proportion(0.0, 60)


@pytest.mark.parametrize("z", [80.5, -50.5])
def test_a_release_no_theta_makes_plausible_warns(z):
    # P(N >= 20) for Tulap(0, e^-1, 0): b^20 (b + (1 - b) / 2) / (1 + b) = e^-20 / 2 (the
    # closed-form cdf of Awan & Slavkovic 2018), about 1e-9 < 1e-6
    b = math.exp(-1.0)
    assert b ** 20 * (b + (1 - b) / 2) / (1 + b) < 1e-6
    with pytest.warns(InputWarning, match="under every theta"):
        binom_ump_test(z, 60, 0.25, epsilon=1.0)
    with pytest.warns(InputWarning, match="under every theta"):
        binom_ump_ci(z, 60, epsilon=1.0)


def test_a_plausible_release_outside_the_range_is_quiet():
    # 5 counts above n: P(N >= 5) = e^-5 / 2 = 3.4e-3 at epsilon = 1, a routine release
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        binom_ump_test(64.5, 60, 0.25, epsilon=1.0)
        binom_ump_test(-4.5, 60, 0.25, epsilon=1.0)
        rel = TulapReleaser(1.0).release(60, 60, rng=1)
        binom_ump_test(rel, 0.25)


def test_a_release_beyond_a_truncated_support_warns():
    with pytest.warns(InputWarning, match="cannot reach that far"):
        binom_ump_test(-50.5, 60, 0.25, epsilon=1.0, delta=0.01)


@pytest.mark.parametrize("call", [
    lambda m: binom_ump_test(11.2, 30, 0.2, epsilon=1.0, alternative="greater", two_sided_method=m),
    lambda m: binom_ump_ci(11.2, 30, epsilon=1.0, alternative="less", two_sided_method=m),
    lambda m: binom_ump_power(0.4, 30, 0.2, epsilon=1.0, alternative="greater", two_sided_method=m),
    lambda m: binom_ump_phi(30, 0.2, epsilon=1.0, alternative="less", two_sided_method=m),
    lambda m: binom_ump_sample_size(0.4, 0.2, epsilon=1.0, alternative="greater",
                                    two_sided_method=m),
])
def test_two_sided_method_with_a_one_sided_alternative_is_refused(call):
    with pytest.raises(ValueError, match="`two_sided_method` applies to alternative='two-sided' only"):
        call("equal-tailed")
    with pytest.raises(ValueError, match="`two_sided_method` applies"):
        call("asymptotically-unbiased")
    call(None)
