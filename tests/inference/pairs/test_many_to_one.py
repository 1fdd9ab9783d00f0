"""Many arms against one control: the Dunnett-type tail (mpmath, multcomp), family-wise error, the result."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from dpinfer import (
    LaplaceReleaser,
    TulapReleaser,
    adjust_pvalues,
    binom2_ump_test,
    binom_many_to_one_test,
)
from dpinfer.inference.pairs._dunnett import max_tail
from validation.pairs_arms import critical, simulate_fwer

REFERENCE_PATH = Path(__file__).parents[2] / "reference" / "dunnett_values.json"


def test_tails_and_critical_value_match_the_mpmath_reference():
    # tests/reference/make_dunnett.py: direct summation over the counts, tanh-sinh quadrature over
    # the control's noise between the integrand's breakpoints (mpmath, 25 digits)
    ref = json.loads(REFERENCE_PATH.read_text())
    for case in ref["tails"]:
        value = max_tail(case["arms"], case["control"], [case["epsilon"]] * (len(case["arms"]) + 1),
                         case["theta0"], case["margin"], case["u"], case["two_sided"])
        assert value == pytest.approx(float(case["value"]), rel=1e-10)
    crit = ref["critical"]
    args = (crit["arms"], crit["control"], [crit["epsilon"]] * (len(crit["arms"]) + 1), crit["theta0"],
            crit["margin"])
    u = float(crit["u"])
    assert max_tail(*args, u, crit["two_sided"]) == pytest.approx(0.05, rel=1e-10)


@pytest.mark.parametrize("alternative, calpha", [("greater", 2.0621247327), ("two-sided", 2.3484498267)])
def test_normal_limit_matches_multcomp_dunnett_critical_values(alternative, calpha):
    # R 4, multcomp 1.4: set.seed(1); g <- factor(rep(c("C","A","B","D"), each = 5000),
    #   levels = c("C","A","B","D")); y <- rnorm(20000); fit <- aov(y ~ g);
    #   attr(confint(glht(fit, linfct = mcp(g = "Dunnett"), alternative = alt))$confint, "calpha")
    # (3 arms against a control, equal sizes, df = 19996: the normal limit; |calpha| printed).
    # Our exact tail at n = 2000 per arm, epsilon = 50 (noise negligible), theta = 1/2, at the
    # multcomp critical value on our scale (U_k has standard deviation 1/2 there): 0.05 up to the
    # normal approximation of the binomial (O(1/n)) and mvtnorm's integration error (1e-3 in
    # probability at most, its default abseps)
    value = max_tail([2000] * 3, 2000, [50.0] * 4, 0.5, 0.0, calpha / 2, alternative == "two-sided")
    assert value == pytest.approx(0.05, abs=1e-3)


# (validation/pairs_arms.py checks three other settings with 20 000 trials each)
@pytest.mark.parametrize("sizes, n0, epsilon, theta", [((20, 40), 30, 2.0, 0.5)])
def test_family_wise_error_is_at_most_alpha_by_monte_carlo(sizes, n0, epsilon, theta):
    # u* (bisection on the package's supremum tail to 1e-9, the upper end), then 4000 seeded
    # global-null trials through TulapReleaser, rejected by the procedure's own rule:
    # FWER <= 0.05 + 4 SE (SE = sqrt(0.05 0.95 / 4000) = 0.0034)
    u_star = critical(sizes, n0, epsilon)
    rate = simulate_fwer(sizes, n0, epsilon, theta, u_star, 4000, np.random.default_rng(2026))
    assert rate <= 0.05 + 4 * math.sqrt(0.05 * 0.95 / 4000)


@pytest.fixture(scope="module")
def trial():
    rel = TulapReleaser(epsilon=1.0)
    control = rel.release(12, 40, rng=1)
    arms = [rel.release(14, 40, rng=2), rel.release(27, 40, rng=3)]
    return control, arms


def test_per_arm_pvalues_are_the_exact_two_arm_tests_and_holm_adjusts_them(trial):
    control, arms = trial
    res = binom_many_to_one_test(control, arms, alternative="greater", adjust="holm")
    raw = [binom2_ump_test(a, control, alternative="greater", composition="sequential",
                           statistic="difference").pvalue for a in arms]
    assert list(res.pvalue) == raw
    assert list(res.adjusted) == adjust_pvalues(raw, "holm").tolist()
    # Dunnett's single step is never above Bonferroni (the max-statistic tail is at most the sum)
    dunnett = binom_many_to_one_test(control, arms, alternative="greater")
    assert all(d <= min(1.0, 2 * p) + 1e-9 for d, p in zip(dunnett.adjusted, raw))
    assert all(d >= p - 1e-9 for d, p in zip(dunnett.adjusted, raw))


def test_result_prints_like_glht_with_the_privacy_lines_and_converts(trial):
    control, arms = trial
    res = binom_many_to_one_test(control, arms, adjust="hochberg", names=["low dose", "high dose"])
    text = str(res)
    assert "Simultaneous Tests" in text and "Pr(adj)" in text and "low dose == 0" in text
    assert "privacy: epsilon = 3, delta = 0, sequential composition" in text
    record = json.loads(json.dumps(res.to_dict()))
    assert record["names"] == ["low dose", "high dose"] and record["adjust"] == "hochberg"
    frame = res.to_frame()
    assert list(frame["contrast"]) == ["low dose", "high dose"]
    for ci in res.conf_int:  # Bonferroni: each arm's exact interval at 1 - 0.05 / 2
        assert ci.level == 0.95 and ci.low < ci.high


def test_composition_is_decided_by_the_one_rule(trial):
    control, arms = trial
    # releases that record no disjoint groups: sequential (the sum), unless the design says parallel
    assert binom_many_to_one_test(control, arms, adjust="bonferroni").epsilon == 3.0
    res = binom_many_to_one_test(control, arms, adjust="bonferroni", composition="parallel")
    assert res.composition == "parallel" and res.epsilon == 1.0


def test_errors(trial):
    control, arms = trial
    with pytest.raises(TypeError, match="`control` must be a Release"):
        binom_many_to_one_test(12.5, arms)
    with pytest.raises(TypeError, match="`arms` must be a list of Releases; position 1"):
        binom_many_to_one_test(control, [arms[0], 3.5])
    with pytest.raises(ValueError, match="at least one release"):
        binom_many_to_one_test(control, [])
    with pytest.raises(ValueError, match="`adjust` must be one of"):
        binom_many_to_one_test(control, arms, adjust="tukey")
    with pytest.raises(ValueError, match=r"`margin` must be in \(-1, 1\)"):
        binom_many_to_one_test(control, arms, margin=2.0)
    with pytest.raises(ValueError, match="`names` must be a list of 2 strings"):
        binom_many_to_one_test(control, arms, names=["a"])
    lap = LaplaceReleaser(1.0).count(14, 40, rng=2)
    with pytest.raises(ValueError, match="adjust='dunnett' needs Tulap counts"):
        binom_many_to_one_test(control, [lap])
