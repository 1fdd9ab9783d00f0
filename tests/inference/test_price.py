"""The price of privacy printed by the planning functions (issue 41, item 2).

Expected values: ``tests/reference/make_price.py`` (the randomized exact tests without noise,
enumerated without dpinfer), R 4.2.2's ``power.prop.test`` (quoted with the call) and
rpact 3.x's ``getSampleSizeRates(..., normalApproximation = TRUE)`` for unequal groups and one
sample (quoted with the call).
"""

import json
import pathlib
import pickle

import numpy as np
import pytest

from dpinfer import (
    PowerResult,
    SampleSizeResult,
    SampleSizesResult,
    binom2_ump_power,
    binom2_ump_sample_size,
    binom_ump_power,
    binom_ump_sample_size,
)
from dpinfer.inference._price import NONPRIVATE_EPSILON

REF = json.loads((pathlib.Path(__file__).parents[1] / "reference" / "price_values.json").read_text())

# R 4.2.2: power.prop.test(p1 = .35, p2 = .20, power = .8)$n (uniroot, tol ~1e-4 in n)
R_N = 137.914753146423
# R 4.2.2: power.prop.test(n = 170, p1 = .35, p2 = .20)$power (a closed form: to the last digits)
R_POWER_170 = 0.875667513094759
# R 4.2.2: power.prop.test(p1 = .35, p2 = .20, power = .8, alternative = "one.sided")$n
R_N_ONE_SIDED = 108.517365958257
# rpact: getSampleSizeRates(pi1 = .35, pi2 = .2, allocationRatioPlanned = 2, sided = 2, alpha = 0.05,
#   beta = 0.2, normalApproximation = TRUE): numberOfSubjects1, numberOfSubjects2 (n1 = 2 n2)
RPACT_UNEQUAL = (210.910950804002, 105.455475402001)
# rpact: getSampleSizeRates(groups = 1, pi1 = .4, thetaH0 = .2, sided = 2, alpha = 0.05, beta = 0.2,
#   normalApproximation = TRUE)$maxNumberOfSubjects
RPACT_ONE = 35.7779899168963


@pytest.fixture(scope="module")
def anchor():
    """Issue 41's anchor: 0.35 against 0.20, 80% power, epsilon = 1, the default (score) ordering."""
    return binom2_ump_sample_size(0.35, 0.20, power=0.8, epsilon=1.0)


def test_the_anchor_prints_the_price_of_privacy(anchor):
    ref = REF["two_arm_score_randomized"]
    assert ref["137"] < 0.8 <= ref["138"]  # the reference's smallest n without noise
    assert anchor.nonprivate_n == (138, 138)
    assert anchor.price == tuple(n - 138 for n in anchor) and anchor.price_total == sum(anchor.price)
    assert anchor.normal_n[0] == pytest.approx(R_N, rel=1e-6) and anchor.normal_n[1] == anchor.normal_n[0]
    text = str(anchor)
    assert f"price of privacy: {anchor[0] - 138} per group, {2 * (anchor[0] - 138)} in total" in text
    assert "normal approximation (power.prop.test): 137.9148" in text
    assert "epsilon = Inf" in text and "privacy: epsilon = 1, delta = 0, Tulap mechanism" in text
    d = anchor.to_dict()
    assert (d["n1"], d["nonprivate_n1"], d["price_total"]) == (anchor[0], 138, 2 * (anchor[0] - 138))
    assert d["statistic"] == "score" and d["exact_power"] >= 0.8
    assert json.loads(anchor.to_json())["normal_n2"] == pytest.approx(R_N, rel=1e-6)


def test_the_power_without_noise_is_the_enumerated_randomized_test():
    for n in (162, 163):
        p = binom2_ump_power(0.35, 0.20, n, n, epsilon=1.0, statistic="difference")  # the reference's ordering
        # the release cell (step 2**-40) moves the statistic by ~1e-14: a 1e-11 change in power
        assert p.nonprivate_power == pytest.approx(REF["two_arm_difference_randomized"][str(n)], abs=1e-9)
        assert p.price == p.nonprivate_power - float(p) > 0
    p = binom2_ump_power(0.35, 0.20, 170, 170, epsilon=1.0, statistic="difference")
    assert p.normal_power == pytest.approx(R_POWER_170, abs=1e-13)
    assert "price of privacy:" in str(p) and "normal approximation (power.prop.test): 0.8756675" in str(p)


def test_laplace_arms_get_the_same_randomized_comparator():
    p = binom2_ump_power(0.35, 0.20, 163, 163, epsilon=1.0, mechanism="laplace")
    assert p.nonprivate_power == pytest.approx(REF["two_arm_difference_randomized"]["163"], abs=1e-9)
    assert "Laplace mechanism" in str(p)


def test_the_non_randomized_test_on_the_counts_is_saw_toothed():
    # why the comparator is the randomized test: the count test is below 80% on either side of 163
    counts = REF["two_arm_difference_counts"]
    assert counts["159"] < 0.8 and counts["163"] < counts["159"] and counts["166"] < 0.8


