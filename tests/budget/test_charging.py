"""Charging: every release charges its budget before drawing, arrays, two-sample and audit accounting (dpinfer/budget/_charging.py)."""

from fractions import Fraction

import numpy as np
import pytest

from dpinfer import (
    BudgetExceededError,
    LaplaceReleaser,
    PrivacyBudget,
    RandomizedResponseReleaser,
    TulapReleaser,
)

from _budget_cases import ALL, _call, _state


# ------------------------------------------------------------------ charge before any draw
@pytest.mark.parametrize("name, releaser, method, x, args", ALL, ids=[c[0] for c in ALL])
def test_refused_release_draws_nothing_and_changes_nothing(name, releaser, method, x, args):
    eps = releaser.epsilon
    budget = PrivacyBudget(eps * 1.5, delta=1e-5)
    gen = np.random.default_rng(20261123)
    first = _call(releaser, method, x, args, rng=gen, budget=budget)
    assert first.epsilon == pytest.approx(eps, rel=1e-5)
    before, spent, ledger = _state(gen), (budget.spent_epsilon, budget.spent_delta), budget.ledger
    with pytest.raises(BudgetExceededError, match="Nothing was drawn and nothing was charged"):
        _call(releaser, method, x, args, rng=gen, budget=budget)
    assert _state(gen) == before  # the generator was not touched
    assert (budget.spent_epsilon, budget.spent_delta) == spent and budget.ledger == ledger
    # the same call without the budget does draw (so the check above can fail)
    _call(releaser, method, x, args, rng=gen)
    assert _state(gen) != before


@pytest.mark.parametrize("name, releaser, method, x, args", ALL, ids=[c[0] for c in ALL])
def test_every_release_method_charges_its_parameters(name, releaser, method, x, args):
    budget = PrivacyBudget(10.0, delta=1e-3)
    _call(releaser, method, x, args, rng=1, budget=budget)
    (entry,) = budget.ledger
    assert entry.epsilon == releaser.epsilon
    assert entry.delta == getattr(releaser, "delta", 0.0)
    assert entry.count == 1 and entry.composition == "sequential"
    assert budget.spent_epsilon == releaser.epsilon
    assert type(releaser).__name__ in entry.label


def test_secure_path_charges_too():
    budget = PrivacyBudget(1.0)
    TulapReleaser(0.75).release(3, 10, secure=True, budget=budget)
    assert budget.spent_epsilon == 0.75
    with pytest.raises(BudgetExceededError):
        LaplaceReleaser(0.5).count(3, 10, secure=True, budget=budget)


def test_invalid_input_charges_nothing():
    budget = PrivacyBudget(1.0)
    with pytest.raises(ValueError, match="`x`"):
        TulapReleaser(1.0).release(31, 30, budget=budget)
    with pytest.raises(TypeError, match="`rng`"):
        TulapReleaser(1.0).release(3, 30, rng="seed", budget=budget)
    assert budget.spent_epsilon == 0.0 and budget.ledger == ()


def test_bad_budget_and_array_arguments():
    with pytest.raises(TypeError, match="`budget` must be None, a dpinfer.PrivacyBudget"):
        TulapReleaser(1.0).release(3, 30, budget=1.0)
    with pytest.raises(ValueError, match="`array` must be None, 'separate' or 'disjoint'; got 'each'"):
        TulapReleaser(1.0).release([3, 4], 30, array="each")
    with pytest.raises(TypeError, match="`array`"):
        TulapReleaser(1.0).release([3, 4], 30, array=2)
    with pytest.raises(ValueError, match="`epsilon` must be a positive finite number"):
        PrivacyBudget(-1.0)
    with pytest.raises(ValueError, match=r"`delta` must lie in \[0, 1\)"):
        PrivacyBudget(1.0, delta=1.0)
    with pytest.raises(TypeError, match="`description` must be a string"):
        PrivacyBudget(1.0, description=3)

# ------------------------------------------------------------------ arrays
def test_array_without_budget_charges_nothing_and_records_per_element():
    rel = TulapReleaser(1.0).release(np.full(2000, 17), 40, rng=1)
    assert rel.epsilon == 1.0 and rel.value.shape == (2000,)


def test_array_with_budget_needs_an_explicit_argument():
    budget = PrivacyBudget(100.0)
    gen = np.random.default_rng(3)
    before = _state(gen)
    with pytest.raises(ValueError, match="`array` must say what the 2000 values"):
        TulapReleaser(1.0).release(np.full(2000, 17), 40, rng=gen, budget=budget)
    assert _state(gen) == before and budget.ledger == ()


