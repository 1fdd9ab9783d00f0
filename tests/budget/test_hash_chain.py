"""Issue 26, P3: consistent hand edits of a ledger are detected (the hash chain), and every
release records the ledger's head digest after its charge.

Before the fix, every edit of ``test_consistent_hand_edits_are_refused`` (checked on main)
passed ``PrivacyBudget.from_json`` silently, and a release recorded no digest.  The digests are checked
against an independent computation (hashlib on the canonical JSON, written out here).
"""

import hashlib
import json
from fractions import Fraction

import numpy as np
import pytest

from dpinfer import LaplaceReleaser, PrivacyBudget, TulapReleaser
from dpinfer.cli import main

from _budget_cases import ALL, _call


def _sha256(obj):
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _three_releases():
    budget = PrivacyBudget(1.0, description="chain")
    for eps in (0.1, 0.2, 0.3):
        TulapReleaser(eps).release(5, 20, rng=0, budget=budget)
    return budget


def test_each_entry_holds_the_digest_of_the_one_before():
    budget = _three_releases()
    data = json.loads(budget.to_json())
    header = {k: data[k] for k in ("format", "version", "epsilon", "delta", "description", "plan")}
    previous = _sha256(header)
    for raw, entry in zip(data["ledger"], budget.ledger):
        assert raw["previous"] == previous
        previous = _sha256(raw)
        assert entry.digest == previous
    assert data["head_digest"] == budget.head_digest == previous


def _tampered(edit):
    data = json.loads(_three_releases().to_json())
    edit(data)
    return json.dumps(data)


def _delete_second_and_lower_totals(data):
    data["ledger"].pop(1)
    data["spent_epsilon"] = float(Fraction(0.1) + Fraction(0.3))  # consistent: 0.4 of 0.8 spent
    data["epsilon"] = 0.8


def _raise_total(data):
    data["epsilon"] = 100.0


def _change_an_old_charge(data):
    data["ledger"][0]["epsilon"] = data["ledger"][0]["charged_epsilon"] = 0.05
    data["spent_epsilon"] = float(Fraction(0.05) + Fraction(0.2) + Fraction(0.3))


def _reorder(data):
    data["ledger"][0], data["ledger"][1] = data["ledger"][1], data["ledger"][0]


def _delete_last_entry(data):
    data["ledger"].pop()
    data["spent_epsilon"] = float(Fraction(0.1) + Fraction(0.2))


@pytest.mark.parametrize("edit, pattern", [
    (_delete_second_and_lower_totals, "ledger entry 1 breaks the hash chain"),
    (_raise_total, "ledger entry 1 breaks the hash chain"),
    (_change_an_old_charge, "ledger entry 2 breaks the hash chain"),
    (_reorder, "ledger entry 1 breaks the hash chain"),
    (_delete_last_entry, "records head digest"),
])
def test_consistent_hand_edits_are_refused(edit, pattern):
    with pytest.raises(ValueError, match=pattern):
        PrivacyBudget.from_json(_tampered(edit))


def test_a_full_rewrite_passes_the_file_but_not_the_published_digests():
    # What the chain does not protect against (docs/budget.rst): whoever can write the file can
    # recompute every digest.  The releases published before then carry digests the rewrite lacks.
    budget = PrivacyBudget(1.0, description="chain")
    published = [TulapReleaser(eps).release(5, 20, rng=0, budget=budget).ledger_digest for eps in (0.1, 0.2, 0.3)]
    forged = PrivacyBudget(1.0, description="chain")
    for eps in (0.1, 0.3):
        TulapReleaser(eps).release(5, 20, rng=0, budget=forged)
    rewritten = PrivacyBudget.from_json(forged.to_json())
    chain = {e.digest for e in rewritten.ledger}
    assert not set(published) <= chain


@pytest.mark.parametrize("name, releaser, method, x, args", ALL, ids=[c[0] for c in ALL])
def test_every_release_records_the_head_digest_after_its_charge(name, releaser, method, x, args):
    budget = PrivacyBudget(10.0, delta=1e-3)
    budget.charge(0.5, label="before")
    rel = _call(releaser, method, x, args, rng=np.random.default_rng(3), budget=budget)
    assert rel.ledger_digest == budget.head_digest == budget.ledger[-1].digest
    assert budget.ledger[-1].previous == budget.ledger[0].digest
    assert rel.to_dict()["ledger_digest"] == rel.ledger_digest
    assert _call(releaser, method, x, args, rng=1).ledger_digest is None


def test_handles_record_the_digest_too():
    budget = PrivacyBudget(2.0, 1e-4)
    group = budget.parallel("sites").group("A")
    rel = LaplaceReleaser(0.5).count(3, 10, rng=1, budget=group.with_label("site A"))
    assert rel.ledger_digest == budget.head_digest
    block = budget.advanced(10, 0.05, delta_slack=1e-6, label="looks")
    rel = LaplaceReleaser(0.05).count(3, 10, rng=1, budget=block)
    assert rel.ledger_digest == budget.head_digest and budget.ledger[-1].charged_epsilon == 0.0


def test_the_command_json_records_the_head_digest(tmp_path, capsys):
    ledger = tmp_path / "L.json"
    code = main(["release", "--x", "3", "--n", "30", "--epsilon", "0.2", "--budget", str(ledger),
                 "--total-epsilon", "1", "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0
    digest = json.loads(out)["ledger_digest"]
    assert digest == PrivacyBudget.from_json(ledger.read_text()).head_digest
    assert main(["release", "--x", "3", "--n", "30", "--epsilon", "0.2", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["ledger_digest"] is None
