"""Issue 26, "a record others can re-account": the ledger exported as mechanism events.

The export round-trips (``PrivacyBudget.from_events``), its charged totals equal the
ledger's, its basic total is the exact sum of the events (fractions), and its advanced
total is the heterogeneous advanced-composition bound computed here in mpmath at 50 digits.
"""

import json
from fractions import Fraction

import mpmath
import pytest

from dpinfer import AllocationPlan, LaplaceReleaser, PrivacyBudget, TulapReleaser, UnaryEncodingReleaser
from dpinfer.cli import main


def _mixed_budget():
    budget = PrivacyBudget(4.0, 1e-4, description="export")
    TulapReleaser(0.3, 1e-6).release(5, 20, rng=0, budget=budget.with_label("first"))
    TulapReleaser(0.1).release([5, 6, 7], 20, rng=0, budget=budget, array="separate")
    sites = budget.parallel("sites")
    LaplaceReleaser(0.2).count(1, 9, rng=0, budget=sites.group("A"))
    LaplaceReleaser(0.35).count(1, 9, rng=0, budget=sites.group("B"))
    block = budget.advanced(40, 0.01, 1e-7, delta_slack=1e-6, label="looks")
    for _ in range(3):
        LaplaceReleaser(0.01).proportion(1, 9, rng=0, budget=block)
    UnaryEncodingReleaser(0.7, 4).release([0, 1, 3], rng=0, budget=budget)
    budget.charge(0.1, count=2, mechanism="external", label="two SAS queries")
    return budget


def test_export_round_trips_and_its_charged_totals_are_the_ledgers():
    budget = _mixed_budget()
    export = budget.export_events()
    text = json.dumps(export, allow_nan=False)
    again = PrivacyBudget.from_events(text)
    assert again == budget and again.to_json() == budget.to_json()
    assert PrivacyBudget.from_events(export) == budget
    assert again.export_events() == export
    composed = export["composed"]
    assert composed["of_record"] == "charged"
    assert composed["charged"] == {"epsilon": budget.spent_epsilon, "delta": budget.spent_delta}
    assert [e["digest"] for e in export["events"]] == [e.digest for e in budget.ledger]
    assert export["head_digest"] == budget.head_digest == export["events"][-1]["digest"]
    assert export["events"][0]["previous"] == export["genesis_digest"]


def test_events_carry_the_mechanism_facts_in_dp_event_shape():
    events = _mixed_budget().export_events()["events"]
    tulap = events[0]
    assert (tulap["mechanism"], tulap["sensitivity"], tulap["neighbours"]) == ("tulap", 1.0, "replace-one")
    assert tulap["grid"] == 2.0**-40  # n = 20, epsilon = 0.3: the grid of 2**-40 of a count
    assert tulap["dp_event"] == {"name": "EpsilonDeltaDpEvent", "epsilon": 0.3, "delta": 1e-6}
    assert events[1]["dp_event"] == {"name": "SelfComposedDpEvent", "count": 3,
                                     "event": {"name": "EpsilonDeltaDpEvent", "epsilon": 0.1, "delta": 0.0}}
    reserve = next(e for e in events if e["composition"] == "advanced-reserve")
    assert reserve["dp_event"] == {"name": "NoOpDpEvent"} and reserve["sensitivity"] is None
    proportion = next(e for e in events if e["composition"] == "advanced")
    assert proportion["sensitivity"] == 1 / 9 and proportion["neighbours"] == "replace-one"
    unary = next(e for e in events if e["mechanism"] == "unary_encoding")
    # a local-DP release's ledger entry says what its Release says (replace-one: one respondent's answer)
    assert (unary["neighbours"], unary["sensitivity"], unary["grid"]) == ("replace-one", 2.0, None)
    manual = events[-1]
    assert (manual["sensitivity"], manual["neighbours"], manual["grid"]) == (None, "", None)


