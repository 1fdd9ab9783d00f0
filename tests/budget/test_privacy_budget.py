"""PrivacyBudget: exact sequential sums, manual charges, labels and the summary (dpinfer/budget/_privacy_budget.py)."""

from fractions import Fraction

import numpy as np
import pytest

from dpinfer import BudgetExceededError, LaplaceReleaser, LedgerEntry, PrivacyBudget, TulapReleaser


# ------------------------------------------------------------------ sequential sums
def test_sequential_sums_are_exact():
    # Reference: exact rational sums of the doubles (fractions.Fraction), rounded once.
    rng = np.random.default_rng(5)
    charges = [(float(e), float(d)) for e, d in zip(rng.uniform(1e-3, 0.2, 200), rng.uniform(0, 1e-8, 200))]
    budget = PrivacyBudget(100.0, delta=1e-3)
    for i, (e, d) in enumerate(charges):
        budget.charge(e, d, label=f"charge {i}")
        exact_e = sum(Fraction(c) for c, _ in charges[: i + 1])
        exact_d = sum(Fraction(c) for _, c in charges[: i + 1])
        assert budget.spent_epsilon == float(exact_e)
        assert budget.spent_delta == float(exact_d)
        # remaining: the smaller of the doubles' remainder and the remainder of the sums as written
        # (each double as its shortest decimal), which the refusal also compares (issue 40)
        written_e = sum(Fraction(repr(c)) for c, _ in charges[: i + 1])
        written_d = sum(Fraction(repr(c)) for _, c in charges[: i + 1])
        assert budget.remaining == (float(min(Fraction(100) - exact_e, Fraction("100.0") - written_e)),
                                    float(min(Fraction(1e-3) - exact_d, Fraction("0.001") - written_d)))
    assert [e.charged_epsilon for e in budget.ledger] == [c for c, _ in charges]


def test_ten_tenths_spend_exactly_one():
    budget = PrivacyBudget(1.0)
    for _ in range(10):
        LaplaceReleaser(0.1).proportion(3, 10, rng=0, budget=budget)
    assert budget.spent_epsilon == 1.0 and budget.remaining.epsilon == 0.0
    with pytest.raises(BudgetExceededError) as info:
        LaplaceReleaser(1e-9).proportion(3, 10, rng=0, budget=budget)
    assert isinstance(info.value, ValueError)
    assert info.value.requested_epsilon == 1e-9 and info.value.remaining_epsilon == 0.0


def test_delta_total_zero_refuses_approximate_dp():
    budget = PrivacyBudget(5.0)
    with pytest.raises(BudgetExceededError, match="delta = 1e-06"):
        TulapReleaser(1.0, 1e-6).release(3, 10, budget=budget)
    assert budget.ledger == ()


def test_manual_charge_count_and_validation():
    budget = PrivacyBudget(1.0)
    entry = budget.charge(0.1, count=3, mechanism="external", label="three SAS queries")
    assert isinstance(entry, LedgerEntry)
    assert entry.charged_epsilon == float(Fraction(0.1) * 3) and entry.count == 3
    with pytest.raises(ValueError, match="`count` must be an integer >= 1"):
        budget.charge(0.1, count=0)
    with pytest.raises(ValueError, match="`mechanism` must be a non-empty string"):
        budget.charge(0.1, mechanism="")

# ------------------------------------------------------------------ labels, printing
def test_labels_and_summary():
    budget = PrivacyBudget(3.0, description="trial X, ITT set")
    TulapReleaser(1.0).release(11, 30, rng=0, budget=budget.with_label("primary endpoint"))
    LaplaceReleaser(0.5).count(4, 30, rng=0, budget=budget.with_label("safety").with_label("grade 3+"))
    assert budget.ledger[0].label == "primary endpoint (TulapReleaser.release, n = 30)"
    assert budget.ledger[1].label == "safety (grade 3+ (LaplaceReleaser.count, n = 30))"
    assert budget.summary() == ("budget: spent epsilon = 1.5 of 3, delta = 0 of 0; remaining epsilon = 1.5, "
                                "delta = 0 (2 ledger entries)")
    text = str(budget)
    assert "trial X, ITT set" in text and "primary endpoint" in text and "tulap" in text
    for entry in budget.ledger:  # the confidential counts (11, 4) never reach the ledger
        assert not {"11", "4"} & set(entry.label.replace(",", " ").replace("(", " ").replace(")", " ").split())
