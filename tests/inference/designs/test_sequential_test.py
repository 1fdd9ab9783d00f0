"""Inference at the end of a two-arm group-sequential design: p-value, interval, estimate.

The interval's coverage is computed exactly (every outcome of the design weighted by its
probability at the true rates, the interval's membership decided by the two one-sided
p-values it inverts, on a fine grid of the common rate), next to the naive fixed-sample
interval's (the same exact test treating the data at the stopping look as a fixed sample).
"""

import numpy as np
import pytest

from dpinfer import PrivacyBudget, Release, TulapReleaser, sequential_design, sequential_test
from dpinfer._composition_rule import proves_disjoint
from dpinfer.inference.designs import _walk_law as gs
from dpinfer.inference.designs._two_arm_analysis import _lower_pvalue, _observed, _upper_pvalue


@pytest.fixture(scope="module")
def design():
    return sequential_design(0.5, 0.3, looks=3, epsilon=1.0)


@pytest.fixture(scope="module")
def result(design):
    run = design.staged_release()
    run.release(1, [24, 10], rng=1)
    run.release(2, [21, 13], rng=2)
    assert run.decision == "stop for efficacy"
    return sequential_test(design, run), run


def test_result_fields_and_print(design, result):
    res, run = result
    assert res.parameter == 2 and res.alternative == "greater" and res.null_value == 0.0
    assert res.conf_int.low < res.estimate < res.conf_int.high
    text = str(res)
    assert "stage-wise ordering" in text and "privacy: epsilon = 4" in text
    assert res.to_dict()["pvalue"] == res.pvalue
    # the statistic is the released difference of cumulative proportions of the integer parts
    k1 = sum(round(p[0].value) for p in run.releases)
    k2 = sum(round(p[1].value) for p in run.releases)
    assert res.statistic == pytest.approx(k1 / 81 - k2 / 81)


def test_interval_ends_are_where_the_pvalue_crosses(design, result):
    res, run = result
    # the lower end of the 95% interval is the margin at which the one-sided p-value is 0.025
    # (H0: difference <= margin: the p-value grows with the margin)
    at_low = sequential_test(design, run, margin=res.conf_int.low).pvalue
    assert at_low == pytest.approx(0.025, rel=1e-5)
    k, w, lat = _observed(design, run.releases)
    assert _upper_pvalue(lat, design.efficacy, k, w, res.conf_int.low - 0.01) < 0.025
    assert _upper_pvalue(lat, design.efficacy, k, w, res.conf_int.low + 0.01) > 0.025
    # the upper end: the p-value of the other one-sided test is 0.025 there
    assert _lower_pvalue(lat, design.efficacy, k, w, res.conf_int.high) == pytest.approx(0.025, rel=1e-5)
    # the estimate: both one-sided 50% limits straddle it
    assert _upper_pvalue(lat, design.efficacy, k, w, res.estimate) == pytest.approx(0.5, abs=0.05)


def test_pvalue_by_direct_sum_of_the_ordering(design, result):
    # P(outcome at least as extreme) at one common rate, from the walk written out here:
    # efficacy at look 1, or continue at 1 and W_2 >= w
    res, run = result
    lat = design._lattice
    w = round(res.statistic * lat.scale(1))
    nu = np.array([0.3, 0.4, 0.5])
    inc1 = gs.increment(lat, 0, nu, nu)
    inc2 = gs.increment(lat, 1, nu, nu)
    got = gs._rejection(lat, design.efficacy, 1, last=w)(nu, nu)
    for i in range(nu.size):
        p1 = {inc1[0] + j: v for j, v in enumerate(inc1[1][i])}
        p2 = {inc2[0] + j: v for j, v in enumerate(inc2[1][i])}
        want = sum(v for w1, v in p1.items() if w1 >= design.efficacy[0])
        want += sum(v1 * v2 for w1, v1 in p1.items() if w1 < design.efficacy[0]
                    for w2, v2 in p2.items() if w1 + w2 >= w)
        assert got[i] == pytest.approx(want, rel=1e-9, abs=1e-15)
    assert res.pvalue >= got.max()


def _coverage(design, theta1, theta2, level=0.95, naive=False):
    lat = design._lattice
    members = gs.interval_membership(lat, design.efficacy, theta1 - theta2, level, naive=naive)
    covered = 0.0
    for (w0, inside), (v0, mass) in zip(members, gs.outcome_law(lat, design.efficacy, theta1, theta2)):
        # align the two lattices (the naive one is uncut, so it starts at or below)
        j = v0 - w0
        covered += float(np.dot(mass, inside[j:j + mass.size]))
    return covered


