"""Issue 26, W1: every refusal decided from public numbers comes before the charge.

One case per releaser (and per release method of the Laplace releaser): a call
that the releaser refuses on public numbers alone (n, epsilon, sensitivity, the
shape of the input, a bad argument) must leave the budget and its ledger as
they were.  The Tulap and Laplace-value cases failed before the fix (the
refusal came from the noise grid or from the ``Release`` built after the charge).
"""

import numpy as np
import pytest

from dpinfer import (
    ContingencyTableReleaser,
    KRRReleaser,
    LaplaceReleaser,
    LDPHistogramReleaser,
    LocalLaplaceReleaser,
    PrivacyBudget,
    RandomizedResponseReleaser,
    TulapReleaser,
    TwoCoinRRReleaser,
    UnaryEncodingReleaser,
)

# (name, call(budget), message pattern); each refusal depends on public numbers only
REFUSED = [
    ("tulap, n too large for the grid", lambda b: TulapReleaser(0.5).release(3, 2251799813685248, budget=b),
     "too large for an exact release"),
    ("tulap, sensitivity 3, n too large", lambda b: TulapReleaser(0.5, 0.0, 3).release(3, 2**51 - 10, budget=b),
     "too large for an exact release"),
    ("laplace.release, sensitivity overflows", lambda b: LaplaceReleaser(1e-12, 1e300).release(3.0, budget=b),
     "largest double"),
    ("laplace.proportion, n too large", lambda b: LaplaceReleaser(1.0).proportion(3, 2**60, budget=b), "`n`"),
    ("laplace.count, n too large", lambda b: LaplaceReleaser(1.0).count(3, 2**60, budget=b), "`n`"),
    ("table, one column", lambda b: ContingencyTableReleaser(1.0).release([[1], [2]], budget=b), "2 columns"),
    ("randomized response, bad secure", lambda b: RandomizedResponseReleaser(1.0).release([0, 1], secure="yes",
                                                                                          budget=b), "`secure`"),
    ("two-coin RR, bad secure", lambda b: TwoCoinRRReleaser(0.5, 0.5).release([0, 1], secure="yes", budget=b),
     "`secure`"),
    ("krr, bad rng", lambda b: KRRReleaser(1.0, 3).release([0, 1], rng="seed", budget=b), "rng"),
    ("unary encoding, reports too large", lambda b: UnaryEncodingReleaser(1.0, 10**6).release(
        np.zeros(1000, dtype=int), budget=b), "at most"),
    ("local laplace, bad rng", lambda b: LocalLaplaceReleaser(1.0, 1.0).release([0.5], rng="seed", budget=b), "rng"),
    ("ldp histogram, reports too large", lambda b: LDPHistogramReleaser(1.0, 10**6).release(
        np.zeros(1000), budget=b), "at most"),
]


@pytest.mark.parametrize("name, call, pattern", REFUSED, ids=[r[0] for r in REFUSED])
def test_public_refusal_leaves_the_budget_untouched(name, call, pattern):
    budget = PrivacyBudget(10.0, 0.5)
    budget.charge(0.1, label="earlier release")
    before = budget.to_json()
    with pytest.raises((TypeError, ValueError), match=pattern):
        call(budget)
    assert budget.spent_epsilon == 0.1
    assert len(budget.ledger) == 1
    assert budget.to_json() == before


def test_the_command_refuses_before_charging_the_ledger_file(tmp_path, capsys):
    from dpinfer.cli import main

    ledger = tmp_path / "L.json"
    assert main(["release", "--x", "3", "--n", "30", "--epsilon", "0.1", "--budget", str(ledger),
                 "--total-epsilon", "1", "--seed", "1"]) == 0
    capsys.readouterr()
    before = ledger.read_text()
    assert main(["release", "--x", "3", "--n", "2251799813685248", "--epsilon", "0.5",
                 "--budget", str(ledger)]) == 2
    assert "too large for an exact release" in capsys.readouterr().err
    assert ledger.read_text() == before
