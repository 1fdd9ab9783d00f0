"""Issue 26: the ledger file of ``dpinfer release --budget FILE`` cannot be forked through links,
and bad ledger files give one-line errors (exit 2), never a traceback.

Each test failed before its fix: P2 (links), C1 (missing folder), C2 (deep nesting),
U3 (entry errors named as the command's --epsilon), U6 (seed warning before a refusal),
and the duplicate-key refusal of P3.
"""

import json
import os

import pytest

from dpinfer import PrivacyBudget
from dpinfer.cli import main


def call(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _release(ledger, epsilon=0.1, *extra):
    return ("release", "--x", 11, "--n", 30, "--epsilon", epsilon, "--budget", ledger, "--seed", 1, *extra)


@pytest.fixture
def ledger(tmp_path, capsys):
    path = tmp_path / "trial.json"
    code, _, err = call(capsys, *_release(path, 0.1, "--total-epsilon", 1))
    assert code == 0, err
    return path


def test_symbolic_link_is_refused_and_the_ledger_unchanged(ledger, capsys):
    link = ledger.parent / "link.json"
    link.symlink_to(ledger.name)
    before = ledger.read_text()
    code, out, err = call(capsys, *_release(link))
    assert code == 2 and "is a symbolic link (to 'trial.json')" in err and out == ""
    assert link.is_symlink() and ledger.read_text() == before


def test_hard_link_is_refused_under_both_names(ledger, capsys):
    other = ledger.parent / "other.json"
    os.link(ledger, other)
    before = ledger.read_text()
    # before the fix, 12 releases of 0.1 passed against a total of 1 through two names
    for name in [ledger, other] * 6:
        code, _, err = call(capsys, *_release(name))
        assert code == 2 and "has 2 names (hard links)" in err
    assert ledger.read_text() == before == other.read_text()
    other.unlink()
    code, _, err = call(capsys, *_release(ledger))
    assert code == 0, err
    assert PrivacyBudget.from_json(ledger.read_text()).spent_epsilon == 0.2


def test_a_linked_folder_reaches_the_same_ledger_and_lock(ledger, capsys):
    folder = ledger.parent.parent / (ledger.parent.name + "-alias")
    folder.symlink_to(ledger.parent, target_is_directory=True)
    code, _, err = call(capsys, *_release(folder / ledger.name))
    assert code == 0, err
    assert not (folder / ledger.name).is_symlink()
    assert PrivacyBudget.from_json(ledger.read_text()).spent_epsilon == 0.2


def test_missing_folder_is_a_usage_error(tmp_path, capsys):
    code, out, err = call(capsys, *_release(tmp_path / "no" / "dir" / "l.json", 0.1, "--total-epsilon", 1))
    assert code == 2 and "Traceback" not in err
    assert "its folder" in err and "does not exist" in err
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize("command", ["release", "budget"])
def test_deeply_nested_ledger_is_a_usage_error(tmp_path, capsys, command):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000)
    args = _release(path) if command == "release" else ("budget", path)
    code, out, err = call(capsys, *args)
    assert code == 2 and "nests lists or objects too deeply" in err and "Traceback" not in err


def test_bad_entry_is_named_by_its_entry_not_as_an_option(ledger, capsys):
    data = json.loads(ledger.read_text())
    data["ledger"][0]["epsilon"] = -0.1
    ledger.write_text(json.dumps(data))
    code, out, err = call(capsys, "budget", ledger)
    assert code == 2
    assert "`epsilon of ledger entry 1` must be a positive finite number; got -0.1." in err
    assert "--epsilon" not in err


def test_duplicate_key_is_refused(ledger, capsys):
    text = ledger.read_text().replace('"epsilon": 1.0,', '"epsilon": 1.0,\n  "epsilon": 100.0,', 1)
    ledger.write_text(text)
    with pytest.raises(ValueError, match="duplicate key 'epsilon'"):
        PrivacyBudget.from_json(text)
    code, _, err = call(capsys, "budget", ledger)
    assert code == 2 and "duplicate key 'epsilon'" in err


def test_refused_seeded_release_warns_of_nothing(capsys):
    code, out, err = call(capsys, "release", "--x", 3, "--n", 2251799813685248, "--epsilon", 0.5, "--seed", 3)
    assert code == 2
    assert err.startswith("dpinfer release: error:") and "--seed" not in err
    code, out, err = call(capsys, "release", "--x", 3, "--n", 30, "--epsilon", 0.5, "--seed", 3)
    assert code == 0 and "--seed 3 makes the noise reproducible" in err