def test_array_separate_and_disjoint_charges():
    budget = PrivacyBudget(100.0, delta=1.0 - 1e-9)
    TulapReleaser(0.5, 1e-4).release([3, 4, 5], 30, rng=1, budget=budget, array="separate")
    assert (budget.spent_epsilon, budget.spent_delta) == (1.5, float(Fraction(1e-4) * 3))
    TulapReleaser(0.5).release([3, 4, 5], 30, rng=1, budget=budget, array="disjoint")
    assert budget.spent_epsilon == 2.0
    LaplaceReleaser(0.25, sensitivity=2.0).release(np.zeros((2, 3)), rng=1, budget=budget, array="separate")
    assert budget.spent_epsilon == 3.5
    # one element is one statistic, whatever `array` says
    LaplaceReleaser(0.25).count([3], 10, rng=1, budget=budget)
    assert budget.spent_epsilon == 3.75
    counts = [e.count for e in budget.ledger]
    assert counts == [3, 1, 6, 1]
    with pytest.raises(BudgetExceededError):
        TulapReleaser(1.0).release(np.full(2000, 17), 40, rng=1, budget=budget, array="separate")


def test_local_array_of_respondents_is_charged_once():
    budget = PrivacyBudget(1.0)
    RandomizedResponseReleaser(1.0).release(np.ones(500, dtype=int), rng=2, budget=budget)
    assert budget.spent_epsilon == 1.0 and budget.ledger[0].count == 1

# ------------------------------------------------------------------ two-sample accounting
def test_two_sample_functions_share_one_rule_per_relation():
    from dpinfer import binom2_jimi_test, binom2_normal_test, rr_two_sample_test

    r1 = LaplaceReleaser(1.0).proportion(20, 40, rng=5)
    r2 = LaplaceReleaser(0.25).proportion(10, 50, rng=6)
    rr1 = RandomizedResponseReleaser(1.0).release(np.ones(60, dtype=int), rng=1)
    rr2 = RandomizedResponseReleaser(0.25).release(np.zeros(80, dtype=int), rng=2)
    results = {
        comp: [binom2_normal_test(r1, pi_hat2=r2, composition=comp),
               binom2_jimi_test(r1, pi_hat2=r2, n_sim=200, rng=1, composition=comp),
               rr_two_sample_test(rr1, rr2, composition=comp)]
        for comp in ("sequential", "parallel")
    }
    assert [r.epsilon for r in results["sequential"]] == [1.25, 1.25, 1.25]
    assert [r.epsilon for r in results["parallel"]] == [1.0, 1.0, 1.0]
    # the rule changes only the record, never the inference
    for a, b in zip(results["sequential"], results["parallel"]):
        assert (a.pvalue, a.conf_int) == (b.pvalue, b.conf_int)
    # and matches what a budget charges for the same two releases
    for method, expected in (("sequential", 1.25), ("parallel", 1.0)):
        budget = PrivacyBudget(2.0)
        arms = budget.parallel("arms")
        target = (lambda g: arms.group(g)) if method == "parallel" else (lambda g: budget)
        LaplaceReleaser(1.0).proportion(20, 40, rng=0, budget=target("A"))
        LaplaceReleaser(0.25).proportion(10, 50, rng=0, budget=target("B"))
        assert budget.spent_epsilon == expected
    with pytest.raises(ValueError, match="`composition` must be None, 'sequential' or 'parallel'; got 'max'"):
        binom2_normal_test(r1, pi_hat2=r2, composition="max")
    with pytest.raises(TypeError, match="`composition` must be None, 'sequential' or 'parallel'; got 1"):
        rr_two_sample_test(rr1, rr2, composition=1)

# ------------------------------------------------------------------ audits spend 2 x n_samples releases
def test_audit_charges_only_a_budget_it_is_given():
    from dpinfer import audit_releaser

    res = audit_releaser(LaplaceReleaser(1.0).count, 10, 11, args=(30,), n_samples=200, rng=1)
    assert "releases drawn: 2 x 200 on the audit's inputs" in str(res)
    budget = PrivacyBudget(1000.0)
    audit_releaser(LaplaceReleaser(1.0).count, 10, 11, args=(30,), n_samples=200, rng=1, budget=budget)
    (entry,) = budget.ledger
    assert (entry.count, entry.epsilon, entry.charged_epsilon) == (400, 1.0, 400.0)
    assert entry.mechanism == "laplace" and "2 x 200 releases" in entry.label
    audit_releaser(TulapReleaser(0.5, 1e-9), 10, 11, args=(30,), n_samples=100, rng=1,
                   budget=PrivacyBudget(100.0, 1e-6))
    # a refused audit draws nothing
    gen = np.random.default_rng(9)
    before = _state(gen)
    with pytest.raises(BudgetExceededError, match="it would charge epsilon = 800"):
        audit_releaser(LaplaceReleaser(1.0), 0.0, 1.0, n_samples=400, rng=gen, budget=budget)
    assert _state(gen) == before and len(budget.ledger) == 1
    with pytest.raises(TypeError, match="`epsilon` must be given to charge `budget`"):
        audit_releaser(lambda v, rng: v + rng.laplace(size=np.shape(v)), 0.0, 1.0, n_samples=100,
                       rng=1, budget=budget)
