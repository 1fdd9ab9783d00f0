"""Parallel and advanced composition (dpinfer/budget/_composition.py)."""

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from dpinfer import (
    AdvancedComposition,
    BudgetExceededError,
    LaplaceReleaser,
    ParallelComposition,
    PrivacyBudget,
    TulapReleaser,
)

from _budget_cases import _state


# ------------------------------------------------------------------ parallel composition
def test_parallel_composition_charges_the_rise_of_the_maximum():
    budget = PrivacyBudget(2.0)
    sites = budget.parallel("response by site")
    assert isinstance(sites, ParallelComposition) and budget.parallel("response by site") is sites
    plan = [("A", 0.5), ("B", 0.3), ("A", 0.25), ("B", 0.6), ("C", 0.75), ("C", 0.5)]
    sums = {}
    for group, eps in plan:
        before = max(sums.values(), default=Fraction(0))
        sums[group] = sums.get(group, Fraction(0)) + Fraction(eps)
        rise = max(sums.values()) - before
        LaplaceReleaser(eps).proportion(4, 20, rng=0, budget=sites.group(group))
        last = budget.ledger[-1]
        assert (last.composition, last.scope, last.group) == ("parallel", "response by site", group)
        assert last.charged_epsilon == float(rise)
    assert budget.spent_epsilon == float(max(sums.values())) == 1.25
    assert sites.spent == {g: (float(s), 0.0) for g, s in sums.items()}
    assert sites.spent_epsilon == 1.25
    # sequential releases of the whole data set add to the parallel set's maximum
    TulapReleaser(0.5).release(9, 60, rng=0, budget=budget)
    assert budget.spent_epsilon == 1.75
    LaplaceReleaser(0.5).proportion(4, 20, rng=0, budget=sites.group("A"))  # A: 0.75 -> 1.25, no rise
    assert budget.spent_epsilon == 1.75 and budget.ledger[-1].charged_epsilon == 0.0
    with pytest.raises(BudgetExceededError):
        LaplaceReleaser(0.5).proportion(4, 20, rng=0, budget=sites.group("C"))  # C: 1.25 -> 1.75, total 2.25
    assert sites.spent["C"] == (1.25, 0.0)  # the refused charge left the group untouched
    LaplaceReleaser(0.6).proportion(4, 20, rng=0, budget=sites.group("B"))  # B: 0.9 -> 1.5, max rises 0.25
    assert budget.spent_epsilon == float(Fraction(0.5) + Fraction(0.3) + Fraction(0.6) + Fraction(0.6))


def test_parallel_labels_are_unique_and_checked():
    budget = PrivacyBudget(1.0, delta=1e-5)
    budget.advanced(10, 0.01, delta_slack=1e-6, label="looks")
    with pytest.raises(ValueError, match="already names an advanced-composition block"):
        budget.parallel("looks")
    with pytest.raises(ValueError, match="`label` must name the partition"):
        budget.parallel("  ")
    with pytest.raises(ValueError, match="`name` of a group"):
        budget.parallel("sites").group("")

# ------------------------------------------------------------------ advanced composition
@pytest.mark.parametrize("k, eps, slack", [(100, 0.01, 1e-6), (1000, 0.005, 1e-9), (50, 0.1, 1e-5),
                                           (10_000, 1e-3, 1e-7), (7, 0.2, 0.01)])
def test_advanced_bound_matches_the_closed_form(k, eps, slack):
    # Closed form of Dwork, Rothblum & Vadhan (2010), Thm. III.3, at 50 digits (mpmath):
    # eps' = sqrt(2 k ln(1/delta')) eps + k eps (e^eps - 1), delta_total = k delta + delta'.
    with mpmath.workdps(50):
        e = mpmath.mpf(eps)
        exact = mpmath.sqrt(2 * k * mpmath.log(1 / mpmath.mpf(slack))) * e + k * e * mpmath.expm1(e)
    budget = PrivacyBudget(1e6, delta=0.5)
    block = budget.advanced(k, eps, 1e-8, delta_slack=slack, label="block")
    if exact < k * mpmath.mpf(eps):
        assert block.rule == "advanced composition"
        # an upper bound on the exact value, and within 1e-14 of it (a few ulps of rounding up)
        assert mpmath.mpf(budget.spent_epsilon) >= exact
        assert float(mpmath.mpf(budget.spent_epsilon) / exact - 1) < 1e-14
        assert budget.spent_delta == float(Fraction(1e-8) * k + Fraction(slack))
    else:
        assert block.rule == "basic composition"
        assert budget.spent_epsilon == float(Fraction(eps) * k)
        assert budget.spent_delta == float(Fraction(1e-8) * k)
    assert (block.reserved_epsilon, block.reserved_delta) == (budget.spent_epsilon, budget.spent_delta)


def test_advanced_block_in_use():
    budget = PrivacyBudget(1.0, delta=1e-5)
    block = budget.advanced(100, 0.01, delta_slack=1e-6, label="interim looks")
    assert isinstance(block, AdvancedComposition)
    reserved = budget.spent_epsilon
    assert reserved < 100 * 0.01  # cheaper than basic composition
    for _ in range(99):
        LaplaceReleaser(0.01).proportion(5, 40, rng=0, budget=block)
    LaplaceReleaser(0.005).proportion(5, 40, rng=0, budget=block)  # smaller epsilon uses a slot too
    assert block.used == 100 and budget.spent_epsilon == reserved
    gen = np.random.default_rng(1)
    before = _state(gen)
    with pytest.raises(BudgetExceededError, match="reserved for 100 releases and 100 are used"):
        LaplaceReleaser(0.01).proportion(5, 40, rng=gen, budget=block)
    assert _state(gen) == before
    other = budget.advanced(10, 0.02, delta_slack=1e-6, label="safety")
    with pytest.raises(BudgetExceededError, match="holds releases of at most epsilon = 0.02"):
        LaplaceReleaser(0.05).proportion(5, 40, rng=0, budget=other)
    with pytest.raises(ValueError, match="names a block reserved for k = 100"):
        budget.advanced(50, 0.01, delta_slack=1e-6, label="interim looks")
    assert budget.advanced(100, 0.01, delta_slack=1e-6, label="interim looks") is block
    with pytest.raises(BudgetExceededError):
        budget.advanced(1000, 0.05, delta_slack=1e-6, label="too many")