def test_the_normal_comparator_follows_power_prop_test_and_unequal_groups():
    one_sided = binom2_ump_sample_size(0.35, 0.20, epsilon=1.0, alternative="greater")
    assert one_sided.normal_n[0] == pytest.approx(R_N_ONE_SIDED, rel=1e-6)
    unequal = binom2_ump_sample_size(0.35, 0.20, epsilon=1.0, ratio=0.5)
    assert unequal.normal_n == pytest.approx(RPACT_UNEQUAL, rel=1e-9)
    # a null other than theta1 = theta2 has no power.prop.test answer
    margin = binom2_ump_sample_size(0.35, 0.20, epsilon=1.0, margin=-0.05, alternative="greater")
    assert margin.normal_n is None and "power.prop.test): not computed" in str(margin)


def test_the_comparator_runs_the_same_ordering():
    score = binom2_ump_sample_size(0.35, 0.20, epsilon=1.0, statistic="score")
    assert score.to_dict()["statistic"] == "score" and "(score ordering)" in str(score)
    ref = REF["two_arm_score_randomized"]
    assert ref["137"] < 0.8 <= ref["138"] and score.nonprivate_n == (138, 138)
    for n in (137, 138):
        p = binom2_ump_power(0.35, 0.20, n, n, epsilon=NONPRIVATE_EPSILON, statistic="score")
        assert float(p) == pytest.approx(ref[str(n)], abs=1e-9)


def test_one_arm_comparators():
    n = binom_ump_sample_size(0.4, 0.2, epsilon=1.0)
    two = REF["one_arm_two_sided"]
    assert two["35"] < 0.8 <= two["36"] and n.nonprivate_n == 36
    assert n.normal_n == pytest.approx(RPACT_ONE, rel=1e-9) and n.price == int(n) - 36
    greater = binom_ump_sample_size(0.4, 0.2, epsilon=1.0, alternative="greater")
    ref = REF["one_arm_greater"]
    assert ref["31"] < 0.8 <= ref["32"] and greater.nonprivate_n == 32
    for k in (31, 32):
        p = binom_ump_power(0.4, k, 0.2, epsilon=1.0, alternative="greater")
        assert p.nonprivate_power == pytest.approx(ref[str(k)], abs=1e-12)
    assert f"price of privacy: {int(n) - 36} (n = {int(n)} against 36" in str(n)
    assert "randomized binomial test, epsilon = Inf" in str(n)
    assert n.to_dict()["price_n"] == int(n) - 36


def test_results_are_the_numbers_they_were():
    n = binom_ump_sample_size(0.4, 0.2, epsilon=1.0)
    sizes = binom2_ump_sample_size(0.6, 0.4, epsilon=1.0)
    p = binom_ump_power(0.4, 30, 0.2, epsilon=1.0)
    assert isinstance(n, int) and isinstance(sizes, tuple) and isinstance(p, float)
    assert (type(n), type(sizes), type(p)) == (SampleSizeResult, SampleSizesResult, PowerResult)
    assert repr(n) == str(int(n)) and repr(sizes) == repr(tuple(sizes)) and repr(p) == repr(float(p))
    assert f"{n}" == str(int(n)) and f"{p:.3f}" == f"{float(p):.3f}" and f"{sizes}" == str(tuple(sizes))
    n1, n2 = sizes
    assert sizes == (n1, n2) and round(p, 4) == round(float(p), 4) and n - 1 == int(n) - 1
    for obj in (n, sizes, p):
        back = pickle.loads(pickle.dumps(obj))
        assert type(back) is type(obj) and back == obj and str(back) == str(obj)
    # arrays stay arrays
    assert isinstance(binom_ump_power([0.3, 0.4], 30, 0.2, epsilon=1.0), np.ndarray)
    assert isinstance(binom2_ump_power([0.5, 0.6], 0.4, 50, 50, epsilon=1.0), np.ndarray)


def test_a_comparator_beyond_reach_prints_not_computed(monkeypatch):
    import dpinfer.inference.two_arm._planning as planning

    search = planning._sample_size

    def refuse_without_noise(*args):
        if args[4] == NONPRIVATE_EPSILON:  # epsilon, the fifth argument
            raise ValueError("beyond the sums")
        return search(*args)

    monkeypatch.setattr(planning, "_sample_size", refuse_without_noise)
    size = binom2_ump_sample_size(0.6, 0.4, epsilon=1.0, statistic="difference")
    assert size.price is None and size.price_total is None and size.to_dict()["price_n1"] is None
    assert "not computed (beyond the exact sums' reach)" in str(size)


def test_results_are_read_only():
    n = binom_ump_sample_size(0.4, 0.2, epsilon=1.0)
    with pytest.raises(AttributeError, match="read-only; `note` cannot be set"):
        n.note = "x"


def test_the_command_prints_the_comparators(capsys):
    from dpinfer.cli import main

    assert main(["sample-size", "--theta1", "0.35", "--theta2", "0.2", "--epsilon", "1", "--format", "json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert (rec["nonprivate_n1"], rec["nonprivate_n2"]) == (138, 138)  # the default, the score ordering
    assert rec["price_total"] == 2 * (rec["n1"] - 138) and rec["normal_n1"] == pytest.approx(R_N, rel=1e-6)
    assert main(["sample-size", "--theta1", "0.4", "--p0", "0.2", "--epsilon", "1"]) == 0
    out = capsys.readouterr().out
    assert "the same test without noise (randomized binomial test, epsilon = Inf): 36" in out
    assert main(["power", "--theta1", "0.35", "--theta2", "0.2", "--n1", "163", "--n2", "163", "--epsilon", "1",
                 "--statistic", "difference", "--format", "json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["nonprivate_power"] == pytest.approx(REF["two_arm_difference_randomized"]["163"], abs=1e-9)