def test_composed_totals_against_exact_sums_and_mpmath():
    budget = _mixed_budget()
    composed = budget.export_events(delta_slack=1e-6)["composed"]
    events = [e for e in budget.ledger if e.composition != "advanced-reserve"]
    basic_eps = sum(Fraction(e.epsilon) * e.count for e in events)
    basic_delta = sum(Fraction(e.delta) * e.count for e in events)
    assert composed["basic"] == {"epsilon": float(basic_eps), "delta": float(basic_delta)}
    mpmath.mp.dps = 50
    eps = [(mpmath.mpf(e.epsilon), e.count) for e in events]
    exact = (mpmath.sqrt(2 * mpmath.log(1 / mpmath.mpf(1e-6)) * sum(c * x**2 for x, c in eps))
             + sum(c * x * mpmath.expm1(x) for x, c in eps))
    adv = composed["advanced"]
    assert adv["epsilon"] >= exact and adv["epsilon"] - exact < 1e-14 * exact
    assert adv["delta"] == float(basic_delta + Fraction(1e-6)) and adv["delta_slack"] == 1e-6
    # sequential only: basic composition is the number charged
    seq = PrivacyBudget(1.0)
    for e in (0.1, 0.2, 0.3):
        seq.charge(e)
    c = seq.export_events()["composed"]
    assert c["basic"] == c["charged"] == {"epsilon": seq.spent_epsilon, "delta": 0.0}
    assert PrivacyBudget(1.0).export_events()["composed"]["advanced"] == {
        "epsilon": 0.0, "delta": 0.0, "delta_slack": 1e-6}


@pytest.mark.parametrize("edit, pattern", [
    (lambda d: d["events"][1].update(epsilon=0.05), "breaks the hash chain|does not describe"),
    (lambda d: d["events"][0]["dp_event"].update(epsilon=0.01), "dp_event"),
    (lambda d: d["events"][0].update(digest="0" * 64), "digest"),
    (lambda d: d["composed"]["basic"].update(epsilon=0.1), "composed"),
    (lambda d: d["composed"]["charged"].update(epsilon=0.1), "adds up to"),
    (lambda d: d.update(genesis_digest="0" * 64), "genesis"),
    (lambda d: d["events"].pop(), "head digest|adds up to"),
])
def test_tampered_exports_are_refused(edit, pattern):
    data = json.loads(json.dumps(_mixed_budget().export_events()))
    edit(data)
    with pytest.raises(ValueError, match=pattern):
        PrivacyBudget.from_events(data)


def test_export_arguments():
    with pytest.raises(ValueError, match="`delta_slack` must lie in the open interval"):
        PrivacyBudget(1.0).export_events(delta_slack=0.0)
    with pytest.raises(TypeError, match="`data` must be a dpinfer ledger export"):
        PrivacyBudget.from_events(3)
    with pytest.raises(ValueError, match="format 'other'"):
        PrivacyBudget.from_events({"format": "other"})


def test_the_command_exports_the_events(tmp_path, capsys):
    ledger = tmp_path / "L.json"
    plan = tmp_path / "plan.json"
    plan.write_text(AllocationPlan([("primary", 0.5)]).to_json())
    assert main(["release", "--x", "3", "--n", "30", "--epsilon", "0.25", "--budget", str(ledger),
                 "--total-epsilon", "1", "--plan", str(plan), "--label", "primary", "--seed", "1"]) == 0
    capsys.readouterr()
    assert main(["budget", str(ledger), "--format", "events", "--delta-slack", "1e-9"]) == 0
    export = json.loads(capsys.readouterr().out)
    budget = PrivacyBudget.from_json(ledger.read_text())
    assert PrivacyBudget.from_events(export) == budget
    assert export["composed"]["advanced"]["delta_slack"] == 1e-9
    assert export["events"][0]["plan_line"] == "primary"
    assert export["budget"]["plan"]["lines"] == [{"label": "primary", "epsilon": 0.5, "delta": 0.0}]


def test_delta_slack_belongs_to_the_export(tmp_path, capsys):
    ledger = tmp_path / "L.json"
    ledger.write_text(_mixed_budget().to_json())
    assert main(["budget", str(ledger), "--delta-slack", "1e-9"]) == 2
    assert "--delta-slack applies to --format events only" in capsys.readouterr().err
