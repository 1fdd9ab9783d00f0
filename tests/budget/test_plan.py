"""Issue 26, "a ledger a trial can file": an allocation plan fixed in advance and enforced.

A release outside the plan (no line named, or past its line's share) is refused with the
plan's line named, and nothing is drawn or charged.
"""

import json

import numpy as np
import pytest

from dpinfer import AllocationPlan, BudgetExceededError, LaplaceReleaser, PrivacyBudget, TulapReleaser
from dpinfer.cli import main

from _budget_cases import _state

PLAN = AllocationPlan([("primary endpoint", 0.5), ("secondary endpoint", 0.3, 1e-6), ("safety", 0.2)],
                      description="SAP v2.1")


def _budget():
    return PrivacyBudget(1.0, 1e-6, description="trial", plan=PLAN)


def test_charges_are_accounted_to_their_line():
    budget = _budget()
    TulapReleaser(0.25).release(11, 30, rng=1, budget=budget.with_label("primary endpoint"))
    TulapReleaser(0.2, 1e-6).release(11, 30, rng=1, budget=budget.with_label("secondary endpoint"))
    budget.charge(0.25, label="primary endpoint")
    assert [e.plan_line for e in budget.ledger] == ["primary endpoint", "secondary endpoint", "primary endpoint"]
    assert budget.line_spent() == {"primary endpoint": (0.5, 0.0), "secondary endpoint": (0.2, 1e-6),
                                   "safety": (0.0, 0.0)}


@pytest.mark.parametrize("label, pattern", [
    ("", r"outside the allocation plan: its label 'TulapReleaser.release, n = 30' names none of the plan's "
         r"lines \(1: 'primary endpoint'; 2: 'secondary endpoint'; 3: 'safety'\)"),
    ("exploratory", r"outside the allocation plan: its label 'exploratory \(TulapReleaser"),
    ("safety", r"plan line 3 \('safety': epsilon = 0.2, delta = 0\) has epsilon = 0.1, delta = 0 spent; this "
               r"release \(safety \(TulapReleaser.release, n = 30\)\) would charge epsilon = 0.15"),
])
def test_spending_outside_the_plan_is_refused_and_nothing_drawn_or_charged(label, pattern):
    budget = _budget()
    budget.charge(0.1, label="safety")
    gen = np.random.default_rng(7)
    before, text = _state(gen), budget.to_json()
    handle = budget.with_label(label) if label else budget
    with pytest.raises(BudgetExceededError, match=pattern) as info:
        TulapReleaser(0.15).release(11, 30, rng=gen, budget=handle)
    assert "Nothing was drawn and nothing was charged" in str(info.value)
    assert _state(gen) == before and budget.to_json() == text
    # the budget's total alone would allow it (0.1 + 0.15 <= 1): the plan refused it
    assert budget.remaining.epsilon >= 0.15


def test_blocks_and_parallel_sets_belong_to_the_line_they_name():
    plan = AllocationPlan([("site counts", 0.4), ("interim looks", 0.6, 1e-5)])
    budget = PrivacyBudget(1.0, 1e-5, plan=plan)
    sites = budget.parallel("site counts")
    for site in "ABC":
        LaplaceReleaser(0.4).count(2, 10, rng=1, budget=sites.group(site))
    assert budget.line_spent()["site counts"] == (0.4, 0.0)
    with pytest.raises(BudgetExceededError, match="plan line 1 \\('site counts'"):
        LaplaceReleaser(0.1).count(2, 10, rng=1, budget=sites.group("A"))
    block = budget.advanced(4, 0.1, delta_slack=1e-6, label="interim looks")
    LaplaceReleaser(0.1).count(2, 10, rng=1, budget=block)
    assert budget.ledger[-1].plan_line == "interim looks"
    with pytest.raises(BudgetExceededError, match="outside the allocation plan"):
        budget.advanced(2, 0.01, delta_slack=1e-7, label="unplanned block")


