"""The ledger and its JSON: exact round trip, tampered ledgers refused (dpinfer/budget/_ledger.py)."""

import json

import pytest

from dpinfer import LaplaceReleaser, PrivacyBudget, TulapReleaser


# ------------------------------------------------------------------ JSON
def _busy_budget():
    budget = PrivacyBudget(4.0, delta=1e-4, description="round trip")
    TulapReleaser(0.3, 1e-6).release(5, 20, rng=0, budget=budget.with_label("first"))
    sites = budget.parallel("sites")
    LaplaceReleaser(0.2).count(1, 9, rng=0, budget=sites.group("A"))
    LaplaceReleaser(0.1).count(1, 9, rng=0, budget=sites.group("B"))
    LaplaceReleaser(0.35).count(1, 9, rng=0, budget=sites.group("B"))
    block = budget.advanced(40, 0.01, 1e-7, delta_slack=1e-6, label="looks")
    for _ in range(3):
        LaplaceReleaser(0.01).proportion(1, 9, rng=0, budget=block)
    budget.charge(0.1, count=2, mechanism="external", label="two SAS queries")
    return budget


def test_json_round_trip_is_exact():
    budget = _busy_budget()
    text = budget.to_json()
    again = PrivacyBudget.from_json(text)
    assert again == budget and again.to_json() == text
    assert (again.spent_epsilon, again.spent_delta, again.remaining) == (
        budget.spent_epsilon, budget.spent_delta, budget.remaining)
    assert again.ledger == budget.ledger
    assert again.parallel("sites").spent == budget.parallel("sites").spent
    assert again.advanced(40, 0.01, 1e-7, delta_slack=1e-6, label="looks").used == 3
    # continuing after the reload is the same as continuing before it
    for b in (budget, again):
        LaplaceReleaser(0.3).count(1, 9, rng=0, budget=b.parallel("sites").group("A"))
    assert again.spent_epsilon == budget.spent_epsilon
    assert [e.charged_epsilon for e in again.ledger] == [e.charged_epsilon for e in budget.ledger]


def test_from_json_rejects_tampered_ledgers():
    data = json.loads(_busy_budget().to_json())
    data["ledger"][0]["charged_epsilon"] = 0.0
    with pytest.raises(ValueError, match="`text` holds an invalid budget: ledger entry 1 records charged"):
        PrivacyBudget.from_json(json.dumps(data))
    data = json.loads(_busy_budget().to_json())
    data["spent_epsilon"] = 0.5
    with pytest.raises(ValueError, match="adds up to"):
        PrivacyBudget.from_json(json.dumps(data))
    data = json.loads(_busy_budget().to_json())
    data["epsilon"] = 0.5  # the ledger no longer fits, and the header no longer matches the chain
    with pytest.raises(ValueError, match="ledger entry 1 breaks the hash chain"):
        PrivacyBudget.from_json(json.dumps(data))
    with pytest.raises(ValueError, match="not a dpinfer privacy budget"):
        PrivacyBudget.from_json('{"format": "other"}')
    with pytest.raises(ValueError, match="is not JSON"):
        PrivacyBudget.from_json("{")
    with pytest.raises(TypeError, match="`text` must be the JSON text"):
        PrivacyBudget.from_json(3)
