"""The ledger and its JSON: exact round trip, tampered ledgers refused (dpinfer/budget/_ledger.py)."""

import json
from pathlib import Path

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


# ------------------------------------------------------------------ ledgers written before 0.1 (issue 35)
OLD_LEDGER = Path(__file__).parent / "data" / "ledger_before_0.1.json"


def test_a_ledger_written_before_0_1_reads_with_neighbours_in_release_vocabulary():
    """The file was written by dpinfer at main 1e44fbe (entries with 'neighbouring', 'local' among
    its values): it reads, its hash chain and head digest hold, and its relations are mapped."""
    text = OLD_LEDGER.read_text()
    data = json.loads(text)
    written = [e["neighbouring"] for e in data["ledger"]]
    assert written == ["replace-one", "replace-one", "local", "as the sensitivity assumes", "add-remove"]
    budget = PrivacyBudget.from_json(text)
    assert budget.head_digest == data["head_digest"] and "id" not in data
    assert [e.neighbours for e in budget.ledger] == ["replace-one"] * 4 + ["add-remove"]
    # written back, each old entry keeps the key and value its digest was computed from
    again = json.loads(budget.to_json())
    assert [e["neighbouring"] for e in again["ledger"]] == written
    assert PrivacyBudget.from_json(budget.to_json()) == budget
    assert PrivacyBudget.from_events(budget.export_events()) == budget
    # charging it further writes new entries in the new vocabulary, after the old ones
    TulapReleaser(0.5).release(3, 10, rng=1, budget=budget)
    assert "neighbours" in budget.ledger[-1].to_dict() and budget.ledger[-1].neighbours == "replace-one"
    assert PrivacyBudget.from_json(budget.to_json()).head_digest == budget.head_digest


def test_an_old_entry_edited_to_claim_another_relation_breaks_the_chain():
    data = json.loads(OLD_LEDGER.read_text())
    data["ledger"][2]["neighbouring"] = "replace-one"
    with pytest.raises(ValueError, match="breaks the hash chain"):
        PrivacyBudget.from_json(json.dumps(data))


def test_a_manual_charge_speaks_the_release_vocabulary():
    budget = PrivacyBudget(1.0)
    assert budget.charge(0.1, neighbours="add-remove").neighbours == "add-remove"
    with pytest.raises(ValueError, match="`neighbours` must be '', 'replace-one' or 'add-remove'"):
        budget.charge(0.1, neighbours="local")
    with pytest.raises(TypeError, match="unexpected keyword argument 'neighbouring'"):
        budget.charge(0.1, neighbouring="replace-one")


def test_the_budget_id_survives_the_file_and_is_checked():
    budget = PrivacyBudget(1.0)
    assert PrivacyBudget.from_json(budget.to_json()).id == budget.id != PrivacyBudget(1.0).id
    data = json.loads(budget.to_json())
    data["id"] = "not hex"
    with pytest.raises(ValueError, match="its \"id\" must be 16 lower-case hex digits; got 'not hex'"):
        PrivacyBudget.from_json(json.dumps(data))


def test_the_command_shows_an_old_ledger_in_the_new_vocabulary(tmp_path, capsys):
    from dpinfer.cli import main

    assert main(["budget", str(OLD_LEDGER), "--format", "csv"]) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert header.split(",")[13] == "neighbours" and "neighbouring" not in header and len(rows) == 5
    assert main(["budget", str(OLD_LEDGER), "--format", "events"]) == 0
    events = json.loads(capsys.readouterr().out)["events"]
    assert [e["neighbours"] for e in events] == ["replace-one"] * 4 + ["add-remove"]
    assert events[2]["neighbouring"] == "local"  # as hashed
    export = json.loads(json.dumps(PrivacyBudget.from_json(OLD_LEDGER.read_text()).export_events()))
    assert PrivacyBudget.from_events(export).head_digest == json.loads(OLD_LEDGER.read_text())["head_digest"]
