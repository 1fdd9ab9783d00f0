"""LifeTableReleaser: the tabulation, the exact privacy of its law, the budget, the refusals."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest

from dpinfer import BudgetExceededError, LifeTableReleaser, PrivacyBudget, Release
from dpinfer.distributions._tulap_law import unit_privacy

BREAKS = (5.0, 10.0, 15.0)
TIME = np.array([2.5, 7.0, 11.0, 5.0, 3.2, 14.0, 9.5, 30.0, 0.0, 10.0, 15.0])
EVENT = np.array([1, 0, 1, 1, 1, 0, 1, 1, 0, 0, 0])
ARM = np.array(["B", "B", "B", "B", "A", "A", "A", "A", "A", "B", "A"])


def _count_by_hand(time, event, arm, arms, breaks):
    """Events per interval (t_(j-1), t_j] (0 in the first), censorings per [t_(j-1), t_j), by a plain loop."""
    out = np.zeros((len(arms), len(breaks), 2), dtype=int)
    for t, e, a in zip(time, event, arm):
        for j, end in enumerate(breaks):
            start = 0.0 if j == 0 else breaks[j - 1]
            inside = ((start < t <= end) or (j == 0 and t == 0.0)) if e else (start <= t < end)
            if inside:
                out[arms.index(a), j, 0 if e else 1] += 1
    return out


def test_release_records_its_layout_and_its_integer_part_is_the_count_plus_discrete_noise():
    rel = LifeTableReleaser(1.0, BREAKS).release(TIME, EVENT, ARM, rng=3)
    assert (rel.kind, rel.mechanism, rel.sensitivity, rel.delta) == ("life_table", "tulap", 2.0, 0.0)
    assert rel.groups == ("A", "B") and rel.group_sizes == (6, 5) and rel.n == 11 and rel.breaks == BREAKS
    assert rel.value.shape == (2, 3, 2)
    # never a whole number: the uniform part sits on cell midpoints strictly inside (-1/2, 1/2)
    frac = rel.value - np.rint(rel.value)
    assert np.all(np.abs(frac) < 0.5) and np.all(frac != 0.0)
    assert "one patient" in rel.privacy_unit
    text = str(rel)
    assert "breaks:      5, 10, 15" in text and "A (n = 6), B (n = 5)" in text


def test_tabulation_matches_a_plain_loop_and_the_noise_law_is_discrete_laplace():
    expected = _count_by_hand(TIME, EVENT, ARM, ["A", "B"], BREAKS)
    reps = 20_000
    rel = LifeTableReleaser(1.0, BREAKS).release(np.broadcast_to(TIME, (reps, TIME.size)),
                                                 np.broadcast_to(EVENT, (reps, TIME.size)), ARM, rng=11)
    noise = (np.rint(rel.value) - expected).reshape(-1)
    # P(D = d) = (1 - b) / (1 + b) b^|d|, b = exp(-epsilon / 2); each share within 4 SE
    b = math.exp(-unit_privacy(1.0, 0.0, 2)[0])
    for d in range(-3, 4):
        p = (1 - b) / (1 + b) * b ** abs(d)
        assert abs(np.mean(noise == d) - p) < 4 * math.sqrt(p * (1 - p) / noise.size)


def test_times_at_the_breaks_beyond_the_last_break_and_at_zero():
    counts = _count_by_hand(TIME, EVENT, ARM, ["A", "B"], BREAKS)
    # arm A: the event at 30 and the censoring at 15 (= the last break) are in no cell; the
    # censoring at 0 is in the first interval; arm B: the event at 5 ends interval 1, the
    # censoring at 10 is in interval 3 (at risk through interval 2)
    assert counts[0].tolist() == [[1, 1], [1, 0], [0, 1]]
    assert counts[1].tolist() == [[2, 0], [0, 1], [1, 1]]
    rel = LifeTableReleaser(200.0, BREAKS).release(TIME, EVENT, ARM, rng=1)
    assert np.rint(rel.value).tolist() == counts.tolist()


def _dlaplace(d, b):
    return (1 - b) / (1 + b) * b ** abs(d)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 3.0])
def test_neighbouring_tables_likelihood_ratio_is_at_most_exp_epsilon(epsilon):
    """Exact: the law of a table is a product over cells of the grid-Tulap pmf
    P(Z = x + d + u) = P(D = d) 2^-k (u one of the 2^k cell midpoints, the same set for
    every x).  For each pair of neighbours (a patient moved between two cells of a
    one-arm, two-interval table, or in/out of the unreleased cell of those at risk at
    the end), the largest ratio over all outputs is the product of the per-cell
    largest ratios, computed here in mpmath at 50 digits over d in [-60, 60]."""
    mpmath.mp.dps = 50
    eps1 = unit_privacy(epsilon, 0.0, 2)[0]
    b = mpmath.exp(-mpmath.mpf(eps1))
    base = [3, 1, 2, 0]  # events / censorings of intervals 1 and 2; 4 at risk at the end
    cells = range(5)  # 4 released cells and the unreleased one
    worst = mpmath.mpf(0)
    for src, dst in itertools.permutations(cells, 2):
        other = list(base) + [4]
        if other[src] == 0:
            continue
        other[src] -= 1
        other[dst] += 1
        ratio = mpmath.mpf(1)
        for c in range(4):
            shift = other[c] - base[c]
            if shift:
                ratio *= max(_dlaplace(d, b) / _dlaplace(d - shift, b) for d in range(-60, 61))
        worst = max(worst, ratio)
    assert worst <= mpmath.exp(epsilon) * (1 + mpmath.mpf(10) ** -40)
    assert worst >= mpmath.exp(epsilon) * (1 - 1e-12)  # and it is tight: all of epsilon is spent


def test_budget_is_charged_before_drawing():
    budget = PrivacyBudget(1.5)
    LifeTableReleaser(1.0, BREAKS).release(TIME, EVENT, ARM, rng=1, budget=budget)
    assert budget.spent_epsilon == pytest.approx(1.0)
    gen = np.random.default_rng(5)
    state = gen.bit_generator.state
    with pytest.raises(BudgetExceededError):
        LifeTableReleaser(1.0, BREAKS).release(TIME, EVENT, ARM, rng=gen, budget=budget)
    assert gen.bit_generator.state == state and budget.spent_epsilon == pytest.approx(1.0)
    with pytest.raises(ValueError, match="`array` must say"):
        LifeTableReleaser(0.1, BREAKS).release(np.stack([TIME, TIME]), np.stack([EVENT, EVENT]), ARM,
                                               rng=1, budget=budget)


def test_one_arm_and_given_arm_order():
    rel = LifeTableReleaser(2.0, [1, 2]).release([0.5, 1.5, 3.0], [1, 0, 1], rng=2)
    assert rel.groups == ("all",) and rel.group_sizes == (3,) and rel.value.shape == (1, 2, 2)
    rel = LifeTableReleaser(2.0, [1, 2]).release([0.5, 1.5, 3.0], [True, False, True], [1, 0, 1],
                                                 groups=[1, 0], rng=2)
    assert rel.groups == ("1", "0") and rel.group_sizes == (2, 1)


@pytest.mark.parametrize("kwargs, exc, message", [
    ({"time": [1.0, -2.0, 3.0]}, ValueError, r"`time` must contain times >= 0; the entry at position 1 is not"),
    ({"time": [1.0, np.nan, 3.0]}, ValueError, r"`time` must contain only finite numbers.*position 1"),
    ({"time": "soon"}, TypeError, r"`time` must be an array of follow-up times"),
    ({"event": [1, 2, 0]}, ValueError, r"`event` must contain 1 \(event\) or 0 \(censored\); the entry at "
                                       r"position 1 is not"),
    ({"event": [1, 0]}, ValueError, r"`event` must have the shape of `time`"),
    ({"group": ["a", "b"]}, ValueError, r"`group` must hold one arm per patient"),
    ({"group": ["a", "b", "c"], "groups": ["a", "b"]}, ValueError,
     r"`group` must take one of the labels of `groups` \('a', 'b'\); the entry at position 2 does not"),
    ({"group": ["a", "a", "a"], "groups": ["a", "b"]}, ValueError, r"arm 'b' holds none"),
    ({"groups": ["a", "a"]}, ValueError, r"`groups` must be distinct non-empty arm labels"),
])
def test_bad_data_names_the_argument_and_the_position_never_the_value(kwargs, exc, message):
    args = {"time": [1.0, 7.25, 3.0], "event": [1, 0, 1], "group": None} | kwargs
    groups = args.pop("groups", None)
    with pytest.raises(exc, match=message) as info:
        LifeTableReleaser(1.0, BREAKS).release(args["time"], args["event"], args["group"], groups=groups, rng=1)
    assert "7.25" not in str(info.value) and "-2.0" not in str(info.value)


@pytest.mark.parametrize("breaks, exc, message", [
    ([5, 5, 10], ValueError, "strictly increasing"),
    ([0, 5], ValueError, "positive"),
    ([], ValueError, "1 to 10000 interval ends"),
    ("5,10", TypeError, "`breaks` must be a sequence"),
    ([[1, 2]], ValueError, "flat sequence"),
])
def test_bad_breaks_are_refused(breaks, exc, message):
    with pytest.raises(exc, match=message):
        LifeTableReleaser(1.0, breaks)


def test_release_record_checks_its_layout():
    value = np.full((1, 2, 2), 0.25)
    rel = Release(value, "tulap", 1.0, 0.0, 2.0, 3, "life_table", breaks=[1, 2], groups=["x"], group_sizes=[3])
    assert rel.to_dict()["breaks"] == [1.0, 2.0] and rel.to_dict()["group_sizes"] == [3]
    with pytest.raises(ValueError, match=r"must have shape \(arms, intervals, 2\) = \(1, 3, 2\)"):
        Release(value, "tulap", 1.0, 0.0, 2.0, 3, "life_table", breaks=[1, 2, 3], groups=["x"], group_sizes=[3])
    with pytest.raises(ValueError, match="must be the sum of `group_sizes`"):
        Release(value, "tulap", 1.0, 0.0, 2.0, 4, "life_table", breaks=[1, 2], groups=["x"], group_sizes=[3])
    with pytest.raises(ValueError, match="`breaks` is only for a release of kind 'life_table'"):
        Release(0.25, "tulap", 1.0, 0.0, 1.0, 3, "count", breaks=[1, 2])