def test_plan_is_fixed_in_the_header_and_survives_the_file():
    budget = _budget()
    budget.charge(0.3, label="primary endpoint (external)")
    again = PrivacyBudget.from_json(budget.to_json())
    assert again == budget and again.plan == PLAN and again.line_spent() == budget.line_spent()
    with pytest.raises(BudgetExceededError, match="plan line 1"):
        again.charge(0.3, label="primary endpoint")
    # editing a share afterwards breaks the chain
    data = json.loads(budget.to_json())
    data["plan"]["lines"][0]["epsilon"] = 0.4  # still fits the totals
    with pytest.raises(ValueError, match="breaks the hash chain"):
        PrivacyBudget.from_json(json.dumps(data))


def test_plan_checks():
    with pytest.raises(ValueError, match=r"`plan` allocates epsilon = 1.1, delta = 0 in all, more than"):
        PrivacyBudget(1.0, plan=AllocationPlan([("a", 0.6), ("b", 0.5)]))
    with pytest.raises(ValueError, match="name 'a' twice"):
        AllocationPlan([("a", 0.1), ("a", 0.2)])
    with pytest.raises(ValueError, match=r"`lines\[1\].epsilon` must be"):
        AllocationPlan([("a", 0.1), ("b", -1)])
    with pytest.raises(ValueError, match="at least one line"):
        AllocationPlan([])
    with pytest.raises(TypeError, match="`plan` must be None or a dpinfer.AllocationPlan"):
        PrivacyBudget(1.0, plan=[("a", 0.1)])
    with pytest.raises(ValueError, match="holds a duplicate key 'epsilon' in one object"):
        AllocationPlan.from_json('{"lines": [{"label": "a", "epsilon": 0.1, "epsilon": 9}]}')
    short = AllocationPlan.from_json('{"lines": [{"label": "a", "epsilon": 0.1}], "description": "d"}')
    assert short == AllocationPlan([("a", 0.1)], description="d")
    assert AllocationPlan.from_json(short.to_json()) == short


def test_the_command_enforces_a_plan_file(tmp_path, capsys):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"lines": [{"label": "primary", "epsilon": 0.6}, {"label": "safety", "epsilon": 0.3}]}))
    ledger = tmp_path / "L.json"
    base = ["release", "--x", "3", "--n", "30", "--budget", str(ledger)]
    assert main(base + ["--epsilon", "0.5", "--total-epsilon", "1", "--plan", str(plan), "--label", "primary"]) == 0
    capsys.readouterr()
    before = ledger.read_text()
    assert main(base + ["--epsilon", "0.2", "--label", "primary"]) == 2
    assert "plan line 1 ('primary': epsilon = 0.6, delta = 0) has epsilon = 0.5" in capsys.readouterr().err
    assert main(base + ["--epsilon", "0.1"]) == 2
    assert "outside the allocation plan" in capsys.readouterr().err
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"lines": [{"label": "primary", "epsilon": 0.9}]}))
    assert main(base + ["--epsilon", "0.1", "--label", "primary", "--plan", str(other)]) == 2
    assert "is not the plan ledger" in capsys.readouterr().err
    assert ledger.read_text() == before
    assert main(base + ["--epsilon", "0.1", "--label", "primary", "--plan", str(plan)]) == 0
    assert main(["budget", str(ledger)]) == 0
    out = capsys.readouterr().out
    assert "1. primary: epsilon = 0.6 of 0.6" in out and "head digest:" in out
    assert main(["release", "--x", "3", "--n", "30", "--epsilon", "0.1", "--plan", str(plan)]) == 2
    assert "--plan need" in capsys.readouterr().err
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"lines": [{"label": "primary", "epsilon": 2.0}]}))
    assert main(base[:-1] + [str(tmp_path / "new.json"), "--epsilon", "0.1", "--total-epsilon", "1",
                             "--plan", str(big), "--label", "primary"]) == 2
    assert "does not fit the ledger's totals" in capsys.readouterr().err