@pytest.mark.parametrize("theta1, theta2", [(0.3, 0.3), (0.5, 0.3), (0.6, 0.3)])
def test_exact_coverage_holds_naive_does_not_always(design, theta1, theta2):
    cov = _coverage(design, theta1, theta2)
    assert cov >= 0.95
    naive = _coverage(design, theta1, theta2, naive=True)
    assert naive <= 1.0
    if theta1 - theta2 >= 0.3:  # early stops for efficacy select large differences
        assert naive < cov


def test_less_design_and_margin():
    d = sequential_design(0.2, 0.5, looks=2, epsilon=2.0)
    run = d.staged_release()
    sizes = d.stage_sizes()
    run.release(1, [int(0.2 * sizes[0][0]), int(0.5 * sizes[0][1])], rng=5)
    if not run.stopped:
        run.release(2, [int(0.2 * sizes[1][0]), int(0.5 * sizes[1][1])], rng=6)
    res = sequential_test(d, run)
    assert res.alternative == "less" and res.conf_int.high < 0.0
    k, w, lat = _observed(d, run.releases)
    # H0: difference >= margin; a margin nearer the estimate gives a larger p-value
    assert _upper_pvalue(lat, d.efficacy, k, w, 0.05) > res.pvalue


def test_refusals(design, result):
    res, run = result
    with pytest.raises(TypeError, match="SequentialDesign"):
        sequential_test("d", run)
    with pytest.raises(TypeError, match="`releases` must be"):
        sequential_test(design, 3)
    with pytest.raises(TypeError, match=r"`releases\[0\]` must be a pair"):
        sequential_test(design, [(1.5, 2.5)])
    with pytest.raises(ValueError, match="margin"):
        sequential_test(design, run, margin=1.5)
    with pytest.raises(ValueError, match="confidence_level"):
        sequential_test(design, run, confidence_level=95)
    with pytest.raises(ValueError, match="has not stopped"):
        sequential_test(design, run.releases[:1])
    with pytest.raises(ValueError, match="holds 4 looks"):
        sequential_test(design, list(run.releases) * 2)
    with pytest.raises(ValueError, match="stopped for efficacy at look 2"):
        sequential_test(design, list(run.releases) + [run.releases[0]])
    other = TulapReleaser(2.0).release(5, 41, rng=1)
    with pytest.raises(ValueError, match="design's epsilon"):
        sequential_test(design, [(other, run.releases[0][1])])
    wrong_n = TulapReleaser(1.0).release(5, 40, rng=1)
    with pytest.raises(ValueError, match="stage's 41 new patients"):
        sequential_test(design, [(wrong_n, run.releases[0][1])])
    lap = Release(3.3, "laplace", 1.0, 0.0, 1.0, 41, "count")
    with pytest.raises(ValueError, match="Tulap count release"):
        sequential_test(design, [(lap, run.releases[0][1])])
    nonprivate = sequential_design(0.6, 0.3, looks=2, epsilon=None)
    with pytest.raises(ValueError, match="non-private"):
        sequential_test(nonprivate, run)


def test_budget_run_then_test(design):
    budget = PrivacyBudget(1.0)
    run = design.staged_release(budget=budget)
    for s, (m1, m2) in enumerate(design.stage_sizes(), 1):
        run.release(s, [m1 // 2, m2 // 3], rng=s)
        if run.stopped:
            break
    res = sequential_test(design, run)
    flat = [r for pair in run.releases for r in pair]
    # the one rule: parallel only when the releases record their disjoint groups of one budget
    if proves_disjoint(flat):
        assert res.epsilon == budget.spent_epsilon == 1.0 and "parallel composition" in res.note
    else:
        assert res.epsilon == float(len(flat)) and "sequential composition" in res.note
    stated = sequential_test(design, run, composition="parallel")
    assert stated.epsilon == budget.spent_epsilon == 1.0 and stated.pvalue == res.pvalue


def test_composition_without_a_budget(design, result):
    res, run = result  # run without a budget: the releases record no disjoint groups
    assert res.epsilon == 4.0 and "sequential composition of the 4 releases" in res.note
    with pytest.raises(ValueError, match="composition"):
        sequential_test(design, run, composition="both")
